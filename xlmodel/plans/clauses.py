"""plan_clauses: a published plan text split into its numbered clauses (what a policy's clauses and quotes cite).

The plans number their clauses in four styles, nested in this order:
``一、`` > ``（一）`` > ``1、`` > ``（1）``; a 章程's articles (``第一百五十五条``) stand above them. A clause
id joins the markers of its ancestors with ``、`` and uses ASCII brackets, e.g. ``三、(二)、1、(4)`` or
``第一百五十五条、(二)`` (DOMAIN.md §2). Text before the first heading is the preamble (``序言``). A text with
no numbered clause at all (an investor page, a Q&A answer quoting the policy) is read paragraph by paragraph:
``第1段``, ``第2段`` …, a title line above them the preamble.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREAMBLE = "序言"
_CN = "一二三四五六七八九十"
_PATTERNS = (
    (0, re.compile(r"^(第[零〇一二三四五六七八九十百千\d]{1,8}条)")),  # a 章程's article: 第一百五十五条
    (1, re.compile(rf"^([{_CN}]+)、")),
    (2, re.compile(rf"^[（(]([{_CN}]+)[）)]")),
    (3, re.compile(r"^(\d{1,2})、")),
    (4, re.compile(r"^[（(](\d{1,2})[）)]")),
)


def _marker(level: int, num: str) -> str:
    return f"({num})" if level in (2, 4) else num


def normalise(text: str) -> str:
    """Drop all white space and unify brackets, for quote matching."""
    text = re.sub(r"\s+", "", text)
    return text.replace("（", "(").replace("）", ")")


@dataclass
class Clause:
    id: str
    heading: str  # first line of the clause as printed
    text: str  # full text including sub-clauses' own lines? no: own lines only


def parse(text: str) -> dict[str, Clause]:
    """Clause id -> clause (its own lines, without its sub-clauses)."""
    clauses: dict[str, Clause] = {PREAMBLE: Clause(PREAMBLE, "", "")}
    stack: list[tuple[int, str]] = []
    current = PREAMBLE
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        for level, pat in _PATTERNS:
            m = pat.match(line)
            if m:
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, _marker(level, m.group(1))))
                current = "、".join(mk for _, mk in stack)
                clauses[current] = Clause(current, line, "")
                break
        c = clauses[current]
        c.text = f"{c.text}\n{line}" if c.text else line
    if len(clauses) == 1:  # no numbered clause at all (an investor page, a Q&A answer): each paragraph is one
        return _paragraphs(clauses[PREAMBLE].text)
    return clauses


#: a paragraph of a text with no numbered clause: ``第1段``, ``第2段`` … (a title line above them stays the preamble)
PARAGRAPH = "第{}段"


def _paragraphs(text: str) -> dict[str, Clause]:
    lines = [ln for ln in text.split("\n") if ln]
    title = lines[0] if lines and len(lines) > 1 and not re.search(r"[。，,；;！？]", lines[0]) else ""
    clauses = {PREAMBLE: Clause(PREAMBLE, title, title)}
    for i, line in enumerate(lines[1:] if title else lines, 1):
        cid = PARAGRAPH.format(i)
        clauses[cid] = Clause(cid, line, line)
    return clauses


def section_text(clauses: dict[str, Clause], clause_id: str) -> str:
    """A clause's text together with all its sub-clauses."""
    prefix = clause_id + "、"
    return "\n".join(c.text for k, c in clauses.items() if k == clause_id or k.startswith(prefix))
