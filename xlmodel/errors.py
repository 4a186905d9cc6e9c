"""Typed exceptions. Every user-facing error names what was wrong and where, Chinese first, then English."""

from __future__ import annotations

import re

#: the exit codes of the command line: 0 compliant (or written), 1 a rule fails or an input a rule needs is
#: missing, 2 bad input or usage (130/143: interrupted; :data:`xlmodel.cli.EXIT_HELP` says them in full)
EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2

#: a CJK character (the Chinese of a message)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


#: a quoted value (a file's text, a misspelt name): not the message's own words
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaffA-Za-z]")


def has_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


def leads_chinese(text: str) -> bool:
    """Whether a message's first word (quoted values aside) is Chinese."""
    m = _WORD.search(_QUOTED.sub("", text))
    return bool(m and _CJK.match(m.group()))


#: the Chinese that leads a problem whose message has none, by the first words its English begins with
#: (the English follows, whole: it names the value and what was expected); the last one: any other
_PROBLEM_ZH = (("expected", "取值有误"), ("field required", "缺少必填项"), ("required", "缺少必填项"),
               ("missing", "缺少必填项"), ("unknown", "无法识别"), ("extra inputs", "无法识别的字段"),
               ("no ", "缺少"), ("not ", "不符合要求"), ("", "有误"))


_FIELD_FIRST = re.compile(r"^[\w.\[\]]+: ")


def problem_zh(message: str) -> str:
    """The short Chinese phrase for what kind of problem a message (in English) says: 取值有误, 缺少必填项 …"""
    low = _FIELD_FIRST.sub("", message.lstrip()).lower()  # "cash_dividend: expected …" reads as "expected …"
    return next(zh for start, zh in _PROBLEM_ZH if low.startswith(start))


def _lead(p: Problem) -> str:
    """What leads a problem's line: nothing when its message starts with its Chinese, else the phrase
    (``取值有误 years[2].cash_dividend (2023): expected an amount in 元, got 'abc'``)."""
    return "" if leads_chinese(p.message) else problem_zh(p.message) + " "


def chinese_first(message: str) -> str:
    """An error's message as the command line prints it: Chinese first. A message whose first line has
    no Chinese of its own (a library's, or one not yet translated) is led by 错误 (error)."""
    return message if has_chinese(message.split("\n", 1)[0]) else f"错误 {message}"


def zh_first(zh: str, message: str) -> str:
    """``message`` led by the Chinese phrase ``zh`` (``"无法读取 cannot read …"``), unless the message
    already leads with its Chinese: a message is Chinese first, then English, and never says the Chinese twice."""
    return message if leads_chinese(message) else f"{zh} {message}"


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

    title = "输入有误 invalid input"

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = list(problems)
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.source}: {self.title} ({len(self.problems)} problem{'s' if len(self.problems) != 1 else ''})"]
        lines += [f"  - {_lead(p)}{p}" for p in self.problems]  # each Chinese first: its own, else a phrase
        return "\n".join(lines)


class PolicyError(ProblemsError):
    title = "规划文件有误 invalid policy file"


class CaseError(ProblemsError):
    title = "案例文件有误 invalid case"


class UnknownPolicyError(XlmodelError):
    pass


class AmbiguousPolicyError(UnknownPolicyError):
    """A plan id defined by two files of the plan folders: xlmodel uses neither."""


class OutputExistsError(XlmodelError):
    pass
