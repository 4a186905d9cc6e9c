"""Issue 10 (fidelity): the numbers and statuses a compliance officer would sign.

Each test is worked out by hand from the plan text and DOMAIN.md §4–§5 first; the
arithmetic stands beside the expected figure. Companies are illustrative (DOMAIN §6).
Every case starts from one compliant GCL (SZSE main board) or Houpu (ChiNext) company
evaluated for FY2024 and changes one thing.
"""

from __future__ import annotations

import copy
import json

import pandas as pd
import pytest
import yaml

from conftest import case
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.rules.model import REASONS, STATUS_ZH
from xlmodel.errors import PolicyError
from xlmodel.evaluator import evaluate
from xlmodel.plans.loading import load_policy_file
from xlmodel.report.terminal import render_table
from xlmodel.report.markdown import render_markdown

GCL, FAR_EAST, HOUPU = "gcl-energy-2022-2024", "far-east-2022-2024", "houpu-2024-2026"
M = 1_000_000.0
MAIN_CO = {"company_name": "示例主板公司", "stock_code": "002015", "board": "szse_main", "listing_date": "2004-07-08"}
CHINEXT_CO = {"company_name": "示例创业板公司", "stock_code": "300471", "board": "chinext", "listing_date": "2015-06-11"}

GCL_YEARS = {
    # the plan's own minimums read distributable profit (kept small); the regulatory tests read net profit
    2021: {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M},
    2022: {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M},
    2023: {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M},
    2024: {
        "net_profit_attributable": 100 * M, "distributable_profit": 1 * M,
        "retained_earnings_consolidated": 500 * M, "retained_earnings_parent": 400 * M,
        "total_assets": 2_000 * M, "planned_major_outlay": 0.0, "development_stage": "mature",
        "going_concern_unaffected": True, "audit_opinion": "standard_unqualified",
        "cash_dividend": 30 * M, "independent_directors_opinion": True, "online_voting_offered": True,
        "agm_date": "2025-05-20", "payout_date": "2025-06-20", "vote_for_ratio": 0.9,
        "price_below_net_assets_20d": False, "price_below_ipo_20d": False,
    },
}
GCL_ATTEST = {k: True for k in ("stock_dividend_basis", "board_records_kept", "minority_consulted", "no_cash_explanation",
                                "no_cash_annual_report", "no_cash_supervisory_statement", "fund_occupation_withheld",
                                "plan_change_two_thirds", "interim_period_end_retained_positive",
                                "reg_low_payout_explained", "reg_no_cash_explained")}


def gcl(change=None, year=2024, attest=None, company=MAIN_CO):
    years = copy.deepcopy(GCL_YEARS)
    for y, vals in (change or {}).items():
        years.setdefault(y, {}).update(vals)
    return evaluate(case(GCL, year, years, {**GCL_ATTEST, **(attest or {})}, company))


def test_the_base_company_is_compliant():
    rep = gcl()
    assert rep.overall_status == "pass", [(r.id, r.status) for r in rep.rules if r.status not in ("pass", "met", "not_applicable")]


# ---- 1. cash needed to avoid the exchange risk warning ------------------------------------

def st_case(cash_2024: float, cancelled_2024: float):
    # window FY2022–FY2024, net profit 500m a year: 30% of the average = 150,000,000.00; the main-board
    # floor 50,000,000 is lower, so the warning is avoided at 50m. Earlier years: 10m + 5m = 15m.
    years = {2022: {"net_profit_attributable": 500 * M, "cash_dividend": 10 * M},
             2023: {"net_profit_attributable": 500 * M, "cash_dividend": 5 * M},
             2024: {"net_profit_attributable": 500 * M, "cash_dividend": cash_2024, "buyback_cancelled": cancelled_2024}}
    return gcl(years)


def test_this_years_cancelled_buyback_reduces_the_cash_needed():
    # 50,000,000 − (10m + 5m earlier) − 20,000,000 cancelled this year = 15,000,000.00 still to declare
    rep = st_case(0.0, 20 * M)
    assert rep.cash_needed_to_avoid_st == 15_000_000.00
    assert rep.st_risk_warning is True  # 35m < 50m and < 150m
    # declaring exactly that amount avoids it; one fen less does not
    assert st_case(15 * M, 20 * M).st_risk_warning is False
    assert st_case(15 * M - 0.01, 20 * M).st_risk_warning is True
    assert st_case(15 * M - 0.01, 20 * M).rule("reg_st_low_dividend").shortfall == 0.01


def test_cash_needed_without_cancelled_buybacks_is_the_threshold_less_earlier_cash():
    assert st_case(0.0, 0.0).cash_needed_to_avoid_st == 35_000_000.00  # 50m − 15m


# ---- 2. controlling-shareholder sale restriction ------------------------------------------

SALE = "reg_controlling_sale"


def sale(np_2022, np_2023, np_2024, cash=(0.0, 0.0, 0.0), buyback=(0.0, 0.0, 0.0), pb=False, pi=False):
    years = {y: {"net_profit_attributable": n, "cash_dividend": c, "buyback_amount": b}
             for y, n, c, b in zip((2022, 2023, 2024), (np_2022, np_2023, np_2024), cash, buyback)}
    years[2024].update(price_below_net_assets_20d=pb, price_below_ipo_20d=pi)
    return gcl(years).rule(SALE)


def test_a_loss_year_leaves_the_sale_test():
    # 2022 loss −300m is left out: counted years 2023, 2024 with 100m each → average 100m, 30% = 30,000,000.00;
    # counted cash 2023 + 2024 = 15m + 15m = 30m → not restricted (averaging the loss in would give (−300+100+100)/3 < 0)
    r = sale(-300 * M, 100 * M, 100 * M, cash=(50 * M, 15 * M, 15 * M))
    assert r.required == 30_000_000.00
    assert r.actual == 30_000_000.00  # the loss year's 50m is left out of the sum too
    assert r.status == "pass"
    # one fen short: restricted, with the dividend trigger named
    r = sale(-300 * M, 100 * M, 100 * M, cash=(50 * M, 15 * M, 15 * M - 0.01))
    assert r.status == "warn" and r.shortfall == 0.01
    assert "分红不达标" in r.explanation_zh and "破净" not in r.explanation_zh


def test_an_all_loss_company_is_not_restricted_by_the_dividend_test():
    r = sale(-10 * M, -20 * M, -5 * M)
    assert r.status == "pass"
    assert r.required == 0.0 and r.actual == 0.0


def test_bidding_buybacks_count_as_cash_for_the_sale_test():
    # 3 × 100m → 30% of the average = 30,000,000.00; cash 0 but buybacks 10m a year = 30m → not restricted
    assert sale(100 * M, 100 * M, 100 * M, buyback=(10 * M, 10 * M, 10 * M)).status == "pass"


def test_no_cash_at_all_restricts():
    r = sale(100 * M, 100 * M, 100 * M)
    assert r.status == "warn" and r.shortfall == 30_000_000.00


@pytest.mark.parametrize("pb, pi, word", [(True, False, "破净"), (False, True, "破发")])
def test_price_triggers_restrict_and_are_named(pb, pi, word):
    r = sale(100 * M, 100 * M, 100 * M, cash=(10 * M, 10 * M, 10 * M), pb=pb, pi=pi)
    assert r.status == "warn"
    assert word in r.explanation_zh and "分红不达标" not in r.explanation_zh


def test_missing_price_facts_are_missing_input_unless_a_trigger_already_holds():
    years = {2024: {"price_below_net_assets_20d": None, "price_below_ipo_20d": None}}
    r = gcl(years).rule(SALE)
    assert r.status == "missing_input"
    assert any("price_below_net_assets_20d" in m for m in r.missing_inputs)
    # the dividend test already restricts: the missing price facts cannot change that
    years[2024]["cash_dividend"] = 0.0
    years.update({2022: {"cash_dividend": 0.0}, 2023: {"cash_dividend": 0.0}})
    assert gcl(years).rule(SALE).status == "warn"


def test_the_sale_restriction_is_a_warning_not_a_company_failure():
    rep = gcl({2024: {"price_below_ipo_20d": True}})
    assert rep.rule(SALE).status == "warn"
    assert rep.overall_status == "warn" and rep.exit_code == 0


# ---- 3. low-payout disclosure duty since 2013, by board ------------------------------------

LOW = "reg_low_payout_explained"


def test_a_fy2023_low_payout_needs_the_explanation():
    # FY2023 (before the ST rule's 2024 start): cash 29,999,999.99 < 30% × 100m = 30,000,000.00 → low payout
    years = copy.deepcopy(GCL_YEARS)
    years[2023].update({k: v for k, v in GCL_YEARS[2024].items() if k not in ("net_profit_attributable",
                                                                           "distributable_profit", "cash_dividend")})
    years[2020] = {"net_profit_attributable": 100 * M, "distributable_profit": 1 * M, "cash_dividend": 30 * M}
    years[2023]["cash_dividend"] = 30 * M - 0.01
    del years[2024]
    rep = evaluate(case(GCL, 2023, years, {**GCL_ATTEST, LOW: False}, MAIN_CO))
    assert rep.rule(LOW).status == "fail"
    assert rep.rule("reg_st_low_dividend").status == "not_applicable"
    assert rep.rule("reg_st_low_dividend").reason == "na_before_first_year"
    # exactly 30% is not low
    years[2023]["cash_dividend"] = 30 * M
    rep = evaluate(case(GCL, 2023, years, {**GCL_ATTEST, LOW: False}, MAIN_CO))
    assert rep.rule(LOW).status == "not_applicable" and rep.rule(LOW).reason == "na_payout_not_low"


def test_the_low_payout_duty_binds_main_boards_and_recommends_elsewhere():
    low = {2024: {"cash_dividend": 29 * M}}  # < 30m
    assert gcl(low, attest={LOW: False}).rule(LOW).status == "fail"
    assert gcl(low, attest={LOW: False}, company=CHINEXT_CO).rule(LOW).status == "warn"
    no_board = {k: v for k, v in MAIN_CO.items() if k != "board"}  # the board follows from the code (002015: SZSE main)
    assert gcl(low, attest={LOW: False}, company=no_board).rule(LOW).status == "fail"
    neither = {k: v for k, v in MAIN_CO.items() if k not in ("board", "stock_code")}
    assert gcl(low, attest={LOW: False}, company=neither).rule(LOW).status == "missing_input"


def test_buybacks_count_against_a_low_payout():
    # cash 20m + bidding buybacks 10m = 30m = 30% of 100m: not low
    r = gcl({2024: {"cash_dividend": 20 * M, "buyback_amount": 10 * M}}, attest={LOW: False}).rule(LOW)
    assert r.status == "not_applicable"


# ---- 4. ordinary resolutions need more than half ------------------------------------------

FE_YEARS = {
    2022: {"net_profit_attributable": 120 * M, "distributable_profit": 100 * M, "cash_dividend": 10 * M},
    2023: {"net_profit_attributable": 120 * M, "distributable_profit": 100 * M, "cash_dividend": 10 * M},
    2024: {"net_profit_attributable": 120 * M, "distributable_profit": 100 * M,
           "retained_earnings_consolidated": 800 * M, "retained_earnings_parent": 600 * M,
           "cash_flow_sufficient": True, "audit_opinion": "standard_unqualified", "going_concern_unaffected": True,
           "major_outlay_planned": False, "development_stage": "mature", "cash_dividend": 70 * M,
           "vote_for_ratio": 0.9, "independent_directors_opinion": True, "online_voting_offered": True,
           "agm_date": "2025-05-20", "payout_date": "2025-06-20", "vote_for_ratio": 0.9,
           "price_below_net_assets_20d": False, "price_below_ipo_20d": False},
}
FE_ATTEST = {"minority_consulted": True, "fund_occupation_withheld": True, "policy_change_two_thirds": True,
             "reg_low_payout_explained": True, "reg_no_cash_explained": True}
FE_CO = {"company_name": "示例沪市公司", "stock_code": "600869", "board": "sse_main", "listing_date": "1995-02-06"}


def far_east(change=None, attest=None):
    years = copy.deepcopy(FE_YEARS)
    for y, vals in (change or {}).items():
        years.setdefault(y, {}).update(vals)
    return evaluate(case(FAR_EAST, 2024, years, {**FE_ATTEST, **(attest or {})}, FE_CO))


def test_far_east_base_is_compliant():
    rep = far_east()
    assert rep.overall_status == "pass", [(r.id, r.status) for r in rep.rules if r.status not in ("pass", "met", "not_applicable")]


def test_exactly_half_of_the_votes_fails_an_ordinary_resolution():
    assert far_east({2024: {"vote_for_ratio": 0.5}}).rule("vote_majority").status == "fail"
    assert far_east({2024: {"vote_for_ratio": 0.5001}}).rule("vote_majority").status == "pass"


def test_exactly_two_thirds_passes_a_special_resolution():
    # a stock dividend needs ≥ 2/3 (三分之二以上 includes the number)
    years = {2024: {"stock_dividend": 10 * M, "vote_for_ratio": 2 / 3}}
    assert far_east(years).rule("vote_stock_two_thirds").status == "pass"


def test_an_ordinary_resolution_at_half_inclusive_is_refused_in_a_policy(tmp_path):
    policy = yaml.safe_load(open("templates/far-east-2022-2024.yaml", encoding="utf-8"))
    rule = next(r for r in policy["rules"] if r["id"] == "vote_majority")
    rule["op"] = ">="
    (tmp_path / "texts").mkdir()  # the plan text beside the policy file: text: is relative to it
    (tmp_path / policy["text"]).write_bytes((__import__("pathlib").Path("templates") / policy["text"]).read_bytes())
    path = tmp_path / "far-east-2022-2024.yaml"
    path.write_text(yaml.safe_dump(policy, allow_unicode=True), encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy_file(path)
    assert "vote_majority" in str(e.value) and "116" in str(e.value)


# ---- 5. paying while the conditions are not met; parent retained earnings -----------------

def test_a_payout_with_a_qualified_opinion_is_a_warning_naming_the_condition():
    rep = gcl({2024: {"audit_opinion": "qualified", "cash_dividend": 200 * M}})
    cond = rep.rule("cond_audit_opinion")
    assert cond.status == "not_met"
    held = rep.rule("reg_cash_while_conditions_unmet")
    assert held.status == "warn"
    assert cond.clause in held.explanation_zh and cond.title_zh in held.explanation_zh
    assert rep.overall_status == "warn"  # not a silent pass


def test_no_cash_while_conditions_fail_is_not_applicable():
    rep = gcl({2024: {"audit_opinion": "qualified", "cash_dividend": 0.0}}, attest={LOW: True})
    assert rep.rule("reg_cash_while_conditions_unmet").status == "not_applicable"
    assert rep.rule("reg_cash_while_conditions_unmet").reason == "na_no_cash"


def test_any_distribution_with_non_positive_parent_retained_earnings_fails():
    rep = gcl({2024: {"retained_earnings_parent": 0.0}})
    r = rep.rule("reg_parent_retained_positive")
    assert r.status == "fail" and r.required == 0.0 and r.actual == 0.0
    assert r.shortfall is None or r.shortfall > 0
    assert rep.overall_status == "fail"
    # one fen positive is enough for this rule
    assert gcl({2024: {"retained_earnings_parent": 0.01, "cash_dividend": 0.01}}).rule("reg_parent_retained_positive").status == "pass"


# ---- 6. interim dividends -------------------------------------------------------------------

def test_an_interim_dividend_on_a_half_year_loss_is_a_warning():
    # Far East 四、2、(1): 该年度或半年度…可供分配的净利润为正值; the interim is part of the year's cash (70m)
    rep = far_east({2024: {"interim_cash_dividend": 20 * M, "half_year_distributable_profit": -5 * M,
                           "half_year_audit_opinion": "standard_unqualified"}})
    r = rep.rule("interim_distributable_positive")
    assert r.status == "warn" and r.actual == -5_000_000.00
    assert rep.rule("interim_audit_opinion").status == "pass"
    assert rep.rule("min_rolling").actual == 90_000_000.00  # 10m + 10m + 70m: the interim stays in the year's cash


def test_an_unaudited_half_year_report_fails_far_easts_interim_audit_requirement():
    rep = far_east({2024: {"interim_cash_dividend": 20 * M, "half_year_distributable_profit": 5 * M,
                           "half_year_audit_opinion": "unaudited"}})
    assert rep.rule("interim_audit_opinion").status == "warn"
    assert rep.rule("interim_distributable_positive").status == "pass"


def test_no_interim_dividend_leaves_the_interim_rules_not_applicable():
    rep = far_east()
    for rid in ("interim_distributable_positive", "interim_audit_opinion"):
        assert rep.rule(rid).status == "not_applicable" and rep.rule(rid).reason == "na_no_interim"


def test_gcl_interim_needs_no_audit_but_its_period_end_profit_confirmed():
    rep = gcl({2024: {"interim_cash_dividend": 10 * M}}, attest={"interim_period_end_retained_positive": False})
    assert rep.rule("interim_period_end_retained_positive").status == "warn"
    assert not any(r.id.startswith("interim_audit") for r in rep.rules)


# ---- 7. Houpu's supervisory statement: no distribution proposal at all ---------------------

HOUPU_YEARS = {
    2022: {"net_profit_attributable": 50 * M, "cash_dividend": 0.0},
    2023: {"net_profit_attributable": 50 * M, "cash_dividend": 0.0},
    2024: {"net_profit_attributable": 50 * M, "distributable_profit": 40 * M, "audit_opinion": "standard_unqualified",
           "net_assets": 1_000 * M, "planned_major_outlay": 0.0, "retained_earnings_consolidated": 200 * M,
           "retained_earnings_parent": 150 * M, "going_concern_unaffected": True, "independent_directors_opinion": True,
           "price_below_net_assets_20d": False, "price_below_ipo_20d": False},
}


def houpu(change, attest=None):
    years = copy.deepcopy(HOUPU_YEARS)
    for y, vals in change.items():
        years[y].update(vals)
    base = {"stock_dividend_basis": True, "policy_change_two_thirds": True, "no_distribution_supervisory_statement": False}
    return evaluate(case(HOUPU, 2024, years, {**base, **(attest or {})}, CHINEXT_CO))


def test_houpu_supervisory_statement_is_not_needed_for_a_stock_only_year():
    rep = houpu({2024: {"stock_dividend": 10 * M}})
    r = rep.rule("no_distribution_supervisory_statement")
    assert r.status == "not_applicable" and r.reason == "na_distribution_made"
    # with no distribution at all it is needed
    assert houpu({}).rule("no_distribution_supervisory_statement").status == "fail"


# ---- 8. strict comparisons: the shortfall of a failure is never 0.00 -----------------------

def test_a_cash_dividend_required_fails_at_zero_with_a_one_fen_shortfall():
    # Far East 四、1 (cash_when_distributing): a stock-only distribution with conditions met
    rep = far_east({2024: {"cash_dividend": 0.0, "stock_dividend": 10 * M, "vote_for_ratio": 0.9}})
    r = rep.rule("cash_when_distributing")
    assert r.status == "fail" and r.shortfall == 0.01


def test_the_minimum_cash_dividend_agrees_with_a_required_cash_dividend():
    # 四、1 requires a cash dividend when distributing with conditions met; the rolling minimum is already
    # met by the earlier years (10m + 10m ≥ 30% × 100m), so the binding minimum is any positive amount
    rep = far_east({2022: {"cash_dividend": 20 * M}, 2023: {"cash_dividend": 20 * M}})
    assert rep.min_cash_dividend == 0.01
    assert "0.01" in rep.min_cash_note_zh and "四、1" in rep.min_cash_note_zh
    assert "0.01" in render_table(rep)


# ---- 9. conditions are met or not met ------------------------------------------------------

def test_conditions_have_their_own_statuses_in_every_face():
    rep = gcl({2024: {"audit_opinion": "qualified", "cash_dividend": 0.0}})
    cond = rep.rule("cond_audit_opinion")
    assert cond.status == "not_met" and STATUS_ZH[cond.status] == "不满足"
    assert all(r.status in ("met", "not_met", "not_applicable", "missing_input") for r in rep.rules if r.role == "condition")
    assert all(r.status not in ("met", "not_met") for r in rep.rules if r.role != "condition")
    assert "不满足 not_met" in render_table(rep)
    assert json.loads(rep.to_json())["rules"][[r.id for r in rep.rules].index("cond_audit_opinion")]["status"] == "not_met"
    years = copy.deepcopy(GCL_YEARS)
    rows = [{"policy": GCL, "stock_code": "002015", "board": "szse_main", "listing_date": "2004-07-08", "fiscal_year": y, **v}
            for y, v in years.items()]
    rows[-1]["audit_opinion"] = "qualified"
    out = evaluate_batch(pd.DataFrame(rows))
    assert out.loc[out.fiscal_year == 2024, "cond_audit_opinion.status"].item() == "not_met"


# ---- 10. bound kinds and margins -----------------------------------------------------------

def test_a_ceiling_is_a_limit_with_a_margin_not_a_requirement():
    rep = gcl()
    cap = rep.rule("distribution_cap")
    assert cap.bound_kind == "limit" and cap.required == 400_000_000.00  # lower of 500m and 400m
    assert cap.margin == 370_000_000.00  # 400m − 30m
    mn = rep.rule("min_annual")
    assert mn.bound_kind == "minimum" and mn.margin == 29_900_000.00  # 30m − 10% × 1m
    assert rep.rule("cond_no_major_outlay").bound_kind == "threshold"
    assert "上限 400,000,000.00" in render_table(rep) and "界限 Bound" in render_markdown(rep)
    assert json.loads(rep.to_json())["rules"][[r.id for r in rep.rules].index("distribution_cap")]["bound_kind"] == "limit"


# ---- 11. no prescribed minimum -------------------------------------------------------------

def test_the_empty_stage_table_cell_prescribes_no_share():
    # growth stage, no major outlay, with a stock dividend: the plan prescribes no minimum share
    rep = gcl({2024: {"development_stage": "growth", "stock_dividend": 10 * M}}, attest={"stock_dividend_basis": True})
    r = rep.rule("cash_share")
    assert r.status == "not_applicable" and r.reason == "na_no_prescribed_share"
    assert REASONS["na_no_prescribed_share"][0] in r.explanation_zh
    # without a stock dividend the distribution is all cash: share 100%, a pass whatever the stage
    assert gcl({2024: {"development_stage": "growth"}}).rule("cash_share").status == "pass"
    # a prescribed cell still computes: mature without major outlay → 80%: 10m × 0.8 / 0.2 = 40,000,000.00
    r = gcl({2024: {"development_stage": "mature", "stock_dividend": 10 * M}}).rule("cash_share")
    assert r.required == 40_000_000.00 and r.status == "fail"


# ---- 12. one verdict, one reason -----------------------------------------------------------

@pytest.mark.parametrize("change, company, reason", [
    ({}, CHINEXT_CO | {"board": "bse", "stock_code": "830799"}, "na_board_not_covered"),
    ({2024: {"net_profit_attributable": -1 * M}}, MAIN_CO, "na_not_profitable"),
    ({2024: {"retained_earnings_parent": -1 * M, "cash_dividend": 0.0}}, MAIN_CO, "na_retained_parent_not_positive"),
])
def test_the_risk_warning_names_the_one_reason_it_does_not_apply(change, company, reason):
    rep = gcl(change, company=company, attest={LOW: True})
    r = rep.rule("reg_st_low_dividend")
    assert r.status == "not_applicable" and r.reason == reason
    zh = REASONS[reason][0]
    assert r.explanation_zh == f"不适用：{zh}"
    assert zh in rep.st_verdict()[0]  # the header says the same as the row
    table = render_table(rep)
    assert table.count(zh) >= 2


def test_the_risk_warning_header_agrees_with_a_missing_input_row():
    company = {k: v for k, v in MAIN_CO.items() if k != "listing_date"}
    rep = gcl(company=company)
    r = rep.rule("reg_st_low_dividend")
    assert r.status == "missing_input"
    assert "listing_date" in rep.st_verdict()[0] and "不适用" not in rep.st_verdict()[0]


# ---- 13. citations -------------------------------------------------------------------------

def test_the_baseline_cites_the_listing_rule_items_and_the_sale_rules():
    from xlmodel.plans.loading import load_baseline

    b = load_baseline("cn-regulatory-baseline-2024")
    text = " ".join(b.sources)
    for cite in ("9.8.1条第一款第（八）项", "9.4条第（八）项", "证监会令第224号", "2024-05-24", "上证发〔2023〕151号",
                 "深证上〔2023〕924号", "2023-09-26", "第一百一十六条", "第二百一十条", "现金分红指引》（2013"):
        assert cite in text, cite
    assert b.low_payout.first_fiscal_year == 2013


def test_a_plan_file_cannot_use_a_regulatory_kind(tmp_path):
    policy = yaml.safe_load(open("templates/houpu-2024-2026.yaml", encoding="utf-8"))
    policy.pop("text")
    policy["rules"].append({"id": "own_st", "kind": "sale_restriction", "ratio": 0.3, "clause": "三、(一)",
                            "quote": "不得超过累计可供分配利润的范围", "title_zh": "x", "title_en": "x"})
    path = tmp_path / "houpu-2024-2026.yaml"
    path.write_text(yaml.safe_dump(policy, allow_unicode=True), encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy_file(path)
    assert "own_st" in str(e.value) and "baseline" in str(e.value)


def test_a_missing_listing_date_on_chinext_is_missing_input_not_an_rd_exemption():
    company = {k: v for k, v in CHINEXT_CO.items() if k != "listing_date"}
    # this year's cash 29,999,999.99 is below ChiNext's floor of 30,000,000: the earlier years' cash counts
    # only for a company listed before them, so without the date the rule cannot be decided
    r = gcl({2024: {"cash_dividend": 30 * M - 0.01}}, company=company).rule("reg_st_low_dividend")
    assert r.status == "missing_input" and any("listing_date" in m for m in r.missing_inputs)
    # at the floor it is decided whatever the listing date (issue 47.5), never as an R&D exemption
    r = gcl(company=company).rule("reg_st_low_dividend")
    assert r.status == "pass" and any("listing_date" in m for m in r.missing_inputs)


def test_a_year_outside_the_plan_period_is_said_so(tmp_path, capsys):
    from xlmodel.cli import main

    rep = gcl()  # FY2024 is inside 2022–2024
    assert rep.in_plan_period and rep.period_note() == ""
    years = {y + 2: v for y, v in copy.deepcopy(GCL_YEARS).items()}  # 2023–2026: FY2026 is outside
    out = evaluate(case(GCL, 2026, years, GCL_ATTEST, MAIN_CO))
    assert not out.in_plan_period and "2022–2024" in render_table(out) and "2022–2024" in render_markdown(out)
    assert json.loads(out.to_json())["plan_years"] == [2022, 2024]
    assert main(["build", "--policy", GCL, "--year", "2030", "-o", str(tmp_path / "m.xlsx")]) == 0
    assert "outside the plan period 2022–2024" in capsys.readouterr().err
