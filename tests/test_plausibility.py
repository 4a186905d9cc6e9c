"""Amounts typed in 万元, and inputs that contradict each other (issue 20, items 6 and 8).

Two levels, by how sure the signal is (xlmodel/consistency.py, the baseline rule reg_amounts_plausible):
* certain — refused on input, naming the field and year (the row of a batch, the cell of a workbook):
  total assets below 10,000,000 元 (unless ``amounts_confirmed``), net assets above total assets, a count of
  distributions the amounts deny, a payout before its AGM;
* likely — the warning reg_amounts_plausible (a rule: the workbook computes it too), never 通过: total
  assets below 100,000,000 元, revenue above 0 and below 1,000,000 元, net assets / net profit / a cash
  dividend not 0 and below 100,000 元 in size, or a figure 1,000 times its neighbour year (万元 is 10⁴).
Expected values are worked out from those thresholds by hand.
"""

from __future__ import annotations

import copy
import datetime as dt

import pandas as pd
import pytest
import yaml

from test_regulatory import GCL_BASE, M, gcl
from xlmodel import udfs
from xlmodel.batch import evaluate_batch
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


def test_without_total_assets_the_sample_in_wan_warns_and_never_passes():
    rep = evaluate(parse_case(sample_in_wan(drop=("total_assets",))))
    r = rep.rule(PLAUSIBLE)
    assert r.status == "warn"
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
    (9_999_999.99, "refused"), (10_000_000.00, "warn"), (99_999_999.99, "warn"), (100_000_000.00, "pass")])
def test_total_assets_floors(assets, outcome):
    # net assets kept below total assets (equity is part of the assets)
    changes = {2024: {"total_assets": assets, "net_assets": None}}
    if outcome == "refused":
        with pytest.raises(CaseError) as e:
            gcl(changes)
        assert e.value.problems[0].where == "years[2].total_assets (2024)"
        return
    assert gcl(changes).rule(PLAUSIBLE).status == outcome


@pytest.mark.parametrize("revenue, status", [(999_999.99, "warn"), (1_000_000.00, "pass"), (0.0, "pass")])
def test_revenue_floor_above_zero(revenue, status):
    assert gcl({2024: {"revenue": revenue}}).rule(PLAUSIBLE).status == status


@pytest.mark.parametrize("field, value, status", [
    ("net_profit_attributable", 99_999.99, "warn"), ("net_profit_attributable", -99_999.99, "warn"),
    ("net_profit_attributable", 100_000.00, "pass"), ("net_profit_attributable", 0.0, "pass"),
    ("cash_dividend", 99_999.99, "warn"), ("cash_dividend", 0.0, "pass"),
    ("net_assets", 50_000.0, "warn"), ("net_assets", -100_000.0, "pass")])
def test_small_figures(field, value, status):
    # the profits of 2022 and 2023 follow the evaluation year's, so that no jump is seen beside the small one
    changes = {2024: {field: value}}
    if field == "net_profit_attributable":
        changes.update({2022: {field: value * 3}, 2023: {field: value * 2}})
    assert gcl(changes).rule(PLAUSIBLE).status == status


# ---- jumps between years ---------------------------------------------------------------------------------------

def test_a_year_a_thousand_times_its_neighbour_warns():
    # 2023 net profit 100,000,000 and 2024 100,000,000,000: exactly 1,000 times → warn
    r = gcl({2024: {"net_profit_attributable": 100_000 * M}}).rule(PLAUSIBLE)
    assert r.status == "warn" and "相邻两年相差 1,000 倍以上" in r.explanation_zh
    # 999 times: no signal
    assert gcl({2024: {"net_profit_attributable": 99_900 * M}}).rule(PLAUSIBLE).status == "pass"
    # a history year in 万元: 2022 net profit 10,000 (100,000,000 / 10,000) beside 2023's 100,000,000
    # (and the small-profit signal of 2022 is not the evaluation year's, so only the jump is seen)
    r = gcl({2022: {"net_profit_attributable": 10_000.0}}).rule(PLAUSIBLE)
    assert r.status == "warn" and r.actual == 1


def test_total_assets_jump_between_years():
    res = gcl({2023: {"total_assets": 2_000 * M}, 2024: {"total_assets": 2_000_000 * M}})  # 1,000 ×
    assert res.rule(PLAUSIBLE).status == "warn"


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
