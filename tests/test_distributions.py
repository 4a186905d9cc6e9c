"""Several distributions a year (issue 47 point 2): a year's interims, each against its own period's caps.

上市公司监管指引第3号——上市公司现金分红（2023年修订, CSRC, 2023-12-15): an interim the AGM authorises may
not exceed the net profit attributable of its period (相应期间); 新国九条 (国发〔2024〕10号, 2024-04-12)
urges several distributions a year. Each interim is also paid out of the retained earnings at its own
period end (the plan's 不得超过累计可分配利润); the final is measured against the year end, which the
interims have already left; the year's ratios read the year's total, every interim included.

The case, worked by hand (GCL's plan, FY2024; retained-earnings basis: the lower of consolidated and
parent, 孰低):

* Q1 interim: cash 100,000,000.00; Q1 net profit attributable 150,000,000.00; at 31 March consolidated
  1,600,000,000.00, parent 700,000,000.00 → its cap 700,000,000.00.
* H1 interim: cash 250,000,000.01; H1 net profit attributable 250,000,000.00; at 30 June consolidated
  1,650,000,000.00, parent 600,000,000.00 → its cap 600,000,000.00.
* Final: cash 300,000,000.00, against the year end: consolidated 1,500,000,000.00, parent
  300,000,000.00 → its cap 300,000,000.00.
* The year's cash: 100,000,000.00 + 250,000,000.01 + 300,000,000.00 = 650,000,000.01.
"""

from __future__ import annotations

import copy
import datetime as dt
import json

import pytest
import yaml

from conftest import case as make_case
from conftest import cli
from xlmodel.case import parse_case
from xlmodel.errors import CaseError
from xlmodel.evaluator import evaluate, model_for

POLICY = "gcl-energy-2022-2024"
M = 1_000_000

YEAR = {
    "net_profit_attributable": 489_000_000.0, "distributable_profit": 440_100_000.0,
    "retained_earnings_consolidated": 1_500_000_000.0, "retained_earnings_parent": 300_000_000.0,
    "total_assets": 30_000_000_000.0, "planned_major_outlay": 100_000_000.0, "development_stage": "mature",
    "going_concern_unaffected": True, "audit_opinion": "standard_unqualified", "buyback_amount": 0.0,
    "stock_dividend": 0.0, "capital_reserve_conversion": 0.0, "independent_directors_opinion": True,
    "half_year_audit_opinion": "unaudited", "agm_date": dt.date(2025, 5, 20), "payout_date": dt.date(2025, 6, 20),
}
PRIOR = {2022: {"distributable_profit": 611_845_138.87, "cash_dividend": 306_781_780.12},
         2023: {"distributable_profit": 855_092_128.94, "cash_dividend": 205_588_571.24}}
Q1 = {"period": "2024Q1", "cash": 100_000_000.0, "net_profit_attributable": 150_000_000.0,
      "retained_earnings_consolidated": 1_600_000_000.0, "retained_earnings_parent": 700_000_000.0}
H1 = {"period": "2024H1", "cash": 250_000_000.01, "net_profit_attributable": 250_000_000.0,
      "retained_earnings_consolidated": 1_650_000_000.0, "retained_earnings_parent": 600_000_000.0}
FINAL = {"period": "2024", "cash": 300_000_000.0}


def attest() -> dict:
    return {rid: True for rid in model_for(POLICY).attestation_ids()}


def data(items: list | None = None, **year) -> dict:
    """The case as a file holds it: FY2024 with ``distributions`` (the items above by default)."""
    y = {"fiscal_year": 2024, **copy.deepcopy(YEAR), **year}
    if items is not False:
        y["distributions"] = copy.deepcopy(items if items is not None else [Q1, H1, FINAL])
    return {"policy": POLICY, "evaluation_year": 2024, "attestations": attest(),
            "years": [*({"fiscal_year": fy, **v} for fy, v in PRIOR.items()), y]}


def rule(rep, rid):
    r = rep.rule(rid)
    return r.status, r.actual, r.required


# ---- the rules, at the boundary ------------------------------------------------------------------------

def test_h1_a_fen_above_its_periods_profit_warns_by_the_fen_and_names_that_interim():
    rep = evaluate(parse_case(data(), "t.yaml"))
    r = rep.rule("reg_interim_cap")
    # Q1: 100,000,000.00 ≤ 150,000,000.00 (50,000,000.00 to spare); H1: 250,000,000.01 > 250,000,000.00 by 0.01
    assert (r.status, r.actual, r.required, r.shortfall) == ("warn", 250_000_000.01, 250_000_000.00, 0.01)
    assert "250,000,000.01" in r.explanation_zh and "250,000,000.00" in r.explanation_zh
    assert "共 2 次中期分配" in r.explanation_zh and "第 2 次" in r.explanation_zh  # which interim is shown


def test_h1_equal_to_its_periods_profit_passes():
    h1 = {**H1, "cash": 250_000_000.0}
    rep = evaluate(parse_case(data([Q1, h1, FINAL]), "t.yaml"))
    # the least headroom is H1's, 0.00: shown, and it holds
    assert rule(rep, "reg_interim_cap") == ("pass", 250_000_000.00, 250_000_000.00)


def test_a_q1_interim_above_its_quarter_warns_though_the_half_year_covers_it():
    """Each interim against its own period: Q1 150,000,000.01 against Q1's 150,000,000.00 warns, however
    much the half year earned."""
    q1 = {**Q1, "cash": 150_000_000.01}
    rep = evaluate(parse_case(data([q1, {**H1, "cash": 1_000_000.0}, FINAL]), "t.yaml"))
    r = rep.rule("reg_interim_cap")
    assert (r.status, r.actual, r.required, r.shortfall) == ("warn", 150_000_000.01, 150_000_000.00, 0.01)


def test_each_interim_against_its_own_period_ends_retained_earnings():
    rep = evaluate(parse_case(data(), "t.yaml"))
    # Q1: 100,000,000.00 against min(1,600,000,000, 700,000,000) = 700,000,000.00 (600,000,000.00 to spare);
    # H1: 250,000,000.01 against min(1,650,000,000, 600,000,000) = 600,000,000.00 (349,999,999.99): H1 shown
    assert rule(rep, "distribution_cap_interim") == ("pass", 250_000_000.01, 600_000_000.00)
    # H1's parent figure a fen below its distribution: that interim fails by the fen
    over = evaluate(parse_case(data([Q1, {**H1, "retained_earnings_parent": 250_000_000.0}, FINAL]), "t.yaml"))
    r = over.rule("distribution_cap_interim")
    assert (r.status, r.actual, r.required, r.shortfall) == ("fail", 250_000_000.01, 250_000_000.00, 0.01)
    assert over.overall_status == "fail"


def test_the_final_is_the_year_less_every_interim_against_the_year_end():
    rep = evaluate(parse_case(data(), "t.yaml"))
    # 650,000,000.01 − (100,000,000.00 + 250,000,000.01) = 300,000,000.00 against min(1.5e9, 3e8) = 300,000,000.00
    assert rule(rep, "distribution_cap") == ("pass", 300_000_000.00, 300_000_000.00)
    assert rule(rep, "reg_distribution_cap") == ("pass", 300_000_000.00, 300_000_000.00)
    over = evaluate(parse_case(data([Q1, H1, {**FINAL, "cash": 300_000_000.01}]), "t.yaml"))
    assert over.rule("distribution_cap").status == "fail" and over.rule("distribution_cap").shortfall == 0.01


def test_the_years_ratio_reads_the_sum_of_its_distributions():
    c = parse_case(data(), "t.yaml")
    assert c.years[2024]["cash_dividend"] == 650_000_000.01  # 100,000,000.00 + 250,000,000.01 + 300,000,000.00
    rep = evaluate(c)
    # 三、(二)、2、(1): cash ≥ 10% × 440,100,000.00 = 44,010,000.00; the year's cash is the three together
    assert rule(rep, "min_annual") == ("pass", 650_000_000.01, 44_010_000.00)


def test_the_old_single_fields_give_what_a_one_item_list_gives():
    old = data(False, cash_dividend=400_000_000.0, interim_cash_dividend=100_000_000.0,
               half_year_net_profit_attributable=150_000_000.0,
               half_year_retained_earnings_consolidated=1_600_000_000.0,
               half_year_retained_earnings_parent=700_000_000.0)
    new = data([{**Q1, "period": "2024H1"}, FINAL])  # the old fields' period: the half year
    a, b = evaluate(parse_case(old, "old.yaml")), evaluate(parse_case(new, "new.yaml"))
    assert [rule(a, r.id) for r in a.rules] == [rule(b, r.id) for r in b.rules]
    # 400,000,000.00 − 100,000,000.00 = 300,000,000.00: the final at the year end's 300,000,000.00
    assert rule(a, "distribution_cap") == ("pass", 300_000_000.00, 300_000_000.00)
    assert a.overall_status == b.overall_status


def test_without_an_interim_the_slots_do_not_apply_and_ask_for_nothing():
    rep = evaluate(parse_case(data([FINAL]), "t.yaml"))
    for rid, reason in (("reg_interim_cap", "na_no_interim"), ("distribution_cap_interim", "na_no_interim_distribution"),
                        ("cash_share_interim", "na_no_interim_distribution")):
        r = rep.rule(rid)
        assert (r.status, r.reason) == ("not_applicable", reason)


def test_an_interim_made_without_its_periods_figures_is_missing_input_never_a_pass():
    h1 = {k: v for k, v in H1.items() if k != "net_profit_attributable"}
    rep = evaluate(parse_case(data([Q1, h1, FINAL]), "t.yaml"))
    assert rep.rule("reg_interim_cap").status == "missing_input"
    assert rep.overall_status != "pass"


# ---- reading the list ---------------------------------------------------------------------------------

def problems(d) -> list[tuple[str, str]]:
    with pytest.raises(CaseError) as e:
        parse_case(d, "t.yaml")
    return [(p.where, p.message) for p in e.value.problems]


def test_periods_read_as_reports_and_as_period_end_dates():
    d = data([{**Q1, "period": "2024-03-31"}, {**H1, "period": "2024年半年度"}, {**FINAL, "period": "2024-12-31"}])
    y = parse_case(d, "t.yaml").years[2024]
    assert (y["interim_period"], y["interim2_period"]) == ("q1", "h1")
    # given out of order, the interims still fill the slots in period order
    y = parse_case(data([FINAL, H1, Q1]), "t.yaml").years[2024]
    assert (y["interim_period"], y["interim_cash_dividend"], y["interim2_cash_dividend"]) == ("q1", 100 * M, 250_000_000.01)


def test_a_malformed_list_is_refused_naming_the_item_and_its_key():
    got = problems(data([{**Q1, "period": "2023Q1"}, {**H1, "period": "2024Q4"}, {"cash": 1.0},
                         {**FINAL, "cash": -1, "net_profit_attributable": 1.0}, "x"]))
    where = [w for w, _ in got]
    assert where == ["years[2].distributions[0].period (2024)", "years[2].distributions[1].period (2024)",
                     "years[2].distributions[2].period (2024)", "years[2].distributions[3].cash (2024)",
                     "years[2].distributions[3].net_profit_attributable (2024)", "years[2].distributions[4] (2024)"]
    assert "outside the fiscal year 2024" in got[0][1]
    assert "≥ 0" in got[3][1]
    assert problems(data("2024Q1"))[0][0] == "years[2].distributions (2024)"


def test_two_distributions_of_one_period_and_a_list_beside_the_old_fields_are_refused():
    (w, m), = problems(data([Q1, {**Q1, "period": "2024-03-31"}, FINAL]))
    assert w == "years[2].distributions[1] (2024)" and "一季度" in m
    (w, m), *_ = problems(data([Q1, FINAL], interim_cash_dividend=1.0))
    assert w == "years[2].distributions (2024)" and "interim_cash_dividend" in m and "not both" in m


def test_a_list_that_disagrees_with_the_years_total_is_refused():
    (w, m), = problems(data(cash_dividend=650_000_000.0))  # the list adds up to 650,000,000.01
    assert w == "years[2].distributions (2024)"
    assert "650,000,000.01" in m and "650,000,000.00" in m
    assert parse_case(data(cash_dividend=650_000_000.01), "t.yaml").years[2024]["cash_dividend"] == 650_000_000.01


def test_interims_together_above_the_years_total_are_refused_as_fields_too():
    d = data(False, cash_dividend=150 * M, interim_cash_dividend=100 * M, interim2_cash_dividend=100 * M)
    (w, m), = problems(d)
    # each alone within 150,000,000.00; together 200,000,000.00 above it
    assert w == "years[2].cash_dividend (2024)" and "200,000,000.00" in m


def test_a_count_of_distributions_below_what_the_amounts_show_is_refused():
    (w, m), = problems(data(distribution_count=2))  # two interims and a final: three
    assert w == "years[2].distribution_count (2024)" and "共 3 次" in m
    assert parse_case(data(distribution_count=3), "t.yaml").years[2024]["distribution_count"] == 3


# ---- every face ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("h1_cash, status", [(250_000_000.00, "pass"), (250_000_000.01, "warn")])
def test_the_interim_cap_in_the_cli_json_the_batch_and_the_udfs(h1_cash, status, tmp_path, capsys):
    from xlmodel import udfs
    from xlmodel.batch.evaluate import evaluate_batch
    from xlmodel.synth import cases_frame

    d = data([Q1, {**H1, "cash": h1_cash}, FINAL])
    path = tmp_path / "two-interims.yaml"
    path.write_text(yaml.safe_dump(d, allow_unicode=True), encoding="utf-8")
    _code, out, _ = cli(capsys, "evaluate", "--json", path)
    (got,) = json.loads(out)
    r = next(r for r in got["rules"] if r["id"] == "reg_interim_cap")
    assert (r["status"], r["actual"], r["required"]) == (status, h1_cash, 250_000_000.00)
    c = parse_case(d, "t.yaml")
    row = evaluate_batch(cases_frame([c])).set_index("fiscal_year").loc[2024]
    assert (row["reg_interim_cap.status"], row["reg_interim_cap.actual"]) == (status, h1_cash)
    years = c.years
    fids = sorted({f for v in years.values() for f in v})
    values = [[years[y].get(f) for y in sorted(years)] for f in fids]
    args = (POLICY, 2024, fids, sorted(years), values, None, None, list(attest()), list(attest().values()))
    assert udfs.XLM_RULE_STATUS("reg_interim_cap", *args) == {"pass": "通过", "warn": "警告"}[status]
    assert udfs.XLM_RULE_STATUS("distribution_cap_interim", *args) == "通过"


BOOKS = {  # name: (the distributions, reg_interim_cap, distribution_cap_interim)
    "h1_exact": ([Q1, {**H1, "cash": 250_000_000.0}, FINAL], "pass", "pass"),
    "h1_fen_over": ([Q1, H1, FINAL], "warn", "pass"),
    "h1_retained_fen_over": ([Q1, {**H1, "retained_earnings_parent": 250_000_000.0}, FINAL], "warn", "fail"),
    "three_interims": ([Q1, {**H1, "cash": 1.0}, {**Q1, "period": "2024Q3", "cash": 2.0}, FINAL], "pass", "pass"),
}


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_the_slots_in_real_engines(engine, request, tmp_path):
    from conftest import engine_values
    from xlmodel.engines.parity import compare
    from xlmodel.workbook.writer import build_workbook

    request.getfixturevalue(engine)
    built = []
    for name, (items, cap, retained) in BOOKS.items():
        c = parse_case(data(items), name)
        rep = evaluate(c)
        assert (rep.rule("reg_interim_cap").status, rep.rule("distribution_cap_interim").status) == (cap, retained)
        built.append((c, build_workbook(tmp_path / f"{name}.xlsx", case=c)))
    theirs = engine_values(engine, [p for _, p in built], tmp_path / engine)
    compared = [compare(engine, c, p, None, theirs_values=theirs[p.name]) for c, p in built]
    assert not [c.name for c in compared if c.aside]
    assert not [str(m) for c in compared for m in c.differences]
    assert all(c.cells for c in compared)


def test_make_case_reads_the_slots_as_fields():
    """The test helper's years (fields, no list) read the second slot as the list does."""
    years = {2024: {**YEAR, "cash_dividend": 400 * M, "interim_cash_dividend": 50 * M, "interim2_cash_dividend": 50 * M,
                    "half_year_net_profit_attributable": 60 * M, "interim2_net_profit_attributable": 49_999_999.99,
                    "half_year_retained_earnings_consolidated": 1e9, "half_year_retained_earnings_parent": 1e9,
                    "interim2_retained_earnings_consolidated": 1e9, "interim2_retained_earnings_parent": 1e9},
             **PRIOR}
    r = evaluate(make_case(POLICY, 2024, years, attest())).rule("reg_interim_cap")
    # the second: 50,000,000.00 against 49,999,999.99: over by 0.01
    assert (r.status, r.actual, r.required, r.shortfall) == ("warn", 50_000_000.00, 49_999_999.99, 0.01)
