"""Parity in two real spreadsheet engines: workbook formulas == evaluator == cached values.

For every plan, N randomised and boundary cases (xlmodel.synth) are built into
workbooks once (in parts, see PART), then recalculated in headless LibreOffice (a profile that forces
recalculation on load) and in Gnumeric (what ``ssconvert --recalc`` does), and read back: each
engine's values read in its memory (xlmodel.engines.in_memory: LibreOffice through UNO, Gnumeric
through its own library), which the copies each engine saves are proven to equal here (LibreOffice's
.xlsx export; Gnumeric's .xls copy, itself proven equal to its .xlsx copy), or those copies where
the bindings are missing outside CI.
In each engine every formula cell must equal the value xlmodel cached in it, and
the named outputs and rule statuses must equal the evaluator's report. Fails (not
skips) in CI when an engine is missing. XLMODEL_PARITY_N overrides N (default 300
per plan).
"""

from __future__ import annotations

import math

import os
from pathlib import Path

import openpyxl
import pytest

from xlmodel.evaluator import evaluate
from xlmodel.synth import parity_cases
from conftest import engine_values, in_memory
from xlmodel.engines.parity import (FORMULA_SHEETS, SET_ASIDE, aside_within_cap, compare, same, sheet_values,
                                     xls_values)
from xlmodel.engines.in_memory import gnumeric_number, read_gnumeric, read_libreoffice
from xlmodel.engines.recalc import recalculate, recalculate_gnumeric, soffice, ssconvert
from xlmodel.workbook.writer import build_workbook

POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
N = int(os.environ.get("XLMODEL_PARITY_N", "300"))

ENGINES = ("libreoffice", "gnumeric")
pytestmark = pytest.mark.engines

#: the comparison is xlmodel's own (xlmodel.engines.parity), the one ``xlmodel selftest`` makes on the
#: user's desk; the engines' half-fen ROUND deviations (docs/domain.md §4) are set aside there, under a cap

#: the parity set is built, recalculated and compared in parts of this many workbooks, each part a
#: unit of its own for pytest-xdist (the ``@part`` of the test ids: tests/conftest.py), so that the test processes share the set
#: instead of one process carrying all of it; a part's workbooks are built once, recalculated in one
#: launch of each engine's batch, and each is read once for both engines
PART = 100
PARTS = tuple((pid, lo, min(lo + PART, N)) for pid in POLICIES for lo in range(0, N, PART))


def _part_name(part) -> str:
    pid, lo, hi = part
    return f"{pid}-{lo:03d}-{hi:03d}"


def _spread() -> int:
    """Processes a part may use: the cores left to each test process (one under ``-n auto``, both
    cores under ``-n 0``)."""
    return max(1, (os.cpu_count() or 1) // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))


def _processes(k: int):
    """``k`` worker processes, started afresh (no fork of a process with threads), that see the
    bundled plans only, as every test does (tests/conftest.py): module fixtures are set up before
    the per-test environment is."""
    import multiprocessing
    import tempfile
    from concurrent.futures import ProcessPoolExecutor

    home = tempfile.mkdtemp(prefix="xlmodel-parity-config-")
    return ProcessPoolExecutor(k, mp_context=multiprocessing.get_context("spawn"), initializer=_bundled_only,
                               initargs=(home,))


def _bundled_only(home: str) -> None:
    os.environ["XLMODEL_CONFIG_HOME"] = home
    os.environ.pop("XLMODEL_PLANS", None)


def _map(fn, jobs: list, k: int) -> list:
    """``fn`` over ``jobs``: here when one process is all this part may use, else in ``k`` processes."""
    if k == 1:
        return [fn(job) for job in jobs]
    with _processes(k) as pool:
        return list(pool.map(fn, jobs, chunksize=max(1, len(jobs) // (4 * k))))


def _build(job) -> Path:
    case, path = job
    return build_workbook(path, case=case)


def _compare_job(job) -> dict:
    """One workbook against every engine's values of it, our workbook read once."""
    case, ours, theirs = job
    mine = sheet_values(ours)
    return {engine: compare(engine, case, ours, None, ours_values=mine, theirs_values=values)
            for engine, values in theirs.items()}


def _present() -> tuple[str, ...]:
    return tuple(e for e, exe in (("libreoffice", soffice()), ("gnumeric", ssconvert())) if exe)


def _run_part(part, root: Path) -> dict[str, list]:
    """One part of the parity set, built, recalculated in every engine installed, compared:
    {engine: [Compared]} (an engine that is missing fails or skips in its own tests)."""
    pid, lo, hi = part
    k, engines = _spread(), _present()
    cases = parity_cases(pid, N)[lo:hi]
    jobs = [(case, root / "built" / f"{pid}-{i:03d}.xlsx") for i, case in zip(range(lo, hi), cases)]
    paths = _map(_build, jobs, k)
    copies = {e: engine_values(e, paths, root / e, k) for e in engines}
    compared = _map(_compare_job, [(case, p, {e: copies[e][p.name] for e in engines})
                                   for (case, _), p in zip(jobs, paths)], k)
    return {e: [c[e] for c in compared] for e in engines}


#: this process's part, kept while its two engines' tests run
_DONE: dict = {}


@pytest.fixture(scope="module", params=[
    pytest.param((part, engine), id=f"{engine}@{_part_name(part)}") for part in PARTS for engine in ENGINES])
def parity(request, tmp_path_factory):
    """(engine, the compared workbooks of a part of the set) for every part, per engine: each case's
    workbook, recalculated in the engine, read and compared (xlmodel.engines.parity.compare)."""
    part, engine = request.param
    request.getfixturevalue(engine)  # the engine is installed (fails in CI when it is not)
    if part not in _DONE:
        _DONE.clear()
        with pytest.MonkeyPatch.context() as mp:  # the bundled plans only, as in every test (conftest.py)
            mp.setenv("XLMODEL_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "xlmodel-config"))
            mp.delenv("XLMODEL_PLANS", raising=False)
            _DONE[part] = _run_part(part, tmp_path_factory.mktemp(f"parity-{_part_name(part)}"))
    compared = _DONE[part][engine]
    aside = [c.name for c in compared if c.aside]
    print(f"\n{engine} {_part_name(part)}: {len(aside)} of {len(compared)} workbooks set aside "
          f"({SET_ASIDE[engine].reason_en}): {aside}")
    _within_the_cap(engine, part, aside, len(compared), tmp_path_factory)
    return engine, [c for c in compared if not c.aside]


def _within_the_cap(engine: str, part, aside: list[str], total: int, tmp_path_factory) -> None:
    """The workbooks set aside for ``engine`` are few enough in the whole set (aside_within_cap over
    all the parts), whichever test process compared them.

    Each part leaves its count in the session's shared temporary folder, then adds up the parts
    found there: the part written last sees every part, and checks the whole set; a part that finds
    others missing checks that what is set aside so far is within the whole set's cap already."""
    import json

    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "parity-set-aside"
    shared.mkdir(exist_ok=True)
    mine = shared / f"{engine}-{_part_name(part)}.json"
    mine.with_suffix(".tmp").write_text(json.dumps({"aside": aside, "total": total}), encoding="utf-8")
    mine.with_suffix(".tmp").replace(mine)
    parts = [json.loads(p.read_text(encoding="utf-8")) for p in shared.glob(f"{engine}-*.json")]
    all_aside = [name for p in parts for name in p["aside"]]
    assert aside_within_cap(engine, len(all_aside), len(POLICIES) * N), (len(parts), all_aside)


def test_every_formula_cell_equals_the_engine(parity):
    """The cached values xlmodel writes are exactly what each engine computes."""
    engine, compared = parity
    mismatches = [str(m) for c in compared for m in c.formula_mismatches]
    print(f"\n{engine}: {len(compared)} workbooks, {sum(c.cells for c in compared)} cells compared, "
          f"{len(mismatches)} mismatches")
    assert sum(c.cells for c in compared) > 1000 * len(compared)  # every formula sheet was read
    assert not mismatches, "\n".join(mismatches[:30])


def test_outputs_and_statuses_equal_the_evaluator(parity):
    """Every named output on 汇总 and every rule's status and figures on 检查, as each engine computes
    them, equal evaluate()."""
    _engine, compared = parity
    mismatches = [str(m) for c in compared for m in c.output_mismatches]
    assert not mismatches, "\n".join(mismatches[:30])


def test_every_year_equals_the_evaluator(parity):
    """The timeline: in every evaluated year, each rule's status and every output on 计算, as each
    engine computes them, equal evaluate() of that year.

    In a year other than the evaluation year the case's attestations are not given (they are the
    evaluation year's), as in the workbook."""
    engine, compared = parity
    mismatches = [str(m) for c in compared for m in c.year_mismatches]
    years = sum(c.years for c in compared)
    print(f"\n{engine}: {len(compared)} workbooks, {years} workbook-years compared, {len(mismatches)} mismatches")
    assert years >= 3 * len(compared)  # every plan period has three years at least
    assert not mismatches, "\n".join(mismatches[:30])


def test_the_cases_reach_every_status():
    """The generated cases are not trivial: every status and both condition outcomes occur."""
    seen, conds = set(), set()
    for case in (case for pid in POLICIES for case in parity_cases(pid, N)):
        rep = evaluate(case)
        seen |= {r.status for r in rep.rules}
        conds.add(rep.cash_conditions_met)
    assert seen == {"pass", "fail", "warn", "not_applicable", "missing_input", "met", "not_met"}
    assert conds == {True, False, None}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_engine_really_recalculates(engine, request, tmp_path):
    """A deliberately wrong cached value is corrected by the forced recalculation."""
    import xlsxwriter

    request.getfixturevalue(engine)
    src = tmp_path / "bogus.xlsx"
    wb = xlsxwriter.Workbook(str(src))
    ws = wb.add_worksheet("计算")
    ws.write_number(0, 0, 1000000.15)
    ws.write_formula(0, 1, "=ROUND(A1*0.3,2)", None, 999)  # 300000.045 -> 300000.05 (half up)
    wb.close()
    out = (recalculate if engine == "libreoffice" else recalculate_gnumeric)([src], tmp_path / engine)[0]
    assert openpyxl.load_workbook(out, data_only=True)["计算"]["B1"].value == 300000.05


SAMPLES = sorted((Path(__file__).resolve().parents[1] / "samples").glob("*.xlsx"))


@pytest.mark.parametrize("engine", ENGINES)
def test_sample_workbooks_show_the_same_results_after_recalculation(engine, request, tmp_path):
    """The committed sample workbooks: each engine's forced recalculation changes no value."""
    request.getfixturevalue(engine)
    outs = (recalculate if engine == "libreoffice" else recalculate_gnumeric)(SAMPLES, tmp_path)
    for ours, theirs in zip(SAMPLES, outs):
        a, b = sheet_values(ours), sheet_values(theirs)
        diff = [k for k in set(a) | set(b) if not same(a.get(k), b.get(k))]
        assert not diff, (ours.name, diff[:10])


def _all_kinds(path: Path) -> Path:
    """A workbook whose formulas give every kind of value LibreOffice can give: booleans (in a General,
    a number and a yes/no format), each error, texts, an empty text, numbers, on its second sheet."""
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(path))
    wb.add_worksheet("输入").write_formula(0, 0, "=1>0", None, True)  # 计算 is not the first sheet: each sheet is searched
    ws = wb.add_worksheet("计算")
    number, yes_no = wb.add_format({"num_format": "#,##0.00"}), wb.add_format({"num_format": '"是";"是";"否"'})
    ws.write_number("B1", 5)
    ws.write_boolean("B2", True)
    cells = [("=1>0", None), ("=1>0", number), ("=1>0", yes_no), ("=AND(1,0)", None), ("=--(1>0)", None),
             ("=IF(B1>1,1>0,2)", None), ("=ISNUMBER(B1)", None), ("=B2", None), ("=B2+0", None), ("=SUM(1>0)", None),
             ("=1/0", None), ("=SQRT(-1)", None), ("=NA()", None), ('="a"+1', None), ("=NOSUCHNAME()", None),
             ("=INDEX(B1:B2,5)", None), ("=POWER(10,400)", None), ("=MATCH(9,B1:B2,0)", None), ('=""', None),
             ('="是"', None), ("=B99", None), ("=B1/3", None), ("=ROUND(B1*0.3,2)", None), ("=B1*1E+15/7", None),
             ("=1+11*2^-53", None)]  # a sum half-way between two doubles (Gnumeric's long double holds it)
    for row, (formula, fmt) in enumerate(cells):
        ws.write_formula(row, 0, formula, fmt, 0)
    wb.close()
    return path


def _same_to_15_digits(x: float, y: float) -> bool:
    """x (the export's, 15 significant digits) is y rounded to 15 digits, either way where y's 16th digit is a 5
    (LibreOffice rounds the decimal half up; Python rounds the binary value: 3.524815564309765 → …77 or …76)."""
    if x == float(f"{y:.15g}"):
        return True
    unit = 10.0 ** (math.floor(math.log10(abs(y))) - 14) if y else 0.0
    return abs(x - y) <= unit  # within one unit of the 15th digit: 0.005427057898136215 → …622 or …621


def test_libreoffice_in_memory_equals_its_xlsx_export(libreoffice, tmp_path):
    """The parity oracle reads LibreOffice's values in its memory (a Python macro run inside it) instead of saving each workbook
    as .xlsx and reading that: on the sample workbooks, parity workbooks of each plan and a workbook of
    every kind of value, both readings hold the same cells with the same types (booleans, each error
    as the export names it, texts) and the same numbers (the export writes 15 significant digits;
    in memory they are whole)."""
    if not in_memory("libreoffice"):
        pytest.skip("libreoffice-script-provider-python not installed")
    kinds = _all_kinds(tmp_path / "kinds.xlsx")
    books = [*SAMPLES, *(build_workbook(tmp_path / f"{pid}-{i}.xlsx", case=c)
                         for pid in POLICIES for i, c in enumerate(parity_cases(pid, N)[:2]))]
    exported = recalculate([*books, kinds], tmp_path / "xlsx")
    read = read_libreoffice([*books, kinds], FORMULA_SHEETS)
    # recalculated as LibreOffice loads it (the profile), once: =ROUND(B1*0.3,2), cached as 0, is 5 × 0.3 = 1.5
    assert read[kinds][("计算", "A23")] == 1.5
    kinds_seen = set()
    for book, export in zip([*books, kinds], exported):
        a, b = sheet_values(export, ("计算",) if book == kinds else FORMULA_SHEETS), read[book]
        assert set(a) == set(b), (book.name, sorted(set(a) ^ set(b))[:10])
        for key, x in a.items():
            y = b[key]
            kinds_seen.add(type(y).__name__ if not (isinstance(y, str) and y.startswith("#")) else y)
            assert type(x) is type(y), (book.name, key, x, y)
            assert _same_to_15_digits(x, y) if isinstance(y, float) else x == y, (book.name, key, x, y)
    assert {"bool", "float", "str", "#DIV/0!", "#VALUE!", "#N/A", "#NAME?", "#NUM!"} <= kinds_seen, kinds_seen
    booleans = {k[1] for k, v in read[kinds].items() if isinstance(v, bool)}
    assert {"A1", "A4", "A7", "A8"} <= booleans and not booleans & {"A2", "A3", "A9", "A10"}, booleans


def test_gnumeric_xls_equals_its_xlsx_export(gnumeric, tmp_path):
    """The parity tests read Gnumeric's .xls (BIFF8) copy of each workbook, which it writes in a third of
    the time: on the sample workbooks, parity workbooks of each plan and a workbook of every kind of
    value, it holds exactly the cells of Gnumeric's .xlsx copy, with the same types and values."""
    kinds = _all_kinds(tmp_path / "kinds.xlsx")
    books = [*SAMPLES, *(build_workbook(tmp_path / f"{pid}-{i}.xlsx", case=c)
                         for pid in POLICIES for i, c in enumerate(parity_cases(pid, N)[:2])), kinds]
    as_xlsx = recalculate_gnumeric(books, tmp_path / "xlsx")
    as_xls = recalculate_gnumeric(books, tmp_path / "xls", suffix=".xls")
    kinds_seen = set()
    for book, x, y in zip(books, as_xlsx, as_xls):
        sheets = ("计算",) if book == kinds else FORMULA_SHEETS
        a, b = sheet_values(x, sheets), xls_values(y, sheets)
        assert set(a) == set(b), (book.name, sorted(set(a) ^ set(b))[:10])
        wrong = [(k, a[k], b[k]) for k in a if type(a[k]) is not type(b[k]) or a[k] != b[k]]
        assert not wrong, (book.name, wrong[:10])
        kinds_seen |= {type(v).__name__ if not (isinstance(v, str) and v.startswith("#")) else v for v in b.values()}
    assert {"bool", "float", "str", "#DIV/0!", "#VALUE!", "#N/A", "#NAME?", "#NUM!"} <= kinds_seen, kinds_seen


def test_gnumeric_in_memory_equals_its_xls_copy(gnumeric, tmp_path):
    """The parity oracle reads Gnumeric's values in its memory (its own library, through its introspection
    bindings) instead of running ``ssconvert --recalc`` on each workbook and reading the .xls copy it
    saves: on the sample workbooks, parity workbooks of each plan and a workbook of every kind of
    value, both hold exactly the same cells, with the same types and values (Gnumeric's long doubles
    rounded to doubles as its export rounds them)."""
    if not in_memory("gnumeric"):
        pytest.skip("python3-gi or gir1.2-gnumeric not installed")
    kinds = _all_kinds(tmp_path / "kinds.xlsx")
    books = [*SAMPLES, *(build_workbook(tmp_path / f"{pid}-{i}.xlsx", case=c)
                         for pid in POLICIES for i, c in enumerate(parity_cases(pid, N)[:2])), kinds]
    as_xls = recalculate_gnumeric(books, tmp_path / "xls", suffix=".xls")
    read = read_gnumeric(books, FORMULA_SHEETS)
    kinds_seen = set()
    for book, copy in zip(books, as_xls):
        sheets = ("计算",) if book == kinds else FORMULA_SHEETS
        a, b = xls_values(copy, sheets), {k: v for k, v in read[book].items() if k[0] in sheets}
        assert set(a) == set(b), (book.name, sorted(set(a) ^ set(b))[:10])
        wrong = [(k, a[k], b[k]) for k in a if type(a[k]) is not type(b[k]) or a[k] != b[k]]
        assert not wrong, (book.name, wrong[:10])
        kinds_seen |= {type(v).__name__ if not (isinstance(v, str) and v.startswith("#")) else v for v in b.values()}
    assert {"bool", "float", "str", "#DIV/0!", "#VALUE!", "#N/A", "#NAME?", "#NUM!"} <= kinds_seen, kinds_seen
    assert read[kinds][("计算", "A25")] == 1 + 6 * 2 ** -52  # 1 + 11·2^-53 rounded half to even, as the export writes it


def test_a_long_double_becomes_the_double_gnumeric_writes():
    """Gnumeric shows a long double L as the shortest decimal that gives L back; its export writes L
    rounded to a double, half to even. Worked by hand: =1+11*2^-53 is L = 1 + 11·2^-53 =
    1.00000000000000122124…, half-way between 1 + 5·2^-52 (odd) and 1 + 6·2^-52 (even); Gnumeric shows
    it as 1.0000000000000012212 (4.5e-21 below L, within L's long-double half step of 5.4e-20), which,
    read as a double, would round down to the odd neighbour."""
    assert float("1.0000000000000012212") == 1 + 5 * 2 ** -52  # what reading the text alone gives
    assert gnumeric_number("1.0000000000000012212") == 1 + 6 * 2 ** -52
    assert gnumeric_number("-1.0000000000000012212") == -(1 + 6 * 2 ** -52)
    assert gnumeric_number("1.000000000000000111") == 1.0  # 1 + 2^-53: half-way, to the even 1
    assert gnumeric_number("0.1") == 0.1 and gnumeric_number("300000.05") == 300000.05
    assert gnumeric_number("2024") == 2024.0 and gnumeric_number("0") == 0.0
    assert gnumeric_number("0.33333333333333333334") == 1 / 3


def test_a_book_gnumeric_cannot_read_in_memory_is_named(gnumeric, tmp_path):
    """A file Gnumeric cannot open as an .xlsx workbook stops the in-memory reading with a clear error
    that names it, never a hang or a half answer."""
    from xlmodel.errors import XlmodelError

    if not in_memory("gnumeric"):
        pytest.skip("python3-gi or gir1.2-gnumeric not installed")
    good = _all_kinds(tmp_path / "kinds.xlsx")
    bad = tmp_path / "不是工作簿.xlsx"
    bad.write_bytes(b"PK\x03\x04" + b"\x00" * 64 + "这不是工作簿".encode())
    text = tmp_path / "文本.xlsx"
    text.write_text("公司,金额\n甲,1\n", encoding="utf-8")
    for book in (bad, text):
        with pytest.raises(XlmodelError, match=f"{book.name}: Gnumeric could not open it as an .xlsx workbook"):
            read_gnumeric([good, book], FORMULA_SHEETS, timeout=180)


def test_a_book_libreoffice_cannot_read_in_memory_is_named(libreoffice, tmp_path):
    """A file LibreOffice cannot load as a spreadsheet stops the in-memory reading with a clear error
    that names it, after the books before it were read, never a hang or a half answer."""
    from xlmodel.errors import XlmodelError

    if not in_memory("libreoffice"):
        pytest.skip("libreoffice-script-provider-python not installed")
    good = _all_kinds(tmp_path / "kinds.xlsx")
    bad = tmp_path / "不是工作簿.xlsx"
    bad.write_bytes(b"PK\x03\x04" + b"\x00" * 64 + "这不是工作簿".encode())
    with pytest.raises(XlmodelError, match="不是工作簿.xlsx: LibreOffice could not load it"):
        read_libreoffice([good, bad], FORMULA_SHEETS, timeout=180)
    text = tmp_path / "文本.xlsx"  # with Writer installed, LibreOffice opens it as a text document
    text.write_text("公司,金额\n甲,1\n", encoding="utf-8")
    # without Writer (libreoffice-calc-nogui alone, as .ci/run installs it) nothing loads it at all
    writer = (Path(soffice()).resolve().parent / "libswlo.so").exists()
    why = "did not read it as a spreadsheet" if writer else "could not load it"
    with pytest.raises(XlmodelError, match=f"文本.xlsx: LibreOffice {why}"):
        read_libreoffice([text], FORMULA_SHEETS, timeout=180)
