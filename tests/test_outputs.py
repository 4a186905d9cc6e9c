"""The table of outputs (xlmodel/outputs.py) is the one source of every headline output's and rule
part's label, unit and name: the report, the JSON, the batch's columns and labels, the worksheet
functions' help, the workbook reader and ``check`` read it, and no other module spells a headline
output's Chinese label."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from xlmodel.rules import catalogue as cat
from xlmodel import outputs, udfs
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.batch.table import read_table
from xlmodel.batch.results import OUTPUT_COLUMNS, RULE_PART_LABELS, RULE_PARTS, SCREEN_OMITS, column_labels
from xlmodel.batch.output import AMOUNT_COLUMNS, is_amount_column
from xlmodel.case import load_case
from xlmodel.evaluator import evaluate
from xlmodel.report.terminal import render_by_year, render_table
from xlmodel.report.markdown import render_markdown
from xlmodel.workbook.integrity import SUMMARY_HEAD
from xlmodel.workbook.layout import OUTPUTS as LAYOUT_OUTPUTS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "xlmodel"
GCL = ROOT / "samples" / "gcl-energy-2022-2024.yaml"


@pytest.fixture(scope="module")
def rep():
    return evaluate(load_case(GCL))


def test_the_labels_as_written_by_hand():
    """The table's wordings, spelt out here once more by hand (the contract the samples show)."""
    o = outputs.OUTPUT
    assert (o["min_cash_dividend"].label_zh, o["min_cash_dividend"].label_en) == ("最低现金分红（元）", "Minimum cash dividend (元)")
    assert o["min_cash_dividend"].short == "最低现金分红 Minimum cash dividend"
    assert o["min_cash_dividend"].heading == "最低现金分红 Minimum cash dividend"
    assert o["st_risk_warning"].label_zh == "触发交易所低分红风险警示（空白=不适用）"
    assert o["st_risk_warning"].label_en == "Exchange low-dividend risk warning (blank = out of scope)"
    assert o["overall_status"].short == "总体结论 Overall"
    assert o["fail_count"].label_zh == "不通过规则数" and o["fail_count"].unit == "项"
    assert o["min_cash_dividend"].name == "out_min_cash_dividend"
    assert [p.heading for p in outputs.RULE_PARTS] == ["规则 Rule", "条款 Clause", "状态 Status", "实际 Actual",
                                                        "界限 Bound", "余量 Margin", "差额 Shortfall"]
    assert outputs.COLUMN_PARTS == ("status", "actual", "bound", "margin", "shortfall")
    assert outputs.PART["bound"].calc == "required" and outputs.PART["bound"].json_alias == "required"
    # the workbook's board page (封面) and chart wordings, and its master check
    assert o["cash_conditions_met"].board == ("现金分红条件满足", "Conditions met")
    assert o["overall_status"].board == ("总体结论", "Overall result")  # default: the label
    assert o["min_cash_dividend"].chart == ("最低要求", "Minimum")
    assert (outputs.MODEL_CHECK.name, outputs.MODEL_CHECK.short, outputs.MODEL_CHECK.board) == (
        "out_model_check", "模型总检查 Master check", ("模型检查", "Model check"))


def test_every_output_is_well_formed():
    ids = [o.id for o in outputs.SUMMARY]
    assert len(ids) == len(set(ids))
    for o in outputs.SUMMARY:
        assert o.kind in outputs.KINDS
        assert o.unit == {"status": "状态", "yes_no": "是/否", "amount": "元", "count": "项"}[o.kind]
        assert re.fullmatch(r"[a-z_]+", o.id) and o.zh and o.en
        if o.udf:
            assert o.help_zh and o.help_en and re.fullmatch(r"XLM_[A-Z_]+", o.udf)
    assert set(outputs.SCREEN_OMITS) <= {o.id for o in outputs.HEADLINE}
    assert [k for k in outputs.JSON_HEADLINE if k in outputs.OUTPUT] == [
        o.id for o in outputs.HEADLINE if o.id in outputs.JSON_HEADLINE]


def test_the_tuples_the_workbook_reads_are_the_table():
    want = tuple((o.id, o.name, o.label_zh, o.label_en) for o in outputs.HEADLINE)
    assert cat.OUTPUTS == want and LAYOUT_OUTPUTS == want


def test_the_report_shows_each_label_from_the_table(rep):
    text, md, wide = render_table(rep, width=120, color=False), render_markdown(rep), render_table(rep, wide=True, color=False)
    for o in outputs.HEADLINE:
        label = o.short if o.kind != "count" else f"{o.short}: "
        assert label in text and label in wide, o.id
    for o in (outputs.OUTPUT[k] for k in ("overall_status", "min_cash_dividend", "max_distribution", "st_risk_warning")):
        assert f"- {o.short}: " in md
    # the figure beside its label, worked out by hand for the GCL sample (README: 85,509,212.89 元)
    assert "最低现金分红 Minimum cash dividend: 85,509,212.89 元" in text
    for p in outputs.RULE_PARTS:
        assert p.heading in wide and p.heading in md
    by_year = render_by_year([rep], rep.evaluation_year)
    assert "最低现金分红 Minimum cash dividend" in by_year and "利润分配上限 Maximum distribution" in by_year


def test_the_json_has_each_key_and_the_bound_under_both_names(rep):
    d = json.loads(json.dumps(rep.to_output(), ensure_ascii=False, default=str))
    assert list(d)[:len(outputs.JSON_HEADLINE)] == list(outputs.JSON_HEADLINE)
    for o in outputs.HEADLINE:
        assert o.json_key in d
    assert d["min_cash_dividend"] == pytest.approx(85_509_212.89, abs=0.005)
    for r in d["rules"]:
        for p in outputs.RULE_PARTS:
            assert p.json_key in r, (r["id"], p.id)
        assert r["bound"] == r["required"]  # "required": the documented alias of "bound"


def test_the_batch_columns_and_their_labels_are_the_tables():
    out = evaluate_batch(read_table(ROOT / "samples" / "company_years.csv"))
    assert list(OUTPUT_COLUMNS) == [o.column for o in outputs.HEADLINE]
    assert set(OUTPUT_COLUMNS) <= set(out.columns)
    info = out.attrs["columns"]
    for o in outputs.HEADLINE:
        assert (info[o.column]["zh"], info[o.column]["en"], info[o.column]["units"]) == (o.label_zh, o.label_en, [o.unit])
    assert set(AMOUNT_COLUMNS) == {"min_cash_dividend", "max_distribution", "cash_needed_to_avoid_st"}
    assert is_amount_column("min_annual.bound") and is_amount_column("min_annual.required")
    assert not is_amount_column("min_annual.status")
    assert RULE_PARTS == outputs.COLUMN_PARTS and RULE_PART_LABELS["bound"] == ("界限", "bound")
    assert SCREEN_OMITS == ("in_plan_period", "cash_conditions_met", "min_cash_dividend")
    rule_cols = [c for c in out.columns if c.endswith(".bound")]
    assert rule_cols and not [c for c in out.columns if c.endswith(".required")]
    assert column_labels(["min_cash_dividend"], [])["min_cash_dividend"]["zh"] == "最低现金分红（元）"


def test_the_worksheet_functions_take_name_help_and_output_from_the_table():
    table = {o.udf: o for o in outputs.HEADLINE if o.udf}
    assert udfs.SCALAR_FUNCTIONS == {name: o.id for name, o in table.items()}
    for name, o in table.items():
        fn = getattr(udfs, name)
        assert fn.__doc__ == o.help_zh + o.help_en
        assert fn.__doc__.startswith(o.help_zh)  # Chinese first
    assert udfs.TABLE_HEADER == ("规则 Rule", "条款 Clause", "状态 Status", "实际 Actual", "界限 Bound", "差额 Shortfall")
    assert "最低现金分红 Minimum cash dividend (元)" in udfs.PLAN_HEADER


def test_the_workbook_sheets_show_the_tables_labels():
    """汇总 and 封面 of the GCL sample: each named result's labels and name, the board page's wording, the
    rule parts' headings — as spelt by hand here."""
    import openpyxl

    wb = openpyxl.load_workbook(ROOT / "samples" / "gcl-energy-2022-2024.xlsx")
    summary = {(r[0].value, r[1].value, r[3].value) for r in wb["汇总"].iter_rows() if r[0].value}
    per_year = {(r[0].value, r[1].value) for r in wb["汇总"].iter_rows() if r[0].value}
    for o in outputs.SUMMARY:
        assert (o.name, o.label_zh, o.label_en) in summary, o.id
    assert ("out_min_cash_dividend", "最低现金分红（元）", "Minimum cash dividend (元)") in summary
    # the per-year table, in 元 as every amount of 汇总 and 封面 is (issue 52.3: one unit per page, stated)
    assert {("Minimum cash dividend (元)", "最低现金分红（元）"), ("Overall result", "总体结论"),
            ("Cash dividend conditions met", "现金分红条件满足"), ("Rules failed", "不通过规则数")} <= per_year
    assert ("out_model_check", "模型总检查 Master check", "Master check of the model") in summary
    cover = {r[1].value for r in wb["封面"].iter_rows() if len(r) > 1}
    assert {"总体结论 Overall result", "现金分红条件满足 Conditions met", "最低现金分红（元）Minimum cash (元)",
            "利润分配上限（元）Maximum distribution (元)", "低分红风险警示 Exchange risk warning",
            "不通过 / 警告 / 缺少输入 Failed / warnings / missing", "模型检查 Model check"} <= cover
    heads = {c.value for r in wb["检查"].iter_rows(max_row=5) for c in r}
    assert {p.heading for p in outputs.RULE_PARTS} <= heads


def test_check_summary_heads_the_minimum_with_the_tables_label():
    assert ("最低现金分红", "Minimum cash dividend") in SUMMARY_HEAD


# ---- one source: no module but outputs.py spells a headline output's Chinese label ------------------

#: draft/ quotes plans' own wording
NOT_OUTPUTS = ("draft/",)
#: a short label that is also the name of something else: 现金分红条件, the conditions themselves
TERMS = {"现金分红条件"}


def _labels() -> list[str]:
    """Each headline output's Chinese label, and the report's shorter wording where it names the
    output alone (not a status word such as 警告, nor the term 现金分红条件)."""
    out = {o.zh for o in outputs.HEADLINE}
    out |= {o.short_zh for o in outputs.HEADLINE if len(o.short_zh) >= 6 and o.short_zh not in TERMS}
    return sorted(out, key=len, reverse=True)


def _spelt(text: str, rx: re.Pattern) -> bool:
    return bool(rx.search(text.strip()))


def _label_literals(path: Path, rx: re.Pattern) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [f"{path.relative_to(PACKAGE)}:{n.lineno}: {n.value[:60]!r}" for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs and _spelt(n.value, rx)]


def _label_rx() -> re.Pattern:
    """A text that is a label: the label alone, or first (after Markdown's "- " or "| ") followed by a
    space, a bracket or a colon — 最低现金分红（元）, 最低现金分红 Minimum…, "- 最低现金分红：…"."""
    return re.compile(r"^(?:[-|]\s*)?(?:" + "|".join(map(re.escape, _labels())) + r")(?:$|[ （(:：])")


def test_the_grep_finds_a_label_spelt_out():
    rx = _label_rx()
    assert _spelt("最低现金分红（元）", rx) and _spelt("- 利润分配上限：", rx) and _spelt("总体结论", rx)
    assert not _spelt("不可行：最低现金分红 1 元超过上限", rx)  # a sentence that mentions the output
    assert not _spelt("每股最低现金分红", rx)  # another quantity


def test_no_module_but_the_table_spells_a_headline_label():
    rx = _label_rx()
    found = []
    for f in sorted(PACKAGE.rglob("*.py")):
        rel = str(f.relative_to(PACKAGE))
        if f.name == "outputs.py" or rel.startswith(NOT_OUTPUTS):
            continue
        found += _label_literals(f, rx)
    assert found == []
