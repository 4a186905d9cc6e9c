"""Reading a batch table: a CSV or XLSX file into a DataFrame (its rows numbered as in the file, a vendor's
footer dropped), and a column's cells into arrays (numbers, decimals, yes/no, text), every problem named by
row and column.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..values import MAX_AMOUNT, is_blank, plain_number, read_field, read_number
from .columns import Header, header_row, read_header
from ..errors import CaseError, Problem
from ..rules.expr import to_serial
from ..fields import FIELDS, FORECAST, Field, Kind
from ..inputs.untrusted import MAX_TABLE_CELLS, InputFileError, read_csv_rows, read_xlsx_rows, shown


KEY_COLUMNS = ("policy", "stock_code", "company_name", "fiscal_year")
FILE_ROW = "file_row"  #: the index name read_table gives the file's row numbers


_NUMERIC = (Kind.AMOUNT, Kind.RATIO, Kind.COUNT)
#: the first cell of a vendor's footer row below the data (Wind: 数据来源：Wind)
_FOOTER = ("数据来源", "来源：", "来源:", "资料来源", "注：", "注:", "Source:", "source:")


class BatchError(CaseError):
    """A batch file (or DataFrame) that cannot be evaluated: every problem, naming row and column."""

    title = "批量文件有误 invalid batch file"


def read_table(path: str | Path) -> pd.DataFrame:
    """A batch file as a DataFrame of raw values, within the limits of :mod:`xlmodel.inputs.untrusted`.

    CSV: every cell as text (UTF-8 with or without BOM, or GBK/GB18030); XLSX: the first sheet's
    values. The header is the first row whose cells are column names (:func:`xlmodel.batch.columns.header_row`:
    a title above it, as vendors write one, is left out); a vendor's footer (数据来源：…) below the
    data is left out; both with a note. Nothing is converted here: :func:`evaluate_batch` reads
    every cell as a case file or a workbook is read. ``attrs``: ``xlmodel_origin`` ("csv"/"xlsx"),
    ``notes``; the index (named ``file_row``) holds the file's row numbers."""
    path = Path(path)
    source = str(path)
    suffix = path.suffix.lower()
    try:
        if suffix in (".xlsx", ".xlsm"):
            table = read_xlsx_rows(path, header_at=header_row)
            origin = "xlsx"
        elif suffix == ".csv":
            table = read_csv_rows(path, header_at=header_row)
            origin = "csv"
            header = table.header
            if len(header) == 1 and any(sep in header[0] for sep in (";", "\t", "|")):
                sep = next(s for s in (";", "\t", "|") if s in header[0])
                raise InputFileError(source, f"表头只有一列 the header is one column {shown(header[0], 60)}: 文件似乎以 "
                                             f"{sep!r} 分隔 the file seems to use {sep!r} between values; "
                                             "请另存为逗号分隔 save it comma-separated")
        else:
            raise InputFileError(source, "应为 .csv 或 .xlsx 文件 expected a .csv or .xlsx file")
    except InputFileError as e:
        raise BatchError(source, [Problem(e.where or "(file)", e.message)]) from None
    header, rows, numbers, notes = table.header, table.rows, table.row_numbers, list(table.notes)
    seen: dict[str, int] = {}
    probs = []
    for j, name in enumerate(header):
        if name in seen:
            probs.append(Problem(f"列 column {name!r}", f"出现两次 appears twice (columns {seen[name] + 1} and {j + 1})"))
        else:
            seen[name] = j
    if probs:
        raise BatchError(source, probs)
    footer = _footer_rows(rows)
    if footer:
        notes.append(f"表末 {footer} 行为数据来源说明，未读入 the last {footer} row{'s' if footer > 1 else ''} "
                     f"(a source line: {shown(rows[-footer][0], 40)}) {'are' if footer > 1 else 'is'} not data")
        rows, numbers = rows[:-footer], numbers[:-footer]
    wide = _unpivot(header, rows, numbers, source)  # Wind's default: a column per figure and 报告期
    if wide is not None:
        header, rows, numbers, note = wide
        notes.append(note)
    cells = np.empty((len(rows), len(header)), dtype=object)  # the raw cells, as one block of objects
    if rows:
        cells[:] = rows
    df = pd.DataFrame(cells, columns=header, copy=False, dtype=object)  # (no inference: the cells as they are)
    df.attrs["xlmodel_origin"] = origin
    df.attrs["notes"] = notes
    # blank rows are left out: the index keeps the file's own row numbers, for the messages
    df.index = pd.Index(numbers, name=FILE_ROW)
    return df


#: the column a wide export's periods are read into (the long form's own name for it: read as fiscal_year)
PERIOD_COLUMN = "报告期"


def _unpivot(header: list, rows: list[list], numbers: list, source: str):
    """A wide export (Wind's default: one row per stock, a column per figure and 报告期, the period in the
    header: ``归属母公司股东的净利润 [报告期] 2022年报 [单位] 元``) as the long form: one row per stock and period, the
    period in a 报告期 column (read as every 报告期 is: a year-end date or 年报, never a half-year), the columns
    without a period (证券代码, 证券简称, 上市日期 …) repeated on each. (header, rows, row numbers, note), or None
    when no header names a period. A period's row with no figure at all is left out (the stock has none for
    it); a figure given twice for one period, or a fiscal-year column beside the periods, is refused."""
    from .columns import strip_period

    split = [strip_period(h) for h in header]
    if all(p is None for _, p in split):
        return None
    keep = [j for j, (_, p) in enumerate(split) if p is None]
    probs = [Problem(f"列 column {shown(header[j], 60)}", "宽表（列名带报告期）不应另有会计年度列 a wide export (periods in "
                     "the headers) cannot also have a fiscal-year column") for j in keep
             if read_header(header[j]).field == "fiscal_year"]
    periods: dict[str, dict[str, int]] = {}  # period -> figure's header (period taken out) -> column
    for j, (base, p) in enumerate(split):
        if p is None:
            continue
        cols = periods.setdefault(p, {})
        if base in cols:
            probs.append(Problem(f"列 column {shown(header[j], 60)}", f"报告期 {shown(p, 20)} 的 {shown(base, 40)} 出现两次 "
                                 f"given twice for one period (columns {cols[base] + 1} and {j + 1})"))
        cols[base] = j
    if probs:
        raise BatchError(source, probs)
    figures = list(dict.fromkeys(b for cols in periods.values() for b in cols))
    width = len(keep) + 1 + len(figures)
    if len(rows) * len(periods) * width > MAX_TABLE_CELLS:  # every id cell repeated per period: bounded too
        raise BatchError(source, [Problem("(file)", f"宽表展开后超过 {MAX_TABLE_CELLS:,} 个单元格 the wide export read as "
                                          f"one row per stock and period exceeds {MAX_TABLE_CELLS:,} cells "
                                          f"({len(rows):,} rows × {len(periods):,} periods × {width:,} columns)")])
    out_rows, out_numbers = [], []
    for row, number in zip(rows, numbers):
        ids = [row[j] if j < len(row) else None for j in keep]
        for p, cols in periods.items():
            vals = [row[cols[b]] if b in cols and cols[b] < len(row) else None for b in figures]
            if all(v is None or (isinstance(v, str) and not v.strip()) for v in vals):
                continue
            out_rows.append([*ids, p, *vals])
            out_numbers.append(number)
    note = (f"宽表：{len(periods)} 个报告期（{'、'.join(shown(p, 20) for p in periods)}）按列给出，已按行读入，每个证券每个报告期"
            f"一行，共 {len(out_rows)} 行；消息中的行号为文件中该证券的行 a wide export ({len(periods)} periods in the headers) "
            f"read as one row per stock and period ({len(out_rows)} rows); a message's row is the stock's row in the file")
    return [header[j] for j in keep] + [PERIOD_COLUMN] + figures, out_rows, out_numbers, note


def _footer_rows(rows: list[list]) -> int:
    """How many of the last rows are a vendor's footer: a note in the first cell only."""
    k = 0
    for r in reversed(rows):
        first = r[0] if r else None
        if isinstance(first, str) and first.strip().startswith(_FOOTER) and all(is_blank(v, "table") for v in r[1:]):
            k += 1
        else:
            break
    return k if k < len(rows) else 0


def _rows_text(idx, rows: np.ndarray, limit: int = 5) -> str:
    idx = list(idx)
    shown_rows = ", ".join(str(rows[i]) for i in idx[:limit])
    more = f" (+{len(idx) - limit} more)" if len(idx) > limit else ""
    return (f"第{shown_rows}行 row " if len(idx) == 1 else f"第{shown_rows}{more}行 rows ") + shown_rows + more


def _row(rows: np.ndarray, i: int) -> str:
    return f"第{rows[i]}行 row {rows[i]}"


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
    if col.dtype == object and set(map(type, values)) <= {str, bool, type(None)}:
        index: dict = {}  # text, yes/no and blanks: equal values are of one type (True == 1 is not among them)
        get = index.setdefault
        inv = np.fromiter([get(v, len(index)) for v in values], np.int64, n)
        return inv, list(index)
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
    if len(arr) and type(arr[0]) is str:  # text (a CSV): read once per distinct value
        return None
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


#: substrings no plain decimal has: a dot without a digit on each side, a sign before a dot
_NOT_PLAIN = (b"..", b"\n.", b".\n", b"+.", b"-.")
_DECIMAL_BYTES = b"0123456789.+-\n"
_DECIMALS_AT_ONCE = 1 << 16  # cells joined at once (a few MB of text)


def _decimal_pass(values: list) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_plain_decimals` of at most :data:`_DECIMALS_AT_ONCE` cells, or None when a cell is
    not text or not plain decimal text (then read cell by cell).

    The cells, joined by line breaks, are tested as one text (each test a scan of the bytes): only
    digits, dots, signs and the line breaks; a sign only at a cell's start; no dot without a digit on
    each side. Then numpy reads the numbers of the text (its decimal reading is Python's, correctly
    rounded: ``float`` of each cell, as :func:`xlmodel.values.read_field` reads it), stopping at a cell
    it cannot read (a lone sign, two dots): then the pass is read cell by cell."""
    n = len(values)
    try:
        text = "\n".join(values).encode("ascii")
    except (TypeError, UnicodeEncodeError):
        return None
    if text.translate(None, _DECIMAL_BYTES) or text.count(b"\n") != n - 1:
        return None  # another character, or a cell holding a line break
    if text.startswith(b".") or text.endswith(b".") or any(s in text for s in _NOT_PLAIN):
        return None
    for sign in (b"+", b"-"):
        if text.count(sign) != text.count(b"\n" + sign) + text.startswith(sign):
            return None  # a sign inside a cell
    empty = np.zeros(n, bool)
    if not text or text.startswith(b"\n") or text.endswith(b"\n") or b"\n\n" in text:  # blanks among them
        breaks = np.flatnonzero(np.frombuffer(text, np.uint8) == 10)
        empty = np.diff(breaks, prepend=-1, append=len(text)) == 1
        text = b"\n" + text + b"\n"
        for _ in range(2):  # a blank between two breaks reads 0 (twice: runs of blanks)
            text = text.replace(b"\n\n", b"\n0\n")
        text = text[1:-1]
    try:
        with warnings.catch_warnings():  # a cell it cannot read ends the array early, or raises
            warnings.simplefilter("ignore")
            num = np.fromstring(text.decode("ascii"), dtype=float, sep="\n")  # Python's own, correctly rounded
    except ValueError:
        return None
    if len(num) != n:
        return None
    num[empty] = 0.0
    return num, ~empty, empty


def _plain_decimals(values: list) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(number, which cells are plain decimal text, which are empty) of a list of text cells, or None
    when a cell is not text.

    Plain decimal text is what :func:`xlmodel.case.plain_number` reads (``[+-]?digits(.digits)?``),
    read by ``float`` as :func:`xlmodel.values.read_field` reads it; a pass of cells that is not all
    plain is read cell by cell (:func:`xlmodel.case.plain_number`): the cells it refuses are read by
    :func:`xlmodel.values.read_field`, one by one."""
    n = len(values)
    if not n:
        return np.zeros(0), np.zeros(0, bool), np.zeros(0, bool)
    if type(values[0]) is not str:
        return None
    parts = []
    for a in range(0, n, _DECIMALS_AT_ONCE):
        chunk = values[a:a + _DECIMALS_AT_ONCE]
        if not all(type(v) is str for v in chunk[:1]) or (got := _decimal_pass(chunk)) is None:
            if any(type(v) is not str for v in chunk):
                return None
            got = _decimals_by_cell(chunk)
        parts.append(got)
    if len(parts) == 1:
        return parts[0]
    return tuple(np.concatenate(p) for p in zip(*parts))  # type: ignore[return-value]


def _decimals_by_cell(values: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    parsed = [plain_number(v) for v in values]
    ok = np.array([p is not None for p in parsed], dtype=bool)
    num = np.array([p if p is not None else 0.0 for p in parsed], dtype=float)
    empty = np.array([v is None or (type(v) is str and not v) for v in values], dtype=bool)
    return num, ok, empty


def _numbers_of(values: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(number, read here, blank) of each cell of a numeric column of any types: text through
    :func:`_plain_decimals`, int and float as numbers, None and NaN blank; the rest is left to
    :func:`read_field` (not read here, not blank)."""
    got = _plain_decimals(values)
    if got is not None:
        return got
    n = len(values)
    types = np.array(list(map(type, values)), dtype=object)
    num, fast, blank = np.zeros(n), np.zeros(n, bool), (types == type(None))
    text = np.flatnonzero(types == str)
    if len(text):
        t_num, t_ok, t_empty = _plain_decimals([values[i] for i in text])
        num[text], fast[text], blank[text] = t_num, t_ok, t_empty
    plain = np.flatnonzero((types == float) | (types == int))
    if len(plain):
        try:
            x = np.array([values[i] for i in plain], dtype=float)
        except OverflowError:  # an int beyond any double: each on its own
            x = np.array([float(values[i]) if abs(values[i]) < 1e300 else np.inf for i in plain])
        num[plain] = x
        nan = np.isnan(x)
        fast[plain] = ~nan
        blank[plain[nan]] = True
    return num, fast, blank


def _scaled_field(f: Field) -> Field:
    """The field read before a header's unit scales it: any number (the field's own bounds are
    checked on the scaled value)."""
    return Field(f.id, f.zh, f.en, Kind.AMOUNT, f.per_year, default_zero=f.default_zero)


def _encode_numbers(f: Field, num: np.ndarray, fast: np.ndarray, absent: np.ndarray, values, origin: str,
                    errors: list[tuple[int, str]], head: Header | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Numbers read in numpy (``num`` where ``fast``), scaled by the header's unit; every other cell
    through :func:`read_field` (a scaled one read as any number, then checked scaled)."""
    kind, n = f.kind, len(num)
    factor = head.factor if head is not None else 1.0
    x = num * factor if factor != 1 else num
    with np.errstate(invalid="ignore"):
        ok = fast & np.isfinite(x) & (np.abs(x) < MAX_AMOUNT)
        if kind == Kind.RATIO:
            ok &= (x >= 0) & (x <= 1)
        elif kind == Kind.COUNT:
            ok &= (x >= 0) & (x == np.floor(x))
        elif f.default_zero:
            ok &= x >= 0
    out = np.zeros(n, dtype=float)
    good = np.flatnonzero(ok)
    out[good] = _fifteen(x[good])
    rest = np.flatnonzero(~ok & ~absent)
    if len(rest):
        values = values() if callable(values) else values
        reader = f if factor == 1 else _scaled_field(f)
        for i in rest:  # everything else: the scalar reader, value or message
            v, err = read_field(reader, values[i], origin)
            if err is None and v is not None and factor != 1:
                v, err = read_number(f, v * factor, origin)
                if err:
                    err = f"{err}（{shown(values[i])} {head.unit}）"
            if err:
                errors.append((int(i), err))
            elif v is None:
                absent[i] = True
            else:
                out[i] = v
    return out, absent


def _encode_values(f: Field, values: list, origin: str, errors: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """A list of raw cells read one by one (:func:`read_field`), as the evaluator stores them."""
    kind, n = f.kind, len(values)
    if kind in _NUMERIC:
        num, fast, absent = _numbers_of(values)
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
                   labels: list[str] | None = None, head: Header | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate and encode one input column as the evaluator reads it: numbers as arrays
    (:func:`_numbers_of`), every other kind once per distinct value and type, every cell that is not
    a plain number through :func:`xlmodel.values.read_field`; scaled by the header's unit; the problems
    in row order, naming the row and the column as the file names it."""
    f = FIELDS.get(fid) or (FORECAST if fid == FORECAST.id else None)
    if f is None:  # an attest_<rule> column: a yes/no
        rid = fid[len("attest_"):] if fid.startswith("attest_") else fid
        f = Field(rid, rid, rid, Kind.BOOL)
    kind = f.kind
    n = len(col)
    errors: list[tuple[int, str]] = []
    if kind in _NUMERIC and pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
        num = col.to_numpy(dtype=float, na_value=np.nan)
        absent = np.isnan(num) if origin in ("csv", "xlsx", "table") else np.zeros(n, bool)
        out, absent = _encode_numbers(f, num, np.isfinite(num), absent, col.tolist, origin, errors, head)
    elif kind in _NUMERIC and (col.dtype == object or pd.api.types.is_string_dtype(col.dtype)):
        values = col.tolist()  # numbers of any type, as text or not (-0.0 stays -0.0)
        num, fast, absent = _numbers_of(values)
        out, absent = _encode_numbers(f, num, fast, absent, values, origin, errors, head)
    elif kind == Kind.BOOL and (hit := _booleans(col)) is not None:
        out, absent = hit
    else:  # yes/no, choices, dates, text: once per distinct value
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
    where = head.where if head is not None else fid
    for i, m in errors:
        problems.append(Problem(f"{_row(rows, i)}, {where}" + (f" ({labels[i]})" if labels and labels[i] else ""), m))
    if f.default_zero:
        absent = np.zeros(n, dtype=bool)
    return out, absent
