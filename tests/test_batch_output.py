"""The batch output people work with (issue 14, item 3).

Columns: the company first, then policy, fiscal year, ``in_plan_period``, the outputs and per
rule status, actual, bound, margin, shortfall (blank where the rule does not fall short). The
``.xlsx``: a summary sheet 汇总 first and a results sheet 结果 with a two-row header, frozen panes,
an autofilter, 元 formats and no formula anywhere. The ``.csv``: one header row of column ids.
A 5,000-company-year batch runs through the command line to both, with a progress bar on a
terminal only. The reference (docs/reference.md) lists every input and output column.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

import xlmodel.batch.evaluate
from xlmodel.batch.table import read_table
import xlmodel.progress
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.batch.table import KEY_COLUMNS
from xlmodel.batch.results import (COMPANY_COLUMNS, LEAD_COLUMNS, OUTPUT_COLUMNS, REVIEWED_COLUMN, RULE_PARTS,
                                   result_columns, rule_parts)
from xlmodel.batch.output import (AMOUNT_FORMAT, DATE_FORMAT, RESULTS_SHEET, STATUS_LABELS, SUMMARY_SHEET, at_risk,
                                  write_batch_xlsx)
from xlmodel.batch.output_csv import write_batch_csv
from xlmodel.rules.model import BOUND_ZH, STATUS_ZH
from xlmodel.evaluator import evaluate, model_for
from xlmodel.fields import FIELDS
from xlmodel.synth import cases_frame, parity_cases, synthetic_code
from conftest import cli as _cli

ROOT = Path(__file__).resolve().parents[1]
GCL, FAR_EAST, HOUPU = "gcl-energy-2022-2024", "far-east-2022-2024", "houpu-2024-2026"
POLICIES = (FAR_EAST, GCL, HOUPU)


def _named(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    df.insert(df.columns.get_loc("stock_code") + 1, "company_name", [f"示例公司{c}" for c in df["stock_code"]])
    return df


@pytest.fixture(scope="module")
def gcl_frame() -> pd.DataFrame:
    return _named(cases_frame(parity_cases(GCL, 30, seed=11)))


@pytest.fixture(scope="module")
def gcl_out(gcl_frame) -> pd.DataFrame:
    return evaluate_batch(gcl_frame)


def _blank(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


# ---- columns ----------------------------------------------------------------------------------

def test_columns_company_first_then_policy_year_period_outputs_and_rules(gcl_out):
    model = model_for(GCL)
    cols = list(gcl_out.columns)
    assert cols[:5] == ["company_name", "stock_code", "policy", "fiscal_year", "in_plan_period"]
    # the outputs, with plan_reviewed added right after overall_status (issue 46.1: an unreviewed draft's rows)
    outs = list(OUTPUT_COLUMNS)
    outs.insert(outs.index("overall_status") + 1, "plan_reviewed")
    assert cols[5:5 + len(outs)] == outs
    assert gcl_out["plan_reviewed"].tolist() == [True] * len(gcl_out)  # a bundled plan: reviewed
    assert cols == result_columns(model, company=COMPANY_COLUMNS)
    rules = cols[5 + len(outs):-1]
    expect = [f"{rd.id}.{p}" for rd in model.rules for p in rule_parts(rd)]
    assert rules == expect
    assert cols[-1] == "missing_inputs"  # last: what the undecided rules lack (issue 47.5)
    for rd in model.rules:
        parts = rule_parts(rd)
        assert parts[:2] == ("status", "actual")
        assert ("bound" in parts) == (rd.check.required is not None)
        assert ("margin" in parts) == rd.has_margin
        assert ("shortfall" in parts) == (rd.check.shortfall is not None)
        assert list(parts) == [p for p in RULE_PARTS if p in parts]
    assert not any(c.endswith(".required") or c.endswith(".bound_kind") for c in cols)  # the kind is in the header


def test_company_name_is_carried_and_a_name_key_stands_alone(gcl_frame, gcl_out):
    assert list(gcl_out["company_name"]) == list(gcl_frame["company_name"])
    assert list(gcl_out["stock_code"]) == list(gcl_frame["stock_code"])
    by_name = evaluate_batch(gcl_frame.drop(columns="stock_code"))
    assert list(by_name.columns[:4]) == ["company_name", "policy", "fiscal_year", "in_plan_period"]
    assert "stock_code" not in by_name.columns
    assert list(by_name["overall_status"]) == list(gcl_out["overall_status"])


def test_in_plan_period_marks_years_outside_the_plan_years(gcl_out):
    lo, hi = model_for(GCL).policy.plan_years
    assert gcl_out["in_plan_period"].dtype == bool
    assert list(gcl_out["in_plan_period"]) == [lo <= y <= hi for y in gcl_out["fiscal_year"]]
    assert gcl_out["in_plan_period"].any() and (~gcl_out["in_plan_period"]).any()  # 2020–2024 against 2022–2024
    # years outside are evaluated all the same
    assert gcl_out.loc[~gcl_out["in_plan_period"], "overall_status"].notna().all()


def test_shortfall_is_blank_unless_the_rule_falls_short(gcl_out):
    seen = {"not_applicable": 0, "pass": 0, "fail": 0}
    for rd in model_for(GCL).rules:
        if rd.check.shortfall is None:
            continue
        st, sf = gcl_out[f"{rd.id}.status"], gcl_out[f"{rd.id}.shortfall"]
        short = st.isin(["fail", "not_met", "warn"])
        assert sf[~short].isna().all(), rd.id  # not applicable, passing, missing input: blank, never 0.0
        assert sf[short].notna().all() and (sf[short] >= 0).all(), rd.id
        assert (sf[st == "fail"] > 0).all(), rd.id  # a warning may come from a trigger that is not cash (破净)
        for s in seen:
            seen[s] += int((st == s).sum())
    assert all(seen.values()), seen  # the fixture has rows of each kind


def test_values_are_the_evaluators_own(gcl_frame, gcl_out):
    """actual, bound, margin and a shortfall equal the single-case report of the same row."""
    from xlmodel.case import Case

    cases = parity_cases(GCL, 30, seed=11)
    checked = 0
    for i, c in enumerate(cases[:8]):
        y = c.evaluation_year
        rep = evaluate(Case(c.policy, y, c.company, c.years, c.attestations))
        row = gcl_out[(gcl_out.stock_code == synthetic_code(i)) & (gcl_out.fiscal_year == y)].iloc[0]
        for r in rep.rules:
            got = row[f"{r.id}.actual"]
            got = got.isoformat() if isinstance(got, dt.date) else None if _blank(got) else got
            assert got == r.actual, (i, r.id)
            if r.required is not None:
                b = row[f"{r.id}.bound"]
                assert (None if _blank(b) else b.isoformat() if isinstance(b, dt.date) else b) == r.required, (i, r.id)
            if r.margin is not None or f"{r.id}.margin" in row:
                assert (None if _blank(row[f"{r.id}.margin"]) else row[f"{r.id}.margin"]) == r.margin, (i, r.id)
            checked += 1
    assert checked


def test_dates_are_dates(gcl_out):
    col = "payout_within_two_months.actual"
    vals = [v for v in gcl_out[col] if not _blank(v)]
    assert vals and all(isinstance(v, dt.date) for v in vals)
    assert all(isinstance(v, dt.date) for v in gcl_out["payout_within_two_months.bound"] if not _blank(v))


def test_labels_name_the_rule_part_and_bound_kind(gcl_out):
    info = gcl_out.attrs["columns"]
    model = model_for(GCL)
    for rd in model.rules:
        assert info[f"{rd.id}.status"]["zh"].endswith(" 状态")
        assert rd.spec.title_zh in info[f"{rd.id}.status"]["zh"]
        if rd.bound:
            assert BOUND_ZH[rd.bound] in info[f"{rd.id}.bound"]["zh"]
    assert info["min_annual.bound"]["zh"].endswith("下限（元）")
    assert info["distribution_cap.bound"]["zh"].endswith("上限（元）")
    assert info["in_plan_period"]["zh"] == "在规划期内"


# ---- CSV ------------------------------------------------------------------------------------------

def test_csv_has_one_header_row_of_column_ids(tmp_path, gcl_out):
    out = write_batch_csv(gcl_out, tmp_path / "out.csv")
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0] == list(gcl_out.columns) and len(rows) == len(gcl_out) + 1
    back = pd.read_csv(out, encoding="utf-8-sig", dtype={"stock_code": str})
    assert set(back["min_rolling.status"]) <= set(STATUS_ZH)  # codes, not labels
    assert set(back["in_plan_period"]) <= {True, False}
    na = back["min_rolling.status"] == "not_applicable"
    assert na.any() and back.loc[na, "min_rolling.shortfall"].isna().all()
    dates = back["payout_within_two_months.actual"].dropna()
    assert len(dates) and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) for d in dates)


# ---- XLSX -----------------------------------------------------------------------------------------

def _sheet_xml(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n).decode("utf-8") for n in z.namelist() if n.startswith("xl/worksheets/") and n.endswith(".xml")}


@pytest.fixture(scope="module")
def gcl_xlsx(tmp_path_factory, gcl_out) -> Path:
    return write_batch_xlsx(gcl_out, tmp_path_factory.mktemp("xlsx") / "out.xlsx")


def test_xlsx_sheets_header_freeze_filter(gcl_xlsx, gcl_out):
    wb = openpyxl.load_workbook(gcl_xlsx)
    assert wb.sheetnames == [SUMMARY_SHEET, RESULTS_SHEET]  # the summary first
    ws = wb[RESULTS_SHEET]
    cols = list(gcl_out.columns)
    ids = [c.value for c in ws[2]]
    assert ids == cols
    labels = [c.value for c in ws[1]]
    info = gcl_out.attrs["columns"]
    assert labels == [info[c]["zh"] for c in cols]
    assert labels[:5] == ["公司名称", "证券代码", "分红回报规划", "会计年度", "在规划期内"]
    assert ws["A1"].font.b and ws["A1"].fill.fgColor.rgb.endswith("1F4E79")
    assert ws.freeze_panes == "C3"  # below the two header rows, right of name and code
    assert ws.auto_filter.ref == f"A2:{openpyxl.utils.get_column_letter(len(cols))}{len(gcl_out) + 2}"
    assert ws.max_row == len(gcl_out) + 2
    assert len(ws.conditional_formatting) > 0  # statuses coloured


def test_xlsx_values_formats_and_labels(gcl_xlsx, gcl_out):
    ws = openpyxl.load_workbook(gcl_xlsx)[RESULTS_SHEET]
    cols = list(gcl_out.columns)
    col = {c: j + 1 for j, c in enumerate(cols)}
    amounts = ["min_cash_dividend", "max_distribution", "cash_needed_to_avoid_st", "min_rolling.actual",
               "min_rolling.bound", "min_rolling.margin", "min_rolling.shortfall", "distribution_cap.bound"]
    for i in range(len(gcl_out)):
        r = i + 3
        src = gcl_out.iloc[i]
        for c in amounts:
            cell = ws.cell(r, col[c])
            if _blank(src[c]):
                assert cell.value is None, (r, c)
            else:
                assert cell.value == pytest.approx(src[c]) and cell.number_format == AMOUNT_FORMAT, (r, c)
        assert ws.cell(r, col["overall_status"]).value == STATUS_LABELS[src["overall_status"]]
        assert ws.cell(r, col["min_rolling.status"]).value == STATUS_ZH[src["min_rolling.status"]]
        assert ws.cell(r, col["in_plan_period"]).value == ("是" if src["in_plan_period"] else "否")
        assert ws.cell(r, col["stock_code"]).value == src["stock_code"]  # text: leading zeros kept
        assert ws.cell(r, col["fiscal_year"]).value == src["fiscal_year"]
        d = src["payout_within_two_months.actual"]
        cell = ws.cell(r, col["payout_within_two_months.actual"])
        if isinstance(d, dt.date):
            assert cell.value.date() == d and cell.number_format == DATE_FORMAT


def test_xlsx_has_no_formula_anywhere(gcl_xlsx):
    sheets = _sheet_xml(gcl_xlsx)
    assert len(sheets) == 2
    for name, xml in sheets.items():
        assert not re.search(r"<f[\s>/]", xml), name


def test_xlsx_summary_counts_legend_and_at_risk(tmp_path):
    df = _named(cases_frame([c for pid in POLICIES for c in parity_cases(pid, 60, seed=5)]))
    out = evaluate_batch(df)
    assert out["st_risk_warning"].eq(True).any()
    path = write_batch_xlsx(out, tmp_path / "out.xlsx")
    _check_summary(path, out)
    # a ratio is a percentage; a rule id shared by plans with different titles names them all
    ws = openpyxl.load_workbook(path)[RESULTS_SHEET]
    j = list(out.columns).index("vote_majority.actual") + 1
    i = next(i for i, v in enumerate(out["vote_majority.actual"]) if not _blank(v))
    assert ws.cell(i + 3, j).value == pytest.approx(out["vote_majority.actual"].iloc[i])
    assert ws.cell(i + 3, j).number_format == "0.00%"
    j = list(out.columns).index("min_rolling.status") + 1
    assert " ／ " in ws.cell(1, j).value and ws.cell(1, j).value.endswith(" 状态")


def _summary_rows(path: Path) -> list[tuple]:
    wb = openpyxl.load_workbook(path, read_only=True)
    rows = [tuple(r) for r in wb[SUMMARY_SHEET].iter_rows(values_only=True)]
    wb.close()
    return rows


def _section(rows: list[tuple], title: str) -> int:
    return next(i for i, r in enumerate(rows) if isinstance(r[0], str) and r[0].startswith(title))


def _check_summary(path: Path, out: pd.DataFrame) -> None:
    rows = _summary_rows(path)
    # the companies at risk lead the sheet
    assert _section(rows, "1. 交易所低分红风险警示") < _section(rows, "2. 总体结果")
    # 2. overall status: label, code, count
    i = _section(rows, "2. 总体结果") + 2
    counts = out["overall_status"].value_counts()
    got = {}
    while rows[i][1]:
        got[rows[i][1]] = rows[i][2]
        assert rows[i][0] == STATUS_LABELS[rows[i][1]]
        i += 1
    assert {k: v for k, v in got.items() if v} == counts.to_dict()
    # 3. the legend: every status with its Chinese label
    i = _section(rows, "3. 状态说明") + 2
    legend = {rows[k][2]: rows[k][0] for k in range(i, i + 7)}
    assert legend == {code: STATUS_ZH[code] for code in STATUS_ZH}
    # 4. by rule and status
    i = _section(rows, "4. 按规则统计") + 1
    head = rows[i]
    order = [h.split("\n")[1] for h in head[3:10]]
    k = i + 1
    while k < len(rows) and rows[k][0]:
        rid = rows[k][0]
        vc = out[f"{rid}.status"].value_counts()
        for j, s in enumerate(order):
            assert (rows[k][3 + j] or 0) == int(vc.get(s, 0)), (rid, s)
        assert rows[k][10] == int(vc.sum())
        k += 1
    assert k - i - 1 == sum(1 for c in out.columns if c.endswith(".status"))
    # 1. at risk: exactly the rows with st_risk_warning true, most cash needed first
    i = _section(rows, "1. 交易所低分红风险警示") + 2
    assert rows[i][:5] == ("公司名称 Company", "证券代码 Code", "规划 Policy", "会计年度 Year",
                          "本年须宣告现金分红合计（元）This year's cash needed in total")
    listed = []
    k = i + 1
    while k < len(rows) and rows[k][1]:
        listed.append(rows[k][:5])
        k += 1
    flagged = out[out["st_risk_warning"].eq(True)]
    assert len(listed) == len(flagged) > 0
    assert sorted((r[1], r[3]) for r in listed) == sorted(zip(flagged["stock_code"], flagged["fiscal_year"]))
    want = {(c, y): v for c, y, v in zip(flagged["stock_code"], flagged["fiscal_year"], flagged["cash_needed_to_avoid_st"])}
    assert all(r[4] == pytest.approx(want[(r[1], r[3])]) for r in listed)
    cash = [r[4] for r in listed]
    assert cash == sorted(cash, reverse=True)
    assert list(at_risk(out)["stock_code"]) == [r[1] for r in listed]
    wb = openpyxl.load_workbook(path)
    ws = wb[SUMMARY_SHEET]
    assert ws.cell(i + 2, 5).number_format == AMOUNT_FORMAT


def test_a_mixed_batch_has_every_plans_columns():
    df = cases_frame([c for pid in POLICIES for c in parity_cases(pid, 5, seed=2)])
    out = evaluate_batch(df)
    for pid in POLICIES:
        lead = len(("stock_code",)) + len(LEAD_COLUMNS) + len(OUTPUT_COLUMNS) + 1  # + plan_reviewed (issue 46.1)
        for c in result_columns(model_for(pid))[lead:]:
            assert c in out.columns
        rows = out["policy"] == pid
        lo, hi = model_for(pid).policy.plan_years
        assert list(out.loc[rows, "in_plan_period"]) == [lo <= y <= hi for y in out.loc[rows, "fiscal_year"]]
    # a rule of another plan is blank on a row
    houpu_only = [c for c in out.columns if c.endswith(".status") and c not in result_columns(model_for(GCL))]
    assert houpu_only and out.loc[out["policy"] == GCL, houpu_only].isna().all().all()


# ---- 5,000 company-years through the command line -----------------------------------------------

@pytest.fixture(scope="module")
def big_csv(tmp_path_factory) -> Path:
    cases = [c for pid in POLICIES for c in parity_cases(pid, 334, seed=3)]
    df = _named(cases_frame(cases))
    assert len(df) >= 5000
    path = tmp_path_factory.mktemp("big") / "company_years.csv"
    df.to_csv(path, index=False)
    return path




def test_5000_company_years_to_csv_without_a_bar_off_a_terminal(capsys, tmp_path, big_csv):
    out = tmp_path / "results.csv"
    code, stdout, err = _cli(capsys, "evaluate", "--batch", big_csv, "-o", out)
    assert code == 1, err  # some rows fail or lack inputs
    assert "Traceback" not in err and "5010 company-years evaluated" in err
    assert "outside their plan's years" in err
    assert "evaluating" not in err and "\r" not in err  # no progress bar: stderr is not a terminal
    df = pd.read_csv(out, encoding="utf-8-sig", dtype={"stock_code": str})
    assert len(df) == 5010 and list(df.columns[:5]) == ["company_name", "stock_code", "policy", "fiscal_year",
                                                        "in_plan_period"]


def test_5000_company_years_to_xlsx_with_a_bar_on_a_terminal(capsys, tmp_path, big_csv, monkeypatch):
    monkeypatch.setattr(xlmodel.progress, "_isatty", lambda stream: True)
    out = tmp_path / "results.xlsx"
    code, stdout, err = _cli(capsys, "evaluate", "--batch", big_csv, "-o", out)
    assert code == 1, err
    assert "Traceback" not in err and "5010 company-years evaluated" in err
    assert "评估并写出 evaluating and writing" in err  # tqdm on stderr, a chunk at a time
    assert stdout == ""
    assert not any(re.search(r"<f[\s>/]", xml) for xml in _sheet_xml(out).values())
    wb = openpyxl.load_workbook(out, read_only=True)
    assert wb.sheetnames == [SUMMARY_SHEET, RESULTS_SHEET]
    ws = wb[RESULTS_SHEET]
    head = [next(ws.iter_rows(min_row=2, max_row=2, values_only=True))][0]
    assert head[:5] == ("company_name", "stock_code", "policy", "fiscal_year", "in_plan_period")
    assert ws.max_row == 5012
    wb.close()
    res = evaluate_batch(read_table(big_csv))
    _check_summary_at_risk_only(out, res)


def _check_summary_at_risk_only(path: Path, out: pd.DataFrame) -> None:
    rows = _summary_rows(path)
    i = _section(rows, "1. 交易所低分红风险警示") + 3
    end = _section(rows, "2. 总体结果")
    listed = [r for r in rows[i:end] if r[1]]
    flagged = out[out["st_risk_warning"].eq(True)]
    assert len(listed) == len(flagged) > 0
    assert sorted((r[1], r[3]) for r in listed) == sorted(zip(flagged["stock_code"], flagged["fiscal_year"]))


def test_a_short_run_shows_no_bar_even_on_a_terminal(capsys, tmp_path, gcl_frame, monkeypatch):
    monkeypatch.setattr(xlmodel.progress, "_isatty", lambda stream: True)
    src = tmp_path / "in.csv"
    gcl_frame.to_csv(src, index=False)
    code, _, err = _cli(capsys, "evaluate", "--batch", src, "-o", tmp_path / "out.xlsx")
    assert code in (0, 1) and "evaluating" not in err


# ---- the reference ------------------------------------------------------------------------------

def _readme_section() -> str:
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")  # moved from the README (issue 25)
    start = text.index("## Batch input and output columns")
    end = text.find("\n## ", start + 3)
    return text[start:end if end > 0 else None]


def test_readme_lists_every_batch_input_and_output_column():
    sec = _readme_section()
    for c in list(KEY_COLUMNS) + list(FIELDS) + list(LEAD_COLUMNS) + list(OUTPUT_COLUMNS) + [REVIEWED_COLUMN]:
        assert f"`{c}`" in sec, c
    assert "`attest_<rule_id>`" in sec
    for p in RULE_PARTS:
        assert f"`<rule>.{p}`" in sec, p
    for label in STATUS_LABELS.values():
        assert label in sec
    assert SUMMARY_SHEET in sec and RESULTS_SHEET in sec
