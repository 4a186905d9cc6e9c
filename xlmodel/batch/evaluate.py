"""Batch evaluation: a DataFrame of company-years -> a DataFrame of results.

One row per company and fiscal year. Every row is evaluated as its own evaluation year, reading
earlier years from the same company's rows.

Reading (:func:`prepare_batch`): each column is named by a field id, its Chinese label or a data
terminal's name for the same figure (:mod:`xlmodel.batch.columns`; a unit in the header scales the
column, with a note); every column is read and checked as an array, with the one reading of each
field (:func:`xlmodel.values.read_field`: plain numbers and text numbers in numpy, every other cell
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
from typing import Iterator

import numpy as np
import pandas as pd

from ..rules import catalogue as cat
from ..errors import Problem
from ..evaluator import evaluate_arrays
from ..fields import BOARDS, FIELDS, FORECAST, Kind
from ..plans.schema import Policy
from ..inputs.untrusted import shown
from ..progress import progress_bar
from .results import COMPANY_COLUMNS, COUNT_COLUMNS, MISSING_COLUMN, _missing_inputs, _results, column_labels
from .table import BatchError, FILE_ROW, _Labels
from .prepare import (_attestation_columns, _attested_elsewhere, _boards, _company_years_index, _draft_warnings,
                      _duplicates, _encode_inputs, _headers, _key_column, _part_problems, _plans, _read_forecast_column,
                      _read_keys, _read_names, _read_years, _result_layout, _unit_warnings)

MAX_LISTED = 50
#: rows evaluated at once: each calculation of a plan is an array of this many values
CHUNK_ROWS = 8192


def _attest_col(rule_id: str) -> str:
    return f"attest_{rule_id}"


# ---- numbers as text, read in numpy --------------------------------------------------------------


# ---- reading a column ------------------------------------------------------------------------------


# ---- the regulatory baseline alone -----------------------------------------------------------------


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


# ---- the result: columns, values, labels ---------------------------------------------------
