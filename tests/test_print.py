"""Issue 23.6 and 23.7: the sign-off print and the board-page picture.

The cover is the sign-off page a board secretary attaches to the board papers: company, plan, year, the
verdict, every rule with its status, actual, bound and clause, the minimum and the cap, the risk
warning. It prints (its print area, A4 portrait, fitted to the width with its text at 8 pt or more, the rules'
header repeated) on at most two pages for every bundled plan, filled (the samples) or empty (the templates) — proved by
LibreOffice's own PDF export, one launch for all; the rest of the model still prints."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

import board_page
from xlmodel.case import load_case
from xlmodel.evaluator import model_for
from xlmodel.plans.loading import load_policy
from xlmodel.workbook.layout import SHEETS
from xlmodel.workbook.writer import build_workbook

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("*-20*.yaml"))
PLANS = sorted(p.stem for p in (ROOT / "templates").glob("*.yaml"))


def test_the_cover_is_set_up_as_the_sign_off_print(tmp_path):
    path = build_workbook(tmp_path / "g.xlsx", case=load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml"))
    ws = openpyxl.load_workbook(path)[SHEETS["cover"]]
    ps = ws.page_setup
    assert ps.paperSize == 9 and ps.orientation == "portrait"  # A4
    assert ws.sheet_properties.pageSetUpPr.fitToPage and (ps.fitToWidth or 1) == 1 and ps.fitToHeight == 0  # the width (1 is omitted)
    assert ws.print_area and ws.print_title_rows
    head = int(ws.print_title_rows.split(":")[0].lstrip("$"))
    assert ws.cell(head, 2).value == "规则 Rule" and ws.cell(head, 4).value == "状态 Status"
    # the legend and the contents are below the print area, not printed
    last = int(ws.print_area.split(":")[-1].split("$")[-1])
    legend = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 2).value == "单元格样式 Cell styles")
    assert legend > last


def test_every_other_sheet_prints_the_cells_it_holds(tmp_path):
    """Each model sheet but the cover prints exactly its cells: its print area runs from A1 to the last
    row and column written (what Excel prints of a sheet without one; bounded, LibreOffice lays out its
    page breaks over these cells, not down to row 1,048,576)."""
    from openpyxl.utils import get_column_letter

    path = build_workbook(tmp_path / "f.xlsx", case=load_case(ROOT / "samples" / "far-east-2022-2024.yaml"))
    wb = openpyxl.load_workbook(path)
    for key, name in SHEETS.items():
        if key == "cover":
            continue
        ws = wb[name]
        assert ws.max_row > 5 and ws.max_column >= 2, name
        assert ws.print_area == f"'{name}'!$A$1:${get_column_letter(ws.max_column)}${ws.max_row}", (name, ws.print_area)


@pytest.mark.engines
def test_the_sign_off_prints_on_two_pages_or_fewer(libreoffice, tmp_path):
    from xlmodel.engines.recalc import export_pdf

    books = [build_workbook(tmp_path / f"{s.stem}.xlsx", case=load_case(s)) for s in SAMPLES]
    books += [build_workbook(tmp_path / f"{p}-empty.xlsx", policy=p) for p in PLANS]
    pdfs = export_pdf(books, tmp_path / "pdf")
    assert len(pdfs) == 2 * 3
    for book, pdf in zip(books, pdfs):
        sheets = board_page.page_sheets(pdf)
        cover = [i for i, s in enumerate(sheets) if s == SHEETS["cover"]]
        assert 1 <= len(cover) <= 2, (book.name, len(cover))
        assert cover == list(range(len(cover)))  # the first pages
        # the full model stays printable: every other sheet has its pages too
        assert set(SHEETS.values()) <= set(sheets), (book.name, set(SHEETS.values()) - set(sheets))
        text = "".join(board_page.page_text(pdf, cover).split())
        plan = book.stem.removesuffix("-empty")
        for label in ("总体结论", "最低现金分红", "利润分配上限", "评估年度", "规则检查结果", "董事会秘书", "条款"):
            assert label in text, (book.name, label)
        for rd in model_for(load_policy(plan)).rules:  # every rule on the page, its clause beside it
            assert rd.spec.title_zh[:8].replace(" ", "") in text, (book.name, rd.id)
        if not book.stem.endswith("-empty"):
            company = load_case(ROOT / "samples" / f"{book.stem}.yaml").company["company_name"]
            assert company in text, book.name


def test_the_board_page_pictures_are_current(tmp_path):
    now = board_page.fingerprint(board_page.build(tmp_path))
    for picture in (board_page.PICTURE, board_page.COVER_PICTURE):
        made_from = board_page.picture_fingerprint(picture)
        assert made_from == now, (f"{picture.name} shows an older 汇总 or 封面 (made from {made_from}, now {now}); "
                                  f"regenerate it: {board_page.COMMAND}")
