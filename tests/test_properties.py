"""Properties of the evaluator over arbitrary valid input (hypothesis)."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings, strategies as st

from xlmodel.case import parse_case
from xlmodel.catalogue import STATUSES
from xlmodel.evaluator import evaluate, model_for

POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
MINIMUM_KINDS = ("min_cash", "min_cash_rolling", "cash_share")
YEAR = 2024

fen = st.integers(min_value=-10**13, max_value=10**14).map(lambda x: x / 100)
amount = st.one_of(st.just(0.0), fen, st.integers(0, 10**9).map(float))
pos = st.one_of(st.just(0.0), st.integers(0, 10**14).map(lambda x: x / 100))


def maybe(s, p_none=True):
    return st.one_of(st.none(), s) if p_none else s


@st.composite
def year_values(draw, year: int, full: bool):
    m = (lambda s: maybe(s)) if not full else (lambda s: s)
    v = {
        "fiscal_year": year,
        "net_profit_attributable": draw(m(amount)),
        "distributable_profit": draw(m(amount)),
        "retained_earnings_consolidated": draw(m(amount)),
        "retained_earnings_parent": draw(m(amount)),
        "total_assets": draw(m(pos)),
        "net_assets": draw(m(pos)),
        "planned_major_outlay": draw(m(pos)),
        "major_outlay_planned": draw(m(st.booleans())),
        "development_stage": draw(m(st.sampled_from(["mature", "growth", "indeterminate"]))),
        "audit_opinion": draw(m(st.sampled_from(["standard_unqualified", "unqualified_with_emphasis", "qualified"]))),
        "going_concern_unaffected": draw(m(st.booleans())),
        "cash_flow_sufficient": draw(m(st.booleans())),
        "cash_dividend": draw(maybe(pos)),
        "buyback_amount": draw(maybe(pos)),
        "stock_dividend": draw(maybe(st.one_of(st.just(0.0), pos))),
        "capital_reserve_conversion": draw(maybe(st.just(0.0) | pos)),
        "vote_for_ratio": draw(m(st.sampled_from([0.0, 0.5, 2 / 3, 0.4999, 1.0]))),
        "online_voting_offered": draw(m(st.booleans())),
        "independent_directors_opinion": draw(m(st.booleans())),
        "agm_date": draw(m(st.dates().map(lambda d: d.isoformat()))),
        "payout_date": draw(m(st.dates().map(lambda d: d.isoformat()))),
    }
    return {k: x for k, x in v.items() if x is not None}


@st.composite
def cases(draw, full: bool = False):
    pid = draw(st.sampled_from(POLICIES))
    years = [draw(year_values(y, full)) for y in range(YEAR - 2, YEAR + 1)]
    att = {rid: draw(st.booleans()) for rid in model_for(pid).attestation_ids()}
    return {"policy": pid, "evaluation_year": YEAR, "years": years, "attestations": att}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_never_crashes_and_results_are_well_formed(data):
    rep = evaluate(parse_case(data))
    assert rep.overall_status in STATUSES
    assert all(r.status in STATUSES for r in rep.rules)
    assert rep.min_cash_dividend is None or rep.min_cash_dividend >= 0
    assert rep.max_distribution is None or rep.max_distribution >= 0
    assert rep.cash_conditions_met in (True, False, None)
    for r in rep.rules:
        if r.shortfall is not None:
            assert r.shortfall >= 0


def _with_cash(data, cash):
    d = copy.deepcopy(data)
    d["years"][-1]["cash_dividend"] = cash
    return evaluate(parse_case(d))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.integers(1, 10**13).map(lambda x: x / 100))
def test_paying_more_cash_never_turns_a_minimum_from_pass_to_fail(data, more):
    before = evaluate(parse_case(data))
    after = _with_cash(data, data["years"][-1].get("cash_dividend", 0.0) + more)
    for b, a in zip(before.rules, after.rules):
        if b.kind in MINIMUM_KINDS + ("cash_paid",) and b.status == "pass":
            assert a.status == "pass", (b.id, b, a)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(full=True))
def test_min_cash_dividend_is_exactly_enough(data):
    """Paying the minimum passes every quantitative minimum; one fen less fails one."""
    data["years"][-1]["buyback_amount"] = 0.0  # this year's cash is then the cash dividend alone
    rep = evaluate(parse_case(data))
    if rep.min_cash_dividend is None:
        return
    exact = _with_cash(data, rep.min_cash_dividend)
    assert exact.min_cash_dividend == rep.min_cash_dividend  # cash does not move the requirement
    assert all(r.status in ("pass", "not_applicable") for r in exact.rules if r.kind in MINIMUM_KINDS), \
        [(r.id, r.status, r.actual, r.required) for r in exact.rules if r.kind in MINIMUM_KINDS]
    if rep.min_cash_dividend > 0:
        short = _with_cash(data, round(rep.min_cash_dividend - 0.01, 2))
        assert any(r.status == "fail" for r in short.rules if r.kind in MINIMUM_KINDS)
