"""The dividend path of a plan period (issue 27): forecast years, ``xlmodel plan``, ``xlmodel.plan``.

Every expected amount below is worked out by hand from the plan's text (docs/domain.md §7, the plans
under templates/texts) and the regulatory baseline (docs/domain.md §6), in the comments beside it.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest

import xlmodel
import xlmodel.cli
from conftest import cli
from xlmodel.case import parse_case
from xlmodel.errors import CaseError
from xlmodel.evaluator import evaluate
from xlmodel.planner import PayError, floor_rules, parse_pay, plan
from xlmodel.evaluator import model_for
from xlmodel.synth import make_consistent, random_case_data, random_year

M = 1_000_000  # 元


def _year(fy, profit, *, dp=None, cash=None, forecast=False, **extra):
    """A year whose cash dividend conditions hold (standard audit, going concern, no major outlay)."""
    y = {"fiscal_year": fy, "net_profit_attributable": profit, "distributable_profit": profit if dp is None else dp,
         "retained_earnings_consolidated": 2000 * M, "retained_earnings_parent": 1500 * M,
         "total_assets": 20000 * M, "net_assets": 8000 * M, "revenue": 5000 * M, "rd_expense": 50 * M,
         "audit_opinion": "standard_unqualified", "going_concern_unaffected": True, "cash_flow_sufficient": True,
         "major_outlay_planned": False, "planned_major_outlay": 0, "stock_dividend": 0}
    if cash is not None:
        y["cash_dividend"] = cash
    if forecast is not False:
        y["forecast"] = forecast
    y.update(extra)
    return y


def _case(policy, ey, years, board, code):
    return parse_case({"policy": policy, "evaluation_year": ey,
                       "company": {"company_name": "测试公司", "stock_code": code, "board": board,
                                   "listing_date": "2005-01-01"},
                       "years": years})


def _by_year(path):
    return {y.fiscal_year: y for y in path}


# ---- forecast years in a case -------------------------------------------------------------------------

def test_a_forecast_year_is_read_and_kept():
    c = _case("far-east-2022-2024", 2022, [_year(2022, 100 * M), _year(2023, 100 * M, forecast="是"),
                                            _year(2024, 100 * M, forecast=True)], "sse_main", "600869")
    assert c.forecast_years == {2023, 2024}
    assert "forecast" not in c.years[2023]  # a mark on the year, not an input of any rule
    again = parse_case(c.to_dict())
    assert again.forecast_years == {2023, 2024}


@pytest.mark.parametrize("year, value, words", [
    (2022, True, ["预测年度须在评估年度 2022 之后", "forecast year must come after"]),  # the evaluation year itself
    (2021, True, ["预测年度须在评估年度 2022 之后"]),
    (2023, 1, ["1 and 0 are not read as yes/no"]),  # the one reading of yes/no
    (2023, "maybe", ["expected yes/no"]),
])
def test_a_bad_forecast_mark_is_refused_naming_the_year(year, value, words):
    years = [_year(2021, 100 * M), _year(2022, 100 * M), _year(2023, 100 * M)]
    next(y for y in years if y["fiscal_year"] == year)["forecast"] = value
    with pytest.raises(CaseError) as e:
        _case("far-east-2022-2024", 2022, years, "sse_main", "600869")
    text = str(e.value)
    assert f"forecast ({year})" in text
    for w in words:
        assert w in text


def test_forecast_false_is_no_forecast():
    c = _case("far-east-2022-2024", 2022, [_year(2022, 100 * M), _year(2023, 100 * M, forecast="否")],
              "sse_main", "600869")
    assert c.forecast_years == frozenset()


def _change(years: list[dict], changes: dict) -> None:
    """``y2024={...}`` updates that year's inputs (the builders' keyword arguments)."""
    for fy, vals in changes.items():
        next(y for y in years if y["fiscal_year"] == int(fy[1:])).update(vals)


# ---- Far East (far-east-2022-2024, SSE main board) ------------------------------------------------------

def far_east(**changes):
    """Distributable profit (= net profit) 100, 100, 100, 200, 300 million in 2020–2024, nothing paid in
    2020–2021; evaluated in 2022, 2023–2024 forecast; in 2024 the board plans a major outlay."""
    years = [_year(2020, 100 * M, cash=0), _year(2021, 100 * M, cash=0), _year(2022, 100 * M),
             _year(2023, 200 * M, forecast=True), _year(2024, 300 * M, forecast=True, major_outlay_planned=True)]
    _change(years, changes)
    return _case("far-east-2022-2024", 2022, years, "sse_main", "600869")


def test_far_east_rolling_window_and_the_risk_warning_year():
    path = _by_year(plan(far_east()))
    assert sorted(path) == [2022, 2023, 2024]
    # 四、3: cash over 2020–2022 ≥ 30 % × average distributable profit = 0.3 × 100M = 30M; 2020–2021 paid 0
    assert (path[2022].min_cash_dividend, path[2022].binding_rule) == (30 * M, "min_rolling")
    # 2021–2023: 0.3 × (100 + 100 + 200)/3 M = 40M, less 0 (2021) and the path's 30M (2022) = 10M
    assert (path[2023].min_cash_dividend, path[2023].binding_rule) == (10 * M, "min_rolling")
    assert path[2023].forecast and not path[2022].forecast
    # 2024: a major outlay (四、2、(4)): the conditions fail, 四、3 does not apply. The SSE's risk warning
    # (first applied to FY2024): 2022–2024 cash must reach min(0.3 × (100+200+300)/3 M, 50M) = min(60M, 50M)
    # = 50M; the path paid 30M + 10M, so 10M
    assert (path[2024].min_cash_dividend, path[2024].binding_rule) == (10 * M, "reg_st_low_dividend")
    assert all(y.status == "ok" for y in path.values())
    # the law's cap: the lower of parent (1,500M) and consolidated (2,000M) retained earnings
    assert path[2022].max_distribution == 1500 * M
    # the same numbers as the evaluator's own: paid at the path, 2022's report asks exactly its minimum, and
    # 2024's report asks exactly the cash that avoids the warning
    rep = evaluate(dataclasses.replace(far_east(), years={**far_east().years, 2022: {**far_east().years[2022],
                                                                                     "cash_dividend": 30 * M}}))
    assert rep.min_cash_dividend == 30 * M and rep.overall_status != "fail"


def test_far_east_paying_more_early_lowers_the_later_years():
    path = _by_year(plan(far_east(), pay={2022: 45 * M}))
    assert path[2022].cash_dividend == 45 * M and path[2022].fixed
    assert path[2022].min_cash_dividend == 30 * M  # the minimum is still said
    # 2021–2023: 40M less 0 + 45M: nothing more (0), and 四、1 needs no cash without a distribution
    assert path[2023].min_cash_dividend == 0 and path[2023].binding_rule is None
    assert "annual_cash_in_principle" in path[2023].warnings  # 原则上每年现金分红: a warning at 0
    # 2024: 50M less 45M + 0 = 5M
    assert (path[2024].min_cash_dividend, path[2024].binding_rule) == (5 * M, "reg_st_low_dividend")


def test_the_years_own_proposal_is_its_amount():
    """Issue 51.2: a cash dividend the case gives for a planned year is that year's proposal: the path pays
    it (as --pay would) and the minimum is said beside it; the later years follow from it."""
    path = _by_year(plan(far_east(y2022={"cash_dividend": 45 * M})))
    assert (path[2022].cash_dividend, path[2022].min_cash_dividend) == (45 * M, 30 * M)  # 四、3: 0.3 × 100M
    assert path[2022].fixed and path[2022].proposed and path[2022].status == "ok"
    # as test_far_east_paying_more_early_lowers_the_later_years: 2023 40M less 0 + 45M: 0; 2024 50M − 45M = 5M
    assert path[2023].min_cash_dividend == 0 and not path[2023].proposed
    assert path[2024].min_cash_dividend == 5 * M
    # --pay wins over the proposal: 30M in 2022, so 2023 asks 40M − 30M = 10M and 2024 50M − (30M + 10M) = 10M
    paid = _by_year(plan(far_east(y2022={"cash_dividend": 45 * M}), pay={2022: 30 * M}))
    assert paid[2022].cash_dividend == 30 * M and paid[2022].fixed and not paid[2022].proposed
    assert (paid[2023].min_cash_dividend, paid[2024].min_cash_dividend) == (10 * M, 10 * M)
    # a proposal below the minimum is said so: 20M < 30M; 2023 then asks 40M − 20M = 20M
    low = _by_year(plan(far_east(y2022={"cash_dividend": 20 * M})))
    assert low[2022].status == "below_minimum" and low[2023].min_cash_dividend == 20 * M


def test_the_gcl_samples_proposal_is_paid_and_its_minimum_said(capsys):
    """The GCL sample proposes 205,588,571.24 for 2023 (1.3 元 per 10 shares on 1,581,450,548 shares); its
    minimum is 三、(二)、2、(1)'s 10 % of 855,092,128.94 = 85,509,212.894 → 85,509,212.89 (2021–2023 paid
    324.7M + 306.8M already over 30 % of the average, so the annual share binds)."""
    from pathlib import Path

    sample = Path(__file__).resolve().parents[1] / "samples" / "gcl-energy-2022-2024.yaml"
    y2023 = _by_year(plan(xlmodel.load_case(sample)))[2023]
    assert (y2023.cash_dividend, y2023.min_cash_dividend, y2023.binding_rule) == (205_588_571.24, 85_509_212.89,
                                                                                  "min_annual")
    assert y2023.proposed and y2023.status == "ok"
    code, out, _ = cli(capsys, "plan", str(sample))
    assert "205,588,571.24（拟定 proposed）" in out and "85,509,212.89" in out


def test_far_east_infeasible_year():
    # 2023: parent retained earnings 6M, below the 10M the rolling window asks (the cap is min(6M, 2,000M))
    path = _by_year(plan(far_east(y2023={"retained_earnings_parent": 6 * M})))
    y = path[2023]
    assert (y.min_cash_dividend, y.max_distribution, y.status) == (10 * M, 6 * M, "infeasible")
    assert y.infeasible and "reg_distribution_cap" in y.failing
    # the path carries what the plan asks (10M) into 2024: the warning asks 50M − (30M + 10M) = 10M
    assert path[2024].min_cash_dividend == 10 * M
    # paying what the law allows in 2023 (6M) instead: 2023 is below its minimum, 2024 asks 50M − 36M = 14M
    paid = _by_year(plan(far_east(y2023={"retained_earnings_parent": 6 * M}), pay={2023: 6 * M}))
    assert paid[2023].status == "below_minimum" and paid[2024].min_cash_dividend == 14 * M


# ---- GCL (gcl-energy-2022-2024, SZSE main board) --------------------------------------------------------

def gcl(**changes):
    """Distributable profit (= net profit) 100M each year 2020–2023 and 400M in 2024; 2020–2021 paid 0."""
    years = [_year(2020, 100 * M, cash=0), _year(2021, 100 * M, cash=0), _year(2022, 100 * M),
             _year(2023, 100 * M, forecast=True), _year(2024, 400 * M, forecast=True)]
    _change(years, changes)
    return _case("gcl-energy-2022-2024", 2022, years, "szse_main", "002015")


def test_gcl_path_annual_and_rolling_minimums():
    path = _by_year(plan(gcl()))
    # 三、(二)、2、(1): each year ≥ 10 % of its distributable profit, and any three consecutive years ≥ 30 % of
    # their average. 2022: 10M annual; 0.3 × 100M = 30M over 2020–2022, 0 paid before: 30M
    assert (path[2022].min_cash_dividend, path[2022].binding_rule) == (30 * M, "min_rolling")
    # 2023: annual 10M; rolling 30M less 0 + 30M = 0: 10M
    assert (path[2023].min_cash_dividend, path[2023].binding_rule) == (10 * M, "min_annual")
    # 2024: annual 40M; rolling 0.3 × 200M = 60M less 30M + 10M = 20M; the SZSE warning 50M − 40M = 10M: 40M
    assert (path[2024].min_cash_dividend, path[2024].binding_rule) == (40 * M, "min_annual")
    assert path[2024].st_risk_warning is False


def test_gcl_a_later_minimum_follows_an_earlier_payment():
    path = _by_year(plan(gcl(), pay={2022: 0}))
    assert path[2022].status == "below_minimum" and "min_rolling" in path[2022].failing
    # 2023: the rolling window 2021–2023 now asks the whole 30M (0 paid in 2021 and 2022)
    assert (path[2023].min_cash_dividend, path[2023].binding_rule) == (30 * M, "min_rolling")
    # 2024: rolling 60M less 0 + 30M = 30M; annual 40M; warning 50M − 30M = 20M: 40M
    assert path[2024].min_cash_dividend == 40 * M


def test_gcl_risk_warning_binds_when_the_conditions_fail():
    # 2024: the board does not confirm going concern: the plan's minimums do not apply; the warning
    # asks 50M less the path's 30M + 10M = 10M
    path = _by_year(plan(gcl(y2024={"going_concern_unaffected": False})))
    assert (path[2024].min_cash_dividend, path[2024].binding_rule) == (10 * M, "reg_st_low_dividend")
    assert "reg_cash_while_conditions_unmet" in path[2024].warnings


def test_gcl_infeasible_year():
    # 2024: parent retained earnings 30M: the 40M minimum exceeds the law's cap
    path = _by_year(plan(gcl(y2024={"retained_earnings_parent": 30 * M})))
    assert (path[2024].min_cash_dividend, path[2024].max_distribution) == (40 * M, 30 * M)
    assert path[2024].status == "infeasible"


# ---- Houpu (houpu-2024-2026, ChiNext) ------------------------------------------------------------------

def houpu(**changes):
    """Net profit 100M every year 2022–2026, 2022–2023 paid 0; evaluated in 2024, 2025–2026 forecast."""
    years = [_year(2022, 100 * M, cash=0), _year(2023, 100 * M, cash=0), _year(2024, 100 * M),
             _year(2025, 100 * M, forecast=True), _year(2026, 100 * M, forecast=True)]
    _change(years, changes)
    return _case("houpu-2024-2026", 2024, years, "chinext", "300471")


def test_houpu_the_risk_warning_sets_the_path():
    path = _by_year(plan(houpu()))
    # no numeric minimum in the plan; ChiNext: 2022–2024 cash ≥ min(0.3 × 100M, 30M) = 30M, 0 paid before
    # (R&D 3 × 50M = 150M over the window: below 15 % of its 15,000M revenue and below 300M, no exemption)
    assert (path[2024].min_cash_dividend, path[2024].binding_rule) == (30 * M, "reg_st_low_dividend")
    # 2023–2025: 0 + 30M already reach 30M; 2024–2026: 30M + 0
    assert path[2025].min_cash_dividend == 0 and path[2026].min_cash_dividend == 0


def test_houpu_paying_less_moves_the_warning_to_the_next_year():
    path = _by_year(plan(houpu(), pay={2024: 10 * M}))
    assert path[2024].status == "below_minimum" and path[2024].st_risk_warning is True
    # 2023–2025: 30M less 0 + 10M = 20M; 2024–2026: 30M less 10M + 20M = 0
    assert (path[2025].min_cash_dividend, path[2025].binding_rule) == (20 * M, "reg_st_low_dividend")
    assert path[2026].min_cash_dividend == 0


def test_houpu_cash_share_of_a_forecast_stock_dividend():
    # 2025 proposes an 80M stock dividend: 三、(三)、2、(2) cash ≥ 20 % of the distribution, i.e. 80M × 0.2/0.8 = 20M
    path = _by_year(plan(houpu(y2025={"stock_dividend": 80 * M})))
    assert (path[2025].min_cash_dividend, path[2025].binding_rule) == (20 * M, "cash_share")


def test_houpu_infeasible_year():
    # 2024: parent retained earnings 20M (consolidated 2,000M): the warning's 30M is more than the law allows
    path = _by_year(plan(houpu(y2024={"retained_earnings_parent": 20 * M})))
    assert (path[2024].min_cash_dividend, path[2024].max_distribution, path[2024].status) == (30 * M, 20 * M, "infeasible")


def test_a_year_without_figures_is_undetermined_and_named():
    c = _case("houpu-2024-2026", 2024, [_year(2022, 100 * M, cash=0), _year(2023, 100 * M, cash=0),
                                         _year(2024, 100 * M)], "chinext", "300471")
    path = _by_year(plan(c))
    assert path[2025].status == "missing_input" and path[2025].min_cash_dividend is None
    assert any("net_profit_attributable" in m and "(2025)" in m for m in path[2025].missing_inputs)


def test_minimum_of_one_fen_exactly():
    """A boundary at the fen (docs/domain.md §4): 30 % of 100,000,000.10 is 30,000,000.03."""
    path = _by_year(plan(houpu(y2022={"net_profit_attributable": 100 * M + 0.10}, y2023={"net_profit_attributable": 100 * M},
                               y2024={"net_profit_attributable": 100 * M + 0.20})))
    # average (100M + 0.10 + 100M + 100M + 0.20)/3 = 100,000,000.10; 30 % = 30,000,000.03 ≥ the 30M floor: 30M binds
    assert path[2024].min_cash_dividend == 30 * M


def test_python_api_and_the_plan_name():
    assert xlmodel.plan is plan


# ---- property: paying the minimum leaves nothing failing, one fen less does -----------------------------------

def _random_planned_case(rng, policy_id):
    lo, hi = {"far-east-2022-2024": (2022, 2024), "gcl-energy-2022-2024": (2022, 2024),
              "houpu-2024-2026": (2024, 2026)}[policy_id]
    data = random_case_data(rng, policy_id, year=lo, n_years=3, p_missing=0.0)
    scale = abs(data["years"][-1]["net_profit_attributable"]) or 1e8
    for fy in range(lo + 1, hi + 2):  # forecasts to the plan's last year, and one after it
        y = random_year(rng, 0.0, scale * rng.uniform(0.6, 1.6))
        y.pop("cash_dividend")
        data["years"].append({"fiscal_year": fy, "forecast": True, **y})
    make_consistent(data)
    return parse_case(data)


def _at(case, year, paid, amount):
    years = {y: dict(v) for y, v in case.years.items()}
    for y, a in {**paid, year: amount}.items():
        years[y]["cash_dividend"] = a
    at = dataclasses.replace(case, evaluation_year=year, years=years,
                             attestations=case.attestations if year == case.evaluation_year else {})
    return evaluate(at)


@pytest.mark.parametrize("policy_id", ["far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026"])
def test_paying_each_minimum_leaves_no_floor_rule_failing(policy_id):
    rng = np.random.default_rng(27)
    floor = set(floor_rules(model_for(policy_id)))
    checked = 0
    for _ in range(6):
        try:
            case = _random_planned_case(rng, policy_id)
        except CaseError:
            continue
        paid = {}
        for y in plan(case):
            if y.min_cash_dividend is not None:
                m = y.min_cash_dividend
                at = _at(case, y.fiscal_year, paid, m)
                assert not [r.id for r in at.rules if r.id in floor and r.status in ("fail", "warn")]
                if m > 0:
                    below = _at(case, y.fiscal_year, paid, round(m - 0.01, 2))
                    assert [r.id for r in below.rules if r.id in floor and r.status == "fail"]
                    assert y.binding_rule in floor
                checked += 1
            paid[y.fiscal_year] = y.cash_dividend if y.cash_dividend is not None else 0.0
    assert checked >= 6


# ---- --pay ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, words", [
    ("2024", ["--pay '2024'", "YEAR=AMOUNT"]),
    ("abc=1", ["--pay 'abc=1'", "年度无法识别"]),
    ("2024=-5", ["--pay '2024=-5'", "金额无法识别", "≥ 0"]),
    ("2024=3万", ["--pay '2024=3万'", "write amounts in 元"]),
    ("2024=1e9", ["exponent notation"]),
    ("2024=nan", ["金额无法识别"]),
    ("2024=", ["金额无法识别"]),
])
def test_bad_pay_values(raw, words):
    with pytest.raises(PayError) as e:
        parse_pay([raw])
    for w in words:
        assert w in str(e.value)


def test_pay_reads_amounts_as_case_files_do():
    assert parse_pay(["2024=30,000,000.005", "2025.0=１２３"]) == {2024: 30_000_000.01, 2025: 123.0}
    with pytest.raises(PayError, match="more than once"):
        parse_pay(["2024=1", "2024=2"])


def test_a_pay_year_outside_the_planned_years_is_refused():
    with pytest.raises(PayError, match="2030"):
        plan(houpu(), pay={2030: 1})


# ---- the command line ------------------------------------------------------------------------------------------

def _write(tmp_path, case, name="case.yaml"):
    import yaml

    p = tmp_path / name
    p.write_text(yaml.safe_dump(case.to_dict(), allow_unicode=True), encoding="utf-8")
    return p


def test_cli_plan_text_json_markdown(tmp_path, capsys):
    p = _write(tmp_path, far_east())
    code, out, err = cli(capsys, "plan", str(p))
    assert code == 0
    assert out.index("分红测算") < out.index("Dividend plan")  # Chinese first
    assert "30,000,000.00" in out and "reg_st_low_dividend" in out and "预测" in out
    code, out, _ = cli(capsys, "plan", str(p), "--json")
    rows = json.loads(out)
    assert [(r["fiscal_year"], r["min_cash_dividend"], r["binding_rule"], r["forecast"]) for r in rows] == [
        (2022, 30 * M, "min_rolling", False), (2023, 10 * M, "min_rolling", True), (2024, 10 * M, "reg_st_low_dividend", True)]
    assert rows[0]["max_distribution"] == 1500 * M
    code, out, _ = cli(capsys, "plan", str(p), "--markdown", "--pay", "2022=45000000")
    assert out.startswith("### ") and "| 2022 |" in out and "45,000,000.00（指定）" in out and "5,000,000.00" in out


def test_cli_plan_infeasible_exits_1(tmp_path, capsys):
    p = _write(tmp_path, houpu(y2024={"retained_earnings_parent": 20 * M}))
    code, out, _ = cli(capsys, "plan", str(p))
    assert code == 1 and "不可行" in out and "infeasible" in out


@pytest.mark.parametrize("pay", ["2024", "x=1", "2024=-1", "2024=1e6", "2030=1"])
def test_cli_bad_pay_exits_2_naming_the_argument(tmp_path, capsys, pay):
    p = _write(tmp_path, houpu())
    code, out, err = cli(capsys, "plan", str(p), "--pay", pay)
    assert code == 2 and out == ""
    assert "--pay" in err and "Traceback" not in err
    said = err.split("xlmodel: ", 1)[1].split("：", 1)[1]  # after the argument's name: Chinese first, English after
    assert "\u4e00" <= said[0] <= "\u9fff" and re.search("[A-Za-z]{4}", said)


# ---- hostile inputs (tests/hostile_corpus.py classes: spoof, formula, resources) -------------------------------------

HOSTILE_NAMES = ["=HYPERLINK(\"http://x\",\"y\")", "A公司| 2099 | 0.00 | 通过 |", "**通过** [x](http://x)", "<script>x</script>"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_company_name_stays_inert_in_every_output(tmp_path, capsys, name):
    c = houpu()
    c.company["company_name"] = name
    p = _write(tmp_path, c)
    _, md, _ = cli(capsys, "plan", str(p), "--markdown")
    rows = [ln for ln in md.splitlines() if ln.startswith("| 20")]
    assert len(rows) == 3  # no forged row
    assert "<script>" not in md and re.search(r"(?<!\\)[\[\]*]", md) is None  # every markup character escaped
    _, text, _ = cli(capsys, "plan", str(p))
    assert len([ln for ln in text.splitlines() if ln[:4].isdigit() and ln[4:5] == " "]) == 3
    _, js, _ = cli(capsys, "plan", str(p), "--json")
    assert all(not str(v).startswith("=") for row in json.loads(js) for v in row.values())  # no live formula


def test_hostile_control_characters_in_a_name_are_refused(tmp_path, capsys):
    c = houpu().to_dict()
    c["company"]["company_name"] = "A\x1b[2J公司"
    import yaml

    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(c, allow_unicode=True), encoding="utf-8")
    code, out, err = cli(capsys, "plan", str(p))
    assert code == 2 and "company_name" in err and "\x1b" not in err


def test_hostile_huge_and_many_pay_values_are_bounded(tmp_path, capsys):
    p = _write(tmp_path, houpu())
    code, _, err = cli(capsys, "plan", str(p), "--pay", "2024=" + "9" * 5000)
    assert code == 2 and "1e15" in err
    code, _, err = cli(capsys, "plan", str(p), "--pay", "2024=1\n2025=5")
    assert code == 2 and err.count("\n") == 1 and "\\n2025" in err  # one line: the break shown, never obeyed


def test_hostile_case_file_is_named(tmp_path, capsys):
    p = tmp_path / "bad.yaml"
    p.write_text("policy: ../../etc/passwd\nevaluation_year: 2024\nyears: []\n", encoding="utf-8")
    code, out, err = cli(capsys, "plan", str(p))
    assert code == 2 and "bad.yaml" in err and "policy" in err


def test_hostile_missing_case_file(tmp_path, capsys):
    code, _, err = cli(capsys, "plan", str(tmp_path / "none.yaml"))
    assert code == 2 and "none.yaml" in err and "Traceback" not in err


# ---- the worksheet function XLM_PLAN ----------------------------------------------------------------------------

def _udf_args(case):
    """The case as the input sheet lays it out: field ids down, years across, a "forecast" row."""
    from xlmodel.fields import FIELDS

    yrs = sorted(case.years)
    fids = [f for f in FIELDS if FIELDS[f].per_year and any(f in case.years[y] for y in yrs)]
    rows = [[case.years[y].get(f) for y in yrs] for f in fids]
    rows.append([True if y in case.forecast_years else None for y in yrs])
    cids = ["company_name", "stock_code", "board", "listing_date"]
    return (case.policy, float(case.evaluation_year), [[f] for f in fids + ["forecast"]], [[float(y) for y in yrs]],
            rows, [[c] for c in cids], [[case.company.get(c)] for c in cids])


def test_xlm_plan_returns_the_path_as_an_array():
    from xlmodel import udfs

    out = udfs.XLM_PLAN(*_udf_args(far_east()))
    assert out[0] == list(udfs.PLAN_HEADER)
    # the hand-worked Far East path above: 30M (四、3), 10M (四、3), 10M (the SSE's risk warning)
    assert [(r[0], r[1], r[2], r[3]) for r in out[1:]] == [
        (2022.0, False, 30 * M, "min_rolling"), (2023.0, True, 10 * M, "min_rolling"),
        (2024.0, True, 10 * M, "reg_st_low_dividend")]
    assert out[1][5] == 1500 * M and out[1][6] == "可行"


def test_xlm_plan_bad_argument_is_a_readable_string():
    from xlmodel import udfs

    args = list(_udf_args(far_east()))
    args[4] = [list(r) for r in args[4]]
    args[4][-1][3] = "perhaps"  # the forecast row, 2023 (the years run 2020–2024)
    out = udfs.XLM_PLAN(*args)
    assert isinstance(out, str) and out.startswith("#XLMODEL!") and "forecast" in out and "2023" in out
    assert udfs.XLM_PLAN("no-such-plan", *args[1:]).startswith("#XLMODEL!")


def test_xlm_plan_output_carries_no_live_formula():
    from xlmodel import udfs

    c = far_east()
    c.company["company_name"] = "=1+1"
    out = udfs.XLM_PLAN(*_udf_args(c))
    assert all(not (isinstance(v, str) and v.startswith(("=", "+", "-", "@"))) for row in out for v in row)


# ---- from a filled workbook -------------------------------------------------------------------------------------

def test_cli_plan_reads_a_filled_workbook_as_its_case(tmp_path, capsys):
    p = _write(tmp_path, far_east())
    book = tmp_path / "far-east.xlsx"
    assert cli(capsys, "build", str(p), "-o", str(book))[0] == 0
    code, out, err = cli(capsys, "plan", str(book), "--json")
    rows = json.loads(out)
    # the same hand-worked path as from the case file; the later year columns are forecasts, and said so
    assert [(r["fiscal_year"], r["min_cash_dividend"], r["forecast"]) for r in rows] == [
        (2022, 30 * M, False), (2023, 10 * M, True), (2024, 10 * M, True)]
    assert "2023、2024 年" in err and "forecasts" in err


def test_cli_plan_refuses_a_file_that_is_no_workbook(tmp_path, capsys):
    bad = tmp_path / "not-a-book.xlsx"
    bad.write_bytes(b"PK\x03\x04 garbage")
    code, out, err = cli(capsys, "plan", str(bad))
    assert code == 2 and "not-a-book.xlsx" in err and "Traceback" not in err and out == ""


def test_evaluate_by_year_marks_forecast_years(tmp_path, capsys):
    p = _write(tmp_path, far_east())
    code, out, err = cli(capsys, "evaluate", str(p), "--by-year", "--json")
    (doc,) = json.loads(out)
    assert [(y["fiscal_year"], y["forecast"]) for y in doc["by_year"]] == [(2022, False), (2023, True), (2024, True)]
    assert "2023、2024 年为预测数" in err
    code, text, _ = cli(capsys, "evaluate", str(p), "--by-year")
    assert "2023 预测" in text and "2024 预测" in text and "2022 ◀" in text


def test_hostile_a_forecast_far_ahead_is_planned_in_bounded_work(tmp_path, capsys):
    """resources: one forecast year in 2100 plans every year to it; the years without figures are one
    evaluation each (undetermined, named), never a search."""
    from xlmodel import planner

    c = houpu()
    c.years[2100] = dict(c.years[2026])
    c = dataclasses.replace(c, forecast_years=frozenset(c.forecast_years | {2100}))
    calls = []
    real = planner.evaluate
    try:
        planner.evaluate = lambda *a, **k: calls.append(1) or real(*a, **k)
        path = plan(c)
    finally:
        planner.evaluate = real
    assert [y.fiscal_year for y in path] == list(range(2024, 2101))
    assert all(y.status == "missing_input" for y in path if 2027 <= y.fiscal_year <= 2099)
    assert len(calls) <= 3 * 10 + 73 + 10  # the years with figures: a few evaluations each; the blank ones: one


def test_plan_help_lists_the_exit_codes(capsys):
    with pytest.raises(SystemExit) as e:
        xlmodel.cli.main(["plan", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and "--pay YEAR=AMOUNT" in out and "infeasible" in out and "exit codes" in out
