"""计算 Calculations: every rule in every evaluated year as native formulas rendered from the model's
expression trees (history years feed the windows), the year flags, and the results as shown (guarded).

A row whose value is a yes/no (a test, a flag; :func:`..layout.yes_no_rows`) holds 1/0 formatted 是/否,
never TRUE/FALSE: its tree is rendered through :meth:`..builder.Builder.calc_node` (``IF(x,1,0)`` in each
branch) and cached 1/0; every formula reading it means the same with 1/0 in Excel, LibreOffice and
Gnumeric (docs/domain.md §4, "Yes/no in the workbook")."""

from __future__ import annotations

import re

import numpy as np
from xlsxwriter.utility import xl_rowcol_to_cell

from ...rules import catalogue as cat
from ..builder import _c
from ..layout import FIRST_YEAR_COL, GUARDED, HEADER_ROW, SHEETS, TIMELINE_FLAGS, q
from ..styles import fmt_key, row_height

GUARDED_ROWS = {row for row, _ in GUARDED.values()}
#: the label columns of the working sheets (计算, 测算; characters): the id narrow (clipped in print), the
#: labels wrapped, then a year column each — narrow enough to print one page wide (issue 52.1)
LABEL_COLS = (("名称 Name", 8), ("{zh}", 26), ("{en}", 25), ("单位 Unit", 5))
YEAR_WIDTH = 16


def working_cols(zh: str, en: str, n_years: int) -> list[tuple[str, int]]:
    """The columns of a working sheet: its labels' and one per year."""
    return [(h.format(zh=zh, en=en), w) for h, w in LABEL_COLS] + [("", YEAR_WIDTH)] * n_years


def write(b) -> None:
    ws, L = b.ws["calc"], b.L
    cols = working_cols("计算", "Calculation", L.n_years)
    b._header(ws, "计算", "Calculations (every rule in every evaluated year; history years feed the windows)", cols)
    b._year_header(ws, "calc")
    _calc_flags(b, ws)
    _series(b, ws)
    _section_titles(b, ws)
    cols = [L.year_col(off) for off in L.eval_offsets]
    _scalar_rows(b, ws, cols)
    _guarded(b, ws, cols)
    b._highlight_year(ws, HEADER_ROW, max(L.calc_rows.values()), FIRST_YEAR_COL, L.last_col, HEADER_ROW)
    ws.freeze_panes(HEADER_ROW + 1, FIRST_YEAR_COL)
    ws.repeat_rows(HEADER_ROW)
    ws.set_row(HEADER_ROW, 30)  # the header's two lines (单位 Unit)


def _series(b, ws) -> None:
    """The per-year series, in every year's column (history years too)."""
    L, st = b.L, b.st
    ws.write(min(L.series.values()) - 1, 0, "逐年数据  Per-year series", st.section)
    for name, node in b.model.series.items():
        row = L.series[name]
        _row_labels(b, ws, row, name, *cat.SERIES_ZH[name], "元")
        for y in L.years:  # from the first evaluated year's view: any year is an offset from it
            off = y - b.year
            value = b.env.calc(name, y - L.eval_years[0])[0]
            ws.write_formula(row, L.col_of(y), b.formula(node, off), st.calc["amount"], b.cached(value))


def _section_titles(b, ws) -> None:
    L = b.L
    titles = {min(L.calc_rows[n] for n in L.calc_rows if n not in TIMELINE_FLAGS): "规则中间结果  Rule working",
              L.status_block()[0]: "规则状态（与检查表同序）  Rule statuses (in the order of 检查)",
              L.calc_rows["overall_status"]: "结果  Results",
              L.calc_rows["verdict"]: "显示的结论（输入可读时）  Results as shown (where every input is readable)"}
    for row, title in titles.items():
        ws.write(row - 1, 0, title, b.st.section)


def _scalar_rows(b, ws, cols: list[int]) -> None:
    """Every calculation of the rules and results, one formula per evaluated year."""
    L, st = b.L, b.st
    offsets = L.eval_offsets
    formula, calc = b.formula, b.env.calc
    for name, row in L.calc_rows.items():
        if name in TIMELINE_FLAGS or name in GUARDED_ROWS:
            continue
        _row_labels(b, ws, row, name, *_calc_label(b.model, name), "是/否" if name in L.yes_no else "")
        node = b.calc_node(name)
        fmt = st.calc[_number_format(b, name)]
        values = calc(name, None)
        cached = b._yes_no_cached if name in L.yes_no else b.cached
        if name in L.mixed:
            cached = lambda v, name=name: b.cached_calc(name, v)  # noqa: E731 (a yes/no branch's 1/0, a number as it is)
        for j, off in enumerate(offsets):
            ws.write_formula(row, cols[j], formula(node, off), fmt, cached(values[j]))


def _guarded(b, ws, cols: list[int]):
    """The results as 汇总 and the cover show them: the model's, where every input is readable and no
    status or result is an error (the row ``readable``); else 无法判断 / 请检查 — never a verdict beside
    an input the formulas cannot read (issue 20). One short formula across each row."""
    L, st = b.L, b.st
    readable = L.calc_rows["readable"] + 1
    for name, (row_name, code) in GUARDED.items():
        row, src = L.calc_rows[row_name], L.calc_rows[name] + 1
        zh, en = _calc_label(b.model, name)
        _row_labels(b, ws, row, row_name, f"{zh}（输入不可读或结果有错误值时为“{L.labels[code][0]}”）",
                    f"{en} (“{L.labels[code][0]}” when an input is unreadable or a result an error)", "")
        for j, col in enumerate(cols):
            ws.write_formula(row, col, f"=IF({_c(col)}${readable},{_c(col)}${src},lbl_{code})", st.calc["gen"],
                             b.cached(b.value(name, j)))


def _number_format(b, name: str) -> str:
    """A calculation's number format: a yes/no 是/否 (its cell holds 1/0: :func:`.layout.yes_no_rows`); a
    rule's actual, bound, margin and shortfall in the rule's unit (a date stays a date: LibreOffice would
    give a General cell the format of the date it reads); statuses General."""
    if name in b.L.yes_no:
        return "yes_no"
    rid, _, col = name.rpartition(".")
    if col in ("actual", "required", "margin", "shortfall") and rid in b.L.check_rows:
        values = b.env.calc(name, None)
        if not any(isinstance(values[j], (bool, np.bool_)) for j in range(len(b.L.eval_years))):
            return fmt_key(b.model.rule(rid).check.unit)
    return _calc_fmt(name)


def _calc_fmt(name: str) -> str:
    if name.endswith((".min_cash",)) or name == "major_outlay_threshold":
        return "amount"
    if name.endswith(".share"):
        return "ratio"
    if name.endswith("_count"):
        return "count"
    return "gen"


def _row_labels(b, ws, row: int, key: str, zh: str, en: str, unit: str):
    b._put(ws, row, 0, key, b.st.key)
    b._put(ws, row, 1, zh, b.st.label)
    b._put(ws, row, 2, en, b.st.label)
    ws.set_row(row, row_height((zh, LABEL_COLS[1][1]), (en, LABEL_COLS[2][1])))
    if unit:
        ws.write(row, 3, unit, b.st.text)


def _calc_flags(b, ws):
    """Per-year flags (one formula across each row) and the evaluation year's column number."""
    L, st = b.L, b.st
    ws.write(L.calc_rows["is_evaluation_year"] - 1, 0, "年度标志  Year flags", st.section)
    lo, hi = b.policy.plan_years
    for name, zh, en in (("is_evaluation_year", "评估年度", "Evaluation year"),
                         ("in_plan_period", f"规划期内（{lo}–{hi}）", f"In the plan period ({lo}–{hi})"),
                         ("readable", "输入均可读且状态与结果无错误值（否则总体结论为“无法判断”）",
                          "Inputs readable, no error in a status or result (else the overall result is undetermined)")):
        row = L.calc_rows[name]
        _row_labels(b, ws, row, name, zh, en, "是/否")
        for y in L.eval_years:
            col = L.col_of(y)
            formula, cached = _flag(b, name, y, col)
            ws.write_formula(row, col, f"=IF({formula[1:]},1,0)", st.calc["yes_no"], 1.0 if cached else 0.0)
    # which evaluated column the evaluation year is (every evaluation-year output reads through it)
    row = HEADER_ROW - 2
    _row_labels(b, ws, row, "calc_eval_index", "评估年度所在列（第几个可评估年度）", "Evaluated column of the evaluation year", "")
    header = L.eval_span(HEADER_ROW)
    ws.write_formula(row, FIRST_YEAR_COL, f"=MATCH(in_evaluation_year,{header},0)", st.calc["count"], b.j + 1)
    b.wb.define_name("calc_eval_index", f"={q(SHEETS['calc'])}!${_c(FIRST_YEAR_COL)}${row + 1}")


def _flag(b, name: str, y: int, col: int) -> tuple[str, bool]:
    """A year flag's formula in a year's column, and its cached value."""
    L = b.L
    lo, hi = b.policy.plan_years
    fy = xl_rowcol_to_cell(HEADER_ROW, col, row_abs=True)
    if name == "is_evaluation_year":
        return f"={fy}=in_evaluation_year", y == b.year
    if name == "in_plan_period":
        return f"=AND({fy}>=model_plan_first,{fy}<=model_plan_last)", lo <= y <= hi
    # COUNTIF ignores an error: a #VALUE! status would otherwise read as a pass. SUM of a range with an
    # error is an error (its text is ignored) in every engine, where ISERROR over a range inside
    # SUMPRODUCT is intersected with the row in Gnumeric
    s_lo, s_hi = L.status_block()
    o_lo, o_hi = L.calc_rows["overall_status"] + 1, L.calc_rows["check_flag"] - 1  # the results between them

    def no_error(r0: int, r1: int) -> str:
        return f"NOT(ISERROR(SUM({_c(col)}${r0 + 1}:{_c(col)}${r1 + 1})))"
    return f"=AND(SUM(in_unreadable)=0,{no_error(s_lo, s_hi)},{no_error(o_lo, o_hi)})", True


def _calc_label(model: cat.Model, name: str) -> tuple[str, str]:
    """A calculation's labels (zh, en), once per model and name (kept with the model: ``model.derived``)."""
    return model.derived.table("workbook calculation labels", None).once(name, _make_calc_label, model, name)


def _make_calc_label(model: cat.Model, name: str) -> tuple[str, str]:
    fixed = {
        "major_outlay": ("有重大投资计划或重大现金支出", "Major outlay planned"),
        "major_outlay_threshold": ("重大支出金额标准", "Major outlay threshold"),
        "major_outlay_tests_met": ("达到的重大支出标准项数", "Major-outlay tests that hold"),
        "cond_not_met_count": ("未满足的条件数", "Conditions not met"),
        "cond_missing_count": ("缺少输入的条件数", "Conditions missing input"),
        "cond_met": ("现金分红条件全部满足", "All cash dividend conditions met"),
        "cond_unknown": ("条件无法判断（缺少输入）", "Conditions undetermined (missing input)"),
    }
    if name in fixed:
        return fixed[name]
    test = re.fullmatch(r"major_outlay\.b(\d+)(_threshold|_figure)?", name)
    if test:  # one test of a major outlay (policy.MajorOutlay.branches)
        i, part = test.groups()
        return {None: (f"重大支出标准第{i}项成立", f"Major-outlay test {i} holds"),
                "_threshold": (f"重大支出标准第{i}项：比例对应金额", f"Major-outlay test {i}: its ratio as an amount"),
                "_figure": (f"重大支出标准第{i}项：计量金额（负值取绝对值）", f"Major-outlay test {i}: the figure measured (absolute)"),
                }[part]
    rid, _, what = name.rpartition(".")
    title = next((r.spec.title_zh for r in model.rules if r.id == rid), rid)
    return {
        "reason": (f"不适用的原因：{title}", f"Why it does not apply: {rid}"),
        "test": (f"检验是否成立：{title}", f"Test holds: {rid}"),
        "missing": (f"检验所需输入缺失：{title}", f"Inputs of the test missing: {rid}"),
        "unknown": (f"适用性无法判断（缺少输入）：{title}", f"Applicability undetermined: {rid}"),
        "na": (f"不适用：{title}", f"Not applicable: {rid}"),
        "min_cash": (f"本年所需现金：{title}", f"Cash required this year: {rid}"),
        "share": (f"适用的最低现金占比：{title}", f"Minimum cash share applied: {rid}"),
    }.get(what) or ((f"适用条件第{what[2:]}项不成立：{title}", f"Applicability part {what[2:]} is false: {rid}")
                    if what[:2] == "na" and what[2:].isdigit() else (name, name))
