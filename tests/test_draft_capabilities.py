"""`xlmodel draft` recognises the catalogue's new capabilities (issue 12 §1).

* each capability on a wording quoted in ../shared/real-plans/plans.yaml (the plan named beside it);
* drafting the fifth and sixth plans' texts (tests/data/fifth_plan, tests/data/sixth_plan: most of the
  capabilities) gives, with no review item, policies that evaluate like the hand-written files on
  random and boundary cases (the cases of tests/test_capabilities.py), rule by rule.

The drafted rules are matched with the hand-written ones as tests/test_draft.py does (kind, role,
severity, when, the field or measure read, and the clauses they implement).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_capabilities import FIFTH, SEVENTH, SIXTH, _capability_cases
from test_draft import match_rules, only, plan, reviewed, rules_of
from xlmodel.draft import draft_text
from xlmodel.evaluator import evaluate
from xlmodel.plans.loading import load_policy_file


def _rule_without(rule: dict, *keys) -> dict:
    return {k: v for k, v in rule.items() if k not in ("id", "quote", "title_zh", "title_en", "clause", "note", *keys)}


# ---- the wording of real plans ---------------------------------------------------------------------

def test_year_specific_ratios():
    # years listed with 分别 (the fifth plan's 三、(一))
    text = plan("2025年度、2026年度、2027年度每年以现金方式分配的利润分别不低于当年实现的归属于上市公司股东的净利润的65%、70%、75%。")
    rule = only(rules_of(text), "min_cash")
    assert rule["components"] == [{"type": "pct", "by_year": {2025: 0.65, 2026: 0.7, 2027: 0.75},
                                   "basis": "net_profit_attributable"}]
    assert reviewed(text) == {}
    # 000568 泸州老窖: 2024-2026年……现金分红比例逐年提升至65%、70%、75%，且每年分红绝对额不低于85亿元
    text = plan("2024-2026年分红回报路线图，现金分红比例逐年提升至65%、70%、75%，且每年分红绝对额不低于85亿元。")
    rule = only(rules_of(text), "min_cash")
    assert rule["components"] == [{"type": "pct", "by_year": {2024: 0.65, 2025: 0.7, 2026: 0.75},
                                   "basis": "net_profit_attributable"}, {"type": "fixed", "amount": 8_500_000_000}]
    assert rule["combine"] == "higher_of"
    assert "利润口径" in "".join(reviewed(text)["一"])  # 现金分红比例 names no profit: still said


def test_ratios_that_do_not_match_the_years_are_reviewed():
    text = plan("2025年度、2026年度每年以现金方式分配的利润分别不低于当年实现的可分配利润的65%、70%、75%。")
    assert "一一对应" in "".join(reviewed(text)["一"])


def test_payout_band_gives_a_minimum_and_a_ceiling():
    # 601919 中远海控: 应占……净利润的 30%-50%
    text = plan("公司年度内分配的现金红利总额应占公司当年度实现的归属于上市公司股东净利润的 30%-50%。")
    rules = rules_of(text)
    assert only(rules, "min_cash")["components"] == [{"type": "pct", "ratio": 0.3, "basis": "net_profit_attributable"}]
    ceiling = only(rules, "compare")
    assert _rule_without(ceiling) == {"kind": "compare", "measure": "cash", "op": "<=", "ratio": 0.5,
                                      "of": "net_profit_attributable", "role": "requirement", "when": "cash_paid"}
    assert reviewed(text) == {}
    load(text)


def test_payout_ceiling_alone():
    # 300750 宁德时代 (interim, 2025): 分红金额不得超过当期归属于上市公司股东净利润的15%
    text = plan("在满足前述分红条件下，分红金额不得超过当期归属于上市公司股东净利润的 15%。")
    rule = only(rules_of(text), "compare")
    assert (rule["measure"], rule["op"], rule["ratio"], rule["of"]) == ("cash", "<=", 0.15, "net_profit_attributable")
    assert not rules_of(text, "min_cash")


def test_interim_cap_on_the_periods_net_profit():
    # 002301 齐心集团: 年度股东会审议的下一年中期分红上限不超相应净利润
    text = plan("年度股东会审议的下一年中期分红上限不超相应净利润。")
    rule = only(rules_of(text), "compare")
    assert _rule_without(rule) == {"kind": "compare", "measure": "interim_cash_dividend", "op": "<=", "ratio": 1,
                                   "of": "half_year_net_profit_attributable", "role": "requirement",
                                   "when": "interim_paid"}
    assert reviewed(text) == {}


@pytest.mark.parametrize("wording, severity", [
    ("公司将每年中期、年度各进行一次现金分红。", "fail"),  # 600795 国电电力
    ("原则上每年度进行两次分红。", "warn"),  # 600519 贵州茅台
])
def test_distributions_a_year(wording, severity):
    rule = only(rules_of(plan(wording)), "min_distributions")
    assert rule["count"] == 2 and rule.get("severity", "fail") == severity
    assert not rules_of(plan(wording), "cash_paid")


def test_target_ratio_and_a_dividends_only_per_share_floor():
    # 600188 兖矿能源: ……应占公司该年度扣除法定储备后净利润的约百分之五十，且每股现金股利不低于人民币 0.5 元
    text = plan("公司在各会计年度分配的现金股利总额，应占公司该年度扣除法定储备后净利润的约百分之五十，且每股现金股利不低于人民币 0.5 元。")
    target, per_share = rules_of(text, "min_cash")
    assert (target["raises_minimum"], target["severity"]) == (False, "warn")
    assert per_share["components"] == [{"type": "per_share", "amount": 0.5}] and per_share["measure"] == "cash_dividend"
    assert per_share.get("severity", "fail") == "fail"  # the floor binds; only the 约50% informs


def test_total_distribution_floor():
    # 601816 京沪高铁: 每年累计分配的利润不低于……55%，主要采取现金分红的方式进行分配
    text = plan("每年累计分配的利润不低于当年合并报表归母净利润总额的 55%，主要采取现金分红的方式进行分配。")
    rule = only(rules_of(text), "min_cash")
    assert rule["measure"] == "distribution"
    assert reviewed(text) == {}


def test_plan_period_window_on_the_average():
    # 600610 中毅达: 未来三年（2024 - 2026年）现金分红累计不少于近三年年均可分配利润30%
    text = plan("未来三年（2024 - 2026年）现金分红累计不少于近三年年均可分配利润30%。")
    rule = only(rules_of(text), "min_cash_plan_period")
    assert (rule["ratio"], rule["basis"], rule.get("basis_mode", "average")) == (0.3, "distributable_profit", "average")
    assert reviewed(text) == {}


def test_either_of_minimums():
    # 001207 联科科技: 不少于当年可分配利润10%或三年累计不少于年均30%
    text = plan("在满足现金分红条件时，公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%，"
                "或最近三年以现金方式累计分配的利润不少于最近三年实现的年均可分配利润的30%。")
    rules = rules_of(text)
    group = only(rules, "any_of")
    assert group["rules"] == [only(rules, "min_cash")["id"], only(rules, "min_cash_rolling")["id"]]
    assert reviewed(text) == {}
    p = load(text)
    assert p.rule(group["id"]).kind == "any_of"
    # the summary's own words: the rolling term names no basis (reviewed), the group still drafted
    text = plan("原则上每年一次，可中期分红，不少于当年可分配利润10%或三年累计不少于年均30%。")
    assert only(rules_of(text), "any_of")


def test_or_group_of_conditions_and_cash_and_equivalents():
    # 688126 沪硅产业: 经营性现金流量净额或期末现金及等价物余额为正值
    text = plan("公司实施现金分红时应同时满足下列条件：\n（1）公司年度实现可分配利润为正值；\n"
                "（2）经营性现金流量净额或期末现金及等价物余额为正值。")
    rules = rules_of(text)
    group = only(rules, "any_of")
    assert group["role"] == "condition"
    members = [r for r in rules if r["id"] in group["rules"]]
    assert {r["measure"] for r in members} == {"operating_cash_flow", "cash_and_equivalents"}
    assert reviewed(text) == {}
    load(text)


def test_registered_capital_gate():
    # 002301 齐心集团: 资产负债率高于80%或经营现金流净额低于注册资本20%，可不分利润
    text = plan("资产负债率高于80%或经营现金流净额低于注册资本20%，可不分利润。")
    got = {(r["measure"], r["op"], r["ratio"], r["of"]) for r in rules_of(text, "compare")}
    assert got == {("total_liabilities", "<=", 0.8, "total_assets"), ("operating_cash_flow", ">=", 0.2, "registered_capital")}
    assert reviewed(text) == {}


def test_flag_only_rolling_test():
    # 300065 海兰信: 最近三年现金累计分配利润少于年均可分配利润30%，不得增发新股等
    text = plan("最近三年现金累计分配利润少于年均可分配利润30%，不得增发新股等。")
    rule = only(rules_of(text), "min_cash_rolling")
    assert (rule["raises_minimum"], rule["severity"], rule.get("when", "always")) == (False, "warn", "always")
    assert reviewed(text) == {}


def test_aim_on_the_windows_total_is_a_flag():
    text = plan("公司力争最近三年以现金方式累计分配的利润不少于最近三年累计实现的可分配利润的35%。")
    rule = only(rules_of(text), "min_cash_rolling")
    assert (rule["basis_mode"], rule["ratio"], rule["raises_minimum"]) == ("total", 0.35, False)


def test_per_share_floor_in_a_sentence_of_its_own():
    text = plan("在满足现金分红条件时，公司每股派发现金红利不低于0.10元（含税），以现金回购股份的金额不计入本项。")
    rule = only(rules_of(text), "min_cash")
    assert rule["components"] == [{"type": "per_share", "amount": 0.1}] and rule["measure"] == "cash_dividend"
    assert reviewed(text) == {}


def load(text: str):
    from test_draft import load_policy_file_from

    return load_policy_file_from(text)


# ---- whole texts: the fifth, sixth and seventh plans ------------------------------------------------------------

@pytest.fixture(scope="module")
def drafted(tmp_path_factory):
    """Each text drafted beside a copy of it (so every quote is checked), loaded back."""
    out = {}
    for path in (FIFTH, SIXTH, SEVENTH):
        template = load_policy_file(path)
        folder = tmp_path_factory.mktemp(template.id)
        src = path.parent / template.text
        (folder / "texts").mkdir()
        (folder / "texts" / src.name).write_bytes(src.read_bytes())
        d = draft_text(src.read_text(encoding="utf-8"), policy_id=template.id, text_ref=f"texts/{src.name}")
        (folder / f"{template.id}.yaml").write_text(d.yaml, encoding="utf-8")
        out[template.id] = (template, load_policy_file(folder / f"{template.id}.yaml"), d)
    return out


@pytest.mark.parametrize("pid", ["demo5-2025-2027", "demo6-2024-2026", "demo7-2025-2027"])
def test_drafted_text_needs_no_review_and_matches_the_rules(drafted, pid):
    template, draft, d = drafted[pid]
    if pid == "demo7-2025-2027":  # 年均净利润: which net profit the text leaves open (drafted as attributable)
        assert [(c, "净利润" in why) for c, why in d.reviews] == [("二、(二)", True)]
    else:
        assert d.reviews == []
    pairs, missing, extra = match_rules(template, draft)
    assert missing == [] and extra == []
    # the fifth plan is written to be evaluated alone (regulatory_baseline: null); a draft keeps the baseline
    assert draft.settings.model_copy(update={"regulatory_baseline": None}) == \
        template.settings.model_copy(update={"regulatory_baseline": None})
    assert draft.major_outlay.tests() == template.major_outlay.tests()


@pytest.mark.parametrize("pid, seed", [("demo5-2025-2027", 15), ("demo6-2024-2026", 16), ("demo7-2025-2027", 17)])
def test_drafted_text_evaluates_like_the_hand_written_plan(drafted, pid, seed):
    template, draft, _ = drafted[pid]
    pairs, _, _ = match_rules(template, draft)
    mismatches = []
    cases = _capability_cases(template, 150, seed)
    for c in cases:
        a, b = evaluate(c, template, baseline=False), evaluate(c, draft, baseline=False)
        for k in ("overall_status", "cash_conditions_met", "min_cash_dividend", "max_distribution", "fail_count",
                  "warn_count", "missing_input_count"):
            if getattr(a, k) != getattr(b, k):
                mismatches.append((c.source, k, getattr(a, k), getattr(b, k)))
        rb = {r.id: r for r in b.rules}
        for r in a.rules:
            o = rb[pairs.get(r.id, r.id)]
            for k in ("status", "actual", "required", "shortfall", "margin", "reason"):
                if getattr(r, k) != getattr(o, k):
                    mismatches.append((c.source, r.id, k, getattr(r, k), getattr(o, k)))
    assert mismatches == []


def test_the_data_files_are_where_the_tests_say():
    assert Path(FIFTH).is_file() and Path(SIXTH).is_file() and Path(SEVENTH).is_file()


# ---- the seventh plan's wording -----------------------------------------------------------------------

def test_two_ratio_tests_joined_by_qie_must_both_hold():
    text = plan("一、现金分红的条件\n（1）公司无重大投资计划或重大资金支出等事项发生。重大资金支出是指：公司未来十二个月内拟对外投资"
                "的累计支出达到或超过公司最近一期经审计净资产的50%，且达到或超过公司最近一期经审计总资产的30%。")
    mo = load(text).major_outlay
    assert mo.branches_combine == "all" and [(t.basis, t.ratio) for t in mo.tests()] == [("net_assets", 0.5), ("total_assets", 0.3)]


def test_the_lower_of_gaap_and_ifrs_profit_is_the_basis():
    # 600188 兖矿能源: 以中国会计准则和国际财务报告准则财务报表税后利润数较少者为准
    text = plan("以中国会计准则和国际财务报告准则财务报表税后利润数较少者为准，公司在各会计年度分配的现金股利总额，"
                "应不低于公司该年度归属于母公司股东的净利润的30%。")
    rule = only(rules_of(text), "min_cash")
    assert rule["components"] == [{"type": "pct", "ratio": 0.3, "basis": "net_profit_attributable_lower"}]
    assert reviewed(text) == {}


@pytest.mark.parametrize("tail, combine, review", [
    ("，二者满足其一即可", "lower_of", False),  # either suffices, in words
    ("", "lower_of", True),  # 或 alone: drafted as either, marked for review
])
def test_a_rolling_minimum_with_a_fixed_amount(tail, combine, review):
    # 600188 兖矿能源 (2020–2024): 近三年累计现金分红不低于近三年年均净利润30%或5000万元
    text = plan(f"公司最近三年累计现金分红不低于最近三年年均归属于上市公司股东的净利润的30%或5,000万元{tail}。")
    rule = only(rules_of(text), "min_cash_rolling")
    assert (rule["ratio"], rule["amount"], rule["combine"]) == (0.3, 50_000_000, combine)
    assert bool(reviewed(text)) == review
