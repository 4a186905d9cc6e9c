"""The one reliance on XlsxWriter's internals (xlmodel.workbook.checked_sheet): CheckedWorksheet overrides
the private Worksheet._write_* methods the public write_* call. The README's commands and CI install the
XlsxWriter of constraints.txt, pyproject.toml admits the range tested; these tests fail when the installed
XlsxWriter is outside that range, no longer has the methods, or its public writers no longer go through
them (a cell would then be dropped silently)."""

from __future__ import annotations

import datetime as dt
import inspect
import re
from pathlib import Path

import pytest
import xlsxwriter
from xlsxwriter.worksheet import Worksheet

from xlmodel.errors import XlmodelError
from xlmodel.workbook.checked_sheet import OVERRIDDEN, CheckedWorksheet

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def test_the_installed_xlsxwriter_is_within_the_pinned_range():
    spec = re.search(r'"XlsxWriter([^"]*)"', PYPROJECT.read_text(encoding="utf-8")).group(1)
    bounds = dict(re.findall(r"(>=|<)\s*([\d.]+)", spec))
    assert set(bounds) == {">=", "<"}, f"XlsxWriter must be pinned below a major version: {spec}"
    installed = _version(xlsxwriter.__version__)
    assert _version(bounds[">="]) <= installed < _version(bounds["<"])


@pytest.mark.parametrize("name", OVERRIDDEN)
def test_each_overridden_method_is_still_xlsxwriters(name):
    base, ours = getattr(Worksheet, name, None), getattr(CheckedWorksheet, name)
    assert base is not None, f"XlsxWriter's Worksheet has no {name} any more"
    assert ours is not base
    # the same positional parameters (names may differ: 3.3.1 calls _write_blank's value "_")
    assert len(inspect.signature(base).parameters) == len(inspect.signature(ours).parameters)


def test_every_public_writer_goes_through_the_checked_method(tmp_path):
    """A cell outside the sheet: XlsxWriter returns -1 and carries on; each writer here raises, naming it."""
    wb = xlsxwriter.Workbook(str(tmp_path / "t.xlsx"))
    wb.worksheet_class = CheckedWorksheet
    ws = wb.add_worksheet("s")
    fmt = wb.add_format({"bold": True})  # a blank without a format is not written at all
    past = 1_048_576  # the first row past Excel's last (row 1,048,576 is index 1,048,575)
    writers = [lambda: ws.write_string(past, 0, "x"), lambda: ws.write_formula(past, 0, "=1"),
               lambda: ws.write_number(past, 0, 1.0), lambda: ws.write_blank(past, 0, None, fmt),
               lambda: ws.write_boolean(past, 0, True), lambda: ws.write_datetime(past, 0, dt.datetime(2024, 1, 1))]
    assert len(writers) == len(OVERRIDDEN)
    for write in writers:
        with pytest.raises(XlmodelError, match=r"s!A1048577: 超出工作表范围 outside the sheet"):
            write()
    assert ws.write_number(past - 1, 0, 1.0) == 0  # the last row is written
    wb.close()


def test_formulas_are_prepared_by_xlsxwriter_itself(tmp_path):
    """Issue 45: XlsxWriter 3.3.4 prepares a formula in one pass that skips string literals; the override
    that spared 3.3.1's 29 substitutions is gone, so its preparation is never second-guessed here."""
    assert "_prepare_formula" not in vars(CheckedWorksheet)
    wb = xlsxwriter.Workbook(str(tmp_path / "t.xlsx"))
    wb.worksheet_class = CheckedWorksheet
    ws = wb.add_worksheet("s")
    # what the lower bound in pyproject.toml admits: a dynamic function prefixed, none inside a text
    assert ws._prepare_formula("=XLOOKUP(1,A:A,B:B)") == "_xlfn.XLOOKUP(1,A:A,B:B)"
    assert ws._prepare_formula('="SORT("&FILTER(A1:A3,B1:B3)') == '"SORT("&_xlfn._xlws.FILTER(A1:A3,B1:B3)'
    assert ws._prepare_formula("=IF(ISBLANK(H15),N('输入'!H$24),H15)") == "IF(ISBLANK(H15),N('输入'!H$24),H15)"
    wb.close()
