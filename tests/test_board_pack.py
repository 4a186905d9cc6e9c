"""Issue 52.1–3: the printed pack a board signs — the working sheets one page wide, the dividend path on the
board's pages (and in Word), a signable cover.

The GCL sample (samples/gcl-energy-2022-2024.yaml, evaluation year 2023) worked by hand:

* the minimum of 2023 is the plan's 10% of the year's distributable profit (三、(二)、2、(1)):
  855,092,128.94 × 10% = 85,509,212.894 → 85,509,212.89 元; the three-year rule asks less (its shortfall 0);
* the law's cap is the lower of the parent's and the group's retained earnings of 2023:
  min(1,095,152,827.27, 1,569,732,042.75) = 1,095,152,827.27 元; the minimum is below it: 可行;
* the case proposes 1.3 元 per 10 shares on 1,581,450,548 shares = 205,588,571.24 元 for 2023: the path pays
  that proposal (51.2), above the minimum and below the cap: 可行;
* 2024 has no figures: its minimum is undetermined (缺少输入), no binding rule shown;
* paying 80,000,000.00 元 in 2023 instead fails the 10% rule by 85,509,212.89 − 80,000,000.00 = 5,509,212.89 元
  (the three years then pay 324,664,922.80 + 306,781,780.12 + 80,000,000.00 = 711,446,702.92 元, still above
  the rolling rule's 237,053,726.78: its shortfall stays 0), the cover's cash shortfall beside 不通过.

The page counts are LibreOffice's own PDF export (tests/board_page.py tells a page's sheet by its footer).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import openpyxl
import pytest

import board_page
from xlmodel.case import inputs_digest, load_case
from xlmodel.planner import plan
from xlmodel.workbook.layout import SHEETS
from xlmodel.workbook.writer import build_workbook

ROOT = Path(__file__).resolve().parents[1]
GCL = ROOT / "samples" / "gcl-energy-2022-2024.yaml"
MINIMUM_2023 = 85_509_212.89  # 855,092,128.94 × 10%, to the fen
CAP_2023 = 1_095_152_827.27  # the parent's retained earnings, the lower of the two
BINDING = "当年现金分红不低于当年可分配利润的10%（三、(二)、2、(1)）"
PROPOSED_2023 = 205_588_571.24  # 1,581,450,548 shares × 1.3 元 / 10


@pytest.fixture(scope="module")
def gcl(tmp_path_factory):
    path = build_workbook(tmp_path_factory.mktemp("pack") / "gcl.xlsx", case=load_case(GCL))
    return path, openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)


def _rows(ws) -> dict[str, int]:
    """Column A's keys (and labels) -> their row."""
    return {c.value: c.row for c in ws["A"] if isinstance(c.value, str)}


def _label_row(ws, text: str, col: int = 2) -> int:
    return next(r for r in range(1, ws.max_row + 1) if ws.cell(r, col).value == text)


# -- 52.1 printing ---------------------------------------------------------------------------------------

def test_the_working_sheets_print_one_page_wide_and_every_sheet_numbers_its_own_pages(gcl):
    _, wb, _ = gcl
    for key in ("calc", "planning"):
        ws = wb[SHEETS[key]]
        assert ws.sheet_properties.pageSetUpPr.fitToPage and (ws.page_setup.fitToWidth or 1) == 1, key
        assert ws.page_setup.fitToHeight == 0 and not ws.print_title_cols, key  # one band: no repeated label columns
        assert ws.column_dimensions["A"].width < 10, key  # the id column narrow
    for ws in wb.worksheets:
        assert ws.page_setup.useFirstPageNumber and (ws.page_setup.firstPageNumber or 1) == 1, ws.title
        assert "&P" in ws.oddFooter.right.text and "&N" not in str(ws.oddFooter.right.text), ws.title


# -- 52.2 the path on the board's page ---------------------------------------------------------------------

def test_the_path_reaches_the_board_page(gcl):
    """汇总 shows each year's minimum, the rule that sets it and its clause, the amount proposed and paid, the
    cap and whether the year is feasible — the numbers worked by hand (module doc), as ``xlmodel plan`` finds them."""
    _, wb, values = gcl
    ws, v = wb[SHEETS["summary"]], values[SHEETS["summary"]]
    rows = _rows(ws)
    head = rows["Minimum cash dividend (元)"] - 1  # the path's year header (the last such line of column A)
    cols = {v.cell(head, c).value: c for c in range(3, ws.max_column + 1)}
    c23, c24, c22 = cols[2023], cols[2024], cols[2022]

    def at(key, col):
        return v.cell(rows[key], col).value
    assert at("Minimum cash dividend (元)", c23) == MINIMUM_2023
    assert at("Binding rule (clause)", c23) == BINDING
    assert at("Proposed cash dividend (元)", c23) == PROPOSED_2023  # the case's own proposal (输入)
    assert at("The path's cash dividend (元)", c23) == PROPOSED_2023
    assert at("Maximum distribution (元)", c23) == CAP_2023
    assert at("Feasibility", c23) == "可行"
    assert at("Feasibility", c24) == "缺少输入" and at("Binding rule (clause)", c24) in (None, "")
    assert at("The path's cash dividend (元)", c22) in (None, "")  # before the evaluation year: not planned
    # the same as the planner's (the CLI's) path
    (y23, _y24) = plan(load_case(GCL))
    assert (y23.min_cash_dividend, y23.binding_title_zh, y23.binding_clause) == (MINIMUM_2023, BINDING.split("（")[0],
                                                                                 "三、(二)、2、(1)")
    # 测算 carries the binding rule on a row of its own, read through by 汇总
    plan_ws = values[SHEETS["planning"]]
    col = next(c.column for c in plan_ws[5] if c.value == 2023)  # 测算's year header (row 5)
    assert plan_ws.cell(_rows(wb[SHEETS["planning"]])["plan_binding"], col).value == BINDING


def test_the_summary_states_one_unit(gcl):
    _, wb, _ = gcl
    ws = wb[SHEETS["summary"]]
    labels = [c.value for row in ws.iter_rows(min_col=1, max_col=2) for c in row if isinstance(c.value, str)]
    # every amount's label in 元 (a rule's own words may name 万元: 5,000万元)
    assert not [x for x in labels if "（万元）" in x or "（亿元）" in x or "10k" in x or "100m" in x]
    assert "金额单位：元  Amounts in 元" in [c.value for row in ws.iter_rows(max_row=3) for c in row]


def test_plan_writes_the_path_as_a_word_document(tmp_path, capsys):
    import docx

    from xlmodel.cli import main

    out = tmp_path / "path.docx"
    assert main(["plan", str(GCL), "-o", str(out)]) == 1  # 2024 is undetermined: exit 1, as without -o
    doc = docx.Document(str(out))
    table = [[c.text for c in r.cells] for r in doc.tables[0].rows]
    assert table[1] == ["2023", "85,509,212.89", BINDING, "205,588,571.24", "205,588,571.24", "1,095,152,827.27", "可行"]
    assert table[2][0] == "2024" and table[2][-1] == "缺少输入"
    text = "\n".join(p.text for p in doc.paragraphs)
    assert "金额单位：元" in text and "2026-12-01" in text and inputs_digest(load_case(GCL)) in text
    # never over an existing file without --force; a suffix other than .docx refused, naming the file
    assert main(["plan", str(GCL), "-o", str(out)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["plan", str(GCL), "-o", str(tmp_path / "path.pdf")]) == 2
    assert ".docx" in capsys.readouterr().err and not (tmp_path / "path.pdf").exists()
    assert main(["plan", str(GCL), "-o", str(out), "--force"]) == 1


# -- 52.3 the cover ----------------------------------------------------------------------------------------

def test_the_cover_is_signable(gcl):
    path, wb, values = gcl
    ws, v = wb[SHEETS["cover"]], values[SHEETS["cover"]]
    verdict = ws["C4"]
    assert v["C4"].value == "通过" and verdict.font.sz >= 18 and verdict.font.b  # large, at the top
    assert v["F4"].value is None  # no shortfall beside a pass
    texts = {c.coordinate: c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)}
    assert any(t.startswith("签字确认") for t in texts.values())
    last = int(ws.print_area.split("$")[-1])
    roles = [ws.cell(r, 2).value for r in range(1, last + 1)
             if ws.cell(r, 2).value in ("编制 Prepared by", "复核 Reviewed by", "财务总监 Chief financial officer",
                                        "董事会秘书 Board secretary")]
    assert roles == ["编制 Prepared by", "复核 Reviewed by", "财务总监 Chief financial officer", "董事会秘书 Board secretary"]
    assert all(ws.cell(_label_row(ws, "职责 Role"), c).value for c in (2, 3, 5, 7))  # name, signature, date columns

    def beside(label):
        return ws.cell(_label_row(ws, label), 3).value
    assert beside("文件 File") == path.name
    assert beside("生成日期 Generated on") == "2026-12-01"  # SOURCE_DATE_EPOCH (tests/conftest.py)
    assert beside("数据来源 Data source") == GCL.name
    assert re.search(r"SHA-256 [0-9a-f]{16}", beside("输入摘要 Input digest"))
    assert inputs_digest(load_case(GCL)) in beside("输入摘要 Input digest")
    assert "金额单位：元" in beside("金额单位 Unit")
    # one unit: the minimum and the cap in 元, as 汇总 names them
    assert v.cell(_label_row(ws, "最低现金分红（元）Minimum cash (元)"), 3).value == MINIMUM_2023
    assert v.cell(_label_row(ws, "利润分配上限（元）Maximum distribution (元)"), 3).value == CAP_2023
    head = int(ws.print_title_rows.split(":")[0].lstrip("$"))
    assert ws.row_dimensions[head].height >= 30  # the header's two lines shown whole


def test_a_rule_that_does_not_apply_shows_no_figures_on_the_cover(gcl):
    _, wb, values = gcl
    ws, v = wb[SHEETS["cover"]], values[SHEETS["cover"]]
    head = int(ws.print_title_rows.split(":")[0].lstrip("$"))
    na = [r for r in range(head + 1, ws.max_row + 1) if v.cell(r, 4).value == "不适用"]
    assert na  # the sample has some (the interim rules: no interim dividend)
    for r in na:
        assert v.cell(r, 5).value is None and v.cell(r, 7).value is None, r
        assert "lbl_not_applicable" in ws.cell(r, 5).value


def test_the_digest_covers_the_inputs_not_the_notes():
    case = load_case(GCL)
    years = {y: dict(v) for y, v in case.years.items()}
    years[2023]["cash_dividend"] = 80_000_000.0
    assert inputs_digest(dataclasses.replace(case, years=years)) != inputs_digest(case)
    assert inputs_digest(dataclasses.replace(case, notes={})) == inputs_digest(case)
    assert inputs_digest(dataclasses.replace(case, source="elsewhere.yaml")) == inputs_digest(case)


def test_a_failing_cover_shows_the_cash_shortfall_beside_the_verdict(tmp_path):
    case = load_case(GCL)
    years = {y: dict(v) for y, v in case.years.items()}
    years[2023]["cash_dividend"] = 80_000_000.0
    path = build_workbook(tmp_path / "fail.xlsx", case=dataclasses.replace(case, years=years))
    v = openpyxl.load_workbook(path, data_only=True)[SHEETS["cover"]]
    assert v["C4"].value == "不通过"
    assert v["F4"].value == pytest.approx(5_509_212.89, abs=0.001)  # 85,509,212.89 − 80,000,000.00


# -- LibreOffice's print ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def printed(gcl, libreoffice, tmp_path_factory):
    from xlmodel.engines.recalc import export_pdf

    (pdf,) = export_pdf([gcl[0]], tmp_path_factory.mktemp("pdf"))
    return pdf, board_page.page_sheets(pdf)


def _pages(printed, key: str) -> list[int]:
    pdf, sheets = printed
    return [i for i, s in enumerate(sheets) if s == SHEETS[key]]


def _joined(pdf, pages) -> str:
    return "".join(board_page.page_text(pdf, pages).split())


@pytest.mark.engines
def test_each_working_sheet_prints_as_one_band(printed):
    """Every page of 计算 and 测算 shows every year of the header beside its labels (one band: never a page of
    labels without figures, the evaluation year beside the year before); pages numbered per sheet."""
    pdf, sheets = printed
    assert "" not in sheets  # every page tells its sheet
    for key in ("calc", "planning"):
        pages = _pages(printed, key)
        for n, i in enumerate(pages, 1):
            text = board_page.page_text(pdf, [i])
            assert all(str(y) in text for y in range(2020, 2025)), (key, n)
            assert re.search(rf"第\s*{n}\s*页", text), (key, n)  # numbered from 1 on each sheet
    # measured on this sample (issue 52: 计算 36 and 测算 48 pages before, three bands each). Every row's Chinese
    # and English labels with its unit (52.5), the per-interim rows (47.2) and the announcement's (50) made them
    # longer again (计算 51, 测算 60): a regression guard at today's count, not the goal (about 40 pages for the whole pack)
    assert len(_pages(printed, "calc")) <= 52 and len(_pages(printed, "planning")) <= 61
    assert len(_pages(printed, "cover")) <= 2


@pytest.mark.engines
def test_the_charts_print_whole(printed):
    """Each chart's title and its legend on one page (a chart cut by a page break has them on two)."""
    pdf, _ = printed
    for key, title, legend in (("summary", "现金分红与最低要求", "最低要求Minimum"),
                               ("planning", "分红路径与预测净利润", "本路径现金分红Path")):
        pages = [i for i in _pages(printed, key) if title in _joined(pdf, [i])]
        assert len(pages) == 1, key
        assert legend in _joined(pdf, pages), key


@pytest.mark.engines
def test_the_board_pages_print_the_path_and_the_signatures(printed):
    pdf, _ = printed
    summary = _pages(printed, "summary")[:2]  # the board's two pages of 汇总
    text = _joined(pdf, summary)
    for s in ("分红路径", BINDING, "85,509,212.89", "1,095,152,827.27", "可行", "金额单位：元"):
        assert s in text, s
    cover = _joined(pdf, _pages(printed, "cover"))
    for s in ("编制", "复核", "财务总监", "董事会秘书", "签字确认", "2026-12-01", "SHA-256", "gcl.xlsx", "金额单位：元"):
        assert s in cover, s
    assert "（万元）" not in cover and "（亿元）" not in cover  # a rule's own words may name 万元 (5,000万元)
