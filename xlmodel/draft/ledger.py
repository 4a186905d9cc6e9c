"""Every sentence that could state a term ends in exactly one place: nothing is dropped in silence (issue 46).

A sentence of a clause *carries a term* when it holds a number or a share (:data:`.lexicon.QUANTITY`, a vote
threshold), a condition word (如 / 若 / 且 / 同时 / 满足 / 在…情况下 / 前提), a duty word (应 / 应当 / 须 / 必须 /
将) or a statement qualifier (母公司 / 合并). After the recognisers and :func:`.lexicon.settle` have read the
text, :func:`account` gives each such sentence one of three ends, in this order:

* ``review`` — a review item stands on it (its span was reviewed, or an item quotes it);
* ``ruled`` — a rule quotes it, or a recogniser read it for a rule citing its clause (or the major-outlay
  definition);
* ``informational`` — read as boilerplate, a heading or a description, with the clause note's reason.

A sentence none of these reached becomes a review item here, with a rule to paste in (:mod:`.suggest`):
so the three counts always add up to all the sentences that carry a term, by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..plans.clauses import normalise
from .lexicon import QUANTITY, excerpt
from .model import Draft
from .suggest import rule_snippet
from .text import descendants

#: what makes a sentence carry a term (on folded text): numbers and shares, vote thresholds, condition words,
#: duty words, statement qualifiers
TERM = re.compile(QUANTITY.pattern + r"|过半数|半数以上|[二三四]分之[一二三]|(?<![例假])如(?![下此何])|若|且|同时|满足"
                  r"|情况下|情形下|前提|(?<![相对供适响反])应(?![付收对])|须|必须|(?<![即])将|母公司|合并")

KINDS = ("ruled", "informational", "review")


@dataclass(frozen=True)
class Sentence:
    """One sentence that carries a term, and where it ended: a kind of :data:`KINDS` and why (the rule ids,
    the clause note, or the review item)."""

    clause: str
    start: int
    end: int
    text: str
    kind: str
    why: str


def carries_term(text: str) -> bool:
    return TERM.search(text) is not None


def account(d: Draft) -> list[Sentence]:
    """Every sentence of every clause that carries a term, each with its one end (a review item added for
    those nothing reached)."""
    out = []
    for cid, c in d.clauses.items():
        for a, b in c.sentences():
            if c.is_heading(a, b) and b < len(c.text):
                continue  # a heading line above the clause's own text
            if carries_term(c.text[a:b]):
                out.append(_end(d, cid, a, b))
    return out


def counts(sentences: list[Sentence]) -> dict[str, int]:
    return {k: sum(1 for s in sentences if s.kind == k) for k in KINDS}


def _end(d: Draft, cid: str, a: int, b: int) -> Sentence:
    c = d.clauses[cid]
    text = c.f.span(a, b)
    flat = normalise(text)
    reason = _reviewed(d, cid, a, b, flat)
    if reason:
        return Sentence(cid, a, b, text, "review", reason)
    ids = _ruled(d, cid, a, b, flat)
    if ids:
        return Sentence(cid, a, b, text, "ruled", "、".join(ids))
    if (d.is_covered(cid, a, b) or c.heading_only) and d.infos.get(cid):  # (a heading: its note says where)
        return Sentence(cid, a, b, text, "informational", "；".join(d.infos[cid]))
    reason = f"含数值、条件、义务或报表措辞而未起草 a term nothing read: “{excerpt(c, a, b)}”"
    d.review(cid, reason, rule_snippet(cid, c.quote(a, b), "duty") if d.room(cid) else None, span=(a, b))
    d.cover(cid, a, b)
    return Sentence(cid, a, b, text, "review", reason)


def _reviewed(d: Draft, cid: str, a: int, b: int, flat: str) -> str | None:
    """The review item standing on the sentence: one recorded on its span, or one quoting it."""
    for (x, y), reason in d.review_spans.get(cid, ()):
        if x < b and a < y:
            return reason
    for reason in d.reviews.get(cid, ()):
        for quoted in re.findall(r"“([^”]{4,})”", reason):
            piece = normalise(quoted.rstrip("…"))
            if len(piece) >= 4 and piece in flat:
                return reason
    for r in _rules_of(d, cid):
        if r.review and _quotes(r.quote, flat):
            return r.review
    return None


def _ruled(d: Draft, cid: str, a: int, b: int, flat: str) -> list[str]:
    """The rules that quote the sentence, else (a recogniser read it) those citing or implementing its clause."""
    rules = _rules_of(d, cid)
    quoting = [r.id for r in rules if _quotes(r.quote, flat)]
    if quoting:
        return quoting
    mo = d.major_outlay
    if mo and mo.get("clause") == cid and _quotes(mo.get("quote", ""), flat):
        return ["major_outlay"]
    if d.is_covered(cid, a, b) and not d.infos.get(cid):
        if rules:
            return [r.id for r in rules]
        if cid in d.facts.get("outlay_clauses", ()) or (mo and mo.get("clause") == cid):
            return ["major_outlay"]
        below = [r.id for x in descendants(d.clauses, cid) for r in _rules_of(d, x)]  # a list's lead-in: 须同时满足下列条件
        if below:
            return list(dict.fromkeys(below))
    return []


def _rules_of(d: Draft, cid: str) -> list:
    return [r for r in d.rules if r.clause == cid or cid in r.also] + d.extra.get(cid, [])


def _quotes(quote: str, flat: str) -> bool:
    """The rule's quote (or its first words, for a quote cut at the sentence's end) stands in the sentence."""
    q = normalise(quote)
    return bool(q) and (q in flat or (len(q) >= 8 and q[:8] in flat))
