"""Quantitative minimums: the annual share of a profit basis, rolling windows, per-share and fixed floors.

Each share (``30%``, ``百分之三十``) in the text is read with what stands before it in
its sentence part — the comparison word, the profit basis, a window — rather than with
one pattern per plan, so the many wordings of the same term read alike:
``每年以现金方式分配的利润应不低于当年实现的可分配利润的10%``,
``现金分红总额占当年归母净利润的比例不低于70%``, ``按不低于……净利润的70%进行现金分红``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from . import numbers as nb
from .model import Draft, Rule
from .text import ClauseText
from .words import DIST, NPA, OP_WORDS

_RATIO = re.compile(nb.RATIO)
_BASIS = re.compile(rf"(?P<pre>年均|平均|累计|母公司|合并报表中?)?(?:当年|当期|该年度|该三年|三年|近三年|最近三年)?(?:实现的?)?"
                    rf"(?:合并报表中?)?(?P<w>{DIST}|{NPA}|(?:税后)?净利润)")
_OP = re.compile(OP_WORDS)
_CASH = re.compile(r"现金(?!流)|分红|派息|股息|红利")
_WINDOW = re.compile(r"(?P<kind>最近|近|任何|任意|未来)?(?<!\d)(?P<n>[三3五5两2])(?P<any>个连续|个?连续)?(?:个)?(?:会计)?年(?:度)?"
                     r"|(?P<any2>连续)(?P<n2>[三3五5])(?!\d)(?:个)?(?:会计)?年")
_NOT_MINIMUM = re.compile(r"表决权|成熟期|成长期|不易区分|发展阶段|所占比例|利润分配中|占比|资产负债率|净资产|总资产|资产总额|营业收入"
                          r"|营收|审计|研发")


@dataclass
class Share:
    """One share in the text and what stands before it."""

    m: re.Match
    left: str  # the text before it back to the sentence part's start (or the previous share)
    left_start: int
    right: str


def find_minimums(d: Draft) -> None:
    for c in d.clauses.values():
        for a, b in c.sentences():
            _sentence(d, c, a, b)


def _shares(c: ClauseText, a: int, b: int) -> list[Share]:
    s, out, prev = c.text, [], a
    for m in _RATIO.finditer(s, a, b):
        start = max(prev, s.rfind(";", prev, m.start()) + 1, s.rfind("。", prev, m.start()) + 1)
        right = s[m.end(): min(b, m.end() + 16)].split(";")[0]
        out.append(Share(m, s[start:m.start()], start, right))
        prev = m.end()
    return out


def _sentence(d: Draft, c: ClauseText, a: int, b: int) -> None:
    for sh in _shares(c, a, b):
        if d.is_covered(c.id, *sh.m.span()):
            continue
        tail = sh.left[-40:]
        if _NOT_MINIMUM.search(tail) or not (_CASH.search(sh.left) or _CASH.search(sh.right)):
            continue
        basis = _last(_BASIS, sh.left[-48:])
        piece = c.text[c.piece_at(*sh.m.span())[0]: sh.m.start()]  # the comparison stands with the share
        op = _last(_OP, piece[-56:])
        if op is not None and (re.search(nb.AMOUNT, piece[op.end():]) or nb.op_of(op.group(0)) not in (">=", ">")):
            op = None  # 累计现金分红将达到32.98亿元，占……的比例为65%: the word compares the amount; 低于: not a minimum
        if op is None and not sh.right.startswith(("以上", "及以上")):
            continue
        if _is_rolling(sh, basis):
            _rolling(d, c, sh, basis, b)
        else:
            _annual(d, c, sh, basis, b)


def _is_rolling(sh: Share, basis) -> bool:
    """A window term: on an average (年均), or cash cumulated (累计) over a window, not on the year's profit."""
    if re.search(r"年均|平均", sh.left):
        return True
    current = basis is not None and re.search(r"当年|当期|该年度", basis.group(0))
    return "累计" in sh.left and bool(_WINDOW.search(sh.left)) and not current


def _last(pattern: re.Pattern, s: str):
    found = None
    for m in pattern.finditer(s):
        found = m
    return found


def _basis_field(d: Draft, c: ClauseText, basis, sentence: str) -> tuple[str, str | None]:
    """(canonical field, review reason or None) for a profit basis as worded."""
    if basis is None:
        return "net_profit_attributable", "未写明利润口径（如“分红率”）：按归属于上市公司股东的净利润起草 the profit basis is not stated: drafted as attributable"
    w, pre = basis.group("w"), basis.group("pre") or ""
    if re.fullmatch(DIST, w):
        if "母公司" in pre or "母公司" in sentence[max(0, basis.start() - 12): basis.start()]:
            return "distributable_profit", "母公司当年可分配利润：无对应字段，按当年可分配利润起草 parent-company distributable profit has no field: drafted on distributable_profit"
        return "distributable_profit", None
    if re.fullmatch(NPA, w):
        if "国际财务报告" in sentence:
            return "net_profit_attributable", "国际财务报告准则口径：按中国会计准则的归母净利润起草 IFRS basis: drafted on the PRC-GAAP figure"
        return "net_profit_attributable", None
    return "net_profit_attributable", "“净利润”未说明口径：按归属于上市公司股东的净利润起草 net profit unspecified: drafted as attributable"


# ---- the year's minimum ---------------------------------------------------------------------

def _annual(d: Draft, c: ClauseText, sh: Share, basis, end: int) -> None:
    s = c.text
    field, why = _basis_field(d, c, basis, sh.left)
    r = nb.ratio(sh.m.group(0))
    if r is None or r > 1:
        d.review(c.id, f"比例未能读出 share not read: “{sh.m.group(0)}”")
        return
    comps: list[dict] = [{"type": "pct", "ratio": nb.fmt_ratio(r), "basis": field}]
    reviews = [why] if why else []
    pos = sh.m.end()
    rng = re.match(rf"\s*(?:-|~|至)\s*({nb.RATIO})", s[pos:end])
    if rng:
        pos += rng.end()
        reviews.append(f"比例区间（上限 {rng.group(1)}）：架构不支持分红上限，只起草下限 a payout band: the ceiling is not expressible")
    if re.search(r"主要|为主", sh.right):
        reviews.append("“主要采取现金分红”：下限针对全部利润分配，按现金起草 the floor is on the whole distribution "
                       "(mostly cash): drafted on cash")
    if re.search(r"约|左右", sh.left[-8:]):
        reviews.append("“约”为目标比例而非下限 “approximately”: a target, drafted as a minimum")
    combine, pos, more = _floors(c, pos, end, comps)
    reviews += more
    if re.search(r"[12]\d{3}年度?(?:、|和)[12]\d{3}年度?", sh.left) or re.search(r"逐年|逐步", sh.left):
        reviews.append("按年度分别规定（或逐年提高）：架构不支持年度参数 year-specific thresholds are not expressible")
    start = _part_start(c, sh)
    rule = Rule("min_annual", "min_cash", c.id, c.quote(start, pos), {"components": comps}, when=["conditions_met"])
    if len(comps) > 1:
        rule.params["combine"] = combine
    if "原则上" in sh.left:
        rule.severity = "warn"
        reviews.append("“原则上”：起草为警告（不是不通过） “in principle”: drafted as a warning, not a failure")
    rule.review = "；".join(reviews) or None
    d.add(rule, (start, pos))


def _part_start(c: ClauseText, sh: Share) -> int:
    """Where the term starts: the sentence part with its comparison word, and the parts before it that name
    the cash (``公司每年以现金方式分配的利润，不低于……``), not a ``在满足……条件下`` preamble."""
    pieces = c.pieces(sh.left_start, sh.m.start()) or [(sh.left_start, sh.m.start())]
    i = max([k for k, (x, y) in enumerate(pieces) if _OP.search(c.text, x, y)] or [len(pieces) - 1])
    while i > 0 and _CASH.search(c.text, *pieces[i - 1]) and not re.search(r"条件|前提", c.text[pieces[i - 1][0]:pieces[i - 1][1]]):
        i -= 1
    return pieces[i][0]


_FLOOR_ITEM = re.compile(
    rf"(?P<join>[^。;%]{{0,14}}?)(?:每股(?:派发|派)?(?:现金红利|现金股利|现金分红|派息|股息|分红|红利)?(?:金额)?(?P<op1>{OP_WORDS})"
    rf"(?:[^。;,]{{0,10}}?的)?(?P<ps>{nb.NUM})\s*元(?:人民币)?|(?P<op2>{OP_WORDS})?(?P<a>{nb.AMOUNT}))(?:\(含税\))?(?P<hl>孰高值?|孰低值?)?")


def _floors(c: ClauseText, pos: int, end: int, comps: list[dict]) -> tuple[str, int, list[str]]:
    """Per-share and fixed floors after a share in the same sentence part (且 / 或 / 孰高 / 孰低)."""
    s, joins, reviews = c.text, "", []
    while True:
        m = _FLOOR_ITEM.match(s, pos, end)
        if not m or re.search(r"表决|个月|%", m.group("join")):
            break
        if m.group("ps"):
            comps.append({"type": "per_share", "amount": nb.fmt_amount(nb.number(m.group("ps")))})
            reviews.append("每股派息下限：架构按含回购的现金计量 a per-share floor counts buybacks here (the plan's 派息 is "
                           "dividends only)")
        else:
            comps.append({"type": "fixed", "amount": nb.fmt_amount(nb.amount(m.group("a")))})
        joins += m.group("join") + (m.group("hl") or "")
        pos = m.end()
    if "孰低" in joins:
        return "lower_of", pos, reviews
    if "或" in joins and "孰高" not in joins:
        reviews.append("“或”：按孰低（任一满足即可）起草 “or”: drafted as lower-of (either suffices)")
        return "lower_of", pos, reviews
    return "higher_of", pos, reviews


# ---- rolling windows ---------------------------------------------------------------------------

def _rolling(d: Draft, c: ClauseText, sh: Share, basis, end: int) -> None:
    win = _WINDOW.search(sh.left)  # the term's own window opens it (a later 该三年 repeats it)
    n = nb.cn_int((win.group("n") or win.group("n2")) if win else "3") or 3
    kind = (win.group("kind") or "") if win else ""
    any_ = bool(win and (win.group("any") or win.group("any2") or kind in ("任何", "任意")))
    reviews = []
    field, why = _basis_field(d, c, basis, sh.left)
    if why:
        reviews.append(why)
    r = nb.ratio(sh.m.group(0))
    mode = "any" if any_ else "last"
    if not kind and win and not any_:
        reviews.append("窗口未说明为“最近N年”或“任意连续N年”：按最近N年起草 the window is not said to be the last or any N "
                       "years: drafted as the last N")
    if kind == "未来" or not win:
        reviews.append("规划期间窗口（如“未来三年累计”）：架构只支持最近N年/任意连续N年，按最近N年起草 a plan-period window is "
                       "drafted as the last N years")
    cumulative = basis is not None and (basis.group("pre") or "") == "累计" or bool(re.search(r"累计(?:实现的?)?(?:可供?分配|净利润)", sh.left[-16:]))
    if cumulative:
        r = r * n
        if r > 1:
            d.review(c.id, f"以窗口累计利润为基数且比例超过年均的100%（{sh.m.group(0)}×{n}），架构不支持 a share of the window's "
                           "total above 100% of the average is not expressible: not drafted")
            d.cover(c.id, sh.left_start, sh.m.end())
            return
        reviews.append(f"以窗口累计利润为基数：按年均利润的 {nb.fmt_ratio(r)} 起草 a share of the window's total, drafted on the average")
    if re.search(r"不得|不能", sh.right) or re.search(r"少于", sh.left[-30:]) and not re.search(r"不少于", sh.left[-30:]):
        d.review(c.id, f"滚动比例用于其他后果（如不得增发），不是分红下限 the rolling test has another effect: not drafted: “{c.quote(sh.left_start, sh.m.end())}”")
        d.cover(c.id, sh.left_start, sh.m.end())
        return
    pos = sh.m.end()
    if re.match(rf"[^。;]{{0,2}}或{nb.AMOUNT}", c.text[pos:end]):
        reviews.append("“或固定金额”替代项：架构不支持 an alternative fixed amount is not expressible")
        pos = re.match(rf"[^。;]{{0,2}}或{nb.AMOUNT}", c.text[pos:end]).end() + pos
    if not 2 <= n <= 5:
        d.review(c.id, f"窗口 {n} 年超出架构范围 a window of {n} years is not expressible")
        return
    start = win.start() + sh.left_start if win else _part_start(c, sh)
    params = {"window": n, "ratio": nb.fmt_ratio(Fraction(r)), "basis": field, "mode": mode}
    rule = Rule("min_rolling", "min_cash_rolling", c.id, c.quote(start, pos), params, when=["conditions_met"])
    if mode == "any":
        rule.note = "“任何连续N年”：每个评估年度检查以该年度结束的窗口；逐年评估即覆盖所有窗口。"
    if "原则上" in sh.left:
        rule.severity = "warn"
        reviews.append("“原则上”：起草为警告 “in principle”: drafted as a warning")
    rule.review = "；".join(reviews) or None
    d.add(rule, (start, pos))
