"""LibreOffice's values of workbooks, read inside LibreOffice (run by :mod:`.in_memory`).

This file is a Python macro of LibreOffice's own (its Python script provider: Debian's
``libreoffice-script-provider-python``; bundled on Windows and macOS), copied into the private
profile of one launch (:func:`xlmodel.engines.recalc.profile`: every formula recalculated on load,
links to other files never updated) as ``user/Scripts/python/xlmodel_uno_driver.py``, and started
as that launch's only job:

    soffice -env:UserInstallation=PROFILE --headless ... \
        'vnd.sun.star.script:xlmodel_uno_driver.py$read_books?language=Python&location=user'

It runs in LibreOffice's process: every call below is a call into Calc, not a round trip over a
pipe (which cost about 2 ms an object and a quarter of a second of CPU a workbook). It uses the
standard library and ``uno`` only, and is never imported by xlmodel. It reads the request from the
JSON file ``$XLMODEL_UNO_REQUEST``, ``{"books": [...], "sheets": [...]}``; then for each book: load
it hidden with its macros never run (every formula recalculated as it loads, by the profile: the one
recalculation), read the used area of each wanted sheet, close it; and writes one JSON line a book,
in the order given, to ``$XLMODEL_UNO_ANSWERS``:

    {"book": PATH, "sheets": {NAME: {"rows": [[value, ...], ...], "errors": [[row, col, code], ...],
                                     "logical": [[row, col], ...]} | null}}

``rows`` are ``getDataArray``'s: a number as a float, a text as a string, an empty cell or an
empty text as ``""``, an error as ``null``; ``errors`` give each error cell's LibreOffice code;
``logical`` lists the formula cells with a number whose format LibreOffice made a boolean one, the
cells its .xlsx export writes as booleans. A sheet the book lacks is ``null``; a book LibreOffice
cannot load is ``{"book": PATH, "error": TEXT}``. Then it ends LibreOffice. The caller bounds the
time, and kills the launch's process group when it is exceeded.
"""

import json
import os
from pathlib import Path

#: com.sun.star.sheet.FormulaResult and com.sun.star.util.NumberFormat
_VALUE, _ERROR, _LOGICAL = 1, 4, 1024


def _prop(name, value):
    from com.sun.star.beans import PropertyValue

    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def _cells(addresses):
    """(row, col) of every cell of a list of CellRangeAddress."""
    for a in addresses:
        for r in range(a.StartRow, a.EndRow + 1):
            for c in range(a.StartColumn, a.EndColumn + 1):
                yield r, c


def _boolean_words(ctx, doc):
    """How this LibreOffice shows TRUE and FALSE (its locale's words, from its boolean formats)."""
    from com.sun.star.lang import Locale

    formatter = ctx.ServiceManager.createInstanceWithContext("com.sun.star.util.NumberFormatter", ctx)
    formatter.attachNumberFormatsSupplier(doc)
    return sorted({formatter.convertNumberToString(key, x)
                   for key in doc.NumberFormats.queryKeys(_LOGICAL, Locale(), False) for x in (0.0, 1.0)})


def _search(doc, words):
    """A search of the values shown for LibreOffice's boolean words, made once a book (it serves
    every sheet), or none when it has no boolean format."""
    if not words:
        return None
    search = doc.Sheets.getByIndex(0).createSearchDescriptor()
    search.SearchRegularExpression, search.SearchCaseSensitive = True, True
    search.SearchString = "^(" + "|".join(r"\Q" + w + r"\E" for w in words) + ")$"
    search.setPropertyValue("SearchType", 1)  # the values shown, not the formulas
    return search


def _logical(area, search):
    """Formula cells of ``area`` with a number that LibreOffice shows as a boolean: a boolean number
    format, the one its .xlsx export writes as a boolean. One search of the shown values finds
    them (reading each cell's format would take a second a book)."""
    found = None if search is None else area.findAll(search)
    if found is None:
        return []
    shown = set(_cells(found.RangeAddresses))
    return sorted(shown & set(_cells(area.queryFormulaCells(_VALUE).RangeAddresses)))


def _sheet(sheet, search):
    """A sheet's used area, in as few calls into LibreOffice as it takes (each object it hands over
    costs about 2 ms): ``getDataArray`` gives an error cell as null, whose code is then asked."""
    cursor = sheet.createCursor()
    cursor.gotoEndOfUsedArea(False)
    end = cursor.RangeAddress
    area = sheet.getCellRangeByPosition(0, 0, end.EndColumn, end.EndRow)
    rows = [list(row) for row in area.getDataArray()]
    nulls = [(r, c) for r, row in enumerate(rows) for c, v in enumerate(row) if v is None]
    errors = [[r, c, code] for r, c in nulls for code in (sheet.getCellByPosition(c, r).getError(),) if code]
    return {"rows": rows, "errors": errors, "logical": [list(rc) for rc in _logical(area, search)]}


def _book(ctx, desktop, book, sheets):
    import uno

    url = uno.systemPathToFileUrl(str(Path(book).resolve()))
    # MacroExecutionMode 0: NEVER_EXECUTE; Hidden: no window
    doc = desktop.loadComponentFromURL(url, "_blank", 0, (_prop("Hidden", True), _prop("MacroExecutionMode", 0)))
    if doc is None:
        return {"book": book, "error": "LibreOffice could not load it"}
    try:
        if not doc.supportsService("com.sun.star.sheet.SpreadsheetDocument"):  # LibreOffice read it as a text
            return {"book": book, "error": "LibreOffice did not read it as a spreadsheet"}
        names, search = doc.Sheets, _search(doc, _boolean_words(ctx, doc))
        return {"book": book, "sheets": {n: _sheet(names.getByName(n), search) if names.hasByName(n) else None
                                         for n in sheets}}
    finally:
        doc.close(True)


def read_books(*_args):
    """The macro: every book of the request read (module docstring), then LibreOffice ended."""
    import uno

    ctx = uno.getComponentContext()
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    try:
        with open(os.environ["XLMODEL_UNO_REQUEST"], encoding="utf-8") as f:
            request = json.load(f)
        with open(os.environ["XLMODEL_UNO_ANSWERS"], "w", encoding="utf-8") as out:
            for book in request["books"]:
                try:
                    line = _book(ctx, desktop, book, request["sheets"])
                except Exception as e:  # one book LibreOffice fails on: said, and the next goes on
                    line = {"book": book, "error": f"{type(e).__name__}: {e}"[:500]}
                out.write(json.dumps(line) + "\n")
                out.flush()
    finally:
        desktop.terminate()


#: what LibreOffice's script provider offers of this file
g_exportedScripts = (read_books,)
