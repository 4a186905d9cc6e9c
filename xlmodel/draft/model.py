"""What a draft collects while it reads a plan: rules, definitions, notes, review items, coverage."""

from __future__ import annotations

from dataclasses import dataclass, field

from .text import ClauseText

REVIEW = "待复核 REVIEW"
#: a plan has a few dozen rules: a text that yields more is not one (drafting stops adding, and says so)
MAX_RULES = 300
#: review items kept for one clause (a hostile text could have a million); the rest are counted in one item
MAX_REVIEWS = 12


@dataclass
class Rule:
    """A rule drafted from a clause: a policy-file rule (kind and parameters) plus why it is there."""

    duty: str  # what the rule checks, e.g. "min_annual", "attest:minority_consulted" (ids, titles, de-duplication)
    kind: str
    clause: str
    quote: str
    params: dict = field(default_factory=dict)
    when: list[str] = field(default_factory=lambda: ["always"])
    severity: str = "fail"
    role: str | None = None
    note: str | None = None
    review: str | None = None  # why a reader must check it (also listed under the clause)
    titles: tuple[str, str] | None = None  # (zh, en); default from the duty
    duties: list[str] = field(default_factory=list)  # an attestation confirming several duties of one clause
    also: list[str] = field(default_factory=list)  # other clauses stating the same rule
    id: str = ""

    @property
    def key(self) -> tuple:
        """Rules with the same key state the same thing: one is kept, the others' clauses refer to it."""
        if self.kind == "attestation" and self.params.get("field") is None:
            return ("attest", tuple(self.when), self.clause, tuple(sorted(self.duties or [self.duty])))
        return (self.kind, self.duty, tuple(self.when), tuple(sorted((k, repr(v)) for k, v in self.params.items())))


@dataclass
class Draft:
    source: str
    clauses: dict[str, ClauseText]
    rules: list[Rule] = field(default_factory=list)
    major_outlay: dict | None = None
    settings: dict = field(default_factory=dict)
    setting_notes: list[str] = field(default_factory=list)
    reviews: dict[str, list[str]] = field(default_factory=dict)  # clause (or a top-level field) -> reasons
    infos: dict[str, list[str]] = field(default_factory=dict)  # clause -> why nothing is checked / what is covered
    covered: dict[str, bytearray] = field(default_factory=dict)  # clause -> 1 where a recogniser (or a note) read it
    facts: dict = field(default_factory=dict)  # plan-wide facts: interim allowed, conditions found, …
    extra: dict[str, list[Rule]] = field(default_factory=dict)  # clause -> rules cited elsewhere that implement it
    snippets: dict[tuple[str, str], dict] = field(default_factory=dict)  # (where, reason) -> the rule to write
    review_spans: dict[str, list] = field(default_factory=dict)  # clause -> [((start, end), reason)]: what an item is on
    _seen: dict[str, set] = field(default_factory=dict, repr=False)
    _more: dict[str, int] = field(default_factory=dict, repr=False)

    @property
    def full(self) -> bool:
        """As many rules as a plan can have: recognisers stop looking for more (the rest is reviewed)."""
        return len(self.rules) >= MAX_RULES

    # -- recording -----------------------------------------------------------
    def add(self, rule: Rule, span: tuple[int, int] | None = None) -> Rule:
        if len(self.rules) >= MAX_RULES:
            self.review("rules", f"超过 {MAX_RULES} 条规则：此后的条款未起草 more than {MAX_RULES} rules: the rest was not drafted")
        else:
            self.rules.append(rule)
        if span is not None:
            self.cover(rule.clause, *span)
        if rule.review:
            self.review(rule.clause, rule.review)
        return rule

    def cover(self, cid: str, start: int, end: int) -> None:
        marks = self.covered.get(cid)
        if marks is None:
            marks = self.covered[cid] = bytearray(len(self.clauses[cid].text) + 1)
        start, end = max(0, start), min(len(marks), end)
        if end > start:
            marks[start:end] = b"\x01" * (end - start)

    def room(self, where: str) -> bool:
        """Whether another review item for ``where`` is listed one by one (else only counted)."""
        return len(self.reviews.get(where, ())) < MAX_REVIEWS

    def review(self, where: str, reason: str, snippet: dict | None = None, span: tuple[int, int] | None = None) -> None:
        """A review item for a clause (or a top-level field), with the YAML of what to write where one can be
        suggested (:mod:`.suggest`) and the span of the clause it stands on, where known (:mod:`.ledger`). At
        most :data:`MAX_REVIEWS` a clause: the rest are counted in one more."""
        if span is not None and len(self.review_spans.setdefault(where, [])) < MAX_RULES:
            self.review_spans[where].append((span, reason))
        items = self.reviews.setdefault(where, [])
        if reason in self._seen.setdefault(where, set()):
            return
        if len(items) >= MAX_REVIEWS:
            more = self._more.get(where, 0) + 1
            self._more[where] = more
            tail = f"另有 {more} 项同类待复核内容未逐一列出 and {more} more item{'s' if more > 1 else ''} not listed one by one"
            if len(items) == MAX_REVIEWS:
                items.append(tail)
            else:
                items[-1] = tail
            return
        self._seen[where].add(reason)
        items.append(reason)
        if snippet:
            self.snippets[(where, reason)] = snippet

    def info(self, cid: str, note: str, span: tuple[int, int] | None = None) -> None:
        items = self.infos.setdefault(cid, [])
        if note not in items and len(items) < MAX_REVIEWS:
            items.append(note)
        if span is not None:
            self.cover(cid, *span)

    # -- reading -------------------------------------------------------------
    def is_covered(self, cid: str, start: int, end: int) -> bool:
        """Some of the span was read."""
        marks = self.covered.get(cid)
        return marks is not None and end > start and marks.find(b"\x01", max(0, start), end) >= 0

    def inside(self, cid: str, start: int, end: int) -> bool:
        """All of the span was read."""
        marks = self.covered.get(cid)
        return marks is not None and end > start and marks.find(b"\x00", max(0, start), end) < 0

    def implements(self, cid: str, rule: Rule) -> None:
        """``cid`` is implemented by ``rule``, which cites another clause (listed under the clause's ``rules``)."""
        if cid != rule.clause and rule not in self.extra.setdefault(cid, []):
            self.extra[cid].append(rule)

    def by_duty(self, duty: str) -> list[Rule]:
        return [r for r in self.rules if r.duty == duty]

    def conditions(self) -> list[Rule]:
        return [r for r in self.rules if r.kind in ("positive", "audit_opinion", "judgment", "no_major_outlay", "compare")
                and r.role is None]
