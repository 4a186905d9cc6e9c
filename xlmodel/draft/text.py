"""A plan text as the recognisers see it: numbered clauses, sentences and pieces.

Each clause keeps its own text as the policy loader compares quotes with it
(:func:`xlmodel.plans.clauses.normalise`: no white space, ASCII brackets) and a folded
copy for matching (:func:`numbers.fold`: full-width digits and punctuation as ASCII).
Positions are positions in the folded text; :meth:`ClauseText.quote` cuts the
original behind them, so every quote stands in the clause as published.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from ..plans import clauses as plan_clauses
from .numbers import Folded, fold

_MARKER = re.compile(r"^(?:第[零〇一二三四五六七八九十百千\d]{1,8}条|[一二三四五六七八九十]+、|\([一二三四五六七八九十]+\)|\d{1,2}、|\(\d{1,2}\))")
_SENTENCE_END = "。!?"
#: a sentence is read in parts of at most this many characters (a real one has a few hundred): bounded work
MAX_SENTENCE = 2000
_PIECE_END = ",;:。!?"
#: a plan has a few dozen numbered clauses (the bundled ones 24 to 35)
MAX_CLAUSES = 1000


@dataclass
class ClauseText:
    id: str
    raw: str  # plan_clauses.normalise(clause text): what quotes are checked against
    f: Folded  # raw folded for matching
    body: int  # where the text after the clause's marker starts
    head_end: int = 0  # where a heading on a line of its own ends (e.g. ``6、公司利润分配方案的实施``), else 0
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    _sentences: list[tuple[int, int]] | None = field(default=None, repr=False)
    _starts: list[int] | None = field(default=None, repr=False)
    _pieces: dict = field(default_factory=dict, repr=False)  # (sentence, more) -> (pieces, their starts)

    @property
    def text(self) -> str:
        return self.f.text

    @property
    def level(self) -> int:
        return 0 if self.id == plan_clauses.PREAMBLE else self.id.count("、") + 1

    def quote(self, start: int, end: int) -> str:
        """The published text behind folded positions, trimmed of joining words and punctuation."""
        s = self.f.text
        while start < end and (s[start] in ",;:、。 " or s[start] in "且并同"):
            if s[start] == "同" and not s.startswith("同时", start):
                break
            start += 2 if s.startswith("同时", start) else 1
        while end > start and s[end - 1] in ",;:、。 ":
            end -= 1
        return self.f.span(start, end)

    def sentences(self) -> list[tuple[int, int]]:
        """Sentences (ending at 。！？) of the clause's own text after its marker."""
        if self._sentences is None:
            if self.body < self.head_end < len(self.text):
                found = [(self.body, self.head_end)] + _split(self.text, self.head_end, len(self.text), _SENTENCE_END)
            else:
                found = _split(self.text, self.body, len(self.text), _SENTENCE_END)
            self._sentences = [(x, min(x + MAX_SENTENCE, b)) for a, b in found for x in range(a, b, MAX_SENTENCE)]
            self._starts = [a for a, _ in self._sentences]
        return self._sentences

    def pieces(self, start: int, end: int, more: str = "") -> list[tuple[int, int]]:
        """Pieces of a span, cut at commas, semicolons, colons and sentence ends (and ``more``) outside brackets."""
        return _split(self.text, start, end, _PIECE_END + more)

    def parts(self, start: int, end: int) -> list[tuple[int, int]]:
        """A sentence's parts between semicolons outside brackets (each with its semicolon): each states its own
        duty, or its own case."""
        out, x, depth, s = [], start, 0, self.text
        for i in range(start, end):
            ch = s[i]
            depth += ch == "("
            depth -= ch == ")" and depth > 0
            if ch == ";" and depth == 0:
                out.append((x, i + 1))
                x = i + 1
        return out + ([(x, end)] if end > x else [])

    def piece_at(self, start: int, end: int, more: str = "") -> tuple[int, int]:
        """The pieces (between separators outside brackets) a span touches, as one span."""
        a, b = self.sentence_at(start)
        key = (a, b, more)
        if key not in self._pieces:
            ps = self.pieces(a, b, more)
            self._pieces[key] = (ps, [x for x, _ in ps])
        ps, starts = self._pieces[key]
        i = max(0, bisect.bisect_right(starts, start) - 1)
        j = max(i, bisect.bisect_left(starts, end) - 1)
        touched = [p for p in ps[i:j + 1] if p[0] < end and start < p[1]]
        return (touched[0][0], max(touched[-1][1], min(end, b))) if touched else (start, end)

    def sentence_at(self, pos: int) -> tuple[int, int]:
        sents = self.sentences()
        i = bisect.bisect_right(self._starts, pos) - 1
        if 0 <= i < len(sents) and sents[i][0] <= pos < sents[i][1]:
            return sents[i]
        return self.body, len(self.text)

    def is_heading(self, a: int, b: int) -> bool:
        """The span is the clause's heading on a line of its own."""
        return self.head_end > 0 and (a, b) == (self.body, self.head_end)

    @property
    def heading_only(self) -> bool:
        """Nothing but a short heading (e.g. ``四、具体分红方式计划``, ``8、其他``)."""
        own = self.text[self.body:]
        return len(own) <= 40 and not re.search(r"[,;:。]", own)


def _split(s: str, start: int, end: int, seps: str) -> list[tuple[int, int]]:
    out, a = [], start
    depth = 0
    for i in range(start, end):
        ch = s[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch in seps and (depth == 0 or ch in _SENTENCE_END):
            if i + 1 > a:
                out.append((a, i + 1))
            a = i + 1
    if end > a:
        out.append((a, end))
    return [(x, y) for x, y in out if s[x:y].strip(seps)]


def load_clauses(text: str, source: str = "plan.txt") -> dict[str, ClauseText]:
    """Clause id -> :class:`ClauseText`, in the text's order, with parents and children. A text of more than
    :data:`MAX_CLAUSES` numbered clauses is no plan: a clear error before any reading (its policy file
    could not be written within a policy file's size either)."""
    parsed = plan_clauses.parse(text)
    if len(parsed) > MAX_CLAUSES:
        from ..errors import XlmodelError

        raise XlmodelError(f"{source}: 编号条款过多（{len(parsed)} 个），不像规划原文（规划通常只有几十个条款，最多读取 {MAX_CLAUSES} 个） "
                           f"{len(parsed)} numbered clauses: a plan text has a few dozen (at most {MAX_CLAUSES} are read); "
                           "is this a plan's text?")
    out: dict[str, ClauseText] = {}
    for cid, c in parsed.items():
        raw = plan_clauses.normalise(c.text)
        f = fold(raw)
        m = _MARKER.match(f.text) if cid != plan_clauses.PREAMBLE else None
        body = m.end() if m else 0
        head = fold(plan_clauses.normalise(c.heading)).text[body:] if m else ""
        head_end = body + len(head) if 0 < len(head) <= 24 and not re.search(r"[,;:。]", head) else 0
        out[cid] = ClauseText(cid, raw, f, body, head_end)
    for cid, c in out.items():
        if "、" in cid:
            parent = cid.rsplit("、", 1)[0]
            if parent in out:
                c.parent = parent
                out[parent].children.append(cid)
    return out


def ancestors(clauses: dict[str, ClauseText], cid: str) -> list[ClauseText]:
    out, c = [], clauses[cid].parent
    while c is not None:
        out.append(clauses[c])
        c = clauses[c].parent
    return out


def descendants(clauses: dict[str, ClauseText], cid: str) -> list[str]:
    """The sub-clauses of ``cid``, at every depth, in the text's order (each visited once: linear)."""
    out, todo = [], list(reversed(clauses[cid].children)) if cid in clauses else []
    while todo:
        x = todo.pop()
        out.append(x)
        todo.extend(reversed(clauses[x].children))
    return out


def common_ancestor(ids: list[str]) -> str:
    """The lowest clause containing all of ``ids`` (one of them, or their common parent)."""
    parts = [i.split("、") for i in ids]
    common = []
    for xs in zip(*parts):
        if len(set(xs)) != 1:
            break
        common.append(xs[0])
    return "、".join(common) if common else ids[0]
