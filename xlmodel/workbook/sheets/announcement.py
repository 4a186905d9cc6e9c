"""公告 Announcement: the 利润分配方案公告's figures as formulas over 计算 (issue 50) — the proposal (每10股派发现金红利 on
the base without the buyback account's shares, its total, the year's total, the payout ratios, the least amount per
10 shares) and the exchange's table of 现金分红方案指标 (本年度 / 上年度 / 上上年度), every cell the evaluation year's
value of one calculation of the trees (the lines of :mod:`xlmodel.announce.rows`, the same ``xlmodel announce``
prints). Printed on one A4 page, portrait."""

from __future__ import annotations

from ...announce.rows import LINES, PROPOSAL, TRIGGERS, Line
from ..layout import HEADER_ROW

#: the columns: key, 项目, 本年度, 上年度, 上上年度, English (column-width units; A4 portrait holds 92)
COLS = [("键 Key", 12), ("项目", 34), ("本年度", 14), ("上年度", 14), ("上上年度", 14), ("Item", 1)]

def _st_id(b) -> str | None:
    return next((r.id for r in b.model.rules if r.spec.kind == "st_low_dividend"), None)


def write(b) -> None:
    ws = b.ws["announce"]
    b.header(ws, "公告", "Announcement", COLS)
    ws.write(2, 0, "利润分配方案公告所需数字：均取自计算表评估年度列（与 xlmodel announce 相同）。Figures of the profit distribution "
                   "announcement, each read from 计算's evaluation-year column.", b.st.note)
    row = HEADER_ROW + 1
    ws.write(row, 0, "本次利润分配方案  The proposal", b.st.section)
    row = _proposal(b, ws, row + 1)
    rid = _st_id(b)
    if rid is None:
        ws.write(row + 1, 0, "本规划不适用监管基线：无风险警示指标 The plan applies no regulatory baseline: no table", b.st.note)
        return
    ws.write(row + 1, 0, "现金分红方案指标  The exchange's table", b.st.section)
    row = _years(b, ws, rid, row + 2)
    for ln in LINES:
        row = _line(b, ws, rid, ln, row)
    _triggers(b, ws, row)


def _cell(b, ws, row: int, col: int, name: str, kind: str) -> None:
    """The evaluation year's value of calculation ``name`` (是/否 shown for a yes/no, never TRUE/FALSE)."""
    if kind == "yes_no":
        ws.write_formula(row, col, b.as_yes_no(b.at_evaluation_year(name)), b.st.calc["yes_no"],
                         b.yes_no_cached(b.value(name)))
    else:
        ws.write_formula(row, col, b.at_evaluation_year(name), b.st.calc[kind], b.scalar(name))


def _labels(b, ws, row: int, key: str, zh: str, en: str) -> None:
    ws.write(row, 0, key, b.st.key)
    ws.write(row, 1, zh, b.st.wrap)
    ws.write(row, 5, en, b.st.key)


def _proposal(b, ws, row: int) -> int:
    for name, zh, en, kind in PROPOSAL:
        _labels(b, ws, row, name, zh, en)
        _cell(b, ws, row, 2, name, kind)
        row += 1
    return row


def _years(b, ws, rid: str, row: int) -> int:
    _labels(b, ws, row, "columns", "会计年度", "Fiscal year")
    for k in range(3):
        _cell(b, ws, row, 2 + k, f"{rid}.y{k}.year", "year")
    return row + 1


_FMT = {"amount": "amount", "percent": "ratio", "yesno": "yes_no"}


def _line(b, ws, rid: str, ln: Line, row: int) -> int:
    zh = ln.zh.format(floor="金额标准（右列，元）") + ("（创业板、科创板）" if ln.growth_only else "")
    _labels(b, ws, row, ln.key, zh, ln.en)
    for k, calc in enumerate(ln.calcs):
        _cell(b, ws, row, 2 + k, f"{rid}.{calc}", _FMT[ln.kind])
    if ln.key == "below_floor":  # the board's floor beside its question
        _cell(b, ws, row, 3, f"{rid}.floor", "amount")
    return row + 1


def _triggers(b, ws, row: int) -> None:
    _labels(b, ws, row, "triggers", "是否触及可能被实施其他风险警示的情形（主板第9.8.1条、创业板第9.4条、科创板第12.9.1条"
                                    "第一款第（八）项）", "Could the plan trigger the other-risk warning")
    ws.write_formula(row, 2, b.at_evaluation_year(TRIGGERS), b.st.calc["gen"], b.scalar(TRIGGERS))
