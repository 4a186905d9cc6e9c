"""What to write for a review item: a rule of the catalogue, ready to paste under ``rules:``.

A review item the drafter raises for something it could not read carries a suggestion: the kind and
fields of the rule that would express it, filled in with what the text says (the clause, its quote,
the share or amount it names) and valid as it stands, so that the policy file with the suggestion
pasted in passes ``xlmodel policies check``; the user then edits the values the text gives. What
the catalogue cannot compute (a case such as 流动比率低于1, a duty without a number) is suggested as
an attestation — the user confirms it each year (``role: condition`` where it conditions the cash
dividend). The drafted policy file lists every suggestion, commented out, at the end of ``rules:``
(:mod:`.emit`), each under the review item it answers.
"""

from __future__ import annotations

import re

from . import numbers as nb

#: (title_zh, title_en, note) of each kind of suggestion; {q} is the clause's words (shortened)
_SHAPES = {
    "exemption": ("以下情形不存在（董事会确认）：{q}", "The case that waives the cash dividend does not arise (board confirms)",
                  "可以不进行现金分红的情形：情形不存在时方满足现金分红条件；若有对应字段，改写为 compare 规则。"),
    "condition": ("现金分红条件满足（董事会确认）：{q}", "Cash-dividend condition met (board confirms)",
                  "未能计算的现金分红条件：由董事会每年确认；若有对应字段，改写为 positive / compare 规则。"),
    "duty": ("已按规划履行（确认）：{q}", "Duty of the plan fulfilled (confirm)",
             "规划的义务，模型无法计算：由用户每年确认。"),
}
_TITLE_CHARS = 30


def _short(q: str) -> str:
    q = re.sub(r"\s+", "", q)
    return q if len(q) <= _TITLE_CHARS else q[:_TITLE_CHARS - 1] + "…"


def _quote(q: str) -> str:
    return q if len(q) >= 4 else (q + "……")[:4]


def rule_snippet(cid: str, quote: str, what: str) -> dict:
    """An attestation for ``what`` (``exemption``, ``condition`` or ``duty``) in clause ``cid``."""
    zh, en, note = _SHAPES[what]
    rule = {"kind": "attestation", "clause": cid, "quote": _quote(quote), "title_zh": zh.format(q=_short(quote)),
            "title_en": en, "note": note}
    if what in ("exemption", "condition"):
        rule["role"] = "condition"
    return rule


def number_snippet(cid: str, quote: str, words: str) -> dict:
    """A rule for a number nothing read, by what stands with it: a share or an amount with a cash word is a
    minimum (``min_cash``: edit the basis and the comparison the text gives), months a payout deadline;
    anything else a duty to confirm."""
    cash = re.search(r"现金|分红|派息|股利|红利|分配", words)
    if re.search(r"累计|连续|最近|近[两二三五]年|[两二三五]年内|年均|平均", words):
        cash = None  # over a window: no annual minimum (a rolling one needs its ratio); a duty to confirm
    share = re.search(nb.RATIO, words)
    amount = re.search(nb.AMOUNT, words)
    months = re.search(rf"({nb.NUM})个月", words)
    if cash and share and (r := nb.ratio(share.group(0))) is not None and r <= 1:
        return {"kind": "min_cash", "clause": cid, "quote": _quote(quote), "title_zh": f"当年现金分红不低于{share.group(0)}（请核对口径）",
                "title_en": "Cash of the year ≥ the share the text names (check the basis)", "when": "conditions_met",
                "components": [{"type": "pct", "ratio": nb.fmt_ratio(r), "basis": "distributable_profit"}],
                "note": "建议：按原文改写口径（basis: distributable_profit / net_profit_attributable）与比较。"}
    if cash and amount and (a := nb.amount(amount.group(0))) is not None:
        return {"kind": "min_cash", "clause": cid, "quote": _quote(quote), "title_zh": f"当年现金分红不低于{amount.group(0)}",
                "title_en": "Cash of the year ≥ the amount the text names", "when": "conditions_met",
                "components": [{"type": "fixed", "amount": nb.fmt_amount(a)}],
                "note": "建议：按原文核对金额与比较。"}
    if months and (n := nb.cn_int(months.group(1))) is not None and 1 <= n <= 24:
        return {"kind": "within_months", "clause": cid, "quote": _quote(quote), "months": n,
                "title_zh": f"股东大会召开后{n}个月内完成派发", "title_en": f"Payout completed within {n} months of the AGM"}
    return rule_snippet(cid, quote, "duty")
