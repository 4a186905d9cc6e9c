"""Issue 11: the workbook is a timeline, and what a user may change in it is honoured.

* The year columns are fixed: the first fiscal year is an input, each column one year later.
  Moving the evaluation year selects another column; it never relabels the data.
* Every rule is evaluated in every evaluated year (the rows of 计算); the evaluation year's
  results on 检查 and 汇总 are read from its column.
* An editable parameter changed in the workbook is used by every formula, and `xlmodel check`
  evaluates with it (and says so); a window's length too (its sums are SUMPRODUCTs over the year
  row flagged by the year header); a constant of the model is locked.

The engine tests recalculate with LibreOffice and Gnumeric and compare with the evaluator.
"""

from __future__ import annotations

import json

import openpyxl
import pytest

from xlmodel.case import load_case
from xlmodel.rules.model import STATUS_ZH
from xlmodel.evaluator import evaluate, model_for
from xlmodel.workbook.layout import FIRST_YEAR_COL, HEADER_ROW, OUTPUTS, SHEETS, Layout, col_name, timeline
from xlmodel.workbook.reader import read_workbook
from xlmodel.engines.recalc import recalculate, recalculate_gnumeric
from xlmodel.workbook.writer import build_workbook
from conftest import cli

SAMPLE = "samples/gcl-energy-2022-2024.yaml"  # evaluated in 2023; data 2020–2024
ENGINES = ["libreoffice", "gnumeric"]


def _recalc(engine, path, tmp_path):
    return (recalculate if engine == "libreoffice" else recalculate_gnumeric)([path], tmp_path / engine)[0]


def _with_param(src, dst, name: str, value):
    """A copy of the workbook ``src`` with the parameter ``name`` (e.g. p_min_rolling_ratio) set to ``value``;
    (the copy, the parameter's 1-based row on 参数, its value before)."""
    wb = openpyxl.load_workbook(src)
    ws = wb[SHEETS["params"]]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == name)
    before = ws.cell(row, 4).value
    ws.cell(row, 4).value = value
    wb.save(dst)
    return dst, row, before


def _outputs(values) -> dict:
    ws = values[SHEETS["summary"]]
    blank = lambda v: None if v == "" else v  # Gnumeric saves a blank result as an empty string
    return {ws.cell(r, 1).value: blank(ws.cell(r, 3).value) for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value}


def _want(rep) -> dict:
    return {"out_overall_status": STATUS_ZH[rep.overall_status], "out_min_cash_dividend": rep.min_cash_dividend,
            "out_max_distribution": rep.max_distribution, "out_fail_count": rep.fail_count,
            "out_warn_count": rep.warn_count, "out_missing_input_count": rep.missing_input_count}


def _close(got: dict, want: dict):
    for k, v in want.items():
        g = got[k]
        if isinstance(v, float):
            assert g == pytest.approx(v, abs=0.001), k
        else:
            assert g == v, k


def test_the_year_columns_are_a_timeline_from_an_input_first_year(tmp_path):
    case = load_case(SAMPLE)
    wb = openpyxl.load_workbook(build_workbook(tmp_path / "b.xlsx", case=case))
    ws = wb[SHEETS["inputs"]]
    first = ws.cell(HEADER_ROW + 1, FIRST_YEAR_COL + 1)
    assert first.value == 2020 and first.protection.locked is False  # an input
    assert [ws.cell(HEADER_ROW + 1, FIRST_YEAR_COL + 1 + i).value for i in range(1, 5)] == [f"={col_name(FIRST_YEAR_COL + i - 1)}5+1" for i in range(1, 5)]
    assert ws["E3"].value == 2023  # the evaluation year: its own input, not a column's label
    model = model_for(case.policy)
    layout = Layout(model, 2023, *timeline(model, 2023, case.years))
    assert layout.years == [2020, 2021, 2022, 2023, 2024]
    assert layout.eval_years == [2022, 2023, 2024]  # the plan period (the years before are the windows' history)


def test_every_rule_has_one_formula_across_its_row(tmp_path):
    """On 计算 each row's formula is the same in every evaluated year, in R1C1 terms (relative columns)."""
    import re

    case = load_case(SAMPLE)
    wb = openpyxl.load_workbook(build_workbook(tmp_path / "b.xlsx", case=case))
    ws = wb[SHEETS["calc"]]
    model = model_for(case.policy)
    layout = Layout(model, 2023, *timeline(model, 2023, case.years))
    cols = [layout.col_of(y) + 1 for y in layout.eval_years]

    def r1c1(formula: str, col: int) -> str:  # relative column references as offsets from the cell's column
        return re.sub(r"(?<![A-Za-z_$])([A-Z]{1,3})(\$?\d+)", lambda m: (
            f"C[{openpyxl.utils.column_index_from_string(m.group(1)) - col}]{m.group(2)}"), formula)

    rows = [r for r in range(1, ws.max_row + 1) if isinstance(ws.cell(r, cols[0]).value, str)
            and ws.cell(r, cols[0]).value.startswith("=")]
    assert len(rows) >= len(model.scalars)
    for r in rows:
        shapes = {r1c1(ws.cell(r, c).value, c) for c in cols}
        assert len(shapes) == 1, (ws.cell(r, 1).value, shapes)


def test_a_window_is_an_editable_parameter_and_a_model_constant_is_not(tmp_path):
    wb = openpyxl.load_workbook(build_workbook(tmp_path / "b.xlsx", case=load_case(SAMPLE)))
    ws = wb[SHEETS["params"]]
    cells = {ws.cell(r, 1).value: ws.cell(r, 4) for r in range(1, ws.max_row + 1)}
    assert cells["p_min_rolling_window"].protection.locked is False  # the plan's window: the formulas follow it
    assert cells["p_min_rolling_ratio"].protection.locked is False
    assert cells["p_precision_fen"].protection.locked is not False  # fixed by the model
    assert cells["model_window_max"].value == 3  # 2020–2022: the longest window of the first evaluated year


@pytest.mark.engines
@pytest.mark.parametrize("engine", ENGINES)
def test_a_changed_window_is_summed_by_every_formula(engine, request, tmp_path, capsys):
    """Three years → two: the rolling minimum is 30% of the average of 2022–2023 (the plan's clause,
    worked by hand from the sample's distributable profit); 4 years is more than the columns hold."""
    request.getfixturevalue(engine)
    case = load_case(SAMPLE)
    path = build_workbook(tmp_path / "b.xlsx", case=case)
    for window in (2, 4):
        edited, _row, _before = _with_param(path, tmp_path / f"window{window}.xlsx", "p_min_rolling_window", window)
        out = _recalc(engine, edited, tmp_path / str(window))
        values = openpyxl.load_workbook(out, data_only=True)
        checks = values[SHEETS["checks"]]
        got = next(checks.cell(r, 7).value for r in range(1, checks.max_row + 1) if checks.cell(r, 1).value == "min_rolling")
        got = None if got == "" else got  # a window longer than the plan's is 缺少输入 (52.7): no bound, blank in Gnumeric
        want = evaluate(case, params={"min_rolling.window": window})
        rolling = next(r for r in want.rules if r.id == "min_rolling")
        assert got == pytest.approx(rolling.required, abs=0.001)
        outputs = _outputs(values)
        _close(outputs, _want(want))
        assert outputs["model_params_ok"] == "请检查"
        assert outputs["model_windows_ok"] == ("正常" if window == 2 else "请检查")
        if window == 2:
            dp = [case.years[y]["distributable_profit"] for y in (2022, 2023)]
            assert rolling.required == round(0.30 * sum(dp) / 2, 2)
            code, text, _ = cli(capsys, "check", out, "--json")
            (doc,) = json.loads(text)
            assert doc["integrity"]["cached_results_stale"] == []
            assert "p_min_rolling_window = 2" in doc["integrity"]["parameters_changed"][0]


@pytest.mark.engines
@pytest.mark.parametrize("engine", ENGINES)
def test_moving_the_evaluation_year_selects_a_column_and_keeps_the_data(engine, request, tmp_path, capsys):
    request.getfixturevalue(engine)
    case = load_case(SAMPLE)
    path = build_workbook(tmp_path / "b.xlsx", case=case)
    before = openpyxl.load_workbook(path, data_only=True)[SHEETS["inputs"]]
    wb = openpyxl.load_workbook(path)
    wb[SHEETS["inputs"]]["E3"].value = 2024
    edited = tmp_path / "moved.xlsx"
    wb.save(edited)
    out = _recalc(engine, edited, tmp_path)
    values = openpyxl.load_workbook(out, data_only=True)
    after = values[SHEETS["inputs"]]
    model = model_for(case.policy)
    layout = Layout(model, 2023, *timeline(model, 2023, case.years))
    for row in list(layout.inputs.values()) + [HEADER_ROW]:  # the data and its years did not move
        for y in layout.years:
            c = layout.col_of(y) + 1
            assert after.cell(row + 1, c).value == before.cell(row + 1, c).value, (row, y)
    read = read_workbook(out)
    assert read.case.evaluation_year == 2024 and read.case.years[2023] == case.years[2023]
    rep = evaluate(read.case)
    _close(_outputs(values), _want(rep))
    assert rep.min_cash_dividend != evaluate(case).min_cash_dividend  # another year: other numbers
    code, text, err = cli(capsys, "check", out, "--json")
    (doc,) = json.loads(text)
    assert doc["integrity"]["cached_results_stale"] == [] and doc["integrity"]["formulas_changed"] == []
    assert doc["evaluation_year"] == 2024


@pytest.mark.engines
@pytest.mark.parametrize("engine", ENGINES)
def test_a_changed_editable_parameter_is_used_everywhere_and_by_check(engine, request, tmp_path, capsys):
    """30% → 25% of the three-year average: the minimum moves, in the workbook and in `check`."""
    request.getfixturevalue(engine)
    case = load_case(SAMPLE)
    path = build_workbook(tmp_path / "b.xlsx", case=case)
    edited, _row, before = _with_param(path, tmp_path / "param.xlsx", "p_min_rolling_ratio", 0.25)
    assert before == 0.3
    out = _recalc(engine, edited, tmp_path)
    values = openpyxl.load_workbook(out, data_only=True)
    want = evaluate(case, params={"min_rolling.ratio": 0.25})
    plan = evaluate(case)
    rolling = lambda rep: next(r for r in rep.rules if r.id == "min_rolling")
    # 25% and 30% of the same three-year average: the required amounts are in the ratio 5 : 6
    assert rolling(want).required == pytest.approx(rolling(plan).required * 25 / 30, abs=0.01)
    checks = values[SHEETS["checks"]]
    got_required = next(checks.cell(r, 7).value for r in range(1, checks.max_row + 1) if checks.cell(r, 1).value == "min_rolling")
    assert got_required == pytest.approx(rolling(want).required, abs=0.001)
    _close(_outputs(values), _want(want))
    code, text, err = cli(capsys, "check", out, "--json")
    (doc,) = json.loads(text)
    integ = doc["integrity"]
    assert integ["cached_results_stale"] == [] and integ["formulas_changed"] == []
    assert len(integ["parameters_changed"]) == 1 and "p_min_rolling_ratio = 0.25" in integ["parameters_changed"][0]
    assert integ["trusted"] is False
    assert _outputs(values)["model_params_ok"] == "请检查"


def test_a_changed_fixed_parameter_is_a_change_to_the_model(tmp_path):
    path = build_workbook(tmp_path / "b.xlsx", case=load_case(SAMPLE))
    edited, _row, _before = _with_param(path, tmp_path / "fen.xlsx", "p_precision_fen", 0.1)
    read = read_workbook(edited)
    assert any("p_precision_fen: a fixed parameter changed to 0.1" in t for t in read.tampered)
    assert read.params == {}


def test_a_parameter_that_is_not_a_number_names_its_cell(tmp_path, capsys):
    path = build_workbook(tmp_path / "b.xlsx", case=load_case(SAMPLE))
    edited, row, _before = _with_param(path, tmp_path / "bad.xlsx", "p_min_rolling_ratio", "三成")
    code, out, err = cli(capsys, "check", edited)
    assert code == 2 and out == "" and "Traceback" not in err
    assert f"参数!D{row}" in err and "p_min_rolling_ratio" in err and "'三成'" in err


def test_the_evaluator_takes_the_timeline_years_one_by_one():
    """evaluate_timeline's column for a year is evaluate() of that year (attestations: the evaluation year's)."""
    import dataclasses

    from xlmodel.evaluator import evaluate_timeline
    from xlmodel.report.build import build_report

    case = load_case(SAMPLE)
    model = model_for(case.policy)
    years = [2022, 2023, 2024]
    env = evaluate_timeline(model, case, years)
    for j, y in enumerate(years):
        at = case if y == case.evaluation_year else dataclasses.replace(case, evaluation_year=y, attestations={})
        want = evaluate(at)
        got = build_report(model, env, j, at)
        assert [(r.id, r.status, r.actual, r.required) for r in got.rules] == \
               [(r.id, r.status, r.actual, r.required) for r in want.rules]
        assert (got.min_cash_dividend, got.max_distribution) == (want.min_cash_dividend, want.max_distribution)


def test_outputs_are_read_from_the_evaluation_years_column(tmp_path):
    wb = openpyxl.load_workbook(build_workbook(tmp_path / "b.xlsx", case=load_case(SAMPLE)))
    ws = wb[SHEETS["summary"]]
    formulas = {ws.cell(r, 1).value: ws.cell(r, 3).value for r in range(1, ws.max_row + 1)}
    for name, out, *_ in OUTPUTS:
        f = formulas[out]
        if name in ("cash_conditions_met", "st_risk_warning"):  # a yes/no: the same read, as 1/0 shown 是/否 (issue 23.7)
            index = f[len("=IF("):f.index('=""')]
            assert f == f'=IF({index}="","",IF({index},1,0))', out
            f = "=" + index
        assert f.startswith("=INDEX('计算'!$G$") and f.endswith(",1,calc_eval_index)"), out


def test_evaluate_by_year_gives_the_workbooks_years(capsys):
    """`evaluate --by-year`: one entry per year of the plan period, the evaluation year's equal to the main
    report, the others to evaluate() of that year without the evaluation year's attestations."""
    import dataclasses

    case = load_case(SAMPLE)
    code, out, _ = cli(capsys, "evaluate", SAMPLE, "--by-year", "--json")
    (doc,) = json.loads(out)
    assert [y["fiscal_year"] for y in doc["by_year"]] == [2022, 2023, 2024]
    for y in doc["by_year"]:
        at = case if y["fiscal_year"] == 2023 else dataclasses.replace(case, evaluation_year=y["fiscal_year"], attestations={})
        rep = evaluate(at)
        assert (y["overall_status"], y["min_cash_dividend"], y["max_distribution"]) == \
               (rep.overall_status, rep.min_cash_dividend, rep.max_distribution)
        assert y["rules"] == {r.id: r.status for r in rep.rules}
    mine = doc["by_year"][1]
    assert (mine["overall_status"], mine["min_cash_dividend"]) == (doc["overall_status"], doc["min_cash_dividend"])
    code, text, _ = cli(capsys, "evaluate", SAMPLE, "--by-year")
    assert "逐年结果 By year" in text and "2023 ◀" in text


@pytest.mark.parametrize("raw, says", [("二〇二〇", "expected a year such as 2024"), (1800, "expected a year such as 2024"),
                                       (2020.5, "expected a year such as 2024"), (True, "expected a year such as 2024")])
def test_a_first_year_that_is_not_a_year_names_its_cell(tmp_path, capsys, raw, says):
    wb = openpyxl.load_workbook(build_workbook(tmp_path / "b.xlsx", case=load_case(SAMPLE)))
    wb[SHEETS["inputs"]]["E5"].value = raw
    edited = tmp_path / "first.xlsx"
    wb.save(edited)
    code, out, err = cli(capsys, "check", edited)
    assert code == 2 and out == "" and "Traceback" not in err
    assert "输入!E5" in err and "first fiscal year" in err and says in err


def test_an_evaluation_year_outside_the_evaluated_years_is_an_error(tmp_path, capsys):
    wb = openpyxl.load_workbook(build_workbook(tmp_path / "b.xlsx", case=load_case(SAMPLE)))
    wb[SHEETS["inputs"]]["E3"].value = 2021  # a history column: the windows have no data before it
    edited = tmp_path / "early.xlsx"
    wb.save(edited)
    code, out, err = cli(capsys, "check", edited)
    assert code == 2 and out == "" and "Traceback" not in err
    assert "输入!E3" in err and "2021 is not an evaluated year" in err and "2022–2024" in err


def test_a_moved_timeline_name_is_a_change_to_the_workbook(tmp_path):
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.load_workbook(build_workbook(tmp_path / "b.xlsx", case=load_case(SAMPLE)))
    wb.defined_names["in_years"] = DefinedName("in_years", attr_text="'输入'!$E$5:$H$5")  # one year short
    edited = tmp_path / "years.xlsx"
    wb.save(edited)
    read = read_workbook(edited)
    assert any(t.startswith("in_years → '输入'!$E$5:$H$5: expected '输入'!$E$5:$I$5") for t in read.tampered), read.tampered
