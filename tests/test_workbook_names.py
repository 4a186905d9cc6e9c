"""A workbook's names must point where xlmodel put them (issue 9).

``xlmodel check`` and ``refresh`` read the inputs through the workbook's defined names. A
name that was edited — shortened, lengthened, reversed, stretched over a whole column or row,
split into several areas, moved to another sheet, another row or another column, shadowed by
a sheet-level name — or an input sheet that was hidden, would make xlmodel read other cells
than the user sees, or drop values. Each is an error naming the name, where it points and
where it should (``in_cash_dividend → '输入'!$E$20:$G$20: expected 5 cells '输入'!$E$20:$I$20``);
never a crash, and ``refresh`` writes nothing. A moved result, parameter or label name
(``out_*``, ``chk_*``, ``p_*``, ``lbl_*``) is reported as a change to the workbook.

Hostile workbooks are made from a built one by editing ``xl/workbook.xml`` inside the zip
(everything else byte for byte) or with openpyxl (sheet state, copied sheets).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from xlmodel.case import load_case
from xlmodel.errors import XlmodelError
from xlmodel.evaluator import model_for
from xlmodel.plans.loading import load_policy
from xlmodel.workbook.layout import FIRST_YEAR_COL, SHEETS, Layout, col_name
from xlmodel.workbook.reader import read_workbook
from xlmodel.workbook.writer import build_workbook
from conftest import cli

ROOT = Path(__file__).resolve().parents[1]
GCL = "gcl-energy-2022-2024"
GCL_SAMPLE = ROOT / "samples" / f"{GCL}.yaml"
INPUTS = SHEETS["inputs"]
L = Layout(model_for(load_policy(GCL)), 2023)
E, T = col_name(FIRST_YEAR_COL), col_name(L.last_col)  # first and last year columns (E, I)
CASH = L.inputs["cash_dividend"] + 1  # 1-based rows
NPA = L.inputs["net_profit_attributable"] + 1
NAME_ROW = L.company["company_name"] + 1
ATT = next(iter(L.attest))
ATT_ROW = L.attest[ATT] + 1




@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    return build_workbook(tmp_path_factory.mktemp("names") / "gcl.xlsx", case=load_case(GCL_SAMPLE))


def set_name(src: Path, dst: Path, name: str, ref: str | None, extra: str = "") -> Path:
    """Copy the workbook with the defined name ``name`` pointing to ``ref`` (None: removed);
    ``extra`` is inserted as more <definedName> elements."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/workbook.xml":
                xml = data.decode()
                pat = rf'<definedName name="{name}">[^<]*</definedName>'
                assert len(re.findall(pat, xml)) == 1, name
                new = "" if ref is None else f'<definedName name="{name}">{ref}</definedName>'
                xml = re.sub(pat, lambda m: new + extra, xml)
                data = xml.encode()
            zout.writestr(info, data)
    return dst


def rng(c0: str, c1: str, row: int, sheet: str = INPUTS) -> str:
    return f"'{sheet}'!${c0}${row}:${c1}${row}"


CASH_REF = rng(E, T, CASH)

# name, where it is made to point, what the message must say (besides the name and that ref)
HOSTILE = {
    "shortened": ("in_cash_dividend", rng(E, "G", CASH), f"expected 5 cells {CASH_REF}"),
    "lengthened": ("in_cash_dividend", rng(E, "J", CASH), f"expected 5 cells {CASH_REF}"),
    "shifted": ("in_cash_dividend", rng("F", "J", CASH), f"expected 5 cells {CASH_REF}"),
    "reversed": ("in_cash_dividend", f"'{INPUTS}'!${T}${CASH}:${E}${CASH}", "a reversed range"),
    "whole_column": ("in_cash_dividend", f"'{INPUTS}'!$E:$E", "a whole column or row"),
    "whole_row": ("in_cash_dividend", f"'{INPUTS}'!${CASH}:${CASH}", "a whole column or row"),
    "two_areas": ("in_cash_dividend", f"{CASH_REF},{rng(E, T, CASH + 1)}", "several areas"),
    "two_rows": ("in_cash_dividend", f"'{INPUTS}'!${E}${CASH}:${T}${CASH + 1}", f"expected 5 cells {CASH_REF}"),
    "another_sheet": ("in_cash_dividend", rng(E, T, CASH, SHEETS["calc"]), "another sheet"),
    "no_such_sheet": ("in_cash_dividend", rng(E, T, CASH, "Sheet9"), "there is no sheet 'Sheet9'"),
    "another_row": ("in_cash_dividend", rng(E, T, NPA), "row of 'net_profit_attributable'"),
    "deleted_reference": ("in_cash_dividend", "#REF!", "#REF!"),
    "a_constant": ("in_cash_dividend", "1000", "not a cell"),
    "outside_the_sheet": ("in_cash_dividend", f"'{INPUTS}'!$E$2000000:$I$2000000", "outside the sheet"),
    "company_two_cells": ("in_company_name", f"'{INPUTS}'!$E${NAME_ROW}:$F${NAME_ROW}",
                          f"expected one cell '{INPUTS}'!$E${NAME_ROW}"),
    "company_other_column": ("in_company_name", f"'{INPUTS}'!$F${NAME_ROW}", f"expected one cell '{INPUTS}'!$E${NAME_ROW}"),
    "attestation_elsewhere": (f"att_{ATT}", f"'{SHEETS['calc']}'!${T}${ATT_ROW}", "another sheet"),
    "attestation_wrong_column": (f"att_{ATT}", f"'{INPUTS}'!${T}${ATT_ROW}", f"expected one cell '{INPUTS}'!${E}${ATT_ROW}"),
    "year_two_cells": ("in_evaluation_year", f"'{INPUTS}'!${T}$3:${col_name(L.t_col + 1)}$3", "expected one cell"),
    "year_another_sheet": ("in_evaluation_year", f"'{SHEETS['calc']}'!${T}$3", "another sheet"),
}


@pytest.mark.parametrize("how", sorted(HOSTILE))
def test_a_name_not_where_xlmodel_put_it_is_an_error_naming_it(book, tmp_path, capsys, how):
    name, ref, words = HOSTILE[how]
    path = set_name(book, tmp_path / f"{how}.xlsx", name, ref)
    with pytest.raises(XlmodelError) as e:
        read_workbook(path)
    msg = str(e.value)
    assert f"{name} → {ref}" in msg, msg
    assert words in msg, msg
    code, out, err = cli(capsys, "check", path)
    assert code == 2 and out == ""
    assert err.startswith("xlmodel: ") and "Traceback" not in err
    assert f"{name} → {ref}" in err


def test_the_message_of_a_shortened_name_says_what_was_expected(book, tmp_path):
    path = set_name(book, tmp_path / "short.xlsx", "in_cash_dividend", rng(E, "G", CASH))
    with pytest.raises(XlmodelError) as e:
        read_workbook(path)
    assert f"in_cash_dividend → {rng(E, 'G', CASH)}: expected 5 cells {CASH_REF}" in str(e.value)
    assert str(path) in str(e.value)


@pytest.mark.parametrize("how", ["shortened", "another_row", "two_areas", "company_two_cells", "attestation_elsewhere"])
def test_refresh_never_drops_a_value_it_cannot_read_where_it_belongs(book, tmp_path, capsys, how):
    name, ref, _ = HOSTILE[how]
    old = set_name(book, tmp_path / "old.xlsx", name, ref)
    new = tmp_path / "new.xlsx"
    code, _, err = cli(capsys, "refresh", old, "-o", new)
    assert code == 2 and f"{name} → {ref}" in err and "Traceback" not in err
    assert not new.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.xlsx"]  # no temporary file either


def test_a_missing_input_name_is_an_error_not_a_silent_blank(book, tmp_path, capsys):
    for name in ("in_cash_dividend", "in_company_name", f"att_{ATT}"):
        path = set_name(book, tmp_path / f"no-{name}.xlsx", name, None)
        with pytest.raises(XlmodelError) as e:
            read_workbook(path)
        assert f"{name}: the defined name is missing" in str(e.value)
        new = tmp_path / f"new-{name}.xlsx"
        code, _, err = cli(capsys, "refresh", path, "-o", new)
        assert code == 2 and not new.exists()


@pytest.mark.parametrize("state", ["hidden", "veryHidden"])
def test_a_hidden_input_sheet_is_refused(book, tmp_path, capsys, state):
    wb = openpyxl.load_workbook(book)
    wb[INPUTS].sheet_state = state
    wb.active = 0
    path = tmp_path / f"{state}.xlsx"
    wb.save(path)
    with pytest.raises(XlmodelError) as e:
        read_workbook(path)
    assert INPUTS in str(e.value) and state in str(e.value)
    code, _, err = cli(capsys, "check", path)
    assert code == 2 and "Traceback" not in err
    code, _, err = cli(capsys, "refresh", path, "-o", tmp_path / "new.xlsx")
    assert code == 2 and not (tmp_path / "new.xlsx").exists()


def test_a_name_pointing_to_a_hidden_copy_of_the_input_sheet_is_refused(book, tmp_path):
    """The user sees 输入; a name reading a hidden look-alike would evaluate other numbers."""
    wb = openpyxl.load_workbook(book)
    copy = wb.copy_worksheet(wb[INPUTS])
    copy.title = "输入2"
    copy.sheet_state = "hidden"
    copy[f"{T}{CASH}"] = 1.0
    path = tmp_path / "decoy.xlsx"
    wb.save(path)
    path = set_name(path, tmp_path / "decoy2.xlsx", "in_cash_dividend", rng(E, T, CASH, "输入2"))
    with pytest.raises(XlmodelError) as e:
        read_workbook(path)
    assert f"in_cash_dividend → {rng(E, T, CASH, '输入2')}: another sheet" in str(e.value)


def test_a_sheet_level_name_shadowing_an_input_name_is_refused(book, tmp_path):
    local = f'<definedName name="in_cash_dividend" localSheetId="3">{rng(E, T, NPA)}</definedName>'
    path = set_name(book, tmp_path / "shadow.xlsx", "in_cash_dividend", CASH_REF, extra=local)
    with pytest.raises(XlmodelError) as e:
        read_workbook(path)
    assert "in_cash_dividend (sheet" in str(e.value) and "shadows" in str(e.value)


@pytest.mark.parametrize("name, ref", [
    ("out_min_cash_dividend", f"'{SHEETS['summary']}'!$C$99"),
    (f"chk_{L.model.rules[0].spec.id}", f"'{SHEETS['checks']}'!$A$1"),
    ("lbl_pass", f"'{SHEETS['lists']}'!$B$99"),
    (next(f"p_{k.replace('.', '_')}" for k in L.params), f"'{SHEETS['params']}'!$D$99"),
])
def test_a_moved_result_parameter_or_label_name_is_a_change_to_the_workbook(book, tmp_path, capsys, name, ref):
    path = set_name(book, tmp_path / "moved.xlsx", name, ref)
    read = read_workbook(path)
    assert any(t.startswith(f"{name} → {ref}: expected") for t in read.tampered), read.tampered
    code, _, err = cli(capsys, "check", path)
    assert code == 1 and f"{name} → {ref}" in err
    new = tmp_path / "repaired.xlsx"  # refresh rebuilds every name where it belongs
    code, _, err = cli(capsys, "refresh", path, "-o", new)
    assert code == 0, err
    assert read_workbook(new).tampered == []


def test_an_untouched_workbook_passes_every_name_check(book):
    read = read_workbook(book)
    assert read.tampered == [] and read.notes == []
    assert read.case.company["company_name"] == load_case(GCL_SAMPLE).company["company_name"]


def test_a_number_typed_into_a_notes_cell_is_carried_as_text(book, tmp_path):
    wb = openpyxl.load_workbook(book)
    wb[INPUTS].cell(CASH, L.notes_col + 1).value = 2023
    path = tmp_path / "note.xlsx"
    wb.save(path)
    assert read_workbook(path).case.notes["cash_dividend"] == "2023"


@pytest.mark.parametrize("ref", [f"{INPUTS}!E{CASH}:I{CASH}", f"'{INPUTS}'!$e${CASH}:$i${CASH}",
                                 f"'{INPUTS}'!E${CASH}:$I{CASH}"], ids=["unquoted", "lower_case", "mixed_dollars"])
def test_the_same_cells_written_another_way_are_accepted(book, tmp_path, ref):
    path = set_name(book, tmp_path / "same.xlsx", "in_cash_dividend", ref)
    assert read_workbook(path).case.years == read_workbook(book).case.years

_PIECES = st.sampled_from([f"'{INPUTS}'", INPUTS, "'计算'", "''", "'", "!", "$", ":", ",", " ", "E", "I", "XFD", "A",
                           str(CASH), "0", "1048577", "99999999", "#REF!", "(", ")", "~", "'输''入'", "\u202e", "[1]"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ref=st.lists(_PIECES, min_size=1, max_size=10).map("".join))
def test_any_reference_gives_a_read_or_an_error_never_a_crash(book, tmp_path_factory, ref):
    from xml.sax.saxutils import escape

    path = set_name(book, tmp_path_factory.mktemp("fuzz") / "fuzz.xlsx", "in_cash_dividend", escape(ref))
    try:
        read = read_workbook(path)
    except XlmodelError:
        return
    assert read.case.years == read_workbook(book).case.years  # accepted only when it is the same cells
