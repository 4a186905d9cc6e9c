"""Issue 23.5: the input sheet asks only for what the plan reads.

Each input row carries a prompt (data validation's input message) saying what the figure is and where
the annual report has it, within Excel's limits (title ≤ 32 characters, text ≤ 255: XlsxWriter drops a
longer one with a warning); the inputs a plan and the regulatory baseline never read are grey and
grouped, not an input's yellow, and still read back."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
import yaml

from xlmodel.case import load_case
from xlmodel.fields import FIELDS, SOURCES
from xlmodel.workbook.layout import SHEETS
from xlmodel.workbook.reader import read_workbook
from xlmodel.workbook.writer import PROMPT_TEXT, PROMPT_TITLE, UNREAD_NOTE, build_workbook

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("*-20*.yaml"))
YELLOW = "FFF2CC"


def _inputs(path: Path):
    wb = openpyxl.load_workbook(path)
    ws = wb[SHEETS["inputs"]]
    prompts = {}
    for dv in ws.data_validations.dataValidation:
        for rg in dv.sqref.ranges:
            for row in ws[rg.coord] if ":" in rg.coord else [[ws[rg.coord]]]:
                for cell in row:
                    prompts[cell.coordinate] = (dv.promptTitle, dv.prompt, dv.showInputMessage)
    rows = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value}
    return ws, rows, prompts


def test_the_prompt_table_fits_excels_limits():
    assert set(SOURCES) == set(FIELDS)
    for fid, text in SOURCES.items():
        assert len(FIELDS[fid].zh) <= PROMPT_TITLE, fid  # the title is the field's label, never cut
        assert len(UNREAD_NOTE + text) <= PROMPT_TEXT, (fid, len(UNREAD_NOTE + text))
        assert text[0] > "\u2e80", fid  # Chinese first


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = {}
    for s in SAMPLES:
        path = tmp_path_factory.mktemp("prompts") / f"{s.stem}.xlsx"
        out[s.stem] = build_workbook(path, case=load_case(s))
    return out


@pytest.mark.parametrize("sample", [s.stem for s in SAMPLES])
def test_every_input_cell_has_its_prompt(built, sample):
    ws, rows, prompts = _inputs(built[sample])
    first = 5  # column E: the first year, or the company's value
    for fid, f in FIELDS.items():
        cell = ws.cell(rows[fid], first).coordinate
        title, text, shown = prompts[cell]
        assert shown and title == f.zh and SOURCES[fid] in text, (fid, title, text)
        assert len(title) <= PROMPT_TITLE and len(text) <= PROMPT_TEXT
    attest = [k for k in rows if isinstance(k, str) and ws.cell(rows[k], 4).value == "是/否" and k not in FIELDS]
    assert attest, "the samples' plans have attestations"
    for rid in attest:
        title, text, _ = prompts[ws.cell(rows[rid], first).coordinate]
        assert title == "声明确认 Attestation" and text.startswith("请确认"), (rid, text)


def test_where_the_annual_report_has_it():
    # the examples of the issue, in the words of the statements
    assert "合并资产负债表「未分配利润」" in SOURCES["retained_earnings_consolidated"]
    assert "母公司资产负债表「未分配利润」" in SOURCES["retained_earnings_parent"]
    assert "合并利润表「归属于母公司所有者的净利润」" in SOURCES["net_profit_attributable"]
    assert "现金流量表「经营活动产生的现金流量净额」" in SOURCES["operating_cash_flow"]


def test_retained_earnings_are_read_after_any_cover_of_losses_by_reserves():
    """Issue 47.4: Company Law art. 214 lets reserves, capital reserve last, cover losses; MoF 财资〔2025〕101号 does it
    on the company's own (parent) statements and only up to zero. Both prompts say the balance is after it."""
    for fid in ("retained_earnings_consolidated", "retained_earnings_parent"):
        assert "以公积金（含资本公积）弥补亏损后的余额" in SOURCES[fid] and "二百一十四条" in SOURCES[fid], fid
        assert "after any cover of losses by reserves" in SOURCES[fid] and "art. 214" in SOURCES[fid], fid
    assert "财资〔2025〕101号" in SOURCES["retained_earnings_parent"] and "补至零为限" in SOURCES["retained_earnings_parent"]


def _fill(ws, row: int) -> str:
    return ws.cell(row, 5).fill.fgColor.rgb or ""


def test_inputs_the_plan_never_reads_are_grey_and_grouped(built):
    # Far East: the board determines a major outlay (三、(三): 重大投资计划或重大现金支出由董事会认定), so the
    # 12-month figure is not read; GCL computes it from the planned outlay against its net assets and assets.
    # No bundled plan tests the registered capital (a gate some plans word on it) or IFRS profit (A+H only).
    for sample, asked, grey in (("far-east-2022-2024", "major_outlay_planned", "planned_major_outlay"),
                                ("gcl-energy-2022-2024", "planned_major_outlay", "major_outlay_planned")):
        ws, rows, prompts = _inputs(built[sample])
        for fid in (asked, "cash_dividend", "net_profit_attributable", "retained_earnings_parent"):
            assert _fill(ws, rows[fid]).endswith(YELLOW), (sample, fid)
            assert not ws.row_dimensions[rows[fid]].outlineLevel
            assert not prompts[ws.cell(rows[fid], 5).coordinate][1].startswith(UNREAD_NOTE)
        for fid in (grey, "registered_capital", "net_profit_attributable_ifrs"):
            assert not _fill(ws, rows[fid]).endswith(YELLOW), (sample, fid)
            assert ws.row_dimensions[rows[fid]].outlineLevel == 1, (sample, fid)
            assert ws.cell(rows[fid], 5).protection.locked is False  # still an input cell: a value there is read
            assert prompts[ws.cell(rows[fid], 5).coordinate][1].startswith(UNREAD_NOTE)


def test_a_value_in_a_grey_input_is_still_read(built):
    # GCL's sample gives 经营活动产生的现金流量净额 for no GCL rule: the workbook reads it back as given
    case = load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml")
    read = read_workbook(built["gcl-energy-2022-2024"])
    for y in case.years:
        assert read.case.value("total_assets", y) == case.value("total_assets", y)
        assert read.case.value("share_count", y) == case.value("share_count", y)


def test_a_plans_long_attestation_title_is_cut_to_excels_limit(tmp_path):
    # hostile plan text: an attestation titled past 255 characters, with formula text in it; the prompt is
    # cut (XlsxWriter would drop it, and Excel refuse the file's validation), the title stays text
    src = yaml.safe_load((ROOT / "templates" / "houpu-2024-2026.yaml").read_text(encoding="utf-8"))
    rule = next(r for r in src["rules"] if r["kind"] == "attestation" and "field" not in r)
    rule["title_zh"] = "=HYPERLINK(\"http://x\")" + "董事会确认" * 80
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "houpu-2024-2026.txt").write_text(
        (ROOT / "templates" / "texts" / "houpu-2024-2026.txt").read_text(encoding="utf-8"), encoding="utf-8")
    plan = tmp_path / "houpu-2024-2026.yaml"
    plan.write_text(yaml.safe_dump(src, allow_unicode=True, sort_keys=False), encoding="utf-8")
    path = build_workbook(tmp_path / "h.xlsx", policy=str(plan))
    ws, rows, prompts = _inputs(path)
    title, text, _ = prompts[ws.cell(rows[rule["id"]], 5).coordinate]
    assert title == "声明确认 Attestation" and len(text) == PROMPT_TEXT and text.endswith("…")
    assert text.startswith("请确认（是/否）：=HYPERLINK")
    # the sign-off page (the cover) shows the same title as text, never as a formula (issue 23.6)
    cover = openpyxl.load_workbook(path)[SHEETS["cover"]]
    held = [c for row in cover.iter_rows() for c in row if isinstance(c.value, str) and "HYPERLINK" in c.value]
    assert held and all(c.data_type == "s" and c.value == rule["title_zh"] for c in held), held
