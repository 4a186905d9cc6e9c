"""Reports: the evaluated model for one case, as data, JSON and a readable table."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Callable

from ..rules import catalogue as cat, codegen
from ..plans import schema as pol
from ..outputs import HEADLINE as _OUTPUTS, JSON_HEADLINE, OUTPUT as _O, PART as _P, RULE_PARTS
from ..fields import FIELDS, HALF_YEAR_OPINIONS, SLOTS
from ..inputs.sanitize import md_text, plain_text
from ..rules.expr import py
from ..plans.schema import open_reviews

#: beside the overall verdict of a case under a plan with open review items: never a bare 通过
UNREVIEWED = "（未复核草稿，不构成合规结论 unreviewed draft: no verdict of compliance）"

if TYPE_CHECKING:
    from ..rules.env import ArrayEnv

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


def _explain(rd: cat.RuleDef, status: str, a, r, sf, missing: list[str], reason: str | None,
             ctx: dict) -> tuple[str, str]:
    s, ck = rd.spec, rd.check
    if status == "missing_input":
        names = ", ".join(missing) or "现金分红条件 / cash dividend conditions"
        return f"缺少输入：{names}", f"missing input: {names}"
    if missing:  # decided all the same: no value of these inputs could change the outcome
        zh, en = _explain(rd, status, a, r, sf, [], reason, ctx)
        names = ", ".join(missing)
        return (f"{zh}（无论缺少的输入为何值，结论不变：{names}）",
                f"{en} (whatever the missing inputs, the outcome is the same: {names})")
    if status == "not_applicable":
        zh, en = cat.REASONS.get(reason or "", ("不适用", "not applicable"))
        return f"不适用：{zh}", f"not applicable: {en}"
    if "note" in ctx:  # a reading the result rests on, said beside it
        zh, en = _explain(rd, status, a, r, sf, missing, reason, {k: v for k, v in ctx.items() if k != "note"})
        return f"{zh}（{ctx['note'][0]}）", f"{en} ({ctx['note'][1]})"
    u = ck.unit
    fa, fr = _fmt(a, u), _fmt(r, u)
    ok = status in ("pass", "met")
    if s.kind == "sale_restriction":
        held = ctx.get("triggers", [])
        if not held:
            return (f"无破净、破发；最近三年累计现金分红 {fa} 不低于 {fr}（亏损年度不计）：控股股东可减持",
                    f"no price trigger; cash over three years {fa} >= {fr} (loss years left out): controlling shareholders may sell")
        zh = "；".join(cat.SALE_TRIGGERS[k][0] for k in held)
        en = "; ".join(cat.SALE_TRIGGERS[k][1] for k in held)
        if "low_dividend" in held:
            zh += f"（累计 {fa}，下限 {fr}）"
            en += f" (cumulative {fa}, minimum {fr})"
        return (f"控股股东、实际控制人不得在二级市场减持：{zh}", f"controlling shareholders may not sell on the market: {en}")
    if s.kind == "any_of":
        return _any_of(status, ctx.get("alternatives", []))
    if s.kind == "plausible_amounts":
        held = ctx.get("signals", [])
        if not held:
            return "金额规模与逐年变动与上市公司相符", "amounts of a listed company's size, without jumps"
        zh, en = "；".join(z for z, _ in held), "; ".join(e for _, e in held)
        if ok:
            return (f"已核对金额单位为元（amounts_confirmed）：{zh}", f"amounts confirmed as 元 (amounts_confirmed): {en}")
        return (f"金额疑似以万元或亿元填写：{zh}。请按元填写（1.2亿 即 120000000），确属实际金额的，将“金额单位已核对”填为 是",
                f"amounts look like 万元 or 亿元: {en}. Enter 元 (1.2亿 is 120000000), or confirm real figures (amounts_confirmed)")
    if s.kind == "conditions_held":
        if ok:
            return "现金分红时规划条件均满足", "the plan's conditions hold when paying"
        names = "、".join(f"{t}（{c}）" for t, c in ctx.get("not_met", []))
        return (f"条件不满足仍进行现金分红：{names}", f"cash dividend paid while conditions are not met: {names}")
    if ck.op in _OP_ZH:
        bk = rd.bound or "minimum"
        word_zh, word_en = cat.BOUND_ZH[bk], cat.BOUND_EN[bk]
        rel = _OP_ZH[ck.op] if ok else _NOT_OP_ZH[ck.op]
        zh = f"实际 {fa} {rel}{word_zh} {fr}"
        en = f"actual {fa} {ck.op if ok else _NOT_OP_EN[ck.op]} {word_en} {fr}"
        if sf:
            zh += f"，差额 {_fmt(sf, u)}"
            en += f", short/over by {_fmt(sf, u)}"
        return zh, en
    if ck.op == "in":
        return (f"审计意见为{fa}，{'属于' if ok else '不属于'}规划认可的意见",
                f"audit opinion {a} is {'' if ok else 'not '}accepted")
    if ck.op == "not_major":
        if u == "项":  # tests of different figures (a planned transaction's): which of them hold
            return _outlay_tests(ok, ctx.get("tests", []), ctx.get("every", False))
        if r is None:
            return (f"董事会认定{'无' if ok else '有'}重大投资计划或重大现金支出",
                    f"board determination: {'no ' if ok else ''}major outlay planned")
        return (f"拟支出 {fa} {'未达到' if ok else '达到'}重大支出标准 {fr}",
                f"planned outlay {fa} {'below' if ok else 'meets'} the major-outlay threshold {fr}")
    zh, en = ctx.get("title", (s.title_zh, s.title_en))  # as worded for the year
    return (f"{'已确认' if ok else '未确认'}：{zh}", f"{'confirmed' if ok else 'not confirmed'}: {en}")


def decides_without(rd: cat.RuleDef) -> bool:
    """A rule three-valued logic may decide with inputs missing (``<rule>.decided``): its result names them
    whatever its status (``missing_inputs``), the inputs it did without."""
    return rd.decides


def _missing(rd: cat.RuleDef, env: ArrayEnv, i: int, year: int) -> list[str]:
    out = []
    for fid, off in dict.fromkeys(rd.app_fields + rd.check_fields):
        if env.missing(fid, off)[i]:
            label = FIELDS[fid].zh if fid in FIELDS else "声明确认"
            out.append(f"{fid} {label} ({year + off})")
    return out


def _context(model: cat.Model, val, rd: cat.RuleDef) -> dict:
    """What a kind's explanation names beyond its own cells: the triggers that hold, the conditions not met."""
    if rd.spec.kind == "sale_restriction":
        return {"triggers": [k for k in cat.SALE_TRIGGERS if val(f"{rd.id}.{k}") is True]}
    if rd.spec.kind == "conditions_held":
        return {"not_met": [(c.spec.title_zh, c.spec.clause) for c in model.conditions
                            if val(f"{c.id}.status") == "not_met"]}
    if rd.spec.kind == "any_of":
        alts = [model.rule(rid) for rid in rd.spec.rules]
        return {"alternatives": [(a.spec.title_zh, a.spec.title_en, val(f"{a.id}.status")) for a in alts]}
    if rd.spec.kind == "plausible_amounts":
        return {"signals": [(zh, en) for k, zh, en in cat.plausible_signals(rd.spec) if val(f"{rd.id}.{k}") is True]}
    if f"{rd.id}.s1_made" in model.scalars:  # one rule over the interim slots: which interim it shows
        made = [k for k in range(1, len(SLOTS) + 1) if val(f"{rd.id}.s{k}_made") is True]
        shown = next((k for k in range(1, len(SLOTS)) if val(f"{rd.id}.s{k}_shown") is True), len(SLOTS))
        if len(made) > 1:
            return {"note": (f"本年度共 {len(made)} 次中期分配，各按其报告期检查，列示余量最小的第 {shown} 次",
                             f"{len(made)} interims this year, each checked on its own period; shown: interim {shown}, "
                             "the one with the least headroom")}
    if f"{rd.id}.parent_only_reading" in model.scalars and val(f"{rd.id}.parent_only_reading") is True:
        return {"note": (ST_PARENT_ONLY_ZH, ST_PARENT_ONLY_EN)}
    if rd.spec.kind == "no_major_outlay" and rd.check.unit == "项":
        mo = model.policy.major_outlay
        return {"every": mo.branches_combine == "all",
                "tests": [(*cat.outlay_test_label(t), val(f"major_outlay.b{i}") is True) for i, t in enumerate(mo.tests(), 1)]}
    return {}


#: said wherever the exchanges' readings of the risk warning's precondition part (docs/domain.md §6.1)
ST_PARENT_ONLY_ZH = ("上交所规则原文仅以母公司报表年度末未分配利润为正为前提，合并报表未分配利润不为正，按上交所原文仍适用本规则"
                     "（深交所要求合并与母公司均为正，该口径下不适用）")
ST_PARENT_ONLY_EN = ("the SSE's rule text requires only the parent's year-end retained earnings to be positive: with the "
                     "consolidated figure not positive the rule still applies there (on the SZSE's reading, both "
                     "statements positive, it would not)")


def _outlay_tests(ok: bool, tests: list[tuple[str, str, bool]], every: bool) -> tuple[str, str]:
    """A major outlay of several tests of different figures: the tests that hold (or that none, or not all, does)."""
    held = [(i, zh, en) for i, (zh, en, h) in enumerate(tests, 1) if h]
    named_zh = "；".join(f"第{i}项：{zh}" for i, zh, _ in held)
    named_en = "; ".join(f"test {i}: {en}" for i, _, en in held)
    if not ok:
        lead = "全部标准均达到" if every else "达到重大支出标准"
        return (f"{lead}，构成重大投资计划或重大现金支出（{named_zh}）",
                f"{'every test' if every else 'a test'} of a major outlay holds ({named_en})")
    if not held:
        return (f"{len(tests)}项重大支出标准均未达到", f"none of the {len(tests)} major-outlay tests holds")
    return (f"未同时达到全部{len(tests)}项重大支出标准（达到：{named_zh}）",
            f"not every one of the {len(tests)} major-outlay tests holds (holding: {named_en})")


def _any_of(status: str, alts: list[tuple[str, str, str]]) -> tuple[str, str]:
    """An either-of group: which alternatives are met, or that none is (and how each stands)."""
    met = [(zh, en) for zh, en, st in alts if st in ("met", "pass")]
    if met:
        return ("满足备选：" + "；".join(zh for zh, _ in met), "met by: " + "; ".join(en for _, en in met))
    zh = "；".join(f"{t}（{cat.STATUS_ZH.get(st, st)}）" for t, _, st in alts)
    en = "; ".join(f"{t} ({st.replace('_', ' ')})" for _, t, st in alts)
    return f"各备选均未满足：{zh}", f"no alternative met: {en}"


def _per_model(key: str, model: cat.Model, make):
    """``make(model)``, worked out once per model and kept with it (:class:`xlmodel.rules.catalogue.Derived`)."""
    return model.derived.once(("report", key), make, model)



def _cash_paid(model: cat.Model) -> list[cat.RuleDef]:
    """The rules requiring a cash dividend of any amount that raise the minimum."""
    return _per_model("cash paid", model,
                      lambda m: [rd for rd in m.rules if rd.spec.kind == "cash_paid" and rd.is_minimum])


def _min_cash_note(model: cat.Model, val) -> tuple[str, str]:
    """Say what a minimum of one fen means: the plan requires a cash dividend, of any amount."""
    for rd in _cash_paid(model):
        if val(f"{rd.id}.status") in ("pass", "fail") and val("min_cash_dividend") == val(f"{rd.id}.min_cash"):
            return (f"规划要求进行现金分红（{rd.spec.clause}）：任何正数金额即满足该条，最低 0.01 元",
                    f"the plan requires a cash dividend ({rd.spec.clause}): any positive amount meets it, at least 0.01 元")
    return "", ""


def _rule_plan(model: cat.Model) -> list[tuple]:
    """Per rule, what a report reads of it (the calculation names, which parts it has, its bound kind),
    worked out once per model."""
    def make(model: cat.Model) -> list[tuple]:
        plan = []
        for rd in model.rules:
            rid, ck = rd.spec.id, rd.check
            s = rd.spec  # what its result says whatever the case, then the names of its calculations
            static = (s.id, s.clause, s.kind, rd.role, s.severity, s.title_zh, s.title_en)
            plan.append((rd, static, ck.unit, f"{rid}.status", f"{rid}.actual",
                         f"{rid}.required" if ck.required is not None else None,
                         f"{rid}.shortfall" if ck.shortfall is not None else None,
                         f"{rid}.margin" if rd.has_margin else None,
                         f"{rid}.reason" if f"{rid}.reason" in model.scalars else None, rd.bound))
        return plan
    return _per_model("rule plan", model, make)


def _value(v, unit):
    """A calculated value as a report gives it (:func:`xlmodel.rules.expr.py`), its commonest cases first."""
    c = v.__class__
    if c is float and unit != "日期":
        return v + 0.0
    if c is bool:
        return v
    if c is str:
        return None if v == "" else v
    return py(v, unit)


class _Later:
    """What words a report's explanations when one is first read: one per report, shared by its
    results (each is worded from its own fields and the evaluation's other values)."""

    __slots__ = ("model", "val")

    def __init__(self, model: cat.Model, val):
        self.model, self.val = model, val

    def __call__(self, res: RuleResult) -> tuple[str, str]:
        rd = _per_model("rule by id", self.model, lambda m: {r.id: r for r in m.rules})[res.id]
        return _explain(rd, res.status, res.actual, res.required, res.shortfall, res.missing_inputs, res.reason,
                        {**(_context(self.model, self.val, rd) or {}), "title": (res.title_zh, res.title_en)})


_HEADLINE_CALCS = tuple(o.id for o in _OUTPUTS)  # the headline outputs (xlmodel.outputs), in the Report's order


def report_roots(model: cat.Model) -> tuple[tuple[str, int], ...]:
    """The calculations a report reads, as a scalar program's roots (one tuple per model, so that the
    program computing only them is found by identity): each rule's parts, the price triggers a sale
    restriction's explanation names, the minimums the note on the minimum compares, the headline."""
    def make(model: cat.Model) -> tuple:
        names = []
        for rd, _static, _u, *parts, _bound in _rule_plan(model):
            names += [n for n in parts if n is not None]
            if rd.spec.kind == "sale_restriction":
                names += [f"{rd.id}.{k}" for k in cat.SALE_TRIGGERS]
            if rd.spec.kind == "plausible_amounts":
                names += [f"{rd.id}.{k}" for k, _, _ in cat.plausible_signals(rd.spec)]
            names.append(f"{rd.id}.parent_only_reading")  # (kept only where the rule has it)
            names += [f"{rd.id}.s{k}_{w}" for k in range(1, len(SLOTS) + 1) for w in ("made", "shown")]  # per slot
            if rd.spec.kind == "no_major_outlay" and rd.check.unit == "项":  # the tests its explanation names
                names += [f"major_outlay.b{i}" for i in range(1, len(model.policy.major_outlay.tests()) + 1)]
        names += [f"{rd.id}.min_cash" for rd in _cash_paid(model)]
        names += _HEADLINE_CALCS
        return tuple((n, 0) for n in dict.fromkeys(names) if n in model.scalars)
    return _per_model("roots", model, make)


def _scalar_val(values: tuple, index: dict):
    def val(name, unit=None):
        v = values[index[name]]
        c = v.__class__  # py(v, unit), its commonest cases first
        if c is bool:
            return v
        if c is str:
            return None if v == "" else v
        if c is float and unit != "日期":
            return v + 0.0
        return py(v, unit)
    return val


def _array_val(env: ArrayEnv, i: int):
    def val(name, unit=None):
        return py(env.calc(name, None)[i], unit)
    return val


def build_report(model: cat.Model, env: ArrayEnv, i: int, case) -> Report:
    """The report of element ``i`` of an evaluation: one case's scalar program (its values and their
    index), or an element of the reference's arrays."""
    values, index, types = getattr(env, "values", None), getattr(env, "index", None), getattr(env, "types", None)
    ey = case.evaluation_year
    if values is not None and index is not None and types is not None:
        val = _scalar_val(values, index)
        results, head = _assembler(model, index, types)(values, lambda rd: _missing(rd, env, 0, ey), _Later(model, val))
    else:
        val = _array_val(env, i)
        later = _Later(model, val)
        results = [_rule_result(rd, static, u, names, bound, val, later, lambda rd: _missing(rd, env, i, ey))
                   for rd, static, u, *names, bound in _rule_plan(model)]
        head = tuple(val(n) for n in _HEADLINE_CALCS)
    return _report(model, case, val, results, head)


def _rule_result(rd, static, u, names, bound, val, later, missing) -> RuleResult:
    """One rule's result, read by name (the reference's arrays)."""
    st_name, a_name, r_name, sf_name, m_name, reason_name = names

    def get(name, unit=None):
        return None if name is None else val(name, unit)
    status, a, r = get(st_name), get(a_name, u), get(r_name, u)
    reason = get(reason_name) if status == "not_applicable" else None
    miss = missing(rd) if status == "missing_input" or decides_without(rd) else []
    return RuleResult(*static, status, a, r, bound if r is not None else None, get(m_name), get(sf_name), u,
                      reason, miss, later)


def _report(model: cat.Model, case, val, results: list[RuleResult], head: tuple) -> Report:
    """The report: its rules' ``results`` and ``head``, the values of :data:`_HEADLINE_CALCS`."""
    p = model.policy
    overall, cond, min_cash, max_dist, fails, warns, missing, st, st_cash = head
    note_zh, note_en = _min_cash_note(model, val)
    if case.evaluation_year >= pol.AUDIT_COMMITTEE_FROM:  # the body that exists in the year (docs/domain.md §6.10)
        for r in results:
            r.title_zh, r.title_en = pol.worded_for_year(r.title_zh, r.title_en, case.evaluation_year)
    return Report(
        policy=p.id, policy_version=p.version, evaluation_year=case.evaluation_year,
        company={k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in case.company.items()},
        overall_status=overall, cash_conditions_met=cond, min_cash_dividend=min_cash, max_distribution=max_dist,
        fail_count=int(fails), warn_count=int(warns), missing_input_count=int(missing),
        st_risk_warning=st, cash_needed_to_avoid_st=st_cash, rules=results,
        min_cash_note_zh=note_zh, min_cash_note_en=note_en, plan_years=tuple(p.plan_years),
        open_reviews=tuple(f"{where}: {what}" for where, what in open_reviews(p)))


# ---- one case's results, assembled by a program written per model ----------------------------------
#
# A scalar program returns one tuple of values; what a report takes of each rule (which positions,
# which conversion for the value's type and unit) is known once the model is compiled, so it is
# written out once as straight-line Python: per case, no name is looked up, and a type is tested only
# where the program's static type allows several (a number or a blank, say).

def _assembler(model: cat.Model, index: dict, types: list[str]):
    """``assemble(values, missing, later)`` -> the rules' results and the headline values
    (:data:`_HEADLINE_CALCS`), for a scalar program's index and types (kept with the model)."""
    made = model.derived.table("report assemblers", 64)
    hit = made.get(id(index))
    if hit is None or hit[0] is not index:  # (hit[0] keeps the index's id taken while the entry is kept)
        hit = made.put(id(index), (index, _write_assembler(model, index, types)))
    return hit[1]


#: the static part of a result, in the order of _rule_plan's tuple
_STATIC = ("id", "clause", "kind", "role", "severity", "title_zh", "title_en")


def _read(k: int, typ: str, unit: str | None, const: str) -> str:
    """The expression giving value ``k`` as a report gives it (:func:`_value`), for its static type."""
    if typ == "f" and unit != "日期":
        return f"(v[{k}] + 0.0)"
    if typ == "b":
        return f"v[{k}]"
    if typ == "s":
        return f"(v[{k}] or None)"
    if unit != "日期":  # a number, a boolean, or a blank ("") or a text: _value's two first cases inline
        return f"(x + 0.0 if (c := type(x := v[{k}])) is float else x if c is bool else _value(x, {const}))"
    return f"_value(v[{k}], {const})"


def _write_assembler(model: cat.Model, index: dict, types: list[str]):
    """Per rule: a new result with each of its slots filled in turn (the dataclass's ``__init__``, with
    its seventeen arguments, costs twice as much), every slot of :class:`RuleResult` exactly once."""
    ns: dict = {"RR": RuleResult, "new": object.__new__, "_value": _value}
    body = []
    for j, (rd, static, u, *names, bound) in enumerate(_rule_plan(model)):
        ks, ka, kr, ksf, km, kreason = (index[n] if n is not None else -1 for n in names)

        def read(k, unit=None):
            return "None" if k < 0 else _read(k, types[k], unit, f"U{j}" if unit is not None else "None")
        for n, value in zip(_STATIC, static):
            ns[f"{n}{j}"] = value
        ns[f"U{j}"], ns[f"B{j}"], ns[f"R{j}"] = u, bound, rd
        slots = [(n, f"{n}{j}") for n in _STATIC] + [
            ("status", f"s = v[{ks}]"), ("actual", read(ka, u)), ("required", f"r = {read(kr, u)}"),
            ("bound_kind", f"(B{j} if r is not None else None)" if kr >= 0 else "None"),
            ("margin", read(km)), ("shortfall", read(ksf)), ("unit", f"U{j}"),
            ("reason", f"({read(kreason)} if s == 'not_applicable' else None)" if kreason >= 0 else "None"),
            ("missing_inputs", "missing(R{0})".format(j) if decides_without(rd) else
             f"(missing(R{j}) if s == 'missing_input' else [])"), ("explain", "later")]
        if sorted(n for n, _ in slots) != sorted(RuleResult.__slots__):
            raise AssertionError("the report assembler does not fill every slot of RuleResult once")
        body += [codegen.comment(rd.id, "rule ").lstrip(), "o = new(RR)", *(f"o.{n} = {x}" for n, x in slots),
                 "out.append(o)"]
    head = ", ".join(_read(index[n], types[index[n]], None, "None") for n in _HEADLINE_CALCS)
    # the plan's text is bound as values (id0, U0, …), never written into the source
    src = codegen.function("assemble", ["v", "missing", "later"],
                           ["out = []", *body, f"return out, ({head})  # the results, the headline values"])
    return codegen.compile_source(src, "report", model.policy.id, ns, "assemble")


# ---- text rendering ----------------------------------------------------------

def _width(s: str) -> int:
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


def _pad(s: str, w: int) -> str:
    return s + " " * max(0, w - _width(s))


def _company_line(rep: Report) -> str:
    """The company, labelled: a name from the input never begins a line (nor a pasted cell: '=…')."""
    name = f"{plain_text(rep.company.get('company_name', ''))} {plain_text(rep.company.get('stock_code', ''))}".strip()
    return f"公司 Company: {name}" if name else ""


def _company_fit(rep: Report, w: int) -> str:
    """The company line in ``w`` columns: one line, the name cut (…) before the stock code."""
    line = _company_line(rep)
    if _width(line) <= w:
        return line
    name = plain_text(rep.company.get("company_name", ""))
    code = plain_text(rep.company.get("stock_code", ""))
    label = "公司 Company: "
    if name and code and _width(code) <= 20:
        return f"{label}{_truncate(name, w - _width(label) - 1 - _width(code))} {code}"
    return _truncate(line, w)


#: the header's warning when the units check fails: the amounts beneath it rest on figures that may be 万元
UNITS_SUSPECT_ZH = "注意：金额疑似以万元或亿元填写，以下金额按元计算，可能相差一万倍（见 reg_amounts_plausible）"
UNITS_SUSPECT_EN = "Note: amounts look like 万元 or 亿元; the figures below are computed as 元 and may be 10,000× off"


def _header_segments(rep: Report) -> list[list[tuple[str, str]]]:
    """The header lines after the company, each a list of (separator, segment)."""
    st = cat.STATUS_ZH
    cond = rep.cash_conditions_met
    zh, en = rep.st_verdict()
    return [
        [("", f"规划 Plan: {plain_text(rep.policy)} (v{plain_text(rep.policy_version)})"),
         ("    ", f"会计年度 Fiscal year: {rep.evaluation_year}")]
        + ([(" ", plain_text(rep.period_note()))] if rep.period_note() else []),
        [("", f"{_O['overall_status'].short}: {st[rep.overall_status]} {rep.overall_status}")]
        + ([(" ", UNREVIEWED)] if not rep.plan_reviewed else [])
        + [("    ", f"{_O['fail_count'].short}: {rep.fail_count}  {_O['warn_count'].short}: {rep.warn_count}  "
                      f"{_O['missing_input_count'].short}: {rep.missing_input_count}")],
        *([[("", UNITS_SUSPECT_ZH), (" | ", UNITS_SUSPECT_EN)]] if rep.units_suspect else []),
        [("", f"{_O['cash_conditions_met'].short}: {'—' if cond is None else ('是 yes' if cond else '否 no')}")],
        [("", _amount_line("min_cash_dividend", rep.min_cash_dividend))]
        + ([("  ", f"（{plain_text(rep.min_cash_note_zh)}）")] if rep.min_cash_note_zh else []),
        [("", _amount_line("max_distribution", rep.max_distribution))],
        [("", f"{_O['st_risk_warning'].short}: {zh}"), (" | ", en),
         ("    ", _amount_line("cash_needed_to_avoid_st", rep.cash_needed_to_avoid_st))],
    ]


def _amount_line(output_id: str, v) -> str:
    """An amount of the headline as a report line: its label (:mod:`xlmodel.outputs`), the figure, the unit."""
    o = _O[output_id]
    return f"{o.short}: {_fmt(v, o.unit)} {o.unit}"


def _paint_overall(lines: list[str], rep: Report, color: bool) -> list[str]:
    word = f"{cat.STATUS_ZH[rep.overall_status]} {rep.overall_status}"
    label = _O["overall_status"].short
    lead = f"{label}: {word}"
    return [ln.replace(lead, f"{label}: {paint(word, rep.overall_status, color)}", 1)
            if color and ln.startswith(lead) else ln for ln in lines]


def render_table(rep: Report, *, width: int | None = None, wide: bool = False, color: bool | None = None,
                 preface: Sequence[tuple[str, str]] = ()) -> str:
    """The report as text for a terminal.

    By default a compact table within ``width`` display columns (default: the terminal's,
    :func:`terminal_width`; never below :data:`MIN_WIDTH`): per rule a line with its status, title
    and clause (wrapped), the short columns beneath (actual, bound with its kind, margin,
    shortfall), and for a rule that does not pass its explanations, wrapped. ``wide``: the full
    table, one line per rule, never wrapped. ``color`` (default :func:`color_enabled`) colours the
    status words. ``preface``: (zh, en) lines of our own wording shown first (``xlmodel check``
    puts the workbook's integrity there); text from a file in them is made plain."""
    color = color_enabled() if color is None else color
    preface = _with_draft_note(rep, preface)
    if wide:
        return _render_wide(rep, color, preface)
    w = max(MIN_WIDTH, width or terminal_width())
    lines: list[str] = []
    for zh, en in preface:  # continuation lines are marked: text quoted from a file never begins one
        lines += _fit([("", plain_text(zh)), (" | ", plain_text(en))], w, cont="  ↪ ")
    lines.append(_company_fit(rep, w) if _company_line(rep) else "")  # one line: a name cannot push lines
    for segments in _header_segments(rep):
        lines += _fit(segments, w)
    lines.append("")
    return "\n".join(_paint_overall(lines, rep, color) + _compact_rules(rep, w, color))


def _with_draft_note(rep: Report, preface: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The preface lines with, first, the note that the plan is an unreviewed draft (when it is one)."""
    note = rep.draft_note()
    return ([note] if note else []) + list(preface)


def _compact_rules(rep: Report, w: int, color: bool) -> list[str]:
    st = cat.STATUS_ZH
    indent = 4
    cols = [(_P["actual"].heading, [_fmt(r.actual, r.unit) for r in rep.rules]),
            (_P["bound"].heading, [_bound(r) for r in rep.rules]),
            (_P["margin"].heading, [_fmt(r.margin, r.unit) if r.margin is not None else "" for r in rep.rules]),
            (_P["shortfall"].heading, [_fmt(r.shortfall, r.unit) if r.shortfall else "" for r in rep.rules])]
    widths = [max(_width(x) for x in [h, *cells]) for h, cells in cols]
    bands: list[list[int]] = [[]]  # columns that do not fit beside the others continue on a line below
    used = indent
    for i, cw in enumerate(widths):
        if bands[-1] and used + 2 + cw > w:
            bands.append([])
            used = indent
        used += cw + (2 if bands[-1] else 0)
        bands[-1].append(i)

    def band_lines(cells: list[str]) -> list[str]:
        return [(" " * indent + "  ".join(_pad(cells[i], widths[i]) for i in band)).rstrip()
                for band in bands if any(cells[i] not in ("", "—") for i in band)]

    head = [f"{_P['status'].heading}  {_P['rule'].heading} 〔{_P['clause'].heading}〕"] + [
        (" " * indent + "  ".join(_pad(cols[i][0], widths[i]) for i in band)).rstrip() for band in bands]
    lines = head + ["-" * min(w, max(_width(x) for x in head))]
    for k, r in enumerate(rep.rules):
        status = f"{st[r.status]} {r.status}"
        title = f"{_ROLE_TAG.get(r.role, '')}{plain_text(r.title_zh)}"
        first, *rest = _wrap(title, w, first=status + "  ", cont=" " * indent, tail=f"〔{plain_text(r.clause)}〕")
        lines += [paint(status, r.status, color) + first[len(status):], *rest]
        lines += band_lines([c[1][k] for c in cols])
        if r.status not in ("pass", "met"):
            lines += _wrap(plain_text(r.explanation_zh), w, first=" " * indent + "↳ ", cont=" " * (indent + 2))
            lines += _wrap(plain_text(r.explanation_en), w, first=" " * (indent + 2), cont=" " * (indent + 2))
    return lines


def _render_wide(rep: Report, color: bool, preface: Sequence[tuple[str, str]]) -> str:
    """The full table: one line per rule and per header line, never wrapped (``--wide``)."""
    st = cat.STATUS_ZH
    lines = [f"{plain_text(zh)} | {plain_text(en)}" for zh, en in preface]
    lines.append(_company_line(rep))
    lines += ["".join(sep + text for sep, text in segments) for segments in _header_segments(rep)]
    lines = _paint_overall(lines, rep, color) + [""]
    head = [_P[k].heading for k in ("rule", "clause", "status", "actual", "bound", "margin", "shortfall")]
    rows = []
    for r in rep.rules:
        rows.append([
            f"{_ROLE_TAG.get(r.role, '')}{plain_text(r.title_zh)}",
            plain_text(r.clause), f"{st[r.status]} {r.status}",
            _fmt(r.actual, r.unit), _bound(r), _fmt(r.margin, r.unit) if r.margin is not None else "",
            _fmt(r.shortfall, r.unit) if r.shortfall else "",
        ])
    widths = [max(_width(x) for x in col) for col in zip(head, *rows)]
    lines.append("  ".join(_pad(h, w) for h, w in zip(head, widths)))
    lines.append("  ".join("-" * w for w in widths))
    for row, r in zip(rows, rep.rules):
        cells = [_pad(c, w) for c, w in zip(row, widths)]
        cells[2] = paint(row[2], r.status, color) + cells[2][len(row[2]):]
        lines.append("  ".join(cells))
        if r.status not in ("pass", "met"):
            lines.append(f"    ↳ {plain_text(r.explanation_zh)} | {plain_text(r.explanation_en)}")
    return "\n".join(lines)


# ---- terminal layout: width, wrapping, colour ------------------------------------

#: the width when the terminal's is unknown (output to a file or a pipe, COLUMNS unset)
DEFAULT_WIDTH = 100
#: the narrowest layout: a narrower terminal gets lines of this width
MIN_WIDTH = 40
#: ANSI colours of the status words (not_applicable stays plain)
STATUS_COLORS = {"fail": "31", "warn": "33", "pass": "32", "met": "36", "not_met": "34", "missing_input": "35"}
_CLOSE = frozenset("，。、；：！？）》」』〕】”’,.;:!?)]}%")  # no line begins with these
_OPEN = frozenset("（《「『〔【“‘([{")  # no line ends with these
_SOFT = frozenset("，。、；：！？）》」』〕】")  # a line preferably breaks after these (or at a space)


def terminal_width() -> int:
    """The terminal's width in columns (``COLUMNS`` first); :data:`DEFAULT_WIDTH` when unknown."""
    import shutil

    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns or DEFAULT_WIDTH


def color_enabled(stream=None) -> bool:
    """Colour only on a terminal (``stream``, default stdout), and not with ``NO_COLOR`` set
    (https://no-color.org) or ``TERM=dumb``."""
    import os
    import sys

    stream = sys.stdout if stream is None else stream
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False
    return bool(tty) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def paint(text: str, status: str, color: bool) -> str:
    """``text`` in the colour of ``status`` (:data:`STATUS_COLORS`) when ``color``."""
    code = STATUS_COLORS.get(status) if color else None
    return f"\x1b[{code}m{text}\x1b[0m" if code else text


def _truncate(s: str, w: int) -> str:
    """``s`` cut to ``w`` display columns, ending in … when cut."""
    if _width(s) <= w:
        return s
    out, used = "", 0
    for ch in s:
        if used + _width(ch) > w - 1:
            break
        out += ch
        used += _width(ch)
    return out + "…"


def _fit(segments: list[tuple[str, str]], w: int, cont: str = "    ") -> list[str]:
    """A header line if it fits in ``w``; else each segment on its own line(s), the later ones after ``cont``."""
    joined = "".join(sep + text for sep, text in segments)
    if _width(joined) <= w:
        return [joined]
    out: list[str] = []
    for i, (_sep, text) in enumerate(segments):
        out += _wrap(text, w, first=cont if i else "", cont=cont)
    return out


def _atoms(text: str) -> list[str]:
    """``text`` in pieces a line never breaks inside: a space, one CJK character, a run of other
    characters; closing punctuation stays with what precedes it, opening with what follows."""
    atoms: list[str] = []
    for ch in text:
        if atoms:
            prev = atoms[-1]
            glue = (ch in _CLOSE and prev != " ") or (prev[-1] in _OPEN and ch != " ")
            run = ch != " " and prev[-1] != " " and _width(ch) == 1 and _width(prev[-1]) == 1
            if glue or run:
                atoms[-1] += ch
                continue
        atoms.append(ch)
    return atoms


def _wrap(text: str, w: int, first: str = "", cont: str = "", tail: str = "") -> list[str]:
    """``text`` in lines of at most ``w`` display columns (East Asian wide characters count 2), the
    first line after ``first``, the others after ``cont``; ``tail`` follows after a space, on one
    line where it fits one.

    Lines break at spaces and between CJK characters, preferably at a space or after CJK
    punctuation in the second half of the line, never inside a number or word that fits a line."""
    atoms = _atoms(text)
    if tail:
        atoms += [" "] + ([tail] if _width(tail) <= max(2, w - _width(cont)) else _atoms(tail))
    lines: list[str] = []
    cur: list[str] = []
    prefix = first

    def room() -> int:
        return max(2, w - _width(prefix))

    def emit(parts: list[str]) -> None:
        nonlocal prefix
        lines.append((prefix + "".join(parts)).rstrip())
        prefix = cont

    def width_of(parts: list[str]) -> int:
        return sum(_width(p) for p in parts)

    for atom in atoms:
        if atom == " " and not cur:
            continue
        if width_of(cur) + _width(atom) <= room():
            cur.append(atom)
            continue
        if atom == " ":
            emit(cur)
            cur = []
            continue
        soft = [i for i, a in enumerate(cur) if a == " " or a[-1] in _SOFT]
        if soft and width_of(cur[: soft[-1] + 1]) >= room() // 2:
            emit(cur[: soft[-1] + 1])
            cur = cur[soft[-1] + 1:]
            while cur and cur[0] == " ":
                cur.pop(0)
        elif cur:
            emit(cur)
            cur = []
        if cur and width_of(cur) + _width(atom) > room():
            emit(cur)
            cur = []
        while _width(atom) > room():  # a word longer than a line is cut
            piece = ""
            for ch in atom:
                if piece and _width(piece + ch) > room():
                    break
                piece += ch
            emit([piece])
            atom = atom[len(piece):]
        cur.append(atom)
    if cur or not lines:
        emit(cur)
    return lines


def _bound(r: RuleResult) -> str:
    """下限 1,000.00 / 上限 9.3e9 / 门槛 …: the bound with its kind."""
    if r.required is None:
        return ""
    return f"{cat.BOUND_ZH[r.bound_kind]} {_fmt(r.required, r.unit)}" if r.bound_kind else _fmt(r.required, r.unit)


def render_markdown(rep: Report, *, preface: Sequence[tuple[str, str]] = ()) -> str:
    """The report as Markdown, for pasting into a board memo; ``preface`` (zh, en) lines are quoted
    beneath the heading (``xlmodel check``: the workbook's integrity)."""
    st = cat.STATUS_ZH
    cond = rep.cash_conditions_met
    name = f"{md_text(rep.company.get('company_name', ''))} {md_text(rep.company.get('stock_code', ''))}".strip()
    quoted = "\n>\n".join(f"> {md_text(zh)} / {md_text(en)}" for zh, en in _with_draft_note(rep, preface))
    lines = [
        f"### {name} — {rep.evaluation_year} 年度股东分红回报规划合规检查" if name else f"### {rep.evaluation_year} 年度股东分红回报规划合规检查",
        "",
        *([quoted, ""] if quoted else []),
        f"- 规划 Policy: `{rep.policy}` v{md_text(rep.policy_version)}"  # (an id: [a-z0-9-] only)
        + (f" {md_text(rep.period_note())}" if rep.period_note() else ""),
        f"- {_O['overall_status'].short}: **{st[rep.overall_status]}** ({rep.overall_status})"
        + (md_text(UNREVIEWED) if not rep.plan_reviewed else "") + "; "
        f"{_O['fail_count'].short_zh} {rep.fail_count}, {_O['warn_count'].short_zh} {rep.warn_count}, "
        f"{_O['missing_input_count'].short_zh} {rep.missing_input_count}",
        f"- {_O['cash_conditions_met'].short}: {'—' if cond is None else ('是' if cond else '否')}",
        f"- {_amount_line('min_cash_dividend', rep.min_cash_dividend)}"
        + (f"（{md_text(rep.min_cash_note_zh)}）" if rep.min_cash_note_zh else ""),
        f"- {_amount_line('max_distribution', rep.max_distribution)}",
        f"- {_O['st_risk_warning'].short}: {rep.st_verdict()[0]};"
        f" {_O['cash_needed_to_avoid_st'].short_zh} {_fmt(rep.cash_needed_to_avoid_st, '元')} 元",
        "",
        "| " + " | ".join(_P[k].heading for k in ("clause", "rule", "status", "actual", "bound", "margin", "shortfall"))
        + " | 说明 |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rep.rules:
        cells = [r.clause, f"{_ROLE_TAG.get(r.role, '')}{r.title_zh}", st[r.status], _fmt(r.actual, r.unit),
                 _bound(r), _fmt(r.margin, r.unit) if r.margin is not None else "",
                 _fmt(r.shortfall, r.unit) if r.shortfall else "", r.explanation_zh]
        lines.append("| " + " | ".join(md_text(c) for c in cells) + " |")  # inert text: no markup, no new row
    return "\n".join(lines)


def render_by_year(reports: Sequence[Report], evaluation_year: int, forecast_years=frozenset()) -> str:
    """The plan's timeline, one line per year: the result, the minimum cash dividend, the cap and the
    counts, as the workbook's year columns show them (the evaluation year marked ◀, forecast years 预测)."""
    if not reports:
        return ""
    first = reports[0]
    lo, hi = first.plan_years or (first.evaluation_year, reports[-1].evaluation_year)
    heads = ("年度 FY", "结论 Result", _O["min_cash_dividend"].heading, _O["max_distribution"].heading, "不通过/警告/缺少")
    rows = []
    for rep in reports:
        mark = " ◀" if rep.evaluation_year == evaluation_year else ("" if lo <= rep.evaluation_year <= hi else " *")
        mark += " 预测" if rep.evaluation_year in forecast_years else ""
        verdict = f"{cat.STATUS_ZH[rep.overall_status]} {rep.overall_status}" + ("（未复核草稿 draft）" if not rep.plan_reviewed else "")
        rows.append((f"{rep.evaluation_year}{mark}", verdict,
                     _fmt(rep.min_cash_dividend, "元"), _fmt(rep.max_distribution, "元"),
                     f"{rep.fail_count} / {rep.warn_count} / {rep.missing_input_count}"))
    widths = [max(_width(r[i]) for r in rows + [heads]) for i in range(len(heads))]
    lines = [f"逐年结果 By year (plan {lo}–{hi}; ◀ the evaluation year; * outside the plan period; "
             + ("预测 forecast figures; " if forecast_years else "") + "other years without the evaluation year's attestations)"]
    for r in [heads] + rows:
        lines.append("  ".join(_pad(c, w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)
