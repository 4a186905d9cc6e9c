"""Issue 46.3: the parent company's own net profit (母公司报表净利润, ``net_profit_parent``).

A plan that words a condition on the parent's own statements (母公司报表净利润为正) is ruled on the parent's own
net profit — never on the consolidated net profit attributable — in the evaluator, the workbook (LibreOffice
and Gnumeric), the batch and the drafter. Expected figures are worked by hand in the comments.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import openpyxl
from openpyxl.utils import range_boundaries
import pandas as pd
import pytest
import yaml

from test_regulatory import M, gcl
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.case import load_case
from xlmodel.batch.columns import read_header
from xlmodel.draft import draft_text
from xlmodel.evaluator import evaluate
from xlmodel.fields import FIELDS, SOURCES
from xlmodel.plans.loading import load_policy_file
from xlmodel.workbook.layout import SHEETS

ROOT = Path(__file__).resolve().parents[1]
PLAN = "acme-parent-2022-2024"
#: the GCL sample (FY2023): distributable profit 855,092,128.94 → the plan's minimum 10% of it, 85,509,212.89;
#: the year's cash 205,588,571.24 is above it (tests/test_cli.py)
GCL_MIN_CASH, GCL_CASH = 85_509_212.89, 205_588_571.24
PARENT_RULE = {"id": "cond_parent_profitable", "kind": "positive", "measure": "net_profit_parent",
               "clause": "三、(二)、1、(1)", "quote": "母公司报表净利润为正",
               "title_zh": "母公司报表净利润为正", "title_en": "The parent company's own net profit is positive"}


def _plan(folder: Path):
    """The GCL plan with one more cash-dividend condition: the parent's own net profit is positive."""
    data = yaml.safe_load((ROOT / "templates" / "gcl-energy-2022-2024.yaml").read_text(encoding="utf-8"))
    data["id"] = PLAN
    data.pop("text")
    data["rules"].insert(1, dict(PARENT_RULE))
    path = folder / f"{PLAN}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return load_policy_file(path)


def _case(parent_profit: float | None, before: float | None = None):
    """The GCL sample (FY2023) with the parent's own net profit of 2023 (and, ``before``, of 2022)."""
    c = load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml")
    years = {y: dict(f) for y, f in c.years.items()}
    if parent_profit is not None:
        years[c.evaluation_year]["net_profit_parent"] = parent_profit
    if before is not None:
        years[c.evaluation_year - 1]["net_profit_parent"] = before
    return dataclasses.replace(c, policy=PLAN, years=years)


#: the units check's jump at its boundary: 2022's 250,000,000.00 is 1,000 × 250,000.00 (a signal, 不通过) and less
#: than 1,000 × 250,000.01 = 250,000,010.00 (none)
JUMP = ((250_000.00, 250_000_000.00, "fail"), (250_000.01, 250_000_000.00, "pass"))


@pytest.mark.parametrize("parent, before, status", JUMP)
def test_the_units_check_at_the_jump_boundary_of_the_parents_net_profit(tmp_path, parent, before, status):
    rep = evaluate(_case(parent, before), _plan(tmp_path))
    assert _rule(rep, "reg_amounts_plausible").status == status
    assert _rule(rep, "cond_parent_profitable").status == "met"


def _rule(rep, rid):
    return next(r for r in rep.rules if r.id == rid)


# ---- the field ---------------------------------------------------------------------------------------------

def test_the_field_is_an_amount_in_yuan_read_from_the_parents_own_income_statement():
    f = FIELDS["net_profit_parent"]
    assert (f.zh, f.unit_zh, f.per_year) == ("母公司报表净利润", "元", True)
    assert SOURCES["net_profit_parent"].startswith("母公司利润表「净利润」") and "不是合并" in SOURCES["net_profit_parent"]


# ---- the condition at its boundary, in the evaluator ----------------------------------------------------------

@pytest.mark.parametrize("parent, status, min_status", [
    (0.00, "not_met", "not_applicable"),  # 0.00 > 0 is false: a condition not met, the minimum not required
    (0.01, "met", "pass"),                # 0.01 > 0: met; the minimum applies, 205,588,571.24 ≥ 85,509,212.89
    (-0.01, "not_met", "not_applicable"),
])
def test_the_parent_net_profit_condition_at_zero(tmp_path, parent, status, min_status):
    policy = _plan(tmp_path)
    rep = evaluate(_case(parent), policy)
    cond, minimum = _rule(rep, "cond_parent_profitable"), _rule(rep, "min_annual")
    assert (cond.status, cond.actual) == (status, parent)
    assert (minimum.status, minimum.actual, minimum.required) == (min_status, GCL_CASH, GCL_MIN_CASH)


def test_the_consolidated_profit_never_stands_in_for_the_parents(tmp_path):
    # the sample's consolidated net profit attributable is positive; without the parent's own figure the
    # condition is missing, never met, and the year is not 通过
    rep = evaluate(_case(None), _plan(tmp_path))
    cond = _rule(rep, "cond_parent_profitable")
    assert cond.status == "missing_input" and cond.missing_inputs == ["net_profit_parent 母公司报表净利润 (2023)"]
    assert rep.overall_status != "pass"


# ---- the workbook: an input row with validation, and parity in both engines ---------------------------------

def test_the_input_sheet_has_a_validated_row_with_label_unit_and_prompt(tmp_path):
    from xlmodel.workbook.writer import build_workbook

    path = build_workbook(tmp_path / "p.xlsx", policy=_plan(tmp_path), case=_case(0.01))
    wb = openpyxl.load_workbook(path)
    ws = wb[SHEETS["inputs"]]
    [row] = [r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "net_profit_parent"]
    labels = [ws.cell(row, k).value for k in range(1, 6)]
    assert "母公司报表净利润" in labels and "元" in labels
    bounds = [(dv, range_boundaries(rg.coord)) for dv in ws.data_validations.dataValidation for rg in dv.sqref.ranges]
    [dv] = {id(dv): dv for dv, (c0, r0, c1, r1) in bounds if r0 <= row <= r1}.values()  # one rule on the row
    assert (dv.type, dv.promptTitle) == ("decimal", "母公司报表净利润") and "母公司利润表" in dv.prompt
    assert "in_net_profit_parent" in wb.defined_names


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_the_workbook_rules_the_boundary_alike_in_both_engines(engine, request, tmp_path):
    """0.00 and 0.01, and the units check's jump at its boundary, as workbooks: every formula cell and every status
    equal the evaluator's."""
    from conftest import engine_values
    from xlmodel.engines.parity import compare
    from xlmodel.workbook.writer import build_workbook

    request.getfixturevalue(engine)
    policy = _plan(tmp_path)
    cases = [_case(0.00), _case(0.01)] + [_case(parent, before) for parent, before, _ in JUMP]
    built = [(c, build_workbook(tmp_path / f"p{k}.xlsx", policy=policy, case=c)) for k, c in enumerate(cases)]
    theirs = engine_values(engine, [p for _, p in built], tmp_path / engine)
    compared = [compare(engine, c, p, None, policy=policy, theirs_values=theirs[p.name]) for c, p in built]
    assert not [str(m) for x in compared for m in x.differences]
    assert [_rule(evaluate(c, policy), "cond_parent_profitable").status for c in cases] == ["not_met", "met", "met", "met"]
    assert [_rule(evaluate(c, policy), "reg_amounts_plausible").status for c in cases[2:]] == ["fail", "pass"]


# ---- the batch's columns ---------------------------------------------------------------------------------------

def test_the_batch_reads_the_parent_net_profit_and_refuses_the_ambiguous_header():
    h = read_header("母公司报表净利润")
    assert (h.field, h.factor, h.problem) == ("net_profit_parent", 1.0, None)
    refused = read_header("母公司净利润")  # 归母净利润 to many: never read as either figure
    assert refused.problem and "net_profit_parent" in refused.problem and "net_profit_attributable" in refused.problem


# ---- the units check: a jump between years -------------------------------------------------------------------

def test_a_parent_net_profit_a_thousand_times_its_neighbour_year_fails_the_units_check():
    # 2023 400,000,000; 2024 400,000 (typed in 千元?): 400,000,000 / 400,000 = 1,000 times → a jump → fail
    r = gcl({2023: {"net_profit_parent": 400 * M}, 2024: {"net_profit_parent": 0.4 * M}}).rule("reg_amounts_plausible")
    assert r.status == "fail" and "母公司报表净利润相邻两年相差 1,000 倍以上" in r.explanation_zh
    # 400,000,000 / 400,400 = 999.0 times: no signal
    r = gcl({2023: {"net_profit_parent": 400 * M}, 2024: {"net_profit_parent": 400_400.0}}).rule("reg_amounts_plausible")
    assert r.status == "pass"
    # one year alone (the other blank): no signal, the rule never waits for it
    assert gcl({2024: {"net_profit_parent": 0.4 * M}}).rule("reg_amounts_plausible").status == "pass"


# ---- the drafter ---------------------------------------------------------------------------------------------

TEXT = ("某某股份有限公司未来三年（2024-2026年）股东分红回报规划\n一、现金分红的条件\n公司实施现金分红应同时满足下列条件：\n"
        "1、母公司报表净利润为正；\n2、母公司报表累计未分配利润为正。\n二、现金分红的比例\n"
        "公司每年以现金方式分配的利润不少于母公司当年实现的净利润的10%。\n")


def test_the_drafter_rules_the_parent_statement_on_the_parents_own_figures():
    d = draft_text(TEXT, years=(2024, 2026))
    rules = {r["id"]: r for r in d.policy["rules"]}
    assert (rules["cond_parent_profitable"]["kind"], rules["cond_parent_profitable"]["measure"]) == \
        ("positive", "net_profit_parent")
    assert rules["cond_parent_profitable"]["quote"] == "母公司报表净利润为正"
    assert rules["min_annual"]["components"] == [{"type": "pct", "ratio": 0.1, "basis": "net_profit_parent"}]
    assert d.policy["settings"]["retained_earnings_basis"] == "parent"
    assert not [r for r in d.policy["rules"] if r.get("measure") == "net_profit_attributable"]
    assert d.reviews == []  # nothing left to review: the field exists
