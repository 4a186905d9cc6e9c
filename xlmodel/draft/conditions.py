"""Cash-dividend conditions: the conditions list, each condition's wording, the major-outlay definition.

A conditions list is a clause such as ``实施现金分红时应同时满足下列条件：`` whose
sub-clauses are the conditions (or whose text lists them), or a sentence that states
them inline (``公司在当年盈利、累计未分配利润为正，且……的情况下，采取现金方式分配股利``).
Each condition is cut into pieces; every piece must be recognised, else the clause
is marked for review.
"""

from __future__ import annotations

import re
from . import exemptions
from . import numbers as nb
from .model import Draft, Rule
from .suggest import rule_snippet
from .text import ClauseText, ancestors, descendants
from .words import DIST, NPA, OP_WORDS, PAREN, POSITIVE, RATIO, SIGN

HEADER = re.compile(
    r"(?:现金分红|分配现金股利|现金方式分配(?:股利|利润)?)[^。:]{0,16}?(?:满足|具备|符合)(?:下列|以下|如下|下述)?(?:的)?"
    r"(?:全部|所有)?(?:[一二三四五六七八九十\d]{1,2}个)?(?:具体|基本)?(?:条件|情形|前提条件|前提)"
    r"|(?:满足|具备|符合)(?:下列|以下|如下|下述)(?:全部)?(?:具体|基本)?(?:条件|前提)[^。:]{0,16}?(?:现金分红|现金方式分配)"
    r"|现金分红(?:的)?(?:具体|基本)?(?:前提)?条件(?:包括|为|如下|是|有)?:|(?:现金)?分红(?:的)?(?:具体|基本)?(?:前提)?条件(?:包括|为|是)")
#: a heading that is the list: ``（二）现金分红的具体条件``, ``现金分红的前提条件``, ``公司实施现金分红应满足的条件``
#: (not ``……条件和比例``: that heads more than the list)
HEADING = re.compile(r"(?:实施|进行)?现金分红(?:应当|应|须|需)?(?:同时)?(?:满足|具备|符合)?(?:的)?(?:具体|基本)?(?:前提)?条件[:]?$"
                     r"|(?:实施|进行)?现金分红(?:的)?前提[:]?$")
#: ``实施现金分红时应当满足“公司当年实现盈利且……为正值”的条件``: the conditions quoted (an answer citing the 章程)
QUOTED = re.compile(r"(?:满足|具备|符合)[“\"]([^”\"]{4,300})[”\"](?:的|等)?(?:条件|前提)")
#: ``现金分红需该年度可分配利润为正且审计报告为标准无保留意见``: conditions stated after 现金分红需 (two at least)
INLINE_NEEDS = re.compile(r"现金分红(?:需|须|应当|应)(?:同时)?(?:满足)?")
#: what the company does when the conditions before it hold (a cash dividend, a cash distribution)
CASH_ACT = r"现金(?:方式|形式)?(?:分配(?:的)?(?:股利|利润)|分红|股利)"
#: ``……的情况下（前提下、时），公司（应当）采取现金方式分配股利`` / ``……为正的，应当进行现金分红``
INLINE_FRAME = re.compile(rf"(?:(?:的情况下|的前提下|的条件下|情况下|前提下|时)[,]?|的,)(?:则)?(?:公司)?(?P<gap>[^。;,]{{0,12}}?)"
                          rf"(?:进行|实施|采取|采用|以)?{CASH_ACT}")
#: ``如（若）……，公司应采取现金方式分配股利``: the same, opened by 如 / 若 and closed by the comma
IF_OPEN = re.compile(r"(?:如|若|如果|倘若|假如)")
IF_FRAME = re.compile(rf",(?:则)?(?:公司)?(?P<gap>[^。;,]{{0,12}}?)(?:进行|实施|采取|采用|以)?{CASH_ACT}")
_DUTY = re.compile(r"应当|应|须|必须")
#: ``公司当年度实现的可分配利润……为正值，且并无特别重大投资计划……发生，公司将采取现金方式分配股利``: conditions in
#: pieces of their own, no frame word, closed by the comma before the company's (duty to) pay in cash
BARE_FRAME = re.compile(rf",(?:则)?(?:公司)?(?P<gap>将|应当|应|须|必须)(?:采取|采用|以|进行|实施)?{CASH_ACT}")

_RETAINED = re.compile(rf"(?:(?:在)?弥补(?:以前年度)?亏损[^。;]{{0,24}}?后[,]?)?(?P<pre>累计|期末|当年末|年末)(?P<mid>(?:(?!为正|余额|大于|不为|非负|不低于|不小于)[^。;,]){{0,24}}?)(?:{DIST}|未分配利润){PAREN}(?P<post>[^。;,]{{0,6}}?){SIGN}")
_DIST_POS = re.compile(rf"(?P<period>该年度或半年度|年度或半年度|该年度、半年度|当年度|该年度|本年度|当年|当期|年度|每年)?"
                       rf"(?:实现的?|的)?{DIST}{PAREN}(?:均)?{SIGN}")
_NPA_POS = re.compile(rf"(?:当期|当年|该年度|年度)?{NPA}{SIGN}")
_NET_POS = re.compile(rf"(?:当期|当年|该年度|年度)?(?:税后)?净利润{SIGN}")
#: the parent company's own statements (母公司报表), not 归属于母公司股东 (the consolidated figure's owners)
_PARENT_STATEMENT = re.compile(r"母公司(?:报表|财务报表|口径|单体|单户|个别)|母公司(?:当年|该年度|年度)?(?:实现的?)?(?:净利润|累计|期末|未分配|可供分配)")
_CONSOLIDATED = re.compile(r"合并(?:报表|财务报表|口径)")
_PROFITABLE = re.compile(r"(?:当年|年度|当期|每年|该年度)?(?:实现)?盈利(?!能力|水平|情况|状况|规模|的稳定性|但|且未|而)")
_CASH_FLOW = re.compile(r"现金流(?:量)?(?:状况)?(?:充裕|充足|良好)|现金流(?:量)?(?:可以|能够)?满足[^。;]{0,30}?(?:需求|需要|经营|发展)")
_OCF = re.compile(rf"经营(?:活动产生的|活动|性)?现金流(?:量)?净额(?P<alt>或(?:者)?(?:公司)?(?:期末)?现金及(?:现金)?等价物(?:的)?(?:余额)?)?"
                  rf"{POSITIVE}")
_GOING = re.compile(r"不(?:会)?(?:影响|损害)(?:公司)?(?:的)?(?:后续|正常)?(?:的)?持续经营(?:能力)?")
_AUDIT = re.compile(r"(?:(?:审计机构|会计师事务所|注册会计师|审计报告)[^。;,]{0,40}?)?(?P<std>标准无保留|无保留)(?:的)?(?:审计)?意见")
_NO_MAJOR = re.compile(r"(?:(?:未来)?(?:十二|12)个月内)?(?:无|没有|不存在|未发生)(?:(?!无|保留)[^。;,、]){0,40}?"
                       r"重大(?:投资计划|现金支出|资金支出|投资|支出)")
_OCF_CAPITAL = re.compile(rf"经营(?:活动产生的|活动|性)?现金流(?:量)?(?:净额)?(?P<op>不低于|不少于|达到|高于|超过)(?:公司)?"
                         rf"(?:当年|期末)?(?:的)?注册资本(?:的)?(?P<r>{RATIO})")
_DEBT = re.compile(rf"资产负债率(?P<op>{OP_WORDS})?(?P<r>{RATIO})(?P<suf>以上|以下)?")
_INTERIM_NO_AUDIT = re.compile(r"(?:中期|半年度|季度)[^。;)]{0,12}?(?:无需|不需|无须|不须)(?:经)?审计")

MO_DEF = re.compile(r"重大(?:投资计划|现金支出|资金支出|投资|支出)(?:安排)?(?:或重大(?:现金|资金)支出(?:安排)?)?(?:事项)?"
                    r"(?:是指|系指|指|的标准为|标准为|定义为)[:]?")
#: ``……累计支出超近一期审计总资产30%为重大项目`` (the test before the words it defines)
MO_TAIL = re.compile(r"(?:为|属于|属|即为|视为|认定为)重大(?:投资计划|现金支出|资金支出|投资|项目|情形|支出|交易)")
_BRANCH = re.compile(rf"(?:(?P<op>{OP_WORDS})|占)(?P<mid>[^。;%]{{0,30}}?)(?P<basis>净资产|资产总额|总资产|营业收入|营收|净利润)"
                     rf"(?:的)?(?P<r>{RATIO})(?P<suf>以上|及以上)?")
_FLOOR = re.compile(rf"(?P<join>且|并且|或者|或)?(?:绝对金额)?(?P<op>{OP_WORDS})?(?P<a>{nb.AMOUNT})(?P<suf>以上|及以上)?")
_BASIS = {"净资产": "net_assets", "资产总额": "total_assets", "总资产": "total_assets", "营业收入": "revenue", "营收": "revenue",
          "净利润": "net_profit_attributable"}
#: the listing rules' transaction tests (交易标的营业收入占……营业收入50%以上且超过3000万元): the figure of the planned
#: transaction a test measures, named before its 占 (policy.OUTLAY_PAIRS gives the company figure it is a share of)
_DEAL = (("transaction_total_assets", re.compile(r"交易涉及的?资产总额")),
         ("transaction_target_revenue", re.compile(r"交易标的[^。;,]{0,24}?营业收入")),
         ("transaction_target_net_profit", re.compile(r"交易标的[^。;,]{0,24}?净利润")),
         ("transaction_amount", re.compile(r"成交金额")),
         ("transaction_profit", re.compile(r"交易产生的?(?:净)?利润")))
_ABSOLUTE = re.compile(r"(?:如|若)为负值[,]?(?:的)?(?:应)?取(?:其)?绝对值(?:计算)?")
_DEAL_PAIRS = {"planned_major_outlay": ("total_assets", "net_assets", "revenue"),
               "transaction_total_assets": ("total_assets",), "transaction_target_revenue": ("revenue",),
               "transaction_target_net_profit": ("net_profit_attributable",), "transaction_amount": ("net_assets",),
               "transaction_profit": ("net_profit_attributable",)}


def _deal(s: str, lo: int, m: re.Match) -> str:
    """What a test ``m`` measures: a planned transaction's figure named before it (from ``lo``, within its sentence
    part), or the planned outlay."""
    before = s[max(lo, s.rfind(";", 0, m.start()) + 1, s.rfind("。", 0, m.start()) + 1): m.start()]
    found = [(x.start(), fid) for fid, pat in _DEAL for x in pat.finditer(before)]
    return max(found)[1] if found else "planned_major_outlay"


# ---- the lists ---------------------------------------------------------------------------

def find_condition_lists(d: Draft) -> None:
    """Every conditions list (a heading or a header sentence with its items, or inline), the cases that waive
    the cash dividend (:mod:`.exemptions`), conditions stated in a sentence and bare condition items."""
    exemptions.find_exemption_lists(d)
    skip = d.facts.get("exemption_items", set())
    for c in d.clauses.values():
        if c.id in skip:
            continue
        if c.heading_only and c.children and HEADING.search(c.text[c.body:]) and not _has_header_below(d, c):
            d.facts.setdefault("condition_headers", []).append(c.id)
            d.info(c.id, f"现金分红条件清单“{c.quote(c.body, len(c.text))}”：各项条件见下级条款。")
            for child in c.children:
                x = d.clauses[child]
                read_conditions(d, x, x.body, len(x.text))
            continue
        if _headed_list(d, c):
            continue
        for a, b in c.sentences():
            q = QUOTED.search(c.text, a, b)
            if q and not d.is_covered(c.id, *q.span()) and _atoms(d, c, q.start(1), q.end(1), dry=True):
                d.facts.setdefault("condition_headers", []).append(c.id)  # an answer quoting the 章程's conditions
                read_conditions(d, c, q.start(1), q.end(1))
                d.cover(c.id, q.start(), q.end())
                continue
            m = HEADER.search(c.text, a, b)
            if not m or d.is_covered(c.id, *m.span()):
                continue
            d.cover(c.id, a, b if c.children else m.end())  # an inline list: each item is checked below
            d.facts.setdefault("condition_headers", []).append(c.id)
            items = c.children or []
            if items:
                for child in items:
                    read_conditions(d, d.clauses[child], d.clauses[child].body, len(d.clauses[child].text))
            else:  # the conditions follow in the sentence (and in the next ones while they state nothing else)
                read_conditions(d, c, m.end(), b)
                _conditions_after(d, c, b)
            break
    exemptions.find_exemption_sentences(d)  # before the frames: ``……的，可以不进行现金分红`` is a case, not a condition
    _inline(d)
    _bare_items(d)


def _headed_list(d: Draft, c: ClauseText) -> bool:
    """``一、现金分红的条件`` on a line of its own above the conditions, in the clause's own text (no sub-clauses):
    every condition of that text, each joined by 且 / 并且 / 同时 / 以及 or a comma its own."""
    if c.children or not (c.body < c.head_end < len(c.text)) or not HEADING.search(c.text[c.body:c.head_end]):
        return False
    pieces = [(a, b) for a, b in c.pieces(c.head_end, len(c.text), "、")
              if len(re.findall(r"[\u4e00-\u9fff]", re.sub(r"\([^()]*\)", "", c.text[a:b]))) >= 4]
    if not pieces or not all(_atoms(d, c, a, b, dry=True) for a, b in pieces):
        return False  # a frame (……的前提下，应当……), a case that waives it: the other readers
    d.facts.setdefault("condition_headers", []).append(c.id)
    d.cover(c.id, c.body, c.head_end)
    for a, b in c.sentences():
        if a >= c.head_end and _atoms(d, c, a, b, dry=True):
            read_conditions(d, c, a, b)
    return True


def _conditions_after(d: Draft, c: ClauseText, start: int) -> None:
    """The sentences after an inline list's head that state nothing but conditions (``……下列条件：A。B。``); the
    first that states anything else (在满足上述条件的情况下，……不少于……) ends the list."""
    for a, b in c.sentences():
        if a < start:
            continue
        pieces = [(x, y) for x, y in c.pieces(a, b, "、")
                  if len(re.findall(r"[\u4e00-\u9fff]", re.sub(r"\([^()]*\)", "", c.text[x:y]))) >= 4]
        if not pieces or not all(_atoms(d, c, x, y, dry=True) for x, y in pieces):
            return
        read_conditions(d, c, a, b)
        d.cover(c.id, a, b)


def _inline(d: Draft) -> None:
    """``公司在当年盈利……的情况下，采取现金方式分配股利`` / ``公司当年盈利的，应当进行现金分红``: the conditions before
    the frame; with 应当 (应, 须) and no share or amount after it, also the duty to pay cash when they hold."""
    for c in d.clauses.values():
        if c.id in d.facts.get("condition_headers", []) or _in_list(d, c) or c.id in d.facts.get("exemption_items", ()):
            continue
        for a, b in c.sentences():
            if re.search(r"成熟期|成长期|发展阶段|表决权", c.text[a:b]) or d.is_covered(c.id, a, b):
                continue  # a row of the stage table, a vote
            frames = INLINE_FRAME.finditer(c.text, a, b)
            if IF_OPEN.match(c.text, a):
                frames = [*IF_FRAME.finditer(c.text, a, b), *frames]
            m = next((f for f in frames if not re.search(r"不|未|无", f.group("gap")) and _atoms(d, c, a, f.start(), dry=True)),
                     None) or _bare_frame(d, c, a, b)
            n = INLINE_NEEDS.search(c.text, a, b)
            far = None if m else _far_frame(d, c, a, b)
            if far is not None:  # 在……的情况下，若……，如……，公司应采取现金方式分配股利: every piece before it a condition
                d.facts.setdefault("inline_conditions", []).append(c.id)
                read_conditions(d, c, far[0], far[1].start())
                d.cover(c.id, far[0], far[1].start())
            elif m:
                d.facts.setdefault("inline_conditions", []).append(c.id)
                _atoms(d, c, a, m.start())
                d.cover(c.id, a, m.end())
                _cash_duty(d, c, m, b)
                _vague_duty(d, c, m, b)
            elif n and _atoms(d, c, n.end(), b, dry=True) >= 2:
                d.facts.setdefault("inline_conditions", []).append(c.id)
                read_conditions(d, c, n.end(), b)
                d.cover(c.id, a, n.end())


def _bare_frame(d: Draft, c: ClauseText, a: int, b: int):
    """``BARE_FRAME``'s match when every piece of the sentence before it states a condition (else None)."""
    f = BARE_FRAME.search(c.text, a, b)
    if f is None:
        return None
    pieces = [(x, y) for x, y in c.pieces(a, f.start(), "、")
              if len(re.findall(r"[\u4e00-\u9fff]", re.sub(r"\([^()]*\)", "", c.text[x:y]))) >= 4]
    return f if pieces and all(_atoms(d, c, x, y, dry=True) for x, y in pieces) else None


#: the duty after a list of conditions that runs over several pieces: ……的情况下，若……，如……，公司应采取现金方式分配股利
FAR_DUTY = re.compile(rf"(?:公司)?(?:应当|应|须|必须)(?:采取|采用|以|进行|实施)?{CASH_ACT}")


def _far_frame(d: Draft, c: ClauseText, a: int, b: int):
    """A sentence that opens with 在……的情况下 (or 前提下), states conditions over several pieces and then the duty to
    pay cash (``FAR_DUTY``): the duty's match, when every condition word before it is a condition; else None."""
    opened = re.compile(r"在[^。;,]{2,60}?(?:的情况下|的前提下|情况下|前提下)").search(c.text, a, b)
    if not opened:
        return None
    duty = FAR_DUTY.search(c.text, opened.end(), b)
    if duty is None or _atoms(d, c, opened.start(), duty.start(), dry=True) < 2:
        return None
    return opened.start(), duty


def _cash_duty(d: Draft, c: ClauseText, m, end: int) -> None:
    """``……的，应当进行现金分红`` (no share after it in the sentence): a cash dividend when the conditions hold."""
    frame = c.text[m.start(): m.end()]
    if not _DUTY.search(frame) or re.search(rf"{RATIO}|{nb.AMOUNT}", c.text[m.end(): end]):
        return
    x, y = c.piece_at(m.end() - 2, m.end())
    d.add(Rule("cash_when_conditions", "cash_paid", c.id, c.quote(x, y), when=["conditions_met"],
               severity="warn" if "原则上" in frame else "fail",
               note="“……的，应当进行现金分红”：条件满足时须有现金分红（金额由最低比例规则检查）。"), (x, y))


#: ``……的前提下，公司将实施积极的现金股利分配办法``: what the company does when the conditions hold, worded so that no
#: amount and no duty can be read from it
_VAGUE = re.compile(r"积极|适当|合理|尽量|尽可能|稳定的?")


def _vague_duty(d: Draft, c: ClauseText, m, end: int) -> None:
    """The conditions are read; the act after them, when its words are vague and no share follows, is for a reader."""
    if not _VAGUE.search(m.group("gap")) or re.search(rf"{RATIO}|{nb.AMOUNT}", c.text[m.end(): end]):
        return
    x, y = c.piece_at(m.end() - 2, m.end())
    d.review(c.id, f"条件满足时的现金分红措辞含糊（“{m.group('gap')}”），未起草为义务：请说明是否须现金分红及其金额 "
                   f"the cash dividend when the conditions hold is worded vaguely: not drafted as a duty — say whether "
                   f"one is due and how much: “{c.quote(x, y)}”", span=(x, y))


_NOT_CONDITION_CONTEXT = re.compile(r"股票股利|中期|半年度|转增|回购")


def _bare_items(d: Draft) -> None:
    """A numbered item that states nothing but conditions (``3、审计机构对公司该年度财务报告出具标准无保留意见``),
    outside a list headed 条件: its conditions. Only wording that reads the same either way (为正值, 标准无保留,
    无重大投资, 低于 a debt ratio): a case that waives the cash dividend (资产负债率高于70%) is never read as one."""
    listed = set(d.facts.get("condition_headers", [])) | d.facts.get("exemption_items", set())
    for c in d.clauses.values():
        if c.children or c.id in listed or _in_list(d, c) or c.id == "序言" or d.is_covered(c.id, c.body, len(c.text)):
            continue
        own = c.text[c.body:]
        if len(own) > 300:  # an item of a list is a line or two
            continue
        if re.search(r"资产负债率(?:高于|超过|大于|达到|不低于|超)|" + _NOT_CONDITION_CONTEXT.pattern, own) or \
                any(_NOT_CONDITION_CONTEXT.search(x.text[x.body: x.body + 30]) for x in ancestors(d.clauses, c.id)):
            continue
        pieces = [(a, b) for a, b in c.pieces(c.body, len(c.text), "、")
                  if len(re.findall(r"[\u4e00-\u9fff]", re.sub(r"\([^()]*\)", "", c.text[a:b]))) >= 4]
        if pieces and all(_atoms(d, c, a, b, dry=True) for a, b in pieces):
            d.facts.setdefault("condition_items", []).append(c.id)
            read_conditions(d, c, c.body, len(c.text))
            d.info(c.id, "现金分红条件（列于编号条目，未在“条件”标题下）：按现金分红条件起草。")


def _has_header_below(d: Draft, c: ClauseText) -> bool:
    return any(HEADER.search(d.clauses[x].text) for x in descendants(d.clauses, c.id))


def _in_list(d: Draft, c: ClauseText) -> bool:
    return c.parent is not None and c.parent in d.facts.get("condition_headers", [])


def read_conditions(d: Draft, c: ClauseText, start: int, end: int) -> None:
    """One item of a conditions list: its conditions, and a review note for any piece not recognised."""
    find_major_outlay_definition(d, c)
    _atoms(d, c, start, end)
    for a, b in c.pieces(start, end, "、"):
        piece = re.sub(r"\([^()]*\)", "", c.text[a:b]).strip(",;:。、")
        if len(re.findall(r"[\u4e00-\u9fff]", piece)) >= 4 and not d.is_covered(c.id, a, b):
            d.review(c.id, f"条件未识别 condition not recognised: “{c.quote(a, b)}”", rule_snippet(c.id, c.quote(a, b), "condition"))
            d.cover(c.id, a, b)


def _atoms(d: Draft, c: ClauseText, start: int, end: int, dry: bool = False) -> int:
    """The conditions worded in ``c.text[start:end]``; with ``dry`` only count them."""
    s, found = c.text, 0
    taken = bytearray(max(0, end - start) + 1)  # 1 where an earlier condition was read (linear, not a list scan)

    for fn in (_retained, _distributable, _npa, _net, _profitable, _cash_flow, _ocf, _ocf_capital, _going, _audit, _no_major,
               _debt):
        for m in fn.pattern.finditer(s, start, end):
            if d.full and not dry:
                return found
            if taken.find(1, m.start() - start, m.end() - start) >= 0:
                continue
            taken[m.start() - start: m.end() - start] = b"\x01" * (m.end() - m.start())
            found += 1
            if not dry:
                fn(d, c, m)
                d.cover(c.id, *m.span())
    return found


def _cond(fn_pattern):
    def wrap(fn):
        fn.pattern = fn_pattern
        return fn
    return wrap


def _item(c: ClauseText, m) -> tuple[int, int]:
    """The list item a condition stands in (items are cut at commas and 、 outside brackets)."""
    return c.piece_at(m.start(), m.end(), "、")


def _quote(c: ClauseText, m) -> str:
    return c.quote(*_item(c, m))


# ---- each condition -----------------------------------------------------------------------

@_cond(_RETAINED)
def _retained(d: Draft, c: ClauseText, m) -> None:
    words = _before(c, m) + m.group("mid") + m.group("post")  # 母公司报表累计未分配利润为正: the qualifier before it too
    cons, parent = "合并" in words, "母公司" in words
    if cons or parent:  # else the plan does not say which statement: lower of the two (DOMAIN.md §4)
        basis = "lower" if cons and parent else "parent" if parent else "consolidated"
        d.settings["retained_earnings_basis"] = basis
        d.setting_notes.append(f"retained_earnings_basis: {basis} — {c.id} “{_quote(c, m)}”")
    rule = d.add(_signed(Rule("cond_retained_positive", "positive", c.id, _quote(c, m), {"measure": "retained"}), m))
    if m.group("pre") == "期末":
        rule.params["_period_end"] = True  # read by the interim pass (assemble)


def _before(c: ClauseText, m) -> str:
    """The words of the condition's item before the match (a statement qualifier: 母公司报表, 合并报表)."""
    return c.text[_item(c, m)[0]: m.start()]


def _signed(rule: Rule, m) -> Rule:
    """A ``positive`` condition as worded: 不为负 / 非负 / 不低于零 is ≥ 0, a ``compare`` (never > 0)."""
    if m.group("nonneg"):
        rule.duty = rule.duty.replace("_positive", "") + "_not_negative"
        rule.kind = "compare"
        rule.params = {**rule.params, "op": ">=", "amount": 0}
        rule.note = f"“{m.group('nonneg')}”：不为负（≥ 0），不是为正（> 0）。"
    return rule


def _parent_profit(d: Draft, c: ClauseText, m) -> bool:
    """母公司报表净利润为正: the parent's own net profit (``net_profit_parent``), never the consolidated figure.
    True when it was one."""
    if not _PARENT_STATEMENT.search(_before(c, m) + m.group(0)):
        return False
    d.add(_signed(Rule("cond_parent_profitable", "positive", c.id, _quote(c, m), {"measure": "net_profit_parent"},
                       note="母公司报表净利润：按母公司利润表的净利润（net_profit_parent）起草，不是合并报表的归母净利润。"), m))
    return True


@_cond(_DIST_POS)
def _distributable(d: Draft, c: ClauseText, m) -> None:
    period = m.group("period") or ""
    rule = d.add(_signed(Rule("cond_distributable_positive", "positive", c.id, _quote(c, m),
                              {"measure": "distributable_profit"}), m))
    if "半年度" in period:
        rule.params["_half_year"] = True


@_cond(_NPA_POS)
def _npa(d: Draft, c: ClauseText, m) -> None:
    d.add(_signed(Rule("cond_profitable", "positive", c.id, _quote(c, m), {"measure": "net_profit_attributable"}), m))


@_cond(_NET_POS)
def _net(d: Draft, c: ClauseText, m) -> None:
    if _parent_profit(d, c, m):
        return
    review = None if _CONSOLIDATED.search(_before(c, m)) else \
        "“净利润” 未说明口径：按归属于上市公司股东的净利润起草 net profit unspecified: drafted as attributable"
    d.add(_signed(Rule("cond_profitable", "positive", c.id, _quote(c, m), {"measure": "net_profit_attributable"},
                       review=review), m))


@_cond(_PROFITABLE)
def _profitable(d: Draft, c: ClauseText, m) -> None:
    d.add(Rule("cond_profitable", "positive", c.id, _quote(c, m), {"measure": "net_profit_attributable"},
               note="“盈利”：按归属于上市公司股东的净利润为正起草。"))


@_cond(_CASH_FLOW)
def _cash_flow(d: Draft, c: ClauseText, m) -> None:
    d.add(Rule("cond_cash_flow", "judgment", c.id, _quote(c, m), {"field": "cash_flow_sufficient"}))


@_cond(_OCF)
def _ocf(d: Draft, c: ClauseText, m) -> None:
    rule = Rule("cond_operating_cash_flow", "compare", c.id, _quote(c, m),
                {"measure": "operating_cash_flow", "op": ">", "amount": 0})
    if m.group("alt"):  # 经营性现金流量净额或期末现金及等价物余额为正值: either of two conditions
        cash = Rule("cond_cash_and_equivalents", "compare", c.id, _quote(c, m),
                    {"measure": "cash_and_equivalents", "op": ">", "amount": 0})
        d.add(rule)
        d.add(cash)
        d.add(Rule("cond_cash_flow_or_cash", "any_of", c.id, _quote(c, m), {"rules": [rule, cash]}, role="condition",
                   note="两项条件以“或”连接：满足其一即可。"))
        return
    if c.text.startswith("或", m.end()):
        rule.review = "条件含“或”的替代项，未能读出 an OR alternative not recognised: drafted the first"
    d.add(rule)


@_cond(_OCF_CAPITAL)
def _ocf_capital(d: Draft, c: ClauseText, m) -> None:
    """``经营活动产生的现金流量净额不低于注册资本的20%``: operating cash flow against registered capital."""
    d.add(Rule("cond_ocf_registered_capital", "compare", c.id, _quote(c, m),
               {"measure": "operating_cash_flow", "op": nb.op_of(m.group("op")), "ratio": nb.fmt_ratio(nb.ratio(m.group("r"))),
                "of": "registered_capital"}))


@_cond(_GOING)
def _going(d: Draft, c: ClauseText, m) -> None:
    d.add(Rule("cond_going_concern", "judgment", c.id, _quote(c, m), {"field": "going_concern_unaffected"}))


@_cond(_AUDIT)
def _audit(d: Draft, c: ClauseText, m) -> None:
    accepted = ["standard_unqualified"] if m.group("std") == "标准无保留" else ["standard_unqualified", "unqualified_with_emphasis"]
    a, b = _item(c, m)
    sentence = c.text[a:b]
    rule = d.add(Rule("cond_audit_opinion", "audit_opinion", c.id, _quote(c, m), {"accepted": accepted}))
    if _INTERIM_NO_AUDIT.search(sentence):
        rule.note = "中期（半年度、季度）现金分红无需审计：不检查中期审计意见。"
    elif re.search(r"半年度(?:财务报告|报告)|、半年度|或半年度|和半年度", sentence):
        rule.params["_half_year"] = True


@_cond(_NO_MAJOR)
def _no_major(d: Draft, c: ClauseText, m) -> None:
    d.add(Rule("cond_no_major_outlay", "no_major_outlay", c.id, _quote(c, m)))
    d.facts.setdefault("no_major_quote", (c.id, _quote(c, m)))
    if d.major_outlay is None and _BRANCH.search(c.text, m.start(), m.end()):  # 无12个月内投资支出≥总资产10%重大投资计划
        _definition(d, c, m.start(), m.end())


@_cond(_DEBT)
def _debt(d: Draft, c: ClauseText, m) -> None:
    op = nb.op_of(m.group("op") or "", m.group("suf") or "")
    r = nb.ratio(m.group("r"))
    if op is None or r is None:
        d.review(c.id, f"资产负债率条件未能读出比较 debt-ratio condition without a clear comparison: “{_quote(c, m)}”")
        return
    d.add(Rule("cond_debt_ratio", "compare", c.id, _quote(c, m),
               {"measure": "total_liabilities", "op": op, "ratio": nb.fmt_ratio(r), "of": "total_assets"},
               note="资产负债率 = 总负债 ÷ 总资产：按 总负债 与 比例×总资产 比较。"))


# ---- the major-outlay definition ------------------------------------------------------------

def find_major_outlay_definition(d: Draft, c: ClauseText) -> None:
    if d.major_outlay is not None:
        return
    for a, b in c.sentences():
        m = MO_DEF.search(c.text, a, b)
        if m:
            _definition(d, c, m.end(), b)
            return
        t = MO_TAIL.search(c.text, a, b)
        if t and _BRANCH.search(c.text, a, t.start()):
            start = c.pieces(a, t.start())[0][0] if c.pieces(a, t.start()) else a
            _definition(d, c, start, t.start())
            d.cover(c.id, t.start(), t.end())
            if MO_TAIL.search(c.text, t.end(), b):
                d.review(c.id, "两个“重大”定义（如重大投资与重大资金支出）：只起草第一个 two definitions of a major outlay: "
                               "drafted the first")
            return


def find_definitions(d: Draft) -> None:
    for c in d.clauses.values():
        if d.major_outlay is None:
            find_major_outlay_definition(d, c)


def _definition(d: Draft, c: ClauseText, start: int, end: int) -> None:
    s = c.text
    branches, floors, pos = [], [], start
    measures = []
    while (m := _BRANCH.search(s, pos, end)) is not None:  # the next test starts after the last one's floor
        measures.append(_deal(s, pos, m))
        branches.append(m)
        pos = m.end()
        f = _FLOOR.match(s, pos + (1 if s[pos:pos + 1] == "," else 0), end)
        if f and f.group("a") and nb.amount(f.group("a")) is not None:
            floors.append(f)
            pos = f.end()
        else:
            floors.append(None)
    if not branches:
        _listed_definition(d, c, start, end)
        return
    d.cover(c.id, start - 2, pos)
    quote = c.quote(start, pos)
    _set_outlay(d, c, quote, branches, floors, measures, s[start:end])


def _listed_definition(d: Draft, c: ClauseText, start: int, end: int) -> None:
    """``重大投资计划或重大现金支出是指以下情形之一：（1）……；（2）……``: the tests in the sub-clauses."""
    branches, floors, measures, quote = [], [], [], None
    for child in c.children:
        x = d.clauses[child]
        lo = 0
        for m in _BRANCH.finditer(x.text):
            measures.append(_deal(x.text, lo, m))
            pos = m.end()
            f = _FLOOR.match(x.text, pos + (1 if x.text[pos:pos + 1] == "," else 0))
            f = f if f and f.group("a") and nb.amount(f.group("a")) is not None else None
            lo = f.end() if f else pos
            branches.append(m)
            floors.append(f)
            a = x.piece_at(m.start(), m.end())[0]
            d.cover(child, a, f.end() if f else pos)
            d.facts.setdefault("outlay_clauses", []).append(child)  # computed through the definition (assemble)
            quote = quote or x.quote(a, f.end() if f else pos)
    if not branches:
        d.review(c.id, f"重大支出的定义未能读出 major-outlay definition not recognised: “{c.quote(start, end)}”")
        d.cover(c.id, start, end)
        return
    d.cover(c.id, start - 2, end)
    _set_outlay(d, c, quote, branches, floors, measures, c.text[start:end])


def _set_outlay(d: Draft, c: ClauseText, quote: str, branches, floors, measures: list[str], body: str) -> None:
    """The definition: one test, or (several) ``branches``: any of which makes an outlay major (或 / 之一),
    or all of which must hold (且 between ratio tests: ``branches_combine: all``),
    each with its basis (net assets, total assets, revenue), its comparison on the ratio (达到或超过 / 以上 →
    ``>=``, 超过 → ``>``) and an optional amount floor with its own comparison and join (且 / 或)."""
    tests, why = [], []
    absolute = next((x for t in [body, c.text] + [d.clauses[k].text for k in c.children] if (x := _ABSOLUTE.search(t))), None)
    for m, f, measure in zip(branches, floors, measures):
        op = nb.op_of(m.group("op") or "", m.group("suf") or "") or ">="
        if op not in (">=", ">"):
            why.append(f"“{m.group('op') or m.group('suf')}”不是下限比较：按“≥”起草 not a lower bound: drafted as ≥")
            op = ">="
        basis = _BASIS[m.group("basis")]
        if basis not in _DEAL_PAIRS[measure]:  # a figure against another figure than the listing rules' own
            why.append(f"“{m.group(0)}”：{measure} 不与 {basis} 比较，此项标准未起草 a test of {measure} against {basis} "
                       "is not one the catalogue knows: not drafted")
            continue
        t: dict = {"measure": measure} if measure != "planned_major_outlay" else {}
        t.update(basis=basis, ratio=nb.fmt_ratio(nb.ratio(m.group("r"))), op=op)
        if absolute:  # 上述指标涉及的数据如为负值，取其绝对值计算
            t["absolute"] = True
        if f is not None:
            fop = nb.op_of(f.group("op") or "", f.group("suf") or "") or ">"
            if fop not in (">", ">="):
                why.append(f"金额标准“{f.group('op') or f.group('suf')}”不是下限比较：按“>”起草 not a lower bound: drafted as >")
                fop = ">"
            t.update(floor=nb.fmt_amount(nb.amount(f.group("a"))), floor_op=fop,
                     combine="or" if (f.group("join") or "").startswith("或") else "and")
        tests.append(t)
    mo: dict = {"clause": c.id, "quote": quote, "definition": "formula"}
    if not tests or (len(tests) == 1 and "measure" in tests[0]):
        for w in why + [f"重大支出的定义未能起草 major-outlay definition not drafted: “{quote}”"]:
            d.review(c.id, w)  # (a single test of a transaction's figure needs branches: the board decides meanwhile)
        return
    if len(tests) == 1:  # one test of the planned outlay (absolute values: an outlay is not negative)
        t = tests[0]
        mo.update(basis=t["basis"], ratio=t["ratio"])
        if t["op"] != ">=":
            mo["ratio_op"] = t["op"]
        if "floor" in t:
            mo["floor"] = t["floor"]
            if t["floor_op"] != ">":
                mo["floor_op"] = t["floor_op"]
            mo["combine"] = t["combine"]
    else:
        if len(tests) > 6:
            why.append(f"{len(tests)} 个标准：起草前 6 个 more than six tests: the first six drafted")
            tests = tests[:6]
        mo["branches"] = tests
        joins = []  # 或 / 之一: any test; 且 between two ratios (no amount between them): both
        for prev, m in zip(branches, branches[1:]):
            between = c.text[prev.end(): m.start()]
            both = "且" in between and "或" not in between and "之一" not in body and not re.search(nb.AMOUNT, between)
            joins.append("all" if both else "any")
        if set(joins) == {"all"}:
            mo["branches_combine"] = "all"
        elif "all" in joins:
            why.append("标准之间既有“且”又有“或”：起草为任一满足，请核对 tests joined by both 且 and 或: drafted as "
                       "any of them; check the grouping")
    d.major_outlay = mo
    d.info(c.id, "重大投资计划或重大现金支出的认定标准（major_outlay）。")
    for w in why:
        d.review(c.id, w)
