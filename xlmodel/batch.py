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
from .case import UNIT_FIELDS, UNIT_WARNING_BELOW, is_blank, plain_number, read_field, read_year
from .consistency import CONFIRM_FIELD, year_findings
from .errors import CaseError, Problem, XlmodelError
from .compiled import VectorEnv
from .evaluator import evaluate_arrays, model_for
from .expr import to_serial
from .fields import FIELDS, Field, Kind
from .policy import Policy, policy_by_id
from .untrusted import InputFileError, did_you_mean, read_csv_rows, read_xlsx_rows, shown
from .progress import progress_bar

KEY_COLUMNS = ("policy", "stock_code", "company_name", "fiscal_year")
FILE_ROW = "file_row"  #: the index name read_table gives the file's row numbers
MAX_LISTED = 50
_NUMERIC = (Kind.AMOUNT, Kind.RATIO, Kind.COUNT)


def _attest_col(rule_id: str) -> str:
    return f"attest_{rule_id}"


def read_table(path: str | Path) -> pd.DataFrame:
    """A batch file as a DataFrame of raw values, within the limits of :mod:`xlmodel.untrusted`.

    CSV: every cell as text (UTF-8 with or without BOM, or GB18030); XLSX: the first
    sheet's values. Nothing is converted here: :func:`evaluate_batch` reads every
    cell through :func:`xlmodel.case.read_field`, as a case file or a workbook is
    read. ``attrs``: ``xlmodel_origin`` ("csv"/"xlsx"), ``notes``; the index (named ``file_row``)
    holds the file's row numbers."""
    path = Path(path)
    source = str(path)
    suffix = path.suffix.lower()
    try:
        if suffix in (".xlsx", ".xlsm"):
            table = read_xlsx_rows(path)
            origin = "xlsx"
        elif suffix == ".csv":
            table = read_csv_rows(path)
            origin = "csv"
            header = table.header
            if len(header) == 1 and any(sep in header[0] for sep in (";", "\t", "|")):
                sep = next(s for s in (";", "\t", "|") if s in header[0])
                raise InputFileError(source, f"the header is one column {shown(header[0], 60)}: the file seems to use "
                                             f"{sep!r} between values; save it comma-separated")
        else:
            raise InputFileError(source, "expected a .csv or .xlsx file")
    except InputFileError as e:
        raise CaseError(source, [Problem(e.where or "(file)", e.message)]) from None
    header, rows = table.header, table.rows
    seen: dict[str, int] = {}
    probs = []
    for j, name in enumerate(header):
        if name in seen:
            probs.append(Problem(f"column {name!r}", f"appears twice (columns {seen[name] + 1} and {j + 1})"))
        else:
            seen[name] = j
    if probs:
        raise CaseError(source, probs)
    cols = list(zip(*rows))
    df = pd.DataFrame({name: pd.Series(list(col), dtype=object) for name, col in zip(header, cols)})
    df.attrs["xlmodel_origin"] = origin
    df.attrs["notes"] = table.notes
    # blank rows are left out: the index keeps the file's own row numbers, for the messages
    df.index = pd.Index(table.row_numbers, name=FILE_ROW)
    return df


def _rows_text(idx, rows: np.ndarray, limit: int = 5) -> str:
    idx = list(idx)
    shown_rows = ", ".join(str(rows[i]) for i in idx[:limit])
    return ("row " if len(idx) == 1 else "rows ") + shown_rows + (f" (+{len(idx) - limit} more)" if len(idx) > limit else "")


def _grouped(col: pd.Series) -> tuple[np.ndarray, list]:
    """:func:`_groups`, or (for unhashable values) one group per row."""
    g = _groups(col)
    if g is None:
        values = col.tolist()
        return np.arange(len(values)), values
    return g


def _read_grouped(read, col: pd.Series) -> tuple[np.ndarray, list[tuple]]:
    """``read`` once per distinct value and type of a column: the group of each row, each group's result."""
    inv, reps = _grouped(col)
    return inv, [read(v) for v in reps]


class _Labels:
    """Each row's label for messages (``000001 2024``), made when a message needs it."""

    def __init__(self, keys: np.ndarray, years: np.ndarray):
        self.keys, self.years = keys, years

    def __getitem__(self, i: int) -> str:
        k, y = self.keys[i], self.years[i]
        return f"{k} {y}" if k and y else (str(y) if y else "")

    def __len__(self) -> int:
        return len(self.keys)

    def __bool__(self) -> bool:
        return True


def _groups(col: pd.Series) -> tuple[np.ndarray, list] | None:
    """The column's rows grouped by value and type (True, 1 and 1.0 apart, None and NaN apart): the
    group of each row and each group's first value; None for unhashable values."""
    values = col.tolist()
    n = len(values)
    try:
        key, _ = pd.factorize(col, use_na_sentinel=False)
        if col.dtype == object:  # the types, where values of several may be equal (True == 1 == 1.0)
            types = list(map(type, values))
            tmap = {t: i for i, t in enumerate(set(types))}
            if len(tmap) > 1:
                key = key.astype(np.int64) * len(tmap) + np.fromiter(map(tmap.__getitem__, types), np.int64, n)
    except TypeError:
        return None
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    return inv.reshape(-1), [values[i] for i in first]


def _booleans(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """A yes/no column of booleans and missing values only, read in numpy as :func:`read_field` reads
    each cell (a boolean is itself; None, NaN, NaT and pd.NA are blank in a table); None otherwise."""
    if pd.api.types.is_bool_dtype(col.dtype):
        return col.to_numpy(dtype=bool), np.zeros(len(col), dtype=bool)
    if col.dtype != object:
        return None
    arr = col.to_numpy()
    if pd.api.types.infer_dtype(arr, skipna=True) not in ("boolean", "empty"):
        return None
    try:  # every value is a boolean or missing: the booleans are those equal to True or False
        absent = ~((arr == True) | (arr == False))  # noqa: E712 - elementwise, on objects
    except TypeError:  # pd.NA compares as NA
        absent = pd.isna(arr)
    out = np.zeros(len(arr), dtype=bool)
    out[~absent] = arr[~absent].astype(bool)
    return out, absent


def _fifteen(x: np.ndarray) -> np.ndarray:
    """``float(f"{v:.15g}")`` of each value (a spreadsheet keeps 15 significant digits).

    A value that is the double nearest a decimal k/10**d with |k| < 10**15 is already its own
    15-digit rounding (the rounding finds that decimal, which parses back to the value): such values,
    amounts to the fen included, are tested for d = 2, 6, 10 in numpy; the rest are formatted."""
    out = x.copy()
    todo = np.ones(len(x), dtype=bool)
    for d in (2, 6, 10):
        scale = 10.0 ** d
        with np.errstate(all="ignore"):
            k = np.rint(x * scale)
            todo &= ~((k / scale == x) & (np.abs(k) < 1e15))
        if not todo.any():
            return out
    idx = np.flatnonzero(todo)
    out[idx] = [float(f"{v:.15g}") for v in x[idx].tolist()]
    return out


def _encode_numbers(f: Field, num: np.ndarray, fast: np.ndarray, absent: np.ndarray, values, origin: str,
                    errors: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Plain numbers vectorised (``num``/``fast``); every other cell through :func:`read_field`."""
    kind, n = f.kind, len(num)
    ok = fast & np.isfinite(num) & (np.abs(num) < 1e15)
    if kind == Kind.RATIO:
        ok &= (num >= 0) & (num <= 1)
    elif kind == Kind.COUNT:
        ok &= (num >= 0) & (num == np.floor(num))
    elif f.default_zero:
        ok &= num >= 0
    out = np.zeros(n, dtype=float)
    good = np.flatnonzero(ok)
    out[good] = _fifteen(num[good])
    rest = np.flatnonzero(~ok & ~absent)
    if len(rest):
        values = values() if callable(values) else values
        for i in rest:  # everything else: the scalar reader, value or message
            x, err = read_field(f, values[i], origin)
            if err:
                errors.append((int(i), err))
            elif x is None:
                absent[i] = True
            else:
                out[i] = x
    return out, absent


def _encode_values(f: Field, values: list, origin: str, errors: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """A list of raw cells read one by one (:func:`read_field`), as the evaluator stores them."""
    kind, n = f.kind, len(values)
    if kind in _NUMERIC:
        parsed = [plain_number(v) for v in values]
        fast = np.array([p is not None for p in parsed], dtype=bool)
        num = np.array([p if p is not None else np.nan for p in parsed], dtype=float)
        absent = np.array([is_blank(v, origin) for v in values], dtype=bool) if n else np.zeros(0, bool)
        return _encode_numbers(f, num, fast, absent, values, origin, errors)
    vals = []
    for i, v in enumerate(values):
        x, err = read_field(f, v, origin)
        if err:
            errors.append((i, err))
        vals.append(x)
    if kind == Kind.BOOL:
        out = np.array([bool(v) for v in vals], dtype=bool)
    elif kind == Kind.DATE:
        out = np.array([to_serial(v) if v is not None else 0.0 for v in vals], dtype=float)
    else:
        out = np.empty(n, dtype=object)
        out[:] = [v if v is not None else "" for v in vals]
    return out, np.array([v is None for v in vals], dtype=bool)


def _encode_column(fid: str, col: pd.Series, problems: list[Problem], rows: np.ndarray, origin: str = "table",
                   labels: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate and encode one input column as the evaluator reads it, every cell through
    :func:`xlmodel.case.read_field`, once per distinct value and type (plain numbers vectorised,
    with the same result); the problems in row order."""
    f = FIELDS.get(fid)
    if f is None:  # an attest_<rule> column: a yes/no
        rid = fid[len("attest_"):] if fid.startswith("attest_") else fid
        f = Field(rid, rid, rid, Kind.BOOL)
    kind = f.kind
    n = len(col)
    errors: list[tuple[int, str]] = []
    if kind in _NUMERIC and pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
        num = col.to_numpy(dtype=float, na_value=np.nan)
        absent = np.isnan(num) if origin in ("csv", "xlsx", "table") else np.zeros(n, bool)
        out, absent = _encode_numbers(f, num, np.isfinite(num), absent, col.tolist, origin, errors)
    elif kind in _NUMERIC and col.dtype == object:  # numbers of any type: each cell (-0.0 stays -0.0)
        out, absent = _encode_values(f, col.tolist(), origin, errors)
    elif kind == Kind.BOOL and (hit := _booleans(col)) is not None:
        out, absent = hit
    else:  # yes/no, choices, dates, text, and numbers as text: once per distinct value
        grouped = _groups(col)
        if grouped is None:
            out, absent = _encode_values(f, col.tolist(), origin, errors)
        else:
            inv, reps = grouped
            rep_errors: list[tuple[int, str]] = []
            g_out, g_absent = _encode_values(f, reps, origin, rep_errors)
            out, absent = g_out[inv], g_absent[inv]
            if rep_errors:
                msg = dict(rep_errors)
                errors = [(int(i), msg[inv[i]]) for i in np.flatnonzero(np.isin(inv, list(msg)))]
    for i, m in errors:
        problems.append(Problem(f"row {rows[i]}, {fid}" + (f" ({labels[i]})" if labels and labels[i] else ""), m))
    if f.default_zero:
        absent = np.zeros(n, dtype=bool)
    return out, absent


def _part_problems(encoded: dict, n: int, rows: np.ndarray) -> list[Problem]:
    """Rows whose values contradict each other, or that no listed company's 元 figure could be: the one
    definition of :func:`xlmodel.consistency.year_findings`, on the columns as arrays."""
    values = {}
    for fid, (arr, absent) in encoded.items():
        if fid in FIELDS and FIELDS[fid].kind in (Kind.AMOUNT, Kind.COUNT, Kind.DATE):
            values[fid] = np.where(absent, np.nan, np.asarray(arr, dtype=float))
    conf = encoded.get(CONFIRM_FIELD)
    confirmed = np.zeros(n, bool) if conf is None else (~conf[1] & np.asarray(conf[0], dtype=bool))
    out = []
    for fid, mask, message in year_findings(values, n, confirmed):
        bad = np.flatnonzero(mask)
        msg = message(int(bad[0]))
        if len(bad) > 1:  # the figures named are the first row's
            msg += f"（数值为第 {rows[bad[0]]} 行 figures of row {rows[bad[0]]}）"
        out.append(Problem(f"{_rows_text(bad, rows)}, {fid}", msg))
    return out


def _unit_warnings(encoded: dict, n: int, rows: np.ndarray, labels: list[str]) -> list[str]:
    present = np.zeros(n, bool)
    small = np.ones(n, bool)
    for fid in UNIT_FIELDS:
        if fid in encoded:
            arr, absent = encoded[fid]
            has = ~absent & (arr != 0)
            present |= has
            small &= ~has | (np.abs(arr) < UNIT_WARNING_BELOW)
    idx = np.flatnonzero(present & small)
    if not len(idx):
        return []
    which = ", ".join(f"row {rows[i]} ({labels[i]})" for i in idx[:10]) + (f" (+{len(idx) - 10} more)" if len(idx) > 10 else "")
    return [f"{which}: amounts look like 万元 or 亿元, not 元 ({', '.join(f for f in UNIT_FIELDS if f in encoded)} "
            f"all below {UNIT_WARNING_BELOW:,.0f}): every amount is read in 元 (1.2亿 is 120000000)"]


def evaluate_batch(df: pd.DataFrame, policy: str | Policy | None = None, source: str = "<batch>",
                   progress: bool | None = False) -> pd.DataFrame:
    """Evaluate every row (company-year) of ``df``; see the module doc.

    ``policy``: a plan id (or a loaded :class:`~xlmodel.policy.Policy`) for every row, else
    the ``policy`` column (ids only). Every cell is read by :func:`xlmodel.case.read_field`;
    every problem is reported at once, naming the row, the column and the fiscal year.
    The result's columns: :func:`result_columns` (company, policy, year, ``in_plan_period``,
    the outputs, then per rule status, actual, bound, margin, shortfall).
    ``result.attrs["warnings"]``: amounts that look like 万元/亿元 (not errors);
    ``result.attrs["columns"]``: each column's labels and unit (for :mod:`xlmodel.batch_output`);
    ``result.attrs["policies"]``: each plan's title and plan years.
    ``progress``: a bar on stderr per policy (``None``: when stderr is a terminal and the run is long)."""
    problems: list[Problem] = []
    origin = df.attrs.get("xlmodel_origin", "table")
    if origin not in ("csv", "xlsx", "table"):
        origin = "table"
    file_rows = df.index.to_numpy() if df.index.name == FILE_ROW else None
    df = df.reset_index(drop=True)
    if any(not isinstance(c, str) for c in df.columns):
        df = df.rename(columns=str)
    n = len(df)
    rows = np.arange(n) + 2 if file_rows is None else file_rows  # spreadsheet row numbers (header is row 1)
    dup_cols = sorted({c for c in df.columns if list(df.columns).count(c) > 1})
    for c in dup_cols:
        problems.append(Problem(f"column {c!r}", "appears more than once"))
    if n == 0:
        problems.append(Problem("(file)", "no data rows; expected one row per company and fiscal year"))
    if "fiscal_year" not in df.columns:
        problems.append(Problem("column 'fiscal_year'", "required"))
    key_col = "stock_code" if "stock_code" in df.columns else "company_name" if "company_name" in df.columns else None
    if key_col is None:
        problems.append(Problem("column 'stock_code'", "required (or company_name) to tell companies apart"))
    if policy is None and "policy" not in df.columns:
        problems.append(Problem("column 'policy'", "required unless a policy is given (--policy)"))
    if problems:
        raise CaseError(source, problems)

    # the plans: one id for every row, or the policy column, each id looked up once (never a path)
    models: dict[str, object] = {}
    if policy is not None:
        pid = policy.id if isinstance(policy, Policy) else policy
        try:
            models[pid] = model_for(policy if isinstance(policy, Policy) else policy_by_id(policy))
        except XlmodelError as e:
            raise CaseError(source, [Problem("policy (--policy)", str(e))]) from None
        pol_col = pd.Series([pid] * n)
    else:
        inv, reps = _grouped(df["policy"])
        g_pid, g_blank, g_key = [], [], []
        for v in reps:
            blank = is_blank(v, origin)
            p = v.strip() if isinstance(v, str) else v
            g_blank.append(blank)
            g_pid.append("" if blank or not isinstance(p, str) else p)
            g_key.append(None if blank else (type(p), p))
        blank_rows = np.flatnonzero(np.array(g_blank, dtype=bool)[inv])
        for i in blank_rows:
            problems.append(Problem(f"row {rows[i]}, policy", "required: a policy id (see `xlmodel policies`)"))
        by_value: dict = {}
        for g, key in enumerate(g_key):
            if key is not None:
                by_value.setdefault(key, []).append(g)
        order = np.argsort(inv, kind="stable")
        starts = np.searchsorted(inv[order], np.arange(len(reps) + 1))
        for (_, p), groups in sorted(by_value.items(), key=lambda kv: min(order[starts[g]] for g in kv[1])):
            idx = np.sort(np.concatenate([order[starts[g]:starts[g + 1]] for g in groups]))
            try:
                models[p] = model_for(policy_by_id(p))
            except XlmodelError as e:
                problems.append(Problem(f"{_rows_text(idx, rows)}, policy", str(e)))
        pids = np.array(g_pid, dtype=object)[inv]
        pol_col = pd.Series(pids)
    known_att = {pid: set(m.attestation_ids()) for pid, m in models.items()}
    all_att = sorted(set().union(*known_att.values())) if known_att else []

    attest_cols = [c for c in df.columns if c.startswith("attest_")]
    known_cols = list(KEY_COLUMNS) + list(FIELDS) + [_attest_col(a) for a in all_att]
    for c in df.columns:
        if c in attest_cols:
            rid = c[len("attest_"):]
            if models and rid not in all_att and len(models) == len(set(pol_col) - {""}):
                problems.append(Problem(f"column {c!r}", f"not an attestation of {', '.join(models)}"
                                                         + did_you_mean(rid, all_att)))
        elif c not in KEY_COLUMNS and c not in FIELDS:
            problems.append(Problem(f"column {c!r}", "unknown field id" + did_you_mean(c, known_cols)))

    # fiscal years
    inv_y, res_y = _read_grouped(lambda v: read_year(v, origin), df["fiscal_year"])
    g_year = np.empty(len(res_y), dtype=object)
    g_year[:] = [fy for fy, _ in res_y]
    bad = np.array([err is not None or fy is None for fy, err in res_y], dtype=bool)
    for i in np.flatnonzero(bad[inv_y]):
        fy, err = res_y[inv_y[i]]
        problems.append(Problem(f"row {rows[i]}, fiscal_year", err or "required: a fiscal year such as 2024"))
    year_vals = g_year[inv_y]
    # the company key
    inv_k, res_k = _read_grouped(lambda v: read_field(FIELDS[key_col], v, origin), df[key_col])
    g_key = np.empty(len(res_k), dtype=object)
    g_key[:] = [k or "" for k, _ in res_k]
    bad = np.array([err is not None or k is None for k, err in res_k], dtype=bool)
    for i in np.flatnonzero(bad[inv_k]):
        k, err = res_k[inv_k[i]]
        problems.append(Problem(f"row {rows[i]}, {key_col}", err or "required to tell companies apart"))
    key_vals = g_key[inv_k]
    labels = _Labels(key_vals, year_vals)
    if key_col == "stock_code" and "company_name" in df.columns:
        inv_c, res_c = _read_grouped(lambda v: read_field(FIELDS["company_name"], v, origin), df["company_name"])
        bad = np.array([err is not None for _, err in res_c], dtype=bool)
        for i in np.flatnonzero(bad[inv_c]):
            problems.append(Problem(f"row {rows[i]}, company_name" + (f" ({labels[i]})" if labels[i] else ""),
                                    res_c[inv_c[i]][1]))
    keys = pd.Series(key_vals, dtype=object)
    has_year = np.array([fy is not None for fy, _ in res_y], dtype=bool)[inv_y]
    years = pd.Series(np.where(has_year, year_vals, 0).astype(int))
    valid = (key_vals != "") & has_year
    dup = pd.DataFrame({"k": keys, "y": years}).duplicated(keep=False).to_numpy() & valid
    for i in np.flatnonzero(dup):
        problems.append(Problem(f"row {rows[i]}", f"{keys.iloc[i]} {years.iloc[i]} appears more than once"))

    encoded: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for c in df.columns:
        if (c in FIELDS and c not in ("company_name", "stock_code")) or c in attest_cols:
            encoded[c] = _encode_column(c, df[c], problems, rows, origin, labels)
    # an attestation given on a row whose plan has no such attestation
    pol_arr = pol_col.to_numpy(dtype=object)
    for c in attest_cols:
        rid = c[len("attest_"):]
        lacking = [p for p, ids in known_att.items() if rid not in ids]
        if c in encoded and rid in all_att and lacking:
            arr, absent = encoded[c]
            wrong = np.flatnonzero(~absent & np.isin(pol_arr, lacking))
            if len(wrong):
                problems.append(Problem(f"{_rows_text(wrong, rows)}, {c}",
                                        f"not an attestation of policy {pol_col.iloc[wrong[0]]}; leave it blank there"))
    problems += _part_problems(encoded, n, rows)
    warnings = _unit_warnings(encoded, n, rows, labels)
    if problems:
        raise CaseError(source, problems[:MAX_LISTED] + ([Problem("…", f"{len(problems) - MAX_LISTED} more")] if len(problems) > MAX_LISTED else []))

    y = years.to_numpy(dtype=int)
    # (company, year) as one integer, sorted once: every offset's rows by one binary search
    company_code, _ = pd.factorize(keys)
    row_key = company_code.astype(np.int64) * 1_000_000 + (y - y.min() + 500_000)
    key_order = np.argsort(row_key, kind="stable")
    sorted_key = row_key[key_order]
    names = _company_names(df, key_col, origin)
    bar = progress_bar(len(y), "评估 evaluating", progress)
    out_frames = []
    for pid, model in models.items():
        sel = np.flatnonzero((pol_col == pid).to_numpy())
        n = len(sel)
        lookups: dict[int, np.ndarray] = {}

        def loc(offset: int, sel=sel) -> np.ndarray:
            """The row of each selected row's company in its year + offset (-1: no such row)."""
            if offset not in lookups:
                target = row_key[sel] + offset
                pos = np.minimum(np.searchsorted(sorted_key, target), len(sorted_key) - 1)
                lookups[offset] = np.where(sorted_key[pos] == target, key_order[pos], -1)
            return lookups[offset]

        def getter(fid: str, offset: int, sel=sel, n=n):
            col = _attest_col(fid[len(cat.ATTEST):]) if fid.startswith(cat.ATTEST) else fid
            f = FIELDS.get(fid)
            if col not in encoded or (fid.startswith(cat.ATTEST) and offset != 0):
                kind = f.kind if f else Kind.BOOL
                fill = (np.zeros(n, bool) if kind == Kind.BOOL else np.full(n, "", dtype=object)
                        if kind in (Kind.ENUM, Kind.TEXT) else np.zeros(n))  # as evaluator.encode has a blank
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
        company = {key_col: keys.to_numpy()[sel]}
        if names is not None:
            company["company_name"] = names[sel]
        out_frames.append(pd.DataFrame(_results(model, env, pid, company, y[sel]), index=sel))
        bar.update(n)
    bar.close()
    return _finish(out_frames, models, warnings)


def _col(a: np.ndarray) -> np.ndarray:
    """Blank ("") results -> None/NaN for a DataFrame column."""
    if a.dtype == object:
        vals = [None if isinstance(v, str) and v == "" else v for v in a]
        if all(v is None or isinstance(v, (bool, np.bool_, str)) for v in vals):
            return np.array([v if not isinstance(v, np.bool_) else bool(v) for v in vals], dtype=object)
        return np.array([np.nan if v is None else float(v) for v in vals], dtype=float)
    return a


# ---- the result: columns, values, labels ---------------------------------------------------

#: the company columns (first, as the input has them), then the row's plan and year
COMPANY_COLUMNS = ("company_name", "stock_code")
LEAD_COLUMNS = ("policy", "fiscal_year", "in_plan_period")
#: the named outputs of every row, after the lead columns and before the rules
OUTPUT_COLUMNS = ("overall_status", "cash_conditions_met", "min_cash_dividend", "max_distribution",
                  "fail_count", "warn_count", "missing_input_count", "st_risk_warning", "cash_needed_to_avoid_st")
#: a rule's columns ``<rule>.<part>``, in this order; margin and shortfall where the rule has them
RULE_PARTS = ("status", "actual", "bound", "margin", "shortfall")
RULE_PART_LABELS = {"status": ("状态", "status"), "actual": ("实际", "actual"), "bound": ("界限", "bound"),
                    "margin": ("余量", "margin"), "shortfall": ("差额", "shortfall")}
_LEAD_LABELS = {
    "company_name": ("公司名称", "Company name", "文本"),
    "stock_code": ("证券代码", "Stock code", "文本"),
    "policy": ("分红回报规划", "Plan (policy id)", "文本"),
    "fiscal_year": ("会计年度", "Fiscal year", "年"),
    "in_plan_period": ("在规划期内", "Fiscal year within the plan's years", "是/否"),
}
_OUTPUT_UNITS = {"overall_status": "状态", "cash_conditions_met": "是/否", "min_cash_dividend": "元",
                 "max_distribution": "元", "fail_count": "项", "warn_count": "项", "missing_input_count": "项",
                 "st_risk_warning": "是/否", "cash_needed_to_avoid_st": "元"}
_ROLE_TAG = {"condition": "[条件] ", "regulatory": "[监管] "}
#: statuses with a shortfall: below (or beyond) the bound
_SHORT = ("fail", "not_met", "warn")


def rule_parts(rd: cat.RuleDef) -> tuple[str, ...]:
    """The parts of :data:`RULE_PARTS` a rule has: a bound when it compares with one, a margin
    when that comparison is of amounts (:attr:`~xlmodel.catalogue.RuleDef.has_margin`), a shortfall
    when its kind defines one."""
    has = {"status": True, "actual": True, "bound": rd.check.required is not None, "margin": rd.has_margin,
           "shortfall": rd.check.shortfall is not None}
    return tuple(p for p in RULE_PARTS if has[p])


def result_columns(model: cat.Model, company: tuple[str, ...] = ("stock_code",)) -> list[str]:
    """The result columns of one plan's rows, in order (``company``: the company columns given)."""
    cols = [c for c in COMPANY_COLUMNS if c in company] + list(LEAD_COLUMNS) + list(OUTPUT_COLUMNS)
    for rd in model.rules:
        cols += [f"{rd.id}.{p}" for p in rule_parts(rd)]
    return cols


def _company_names(df: pd.DataFrame, key_col: str, origin: str) -> np.ndarray | None:
    """The company_name column as read (already checked), when the rows are keyed by stock code."""
    if key_col == "company_name" or "company_name" not in df.columns:
        return None
    inv, res = _read_grouped(lambda v: read_field(FIELDS["company_name"], v, origin), df["company_name"])
    g = np.empty(len(res), dtype=object)
    g[:] = [v for v, _ in res]
    return g[inv]


def _unit_values(a: np.ndarray, unit: str) -> np.ndarray:
    """A calculation as result values: blank -> None/NaN; date serials -> :class:`datetime.date`."""
    a = _col(a)
    if unit == "日期" and a.dtype != object:
        from .expr import from_serial

        return np.array([from_serial(float(x)) if x >= 1 else None for x in a], dtype=object)
    return a


def _results(model: cat.Model, env, pid: str, company: dict, years: np.ndarray) -> dict:
    """One plan's result columns, every value read from ``env.calc`` (nothing recomputed here).

    A shortfall is shown only where the rule falls short (fail, not met, warn): blank (NaN)
    where it passes, does not apply or lacks an input."""
    lo, hi = model.policy.plan_years
    res = {c: company[c] for c in COMPANY_COLUMNS if c in company}
    res["policy"] = pid
    res["fiscal_year"] = years
    res["in_plan_period"] = (years >= lo) & (years <= hi)
    if isinstance(env, VectorEnv):
        return _results_typed(model, env, res)
    for name in OUTPUT_COLUMNS:
        res[name] = _col(env.calc(name, None))
    for rd in model.rules:
        rid, unit = rd.id, rd.check.unit
        status = env.calc(f"{rid}.status", None)
        res[f"{rid}.status"] = status
        for part in rule_parts(rd)[1:]:
            name = {"bound": "required"}.get(part, part)
            vals = _unit_values(env.calc(f"{rid}.{name}", None), unit)
            if part == "shortfall":
                vals = np.where(np.isin(status, _SHORT), vals.astype(float), np.nan)
            res[f"{rid}.{part}"] = vals
    return res


def _dates(a: np.ndarray) -> np.ndarray:
    """Date serials -> :class:`datetime.date` (None below 1 and for NaN), as ``from_serial`` per value."""
    out = np.full(len(a), None, dtype=object)
    ok = a >= 1
    if ok.any():
        days = a[ok].astype(np.int64).astype("timedelta64[D]")
        out[ok] = (np.datetime64("1899-12-30", "D") + days).astype(object)
    return out


def _results_typed(model: cat.Model, env: VectorEnv, res: dict) -> dict:
    """:func:`_results` from the compiled program's typed values: no per-row Python."""
    for name in OUTPUT_COLUMNS:
        res[name] = env.column(name)
    short_codes = [env.codes[s] for s in _SHORT if s in env.codes]
    for rd in model.rules:
        rid, unit = rd.id, rd.check.unit
        res[f"{rid}.status"] = env.calc(f"{rid}.status", None)
        short = np.isin(env.status_codes(f"{rid}.status"), short_codes)
        for part in rule_parts(rd)[1:]:
            name = {"bound": "required"}.get(part, part)
            vals = env.column(f"{rid}.{name}")
            if unit == "日期" and vals.dtype != object:
                vals = _dates(vals)
            if part == "shortfall":
                vals = np.where(short, vals.astype(float), np.nan)
            res[f"{rid}.{part}"] = vals
    return res


def _finish(frames: list[pd.DataFrame], models: dict, warnings: list[str]) -> pd.DataFrame:
    """The plans' results in the input's row order, with their column labels in ``attrs``."""
    out = pd.concat(frames).sort_index() if len(frames) > 1 else frames[0].sort_index()
    for c in ("fail_count", "warn_count", "missing_input_count"):
        out[c] = out[c].astype(int)
    out = out.reset_index(drop=True)
    out.attrs["warnings"] = warnings  # amounts that look like 万元/亿元: not errors
    out.attrs["columns"] = column_labels(list(out.columns), list(models.values()))
    out.attrs["policies"] = {pid: {"title_zh": m.policy.title_zh, "title_en": m.policy.title_en,
                                   "plan_years": list(m.policy.plan_years)} for pid, m in models.items()}
    return out


def column_labels(columns: list[str], models: list[cat.Model]) -> dict[str, dict]:
    """For each result column: ``zh`` and ``en`` labels, ``units`` (元, %, 日期, 是/否, 选项, 状态, 年, 项, 文本)
    and, for a rule's columns, ``rule``, ``part``, ``role`` and ``bound_kind``. A rule id shared by
    several plans with different titles gets their titles joined with ／."""
    out_labels = {name: (zh, en) for name, _, zh, en in cat.OUTPUTS}
    rules: dict[str, list[cat.RuleDef]] = {}
    for m in models:
        for rd in m.rules:
            rules.setdefault(rd.id, []).append(rd)
    info: dict[str, dict] = {}
    for col in columns:
        if col in _LEAD_LABELS:
            zh, en, unit = _LEAD_LABELS[col]
            info[col] = {"zh": zh, "en": en, "units": [unit]}
        elif col in _OUTPUT_UNITS:
            zh, en = out_labels.get(col, (col, col))
            info[col] = {"zh": zh, "en": en, "units": [_OUTPUT_UNITS[col]]}
        elif "." in col and col.rsplit(".", 1)[0] in rules:
            rid, part = col.rsplit(".", 1)
            rds = rules[rid]
            first = rds[0]
            titles_zh = list(dict.fromkeys(r.spec.title_zh for r in rds))
            titles_en = list(dict.fromkeys(r.spec.title_en for r in rds))
            units = ["状态"] if part == "status" else list(dict.fromkeys(r.check.unit for r in rds))
            kinds = list(dict.fromkeys(r.bound for r in rds if r.bound))
            pzh, pen = RULE_PART_LABELS.get(part, (part, part))
            if part == "bound" and len(kinds) == 1:
                pzh, pen = cat.BOUND_ZH[kinds[0]], cat.BOUND_EN[kinds[0]]
            if part in ("actual", "bound", "margin", "shortfall") and units == ["元"]:
                pzh += "（元）"
            tag = _ROLE_TAG.get(first.role, "")
            info[col] = {"zh": f"{tag}{' ／ '.join(titles_zh)} {pzh}", "en": f"{' / '.join(titles_en)}: {pen}",
                         "units": units, "rule": rid, "part": part, "role": first.role,
                         "bound_kind": kinds[0] if len(kinds) == 1 else None}
        else:
            info[col] = {"zh": col, "en": col, "units": []}
    return info
