"""Rule-by-rule tests of policy `gcl-energy-2022-2024` (协鑫能源 股东分红回报规划 2022–2024).

Every expected number is worked out by hand from the plan text
(templates/texts/gcl-energy-2022-2024.txt) and DOMAIN.md §4; the arithmetic is
written next to it. Amounts are in 元.

The baseline (``BASE_YEARS`` / ``BASE_ATTEST``) is a fully compliant company,
evaluated for fiscal year 2023 with history 2021–2023. Each test changes one
thing through ``evaluate(year=..., prior=..., attest=...)``; a value of None
removes the input (a blank cell).
"""

from __future__ import annotations

import copy
import datetime as dt

import pytest

from xlmodel.errors import CaseError

from conftest import run

POLICY = "gcl-energy-2022-2024"
YEAR = 2023

BASE_YEARS = {
    2021: {"distributable_profit": 60_000_000.0, "cash_dividend": 20_000_000.0},
    2022: {"distributable_profit": 80_000_000.0, "cash_dividend": 20_000_000.0},
    2023: {
        "net_profit_attributable": 150_000_000.0,
        "distributable_profit": 100_000_000.0,
        "retained_earnings_consolidated": 500_000_000.0,
        "retained_earnings_parent": 400_000_000.0,
        "total_assets": 1_000_000_000.0,
        "planned_major_outlay": 100_000_000.0,  # 10% of total assets: not major
        "development_stage": "mature",
        "going_concern_unaffected": True,
        "audit_opinion": "standard_unqualified",
        "cash_dividend": 30_000_000.0,
        "buyback_amount": 0.0,
        "stock_dividend": 0.0,
        "capital_reserve_conversion": 0.0,
        "independent_directors_opinion": True,
        "agm_date": dt.date(2024, 5, 20),
        "payout_date": dt.date(2024, 6, 20),
    },
}

# rule-level attestations (kind attestation without a field of their own)
ATTESTATIONS = [
    "stock_dividend_basis",
    "board_records_kept",
    "minority_consulted",
    "no_cash_explanation",
    "no_cash_annual_report",
    "no_cash_supervisory_statement",
    "fund_occupation_withheld",
    "plan_change_two_thirds",
    "interim_period_end_retained_positive",  # applies only with an interim cash dividend
]
BASE_ATTEST = {a: True for a in ATTESTATIONS}

CONDITIONS = ["cond_retained_positive", "cond_going_concern", "cond_audit_opinion", "cond_no_major_outlay"]
MINIMUMS_WHEN_MET = ["min_annual", "min_rolling", "annual_cash_in_principle"]

# every rule of the policy with the clause of the plan it implements
RULE_CLAUSES = {
    "cond_retained_positive": "三、(二)、1、(1)",
    "cond_going_concern": "三、(二)、1、(2)",
    "cond_audit_opinion": "三、(二)、1、(3)",
    "cond_no_major_outlay": "三、(二)、1、(4)",
    # the conditions come first in the report, then the requirements in plan order
    "interim_period_end_retained_positive": "三、(二)、1、(1)",
    "min_annual": "三、(二)、2、(1)",
    "min_rolling": "三、(二)、2、(1)",
    "distribution_cap": "三、(二)、2、(3)",
    "distribution_cap_interim": "三、(二)、2、(3)",  # the interim against its own period end's figure
    "annual_cash_in_principle": "三、(三)",
    "stock_dividend_basis": "三、(四)",
    "cash_share": "三、(五)",
    "cash_share_interim": "三、(五)",  # the interim distribution's own share (本次利润分配)
    "independent_directors_opinion": "三、(六)",
    "board_records_kept": "三、(七)",
    "minority_consulted": "三、(九)",
    "payout_within_two_months": "三、(九)",
    "no_cash_explanation": "三、(十)",
    "no_cash_annual_report": "三、(十一)",
    "no_cash_supervisory_statement": "三、(十二)",
    "fund_occupation_withheld": "三、(十三)",
    "plan_change_two_thirds": "四、(二)",
}


def _apply(target: dict, changes: dict):
    for k, v in changes.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = v


def evaluate(year: dict | None = None, prior: dict | None = None, attest: dict | None = None):
    """The baseline with one or more changes; ``None`` removes an input."""
    years = copy.deepcopy(BASE_YEARS)
    _apply(years[YEAR], year or {})
    for fy, vals in (prior or {}).items():
        years.setdefault(fy, {})
        _apply(years[fy], vals)
    att = dict(BASE_ATTEST)
    _apply(att, attest or {})
    return run(POLICY, YEAR, years, att)


def status(rep, rule_id: str) -> str:
    return rep.rule(rule_id).status


# ---------------------------------------------------------------------------
# baseline
# ---------------------------------------------------------------------------

def test_report_lists_every_rule_with_its_clause():
    rep = evaluate()
    assert rep.policy == POLICY
    assert rep.evaluation_year == YEAR
    assert [r.id for r in rep.rules] == list(RULE_CLAUSES)
    assert {r.id: r.clause for r in rep.rules} == RULE_CLAUSES
    assert {r.id for r in rep.rules if r.role == "condition"} == set(CONDITIONS)
    assert rep.rule("annual_cash_in_principle").severity == "warn"
    r = rep.rule("interim_period_end_retained_positive")
    assert (r.role, r.severity) == ("requirement", "warn")


def test_baseline_is_compliant():
    rep = evaluate()
    expected = {rid: "pass" for rid in RULE_CLAUSES}
    # conditions are met / not met, not pass / fail
    expected.update({rid: "met" for rid in CONDITIONS})
    # no interim cash dividend: the interim check does not apply
    expected["interim_period_end_retained_positive"] = "not_applicable"
    expected["cash_share_interim"] = "not_applicable"
    expected["distribution_cap_interim"] = "not_applicable"
    # no stock dividend and no capital-reserve conversion: 三、(四) does not apply
    expected["stock_dividend_basis"] = "not_applicable"
    # cash dividend 30,000,000 > 0: not a "profitable but no cash proposal" year
    for rid in ("no_cash_explanation", "no_cash_annual_report", "no_cash_supervisory_statement"):
        expected[rid] = "not_applicable"
    assert {r.id: r.status for r in rep.rules} == expected
    assert rep.cash_conditions_met is True
    assert rep.overall_status == "pass"
    assert (rep.fail_count, rep.warn_count, rep.missing_input_count) == (0, 0, 0)
    assert rep.exit_code == 0


def test_baseline_amounts():
    rep = evaluate()
    # 10% × 100,000,000 = 10,000,000.00
    assert rep.rule("min_annual").required == 10_000_000.00
    assert rep.rule("min_annual").actual == 30_000_000.00  # 30,000,000 cash + 0 buyback
    # (60,000,000 + 80,000,000 + 100,000,000) / 3 = 80,000,000; × 30% = 24,000,000.00
    assert rep.rule("min_rolling").required == 24_000_000.00
    # 20,000,000 + 20,000,000 + 30,000,000 = 70,000,000
    assert rep.rule("min_rolling").actual == 70_000_000.00
    # min(500,000,000 consolidated, 400,000,000 parent) = 400,000,000
    assert rep.rule("distribution_cap").required == 400_000_000.00
    assert rep.rule("distribution_cap").actual == 30_000_000.00  # 30,000,000 cash + 0 stock
    # no stock dividend: cash needed 0 × 0.8 / 0.2 = 0
    assert rep.rule("cash_share").required == 0.0
    # 30% × 1,000,000,000 = 300,000,000.00
    assert rep.rule("cond_no_major_outlay").required == 300_000_000.00
    # max(annual 10,000,000; rolling 24,000,000 − (20,000,000 + 20,000,000) = −16,000,000 → 0; share 0)
    assert rep.min_cash_dividend == 10_000_000.00
    # max(0, min(500,000,000, 400,000,000)) = 400,000,000
    assert rep.max_distribution == 400_000_000.00
    for rid in ("min_annual", "min_rolling", "distribution_cap", "cash_share"):
        assert rep.rule(rid).shortfall == 0.0


# ---------------------------------------------------------------------------
# 三、(二)、1、(1) 期末合并报表、母公司报表中可供分配利润均为正值
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("consolidated, parent, expected", [
    (500_000_000.0, 400_000_000.0, "met"),
    (0.0, 400_000_000.0, "not_met"),           # consolidated 0 is not 正值
    (500_000_000.0, 0.0, "not_met"),           # parent 0 is not 正值
    (-1.0, 400_000_000.0, "not_met"),
    (500_000_000.0, -0.01, "not_met"),
    (-5.0, -5.0, "not_met"),
    (0.01, 0.01, "met"),                       # one fen each: positive
    (0.004, 400_000_000.0, "not_met"),         # 0.004 rounds half-up to 0.00: not > 0
    (500_000_000.0, 0.005, "met"),             # 0.005 rounds half-up to 0.01 > 0
])
def test_cond_retained_positive(consolidated, parent, expected):
    rep = evaluate(year={"retained_earnings_consolidated": consolidated, "retained_earnings_parent": parent,
                         # keep the distribution within the cap so only the condition is in play
                         "cash_dividend": 0.0 if expected == "not_met" else 0.01})
    assert status(rep, "cond_retained_positive") == expected
    assert rep.cash_conditions_met is (expected == "met")


@pytest.mark.parametrize("drop", ["retained_earnings_consolidated", "retained_earnings_parent"])
def test_cond_retained_positive_missing(drop):
    rep = evaluate(year={drop: None})
    assert status(rep, "cond_retained_positive") == "missing_input"
    assert rep.cash_conditions_met is None


# ---------------------------------------------------------------------------
# 三、(二)、1、(1) for an interim cash dividend: 期末 … 均为正值 at the half-year end (confirmed);
# 三、(二)、1、(3) 中期或季度现金分红无需审计: no half-year audit check
# ---------------------------------------------------------------------------

HALF_YEAR_RETAINED = {"half_year_retained_earnings_consolidated": 450_000_000.0,
                      "half_year_retained_earnings_parent": 350_000_000.0}


@pytest.mark.parametrize("interim, attested, expected", [
    (0.0, False, "not_applicable"),        # no interim cash dividend
    (0.004, False, "not_applicable"),      # rounds to 0.00: no interim cash dividend
    (0.01, True, "pass"),
    (5_000_000.0, True, "pass"),
    (5_000_000.0, False, "warn"),          # paid while the half-year-end condition does not hold
    (5_000_000.0, None, "missing_input"),
])
def test_interim_period_end_retained_positive(interim, attested, expected):
    # the half-year-end retained earnings the interim is paid out of, well above it (三、(二)、2、(3))
    rep = evaluate(year={"interim_cash_dividend": interim, "half_year_audit_opinion": "unaudited",
                         **HALF_YEAR_RETAINED},
                   attest={"interim_period_end_retained_positive": attested})
    r = rep.rule("interim_period_end_retained_positive")
    assert r.status == expected
    if expected == "not_applicable":
        assert r.reason == "na_no_interim"
        assert r.explanation_zh == "不适用：本年度未进行中期现金分红"
    assert rep.overall_status == ("pass" if expected == "not_applicable" else expected)
    assert rep.fail_count == 0


# ---------------------------------------------------------------------------
# 三、(二)、1、(2) 实施现金分红不会影响公司的后续持续经营
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected, met", [
    (True, "met", True),
    (False, "not_met", False),
    (None, "missing_input", None),
])
def test_cond_going_concern(value, expected, met):
    rep = evaluate(year={"going_concern_unaffected": value})
    assert status(rep, "cond_going_concern") == expected
    assert rep.cash_conditions_met is met


# ---------------------------------------------------------------------------
# 三、(二)、1、(3) 无保留意见的审计报告 (standard or with emphasis of matter)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("opinion, expected", [
    ("standard_unqualified", "met"),
    ("unqualified_with_emphasis", "met"),   # 带强调事项段的无保留意见 is still 无保留意见
    ("qualified", "not_met"),
    ("adverse", "not_met"),
    ("disclaimer", "not_met"),
    ("带强调事项段的无保留意见", "met"),    # the Chinese label is accepted as input
])
def test_cond_audit_opinion(opinion, expected):
    rep = evaluate(year={"audit_opinion": opinion})
    assert status(rep, "cond_audit_opinion") == expected
    assert rep.cash_conditions_met is (expected == "met")
    if expected == "not_met":
        for rid in MINIMUMS_WHEN_MET:
            assert status(rep, rid) == "not_applicable"


def test_cond_audit_opinion_missing():
    rep = evaluate(year={"audit_opinion": None})
    assert status(rep, "cond_audit_opinion") == "missing_input"
    assert rep.cash_conditions_met is None


# ---------------------------------------------------------------------------
# 三、(二)、1、(4) major outlay: 达到或者超过总资产的30% (>=) 且 超过5,000万元 (>)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("total_assets, outlay, threshold, major", [
    # 30% × 1,000,000,000 = 300,000,000.00; outlay equal to it (and > 50m): 达到 → major
    (1_000_000_000.0, 300_000_000.00, 300_000_000.00, True),
    # one fen below 30%: not major
    (1_000_000_000.0, 299_999_999.99, 300_000_000.00, False),
    # above 30%
    (1_000_000_000.0, 300_000_000.01, 300_000_000.00, True),
    # outlay rounded to the fen first: 299,999,999.995 → 300,000,000.00 ≥ threshold → major
    (1_000_000_000.0, 299_999_999.995, 300_000_000.00, True),
    # 30% × 100,000,000 = 30,000,000.00; outlay 50,000,000.00 is ≥ 30% but not 超过 5,000万: not major
    (100_000_000.0, 50_000_000.00, 30_000_000.00, False),
    # 50,000,000.01 > 50,000,000 and ≥ 30%: major
    (100_000_000.0, 50_000_000.01, 30_000_000.00, True),
    # 30% × 166,666,666.67 = 50,000,000.001 → 50,000,000.00; outlay exactly that: ≥30% but = 50m → not major
    (166_666_666.67, 50_000_000.00, 50_000_000.00, False),
    # 30% × 1,000,000,000.05 = 300,000,000.015 → half-up 300,000,000.02
    (1_000_000_000.05, 300_000_000.01, 300_000_000.02, False),
    (1_000_000_000.05, 300_000_000.02, 300_000_000.02, True),
    # 15 significant digits: 30% × 999,999,999,999.95 = 299,999,999,999.985 → half-up 299,999,999,999.99
    (999_999_999_999.95, 299_999_999_999.98, 299_999_999_999.99, False),
    (999_999_999_999.95, 299_999_999_999.99, 299_999_999_999.99, True),
    # 30% × 100,000,000.10 = 30,000,000.03: ≥ 30% but below 5,000万 → not major (assets of at least
    # 1,000万元: a smaller total is refused as a figure in 万元, xlmodel.rules.consistency)
    (100_000_000.10, 30_000_000.03, 30_000_000.03, False),
    # outlay above 50m but below 30% of assets: not major (AND)
    (1_000_000_000.0, 60_000_000.00, 300_000_000.00, False),
    # zero outlay
    (1_000_000_000.0, 0.0, 300_000_000.00, False),
])
def test_cond_no_major_outlay(total_assets, outlay, threshold, major):
    rep = evaluate(year={"total_assets": total_assets, "planned_major_outlay": outlay})
    r = rep.rule("cond_no_major_outlay")
    assert r.required == threshold
    # the outlay is compared after rounding to the fen (299,999,999.995 → 300,000,000.00)
    assert r.actual == (300_000_000.00 if outlay == 299_999_999.995 else outlay)
    assert r.status == ("not_met" if major else "met")
    assert rep.cash_conditions_met is (not major)


@pytest.mark.parametrize("drop", ["total_assets", "planned_major_outlay"])
def test_cond_no_major_outlay_missing(drop):
    rep = evaluate(year={drop: None})
    assert status(rep, "cond_no_major_outlay") == "missing_input"
    assert rep.cash_conditions_met is None


# ---------------------------------------------------------------------------
# conditions → minimums: missing inputs and conditions not met
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("drop", [
    "retained_earnings_parent", "going_concern_unaffected", "audit_opinion", "total_assets", "planned_major_outlay",
])
def test_missing_condition_input_makes_minimums_unknown(drop):
    rep = evaluate(year={drop: None})
    assert rep.cash_conditions_met is None
    for rid in MINIMUMS_WHEN_MET:
        assert status(rep, rid) == "missing_input"
    assert rep.min_cash_dividend is None
    assert rep.overall_status == "missing_input"
    assert rep.missing_input_count >= 3
    assert rep.exit_code == 1


def test_failed_condition_wins_over_missing_one():
    # 须同时满足: one condition fails → not met, whatever the missing one would be
    rep = evaluate(year={"going_concern_unaffected": False, "audit_opinion": None})
    assert status(rep, "cond_going_concern") == "not_met"
    assert status(rep, "cond_audit_opinion") == "missing_input"
    assert rep.cash_conditions_met is False
    for rid in MINIMUMS_WHEN_MET:
        assert status(rep, rid) == "not_applicable"
    # no stock dividend: the cash-share requirement is 0 → minimum 0
    assert rep.min_cash_dividend == 0.0


@pytest.mark.parametrize("change", [
    {"going_concern_unaffected": False},
    {"audit_opinion": "qualified"},
    {"planned_major_outlay": 300_000_000.0},  # = 30% of 1,000,000,000 and > 50m
    {"retained_earnings_parent": 0.0, "cash_dividend": 0.0},
])
def test_conditions_not_met_minimums_not_applicable(change):
    rep = evaluate(year=change)
    assert rep.cash_conditions_met is False
    for rid in MINIMUMS_WHEN_MET:
        assert status(rep, rid) == "not_applicable"
        assert rep.rule(rid).shortfall in (0.0, None)
    # conditions not met and no stock dividend → 0 (DOMAIN §4)
    assert rep.min_cash_dividend == 0.0


def test_conditions_not_met_even_zero_cash_is_no_violation():
    rep = evaluate(year={"going_concern_unaffected": False, "cash_dividend": 0.0})
    assert rep.cash_conditions_met is False
    assert status(rep, "min_annual") == "not_applicable"
    assert status(rep, "min_rolling") == "not_applicable"
    assert status(rep, "annual_cash_in_principle") == "not_applicable"
    assert rep.min_cash_dividend == 0.0
    # a failed condition is not itself a violation
    assert rep.fail_count == 0
    assert rep.overall_status == "pass"
    assert rep.exit_code == 0


# ---------------------------------------------------------------------------
# 三、(二)、2、(1) 每年现金 ≥ 当年可分配利润的10%
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cash, buyback, actual, expected, shortfall", [
    # required 10% × 100,000,000 = 10,000,000.00
    (10_000_000.00, 0.0, 10_000_000.00, "pass", 0.0),
    (9_999_999.99, 0.0, 9_999_999.99, "fail", 0.01),         # 10,000,000.00 − 9,999,999.99
    (6_000_000.00, 4_000_000.00, 10_000_000.00, "pass", 0.0),  # buybacks count: 6m + 4m
    (6_000_000.00, 3_999_999.99, 9_999_999.99, "fail", 0.01),
    (0.0, 10_000_000.00, 10_000_000.00, "pass", 0.0),         # all by buyback
    (9_999_999.995, 0.0, 10_000_000.00, "pass", 0.0),         # actual rounded half-up to the fen
    (0.0, 0.0, 0.0, "fail", 10_000_000.00),
])
def test_min_annual(cash, buyback, actual, expected, shortfall):
    rep = evaluate(year={"cash_dividend": cash, "buyback_amount": buyback})
    r = rep.rule("min_annual")
    assert r.required == 10_000_000.00
    assert r.actual == actual
    assert r.status == expected
    assert r.shortfall == shortfall


@pytest.mark.parametrize("cash, expected, shortfall", [
    # 10% × 100,000,000.05 = 10,000,000.005 → half-up 10,000,000.01
    (10_000_000.01, "pass", 0.0),
    (10_000_000.00, "fail", 0.01),
])
def test_min_annual_half_fen_requirement(cash, expected, shortfall):
    rep = evaluate(year={"distributable_profit": 100_000_000.05, "cash_dividend": cash})
    r = rep.rule("min_annual")
    assert r.required == 10_000_000.01
    assert r.status == expected
    assert r.shortfall == shortfall


def test_min_annual_negative_profit_requires_nothing():
    rep = evaluate(year={"distributable_profit": -50_000_000.0})
    r = rep.rule("min_annual")
    # 10% × −50,000,000 = −5,000,000 → a negative requirement is 0
    assert r.required == 0.0
    assert r.status == "pass"
    # rolling: 30% × (60m + 80m − 50m)/3 = 30% × 30,000,000 = 9,000,000; prior cash 40m ≥ 9m → 0
    assert rep.rule("min_rolling").required == 9_000_000.00
    # max(0, 9,000,000 − 40,000,000 → 0, share 0) = 0
    assert rep.min_cash_dividend == 0.0


def test_min_annual_missing_profit():
    rep = evaluate(year={"distributable_profit": None})
    assert status(rep, "min_annual") == "missing_input"
    assert status(rep, "min_rolling") == "missing_input"
    assert rep.min_cash_dividend is None
    assert rep.overall_status == "missing_input"


def test_min_annual_sets_min_cash_dividend():
    # distributable 200,000,000: annual 10% = 20,000,000;
    # rolling 30% × (60m + 80m + 200m)/3 = 0.3 × 113,333,333.33… = 34,000,000.00; 34m − 40m < 0 → 0
    rep = evaluate(year={"distributable_profit": 200_000_000.0})
    assert rep.rule("min_annual").required == 20_000_000.00
    assert rep.rule("min_rolling").required == 34_000_000.00
    assert rep.min_cash_dividend == 20_000_000.00


# ---------------------------------------------------------------------------
# 三、(二)、2、(1) 任何三个连续年度 现金累计 ≥ 三年年均可分配利润的30%
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cash_2022, actual, expected, shortfall", [
    # required 30% × (60m + 80m + 100m)/3 = 24,000,000.00
    (7_000_000.00, 24_000_000.00, "pass", 0.0),      # 7,000,000 + 7,000,000 + 10,000,000
    (6_999_999.99, 23_999_999.99, "fail", 0.01),     # one fen short
])
def test_min_rolling_boundary(cash_2022, actual, expected, shortfall):
    rep = evaluate(year={"cash_dividend": 10_000_000.00},
                   prior={2021: {"cash_dividend": 7_000_000.00}, 2022: {"cash_dividend": cash_2022}})
    r = rep.rule("min_rolling")
    assert r.required == 24_000_000.00
    assert r.actual == actual
    assert r.status == expected
    assert r.shortfall == shortfall
    # annual minimum met exactly: 10% × 100,000,000 = 10,000,000
    assert status(rep, "min_annual") == "pass"
    # min = max(10,000,000; 24,000,000 − (7,000,000 + cash_2022); 0)
    assert rep.min_cash_dividend == {7_000_000.00: 10_000_000.00,     # 24m − 14m = 10,000,000.00
                                     6_999_999.99: 10_000_000.01}[cash_2022]  # 24m − 13,999,999.99
    assert rep.overall_status == ("pass" if expected == "pass" else "fail")


@pytest.mark.parametrize("cash_2023, expected, shortfall", [
    # 30% × (60,000,000.05 + 80,000,000 + 100,000,000)/3 = 30% × 80,000,000.01666… = 24,000,000.005 → 24,000,000.01
    (10_000_000.01, "pass", 0.0),
    (10_000_000.00, "fail", 0.01),
])
def test_min_rolling_half_fen_requirement(cash_2023, expected, shortfall):
    rep = evaluate(year={"cash_dividend": cash_2023},
                   prior={2021: {"distributable_profit": 60_000_000.05, "cash_dividend": 7_000_000.00},
                          2022: {"cash_dividend": 7_000_000.00}})
    r = rep.rule("min_rolling")
    assert r.required == 24_000_000.01
    assert r.status == expected
    assert r.shortfall == shortfall
    # max(10,000,000.00 annual; 24,000,000.01 − 14,000,000 = 10,000,000.01; 0)
    assert rep.min_cash_dividend == 10_000_000.01


@pytest.mark.parametrize("cash_2021, expected, shortfall", [
    # DOMAIN §4 example: average 1,000,000.10 → 30% = 300,000.03
    (100_000.01, "pass", 0.0),   # 100,000.01 × 3 = 300,000.03
    (100_000.00, "fail", 0.01),  # 300,000.02
])
def test_min_rolling_thirty_percent_of_1_000_000_10(cash_2021, expected, shortfall):
    rep = evaluate(
        year={"distributable_profit": 1_000_000.10, "cash_dividend": 100_000.01},
        prior={2021: {"distributable_profit": 1_000_000.10, "cash_dividend": cash_2021},
               2022: {"distributable_profit": 1_000_000.10, "cash_dividend": 100_000.01}})
    r = rep.rule("min_rolling")
    # (3 × 1,000,000.10)/3 = 1,000,000.10; × 30% = 300,000.03
    assert r.required == 300_000.03
    assert r.status == expected
    assert r.shortfall == shortfall
    # annual: 10% × 1,000,000.10 = 100,000.01, paid exactly
    assert rep.rule("min_annual").required == 100_000.01
    assert status(rep, "min_annual") == "pass"


def test_min_rolling_counts_buybacks_in_every_year():
    # 2021: 5m cash + 2m buyback; 2022: 7m buyback only; 2023: 10m → 24,000,000 = required
    rep = evaluate(year={"cash_dividend": 10_000_000.00},
                   prior={2021: {"cash_dividend": 5_000_000.0, "buyback_amount": 2_000_000.0},
                          2022: {"cash_dividend": 0.0, "buyback_amount": 7_000_000.0}})
    assert rep.rule("min_rolling").actual == 24_000_000.00
    assert status(rep, "min_rolling") == "pass"


def test_min_rolling_drives_min_cash_dividend():
    # prior cash 5m + 5m; rolling 24,000,000 − 10,000,000 = 14,000,000 > annual 10,000,000
    rep = evaluate(prior={2021: {"cash_dividend": 5_000_000.0}, 2022: {"cash_dividend": 5_000_000.0}})
    assert rep.min_cash_dividend == 14_000_000.00
    # paid 30,000,000: 5m + 5m + 30m = 40,000,000 ≥ 24,000,000
    assert rep.rule("min_rolling").actual == 40_000_000.00
    assert status(rep, "min_rolling") == "pass"


def test_min_rolling_paying_exactly_min_cash_dividend_passes_everything():
    prior = {2021: {"cash_dividend": 5_000_000.0}, 2022: {"cash_dividend": 5_000_000.0}}
    # min 14,000,000 (see above); paying it: 5m + 5m + 14m = 24,000,000 = required
    rep = evaluate(year={"cash_dividend": 14_000_000.00}, prior=prior)
    assert status(rep, "min_rolling") == "pass"
    assert status(rep, "min_annual") == "pass"
    rep = evaluate(year={"cash_dividend": 13_999_999.99}, prior=prior)
    assert status(rep, "min_rolling") == "fail"
    assert rep.rule("min_rolling").shortfall == 0.01


def test_min_rolling_negative_average_requires_nothing():
    # (−60m − 80m + 100m)/3 < 0 → required 0
    rep = evaluate(prior={2021: {"distributable_profit": -60_000_000.0}, 2022: {"distributable_profit": -80_000_000.0}})
    assert rep.rule("min_rolling").required == 0.0
    assert status(rep, "min_rolling") == "pass"


@pytest.mark.parametrize("fy", [2021, 2022])
def test_min_rolling_missing_history(fy):
    rep = evaluate(prior={fy: {"distributable_profit": None}})
    assert status(rep, "min_rolling") == "missing_input"
    assert status(rep, "min_annual") == "pass"
    assert rep.min_cash_dividend is None
    assert rep.overall_status == "missing_input"
    assert any(str(fy) in m for m in rep.rule("min_rolling").missing_inputs)


def test_min_rolling_prior_cash_defaults_to_zero():
    # cash_dividend absent in 2021 and 2022 → 0 (DOMAIN §3); 0 + 0 + 30,000,000 ≥ 24,000,000
    rep = evaluate(prior={2021: {"cash_dividend": None}, 2022: {"cash_dividend": None}})
    assert rep.rule("min_rolling").actual == 30_000_000.00
    assert status(rep, "min_rolling") == "pass"
    # max(10,000,000; 24,000,000 − 0; 0) = 24,000,000
    assert rep.min_cash_dividend == 24_000_000.00


# ---------------------------------------------------------------------------
# 三、(二)、2、(3) 利润分配不得超过累计可分配利润 (lower of consolidated and parent)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("consolidated, parent, cash, expected, shortfall", [
    # cap = min(500m, 400m) = 400,000,000
    (500_000_000.0, 400_000_000.0, 400_000_000.00, "pass", 0.0),
    (500_000_000.0, 400_000_000.0, 400_000_000.01, "fail", 0.01),
    # the consolidated figure the lower one: cap 400,000,000
    (400_000_000.0, 500_000_000.0, 400_000_000.00, "pass", 0.0),
    (400_000_000.0, 500_000_000.0, 400_000_000.01, "fail", 0.01),
])
def test_distribution_cap_cash(consolidated, parent, cash, expected, shortfall):
    rep = evaluate(year={"retained_earnings_consolidated": consolidated, "retained_earnings_parent": parent,
                         "cash_dividend": cash})
    r = rep.rule("distribution_cap")
    assert r.required == 400_000_000.00
    assert r.actual == cash
    assert r.status == expected
    assert r.shortfall == shortfall
    assert rep.max_distribution == 400_000_000.00


@pytest.mark.parametrize("stock, actual, expected, shortfall", [
    (370_000_000.00, 400_000_000.00, "pass", 0.0),   # 30,000,000 + 370,000,000 = 400,000,000 = cap
    (370_000_000.01, 400_000_000.01, "fail", 0.01),  # 400,000,000.01 − 400,000,000
])
def test_distribution_cap_counts_stock_dividend(stock, actual, expected, shortfall):
    # growth stage without major outlay: the plan prescribes no cash share, so only the cap is in play
    rep = evaluate(year={"stock_dividend": stock, "development_stage": "growth"})
    r = rep.rule("distribution_cap")
    assert r.actual == actual
    assert r.status == expected
    assert r.shortfall == shortfall
    assert status(rep, "cash_share") == "not_applicable"  # no prescribed minimum (DOMAIN §5)


def test_distribution_cap_ignores_buybacks():
    # buybacks are not a profit distribution: 400,000,000 cash + 1 buyback is still at the cap
    rep = evaluate(year={"cash_dividend": 400_000_000.00, "buyback_amount": 1_000_000.0})
    assert rep.rule("distribution_cap").actual == 400_000_000.00
    assert status(rep, "distribution_cap") == "pass"


@pytest.mark.parametrize("consolidated, parent, max_dist", [
    (500_000_000.0, 400_000_000.0, 400_000_000.00),
    (-5_000_000.0, 400_000_000.0, 0.0),    # max(0, −5,000,000) = 0
    (500_000_000.0, -0.01, 0.0),
    (123_456.785, 200_000.0, 123_456.79),  # half-up to the fen
])
def test_max_distribution(consolidated, parent, max_dist):
    rep = evaluate(year={"retained_earnings_consolidated": consolidated, "retained_earnings_parent": parent})
    assert rep.max_distribution == max_dist
    assert rep.rule("distribution_cap").required == max_dist


def test_distribution_cap_negative_retained_any_distribution_fails():
    rep = evaluate(year={"retained_earnings_parent": -1_000_000.0, "cash_dividend": 0.01})
    r = rep.rule("distribution_cap")
    assert r.required == 0.0
    assert r.status == "fail"
    assert r.shortfall == 0.01  # 0.01 − 0


def test_distribution_cap_missing_retained():
    rep = evaluate(year={"retained_earnings_parent": None})
    assert status(rep, "distribution_cap") == "missing_input"
    assert rep.max_distribution is None


# Each distribution against the figure it is paid out of (issue 47, point 1). The interim is paid in
# September out of the half-year-end figures; the year-end retained earnings are already net of it,
# so the final alone is measured against them (as the law's cap, reg_distribution_cap, measures it).
# GCL FY2024: interim 400,000,000; final 300,000,000; parent 300,000,000, consolidated 1,500,000,000
# at the year end (after the interim): cap min(1,500,000,000; 300,000,000) = 300,000,000.
FY2024 = {
    2022: {"distributable_profit": 611_845_138.87, "cash_dividend": 306_781_780.12},
    2023: {"distributable_profit": 855_092_128.94, "cash_dividend": 205_588_571.24},
    2024: {**BASE_YEARS[2023], "net_profit_attributable": 489_000_000.0, "distributable_profit": 440_100_000.0,
           "retained_earnings_consolidated": 1_500_000_000.0, "retained_earnings_parent": 300_000_000.0,
           "total_assets": 30_000_000_000.0, "interim_cash_dividend": 400_000_000.0,
           "cash_dividend": 700_000_000.0, "half_year_audit_opinion": "unaudited",
           # at 30 June: consolidated 1,700,000,000, parent 650,000,000: the interim's cap 650,000,000
           "half_year_retained_earnings_consolidated": 1_700_000_000.0,
           "half_year_retained_earnings_parent": 650_000_000.0,
           "agm_date": dt.date(2025, 5, 20), "payout_date": dt.date(2025, 6, 20)},
}


def evaluate_2024(changes: dict | None = None, baseline: bool = False):
    years = copy.deepcopy(FY2024)
    _apply(years[2024], changes or {})
    return run(POLICY, 2024, years, dict(BASE_ATTEST), baseline=baseline)


@pytest.mark.parametrize("final, expected, margin, shortfall", [
    (300_000_000.00, "pass", 0.0, 0.0),      # 700,000,000 − 400,000,000 = 300,000,000 = the cap
    (300_000_000.01, "fail", -0.01, 0.01),   # one fen more on the final: over by 0.01
])
def test_distribution_cap_final_against_year_end(final, expected, margin, shortfall):
    rep = evaluate_2024({"cash_dividend": 400_000_000.0 + final})
    r = rep.rule("distribution_cap")
    assert (r.actual, r.required, r.status, r.margin, r.shortfall) == (final, 300_000_000.00, expected, margin, shortfall)
    assert rep.overall_status == expected
    assert rep.max_distribution == 300_000_000.00


def test_distribution_cap_gcl_fy2024_agrees_with_the_law():
    """The plan's cap and the Company Law's (baseline) measure the same final against the same figure."""
    rep = evaluate_2024(baseline=True)
    plan, law = rep.rule("distribution_cap"), rep.rule("reg_distribution_cap")
    assert (plan.actual, plan.required, plan.status) == (300_000_000.00, 300_000_000.00, "pass")
    assert (law.actual, law.required, law.status) == (plan.actual, plan.required, plan.status)
    r = rep.rule("distribution_cap_interim")
    assert (r.actual, r.required, r.status, r.margin) == (400_000_000.00, 650_000_000.00, "pass", 250_000_000.00)


@pytest.mark.parametrize("cons, parent, interim, expected, shortfall", [
    # cap = min(consolidated, parent) at the interim's period end
    (1_700_000_000.0, 400_000_000.0, 400_000_000.00, "pass", 0.0),
    (1_700_000_000.0, 400_000_000.0, 400_000_000.01, "fail", 0.01),
    (400_000_000.0, 650_000_000.0, 400_000_000.00, "pass", 0.0),    # the consolidated figure the lower one
    (400_000_000.0, 650_000_000.0, 400_000_000.01, "fail", 0.01),
    (-1.0, 650_000_000.0, 0.01, "fail", 0.01),                      # max(0, −1) = 0: any interim is over
])
def test_distribution_cap_interim_against_its_period_end(cons, parent, interim, expected, shortfall):
    rep = evaluate_2024({"half_year_retained_earnings_consolidated": cons, "half_year_retained_earnings_parent": parent,
                         "interim_cash_dividend": interim, "cash_dividend": interim + 300_000_000.0})
    r = rep.rule("distribution_cap_interim")
    assert (r.actual, r.status, r.shortfall) == (interim, expected, shortfall)
    assert r.required == max(0.0, min(cons, parent))
    assert status(rep, "distribution_cap") == "pass"  # the final 300,000,000 against 300,000,000


def test_distribution_cap_interim_counts_its_stock_dividend():
    # interim 400,000,000 cash + 250,000,000.01 stock = 650,000,000.01 > 650,000,000 (parent, the lower)
    rep = evaluate_2024({"interim_stock_dividend": 250_000_000.01, "stock_dividend": 250_000_000.01,
                         "development_stage": "growth"})
    r = rep.rule("distribution_cap_interim")
    assert (r.actual, r.status, r.shortfall) == (650_000_000.01, "fail", 0.01)
    # the final: 700,000,000 + 250,000,000.01 − 650,000,000.01 = 300,000,000 ≤ 300,000,000
    assert (rep.rule("distribution_cap").actual, status(rep, "distribution_cap")) == (300_000_000.00, "pass")


def test_distribution_cap_interim_needs_its_period_end_figures():
    rep = evaluate_2024({"half_year_retained_earnings_parent": None})
    assert status(rep, "distribution_cap_interim") == "missing_input"
    assert status(rep, "distribution_cap") == "pass"
    # no interim: not applicable, the half-year figures not needed
    rep = evaluate_2024({"half_year_retained_earnings_parent": None, "interim_cash_dividend": 0.0})
    r = rep.rule("distribution_cap_interim")
    assert (r.status, r.reason) == ("not_applicable", "na_no_interim_distribution")
    # no interim: the whole year is the final, 700,000,000 against 300,000,000
    r = rep.rule("distribution_cap")
    assert (r.actual, r.status, r.shortfall) == (700_000_000.00, "fail", 400_000_000.00)


def test_distribution_cap_interim_only_year():
    # all 700,000,000 paid as interims: no final distribution to measure against the year end
    rep = evaluate_2024({"interim_cash_dividend": 650_000_000.0, "cash_dividend": 650_000_000.0})
    r = rep.rule("distribution_cap")
    assert (r.status, r.reason) == ("not_applicable", "na_no_final_distribution")
    assert status(rep, "distribution_cap_interim") == "pass"  # 650,000,000 = its cap
    rep = evaluate_2024({"interim_cash_dividend": 0.0, "cash_dividend": 0.0})
    assert rep.rule("distribution_cap").reason == "na_no_distribution"


# ---------------------------------------------------------------------------
# 三、(五) 差异化的现金分红政策: cash ≥ S·s/(1−s)
# ---------------------------------------------------------------------------

MAJOR = {"planned_major_outlay": 300_000_000.0}      # = 30% of 1,000,000,000 and > 50m → major
NO_MAJOR = {"planned_major_outlay": 100_000_000.0}   # 10% → not major


@pytest.mark.parametrize("stage, outlay, required", [
    ("mature", NO_MAJOR, 400.00),      # 100 × 0.8 / 0.2 = 400.00
    ("mature", MAJOR, 66.67),          # 100 × 0.4 / 0.6 = 66.666… → 66.67
    ("growth", MAJOR, 25.00),          # 100 × 0.2 / 0.8 = 25.00
    ("indeterminate", MAJOR, 25.00),   # 4、不易区分但有重大资金支出 → 按前项 20%: 25.00
])
def test_cash_share_table(stage, outlay, required):
    rep = evaluate(year={"development_stage": stage, "stock_dividend": 100.0, **outlay})
    r = rep.rule("cash_share")
    assert r.required == required
    assert r.status == "pass"  # 30,000,000 cash
    assert r.actual == 30_000_000.00


@pytest.mark.parametrize("stage", ["growth", "indeterminate"])
def test_cash_share_table_empty_cells_prescribe_no_minimum(stage):
    # 三、(五) sets no share for growth / indeterminate without a major outlay: with a stock dividend
    # the rule is not applicable ("no prescribed minimum"), not a pass against 0%
    rep = evaluate(year={"development_stage": stage, "stock_dividend": 100.0, **NO_MAJOR})
    r = rep.rule("cash_share")
    assert r.status == "not_applicable"
    assert r.reason == "na_no_prescribed_share"
    assert r.explanation_zh == "不适用：规划对该发展阶段与资金支出情形未规定最低现金占比"
    # without a stock dividend the share is 100%: 0·s/(1−s) = 0 → pass as before
    r = evaluate(year={"development_stage": stage, **NO_MAJOR}).rule("cash_share")
    assert (r.status, r.required) == ("pass", 0.0)


@pytest.mark.parametrize("cash, buyback, expected, shortfall", [
    (66.67, 0.0, "pass", 0.0),
    (66.66, 0.0, "fail", 0.01),      # 66.67 − 66.66
    (0.0, 66.67, "pass", 0.0),       # buybacks count as cash
    (0.0, 0.0, "fail", 66.67),
])
def test_cash_share_mature_major_applies_though_conditions_fail(cash, buyback, expected, shortfall):
    # the major outlay makes condition (4) fail, but 三、(五) applies whenever distributing
    rep = evaluate(year={"stock_dividend": 100.0, "cash_dividend": cash, "buyback_amount": buyback, **MAJOR})
    assert status(rep, "cond_no_major_outlay") == "not_met"
    assert rep.cash_conditions_met is False
    r = rep.rule("cash_share")
    assert r.required == 66.67   # 100 × 40% / 60% = 66.666… → 66.67
    assert r.status == expected
    assert r.shortfall == shortfall
    # conditions not met: the annual and rolling minimums contribute 0; cash share 66.67
    assert rep.min_cash_dividend == 66.67


@pytest.mark.parametrize("cash, expected, shortfall", [
    (400.00, "pass", 0.0),
    (399.99, "fail", 0.01),
])
def test_cash_share_mature_no_major_conditions_failed(cash, expected, shortfall):
    rep = evaluate(year={"going_concern_unaffected": False, "stock_dividend": 100.0, "cash_dividend": cash})
    assert rep.cash_conditions_met is False
    r = rep.rule("cash_share")
    assert r.required == 400.00   # 100 × 80% / 20%
    assert r.status == expected
    assert r.shortfall == shortfall
    assert rep.min_cash_dividend == 400.00
    assert rep.overall_status == ("pass" if expected == "pass" else "fail")


@pytest.mark.parametrize("cash, expected", [
    (40_000_000.00, "pass"),
    (39_999_999.99, "fail"),
])
def test_cash_share_drives_min_cash_dividend_when_conditions_met(cash, expected):
    # stock 10,000,000, mature, no major: 10,000,000 × 0.8 / 0.2 = 40,000,000
    rep = evaluate(year={"stock_dividend": 10_000_000.0, "cash_dividend": cash})
    assert rep.cash_conditions_met is True
    assert rep.rule("cash_share").required == 40_000_000.00
    assert status(rep, "cash_share") == expected
    # max(annual 10,000,000; rolling 0; share 40,000,000)
    assert rep.min_cash_dividend == 40_000_000.00


def test_cash_share_half_fen():
    # growth + major: 100.02 × 0.2 / 0.8 = 25.005 → half-up 25.01
    rep = evaluate(year={"development_stage": "growth", "stock_dividend": 100.02, "cash_dividend": 25.00, **MAJOR})
    r = rep.rule("cash_share")
    assert r.required == 25.01
    assert r.status == "fail"
    assert r.shortfall == 0.01


def test_cash_share_all_cash_distribution():
    # an all-cash distribution has share 100%: required 0
    rep = evaluate(year={"stock_dividend": 0.0, "cash_dividend": 0.01, "going_concern_unaffected": False})
    assert rep.rule("cash_share").required == 0.0
    assert status(rep, "cash_share") == "pass"


def test_cash_share_not_applicable_without_distribution():
    rep = evaluate(year={"cash_dividend": 0.0, "stock_dividend": 0.0, "going_concern_unaffected": False})
    assert status(rep, "cash_share") == "not_applicable"
    assert rep.min_cash_dividend == 0.0


def test_cash_share_stock_only_distribution_fails():
    # stock 100 with no cash, mature and no major: needs 400.00
    rep = evaluate(year={"stock_dividend": 100.0, "cash_dividend": 0.0, "going_concern_unaffected": False})
    r = rep.rule("cash_share")
    assert r.status == "fail"
    assert r.shortfall == 400.00


def test_cash_share_missing_stage():
    rep = evaluate(year={"development_stage": None, "stock_dividend": 100.0})
    assert status(rep, "cash_share") == "missing_input"
    assert rep.min_cash_dividend is None


# ---------------------------------------------------------------------------
# 三、(三) 原则上每年度进行一次现金分红 (warning)
# ---------------------------------------------------------------------------

def test_annual_cash_in_principle_warns():
    # distributable 0 in 2023: annual 10% × 0 = 0; rolling 30% × (60m + 80m + 0)/3 = 14,000,000 ≤ 40m prior cash
    rep = evaluate(year={"distributable_profit": 0.0, "cash_dividend": 0.0})
    assert rep.cash_conditions_met is True
    assert rep.rule("min_rolling").required == 14_000_000.00
    assert status(rep, "min_annual") == "pass"
    assert status(rep, "min_rolling") == "pass"
    assert status(rep, "annual_cash_in_principle") == "warn"
    assert rep.overall_status == "warn"
    assert (rep.fail_count, rep.warn_count) == (0, 1)
    assert rep.exit_code == 0
    # profitable (net profit 150,000,000) without cash: the three attestations apply and are given
    for rid in ("no_cash_explanation", "no_cash_annual_report", "no_cash_supervisory_statement"):
        assert status(rep, rid) == "pass"
    assert rep.min_cash_dividend == 0.0


def test_annual_cash_in_principle_buyback_counts():
    rep = evaluate(year={"distributable_profit": 0.0, "cash_dividend": 0.0, "buyback_amount": 1_000_000.0})
    assert status(rep, "annual_cash_in_principle") == "pass"


def test_annual_cash_in_principle_not_applicable_when_conditions_fail():
    rep = evaluate(year={"audit_opinion": "qualified", "cash_dividend": 0.0})
    assert status(rep, "annual_cash_in_principle") == "not_applicable"


# ---------------------------------------------------------------------------
# 三、(四) 股票股利 attestation (only with stock dividend or capital reserve conversion)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("stock, conversion, attested, expected", [
    (0.0, 0.0, True, "not_applicable"),
    (0.0, 0.0, False, "not_applicable"),
    (0.0, 0.0, None, "not_applicable"),
    (100.0, 0.0, True, "pass"),
    (100.0, 0.0, False, "fail"),
    (100.0, 0.0, None, "missing_input"),
    (0.0, 1_000_000.0, True, "pass"),
    (0.0, 1_000_000.0, False, "fail"),
    (0.004, 0.0, False, "not_applicable"),  # 0.004 rounds to 0.00: no stock dividend
])
def test_stock_dividend_basis(stock, conversion, attested, expected):
    rep = evaluate(year={"stock_dividend": stock, "capital_reserve_conversion": conversion},
                   attest={"stock_dividend_basis": attested})
    assert status(rep, "stock_dividend_basis") == expected


def test_capital_reserve_conversion_is_not_a_distribution():
    # conversion does not count against the cap nor in the cash share
    rep = evaluate(year={"capital_reserve_conversion": 1_000_000_000.0})
    assert rep.rule("distribution_cap").actual == 30_000_000.00
    assert rep.rule("cash_share").required == 0.0
    assert rep.overall_status == "pass"


# ---------------------------------------------------------------------------
# 三、(六)/(七)/(九)/(十三)/四、(二) attestations that always apply
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("rule_id", [
    "board_records_kept", "minority_consulted", "fund_occupation_withheld", "plan_change_two_thirds",
])
@pytest.mark.parametrize("value, expected", [(True, "pass"), (False, "fail"), (None, "missing_input")])
def test_unconditional_attestations(rule_id, value, expected):
    rep = evaluate(attest={rule_id: value})
    assert status(rep, rule_id) == expected
    assert rep.overall_status == expected
    assert rep.fail_count == (1 if expected == "fail" else 0)
    assert rep.missing_input_count == (1 if expected == "missing_input" else 0)
    assert rep.exit_code == (0 if expected == "pass" else 1)


@pytest.mark.parametrize("value, expected", [(True, "pass"), (False, "fail"), (None, "missing_input")])
def test_independent_directors_opinion(value, expected):
    rep = evaluate(year={"independent_directors_opinion": value})
    assert status(rep, "independent_directors_opinion") == expected
    assert rep.overall_status == expected


def test_unknown_attestation_is_rejected():
    with pytest.raises(CaseError):
        evaluate(attest={"no_such_rule": True})


# ---------------------------------------------------------------------------
# 三、(九) 股东大会召开后2个月内完成派发 (EDATE)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("agm, payout, deadline, expected", [
    (dt.date(2024, 5, 20), dt.date(2024, 7, 20), "2024-07-20", "pass"),   # exactly 2 months
    (dt.date(2024, 5, 20), dt.date(2024, 7, 21), "2024-07-20", "fail"),
    (dt.date(2023, 12, 31), dt.date(2024, 2, 29), "2024-02-29", "pass"),  # 12-31 + 2 months → end of Feb (leap)
    (dt.date(2023, 12, 31), dt.date(2024, 3, 1), "2024-02-29", "fail"),
    (dt.date(2024, 12, 31), dt.date(2025, 2, 28), "2025-02-28", "pass"),  # non-leap year
    (dt.date(2024, 12, 31), dt.date(2025, 3, 1), "2025-02-28", "fail"),
    (dt.date(2024, 6, 30), dt.date(2024, 8, 30), "2024-08-30", "pass"),
    (dt.date(2024, 6, 30), dt.date(2024, 8, 31), "2024-08-30", "fail"),   # EDATE keeps the day: 08-30
    ("2024-05-20", "2024-06-01", "2024-07-20", "pass"),                   # dates as text
])
def test_payout_within_two_months(agm, payout, deadline, expected):
    rep = evaluate(year={"agm_date": agm, "payout_date": payout})
    r = rep.rule("payout_within_two_months")
    assert r.required == deadline
    assert r.status == expected


def test_payout_not_applicable_without_distribution():
    rep = evaluate(year={"cash_dividend": 0.0, "stock_dividend": 0.0, "agm_date": None, "payout_date": None,
                         "going_concern_unaffected": False})
    assert status(rep, "payout_within_two_months") == "not_applicable"


def test_payout_applies_to_stock_only_distribution():
    # 2个月内完成股利（或股份）的派发: a stock-only distribution also has a deadline
    rep = evaluate(year={"cash_dividend": 0.0, "stock_dividend": 100.0, "going_concern_unaffected": False,
                         "payout_date": dt.date(2024, 7, 21)})
    assert status(rep, "payout_within_two_months") == "fail"


def test_payout_missing_date_after_the_agm():
    rep = evaluate(year={"payout_date": None})
    assert status(rep, "payout_within_two_months") == "missing_input"
    assert rep.overall_status == "missing_input"


def test_payout_deadline_before_the_agm_is_not_applicable():
    """No AGM date: the proposal is checked before its AGM, so the deadline is not yet applicable (issue 20),
    never missing input."""
    rep = evaluate(year={"agm_date": None, "payout_date": None})
    r = next(x for x in rep.rules if x.id == "payout_within_two_months")
    assert (r.status, r.reason) == ("not_applicable", "na_agm_not_held")
    assert rep.overall_status == "pass"


# ---------------------------------------------------------------------------
# 三、(十)/(十一)/(十二) 年度盈利但未提出现金分红预案
# ---------------------------------------------------------------------------

NO_CASH = ["no_cash_explanation", "no_cash_annual_report", "no_cash_supervisory_statement"]


@pytest.mark.parametrize("rule_id", NO_CASH)
@pytest.mark.parametrize("net_profit, cash, attested, expected", [
    (150_000_000.0, 0.0, True, "pass"),
    (150_000_000.0, 0.0, False, "fail"),
    (150_000_000.0, 0.0, None, "missing_input"),
    (0.01, 0.0, False, "fail"),                 # 0.01 > 0: profitable
    (150_000_000.0, 0.01, False, "not_applicable"),  # a cash proposal was made
    (0.0, 0.0, False, "not_applicable"),        # not profitable
    (-1_000_000.0, 0.0, False, "not_applicable"),
    (0.004, 0.0, False, "not_applicable"),      # 0.004 rounds to 0.00: not > 0
    (150_000_000.0, 0.004, False, "fail"),      # cash 0.004 rounds to 0.00: no cash
])
def test_profitable_no_cash_attestations(rule_id, net_profit, cash, attested, expected):
    # conditions made to fail so that the minimums do not interfere
    rep = evaluate(year={"net_profit_attributable": net_profit, "cash_dividend": cash,
                         "going_concern_unaffected": False},
                   attest={rule_id: attested})
    assert status(rep, rule_id) == expected


@pytest.mark.parametrize("rule_id", NO_CASH)
def test_profitable_no_cash_missing_net_profit(rule_id):
    rep = evaluate(year={"net_profit_attributable": None, "cash_dividend": 0.0})
    assert status(rep, rule_id) == "missing_input"


def test_profitable_no_cash_with_buyback_only():
    # no cash dividend proposal (cash_dividend 0) even though buybacks were made: the duties apply
    rep = evaluate(year={"cash_dividend": 0.0, "buyback_amount": 30_000_000.0},
                   attest={"no_cash_annual_report": False})
    assert status(rep, "no_cash_annual_report") == "fail"
    assert status(rep, "min_annual") == "pass"  # 30,000,000 buyback ≥ 10,000,000


# ---------------------------------------------------------------------------
# overall status, counts and exit code
# ---------------------------------------------------------------------------

def test_overall_fail_counts_every_failed_requirement():
    # cash 0 with conditions met: min_annual fails (0 < 10,000,000);
    # rolling 20m + 20m + 0 = 40,000,000 ≥ 24,000,000 passes; annual_cash_in_principle warns;
    # plus a false attestation
    rep = evaluate(year={"cash_dividend": 0.0}, attest={"board_records_kept": False})
    assert status(rep, "min_annual") == "fail"
    assert rep.rule("min_annual").shortfall == 10_000_000.00
    assert status(rep, "min_rolling") == "pass"
    assert status(rep, "annual_cash_in_principle") == "warn"
    assert status(rep, "board_records_kept") == "fail"
    assert rep.fail_count == 2
    assert rep.warn_count == 1
    assert rep.overall_status == "fail"
    assert rep.exit_code == 1


def test_overall_fail_beats_missing_input():
    rep = evaluate(year={"independent_directors_opinion": False}, attest={"minority_consulted": None})
    assert rep.fail_count == 1
    assert rep.missing_input_count == 1
    assert rep.overall_status == "fail"
    assert rep.exit_code == 1


def test_overall_missing_beats_warn():
    rep = evaluate(year={"distributable_profit": 0.0, "cash_dividend": 0.0},
                   attest={"plan_change_two_thirds": None})
    assert rep.warn_count == 1
    assert rep.missing_input_count == 1
    assert rep.overall_status == "missing_input"
    assert rep.exit_code == 1


def test_report_round_trips_to_json():
    rep = evaluate()
    d = rep.to_dict()
    assert d["overall_status"] == "pass"
    assert d["min_cash_dividend"] == 10_000_000.00
    assert '"policy": "gcl-energy-2022-2024"' in rep.to_json()


# The same boundaries in the workbook, recalculated in each engine: the formulas are rendered from the
# same trees, and every formula cell, status and output must equal the evaluator's (hand-worked above).
CAP_BOOKS = {  # name: (changes to FY2024, the final's status, the interim's status)
    "final_exact": ({}, "pass", "pass"),
    "final_fen_over": ({"cash_dividend": 700_000_000.01}, "fail", "pass"),
    "interim_exact": ({"half_year_retained_earnings_parent": 400_000_000.0}, "pass", "pass"),
    "interim_fen_over": ({"half_year_retained_earnings_parent": 399_999_999.99}, "pass", "fail"),
}


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_distribution_caps_in_real_engines(engine, request, tmp_path):
    from conftest import case as make_case
    from conftest import engine_values
    from xlmodel.evaluator import evaluate as evaluate_case
    from xlmodel.engines.parity import compare
    from xlmodel.workbook.writer import build_workbook

    request.getfixturevalue(engine)
    built = []
    for name, (changes, final, interim) in CAP_BOOKS.items():
        years = copy.deepcopy(FY2024)
        _apply(years[2024], changes)
        c = make_case(POLICY, 2024, years, dict(BASE_ATTEST))
        rep = evaluate_case(c)
        assert (rep.rule("distribution_cap").status, rep.rule("distribution_cap_interim").status) == (final, interim)
        built.append((c, build_workbook(tmp_path / f"{name}.xlsx", case=c)))
    theirs = engine_values(engine, [p for _, p in built], tmp_path / engine)
    compared = [compare(engine, c, p, None, theirs_values=theirs[p.name]) for c, p in built]
    assert not [c.name for c in compared if c.aside]
    assert not [str(m) for c in compared for m in c.differences]
    assert all(c.cells for c in compared)


@pytest.mark.parametrize("final, status", [(300_000_000.00, "pass"), (300_000_000.01, "fail")])
def test_distribution_cap_in_every_face(final, status, tmp_path, capsys):
    """The FY2024 case at the fen in the CLI's JSON, the batch and the worksheet functions alike."""
    import json

    import yaml

    from conftest import case as make_case
    from conftest import cli
    from xlmodel import udfs
    from xlmodel.batch.evaluate import evaluate_batch
    from xlmodel.synth import cases_frame

    years = copy.deepcopy(FY2024)
    years[2024]["cash_dividend"] = 400_000_000.0 + final
    data = {"policy": POLICY, "evaluation_year": 2024, "attestations": dict(BASE_ATTEST),
            "years": [{"fiscal_year": y, **v} for y, v in sorted(years.items())]}
    path = tmp_path / "gcl-2024.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    _code, out, _ = cli(capsys, "evaluate", "--json", path)
    (got,) = json.loads(out)
    cap = next(r for r in got["rules"] if r["id"] == "distribution_cap")
    assert (cap["status"], cap["actual"], cap["required"]) == (status, final, 300_000_000.00)
    assert got["rules"][[r["id"] for r in got["rules"]].index("distribution_cap_interim")]["status"] == "pass"
    c = make_case(POLICY, 2024, years, dict(BASE_ATTEST))
    row = evaluate_batch(cases_frame([c])).set_index("fiscal_year").loc[2024]
    assert (row["distribution_cap.status"], row["distribution_cap.actual"]) == (status, final)
    fids = sorted({f for v in years.values() for f in v})
    values = [[years[y].get(f) for y in sorted(years)] for f in fids]
    args = (POLICY, 2024, fids, sorted(years), values, None, None, list(BASE_ATTEST), list(BASE_ATTEST.values()))
    assert udfs.XLM_RULE_STATUS("distribution_cap", *args) == {"pass": "通过", "fail": "不通过"}[status]
    assert udfs.XLM_RULE_STATUS("distribution_cap_interim", *args) == "通过"
