"""Outputs are safe (issue 9): inert text, checked paths, atomic and exclusive writes.

1. ``xlmodel.inputs.sanitize``: CSV cells (OWASP), Markdown, plain-text reports;
2. workbooks: text from a case is a string cell, never a formula (read from the XML in the zip);
   nothing is truncated silently;
3. batch output (``xlmodel.batch.output``): CSV with a BOM and ``'``-prefixed formula-like text,
   XLSX with string cells only, a styled, frozen, filtered header and money formats;
4. output paths (``xlmodel.inputs.files.check_output``) are checked before any work, errors exit 2;
5. ``xlmodel.inputs.files.atomic_write``: exclusive without ``--force``, no temporary file left on an
   error or a signal, temporary names that do not look like a finished output;
6. text and Markdown reports: a company name cannot forge lines, headings or table rows.
"""

from __future__ import annotations

import copy
import csv
import errno
import io
import os
import re
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import pandas as pd
import pytest

import xlmodel
from xlmodel.batch.output import RESULTS_SHEET, SUMMARY_SHEET, write_batch_xlsx
from xlmodel.batch.output_csv import write_batch_csv
from xlmodel.case import load_case
from xlmodel.errors import OutputExistsError, XlmodelError
from xlmodel.inputs.files import Interrupted, atomic_write, check_output
from xlmodel.report.terminal import render_table
from xlmodel.report.markdown import render_markdown
from xlmodel.inputs.sanitize import csv_cell, md_text, plain_text
from xlmodel.workbook.layout import SHEETS
from xlmodel.workbook.reader import read_workbook
from xlmodel.workbook.writer import MAX_TEXT, CheckedWorksheet, build_workbook
from conftest import cli

ROOT = Path(__file__).resolve().parents[1]
GCL = "gcl-energy-2022-2024"
GCL_SAMPLE = ROOT / "samples" / f"{GCL}.yaml"
NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
PAYLOADS = ['=HYPERLINK("http://x","y")', "=cmd|' /C calc'!A0", "+1+1", "@SUM(1)", "-2+3", "\t=1+1", "\r=1"]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0




def assert_clean_error(err: str):
    assert "Traceback" not in err and err.startswith("xlmodel: "), err


def everything(d: Path) -> list[str]:
    """Every file under ``d``, hidden ones included."""
    return sorted(str(p.relative_to(d)) for p in d.rglob("*"))


# ---------------------------------------------------------------------------------------------
# 1. sanitize


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@A1", "\tx", "\rx", '=HYPERLINK("http://x","y")'])
def test_csv_cell_prefixes_formula_like_text(text):
    assert csv_cell(text) == "'" + text


@pytest.mark.parametrize("value", [-1, -1.5, 0, 2.0, True, None, "002015", "协鑫能源", "a=b", " =1", ""])
def test_csv_cell_keeps_numbers_and_ordinary_text(value):
    assert csv_cell(value) == value


def test_md_text_is_one_inert_line():
    s = md_text("A | B\n### heading\r\n| x | y |\n<script>alert(1)</script> *b* _i_ [l](http://e) `c` ~s~ \\")
    assert "\n" not in s and "\r" not in s
    assert "<" not in s and ">" not in s and "&lt;script&gt;" in s
    assert not re.search(r"(?<!\\)[|*_`~\[\]#]", s.replace("\\\\", "")), s
    assert "http\\:" in s  # no bare-URL autolink
    assert md_text("协鑫能源科技股份有限公司") == "协鑫能源科技股份有限公司"
    assert md_text("-1,000.00") == "-1,000.00"
    assert "\u202e" not in md_text("abc\u202edef") and "\x1b" not in md_text("a\x1b[31mb")


def test_plain_text_shows_control_characters_as_escapes():
    assert plain_text("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert plain_text("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert plain_text("x\u2028y\u202ez\x00\x7f\x85") == "x\\u2028y\\u202ez\\x00\\x7f\\x85"
    assert plain_text("协鑫能源 002015 (A|B)") == "协鑫能源 002015 (A|B)"


# ---------------------------------------------------------------------------------------------
# 2. workbooks


def _hostile_case(text: str):
    case = copy.deepcopy(load_case(GCL_SAMPLE))
    case.company["company_name"] = text
    att = next(iter(case.attestations))
    case.notes = {"cash_dividend": text, "company_name": text, att: text}
    return case


def _sheets_xml(path: Path) -> dict[str, ET.Element]:
    with zipfile.ZipFile(path) as z:
        wb = ET.fromstring(z.read("xl/workbook.xml"))
        rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
        target = {r.get("Id"): r.get("Target") for r in rels}
        rid = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
        out = {}
        for s in wb.find("m:sheets", NS):
            t = target[s.get(rid)]
            out[s.get("name")] = ET.fromstring(z.read(t.lstrip("/") if t.startswith("/") else "xl/" + t))
        shared = [("".join(x.itertext())) for x in ET.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", NS)] \
            if "xl/sharedStrings.xml" in z.namelist() else []  # (constant-memory writing: inline strings)
    return out, shared


def _cell_text(c: ET.Element, shared: list[str]):
    """The cell's text as a spreadsheet shows it (OOXML's _xHHHH_ escapes, e.g. of a CR, undone)."""
    from openpyxl.utils.escape import unescape

    v = c.find("m:v", NS)
    if c.get("t") == "s":
        return unescape(shared[int(v.text)])
    if c.get("t") == "inlineStr":
        return unescape("".join(c.find("m:is", NS).itertext()))
    return None if v is None else v.text


@pytest.mark.parametrize("udf", [False, True], ids=["plain", "udf"])
@pytest.mark.parametrize("text", PAYLOADS[:4])
def test_case_text_is_a_string_cell_never_a_formula(tmp_path, text, udf):
    path = build_workbook(tmp_path / "book.xlsx", case=_hostile_case(text), udf=udf)
    sheets, shared = _sheets_xml(path)
    holding = []
    for name, root in sheets.items():
        for c in root.iter(f"{{{NS['m']}}}c"):
            f = c.find("m:f", NS)
            if f is not None:
                assert text not in (f.text or ""), f"{name}!{c.get('r')}: the payload became formula text: {f.text}"
            if _cell_text(c, shared) == text:
                holding.append((name, c.get("r"), f is not None, c.get("t")))
    inputs = [h for h in holding if h[0] == SHEETS["inputs"]]
    assert len(inputs) == 4, holding  # company name and three notes
    assert all(not has_f and t == "s" for _, _, has_f, t in inputs), inputs  # shared strings, no <f>
    # the cover shows the name through xlmodel's own formula, its cached result a string
    cover = [h for h in holding if h[0] == SHEETS["cover"]]
    assert cover and all(has_f and t == "str" for _, _, has_f, t in cover), cover
    read = read_workbook(path)
    assert read.case.company["company_name"] == text and read.case.notes["cash_dividend"] == text


@pytest.mark.parametrize("where", ["company_name", "note"])
def test_text_longer_than_a_cell_is_an_error_naming_the_field_not_truncated(tmp_path, where):
    case = copy.deepcopy(load_case(GCL_SAMPLE))
    long = "长" * (MAX_TEXT + 1)
    if where == "company_name":
        case.company["company_name"] = long
    else:
        case.notes["total_assets"] = long
    with pytest.raises(XlmodelError) as e:
        build_workbook(tmp_path / "book.xlsx", case=case)
    assert ("company.company_name" if where == "company_name" else "notes.total_assets") in str(e.value)
    assert "32,767" in str(e.value)
    assert everything(tmp_path) == []


def test_a_text_of_exactly_the_limit_fits(tmp_path):
    case = copy.deepcopy(load_case(GCL_SAMPLE))
    case.notes["total_assets"] = "x" * MAX_TEXT
    path = build_workbook(tmp_path / "book.xlsx", case=case)
    assert read_workbook(path).case.notes["total_assets"] == "x" * MAX_TEXT


def test_the_worksheet_never_truncates_or_drops_a_cell_silently(tmp_path):
    import xlsxwriter

    wb = xlsxwriter.Workbook(str(tmp_path / "t.xlsx"), {"strings_to_formulas": False})
    wb.worksheet_class = CheckedWorksheet
    ws = wb.add_worksheet("s")
    with pytest.raises(XlmodelError, match=r"s!B2: 文字超出 Excel 单元格的容量 a text of 32,768 characters"):
        ws.write_string(1, 1, "x" * 32_768)
    with pytest.raises(XlmodelError, match="s!A2"):
        ws.write(1, 0, "😀" * 16_384)  # 32,768 UTF-16 units
    with pytest.raises(XlmodelError, match="outside the sheet"):
        ws.write_number(1_048_576, 0, 1.0)
    with pytest.raises(XlmodelError, match="formula of"):
        ws.write_formula(0, 0, "=" + "+1" * 5000)
    assert ws.write_string(0, 0, "x" * 32_767) == 0
    wb.close()


# ---------------------------------------------------------------------------------------------
# 3. batch output


def _frame() -> pd.DataFrame:
    n = len(PAYLOADS)
    return pd.DataFrame({
        "policy": [GCL] * n,
        "company_name": PAYLOADS,
        "fiscal_year": np.arange(2020, 2020 + n),
        "overall_status": ["pass"] * (n - 1) + ["missing_input"],
        "cash_conditions_met": np.array([True, False] + [None] * (n - 2), dtype=object),
        "min_cash_dividend": [85_509_212.89, np.nan] + [-1.5] * (n - 2),
        "fail_count": np.zeros(n, dtype=int),
        "min_annual.shortfall": [0.0] * n,
        "min_annual.status": ["pass"] * n,
    })


def test_batch_csv_has_a_bom_and_inert_text(tmp_path):
    out = write_batch_csv(_frame(), tmp_path / "out.csv")
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0] == list(_frame().columns)
    names = [r[1] for r in rows[1:]]
    assert names == ["'" + p for p in PAYLOADS]
    assert rows[1][5] == "85509212.89" and rows[2][5] == "" and rows[3][5] == "-1.5"  # numbers stay numbers
    assert rows[1][4] == "True" and rows[3][4] == ""
    df = pd.read_csv(out, encoding="utf-8-sig")
    assert df["min_cash_dividend"].iloc[0] == 85_509_212.89 and df["fail_count"].dtype.kind == "i"
    assert everything(tmp_path) == ["out.csv"]


def test_batch_xlsx_has_string_cells_only_and_a_usable_header(tmp_path):
    out = write_batch_xlsx(_frame(), tmp_path / "out.xlsx")
    sheets, shared = _sheets_xml(out)
    assert list(sheets) == [SUMMARY_SHEET, RESULTS_SHEET]
    for root in sheets.values():
        assert root.find(".//m:f", NS) is None  # not a single formula, on any sheet
    root = sheets[RESULTS_SHEET]
    cells = {c.get("r"): c for c in root.iter(f"{{{NS['m']}}}c")}
    assert _cell_text(cells["B2"], shared) == "company_name"  # row 1: labels, row 2: column ids
    for i, p in enumerate(PAYLOADS, start=3):
        c = cells[f"B{i}"]
        assert c.get("t") in ("s", "inlineStr") and _cell_text(c, shared) == p
    assert _cell_text(cells["E3"], shared) == "是" and "E5" not in cells  # yes/no in Chinese; None is blank
    assert _cell_text(cells["D3"], shared) == "通过" and _cell_text(cells[f"D{len(PAYLOADS) + 2}"], shared) == "缺少输入"
    assert cells["F3"].get("t") is None and float(_cell_text(cells["F3"], shared)) == 85_509_212.89
    assert "F4" not in cells  # NaN is blank
    assert root.find(".//m:pane", NS).get("state") == "frozen"
    assert root.find("m:autoFilter", NS).get("ref") == f"A2:I{len(PAYLOADS) + 2}"
    with zipfile.ZipFile(out) as z:
        styles = z.read("xl/styles.xml").decode()
        assert "#,##0.00" in styles and "<b/>" in styles
        # no hyperlink element nor relationship (a payload's text, inline in the sheet, names one: as text)
        assert not any(re.search(r"<(\w+:)?hyperlinks?[\s>/]", z.read(n).decode()) or "hyperlink" in n.lower()
                       for n in z.namelist() if n.startswith("xl/worksheets/"))
    import openpyxl

    ws = openpyxl.load_workbook(out)[RESULTS_SHEET]
    assert ws["F3"].number_format == "#,##0.00" and ws["H3"].number_format == "#,##0.00"
    assert ws["G3"].number_format == "0" and ws["A1"].font.b
    assert ws.freeze_panes == "C3"  # below the header, right of the company name
    from openpyxl.utils.escape import unescape

    df = pd.read_excel(out, sheet_name=RESULTS_SHEET, header=1)  # openpyxl leaves OOXML's _x000D_ (a CR) escaped
    assert [unescape(v) for v in df["company_name"]] == PAYLOADS


def test_batch_xlsx_refuses_to_truncate_a_long_text(tmp_path):
    df = _frame()
    df.loc[3, "company_name"] = "x" * 40_000
    with pytest.raises(XlmodelError, match=r"结果 row 6, column 'company_name'.*40,000"):  # two header rows
        write_batch_xlsx(df, tmp_path / "out.xlsx")
    assert everything(tmp_path) == []
    write_batch_csv(df, tmp_path / "out.csv")  # CSV has no cell limit


def _batch_input(path: Path, names: list[str]) -> Path:
    """A batch table keyed by company_name (no stock code), one evaluation year per company."""
    case = load_case(GCL_SAMPLE)
    rows = []
    for name in names:
        for fy in sorted(case.years):
            rows.append({"policy": GCL, "company_name": name, "fiscal_year": fy, **case.years[fy]})
    df = pd.DataFrame(rows)
    with path.open("w", encoding="utf-8", newline="") as fh:
        df.to_csv(fh, index=False)
    return path


@pytest.mark.parametrize("ext", ["csv", "xlsx"])
def test_batch_cli_output_carries_no_live_formula(tmp_path, capsys, ext):
    src = _batch_input(tmp_path / "in.csv", PAYLOADS[:4])
    out = tmp_path / f"out.{ext}"
    code, _, err = cli(capsys, "evaluate", "--batch", src, "-o", out)
    assert code in (0, 1), err
    if ext == "csv":
        df = pd.read_csv(out, encoding="utf-8-sig")
        assert set(df["company_name"]) == {"'" + p for p in PAYLOADS[:4]}
    else:
        sheets, shared = _sheets_xml(out)
        assert list(sheets) == [SUMMARY_SHEET, RESULTS_SHEET]
        for root in sheets.values():
            assert root.find(".//m:f", NS) is None
        df = pd.read_excel(out, sheet_name=RESULTS_SHEET, header=1)
        assert set(df["company_name"]) == set(PAYLOADS[:4])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv", f"out.{ext}"]


# ---------------------------------------------------------------------------------------------
# 4. output paths, checked before any work


@pytest.fixture()
def no_evaluation(monkeypatch):
    """Output errors must come before the inputs are read or evaluated."""
    import xlmodel.batch.evaluate
    import xlmodel.batch.table
    import xlmodel.case
    import xlmodel.engines.drive
    import xlmodel.workbook.fill
    import xlmodel.workbook.reader

    def boom(*a, **k):
        raise AssertionError("the output should have been refused before any work")
    for mod, name in ((xlmodel.batch.table, "read_table"), (xlmodel.batch.evaluate, "evaluate_batch"),
                      (xlmodel.case, "load_case"), (xlmodel.workbook.reader, "read_workbook"),
                      (xlmodel.workbook.fill, "load_case"), (xlmodel.workbook.fill, "read_workbook"),
                      (xlmodel.engines.drive, "read_workbook")):
        monkeypatch.setattr(mod, name, boom)


def _argv(cmd: str, tmp: Path, out: Path) -> list:
    return {"build": ["build", GCL_SAMPLE, "-o", out],
            "batch": ["evaluate", "--batch", tmp / "nope.csv", "-o", out],
            "refresh": ["refresh", tmp / "old.xlsx", "-o", out],
            "fill": ["fill", tmp / "old.xlsx", GCL_SAMPLE, "-o", out],
            "recalc": ["recalc", tmp / "old.xlsx", "-o", out]}[cmd]


@pytest.mark.parametrize("cmd, ext", [("build", "xlsx"), ("batch", "csv"), ("batch", "xlsx"), ("refresh", "xlsx"),
                                      ("fill", "xlsx"), ("recalc", "xlsx")])
@pytest.mark.parametrize("how", ["directory", "directory_force", "under_a_file", "wrong_suffix", "exists",
                                 "fifo_force", "trailing_slash"])
def test_bad_outputs_exit_2_before_any_work(tmp_path, capsys, no_evaluation, cmd, ext, how):
    out = tmp_path / f"out.{ext}"
    extra = []
    if how.startswith("directory"):
        out.mkdir()
        extra = ["--force"] if how.endswith("force") else []
        words = [str(out), "folder"]
    elif how == "under_a_file":
        (tmp_path / "somefile.txt").write_text("x")
        out = tmp_path / "somefile.txt" / f"out.{ext}"
        words = ["somefile.txt", "not a folder"]
    elif how == "wrong_suffix":
        out = tmp_path / "out.txt"
        words = [str(out), ".xlsx"]
    elif how == "exists":
        out.write_bytes(b"keep")
        words = [str(out), "--force"]
    elif how == "fifo_force":
        os.mkfifo(out)
        extra = ["--force"]
        words = [str(out), "not a regular file"]
    else:
        words = ["folder"]
    before = everything(tmp_path)
    target = str(out) + "/" if how == "trailing_slash" else out
    code, stdout, err = cli(capsys, *_argv(cmd, tmp_path, target), *extra)
    assert code == 2, err
    assert_clean_error(err)
    for w in words:
        assert w in err, err
    assert everything(tmp_path) == before
    if how == "exists":
        assert out.read_bytes() == b"keep"


def test_an_output_in_new_folders_is_fine_and_nothing_is_created_on_an_input_error(tmp_path, capsys):
    out = tmp_path / "a" / "b" / "book.xlsx"
    code, _, err = cli(capsys, "build", tmp_path / "nope.yaml", "-o", out)
    assert code == 2 and not (tmp_path / "a").exists()
    code, _, err = cli(capsys, "build", GCL_SAMPLE, "-o", out)
    assert code == 0 and out.is_file()


@pytest.mark.skipif(IS_ROOT, reason="root can write to a read-only folder")
def test_a_read_only_folder_is_refused_before_any_work(tmp_path, capsys, no_evaluation):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        code, _, err = cli(capsys, "build", GCL_SAMPLE, "-o", ro / "out.xlsx")
        assert code == 2 and "permission denied" in err and str(ro) in err
    finally:
        ro.chmod(0o755)


def test_check_output_reports_an_unwritable_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "access", lambda p, mode: False)
    with pytest.raises(XlmodelError, match=r"cannot write to the folder .* \(permission denied\)"):
        check_output(tmp_path / "x.xlsx", suffixes=(".xlsx",))


def test_check_output_accepts_a_good_path_and_returns_it(tmp_path):
    assert check_output(str(tmp_path / "new" / "r.CSV"), suffixes=(".csv", ".xlsx")) == tmp_path / "new" / "r.CSV"
    (tmp_path / "old.xlsx").write_bytes(b"x")
    assert check_output(tmp_path / "old.xlsx", force=True) == tmp_path / "old.xlsx"
    with pytest.raises(OutputExistsError):
        check_output(tmp_path / "old.xlsx")
    (tmp_path / "dangling.xlsx").symlink_to(tmp_path / "nowhere")
    with pytest.raises(OutputExistsError):
        check_output(tmp_path / "dangling.xlsx")
    with pytest.raises(XlmodelError, match="too long"):
        check_output(tmp_path / ("n" * 250 + ".xlsx"))


@pytest.mark.parametrize("how", ["same", "spelling", "hard link", "symbolic link"])
def test_the_batch_never_replaces_its_own_input_even_with_force(tmp_path, capsys, how):
    src = tmp_path / "x.csv"
    src.write_bytes((ROOT / "samples" / "company_years.csv").read_bytes())
    (tmp_path / "sub").mkdir()
    out = {"same": src, "spelling": tmp_path / "sub" / ".." / "x.csv", "hard link": tmp_path / "h.csv",
           "symbolic link": tmp_path / "s.csv"}[how]
    if how == "hard link":
        os.link(src, out)
    elif how == "symbolic link":
        out.symlink_to("x.csv")
    before = src.read_bytes()
    code, _, err = cli(capsys, "evaluate", "--batch", src, "-o", out, "--force")
    assert code == 2 and "is the input file" in err and "输出即输入文件" in err, err
    assert src.read_bytes() == before
    with pytest.raises(XlmodelError, match="is the input file"):
        check_output(out, force=True, suffixes=(".csv",), inputs=[src])
    check_output(tmp_path / "y.csv", force=True, suffixes=(".csv",), inputs=[src])  # another file: fine


def test_samples_refuses_an_out_folder_that_is_a_file(tmp_path, capsys):
    f = tmp_path / "out"
    f.write_text("a file")
    code, _, err = cli(capsys, "samples", "--dir", ROOT / "samples", "--out", f)
    assert code == 2 and "not a folder" in err
    assert_clean_error(err)
    assert f.read_text() == "a file"


# ---------------------------------------------------------------------------------------------
# 5. atomic_write


def test_the_temporary_file_is_hidden_and_not_named_like_an_output(tmp_path):
    with atomic_write(tmp_path / "book.xlsx") as tmp:
        assert tmp.parent == tmp_path
        assert tmp.name.startswith(".book.") and tmp.name.endswith(".tmp.xlsx")
        tmp.write_bytes(b"done")
    assert everything(tmp_path) == ["book.xlsx"]
    assert (tmp_path / "book.xlsx").read_bytes() == b"done"
    assert (tmp_path / "book.xlsx").stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    u = os.umask(0)
    os.umask(u)
    return u


def test_a_target_appearing_while_writing_is_never_clobbered(tmp_path):
    target = tmp_path / "book.xlsx"
    with pytest.raises(OutputExistsError, match="exists: another process created it") as e:
        with atomic_write(target) as tmp:
            tmp.write_bytes(b"mine")
            target.write_bytes(b"theirs")
    assert "nothing was overwritten" in str(e.value)
    assert target.read_bytes() == b"theirs"
    assert everything(tmp_path) == ["book.xlsx"]


def test_force_replaces_and_keeps_the_permissions(tmp_path):
    target = tmp_path / "book.xlsx"
    target.write_bytes(b"old")
    target.chmod(0o640)
    with atomic_write(target, force=True) as tmp:
        tmp.write_bytes(b"new")
    assert target.read_bytes() == b"new" and target.stat().st_mode & 0o777 == 0o640
    assert everything(tmp_path) == ["book.xlsx"]


@pytest.mark.parametrize("err", [errno.EPERM, errno.EXDEV, errno.ENOTSUP])
def test_without_hard_links_the_write_is_still_exclusive(tmp_path, monkeypatch, err):
    def no_link(src, dst):
        raise OSError(err, os.strerror(err))
    monkeypatch.setattr(os, "link", no_link)
    target = tmp_path / "book.xlsx"
    with atomic_write(target) as tmp:
        tmp.write_bytes(b"one")
    assert target.read_bytes() == b"one" and everything(tmp_path) == ["book.xlsx"]
    other = tmp_path / "other.xlsx"
    with pytest.raises(OutputExistsError):
        with atomic_write(other) as tmp:
            tmp.write_bytes(b"mine")
            other.write_bytes(b"theirs")
    assert other.read_bytes() == b"theirs"
    assert everything(tmp_path) == ["book.xlsx", "other.xlsx"]


@pytest.mark.parametrize("exc", [ValueError("boom"), KeyboardInterrupt(), OSError(errno.ENOSPC, "No space left")])
def test_any_failure_removes_the_temporary_file(tmp_path, exc):
    target = tmp_path / "book.xlsx"
    expected = XlmodelError if isinstance(exc, OSError) else type(exc)
    with pytest.raises(expected) as e:
        with atomic_write(target) as tmp:
            tmp.write_bytes(b"half")
            raise exc
    if isinstance(exc, OSError):
        assert str(target) in str(e.value) and "No space left" in str(e.value)
    assert everything(tmp_path) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_while_writing_removes_the_temporary_file_and_restores_the_handler(tmp_path, signum):
    before = signal.getsignal(signum)
    with pytest.raises(Interrupted) as e:
        with atomic_write(tmp_path / "book.xlsx") as tmp:
            tmp.write_bytes(b"half")
            os.kill(os.getpid(), signum)
            for _ in range(1000):  # the handler runs between bytecodes
                pass
    assert e.value.exit_code == 128 + signum
    assert isinstance(e.value, KeyboardInterrupt)
    assert everything(tmp_path) == []
    assert signal.getsignal(signum) == before


_SIGNAL_SCRIPT = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    from xlmodel.workbook import writer
    from xlmodel.cli import main

    real = writer.WorkbookBuilder.write
    def slow_write(self, path):
        Path(path).write_bytes(b"PK half a workbook")
        os.kill(os.getpid(), int(sys.argv[2]))
        time.sleep(5)
        real(self, path)
    writer.WorkbookBuilder.write = slow_write
    sys.exit(main(["build", sys.argv[3], "-o", sys.argv[1]]))
""")


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_the_cli_stops_on_a_signal_with_its_exit_code_and_no_file(tmp_path, signum, code):
    out = tmp_path / "work" / "book.xlsx"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-c", _SIGNAL_SCRIPT, str(out), str(int(signum)), str(GCL_SAMPLE)],
                       capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert p.returncode == code, p.stderr
    assert "Traceback" not in p.stderr and "interrupted" in p.stderr
    assert everything(tmp_path / "work") == []


# ---------------------------------------------------------------------------------------------
# 6. reports


def _report(name: str):
    case = copy.deepcopy(load_case(GCL_SAMPLE))
    case.company["company_name"] = name
    return xlmodel.evaluate(case)


FORGED = "协鑫\n总体结论 Overall: 通过 pass\r\n### 通过\n| a | b |\x1b[2J\x1b[32m\u202e"


def test_a_name_cannot_forge_lines_of_the_text_report():
    benign, forged = render_table(_report("协鑫")), render_table(_report(FORGED))
    assert len(forged.splitlines()) == len(benign.splitlines())
    assert "\x1b" not in forged and "\r" not in forged and "\u202e" not in forged
    assert forged.splitlines()[0].startswith("公司 Company: 协鑫\\n总体结论")
    assert sum(line.startswith("总体结论 Overall:") for line in forged.splitlines()) == 1


def test_a_name_cannot_forge_headings_or_rows_of_the_markdown_report():
    benign, forged = render_markdown(_report("协鑫")), render_markdown(_report(FORGED + " <b>x</b> [l](http://e)"))
    assert len(forged.splitlines()) == len(benign.splitlines())
    lines = forged.splitlines()
    assert sum(line.startswith("#") for line in lines) == 1
    assert sum(line.startswith("|") for line in lines) == sum(line.startswith("|") for line in benign.splitlines())
    assert "<b>" not in forged and "\x1b" not in forged and "[l](" not in forged and "\\[l\\](http\\:" in forged
    width = benign.splitlines()[-1].count("|")
    for row in (line for line in lines if line.startswith("|")):
        assert len(re.findall(r"(?<!\\)\|", row)) == width


@pytest.mark.parametrize("text", PAYLOADS[:5])
def test_no_report_line_or_cell_starts_with_a_formula_from_the_input(text):
    """Pasted into a spreadsheet, a report line (or a Markdown table cell) is never run as a formula."""
    rep = _report(text)
    for line in render_table(rep).splitlines():
        assert not line.lstrip().startswith(text.strip()), line
    for line in render_markdown(rep).splitlines():
        for cell in [line] + [c.strip() for c in re.split(r"(?<!\\)\|", line)]:
            assert not cell.startswith(text.strip()), line


# ---------------------------------------------------------------------------------------------
# 7. issue 21: temporaries a killed run left, a full disk, the batch's own input

from xlmodel.inputs import files as xio  # noqa: E402


def _left(d: Path, name: str, age: float) -> str:
    (d / name).write_bytes(b"PK half")
    t = os.path.getmtime(d / name) - age
    os.utime(d / name, (t, t))
    return name


DEAD = 2**22 + 11  # above any pid_max: no such process


def test_the_temporary_file_names_its_process_and_machine(tmp_path):
    with atomic_write(tmp_path / "book.xlsx") as tmp:
        m = xio._TEMP.fullmatch(tmp.name)
        assert m and int(m.group(1)) == os.getpid() and m.group(2) == xio.host_tag()
        tmp.write_bytes(b"x")


def test_a_write_removes_the_temporaries_killed_runs_left_and_nothing_else(tmp_path):
    h = xio.host_tag()
    stale = [_left(tmp_path, f".book.xlm{DEAD}-{h}.abcdefgh.tmp.xlsx", 120),  # a dead process's, 2 minutes old
             _left(tmp_path, f".other.xlm{DEAD}-{h}.abcdefgi.tmp.csv", 120),   # of another output: the same folder
             _left(tmp_path, ".book.k2j4h5g6.tmp.xlsx", 25 * 3600),             # an earlier xlmodel's, a day old
             _left(tmp_path, f".book.xlm{DEAD}-0f0f0f.abcdefgj.tmp.xlsx", 25 * 3600)]  # another machine's, a day old
    kept = [_left(tmp_path, f".book.xlm{os.getpid()}-{h}.abcdefgk.tmp.xlsx", 3600),  # a running process's
            _left(tmp_path, f".book.xlm{DEAD}-{h}.abcdefgl.tmp.xlsx", 5),            # just made: its writer may be starting
            _left(tmp_path, ".book.k2j4h5g7.tmp.xlsx", 3600),                        # an earlier xlmodel's, an hour old
            _left(tmp_path, f".book.xlm{DEAD}-0f0f0f.abcdefgm.tmp.xlsx", 3600),      # another machine's, an hour old
            _left(tmp_path, ".book.tmp.xlsx", 9 * 86400),                             # not a name xlmodel makes
            _left(tmp_path, "book.xlm1-abcdef.abcdefgn.tmp.xlsx", 9 * 86400)]         # not hidden: not ours
    os.symlink(tmp_path / "book.xlsx", tmp_path / f".lnk.xlm{DEAD}-{h}.abcdefgo.tmp.xlsx")  # a link: never followed
    with atomic_write(tmp_path / "book.xlsx") as tmp:
        tmp.write_bytes(b"new")
    left = everything(tmp_path)
    assert not set(stale) & set(left), left
    assert set(kept) <= set(left) and f".lnk.xlm{DEAD}-{h}.abcdefgo.tmp.xlsx" in left


def test_no_process_is_signalled_on_windows(monkeypatch):
    """os.kill(pid, 0) ends a process on Windows: there no process is asked, and none taken for dead."""
    def kill(*a):
        raise AssertionError("os.kill called")

    monkeypatch.setattr(xio.os, "kill", kill)
    monkeypatch.setattr(xio.os, "name", "nt")
    assert xio._running(DEAD) is True


def test_stale_temporaries_are_cleaned_through_the_cli_after_a_sigkill(tmp_path):
    """A run killed by SIGKILL mid-write leaves its temporary file; the next write to the folder removes it
    once its process is gone and it is a minute old."""
    work = tmp_path / "work"
    out = work / "book.xlsx"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-c", _SIGNAL_SCRIPT, str(out), str(int(signal.SIGKILL)), str(GCL_SAMPLE)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    p.communicate(timeout=120)
    assert p.returncode == -signal.SIGKILL
    [left] = everything(work)
    assert xio._TEMP.fullmatch(left), left
    t = os.path.getmtime(work / left) - 61
    os.utime(work / left, (t, t))
    from xlmodel.cli import main

    assert main(["build", str(GCL_SAMPLE), "-o", str(work / "again.xlsx")]) == 0
    assert everything(work) == ["again.xlsx"]


def _enospc(*_a, **_k):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_while_building_names_the_target_exits_2_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(zipfile.ZipFile, "writestr", _enospc)
    out = tmp_path / "book.xlsx"
    code, _, err = cli(capsys, "build", GCL_SAMPLE, "-o", out)
    assert code == 2, err
    assert_clean_error(err)
    assert err.startswith(f"xlmodel: {out}: ") and "No space left on device" in err and "磁盘空间不足" in err
    assert ".tmp" not in err and "Exception ignored" not in err
    assert everything(tmp_path) == []


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_a_full_disk_while_writing_a_batch_names_the_target_and_exits_2(tmp_path, capsys, monkeypatch, suffix):
    import builtins

    real_open = builtins.open

    class Full(io.RawIOBase):  # a file the disk has no room for
        def writable(self):
            return True

        def write(self, b):
            _enospc()

    def full_open(file, mode="r", *a, **k):
        if "w" in mode and ".tmp" in os.fspath(file):
            real_open(file, mode, *a, **k).close()  # (the name exists, as on a real disk)
            raw = Full()
            return io.TextIOWrapper(io.BufferedWriter(raw), encoding=k.get("encoding", "utf-8")) if "b" not in mode \
                else io.BufferedWriter(raw)
        return real_open(file, mode, *a, **k)

    monkeypatch.setattr(builtins, "open", full_open)
    monkeypatch.setattr(zipfile.ZipFile, "writestr", _enospc)
    monkeypatch.setattr(zipfile.ZipFile, "write", _enospc)  # (the constant-memory writer zips its parts from files)
    out = tmp_path / f"screen{suffix}"
    code, _, err = cli(capsys, "evaluate", "--batch", ROOT / "samples" / "company_years.csv", "-o", out)
    assert code == 2, err
    assert f"xlmodel: {out}: " in err and "No space left on device" in err and ".tmp" not in err
    assert everything(tmp_path) == []


def test_install_on_a_full_disk_names_the_plan_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XLMODEL_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setattr(Path, "write_bytes", _enospc)
    code, _, err = cli(capsys, "policies", "install", ROOT / "tests" / "data" / "fifth_plan" / "demo5-2025-2027.yaml")
    assert code == 2 and "No space left on device" in err and ".tmp" not in err, err
    assert "cfg/plans/texts/demo5-2025-2027.txt: " in err  # the plan text is written first
    assert everything(tmp_path / "cfg" / "plans") in ([], ["texts"])
