"""An evaluated case → the announcement's figures (:class:`Figures`).

The case is evaluated once, with its plan or, without one, on the regulatory baseline alone (the
batch's screen, :func:`xlmodel.batch.screen_model`); the figures are the values of the model's own
calculations (``reg_st_low_dividend.*``, ``proposal.*``) and the report's verdicts, read, never
recomputed. The three years' own figures (each year's cash dividend, cancelled buybacks, net profit)
are the case's inputs as the model reads them (blank → 0 where the field defaults to 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from ..case import Case
from ..rules.model import Model
from ..rules.expr import py
from ..plans.schema import Policy
from ..report import Report
from ..report.build import build_report, report_roots
from .rows import LINES, TRIGGERS

#: the risk-warning rule's calculations the announcement reads besides the table's (catalogue.k_st_low_dividend)
ST_CALCS = ("profit_required", "floor", "years", "first_full_year", "exempt", "in_scope", "needed")
#: the proposal's calculations (catalogue._proposal)
PROPOSAL_CALCS = ("base", "total", "year_total", "matches", "payout", "cash_with_buybacks", "payout_with_buybacks", "required", "min_per_10")
#: the proposal's inputs, as the case gives them
PROPOSAL_INPUTS = ("cash_per_10_shares", "base_share_count", "buyback_account_shares", "base_change_keeps",
                   "interim_cash_dividend", "buyback_amount", "buyback_cancelled", "cash_dividend")


@dataclass
class Figures:
    """Everything the announcement prints, as numbers and verdicts (render them with :mod:`.render`)."""

    company: dict
    board: str | None
    year: int
    years: list[int]  # the table's columns: 本年度, 上年度, 上上年度
    counted: list[bool]  # each column counted in the window (listed under three full years: not all)
    st: dict  # the risk-warning rule's calculations by their name under the rule (y0.dividends, cash, …), status, reason
    triggers: str | None  # the table's last line: 是, 否, or None (无法判断)
    proposal: dict  # PROPOSAL_CALCS and PROPOSAL_INPUTS
    report: Report
    screen: bool  # no plan: the regulatory baseline alone
    plan_title: str = ""  # the plan's Chinese title ("" on the baseline alone)
    notes: list[str] = field(default_factory=list)

    @property
    def st_rule(self):
        return self.report.st_rule

    def ratio_percent(self, ratio: float | None) -> float | None:
        """A ratio as the announcement prints it: per cent to two decimals, half away from zero."""
        if ratio is None:
            return None
        return float(Decimal(repr(ratio * 100)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _model(policy: Policy | None) -> Model:
    if policy is None:
        from ..batch.prepare import screen_model

        return screen_model(attestations=True)[0]
    from ..evaluator import model_for

    return model_for(policy)


def _reader(env):
    values, index = getattr(env, "values", None), getattr(env, "index", None)
    if values is not None and index is not None:
        return lambda name: py(values[index[name]])
    return lambda name: py(env.calc(name, None)[0])


def evaluate_case(case: Case, policy: Policy | None, params: dict | None = None):
    """(model, report, value of a calculation by name): the case evaluated with the announcement's calculations."""
    from ..evaluator import _check_attestations, evaluate_one

    model = _model(policy)
    if policy is not None:
        _check_attestations(case, model)
    st_id = _st_id(model)
    names = [f"{st_id}.{k}" for k in _st_names()] if st_id else []
    names += [f"proposal.{k}" for k in PROPOSAL_CALCS] + [TRIGGERS]
    roots = report_roots(model) + tuple((n, 0) for n in names if n in model.scalars)
    env = evaluate_one(model, case, params, roots)
    return model, build_report(model, env, 0, case), _reader(env)


def _st_id(model: Model) -> str | None:
    return next((r.id for r in model.rules if r.spec.kind == "st_low_dividend"), None)


def figures_for(case: Case, policy: Policy | None, params: dict | None = None) -> Figures:
    """The announcement's figures of ``case`` under ``policy`` (None: the regulatory baseline alone)."""
    model, rep, val = evaluate_case(case, policy, params)
    ey = case.evaluation_year
    years = [ey, ey - 1, ey - 2]
    st_id = _st_id(model)
    st: dict = {}
    if st_id is not None:
        st = {k: val(f"{st_id}.{k}") for k in _st_names()}
        r = rep.st_rule
        st.update(status=r.status, reason=r.reason, rule_id=r.id, clause=r.clause)
    first = st.get("first_full_year")
    counted = [first is not None and y >= first for y in years]
    proposal = {k: val(f"proposal.{k}") for k in PROPOSAL_CALCS}
    proposal.update({k: case.value(k, ey) for k in PROPOSAL_INPUTS})
    verdict = val(TRIGGERS) if TRIGGERS in model.scalars else "undetermined"
    return Figures(
        company=dict(rep.company), board=case.company.get("board"), year=ey, years=years, counted=counted, st=st,
        triggers={"yes": "是", "no": "否"}.get(verdict), proposal=proposal, report=rep, screen=policy is None,
        plan_title="" if policy is None else (policy.title_zh or policy.id))


def _st_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys(ST_CALCS + tuple(c for ln in LINES for c in ln.calcs)))
