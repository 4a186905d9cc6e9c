"""Issue 26.2: returned workbooks read from their XML (xlmodel/workbook/xmlbook.py), every check kept.

* The XML reader gives what openpyxl gives — every cell of every sheet, formulas and cached values,
  of the type openpyxl gives, the defined names (the workbook's and each sheet's), sheet states and
  custom properties — on the samples and on a hand-written package with what other tools write
  (shared and rich text, phonetic runs, dates, shared and array formulas, cells without r).
* A formula tampered with in the file is still found, whichever workbook the process read before
  (the reference workbook is built once per plan and timeline and kept), and a plan of other
  content gets a reference of its own.

Hostile sheet parts (an out-of-range string or style, a row or cell reference that is not one, a
data-table formula with foreign attributes, deep nesting) are in tests/test_roundtrip.py (HOSTILE).
"""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from xlmodel.case import load_case
from xlmodel.evaluator import cached_plan_by_id
from xlmodel.workbook import reader
from xlmodel.workbook.compare import _REFERENCES, _as_read_back, _row_keys
from xlmodel.workbook.layout import SHEETS
from xlmodel.workbook.reader import read_workbook
from xlmodel.workbook.compare import compare_formulas
from xlmodel.workbook.writer import WorkbookBuilder, build_workbook
from xlmodel.workbook.xmlbook import read_book

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "samples").glob("*.xlsx"))
GCL = REPO / "samples" / "gcl-energy-2022-2024.yaml"


def _comparable(v):
    return ("array", v.ref, v.text) if type(v).__name__ == "ArrayFormula" else (type(v), v)


def assert_as_openpyxl(path: Path) -> int:
    """Both views of ``path`` equal openpyxl's, cell by cell; the number of cells compared."""
    formulas, values = read_book(path.read_bytes())
    n = 0
    for ours, theirs in ((formulas, openpyxl.load_workbook(path)), (values, openpyxl.load_workbook(path, data_only=True))):
        assert ours.sheetnames == theirs.sheetnames
        assert [s.title for s in ours.worksheets] == [s.title for s in theirs.worksheets]
        assert {k: v.attr_text for k, v in ours.defined_names.items()} == \
            {k: v.attr_text for k, v in theirs.defined_names.items()}
        assert [(p.name, p.value) for p in ours.custom_doc_props] == [(p.name, p.value) for p in theirs.custom_doc_props]
        for name in theirs.sheetnames:
            ws, xs = theirs[name], ours[name]
            assert xs.sheet_state == ws.sheet_state
            assert {k: v.attr_text for k, v in xs.defined_names.items()} == \
                {k: v.attr_text for k, v in ws.defined_names.items()}
            assert (xs.max_row, xs.max_column) == (ws.max_row, ws.max_column), name
            for row_x, row_o in zip(xs.iter_rows(), ws.iter_rows(), strict=True):
                for x, o in zip(row_x, row_o, strict=True):
                    assert (x.row, x.column, x.coordinate) == (o.row, o.column, o.coordinate)
                    assert _comparable(x.value) == _comparable(o.value), (name, o.coordinate, x.value, o.value)
                    n += 1
    return n


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_the_samples_read_as_openpyxl_reads_them(sample):
    assert assert_as_openpyxl(sample) > 1000  # every sheet, both views (else the test proves nothing)


_CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
       '<Default Extension="xml" ContentType="application/xml"/>'
       '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
       '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
       '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
       '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
       '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
       '</Types>')
_M = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_RELNS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
_WS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"


def _package(path: Path, date1904: bool = False) -> Path:
    """What other tools write, by hand: text three ways, dates, a boolean, an error, shared and array formulas."""
    parts = {
        "[Content_Types].xml": _CT,
        "_rels/.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                       '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
                       'officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<?xml version="1.0"?><workbook {_M} {_RELNS}><workbookPr date1904="{int(date1904)}"/>'
                           '<sheets><sheet name="数据" sheetId="1" r:id="rId1"/>'
                           '<sheet name="隐藏" sheetId="2" state="hidden" r:id="rId2"/></sheets>'
                           "<definedNames><definedName name=\"in_x\">'数据'!$A$1</definedName>"
                           '<definedName name="in_x" localSheetId="1">隐藏!$A$1</definedName></definedNames></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
                                      f'2006/relationships"><Relationship Id="rId1" Type="{_WS}" Target="worksheets/sheet1.xml"/>'
                                      f'<Relationship Id="rId2" Type="{_WS}" Target="/xl/worksheets/sheet2.xml"/>'
                                      "</Relationships>",
        "xl/styles.xml": f'<?xml version="1.0"?><styleSheet {_M}><numFmts count="1"><numFmt numFmtId="164" '
                         'formatCode="yyyy&quot;年&quot;m&quot;月&quot;d&quot;日&quot;"/></numFmts>'
                         '<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/></cellXfs></styleSheet>',
        "xl/sharedStrings.xml": f'<?xml version="1.0"?><sst {_M} count="2" uniqueCount="2"><si><t>分红</t></si>'
                                '<si><r><t>现金</t></r><r><rPr><b/></rPr><t xml:space="preserve"> 分红</t></r>'
                                '<rPh sb="0" eb="1"><t>xian</t></rPh></si></sst>',
        "xl/worksheets/sheet1.xml": f'<?xml version="1.0"?><worksheet {_M}><sheetData>'
                                    '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>'
                                    '<c r="C1" t="inlineStr"><is><t>行内</t></is></c><c r="D1" t="b"><v>1</v></c>'
                                    '<c r="E1" t="e"><v>#DIV/0!</v></c></row>'
                                    '<row r="2"><c r="A2" s="1"><v>45292</v></c><c r="B2" s="2"><v>45292.5</v></c>'
                                    '<c r="C2"><v>1.5</v></c><c r="D2"><v>7</v></c><c><v>8</v></c></row>'
                                    '<row><c r="A3"><f t="shared" ref="A3:A4" si="0">C2*2</f><v>3</v></c>'
                                    '<c r="B3" t="str"><f>A1&amp;"x"</f><v>分红x</v></c>'
                                    '<c r="C3"><f t="array" ref="C3:C3">SUM(C2:D2*1)</f><v>8.5</v></c></row>'
                                    '<row r="4"><c r="A4"><f t="shared" si="0"/><v>2</v></c><c r="B4" s="1"/></row>'
                                    '</sheetData></worksheet>',
        "xl/worksheets/sheet2.xml": f'<?xml version="1.0"?><worksheet {_M}><sheetData><row r="1"><c r="A1"><v>1</v></c>'
                                    "</row></sheetData></worksheet>",
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in parts.items():
            z.writestr(name, text)
    return path


@pytest.mark.filterwarnings("ignore:Workbook contains no default style")  # openpyxl, of the minimal stylesheet
@pytest.mark.parametrize("date1904", [False, True])
def test_what_other_tools_write_reads_as_openpyxl_reads_it(tmp_path, date1904):
    path = _package(tmp_path / "other.xlsx", date1904)
    assert_as_openpyxl(path)
    formulas, values = read_book(path.read_bytes())
    ws, vs = formulas["数据"], values["数据"]
    # worked out by hand from the XML above
    assert [vs.cell(1, c).value for c in range(1, 6)] == ["分红", "现金 分红", "行内", True, "#DIV/0!"]  # no phonetic run
    day = dt.datetime(2028, 1, 2) if date1904 else dt.datetime(2024, 1, 1)  # serial 45292 (1904: 1,462 days later)
    assert vs.cell(2, 1).value == day and vs.cell(2, 2).value == day + dt.timedelta(hours=12)
    assert (vs.cell(2, 3).value, vs.cell(2, 4).value, vs.cell(2, 5).value) == (1.5, 7, 8)  # E2 has no r: the next column
    assert ws.cell(3, 1).value == "=C2*2" and ws.cell(4, 1).value == "=C3*2"  # the shared formula, moved down one row
    assert ws.cell(3, 2).value == '=A1&"x"' and vs.cell(3, 2).value == "分红x"
    assert ws.cell(3, 3).value.text == "=SUM(C2:D2*1)" and vs.cell(3, 3).value == 8.5
    assert ws.cell(4, 2).value is None and ws.max_row == 4  # a styled empty cell counts, as in openpyxl
    assert formulas["隐藏"].sheet_state == "hidden" and "in_x" in formulas["隐藏"].defined_names
    assert formulas.defined_names["in_x"].attr_text == "'数据'!$A$1"


@pytest.fixture(scope="module")
def gcl_book(tmp_path_factory):
    return build_workbook(tmp_path_factory.mktemp("xmlbook") / "gcl.xlsx", case=load_case(GCL))


def _edit_part(src: Path, dst: Path, part: str, edit) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info.filename, edit(data) if info.filename == part else data)
    return dst


def _calc_part() -> str:
    return f"xl/worksheets/sheet{list(SHEETS).index('calc') + 1}.xml"


@pytest.mark.parametrize("how", ["function", "reference"])
def test_a_formula_changed_in_the_file_is_found_after_a_clean_workbook(gcl_book, tmp_path, how):
    assert read_workbook(gcl_book).tampered == []  # the reference of the plan and timeline is now kept
    found = {}

    def edit(xml: bytes) -> bytes:
        text = xml.decode("utf-8")
        if how == "function":  # ROUND → ROUNDDOWN, the cached value left as it was
            m = re.search(r'<c r="([A-Z]+[0-9]+)"[^>]*><f>ROUND\(', text)
            found["cell"] = m.group(1)
            return (text[:m.end() - 6] + "ROUNDDOWN(" + text[m.end():]).encode("utf-8")
        m = re.search(r"<c r=\"([A-Z]+[0-9]+)\"[^>]*><f>[^<]*?'输入'!([A-Z]+)\$([0-9]+)", text)  # one row further down
        found["cell"] = m.group(1)
        return (text[:m.start(3)] + str(int(m.group(3)) + 1) + text[m.end(3):]).encode("utf-8")

    bad = _edit_part(gcl_book, tmp_path / "tampered.xlsx", _calc_part(), edit)
    tampered = read_workbook(bad).tampered
    assert len(tampered) == 1 and tampered[0].startswith(f"{SHEETS['calc']}!{found['cell']}:"), tampered
    assert read_workbook(gcl_book).tampered == []  # and the clean one is still clean after it


def test_a_plan_of_other_content_gets_its_own_reference(gcl_book, monkeypatch):
    builds = []
    compose = WorkbookBuilder.compose  # a build (write saves what compose wrote; the reference is not saved)

    def counting(self, path=None):
        builds.append(path)
        return compose(self, path)

    monkeypatch.setattr(WorkbookBuilder, "compose", counting)
    monkeypatch.setenv("XLMODEL_NO_CACHE", "1")  # the process's own memo (the user cache: tests/test_reference_cache.py)
    _REFERENCES.clear()
    case = load_case(GCL)
    policy = cached_plan_by_id(case.policy)
    wb, _values = read_book(gcl_book.read_bytes())
    assert compare_formulas(wb, policy, case) == [] and compare_formulas(wb, policy, case) == []
    assert len(builds) == 1  # one plan, one timeline: built once
    other = policy.model_copy(update={"rules": policy.rules[:-1]})  # the same id and version, one rule fewer
    changed = compare_formulas(wb, other, case)
    assert len(builds) == 2 and changed  # its own reference: the workbook's rows are not its formulas


# ---- the reference read from the unsaved workbook (issue 26.2: no file written and parsed back) ----

@pytest.mark.parametrize("pid", ["far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026"])
def test_the_reference_read_from_the_unsaved_workbook_is_the_one_read_back_from_its_file(tmp_path, pid):
    """Every cell of every sheet, each plan's every evaluation year and a wider timeline: the same cells
    (so the same last rows), the same texts and formulas (a formula as "=" + text), the same row keys."""
    from xlmodel.case import Case
    from xlmodel.evaluator import model_for
    from xlmodel.plans.loading import load_plan_by_id
    from xlmodel.workbook.layout import Layout

    pol = load_plan_by_id(pid)
    model = model_for(pol)
    timelines = [Layout(model, y) for y in range(pol.plan_years[0], pol.plan_years[1] + 1)]
    last = timelines[-1]
    timelines.append(Layout(model, last.eval_years[-1], last.first_year - 1, last.n_years + 2, last.n_eval))
    for L in timelines:
        b = WorkbookBuilder(pol, Case(pol.id, L.eval_years[-1]), first_year=L.first_year, n_years=L.n_years,
                            n_eval=L.n_eval)
        fast = _as_read_back(b.compose())
        assert fast is not None
        path = tmp_path / "ref.xlsx"
        b.write(path)
        slow, _values = read_book(path.read_bytes())
        assert fast.sheetnames == slow.sheetnames
        for name in slow.sheetnames:
            got, want = fast[name].cells, slow[name].cells
            assert got.keys() == want.keys(), name
            assert {k: v for k, v in got.items() if isinstance(v, str)} == \
                   {k: v for k, v in want.items() if isinstance(v, str)}, name
            assert _row_keys(fast[name]) == _row_keys(slow[name])


@pytest.mark.parametrize("text, column, plain", [
    ("说明性\nInformational\t", 1, True),  # a tab and a line feed come back as written
    ("a\rb", 0, False), ("a\x01b", 1, False),  # XlsxWriter writes these as _x000D_, _x0001_
    ("see _x0041_", 0, False), ("x005F_", 1, False),  # an escape's look-alike: the reader would change it
    ("<r>rich</r>", 0, False),
    ("a\x01b", 2, True),  # beyond column B a text is read only for a leading "="
    ("=a\x01b", 2, False),
])
def test_a_text_the_file_might_not_give_back_has_the_reference_read_from_the_file(tmp_path, text, column, plain):
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(tmp_path / "x.xlsx"), {"in_memory": True, "strings_to_formulas": False})
    ws = wb.add_worksheet("s")
    ws.write_string(0, column, text)
    ws.write_formula(1, 0, "=1+1")
    got = _as_read_back(wb)
    assert (got is not None) is plain
    if plain:
        assert got["s"].cells == {(1, column + 1): text, (2, 1): "=1+1"}


def test_an_array_formula_has_the_reference_read_from_the_file(tmp_path):
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(tmp_path / "x.xlsx"), {"in_memory": True})
    wb.add_worksheet("s").write_array_formula(0, 0, 1, 0, "{=A3:A4*2}")
    assert _as_read_back(wb) is None


@pytest.mark.parametrize("text", ["NaN", "INF", "-inf", "1,5"])
def test_a_number_no_workbook_holds_is_refused_as_openpyxl_refuses_it_naming_its_cell(tmp_path, text):
    """Issue 48, item 10: a cell whose number is NaN, INF or no number at all is unreadable for openpyxl and for
    the XML reader alike; the reader's error names the sheet and the cell (Data!B2), which openpyxl's does not."""
    from xlmodel.workbook.xmlbook import CellError

    wb = openpyxl.Workbook()
    wb.active.title = "Data"
    wb.active["B2"] = 1.5
    path = tmp_path / "book.xlsx"
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = parts[sheet].replace(b"<v>1.5</v>", f"<v>{text}</v>".encode("ascii"))
    with zipfile.ZipFile(path, "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    with pytest.raises(ValueError):
        openpyxl.load_workbook(path)
    with pytest.raises(CellError) as e:
        read_book(path.read_bytes())
    assert (e.value.where, e.value.text) == ("Data!B2", text)
