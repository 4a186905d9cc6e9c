"""Issue 12 §1, the capabilities the fifth and sixth plans leave out, each worked out by hand at its
boundary; the seventh plan (tests/data/seventh_plan, invented, worded with quotes of
../shared/real-plans/plans.yaml) uses all three:

* a major outlay of two ratio tests that must both hold (且: ``branches_combine: all``);
* a second profit basis, the lower of PRC GAAP and IFRS (``net_profit_attributable_lower``);
* a rolling minimum with a fixed-amount alternative (``amount`` with ``combine``).

Also the report's words for an either-of group and for counts. The LibreOffice and Gnumeric parity
of the seventh plan runs with the others in tests/test_capabilities.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_capabilities import _mini_data, _years, load_errors, mini, run
from xlmodel.evaluator import model_for
from xlmodel.plans.text import plan_clauses
from xlmodel.plans.loading import load_policy_file

SEVENTH = Path(__file__).parent / "data" / "seventh_plan" / "demo7-2025-2027.yaml"
M = 1_000_000


@pytest.fixture(scope="module")
def seventh():
    return load_policy_file(SEVENTH)


#: the evaluation year 2025 with every condition met; the window 2023–2025
Y7 = {
    2023: {"net_profit_attributable": 100 * M, "cash_dividend": 10 * M},
    2024: {"net_profit_attributable": 100 * M, "cash_dividend": 10 * M},
    2025: {
        "net_profit_attributable": 120 * M, "net_profit_attributable_ifrs": 110 * M,
        "distributable_profit": 100 * M,
        "retained_earnings_consolidated": 1_000 * M, "retained_earnings_parent": 1_000 * M,
        "audit_opinion": "standard_unqualified",
        "net_assets": 1_000 * M,  # b1: 50% = 500,000,000
        "total_assets": 2_000 * M,  # b2: 30% = 600,000,000
        "planned_major_outlay": 10 * M,
        "cash_dividend": 40 * M,
    },
}


def test_the_seventh_plan_loads_and_every_clause_is_accounted_for(seventh):
    assert set(plan_clauses(seventh)) == set(seventh.clauses)
    assert seventh.major_outlay.summary() == ", (≥ 50% of net_assets) AND (≥ 30% of total_assets)"


# ---- two ratio tests that must both hold ------------------------------------------------------------

@pytest.mark.parametrize("outlay, total_assets, major", [
    (500 * M, 1_000 * M, True),  # ≥ 500m of net assets and ≥ 300m of total assets: both hold
    (500 * M - 0.01, 1_000 * M, False),  # a fen below the net-assets test: one fails, not major
    (599_999_999.99, 2_000 * M, False),  # ≥ 500m but a fen below 600m of total assets
    (600 * M, 2_000 * M, True),  # exactly both thresholds (达到或超过: inclusive)
])
def test_a_major_outlay_needs_both_tests(seventh, outlay, total_assets, major):
    y = _years(Y7, y2025={"planned_major_outlay": outlay, "total_assets": total_assets})
    r = run(seventh, 2025, y).rule("cond_no_major_outlay")
    assert r.status == ("not_met" if major else "met")
    assert r.required == max(500 * M, 0.3 * total_assets)  # the threshold shown: the higher test


def test_either_branch_alone_still_makes_an_any_of_outlay_major():
    branches = [{"basis": "net_assets", "ratio": 0.5}, {"basis": "total_assets", "ratio": 0.3}]
    rules = [{"id": "cond_no_major", "kind": "no_major_outlay"}]
    years = {2025: {"net_assets": 1_000 * M, "total_assets": 2_000 * M, "planned_major_outlay": 500 * M}}
    any_ = mini(rules, major_outlay={"branches": branches})
    every = mini(rules, major_outlay={"branches": branches, "branches_combine": "all"})
    assert run(any_, 2025, years).rule("cond_no_major").status == "not_met"  # 500m ≥ 50% of net assets
    assert run(every, 2025, years).rule("cond_no_major").status == "met"  # but < 30% of total assets


def test_branches_combine_needs_branches(tmp_path):
    data = _mini_data([{"id": "c", "kind": "no_major_outlay"}],
                      major_outlay={"basis": "net_assets", "ratio": 0.5, "branches_combine": "all"})
    assert any("branches_combine" in e for e in load_errors(tmp_path, data))


# ---- the lower of two profit bases ------------------------------------------------------------------

@pytest.mark.parametrize("gaap, ifrs, cash, status, required", [
    (120 * M, 110 * M, 33 * M, "pass", 33 * M),  # 30% × min(120m, 110m) = 33,000,000.00 exactly
    (120 * M, 110 * M, 33 * M - 0.01, "fail", 33 * M),  # a fen short
    (100 * M, 110 * M, 30 * M, "pass", 30 * M),  # GAAP the lower: 30% × 100m
    # 30% × 100,000,000.05 = 30,000,000.015 → 30,000,000.02 (half away from zero, DOMAIN.md §4)
    (100_000_000.05, 110 * M, 30_000_000.02, "pass", 30_000_000.02),
    (100_000_000.05, 110 * M, 30_000_000.01, "fail", 30_000_000.02),
])
def test_the_annual_minimum_on_the_lower_of_gaap_and_ifrs(seventh, gaap, ifrs, cash, status, required):
    y = _years(Y7, y2025={"net_profit_attributable": gaap, "net_profit_attributable_ifrs": ifrs, "cash_dividend": cash})
    r = run(seventh, 2025, y).rule("min_annual_lower_basis")
    assert (r.status, r.actual, r.required) == (status, cash, required)


def test_a_blank_ifrs_profit_is_missing_input_never_the_gaap_figure_alone(seventh):
    y = _years(Y7, y2025={"net_profit_attributable_ifrs": _drop()})
    r = run(seventh, 2025, y).rule("min_annual_lower_basis")
    assert r.status == "missing_input"
    assert any("国际财务报告准则" in m for m in r.missing_inputs)


def test_the_lower_basis_is_a_calculation_only_where_a_plan_reads_it(seventh):
    assert "net_profit_attributable_lower" in model_for(seventh).series
    other = mini([{"id": "m", "kind": "min_cash", "components": [{"type": "pct", "ratio": 0.3, "basis": "net_profit_attributable"}]}])
    assert "net_profit_attributable_lower" not in model_for(other).series


# ---- a rolling minimum with a fixed amount ------------------------------------------------------------

def _rolling(combine: str):
    return mini([{"id": "roll", "kind": "min_cash_rolling", "window": 3, "ratio": 0.30, "basis": "net_profit_attributable",
                  "amount": 50 * M, "combine": combine}])


#: 2023–2025 net profit 100m, 100m, 400m: 30% of the average 200m = 60,000,000; the amount 50,000,000
ROLL = {2023: {"net_profit_attributable": 100 * M, "cash_dividend": 10 * M},
        2024: {"net_profit_attributable": 100 * M, "cash_dividend": 10 * M},
        2025: {"net_profit_attributable": 400 * M}}


@pytest.mark.parametrize("combine, cash_2025, window_cash, status, required", [
    ("lower_of", 30 * M, 50 * M, "pass", 50 * M),  # 50m over the window = the amount: enough
    ("lower_of", 29_999_999.99, 49_999_999.99, "fail", 50 * M),
    ("higher_of", 30 * M, 50 * M, "fail", 60 * M),  # both must hold: 60m
    ("higher_of", 40 * M, 60 * M, "pass", 60 * M),
])
def test_rolling_ratio_or_amount(combine, cash_2025, window_cash, status, required):
    r = run(_rolling(combine), 2025, _years(ROLL, y2025={"cash_dividend": cash_2025})).rule("roll")
    assert (r.status, r.actual, r.required) == (status, window_cash, required)


def test_the_rolling_amount_sets_the_minimum_cash_dividend():
    # lower_of: 50m over the window less the 20m already paid = 30,000,000 this year
    assert run(_rolling("lower_of"), 2025, ROLL).min_cash_dividend == 30 * M
    assert run(_rolling("higher_of"), 2025, ROLL).min_cash_dividend == 40 * M  # 60m − 20m


def test_a_rolling_amount_without_its_join_is_refused(tmp_path):
    rule = {"id": "roll", "kind": "min_cash_rolling", "window": 3, "ratio": 0.3, "amount": 50 * M}
    assert any("combine" in e for e in load_errors(tmp_path, _mini_data([rule])))


def test_the_seventh_plan_in_one_year(seventh):
    rep = run(seventh, 2025, Y7)
    st = {r.id: r.status for r in rep.rules if not r.id.startswith("reg_")}
    assert st == {"cond_distributable_positive": "met", "cond_no_major_outlay": "met",
                  "min_annual_lower_basis": "pass",  # 40m ≥ 30% × 110m = 33m
                  "min_rolling_or_amount": "pass"}  # 60m ≥ min(30% × 320m / 3 = 32m, 50m) = 32m
    assert rep.rule("min_rolling_or_amount").required == 32 * M
    assert rep.min_cash_dividend == 33 * M  # max(33m, 32m − 20m paid before)


# ---- the report's words ----------------------------------------------------------------------------------

def test_an_either_of_group_says_which_alternative_is_met():
    from test_capabilities import SIXTH

    sixth = load_policy_file(SIXTH)
    base = {2022: {"distributable_profit": 100 * M, "cash_dividend": 0},
            2023: {"distributable_profit": 100 * M, "cash_dividend": 0},
            2024: {"distributable_profit": 100 * M, "net_assets": 1_000 * M, "planned_major_outlay": 0,
                   "net_profit_attributable": 100 * M, "cash_dividend": 10 * M}}
    r = run(sixth, 2024, base, baseline=False).rule("min_either")
    assert r.status == "pass"  # 10m ≥ 10% × 100m; the window 10m < 30% × 100m
    assert r.explanation_zh.startswith("满足备选：") and "10%" in r.explanation_zh and "三年" not in r.explanation_zh
    short = run(sixth, 2024, _years(base, y2024={"cash_dividend": 9 * M}), baseline=False).rule("min_either")
    assert short.status == "fail"
    assert short.explanation_zh.startswith("各备选均未满足：") and short.explanation_zh.count("（不满足）") == 2
    assert "已确认" not in short.explanation_zh + r.explanation_zh


def test_a_count_of_distributions_prints_as_a_whole_number():
    p = mini([{"id": "two", "kind": "min_distributions", "count": 2}])
    r = run(p, 2025, {2025: {"distribution_count": 1, "cash_dividend": 1e6}}).rule("two")
    assert r.status == "fail"
    assert "1" in r.explanation_zh and "2" in r.explanation_zh and ".00" not in r.explanation_zh


def _drop():
    from test_capabilities import _DROP
    return _DROP


def test_a_blank_profit_in_the_window_is_missing_input_with_a_fixed_amount_too():
    # 2023's net profit blank: read as 0 it would understate the ratio's bound (30% × 200m / 3 = 20m)
    years = _years(ROLL, y2023={"net_profit_attributable": _drop()}, y2025={"cash_dividend": 1 * M})
    for combine in ("lower_of", "higher_of"):
        r = run(_rolling(combine), 2025, years).rule("roll")
        assert r.status == "missing_input" and any("2023" in m for m in r.missing_inputs), combine
