"""A fourth plan, invented, added as data only: tests/data/fourth_plan/demo-2025-2027.yaml.

It differs from the three real plans on the dimensions DOMAIN.md §2 lists: profit
basis (net profit attributable), a higher-of annual minimum with a per-share floor,
a rolling window, a major-outlay definition combined with OR, a leverage gate, a
fallback minimum when the conditions fail, buybacks not counted as cash and the
parent-company retained earnings as the cap. The file is loaded by path; nothing
under xlmodel/ or templates/ knows about it.

Every expected number is worked out by hand from the plan's wording (the quotes in
the YAML); the arithmetic is in the comment beside it.

Baseline: evaluation year 2025, history 2023–2025, all conditions met, cash only.
"""

from __future__ import annotations

import copy
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import case
from xlmodel.errors import PolicyError
from xlmodel.evaluator import evaluate, model_for
from xlmodel.plans.loading import load_policy
from xlmodel.workbook.writer import build_workbook

PATH = Path(__file__).parent / "data" / "fourth_plan" / "demo-2025-2027.yaml"
ID = "demo-2025-2027"  # a case names its plan by id; the plan itself is loaded by path (load_policy(PATH))
YEAR = 2025
_DROP = object()

BASE_YEARS = {
    2023: {"net_profit_attributable": 80_000_000, "cash_dividend": 16_000_000},
    2024: {"net_profit_attributable": 90_000_000, "cash_dividend": 18_000_000},
    2025: {
        "net_profit_attributable": 100_000_000,
        "audit_opinion": "standard_unqualified",
        "net_assets": 2_000_000_000,  # ratio arm: 10% × 2,000,000,000 = 200,000,000
        "planned_major_outlay": 50_000_000,  # < 200m and not > 100m → not major
        "total_assets": 5_000_000_000,  # leverage limit 70% × 5,000,000,000 = 3,500,000,000
        "total_liabilities": 3_000_000_000,  # ≤ 3.5bn
        "share_count": 100_000_000,  # per-share floor 0.10 × 100,000,000 = 10,000,000
        "retained_earnings_consolidated": 20_000_000,  # deliberately below the distribution
        "retained_earnings_parent": 300_000_000,
        "independent_directors_opinion": True,
        "cash_dividend": 25_000_000,
    },
}

ALL_RULES = {
    "cond_net_profit_positive", "cond_audit_opinion", "cond_no_major_outlay", "cond_leverage",
    "min_annual", "min_rolling", "min_fallback", "distribution_cap",
    "independent_directors_opinion", "stock_dividend_vote",
}


@pytest.fixture(scope="module")
def policy():
    return load_policy(PATH)


def demo(policy, years=None, **y2025):
    ys = copy.deepcopy(BASE_YEARS if years is None else years)
    for k, v in y2025.items():
        if v is _DROP:
            ys[YEAR].pop(k, None)
        else:
            ys[YEAR][k] = v
    return evaluate(case(ID, YEAR, ys), policy)


def statuses(rep):
    return {r.id: r.status for r in rep.rules}


# ---- loading: data only, no code change -------------------------------------------

def test_loads_by_path_without_text(policy):
    assert policy.id == "demo-2025-2027"
    assert policy.text is None
    assert {r.id for r in policy.rules} == ALL_RULES
    assert policy.settings.cash_includes_buybacks is False
    assert policy.settings.retained_earnings_basis == "parent"
    mo = policy.major_outlay
    assert (mo.basis, mo.ratio, mo.floor, mo.combine) == ("net_assets", pytest.approx(0.10), 100_000_000, "or")
    # string ratios in the file: "5%" and "2/3"
    assert policy.rule("min_fallback").components[0].ratio == pytest.approx(0.05)
    assert policy.rule("stock_dividend_vote").ratio == pytest.approx(2 / 3)
    # every cited clause is listed
    assert all(r.clause in policy.clauses for r in policy.rules)


def test_not_a_template(policy):
    # the fourth plan lives only in tests/data: templates/ is untouched
    templates = Path(__file__).resolve().parent.parent / "templates"
    assert not (templates / "demo-2025-2027.yaml").exists()


def test_parameters_are_on_the_model(policy):
    params = model_for(policy).params
    assert params["min_annual.c1_ratio"].value == pytest.approx(0.20)
    assert params["min_annual.c2_per_share"].value == pytest.approx(0.10)
    assert params["min_rolling.ratio"].value == pytest.approx(0.30)
    assert params["min_rolling.window"].value == 3
    assert params["major_outlay.floor"].value == 100_000_000
    assert params["cond_leverage.ratio"].value == pytest.approx(0.70)


# ---- baseline --------------------------------------------------------------------

def test_baseline(policy):
    rep = demo(policy)
    assert rep.overall_status == "pass"
    assert rep.cash_conditions_met is True
    assert statuses(rep) == {
        # conditions are met / not met, not pass / fail
        "cond_net_profit_positive": "met",  # 100,000,000 > 0
        "cond_audit_opinion": "met",
        "cond_no_major_outlay": "met",  # 50m < 200m and 50m ≤ 100m
        "cond_leverage": "met",  # 3.0bn ≤ 3.5bn
        "min_annual": "pass",  # 25m ≥ max(20m, 10m)
        "min_rolling": "pass",  # 16+18+25 = 59m ≥ 0.3 × (80+90+100)/3 = 27m
        "min_fallback": "not_applicable",  # conditions met
        "distribution_cap": "pass",  # 25m ≤ parent 300m
        "independent_directors_opinion": "pass",
        "stock_dividend_vote": "not_applicable",  # no stock dividend
    }
    # min: annual max(0.20 × 100,000,000 = 20,000,000; 0.10 × 100,000,000 = 10,000,000) = 20,000,000;
    # rolling: 27,000,000 − (16m + 18m) < 0 → 0. → 20,000,000.00
    assert rep.min_cash_dividend == 20_000_000.00
    assert rep.max_distribution == 300_000_000.00  # parent


# ---- 二、2 higher of 20% of net profit attributable and 0.10 元 per share ---------------

def test_higher_of_percentage_binds(policy):
    r = demo(policy).rule("min_annual")
    assert r.required == 20_000_000.00  # max(0.20 × 100m = 20m, 0.10 × 100m shares = 10m)


def test_higher_of_per_share_binds(policy):
    rep = demo(policy, share_count=300_000_000)
    r = rep.rule("min_annual")
    assert r.required == 30_000_000.00  # max(20m, 0.10 × 300,000,000 = 30m)
    assert r.status == "fail"
    assert r.shortfall == 5_000_000.00  # 30m − 25m
    assert rep.min_cash_dividend == 30_000_000.00
    assert rep.overall_status == "fail"


def test_higher_of_per_share_to_the_fen(policy):
    # pct 0.20 × 50,000,000 = 10,000,000; per share 0.10 × 123,456,789 = 12,345,678.90 → binds
    # rolling: 0.3 × (80m + 90m + 50m)/3 = 22m − (16m + 18m) < 0 → 0
    rep = demo(policy, net_profit_attributable=50_000_000, share_count=123_456_789, cash_dividend=12_345_678.89)
    r = rep.rule("min_annual")
    assert r.required == 12_345_678.90
    assert r.status == "fail"
    assert r.shortfall == 0.01  # 12,345,678.90 − 12,345,678.89
    assert rep.min_cash_dividend == 12_345_678.90
    rep = demo(policy, net_profit_attributable=50_000_000, share_count=123_456_789, cash_dividend=12_345_678.90)
    assert rep.rule("min_annual").status == "pass"


def test_higher_of_tie(policy):
    # 0.20 × 100m = 20m = 0.10 × 200m shares
    assert demo(policy, share_count=200_000_000).rule("min_annual").required == 20_000_000.00


def test_per_share_floor_needs_share_count(policy):
    rep = demo(policy, share_count=_DROP)
    assert rep.rule("min_annual").status == "missing_input"
    assert any("share_count" in m for m in rep.rule("min_annual").missing_inputs)
    assert rep.min_cash_dividend is None


def test_lower_of_variant(tmp_path):
    # the same plan with combine: lower_of → min(20m, 30m) = 20m when the per-share floor is higher
    data = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    next(r for r in data["rules"] if r["id"] == "min_annual")["combine"] = "lower_of"
    p = tmp_path / "demo-lower.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    pol = load_policy(p)
    ys = copy.deepcopy(BASE_YEARS)
    ys[YEAR]["share_count"] = 300_000_000
    rep = evaluate(case(ID, YEAR, ys), pol)
    assert rep.rule("min_annual").required == 20_000_000.00  # min(20m, 30m)


def test_annual_minimum_basis_is_net_profit_not_distributable_profit(policy):
    # distributable profit is not read: giving a huge one changes nothing; 20% × 100m = 20m
    rep = demo(policy, distributable_profit=1_000_000_000)
    assert rep.rule("min_annual").required == 20_000_000.00
    assert rep.rule("cond_net_profit_positive").actual == 100_000_000.00


# ---- 二、1、(1) net profit attributable 为正值 -------------------------------------------

@pytest.mark.parametrize("profit, met", [(0, False), (-1, False), (0.01, True)])
def test_net_profit_positive_condition(policy, profit, met):
    rep = demo(policy, net_profit_attributable=profit)
    assert rep.cash_conditions_met is met


# ---- 二、1、(4) leverage gate and 二、4 fallback minimum ------------------------------------

def test_leverage_boundary_is_within_limit(policy):
    rep = demo(policy, total_liabilities=3_500_000_000)
    r = rep.rule("cond_leverage")
    assert r.required == 3_500_000_000.00  # 0.70 × 5,000,000,000
    assert r.status == "met"  # 不超过 → <=
    assert rep.cash_conditions_met is True


def test_leverage_gate_fails_one_fen_over(policy):
    rep = demo(policy, total_liabilities=3_500_000_000.01)
    r = rep.rule("cond_leverage")
    assert r.status == "not_met"
    assert r.shortfall == 0.01  # 3,500,000,000.01 − 3,500,000,000.00
    assert rep.cash_conditions_met is False


def test_fallback_minimum_when_leverage_gate_fails(policy):
    rep = demo(policy, total_liabilities=4_000_000_000)  # 80% > 70%
    assert rep.cash_conditions_met is False
    assert rep.rule("min_annual").status == "not_applicable"
    assert rep.rule("min_rolling").status == "not_applicable"
    r = rep.rule("min_fallback")
    assert r.status == "pass"  # 25m ≥ 5m
    assert r.required == 5_000_000.00  # 0.05 × 100,000,000
    # the annual 20m no longer applies; only the fallback: 5,000,000.00
    assert rep.min_cash_dividend == 5_000_000.00


def test_fallback_minimum_one_fen_short(policy):
    rep = demo(policy, total_liabilities=4_000_000_000, cash_dividend=4_999_999.99)
    r = rep.rule("min_fallback")
    assert r.status == "fail"
    assert r.shortfall == 0.01  # 5,000,000.00 − 4,999,999.99
    assert rep.overall_status == "fail"


def test_fallback_minimum_with_a_loss_is_zero(policy):
    # conditions fail on net profit −10m; 0.05 × −10,000,000 < 0 → requirement 0 (DOMAIN §4)
    rep = demo(policy, net_profit_attributable=-10_000_000, cash_dividend=0)
    r = rep.rule("min_fallback")
    assert r.required == 0.0
    assert r.status == "pass"
    assert rep.min_cash_dividend == 0.0


def test_fallback_undecidable_when_conditions_unknown(policy):
    rep = demo(policy, total_liabilities=_DROP)
    assert rep.rule("cond_leverage").status == "missing_input"
    assert rep.cash_conditions_met is None
    assert rep.rule("min_fallback").status == "missing_input"
    assert rep.rule("min_annual").status == "missing_input"
    assert rep.min_cash_dividend is None


# ---- 二、1、(3) major outlay: ≥ 10% of net assets OR > 100,000,000 -----------------------

def test_major_outlay_floor_boundary_not_major(policy):
    # 100,000,000.00 < 200,000,000 (ratio arm) and not > 100,000,000 (floor arm: 超过 → >)
    rep = demo(policy, planned_major_outlay=100_000_000)
    assert rep.rule("cond_no_major_outlay").status == "met"


def test_major_outlay_floor_arm_alone_triggers(policy):
    # 100,000,000.01 < 200,000,000 (ratio arm no) but > 100,000,000 (floor arm yes) → major
    # (with GCL's `and` it would not be major)
    rep = demo(policy, planned_major_outlay=100_000_000.01)
    assert rep.rule("cond_no_major_outlay").status == "not_met"
    assert rep.cash_conditions_met is False
    assert rep.rule("min_fallback").status == "pass"  # 25m ≥ 0.05 × 100m = 5m


def test_major_outlay_ratio_arm_alone_triggers(policy):
    # net assets 500,000,000 → 10% = 50,000,000.00; outlay 50,000,000 >= 50m (ratio arm yes),
    # 50m not > 100m (floor arm no) → major
    rep = demo(policy, net_assets=500_000_000, planned_major_outlay=50_000_000)
    r = rep.rule("cond_no_major_outlay")
    assert r.required == 50_000_000.00  # 0.10 × 500,000,000
    assert r.status == "not_met"
    rep = demo(policy, net_assets=500_000_000, planned_major_outlay=49_999_999.99)
    assert rep.rule("cond_no_major_outlay").status == "met"  # neither arm


# ---- 二、6 buybacks do not count as cash ------------------------------------------------

def test_buybacks_not_counted_in_annual_minimum(policy):
    rep = demo(policy, cash_dividend=15_000_000, buyback_amount=10_000_000)
    r = rep.rule("min_annual")
    assert r.actual == 15_000_000.00  # buyback excluded (it would be 25m if counted)
    assert r.status == "fail"
    assert r.shortfall == 5_000_000.00  # 20m − 15m


def test_buybacks_not_counted_in_rolling_window(policy):
    years = copy.deepcopy(BASE_YEARS)
    years[2023]["buyback_amount"] = 7_000_000
    years[2024]["buyback_amount"] = 7_000_000
    rep = demo(policy, years=years, buyback_amount=7_000_000)
    assert rep.rule("min_rolling").actual == 59_000_000.00  # 16m + 18m + 25m; buybacks 21m excluded


# ---- 二、5 cap on the PARENT statement --------------------------------------------------

def test_cap_uses_parent_even_when_consolidated_is_lower(policy):
    # consolidated 20m < distribution 25m ≤ parent 300m: passes on the parent basis
    # (the lower-of basis of houpu / gcl would cap at 20m and fail)
    rep = demo(policy)
    r = rep.rule("distribution_cap")
    assert r.required == 300_000_000.00
    assert r.status == "pass"
    assert rep.max_distribution == 300_000_000.00


def test_cap_parent_one_fen_short(policy):
    rep = demo(policy, retained_earnings_parent=24_999_999.99, retained_earnings_consolidated=900_000_000)
    r = rep.rule("distribution_cap")
    assert r.required == 24_999_999.99
    assert r.status == "fail"
    assert r.shortfall == 0.01  # 25,000,000.00 − 24,999,999.99
    assert rep.max_distribution == 24_999_999.99


def test_cap_reads_only_the_parent(policy):
    rep = demo(policy, retained_earnings_consolidated=_DROP)
    assert rep.rule("distribution_cap").status == "pass"
    assert rep.missing_input_count == 0
    rep = demo(policy, retained_earnings_parent=_DROP)
    assert rep.rule("distribution_cap").status == "missing_input"
    assert rep.max_distribution is None


# ---- 二、3 rolling window: any three consecutive years, on net profit ------------------

ROLLING_YEARS = {
    2022: {"net_profit_attributable": 1_000_000_000, "cash_dividend": 0},  # outside the window
    2023: {"net_profit_attributable": 200_000_000, "cash_dividend": 5_000_000},
    2024: {"net_profit_attributable": 200_000_000, "cash_dividend": 5_000_000},
    2025: {**BASE_YEARS[2025], "net_profit_attributable": 50_000_000},
}


def test_rolling_window_binds(policy):
    # required: 0.30 × (200m + 200m + 50m) / 3 = 0.30 × 150m = 45,000,000.00
    # prior cash 5m + 5m = 10m → this year needs 45m − 10m = 35,000,000.00
    # annual: max(0.20 × 50m = 10m, 0.10 × 100m shares = 10m) = 10m → rolling binds
    rep = demo(policy, years=ROLLING_YEARS, cash_dividend=34_999_999.99)
    r = rep.rule("min_rolling")
    assert r.required == 45_000_000.00
    assert r.actual == 44_999_999.99  # 5m + 5m + 34,999,999.99
    assert r.status == "fail"
    assert r.shortfall == 0.01
    assert rep.rule("min_annual").status == "pass"
    assert rep.min_cash_dividend == 35_000_000.00  # max(10m, 45m − 10m)
    rep = demo(policy, years=ROLLING_YEARS, cash_dividend=35_000_000)
    assert rep.rule("min_rolling").status == "pass"


def test_rolling_window_is_three_years(policy):
    # ROLLING_YEARS has 2022 with 1bn profit: had it been read, 0.3 × 1,450m / 4 = 108.75m ≠ 45m.
    # Without 2022 at all the rule is still decidable and gives the same 45,000,000.00.
    years = copy.deepcopy(ROLLING_YEARS)
    del years[2022]
    rep = demo(policy, years=years, cash_dividend=35_000_000)
    assert rep.rule("min_rolling").required == 45_000_000.00
    assert rep.rule("min_rolling").status == "pass"


def test_rolling_mode_any_equals_last_for_one_evaluation_year(tmp_path, policy):
    # “任意连续三个会计年度”: each evaluation year checks the window ending in it, so `any`
    # and `last` give the same result for one year; evaluating every year covers every window.
    data = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    _rule(data, "min_rolling")["mode"] = "last"
    p = tmp_path / "demo-last.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    rep_last = evaluate(case(ID, YEAR, ROLLING_YEARS), load_policy(p))
    rep_any = demo(policy, years=ROLLING_YEARS)
    assert rep_last.rule("min_rolling") == rep_any.rule("min_rolling")


def test_rolling_requirement_rounded_half_up(policy):
    # 0.30 × (100,000,000.01 + 100,000,000.02 + 100,000,000.02) / 3 = 0.30 × 300,000,000.05 / 3
    #   = 30,000,000.005 → half-up 30,000,000.01
    years = {
        2023: {"net_profit_attributable": 100_000_000.01, "cash_dividend": 5_000_000},
        2024: {"net_profit_attributable": 100_000_000.02, "cash_dividend": 5_000_000},
        2025: {**BASE_YEARS[2025], "net_profit_attributable": 100_000_000.02},
    }
    rep = demo(policy, years=years, cash_dividend=20_000_000)
    r = rep.rule("min_rolling")
    assert r.required == 30_000_000.01
    assert r.status == "fail"  # 5m + 5m + 20m = 30,000,000.00 < 30,000,000.01
    assert r.shortfall == 0.01
    # annual: max(0.20 × 100,000,000.02 = 20,000,000.004 → 20,000,000.00; 10m) = 20,000,000.00
    assert rep.rule("min_annual").required == 20_000_000.00
    # this year: max(20,000,000.00, 30,000,000.01 − 10,000,000) = 20,000,000.01
    assert rep.min_cash_dividend == 20_000_000.01
    rep = demo(policy, years=years, cash_dividend=20_000_000.01)
    assert rep.rule("min_rolling").status == "pass"


def test_rolling_window_needs_history(policy):
    years = copy.deepcopy(BASE_YEARS)
    del years[2023]["net_profit_attributable"]
    rep = demo(policy, years=years)
    r = rep.rule("min_rolling")
    assert r.status == "missing_input"
    assert any("net_profit_attributable" in m and "2023" in m for m in r.missing_inputs)


# ---- 三、2 vote of 2/3 for a stock dividend ------------------------------------------------

@pytest.mark.parametrize("ratio, status", [(2 / 3, "pass"), (0.70, "pass"), (0.6666, "fail")])
def test_stock_dividend_vote(policy, ratio, status):
    rep = demo(policy, stock_dividend=1_000_000, vote_for_ratio=ratio)
    assert rep.rule("stock_dividend_vote").status == status  # 以上 → >= 2/3


# ---- 三、1 independent directors -------------------------------------------------------------

def test_independent_directors_opinion(policy):
    assert demo(policy, independent_directors_opinion=False).rule("independent_directors_opinion").status == "fail"


# ---- the workbook --------------------------------------------------------------------------

def test_builds_a_workbook(policy, tmp_path):
    c = case(ID, YEAR, BASE_YEARS)
    out = build_workbook(tmp_path / "demo.xlsx", policy=policy, case=c)
    assert out.is_file() and out.stat().st_size > 0
    with zipfile.ZipFile(out) as z:
        assert z.testzip() is None
        assert "xl/workbook.xml" in z.namelist()


# ---- broken policy files: PolicyError names the file, the rule and the field ----------------

def _rule(data, rid):
    return next(r for r in data["rules"] if r["id"] == rid)


def _unknown_kind(d):
    _rule(d, "min_annual")["kind"] = "min_cash_annual"


def _ratio_over_one(d):
    _rule(d, "min_annual")["components"][0]["ratio"] = 1.5


def _rolling_ratio_over_one(d):
    # a share of the AVERAGE may pass 100% (35% of three years' total = 105% of their average): at most
    # 300% of the average (100% of the total) over a window of three years
    _rule(d, "min_rolling")["ratio"] = 3.5


def _clause_not_listed(d):
    _rule(d, "distribution_cap")["clause"] = "二、9"


def _unknown_key(d):
    _rule(d, "min_rolling")["windw"] = 3


def _compare_without_of(d):
    del _rule(d, "cond_leverage")["of"]


@pytest.mark.parametrize("name, mutate, where, text", [
    ("unknown-kind", _unknown_kind, "rule 'min_annual', field 'kind'", "min_cash_annual"),
    ("ratio", _ratio_over_one, "rule 'min_annual', field 'components.0.pct.ratio'", "less than or equal to 1"),
    ("rolling-ratio", _rolling_ratio_over_one, "rule 'min_rolling', field 'ratio'", "at most 300%"),
    ("clause", _clause_not_listed, "rule 'distribution_cap', field 'clause'", "not listed under 'clauses'"),
    ("unknown-key", _unknown_key, "rule 'min_rolling', field 'windw'", "not permitted"),
    ("compare", _compare_without_of, "rule 'cond_leverage'", "'of'"),
])
def test_broken_rule_gives_policy_error(tmp_path, name, mutate, where, text):
    data = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    mutate(data)
    p = tmp_path / f"demo-{name}.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy(p)
    err = e.value
    assert str(p) in err.source and str(p) in str(err)  # the file
    hit = [pr for pr in err.problems if pr.where == where]
    assert hit, [str(pr) for pr in err.problems]  # the rule (and the field)
    assert any(text in str(pr) for pr in hit)


def test_major_outlay_ratio_over_one(tmp_path):
    data = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    data["major_outlay"]["ratio"] = 1.5
    p = tmp_path / "demo-outlay.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy(p)
    assert str(p) in str(e.value)
    assert any(pr.where == "field 'major_outlay.ratio'" for pr in e.value.problems)


def test_computed_clause_without_rule(tmp_path):
    data = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    data["clauses"]["二、6"] = {"treatment": "computed"}  # no rule cites 二、6
    p = tmp_path / "demo-computed.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy(p)
    assert str(p) in str(e.value)
    assert [str(pr) for pr in e.value.problems] == ["clause 二、6: marked 'computed' but no computed rule cites it"]


def test_informational_clause_needs_a_note(tmp_path):
    data = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    data["clauses"]["四"] = {"treatment": "informational"}
    p = tmp_path / "demo-note.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy(p)
    assert any(pr.where == "clause 四" and "note" in pr.message for pr in e.value.problems)


def test_all_problems_reported_at_once(tmp_path):
    data = yaml.safe_load(PATH.read_text(encoding="utf-8"))
    _clause_not_listed(data)
    data["clauses"]["二、6"] = {"treatment": "computed"}
    p = tmp_path / "demo-two.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy(p)
    wheres = {pr.where for pr in e.value.problems}
    assert {"rule 'distribution_cap', field 'clause'", "clause 二、6"} <= wheres


# ---- the workbook recalculated by LibreOffice gives the hand-worked numbers ---------------

def _outputs(path: Path) -> dict:
    import openpyxl

    wb = openpyxl.load_workbook(path, data_only=True)
    out = {}
    for name in ("out_min_cash_dividend", "out_max_distribution", "out_overall_status"):
        (sheet, coord), = wb.defined_names[name].destinations
        out[name] = wb[sheet][coord].value
    return out


@pytest.mark.libreoffice
def test_workbook_recalculated_matches_hand_values(policy, tmp_path, libreoffice):
    from xlmodel.engines.recalc import recalculate

    fallback = copy.deepcopy(BASE_YEARS)
    fallback[YEAR]["total_liabilities"] = 4_000_000_000  # leverage gate fails
    files = [
        build_workbook(tmp_path / "rolling.xlsx", policy=policy, case=case(ID, YEAR, ROLLING_YEARS)),
        build_workbook(tmp_path / "fallback.xlsx", policy=policy, case=case(ID, YEAR, fallback)),
    ]
    rolling, fb = (_outputs(p) for p in recalculate(files, tmp_path / "lo"))
    # rolling: 0.30 × (200m + 200m + 50m)/3 = 45m; minus prior 10m → 35,000,000; cash 25m < 35m → fail
    assert rolling["out_min_cash_dividend"] == pytest.approx(35_000_000.00, abs=0.001)
    assert rolling["out_max_distribution"] == pytest.approx(300_000_000.00, abs=0.001)  # parent
    assert rolling["out_overall_status"] == "不通过"
    # fallback: 0.05 × 100,000,000 = 5,000,000; cash 25m ≥ 5m → pass
    assert fb["out_min_cash_dividend"] == pytest.approx(5_000_000.00, abs=0.001)
    assert fb["out_overall_status"] == "通过"
