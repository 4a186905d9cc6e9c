"""The announcement rendered: Markdown to paste, the figures as JSON, a Word document (python-docx).

The Word document follows an exchange announcement's look: the title in 宋体 三号 bold, the body in
仿宋 小四, the table as a Word table in 宋体 五号 (an exchange's formats print 宋体/仿宋 at these sizes).
"""

from __future__ import annotations

from pathlib import Path

from ..fields import BOARDS
from ..inputs.sanitize import md_text
from . import sentences as sx
from .figures import Figures
from .table import Row, article_phrase, board_of, rows, triggers


def cell(row: Row, v) -> str:
    if row.kind == "amount":
        return sx.money(v)
    if row.kind == "percent":
        return "—" if v is None else f"{v:.2f}"
    if row.kind == "yesno":
        return "无法判断" if v is None else (v if isinstance(v, str) else ("是" if v else "否"))
    return "—" if v is None else str(v)


def title(f: Figures) -> str:
    name = f.company.get("company_name") or ""
    return f"{name}关于{f.year}年度利润分配方案的公告"


def sections(f: Figures) -> list[tuple[str, list[str]]]:
    """(heading, paragraphs) in the announcement's order, the table apart."""
    warn = [m for m in (sx.mismatch(f),) if m]
    out = [("一、利润分配方案的具体内容", warn + sx.proposal(f)),
           ("二、是否可能触及其他风险警示情形", [sx.risk(f)])]
    extra = [s for s in (sx.minimum(f),) if s] + sx.duties(f) + sx.plan(f)
    out.append(("三、测算与提示（供董秘办核对，不直接刊登）", extra))
    return out


def _head_cells(f: Figures) -> list[str]:
    return ["项目", f"本年度（{f.years[0]}）", f"上年度（{f.years[1]}）", f"上上年度（{f.years[2]}）"]


def table_cells(f: Figures) -> list[list[str]]:
    """The table as text cells: a three-year row has its three values; a one-value row spans the years."""
    out = []
    for r in rows(f):
        vals = [cell(r, v) for v in r.values]
        out.append([r.zh] + (vals if len(vals) == 3 else [vals[0], "", ""]))
    return out


def markdown(f: Figures) -> str:
    lines = [f"# {md_text(title(f))}", ""]
    code = f.company.get("stock_code")
    if code:
        lines += [f"证券代码：{md_text(str(code))}　板块：{BOARDS.get(f.board or '', '—')}", ""]
    secs = sections(f)
    for heading, paras in secs[:1]:
        lines += [f"## {heading}", ""] + [md_text(p) + "\n" for p in paras]
    lines += [f"## {secs[1][0]}", "", md_text(secs[1][1][0]), ""]
    cells = table_cells(f)
    if cells:
        lines += ["现金分红方案指标：", "", "| " + " | ".join(_head_cells(f)) + " |", "|---|---:|---:|---:|"]
        lines += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in cells]
        lines.append("")
        if not all(f.counted):
            lines += ["注：公司上市未满三个完整会计年度，累计数仅计上市后的完整会计年度。", ""]
    for heading, paras in secs[2:]:
        lines += [f"## {heading}", ""] + [md_text(p) + "\n" for p in paras]
    return "\n".join(lines).rstrip() + "\n"


def to_json(f: Figures) -> dict:
    """The figures under the names of tests/data/announcements (null where not computed)."""
    t = {r.key: (list(r.values) if len(r.values) == 3 else r.values[0]) for r in rows(f)}
    for k in ("below_30_percent", "below_floor"):
        if k in t and isinstance(t[k], bool):
            t[k] = "是" if t[k] else "否"
    rd = {k: t.pop(k) for k in ("rd_expense", "revenue", "rd_cumulative", "cumulative_revenue", "rd_ratio_percent")
          if k in t}
    if rd:
        t["rd"] = {"expense": rd["rd_expense"], "cumulative": rd["rd_cumulative"], "revenue": rd["revenue"],
                   "cumulative_revenue": rd["cumulative_revenue"], "ratio_percent": rd["rd_ratio_percent"]}
    yes, why_zh, why_en = triggers(f)
    t.update(columns=list(f.years), counted=list(f.counted), article=article_phrase(f) or None,
             triggers_reason_zh=why_zh or None, triggers_reason_en=why_en or None)
    p = f.proposal
    proposal = {"cash_per_10_shares": p.get("cash_per_10_shares"), "share_base": p.get("base_share_count"),
                "buyback_account_shares": p.get("buyback_account_shares"), "base": p.get("base"),
                "total_cash": p.get("total"), "keeps": p.get("base_change_keeps"),
                "interim_cash_dividend": p.get("interim_cash_dividend"), "year_total": p.get("year_total"),
                "payout_percent": f.ratio_percent(p.get("payout")),
                "cash_with_buybacks": p.get("cash_with_buybacks"),
                "payout_with_buybacks_percent": f.ratio_percent(p.get("payout_with_buybacks")),
                "required": p.get("required"), "min_cash_per_10_shares": p.get("min_per_10"),
                "matches_cash_dividend": p.get("matches")}
    return {"company": f.company.get("company_name"), "stock_code": f.company.get("stock_code"), "board": f.board,
            "fiscal_year": f.year, "policy": None if f.screen else f.report.policy, "plan_reviewed": f.report.plan_reviewed,
            "st_status": f.st.get("status"), "cash_needed_to_avoid_st": f.report.cash_needed_to_avoid_st,
            "proposal": proposal, "table": t if board_of(f) else None,
            "sentences": {h: ps for h, ps in sections(f)}}


def write_docx(f: Figures, out: Path) -> None:
    """The announcement as a Word document at ``out`` (the caller checks the path and ``--force``)."""
    from docx import Document

    doc = Document()
    _heading(doc, title(f))
    secs = sections(f)
    for heading, paras in secs[:2]:
        _para(doc, heading, bold=True)
        for p in paras:
            _para(doc, p)
    cells = table_cells(f)
    if cells:
        _para(doc, "现金分红方案指标：")
        _table(doc, [_head_cells(f)] + cells)
    for heading, paras in secs[2:]:
        _para(doc, heading, bold=True)
        for p in paras:
            _para(doc, p)
    doc.save(str(out))


def _font(run, name: str, size: float, bold: bool = False) -> None:
    from docx.oxml.ns import qn
    from docx.shared import Pt

    run.font.name = name
    run.font.size = Pt(size)
    run.font.bold = bold
    run._element.get_or_add_rPr().get_or_add_rFonts().set(qn("w:eastAsia"), name)


def _heading(doc, text: str) -> None:
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    p = doc.add_paragraph()
    p.alignment = WD_ALIGN_PARAGRAPH.CENTER
    _font(p.add_run(text), "宋体", 16, bold=True)  # 三号


def _para(doc, text: str, bold: bool = False) -> None:
    from docx.shared import Pt

    p = doc.add_paragraph()
    p.paragraph_format.first_line_indent = Pt(24)
    _font(p.add_run(text), "仿宋", 12, bold=bold)  # 小四


def _table(doc, cells: list[list[str]]) -> None:
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    t = doc.add_table(rows=len(cells), cols=4)
    t.style = "Table Grid"
    for i, row in enumerate(cells):
        spans = len(row) == 4 and i > 0 and row[2] == "" and row[3] == ""
        if spans:
            t.cell(i, 1).merge(t.cell(i, 3))
        for j, text in enumerate(row[:2] if spans else row):
            c = t.cell(i, j)
            c.text = ""
            para = c.paragraphs[0]
            if j:
                para.alignment = WD_ALIGN_PARAGRAPH.RIGHT
            _font(para.add_run(text), "宋体", 10.5, bold=i == 0)  # 五号
