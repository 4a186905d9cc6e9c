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


#: a share that counts votes or people, never an amount: 全体董事过半数, 三分之二以上独立董事同意, 所持表决权的2/3
_VOTE_LEFT = re.compile(r"(?:董事|监事|委员|表决权|股东所持|出席会议)(?:人数|总数)?(?:的)?$")
_VOTE_RIGHT = re.compile(r"^(?:以上)?(?:的)?(?:独立)?(?:董事|股东|监事|委员|表决|同意|通过|投票)")


def is_vote(sh: "Share") -> bool:
    """The share is a vote threshold (a majority, two-thirds): a procedure's, never a cash ratio."""
    return bool(_VOTE_LEFT.search(sh.left) or _VOTE_RIGHT.match(sh.right) or sh.m.group(0) == "半数")


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
            if d.full:
                return
            _sentence(d, c, a, b)
            _per_share_alone(d, c, a, b)
            _amount_alone(d, c, a, b)


_PER_SHARE = re.compile(rf"每(?P<per>\d{{1,3}}|十)?股(?:派发|派|分配|分派)?(?P<what>现金红利|现金股利|现金分红|派息|股息|分红|红利)"
                        rf"(?:\(含税\))?(?:金额)?(?:应)?(?P<op>{OP_WORDS})(?:[^。;,]{{0,10}}?的)?(?:人民币)?"
                        rf"(?P<ps>{nb.NUM})\s{{0,3}}元(?:人民币)?(?:\(含税\))?")


def _per_share_alone(d: Draft, c: ClauseText, a: int, b: int) -> None:
    """``公司每股派发现金红利不低于0.10元（含税）`` in a sentence of its own: a floor on dividends alone."""
    for m in _PER_SHARE.finditer(c.text, a, b):
        if d.is_covered(c.id, *m.span()) or nb.op_of(m.group("op")) not in (">=", ">"):
            continue
        amount = per_share_amount(m)
        if amount is None:
            continue
        start = c.piece_at(*m.span())[0]
        d.add(Rule("min_per_share", "min_cash", c.id, c.quote(start, m.end()),
                   {"components": [{"type": "per_share", "amount": nb.fmt_amount(amount)}], "measure": "cash_dividend"},
                   when=["conditions_met"], severity="warn" if "原则上" in c.text[a:m.start()] else "fail",
                   note="每股派息下限只计现金红利（不含回购）。"), (start, m.end()))
        if re.search(r"回购[^。]{0,16}?不计入", c.text[m.end():b]):
            d.cover(c.id, m.end(), b)  # 以现金回购股份的金额不计入本项: what measure cash_dividend says


_AMOUNT_FLOOR = re.compile(rf"(?P<op>{OP_WORDS})(?P<a>{nb.AMOUNT})(?:\(含税\))?")
_NOT_A_DIVIDEND_FLOOR = re.compile(r"重大|支出|投资|资产|收入|营收|募集|回购|融资|借款|负债|注册资本|现金流|累计|连续|三年|五年|年均|平均|近|最近")


def _amount_alone(d: Draft, c: ClauseText, a: int, b: int) -> None:
    """``公司每年现金分红总额不低于人民币3亿元（含税）``: a fixed floor in a sentence part of its own (no share before
    it; one beside a share is read with it). An amount over a window (最近三年累计…不低于3亿元) is not one."""
    for m in _AMOUNT_FLOOR.finditer(c.text, a, b):
        if d.is_covered(c.id, *m.span()) or nb.op_of(m.group("op")) not in (">=", ">"):
            continue
        x = c.piece_at(*m.span())[0]
        before = c.text[max(a, x - 40) if x - a > 40 else a: m.start()]
        part = c.text[x: m.start()]
        if not (_CASH.search(part) or re.search(r"(?:现金分红|分红|派息|股利)(?:的)?(?:总额|金额|绝对额)", before[-20:])):
            continue
        if _NOT_A_DIVIDEND_FLOOR.search(before) or _RATIO.search(before):
            continue
        amount = nb.amount(m.group("a"))
        if amount is None:
            continue
        d.add(Rule("min_fixed", "min_cash", c.id, c.quote(x, m.end()), {"components": [{"type": "fixed", "amount": nb.fmt_amount(amount)}]},
                   when=["conditions_met"], severity="warn" if "原则上" in before else "fail",
                   note="固定金额下限：当年现金分红（含计入的回购）不低于该金额。"), (x, m.end()))


def _shares(c: ClauseText, a: int, b: int) -> list[Share]:
    s, out, prev = c.text, [], a
    for m in _RATIO.finditer(s, a, b):
        start = max(prev, s.rfind(";", prev, m.start()) + 1, s.rfind("。", prev, m.start()) + 1)
        right = s[m.end(): min(b, m.end() + 16)].split(";")[0]
        out.append(Share(m, s[start:m.start()], start, right))
        prev = m.end()
    return out


def _sentence(d: Draft, c: ClauseText, a: int, b: int) -> None:
    before = len(d.rules)
    for sh in _shares(c, a, b):
        if d.full:
            break
        if d.is_covered(c.id, *sh.m.span()):
            continue
        tail = sh.left[-40:]
        # the cash word stands with the share, or opens the sentence part of a later 三年累计 term (…10%或三年累计不少于年均30%)
        cash = _CASH.search(sh.left) or _CASH.search(sh.right) or ("累计" in sh.left
                                                                   and _CASH.search(c.text, max(a, sh.m.start() - 120), sh.m.start()))
        if _NOT_MINIMUM.search(tail) or not cash or is_vote(sh):
            continue
        basis = _last(_BASIS, sh.left[-48:])
        piece = c.text[max(c.piece_at(*sh.m.span())[0], sh.m.start() - 56): sh.m.start()]  # the comparison stands with it
        op = _last(_OP, piece)
        if op is not None and not re.search(nb.AMOUNT, piece[op.end():]) and nb.op_of(op.group(0)) == "<=" \
                and basis is not None and not _is_rolling(sh, basis):
            _ceiling(d, c, sh, basis, op)  # 现金分红总额不超过当年归母净利润的90%: a payout ceiling
            continue
        if (op is not None and nb.op_of(op.group(0)) == "<" and _is_rolling(sh, basis)
                and re.search(r"不得|不能", sh.right)):  # 少于年均30%，不得增发新股: a flag (see _rolling)
            _rolling(d, c, sh, basis, b)
            continue
        if op is not None and (re.search(nb.AMOUNT, piece[op.end():]) or nb.op_of(op.group(0)) not in (">=", ">")):
            op = None  # 累计现金分红将达到32.98亿元，占……的比例为65%: the word compares the amount; 低于: not a minimum
        band = op is None and re.match(rf"\s*(?:-|~|至)\s*{nb.RATIO}", sh.right) and basis is not None  # 应占……的30%-50%
        about = op is None and basis is not None and re.search(r"约|左右", sh.left[-8:] + sh.right[:3])  # 应占……的约50%
        if op is None and not sh.right.startswith(("以上", "及以上")) and not band and not about:
            continue
        if _is_rolling(sh, basis):
            _rolling(d, c, sh, basis, b)
        else:
            _annual(d, c, sh, basis, b)
    _either_of(d, c, a, b, d.rules[before:])


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


_NO_FIELD = ((re.compile(r"扣除非经常性损益|扣非"), "扣除非经常性损益后的净利润", "net profit after non-recurring items"),)
#: 母公司（报表）当年实现的净利润: the parent's own net profit (net_profit_parent), never 归属于母公司股东的
_PARENT_NET = re.compile(r"(?<!归属于)(?<!归属)母公司(?:报表)?(?:当年|当期)?(?:实现的?)?(?:的)?$")


def _basis_field(d: Draft, c: ClauseText, basis, sentence: str) -> tuple[str, str | None]:
    """(canonical field, review reason or None) for a profit basis as worded; ``basis`` is a match in the last 48
    characters of ``sentence`` (the text before the share)."""
    if basis is None:
        return "net_profit_attributable", "未写明利润口径（如“分红率”）：按归属于上市公司股东的净利润起草 the profit basis is not stated: drafted as attributable"
    w, pre = basis.group("w"), basis.group("pre") or ""
    if "国际财务报告" in sentence and re.search(r"较少者|较低者|孰低", sentence) and \
            re.search(r"(?:扣除|提取)法定(?:储备|公积金?)后的?$", basis.string[:basis.start("w")]):
        # ……较少者为准……扣除法定储备后净利润: the lower of the two profits after the statutory reserves
        return "distributable_profit_lower", None
    window = sentence[-48:]
    before = window[max(0, basis.start() - 24): basis.start()] + (basis.group(0)[: basis.start("w") - basis.start()])
    if re.fullmatch(DIST, w):
        if "母公司" in pre or "母公司" in window[max(0, basis.start() - 12): basis.start()]:
            return "distributable_profit", "母公司当年可分配利润：无对应字段，按当年可分配利润起草 parent-company distributable profit has no field: drafted on distributable_profit"
        return "distributable_profit", None
    if _PARENT_NET.search(before) and not re.fullmatch(NPA, w) and "扣除非经常性损益" not in before:
        return "net_profit_parent", None
    for pattern, zh, en in _NO_FIELD:
        if pattern.search(before):
            return "net_profit_attributable", (f"{zh}：无对应字段，按归属于上市公司股东的净利润起草，请核对（或改用模型可计算的口径） "
                                               f"{en} has no field: drafted on net profit attributable; check it")
    if re.fullmatch(NPA, w):
        if "国际财务报告" in sentence:
            if re.search(r"较少者|较低者|孰低", sentence):  # 以中国会计准则和国际财务报告准则……较少者为准
                return "net_profit_attributable_lower", None
            return "net_profit_attributable", "国际财务报告准则口径：按中国会计准则的归母净利润起草 IFRS basis: drafted on the PRC-GAAP figure"
        return "net_profit_attributable", None
    return "net_profit_attributable", "“净利润”未说明口径：按归属于上市公司股东的净利润起草 net profit unspecified: drafted as attributable"


# ---- the year's minimum ---------------------------------------------------------------------

def _annual(d: Draft, c: ClauseText, sh: Share, basis, end: int) -> None:
    field, why = _basis_field(d, c, basis, sh.left)
    r = nb.ratio(sh.m.group(0))
    if r is None or r > 1:
        d.review(c.id, f"比例未能读出 share not read: “{sh.m.group(0)}”")
        return
    comp, pos, reviews, only_named = _ratio_by_year(d, c, sh, r, field, end)
    comps: list[dict] = [comp]
    reviews = ([why] if why else []) + reviews
    band = _BAND.match(c.text, pos, end)
    ceiling = None
    if band:  # 应占……净利润的30%-50%: a minimum and a ceiling
        ceiling = nb.ratio(band.group(1))
        pos = band.end()
    part = c.text[_part_start(c, sh): sh.m.start()]
    target = bool(re.search(r"约|左右", sh.left[-8:] + sh.right[:3]) or re.search(r"力争|争取|目标", part))
    share_end = pos
    combine, pos, more, per_share = _floors(c, pos, end, comps)
    reviews += more
    if only_named and (len(comps) > 1 or per_share):
        reviews.append("固定金额或每股下限与比例同列于所列年度：比例只在所列年度适用，固定金额或每股下限按每年起草，请核对 "
                       "a floor beside a ratio promised for named years is drafted for every year: check it")
    start = _part_start(c, sh)
    if only_named:  # the years the ratio is promised for open the quote
        start = min(start, c.sentence_at(sh.m.start())[0])
    quote_end = share_end if per_share and len(comps) == 1 else pos  # 且每股派息……: the per-share rule's own words
    rule = Rule("min_annual", "min_cash", c.id, c.quote(start, quote_end), {"components": comps},
                when=["conditions_met"])
    if only_named:
        rule.note = "规划只对所列年度承诺该比例：规划期间的其他年度比例为 0（不设此下限）。"
    if len(comps) > 1:
        rule.params["combine"] = combine
    _qualify(rule, _measure(c, sh, part, end), target, "原则上" in sh.left, reviews)
    rule.params["_span"] = (start, pos)
    d.add(rule, (start, pos))
    for ps, (x, y) in per_share:  # 且每股派息不低于0.1元: a floor on dividends alone (the ratio counts buybacks)
        d.add(Rule("min_per_share", "min_cash", c.id, c.quote(x, y), {"components": [ps], "measure": "cash_dividend"},
                   when=list(rule.when), severity="warn" if "原则上" in sh.left else "fail",
                   note="每股派息下限只计现金红利（不含回购）；比例下限计入回购。"))
    if ceiling is not None:
        d.add(Rule("payout_ceiling", "compare", c.id, c.quote(start, pos),
                   {"measure": "cash", "op": "<=", "ratio": nb.fmt_ratio(ceiling), "of": field}, role="requirement",
                   when=["cash_paid"], note=f"比例区间的上限：现金分红不超过{band.group(1)}。"))


def _ratio_by_year(d: Draft, c: ClauseText, sh: Share, r: Fraction, field: str, end: int) -> tuple[dict, int, list[str], bool]:
    """The share's component: one ratio; ratios listed year by year (65%、70%、75%); or one ratio promised for some of
    the plan's years only (0 in the others). (component, position after it, review reasons, for named years only)."""
    by_year, pos, reviews = _by_year(c, sh, sh.m.end(), end)
    if by_year:
        return {"type": "pct", "by_year": by_year, "basis": field}, pos, reviews, False
    if re.search(r"逐步", sh.left):
        reviews.append("逐步提高而未列出各年比例：按最终比例起草 a rising ratio without the years' values: drafted at the "
                       "final ratio")
    named, more = _named_years(d, c, sh)
    reviews += more
    if named is None:
        return {"type": "pct", "ratio": nb.fmt_ratio(r), "basis": field}, pos, reviews, False
    # 公司承诺2025年度、2026年度……不低于……70%: those years only (0 in the plan's others)
    ratios = {y: nb.fmt_ratio(r) if y in named else 0 for y in sorted(named | _plan_years(d))}
    return {"type": "pct", "by_year": ratios, "basis": field}, pos, reviews, True


def _measure(c: ClauseText, sh: Share, part: str, end: int) -> str:
    """What the minimum counts: the cash, or the whole distribution (每年累计分配的利润不低于……55%，主要采取现金分红 /
    分配的利润……可以采取现金分红或股票股利)."""
    rest = c.text[sh.m.end(): min(end, sh.m.end() + 40)]
    if re.search(r"主要|为主", sh.right) or (re.search(r"分配的利润|利润分配", part) and "现金" not in part
                                             and re.search(r"股票股利|股票", rest)):
        return "distribution"
    return "cash"


def _qualify(rule: Rule, measure: str, target: bool, principle: bool, reviews: list[str]) -> None:
    """A minimum on the whole distribution, a target (约, 力争: informs), in principle (原则上: a warning)."""
    if measure != "cash":
        rule.params["measure"] = measure
        rule.note = "“每年累计分配的利润……主要采取现金分红”：下限针对利润分配总额（现金+股票股利）。"
    if target:
        rule.params["raises_minimum"] = False
        rule.severity = "warn"
        rule.duty = "target_payout"
        rule.note = "目标比例（“约”“力争”）：低于时警告，不提高最低现金分红。"
    if principle and not target:
        rule.severity = "warn"
        reviews.append("“原则上”：起草为警告（不是不通过） “in principle”: drafted as a warning, not a failure")
    rule.review = "；".join(reviews) or None


_BAND = re.compile(rf"\s{{0,3}}(?:-|~|至)\s{{0,3}}({nb.RATIO})")
_YEARS_LISTED = re.compile(r"((?:19|20)\d\d)\s*年(?:度)?")


def _plan_years(d: Draft) -> set[int]:
    lo, hi = d.facts.get("plan_years") or (0, -1)
    return set(range(lo, hi + 1))


def _named_years(d: Draft, c: ClauseText, sh: Share) -> tuple[set[int] | None, list[str]]:
    """The fiscal years a ratio is promised for when they are some of the plan's years, not all of them
    (``公司承诺，2025年度、2026年度……`` / ``2025年至2026年……``, before the share in its sentence); None when the
    sentence names none, or all the plan's years (or more: the term then runs over the whole plan)."""
    a, _ = c.sentence_at(sh.m.start())
    left = c.text[a: sh.m.start()]
    years: set[int] = set()
    for m in _YEAR_RANGE.finditer(left):
        lo, hi = int(m.group(1)), int(m.group(2))
        if 0 <= hi - lo <= 9:
            years |= set(range(lo, hi + 1))
    years |= {int(y) for y in _YEARS_LISTED.findall(left) if not re.search(rf"{y}\s*年(?:度)?(?:的|实现)", left)}
    if not years:
        return None, []
    plan = _plan_years(d)
    if not plan:
        return None, [f"比例只承诺于所列年度（{'、'.join(map(str, sorted(years)))}），规划期间未能读出：按每年起草 a ratio "
                      "promised for named years, the plan's years unknown: drafted for every year"]
    if not years & plan:
        return None, [f"所列年度（{'、'.join(map(str, sorted(years)))}）不在规划期间内：按每年起草 the years named are not the "
                      "plan's: drafted for every year"]
    if plan <= years or not years <= plan:
        return None, []
    return years, []
_YEAR_RANGE = re.compile(r"((?:19|20)\d\d)\s*年?\s*度?\s*(?:-|~|至|到)\s*((?:19|20)\d\d)")


def _by_year(c: ClauseText, sh: Share, pos: int, end: int) -> tuple[dict | None, int, list[str]]:
    """``2025年度、2026年度、2027年度……分别不低于……65%、70%、75%`` or ``2024-2026年……逐年提升至65%、70%、75%``:
    one ratio for each fiscal year (each from that year on); (ratios by year or None, position after them, reviews)."""
    s, ratios, p = c.text, [sh.m.group(0)], pos
    while (m := re.match(rf"\s*[、,]\s*({nb.RATIO})", s[p:end])) is not None:
        ratios.append(m.group(1))
        p += m.end()
    if len(ratios) == 1:
        return None, pos, []
    years = [int(y) for y in _YEARS_LISTED.findall(sh.left)]
    rng = _YEAR_RANGE.search(sh.left)
    if len(years) != len(ratios) and rng and re.search(r"逐年|分别|依次", sh.left):
        lo, hi = int(rng.group(1)), int(rng.group(2))
        years = list(range(lo, hi + 1)) if 0 <= hi - lo <= 9 else []
    values = [nb.ratio(x) for x in ratios]
    if len(years) != len(ratios) or len(set(years)) != len(years) or any(v is None or v > 1 for v in values):
        return None, pos, [f"按年度列出的比例（{'、'.join(ratios)}）与年度未能一一对应：只起草第一个 ratios by year that do not "
                           "match the years: the first drafted"]
    return {y: nb.fmt_ratio(v) for y, v in zip(years, values)}, p, []


def _ceiling(d: Draft, c: ClauseText, sh: Share, basis, op) -> None:
    """``分红金额不得超过当期归属于上市公司股东净利润的15%``: cash ≤ ratio × the basis (an interim one when
    the sentence is about an interim dividend)."""
    field, why = _basis_field(d, c, basis, sh.left)
    r = nb.ratio(sh.m.group(0))
    if r is None or r > 1:
        return
    start = _part_start(c, sh)
    a, b = c.sentence_at(sh.m.start())
    interim = bool(re.search(r"中期|半年度", c.text[a:b]))
    params = {"measure": "cash", "op": "<=", "ratio": nb.fmt_ratio(r), "of": field}
    when = ["cash_paid"]
    if interim and field == "net_profit_attributable":
        params.update(measure="interim_cash_dividend", of="half_year_net_profit_attributable")
        when = ["interim_paid"]
    rule = Rule("interim_cap" if interim else "payout_ceiling", "compare", c.id, c.quote(start, sh.m.end()), params,
                role="requirement", when=when, review=why)
    d.add(rule, (start, sh.m.end()))


def _part_start(c: ClauseText, sh: Share) -> int:
    """Where the term starts: the sentence part with its comparison word, and the parts before it that name
    the cash (``公司每年以现金方式分配的利润，不低于……``), not a ``在满足……条件下`` preamble."""
    pieces = c.pieces(sh.left_start, sh.m.start()) or [(sh.left_start, sh.m.start())]
    i = max([k for k, (x, y) in enumerate(pieces) if _OP.search(c.text, x, y)] or [len(pieces) - 1])
    while i > 0 and _CASH.search(c.text, *pieces[i - 1]) and not re.search(r"条件|前提", c.text[pieces[i - 1][0]:pieces[i - 1][1]]):
        i -= 1
    return pieces[i][0]


#: a floor per share: 每股派息 / 每股派发现金红利 / 每10股派发现金红利 (the amount is then for ten shares)
PER_SHARE = (rf"每(?P<per>\d{{1,3}}|十)?股(?:派发|派|分配|分派)?(?:现金红利|现金股利|现金分红|派息|股息|分红|红利)?(?:\(含税\))?(?:金额)?"
             rf"(?:应)?(?P<op1>{OP_WORDS})(?:[^。;,]{{0,10}}?的)?(?:人民币)?(?P<ps>{nb.NUM})\s{{0,3}}元(?:人民币)?")
_FLOOR_ITEM = re.compile(
    rf"(?P<join>[^。;%]{{0,14}}?)(?:{PER_SHARE}|(?P<op2>{OP_WORDS})?(?P<a>{nb.AMOUNT}))(?:\(含税\))?(?P<hl>孰高值?|孰低值?)?")
#: after the floors: which of them binds — ``两者满足其一即可`` / ``以孰低者为准`` (either) or ``孰高`` (both)
_WHICH = re.compile(r"[,]?(?:以|取|按)?(?:两者|二者|上述两者|两项|前述两者)?(?:中)?(?:的)?"
                    r"(?:(?P<lo>孰低|较低|较少|满足其一|满足其中之一|其中之一|之一|任一)|(?P<hi>孰高|较高|较多|同时满足))"
                    r"(?:者|值|项|标准)?(?:即可)?(?:为准)?")


def per_share_amount(m) -> Fraction | None:
    """元 a share from a :data:`PER_SHARE` match (每10股派发现金红利2元 → 0.2)."""
    ps = nb.number(m.group("ps"))
    per = m.group("per")
    n = 1 if not per else (10 if per == "十" else int(per))
    return None if ps is None or not n else ps / n


def _floors(c: ClauseText, pos: int, end: int, comps: list[dict]) -> tuple[str, int, list[str], list[dict]]:
    """Per-share and fixed floors after a share in the same sentence part (且 / 或 / 孰高 / 孰低, and a closing
    ``两者满足其一即可`` / ``以孰高者为准``). A per-share floor joined by 且 (每股派息 / 每股派发现金红利: dividends)
    is a rule of its own on dividends alone (the last item returned); joined by 或 / 孰低 it stays a component
    of the share's rule."""
    s, joins, reviews, items = c.text, "", [], []
    while True:
        m = _FLOOR_ITEM.match(s, pos, end)
        if not m or re.search(r"表决|个月|%", m.group("join")):
            break
        value = per_share_amount(m) if m.group("ps") else nb.amount(m.group("a"))
        if value is None:  # beyond any amount a rule takes: left for the number check (a review item)
            break
        items.append((m, {"type": "per_share" if m.group("ps") else "fixed", "amount": nb.fmt_amount(value)}))
        joins += m.group("join") + (m.group("hl") or "")
        pos = m.end()
    which = _WHICH.match(s, pos, end) if items else None
    if which:
        joins += "孰低" if which.group("lo") else "孰高"
        pos = which.end()
    either = "孰低" in joins or ("或" in joins and "孰高" not in joins)
    own = [(x, (m.end("join"), m.end())) for m, x in items if x["type"] == "per_share" and not either]
    comps += [x for _, x in items if not any(x is y for y, _ in own)]
    if either and any(x["type"] == "per_share" for _, x in items):
        reviews.append("每股派息下限与比例“或”：按含回购的现金计量 a per-share floor as an alternative counts buybacks here")
    if "孰低" in joins:
        return "lower_of", pos, reviews, own
    if "或" in joins and "孰高" not in joins:
        reviews.append("“或”：按孰低（任一满足即可）起草；若两者都须满足，将 combine 改为 higher_of “or”: drafted as lower-of "
                       "(either suffices); if both must hold, write combine: higher_of")
        return "lower_of", pos, reviews, own
    return "higher_of", pos, reviews, own


# ---- rolling windows ---------------------------------------------------------------------------

#: a document's name (《公司未来三年（2017年-2019年）股东回报规划》): its years are not the term's window
_TITLE = re.compile(r"《[^《》]{0,80}》")


def _untitled(s: str) -> str:
    """``s`` with the text of each 《…》 blanked (same length, so positions hold)."""
    return _TITLE.sub(lambda m: "\u3000" * len(m.group(0)), s)


def _fixed_alternative(c: ClauseText, pos: int, end: int, reviews: list) -> tuple:
    """(amount, combine, pos): a fixed amount for the window beside the ratio (年均净利润30%或5000万元, 且不少于…),
    how the two combine, and where the term ends; (None, None, pos) without one."""
    amount, combine = None, None
    alt = re.match(rf"[^。;]{{0,2}}(?P<join>或|且不(?:少|低)于)(?P<a>{nb.AMOUNT})", c.text[pos:end])
    if alt and nb.amount(alt.group("a")) is None:
        alt = None  # an absurd amount: left for the number check
    if alt:  # 年均净利润30%或5000万元: a fixed amount for the window beside the ratio
        amount = nb.fmt_amount(nb.amount(alt.group("a")))
        pos += alt.end()
        rest = c.text[pos:end]
        if alt.group("join") != "或":
            combine = "higher_of"  # 且不少于: both
        elif re.match(r"[^。;]{0,6}(?:满足其一|之一|任一|孰低)", rest):
            combine = "lower_of"
            pos += re.match(r"[^。;]{0,6}(?:满足其一|之一|任一|孰低)(?:即可)?", rest).end()
        else:
            combine = "lower_of"
            reviews.append("“或固定金额”：按任一满足（孰低）起草，规划原文未明确 “or a fixed amount”: drafted as either "
                           "suffices (lower of); the text does not settle it")
    return amount, combine, pos


def _rolling(d: Draft, c: ClauseText, sh: Share, basis, end: int) -> None:
    left = _untitled(sh.left)
    win = _WINDOW.search(left)  # the term's own window opens it (a later 该三年 repeats it)
    n = nb.cn_int((win.group("n") or win.group("n2")) if win else "3") or 3
    kind = (win.group("kind") or "") if win else ""
    any_ = bool(win and (win.group("any") or win.group("any2") or kind in ("任何", "任意")))
    reviews = []
    field, why = _basis_field(d, c, basis, sh.left)
    if why:
        reviews.append(why)
    r = nb.ratio(sh.m.group(0))
    mode = "any" if any_ else "last"
    if not kind and win and not any_ and not (_YEAR_RANGE.search(left) and kind not in ("最近", "近")):
        reviews.append("窗口未说明为“最近N年”或“任意连续N年”：按最近N年起草 the window is not said to be the last or any N "
                       "years: drafted as the last N")
    span = _YEAR_RANGE.search(left)
    # 未来三年 / 2025年至2027年三个年度: the plan's own years (not the last or any N years)
    period = kind == "未来" or (span is not None and kind not in ("最近", "近", "任何", "任意") and not any_)
    if not win and not period:
        reviews.append("未写明窗口：按最近三年起草 no window stated: drafted as the last three years")
    cumulative = basis is not None and (basis.group("pre") or "") == "累计" or bool(re.search(r"累计(?:实现的?)?(?:可供?分配|净利润)", sh.left[-16:]))
    if cumulative and r is not None and r > 1:
        d.review(c.id, f"以窗口累计利润为基数的比例超过100%（{sh.m.group(0)}） a share of the window's total above 100%: not drafted")
        d.cover(c.id, sh.left_start, sh.m.end())
        return
    flag = bool(re.search(r"不得|不能", sh.right) or re.search(r"少于", sh.left[-30:]) and not re.search(r"不少于", sh.left[-30:]))
    aim = bool(re.search(r"力争|争取|目标", sh.left))  # 公司力争最近三年……不少于……35%: a target
    pos = sh.m.end()
    amount, combine, pos = _fixed_alternative(c, pos, end, reviews)
    if not 2 <= n <= 5:
        d.review(c.id, f"窗口 {n} 年超出架构范围 a window of {n} years is not expressible")
        return
    start = win.start() + sh.left_start if win else _part_start(c, sh)
    if period and amount is not None:
        reviews.append("规划期间窗口的固定金额替代项：架构不支持，仅起草比例 a fixed amount beside a plan-period "
                       "window is not expressible: the ratio alone is drafted")
    if period:
        params: dict = {"ratio": nb.fmt_ratio(Fraction(r)), "basis": field}
        if span and not kind:
            params["years"] = [int(span.group(1)), int(span.group(2))]
        if cumulative:
            params["basis_mode"] = "total"
        rule = Rule("min_plan_period", "min_cash_plan_period", c.id, c.quote(start, pos), params, when=["conditions_met"],
                    note="规划期间窗口：于期间最后一年检查，此前为累计进度。")
    else:
        params = {"window": n, "ratio": nb.fmt_ratio(Fraction(r)), "basis": field, "mode": mode}
        if cumulative:
            params["basis_mode"] = "total"
        if amount is not None:
            params.update(amount=amount, combine=combine)
        rule = Rule("min_rolling", "min_cash_rolling", c.id, c.quote(start, pos), params, when=["conditions_met"])
        if mode == "any":
            rule.note = "“任何连续N年”：每个评估年度检查以该年度结束的窗口；逐年评估即覆盖所有窗口。"
    if flag:  # 最近三年现金累计分配利润少于年均可分配利润30%，不得增发新股: a test with another effect
        rule.params["raises_minimum"] = False
        rule.severity = "warn"
        rule.when = ["always"]  # not a dividend duty under the conditions: a fact with another consequence
        rule.duty += "_flag"
        rule.note = "低于该比例另有后果（如不得增发新股）：提示性检查，低于时警告，不提高最低现金分红。"
        if c.text[pos:end].startswith(",") or c.text[pos:end].startswith("，"):
            pos = c.piece_at(pos + 1, pos + 2)[1]
    elif aim:
        rule.params["raises_minimum"] = False
        rule.severity = "warn"
        rule.duty += "_target"
        rule.note = "“力争”：目标，低于时警告，不提高最低现金分红。"
    if "原则上" in sh.left:
        rule.severity = "warn"
        reviews.append("“原则上”：起草为警告 “in principle”: drafted as a warning")
    rule.review = "；".join(reviews) or None
    rule.params["_span"] = (start, pos)
    d.add(rule, (start, pos))


def _either_of(d: Draft, c: ClauseText, a: int, b: int, new: list[Rule]) -> None:
    """``每年……不少于当年可分配利润10%，或三年累计不少于年均30%``: an annual and a rolling minimum of one
    sentence joined by 或 are one requirement (any_of); each stays a rule, its alternative (``new``: the rules
    the sentence gave)."""
    mine = sorted([r for r in new if r.clause == c.id and r.kind in ("min_cash", "min_cash_rolling")
                   and a <= r.params.get("_span", (-1, -1))[0] < b and r.params.get("raises_minimum", True)],
                  key=lambda r: r.params["_span"])
    if len(mine) != 2 or {r.kind for r in mine} != {"min_cash", "min_cash_rolling"}:
        return
    (s0, e0), (s1, e1) = mine[0].params["_span"], mine[1].params["_span"]
    if not re.fullmatch(r"\s*[,]?\s*(?:或者|或)\s*", c.text[e0:s1]):
        return
    d.add(Rule("min_either", "any_of", c.id, c.quote(s0, e1), {"rules": mine},  # its alternatives carry the ``when``
               severity=mine[0].severity, note="两项下限以“或”连接：满足其一即可；两项本身显示满足／不满足，不单独计入结论。"))
