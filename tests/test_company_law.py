"""The law's own limits in the regulatory baseline (issue 20; docs/domain.md §6.6, §6.4, §6.8, §6.1).

Rules under test (templates/baseline/cn-regulatory-baseline-2024.yaml):
  reg_distribution_cap     Company Law art. 210 ¶4 / art. 211 and the exchanges' 孰低 practice: the
                           distribution (cash + stock dividends, less the interim's) at most the lower of
                           consolidated and parent year-end retained earnings, floored at 0
  reg_payout_six_months    art. 212: distributed within six months of the AGM (Civil Code art. 200–202:
                           the period ends on the corresponding day of the sixth month)
  reg_vote_ordinary        art. 116: the distribution plan needs MORE than half of the votes present
  reg_vote_special         art. 116: a stock dividend or conversion (more registered capital) needs 2/3 or more
  reg_interim_cap          Guideline No. 3 (2023): an interim above the half-year net profit attributable: warn
  reg_st_low_dividend      its precondition per exchange: SSE (rule text) parent only; SZSE both statements

Every expected number below is worked out by hand from those texts; the base companies of
tests/test_regulatory.py comply with everything, and each test changes one thing.
"""

from __future__ import annotations

import copy

import yaml

from conftest import case
from test_regulatory import GCL_BASE, M, MAIN_CO, all_attestations, gcl
from xlmodel.case import parse_case
from xlmodel.evaluator import evaluate

CAP = "reg_distribution_cap"
SIX = "reg_payout_six_months"
ORDINARY = "reg_vote_ordinary"
SPECIAL = "reg_vote_special"
INTERIM = "reg_interim_cap"
ST = "reg_st_low_dividend"


# ---- the distribution cap ----------------------------------------------------------------------------

def test_far_east_distribution_above_the_parents_retained_earnings_fails():
    """The issue's case: 100,000,000 元 cash with parent retained earnings of 10,000,000 元. The maximum
    distribution is the lower of 1,500,000,000 and 10,000,000 = 10,000,000.00; the proposal is 90,000,000.00
    over it, so the overall result fails (it said pass)."""
    data = yaml.safe_load(open("samples/far-east-2022-2024.yaml", encoding="utf-8"))
    y = next(r for r in data["years"] if r["fiscal_year"] == 2023)
    y["cash_dividend"] = 100_000_000
    y["retained_earnings_parent"] = 10_000_000
    rep = evaluate(parse_case(data, "far-east"))
    r = rep.rule(CAP)
    assert rep.max_distribution == 10_000_000.00
    assert (r.status, r.actual, r.required, r.bound_kind) == ("fail", 100_000_000.00, 10_000_000.00, "limit")
    assert (r.shortfall, r.margin) == (90_000_000.00, -90_000_000.00)
    assert rep.overall_status == "fail"
    assert "公司法" in r.title_zh and "二百一十" in r.clause


def test_cap_at_the_bound_passes_and_one_fen_over_fails():
    # lower of 500m (consolidated) and 400m (parent) = 400,000,000.00; cash 399,999,990 + stock 10 = the bound
    at = gcl({2024: {"cash_dividend": 399_999_990.0, "stock_dividend": 10.0}})
    r = at.rule(CAP)
    assert (r.status, r.actual, r.required, r.margin, r.shortfall) == ("pass", 400_000_000.00, 400_000_000.00, 0.0, 0.0)
    over = gcl({2024: {"cash_dividend": 399_999_990.01, "stock_dividend": 10.0}})
    r = over.rule(CAP)
    assert (r.status, r.shortfall, r.margin) == ("fail", 0.01, -0.01)
    assert over.rep.overall_status == "fail"


def test_cap_uses_the_lower_statement_whatever_the_plan_says():
    # consolidated 500m, parent 400m → 400m; with consolidated the lower (350m) → 350m
    rep = gcl({2024: {"retained_earnings_consolidated": 350 * M}}).rep
    assert rep.rule(CAP).required == 350_000_000.00
    assert rep.max_distribution == 350_000_000.00


def test_cap_counts_the_final_distribution_not_the_interim_already_paid():
    """An interim of 50m paid in the year has already left the year-end retained earnings (400m): a year's
    total of 430m is a final of 380m, within the 400m (the year's total would wrongly be over)."""
    r = gcl({2024: {"cash_dividend": 430 * M, "interim_cash_dividend": 50 * M,
                    "half_year_net_profit_attributable": 60 * M}}).rule(CAP)
    assert (r.status, r.actual, r.required) == ("pass", 380_000_000.00, 400_000_000.00)


def test_cap_counts_stock_dividends_but_not_buybacks_or_conversions():
    # cash 300m + stock 150m = 450m > 400m: fail by 50m; a 200m buyback or conversion adds nothing
    res = gcl({2024: {"cash_dividend": 300 * M, "stock_dividend": 150 * M, "vote_for_ratio": 0.9}})
    assert (res.rule(CAP).status, res.rule(CAP).shortfall) == ("fail", 50_000_000.00)
    res = gcl({2024: {"cash_dividend": 300 * M, "buyback_amount": 200 * M, "capital_reserve_conversion": 200 * M,
                      "vote_for_ratio": 0.9}})
    assert (res.rule(CAP).status, res.rule(CAP).actual) == ("pass", 300_000_000.00)


def test_cap_negative_retained_earnings_floor_at_zero_and_no_distribution_not_applicable():
    r = gcl({2024: {"retained_earnings_parent": -5 * M}}).rule(CAP)
    assert (r.status, r.required, r.shortfall) == ("fail", 0.0, 30_000_000.00)
    r = gcl({2024: {"cash_dividend": 0.0}}).rule(CAP)
    assert (r.status, r.reason) == ("not_applicable", "na_no_distribution")
    r = gcl({2024: {"retained_earnings_parent": None}}).rule(CAP)
    assert r.status == "missing_input" and any("retained_earnings_parent" in m for m in r.missing_inputs)


# ---- the six-month payout deadline ---------------------------------------------------------------------

def test_payout_on_the_day_six_months_end_passes_the_next_day_fails():
    # AGM 2025-05-20: the six months end on 2025-11-20 (the corresponding day of the sixth month)
    base = {"agm_date": "2025-05-20"}
    ok = gcl({2024: {**base, "payout_date": "2025-11-20"}}).rule(SIX)
    assert (ok.status, str(ok.required)) == ("pass", "2025-11-20")
    late = gcl({2024: {**base, "payout_date": "2025-11-21"}}).rule(SIX)
    assert late.status == "fail"


def test_seven_months_after_the_agm_fails_and_month_end_has_no_corresponding_day():
    assert gcl({2024: {"agm_date": "2025-05-20", "payout_date": "2025-12-20"}}).rule(SIX).status == "fail"
    # AGM 2025-08-31: February has no 31st, so the period ends on its last day, 2026-02-28
    r = gcl({2024: {"agm_date": "2025-08-31", "payout_date": "2026-02-28"}}).rule(SIX)
    assert (r.status, str(r.required)) == ("pass", "2026-02-28")
    assert gcl({2024: {"agm_date": "2025-08-31", "payout_date": "2026-03-01"}}).rule(SIX).status == "fail"


def test_a_plans_shorter_deadline_keeps_its_own_rule():
    # GCL's plan: two months (三、(九)); three months after the AGM passes the law and fails the plan
    res = gcl({2024: {"agm_date": "2025-05-20", "payout_date": "2025-08-20"}})
    assert res.rule(SIX).status == "pass"
    assert res.rule("payout_within_two_months").status == "fail"


# ---- votes -------------------------------------------------------------------------------------------------

def test_ordinary_resolution_needs_more_than_half():
    assert gcl({2024: {"vote_for_ratio": 0.5}}).rule(ORDINARY).status == "fail"  # exactly half: not 过半数
    assert gcl({2024: {"vote_for_ratio": 0.45}}).rule(ORDINARY).status == "fail"  # the 45%
    assert gcl({2024: {"vote_for_ratio": 0.5001}}).rule(ORDINARY).status == "pass"


def test_stock_dividend_needs_two_thirds_inclusive():
    stock = {"cash_dividend": 30 * M, "stock_dividend": 10 * M}
    assert gcl({2024: {**stock, "vote_for_ratio": 0.60}}).rule(SPECIAL).status == "fail"  # the 60%
    assert gcl({2024: {**stock, "vote_for_ratio": 2 / 3}}).rule(SPECIAL).status == "pass"  # 以上 includes 2/3
    assert gcl({2024: {**stock, "vote_for_ratio": 0.6666}}).rule(SPECIAL).status == "fail"
    conv = gcl({2024: {"capital_reserve_conversion": 10 * M, "vote_for_ratio": 0.6}})
    assert conv.rule(SPECIAL).status == "fail"
    cash_only = gcl({2024: {"vote_for_ratio": 0.6}})
    assert (cash_only.rule(SPECIAL).status, cash_only.rule(SPECIAL).reason) == ("not_applicable", "na_no_stock")


def test_before_the_agm_votes_and_deadline_are_not_applicable_never_missing_input():
    res = gcl({2024: {"agm_date": None, "payout_date": None, "vote_for_ratio": None, "stock_dividend": 10 * M}})
    for rid in (SIX, ORDINARY, SPECIAL):
        r = res.rule(rid)
        assert (r.status, r.reason) == ("not_applicable", "na_agm_not_held"), rid
        assert "股东大会尚未召开" in r.explanation_zh
    # the plan's own two-month deadline too
    assert res.rule("payout_within_two_months").reason == "na_agm_not_held"
    assert res.rep.overall_status != "missing_input"


def test_after_the_agm_a_missing_vote_or_payout_date_is_missing_input():
    res = gcl({2024: {"vote_for_ratio": None, "payout_date": None}})
    assert res.rule(ORDINARY).status == "missing_input"
    assert res.rule(SIX).status == "missing_input"


# ---- the interim cap -------------------------------------------------------------------------------------

def test_interim_equal_to_half_year_profit_passes_a_fen_above_warns_naming_both():
    eq = gcl({2024: {"interim_cash_dividend": 20 * M, "half_year_net_profit_attributable": 20 * M}}).rule(INTERIM)
    assert (eq.status, eq.actual, eq.required) == ("pass", 20_000_000.00, 20_000_000.00)
    over = gcl({2024: {"interim_cash_dividend": 20_000_000.01, "half_year_net_profit_attributable": 20 * M}})
    r = over.rule(INTERIM)
    assert (r.status, r.shortfall) == ("warn", 0.01)
    assert "20,000,000.01" in r.explanation_zh and "20,000,000.00" in r.explanation_zh
    assert over.rep.overall_status == "warn"
    blank = gcl({2024: {"interim_cash_dividend": 20 * M}}).rule(INTERIM)
    assert blank.status == "missing_input"
    none = gcl().rule(INTERIM)
    assert (none.status, none.reason) == ("not_applicable", "na_no_interim")


# ---- the ST precondition, exchange by exchange ---------------------------------------------------------------

LOW = {2022: {"cash_dividend": 0.0}, 2023: {"cash_dividend": 0.0}, 2024: {"cash_dividend": 1 * M}}


def test_szse_needs_both_statements_positive_sse_only_the_parent():
    """Cash 1m over 2022–2024 against 30% × 100m = 30m and 50m: triggered where the rule applies. With the
    consolidated retained earnings negative and the parent's positive, the SZSE's reading (both positive)
    leaves the rule out; the SSE's rule text (the parent's only) applies it, and the report says so."""
    changes = {y: dict(v) for y, v in LOW.items()}
    changes[2024]["retained_earnings_consolidated"] = -10 * M
    changes[2024]["retained_earnings_parent"] = 50 * M
    sz = gcl(changes).rule(ST)
    assert (sz.status, sz.reason) == ("not_applicable", "na_retained_cons_not_positive")
    sh = gcl(changes, company={"board": "sse_main", "stock_code": "600869"})
    r = sh.rule(ST)
    assert r.status == "fail" and sh.st is True
    assert "上交所" in r.explanation_zh and "母公司" in r.explanation_zh
    # an SSE company needs no consolidated figure for this rule
    changes[2024]["retained_earnings_consolidated"] = None
    assert gcl(changes, company={"board": "sse_main", "stock_code": "600869"}).rule(ST).status == "fail"
    # with both positive both exchanges apply it, and the SSE note is not given
    both = gcl(LOW, company={"board": "sse_main", "stock_code": "600869"}).rule(ST)
    assert both.status == "fail" and "上交所" not in both.explanation_zh


def test_every_new_rule_cites_its_article():
    rep = gcl().rep
    for rid, article in ((CAP, "第二百一十条"), (SIX, "第二百一十二条"), (ORDINARY, "第一百一十六条"),
                         (SPECIAL, "第一百一十六条"), (INTERIM, "监管指引第3号")):
        assert article in rep.rule(rid).clause, rid


# ---- the 2024 Company Law in force: the audit committee in place of the supervisory board (issue 47.4) ----
#
# Company Law (2023 revision, in force 2024-07-01) arts. 69 and 121: the board's audit committee may exercise
# the supervisory board's powers; CSRC 《关于新〈公司法〉配套制度规则实施相关过渡期安排》 (2024-12-27): listed
# companies make the change before 2026-01-01. Houpu's plan (四、(二)) and GCL's (三、(十二)) ask for the 监事会's
# statement when a profitable year has no proposal: for fiscal 2025, stated in 2026, no listed company has one.

HOUPU_STATEMENT = "no_distribution_supervisory_statement"


def _houpu(year: int) -> dict:
    """Houpu's sample moved to ``year``: profitable (net profit 50,000,000) with no distribution, so the
    statement applies; the statement confirmed."""
    data = yaml.safe_load(open("samples/houpu-2024-2026.yaml", encoding="utf-8"))
    last = copy.deepcopy(next(r for r in data["years"] if r["fiscal_year"] == 2024))
    last.update(fiscal_year=year, net_profit_attributable=50_000_000, distributable_profit=50_000_000)
    data["years"] = [r for r in data["years"] if r["fiscal_year"] < min(year, 2024)] + [last]
    data["evaluation_year"] = year
    return data


def test_fiscal_2025_asks_the_audit_committee_for_the_statement():
    rep = evaluate(parse_case(_houpu(2025), "houpu"))
    r = rep.rule(HOUPU_STATEMENT)
    assert r.status == "pass"
    assert r.title_zh.startswith("年度盈利未提出分配预案时，董事会审计委员会发表专项说明和意见")
    assert "监事会发表" not in r.title_zh
    assert "《关于新〈公司法〉配套制度规则实施相关过渡期安排》（2024-12-27）" in r.title_zh
    assert "《上市公司章程指引（2025年修订）》" in r.title_zh
    assert r.title_en.startswith("The board's audit committee statement when profitable without a distribution proposal")
    assert r.explanation_zh.startswith("已确认：年度盈利未提出分配预案时，董事会审计委员会")
    out = rep.to_output()
    row = next(x for x in out["rules"] if x["id"] == HOUPU_STATEMENT)
    assert "董事会审计委员会" in row["title_zh"] and "audit committee" in row["title_en"]


def test_fiscal_2024_still_asks_the_supervisory_board():
    r = evaluate(parse_case(_houpu(2024), "houpu")).rule(HOUPU_STATEMENT)
    assert r.title_zh == "年度盈利未提出分配预案时，监事会发表专项说明和意见"
    assert r.title_en == "Supervisory board statement when profitable without a distribution proposal"


def test_a_title_without_the_supervisory_board_is_worded_as_the_plan_words_it():
    from xlmodel.plans.schema import worded_for_year

    assert worded_for_year("利润分配政策调整经2/3以上通过", "Any change passed with 2/3", 2026) == \
        ("利润分配政策调整经2/3以上通过", "Any change passed with 2/3")
    zh, en = worded_for_year("盈利未提现金分红预案：监事会发表专项说明和意见",
                             "Profitable without a cash proposal — supervisory board statement", 2025)
    assert zh.startswith("盈利未提现金分红预案：董事会审计委员会发表专项说明和意见（2025会计年度起")
    assert en.startswith("Profitable without a cash proposal — the board's audit committee statement (from fiscal 2025")
    assert worded_for_year(zh, en, None) == (zh, en)


def test_the_workbook_and_the_udfs_word_it_for_the_year(tmp_path):
    import openpyxl

    from xlmodel import udfs
    from xlmodel.workbook.writer import build_workbook

    for year, body in ((2025, "董事会审计委员会发表专项说明和意见"), (2024, "监事会发表专项说明和意见")):
        path = build_workbook(tmp_path / f"houpu{year}.xlsx", case=parse_case(_houpu(year), "houpu"))
        wb = openpyxl.load_workbook(path)
        checks = [c for row in wb["检查"].iter_rows(values_only=True) for c in row if isinstance(c, str)]
        assert any(c.startswith(f"年度盈利未提出分配预案时，{body}") for c in checks), year
        ws = wb["输入"]
        prompts = [dv.prompt for dv in ws.data_validations.dataValidation if dv.prompt and "专项说明" in dv.prompt]
        assert prompts and all(body in p for p in prompts), year
        rules = udfs.XLM_RULES("houpu-2024-2026", year)
        row = next(r for r in rules if r[0] == HOUPU_STATEMENT)
        assert row[4].startswith(f"年度盈利未提出分配预案时，{body}"), year
    plain = next(r for r in udfs.XLM_RULES("houpu-2024-2026") if r[0] == HOUPU_STATEMENT)
    assert plain[4] == "年度盈利未提出分配预案时，监事会发表专项说明和意见"  # no year: the plan's words
