"""Typed exceptions. Every user-facing error names what was wrong and where."""

from __future__ import annotations

from dataclasses import dataclass


class XlmodelError(Exception):
    """Base class: the CLI turns these into a message and exit code 2."""


@dataclass(frozen=True)
class Problem:
    where: str  # e.g. "years[2].cash_dividend (2023)" or "输入!F12"
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class ProblemsError(XlmodelError):
    """Several problems found at once (all are reported, not just the first)."""

    title = "invalid input"

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = list(problems)
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.source}: {self.title} ({len(self.problems)} problem{'s' if len(self.problems) != 1 else ''})"]
        lines += [f"  - {p}" for p in self.problems]
        return "\n".join(lines)


class PolicyError(ProblemsError):
    title = "invalid policy file"


class CaseError(ProblemsError):
    title = "invalid case"


class UnknownPolicyError(XlmodelError):
    pass


class AmbiguousPolicyError(UnknownPolicyError):
    """A plan id defined by two files of the plan folders: xlmodel uses neither."""


class OutputExistsError(XlmodelError):
    pass
