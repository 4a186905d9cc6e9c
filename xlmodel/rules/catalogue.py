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
from functools import cached_property
from typing import Callable

from pydantic import BaseModel

from .. import outputs as _outputs
from ..plans import schema as pol
from .expr import (FY, And, Blank, C, Cmp, CountIf, EDate, EstimateRenderer, If, In, InList, Lbl, Max, Min, Missing,
                   Node, Not, Num, Or, P, PRECISION, Round2, Sum, Window, YearOf, guarded_part, hoistable, substitute)
from ..fields import FIELDS, SLOTS

#: obligations (requirements, regulatory duties) pass or fail; conditions are met or not met (DOMAIN.md §5)
STATUSES = ("pass", "fail", "warn", "not_applicable", "missing_input", "met", "not_met")
CONDITION_STATUSES = ("met", "not_met", "not_applicable", "missing_input")
STATUS_ZH = {"pass": "通过", "fail": "不通过", "warn": "警告", "not_applicable": "不适用", "missing_input": "缺少输入",
             "met": "满足", "not_met": "不满足"}
STATUS_EN = {"pass": "pass", "fail": "fail", "warn": "warning", "not_applicable": "not applicable", "missing_input": "missing input",
             "met": "met", "not_met": "not met"}
#: the kind of bound a rule's actual is compared with (shown instead of a bare "required")
BOUND_ZH = {"minimum": "下限", "limit": "上限", "threshold": "门槛"}
BOUND_EN = {"minimum": "minimum", "limit": "limit", "threshold": "threshold"}
#: why a rule does not apply: the first part of its applicability known to be false (one reason, every face)
REASONS = {
    "na_conditions_not_met": ("现金分红条件未满足", "the cash dividend conditions are not met"),
    "na_conditions_met": ("现金分红条件已满足（本规则仅在条件不满足时适用）", "the conditions are met (the rule applies only when they are not)"),
    "na_no_distribution": ("本年度未进行利润分配", "no profit distribution this year"),
    "na_no_cash": ("本年度未进行现金分红", "no cash dividend this year"),
    "na_no_interim": ("本年度未进行中期现金分红", "no interim cash dividend this year"),
    "na_no_interim_distribution": ("本年度未进行中期利润分配", "no interim distribution this year"),
    "na_no_final_distribution": ("本年度除中期外未进行利润分配", "no distribution this year besides the interim"),
    "na_not_profitable": ("本年度归母净利润不为正", "net profit attributable is not positive"),
    "na_cash_paid": ("本年度已进行现金分红", "a cash dividend is paid this year"),
    "na_distribution_made": ("本年度已提出利润分配", "a distribution is proposed this year"),
    "na_no_stock": ("未发放股票股利或资本公积转增", "no stock dividend or capital reserve conversion"),
    "na_before_first_year": ("会计年度早于规则首次适用年度", "the fiscal year is before the rule's first year"),
    "na_retained_not_positive": ("合并或母公司期末未分配利润不为正", "consolidated or parent retained earnings not positive"),
    "na_retained_cons_not_positive": ("合并报表期末未分配利润不为正", "consolidated retained earnings not positive"),
    "na_retained_parent_not_positive": ("母公司报表期末未分配利润不为正", "parent retained earnings not positive"),
    "na_payout_not_low": ("现金分红不低于归母净利润的30%", "the payout is not below 30% of net profit"),
    "na_board_not_covered": ("上市板块不在规则范围（如北交所）", "the board is not covered (e.g. BSE)"),
    "na_no_full_year": ("上市未满一个完整会计年度", "no full fiscal year since listing"),
    "na_rd_exempt": ("符合研发投入豁免（创业板、科创板）", "R&D exemption (ChiNext, STAR)"),
    "na_no_prescribed_share": ("规划对该发展阶段与资金支出情形未规定最低现金占比", "the plan prescribes no minimum share for this stage and outlay"),
    "na_before_plan_period": ("会计年度早于规划期间", "the fiscal year is before the plan period"),
    "na_after_plan_period": ("会计年度晚于规划期间", "the fiscal year is after the plan period"),
    "na_plan_period_in_progress": ("规划期间尚未结束（于期间最后一年检查，此处为累计进度）",
                                   "the plan period has not ended (checked in its last year; shown here as progress)"),
    "na_no_alternative": ("各备选规则均不适用", "none of the alternatives applies"),
    "na_agm_not_held": ("股东大会尚未召开（表决与派发期限于股东大会后检查）",
                        "the AGM has not been held yet (votes and the payout deadline are checked after it)"),
}
#: every label code a calculation gives, as the workbook shows it in Chinese (its lists sheet) and the
#: worksheet functions return it: the statuses, the check flag's, the guarded results' and the reasons
LABEL_TEXT = {**STATUS_ZH, "ok": "正常", "check": "请检查", "undetermined": "无法判断",
              **{k: zh for k, (zh, _en) in REASONS.items()}}
SERIES = ("cash", "distribution", "retained", "cash_st", "cash_reg", "net_profit_attributable_lower",
          "distributable_profit_lower")
#: a basis that is the lower of two figures (以中国会计准则和国际财务报告准则……较少者为准): the series and the two
#: inputs it is the MIN of, each a series only in a plan that names it
LOWER_OF = {
    "net_profit_attributable_lower": ("net_profit_attributable", "net_profit_attributable_ifrs"),
    "distributable_profit_lower": ("distributable_profit", "distributable_profit_ifrs"),
}
SERIES_ZH = {
    "net_profit_attributable_lower": ("归母净利润（中国准则与国际准则孰低）", "Net profit attributable, lower of PRC GAAP and IFRS"),
    "distributable_profit_lower": ("当年可分配利润（扣除法定储备后，中国准则与国际准则孰低）",
                                   "Distributable profit after statutory reserves, lower of PRC GAAP and IFRS"),
    "cash": ("现金分红（含计入的回购）", "Cash dividend incl. counted buybacks"),
    "cash_st": ("现金分红（含回购注销，风险警示口径）", "Cash dividend incl. cancelled buybacks (ST test)"),
    "cash_reg": ("现金分红（含集中竞价、要约回购，监管口径）", "Cash dividend incl. bidding/tender buybacks (regulatory)"),
    "distribution": ("利润分配总额（现金+股票股利）", "Profit distribution (cash + stock)"),
    "retained": ("累计可分配利润（计算口径）", "Cumulative distributable profit (basis)"),
    # the units check's sizes (reg_amounts_plausible): a figure's absolute value, every year
    **{f"size_{f}": (f"{FIELDS[f].zh}（绝对值，单位核对）", f"{FIELDS[f].en} (absolute, units check)")
       for f in ("net_assets", "net_profit_attributable", "cash_dividend", "total_assets", "revenue", "distributable_profit",
                 "retained_earnings_consolidated", "retained_earnings_parent", "net_profit_parent")},
}
STAGE_KEYS = ("mature", "growth", "indeterminate")
_OUTLAY_BASIS_ZH = {"total_assets": "最近一期经审计总资产", "net_assets": "最近一期经审计净资产", "revenue": "最近一年经审计营业收入",
                    "net_profit_attributable": "最近一年经审计净利润"}
_OUTLAY_BASIS_EN = {"total_assets": "latest audited total assets", "net_assets": "latest audited net assets",
                    "revenue": "latest audited revenue", "net_profit_attributable": "latest audited net profit"}
#: what a major-outlay test measures (policy.OUTLAY_PAIRS), as its labels and explanations name it
_OUTLAY_MEASURE = {
    "planned_major_outlay": ("拟支出", "planned outlay"),
    "transaction_total_assets": ("交易涉及的资产总额", "the deal's total assets"),
    "transaction_target_revenue": ("交易标的营业收入", "the target's revenue"),
    "transaction_target_net_profit": ("交易标的净利润", "the target's net profit"),
    "transaction_amount": ("交易成交金额", "the deal amount"),
    "transaction_profit": ("交易产生的利润", "the deal's profit"),
}


def _pct(r: float) -> str:
    return f"{r * 100:.4f}".rstrip("0").rstrip(".") + "%"


def outlay_test_label(t: pol.OutlayBranch) -> tuple[str, str]:
    """One test of a major outlay in words (zh, en): 交易标的营业收入达到最近一年经审计营业收入的50%且超过30,000,000元."""
    m_zh, m_en = _OUTLAY_MEASURE[t.measure]
    zh = f"{m_zh}{'达到' if t.op == '>=' else '超过'}{_OUTLAY_BASIS_ZH[t.basis]}的{_pct(t.ratio)}"
    en = f"{m_en} {'≥' if t.op == '>=' else '>'} {_pct(t.ratio)} of {_OUTLAY_BASIS_EN[t.basis]}"
    if t.floor is not None:
        amount = f"{t.floor:,.2f}".removesuffix(".00")
        zh += f"{'且' if t.combine == 'and' else '或'}{'超过' if t.floor_op == '>' else '达到'}{amount}元"
        en += f" {t.combine} {'>' if t.floor_op == '>' else '≥'} {amount} 元"
    if t.absolute:
        zh, en = zh + "（负值取绝对值）", en + " (negative figures as absolute values)"
    return zh, en


def transaction_tests(mo: pol.MajorOutlay | None) -> bool:
    """Whether a formula definition has a test measuring a planned transaction's own figure (then no one
    amount and threshold stand for the definition: the condition shows how many of its tests hold)."""
    return mo is not None and mo.definition == "formula" and any(t.measure != "planned_major_outlay" for t in mo.tests())


def _magnitude(node: Node) -> Node:
    """|x| as MAX(x, 0−x) (上述指标涉及的数据如为负值，取其绝对值计算), in every rendering the same."""
    return Max(node, Num(0) - node)


@dataclass(frozen=True)
class Param:
    name: str
    value: object
    clause: str
    zh: str
    en: str
    unit: str  # "%", "元", "元/股", "月", "年", "选项"
    editable: bool = True  # a plan threshold the board may change; False: fixed by law or by the model


@dataclass
class Check:
    actual: Node
    passes: Node
    op: str  # how actual relates to required, for display: >= > <= < true in not_major
    required: Node | None = None
    shortfall: Callable[[Node, Node], Node] | None = None  # (actual, required) -> amount short/over
    min_cash: Node | None = None  # cash this year needs for this rule (minimum rules)
    applies: Node | list | None = None  # kind-specific applicability on top of ``when`` (or parts: (test, unknown, cells, reason))
    missing: Node | None = None  # overrides "any input cell blank" where only some cells matter
    relevant: Node | None = None  # inputs are needed only where this holds (else the rule passes without them)
    unit: str = "元"
    bound: str | None = None  # "minimum" | "limit" | "threshold"; by default from ``op`` (see :func:`bound_kind`)
    applies_reason: str = "na_no_distribution"  # the reason shown when a single-node ``applies`` is false
    known: bool = False  # never missing input: a blank input is simply no signal (the units check)


def bound_kind(role: str, check: Check) -> str | None:
    """下限 / 上限 / 门槛: how the actual relates to the rule's bound, or None when it has none."""
    if check.required is None:
        return None
    if check.bound:
        return check.bound
    if role == "condition":
        return "threshold"
    return {">=": "minimum", ">": "minimum", "<=": "limit", "<": "limit"}.get(check.op, "threshold")


@dataclass
class RuleDef:
    spec: object
    role: str  # "condition" | "requirement"
    check: Check
    check_fields: list[tuple[str, int]]
    app_fields: list[tuple[str, int]] = field(default_factory=list)
    group: str | None = None  # the any_of rule this one is an alternative of (it counts only through it)
    #: three-valued logic may decide it with inputs missing (``<rule>.decided``): it names those it did without
    decides: bool = False

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def is_minimum(self) -> bool:
        return self.check.min_cash is not None

    @property
    def bound(self) -> str | None:
        return bound_kind(self.role, self.check)

    @property
    def has_margin(self) -> bool:
        """Actual and bound are amounts of money compared by an order, so the margin (headroom) is one too."""
        return self.bound is not None and self.check.unit == "元" and self.check.op in (">=", ">", "<=", "<")


class Derived:
    """What is worked out from one compiled model, kept with it and gone with it (``model.derived``):
    no cache elsewhere is keyed by ``id(model)``.

    ``once(key, make, *args)`` is ``make(*args)`` the first time ``key`` is asked and the same value
    after; ``get``/``put`` the same by hand (a hot path that makes no closure). ``table(name, limit)``
    is a :class:`Derived` of its own, for what is worked out per model and per something else (a
    program per parameter signature), emptied when it holds ``limit`` values (None: never)."""

    __slots__ = ("_values", "_tables", "limit")

    def __init__(self, limit: int | None = None):
        self._values: dict = {}
        self._tables: dict[str, Derived] = {}
        self.limit = limit

    def get(self, key, default=None):
        return self._values.get(key, default)

    def put(self, key, value):
        if self.limit is not None and len(self._values) >= self.limit and key not in self._values:
            self._values.clear()
        self._values[key] = value
        return value

    def once(self, key, make: Callable, *args):
        try:
            return self._values[key]
        except KeyError:
            return self.put(key, make(*args))

    def table(self, name: str, limit: int | None = 64) -> Derived:
        t = self._tables.get(name)
        if t is None:
            t = self._tables[name] = Derived(limit)
        return t

    def __len__(self) -> int:
        return len(self._values)


@dataclass
class Model:
    policy: pol.Policy
    baseline: pol.Baseline | None = None
    params: dict[str, Param] = field(default_factory=dict)
    series: dict[str, Node] = field(default_factory=dict)
    scalars: dict[str, Node] = field(default_factory=dict)
    rules: list[RuleDef] = field(default_factory=list)
    history: int = 0  # earliest year offset read (e.g. -2)

    @cached_property
    def derived(self) -> Derived:
        """What is worked out from this model (its programs, a report's reading of its rules, a
        workbook's labels), kept with it: see :class:`Derived`. Not a field: a model compares, prints
        and copies (``dataclasses.replace``) by its fields alone, and a new model derives afresh."""
        return Derived()

    @property
    def conditions(self) -> list[RuleDef]:
        return [r for r in self.rules if r.role == "condition"]

    @property
    def requirements(self) -> list[RuleDef]:
        return [r for r in self.rules if r.role == "requirement"]

    @property
    def regulatory(self) -> list[RuleDef]:
        return [r for r in self.rules if r.role == "regulatory"]

    @property
    def obligations(self) -> list[RuleDef]:
        """The rules whose statuses make the overall result: the plan's and the regulatory ones (an
        alternative of an ``any_of`` counts through its group only)."""
        return [r for r in self.rules if r.role != "condition" and r.group is None]

    def spec(self, rule_id: str):
        return self.rule(rule_id).spec

    def rule(self, rule_id: str) -> RuleDef:
        return next(r for r in self.rules if r.id == rule_id)

    def read_fields(self) -> frozenset[str]:
        """Every input field the model's trees read (the plan's rules and the regulatory baseline): the
        input sheet asks for these; the rest it shows greyed out (still read, so a workbook stays valid)."""
        cached = self.__dict__.get("_read_fields")
        if cached is None:
            seen: set[int] = set()
            out: set[str] = set()
            stack = [*self.series.values(), *self.scalars.values()]
            while stack:  # the trees share subtrees: each node once
                n = stack.pop()
                if id(n) in seen:
                    continue
                seen.add(id(n))
                if isinstance(n, In):
                    out.add(n.fid)
                stack.extend(n.children())
            cached = self.__dict__["_read_fields"] = frozenset(out)
        return cached

    def attestation_ids(self) -> list[str]:
        return [r.id for r in self.rules if r.spec.kind == "attestation" and r.spec.field is None]


#: the model's results: (scalar, the defined name of its cell on 汇总, label zh, label en), read from
#: the one table of outputs (:data:`xlmodel.outputs.HEADLINE`); kept as tuples for the workbook writer
OUTPUTS = tuple((o.id, o.name, o.label_zh, o.label_en) for o in _outputs.HEADLINE)


ATTEST = "attest."  # pseudo-field prefix for a rule's own attestation input


def _measures_named(policy: pol.Policy) -> set[str]:
    """Every measure or basis a policy's rules name (``measure``, ``basis``, ``of``, a component's basis)."""
    out: set[str] = set()

    def visit(o):
        if isinstance(o, BaseModel):
            for k in type(o).model_fields:
                v = getattr(o, k)
                if k in ("measure", "basis", "of") and isinstance(v, str):
                    out.add(v)
                visit(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                visit(v)
    visit(policy.rules)
    return out


class _Builder:
    def __init__(self, policy: pol.Policy):
        self.m = Model(policy)
        self.p = policy
        self.low_payout_parts: list[tuple[Node, str]] = []  # set by build_low_payout (the baseline)
        #: rule id -> the any_of rule it is an alternative of
        self.groups: dict[str, str] = {m: r.id for r in policy.rules if r.kind == "any_of" for m in r.rules}

    # -- parameters and measures ------------------------------------------
    def param(self, owner: str, key: str, value, clause: str, zh: str, en: str, unit: str, editable: bool = True) -> P:
        name = f"{owner}.{key}"
        self.m.params[name] = Param(name, value, clause, zh, en, unit, editable)
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
    def precision(self) -> P:
        """The digits every amount is rounded to (2: the fen), one named cell that every ROUND reads."""
        return self.param(*PRECISION.split("."), 2, "docs/domain.md §4", "金额舍入位数（到分）",
                          "Digits amounts are rounded to (the fen)", "位", editable=False)

    def fen(self) -> P:
        """The smallest step of money (0.01 元): the shortfall of a strict comparison met with equality."""
        if "precision.fen" not in self.m.params:
            self.param("precision", "fen", 0.01, "docs/domain.md §4", "金额最小单位（分）", "Smallest money step (one fen)", "元",
                       editable=False)
        return P("precision.fen")

    def build_series(self):
        s = self.p.settings
        cash: Node = In("cash_dividend")
        if s.cash_includes_buybacks:  # every bidding/tender buyback, or only those cancelled (settings)
            cash = cash + In(s.cash_buyback_basis)
        dist: Node = In("cash_dividend")
        if s.distribution_includes_stock:
            dist = dist + In("stock_dividend")
        retained = {
            "lower": Min(In("retained_earnings_consolidated"), In("retained_earnings_parent")),
            "consolidated": In("retained_earnings_consolidated") + Num(0),
            "parent": In("retained_earnings_parent") + Num(0),
        }[s.retained_earnings_basis]
        self.m.series.update(cash=cash, distribution=dist, retained=retained,
                             cash_st=In("cash_dividend") + In("buyback_cancelled"),
                             cash_reg=In("cash_dividend") + In("buyback_amount"))
        named = _measures_named(self.p)
        for lower, (a, b) in LOWER_OF.items():
            if lower in named:  # only where a rule reads it
                # MIN of the two references: a blank one would be left out, so both are required inputs (expand)
                self.m.series[lower] = Min(In(a), In(b))
        self.transparent = {"major_outlay", "major_outlay_threshold"}
        self.build_interims()

    def build_interims(self):
        """The year's interim distributions together (several a year: DOMAIN.md §6, docs/domain.md §6.11):
        each slot's amount to the fen, then their sum. The final is the year's totals less these; the
        ratios read the year's totals, which include them."""
        sc = self.m.scalars
        sc["interims.cash"] = Round2(Sum(*[Round2(In(k.cash)) for k in SLOTS]))
        sc["interims.stock"] = Round2(Sum(*[Round2(In(k.stock)) for k in SLOTS]))
        self.transparent |= {"interims.cash", "interims.stock"}

    def interim_amount(self, k, stock: bool = True) -> Node:
        """Slot ``k``'s distribution: its cash, and its stock dividend where the plan counts stock."""
        return Round2(Round2(In(k.cash)) + Round2(In(k.stock))) if stock else Round2(In(k.cash))

    def interims_amount(self, stock: bool = True) -> Node:
        """The year's interim distributions together (cash, and stock where counted)."""
        return Round2(C("interims.cash") + C("interims.stock")) if stock else C("interims.cash")

    def per_slot(self, rid: str, slots: list[tuple], op: str) -> tuple[Node, Node, Node, Node, Node]:
        """One rule checked for every interim slot: slot k is (made, actual, bound), each on its own
        calculation rows (``<rule>.s<k>_actual`` …), with, optionally, a fourth item: where its inputs are
        needed (else always, once made). It holds where every slot made holds; it shows the
        slot with the least headroom (the first on a tie), so a fail names the interim that fails and
        its own bound. Returns (actual, required, passes, applies, missing): missing where a slot made
        lacks an input of its own (a slot not made needs none)."""
        sc = self.m.scalars
        made, margin, missing = [], [], []
        for k, (m, act, req, *rel) in enumerate(slots, 1):
            sc[f"{rid}.s{k}_made"], sc[f"{rid}.s{k}_actual"], sc[f"{rid}.s{k}_required"] = m, act, req
            self.transparent |= {f"{rid}.s{k}_made", f"{rid}.s{k}_actual", f"{rid}.s{k}_required"}
            a, r = C(f"{rid}.s{k}_actual"), C(f"{rid}.s{k}_required")
            sc[f"{rid}.s{k}_test"] = Or(Not(C(f"{rid}.s{k}_made")), Cmp(op, a, r))
            self.transparent.add(f"{rid}.s{k}_test")
            made.append(C(f"{rid}.s{k}_made"))
            margin.append(Round2(r - a) if op in ("<=", "<") else Round2(a - r))
            cells = [c for c in dict.fromkeys(self.expand(act) + self.expand(req))]
            if cells:
                missing.append(And(C(f"{rid}.s{k}_made"), *rel, Missing(tuple(cells))))
        # the slot shown: made, and no later slot made with less headroom
        picks = []
        for k in range(len(slots)):
            later = [Or(Not(made[j]), margin[k] <= margin[j]) for j in range(k + 1, len(slots))]
            picks.append(self._all([made[k]] + later))
        act, req = C(f"{rid}.s{len(slots)}_actual"), C(f"{rid}.s{len(slots)}_required")
        for k in reversed(range(len(slots) - 1)):
            sc[f"{rid}.s{k + 1}_shown"] = picks[k]
            self.transparent.add(f"{rid}.s{k + 1}_shown")
            act = If(C(f"{rid}.s{k + 1}_shown"), C(f"{rid}.s{k + 1}_actual"), act)
            req = If(C(f"{rid}.s{k + 1}_shown"), C(f"{rid}.s{k + 1}_required"), req)
        # every slot's test on one row: the rule's test reads it (decided where every slot's inputs are there)
        sc[f"{rid}.slots_hold"] = And(*[C(f"{rid}.s{k}_test") for k in range(1, len(slots) + 1)])
        self.transparent.add(f"{rid}.slots_hold")
        any_made = self._any(made)
        # with no interim made there is no bound to show (blank, as a bound whose inputs are not there)
        return act, If(any_made, req, Blank()), C(f"{rid}.slots_hold"), any_made, self._any(missing)

    def build_major_outlay(self):
        mo = self.p.major_outlay
        if mo is None:
            return
        if mo.definition == "board":
            self.m.scalars["major_outlay"] = In("major_outlay_planned")
            return
        sc = self.m.scalars
        tests = mo.tests()
        one = mo.branches is None

        def branch(i: int, t: pol.OutlayBranch, threshold: str) -> Node:
            """One test: its measure op ratio × basis (on the row ``threshold``), joined with its amount floor."""
            key = "" if one else f"b{i}_"
            where = "" if one else f"（第{i}项标准）"
            strict = "（超过）" if t.op == ">" else ""
            outlay, basis = Round2(In(t.measure)), In(t.basis)
            what, what_en = "", ""
            if t.measure != "planned_major_outlay":  # a planned transaction's own figure against its company figure
                what, what_en = _OUTLAY_MEASURE[t.measure][0], _OUTLAY_MEASURE[t.measure][1] + " as a "
            if t.absolute:  # 上述指标涉及的数据如为负值，取其绝对值计算: the figure on a row of its own
                sc[f"major_outlay.b{i}_figure"] = Round2(_magnitude(In(t.measure)))
                self.transparent.add(f"major_outlay.b{i}_figure")
                outlay, basis = C(f"major_outlay.b{i}_figure"), _magnitude(In(t.basis))
                strict += "（负值取绝对值）"
            ratio = self.param("major_outlay", f"{key}ratio", t.ratio, mo.clause,
                               f"重大支出标准{where}：{what}占{_OUTLAY_BASIS_ZH[t.basis]}比例{strict}",
                               f"Major outlay{'' if one else f' (test {i})'}: {what_en}share of latest audited "
                               f"{t.basis.replace('_', ' ')}{' (exceeds)' if t.op == '>' else ''}"
                               f"{' (absolute values)' if t.absolute else ''}", "%")
            sc[threshold] = Round2(ratio * basis)
            test: Node = Cmp(t.op, outlay, C(threshold))
            if t.floor is not None:
                word = ("超过", "exceeds") if t.floor_op == ">" else ("达到或超过", "reaches")
                floor = self.param("major_outlay", f"{key}floor", t.floor, mo.clause,
                                   f"重大支出标准{where}：{what.removesuffix('金额')}金额下限（{word[0]}）",
                                   f"Major outlay{'' if one else f' (test {i})'}: {_OUTLAY_MEASURE[t.measure][1] + ' ' if what else ''}"
                                   f"amount floor ({word[1]})", "元")
                test = (And if t.combine == "and" else Or)(test, Cmp(t.floor_op, outlay, floor))
            return test

        if one:
            sc["major_outlay"] = branch(1, tests[0], "major_outlay_threshold")
            return
        # any branch makes the outlay major (the threshold shown is the lowest branch's ratio threshold),
        # or all of them must hold (the threshold shown is the highest)
        for i, t in enumerate(tests, 1):
            sc[f"major_outlay.b{i}"] = branch(i, t, f"major_outlay.b{i}_threshold")
            self.transparent |= {f"major_outlay.b{i}", f"major_outlay.b{i}_threshold"}
        every = mo.branches_combine == "all"
        if not transaction_tests(mo):  # one measure, one threshold shown; else each test has its own row
            sc["major_outlay_threshold"] = (Max if every else Min)(*[C(f"major_outlay.b{i}_threshold") for i in range(1, len(tests) + 1)])
        sc["major_outlay"] = (And if every else Or)(*[C(f"major_outlay.b{i}") for i in range(1, len(tests) + 1)])

    # -- applicability -----------------------------------------------------
    def part(self, node: Node, reason: str) -> tuple[Node, Node | None, list, str]:
        """One part of a rule's applicability: (test, unknown-test or None, input cells read, reason if false)."""
        cells = self.expand(node)
        return node, (Missing(tuple(cells)) if cells else None), cells, reason

    def when(self, spec) -> list[tuple[Node, Node | None, list, str]]:
        """The rule's ``when`` list as parts (see :meth:`part`).

        A rule applies when every part holds. Three-valued: a part that is known
        to be false makes the rule not applicable even where another part lacks
        its inputs; only then does a missing input make the rule missing_input.
        The first part known to be false names the one reason it does not apply.
        """
        profitable = (Round2(In("net_profit_attributable")) > Num(0), "na_not_profitable")
        parts: list[tuple[Node, str]] = []
        gated: list[tuple[Node, Node | None, list, str]] = []
        for w in spec.when:
            if w == "conditions_met":
                gated.append((C("cond_met"), C("cond_unknown"), [], "na_conditions_not_met"))
            elif w == "conditions_not_met":
                gated.append((And(Not(C("cond_met")), Not(C("cond_unknown"))), C("cond_unknown"), [], "na_conditions_met"))
            elif w == "distribution_made":
                parts.append((Round2(C("distribution", 0)) > Num(0), "na_no_distribution"))
            elif w == "cash_paid":
                parts.append((Round2(In("cash_dividend")) > Num(0), "na_no_cash"))
            elif w == "interim_paid":
                parts.append((C("interims.cash") > Num(0), "na_no_interim"))
            elif w == "profitable":
                parts.append(profitable)
            elif w == "profitable_no_cash":
                parts += [profitable, (Round2(In("cash_dividend")).eq(Num(0)), "na_cash_paid")]
            elif w == "profitable_no_distribution":
                parts += [profitable, (Round2(C("distribution", 0)).eq(Num(0)), "na_distribution_made")]
            elif w == "stock_or_conversion":
                parts.append((Round2(In("stock_dividend") + In("capital_reserve_conversion")) > Num(0), "na_no_stock"))
            elif w == "low_payout":
                parts += self.low_payout_parts
        return gated + [self.part(node, reason) for node, reason in parts]

    @staticmethod
    def _all(nodes: list[Node]) -> Node | None:
        return None if not nodes else nodes[0] if len(nodes) == 1 else And(*nodes)

    @staticmethod
    def _any(nodes: list[Node]) -> Node | None:
        return None if not nodes else nodes[0] if len(nodes) == 1 else Or(*nodes)

    # -- the rules ---------------------------------------------------------
    def compile_rule(self, spec, role: str | None = None) -> RuleDef:
        check = KINDS[spec.kind](self, spec)
        role = role or pol.role_of(spec)
        nodes = [check.actual, check.passes] + ([check.required] if check.required is not None else [])
        cells: dict[tuple[str, int], None] = {}
        for n in nodes:
            for c in self.expand(n):
                cells[c] = None
        rd = RuleDef(spec, role, check, list(cells), group=self.groups.get(spec.id) if role != "regulatory" else None)
        self.emit_rule(rd)
        return rd

    def emit_rule(self, rd: RuleDef):
        spec, ck, sc = rd.spec, rd.check, self.m.scalars
        rid = spec.id
        when_parts = self.when(spec)
        parts = list(when_parts)
        if isinstance(ck.applies, list):
            parts += list(ck.applies)
        elif ck.applies is not None:
            parts.append(self.part(ck.applies, ck.applies_reason))
        rd.app_fields = [c for _, _, cells, _ in parts for c in cells]
        if spec.binding_boards and rd.role != "condition":  # the board decides fail or warn: name it when missing
            rd.app_fields.append(("board", 0))
        # each step of the status on its own calculation row, so a modeller can audit it:
        # not applicable (a part known false) → missing input (applicability, then the test's inputs) → test
        sc[f"{rid}.test"] = ck.passes
        status: Node = If(C(f"{rid}.test"), *self.outcomes(rd))
        missing = None if ck.known else ck.missing if ck.missing is not None else \
            self._missing(rd.check_fields, ck.relevant) if rd.check_fields else None
        unknown = self._any([u for _, u, _, _ in parts if u is not None])
        decided = self._decided(rd, missing, unknown)
        if missing is not None:
            sc[f"{rid}.missing"] = missing if decided is None else And(missing, Not(C(f"{rid}.decided")))
            status = If(C(f"{rid}.missing"), Lbl("missing_input"), status)
        if unknown is not None:
            # a test that holds whatever the missing inputs: the rule passes whether it applies or not
            sc[f"{rid}.unknown"] = unknown if decided is None else \
                And(unknown, Not(And(C(f"{rid}.decided"), C(f"{rid}.test"))))
            status = If(C(f"{rid}.unknown"), Lbl("missing_input"), status)
        if parts:
            for k, (n, u, _, _) in enumerate(parts, 1):  # part k known to be false
                sc[f"{rid}.na{k}"] = Not(n) if u is None else And(Not(u), Not(n))
            sc[f"{rid}.na"] = self._any([C(f"{rid}.na{k}") for k in range(1, len(parts) + 1)])
            status = If(C(f"{rid}.na"), Lbl("not_applicable"), status)
            reason: Node = Blank()
            for k, (_, _, _, code) in reversed(list(enumerate(parts, 1))):
                reason = If(C(f"{rid}.na{k}"), Lbl(code), reason)
            sc[f"{rid}.reason"] = reason
        blank = (lambda n: n) if ck.known else (lambda n: If(C(f"{rid}.missing"), Blank(), n)) if decided is not None \
            and missing is not None else (lambda n: If(C(f"{rid}.missing"), Blank(), n)) if ck.missing is not None else \
            (lambda n: self._blank_if_missing(n, ck.relevant))
        sc[f"{rid}.actual"] = blank(ck.actual)
        if ck.required is not None:
            sc[f"{rid}.required"] = blank(ck.required)
        sc[f"{rid}.status"] = status
        ok, bad = ("met", "not_met") if rd.role == "condition" or rd.group else ("pass", "fail")
        st = C(f"{rid}.status")
        if rd.has_margin:  # headroom: how far the actual is inside its bound (negative when outside)
            a, r = C(f"{rid}.actual"), C(f"{rid}.required")
            gap = Round2(a - r) if ck.op in (">=", ">") else Round2(r - a)
            sc[f"{rid}.margin"] = If(Or(st.eq(Lbl(ok)), st.eq(Lbl(bad)), st.eq(Lbl("warn"))), gap, Blank())
        if ck.shortfall is not None:
            sc[f"{rid}.shortfall"] = If(Or(st.eq(Lbl(bad)), st.eq(Lbl("warn"))),
                                        ck.shortfall(self, C(f"{rid}.actual"), C(f"{rid}.required")),
                                        If(Or(st.eq(Lbl(ok)), st.eq(Lbl("not_applicable"))), Num(0), Blank()))
        if ck.min_cash is not None:
            when_only = self._all([n for n, _, _, _ in when_parts])
            contrib = ck.min_cash if when_only is None else If(when_only, ck.min_cash, Num(0))
            sc[f"{rid}.min_cash"] = If(C(f"{rid}.status").eq(Lbl("missing_input")), Blank(), contrib)

    def _decided(self, rd: RuleDef, missing: Node | None, unknown: Node | None) -> Node | None:
        """Where the rule's test is known whatever its missing inputs (``<rule>.decided``), or None for a test
        that is one comparison (known only when all its inputs are there, as ``<rule>.missing`` says).

        Three-valued (Kleene) logic over the test's AND / OR / NOT: ``x OR y`` is known true where one part is
        known true, ``x AND y`` known false where one part is known false, and known where every part is. A
        comparison is known where none of the input cells it reads is blank; one that reads a calculation
        whose inputs are not traced (a window, a rule's own sums) is known only where nothing the rule reads
        is missing. Written as a tree, so the workbook, the Python and the numpy programs decide alike."""
        ck = rd.check
        if ck.known or not isinstance(ck.passes, (And, Or)) or (missing is None and unknown is None):
            return None
        if ck.min_cash is not None or rd.group is not None:
            # a minimum (or an alternative of one) is decided only with every input: the cash it requires is
            # computed from them, and a minimum read with a blank as 0 would be too low (wrongly reassuring)
            return None

        def opaque(n: Node) -> bool:
            return any(nm not in self.m.series and nm not in self.transparent for nm, _ in n.calcs())

        def leaves(n: Node) -> list[Node]:
            return [x for a in n.args for x in leaves(a)] if isinstance(n, (And, Or, Not)) else [n]

        if all(opaque(n) for n in leaves(ck.passes)):  # known only where nothing is missing: the rule's own test says as much
            return None
        self.m.scalars[f"{rd.id}.incomplete"] = self._any([n for n in (missing, unknown) if n is not None])
        anything = C(f"{rd.id}.incomplete")

        def known(n: Node) -> Node:
            if isinstance(n, Not):
                return known(n.args[0])
            if isinstance(n, (And, Or)):
                ks = [known(a) for a in n.args]
                decisive = [And(k, Not(a) if isinstance(n, And) else a) for k, a in zip(ks, n.args)]
                return Or(*decisive, And(*ks))
            cells = self.expand(n)
            parts = ([Not(Missing(tuple(cells)))] if cells else []) + ([Not(anything)] if opaque(n) else [])
            return self._all(parts) or (Num(1) > Num(0))
        self.m.scalars[f"{rd.id}.decided"] = known(ck.passes)
        rd.decides = True
        return C(f"{rd.id}.decided")

    def outcomes(self, rd: RuleDef) -> tuple[Node, Node]:
        """(status when the test holds, status when it does not) for the rule's role and severity."""
        spec = rd.spec
        if rd.role == "condition" or rd.group:  # an alternative of an any_of is met or not; its group passes or fails
            return Lbl("met"), Lbl("not_met")
        if spec.severity == "warn":
            return Lbl("pass"), Lbl("warn")
        if spec.binding_boards:  # a duty on these boards, a recommendation elsewhere (DOMAIN.md §5)
            boards = self.param(spec.id, "binding_boards", tuple(spec.binding_boards), spec.clause,
                                "具有约束力的板块（其他板块为建议）", "Boards where it binds (a recommendation elsewhere)", "选项")
            board = In("board")
            self.m.scalars[f"{spec.id}.breach"] = If(Missing((("board", 0),)), Lbl("missing_input"),
                                                     If(InList(board, boards), Lbl("fail"), Lbl("warn")))
            return Lbl("pass"), C(f"{spec.id}.breach")
        return Lbl("pass"), Lbl("fail")

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
        conds = [C(f"{r.id}.status") for r in m.conditions if r.group is None]
        if conds:
            sc["cond_not_met_count"] = CountIf(Lbl("not_met"), *conds)
            sc["cond_missing_count"] = CountIf(Lbl("missing_input"), *conds)
            sc["cond_met"] = And(C("cond_not_met_count").eq(Num(0)), C("cond_missing_count").eq(Num(0)))
            sc["cond_unknown"] = And(C("cond_not_met_count").eq(Num(0)), C("cond_missing_count") > Num(0))
        else:  # a plan without conditions: its minimums always apply
            sc["cond_met"] = Num(1) > Num(0)
            sc["cond_unknown"] = Num(0) > Num(1)

    def build_low_payout(self, b: pol.Baseline):
        """The low-payout test (DOMAIN.md §5) as ``when`` parts, so that the one reason it does not apply is named.

        Cash (incl. interim) counts bidding/tender buybacks, as every regulatory ratio does."""
        lp = b.low_payout
        ratio = self.param("low_payout", "ratio", lp.ratio, lp.clause, "低分红披露：现金分红占净利润比例低于",
                           "Low payout: cash below this share of net profit", "%")
        first = self.param("low_payout", "first_year", lp.first_fiscal_year, lp.clause, "低分红披露：首次适用会计年度",
                           "Low payout: first fiscal year", "年")
        self.low_payout_parts = [
            (FY(0) >= first, "na_before_first_year"),
            (Round2(In("net_profit_attributable")) > Num(0), "na_not_profitable"),
            (And(Round2(In("retained_earnings_consolidated")) > Num(0), Round2(In("retained_earnings_parent")) > Num(0)),
             "na_retained_not_positive"),
            (Round2(C("cash_reg", 0)) < Round2(ratio * In("net_profit_attributable")), "na_payout_not_low"),
        ]

    def build_outputs(self):
        sc, m = self.m.scalars, self.m
        # display units for the board page (万元, 亿元): fixed, not thresholds
        self.param("display", "wan", 10_000, "显示单位", "万元（元）", "10 thousand 元 (display)", "元", editable=False)
        self.param("display", "yi", 100_000_000, "显示单位", "亿元（元）", "100 million 元 (display)", "元", editable=False)
        reqs = [C(f"{r.id}.status") for r in m.obligations]
        for code in ("fail", "warn", "missing_input"):
            sc[f"{code}_count"] = CountIf(Lbl(code), *reqs)
        sc["overall_status"] = If(C("fail_count") > Num(0), Lbl("fail"),
                                  If(C("missing_input_count") > Num(0), Lbl("missing_input"),
                                     If(C("warn_count") > Num(0), Lbl("warn"), Lbl("pass"))))
        sc["cash_conditions_met"] = If(C("cond_unknown"), Blank(), C("cond_met"))
        mins = [r for r in m.rules if r.is_minimum and r.group is None]
        contribs = [C(f"{r.id}.min_cash") for r in mins]
        best = Max(Num(0), *contribs)
        if mins:
            best = If(CountIf(Lbl("missing_input"), *[C(f"{r.id}.status") for r in mins]) > Num(0), Blank(), best)
        sc["min_cash_dividend"] = best
        legal = [r for r in m.rules if r.spec.kind == "legal_distribution_cap"]
        # the law's cap (the lower of parent and consolidated) where the baseline has it: never above the plan's
        sc["max_distribution"] = self._blank_if_missing(
            C(f"{legal[0].id}.required") if legal else Max(Num(0), Round2(C("retained", 0))))
        st = [r for r in m.rules if r.spec.kind == "st_low_dividend"]
        if st:
            rid = st[0].id
            status = C(f"{rid}.status")
            sc["st_risk_warning"] = If(Or(status.eq(Lbl("missing_input")), Not(C(f"{rid}.in_scope"))), Blank(),
                                       status.eq(Lbl("fail")))
            sc["cash_needed_to_avoid_st"] = If(status.eq(Lbl("missing_input")), Blank(),
                                               If(status.eq(Lbl("not_applicable")), Num(0), C(f"{rid}.needed")))
        else:
            sc["st_risk_warning"] = Blank()
            sc["cash_needed_to_avoid_st"] = Num(0)
        _proposal(self)
        # model integrity flag: every rule could be evaluated
        sc["check_flag"] = If(Or(C("missing_input_count") > Num(0), C("cond_unknown")), Lbl("check"), Lbl("ok"))


def _proposal(b: _Builder) -> None:
    """The 利润分配方案公告's proposal (issue 50, docs/domain.md §6.12): 每10股派发现金红利 X 元 on the base of the
    total shares less those in the buyback account (they take no distribution), the total it gives, the year's
    total with the interim, the payout ratios, and the least amount per 10 shares, to the fen, that meets the
    cash still required of the final distribution (the plan's minimum and the risk warning's, the interim and
    counted buybacks deducted)."""
    sc = b.m.scalars
    per = b.param("announce", "per_shares", 10, "利润分配方案公告：每10股派发现金红利", "每X股派发（公告惯例）",
                  "Shares per quoted amount (the announcement's convention)", "股", editable=False)
    fen = b.fen()
    sc["proposal.base"] = Max(Num(0), In("base_share_count") - In("buyback_account_shares"))
    base = C("proposal.base")
    sc["proposal.total"] = Round2(In("cash_per_10_shares") * base / per)
    sc["proposal.year_total"] = Round2(C("proposal.total") + Round2(In("interim_cash_dividend")))
    sc["proposal.matches"] = C("proposal.year_total").eq(Round2(In("cash_dividend")))
    profit = Round2(In("net_profit_attributable"))
    sc["proposal.payout"] = If(profit > Num(0), Round2(In("cash_dividend")) / profit, Blank())
    sc["proposal.cash_with_buybacks"] = Round2(C("cash_reg", 0))  # bidding/tender buybacks count as cash
    sc["proposal.payout_with_buybacks"] = If(profit > Num(0), C("proposal.cash_with_buybacks") / profit, Blank())
    # the plan's minimum is of its cash (which may count buybacks); the warning's of this year's dividends
    plan_min = C("min_cash_dividend")
    counted = Round2(C("cash", 0) - In("cash_dividend"))
    interim = Round2(In("interim_cash_dividend"))
    # the table's 是/否: 是 when the warning is triggered, 否 when it passes or cannot apply (out of scope, with its
    # reason), 无法判断 when undecided or the amounts' unit is in doubt (never a reassuring 否 then)
    st = [r for r in b.m.rules if r.spec.kind == "st_low_dividend"]
    units = [C(f"{r.id}.status").eq(Lbl("fail")) for r in b.m.rules if r.spec.kind == "plausible_amounts"]
    if st:
        status = C(f"{st[0].id}.status")
        verdict = If(status.eq(Lbl("fail")), Lbl("yes"),
                     If(Or(status.eq(Lbl("pass")), status.eq(Lbl("not_applicable"))), Lbl("no"), Lbl("undetermined")))
        sc["announce.triggers"] = If(Or(*units), Lbl("undetermined"), verdict) if units else verdict
    # blank where either minimum is undecided (a missing input): never a minimum of 0 that reassures
    unknown = Or(plan_min.eq(Blank()), C("cash_needed_to_avoid_st").eq(Blank()))
    sc["proposal.required"] = If(unknown, Blank(), Max(Num(0), Round2(plan_min - counted - interim),
                                                       Round2(C("cash_needed_to_avoid_st") - interim)))
    req = C("proposal.required")
    guess = Round2(req * per / Max(base, Num(1)))  # (a base of no share is answered 0 below, never divided by)
    sc["proposal.min_per_10"] = If(req.eq(Blank()), Blank(), If(Or(req.eq(Num(0)), base.eq(Num(0))), Num(0),
                                   If(Round2(guess * base / per) >= req, guess, Round2(guess + fen))))


def _amount_short(b: _Builder, a: Node, r: Node) -> Node:
    return Max(Num(0), Round2(r - a))


def _amount_over(b: _Builder, a: Node, r: Node) -> Node:
    return Max(Num(0), Round2(a - r))


def _amount_short_strict(b: _Builder, a: Node, r: Node) -> Node:
    """Short of a strict minimum (>): met with equality it still needs one more fen, never 0.00."""
    return Max(Num(0), Round2(r - a)) + b.fen()


def _amount_over_strict(b: _Builder, a: Node, r: Node) -> Node:
    return Max(Num(0), Round2(a - r)) + b.fen()


SHORTFALL = {">=": _amount_short, ">": _amount_short_strict, "<=": _amount_over, "<": _amount_over_strict}


# ---- kinds -----------------------------------------------------------------
# Each takes the builder and the rule spec and returns a Check. Thresholds are
# registered as parameters with the rule's clause; none is a literal.

def k_positive(b: _Builder, s: pol.Positive) -> Check:
    a = Round2(b.measure(s.measure))
    return Check(actual=a, required=Num(0), passes=a > Num(0), op=">")


def k_audit(b: _Builder, s: pol.AuditOpinion) -> Check:
    acc = b.param(s.id, "accepted", tuple(s.accepted), s.clause, "认可的审计意见", "Accepted audit opinions", "选项")
    return Check(actual=In(s.field), passes=InList(In(s.field), acc), op="in", unit="选项")


def k_judgment(b: _Builder, s: pol.Judgment) -> Check:
    return Check(actual=In(s.field), passes=In(s.field), op="true", unit="是/否")


def k_no_major_outlay(b: _Builder, s: pol.NoMajorOutlay) -> Check:
    mo = b.p.major_outlay
    if mo.definition == "board":
        return Check(actual=In("major_outlay_planned"), passes=Not(C("major_outlay")), op="not_major", unit="是/否")
    if transaction_tests(mo):  # the tests measure different figures: the actual is how many of them hold
        if "major_outlay_tests_met" not in b.m.scalars:
            b.m.scalars["major_outlay_tests_met"] = Sum(*[If(C(f"major_outlay.b{i}"), Num(1), Num(0))
                                                          for i in range(1, len(mo.tests()) + 1)])
            b.transparent.add("major_outlay_tests_met")
        return Check(actual=C("major_outlay_tests_met"), passes=Not(C("major_outlay")), op="not_major", unit="项")
    return Check(actual=Round2(In("planned_major_outlay")), required=C("major_outlay_threshold"),
                 passes=Not(C("major_outlay")), op="not_major")


def k_compare(b: _Builder, s: pol.Compare) -> Check:
    a = Round2(b.measure(s.measure))
    if s.amount is not None:
        req: Node = b.param(s.id, "amount", s.amount, s.clause, "比较金额", "Amount compared with", "元")
    else:
        req = Round2(b.param(s.id, "ratio", s.ratio, s.clause, "比例", "Ratio", "%") * b.measure(s.of))
    return Check(actual=a, required=req, passes=Cmp(s.op, a, C(f"{s.id}.required")), op=s.op, shortfall=SHORTFALL[s.op])


def _component(b: _Builder, s, i: int, c) -> Node:
    key = f"c{i + 1}"
    if c.type == "pct":
        basis_zh = FIELDS[c.basis].zh if c.basis in FIELDS else SERIES_ZH.get(c.basis, (c.basis,))[0]
        if c.by_year is None:
            r = b.param(s.id, f"{key}_ratio", c.ratio, s.clause, f"最低比例（占{basis_zh}）", f"Minimum share of {c.basis}", "%")
            return r * b.measure(c.basis)
        # thresholds by fiscal year (65% → 70% → 75%): each year's ratio from that year on, picked by the
        # column's fiscal year; every year and ratio on the parameter sheet
        years = sorted(c.by_year)
        ratios = [b.param(s.id, f"{key}_ratio_{y}", c.by_year[y], s.clause, f"最低比例（{y}年度起，占{basis_zh}）",
                          f"Minimum share of {c.basis} from fiscal year {y}", "%") for y in years]
        node: Node = ratios[0]
        for y, r in zip(years[1:], ratios[1:]):
            start = b.param(s.id, f"{key}_from_{y}", y, s.clause, f"分年度比例：自{y}年度起适用",
                            f"Year-specific ratio: applies from fiscal year {y}", "年", editable=False)
            node = If(FY(0) >= start, r, node)
        b.m.scalars[f"{s.id}.{key}_ratio_applied"] = node
        return C(f"{s.id}.{key}_ratio_applied") * b.measure(c.basis)
    if c.type == "fixed":
        return b.param(s.id, f"{key}_amount", c.amount, s.clause, "最低金额", "Fixed minimum", "元")
    ps = b.param(s.id, f"{key}_per_share", c.amount, s.clause, "每股最低现金分红", "Minimum per share", "元/股")
    return ps * In("share_count")


def k_min_cash(b: _Builder, s: pol.MinCash) -> Check:
    comps = [_component(b, s, i, c) for i, c in enumerate(s.components)]
    combined = comps[0] if len(comps) == 1 else (Max if s.combine == "higher_of" else Min)(*comps)
    req = Round2(Max(Num(0), combined))
    act = Round2(b.measure(s.measure, 0))  # cash (with the counted buybacks), dividends alone, or cash + stock
    need: Node = C(f"{s.id}.required")
    if s.measure != "cash":
        # the plan's cash (incl. counted buybacks) that brings the measure to its minimum, the rest of the
        # proposal as it is: required − (measure − cash), e.g. a dividends-only floor R with buybacks B: R + B
        need = Max(Num(0), Round2(C(f"{s.id}.required") - C(f"{s.id}.actual") + Round2(C("cash", 0))))
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=",
                 shortfall=_amount_short, min_cash=need if s.raises_minimum else None)


def k_min_cash_rolling(b: _Builder, s: pol.MinCashRolling) -> Check:
    w = s.window
    total = s.basis_mode == "total"
    ratio = b.param(s.id, "ratio", s.ratio, s.clause, "最低比例（占窗口累计利润）" if total else "最低比例（占年均可分配利润）",
                    "Minimum share of the window's total basis" if total else "Minimum share of average annual basis", "%")
    years = b.param(s.id, "window", w, s.clause, "计算年数", "Window (years)", "年")
    b.m.history = min(b.m.history, -(w - 1))  # the plan's window: the history the workbook keeps
    # the window's length is a parameter: a length changed in the workbook is summed there as here
    basis = Window(b.measure(s.basis), years, w)
    req = Round2(Max(Num(0), ratio * basis if total else ratio * basis / years))
    if s.amount is not None:  # 年均净利润30%或5000万元: the ratio's bound and the window's fixed amount
        b.m.scalars[f"{s.id}.ratio_required"] = req
        b.transparent.add(f"{s.id}.ratio_required")  # its window's inputs are the rule's inputs (missing input)
        amount = b.param(s.id, "amount", s.amount, s.clause, "窗口累计最低金额", "Fixed minimum for the window", "元")
        req = (Min if s.combine == "lower_of" else Max)(C(f"{s.id}.ratio_required"), amount)
    act = Round2(Window(C("cash", 0), years, w))
    prior = Round2(Window(C("cash", 0), years, w, skip=1))
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=", shortfall=_amount_short,
                 min_cash=Max(Num(0), Round2(C(f"{s.id}.required") - prior)) if s.raises_minimum else None,
                 missing=_window_missing(b, s, years))


def _window_missing(b: _Builder, s: pol.MinCashRolling, years: P) -> Node | None:
    """The missing input of a window whose length is a parameter (issue 52.7): a year's inputs are needed only
    where the year is in the window the parameter sets, as :class:`~xlmodel.expr.Window` sums it (year ``o`` ≤ 0
    is in it where ``years > −o``). A window of 2 with the year before last blank is decided; a test fixed at
    the plan's three cells would call it missing while the sum reads two years. A window longer than the plan's
    reads years the tree does not name: missing, never a pass over a sum that may read a blank as 0."""
    plan = b.param(s.id, "plan_window", s.window, s.clause, "规划的计算年数（窗口最长年数）",
                   "The plan's window (the longest window the rule's inputs name)", "年", editable=False)
    parts: list[Node] = [years > plan]  # longer than the plan's: years the tree does not name, never known complete
    for o in range(-(s.window - 1), 1):
        cells = b.expand(b.measure(s.basis, o))
        if cells:  # year o is in the window where FY(o) > FY(0) − years (the flag the workbook's SUMPRODUCT reads)
            parts.append(Missing(tuple(cells)) if o == 0 else And(FY(o) > FY(0) - years, Missing(tuple(cells))))
    return b._any(parts)


def k_min_cash_plan_period(b: _Builder, s: pol.MinCashPlanPeriod) -> Check:
    """Cumulative cash over the plan's own years (DOMAIN.md §2: 未来三年累计): the period's years are fixed
    parameters, each column counts the years of the period up to its own (FY(o) within them), so years
    before the period are never counted. Checked in the period's last year; before it, not applicable
    with the progress shown (the cash so far against the bound as if the period ended that year)."""
    lo, hi = s.years or b.p.plan_years
    n = hi - lo + 1
    rid, sc = s.id, b.m.scalars
    total = s.basis_mode == "total"
    first = b.param(rid, "first_year", lo, s.clause, "规划期间首个会计年度", "First fiscal year of the period", "年", editable=False)
    last = b.param(rid, "last_year", hi, s.clause, "规划期间最后一个会计年度（检查年度）", "Last fiscal year of the period (checked)",
                   "年", editable=False)
    ratio = b.param(rid, "ratio", s.ratio, s.clause, "最低比例（占期间累计利润）" if total else "最低比例（占期间年均利润）",
                    "Minimum share of the period's total basis" if total else "Minimum share of the period's average basis", "%")
    offs = list(range(-(n - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    inc = {o: And(FY(o) >= first, FY(o) <= last) for o in offs}
    sc[f"{rid}.years"] = Sum(*[If(inc[o], Num(1), Num(0)) for o in offs])
    k = C(f"{rid}.years")
    act = Round2(Sum(*[If(inc[o], C("cash", o), Num(0)) for o in offs]))
    sc[f"{rid}.prior_cash"] = Round2(Sum(*[If(inc[o], C("cash", o), Num(0)) for o in offs[:-1]])) if n > 1 else Num(0)
    sc[f"{rid}.basis"] = Sum(*[If(inc[o], b.measure(s.basis, o), Num(0)) for o in offs])
    b.transparent.add(f"{rid}.basis")  # the inputs a missing-input status names
    basis = C(f"{rid}.basis")
    req = Round2(Max(Num(0), ratio * basis)) if total else If(k > Num(0), Round2(Max(Num(0), ratio * basis / k)), Num(0))
    # only the counted years' inputs are needed
    blanks = [And(inc[o], Missing(tuple(cells))) for o in offs if (cells := b.expand(b.measure(s.basis, o)))]
    missing = b._any(blanks)
    need = If(FY(0).eq(last), Max(Num(0), Round2(C(f"{rid}.required") - C(f"{rid}.prior_cash"))), Num(0))
    return Check(actual=act, required=req, passes=act >= C(f"{rid}.required"), op=">=", shortfall=_amount_short,
                 min_cash=need if s.raises_minimum else None, missing=missing,
                 applies=[(FY(0) >= first, None, [], "na_before_plan_period"),
                          (FY(0) <= last, None, [], "na_after_plan_period"),
                          (FY(0) >= last, None, [], "na_plan_period_in_progress")])


def k_min_distributions(b: _Builder, s: pol.MinDistributions) -> Check:
    """At least N distributions of the year's profit (interim and final), from ``distribution_count``."""
    n = b.param(s.id, "count", s.count, s.clause, "每年最少利润分配次数", "Minimum distributions a year", "次")
    got = In("distribution_count")
    return Check(actual=got, required=n, passes=got >= C(f"{s.id}.required"), op=">=", unit="次")


def k_any_of(b: _Builder, s: pol.AnyOf) -> Check:
    """Met by any of its alternatives (other rules, shown met / not met): pass when one is met; else
    missing input when one lacks an input; else fail; not applicable when none applies. Its minimum
    cash is the lowest an applicable alternative needs (over those whose minimum is known), when every
    alternative is a minimum; otherwise it raises none."""
    sts = [C(f"{rid}.status") for rid in s.rules]
    met = Or(*[st.eq(Lbl("met")) for st in sts])
    unknown = Or(*[st.eq(Lbl("missing_input")) for st in sts])
    applies = Or(*[Not(st.eq(Lbl("not_applicable"))) for st in sts])
    alts = [b.m.rule(rid) if any(r.id == rid for r in b.m.rules) else None for rid in s.rules]
    need = None
    if all(a is not None and a.is_minimum for a in alts):
        for k, rid in enumerate(s.rules, 1):
            b.m.scalars[f"{s.id}.alt{k}"] = If(C(f"{rid}.status").eq(Lbl("not_applicable")), Blank(), C(f"{rid}.min_cash"))
        need = Min(*[C(f"{s.id}.alt{k}") for k in range(1, len(s.rules) + 1)])  # references: blanks are left out
    return Check(actual=CountIf(Lbl("met"), *sts), passes=met, op="any_of", unit="项", min_cash=need,
                 missing=And(Not(met), unknown), applies=[(applies, None, [], "na_no_alternative")])


def k_cash_share(b: _Builder, s: pol.CashShare) -> Check:
    """Cash share of a distribution ≥ the plan's share (DOMAIN.md §4: cash needed = S·s/(1−s)): of the year's
    distributions together, or of one distribution (本次利润分配). Each distribution has its own amounts: the
    interim its own inputs, the final the year's figures less the interim's (counted buybacks with the
    final). A final that needs cash makes the year's minimum the interim paid plus that need."""
    if s.distribution == "interim":
        return _cash_share_interims(b, s)
    cash, stock, made, reason = _distribution_parts(s.distribution)
    share, applies, table = _stage_share(b, b.p.rule(s.share_from) if s.share_from else s, stock)
    applies.insert(0, b.part(made, reason))
    req = Round2(stock * share / (Num(1) - share))
    need: Node | None = C(f"{s.id}.required")
    if s.distribution == "final":
        # a final needing cash R makes the year's cash the interims paid + R
        need = If(C(f"{s.id}.required") > Num(0), Round2(C("interims.cash") + C(f"{s.id}.required")), Num(0))
    act = Round2(cash)
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=",
                 shortfall=_amount_short, min_cash=need, applies=applies,
                 relevant=stock > Num(0) if table else None)


def _cash_share_interims(b: _Builder, s: pol.CashShare) -> Check:
    """本次利润分配 for each interim on its own: its cash at least its stock dividend × s/(1−s), the share
    the final's rule states. Paid before the year's proposal, so the year's minimum cannot mend it."""
    stock_all = C("interims.stock")
    share, applies, table = _stage_share(b, b.p.rule(s.share_from), stock_all)
    slots = []
    for k in SLOTS:
        cash, stock = Round2(In(k.cash)), Round2(In(k.stock))
        slots.append((cash + stock > Num(0), cash, Round2(stock * share / (Num(1) - share)),
                      *([stock > Num(0)] if table else [])))
    act, req, passes, made, missing = b.per_slot(s.id, slots, ">=")
    applies.insert(0, b.part(made, "na_no_interim_distribution"))
    return Check(actual=act, required=req, passes=passes, op=">=", shortfall=_amount_short, applies=applies,
                 missing=missing)


def _distribution_parts(which: str) -> tuple[Node, Node, Node, str]:
    """(cash, stock dividend, whether it is made, the not-applicable reason) of the year or of its final
    (each interim is its own: :func:`_cash_share_interims`)."""
    if which == "final":
        # the interims are part of the year's totals (interims above them are refused on input); counted
        # buybacks are cash of the final, but a buyback alone is no distribution
        interim = C("interims.cash")
        cash = Round2(C("cash", 0)) - interim
        stock = Round2(Round2(In("stock_dividend")) - C("interims.stock"))
        return cash, stock, Round2(In("cash_dividend")) - interim + stock > Num(0), "na_no_final_distribution"
    return C("cash", 0), Round2(In("stock_dividend")), Round2(C("distribution", 0)) > Num(0), "na_no_distribution"


def _stage_share(b: _Builder, t: pol.CashShare, stock: Node) -> tuple[Node, list, bool]:
    """The minimum share rule ``t`` states (a parameter, or the stage × outlay table's cell), registered once
    however many distributions read it; the not-applicable parts for the cells the plan leaves empty."""
    if t.share is not None:
        if f"{t.id}.share" not in b.m.params:
            b.param(t.id, "share", t.share, t.clause, "现金分红占本次利润分配最低比例", "Minimum cash share of the distribution", "%")
        return P(f"{t.id}.share"), [], False
    major, stage = C("major_outlay"), In("development_stage")
    if f"{t.id}.share" not in b.m.scalars:
        # a cell the plan leaves empty prescribes no share (DOMAIN.md §5): not applicable, never a pass against 0%
        cells = {k: b.param(t.id, k, v, t.clause, f"最低现金占比：{_STAGE_ZH[k]}", f"Minimum cash share: {k.replace('_', ' ')}", "%")
                 for k, v in t.table.items() if v is not None}

        def cell(stage_key: str) -> Node:
            return If(major, cells.get(f"{stage_key}_major", Num(0)), cells.get(f"{stage_key}_no_major", Num(0)))

        b.m.scalars[f"{t.id}.share"] = If(stage.eq(Lbl("mature")), cell("mature"),
                                          If(stage.eq(Lbl("growth")), cell("growth"), cell("indeterminate")))
        b.transparent.add(f"{t.id}.share")
    applies: list = []
    empty = [k for k, v in t.table.items() if v is None]
    if empty:
        def at(k: str) -> Node:
            st, _, mo = k.partition("_")
            return And(stage.eq(Lbl(st)), Not(major) if mo == "no_major" else major)
        prescribed = Not(b._any([at(k) for k in empty]))
        inputs = b.expand(prescribed)
        # with no stock dividend the share is 100%: nothing to prescribe, the stage and outlay are not needed
        applies.append((Or(stock.eq(Num(0)), prescribed), And(stock > Num(0), Missing(tuple(inputs))), inputs,
                        "na_no_prescribed_share"))
    return C(f"{t.id}.share"), applies, True


_STAGE_ZH = {
    "mature_no_major": "成熟期、无重大资金支出", "mature_major": "成熟期、有重大资金支出",
    "growth_no_major": "成长期、无重大资金支出", "growth_major": "成长期、有重大资金支出",
    "indeterminate_no_major": "不易区分、无重大资金支出", "indeterminate_major": "不易区分、有重大资金支出",
}


def k_cash_paid(b: _Builder, s: pol.CashPaid) -> Check:
    """A cash dividend is paid: any positive amount. A binding duty (severity fail) raises the
    minimum cash dividend to one fen; an "in principle" one (warn) does not (DOMAIN.md §4)."""
    act = Round2(C("cash", 0))
    return Check(actual=act, required=Num(0), passes=act > Num(0), op=">", shortfall=_amount_short_strict,
                 min_cash=b.fen() if s.severity == "fail" else None)


def k_cap(b: _Builder, s: pol.DistributionCap) -> Check:
    """不得超过累计可分配利润: each distribution at most the cumulative distributable profit it is paid out of
    (on the plan's basis, floored at 0). The final: the year's distribution less the interim's, against the
    year-end figure the interim has already left; the interim: its own, against its period-end figure."""
    stock = b.p.settings.distribution_includes_stock
    if s.distribution == "interim":
        slots = []
        for k in SLOTS:
            cons, parent = In(k.retained_consolidated), In(k.retained_parent)
            basis = {"lower": Min(cons, parent), "consolidated": cons + Num(0),
                     "parent": parent + Num(0)}[b.p.settings.retained_earnings_basis]
            amount = b.interim_amount(k, stock)
            slots.append((amount > Num(0), amount, Max(Num(0), Round2(basis))))
        act, req, passes, made, missing = b.per_slot(s.id, slots, "<=")
        return Check(actual=act, required=req, passes=passes, op="<=", shortfall=_amount_over, missing=missing,
                     applies=[b.part(made, "na_no_interim_distribution")])
    year = Round2(C("distribution", 0))
    act, basis = Round2(year - b.interims_amount(stock)), C("retained", 0)
    applies = [b.part(year > Num(0), "na_no_distribution"), b.part(act > Num(0), "na_no_final_distribution")]
    req = Max(Num(0), Round2(basis))
    return Check(actual=act, required=req, passes=act <= C(f"{s.id}.required"), op="<=", shortfall=_amount_over,
                 applies=applies)


def k_interim_profit_cap(b: _Builder, s: pol.InterimProfitCap) -> Check:
    """Guideline No. 3 (2023): an interim's cash dividend at most ``ratio`` × the net profit attributable of
    its own period (a Q1 interim the first quarter's, an H1 interim the half year's), each interim on its
    own against its period's figure."""
    ratio = b.param(s.id, "ratio", s.ratio, s.clause, "中期现金分红占相应期间归母净利润上限",
                    "Interim cash dividend: cap as a share of its period's net profit attributable", "%")
    slots = [(Round2(In(k.cash)) > Num(0), Round2(In(k.cash)), Round2(ratio * In(k.net_profit))) for k in SLOTS]
    act, req, passes, made, missing = b.per_slot(s.id, slots, "<=")
    return Check(actual=act, required=req, passes=passes, op="<=", shortfall=_amount_over, missing=missing,
                 applies=[b.part(made, "na_no_interim")])


def _agm_held(*fids: str) -> tuple:
    """The AGM has been held: one of its facts is entered (its date, or the vote itself). Before it a
    proposal is checked without them: not applicable, never missing input (DOMAIN.md §5)."""
    return Not(Missing(tuple((f, 0) for f in fids))) if len(fids) == 1 else \
        Not(And(*[Missing(((f, 0),)) for f in fids])), None, [], "na_agm_not_held"


def k_vote(b: _Builder, s: pol.Vote) -> Check:
    zh, en = (("赞成票须超过出席表决权的比例", "Votes for must exceed this share of votes present") if s.op == ">"
              else ("赞成票比例下限（含本数）", "Minimum share of votes present (inclusive)"))
    thr = b.param(s.id, "ratio", s.ratio, s.clause, zh, en, "%")
    return Check(actual=In("vote_for_ratio"), required=thr, passes=Cmp(s.op, In("vote_for_ratio"), thr),
                 op=s.op, unit="%", applies=[_agm_held("agm_date", "vote_for_ratio")])


def k_within_months(b: _Builder, s: pol.WithinMonths) -> Check:
    """Paid within N months of the AGM: EDATE gives the day the period ends (Civil Code art. 200–202: the
    corresponding day of the last month, or its last day), which still passes."""
    months = b.param(s.id, "months", s.months, s.clause, "派发期限（股东大会后月数）", "Payout deadline (months after AGM)", "月")
    deadline = EDate(In("agm_date"), months)
    return Check(actual=In("payout_date"), required=deadline, passes=In("payout_date") <= C(f"{s.id}.required"),
                 op="<=", unit="日期", applies=[b.part(Round2(C("distribution", 0)) > Num(0), "na_no_distribution"),
                                                _agm_held("agm_date")])


def k_legal_cap(b: _Builder, s: pol.LegalDistributionCap) -> Check:
    """The year's distribution paid out of the year-end retained earnings (cash and stock dividends less
    the interim's) at most the lower of the parent's and the consolidated figure, floored at 0
    (Company Law art. 210; the exchanges' 孰低 practice). Its bound is the maximum distribution."""
    year = Round2(In("cash_dividend") + In("stock_dividend"))
    final = Round2(year - b.interims_amount())
    req = Max(Num(0), Round2(Min(In("retained_earnings_consolidated"), In("retained_earnings_parent"))))
    return Check(actual=final, required=req, passes=final <= C(f"{s.id}.required"), op="<=", shortfall=_amount_over,
                 applies=[b.part(year > Num(0), "na_no_distribution"), b.part(final > Num(0), "na_no_final_distribution")])


def k_attestation(b: _Builder, s: pol.Attestation) -> Check:
    fid = s.field or ATTEST + s.id
    return Check(actual=In(fid), passes=In(fid), op="true", unit="是/否")


def k_st_low_dividend(b: _Builder, s: pol.StLowDividend) -> Check:
    """Exchange low-dividend risk warning (DOMAIN.md §5); see also the outputs it feeds."""
    def prm(key, value, zh, en, unit):
        return b.param(s.id, key, value, s.clause, zh, en, unit)

    first = prm("first_year", s.first_fiscal_year, "首次适用会计年度", "First fiscal year tested", "年")
    ratio = prm("ratio", s.ratio, "累计现金分红占年均净利润比例", "Cumulative cash as a share of average net profit", "%")
    f_main = prm("floor_main", s.floor_main, "累计现金分红金额标准（主板）", "Cumulative cash floor (main boards)", "元")
    f_growth = prm("floor_growth", s.floor_growth, "累计现金分红金额标准（创业板、科创板）", "Cumulative cash floor (ChiNext, STAR)", "元")
    mains = prm("main_boards", tuple(s.main_boards), "适用主板标准的板块", "Boards with the main-board floor", "选项")
    growths = prm("growth_boards", tuple(s.growth_boards), "适用创业板/科创板标准的板块", "Boards with the ChiNext/STAR floor", "选项")
    rd_ratio = prm("rd_ratio", s.rd_ratio, "研发投入占营业收入比例（豁免）", "R&D share of revenue (exemption)", "%")
    rd_amount = prm("rd_amount", s.rd_amount, "累计研发投入金额（豁免）", "Cumulative R&D (exemption)", "元")
    parent_only = prm("parent_only_boards", tuple(s.parent_only_boards),
                      "仅以母公司报表未分配利润为正为前提的板块（上交所规则原文）",
                      "Boards whose rule text requires only the parent's retained earnings positive (SSE wording)", "选项") \
        if s.parent_only_boards else None
    offs = list(range(-(s.window - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    sc, rid = b.m.scalars, s.id
    # a company listed for fewer full fiscal years counts the full years since listing; without a listing
    # date the window is this year alone, the least cash any listing date counts (the window always ends
    # with this year and no year's cash is negative): what decides the rule without it (docs/domain.md §6.1)
    unlisted = Missing((("listing_date", 0),))
    sc[f"{rid}.first_full_year"] = If(unlisted, FY(0), YearOf(In("listing_date") - Num(1)) + Num(1))
    inc = {o: FY(o) >= C(f"{rid}.first_full_year") for o in offs}
    sc[f"{rid}.years"] = Sum(*[If(inc[o], Num(1), Num(0)) for o in offs])
    n = C(f"{rid}.years")
    board = In("board")
    is_main, is_growth = InList(board, mains), InList(board, growths)

    def window(node_at) -> Node:
        return Round2(Sum(*[If(inc[o], node_at(o), Num(0)) for o in offs]))

    sc[f"{rid}.cash"] = window(lambda o: C("cash_st", o))
    sc[f"{rid}.prior_cash"] = Round2(Sum(*[If(inc[o], C("cash_st", o), Num(0)) for o in offs[:-1]]))
    sc[f"{rid}.profit_required"] = If(n > Num(0), Round2(Max(Num(0), ratio * window(lambda o: In("net_profit_attributable", o)) / n)), Num(0))
    sc[f"{rid}.floor"] = If(is_main, f_main, f_growth)
    b.transparent.add(f"{rid}.floor")  # its input (the board) is what a test on it reads
    # the bound: the lower of the two; without a listing date only the floor holds for every window
    sc[f"{rid}.bound"] = If(unlisted, C(f"{rid}.floor"), Min(C(f"{rid}.profit_required"), C(f"{rid}.floor")))
    sc[f"{rid}.in_scope"] = And(FY(0) >= first, Or(is_main, is_growth), n > Num(0))
    # the cash dividend still to declare: the threshold less the window's cash already counted, i.e. the
    # earlier years' cash and cancelled buybacks AND this year's cancelled buybacks (DOMAIN.md §5)
    sc[f"{rid}.counted_cash"] = Round2(C(f"{rid}.prior_cash") + If(inc[0], Round2(In("buyback_cancelled")), Num(0)))
    sc[f"{rid}.needed"] = Max(Num(0), Round2(C(f"{rid}.bound") - C(f"{rid}.counted_cash")))
    # the exchange's table in the 利润分配方案公告 (issue 50): the window's parts as printed, the average net
    # profit as it is (negative too) and the ratio; the trigger above stays the test, these only show it
    def shown(fid: str, o: int) -> Node:  # a year's figure as the table prints it: blank stays blank
        return If(Missing(((fid, o),)), Blank(), Round2(In(fid, o)))

    for o in offs:  # 本年度 y0, 上年度 y1, 上上年度 y2
        sc[f"{rid}.y{-o}.year"] = FY(o)
        for key, fid in (("dividends", "cash_dividend"), ("cancelled", "buyback_cancelled"),
                         ("profit", "net_profit_attributable"), ("rd", "rd_expense"), ("revenue", "revenue")):
            sc[f"{rid}.y{-o}.{key}"] = shown(fid, o) if key in ("profit", "rd", "revenue") else Round2(In(fid, o))
    sc[f"{rid}.retained_parent"] = shown("retained_earnings_parent", 0)
    sc[f"{rid}.dividends"] = window(lambda o: In("cash_dividend", o))
    sc[f"{rid}.cancelled"] = window(lambda o: In("buyback_cancelled", o))
    sc[f"{rid}.average_profit"] = If(n > Num(0), Round2(window(lambda o: In("net_profit_attributable", o)) / n), Blank())
    avg = C(f"{rid}.average_profit")
    # (the average is blank without a counted year: a blank reads as text, above every number, in a comparison)
    sc[f"{rid}.cash_ratio"] = If(And(n > Num(0), avg > Num(0)), C(f"{rid}.cash") / avg, Blank())
    sc[f"{rid}.below_ratio"] = C(f"{rid}.cash") < C(f"{rid}.profit_required")
    sc[f"{rid}.below_floor"] = C(f"{rid}.cash") < C(f"{rid}.floor")
    sc[f"{rid}.rd"] = window(lambda o: In("rd_expense", o))
    sc[f"{rid}.revenue"] = window(lambda o: In("revenue", o))
    sc[f"{rid}.growth_board"] = is_growth
    rd = C(f"{rid}.rd")
    sc[f"{rid}.rd_ratio_actual"] = If(C(f"{rid}.revenue") > Num(0), rd / C(f"{rid}.revenue"), Blank())
    sc[f"{rid}.exempt"] = And(C(f"{rid}.growth_board"), n > Num(0),
                              Or(rd >= Round2(rd_ratio * C(f"{rid}.revenue")), rd >= rd_amount))
    exempt = C(f"{rid}.exempt")
    blank = lambda fid, o=0: Missing(((fid, o),))  # noqa: E731

    def precondition(fid: str, reason: str):
        return Round2(In(fid)) > Num(0), blank(fid), [(fid, 0)], reason

    sc[f"{rid}.rd_unknown"] = And(C(f"{rid}.growth_board"),
                                  Or(*[And(inc[o], Or(blank("rd_expense", o), blank("revenue", o))) for o in offs]))
    rd_unknown = C(f"{rid}.rd_unknown")
    history_unknown = Or(*[And(inc[o], blank("net_profit_attributable", o)) for o in offs])
    consolidated = precondition("retained_earnings_consolidated", "na_retained_cons_not_positive")
    if parent_only is not None:
        # the SSE's rule text names the parent's retained earnings only: there the consolidated figure is
        # no precondition (nor a needed input), and a case it would exclude on the SZSE is said to be in
        # scope by that reading (report); the SZSE's reading requires both (docs/domain.md §6.1)
        sse = InList(board, parent_only)
        cons_ok, cons_blank = consolidated[0], consolidated[1]
        consolidated = (Or(sse, cons_ok), And(Not(sse), cons_blank), consolidated[2], consolidated[3])
        sc[f"{rid}.parent_only_reading"] = And(sse, Not(blank("retained_earnings_consolidated")), Not(cons_ok))
    act = C(f"{rid}.cash")
    # the third part never changes the test where every input is there (the window's cash is at least this
    # year's); it is the part three-valued logic can know without a listing date or the earlier years
    this_year = Round2(C("cash_st", 0)) >= C(f"{rid}.floor")
    return Check(
        actual=act, required=C(f"{rid}.bound"),
        passes=Or(act >= C(f"{rid}.profit_required"), act >= C(f"{rid}.floor"), this_year), op=">=",
        shortfall=_amount_short,
        applies=[(FY(0) >= first, None, [], "na_before_first_year"),
                 (Or(is_main, is_growth), blank("board"), [("board", 0)], "na_board_not_covered"),
                 (n > Num(0), blank("listing_date"), [("listing_date", 0)], "na_no_full_year"),
                 precondition("net_profit_attributable", "na_not_profitable"),
                 consolidated,
                 precondition("retained_earnings_parent", "na_retained_parent_not_positive"),
                 (Not(exempt), rd_unknown, [], "na_rd_exempt")],
        missing=history_unknown)


SALE_TRIGGERS = {  # DOMAIN.md §5: any one restricts the controlling shareholder's market sales
    "below_net_assets": ("破净：最近20个交易日任一日收盘价低于每股净资产", "price below net assets per share (last 20 trading days)"),
    "below_ipo": ("破发：最近20个交易日任一日收盘价低于首发价格", "price below the IPO price (last 20 trading days)"),
    "low_dividend": ("分红不达标：最近三年未现金分红或累计低于年均净利润30%（亏损年度不计）",
                     "no cash dividend, or cash below 30% of average net profit, over three years (loss years left out)"),
}


def k_sale_restriction(b: _Builder, s: pol.SaleRestriction) -> Check:
    """Controlling-shareholder sale restriction (DOMAIN.md §5): 破净, 破发 or 分红不达标.

    The dividend test counts only years whose net profit attributable is not negative: a loss year
    leaves both the cumulative cash and the average; bidding/tender buybacks count as cash. A company
    with no such year in the window is not restricted by it. The price facts are inputs."""
    ratio = b.param(s.id, "ratio", s.ratio, s.clause, "累计现金分红占年均净利润比例", "Cumulative cash as a share of average net profit", "%")
    offs = list(range(-(s.window - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    sc, rid = b.m.scalars, s.id
    counted = {o: Round2(In("net_profit_attributable", o)) >= Num(0) for o in offs}
    sc[f"{rid}.years"] = Sum(*[If(counted[o], Num(1), Num(0)) for o in offs])
    n = C(f"{rid}.years")
    sc[f"{rid}.cash"] = Round2(Sum(*[If(counted[o], C("cash_reg", o), Num(0)) for o in offs]))
    profit = Sum(*[If(counted[o], In("net_profit_attributable", o), Num(0)) for o in offs])
    sc[f"{rid}.profit_required"] = If(n > Num(0), Round2(Max(Num(0), ratio * profit / n)), Num(0))
    b.transparent |= {f"{rid}.{k}" for k in ("cash", "profit_required", "years", *SALE_TRIGGERS)}
    blank = lambda fid, o=0: Missing(((fid, o),))  # noqa: E731
    history_unknown = Or(*[blank("net_profit_attributable", o) for o in offs])
    a, r = C(f"{rid}.cash"), C(f"{rid}.profit_required")
    sc[f"{rid}.low_dividend"] = If(history_unknown, Blank(), And(n > Num(0), Or(a.eq(Num(0)), a < r)))
    sc[f"{rid}.below_net_assets"] = If(blank("price_below_net_assets_20d"), Blank(), In("price_below_net_assets_20d"))
    sc[f"{rid}.below_ipo"] = If(blank("price_below_ipo_20d"), Blank(), In("price_below_ipo_20d"))
    triggers = [C(f"{rid}.{k}") for k in SALE_TRIGGERS]
    known_true = Or(*[t.eq(Num(1) > Num(0)) for t in triggers])
    unknown = Or(*[t.eq(Blank()) for t in triggers])
    return Check(actual=a, required=r, passes=Not(known_true), op=">=", shortfall=_amount_short,
                 missing=And(Not(known_true), unknown))


def k_conditions_held(b: _Builder, s: pol.ConditionsHeld) -> Check:
    """A cash dividend paid while a cash-dividend condition of the plan is not met (DOMAIN.md §5)."""
    return Check(actual=C("cond_met"), passes=C("cond_met"), op="conditions", unit="是/否", missing=C("cond_unknown"))


def plausible_signals(s: pol.PlausibleAmounts) -> list[tuple[str, str, str]]:
    """The signals of a plausibility rule: (calculation key, 中文, English), in the order they are tested."""
    out = [("small_assets", f"期末总资产低于 {s.assets_floor:,.0f} 元", f"total assets below {s.assets_floor:,.0f} 元"),
           ("small_revenue", f"营业收入低于 {s.revenue_floor:,.0f} 元", f"revenue below {s.revenue_floor:,.0f} 元")]
    out += [(f"small_{f}", f"{FIELDS[f].zh}绝对值不为 0 但低于 {s.small:,.0f} 元", f"{f} not 0 but below {s.small:,.0f} 元 in size")
            for f in _SMALL_FIELDS]
    out += [(f"jump_{f}", f"{FIELDS[f].zh}相邻两年相差 {s.jump_ratio:,.0f} 倍以上", f"{f} changes {s.jump_ratio:,.0f}× or more in a year")
            for f in s.jump_fields]
    out += [(f"pair_{a}_{b}", f"同一年度{FIELDS[a].zh}与{FIELDS[b].zh}相差 {s.pair_ratio:,.0f} 倍以上",
             f"{a} and {b} of one year {s.pair_ratio:,.0f}× apart or more") for a, b in s.pairs]
    return out


_SMALL_FIELDS = ("net_assets", "net_profit_attributable", "cash_dividend")


def k_plausible(b: _Builder, s: pol.PlausibleAmounts) -> Check:
    """Amounts a listed company could hardly have in 元: each signal a calculation of its own (named in the
    report), the rule passing when none holds or the case confirms its figures (DOMAIN.md §5). A blank
    input reads 0 and is no signal: the rule never waits for one."""
    def prm(key, value, zh, en, unit="元"):
        return b.param(s.id, key, value, s.clause, zh, en, unit)

    assets = prm("assets_floor", s.assets_floor, "总资产下限（低于即疑似万元）", "Total assets floor (below: 万元 suspected)")
    revenue = prm("revenue_floor", s.revenue_floor, "营业收入下限（高于0而低于即疑似万元）", "Revenue floor (above 0 and below it: 万元 suspected)")
    small = prm("small", s.small, "净资产、净利润、现金分红的最小绝对值（非0而低于即疑似万元）",
                "Smallest size of net assets, net profit, cash dividend (not 0 and below it: 万元 suspected)")
    ratio = prm("jump_ratio", s.jump_ratio, "相邻年度变动倍数（达到即疑似单位不一）", "Change between two years (at it: mixed units suspected)", "倍")
    offs = list(range(-(s.window - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    sc, rid = b.m.scalars, s.id
    for f in dict.fromkeys((*_SMALL_FIELDS, *s.jump_fields, *(f for p in s.pairs for f in p))):  # sizes, every year
        x = Round2(In(f))
        b.m.series[f"size_{f}"] = Max(x, Num(0) - x)

    def size(f: str, o: int = 0) -> Node:
        return C(f"size_{f}", o)

    sc[f"{rid}.small_assets"] = And(Round2(In("total_assets")) > Num(0), Round2(In("total_assets")) < assets)
    sc[f"{rid}.small_revenue"] = And(Round2(In("revenue")) > Num(0), Round2(In("revenue")) < revenue)
    for f in _SMALL_FIELDS:
        sc[f"{rid}.small_{f}"] = And(size(f) > Num(0), size(f) < small)
    for f in s.jump_fields:
        pairs = [And(size(f, o) > Num(0), size(f, o - 1) > Num(0),
                     Or(size(f, o) >= ratio * size(f, o - 1), size(f, o - 1) >= ratio * size(f, o))) for o in offs[1:]]
        sc[f"{rid}.jump_{f}"] = pairs[0] if len(pairs) == 1 else Or(*pairs)
    _plausible_pairs(b, s, size, offs)
    signals = [C(f"{rid}.{key}") for key, _, _ in plausible_signals(s)]
    for group in ("small", "jump", "pair"):  # the signals that hold, counted a kind at a time (short formulas)
        held = [If(C(f"{rid}.{key}"), Num(1), Num(0)) for key, _, _ in plausible_signals(s) if key.startswith(group)]
        if held:
            sc[f"{rid}.count_{group}"] = Sum(*held)
    counts = [C(f"{rid}.count_{g}") for g in ("small", "jump", "pair") if f"{rid}.count_{g}" in sc]
    confirmed = In("amounts_confirmed")
    return Check(actual=Sum(*counts), passes=Or(confirmed, Not(Or(*signals))), op="plausible", unit="项", known=True)


def _plausible_pairs(b: _Builder, s: pol.PlausibleAmounts, size: Callable[..., Node], offs: list[int]) -> None:
    """A field and its neighbour of the same year (distributable profit and net profit …) ``pair_ratio`` times
    apart or more, either way, in any year of the window: one of them typed in 万元 (issue 47)."""
    if not s.pairs:
        return
    ratio = b.param(s.id, "pair_ratio", s.pair_ratio, s.clause, "同一年度相关项目相差倍数（达到即疑似单位不一）",
                    "Two related figures of one year apart (at it: mixed units suspected)", "倍")
    for a, c in s.pairs:
        years = [And(size(a, o) > Num(0), size(c, o) > Num(0),
                     Or(size(a, o) >= ratio * size(c, o), size(c, o) >= ratio * size(a, o))) for o in offs]
        b.m.scalars[f"{s.id}.pair_{a}_{c}"] = years[0] if len(years) == 1 else Or(*years)


KINDS: dict[str, Callable[[_Builder, object], Check]] = {
    "positive": k_positive, "audit_opinion": k_audit, "judgment": k_judgment,
    "no_major_outlay": k_no_major_outlay, "compare": k_compare, "min_cash": k_min_cash,
    "min_cash_rolling": k_min_cash_rolling, "min_cash_plan_period": k_min_cash_plan_period,
    "min_distributions": k_min_distributions, "any_of": k_any_of, "cash_share": k_cash_share, "cash_paid": k_cash_paid,
    "distribution_cap": k_cap, "vote": k_vote, "within_months": k_within_months,
    "attestation": k_attestation, "st_low_dividend": k_st_low_dividend, "sale_restriction": k_sale_restriction,
    "conditions_held": k_conditions_held, "legal_distribution_cap": k_legal_cap,
    "interim_profit_cap": k_interim_profit_cap, "plausible_amounts": k_plausible,
}


#: the longest formula a modeller should have to audit (issue 11: ~250 characters)
MAX_FORMULA = 240


def split_long_formulas(m: Model, limit: int = MAX_FORMULA) -> None:
    """Move parts of any calculation whose formula would pass ``limit`` characters onto rows of their
    own (``<name>.part<k>``), largest first, until every formula fits. The same trees still compute
    in Python (a hoisted part is one more named calculation), so nothing changes but the layout."""
    est = EstimateRenderer()
    out: dict[str, Node] = {}

    def place(name: str, node: Node):
        k = 0
        while (size := len(node.render(est))) > limit:
            options = [(n, guarded_part(n, gs)) for n, gs in hoistable(node)]
            sizes = [(ln, i) for i, (_, moved) in enumerate(options) if (ln := len(moved.render(est))) < size]
            if not sizes:  # nothing that moves makes the formula shorter (a part is its whole guarded branch)
                break
            fitting = [x for x in sizes if x[0] <= limit]
            _, i = max(fitting) if fitting else max(sizes)
            k += 1
            while (part := f"{name}.part{k}") in m.scalars or part in out:  # split once already: new names
                k += 1
            place(part, options[i][1])
            node = substitute(node, options[i][0], C(part))
        out[name] = node

    for name, node in m.scalars.items():
        place(name, node)
    m.scalars = out


def compile_policy(policy: pol.Policy, baseline: pol.Baseline | None = None) -> Model:
    """The model of ``policy`` with the regulatory baseline its settings name, or ``baseline`` (a
    baseline-only screen passes the baseline's rules it screens: :func:`xlmodel.batch.prepare.screen_model`)."""
    b = _Builder(policy)
    b.precision()
    b.build_series()
    b.build_major_outlay()

    def ordered(specs):  # an any_of after the rules it reads (its minimum is theirs); an interim share after its final
        seen: set[str] = set()
        now, later = [], []
        for r in specs:
            wait = r.kind == "any_of" or getattr(r, "share_from", None) not in (None, *seen)
            (later if wait else now).append(r)
            seen.add(r.id)
        return now + later

    # conditions first: requirements read their aggregate
    for spec in ordered(policy.conditions):
        b.m.rules.append(b.compile_rule(spec))
    b.build_aggregates()
    for spec in ordered(policy.requirements):
        b.m.rules.append(b.compile_rule(spec))
    if baseline is None and policy.settings.regulatory_baseline:
        baseline = pol.load_baseline(policy.settings.regulatory_baseline)
    if baseline is not None:
        base = b.m.baseline = baseline
        clash = {r.id for r in base.rules} & {r.id for r in policy.rules}
        if clash:
            raise ValueError(f"rule ids {sorted(clash)} are used by both {policy.id} and {base.id}")
        b.build_low_payout(base)
        for spec in base.rules:
            b.m.rules.append(b.compile_rule(spec, "regulatory"))
    b.build_outputs()
    split_long_formulas(b.m)
    return b.m
