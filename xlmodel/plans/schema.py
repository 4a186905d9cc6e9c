"""policy: the policy file's schema and loading (one YAML file per plan, bundled under ``templates/`` or in the
user's plan folders).

A policy file is data: it names its plan text, lists every clause of the text
with how it is accounted for (``computed``, ``attestation``, ``informational``),
and lists rules, each an instance of a kind from the catalogue
(:mod:`xlmodel.rules.catalogue`) with its clause, the quoted clause text and its
thresholds. Loading validates the schema, that every clause of the text is
accounted for, and that every quote really stands in the clause it cites.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated, Literal, Union, get_args

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationError, field_validator,
                      model_validator)

from . import clauses as clause_text  # the module; plan_clauses() below gives a policy's clauses
from ..errors import AmbiguousPolicyError, PolicyError, Problem, UnknownPolicyError, XlmodelError
from ..fields import BOARDS, FIELDS, HALF_YEAR_OPINIONS, Kind
from .folders import TEMPLATES
from ..inputs.sanitize import BAD_LINE, BAD_TEXT, char_name

#: amounts a rule may take as its basis or measure (DOMAIN.md §3 ids, plus derived ones)
AMOUNT_FIELDS = tuple(f.id for f in FIELDS.values() if f.kind == Kind.AMOUNT and f.per_year)
#: measures the model derives from the inputs: cash (with the buybacks the plan counts), cash + stock, the
#: cumulative distributable profit, and the lower of a profit under PRC GAAP and IFRS (较少者为准): net profit,
#: or the year's distributable profit after the statutory reserves (扣除法定储备后净利润; catalogue.LOWER_OF)
DERIVED_MEASURES = ("cash", "distribution", "retained", "net_profit_attributable_lower", "distributable_profit_lower")
Measure = Literal[AMOUNT_FIELDS + DERIVED_MEASURES]  # type: ignore[valid-type]
BoolField = Literal[tuple(f.id for f in FIELDS.values() if f.kind == Kind.BOOL)]  # type: ignore[valid-type]

When = Literal[
    "always", "conditions_met", "conditions_not_met", "distribution_made", "cash_paid", "interim_paid",
    "profitable", "profitable_no_cash", "profitable_no_distribution", "stock_or_conversion", "low_payout",
]


def _ratio(v):
    """Accept 0.3, "30%" or "2/3"."""
    if isinstance(v, str):
        s = v.strip()
        if s.endswith("%"):
            return float(Fraction(s[:-1])) / 100
        return float(Fraction(s))
    return v


Ratio = Annotated[float, BeforeValidator(_ratio), Field(ge=0, le=1)]
#: a share of an AVERAGE over a window may pass 100% (35% of three years' total = 105% of their average);
#: the rule checks it against the window's length (at most 100% of the window's total)
WindowRatio = Annotated[float, BeforeValidator(_ratio), Field(ge=0, le=10)]


#: the text fields of a policy file that may run over lines (a YAML block scalar): a quote is matched with
#: its white space dropped (:func:`xlmodel.plans.clauses.normalise`), a note is prose. Every other text — ids,
#: titles, clause ids, the company, the version, sources — is one line.
MULTILINE_FIELDS = frozenset({"quote", "note"})


def _text_problem(v, multiline: bool) -> str | None:
    """Why a policy file's value ``v`` (text, or a list or mapping of it) holds a character no text of
    a plan may hold (:data:`~xlmodel.inputs.sanitize.BAD_LINE`, :data:`~xlmodel.inputs.sanitize.BAD_TEXT`), or None.
    Control characters from a plan would reach terminals and reports: escape sequences retitle a
    terminal or hide text, a line break forges a line."""
    if isinstance(v, str):
        m = (BAD_TEXT if multiline else BAD_LINE).search(v)
        if m is None:
            return None
        ch = m.group()
        if ch in "\n\r\t\u2028\u2029":
            return (f"含换行或制表符 {char_name(ch)}：此字段只能是一行（仅 quote 与 note 可以换行）— contains {char_name(ch)}: "
                    "this field is one line (only a quote or a note may run over lines)")
        return (f"含控制字符 {char_name(ch)}：策略文件的文本不得含控制字符（可伪造终端与报告的输出）— contains the control "
                f"character {char_name(ch)}: a policy file's text may hold none (it could forge terminal and report output)")
    if isinstance(v, (list, tuple)):
        return next((p for x in v if (p := _text_problem(x, multiline))), None)
    if isinstance(v, dict):
        for k, x in v.items():
            if (p := _text_problem(k, False)) is not None:
                return f"{p} (key {k!r})"
            if (p := _text_problem(x, multiline)) is not None:
                return p
    return None


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="after")
    @classmethod
    def _plain_text(cls, v, info):
        why = _text_problem(v, info.field_name in MULTILINE_FIELDS)
        if why:
            raise ValueError(why)
        return v


Board = Literal[tuple(BOARDS)]  # type: ignore[valid-type]


#: the fiscal year from which the board's audit committee, not a supervisory board, gives the statements a plan
#: asks of the 监事会: the Company Law (2023 revision, in force 2024-07-01, arts. 69 and 121) lets the audit
#: committee exercise the supervisory board's powers; CSRC's transition arrangements for the new Company Law
#: (2024-12-27) have listed companies make the change before 2026-01-01, and the Guidelines for Articles of
#: Association (2025 revision) leave no supervisory board: a statement on fiscal 2025, given in 2026, is the
#: audit committee's (docs/domain.md §6.10)
AUDIT_COMMITTEE_FROM = 2025
AUDIT_COMMITTEE_SOURCE = ("证监会《关于新〈公司法〉配套制度规则实施相关过渡期安排》（2024-12-27）、《上市公司章程指引（2025年修订）》",
                          "CSRC transition arrangements for the rules under the new Company Law (2024-12-27); "
                          "Guidelines for the Articles of Association of Listed Companies (2025 revision)")
_SUPERVISORY_EN = re.compile(r"\b([Ss])upervisory board\b")


def worded_for_year(title_zh: str, title_en: str, year: int | None) -> tuple[str, str]:
    """A rule's titles worded for the body that exists in fiscal ``year``: the plan's 监事会 before
    :data:`AUDIT_COMMITTEE_FROM`, the board's audit committee (审计委员会) from it on, with the source; other
    titles (and ``year`` None: the plan's own words) as they are."""
    if year is None or year < AUDIT_COMMITTEE_FROM or ("监事会" not in title_zh and not _SUPERVISORY_EN.search(title_en)):
        return title_zh, title_en
    zh = title_zh.replace("监事会", "董事会审计委员会")
    en = _SUPERVISORY_EN.sub(lambda m: ("T" if m.group(1) == "S" else "t") + "he board's audit committee", title_en)
    return (f"{zh}（{AUDIT_COMMITTEE_FROM}会计年度起由审计委员会行使监事会职权：{AUDIT_COMMITTEE_SOURCE[0]}）",
            f"{en} (from fiscal {AUDIT_COMMITTEE_FROM} the audit committee exercises the supervisory board's "
            f"powers: {AUDIT_COMMITTEE_SOURCE[1]})")


class RuleBase(_Base):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=60)
    clause: str
    quote: str = Field(min_length=4)
    title_zh: str
    title_en: str
    when: list[When] = ["always"]
    severity: Literal["fail", "warn"] = "fail"
    #: a duty binding only on these boards: elsewhere a breach is a recommendation (warn)
    binding_boards: list[Board] | None = None
    #: a condition (met / not met) or an obligation (pass / fail); by default from the kind
    role: Literal["condition", "requirement"] | None = None
    note: str | None = None

    @field_validator("when", mode="before")
    @classmethod
    def _listify(cls, v):
        return [v] if isinstance(v, str) else v


# ---- conditions ---------------------------------------------------------

class Positive(RuleBase):
    """Condition: an amount of the evaluation year is > 0 (为正值)."""

    kind: Literal["positive"]
    measure: Measure


class AuditOpinion(RuleBase):
    """Condition: the year's (or the half-year's) audit opinion is one of the accepted ones."""

    kind: Literal["audit_opinion"]
    field: Literal["audit_opinion", "half_year_audit_opinion"] = "audit_opinion"
    accepted: list[Literal[tuple(HALF_YEAR_OPINIONS)]] = Field(min_length=1)  # type: ignore[valid-type]


class Judgment(RuleBase):
    """Condition: a board judgment (yes/no input) is yes."""

    kind: Literal["judgment"]
    field: BoolField


class NoMajorOutlay(RuleBase):
    """Condition: no major investment or cash outlay (as the policy defines it)."""

    kind: Literal["no_major_outlay"]


class Compare(RuleBase):
    """Condition or gate: ``measure  op  ratio × of`` (or ``op amount``), e.g. a debt-ratio limit."""

    kind: Literal["compare"]
    measure: Measure
    op: Literal[">=", ">", "<=", "<"]
    ratio: Ratio | None = None
    of: Measure | None = None
    amount: float | None = None

    @model_validator(mode="after")
    def _one_rhs(self):
        if (self.amount is None) == (self.ratio is None or self.of is None):
            raise ValueError("give either 'ratio' with 'of', or 'amount'")
        return self


# ---- requirements -------------------------------------------------------

class PctComponent(_Base):
    """``ratio`` × a basis; or, with ``by_year``, a ratio by fiscal year (65% → 70% → 75%): each year's
    ratio applies from that fiscal year on (before the first listed year, the first year's)."""

    type: Literal["pct"]
    ratio: Ratio | None = None
    by_year: dict[Annotated[int, Field(ge=2000, le=2100)], Ratio] | None = None
    basis: Measure

    @model_validator(mode="after")
    def _one_ratio(self):
        if (self.ratio is None) == (self.by_year is None):
            raise ValueError("give either 'ratio' or 'by_year' (a ratio for each fiscal year)")
        if self.by_year is not None and not 1 <= len(self.by_year) <= 10:
            raise ValueError("'by_year' lists one to ten fiscal years")
        return self


class FixedComponent(_Base):
    type: Literal["fixed"]
    amount: float = Field(ge=0)


class PerShareComponent(_Base):
    type: Literal["per_share"]
    amount: float = Field(ge=0)  # 元 per share


Component = Annotated[Union[PctComponent, FixedComponent, PerShareComponent], Field(discriminator="type")]


class MinCash(RuleBase):
    """Minimum of the evaluation year: % of a basis, fixed amount, per share; higher-of / lower-of.

    ``measure``: what must reach it — ``cash`` (cash dividends and the buybacks the settings count),
    ``cash_dividend`` (dividends alone: a 每股派息 floor beside a ratio that counts buybacks) or
    ``distribution`` (cash and stock: 每年累计分配的利润不低于…, a total-distribution floor).
    ``raises_minimum: false``: a target or flag (约50%) that informs without raising the minimum
    cash dividend (usually with ``severity: warn``)."""

    kind: Literal["min_cash"]
    components: list[Component] = Field(min_length=1)
    combine: Literal["higher_of", "lower_of"] = "higher_of"
    measure: Literal["cash", "cash_dividend", "distribution"] = "cash"
    raises_minimum: bool = True


def _window_ratio(ratio: float, n: int, basis_mode: str) -> None:
    if basis_mode == "total" and ratio > 1:
        raise ValueError(f"a share of the window's total profit is at most 100% (got {ratio:g})")
    if basis_mode == "average" and ratio > n + 1e-12:
        raise ValueError(f"a share of the average over {n} years is at most {n * 100:g}% (= 100% of their total; "
                         f"got {ratio:.4g})")


class MinCashRolling(RuleBase):
    """Cash over the last N years ≥ ratio × the average annual basis of those years
    (``basis_mode: total``: ratio × the window's total basis).

    ``amount``: a fixed amount beside the ratio (近三年累计现金分红不低于……年均净利润30%或5000万元),
    for the window's cumulative cash, joined by ``combine`` — ``lower_of`` (either suffices) or
    ``higher_of`` (both must hold). A plan's wording rarely settles which: ``combine`` has no default."""

    kind: Literal["min_cash_rolling"]
    window: int = Field(ge=2, le=5)
    basis_mode: Literal["average", "total"] = "average"
    ratio: WindowRatio
    basis: Measure = "distributable_profit"
    mode: Literal["last", "any"] = "last"
    raises_minimum: bool = True
    amount: float | None = Field(default=None, ge=0)
    combine: Literal["higher_of", "lower_of"] | None = None

    @model_validator(mode="after")
    def _amount_joined(self):
        if (self.amount is None) != (self.combine is None):
            raise ValueError("a fixed 'amount' beside the ratio needs 'combine' (lower_of: either suffices; "
                             "higher_of: both must hold), and 'combine' needs an 'amount'")
        return self

    @field_validator("ratio")
    @classmethod
    def _ratio_fits(cls, v, info):
        if "window" in info.data:
            _window_ratio(v, info.data["window"], info.data.get("basis_mode", "average"))
        return v


class MinCashPlanPeriod(RuleBase):
    """Cumulative cash over the plan's own fiscal years (``years``, by default ``plan_years``) ≥ ratio ×
    their average annual basis (``basis_mode: total``: × their total). Checked (pass/fail) in the last
    of those years; before it, shown as progress (not applicable, with the bound as if the period ended
    that year); years outside the period are never counted."""

    kind: Literal["min_cash_plan_period"]
    years: tuple[Annotated[int, Field(ge=2000, le=2100)], Annotated[int, Field(ge=2000, le=2100)]] | None = None
    basis_mode: Literal["average", "total"] = "average"
    ratio: WindowRatio
    basis: Measure = "distributable_profit"
    raises_minimum: bool = True

    @field_validator("years")
    @classmethod
    def _years_fit(cls, v):
        if v is not None and not 0 <= v[1] - v[0] <= 9:
            raise ValueError("'years' is [first, last] fiscal year of the period, at most ten years")
        return v

    @field_validator("ratio")
    @classmethod
    def _ratio_fits(cls, v, info):
        years, mode = info.data.get("years"), info.data.get("basis_mode", "average")
        if years is not None:
            _window_ratio(v, years[1] - years[0] + 1, mode)
        elif mode == "total" and v > 1:  # the average against the plan's years: checked with the policy
            raise ValueError(f"a share of the period's total profit is at most 100% (got {v:g})")
        return v


class MinDistributions(RuleBase):
    """At least ``count`` distributions of the year's profit (原则上每年度进行两次分红: interim and final),
    from the input ``distribution_count``."""

    kind: Literal["min_distributions"]
    count: int = Field(ge=1, le=12)


class AnyOf(RuleBase):
    """One requirement (or condition) met by any of other rules, its alternatives (``rules``): e.g.
    annual 10% OR rolling 30%; operating cash flow OR cash and equivalents positive. The alternatives
    are shown met / not met and count only through this rule (not in the overall result, the
    conditions or the minimum cash dividend on their own); its minimum is the lowest an applicable
    alternative needs. A group of conditions needs ``role: condition``."""

    kind: Literal["any_of"]
    rules: list[str] = Field(min_length=2, max_length=10)


class CashShare(RuleBase):
    """Cash share of the distribution ≥ a fixed share, or the stage/outlay table (差异化).

    ``distribution`` says which distribution's share is checked: ``year``, the year's distributions
    together; or each distribution on its own (现金分红在本次利润分配中所占比例), as a pair of rules:
    ``final``, the year's figures less the interim's, and ``interim``, which reads the final rule's
    share or table (``share_from``: one set of thresholds)."""

    kind: Literal["cash_share"]
    share: Ratio | None = Field(default=None, lt=1)
    #: stage × outlay -> minimum share; null where the plan prescribes none (DOMAIN.md §5)
    table: dict[Literal["mature_no_major", "mature_major", "growth_no_major", "growth_major",
                        "indeterminate_no_major", "indeterminate_major"],
                Annotated[float, Field(ge=0, lt=1)] | None] | None = None
    distribution: Literal["year", "final", "interim"] = "year"
    share_from: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$", max_length=60)

    @model_validator(mode="after")
    def _one(self):
        if self.distribution == "interim":
            if self.share is not None or self.table is not None or self.share_from is None:
                raise ValueError("an interim share rule gives 'share_from' (the final distribution's rule), "
                                 "not its own 'share' or 'table'")
            return self
        if self.share_from is not None:
            raise ValueError("'share_from' belongs to an interim share rule (distribution: interim)")
        if (self.share is None) == (self.table is None):
            raise ValueError("give either 'share' or 'table'")
        if self.table is not None and len(self.table) != 6:
            raise ValueError("'table' needs all six stage × outlay cells (null where the plan prescribes none)")
        return self


class CashPaid(RuleBase):
    """Some cash dividend is paid (e.g. 原则上每年进行一次现金分红; usually severity warn)."""

    kind: Literal["cash_paid"]


class DistributionCap(RuleBase):
    """A distribution does not exceed the cumulative distributable profit it is paid out of (不得超过累计可分配
    利润的范围), on the plan's ``retained_earnings_basis``. Each distribution against its own figure
    (``distribution``): ``final``, the year's distributions less the interim's, against the year-end
    retained earnings (which the interim has already left); ``interim``, the interim's own, against the
    retained earnings at the end of the period it is paid out of (``half_year_retained_earnings_*`` for the
    first interim, ``interim<k>_retained_earnings_*`` for the others: each interim against its own).""" 

    kind: Literal["distribution_cap"]
    distribution: Literal["final", "interim"] = "final"


class Vote(RuleBase):
    """The AGM vote for the proposal reaches a threshold (以上 → ≥).

    An ordinary resolution (the distribution plan) needs MORE than half of the votes
    present (过半数, Company Law 2023 art. 116); a plan's "1/2以上" cannot lower that, so
    ``resolution: ordinary`` with ``op: ">="`` at 1/2 or less is refused (DOMAIN.md §5).
    Special resolutions (2/3以上) stay ``>=``."""

    kind: Literal["vote"]
    ratio: Ratio
    op: Literal[">=", ">"] = ">="
    resolution: Literal["ordinary", "special"] = "special"

    @model_validator(mode="after")
    def _company_law(self):
        if self.resolution == "ordinary" and (self.ratio < 0.5 or (self.ratio == 0.5 and self.op == ">=")):
            raise ValueError("an ordinary resolution needs more than half of the votes present (Company Law 2023 "
                             "art. 116, 过半数): use ratio 1/2 with op '>'")
        return self


class WithinMonths(RuleBase):
    """The payout is completed within N months of the AGM."""

    kind: Literal["within_months"]
    months: int = Field(ge=1, le=24)


class Attestation(RuleBase):
    """A fact the user confirms (yes/no). ``field`` names a canonical bool input;
    without it the input is the rule's own attestation cell."""

    kind: Literal["attestation"]
    field: BoolField | None = None


class StLowDividend(RuleBase):
    """Exchange risk warning for low dividends (main board 9.8.1; ChiNext 9.4), DOMAIN.md §5.

    Triggered when, over the last ``window`` fiscal years (fewer for a company listed
    fewer full years), cumulative cash (cash dividends + cancelled buybacks) is both
    below ``ratio`` × average net profit attributable and below the board's floor.
    ``parent_only_boards``: the boards whose exchange's rule text makes only the parent
    company's year-end retained earnings a precondition (the SSE's wording); elsewhere the
    consolidated figure must be positive too (the SZSE's reading).
    """

    kind: Literal["st_low_dividend"]
    first_fiscal_year: int = Field(ge=2000, le=2100)
    window: int = Field(default=3, ge=1, le=5)
    ratio: Ratio
    floor_main: float = Field(ge=0)
    floor_growth: float = Field(ge=0)
    main_boards: list[Board] = Field(min_length=1)
    growth_boards: list[Board] = Field(min_length=1)
    rd_ratio: Ratio
    rd_amount: float = Field(ge=0)
    parent_only_boards: list[Board] = []


class LegalDistributionCap(RuleBase):
    """Company Law (2023) art. 210 ¶4 and art. 211: a distribution only out of the after-tax profit left
    after covering losses and the statutory reserve, sized on the lower of the parent's and the
    consolidated year-end retained earnings (the exchanges' 孰低 practice). The distribution measured is
    the one paid out of the year-end figure: the year's cash and stock dividends less the interim's
    (an interim is paid before the year end and has already left it); buybacks and capital reserve
    conversions are not profit distributions."""

    kind: Literal["legal_distribution_cap"]


class InterimProfitCap(RuleBase):
    """Guideline No. 3 (2023, 上市公司监管指引第3号——上市公司现金分红): the interim dividend authorised by the AGM
    may not exceed the net profit attributable of its period (相应期间). Each of a year's interims (up to
    :data:`xlmodel.fields.INTERIM_SLOTS`) against its own period's figure: its cash at most ``ratio`` × it."""

    kind: Literal["interim_profit_cap"]
    ratio: Ratio = 1.0


#: the amounts the units check may compare with their other years and their neighbours
PlausibleField = Literal["net_profit_attributable", "distributable_profit", "retained_earnings_consolidated",
                         "retained_earnings_parent", "net_profit_parent", "total_assets", "net_assets", "revenue", "cash_dividend"]


class PlausibleAmounts(RuleBase):
    """Amounts a listed company could hardly have in 元 (figures typed in 万元 or 亿元, issue 20): total assets
    below ``assets_floor``; revenue above 0 but below ``revenue_floor``; net assets, net profit attributable
    or a cash dividend not 0 but below ``small`` in size; one of ``jump_fields`` changing ``jump_ratio``
    times or more between two consecutive years of the last ``window``; or, in one of those years, a
    field of ``pairs`` and its neighbour (distributable profit and net profit, retained earnings and net
    assets, the cash dividend and net profit) ``pair_ratio`` times apart or more, either way (issue 47).
    Passes when none holds, or when the case confirms its figures (``amounts_confirmed``). What is
    certain is refused on input instead (:mod:`xlmodel.rules.consistency`)."""

    kind: Literal["plausible_amounts"]
    assets_floor: float = Field(gt=0)
    revenue_floor: float = Field(gt=0)
    small: float = Field(gt=0)
    jump_ratio: float = Field(gt=1)
    jump_fields: list[PlausibleField] = Field(min_length=1)
    pair_ratio: float = Field(default=1000, gt=1)
    pairs: list[tuple[PlausibleField, PlausibleField]] = []
    window: int = Field(default=3, ge=2, le=5)

    @field_validator("pairs")
    @classmethod
    def _pairs_of_two(cls, v):
        if any(a == b for a, b in v) or len(set(map(frozenset, v))) < len(v):
            raise ValueError("每对须为两个不同字段，且不重复 each pair names two different fields, once")
        return v


class SaleRestriction(RuleBase):
    """Controlling shareholders may not sell on the market (DOMAIN.md §5) when the price is below
    net assets per share (破净) or the IPO price (破发) on any of the last 20 trading days, or when
    over the last ``window`` fiscal years no cash dividend was paid or cumulative cash (bidding/tender
    buybacks included) is below ``ratio`` × the average net profit, loss years left out of both."""

    kind: Literal["sale_restriction"]
    window: int = Field(default=3, ge=1, le=5)
    ratio: Ratio


class ConditionsHeld(RuleBase):
    """A cash dividend is paid only while the plan's cash-dividend conditions hold (实施现金分红时应同时满足):
    a payout while one is not met is named (DOMAIN.md §5)."""

    kind: Literal["conditions_held"]


RuleSpec = Annotated[
    Union[Positive, AuditOpinion, Judgment, NoMajorOutlay, Compare, MinCash, MinCashRolling, MinCashPlanPeriod,
          MinDistributions, AnyOf, CashShare, CashPaid, DistributionCap, Vote, WithinMonths, Attestation,
          StLowDividend, LegalDistributionCap, InterimProfitCap, PlausibleAmounts, SaleRestriction, ConditionsHeld],
    Field(discriminator="kind"),
]
CONDITION_KINDS = ("positive", "audit_opinion", "judgment", "no_major_outlay", "compare")
#: kinds that only the regulatory baseline may use (they are not a plan's own terms)
REGULATORY_KINDS = ("st_low_dividend", "sale_restriction", "conditions_held", "legal_distribution_cap",
                    "plausible_amounts", "interim_profit_cap")


def role_of(spec) -> str:
    """A plan rule's role: its own ``role``, else a condition for the condition kinds."""
    return spec.role or ("condition" if spec.kind in CONDITION_KINDS else "requirement")


OutlayBasis = Literal["total_assets", "net_assets", "revenue", "net_profit_attributable"]
#: what a test of a major outlay measures, with the company figures it may be a share of: the planned
#: 12-month outlay, or a figure of a planned transaction as the listing rules' transaction tests word them
#: (交易涉及的资产总额 / 交易标的的营业收入、净利润 / 成交金额 / 交易产生的利润, each against its company figure)
OUTLAY_PAIRS: dict[str, tuple[str, ...]] = {
    "planned_major_outlay": ("total_assets", "net_assets", "revenue"),
    "transaction_total_assets": ("total_assets",),
    "transaction_target_revenue": ("revenue",),
    "transaction_target_net_profit": ("net_profit_attributable",),
    "transaction_amount": ("net_assets",),
    "transaction_profit": ("net_profit_attributable",),
}
OutlayMeasure = Literal[tuple(OUTLAY_PAIRS)]  # type: ignore[valid-type]


class OutlayBranch(_Base):
    """One test of a major outlay: ``measure`` ``op`` ratio × basis, joined (``combine``) with an
    optional amount floor (``measure`` ``floor_op`` floor). 达到或超过 / 以上 → ``>=``; 超过 → ``>``.

    ``measure``: the planned outlay (default), or a planned transaction's own figure against its company
    figure (:data:`OUTLAY_PAIRS`): 交易标的营业收入占最近一年经审计营业收入50%以上且超过3000万元 is
    ``{measure: transaction_target_revenue, basis: revenue, ratio: 0.5, floor: 30000000}``. ``absolute``:
    上述指标涉及的数据如为负值，取其绝对值计算 — the measure and the basis are taken as absolute values."""

    measure: OutlayMeasure = "planned_major_outlay"
    basis: OutlayBasis
    ratio: Ratio
    op: Literal[">=", ">"] = ">="
    floor: float | None = Field(default=None, ge=0)
    floor_op: Literal[">", ">="] = ">"
    combine: Literal["and", "or"] = "and"
    absolute: bool = False

    @model_validator(mode="after")
    def _pair(self):
        _outlay_pair(self.measure, self.basis)
        return self


def _outlay_pair(measure: str, basis: str) -> None:
    if basis not in OUTLAY_PAIRS[measure]:
        allowed = " or ".join(OUTLAY_PAIRS[measure])
        raise ValueError(f"a test measuring {measure} is a share of {allowed}, not of {basis} (the listing rules "
                         "compare each transaction figure with its own company figure)")


class MajorOutlay(_Base):
    """How the plan defines a major investment or cash outlay (重大投资计划或重大现金支出).

    ``formula``: one test (``basis``, ``ratio``, ``ratio_op``, optional ``floor`` with ``floor_op``,
    joined by ``combine``), or ``branches``: several tests, each with its own basis, op and floor, any
    of which makes the outlay major (≥ 30% of net assets OR ≥ 20% of total assets), or — with
    ``branches_combine: all`` — all of which must hold (占净资产50%以上且占总资产30%以上). A branch may
    measure a planned transaction's own figure (the listing rules' transaction tests, :class:`OutlayBranch`)."""

    clause: str
    quote: str
    definition: Literal["board", "formula"]
    basis: OutlayBasis | None = None
    ratio: Ratio | None = None
    ratio_op: Literal[">=", ">"] = ">="
    floor: float | None = Field(default=None, ge=0)
    floor_op: Literal[">", ">="] = ">"
    combine: Literal["and", "or"] = "and"
    branches: list[OutlayBranch] | None = Field(default=None, min_length=2, max_length=6)
    branches_combine: Literal["any", "all"] = "any"

    @model_validator(mode="after")
    def _complete(self):
        single = self.basis is not None or self.ratio is not None or self.floor is not None
        if self.branches is not None:
            if self.definition != "formula":
                raise ValueError("'branches' belong to a formula definition")
            if single:
                raise ValueError("give either 'branches' or one test ('basis', 'ratio', 'floor'), not both")
        elif self.branches_combine != "any":
            raise ValueError("'branches_combine' joins 'branches'; a single test has none")
        elif self.definition == "formula" and (self.basis is None or self.ratio is None):
            raise ValueError("a formula definition needs 'basis' and 'ratio' (or 'branches')")
        elif self.basis is not None:
            _outlay_pair("planned_major_outlay", self.basis)  # a single test measures the planned outlay
        return self

    def summary(self) -> str:
        """One line for ``policies show``: ``≥ 30% of net_assets and > 50,000,000 元`` (OR between branches)."""
        if self.definition != "formula":
            return " (board determination)"
        parts = []
        for t in self.tests():
            one = f"{'≥' if t.op == '>=' else '>'} {t.ratio:.0%} of {t.basis}"
            if t.floor is not None:
                one += f" {t.combine} {'≥' if t.floor_op == '>=' else '>'} {t.floor:,.0f} 元"
            if t.measure != "planned_major_outlay":
                one = f"{t.measure} {one}"
            if t.absolute:
                one += ", absolute values"
            parts.append(one)
        joiner = " AND " if self.branches_combine == "all" else " OR "
        return ", " + joiner.join(f"({x})" if len(parts) > 1 else x for x in parts)

    def tests(self) -> list[OutlayBranch]:
        """The definition's tests (one for a single-test formula)."""
        if self.branches is not None:
            return list(self.branches)
        return [OutlayBranch(basis=self.basis, ratio=self.ratio, op=self.ratio_op, floor=self.floor,
                             floor_op=self.floor_op, combine=self.combine)]


class Settings(_Base):
    regulatory_baseline: str | None = "cn-regulatory-baseline-2024"  # templates/baseline/<id>.yaml, or null
    cash_includes_buybacks: bool = True
    #: which buybacks the plan's cash counts: every bidding/tender buyback (``buyback_amount``), or only
    #: those cancelled (``buyback_cancelled``: 以现金回购股份并注销的，回购金额纳入分红比例计算)
    cash_buyback_basis: Literal["buyback_amount", "buyback_cancelled"] = "buyback_amount"
    retained_earnings_basis: Literal["lower", "consolidated", "parent"] = "lower"
    distribution_includes_stock: bool = True

    @model_validator(mode="after")
    def _buybacks(self):
        if self.cash_buyback_basis != "buyback_amount" and not self.cash_includes_buybacks:
            raise ValueError("'cash_buyback_basis' says which buybacks count: it needs cash_includes_buybacks: true")
        return self


class ClauseEntry(_Base):
    treatment: Literal["computed", "attestation", "informational"]
    note: str | None = None
    rules: list[str] = []  # rules citing a parent clause that implement this one too


class Company(_Base):
    company_name: str
    stock_code: str = Field(pattern=r"^\d{6}$")
    board: Literal[tuple(BOARDS)]  # type: ignore[valid-type]


class Policy(_Base):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    version: str
    title_zh: str
    title_en: str
    company: Company | None = None
    plan_years: tuple[int, int]
    adopted: dt.date | None = None
    text: str | None = None  # plan text file, relative to the policy file's folder and inside it
    settings: Settings = Settings()
    major_outlay: MajorOutlay | None = None
    clauses: dict[str, ClauseEntry]
    rules: list[RuleSpec] = Field(min_length=1)
    #: a draft's review items that belong to no clause or rule (the plan years, the clause numbering):
    #: open while an item carries the mark :data:`REVIEW_MARK` (:func:`open_reviews`)
    review: list[str] = []
    #: where the plan was read from, with its source text and plan text (:func:`policy_source`)
    _source: "PolicySource | None" = PrivateAttr(default=None)

    def company_fields(self) -> dict[str, str]:
        """The company the plan names, as a case's company fields (公司名称, 证券代码, 上市板块); {} when it
        names none. A blank model starts from them (issue 51.1): the plan is that company's."""
        return self.company.model_dump() if self.company else {}

    @model_validator(mode="after")
    def _plan_kinds(self):
        regulatory = [f"{r.id} ({r.kind})" for r in self.rules if r.kind in REGULATORY_KINDS]
        if regulatory:
            raise ValueError(f"rules {', '.join(regulatory)}: these kinds belong to the regulatory baseline "
                             "(templates/baseline), which applies to every plan; a plan file cannot use them")
        return self

    def rule(self, rule_id: str):
        return next(r for r in self.rules if r.id == rule_id)

    @property
    def conditions(self):
        return [r for r in self.rules if role_of(r) == "condition"]

    @property
    def requirements(self):
        return [r for r in self.rules if role_of(r) != "condition"]


#: the mark of an open review item in a drafted plan (a rule's or clause's note, an entry of ``review:``):
#: the item is settled when the reader removes the mark (or writes 已复核 over it), having checked the text
REVIEW_MARK = "待复核"


def open_reviews(policy) -> list[tuple[str, str]]:
    """The plan's open review items, (where, what) in file order: every rule note, clause note and entry of
    ``review:`` that still carries :data:`REVIEW_MARK`. A plan with any is an unreviewed draft: ``policies
    check`` lists them as errors, ``install`` refuses it, and no evaluation under it is a bare pass."""
    out = [(f"review[{i}]", item) for i, item in enumerate(getattr(policy, "review", ()) or ()) if REVIEW_MARK in item]
    out += [(f"rules[{r.id}].note", r.note) for r in policy.rules if r.note and REVIEW_MARK in r.note]
    out += [(f"clauses[{cid}].note", c.note) for cid, c in policy.clauses.items() if c.note and REVIEW_MARK in c.note]
    return out


class LowPayout(_Base):
    """When a payout counts as low for the disclosure duties (DOMAIN.md §5)."""

    ratio: Ratio
    first_fiscal_year: int = Field(ge=2000, le=2100)
    clause: str
    quote: str


class Baseline(_Base):
    """The regulatory layer applied to every plan: rules with their regulation citations."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    version: str
    title_zh: str
    title_en: str
    sources: list[str] = Field(min_length=1)
    low_payout: LowPayout
    clauses: dict[str, ClauseEntry]
    rules: list[RuleSpec] = Field(min_length=1)

    def rule(self, rule_id: str):
        return next(r for r in self.rules if r.id == rule_id)


# ---- loading ------------------------------------------------------------

def _loc(err: dict, data: dict) -> str:
    loc = list(err["loc"])
    parts: list[str] = []
    if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int):
        rules = data.get("rules") or []
        rid = rules[loc[1]].get("id", "?") if loc[1] < len(rules) and isinstance(rules[loc[1]], dict) else "?"
        parts.append(f"rule '{rid}'")
        loc = loc[2:]
        if loc and isinstance(loc[0], str) and loc[0] in _KIND_TAGS:  # pydantic's union branch
            loc = loc[1:]
        if not loc and err.get("type") in ("union_tag_invalid", "union_tag_not_found"):
            loc = ["kind"]
    if loc:
        parts.append("field '" + ".".join(str(x) for x in loc) + "'")
    return ", ".join(parts) or "(top level)"


_KIND_TAGS = {get_args(m.model_fields["kind"].annotation)[0] for m in get_args(get_args(RuleSpec)[0])}


def _share_pairs(policy) -> list[Problem]:
    """A share checked per distribution is a pair: each ``final`` rule has one ``interim`` rule reading it."""
    probs: list[Problem] = []
    shares = {r.id: r for r in policy.rules if r.kind == "cash_share"}
    readers: dict[str, list[str]] = {}
    for r in shares.values():
        if r.distribution != "interim":
            continue
        src = shares.get(r.share_from)
        if src is None or src.distribution != "final":
            probs.append(Problem(f"rule '{r.id}', field 'share_from'",
                                 f"{r.share_from!r} is not a cash_share rule with distribution: final"))
        readers.setdefault(r.share_from, []).append(r.id)
    for r in shares.values():
        if r.distribution == "final" and len(readers.get(r.id, [])) != 1:
            probs.append(Problem(f"rule '{r.id}', field 'distribution'",
                                 "a final-distribution share needs exactly one interim rule reading it "
                                 f"(distribution: interim, share_from: {r.id}); found {len(readers.get(r.id, []))}"))
    return probs


def _cross_check(policy: Policy, plan_text: str | None) -> list[Problem]:
    """Clauses and quotes against the plan text (when it could be read); references between rules."""
    probs: list[Problem] = []
    ids = [r.id for r in policy.rules]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        probs.append(Problem(f"rule '{dup}'", "rule id used more than once"))
    cited: dict[str, set[str]] = {}
    for r in policy.rules:
        if r.clause not in policy.clauses:
            probs.append(Problem(f"rule '{r.id}', field 'clause'", f"clause {r.clause!r} is not listed under 'clauses'"))
        cited.setdefault(r.clause, set()).add(r.kind)
    probs += _group_problems(policy, ids)
    for r in policy.rules:
        if r.kind == "min_cash_plan_period" and r.years is None and hasattr(policy, "plan_years"):
            lo, hi = policy.plan_years
            try:
                _window_ratio(r.ratio, hi - lo + 1, r.basis_mode)
            except ValueError as e:
                probs.append(Problem(f"rule '{r.id}', field 'ratio'", f"{e} (the plan years {lo}–{hi})"))
    probs += _share_pairs(policy)
    needs_outlay = any(r.kind == "no_major_outlay" or (r.kind == "cash_share" and r.table) for r in policy.rules)
    if needs_outlay and getattr(policy, "major_outlay", None) is None:
        probs.append(Problem("field 'major_outlay'", "a rule needs the plan's definition of a major outlay"))
    for cid, entry in policy.clauses.items():
        kinds = set().union(*[k for c, k in cited.items() if c == cid or c.startswith(cid + "、")] or [set()])
        for rid in entry.rules:
            if rid not in ids:
                probs.append(Problem(f"clause {cid}, field 'rules'", f"no rule {rid!r}"))
            else:
                kinds.add(policy.rule(rid).kind)
        if entry.treatment == "computed" and not (kinds - {"attestation"}):
            probs.append(Problem(f"clause {cid}", "marked 'computed' but no computed rule cites it"))
        if entry.treatment == "attestation" and "attestation" not in kinds:
            probs.append(Problem(f"clause {cid}", "marked 'attestation' but no attestation rule cites it"))
        if entry.treatment == "informational" and not entry.note:
            probs.append(Problem(f"clause {cid}", "an informational clause needs a 'note' saying why nothing is checked"))
    if getattr(policy, "text", None) is None or plan_text is None:
        return probs
    clauses = clause_text.parse(plan_text)
    for cid in clauses:
        if cid not in policy.clauses:
            probs.append(Problem(f"clause {cid}", "in the plan text but not accounted for under 'clauses'"))
    for cid in policy.clauses:
        if cid not in clauses:
            probs.append(Problem(f"clause {cid}", "listed under 'clauses' but not in the plan text"))
    quoted = [(f"rule '{r.id}'", r.clause, r.quote) for r in policy.rules]
    if policy.major_outlay is not None:
        quoted.append(("field 'major_outlay'", policy.major_outlay.clause, policy.major_outlay.quote))
    for where, cid, quote in quoted:
        if cid in clauses and clause_text.normalise(quote) not in clause_text.normalise(clause_text.section_text(clauses, cid)):
            probs.append(Problem(f"{where}, field 'quote'", f"not found in the text of clause {cid}"))
    return probs


def _group_problems(policy, ids: list[str]) -> list[Problem]:
    """``any_of`` rules: their alternatives exist, are not groups themselves, belong to one group only and
    share one role, which is the group's."""
    probs: list[Problem] = []
    owner: dict[str, str] = {}
    for g in [r for r in policy.rules if r.kind == "any_of"]:
        where = f"rule '{g.id}', field 'rules'"
        if len(set(g.rules)) != len(g.rules):
            probs.append(Problem(where, "an alternative is listed twice"))
        roles = set()
        for rid in g.rules:
            if rid == g.id or rid not in ids:
                probs.append(Problem(where, f"no rule {rid!r} (other than this one) to be an alternative"))
                continue
            m = policy.rule(rid)
            if m.kind == "any_of":
                probs.append(Problem(where, f"{rid!r} is itself an any_of: list its alternatives here instead"))
            if rid in owner:
                probs.append(Problem(where, f"{rid!r} is already an alternative of {owner[rid]!r}"))
            owner[rid] = g.id
            roles.add(role_of(m))
        if len(roles) > 1:
            probs.append(Problem(where, "the alternatives mix conditions and requirements"))
        elif roles and role_of(g) not in roles:
            want = roles.pop()
            probs.append(Problem(f"rule '{g.id}', field 'role'", f"its alternatives are {want}s: give role: {want}"))
    return probs


#: a plan id, as case files, workbooks, batch files and worksheet functions name a plan
POLICY_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")


# ---- plan texts ---------------------------------------------------------
#
# A policy's ``text:`` names its published plan text relative to the policy file's own folder
# (``texts/<id>.txt`` beside the bundled plans), and only inside it: no absolute path, no ``..``,
# no symbolic link out of the folder. The text is read once, with the policy, and kept with it
# (:func:`plan_text`), so every use (the quote check, the workbook's plan-text sheet,
# ``policies show``, the copy a workbook carries) sees the same text.

class PlanTextError(Exception):
    """Why a policy's ``text:`` cannot be used (the message, without the policy file's name)."""


def text_ref_problem(ref) -> str | None:
    """Why ``ref`` cannot be a policy's ``text:``, or None."""
    if not isinstance(ref, str) or not ref.strip():
        return "expected the plan text's file name, relative to the policy file (e.g. texts/<id>.txt)"
    if any(ord(c) < 32 or c == "\x7f" for c in ref):
        return "a control character in the path"
    if "\\" in ref:
        return f"{_shown(ref)}: write the path with '/', relative to the policy file's folder"
    if ref.startswith("/") or PureWindowsPath(ref).drive or PurePosixPath(ref).is_absolute():
        return (f"{_shown(ref)} is an absolute path; the plan text must lie in the policy file's folder, named "
                "relative to it (e.g. texts/<id>.txt)")
    parts = ref.split("/")
    if ".." in parts:
        return (f"{_shown(ref)} leaves the policy file's folder ('..'); the plan text must lie in that folder "
                "(e.g. texts/<id>.txt)")
    if ref.endswith("/") or all(p in ("", ".") for p in parts):
        return f"{_shown(ref)} is a folder, not a file name"
    return None


def read_plan_text(folder: Path, ref: str) -> tuple[Path, str]:
    """(path, text) of the plan text ``ref`` of a policy file in ``folder``; :class:`PlanTextError` if it
    is not a relative path inside the folder, leads out of it through a symbolic link, or is not a
    regular UTF-8 file of at most :data:`~xlmodel.inputs.untrusted.MAX_PLAN_TEXT_BYTES`."""
    from ..inputs.untrusted import MAX_PLAN_TEXT_BYTES, NO_SUCH_FILE, InputFileError, decode_utf8, read_regular

    why = text_ref_problem(ref)
    if why:
        raise PlanTextError(why)
    try:
        root = Path(folder).resolve()
        path = root / ref
        real = path.resolve()
    except (OSError, RuntimeError, ValueError) as e:  # a symbolic link loop
        raise PlanTextError(f"规划原文路径无法解析 plan text {_shown(ref)} cannot be resolved ({type(e).__name__})") from None
    if not real.is_relative_to(root):
        raise PlanTextError(f"规划原文是指向规划文件夹之外的符号链接，拒绝读取 plan text {path} is a symbolic link out of the policy file's folder; refused")
    try:
        return path, decode_utf8(read_regular(real, MAX_PLAN_TEXT_BYTES, "plan text"), str(path))
    except InputFileError as e:
        if e.message == NO_SUCH_FILE:
            raise PlanTextError(f"找不到规划原文 plan text {path} not found") from None
        raise PlanTextError(f"规划原文无法读取 plan text {path}: {e.message}") from None


@dataclass(frozen=True)
class PolicySource:
    """Where a loaded plan came from: its policy file's text, and its plan text if it names one."""

    yaml: str  #: the policy file as read
    path: Path | None = None  #: the policy file; None for a plan read from a workbook
    text_ref: str | None = None  #: the policy's ``text:``
    text: str | None = None  #: the plan text
    text_path: Path | None = None  #: the plan text's file (None for a plan read from a workbook)
    workbook: str | None = None  #: the workbook a plan was read from
    fingerprint: str = ""  #: of the policy as loaded (:func:`fingerprint`): a changed copy is not this file

    @property
    def file_name(self) -> str:
        return self.path.name if self.path is not None else ""


def fingerprint(policy) -> str:
    """sha256 of a policy's content (its fields as JSON)."""
    import hashlib

    return hashlib.sha256(policy.model_dump_json().encode("utf-8")).hexdigest()


def policy_source(policy, *, unchanged: bool = False) -> PolicySource | None:
    """The :class:`PolicySource` of a loaded policy (None for one built in code). ``unchanged``: None
    also for a copy changed in code (``policy.model_copy(update=…)`` keeps the source of a file it no
    longer is), e.g. before a workbook carries the file as the plan it was built with."""
    src = getattr(policy, "_source", None)
    if src is not None and unchanged and fingerprint(policy) != src.fingerprint:
        return None
    return src


def plan_text(policy) -> str | None:
    """The published plan text of a loaded policy (None when it names none), as read with the policy."""
    src = policy_source(policy)
    return src.text if src is not None else None


def plan_clauses(policy) -> dict[str, str]:
    """Clause id -> the clause's own lines of the policy's plan text (empty when it has none).

    The one reading of ``text:`` for every use (the workbook's plan-text sheet, ``policies show``):
    relative to the policy file's folder, or the text a workbook carried."""
    text = plan_text(policy)
    if text is None:
        return {}
    return {k: c.text for k, c in clause_text.parse(text).items()}


# ---- loading ------------------------------------------------------------

def _parse_policy(text: str, source: str, schema, folder: Path | None, *, path: Path | None = None,
                  carried_text: str | None = None, workbook: str | None = None):
    """A policy from its source ``text``: every problem at once (schema, plan text, cross-references).

    ``folder``: where its ``text:`` is looked up (a policy file's folder); for a plan read from a
    workbook (``workbook`` set) the plan text is the one it carried, ``carried_text``."""
    policy, _data, problems = _validate_policy(text, source, schema, folder, path=path, carried_text=carried_text,
                                               workbook=workbook)
    if problems:
        raise PolicyError(source, problems)
    return policy


def _validate_policy(text: str, source: str, schema, folder: Path | None, *, path: Path | None = None,
                     carried_text: str | None = None, workbook: str | None = None):
    """(the schema-valid policy or None, the file's data, every problem) of a policy's source ``text``;
    a :class:`PolicyError` only for a file that is not a policy file at all. The policy carries its
    :class:`PolicySource` (only meaningful when there are no problems)."""
    from ..inputs.untrusted import InputFileError, PlainIntLoader, load_yaml

    try:
        data = load_yaml(text, source, quote_problem=False, loader_class=PlainIntLoader)
    except InputFileError as e:
        raise PolicyError(source, [Problem(e.where or "(file)", e.message)]) from None
    if not isinstance(data, dict) or "id" not in data or "rules" not in data:
        raise PolicyError(source, [Problem("(file)", "not a policy file (a policy file is a YAML mapping with "
                                                    "'id', 'rules' and 'clauses'; see templates/)")])
    problems: list[Problem] = []
    policy = None
    try:
        policy = schema.model_validate(data)
    except ValidationError as e:
        problems += [Problem(_loc(err, data), err["msg"].removeprefix("Value error, ")) for err in e.errors()]
    ref = data.get("text") if schema is Policy else None
    body = text_path = None
    if isinstance(ref, str):
        if workbook is not None:
            why = text_ref_problem(ref)
            if why:
                problems.append(Problem("field 'text'", why))
            elif carried_text is None:
                problems.append(Problem("field 'text'", f"the workbook does not carry the plan text {_shown(ref)}"))
            else:
                body = carried_text
        else:
            try:
                text_path, body = read_plan_text(folder, ref)
            except PlanTextError as e:
                problems.append(Problem("field 'text'", str(e)))
    if policy is not None:
        problems += _cross_check(policy, body)
    if isinstance(policy, Policy):
        policy._source = PolicySource(text, path, ref if isinstance(ref, str) else None, body, text_path, workbook,
                                      fingerprint(policy))
    return policy, data, problems


def load_policy_file(path: str | Path, schema=None) -> Policy:
    """A policy file by path: for the command line and the Python API only.

    Input files never reach this with a path of their own: they name plans by id
    (:func:`load_plan_by_id`). Nothing of a file that does not load as a policy is
    quoted: a YAML error gives its line and column, a file whose top level is not
    a mapping with ``id`` and ``rules`` is "not a policy file". Its ``text:`` is read
    relative to the file's own folder, and only inside it (:func:`read_plan_text`)."""
    from ..inputs.untrusted import MAX_POLICY_BYTES, InputFileError, decode_utf8, read_regular

    schema = schema or Policy
    path = Path(path)
    try:
        text = decode_utf8(read_regular(path, MAX_POLICY_BYTES, "policy file"), str(path))
    except InputFileError as e:
        raise PolicyError(str(path), [Problem(e.where or "(file)", e.message)]) from None
    try:
        folder = path.resolve().parent
    except (OSError, RuntimeError):
        folder = path.parent
    return _parse_policy(text, str(path), schema, folder, path=path)


def policy_from_workbook(yaml_text: str, plan_text_: str | None, workbook: str, file_name: str = "") -> Policy:
    """A plan carried inside a workbook (:mod:`xlmodel.workbook.embed`), validated like a policy file
    with the plan text it carried. Errors name the workbook and the carried file."""
    source = f"{workbook} (the plan it carries{', ' + _shown(file_name) if file_name else ''})"
    return _parse_policy(yaml_text, source, Policy, None, carried_text=plan_text_, workbook=workbook)


# ---- plan directories: xlmodel/plans/folders.py (no pydantic: `xlmodel policies` may list from its cache) ----

from .folders import BUNDLED, PlanDir, plan_directories  # noqa: E402 - beside what uses them


@dataclass(frozen=True)
class PlanFile:
    """A ``<id>.yaml`` in a plan folder; ``problem`` says why it is refused (not a regular file, a
    symbolic link out of the folder)."""

    id: str
    path: Path
    folder: PlanDir
    problem: str | None = None

    @property
    def origin(self) -> str:
        """bundled, or where it comes from: ``user: PATH``, ``--plans: PATH``, ``XLMODEL_PLANS: PATH``."""
        return BUNDLED if self.folder.origin == BUNDLED else f"{self.folder.origin}: {self.path}"


def _refusal(root: Path, path: Path) -> str | None:
    """Why ``path`` (an entry of the plan folder ``root``, resolved) is not used as a plan, or None."""
    from ..inputs.untrusted import file_kind

    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError):
                return "a symbolic link to nothing (or a loop); refused"
            if not real.is_relative_to(root):
                return "a symbolic link to a file outside its plan folder; refused (a plan folder holds its plans)"
            st = os.stat(real)
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    if not stat.S_ISREG(st.st_mode):
        return f"is {file_kind(st.st_mode)}, not a policy file; refused"
    return None


def plan_files() -> dict[str, list[PlanFile]]:
    """Every ``<id>.yaml`` of the plan folders, by id (several files for an id that is defined twice)."""
    out: dict[str, list[PlanFile]] = {}
    seen: set[Path] = set()
    for d in plan_directories():
        try:
            root = d.path.resolve(strict=True)
            names = sorted(os.listdir(root)) if root.is_dir() else []
        except (OSError, RuntimeError):
            continue  # a folder that does not exist (or cannot be listed) is skipped
        if root in seen:
            continue  # the same folder named twice
        seen.add(root)
        for name in names:
            stem = name[:-5] if name.endswith(".yaml") else ""
            if stem and POLICY_ID.fullmatch(stem):
                out.setdefault(stem, []).append(PlanFile(stem, d.path / name, d, _refusal(root, root / name)))
    return out


def policy_paths(directory: Path | None = None) -> dict[str, Path]:
    """Plan id -> file, over :func:`plan_directories` (or one ``directory``)."""
    if directory is not None:
        return {p.stem: p for p in sorted(Path(directory).glob("*.yaml")) if POLICY_ID.fullmatch(p.stem) and p.is_file()}
    return {pid: files[0].path for pid, files in sorted(plan_files().items())}


@lru_cache(maxsize=64)
def _load_cached(path: Path, stamp) -> Policy:
    """A policy file, loaded again when ``stamp`` (its modification time, size and inode) changes."""
    return load_policy_file(path)


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _shown(ref) -> str:
    r = repr(ref)
    return r if len(r) <= 80 else r[:79] + "…"


def _duplicate(pid: str, files: list[PlanFile]) -> XlmodelError:
    where = "; ".join(f"{f.path} ({'bundled' if f.folder.origin == BUNDLED else f.folder.origin})" for f in files)
    bundled = any(f.folder.origin == BUNDLED for f in files)
    fix = ("a bundled plan cannot be replaced: give your plan another id (and file name)" if bundled
           else "remove or rename all but one")
    return AmbiguousPolicyError(f"规划 ID {pid!r} 由 {len(files)} 个文件定义，xlmodel 不作猜测，一个也不用 — "
                                f"plan id {pid!r} is defined by {len(files)} files: {where}; xlmodel uses none of them "
                              f"rather than guess: {fix}")


def find_plan(pid) -> PlanFile:
    """The :class:`PlanFile` of plan ``pid`` in :func:`plan_directories`; :class:`UnknownPolicyError` (with
    "did you mean") if none, or if two files define it; :class:`PolicyError` naming the file if it is
    refused (a FIFO, a symbolic link out of its folder)."""
    from ..inputs.untrusted import did_you_mean

    if not isinstance(pid, str) or not POLICY_ID.fullmatch(pid):
        hint = did_you_mean(pid.strip().lower(), policy_paths()) if isinstance(pid, str) else ""
        raise UnknownPolicyError(f"不是规划 ID {_shown(pid)} is not a policy id (lowercase letters, digits and hyphens, e.g. "
                                 f"gcl-energy-2022-2024; see `xlmodel policies`){hint}; a plan is named by its id, "
                                 "never by a path")
    files = plan_files()
    found = files.get(pid)
    if not found:
        raise UnknownPolicyError(f"未知的规划 unknown policy {pid!r}{did_you_mean(pid, files)}; known: {', '.join(sorted(files)) or 'none'}")
    if len(found) > 1:
        raise _duplicate(pid, found)
    if found[0].problem:
        raise PolicyError(str(found[0].path), [Problem("(file)", found[0].problem)])
    return found[0]


def load_plan_by_id(pid) -> Policy:
    """A plan by id, for every id that comes from an input (a case's ``policy:``, a workbook's
    ``xlmodel_policy`` property, a batch ``policy`` column, a worksheet function's argument).

    Matched against the plan directories (:func:`plan_directories`: the bundled plans, --plans or
    XLMODEL_PLANS, the user's), never a path, never relative to the working directory. The folders
    are searched on every call (a file's parse is kept while the file is unchanged);
    :func:`xlmodel.evaluator.cached_plan_by_id` remembers the answer per id."""
    path = find_plan(pid).path
    real = path.resolve()  # (a symbolic link inside its folder: checked by find_plan)
    policy = _load_cached(real, _stamp(real.stat()))
    if policy.id != path.stem:
        raise PolicyError(str(path), [Problem("field 'id'", f"{policy.id!r} does not match the file name {path.stem!r}")])
    return policy


def load_policy(ref: str | Path) -> Policy:
    """For the command line and the Python API: a plan by id, or a policy file by path.

    A string that looks like an id (:data:`POLICY_ID`) is an id; a :class:`~pathlib.Path`
    or any other string is a path. Ids from input files go through :func:`load_plan_by_id`."""
    if isinstance(ref, str) and POLICY_ID.fullmatch(ref):
        return load_plan_by_id(ref)
    p = Path(ref)
    if isinstance(ref, str) and not ref.lower().endswith((".yaml", ".yml")) and "/" not in ref and "\\" not in ref \
            and not p.is_file():
        return load_plan_by_id(ref)  # neither an id nor a file: say so, with "did you mean"
    try:
        st = p.stat()
    except (OSError, ValueError):
        return load_policy_file(p)  # it names the problem
    if not stat.S_ISREG(st.st_mode):
        return load_policy_file(p)
    return _load_cached(p.resolve(), _stamp(st))


BASELINES = TEMPLATES / "baseline"


def load_baseline(baseline_id: str) -> Baseline:
    if not isinstance(baseline_id, str) or not POLICY_ID.fullmatch(baseline_id):
        raise UnknownPolicyError(f"不是监管底线 ID {_shown(baseline_id)} is not a regulatory baseline id (lowercase letters, digits "
                                 "and hyphens)")
    path = BASELINES / f"{baseline_id}.yaml"
    if not path.is_file():
        raise UnknownPolicyError(f"未知的监管底线 unknown regulatory baseline {baseline_id!r} (no {path})")
    return _load_baseline_cached(path, path.stat().st_mtime)


@lru_cache(maxsize=8)
def _load_baseline_cached(path: Path, mtime: float) -> Baseline:
    return load_policy_file(path, Baseline)


def list_plans_or_raise() -> list[Policy]:
    """Every plan of the plan folders, loaded; the first that does not load raises its error
    (:func:`xlmodel.plan_install.list_plans_with_errors` collects the errors instead)."""
    return [load_policy(pid) for pid in policy_paths()]
