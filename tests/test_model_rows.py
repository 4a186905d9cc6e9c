"""Issue 52 points 4–8: every row a modeller would sign, counted on the GCL sample's workbook (tests/sheet_metrics.py).

Before this issue (measured on the bundled GCL sample, main at fd9df37): 计算 399 model rows, 163 without a unit
(56 of them amounts), 196 labelled with their id, 75 results in General format; 测算 506 rows, 472 without a unit,
192 labelled with their id, 93 General results, 42 rows whose formula changes by column; 参数 28 of 40 editable
values without validation.
"""

from __future__ import annotations

import openpyxl
import pytest

from xlmodel.case import load_case
from xlmodel.workbook.layout import SHEET_KIND, SHEETS, TAB_COLOUR
from xlmodel.workbook.sheets.plantext import TREATMENTS
from xlmodel.workbook.writer import build_workbook

from sheet_metrics import measure

SAMPLE = "samples/gcl-energy-2022-2024.yaml"


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return build_workbook(tmp_path_factory.mktemp("rows") / "gcl.xlsx", case=load_case(SAMPLE))


@pytest.fixture(scope="module")
def figures(book):
    return measure(book)


@pytest.mark.parametrize("sheet", ["计算", "测算"])
def test_every_row_has_a_unit_and_a_chinese_label(figures, sheet):
    got = figures[sheet]
    assert got["rows"] > 300
    assert got["no_unit_rows"] == [] and got["id_label_rows"] == []


@pytest.mark.parametrize("sheet", ["计算", "测算", "检查", "汇总"])
def test_no_number_is_shown_in_general_format(figures, sheet):
    assert figures[sheet]["general_results"] == 0


@pytest.mark.parametrize("sheet", ["计算", "测算"])
def test_one_formula_per_row(figures, sheet):
    """The same formula in R1C1 terms in every year column of a row (测算: the path's rows and the windows over
    it no longer switch between 计算 and 测算 by column)."""
    assert figures[sheet]["changing_rows"] == []


def test_every_editable_parameter_is_validated(figures):
    assert figures["参数"]["editable"] >= 30 and figures["参数"]["unvalidated"] == 0


def test_a_window_is_validated_up_to_the_plans(book):
    ws = openpyxl.load_workbook(book)[SHEETS["params"]]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "p_min_rolling_window")
    (dv,) = [dv for dv in ws.data_validations.dataValidation if f"D{row}" in dv.sqref]
    assert (dv.type, dv.operator or "between", dv.formula1, dv.formula2) == ("whole", "between", "1", "p_min_rolling_plan_window")
    fixed = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "p_min_rolling_plan_window")
    assert ws.cell(fixed, 4).value == 3 and ws.cell(fixed, 4).protection.locked is not False  # 任何三个连续年度


def test_tabs_are_coloured_by_kind(book):
    wb = openpyxl.load_workbook(book)
    for key, name in SHEETS.items():
        want = TAB_COLOUR[SHEET_KIND[key]].lstrip("#").upper()
        assert wb[name].sheet_properties.tabColor.rgb.upper().endswith(want), name
    assert TAB_COLOUR["input"] != TAB_COLOUR["calculation"] != TAB_COLOUR["output"]


def test_the_plan_text_uses_no_input_yellow(book):
    ws = openpyxl.load_workbook(book)[SHEETS["text"]]
    assert all(colour.upper() != "#FFF2CC" for _, _, colour in TREATMENTS.values())
    fills = {c.fill.fgColor.rgb for row in ws.iter_rows() for c in row if c.fill and c.fill.fill_type == "solid"}
    assert not any(str(f).upper().endswith("FFF2CC") for f in fills)
