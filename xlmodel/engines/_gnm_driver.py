"""Gnumeric's values of workbooks, read in its memory through its introspection bindings (run by :mod:`.recalc`).

    PYTHON _gnm_driver.py REQUEST ANSWERS

``PYTHON`` is an interpreter with PyGObject and Gnumeric's typelib (Debian's ``python3-gi`` and
``gir1.2-gnumeric``), not xlmodel's: this file uses the standard library and ``gi`` only, and is
never imported by xlmodel. It loads Gnumeric's library and plugins once; then for each book: open it
with the .xlsx reader only (what ``ssconvert --recalc`` reads it with), recalculate every formula
(``workbook_recalc_all``, as ``ssconvert --recalc`` does), read each wanted sheet's cells. The
request is the JSON file ``REQUEST``, ``{"books": [...], "sheets": [...]}``; it writes one JSON line a
book, in the order given, to the file ``ANSWERS``:

    {"book": PATH, "sheets": {NAME: [[cell, kind, text], ...] | null}}

``cell`` is the cell's A1 name (``E7``); ``kind`` is ``n`` (a number: ``text`` is Gnumeric's shortest decimal that gives back its own
number, which may be a long double), ``b`` (``text`` is ``TRUE`` or ``FALSE``), ``s`` (a text)
or ``e`` (an error, ``text`` its name); empty cells are left out. A sheet the book lacks is
``null``; a book Gnumeric cannot open is ``{"book": PATH, "error": TEXT}``. The caller bounds the
time and kills this process when it is exceeded.
"""

import json
import sys
import warnings
from pathlib import Path


def _gnumeric():
    import gi

    gi.require_version("Gnm", "1.12")
    gi.require_version("GOffice", "0.10")
    from gi.repository import GOffice, Gnm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Gnm.init()
    context = Gnm.CmdContextStderr.new()
    Gnm.plugins_init(context)
    return Gnm, GOffice, context


def _kinds(Gnm):
    t = Gnm.ValueType
    return {t.FLOAT: "n", t.BOOLEAN: "b", t.STRING: "s", t.ERROR: "e"}


def _sheet(sheet, kinds, empty):
    cells = []
    for cell in sheet.cells(None):
        v = cell.value
        kind = None if v is None else v.type_of()
        if kind is None or kind == empty:
            continue
        if kind not in kinds:  # an array or a range left in a cell: not a value a workbook shows
            raise ValueError(f"cell {cell.name()} holds a {kind.value_nick}")
        cells.append([cell.name(), kinds[kind], v.get_as_string()])
    return cells


def _book(Gnm, GOffice, context, book, sheets):
    opener = GOffice.FileOpener.for_id("Gnumeric_Excel:xlsx")
    io = GOffice.IOContext.new(context)
    try:
        view = Gnm.WorkbookView.new_from_uri(GOffice.filename_to_uri(str(Path(book).resolve())), opener, io, None)
    except TypeError:  # the constructor returned NULL
        view = None
    if view is None:
        return {"book": book, "error": "Gnumeric could not open it as an .xlsx workbook"}
    wb = view.props.workbook
    wb.recalc_all()
    kinds, empty = _kinds(Gnm), Gnm.ValueType.EMPTY
    return {"book": book, "sheets": {n: None if wb.sheet_by_name(n) is None else _sheet(wb.sheet_by_name(n), kinds, empty)
                                     for n in sheets}}


def main(request_file, answers_file):
    with open(request_file, encoding="utf-8") as f:
        request = json.load(f)
    Gnm, GOffice, context = _gnumeric()
    with open(answers_file, "w", encoding="utf-8") as out:
        for book in request["books"]:
            try:
                line = _book(Gnm, GOffice, context, book, request["sheets"])
            except Exception as e:  # one book Gnumeric fails on: said, and the next goes on
                line = {"book": book, "error": f"{type(e).__name__}: {e}"[:500]}
            out.write(json.dumps(line) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
