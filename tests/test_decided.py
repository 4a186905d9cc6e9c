"""Issue 47.5: a rule whose missing inputs cannot change its outcome is decided, and says which inputs it did
without; a screen names each row's missing inputs, its headline counts the rows it could not decide, and
``--year`` screens one fiscal year.

The exchange's low-dividend warning (上市规则 9.8.1(八), baseline ``reg_st_low_dividend``) worked by hand: a
main-board company is warned when its cash over the last three full fiscal years since listing is below 30% of
the average net profit AND below 50,000,000 元 (ChiNext / STAR: 30,000,000 元). The window always ends with
the year evaluated and no year's cash is negative, so this year's cash alone is the least any listing date
counts: at or above the floor, no listing date can bring a warning; below it, a company listed last year
(only this year counted) may be warned, so without the listing date the rule cannot be decided."""

from __future__ import annotations

import datetime as dt
import math

import pandas as pd
import pytest

from conftest import cli
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.batch.results import MISSING_COLUMN
from xlmodel.case import Case
from xlmodel.evaluator import evaluate

PLAN = "far-east-2022-2024"
ST = "reg_st_low_dividend"
PROFIT = 300_000_000.0  # 30% of it, 90,000,000, is above every cash figure below: only the floor can clear it


def _year(cash: float) -> dict:
    return {"cash_dividend": cash, "net_profit_attributable": PROFIT, "distributable_profit": PROFIT,
            "retained_earnings_consolidated": 500_000_000.0, "retained_earnings_parent": 500_000_000.0}


def _case(years: dict[int, float], board: str | None = "sse_main", listed: str | None = None) -> Case:
    company = {"stock_code": "600001"}
    if board:
        company["board"] = board
    if listed:
        company["listing_date"] = dt.date.fromisoformat(listed)
    return Case(PLAN, 2024, company, {y: _year(c) for y, c in years.items()}, {})


def _st(rep):
    return next(r for r in rep.rules if r.id == ST)


@pytest.mark.parametrize("cash, status, warning", [
    (60_000_000.00, "pass", False),          # the case: 60,000,000 ≥ 50,000,000 whatever the listing date
    (50_000_000.00, "pass", False),          # at the floor: not below it
    (49_999_999.99, "missing_input", None),  # a fen below: listed in 2023, only 2024 counts, and it is warned
])
def test_without_a_listing_date_this_years_cash_at_the_floor_decides(cash, status, warning):
    rep = evaluate(_case({2024: cash}))
    st = _st(rep)
    assert (st.status, rep.st_risk_warning) == (status, warning)
    assert st.missing_inputs == ["listing_date 上市日期 (2024)"]  # decided without it, or lacking it
    if status == "pass":
        assert (st.actual, st.required) == (cash, 50_000_000.0)  # this year alone against the floor
        assert "无论缺少的输入为何值，结论不变：listing_date" in st.explanation_zh
        assert "whatever the missing inputs, the outcome is the same: listing_date" in st.explanation_en
        assert rep.cash_needed_to_avoid_st == 50_000_000.0  # what makes it sure whatever the listing date
    else:
        assert st.explanation_zh.startswith("缺少输入：listing_date")
        assert rep.cash_needed_to_avoid_st is None


@pytest.mark.parametrize("cash, status", [(30_000_000.00, "pass"), (29_999_999.99, "missing_input")])
def test_the_growth_boards_floor_decides_there(cash, status):
    assert _st(evaluate(_case({2024: cash}, board="chinext"))).status == status


def test_cash_of_earlier_years_does_not_decide_without_the_listing_date():
    """2022 and 2023 paid 10,000,000 each: 69,999,999.99 over three years clears the floor only for a company
    listed before 2022; listed mid-2023, only 2024's 49,999,999.99 counts, below both 50,000,000 and 90,000,000."""
    years = {2022: 10_000_000.0, 2023: 10_000_000.0, 2024: 49_999_999.99}
    assert _st(evaluate(_case(years))).status == "missing_input"
    long_ago = evaluate(_case(years, listed="2015-06-30"))
    assert (_st(long_ago).status, _st(long_ago).actual, long_ago.st_risk_warning) == ("pass", 69_999_999.99, False)
    assert _st(long_ago).missing_inputs == []  # nothing missing, nothing named
    recent = evaluate(_case(years, listed="2023-06-30"))
    assert (_st(recent).status, _st(recent).actual, recent.st_risk_warning) == ("fail", 49_999_999.99, True)


def test_a_missing_board_is_not_decided_by_a_floor_it_chooses():
    """Three-valued logic is sound, not clever: the floor depends on the board, so without it nothing is decided."""
    st = _st(evaluate(_case({2024: 60_000_000.0}, board=None)))
    assert st.status == "missing_input" and "board" in " ".join(st.missing_inputs)


def test_a_complete_case_is_unchanged_by_the_decisive_part():
    """Listed long ago, every input there: cash 49,999,999.99 < 50,000,000 and < 90,000,000 is a warning."""
    rep = evaluate(_case({2022: 0.0, 2023: 0.0, 2024: 49_999_999.99}, listed="2010-01-01"))
    assert (_st(rep).status, rep.st_risk_warning, _st(rep).shortfall) == ("fail", True, 0.01)


def _screen_frame(cash_2024: list[float], history: bool = False) -> pd.DataFrame:
    rows = []
    for i, cash in enumerate(cash_2024):
        years = {2022: 10_000_000.0, 2023: 10_000_000.0, 2024: cash} if history else {2024: cash}
        for y, c in years.items():
            rows.append({"stock_code": f"60000{i + 1}", "fiscal_year": y, **_year(c)})
    return pd.DataFrame(rows)


def test_the_screen_decides_as_the_single_case_and_names_what_is_missing():
    out = evaluate_batch(_screen_frame([60_000_000.0, 50_000_000.0, 49_999_999.99]))
    assert list(out[f"{ST}.status"]) == ["pass", "pass", "missing_input"]
    assert [None if isinstance(v, float) and math.isnan(v) else v for v in out["st_risk_warning"]] == [False, False, None]
    assert list(out[f"{ST}.actual"]) == [60_000_000.0, 50_000_000.0, 49_999_999.99]
    named = list(out[MISSING_COLUMN])
    assert "listing_date (2024)" not in (named[0] or "") and "listing_date (2024)" not in (named[1] or "")
    assert "上市日期 listing_date (2024)" in named[2]


def test_year_screens_one_fiscal_year_reading_the_others_as_history():
    df = _screen_frame([60_000_000.0, 49_999_999.99], history=True)
    every = evaluate_batch(df)
    one = evaluate_batch(df, year=2024)
    assert list(one["fiscal_year"]) == [2024, 2024] and list(one["stock_code"]) == ["600001", "600002"]
    mine = every[every["fiscal_year"] == 2024].reset_index(drop=True)
    pd.testing.assert_frame_equal(one.reset_index(drop=True), mine, check_dtype=False)


def test_the_headline_never_says_none_at_risk_without_the_undecided(capsys, tmp_path):
    src = tmp_path / "screen.csv"
    _screen_frame([60_000_000.0, 49_999_999.99], history=True).to_csv(src, index=False)
    code, _, err = cli(capsys, "evaluate", "--batch", src, "-o", tmp_path / "out.csv", "--year", "2024")
    assert code == 1  # a row it could not decide is never exit 0
    assert "0 个公司年度；另有 1 个公司年度因缺少输入未能判定" in err
    assert "0 company-years; 1 more could not be decided for missing inputs" in err
    assert "仅输出 2024 会计年度的 2 行" in err
    code, _, err = cli(capsys, "evaluate", "--batch", src, "-o", tmp_path / "out.xlsx", "--year", "2024")
    import openpyxl

    ws = openpyxl.load_workbook(tmp_path / "out.xlsx")["汇总"]
    cells = [c for row in ws.iter_rows(values_only=True) for c in row if isinstance(c, str)]
    assert any("另有 1 个公司年度因缺少输入未能判定" in c for c in cells)
    assert any("1 个未能判定 undecided" in c for c in cells)


def test_year_is_for_a_batch(capsys, tmp_path):
    code, _, err = cli(capsys, "evaluate", "--year", "2024")
    assert code != 0 and "--year 仅用于 --batch" in err


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_the_workbook_decides_alike_in_both_engines(engine, request, tmp_path):
    """The three cases of the floor's boundary as workbooks: every formula cell and every status equal the evaluator."""
    from conftest import engine_values
    from xlmodel.engines.parity import compare
    from xlmodel.workbook.writer import build_workbook

    request.getfixturevalue(engine)
    built = []
    for k, cash in enumerate((60_000_000.0, 50_000_000.0, 49_999_999.99)):
        c = _case({2024: cash})
        built.append((c, build_workbook(tmp_path / f"st{k}.xlsx", case=c)))
    theirs = engine_values(engine, [p for _, p in built], tmp_path / engine)
    compared = [compare(engine, c, p, None, theirs_values=theirs[p.name]) for c, p in built]
    assert not [str(m) for x in compared for m in x.differences]
    assert [_st(evaluate(c)).status for c, _ in built] == ["pass", "pass", "missing_input"]


def test_only_a_rule_three_valued_logic_can_help_is_decided_and_never_a_minimum():
    """A minimum is decided only with every input (its cash is computed from them: a blank read as 0 would give a
    minimum too low); a test whose every part reads the rule's own sums is known only where nothing is missing,
    which its missing-input test already says. Of the bundled and test plans, the exchange warning alone gains."""
    import glob

    from xlmodel.rules import catalogue as cat
    from xlmodel.plans import schema as pol
    from xlmodel.plans.loading import load_baseline, load_policy

    base = load_baseline(pol.Settings().regulatory_baseline)
    for path in sorted(glob.glob("templates/*.yaml") + glob.glob("tests/data/*/*.yaml")):
        try:
            plan = load_policy(path)
        except Exception:  # noqa: BLE001 - a file of the test data that is not a plan (a draft, a broken one)
            continue
        model = cat.compile_policy(plan, base)
        assert [r.id for r in model.rules if r.decides] == [ST], path
        assert all(r.check.min_cash is None and r.group is None for r in model.rules if r.decides)
