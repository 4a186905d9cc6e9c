"""What is left after the recognisers: boilerplate that checks nothing, and what needs a reader.

Every sentence of every clause ends in one of four places: read by a recogniser (a rule,
a definition, a setting), boilerplate plans share that states no checkable duty (the
clause note says which), a neutral description (no obligation word, no number), or the
review list — a sentence with an obligation word (应 / 须 / 不得 …) that nothing read, or
any share, fraction, amount or month count that no recogniser consumed.
"""

from __future__ import annotations

import re

from ..plans import clauses as plan_clauses
from . import numbers as nb
from .model import Draft
from .suggest import number_snippet, rule_snippet
from .text import ClauseText
from .words import OBLIGATION

#: (pattern, note): sentences plans share that state no duty the model checks
BOILERPLATE: tuple[tuple[str, str], ...] = (
    (r"未尽事宜", "兜底条款：未尽事宜依照法律法规及公司章程执行。"),
    (r"负责解释|解释权|之日起(?:生效|实施)|审议通过后(?:生效|实施)", "解释权与生效。"),
    (r"(?:本规划|《[^》]{0,40}?规划[^》]{0,24}?》)[^。]{0,60}?(?:审议|审核|提出预案|发表独立意见)", "本规划自身的审议程序。"),
    (r"每[三3]年重新审议|以[三3]年为一个周期|至少每[三3]年|制定周期", "规划的制定周期。"),
    (r"(?:制定|制订)[^。]{0,30}?规划|本规划的制定|规划(?:的)?制定", "规划的制定（依据、原则或因素），无可检查的义务。"),
    (r"考虑(?:的)?因素|综合考虑|充分考虑|综合分析", "考虑因素，无可检查的义务。"),
    (r"优先采(?:用|取)现金|现金分红优于股票股利|以现金分红为主|首先采用现金", "优先现金分红：由最低比例及现金占比规则检查，本身无数值。"),
    (r"听取[^。]{0,30}?意见|征求[^。]{0,12}?意见|答复中小股东", "听取意见的一般要求，无可量化的检查。"),
    (r"依法依规[^。]{0,24}?表决", "股东大会表决（比例见表决规则；未规定的适用公司章程）。"),
    (r"(?:年度报告|半年度报告|定期报告)[^。]{0,24}?披露", "定期报告中的披露（交易所审查，本模型不检查）。"),
    (r"监事会[^。]{0,50}?监督", "监事会的监督，无可量化的检查。"),
    (r"保障[^。]{0,24}?权利|征集[^。]{0,24}?投票权|征集中小股东的意见|提出分红提案", "股东与独立董事的权利，不是公司义务。"),
    (r"严格执行[^。]{0,30}?(?:利润分配政策|现金分红政策|分红政策|章程)", "执行既定政策（原则）。"),
    (r"留待以后年度", "允许性条款：未分配利润可留待以后年度分配。"),
    (r"董事会(?:\s*(?:19|20)\d\d|[二〇○零一二三四五六七八九]{4})\s*年", "落款（董事会及日期）。"),
    (r"(?:提出|拟定|制定|形成)[^。]{0,24}?(?:利润分配|分红)(?:预案|方案|建议)|(?:提交|报)股东(?:大)?会审议", "利润分配预案的提出与审议程序。"),
    (r"连续性(?:和|与|及)稳定性|持续、稳定|重视对(?:投资者|股东)的(?:合理)?(?:投资)?回报|兼顾", "利润分配的原则，无可检查的义务。"),
    (r"符合[^。]{0,12}?(?:法律|法规|规定)|遵守[^。]{0,12}?(?:法律|法规|规定)", "合规原则。"),
)
_BOILER = [(re.compile(p), note) for p, note in BOILERPLATE]
_OBLIGATION = re.compile(OBLIGATION)
#: numbers that state a term: shares, amounts, months, counts, per-share amounts, days
QUANTITY = re.compile(rf"{nb.RATIO}|{nb.AMOUNT}|{nb.NUM}个月|{nb.NUM}(?:个)?(?:次|倍|个交易日|交易日|个工作日|工作日|天)|每{nb.NUM}股")
#: words that compare or make something conditional: a sentence with one that nothing read needs a reader
_COMPARING = "|".join(re.escape(w) for w, _ in nb.OPS if len(w) >= 2)  # (not 达, 超: 表达, 超额 …)
_TERM_WORDS = re.compile(rf"{_COMPARING}|可以不|可不|不进行|不实施|情形之一|下列情形|以下情形|资产负债率|现金流量净额"
                         r"|(?<!弥补)(?<!以前年度)亏损|为正|为负|审计意见")
_SHOWN = 70


def excerpt(c: ClauseText, a: int, b: int) -> str:
    q = c.quote(a, b)
    return q if len(q) <= _SHOWN else q[: _SHOWN - 1] + "…"


def settle(d: Draft) -> None:
    """Numbers nothing read, then every sentence nothing read: boilerplate, neutral, or review."""
    for c in d.clauses.values():
        _long_numbers(d, c)
        _numbers(d, c)
    for c in d.clauses.values():
        _sentences(d, c)


def _long_numbers(d: Draft, c: ClauseText) -> None:
    """A run of digits no number reads (issue 21): said, never converted."""
    for m in nb.LONG_NUMBER.finditer(c.text, c.body):
        a, b = c.piece_at(*m.span())
        n = sum(ch.isdigit() for ch in m.group(0))
        d.review(c.id, f"数值过长（{n} 位数字），未读取：请核对原文 a number of {n} digits is not read (no plan term has "
                       f"one): “{excerpt(c, a, min(b, a + 40))}”")
        d.cover(c.id, a, b)


def _numbers(d: Draft, c: ClauseText) -> None:
    for m in QUANTITY.finditer(c.text, c.body):
        if d.inside(c.id, *m.span()):
            continue
        a, b = c.piece_at(*m.span())
        d.review(c.id, f"数值未识别 a number nothing read: “{excerpt(c, a, b)}”",
                 number_snippet(c.id, c.quote(a, b), c.text[max(c.sentence_at(a)[0], a - 40): b]) if d.room(c.id) else None,
                 span=(a, b))
        d.cover(c.id, a, b)


def _looks_like_condition(d: Draft, c: ClauseText, a: int, b: int) -> bool:
    from .conditions import _atoms

    return "条件" not in c.text[a:b] and _atoms(d, c, a, b, dry=True) > 0


def _sentences(d: Draft, c: ClauseText) -> None:
    own = c.text[c.body:]
    if c.heading_only and (c.children or not (_OBLIGATION.search(own) or _TERM_WORDS.search(own) or QUANTITY.search(own)
                                               or re.search(r"条件|前提", own))):
        # a heading (a short line without punctuation that says nothing to do: 实施现金分红需满足……条件 is no heading)
        if c.id not in d.infos:  # (a recogniser's own note says more: 现金分红条件清单……)
            d.info(c.id, _heading_note(d, c))
        return
    neutral = False
    parts = [p for a, b in c.sentences() for p in c.parts(a, b)]
    for a, b in parts:
        if d.is_covered(c.id, a, b) or (c.is_heading(a, b) and b < len(c.text)):  # a heading line above its text
            continue
        s = c.text[a:b]
        hit = next((note for pat, note in _BOILER if pat.search(s) and not _forbids_beside(c, a, b, pat)), None)
        plain = re.sub(r"\([^()]*\)", "", s)
        if _looks_like_condition(d, c, a, b):
            d.review(c.id, f"像现金分红条件，但不在条件清单中 reads like a cash-dividend condition outside a conditions list: "
                           f"“{excerpt(c, a, b)}”", rule_snippet(c.id, c.quote(a, b), "condition") if d.room(c.id) else None,
                     span=(a, b))
            d.cover(c.id, a, b)
        elif hit:
            d.info(c.id, hit, (a, b))
        elif _OBLIGATION.search(plain):
            d.review(c.id, f"未识别 not recognised: “{excerpt(c, a, b)}”",
                     rule_snippet(c.id, c.quote(a, b), "duty") if d.room(c.id) else None, span=(a, b))
            d.cover(c.id, a, b)
        elif _TERM_WORDS.search(plain):
            d.review(c.id, f"含数值、比较或条件措辞而未起草 a number, a comparison or a condition nothing read: “{excerpt(c, a, b)}”",
                     number_snippet(c.id, c.quote(a, b), s) if d.room(c.id) else None, span=(a, b))
            d.cover(c.id, a, b)
        else:
            neutral = True
    if c.id == plan_clauses.PREAMBLE and c.id not in d.reviews and not any(r.clause == c.id for r in d.rules):
        d.infos[c.id] = ["制定依据与目的。"]
    elif neutral and c.id not in d.infos and c.id not in d.reviews and not any(r.clause == c.id for r in d.rules):
        d.info(c.id, f"说明性文字（“{excerpt(c, c.body, min(len(c.text), c.body + 24))}”）：无义务措辞或数值。")


#: a prohibition: ``当年未进行现金分红的，不得发放股票股利`` beside boilerplate (优先采用现金分红) is a term of its own
_FORBIDS = re.compile(r"不得|不应|禁止|不能")


def _forbids_beside(c: ClauseText, a: int, b: int, pat: re.Pattern) -> bool:
    """A prohibition in a piece of the part ``a``–``b`` other than the one the boilerplate ``pat`` matches: the part is
    then no boilerplate (a reader must see the prohibition)."""
    m = pat.search(c.text, a, b)
    x, y = c.piece_at(m.start(), m.end())
    return bool(_FORBIDS.search(re.sub(r"\([^()]*\)", "", c.text[a:max(a, x)] + c.text[min(b, y):b])))


def _heading_note(d: Draft, c: ClauseText) -> str:
    """A heading's own note: its words, and where its content is."""
    words = c.quote(c.body, len(c.text))
    if c.id == plan_clauses.PREAMBLE:
        return f"规划标题“{words}”。"
    if c.children:
        first, last = c.children[0].rsplit("、", 1)[-1], c.children[-1].rsplit("、", 1)[-1]
        below = first if first == last else f"{first}–{last}"
        return f"章节标题“{words}”：内容见下级条款 {below}。"
    return f"标题“{words}”：其下无条款内容。"
