"""Issue 48, items 1–5: recalc's gate, its engines' network, --timeout, and signals.

1. An external relationship of any kind (a linked picture, a hyperlink to ``file:``, an OLE or
   external-workbook link, a type nobody allows) is refused before an engine is launched, naming the
   file and the part; LibreOffice runs with link updates "never" and its network sent to a port
   where nothing listens: a linked picture the gate is not asked about fetches nothing.
2. Formulas are read by openpyxl's tokenizer against an allow-list: the issue's two bypasses (a ``"``
   in a quoted sheet name hiding WEBSERVICE; ``'/path/[book.xlsx]S'!A1``) are refused, and every
   workbook xlmodel writes (the three samples, with and without the UDF sheet, an empty model) passes.
3. Parts are judged by content type and relationship, not by name.
4. ``--timeout`` NaN, infinity, 1e400, 0 and negative numbers: exit 2, no engine.
5. A signal while an engine runs kills it with what it started, and raises in the main thread.
"""

from __future__ import annotations

import http.server
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import hostile_corpus as hc
from conftest import assert_process_ends, cli
from xlmodel.case import load_case
from xlmodel.errors import XlmodelError
from xlmodel.plans.loading import load_plan_by_id
from xlmodel.engines import engines, recalc
from xlmodel.engines.drive import check_timeout, foreign_content, xlmodel_functions
from xlmodel.workbook.formula_gate import formula_problems
from xlmodel.workbook.writer import build_workbook

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = {p.stem: p for p in sorted((ROOT / "samples").glob("*.yaml"))}
GCL = "gcl-energy-2022-2024"
OD = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


@pytest.fixture(scope="module")
def gcl_book(tmp_path_factory) -> Path:
    return build_workbook(tmp_path_factory.mktemp("gate") / "gcl.xlsx", case=load_case(SAMPLES[GCL]))


def _no_engine(monkeypatch):
    """Any engine launch fails the test (the gate must refuse first)."""
    def launched(*a, **k):
        raise AssertionError("an engine was launched")
    monkeypatch.setattr(recalc.subprocess, "Popen", launched)
    for cls in (engines.LibreOffice, engines.Gnumeric):
        monkeypatch.setattr(cls, "present", lambda self: True)


def _refused(capsys, tmp_path, book: hc.Book, engine: str = "libreoffice") -> list[str]:
    path = book.save(tmp_path / "book.xlsx")
    code, out, err = cli(capsys, "recalc", path, "-o", tmp_path / "out.xlsx", "--engine", engine)
    assert code == 2, err
    assert "Traceback" not in err and not (tmp_path / "out.xlsx").exists()
    lines = err.splitlines()
    assert lines[0].endswith("book.xlsx: 不交给电子表格引擎计算 not handed to a spreadsheet engine "
                             f"({len(lines) - 1} problem{'s' if len(lines) > 2 else ''})"), err
    assert lines[-1].startswith("  - (怎么办 what to do): 请用 `xlmodel refresh BOOK -o NEW.xlsx`"), err
    return lines[1:-1]


# ---- 1. external relationships, before the engine; the engine's own network --------------------------

_EXTERNAL = {
    "picture": (hc._linked_picture, "xl/drawings/_rels/drawing1.xml.rels",
                f"图片 a picture -> http://127.0.0.1:9/{hc.SECRET}.png"),
    "hyperlink_file": (lambda b: hc.add_relationship(b, hc._sheet_rels(b), "rIdH", OD + "hyperlink", "file:///etc/passwd",
                                                     external=True), None, "超链接 a hyperlink -> file:///etc/passwd"),
    "ole": (lambda b: hc.add_relationship(b, hc._sheet_rels(b), "rIdH", OD + "oleObject", "file:///C:/evil.xlsx",
                                          external=True), None, "嵌入对象 embedded objects (OLE) -> file:///C:/evil.xlsx"),
    "external_workbook": (lambda b: hc.add_relationship(b, "xl/_rels/workbook.xml.rels", "rIdH", OD + "externalLink",
                                                        "http://127.0.0.1:9/book.xlsx", external=True),
                          "xl/_rels/workbook.xml.rels", "外部工作簿链接 links to other workbooks -> http://127.0.0.1:9/book.xlsx"),
    "dde_in_an_external_link": (lambda b: hc.add_relationship(b, "xl/_rels/workbook.xml.rels", "rIdH", OD + "externalLink",
                                                              "cmd|' /C calc'!A0", external=True),
                                "xl/_rels/workbook.xml.rels", "外部工作簿链接 links to other workbooks -> cmd|' /C calc'!A0"),
    "any_type": (lambda b: hc.add_relationship(b, "_rels/.rels", "rIdH", "urn:anything", "//host/share/x", external=True),
                 "_rels/.rels", "urn:anything -> //host/share/x"),
}


@pytest.mark.parametrize("kind", sorted(_EXTERNAL))
def test_an_external_relationship_of_any_kind_is_refused_before_the_engine(kind, gcl_book, tmp_path, capsys, monkeypatch):
    _no_engine(monkeypatch)
    edit, part, said = _EXTERNAL[kind]
    book = hc.Book(gcl_book)
    edit(book)
    part = part or hc._sheet_rels(book)
    assert _refused(capsys, tmp_path, book) == [
        f"  - {part}: 外部关系，引擎会去获取 an external relationship, which an engine would fetch: {said}"]


def test_the_libreoffice_profile_turns_links_and_network_off(tmp_path):
    """Calc's link update mode 1 is "never" (0 always, 2 on request); every request goes to 127.0.0.1:9."""
    from xml.etree import ElementTree as ET

    xcu = (recalc.profile(tmp_path) / "user" / "registrymodifications.xcu").read_text(encoding="utf-8")
    oor = "{http://openoffice.org/2001/registry}"
    props = {(item.get(f"{oor}path"), prop.get(f"{oor}name")): prop.findtext("value")
             for item in ET.fromstring(xcu) for prop in item}
    assert props[("/org.openoffice.Office.Calc/Content/Update", "Link")] == "1"
    assert props[("/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks")] == "true"
    inet = "/org.openoffice.Inet/Settings"
    assert props[(inet, "ooInetProxyType")] == "1" and props[(inet, "ooInetNoProxy")] == ""
    for scheme in ("HTTP", "HTTPS", "FTP"):
        assert (props[(inet, f"ooInet{scheme}ProxyName")], props[(inet, f"ooInet{scheme}ProxyPort")]) == ("127.0.0.1", "9")
    env = recalc.engine_env()
    assert env["https_proxy"] == env["http_proxy"] == "http://127.0.0.1:9" and env["no_proxy"] == ""


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - the server's name for it
        _Counting.hits.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, *a):
        pass


@pytest.mark.engines
def test_libreoffice_fetches_nothing_a_workbook_links_even_past_the_gate(libreoffice, gcl_book, tmp_path):
    """The gate bypassed (the engine called directly): a picture linked to a local server. Before this
    issue's profile LibreOffice asked for it three times; now it asks nothing."""
    server = http.server.HTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        book = hc.Book(gcl_book)
        hc._linked_picture(book)
        url = f"http://127.0.0.1:{server.server_port}/logo.png"
        book.set_text("xl/drawings/_rels/drawing1.xml.rels",
                      book.text("xl/drawings/_rels/drawing1.xml.rels").replace(f"http://127.0.0.1:9/{hc.SECRET}.png", url))
        src = book.save(tmp_path / "linked.xlsx")
        _Counting.hits = []
        [out] = recalc.recalculate([src], tmp_path / "out")
        assert out.exists()
        time.sleep(0.5)
        assert _Counting.hits == []
    finally:
        server.shutdown()


# ---- 2. formulas: tokens on an allow-list ---------------------------------------------------------------

SHEETS = frozenset({"输入", "计算", "a'b"})
NAMES = frozenset({"IN_CASH_DIVIDEND", "P_PRECISION_DIGITS"})
ALLOWED = frozenset({"ROUND", "SUM", "IF", "IFS", "INDEX", "ERROR"})
ANOTHER_SHEET = "引用了本工作簿没有的工作表（另一工作簿？）a reference to a sheet this workbook does not have (another workbook?): "


@pytest.mark.parametrize("formula, problems", [
    # the issue's first bypass: the " inside the quoted sheet names opened no string
    ("'x\"y'!A1&WEBSERVICE(\"http://e\")&'a\"b'!A1",
     ["非 xlmodel 所写的函数 a function xlmodel does not write: WEBSERVICE",
      ANOTHER_SHEET + "'x\"y'!A1", ANOTHER_SHEET + "'a\"b'!A1"]),
    # the second: a path and a workbook inside a quoted sheet name
    ("'/path/[book.xlsx]S'!A1", [ANOTHER_SHEET + "'/path/[book.xlsx]S'!A1"]),
    ("[1]Sheet1!$A$1+1", [ANOTHER_SHEET + "[1]Sheet1!$A$1"]),
    ("SUM(输入:计算!A1)", [ANOTHER_SHEET + "输入:计算!A1"]),
    ("SUM(Table1[Amount])", ["非 xlmodel 所写的引用 a reference xlmodel does not write: Table1[Amount]"]),
    ("cmd|' /C calc'!A0", ["公式无法解析（DDE 链接或外部引用？）a formula xlmodel cannot read (a DDE link or a reference "
                           "to another workbook?): cmd|' /C calc'!A0"]),
    ('webservice ("http://e")', ["非 xlmodel 所写的引用 a reference xlmodel does not write: webservice"]),
    ("_xlfn.WEBSERVICE(\"x\")+HYPERLINK(\"y\")",
     ["非 xlmodel 所写的函数 a function xlmodel does not write: HYPERLINK, WEBSERVICE"]),
    ("计算!A1:INDEX(计算!B:B,2)", ["非 xlmodel 所写的函数 a function xlmodel does not write: 计算!A1:INDEX("]),
])
def test_a_formula_is_refused_for_what_its_tokens_are(formula, problems):
    assert formula_problems(formula, ALLOWED, SHEETS, NAMES) == problems


@pytest.mark.parametrize("formula", [
    "ROUND('计算'!$G$5*p_precision_digits,2)", "SUM(输入!$E$7:$I$7)", "'a''b'!A1+#REF!+'计算'!#REF!",
    "_xlfn.IFS(in_cash_dividend>0,\"WEBSERVICE(\"\"x\"\")\",TRUE,{1,2;3,4})", "计算!$A:$B,计算!$5:$5", "-A1%",
    "IF(A1,,\"'[x]y'!A1\")", 'ERROR("Print titles")'])
def test_a_formula_of_xlmodels_shapes_passes(formula):
    assert formula_problems(formula, ALLOWED, SHEETS, NAMES) == []


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_every_workbook_xlmodel_writes_passes_the_gate(sample, tmp_path):
    """The three samples as `xlmodel build` writes them, with the UDF sheet, and an empty model."""
    case = load_case(SAMPLES[sample])
    pol = load_plan_by_id(case.policy)
    allowed = xlmodel_functions(pol, case.evaluation_year)
    books = [build_workbook(tmp_path / "case.xlsx", case=case),
             build_workbook(tmp_path / "udf.xlsx", case=case, udf=True),
             build_workbook(tmp_path / "empty.xlsx", policy=case.policy, evaluation_year=case.evaluation_year)]
    for book in books:
        assert foreign_content(book.read_bytes(), allowed) == [], book.name


def _renamed(data: bytes, old: str, new: str) -> bytes:
    """The .xlsx ``data`` with the sheet ``old`` called ``new`` in xl/workbook.xml (every formula kept)."""
    import io
    import zipfile

    src, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            part = src.read(info.filename)
            if info.filename == "xl/workbook.xml":
                part = part.replace(f'name="{old}"'.encode(), f'name="{new}"'.encode())
            z.writestr(info.filename, part)
    return out.getvalue()


def test_the_formulas_xlmodel_writes_pass_unread_only_where_their_sheets_and_names_are(gcl_book):
    """Issue 53: a formula xlmodel writes (kept by its text's SHA-256, with the sheets and names its
    references need) passes the gate without being tokenized again; a workbook whose sheet 参数 is
    called otherwise has each formula that reads 参数 refused all the same, exactly as the full reading
    refuses it."""
    from xlmodel.engines.drive import gate_allowance
    from xlmodel.workbook.layout import SHEETS

    allowed, clean = gate_allowance(load_plan_by_id(GCL), 2023)
    data = gcl_book.read_bytes()
    assert len(clean) > 1000  # nearly every formula of the model (a few thousand texts)
    assert foreign_content(data, allowed, clean) == foreign_content(data, allowed) == []
    params = SHEETS["params"]
    renamed = _renamed(data, params, params + "X")
    full = foreign_content(renamed, allowed)
    assert full and all(f"'{params}'!" in p.message or f"{params}!" in p.message for p in full)
    assert all("a reference to a sheet this workbook does not have" in p.message for p in full)
    assert foreign_content(renamed, allowed, clean) == full


@pytest.mark.engines
@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_what_an_engine_saves_passes_the_gate_again(engine, request, gcl_book, tmp_path):
    """A recalculated workbook can be recalculated again (LibreOffice unquotes sheet names; Gnumeric
    writes its print titles as ERROR())."""
    request.getfixturevalue(engine)
    [out] = engines.engine(engine).recalculate([gcl_book], tmp_path / "out", 120)
    assert foreign_content(out.read_bytes(), xlmodel_functions(load_plan_by_id(GCL), 2023)) == []


@pytest.mark.parametrize("formula, where", [
    ("WEBSERVICE(\"http://e\")", "defined name evil"), ("'/p/[b.xlsx]S'!A1", "drawing drawing1.xml")])
def test_names_and_shapes_text_links_are_formulas_too(formula, where, gcl_book, tmp_path, capsys, monkeypatch):
    _no_engine(monkeypatch)
    book = hc.Book(gcl_book)
    if where.startswith("defined name"):
        book.set_text("xl/workbook.xml", book.text("xl/workbook.xml").replace(
            "</definedNames>", f'<definedName name="evil">{hc.xml_text(formula)}</definedName></definedNames>'))
    else:
        book.set_text("xl/drawings/drawing1.xml", book.text("xl/drawings/drawing1.xml").replace(
            'name="Chart 1"/>', 'name="Chart 1"/>').replace("<xdr:graphicFrame macro=\"\">",
                                                           f'<xdr:graphicFrame macro="" textlink="{hc.xml_text(formula)}">'))
    problems = _refused(capsys, tmp_path, book)
    assert [p.split(": ", 1)[0] for p in problems] == [f"  - {where}"], problems


# ---- 3. parts by content type and relationship ------------------------------------------------------------

@pytest.mark.parametrize("kind, expected", [
    ("macros_as_image_bin", ["  - xl/_rels/workbook.xml.rels: 不允许的关系类型 a relationship xlmodel does not hand to an "
                             "engine: 宏 macros (VBA) -> media/image9.bin",
                             "  - xl/media/image9.bin: 不允许的内容类型 a part xlmodel does not hand to an engine: 宏 macros (VBA)"]),
    ("macros_dressed_as_png", ["  - xl/_rels/workbook.xml.rels: 不允许的关系类型 a relationship xlmodel does not hand to an "
                               "engine: 宏 macros (VBA) -> media/image9.png",
                               "  - xl/media/image9.png: 没有关系指向的部件 a part no relationship of the workbook reaches"]),
    ("external_link_under_links", [
        "  - xl/_rels/workbook.xml.rels: 不允许的关系类型 a relationship xlmodel does not hand to an engine: "
        "外部工作簿链接 links to other workbooks -> links/link1.xml",
        "  - xl/links/_rels/link1.xml.rels: 不允许的关系类型 a relationship xlmodel does not hand to an engine: "
        "外部工作簿链接 links to other workbooks -> book.xlsx",
        "  - xl/links/link1.xml: 不允许的内容类型 a part xlmodel does not hand to an engine: 外部工作簿链接 links to other workbooks"]),
    ("ole_object_under_objects", [
        "  - xl/objects/obj1.bin: 不允许的内容类型 a part xlmodel does not hand to an engine: 嵌入对象 embedded objects (OLE)",
        "  - {sheet_rels}: 不允许的关系类型 a relationship xlmodel does not hand to an engine: 嵌入对象 embedded objects (OLE) "
        "-> ../objects/obj1.bin"]),
    ("orphan_part", ["  - xl/media/payload.dat: 不允许的内容类型 a part xlmodel does not hand to an engine: no content type"]),
])
def test_parts_are_judged_by_content_type_and_relationship_not_name(kind, expected, gcl_book, tmp_path, capsys, monkeypatch):
    _no_engine(monkeypatch)
    book = hc.Book(gcl_book)
    hc._PARTS[kind][0](book)
    expected = [e.replace("{sheet_rels}", hc._sheet_rels(book)) for e in expected]
    assert sorted(_refused(capsys, tmp_path, book, engine="gnumeric")) == sorted(expected)


@pytest.mark.parametrize("target, said", [
    ("http://127.0.0.1:9/x.png", "a relationship (image) to a part the workbook does not hold: http://127.0.0.1:9/x.png"),
    ("../../../etc/passwd", "a relationship (image) to a part the workbook does not hold: ../../../etc/passwd"),
    ("../charts/chart1.xml", "a part whose content type its relationship (image) does not allow: ../charts/chart1.xml is "
                             "application/vnd.openxmlformats-officedocument.drawingml.chart+xml"),
])
def test_an_internal_relationship_must_reach_a_part_of_its_kind(target, said, gcl_book, tmp_path, capsys, monkeypatch):
    """A URL or a path out of the package given as an *internal* target, or a chart reached as a picture."""
    _no_engine(monkeypatch)
    book = hc.Book(gcl_book)
    hc.add_relationship(book, "xl/drawings/_rels/drawing1.xml.rels", "rIdH", OD + "image", target)
    [line] = _refused(capsys, tmp_path, book)
    assert line.startswith("  - xl/drawings/_rels/drawing1.xml.rels: ") and line.endswith(said), line


def test_a_picture_inside_the_workbook_passes(gcl_book):
    """An internal PNG reached from a drawing is what Excel writes for a logo: handed on."""
    book = hc.Book(gcl_book)
    book.parts["xl/media/image1.png"] = b"\x89PNG\r\n\x1a\n"
    book.order.append("xl/media/image1.png")
    hc.add_content_type(book, extension="png", ctype="image/png")
    hc.add_relationship(book, "xl/drawings/_rels/drawing1.xml.rels", "rIdH", OD + "image", "../media/image1.png")
    import io

    out = io.BytesIO()
    book.save(out)
    assert foreign_content(out.getvalue(), xlmodel_functions(load_plan_by_id(GCL), 2023)) == []


def _excel_parts(book: hc.Book) -> None:
    """What Excel keeps beside a workbook it saves: a calculation chain, printer settings, its custom XML
    data store, the people of threaded comments and a sensitivity label."""
    sheet_rels = hc._sheet_rels(book)
    sheet = sheet_rels.replace("_rels/", "").removesuffix(".rels")
    for part, ctype, rels, rtype, target in (
            ("xl/calcChain.xml", "spreadsheetml.calcChain+xml", "xl/_rels/workbook.xml.rels", "calcChain", "calcChain.xml"),
            ("xl/printerSettings/printerSettings1.bin", "spreadsheetml.printerSettings", sheet_rels, "printerSettings",
             "../printerSettings/printerSettings1.bin"),
            ("customXml/itemProps1.xml", "customXmlProperties+xml", "customXml/_rels/item1.xml.rels", "customXmlProps",
             "itemProps1.xml"),
            ("xl/persons/person.xml", "application/vnd.ms-excel.person+xml", "xl/_rels/workbook.xml.rels",
             "http://schemas.microsoft.com/office/2017/10/relationships/person", "persons/person.xml"),
            ("docMetadata/LabelInfo.xml", "application/vnd.ms-office.classificationlabels+xml", "_rels/.rels",
             "http://schemas.microsoft.com/office/2020/02/relationships/classificationlabels", "docMetadata/LabelInfo.xml")):
        book.set_text(part, "<x/>")
        hc.add_content_type(book, part, ctype if "/" in ctype else "application/vnd.openxmlformats-officedocument." + ctype)
        hc.add_relationship(book, rels, "rIdE" + str(len(book.order)), rtype if ":" in rtype else OD + rtype, target)
    book.set_text("customXml/item1.xml", "<b:Sources xmlns:b='urn:x'/>")  # application/xml, the default of .xml
    hc.add_relationship(book, "xl/_rels/workbook.xml.rels", "rIdC", OD + "customXml", "../customXml/item1.xml")
    assert sheet in book.parts


def test_the_parts_excel_adds_on_saving_pass(gcl_book):
    import io

    book = hc.Book(gcl_book)
    _excel_parts(book)
    out = io.BytesIO()
    book.save(out)
    assert foreign_content(out.getvalue(), xlmodel_functions(load_plan_by_id(GCL), 2023)) == []


def test_two_parts_of_one_name_but_for_case_are_refused(gcl_book, tmp_path, capsys, monkeypatch):
    """Which of the two an engine reads is its own affair: the gate would have checked only one."""
    _no_engine(monkeypatch)
    book = hc.Book(gcl_book)
    book.set_text("XL/_rels/workbook.xml.rels", book.text("xl/_rels/workbook.xml.rels"))
    assert _refused(capsys, tmp_path, book) == [
        "  - XL/_rels/workbook.xml.rels: 部件名重复（不计大小写）two parts of the same name (letter case aside): "
        "XL/_rels/workbook.xml.rels, xl/_rels/workbook.xml.rels"]


# ---- 4. --timeout ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e400", "-5", "0", "86400.5", "abc", ""])
def test_a_timeout_that_is_no_time_is_refused(text):
    with pytest.raises(XlmodelError) as e:
        check_timeout(text)
    assert str(e.value) == ("--timeout: 时限须为大于 0、不超过 86400 的秒数 expected a number of seconds above 0 and at "
                            f"most 86400 (a day), got {text!r}")


@pytest.mark.parametrize("text, seconds", [("0.5", 0.5), ("120", 120.0), ("86400", 86400.0), (60.0, 60.0)])
def test_a_timeout_in_seconds_is_taken(text, seconds):
    assert check_timeout(text) == seconds


@pytest.mark.parametrize("command", ["recalc", "selftest"])
@pytest.mark.parametrize("text", ["nan", "inf", "1e400", "-5", "0"])
def test_recalc_and_selftest_refuse_the_timeout_before_any_engine(command, text, gcl_book, tmp_path, capsys, monkeypatch):
    _no_engine(monkeypatch)
    args = [command] + ([gcl_book, "-o", tmp_path / "out.xlsx"] if command == "recalc" else [])
    code, out, err = cli(capsys, *args, "--engine", "gnumeric", "--timeout", text)
    assert (code, out) == (2, "") and err.startswith(f"xlmodel: --timeout: 时限须为") and f"got '{text}'" in err, err
    assert "Traceback" not in err and not (tmp_path / "out.xlsx").exists()


# ---- 5. signals -----------------------------------------------------------------------------------------------

@pytest.mark.skipif(os.name != "posix", reason="process groups and signals (POSIX)")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_kills_the_engine_and_what_it_started(signum, gcl_book, tmp_path, monkeypatch):
    """A fake soffice that starts a child and hangs; the signal arrives while it runs (in a launch thread,
    as `recalc` runs it): Interrupted in the main thread within seconds, both processes gone, no
    further launch (no retry), and the handlers as they were."""
    from xlmodel.inputs.files import Interrupted

    fake, pidfile, launches = tmp_path / "soffice", tmp_path / "child.pid", tmp_path / "launches"
    fake.write_text(f"#!/bin/sh\necho x >> {launches}\nsleep 300 &\necho $! > {pidfile}\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setattr(recalc, "soffice", lambda: str(fake))
    before = signal.getsignal(signum)
    threading.Timer(1.0, os.kill, (os.getpid(), signum)).start()
    t = time.monotonic()
    with pytest.raises(Interrupted) as e:
        with recalc.stopped_by_signals():
            engines.LibreOffice().recalculate([gcl_book], tmp_path / "out", timeout=120)
    assert e.value.exit_code == 128 + signum and time.monotonic() - t < 20
    assert signal.getsignal(signum) is before and not recalc._STOPPING.is_set() and not recalc._LIVE
    assert launches.read_text() == "x\n"
    assert_process_ends(int(pidfile.read_text()))
