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
import re
from typing import Literal, get_args

from pydantic import Field, PrivateAttr, model_validator

from . import clauses as clause_text  # the module; plan_clauses() below gives a policy's clauses
from ..errors import Problem
from ..fields import BOARDS
from .text import plan_text
from .rule_kinds import REGULATORY_KINDS, Ratio, RuleSpec, _Base, _window_ratio, role_of


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


# ---- conditions ---------------------------------------------------------


# ---- requirements -------------------------------------------------------


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


# ---- plan texts ---------------------------------------------------------
#
# A policy's ``text:`` names its published plan text relative to the policy file's own folder
# (``texts/<id>.txt`` beside the bundled plans), and only inside it: no absolute path, no ``..``,
# no symbolic link out of the folder. The text is read once, with the policy, and kept with it
# (:func:`plan_text`), so every use (the quote check, the workbook's plan-text sheet,
# ``policies show``, the copy a workbook carries) sees the same text.


# ---- loading ------------------------------------------------------------


# ---- plan directories: xlmodel/plans/folders.py (no pydantic: `xlmodel policies` may list from its cache) ----
