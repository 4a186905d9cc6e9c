"""The workbook's 测算 sheet (issue 27): the dividend path of the remaining plan years as formulas.

The path is the one ``xlmodel plan`` gives (tests/test_planner.py works the paths below out by hand from
the plans' texts): the sheet's cached values equal it, and so do LibreOffice's and Gnumeric's own
recalculations of the sheet, to the fen, with an amount proposed in a year (``--pay``), with one entered
in the sheet after it was built, and with an infeasible year.
"""

from __future__ import annotations

import dataclasses
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

import xlmodel
from conftest import formulas
from sheet_metrics import r1c1
from test_planner import M, far_east, gcl, houpu
from xlmodel.case import load_case
from xlmodel.evaluator import cached_plan_by_id
from xlmodel.planner import STATUS_ZH
from xlmodel.workbook.layout import SHEETS
from xlmodel.engines.parity import same, sheet_values
from xlmodel.engines.recalc import recalculate, recalculate_gnumeric
from xlmodel.workbook.writer import WorkbookBuilder

ROOT = Path(__file__).resolve().parents[1]
PLAN = SHEETS["planning"]
ROWS = {"minimum": "plan_minimum", "path": "plan_path", "max": "plan_max_distribution", "result": "plan_result",
        "proposed": "plan_proposed"}

#: (name, case, amounts proposed, the hand-worked path: {year: (minimum, result)}) — tests/test_planner.py
CASES = [
    # 四、3 rolling 30M, 10M; the SSE's risk warning in 2024: 50M − (30M + 10M)
    ("far-east", far_east, {}, {2022: (30 * M, "ok"), 2023: (10 * M, "ok"), 2024: (10 * M, "ok")}),
    # 45M paid in 2022: 2023 needs nothing, 2024 the warning's 50M − 45M
    ("far-east-pay", far_east, {2022: 45 * M}, {2022: (30 * M, "ok"), 2023: (0, "ok"), 2024: (5 * M, "ok")}),
    # 2023: parent retained earnings 6M below the 10M asked: infeasible; the path carries 10M into 2024
    ("far-east-infeasible", lambda: far_east(y2023={"retained_earnings_parent": 6 * M}), {},
     {2022: (30 * M, "ok"), 2023: (10 * M, "infeasible"), 2024: (10 * M, "ok")}),
    ("far-east-infeasible-pay", lambda: far_east(y2023={"retained_earnings_parent": 6 * M}), {2023: 6 * M},
     {2022: (30 * M, "ok"), 2023: (10 * M, "below_minimum"), 2024: (14 * M, "ok")}),
    # 45M entered on 输入 as 2022's cash dividend, the board's proposal (51.2): the path of far-east-pay
    ("far-east-proposed", lambda: far_east(y2022={"cash_dividend": 45 * M}), {},
     {2022: (30 * M, "ok"), 2023: (0, "ok"), 2024: (5 * M, "ok")}),
    # 测算's proposed cell wins over 输入's 45M: 30M paid, then 40M − 30M = 10M and 50M − 40M = 10M
    ("far-east-proposed-pay", lambda: far_east(y2022={"cash_dividend": 45 * M}), {2022: 30 * M},
     {2022: (30 * M, "ok"), 2023: (10 * M, "ok"), 2024: (10 * M, "ok")}),
    # 20M entered, below 2022's 30M: below the minimum (not infeasible), and 2023 asks 40M − 20M = 20M
    ("far-east-proposed-low", lambda: far_east(y2022={"cash_dividend": 20 * M}), {},
     {2022: (30 * M, "below_minimum"), 2023: (20 * M, "ok"), 2024: (10 * M, "ok")}),
    # annual 10 %, rolling 30 %: 30M (rolling), 10M (annual), 40M (annual)
    ("gcl", gcl, {}, {2022: (30 * M, "ok"), 2023: (10 * M, "ok"), 2024: (40 * M, "ok")}),
    ("gcl-pay-0", gcl, {2022: 0}, {2022: (30 * M, "below_minimum"), 2023: (30 * M, "ok"), 2024: (40 * M, "ok")}),
    ("gcl-infeasible", lambda: gcl(y2024={"retained_earnings_parent": 30 * M}), {},
     {2022: (30 * M, "ok"), 2023: (10 * M, "ok"), 2024: (40 * M, "infeasible")}),
    # ChiNext's warning: 30M in 2024, then nothing; paying 10M moves 20M to 2025
    ("houpu", houpu, {}, {2024: (30 * M, "ok"), 2025: (0, "ok"), 2026: (0, "ok")}),
    ("houpu-pay", houpu, {2024: 10 * M}, {2024: (30 * M, "below_minimum"), 2025: (20 * M, "ok"), 2026: (0, "ok")}),
    # an 80M stock dividend in 2025: cash ≥ 20 % of the distribution, 80M × 0.2 / 0.8 = 20M (三、(三)、2、(2))
    ("houpu-stock", lambda: houpu(y2025={"stock_dividend": 80 * M}), {},
     {2024: (30 * M, "ok"), 2025: (20 * M, "ok"), 2026: (0, "ok")}),
]


def _build(path: Path, case, pay: dict | None = None) -> Path:
    b = WorkbookBuilder(cached_plan_by_id(case.policy), case)
    b.plan_pay = pay or {}
    b.write(path)
    return path


def _cells(path: Path) -> dict[tuple[str, int], str]:
    """(row key, fiscal year) -> the cell on 测算 ("E12"), from the sheet's own keys (column A) and year header."""
    from openpyxl.utils import get_column_letter

    ws = openpyxl.load_workbook(path, data_only=True)[PLAN]
    years = {c.column: int(c.value) for c in ws[5] if isinstance(c.value, (int, float))}
    rows = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value in ROWS.values()}
    return {(key, y): f"{get_column_letter(col)}{rows[key]}" for key in ROWS.values() for col, y in years.items()}


def _want(case, pay) -> dict[tuple[str, int], object]:
    """What the sheet must show, from ``xlmodel plan``."""
    out = {}
    for y in xlmodel.plan(case, pay=pay):
        out[(ROWS["minimum"], y.fiscal_year)] = y.min_cash_dividend
        out[(ROWS["path"], y.fiscal_year)] = y.cash_dividend if y.cash_dividend is not None else 0.0
        out[(ROWS["max"], y.fiscal_year)] = y.max_distribution
        out[(ROWS["result"], y.fiscal_year)] = STATUS_ZH[y.status]
    return out


def _agree(values: dict, cells: dict, want: dict) -> list[str]:
    bad = []
    for key, v in want.items():
        got = values.get((PLAN, cells[key]))
        if not (got == v or (isinstance(v, float) and isinstance(got, float) and abs(got - v) < 0.005)
                or (v is None and got in (None, ""))):
            bad.append(f"{key} {cells[key]}: sheet {got!r}, plan {v!r}")
    return bad


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("planning")
    return {name: (make(), pay, _build(root / f"{name}.xlsx", make(), pay)) for name, make, pay, _ in CASES}


@pytest.mark.parametrize("name, make, pay, path", CASES, ids=[c[0] for c in CASES])
def test_the_sheet_shows_the_hand_worked_path(built, name, make, pay, path):
    case, _, book = built[name]
    values, cells = sheet_values(book, (PLAN,)), _cells(book)
    for y, (least, result) in path.items():
        assert values.get((PLAN, cells[(ROWS["minimum"], y)]), 0.0) == least, (y, least)  # a 0 is stored as 0
        assert values[(PLAN, cells[(ROWS["result"], y)])] == STATUS_ZH[result], y
        entered = case.value("cash_dividend", y)  # the year's proposal on 输入 (51.2), unless 测算 proposes
        paid = pay.get(y, least if entered is None else entered)
        assert values.get((PLAN, cells[(ROWS["path"], y)]), 0.0) == paid, y
        if y in pay:
            assert values[(PLAN, cells[(ROWS["proposed"], y)])] == pay[y]
    assert _agree(values, cells, _want(case, pay)) == []  # and the max distribution, as xlmodel plan gives it


@pytest.mark.parametrize("sample", sorted((ROOT / "samples").glob("*.yaml")), ids=lambda p: p.stem)
def test_the_bundled_samples_cached_values_are_the_plan(tmp_path, sample):
    case = load_case(sample)
    book = _build(tmp_path / "s.xlsx", case)
    assert _agree(sheet_values(book, (PLAN,)), _cells(book), _want(case, {})) == []


def test_proposed_cells_are_inputs_and_every_formula_is_locked(built):
    _, _, book = built["far-east-pay"]
    wb = openpyxl.load_workbook(book)
    ws = wb[PLAN]
    cells = _cells(book)
    for y in (2022, 2023, 2024):
        assert ws[cells[(ROWS["proposed"], y)]].protection.locked is False
        assert ws[cells[(ROWS["minimum"], y)]].value.startswith("=")
    assert ws.protection.sheet is True
    assert all(c.protection.locked is not False for s, c in formulas(wb) if s == PLAN)
    assert ws["B1"].value is None and ws["A1"].value.index("测算") < ws["A1"].value.index("Planning")  # Chinese first


def test_the_minimum_reads_the_paths_earlier_years(built):
    """2023's rolling window (2021–2023, 四、3) sums the earlier years from the path's own series (2022 at the
    path's amount), this year's from the step's trial amount: each row is its tree's rendering, nothing of a
    rule written on the sheet by hand."""
    _, _, book = built["far-east"]
    ws = openpyxl.load_workbook(book)[PLAN]
    keys = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
    cash = keys["path.cash"]  # 2020 in column E: 2022 in G, 2023 in H
    test = ws[f"H{keys['step1.min_rolling.test']}"].value
    assert f"'{PLAN}'!$E${cash}:G${cash}" in test and f"'{PLAN}'!H${keys['step1.cash']}" in test
    # before the plan: never planned (the flag row), so 计算's series — in the formula of every column of the
    # row (issue 52.4: one formula across the row, the window over one row with the year flags)
    first = ws[f"E{cash}"].value
    assert first.startswith(f"=IF(E${keys['plan_on']},") and re.search(r",'计算'!E\$\d+\)$", first), first
    assert r1c1(first, 5) == r1c1(ws[f"H{cash}"].value, 8)
    # this year's cash in step 1: the trial amount (the buybacks counted with it from 输入)
    assert f"'{PLAN}'!H${keys['step1.trial']}" in ws[f"H{keys['step1.cash']}"].value
    assert ws[f"H{keys['step1.trial']}"].value == 0  # step 1 tries 0
    assert ws[f"H{keys['step2.trial']}"].value == f"=IF(H{keys['step1.minimum']}=\"\",0,H{keys['step1.minimum']})"
    path = ws[f"H{keys['plan_path']}"].value
    # planned (the flag row: the year is the evaluation year or later): the proposed amount, else the amount
    # entered on 输入 (the year's proposal, 51.2: the flag row plan_given), else the minimum; not planned: the
    # cash dividend as entered on 输入 (its row read from the workbook's name, not written here)
    (_, ref), = openpyxl.load_workbook(book).defined_names["in_cash_dividend"].destinations
    entered = f"'输入'!H${int(ref.split(':')[0].split('$')[-1])}"
    assert path.startswith(f"=IF(H${keys['plan_on']},IF(ISBLANK(H{keys['plan_proposed']}),IF(H{keys['plan_given']}=1,")
    assert f"H{keys['plan_minimum']}" in path and path.endswith(f",IF(ISNUMBER({entered}),{entered},0))")
    assert ws[f"H{keys['plan_given']}"].value == \
        f"=IF(H${keys['plan_on']},IF(OR(NOT(ISBLANK(H{keys['plan_proposed']})),ISNUMBER({entered})),1,0),\"\")"
    assert ws[f"H{keys['plan_on']}"].value == "=IF('输入'!H$5>=in_evaluation_year,1,0)"
    # one formula across the row (R1C1): the same text in every evaluated column, columns shifted
    assert ws[f"I{keys['plan_path']}"].value == path.replace("H", "I")


def test_the_chart_plots_the_path_against_forecast_profit(built):
    _, _, book = built["gcl"]
    with zipfile.ZipFile(book) as z:
        charts = [z.read(n).decode("utf-8") for n in z.namelist() if n.startswith("xl/charts/chart")]
    ours = [c for c in charts if "分红路径" in c]
    assert len(ours) == 1
    assert "<c:barChart>" in ours[0] and "<c:lineChart>" in ours[0]
    assert ours[0].count(f"'{PLAN}'!") >= 6  # three series, each its categories and values on 测算


def test_forecast_years_are_marked_in_the_year_headers(built):
    """A year after the evaluation year shows 预测: a conditional format on the year headers reading
    in_evaluation_year (issue 52.8), so the marks follow the evaluation year when it is moved on 输入."""
    _, _, book = built["far-east"]  # evaluated in 2022: 2023–2024 forecast
    wb = openpyxl.load_workbook(book)
    for sheet in (SHEETS["inputs"], SHEETS["calc"], PLAN):
        ws = wb[sheet]
        marks = [(str(cf.sqref), rule.formula, rule.dxf.numFmt.formatCode if rule.dxf and rule.dxf.numFmt else None)
                 for cf in ws.conditional_formatting for rule in cf.rules if rule.formula
                 and "in_evaluation_year" in rule.formula[0] and ">" in rule.formula[0]]
        assert marks, sheet
        (sqref, formula, code), = [m for m in marks if m[0].startswith("E5:")]
        assert formula == ["E$5>in_evaluation_year"] and "预测" in code, (sheet, marks)
        assert all(ws.cell(5, c).number_format == "0" for c in range(5, 10)), sheet  # no mark fixed at build time
    values = openpyxl.load_workbook(book, data_only=True)[SHEETS["inputs"]]
    assert values["H5"].value == 2023  # still the number the formulas read


# ---- in the engines ----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def entered(tmp_path_factory, built):
    """far-east built without a proposal, 45M then entered in 2022's cell (as a user would) and saved: the
    engines recompute the whole path from the entry (nothing of it was cached)."""
    _, _, book = built["far-east"]
    cells = _cells(book)
    wb = openpyxl.load_workbook(book)
    wb[PLAN][cells[(ROWS["proposed"], 2022)]] = 45 * M
    out = tmp_path_factory.mktemp("entered") / "far-east-entered.xlsx"
    wb.save(out)
    return far_east(), {2022: 45 * M}, out, cells


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_engines_recalculate_the_path_to_the_fen(request, tmp_path, built, entered, engine):
    request.getfixturevalue(engine)  # installed (fails in CI when it is not)
    books = [book for _, _, book in built.values()] + [entered[2]]
    run = recalculate if engine == "libreoffice" else recalculate_gnumeric
    outs = run(books, tmp_path / engine)
    for (case, pay, book), out in zip(built.values(), outs):
        ours, theirs = sheet_values(book, (PLAN,)), sheet_values(out, (PLAN,))
        diffs = [(k, ours.get(k), theirs.get(k)) for k in sorted(set(ours) | set(theirs)) if not same(ours.get(k), theirs.get(k))]
        assert diffs == [], (book.name, diffs[:5])  # every cell of the sheet, as cached
        assert _agree(theirs, _cells(book), _want(case, pay)) == [], book.name
    case, pay, _, cells = entered
    theirs = sheet_values(outs[-1], (PLAN,))
    assert _agree(theirs, cells, _want(case, pay)) == []
    assert theirs[(PLAN, cells[(ROWS["minimum"], 2024)])] == 5 * M  # 50M − 45M, worked by hand


@pytest.fixture(scope="module")
def moved(tmp_path_factory):
    """far-east with 36M entered as 2022's cash dividend, built for 2022, then the evaluation year moved to
    2023 on 输入 (as a user would) and saved: 2022 is no longer planned and pays what was entered."""
    case = far_east(y2022={"cash_dividend": 36 * M})
    root = tmp_path_factory.mktemp("moved")
    book = _build(root / "far-east-built.xlsx", case)
    wb = openpyxl.load_workbook(book)
    (sheet, ref), = wb.defined_names["in_evaluation_year"].destinations
    wb[sheet][ref.replace("$", "")] = 2023
    out = root / "far-east-moved.xlsx"
    wb.save(out)
    return dataclasses.replace(case, evaluation_year=2023), out, _cells(book)


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_moving_the_evaluation_year_moves_the_path(request, tmp_path, moved, engine):
    """四、3 over 2021–2023: 0.3 × (100 + 100 + 200)/3 M = 40M, less 0 (2021) and the 36M entered for 2022 =
    4M in 2023; 2024 (a major outlay: 四、3 does not apply) the SSE's warning, 50M − (36M + 4M) = 10M."""
    request.getfixturevalue(engine)
    case, book, cells = moved
    run = recalculate if engine == "libreoffice" else recalculate_gnumeric
    (out,) = run([book], tmp_path / engine)
    theirs = sheet_values(out, (PLAN,))
    assert theirs[(PLAN, cells[(ROWS["minimum"], 2023)])] == 4 * M
    assert theirs[(PLAN, cells[(ROWS["minimum"], 2024)])] == 10 * M
    assert theirs[(PLAN, cells[(ROWS["path"], 2022)])] == 36 * M  # as entered: no longer planned
    assert theirs.get((PLAN, cells[(ROWS["result"], 2022)])) in (None, "")
    assert _agree(theirs, cells, _want(case, {})) == []  # and every other figure as xlmodel plan gives it


# ---- the proposed amounts read back: plan, refresh and fill keep them ------------------------------------------

def test_a_proposed_amount_entered_on_the_sheet_is_read_back(entered):
    from xlmodel.workbook.reader import read_workbook

    _, _, book, cells = entered
    assert read_workbook(book, check_formulas=False).plan_pay == {2022: 45 * M}


def test_plan_of_the_workbook_pays_the_proposed_amount(entered, capsys):
    """far-east with 45M entered on 测算 for 2022: 2023 needs nothing (四、3: 40M over 2021–2023, 45M paid),
    2024 the SSE's warning 50M − 45M = 5M — the path of `--pay 2022=45000000`, read from the sheet."""
    import json

    from conftest import cli

    _, _, book, _ = entered
    code, out, err = cli(capsys, "plan", book, "--json")
    path = {y["fiscal_year"]: y for y in json.loads(out)}
    assert (path[2022]["cash_dividend"], path[2023]["min_cash_dividend"], path[2024]["min_cash_dividend"]) == \
        (45 * M, 0, 5 * M)
    assert "测算" in err and "2022=45,000,000.00" in err
    code, out, err = cli(capsys, "plan", book, "--json", "--pay", "2022=30000000")  # --pay wins
    path = {y["fiscal_year"]: y for y in json.loads(out)}
    assert path[2022]["cash_dividend"] == 30 * M and path[2024]["min_cash_dividend"] == 10 * M


def test_refresh_keeps_the_proposed_amount(entered, tmp_path, capsys):
    from conftest import cli

    _, _, book, cells = entered
    out = tmp_path / "refreshed.xlsx"
    code, _, err = cli(capsys, "refresh", book, "-o", out)
    assert code == 0, err
    values = sheet_values(out, (PLAN,))
    assert values[(PLAN, cells[(ROWS["proposed"], 2022)])] == 45 * M
    assert values[(PLAN, cells[(ROWS["minimum"], 2024)])] == 5 * M  # cached with the amount: 50M − 45M


def test_a_bad_proposed_amount_is_refused_naming_the_cell(built, tmp_path):
    from xlmodel.errors import XlmodelError
    from xlmodel.workbook.reader import read_workbook

    _, _, book = built["far-east"]
    cells = _cells(book)
    wb = openpyxl.load_workbook(book)
    wb[PLAN][cells[(ROWS["proposed"], 2023)]] = "3千万"
    bad = tmp_path / "bad.xlsx"
    wb.save(bad)
    with pytest.raises(XlmodelError) as e:
        read_workbook(bad, check_formulas=False)
    assert f"{PLAN}!{cells[(ROWS['proposed'], 2023)]}" in str(e.value) and "拟定现金分红" in str(e.value)



@pytest.mark.parametrize("text", ["NaN", "nan", "INF", "-inf"])
def test_a_nan_or_inf_proposed_amount_is_refused_naming_the_cell(built, tmp_path, capsys, text):
    """Issue 48, item 10: a proposed amount no workbook can hold (the file's XML says NaN or INF) is refused,
    exit 2, naming 测算 and its cell (it named no cell)."""
    from conftest import cli
    from hostile_corpus import Book

    _, _, book = built["far-east"]
    cell = _cells(book)[(ROWS["proposed"], 2023)]
    b = Book(book)
    b._replace_cell(PLAN, cell, lambda attrs: f'<c r="{cell}"{attrs}><v>{text}</v></c>')
    bad = b.save(tmp_path / "bad.xlsx")
    for command in ("plan", "check"):
        code, out, err = cli(capsys, command, bad)
        assert code == 2 and out == "" and "Traceback" not in err
        assert f"bad.xlsx: 无法读取工作簿 cannot read the workbook: {PLAN}!{cell}: 值 {text!r} 不是数字 is not a number" in err, err


def test_a_copied_row_of_proposed_amounts_is_refused_naming_both_rows(built, tmp_path, capsys):
    """Issue 48, item 10: the row of proposed amounts copied below the sheet (its key in column A, an amount in
    2023): which row holds the amounts cannot be told. Refused, exit 2, naming both rows (every proposed amount
    was dropped, unsaid)."""
    from conftest import cli

    _, _, book = built["far-east"]
    cells = _cells(book)
    wb = openpyxl.load_workbook(book)
    ws = wb[PLAN]
    row = int(cells[(ROWS["proposed"], 2022)][1:])
    copy = ws.max_row + 2
    for c in range(1, ws.max_column + 1):
        ws.cell(copy, c).value = ws.cell(row, c).value
    ws[cells[(ROWS["proposed"], 2023)][0] + str(copy)] = 12 * M
    bad = tmp_path / "copied.xlsx"
    wb.save(bad)
    code, out, err = cli(capsys, "plan", bad)
    assert code == 2 and out == ""
    assert f"{PLAN}!A{row}、{PLAN}!A{copy}" in err and "plan_proposed" in err and "2 times" in err, err

def test_an_amount_proposed_before_the_evaluation_year_is_said_and_not_read(tmp_path):
    from xlmodel.workbook.reader import read_workbook

    case = far_east()
    book = _build(tmp_path / "b.xlsx", dataclasses.replace(case, evaluation_year=2023))
    cells = _cells(book)
    wb = openpyxl.load_workbook(book)
    wb[PLAN][cells[(ROWS["proposed"], 2022)]] = 45 * M
    wb.save(tmp_path / "early.xlsx")
    read = read_workbook(tmp_path / "early.xlsx", check_formulas=False)
    assert read.plan_pay == {}
    assert any("2022" in n and "不计" in n for n in read.notes)
