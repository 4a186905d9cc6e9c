"""The batch path (pandas, vectorised) gives the same numbers as the single-case path."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from xlmodel.batch import evaluate_batch
from xlmodel.case import Case
from xlmodel.errors import CaseError
from xlmodel.evaluator import evaluate
from xlmodel.synth import cases_frame as frame, parity_cases, synthetic_code

POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")


def _eq(a, b) -> bool:
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def _plain(v):
    """A result cell as the report gives it: None for blank, dates as ISO text, numpy scalars as Python."""
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return v.isoformat() if isinstance(v, dt.date) else v


@pytest.fixture(scope="module")
def mixed():
    cases = [c for pid in POLICIES for c in parity_cases(pid, 40, seed=7)]
    return cases, evaluate_batch(frame(cases))


def test_every_row_equals_the_single_case_path(mixed):
    cases, out = mixed
    assert len(out) == sum(len(c.years) for c in cases)
    checked = 0
    for i, c in enumerate(cases):
        for y in c.years:
            single = evaluate(Case(c.policy, y, c.company, c.years,
                                   c.attestations if y == c.evaluation_year else {}))
            row = out[(out.stock_code == synthetic_code(i)) & (out.fiscal_year == y)].iloc[0]
            assert row.policy == c.policy
            for k in ("overall_status", "min_cash_dividend", "max_distribution", "fail_count", "warn_count",
                      "missing_input_count", "cash_needed_to_avoid_st"):
                assert _eq(single.to_dict()[k], None if pd.isna(row[k]) else row[k]), (c.source, y, k)
            st = row["st_risk_warning"]
            assert single.st_risk_warning == (None if st is None or (isinstance(st, float) and math.isnan(st)) else bool(st))
            cond = row["cash_conditions_met"]
            assert single.cash_conditions_met == (None if cond is None or (isinstance(cond, float) and math.isnan(cond)) else bool(cond))
            for r in single.rules:
                assert row[f"{r.id}.status"] == r.status, (c.source, y, r.id)
                # actual, bound and margin as the report has them; a shortfall only where the rule falls short
                for part, want in (("actual", r.actual), ("bound", r.required), ("margin", r.margin)):
                    if f"{r.id}.{part}" in row:
                        assert _eq(want, _plain(row[f"{r.id}.{part}"])), (c.source, y, r.id, part)
                if f"{r.id}.shortfall" in row:
                    want = r.shortfall if r.status in ("fail", "not_met", "warn") else None
                    assert _eq(want, _plain(row[f"{r.id}.shortfall"])), (c.source, y, r.id, "shortfall")
            checked += 1
    assert checked == len(out)


def test_history_comes_from_the_same_company_only():
    base = {"policy": "gcl-energy-2022-2024", "distributable_profit": 100.0, "cash_dividend": 0.0}
    conditions = {"retained_earnings_consolidated": 1e6, "retained_earnings_parent": 1e6, "going_concern_unaffected": True,
                  "audit_opinion": "standard_unqualified", "planned_major_outlay": 0.0, "total_assets": 1e6,
                  "amounts_confirmed": True}  # toy figures, confirmed (no listed company has 1,000,000 元 of assets)
    df = pd.DataFrame([
        {**base, "stock_code": "000001", "fiscal_year": 2021, "cash_dividend": 1000.0},
        {**base, "stock_code": "000002", "fiscal_year": 2021},
        {**base, "stock_code": "000002", "fiscal_year": 2022},
        {**base, **conditions, "stock_code": "000002", "fiscal_year": 2023, "cash_dividend": 20.0},
    ])
    out = evaluate_batch(df).set_index(["stock_code", "fiscal_year"])
    # company 2, 2023: required 30% × (100+100+100)/3 = 30.00; its own cash 0+0+20 = 20 → short by 10.00.
    # Had company 1's 1,000 in 2021 been read, the rule would pass.
    assert out.loc[("000002", 2023), "min_rolling.status"] == "fail"
    assert out.loc[("000002", 2023), "min_rolling.shortfall"] == 10.0
    assert out.loc[("000002", 2023), "min_annual.status"] == "pass"  # 20 >= 10% × 100 = 10
    # company 2, 2021 has no earlier years: its rolling window lacks distributable profit
    assert out.loc[("000002", 2021), "cash_conditions_met"] is None


def test_leading_zeros_and_errors_name_row_and_column():
    df = pd.DataFrame({"policy": ["houpu-2024-2026"] * 2, "stock_code": ["300471", "300471"],
                       "fiscal_year": [2023, 2024], "cash_dividend": ["1.2亿", 5.0], "vote_for_ratio": [0.5, 67]})
    with pytest.raises(CaseError) as e:
        evaluate_batch(df)
    msg = str(e.value)
    assert "row 2, cash_dividend" in msg and "row 3, vote_for_ratio" in msg


def test_unknown_columns_and_policy_are_errors():
    with pytest.raises(CaseError, match="unknown field id"):
        evaluate_batch(pd.DataFrame({"policy": ["houpu-2024-2026"], "stock_code": ["1"], "fiscal_year": [2024], "profit": [1]}))
    with pytest.raises(CaseError, match="no-such-plan"):
        evaluate_batch(pd.DataFrame({"policy": ["no-such-plan"], "stock_code": ["1"], "fiscal_year": [2024]}))


def test_single_policy_argument():
    df = pd.DataFrame({"stock_code": ["002015"], "fiscal_year": [2024], "distributable_profit": [np.nan]})
    out = evaluate_batch(df, policy="gcl-energy-2022-2024")
    assert out.loc[0, "policy"] == "gcl-energy-2022-2024"
    assert out.loc[0, "overall_status"] == "missing_input"
