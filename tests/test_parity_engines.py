"""Parity in two real spreadsheet engines: workbook formulas == evaluator == cached values.

For every plan, N randomised and boundary cases (xlmodel.synth) are built into
workbooks once, then recalculated in headless LibreOffice (a profile that forces
recalculation on load) and in Gnumeric (``ssconvert --recalc``), and read back.
In each engine every formula cell must equal the value xlmodel cached in it, and
the named outputs and rule statuses must equal the evaluator's report. Fails (not
skips) in CI when an engine is missing. XLMODEL_PARITY_N overrides N (default 300
per plan).
"""

from __future__ import annotations

import dataclasses
import math
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import openpyxl
import pytest

from xlsx_values import sheet_values
from xlmodel.catalogue import STATUS_ZH
from xlmodel.evaluator import evaluate
from xlmodel.synth import parity_cases
from xlmodel.workbook.layout import CHECK_COL_INDEX, OUTPUTS, SHEETS, Layout, col_name
from xlmodel.workbook.recalc import recalculate, recalculate_gnumeric
from xlmodel.workbook.writer import build_workbook

POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
N = int(os.environ.get("XLMODEL_PARITY_N", "300"))
FORMULA_SHEETS = (SHEETS["calc"], SHEETS["checks"], SHEETS["summary"], SHEETS["cover"])
ZH_STATUS = {v: k for k, v in STATUS_ZH.items()}

ENGINES = ("libreoffice", "gnumeric")
pytestmark = pytest.mark.engines


def _values(path: Path) -> dict[tuple[str, str], object]:
    """Every value on the formula sheets (tests/xlsx_values.py: the XML read directly, as openpyxl's
    data_only read gives them, five times faster — the parity set is thousands of workbooks)."""
    return sheet_values(path, FORMULA_SHEETS)


#: Gnumeric's ROUND can round a large amount's binary value as it is where Excel, LibreOffice and
#: xlmodel (DOMAIN §4) take it at 15 significant digits: 0.30 × 68,723,968,220.15 = 20,617,190,466.045
#: is .05 there and .04 in Gnumeric. A workbook is set aside for Gnumeric only when its differences
#: start at such a ROUND (a formula cell with ROUND(…) one fen off); they must stay a small share.
MAX_HALF_FEN_SHARE = 0.03
#: LibreOffice takes the 15 significant digits too, except on amounts of about 2×10^10 元 and more
#: (x·100 near 2^41): there its ROUND decides on the binary value (0.3 × 108,417,637,264.95 =
#: 32,525,291,179.484997… is .48 there, .49 in xlmodel and at 15 digits). Such workbooks are set aside
#: for LibreOffice only when a difference is a ROUND of an amount that large one fen off.
LIBREOFFICE_BINARY_ROUND_FROM = 2e10
MAX_LARGE_HALF_FEN_SHARE = 0.01


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The parity set, built once for both engines (two processes: building is a third of the time)."""
    root = tmp_path_factory.mktemp("parity")
    jobs = [(case, root / "built" / f"{pid}-{i:03d}.xlsx") for pid in POLICIES for i, case in enumerate(parity_cases(pid, N))]
    with _processes() as pool:
        paths = list(pool.map(_build, jobs, chunksize=25))
    return root, [(case, path) for (case, _), path in zip(jobs, paths)]


def _processes():
    """Two worker processes (one per core), started afresh (no fork of a process with threads), that
    see the bundled plans only, as every test does (tests/conftest.py): module fixtures are set up
    before the per-test environment is."""
    import multiprocessing
    import tempfile
    from concurrent.futures import ProcessPoolExecutor

    home = tempfile.mkdtemp(prefix="xlmodel-parity-config-")
    return ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn"), initializer=_bundled_only,
                               initargs=(home,))


def _bundled_only(home: str) -> None:
    os.environ["XLMODEL_CONFIG_HOME"] = home
    os.environ.pop("XLMODEL_PLANS", None)


def _build(job) -> Path:
    case, path = job
    return build_workbook(path, case=case)


def _half_fen(ours: Path, theirs: Path, from_amount: float = 0.0, a: dict | None = None, b: dict | None = None) -> bool:
    """The workbooks differ, and one of the differences is a ROUND one fen off, of an amount of at
    least ``from_amount`` (see MAX_HALF_FEN_SHARE, LIBREOFFICE_BINARY_ROUND_FROM). ``a``, ``b``: the
    two workbooks' values, when they are read already."""
    a = _values(ours) if a is None else a
    b = _values(theirs) if b is None else b
    diff = [k for k in set(a) | set(b) if not _same(a.get(k), b.get(k))]
    if not diff:
        return False
    formulas = openpyxl.load_workbook(ours, read_only=False)
    for sheet, coord in a:  # a fen is within _same's relative tolerance on large amounts: look at every ROUND
        f, x, y = formulas[sheet][coord].value, a.get((sheet, coord)), b.get((sheet, coord))
        if (isinstance(f, str) and "ROUND(" in f and isinstance(x, float) and isinstance(y, (int, float))
                and abs(abs(x - y) - 0.01) < 1e-4 and abs(x) >= from_amount):
            return True
    return False


@dataclasses.dataclass
class Compared:
    """One workbook of the parity set in one engine, read once: what each test below asserts."""

    name: str
    aside: bool  # set aside: a half-fen ROUND this engine rounds its own way (see above)
    cells: int = 0
    formula_mismatches: list = dataclasses.field(default_factory=list)
    output_mismatches: list = dataclasses.field(default_factory=list)
    year_mismatches: list = dataclasses.field(default_factory=list)
    years: int = 0


def _compare_job(job) -> Compared:
    return _compare(*job)


def _compare(engine: str, case, ours: Path, theirs: Path) -> Compared:
    """Both workbooks read once; every comparison the tests make, made."""
    a, b = _values(ours), _values(theirs)
    aside = _half_fen(ours, theirs, 0.0 if engine == "gnumeric" else LIBREOFFICE_BINARY_ROUND_FROM, a, b)
    out = Compared(ours.name, aside)
    if aside:
        return out
    for key in sorted(set(a) | set(b)):
        out.cells += 1
        if not _same(a.get(key), b.get(key)):
            out.formula_mismatches.append(f"{case.source} {key}: xlmodel {a.get(key)!r} vs {engine} {b.get(key)!r}")
    out.output_mismatches = _outputs_and_statuses(engine, case, b)
    out.year_mismatches, out.years = _every_year(engine, case, b)
    return out


@pytest.fixture(scope="module", params=ENGINES)
def parity(request, built):
    """(case, our workbook, the engine's recalculated copy) for every case of the set, per engine."""
    request.getfixturevalue(request.param)  # the engine is installed (fails in CI when it is not)
    root, cases = built
    paths = [p for _, p in cases]
    halves = [paths[0::2], paths[1::2]]  # two engine processes at a time, one per core
    run = recalculate if request.param == "libreoffice" else recalculate_gnumeric
    with ThreadPoolExecutor(2) as pool:
        outs = list(pool.map(lambda ps: run(ps, root / request.param), halves))
    recalculated = {p.name: p for ps in outs for p in ps}
    with _processes() as pool:  # reading the workbooks and evaluating every year: both cores
        compared = list(pool.map(_compare_job, [(request.param, case, path, recalculated[path.name])
                                                 for case, path in cases], chunksize=25))
    aside = [c.name for c in compared if c.aside]
    if request.param == "gnumeric":
        print(f"\ngnumeric: {len(aside)} of {len(compared)} workbooks differ at a half-fen ROUND (LibreOffice only): {aside}")
        assert len(aside) <= max(MAX_HALF_FEN_SHARE * len(compared), 3), aside  # (3: a small XLMODEL_PARITY_N)
    else:
        print(f"\nlibreoffice: {len(aside)} of {len(compared)} workbooks differ at a half-fen ROUND of an amount "
              f"≥ {LIBREOFFICE_BINARY_ROUND_FROM:,.0f} 元: {aside}")
        assert len(aside) <= max(MAX_LARGE_HALF_FEN_SHARE * len(compared), 1), aside
    return request.param, [c for c in compared if not c.aside]


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        # to the fen and better: a relative 1e-9 for ratios, never more than 0.001 on an amount, and
        # a few ulps where floats are that coarse (amounts near the 1e15 limit)
        tol = max(min(1e-9 * max(1.0, abs(a)), 0.001), 4 * math.ulp(abs(a)))
        return a == b or abs(a - b) <= tol
    return a == b


def test_every_formula_cell_equals_the_engine(parity):
    """The cached values xlmodel writes are exactly what each engine computes."""
    engine, compared = parity
    mismatches = [m for c in compared for m in c.formula_mismatches]
    print(f"\n{engine}: {len(compared)} workbooks, {sum(c.cells for c in compared)} cells compared, "
          f"{len(mismatches)} mismatches")
    assert sum(c.cells for c in compared) > 1000 * len(compared)  # every formula sheet was read
    assert not mismatches, "\n".join(mismatches[:30])


def _outputs_and_statuses(engine: str, case, vals: dict) -> list[str]:
    """Named outputs and every rule's status and numbers on 检查, as the engine computed them, against evaluate()."""
    from xlmodel.evaluator import model_for

    mismatches = []
    rep = evaluate(case)
    layout = Layout(model_for(case.policy), case.evaluation_year)
    summary = SHEETS["summary"]
    got = {name: vals.get((summary, f"C{layout.output_rows[name] + 1}")) for name, *_ in OUTPUTS}
    want = {
        "overall_status": STATUS_ZH[rep.overall_status],
        "cash_conditions_met": rep.cash_conditions_met,
        "min_cash_dividend": rep.min_cash_dividend,
        "max_distribution": rep.max_distribution,
        "fail_count": rep.fail_count,
        "warn_count": rep.warn_count,
        "missing_input_count": rep.missing_input_count,
    }
    for k, v in want.items():
        if not _same(got[k], v):
            mismatches.append(f"{case.source} {k}: {engine} {got[k]!r} vs evaluator {v!r}")
    for r in rep.rules:
        cell = (SHEETS["checks"], f"{col_name(CHECK_COL_INDEX['status'])}{layout.check_rows[r.id] + 1}")
        lo_status = ZH_STATUS.get(vals.get(cell))
        if lo_status != r.status:
            mismatches.append(f"{case.source} {r.id}: {engine} {lo_status} vs evaluator {r.status}")
        for key, want_v in (("actual", r.actual), ("required", r.required), ("margin", r.margin),
                            ("shortfall", r.shortfall)):
            col = col_name(CHECK_COL_INDEX[key])
            got_v = vals.get((SHEETS["checks"], f"{col}{layout.check_rows[r.id] + 1}"))
            if isinstance(want_v, (int, float)) and not isinstance(want_v, bool) and r.unit != "日期":
                if not _same(got_v, want_v):
                    mismatches.append(f"{case.source} {r.id}.{col}: {engine} {got_v!r} vs evaluator {want_v!r}")
    return mismatches


def test_outputs_and_statuses_equal_the_evaluator(parity):
    """Named outputs and every rule's status, as each engine computes them, equal evaluate()."""
    _engine, compared = parity
    mismatches = [m for c in compared for m in c.output_mismatches]
    assert not mismatches, "\n".join(mismatches[:30])


def _every_year(engine: str, case, vals: dict) -> tuple[list[str], int]:
    """Every evaluated year's statuses and results on 计算 against evaluate() of that year: (mismatches, years)."""
    from xlmodel.evaluator import model_for
    from xlmodel.workbook.layout import timeline

    mismatches = []
    model = model_for(case.policy)
    layout = Layout(model, case.evaluation_year, *timeline(model, case.evaluation_year, case.years))
    calc = SHEETS["calc"]
    for y in layout.eval_years:
        at = case if y == case.evaluation_year else dataclasses.replace(case, evaluation_year=y, attestations={})
        rep = evaluate(at)
        cell = lambda name: vals.get((calc, f"{col_name(layout.col_of(y))}{layout.calc_rows[name] + 1}"))  # noqa: E731
        want = {"overall_status": STATUS_ZH[rep.overall_status], "min_cash_dividend": rep.min_cash_dividend,
                "max_distribution": rep.max_distribution, "fail_count": rep.fail_count,
                **{f"{r.id}.status": STATUS_ZH[r.status] for r in rep.rules}}
        for name, v in want.items():
            if not _same(cell(name), v):
                mismatches.append(f"{case.source} {y} {name}: {engine} {cell(name)!r} vs evaluator {v!r}")
    return mismatches, len(layout.eval_years)


def test_every_year_equals_the_evaluator(parity):
    """The timeline: in every evaluated year, each rule's status, the minimum cash dividend, the cap
    and the overall result, as each engine computes them on 计算, equal evaluate() of that year.

    In a year other than the evaluation year the case's attestations are not given (they are the
    evaluation year's), as in the workbook."""
    engine, compared = parity
    mismatches = [m for c in compared for m in c.year_mismatches]
    years = sum(c.years for c in compared)
    print(f"\n{engine}: {len(compared)} workbooks, {years} workbook-years compared, {len(mismatches)} mismatches")
    assert years >= 3 * len(compared)  # every plan period has three years at least
    assert not mismatches, "\n".join(mismatches[:30])


def test_the_cases_reach_every_status(built):
    """The generated cases are not trivial: every status and both condition outcomes occur."""
    seen, conds = set(), set()
    for case, _path in built[1]:
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
        a, b = _values(ours), _values(theirs)
        diff = [k for k in set(a) | set(b) if not _same(a.get(k), b.get(k))]
        assert not diff, (ours.name, diff[:10])
