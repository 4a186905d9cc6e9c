"""The batch path (pandas, vectorised) gives the same numbers as the single-case path."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from xlmodel.batch.evaluate import evaluate_batch
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


# ---- an interim above a total the file does not have (issue 25.7) ---------------------------------
# A year's cash_dividend / stock_dividend column absent altogether reads as 0 (an amount left out is none
# paid): an interim of 10,000,000 is then above its year's total of 0 and is refused, the row named, as it
# is when the column is there and the cell says 0.

@pytest.mark.parametrize("part, total, zh", [("interim_cash_dividend", "cash_dividend", "现金分红总额（含中期）"),
                                             ("interim_stock_dividend", "stock_dividend", "股票股利金额")])
@pytest.mark.parametrize("plan", ["gcl-energy-2022-2024", None], ids=["plan", "market-screen"])
def test_an_interim_with_no_total_column_is_refused(tmp_path, capsys, part, total, zh, plan):
    from conftest import cli

    head = "policy,stock_code,fiscal_year" if plan else "stock_code,fiscal_year"
    lead = f"{plan}," if plan else ""
    src = tmp_path / "screen.csv"
    src.write_text(f"{head},distributable_profit,{part}\n{lead}002015,2023,855092128.94,0\n"
                   f"{lead}002015,2024,900000000,10000000\n", encoding="utf-8")
    header = src.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert "cash_dividend" not in header and "stock_dividend" not in header
    code, out, err = cli(capsys, "evaluate", "--batch", src, "-o", tmp_path / "out.csv")
    assert code == 2 and not (tmp_path / "out.csv").exists() and "Traceback" not in err
    # the file's third line: its header, 2023, then 2024 with the interim
    assert f"第3行 row 3, {part}: 高于本年度{zh}（{total}）（0.00）" in err, err
    assert f"above the year's {total} (0.00): the interim is part of the year's total" in err
    assert "第2行 row 2" not in err  # 2023's interim of 0 is no interim


def test_an_interim_with_no_total_column_is_refused_in_python():
    """The same through ``evaluate_batch`` on a DataFrame without the total's column."""
    df = pd.DataFrame({"policy": ["houpu-2024-2026"], "stock_code": ["300471"], "fiscal_year": [2024],
                       "interim_cash_dividend": [10_000_000.0]})
    with pytest.raises(CaseError) as e:
        evaluate_batch(df)
    assert [p.where for p in e.value.problems] == ["第2行 row 2, interim_cash_dividend"]
    assert "above the year's cash_dividend (0.00)" in e.value.problems[0].message
