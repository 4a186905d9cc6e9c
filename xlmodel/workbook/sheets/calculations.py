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
from ...fields import FIELDS
from ...announce.rows import LINES, PROPOSAL, TRIGGERS, TRIGGERS_ZH
from ...outputs import OUTPUT, PART, WORKING
from ..styles import fmt_key, row_height

GUARDED_ROWS = {row for row, _ in GUARDED.values()}
GUARDED_BY = {row: name for name, (row, _) in GUARDED.items()}  # a guarded row -> the result it shows
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
    b.header(ws, "计算", "Calculations (every rule in every evaluated year; history years feed the windows)", cols)
    b.year_header(ws, "calc")
    _calc_flags(b, ws)
    _series(b, ws)
    _section_titles(b, ws)
    cols = [L.year_col(off) for off in L.eval_offsets]
    _scalar_rows(b, ws, cols)
    _guarded(b, ws, cols)
    b.highlight_year(ws, HEADER_ROW, max(L.calc_rows.values()), FIRST_YEAR_COL, L.last_col, HEADER_ROW)
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
        _row_labels(b, ws, row, name, *_calc_label(b.model, name), "是/否" if name in L.yes_no else calc_unit(b.model, name))
        node = b.calc_node(name)
        fmt = st.calc[_number_format(b, name)]
        values = calc(name, None)
        cached = b.yes_no_cached if name in L.yes_no else b.cached
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
                    f"{en} (“{L.labels[code][0]}” when an input is unreadable or a result an error)", "状态")
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
    return _calc_fmt(b, name)


def _calc_fmt(b, name: str) -> str:
    """A working row's number format, from its unit (元 money, % a percentage, 年 a year, 项 a count); a status,
    a reason or a row without a unit General."""
    if name.endswith(".share"):
        return "ratio"
    unit = calc_unit(b.model, name)
    return "year" if unit == "年" else fmt_key(unit)


def _row_labels(b, ws, row: int, key: str, zh: str, en: str, unit: str):
    b.put(ws, row, 0, key, b.st.key)
    b.put(ws, row, 1, zh, b.st.label)
    b.put(ws, row, 2, en, b.st.label)
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
    _row_labels(b, ws, row, "calc_eval_index", "评估年度所在列（第几个可评估年度）", "Evaluated column of the evaluation year", "列")
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
    return model.derived.table("workbook calculation labels", None).once(name, _make_calc_label, model, name)[:2]


def calc_unit(model: cat.Model, name: str) -> str:
    """A calculation's unit (元, %, 年, 项, 是/否, 状态, 文字, 日期…): from the table of outputs (an output's, a rule
    part's in the rule's unit, a working row's: :data:`xlmodel.outputs.WORKING`)."""
    return model.derived.table("workbook calculation labels", None).once(name, _make_calc_label, model, name)[2]


def _field_zh(fid: str) -> tuple[str, str]:
    f = FIELDS.get(fid)
    return (f.zh, f.en) if f else (fid, fid)


def _make_calc_label(model: cat.Model, name: str) -> tuple[str, str, str]:
    """(中文, English, unit) of a calculation: never its id (issue 52.5)."""
    if name in OUTPUT:
        o = OUTPUT[name]
        return o.zh, o.en, o.unit
    if name in GUARDED_BY:
        zh, en, _ = _make_calc_label(model, GUARDED_BY[name])
        return zh, en, "状态"
    if name in WORKING:
        return WORKING[name]
    announced = _announce_label(name)
    if announced:
        return announced
    split = re.fullmatch(r"(.+)\.part(\d+)", name)
    if split:  # a long formula's part on a row of its own (catalogue.split_long_formulas)
        zh, en, unit = _make_calc_label(model, split.group(1))
        return f"{zh}（第{split.group(2)}段）", f"{en} (part {split.group(2)})", unit
    test = re.fullmatch(r"major_outlay\.b(\d+)(_threshold|_figure)?", name)
    if test:  # one test of a major outlay (policy.MajorOutlay.branches)
        i, part = test.groups()
        return {None: (f"重大支出标准第{i}项成立", f"Major-outlay test {i} holds", "是/否"),
                "_threshold": (f"重大支出标准第{i}项：比例对应金额", f"Major-outlay test {i}: its ratio as an amount", "元"),
                "_figure": (f"重大支出标准第{i}项：计量金额（负值取绝对值）", f"Major-outlay test {i}: the figure measured (absolute)", "元"),
                }[part]
    rid, _, what = name.rpartition(".")
    rule = next((r for r in model.rules if r.id == rid), None)
    title = rule.spec.title_zh if rule else rid
    title_en = rule.spec.title_en if rule else rid
    if what in ("actual", "required", "margin", "shortfall", "status") and rule is not None:  # in the rule's unit
        part = PART["bound" if what == "required" else what]
        return f"{part.zh}：{title}", f"{part.en}: {title_en}", "状态" if what == "status" else rule.check.unit
    slot = re.fullmatch(r"s(\d)_(actual|required|made|shown|test)", what)
    if slot:  # one interim's own figures of a per-slot rule (catalogue.per_slot, several distributions a year)
        k, part = slot.groups()
        zh, en, unit = _SLOT_PARTS[part]
        unit = unit or (rule.check.unit if rule is not None else "元")
        return f"第{k}次中期分配{zh}：{title}", f"Interim {k}: {en}: {title_en}", unit
    if what == "slots_hold":
        return f"各次中期分配均成立：{title}", f"Every interim made holds: {title_en}", "是/否"
    if what[:2] == "na" and what[2:].isdigit():
        return f"适用条件第{what[2:]}项不成立：{title}", f"Applicability part {what[2:]} is false: {title_en}", "是/否"
    ratio = re.fullmatch(r"c(\d+)_ratio_applied", what)
    if ratio:
        zh, en, unit = WORKING["ratio_applied"]
        return f"{zh}（第{ratio.group(1)}项）：{title}", f"{en} (component {ratio.group(1)}): {title_en}", unit
    for kind in ("small", "jump"):
        if what.startswith(kind + "_"):
            zh, en, unit = WORKING[kind]
            fzh, fen = _field_zh(what[len(kind) + 1:])
            return f"{zh}：{fzh}", f"{en}: {fen}", unit
    if what.startswith("pair_"):
        zh, en, unit = WORKING["pair"]
        a, c = _pair_fields(what[len("pair_"):])
        return f"{zh}：{_field_zh(a)[0]}与{_field_zh(c)[0]}", f"{en}: {_field_zh(a)[1]} and {_field_zh(c)[1]}", unit
    if what in WORKING:
        zh, en, unit = WORKING[what]
        return f"{zh}：{title}", f"{en}: {title_en}", unit
    return name, name, ""


#: a per-slot rule's parts (several distributions a year): (中文, English, unit; blank: the rule's own unit)
_SLOT_PARTS = {"actual": ("的实际值", "actual", ""), "required": ("的界限", "bound", ""),
               "made": ("已进行", "made", "是/否"), "shown": ("为列示的一次（余量最小）", "the one shown (least headroom)", "是/否"),
               "test": ("检验成立", "test holds", "是/否")}
_PROPOSAL_UNITS = {"amount": "元", "count": "股", "ratio": "%", "yes_no": "是/否"}
_LINE_UNITS = {"amount": "元", "percent": "%", "yesno": "是/否"}
_YEARS = {"y0": ("本年度", "this year"), "y1": ("上年度", "the year before"), "y2": ("上上年度", "two years before")}


def _announce_label(name: str) -> tuple[str, str, str] | None:
    """The labels of the announcement's calculations (announce/rows.py: the proposal's lines, the table's lines
    of the risk-warning rule, its 是/否), or None."""
    for calc, zh, en, kind in PROPOSAL:
        if name == calc:
            return zh, en, _PROPOSAL_UNITS[kind]
    if name == TRIGGERS:
        return TRIGGERS_ZH.format(rules="《股票上市规则》", article="相应条款"), "Could trigger the risk warning", "文字"
    rid, _, calc = name.partition(".")
    if not rid.startswith("reg_st_"):
        return None
    year = re.fullmatch(r"(y\d)\.(\w+)", calc)
    if year and year.group(2) == "year":
        zh, en = _YEARS[year.group(1)]
        return f"公告表年度（{zh}）", f"The table's year ({en})", "年"
    for line in LINES:
        if calc in line.calcs:
            zh, en = line.zh.replace("（元）", "").replace("（%）", ""), line.en
            if year:
                yzh, yen = _YEARS[year.group(1)]
                zh, en = f"{zh}（{yzh}）", f"{en} ({yen})"
            return zh.format(floor="金额标准"), en, _LINE_UNITS[line.kind]
    return None


def _pair_fields(rest: str) -> tuple[str, str]:
    """``distributable_profit_net_profit_attributable`` -> the two field ids it joins."""
    for i in range(1, len(rest)):
        if rest[i - 1] == "_" and rest[:i - 1] in FIELDS and rest[i:] in FIELDS:
            return rest[:i - 1], rest[i:]
    return rest, rest
