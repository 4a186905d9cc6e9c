"""Cases in which the company may pay no cash dividend (存在以下情形之一时，公司可以不实施现金分红).

Each case waives the minimums, so it is drafted as a condition of the cash dividend: its negation, with
the catalogue's condition kinds (DOMAIN.md §8, §8.1) —

* 资产负债率高于70% → ``compare: total_liabilities <= 0.7 × total_assets`` (达到或超过 → ``<``);
* 经营活动产生的现金流量净额为负 → ``compare: operating_cash_flow >= 0``; 低于注册资本的10% (or a share
  of the year's distributable or net profit, or an amount) → ``>=`` that bound;
* 当年亏损 / 净利润为负 → ``compare: net_profit_attributable >= 0``; 累计未分配利润为负 → ``retained >= 0``;
* 非标准无保留意见 (带强调事项段) → ``audit_opinion: [standard_unqualified]``; 保留、否定或无法表示意见 →
  the unqualified opinions, with or without an emphasis of matter;
* 有重大投资计划或重大现金支出 → ``no_major_outlay``; 现金流不足 / 影响持续经营 → the board's judgment.

Cases are read from a list — sub-clauses, or the parts after the colon — under a head such as
``存在以下情形之一的，可以不进行现金分红`` (or a heading ``不进行现金分红的情形``), and from a sentence that
ends ``……的，可以不进行现金分红``. A case nothing here reads (流动比率低于1) is a review item that says what
to write. ``X或Y，可不分配`` is two conditions: neither X nor Y.
"""

from __future__ import annotations

import re

from . import numbers as nb
from .model import Draft, Rule
from .suggest import rule_snippet
from .text import ClauseText
from .words import AMOUNT, DIST, NPA, OP_WORDS, RATIO

_NOT_PAY = (r"(?:暂)?不(?:进行|实施|派发|作|予|予以)?(?:现金分红|利润分配|分配利润|分红|现金方式分配股利|现金股利分配|现金分配"
            r"|分利润|派发现金红利)")
#: the head of a list of cases (its items follow: sub-clauses, or the parts after its colon)
HEAD = re.compile(r"(?:以下|下列|如下|下述)(?:任一|任何一种|任意一种|任意一项|特殊|任一种)?(?:情形|情况)(?:之一|中的任一|中的任何一种)?"
                  r"(?:的|时|下)?[,]?(?:的)?[,]?(?:公司)?(?:当年|当期|当年度|该年度)?(?:可以|可|将|有权)?" + _NOT_PAY)
#: a heading that is the list: ``（四）不进行现金分红的情形``
HEADING = re.compile(r"(?:可以|可)?不(?:进行|实施)(?:现金分红|利润分配)的(?:特殊)?(?:情形|情况)[:]?$")
#: the end of a sentence that states its own case: ``……的，（公司）（当年）可以不进行现金分红``
TAIL = re.compile(r"(?:的情况下|情况下|的|时)?[,]?(?:则)?(?:公司)?(?:当年|当期|当年度|该年度)?(?:可以|可|有权)" + _NOT_PAY)

_OCF = r"经营(?:活动产生的|活动|性)?(?:的)?现金流(?:量)?(?:净额)?"
_NEGATIVE = r"(?:为负(?:数|值)?|小于零|小于0|低于零|低于0|<0|为零或负数|不为正(?:数|值)?)"
_CASES: list[tuple[str, re.Pattern]] = [
    ("debt", re.compile(rf"资产负债率(?:\([^()]{{0,20}}\))?(?P<op>{OP_WORDS})?(?P<r>{RATIO})(?P<suf>及以上|以上|以下)?")),
    ("ocf_negative", re.compile(rf"{_OCF}{_NEGATIVE}")),
    ("ocf_share", re.compile(rf"{_OCF}(?P<op>{OP_WORDS}|不足)(?:公司)?(?:当年|当期|同期|期末)?(?:实现的)?(?:的)?"
                             rf"(?P<of>注册资本|{DIST}|{NPA}|(?:税后)?净利润)(?:(?:的)?(?P<r>{RATIO}))?")),  # (none: all of it)
    ("ocf_amount", re.compile(rf"{_OCF}(?P<op>{OP_WORDS}|不足)(?P<a>{AMOUNT})")),
    ("loss", re.compile(r"(?:当年度|当年|当期|本年度|该年度|公司)(?:发生|出现|经营)?亏损")),
    ("npa_negative", re.compile(rf"(?P<w>{NPA}|(?:税后)?净利润){_NEGATIVE}")),
    ("distributable_negative", re.compile(rf"(?<!累计)(?<!累计未)(?:实现的)?{DIST}(?:\([^()]{{0,80}}\))?{_NEGATIVE}")),
    ("retained_negative", re.compile(rf"(?:累计|期末)(?:[^。;,]{{0,8}}?)(?:{DIST}|未分配利润)(?:余额)?{_NEGATIVE}")),
    ("audit", re.compile(r"(?P<w>非标准无保留|非标准|非无保留|带有?强调事项段?|(?<!无)保留意见|否定意见|无法表示意见)")),
    ("major", re.compile(r"重大(?:投资计划|现金支出|资金支出|投资|支出)")),
    ("cash_short", re.compile(r"现金流(?:量)?(?:状况)?(?:不足|紧张|不能满足|无法满足)")),
    ("going", re.compile(r"(?:影响|损害)(?:公司)?(?:的)?(?:后续|正常)?(?:的)?持续经营")),
]
_NEG_OP = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}
_OF = {"注册资本": "registered_capital"}
_ZH = {"registered_capital": "注册资本", "distributable_profit": "当年可分配利润", "net_profit_attributable": "归属于上市公司股东的净利润"}


def find_exemption_lists(d: Draft) -> None:
    """Lists of cases: under a heading, or after a head sentence (its sub-clauses, else the parts after it)."""
    for c in d.clauses.values():
        if c.heading_only and c.children and HEADING.search(c.text[c.body:]):
            d.cover(c.id, c.body, len(c.text))
            _items(d, c)
            continue
        for a, b in c.sentences():
            m = HEAD.search(c.text, a, b)
            if m is None or d.is_covered(c.id, *m.span()):
                continue
            start = c.piece_at(*m.span())[0]
            d.cover(c.id, start, m.end())
            d.info(c.id, "可以不进行现金分红的情形：各项起草为现金分红条件（情形不出现）。")
            rest = re.match(r"[:,]", c.text[m.end(): m.end() + 1])
            if c.children and not (rest and re.search(r"[\u4e00-\u9fff]", c.text[m.end(): b])):
                _items(d, c)
            else:  # the cases follow in the sentence, cut at semicolons
                for x, y in c.parts(m.end(), b):
                    read_cases(d, c, x, y, in_list=True)
            break


def _items(d: Draft, c: ClauseText) -> None:
    """Each sub-clause's case (a definition of the major outlay after it is read with the definitions)."""
    for child in c.children:
        x = d.clauses[child]
        d.facts.setdefault("exemption_items", set()).add(child)
        for a, b in x.sentences():
            if not d.is_covered(child, a, b):
                read_cases(d, x, a, b, in_list=True)
                break  # the case is the item's first sentence; the rest (a definition, a note) is read as usual


def find_exemption_sentences(d: Draft) -> None:
    """``公司最近一期经审计的资产负债率超过70%的，当年可以不进行现金分红``: the case before the tail."""
    for c in d.clauses.values():
        if c.id in d.facts.get("exemption_items", ()):
            continue
        for a, b in c.sentences():
            if TAIL.search(c.text, a, b) is None:  # (most sentences: not split at all)
                continue
            for x, y in c.parts(a, b):
                t = TAIL.search(c.text, x, y)
                if t is None or d.is_covered(c.id, *t.span()):
                    continue
                start = x + len(re.match(r"(?:但|但是|如|若|如果|当|倘若)?(?:公司)?", c.text[x:t.start()]).group(0))
                if read_cases(d, c, start, t.start()):
                    d.cover(c.id, t.start(), t.end())


def read_cases(d: Draft, c: ClauseText, start: int, end: int, in_list: bool = False) -> int:
    """The cases worded in ``c.text[start:end]`` as conditions; in a list, a piece nothing read is a review item."""
    taken = bytearray(max(0, end - start) + 1)
    found = 0
    for name, pattern in _CASES:
        for m in pattern.finditer(c.text, start, end):
            if taken.find(1, m.start() - start, m.end() - start) >= 0:
                continue
            rule = _case(d, c, name, m, start, end)
            if rule is None:
                continue
            taken[m.start() - start: m.end() - start] = b"\x01" * (m.end() - m.start())
            x, y = c.piece_at(m.start(), m.end(), "、")  # the case's item, its 未来十二个月内 too
            d.add(rule, (max(start, x), min(end, y)))
            found += 1
    if in_list or found:
        _unread(d, c, start, end)
    return found


def _unread(d: Draft, c: ClauseText, start: int, end: int) -> None:
    for a, b in c.pieces(start, end, "、"):
        piece = re.sub(r"\([^()]*\)", "", c.text[a:b]).strip(",;:。、")
        if len(re.findall(r"[\u4e00-\u9fff]", piece)) >= 4 and not d.is_covered(c.id, a, b):
            q = c.quote(a, b)
            d.review(c.id, f"可以不进行现金分红的情形未能读出 a case that waives the cash dividend not recognised: “{q}”",
                     rule_snippet(c.id, q, "exemption"))
            d.cover(c.id, a, b)


def _item_quote(c: ClauseText, m) -> str:
    return c.quote(*c.piece_at(m.start(), m.end(), "、"))


#: cases that are an amount below zero: (duty, measure, what the condition says)
_NOT_NEGATIVE = {"ocf_negative": ("cond_ocf_not_negative", "operating_cash_flow", "经营活动现金流量净额不为负"),
                 "loss": ("cond_npa_not_negative", "net_profit_attributable", "归属于上市公司股东的净利润不为负"),
                 "npa_negative": ("cond_npa_not_negative", "net_profit_attributable", "归属于上市公司股东的净利润不为负"),
                 "distributable_negative": ("cond_distributable_not_negative", "distributable_profit", "当年可分配利润不为负"),
                 "retained_negative": ("cond_retained_not_negative", "retained", "累计可分配利润不为负")}
#: cases the board judges: (duty, field, what the condition says)
_JUDGED = {"cash_short": ("cond_cash_flow", "cash_flow_sufficient", "现金流充裕"),
           "going": ("cond_going_concern", "going_concern_unaffected", "不影响持续经营")}
_NET = "“净利润”未说明口径：按归属于上市公司股东的净利润起草 net profit unspecified: drafted as attributable"


def _case(d: Draft, c: ClauseText, name: str, m, start: int, end: int) -> Rule | None:
    """The condition a case waives the dividend without, or None when the words do not settle it."""
    q = _item_quote(c, m)
    said = f"“{q}”时可以不进行现金分红：起草为现金分红条件（"
    if name in _NOT_NEGATIVE:
        duty, measure, zh = _NOT_NEGATIVE[name]
        why = _NET if name == "npa_negative" and not re.fullmatch(NPA, m.group("w")) else None
        return Rule(duty, "compare", c.id, q, {"measure": measure, "op": ">=", "amount": 0}, note=said + zh + "）。",
                    review=why)
    if name in _JUDGED:
        duty, fld, zh = _JUDGED[name]
        return Rule(duty, "judgment", c.id, q, {"field": fld}, note=said + zh + "）。")
    return _BUILD[name](d, c, m, q, said, start, end)


def _debt(d: Draft, c: ClauseText, m, q: str, said: str, start: int, end: int) -> Rule | None:
    op = nb.op_of(m.group("op") or "", m.group("suf") or "")
    r = nb.ratio(m.group("r"))
    if op is None or r is None or r > 1:
        return None
    neg = _NEG_OP[op]
    return Rule("cond_debt_ratio", "compare", c.id, q,
                {"measure": "total_liabilities", "op": neg, "ratio": nb.fmt_ratio(r), "of": "total_assets"},
                note=said + f"资产负债率{neg}{m.group('r')}，即 总负债 {neg} 比例×总资产）。")


def _ocf_bound(d: Draft, c: ClauseText, m, q: str, said: str, start: int, end: int) -> Rule | None:
    """低于注册资本的10% / 低于当年……净利润（的30%） / 低于5,000万元: operating cash flow at least that."""
    op = nb.op_of(m.group("op")) if m.group("op") != "不足" else "<"
    if op is None:
        return None
    neg = _NEG_OP[op]
    if "a" in m.groupdict():
        a = nb.amount(m.group("a"))
        return None if a is None else Rule("cond_ocf_amount", "compare", c.id, q, {
            "measure": "operating_cash_flow", "op": neg, "amount": nb.fmt_amount(a)}, note=said + f"经营活动现金流量净额{neg}该金额）。")
    r = nb.ratio(m.group("r")) if m.group("r") else 1  # no share: all of it
    if r is None or r > 1:
        return None
    of, why = _of(m.group("of"))
    share = f"的{m.group('r')}" if m.group("r") else ""
    return Rule("cond_ocf_share", "compare", c.id, q, {"measure": "operating_cash_flow", "op": neg, "ratio": nb.fmt_ratio(r),
                                                        "of": of}, note=said + f"经营活动现金流量净额{neg}{_ZH[of]}{share}）。", review=why)


def _audit(d: Draft, c: ClauseText, m, q: str, said: str, start: int, end: int) -> Rule:
    """非标准无保留 / 带强调事项段 → only the standard opinion; 保留、否定或无法表示意见 → an unqualified one."""
    w = c.text[max(start, m.start() - 20): min(end, m.end() + 20)]
    accepted = ["standard_unqualified"] if re.search(r"非标准|强调事项", w) else ["standard_unqualified",
                                                                                "unqualified_with_emphasis"]
    return Rule("cond_audit_opinion", "audit_opinion", c.id, q, {"accepted": accepted},
                note=said + ("标准无保留意见）。" if len(accepted) == 1 else "无保留意见，含带强调事项段的）。"))


def _major(d: Draft, c: ClauseText, m, q: str, said: str, start: int, end: int) -> Rule | None:
    if re.search(r"无|没有|不存在|未(?:发生|有)|不(?:会)?(?:发生|有)", c.text[max(start, m.start() - 20): m.start()]):
        return None  # 无重大投资计划: a condition's wording, not a case
    d.facts.setdefault("no_major_quote", (c.id, q))
    return Rule("cond_no_major_outlay", "no_major_outlay", c.id, q, note=said + "无重大投资计划或重大现金支出）。")


_BUILD = {"debt": _debt, "ocf_share": _ocf_bound, "ocf_amount": _ocf_bound, "audit": _audit, "major": _major}


def _of(word: str) -> tuple[str, str | None]:
    if word in _OF:
        return _OF[word], None
    if re.fullmatch(DIST, word):
        return "distributable_profit", None
    if re.fullmatch(NPA, word):
        return "net_profit_attributable", None
    return "net_profit_attributable", "“净利润”未说明口径：按归属于上市公司股东的净利润起草 net profit unspecified: drafted as attributable"
