"""`xlmodel draft` reads the wording real plans use (issue 22, "What it must read" and "What it must never do").

Each class of wording the drafter missed, on wording quoted in ../shared/real-plans/plans.yaml (the plan named
beside it) or written in the manner of the CSRC Guideline No. 3 template, with the rules worked out by hand:

* conditions outside a list headed 条件 — under 前提条件 and like headings, as a sentence, in numbered items;
* cases that waive the cash dividend (存在以下情形之一时，公司可以不实施现金分红), each drafted as a condition, its
  negation: 资产负债率高于70% → liabilities ≤ 70% of assets; 为负 → ≥ 0; 低于注册资本的10% → ≥ 10% of it;
* fixed amounts, alternatives and their closing words (满足其一, 孰低, 孰高), amounts in 万元 and 亿元;
* the ratio's basis named in full, per-share floors (每股 and 每10股), ratios promised for named years only;
* caps in other words; a plan in traditional characters;
* never silent: a sentence with a number, a comparison or a condition word nothing read is a review item; each
  rule quotes its own words; each clause's note is its own; the summary counts what it lists;
* a review item says what to write: its suggested rule, pasted in, passes ``xlmodel policies check``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import case
from test_draft import DATA, load_policy_file_from, only, plan, reviewed, rules_of, run_cli
from xlmodel.draft import draft_text
from xlmodel.evaluator import evaluate
from xlmodel.plans.loading import load_policy_file


def reading(rule: dict) -> dict:
    """A drafted rule without what only names or places it."""
    return {k: v for k, v in rule.items() if k not in ("id", "quote", "title_zh", "title_en", "note", "clause")}


def doc(*lines: str) -> str:
    """A plan text of the lines given, under a title naming the plan years (2025–2027)."""
    return "示例公司未来三年（2025-2027年）股东分红回报规划\n" + "\n".join(lines) + "\n"


def readings(text: str) -> list[tuple[str, dict]]:
    return [(r["clause"], reading(r)) for r in rules_of(text) if not (r["kind"] == "attestation" and "field" not in r)]


# ---- conditions outside a list headed 条件 -----------------------------------------------------------

_ITEMS = ("1、公司该年度实现的可分配利润为正值；\n2、审计机构对公司该年度财务报告出具标准无保留意见的审计报告；\n"
          "3、公司无重大投资计划或重大现金支出等事项发生（募集资金项目除外）。\n")
_THREE = [("positive", {"measure": "distributable_profit"}), ("audit_opinion", {"accepted": ["standard_unqualified"]}),
          ("no_major_outlay", {})]


@pytest.mark.parametrize("head", [
    "（一）现金分红的前提条件\n",
    "（一）实施现金分红应具备的前提条件\n",
    "（一）公司实施现金分红应当满足的基本条件\n",
    "（一）利润分配\n实施现金分红须同时满足以下前提：\n",
])
def test_conditions_under_other_headings(head):
    text = doc("一、利润分配政策", head + _ITEMS + "（二）在满足现金分红前提条件的情况下，公司每年以现金方式分配的利润不少于当年实现的"
               "可分配利润的15%。")
    got = readings(text)
    for i, (kind, params) in enumerate(_THREE, start=1):
        assert (f"一、(一)、{i}", {"kind": kind, **params}) in got, got
    assert ("一、(二)", {"kind": "min_cash", "components": [{"type": "pct", "ratio": 0.15, "basis": "distributable_profit"}],
                       "when": "conditions_met"}) in got
    assert reviewed(text) == {}
    assert load_policy_file_from(text).major_outlay.definition == "board"  # no definition in the text


@pytest.mark.parametrize("sentence, expect", [
    # the issue's own example: a condition and the duty to pay cash when it holds (no share in the sentence)
    ("公司当年盈利的，应当进行现金分红。",
     [{"kind": "positive", "measure": "net_profit_attributable"}, {"kind": "cash_paid", "when": "conditions_met"}]),
    # 在年度盈利且累计未分配利润大于零的情况下 (plans.yaml), with 应当
    ("公司在年度盈利且累计未分配利润大于零的情况下，应当进行现金分红。",
     [{"kind": "positive", "measure": "net_profit_attributable"}, {"kind": "positive", "measure": "retained"},
      {"kind": "cash_paid", "when": "conditions_met"}]),
    # the share follows in the sentence: it is the duty (no cash_paid besides it)
    ("公司当年实现的可分配利润为正且审计机构出具标准无保留意见的，每年以现金方式分配的利润不少于当年实现的可分配利润的10%。",
     [{"kind": "positive", "measure": "distributable_profit"}, {"kind": "audit_opinion", "accepted": ["standard_unqualified"]},
      {"kind": "min_cash", "components": [{"type": "pct", "ratio": 0.1, "basis": "distributable_profit"}], "when": "conditions_met"}]),
    # 分红条件为……为正，且……亦为正数；及公司的现金流能够满足…… (plans.yaml)
    ("分红条件为公司当期归属于上市公司股东的净利润为正，且累计未分配利润亦为正数；及公司的现金流能够满足正常经营活动及持续发展的资金需求。",
     [{"kind": "positive", "measure": "net_profit_attributable"}, {"kind": "positive", "measure": "retained"},
      {"kind": "judgment", "field": "cash_flow_sufficient"}]),
    # 如无重大投资计划或重大现金支出计划等事项，公司应采取现金方式分配股利 (plans.yaml): opened by 如, closed by the comma
    ("如无重大投资计划或重大现金支出计划等事项，公司应采取现金方式分配股利。",
     [{"kind": "no_major_outlay"}, {"kind": "cash_paid", "when": "conditions_met"}]),
    # 采取现金方式分配股利 without 应当 states the frame, not a duty of its own (as tests/test_draft.py reads it)
    ("在公司当年盈利且累计未分配利润为正值的前提下，公司采取现金方式分配股利。",
     [{"kind": "positive", "measure": "net_profit_attributable"}, {"kind": "positive", "measure": "retained"}]),
])
def test_conditions_in_a_sentence(sentence, expect):
    text = plan(sentence)
    got = [g for _, g in readings(text)]
    assert sorted(got, key=repr) == sorted(expect, key=repr)
    assert reviewed(text) == {}


def test_an_inline_list_ends_with_its_sentence():
    """``……下列条件：A；B。`` then the minimum in the same clause: the list is the sentence, the minimum is read."""
    text = plan("公司实施现金分红应同时满足下列条件：公司当年盈利；公司累计未分配利润为正值。在满足上述条件的情况下，"
                "公司每年以现金方式分配的利润不少于当年实现的可分配利润的30%。")
    got = [g for _, g in readings(text)]
    assert sorted(got, key=repr) == sorted([
        {"kind": "positive", "measure": "net_profit_attributable"}, {"kind": "positive", "measure": "retained"},
        {"kind": "min_cash", "components": [{"type": "pct", "ratio": 0.3, "basis": "distributable_profit"}],
         "when": "conditions_met"}], key=repr)
    assert reviewed(text) == {}


def test_conditions_in_plain_numbered_items():
    """Items that state nothing but conditions, under a heading that does not say 条件, are the conditions; the
    same words under 股票股利的条件 are not read as the cash dividend's (they are reviewed)."""
    text = doc("一、利润分配政策", "（一）现金分红", "1、公司该年度实现的可分配利润为正值；",
               "2、审计机构对公司该年度财务报告出具标准无保留意见的审计报告；", "3、公司累计可供分配利润为正值。",
               "（二）在满足上述条件时，公司每年以现金方式分配的利润不少于当年实现的可分配利润的20%。",
               "（三）股票股利的条件", "1、公司经营情况良好；", "2、公司累计可供分配利润为正值。")
    got = readings(text)
    assert ("一、(一)、1", {"kind": "positive", "measure": "distributable_profit"}) in got
    assert ("一、(一)、2", {"kind": "audit_opinion", "accepted": ["standard_unqualified"]}) in got
    assert ("一、(一)、3", {"kind": "positive", "measure": "retained"}) in got
    assert not [c for c, _ in got if c.startswith("一、(三)")]
    assert set(reviewed(text)) == {"一、(三)、2"}


# ---- cases that waive the cash dividend ------------------------------------------------------------------

def test_a_list_of_cases_and_a_sentence_case():
    text = (DATA / "exemptions.txt").read_text(encoding="utf-8")
    d = draft_text(text)
    got = [(r["clause"], reading(r)) for r in d.policy["rules"]]
    want = [
        ("二、(一)", {"kind": "positive", "measure": "net_profit_attributable"}),
        ("二、(一)", {"kind": "positive", "measure": "retained"}),
        ("二、(一)", {"kind": "cash_paid", "when": "conditions_met"}),
        # 为负 → not negative; 达到或超过65% → below 65%; 带强调事项段……或非无保留 → the standard opinion only
        ("二、(二)、1", {"kind": "compare", "measure": "operating_cash_flow", "op": ">=", "amount": 0}),
        ("二、(二)、2", {"kind": "compare", "measure": "total_liabilities", "op": "<", "ratio": 0.65, "of": "total_assets"}),
        ("二、(二)、4", {"kind": "audit_opinion", "accepted": ["standard_unqualified"]}),
        ("二、(二)、5", {"kind": "no_major_outlay"}),
        ("二、(三)", {"kind": "min_cash", "components": [{"type": "pct", "ratio": 0.2, "basis": "distributable_profit"},
                                                      {"type": "fixed", "amount": 30_000_000}],
                     "combine": "lower_of", "when": "conditions_met"}),  # 两者满足其一即可: either, not reviewed
        # 若……低于……净利润的30%，公司可以不实施现金分红 → at least 30% of it
        ("二、(四)", {"kind": "compare", "measure": "operating_cash_flow", "op": ">=", "ratio": 0.3,
                     "of": "net_profit_attributable"}),
    ]
    assert sorted(got, key=repr) == sorted(want, key=repr)
    assert d.policy["major_outlay"] == {"clause": "二、(二)、5", "quote": d.policy["major_outlay"]["quote"],
                                        "definition": "formula", "basis": "net_assets", "ratio": 0.3, "floor": 80_000_000,
                                        "combine": "and"}
    # 流动比率: no field; said, with the rule to write (a condition the board confirms)
    assert [w for w, _ in d.reviews] == ["二、(二)、3"]
    (where, reason, rule), = d.suggestions
    assert (where, rule["kind"], rule["role"], rule["quote"]) == ("二、(二)、3", "attestation", "condition", "当年年末经审计的流动比率低于1")
    assert rule["id"] in reason


def _exemption_case(**year) -> dict:
    base = {"net_profit_attributable": 200_000_000, "retained_earnings_consolidated": 500_000_000,
            "retained_earnings_parent": 500_000_000, "distributable_profit": 180_000_000, "operating_cash_flow": 90_000_000,
            "total_liabilities": 600_000_000, "total_assets": 1_000_000_000, "net_assets": 400_000_000,
            "audit_opinion": "standard_unqualified", "planned_major_outlay": 0, "cash_dividend": 36_000_000}
    return {**base, **year}


@pytest.mark.parametrize("year, met", [
    ({}, True),
    ({"total_liabilities": 650_000_000}, False),  # exactly 65%: 达到或超过 it waives the dividend
    ({"total_liabilities": 649_999_999.99}, True),
    ({"operating_cash_flow": -0.01}, False),  # negative
    ({"operating_cash_flow": 0}, True),  # 0 is not negative, and 0 ≥ 30% × … fails: see the next
    ({"operating_cash_flow": 59_999_999.99}, False),  # below 30% × 200,000,000 = 60,000,000
    ({"audit_opinion": "unqualified_with_emphasis"}, False),
    ({"planned_major_outlay": 120_000_000.01}, False),  # ≥ 30% × 400,000,000 = 120,000,000 and > 80,000,000
])
def test_each_case_waives_the_minimum(tmp_path, year, met):
    src = tmp_path / "plan.txt"
    src.write_bytes((DATA / "exemptions.txt").read_bytes())
    code, err = run_cli("draft", src, "-o", tmp_path / "ex-2026-2028.yaml")
    assert code == 0, err
    policy = load_policy_file(tmp_path / "ex-2026-2028.yaml")
    if year == {"operating_cash_flow": 0}:
        year = {"operating_cash_flow": 60_000_000}  # the least that meets 二、(四) (and is not negative)
    rep = evaluate(case(policy.id, 2026, {2026: _exemption_case(**year)}), policy, baseline=False)
    assert rep.cash_conditions_met is met
    minimum = next(r for r in rep.rules if r.id == "min_annual")
    # lower of 20% × 180,000,000 = 36,000,000 and 30,000,000: 30,000,000 when the conditions hold
    assert (minimum.status, minimum.required) == (("pass", 30_000_000) if met else ("not_applicable", minimum.required))


@pytest.mark.parametrize("text_, expect", [
    ("出现以下情况之一时，公司当年可以不进行现金分红：公司当年亏损；公司期末累计未分配利润为负；"
     "公司当年经营活动现金流量净额低于当年归属于上市公司股东的净利润的30%。",
     [{"measure": "net_profit_attributable", "op": ">=", "amount": 0}, {"measure": "retained", "op": ">=", "amount": 0},
      {"measure": "operating_cash_flow", "op": ">=", "ratio": 0.3, "of": "net_profit_attributable"}]),
    ("若公司当年经营活动产生的现金流量净额为负数，公司可以不实施现金分红。",
     [{"measure": "operating_cash_flow", "op": ">=", "amount": 0}]),
    ("公司年末资产负债率高于70%的，当年可以不进行现金分红。",
     [{"measure": "total_liabilities", "op": "<=", "ratio": 0.7, "of": "total_assets"}]),
    # no share: all of it (≥ 1 × the year's distributable profit)
    ("公司当年经营活动产生的现金流量净额低于当年实现的可分配利润的，可以不进行现金分红。",
     [{"measure": "operating_cash_flow", "op": ">=", "ratio": 1, "of": "distributable_profit"}]),
    # 002301 齐心集团: 或 between two cases is neither of them
    ("资产负债率高于80%或经营现金流净额低于注册资本20%，可不分利润。",
     [{"measure": "total_liabilities", "op": "<=", "ratio": 0.8, "of": "total_assets"},
      {"measure": "operating_cash_flow", "op": ">=", "ratio": 0.2, "of": "registered_capital"}]),
])
def test_cases_in_a_sentence(text_, expect):
    text = plan(text_)
    got = [{k: v for k, v in reading(r).items() if k != "kind"} for r in rules_of(text, "compare")]
    assert sorted(got, key=repr) == sorted(expect, key=repr)
    assert reviewed(text) == {}


def test_a_heading_of_cases_and_a_case_nothing_reads():
    text = doc("一、利润分配", "（一）公司可以不进行现金分红的情形", "1、公司期末资产负债率超过80%；",
               "2、公司未来十二个月内有重大投资计划或重大现金支出（募集资金项目除外）。",
               "（二）公司每年以现金方式分配的利润不少于当年实现的可分配利润的15%。", "（三）公司董事会认为必要时，可以不进行现金分红。")
    got = readings(text)
    assert ("一、(一)、1", {"kind": "compare", "measure": "total_liabilities", "op": "<=", "ratio": 0.8, "of": "total_assets"}) in got
    assert ("一、(一)、2", {"kind": "no_major_outlay"}) in got  # 未来……有: not a negation
    assert set(reviewed(text)) == {"一、(三)"}  # a waiver the text leaves to the board: said


# ---- amounts and alternatives -----------------------------------------------------------------------------

_PCT = {"type": "pct", "ratio": 0.2, "basis": "distributable_profit"}


@pytest.mark.parametrize("tail, components, combine, review", [
    ("，且不低于1,000万元。", [{"type": "fixed", "amount": 10_000_000}], "higher_of", False),
    ("，或不低于3,000万元，两者满足其一即可。", [{"type": "fixed", "amount": 30_000_000}], "lower_of", False),
    ("或人民币2亿元（含税），以孰低者为准。", [{"type": "fixed", "amount": 200_000_000}], "lower_of", False),
    ("或人民币1.5亿元（含税），以孰高者为准。", [{"type": "fixed", "amount": 150_000_000}], "higher_of", False),
    ("，或不低于3,000万元。", [{"type": "fixed", "amount": 30_000_000}], "lower_of", True),  # 或 alone: either, reviewed
])
def test_an_amount_beside_the_share(tail, components, combine, review):
    text = plan("公司每年以现金方式分配的利润不低于当年实现的可分配利润的20%" + tail)
    rule = only(rules_of(text), "min_cash")
    assert (rule["components"], rule["combine"]) == ([_PCT] + components, combine)
    assert bool(reviewed(text)) == review
    if review:
        assert "combine" in "".join(reviewed(text)["一"])  # what to write if both must hold


@pytest.mark.parametrize("sentence, amount", [
    ("公司每年现金分红总额不低于人民币3亿元（含税）。", 300_000_000),
    ("在满足现金分红条件时，每年现金分红不少于2,500万元。", 25_000_000),
])
def test_a_fixed_amount_alone(sentence, amount):
    rule = only(rules_of(plan(sentence)), "min_cash")
    assert reading(rule) == {"kind": "min_cash", "components": [{"type": "fixed", "amount": amount}], "when": "conditions_met"}
    assert reviewed(plan(sentence)) == {}


def test_an_amount_over_a_window_is_not_an_annual_floor():
    text = plan("公司最近三年以现金方式累计分配的利润不少于3亿元。")
    assert not rules_of(text, "min_cash")
    assert "3亿元" in "".join(reviewed(text)["一"])


# ---- the basis, per-share floors, named years --------------------------------------------------------------

@pytest.mark.parametrize("basis, field, review", [
    ("当年归属于母公司股东的净利润", "net_profit_attributable", None),
    ("当年合并报表归属于上市公司股东净利润", "net_profit_attributable", None),
    ("当年实现的归属于上市公司普通股股东的净利润", "net_profit_attributable", None),
    ("当年实现的归属于母公司所有者的净利润", "net_profit_attributable", None),
    ("当年实现的合并报表可供分配利润", "distributable_profit", None),
    ("当年扣除非经常性损益后归属于上市公司股东的净利润", "net_profit_attributable", "扣除非经常性损益"),  # no field: said
    ("母公司当年实现的净利润", "net_profit_parent", None),  # the parent's own figure (issue 46.3)
    ("当年实现的归属于母公司股东的净利润", "net_profit_attributable", None),
])
def test_the_basis_named_in_full(basis, field, review):
    text = plan(f"公司每年以现金方式分配的利润不少于{basis}的60%。")
    assert only(rules_of(text), "min_cash")["components"] == [{"type": "pct", "ratio": 0.6, "basis": field}]
    got = reviewed(text)
    assert (review is None) == (got == {}), got
    if review:
        assert review in "".join(got["一"])


@pytest.mark.parametrize("sentence, amount", [
    ("在满足现金分红条件时，公司每年每10股派发现金红利不低于2元（含税）。", 0.2),
    ("公司每股派发现金股利（含税）不低于人民币0.15元。", 0.15),
])
def test_per_share_floors(sentence, amount):
    rule = only(rules_of(plan(sentence)), "min_cash")
    assert (rule["components"], rule["measure"]) == ([{"type": "per_share", "amount": amount}], "cash_dividend")


def test_a_per_share_floor_beside_the_ratio_quotes_its_own_words():
    text = plan("公司每年以现金方式分配的利润不低于当年归属于母公司股东的净利润的60%，且每股派息不低于0.1元（含税）。")
    ratio, per_share = rules_of(text, "min_cash")
    assert ratio["quote"] == "公司每年以现金方式分配的利润不低于当年归属于母公司股东的净利润的60%"
    assert per_share["quote"] == "每股派息不低于0.1元(含税)"  # (brackets as the loader compares quotes)


@pytest.mark.parametrize("sentence, by_year, review", [
    # 承诺2025年度、2026年度分红比例不低于50% (plans.yaml): those years only (and 分红比例 names no profit: said)
    ("公司承诺2025年度、2026年度分红比例不低于50%。", {2025: 0.5, 2026: 0.5, 2027: 0}, "利润口径"),
    ("2026年度，公司以现金方式分配的利润不低于当年归属于上市公司股东的净利润的40%。", {2025: 0, 2026: 0.4, 2027: 0}, None),
    ("2025年至2026年，公司每年以现金方式分配的利润不低于当年实现的可分配利润的30%。", {2025: 0.3, 2026: 0.3, 2027: 0}, None),
])
def test_a_ratio_for_named_years_only(sentence, by_year, review):
    text = plan(sentence)  # a plan for 2025–2027
    rule = only(rules_of(text), "min_cash")
    assert rule["components"][0]["by_year"] == by_year
    got = reviewed(text)
    assert (review is None) == (got == {}), got
    policy = load_policy_file_from(text)
    years = {y: {"net_profit_attributable": 100_000_000, "distributable_profit": 100_000_000, "cash_dividend": 0}
             for y in (2025, 2026, 2027)}
    for y, r in by_year.items():  # 100,000,000 × the year's ratio, none in a year not named
        rep = evaluate(case(policy.id, y, years), policy, baseline=False)
        assert next(x for x in rep.rules if x.id == rule["id"]).required == 100_000_000 * r


def test_a_ratio_for_every_year_of_the_plan_is_one_ratio():
    text = plan("2025年至2027年每年以现金方式分配的利润不少于公司当年实现的归属于公司股东的净利润的65%。")
    assert only(rules_of(text), "min_cash")["components"] == [{"type": "pct", "ratio": 0.65, "basis": "net_profit_attributable"}]


# ---- caps ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "公司实施利润分配的金额不得超出公司累计可供分配利润的范围。",
    "利润分配总额不超过累计可分配利润。",
    "公司应当在累计可分配利润范围内进行利润分配。",
    "公司分配的利润以累计可供分配利润为限。",
    "每年分配的利润总额不应超过累计未分配利润。",
])
def test_the_cap_in_other_words(sentence):
    # one rule per distribution: the final and the interim, each against the figure it is paid out of
    assert [r["distribution"] for r in rules_of(plan(sentence)) if r["kind"] == "distribution_cap"] == ["final", "interim"]
    assert reviewed(plan(sentence)) == {}


@pytest.mark.parametrize("sentence, measure, when", [
    ("公司每年利润分配不得超过当年实现的可分配利润。", "distribution", "distribution_made"),  # cash and stock
    ("公司每年现金分红总额不得超过当年实现的可分配利润。", "cash", "cash_paid"),  # the cash alone
])
def test_a_cap_on_the_years_distributable_profit(sentence, measure, when):
    rule = only(rules_of(plan(sentence)), "compare")
    assert reading(rule) == {"kind": "compare", "measure": measure, "op": "<=", "ratio": 1, "of": "distributable_profit",
                             "role": "requirement", "when": when}


# ---- traditional characters ----------------------------------------------------------------------------------

def test_a_plan_in_traditional_characters(tmp_path):
    src = tmp_path / "plan.txt"
    src.write_bytes((DATA / "traditional.txt").read_bytes())
    code, err = run_cli("draft", src, "-o", tmp_path / "trad-2025-2027.yaml")
    assert code == 0, err
    assert "0 clauses need review" in err
    p = load_policy_file(tmp_path / "trad-2025-2027.yaml")  # every quote found in the text as published
    got = sorted(((r.clause, r.kind) for r in p.rules if not (r.kind == "attestation" and r.field is None)))
    assert got == sorted([("一、(一)、1", "positive"), ("一、(一)、2", "audit_opinion"), ("一、(一)、3", "no_major_outlay"),
                          ("一、(二)", "min_cash"), ("一、(二)", "min_cash"), ("一、(三)", "cash_share"), ("一、(三)", "cash_share"),
                          ("一、(四)", "compare"), ("一、(四)", "compare"), ("一、(五)", "distribution_cap"),
                          ("一、(五)", "distribution_cap"),
                          ("二", "within_months")])
    annual = p.rule("min_annual")
    assert [(c.ratio, c.basis) for c in annual.components] == [(0.3, "net_profit_attributable")]  # 百分之三十 of 歸屬母公司所有者淨利潤
    assert p.rule("min_per_share").components[0].amount == 0.1
    table = next(r for r in p.rules if r.kind == "cash_share" and r.table).table
    assert (table["mature_no_major"], table["mature_major"], table["growth_major"]) == (0.8, 0.4, 0.2)
    assert {(r.measure, r.op, r.ratio or r.amount) for r in p.rules if r.kind == "compare"} == {
        ("total_liabilities", "<=", 0.7), ("operating_cash_flow", ">=", 0)}
    # the text is converted to simplified characters (OpenCC t2s), said in the file, and saved as converted:
    # every quote is found in the saved text
    assert p.rule("min_annual").quote.startswith("公司每年以现金方式分配的利润")
    assert "OpenCC t2s" in (tmp_path / "trad-2025-2027.yaml").read_text(encoding="utf-8")
    assert "現金" not in (tmp_path / "texts" / "trad-2025-2027.txt").read_text(encoding="utf-8")


# ---- never silent, its own words, its own note, counts that match -------------------------------------------

@pytest.mark.parametrize("sentence, words", [
    ("公司控股股东承诺在规划期间不减持超过总股本的2%。", "2%"),  # a number
    ("公司流动比率低于1.2时，董事会可以调减分红比例。", "流动比率"),  # a comparison
    ("如公司当年亏损，董事会可以提议不派发股利。", "亏损"),  # a condition word
    ("利润分配总额原则上不超过当年经营活动产生的现金流量净额。", "现金流量净额"),
    ("实施现金分红需满足可分配利润等为正等条件", "为正等条件"),  # (plans.yaml) one short line: no heading, a duty
])
def test_what_nothing_reads_is_said(sentence, words):
    text = plan("公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%。", sentence)
    got = reviewed(text)
    assert words in "".join(got.get("二", [])), got


def test_own_quotes_notes_and_counts(tmp_path):
    text = (DATA / "typical-plan.txt").read_text(encoding="utf-8")
    d = draft_text(text)
    notes = {cid: e.get("note", "") for cid, e in d.policy["clauses"].items()}
    assert "章节标题。" not in notes.values()
    headings = [n for n in notes.values() if n.startswith("章节标题")]
    assert len(headings) == len(set(headings)) >= 2  # each names its own heading
    # a test of the major-outlay definition is computed by the condition that reads it (not 无可检查的义务)
    assert d.policy["clauses"]["二、(二)、3、(1)"] == {"treatment": "computed", "rules": ["cond_no_major_outlay"]}
    # the summary counts the items listed after it
    s = d.summary()
    assert f"{len(d.reviews)} 项待复核" in s and f"{len(d.review_clauses)} clause" in s
    header = [line for line in d.yaml.splitlines() if line.startswith("#   待复核 REVIEW")]
    assert len(header) == len(d.reviews)
    assert f"Recognised {len(d.policy['rules'])} rules; {len(d.reviews)} item" in d.yaml


def test_the_boards_outlay_determination_quotes_its_own_words():
    text = (DATA / "stage-inherit.txt").read_text(encoding="utf-8")
    mo = draft_text(text).policy["major_outlay"]
    assert mo["definition"] == "board" and "%" not in mo["quote"] and "重大资金支出" in mo["quote"]


# ---- what to write: suggested rules pass `policies check` ---------------------------------------------------

def test_suggested_rules_pasted_in_pass_policies_check(tmp_path):
    src = tmp_path / "plan.txt"
    src.write_bytes((DATA / "suggestions.txt").read_bytes())
    out = tmp_path / "demo-2025-2027.yaml"
    code, err = run_cli("draft", src, "-o", out)
    assert code == 0, err
    d = draft_text(src.read_text(encoding="utf-8"))
    clause_items = [(w, r) for w, r in d.reviews if w in d.draft.clauses]
    assert len(clause_items) == 6 and len(d.suggestions) == 6  # every item in a clause says what to write
    kinds = {w: rule["kind"] for w, _, rule in d.suggestions}
    assert kinds["一、(一)、2"] == kinds["一、(二)、1"] == "attestation"  # 研发投入占营业收入, 流动比率: confirmed
    assert {rule.get("role") for w, _, rule in d.suggestions if w in ("一、(一)、2", "一、(二)、1")} == {"condition"}
    for where, reason, rule in d.suggestions:
        assert rule["id"] in reason and rule["clause"] == where
    # paste them all: delete "# " before each suggested rule's lines
    lines = out.read_text(encoding="utf-8").splitlines()
    pasted, inside = [], False
    for line in lines:
        if re.match(r"  # - id: todo_\d+$", line):
            inside = True
        elif inside and not line.startswith("  #   "):
            inside = False
        pasted.append("  " + line[4:] if inside else line)
    out.write_text("\n".join(pasted) + "\n", encoding="utf-8")
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert sum(r["id"].startswith("todo_") for r in data["rules"]) == 6
    code, err = run_cli("policies", "check", out)  # the review items are still open: an unreviewed draft
    assert code == 2 and err.count("未复核的草稿项") == len({w for w, _ in clause_items}), err
    out.write_text(out.read_text(encoding="utf-8").replace("待复核", "已复核"), encoding="utf-8")  # settled
    code, err = run_cli("policies", "check", out)
    assert code == 0, err
    p = load_policy_file(out)
    assert p.rule("todo_2").role == "condition" and p.rule("todo_2").quote == "公司期末流动比率低于1.2"


def test_the_published_texts_suggest_nothing():
    for path in sorted(Path(DATA.parent.parent.parent / "templates" / "texts").glob("*.txt")):
        d = draft_text(path.read_text(encoding="utf-8"))
        assert d.suggestions == [] and "SUGGESTED" not in d.yaml, path.name
