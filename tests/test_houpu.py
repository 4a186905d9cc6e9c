"""houpu-2024-2026: every rule of the Houpu Clean Energy plan, against the plan text.

Plan text: templates/texts/houpu-2024-2026.txt (DOMAIN.md §2, "Houpu").
Every expected number below is worked out by hand from the plan text; the
arithmetic is in the comment next to it. Amounts are compared after rounding
half-up to the fen (DOMAIN.md §4).

Baseline: evaluation year 2024, history 2022–2024, every attestation confirmed,
all three conditions of 三、(三)、1 met, a cash-only distribution of 20,000,000.
Each test varies one thing.
"""

from __future__ import annotations

import copy

import pytest

from conftest import case, run
from xlmodel.errors import CaseError
from xlmodel.evaluator import evaluate, model_for
from xlmodel.plans.loading import load_policy

POLICY = "houpu-2024-2026"
YEAR = 2024

BASE_YEARS = {
    2022: {"distributable_profit": 50_000_000, "net_profit_attributable": 55_000_000, "cash_dividend": 10_000_000},
    2023: {"distributable_profit": 60_000_000, "net_profit_attributable": 66_000_000, "cash_dividend": 12_000_000},
    2024: {
        "distributable_profit": 80_000_000,
        "net_profit_attributable": 90_000_000,
        "audit_opinion": "standard_unqualified",
        "net_assets": 1_000_000_000,
        "total_assets": 2_500_000_000,  # 30% of it (750m) must NOT be the major-outlay basis
        "planned_major_outlay": 100_000_000,  # < 30% × 1,000,000,000 = 300,000,000 → not major
        "retained_earnings_consolidated": 300_000_000,
        "retained_earnings_parent": 250_000_000,
        "going_concern_unaffected": True,
        "independent_directors_opinion": True,
        "cash_dividend": 20_000_000,
    },
}
BASE_ATTEST = {
    "stock_dividend_basis": True,
    "policy_change_two_thirds": True,
    "no_distribution_supervisory_statement": True,
}

ALL_RULES = {
    "cond_distributable_positive", "cond_audit_opinion", "cond_no_major_outlay",
    "distribution_cap", "distribution_cap_interim", "going_concern", "cash_share", "cash_share_interim", "annual_cash_in_principle",
    "stock_dividend_basis", "independent_directors_opinion", "policy_change_two_thirds",
    "no_distribution_supervisory_statement",
}

_DROP = object()


def houpu(attest: dict | None = None, **y2024):
    """Evaluate the baseline with fields of 2024 changed (``_DROP`` removes a field)."""
    years = copy.deepcopy(BASE_YEARS)
    for k, v in y2024.items():
        if v is _DROP:
            years[YEAR].pop(k, None)
        else:
            years[YEAR][k] = v
    att = dict(BASE_ATTEST)
    for k, v in (attest or {}).items():
        if v is _DROP:
            att.pop(k, None)
        else:
            att[k] = v
    return run(POLICY, YEAR, years, att)


def statuses(rep) -> dict[str, str]:
    return {r.id: r.status for r in rep.rules}


# ---- the policy itself --------------------------------------------------------

def test_every_rule_of_the_policy_is_covered_here():
    # If a rule is added to the policy file, this file must grow a test for it.
    assert {r.id for r in load_policy(POLICY).rules} == ALL_RULES


def test_settings_and_major_outlay_definition_follow_the_text():
    p = load_policy(POLICY)
    assert p.major_outlay.basis == "net_assets"  # 三、(三)、1、(3) “最近一期经审计净资产”
    assert p.major_outlay.ratio == pytest.approx(0.30)  # “的30%”
    assert p.major_outlay.floor is None  # the text gives no absolute floor
    assert p.settings.retained_earnings_basis == "lower"  # “累计可供分配利润”, statement unspecified → 孰低


# ---- baseline -------------------------------------------------------------------

def test_baseline_complies():
    rep = houpu()
    assert rep.overall_status == "pass"
    assert rep.exit_code == 0
    assert rep.cash_conditions_met is True
    assert (rep.fail_count, rep.warn_count, rep.missing_input_count) == (0, 0, 0)
    assert statuses(rep) == {
        # conditions are met / not met, not pass / fail
        "cond_distributable_positive": "met",  # 80,000,000 > 0
        "cond_audit_opinion": "met",  # standard_unqualified
        "cond_no_major_outlay": "met",  # 100,000,000 < 300,000,000
        "distribution_cap": "pass",  # 20,000,000 ≤ min(300m, 250m) = 250,000,000
        "distribution_cap_interim": "not_applicable",  # no interim distribution
        "going_concern": "pass",  # distribution made, board confirms
        "cash_share": "pass",  # no stock dividend: cash needed 0 × 0.2/0.8 = 0
        "cash_share_interim": "not_applicable",  # no interim distribution
        "annual_cash_in_principle": "pass",  # 20,000,000 > 0
        "stock_dividend_basis": "not_applicable",  # no stock dividend / conversion
        "independent_directors_opinion": "pass",
        "policy_change_two_thirds": "pass",
        "no_distribution_supervisory_statement": "not_applicable",  # a distribution (cash 20,000,000) is proposed
    }


def test_no_numeric_minimum_when_conditions_are_met():
    # The plan sets no % of profit (DOMAIN §2 Houpu: “No numeric payout minimum”).
    # Conditions met, no stock dividend → the only quantitative minimum is the cash share:
    # 0 × 0.20 / (1 − 0.20) = 0.00
    rep = houpu()
    assert rep.cash_conditions_met is True
    assert rep.min_cash_dividend == 0.0
    # also with no cash at all: still no numeric minimum
    rep = houpu(cash_dividend=0)
    assert rep.min_cash_dividend == 0.0


def test_max_distribution_is_lower_of_consolidated_and_parent():
    rep = houpu()
    assert rep.max_distribution == 250_000_000.00  # min(300,000,000, 250,000,000)


# ---- 三、(三)、1、(1) distributable profit 为正值 (> 0) ------------------------------

@pytest.mark.parametrize("profit, status", [
    (0, "not_met"),  # 0 is not 正值: 0 > 0 is false
    (-1_000_000, "not_met"),  # loss
    (0.004, "not_met"),  # rounds half-up to 0.00 → 0.00 > 0 false
    (0.005, "met"),  # rounds half-up to 0.01 → 0.01 > 0
    (0.01, "met"),  # one fen
])
def test_distributable_profit_positive(profit, status):
    rep = houpu(distributable_profit=profit)
    assert rep.rule("cond_distributable_positive").status == status
    assert rep.cash_conditions_met is (status == "met")


def test_distributable_profit_zero_makes_minimums_not_applicable():
    rep = houpu(distributable_profit=0)
    assert rep.cash_conditions_met is False
    assert rep.rule("cash_share").status == "not_applicable"
    assert rep.rule("annual_cash_in_principle").status == "not_applicable"
    assert rep.min_cash_dividend == 0.0  # conditions not met, no stock dividend → 0
    # conditions are conditions, not violations: the rest complies
    assert rep.overall_status == "pass"


# ---- 三、(三)、1、(2) 标准无保留意见 only ------------------------------------------

@pytest.mark.parametrize("opinion, status", [
    ("standard_unqualified", "met"),
    ("unqualified_with_emphasis", "not_met"),  # “标准无保留意见” excludes an emphasis-of-matter paragraph
    ("qualified", "not_met"),
    ("adverse", "not_met"),
    ("disclaimer", "not_met"),
])
def test_audit_opinion_standard_unqualified_only(opinion, status):
    rep = houpu(audit_opinion=opinion)
    assert rep.rule("cond_audit_opinion").status == status
    assert rep.cash_conditions_met is (status == "met")


# ---- 三、(三)、1、(3) major outlay: planned ≥ 30% of latest audited NET ASSETS ---------

def test_major_outlay_exact_boundary_is_major():
    # 达到或者超过 → >=. Threshold 30% × 1,000,000,000 = 300,000,000.00
    rep = houpu(planned_major_outlay=300_000_000)
    r = rep.rule("cond_no_major_outlay")
    assert r.required == 300_000_000.00  # 0.30 × 1,000,000,000
    assert r.status == "not_met"  # 300,000,000.00 >= 300,000,000.00 → major → condition not met
    assert rep.cash_conditions_met is False


def test_major_outlay_one_fen_below_is_not_major():
    rep = houpu(planned_major_outlay=299_999_999.99)
    # 299,999,999.99 < 300,000,000.00 → no major outlay
    assert rep.rule("cond_no_major_outlay").status == "met"
    assert rep.cash_conditions_met is True


def test_major_outlay_basis_is_net_assets_not_total_assets():
    # 30% × total assets 2,500,000,000 = 750,000,000 would call 400m "not major";
    # the text says 净资产: 400,000,000 >= 300,000,000 → major.
    rep = houpu(planned_major_outlay=400_000_000)
    assert rep.rule("cond_no_major_outlay").status == "not_met"
    # and total assets are not read at all
    rep = houpu(total_assets=_DROP)
    assert rep.rule("cond_no_major_outlay").status == "met"


@pytest.mark.parametrize("outlay, status", [
    (300_000.05, "not_met"),  # 30% × 1,000,000.15 = 300,000.045 → half-up 300,000.05; .05 >= .05 → major
    (300_000.04, "met"),  # .04 < .05 → not major (round-half-even would give .04 and call it major)
])
def test_major_outlay_threshold_rounded_half_up_at_half_fen(outlay, status):
    rep = houpu(net_assets=1_000_000.15, planned_major_outlay=outlay)
    r = rep.rule("cond_no_major_outlay")
    assert r.required == 300_000.05  # ROUND(0.30 × 1,000,000.15 = 300,000.045, 2) = 300,000.05
    assert r.status == status


@pytest.mark.parametrize("net_assets, threshold, at, below", [
    # 0.30 × 1,000,000.10 = 300,000.03 exactly in decimal (binary float: 300,000.029999…)
    (1_000_000.10, 300_000.03, 300_000.03, 300_000.02),
    # 0.30 × 1,000,000.01 = 300,000.003 → rounds to 300,000.00: an outlay of 300,000.00 is major
    (1_000_000.01, 300_000.00, 300_000.00, 299_999.99),
])
def test_major_outlay_threshold_fen_boundaries(net_assets, threshold, at, below):
    rep = houpu(net_assets=net_assets, planned_major_outlay=at)
    assert rep.rule("cond_no_major_outlay").required == threshold
    assert rep.rule("cond_no_major_outlay").status == "not_met"  # at the threshold → major
    rep = houpu(net_assets=net_assets, planned_major_outlay=below)
    assert rep.rule("cond_no_major_outlay").status == "met"  # one fen below → not major


@pytest.mark.parametrize("outlay, status", [
    (299_999_999.995, "not_met"),  # rounds half-up to 300,000,000.00 >= 300,000,000.00 → major
    (299_999_999.994, "met"),  # rounds to 299,999,999.99 < 300,000,000.00
])
def test_planned_outlay_is_rounded_to_the_fen(outlay, status):
    assert houpu(planned_major_outlay=outlay).rule("cond_no_major_outlay").status == status


# ---- 三、(三)、2、(2) cash ≥ 20% of the distribution, only when conditions are met ------

def test_cash_share_exactly_twenty_percent_passes():
    # stock 100 → cash needed = 100 × 0.20 / (1 − 0.20) = 20 / 0.8 = 25.00
    # check: 25 / (25 + 100) = 0.20
    rep = houpu(cash_dividend=25, stock_dividend=100)
    r = rep.rule("cash_share")
    assert r.status == "pass"
    assert r.required == 25.00
    assert r.actual == 25.00
    assert rep.min_cash_dividend == 25.00  # the only minimum of the plan
    assert rep.overall_status == "pass"


def test_cash_share_one_fen_short_fails():
    rep = houpu(cash_dividend=24.99, stock_dividend=100)
    r = rep.rule("cash_share")
    assert r.status == "fail"
    assert r.required == 25.00  # 100 × 0.2 / 0.8
    assert r.shortfall == 0.01  # 25.00 − 24.99
    assert rep.overall_status == "fail"
    assert rep.exit_code == 1


def test_cash_share_stock_only_fails_by_the_whole_requirement():
    rep = houpu(cash_dividend=0, stock_dividend=100)
    r = rep.rule("cash_share")
    assert r.status == "fail"
    assert r.shortfall == 25.00  # 25.00 − 0


@pytest.mark.parametrize("cash, status, shortfall", [
    (250_000.01, "pass", 0.0),
    (250_000.00, "fail", 0.01),
])
def test_cash_share_requirement_rounded_half_up(cash, status, shortfall):
    # stock 1,000,000.02 → 1,000,000.02 × 0.2 / 0.8 = 250,000.005 → half-up 250,000.01
    rep = houpu(cash_dividend=cash, stock_dividend=1_000_000.02)
    r = rep.rule("cash_share")
    assert r.required == 250_000.01
    assert r.status == status
    assert r.shortfall == shortfall


def test_cash_share_counts_buybacks():
    # settings.cash_includes_buybacks: true (CSRC guideline No. 3; DOMAIN §3 buyback_amount)
    # cash = 20 + 5 = 25.00 ≥ 25.00
    rep = houpu(cash_dividend=20, buyback_amount=5, stock_dividend=100)
    assert rep.rule("cash_share").actual == 25.00
    assert rep.rule("cash_share").status == "pass"


@pytest.mark.parametrize("change", [
    {"audit_opinion": "unqualified_with_emphasis"},
    {"distributable_profit": 0},
    {"planned_major_outlay": 300_000_000},
])
def test_cash_share_not_applicable_when_conditions_fail(change):
    # 三、(三)、2: “在符合上述现金分红条件的情况下” — the 20% is nested under the conditions.
    rep = houpu(cash_dividend=0, stock_dividend=100, **change)
    assert rep.cash_conditions_met is False
    assert rep.rule("cash_share").status == "not_applicable"
    assert rep.min_cash_dividend == 0.0  # the 25.00 does not apply when conditions fail


def test_cash_share_not_applicable_without_distribution():
    rep = houpu(cash_dividend=0, stock_dividend=0)
    assert rep.rule("cash_share").status == "not_applicable"


# ---- 三、(三)、2、(3) 原则上每年现金分红: a warning -------------------------------------

def test_annual_cash_in_principle_is_a_warning():
    rep = houpu(cash_dividend=0)
    r = rep.rule("annual_cash_in_principle")
    assert r.status == "warn"
    assert r.severity == "warn"
    assert rep.overall_status == "warn"
    assert rep.exit_code == 0  # a warning does not fail the check
    assert (rep.fail_count, rep.warn_count) == (0, 1)


def test_annual_cash_in_principle_only_when_conditions_met():
    rep = houpu(cash_dividend=0, distributable_profit=-1)
    assert rep.rule("annual_cash_in_principle").status == "not_applicable"
    assert rep.overall_status == "pass"


def test_annual_cash_in_principle_counts_buybacks():
    rep = houpu(cash_dividend=0, buyback_amount=1_000)  # cash = 0 + 1,000 > 0
    assert rep.rule("annual_cash_in_principle").status == "pass"


# ---- 三、(一) 不得超过累计可供分配利润: lower of consolidated and parent ---------------

@pytest.mark.parametrize("cash, status, over", [
    (250_000_000.00, "pass", 0.0),  # = min(300m, 250m)
    (250_000_000.01, "fail", 0.01),  # 250,000,000.01 − 250,000,000.00
])
def test_distribution_cap_boundary(cash, status, over):
    rep = houpu(cash_dividend=cash)
    r = rep.rule("distribution_cap")
    assert r.required == 250_000_000.00  # min(300,000,000, 250,000,000)
    assert r.status == status
    assert r.shortfall == over


def test_distribution_cap_includes_stock_dividend():
    # distribution = 200,000,000 + 50,000,000.01 = 250,000,000.01 > 250,000,000.00
    rep = houpu(cash_dividend=200_000_000, stock_dividend=50_000_000.01)
    r = rep.rule("distribution_cap")
    assert r.actual == 250_000_000.01
    assert r.status == "fail"
    assert r.shortfall == 0.01


def test_distribution_cap_uses_consolidated_when_it_is_lower():
    rep = houpu(retained_earnings_consolidated=240_000_000, cash_dividend=245_000_000)
    r = rep.rule("distribution_cap")
    assert r.required == 240_000_000.00  # min(240m, 250m)
    assert r.status == "fail"
    assert r.shortfall == 5_000_000.00  # 245m − 240m
    assert rep.max_distribution == 240_000_000.00


def test_distribution_cap_negative_retained_earnings_caps_at_zero():
    rep = houpu(retained_earnings_parent=-10_000_000)
    r = rep.rule("distribution_cap")
    assert r.required == 0.0  # max(0, min(300m, −10m))
    assert r.status == "fail"
    assert r.shortfall == 20_000_000.00  # 20m − 0
    assert rep.max_distribution == 0.0
    # nothing distributed: nothing to measure against the cap (as the law's cap, reg_distribution_cap)
    r = houpu(retained_earnings_parent=-10_000_000, cash_dividend=0).rule("distribution_cap")
    assert (r.status, r.reason) == ("not_applicable", "na_no_distribution")


# Each distribution against the figure it is paid out of (issue 47, point 1): an interim paid out of the
# half-year-end figures has already left the year-end retained earnings, so the final alone is measured
# against them; the interim against min(consolidated, parent) at its own period end.

HALF_YEAR = {"half_year_retained_earnings_consolidated": 180_000_000, "half_year_retained_earnings_parent": 150_000_000}


@pytest.mark.parametrize("final, status, over", [
    (250_000_000.00, "pass", 0.0),   # 400,000,000 − 150,000,000 = 250,000,000 = min(300m, 250m)
    (250_000_000.01, "fail", 0.01),  # a fen more on the final
])
def test_distribution_cap_final_without_the_interim(final, status, over):
    rep = houpu(interim_cash_dividend=150_000_000, cash_dividend=150_000_000 + final, **HALF_YEAR)
    r = rep.rule("distribution_cap")
    assert (r.actual, r.required, r.status, r.shortfall) == (final, 250_000_000.00, status, over)
    i = rep.rule("distribution_cap_interim")  # 150,000,000 ≤ min(180m, 150m) = 150,000,000
    assert (i.actual, i.required, i.status, i.margin) == (150_000_000.00, 150_000_000.00, "pass", 0.0)


@pytest.mark.parametrize("interim, status, over", [
    (150_000_000.00, "pass", 0.0),   # = min(180m, 150m)
    (150_000_000.01, "fail", 0.01),
])
def test_distribution_cap_interim_boundary(interim, status, over):
    rep = houpu(interim_cash_dividend=interim, cash_dividend=interim + 20_000_000, **HALF_YEAR)
    r = rep.rule("distribution_cap_interim")
    assert (r.actual, r.required, r.status, r.shortfall) == (interim, 150_000_000.00, status, over)
    assert rep.rule("distribution_cap").actual == 20_000_000.00  # the final alone


def test_distribution_cap_interim_uses_consolidated_when_it_is_lower():
    rep = houpu(interim_cash_dividend=100_000_000, cash_dividend=120_000_000,
                half_year_retained_earnings_consolidated=99_999_999.99, half_year_retained_earnings_parent=150_000_000)
    r = rep.rule("distribution_cap_interim")
    assert (r.required, r.status, r.shortfall) == (99_999_999.99, "fail", 0.01)
    assert houpu(interim_cash_dividend=100_000_000, cash_dividend=120_000_000).rule(
        "distribution_cap_interim").status == "missing_input"  # an interim needs its period-end figures


# ---- 三、(一) 不得损害公司持续经营能力: attestation via going_concern_unaffected -----------

def test_going_concern_not_confirmed_fails():
    rep = houpu(going_concern_unaffected=False)
    assert rep.rule("going_concern").status == "fail"
    assert rep.overall_status == "fail"


def test_going_concern_only_when_a_distribution_is_made():
    rep = houpu(going_concern_unaffected=False, cash_dividend=0)
    assert rep.rule("going_concern").status == "not_applicable"
    # a stock-only distribution is a distribution
    rep = houpu(going_concern_unaffected=False, cash_dividend=0, stock_dividend=100)
    assert rep.rule("going_concern").status == "fail"


def test_going_concern_reads_the_canonical_field():
    rep = houpu(going_concern_unaffected=_DROP)
    r = rep.rule("going_concern")
    assert r.status == "missing_input"
    assert any("going_concern_unaffected" in m for m in r.missing_inputs)
    # it is a field, not an attestation of the case
    assert "going_concern" not in model_for(load_policy(POLICY)).attestation_ids()


# ---- 三、(四) stock dividend basis (attestation) --------------------------------------

def test_stock_dividend_basis():
    assert houpu().rule("stock_dividend_basis").status == "not_applicable"  # no stock
    rep = houpu(cash_dividend=25, stock_dividend=100)
    assert rep.rule("stock_dividend_basis").status == "pass"
    rep = houpu({"stock_dividend_basis": False}, cash_dividend=25, stock_dividend=100)
    assert rep.rule("stock_dividend_basis").status == "fail"
    assert rep.overall_status == "fail"


def test_stock_dividend_basis_applies_to_capital_reserve_conversion():
    rep = houpu({"stock_dividend_basis": False}, capital_reserve_conversion=1_000_000)
    assert rep.rule("stock_dividend_basis").status == "fail"


def test_stock_dividend_basis_missing_attestation():
    rep = houpu({"stock_dividend_basis": _DROP}, cash_dividend=25, stock_dividend=100)
    assert rep.rule("stock_dividend_basis").status == "missing_input"
    # not needed when there is no stock dividend
    assert houpu({"stock_dividend_basis": _DROP}).rule("stock_dividend_basis").status == "not_applicable"


# ---- 四、(一)、2 independent directors' opinion -----------------------------------------

@pytest.mark.parametrize("value, status", [(True, "pass"), (False, "fail"), (_DROP, "missing_input")])
def test_independent_directors_opinion(value, status):
    rep = houpu(independent_directors_opinion=value)
    r = rep.rule("independent_directors_opinion")
    assert r.status == status
    if status == "missing_input":
        assert any("independent_directors_opinion" in m for m in r.missing_inputs)
        assert rep.overall_status == "missing_input"
        assert rep.exit_code == 1


# ---- 四、(二) policy change passed with ≥ 2/3 (attestation) ----------------------------

@pytest.mark.parametrize("value, status", [(True, "pass"), (False, "fail"), (_DROP, "missing_input")])
def test_policy_change_two_thirds(value, status):
    rep = houpu({"policy_change_two_thirds": value})
    assert rep.rule("policy_change_two_thirds").status == status
    assert rep.overall_status == {"pass": "pass", "fail": "fail", "missing_input": "missing_input"}[status]


# ---- 四、(二) supervisory statement when profitable without a distribution -------------

def test_supervisory_statement_applies_when_profitable_and_no_distribution():
    rep = houpu({"no_distribution_supervisory_statement": False}, cash_dividend=0)
    assert rep.rule("no_distribution_supervisory_statement").status == "fail"  # 90m > 0, cash 0 + stock 0
    rep = houpu({"no_distribution_supervisory_statement": True}, cash_dividend=0)
    assert rep.rule("no_distribution_supervisory_statement").status == "pass"


def test_supervisory_statement_stock_only_is_a_distribution_proposal():
    # 四、(二) “盈利但未提出利润分配的预案”: a stock dividend is a distribution proposal, so a
    # stock-only year (cash 0 + stock 100 = 100 > 0) is not applicable
    rep = houpu({"no_distribution_supervisory_statement": False}, cash_dividend=0, stock_dividend=100)
    r = rep.rule("no_distribution_supervisory_statement")
    assert r.status == "not_applicable"
    assert r.reason == "na_distribution_made"
    assert r.explanation_zh == "不适用：本年度已提出利润分配"
    # a stock dividend of 0.004 rounds to 0.00: no distribution at all → applies
    rep = houpu({"no_distribution_supervisory_statement": False}, cash_dividend=0, stock_dividend=0.004)
    assert rep.rule("no_distribution_supervisory_statement").status == "fail"


@pytest.mark.parametrize("change", [
    {"cash_dividend": 0.01},  # a cash proposal was made
    {"cash_dividend": 0, "stock_dividend": 0.01},  # a stock-only proposal was made
    {"cash_dividend": 0, "net_profit_attributable": 0},  # not 盈利: 0 > 0 false
    {"cash_dividend": 0, "net_profit_attributable": -5_000_000},  # loss
])
def test_supervisory_statement_not_applicable(change):
    rep = houpu({"no_distribution_supervisory_statement": False}, **change)
    assert rep.rule("no_distribution_supervisory_statement").status == "not_applicable"


def test_supervisory_statement_needs_net_profit_to_decide():
    rep = houpu(cash_dividend=0, net_profit_attributable=_DROP)
    assert rep.rule("no_distribution_supervisory_statement").status == "missing_input"


# ---- missing inputs ------------------------------------------------------------------

def test_missing_condition_input_makes_conditions_unknown():
    rep = houpu(distributable_profit=_DROP)
    r = rep.rule("cond_distributable_positive")
    assert r.status == "missing_input"
    assert any("distributable_profit" in m and "2024" in m for m in r.missing_inputs)
    assert rep.cash_conditions_met is None
    # the requirements that hang on the conditions cannot be decided
    assert rep.rule("cash_share").status == "missing_input"
    assert rep.rule("annual_cash_in_principle").status == "missing_input"
    assert rep.min_cash_dividend is None
    assert rep.overall_status == "missing_input"
    assert rep.exit_code == 1


@pytest.mark.parametrize("field, rule", [
    ("audit_opinion", "cond_audit_opinion"),
    ("net_assets", "cond_no_major_outlay"),
    ("planned_major_outlay", "cond_no_major_outlay"),
])
def test_missing_condition_inputs(field, rule):
    rep = houpu(**{field: _DROP})
    assert rep.rule(rule).status == "missing_input"
    assert any(field in m for m in rep.rule(rule).missing_inputs)
    assert rep.cash_conditions_met is None


def test_failed_condition_outweighs_a_missing_one():
    # one condition fails → conditions are not met, whatever the missing one would say
    rep = houpu(net_assets=_DROP, audit_opinion="qualified")
    assert rep.cash_conditions_met is False
    assert rep.rule("cash_share").status == "not_applicable"


@pytest.mark.parametrize("field", ["retained_earnings_parent", "retained_earnings_consolidated"])
def test_missing_retained_earnings(field):
    rep = houpu(**{field: _DROP})
    assert rep.rule("distribution_cap").status == "missing_input"  # lower-of reads both
    assert rep.max_distribution is None


def test_distribution_amounts_default_to_zero():
    # no cash_dividend / stock_dividend / buyback given: 0, not missing
    rep = houpu(cash_dividend=_DROP)
    assert rep.rule("annual_cash_in_principle").status == "warn"
    assert rep.rule("distribution_cap").status == "not_applicable"  # no distribution to measure
    assert rep.missing_input_count == 0


def test_unknown_attestation_is_a_case_error():
    with pytest.raises(CaseError) as e:
        evaluate(case(POLICY, YEAR, BASE_YEARS, {**BASE_ATTEST, "no_such_rule": True}))
    assert "attestations.no_such_rule" in str(e.value)


# ---- workbook parity at the fen boundaries (LibreOffice recalculation) ---------------------

@pytest.mark.libreoffice
def test_workbook_recalculated_at_fen_boundaries(tmp_path, libreoffice):
    import openpyxl

    from xlmodel.engines.recalc import recalculate
    from xlmodel.workbook.writer import build_workbook

    def years(**y2024):
        ys = copy.deepcopy(BASE_YEARS)
        ys[YEAR].update(y2024)
        return ys

    cases = {
        # threshold ROUND(0.3 × 1,000,000.15 = 300,000.045) = 300,000.05; .04 → not major → conditions met;
        # stock 1,000,000.02 → 1,000,000.02 × 0.2/0.8 = 250,000.005 → 250,000.01; cash 250,000.00 → fail
        "half": (years(net_assets=1_000_000.15, planned_major_outlay=300_000.04, stock_dividend=1_000_000.02,
                       cash_dividend=250_000.00), 250_000.01, "不通过"),
        # outlay .05 >= .05 → major → conditions not met → the share does not apply → 0
        "major": (years(net_assets=1_000_000.15, planned_major_outlay=300_000.05, stock_dividend=1_000_000.02,
                        cash_dividend=250_000.00), 0.0, "通过"),
    }
    from xlmodel.evaluator import plan_only
    from xlmodel.plans.loading import load_policy

    # the plan's own rules (as in the rest of this file; the regulatory layer has its own tests)
    files = [build_workbook(tmp_path / f"{k}.xlsx", policy=plan_only(load_policy(POLICY)), case=case(POLICY, YEAR, ys, BASE_ATTEST))
             for k, (ys, _, _) in cases.items()]
    for path, (ys, min_cash, overall) in zip(recalculate(files, tmp_path / "lo"), cases.values()):
        wb = openpyxl.load_workbook(path, data_only=True)

        def out(name):
            (sheet, coord), = wb.defined_names[name].destinations
            return wb[sheet][coord].value

        assert out("out_min_cash_dividend") == pytest.approx(min_cash, abs=0.001)
        assert out("out_overall_status") == overall
