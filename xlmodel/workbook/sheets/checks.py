"""检查 Checks: one row per rule — the evaluation year's actual, bound, margin, shortfall and status, read
from 计算 — then its status in each evaluated year (names chk_<rule>)."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from ...rules import catalogue as cat
from ...outputs import PART
from ..builder import _c
from ..layout import CHECK_COL_INDEX, CHECK_STATUS_COL, HEADER_ROW, SHEETS, q
from ..styles import fmt_key, row_height


def write(b) -> None:
    ws, L, st = b.ws["checks"], b.L, b.st
    years = [(str(y), 10) for y in L.eval_years]
    h = {k: p.heading for k, p in PART.items()}  # a rule's parts as the table of outputs heads them
    b.header(ws, "检查", "Checks (one row per rule: the evaluation year, then each year's status)",
              [(h["rule"], 30), (h["clause"], 16), ("描述", 46), ("Description", 46),
               (h["actual"], 18), (f"{PART['bound'].zh}类型 {PART['bound'].en}", 10), (h["bound"], 18), (h["margin"], 16),
               (h["shortfall"], 16), (h["status"], 12), ("单位 Unit", 8), ("", 2)] + years)
    ws.write(3, 0, "D–J 列为评估年度（输入表 E3）；右侧为各年度状态。条件：满足/不满足/缺少输入；规划要求与监管底线：通过/不通过/警告/不适用/缺少输入。"
                   "界限：下限、上限或门槛；余量为界限内的空间。Columns D–J: the evaluation year (输入!E3); to the right, each "
                   "year's status. Conditions: met/not met/missing input; obligations: pass/fail/warning/n.a./missing input.", st.note)
    for c, y in zip(year_cols(b), L.eval_years):  # the years as numbers (the header is text otherwise)
        ws.write_formula(HEADER_ROW, c, f"={q(SHEETS['calc'])}!{xl_rowcol_to_cell(HEADER_ROW, L.col_of(y), row_abs=True)}",
                         st.year, y)
    titles = {"condition": "现金分红条件  Cash dividend conditions", "requirement": "规划要求  Plan requirements",
              "regulatory": "监管底线（适用于所有公司）  Regulatory baseline (every company)"}
    for role, ids in L.rule_groups().items():
        ws.write(L.check_rows[ids[0]] - 1, 0, titles[role], st.section)
    for rd in b.model.rules:
        _check_row(b, ws, rd)
    _status_colours(b, ws)
    ws.freeze_panes(HEADER_ROW + 1, 2)
    ws.repeat_rows(HEADER_ROW)


def _status_colours(b, ws) -> None:
    """Each status its colour (the evaluation year's and each year's), the evaluation year's column marked."""
    rows = sorted(b.L.check_rows.values())
    cols = year_cols(b)
    for code, fmt in b.st.status.items():
        for c0, c1 in ((CHECK_COL_INDEX["status"], CHECK_COL_INDEX["status"]), (cols[0], cols[-1])):
            ref = f"{_c(c0)}{rows[0] + 1}"
            ws.conditional_format(rows[0], c0, rows[-1], c1, {"type": "formula", "criteria": f"={ref}=lbl_{code}",
                                                              "format": fmt})
    b.highlight_year(ws, HEADER_ROW, rows[-1], cols[0], cols[-1], HEADER_ROW)


def year_cols(b) -> list[int]:
    """Columns of the per-year statuses on 检查 (after the evaluation year's and a gap)."""
    first = CHECK_COL_INDEX["status"] + 3
    return list(range(first, first + len(b.L.eval_years)))


def _check_row(b, ws, rd):
    """One rule: its evaluation-year actual, bound, margin, shortfall and status, then its status in each year.

    Every value is read from 计算 (the evaluation year's column through calc_eval_index): the
    checks are an output of the calculations, never an input to them."""
    L, st, s = b.L, b.st, rd.spec
    row = L.check_rows[rd.id]
    b.put(ws, row, 0, s.id, st.key)
    b.put(ws, row, 1, s.clause, st.text)
    title_zh, title_en = b.title(s)
    b.put(ws, row, 2, title_zh, st.wrap)
    b.put(ws, row, 3, title_en, st.wrap)
    b.put(ws, row, 10, rd.check.unit, st.text)
    if rd.bound and rd.check.required is not None:
        b.put(ws, row, CHECK_COL_INDEX["bound_kind"], f"{cat.BOUND_ZH[rd.bound]} {cat.BOUND_EN[rd.bound]}", st.text)
    ws.set_row(row, row_height((title_zh, 46), (title_en, 46)))
    fk = fmt_key(rd.check.unit)
    for col in ("actual", "required", "margin", "shortfall", "status"):
        name = f"{s.id}.{col}"
        if name not in b.model.scalars:
            continue
        value = b.scalar(name)
        if (rd.check.unit == "是/否" or name in L.yes_no) and col != "status":  # a yes/no: 是/否, never TRUE/FALSE
            ws.write_formula(row, CHECK_COL_INDEX[col], b.as_yes_no(b.at_evaluation_year(name)), st.calc["yes_no"],
                             b.yes_no_cached(b.value(name)))
            continue
        fmt = st.calc["gen"] if col == "status" or isinstance(value, bool) else st.calc[fk]
        ws.write_formula(row, CHECK_COL_INDEX[col], b.at_evaluation_year(name), fmt, value)
    status_row = L.calc_rows[f"{s.id}.status"]
    for j, (c, y) in enumerate(zip(year_cols(b), L.eval_years)):
        ref = f"{q(SHEETS['calc'])}!{xl_rowcol_to_cell(status_row, L.col_of(y), row_abs=True)}"
        ws.write_formula(row, c, f"={ref}", st.calc["gen"], b.scalar(f"{s.id}.status", j))
    b.wb.define_name(f"chk_{s.id}", f"={q(SHEETS['checks'])}!${CHECK_STATUS_COL}${row + 1}")
