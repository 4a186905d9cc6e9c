"""Amounts typed in 万元, and inputs that contradict each other (issue 20, items 6 and 8).

Two levels, by how sure the signal is (xlmodel/rules/consistency.py, the baseline rule reg_amounts_plausible):
* certain — refused on input, naming the field and year (the row of a batch, the cell of a workbook):
  total assets below 10,000,000 元 (unless ``amounts_confirmed``), net assets above total assets, a count of
  distributions the amounts deny, a payout before its AGM;
* likely — the rule reg_amounts_plausible (a rule: the workbook computes it too), which fails — never 通过,
  never exit 0 (issue 47; it was a warning) — unless the case confirms its figures: total assets below
  100,000,000 元, revenue above 0 and below 1,000,000 元, net assets / net profit / a cash dividend not 0 and
  below 100,000 元 in size, a figure 1,000 times its neighbour year (万元 is 10⁴), or two related figures of
  one year (distributable profit and net profit, retained earnings and net assets, the cash dividend and
  net profit) 1,000 times apart.
Expected values are worked out from those thresholds by hand.
"""

from __future__ import annotations

import copy
import json
import datetime as dt

import pandas as pd
import pytest
import yaml

from test_regulatory import GCL_BASE, M, gcl
from xlmodel import udfs
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.case import load_case, parse_case
from xlmodel.errors import CaseError
from xlmodel.evaluator import evaluate

PLAUSIBLE = "reg_amounts_plausible"
SAMPLE = "samples/gcl-energy-2022-2024.yaml"
AMOUNTS = ("net_profit_attributable", "distributable_profit", "retained_earnings_consolidated", "retained_earnings_parent",
           "total_assets", "net_assets", "planned_major_outlay", "cash_dividend", "stock_dividend")


def sample_in_wan(drop=()):
    """The GCL sample with every amount divided by 10,000 (typed in 万元), rounded to the fen."""
    data = yaml.safe_load(open(SAMPLE, encoding="utf-8"))
    for y in data["years"]:
        for k in AMOUNTS:
            if k in y:
                y[k] = round(y[k] / 10_000, 2)
        for k in drop:
            y.pop(k, None)
    return data


# ---- the GCL sample in 万元 (the case: it said pass, minimum cash 8,550.92 元) ----------------------

def test_the_sample_in_wan_is_refused_naming_the_evaluation_years_total_assets():
    with pytest.raises(CaseError) as e:
        parse_case(sample_in_wan())
    (p,) = e.value.problems
    # 29,922,738,118.65 / 10,000 = 2,992,273.81 < 10,000,000
    assert p.where == "years[2].total_assets (2023)"
    assert p.message.startswith("2,992,273.81 元低于 10,000,000 元") and "万元" in p.message


def test_without_total_assets_the_sample_in_wan_fails_and_never_passes():
    rep = evaluate(parse_case(sample_in_wan(drop=("total_assets",))))
    r = rep.rule(PLAUSIBLE)
    assert r.status == "fail" and rep.exit_code == 1
    # 2023 net profit 908,993,690.08 / 10,000 = 90,899.37 and cash 205,588,571.24 / 10,000 = 20,558.86: both < 100,000
    assert "归属于上市公司股东的净利润" in r.explanation_zh and "现金分红" in r.explanation_zh
    assert "万元" in r.explanation_zh and r.actual == 2
    assert rep.overall_status != "pass"


def test_confirmed_small_figures_are_evaluated_and_said_to_be_confirmed():
    data = sample_in_wan()
    data["company"]["amounts_confirmed"] = True
    rep = evaluate(parse_case(data))
    r = rep.rule(PLAUSIBLE)
    assert r.status == "pass" and r.explanation_zh.startswith("已核对金额单位为元")
    assert "期末总资产低于 100,000,000 元" in r.explanation_zh


# ---- scale, at the thresholds --------------------------------------------------------------------------------

@pytest.mark.parametrize("assets, outcome", [
    (9_999_999.99, "refused"), (10_000_000.00, "fail"), (99_999_999.99, "fail"), (100_000_000.00, "pass")])
def test_total_assets_floors(assets, outcome):
    # net assets kept below total assets (equity is part of the assets)
    changes = {2024: {"total_assets": assets, "net_assets": None}}
    if outcome == "refused":
        with pytest.raises(CaseError) as e:
            gcl(changes)
        assert e.value.problems[0].where == "years[2].total_assets (2024)"
        return
    assert gcl(changes).rule(PLAUSIBLE).status == outcome


@pytest.mark.parametrize("revenue, status", [(999_999.99, "fail"), (1_000_000.00, "pass"), (0.0, "pass")])
def test_revenue_floor_above_zero(revenue, status):
    assert gcl({2024: {"revenue": revenue}}).rule(PLAUSIBLE).status == status


@pytest.mark.parametrize("field, value, status", [
    ("net_profit_attributable", 99_999.99, "fail"), ("net_profit_attributable", -99_999.99, "fail"),
    ("net_profit_attributable", 100_000.00, "pass"), ("net_profit_attributable", 0.0, "pass"),
    ("cash_dividend", 99_999.99, "fail"), ("cash_dividend", 0.0, "pass"),
    ("net_assets", 50_000.0, "fail"), ("net_assets", -100_000.0, "pass")])
def test_small_figures(field, value, status):
    # the profits of 2022 and 2023 follow the evaluation year's, so that no jump is seen beside the small one;
    # distributable profit 2024 kept within 1,000 × of net profit (pair signal); cash and retained earnings
    # likewise: the small figure is the only signal
    changes = {2024: {field: value}}
    if field == "net_profit_attributable":
        changes.update({2022: {field: value * 3}, 2023: {field: value * 2}})
        changes[2024].update(distributable_profit=value or 1 * M, cash_dividend=abs(value) or 30 * M)
        changes.update({y: {**changes[y], "cash_dividend": abs(value) * 3 or 30 * M} for y in (2022, 2023)})
    if field == "cash_dividend":  # 2023's 30,000,000 beside 2024's 99,999.99 is 300 ×: no jump
        changes.update({2024: {field: value}})
    if field == "net_assets":  # retained earnings 90m and 80m beside net assets of 100,000: 900 and 800 ×
        changes[2024].update(retained_earnings_consolidated=90 * M, retained_earnings_parent=80 * M)
    assert gcl(changes).rule(PLAUSIBLE).status == status


# ---- jumps between years ---------------------------------------------------------------------------------------

def test_a_year_a_thousand_times_its_neighbour_fails():
    # 2023 net profit 100,000,000 and 2024 100,000,000,000: exactly 1,000 times → fail
    # (distributable profit and cash 2024 at 200m: within 1,000 × of either profit, no pair signal)
    same_year = {"distributable_profit": 200 * M, "cash_dividend": 200 * M}
    r = gcl({2024: {"net_profit_attributable": 100_000 * M, **same_year}}).rule(PLAUSIBLE)
    assert r.status == "fail" and r.actual == 1 and "相邻两年相差 1,000 倍以上" in r.explanation_zh
    # 999 times: no signal
    assert gcl({2024: {"net_profit_attributable": 99_900 * M, **same_year}}).rule(PLAUSIBLE).status == "pass"
    # a history year in 万元: 2022 net profit 10,000 (100,000,000 / 10,000) beside 2023's 100,000,000
    # (and the small-profit signal of 2022 is not the evaluation year's, so only the jump is seen)
    # (2022's cash set to 0: its 30m beside a profit of 10,000 would be a pair signal too)
    r = gcl({2022: {"net_profit_attributable": 10_000.0, "cash_dividend": 0.0}}).rule(PLAUSIBLE)
    assert r.status == "fail" and r.actual == 1


def test_total_assets_jump_between_years():
    res = gcl({2023: {"total_assets": 2_000 * M}, 2024: {"total_assets": 2_000_000 * M}})  # 1,000 ×
    assert res.rule(PLAUSIBLE).status == "fail"


# ---- contradictions: refused, naming both fields, in a case, a batch, a workbook and a worksheet function ----

@pytest.mark.parametrize("changes, field, words", [
    ({"distribution_count": 0}, "distribution_count", "cash_dividend 30,000,000.00"),
    ({"distribution_count": 1, "cash_dividend": 0.0}, "distribution_count", "stock_dividend"),
    ({"distribution_count": 1, "interim_cash_dividend": 10 * M, "half_year_net_profit_attributable": 50 * M},
     "distribution_count", "interim_cash_dividend"),
    ({"payout_date": "2025-05-19"}, "payout_date", "agm_date"),
    ({"net_assets": 2_000 * M + 0.01}, "net_assets", "total_assets 2,000,000,000.00"),
])
def test_contradictions_are_refused_naming_both_fields(changes, field, words):
    with pytest.raises(CaseError) as e:
        gcl({2024: changes})
    (p,) = e.value.problems
    assert p.where == f"years[2].{field} (2024)" and words in p.message


def test_consistent_counts_and_dates_are_accepted():
    assert gcl({2024: {"distribution_count": 1}}).rep.overall_status == "pass"
    assert gcl({2024: {"distribution_count": 2, "interim_cash_dividend": 10 * M,
                       "half_year_net_profit_attributable": 50 * M}}).rep.overall_status == "pass"
    assert gcl({2024: {"distribution_count": 0, "cash_dividend": 0.0}}).rule("reg_distribution_cap").status == \
        "not_applicable"
    assert gcl({2024: {"payout_date": "2025-05-20"}}).rule("reg_payout_six_months").status == "pass"  # on the AGM day
    assert gcl({2024: {"net_assets": 2_000 * M}}).rep.overall_status == "pass"  # equal: no liabilities


def test_a_batch_names_the_row_and_a_workbook_the_cell(tmp_path):
    from hostile_corpus import Book
    from xlmodel.workbook.reader import WorkbookError, read_workbook
    from xlmodel.workbook.writer import build_workbook

    df = pd.DataFrame({"policy": ["gcl-energy-2022-2024"] * 2, "stock_code": ["002015", "600869"],
                       "fiscal_year": [2023, 2023], "cash_dividend": [5 * M, 0.0], "distribution_count": [0, 0],
                       "total_assets": [5e9, 5e9]})
    with pytest.raises(CaseError) as e:
        evaluate_batch(df)
    assert [p.where for p in e.value.problems] == ["第2行 row 2, distribution_count"]
    src = build_workbook(tmp_path / "gcl.xlsx", case=load_case(SAMPLE))
    book = Book(src)
    where = book.set_input("in_net_assets", 3e10)  # above the 29,922,738,118.65 of total assets
    with pytest.raises(WorkbookError) as e:
        read_workbook(book.save(tmp_path / "edited.xlsx"))
    assert [p.where for p in e.value.problems] == [where]
    assert "total_assets" in e.value.problems[0].message


def test_a_worksheet_function_refuses_a_contradiction():
    from test_custom_plans import _udf_args
    case = load_case(SAMPLE)
    assert udfs.XLM_OVERALL_STATUS(*_udf_args(case)) == "通过"
    bad = copy.deepcopy(case)
    bad.years[2023]["payout_date"] = dt.date(2024, 5, 1)  # before the AGM of 2024-05-20
    out = udfs.XLM_OVERALL_STATUS(*_udf_args(bad))
    assert isinstance(out, str) and "payout_date" in out and "agm_date" in out


# ---- issue 47: 万元 in one field or one year (it said 通过) ------------------------------------------------------

FAR_EAST = "samples/far-east-2022-2024.yaml"


def far_east_2024(dp_2022: float, np_2022: float = 300 * M) -> dict:
    """Far East (四、3: cash over t-2..t ≥ 30 % of the average distributable profit of those years) evaluated in
    FY2024: distributable profit 2022 ``dp_2022`` (true: 500,000,000), 2023 225,000,000, 2024 275,000,000;
    net profit 2022 ``np_2022``, 2023 250,000,000, 2024 305,555,555.56; cash 30,000,000 a year. The sample's
    2023 board facts and votes are moved to 2024 (AGM 2025-05-16, paid 2025-07-04); 2024's payout, below
    30 % of its net profit, is explained (reg_low_payout_explained confirmed)."""
    data = yaml.safe_load(open(FAR_EAST, encoding="utf-8"))
    last = next(y for y in data["years"] if y["fiscal_year"] == 2023)
    data["evaluation_year"] = 2024
    data["years"] = [
        {"fiscal_year": 2022, "net_profit_attributable": np_2022, "distributable_profit": dp_2022,
         "cash_dividend": 30 * M, "stock_dividend": 0},
        {"fiscal_year": 2023, "net_profit_attributable": 250 * M, "distributable_profit": 225 * M,
         "cash_dividend": 30 * M, "stock_dividend": 0},
        {**last, "fiscal_year": 2024, "net_profit_attributable": 305_555_555.56, "distributable_profit": 275 * M,
         "cash_dividend": 30 * M, "agm_date": "2025-05-16", "payout_date": "2025-07-04"}]
    data["attestations"]["reg_low_payout_explained"] = True
    return data


def gcl_distributable_in_wan() -> dict:
    """The GCL sample (FY2023) with every year's distributable profit in 万元, net profit in 元."""
    data = yaml.safe_load(open(SAMPLE, encoding="utf-8"))
    for y in data["years"]:
        y["distributable_profit"] = round(y["distributable_profit"] / 10_000, 2)
    return data


def test_far_east_2022_distributable_profit_in_wan_fails_where_it_passed():
    # typed 50,000 (万元 of 500,000,000): 30 % × (50,000 + 225,000,000 + 275,000,000) / 3 = 50,005,000.00, less
    # 2022–2023's 60,000,000 paid: nothing left, so the minimum was 四、1's one fen and the year 通过 (exit 0)
    rep = evaluate(parse_case(far_east_2024(50_000)))
    assert rep.rule("min_rolling").status == "pass" and rep.min_cash_dividend == 0.01
    r = rep.rule(PLAUSIBLE)
    # 225,000,000 / 50,000 = 4,500 ≥ 1,000 (a jump); 300,000,000 / 50,000 = 6,000 ≥ 1,000 (beside net profit)
    assert r.status == "fail" and r.actual == 2
    assert "当年实现的可分配利润相邻两年相差 1,000 倍以上" in r.explanation_zh
    assert "同一年度当年实现的可分配利润与归属于上市公司股东的净利润相差 1,000 倍以上" in r.explanation_zh
    assert rep.overall_status == "fail" and rep.exit_code == 1 and rep.units_suspect


def test_far_east_with_the_true_2022_figure_fails_the_rolling_minimum_by_ten_million():
    # 30 % × (500,000,000 + 225,000,000 + 275,000,000) / 3 = 100,000,000.00; paid 90,000,000: short 10,000,000;
    # the minimum for 2024: 100,000,000 less 2022–2023's 60,000,000 = 40,000,000.00
    rep = evaluate(parse_case(far_east_2024(500 * M)))
    r = rep.rule("min_rolling")
    assert (r.status, r.actual, r.required, r.shortfall) == ("fail", 90 * M, 100 * M, 10 * M)
    assert rep.min_cash_dividend == 40 * M and rep.rule(PLAUSIBLE).status == "pass"


@pytest.mark.parametrize("dp_2022, status", [(225_000.00, "fail"), (225_000.01, "pass")])
def test_a_jump_of_distributable_profit_at_the_ratio(dp_2022, status):
    # 2023's 225,000,000 = 1,000 × 225,000.00 (≥ 1,000: a jump); 225,000.01 × 1,000 = 225,000,010 > 225,000,000.
    # Net profit 2022 200,000,000 / 225,000 = 888.9 ×: no pair signal beside the jump
    r = evaluate(parse_case(far_east_2024(dp_2022, np_2022=200 * M))).rule(PLAUSIBLE)
    assert r.status == status and r.actual == (1 if status == "fail" else 0)


def test_gcl_distributable_profit_in_wan_every_year_fails_where_it_passed():
    # 10 % × 85,509.21 (855,092,128.90 / 10,000) = 8,550.92: the minimum it printed with 通过; each year's
    # distributable profit is a ten-thousandth of its net profit (2023: 908,993,690.08 / 85,509.21 = 10,630 ×)
    rep = evaluate(parse_case(gcl_distributable_in_wan()))
    assert rep.min_cash_dividend == 8_550.92
    r = rep.rule(PLAUSIBLE)
    assert r.status == "fail" and r.actual == 1  # no jump: every year in the same wrong unit
    assert "同一年度当年实现的可分配利润与归属于上市公司股东的净利润相差 1,000 倍以上" in r.explanation_zh
    assert rep.overall_status == "fail" and rep.exit_code == 1
    # in 元 (the sample): 10 % × 855,092,128.90 = 85,509,212.89, 通过
    good = evaluate(load_case(SAMPLE))
    assert (good.overall_status, good.min_cash_dividend, good.rule(PLAUSIBLE).status) == ("pass", 85_509_212.89, "pass")


def test_confirmed_figures_of_the_gcl_case_are_evaluated_as_given():
    data = gcl_distributable_in_wan()
    data["company"]["amounts_confirmed"] = True
    rep = evaluate(parse_case(data))
    assert rep.rule(PLAUSIBLE).status == "pass" and rep.rule(PLAUSIBLE).explanation_zh.startswith("已核对金额单位为元")
    assert rep.overall_status == "pass" and rep.min_cash_dividend == 8_550.92 and not rep.units_suspect


@pytest.mark.parametrize("changes, status", [
    # distributable profit beside net profit (100,000,000): 100,000.00 × 1,000 = 100,000,000 → signal
    ({"distributable_profit": 100_000.00}, "fail"), ({"distributable_profit": 100_000.01}, "pass"),
    # the cash dividend beside net profit; 100,000.00 is not below the 100,000 of a small figure
    ({"cash_dividend": 100_000.00}, "fail"), ({"cash_dividend": 100_000.01}, "pass"),
])
def test_a_figure_beside_net_profit_at_the_ratio(changes, status):
    r = gcl({2024: changes}).rule(PLAUSIBLE)
    assert r.status == status and r.actual == (1 if status == "fail" else 0)


@pytest.mark.parametrize("changes, status", [
    # consolidated retained earnings beside net assets of 1,000,000,000: 1,000,000.00 × 1,000 → signal
    ({"retained_earnings_consolidated": 1_000_000.00}, "fail"),
    ({"retained_earnings_consolidated": 1_000_000.01}, "pass"),
    # the parent's own are not held against the group's net assets (a holding company's are often small)
    ({"retained_earnings_parent": 1_000_000.00}, "pass"),
    # net assets in 万元 beside consolidated retained earnings of 300,000,000 (parent 250,000,000: 833 ×)
    ({"net_assets": 300_000.00}, "fail"), ({"net_assets": 300_000.01}, "pass"),
])
def test_retained_earnings_beside_net_assets_at_the_ratio(changes, status):
    from test_regulatory import houpu
    r = houpu({2024: changes}).rule(PLAUSIBLE)
    assert r.status == status and r.actual == (1 if status == "fail" else 0)


def test_the_slip_is_exit_1_and_never_pass_in_the_cli_and_json(tmp_path, capsys):
    from conftest import cli
    p = tmp_path / "far-east.yaml"
    p.write_text(yaml.safe_dump(far_east_2024(50_000), allow_unicode=True), encoding="utf-8")
    code, out, _ = cli(capsys, "evaluate", p)
    assert code == 1 and "总体结论 Overall: 不通过 fail" in out and "通过 pass " not in out.split("\n")[3]
    assert "注意：金额疑似以万元或亿元填写" in out and "reg_amounts_plausible" in out
    code, out, _ = cli(capsys, "evaluate", p, "--json")
    (obj,) = json.loads(out)
    assert code == 1 and obj["overall_status"] == "fail"
    assert next(r for r in obj["rules"] if r["id"] == PLAUSIBLE)["status"] == "fail"


def _screen_without_units(tmp_path):
    """samples/market_screen.csv with the units taken out of its title and headers: 万元 read as 元."""
    text = open("samples/market_screen.csv", encoding="utf-8-sig").read()
    p = tmp_path / "screen.csv"
    p.write_text(text.replace("(万元)", "").replace("金额单位：万元；", ""), encoding="utf-8")
    return p


def test_a_batch_in_wan_without_units_gets_a_headline_warning_and_exit_1(tmp_path, capsys):
    from conftest import cli
    code, _, err = cli(capsys, "evaluate", "--batch", _screen_without_units(tmp_path), "-o", tmp_path / "r.csv")
    # 600519's net profit 10,000 (万元) is below 100,000 in size: every row fails the units check
    assert code == 1 and "金额疑似以万元或亿元填写：12 个公司年度" in err and "600519 2024" in err
    assert "cash_needed_to_avoid_st" in err and "其中 1 行列为风险警示" in err  # 600519 FY2024, at risk
    res = pd.read_csv(tmp_path / "r.csv", dtype=str)
    assert set(res["reg_amounts_plausible.status"]) == {"fail"} and set(res["overall_status"]) == {"fail"}
    # with its units the screen is read in 元: no warning (samples/README.md's results)
    code, _, err = cli(capsys, "evaluate", "--batch", "samples/market_screen.csv", "-o", tmp_path / "s.csv")
    assert "金额疑似以万元" not in err


def test_the_batch_summary_sheet_says_it_beneath_the_companies_at_risk(tmp_path, capsys):
    import openpyxl
    from conftest import cli
    cli(capsys, "evaluate", "--batch", _screen_without_units(tmp_path), "-o", tmp_path / "r.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "r.xlsx", read_only=True)["汇总"]
    text = [str(c) for row in ws.iter_rows(values_only=True) for c in row if c]
    risk = next(i for i, t in enumerate(text) if t.startswith("1. 交易所低分红风险警示"))
    said = next(i for i, t in enumerate(text) if t.startswith("注意 金额疑似以万元或亿元填写：12 个公司年度"))
    assert risk < said < next(i for i, t in enumerate(text) if t.startswith("2. 总体结果"))
    assert "示例公司甲" in text[risk:said]  # 600519 FY2024, at risk, listed above the note


def test_the_workbook_and_a_worksheet_function_fail_the_slip(tmp_path, capsys):
    from conftest import cli
    from test_custom_plans import _udf_args
    from xlmodel.workbook.reader import read_workbook
    from xlmodel.workbook.writer import build_workbook
    case = parse_case(gcl_distributable_in_wan())
    path = build_workbook(tmp_path / "gcl.xlsx", case=case)
    back = evaluate(read_workbook(path).case)
    assert back.overall_status == "fail" and back.rule(PLAUSIBLE).status == "fail"
    code, out, _ = cli(capsys, "check", path)
    assert code == 1 and "不通过 fail" in out and "注意：金额疑似以万元或亿元填写" in out
    assert udfs.XLM_OVERALL_STATUS(*_udf_args(case)) == "不通过"
    # the ratio is a parameter the formulas name, not a constant in them
    import openpyxl
    wb = openpyxl.load_workbook(path)
    assert "p_reg_amounts_plausible_pair_ratio" in wb.defined_names
    formulas = [c.value for row in wb["计算"].iter_rows() for c in row
                if isinstance(c.value, str) and "'计算'!I$" in c.value and "pair_ratio" in c.value]
    assert formulas and not any("1000*" in f or "*1000" in f for f in formulas)


def test_a_pair_names_two_different_fields_once():
    from pydantic import ValidationError
    from xlmodel.plans.rule_kinds import PlausibleAmounts
    base = dict(id="u", kind="plausible_amounts", clause="数据合理性", quote="金额以元填写", title_zh="t", title_en="t", assets_floor=1,
                revenue_floor=1, small=1, jump_ratio=1000, jump_fields=["revenue"])
    PlausibleAmounts(**base, pairs=[["distributable_profit", "net_profit_attributable"]])
    for pairs in ([["net_assets", "net_assets"]],
                  [["cash_dividend", "net_profit_attributable"], ["net_profit_attributable", "cash_dividend"]]):
        with pytest.raises(ValidationError):
            PlausibleAmounts(**base, pairs=pairs)
