"""The one reliance on XlsxWriter's internals (xlmodel.workbook.checked_sheet): CheckedWorksheet overrides
the private Worksheet._write_* methods the public write_* call. pyproject.toml pins XlsxWriter below the
next major version for it; these tests fail when the installed XlsxWriter is outside that pin, no longer
has the methods, or its public writers no longer go through them (a cell would then be dropped silently)."""

from __future__ import annotations

import datetime as dt
import inspect
import re
from pathlib import Path

import pytest
import xlsxwriter
from xlsxwriter.worksheet import Worksheet

from xlmodel.errors import XlmodelError
from xlmodel.workbook.checked_sheet import DYNAMIC_FUNCTIONS, OVERRIDDEN, CheckedWorksheet

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


#: formulas as the workbooks write them, and ones naming a dynamic-array function (prefixed by XlsxWriter)
FORMULAS = ["=1", "=IF(ISBLANK(H15),IF(H16=\"\",N('输入'!H$24),H16),H15)", "{=SUM(A1:A3)}", "=SUMPRODUCT((in_years>H$5-3)*(in_years<=H$5),in_cash)",
            "=COUNTIF('计算'!H$40:H$52,lbl_fail)", "=_xlfn.XLOOKUP(1,A:A,B:B)", "=XLOOKUP(1,A:A,B:B)", "=FILTER(A1:A3,B1:B3)",
            "=SORTBY(A1:A3,B1:B3)", "=MAP(A1:A3,LAMBDA(x,x+1))", "=ASINGLE(A1)", "= SINGLE(A1)", "=MYSORT(A1)", "=IF(SWITCH(1,1,2),1)",
            "=\"SORT(\"", "=BYCOLUMN(A1)", "=DROPPED(A1)+UNIQUE(B1:B2)"]


@pytest.mark.parametrize("formula", FORMULAS)
@pytest.mark.parametrize("future", [False, True])
def test_prepare_formula_gives_xlsxwriters_own_text(tmp_path, formula, future):
    """The shortcut of _prepare_formula returns exactly what XlsxWriter's own method returns."""
    wb = xlsxwriter.Workbook(str(tmp_path / "t.xlsx"), {"use_future_functions": future})
    wb.worksheet_class = CheckedWorksheet
    ws = wb.add_worksheet("s")
    assert ws._prepare_formula(formula) == Worksheet._prepare_formula(ws, formula)
    assert ws._prepare_formula(formula, True) == Worksheet._prepare_formula(ws, formula, True)
    wb.close()


def test_the_dynamic_functions_are_xlsxwriters():
    """Every function XlsxWriter's _prepare_formula prefixes in every formula is in DYNAMIC_FUNCTIONS (read
    from its source: a new one in a later release fails here)."""
    src = inspect.getsource(Worksheet._prepare_formula)
    dynamic = src[:src.index("if not self.use_future_functions")]
    names = set(re.findall(r'r"\\[bS]?([A-Z.]+)\\\(', dynamic))
    assert names, "the source of _prepare_formula no longer reads as expected"
    assert len(names) >= 29 and names <= set(DYNAMIC_FUNCTIONS), names - set(DYNAMIC_FUNCTIONS)


# ---- the preparation of a formula (issue 26.2: XlsxWriter's regular expressions run only where they could match) ----

def test_xlsxwriters_dynamic_function_patterns_are_names_of_letters_before_a_parenthesis():
    """CheckedWorksheet._prepare_formula relies on it: each pattern XlsxWriter applies to every formula
    is ``\\bNAME\\(`` (or its ``\\SINGLE\\(``), so a match lies at one "(" (tests below)."""
    src = inspect.getsource(Worksheet._prepare_formula)
    dynamic = src[: src.index("if not self.use_future_functions")]
    patterns = re.findall(r're\.sub\(r"([^"]*)"', dynamic)
    assert len(patterns) >= 20
    assert all(re.fullmatch(r"\\b[A-Z]+\\\(", p) or p == r"\SINGLE\(" for p in patterns), patterns


def _formulas_of_the_builds() -> list[str]:
    from xlmodel.case import Case
    from xlmodel.evaluator import model_for
    from xlmodel.policy import policy_by_id
    from xlmodel.workbook.layout import Layout
    from xlmodel.workbook.writer import WorkbookBuilder

    seen: list[str] = []
    real = CheckedWorksheet._prepare_formula

    def record(self, formula, expand=False):
        seen.append(formula)
        return real(self, formula, expand)

    CheckedWorksheet._prepare_formula = record
    try:
        for pid in ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026"):
            pol = policy_by_id(pid)
            L = Layout(model_for(pol), pol.plan_years[1])
            WorkbookBuilder(pol, Case(pol.id, pol.plan_years[1]), first_year=L.first_year, n_years=L.n_years,
                            n_eval=L.n_eval).compose()
    finally:
        CheckedWorksheet._prepare_formula = real
    return seen


def test_a_formula_is_prepared_as_xlsxwriter_prepares_it():
    import random

    rng = random.Random(7)
    chars = 'AB(.=_ SINGLEFILTRSORTXLOOKUP"{}中1,+-'
    formulas = _formulas_of_the_builds()
    assert len(formulas) > 3000
    formulas += ["=FILTER(A1:A3,B1:B3)", "=SUM(A1)+XLOOKUP(1,A:A,B:B)", "=_xlfn.SORT(A1:A3)", "{=SUM(A1:A3*2)}",
                 "=-INGLE(1)", "=ASINGLE(1)", '=IF(A1="FILTER(",1,2)', "=MYSORT(A1)", "=X.SORT(1)", "=中SORT(1)",
                 "=sort(1)", "SUM(1)", "==SUM(1)", '=A1&"("', "=(((1)))", "=ISFILTER(1)", "=F.DIST(1,2,3,TRUE)"]
    formulas += ["".join(rng.choice(chars) for _ in range(rng.randint(0, 30))) for _ in range(1500)]
    formulas = list(dict.fromkeys(formulas))  # each text once (a row's formulas repeat across the years)
    ws = CheckedWorksheet()
    for f in formulas:  # the shortcut's case: no future functions asked for
        assert ws._prepare_formula(f) == Worksheet._prepare_formula(ws, f), f
    for f in formulas[-1500:]:  # with them (XlsxWriter's own method is called: checked on the random texts)
        assert ws._prepare_formula(f, True) == Worksheet._prepare_formula(ws, f, True), f
        ws.use_future_functions = True
        assert ws._prepare_formula(f) == Worksheet._prepare_formula(ws, f), f
        ws.use_future_functions = False


def test_xlsxwriters_prepare_formula_reads_nothing_of_its_sheet_but_use_future_functions():
    """checked_sheet._prepared keeps one answer per (text, flags): XlsxWriter's method must depend on
    nothing else of the worksheet (read from its source: a later release reading more fails here)."""
    src = inspect.getsource(Worksheet._prepare_formula)
    assert set(re.findall(r"\bself\.(\w+)", src)) == {"use_future_functions"}


@pytest.mark.parametrize("formula", FORMULAS)
def test_a_prepared_formula_kept_is_the_one_xlsxwriter_gives(tmp_path, formula):
    """Asked again, for a conditional format (expanded) or a workbook using future functions, the kept
    answer is XlsxWriter's own, for either setting of the flags."""
    from xlmodel.workbook.checked_sheet import _prepared

    for future in (False, True):
        wb = xlsxwriter.Workbook(str(tmp_path / "t.xlsx"), {"use_future_functions": future})
        wb.worksheet_class = CheckedWorksheet
        ws = wb.add_worksheet("s")
        for _ in range(2):
            assert ws._prepare_formula(formula, True) == Worksheet._prepare_formula(ws, formula, True)
            assert _prepared(formula, True, future) == Worksheet._prepare_formula(ws, formula, True)
        wb.close()
