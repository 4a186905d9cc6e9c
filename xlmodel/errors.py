"""Typed exceptions. Every user-facing error names what was wrong and where."""

from __future__ import annotations


class XlmodelError(Exception):
    """Base class: the CLI turns these into a message and exit code 2."""


class Problem:
    """One problem of an input: where (``years[2].cash_dividend (2023)``, ``输入!F12``) and what.
    Immutable; a plain class, not a dataclass: this module is imported by every command, and
    dataclasses would bring ``inspect`` (a tenth of ``xlmodel --help``'s time) with it."""

    __slots__ = ("where", "message")

    def __init__(self, where: str, message: str):
        object.__setattr__(self, "where", where)
        object.__setattr__(self, "message", message)

    def __setattr__(self, name, value):
        raise AttributeError("a Problem cannot be changed")

    def __eq__(self, other):
        return (self.where, self.message) == (other.where, other.message) if isinstance(other, Problem) else NotImplemented

    def __hash__(self):
        return hash((self.where, self.message))

    def __repr__(self) -> str:
        return f"Problem(where={self.where!r}, message={self.message!r})"

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
