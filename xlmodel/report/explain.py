"""What a rule's result says in words (Chinese, English): its explanation, the inputs it misses, the context it
names, the note on the minimum cash dividend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules import catalogue as cat
from ..rules.regulatory import SALE_TRIGGERS, plausible_signals
from ..fields import FIELDS, SLOTS
from ..rules.expr import py
from . import RuleResult, _NOT_OP_EN, _NOT_OP_ZH, _OP_ZH, _fmt

if TYPE_CHECKING:
    from ..rules.env import ArrayEnv


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
        zh = "；".join(SALE_TRIGGERS[k][0] for k in held)
        en = "; ".join(SALE_TRIGGERS[k][1] for k in held)
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
        return {"triggers": [k for k in SALE_TRIGGERS if val(f"{rd.id}.{k}") is True]}
    if rd.spec.kind == "conditions_held":
        return {"not_met": [(c.spec.title_zh, c.spec.clause) for c in model.conditions
                            if val(f"{c.id}.status") == "not_met"]}
    if rd.spec.kind == "any_of":
        alts = [model.rule(rid) for rid in rd.spec.rules]
        return {"alternatives": [(a.spec.title_zh, a.spec.title_en, val(f"{a.id}.status")) for a in alts]}
    if rd.spec.kind == "plausible_amounts":
        return {"signals": [(zh, en) for k, zh, en in plausible_signals(rd.spec) if val(f"{rd.id}.{k}") is True]}
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
