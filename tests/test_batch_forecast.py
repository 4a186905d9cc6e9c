"""Forecast rows in a batch (issue 27, item 1, the batch part).

A batch column ``forecast`` (the field :data:`xlmodel.fields.FORECAST`; also 预测数（非已披露数）, 预测, 预测数,
是否预测) marks the rows whose figures are forecasts. It is read as every yes/no column (the one reading,
:func:`xlmodel.values.read_field`); a company's reported row after one of its forecast rows is refused,
naming both rows. The result then has a ``forecast`` column after ``fiscal_year``: True where the row's
own figures are forecasts or a year its rules read is one (是/否 in the .xlsx, True/False in the .csv,
as ``in_plan_period``). Without the input column the output is what it was.
"""

from __future__ import annotations

import csv
import re

import numpy as np
import openpyxl
import pandas as pd
import pytest

from xlmodel.batch.evaluate import Batch, evaluate_batch, prepare_batch
from xlmodel.batch.prepare import screen_model
from xlmodel.batch.table import BatchError, read_table
from xlmodel.batch.results import LEAD_COLUMNS, result_columns
from xlmodel.batch.output import RESULTS_SHEET, SUMMARY_SHEET, write_batch_xlsx
from xlmodel.batch.output_csv import write_batch_csv
from xlmodel.values import read_field
from xlmodel.batch.columns import read_header
from xlmodel.errors import has_chinese
from xlmodel.evaluator import model_for
from xlmodel.fields import FORECAST

HOUPU = "houpu-2024-2026"
CODE = "300471"  # 创业板 (the board follows from the code)


def _frame(marks, header: str = "forecast") -> pd.DataFrame:
    """One company from 2022, a row per mark (None: four rows, no forecast column); 1 亿 of profit a year,
    9,000 万 distributable, 3,000 万 of cash paid."""
    n = 4 if marks is None else len(marks)
    df = pd.DataFrame({"stock_code": [CODE] * n, "fiscal_year": list(range(2022, 2022 + n)),
                       "net_profit_attributable": ["100000000"] * n, "distributable_profit": ["90000000"] * n,
                       "cash_dividend": ["30000000"] * n})
    if marks is not None:
        df[header] = marks
    df.attrs["xlmodel_origin"] = "csv"
    return df


# ---- the header ------------------------------------------------------------------------------------

@pytest.mark.parametrize("header", ["forecast", "预测数（非已披露数）", "预测数(非已披露数)", "预测", "预测数", "是否预测",
                                    "Forecast figures (not reported)"])
def test_every_name_of_the_column_reads_the_forecast_field(header):
    h = read_header(header)
    assert h.field == "forecast" and h.problem is None
    assert FORECAST.zh == "预测数（非已披露数）"


def test_a_unit_on_the_forecast_column_is_refused():
    h = read_header("预测(万元)")
    assert h.problem is not None and h.problem.startswith("单位")


# ---- the result's forecast column ------------------------------------------------------------------

def test_reported_2023_and_forecast_2024_2025_are_marked_so():
    df = _frame(["否", "否", "是", "是"])[1:]  # 2023 reported; 2024 and 2025 forecasts
    out = evaluate_batch(df, policy=HOUPU)
    assert out["fiscal_year"].tolist() == [2023, 2024, 2025]
    assert out["forecast"].tolist() == [False, True, True]
    cols = list(out.columns)
    assert cols[:5] == ["stock_code", "policy", "fiscal_year", "forecast", "in_plan_period"]
    assert out.attrs["columns"]["forecast"] == {"zh": "预测数（非已披露数）", "en": "Forecast figures (not reported)",
                                                "units": ["是/否"]}
    assert any(n.startswith("2 行为预测数") for n in out.attrs["notes"])


def test_the_mark_changes_no_verdict():
    with_mark = evaluate_batch(_frame(["否", "否", "是", "是"]), policy=HOUPU)
    without = evaluate_batch(_frame(None), policy=HOUPU)
    pd.testing.assert_frame_equal(with_mark.drop(columns=["forecast"]), without)


def test_chinese_header_with_yes_no_reads_as_forecast_with_true_false():
    zh = evaluate_batch(_frame(["否", "否", "是", "是"], header="预测"), policy=HOUPU)
    en = evaluate_batch(_frame(["false", "FALSE", "true", "TRUE"], header="forecast"), policy=HOUPU)
    native = evaluate_batch(_frame([False, False, True, True]), policy=HOUPU)  # a DataFrame's own booleans
    pd.testing.assert_frame_equal(zh, en)
    pd.testing.assert_frame_equal(zh, native)
    assert zh["forecast"].tolist() == [False, False, True, True]


def test_blank_is_reported_figures():
    out = evaluate_batch(_frame(["", None, "是", "yes"]), policy=HOUPU)
    assert out["forecast"].tolist() == [False, False, True, True]


def test_a_screen_without_a_plan_marks_forecasts_too():
    out = evaluate_batch(_frame(["否", "否", "否", "是"]))
    assert out["forecast"].tolist() == [False, False, False, True]
    assert list(out.columns)[:4] == ["stock_code", "policy", "fiscal_year", "forecast"]


def test_each_company_is_marked_by_its_own_rows():
    df = pd.concat([_frame(["否", "否", "是", "是"]), _frame(["否", "否", "否", "否"]).assign(stock_code="600000")],
                   ignore_index=True)
    out = evaluate_batch(df, policy=HOUPU)
    assert out["forecast"].tolist() == [False, False, True, True, False, False, False, False]


def test_a_result_whose_window_reads_a_forecast_year_is_marked():
    # three rows of one company; the second is a forecast. A window reading the next year (+1) marks the first
    # row (its next year is the forecast), not the second (its next year, the third row, is not one), nor the third
    # (it has no next year).
    b = Batch(forecast=np.array([False, True, False]))

    class Getter:
        offsets = {0, 1}

        @staticmethod
        def loc(offset):
            return {0: np.array([0, 1, 2]), 1: np.array([1, 2, -1])}[offset]

    assert b._forecast_marks(np.arange(3), Getter()).tolist() == [True, True, False]
    Getter.offsets = {0, -1}  # and a window reading the year before: the third row reads the forecast
    Getter.loc = staticmethod(lambda o: {0: np.array([0, 1, 2]), -1: np.array([-1, 0, 1])}[o])
    assert b._forecast_marks(np.arange(3), Getter()).tolist() == [False, True, True]


# ---- refused -------------------------------------------------------------------------------------

def _lines(err: BatchError) -> list[str]:
    return [ln[4:] for ln in str(err).splitlines() if ln.startswith("  - ")]


def test_an_unreadable_value_is_refused_naming_the_row_and_column_chinese_first():
    with pytest.raises(BatchError) as e:
        prepare_batch(_frame(["否", "也许", "是", "是"], header="预测"), policy=HOUPU)
    lines = _lines(e.value)
    assert len(lines) == 1
    line = lines[0]
    assert "第3行 row 3" in line and "'预测'" in line and "(forecast)" in line and "'也许'" in line
    assert has_chinese(line.split(" ", 1)[0])  # leads with its Chinese
    assert line.startswith("取值有误 第3行")


def test_the_batch_reads_yes_no_exactly_as_a_case_reads_the_field():
    values = ["是", "否", "yes", "no", "Y", "n", "TRUE", "false", "1", "0", "也许", "x"]
    for v in values:
        want, err = read_field(FORECAST, v, "csv")
        df = _frame([v])
        if err:
            with pytest.raises(BatchError) as e:
                prepare_batch(df, policy=HOUPU)
            assert err in str(e.value), v
        else:
            assert evaluate_batch(df, policy=HOUPU)["forecast"].tolist() == [bool(want)], v


def test_a_reported_year_after_a_forecast_year_is_refused_naming_both_rows():
    with pytest.raises(BatchError) as e:
        prepare_batch(_frame(["否", "是", "否", "是"]), policy=HOUPU)  # 2024 reported after the forecast 2023
    lines = _lines(e.value)
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith("第4行 row 4, forecast (300471 2024)")
    assert "已披露年度 2024 在预测年度 2023（第3行 row 3）之后" in line
    assert "row 3" in line and "forecast figures must come after the reported years" in line


def test_the_order_is_checked_by_year_not_by_row():
    df = _frame(["否", "否", "是", "是"]).iloc[[3, 0, 2, 1]]  # rows out of order: the years decide
    out = evaluate_batch(df, policy=HOUPU)
    assert out["fiscal_year"].tolist() == [2025, 2022, 2024, 2023]
    assert out["forecast"].tolist() == [True, False, True, False]
    with pytest.raises(BatchError):
        prepare_batch(_frame(["否", "是", "是", "否"]).iloc[[3, 0, 1, 2]], policy=HOUPU)


# ---- without the column ---------------------------------------------------------------------------

def test_without_the_column_the_columns_are_as_before():
    out = evaluate_batch(_frame(None), policy=HOUPU)
    assert list(out.columns) == result_columns(model_for_houpu())
    assert "forecast" not in out.columns and "forecast" not in LEAD_COLUMNS
    screen = evaluate_batch(_frame(None))
    assert list(screen.columns) == result_columns(screen_model()[0], screen=True)
    assert not any("预测" in n for n in out.attrs["notes"] + screen.attrs["notes"])


def model_for_houpu():
    from xlmodel.plans.loading import load_plan_by_id

    return model_for(load_plan_by_id(HOUPU))


# ---- the files -----------------------------------------------------------------------------------

def test_the_files_mark_forecast_results(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("证券代码,会计年度,归母净利润,当年可分配利润,现金分红总额,预测数（非已披露数）\n"
                   f"{CODE},2023,100000000,90000000,30000000,否\n"
                   f"{CODE},2024,100000000,90000000,30000000,是\n"
                   f"{CODE},2025,100000000,90000000,30000000,是\n", encoding="utf-8")
    batch = prepare_batch(read_table(src), policy=HOUPU, source=str(src))
    out_csv = write_batch_csv(batch, tmp_path / "out.csv")
    with open(out_csv, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["forecast"] for r in rows] == ["False", "True", "True"]  # as in_plan_period is written

    out_xlsx = write_batch_xlsx(prepare_batch(read_table(src), policy=HOUPU, source=str(src)), tmp_path / "out.xlsx")
    wb = openpyxl.load_workbook(out_xlsx)
    ws = wb[RESULTS_SHEET]
    ids = [c.value for c in ws[2]]
    j = ids.index("forecast")
    assert ids[j - 1] == "fiscal_year"
    assert ws.cell(1, j + 1).value == "预测数（非已披露数）"
    assert [ws.cell(r, j + 1).value for r in (3, 4, 5)] == ["否", "是", "是"]
    summary = " ".join(str(c.value) for row in wb[SUMMARY_SHEET].iter_rows() for c in row if c.value)
    assert re.search(r"其中 2 个公司年度的结果基于预测数", summary)
