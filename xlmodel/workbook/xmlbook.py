"""A returned workbook read straight from its XML: what ``openpyxl.load_workbook`` gives, ten times faster.

``xlmodel check`` reads folders of hundreds of workbooks; openpyxl builds a full object model
(styles, dimensions, validations, charts) twice for each (formulas, then cached values), for the
few thousand cells the reader looks at. :func:`read_book` parses each worksheet once, with
defusedxml's rules (no entity expansion, no external entities: :mod:`xlmodel.inputs.safexml`), from the bytes
:func:`xlmodel.inputs.untrusted.inspect_xlsx` checked (parts, sizes, ratio, checksums, cells), and gives
both views — formulas and cached values — behind the small part of openpyxl's interface the
reader uses (``sheetnames``, ``wb[name]``, ``worksheets``, ``defined_names``, ``custom_doc_props``;
``ws.cell(r, c)``, ``ws["C3"]``, ``ws.iter_rows``, ``ws.sheet_state``, ``ws.defined_names``), so that every check
of :mod:`.reader` is the same code on either.

The values are openpyxl's, rule for rule (``openpyxl/worksheet/_reader.py``): numbers as int or
float, shared and inline text (rich-text runs joined, phonetic runs left out), booleans, error
values as text, a number in a date format as a date (1900 or 1904 calendar), a formula as
``"=" + text`` (shared formulas translated to their cell, array formulas as openpyxl's
``ArrayFormula``); the package's parts are found as openpyxl finds them (content types, the
workbook's relationships), with openpyxl's own parsers for the small parts (workbook, content
types, relationships, custom properties). Whatever openpyxl refuses is refused here too, as the
same :class:`ValueError`-like error the reader turns into a message naming the file.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field

from ..inputs import safexml

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_ROW, _C, _V, _F, _IS, _T, _R, _SI = (f"{_MAIN}{t}" for t in ("row", "c", "v", "f", "is", "t", "r", "si"))
_NUMFMT, _CELLXFS, _XF = f"{_MAIN}numFmt", f"{_MAIN}cellXfs", f"{_MAIN}xf"


def _iterparse(f, events=("end",)):
    """No entity expansion, no external entities (:mod:`xlmodel.inputs.safexml`): a part without a DTD by
    ElementTree's C parser, any other by defusedxml. ``f``: the part's bytes or a file of them (its
    size was checked by ``inspect_xlsx``)."""
    return safexml.iterparse(f if isinstance(f, bytes) else f.read(), events=events)


def _fromstring(data: bytes):
    return safexml.fromstring(data)


class BookError(ValueError):
    """A part openpyxl would not read either (the reader says: cannot read the workbook)."""


class CellError(BookError):
    """A cell whose number openpyxl would not read either (``NaN``, ``INF``): ``where`` (sheet!cell once the
    sheet is known) and ``text``, the value as the file has it."""

    def __init__(self, where: str, text: str):
        super().__init__(f"{where}: {text!r} is not a number")
        self.where, self.text = where, text


class XmlCell:
    """A cell as the reader uses it: ``value``, ``row``, ``column``, ``coordinate``."""

    __slots__ = ("row", "column", "value")

    def __init__(self, row: int, column: int, value):
        self.row, self.column, self.value = row, column, value

    @property
    def coordinate(self) -> str:
        from openpyxl.utils.cell import get_column_letter

        return f"{get_column_letter(self.column)}{self.row}"


@dataclass
class XmlSheet:
    """One sheet's cells (one view: formulas or cached values); a chartsheet has none."""

    title: str
    sheet_state: str
    cells: dict[tuple[int, int], object] = field(default_factory=dict)
    defined_names: dict = field(default_factory=dict)  # names local to this sheet
    chart: bool = False

    @property
    def max_row(self) -> int:
        return max(r for r, _ in self.cells) if self.cells else 1

    @property
    def max_column(self) -> int:
        return max(c for _, c in self.cells) if self.cells else 1

    def cell(self, row: int, column: int) -> XmlCell:
        if row < 1 or column < 1:
            raise ValueError("Row or column values must be at least 1")
        return XmlCell(row, column, self.cells.get((row, column)))

    def __getitem__(self, ref: str):
        """``ws["C3"]``, a cell, or ``ws["A1:B2"]``, its rows of cells, as openpyxl gives them."""
        from openpyxl.utils.cell import range_boundaries

        c0, r0, c1, r1 = range_boundaries(ref)
        if ":" not in ref:
            return self.cell(r0, c0)
        return tuple(self.iter_rows(r0, r1, c0, c1))

    def iter_rows(self, min_row=None, max_row=None, min_col=None, max_col=None):
        """Rows of cells from row 1 (or ``min_row``) to the last with a cell, as openpyxl gives them."""
        if not self.cells and not any((min_row, max_row, min_col, max_col)):
            return
        get = self.cells.get
        c0, c1 = min_col or 1, max_col or self.max_column
        for r in range(min_row or 1, (max_row or self.max_row) + 1):
            yield tuple(XmlCell(r, c, get((r, c))) for c in range(c0, c1 + 1))


@dataclass
class XmlBook:
    """A workbook's sheets, names and custom properties (one view of its cells)."""

    sheets: list[XmlSheet]
    defined_names: dict
    custom_doc_props: list

    @property
    def sheetnames(self) -> list[str]:
        return [s.title for s in self.sheets]

    @property
    def worksheets(self) -> list[XmlSheet]:
        return [s for s in self.sheets if not s.chart]

    def __getitem__(self, name: str) -> XmlSheet:
        for s in self.sheets:
            if s.title == name:
                return s
        raise KeyError(f"Worksheet {name} does not exist.")

    def __contains__(self, name: str) -> bool:
        return name in self.sheetnames


# ---- the package ------------------------------------------------------------------------------

def _text(el) -> str:
    """A string item's text as openpyxl takes it: its own <t>, then each rich-text run's (not phonetic runs)."""
    parts = []
    t = el.find(_T)
    if t is not None and t.text is not None:
        parts.append(t.text)
    for r in el.findall(_R):
        rt = r.find(_T)
        if rt is not None and rt.text is not None:
            parts.append(rt.text)
    return "".join(parts)


def _shared_strings(z: zipfile.ZipFile, part: str) -> list[str]:
    out = []
    with z.open(part) as f:
        for _, el in _iterparse(f):
            if el.tag == _SI:
                out.append(_text(el).replace("x005F_", ""))  # as openpyxl's read_string_table
                el.clear()
    return out


def _date_styles(z: zipfile.ZipFile) -> tuple[set[int], set[int], int | None]:
    """(style ids in a date format, in a duration format, number of styles or None without a stylesheet)."""
    from openpyxl.styles.numbers import builtin_format_code, is_date_format, is_timedelta_format

    try:
        data = z.read("xl/styles.xml")
    except KeyError:
        return set(), set(), None
    custom: dict[int, str] = {}
    ids: list[int] = []
    in_xfs = False
    for event, el in _iterparse(io.BytesIO(data), events=("start", "end")):
        if el.tag == _CELLXFS:
            in_xfs = event == "start"
        elif event == "end" and el.tag == _NUMFMT:
            custom[int(el.get("numFmtId"))] = el.get("formatCode")
        elif event == "end" and el.tag == _XF and in_xfs:
            ids.append(int(el.get("numFmtId", 0)))
    dates, durations = set(), set()
    for idx, fid in enumerate(ids):
        fmt = custom[fid] if fid in custom else builtin_format_code(fid)
        if is_date_format(fmt):
            dates.add(idx)
        if is_timedelta_format(fmt):
            durations.add(idx)
    return dates, durations, (len(ids) or None)


def _cast_number(value: str):
    "A number's text as int or float (openpyxl's _cast_number)."
    if "." in value or "E" in value or "e" in value:
        return float(value)
    return int(value)


@dataclass
class _Ctx:
    shared: list
    epoch: object
    dates: set
    durations: set
    n_styles: int | None


_EXT = f"{_MAIN}ext"


def _note_extension(uri: str) -> None:
    """An Excel extension of the sheet (data validations or conditional formats of Excel 2010+ …) is
    not read: said once as a note, as openpyxl's reader says it."""
    import warnings

    from openpyxl.worksheet._reader import EXT_TYPES

    from ..libnotes import ReadNote, unsupported_extension

    what = EXT_TYPES.get(uri.upper()) or EXT_TYPES.get(uri)
    if what:
        warnings.warn(unsupported_extension(what), ReadNote, stacklevel=2)


#: a cell reference's (row, column), as openpyxl's coordinate_to_tuple gives it, kept across the
#: workbooks of a process (a folder's books of one plan share their cells' references); bounded
_COORDS: dict[str, tuple[int, int]] = {}
_MAX_COORDS = 100_000


def _coordinate(coord: str) -> tuple[int, int]:
    rc = _COORDS.get(coord)
    if rc is None:
        from openpyxl.utils.cell import coordinate_to_tuple

        rc = coordinate_to_tuple(coord)  # raises as openpyxl does for a reference that is not one
        if len(_COORDS) < _MAX_COORDS:
            _COORDS[coord] = rc
    return rc


def _row_number(row, previous: int) -> int:
    """A row's number: its ``r`` (a whole number written as a decimal accepted), else the one after ``previous``."""
    r_attr = row.get("r")
    if r_attr is None:
        return previous + 1
    try:
        return int(r_attr)
    except ValueError:
        v = float(r_attr)
        if not v.is_integer():
            raise BookError(f"{r_attr} is not a valid row number") from None
        return int(v)


def _cell_value(el, t: str, coord, r: int, c: int, style, ctx: _Ctx):
    """A cell's value as openpyxl reads it: a number (a date or duration by its style), a shared or inline
    string, a boolean, an ISO date."""
    value = None if t == "inlineStr" else (el.findtext(_V, None) or None)
    if value is not None:
        if t == "n":
            try:
                value = _cast_number(value)
            except ValueError:  # NaN, INF, text: no number a workbook can hold
                from openpyxl.utils.cell import get_column_letter
                raise CellError(coord or f"{get_column_letter(c)}{r}", value[:40]) from None
            if style in ctx.dates:
                from openpyxl.utils.datetime import from_excel
                try:
                    value = from_excel(value, ctx.epoch, timedelta=style in ctx.durations)
                except (OverflowError, ValueError):
                    value = "#VALUE!"
        elif t == "s":
            value = ctx.shared[int(value)]
        elif t == "b":
            value = bool(int(value))
        elif t == "d":
            from openpyxl.utils.datetime import from_ISO8601
            value = from_ISO8601(value)
    elif t == "inlineStr":
        child = el.find(_IS)
        if child is not None:
            value = _text(child)
    return value


def _formula(fel, coord, shared_f: dict):
    """A cell's formula as openpyxl reads it: an array or data-table formula as its object, a shared one
    translated from its first cell (``shared_f``: the shared formulas met so far, by index)."""
    ftype = fel.get("t")
    ftext = "=" + (fel.text or "")
    if ftype == "array":
        from openpyxl.worksheet.formula import ArrayFormula
        ftext = ArrayFormula(ref=fel.get("ref"), text=ftext)
    elif ftype == "shared":
        idx = fel.get("si")
        if idx in shared_f:
            ftext = shared_f[idx].translate_formula(coord)
        elif ftext != "=":
            from openpyxl.formula.translate import Translator
            shared_f[idx] = Translator(ftext, coord)
    elif ftype == "dataTable":
        from openpyxl.worksheet.formula import DataTableFormula
        ftext = DataTableFormula(**fel.attrib)
    return ftext


def _parse_sheet(f, ctx: _Ctx) -> tuple[dict, dict]:
    """({(row, col): formula or value}, {(row, col): cached value}) of one worksheet part."""
    formulas: dict = {}
    values: dict = {}
    shared_f: dict = {}
    row_n = 0
    for _, row in _iterparse(f):
        if row.tag == _EXT:
            _note_extension(row.get("uri", ""))
            continue
        if row.tag != _ROW:
            continue
        row_n = _row_number(row, row_n)
        col_n = 0
        for el in row:  # every child, as openpyxl's parse_row
            t = el.get("t", "n")
            coord = el.get("r")
            style = el.get("s", 0)
            if style:
                style = int(style)
                if ctx.n_styles is not None and not 0 <= style < ctx.n_styles or ctx.n_styles is None and style != 0:
                    raise BookError(f"cell {coord}: style {style} is not in the stylesheet")
            if coord:
                r, c = _coordinate(coord)
                col_n = c
            else:
                col_n += 1
                r, c = row_n, col_n
            value = values[(r, c)] = _cell_value(el, t, coord, r, c, style, ctx)
            fel = el.find(_F)
            formulas[(r, c)] = value if fel is None else _formula(fel, coord, shared_f)
        row.clear()
    return formulas, values


def read_book(data: bytes) -> tuple[XmlBook, XmlBook]:
    """(formulas view, cached values view) of an .xlsx's bytes (checked first by ``inspect_xlsx``).

    Raises what openpyxl would for a part it cannot read (``ValueError``, ``KeyError``, …): the
    reader names the file and says it cannot read the workbook."""
    from openpyxl.packaging.custom import CustomPropertyList
    from openpyxl.packaging.manifest import Manifest
    from openpyxl.packaging.relationship import get_dependents, get_rels_path
    from openpyxl.packaging.workbook import WorkbookPackage
    from openpyxl.reader.excel import _find_workbook_part
    from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900
    from openpyxl.workbook.child import INVALID_TITLE_REGEX, avoid_duplicate_name
    from openpyxl.workbook.defined_name import DefinedNameDict
    from openpyxl.xml.constants import ARC_CONTENT_TYPES, ARC_CUSTOM, SHARED_STRINGS

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        valid = set(z.namelist())
        package = Manifest.from_tree(_fromstring(z.read(ARC_CONTENT_TYPES)))
        ct = package.find(SHARED_STRINGS)
        shared = _shared_strings(z, ct.PartName[1:]) if ct is not None else []
        wb_part = _find_workbook_part(package).PartName[1:]
        pkg = WorkbookPackage.from_tree(_fromstring(z.read(wb_part)))
        epoch = CALENDAR_MAC_1904 if pkg.properties.date1904 else CALENDAR_WINDOWS_1900
        rels = get_dependents(z, get_rels_path(wb_part)).to_dict()
        props = CustomPropertyList.from_tree(_fromstring(z.read(ARC_CUSTOM))) if ARC_CUSTOM in valid else []
        dates, durations, n_styles = _date_styles(z)
        ctx = _Ctx(shared, epoch, dates, durations, n_styles)
        f_sheets, v_sheets, titles = [], [], []
        for sheet in pkg.sheets:
            if not sheet.id:
                continue
            rel = rels[sheet.id]
            if rel.target not in valid:
                continue
            title = sheet.name or "Sheet"
            if INVALID_TITLE_REGEX.search(title):
                raise BookError(f"Invalid character {INVALID_TITLE_REGEX.search(title).group()} found in sheet title")
            title = avoid_duplicate_name(titles, title)
            titles.append(title)
            chart = "chartsheet" in rel.Type
            if chart:
                fc, vc = {}, {}
            else:
                with z.open(rel.target) as f:
                    try:
                        fc, vc = _parse_sheet(f, ctx)
                    except CellError as e:
                        raise CellError(f"{title}!{e.where}", e.text) from None
            local: dict = {}
            f_sheets.append(XmlSheet(title, sheet.state, fc, local, chart))
            v_sheets.append(XmlSheet(title, sheet.state, vc, local, chart))
    names = DefinedNameDict()
    if pkg.definedNames:
        for idx, by in pkg.definedNames.by_sheet().items():
            if idx == "global":
                names = by
                continue
            try:
                sheet = f_sheets[idx]  # as openpyxl's assign_names (a negative index too)
            except (IndexError, TypeError):
                continue
            for name, defn in by.items():
                if defn.is_reserved is None:
                    sheet.defined_names[name] = defn
    return XmlBook(f_sheets, names, props), XmlBook(v_sheets, names, props)
