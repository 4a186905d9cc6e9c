"""Worksheet functions (xlwings UDFs) over the evaluator: ``=XLM_MIN_CASH(...)`` in any cell.

Only the BSD-licensed classic xlwings API is used (``xw.func``, ``xw.arg``); on
Windows the xlwings add-in's *Import Functions* turns every ``XLM_*`` function
into a VBA wrapper and registers its docstrings with the function wizard. On
other platforms the decorators do nothing and the functions are plain Python.

A case is passed as on the workbook's input sheet 输入: field ids down (a column
range), fiscal years across (a row range), the values as a block (one row per
field id, one column per year), then optionally the company fields and the
attestations (ids and values as two columns). Arguments are taken as Excel and
xlwings send them (floats, None or "" for blanks, padded text, 1-D or 2-D
ranges, dates as datetimes or serial numbers, TRUE/FALSE or 是/否, Chinese
enumeration labels), checked with the same coercion as case files
(:func:`xlmodel.case.parse_case` / :func:`xlmodel.case.coerce`), and a bad
argument gives a readable ``#XLMODEL! …`` string naming the field and year,
never a traceback.

Nothing here computes a rule: every figure is read from the evaluator's own
calculations (:func:`xlmodel.evaluator.evaluate_one`, the scalar program compiled from the
model's trees), the same values the workbook caches in its native formulas. Loaded policies and the last evaluated
cases are cached, so the scalar functions of one case share one evaluation: a call whose arguments equal the
last call's (compared in C, TRUE kept apart from 1) is answered from it; others are looked up by their pickle.
"""

from __future__ import annotations

import os
import pickle
import re
from collections import OrderedDict
from typing import Any

import numpy as np
import xlwings as xw

from .announce.rows import LINES, PROPOSAL, TRIGGERS, TRIGGERS_TEXT
from .rules import catalogue as cat
from .rules.model import LABEL_TEXT
from .case import check_attestations, parse_case
from .values import MAX_SERIAL, from_cell
from .errors import CaseError, XlmodelError, problem_zh, zh_first
from .evaluator import attestation_ids as model_attestations, evaluate_one, model_for
from .rules.expr import from_serial
from .fields import ENUMS, FIELDS, Kind
from .outputs import OUTPUT, PART
from .plans.schema import Policy, open_reviews, worded_for_year
from .plans.loading import find_plan, list_plans_or_raise, load_plan_by_id
from .report import UNREVIEWED

__all__ = [
    "XLM_POLICIES", "XLM_RULES", "XLM_EVALUATE", "XLM_MIN_CASH", "XLM_MAX_DISTRIBUTION", "XLM_CONDITIONS_MET",
    "XLM_OVERALL_STATUS", "XLM_RULE_STATUS", "XLM_FAIL_COUNT", "XLM_ST_RISK", "XLM_CASH_TO_AVOID_ST", "XLM_PLAN",
    "XLM_ANNOUNCE",
]

ERROR_PREFIX = "#XLMODEL!"
CATEGORY = "xlmodel"

#: COM error codes: without ``err_to_str`` a cell error (#N/A …) reaches Python as one of these ints
EXCEL_ERRORS = {-2146826281: "#DIV/0!", -2146826246: "#N/A", -2146826259: "#NAME?", -2146826288: "#NULL!",
                -2146826252: "#NUM!", -2146826265: "#REF!", -2146826273: "#VALUE!", -2146826245: "#GETTING_DATA"}


# ---- argument docs (shown by the Excel function wizard; Excel cuts each at 255 characters) ----------

RANGE = {"ndim": 2, "err_to_str": True}  # ranges always arrive 2-D; cell errors as "#N/A" text
SCALAR = {"err_to_str": True}

ARG_DOCS = {
    "policy": "政策ID，如 gcl-energy-2022-2024（见 XLM_POLICIES）。Policy id, e.g. gcl-energy-2022-2024 (see XLM_POLICIES).",
    "evaluation_year": "评估年度，如 2024 或 in_evaluation_year。Evaluation (fiscal) year, e.g. 2024 or in_evaluation_year.",
    "field_ids": "字段ID列，如 输入!A7:A36；整行为空（含分节标题行）则忽略。Column of field ids, e.g. 输入!A7:A36; rows with no values "
                 "(section titles) are skipped.",
    "years": "会计年度行，如 输入!E5:I5，须含评估年度。Row of fiscal years, e.g. 输入!E5:I5, including the evaluation year.",
    "values": "数值区域：每个字段一行、每个年度一列；金额以元计，比例如0.67，日期，是/否。Values: one row per field id, one column "
              "per year; amounts in 元, ratios as 0.67, dates, 是/否.",
    "company_fields": "可选：公司字段ID列（company_name, stock_code, board, listing_date）。Optional: column of company field ids.",
    "company_values": "可选：公司字段的值，与公司字段ID逐一对应（证券代码为文本）。Optional: the company values, one per company field id "
                      "(stock code as text).",
    "attestation_ids": "可选：声明确认的规则ID列，如 输入!A43:A50。Optional: column of attestation rule ids, e.g. 输入!A43:A50.",
    "attestation_values": "可选：声明确认值（是/否 或 TRUE/FALSE），与规则ID逐一对应。Optional: attestation values (是/否 or "
                          "TRUE/FALSE), one per rule id.",
    "rule_id": "规则ID，如 min_rolling（见 XLM_RULES）。Rule id, e.g. min_rolling (see XLM_RULES).",
}
ARG_OPTIONS = {name: (RANGE if name not in ("policy", "evaluation_year", "rule_id") else SCALAR) for name in ARG_DOCS}
CASE_ARGS = ("policy", "evaluation_year", "field_ids", "years", "values",
             "company_fields", "company_values", "attestation_ids", "attestation_values")


def _udf(f):
    """Register ``f`` with xlwings: category, and each argument's options and wizard text."""
    names = f.__code__.co_varnames[: f.__code__.co_argcount]
    for name in reversed(names):
        f = xw.arg(name, doc=ARG_DOCS[name], **ARG_OPTIONS[name])(f)
    return xw.func(category=CATEGORY)(f)


# ---- errors ----------------------------------------------------------------------------------------

class UdfError(Exception):
    """A bad argument; the message is what the cell shows (after the #XLMODEL! prefix)."""


def _error(msg: str) -> str:
    return f"{ERROR_PREFIX} {msg}"


_WHERE = ((re.compile(r"^years\[\d+\]\.(\w+) \((\d+)\)$"), r"输入 \1 (\2)"),
          (re.compile(r"^company\.(\w+)$"), r"输入 \1"),
          (re.compile(r"^attestations\.(.+)$"), r"输入 attestation \1"))


def _where(where: str) -> str:
    for rx, repl in _WHERE:
        if rx.match(where):
            return rx.sub(repl, where)
    return where


def _case_error_text(e: CaseError) -> str:
    """The first problem as a cell shows it, Chinese first as on the command line
    (``输入 cash_dividend (2023): 取值有误 expected an amount in 元 …``), and how many more there are."""
    first = e.problems[0]
    more = len(e.problems) - 1
    text = f"{_where(first.where)}: {zh_first(problem_zh(first.message), first.message)}"
    return text + (f"（另有 {more} 处 +{more} more）" if more else "")


def _guard(fn, *args):
    """Run ``fn``; any failure becomes a readable #XLMODEL! string (never a traceback in a cell)."""
    try:
        return fn(*args)
    except UdfError as e:
        return _error(str(e))
    except CaseError as e:
        return _error(_case_error_text(e))
    except XlmodelError as e:
        return _error(f"policy: {zh_first('规划有误', str(e).splitlines()[0])}")
    except Exception as e:  # noqa: BLE001 - a cell must show text, not a COM error with a traceback
        return _error(f"内部错误 internal error ({type(e).__name__}): {e}")


# ---- Excel-shaped arguments -----------------------------------------------------------------------

def _is_blank(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def _clean(v):
    """An Excel value as the case coercion expects it: errors as their text, text stripped."""
    if isinstance(v, int) and not isinstance(v, bool) and v in EXCEL_ERRORS:
        return EXCEL_ERRORS[v]
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, np.generic):
        return v.item()
    return v


def _rows(x) -> list[list]:
    """Any argument shape as a list of rows: scalar -> [[x]], 1-D -> [x], 2-D -> x."""
    if x is None:
        return []
    if hasattr(x, "tolist") and not isinstance(x, (str, np.generic)):
        x = x.tolist()
    if not isinstance(x, (list, tuple)):
        return [[x]]
    if not x:
        return []
    if all(isinstance(r, (list, tuple)) for r in x):
        return [list(r) for r in x]
    if any(isinstance(r, (list, tuple)) for r in x):
        raise UdfError("区域形状有误：须为一行、一列或一块 expected a range (a row, a column or a block), got a ragged list")
    return [list(x)]


def _vector(x, what: str) -> list:
    """A single row or column (1-D or 2-D, e.g. [[a], [b]] or [a, b]) as a flat list."""
    rows = _rows(x)
    if not rows:
        return []
    if len(rows) == 1:
        return rows[0]
    if all(len(r) == 1 for r in rows):
        return [r[0] for r in rows]
    raise UdfError(f"{what}: 须为单行或单列，实为 {len(rows)} 行 × {len(rows[0])} 列 expected a single row or column, "
                   f"got {len(rows)} rows × {len(rows[0])} columns")


def _grid(x, n_rows: int, n_cols: int) -> list[list]:
    """The values block as n_rows × n_cols; a 1-D list is a row (one field) or a column (one year)."""
    rows = _rows(x)
    if len(rows) == 1 and n_rows > 1 and n_cols == 1 and len(rows[0]) == n_rows:
        rows = [[v] for v in rows[0]]  # one year: a column that arrived flat
    shape = (len(rows), len(rows[0]) if rows else 0)
    if shape != (n_rows, n_cols) or any(len(r) != n_cols for r in rows):
        raise UdfError(f"values: 须为 {n_rows} 行（每个字段一行）× {n_cols} 列（每个年度一列），实为 {shape[0]} × {shape[1]} "
                       f"expected {n_rows} rows (one per field id) × {n_cols} columns (one per year), "
                       f"got {shape[0]} × {shape[1]}")
    return rows


def _scalar_arg(x):
    """A single cell that may have arrived as [[x]] or [x]."""
    while isinstance(x, (list, tuple)) and len(x) == 1:
        x = x[0]
    return x


def _text(x, what: str) -> str:
    v = _clean(_scalar_arg(x))
    if not isinstance(v, str) or not v:
        raise UdfError(f"{what}: 须为文本 expected text, got {v!r}")
    return v


def _year(x, what: str) -> int:
    v = _clean(_scalar_arg(x))
    if isinstance(v, str) and re.fullmatch(r"\d{4}(\.0+)?", v):
        v = float(v)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer() and 1990 <= v <= 2100:
        return int(v)
    raise UdfError(f"{what}: 须为会计年度（如 2024）expected a fiscal year such as 2024, got {v!r}")


def _value(fid: str, v, where: str):
    """Excel-only conversions before the shared coercion (:func:`xlmodel.case.coerce`): serial dates."""
    v = _clean(v)
    f = FIELDS.get(fid)
    kind = f.kind if f else Kind.BOOL
    if kind == Kind.DATE and isinstance(v, (int, float)) and not isinstance(v, bool) and not 1 <= v <= MAX_SERIAL:
        raise UdfError(f"{where}: 须为日期（日期单元格或 YYYY-MM-DD）expected a date (a date cell or YYYY-MM-DD), "
                       f"got the number {v!r}")
    return from_cell(kind, v)  # the same reading of cells as `xlmodel check`


def _pairs(ids, values, what: str) -> dict[str, Any]:
    """Two parallel columns (ids, values) -> {id: value}, blanks left out."""
    keys, vals = _vector(ids, f"{what} ids"), _vector(values, f"{what} values")
    if len(keys) != len(vals):
        raise UdfError(f"{what}: 个数不一致：{len(keys)} 个 ID，{len(vals)} 个值 {len(keys)} ids but {len(vals)} values")
    out: dict[str, Any] = {}
    for k, v in zip(keys, vals):
        if _is_blank(v):
            continue
        k = _clean(k)
        if not isinstance(k, str) or not k:
            raise UdfError(f"{what}: 值 {v!r} 旁没有 ID a value {v!r} has no id beside it")
        if k in out:
            raise UdfError(f"{what}: 出现多次：{k} appears more than once")
        out[k] = v
    return out


def case_data(policy_id: str, evaluation_year, field_ids, years, values, company_fields=None,
              company_values=None, attestation_ids=None, attestation_values=None) -> dict:
    """The UDF arguments as case data (the mapping :func:`xlmodel.case.parse_case` reads)."""
    ey = _year(evaluation_year, "evaluation_year")
    fids = [_clean(v) for v in _vector(field_ids, "field_ids")]
    yrs = _vector(years, "years")
    grid = _grid(values, len(fids), len(yrs)) if fids and yrs else []
    per_year: dict[int, dict[str, Any]] = {}
    cols: list[int | None] = []
    for j, y in enumerate(yrs):
        if _is_blank(y):
            if any(not _is_blank(row[j]) for row in grid):
                raise UdfError(f"years: 第 {j + 1} 列有数值但没有会计年度 column {j + 1} has values but no fiscal year")
            cols.append(None)
            continue
        fy = _year(y, f"years (column {j + 1})")
        if fy in per_year:
            raise UdfError(f"years: 出现多次：{fy} appears more than once")
        per_year[fy] = {}
        cols.append(fy)
    seen: set[str] = set()
    for fid, row in zip(fids, grid):
        if all(_is_blank(v) for v in row):
            continue  # blank row or a section title of the input sheet
        if not isinstance(fid, str) or not fid:
            shown = [v for v in row if not _is_blank(v)][:3]
            raise UdfError(f"field_ids: 数值 {shown!r} 旁没有字段 ID values {shown!r} have no field id beside them")
        if fid in seen:
            raise UdfError(f"field_ids: 出现多次：{fid} appears more than once")
        seen.add(fid)
        for fy, v in zip(cols, row):
            if fy is not None and not _is_blank(v):
                per_year[fy][fid] = _value(fid, v, f"输入 {fid} ({fy})")
    company = {}
    for k, v in _pairs(company_fields, company_values, "company").items():
        v = _clean(v)
        company[k] = _value(k, v, f"输入 {k}") if k in FIELDS else v
    attest = {k: _clean(v) for k, v in _pairs(attestation_ids, attestation_values, "attestation").items()}
    data = {"policy": policy_id, "evaluation_year": ey,
            "years": [{"fiscal_year": fy, **vals} for fy, vals in sorted(per_year.items())]}
    if company:
        data["company"] = company
    if attest:
        data["attestations"] = attest
    return data


# ---- caches ----------------------------------------------------------------------------------------

_POLICIES: dict[str, tuple[str | None, float, Policy, cat.Model]] = {}


def policy_entry(ref) -> tuple[Policy, cat.Model, float]:
    """A policy and its compiled model by id, loaded once and reloaded when its file changes.

    A worksheet function's ``policy`` argument is an input: it names a plan by id
    (:func:`xlmodel.plans.loading.load_plan_by_id`), never a path. Ids are found in the same plan folders
    as on the command line: the bundled plans, ``XLMODEL_PLANS`` and the user's plan folder
    (``xlmodel policies install``); Excel passes no ``--plans``."""
    ref = _text(ref, "policy")
    hit = _POLICIES.get(ref)
    if hit is not None:
        path, mtime, pol, model = hit
        try:
            if path is None or os.stat(path).st_mtime == mtime:
                return pol, model, mtime
        except OSError:
            pass
    path = str(find_plan(ref).path)  # a str: stat takes it as it is, on every call
    pol = load_plan_by_id(ref)
    mtime = os.stat(path).st_mtime
    model = model_for(pol)
    _POLICIES[ref] = (path, mtime, pol, model)
    return pol, model, mtime


class Result:
    """One evaluated case: the evaluator's values as the workbook shows them."""

    def __init__(self, model: cat.Model, env):
        self.model, self.env = model, env
        self._table: list[list] | None = None
        self._outputs: dict[str, object] = {}  # the scalar functions' values, as first read

    def raw(self, name: str):
        v = self.env.calc(name, None)[0]
        return v.item() if isinstance(v, np.generic) else v

    def cell(self, name: str, unit: str | None = None):
        return cell_value(self.raw(name), unit)

    def table(self) -> list[list]:
        if self._table is None:
            rows = [list(TABLE_HEADER)]
            mark = draft_mark(self.model.policy)
            for rd in self.model.rules:
                s, ck = rd.spec, rd.check
                status = f"{self.cell(f'{s.id}.status')}{mark}"
                rows.append([s.id, s.clause, status, self.cell(f"{s.id}.actual", ck.unit),
                             self.cell(f"{s.id}.required", ck.unit) if ck.required is not None else "",
                             self.cell(f"{s.id}.shortfall", ck.unit) if ck.shortfall is not None else ""])
            self._table = rows
        return self._table


def draft_mark(policy) -> str:
    """What follows every status and verdict a worksheet function returns under ``policy``: :data:`UNREVIEWED`
    when it is an unreviewed draft (open review items, :func:`xlmodel.plans.schema.open_reviews`), never a bare
    通过; "" for a reviewed plan."""
    return UNREVIEWED if open_reviews(policy) else ""


TABLE_HEADER = tuple(PART[k].heading for k in ("rule", "clause", "status", "actual", "bound", "shortfall"))


def cell_value(v, unit: str | None = None):
    """An evaluator value as the workbook shows it: labels in Chinese, blanks as "", dates as YYYY-MM-DD, a yes/no
    as 1/0 (the workbook's own cells hold a yes/no so, formatted 是/否: ``IF``/``AND`` read it as TRUE/FALSE)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, str):
        return LABEL_TEXT.get(v) or _ENUM_TEXT.get(v, v)
    if isinstance(v, bool):
        return 1.0 if v else 0.0  # a yes/no as the workbook holds it: 1/0, shown 是/否 in the yes/no number format
    if unit == "日期":
        return from_serial(v).isoformat() if v >= 1 else ""
    return float(v) + 0.0


_ENUM_TEXT = {code: zh for choices in ENUMS.values() for code, zh in choices.items()}

CACHE_SIZE = 256
_RESULTS: OrderedDict = OrderedDict()


_NESTED = {list, tuple, bool}


def _freeze(x):
    """A hashable key for an argument; booleans tagged so that TRUE and 1.0 stay apart."""
    t = type(x)
    if t is list or t is tuple:
        return tuple([v if type(v) not in _NESTED else _freeze(v) for v in x])
    if t is bool:
        return ("b", x)
    if isinstance(x, np.ndarray):
        return _freeze(x.tolist())
    return x


def _args_key(args):
    """The cache key of a call's arguments: their pickle, which keeps TRUE and 1.0, 1 and 1.0, 0.0 and
    -0.0 apart and is made in C (a tenth of :func:`_freeze`'s time); :func:`_freeze` for what does not
    pickle; None for what is neither picklable nor hashable (then nothing is cached)."""
    try:
        return pickle.dumps(args, 4)
    except Exception:  # noqa: BLE001 - anything pickle refuses is keyed the slow way
        try:
            key = _freeze(args)
            hash(key)
            return key
        except TypeError:
            return None


_BOOLS = (bool, np.bool_)


def _bool_sites(args) -> tuple:
    """Where the arguments hold TRUE/FALSE or a number equal to one (0, 1): the places where equal
    arguments may still read differently (TRUE == 1.0 in Python; a 1 in a yes/no cell is not yes).
    Elsewhere equal arguments read alike: 1 and 1.0, 0.0 and -0.0 are the same number to a case."""
    sites = []

    def walk(x, path):
        c = x.__class__
        if c is list or c is tuple:
            for k, v in enumerate(x):
                walk(v, path + (k,))
        elif isinstance(x, _BOOLS):
            sites.append((path, True))
        elif isinstance(x, (int, float, np.number)) and (x == 0 or x == 1):
            sites.append((path, False))
    walk(args, ())
    return tuple(sites)


def _same_kinds(args, sites) -> bool:
    for path, was_bool in sites:
        v = args
        for k in path:
            v = v[k]
        if isinstance(v, _BOOLS) is not was_bool:
            return False
    return True


#: the last call's (policy key, a copy of its arguments, their bool sites, result), replaced whole: the
#: scalar functions of one case are called one after another with the same ranges, so the first test of
#: a call is equality with it (in C)
_LAST: tuple = (None, None, (), None)


def _last_hit(pkey, args) -> "Result | None":
    last = _LAST
    if last[0] != pkey:
        return None
    try:
        same = args == last[1]
    except (TypeError, ValueError):  # an array among a Python caller's arguments
        return None
    return last[3] if same is True and _same_kinds(args, last[2]) else None


def evaluate_case(policy, evaluation_year, field_ids, years, values, company_fields=None, company_values=None,
                  attestation_ids=None, attestation_values=None) -> Result:
    """Evaluate the case the arguments describe (cached by argument values and policy file version)."""
    pol, model, mtime = policy_entry(policy)
    args = (evaluation_year, field_ids, years, values, company_fields, company_values, attestation_ids,
            attestation_values)
    pkey = (pol.id, id(pol), mtime)
    hit = _last_hit(pkey, args)
    if hit is not None:
        return hit
    frozen = _args_key(args)
    key = (*pkey, frozen) if frozen is not None else None
    hit = _RESULTS.get(key) if key is not None else None
    if hit is not None:
        _RESULTS.move_to_end(key)
    else:
        case = parse_case(case_data(pol.id, *args), "UDF")
        check_attestations(case, model_attestations(model))
        hit = Result(model, evaluate_one(model, case))
        if key is not None:
            _RESULTS[key] = hit
            if len(_RESULTS) > CACHE_SIZE:
                _RESULTS.popitem(last=False)
    if frozen.__class__ is bytes:  # a copy of the arguments (the caller's lists may change in place)
        global _LAST
        copy = pickle.loads(frozen)
        _LAST = (pkey, copy, _bool_sites(copy), hit)
    return hit


def clear_caches() -> None:
    _POLICIES.clear()
    _RESULTS.clear()
    global _LAST
    _LAST = (None, None, (), None)


def _scalar(name: str, *args):
    res = evaluate_case(*args)
    out = res._outputs
    if name not in out:
        out[name] = res.cell(name)
        if name == "overall_status":  # never a bare 通过 under a draft
            out[name] = f"{out[name]}{draft_mark(res.model.policy)}"
    return out[name]


def _count(name: str, *args):
    return int(evaluate_case(*args).raw(name))


# ---- the worksheet functions ----------------------------------------------------------------------

@_udf
def XLM_POLICIES():
    """列出全部分红回报规划：ID、版本、名称、规划年度（动态数组）。Lists the plans: id, version, title, plan years (dynamic array)."""
    def run():
        rows = [["规划 Plan", "版本 Version", "名称 Title", "规划年度 Plan years"]]
        for p in list_plans_or_raise():
            rows.append([p.id, p.version, p.title_zh, f"{p.plan_years[0]}–{p.plan_years[1]}"])
        return rows
    return _guard(run)


@_udf
def XLM_RULES(policy, evaluation_year=None):
    """列出规划的全部规则（含监管底线）：ID、条款、类型、角色、中英文标题（动态数组）；给出年度时按该年度的机构表述。Lists a plan's rules incl. the baseline: id, clause, kind, role, titles (dynamic array); with a year, worded for its bodies."""
    def run():
        _pol, model, _ = policy_entry(policy)
        year = None if evaluation_year in (None, "") else int(evaluation_year)
        rows = [["规则 Rule", "条款 Clause", "类型 Kind", "角色 Role", "标题", "Title"]]
        rows += [[r.id, r.spec.clause, r.spec.kind, r.role, *worded_for_year(r.spec.title_zh, r.spec.title_en, year)]
                 for r in model.rules]
        return rows
    return _guard(run)


@_udf
def XLM_EVALUATE(policy, evaluation_year, field_ids, years, values, company_fields=None, company_values=None,
                 attestation_ids=None, attestation_values=None):
    """按规划评估：每条规则一行（规则、条款、状态、实际、界限、差额），含表头（动态数组）。Evaluates the case: one row per rule (id, clause, status, actual, bound, shortfall) under a header row (dynamic array)."""
    return _guard(lambda: [list(r) for r in evaluate_case(policy, evaluation_year, field_ids, years, values,
                                                          company_fields, company_values, attestation_ids,
                                                          attestation_values).table()])


#: the scalar functions and the evaluator output each returns (also used by the workbook's UDF sheet)
SCALAR_FUNCTIONS: dict[str, str] = {}


def _scalar_udf(fn_name: str, output: str):
    """One scalar worksheet function over the case arguments, returning evaluator output ``output``;
    its help and whether it counts, from the table of outputs (:data:`xlmodel.outputs.HEADLINE`)."""
    doc, count = OUTPUT[output].help, OUTPUT[output].kind == "count"
    def udf(policy, evaluation_year, field_ids, years, values, company_fields=None, company_values=None,
            attestation_ids=None, attestation_values=None):
        return _guard(_count if count else _scalar, output, policy, evaluation_year, field_ids, years, values,
                      company_fields, company_values, attestation_ids, attestation_values)
    udf.__name__ = udf.__qualname__ = fn_name
    udf.__doc__ = doc
    SCALAR_FUNCTIONS[fn_name] = output
    return _udf(udf)


XLM_MIN_CASH = _scalar_udf("XLM_MIN_CASH", "min_cash_dividend")
XLM_MAX_DISTRIBUTION = _scalar_udf("XLM_MAX_DISTRIBUTION", "max_distribution")
XLM_CONDITIONS_MET = _scalar_udf("XLM_CONDITIONS_MET", "cash_conditions_met")
XLM_OVERALL_STATUS = _scalar_udf("XLM_OVERALL_STATUS", "overall_status")
XLM_FAIL_COUNT = _scalar_udf("XLM_FAIL_COUNT", "fail_count")
XLM_ST_RISK = _scalar_udf("XLM_ST_RISK", "st_risk_warning")
XLM_CASH_TO_AVOID_ST = _scalar_udf("XLM_CASH_TO_AVOID_ST", "cash_needed_to_avoid_st")


@_udf
def XLM_RULE_STATUS(rule_id, policy, evaluation_year, field_ids, years, values, company_fields=None,
                    company_values=None, attestation_ids=None, attestation_values=None):
    """一条规则的状态：通过/不通过/警告/不适用/缺少输入（同检查表）。Status of one rule: 通过/不通过/警告/不适用/缺少输入, as on the checks sheet."""
    def run():
        rid = _text(rule_id, "rule_id")
        res = evaluate_case(policy, evaluation_year, field_ids, years, values, company_fields, company_values,
                            attestation_ids, attestation_values)
        if f"{rid}.status" not in res.model.scalars:
            known = ", ".join(r.id for r in res.model.rules)
            raise UdfError(f"rule_id: {rid!r} 不是 {res.model.policy.id} 的规则 is not a rule of {res.model.policy.id} "
                           f"(known: {known})")
        return f"{res.cell(f'{rid}.status')}{draft_mark(res.model.policy)}"
    return _guard(run)




#: the columns of XLM_PLAN's array (the header row)
PLAN_HEADER = ("年度 FY", "预测 Forecast", f"{OUTPUT['min_cash_dividend'].heading} (元)", "决定规则 Binding rule",
               "条款 Clause", f"{OUTPUT['max_distribution'].heading} (元)", "结论 Result")


@_udf
def XLM_PLAN(policy, evaluation_year, field_ids, years, values, company_fields=None, company_values=None,
             attestation_ids=None, attestation_values=None):
    """规划期分红测算：评估年度至规划末年每年一行（年度、预测、最低现金分红、决定规则、条款、分配上限、结论），含表头（动态数组）。The dividend path: one row per year to the plan's last year (year, forecast, minimum, binding rule, clause, cap, result) under a header (dynamic array)."""
    def run():
        from .planner import STATUS_ZH, plan

        pol, model, _ = policy_entry(policy)
        args = (evaluation_year, field_ids, years, values, company_fields, company_values, attestation_ids,
                attestation_values)
        case = parse_case(case_data(pol.id, *args), "UDF")  # a "forecast" row marks the forecast years
        check_attestations(case, model_attestations(model))
        rows, mark = [list(PLAN_HEADER)], draft_mark(pol)
        for y in plan(case, pol):
            rows.append([float(y.fiscal_year), y.forecast, "" if y.min_cash_dividend is None else y.min_cash_dividend,
                         y.binding_rule or "", y.binding_clause, "" if y.max_distribution is None else y.max_distribution,
                         f"{STATUS_ZH[y.status]}{mark}"])
        return rows
    return _guard(run)


#: the header of XLM_ANNOUNCE's array
ANNOUNCE_HEADER = ("键 Key", "项目", "本年度", "上年度", "上上年度")


@_udf
def XLM_ANNOUNCE(policy, evaluation_year, field_ids, years, values, company_fields=None, company_values=None,
                 attestation_ids=None, attestation_values=None):
    """利润分配方案公告的数字：本次方案各项，再现金分红方案指标表（本年度、上年度、上上年度）与是否触及风险警示，含表头（动态数组，同公告表）。The announcement's figures: the proposal, then the exchange's table (this year, the two before) and whether the warning is triggered, under a header (dynamic array, as on 公告)."""
    def run():
        res = evaluate_case(policy, evaluation_year, field_ids, years, values, company_fields, company_values,
                            attestation_ids, attestation_values)
        rows = [list(ANNOUNCE_HEADER)]
        rows += [[name, zh, res.cell(name), "", ""] for name, zh, _en, _kind in PROPOSAL]
        rid = next((r.id for r in res.model.rules if r.spec.kind == "st_low_dividend"), None)
        if rid is None:
            return rows
        rows.append(["columns", "会计年度", *(res.cell(f"{rid}.y{k}.year") for k in range(3))])
        for ln in LINES:
            cells = [res.cell(f"{rid}.{c}") for c in ln.calcs]
            rows.append([ln.key, ln.zh.format(floor="金额标准"), *cells, *[""] * (3 - len(cells))])
        verdict = TRIGGERS_TEXT.get(res.raw(TRIGGERS), "无法判断")
        rows.append(["triggers", "是否触及可能被实施其他风险警示的情形", f"{verdict}{draft_mark(res.model.policy)}", "", ""])
        return rows
    return _guard(run)
