"""The schema of a plan's rules: the field types (measures, ratios, yes/no fields), the base model that checks
every text, and one class per rule kind (RuleSpec, their union; which kinds are conditions or regulatory).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from ..fields import BOARDS, FIELDS, HALF_YEAR_OPINIONS, Kind
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
