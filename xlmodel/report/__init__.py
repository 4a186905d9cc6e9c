"""Reports: the evaluated model for one case, as data and JSON (:class:`Report`, :class:`RuleResult`).

One table in, text out: :mod:`.build` makes a report from an evaluation (its headline read from the
outputs table), :mod:`.explain` words each rule's result, :mod:`.terminal` and :mod:`.markdown` render it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Callable

from ..rules import catalogue as cat
from ..outputs import JSON_HEADLINE, OUTPUT as _O, RULE_PARTS
from ..fields import HALF_YEAR_OPINIONS

#: beside the overall verdict of a case under a plan with open review items: never a bare 通过
UNREVIEWED = "（未复核草稿，不构成合规结论 unreviewed draft: no verdict of compliance）"


_ROLE_TAG = {"condition": "[条件] ", "regulatory": "[监管] "}
_NOT_OP_ZH = {">=": "低于", ">": "不大于", "<=": "超过", "<": "不低于"}
_NOT_OP_EN = {">=": "<", ">": "<=", "<=": ">", "<": ">="}
_OP_ZH = {">=": "不低于", ">": "大于", "<=": "不超过", "<": "低于"}


@dataclass(slots=True)
class RuleResult:
    id: str
    clause: str
    kind: str
    role: str  # condition | requirement | regulatory
    severity: str
    title_zh: str
    title_en: str
    status: str  # conditions: met | not_met | not_applicable | missing_input; obligations: pass | fail | warn | …
    actual: object
    required: object  # the bound the actual is compared with (see bound_kind); kept under this name for the API
    bound_kind: str | None  # minimum 下限 | limit 上限 | threshold 门槛 | None
    margin: float | None  # headroom inside the bound (negative outside); amounts only
    shortfall: float | None
    unit: str
    reason: str | None = None  # why it does not apply (a code of catalogue.REASONS), when not_applicable
    missing_inputs: list[str] = field(default_factory=list)
    #: (explanation_zh, explanation_en), or what words them from the result (called with it): worded
    #: when first read, not for every evaluation (a batch or a worksheet function reads statuses and numbers)
    explain: tuple[str, str] | Callable[[RuleResult], tuple[str, str]] = field(
        default=("", ""), repr=False, compare=False)

    @property
    def bound(self):
        return self.required

    @property
    def _explanation(self) -> tuple[str, str]:
        e = self.explain
        if e.__class__ is not tuple:  # worded once, when first read (see _Later)
            e = self.explain = e(self)
        return e

    def __getstate__(self):
        """Pickled with its explanations worded (what words them reads the evaluation's values)."""
        self._explanation
        return tuple(getattr(self, f.name) for f in fields(self))

    def __setstate__(self, state):
        for f, v in zip(fields(self), state):
            object.__setattr__(self, f.name, v)

    @property
    def explanation_zh(self) -> str:
        return self._explanation[0]

    @property
    def explanation_en(self) -> str:
        return self._explanation[1]

    def to_dict(self) -> dict:
        """The result as JSON gives it: its fields with the explanations after the unit."""
        out = {}
        for f in fields(self):
            if f.name == "explain":
                continue
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, list) else v
            if f.name == "unit":
                out["explanation_zh"], out["explanation_en"] = self._explanation
        return out


@dataclass
class Report:
    policy: str
    policy_version: str
    evaluation_year: int
    company: dict
    overall_status: str
    cash_conditions_met: bool | None
    min_cash_dividend: float | None
    max_distribution: float | None
    fail_count: int
    warn_count: int
    missing_input_count: int
    st_risk_warning: bool | None  # exchange low-dividend risk warning; None when out of scope or undetermined
    cash_needed_to_avoid_st: float | None
    rules: list[RuleResult]
    #: what the minimum cash dividend means beyond its figure (e.g. a plan that requires any cash dividend)
    min_cash_note_zh: str = ""
    min_cash_note_en: str = ""
    plan_years: tuple[int, int] | None = None  # the plan's period; a year outside it is evaluated, and said so
    #: the plan's open review items ("where: what"): a draft nobody has reviewed; the figures are computed
    #: all the same, but no verdict under it is a pass (exit 1, and every face says so)
    open_reviews: tuple[str, ...] = ()

    @property
    def plan_reviewed(self) -> bool:
        return not self.open_reviews

    def draft_note(self) -> tuple[str, str] | None:
        """(zh, en): the plan is an unreviewed draft and the verdict no verdict of compliance; None when reviewed."""
        if self.plan_reviewed:
            return None
        n = len(self.open_reviews)
        return (f"⚠ 规划为未复核的草稿（{n} 项待复核）— 以下结果不构成合规结论",
                f"the plan is an unreviewed draft ({n} open review item{'s' if n != 1 else ''}) — the results below "
                "are no verdict of compliance")

    @property
    def in_plan_period(self) -> bool:
        return self.plan_years is None or self.plan_years[0] <= self.evaluation_year <= self.plan_years[1]

    def period_note(self) -> str:
        """"" inside the plan period; else a phrase saying the year lies outside it."""
        if self.in_plan_period:
            return ""
        a, b = self.plan_years
        return f"（规划期 {a}–{b} 之外 outside the plan period: the plan's rules are applied as written）"

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["company"] = dict(self.company)
        d["plan_years"] = list(self.plan_years) if self.plan_years is not None else None
        d["rules"] = [r.to_dict() for r in self.rules]
        d["open_reviews"] = list(self.open_reviews)
        d["plan_reviewed"] = self.plan_reviewed
        aliased = [p for p in RULE_PARTS if p.json_alias]  # the bound: "bound", and "required" kept as its alias
        for r in d["rules"]:
            for p in aliased:
                r[p.json_key] = r[p.json_alias]
        return d

    @property
    def st_rule(self) -> RuleResult | None:
        return next((r for r in self.rules if r.kind == "st_low_dividend"), None)

    def st_verdict(self) -> tuple[str, str]:
        """The exchange risk warning in one phrase (zh, en), from its rule: the same verdict and reason as its row."""
        r = self.st_rule
        if r is None:
            return "—", "—"
        if r.status == "fail":
            return "是（触发）", "YES (triggered)"
        if r.status == "pass":
            return "否", "no"
        if r.status == "missing_input":
            return f"无法判断：{r.explanation_zh}", f"undetermined: {r.explanation_en}"
        return f"否（{r.explanation_zh}）", f"no ({r.explanation_en})"

    @property
    def units_suspect(self) -> bool:
        """A likely unit slip (万元 typed as 元) not confirmed: the units check fails, and every amount of the
        headline is computed on figures that may be 10⁴ off (issue 47)."""
        return any(r.kind == "plausible_amounts" and r.status == "fail" for r in self.rules)

    #: the keys a reader of the JSON output looks for first, in this order (the rest follow)
    HEADLINE = JSON_HEADLINE

    def to_output(self) -> dict:
        """The report as ``--json`` prints it (``evaluate`` and ``check``): the headline keys first."""
        d = self.to_dict()
        return {**{k: d[k] for k in self.HEADLINE}, **{k: v for k, v in d.items() if k not in self.HEADLINE}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2, default=str)

    @property
    def exit_code(self) -> int:
        return 0 if self.overall_status in ("pass", "warn") and self.plan_reviewed else 1

    def rule(self, rule_id: str) -> RuleResult:
        return next(r for r in self.rules if r.id == rule_id)


#: units counted in whole numbers: distributions (次), rules or alternatives (项), years (年)
WHOLE_UNITS = ("次", "项", "年")


def _fmt(v, unit: str) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "是" if v else "否"
    if isinstance(v, float):
        if unit == "%":
            return f"{v:.2%}"
        if unit in WHOLE_UNITS and math.isfinite(v) and v == int(v):
            return f"{int(v):,}"
        return f"{v:,.2f}"
    if unit == "选项":
        return HALF_YEAR_OPINIONS.get(v, v)
    return str(v)


# ---- one case's results, assembled by a program written per model ----------------------------------
#
# A scalar program returns one tuple of values; what a report takes of each rule (which positions,
# which conversion for the value's type and unit) is known once the model is compiled, so it is
# written out once as straight-line Python: per case, no name is looked up, and a type is tested only
# where the program's static type allows several (a number or a blank, say).


# ---- text rendering ----------------------------------------------------------


def _amount_line(output_id: str, v) -> str:
    """An amount of the headline as a report line: its label (:mod:`xlmodel.outputs`), the figure, the unit."""
    o = _O[output_id]
    return f"{o.short}: {_fmt(v, o.unit)} {o.unit}"


def _with_draft_note(rep: Report, preface: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The preface lines with, first, the note that the plan is an unreviewed draft (when it is one)."""
    note = rep.draft_note()
    return ([note] if note else []) + list(preface)


# ---- terminal layout: width, wrapping, colour ------------------------------------


def _bound(r: RuleResult) -> str:
    """下限 1,000.00 / 上限 9.3e9 / 门槛 …: the bound with its kind."""
    if r.required is None:
        return ""
    return f"{cat.BOUND_ZH[r.bound_kind]} {_fmt(r.required, r.unit)}" if r.bound_kind else _fmt(r.required, r.unit)
