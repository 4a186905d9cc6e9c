"""Data as it arrives (issue 23, items 1–3): Chinese column headers and the names data terminals
export, units in headers, vendor files (GBK, BOM, a title row, a footer), stock codes as vendors
write them, the board from the code, and a screen on the regulatory baseline alone.

Expected figures are worked by hand from the rules (DOMAIN.md §5): the exchange's low-dividend
risk warning is triggered when three years' cash is below BOTH 30% of the average net profit AND
50,000,000 元 (main boards) or 30,000,000 元 (ChiNext, STAR); the cash still needed this year is the
lower of the two less the earlier years' cash.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

from xlmodel.batch.evaluate import evaluate_batch, prepare_batch
from xlmodel.batch.prepare import screen_model
from xlmodel.batch.table import BatchError, read_table
from xlmodel.batch.output import SUMMARY_SHEET, write_batch_xlsx
from xlmodel.batch.output_csv import write_batch_csv
from xlmodel.values import read_field
from xlmodel.batch.columns import NAMES_FILE, names, read_header, table_rows
from xlmodel.fields import FIELDS
from xlmodel.plans.schema import Settings
from xlmodel.plans.loading import load_baseline
from xlmodel.synth import market_frame

ROOT = Path(__file__).resolve().parents[1]
ST = "reg_st_low_dividend"
WAN = 10_000.0


def _blank(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


# ---- the table of names -------------------------------------------------------------------------

def test_every_name_reads_one_field_and_every_field_reads_by_id_and_labels():
    table = names()  # a name given for two fields would raise here
    for fid, f in FIELDS.items():
        for label in (fid, f.zh, f.en):
            assert read_header(label).field == fid, label
    for cid, zh in (("policy", "分红回报规划"), ("fiscal_year", "会计年度")):
        assert read_header(zh).field == cid
    for row in table_rows():
        h = read_header(row.name)
        if row.reading == "not":
            assert h.field is None and row.field in h.problem and h.problem.startswith("不读入"), row
        else:
            assert h.field == row.field and h.problem is None, row
            assert bool(h.per) == (row.reading != "same")
    assert len(table) > len(FIELDS) * 2


def test_the_names_reference_in_the_docs_lists_the_table():
    from xlmodel.batch.columns import reference_markdown

    doc = (ROOT / "docs" / "column-names.md").read_text(encoding="utf-8")
    assert doc == reference_markdown(), "run: python -m xlmodel.batch.columns > docs/column-names.md"
    for row in table_rows():
        assert f"| {row.name} |" in doc, row.name
    assert NAMES_FILE.name in doc


@pytest.mark.parametrize("header, field, factor", [
    ("归母净利润", "net_profit_attributable", 1.0),
    ("归属母公司股东的净利润", "net_profit_attributable", 1.0),
    ("归属于母公司所有者的净利润", "net_profit_attributable", 1.0),
    ("归母净利润(万元)", "net_profit_attributable", 1e4),
    ("归母净利润（万元）", "net_profit_attributable", 1e4),
    ("营业收入（元）", "revenue", 1.0),
    ("营业总收入(亿元)", "revenue", 1e8),
    ("资产总计 单位：千元", "total_assets", 1e3),
    ("归属母公司股东的净利润\n[单位]万元", "net_profit_attributable", 1e4),
    ("总股本(万股)", "share_count", 1e4),
    ("赞成票比例(%)", "vote_for_ratio", 0.01),
    ("Net profit attributable to shareholders", "net_profit_attributable", 1.0),
    ("NET_PROFIT_ATTRIBUTABLE", "net_profit_attributable", 1.0),
    ("未分配利润(母公司)", "retained_earnings_parent", 1.0),
    ("证券代码", "stock_code", 1.0),
    ("Stkcd", "stock_code", 1.0),
    ("证券简称", "company_name", 1.0),
    ("报告期", "fiscal_year", 1.0),
])
def test_headers_read(header, field, factor):
    h = read_header(header)
    assert (h.field, h.factor, h.problem) == (field, factor, None)
    if factor != 1:
        assert "读入" in h.note and "read in" in h.note  # scaling is never silent


@pytest.mark.parametrize("header, words", [
    ("净利润", ["少数股东", "net_profit_attributable"]),  # another figure: named, with what to export
    ("研发费用", ["资本化", "rd_expense"]),
    ("归母净利", ["did you mean", "归母净利润"]),  # a near miss in Chinese: a suggestion
    ("cash_divdend", ["did you mean", "cash_dividend"]),
    ("上市日期(元)", ["单位", "元", "listing_date"]),
    ("营业收入(万股)", ["单位", "万股", "revenue"]),
    ("归母净利润[报告期]2023年报[单位]元", ["报告期", "fiscal_year"]),
])
def test_headers_refused_say_why(header, words):
    h = read_header(header)
    assert h.problem and h.problem[0] >= "\u4e00", h  # Chinese first
    for w in words:
        assert w in h.problem, (w, h.problem)


# ---- a screen of four companies, worked by hand --------------------------------------------------

# 600519 (SSE main): 30% × 100,000,000 = 30,000,000 < 50,000,000 → bound 30,000,000; cash 10,000,000 +
#   10,000,000 + 9,999,900 = 29,999,900 → triggered, short by 100.00; still needed this year
#   30,000,000 − 20,000,000 = 10,000,000.00
# 300750 (ChiNext): bound min(30,000,000, 30,000,000); cash 3 × 10,000,000 = 30,000,000 → not triggered;
#   R&D 1,000,000 of revenue 1,000,000,000 (0.1%, < 300,000,000): no exemption
# 002015 (written 2015, its zeros lost; SZSE main): cash 3 × 20,000,000 = 60,000,000 → not triggered
# 430047 (BSE): out of the rule's scope → not applicable, no warning either way
EN = pd.DataFrame({
    "stock_code": ["600519"] * 3 + ["300750"] * 3 + ["002015"] * 3 + ["430047"] * 3,
    "company_name": ["甲公司"] * 3 + ["乙公司"] * 3 + ["丙公司"] * 3 + ["丁公司"] * 3,
    "fiscal_year": [2022, 2023, 2024] * 4,
    "listing_date": ["2001-08-27"] * 12,
    "net_profit_attributable": [100_000_000.0] * 12,
    "retained_earnings_consolidated": [500_000_000.0] * 12,
    "retained_earnings_parent": [400_000_000.0] * 12,
    "cash_dividend": [10_000_000.0, 10_000_000.0, 9_999_900.0] + [10_000_000.0] * 3 + [20_000_000.0] * 3 + [0.0] * 3,
    "revenue": [1_000_000_000.0] * 12,
    "rd_expense": [1_000_000.0] * 12,
    "price_below_net_assets_20d": [False] * 12,
    "price_below_ipo_20d": [False] * 12,
})
#: the same figures as a data terminal exports them: Chinese headers, amounts in 万元, suffixed codes
ZH_HEADERS = {"stock_code": "证券代码", "company_name": "证券简称", "fiscal_year": "报告期", "listing_date": "上市日期",
              "net_profit_attributable": "归属母公司股东的净利润(万元)", "retained_earnings_consolidated": "未分配利润(万元)",
              "retained_earnings_parent": "母公司未分配利润(万元)", "cash_dividend": "现金分红总额(万元)",
              "revenue": "营业总收入(万元)", "rd_expense": "研发投入合计(万元)",
              "price_below_net_assets_20d": "最近20个交易日任一日收盘价低于每股净资产（破净）",
              "price_below_ipo_20d": "最近20个交易日任一日收盘价低于首发价格（破发，后复权）"}
WAN_COLUMNS = ("net_profit_attributable", "retained_earnings_consolidated", "retained_earnings_parent",
               "cash_dividend", "revenue", "rd_expense")


def _zh_rows() -> list[list[str]]:
    code = {"600519": "600519.SH", "300750": "300750.SZ", "002015": "2015", "430047": "430047.BJ"}
    out = [[ZH_HEADERS[c] for c in EN.columns]]
    for _, r in EN.iterrows():
        row = []
        for c in EN.columns:
            v = r[c]
            if c == "stock_code":
                v = code[v]
            elif c == "fiscal_year":
                v = f"{v}-12-31"  # a report period, as the terminals write it
            elif c in WAN_COLUMNS:
                v = f"{v / WAN:.2f}"
            elif isinstance(v, (bool, np.bool_)):
                v = "否" if not v else "是"
            row.append(str(v))
        out.append(row)
    return out


def _write_csv(path: Path, rows: list[list[str]], encoding: str, title: bool = False, footer: bool = False) -> Path:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    if title:
        w.writerow(["A股分红数据 2022-2024"] + [""] * (len(rows[0]) - 1))
    w.writerows(rows)
    if footer:
        w.writerow(["数据来源：Wind"] + [""] * (len(rows[0]) - 1))
    path.write_bytes(buf.getvalue().encode(encoding))
    return path


def _write_xlsx(path: Path, rows: list[list[str]]) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["A股分红数据"])  # a title row above the header, as vendors write one
    ws.append(rows[0])
    for r in rows[1:]:
        ws.append([float(v) if v.replace(".", "", 1).isdigit() and "-" not in v and len(v) != 6 else v for v in r])
    ws.append(["数据来源：iFinD"])
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def en_out() -> pd.DataFrame:
    return evaluate_batch(EN)


def test_the_screen_of_four_companies_matches_the_hand_figures(en_out):
    out = en_out.set_index(["stock_code", "fiscal_year"])
    row = out.loc[("600519", 2024)]
    assert row["policy"] == Settings().regulatory_baseline  # the baseline alone
    assert row[f"{ST}.status"] == "fail" and bool(row["st_risk_warning"]) is True
    assert row[f"{ST}.actual"] == 29_999_900.00 and row[f"{ST}.bound"] == 30_000_000.00
    assert row[f"{ST}.shortfall"] == 100.00 and row["cash_needed_to_avoid_st"] == 10_000_000.00
    for code in ("300750", "002015"):
        r = out.loc[(code, 2024)]
        assert r[f"{ST}.status"] == "pass" and not bool(r["st_risk_warning"]), code
        assert r["cash_needed_to_avoid_st"] == (10_000_000.00 if code == "300750" else 0.0), code
    assert out.loc[("300750", 2024), f"{ST}.bound"] == 30_000_000.00  # ChiNext: the 30,000,000 floor
    bse = out.loc[("430047", 2024)]
    assert bse[f"{ST}.status"] == "not_applicable" and _blank(bse["st_risk_warning"])
    for code in ("600519", "300750", "002015", "430047"):
        for y in (2022, 2023):  # the warning is first tested on FY2024
            assert out.loc[(code, y), f"{ST}.status"] == "not_applicable"
    # no row lacks an input merely for a confirmation: none is asked for
    assert not any(c.startswith(("reg_low_payout", "reg_no_cash")) for c in en_out.columns)
    assert (en_out.loc[en_out["fiscal_year"] == 2024, "missing_input_count"] == 0).all()
    # (2022 and 2023 lack the earlier years the sale restriction's three-year window reads)


@pytest.mark.parametrize("kind", ["gbk", "gb18030", "utf-8-sig", "utf-8 title footer", "xlsx"])
def test_chinese_headers_and_suffixed_codes_give_the_same_results(tmp_path, en_out, kind):
    rows = _zh_rows()
    if kind == "xlsx":
        src = _write_xlsx(tmp_path / "vendor.xlsx", rows)
    else:
        enc = kind.split()[0]
        src = _write_csv(tmp_path / "vendor.csv", rows, enc, title="title" in kind, footer="footer" in kind)
    table = read_table(src)
    out = evaluate_batch(table, source=str(src))
    pd.testing.assert_frame_equal(out, en_out, check_dtype=False)
    notes = " ".join(out.attrs["notes"] + table.attrs["notes"])
    assert "万元" in notes and "10,000" in notes  # the scaling is said
    assert "002015" in notes  # so are the restored zeros
    if kind in ("xlsx", "utf-8 title footer"):
        assert "标题" in notes and "数据来源" in notes


def test_the_command_screens_a_vendor_file_and_leads_the_summary_with_the_companies_at_risk(tmp_path, capsys):
    from conftest import cli

    src = _write_csv(tmp_path / "vendor.csv", _zh_rows(), "gbk", title=True)
    code, _, err = cli(capsys, "evaluate", "--batch", src, "-o", tmp_path / "screen.xlsx")
    assert code == 1, err  # a company fails
    assert "600519" in err and "按监管底线" in err and "万元" in err
    wb = openpyxl.load_workbook(tmp_path / "screen.xlsx", read_only=True)
    rows = [r for r in wb[SUMMARY_SHEET].iter_rows(values_only=True)]
    first = next(i for i, r in enumerate(rows) if isinstance(r[0], str) and r[0][:2] in ("1.", "2."))
    assert rows[first][0].startswith("1. 交易所低分红风险警示") and "1 家公司" in rows[first][0]
    assert rows[first + 3][:2] == ("甲公司", "600519") and rows[first + 3][4] == 10_000_000.00
    left = [r[0] for r in rows if isinstance(r[0], str) and r[0].startswith("  未纳入")]
    assert len(left) == len(screen_model()[1]) > 0


# ---- the screen reads whatever the baseline file holds ---------------------------------------------

def test_the_screen_keeps_every_computed_rule_of_the_baseline_file():
    base = load_baseline(Settings().regulatory_baseline)
    model, left = screen_model()
    screened = {r.id for r in model.rules}
    gone = {rid for rid, _, _ in left}
    assert screened | gone == {r.id for r in base.rules} and not screened & gone
    for r in base.rules:
        if r.kind == "attestation":
            assert r.id in gone  # a confirmation: no figure shows it
    assert {r.id for r in base.rules if r.kind not in ("attestation", "conditions_held")} <= screened
    assert all(rd.role == "regulatory" for rd in model.rules)


def test_a_market_of_5000_companies_gets_the_risk_warning_columns_on_every_row():
    df = market_frame(5000, 5)
    out = evaluate_batch(df)
    assert len(out) == 25_000 and {"st_risk_warning", "cash_needed_to_avoid_st"} <= set(out.columns)
    assert not out[f"{ST}.status"].eq("missing_input").any()
    assert out["cash_needed_to_avoid_st"].notna().all()
    y24 = out["fiscal_year"] == 2024
    bse = out["stock_code"].str[:2].isin(["43", "83", "87", "92"])
    warned = out.loc[y24 & ~bse, "st_risk_warning"]
    assert warned.map(lambda v: isinstance(v, (bool, np.bool_))).all()  # in scope: yes or no, every row
    assert out.loc[~y24 | bse, "st_risk_warning"].map(_blank).all()  # out of scope: blank
    assert warned.astype(bool).any() and not warned.astype(bool).all()
    # no row lacks an input for a confirmation (none is read); only the history's own first years lack it
    missing = out[out["missing_input_count"] > 0]
    assert (missing["fiscal_year"] < 2024).all()


def test_a_screen_refuses_attestation_columns():
    df = EN.assign(attest_reg_low_payout_explained=True)
    with pytest.raises(BatchError, match="attest_reg_low_payout_explained.*按监管底线筛查时不读确认事项"):
        evaluate_batch(df)


# ---- codes, boards, per-share figures ------------------------------------------------------------

def test_a_stated_board_that_contradicts_the_code_is_refused_and_a_blank_one_follows_from_the_code():
    df = EN.assign(board=["sse_main"] * 3 + ["chinext"] * 2 + [""] + ["创业板"] * 3 + [""] * 3)
    with pytest.raises(BatchError) as e:
        evaluate_batch(df)
    wheres = [p.where for p in e.value.problems]
    assert wheres == [f"第{r}行 row {r}, board (002015 {y})" for r, y in zip((8, 9, 10), (2022, 2023, 2024))]
    assert "002015" in e.value.problems[0].message and "szse_main" in e.value.problems[0].message
    df["board"] = ["sse_main"] * 3 + ["chinext"] * 2 + [""] + ["深市主板"] * 3 + [""] * 3
    out = evaluate_batch(df)
    pd.testing.assert_frame_equal(out, evaluate_batch(EN), check_dtype=False)


def test_a_dividend_per_share_is_read_as_the_years_cash_dividend():
    # 0.1 元 a share × 100,000,000 shares = 10,000,000.00; 每10股派息 1.0 元 the same
    base = EN.drop(columns=["cash_dividend"])
    per = base.assign(**{"每股派息(税前)(元)": [0.1, 0.1, 0.099999] + [0.1] * 3 + [0.2] * 3 + [0.0] * 3,
                         "总股本": [100_000_000.0] * 12})
    out = evaluate_batch(per)
    ref = evaluate_batch(EN.assign(share_count=100_000_000.0))
    pd.testing.assert_frame_equal(out, ref, check_dtype=False)
    assert any("每股派息" in n and "share_count" in n for n in out.attrs["notes"])
    ten = base.assign(**{"每10股派息": [1.0, 1.0, 0.99999] + [1.0] * 3 + [2.0] * 3 + [0.0] * 3,
                         "share_count": [100_000_000.0] * 12})
    pd.testing.assert_frame_equal(evaluate_batch(ten), ref, check_dtype=False)
    with pytest.raises(BatchError, match="share_count"):
        evaluate_batch(base.assign(每股派息=0.1))


def test_a_unit_scaled_value_is_checked_in_the_fields_unit():
    df = EN.assign(**{"赞成票比例(%)": [67.5] * 11 + [150.0]})
    with pytest.raises(BatchError) as e:
        evaluate_batch(df)
    (p,) = e.value.problems
    assert p.where.startswith("第13行 row 13, 列 column '赞成票比例(%)' (vote_for_ratio)")
    assert "ratio between 0 and 1" in p.message and "1.5" in p.message
    out = evaluate_batch(EN.assign(**{"赞成票比例(%)": "67.5"}))
    assert len(out) == 12


def test_errors_are_chinese_first_and_name_the_row_and_the_column_as_the_file_names_it():
    df = EN.rename(columns=ZH_HEADERS).copy()
    df["现金分红总额(万元)"] = df["现金分红总额(万元)"].astype(object)
    df.loc[4, "现金分红总额(万元)"] = "一千万"
    df.loc[7, "证券代码"] = "002015.SH"
    with pytest.raises(BatchError) as e:
        evaluate_batch(df, source="vendor.csv")
    text = str(e.value)
    assert text.startswith("vendor.csv: 批量文件有误 invalid batch file (2 problems)")
    wheres = {p.where for p in e.value.problems}
    assert "第6行 row 6, 列 column '现金分红总额(万元)' (cash_dividend) (300750 2023)" in wheres
    assert "第9行 row 9, 列 column '证券代码' (stock_code)" in wheres


# ---- one reading of a column, as arrays ------------------------------------------------------------

CELLS = ["0", "-0", "1", "1.5", "-2.25", "+3", "007", "1,234.56", "１２３４", " 12 ", "1e5", "1.", ".5", "-", "",
         "   ", "12345678901234567", "0.6666666666666666", "1.2亿", "(100)", "NaN", "inf", "1_000", "9" * 20]


@pytest.mark.parametrize("fid", ["net_profit_attributable", "cash_dividend", "vote_for_ratio", "share_count"])
def test_a_column_read_as_arrays_reads_every_cell_as_read_field_does(fid):
    rng = np.random.default_rng(5)
    cells = [str(c) for c in rng.choice(CELLS, 3000)] + [repr(float(x)) for x in rng.uniform(-1e9, 1e9, 3000)]
    df = pd.DataFrame({"stock_code": [f"7{i:05d}" for i in range(len(cells))], "fiscal_year": 2024, fid: cells})
    df.attrs["xlmodel_origin"] = "csv"
    want = [read_field(FIELDS[fid], c, "csv") for c in cells]
    bad = {i + 2 for i, (_, err) in enumerate(want) if err}
    if bad:
        with pytest.raises(BatchError) as e:
            prepare_batch(df)
        got = {int(p.where.split("row ")[1].split(",")[0]) for p in e.value.problems if "row " in p.where}
        assert got == set(sorted(bad)[:50]) or len(e.value.problems) == 51
        ok = [i for i, (_, err) in enumerate(want) if not err]
        df = df.iloc[ok].reset_index(drop=True)
        want = [want[i] for i in ok]
    batch = prepare_batch(df)
    arr, absent = batch.encoded[fid]
    for i, (v, _) in enumerate(want):
        if v is None:
            assert absent[i] or FIELDS[fid].default_zero, (i, df[fid][i])
        else:
            assert arr[i] == v and np.signbit(arr[i]) == np.signbit(v), (df[fid][i], arr[i], v)


def test_results_do_not_depend_on_the_chunk_size(monkeypatch):
    import xlmodel.batch.evaluate as B

    assert B.CHUNK_ROWS == 8192  # the shipped chunk, as docs/reference.md (Big files) states; patched below
    df = market_frame(300, 5, seed=3)
    whole = evaluate_batch(df)
    monkeypatch.setattr(B, "CHUNK_ROWS", 7)  # chunk boundaries inside companies: history read across them
    pd.testing.assert_frame_equal(evaluate_batch(df), whole)


def test_the_csv_writer_writes_what_the_csv_module_would(tmp_path):
    from xlmodel.batch.output_csv import _csv_text

    out = evaluate_batch(EN)
    out.loc[0, "company_name"] = 'a, "quoted"\nname'
    out.loc[1, "company_name"] = "=HYPERLINK(\"x\")"
    out["odd"] = pd.Series([np.float64(1e16), -0.0, np.inf, np.nan] * 3, dtype=float)
    path = write_batch_csv(out, tmp_path / "out.csv")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(list(out.columns))
    for row in out.itertuples(index=False, name=None):
        w.writerow([_csv_text(v) for v in row])
    assert path.read_bytes() == b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8")
    xlsx = write_batch_xlsx(out, tmp_path / "out.xlsx")  # the same chunked writer for .xlsx
    assert xlsx.exists()


def test_floats_are_written_as_repr_writes_them():
    from xlmodel.batch.output_csv import _csv_text, _float_text

    rng = np.random.default_rng(8)
    vals = [float(round(x, int(d))) for x, d in zip(rng.uniform(-1, 1, 20000) * 10.0 ** rng.integers(-3, 15, 20000),
                                                   rng.choice([0, 1, 2, 2, 3, 6], 20000))]
    vals += [0.0, -0.0, 0.1, 0.05, 9_999_999_999_999.99, 1e13, 1e15, 1e16, -5.0, 2.675, 1e-5, math.inf, -math.inf,
             math.nan]
    assert _float_text(np.array(vals)) == [_csv_text(v) for v in vals]
