"""Library warnings as our own messages.

The CLI runs every command inside :func:`collecting`; what the libraries warn about
(openpyxl above all, reading workbooks saved by Excel or another tool) is turned into
short ``注意 Note:`` lines for stderr, without the library's file and line, or dropped
where it cannot matter to a user (housekeeping such as deprecations, and openpyxl's
remarks about styles, drawings, images or print areas: xlmodel only *reads* a returned
workbook and never saves it back, so "will be removed" never happens to the user's file).
"""

from __future__ import annotations

import contextlib
import re
import warnings
from pathlib import Path

#: categories that are the libraries' own housekeeping, never a user's concern
_SILENT_CATEGORIES = (DeprecationWarning, PendingDeprecationWarning, FutureWarning, ImportWarning, ResourceWarning)

_NOT_CHANGED = "ignored when reading; the file itself is not changed"

#: (pattern of the library's message, our note or None to drop it)
_OPENPYXL: list[tuple[re.Pattern, str | None]] = [
    (re.compile(r"^(?P<what>.+?) extension is not supported and will be removed"),
     "the workbook has Excel features xlmodel does not read ({what} extension); " + _NOT_CHANGED),
    (re.compile(r"^Cell (?P<cell>\S+) is marked as a date but the serial value (?P<value>\S+) is outside the limits"),
     "cell {cell}: a date cell holds {value}, outside the range of dates; it is read as an error (#VALUE!)"),
    (re.compile(r"^Failed to load a conditional formatting rule"),
     "a conditional format of the workbook could not be read (it only colours cells); " + _NOT_CHANGED),
    (re.compile(r"^Unknown type for (?P<prop>.+)$"),
     "document property {prop} has a type the reader does not know; " + _NOT_CHANGED),
    (re.compile(r"^Defined names for sheet index (?P<idx>\d+) cannot be located"),
     "the workbook has defined names for a sheet that does not exist (sheet index {idx}); they are ignored"),
    (re.compile(r"contains invalid dependency definitions"),
     "a part of the workbook lists invalid relationships; " + _NOT_CHANGED),
    (re.compile(r"^File contains an invalid specification for"),
     "the workbook lists a sheet without an id; that sheet is ignored"),
    # harmless when only reading: styles, drawings, images, print settings, comments on merged cells
    (re.compile(r"^Workbook contains no (default style|stylesheet)"), None),
    (re.compile(r"^DrawingML support is incomplete"), None),
    (re.compile(r"^Unable to read chart"), None),
    (re.compile(r"image .*(will be removed|is being dropped)|image format is not supported"), None),
    (re.compile(r"^Print area cannot be set"), None),
    (re.compile(r"^Cannot parse header or footer"), None),
    (re.compile(r"is part of a merged range but has a comment"), None),
    (re.compile(r"^Title is more than 31 characters"), None),
]

#: a file-system path inside a message (a library's own files, the interpreter's)
_PATH = re.compile(r"(?:[A-Za-z]:)?[\\/]\S*(?:site-packages|dist-packages|[\\/]lib[\\/]python)\S*")


def _from_openpyxl(filename: str) -> bool:
    return "openpyxl" in Path(filename or "").parts


class ReadNote(UserWarning):
    """A note of xlmodel's own readers (one line, already worded for the user), shown as it is."""


def unsupported_extension(what: str) -> str:
    """The note for an Excel extension a reader leaves unread (the one openpyxl's remark maps to)."""
    return f"the workbook has Excel features xlmodel does not read ({what} extension); " + _NOT_CHANGED


def note_for(w: warnings.WarningMessage) -> str | None:
    """Our one-line note for a caught library warning, or None to drop it."""
    if issubclass(w.category, _SILENT_CATEGORIES):
        return None
    if issubclass(w.category, ReadNote):
        return str(w.message)
    lines = [ln.strip() for ln in str(w.message).strip().splitlines() if ln.strip()]
    text = lines[0] if lines else w.category.__name__
    if _from_openpyxl(w.filename):
        for pattern, note in _OPENPYXL:
            m = pattern.search(text)
            if m:
                return None if note is None else note.format(**m.groupdict())
    return _PATH.sub("…", text)


def notes(caught) -> list[str]:
    """The distinct notes for a list of caught warnings, in order (a workbook is read more than
    once, and openpyxl repeats a remark for every sheet)."""
    seen: list[str] = []
    for w in caught:
        n = note_for(w)
        if n and n not in seen:
            seen.append(n)
    return seen


@contextlib.contextmanager
def collecting():
    """Catch every warning raised inside; yields the list they are appended to."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
