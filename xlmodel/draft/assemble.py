"""From what the recognisers found to a policy: interim counterparts, one rule per duty, ids, titles, clauses."""

from __future__ import annotations

import re

from ..plans import clauses as plan_clauses
from .model import REVIEW, Draft, Rule
from .text import descendants
from .titles import titles

_PRIVATE = re.compile(r"^_")


def finish(d: Draft) -> None:
    _interim(d)
    _going_concern(d)
    _board_outlay(d)
    _outlay_clauses(d)
    _merge_attestations(d)
    _dedupe(d)
    _order(d)
    _ids(d)
    _groups(d)
    _share_twins(d)


def _interim(d: Draft) -> None:
    """A condition worded for the half-year too (该年度或半年度, 期末) is checked on an interim dividend:
    a payout while it fails is a warning that names it (DOMAIN.md §5)."""
    added = []
    for r in d.conditions():
        if r.params.get("_half_year") and r.kind == "positive":
            added.append(Rule("interim_distributable_positive", "positive", r.clause, r.quote,
                              {"measure": "half_year_distributable_profit"}, when=["interim_paid"], severity="warn",
                              role="requirement", note="条件为“实施现金分红时应同时满足”：中期分红时以半年度数据检查，不满足仍分红的，警告。"))
        elif r.params.get("_half_year") and r.kind == "audit_opinion":
            added.append(Rule("interim_audit_opinion", "audit_opinion", r.clause, r.quote,
                              {"field": "half_year_audit_opinion", "accepted": r.params["accepted"]}, when=["interim_paid"],
                              severity="warn", role="requirement", note="半年度财务报告须经审计并出具所列意见；不满足仍分红的，警告。"))
        elif r.params.get("_period_end") and d.facts.get("interim"):
            added.append(Rule("attest:interim_period_end_retained_positive", "attestation", r.clause, r.quote, {},
                              when=["interim_paid"], severity="warn", role="requirement",
                              duties=["interim_period_end_retained_positive"],
                              note="“期末”：中期分红时为半年度期末，无半年度字段，由用户确认；不满足仍分红的，警告。"))
    for r in d.rules:
        for k in [k for k in r.params if _PRIVATE.match(k) and k != "_ratio"]:
            r.params.pop(k)
        r.params.pop("_ratio", None)
    d.rules.extend(added)


def _going_concern(d: Draft) -> None:
    """``不得损害公司持续经营能力``: covered by a going-concern condition where the plan has one."""
    cond = [r for r in d.rules if r.duty == "cond_going_concern"]
    for r in [r for r in d.rules if r.duty == "going_concern"]:
        if cond:
            d.rules.remove(r)
            d.info(r.clause, f"“不得损害公司持续经营能力”由条件 {cond[0].clause} 的董事会判断覆盖。")
            d.implements(r.clause, cond[0])


_OUTLAY_WORDS = re.compile(r"(?<!是否)(?:有|存在)重大(?:投资计划|现金支出|资金支出)(?:安排)?")
_BOARD_DECIDES = re.compile(r"重大(?:投资计划|现金支出|资金支出)[^。]{0,40}?董事会[^。]{0,20}?(?:确定|认定|判断|决定)")


def _board_outlay(d: Draft) -> None:
    """No definition of a major outlay where a rule needs one: the board determines it. The determination quotes
    the plan's own words for it — a sentence saying the board decides, else the condition's item, else the
    words 有重大资金支出安排 in the stage table (not the table's row with its share)."""
    needs = any(r.kind == "no_major_outlay" or (r.kind == "cash_share" and "table" in r.params) for r in d.rules)
    if not needs or d.major_outlay is not None:
        return
    where = _own_words(d, _BOARD_DECIDES) or d.facts.get("no_major_quote")
    if where is None:
        table = next(r for r in d.rules if r.kind == "cash_share")
        where = _own_words(d, _OUTLAY_WORDS, [*descendants(d.clauses, table.clause), table.clause]) or (table.clause, table.quote)
    d.major_outlay = {"clause": where[0], "quote": where[1], "definition": "board"}
    d.info(where[0], "规划未给出重大投资计划或重大现金支出的计算标准：由董事会认定（输入 major_outlay_planned）。")


def _outlay_clauses(d: Draft) -> None:
    """The sub-clauses a major-outlay definition's tests are listed in are computed, by the rule that reads the
    definition (the condition, else the stage table), not informational."""
    readers = [r for r in d.rules if r.kind == "no_major_outlay"] or \
        [r for r in d.rules if r.kind == "cash_share" and "table" in r.params]
    for cid in dict.fromkeys(d.facts.get("outlay_clauses", [])) if readers else ():
        d.implements(cid, readers[0])
def _own_words(d: Draft, pattern: re.Pattern, ids: list[str] | None = None) -> tuple[str, str] | None:
    """(clause, the piece of it) where ``pattern`` first stands, among ``ids`` (else every clause)."""
    for cid in ids if ids is not None else list(d.clauses):
        c = d.clauses.get(cid)
        m = c and pattern.search(c.text, c.body)
        if m:
            q = c.quote(*(m.span() if pattern is _OUTLAY_WORDS else c.piece_at(*m.span())))
            if len(q) >= 4:
                return cid, q
    return None


def _merge_attestations(d: Draft) -> None:
    """One attestation a clause and occasion: the user confirms the clause's duties together."""
    kept: dict[tuple, Rule] = {}
    for r in list(d.rules):
        if r.kind != "attestation" or r.params.get("field"):
            continue
        k = (r.clause, tuple(r.when), r.role, r.severity)
        if k in kept:
            for duty in r.duties:
                if duty not in kept[k].duties:
                    kept[k].duties.append(duty)
            d.rules.remove(r)
        else:
            kept[k] = r
    own = [r for r in d.rules if r.kind == "attestation" and not r.params.get("field")]
    for i, r in enumerate(own):
        earlier = next((e for e in own[:i] if e in d.rules and e.when == r.when and set(r.duties) <= set(e.duties)), None)
        if earlier is not None:
            d.rules.remove(r)
            d.implements(r.clause, earlier)


def _dedupe(d: Draft) -> None:
    seen: dict[tuple, Rule] = {}
    for r in list(d.rules):
        k = r.key if r.kind != "attestation" or r.params.get("field") else ("own", id(r))
        if k in seen:
            d.rules.remove(r)
            d.implements(r.clause, seen[k])
        else:
            seen[k] = r


def _order(d: Draft) -> None:
    order = {cid: i for i, cid in enumerate(d.clauses)}
    d.rules.sort(key=lambda r: order.get(r.clause, len(order)))


def _ids(d: Draft) -> None:
    used: dict[str, int] = {}
    for r in d.rules:
        base = (r.duties[0] if r.duties else r.duty).removeprefix("attest:")
        base = re.sub(r"[^a-z0-9_]", "_", base.lower())[:50] or "rule"
        used[base] = used.get(base, 0) + 1
        r.id = base if used[base] == 1 else f"{base}_{used[base]}"
        if r.titles is None:
            r.titles = titles(r)
    refs = {f"{{rule:{id(r)}}}": r.id for r in d.rules}
    for cid, notes in d.infos.items():
        d.infos[cid] = [_refs(n, refs) for n in notes]


def _groups(d: Draft) -> None:
    """An any_of names its alternatives by id (they are Rule objects while drafting)."""
    for g in [r for r in d.rules if r.kind == "any_of"]:
        members = g.params["rules"]
        if not all(m in d.rules for m in members):  # an alternative merged into another clause's rule
            d.rules.remove(g)
            d.review(g.clause, "“或”连接的两项下限：其一与其他条款的规则合并，未起草为一项 either-of minimums: not drafted as one")
            continue
        g.params["rules"] = [m.id for m in members]


def _share_twins(d: Draft) -> None:
    """An interim share names its final rule by id; one whose final was merged into another's goes with it."""
    for r in [r for r in d.rules if isinstance(r.params.get("share_from"), Rule)]:
        if any(x is r.params["share_from"] for x in d.rules):  # the very rule, not one equal to it
            r.params["share_from"] = r.params["share_from"].id
        else:
            d.rules.remove(r)


def _refs(note: str, refs: dict[str, str]) -> str:
    for k, v in refs.items():
        note = note.replace(k, v)
    return note


# ---- clauses ---------------------------------------------------------------------------------

def clause_entries(d: Draft) -> dict[str, dict]:
    """Every clause of the text with its treatment; a clause nothing read says why (or is marked for review)."""
    out = {}
    under: dict[str, list[Rule]] = {}  # clause -> the rules citing it or one of its sub-clauses (by ancestors: linear)
    for r in d.rules:
        parts = r.clause.split("、")
        for k in range(1, len(parts) + 1):
            under.setdefault("、".join(parts[:k]), []).append(r)
    for cid, c in d.clauses.items():
        cited = under.get(cid, [])
        listed = [r for r in d.extra.get(cid, []) if r in d.rules and r.clause != cid]
        kinds = {r.kind for r in cited + listed}
        entry: dict = {}
        if kinds - {"attestation"}:
            entry["treatment"] = "computed"
        elif kinds:
            entry["treatment"] = "attestation"
        else:
            entry["treatment"] = "informational"
        notes = list(d.infos.get(cid, []))
        reviews = d.reviews.get(cid, [])
        if reviews:
            notes = [f"{REVIEW}: " + "；".join(reviews)] + notes
        if entry["treatment"] == "informational" and not notes:
            notes = ["下级条款各有处理。" if c.children else "无可检查的义务。"]
        if notes:
            entry["note"] = " ".join(notes)
        if listed:
            entry["rules"] = [r.id for r in listed]
        out[cid] = entry
    return out


def suggestions(d: Draft, taken: set[str]) -> list[tuple[str, str, dict]]:
    """(where, reason, rule) for each review item that suggests a rule (:mod:`.suggest`), in the items' order; each
    rule gets an id of its own (``todo_1`` …) and the item's reason names it."""
    out = []
    for where, reason in review_items(d):
        rule = d.snippets.get((where, reason))
        if rule is None:
            continue
        n = len(out) + 1
        while f"todo_{n}" in taken:
            n += 1
        rid = f"todo_{n}"
        taken.add(rid)
        named = f"{reason}（建议写法见 rules 末尾注释中的 {rid} suggested rule: {rid}, commented out at the end of rules）"
        items = d.reviews[where]
        items[items.index(reason)] = named
        out.append((where, named, {"id": rid, **rule}))
    return out


def review_items(d: Draft) -> list[tuple[str, str]]:
    """(where, reason) for everything a reader must check, clauses in the text's order first."""
    order = {cid: i for i, cid in enumerate(d.clauses)}
    keys = sorted(d.reviews, key=lambda k: (order.get(k, -1) if k in order else -1, k))
    return [(k, reason) for k in keys for reason in d.reviews[k]]


def is_preamble(cid: str) -> bool:
    return cid == plan_clauses.PREAMBLE
