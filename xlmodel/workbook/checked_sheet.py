"""The worksheet every workbook sheet is written with: a cell XlsxWriter would drop or truncate is an error.

This module is where xlmodel relies on XlsxWriter's internals to write (the check's reference workbook
is also read from an unsaved XlsxWriter workbook, :func:`xlmodel.workbook.compare._as_read_back`): :class:`CheckedWorksheet`
overrides the private ``Worksheet._write_string``, ``_write_formula``, ``_write_number``,
``_write_blank``, ``_write_boolean`` and ``_write_datetime`` (the public ``write_*`` methods call
them, and return their return code). Private methods may change in any release, so the README's
commands and CI install the XlsxWriter of ``constraints.txt`` (the version the whole suite passed
with), pyproject.toml admits the range tested, and tests/test_checked_sheet.py fails when the installed
XlsxWriter is outside that range or no longer has these methods as overridden here.

Formulas are prepared by XlsxWriter's own ``_prepare_formula`` (the ``_xlfn.`` prefixes of Excel's
future and dynamic-array functions): from 3.3.4 on it is one pass that skips string literals, so the
override that spared the 29 substitutions of earlier releases is gone (issue 45).
"""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell
from xlsxwriter.worksheet import Worksheet

from ..errors import XlmodelError

MAX_TEXT = 32_767  # UTF-16 units in one Excel cell; XlsxWriter would truncate a longer text (and return -2)
MAX_FORMULA = 8_192  # characters of one formula in Excel

#: the private methods of XlsxWriter's Worksheet that CheckedWorksheet overrides (called with their
#: arguments in order: row, col, the value, the format[, the formula's value])
OVERRIDDEN = ("_write_string", "_write_formula", "_write_number", "_write_blank", "_write_boolean", "_write_datetime")

def text_units(s: str) -> int:
    """The length of ``s`` as Excel counts it (UTF-16 code units)."""
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


class CheckedWorksheet(Worksheet):
    """A worksheet that never drops or truncates silently.

    XlsxWriter returns -1 for a cell outside the sheet and -2 for a text it truncated to
    32,767 characters, and carries on; here both raise an :class:`XlmodelError` naming the
    sheet and cell. The builder checks user text before writing it (naming the field);
    this is the safety net for everything else.
    """

    def _where(self, row, col) -> str:
        return f"{self.name}!{xl_rowcol_to_cell(row, col)}"

    def _checked(self, rc, row, col):
        if rc == -1:
            raise XlmodelError(f"{self._where(row, col)}: 超出工作表范围 outside the sheet (Excel's limits); nothing was written")
        if rc and rc < 0:
            raise XlmodelError(f"{self._where(row, col)}: 无法写入该单元格 XlsxWriter refused the cell (code {rc}); nothing was written")
        return rc

    # (the base class's methods are called directly and a return code of 0 is not looked into: one
    # Python call less per cell, the build's floor being XlsxWriter itself)
    def _write_string(self, row, col, string, cell_format=None):
        if len(string) > MAX_TEXT // 2:  # at most 2 UTF-16 units a character: only a long text is counted
            n = text_units(string)
            if n > MAX_TEXT:
                raise XlmodelError(f"{self._where(row, col)}: 文字超出 Excel 单元格的容量 a text of {n:,} characters is longer than an Excel cell "
                                   f"holds ({MAX_TEXT:,}); it would be truncated")
        rc = _WS_STRING(self, row, col, string, cell_format)
        return self._checked(rc, row, col) if rc else rc

    def _write_formula(self, row, col, formula, cell_format=None, value=0):
        if len(formula) > MAX_FORMULA:
            raise XlmodelError(f"{self._where(row, col)}: 公式超出 Excel 的长度上限 a formula of {len(formula):,} characters is longer than "
                               f"Excel allows ({MAX_FORMULA:,})")
        if value.__class__ is not float and isinstance(value, str) and len(value) > MAX_TEXT // 2 \
                and text_units(value) > MAX_TEXT:
            raise XlmodelError(f"{self._where(row, col)}: 结果文字超出 Excel 单元格的容量 a result of {text_units(value):,} characters is longer "
                               f"than an Excel cell holds ({MAX_TEXT:,}); it would be truncated")
        rc = _WS_FORMULA(self, row, col, formula, cell_format, value)
        return self._checked(rc, row, col) if rc else rc

    def _write_number(self, row, col, number, cell_format=None):
        rc = _WS_NUMBER(self, row, col, number, cell_format)
        return self._checked(rc, row, col) if rc else rc

    def _write_blank(self, row, col, blank, cell_format=None):
        rc = _WS_BLANK(self, row, col, blank, cell_format)
        return self._checked(rc, row, col) if rc else rc

    def _write_boolean(self, row, col, boolean, cell_format=None):
        rc = _WS_BOOLEAN(self, row, col, boolean, cell_format)
        return self._checked(rc, row, col) if rc else rc

    def _write_datetime(self, row, col, date, cell_format=None):
        rc = _WS_DATETIME(self, row, col, date, cell_format)
        return self._checked(rc, row, col) if rc else rc


_WS_STRING, _WS_FORMULA, _WS_NUMBER = Worksheet._write_string, Worksheet._write_formula, Worksheet._write_number
_WS_BLANK, _WS_BOOLEAN, _WS_DATETIME = Worksheet._write_blank, Worksheet._write_boolean, Worksheet._write_datetime
