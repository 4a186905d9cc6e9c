"""Workbook structure and modelling conventions (without a spreadsheet engine)."""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import column_index_from_string

from conftest import formulas as _formulas
from xlmodel.case import load_case
from xlmodel.errors import OutputExistsError
from xlmodel.evaluator import evaluate, model_for
from xlmodel.fields import COMPANY_FIELDS, YEAR_FIELDS
from xlmodel.plans.loading import load_policy
from xlmodel.workbook.layout import OUTPUTS, SHEETS, Layout, pname
from xlmodel.workbook.writer import build_workbook

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("*.yaml"))
REF = re.compile(r"('[^']+'|[A-Za-z_]\w*)?!?\$?[A-Z]{1,3}\$?\d+")


@pytest.fixture(scope="module")
def gcl(tmp_path_factory):
    case = load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml")
    path = build_workbook(tmp_path_factory.mktemp("wb") / "gcl.xlsx", case=case)
    return case, openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)


def test_sheets_in_order(gcl):
    _, wb, _ = gcl
    assert wb.sheetnames == list(SHEETS.values())


def test_no_constants_inside_formulas(gcl):
    """Thresholds live on the parameter sheet: a formula's only numbers are 0 and 1 (ROUND reads its
    digits from the named precision, p_precision_digits)."""
    _, wb, _ = gcl
    offenders = []
    for sheet, c in _formulas(wb):
        f = c.value[1:]
        f = re.sub(r'"[^"]*"', "", f)  # strings
        f = REF.sub("", f)  # cell references (with sheet names) and names
        f = re.sub(r"[A-Za-z_][\w.]*", "", f)  # function and defined names
        nums = [n for n in re.findall(r"\d+(?:\.\d+)?", f) if n not in ("0", "1")]
        if nums:
            offenders.append(f"{sheet}!{c.coordinate}: {c.value}")
    assert not offenders, offenders[:10]


def test_one_consistent_formula_per_row(gcl):
    """Per-year rows hold the same formula in R1C1 terms across the year columns."""
    case, wb, _ = gcl
    layout = Layout(model_for(case.policy), case.evaluation_year)
    ws = wb[SHEETS["calc"]]

    def r1c1(formula: str, col: int) -> str:
        return re.sub(r"(?<![$A-Z])([A-Z]{1,3})(\$?\d+)",
                      lambda m: f"C[{column_index_from_string(m.group(1)) - col}]{m.group(2)}", formula)

    for name, row in layout.series.items():
        shapes = {r1c1(ws.cell(row + 1, layout.year_col(o) + 1).value, layout.year_col(o) + 1) for o in layout.offsets}
        assert len(shapes) == 1, (name, shapes)


def test_public_names(gcl):
    case, wb, _ = gcl
    names = set(wb.defined_names)
    for f in YEAR_FIELDS:
        assert f"in_{f.id}" in names
        dest = wb.defined_names[f"in_{f.id}"].attr_text
        assert re.fullmatch(r"'?输入'?!\$E\$\d+:\$I\$\d+", dest), dest  # five years E..I, chronological
    for f in COMPANY_FIELDS:
        assert f"in_{f.id}" in names
    for _, out, *_ in OUTPUTS:
        assert out in names
    model = model_for(case.policy)
    for rd in model.rules:
        assert f"chk_{rd.id}" in names
    for p in model.params:
        assert pname(p) in names


def test_cached_values_equal_the_evaluator(gcl):
    case, wb, values = gcl
    rep = evaluate(case)
    def named(name):
        sheet, ref = wb.defined_names[name].attr_text.split("!")
        return values[sheet.strip("'")][ref.replace("$", "")].value
    assert named("out_min_cash_dividend") == rep.min_cash_dividend == 85509212.89  # 10% × 855,092,128.94
    assert named("out_max_distribution") == rep.max_distribution == 1095152827.27  # lower of the two retained
    assert named("out_overall_status") == "通过"
    # a yes/no result is 1/0 shown 是/否 by its number format (issue 23.7: Excel shows TRUE whatever a boolean's format)
    met = named("out_cash_conditions_met")
    assert met == 1 and not isinstance(met, bool)
    sheet, ref = wb.defined_names["out_cash_conditions_met"].attr_text.split("!")
    assert wb[sheet.strip("'")][ref.replace("$", "")].number_format == '"是";"是";"否"'
    for r in rep.rules:
        assert named(f"chk_{r.id}") == {"pass": "通过", "met": "满足", "not_applicable": "不适用"}[r.status]


def test_every_formula_cell_has_a_cached_value(gcl):
    """A formula cell is blank only where the evaluator's value is blank (e.g. an out-of-scope result):
    every calculation in every evaluated year on 计算, the evaluation year's on 检查 and 汇总."""
    case, wb, values = gcl
    from xlmodel.evaluator import evaluate_timeline
    from xlmodel.workbook.layout import CHECK_COL_INDEX

    model = model_for(case.policy)
    layout = Layout(model, case.evaluation_year)
    env = evaluate_timeline(model, case, layout.eval_years)
    j = layout.eval_years.index(case.evaluation_year)

    def blank(name, k):
        v = env.calc(name, None)[k]
        return isinstance(v, str) and v == ""

    expect = set()
    for name in model.scalars:
        for k, y in enumerate(layout.eval_years):
            if blank(name, k):
                expect.add((SHEETS["calc"], layout.calc_rows[name] + 1, layout.col_of(y) + 1))
        rid, _, col = name.rpartition(".")
        if col in CHECK_COL_INDEX and rid in layout.check_rows and blank(name, j):
            expect.add((SHEETS["checks"], layout.check_rows[rid] + 1, CHECK_COL_INDEX[col] + 1))
        if name in layout.output_rows and blank(name, j):
            expect.add((SHEETS["summary"], layout.output_rows[name] + 1, 3))
    # 公告 reads one calculation a cell at the evaluation year (its 计算 row in the formula): blank where that is
    by_row = {r + 1: n for n, r in layout.calc_rows.items()}
    for s, c in _formulas(wb):
        if s == SHEETS["announce"]:
            calc_row = int(re.search(r"'计算'!\$[A-Z]+\$(\d+):", c.value).group(1))
            if blank(by_row[calc_row], j):
                expect.add((s, c.row, c.column))
    # 测算 evaluates the rules again at the path's amounts: its cached values are tests/test_planning_sheet.py's
    got = {(s, c.row, c.column) for s, c in _formulas(wb) if values[s][c.coordinate].value is None
           and s != SHEETS["planning"]}
    # the board page's 万元/亿元 forms of a blank amount are blank too (the cover, the per-year table)
    derived = {(s, r, c) for s, r, c in got - expect if s in (SHEETS["cover"], SHEETS["summary"])
               and "IF(" in wb[s].cell(r, c).value and '=""' in wb[s].cell(r, c).value}
    # the path on 汇总 reads 测算 (its blanks are 测算's); the cover's cash shortfall is blank unless 不通过
    derived |= {(s, r, c) for s, r, c in got - expect
                if (s == SHEETS["summary"] and f"'{SHEETS['planning']}'!" in wb[s].cell(r, c).value)
                or (s == SHEETS["cover"] and "=lbl_fail," in wb[s].cell(r, c).value)}
    assert got - derived == expect, (sorted(got - derived - expect)[:10], sorted(expect - got)[:10])
    assert expect  # the sample has an out-of-scope ST result: the test sees blanks


def test_inputs_unlocked_formulas_locked_and_protected(gcl):
    case, wb, _ = gcl
    layout = Layout(model_for(case.policy), case.evaluation_year)
    ws = wb[SHEETS["inputs"]]
    cell = ws.cell(layout.inputs["cash_dividend"] + 1, layout.t_col + 1)
    assert cell.protection.locked is False
    for sheet, c in _formulas(wb):
        assert c.protection.locked is not False, f"{sheet}!{c.coordinate}"
    for name in (SHEETS["inputs"], SHEETS["calc"], SHEETS["checks"], SHEETS["summary"]):
        assert wb[name].protection.sheet is True


def test_validation_lists_on_enumerations(gcl):
    case, wb, _ = gcl
    layout = Layout(model_for(case.policy), case.evaluation_year)
    ws = wb[SHEETS["inputs"]]
    sources = {dv.formula1 for dv in ws.data_validations.dataValidation if dv.type == "list"}
    assert {"list_audit_opinion", "list_development_stage", "list_board", "list_bool"} <= {s.lstrip("=") for s in sources}
    covered = " ".join(str(dv.sqref) for dv in ws.data_validations.dataValidation if dv.formula1 in ("list_audit_opinion", "=list_audit_opinion"))
    assert f"I{layout.inputs['audit_opinion'] + 1}" in covered


def test_text_inputs_are_stored_as_text_never_formulas(tmp_path):
    case = load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml")
    case.company["company_name"] = "=HYPERLINK(\"http://x\")"
    path = build_workbook(tmp_path / "x.xlsx", case=case)
    ws = openpyxl.load_workbook(path)[SHEETS["inputs"]]
    layout = Layout(model_for(case.policy), case.evaluation_year)
    c = ws.cell(layout.company["company_name"] + 1, 5)
    assert c.data_type == "s" and c.value == "=HYPERLINK(\"http://x\")"


def test_refuses_to_overwrite_and_writes_atomically(tmp_path):
    target = tmp_path / "book.xlsx"
    target.write_bytes(b"user's file")
    with pytest.raises(OutputExistsError):
        build_workbook(target, policy="houpu-2024-2026")
    assert target.read_bytes() == b"user's file"
    build_workbook(target, policy="houpu-2024-2026", force=True)
    assert openpyxl.load_workbook(target).sheetnames[0] == SHEETS["cover"]
    assert [p.name for p in tmp_path.iterdir()] == ["book.xlsx"]


def test_empty_model_has_blank_inputs_and_missing_statuses(tmp_path):
    path = build_workbook(tmp_path / "empty.xlsx", policy="far-east-2022-2024", evaluation_year=2023)
    values = openpyxl.load_workbook(path, data_only=True)
    assert values[SHEETS["inputs"]]["E3"].value == 2023
    layout = Layout(model_for(load_policy("far-east-2022-2024")), 2023)
    status = values[SHEETS["summary"]].cell(layout.output_rows["overall_status"] + 1, 3).value
    assert status == "缺少输入"


def _content(path: Path) -> dict:
    wb = openpyxl.load_workbook(path)
    vals = openpyxl.load_workbook(path, data_only=True)
    out = {"names": {n: wb.defined_names[n].attr_text for n in wb.defined_names}}
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value is not None:
                    out[(ws.title, c.coordinate)] = (c.value, vals[ws.title][c.coordinate].value)
    return out


@pytest.mark.parametrize("case_path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_workbooks_are_current(case_path, tmp_path):
    """samples/*.xlsx are what the current generator builds from samples/*.yaml.
    Regenerate with: xlmodel samples --out samples --force"""
    committed = case_path.with_suffix(".xlsx")
    assert committed.exists(), f"{committed} missing: run `xlmodel samples --out samples --force`"
    fresh = build_workbook(tmp_path / committed.name, case=load_case(case_path))
    new, old = _content(fresh), _content(committed)
    changed = [k for k in sorted(set(new) | set(old), key=str) if new.get(k) != old.get(k)]
    shown = "\n".join(f"  {k}: {old.get(k)!r} -> {new.get(k)!r}" for k in changed[:5])
    assert not changed, (f"{committed.name} differs from what the generator builds now in {len(changed)} cells:\n{shown}\n"
                         "if the change was meant to alter the workbook, run `xlmodel samples --out samples --force`; "
                         "if not, a changed formula is a bug (tests/test_formula_text.py names the rule's)")


@pytest.mark.parametrize("case_path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_no_true_or_false_in_the_workbook(case_path):
    """Issue 23.7: every yes/no the workbook shows is 是/否 — the working rows of 计算 and 测算 too: a cell
    that is a yes/no holds 1/0 formatted 是/否, never TRUE/FALSE (Excel shows TRUE whatever a boolean's
    format; LibreOffice would save a formatted boolean as a number anyway)."""
    path = case_path.with_suffix(".xlsx")
    values, wb = openpyxl.load_workbook(path, data_only=True), openpyxl.load_workbook(path)
    bools = [f"{ws.title}!{c.coordinate}" for ws in values.worksheets for row in ws.iter_rows() for c in row
             if isinstance(c.value, bool)]
    assert not bools, f"{len(bools)} TRUE/FALSE cells, e.g. {bools[:5]}"
    from xlmodel.engines.parity import case_layout

    case = load_case(case_path)
    L = case_layout(case)  # the sample's own timeline
    calc, calc_values = wb[SHEETS["calc"]], values[SHEETS["calc"]]
    for name in ("is_evaluation_year", "in_plan_period", "readable"):
        cells = [calc.cell(L.calc_rows[name] + 1, L.col_of(y) + 1) for y in L.eval_years]
        assert all(c.number_format == '"是";"是";"否"' and c.value.startswith("=IF(") for c in cells), name
    # the evaluation year's column is the only 1 of its flag row; the plans' years are all in their plan period
    row = L.calc_rows["is_evaluation_year"] + 1
    assert [calc_values.cell(row, L.col_of(y) + 1).value for y in L.eval_years] == \
        [1 if y == case.evaluation_year else 0 for y in L.eval_years]
    lo, hi = load_policy(case.policy).plan_years
    row = L.calc_rows["in_plan_period"] + 1
    assert [calc_values.cell(row, L.col_of(y) + 1).value for y in L.eval_years] == \
        [1 if lo <= y <= hi else 0 for y in L.eval_years]


def test_no_formula_is_longer_than_a_modeller_can_audit(tmp_path):
    """Issue 11: every formula of every plan's workbook (and the fourth plan's) stays under 250
    characters; the longest is reported."""
    import openpyxl

    from xlmodel.plans.loading import load_policy, policy_paths
    from xlmodel.workbook.writer import build_workbook

    fourth = Path(__file__).parent / "data" / "fourth_plan" / "demo-2025-2027.yaml"
    longest = (0, "")
    for ref in [*policy_paths(), fourth]:
        policy = load_policy(ref)
        out = build_workbook(tmp_path / f"{policy.id}.xlsx", policy=policy)
        wb = openpyxl.load_workbook(out)
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    if isinstance(c.value, str) and c.value.startswith("="):
                        longest = max(longest, (len(c.value), f"{policy.id} {ws.title}!{c.coordinate}"))
    print(f"\nlongest formula: {longest[0]} characters at {longest[1]}")
    assert longest[0] <= 250, longest


def test_every_sheet_prints_on_a4_with_no_text_below_8_points(gcl):
    """A4 landscape (the cover, the sign-off page: portrait); the print scale (or the fit to the page width,
    at 135 column units across A4 landscape at 100%, 135 × 7.47" / 10.89" = 92 portrait) times the smallest
    font on the sheet is at least 8 pt."""
    _, wb, _ = gcl
    from openpyxl.utils import get_column_letter

    for ws in wb.worksheets:
        portrait = ws.title in (SHEETS["cover"], SHEETS["announce"])  # 公告: one A4 page, portrait
        assert ws.page_setup.paperSize in (9, "9") and ws.page_setup.orientation == (
            "portrait" if portrait else "landscape"), ws.title
        sizes = {c.font.sz for row in ws.iter_rows() for c in row if c.value is not None and c.font and c.font.sz}
        widths = sum((ws.column_dimensions[get_column_letter(i)].width or 8.43) for i in range(1, ws.max_column + 1))
        if ws.sheet_properties.pageSetUpPr is not None and ws.sheet_properties.pageSetUpPr.fitToPage:
            scale = min(1.0, (92 if portrait else 135) / widths)
        else:
            scale = (ws.page_setup.scale or 100) / 100
        assert min(sizes) * scale >= 8 - 1e-9, (ws.title, min(sizes), round(scale, 2), widths)
