"""Worksheet functions (xlmodel/udfs.py, docs/reference.md "Worksheet functions (xlwings)").

Each XLM_* function is called with arguments shaped the way Excel and xlwings send
them (floats, None or "" blanks, padded text, 1-D or 2-D ranges, dates as datetimes
or serial numbers, 是/否 or TRUE/FALSE, Chinese labels), built from the sample cases
and from synthetic cases (xlmodel.synth), and compared with

* ``xlmodel.evaluate`` on the same case;
* the workbook's native formulas as headless LibreOffice computes them: ``build --udf``
  workbooks are recalculated and read in LibreOffice's memory, and the UDFs are called on
  the very ranges their formulas on the UDF sheet reference (LibreOffice's input sheet).

Registration is what Linux allows: xlwings' own Windows decorators and its VBA wrapper
generator (``xlwings/udfs.py``, loaded with stand-ins for pywin32) are run on the module,
so the metadata *Import Functions* would register (arguments, options, wizard texts) is
checked; calling them from Excel can only be verified on Windows (see docs/reference.md).
"""

from __future__ import annotations

import copy
import datetime as dt
import importlib.util
import io
import re
import sys
import types
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from openpyxl.utils.cell import get_column_letter, range_boundaries
from openpyxl.utils.datetime import from_excel

import xlmodel
from conftest import in_memory
from xlmodel import udfs
from xlmodel.case import load_case, parse_case
from xlmodel.rules.model import STATUS_ZH
from xlmodel.cli import main
from xlmodel.evaluator import evaluate, model_for
from xlmodel.rules.expr import to_serial
from xlmodel.fields import AUDIT_OPINIONS, COMPANY_FIELDS, ENUMS, FIELDS, Kind
from xlmodel.synth import parity_cases
from xlmodel.workbook.layout import CHECK_COL_INDEX, INPUT_SECTIONS, SHEETS, Layout, col_name
from xlmodel.engines.in_memory import read_libreoffice
from xlmodel.engines.recalc import recalculate
from xlmodel.workbook.udf_sheet import CONF_SHEET, UDF_SHEET
from xlmodel.workbook.writer import build_workbook

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("*.yaml"))
POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
SCALARS = {  # function -> report attribute
    "XLM_MIN_CASH": "min_cash_dividend",
    "XLM_MAX_DISTRIBUTION": "max_distribution",
    "XLM_CONDITIONS_MET": "cash_conditions_met",
    "XLM_OVERALL_STATUS": "overall_status",
    "XLM_FAIL_COUNT": "fail_count",
    "XLM_ST_RISK": "st_risk_warning",
    "XLM_CASH_TO_AVOID_ST": "cash_needed_to_avoid_st",
}
OUT_NAMES = {
    "XLM_MIN_CASH": "out_min_cash_dividend",
    "XLM_MAX_DISTRIBUTION": "out_max_distribution",
    "XLM_CONDITIONS_MET": "out_cash_conditions_met",
    "XLM_OVERALL_STATUS": "out_overall_status",
    "XLM_FAIL_COUNT": "out_fail_count",
    "XLM_ST_RISK": "out_st_risk_warning",
    "XLM_CASH_TO_AVOID_ST": "out_cash_needed_to_avoid_st",
}
LABEL = {code: zh for choices in ENUMS.values() for code, zh in choices.items()}


@pytest.fixture(autouse=True)
def _fresh_caches():
    udfs.clear_caches()
    yield
    udfs.clear_caches()


# ---- Excel-shaped arguments from a case ------------------------------------------------------------

def _serial(d: dt.date) -> float:
    return to_serial(d)


def excel_args(case, style: str = "com", n_years: int = 5) -> tuple:
    """The case as UDF arguments, the input sheet's way (fields down, years across).

    ``com``: as xlwings passes ranges on Windows with ``ndim=2`` — 2-D lists, floats, None for
    blanks, dates as datetimes, yes/no and enumerations as the sheet's Chinese labels, and the
    input sheet's section titles between the fields.
    ``flat``: as a 1-D range or xlwings Lite may send them — flat lists, "" for blanks, dates as
    serial numbers, booleans as TRUE/FALSE, codes padded with spaces, the policy id padded.
    """
    ey = case.evaluation_year
    years = [float(y) for y in range(ey - n_years + 1, ey + 1)]
    ids, rows = [], []
    for zh, en, fids in INPUT_SECTIONS:
        ids.append(f"{zh}  {en}")  # a section title with no values: skipped
        rows.append([None if style == "com" else ""] * len(years))
        for fid in fids:
            ids.append(fid if style == "com" else f"  {fid} ")
            rows.append([_excel_value(fid, case.value(fid, int(y)), style) for y in years])
    cids = [f.id for f in COMPANY_FIELDS]
    cvals = [_excel_value(f, case.company.get(f), style) for f in cids]
    aids = list(model_for(case.policy).attestation_ids())
    avals = [_excel_value(None, case.attestations.get(a), style) for a in aids]
    if style == "com":
        return (case.policy, float(ey), [[i] for i in ids], [years], rows,
                [[c] for c in cids], [[v] for v in cvals], [[a] for a in aids], [[v] for v in avals])
    return (f"  {case.policy} ", float(ey), ids, years, rows, cids, cvals, aids, avals)


def _excel_value(fid, v, style):
    f = FIELDS.get(fid) if fid else None
    kind = f.kind if f else Kind.BOOL
    if v is None:
        return None if style == "com" else ""
    if kind == Kind.BOOL:
        return ("是" if v else "否") if style == "com" else bool(v)
    if kind == Kind.ENUM:
        return ENUMS[fid][v] if style == "com" else f" {v}  "
    if kind == Kind.DATE:
        return dt.datetime.combine(v, dt.time()) if style == "com" else _serial(v)
    if kind in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT):
        return float(v)
    return v if style == "com" else f"{v} "


def _blank(v):
    return None if v == "" else v


def _same(a, b) -> bool:
    a, b = _blank(a), _blank(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or a == b and type(a) is type(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a))
    return a == b


def _expected_cell(v, unit):
    """A report value as the workbook (and the UDF) shows it."""
    if v is None:
        return None
    if isinstance(v, bool):  # a yes/no as the workbook's cells hold it: 1/0 shown 是/否, never TRUE/FALSE
        return 1.0 if v else 0.0
    if isinstance(v, str) and unit == "选项":
        return AUDIT_OPINIONS.get(v, LABEL.get(v, v))
    return v


def _check_against_report(args, rep, where=""):
    for fn, attr in SCALARS.items():
        got = getattr(udfs, fn)(*args)
        want = getattr(rep, attr)
        if attr == "overall_status":
            want = STATUS_ZH[want]
        want = _expected_cell(want, None)
        assert _same(got, want), f"{where} {fn}: UDF {got!r} vs evaluate() {want!r}"
    for r in rep.rules:
        assert udfs.XLM_RULE_STATUS(f" {r.id} ", *args) == STATUS_ZH[r.status], f"{where} {r.id}"
    table = udfs.XLM_EVALUATE(*args)
    assert table[0] == list(udfs.TABLE_HEADER)
    assert [row[0] for row in table[1:]] == [r.id for r in rep.rules]
    for row, r in zip(table[1:], rep.rules):
        assert row[1] == r.clause and row[2] == STATUS_ZH[r.status], f"{where} {r.id}"
        for got, want in zip(row[3:], (r.actual, r.required, r.shortfall)):
            assert _same(got, _expected_cell(want, r.unit)), f"{where} {r.id}: UDF {got!r} vs evaluate() {want!r}"


# ---- the functions against the evaluator ------------------------------------------------------------

@pytest.mark.parametrize("style", ["com", "flat"])
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_samples_equal_the_evaluator(sample, style):
    case = load_case(sample)
    _check_against_report(excel_args(case, style), evaluate(case), sample.stem)


@pytest.mark.parametrize("policy_id", POLICIES)
def test_synthetic_cases_equal_the_evaluator(policy_id):
    """Random and boundary cases, some with missing inputs (blank outputs, 缺少输入 statuses)."""
    statuses = set()
    for i, case in enumerate(parity_cases(policy_id, 24, seed=4)):
        if i % 4 == 0:  # blanks on the evaluation year: outputs blank, rules 缺少输入
            for fid in ("audit_opinion", "net_profit_attributable", "retained_earnings_parent"):
                case.years[case.evaluation_year].pop(fid, None)
        rep = evaluate(case)
        statuses |= {r.status for r in rep.rules}
        _check_against_report(excel_args(case, "com" if i % 2 else "flat"), rep, case.source)
    assert {"pass", "fail", "not_applicable", "missing_input"} <= statuses


def test_one_year_column_and_one_field_row_arrive_flat():
    """A single-column range and a single-row range may arrive as flat lists."""
    case = load_case(ROOT / "samples" / "houpu-2024-2026.yaml")
    ey = case.evaluation_year
    only = {"policy": case.policy, "evaluation_year": ey,
            "years": [{"fiscal_year": ey, **{k: (v.isoformat() if isinstance(v, dt.date) else v)
                                              for k, v in case.years[ey].items()}}]}
    rep = evaluate(parse_case(only))
    fids = [f for _, _, fs in INPUT_SECTIONS for f in fs]
    col = [_excel_value(f, case.value(f, ey), "com") for f in fids]
    got = udfs.XLM_MIN_CASH(case.policy, ey, fids, float(ey), col)  # years: one cell; values: a flat column
    assert _same(got, rep.min_cash_dividend)
    assert udfs.XLM_OVERALL_STATUS(case.policy, ey, fids, [[float(ey)]], [[v] for v in col]) == STATUS_ZH[rep.overall_status]
    # one field across the years: a flat row (and the field id a single cell)
    one = parse_case({"policy": case.policy, "evaluation_year": ey, "years": [
        {"fiscal_year": ey - 1}, {"fiscal_year": ey, "cash_dividend": 5e8}]})
    got = udfs.XLM_EVALUATE(case.policy, ey, "cash_dividend", [ey - 1.0, float(ey)], [None, 5e8])
    assert got[1:] == [[r.id, r.clause, STATUS_ZH[r.status], *(_blank(_expected_cell(v, r.unit)) if v is not None else ""
                                                                 for v in (r.actual, r.required, r.shortfall))]
                       for r in evaluate(one).rules]


def test_dates_as_serials_datetimes_or_text_give_the_same_result():
    case = load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml")
    base = excel_args(case, "com")
    ids = [i[0] for i in base[2]]
    r_agm, r_pay = ids.index("agm_date"), ids.index("payout_date")
    want = udfs.XLM_EVALUATE(*base)
    agm_serial, pay_serial = _serial(dt.date(2024, 5, 20)), _serial(dt.date(2024, 7, 12))
    for agm, pay in ((agm_serial, pay_serial), ("2024-05-20", " 2024-07-12 "),
                     (agm_serial + 0.75, dt.datetime(2024, 7, 12, 9, 30))):
        vals = copy.deepcopy(base[4])
        vals[r_agm][-1], vals[r_pay][-1] = agm, pay
        got = udfs.XLM_EVALUATE(base[0], base[1], base[2], base[3], vals, *base[5:])
        assert got == want, (agm, pay)
    row = next(r for r in want if r[0] == "payout_within_two_months")
    assert row[2:5] == ["通过", "2024-07-12", "2024-07-20"]  # dates in the table as YYYY-MM-DD


def test_booleans_labels_and_codes_are_interchangeable():
    case = load_case(ROOT / "samples" / "far-east-2022-2024.yaml")
    com, flat = excel_args(case, "com"), excel_args(case, "flat")
    assert udfs.XLM_EVALUATE(*com) == udfs.XLM_EVALUATE(*flat)
    att = [["TRUE"] if v == [True] or v == ["是"] else v for v in com[8]]
    assert udfs.XLM_EVALUATE(*com[:8], att) == udfs.XLM_EVALUATE(*com)


def test_optional_arguments_may_be_left_out():
    """Without company and attestations the rules that need them say 缺少输入 (missing input)."""
    case = load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml")
    args = excel_args(case, "com")
    bare = copy.deepcopy(case)
    bare.attestations, bare.company = {}, {}
    rep = evaluate(bare)
    _check_against_report(args[:5], rep, "no optional arguments")
    assert udfs.XLM_OVERALL_STATUS(*args[:5]) == "缺少输入"


def test_policies_and_rules_tables():
    pols = udfs.XLM_POLICIES()
    assert pols[0][0] == "规划 Plan" and [r[0] for r in pols[1:]] == list(POLICIES)
    for row, p in zip(pols[1:], xlmodel.list_plans_or_raise()):
        assert row == [p.id, p.version, p.title_zh, f"{p.plan_years[0]}–{p.plan_years[1]}"]
    for pid in POLICIES:
        rules = udfs.XLM_RULES(f" {pid} ")
        model = model_for(pid)
        assert len({len(r) for r in rules}) == 1 and len(rules[0]) == 6
        assert [r[0] for r in rules[1:]] == [r.id for r in model.rules]
        assert {r[3] for r in rules[1:]} <= {"condition", "requirement", "regulatory"}
        rep_ids = [r.id for r in evaluate(load_case(next(s for s in SAMPLES if s.stem == pid))).rules]
        assert [r[0] for r in rules[1:]] == rep_ids


# ---- bad input: readable strings naming the field and year -----------------------------------------

@pytest.fixture()
def gcl_args():
    return list(excel_args(load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml"), "com"))


def _with(args, fid, year, value):
    args = copy.deepcopy(args)
    ids = [i[0] for i in args[2]]
    col = [int(y) for y in args[3][0]].index(year)
    args[4][ids.index(fid)][col] = value
    return args


@pytest.mark.parametrize("fid,year,value,expect", [
    ("cash_dividend", 2023, "1.2亿", "#XLMODEL! 输入 cash_dividend (2023): 取值有误 expected an amount in 元 (a number), got '1.2亿'"),
    ("cash_dividend", 2022, "  1.2亿 ", "#XLMODEL! 输入 cash_dividend (2022): 取值有误 expected an amount in 元 (a number), got '1.2亿'"),
    ("net_profit_attributable", 2021, -2146826246, "#XLMODEL! 输入 net_profit_attributable (2021): 取值有误 expected an amount in 元 (a number), got '#N/A'"),
    ("total_assets", 2023, "#DIV/0!", "#XLMODEL! 输入 total_assets (2023): 取值有误 expected an amount in 元 (a number), got '#DIV/0!'"),
    ("vote_for_ratio", 2023, 67.0, "#XLMODEL! 输入 vote_for_ratio (2023): 取值有误 expected a ratio between 0 and 1"),
    ("audit_opinion", 2023, "好意见", "#XLMODEL! 输入 audit_opinion (2023): 取值有误 expected one of standard_unqualified"),
    ("going_concern_unaffected", 2023, "maybe", "#XLMODEL! 输入 going_concern_unaffected (2023): 取值有误 expected yes/no"),
    ("agm_date", 2023, "2024/13/45", "#XLMODEL! 输入 agm_date (2023): 取值有误 expected a date (YYYY-MM-DD), got '2024/13/45'"),
    ("agm_date", 2023, -5.0, "#XLMODEL! 输入 agm_date (2023): 须为日期"),
    ("share_count", 2023, 1.5, "#XLMODEL! 输入 share_count (2023): 取值有误 expected a whole, non-negative number of shares"),
])
def test_bad_values_name_the_field_and_year(gcl_args, fid, year, value, expect):
    for fn in ("XLM_MIN_CASH", "XLM_EVALUATE", "XLM_OVERALL_STATUS"):
        got = getattr(udfs, fn)(*_with(gcl_args, fid, year, value))
        assert isinstance(got, str) and got.startswith(expect), got
        assert _leads_chinese(got), got
        assert "Traceback" not in got


def _leads_chinese(message: str) -> bool:
    """A cell's error text after ``#XLMODEL!`` and the argument or input it names (``policy:``,
    ``输入 cash_dividend (2023):``): its first word is Chinese."""
    text = message.removeprefix("#XLMODEL! ")
    text = re.sub(r"^[^:：]*[:：]\s*", "", text, count=1)  # the place: an argument's name, 输入 field (year)
    text = re.sub(r"'[^']*'", "", text)  # a quoted value is the user's, not the message's own words
    first = re.search(r"[\u3400-\u9fff]|[A-Za-z]+", text)
    return bool(first and re.fullmatch(r"[\u3400-\u9fff]", first.group()))


def test_several_problems_say_how_many_more(gcl_args):
    args = _with(_with(gcl_args, "cash_dividend", 2023, "x"), "cash_dividend", 2022, "y")
    got = udfs.XLM_MIN_CASH(*args)
    assert got.startswith("#XLMODEL! 输入 cash_dividend (2022)") and got.endswith("（另有 1 处 +1 more）")


def test_bad_arguments(gcl_args):
    a = gcl_args
    pol, ey, ids, years, vals, cf, cv, ai, av = a
    cases = {
        "#XLMODEL! policy: 未知的规划 unknown policy 'nope'; known: far-east-2022-2024": udfs.XLM_MIN_CASH("nope", *a[1:]),
        "#XLMODEL! policy: 须为文本 expected text, got None": udfs.XLM_MIN_CASH(None, *a[1:]),
        "#XLMODEL! evaluation_year: 须为会计年度（如 2024）expected a fiscal year such as 2024, got '20x3'": udfs.XLM_MIN_CASH(pol, "20x3", *a[2:]),
        "#XLMODEL! evaluation_year: 须为会计年度（如 2024）expected a fiscal year such as 2024, got 2023.5": udfs.XLM_MIN_CASH(pol, 2023.5, *a[2:]),
        "#XLMODEL! years: 缺少 no entry for the evaluation year 2025": udfs.XLM_MIN_CASH(pol, 2025.0, *a[2:]),
        f"#XLMODEL! values: 须为 {len(ids)} 行（每个字段一行）× 5 列（每个年度一列），实为 {len(ids) - 1} × 5 "
        f"expected {len(ids)} rows (one per field id) × 5 columns (one per year), got {len(ids) - 1} × 5":
            udfs.XLM_MIN_CASH(pol, ey, ids, years, vals[:-1], *a[5:]),
        "#XLMODEL! years: 出现多次：2021 appears more than once":
            udfs.XLM_MIN_CASH(pol, ey, ids, [[2019.0, 2021.0, 2021.0, 2022.0, 2023.0]], vals, *a[5:]),
        "#XLMODEL! years (column 2): 须为会计年度（如 2024）expected a fiscal year such as 2024, got '去年'":
            udfs.XLM_MIN_CASH(pol, ey, ids, [[2019.0, "去年", 2021.0, 2022.0, 2023.0]], vals, *a[5:]),
        "#XLMODEL! field_ids: 须为单行或单列，实为 2 行 × 2 列 expected a single row or column, got 2 rows × 2 columns":
            udfs.XLM_MIN_CASH(pol, ey, [["a", "b"], ["c", "d"]], years, vals, *a[5:]),
        f"#XLMODEL! company: 个数不一致：{len(cv)} 个 ID，3 个值 {len(cv)} ids but 3 values": udfs.XLM_MIN_CASH(*a[:6], cv[:3], ai, av),
        "#XLMODEL! 输入 stock_code: 证券代码应为6位数字":  # 2015.0 would read as 002015 (its zeros lost); 12345 is no code
            udfs.XLM_MIN_CASH(*a[:6], [[v[0] if c[0] != "stock_code" else 12345.0] for c, v in zip(cf, cv)], ai, av),
        "#XLMODEL! 输入 attestation no_such_rule: 不符合要求 not an attestation of policy gcl-energy-2022-2024":
            udfs.XLM_MIN_CASH(*a[:7], ai + [["no_such_rule"]], av + [["是"]]),
        "#XLMODEL! 输入 attestation board_records_kept: 取值有误 expected yes/no":
            udfs.XLM_MIN_CASH(*a[:8], [["也许"] if i[0] == "board_records_kept" else v for i, v in zip(ai, av)]),
        "#XLMODEL! rule_id: 'nope' 不是 gcl-energy-2022-2024 的规则 is not a rule of gcl-energy-2022-2024 (known: cond_retained_positive":
            udfs.XLM_RULE_STATUS("nope", *a),
        "#XLMODEL! 输入 no_such_field (2023): 无法识别 unknown field":
            udfs.XLM_MIN_CASH(pol, ey, ids + [["no_such_field"]], years, vals + [[None] * 4 + [1.0]], *a[5:]),
        "#XLMODEL! field_ids: 出现多次：cash_dividend appears more than once":
            udfs.XLM_MIN_CASH(pol, ey, ids + [["cash_dividend"]], years, vals + [[None] * 4 + [1.0]], *a[5:]),
        "#XLMODEL! years: 第 5 列有数值但没有会计年度 column 5 has values but no fiscal year":
            udfs.XLM_MIN_CASH(pol, ey, ids, [[2019.0, 2020.0, 2021.0, 2022.0, None]], vals, *a[5:]),
    }
    for want, got in cases.items():
        assert isinstance(got, str) and got.startswith(want), (want, got)
        assert _leads_chinese(got), got  # Chinese first, as on the command line (issue 23 item 4)
    assert udfs.XLM_RULES("nope").startswith("#XLMODEL! policy: 未知的规划 unknown policy")


def test_an_unexpected_failure_is_still_a_string(gcl_args, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(udfs, "evaluate_one", boom)
    assert udfs.XLM_MIN_CASH(*gcl_args) == "#XLMODEL! 内部错误 internal error (RuntimeError): disk on fire"


# ---- caches ---------------------------------------------------------------------------------------

def test_one_evaluation_serves_every_function_of_a_case(gcl_args, monkeypatch):
    calls = []
    real = udfs.evaluate_one
    monkeypatch.setattr(udfs, "evaluate_one", lambda *a, **k: calls.append(1) or real(*a, **k))
    for fn in SCALARS:
        getattr(udfs, fn)(*gcl_args)
    udfs.XLM_EVALUATE(*gcl_args)
    udfs.XLM_RULE_STATUS("min_rolling", *gcl_args)
    assert len(calls) == 1
    udfs.XLM_MIN_CASH(*_with(gcl_args, "cash_dividend", 2023, 1.0))
    assert len(calls) == 2


def test_cache_keeps_true_and_one_apart(gcl_args):
    """TRUE and 1.0 hash alike in Python; an attestation of 1.0 is an error, not TRUE's cached result."""
    a = copy.deepcopy(gcl_args)
    a[8] = [[True] for _ in a[8]]
    assert isinstance(udfs.XLM_MIN_CASH(*a), float)
    a[8] = [[1.0] for _ in a[8]]
    assert udfs.XLM_MIN_CASH(*a).startswith("#XLMODEL! 输入 attestation")


def test_true_after_one_is_evaluated_again(gcl_args):
    """The last call's result serves an equal call: 1.0 after TRUE (equal in Python) is a new call, and
    TRUE after it reads TRUE again."""
    a = copy.deepcopy(gcl_args)
    a[8] = [[True] for _ in a[8]]
    first = udfs.XLM_MIN_CASH(*a)
    b = copy.deepcopy(a)
    b[8][0] = [1.0]
    assert udfs.XLM_MIN_CASH(*b).startswith("#XLMODEL! 输入 attestation")
    assert udfs.XLM_MIN_CASH(*a) == first


def test_a_numpy_true_after_one_is_evaluated_again(gcl_args):
    """numpy's booleans read as yes/no too: 1.0 after np.True_ is not its cached result."""
    a = copy.deepcopy(gcl_args)
    a[8] = [[np.True_] for _ in a[8]]
    assert isinstance(udfs.XLM_MIN_CASH(*a), float)
    a[8] = [[1.0] for _ in a[8]]
    assert udfs.XLM_MIN_CASH(*a).startswith("#XLMODEL! 输入 attestation")


def test_a_range_changed_in_place_is_evaluated_again(gcl_args):
    """A caller that changes its lists in place between calls gets the new case's result, not the last one."""
    a = copy.deepcopy(gcl_args)
    before = udfs.XLM_MIN_CASH(*a)
    ids = [i[0] for i in a[2]]
    col = [int(y) for y in a[3][0]].index(2023)
    row = a[4][ids.index("distributable_profit")]
    row[col] = row[col] * 2  # GCL 三、(二)、2: 10% of the year's distributable profit, so the minimum moves
    after = udfs.XLM_MIN_CASH(*a)
    assert after != before
    udfs.clear_caches()
    assert udfs.XLM_MIN_CASH(*a) == after  # what a fresh evaluation gives


def test_policies_are_loaded_once_and_reloaded_when_the_file_changes(monkeypatch):
    pol, model, _ = udfs.policy_entry("gcl-energy-2022-2024")
    assert udfs.policy_entry(" gcl-energy-2022-2024 ")[1] is model
    path, mtime, *_ = udfs._POLICIES["gcl-energy-2022-2024"]
    udfs._POLICIES["gcl-energy-2022-2024"] = (path, mtime - 1, pol, model)  # as if the file had changed
    loads = []
    real = udfs.load_plan_by_id  # a UDF's policy argument is an id, looked up among the plans, never a path
    monkeypatch.setattr(udfs, "load_plan_by_id", lambda ref: loads.append(ref) or real(ref))
    udfs.policy_entry("gcl-energy-2022-2024")
    assert loads == ["gcl-energy-2022-2024"] and udfs._POLICIES["gcl-energy-2022-2024"][1] == mtime


# ---- registration metadata (xlwings' Windows code path, run on Linux) ------------------------------

VBA_KEYWORDS = {"and", "as", "boolean", "byref", "byte", "byval", "call", "case", "const", "date", "dim", "do",
                "double", "each", "else", "empty", "end", "error", "for", "function", "get", "if", "in", "integer",
                "is", "let", "like", "long", "me", "mod", "new", "next", "not", "nothing", "null", "on", "optional",
                "or", "range", "set", "single", "static", "string", "sub", "then", "to", "type", "variant", "with"}
CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]{3,}")


@pytest.fixture(scope="module")
def windows_udfs():
    """xlwings' real Windows decorators (xlwings/udfs.py, with stand-ins for pywin32) applied to a
    fresh copy of xlmodel/udfs.py: the __xlfunc__ metadata Import Functions would read."""
    saved = {k: sys.modules.get(k) for k in ("pythoncom", "pywintypes", "win32com", "win32com.client", "xlwings.udfs")}
    pc = types.ModuleType("pythoncom")
    pc.CoInitialize = lambda: None
    win32com, client = types.ModuleType("win32com"), types.ModuleType("win32com.client")
    client.Dispatch = object
    win32com.client = client
    sys.modules.update({"pythoncom": pc, "pywintypes": types.ModuleType("pywintypes"), "win32com": win32com,
                        "win32com.client": client})
    sys.modules.pop("xlwings.udfs", None)
    import xlwings

    xlu = importlib.import_module("xlwings.udfs")
    saved_deco = (xlwings.func, xlwings.arg, xlwings.ret)
    xlwings.func, xlwings.arg, xlwings.ret = xlu.xlfunc, xlu.xlarg, xlu.xlret
    try:
        spec = importlib.util.spec_from_file_location("xlmodel._udfs_windows", ROOT / "xlmodel" / "udfs.py")
        mod = importlib.util.module_from_spec(spec)
        mod.__package__ = "xlmodel"
        spec.loader.exec_module(mod)
        yield xlu, mod
    finally:
        xlwings.func, xlwings.arg, xlwings.ret = saved_deco
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def test_every_function_registers_with_wizard_texts(windows_udfs):
    _, mod = windows_udfs
    registered = sorted(n for n in dir(mod) if hasattr(getattr(mod, n), "__xlfunc__"))
    assert registered == sorted(udfs.__all__)
    assert all(n.startswith("XLM_") for n in registered)
    for name in registered:
        xf = getattr(mod, name).__xlfunc__
        assert xf["name"] == name and xf["sub"] is False and xf["category"] == "xlmodel"
        assert xf["volatile"] is False and xf["call_in_wizard"] is True and xf["async_mode"] is None
        doc = xf["ret"]["doc"]
        assert len(doc) <= 255 and CJK.search(doc) and LATIN.search(doc), (name, doc)  # Excel cuts at 255
        assert "expand" not in xf["ret"]["options"]  # native dynamic arrays spill; no legacy resizing
        for a in xf["args"]:
            assert not a["doc"].startswith("Positional argument"), (name, a["name"])
            assert len(a["doc"]) <= 255 and CJK.search(a["doc"]) and LATIN.search(a["doc"]), (name, a["name"])
            assert a["vba"] is None and a["vararg"] is False
            assert a["name"].lower() not in VBA_KEYWORDS
            scalar = a["name"] in ("policy", "evaluation_year", "rule_id")
            assert a["options"] == ({"err_to_str": True} if scalar else {"ndim": 2, "err_to_str": True}), (name, a)
        optional = [a["name"] for a in xf["args"] if "optional" in a]
        if name == "XLM_POLICIES":
            assert optional == []
        elif name == "XLM_RULES":  # the year its titles are worded for (issue 47.4)
            assert optional == ["evaluation_year"]
        else:
            assert optional == ["company_fields", "company_values", "attestation_ids", "attestation_values"]
            assert all(a["optional"] is None for a in xf["args"] if "optional" in a)
            required = [a["name"] for a in xf["args"] if "optional" not in a]
            assert required == (["rule_id"] if name == "XLM_RULE_STATUS" else []) + list(udfs.CASE_ARGS[:5])


def test_import_functions_would_write_these_vba_wrappers(windows_udfs):
    """xlwings' generate_vba_wrapper, as Import Functions runs it, on the module."""
    xlu, mod = windows_udfs
    buf = io.StringIO()

    class Book:  # the workbook Import Functions writes into
        Name = "BOOK.xlsm"

    xlu.generate_vba_wrapper("xlmodel.udfs", mod, buf, Book())
    vba = buf.getvalue()
    sigs = re.findall(r"^Function (XLM_\w+)\((.*)\)$", vba, re.M)
    assert sorted(n for n, _ in sigs) == sorted(udfs.__all__)
    sig = dict(sigs)
    assert sig["XLM_POLICIES"] == ""
    assert sig["XLM_MIN_CASH"] == ("policy, evaluation_year, field_ids, years, values, Optional company_fields, "
                                   "Optional company_values, Optional attestation_ids, Optional attestation_values")
    assert sig["XLM_RULE_STATUS"].startswith("rule_id, policy, evaluation_year")
    assert 'XLPy.CallUDF("xlmodel.udfs", "XLM_EVALUATE", Array(policy, evaluation_year' in vba


def test_calls_as_xlwings_makes_them_with_omitted_optional_arguments(windows_udfs, gcl_args):
    """call_udf replaces VBA's 'missing' marker by the argument's default before calling."""
    _, mod = windows_udfs
    missing = -2147352572
    info = mod.XLM_OVERALL_STATUS.__xlfunc__["args"]
    raw = list(gcl_args[:5]) + [missing] * 4
    args = [info[i].get("optional") if v == missing else v for i, v in enumerate(raw)]
    assert mod.XLM_OVERALL_STATUS(*args) == udfs.XLM_OVERALL_STATUS(*gcl_args[:5]) == "缺少输入"


def test_on_linux_the_decorators_leave_plain_functions():
    assert udfs.XLM_MIN_CASH.__name__ == "XLM_MIN_CASH" and callable(udfs.XLM_MIN_CASH)
    assert set(udfs.SCALAR_FUNCTIONS) == set(SCALARS)


# ---- the workbook: build --udf ---------------------------------------------------------------------

_ARG = re.compile(r"""'[^']*'!\$?[A-Z]+\$?\d+(?::\$?[A-Z]+\$?\d+)?|"[^"]*"|[^,]+""")


def _split_args(formula: str) -> tuple[str, list[str]]:
    m = re.fullmatch(r"=(XLM_\w+)\((.*)\)", formula)
    assert m, formula
    return m.group(1), _ARG.findall(m.group(2))


def _resolve(wb, sheet: str, ref: str):
    """An argument of a UDF formula as xlwings (ndim=2) would pass it, read from ``wb`` (values)."""
    if ref.startswith('"'):
        return ref.strip('"')
    if "!" not in ref and ":" not in ref and not ref.startswith("$"):
        (sheet, ref), = wb.defined_names[ref].destinations
    elif "!" in ref:
        sheet, ref = ref.split("!")
        sheet = sheet.strip("'")
    cells = wb[sheet][ref.replace("$", "")]
    if not isinstance(cells, tuple):
        return _xl(cells.value)
    return [[_xl(c.value) for c in row] for row in cells]


def _xl(v):
    """openpyxl's reading of a cell as Excel sends it to xlwings: numbers as floats."""
    if isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    return v


def _udf_rows(wb_formulas):
    ws = wb_formulas[UDF_SHEET]
    for row in ws.iter_rows():
        for c in row:
            v = c.value
            text = v.text if isinstance(v, openpyxl.worksheet.formula.ArrayFormula) else v
            if isinstance(text, str) and text.startswith("=XLM_"):
                yield c, text


def _call(wb_values, formula):
    name, refs = _split_args(formula)
    args = [_resolve(wb_values, UDF_SHEET, r) for r in refs]
    return name, refs, getattr(udfs, name)(*args)


@pytest.fixture(scope="module")
def udf_book(tmp_path_factory):
    d = tmp_path_factory.mktemp("udfbook")
    path = d / "gcl.xlsx"
    assert main(["build", str(ROOT / "samples" / "gcl-energy-2022-2024.yaml"), "--udf", "-o", str(path)]) == 0
    return path, openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)


def test_build_udf_adds_the_sheets_and_the_xlwings_config(udf_book):
    path, wb, _ = udf_book
    assert wb.sheetnames == list(SHEETS.values()) + [UDF_SHEET, CONF_SHEET]
    conf = wb[CONF_SHEET]
    assert (conf["A1"].value, conf["B1"].value) == ("UDF Modules", "xlmodel.udfs")
    assert conf["A2"].value is None  # the add-in reads A1 down to the first blank
    assert conf["A1"].value.upper() == "UDF MODULES"  # GetConfig("UDF MODULES") upper-cases the keys


def test_udf_formulas_reference_the_input_ranges(udf_book):
    _, wb, _ = udf_book
    case = load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml")
    L = Layout(model_for(case.policy), case.evaluation_year)
    first, last = min(L.inputs.values()) + 1, max(L.inputs.values()) + 1
    found = {}
    for cell, formula in _udf_rows(wb):
        name, refs = _split_args(formula)
        found.setdefault(name, 0)
        found[name] += 1
        case_refs = refs[1:] if name == "XLM_RULE_STATUS" else refs
        assert case_refs[:5] == ["$C$3", "in_evaluation_year", f"'输入'!$A${first}:$A${last}", "'输入'!$E$5:$I$5",
                                 f"'输入'!$E${first}:$I${last}"], formula
        assert case_refs[5].startswith("'输入'!$A$") and case_refs[7].startswith("'输入'!$A$")
    assert found == {**{n: 1 for n in SCALARS}, "XLM_RULE_STATUS": len(L.model.rules), "XLM_EVALUATE": 1}
    assert wb[UDF_SHEET]["C3"].value == case.policy


def test_udf_cached_values_are_what_the_functions_return(udf_book):
    """Calling each formula on the workbook's own input ranges gives the value cached beside the native one."""
    _, wb, wbv = udf_book
    ws = wbv[UDF_SHEET]
    for cell, formula in _udf_rows(wb):
        name, _refs, got = _call(wbv, formula)
        if name == "XLM_EVALUATE":
            arr = wb[UDF_SHEET][cell.coordinate].value
            assert arr.ref == f"{cell.coordinate}:F{cell.row + len(got) - 1}"  # the spill range
            for i, row in enumerate(got):
                for j, v in enumerate(row):
                    assert _same(ws.cell(cell.row + i, 1 + j).value, v), (i, j, v)
            continue
        cached, native = ws.cell(cell.row, 3).value, ws.cell(cell.row, 4).value
        assert _same(got, cached), (formula[:40], got, cached)
        assert _same(got, native), (formula[:40], got, native)
        assert ws.cell(cell.row, 5).value == "是"  # 一致: 是/否 through the labels, never TRUE


def test_empty_model_with_udf_sheet(tmp_path):
    path = tmp_path / "houpu.xlsx"
    assert main(["build", "--policy", "houpu-2024-2026", "--year", "2025", "--udf", "-o", str(path)]) == 0
    wb, wbv = openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)
    assert wb[CONF_SHEET]["B1"].value == "xlmodel.udfs"
    results = {}
    for _cell, formula in _udf_rows(wb):
        name, _, got = _call(wbv, formula)
        assert not (isinstance(got, str) and got.startswith("#XLMODEL!")), (name, got)
        results[name] = got
    assert results["XLM_OVERALL_STATUS"] == "缺少输入"  # an empty model: inputs missing


def test_build_without_udf_has_no_udf_sheet(tmp_path):
    path = build_workbook(tmp_path / "plain.xlsx", policy="gcl-energy-2022-2024")
    assert openpyxl.load_workbook(path).sheetnames == list(SHEETS.values())


def test_xlmodel_check_accepts_a_udf_workbook(udf_book, capsys):
    path, *_ = udf_book
    assert main(["check", str(path)]) == 0
    assert "公式被修改" not in capsys.readouterr().err


# ---- against LibreOffice: the native formulas and the UDFs on the same inputs ----------------------

@pytest.fixture(scope="module")
def recalculated(libreoffice, tmp_path_factory):
    """(case, built workbook, LibreOffice's values of it) for the samples and 8 parity cases and an
    empty model of each plan: every workbook recalculated and read in LibreOffice's memory
    (:func:`xlmodel.engines.in_memory.read_libreoffice`, proven equal to its .xlsx export by
    tests/test_parity_engines.py), in the shape of that export's reading (:class:`_EngineBook`). Without
    LibreOffice's Python script provider the tests are skipped, saying so (in CI they fail: conftest.in_memory)."""
    if not in_memory("libreoffice"):
        pytest.skip("LibreOffice's Python script provider is not installed (libreoffice-script-provider-python): the "
                    "UDF tests read LibreOffice's values in its memory")
    root = tmp_path_factory.mktemp("udf-lo")
    built = []
    for sample in SAMPLES:
        case = load_case(sample)
        built.append((case, build_workbook(root / f"{sample.stem}.xlsx", case=case, udf=True)))
    for pid in POLICIES:
        for i, case in enumerate(parity_cases(pid, 8, seed=11)):
            built.append((case, build_workbook(root / f"{pid}-{i}.xlsx", case=case, udf=True)))
        built.append((None, build_workbook(root / f"{pid}-empty.xlsx", policy=pid, udf=True)))
    values = read_libreoffice([p for _, p in built], (*SHEETS.values(), UDF_SHEET))
    return [(case, path, _EngineBook(values[path], _book(path)[1])) for case, path in built]


class _EngineBook:
    """An engine's values of a workbook, ``{(sheet, "C3"): value}``, read as its .xlsx export would be
    read (:func:`_book`): ``book[sheet]["C3"].value``, ``book[sheet]["A1:B2"]`` as rows of cells, the
    workbook's defined names; a number in a cell the workbook formats as a date is that date."""

    def __init__(self, values: dict, ours):
        self.values, self.ours, self.defined_names = values, ours, ours.defined_names

    def __getitem__(self, sheet: str) -> "_EngineSheet":
        return _EngineSheet(self, sheet)


class _EngineSheet:
    def __init__(self, book: _EngineBook, name: str):
        self.book, self.name = book, name

    def __getitem__(self, ref: str):
        if ":" in ref:
            c0, r0, c1, r1 = range_boundaries(ref)
            return tuple(tuple(self[f"{get_column_letter(c)}{r}"] for c in range(c0, c1 + 1)) for r in range(r0, r1 + 1))
        v = self.book.values.get((self.name, ref))
        if isinstance(v, float) and isinstance(self.book.ours[self.name][ref].value, dt.datetime):
            v = from_excel(v)
        return types.SimpleNamespace(value=v)


def _book(path: Path):
    """(formulas, values) of a workbook as openpyxl reads them, read as ``xlmodel check`` reads them
    (xlmodel.workbook.xmlbook, proven equal to openpyxl's reading in tests/test_xmlbook.py), ten times faster."""
    from xlmodel.workbook.xmlbook import read_book

    return read_book(path.read_bytes())


def _named(wb, name):
    (sheet, ref), = wb.defined_names[name].destinations
    return wb[sheet][ref.replace("$", "")].value


def _yes_no(ours, native):
    """The workbook shows a yes/no as 1/0 formatted 是/否 (Excel formats no TRUE/FALSE), and a worksheet
    function returns the same 1/0: compared as they are (a TRUE from either side is a mismatch)."""
    return native


def _native_cell(v):
    if isinstance(v, dt.datetime):
        return v.date().isoformat()
    if isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    return _blank(v)


@pytest.mark.libreoffice
def test_udfs_equal_the_native_formulas_as_libreoffice_computes_them(recalculated):
    mismatches, compared = [], 0
    for case, built, lo in recalculated:
        wb_f = _book(built)[0]  # the formulas as xlmodel wrote them
        policy = lo[UDF_SHEET]["C3"].value
        model = model_for(policy)
        L = Layout(model, int(_named(lo, "in_evaluation_year")))
        for _cell, formula in _udf_rows(wb_f):
            name, refs, got = _call(lo, formula)  # the UDF on LibreOffice's copy of the input ranges
            compared += 1
            if name in OUT_NAMES:
                want = _yes_no(got, _native_cell(_named(lo, OUT_NAMES[name])))
                if not _same(got, want):
                    mismatches.append(f"{built.name} {name}: UDF {got!r} vs LibreOffice {want!r}")
            elif name == "XLM_RULE_STATUS":
                rid = refs[0].strip('"')
                want = _named(lo, f"chk_{rid}")
                if got != want:
                    mismatches.append(f"{built.name} {rid}: UDF {got!r} vs LibreOffice {want!r}")
            else:  # XLM_EVALUATE against the 检查 sheet, row by row
                checks = lo[SHEETS["checks"]]
                for row in got[1:]:
                    r = L.check_rows[row[0]] + 1
                    cols = [col_name(CHECK_COL_INDEX[k]) for k in ("actual", "required", "shortfall", "status")]
                    native = [_native_cell(checks[f"{c}{r}"].value) for c in cols]
                    ours = [row[3], row[4], row[5], row[2]]
                    for col, a, b in zip(cols, ours, native):
                        if not _same(a, _yes_no(a, b)):
                            mismatches.append(f"{built.name} {row[0]} 检查!{col}{r}: UDF {a!r} vs LibreOffice {b!r}")
        if case is not None:  # and the evaluator agrees with both
            rep = evaluate(case)
            if _named(lo, "out_overall_status") != STATUS_ZH[rep.overall_status]:
                mismatches.append(f"{built.name}: LibreOffice overall status differs from evaluate()")
    print(f"\n{len(recalculated)} workbooks, {compared} UDF formulas compared, {len(mismatches)} mismatches")
    assert compared > 0 and not mismatches, "\n".join(mismatches[:30])


@pytest.mark.libreoffice
def test_libreoffice_keeps_the_udf_sheets_and_leaves_udf_cells_unevaluated(recalculated, tmp_path):
    """Without xlwings (LibreOffice, or Excel before Import Functions) the UDF cells show an error
    while the native column keeps its values: the cached UDF values are for viewers only."""
    _case, built, _ = recalculated[0]
    out, = recalculate([built], tmp_path)
    lo = openpyxl.load_workbook(out, data_only=True)
    assert CONF_SHEET in lo.sheetnames and lo[CONF_SHEET]["B1"].value == "xlmodel.udfs"
    ws = lo[UDF_SHEET]
    assert isinstance(ws["C7"].value, str) and ws["C7"].value.startswith("#")
    ours = openpyxl.load_workbook(built, data_only=True)[UDF_SHEET]
    assert ws["A7"].value == "XLM_MIN_CASH" and _same(ws["D7"].value, ours["D7"].value)  # native: recalculated
    assert isinstance(ours["C7"].value, (int, float))  # what viewers that do not recalculate show
