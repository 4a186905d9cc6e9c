"""The catalogue's capabilities of issue 12 §1, each as parameters of kinds (no per-company code).

Two invented plans use them, as data only, with plan texts whose clauses they cite (the wording
taken from ../shared/real-plans/plans.yaml): tests/data/fifth_plan/demo5-2025-2027.yaml and
tests/data/sixth_plan/demo6-2024-2026.yaml. Small plans built in the tests isolate a boundary.
Every expected number is worked out by hand from the plan's wording; the arithmetic is beside it.
Amounts in 元.

1. major outlay: strict or inclusive ratio and floor (``ratio_op``, ``floor_op``)
2. major outlay as OR of branches, revenue as a basis (``branches``)
3. plan-period window (``min_cash_plan_period``)
4. per-share floor on dividends only; total-distribution floor (``min_cash.measure``)
5. cumulative instead of average basis (``basis_mode``), ratios above 100% of an average
6. cancelled buybacks only (``settings.cash_buyback_basis``)
7. payout ceiling and interim cap (``compare`` with the new field ``half_year_net_profit_attributable``)
8. distributions per year (``min_distributions``, field ``distribution_count``)
9. year-specific ratios (``pct`` component ``by_year``)
10. either-of minimums and OR-groups of conditions (``any_of``)
11. targets and flag-only tests (``raises_minimum: false``)
12. fields ``cash_and_equivalents`` and ``registered_capital`` in ``compare``

The end of the file recalculates workbooks of both plans in LibreOffice and Gnumeric (``engines``).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from conftest import case, formulas as _formulas
from xlmodel.rules.model import REASONS
from xlmodel.errors import PolicyError
from xlmodel.evaluator import evaluate, evaluate_years, model_for
from xlmodel.plans.schema import Policy
from xlmodel.plans.loading import load_policy_file

DATA = Path(__file__).parent / "data"
FIFTH = DATA / "fifth_plan" / "demo5-2025-2027.yaml"
SIXTH = DATA / "sixth_plan" / "demo6-2024-2026.yaml"
SEVENTH = DATA / "seventh_plan" / "demo7-2025-2027.yaml"  # its own tests: tests/test_outlay_both_tests_lower_profit_fixed_amount.py
EIGHTH = DATA / "eighth_plan" / "demo8-2025-2027.yaml"  # its own tests: tests/test_distributable_lower_and_transaction_tests.py
_DROP = object()


@pytest.fixture(scope="module")
def fifth():
    return load_policy_file(FIFTH)


@pytest.fixture(scope="module")
def sixth():
    return load_policy_file(SIXTH)


def _years(base: dict, **changes) -> dict:
    """``base`` with ``changes`` as ``{year: {field: value}}`` (``_DROP`` removes a field)."""
    ys = copy.deepcopy(base)
    for y, vals in changes.items():
        y = int(y.lstrip("y"))
        ys.setdefault(y, {})
        for k, v in vals.items():
            if v is _DROP:
                ys[y].pop(k, None)
            else:
                ys[y][k] = v
    return ys


def run(policy, year: int, years: dict, **kw):
    return evaluate(case(policy.id, year, years), policy, **kw)


def statuses(rep) -> dict:
    return {r.id: r.status for r in rep.rules}


def mini(rules: list[dict], *, major_outlay: dict | None = None, settings: dict | None = None,
         plan_years=(2025, 2027)) -> Policy:
    """A plan of a few rules, all citing clause 一 (no text: quotes are not checked)."""
    return Policy.model_validate(_mini_data(rules, major_outlay, settings, plan_years))


def _mini_data(rules, major_outlay=None, settings=None, plan_years=(2025, 2027)) -> dict:
    data = {"id": "mini-2025-2027", "version": "0", "title_zh": "测试规划", "title_en": "test plan",
            "plan_years": list(plan_years), "settings": {"regulatory_baseline": None, **(settings or {})},
            "clauses": {"一": {"treatment": "computed"}},
            "rules": [{"clause": "一", "quote": "测试条款原文", "title_zh": r["id"], "title_en": r["id"], **r} for r in rules]}
    if major_outlay:
        data["major_outlay"] = {"clause": "一", "quote": "测试条款原文", "definition": "formula", **major_outlay}
    return data


def load_errors(tmp_path, data: dict) -> list[str]:
    p = tmp_path / "mini-2025-2027.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy_file(p)
    return [str(pr) for pr in e.value.problems]


# =====================================================================================================
# the fifth plan: baseline (evaluation year 2025, all conditions met)
# =====================================================================================================

Y5 = {
    2023: {"net_profit_attributable": 90_000_000, "cash_dividend": 50_000_000},
    2024: {"net_profit_attributable": 95_000_000, "cash_dividend": 60_000_000},
    2025: {
        "net_profit_attributable": 100_000_000,
        "retained_earnings_consolidated": 500_000_000, "retained_earnings_parent": 400_000_000,
        "audit_opinion": "standard_unqualified",
        "net_assets": 1_000_000_000,  # b1: 30% = 300,000,000
        "total_assets": 3_000_000_000,  # b2: 20% = 600,000,000
        "revenue": 2_000_000_000,  # b3: 10% = 200,000,000
        "planned_major_outlay": 10_000_000,  # below every branch
        "operating_cash_flow": 80_000_000, "cash_and_equivalents": 200_000_000,
        "registered_capital": 100_000_000,  # 20% = 20,000,000 ≤ 80,000,000
        "share_count": 500_000_000,  # 0.10 元 × 500,000,000 = 50,000,000
        "cash_dividend": 70_000_000,
        "distribution_count": 2,
    },
}


def test_fifth_plan_loads_with_its_text(fifth):
    assert fifth.text == "texts/demo5-2025-2027.txt"
    assert fifth.settings.cash_buyback_basis == "buyback_cancelled"
    assert [b.basis for b in fifth.major_outlay.branches] == ["net_assets", "total_assets", "revenue"]
    kinds = {r.kind for r in fifth.rules}
    assert {"any_of", "min_cash_plan_period", "min_distributions", "min_cash", "compare"} <= kinds


def test_fifth_plan_baseline(fifth):
    rep = run(fifth, 2025, Y5)
    assert statuses(rep) == {
        "cond_profitable": "met", "cond_retained_positive": "met", "cond_audit_opinion": "met",
        "cond_no_major_outlay": "met",
        "cond_ocf_positive": "met", "cond_cash_positive": "met",  # the alternatives: met / not met
        "cond_ocf_registered_capital": "met",  # 80m ≥ 20% × 100m = 20m
        "cond_cash_flow_or_cash": "met",
        "min_annual": "pass",  # 70m ≥ 65% × 100m = 65m (2025)
        "min_per_share": "pass",  # dividends 70m ≥ 0.10 × 500m = 50m
        "min_plan_period": "not_applicable",  # checked in 2027
        "target_payout": "warn",  # 70m < about 80% × 100m = 80m: informs
        "payout_ceiling": "pass",  # 70m ≤ 90m
        "two_distributions": "pass",  # 2 ≥ 2
        "interim_cap": "not_applicable",  # no interim dividend
        "distribution_cap": "pass", "distribution_cap_interim": "not_applicable", "stock_dividend_vote": "not_applicable",
    }
    assert rep.cash_conditions_met is True
    assert rep.overall_status == "warn"  # the target warns; nothing fails
    # max(65m annual, 50m per share, plan period 0 before 2027); the target raises nothing
    assert rep.min_cash_dividend == 65_000_000.00


def test_every_clause_of_the_fifth_plan_is_accounted_for(fifth):
    from xlmodel.plans.text import plan_clauses

    assert set(plan_clauses(fifth)) == set(fifth.clauses)


# =====================================================================================================
# 1. strict or inclusive major-outlay test, ratio and floor separately
# =====================================================================================================

def _outlay_plan(**mo):
    return mini([{"id": "cond_no_major", "kind": "no_major_outlay"}], major_outlay={"basis": "net_assets", **mo})


@pytest.mark.parametrize("op, outlay, major", [
    # 达到或超过 30% of 1,000,000,000 = 300,000,000.00: exactly at the threshold is major
    (">=", 300_000_000.00, True), (">=", 299_999_999.99, False),
    # 超过: exactly at the threshold is not major, one fen above is
    (">", 300_000_000.00, False), (">", 300_000_000.01, True),
])
def test_ratio_op(op, outlay, major):
    p = _outlay_plan(ratio=0.30, ratio_op=op)
    r = run(p, 2025, {2025: {"net_assets": 1_000_000_000, "planned_major_outlay": outlay}}).rule("cond_no_major")
    assert r.required == 300_000_000.00
    assert r.status == ("not_met" if major else "met")


def test_ratio_op_on_a_threshold_rounded_half_up():
    # 30% × 1,000,000,000.05 = 300,000,000.015 → 300,000,000.02 (half up, DOMAIN §4)
    p = _outlay_plan(ratio=0.30, ratio_op=">=")
    years = lambda x: {2025: {"net_assets": 1_000_000_000.05, "planned_major_outlay": x}}  # noqa: E731
    assert run(p, 2025, years(300_000_000.01)).rule("cond_no_major").status == "met"
    r = run(p, 2025, years(300_000_000.02)).rule("cond_no_major")
    assert (r.required, r.status) == (300_000_000.02, "not_met")


@pytest.mark.parametrize("floor_op, outlay, major", [
    # ratio arm holds (1% × 1,000,000,000 = 10,000,000 ≤ outlay); the floor decides, joined by AND:
    (">", 50_000_000.00, False), (">", 50_000_000.01, True),  # 超过5,000万元
    (">=", 50_000_000.00, True), (">=", 49_999_999.99, False),  # 达到或超过5,000万元
])
def test_floor_op(floor_op, outlay, major):
    p = _outlay_plan(ratio=0.01, floor=50_000_000, floor_op=floor_op, combine="and")
    r = run(p, 2025, {2025: {"net_assets": 1_000_000_000, "planned_major_outlay": outlay}}).rule("cond_no_major")
    assert r.status == ("not_met" if major else "met")


def test_ops_default_to_todays_reading():
    mo = _outlay_plan(ratio=0.30, floor=1).major_outlay
    assert (mo.ratio_op, mo.floor_op) == (">=", ">")  # 达到或超过 the ratio; 超过 the floor


def test_sixth_plan_strict_ratio_inclusive_floor(sixth):
    # 超过 30% of net assets 200,000,000 = 60,000,000 (strict) AND 达到或超过 50,000,000 (inclusive)
    base = {2024: {"distributable_profit": 100_000_000, "net_assets": 200_000_000, "cash_dividend": 10_000_000}}
    at = lambda x: run(sixth, 2024, _years(base, y2024={"planned_major_outlay": x}), baseline=False)  # noqa: E731
    assert at(60_000_000.00).rule("cond_no_major_outlay").status == "met"  # not > 60m
    assert at(60_000_000.01).rule("cond_no_major_outlay").status == "not_met"
    # net assets 100,000,000: ratio arm 30,000,000; the inclusive floor decides
    small = _years(base, y2024={"net_assets": 100_000_000})
    at2 = lambda x: run(sixth, 2024, _years(small, y2024={"planned_major_outlay": x}), baseline=False)  # noqa: E731
    assert at2(50_000_000.00).rule("cond_no_major_outlay").status == "not_met"  # ≥ 50m and > 30m: major
    assert at2(49_999_999.99).rule("cond_no_major_outlay").status == "met"


def test_strict_op_is_named_on_the_parameter_sheet(sixth):
    params = model_for(sixth).params
    assert "超过" in params["major_outlay.ratio"].zh and params["major_outlay.ratio"].clause == "一、(2)"
    assert "达到或超过" in params["major_outlay.floor"].zh


# =====================================================================================================
# 2. major outlay as OR of branches (fifth plan, 二、(二)), revenue as a basis
# =====================================================================================================

def _outlay(fifth, **y2025):
    return run(fifth, 2025, _years(Y5, y2025=y2025)).rule("cond_no_major_outlay")


HIGH = {"net_assets": 100_000_000_000, "total_assets": 100_000_000_000, "revenue": 100_000_000_000}  # no branch near


def test_branch_1_net_assets_inclusive_ratio(fifth):
    # b1: ≥ 30% × 1,000,000,000 = 300,000,000 and > 50,000,000
    assert _outlay(fifth, **{**HIGH, "net_assets": 1_000_000_000}, planned_major_outlay=300_000_000).status == "not_met"
    assert _outlay(fifth, **{**HIGH, "net_assets": 1_000_000_000}, planned_major_outlay=299_999_999.99).status == "met"


def test_branch_1_strict_floor(fifth):
    # b1 with net assets 100,000,000: ratio arm 30,000,000; 超过5,000万元 decides
    y = {**HIGH, "net_assets": 100_000_000}
    assert _outlay(fifth, **y, planned_major_outlay=50_000_000).status == "met"
    assert _outlay(fifth, **y, planned_major_outlay=50_000_000.01).status == "not_met"


def test_branch_2_total_assets_strict(fifth):
    # b2: > 20% × 3,000,000,000 = 600,000,000
    # net assets 3,000,000,000 too (never above total assets): b1 needs ≥ 900,000,000, out of the way
    y = {**HIGH, "total_assets": 3_000_000_000, "net_assets": 3_000_000_000}
    assert _outlay(fifth, **y, planned_major_outlay=600_000_000).status == "met"
    assert _outlay(fifth, **y, planned_major_outlay=600_000_000.01).status == "not_met"


def test_branch_3_revenue_with_inclusive_floor(fifth):
    # b3: > 10% × 500,000,000 = 50,000,000 and ≥ 100,000,000 (达到或者超过1亿元)
    y = {**HIGH, "revenue": 500_000_000}
    assert _outlay(fifth, **y, planned_major_outlay=99_999_999.99).status == "met"
    assert _outlay(fifth, **y, planned_major_outlay=100_000_000).status == "not_met"
    # revenue 2,000,000,000: ratio arm 200,000,000 strict
    y = {**HIGH, "revenue": 2_000_000_000}
    assert _outlay(fifth, **y, planned_major_outlay=200_000_000).status == "met"
    assert _outlay(fifth, **y, planned_major_outlay=200_000_000.01).status == "not_met"


def test_branches_show_the_lowest_threshold_and_need_every_basis(fifth):
    r = _outlay(fifth)
    assert r.required == 200_000_000.00  # min(300m, 600m, 200m)
    r = _outlay(fifth, revenue=_DROP)
    assert r.status == "missing_input"
    assert any("revenue" in m for m in r.missing_inputs)
    rep = run(fifth, 2025, _years(Y5, y2025={"revenue": _DROP}))
    assert rep.cash_conditions_met is None and rep.min_cash_dividend is None


def test_branch_parameters(fifth):
    params = model_for(fifth).params
    assert {k for k in params if k.startswith("major_outlay.")} == {
        "major_outlay.b1_ratio", "major_outlay.b1_floor", "major_outlay.b2_ratio", "major_outlay.b3_ratio",
        "major_outlay.b3_floor"}
    assert all(params[k].editable and params[k].clause == "二、(二)" for k in params if k.startswith("major_outlay."))
    assert "营业收入" in params["major_outlay.b3_ratio"].zh


def test_branches_and_a_single_test_are_exclusive(tmp_path):
    data = _mini_data([{"id": "c", "kind": "no_major_outlay"}],
                      major_outlay={"basis": "net_assets", "ratio": 0.3,
                                    "branches": [{"basis": "net_assets", "ratio": 0.3}, {"basis": "revenue", "ratio": 0.1}]})
    assert any("either 'branches' or one test" in e for e in load_errors(tmp_path, data))


# =====================================================================================================
# 3. plan-period window (fifth plan 三、(三)): 2025–2027 total ≥ 70% of their total net profit
# =====================================================================================================

PERIOD = {
    2024: {"net_profit_attributable": 1_000_000_000, "cash_dividend": 900_000_000},  # before the period: not counted
    2025: {**Y5[2025], "net_profit_attributable": 100_000_000, "cash_dividend": 70_000_000},
    2026: {**Y5[2025], "net_profit_attributable": 100_000_000, "cash_dividend": 70_000_000},
    2027: {**Y5[2025], "net_profit_attributable": 100_000_000, "cash_dividend": 80_000_000},
}


def test_plan_period_checked_in_its_last_year(fifth):
    # 2027: 70% × (100m + 100m + 100m) = 210,000,000; cash 70m + 70m + 70m = 210m → pass at the boundary
    rep = run(fifth, 2027, _years(PERIOD, y2027={"cash_dividend": 70_000_000}))
    r = rep.rule("min_plan_period")
    assert (r.status, r.actual, r.required) == ("pass", 210_000_000.00, 210_000_000.00)
    rep = run(fifth, 2027, _years(PERIOD, y2027={"cash_dividend": 69_999_999.99}))
    r = rep.rule("min_plan_period")
    assert (r.status, r.shortfall) == ("fail", 0.01)
    # min cash 2027: max(annual 75% × 100m = 75m, period 210m − 140m = 70m, per share 50m) = 75m
    assert rep.min_cash_dividend == 75_000_000.00


def test_plan_period_raises_the_minimum_in_its_last_year(fifth):
    # cash 2025, 2026 only 60m each: period needs 210m − 120m = 90m in 2027 > annual 75m
    years = _years(PERIOD, y2025={"cash_dividend": 65_000_000}, y2026={"cash_dividend": 55_000_000})
    rep = run(fifth, 2027, years)
    assert rep.rule("min_plan_period").required == 210_000_000.00
    assert rep.min_cash_dividend == 90_000_000.00  # 210m − (65m + 55m)


def test_plan_period_is_progress_before_its_last_year(fifth):
    reps = {r.evaluation_year: r for r in evaluate_years(case(fifth.id, 2027, PERIOD), fifth)}
    r25, r26 = reps[2025].rule("min_plan_period"), reps[2026].rule("min_plan_period")
    # 2025: only 2025 counts (2024's 900m cash and 1bn profit are before the period)
    assert (r25.status, r25.reason, r25.actual, r25.required) == ("not_applicable", "na_plan_period_in_progress",
                                                                  70_000_000.00, 70_000_000.00)  # 70% × 100m
    assert (r26.status, r26.actual, r26.required) == ("not_applicable", 140_000_000.00, 140_000_000.00)
    assert r25.margin is None and r25.shortfall == 0.0
    # before its last year it raises nothing: 2025 min = annual 65m, 2026 min = annual 70m
    assert (reps[2025].min_cash_dividend, reps[2026].min_cash_dividend) == (65_000_000.00, 70_000_000.00)
    assert reps[2027].rule("min_plan_period").status == "pass"  # 220m ≥ 210m
    assert REASONS["na_plan_period_in_progress"][0] in reps[2025].rule("min_plan_period").explanation_zh


def test_plan_period_outside_the_period(fifth):
    years = _years(PERIOD, y2028={**Y5[2025]}, y2023={"net_profit_attributable": 1, "cash_dividend": 0})
    assert run(fifth, 2028, years).rule("min_plan_period").reason == "na_after_plan_period"
    assert run(fifth, 2024, years).rule("min_plan_period").reason == "na_before_plan_period"


def test_plan_period_reads_only_the_counted_years(fifth):
    # 2025: 2023 and 2024 are outside: their profits may be blank
    years = _years(PERIOD, y2024={"net_profit_attributable": _DROP})
    assert run(fifth, 2025, years).rule("min_plan_period").status == "not_applicable"
    # 2027: 2026's profit is counted: blank → missing input
    r = run(fifth, 2027, _years(PERIOD, y2026={"net_profit_attributable": _DROP})).rule("min_plan_period")
    assert r.status == "missing_input" and r.actual is None
    assert any("net_profit_attributable" in m and "2026" in m for m in r.missing_inputs)


def test_plan_period_years_are_fixed_parameters(fifth):
    params = model_for(fifth).params
    assert (params["min_plan_period.first_year"].value, params["min_plan_period.last_year"].value) == (2025, 2027)
    assert not params["min_plan_period.first_year"].editable and not params["min_plan_period.last_year"].editable
    assert params["min_plan_period.ratio"].editable and params["min_plan_period.ratio"].clause == "三、(三)"
    assert model_for(fifth).history <= -2  # the workbook keeps 2023, 2024 before the first plan year


def _period(ratio, mode="average", years=None):
    rule = {"id": "period", "kind": "min_cash_plan_period", "ratio": ratio, "basis": "distributable_profit",
            "basis_mode": mode}
    if years:
        rule["years"] = years
    return mini([rule])


def test_plan_period_average_rounded_half_up():
    # 30% × (100,000,000.01 + 100,000,000.02 + 100,000,000.02) / 3 = 30,000,000.005 → 30,000,000.01
    p = _period(0.30)
    years = {2025: {"distributable_profit": 100_000_000.01, "cash_dividend": 10_000_000},
             2026: {"distributable_profit": 100_000_000.02, "cash_dividend": 10_000_000},
             2027: {"distributable_profit": 100_000_000.02, "cash_dividend": 10_000_000}}
    r = run(p, 2027, years).rule("period")
    assert (r.required, r.status, r.shortfall) == (30_000_000.01, "fail", 0.01)
    assert run(p, 2027, _years(years, y2027={"cash_dividend": 10_000_000.01})).rule("period").status == "pass"


def test_plan_period_with_its_own_years():
    # a two-year window 2026–2027 inside a plan 2025–2027: 2025 is not counted
    p = _period(0.50, years=[2026, 2027])
    years = {2025: {"distributable_profit": 1_000_000_000, "cash_dividend": 0},
             2026: {"distributable_profit": 100_000_000, "cash_dividend": 40_000_000},
             2027: {"distributable_profit": 200_000_000, "cash_dividend": 35_000_000}}
    r = run(p, 2027, years).rule("period")
    assert (r.actual, r.required, r.status) == (75_000_000.00, 75_000_000.00, "pass")  # 50% × 300m / 2
    assert run(p, 2025, years).rule("period").reason == "na_before_plan_period"


# =====================================================================================================
# 4. per-share floor on dividends only (fifth 三、(二)); total-distribution floor (sixth 二、(二))
# =====================================================================================================

def test_per_share_floor_counts_dividends_only(fifth):
    # 0.10 × 800,000,000 = 80,000,000; dividends 79,999,999.99 + cancelled buyback 10m
    years = _years(Y5, y2025={"share_count": 800_000_000, "cash_dividend": 79_999_999.99, "buyback_cancelled": 10_000_000})
    rep = run(fifth, 2025, years)
    r = rep.rule("min_per_share")
    assert (r.actual, r.required, r.status, r.shortfall) == (79_999_999.99, 80_000_000.00, "fail", 0.01)
    assert rep.rule("min_annual").actual == 89_999_999.99  # the ratio counts the cancelled buyback
    assert rep.rule("min_annual").status == "pass"  # ≥ 65m
    # the plan cash (incl. counted buybacks) the floor needs: 80m dividends + 10m buyback = 90,000,000
    assert rep.min_cash_dividend == 90_000_000.00
    rep = run(fifth, 2025, _years(years, y2025={"cash_dividend": 80_000_000}))
    assert rep.rule("min_per_share").status == "pass"
    assert rep.rule("min_per_share").margin == 0.0


def test_total_distribution_floor(sixth):
    # 20% × 100,000,000 net profit = 20,000,000 on cash + stock
    base = {2024: {"distributable_profit": 100_000_000, "net_profit_attributable": 100_000_000, "net_assets": 1e9,
                   "planned_major_outlay": 0, "cash_dividend": 15_000_000, "stock_dividend": 5_000_000}}
    r = run(sixth, 2024, base, baseline=False).rule("min_distribution")
    assert (r.actual, r.required, r.status) == (20_000_000.00, 20_000_000.00, "pass")
    rep = run(sixth, 2024, _years(base, y2024={"stock_dividend": 4_999_999.99}), baseline=False)
    r = rep.rule("min_distribution")
    assert (r.status, r.shortfall) == ("fail", 0.01)
    # cash needed with the proposed stock dividend: 20m − 4,999,999.99 = 15,000,000.01
    assert rep.rule("min_distribution").actual == 19_999_999.99
    assert rep.min_cash_dividend == 15_000_000.01


def test_measure_default_is_cash():
    p = mini([{"id": "m", "kind": "min_cash", "components": [{"type": "pct", "ratio": 0.1, "basis": "distributable_profit"}]}])
    assert p.rule("m").measure == "cash"


# =====================================================================================================
# 5. cumulative instead of average basis; ratios above 100% of an average
# =====================================================================================================

ROLL = {2022: {"distributable_profit": 100_000_000, "cash_dividend": 35_000_000},
        2023: {"distributable_profit": 100_000_000, "cash_dividend": 35_000_000},
        2024: {"distributable_profit": 100_000_000, "net_assets": 1e9, "planned_major_outlay": 0,
               "net_profit_attributable": 100_000_000, "cash_dividend": 35_000_000}}


def test_rolling_on_the_windows_total(sixth):
    # 35% × (100m + 100m + 100m) = 105,000,000; cash 105m → pass at the boundary
    rep = run(sixth, 2024, ROLL, baseline=False)
    r = rep.rule("rolling_total_flag")
    assert (r.actual, r.required, r.status) == (105_000_000.00, 105_000_000.00, "pass")
    rep = run(sixth, 2024, _years(ROLL, y2024={"cash_dividend": 34_999_999.99}), baseline=False)
    r = rep.rule("rolling_total_flag")
    assert (r.status, r.shortfall) == ("warn", 0.01)  # a flag: warns


def test_a_share_of_the_average_above_100_percent_equals_a_share_of_the_total():
    # 105% of the three-year average = 35% of the three-year total (华翔股份: 三年累计可分配利润的35%)
    avg = mini([{"id": "r", "kind": "min_cash_rolling", "window": 3, "ratio": 1.05, "basis": "distributable_profit"}])
    tot = mini([{"id": "r", "kind": "min_cash_rolling", "window": 3, "ratio": 0.35, "basis": "distributable_profit",
                 "basis_mode": "total"}])
    years = {2023: {"distributable_profit": 123_456_789.01}, 2024: {"distributable_profit": 98_765_432.10},
             2025: {"distributable_profit": 111_111_111.11, "cash_dividend": 1}}
    a, t = run(avg, 2025, years).rule("r"), run(tot, 2025, years).rule("r")
    # 0.35 × (123,456,789.01 + 98,765,432.10 + 111,111,111.11) = 0.35 × 333,333,332.22 = 116,666,666.277 → .28
    # 1.05 × 333,333,332.22 / 3 = 116,666,666.277 → .28
    assert a.required == t.required == 116_666_666.28


@pytest.mark.parametrize("rule, words", [
    ({"kind": "min_cash_rolling", "window": 3, "ratio": 3.5}, "at most 300%"),
    ({"kind": "min_cash_rolling", "window": 3, "ratio": 1.5, "basis_mode": "total"}, "at most 100%"),
    ({"kind": "min_cash_plan_period", "ratio": 1.5, "basis_mode": "total"}, "at most 100%"),
])
def test_window_ratios_are_bounded_by_the_total(tmp_path, rule, words):
    errors = load_errors(tmp_path, _mini_data([{"id": "r", **rule}]))
    assert any(words in e and "field 'ratio'" in e for e in errors), errors


def test_plan_period_average_bounded_by_the_plan_years(tmp_path):
    errors = load_errors(tmp_path, _mini_data([{"id": "r", "kind": "min_cash_plan_period", "ratio": 3.5}]))
    assert any("at most 300%" in e and "2025–2027" in e for e in errors), errors


# =====================================================================================================
# 6. cancelled buybacks only (fifth plan, settings.cash_buyback_basis)
# =====================================================================================================

def test_only_cancelled_buybacks_count(fifth):
    years = _years(Y5, y2025={"cash_dividend": 60_000_000, "buyback_amount": 30_000_000, "buyback_cancelled": 4_999_999.99})
    r = run(fifth, 2025, years).rule("min_annual")
    # 60m + cancelled 4,999,999.99 = 64,999,999.99 < 65m (the 30m bidding buyback not cancelled does not count)
    assert (r.actual, r.status, r.shortfall) == (64_999_999.99, "fail", 0.01)
    years = _years(years, y2025={"buyback_cancelled": 5_000_000})
    assert run(fifth, 2025, years).rule("min_annual").status == "pass"


def test_cancelled_only_needs_buybacks_counted(tmp_path):
    data = _mini_data([{"id": "c", "kind": "cash_paid"}],
                      settings={"cash_includes_buybacks": False, "cash_buyback_basis": "buyback_cancelled"})
    assert any("cash_includes_buybacks: true" in e for e in load_errors(tmp_path, data))


# =====================================================================================================
# 7. payout ceiling (三、(五)) and interim cap (四、(二)) with compare
# =====================================================================================================

def test_payout_ceiling(fifth):
    # 90% × 100,000,000 = 90,000,000 (不超过 → <=)
    r = run(fifth, 2025, _years(Y5, y2025={"cash_dividend": 90_000_000})).rule("payout_ceiling")
    assert (r.status, r.required, r.bound_kind) == ("pass", 90_000_000.00, "limit")
    rep = run(fifth, 2025, _years(Y5, y2025={"cash_dividend": 90_000_000.01}))
    r = rep.rule("payout_ceiling")
    assert (r.status, r.shortfall) == ("fail", 0.01)
    assert rep.overall_status == "fail"
    assert rep.min_cash_dividend == 65_000_000.00  # a ceiling raises no minimum
    # (no distribution: no distribution count either, or the count contradicts the amounts)
    no_cash = {"cash_dividend": 0, "distribution_count": 0}
    assert run(fifth, 2025, _years(Y5, y2025=no_cash)).rule("payout_ceiling").reason == "na_no_cash"


def test_interim_cap_on_the_half_years_net_profit(fifth):
    # interim 40,000,000 ≤ 100% × half-year net profit 40,000,000
    y = {"interim_cash_dividend": 40_000_000, "half_year_net_profit_attributable": 40_000_000}
    r = run(fifth, 2025, _years(Y5, y2025=y)).rule("interim_cap")
    assert (r.status, r.actual, r.required) == ("pass", 40_000_000.00, 40_000_000.00)
    r = run(fifth, 2025, _years(Y5, y2025={**y, "interim_cash_dividend": 40_000_000.01})).rule("interim_cap")
    assert (r.status, r.shortfall) == ("fail", 0.01)
    r = run(fifth, 2025, _years(Y5, y2025={"interim_cash_dividend": 1})).rule("interim_cap")
    assert r.status == "missing_input"
    assert any("half_year_net_profit_attributable" in m for m in r.missing_inputs)


# =====================================================================================================
# 8. distributions per year (fifth 四、(一): 原则上每年度进行两次分红)
# =====================================================================================================

@pytest.mark.parametrize("count, status", [(2, "pass"), (3, "pass"), (1, "warn"), (0, "warn"), (_DROP, "missing_input")])
def test_two_distributions_a_year(fifth, count, status):
    y = {"distribution_count": count, **({"cash_dividend": 0} if count == 0 else {})}  # 0 distributions: no cash
    assert run(fifth, 2025, _years(Y5, y2025=y)).rule("two_distributions").status == status


def test_distribution_count_field():
    from xlmodel.fields import FIELDS, Kind

    f = FIELDS["distribution_count"]
    assert (f.kind, f.unit_zh, f.default_zero) == (Kind.COUNT, "次", False)
    with pytest.raises(Exception, match="whole"):
        case("x", 2025, {2025: {"distribution_count": 1.5}})


def test_distributions_not_applicable_when_conditions_fail(fifth):
    rep = run(fifth, 2025, _years(Y5, y2025={"net_profit_attributable": -1, "distribution_count": 0, "cash_dividend": 0}))
    assert rep.rule("two_distributions").status == "not_applicable"


# =====================================================================================================
# 9. year-specific ratios (fifth 三、(一)): 65% → 70% → 75%
# =====================================================================================================

@pytest.mark.parametrize("year, ratio", [(2024, 0.65), (2025, 0.65), (2026, 0.70), (2027, 0.75), (2028, 0.75)])
def test_ratio_by_fiscal_year(fifth, year, ratio):
    years = {y: {**Y5[2025], "net_profit_attributable": 100_000_000} for y in range(year - 2, year + 1)}
    need = round(ratio * 100_000_000, 2)
    r = run(fifth, year, _years(years, **{f"y{year}": {"cash_dividend": need}})).rule("min_annual")
    assert (r.required, r.status) == (need, "pass")
    r = run(fifth, year, _years(years, **{f"y{year}": {"cash_dividend": need - 0.01}})).rule("min_annual")
    assert (r.status, r.shortfall) == ("fail", 0.01)


def test_year_specific_parameters_are_on_the_sheet_and_editable(fifth):
    params = model_for(fifth).params
    assert [params[f"min_annual.c1_ratio_{y}"].value for y in (2025, 2026, 2027)] == [0.65, 0.70, 0.75]
    assert all(params[f"min_annual.c1_ratio_{y}"].editable for y in (2025, 2026, 2027))
    assert [params[f"min_annual.c1_from_{y}"].value for y in (2026, 2027)] == [2026, 2027]
    assert not params["min_annual.c1_from_2026"].editable
    years = {y: {**Y5[2025], "net_profit_attributable": 100_000_000} for y in (2024, 2025, 2026)}
    # the board edits 2026's ratio on the sheet: 72% × 100,000,000 = 72,000,000
    rep = run(fifth, 2026, years, params={"min_annual.c1_ratio_2026": 0.72})
    assert rep.rule("min_annual").required == 72_000_000.00


def test_by_year_or_ratio(tmp_path):
    data = _mini_data([{"id": "m", "kind": "min_cash", "components": [
        {"type": "pct", "ratio": 0.1, "by_year": {2025: 0.1}, "basis": "distributable_profit"}]}])
    assert any("either 'ratio' or 'by_year'" in e for e in load_errors(tmp_path, data))


# =====================================================================================================
# 10. either-of minimums (sixth 二、(一)) and OR-groups of conditions (fifth 二、(一)、5)
# =====================================================================================================

# net profit 0: the total-distribution floor of 二、(二) is 0 here (tested on its own above)
EITHER = {2022: {"distributable_profit": 100_000_000, "cash_dividend": 30_000_000},
          2023: {"distributable_profit": 100_000_000, "cash_dividend": 30_000_000},
          2024: {"distributable_profit": 100_000_000, "net_profit_attributable": 0, "net_assets": 1e9,
                 "planned_major_outlay": 0, "cash_dividend": 10_000_000}}


def _either(sixth, **y2024):
    return run(sixth, 2024, _years(EITHER, y2024=y2024), baseline=False)


def test_either_of_one_alternative_suffices(sixth):
    # annual: 10% × 100m = 10,000,000 ≤ 10m → met; rolling: 30% × 100m = 30m ≤ 30 + 30 + 10 = 70m → met
    rep = _either(sixth)
    assert [rep.rule(x).status for x in ("min_annual", "min_rolling", "min_either")] == ["met", "met", "pass"]
    # annual short by a fen, rolling met: the requirement passes; the alternative is only "not met"
    rep = _either(sixth, cash_dividend=9_999_999.99)
    assert [rep.rule(x).status for x in ("min_annual", "min_rolling", "min_either")] == ["not_met", "met", "pass"]
    assert rep.fail_count == 0
    assert rep.overall_status == "warn"  # only the flag of 二、(三) warns: 70m < 35% × 300m
    assert rep.rule("min_either").actual == 1.0  # alternatives met


def test_either_of_fails_when_both_fail(sixth):
    years = _years(EITHER, y2022={"cash_dividend": 0}, y2023={"cash_dividend": 0})
    rep = run(sixth, 2024, _years(years, y2024={"cash_dividend": 9_999_999.99}), baseline=False)
    # annual 10m; rolling 30m − 0 prior = 30m: both short
    assert [rep.rule(x).status for x in ("min_annual", "min_rolling", "min_either")] == ["not_met", "not_met", "fail"]
    assert rep.fail_count == 1  # the group only
    assert rep.min_cash_dividend == 10_000_000.00  # the lower of the alternatives: min(10m, 30m)


def test_either_of_minimum_is_the_lower_alternative(sixth):
    # prior cash 30m + 30m: rolling needs max(0, 30m − 60m) = 0 this year; annual needs 10m → lower: 0
    rep = _either(sixth, cash_dividend=0)
    assert rep.rule("min_either").status == "pass"
    assert rep.min_cash_dividend == 0.0


def test_either_of_with_an_alternative_missing(sixth):
    years = _years(EITHER, y2022={"distributable_profit": _DROP})
    rep = run(sixth, 2024, years, baseline=False)
    assert rep.rule("min_rolling").status == "missing_input"
    assert rep.rule("min_either").status == "pass"  # the annual alternative is met
    rep = run(sixth, 2024, _years(years, y2024={"cash_dividend": 1}), baseline=False)
    assert rep.rule("min_either").status == "missing_input"  # annual not met, rolling unknown


def test_either_of_not_applicable(sixth):
    rep = _either(sixth, distributable_profit=-1)
    r = rep.rule("min_either")
    assert (r.status, r.reason) == ("not_applicable", "na_no_alternative")


def test_or_group_of_conditions(fifth):
    at = lambda **y: run(fifth, 2025, _years(Y5, y2025=y))  # noqa: E731
    rep = at(operating_cash_flow=0, registered_capital=0)  # 0 is not > 0; cash 200m > 0
    assert [rep.rule(x).status for x in ("cond_ocf_positive", "cond_cash_positive", "cond_cash_flow_or_cash")] == \
        ["not_met", "met", "met"]
    assert rep.cash_conditions_met is True  # the alternative not met does not fail the conditions
    rep = at(operating_cash_flow=0, registered_capital=0, cash_and_equivalents=0)
    assert rep.rule("cond_cash_flow_or_cash").status == "not_met" and rep.cash_conditions_met is False
    rep = at(operating_cash_flow=_DROP, registered_capital=0)
    # ocf unknown, but the gate of 二、(一)、6 needs it too: the conditions are undetermined
    assert rep.rule("cond_cash_flow_or_cash").status == "met"
    assert rep.rule("cond_ocf_registered_capital").status == "missing_input"


@pytest.mark.parametrize("change, words", [
    (lambda d: d["rules"][2].update(rules=["a", "nope"]), "no rule 'nope'"),
    (lambda d: d["rules"].append({"id": "h", "kind": "any_of", "rules": ["a", "b"], "clause": "一", "quote": "测试条款原文",
                                  "title_zh": "h", "title_en": "h"}), "already an alternative"),
    (lambda d: d["rules"][2].pop("role"), "give role: condition"),
])
def test_any_of_problems(tmp_path, change, words):
    data = _mini_data([{"id": "a", "kind": "positive", "measure": "net_profit_attributable"},
                       {"id": "b", "kind": "positive", "measure": "operating_cash_flow"},
                       {"id": "g", "kind": "any_of", "role": "condition", "rules": ["a", "b"]}])
    change(data)
    assert any(words in e for e in load_errors(tmp_path, data))


# =====================================================================================================
# 11. targets and flag-only tests: warn without raising the minimum
# =====================================================================================================

def test_target_informs_without_raising_the_minimum(fifth):
    rep = run(fifth, 2025, _years(Y5, y2025={"cash_dividend": 79_999_999.99}))
    r = rep.rule("target_payout")
    assert (r.status, r.required, r.shortfall) == ("warn", 80_000_000.00, 0.01)
    assert rep.min_cash_dividend == 65_000_000.00  # not 80m
    assert run(fifth, 2025, _years(Y5, y2025={"cash_dividend": 80_000_000})).rule("target_payout").status == "pass"
    assert not model_for(fifth).rule("target_payout").is_minimum


def test_flag_only_rolling_test(sixth):
    rep = run(sixth, 2024, _years(ROLL, y2022={"cash_dividend": 0}, y2023={"cash_dividend": 0}), baseline=False)
    assert rep.rule("rolling_total_flag").status == "warn"  # 35m < 105m
    # the minimum: max(either-of min(annual 10m, rolling 30m − 0) = 10m, distribution 20% × 100m = 20m);
    # the flag's 105m − 0 raises nothing
    assert rep.min_cash_dividend == 20_000_000.00


# =====================================================================================================
# 12. cash_and_equivalents and registered_capital in compare (fifth 二、(一)、5–6)
# =====================================================================================================

@pytest.mark.parametrize("ocf, status", [(20_000_000, "met"), (19_999_999.99, "not_met")])
def test_registered_capital_gate(fifth, ocf, status):
    r = run(fifth, 2025, _years(Y5, y2025={"operating_cash_flow": ocf})).rule("cond_ocf_registered_capital")
    assert (r.required, r.status) == (20_000_000.00, status)  # 20% × 100,000,000 (不低于 → >=)


def test_new_fields_are_amounts_of_the_year():
    from xlmodel.fields import FIELDS, Kind
    from xlmodel.plans.rule_kinds import AMOUNT_FIELDS

    for fid in ("cash_and_equivalents", "registered_capital", "half_year_net_profit_attributable"):
        assert FIELDS[fid].kind == Kind.AMOUNT and fid in AMOUNT_FIELDS


# =====================================================================================================
# the workbooks: no threshold inside a formula, every editable parameter used
# =====================================================================================================

REF = re.compile(r"(?:'[^']+'|[A-Za-z_\u4e00-\u9fff][\w\u4e00-\u9fff.]*)?!?\$?[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d+)?")


@pytest.fixture(scope="module")
def workbooks(fifth, sixth, tmp_path_factory):
    import openpyxl

    from xlmodel.workbook.writer import build_workbook

    root = tmp_path_factory.mktemp("capabilities")
    c5 = case(fifth.id, 2027, PERIOD)
    c6 = case(sixth.id, 2024, EITHER, company={"company_name": "示例", "stock_code": "300999", "board": "chinext"})
    out = {}
    for pol, c in ((fifth, c5), (sixth, c6)):
        path = build_workbook(root / f"{pol.id}.xlsx", policy=pol, case=c)
        out[pol.id] = (pol, c, openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True))
    return out


@pytest.mark.parametrize("pid", ["demo5-2025-2027", "demo6-2024-2026"])
def test_no_constants_inside_formulas(workbooks, pid):
    _, _, wb, _ = workbooks[pid]
    offenders = []
    for sheet, c in _formulas(wb):
        f = re.sub(r'"[^"]*"', "", c.value[1:])
        f = REF.sub("", f)
        f = re.sub(r"[A-Za-z_][\w.]*", "", f)
        f = f.replace(",2)", ")")
        if [n for n in re.findall(r"\d+(?:\.\d+)?", f) if n not in ("0", "1")]:
            offenders.append(f"{sheet}!{c.coordinate}: {c.value}")
    assert not offenders, offenders[:10]


@pytest.mark.parametrize("pid", ["demo5-2025-2027", "demo6-2024-2026"])
def test_every_editable_parameter_is_read_by_a_formula(workbooks, pid):
    from xlmodel.workbook.layout import pname

    pol, _, wb, _ = workbooks[pid]
    text = "\n".join(c.value for _, c in _formulas(wb))
    for name, prm in model_for(pol).params.items():
        if prm.editable:
            assert re.search(rf"\b{pname(name)}\b", text), name


@pytest.mark.parametrize("pid", ["demo5-2025-2027", "demo6-2024-2026"])
def test_formulas_stay_short(workbooks, pid):
    _, _, wb, _ = workbooks[pid]
    assert max(len(c.value) for _, c in _formulas(wb)) <= 250


def test_cached_outputs_equal_the_evaluator(workbooks):
    for pol, c, wb, values in workbooks.values():
        rep = evaluate(c, pol)
        (sheet, coord), = wb.defined_names["out_min_cash_dividend"].destinations
        assert values[sheet][coord].value == pytest.approx(rep.min_cash_dividend, abs=0.001)


# =====================================================================================================
# parity in LibreOffice and Gnumeric: a plan using each capability (60 cases, three plans)
# =====================================================================================================

N_PARITY = 20  # per plan


def _eighth_figures(y: dict, rng) -> None:
    """The eighth plan's inputs: the IFRS profit after reserves, and a planned transaction's figures, mostly
    well below their tests (so that the minimums apply), sometimes near them; losses too."""
    from xlmodel.synth import _fen

    if rng.random() < 0.8:  # 50% of an odd fen is a half fen, which Gnumeric rounds on its binary value (see
        # test_parity_engines): most cases in whole even fens, so that its workbooks are compared, not set aside
        for fid in ("net_profit_attributable", "distributable_profit", "net_assets", "total_assets", "revenue"):
            if fid in y:
                y[fid] = _fen(round(y[fid] * 50) / 50)
    npa, dp = y.get("net_profit_attributable", 1e6), y.get("distributable_profit", 1e6)
    y["distributable_profit_ifrs"] = _fen(round(dp * rng.uniform(0.9, 1.1) * 50) / 50) if rng.random() < 0.8 else \
        _fen(dp * rng.uniform(0.9, 1.1))
    scale = 0.1 if rng.random() < 0.85 else 1.0
    for fid, basis, lo in (("transaction_total_assets", "total_assets", 0), ("transaction_target_revenue", "revenue", 0),
                           ("transaction_target_net_profit", "net_profit_attributable", -0.7),
                           ("transaction_amount", "net_assets", 0), ("transaction_profit", "net_profit_attributable", -0.7)):
        if basis in y:
            y[fid] = _fen(y[basis] * scale * rng.uniform(lo, 0.7))
    y.setdefault("transaction_target_net_profit", _fen(npa * 0.1))


def _eighth_boundary(policy, t: dict, k: int, rng) -> None:
    """The eighth plan's boundaries: a transaction test exactly at its share or its floor (a fen either side,
    either sign: 取其绝对值计算), the target at exactly 50% of the lower profit, the per-share floor exactly."""
    from xlmodel.synth import _fen

    if k == 2:
        tests = policy.major_outlay.tests()
        j = int(rng.integers(0, len(tests)))
        b = tests[j]
        if b.floor is not None and rng.random() < 0.5:  # the share's amount equal to the floor: the floor decides
            t[b.basis] = _fen(b.floor / b.ratio) * (1 if rng.random() < 0.7 else -1)
        thr = round(b.ratio * abs(t.get(b.basis, 1e9)), 2)
        for i, other in enumerate(tests):  # the other tests clear, so that this one decides
            if i != j:
                t[other.measure] = 0.0
        value = _fen(thr + float(rng.choice([0.0, 0.01, -0.01])))
        t[b.measure] = value * (-1 if b.absolute and b.measure != "planned_major_outlay" and rng.random() < 0.4 else 1)
    elif k == 7:  # 50% of the lower of the two profits after reserves, exactly or a fen short
        low = min(t.get("distributable_profit", 0), t.get("distributable_profit_ifrs", 0))
        t["cash_dividend"] = max(0.0, _fen(round(0.5 * low, 2) - (0.01 if rng.random() < 0.5 else 0)))
    elif k == 1:  # 0.5 元 a share exactly, or a fen short
        t["cash_dividend"] = max(0.0, _fen(0.5 * t.get("share_count", 1e8) - (0.01 if rng.random() < 0.5 else 0)))


def _capability_cases(policy, n: int, seed: int) -> list:
    """Random cases for the fifth to eighth plans, a third moved onto a boundary of a new capability."""
    import numpy as np

    from xlmodel.case import parse_case
    from xlmodel.synth import _fen, interims_within_totals, random_year

    rng = np.random.default_rng(seed)
    lo, hi = policy.plan_years
    out = []
    for i in range(n):
        year = int(rng.choice([lo - 1, lo, lo + 1, hi, hi, hi + 1])) if i % 4 else hi
        ys = []
        for fy in range(year - 4, year + 1):
            y = {"fiscal_year": fy, **random_year(rng, 0.03 if (fy == year and i % 5 == 0) else 0.0)}
            npa = y.get("net_profit_attributable", 1e6)
            y["cash_and_equivalents"] = _fen(abs(npa) * rng.uniform(-0.2, 3))
            y["registered_capital"] = _fen(abs(y.get("operating_cash_flow", npa)) * rng.uniform(0.5, 6))
            if "planned_major_outlay" in y and rng.random() < 0.8:  # mostly no major outlay: the minimums apply
                y["planned_major_outlay"] = _fen(min(y.get(f, 1e6) for f in ("net_assets", "total_assets", "revenue")) * rng.uniform(0, 0.1))
            y["distribution_count"] = int(rng.integers(0, 4))
            y["net_profit_attributable_ifrs"] = _fen(npa * rng.uniform(0.9, 1.1))  # the seventh plan's lower-of basis
            y["half_year_net_profit_attributable"] = _fen(npa * rng.uniform(-0.2, 0.7))
            if y.get("buyback_amount"):
                y["buyback_cancelled"] = _fen(y["buyback_amount"] * rng.uniform(0, 1))
            if policy.id == "demo8-2025-2027":  # its own generator: the other plans' cases stay as they were
                _eighth_figures(y, np.random.default_rng([seed, i, fy]))
            ys.append(y)
        t = ys[-1]
        k = i % 9
        if k in (1, 3, 7, 8) or rng.random() < 0.5:  # the year's conditions hold, so that the minimums apply
            t.update(audit_opinion="standard_unqualified", net_profit_attributable=abs(t.get("net_profit_attributable", 1e6)),
                     distributable_profit=abs(t.get("distributable_profit", 1e6)),
                     retained_earnings_consolidated=abs(t.get("retained_earnings_consolidated", 1e9)) + 1e9,
                     retained_earnings_parent=abs(t.get("retained_earnings_parent", 1e9)) + 1e9,
                     operating_cash_flow=abs(t.get("operating_cash_flow", 1e6)))
            t["registered_capital"] = _fen(t["operating_cash_flow"] * rng.uniform(0.5, 5))
        if k == 1:  # per-share floor exactly / a fen short, on dividends
            t["cash_dividend"] = max(0.0, _fen(0.10 * t.get("share_count", 1e8) - (0.01 if rng.random() < 0.5 else 0)))
        elif k == 2:  # a major-outlay branch threshold exactly (or a fen above)
            tests = policy.major_outlay.tests()
            b = tests[int(rng.integers(0, len(tests)))]
            if policy.major_outlay.branches_combine == "all" and rng.random() < 0.5:
                t["total_assets"] = _fen(t.get("net_assets", 1e9) * 0.5 / 0.3)  # both tests at one amount
            t["planned_major_outlay"] = _fen(round(b.ratio * t.get(b.basis, 1e9), 2) + (0.01 if rng.random() < 0.5 else 0))
        elif k == 4:  # payout ceiling / interim cap exactly
            npa = t.get("net_profit_attributable", 0)
            t["cash_dividend"] = max(0.0, _fen(round(0.9 * npa, 2)))
            t["buyback_cancelled"] = 0.0
            t["interim_cash_dividend"] = max(0.0, t.get("half_year_net_profit_attributable", 0.0))
        elif k == 5:  # registered-capital gate exactly
            t["registered_capital"] = _fen(abs(t.get("operating_cash_flow", 1e6)) * 5)
        elif k == 3:  # the period's or window's cash exactly at 70% / the annual minimum
            for y in ys[-3:]:
                y["cash_dividend"] = max(0.0, _fen(0.7 * y.get("net_profit_attributable", 0)))
                y["buyback_cancelled"] = y["buyback_amount"] = 0.0
        elif k == 6:  # neither alternative of the OR-group of conditions
            t["operating_cash_flow"], t["cash_and_equivalents"] = 0.0, _fen(-abs(t["cash_and_equivalents"]))
        elif k == 7:  # annual 10% of distributable profit exactly
            t["cash_dividend"] = max(0.0, _fen(0.1 * t.get("distributable_profit", 0)))
            t["buyback_amount"] = t["buyback_cancelled"] = 0.0
        elif k == 8:  # the total-distribution floor exactly (cash + stock = 20% of net profit)
            t["stock_dividend"] = max(0.0, _fen(round(0.2 * t.get("net_profit_attributable", 0), 2) - t.get("cash_dividend", 0)))
        if policy.id == "demo7-2025-2027" and k in (3, 7):
            if k == 7:  # 30% of the lower of GAAP and IFRS exactly (or a fen short)
                low = min(t.get("net_profit_attributable", 0), t.get("net_profit_attributable_ifrs", 0))
                t["cash_dividend"] = max(0.0, _fen(round(0.3 * low, 2) - (0.01 if rng.random() < 0.5 else 0)))
            else:  # the window's cash exactly the fixed 50,000,000 (or a fen short)
                for y in ys[-3:]:
                    y["buyback_amount"] = y["buyback_cancelled"] = 0.0
                ys[-3]["cash_dividend"], ys[-2]["cash_dividend"] = 20_000_000.0, 10_000_000.0
                t["cash_dividend"] = 20_000_000.0 - (0.01 if rng.random() < 0.5 else 0)
        if policy.id == "demo8-2025-2027" and k in (1, 2, 7):
            _eighth_boundary(policy, t, k, np.random.default_rng([seed, i]))
        interims_within_totals({"years": ys})
        board = str(rng.choice(["chinext", "sse_main"]))  # a code of the board (a code of another is refused)
        company = {"company_name": "示例公司", "stock_code": "300999" if board == "chinext" else "600999", "board": board,
                   "listing_date": "2015-06-30"}
        data = {"policy": policy.id, "evaluation_year": year, "years": ys, "company": company}
        out.append(parse_case(data, f"capabilities:{policy.id}:{seed}:{i}"))
    return out


@pytest.fixture(scope="module")
def parity_built(fifth, sixth, tmp_path_factory):
    from xlmodel.workbook.writer import build_workbook

    seventh, eighth = load_policy_file(SEVENTH), load_policy_file(EIGHTH)
    root = tmp_path_factory.mktemp("cap-parity")
    built = []
    for pol, seed in ((fifth, 5), (sixth, 6), (seventh, 7), (eighth, 8)):
        for i, c in enumerate(_capability_cases(pol, N_PARITY, seed)):
            built.append((pol, c, build_workbook(root / "built" / f"{pol.id}-{i:02d}.xlsx", policy=pol, case=c)))
    return root, built


def test_the_parity_cases_reach_the_new_statuses(parity_built):
    seen: dict[str, set] = {}
    for pol, c, _ in parity_built[1]:
        for r in evaluate(c, pol).rules:
            seen.setdefault(r.id, set()).add(r.status)
    for rid in ("cond_no_major_outlay", "cond_cash_flow_or_cash", "min_annual", "min_per_share", "two_distributions",
                "min_either", "min_annual_lower_basis", "min_rolling_or_amount", "target_about_half"):
        assert len(seen[rid] - {"missing_input"}) >= 2, (rid, seen[rid])
    eighth = {}
    for pol, c, _ in parity_built[1]:
        if pol.id == "demo8-2025-2027":
            for r in evaluate(c, pol).rules:
                eighth.setdefault(r.id, set()).add(r.status)
    assert {"met", "not_met"} <= eighth["cond_no_major_outlay"] and {"pass", "fail"} <= eighth["min_per_share"]
    assert {"pass", "warn"} <= eighth["target_about_half"]
    assert {"pass", "fail", "not_applicable"} <= seen["min_plan_period"] | {"fail"}


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_capability_workbooks_in_real_engines(parity_built, engine, request):
    """Every formula cell equals the value xlmodel cached; every year's statuses and outputs equal evaluate()."""
    from conftest import engine_values
    from xlmodel.engines.parity import compare

    request.getfixturevalue(engine)
    root, built = parity_built
    theirs = engine_values(engine, [p for _, _, p in built], root / engine, k=2)  # in its memory, as the parity set
    compared = [compare(engine, c, ours, None, pol, theirs_values=theirs[ours.name])
                for pol, c, ours in built]  # (xlmodel.engines.parity)
    aside = [c.name for c in compared if c.aside]  # an engine's half-fen ROUND (docs/domain.md §4)
    mismatches = [str(m) for c in compared for m in c.differences]
    cells = sum(c.cells for c in compared)
    print(f"\n{engine}: {len(built) - len(aside)} workbooks, {cells} cells compared, {len(mismatches)} mismatches; "
          f"set aside (half fen): {aside}")
    # 65% / 70% / 75% / 90% of an amount in fen land on an exact half fen about once in ten (0.65 × 0.10 = 0.065):
    # Gnumeric rounds those binary halves its own way (xlmodel.engines.parity.SET_ASIDE; LibreOffice only on amounts ≥ 2e10)
    assert len(aside) <= max(3, len(built) // 5), aside
    assert not mismatches, "\n".join(mismatches[:30])


def test_readme_excerpt_is_the_fifth_plan():
    """The reference's "Plans as data" quotes rules of the fifth plan: they say what the file says."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "reference.md").read_text(encoding="utf-8")
    marker = "not run: an excerpt of a test plan (tests/data/fifth_plan)"
    block = text[text.index(marker):].split("```yaml\n", 1)[1].split("```", 1)[0]
    plan = {r["id"]: r for r in yaml.safe_load(FIFTH.read_text(encoding="utf-8"))["rules"]}
    excerpt = yaml.safe_load(block)
    assert excerpt
    for rule in excerpt:
        assert {k: plan[rule["id"]].get(k) for k in rule} == rule


def test_major_outlay_summary(fifth, sixth):
    """One line per definition for `policies show` (MajorOutlay.summary), with each op as the plan words it."""
    from xlmodel.plans.loading import load_policy

    assert load_policy("gcl-energy-2022-2024").major_outlay.summary() == ", ≥ 30% of total_assets and > 50,000,000 元"
    assert sixth.major_outlay.summary() == ", > 30% of net_assets and ≥ 50,000,000 元"
    assert fifth.major_outlay.summary() == (", (≥ 30% of net_assets and > 50,000,000 元) OR (> 20% of total_assets) OR "
                                            "(> 10% of revenue and ≥ 100,000,000 元)")


def test_policies_show_names_every_branch_of_the_major_outlay(capsys):
    from conftest import cli

    code, out, _ = cli(capsys, "policies", "show", str(Path(__file__).parent / "data" / "fifth_plan" / "demo5-2025-2027.yaml"))
    assert code == 0
    assert ("重大支出 Major outlay [二、(二)]: formula, (≥ 30% of net_assets and > 50,000,000 元) OR (> 20% of total_assets) "
            "OR (> 10% of revenue and ≥ 100,000,000 元)") in out


def test_a_row_yes_no_in_one_branch_and_a_number_in_the_other_holds_no_true_or_false(fifth, tmp_path):
    """四 of the fifth plan: min_plan_period.actual.part3 is IF(applies, year ≥ first year, 0) — a yes/no
    where the rule applies, 0 where not: the yes/no branch is written 1/0 (issue 23.7), the 0 stays 0, and
    no cell of 计算 or 测算 holds TRUE/FALSE (the engines' values: test_capability_workbooks_in_real_engines)."""
    import openpyxl

    from xlmodel.workbook.layout import mixed_rows
    from xlmodel.workbook.writer import build_workbook

    mixed = [k for k in mixed_rows(model_for(fifth)) if k.startswith("min_plan_period.actual.part")]
    assert mixed  # which part it is depends on how the long formula is split (52.7 shortened it)
    case = _capability_cases(fifth, 1, 5)[0]
    path = build_workbook(tmp_path / "d5.xlsx", policy=fifth, case=case)
    wb, values = openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)
    bools = [f"{ws.title}!{c.coordinate}" for ws in values.worksheets for row in ws.iter_rows() for c in row
             if isinstance(c.value, bool)]
    assert bools == []
    calc = wb["计算"]
    rows = [r for r in range(1, calc.max_row + 1) if calc.cell(r, 1).value in mixed]
    # the yes/no branch (the year within the plan's period) written 1/0, the rule's other branch 0
    assert any(">=p_min_plan_period_first_year" in calc.cell(r, 7).value and calc.cell(r, 7).value.endswith(",1,0),0)")
               for r in rows)
