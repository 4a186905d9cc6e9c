"""The regulatory baseline (DOMAIN.md §5; templates/baseline/cn-regulatory-baseline-2024.yaml).

Rules under test, on top of two plans:
  reg_st_low_dividend           exchange low-dividend risk warning (上市规则9.8.1 / 创业板9.4)
  reg_low_payout_explained      payout < 30% of net profit: reasons disclosed (attestation)
  reg_low_payout_online_voting  payout < 30% of net profit: online voting offered (field)
  reg_no_cash_explained         profitable without a cash dividend: reasons disclosed (attestation)
  reg_cash_while_conditions_unmet  a cash dividend paid while a plan condition is not met (severity warn)
  reg_parent_retained_positive  a distribution while parent retained earnings <= 0 (Company Law art. 210)
  reg_controlling_sale          controlling shareholders may sell (severity warn): 破净, 破发, dividends
and the report outputs ``st_risk_warning`` / ``cash_needed_to_avoid_st``.

Policies: ``gcl-energy-2022-2024`` (board szse_main, a main board: floor 50,000,000) and
``houpu-2024-2026`` (board chinext: floor 30,000,000, R&D exemption). Evaluation year 2024,
history 2022–2024 (the first window, FY2022–FY2024).

Every expected number is worked out by hand from DOMAIN.md §4–§5; the arithmetic is in the
comment beside it. Money (DOMAIN §4): required amounts are rounded half-up to the fen, and
an actual amount passes when, rounded to the fen, it is >= the requirement.

Each baseline company below complies with its plan's own rules AND with the regulatory
baseline; each test changes one thing. The plan's own rules are kept out of the way with
a small ``distributable_profit`` (GCL's minimums read distributable profit, the ST test
reads net profit attributable), and every attestation of the model is confirmed unless a
test is about it. Company figures are illustrative, not reported (DOMAIN §6).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from conftest import case
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.evaluator import case_getter, evaluate, evaluate_arrays, model_for
from xlmodel.plans.loading import load_policy

GCL = "gcl-energy-2022-2024"
HOUPU = "houpu-2024-2026"
YEAR = 2024

ST = "reg_st_low_dividend"
LOW_EXPLAINED = "reg_low_payout_explained"
LOW_VOTING = "reg_low_payout_online_voting"
NO_CASH = "reg_no_cash_explained"
CASH_UNMET = "reg_cash_while_conditions_unmet"
PARENT_RETAINED = "reg_parent_retained_positive"
SALE = "reg_controlling_sale"
# the Company Law's limits, the interim cap and the units check (tests/test_company_law.py, test_plausibility.py)
LAW = ["reg_distribution_cap", "reg_payout_six_months", "reg_vote_ordinary", "reg_vote_special", "reg_interim_cap",
       "reg_amounts_plausible"]
REGULATORY = [ST, LOW_EXPLAINED, LOW_VOTING, NO_CASH, CASH_UNMET, PARENT_RETAINED, *LAW, SALE]
# market facts of the sale restriction (DOMAIN §5), entered by the user: no 破净, no 破发
NO_PRICE_TRIGGER = {"price_below_net_assets_20d": False, "price_below_ipo_20d": False}

# listing dates are illustrative: anything before 2022 gives three full fiscal years 2022–2024
MAIN_CO = {"company_name": "协鑫能源科技股份有限公司", "stock_code": "002015", "board": "szse_main",
           "listing_date": "2004-07-08"}
CHINEXT_CO = {"company_name": "厚普清洁能源（集团）股份有限公司", "stock_code": "300471", "board": "chinext",
              "listing_date": "2015-06-11"}

M = 1_000_000.0  # one million 元

GCL_BASE = {
    # profit basis of the plan's own minimums (distributable profit) kept small: 10% × 1m = 100,000 a
    # year and 30% × 1m = 300,000 over three years, far below the cash paid in the tests below.
    2021: {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M},
    2022: {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M},
    2023: {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M},
    2024: {
        "net_profit_attributable": 100 * M,
        "distributable_profit": 1 * M,
        "retained_earnings_consolidated": 500 * M,
        "retained_earnings_parent": 400 * M,
        # at the end of the period an interim is paid out of: the plan's cap on an interim (issue 47)
        "half_year_retained_earnings_consolidated": 450 * M,
        "half_year_retained_earnings_parent": 350 * M,
        "total_assets": 2_000 * M,
        "planned_major_outlay": 0.0,  # not major: 0 < 30% × 2,000m
        "development_stage": "mature",
        "going_concern_unaffected": True,
        "audit_opinion": "standard_unqualified",
        "cash_dividend": 30 * M,
        "independent_directors_opinion": True,
        "online_voting_offered": True,
        "agm_date": "2025-05-20",
        "payout_date": "2025-06-20",  # within 2 months of the AGM
        "vote_for_ratio": 0.9,  # more than half (Company Law art. 116); 2/3 or more for a stock dividend
        **NO_PRICE_TRIGGER,
    },
}

HOUPU_BASE = {
    # R&D 30m a year: 90m over three years < 15% × 3,000m = 450m and < 300m → no exemption
    2022: {"net_profit_attributable": 100 * M, "cash_dividend": 30 * M, "revenue": 1_000 * M, "rd_expense": 30 * M},
    2023: {"net_profit_attributable": 100 * M, "cash_dividend": 30 * M, "revenue": 1_000 * M, "rd_expense": 30 * M},
    2024: {
        "net_profit_attributable": 100 * M,
        "distributable_profit": 80 * M,
        "revenue": 1_000 * M,
        "rd_expense": 30 * M,
        "audit_opinion": "standard_unqualified",
        "net_assets": 1_000 * M,
        "planned_major_outlay": 0.0,
        "retained_earnings_consolidated": 300 * M,
        "retained_earnings_parent": 250 * M,
        "half_year_retained_earnings_consolidated": 280 * M,
        "half_year_retained_earnings_parent": 230 * M,
        "going_concern_unaffected": True,
        "independent_directors_opinion": True,
        "online_voting_offered": True,
        "cash_dividend": 30 * M,
        **NO_PRICE_TRIGGER,
    },
}


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _py(v):
    """A calculation element -> Python ("" is a blank cell: None)."""
    if isinstance(v, str):
        return None if v == "" else v
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    return float(v)


@dataclass
class Result:
    rep: object
    st: bool | None  # st_risk_warning
    needed: float | None  # cash_needed_to_avoid_st

    def status(self, rule_id: str) -> str:
        return self.rep.rule(rule_id).status

    def rule(self, rule_id: str):
        return self.rep.rule(rule_id)


def st_outputs(c, rep) -> tuple[bool | None, float | None]:
    """st_risk_warning and cash_needed_to_avoid_st: from the report when it has them, else the model."""
    env = evaluate_arrays(model_for(load_policy(c.policy)), 1, case_getter(c), c.evaluation_year)
    direct = (_py(env.calc("st_risk_warning", None)[0]), _py(env.calc("cash_needed_to_avoid_st", None)[0]))
    if hasattr(rep, "st_risk_warning") and hasattr(rep, "cash_needed_to_avoid_st"):
        got = (rep.st_risk_warning, rep.cash_needed_to_avoid_st)
        assert got == direct, "the report disagrees with the model's own calculation"
        return got
    return direct


def all_attestations(policy: str) -> dict:
    return {a: True for a in model_for(policy).attestation_ids()}


def _apply(years: dict, changes: dict | None):
    for fy, vals in (changes or {}).items():
        years.setdefault(fy, {})
        for k, v in vals.items():
            if v is None:
                years[fy].pop(k, None)
            else:
                years[fy][k] = v


def _evaluate(policy, base, company, changes, attest, year, company_changes) -> Result:
    years = copy.deepcopy(base)
    if year == 2024:
        years.pop(2021, None)
    _apply(years, changes)
    if year == 2023:  # the 2023 report: history 2021–2023; 2023 also carries the evaluation-year inputs
        years[2023] = {**years.pop(2024), **years[2023]}
    att = all_attestations(policy)
    att.update(attest or {})
    co = dict(company)
    if "board" in (company_changes or {}) and "stock_code" not in company_changes:
        co.pop("stock_code", None)  # a board of the test's own: the code, which implies its board, left out
    for k, v in (company_changes or {}).items():
        if v is None:
            co.pop(k, None)
        else:
            co[k] = v
    c = case(policy, year, years, att, co)
    rep = evaluate(c, baseline=True)
    st, needed = st_outputs(c, rep)
    return Result(rep, st, needed)


def gcl(changes: dict | None = None, attest: dict | None = None, company: dict | None = None, year: int = YEAR):
    """The GCL baseline (szse_main) with changes {fiscal_year: {field: value}}; None removes a value."""
    return _evaluate(GCL, GCL_BASE, MAIN_CO, changes, attest, year, company)


def houpu(changes: dict | None = None, attest: dict | None = None, company: dict | None = None):
    """The Houpu baseline (chinext) with changes {fiscal_year: {field: value}}; None removes a value."""
    return _evaluate(HOUPU, HOUPU_BASE, CHINEXT_CO, changes, attest, YEAR, company)


def per_year(field: str, v2022, v2023, v2024, first: int = 2022) -> dict:
    return {first: {field: v2022}, first + 1: {field: v2023}, first + 2: {field: v2024}}


def merge(*dicts: dict) -> dict:
    out: dict = {}
    for d in dicts:
        for fy, vals in d.items():
            out.setdefault(fy, {}).update(vals)
    return out


def npa(a, b, c, first: int = 2022) -> dict:
    return per_year("net_profit_attributable", a, b, c, first)


def cash(a, b, c, first: int = 2022) -> dict:
    return per_year("cash_dividend", a, b, c, first)


def plan_statuses(rep) -> dict:
    return {r.id: r.status for r in rep.rules if r.role != "regulatory"}


def assert_plan_complies(rep):
    # conditions met, obligations passed (or not applicable)
    bad = {k: v for k, v in plan_statuses(rep).items() if v not in ("met", "pass", "not_applicable")}
    assert not bad, f"the plan's own rules should not be in play: {bad}"


# ---------------------------------------------------------------------------
# baselines
# ---------------------------------------------------------------------------

def test_regulatory_rules_are_in_the_report_with_baseline_true():
    r = gcl()
    regulatory = [x.id for x in r.rep.rules if x.role == "regulatory"]
    assert regulatory == REGULATORY
    assert r.rule(SALE).severity == "warn"
    assert r.rule(ST).severity == "fail"
    assert r.rule(CASH_UNMET).severity == "warn"
    assert r.rule(PARENT_RETAINED).severity == "fail"
    # reg_low_payout_online_voting reads the field online_voting_offered, not an attestation
    ids = model_for(GCL).attestation_ids()
    assert LOW_EXPLAINED in ids and NO_CASH in ids and LOW_VOTING not in ids
    assert CASH_UNMET not in ids and PARENT_RETAINED not in ids  # computed, not attested


def test_gcl_baseline_complies():
    r = gcl()
    assert_plan_complies(r.rep)
    assert {rid: r.status(rid) for rid in REGULATORY} == {
        # cash 30m × 3 = 90,000,000 >= 30% × (300,000,000 / 3) = 30,000,000
        ST: "pass",
        # 2024 cash 30,000,000 is not < 30% × 100,000,000 = 30,000,000: not a low payout
        LOW_EXPLAINED: "not_applicable",
        LOW_VOTING: "not_applicable",
        NO_CASH: "not_applicable",  # cash dividend 30,000,000 ≠ 0
        CASH_UNMET: "pass",  # cash paid and every plan condition met
        PARENT_RETAINED: "pass",  # distribution made, parent retained 400,000,000 > 0
        "reg_distribution_cap": "pass",  # 30,000,000 <= min(500m, 400m) = 400,000,000
        "reg_payout_six_months": "pass",  # 2025-06-20 <= 2025-05-20 + 6 months = 2025-11-20
        "reg_vote_ordinary": "pass",  # 90% > 1/2
        "reg_vote_special": "not_applicable",  # no stock dividend or conversion
        "reg_interim_cap": "not_applicable",  # no interim
        "reg_amounts_plausible": "pass",  # total assets 2,000m, profits 100m a year: no 万元 signal
        SALE: "pass",  # no 破净 / 破发; 90,000,000 >= 30,000,000 and not nil
    }
    assert r.rule(ST).actual == 90_000_000.00  # 30m + 30m + 30m
    assert r.rule(ST).required == 30_000_000.00  # min(30% × 100m = 30m, floor 50m)
    assert r.st is False
    assert r.needed == 0.0  # max(0, min(30m, 50m) − (30m + 30m) = −30m) = 0
    assert r.rep.overall_status == "pass" and r.rep.exit_code == 0


def test_houpu_baseline_complies():
    r = houpu()
    assert_plan_complies(r.rep)
    assert {rid: r.status(rid) for rid in REGULATORY} == {
        ST: "pass",  # 90,000,000 >= min(30% × 100m = 30m, ChiNext floor 30m) = 30,000,000
        LOW_EXPLAINED: "not_applicable",  # 30m not < 30% × 100m
        LOW_VOTING: "not_applicable",
        NO_CASH: "not_applicable",
        CASH_UNMET: "pass",  # cash paid, conditions met
        PARENT_RETAINED: "pass",  # parent retained 250,000,000 > 0
        "reg_distribution_cap": "pass",  # 30,000,000 <= min(300m, 250m) = 250,000,000
        "reg_payout_six_months": "not_applicable",  # no AGM date: checked before the AGM
        "reg_vote_ordinary": "not_applicable",  # likewise (no AGM date, no vote)
        "reg_vote_special": "not_applicable",
        "reg_interim_cap": "not_applicable",
        "reg_amounts_plausible": "pass",  # revenue 1,000m, profits 100m, net assets 1,000m: no 万元 signal
        SALE: "pass",
    }
    assert r.rule("reg_vote_ordinary").reason == "na_agm_not_held"
    assert r.st is False
    assert r.needed == 0.0  # max(0, 30m − 60m)
    assert r.rep.overall_status == "pass"


# ---------------------------------------------------------------------------
# ST: scope
# ---------------------------------------------------------------------------

# cash 5m a year = 15,000,000 < 30% × 100m = 30m and < 50m: triggered whenever in scope
LOW_CASH = cash(5 * M, 5 * M, 5 * M)


def test_st_not_applicable_for_fiscal_2023():
    # first_fiscal_year 2024: the 2023 report is not tested even with a payout that would trigger it
    r = gcl(merge(cash(5 * M, 5 * M, 5 * M, first=2021), npa(100 * M, 100 * M, 100 * M, first=2021)), year=2023)
    assert r.rep.evaluation_year == 2023
    assert r.status(ST) == "not_applicable"
    assert r.rule(ST).reason == "na_before_first_year"  # one reason, not a list of possible ones
    assert r.st is None  # out of scope: no answer
    assert r.needed == 0.0


def test_st_in_scope_for_fiscal_2024():
    r = gcl(LOW_CASH)
    assert r.status(ST) == "fail"
    assert r.rule(ST).actual == 15_000_000.00  # 5m × 3
    assert r.rule(ST).required == 30_000_000.00  # min(30% × 100m, 50m)
    assert r.rule(ST).shortfall == 15_000_000.00  # 30m − 15m
    assert r.st is True
    assert r.needed == 20_000_000.00  # 30m − (5m + 5m)


def test_st_bse_is_out_of_scope():
    r = gcl(LOW_CASH, company={"board": "bse"})
    assert r.status(ST) == "not_applicable"
    assert r.rule(ST).reason == "na_board_not_covered"
    assert r.rule(ST).explanation_zh == "不适用：上市板块不在规则范围（如北交所）"
    assert r.st is None
    assert r.needed == 0.0


def test_st_star_uses_the_30m_floor():
    # STAR: floor 30,000,000 like ChiNext. npa 300m → 30% = 90m; cash 10m × 3 = 30,000,000 >= 30m → pass
    r = houpu(merge(npa(300 * M, 300 * M, 300 * M), cash(10 * M, 10 * M, 10 * M)), company={"board": "star"})
    assert r.status(ST) == "pass"
    assert r.st is False


def test_st_listing_date_missing_in_2024_is_missing_input():
    r = gcl(LOW_CASH, company={"listing_date": None})
    assert r.status(ST) == "missing_input"
    assert r.st is None
    assert r.needed is None
    assert any("listing_date" in m for m in r.rule(ST).missing_inputs)


def test_st_board_missing_in_2024_is_missing_input():
    r = gcl(LOW_CASH, company={"board": None})
    assert r.status(ST) == "missing_input"
    assert r.st is None and r.needed is None


def test_st_listing_date_missing_in_2023_is_still_not_applicable():
    # the year alone puts it out of scope; a missing listing date does not matter then
    r = gcl(merge(cash(5 * M, 5 * M, 5 * M, first=2021), npa(100 * M, 100 * M, 100 * M, first=2021)),
            company={"listing_date": None}, year=2023)
    assert r.status(ST) == "not_applicable"
    assert r.st is None


# ---------------------------------------------------------------------------
# ST: listing age (full fiscal years since listing)
# ---------------------------------------------------------------------------

# listed 2022-06-15: full fiscal years 2023 and 2024 only. 2022 carries huge numbers: had its
# profit counted the requirement would be far above 30m; had its cash counted the test would pass.
LATE_2022 = merge(npa(9_000 * M, 100 * M, 100 * M), cash(900 * M, 10 * M, 20 * M))


def test_listed_mid_2022_counts_2023_and_2024_only_pass():
    r = gcl(LATE_2022, company={"listing_date": "2022-06-15"})
    # average over the two full years (100m + 100m) / 2 = 100m; × 30% = 30,000,000.00
    # (with 2022: (9,000m + 200m) / 3 × 30% = 920,000,000 → min(920m, 50m) = 50m and 30m would fail)
    assert r.rule(ST).required == 30_000_000.00  # min(30m, 50m)
    assert r.rule(ST).actual == 30_000_000.00  # 10m + 20m; 2022's 900m ignored
    assert r.status(ST) == "pass"  # 30m >= 30m
    assert r.st is False
    assert r.needed == 20_000_000.00  # 30m − 10m (2023 only; 2022's 900m ignored)


def test_listed_mid_2022_ignores_2022_cash():
    r = gcl(merge(LATE_2022, cash(900 * M, 10 * M, 19_999_999.99)), company={"listing_date": "2022-06-15"})
    assert r.rule(ST).actual == 29_999_999.99  # 10m + 19,999,999.99; the 900m of 2022 does not count
    assert r.status(ST) == "fail"  # < 30,000,000 and < 50,000,000
    assert r.rule(ST).shortfall == 0.01  # 30,000,000.00 − 29,999,999.99
    assert r.st is True


def test_listed_mid_2022_needs_no_2022_figures():
    # 2022 is not a full year: its net profit is not needed at all
    r = gcl(merge(LATE_2022, {2022: {"net_profit_attributable": None}}), company={"listing_date": "2022-06-15"})
    assert r.status(ST) == "pass"


# 2022 profit 400m and no 2022 cash. Counting 2022: 30% × (400m + 100m + 100m) / 3 = 60m, floor 50m,
# cash 15m + 15m = 30m → triggered. Not counting it: 30% × (100m + 100m) / 2 = 30m → 30m passes.
EARLY_2022 = merge(npa(400 * M, 100 * M, 100 * M), cash(0.0, 15 * M, 15 * M))


def test_listed_on_2022_01_01_counts_2022_as_a_full_year():
    r = gcl(EARLY_2022, company={"listing_date": "2022-01-01"})
    assert r.rule(ST).required == 50_000_000.00  # min(30% × 600m / 3 = 60m, 50m)
    assert r.rule(ST).actual == 30_000_000.00  # 0 + 15m + 15m
    assert r.status(ST) == "fail"
    assert r.st is True
    assert r.needed == 35_000_000.00  # 50m − (0 + 15m)


def test_listed_on_2022_01_02_does_not_count_2022():
    r = gcl(EARLY_2022, company={"listing_date": "2022-01-02"})
    assert r.rule(ST).required == 30_000_000.00  # min(30% × 200m / 2 = 30m, 50m)
    assert r.status(ST) == "pass"  # 30m >= 30m
    assert r.st is False
    assert r.needed == 15_000_000.00  # 30m − 15m (2023)


def test_listed_during_2024_has_no_full_year_and_is_out_of_scope():
    r = gcl(LOW_CASH, company={"listing_date": "2024-03-01"})
    assert r.status(ST) == "not_applicable"
    assert r.st is None
    assert r.needed == 0.0


def test_listed_on_2024_01_01_has_one_full_year():
    # 2024 is a full fiscal year: window = 2024 alone. 30% × 100m / 1 = 30m; cash 5m → triggered
    r = gcl(LOW_CASH, company={"listing_date": "2024-01-01"})
    assert r.rule(ST).required == 30_000_000.00
    assert r.rule(ST).actual == 5_000_000.00
    assert r.status(ST) == "fail"
    assert r.st is True
    assert r.needed == 30_000_000.00  # 30m − 0 (no earlier full year)


# ---------------------------------------------------------------------------
# ST: preconditions (latest year profitable, both retained earnings positive)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("change, reason", [
    ({"net_profit_attributable": 0.0}, "na_not_profitable"),  # not > 0
    ({"net_profit_attributable": -1.0}, "na_not_profitable"),
    ({"net_profit_attributable": 0.004}, "na_not_profitable"),  # rounds to 0.00: not > 0
    ({"retained_earnings_consolidated": 0.0}, "na_retained_cons_not_positive"),
    ({"retained_earnings_parent": 0.0}, "na_retained_parent_not_positive"),
    ({"retained_earnings_parent": -5 * M}, "na_retained_parent_not_positive"),
    # both fail: the first precondition known to be false names the one reason
    ({"retained_earnings_consolidated": -0.01, "retained_earnings_parent": -0.01}, "na_retained_cons_not_positive"),
])
def test_st_preconditions_not_met(change, reason):
    r = gcl(merge(LOW_CASH, {2024: change}))
    assert r.status(ST) == "not_applicable"
    assert r.rule(ST).reason == reason
    assert r.st is False  # in scope, not at risk
    assert r.needed == 0.0


def test_st_preconditions_met_at_one_fen():
    # npa 2024 0.01 > 0: in scope. 30% × (100m + 100m + 0.01) / 3 = 20,000,000.001 → 20,000,000.00;
    # cash 15m < 20m and < 50m → triggered
    r = gcl(merge(LOW_CASH, {2024: {"net_profit_attributable": 0.01, "retained_earnings_parent": 0.01}}))
    assert r.rule(ST).required == 20_000_000.00
    assert r.status(ST) == "fail"
    assert r.st is True
    assert r.needed == 10_000_000.00  # 20m − 10m


def test_st_precondition_input_missing():
    r = gcl(merge(LOW_CASH, {2024: {"retained_earnings_parent": None}}))
    assert r.status(ST) == "missing_input"
    assert r.st is None and r.needed is None


# ---------------------------------------------------------------------------
# ST: the two tests, exact boundaries
# ---------------------------------------------------------------------------

# Net profit 100,000,000.00 + 100,000,000.00 + 100,000,000.15 = 300,000,000.15;
# average 100,000,000.05; × 30% = 30,000,000.015 → half-up → 30,000,000.02 (< floor 50m)
FEN_PROFIT = npa(100 * M, 100 * M, 100_000_000.15)


def test_st_cash_exactly_30pct_of_average_passes():
    r = gcl(merge(FEN_PROFIT, cash(10 * M, 10 * M, 10_000_000.02)))
    assert r.rule(ST).required == 30_000_000.02  # min(30,000,000.02, 50m)
    assert r.rule(ST).actual == 30_000_000.02  # 10m + 10m + 10,000,000.02
    assert r.status(ST) == "pass"
    assert r.rule(ST).shortfall == 0.0
    assert r.st is False


def test_st_one_fen_below_30pct_and_below_floor_triggers():
    r = gcl(merge(FEN_PROFIT, cash(10 * M, 10 * M, 10_000_000.01)))
    assert r.rule(ST).actual == 30_000_000.01  # < 30,000,000.02 and < 50,000,000
    assert r.status(ST) == "fail"
    assert r.rule(ST).shortfall == 0.01  # 30,000,000.02 − 30,000,000.01
    assert r.st is True


# Net profit 30,000,000.00 + 30,000,000.00 + 40,000,000.05 = 100,000,000.05; × 30% = 30,000,000.015;
# / 3 = 10,000,000.005 → half-up → 10,000,000.01 (a half fen after the division: DOMAIN §4, 15 digits)
THIRD_PROFIT = npa(30 * M, 30 * M, 40_000_000.05)


def test_st_half_fen_after_averaging():
    at = gcl(merge(THIRD_PROFIT, cash(5 * M, 5 * M, 0.01)))
    assert at.rule(ST).required == 10_000_000.01  # min(10,000,000.01, 50m)
    assert at.rule(ST).actual == 10_000_000.01  # 5m + 5m + 0.01
    assert at.status(ST) == "pass"
    below = gcl(merge(THIRD_PROFIT, cash(5 * M, 5 * M, 0.0)))
    assert below.status(ST) == "fail"  # 10,000,000.00 < 10,000,000.01 and < 50m
    assert below.rule(ST).shortfall == 0.01
    assert below.needed == 0.01  # 10,000,000.01 − 10,000,000.00


# npa 300m a year: 30% × 300m = 90,000,000 > main floor 50,000,000
BIG_PROFIT = npa(300 * M, 300 * M, 300 * M)


def test_st_main_board_floor_exactly_50m_passes():
    r = gcl(merge(BIG_PROFIT, cash(20 * M, 20 * M, 10 * M)))
    assert r.rule(ST).actual == 50_000_000.00  # 20m + 20m + 10m
    assert r.rule(ST).required == 50_000_000.00  # min(90m, 50m)
    assert r.status(ST) == "pass"  # 50m < 90m but >= the floor
    assert r.st is False


def test_st_main_board_one_fen_below_floor_triggers():
    r = gcl(merge(BIG_PROFIT, cash(20 * M, 20 * M, 9_999_999.99)))
    assert r.rule(ST).actual == 49_999_999.99
    assert r.status(ST) == "fail"  # < 90m and < 50m
    assert r.rule(ST).shortfall == 0.01  # 50,000,000.00 − 49,999,999.99
    assert r.st is True


def test_st_chinext_floor_exactly_30m_passes():
    r = houpu(merge(BIG_PROFIT, cash(10 * M, 10 * M, 10 * M)))
    assert r.rule(ST).actual == 30_000_000.00  # 10m × 3
    assert r.rule(ST).required == 30_000_000.00  # min(90m, ChiNext floor 30m)
    assert r.status(ST) == "pass"
    assert r.st is False


def test_st_chinext_one_fen_below_floor_triggers():
    r = houpu(merge(BIG_PROFIT, cash(10 * M, 10 * M, 9_999_999.99)))
    assert r.rule(ST).actual == 29_999_999.99
    assert r.status(ST) == "fail"
    assert r.rule(ST).shortfall == 0.01  # 30,000,000.00 − 29,999,999.99
    assert r.st is True


def test_st_same_cash_fails_on_the_main_board():
    # 30,000,000 on szse_main: < 90m and < 50m
    r = gcl(merge(BIG_PROFIT, cash(10 * M, 10 * M, 10 * M)))
    assert r.status(ST) == "fail"
    assert r.rule(ST).shortfall == 20_000_000.00  # 50m − 30m
    assert r.st is True


def test_st_negative_average_profit():
    # 30% × (−100m − 100m + 100m) / 3 < 0 → requirement 0: any cash (even 0) meets the ratio test
    r = gcl(merge(npa(-100 * M, -100 * M, 100 * M), cash(0.0, 0.0, 0.0)))
    assert r.rule(ST).required == 0.0  # min(max(0, −10m), 50m)
    assert r.status(ST) == "pass"
    assert r.st is False


def test_st_ordinary_buyback_does_not_count():
    # no cash dividend; 60m of bidding buybacks in 2024 that were not cancelled: ST cash = 0
    r = gcl(merge(cash(0.0, 0.0, 0.0), {2024: {"buyback_amount": 60 * M}}))
    assert r.rule(ST).actual == 0.0
    assert r.status(ST) == "fail"  # 0 < 30m and < 50m
    assert r.st is True


def test_st_cancelled_buyback_counts():
    # 30m bought back and cancelled in 2024: ST cash = 0 + 0 + 30m = 30m >= 30% × 100m
    r = gcl(merge(cash(0.0, 0.0, 0.0), {2024: {"buyback_amount": 30 * M, "buyback_cancelled": 30 * M}}))
    assert r.rule(ST).actual == 30_000_000.00
    assert r.status(ST) == "pass"
    assert r.st is False
    # the 30m cancelled this year is already counted: max(0, 30m − (0 + 0 + 30m)) = 0
    assert r.needed == 0.0


def test_st_history_missing_profit_is_missing_input():
    r = gcl(merge(LOW_CASH, {2022: {"net_profit_attributable": None}}))
    assert r.status(ST) == "missing_input"
    assert r.st is None and r.needed is None


# ---------------------------------------------------------------------------
# ST: ChiNext R&D exemption
# ---------------------------------------------------------------------------

# Houpu with cash 5m a year: 15m < min(30% × 100m = 30m, floor 30m) → triggered unless exempt.
# Revenue 600,000,000.00 + 600,000,000.00 + 600,000,000.10 = 1,800,000,000.10;
# × 15% = 270,000,000.015 → half-up → 270,000,000.02 (< 300,000,000, so the ratio is what counts)
RD_REVENUE = per_year("revenue", 600 * M, 600 * M, 600_000_000.10)


def test_chinext_without_exemption_triggers():
    r = houpu(LOW_CASH)  # R&D 90m < 450m and < 300m
    assert r.status(ST) == "fail"
    assert r.st is True
    assert r.needed == 20_000_000.00  # min(30m, 30m) − (5m + 5m)


def test_rd_exactly_15pct_of_revenue_is_exempt():
    r = houpu(merge(LOW_CASH, RD_REVENUE, per_year("rd_expense", 90 * M, 90 * M, 90_000_000.02)))
    # R&D 90m + 90m + 90,000,000.02 = 270,000,000.02 >= 270,000,000.02
    assert r.status(ST) == "not_applicable"
    assert r.st is False
    assert r.needed == 0.0


def test_rd_one_fen_below_15pct_is_not_exempt():
    r = houpu(merge(LOW_CASH, RD_REVENUE, per_year("rd_expense", 90 * M, 90 * M, 90_000_000.01)))
    # 270,000,000.01 < 270,000,000.02 and < 300,000,000
    assert r.status(ST) == "fail"
    assert r.st is True


def test_rd_exactly_300m_is_exempt():
    # revenue 1,000m a year: 15% × 3,000m = 450m; R&D 100m × 3 = 300,000,000.00 >= 300,000,000
    r = houpu(merge(LOW_CASH, per_year("rd_expense", 100 * M, 100 * M, 100 * M)))
    assert r.status(ST) == "not_applicable"
    assert r.st is False
    assert r.needed == 0.0


def test_rd_one_fen_below_300m_is_not_exempt():
    # 299,999,999.99 < 300m and < 450m
    r = houpu(merge(LOW_CASH, per_year("rd_expense", 100 * M, 100 * M, 99_999_999.99)))
    assert r.status(ST) == "fail"
    assert r.st is True


def test_rd_exemption_does_not_apply_on_a_main_board():
    # GCL with R&D 500m a year on revenue 1,000m (50% and 1,500m): no exemption on szse_main
    r = gcl(merge(LOW_CASH, per_year("revenue", 1_000 * M, 1_000 * M, 1_000 * M),
                  per_year("rd_expense", 500 * M, 500 * M, 500 * M)))
    assert r.status(ST) == "fail"
    assert r.st is True


def test_rd_missing_on_chinext_is_missing_input():
    r = houpu(merge(LOW_CASH, {2023: {"rd_expense": None}}))
    assert r.status(ST) == "missing_input"
    assert r.st is None


# ---------------------------------------------------------------------------
# cash_needed_to_avoid_st
# ---------------------------------------------------------------------------

# ratio-bound: min(30,000,000.02, 50m) = 30,000,000.02 (FEN_PROFIT above).
# Prior ST cash: 2022 cash 5,000,000.00; 2023 cash 5,000,000.00 + cancelled buyback 2,000,000.50
# (+ an ordinary buyback of 1,000,000 that does not count) = 12,000,000.50.
# Needed: 30,000,000.02 − 12,000,000.50 = 17,999,999.52.
RATIO_BOUND = merge(FEN_PROFIT, cash(5 * M, 5 * M, 0.0),
                    {2023: {"buyback_cancelled": 2_000_000.50, "buyback_amount": 3_000_000.50}})


def test_cash_needed_ratio_bound():
    r = gcl(RATIO_BOUND)
    assert r.needed == 17_999_999.52
    assert r.st is True  # 12,000,000.50 < 30,000,000.02


def test_paying_cash_needed_avoids_the_warning():
    r = gcl(merge(RATIO_BOUND, {2024: {"cash_dividend": 17_999_999.52}}))
    assert r.rule(ST).actual == 30_000_000.02  # 12,000,000.50 + 17,999,999.52
    assert r.st is False
    assert r.needed == 17_999_999.52  # 2022–2023 cash and this year's cancelled buybacks (none) only


def test_paying_one_fen_less_than_cash_needed_triggers():
    r = gcl(merge(RATIO_BOUND, {2024: {"cash_dividend": 17_999_999.51}}))
    assert r.rule(ST).actual == 30_000_000.01
    assert r.st is True
    assert r.needed == 17_999_999.52


# floor-bound: npa 300m → 90m; min(90m, 50m) = 50m; prior 10m + 10m = 20m → needed 30,000,000.00
FLOOR_BOUND = merge(BIG_PROFIT, cash(10 * M, 10 * M, 0.0))


def test_cash_needed_floor_bound():
    r = gcl(FLOOR_BOUND)
    assert r.needed == 30_000_000.00
    assert r.st is True


def test_cash_needed_floor_bound_paid_exactly():
    r = gcl(merge(FLOOR_BOUND, {2024: {"cash_dividend": 30 * M}}))
    assert r.st is False  # 20m + 30m = 50m
    r = gcl(merge(FLOOR_BOUND, {2024: {"cash_dividend": 29_999_999.99}}))
    assert r.st is True  # 49,999,999.99


# DOMAIN §5: "cash needed" = the threshold less the window's cash already counted, i.e. the earlier
# years AND this year's cancelled buybacks. FLOOR_BOUND + 20,000,000 bought back and cancelled in 2024:
# 50,000,000 − (10m + 10m + 20m) = 10,000,000.00 (not the full 30m).
CANCELLED_2024 = merge(FLOOR_BOUND, {2024: {"buyback_amount": 20 * M, "buyback_cancelled": 20 * M}})


def test_cash_needed_deducts_this_years_cancelled_buyback():
    r = gcl(CANCELLED_2024)
    assert r.rule(ST).actual == 40_000_000.00  # 10m + 10m + (0 cash + 20m cancelled)
    assert r.needed == 10_000_000.00
    assert r.st is True


@pytest.mark.parametrize("cash_2024, st", [(10 * M, False), (9_999_999.99, True)])
def test_paying_cash_needed_after_a_cancelled_buyback(cash_2024, st):
    r = gcl(merge(CANCELLED_2024, {2024: {"cash_dividend": cash_2024}}))
    # 10m + 10m + 20m cancelled + cash: 50,000,000.00 (pass) / 49,999,999.99 (triggered)
    assert r.rule(ST).actual == round(40 * M + cash_2024, 2)
    assert r.st is st
    assert r.needed == 10_000_000.00  # the cash dividend does not change what was needed


def test_cash_needed_is_zero_when_this_years_cancellation_covers_it():
    # 40m cancelled in 2024: 10m + 10m + 40m = 60m >= 50m → max(0, 50m − 60m) = 0
    r = gcl(merge(FLOOR_BOUND, {2024: {"buyback_amount": 40 * M, "buyback_cancelled": 40 * M}}))
    assert r.needed == 0.0
    assert r.st is False


def test_cash_needed_is_zero_when_2022_2023_already_enough():
    # prior 30m + 30m = 60m >= min(90m, 50m): nothing needed, even with no cash in 2024
    r = gcl(merge(BIG_PROFIT, cash(30 * M, 30 * M, 0.0)))
    assert r.needed == 0.0  # max(0, 50m − 60m)
    assert r.st is False


def test_cash_needed_chinext():
    # min(90m, 30m) = 30m; prior 10m + 5m = 15m → 15,000,000.00
    r = houpu(merge(BIG_PROFIT, cash(10 * M, 5 * M, 0.0)))
    assert r.needed == 15_000_000.00
    assert r.st is True
    assert houpu(merge(BIG_PROFIT, cash(10 * M, 5 * M, 15 * M))).st is False  # 30m
    assert houpu(merge(BIG_PROFIT, cash(10 * M, 5 * M, 14_999_999.99))).st is True  # 29,999,999.99


# ---------------------------------------------------------------------------
# disclosure duties (low payout, no cash)
# ---------------------------------------------------------------------------

def test_low_payout_duties_apply_below_30pct():
    # cash 29,999,999.99 + buyback 0 < 30% × 100,000,000 = 30,000,000.00
    r = gcl({2024: {"cash_dividend": 29_999_999.99}})
    assert r.status(LOW_EXPLAINED) == "pass"  # attested
    assert r.status(LOW_VOTING) == "pass"  # online_voting_offered: yes


def test_low_payout_explanation_not_attested_fails():
    r = gcl({2024: {"cash_dividend": 29_999_999.99}}, attest={LOW_EXPLAINED: False})
    assert r.status(LOW_EXPLAINED) == "fail"
    assert r.rep.overall_status == "fail"


def test_low_payout_explanation_attestation_missing():
    r = gcl({2024: {"cash_dividend": 29_999_999.99}}, attest={LOW_EXPLAINED: None})
    assert r.status(LOW_EXPLAINED) == "missing_input"


def test_low_payout_without_online_voting_fails():
    r = gcl({2024: {"cash_dividend": 29_999_999.99, "online_voting_offered": False}})
    assert r.status(LOW_VOTING) == "fail"
    r = gcl({2024: {"cash_dividend": 29_999_999.99, "online_voting_offered": None}})
    assert r.status(LOW_VOTING) == "missing_input"


def test_payout_exactly_30pct_is_not_low():
    r = gcl({2024: {"cash_dividend": 30 * M, "online_voting_offered": False}}, attest={LOW_EXPLAINED: False})
    assert r.status(LOW_EXPLAINED) == "not_applicable"  # 30,000,000 is not < 30,000,000
    assert r.status(LOW_VOTING) == "not_applicable"


def test_low_payout_boundary_at_the_fen():
    # 30% × 100,000,000.05 = 30,000,000.015 → 30,000,000.02
    at = gcl({2024: {"net_profit_attributable": 100_000_000.05, "cash_dividend": 30_000_000.02}})
    assert at.status(LOW_EXPLAINED) == "not_applicable"
    below = gcl({2024: {"net_profit_attributable": 100_000_000.05, "cash_dividend": 30_000_000.01}})
    assert below.status(LOW_EXPLAINED) == "pass"  # applies (attested)
    assert below.status(LOW_VOTING) == "pass"


def test_buyback_counts_towards_the_30pct():
    # cash 20m + bidding buyback 10m = 30m: not a low payout (DOMAIN §5: buybacks count as cash)
    r = gcl({2024: {"cash_dividend": 20 * M, "buyback_amount": 10 * M}}, attest={LOW_EXPLAINED: False})
    assert r.status(LOW_EXPLAINED) == "not_applicable"


def test_low_payout_applies_in_2023():
    # the duty applies since FY2013 (SSE cash dividend guideline 2013 art. 10), not only from FY2024:
    # FY2023 cash 1,000,000 < 30% × 100,000,000 = 30,000,000, profitable, retained earnings positive;
    # szse_main is a main board, where the duty binds → fail
    r = gcl({2023: {"cash_dividend": 1 * M, "online_voting_offered": False}}, attest={LOW_EXPLAINED: False},
            year=2023)
    assert r.status(LOW_EXPLAINED) == "fail"
    assert r.status(LOW_VOTING) == "fail"
    assert r.status(ST) == "not_applicable"  # the exchange risk warning still starts with FY2024
    assert r.rep.overall_status == "fail"


@pytest.mark.parametrize("year, expected", [(2013, "fail"), (2012, "not_applicable")])
def test_low_payout_first_fiscal_year_is_2013(year, expected):
    # cash 1,000,000 < 30% × 100,000,000 in the year; FY2013 is the first year the duty applies
    years = {year - 2: {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M},
             year - 1: {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M},
             year: {**GCL_BASE[2024], "cash_dividend": 1 * M, "online_voting_offered": False}}
    att = {**all_attestations(GCL), LOW_EXPLAINED: False}
    rep = evaluate(case(GCL, year, years, att, MAIN_CO), baseline=True)
    assert rep.rule(LOW_EXPLAINED).status == expected
    assert rep.rule(LOW_VOTING).status == expected
    if expected == "not_applicable":
        assert rep.rule(LOW_EXPLAINED).reason == "na_before_first_year"


@pytest.mark.parametrize("change", [
    {"net_profit_attributable": 0.0},  # not profitable
    {"net_profit_attributable": -10 * M},
    {"retained_earnings_consolidated": 0.0},
    {"retained_earnings_parent": -1.0},
])
def test_low_payout_needs_profit_and_positive_retained_earnings(change):
    r = gcl({2024: {"cash_dividend": 1 * M, "online_voting_offered": False, **change}}, attest={LOW_EXPLAINED: False})
    assert r.status(LOW_EXPLAINED) == "not_applicable"
    assert r.status(LOW_VOTING) == "not_applicable"


def test_houpu_low_payout():
    # ChiNext too: 29,999,999.99 < 30% × 100m; but the duty binds only SSE/SZSE main boards:
    # on ChiNext it is a recommendation, so a breach warns (DOMAIN §5)
    r = houpu({2024: {"cash_dividend": 29_999_999.99}}, attest={LOW_EXPLAINED: False})
    assert r.status(LOW_EXPLAINED) == "warn"
    assert r.status(LOW_VOTING) == "pass"
    assert r.rep.overall_status == "warn"
    assert (r.rep.fail_count, r.rep.warn_count) == (0, 1)
    r = houpu({2024: {"cash_dividend": 29_999_999.99, "online_voting_offered": False}})
    assert r.status(LOW_VOTING) == "warn"
    assert r.status(LOW_EXPLAINED) == "pass"


@pytest.mark.parametrize("board, expected", [
    ("sse_main", "fail"), ("szse_main", "fail"),  # binding
    ("chinext", "warn"), ("star", "warn"), ("bse", "warn"),  # a recommendation
])
def test_low_payout_binds_on_main_boards_only(board, expected):
    r = gcl({2024: {"cash_dividend": 29_999_999.99, "online_voting_offered": False}},
            attest={LOW_EXPLAINED: False}, company={"board": board})
    assert r.status(LOW_EXPLAINED) == expected
    assert r.status(LOW_VOTING) == expected


def test_low_payout_board_unknown():
    # board missing: a breach cannot be graded (duty or recommendation) → missing_input; met → pass
    r = houpu({2024: {"cash_dividend": 29_999_999.99}}, attest={LOW_EXPLAINED: False}, company={"board": None})
    assert r.status(LOW_EXPLAINED) == "missing_input"
    assert r.status(LOW_VOTING) == "pass"  # online voting offered


def test_no_cash_explanation_applies_when_profitable_without_cash():
    r = gcl({2024: {"cash_dividend": 0.0}})
    assert r.status(NO_CASH) == "pass"
    assert r.status(LOW_EXPLAINED) == "pass"  # 0 < 30m: also a low payout
    r = gcl({2024: {"cash_dividend": 0.0}}, attest={NO_CASH: False})
    assert r.status(NO_CASH) == "fail"


def test_no_cash_explanation_not_applicable():
    r = gcl({2024: {"cash_dividend": 0.01}}, attest={NO_CASH: False})
    assert r.status(NO_CASH) == "not_applicable"  # one fen paid
    r = gcl({2024: {"cash_dividend": 0.0, "net_profit_attributable": 0.0}}, attest={NO_CASH: False})
    assert r.status(NO_CASH) == "not_applicable"  # not profitable


# ---------------------------------------------------------------------------
# controlling-shareholder sale restriction (severity warn)
# ---------------------------------------------------------------------------

def test_sale_restricted_with_no_cash():
    r = gcl(cash(0.0, 0.0, 0.0))
    assert r.status(SALE) == "warn"
    assert r.rule(SALE).actual == 0.0
    assert r.rule(SALE).required == 30_000_000.00  # 30% × 300m / 3


def test_sale_not_restricted_by_dividends_when_every_year_is_a_loss():
    # loss years leave both the sum and the average (DOMAIN §5): with three loss years no year is
    # counted, cash 0 and requirement 0, and the dividend test does not restrict (no price trigger)
    r = gcl(merge(npa(-100 * M, -100 * M, -100 * M), cash(0.0, 0.0, 0.0)))
    assert r.rule(SALE).actual == 0.0
    assert r.rule(SALE).required == 0.0
    assert r.status(SALE) == "pass"
    r = gcl(merge(npa(-100 * M, -100 * M, -100 * M), cash(0.0, 0.0, 0.01)))
    assert r.rule(SALE).actual == 0.0  # 2024 is a loss year: its cash is left out too
    assert r.status(SALE) == "pass"


# 2022 a loss year: left out of both. Counted 2023–2024: 30% × (100m + 100m) / 2 = 30,000,000.00,
# cash 2023 + 2024 only (2022's 50m is left out with its year). Had 2022 been counted (the old
# reading): 30% × (−100m + 200m) / 3 = 10,000,000 against cash 50m + 15m + … → both cases allowed.
LOSS_2022 = npa(-100 * M, 100 * M, 100 * M)


@pytest.mark.parametrize("cash_2024, status, shortfall", [
    (15 * M, "pass", 0.0),           # 15m + 15m = 30,000,000.00 >= 30,000,000.00
    (14_999_999.99, "warn", 0.01),   # 29,999,999.99: one fen short
])
def test_sale_drops_a_loss_year(cash_2024, status, shortfall):
    r = gcl(merge(LOSS_2022, cash(50 * M, 15 * M, cash_2024)))
    assert r.rule(SALE).required == 30_000_000.00
    assert r.rule(SALE).actual == round(15 * M + cash_2024, 2)
    assert r.status(SALE) == status
    assert r.rule(SALE).shortfall == shortfall


@pytest.mark.parametrize("profit_2022, required, status", [
    (0.0, 20_000_000.00, "pass"),     # not a loss: counted. 30% × 200m / 3 = 20m; cash 0 + 10m + 10m = 20m
    (-0.004, 20_000_000.00, "pass"),  # rounds to 0.00: not a loss
    (-0.01, 30_000_000.00, "warn"),   # a loss: 30% × 200m / 2 = 30m; cash 10m + 10m = 20m < 30m
])
def test_sale_loss_year_boundary(profit_2022, required, status):
    r = gcl(merge(npa(profit_2022, 100 * M, 100 * M), cash(0.0, 10 * M, 10 * M)))
    assert r.rule(SALE).required == required
    assert r.rule(SALE).actual == 20_000_000.00
    assert r.status(SALE) == status

def test_sale_restricted_below_30pct_of_average():
    r = gcl(cash(10 * M, 10 * M, 9_999_999.99))
    assert r.rule(SALE).actual == 29_999_999.99
    assert r.status(SALE) == "warn"
    assert r.rule(SALE).shortfall == 0.01  # 30,000,000.00 − 29,999,999.99


def test_sale_allowed_at_exactly_30pct():
    r = gcl(cash(10 * M, 10 * M, 10 * M))
    assert r.status(SALE) == "pass"  # 30m >= 30m


def test_sale_boundary_at_the_fen():
    # 30% × 300,000,000.15 / 3 = 30,000,000.015 → 30,000,000.02
    r = gcl(merge(FEN_PROFIT, cash(10 * M, 10 * M, 10_000_000.02)))
    assert r.rule(SALE).required == 30_000_000.02
    assert r.status(SALE) == "pass"
    r = gcl(merge(FEN_PROFIT, cash(10 * M, 10 * M, 10_000_000.01)))
    assert r.status(SALE) == "warn"


def test_sale_counts_bidding_buybacks():
    # no dividend; 30m bidding buyback in 2024 counts as cash (DOMAIN §5)
    r = gcl(merge(cash(0.0, 0.0, 0.0), {2024: {"buyback_amount": 30 * M}}))
    assert r.rule(SALE).actual == 30_000_000.00
    assert r.status(SALE) == "pass"


@pytest.mark.parametrize("trigger, words", [
    ("price_below_net_assets_20d", "破净"),
    ("price_below_ipo_20d", "破发"),
])
def test_sale_restricted_by_a_price_trigger_alone(trigger, words):
    # dividends fine (90m >= 30m), but the price was below net assets / the IPO price
    r = gcl({2024: {trigger: True}})
    assert r.status(SALE) == "warn"
    expl = r.rule(SALE).explanation_zh
    assert words in expl and "分红不达标" not in expl  # names the trigger that applies, only it
    assert r.rep.overall_status == "warn"
    assert r.rep.fail_count == 0


@pytest.mark.parametrize("missing", ["price_below_net_assets_20d", "price_below_ipo_20d"])
def test_sale_price_input_missing(missing):
    # no trigger known to hold and one unknown → missing_input, naming the field
    r = gcl({2024: {missing: None}})
    assert r.status(SALE) == "missing_input"
    assert any(missing in m for m in r.rule(SALE).missing_inputs)
    # a trigger that is known to hold decides it: no cash in three years → restricted
    r = gcl(merge(cash(0.0, 0.0, 0.0), {2024: {missing: None}}))
    assert r.status(SALE) == "warn"
    assert "分红不达标" in r.rule(SALE).explanation_zh


def test_sale_window_profit_missing():
    r = gcl({2022: {"net_profit_attributable": None}})
    assert r.status(SALE) == "missing_input"
    assert any("net_profit_attributable" in m and "2022" in m for m in r.rule(SALE).missing_inputs)
    r = gcl({2022: {"net_profit_attributable": None}, 2024: {"price_below_ipo_20d": True}})
    assert r.status(SALE) == "warn"  # 破发 known: restricted whatever the dividends


def test_sale_restriction_alone_is_a_warning_not_a_failure():
    # npa 300m → sale needs 90m; cash 20m × 3 = 60m → warn. ST: 60m >= floor 50m → pass.
    # low payout 2024: 20m < 90m → duties apply, both met. Plan: min 10% × 1m, 30% × 1m → met.
    r = gcl(merge(BIG_PROFIT, cash(20 * M, 20 * M, 20 * M)))
    assert_plan_complies(r.rep)
    assert r.status(SALE) == "warn"
    assert r.status(ST) == "pass"
    assert r.status(LOW_EXPLAINED) == "pass" and r.status(LOW_VOTING) == "pass"
    assert r.rep.overall_status == "warn"
    assert (r.rep.fail_count, r.rep.warn_count) == (0, 1)
    assert r.rep.exit_code == 0


# ---------------------------------------------------------------------------
# paying while a plan condition is not met (warn); parent retained earnings (Company Law art. 210)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cash_2024", [30 * M, 200 * M, 0.01])
def test_cash_paid_with_a_qualified_opinion_warns(cash_2024):
    # GCL 三、(二)、1、(3) not met (qualified opinion) while a cash dividend is paid
    # a fen of cash beside 100m of profit looks like 万元 (reg_amounts_plausible fails): confirmed as real here
    r = gcl({2024: {"audit_opinion": "qualified", "cash_dividend": cash_2024}},
            company={"amounts_confirmed": True} if cash_2024 < 1 else None)
    assert r.status("cond_audit_opinion") == "not_met"
    assert r.status(CASH_UNMET) == "warn"
    assert "三、(二)、1、(3)" in r.rule(CASH_UNMET).explanation_zh  # names the condition
    assert r.rep.overall_status == "warn"
    assert r.rep.fail_count == 0


def test_cash_paid_with_two_conditions_unmet_names_both():
    r = gcl({2024: {"audit_opinion": "qualified", "going_concern_unaffected": False}})
    expl = r.rule(CASH_UNMET).explanation_zh
    assert r.status(CASH_UNMET) == "warn"
    assert "三、(二)、1、(2)" in expl and "三、(二)、1、(3)" in expl
    assert r.rep.warn_count == 1  # one rule, not one per condition


@pytest.mark.parametrize("change", [
    {"cash_dividend": 0.0},
    {"cash_dividend": 0.004},  # rounds to 0.00: no cash dividend
])
def test_conditions_unmet_without_cash_is_not_applicable(change):
    r = gcl({2024: {"audit_opinion": "qualified", **change}})
    assert r.status(CASH_UNMET) == "not_applicable"
    assert r.rule(CASH_UNMET).reason == "na_no_cash"


def test_cash_paid_with_conditions_undetermined_is_missing_input():
    r = gcl({2024: {"audit_opinion": None}})
    assert r.status(CASH_UNMET) == "missing_input"
    # a condition known not met decides it, whatever the missing one
    r = gcl({2024: {"audit_opinion": None, "going_concern_unaffected": False}})
    assert r.status(CASH_UNMET) == "warn"


@pytest.mark.parametrize("parent, cash_2024, stock, expected", [
    (400 * M, 30 * M, 0.0, "pass"),
    (0.005, 0.01, 0.0, "pass"),     # rounds half-up to 0.01 > 0
    (0.004, 0.01, 0.0, "fail"),     # rounds to 0.00: not positive
    (0.0, 30 * M, 0.0, "fail"),
    (-5.0, 0.0, 100.0, "fail"),     # a stock-only distribution is a distribution too
    (-1.0, 0.0, 0.0, "not_applicable"),  # no distribution
])
def test_parent_retained_positive_when_distributing(parent, cash_2024, stock, expected):
    r = gcl({2024: {"retained_earnings_parent": parent, "cash_dividend": cash_2024, "stock_dividend": stock}})
    assert r.status(PARENT_RETAINED) == expected
    if expected == "fail":
        assert r.rep.overall_status == "fail"
    if expected == "not_applicable":
        assert r.rule(PARENT_RETAINED).reason == "na_no_distribution"


def test_parent_retained_missing():
    r = gcl({2024: {"retained_earnings_parent": None}})
    assert r.status(PARENT_RETAINED) == "missing_input"
    assert any("retained_earnings_parent" in m for m in r.rule(PARENT_RETAINED).missing_inputs)


# ---------------------------------------------------------------------------
# overall
# ---------------------------------------------------------------------------

def test_st_warning_fails_the_report_even_when_the_plan_passes():
    # npa 200m a year → 30% = 60m; cash 10m × 3 = 30m < 60m and < 50m → ST triggered.
    # The plan (distributable 1m a year) needs 100,000 this year and 300,000 over three: met.
    r = gcl(merge(npa(200 * M, 200 * M, 200 * M), cash(10 * M, 10 * M, 10 * M)))
    assert_plan_complies(r.rep)
    assert r.status(ST) == "fail"
    assert r.st is True
    assert r.needed == 30_000_000.00  # min(60m, 50m) − 20m
    assert r.status(SALE) == "warn"  # 30m < 60m
    assert r.rep.overall_status == "fail"
    assert r.rep.fail_count == 1  # the ST rule only
    assert r.rep.exit_code == 1


def test_st_warning_fails_the_houpu_report():
    # ChiNext: npa 100m → 30m; cash 5m × 3 = 15m < 30m and < 30m
    r = houpu(LOW_CASH)
    assert_plan_complies(r.rep)
    assert r.rep.overall_status == "fail"
    assert r.rep.fail_count == 1
    assert r.rep.exit_code == 1


# ---------------------------------------------------------------------------
# batch: a market-wide screen
# ---------------------------------------------------------------------------

def _batch_rows():
    """Four companies × 2022–2024 (figures illustrative), with the hand-worked 2024 outcome."""
    retained = {"retained_earnings_consolidated": 500 * M, "retained_earnings_parent": 400 * M}
    rows, expected = [], {}

    def company(code, policy, board, listing, npas, cashes, extra=None):
        for y, p, c in zip((2022, 2023, 2024), npas, cashes):
            rows.append({"policy": policy, "stock_code": code, "fiscal_year": y, "board": board,
                         "listing_date": listing, "net_profit_attributable": p, "cash_dividend": c, **retained,
                         **(extra or {})})

    # A main: 30% × 100m = 30m; cash 30m → pass (exact); needed 30m − 20m = 10m
    company("000001", GCL, "szse_main", "2004-07-08", [100 * M] * 3, [10 * M] * 3)
    expected["000001"] = ("pass", False, 10_000_000.00)
    # B main: min(30% × 300m = 90m, 50m) = 50m; cash 29,999,999.99 → triggered; needed 50m − 20m = 30m
    company("000002", GCL, "szse_main", "2004-07-08", [300 * M] * 3, [10 * M, 10 * M, 9_999_999.99])
    expected["000002"] = ("fail", True, 30_000_000.00)
    # C ChiNext: min(90m, 30m) = 30m; cash 30m → pass; needed 30m − 20m = 10m (R&D 30m/yr: not exempt)
    company("300001", HOUPU, "chinext", "2015-06-11", [300 * M] * 3, [10 * M] * 3,
            {"revenue": 1_000 * M, "rd_expense": 10 * M})
    expected["300001"] = ("pass", False, 10_000_000.00)
    # D ChiNext listed 2022-06-15: years 2023–2024 only; 30% × (100m + 100m) / 2 = 30m, floor 30m;
    # cash 5m + 5m = 10m → triggered (2022's 1,000m cash ignored); needed 30m − 5m = 25m
    company("300002", HOUPU, "chinext", "2022-06-15", [5_000 * M, 100 * M, 100 * M], [1_000 * M, 5 * M, 5 * M],
            {"revenue": 1_000 * M, "rd_expense": 10 * M})
    expected["300002"] = ("fail", True, 25_000_000.00)
    # E Beijing exchange: out of scope
    company("830001", GCL, "bse", "2004-07-08", [100 * M] * 3, [0.0] * 3)
    expected["830001"] = ("not_applicable", None, 0.0)
    return pd.DataFrame(rows), expected


def _none(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def test_batch_st_statuses_match_hand_values():
    df, expected = _batch_rows()
    out = evaluate_batch(df).set_index(["stock_code", "fiscal_year"])
    for code, (status, _, _) in expected.items():
        assert out.loc[(code, 2024), f"{ST}.status"] == status, code
        for y in (2022, 2023):  # before the first tested year
            assert out.loc[(code, y), f"{ST}.status"] == "not_applicable", (code, y)


def test_batch_st_output_columns_match_hand_values_and_single_path():
    df, expected = _batch_rows()
    out = evaluate_batch(df)
    assert "st_risk_warning" in out.columns and "cash_needed_to_avoid_st" in out.columns
    out = out.set_index(["stock_code", "fiscal_year"])
    for code, (_, warning, needed) in expected.items():
        row = out.loc[(code, 2024)]
        got_w = _none(row["st_risk_warning"])
        assert (None if got_w is None else bool(got_w)) is warning, code
        assert _none(row["cash_needed_to_avoid_st"]) == needed, code
        # the single-case path agrees
        sub = df[df.stock_code == code]
        policy = sub.policy.iloc[0]
        keys = ("policy", "stock_code", "fiscal_year", "board", "listing_date")
        years = {int(r.fiscal_year): {k: float(v) for k, v in r.items() if k not in keys and _none(v) is not None}
                 for _, r in sub.iterrows()}
        co = {"stock_code": code, "board": sub.board.iloc[0], "listing_date": sub.listing_date.iloc[0]}
        c = case(policy, 2024, years, None, co)
        st, need = st_outputs(c, evaluate(c, baseline=True))
        assert (st, need) == (warning, needed), code
    for code in expected:  # 2022, 2023: out of scope
        for y in (2022, 2023):
            assert _none(out.loc[(code, y), "st_risk_warning"]) is None, (code, y)
