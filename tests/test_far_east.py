"""Policy `far-east-2022-2024` (远东智慧能源 未来三年（2022-2024年）股东分红回报规划).

Every expected value below is worked out by hand from the plan text
(templates/texts/far-east-2022-2024.txt) and DOMAIN.md §4; the arithmetic is
written next to it. Each test starts from one fully compliant baseline case
(evaluation year 2023, history 2021–2023, all attestations confirmed) and varies
one thing.

Baseline (amounts in 元):
    2021: distributable_profit 100,000,000.00   cash_dividend 10,000,000.00
    2022: distributable_profit 120,000,000.00   cash_dividend 10,000,000.00
    2023: distributable_profit 140,000,000.00   cash_dividend 20,000,000.00
          retained earnings: consolidated 500,000,000.00, parent 400,000,000.00
          standard unqualified opinion, cash flow sufficient, going concern unaffected,
          no major outlay, mature stage, no stock dividend, vote 90 %, AGM 2024-05-20,
          payout 2024-06-20
  四、3: required = 30% × (100M + 120M + 140M) / 3 = 30% × 120M = 36,000,000.00
         cash 2021..2023 = 10M + 10M + 20M = 40,000,000.00 >= 36M → pass
         min this year = 36M − (10M + 10M) = 16,000,000.00
  四、4: mature, no major outlay → 80 %; stock 0 → cash needed 0·0.8/0.2 = 0
"""

from __future__ import annotations

import copy
import datetime as dt

import pytest

from conftest import run

POLICY = "far-east-2022-2024"
YEAR = 2023

CONDITIONS = [
    "cond_distributable_positive", "cond_retained_positive", "cond_cash_flow",
    "cond_audit_opinion", "cond_going_concern", "cond_no_major_outlay",
]
# 四、2 for an interim dividend ("该年度或半年度"): the same conditions on the half-year figures,
# checked only when an interim cash dividend is paid (warn: 实施现金分红时应同时满足, DOMAIN.md §5)
INTERIM_RULES = ["interim_distributable_positive", "interim_audit_opinion"]
REQUIREMENTS = [
    *INTERIM_RULES,
    "cash_when_distributing", "annual_cash_in_principle", "min_rolling", "cash_share", "cash_share_interim",
    "minority_consulted", "vote_majority", "vote_stock_two_thirds", "online_voting",
    "independent_directors_opinion", "payout_within_two_months", "fund_occupation_withheld",
    "policy_change_two_thirds",
]
ATTESTATIONS = ["minority_consulted", "fund_occupation_withheld", "policy_change_two_thirds"]
MINIMUM_RULES = ["min_rolling", "cash_when_distributing", "annual_cash_in_principle"]

_BASE_YEARS = {
    2021: {"distributable_profit": 100_000_000.00, "cash_dividend": 10_000_000.00},
    2022: {"distributable_profit": 120_000_000.00, "cash_dividend": 10_000_000.00},
    2023: {
        "net_profit_attributable": 150_000_000.00,
        "distributable_profit": 140_000_000.00,
        "retained_earnings_consolidated": 500_000_000.00,
        "retained_earnings_parent": 400_000_000.00,
        "audit_opinion": "standard_unqualified",
        "cash_flow_sufficient": True,
        "going_concern_unaffected": True,
        "major_outlay_planned": False,
        "development_stage": "mature",
        "cash_dividend": 20_000_000.00,
        "buyback_amount": 0.0,
        "stock_dividend": 0.0,
        "capital_reserve_conversion": 0.0,
        "vote_for_ratio": 0.90,
        "online_voting_offered": True,
        "independent_directors_opinion": True,
        "agm_date": dt.date(2024, 5, 20),
        "payout_date": dt.date(2024, 6, 20),
    },
}
_BASE_ATTEST = {k: True for k in ATTESTATIONS}


def far_east(drop=(), prior=None, attest=None, drop_attest=(), drop_years=(), **changes):
    """Evaluate the baseline with one variation.

    changes: 2023 field -> value; drop: 2023 field ids (or (year, field) pairs) to remove;
    prior: {year: {field: value}} for 2021/2022; attest: attestation overrides;
    drop_attest: attestations to leave out; drop_years: fiscal years to leave out entirely.
    """
    years = copy.deepcopy(_BASE_YEARS)
    years[YEAR].update(changes)
    for y, vals in (prior or {}).items():
        years.setdefault(y, {}).update(vals)
    for d in drop:
        y, f = d if isinstance(d, tuple) else (YEAR, d)
        del years[y][f]
    for y in drop_years:
        del years[y]
    att = dict(_BASE_ATTEST)
    att.update(attest or {})
    for a in drop_attest:
        del att[a]
    return run(POLICY, YEAR, years, att)


def statuses(rep):
    return {r.id: r.status for r in rep.rules}


# ---------------------------------------------------------------------------
# baseline and inventory
# ---------------------------------------------------------------------------

def test_policy_has_exactly_the_rules_covered_here():
    rep = far_east()
    assert [r.id for r in rep.rules if r.role == "condition"] == CONDITIONS
    assert sorted(r.id for r in rep.rules if r.role == "requirement") == sorted(REQUIREMENTS)


def test_baseline_is_fully_compliant():
    rep = far_east()
    assert statuses(rep) == {
        **{c: "met" for c in CONDITIONS},  # conditions are met / not met, not pass / fail
        **{r: "not_applicable" for r in INTERIM_RULES},  # no interim cash dividend
        "cash_when_distributing": "pass",
        "annual_cash_in_principle": "pass",
        "min_rolling": "pass",
        "cash_share": "pass",
        "cash_share_interim": "not_applicable",  # no interim distribution
        "minority_consulted": "pass",
        "vote_majority": "pass",  # 90% > 1/2
        "vote_stock_two_thirds": "not_applicable",  # no stock dividend, no conversion
        "online_voting": "not_applicable",  # a cash dividend is proposed
        "independent_directors_opinion": "pass",
        "payout_within_two_months": "pass",  # 2024-06-20 <= EDATE(2024-05-20, 2) = 2024-07-20
        "fund_occupation_withheld": "pass",
        "policy_change_two_thirds": "pass",
    }
    assert rep.overall_status == "pass"
    assert (rep.fail_count, rep.warn_count, rep.missing_input_count) == (0, 0, 0)
    assert rep.exit_code == 0
    assert rep.cash_conditions_met is True
    # 30% × (100M + 120M + 140M) / 3 = 36,000,000.00; minus prior cash 10M + 10M
    assert rep.min_cash_dividend == 16_000_000.00
    # max distribution = cumulative distributable profit, lower of 500M / 400M
    assert rep.max_distribution == 400_000_000.00


# ---------------------------------------------------------------------------
# 四、2 conditions (1)–(4)
# ---------------------------------------------------------------------------

# (rule id, 2023 change that breaks it, 2023 field whose absence leaves it undecided)
COND_CASES = [
    ("cond_distributable_positive", {"distributable_profit": 0.0}, "distributable_profit"),
    ("cond_retained_positive", {"retained_earnings_parent": 0.0}, "retained_earnings_parent"),
    ("cond_retained_positive", {"retained_earnings_consolidated": -1.0}, "retained_earnings_consolidated"),
    ("cond_cash_flow", {"cash_flow_sufficient": False}, "cash_flow_sufficient"),
    ("cond_audit_opinion", {"audit_opinion": "qualified"}, "audit_opinion"),
    ("cond_going_concern", {"going_concern_unaffected": False}, "going_concern_unaffected"),
    ("cond_no_major_outlay", {"major_outlay_planned": True}, "major_outlay_planned"),
]


@pytest.mark.parametrize("rule", CONDITIONS)
def test_condition_met_in_baseline(rule):
    rep = far_east()
    assert rep.rule(rule).status == "met"
    assert rep.cash_conditions_met is True


@pytest.mark.parametrize("rule,change,_field", COND_CASES)
def test_condition_not_met_makes_minimums_not_applicable(rule, change, _field):
    rep = far_east(**change)
    assert rep.rule(rule).status == "not_met"
    assert rep.cash_conditions_met is False
    for r in MINIMUM_RULES:
        assert rep.rule(r).status == "not_applicable", r
    assert rep.rule("min_rolling").shortfall == 0.0
    # no stock dividend: cash share needs 0·s/(1−s) = 0; no minimum applies → 0
    assert rep.min_cash_dividend == 0.0
    # a condition not met is not itself a violation of the plan
    assert rep.fail_count == 0
    assert rep.overall_status == "pass"
    assert rep.exit_code == 0


@pytest.mark.parametrize("rule,_change,field", COND_CASES)
def test_condition_missing_input(rule, _change, field):
    rep = far_east(drop=[field])
    r = rep.rule(rule)
    assert r.status == "missing_input"
    assert any(field in m and "2023" in m for m in r.missing_inputs)
    assert rep.cash_conditions_met is None
    # whether the minimums apply cannot be decided
    assert rep.rule("min_rolling").status == "missing_input"
    assert rep.min_cash_dividend is None
    assert rep.overall_status == "missing_input"
    assert rep.exit_code == 1


def test_failed_condition_decides_even_when_another_is_missing():
    # all conditions are required: one that fails settles it, a missing one does not matter
    rep = far_east(cash_flow_sufficient=False, drop=["audit_opinion"])
    assert rep.rule("cond_cash_flow").status == "not_met"
    assert rep.rule("cond_audit_opinion").status == "missing_input"
    assert rep.cash_conditions_met is False
    assert rep.rule("min_rolling").status == "not_applicable"
    assert rep.min_cash_dividend == 0.0


@pytest.mark.parametrize("dp,status,actual", [
    (140_000_000.00, "met", 140_000_000.00),
    (0.01, "met", 0.01),
    (0.005, "met", 0.01),          # rounds half-up to 0.01 > 0
    (0.004, "not_met", 0.0),       # rounds to 0.00, not > 0 (为正值)
    (0.0, "not_met", 0.0),
    (-5_000_000.00, "not_met", -5_000_000.00),
])
def test_distributable_profit_positive(dp, status, actual):
    r = far_east(distributable_profit=dp).rule("cond_distributable_positive")
    assert r.status == status
    assert r.actual == actual


@pytest.mark.parametrize("cons,parent,status,actual", [
    (500_000_000.00, 400_000_000.00, "met", 400_000_000.00),      # min(500M, 400M)
    (300_000_000.00, 400_000_000.00, "met", 300_000_000.00),      # min(300M, 400M)
    (500_000_000.00, 0.0, "not_met", 0.0),                        # consolidated > 0 but parent = 0
    (500_000_000.00, -1.00, "not_met", -1.00),                    # consolidated > 0 but parent < 0
    (-0.01, 400_000_000.00, "not_met", -0.01),                    # parent > 0 but consolidated < 0
    (500_000_000.00, 0.004, "not_met", 0.0),                      # parent rounds to 0.00
    (500_000_000.00, 0.005, "met", 0.01),                         # parent rounds to 0.01
])
def test_retained_earnings_use_lower_of_consolidated_and_parent(cons, parent, status, actual):
    rep = far_east(retained_earnings_consolidated=cons, retained_earnings_parent=parent)
    r = rep.rule("cond_retained_positive")
    assert r.status == status
    assert r.actual == actual
    assert rep.cash_conditions_met is (status == "met")
    # max distribution = max(0, lower of the two)
    assert rep.max_distribution == max(0.0, actual)


@pytest.mark.parametrize("opinion,status", [
    ("standard_unqualified", "met"),
    ("unqualified_with_emphasis", "not_met"),  # 标准无保留 only; an emphasis paragraph is not "standard"
    ("qualified", "not_met"),
    ("adverse", "not_met"),
    ("disclaimer", "not_met"),
])
def test_audit_opinion(opinion, status):
    rep = far_east(audit_opinion=opinion)
    assert rep.rule("cond_audit_opinion").status == status
    assert rep.cash_conditions_met is (status == "met")


# ---------------------------------------------------------------------------
# 四、2 for an interim dividend: 该年度或半年度 … 为正值; 该年度、半年度 … 标准无保留意见
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("interim", [0.0, 0.004])  # 0.004 rounds to 0.00: no interim dividend
def test_interim_rules_not_applicable_without_interim_dividend(interim):
    rep = far_east(interim_cash_dividend=interim, half_year_distributable_profit=-5.0,
                   half_year_audit_opinion="qualified")
    for rid in INTERIM_RULES:
        r = rep.rule(rid)
        assert r.status == "not_applicable", rid
        assert r.reason == "na_no_interim"
        assert r.explanation_zh == "不适用：本年度未进行中期现金分红"
    assert rep.overall_status == "pass"


@pytest.mark.parametrize("hy_profit,status", [
    (5_000_000.00, "pass"),
    (0.005, "pass"),       # rounds half-up to 0.01 > 0
    (0.004, "warn"),       # rounds to 0.00, not 为正值
    (-1_000_000.00, "warn"),  # a half-year loss
])
def test_interim_half_year_distributable_profit(hy_profit, status):
    # interim 5,000,000.00 paid (included in the year's 20M); the annual conditions still hold
    rep = far_east(interim_cash_dividend=5_000_000.00, half_year_distributable_profit=hy_profit,
                   half_year_audit_opinion="standard_unqualified")
    r = rep.rule("interim_distributable_positive")
    assert r.role == "requirement" and r.severity == "warn"
    assert r.status == status
    assert rep.rule("interim_audit_opinion").status == "pass"
    assert rep.cash_conditions_met is True
    assert rep.overall_status == status
    assert rep.fail_count == 0
    assert rep.warn_count == (1 if status == "warn" else 0)


@pytest.mark.parametrize("opinion,status", [
    ("standard_unqualified", "pass"),
    ("unqualified_with_emphasis", "warn"),
    ("qualified", "warn"),
    ("unaudited", "warn"),  # the plan asks for an audit report on the half-year too
])
def test_interim_half_year_audit_opinion(opinion, status):
    rep = far_east(interim_cash_dividend=5_000_000.00, half_year_distributable_profit=5_000_000.00,
                   half_year_audit_opinion=opinion)
    assert rep.rule("interim_audit_opinion").status == status
    assert rep.overall_status == status


def test_interim_inputs_missing_when_interim_paid():
    rep = far_east(interim_cash_dividend=5_000_000.00)
    for rid, fid in zip(INTERIM_RULES, ["half_year_distributable_profit", "half_year_audit_opinion"]):
        r = rep.rule(rid)
        assert r.status == "missing_input"
        assert any(fid in m and "2023" in m for m in r.missing_inputs)
    assert rep.overall_status == "missing_input"


# ---------------------------------------------------------------------------
# 四、3 rolling three-year minimum
# ---------------------------------------------------------------------------

def test_rolling_minimum_baseline_amounts():
    r = far_east().rule("min_rolling")
    assert r.required == 36_000_000.00  # 30% × (100M + 120M + 140M) / 3
    assert r.actual == 40_000_000.00    # 10M + 10M + 20M
    assert r.shortfall == 0.0


@pytest.mark.parametrize("cash2023,status,shortfall", [
    (16_000_000.00, "pass", 0.0),   # 10M + 10M + 16M = 36,000,000.00 = required
    (15_999_999.99, "fail", 0.01),  # 35,999,999.99: one fen short
    (15_999_999.995, "pass", 0.0),  # rounds half-up to 16,000,000.00 before comparing
    (0.0, "fail", 16_000_000.00),   # 20M vs 36M
])
def test_rolling_minimum_exact_boundary(cash2023, status, shortfall):
    rep = far_east(cash_dividend=cash2023)
    r = rep.rule("min_rolling")
    assert r.status == status
    assert r.required == 36_000_000.00
    assert r.shortfall == shortfall
    assert rep.overall_status == status


def test_rolling_minimum_one_fen_short_fails_the_case():
    rep = far_east(cash_dividend=15_999_999.99)
    assert rep.overall_status == "fail"
    assert rep.fail_count == 1
    assert rep.exit_code == 1


@pytest.mark.parametrize("buyback,status,shortfall", [
    (6_000_000.00, "pass", 0.0),    # 10M + 10M + (10M cash + 6M buyback) = 36M
    (5_999_999.99, "fail", 0.01),   # 35,999,999.99
])
def test_rolling_minimum_counts_buybacks(buyback, status, shortfall):
    r = far_east(cash_dividend=10_000_000.00, buyback_amount=buyback).rule("min_rolling")
    assert r.actual == round(30_000_000.00 + buyback, 2)
    assert r.status == status
    assert r.shortfall == shortfall


def test_rolling_minimum_counts_prior_year_buybacks():
    # 2021: 4M cash + 6M buyback; 2022: 10M; 2023: 16M → 36M = required
    rep = far_east(cash_dividend=16_000_000.00,
                   prior={2021: {"cash_dividend": 4_000_000.00, "buyback_amount": 6_000_000.00}})
    assert rep.rule("min_rolling").actual == 36_000_000.00
    assert rep.rule("min_rolling").status == "pass"


@pytest.mark.parametrize("cash2023,status,shortfall", [
    (100_000.01, "pass", 0.0),
    (100_000.00, "fail", 0.01),
])
def test_rolling_minimum_half_fen_rounds_up(cash2023, status, shortfall):
    # distributable profit 333,333.35 each year: sum 1,000,000.05, average 333,333.35,
    # 30% = 100,000.005 → half-up 100,000.01 (half-even or truncation would give 100,000.00)
    dp = 333_333.35
    rep = far_east(distributable_profit=dp, cash_dividend=cash2023,
                   prior={2021: {"distributable_profit": dp, "cash_dividend": 0.0},
                          2022: {"distributable_profit": dp, "cash_dividend": 0.0}})
    r = rep.rule("min_rolling")
    assert r.required == 100_000.01
    assert r.status == status
    assert r.shortfall == shortfall
    assert rep.min_cash_dividend == 100_000.01  # no prior cash: 100,000.01 − 0


@pytest.mark.parametrize("cash2023,status", [(300_000.03, "pass"), (300_000.02, "fail")])
def test_rolling_minimum_thirty_percent_of_1000000_10(cash2023, status):
    # DOMAIN §4 boundary: average 1,000,000.10 → 30% = 300,000.03 exactly
    dp = 1_000_000.10
    rep = far_east(distributable_profit=dp, cash_dividend=cash2023,
                   prior={2021: {"distributable_profit": dp, "cash_dividend": 0.0},
                          2022: {"distributable_profit": dp, "cash_dividend": 0.0}})
    r = rep.rule("min_rolling")
    assert r.required == 300_000.03
    assert r.status == status


def test_rolling_minimum_uneven_profits():
    # 2021 0.00, 2022 0.00, 2023 1,000,000.05 → avg 333,333.35 → 30% = 100,000.005 → 100,000.01
    rep = far_east(distributable_profit=1_000_000.05, cash_dividend=100_000.01,
                   prior={2021: {"distributable_profit": 0.0, "cash_dividend": 0.0},
                          2022: {"distributable_profit": 0.0, "cash_dividend": 0.0}})
    assert rep.rule("min_rolling").required == 100_000.01
    assert rep.rule("min_rolling").status == "pass"


def test_rolling_minimum_negative_requirement_is_zero():
    # 2021 −500M: (−500M + 120M + 140M)/3 × 30% = −24M → required 0
    rep = far_east(prior={2021: {"distributable_profit": -500_000_000.00}})
    r = rep.rule("min_rolling")
    assert r.required == 0.0
    assert r.status == "pass"
    # no quantitative minimum left, but 四、1 (应当采用现金分红) applies: conditions met and a
    # distribution is made, so any positive cash meets it — the smallest is one fen
    assert rep.min_cash_dividend == 0.01
    assert "任何正数金额" in rep.min_cash_note_zh


@pytest.mark.parametrize("drop,year", [
    ([(2021, "distributable_profit")], 2021),
    ([(2022, "distributable_profit")], 2022),
])
def test_rolling_minimum_missing_prior_profit(drop, year):
    rep = far_east(drop=drop)
    r = rep.rule("min_rolling")
    assert r.status == "missing_input"
    assert any("distributable_profit" in m and str(year) in m for m in r.missing_inputs)
    assert r.shortfall is None
    assert rep.cash_conditions_met is True  # 2023 conditions are unaffected
    assert rep.min_cash_dividend is None
    assert rep.overall_status == "missing_input"
    assert rep.exit_code == 1


def test_rolling_minimum_missing_whole_prior_year():
    rep = far_east(drop_years=[2021])
    r = rep.rule("min_rolling")
    assert r.status == "missing_input"
    assert any("distributable_profit" in m and "2021" in m for m in r.missing_inputs)
    assert rep.min_cash_dividend is None


def test_rolling_minimum_absent_prior_cash_is_zero():
    # 2021 cash not given → 0 (DOMAIN §3): 0 + 10M + 20M = 30M < 36M, short 6M
    rep = far_east(drop=[(2021, "cash_dividend")])
    r = rep.rule("min_rolling")
    assert r.actual == 30_000_000.00
    assert r.status == "fail"
    assert r.shortfall == 6_000_000.00
    assert rep.min_cash_dividend == 26_000_000.00  # 36M − (0 + 10M)


@pytest.mark.parametrize("prior,expected", [
    ({2021: {"cash_dividend": 10_000_000.00}, 2022: {"cash_dividend": 10_000_000.00}},
     16_000_000.00),  # 36M − 20M
    ({2021: {"cash_dividend": 0.0}, 2022: {"cash_dividend": 0.0}},
     36_000_000.00),  # 36M − 0
    ({2021: {"cash_dividend": 20_000_000.00}, 2022: {"cash_dividend": 16_000_000.00}},
     0.01),  # 36M − 36M = 0, but 四、1 requires cash (> 0) when distributing: one fen
    ({2021: {"cash_dividend": 30_000_000.00}, 2022: {"cash_dividend": 30_000_000.00}},
     0.01),  # max(0, 36M − 60M) = 0; 四、1: one fen
    ({2021: {"cash_dividend": 5_000_000.00, "buyback_amount": 5_000_000.00},
      2022: {"cash_dividend": 0.0, "buyback_amount": 0.01}},
     25_999_999.99),  # 36M − (5M + 5M + 0.01)
])
def test_min_cash_dividend_from_rolling_minimum(prior, expected):
    rep = far_east(prior=prior)
    assert rep.min_cash_dividend == expected


# ---------------------------------------------------------------------------
# 四、4 differentiated cash share
# ---------------------------------------------------------------------------

# (stage, major outlay, required cash for a stock dividend of 100.00, one fen below)
SHARE_CELLS = [
    ("mature", False, 400.00, 399.99),         # 100 × 0.8 / 0.2 = 400
    ("mature", True, 66.67, 66.66),            # 100 × 0.4 / 0.6 = 66.666… → 66.67
    ("growth", True, 25.00, 24.99),            # 100 × 0.2 / 0.8 = 25
    ("indeterminate", True, 25.00, 24.99),     # treated as growth/major: 20 %
]
ZERO_CELLS = [("growth", False), ("indeterminate", False)]  # plan prescribes no share (DOMAIN §5)


@pytest.mark.parametrize("stage,major,required,_below", SHARE_CELLS)
def test_cash_share_passes_at_exact_required(stage, major, required, _below):
    rep = far_east(development_stage=stage, major_outlay_planned=major,
                   stock_dividend=100.00, cash_dividend=required)
    r = rep.rule("cash_share")
    assert r.required == required
    assert r.actual == required
    assert r.status == "pass"
    assert r.shortfall == 0.0


@pytest.mark.parametrize("stage,major,required,below", SHARE_CELLS)
def test_cash_share_fails_one_fen_below(stage, major, required, below):
    rep = far_east(development_stage=stage, major_outlay_planned=major,
                   stock_dividend=100.00, cash_dividend=below)
    r = rep.rule("cash_share")
    assert r.required == required
    assert r.status == "fail"
    assert r.shortfall == 0.01


@pytest.mark.parametrize("stage,major", ZERO_CELLS)
def test_cash_share_no_minimum_without_major_outlay_outside_mature(stage, major):
    # an all-stock distribution of 100.00 in a cell 四、4 leaves empty: no prescribed minimum,
    # so the rule does not apply (not a pass against 0%)
    rep = far_east(development_stage=stage, major_outlay_planned=major,
                   stock_dividend=100.00, cash_dividend=0.0)
    r = rep.rule("cash_share")
    assert r.status == "not_applicable"
    assert r.reason == "na_no_prescribed_share"
    assert r.explanation_zh == "不适用：规划对该发展阶段与资金支出情形未规定最低现金占比"
    assert r.shortfall == 0.0


@pytest.mark.parametrize("stage,major", ZERO_CELLS)
def test_cash_share_empty_cell_without_stock_dividend_passes(stage, major):
    # all cash (stock 0): the share is 100%, cash needed 0·s/(1−s) = 0 whatever the cell → pass
    r = far_east(development_stage=stage, major_outlay_planned=major).rule("cash_share")
    assert r.required == 0.0
    assert r.actual == 20_000_000.00
    assert r.status == "pass"


def test_cash_share_large_stock_dividend():
    # mature, no major: stock 1,000,000.00 → 1,000,000 × 0.8/0.2 = 4,000,000.00; cash 20M passes
    r = far_east(stock_dividend=1_000_000.00).rule("cash_share")
    assert r.required == 4_000_000.00
    assert r.status == "pass"


@pytest.mark.parametrize("cash,status,shortfall", [(400.00, "pass", 0.0), (399.99, "fail", 0.01)])
def test_cash_share_applies_even_when_conditions_fail(cash, status, shortfall):
    rep = far_east(cash_flow_sufficient=False, stock_dividend=100.00, cash_dividend=cash)
    assert rep.cash_conditions_met is False
    r = rep.rule("cash_share")
    assert r.status == status
    assert r.required == 400.00  # mature, no major: 100 × 0.8 / 0.2
    assert r.shortfall == shortfall
    assert rep.overall_status == status


def test_cash_share_not_applicable_without_distribution():
    rep = far_east(cash_flow_sufficient=False, cash_dividend=0.0, stock_dividend=0.0)
    assert rep.rule("cash_share").status == "not_applicable"
    assert rep.rule("cash_share").shortfall == 0.0
    assert rep.min_cash_dividend == 0.0


@pytest.mark.parametrize("change,expected", [
    ({"going_concern_unaffected": False}, 400.00),                          # mature/no major: 100·0.8/0.2
    ({"major_outlay_planned": True}, 66.67),                                # mature/major: 100·0.4/0.6
    ({"major_outlay_planned": True, "development_stage": "growth"}, 25.00),  # 100·0.2/0.8
    ({"major_outlay_planned": True, "development_stage": "indeterminate"}, 25.00),
    ({"going_concern_unaffected": False, "development_stage": "growth"}, 0.0),
])
def test_min_cash_when_conditions_fail_but_stock_proposed(change, expected):
    rep = far_east(stock_dividend=100.00, **change)
    assert rep.cash_conditions_met is False
    assert rep.rule("min_rolling").status == "not_applicable"
    assert rep.min_cash_dividend == expected


@pytest.mark.parametrize("stock,expected", [
    (1_000_000.00, 16_000_000.00),     # share needs 4,000,000.00 < rolling 16,000,000.00
    (4_000_000.00, 16_000_000.00),     # share needs 16,000,000.00 = rolling
    (100_000_000.00, 400_000_000.00),  # share needs 100M × 0.8/0.2 = 400M > rolling
])
def test_min_cash_is_the_higher_of_rolling_and_share(stock, expected):
    assert far_east(stock_dividend=stock).min_cash_dividend == expected


# ---------------------------------------------------------------------------
# 四、1 cash when distributing; 四、3 annual cash "in principle"
# ---------------------------------------------------------------------------

def test_cash_when_distributing_fails_for_stock_only_distribution():
    # conditions met and a distribution is made (stock 100) but no cash
    rep = far_east(cash_dividend=0.0, stock_dividend=100.00,
                   prior={2021: {"cash_dividend": 20_000_000.00}, 2022: {"cash_dividend": 20_000_000.00}})
    r = rep.rule("cash_when_distributing")
    assert r.status == "fail"
    assert r.actual == 0.0
    assert r.shortfall == 0.01  # cash > 0 (strict): the smallest step that passes is one fen, never 0.00
    assert rep.overall_status == "fail"


def test_cash_when_distributing_not_applicable_without_distribution():
    rep = far_east(cash_dividend=0.0, stock_dividend=0.0)
    assert rep.rule("cash_when_distributing").status == "not_applicable"


def test_cash_when_distributing_not_applicable_when_conditions_fail():
    rep = far_east(going_concern_unaffected=False, cash_dividend=0.0, stock_dividend=100.00,
                   development_stage="growth")
    assert rep.rule("cash_when_distributing").status == "not_applicable"


def test_annual_cash_in_principle_warns():
    # conditions met, no cash and no stock; prior years 20M + 20M = 40M >= 36M keep 四、3 met
    rep = far_east(cash_dividend=0.0, stock_dividend=0.0,
                   prior={2021: {"cash_dividend": 20_000_000.00}, 2022: {"cash_dividend": 20_000_000.00}})
    assert rep.rule("annual_cash_in_principle").status == "warn"
    assert rep.rule("annual_cash_in_principle").severity == "warn"
    assert rep.rule("min_rolling").status == "pass"
    assert rep.rule("cash_when_distributing").status == "not_applicable"
    assert rep.rule("cash_share").status == "not_applicable"
    assert rep.rule("payout_within_two_months").status == "not_applicable"
    assert rep.rule("online_voting").status == "pass"  # profitable, no cash, online voting offered
    assert rep.warn_count == 1
    assert rep.fail_count == 0
    assert rep.overall_status == "warn"
    assert rep.exit_code == 0
    assert rep.min_cash_dividend == 0.0  # max(0, 36M − 40M)


def test_annual_cash_in_principle_satisfied_by_buyback():
    # a bidding/tender buyback counts as cash dividend (DOMAIN §3)
    rep = far_east(cash_dividend=0.0, buyback_amount=20_000_000.00)
    assert rep.rule("annual_cash_in_principle").status == "pass"
    assert rep.rule("min_rolling").actual == 40_000_000.00  # 10M + 10M + 20M buyback


def test_annual_cash_in_principle_not_applicable_when_conditions_fail():
    rep = far_east(cash_flow_sufficient=False, cash_dividend=0.0)
    assert rep.rule("annual_cash_in_principle").status == "not_applicable"
    assert rep.overall_status == "pass"


# ---------------------------------------------------------------------------
# 四、5 procedures
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("ratio,status", [
    (0.5, "fail"),      # ordinary resolution: 过半数 (Company Law art. 116), exactly 1/2 is not more than half
    (0.5001, "pass"),
    (0.4999, "fail"),
    (1.0, "pass"),
    (0.0, "fail"),
])
def test_vote_majority(ratio, status):
    rep = far_east(vote_for_ratio=ratio)
    assert rep.rule("vote_majority").status == status
    assert rep.overall_status == status


def test_vote_majority_missing():
    rep = far_east(drop=["vote_for_ratio"])
    assert rep.rule("vote_majority").status == "missing_input"
    assert rep.overall_status == "missing_input"


@pytest.mark.parametrize("change", [{"stock_dividend": 100.00}, {"capital_reserve_conversion": 100.00}])
@pytest.mark.parametrize("ratio,status", [
    (2 / 3, "pass"),    # 2/3以上 includes 2/3
    (0.6667, "pass"),
    (0.6666, "fail"),
    (0.66, "fail"),
])
def test_vote_stock_two_thirds(change, ratio, status):
    rep = far_east(vote_for_ratio=ratio, **change)
    assert rep.rule("vote_stock_two_thirds").status == status
    assert rep.rule("vote_majority").status == "pass"


def test_vote_stock_two_thirds_not_applicable_without_stock_or_conversion():
    rep = far_east(vote_for_ratio=0.60)
    assert rep.rule("vote_stock_two_thirds").status == "not_applicable"
    assert rep.rule("vote_majority").status == "pass"
    assert rep.overall_status == "pass"


@pytest.mark.parametrize("profit,cash,stock,offered,status", [
    (150_000_000.00, 20_000_000.00, 0.0, False, "not_applicable"),  # cash proposed
    (150_000_000.00, 0.0, 0.0, True, "pass"),
    (150_000_000.00, 0.0, 0.0, False, "fail"),
    (150_000_000.00, 0.0, 100.00, False, "fail"),   # stock only: still no cash proposal
    (0.0, 0.0, 0.0, False, "not_applicable"),        # not profitable (盈利 = > 0)
    (-1_000_000.00, 0.0, 0.0, False, "not_applicable"),
    (0.004, 0.0, 0.0, False, "not_applicable"),      # rounds to 0.00
])
def test_online_voting(profit, cash, stock, offered, status):
    rep = far_east(net_profit_attributable=profit, cash_dividend=cash, stock_dividend=stock,
                   online_voting_offered=offered)
    assert rep.rule("online_voting").status == status


def test_online_voting_missing_when_it_applies():
    rep = far_east(cash_dividend=0.0, drop=["online_voting_offered"])
    assert rep.rule("online_voting").status == "missing_input"


def test_online_voting_missing_profit_when_no_cash():
    rep = far_east(cash_dividend=0.0, drop=["net_profit_attributable"])
    assert rep.rule("online_voting").status == "missing_input"


def test_online_voting_missing_profit_is_named():
    r = far_east(cash_dividend=0.0, drop=["net_profit_attributable"]).rule("online_voting")
    assert any("net_profit_attributable" in m and "2023" in m for m in r.missing_inputs)


def test_online_voting_not_applicable_with_cash_even_if_profit_missing():
    rep = far_east(drop=["net_profit_attributable"])
    assert rep.rule("online_voting").status == "not_applicable"


@pytest.mark.parametrize("value,status", [(True, "pass"), (False, "fail")])
def test_independent_directors_opinion(value, status):
    rep = far_east(independent_directors_opinion=value)
    assert rep.rule("independent_directors_opinion").status == status
    assert rep.overall_status == status


def test_independent_directors_opinion_missing():
    rep = far_east(drop=["independent_directors_opinion"])
    assert rep.rule("independent_directors_opinion").status == "missing_input"
    assert rep.exit_code == 1


# ---------------------------------------------------------------------------
# 四、6 payout within two months (EDATE, month-end clamp)
# ---------------------------------------------------------------------------

DEADLINES = [
    ("2024-01-31", "2024-03-31"),  # Jan 31 + 2 months: March has a 31st
    ("2023-12-31", "2024-02-29"),  # no Feb 31 → month end (leap year)
    ("2024-12-31", "2025-02-28"),  # no Feb 31 → month end
    ("2023-06-30", "2023-08-30"),  # the corresponding day exists: Aug 30, not Aug 31
    ("2024-05-20", "2024-07-20"),
]


@pytest.mark.parametrize("agm,deadline", DEADLINES)
def test_payout_on_deadline_passes(agm, deadline):
    r = far_east(agm_date=agm, payout_date=deadline).rule("payout_within_two_months")
    assert r.required == deadline
    assert r.status == "pass"


@pytest.mark.parametrize("agm,deadline", DEADLINES)
def test_payout_one_day_late_fails(agm, deadline):
    late = dt.date.fromisoformat(deadline) + dt.timedelta(days=1)
    rep = far_east(agm_date=dt.date.fromisoformat(agm), payout_date=late)
    r = rep.rule("payout_within_two_months")
    assert r.required == deadline
    assert r.actual == late.isoformat()
    assert r.status == "fail"
    assert rep.overall_status == "fail"


def test_payout_missing_date():
    rep = far_east(drop=["payout_date"])
    assert rep.rule("payout_within_two_months").status == "missing_input"


def test_payout_not_applicable_without_distribution():
    rep = far_east(cash_flow_sufficient=False, cash_dividend=0.0, drop=["payout_date", "agm_date"])
    assert rep.rule("payout_within_two_months").status == "not_applicable"


def test_payout_applies_to_stock_only_distribution():
    rep = far_east(going_concern_unaffected=False, development_stage="growth", cash_dividend=0.0,
                   stock_dividend=100.00, agm_date="2024-01-31", payout_date="2024-04-01")
    assert rep.rule("payout_within_two_months").status == "fail"  # deadline 2024-03-31


# ---------------------------------------------------------------------------
# attestations (四、5、(1), 四、6, 四、7)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("rule", ATTESTATIONS)
@pytest.mark.parametrize("value,status", [(True, "pass"), (False, "fail")])
def test_attestation(rule, value, status):
    rep = far_east(attest={rule: value})
    assert rep.rule(rule).status == status
    assert rep.overall_status == status
    assert rep.fail_count == (1 if status == "fail" else 0)


@pytest.mark.parametrize("rule", ATTESTATIONS)
def test_attestation_missing(rule):
    rep = far_east(drop_attest=[rule])
    r = rep.rule(rule)
    assert r.status == "missing_input"
    assert r.missing_inputs
    assert rep.overall_status == "missing_input"
    assert rep.missing_input_count == 1
    assert rep.exit_code == 1


# ---------------------------------------------------------------------------
# overall status, counts, exit code
# ---------------------------------------------------------------------------

def test_two_failures_counted():
    rep = far_east(vote_for_ratio=0.4, independent_directors_opinion=False)
    assert rep.fail_count == 2
    assert rep.overall_status == "fail"
    assert rep.exit_code == 1


def test_fail_outranks_missing_input():
    rep = far_east(vote_for_ratio=0.4, drop_attest=["minority_consulted"])
    assert (rep.fail_count, rep.missing_input_count) == (1, 1)
    assert rep.overall_status == "fail"
    assert rep.exit_code == 1


def test_fail_outranks_warn():
    rep = far_east(cash_dividend=0.0, vote_for_ratio=0.4,
                   prior={2021: {"cash_dividend": 20_000_000.00}, 2022: {"cash_dividend": 20_000_000.00}})
    assert (rep.fail_count, rep.warn_count) == (1, 1)
    assert rep.overall_status == "fail"
    assert rep.exit_code == 1


def test_missing_input_outranks_warn():
    rep = far_east(cash_dividend=0.0, drop_attest=["fund_occupation_withheld"],
                   prior={2021: {"cash_dividend": 20_000_000.00}, 2022: {"cash_dividend": 20_000_000.00}})
    assert (rep.warn_count, rep.missing_input_count) == (1, 1)
    assert rep.overall_status == "missing_input"
    assert rep.exit_code == 1
