"""The cash share checked per distribution (现金分红在本次利润分配中所占比例), when a year has an
interim and a final distribution.

The plans word the stage table on "本次利润分配" (this distribution), and Houpu on "进行利润分配时，
现金分红在利润分配中所占比例" (each time a distribution is made): each distribution has its own
share. The interim's figures are its own inputs (``interim_cash_dividend``, ``interim_stock_dividend``,
both included in the year's totals); the final's are the year's less the interim's, counted
buybacks with the final. The final's minimum is the year's cash: the interim paid plus the cash
the final needs (DOMAIN.md §4: S·s/(1−s)). A plan that words the share on the year's
distributions (当年利润分配) keeps the year reading (``distribution: year``).

Every expected number is worked out by hand next to it. Amounts in 元.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from xlmodel.draft import draft_text
from xlmodel.errors import CaseError, PolicyError
from xlmodel.fields import FIELDS
from xlmodel.plans.loading import load_policy_file

from conftest import run
from test_gcl import BASE_ATTEST, BASE_YEARS, YEAR

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
GCL = "gcl-energy-2022-2024"
HOUPU = "houpu-2024-2026"
M = 1_000_000.0


def gcl(**year):
    """GCL 2023, mature stage, no major outlay (80%), with the year's changes."""
    years = copy.deepcopy(BASE_YEARS)
    years[YEAR].update(year)
    return run(GCL, YEAR, years, dict(BASE_ATTEST))


# ---------------------------------------------------------------------------
# the final distribution: the year's figures less the interim's
# ---------------------------------------------------------------------------

def test_a_cash_interim_leaves_the_final_to_meet_the_share_alone():
    # interim 200m cash; the final 300m cash + 100m stock: 300 / 400 = 75% < 80%
    # the final needs 100m × 0.8 / 0.2 = 400m; short 100m. The year's minimum: 200m paid + 400m = 600m.
    # On the year's totals the share would be 500 / 600 = 83%: a pass the plan's wording does not allow.
    rep = gcl(cash_dividend=500 * M, interim_cash_dividend=200 * M, stock_dividend=100 * M)
    r = rep.rule("cash_share")
    assert (r.status, r.actual, r.required, r.shortfall) == ("fail", 300 * M, 400 * M, 100 * M)
    assert rep.min_cash_dividend == 600 * M
    i = rep.rule("cash_share_interim")
    assert (i.status, i.actual, i.required) == ("pass", 200 * M, 0.0)  # all cash: 100%


@pytest.mark.parametrize("cash, status, shortfall", [
    (600 * M, "pass", 0.0),           # final 400m cash against 400m
    (600 * M - 0.01, "fail", 0.01),   # a fen below
])
def test_the_final_share_at_its_boundary(cash, status, shortfall):
    rep = gcl(cash_dividend=cash, interim_cash_dividend=200 * M, stock_dividend=100 * M)
    r = rep.rule("cash_share")
    assert (r.status, r.required, r.shortfall) == (status, 400 * M, shortfall)


def test_counted_buybacks_go_with_the_final():
    # GCL counts bidding buybacks as cash: final cash = 500m + 50m − 200m = 350m against 400m: short 50m
    rep = gcl(cash_dividend=500 * M, buyback_amount=50 * M, interim_cash_dividend=200 * M, stock_dividend=100 * M)
    r = rep.rule("cash_share")
    assert (r.actual, r.required, r.shortfall) == (350 * M, 400 * M, 50 * M)
    assert rep.min_cash_dividend == 600 * M  # cash incl. counted buybacks, as every minimum


def test_the_final_rounds_to_the_fen_like_every_requirement():
    # mature with a major outlay (40%): final stock 100.00 − 0 → 100 × 0.4 / 0.6 = 66.666… → 66.67
    rep = gcl(cash_dividend=70.0, interim_cash_dividend=3.33, stock_dividend=100.0, planned_major_outlay=300 * M)
    r = rep.rule("cash_share")
    assert (r.actual, r.required, r.status) == (66.67, 66.67, "pass")  # 70.00 − 3.33
    assert rep.min_cash_dividend == 70.0  # 3.33 + 66.67


def test_without_an_interim_the_final_is_the_whole_year():
    rep = gcl(cash_dividend=400 * M, stock_dividend=100 * M)
    assert (rep.rule("cash_share").status, rep.rule("cash_share").required) == ("pass", 400 * M)
    i = rep.rule("cash_share_interim")
    assert (i.status, i.reason) == ("not_applicable", "na_no_interim_distribution")


def test_an_interim_only_year_has_no_final_distribution():
    rep = gcl(cash_dividend=30 * M, interim_cash_dividend=30 * M)
    r = rep.rule("cash_share")
    assert (r.status, r.reason) == ("not_applicable", "na_no_final_distribution")
    assert rep.rule("cash_share_interim").status == "pass"
    # a final that needs no cash adds nothing: the minimum is the annual 10% × 100,000,000 = 10,000,000
    # (rolling: 30% × (60m + 80m + 100m) / 3 = 24m, less 40m paid before: 0), not the 30m interim
    assert rep.min_cash_dividend == 10 * M


def test_a_buyback_alone_is_no_final_distribution():
    # counted buybacks are cash of the final distribution, but a year with only a buyback distributes nothing
    r = gcl(cash_dividend=0.0, buyback_amount=10 * M).rule("cash_share")
    assert (r.status, r.reason) == ("not_applicable", "na_no_final_distribution")
    # an interim-only year with a buyback: still no final distribution
    rep = gcl(cash_dividend=30 * M, interim_cash_dividend=30 * M, buyback_amount=10 * M)
    assert (rep.rule("cash_share").status, rep.rule("cash_share").reason) == ("not_applicable", "na_no_final_distribution")
    # with a final stock dividend, the buyback is the final's cash: 10m + (30m − 30m) against 5m × 0.8 / 0.2 = 20m
    r = gcl(cash_dividend=30 * M, interim_cash_dividend=30 * M, buyback_amount=10 * M, stock_dividend=5 * M).rule("cash_share")
    assert (r.status, r.actual, r.required, r.shortfall) == ("fail", 10 * M, 20 * M, 10 * M)


def test_the_years_minimum_is_rounded_to_the_fen():
    # interim 0.10; the final's stock 0.05 at 80% needs 0.05 × 0.8 / 0.2 = 0.20; 0.10 + 0.20 in binary is
    # 0.30000000000000004: the minimum is 0.30, and a year paying exactly 0.30 passes
    rep = gcl(cash_dividend=0.30, interim_cash_dividend=0.10, stock_dividend=0.05, distributable_profit=0.0)
    assert rep.rule("cash_share").required == 0.20
    assert rep.min_cash_dividend == 0.30
    assert rep.rule("cash_share").status == "pass"


def test_an_interim_stock_dividend_without_the_stage_is_missing_input():
    rep = gcl(development_stage=None, cash_dividend=50 * M, interim_cash_dividend=10 * M,
              stock_dividend=5 * M, interim_stock_dividend=5 * M)
    i = rep.rule("cash_share_interim")
    assert i.status == "missing_input" and any(m.startswith("development_stage") for m in i.missing_inputs)
    # the final has no stock dividend: 100% cash, its share needs neither the stage nor the outlay
    assert rep.rule("cash_share").status == "pass"


# ---------------------------------------------------------------------------
# an interim above its year's total is refused, wherever the figures come from
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("part, total", [("interim_cash_dividend", "cash_dividend"),
                                         ("interim_stock_dividend", "stock_dividend")])
def test_an_interim_above_the_years_total_is_refused_in_a_case(part, total):
    with pytest.raises(CaseError) as e:
        gcl(**{total: 30 * M, part: 40 * M})
    ((where, message),) = [(p.where, p.message) for p in e.value.problems]
    assert where == f"years[2].{part} (2023)"
    assert message.startswith(f"高于本年度{FIELDS[total].zh}（{total}）（30,000,000.00）")  # Chinese first
    assert message.endswith(f"above the year's {total} (30,000,000.00): the interim is part of the year's "
                            f"total (enter the year's {total} with the interim included)")
    gcl(**{total: 40 * M, part: 40 * M})  # equal: the whole year's amount paid as an interim


def test_an_interim_above_the_years_total_is_refused_in_a_batch():
    from xlmodel.batch.evaluate import evaluate_batch
    from xlmodel.synth import cases_frame, parity_cases
    df = cases_frame(parity_cases(GCL, 3))
    df["interim_cash_dividend"] = 0.0
    bad = df.index[df["fiscal_year"] == 2024][1]
    df.loc[bad, "interim_cash_dividend"] = df.loc[bad, "cash_dividend"] + 0.01
    with pytest.raises(CaseError) as e:
        evaluate_batch(df)
    assert [p.where for p in e.value.problems] == [f"第{bad + 2}行 row {bad + 2}, interim_cash_dividend"]
    assert "above the year's cash_dividend" in e.value.problems[0].message


def test_an_interim_above_the_years_total_is_refused_in_a_workbook(tmp_path):
    from hostile_corpus import SAMPLE, Book
    from xlmodel.case import load_case
    from xlmodel.workbook.reader import WorkbookError, read_workbook
    from xlmodel.workbook.writer import build_workbook
    src = build_workbook(tmp_path / "gcl.xlsx", case=load_case(SAMPLE))
    book = Book(src)
    where = book.set_input("in_interim_stock_dividend", 1e15 - 1)
    with pytest.raises(WorkbookError) as e:
        read_workbook(book.save(tmp_path / "edited.xlsx"))
    assert [p.where for p in e.value.problems] == [where]
    assert e.value.problems[0].message.startswith("interim_stock_dividend: 高于本年度股票股利金额（stock_dividend）")
    assert "above the year's stock_dividend" in e.value.problems[0].message


# ---------------------------------------------------------------------------
# the interim distribution: its own cash and stock
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("interim_cash, status, shortfall", [
    (40 * M, "pass", 0.0),            # 10m stock × 0.8 / 0.2 = 40m: exactly 80%
    (40 * M - 0.01, "fail", 0.01),
])
def test_an_interim_with_a_stock_dividend_meets_the_share_on_its_own(interim_cash, status, shortfall):
    rep = gcl(cash_dividend=interim_cash + 400 * M, interim_cash_dividend=interim_cash,
              stock_dividend=110 * M, interim_stock_dividend=10 * M)
    i = rep.rule("cash_share_interim")
    assert (i.status, i.actual, i.required, i.shortfall) == (status, interim_cash, 40 * M, shortfall)
    # the final: 400m cash, 100m stock → needs 400m: passes whatever the interim did
    assert (rep.rule("cash_share").status, rep.rule("cash_share").required) == ("pass", 400 * M)
    # the interim is paid: the year's minimum is the interim's cash plus the final's need
    assert rep.min_cash_dividend == interim_cash + 400 * M


def test_the_interim_reads_the_final_rules_table():
    # growth stage without a major outlay: the table prescribes nothing, for the interim as for the final
    rep = gcl(development_stage="growth", cash_dividend=30 * M, interim_cash_dividend=10 * M,
              stock_dividend=20 * M, interim_stock_dividend=5 * M)
    for rid in ("cash_share", "cash_share_interim"):
        assert (rep.rule(rid).status, rep.rule(rid).reason) == ("not_applicable", "na_no_prescribed_share")


def test_houpu_fixed_share_per_distribution():
    # Houpu: 20%, nested under the conditions. Interim 1m cash + 8m stock: needs 8m × 0.2 / 0.8 = 2m
    from test_houpu import BASE_YEARS as HY, YEAR as HYEAR, BASE_ATTEST as HA
    years = copy.deepcopy(HY)
    years[HYEAR].update(cash_dividend=11 * M, interim_cash_dividend=1 * M, stock_dividend=48 * M,
                        interim_stock_dividend=8 * M)
    rep = run(HOUPU, HYEAR, years, dict(HA))
    i = rep.rule("cash_share_interim")
    assert (i.status, i.actual, i.required, i.shortfall) == ("fail", 1 * M, 2 * M, 1 * M)
    f = rep.rule("cash_share")  # final: 10m cash, 40m stock → 40 × 0.2 / 0.8 = 10m: exactly met
    assert (f.status, f.actual, f.required) == ("pass", 10 * M, 10 * M)


def test_one_parameter_serves_both_distributions():
    # the thresholds are the final rule's: changing them (as on the parameter sheet) moves both
    years = copy.deepcopy(BASE_YEARS)
    years[YEAR].update(cash_dividend=80 * M, interim_cash_dividend=40 * M, stock_dividend=110 * M,
                       interim_stock_dividend=10 * M)
    from conftest import case
    from xlmodel.evaluator import evaluate
    rep = evaluate(case(GCL, YEAR, years, dict(BASE_ATTEST)), baseline=False,
                   params={"cash_share.mature_no_major": 0.5})
    # 50%: the interim needs 10m × 0.5 / 0.5 = 10m, the final 100m
    assert rep.rule("cash_share_interim").required == 10 * M
    assert rep.rule("cash_share").required == 100 * M


# ---------------------------------------------------------------------------
# the year reading, and the policy file's checks
# ---------------------------------------------------------------------------

def _gcl_with_share(tmp_path, **changes):
    """GCL's policy file with its share rules changed, written beside the plan text and loaded."""
    data = yaml.safe_load(open(TEMPLATES / "gcl-energy-2022-2024.yaml", encoding="utf-8"))
    rules = data["rules"]
    final = next(r for r in rules if r["id"] == "cash_share")
    final.update(changes.pop("final", {}))
    for k, v in changes.pop("interim", {}).items():
        nxt = next(r for r in rules if r["id"] == "cash_share_interim")
        if v is None:
            nxt.pop(k, None)
        else:
            nxt[k] = v
    if changes.pop("drop_interim", False):
        data["rules"] = [r for r in rules if r["id"] != "cash_share_interim"]
        for e in data["clauses"].values():
            if "cash_share_interim" in e.get("rules", []):
                e["rules"].remove("cash_share_interim")
    data["text"] = None
    path = tmp_path / "gcl-variant.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return load_policy_file(path)


def test_the_year_reading_checks_the_years_totals(tmp_path):
    # distribution: year (a plan worded on 当年利润分配): 500m cash against 100m stock → 83%: passes
    p = _gcl_with_share(tmp_path, final={"distribution": "year"}, drop_interim=True)
    from conftest import case
    from xlmodel.evaluator import evaluate
    years = copy.deepcopy(BASE_YEARS)
    years[YEAR].update(cash_dividend=500 * M, interim_cash_dividend=200 * M, stock_dividend=100 * M)
    rep = evaluate(case(GCL, YEAR, years, dict(BASE_ATTEST)), p, baseline=False)
    r = rep.rule("cash_share")
    assert (r.status, r.actual, r.required) == ("pass", 500 * M, 400 * M)
    assert rep.min_cash_dividend == 400 * M


@pytest.mark.parametrize("changes, where, says", [
    ({"drop_interim": True}, "rule 'cash_share', field 'distribution'", "needs exactly one interim rule"),
    ({"interim": {"share_from": "min_annual"}}, "rule 'cash_share_interim', field 'share_from'",
     "is not a cash_share rule with distribution: final"),
    ({"final": {"distribution": "year"}}, "rule 'cash_share_interim', field 'share_from'",
     "is not a cash_share rule with distribution: final"),
])
def test_a_share_per_distribution_is_a_pair(tmp_path, changes, where, says):
    with pytest.raises(PolicyError) as e:
        _gcl_with_share(tmp_path, **changes)
    assert any(p.where == where and says in p.message for p in e.value.problems), e.value.problems


@pytest.mark.parametrize("interim", [{"share": 0.2}, {"share_from": None}])
def test_an_interim_rule_has_no_thresholds_of_its_own(tmp_path, interim):
    with pytest.raises(PolicyError) as e:
        _gcl_with_share(tmp_path, interim=interim)
    assert any("share_from" in p.message for p in e.value.problems), e.value.problems


# ---------------------------------------------------------------------------
# the drafter reads the wording
# ---------------------------------------------------------------------------

_TEXT = """某某股份有限公司未来三年股东分红回报规划
一、利润分配政策
1、公司进行利润分配时，现金分红在{where}利润分配中所占比例最低应达到20%。
"""


def _shares(where: str) -> list[dict]:
    rules = draft_text(_TEXT.format(where=where)).policy["rules"]
    return [r for r in rules if r["kind"] == "cash_share"]


@pytest.mark.parametrize("where", ["本次", "该次", "单次", "", "年度"])
def test_a_draft_checks_each_distribution_unless_the_whole_year_is_named(where):
    d = draft_text(_TEXT.format(where=where))
    rules = [r for r in d.policy["rules"] if r["kind"] == "cash_share"]
    assert [(r["id"], r.get("distribution"), r.get("share_from"), r.get("share")) for r in rules] == [
        ("cash_share", "final", None, 0.2), ("cash_share_interim", "interim", "cash_share", None)]
    # 年度利润分配 is the annual (final) distribution: whether the interim is bound too is for a reader
    assert [w for w, why in d.reviews if "年度利润分配" in why] == (["一、1"] if where == "年度" else [])


@pytest.mark.parametrize("where", ["当年", "全年"])
def test_a_draft_keeps_the_year_reading_where_the_plan_names_the_whole_year(where):
    rules = _shares(where)
    assert [(r["id"], r.get("distribution", "year")) for r in rules] == [("cash_share", "year")]


def test_a_workbook_stops_an_interim_above_its_total_at_entry(tmp_path):
    """Data validation on each interim row: a number, at most the same column's year total, and the year's
    interims together (the first, second and third slots) at most it too."""
    import openpyxl

    from hostile_corpus import SAMPLE
    from xlmodel.case import load_case
    from xlmodel.workbook.writer import build_workbook
    book = build_workbook(tmp_path / "gcl.xlsx", case=load_case(SAMPLE))
    ws = openpyxl.load_workbook(book)["输入"]
    row = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
    rules = {str(dv.sqref): dv.formula1 for dv in ws.data_validations.dataValidation if dv.type == "custom"}
    for part, total, others in (("interim_cash_dividend", "cash_dividend", ("interim2_cash_dividend", "interim3_cash_dividend")),
                                ("interim_stock_dividend", "stock_dividend",
                                 ("interim2_stock_dividend", "interim3_stock_dividend"))):
        p, t, (p2, p3) = row[part], row[total], (row[o] for o in others)
        assert rules[f"E{p}:I{p}"] == f"AND(ISNUMBER(E{p}),E{p}<=E{t},E{p}+N(E{p2})+N(E{p3})<=E{t})"
        assert rules[f"E{p2}:I{p2}"] == f"AND(ISNUMBER(E{p2}),E{p2}<=E{t},N(E{p})+E{p2}+N(E{p3})<=E{t})"
