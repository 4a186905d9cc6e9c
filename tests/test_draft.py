"""`xlmodel draft`: a policy drafted from a plan's published text (issue 12, part 3).

* the wording helpers (numerals, shares, amounts, comparison words) on values worked out by hand;
* the recognisers on wording variants quoted in ../shared/real-plans/plans.yaml (tests/data/draft/);
* drafting each of the three published texts gives a policy that evaluates like its hand-written
  template on 300 random and boundary cases (xlmodel.synth.parity_cases), rule by rule;
* the review list of the three texts (exact) and of texts with known gaps;
* the command: refuses to overwrite, reads UTF-8 or GB18030 within a size limit, errors name the file
  (exit 2, no traceback), writes nothing live from the text.

How drafted rules are compared with the template's (their ids differ): a drafted rule matches a
template rule when kind, role, severity, ``when`` and the field or measure it reads agree and the
clauses they implement overlap (the clause each cites plus the clauses listing it under ``rules``).
Every template rule must have exactly one match; a drafted rule without one must be in EXTRA (only
own-input attestations: the template's author chose not to attest that duty). Each case's
attestations are carried over along the matching (an extra attestation is confirmed), then every
matched rule's status, actual, bound and shortfall, every regulatory rule and the report's totals
(overall status, conditions, minimum cash dividend, maximum distribution, counts, ST warning) must
be equal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from xlmodel.draft import draft_text
from xlmodel.draft import numbers as nb
from xlmodel.evaluator import evaluate
from xlmodel.plans.loading import load_policy, load_policy_file
from xlmodel.synth import parity_cases

ROOT = Path(__file__).resolve().parent.parent
TEXTS = ROOT / "templates" / "texts"
DATA = Path(__file__).resolve().parent / "data" / "draft"
PLANS = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
N = 300
#: drafted rules a template does not have: (plan, drafted rule id) — see the module docstring
EXTRA = {
    # 四、(一)、2 “还应通过投资者咨询电话、互联网等方式与股东，特别是中小股东进行沟通和交流”: the same duty the
    # GCL and Far East templates attest (三、(九), 四、5、(1)); the Houpu template leaves it informational
    ("houpu-2024-2026", "minority_consulted"),
}
#: the clauses whose drafts need review, per plan (exact)
REVIEWED: dict[str, set[str]] = {"far-east-2022-2024": set(), "gcl-energy-2022-2024": set(), "houpu-2024-2026": set()}


def run_cli(*args) -> tuple[int, str]:
    from xlmodel.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in args])
        except SystemExit as e:
            code = e.code
    return code, err.getvalue()


def draft_file(text: str, **kw) -> dict:
    return draft_text(text, **kw).policy


def rules_of(text: str, kind: str | None = None) -> list[dict]:
    return [r for r in draft_file(text)["rules"] if kind is None or r["kind"] == kind]


# ---- numbers and words ----------------------------------------------------------------------------

@pytest.mark.parametrize("s, n", [("三", 3), ("十二", 12), ("二十", 20), ("二十五", 25), ("一百零五", 105), ("两", 2),
                                  ("二○二二", 2022), ("二〇二四", 2024), ("五千万", 50_000_000), ("一亿五千万", 150_000_000),
                                  ("30", 30), ("3,000", 3000), ("三年", None)])
def test_chinese_numerals(s, n):
    assert nb.cn_int(s) == n


@pytest.mark.parametrize("s, r", [("30%", Fraction(3, 10)), ("３０％", None), ("百分之三十", Fraction(3, 10)),
                                  ("百分之十五", Fraction(3, 20)), ("三分之二", Fraction(2, 3)), ("2/3", Fraction(2, 3)),
                                  ("1/2", Fraction(1, 2)), ("二分之一", Fraction(1, 2)), ("半数", Fraction(1, 2)),
                                  ("12.5%", Fraction(1, 8)), ("100%", Fraction(1))])
def test_ratios(s, r):
    if r is None:  # full-width: folded first, as the recognisers read text
        s, r = nb.fold(s).text, Fraction(3, 10)
    assert nb.ratio(s) == r


@pytest.mark.parametrize("s, a", [("5,000万元", 50_000_000), ("5,000万元人民币", 50_000_000), ("人民币五千万元", 50_000_000),
                                  ("4亿元", 400_000_000), ("200亿元", 20_000_000_000), ("85亿元", 8_500_000_000),
                                  ("0.22元", Fraction(22, 100)), ("3000万", 30_000_000), ("1亿", 100_000_000),
                                  ("５，０００万元", 50_000_000)])
def test_amounts(s, a):
    assert nb.amount(nb.fold(s).text) == a


@pytest.mark.parametrize("word, suffix, op", [
    ("不少于", "", ">="), ("不低于", "", ">="), ("达到或超过", "", ">="), ("达到或者超过", "", ">="), ("达或超", "", ">="),
    ("", "以上", ">="),  # 以上 includes the number (Civil Code art. 1259; DOMAIN.md §4)
    ("超过", "", ">"), ("高于", "", ">"), ("过半数", "", ">"), ("超", "", ">"),
    ("不超过", "", "<="), ("未超过", "", "<="), ("", "以下", "<="), ("低于", "", "<"), ("少于", "", "<"), ("不满", "", "<")])
def test_comparison_words(word, suffix, op):
    assert nb.op_of(word, suffix) == op


def test_fold_keeps_the_published_text_for_quotes():
    f = nb.fold("不低于当年可分配利润的１０％。")
    assert f.text == "不低于当年可分配利润的10%。"
    i = f.text.index("10%")
    assert f.span(i, i + 3) == "１０％"


def _fold_by_hand(text: str) -> tuple[str, list[int]]:
    """The fold as its docstring states it, one character at a time (the reference)."""
    import unicodedata

    out, origin = [], []
    for i, ch in enumerate(text):
        f = nb._FOLD_EXTRA.get(ch)
        if f is None:
            f = ch if ord(ch) <= 0x7F or ch in "○〇" else unicodedata.normalize("NFKC", ch)
            f = ch if len(f) > 4 else f  # longer than 4 (ﷺ: 18 characters): kept as it is
        out += f
        origin += [i] * len(f)
    return "".join(out), origin


def test_fold_is_the_character_by_character_fold_on_mixed_text():
    import random

    rng = random.Random(21)
    alphabet = "a1０１２％（）—，：⑴⑽⒈㍿ﬁ½○〇一二三 \n\u00adﷺ﷽㌖é"
    for _ in range(400):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        f = nb.fold(t)
        text, origin = _fold_by_hand(t)
        assert f.text == text and list(f.origin) == origin, t
    assert nb.fold("⑽ﷺ").text == "(10)ﷺ" and nb.fold("⑽ﷺ").span(0, 4) == "⑽"


def test_fold_of_a_mebibyte_is_linear_and_bounded(monkeypatch):
    """Issue 21: 1 MiB of ligatures took 12 s and 600 MB. Each distinct character is folded once (counted,
    not timed), the folded text is at most 4 times the original, and the map back is compact."""
    import tracemalloc
    import unicodedata

    calls = []

    class Counting:
        @staticmethod
        def normalize(form, s):
            calls.append(s)
            return unicodedata.normalize(form, s)

    monkeypatch.setattr(nb, "unicodedata", Counting)
    n = 2**20 // 3  # 1 MiB of three-byte characters
    for ch, size in (("\ufdfa", 1), ("\u247d", 4), ("一", 1)):  # ﷺ (kept), ⑽ → (10), a CJK character
        calls.clear()
        text = ("一、" + ch * n)[:n]
        tracemalloc.start()
        f = nb.fold(text)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert len(calls) <= 3  # one per distinct character (一, 、 is folded by the table, ch)
        assert len(f.text) == 2 + (n - 2) * size
        assert f.span(len(f.text) - size, len(f.text)) == ch
        assert peak < (len(f.text) * 4 + n * 4) * 3 + 2**20, peak  # the text, its map back: a few bytes a character


# ---- the recognisers, on wording quoted in plans.yaml -------------------------------------------

def plan(*bodies: str, title: str = "示例公司未来三年（2025-2027年）股东分红回报规划") -> str:
    """A small plan text: a title and numbered clauses 一、二、…"""
    return title + "\n" + "\n".join(f"{'一二三四五六七八九十'[i]}、{b}" for i, b in enumerate(bodies)) + "\n"


def load_policy_file_from(text: str):
    """The draft of ``text`` loads as a policy (in a temporary folder, without its text)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "draft-2025-2027.yaml"
        path.write_text(draft_text(text).yaml, encoding="utf-8")
        return load_policy_file(path)


def only(rules: list[dict], kind: str) -> dict:
    found = [r for r in rules if r["kind"] == kind]
    assert len(found) == 1, found
    return found[0]


def share_rule(rules: list[dict]) -> dict:
    """The share rule that states the thresholds; checked per distribution, its interim twin reads them."""
    found = only([r for r in rules if r.get("distribution") != "interim"], "cash_share")
    twins = [r for r in rules if r.get("share_from") == found["id"]]
    assert [(t["distribution"], found.get("distribution")) for t in twins] == [("interim", "final")], rules
    return found


def reviewed(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for where, why in draft_text(text).reviews:
        out.setdefault(where, []).append(why)
    return out


@pytest.mark.parametrize("wording, ratio, basis, review", [
    # 600807 济南高新 (原则上 → a warning, marked for review)
    ("公司原则上每年以现金方式分配的利润应不少于当年实现的可分配利润的 10%。", 0.1, "distributable_profit", "原则上"),
    # 601088 中国神华
    ("2025年至2027年每年以现金方式分配的利润不少于公司当年实现的归属于公司股东的净利润的65%。", 0.65, "net_profit_attributable", None),
    # 600900 长江电力: the cash word after the share
    ("公司对2026年至2030年每年度的利润分配按不低于当年合并报表中归属于母公司股东的净利润的70%进行现金分红。", 0.7,
     "net_profit_attributable", None),
    # 300065 海兰信: parent-company basis has no field (review)
    ("每年现金分红不少于当年母公司可供分配利润的10%。", 0.1, "distributable_profit", "母公司"),
    # 603179 新泉股份: 当年净利润 unspecified (review)
    ("现金分红不少于当年净利润的百分之十。", 0.1, "net_profit_attributable", "净利润"),
    # 300709 精研科技 with Chinese numerals
    ("满足条件时每年以现金方式分配的利润不低于当年实现的可供分配利润的百分之十五。", 0.15, "distributable_profit", None),
])
def test_annual_minimum(wording, ratio, basis, review):
    text = plan(wording)
    rule = only(rules_of(text), "min_cash")
    assert rule["components"] == [{"type": "pct", "ratio": ratio, "basis": basis}]
    assert rule["when"] == "conditions_met"
    assert rule.get("severity", "fail") == ("warn" if review == "原则上" else "fail")
    got = reviewed(text)
    assert (review is None) == ("一" not in got), got
    if review:
        assert review in "".join(got["一"])


@pytest.mark.parametrize("wording, components, combine", [
    # 000858 五粮液: ratio and (且) a fixed amount: both must hold → higher of
    ("2024-2026年公司每年度现金分红总额占当年归属于上市公司股东的净利润的比例不低于70%，且不低于200亿元（含税）。",
     [{"type": "pct", "ratio": 0.7, "basis": "net_profit_attributable"}, {"type": "fixed", "amount": 20_000_000_000}],
     "higher_of"),
    # 600496 精工钢构: 孰高
    ("2025-2027年每年现金分红不低于当年度归属于上市公司股东的净利润的70%或4亿元（含税）孰高值。",
     [{"type": "pct", "ratio": 0.7, "basis": "net_profit_attributable"}, {"type": "fixed", "amount": 400_000_000}],
     "higher_of"),
    # full-width digits and a 万元 amount
    ("公司每年以现金方式分配的利润不少于当年实现的可分配利润的３０％，且不少于５，０００万元。",
     [{"type": "pct", "ratio": 0.3, "basis": "distributable_profit"}, {"type": "fixed", "amount": 50_000_000}], "higher_of"),
])
def test_fixed_and_per_share_floors(wording, components, combine):
    rule = only(rules_of(plan(wording)), "min_cash")
    assert rule["components"] == components
    assert rule["combine"] == combine


@pytest.mark.parametrize("wording, window, ratio, mode, basis", [
    ("公司最近三年以现金方式累计分配的利润不少于最近三年实现的年均可分配利润的百分之三十。", 3, 0.3, "last", "distributable_profit"),
    # 603810 丰山集团
    ("任意三个连续会计年度现金累计分配利润不少于三年年均可分配利润30%。", 3, 0.3, "any", "distributable_profit"),
    # 601156 东航物流
    ("且在三个连续会计年度内，公司以现金方式累计分配的利润不少于该三年实现的年均可分配利润的30%。", 3, 0.3, "any",
     "distributable_profit"),
    # 603089 正裕工业
    ("近三年现金累计分配利润比例不低于年均可分配利润45%。", 3, 0.45, "last", "distributable_profit"),
    # 603936 博敏电子: on average net profit (unspecified: review)
    ("近三年累计现金分红总额不低于近三年年均净利润30%。", 3, 0.3, "last", "net_profit_attributable"),
])
def test_rolling_minimum(wording, window, ratio, mode, basis):
    rule = only(rules_of(plan(wording)), "min_cash_rolling")
    assert (rule["window"], rule["ratio"], rule["mode"], rule["basis"]) == (window, ratio, mode, basis)


def test_per_share_floor_on_dividends_is_a_rule_of_its_own():
    # 600863 内蒙华电: the ratio counts buybacks (以现金方式分配的利润), the 每股派息 floor counts dividends alone
    text = plan("2025年-2027年，公司每年以现金方式分配的利润原则上不少于当年实现的合并报表可供分配利润的70%，"
                "且每股派息不低于0.1元人民币（含税）。")
    annual, per_share = rules_of(text, "min_cash")
    assert annual["components"] == [{"type": "pct", "ratio": 0.7, "basis": "distributable_profit"}]
    assert "measure" not in annual
    assert per_share["components"] == [{"type": "per_share", "amount": 0.1}]
    assert per_share["measure"] == "cash_dividend"
    assert "每股" not in "".join(reviewed(text).get("一", []))  # only the 原则上 note remains


def test_rolling_on_the_windows_total_over_the_plan_period():
    # 603112 华翔股份: 35% of the plan's three years' TOTAL (= 105% of their average), over the plan period (未来三年)
    text = plan("未来三年现金累计分配利润不少于三年累计可分配利润的35%。")
    rule = only(rules_of(text), "min_cash_plan_period")
    assert (rule["ratio"], rule["basis_mode"], rule["basis"]) == (0.35, "total", "distributable_profit")
    assert not rules_of(text, "min_cash_rolling")
    assert reviewed(text) == {}
    load_policy_file_from(text)


def test_annual_and_rolling_in_one_sentence():
    text = plan("（1）在满足现金分红的条件下，每年以现金方式分配的利润应不低于当年实现的可分配利润的10%，且任何三个连续年度内，"
                "公司以现金方式累计分配的利润不少于该三年实现的年均可分配利润的30%；")
    rules = rules_of(text)
    assert only(rules, "min_cash")["components"][0]["ratio"] == 0.1
    assert only(rules, "min_cash_rolling")["mode"] == "any"
    assert only(rules, "min_cash_rolling")["quote"].startswith("任何三个连续年度内")


@pytest.mark.parametrize("definition, expect, review", [
    ("公司未来十二个月内拟对外投资、收购资产或者购买设备的累计支出达到或者超过公司最近一期经审计净资产的50%，且超过5,000万元；",
     {"basis": "net_assets", "ratio": 0.5, "floor": 50_000_000, "combine": "and"}, None),
    # 688520 神州细胞: 超过 → a strict ratio test
    ("累计支出超过公司最近一期经审计净资产的30%；", {"basis": "net_assets", "ratio": 0.3, "ratio_op": ">"}, None),
    # an inclusive floor (达到或超过 5,000万元)
    ("累计支出达到或超过公司最近一期经审计总资产的百分之三十，且达到或超过人民币五千万元；",
     {"basis": "total_assets", "ratio": 0.3, "floor": 50_000_000, "floor_op": ">="}, None),
    # 300133 华策影视: revenue as the basis, strict ratio and floor
    ("未来十二个月拟对外投资等累计支出超营收10%且超1亿；",
     {"basis": "revenue", "ratio": 0.1, "ratio_op": ">", "floor": 100_000_000, "combine": "and"}, None),
])
def test_major_outlay_definition(definition, expect, review):
    text = plan("公司实施现金分红时须同时满足下列条件：\n（1）公司该年度实现的可分配利润为正值；\n"
                f"（2）公司无重大投资计划或重大现金支出等事项发生。重大投资计划或重大现金支出是指：{definition}")
    mo = draft_file(text)["major_outlay"]
    assert mo["definition"] == "formula"
    assert {k: mo[k] for k in expect} == expect
    assert set(mo) - set(expect) <= {"clause", "quote", "definition", "combine"}  # default ops are not written
    got = reviewed(text)
    assert (review is None) == ("一、(2)" not in got), got
    if review:
        assert review in "".join(got["一、(2)"])


def test_major_outlay_or_branches():
    # 688603 天承科技 (“超净资产50%且超5000万，或超总资产30%”): two tests, either makes the outlay major
    text = (DATA / "outlay-or.txt").read_text(encoding="utf-8")
    p = draft_file(text)
    assert p["major_outlay"] == {"clause": "一、(2)", "quote": p["major_outlay"]["quote"], "definition": "formula",
                                 "branches": [{"basis": "net_assets", "ratio": 0.5, "op": ">", "floor": 30_000_000,
                                               "floor_op": ">", "combine": "and"},
                                              {"basis": "total_assets", "ratio": 0.3, "op": ">"}]}
    assert reviewed(text) == {}
    assert only(p["rules"], "min_cash")["components"] == [{"type": "pct", "ratio": 0.15, "basis": "distributable_profit"}]


def test_conditions_list_inline_with_full_width_and_a_debt_gate():
    text = (DATA / "cash-flow-debt.txt").read_text(encoding="utf-8")
    rules = rules_of(text)
    kinds = {(r["kind"], r.get("measure") or r.get("field") or "") for r in rules}
    assert {("positive", "distributable_profit"), ("positive", "retained"), ("audit_opinion", "")} <= kinds
    debt = [r for r in rules if r["kind"] == "compare"]
    # 资产负债率低于７０％ → liabilities < 70% of assets; 高于８０％的，可以不进行利润分配 → a condition ≤ 80%
    assert [(r["op"], r["ratio"]) for r in debt] == [("<", 0.7), ("<=", 0.8)]
    assert only(rules, "audit_opinion")["accepted"] == ["standard_unqualified", "unqualified_with_emphasis"]  # 无保留
    assert reviewed(text) == {}


def test_inline_conditions():
    # 600863 内蒙华电
    text = plan("公司在当年盈利、累计未分配利润为正，且公司现金流可以满足正常经营和可持续发展的情况下，采取现金方式分配股利。")
    got = {(r["kind"], r.get("measure") or r.get("field")) for r in rules_of(text)}
    assert got == {("positive", "net_profit_attributable"), ("positive", "retained"), ("judgment", "cash_flow_sufficient")}


def test_half_year_conditions_give_interim_checks():
    text = plan("实施现金分红时应同时满足的条件：\n（1）公司该年度或半年度实现的可供分配利润为正值；\n"
                "（2）审计机构对公司该年度、半年度财务报告出具标准无保留意见的审计报告。\n公司董事会可以提议进行中期现金分红。")
    interim = [r for r in rules_of(text) if r.get("when") == "interim_paid"]
    assert {(r["kind"], r.get("measure") or r.get("field")) for r in interim} == {
        ("positive", "half_year_distributable_profit"), ("audit_opinion", "half_year_audit_opinion")}
    assert all(r["severity"] == "warn" and r["role"] == "requirement" for r in interim)


def test_stage_table_rows_without_a_stage_take_the_previous_one():
    text = (DATA / "stage-inherit.txt").read_text(encoding="utf-8")
    rules = rules_of(text)
    assert share_rule(rules)["table"] == {"mature_no_major": 0.8, "mature_major": 0.4, "growth_no_major": None,
                                                  "growth_major": 0.2, "indeterminate_no_major": None,
                                                  "indeterminate_major": 0.2}
    vote = only(rules, "vote")  # 过半数 → more than half
    assert (vote["ratio"], vote["op"], vote["resolution"]) == ("1/2", ">", "ordinary")


def test_a_non_standard_table_and_a_fixed_share():
    # 831304 迪尔化工: 50% / 30% / 10%
    table = plan("公司发展阶段属成熟期且无重大资金支出安排的，进行利润分配时，现金分红在利润分配中所占比例最低应达到50%；"
                 "公司发展阶段属成熟期且有重大资金支出安排的，进行利润分配时，现金分红在利润分配中所占比例最低应达到30%；"
                 "公司发展阶段属成长期且有重大资金支出安排的，进行利润分配时，现金分红在利润分配中所占比例最低应达到10%；"
                 "公司发展阶段不易区分但有重大资金支出安排的，可以按照前项规定处理。")
    t = share_rule(rules_of(table))["table"]
    assert (t["mature_no_major"], t["mature_major"], t["growth_major"], t["indeterminate_major"]) == (0.5, 0.3, 0.1, 0.1)
    # 601156 东航物流: one fixed share, no stage
    fixed = plan("公司进行利润分配时，现金分红在该次利润分配中所占比例最低应达到20%。")
    assert share_rule(rules_of(fixed))["share"] == 0.2


@pytest.mark.parametrize("sentence, expect", [
    ("股东大会审议利润分配方案时，需经出席股东大会的股东（包括股东代理人）所持表决权的1/2以上通过。",
     ("vote", {"ratio": "1/2", "op": ">", "resolution": "ordinary"})),  # 1/2以上 cannot lower 过半数 (DOMAIN.md §5)
    ("股东大会审议发放股票股利或以资本公积金转增股本的方案时，需经出席股东大会的股东所持表决权的三分之二以上通过。",
     ("vote", {"ratio": "2/3", "op": ">=", "resolution": "special", "when": "stock_or_conversion"})),
    ("公司利润分配政策发生变动，应当由董事会拟定变动方案，提交股东大会审议批准，并经出席股东大会的股东所持表决权的2/3以上通过。",
     ("attestation", {})),  # a policy change: attested (the vote field is the distribution proposal's)
    ("公司董事会须在股东大会召开后两个月内完成股利（或股份）的派发事项。", ("within_months", {"months": 2})),
    ("公司股东大会对利润分配方案作出决议后，董事会须在股东大会召开后2个月内完成股利的派发事项。", ("within_months", {"months": 2})),
    ("公司当年盈利但未提出现金分红预案的，公司在召开股东大会时除现场会议外，还应向股东提供网络投票方式。",
     ("attestation", {"field": "online_voting_offered", "when": "profitable_no_cash"})),
    ("独立董事应对利润分配预案发表独立意见并公开披露。", ("attestation", {"field": "independent_directors_opinion"})),
    ("存在股东违规占用公司资金情况的，公司应当扣减该股东所分配的现金红利，以偿还其占用的资金。", ("attestation", {})),
    ("公司原则上每年度进行一次现金分红。", ("cash_paid", {"severity": "warn", "when": "conditions_met"})),
    ("公司具备现金分红条件时，应当采用现金分红进行利润分配。", ("cash_paid", {"when": ["conditions_met", "distribution_made"]})),
])
def test_procedures(sentence, expect):
    kind, params = expect
    rule = only(rules_of(plan(sentence)), kind)
    assert {k: rule.get(k) for k in params} == params
    assert reviewed(plan(sentence)) == {}


def test_the_cap_is_one_rule_per_distribution():
    """不得超过累计可分配利润: the final against the year end, the interim against its own period end (issue 47)."""
    sentence = "公司利润分配不得超过累计可分配利润的范围。"
    caps = rules_of(plan(sentence), "distribution_cap")
    assert [(r["id"], r["distribution"], r["clause"]) for r in caps] == [
        ("distribution_cap", "final", caps[0]["clause"]), ("distribution_cap_interim", "interim", caps[0]["clause"])]
    assert caps[0]["quote"] == caps[1]["quote"]
    assert reviewed(plan(sentence)) == {}


def test_buybacks_counted_and_cancelled_only():
    text = (DATA / "higher-of.txt").read_text(encoding="utf-8")
    d = draft_text(text)
    assert d.policy["settings"]["cash_includes_buybacks"] is True
    assert any("cash_includes_buybacks" in n for n in d.draft.setting_notes)
    # 600496 精工钢构: only buybacks cancelled count
    cancelled = plan("董事会可提议中期现金分红，以现金回购股份并注销的，回购金额纳入分红比例计算。")
    d = draft_text(cancelled)
    assert d.policy["settings"]["cash_buyback_basis"] == "buyback_cancelled"
    assert "一" not in reviewed(cancelled)  # (a text of no rule at all is reviewed as such, under 序言)


def test_what_nothing_reads_is_marked_for_review():
    text = (DATA / "unknown.txt").read_text(encoding="utf-8")
    got = reviewed(text)
    assert set(got) == {"三", "四"}  # 二 (两次分红) is drafted: min_distributions
    assert only(rules_of(text), "min_distributions")["count"] == 2
    assert "寄送经营简报" in got["三"][0]  # an obligation (应) nothing read
    assert "2%" in got["四"][0]  # a number nothing read
    p = draft_file(text)
    assert p["clauses"]["三"]["treatment"] == "informational" and p["clauses"]["三"]["note"].startswith("待复核 REVIEW")


def test_a_text_with_nothing_recognised_is_an_error_not_a_placeholder(tmp_path):
    """Issue 22: an empty draft is not hidden behind a placeholder attestation (every case missing_input)."""
    (tmp_path / "x.txt").write_text("某公司利润分配公告\n一、本公司将于下月召开年度股东大会。\n", encoding="utf-8")
    code, err = run_cli("draft", tmp_path / "x.txt", "-o", tmp_path / "x.yaml", "--years", "2025-2027")
    assert code == 2 and "未识别出任何规则" in err and "no rule recognised" in err and "x.txt" in err
    assert not (tmp_path / "x.yaml").exists() and not (tmp_path / "texts").exists()
    assert draft_text("某公司利润分配公告\n一、本公司将于下月召开年度股东大会。\n").empty  # the library still says why


# ---- the three published texts: drafted vs hand-written ------------------------------------------

@pytest.fixture(scope="module")
def drafted(tmp_path_factory) -> dict[str, tuple]:
    """Each published text drafted by the command (in-process) into a folder of its own, loaded back."""
    out = {}
    for pid in PLANS:
        folder = tmp_path_factory.mktemp(pid)
        code, err = run_cli("draft", TEXTS / f"{pid}.txt", "-o", folder / f"{pid}-draft.yaml")
        assert code == 0, err
        out[pid] = (load_policy(pid), load_policy_file(folder / f"{pid}-draft.yaml"), err)
    return out


def _clauses_of(policy, rule) -> set[str]:
    return {rule.clause} | {cid for cid, e in policy.clauses.items() if rule.id in e.rules}


def _reads(rule) -> tuple:
    return tuple(getattr(rule, k, None) for k in ("field", "measure", "distribution"))


def match_rules(template, draft) -> tuple[dict[str, str], list[str], list[str]]:
    """(template rule id -> drafted rule id, template rules without a match, drafted rules without one)."""
    pairs, used = {}, set()
    for t in template.rules:
        cands = [d for d in draft.rules if d.id not in used and d.kind == t.kind and d.role == t.role
                 and d.severity == t.severity and sorted(d.when) == sorted(t.when) and _reads(d) == _reads(t)
                 and _clauses_of(template, t) & _clauses_of(draft, d)]
        if len(cands) == 1:
            pairs[t.id] = cands[0].id
            used.add(cands[0].id)
    return pairs, [t.id for t in template.rules if t.id not in pairs], [d.id for d in draft.rules if d.id not in used]


@pytest.mark.parametrize("pid", PLANS)
def test_drafted_rules_match_the_template(drafted, pid):
    template, draft, _ = drafted[pid]
    pairs, missing, extra = match_rules(template, draft)
    assert missing == []
    assert {(pid, x) for x in extra} == {e for e in EXTRA if e[0] == pid}
    assert all(draft.rule(x).kind == "attestation" and draft.rule(x).field is None for x in extra)
    assert draft.settings == template.settings
    t, d = template.major_outlay, draft.major_outlay
    assert (d.definition, d.basis, d.ratio, d.floor, d.combine) == (t.definition, t.basis, t.ratio, t.floor, t.combine)
    assert tuple(draft.plan_years) == tuple(template.plan_years) and draft.adopted == template.adopted


def _carry(case, template, draft, pairs):
    """The case with its attestations under the drafted rules' ids (an extra one confirmed)."""
    own = {r.id for r in draft.rules if r.kind == "attestation" and r.field is None}
    plan_ids = {r.id for r in template.rules}
    att = {pairs.get(k, k): v for k, v in case.attestations.items() if k in pairs or k not in plan_ids}  # baseline: as is
    att.update({x: True for x in own if x not in pairs.values()})
    return dataclasses.replace(case, attestations=att)


_TOTALS = ("overall_status", "cash_conditions_met", "min_cash_dividend", "max_distribution", "fail_count", "warn_count",
           "missing_input_count", "st_risk_warning", "cash_needed_to_avoid_st", "min_cash_note_en")
_RULE = ("status", "actual", "required", "shortfall", "margin", "reason", "missing_inputs")


@pytest.mark.parametrize("pid", PLANS)
def test_drafted_policy_evaluates_like_the_template(drafted, pid):
    template, draft, _ = drafted[pid]
    pairs, _, _ = match_rules(template, draft)
    cases = parity_cases(pid, N)
    assert len(cases) == N
    mismatches = []
    for case in cases:
        a = evaluate(case, template)
        b = evaluate(_carry(case, template, draft, pairs), draft)
        rb = {r.id: r for r in b.rules}
        for k in _TOTALS:
            if getattr(a, k) != getattr(b, k):
                mismatches.append((case.source, k, getattr(a, k), getattr(b, k)))
        for r in a.rules:
            other = rb.get(pairs.get(r.id, r.id))  # regulatory rules keep their ids
            if other is None:
                mismatches.append((case.source, r.id, "no drafted rule"))
                continue
            for k in _RULE:
                mine = getattr(r, k)
                if k == "missing_inputs":  # a rule's own attestation input is named after its id
                    mine = [m.replace(f"attest.{r.id} ", f"attest.{pairs.get(r.id, r.id)} ") for m in mine]
                if mine != getattr(other, k):
                    mismatches.append((case.source, r.id, k, mine, getattr(other, k)))
    assert mismatches == []


@pytest.mark.parametrize("pid", PLANS)
def test_review_list_of_the_published_texts(drafted, pid):
    _, draft, err = drafted[pid]
    flagged = {cid for cid, e in draft.clauses.items() if (e.note or "").startswith("待复核 REVIEW")}
    assert flagged == REVIEWED[pid]
    assert f"{len(REVIEWED[pid])} clause" in err
    # every clause of the text is listed, none left without a treatment
    assert len(draft.clauses) == len(template_clauses(pid))


def template_clauses(pid):
    return load_policy(pid).clauses


def test_a_plan_not_seen_before():
    """A whole plan in the wording most plans share (CSRC guideline No. 3), none of the three texts: its rules
    (the major-outlay test as two branches), and a review list with exactly its one gap (an AGM-set interim cap)."""
    text = (DATA / "typical-plan.txt").read_text(encoding="utf-8")
    d = draft_text(text)
    p = d.policy
    assert (p["plan_years"], str(p["adopted"])) == ([2025, 2027], "2025-04-20")
    got = {(r["kind"], r["clause"]) for r in p["rules"]}
    assert {("positive", "二、(二)、1"), ("audit_opinion", "二、(二)、2"), ("no_major_outlay", "二、(二)、3"),
            ("min_cash", "二、(三)"), ("min_cash_rolling", "二、(三)"), ("cash_share", "二、(四)"), ("cash_paid", "二、(五)"),
            ("within_months", "三、4"), ("attestation", "三、5")} <= got
    assert only(p["rules"], "min_cash")["components"] == [{"type": "pct", "ratio": 0.15, "basis": "distributable_profit"}]
    assert p["major_outlay"]["branches"] == [
        {"basis": "net_assets", "ratio": 0.5, "op": ">=", "floor": 50_000_000, "floor_op": ">", "combine": "and"},
        {"basis": "total_assets", "ratio": 0.3, "op": ">="}]
    assert set(d.review_clauses) == {"二、(五)"}  # the AGM sets the interim cap: not in the text


# ---- the command --------------------------------------------------------------------------------

def test_command_writes_a_loadable_policy_with_its_text(tmp_path):
    src = tmp_path / "in" / "plan.txt"
    src.parent.mkdir()
    src.write_bytes((TEXTS / "gcl-energy-2022-2024.txt").read_bytes())
    out = tmp_path / "out" / "acme-2022-2024.yaml"
    code, err = run_cli("draft", src, "-o", out, "--company", "协鑫能源科技股份有限公司", "--stock-code", "002015")
    assert code == 0, err
    assert "recognised 22 rules, 0 clauses need review" in err  # 20, the interim's share and the interim's cap
    p = load_policy_file(out)
    assert p.id == "acme-2022-2024" and p.text == "texts/acme-2022-2024.txt"
    assert (out.parent / p.text).read_bytes() == src.read_bytes()
    assert (p.company.stock_code, p.company.board) == ("002015", "szse_main")  # the board from the code
    # a text inside the output's folder is named, not copied
    (tmp_path / "out" / "gcl.txt").write_bytes(src.read_bytes())
    code, err = run_cli("draft", tmp_path / "out" / "gcl.txt", "-o", tmp_path / "out" / "b.yaml", "--id", "b-plan")
    assert code == 0, err
    assert load_policy_file(tmp_path / "out" / "b.yaml").text == "gcl.txt"
    assert not (tmp_path / "out" / "texts" / "b-plan.txt").exists()


def test_command_never_overwrites_without_force(tmp_path):
    out = tmp_path / "p.yaml"
    out.write_text("mine", encoding="utf-8")
    code, err = run_cli("draft", TEXTS / "houpu-2024-2026.txt", "-o", out)
    assert code == 2 and "exists; pass --force" in err and out.read_text(encoding="utf-8") == "mine"
    assert not (tmp_path / "texts").exists()  # nothing else written either
    code, err = run_cli("draft", TEXTS / "houpu-2024-2026.txt", "-o", out, "--force")
    assert code == 0, err
    assert load_policy_file(out).id == "p"
    # the text copy of another plan with the same id is not overwritten either
    other = tmp_path / "q.yaml"
    (tmp_path / "texts" / "q.txt").write_text("另一个规划", encoding="utf-8")
    code, err = run_cli("draft", TEXTS / "houpu-2024-2026.txt", "-o", other)
    assert code == 2 and "texts/q.txt exists" in err.replace("\\", "/") and not other.exists()
    assert (tmp_path / "texts" / "q.txt").read_text(encoding="utf-8") == "另一个规划"


def test_command_reads_gb18030(tmp_path):
    src = tmp_path / "gb.txt"
    src.write_bytes((TEXTS / "far-east-2022-2024.txt").read_text(encoding="utf-8").encode("gb18030"))
    code, err = run_cli("draft", src, "-o", tmp_path / "out" / "fe.yaml")
    assert code == 0, err
    p = load_policy_file(tmp_path / "out" / "fe.yaml")  # the copy beside it is UTF-8: every quote checked
    assert len(p.rules) == 21  # 20, and the share of the interim distribution
    assert (tmp_path / "out" / p.text).read_text(encoding="utf-8") == (TEXTS / "far-east-2022-2024.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("content, words", [
    (None, "no such file"),
    (b"\xff\xfe" + "一、文本".encode("utf-16-le"), "UTF-16"),
    (b"\x00\x01binary\x00", "NUL"),
    (b"\x81\x30\xff\xff\xfe", "neither UTF-8 nor GB18030"),
    (b"a" * (2 * 2**20), "larger than"),
    ("   \n\n".encode(), "no clause"),
])
def test_command_errors_name_the_file(tmp_path, content, words):
    src = tmp_path / "plan.txt"
    if content is not None:
        src.write_bytes(content)
    code, err = run_cli("draft", src, "-o", tmp_path / "p.yaml")
    assert code == 2
    assert words in err and "plan.txt" in err and "Traceback" not in err
    assert not (tmp_path / "p.yaml").exists()


@pytest.mark.parametrize("args, words", [
    (["-o", "p.txt"], "must be a .yaml or .yml file"),
    (["-o", "p.yaml", "--id", "Not An Id"], "--id"),
    (["-o", "p.yaml", "--stock-code", "60086X"], "6-digit stock code"),
    # 600869 is listed in Shanghai: a Shenzhen suffix is refused, as a case file or a batch refuses it
    (["-o", "p.yaml", "--stock-code", "600869.SZ"], "600869"),
    (["-o", "p.yaml", "--years", "2024"], "--years"),
])
def test_command_option_errors(tmp_path, args, words):
    args = [a if not a.endswith((".yaml", ".txt")) else str(tmp_path / a) for a in args]
    code, err = run_cli("draft", TEXTS / "houpu-2024-2026.txt", *args)
    assert code == 2 and words in err, err


def test_nothing_from_the_text_becomes_live_content(tmp_path):
    hostile = plan("公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%。\n"
                   "!!python/object/apply:os.system ['echo pwned'] &a *a {x: y} [1, 2] # not a comment\x1b[31m\u202e",
                   "公司应当: \"quoted\" 'single' | > - ? @ ` %TAG ! \x07 严格遵守。",
                   title="示例公司未来三年（2025-2027年）股东分红回报规划 --- ... #")
    src = tmp_path / "h.txt"
    src.write_text(hostile, encoding="utf-8")
    code, err = run_cli("draft", src, "-o", tmp_path / "h.yaml")
    assert code == 0, err
    raw = (tmp_path / "h.yaml").read_text(encoding="utf-8")
    assert "\x1b" not in raw and "\x07" not in raw and "\u202e" not in raw  # escaped in comments and scalars
    assert "\x1b" not in err and "\u202e" not in err
    data = yaml.safe_load(raw)  # plain data: no tag, alias or anchor of the text is live
    assert data["title_zh"].endswith("---...#")  # white space dropped, the rest text
    p = load_policy_file(tmp_path / "h.yaml")
    assert only([r.model_dump() for r in p.rules], "min_cash")["components"][0]["ratio"] == 0.1
    assert "二" in {w for w, _ in draft_text(hostile).reviews}


def test_hostile_sizes_are_bounded(tmp_path):
    import time

    texts = ["一、" + "现金分红不低于30%，" * 40_000,
             "一、" + "(" * 100_000 + ")" * 100_000,
             "一、" + "成熟期且无重大资金支出安排的" * 30_000]
    for text in texts:  # CPU seconds (the machine is shared: wall time says more of the others than of this)
        t = time.process_time()
        draft_text(text)
        assert time.process_time() - t < 20


def test_repeated_clause_numbers_are_said():
    text = plan("公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%。") + "一、公司原则上每年进行一次现金分红。\n"
    assert [w for w, _ in draft_text(text).reviews] == ["clauses"]


@pytest.mark.parametrize("written", ["600869.SH", "SH600869", "600869"])
def test_stock_code_is_read_as_every_face_reads_it(tmp_path, written):
    """Issue 51.4: --stock-code takes a code as a batch, a case file or a workbook takes it (600869.SH)."""
    out = tmp_path / "p.yaml"
    code, err = run_cli("draft", TEXTS / "houpu-2024-2026.txt", "-o", out, "--company", "远东智慧能源股份有限公司",
                        "--stock-code", written)
    assert code in (0, 1), err
    p = load_policy_file(out)
    assert (p.company.stock_code, p.company.board) == ("600869", "sse_main")  # 600xxx: the SSE main board


def test_a_stock_code_without_its_leading_zeros_is_read_with_a_note(tmp_path):
    out = tmp_path / "p.yaml"
    code, err = run_cli("draft", TEXTS / "houpu-2024-2026.txt", "-o", out, "--company", "协鑫能源科技股份有限公司",
                        "--stock-code", "2015")
    assert code in (0, 1), err
    assert "002015" in err and "leading zeros restored" in err
    assert load_policy_file(out).company.stock_code == "002015"
