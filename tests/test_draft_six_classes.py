"""The six classes of wording issue 46 found drafted wrongly or dropped on real texts (part 3).

Each test's text is written in the wording of published plans and 章程 articles (compound conditions joined
by 且 / 并且 / 以及, duties to pay in cash, the parent's own statements, vote thresholds, 不为负 beside 为正,
章程 articles numbered 第X条 and texts with no title line); the expected reading is written by hand from the
text. Each fails under the mutation it names (the reader removed, or the wording read as its neighbour).
"""

from __future__ import annotations

from conftest import cli
from xlmodel.draft import NO_TITLE, draft_text

HEAD = "某某股份有限公司未来三年（2025年-2027年）股东分红回报规划\n"
MIN = "公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%。\n"


def rules(d, clause=None):
    return [r for r in d.policy["rules"] if clause is None or r["clause"] == clause]


def reviewed(d, clause):
    return [r for w, r in d.reviews if w == clause]


# ---- 1. compound conditions ----------------------------------------------------------------

def test_each_condition_of_a_compound_sentence_under_a_conditions_heading_is_a_condition():
    d = draft_text(HEAD + "一、现金分红的条件\n公司当年实现的净利润为正，且当年末未分配利润为正数，且审计机构对公司该年度财务报告"
                   "出具标准无保留意见的审计报告。\n二、现金分红的比例\n" + MIN)
    got = {(r["kind"], r.get("measure"), tuple(r.get("accepted", ()))): r["quote"] for r in rules(d, "一")}
    assert got == {("positive", "net_profit_attributable", ()): "公司当年实现的净利润为正",
                   ("positive", "retained", ()): "当年末未分配利润为正数",
                   ("audit_opinion", None, ("standard_unqualified",)): "审计机构对公司该年度财务报告出具标准无保留意见的审计报告"}
    [m] = rules(d, "二")
    assert m["kind"] == "min_cash" and m["when"] == "conditions_met"


def test_conditions_joined_by_bing_qie_before_a_frame_are_each_a_condition():
    d = draft_text(HEAD + "一、现金分红\n公司在当年实现的净利润为正值、且累计未分配利润为正值、并且审计机构对公司的该年度财务报告出具"
                   "标准无保留意见的审计报告的情况下，应当采取现金方式分配股利，每年以现金方式分配的利润不少于当年实现的可分配"
                   "利润的10%。\n")
    kinds = sorted((r["kind"], r.get("measure", "")) for r in rules(d, "一") if r["kind"] != "min_cash")
    assert kinds == [("audit_opinion", ""), ("positive", "net_profit_attributable"), ("positive", "retained")]


# ---- 2. duties to pay in cash -------------------------------------------------------------

def test_duties_to_pay_in_cash_worded_without_a_share_are_rules():
    d = draft_text(HEAD + "一、利润分配的形式\n公司应当采取现金方式分配股利。公司应当每年度进行利润分配。"
                   "利润分配方式中必须含有现金分配方式。\n二、现金分红的比例\n" + MIN)
    got = {r["quote"]: (r["kind"], r.get("when", "always"), r.get("count")) for r in rules(d, "一")}
    assert got == {"公司应当采取现金方式分配股利": ("cash_paid", "conditions_met", None),
                   "公司应当每年度进行利润分配": ("min_distributions", "conditions_met", 1),
                   "利润分配方式中必须含有现金分配方式": ("cash_paid", "distribution_made", None)}
    assert reviewed(d, "一") == []


def test_a_preference_for_cash_is_no_duty_to_pay_it():
    d = draft_text(HEAD + "一、利润分配的形式\n具备现金分红条件的，公司应当优先采用现金分红进行利润分配。\n二、比例\n" + MIN)
    assert rules(d, "一") == [] and d.policy["clauses"]["一"]["treatment"] == "informational"


# ---- 3. the parent's own statements --------------------------------------------------------

def test_the_parent_statement_qualifier_is_kept():
    d = draft_text(HEAD + "一、现金分红的条件\n公司实施现金分红应同时满足下列条件：\n1、母公司报表净利润为正；\n"
                   "2、母公司报表累计未分配利润为正。\n二、现金分红的比例\n" + MIN)
    assert d.policy["settings"]["retained_earnings_basis"] == "parent"  # not the lower of the two statements
    assert [r["measure"] for r in rules(d, "一、2")] == ["retained"]
    # the parent's own net profit (net_profit_parent), never the consolidated figure; nothing left to review
    assert [(r["kind"], r["measure"], r["quote"]) for r in rules(d, "一、1")] == \
        [("positive", "net_profit_parent", "母公司报表净利润为正")]
    assert reviewed(d, "一、1") == []


def test_net_profit_attributable_to_the_parents_shareholders_is_not_the_parent_statement():
    d = draft_text(HEAD + "一、现金分红的条件\n公司实施现金分红应同时满足下列条件：\n1、归属于母公司股东的净利润为正；\n"
                   "2、累计未分配利润为正。\n二、现金分红的比例\n" + MIN)
    assert [(r["kind"], r["measure"]) for r in rules(d, "一、1")] == [("positive", "net_profit_attributable")]
    assert d.policy["settings"]["retained_earnings_basis"] == "lower"


# ---- 4. vote thresholds ---------------------------------------------------------------------

def test_vote_thresholds_never_become_cash_ratios():
    d = draft_text(HEAD + "一、现金分红的比例\n" + MIN + "二、决策程序\n公司现金分红方案须分别经全体董事过半数以上、二分之一以上"
                   "独立董事表决通过后提交股东大会审议。董事会审议现金分红具体方案时，须经三分之二以上董事同意。\n")
    mins = [r for r in rules(d) if r["kind"] == "min_cash"]
    assert [(m["clause"], m["components"][0]["ratio"]) for m in mins] == [("一", 0.1)]
    assert len(reviewed(d, "二")) == 2  # flagged, each with the sentence it stands on


# ---- 5. zero and its neighbours -------------------------------------------------------------

def _cond(wording):
    d = draft_text(HEAD + "一、现金分红的条件\n公司实施现金分红应同时满足下列条件：\n1、公司累计可供分配利润" + wording + "；\n"
                   "2、审计机构对公司该年度财务报告出具标准无保留意见的审计报告。\n二、现金分红的比例\n" + MIN)
    [r] = rules(d, "一、1")
    return r["kind"], r.get("op"), r.get("amount")


def test_not_negative_is_at_least_zero_never_positive():
    for wording in ("不为负", "不为负数", "非负", "为非负数", "不低于零", "大于或等于零"):
        assert _cond(wording) == ("compare", ">=", 0), wording


def test_positive_is_above_zero():
    for wording in ("为正", "为正值", "大于零"):
        assert _cond(wording) == ("positive", None, None), wording


# ---- 6. structure -----------------------------------------------------------------------------

ARTICLES = ("第一百五十五条 公司的利润分配政策为：\n"
            "（一）利润分配原则：公司实行持续、稳定的利润分配政策，重视对投资者的合理投资回报。\n"
            "（二）现金分红的条件：公司当年实现的可分配利润为正值，且审计机构对公司该年度财务报告出具标准无保留意见的审计报告。\n"
            "（三）现金分红的比例：公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%。\n"
            "第一百五十六条 公司利润分配方案须经出席股东大会的股东所持表决权的过半数通过。\n")


def test_articles_numbered_di_x_tiao_are_clauses_and_no_body_line_is_the_title(tmp_path, capsys):
    d = draft_text(ARTICLES, years=(2025, 2027))
    assert d.policy["title_zh"] == NO_TITLE
    assert {r["clause"] for r in rules(d)} == {"第一百五十五条、(二)", "第一百五十五条、(三)", "第一百五十六条"}
    [vote] = rules(d, "第一百五十六条")
    assert vote["kind"] == "vote" and vote["ratio"] == "1/2" and vote["op"] == ">"
    src = tmp_path / "articles.txt"
    src.write_text(ARTICLES, encoding="utf-8")
    out = tmp_path / "articles-2025-2027.yaml"
    code, _, err = cli(capsys, "draft", src, "-o", out, "--years", "2025-2027")
    assert code == 0, err
    code, _, err = cli(capsys, "policies", "check", out)  # the loader splits the text into the same clauses
    assert code == 0, err


PARAGRAPHS = ("公司高度重视股东回报。根据《公司章程》，公司实施现金分红时，每年以现金方式分配的利润不少于当年实现的可分配利润的"
              "10%。\n\n现金分红的条件为：公司该年度实现的可分配利润为正值，且累计可分配利润为正值。\n")


def test_a_text_of_plain_paragraphs_is_drafted_paragraph_by_paragraph(tmp_path, capsys):
    d = draft_text(PARAGRAPHS, years=(2025, 2027))
    assert d.policy["title_zh"] == NO_TITLE  # its first sentence is no title
    got = sorted((r["clause"], r.get("measure", r["kind"])) for r in rules(d))
    assert got == [("第1段", "min_cash"), ("第2段", "distributable_profit"), ("第2段", "retained")]
    src = tmp_path / "answer.txt"
    src.write_text(PARAGRAPHS, encoding="utf-8")
    out = tmp_path / "answer-2025-2027.yaml"
    code, _, err = cli(capsys, "draft", src, "-o", out, "--years", "2025-2027")  # (it was refused: no numbered clause)
    assert code == 0, err
    assert cli(capsys, "policies", "check", out)[0] == 0


def test_a_title_line_above_plain_paragraphs_stays_the_title():
    d = draft_text("某某股份有限公司关于现金分红政策的说明\n" + PARAGRAPHS, years=(2025, 2027))
    assert d.policy["title_zh"].startswith("某某股份有限公司关于现金分红政策的说明")
    assert {r["clause"] for r in rules(d)} == {"第1段", "第2段"}


def test_an_answer_quoting_the_conditions_reads_them():
    d = draft_text("尊敬的投资者您好。根据《公司章程》的规定公司实施现金分红时应当满足“公司当年实现盈利且该年度的可供分配利润"
                   "（即公司弥补亏损、提取公积金后所余的税后利润）为正值”的条件。感谢您对公司的关注。\n", years=(2024, 2026))
    assert sorted((r["kind"], r["measure"]) for r in rules(d, "第1段")) == [("positive", "distributable_profit"),
                                                                          ("positive", "net_profit_attributable")]
