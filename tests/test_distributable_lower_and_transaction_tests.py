"""Issue 22, "the last two plans": two terms of real plans the catalogue could not express, each a parameter
of a kind (no per-company code), worked out by hand at its boundaries. The eighth plan
(tests/data/eighth_plan, invented, worded with quotes of ../shared/real-plans/plans.yaml and of the listing
rules) uses both:

* 兖矿能源 (600188): the lower of PRC GAAP and IFRS profit AFTER the statutory reserves — the basis
  ``distributable_profit_lower``, MIN(distributable_profit, distributable_profit_ifrs); “约百分之五十” a target
  (warn), “每股现金股利不低于人民币0.5元” a binding per-share floor on dividends alone;
* 海兰信 (300065): a major outlay defined by the listing rules' transaction tests — each test measures a figure
  of the planned transaction (``measure``) against its own company figure (``basis``) and a floor
  (3,000万 / 300万 元, 超过 → >), 上述指标……如为负值，取其绝对值计算 (``absolute``).

The LibreOffice and Gnumeric parity of the eighth plan runs with the fifth to seventh in
tests/test_capabilities.py. Amounts in 元."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import case
from test_capabilities import _DROP, _mini_data, _years, load_errors, mini, run
from xlmodel.evaluator import evaluate, model_for
from xlmodel.plans.text import plan_clauses
from xlmodel.plans.loading import load_policy_file

EIGHTH = Path(__file__).parent / "data" / "eighth_plan" / "demo8-2025-2027.yaml"
M = 1_000_000
COMPANY = {"company_name": "示例矿业股份有限公司", "stock_code": "600998", "board": "sse_main", "listing_date": "2010-06-30"}
NO_DEAL = {"transaction_total_assets": 0, "transaction_target_revenue": 0, "transaction_target_net_profit": 0,
           "transaction_amount": 0, "transaction_profit": 0}


@pytest.fixture(scope="module")
def eighth():
    return load_policy_file(EIGHTH)


#: the evaluation year 2025 with every condition met and no transaction planned
Y8 = {
    2023: {"net_profit_attributable": 100 * M, "cash_dividend": 40 * M},
    2024: {"net_profit_attributable": 100 * M, "cash_dividend": 40 * M},
    2025: {
        "net_profit_attributable": 100 * M,  # tests 4 and 6: 50% = 50,000,000
        "distributable_profit": 100 * M, "distributable_profit_ifrs": 96 * M,  # the lower: 96,000,000
        "retained_earnings_consolidated": 1_000 * M, "retained_earnings_parent": 1_000 * M,
        "net_assets": 2_000 * M,  # test 1: 30% = 600,000,000; test 5: 50% = 1,000,000,000
        "total_assets": 5_000 * M,  # test 2: 50% = 2,500,000,000
        "revenue": 1_000 * M,  # test 3: 50% = 500,000,000
        "planned_major_outlay": 10 * M, **NO_DEAL,
        "share_count": 80 * M,  # 0.5 元 × 80,000,000 = 40,000,000
        "cash_dividend": 48 * M,
    },
}


def run8(policy, **y2025):
    return run(policy, 2025, _years(Y8, y2025=y2025), baseline=False)


def test_the_eighth_plan_loads_and_every_clause_is_accounted_for(eighth):
    assert set(plan_clauses(eighth)) == set(eighth.clauses)
    assert [(t.measure, t.basis, t.floor) for t in eighth.major_outlay.tests()] == [
        ("planned_major_outlay", "net_assets", None), ("transaction_total_assets", "total_assets", None),
        ("transaction_target_revenue", "revenue", 30 * M), ("transaction_target_net_profit", "net_profit_attributable", 3 * M),
        ("transaction_amount", "net_assets", 30 * M), ("transaction_profit", "net_profit_attributable", 3 * M)]
    assert all(t.absolute and t.op == ">=" and t.floor_op == ">" for t in eighth.major_outlay.tests())


def test_the_eighth_plan_in_one_year(eighth):
    rep = run8(eighth)
    assert {r.id: r.status for r in rep.rules} == {
        "cond_profitable": "met", "cond_retained_positive": "met", "cond_no_major_outlay": "met",
        "target_about_half": "pass",  # 48,000,000 ≥ 50% × min(100m, 96m)
        "min_per_share": "pass"}  # 48,000,000 ≥ 0.5 × 80,000,000
    assert rep.min_cash_dividend == 40 * M  # the target raises no minimum: the per-share floor alone


# =====================================================================================================
# (a) the lower of PRC GAAP and IFRS profit after the statutory reserves
# =====================================================================================================

@pytest.mark.parametrize("prc, ifrs, cash, status, required", [
    (100 * M, 96 * M, 48 * M, "pass", 48 * M),  # 50% × min(100m, 96m) = 48,000,000.00 exactly
    (100 * M, 96 * M, 47_999_999.99, "warn", 48 * M),  # a fen short of the target: a warning
    (100 * M, 96 * M, 48_000_000.01, "pass", 48 * M),  # a fen above
    (90 * M, 96 * M, 45 * M, "pass", 45 * M),  # PRC GAAP the lower: 50% × 90m
    (90 * M, 96 * M, 44_999_999.99, "warn", 45 * M),
    # 50% × 96,000,000.01 = 48,000,000.005 → 48,000,000.01 (half away from zero, DOMAIN.md §4)
    (100 * M, 96_000_000.01, 48_000_000.01, "pass", 48_000_000.01),
    (100 * M, 96_000_000.01, 48 * M, "warn", 48_000_000.01),
])
def test_the_target_on_the_lower_profit_after_the_statutory_reserves(eighth, prc, ifrs, cash, status, required):
    r = run8(eighth, distributable_profit=prc, distributable_profit_ifrs=ifrs, cash_dividend=cash).rule("target_about_half")
    assert (r.status, r.actual, r.required) == (status, cash, required)


def test_the_ratio_counts_buybacks_the_per_share_floor_does_not(eighth):
    # a bidding buyback is a cash dividend for the ratio (CSRC, docs/domain.md §8.1 item 4), not a dividend a share:
    # 38m of dividends and a 10m buyback reach the 48m target, not the 40m per-share floor
    rep = run8(eighth, cash_dividend=38 * M, buyback_amount=10 * M)
    assert (rep.rule("target_about_half").status, rep.rule("target_about_half").actual) == ("pass", 48 * M)
    assert (rep.rule("min_per_share").status, rep.rule("min_per_share").shortfall) == ("fail", 2 * M)
    assert rep.min_cash_dividend == 50 * M  # the plan's cash that brings dividends to 40m: 40m + the 10m buyback


@pytest.mark.parametrize("cash, status", [(40 * M, "pass"), (39_999_999.99, "fail"), (40_000_000.01, "pass")])
def test_the_per_share_floor_binds(eighth, cash, status):
    rep = run8(eighth, cash_dividend=cash)
    assert (rep.rule("min_per_share").status, rep.rule("min_per_share").required) == (status, 40 * M)
    assert rep.rule("target_about_half").status == "warn"  # below 48m: the target only warns


def test_a_blank_ifrs_profit_is_missing_input_never_the_prc_figure_alone(eighth):
    rep = run8(eighth, distributable_profit_ifrs=_DROP)
    r = rep.rule("target_about_half")
    assert r.status == "missing_input"
    assert any(m.startswith("distributable_profit_ifrs ") and "国际财务报告准则" in m for m in r.missing_inputs)
    assert rep.min_cash_dividend == 40 * M  # a target is no minimum: the minimum stays known


def test_a_binding_minimum_on_the_lower_profit_after_reserves():
    p = mini([{"id": "m", "kind": "min_cash", "components": [{"type": "pct", "ratio": 0.3, "basis": "distributable_profit_lower"}]}])
    years = {2025: {"distributable_profit": 120 * M, "distributable_profit_ifrs": 110 * M, "cash_dividend": 33 * M}}
    assert (run(p, 2025, years).rule("m").status, run(p, 2025, years).min_cash_dividend) == ("pass", 33 * M)  # 30% × 110m
    short = run(p, 2025, _years(years, y2025={"cash_dividend": 33 * M - 0.01})).rule("m")
    assert (short.status, short.shortfall) == ("fail", 0.01)


def test_the_lower_basis_is_a_series_only_where_a_plan_reads_it(eighth):
    m = model_for(eighth)
    assert "distributable_profit_lower" in m.series and "net_profit_attributable_lower" not in m.series
    assert m.params["target_about_half.c1_ratio"].zh == "最低比例（占当年可分配利润（扣除法定储备后，中国准则与国际准则孰低））"


# =====================================================================================================
# (b) the listing rules' transaction tests of a major outlay
# =====================================================================================================

def _major(policy, **y2025) -> tuple[str, object]:
    r = run8(policy, **y2025).rule("cond_no_major_outlay")
    return r.status, r.actual


@pytest.mark.parametrize("changes, major", [
    # 1 the planned outlay: 30% × 2,000,000,000 = 600,000,000 (以上 → >=)
    ({"planned_major_outlay": 600 * M}, True),
    ({"planned_major_outlay": 599_999_999.99}, False),
    # 2 the assets involved: 50% × 5,000,000,000 = 2,500,000,000, no floor
    ({"transaction_total_assets": 2_500 * M}, True),
    ({"transaction_total_assets": 2_499_999_999.99}, False),
    # 3 the target's revenue: 50% × 1,000,000,000 = 500,000,000, and > 30,000,000
    ({"transaction_target_revenue": 500 * M}, True),
    ({"transaction_target_revenue": 499_999_999.99}, False),
    # 4 the target's net profit: 50% × 100,000,000 = 50,000,000, and > 3,000,000
    ({"transaction_target_net_profit": 50 * M}, True),
    ({"transaction_target_net_profit": 49_999_999.99}, False),
    ({"transaction_target_net_profit": -50 * M}, True),  # a loss of 50m: 取其绝对值计算
    ({"transaction_target_net_profit": -49_999_999.99}, False),
    # 5 the deal amount: 50% × 2,000,000,000 = 1,000,000,000, and > 30,000,000
    ({"transaction_amount": 1_000 * M}, True),
    ({"transaction_amount": 999_999_999.99}, False),
    # 6 the deal's profit: 50% × 100,000,000 = 50,000,000, and > 3,000,000; a loss counts as its absolute value
    ({"transaction_profit": 50 * M}, True),
    ({"transaction_profit": -50 * M}, True),
    ({"transaction_profit": -49_999_999.99}, False),
])
def test_each_test_at_its_share(eighth, changes, major):
    status, held = _major(eighth, **changes)
    assert (status, held) == (("not_met", 1) if major else ("met", 0))


@pytest.mark.parametrize("changes, major", [
    # company revenue 60,000,000: 50% = 30,000,000 — the share holds at 30,000,000.00, the floor (超过) does not
    ({"revenue": 60 * M, "transaction_target_revenue": 30 * M}, False),
    ({"revenue": 60 * M, "transaction_target_revenue": 30_000_000.01}, True),
    # company net profit 6,000,000: 50% = 3,000,000 — at 3,000,000.00 the floor (超过300万元) fails
    ({"net_profit_attributable": 6 * M, "transaction_target_net_profit": 3 * M}, False),
    ({"net_profit_attributable": 6 * M, "transaction_target_net_profit": 3_000_000.01}, True),
    ({"net_profit_attributable": 6 * M, "transaction_profit": -3_000_000.01}, True),
    # company net assets 60,000,000: 50% = 30,000,000 — the deal amount must exceed 30,000,000
    ({"net_assets": 60 * M, "transaction_amount": 30 * M}, False),
    ({"net_assets": 60 * M, "transaction_amount": 30_000_000.01}, True),
    # a loss year: 50% of |−100,000,000| = 50,000,000
    ({"net_profit_attributable": -100 * M, "transaction_profit": 50 * M}, True),
    ({"net_profit_attributable": -100 * M, "transaction_profit": 49_999_999.99}, False),
])
def test_the_floor_is_strict(eighth, changes, major):
    assert _major(eighth, **changes)[0] == ("not_met" if major else "met")


def _one_test(**branch):
    """A plan whose major outlay is the planned outlay (never major here) or one transaction test."""
    tests = [{"basis": "net_assets", "ratio": 0.9},
             {"measure": "transaction_target_net_profit", "basis": "net_profit_attributable", "ratio": 0.5,
              "floor": 3 * M, **branch}]
    return mini([{"id": "cond_no_major_outlay", "kind": "no_major_outlay"}], major_outlay={"branches": tests})


@pytest.mark.parametrize("branch, npa, target, major", [
    ({"floor_op": ">="}, 6 * M, 3 * M, True),  # inclusive floor (达到): 3,000,000.00 is enough
    ({"floor_op": ">="}, 6 * M, 2_999_999.99, False),
    ({}, 6 * M, 3 * M, False),  # the default: 超过
    ({}, 6 * M, -3_000_000.01, False),  # without absolute values a loss is below the share
    ({"absolute": True}, 6 * M, -3_000_000.01, True),
    # a loss-making company without absolute values: 50% × −100m = −50m; 2m passes the share, not the floor
    ({}, -100 * M, 2 * M, False),
    ({}, -100 * M, 3_000_000.01, True),
    ({"absolute": True}, -100 * M, 3_000_000.01, False),  # 50% × 100m = 50m
    ({"combine": "or"}, 100 * M, 3_000_000.01, True),  # 或: the floor alone suffices
])
def test_floor_op_absolute_and_combine(branch, npa, target, major):
    years = {2025: {"net_assets": 1_000 * M, "planned_major_outlay": 0, "net_profit_attributable": npa,
                    "transaction_target_net_profit": target}}
    assert run(_one_test(**branch), 2025, years).rule("cond_no_major_outlay").status == ("not_met" if major else "met")


def test_the_condition_counts_and_names_the_tests_that_hold(eighth):
    r = run8(eighth, transaction_target_revenue=500 * M, transaction_amount=-1_000 * M).rule("cond_no_major_outlay")
    assert (r.status, r.actual, r.required, r.unit) == ("not_met", 2, None, "项")
    assert "第3项：交易标的营业收入达到最近一年经审计营业收入的50%且超过30,000,000元" in r.explanation_zh
    assert "第5项：交易成交金额达到最近一期经审计净资产的50%且超过30,000,000元" in r.explanation_zh
    assert "第4项" not in r.explanation_zh and "test 3: the target's revenue" in r.explanation_en
    ok = run8(eighth).rule("cond_no_major_outlay")
    assert ok.explanation_zh == "6项重大支出标准均未达到"


def test_every_test_needs_its_figures(eighth):
    r = run8(eighth, transaction_profit=_DROP, transaction_target_revenue=500 * M).rule("cond_no_major_outlay")
    assert r.status == "missing_input"  # a blank figure is never read as "no transaction"
    assert r.missing_inputs == ["transaction_profit 拟进行交易产生的利润 (2025)"]


def test_the_tests_on_the_parameter_sheet_with_their_clause(eighth):
    params = model_for(eighth).params
    mo = {k: (p.value, p.clause, p.unit) for k, p in params.items() if k.startswith("major_outlay.")}
    assert mo == {
        "major_outlay.b1_ratio": (0.3, "一、(二)", "%"), "major_outlay.b2_ratio": (0.5, "一、(二)", "%"),
        "major_outlay.b3_ratio": (0.5, "一、(二)", "%"), "major_outlay.b3_floor": (30 * M, "一、(二)", "元"),
        "major_outlay.b4_ratio": (0.5, "一、(二)", "%"), "major_outlay.b4_floor": (3 * M, "一、(二)", "元"),
        "major_outlay.b5_ratio": (0.5, "一、(二)", "%"), "major_outlay.b5_floor": (30 * M, "一、(二)", "元"),
        "major_outlay.b6_ratio": (0.5, "一、(二)", "%"), "major_outlay.b6_floor": (3 * M, "一、(二)", "元")}
    assert params["major_outlay.b3_ratio"].zh == "重大支出标准（第3项标准）：交易标的营业收入占最近一年经审计营业收入比例（负值取绝对值）"
    assert params["major_outlay.b5_floor"].zh == "重大支出标准（第5项标准）：交易成交金额下限（超过）"
    # no one threshold stands for six tests of different figures
    assert "major_outlay_threshold" not in model_for(eighth).scalars


@pytest.mark.parametrize("branch, words", [
    ({"measure": "transaction_target_revenue", "basis": "net_assets"}, "a share of revenue, not of net_assets"),
    ({"measure": "transaction_amount", "basis": "revenue"}, "a share of net_assets, not of revenue"),
    ({"basis": "net_profit_attributable"}, "planned_major_outlay is a share of total_assets or net_assets or revenue"),
    ({"measure": "transaction_fee", "basis": "revenue"}, "measure"),
])
def test_a_figure_against_another_figure_is_refused(tmp_path, branch, words):
    data = _mini_data([{"id": "c", "kind": "no_major_outlay"}],
                      major_outlay={"branches": [{"basis": "net_assets", "ratio": 0.3}, {"ratio": 0.5, **branch}]})
    assert any(words in e for e in load_errors(tmp_path, data))


def test_a_single_test_measures_the_planned_outlay(tmp_path):
    data = _mini_data([{"id": "c", "kind": "no_major_outlay"}],
                      major_outlay={"basis": "net_profit_attributable", "ratio": 0.5})
    assert any("is a share of total_assets or net_assets or revenue" in e for e in load_errors(tmp_path, data))


def test_a_plan_without_transaction_tests_keeps_its_threshold():
    p = mini([{"id": "c", "kind": "no_major_outlay"}], major_outlay={"branches": [
        {"basis": "net_assets", "ratio": 0.3}, {"basis": "total_assets", "ratio": 0.2}]})
    r = run(p, 2025, {2025: {"net_assets": 1_000 * M, "total_assets": 2_000 * M, "planned_major_outlay": 300 * M}}).rule("c")
    assert (r.status, r.actual, r.required, r.unit) == ("not_met", 300 * M, 300 * M, "元")  # the lower threshold


def test_policies_show_names_the_measure_of_each_test(eighth):
    assert eighth.major_outlay.summary().startswith(
        ", (≥ 30% of net_assets, absolute values) OR (transaction_total_assets ≥ 50% of total_assets, absolute values) OR "
        "(transaction_target_revenue ≥ 50% of revenue and > 30,000,000 元, absolute values)")


# =====================================================================================================
# the workbook, the batch and the worksheet functions read the new fields
# =====================================================================================================

@pytest.fixture(scope="module")
def book(eighth, tmp_path_factory):
    import openpyxl

    from xlmodel.workbook.writer import build_workbook

    c = case(eighth.id, 2025, _years(Y8, y2025={"transaction_profit": -50 * M, "distributable_profit_ifrs": 96_000_000.01}),
             company=COMPANY)
    path = build_workbook(tmp_path_factory.mktemp("eighth") / "demo8.xlsx", policy=eighth, case=c)
    return c, openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)


def test_the_workbook_has_no_constants_and_short_formulas(eighth, book):
    from conftest import formulas
    from test_capabilities import REF
    from xlmodel.workbook.layout import pname

    _, wb, _ = book
    cells = list(formulas(wb))
    offenders = []
    for sheet, c in cells:
        f = REF.sub("", re.sub(r'"[^"]*"', "", c.value[1:]))
        f = re.sub(r"[A-Za-z_][\w.]*", "", f).replace(",2)", ")")
        if [n for n in re.findall(r"\d+(?:\.\d+)?", f) if n not in ("0", "1")]:
            offenders.append(f"{sheet}!{c.coordinate}: {c.value}")
    assert not offenders, offenders[:10]
    assert max(len(c.value) for _, c in cells) <= 250
    text = "\n".join(c.value for _, c in cells)
    for name, prm in model_for(eighth).params.items():
        if prm.editable:
            assert re.search(rf"\b{pname(name)}\b", text), name


def test_the_workbook_caches_the_evaluators_numbers(eighth, book):
    from xlmodel.workbook.layout import SHEETS, Layout, col_name

    c, wb, values = book
    rep = evaluate(c, eighth)
    assert rep.rule("cond_no_major_outlay").status == "not_met"  # the deal's loss of 50m: test 6
    assert rep.rule("target_about_half").required == 48_000_000.01
    layout = Layout(model_for(eighth), 2025)
    ws = values[SHEETS["calc"]]
    col = col_name(layout.col_of(2025))
    for name, want in (("major_outlay_tests_met", 1), ("major_outlay.b6_figure", 50 * M), ("major_outlay.b6", True),
                       ("target_about_half.required", 48_000_000.01)):
        assert ws[f"{col}{layout.calc_rows[name] + 1}"].value == want, name
    inputs = wb[SHEETS["inputs"]]
    labels = {inputs.cell(layout.inputs[f] + 1, 2).value for f in NO_DEAL}
    assert "拟进行交易产生的利润" in labels and "拟进行交易的成交金额（含承担债务和费用）" in labels


def test_the_batch_reads_the_new_fields(eighth):
    import pandas as pd

    from xlmodel.batch.evaluate import evaluate_batch

    rows = [{"stock_code": "600998", "fiscal_year": y, **COMPANY, **v} for y, v in Y8.items()]
    rows[-1] = {**rows[-1], "transaction_target_revenue": 500 * M, "distributable_profit_ifrs": 90 * M}
    out = evaluate_batch(pd.DataFrame(rows), policy=eighth)
    last = out[out.fiscal_year == 2025].iloc[0]
    assert last["cond_no_major_outlay.status"] == "not_met"
    assert last["target_about_half.bound"] == 45 * M  # 50% × min(100m, 90m)


def test_the_worksheet_functions_read_the_new_fields(eighth, monkeypatch):
    from test_udfs import _check_against_report, excel_args
    from xlmodel import udfs

    monkeypatch.setenv("XLMODEL_PLANS", str(EIGHTH.parent))
    udfs.clear_caches()
    for changes in ({}, {"transaction_target_net_profit": -50 * M}, {"distributable_profit_ifrs": _DROP},
                    {"transaction_amount": _DROP}):
        c = case(eighth.id, 2025, _years(Y8, y2025=changes), company=COMPANY)
        rep = evaluate(c, eighth)
        _check_against_report(excel_args(c, "com"), rep, str(changes))


# =====================================================================================================
# `xlmodel draft` reads both terms (docs/domain.md §8.1 items 17 and 18)
# =====================================================================================================

def test_drafting_the_eighth_plans_text_gives_its_definition_and_basis(eighth):
    from test_draft import load_policy_file_from

    text = (EIGHTH.parent / "texts" / "demo8-2025-2027.txt").read_text(encoding="utf-8")
    drafted = load_policy_file_from(text)
    assert drafted.major_outlay.tests() == eighth.major_outlay.tests()  # the six tests, each field as written by hand
    assert drafted.major_outlay.clause == eighth.major_outlay.clause
    target = next(r for r in drafted.rules if r.kind == "min_cash" and r.components[0].type == "pct")
    assert (target.components[0].basis, target.components[0].ratio, target.raises_minimum, target.severity) == \
        ("distributable_profit_lower", 0.5, False, "warn")
    per_share = next(r for r in drafted.rules if r.kind == "min_cash" and r.components[0].type == "per_share")
    assert (per_share.components[0].amount, per_share.measure, per_share.raises_minimum) == (0.5, "cash_dividend", True)
    # the sub-clauses the tests are listed in are computed, by the condition that reads the definition
    assert all(drafted.clauses[f"一、(二)、{k}"].treatment == "computed"
               and drafted.clauses[f"一、(二)、{k}"].rules == ["cond_no_major_outlay"] for k in range(1, 7))


def test_drafted_transaction_tests_in_one_sentence():
    from test_draft import plan, reviewed
    from test_draft_capabilities import load

    text = plan("一、现金分红的条件\n（1）公司无重大投资计划或重大现金支出等事项发生。重大投资计划或重大现金支出是指：交易的成交金额占公司"
                "最近一期经审计净资产的50%以上，且绝对金额超过5,000万元；或交易产生的利润占公司最近一个会计年度经审计净利润的50%以上，"
                "且绝对金额超过500万元。")
    tests = load(text).major_outlay.tests()
    assert [(t.measure, t.basis, t.ratio, t.floor, t.floor_op, t.absolute) for t in tests] == [
        ("transaction_amount", "net_assets", 0.5, 50 * M, ">", False),
        ("transaction_profit", "net_profit_attributable", 0.5, 5 * M, ">", False)]
    assert "一、(1)" not in reviewed(text)


def test_a_test_of_a_figure_against_another_is_reviewed_not_drafted():
    from test_draft import plan, reviewed
    from test_draft_capabilities import load

    # the deal amount against total assets is no listing-rule test: said, and left out
    text = plan("一、现金分红的条件\n（1）公司无重大投资计划或重大现金支出等事项发生。重大投资计划或重大现金支出是指：公司未来十二个月内"
                "拟对外投资累计支出达到或超过公司最近一期经审计净资产的30%；或交易的成交金额占公司最近一期经审计总资产的50%以上。")
    assert [t.measure for t in load(text).major_outlay.tests()] == ["planned_major_outlay"]
    assert any("transaction_amount" in w and "total_assets" in w for w in reviewed(text).get("一、(1)", []))


def test_the_lower_of_the_two_profits_after_the_statutory_reserves_is_the_basis():
    from test_draft import only, plan, reviewed, rules_of

    # 600188 兖矿能源 (2020—2024 年度利润分配政策)
    text = plan("以中国会计准则和国际财务报告准则财务报表税后利润数较少者为准，公司在各会计年度分配的现金股利总额，"
                "应不低于公司该年度扣除法定储备后净利润的35%。")
    rule = only(rules_of(text), "min_cash")
    assert rule["components"] == [{"type": "pct", "ratio": 0.35, "basis": "distributable_profit_lower"}]
    assert reviewed(text) == {}
    # without the IFRS figure: the PRC-GAAP net profit after reserves is not a field of its own — said so
    text = plan("公司在各会计年度分配的现金股利总额，应不低于公司该年度扣除法定储备后净利润的35%。")
    assert only(rules_of(text), "min_cash")["components"][0]["basis"] == "net_profit_attributable"
    assert reviewed(text)


@pytest.mark.parametrize("value, words", [
    ("三千万元", "transaction_amount"), ("=1+1", "transaction_amount"), (True, "transaction_amount"),
    ("3,000万", "transaction_amount")])
def test_a_transaction_figure_that_is_no_amount_is_refused_by_name(value, words):
    from xlmodel.errors import CaseError

    with pytest.raises(CaseError) as e:
        case("demo8-2025-2027", 2025, _years(Y8, y2025={"transaction_amount": value}))
    assert words in str(e.value) and "2025" in str(e.value)
