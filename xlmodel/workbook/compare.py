"""Comparing a workbook read back with its reference: the formulas row by row (compare_formulas, against a
reference workbook built for the same plan and case) and the cached values (cached_differences).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..case import Case
from ..evaluator import model_for
from ..plans.schema import Policy
from ..outputs import HEADLINE as HEADLINE_OUTPUTS, OUTPUT
from .layout import Layout, col_name
from .opening import _read_bytes


def _norm(formula) -> str:
    """Formula text as both Excel and LibreOffice write it back (quotes, case, spaces)."""
    s = str(formula).lstrip("=")
    s = re.sub(r"'([^'!]+)'!", r"\1!", s)
    s = s.replace("_xlfn.", "").replace(" ", "")
    return s.upper()


_CELL = re.compile(r"(?<![A-Z0-9_.!])(?:([^\W\d][\w.]*)!)?\$?([A-Z]{1,3})\$?(\d+)(?![A-Z0-9_(])")


def _row_keys(ws) -> dict[int, str]:
    """Each row of a sheet by what it holds, not where it is: the id or label in column A (else B),
    a row without one by the keyed row above it and its distance. Inserting rows moves no key."""
    keys: dict[int, str] = {}
    seen: dict[str, int] = {}
    last, gap = "top", 0
    cells = getattr(ws, "cells", None)  # an xmlbook sheet: its cells' values by (row, column), no cell objects
    if isinstance(cells, dict):
        rows = (((r, 1), (r, 2)) for r in range(1, ws.max_row + 1))
        values = ((r, (cells.get(a), cells.get(b))) for r, (a, b) in enumerate(rows, 1))
    else:
        values = ((row[0].row, tuple(c.value for c in row)) for row in ws.iter_rows(min_col=1, max_col=2))
    for r, vals in values:
        label = next((v.strip() for v in vals if isinstance(v, str) and v.strip()), None)
        if label:
            n = seen.get(label, 0)
            seen[label] = n + 1
            last, gap = (label if n == 0 else f"{label}#{n}"), 0
            keys[r] = last
        else:
            gap += 1
            keys[r] = f"{last}+{gap}"
    return keys


def _keyed(formula: str, sheet: str, keys: dict[str, dict[int, str]]) -> str:
    """A formula with every cell reference written as sheet!column[row key] (see :func:`_row_keys`)."""
    def sub(m):
        target = m.group(1) or sheet
        rows = keys.get(target)
        row = int(m.group(3))
        key = rows.get(row, f"row{row}") if rows is not None else f"row{row}"
        return f"{target}!{m.group(2)}[{key}]"
    return _CELL.sub(sub, _norm(formula))


@dataclass
class _Reference:
    """The formulas this xlmodel writes for a plan and timeline, read back as a workbook gives them:
    ((row, column, formula) of each sheet, row-major), each sheet's row keys, keyed formulas as needed."""
    sheetnames: list[str]
    formulas: dict[str, list[tuple[int, int, str]]]
    keys: dict[str, dict[int, str]]
    keyed: dict[tuple[str, int, int], str] = field(default_factory=dict)


_REFERENCES: dict[tuple, _Reference] = {}  # a folder of workbooks of a few plans builds each reference once
MAX_REFERENCES = 32


def _reference(policy: Policy, layout: Layout, year: int) -> _Reference:
    """The reference workbook for ``policy`` and ``layout``, built once per plan (its content, not its
    name: a carried or edited plan is its own key) and timeline."""
    from . import reference_cache

    key = _reference_key(policy, layout, year)
    hit = _REFERENCES.get(key)
    if hit is None:
        kept = reference_cache.load(key)  # composed by an earlier run (xlmodel.workbook.reference_cache)
        if kept is None:
            kept = _compose_reference(policy, layout, year)
            reference_cache.store(key, kept)
        hit = _Reference(*kept)
        if len(_REFERENCES) >= MAX_REFERENCES:
            _REFERENCES.pop(next(iter(_REFERENCES)))
        _REFERENCES[key] = hit
    return hit


def _reference_key(policy: Policy, layout: Layout, year: int) -> tuple:
    """What the reference is a function of, beside xlmodel's code: the plan's content and published text,
    the evaluation year and the timeline."""
    from ..plans.text import policy_source

    src = policy_source(policy)
    return (policy.model_dump_json(), src.text if src is not None else None, year, layout.first_year,
            layout.n_years, layout.n_eval)


def _compose_reference(policy: Policy, layout: Layout, year: int):
    """(sheet names, formulas of each sheet, row keys of each sheet) of the workbook this xlmodel
    builds for ``policy``, ``layout`` and ``year``, as the reader reads them back."""
    from .writer import WorkbookBuilder

    builder = WorkbookBuilder(policy, Case(policy.id, year), first_year=layout.first_year,
                              n_years=layout.n_years, n_eval=layout.n_eval)
    ref = _as_read_back(builder.compose())
    if ref is None:  # a cell whose text the file's XML could change: read it back from the file itself
        with tempfile.TemporaryDirectory(prefix="xlmodel-ref-") as d:
            ref_path = Path(d) / "reference.xlsx"
            builder.write(ref_path)
            ref, _values = _read_bytes(ref_path, ref_path.read_bytes())
    formulas = {n: [(r, c, v) for (r, c), v in sorted(ref[n].cells.items()) if isinstance(v, str) and v.startswith("=")]
                for n in ref.sheetnames}
    return list(ref.sheetnames), formulas, {n: _row_keys(ref[n]) for n in ref.sheetnames}


#: text that the .xlsx's XML might not give back as written: control characters but tab and line feed
#: (XlsxWriter writes them as _xHHHH_; a carriage return would come back a line feed), what looks like
#: such an escape (``_x``; the reader drops ``x005F_``), what XML cannot hold, XlsxWriter's rich-text marker
_NOT_PLAIN = re.compile(r"[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]|_x|x005F|^<r>", re.IGNORECASE)


class _NotPlain(Exception):
    pass


def _as_read_back(wb):
    """The formulas view of an XlsxWriter workbook not yet saved, as :func:`.xmlbook.read_book` gives it
    back from the saved file (sheets in their order, every cell of each sheet's table: a formula as
    ``"=" + text``, a text as itself, anything else as a value that is not text) — or None when a cell
    is one whose text the file's XML could change (:data:`_NOT_PLAIN`), an array formula, a rich text or
    an error value: then the reference is read back from the saved file.

    It reads XlsxWriter's insides (``str_table``, ``ws.table`` and its cell tuples; the version pinned in
    pyproject.toml, the result proven equal to the saved file's by tests/test_xmlbook.py); should they
    change, the reference is read back from the saved file. Only what :func:`_reference` reads is needed: which cells are there (a sheet's last row), the
    formulas, and the texts of columns A and B (the row keys)."""
    from .xmlbook import XmlBook, XmlSheet

    strings = sorted(wb.str_table.string_table, key=wb.str_table.string_table.__getitem__)
    plain = _NOT_PLAIN.search
    sheets = []
    try:
        for ws in wb.worksheets():
            if ws.is_chartsheet:
                sheets.append(XmlSheet(ws.name, "visible", {}, {}, True))  # (a state is not read)
                continue
            cells = {}
            for r, row in ws.table.items():
                for c, cell in row.items():
                    kind = cell.__class__.__name__
                    if kind == "Formula":
                        value = "=" + cell.formula
                        if plain(cell.formula):
                            raise _NotPlain
                    elif kind == "String":
                        value = strings[cell.string]
                        if (c < 2 or value.startswith("=")) and plain(value):
                            raise _NotPlain
                    elif kind in ("Number", "Datetime", "Blank", "Boolean"):
                        value = 0  # not text: what the reader looks at is only whether a cell holds text
                    else:  # an array formula, a rich text, an error value
                        raise _NotPlain
                    cells[(r + 1, c + 1)] = value
            sheets.append(XmlSheet(ws.name, "visible", cells, {}))
    except (_NotPlain, AttributeError, TypeError, KeyError, IndexError):  # or XlsxWriter's insides changed: the file
        return None
    return XmlBook(sheets, {}, [])


def compare_formulas(wb, policy: Policy, case: Case, layout: Layout | None = None) -> list[str]:
    """Cells whose formula differs from what this xlmodel generates for the plan and year.

    Cells are matched by the row they belong to (the id in column A), and references are compared by
    the rows they point to, so rows inserted where the README allows leave every formula trusted.
    ``wb``: the workbook as :mod:`.xmlbook` or openpyxl reads it."""
    layout = layout or Layout(model_for(policy), case.evaluation_year)  # the default timeline
    ref = _reference(policy, layout, case.evaluation_year)
    theirs = ref.keys
    ours = {n: _row_keys(wb[n]) for n in ref.sheetnames if n in wb.sheetnames}
    # no row moved on any sheet: a formula written as xlmodel writes it is the same formula
    unmoved = all(ours.get(n) == theirs[n] for n in ref.sheetnames)
    changed = []
    for name in ref.sheetnames:  # every sheet xlmodel writes formulas on (cover, inputs' year headers, …)
        if name not in wb.sheetnames:
            changed.append(f"{name}: sheet missing")
            continue
        ws = wb[name]
        where = {k: r for r, k in ours[name].items()}
        for row, col, want in ref.formulas[name]:
            r = row if unmoved else where.get(theirs[name][row])
            cell = ws.cell(r, col) if r is not None else None
            got = cell.value if cell is not None else None
            if unmoved and got == want:
                continue
            at = f"{name}!{cell.coordinate if cell is not None else col_name(col - 1) + str(row)}"
            if not (isinstance(got, str) and got.startswith("=")):
                changed.append(f"{at}: formula replaced by {got!r}")
                continue
            keyed = ref.keyed.get((name, row, col))
            if keyed is None:
                keyed = ref.keyed[(name, row, col)] = _keyed(want, name, theirs)
            if _keyed(got, name, ours) != keyed:
                changed.append(f"{at}: {got} (expected {want})")
    return changed


def _shown(v) -> tuple[str, str]:
    """A cached or evaluated value as a user reads it: (Chinese, English)."""
    if v is None or v == "":
        return "空白", "blank"
    if isinstance(v, bool):
        return ("是", "yes") if v else ("否", "no")
    if isinstance(v, (int, float)):
        return f"{v:,.2f}", f"{v:,.2f}"
    from ..rules.model import STATUS_EN, STATUS_ZH

    en = {zh: STATUS_EN[k] for k, zh in STATUS_ZH.items()}  # a status as the workbook shows it, in Chinese
    return str(v), en.get(str(v), str(v))


def cached_differences(read: WorkbookRead, report) -> list[str]:
    """Where the workbook's own cached results differ from the evaluator's, one line each, named as the
    workbook's labels name them (the result's or the rule's title and clause: never an internal name, 51.5)."""
    from ..rules.model import STATUS_ZH

    want = {o.name: (getattr(report, o.id), o.zh, o.en) for o in HEADLINE_OUTPUTS}
    o = OUTPUT["overall_status"]
    want[o.name] = (STATUS_ZH[report.overall_status], o.zh, o.en)
    for r in report.rules:
        want[f"chk_{r.id}"] = (STATUS_ZH[r.status], f"规则状态「{r.title_zh}」〔{r.clause}〕", "rule status")
    diffs = []
    for name, (v, zh, en) in want.items():
        if name not in read.cached:
            continue
        got = read.cached[name]
        same = got == v or (isinstance(got, (int, float)) and isinstance(v, (int, float))
                            and not isinstance(got, bool) and abs(got - v) < 0.005)
        if not same:
            (gz, ge), (vz, ve) = _shown(got), _shown(v)
            diffs.append(f"{zh}：工作簿显示 {gz}，评估结果为 {vz} — {en}: the workbook shows {ge}, the evaluator gives {ve}")
    return diffs
