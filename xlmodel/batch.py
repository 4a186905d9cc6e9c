"""Batch evaluation: a DataFrame of company-years -> a DataFrame of results.

One row per company and fiscal year. Every row is evaluated as its own
evaluation year, reading earlier years from the same company's rows. The
whole frame is evaluated at once per policy: each input cell the model reads
is one indexed column lookup, each calculation one numpy operation.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import catalogue as cat
from .case import coerce
from .errors import CaseError, Problem
from .evaluator import evaluate_arrays, model_for
from .expr import to_serial
from .fields import FIELDS, Kind
from .policy import load_policy

KEY_COLUMNS = ("policy", "stock_code", "company_name", "fiscal_year")
MAX_LISTED = 50


def _attest_col(rule_id: str) -> str:
    return f"attest_{rule_id}"


def read_table(path: str | Path) -> pd.DataFrame:
    path = Path(path)
    try:
        if path.suffix.lower() in (".xlsx", ".xlsm"):
            return pd.read_excel(path, dtype={"stock_code": str})
        if path.suffix.lower() == ".csv":
            return pd.read_csv(path, dtype={"stock_code": str}, encoding="utf-8-sig")
    except Exception as e:  # pandas raises many types for unreadable files
        raise CaseError(str(path), [Problem("(file)", f"cannot read: {e}")]) from None
    raise CaseError(str(path), [Problem("(file)", "expected a .csv or .xlsx file")])


def _encode_column(fid: str, col: pd.Series, problems: list[Problem], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate and encode one input column as the evaluator reads it."""
    f = FIELDS.get(fid)
    kind = f.kind if f else Kind.BOOL
    absent = col.isna().to_numpy() | col.astype(str).str.strip().eq("").to_numpy()
    if kind in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT):
        num = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
        bad = ~absent & ~np.isfinite(num)
        out = np.where(absent | bad, 0.0, num)
        check = ~absent & ~bad
        if kind == Kind.RATIO:
            bad |= check & ((num < 0) | (num > 1))
        if kind == Kind.COUNT:
            bad |= check & ((num < 0) | (num != np.floor(num)))
        bad |= check & (np.abs(num) >= 1e15)
        for i in np.flatnonzero(bad):
            problems.append(Problem(f"row {rows[i]}, {fid}", coerce(f, col.iloc[i])[1] or f"out of range: {col.iloc[i]!r}"))
    else:
        vals = []
        for i, (v, a) in enumerate(zip(col.tolist(), absent)):
            if a:
                vals.append(None)
                continue
            if kind == Kind.DATE and isinstance(v, pd.Timestamp):
                v = v.date()
            x, err = coerce(f if f else FIELDS["online_voting_offered"], v)
            if err:
                problems.append(Problem(f"row {rows[i]}, {fid}", err))
            vals.append(x)
        if kind == Kind.BOOL:
            out = np.array([bool(v) for v in vals], dtype=bool)
        elif kind == Kind.DATE:
            out = np.array([to_serial(v) if v is not None else 0.0 for v in vals], dtype=float)
        else:
            out = np.array([v if v is not None else "" for v in vals], dtype=object)
        absent = np.array([v is None for v in vals], dtype=bool)
    if f is not None and f.default_zero:
        absent = np.zeros(len(col), dtype=bool)
    return out, absent


def evaluate_batch(df: pd.DataFrame, policy: str | None = None, source: str = "<batch>") -> pd.DataFrame:
    """Evaluate every row (company-year) of ``df``; see the module doc."""
    problems: list[Problem] = []
    df = df.reset_index(drop=True)
    rows = np.arange(len(df)) + 2  # spreadsheet row numbers (header is row 1)
    attest_cols = [c for c in df.columns if str(c).startswith("attest_")]
    for c in df.columns:
        if c not in KEY_COLUMNS and c not in FIELDS and c not in attest_cols:
            problems.append(Problem(f"column {c!r}", "unknown field id"))
    if "fiscal_year" not in df.columns:
        problems.append(Problem("column 'fiscal_year'", "required"))
    key_col = "stock_code" if "stock_code" in df.columns else "company_name" if "company_name" in df.columns else None
    if key_col is None:
        problems.append(Problem("column 'stock_code'", "required (or company_name) to tell companies apart"))
    if policy is None and "policy" not in df.columns:
        problems.append(Problem("column 'policy'", "required unless a policy is given (--policy)"))
    if problems:
        raise CaseError(source, problems)
    years = pd.to_numeric(df["fiscal_year"], errors="coerce")
    for i in np.flatnonzero(years.isna().to_numpy()):
        problems.append(Problem(f"row {rows[i]}, fiscal_year", f"expected a year, got {df['fiscal_year'].iloc[i]!r}"))
    keys = df[key_col].astype(str).str.strip()
    dup = pd.DataFrame({"k": keys, "y": years}).duplicated(keep=False).to_numpy()
    for i in np.flatnonzero(dup):
        problems.append(Problem(f"row {rows[i]}", f"{keys.iloc[i]} {years.iloc[i]:.0f} appears more than once"))
    pol_col = df["policy"].astype(str).str.strip() if "policy" in df.columns and policy is None else pd.Series([policy] * len(df))
    encoded: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for c in df.columns:
        if c in FIELDS and c not in ("company_name", "stock_code"):
            encoded[c] = _encode_column(c, df[c], problems, rows)
        elif c in attest_cols:
            encoded[c] = _encode_column(c, df[c], problems, rows)
    models = {}
    for pid in pol_col.unique():
        try:
            models[pid] = model_for(load_policy(pid))
        except Exception as e:
            problems.append(Problem(f"policy {pid!r}", str(e)))
    if problems:
        raise CaseError(source, problems[:MAX_LISTED] + ([Problem("…", f"{len(problems) - MAX_LISTED} more")] if len(problems) > MAX_LISTED else []))

    y = years.to_numpy(dtype=int)
    index = pd.MultiIndex.from_arrays([keys.to_numpy(), y])
    out_frames = []
    for pid, model in models.items():
        sel = np.flatnonzero((pol_col == pid).to_numpy())
        n = len(sel)
        lookups: dict[int, np.ndarray] = {}

        def loc(offset: int, sel=sel) -> np.ndarray:
            if offset not in lookups:
                target = pd.MultiIndex.from_arrays([keys.to_numpy()[sel], y[sel] + offset])
                lookups[offset] = index.get_indexer(target)
            return lookups[offset]

        def getter(fid: str, offset: int, sel=sel, n=n):
            col = _attest_col(fid[len(cat.ATTEST):]) if fid.startswith(cat.ATTEST) else fid
            f = FIELDS.get(fid)
            if col not in encoded or (fid.startswith(cat.ATTEST) and offset != 0):
                kind = f.kind if f else Kind.BOOL
                fill = {Kind.BOOL: np.zeros(n, bool), Kind.ENUM: np.array([""] * n, dtype=object)}.get(kind, np.zeros(n))
                return fill, np.full(n, not (f is not None and f.default_zero))
            arr, absent = encoded[col]
            li = loc(offset)
            found = li >= 0
            safe = np.where(found, li, 0)
            vals = arr[safe].copy()
            miss = np.where(found, absent[safe], not (f is not None and f.default_zero))
            if not found.all():
                vals[~found] = "" if vals.dtype == object else 0
            return vals, miss

        env = evaluate_arrays(model, n, getter, y[sel])
        res = {
            "policy": pid,
            key_col: keys.to_numpy()[sel],
            "fiscal_year": y[sel],
        }
        for name in ("overall_status", "cash_conditions_met", "min_cash_dividend", "max_distribution",
                     "fail_count", "warn_count", "missing_input_count", "st_risk_warning", "cash_needed_to_avoid_st"):
            res[name] = _col(env.calc(name, None))
        for rd in model.rules:
            res[f"{rd.id}.status"] = env.calc(f"{rd.id}.status", None)
            if rd.check.shortfall is not None:
                res[f"{rd.id}.shortfall"] = _col(env.calc(f"{rd.id}.shortfall", None))
        out_frames.append(pd.DataFrame(res, index=sel))
    out = pd.concat(out_frames).sort_index()
    for c in ("fail_count", "warn_count", "missing_input_count"):
        out[c] = out[c].astype(int)
    return out.reset_index(drop=True)


def _col(a: np.ndarray) -> np.ndarray:
    """Blank ("") results -> None/NaN for a DataFrame column."""
    if a.dtype == object:
        vals = [None if isinstance(v, str) and v == "" else v for v in a]
        if all(v is None or isinstance(v, (bool, np.bool_, str)) for v in vals):
            return np.array([v if not isinstance(v, np.bool_) else bool(v) for v in vals], dtype=object)
        return np.array([np.nan if v is None else float(v) for v in vals], dtype=float)
    return a
