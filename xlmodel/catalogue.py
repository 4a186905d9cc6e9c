"""The rule catalogue: policy (data) -> a model of named calculations.

Each rule kind is a function from its spec to a :class:`Check` of expression
trees (``actual``, ``required``, ``passes``, the cash it requires this year).
:func:`compile_policy` wraps every check in the same status logic and the same
aggregates, and returns a :class:`Model`: an ordered set of named calculations
that the evaluator computes (numpy) and the workbook writes as formulas. Both
walk the same trees, so a rule is written once.

Calculation names: per-year series (``cash``, ``distribution``, ``retained``)
and evaluation-year scalars (``<rule>.status``, ``cond_met``, ``min_cash_dividend``…).
Parameter names: ``<owner>.<key>`` (``min_rolling.ratio``), with their clause.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from . import policy as pol
from .expr import (Blank, C, Cmp, CountIf, EDate, If, In, InList, Lbl, Max, Min, Missing, Node, Not,
                   Num, Or, And, P, Round2, Sum)
from .fields import FIELDS

STATUSES = ("pass", "fail", "warn", "not_applicable", "missing_input")
STATUS_ZH = {"pass": "通过", "fail": "不通过", "warn": "警告", "not_applicable": "不适用", "missing_input": "缺少输入"}
STATUS_EN = {"pass": "pass", "fail": "fail", "warn": "warning", "not_applicable": "not applicable", "missing_input": "missing input"}
SERIES = ("cash", "distribution", "retained")
SERIES_ZH = {
    "cash": ("现金分红（含计入的回购）", "Cash dividend incl. counted buybacks"),
    "distribution": ("利润分配总额（现金+股票股利）", "Profit distribution (cash + stock)"),
    "retained": ("累计可分配利润（计算口径）", "Cumulative distributable profit (basis)"),
}
STAGE_KEYS = ("mature", "growth", "indeterminate")


@dataclass(frozen=True)
class Param:
    name: str
    value: object
    clause: str
    zh: str
    en: str
    unit: str  # "%", "元", "元/股", "月", "年", "选项"


@dataclass
class Check:
    actual: Node
    passes: Node
    op: str  # how actual relates to required, for display: >= > <= < true in not_major
    required: Node | None = None
    shortfall: Callable[[Node, Node], Node] | None = None  # (actual, required) -> amount short/over
    min_cash: Node | None = None  # cash this year needs for this rule (minimum rules)
    applies: Node | None = None  # kind-specific applicability on top of ``when``
    relevant: Node | None = None  # inputs are needed only where this holds (else the rule passes without them)
    unit: str = "元"


@dataclass
class RuleDef:
    spec: object
    role: str  # "condition" | "requirement"
    check: Check
    check_fields: list[tuple[str, int]]
    app_fields: list[tuple[str, int]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def is_minimum(self) -> bool:
        return self.check.min_cash is not None


@dataclass
class Model:
    policy: pol.Policy
    params: dict[str, Param] = field(default_factory=dict)
    series: dict[str, Node] = field(default_factory=dict)
    scalars: dict[str, Node] = field(default_factory=dict)
    rules: list[RuleDef] = field(default_factory=list)
    history: int = 0  # earliest year offset read (e.g. -2)

    @property
    def conditions(self) -> list[RuleDef]:
        return [r for r in self.rules if r.role == "condition"]

    @property
    def requirements(self) -> list[RuleDef]:
        return [r for r in self.rules if r.role == "requirement"]

    def attestation_ids(self) -> list[str]:
        return [r.id for r in self.rules if r.spec.kind == "attestation" and r.spec.field is None]


ATTEST = "attest."  # pseudo-field prefix for a rule's own attestation input


class _Builder:
    def __init__(self, policy: pol.Policy):
        self.m = Model(policy)
        self.p = policy

    # -- parameters and measures ------------------------------------------
    def param(self, owner: str, key: str, value, clause: str, zh: str, en: str, unit: str) -> P:
        name = f"{owner}.{key}"
        self.m.params[name] = Param(name, value, clause, zh, en, unit)
        return P(name)

    def measure(self, m: str, offset: int = 0) -> Node:
        return C(m, offset) if m in SERIES else In(m, offset)

    def expand(self, node: Node, shift: int = 0) -> list[tuple[str, int]]:
        """Input cells a node reads, looking through series and derived scalars."""
        out: dict[tuple[str, int], None] = {}
        for f, o in node.fields():
            out[(f, o + shift)] = None
        for name, off in node.calcs():
            if name in self.m.series:
                for cell in self.expand(self.m.series[name], shift + (off or 0)):
                    out[cell] = None
            elif name in self.transparent:
                for cell in self.expand(self.m.scalars[name], shift):
                    out[cell] = None
        return [c for c in out if not FIELDS.get(c[0]) or not FIELDS[c[0]].default_zero]

    # -- series and derived scalars ----------------------------------------
    def build_series(self):
        s = self.p.settings
        cash: Node = In("cash_dividend")
        if s.cash_includes_buybacks:
            cash = cash + In("buyback_amount")
        dist: Node = In("cash_dividend")
        if s.distribution_includes_stock:
            dist = dist + In("stock_dividend")
        retained = {
            "lower": Min(In("retained_earnings_consolidated"), In("retained_earnings_parent")),
            "consolidated": In("retained_earnings_consolidated") + Num(0),
            "parent": In("retained_earnings_parent") + Num(0),
        }[s.retained_earnings_basis]
        self.m.series.update(cash=cash, distribution=dist, retained=retained)
        self.transparent = {"major_outlay", "major_outlay_threshold"}

    def build_major_outlay(self):
        mo = self.p.major_outlay
        if mo is None:
            return
        if mo.definition == "board":
            self.m.scalars["major_outlay"] = In("major_outlay_planned")
            return
        basis_zh = "最近一期经审计总资产" if mo.basis == "total_assets" else "最近一期经审计净资产"
        ratio = self.param("major_outlay", "ratio", mo.ratio, mo.clause, f"重大支出标准：占{basis_zh}比例",
                           f"Major outlay: share of latest audited {mo.basis.replace('_', ' ')}", "%")
        thr = Round2(ratio * In(mo.basis))
        self.m.scalars["major_outlay_threshold"] = thr
        outlay = Round2(In("planned_major_outlay"))
        test: Node = outlay >= C("major_outlay_threshold")
        if mo.floor is not None:
            floor = self.param("major_outlay", "floor", mo.floor, mo.clause, "重大支出标准：金额下限（超过）",
                               "Major outlay: amount floor (exceeds)", "元")
            test = (And if mo.combine == "and" else Or)(test, outlay > floor)
        self.m.scalars["major_outlay"] = test

    # -- applicability -----------------------------------------------------
    def when(self, spec) -> list[tuple[Node, Node | None, list]]:
        """The rule's ``when`` list as parts (test, unknown-test or None, input cells read).

        A rule applies when every part holds. Three-valued: a part that is known
        to be false makes the rule not applicable even where another part lacks
        its inputs; only then does a missing input make the rule missing_input.
        """
        profitable = Round2(In("net_profit_attributable")) > Num(0)
        parts: list[Node] = []
        gated: list[tuple[Node, Node | None, list]] = []
        for w in spec.when:
            if w == "conditions_met":
                gated.append((C("cond_met"), C("cond_unknown"), []))
            elif w == "conditions_not_met":
                gated.append((And(Not(C("cond_met")), Not(C("cond_unknown"))), C("cond_unknown"), []))
            elif w == "distribution_made":
                parts.append(Round2(C("distribution", 0)) > Num(0))
            elif w == "profitable":
                parts.append(profitable)
            elif w == "profitable_no_cash":
                parts += [profitable, Round2(In("cash_dividend")).eq(Num(0))]
            elif w == "stock_or_conversion":
                parts.append(Round2(In("stock_dividend") + In("capital_reserve_conversion")) > Num(0))
        for node in parts:
            cells = self.expand(node)
            gated.append((node, Missing(tuple(cells)) if cells else None, cells))
        return gated

    @staticmethod
    def _all(nodes: list[Node]) -> Node | None:
        return None if not nodes else nodes[0] if len(nodes) == 1 else And(*nodes)

    @staticmethod
    def _any(nodes: list[Node]) -> Node | None:
        return None if not nodes else nodes[0] if len(nodes) == 1 else Or(*nodes)

    # -- the rules ---------------------------------------------------------
    def compile_rule(self, spec) -> RuleDef:
        check = KINDS[spec.kind](self, spec)
        role = "condition" if spec.kind in pol.CONDITION_KINDS else "requirement"
        nodes = [check.actual, check.passes] + ([check.required] if check.required is not None else [])
        cells: dict[tuple[str, int], None] = {}
        for n in nodes:
            for c in self.expand(n):
                cells[c] = None
        rd = RuleDef(spec, role, check, list(cells))
        self.emit_rule(rd)
        return rd

    def emit_rule(self, rd: RuleDef):
        spec, ck, sc = rd.spec, rd.check, self.m.scalars
        rid = spec.id
        parts = self.when(spec)
        if ck.applies is not None:
            cells = self.expand(ck.applies)
            parts.append((ck.applies, Missing(tuple(cells)) if cells else None, cells))
        rd.app_fields = [c for _, _, cells in parts for c in cells]
        fail = Lbl("warn" if spec.severity == "warn" else "fail")
        status: Node = If(ck.passes, Lbl("pass"), fail)
        if rd.check_fields:
            status = If(self._missing(rd.check_fields, ck.relevant), Lbl("missing_input"), status)
        unknown = self._any([u for _, u, _ in parts if u is not None])
        if unknown is not None:
            status = If(unknown, Lbl("missing_input"), status)
        if parts:
            sc[f"{rid}.applies"] = self._all([n for n, _, _ in parts])
            known_false = [Not(n) if u is None else And(Not(u), Not(n)) for n, u, _ in parts]
            status = If(self._any(known_false), Lbl("not_applicable"), status)
        sc[f"{rid}.actual"] = self._blank_if_missing(ck.actual, ck.relevant)
        if ck.required is not None:
            sc[f"{rid}.required"] = self._blank_if_missing(ck.required, ck.relevant)
        sc[f"{rid}.status"] = status
        if ck.shortfall is not None:
            st = C(f"{rid}.status")
            sc[f"{rid}.shortfall"] = If(Or(st.eq(Lbl("fail")), st.eq(Lbl("warn"))),
                                        ck.shortfall(C(f"{rid}.actual"), C(f"{rid}.required")),
                                        If(Or(st.eq(Lbl("pass")), st.eq(Lbl("not_applicable"))), Num(0), Blank()))
        if ck.min_cash is not None:
            when_only = self._all([n for n, _, _ in self.when(spec)])
            contrib = ck.min_cash if when_only is None else If(when_only, ck.min_cash, Num(0))
            sc[f"{rid}.min_cash"] = If(C(f"{rid}.status").eq(Lbl("missing_input")), Blank(), contrib)

    @staticmethod
    def _missing(cells, relevant: Node | None = None) -> Node:
        m: Node = Missing(tuple(cells))
        return m if relevant is None else And(relevant, m)

    def _blank_if_missing(self, node: Node, relevant: Node | None = None) -> Node:
        cells = self.expand(node)
        return If(self._missing(cells, relevant), Blank(), node) if cells else node

    # -- aggregates ----------------------------------------------------------
    def build_aggregates(self):
        sc, m = self.m.scalars, self.m
        conds = [C(f"{r.id}.status") for r in m.conditions]
        if conds:
            sc["cond_fail_count"] = CountIf(Lbl("fail"), *conds)
            sc["cond_missing_count"] = CountIf(Lbl("missing_input"), *conds)
            sc["cond_met"] = And(C("cond_fail_count").eq(Num(0)), C("cond_missing_count").eq(Num(0)))
            sc["cond_unknown"] = And(C("cond_fail_count").eq(Num(0)), C("cond_missing_count") > Num(0))
        else:  # a plan without conditions: its minimums always apply
            sc["cond_met"] = Num(1) > Num(0)
            sc["cond_unknown"] = Num(0) > Num(1)

    def build_outputs(self):
        sc, m = self.m.scalars, self.m
        reqs = [C(f"{r.id}.status") for r in m.requirements]
        for code in ("fail", "warn", "missing_input"):
            sc[f"{code}_count"] = CountIf(Lbl(code), *reqs)
        sc["overall_status"] = If(C("fail_count") > Num(0), Lbl("fail"),
                                  If(C("missing_input_count") > Num(0), Lbl("missing_input"),
                                     If(C("warn_count") > Num(0), Lbl("warn"), Lbl("pass"))))
        sc["cash_conditions_met"] = If(C("cond_unknown"), Blank(), C("cond_met"))
        mins = [r for r in m.rules if r.is_minimum]
        contribs = [C(f"{r.id}.min_cash") for r in mins]
        best = Max(Num(0), *contribs)
        if mins:
            best = If(CountIf(Lbl("missing_input"), *[C(f"{r.id}.status") for r in mins]) > Num(0), Blank(), best)
        sc["min_cash_dividend"] = best
        sc["max_distribution"] = self._blank_if_missing(Max(Num(0), Round2(C("retained", 0))))
        # model integrity flag: every rule could be evaluated
        sc["check_flag"] = If(Or(C("missing_input_count") > Num(0), C("cond_unknown")), Lbl("check"), Lbl("ok"))


def _amount_short(a: Node, r: Node) -> Node:
    return Max(Num(0), Round2(r - a))


def _amount_over(a: Node, r: Node) -> Node:
    return Max(Num(0), Round2(a - r))


# ---- kinds -----------------------------------------------------------------
# Each takes the builder and the rule spec and returns a Check. Thresholds are
# registered as parameters with the rule's clause; none is a literal.

def k_positive(b: _Builder, s: pol.Positive) -> Check:
    a = Round2(b.measure(s.measure))
    return Check(actual=a, required=Num(0), passes=a > Num(0), op=">")


def k_audit(b: _Builder, s: pol.AuditOpinion) -> Check:
    acc = b.param(s.id, "accepted", tuple(s.accepted), s.clause, "认可的审计意见", "Accepted audit opinions", "选项")
    return Check(actual=In("audit_opinion"), passes=InList(In("audit_opinion"), acc), op="in", unit="选项")


def k_judgment(b: _Builder, s: pol.Judgment) -> Check:
    return Check(actual=In(s.field), passes=In(s.field), op="true", unit="是/否")


def k_no_major_outlay(b: _Builder, s: pol.NoMajorOutlay) -> Check:
    mo = b.p.major_outlay
    if mo.definition == "board":
        return Check(actual=In("major_outlay_planned"), passes=Not(C("major_outlay")), op="not_major", unit="是/否")
    return Check(actual=Round2(In("planned_major_outlay")), required=C("major_outlay_threshold"),
                 passes=Not(C("major_outlay")), op="not_major")


def k_compare(b: _Builder, s: pol.Compare) -> Check:
    a = Round2(b.measure(s.measure))
    if s.amount is not None:
        req: Node = b.param(s.id, "amount", s.amount, s.clause, "比较金额", "Amount compared with", "元")
    else:
        req = Round2(b.param(s.id, "ratio", s.ratio, s.clause, "比例", "Ratio", "%") * b.measure(s.of))
    sf = {">=": _amount_short, ">": _amount_short, "<=": _amount_over, "<": _amount_over}[s.op]
    return Check(actual=a, required=req, passes=Cmp(s.op, a, C(f"{s.id}.required")), op=s.op, shortfall=sf)


def _component(b: _Builder, s, i: int, c) -> Node:
    key = f"c{i + 1}"
    if c.type == "pct":
        r = b.param(s.id, f"{key}_ratio", c.ratio, s.clause, f"最低比例（占{FIELDS[c.basis].zh if c.basis in FIELDS else c.basis}）",
                    f"Minimum share of {c.basis}", "%")
        return r * b.measure(c.basis)
    if c.type == "fixed":
        return b.param(s.id, f"{key}_amount", c.amount, s.clause, "最低金额", "Fixed minimum", "元")
    ps = b.param(s.id, f"{key}_per_share", c.amount, s.clause, "每股最低现金分红", "Minimum per share", "元/股")
    return ps * In("share_count")


def k_min_cash(b: _Builder, s: pol.MinCash) -> Check:
    comps = [_component(b, s, i, c) for i, c in enumerate(s.components)]
    combined = comps[0] if len(comps) == 1 else (Max if s.combine == "higher_of" else Min)(*comps)
    req = Round2(Max(Num(0), combined))
    act = Round2(C("cash", 0))
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=",
                 shortfall=_amount_short, min_cash=C(f"{s.id}.required"))


def k_min_cash_rolling(b: _Builder, s: pol.MinCashRolling) -> Check:
    w = s.window
    ratio = b.param(s.id, "ratio", s.ratio, s.clause, "最低比例（占年均可分配利润）", "Minimum share of average annual basis", "%")
    years = b.param(s.id, "window", w, s.clause, "计算年数", "Window (years)", "年")
    offs = list(range(-(w - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    req = Round2(Max(Num(0), ratio * Sum(*[b.measure(s.basis, o) for o in offs]) / years))
    act = Round2(Sum(*[C("cash", o) for o in offs]))
    prior = Round2(Sum(*[C("cash", o) for o in offs[:-1]]))
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=",
                 shortfall=_amount_short, min_cash=Max(Num(0), Round2(C(f"{s.id}.required") - prior)))


def k_cash_share(b: _Builder, s: pol.CashShare) -> Check:
    if s.share is not None:
        share: Node = b.param(s.id, "share", s.share, s.clause, "现金分红占本次利润分配最低比例", "Minimum cash share of the distribution", "%")
    else:
        t = {k: b.param(s.id, k, v, s.clause, f"最低现金占比：{_STAGE_ZH[k]}", f"Minimum cash share: {k.replace('_', ' ')}", "%")
             for k, v in s.table.items()}
        major = C("major_outlay")
        stage = In("development_stage")
        share = If(stage.eq(Lbl("mature")), If(major, t["mature_major"], t["mature_no_major"]),
                   If(stage.eq(Lbl("growth")), If(major, t["growth_major"], t["growth_no_major"]),
                      If(major, t["indeterminate_major"], t["indeterminate_no_major"])))
        b.m.scalars[f"{s.id}.share"] = share
        b.transparent.add(f"{s.id}.share")
        share = C(f"{s.id}.share")
    stock = Round2(In("stock_dividend"))
    req = Round2(stock * share / (Num(1) - share))
    act = Round2(C("cash", 0))
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=",
                 shortfall=_amount_short, min_cash=C(f"{s.id}.required"),
                 applies=Round2(C("distribution", 0)) > Num(0),
                 # with no stock dividend the share is 100%: stage and outlay inputs are not needed
                 relevant=stock > Num(0) if s.table is not None else None)


_STAGE_ZH = {
    "mature_no_major": "成熟期、无重大资金支出", "mature_major": "成熟期、有重大资金支出",
    "growth_no_major": "成长期、无重大资金支出", "growth_major": "成长期、有重大资金支出",
    "indeterminate_no_major": "不易区分、无重大资金支出", "indeterminate_major": "不易区分、有重大资金支出",
}


def k_cash_paid(b: _Builder, s: pol.CashPaid) -> Check:
    act = Round2(C("cash", 0))
    return Check(actual=act, required=Num(0), passes=act > Num(0), op=">")


def k_cap(b: _Builder, s: pol.DistributionCap) -> Check:
    act = Round2(C("distribution", 0))
    req = Max(Num(0), Round2(C("retained", 0)))
    return Check(actual=act, required=req, passes=act <= C(f"{s.id}.required"), op="<=", shortfall=_amount_over)


def k_vote(b: _Builder, s: pol.Vote) -> Check:
    thr = b.param(s.id, "ratio", s.ratio, s.clause, "赞成票比例下限", "Minimum share of votes present", "%")
    return Check(actual=In("vote_for_ratio"), required=thr, passes=Cmp(s.op, In("vote_for_ratio"), thr),
                 op=s.op, unit="%")


def k_within_months(b: _Builder, s: pol.WithinMonths) -> Check:
    months = b.param(s.id, "months", s.months, s.clause, "派发期限（股东大会后月数）", "Payout deadline (months after AGM)", "月")
    deadline = EDate(In("agm_date"), months)
    return Check(actual=In("payout_date"), required=deadline, passes=In("payout_date") <= C(f"{s.id}.required"),
                 op="<=", unit="日期", applies=Round2(C("distribution", 0)) > Num(0))


def k_attestation(b: _Builder, s: pol.Attestation) -> Check:
    fid = s.field or ATTEST + s.id
    return Check(actual=In(fid), passes=In(fid), op="true", unit="是/否")


KINDS: dict[str, Callable[[_Builder, object], Check]] = {
    "positive": k_positive, "audit_opinion": k_audit, "judgment": k_judgment,
    "no_major_outlay": k_no_major_outlay, "compare": k_compare, "min_cash": k_min_cash,
    "min_cash_rolling": k_min_cash_rolling, "cash_share": k_cash_share, "cash_paid": k_cash_paid,
    "distribution_cap": k_cap, "vote": k_vote, "within_months": k_within_months,
    "attestation": k_attestation,
}


def compile_policy(policy: pol.Policy) -> Model:
    b = _Builder(policy)
    b.build_series()
    b.build_major_outlay()
    # conditions first: requirements read their aggregate
    for spec in policy.conditions:
        b.m.rules.append(b.compile_rule(spec))
    b.build_aggregates()
    for spec in policy.requirements:
        b.m.rules.append(b.compile_rule(spec))
    b.build_outputs()
    return b.m
