"""The compiled model's vocabulary: the statuses and their words, the reasons a rule does not apply, the
series, the transaction tests of a major outlay, the model's types (Param, Check, RuleDef, Derived, Model)
and the shortfall of a bound. The catalogue's kinds build on it; catalogue re-exports it (cat.STATUS_ZH,
cat.Model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from .. import outputs as _outputs
from ..plans import schema as pol
from .expr import In, Max, Node, Num, Round2
from ..fields import FIELDS


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
