"""The cell values of a few sheets of an .xlsx, read straight from its XML (tests only).

The parity tests compare every formula cell of thousands of recalculated workbooks; openpyxl takes
about half a second for one of them, this about a tenth. Values as openpyxl's ``data_only`` read
gives them for the comparisons the tests make: numbers as float, booleans as bool, text (shared,
inline or a formula's string result) as str, error values as their text (``#VALUE!``); an empty
text is None. Dates stay serial numbers (both sides of every comparison are read here)."""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path
from xml.etree.ElementTree import iterparse

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def _sheet_parts(z: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> its part in the zip."""
    rels = {}
    for _, el in iterparse(z.open("xl/_rels/workbook.xml.rels")):
        if el.tag == f"{_PKG}Relationship":
            target = el.get("Target")
            rels[el.get("Id")] = target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"xl/{target}")
    out = {}
    for _, el in iterparse(z.open("xl/workbook.xml")):
        if el.tag == f"{_MAIN}sheet":
            out[el.get("name")] = rels[el.get(f"{_REL}id")]
    return out


def _shared(z: zipfile.ZipFile) -> list[str]:
    if "xl/sharedStrings.xml" not in z.namelist():
        return []
    out = []
    for _, el in iterparse(z.open("xl/sharedStrings.xml")):
        if el.tag == f"{_MAIN}si":
            out.append("".join(t.text or "" for t in el.iter(f"{_MAIN}t")))
            el.clear()
    return out


def sheet_values(path: str | Path, sheets: tuple[str, ...]) -> dict[tuple[str, str], object]:
    """{(sheet, "E7"): value} for every cell with a value on ``sheets``."""
    out: dict[tuple[str, str], object] = {}
    with zipfile.ZipFile(path) as z:
        parts, shared = _sheet_parts(z), None
        for name in sheets:
            for _, el in iterparse(z.open(parts[name])):
                if el.tag != f"{_MAIN}c":
                    continue
                t, v = el.get("t", "n"), el.find(f"{_MAIN}v")
                if t == "inlineStr":
                    value = "".join(x.text or "" for x in el.iter(f"{_MAIN}t"))
                elif v is None or v.text is None:
                    value = "" if t == "str" else None
                elif t == "s":
                    shared = _shared(z) if shared is None else shared
                    value = shared[int(v.text)]
                elif t in ("str", "e"):
                    value = v.text
                elif t == "b":
                    value = v.text.strip() in ("1", "true")
                else:
                    value = float(v.text)
                if value is not None and value != "":
                    out[(name, el.get("r"))] = value
                el.clear()
    return out
