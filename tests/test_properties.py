"""Properties of the evaluator over arbitrary valid input (hypothesis)."""

from __future__ import annotations

import copy
import datetime as dt

from hypothesis import HealthCheck, example, given, settings, strategies as st

from xlmodel.case import parse_case
from xlmodel.rules.model import STATUSES
from xlmodel.evaluator import evaluate, model_for
from xlmodel.synth import make_consistent

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
        "agm_date": draw(m(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2200, 12, 31)).map(lambda d: d.isoformat()))),
        "payout_date": draw(m(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2200, 12, 31)).map(lambda d: d.isoformat()))),
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
    make_consistent(data)  # what contradicts itself is refused on input (tests/test_plausibility.py)
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
    make_consistent(data)  # what contradicts itself is refused on input (tests/test_plausibility.py)
    before = evaluate(parse_case(data))
    after = _with_cash(data, data["years"][-1].get("cash_dividend", 0.0) + more)
    for b, a in zip(before.rules, after.rules):
        if b.kind in MINIMUM_KINDS + ("cash_paid",) and b.status == "pass":
            assert a.status == "pass", (b.id, b, a)


def _binding_minimum(r) -> bool:
    """A rule the minimum cash dividend must meet: the quantitative minimums, and a cash_paid duty of
    severity fail (Far East 四、1), which asks for one fen when it applies (DOMAIN §4)."""
    return r.kind in MINIMUM_KINDS or (r.kind == "cash_paid" and r.severity == "fail")


def _far_east_one_fen_case() -> dict:
    """Conditions met, rolling minimum already covered by 2022–2023, no stock dividend: the only
    minimum is 四、1's one fen (any positive cash when distributing)."""
    years = []
    for y, dp, cash in ((2022, 100_000_000.0, 30_000_000.0), (2023, 100_000_000.0, 30_000_000.0),
                        (2024, 100_000_000.0, 20_000_000.0)):
        years.append({
            "fiscal_year": y, "net_profit_attributable": 150_000_000.0, "distributable_profit": dp,
            "retained_earnings_consolidated": 500_000_000.0, "retained_earnings_parent": 400_000_000.0,
            "total_assets": 2_000_000_000.0, "net_assets": 1_000_000_000.0, "planned_major_outlay": 0.0,
            "major_outlay_planned": False, "development_stage": "mature", "audit_opinion": "standard_unqualified",
            "going_concern_unaffected": True, "cash_flow_sufficient": True, "cash_dividend": cash,
            "buyback_amount": 0.0, "stock_dividend": 0.0, "capital_reserve_conversion": 0.0, "vote_for_ratio": 0.9,
            "online_voting_offered": True, "independent_directors_opinion": True,
            "agm_date": f"{y + 1}-05-20", "payout_date": f"{y + 1}-06-20"})
    pid = "far-east-2022-2024"
    return {"policy": pid, "evaluation_year": YEAR, "years": years,
            "attestations": {rid: True for rid in model_for(pid).attestation_ids()}}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(full=True))
@example(_far_east_one_fen_case())
def test_min_cash_dividend_is_exactly_enough(data):
    make_consistent(data)  # what contradicts itself is refused on input (tests/test_plausibility.py)
    """Paying the minimum passes every minimum it stands for; one fen less fails one — or, for a
    minimum of one fen that only 四、1 sets, leaves no distribution at all (the duty no longer applies)."""
    data["years"][-1]["buyback_amount"] = 0.0  # this year's cash is then the cash dividend alone
    rep = evaluate(parse_case(data))
    if rep.min_cash_dividend is None:
        return
    exact = _with_cash(data, rep.min_cash_dividend)
    assert exact.min_cash_dividend == rep.min_cash_dividend  # paying the minimum does not move it
    assert all(r.status in ("pass", "not_applicable") for r in exact.rules if _binding_minimum(r)), \
        [(r.id, r.status, r.actual, r.required) for r in exact.rules if _binding_minimum(r)]
    if rep.min_cash_dividend > 0:
        short = _with_cash(data, round(rep.min_cash_dividend - 0.01, 2))
        if any(r.status == "fail" for r in short.rules if _binding_minimum(r)):
            return
        # the one-fen case: 0.00 cash and no stock dividend is no distribution, so 四、1 is not applicable
        assert rep.min_cash_dividend == 0.01
        assert any(r.kind == "cash_paid" and r.severity == "fail" and r.status == "not_applicable"
                   and r.reason == "na_no_distribution" for r in short.rules)
