"""plan_clauses: a published plan text split into its numbered clauses (what a policy's clauses and quotes cite).

The plans number their clauses in four styles, nested in this order:
``一、`` > ``（一）`` > ``1、`` > ``（1）``. A clause id joins the markers of
its ancestors with ``、`` and uses ASCII brackets, e.g. ``三、(二)、1、(4)``
(DOMAIN.md §2). Text before the first heading is the preamble (``序言``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREAMBLE = "序言"
_CN = "一二三四五六七八九十"
_PATTERNS = (
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
    return clauses


def section_text(clauses: dict[str, Clause], clause_id: str) -> str:
    """A clause's text together with all its sub-clauses."""
    prefix = clause_id + "、"
    return "\n".join(c.text for k, c in clauses.items() if k == clause_id or k.startswith(prefix))
