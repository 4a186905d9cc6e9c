"""Batch evaluation: a DataFrame of company-years -> a DataFrame of results.

One row per company and fiscal year. Every row is evaluated as its own evaluation year, reading
earlier years from the same company's rows.

Reading (:func:`prepare_batch`): each column is named by a field id, its Chinese label or a data
terminal's name for the same figure (:mod:`xlmodel.batch.columns`; a unit in the header scales the
column, with a note); every column is read and checked as an array, with the one reading of each
field (:func:`xlmodel.case.read_field`: plain numbers and text numbers in numpy, every other cell
through ``read_field``, once per distinct value), every problem reported at once naming the row and
the column. Stock codes are read as vendors write them (``600519.SH``, ``SZ000001``, ``2015`` with its
zeros lost) and the board follows from the code where the file does not say it.

Evaluating (:meth:`Batch.frames`): rows are evaluated in chunks of :data:`CHUNK_ROWS` (each input
cell the model reads is one indexed lookup of a column, each calculation one numpy operation), so
that memory stays flat however many rows the file has; :func:`evaluate_batch` joins the chunks.

Forecast rows (a ``forecast`` column, :data:`xlmodel.fields.FORECAST`, read as every yes/no field): a row
marked 是 holds forecast figures (预测数), not reported ones; a company's forecast years come after its
reported years (a reported row after a forecast row is refused, naming both). The result then has a
``forecast`` column: True where the row's own figures are forecasts or its window (the earlier or later
years the plan reads) reads a forecast year; without the input column the result has none.

Without a plan (no ``policy`` column, no ``policy`` argument) every row is screened against the
regulatory baseline alone (:func:`screen_model`): its computed rules, whatever the baseline file
holds; the confirmations a company gives (attestations) and the rules on a plan's own conditions
are left out, and said so.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from ..rules import catalogue as cat
from .. import outputs as _outputs
from ..plans import schema as pol
from ..case import (MAX_AMOUNT, MAX_YEAR, MIN_YEAR, UNIT_FIELDS, UNIT_WARNING_BELOW, board_of_code, board_problem,
                    is_blank, plain_number, read_field, read_number, read_year, stock_code_note)
from .columns import Header, header_row, read_header
from ..rules.consistency import CONFIRM_FIELD, year_findings
from ..errors import CaseError, Problem, XlmodelError
from ..rules.compiled import VectorEnv, round_fen_v
from ..evaluator import evaluate_arrays, model_for
from ..rules.expr import to_serial
from ..fields import BOARDS, FIELDS, FORECAST, Field, Kind
from ..plans.schema import Policy, load_plan_by_id
from ..inputs.untrusted import MAX_TABLE_CELLS, InputFileError, did_you_mean, read_csv_rows, read_xlsx_rows, shown
from ..progress import progress_bar

KEY_COLUMNS = ("policy", "stock_code", "company_name", "fiscal_year")
FILE_ROW = "file_row"  #: the index name read_table gives the file's row numbers
MAX_LISTED = 50
#: rows evaluated at once: each calculation of a plan is an array of this many values
CHUNK_ROWS = 8192
_NUMERIC = (Kind.AMOUNT, Kind.RATIO, Kind.COUNT)
#: the first cell of a vendor's footer row below the data (Wind: 数据来源：Wind)
_FOOTER = ("数据来源", "来源：", "来源:", "资料来源", "注：", "注:", "Source:", "source:")


class BatchError(CaseError):
    """A batch file (or DataFrame) that cannot be evaluated: every problem, naming row and column."""

    title = "批量文件有误 invalid batch file"


def _attest_col(rule_id: str) -> str:
    return f"attest_{rule_id}"


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


# ---- numbers as text, read in numpy --------------------------------------------------------------

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
    rounded: ``float`` of each cell, as :func:`xlmodel.case.read_field` reads it), stopping at a cell
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
    read by ``float`` as :func:`xlmodel.case.read_field` reads it; a pass of cells that is not all
    plain is read cell by cell (:func:`xlmodel.case.plain_number`): the cells it refuses are read by
    :func:`xlmodel.case.read_field`, one by one."""
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


# ---- reading a column ------------------------------------------------------------------------------

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
    a plain number through :func:`xlmodel.case.read_field`; scaled by the header's unit; the problems
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


def _part_problems(encoded: dict, n: int, rows: np.ndarray) -> list[Problem]:
    """Rows whose values contradict each other, or that no listed company's 元 figure could be: the one
    definition of :func:`xlmodel.rules.consistency.year_findings`, on the columns as arrays."""
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
    return [f"{which}: 金额像是以万元或亿元填写 amounts look like 万元 or 亿元, not 元 "
            f"({', '.join(f for f in UNIT_FIELDS if f in encoded)} all below {UNIT_WARNING_BELOW:,.0f}): "
            "every amount is read in 元 (1.2亿 is 120000000); 表头写明单位（如 归母净利润(万元)）即按该单位换算 "
            "a header stating the unit (归母净利润(万元)) scales the column"]


# ---- the regulatory baseline alone -----------------------------------------------------------------

_SCREENS: dict[tuple, tuple] = {}


def screen_model(baseline_id: str | None = None, *, attestations: bool = False) -> tuple[cat.Model, list[tuple[str, str, str]]]:
    """A baseline-only screen: the model of the regulatory baseline's rules (``baseline_id``, by
    default the one a plan applies) with no plan, and the rules left out, ``(rule id, title, why)``.

    Every rule of the baseline file is screened except the confirmations a company gives (rules of
    kind ``attestation``: its low-payout explanation, online voting …, which no figure can show)
    and rules that read a plan's cash-dividend conditions (there is no plan). Compiled once per
    baseline file. With ``attestations`` the confirmations are kept (``xlmodel announce`` words the duties
    whose rule applies: a confirmation not given is a missing input, never a pass)."""
    bid = baseline_id or pol.Settings().regulatory_baseline
    base = pol.load_baseline(bid)
    key = (bid, id(base), attestations)
    hit = _SCREENS.get(key)
    if hit is not None and hit[0] is base:
        return hit[1], hit[2]
    lo, hi = MIN_YEAR, MAX_YEAR
    empty = Policy.model_construct(id=base.id, version=base.version, title_zh=base.title_zh, title_en=base.title_en,
                                   company=None, plan_years=(lo, hi), adopted=None, text=None, settings=pol.Settings(),
                                   major_outlay=None, clauses={}, rules=[])
    full = cat.compile_policy(empty, base)
    reads_plan = {"cond_met", "cond_unknown"}
    left: list[tuple[str, str, str]] = []
    for rd in full.rules:
        if rd.spec.kind == "attestation" and not attestations:
            left.append((rd.id, rd.spec.title_zh, "需公司确认的事项，数据无从显示 a confirmation the company gives"))
        elif any(nm.startswith(rd.id + ".") and any(c in reads_plan for c, _ in node.calcs())
                 for nm, node in full.scalars.items()):
            left.append((rd.id, rd.spec.title_zh, "依据规划的现金分红条件，无规划不适用 reads a plan's own conditions"))
    gone = {rid for rid, _, _ in left}
    kept = base.model_copy(update={"rules": [r for r in base.rules if r.id not in gone]})
    model = cat.compile_policy(empty, kept) if gone else full
    if len(_SCREENS) > 8:
        _SCREENS.clear()
    _SCREENS[key] = (base, model, left)
    return model, left


# ---- reading a whole table --------------------------------------------------------------------------

class Batch:
    """A batch read and checked (:func:`prepare_batch`), ready to be evaluated chunk by chunk."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def screen(self) -> bool:
        """True for a baseline-only screen (no plan)."""
        return self.left_out is not None

    def meta(self) -> dict:
        """The ``attrs`` of the result: warnings, notes, each column's labels, each plan's title."""
        policies = {pid: {"title_zh": m.policy.title_zh, "title_en": m.policy.title_en,
                          "plan_years": None if self.screen else list(m.policy.plan_years)} for pid, m in self.models.items()}
        if self.screen:
            for p in policies.values():
                p["screen"] = True
                p["left_out"] = [list(x) for x in self.left_out]
        return {"warnings": list(self.warnings), "notes": list(self.notes),
                "columns": column_labels(self.columns, list(self.models.values())), "policies": policies}

    def _getter(self, sel: np.ndarray):
        """The evaluator's reader of the selected rows' inputs; ``getter.offsets``: the years (offsets
        from each row's own) it was asked for, its window."""
        lookups: dict[int, np.ndarray] = {}
        asked: set[int] = set()
        n = len(sel)
        encoded, row_key, sorted_key, key_order = self.encoded, self.row_key, self.sorted_key, self.key_order

        def loc(offset: int) -> np.ndarray:
            """The row of each selected row's company in its year + offset (-1: no such row)."""
            if offset not in lookups:
                if offset == 0:
                    lookups[0] = sel
                else:
                    target = row_key[sel] + offset
                    pos = np.minimum(np.searchsorted(sorted_key, target), len(sorted_key) - 1)
                    lookups[offset] = np.where(sorted_key[pos] == target, key_order[pos], -1)
            return lookups[offset]

        def getter(fid: str, offset: int):
            asked.add(offset)
            col = _attest_col(fid[len(cat.ATTEST):]) if fid.startswith(cat.ATTEST) else fid
            f = FIELDS.get(fid)
            if col not in encoded or (fid.startswith(cat.ATTEST) and offset != 0):
                kind = f.kind if f else Kind.BOOL
                fill = (np.zeros(n, bool) if kind == Kind.BOOL else np.full(n, "", dtype=object)
                        if kind in (Kind.ENUM, Kind.TEXT) else np.zeros(n))  # as evaluator.encode has a blank
                return fill, np.full(n, not (f is not None and f.default_zero))
            arr, absent = encoded[col]
            li = loc(offset)
            if offset == 0:
                return arr[li], absent[li]
            found = li >= 0
            safe = np.where(found, li, 0)
            vals = arr[safe]
            miss = np.where(found, absent[safe], not (f is not None and f.default_zero))
            if not found.all():
                vals[~found] = "" if vals.dtype == object else 0
            return vals, miss
        getter.offsets = asked  # type: ignore[attr-defined]
        getter.loc = loc  # type: ignore[attr-defined]
        return getter

    def _forecast_marks(self, sel: np.ndarray, getter) -> np.ndarray:
        """Which selected rows' results rest on forecast figures: the row's own, or a year its window read."""
        fc = self.forecast
        out = fc[sel].copy()
        for offset in sorted(getter.offsets - {0}):
            li = getter.loc(offset)
            out |= (li >= 0) & fc[np.where(li >= 0, li, 0)]
        return out

    def frames(self, chunk_rows: int | None = None, progress: bool | None = False) -> Iterator[pd.DataFrame]:
        """The result rows in the input's order, ``chunk_rows`` (:data:`CHUNK_ROWS`) at a time, every
        chunk with the same columns (:attr:`columns`)."""
        chunk_rows = chunk_rows or CHUNK_ROWS
        todo = self.shown
        bar = progress_bar(self.n, "评估 evaluating", progress)
        try:
            for a in range(0, self.n, chunk_rows):
                rows = todo[a:a + chunk_rows]
                parts = []
                for pid, model in self.models.items():
                    sel = rows[self.pol[rows] == pid] if len(self.models) > 1 else rows
                    if not len(sel):
                        continue
                    getter = self._getter(sel)
                    env = evaluate_arrays(model, len(sel), getter, self.years[sel])
                    company = {self.key_col: self.keys[sel]}
                    if self.names is not None:
                        company["company_name"] = self.names[sel]
                    marks = None if self.forecast is None else self._forecast_marks(sel, getter)
                    res = _results(model, env, pid, company, self.years[sel], marks)
                    res[MISSING_COLUMN] = _missing_inputs(model, env, getter, self.years[sel])
                    parts.append(pd.DataFrame(res, index=sel))
                    bar.update(len(sel))
                out = pd.concat(parts).sort_index() if len(parts) > 1 else parts[0]
                if list(out.columns) != self.columns:
                    out = out.reindex(columns=self.columns)
                for c in COUNT_COLUMNS:
                    out[c] = out[c].astype(int)
                out[MISSING_COLUMN] = pd.Series(np.array([v if isinstance(v, str) else None  # text or None, whatever
                                                          for v in out[MISSING_COLUMN].tolist()], dtype=object),  # a chunk holds
                                                index=out.index, dtype=object)
                for c in self.numeric_columns:  # a chunk whose values are all blank is numbers all the same
                    if out[c].dtype == object:
                        out[c] = out[c].astype(float)
                yield out
        finally:
            bar.close()


def _headers(df: pd.DataFrame, problems: list[Problem], notes: list[str]) -> dict[str, tuple[str, Header]]:
    """Each column's header read (:func:`xlmodel.batch.columns.read_header`): field id -> (column, header)."""
    heads: dict[str, tuple[str, Header]] = {}
    names = [str(c) for c in df.columns]
    for c in sorted({c for c in names if names.count(c) > 1}):
        problems.append(Problem(f"列 column {c!r}", "出现不止一次 appears more than once"))
    for c in df.columns:
        h = read_header(str(c))
        if h.problem:
            problems.append(Problem(f"列 column {str(c)!r}", h.problem))
            continue
        if h.field in heads:
            other = heads[h.field][0]
            if other != c:
                problems.append(Problem(f"列 column {str(c)!r}", f"与列 {str(other)!r} 同为 {h.field}，请只保留一列 "
                                                                f"both this and {str(other)!r} are {h.field}: keep one"))
            continue
        heads[h.field] = (c, h)
        if h.note:
            notes.append(f"列 column {str(c)!r}: {h.note}")
    return heads


def prepare_batch(df: pd.DataFrame, policy: str | Policy | None = None, source: str = "<batch>",
                  year: int | None = None) -> Batch:
    """Read and check every row and column of ``df`` (see the module doc): a :class:`Batch`, or a
    :class:`BatchError` with every problem, each naming the row and the column. ``year``: the result has
    the rows of that fiscal year only (every row is read, the other years as the history its rules read)."""
    problems: list[Problem] = []
    notes: list[str] = list(df.attrs.get("notes") or [])  # how the file was read (a title row, a footer)
    origin = df.attrs.get("xlmodel_origin", "table")
    if origin not in ("csv", "xlsx", "table"):
        origin = "table"
    file_rows = df.index.to_numpy() if df.index.name == FILE_ROW else None
    n = len(df)
    rows = np.arange(n) + 2 if file_rows is None else file_rows  # spreadsheet row numbers (header is row 1)
    heads = _headers(df, problems, notes)

    def column(fid: str) -> pd.Series:
        return df[heads[fid][0]]

    key_col = _key_column(heads, n, problems)
    if problems and (n == 0 or "fiscal_year" not in heads or key_col is None):
        raise BatchError(source, problems)
    models, left_out, pol_col = _plans(policy, heads, column, n, rows, origin, source, problems, notes)
    attest_cols = _attestation_columns(heads, models, left_out, pol_col, problems)
    year_vals, has_year = _read_years(column("fiscal_year"), heads["fiscal_year"][1], rows, origin, problems)
    key_vals = _read_keys(column(key_col), key_col, heads[key_col][1], rows, origin, problems, notes)
    labels = _Labels(key_vals, year_vals)
    names = None
    if key_col == "stock_code" and "company_name" in heads:
        names = _read_names(column("company_name"), heads["company_name"][1], rows, origin, labels, problems)
    years = np.where(has_year, year_vals, 0).astype(int)
    _duplicates(key_vals, years, has_year, rows, problems)
    encoded = _encode_inputs(df, heads, attest_cols, rows, origin, labels, problems)
    forecast = None
    if FORECAST.id in heads:
        forecast = _read_forecast_column(df[heads[FORECAST.id][0]], heads[FORECAST.id][1], key_vals, years,
                                         has_year, rows, origin, labels, problems)
    if key_col == "stock_code":
        _boards(encoded, key_vals, heads.get("board"), rows, labels, problems, notes)
    _attested_elsewhere(encoded, attest_cols, models, pol_col, rows, problems)
    problems += _part_problems(encoded, n, rows)
    warnings = _draft_warnings(models) + _unit_warnings(encoded, n, rows, labels)
    if problems:
        raise BatchError(source, problems[:MAX_LISTED] + ([Problem("…", f"另有 {len(problems) - MAX_LISTED} 处 "
                                                                       f"{len(problems) - MAX_LISTED} more")]
                                                         if len(problems) > MAX_LISTED else []))
    row_key, key_order = _company_years_index(key_vals, years)
    company_cols = tuple(c for c in COMPANY_COLUMNS if c == key_col or (c == "company_name" and names is not None))
    columns, numeric = _result_layout(models, company_cols, left_out is not None, forecast is not None)
    if forecast is not None and forecast.any():
        notes.append(f"{int(forecast.sum())} 行为预测数（非已披露数），其结果及读取预测年度的结果在 forecast 列标为“是” "
                     f"{int(forecast.sum())} rows hold forecast figures, not reported ones: their results, and those "
                     "whose years read a forecast year, are marked True in the forecast column")
    shown = np.arange(n) if year is None else np.flatnonzero(years == year)
    if year is not None:
        if not len(shown):
            raise BatchError(source, [Problem("fiscal_year", f"无 {year} 会计年度的行 no row of fiscal year {year}")])
        notes.append(f"仅输出 {year} 会计年度的 {len(shown)} 行，其他年度的行作为其窗口的历史数据读取 "
                     f"only the {len(shown)} rows of fiscal year {year} are evaluated; the other years' rows are read "
                     "as the history their rules read")
    return Batch(source=source, n=len(shown), shown=shown, rows=rows, key_col=key_col, keys=key_vals, years=years, names=names,
                 encoded=encoded, forecast=forecast, models=models, pol=pol_col, notes=notes, warnings=warnings,
                 left_out=left_out, row_key=row_key, key_order=key_order, sorted_key=row_key[key_order], columns=columns,
                 numeric_columns=numeric)


def _draft_warnings(models: dict) -> list[str]:
    """One warning per plan with open review items (:func:`xlmodel.plans.schema.open_reviews`): an unreviewed draft,
    under which no row's verdict is a pass (:func:`unreviewed_plans`; ``evaluate --batch`` exits 1)."""
    return [f"规划 {pid} 为未复核的草稿（{n} 项待复核）：按其评估的行不构成合规结论 the plan {pid} is an unreviewed draft "
            f"({n} open review item{'s' if n != 1 else ''}): no row evaluated under it is a verdict of compliance"
            for pid, n in unreviewed_plans(models).items()]


def unreviewed_plans(models: dict) -> dict[str, int]:
    """The plans of ``models`` (by id) that are unreviewed drafts, with their number of open review items."""
    from ..plans.schema import open_reviews

    counts = {pid: len(open_reviews(m.policy)) for pid, m in models.items()}
    return {pid: n for pid, n in counts.items() if n}


def _key_column(heads: dict, n: int, problems: list[Problem]) -> str | None:
    """The columns every batch needs: rows, the fiscal year, a company key (the stock code, else the
    name), the share count beside a per-share dividend. The key column, or None (a problem said)."""
    if n == 0:
        problems.append(Problem("(file)", "没有数据行 no data rows; expected one row per company and fiscal year"))
    if "fiscal_year" not in heads:
        problems.append(Problem("列 column 'fiscal_year'", "缺少会计年度列 required: a fiscal_year (会计年度) column"))
    key_col = "stock_code" if "stock_code" in heads else "company_name" if "company_name" in heads else None
    if key_col is None:
        problems.append(Problem("列 column 'stock_code'", "缺少证券代码列 required: a stock_code (证券代码) column, "
                                                         "or company_name (公司名称), to tell companies apart"))
    cash = heads.get("cash_dividend")
    if cash is not None and cash[1].per and "share_count" not in heads:
        problems.append(Problem(cash[1].where, "每股数字需要总股本列 a per-share figure needs a share_count (总股本) "
                                               "column to give the cash dividend"))
    return key_col


def _plans(policy, heads: dict, column, n: int, rows: np.ndarray, origin: str, source: str,
           problems: list[Problem], notes: list[str]) -> tuple[dict[str, cat.Model], list | None, np.ndarray]:
    """The plans: one id for every row, the policy column (each id looked up once, never a path), or
    none (the regulatory baseline alone). (models by id, what a screen leaves out or None, each row's id)."""
    models: dict[str, cat.Model] = {}
    left_out = None
    if policy is not None:
        pid = policy.id if isinstance(policy, Policy) else policy
        try:
            models[pid] = model_for(policy if isinstance(policy, Policy) else load_plan_by_id(policy))
        except XlmodelError as e:
            raise BatchError(source, [Problem("policy (--policy)", str(e))]) from None
        pol_col = np.full(n, pid, dtype=object)
    elif "policy" not in heads:
        model, left_out = screen_model()
        models[model.policy.id] = model
        pol_col = np.full(n, model.policy.id, dtype=object)
        notes.append(f"无规划（无 policy 列、未给 --policy）：按监管底线 {model.policy.id} 筛查每一行"
                     + (f"；未纳入 left out: {', '.join(r for r, _, _ in left_out)}（需公司确认的事项或依据规划条件的规则 "
                        "confirmations and rules on a plan's conditions)" if left_out else "")
                     + f" — no plan: every row screened against the regulatory baseline {model.policy.id} alone")
    else:
        pol_col = _read_policies(column("policy"), rows, origin, models, problems)
    return models, left_out, pol_col


def _attestations_known(models: dict[str, cat.Model]) -> tuple[dict[str, set[str]], list[str]]:
    """Each plan's attestation ids, and all of them."""
    known = {pid: set(m.attestation_ids()) for pid, m in models.items()}
    return known, (sorted(set().union(*known.values())) if known else [])


def _attestation_columns(heads: dict, models: dict, left_out, pol_col: np.ndarray, problems: list[Problem]) -> list[str]:
    """The ``attest_<rule>`` columns; one a screen does not read, or no plan of the batch has, is a problem."""
    _known, all_att = _attestations_known(models)
    attest_cols = [fid for fid in heads if fid.startswith("attest_")]
    for c in attest_cols:
        rid = c[len("attest_"):]
        if left_out is not None:
            problems.append(Problem(f"列 column {c!r}", "按监管底线筛查时不读确认事项，请删去此列 a baseline-only screen "
                                                        "reads no attestations: leave the column out"))
        elif models and rid not in all_att and len(models) == len(set(pol_col.tolist()) - {""}):
            problems.append(Problem(f"列 column {c!r}", f"不是 {', '.join(models)} 的确认事项 not an attestation of "
                                                        f"{', '.join(models)}" + did_you_mean(rid, all_att)))
    return attest_cols


def _read_years(col: pd.Series, head: Header, rows: np.ndarray, origin: str,
                problems: list[Problem]) -> tuple[np.ndarray, np.ndarray]:
    """The fiscal year of each row (each distinct value read once): (years, with None where unreadable;
    whether a row has one)."""
    inv_y, res_y = _read_grouped(lambda v: read_year(v, origin), col)
    g_year = np.empty(len(res_y), dtype=object)
    g_year[:] = [fy for fy, _ in res_y]
    bad = np.array([err is not None or fy is None for fy, err in res_y], dtype=bool)
    for i in np.flatnonzero(bad[inv_y]):
        fy, err = res_y[inv_y[i]]
        problems.append(Problem(f"{_row(rows, i)}, {head.where}", err or "缺少会计年度 required: a fiscal year such as 2024"))
    return g_year[inv_y], np.array([fy is not None for fy, _ in res_y], dtype=bool)[inv_y]


def _read_keys(col: pd.Series, key_col: str, head: Header, rows: np.ndarray, origin: str,
               problems: list[Problem], notes: list[str]) -> np.ndarray:
    """The company key of each row ("" where unreadable); a stock code's notes (codes read how)."""
    inv_k, reps_k = _grouped(col)
    res_k = [read_field(FIELDS[key_col], v, origin) for v in reps_k]
    g_key = np.empty(len(res_k), dtype=object)
    g_key[:] = [k or "" for k, _ in res_k]
    bad = np.array([err is not None or k is None for k, err in res_k], dtype=bool)
    for i in np.flatnonzero(bad[inv_k]):
        k, err = res_k[inv_k[i]]
        problems.append(Problem(f"{_row(rows, i)}, {head.where}", err or "缺少 required to tell companies apart"))
    if key_col == "stock_code":
        _code_notes(inv_k, reps_k, res_k, notes)
    return g_key[inv_k]


def _read_names(col: pd.Series, head: Header, rows: np.ndarray, origin: str, labels: _Labels,
                problems: list[Problem]) -> np.ndarray:
    """The company name of each row, beside the stock code that keys it."""
    inv_c, res_c = _read_grouped(lambda v: read_field(FIELDS["company_name"], v, origin), col)
    bad = np.array([err is not None for _, err in res_c], dtype=bool)
    for i in np.flatnonzero(bad[inv_c]):
        problems.append(Problem(f"{_row(rows, i)}, {head.where}" + (f" ({labels[i]})" if labels[i] else ""),
                                res_c[inv_c[i]][1]))
    g = np.empty(len(res_c), dtype=object)
    g[:] = [v for v, _ in res_c]
    return g[inv_c]


def _duplicates(key_vals: np.ndarray, years: np.ndarray, has_year: np.ndarray, rows: np.ndarray,
                problems: list[Problem]) -> None:
    """A company-year on more than one row is a problem at each of them."""
    valid = (key_vals != "") & has_year
    dup = pd.DataFrame({"k": key_vals, "y": years}).duplicated(keep=False).to_numpy() & valid
    for i in np.flatnonzero(dup):
        problems.append(Problem(_row(rows, i), f"公司年度重复 {key_vals[i]} {years[i]} appears more than once"))


def _encode_inputs(df: pd.DataFrame, heads: dict, attest_cols: list[str], rows: np.ndarray, origin: str,
                   labels: _Labels, problems: list[Problem]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every input column as (values, absent) arrays; a per-share dividend as the cash it gives."""
    encoded: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for fid, (c, h) in heads.items():
        if (fid in FIELDS and fid not in ("company_name", "stock_code")) or fid in attest_cols:
            encoded[fid] = _encode_column(fid, df[c], problems, rows, origin, labels, h if fid in FIELDS else None)
    cash = heads.get("cash_dividend")
    if cash is not None and cash[1].per:
        _per_share(encoded, cash[1], rows, labels, problems)
    return encoded


def _attested_elsewhere(encoded: dict, attest_cols: list[str], models: dict, pol_col: np.ndarray, rows: np.ndarray,
                        problems: list[Problem]) -> None:
    """An attestation given on a row whose plan has no such attestation is a problem."""
    known_att, all_att = _attestations_known(models)
    for c in attest_cols:
        rid = c[len("attest_"):]
        lacking = [p for p, ids in known_att.items() if rid not in ids]
        if c in encoded and rid in all_att and lacking:
            arr, absent = encoded[c]
            wrong = np.flatnonzero(~absent & np.isin(pol_col, lacking))
            if len(wrong):
                problems.append(Problem(f"{_rows_text(wrong, rows)}, {c}",
                                        f"不是规划 {pol_col[wrong[0]]} 的确认事项，请留空 not an attestation of policy "
                                        f"{pol_col[wrong[0]]}; leave it blank there"))


def _read_forecast_column(col: pd.Series, head: Header, key_vals: np.ndarray, years: np.ndarray,
                          has_year: np.ndarray, rows: np.ndarray, origin: str, labels: _Labels,
                          problems: list[Problem]) -> np.ndarray:
    """The ``forecast`` column (:data:`xlmodel.fields.FORECAST`, read as every yes/no column; blank: reported
    figures): which rows hold forecasts. A company's reported row after one of its forecast rows is a
    problem naming both rows: a forecast comes after the reported years."""
    arr, absent = _encode_column(FORECAST.id, col, problems, rows, origin, labels, head)
    forecast = np.asarray(arr, dtype=bool) & ~absent
    valid = (key_vals != "") & has_year
    if not (forecast & valid).any():
        return forecast
    company, _ = pd.factorize(pd.Series(key_vals, dtype=object))
    first = np.full(company.max() + 1, MAX_YEAR + 1, dtype=np.int64)  # each company's first forecast year
    hit = forecast & valid
    np.minimum.at(first, company[hit], years[hit])
    late = np.flatnonzero(valid & ~forecast & (years > first[company]))
    if len(late):
        fc_rows = np.flatnonzero(hit)
        first_row = {}
        for i in fc_rows[np.argsort(years[fc_rows], kind="stable")]:
            first_row.setdefault(int(company[i]), int(i))
        for i in late:
            j = first_row[int(company[i])]
            problems.append(Problem(f"{_row(rows, i)}, {head.where}" + (f" ({labels[i]})" if labels[i] else ""),
                                    f"已披露年度 {years[i]} 在预测年度 {years[j]}（{_row(rows, j)}）之后：预测数须在已披露年度之后 "
                                    f"a reported year {years[i]} after the forecast year {years[j]} (row {rows[j]}): "
                                    "forecast figures must come after the reported years"))
    return forecast


def _company_years_index(key_vals: np.ndarray, years: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(company, year) as one integer, sorted once: every offset's rows by one binary search."""
    company_code, _ = pd.factorize(pd.Series(key_vals, dtype=object))
    row_key = company_code.astype(np.int64) * 1_000_000 + (years - years.min() + 500_000)
    return row_key, np.argsort(row_key, kind="stable")


def _result_layout(models: dict[str, cat.Model], company_cols: tuple[str, ...], screen: bool,
                   forecast: bool = False) -> tuple[list[str], list[str]]:
    """The result's columns (every plan's, each once, in order) and those that hold numbers."""
    columns: list[str] = []
    for m in models.values():
        columns += [c for c in result_columns(m, company_cols, screen=screen, forecast=forecast)
                    if c not in columns and c != MISSING_COLUMN]
    columns.append(MISSING_COLUMN)
    labels = column_labels(columns, list(models.values()))
    numeric = [c for c in columns if c not in COUNT_COLUMNS + ("fiscal_year",)
               and (units := labels[c].get("units")) and all(u in ("元", "%", "项", "年") for u in units)]
    return columns, numeric


def _read_policies(col: pd.Series, rows: np.ndarray, origin: str, models: dict, problems: list[Problem]) -> np.ndarray:
    """The policy column: each id looked up once (never a path); the plan id of every row."""
    inv, reps = _grouped(col)
    g_pid, g_blank, g_key = [], [], []
    for v in reps:
        blank = is_blank(v, origin)
        p = v.strip() if isinstance(v, str) else v
        g_blank.append(blank)
        g_pid.append("" if blank or not isinstance(p, str) else p)
        g_key.append(None if blank else (type(p), p))
    for i in np.flatnonzero(np.array(g_blank, dtype=bool)[inv]):
        problems.append(Problem(f"{_row(rows, i)}, policy", "缺少规划 required: a policy id (see `xlmodel policies`)"))
    by_value: dict = {}
    for g, key in enumerate(g_key):
        if key is not None:
            by_value.setdefault(key, []).append(g)
    order = np.argsort(inv, kind="stable")
    starts = np.searchsorted(inv[order], np.arange(len(reps) + 1))
    for (_, p), groups in sorted(by_value.items(), key=lambda kv: min(order[starts[g]] for g in kv[1])):
        idx = np.sort(np.concatenate([order[starts[g]:starts[g + 1]] for g in groups]))
        try:
            models[p] = model_for(load_plan_by_id(p))
        except XlmodelError as e:
            problems.append(Problem(f"{_rows_text(idx, rows)}, policy", str(e)))
    return np.array(g_pid, dtype=object)[inv]


def _code_notes(inv: np.ndarray, reps: list, res: list[tuple], notes: list[str]) -> None:
    """A note for the codes read with their leading zeros restored (2015 -> 002015)."""
    said = [stock_code_note(v, code) for v, (code, _) in zip(reps, res)]
    hit = np.array([s is not None for s in said], dtype=bool)
    rows = np.flatnonzero(hit[inv])
    if len(rows):
        first = next(s for s in said if s is not None)
        notes.append(f"{len(rows)} 行的证券代码补足了前导零 {len(rows)} rows' stock codes had their leading zeros "
                     f"restored (e.g. {first})")


def _boards(encoded: dict, codes: np.ndarray, head: tuple[str, Header] | None, rows: np.ndarray, labels,
            problems: list[Problem], notes: list[str]) -> None:
    """The board follows from the stock code where the file gives none; a stated board that
    contradicts the code is a problem (:func:`xlmodel.case.board_problem`)."""
    uniq, inv = np.unique(codes.astype(str), return_inverse=True)
    implied = np.array([board_of_code(c) or "" for c in uniq], dtype=object)[inv.reshape(-1)]
    if head is None:
        if not (implied != "").any():
            return
        encoded["board"] = (implied, implied == "")
        notes.append(f"上市板块由证券代码推定 the board follows from the stock code ({int((implied != '').sum())} rows)")
        return
    arr, absent = encoded["board"]
    wrong = np.flatnonzero(~absent & (implied != "") & (arr != implied))
    for i in wrong:
        problems.append(Problem(f"{_row(rows, i)}, {head[1].where}" + (f" ({labels[i]})" if labels[i] else ""),
                                board_problem(codes[i], arr[i])))
    fill = absent & (implied != "")
    if fill.any():
        arr, absent = arr.copy(), absent.copy()
        arr[fill], absent[fill] = implied[fill], False
        encoded["board"] = (arr, absent)
        notes.append(f"{int(fill.sum())} 行未填上市板块，由证券代码推定 rows without a board: it follows from the stock code")


def _per_share(encoded: dict, head: Header, rows: np.ndarray, labels, problems: list[Problem]) -> None:
    """A per-share cash dividend (每股派息) as the year's cash dividend: × the share count (÷ 10 per
    10 shares), to the fen."""
    if "share_count" not in encoded:  # (said: the column is required)
        return
    dps, dps_absent = encoded["cash_dividend"]
    shares, s_absent = encoded["share_count"]
    given = ~dps_absent & (dps != 0)
    lacking = np.flatnonzero(given & s_absent)
    for i in lacking:
        problems.append(Problem(f"{_row(rows, i)}, share_count" + (f" ({labels[i]})" if labels[i] else ""),
                                f"每股派息需要总股本 a per-share dividend ({head.text}) needs the share count"))
    cash = np.where(given & ~s_absent, round_fen_v(dps / head.per * shares if head.per != 1 else dps * shares), 0.0)
    big = np.flatnonzero(np.abs(cash) >= MAX_AMOUNT)
    for i in big:
        problems.append(Problem(f"{_row(rows, i)}, {head.where}", f"现金分红超出上限 the cash dividend {cash[i]:,.2f} is "
                                                                  "beyond 1e15 元"))
    encoded["cash_dividend"] = (cash, np.zeros(len(cash), bool))


def evaluate_batch(df: pd.DataFrame, policy: str | Policy | None = None, source: str = "<batch>",
                   progress: bool | None = False, year: int | None = None) -> pd.DataFrame:
    """Evaluate every row (company-year) of ``df``; see the module doc.

    ``policy``: a plan id (or a loaded :class:`~xlmodel.plans.schema.Policy`) for every row, else the
    ``policy`` column (ids only), else (neither) the regulatory baseline alone (:func:`screen_model`).
    Columns are named by field id, Chinese label or a data terminal's name (:mod:`xlmodel.batch.columns`);
    every problem is reported at once (:class:`BatchError`), naming the row, the column and the
    company and year. The result's columns: :func:`result_columns` (company, policy, year, ``forecast``
    where the input has that column, ``in_plan_period``, the outputs with :data:`REVIEWED_COLUMN` after ``overall_status``,
    then per rule status, actual, bound, margin, shortfall).
    ``result.attrs``: ``warnings`` (amounts that look like 万元/亿元: not errors), ``notes`` (what was
    read how: scaled units, codes, boards, the screen), ``columns`` (each column's labels and unit, for
    :mod:`xlmodel.batch.output`), ``policies`` (each plan's title and plan years).
    ``progress``: a bar on stderr (``None``: when stderr is a terminal and the run is long)."""
    batch = prepare_batch(df, policy, source, year=year)
    frames = list(batch.frames(progress=progress))
    out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)
    out.attrs.update(batch.meta())
    return out


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
#: the result's mark of the rows on forecast figures (only when the input has a forecast column)
FORECAST_COLUMN = FORECAST.id
#: the inputs a row lacks for the rules it could not decide (缺少输入), each with its year; blank when none
MISSING_COLUMN = "missing_inputs"
#: right after ``overall_status``: False on every row of a plan with open review items (an unreviewed draft,
#: :func:`xlmodel.plans.schema.open_reviews`: no verdict of compliance), True elsewhere, in a baseline-only screen
#: too (the baseline is no draft); present in every batch, so the table's shape never depends on the plan
REVIEWED_COLUMN = "plan_reviewed"
#: the named outputs of every row, after the lead columns and before the rules (:data:`xlmodel.outputs.HEADLINE`)
OUTPUT_COLUMNS = tuple(o.column for o in _outputs.HEADLINE)
#: the outputs that count rules: whole numbers
COUNT_COLUMNS = tuple(o.column for o in _outputs.HEADLINE if o.kind == "count")
#: a rule's columns ``<rule>.<part>``, in this order; margin and shortfall where the rule has them
RULE_PARTS = _outputs.COLUMN_PARTS
RULE_PART_LABELS = {p.column: (p.zh, p.en.lower()) for p in _outputs.RULE_PARTS if p.column}
_LEAD_LABELS = {
    "company_name": ("公司名称", "Company name", "文本"),
    "stock_code": ("证券代码", "Stock code", "文本"),
    "policy": ("分红回报规划", "Plan (policy id)", "文本"),
    "fiscal_year": ("会计年度", "Fiscal year", "年"),
    "in_plan_period": ("在规划期内", "Fiscal year within the plan's years", "是/否"),
    REVIEWED_COLUMN: ("规划已复核", "Plan reviewed (False: an unreviewed draft, no verdict of compliance)", "是/否"),
    FORECAST_COLUMN: (FORECAST.zh, FORECAST.en, FORECAST.unit_zh),
    MISSING_COLUMN: ("未能判定的规则缺少的输入", "Inputs missing for the rules it could not decide", "文本"),
}
_OUTPUT_UNITS = {o.column: o.unit for o in _outputs.HEADLINE}
_ROLE_TAG = {"condition": "[条件] ", "regulatory": "[监管] "}
#: statuses with a shortfall: below (or beyond) the bound
_SHORT = ("fail", "not_met", "warn")


def rule_parts(rd: cat.RuleDef) -> tuple[str, ...]:
    """The parts of :data:`RULE_PARTS` a rule has: a bound when it compares with one, a margin
    when that comparison is of amounts (:attr:`~xlmodel.rules.catalogue.RuleDef.has_margin`), a shortfall
    when its kind defines one."""
    has = {"status": True, "actual": True, "bound": rd.check.required is not None, "margin": rd.has_margin,
           "shortfall": rd.check.shortfall is not None}
    return tuple(p for p in RULE_PARTS if has[p])


#: what a baseline-only screen leaves out of the lead and output columns: the plan's own results
SCREEN_OMITS = ("in_plan_period", *_outputs.SCREEN_OMITS)


def result_columns(model: cat.Model, company: tuple[str, ...] = ("stock_code",), screen: bool = False,
                   forecast: bool = False) -> list[str]:
    """The result columns of one plan's rows, in order (``company``: the company columns given;
    ``screen``: a baseline-only screen, without the plan's own results :data:`SCREEN_OMITS`;
    ``forecast``: the input has a forecast column, so the result marks the rows on forecast figures,
    :data:`FORECAST_COLUMN` after the fiscal year). :data:`REVIEWED_COLUMN` follows ``overall_status``."""
    lead = list(LEAD_COLUMNS)
    if forecast:
        lead.insert(lead.index("fiscal_year") + 1, FORECAST_COLUMN)
    outs = list(OUTPUT_COLUMNS)
    outs.insert(outs.index("overall_status") + 1, REVIEWED_COLUMN)
    cols = [c for c in COMPANY_COLUMNS if c in company] + lead + outs
    if screen:
        cols = [c for c in cols if c not in SCREEN_OMITS]
    for rd in model.rules:
        cols += [f"{rd.id}.{p}" for p in rule_parts(rd)]
    return cols + [MISSING_COLUMN]


def _unit_values(a: np.ndarray, unit: str) -> np.ndarray:
    """A calculation as result values: blank -> None/NaN; date serials -> :class:`datetime.date`."""
    a = _col(a)
    if unit == "日期" and a.dtype != object:
        from ..rules.expr import from_serial

        return np.array([from_serial(float(x)) if x >= 1 else None for x in a], dtype=object)
    return a


def _results(model: cat.Model, env, pid: str, company: dict, years: np.ndarray,
             forecast: np.ndarray | None = None) -> dict:
    """One plan's result columns, every value read from ``env.calc`` (nothing recomputed here);
    ``forecast``: each row's mark that its results rest on forecast figures (None: no such column).

    A shortfall is shown only where the rule falls short (fail, not met, warn): blank (NaN)
    where it passes, does not apply or lacks an input."""
    lo, hi = model.policy.plan_years
    res = {c: company[c] for c in COMPANY_COLUMNS if c in company}
    res["policy"] = pid
    res["fiscal_year"] = years
    if forecast is not None:
        res[FORECAST_COLUMN] = forecast
    res["in_plan_period"] = (years >= lo) & (years <= hi)
    res[REVIEWED_COLUMN] = np.full(len(years), not unreviewed_plans({pid: model}))
    if isinstance(env, VectorEnv):
        return _results_typed(model, env, res)
    for name in OUTPUT_COLUMNS:
        res[name] = _col(env.calc(name, None))
    for rd in model.rules:
        rid, unit = rd.id, rd.check.unit
        status = env.calc(f"{rid}.status", None)
        res[f"{rid}.status"] = status
        for part in rule_parts(rd)[1:]:
            name = _outputs.PART[part].calc
            vals = _unit_values(env.calc(f"{rid}.{name}", None), unit)
            if part == "shortfall":
                vals = np.where(np.isin(status, _SHORT), vals.astype(float), np.nan)
            res[f"{rid}.{part}"] = vals
    return res


def _missing_inputs(model: cat.Model, env, getter, years: np.ndarray) -> np.ndarray:
    """Per row, the inputs its undecided rules (缺少输入) lack: ``字段 field_id (year)``, joined by ``；``, each
    once; None where every rule is decided. A rule decided without some inputs (``<rule>.decided``) names
    none here: its outcome is the same whatever they are."""
    n = len(years)
    lacking: dict[tuple[str, int], np.ndarray] = {}
    for rd in model.rules:
        undecided = np.asarray(env.calc(f"{rd.id}.status", None)) == "missing_input"
        if not undecided.any():
            continue
        for cell in dict.fromkeys(rd.app_fields + rd.check_fields):
            miss = np.asarray(getter(*cell)[1], dtype=bool) & undecided
            if miss.any():
                lacking[cell] = lacking.get(cell, np.zeros(n, bool)) | miss
    out = np.full(n, None, dtype=object)
    if not lacking:
        return out
    for i in np.flatnonzero(np.logical_or.reduce(list(lacking.values()))):
        out[i] = "；".join(f"{FIELDS[f].zh if f in FIELDS else '声明确认'} {f} ({int(years[i]) + o})"
                          for (f, o), m in lacking.items() if m[i])
    return out


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
            name = _outputs.PART[part].calc
            vals = env.column(f"{rid}.{name}")
            if unit == "日期" and vals.dtype != object:
                vals = _dates(vals)
            if part == "shortfall":
                vals = np.where(short, vals.astype(float), np.nan)
            res[f"{rid}.{part}"] = vals
    return res


def column_labels(columns: list[str], models: list[cat.Model]) -> dict[str, dict]:
    """For each result column: ``zh`` and ``en`` labels, ``units`` (元, %, 日期, 是/否, 选项, 状态, 年, 项, 文本)
    and, for a rule's columns, ``rule``, ``part``, ``role`` and ``bound_kind``. A rule id shared by
    several plans with different titles gets their titles joined with ／."""
    out_labels = {o.column: (o.label_zh, o.label_en) for o in _outputs.HEADLINE}
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
