"""Issue 11 (part): the workbook checks the model itself, and inserted rows keep it trusted.

* Inserting rows (as Excel does it: every reference below the row moves with it) must not make
  `xlmodel check` distrust any formula; a formula really changed after the insertion still is.
* The master check on 汇总 compares every parameter with the plan's value, the year header,
  the width of the input ranges and the status count; changing a parameter shows up there
  when a spreadsheet engine recalculates.
"""

from __future__ import annotations

import re

import openpyxl
import pytest

from xlmodel.case import load_case
from xlmodel.evaluator import model_for
from xlmodel.plans.loading import load_policy
from xlmodel.workbook import layout as layout_mod
from xlmodel.workbook.compare import compare_formulas
from xlmodel.engines.recalc import recalculate, recalculate_gnumeric
from xlmodel.workbook.writer import build_workbook

SAMPLE = "samples/gcl-energy-2022-2024.yaml"


def _build_with_inserted_row(tmp_path, monkeypatch, after_field: str):
    """The workbook Excel would have after a row is inserted below ``after_field`` on 输入."""
    place = layout_mod.Layout._place

    def shifted(self):
        place(self)
        cut = self.inputs[after_field]
        for table in (self.inputs, self.company, self.attest):
            for k, r in table.items():
                if r > cut:
                    table[k] = r + 1
    monkeypatch.setattr(layout_mod.Layout, "_place", shifted)
    out = build_workbook(tmp_path / "inserted.xlsx", case=load_case(SAMPLE))
    monkeypatch.setattr(layout_mod.Layout, "_place", place)
    return out


def test_an_inserted_input_row_keeps_every_formula_trusted(tmp_path, monkeypatch):
    case = load_case(SAMPLE)
    path = _build_with_inserted_row(tmp_path, monkeypatch, "total_assets")
    wb = openpyxl.load_workbook(path)
    # the insertion really moved the references (else the test proves nothing)
    assert wb["输入"]["A13"].value != openpyxl.load_workbook(build_workbook(tmp_path / "plain.xlsx", case=case))["输入"]["A13"].value
    assert compare_formulas(wb, load_policy(case.policy), case) == []


def test_a_changed_formula_is_still_found_after_an_inserted_row(tmp_path, monkeypatch):
    case = load_case(SAMPLE)
    path = _build_with_inserted_row(tmp_path, monkeypatch, "total_assets")
    wb = openpyxl.load_workbook(path)
    ws = wb["计算"]
    target = next(c for row in ws.iter_rows() for c in row if isinstance(c.value, str) and c.value.startswith("=ROUND("))
    target.value = target.value.replace("ROUND(", "ROUNDDOWN(", 1)
    changed = compare_formulas(wb, load_policy(case.policy), case)
    assert len(changed) == 1 and changed[0].startswith(f"计算!{target.coordinate}")


def test_a_reference_moved_to_another_row_is_a_change(tmp_path):
    case = load_case(SAMPLE)
    path = build_workbook(tmp_path / "book.xlsx", case=case)
    wb = openpyxl.load_workbook(path)
    ws = wb["计算"]
    target = next(c for row in ws.iter_rows() for c in row if isinstance(c.value, str) and "'输入'!I$" in c.value)
    row = int(re.search(r"'输入'!I\$(\d+)", target.value).group(1))
    target.value = target.value.replace(f"'输入'!I${row}", f"'输入'!I${row + 1}", 1)
    assert compare_formulas(wb, load_policy(case.policy), case)


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_a_changed_parameter_fails_the_master_check(engine, request, tmp_path):
    request.getfixturevalue(engine)
    case = load_case(SAMPLE)
    path = build_workbook(tmp_path / "book.xlsx", case=case)
    wb = openpyxl.load_workbook(path)
    ws = wb["参数"]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "p_min_rolling_ratio")
    ws.cell(r := row, 4).value = 0.25  # the plan says 30%
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    out = (recalculate if engine == "libreoffice" else recalculate_gnumeric)([edited], tmp_path / engine)[0]
    values = openpyxl.load_workbook(out, data_only=True)
    assert values["参数"].cell(r, 9).value == "请检查"
    summary = values["汇总"]
    got = {summary.cell(i, 1).value: summary.cell(i, 3).value for i in range(1, summary.max_row + 1)}
    assert got["model_params_ok"] == "请检查" and got["out_model_check"] == "请检查"
    assert got["model_years_ok"] == got["model_ranges_ok"] == got["model_statuses_ok"] == "正常"
    assert len(model_for(case.policy).rules) == values["参数"].cell(
        next(i for i in range(1, values["参数"].max_row + 1) if values["参数"].cell(i, 1).value == "model_rules"), 4).value


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_an_unreadable_input_or_an_error_never_shows_a_verdict(engine, request, tmp_path):
    """Issue 20: "1.58亿" pasted into an amount cell (past the validation), an option not on the list, or an
    error in a status: the cover and 汇总 show 无法判断 (undetermined) and the master check 请检查, in every
    engine; the clean workbook still shows its result. One launch of the engine for all four books."""
    from hostile_corpus import Book

    request.getfixturevalue(engine)
    clean = build_workbook(tmp_path / "book.xlsx", case=load_case(SAMPLE))
    text = Book(clean)
    text.set_input("in_net_profit_attributable", "1.58亿")
    option = Book(clean)
    option.set_input("in_development_stage", "成熟")  # not 成熟期
    wb = openpyxl.load_workbook(clean)
    calc = wb["计算"]
    status_row = next(r for r in range(1, calc.max_row + 1) if calc.cell(r, 1).value == "min_annual.status")
    for col in range(5, calc.max_column + 1):
        if isinstance(calc.cell(status_row, col).value, str) and calc.cell(status_row, col).value.startswith("="):
            calc.cell(status_row, col).value = "=1/0"  # an error where a status should be
    books = [clean, text.save(tmp_path / "text.xlsx"), option.save(tmp_path / "option.xlsx"), tmp_path / "error.xlsx"]
    wb.save(books[-1])
    outs = (recalculate if engine == "libreoffice" else recalculate_gnumeric)(books, tmp_path / engine)
    shown = []
    for out in outs:
        values = openpyxl.load_workbook(out, data_only=True)
        cover = {values["封面"].cell(r, 2).value: values["封面"].cell(r, 3).value for r in range(1, 25)}
        summary = {values["汇总"].cell(i, 1).value: values["汇总"].cell(i, 3).value for i in range(1, values["汇总"].max_row + 1)}
        shown.append((cover["总体结论 Overall result"], cover["模型检查 Model check"], summary["out_overall_status"],
                      summary["model_inputs_readable"], summary["model_results_readable"]))
    assert shown[0] == ("通过", "正常", "通过", "正常", "正常")
    assert shown[1] == shown[2] == ("无法判断", "请检查", "无法判断", "请检查", "请检查")
    assert shown[3] == ("无法判断", "请检查", "无法判断", "正常", "请检查")  # the inputs are fine, a status is not


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_the_master_check_sees_every_sheet_and_missing_data_is_its_own_line(engine, request, tmp_path):
    """Issue 52.6: an error on 测算 or on 检查 fails the master check (before, it read nothing on 测算 or the cover);
    a blank input needed by a rule is out_data_check's 请检查 on its own line (and the cover's 数据完整),
    while the model itself stays 正常. One launch of the engine for the four books."""
    from hostile_corpus import Book

    request.getfixturevalue(engine)
    clean = build_workbook(tmp_path / "book.xlsx", case=load_case(SAMPLE))
    books = [clean]
    for sheet, key in (("测算", "path.min_annual.required"), ("检查", "min_annual")):
        wb = openpyxl.load_workbook(clean)
        ws = wb[sheet]
        row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == key)
        col = next(c for c in range(5, ws.max_column + 1) if str(ws.cell(row, c).value or "").startswith("="))
        ws.cell(row, col).value = "=1/0"
        books.append(tmp_path / f"error-{key}.xlsx")
        wb.save(books[-1])
    blank = Book(clean)
    blank.set_input("in_distributable_profit", None)  # the evaluation year's: the minimums cannot be decided
    books.append(blank.save(tmp_path / "blank.xlsx"))
    outs = (recalculate if engine == "libreoffice" else recalculate_gnumeric)(books, tmp_path / engine)
    shown = []
    for out in outs:
        values = openpyxl.load_workbook(out, data_only=True)
        s = {values["汇总"].cell(i, 1).value: values["汇总"].cell(i, 3).value for i in range(1, values["汇总"].max_row + 1)}
        cover = {values["封面"].cell(r, 2).value: values["封面"].cell(r, 3).value for r in range(1, 25)}
        shown.append((s["model_planning_clean"], s["model_checks_clean"], s["out_model_check"], s["out_data_check"],
                      cover["模型检查 Model check"], cover["数据完整 Data complete"]))
    assert shown[0] == ("正常",) * 6
    assert shown[1] == ("请检查", "正常", "请检查", "正常", "请检查", "正常")  # 测算
    assert shown[2] == ("正常", "请检查", "请检查", "正常", "请检查", "正常")  # 检查
    assert shown[3] == ("正常", "正常", "正常", "请检查", "正常", "请检查")  # missing data: its own line
