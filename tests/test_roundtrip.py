"""Round trip (issue 6): check a filled-in workbook, refresh it, never lose a user's data.

Workbooks are built with ``build_workbook``, edited the way people and other tools edit
them (openpyxl, which drops cached values; LibreOffice, which recalculates; raw edits of
the zip parts, which keep everything else byte for byte), and read back with
``read_workbook`` or the ``xlmodel check`` / ``xlmodel refresh`` commands run in-process
through ``xlmodel.cli.main``.

1. round-trip fidelity (hypothesis): every input written is read back equal;
2. input errors name 输入!<cell>, the field and the year, all at once;
3. tamper detection on every sheet with formulas;
4. stale cached results are reported while the report comes from the inputs;
5. untrusted files: a clear error or a correct read, in bounded time and memory;
6. refresh carries every input over;
7. ``check --json`` equals ``xlmodel.evaluate``; ``--markdown`` is a Markdown table.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
import unicodedata
import zipfile
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName

import xlmodel
from xlmodel.errors import CaseError
from xlmodel.case import load_case, parse_case
from conftest import cli
from xlmodel.errors import XlmodelError
from xlmodel.evaluator import model_for
from xlmodel.fields import COMPANY_FIELDS, ENUMS, YEAR_FIELDS, Kind
from xlmodel.plans.loading import load_policy
from xlmodel.report.terminal import render_table
from xlmodel.report.markdown import render_markdown
from xlmodel.synth import interims_within_totals, parity_cases, random_case_data
from xlmodel.workbook.integrity import verdict_lines
from xlmodel.workbook.layout import CHECK_COL_INDEX, SHEETS, Layout
from xlmodel.workbook.reader import WorkbookError, read_workbook
from xlmodel.workbook.compare import cached_differences
from xlmodel.workbook.writer import build_workbook

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("*.yaml"))
POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
GCL = "gcl-energy-2022-2024"
GCL_SAMPLE = ROOT / "samples" / f"{GCL}.yaml"
# GCL sample FY2023: min_annual = 10% × 855,092,128.94 = 85,509,212.89 (tests/test_cli.py works it out);
# the rolling need is 0 given 2021–2022, so cash one fen short fails min_annual alone.
GCL_MIN_CASH = 85_509_212.89
INPUTS, CALC, CHECKS, SUMMARY, COVER = (SHEETS[k] for k in ("inputs", "calc", "checks", "summary", "cover"))
HOSTILE_SECONDS = 5.0  # every hostile file is refused or read within this
HOSTILE_PEAK_MB = 64  # traced Python allocations while refusing or reading it
#: the integrity verdict of a workbook as xlmodel built it (the first line of `check`'s report)
INTACT = [("完整性 Integrity: ✓ 公式与生成器一致，缓存结果为最新", "formulas as generated, cached results current")]
TIMINGS: dict[str, tuple[float, float]] = {}  # name -> (seconds, peak MB), printed at the end (-s)


# ---------------------------------------------------------------------------------------------
# helpers




def check_json(out: str) -> list[dict]:
    """`check --json`: always a list, one object per workbook, each with its file, exit code and integrity."""
    docs = json.loads(out)
    assert isinstance(docs, list) and docs
    for d in docs:
        assert {"workbook", "exit_code"} <= set(d) and ("error" in d or "integrity" in d), sorted(d)
    return docs


def report_of(doc: dict) -> dict:
    """The report part of one `check --json` object: what `evaluate --json` gives for the inputs."""
    return {k: v for k, v in doc.items() if k not in ("workbook", "exit_code", "integrity")}


def assert_clean_error(err: str):
    assert "Traceback" not in err
    assert err.startswith("xlmodel: "), err


def sheet_part(sheet: str) -> str:
    """The zip part of a sheet in a workbook xlmodel wrote (XlsxWriter numbers them in order)."""
    return f"xl/worksheets/sheet{list(SHEETS.values()).index(sheet) + 1}.xml"


def rewrite_zip(src: Path, dst: Path, replace: dict | None = None, add: dict | None = None,
                drop: tuple = ()) -> Path:
    """Copy a zip part by part: replace[name](bytes) -> bytes, add new parts, drop parts."""
    replace, add = replace or {}, add or {}
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            data = zin.read(info.filename)
            if info.filename in replace:
                data = replace[info.filename](data)
            zout.writestr(info.filename, data)
        for name, data in add.items():
            zout.writestr(name, data)
    return dst


def name_cells(wb, name: str):
    (sheet, ref), = wb.defined_names[name].destinations
    cells = wb[sheet][ref.replace("$", "")]
    if not isinstance(cells, tuple):
        cells = (cells,)
    return sheet, [c for row in cells for c in (row if isinstance(row, tuple) else (row,))]


def input_cell(wb, fid: str, year: int | None = None) -> str:
    """'输入!I20' for a field (and fiscal year), an attestation ('att_<rule>') or a company field."""
    sheet, cells = name_cells(wb, fid if fid.startswith("att_") else f"in_{fid}")
    if year is None:
        return f"{sheet}!{cells[0].coordinate}"
    first = name_cells(wb, "in_first_year")[1][0].value  # the timeline: the first column's year
    return f"{sheet}!{cells[year - first].coordinate}"


def edit(src: Path, dst: Path, values: dict) -> dict:
    """Set input cells with openpyxl ({(fid, year|None): value}); return {(fid, year): '输入!X9'}."""
    wb = openpyxl.load_workbook(src)
    where = {}
    for (fid, year), value in values.items():
        ref = input_cell(wb, fid, year)
        sheet, coord = ref.split("!")
        wb[sheet][coord] = value
        where[(fid, year)] = ref
    wb.save(dst)
    return where


def typed(d: dict, digits: int | None = None) -> dict:
    """Values with their types, so that True == 1 or 1 == 1.0 cannot hide a change of type;
    floats rounded to ``digits`` significant digits when given."""
    def v_(v):
        return float(f"{v:.{digits}g}") if digits and type(v) is float else v
    return {k: (type(v).__name__, v_(v)) for k, v in d.items()}


def same_case(got, want, digits: int | None = None):
    """Every year field, company field, attestation and note equal (absent stays absent).

    Values are compared exactly unless ``digits`` is given (LibreOffice saves numbers with
    15 significant digits: 2/3 comes back as 0.666666666666667)."""
    assert got.policy == want.policy
    assert got.evaluation_year == want.evaluation_year
    gy = {y: typed(v, digits) for y, v in got.years.items() if v}
    wy = {y: typed(v, digits) for y, v in want.years.items() if v}
    assert gy == wy
    assert typed(got.company) == typed(want.company)
    assert typed(got.attestations) == typed(want.attestations)
    assert got.notes == want.notes


def only_year_field_notes(case):
    """The notes a workbook has a place for: every input row has a source/notes cell."""
    return copy.deepcopy(case)


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    """One workbook per sample, built once; tests copy or rewrite them, never edit them in place."""
    root = tmp_path_factory.mktemp("books")
    return {p.stem: build_workbook(root / f"{p.stem}.xlsx", case=load_case(p)) for p in SAMPLES}


@pytest.fixture()
def gcl_book(books):
    return books[GCL]


# ---------------------------------------------------------------------------------------------
# 1. round-trip fidelity


def _amount():
    fen = st.integers(-10**15, 10**15).map(lambda c: c / 100)  # 2 decimals, |x| <= 1e13
    return st.one_of(fen, st.sampled_from([0.0, 0.01, -0.01, 1e13, -1e13, 9_999_999_999_999.99, -0.5]))


def _ratio():
    return st.one_of(st.sampled_from([0.0, 1.0, 0.5, 2 / 3, 1 / 3, 0.3, 0.67]),
                     st.integers(0, 10**6).map(lambda k: k / 10**6))


_DATES = st.dates(dt.date(1990, 1, 1), dt.date(2100, 12, 31))
# printable text (no control, surrogate or unassigned code points: see the xfail tests below)
# (nor line separators or bidirectional overrides, which text fields refuse like control characters)
_TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Cn"),
                              blacklist_characters="\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
                min_size=1, max_size=30)
_FORMULA_LIKE = st.tuples(st.sampled_from(["=", "+", "-", "@", "=SUM(", "=HYPERLINK(\"http://x\",", ""]), _TEXT).map("".join)


def _value(f):
    return {
        Kind.AMOUNT: _amount().map(abs) if f.default_zero else _amount(),  # a distribution is ≥ 0
        Kind.RATIO: _ratio(),
        Kind.COUNT: st.integers(0, 10**15 - 1).map(float),
        Kind.BOOL: st.booleans(),
        Kind.ENUM: st.sampled_from(sorted(ENUMS.get(f.id, {}))),
        Kind.DATE: _DATES,
        Kind.TEXT: _FORMULA_LIKE,
    }[f.kind]


@st.composite
def case_data(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    pid = draw(st.sampled_from(POLICIES))
    data = random_case_data(np.random.default_rng(seed), pid, 2024)
    rows = data["years"]
    for _ in range(draw(st.integers(0, 15))):  # mutate, blank or add per-year values
        f = draw(st.sampled_from(YEAR_FIELDS))
        row = draw(st.sampled_from(rows))
        v = draw(st.one_of(st.none(), _value(f)))
        if v is None:
            row.pop(f.id, None)
        else:
            row[f.id] = v
    company = data["company"]
    company["company_name"] = draw(_FORMULA_LIKE.filter(lambda s: s.strip()))
    company["stock_code"] = "7" + draw(st.from_regex(r"\A[0-9]{5}\Z"))  # a prefix of no board: any board goes with it
    for f in COMPANY_FIELDS[2:]:  # board, listing_date: keep, change or blank
        choice = draw(st.sampled_from(["keep", "set", "blank"]))
        if choice == "set":
            company[f.id] = draw(_value(f))
        elif choice == "blank":
            company.pop(f.id, None)
    att = data["attestations"]
    for rid in model_for(pid).attestation_ids():
        choice = draw(st.sampled_from(["keep", "flip", "blank"]))
        if choice == "flip":
            att[rid] = not att.get(rid, False)
        elif choice == "blank":
            att.pop(rid, None)
    interims_within_totals(data)  # an interim above its year's total is refused on input (tested elsewhere)
    notes = draw(st.dictionaries(st.sampled_from([f.id for f in YEAR_FIELDS]),
                                 _FORMULA_LIKE.map(str.strip).filter(bool), max_size=4))
    if notes:
        data["notes"] = notes
    return data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case_data())
def test_every_input_written_is_read_back_equal(data):
    case = parse_case(data, "<hypothesis>")
    with tempfile.TemporaryDirectory(prefix="xlmodel-rt-") as d:
        path = build_workbook(Path(d) / "book.xlsx", case=case)
        read = read_workbook(path)
    same_case(read.case, case)
    assert read.tampered == []  # a freshly built workbook passes its own tamper check
    assert read.notes == []
    assert cached_differences(read, xlmodel.evaluate(read.case, read.policy)) == []  # and is not stale
    assert read.built_with == {"xlmodel_version": xlmodel.__version__, "xlmodel_policy": case.policy,
                               "xlmodel_policy_version": load_policy(case.policy).version}


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_samples_read_back_equal(books, sample):
    case = load_case(sample)
    read = read_workbook(books[sample.stem])
    same_case(read.case, only_year_field_notes(case))
    assert read.tampered == [] and read.notes == []


@pytest.mark.parametrize("text", ["=1+1", "+86 10 1234", "-1", "@SUM(A1:A9)", "=HYPERLINK(\"http://evil\",\"x\")",
                                  "=cmd|' /C calc'!A0"])
def test_text_that_looks_like_a_formula_is_stored_as_text(tmp_path, text):
    data = random_case_data(np.random.default_rng(1), GCL, 2024)
    data["company"]["company_name"] = text
    data["notes"] = {"cash_dividend": text}
    case = parse_case(data)
    path = build_workbook(tmp_path / "book.xlsx", case=case)
    wb = openpyxl.load_workbook(path)
    sheet, coord = input_cell(wb, "company_name").split("!")
    cell = wb[sheet][coord]
    assert cell.data_type == "s" and cell.value == text  # a string cell, not a formula
    with zipfile.ZipFile(path) as z:
        xml = z.read(sheet_part(INPUTS)).decode()
    m = re.search(rf'<c r="{coord}"[^>]*>(.*?)</c>', xml)
    assert m and "<f>" not in m.group(1) and 't="s"' in m.group(0)
    read = read_workbook(path)
    assert read.case.company["company_name"] == text
    assert read.case.notes["cash_dividend"] == text


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_notes_on_attestations_survive_the_workbook(books, sample):
    case = load_case(sample)
    assert set(case.notes) - {f.id for f in YEAR_FIELDS}  # the samples do have such notes
    assert read_workbook(books[sample.stem]).case.notes == case.notes


@pytest.mark.parametrize("text", ["line 1\r\nline 2", "tab\tand new\nline"], ids=["crlf", "tab"])
def test_notes_with_line_breaks_and_tabs_read_back_equal(tmp_path, text):
    data = random_case_data(np.random.default_rng(1), GCL, 2024)
    data["notes"] = {"cash_dividend": text}
    path = build_workbook(tmp_path / "book.xlsx", case=parse_case(data))
    assert read_workbook(path).case.notes["cash_dividend"] == text


def test_other_control_characters_are_refused_when_the_case_is_loaded():
    data = random_case_data(np.random.default_rng(1), GCL, 2024)
    data["notes"] = {"cash_dividend": "bell\x07"}
    data["company"]["company_name"] = "协鑫\x01能源"
    with pytest.raises(CaseError) as e:
        parse_case(data)
    assert "notes.cash_dividend" in str(e.value) and "company.company_name" in str(e.value)


def test_a_ratio_is_kept_at_15_significant_digits_as_in_a_spreadsheet(tmp_path):
    data = random_case_data(np.random.default_rng(1), GCL, 2024)
    data["years"][-1]["vote_for_ratio"] = 0.1 + 0.2
    path = build_workbook(tmp_path / "book.xlsx", case=parse_case(data))
    # 0.30000000000000004 is loaded as 0.3, as a spreadsheet shows it, and read back as 0.3
    assert parse_case(data).years[2024]["vote_for_ratio"] == 0.3
    assert read_workbook(path).case.years[2024]["vote_for_ratio"] == 0.3


def test_an_empty_model_filled_in_by_hand_reads_as_the_case(tmp_path, capsys):
    """The workflow of the issue: `xlmodel build --policy` goes out empty, comes back filled in."""
    from xlmodel.fields import BOOL_LABELS, FIELDS

    case = load_case(GCL_SAMPLE)
    empty = build_workbook(tmp_path / "empty.xlsx", policy=GCL)  # the plan's last year, 2024
    assert read_workbook(empty).case.evaluation_year == 2024
    wb = openpyxl.load_workbook(empty)
    name_cells(wb, "in_evaluation_year")[1][0].value = case.evaluation_year  # the user picks 2023

    def shown(fid, v):  # what a person types or picks from the drop-down
        kind = FIELDS[fid].kind if fid in FIELDS else Kind.BOOL
        return {Kind.BOOL: lambda: BOOL_LABELS[v], Kind.ENUM: lambda: ENUMS[fid][v]}.get(kind, lambda: v)()

    for year, vals in case.years.items():
        for fid, v in vals.items():
            sheet, coord = input_cell(wb, fid, year).split("!")
            wb[sheet][coord] = shown(fid, v)
    for fid, v in case.company.items():
        sheet, coord = input_cell(wb, fid).split("!")
        wb[sheet][coord] = shown(fid, v)
    for rid, v in case.attestations.items():
        sheet, coord = input_cell(wb, f"att_{rid}").split("!")
        wb[sheet][coord] = shown(rid, v)
    notes_col = name_cells(wb, "in_cash_dividend")[1][-1].column + 1  # the source/notes column
    for key, note in case.notes.items():
        sheet, cells = name_cells(wb, f"att_{key}" if key in case.attestations or key not in FIELDS else f"in_{key}")
        wb[sheet].cell(cells[0].row, notes_col).value = note
    filled = tmp_path / "filled.xlsx"
    wb.save(filled)
    read = read_workbook(filled)
    same_case(read.case, only_year_field_notes(case))
    assert read.tampered == []
    code, out, err = cli(capsys, "check", filled, "--json")
    rep = xlmodel.evaluate(case)
    assert code == rep.exit_code == 0
    (doc,) = check_json(out)
    assert report_of(doc) == json.loads(json.dumps(rep.to_dict(), ensure_ascii=False, default=str))
    assert doc["integrity"]["cached_results_stale"] and not doc["integrity"]["trusted"]
    assert "the workbook shows no results" in err  # openpyxl dropped the empty model's cached results


# ---------------------------------------------------------------------------------------------
# 2. input errors


def test_input_errors_name_sheet_cell_field_and_year_all_at_once(gcl_book, tmp_path, capsys):
    bad = {
        ("cash_dividend", 2023): ("1.2亿", "cash_dividend", "an amount in 元"),
        ("vote_for_ratio", 2023): (67, "vote_for_ratio", "a ratio between 0 and 1"),
        ("online_voting_offered", 2023): ("maybe", "online_voting_offered", "是 or 否"),
        ("audit_opinion", 2023): ("clean opinion", "audit_opinion", "a choice from the list"),
        ("agm_date", 2023): ("2024-13-45", "agm_date", "a date"),
        ("revenue", 2021): ("n/a", "revenue", "an amount in 元"),
        ("share_count", 2022): ("1,581,450,548.5", "share_count", "a whole, non-negative number of shares"),
        ("att_board_records_kept", None): ("perhaps", "board_records_kept", "是 or 否"),
        # (2015 would read as 002015, its zeros lost, with a note; 12345 is no code with or without them)
        ("stock_code", None): (12345, None, "expected a 6-digit stock code, got 12345"),
    }
    path = tmp_path / "bad.xlsx"
    where = edit(gcl_book, path, {k: v[0] for k, v in bad.items()})
    with pytest.raises(WorkbookError) as exc:
        read_workbook(path)
    problems = {p.where: p.message for p in exc.value.problems}
    assert sorted(problems) == sorted(where.values())  # every bad cell, and nothing else, at once
    for key, (raw, fid, expected) in bad.items():
        msg = problems[where[key]]
        assert where[key].startswith("输入!")
        assert expected in msg and repr(raw) in msg, msg
        if fid:
            assert fid in msg
        if key[1] is not None:
            assert f"({key[1]})" in msg  # the fiscal year
    code, out, err = cli(capsys, "check", path)
    assert code == 2 and out == ""
    assert_clean_error(err)
    assert all(f"{w}:" in err for w in where.values())
    assert f"({len(bad)} problems)" in err


def test_text_cell_error_names_the_field(gcl_book, tmp_path):
    path = tmp_path / "bad.xlsx"
    where = edit(gcl_book, path, {("stock_code", None): 12345})
    with pytest.raises(WorkbookError) as exc:
        read_workbook(path)
    (p,) = exc.value.problems
    assert p.where == where[("stock_code", None)] and "stock_code" in p.message


def test_numbers_stored_as_text_are_read(gcl_book, tmp_path):
    values = {
        ("cash_dividend", 2022): ("1,234,567.89", 1234567.89),
        ("operating_cash_flow", 2021): ("-1,000", -1000.0),  # (a distribution amount cannot be negative)
        ("cash_dividend", 2020): (" 12345.5 ", 12345.5),
        ("revenue", 2023): ("+9,999,999,999,999.99", 9999999999999.99),
        ("share_count", 2023): ("1,581,450,548", 1581450548.0),
        ("vote_for_ratio", 2023): ("67%", 0.67),
        ("vote_for_ratio", 2022): ("0.5", 0.5),
        ("vote_for_ratio", 2021): ("66.5 %", 0.665),
        ("agm_date", 2023): ("2024-05-20", dt.date(2024, 5, 20)),
        ("online_voting_offered", 2022): ("否", False),
        ("development_stage", 2023): ("mature", "mature"),
        ("audit_opinion", 2022): ("保留意见", "qualified"),
    }
    path = tmp_path / "text.xlsx"
    edit(gcl_book, path, {k: v[0] for k, v in values.items()})
    read = read_workbook(path)
    for (fid, year), (_, want) in values.items():
        got = read.case.years[year][fid]
        assert type(got) is type(want) and got == want, (fid, year, got)
    assert read.tampered == []


def test_ambiguous_text_is_an_error_not_a_guess(gcl_book, tmp_path):
    texts = ["1.234,56", "12 345", "1,23", "1.234.567", "12,34,567", "1e5", "¥100", "(1,000.00)", "100万",
             "1,234,", "0x10", "--5", "five"]
    cells = [("cash_dividend", y) for y in range(2019, 2024)] + [("revenue", y) for y in range(2019, 2024)] + \
            [("rd_expense", y) for y in range(2019, 2022)]
    values = dict(zip(cells, texts))
    values[("vote_for_ratio", 2023)] = "67"  # a bare 67 is not a ratio; 67% would be
    values[("vote_for_ratio", 2022)] = "0,67"
    path = tmp_path / "ambiguous.xlsx"
    where = edit(gcl_book, path, values)
    with pytest.raises(WorkbookError) as exc:
        read_workbook(path)
    problems = {p.where: p.message for p in exc.value.problems}
    assert sorted(problems) == sorted(where.values())
    for key, text in values.items():
        assert repr(text) in problems[where[key]]


def test_evaluation_year_error_is_clean(gcl_book, tmp_path, capsys):
    path = tmp_path / "year.xlsx"
    wb = openpyxl.load_workbook(gcl_book)
    sheet, cells = name_cells(wb, "in_evaluation_year")
    cells[0].value = "FY2023"
    wb.save(path)
    with pytest.raises(WorkbookError) as exc:
        read_workbook(path)
    assert [p.where for p in exc.value.problems] == [f"{sheet}!{cells[0].coordinate}"]
    code, _, err = cli(capsys, "check", path)
    assert code == 2
    assert_clean_error(err)


_CELL_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-10**16, 10**16), st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(blacklist_categories=("Cc", "Cs", "Cn")), max_size=20),
    st.datetimes(dt.datetime(1900, 3, 1), dt.datetime(2200, 1, 1)),
    st.sampled_from(["是", "否", "TRUE", "67%", "1,234.5", "2024-02-30", "#N/A", "=1+1", "标准无保留意见"]))
_FUZZ_FIELDS = [f.id for f in YEAR_FIELDS] + [f.id for f in COMPANY_FIELDS]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.tuples(st.sampled_from(_FUZZ_FIELDS), st.integers(2019, 2023)), _CELL_VALUES,
                       min_size=1, max_size=8))
def test_any_cell_value_gives_a_read_or_cell_errors_never_a_crash(tmp_path_factory, books, edits):
    company = {f.id for f in COMPANY_FIELDS}
    values = {(fid, None if fid in company else y): v for (fid, y), v in edits.items()}
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.xlsx"
    where = edit(books[GCL], path, values)
    try:
        read = read_workbook(path)
    except WorkbookError as e:
        assert e.problems
        # only edited cells are blamed, or (values that contradict each other, xlmodel.rules.consistency) a cell
        # whose message names the edited field it contradicts
        edited = {fid for fid, _ in values}
        assert all(p.where in set(where.values()) or any(f in p.message for f in edited) for p in e.problems)
    else:
        assert read.tampered == []


# ---------------------------------------------------------------------------------------------
# 3. tamper detection


def _checks_cell(policy_id: str, year: int, rule: str, col: str) -> str:
    L = Layout(model_for(policy_id), year)
    return f"{get_column_letter(CHECK_COL_INDEX[col] + 1)}{L.check_rows[rule] + 1}"


def _calc_cell(policy_id: str, year: int, series: str, year_offset: int = 0) -> str:
    L = Layout(model_for(policy_id), year)
    return f"{get_column_letter(L.year_col(year_offset) + 1)}{L.series[series] + 1}"


def _calc_scalar(policy_id: str, year: int, name: str) -> str:
    """A rule's calculation in the evaluation year's column of 计算."""
    L = Layout(model_for(policy_id), year)
    return f"{get_column_letter(L.t_col + 1)}{L.calc_rows[name] + 1}"


TAMPERS = {
    # the threshold hard-coded into the required amount of min_annual
    "checks_formula": (CALC, lambda: _calc_scalar(GCL, 2023, "min_annual.required"),
                       lambda f: f.replace("p_min_annual_c1_ratio", "0.05")),
    # a status replaced by the constant it should show
    "checks_constant": (CHECKS, lambda: _checks_cell(GCL, 2023, "min_annual", "status"), lambda f: "通过"),
    # a per-year calculation: one year's cash made to count twice
    "calc_formula": (CALC, lambda: _calc_cell(GCL, 2023, "cash"), lambda f: f + "*2"),
    "calc_constant": (CALC, lambda: _calc_cell(GCL, 2023, "cash", -1), lambda f: 999999999.99),
    "summary_constant": (SUMMARY, lambda: "C5", lambda f: "通过"),
}


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_a_changed_formula_is_reported_by_cell(gcl_book, tmp_path, capsys, tamper):
    sheet, cell, change = TAMPERS[tamper]
    coord = cell()
    wb = openpyxl.load_workbook(gcl_book)
    before = wb[sheet][coord].value
    assert isinstance(before, str) and before.startswith("=")
    wb[sheet][coord] = change(before)
    path = tmp_path / "tampered.xlsx"
    wb.save(path)
    read = read_workbook(path)
    assert len(read.tampered) == 1 and read.tampered[0].startswith(f"{sheet}!{coord}:"), read.tampered
    same_case(read.case, only_year_field_notes(load_case(GCL_SAMPLE)))  # the inputs are still read
    code, out, err = cli(capsys, "check", path)
    assert code == 1  # the sample passes every rule: only the tampering makes it 1
    assert "公式被修改" in err and f"{sheet}!{coord}" in err
    assert "Traceback" not in err
    assert out.strip()  # the report, computed from the inputs, is still printed


def test_untouched_and_resaved_workbooks_are_not_reported(gcl_book, tmp_path, capsys):
    assert read_workbook(gcl_book).tampered == []
    code, out, err = cli(capsys, "check", gcl_book)
    assert code == 0 and err == ""
    resaved = tmp_path / "resaved.xlsx"
    openpyxl.load_workbook(gcl_book).save(resaved)  # another tool re-serialises every formula
    assert read_workbook(resaved).tampered == []
    code, _, err = cli(capsys, "check", resaved)
    assert code == 0 and "公式被修改" not in err


@pytest.mark.libreoffice
def test_libreoffice_recalculated_workbooks_are_trusted(libreoffice, tmp_path, capsys):
    from xlmodel.engines.recalc import recalculate

    cases = [load_case(p) for p in SAMPLES] + [parse_case(random_case_data(np.random.default_rng(7), pid, 2024))
                                                for pid in POLICIES]
    built = [build_workbook(tmp_path / "built" / f"{i}-{c.policy}.xlsx", case=c) for i, c in enumerate(cases)]
    for case, path in zip(cases, recalculate(built, tmp_path / "lo")):
        read = read_workbook(path)
        assert read.tampered == [], (path.name, read.tampered[:5])
        assert read.notes == []
        same_case(read.case, only_year_field_notes(case), digits=15)
        assert cached_differences(read, xlmodel.evaluate(read.case, read.policy)) == []
        code, _, err = cli(capsys, "check", path)
        assert code == xlmodel.evaluate(case).exit_code
        assert err == "", err


@pytest.mark.parametrize("sheet,coord,constant", [
    (COVER, "C4", '<c r="C4" s="3" t="inlineStr"><is><t>通过</t></is></c>'),  # the verdict, top of the cover
    (INPUTS, "H5", '<c r="H5" s="11"><v>2015</v></c>'),
], ids=["cover_headline_result", "input_year_header"])
def test_formulas_outside_the_formula_sheets_are_checked_too(tmp_path, capsys, sheet, coord, constant):
    data = load_case(GCL_SAMPLE)
    data.years[2023]["cash_dividend"] = round(GCL_MIN_CASH - 0.01, 2)  # min_annual fails: the cover says 不通过
    book = build_workbook(tmp_path / "failing.xlsx", case=data)

    def fake(xml: bytes) -> bytes:  # an Excel-style edit: the formula becomes a constant, the caches stay
        new, n = re.subn(rf'<c r="{coord}"[^>]*><f>[^<]*</f><v>[^<]*</v></c>', constant, xml.decode())
        assert n == 1
        return new.encode()

    path = rewrite_zip(book, tmp_path / "faked.xlsx", {sheet_part(sheet): fake})
    assert not str(openpyxl.load_workbook(path)[sheet][coord].value).startswith("=")  # the formula is gone
    read = read_workbook(path)
    code, _, err = cli(capsys, "check", path)
    assert code == 1
    assert any(t.startswith(f"{sheet}!{coord}") for t in read.tampered), err


# ---------------------------------------------------------------------------------------------
# 4. stale results


def test_inputs_edited_with_openpyxl_are_reported_stale_and_evaluated(gcl_book, tmp_path, capsys):
    path = tmp_path / "edited.xlsx"
    edit(gcl_book, path, {("cash_dividend", 2023): round(GCL_MIN_CASH - 0.01, 2)})
    code, out, err = cli(capsys, "check", path, "--json")
    assert code == 1
    (doc,) = check_json(out)
    assert doc["exit_code"] == 1 and doc["integrity"]["formulas_changed"] == []  # stale is not tampered
    assert doc["integrity"]["cached_results_stale"] and doc["integrity"]["trusted"] is False
    report = report_of(doc)
    rule = next(r for r in report["rules"] if r["id"] == "min_annual")
    assert rule["status"] == "fail" and rule["shortfall"] == pytest.approx(0.01, abs=1e-9)
    assert report["min_cash_dividend"] == GCL_MIN_CASH
    # the report is the evaluator's on the edited inputs, not the workbook's (dropped) cached results
    data = copy.deepcopy(load_case(GCL_SAMPLE))
    data.years[2023]["cash_dividend"] = round(GCL_MIN_CASH - 0.01, 2)
    assert report == json.loads(json.dumps(xlmodel.evaluate(data).to_dict(), ensure_ascii=False, default=str))
    # openpyxl dropped every cached result: one line says why and what to do, no internal name (51.5)
    assert "工作簿中的结果均为空白" in err and "the workbook shows no results" in err and "-v lists them" in err
    assert "out_overall_status" not in err and "chk_" not in err
    assert "公式被修改" not in err  # stale is not tampered
    code, _, err = cli(capsys, "check", path, "-v")  # -v: every result, by the workbook's labels
    assert "  - 总体结论：工作簿显示 空白，评估结果为 不通过 — Overall result: the workbook shows blank" in err
    assert "规则状态「" in err and "chk_" not in err


def test_a_changed_cached_value_is_reported_while_the_report_uses_the_inputs(gcl_book, tmp_path, capsys):
    def fake(xml: bytes) -> bytes:  # out_overall_status (汇总!C5) shows 不通过 instead of 通过
        text = xml.decode()
        new, n = re.subn(r'(<c r="C5"[^>]*><f>[^<]*</f><v>)通过(</v>)', r"\g<1>不通过\g<2>", text)
        assert n == 1
        return new.encode()

    path = rewrite_zip(gcl_book, tmp_path / "cached.xlsx", {sheet_part(SUMMARY): fake})
    read = read_workbook(path)
    assert read.cached["out_overall_status"] == "不通过" and read.tampered == []
    code, out, err = cli(capsys, "check", path)
    assert code == 0  # from the inputs: every rule passes
    # named as the workbook names it, never by its defined name (51.5)
    assert "总体结论：工作簿显示 不通过，评估结果为 通过 — Overall result: the workbook shows fail, the evaluator gives pass" in err
    assert "out_overall_status" not in err and "in 1 place (" in err
    assert out.strip()


def test_a_fresh_workbook_is_not_stale(gcl_book, capsys):
    code, _, err = cli(capsys, "check", gcl_book)
    assert code == 0 and "differ" not in err


# ---------------------------------------------------------------------------------------------
# 5. untrusted files


BOMB_DTD = (b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE lolz [<!ENTITY lol0 "lol">'
            + b"".join(b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10) for i in range(1, 10)) + b"]>\n")


def _bomb(tag: bytes):
    def rewrite(xml: bytes) -> bytes:
        body = xml.split(b"?>", 1)[1].lstrip()
        assert tag in body
        return BOMB_DTD + body.replace(tag, tag + b"&lol9;", 1)  # 10^9 'lol's if expanded
    return rewrite


def _xxe(xml: bytes) -> bytes:
    body = xml.split(b"?>", 1)[1].lstrip()
    return (b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
            + body.replace(b"<t>", b"<t>&xxe;", 1))


def _zeros_entry(path: Path, mib: int) -> Path:
    """A zip whose one sheet unpacks to ``mib`` MiB of zeros, written streaming (never in memory)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            chunk = bytes(2**20)
            for _ in range(mib):
                f.write(chunk)
    return path


def _other_tool(path: Path) -> Path:
    wb = openpyxl.Workbook()
    wb.active["A1"] = "net_profit_attributable"
    wb.active["B1"] = 908993690.08
    wb.save(path)
    return path


def _custom_prop(name: str, value: str):
    def rewrite(xml: bytes) -> bytes:
        new, n = re.subn(rf'(name="{name}"><vt:lpwstr>)[^<]*(</vt:lpwstr>)', rf"\g<1>{value}\g<2>", xml.decode())
        assert n == 1
        return new.encode()
    return rewrite


def _first(pattern: bytes, repl: bytes):
    """A part rewrite: the first match of ``pattern`` replaced (it must be there)."""
    def rewrite(xml: bytes) -> bytes:
        new, n = re.subn(pattern, repl, xml, count=1)
        assert n == 1, pattern
        return new
    return rewrite


def _many_entries(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
        for i in range(5001):
            z.writestr(f"xl/media/{i}.bin", b"")
    return path


# name -> (maker(tmp dir, built workbook) -> path, expected message fragment or None for a correct read)
HOSTILE = {
    "random_bytes": (lambda d, b: _write(d / "random.xlsx", np.random.default_rng(6).bytes(64 * 1024)), "not an Excel workbook"),
    "empty_file": (lambda d, b: _write(d / "empty.xlsx", b""), "not an Excel workbook"),
    "text_file": (lambda d, b: _write(d / "text.xlsx", "policy: gcl\ncash_dividend,1.2亿\n".encode() * 100), "not an Excel workbook"),
    "truncated": (lambda d, b: _write(d / "truncated.xlsx", b.read_bytes()[: b.stat().st_size // 2]), "not an Excel workbook"),
    "zip_without_workbook_xml": (lambda d, b: rewrite_zip(b, d / "noworkbook.xlsx", drop=("xl/workbook.xml",)), "no xl/workbook.xml"),
    "zip_of_a_text_file": (lambda d, b: _zip_of(d / "plain.xlsx", {"readme.txt": b"hello"}), "no xl/workbook.xml"),
    "bomb_in_shared_strings": (lambda d, b: rewrite_zip(b, d / "bomb-ss.xlsx", {"xl/sharedStrings.xml": _bomb(b"<t>")}), "cannot read the workbook"),
    "bomb_in_input_sheet": (lambda d, b: rewrite_zip(b, d / "bomb-sheet.xlsx", {sheet_part(INPUTS): _bomb(b"<v>")}), "cannot read the workbook"),
    "bomb_in_custom_properties": (lambda d, b: rewrite_zip(b, d / "bomb-props.xlsx", {"docProps/custom.xml": _bomb(b"<vt:lpwstr>")}), "cannot read the workbook"),
    "external_entity": (lambda d, b: rewrite_zip(b, d / "xxe.xlsx", {"xl/sharedStrings.xml": _xxe}), "cannot read the workbook"),
    # the sheet parts as the XML reader (xlmodel/workbook/xmlbook.py) takes them: what openpyxl refuses, refused
    "shared_string_out_of_range": (lambda d, b: rewrite_zip(b, d / "ss-index.xlsx", {sheet_part(INPUTS): _first(
        rb'(t="s"[^>]*><v>)[0-9]+(</v>)', rb"\g<1>99999999\g<2>")}), "cannot read the workbook"),
    "style_out_of_range": (lambda d, b: rewrite_zip(b, d / "style-index.xlsx", {sheet_part(INPUTS): _first(
        rb'(<c r="[A-Z]+[0-9]+" s=")[0-9]+"', rb'\g<1>99999"')}), "cannot read the workbook"),
    "row_number_not_whole": (lambda d, b: rewrite_zip(b, d / "row-r.xlsx", {sheet_part(INPUTS): _first(
        rb'<row r="1"', rb'<row r="1.5"')}), "cannot read the workbook"),
    "cell_reference_not_a_cell": (lambda d, b: rewrite_zip(b, d / "cell-r.xlsx", {sheet_part(INPUTS): _first(
        rb'<c r="A1"', rb'<c r="1A"')}), "cannot read the workbook"),
    "data_table_formula_with_foreign_attributes": (lambda d, b: rewrite_zip(b, d / "datatable.xlsx", {sheet_part(CALC): _first(
        rb"<f>", rb'<f t="dataTable" evil="1">')}), "cannot read the workbook"),
    "cell_nested_20000_deep": (lambda d, b: rewrite_zip(b, d / "deep.xlsx", {sheet_part(INPUTS): _first(
        rb"(<c r=\"A1\"[^>]*>)", rb"\g<1>" + b"<x>" * 20_000 + b"</x>" * 20_000)}), None),
    "entry_of_300MB_zeros": (lambda d, b: _zeros_entry(d / "zeros300.xlsx", 300), "unpacks to 300 MB"),
    "entry_over_the_ratio_limit": (lambda d, b: _zeros_entry(d / "zeros8.xlsx", 8), "a zip bomb?"),
    "5001_entries": (lambda d, b: _many_entries(d / "many.xlsx"), "parts in the file"),
    "workbook_from_another_tool": (lambda d, b: _other_tool(d / "other.xlsx"), "not an xlmodel workbook"),
    "unknown_policy": (lambda d, b: rewrite_zip(b, d / "unknown.xlsx", {"docProps/custom.xml": _custom_prop("xlmodel_policy", "acme-2030")}),
                       "built for policy 'acme-2030'"),
    "missing_file": (lambda d, b: d / "nothing-here.xlsx", "no such file"),
    "xlsm_with_macros": (lambda d, b: rewrite_zip(b, d / "macros.xlsm", add={"xl/vbaProject.bin": b"\xd0\xcf\x11\xe0" + bytes(4096)}), None),
    "older_version": (lambda d, b: rewrite_zip(b, d / "old.xlsx", {"docProps/custom.xml": _custom_prop("xlmodel_policy_version", "0.9.0")}), None),
}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _zip_of(path: Path, parts: dict) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in parts.items():
            z.writestr(k, v)
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, books):
    d = tmp_path_factory.mktemp("hostile")
    return {name: make(d, books[GCL]) for name, (make, _) in HOSTILE.items()}


def _timed(fn):
    t = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t


def _peak_mb(fn) -> float:
    tracemalloc.start()
    try:
        fn()
    except XlmodelError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_untrusted_file_gives_a_clear_error_or_a_correct_read(hostile, capsys, name):
    path, expected = hostile[name], HOSTILE[name][1]
    (code, out, err), seconds = _timed(lambda: cli(capsys, "check", path))
    peak = _peak_mb(lambda: read_workbook(path))
    TIMINGS[name] = (seconds, peak)
    assert seconds < HOSTILE_SECONDS, f"{name}: {seconds:.1f} s"
    assert peak < HOSTILE_PEAK_MB, f"{name}: {peak:.0f} MB"
    assert "Traceback" not in err
    if expected is not None:
        assert code == 2 and out == ""
        assert_clean_error(err)
        assert expected in err, err
        assert len(err.splitlines()) <= 3  # one clear message, not a dump
        with pytest.raises(XlmodelError):
            read_workbook(path)
        return
    # a correct read of the GCL sample, with a note
    read = read_workbook(path)
    same_case(read.case, only_year_field_notes(load_case(GCL_SAMPLE)))
    assert code == 0 and out.strip()
    if name == "xlsm_with_macros":
        assert any("macros" in n and "never run" in n for n in read.notes)
        assert "macros (VBA)" in err
        assert read.tampered == []
    elif name == "older_version":
        assert any("v0.9.0" in n and "xlmodel refresh" in n for n in read.notes)
        assert "xlmodel refresh" in err
    else:  # elements nested in a cell are not the cell's value: nothing changed, nothing to say
        assert read.tampered == [] and read.notes == []


def test_the_input_errors_of_an_xlsm_are_still_reported(gcl_book, tmp_path, capsys):
    edited = tmp_path / "bad.xlsx"
    where = edit(gcl_book, edited, {("cash_dividend", 2023): "1.2亿"})
    path = rewrite_zip(edited, tmp_path / "bad.xlsm", add={"xl/vbaProject.bin": bytes(512)})
    code, _, err = cli(capsys, "check", path)
    assert code == 2 and where[("cash_dividend", 2023)] in err
    assert_clean_error(err)


def _patch_member(src: Path, dst: Path, member: str, how: str) -> Path:
    """Damage one part, the zip directory intact: its CRC-32 off by one ('crc'), or its deflate data
    starting with a reserved block type ('deflate': zlib's 'invalid block type')."""
    data = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as z:
        info = z.getinfo(member)
    if how == "crc":
        old = info.CRC.to_bytes(4, "little")
        assert data.count(old) == 2  # local header and central directory
        data = bytearray(bytes(data).replace(old, (info.CRC ^ 1).to_bytes(4, "little")))
    else:
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
        data[start] = 0xFF  # BFINAL=1, BTYPE=11 (reserved)
    dst.write_bytes(bytes(data))
    return dst


@pytest.mark.parametrize("member", ["xl/sharedStrings.xml", sheet_part(INPUTS), "docProps/custom.xml"])
def test_a_part_failing_its_checksum_gives_a_clear_error(gcl_book, tmp_path, capsys, member):
    path = _patch_member(gcl_book, tmp_path / "damaged.xlsx", member, "crc")
    (code, out, err), seconds = _timed(lambda: cli(capsys, "check", path))
    assert code == 2 and seconds < HOSTILE_SECONDS
    assert_clean_error(err)
    assert f"damaged (part {member} fails its checksum)" in err


@pytest.mark.parametrize("member", [sheet_part(INPUTS), "docProps/custom.xml"])
def test_corrupt_compressed_data_gives_a_clear_error(gcl_book, tmp_path, capsys, member):
    path = _patch_member(gcl_book, tmp_path / "damaged.xlsx", member, "deflate")
    try:
        code, _, err = cli(capsys, "check", path)
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"crashed: {type(e).__name__}: {e}") from None
    assert code == 2
    assert_clean_error(err)


_PROBE = r"""
import sys, time
from xlmodel.cli import main
t = time.perf_counter()
code = main(["check", sys.argv[1]])
# VmHWM is this process's own peak: ru_maxrss would carry the parent's (pytest's) peak over the exec
hwm = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) // 1024
print("PROBE", code, round(time.perf_counter() - t, 2), hwm, file=sys.stderr)
"""


def _probe(path: Path, timeout: float = 10) -> tuple[int, float, int, str]:
    """`xlmodel check` in a child process: (exit code, seconds, peak RSS in MB, stderr); killed after ``timeout``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run([sys.executable, "-c", _PROBE, str(path)], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{path.name}: still running after {timeout} s (killed)") from None
    m = re.search(r"^PROBE (\d+) ([\d.]+) (\d+)$", proc.stderr, re.M)
    assert m, f"{path.name} crashed: {proc.stderr[-1000:]}"
    return int(m.group(1)), float(m.group(2)), int(m.group(3)), proc.stderr


def _huge_sheet(src: Path, dst: Path, rows: int = 10_000, cols: int = 100) -> Path:
    """Replace the plan-text sheet by one of rows × cols numbers (1M cells: 6 MB on disk, 29 MB unpacked,
    ratio 5:1 — well inside every limit of the reader)."""
    letters = [get_column_letter(c + 1) for c in range(cols)]
    part = sheet_part(SHEETS["text"])
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename != part:
                zout.writestr(info.filename, zin.read(info.filename))
                continue
            with zout.open(part, "w", force_zip64=True) as f:
                f.write(b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns='
                        b'"http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
                for r in range(1, rows + 1):
                    f.write("".join([f'<row r="{r}">'] + [f'<c r="{c}{r}"><v>{r * i}</v></c>' for i, c in enumerate(letters)]
                                    + ["</row>"]).encode())
                f.write(b"</sheetData></worksheet>")
    return dst


def test_a_huge_sheet_is_refused_or_read_in_bounded_time_and_memory(gcl_book, tmp_path):
    path = _huge_sheet(gcl_book, tmp_path / "huge.xlsx")
    code, seconds, rss_mb, err = _probe(path, timeout=10)
    TIMINGS["huge_sheet_1M_cells"] = (seconds, float(rss_mb))
    assert code in (0, 2) and "Traceback" not in err
    assert seconds < HOSTILE_SECONDS and rss_mb < 400, (seconds, rss_mb)


def test_a_defined_name_spanning_the_whole_sheet_is_refused_quickly(gcl_book, tmp_path):
    def widen(xml: bytes) -> bytes:
        new, n = re.subn(r"(<definedName name=\"in_cash_dividend\">)[^<]*(</definedName>)",
                         r"\g<1>'输入'!$A$1:$XFD$1048576\g<2>", xml.decode())
        assert n == 1
        return new.encode()

    path = rewrite_zip(gcl_book, tmp_path / "wide.xlsx", {"xl/workbook.xml": widen})
    code, seconds, rss_mb, err = _probe(path, timeout=10)
    assert code == 2 and seconds < HOSTILE_SECONDS


@pytest.mark.parametrize("how", ["input_sheet_deleted", "year_name_is_a_constant"])
def test_a_workbook_without_its_input_sheet_gives_a_clear_error(gcl_book, tmp_path, capsys, how):
    wb = openpyxl.load_workbook(gcl_book)
    if how == "input_sheet_deleted":
        del wb[INPUTS]
    else:
        del wb.defined_names["in_evaluation_year"]
        wb.defined_names["in_evaluation_year"] = DefinedName("in_evaluation_year", attr_text="2023")
    path = tmp_path / f"{how}.xlsx"
    wb.save(path)
    try:
        code, _, err = cli(capsys, "check", path)
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"crashed: {type(e).__name__}: {e}") from None
    assert code == 2
    assert_clean_error(err)


# ---------------------------------------------------------------------------------------------
# 6. refresh


def _refresh(capsys, old: Path, new: Path, *extra):
    code, out, err = cli(capsys, "refresh", old, "-o", new, *extra)
    assert "Traceback" not in err
    return code, out, err


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_refresh_keeps_every_input_of_the_samples(books, tmp_path, capsys, sample):
    old = books[sample.stem]
    new = tmp_path / "new.xlsx"
    code, _, err = _refresh(capsys, old, new)
    assert code == 0, err
    a, b = read_workbook(old), read_workbook(new)
    same_case(b.case, a.case)
    same_case(b.case, only_year_field_notes(load_case(sample)))
    assert b.tampered == [] and b.notes == []
    n_inputs = sum(len(v) for v in a.case.years.values()) + len(a.case.company)
    assert f"carried {n_inputs} inputs, {len(a.case.attestations)} attestations, {len(a.case.notes)} notes" in err
    assert "not carried" not in err


@pytest.mark.parametrize("policy_id", POLICIES)
def test_refresh_keeps_every_input_of_synthetic_cases(tmp_path, capsys, policy_id):
    for i, case in enumerate(parity_cases(policy_id, 6, seed=606)):  # boundary and random, some inputs missing
        old = build_workbook(tmp_path / f"old-{i}.xlsx", case=case)
        new = tmp_path / f"new-{i}.xlsx"
        code, _, err = _refresh(capsys, old, new)
        assert code == 0, err
        b = read_workbook(new)
        same_case(b.case, read_workbook(old).case)
        same_case(b.case, case)
        assert b.tampered == []


def test_refresh_refuses_to_overwrite_without_force(gcl_book, tmp_path, capsys):
    target = tmp_path / "target.xlsx"
    target.write_bytes(b"precious")
    code, _, err = _refresh(capsys, gcl_book, target)
    assert code == 2 and "--force" in err
    assert_clean_error(err)
    assert target.read_bytes() == b"precious"
    code, _, err = _refresh(capsys, gcl_book, target, "--force")
    assert code == 0, err
    same_case(read_workbook(target).case, read_workbook(gcl_book).case)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left behind


def test_refresh_reports_an_attestation_that_is_no_longer_a_rule(gcl_book, tmp_path, capsys):
    wb = openpyxl.load_workbook(gcl_book)
    sheet, cells = name_cells(wb, "att_board_records_kept")
    wb.defined_names["att_retired_rule"] = DefinedName("att_retired_rule", attr_text=f"'{sheet}'!$E${cells[0].row}")
    old = tmp_path / "old.xlsx"
    wb.save(old)
    read_old = read_workbook(old)
    assert "retired_rule" not in read_old.case.attestations
    assert any("not carried: attestation retired_rule" in n for n in read_old.notes)
    new = tmp_path / "new.xlsx"
    code, _, err = _refresh(capsys, old, new)
    assert code == 0, err
    assert "not carried: attestation retired_rule" in err
    b = read_workbook(new)
    assert "retired_rule" not in b.case.attestations
    assert "att_retired_rule" not in openpyxl.load_workbook(new).defined_names
    want = read_workbook(gcl_book).case
    same_case(b.case, want)


def test_refresh_of_an_older_workbook_brings_it_up_to_date(hostile, tmp_path, capsys):
    new = tmp_path / "new.xlsx"
    code, _, err = _refresh(capsys, hostile["older_version"], new)
    assert code == 0 and "v0.9.0" in err
    b = read_workbook(new)
    assert b.built_with["xlmodel_policy_version"] == load_policy(GCL).version
    assert b.notes == [] and b.tampered == []
    same_case(b.case, only_year_field_notes(load_case(GCL_SAMPLE)))


def test_refresh_repairs_a_tampered_workbook(gcl_book, tmp_path, capsys):
    wb = openpyxl.load_workbook(gcl_book)
    coord = _checks_cell(GCL, 2023, "min_annual", "status")
    wb[CHECKS][coord] = "通过"
    old = tmp_path / "tampered.xlsx"
    wb.save(old)
    assert read_workbook(old).tampered
    new = tmp_path / "new.xlsx"
    code, _, err = _refresh(capsys, old, new)
    assert code == 0, err
    assert read_workbook(new).tampered == []


def test_refresh_of_a_workbook_with_input_errors_writes_nothing(gcl_book, tmp_path, capsys):
    old = tmp_path / "bad.xlsx"
    where = edit(gcl_book, old, {("cash_dividend", 2023): "1.2亿"})
    new = tmp_path / "new.xlsx"
    code, _, err = _refresh(capsys, old, new)
    assert code == 2 and where[("cash_dividend", 2023)] in err
    assert not new.exists()


# ---------------------------------------------------------------------------------------------
# 7. report formats


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_check_json_equals_evaluate(books, capsys, sample):
    code, out, err = cli(capsys, "check", books[sample.stem], "--json")
    rep = xlmodel.evaluate(load_case(sample))
    (doc,) = check_json(out)  # a list of one: one JSON shape for one workbook or many
    assert report_of(doc) == json.loads(json.dumps(rep.to_dict(), ensure_ascii=False, default=str))
    assert code == rep.exit_code == doc["exit_code"] and err == ""
    integrity = doc["integrity"]
    assert integrity["trusted"] is True and integrity["formulas_checked"] is True
    assert integrity["formulas_changed"] == [] and integrity["cached_results_stale"] == []
    assert integrity["plan"] == {"id": rep.policy, "built_with_version": rep.policy_version,
                                 "installed_version": rep.policy_version, "source": "installed"}
    assert integrity["plan_verified"] is True  # a bundled plan: installed here
    assert integrity["xlmodel"]["built_with_version"] == integrity["xlmodel"]["installed_version"] == xlmodel.__version__


@pytest.mark.parametrize("policy_id", POLICIES)
def test_check_json_equals_evaluate_on_synthetic_cases(tmp_path, capsys, policy_id):
    for i, case in enumerate(parity_cases(policy_id, 4, seed=707)):
        path = build_workbook(tmp_path / f"{i}.xlsx", case=case)
        code, out, _ = cli(capsys, "check", path, "--json")
        rep = xlmodel.evaluate(case)
        (doc,) = check_json(out)
        assert report_of(doc) == json.loads(json.dumps(rep.to_dict(), ensure_ascii=False, default=str))
        assert code == rep.exit_code


def test_check_markdown_prints_a_markdown_table(gcl_book, capsys):
    code, out, _ = cli(capsys, "check", gcl_book, "--markdown")
    rep = xlmodel.evaluate(load_case(GCL_SAMPLE))
    assert code == 0
    assert out.strip() == render_markdown(rep, preface=INTACT).strip()
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| 条款 Clause |"))
    assert re.fullmatch(r"\|(-{3,}:?\|)+", lines[head + 1].replace("---:", "---"))
    rows = [line for line in lines[head + 2:] if line.startswith("|")]
    assert len(rows) == len(rep.rules)
    width = lines[head].count("|")
    for row in rows:
        assert row.endswith(" |") and len(re.findall(r"(?<!\\)\|", row)) == width
    assert lines[0].startswith("### ")


def test_check_formats_are_exclusive_and_the_default_is_a_table(gcl_book, capsys):
    code, _, err = cli(capsys, "check", gcl_book, "--json", "--markdown")
    assert code == 2 and "not allowed with" in err
    code, out, _ = cli(capsys, "check", gcl_book)
    assert code == 0 and out.strip() == render_table(xlmodel.evaluate(load_case(GCL_SAMPLE)), preface=INTACT).strip()


# ---------------------------------------------------------------------------------------------
# 8. integrity in every format; several workbooks


def _tampered(gcl_book: Path, path: Path) -> tuple[Path, str]:
    """The GCL workbook with min_annual's status formula replaced by the constant 通过; (path, sheet!cell)."""
    sheet, cell, change = TAMPERS["checks_constant"]
    coord = cell()
    wb = openpyxl.load_workbook(gcl_book)
    wb[sheet][coord] = change(wb[sheet][coord].value)
    wb.save(path)
    return path, f"{sheet}!{coord}"


def test_a_changed_formula_is_in_every_format(gcl_book, tmp_path, capsys):
    path, where = _tampered(gcl_book, tmp_path / "tampered.xlsx")
    code, out, _ = cli(capsys, "check", path, "--json")
    (doc,) = check_json(out)
    assert code == doc["exit_code"] == 1 and doc["overall_status"] == "pass"  # the rules pass: the formulas fail it
    integrity = doc["integrity"]
    assert integrity["trusted"] is False and integrity["formulas_checked"] is True
    assert [c.split(":")[0] for c in integrity["formulas_changed"]] == [where]
    assert integrity["cached_results_stale"]  # openpyxl dropped the cached results when saving
    code, out, _ = cli(capsys, "check", path, "--markdown")
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith("### ")
    assert lines[2].startswith("> 完整性 Integrity: ⚠ 公式被修改（1 个单元格）— 工作簿自身结果不可信；以下结果按其输入重新计算")
    code, out, _ = cli(capsys, "check", path)
    assert code == 1 and out.startswith("完整性 Integrity: ⚠ 公式被修改（1 个单元格）")
    code, out, _ = cli(capsys, "check", path, "--wide")
    assert code == 1 and out.splitlines()[0].startswith("完整性 Integrity: ⚠ 公式被修改（1 个单元格）— 工作簿自身结果不可信")


def test_an_intact_workbook_says_so_at_the_top(gcl_book, capsys):
    code, out, _ = cli(capsys, "check", gcl_book, "--markdown")
    assert code == 0 and out.splitlines()[2] == "> 完整性 Integrity: ✓ 公式与生成器一致，缓存结果为最新 / " \
                                                "formulas as generated, cached results current"
    code, out, _ = cli(capsys, "check", gcl_book, "--wide")
    assert out.splitlines()[0] == "完整性 Integrity: ✓ 公式与生成器一致，缓存结果为最新 | formulas as generated, cached results current"


def test_a_workbook_of_another_plan_version_is_not_trusted(hostile, capsys):
    code, out, err = cli(capsys, "check", hostile["older_version"], "--json")
    (doc,) = check_json(out)
    integrity = doc["integrity"]
    assert integrity["formulas_checked"] is False and integrity["trusted"] is False
    assert integrity["plan"]["built_with_version"] == "0.9.0"
    assert integrity["plan"]["installed_version"] == load_policy(GCL).version
    assert code == doc["exit_code"] == 0  # the rules pass; the formulas were not compared (refresh first)
    (zh, en), *_ = verdict_lines(integrity)
    assert "v0.9.0" in zh and "xlmodel refresh" in en


def test_several_workbooks_a_bad_one_among_them(books, tmp_path, capsys):
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"not a zip")
    order = [books[GCL], bad, books["houpu-2024-2026"]]
    code, out, err = cli(capsys, "check", *order, "--json")
    docs = check_json(out)
    assert code == 2  # the worst: the bad one; the others are still checked
    assert [d["workbook"] for d in docs] == [str(p) for p in order]
    assert [d["exit_code"] for d in docs] == [0, 2, 0]
    assert "error" in docs[1] and "bad.xlsx" in docs[1]["error"] and "integrity" not in docs[1]
    assert docs[0]["integrity"]["trusted"] and docs[2]["policy"] == "houpu-2024-2026"
    assert "xlmodel: " in err and "bad.xlsx" in err and "Traceback" not in err
    code, out, err = cli(capsys, "check", *order)
    assert code == 2
    assert out.count("完整性 Integrity:") == 2 and out.count("总体结论 Overall:") == 2
    summary = out[out.index("汇总 Summary"):].splitlines()
    assert summary[0] == "汇总 Summary（3 个工作簿 workbooks）"
    rows = [ln for ln in summary if re.match(r"^[1-3]  ", ln)]
    assert len(rows) == 3 and "无法读取" in rows[1] and "✓ 完好" in rows[0] and "85,509,212.89" in rows[0]


def test_a_folder_of_returned_workbooks(books, gcl_book, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "returned"
    folder.mkdir()
    for stem, src in books.items():
        shutil.copy(src, folder / f"{stem}.xlsx")
    _tampered(gcl_book, folder / "z-tampered.XLSX")
    (folder / "~$gcl-energy-2022-2024.xlsx").write_bytes(b"lock")  # Excel's lock file of an open workbook
    (folder / "notes.txt").write_text("not a workbook")
    code, out, err = cli(capsys, "check", folder, "--json")
    docs = check_json(out)
    assert code == 1  # one workbook's formulas were changed; the others are compliant and intact
    assert [Path(d["workbook"]).name for d in docs] == sorted(f"{s}.xlsx" for s in books) + ["z-tampered.XLSX"]
    assert [d["integrity"]["trusted"] for d in docs] == [True] * len(books) + [False]
    assert "skipped" in err and "~$gcl-energy-2022-2024.xlsx" in err
    for columns in (80, 120):
        monkeypatch.setenv("COLUMNS", str(columns))
        code, out, _ = cli(capsys, "check", folder)
        assert code == 1
        lines = out.splitlines()
        assert all(display_width(line) <= columns for line in lines), max(lines, key=display_width)
        summary = out[out.index("汇总 Summary"):]
        assert "⚠ 公式被改 1" in summary and summary.count("✓ 完好") == len(books)
    code, out, _ = cli(capsys, "check", folder, "--markdown")
    table = [ln for ln in out[out.index("### 汇总 Summary"):].splitlines() if ln.startswith("|")]
    assert len(table) == 2 + len(books) + 1


def test_an_empty_folder_is_a_clear_error(tmp_path, capsys):
    code, out, err = cli(capsys, "check", tmp_path)
    assert code == 2 and out == "" and "no workbooks (*.xlsx)" in err
    assert_clean_error(err)


def display_width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def test_zz_print_hostile_timings():
    """Runs last in this module: the timings of the hostile-file tests (shown with -s)."""
    for name, (seconds, mb) in sorted(TIMINGS.items()):
        print(f"  {name:<32} {seconds:6.2f} s  {mb:7.1f} MB")
