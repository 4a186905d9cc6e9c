"""Issue 51.3: market files as terminals export them.

Wind's default export is wide: one row per stock, a column per figure and 报告期, the period and the unit in
the header (``归属母公司股东的净利润 [报告期] 2022年报 [单位] 元``). tests/data/wind/ holds the bundled screen
(samples/market_screen.csv, the long form: a row per stock and year, amounts in 万元) exported that way, in
UTF-8 (with a BOM) and GBK: the same four made-up companies, amounts in 元 (万元 × 10,000), codes as Wind
writes them (600519.SH, 300750.SZ, 002015.SZ, 430047.BJ), the periods newest first, a 数据来源 footer.

Read, it must give the long form's figures exactly; and the screen names both figures a reader takes one for
the other: the cash the year must declare in total to avoid the exchange's warning, and the gap to the cash
the file already gives for the year.
"""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from conftest import cli
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.batch.table import BatchError, read_table
from xlmodel.batch.output import SUMMARY_SHEET

ROOT = Path(__file__).resolve().parents[1]
WIND = ROOT / "tests" / "data" / "wind"
LONG = ROOT / "samples" / "market_screen.csv"
ST = "reg_st_low_dividend"


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["stock_code", "fiscal_year"], kind="stable").reset_index(drop=True)


@pytest.fixture(scope="module")
def long_out() -> pd.DataFrame:
    return _sorted(evaluate_batch(read_table(LONG), source=str(LONG)))


def _rows(name: str = "market_screen_wide_utf8.csv") -> list[list[str]]:
    return list(csv.reader(open(WIND / name, encoding="utf-8-sig", newline="")))


@pytest.mark.parametrize("name", ["market_screen_wide_utf8.csv", "market_screen_wide_gbk.csv"])
def test_the_wide_export_reads_to_the_long_forms_figures(long_out, name):
    src = WIND / name
    table = read_table(src)
    assert len(table) == 12  # 4 stocks × 3 periods (2024年报, 2023年报, 2022年报)
    assert "宽表" in " ".join(table.attrs["notes"]) and "数据来源" in " ".join(table.attrs["notes"])
    out = _sorted(evaluate_batch(table, source=str(src)))
    pd.testing.assert_frame_equal(out, long_out, check_dtype=False)
    row = out.set_index(["stock_code", "fiscal_year"]).loc[("600519", 2024)]
    # by hand (DOMAIN.md §5): 2022–2024 cash 10,000,000 + 10,000,000 + 9,999,900 = 29,999,900 元 against
    # min(30 % × 100,000,000, 50,000,000) = 30,000,000: 100 元 short; the year's total still to declare is
    # 30,000,000 − (10,000,000 + 10,000,000) = 10,000,000
    assert (row[f"{ST}.actual"], row[f"{ST}.shortfall"], row["cash_needed_to_avoid_st"]) == (29_999_900.0, 100.0,
                                                                                            10_000_000.0)


def test_a_wide_xlsx_reads_as_the_csv(tmp_path, long_out):
    rows = _rows()
    wb = openpyxl.Workbook()
    for r in rows:
        wb.active.append([float(v) if v.replace(".", "", 1).isdigit() else v for v in r])
    wb.save(tmp_path / "wind.xlsx")
    out = _sorted(evaluate_batch(read_table(tmp_path / "wind.xlsx"), source="wind.xlsx"))
    pd.testing.assert_frame_equal(out, long_out, check_dtype=False)


def _write(tmp_path: Path, rows: list[list[str]]) -> Path:
    p = tmp_path / "wide.csv"
    with open(p, "w", encoding="utf-8-sig", newline="") as f:
        csv.writer(f).writerows(rows)
    return p


def test_a_half_year_period_is_refused_naming_the_row_and_column(tmp_path):
    rows = _rows()
    rows[0] = [h.replace("2023年报", "2023中报") for h in rows[0]]
    with pytest.raises(BatchError) as e:
        evaluate_batch(read_table(_write(tmp_path, rows)))
    text = str(e.value)
    assert "报告期" in text and "2023中报" in text and "row 2" in text  # the first stock's row in the file


def test_a_figure_given_twice_for_one_period_is_refused(tmp_path):
    rows = _rows()
    rows[0][4] = rows[0][3].replace("\n", " ")  # 2024's net profit again, written on one line
    with pytest.raises(BatchError) as e:
        read_table(_write(tmp_path, rows))
    assert "出现两次" in str(e.value) and "given twice for one period" in str(e.value) and "2024年报" in str(e.value)


def test_a_fiscal_year_column_beside_the_periods_is_refused(tmp_path):
    rows = _rows()
    rows[0].insert(3, "会计年度")
    for r in rows[1:]:
        r.insert(3, "2024")
    with pytest.raises(BatchError) as e:
        read_table(_write(tmp_path, rows))
    assert "不应另有会计年度列" in str(e.value) and "cannot also have a fiscal-year column" in str(e.value)


def test_the_screen_shows_the_years_total_and_the_gap_labelled(tmp_path, capsys):
    """The bundled screen's 600519 FY2024: 10,000,000 元 to declare in total, 100 元 short of the 9,999,900 given."""
    out = tmp_path / "screen.xlsx"
    code, _, err = cli(capsys, "evaluate", "--batch", WIND / "market_screen_wide_gbk.csv", "-o", out)
    assert code == 1, err
    assert "600519 2024：本年须宣告现金分红合计 10,000,000.00 元，较已填本年现金分红尚差 100.00 元" in err
    rows = list(openpyxl.load_workbook(out, read_only=True)[SUMMARY_SHEET].iter_rows(values_only=True))
    head = next(i for i, r in enumerate(rows) if r[0] == "公司名称 Company")
    assert rows[head][4:6] == ("本年须宣告现金分红合计（元）This year's cash needed in total",
                               "较已填本年现金分红尚差（元）Short of the year's cash given")
    assert rows[head + 1][:6] == ("示例公司甲", "600519", "cn-regulatory-baseline-2024", 2024, 10_000_000, 100)


def test_a_wide_file_that_would_unfold_past_the_cell_limit_is_refused(tmp_path, monkeypatch):
    import xlmodel.batch.table as batch

    monkeypatch.setattr(batch, "MAX_TABLE_CELLS", 100)  # 4 stocks × 3 periods × (3 ids + 报告期 + 8 figures) = 144
    with pytest.raises(BatchError) as e:
        read_table(WIND / "market_screen_wide_utf8.csv")
    assert "宽表展开后超过 100 个单元格" in str(e.value) and "4 rows × 3 periods × 12 columns" in str(e.value)
