"""A batch's results as CSV (UTF-8 with BOM, Excel's reading), written as the rows arrive: every column's text
at once, numbers to the fen, text quoted and inert.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..inputs.files import atomic_write
from ..progress import progress_bar
from ..inputs.sanitize import CSV_FORMULA_START, csv_cell
from .output import Tally, _BOTH, _chunks, _value


CSV_LINES_AT_ONCE = 4096  #: rows made into text at once (each cell a string for a moment)


def _csv_text(v) -> str:
    v = _value(v)
    if v is None:
        return ""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else csv_cell(str(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dt.datetime):
        return v.isoformat()[:10] if v.time() == dt.time() else v.isoformat()
    if isinstance(v, dt.date):
        return v.isoformat()
    return csv_cell(v)


_QUOTED = re.compile(r'[,"\r\n]')
_BOOL_TEXT = {True: "True", False: "False", None: ""}


def _quoted(t: str) -> str:
    """A cell as Python's csv writer writes it (QUOTE_MINIMAL): quoted where it holds , " CR or LF."""
    return '"' + t.replace('"', '""') + '"' if _QUOTED.search(t) else t


#: the fen of an amount as repr writes it after the point: .0, .01 … .1, .11 … (trailing zeros dropped)
_FEN_TEXT = [".0"] + [("." + f"{k:02d}").rstrip("0") for k in range(1, 100)]


def _float_text(a: np.ndarray) -> list[str]:
    """``repr`` of each float (NaN blank, infinities as :func:`_csv_text`), the amounts to the fen
    from their whole fen: for |x| < 10**13 that is the double nearest a decimal of at most 15
    digits, whose repr is that decimal (two such decimals never share a double), written here
    from the integer of its fen — without formatting a float."""
    n = len(a)
    nan = np.isnan(a)
    if nan.all():
        return [""] * n
    out = np.full(n, "", dtype=object)
    with np.errstate(invalid="ignore", over="ignore"):
        k = np.rint(np.abs(a) * 100.0)
        fen = ~nan & (np.abs(a) < 1e13) & (k / 100.0 == np.abs(a))
    idx = np.flatnonzero(fen)
    if len(idx):
        cents = k[idx].astype(np.int64)
        whole = list(map(str, (cents // 100).tolist()))
        part = [_FEN_TEXT[f] for f in (cents % 100).tolist()]
        sign = np.signbit(a[idx])
        text = [w + f for w, f in zip(whole, part)]
        if sign.any():
            for j in np.flatnonzero(sign).tolist():
                text[j] = "-" + text[j]
        out[idx] = text
    rest = np.flatnonzero(~fen & ~nan)
    if len(rest):
        out[rest] = [_csv_text(v) for v in a[rest].tolist()]  # repr; an infinity as text
    return out.tolist()


def _column_text(a: np.ndarray) -> list[str]:
    """Every cell of a result column as :func:`_csv_text` writes it (then quoted as the csv module
    would), by the column's type: floats by ``repr`` (NaN blank), booleans, whole numbers, and text,
    statuses, yes/no and dates of object columns; anything else cell by cell."""
    kind = a.dtype.kind
    if kind == "f":
        return _float_text(a)
    if kind == "b":
        return np.where(a, "True", "False").tolist()
    if kind in "iu":
        return list(map(str, a.tolist()))
    vals = a.tolist()
    types = set(map(type, vals))
    if types <= {str, type(None)}:
        out = ["" if v is None else v for v in vals]
        if any(t.startswith(CSV_FORMULA_START) or _QUOTED.search(t) for t in set(out)):
            return [_quoted(csv_cell(t)) for t in out]
        return out
    if types <= {bool, np.bool_, type(None)}:
        return [_BOOL_TEXT[v] for v in vals]
    return [_quoted(_csv_text(v)) for v in vals]


def _csv_lines(df: pd.DataFrame) -> str:
    """The rows of a result chunk as CSV text, each line ending CRLF, as csv.writer with
    :func:`_csv_text` writes them (tests/test_batch_output.py holds the two equal)."""
    cols = [_column_text(df[c].to_numpy()) for c in df.columns]
    return "".join(line + "\r\n" for line in map(",".join, zip(*cols))) if cols else ""


def write_batch_csv(data, path, *, force: bool = False, progress: bool | None = False, tally: Tally | None = None) -> Path:
    """UTF-8 with a BOM (so Excel opens Chinese text correctly); one header row of column ids;
    every text from the input through ``csv_cell``. ``data``: the result DataFrame, or a
    :class:`~xlmodel.batch.evaluate.Batch` written chunk by chunk; ``tally`` counts what was written."""
    path = Path(path)
    columns, n, _meta, frames = _chunks(data)
    bar = progress_bar(n, "写出 writing" if frames is not None else _BOTH, progress)
    tally = tally if tally is not None else Tally(columns)
    with atomic_write(path, force=force) as tmp:
        with open(tmp, "w", encoding="utf-8-sig", newline="") as fh:
            csv.writer(fh, lineterminator="\r\n").writerow([_csv_text(c) for c in columns])
            for df in (frames if frames is not None else data.frames(progress=False)):
                tally.add(df)
                for a in range(0, len(df), CSV_LINES_AT_ONCE):  # the text of a few thousand rows at a time
                    fh.write(_csv_lines(df.iloc[a:a + CSV_LINES_AT_ONCE]))
                bar.update(len(df))
    bar.close()
    return path
