"""输入 Inputs: the evaluation year, the timeline, every input field by year, the company's fields and the
attestations, each with its prompt, its data validation and its count of unreadable entries."""

from __future__ import annotations

import datetime as dt
import re

from xlsxwriter.utility import xl_rowcol_to_cell

from ...rules import catalogue as cat
from ...case import INTERIM_PARTS
from ...fields import BOOL_LABELS, COMPANY_FIELDS, ENUMS, FIELDS, SOURCES, Kind
from ..builder import _c
from ..layout import FIRST_YEAR_COL, HEADER_ROW, INPUT_SECTIONS, LIST_OF, SHEETS, q
from ..styles import FIELD_FMT

PROMPT_TITLE, PROMPT_TEXT = 32, 255  # Excel's limits on a data validation's input message (title, text)
UNREAD_NOTE = "本规划及监管底线不读取此项，可不填。Not read by this plan. "


def write(b) -> None:
    ws, L = b.ws["inputs"], b.L
    cols = [("字段 Field id", 26), ("项目", 34), ("Item", 34), ("单位 Unit", 8)]
    cols += [("", 18)] * L.n_years + [("来源/备注 Source / notes", 40), ("无法读取 Unreadable", 12)]
    b.header(ws, "输入", "Inputs", cols)
    _evaluation_year(b, ws)
    ws.write(3, 0, "黄色单元格为输入；灰色行为本规划及监管底线不读取的项目（已分组，可折叠）；选中单元格可见其含义与年报出处。"
                   "金额单位：元（含税）。Yellow cells are inputs; grey rows are not read by this plan (grouped); "
                   "select a cell for what it is and where the annual report has it. Amounts in 元, tax included.", b.st.note)
    b.year_header(ws)
    _year_fields(b, ws)
    _company_fields(b, ws)
    _attestations(b, ws)
    _finish(b, ws)


def _evaluation_year(b, ws) -> None:
    """E3: the evaluation year (an input, one of the evaluated years; the name in_evaluation_year)."""
    L, st = b.L, b.st
    ws.write(2, 1, "评估年度 Evaluation year", st.section)
    ws.write_number(2, FIRST_YEAR_COL, b.year, st.year_in)
    first_eval = xl_rowcol_to_cell(HEADER_ROW, L.col_of(L.eval_years[0]), True, True)
    b.data_validation(ws, 2, FIRST_YEAR_COL, {
        "validate": "integer", "criteria": "between", "minimum": f"={first_eval}",
        "maximum": f"={xl_rowcol_to_cell(HEADER_ROW, L.last_col, True, True)}",
        "input_title": "评估年度 Evaluation year",
        "input_message": "要评估的会计年度（表头中可评估的年度之一）；改变它不移动任何数据。The fiscal year evaluated.",
        "error_message": "评估年度须为表头中可评估的年度 The evaluation year must be an evaluated year of the header"})
    b.wb.define_name("in_evaluation_year", f"={q(SHEETS['inputs'])}!${_c(FIRST_YEAR_COL)}$3")
    ws.write(2, FIRST_YEAR_COL + 1, f"可选 {L.eval_years[0]}–{L.eval_years[-1]}（前{-b.model.history}年为历史数据）"
                                    f"Choose {L.eval_years[0]}–{L.eval_years[-1]}", st.note)


def _label_cells(b, ws, row: int, fid: str, f) -> None:
    """An input row's id, labels and unit (columns A–D)."""
    ws.write(row, 0, fid, b.st.key)
    ws.write(row, 1, f.zh, b.st.text)
    ws.write(row, 2, f.en, b.st.text)
    ws.write(row, 3, f.unit_zh, b.st.text)


def _year_fields(b, ws) -> None:
    """The fields with a value each year, section by section (names in_<field>: the row across the years)."""
    L, st = b.L, b.st
    r = HEADER_ROW + 1
    for zh, en, fids in INPUT_SECTIONS:
        ws.write(r, 0, f"{zh}  {en}", st.section)
        r += 1
        for fid in fids:
            row = L.inputs[fid]
            f = FIELDS[fid]
            ws.write(row, 0, fid, st.key)
            if fid in b._unread:  # grouped (outline level 1, shown): the rows the plan reads stand out
                ws.set_row(row, None, None, {"level": 1})
            ws.write(row, 1, f.zh, st.text)
            ws.write(row, 2, f.en, st.text)
            ws.write(row, 3, f.unit_zh, st.text)
            for y in L.years:
                _write_input(b, ws, row, L.col_of(y), fid, _input_value(b, fid, y))
            _write_note(b, ws, row, fid)
            _readable(b, ws, row, f.kind, fid, L.last_col)
            b.wb.define_name(f"in_{fid}", f"={q(SHEETS['inputs'])}!${_c(FIRST_YEAR_COL)}${row + 1}:${_c(L.last_col)}${row + 1}")
            r = row + 1


def _company_fields(b, ws) -> None:
    """The company's fields: one value each, in the first year's column (names in_<field>)."""
    L = b.L
    ws.write(min(L.company.values()) - 1, 0, "公司信息  Company", b.st.section)
    for f in COMPANY_FIELDS:
        row = L.company[f.id]
        _label_cells(b, ws, row, f.id, f)
        _write_input(b, ws, row, FIRST_YEAR_COL, f.id, _input_value(b, f.id, None))
        _write_note(b, ws, row, f.id)
        _readable(b, ws, row, f.kind, f.id, FIRST_YEAR_COL)
        b.wb.define_name(f"in_{f.id}", f"={q(SHEETS['inputs'])}!${_c(FIRST_YEAR_COL)}${row + 1}")


def _attestations(b, ws) -> None:
    """The rules' attestations: 是/否 for the evaluation year (names att_<rule>)."""
    L, st = b.L, b.st
    if L.attest:
        ws.write(min(L.attest.values()) - 1, 0, "声明确认（评估年度） Attestations (evaluation year)", st.section)
    for rid, row in L.attest.items():
        spec = b.model.spec(rid)
        ws.write(row, 0, rid, st.key)
        title_zh, title_en = b.title(spec)
        b.put(ws, row, 1, f"{title_zh}（条款 {spec.clause}）", st.text)
        b.put(ws, row, 2, title_en, st.text)
        ws.write(row, 3, "是/否", st.text)
        _write_input(b, ws, row, FIRST_YEAR_COL, cat.ATTEST + rid, _input_value(b, cat.ATTEST + rid, None))
        _write_note(b, ws, row, rid)
        _readable(b, ws, row, Kind.BOOL, rid, FIRST_YEAR_COL)
        b.wb.define_name(f"att_{rid}", f"={q(SHEETS['inputs'])}!${_c(FIRST_YEAR_COL)}${row + 1}")


def _finish(b, ws) -> None:
    """The evaluation year's column marked, the unreadable counts named (in_unreadable) and coloured, the panes."""
    L = b.L
    b.highlight_year(ws, HEADER_ROW, max(L.inputs.values()), FIRST_YEAR_COL, L.last_col, HEADER_ROW)
    rows = [*L.inputs.values(), *L.company.values(), *L.attest.values()]
    col = _c(L.readable_col)
    b.wb.define_name("in_unreadable", f"={q(SHEETS['inputs'])}!${col}${min(rows) + 1}:${col}${max(rows) + 1}")
    ws.conditional_format(min(rows), L.readable_col, max(rows), L.readable_col,
                          {"type": "cell", "criteria": ">", "value": 0, "format": b.st.status["fail"]})
    ws.freeze_panes(HEADER_ROW + 1, FIRST_YEAR_COL)
    ws.repeat_rows(HEADER_ROW)


def _input_value(b, fid: str, year: int | None):
    if b.case is None:  # a blank model: only the company the plan names (Builder.subject)
        return b.subject.company.get(fid) if year is None and not fid.startswith(cat.ATTEST) else None
    if fid.startswith(cat.ATTEST):
        return b.case.attestations.get(fid[len(cat.ATTEST):])
    if year is None:
        return b.case.company.get(fid)
    return b.case.value(fid, year)


def _write_input(b, ws, row, col, fid, value):
    st = b.st
    f = FIELDS.get(fid)
    kind = f.kind if f else Kind.BOOL
    fmt = (st.unread if fid in b._unread else st.inp)[FIELD_FMT[kind]]
    if value is None:
        ws.write_blank(row, col, None, fmt)
    elif kind == Kind.BOOL:
        ws.write_string(row, col, BOOL_LABELS[bool(value)], fmt)
    elif kind == Kind.ENUM:
        ws.write_string(row, col, ENUMS[fid][value], fmt)
    elif kind == Kind.DATE:
        ws.write_datetime(row, col, dt.datetime.combine(value, dt.time()), fmt)
    elif kind == Kind.TEXT:
        where = f"company.{fid}" if fid in b.L.company else f"years.{fid}"
        ws.write_string(row, col, b.user_text(where, str(value)), fmt)  # text, never a formula ('=…' too)
    else:
        ws.write_number(row, col, float(value), fmt)
    _validate(b, ws, row, col, kind, fid)


def prompt(b, fid: str) -> dict:
    """The input message of an input row (data validation's prompt): what it is and where the annual
    report has it (:data:`xlmodel.fields.SOURCES`), or the attestation it confirms; an input the plan
    does not read says so first."""
    f = FIELDS.get(fid)
    if f is None:  # a rule's own attestation
        spec = b.model.spec(fid[len(cat.ATTEST):])
        title = "声明确认 Attestation"
        title_zh, title_en = b.title(spec)
        text = f"请确认（是/否）：{title_zh}（条款 {spec.clause}）。Confirm: {title_en}"
    else:
        title, text = f.zh, SOURCES[f.id]
        if fid in b._unread:
            text = UNREAD_NOTE + text
    if len(text) > PROMPT_TEXT:  # a long rule title: cut, never dropped (XlsxWriter drops a longer prompt)
        text = text[:PROMPT_TEXT - 1] + "…"
    return {"input_title": title[:PROMPT_TITLE], "input_message": text}


def _validate(b, ws, row, col, kind, fid):
    cross = _CROSS.get(fid)
    if cross is not None and fid in b.L.inputs:
        _validate_cross(b, ws, row, col, fid, cross)
        return
    lst = {Kind.BOOL: "bool", Kind.ENUM: LIST_OF.get(fid, fid)}.get(kind)
    counted = kind == Kind.COUNT and FIELDS[fid].unit == "次"  # distributions, not shares
    key = (ws.name, kind, lst, counted, fid)  # one validation a row: its rule and its own prompt
    hit = b._validations.get(key)
    if hit is not None:  # the row's rule: one more cell
        hit[2].append((row, col))
        return
    prompt_ = prompt(b, fid)
    if lst:
        b.data_validation(ws, row, col, {"validate": "list", "source": f"=list_{lst}", **prompt_,
                             "error_title": "xlmodel", "error_message": "请从下拉列表中选择 Choose from the list"}, key)
    elif kind == Kind.DATE:
        b.data_validation(ws, row, col, {"validate": "date", "criteria": "between", **prompt_,
                             "minimum": dt.date(1990, 1, 1), "maximum": dt.date(2100, 12, 31),
                             "error_message": "请输入日期 Enter a date (YYYY-MM-DD)"}, key)
    elif kind in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT):
        lo, hi = {Kind.AMOUNT: (-1e15, 1e15), Kind.RATIO: (0, 1), Kind.COUNT: (0, 1e15)}[kind]
        b.data_validation(ws, row, col, {**prompt_,
            "validate": "integer" if kind == Kind.COUNT else "decimal", "criteria": "between",
            "minimum": lo, "maximum": hi,
            "error_message": {Kind.AMOUNT: "请输入以元为单位的金额 Enter an amount in 元",
                              Kind.RATIO: "请输入0到1之间的比例，如 0.67 Enter a ratio 0–1",
                              Kind.COUNT: "请输入次数（整数） Enter a whole number of distributions" if counted
                              else "请输入股数 Enter a whole number of shares"}[kind]}, key)
    else:  # free text: any value, the prompt only
        b.data_validation(ws, row, col, {"validate": "any", **prompt_}, key)


def _validate_cross(b, ws, row, col, fid, cross):
    """A value its year's other values bound (xlmodel.rules.consistency): one rule over the row, relative to its
    first cell, so that each column checks its own year."""
    test, message = cross
    refs = {k: xl_rowcol_to_cell(b.L.inputs[k], col) for k in _CROSS_FIELDS[fid]}
    b.data_validation(ws, row, col, {"validate": "custom", "value": "=" + test.format(c=xl_rowcol_to_cell(row, col), **refs),
                         "error_title": "xlmodel", "error_message": message, **prompt(b, fid)},
          (ws.name, "cross", fid))


def _readable(b, ws, row: int, kind: Kind, fid: str, last: int):
    """The row's count of entries its formulas cannot read (issue 20: a paste past validation): text in a
    number or date, anything but 是/否 in a yes/no, an option not on the list. Free text is never counted."""
    cells = f"${_c(FIRST_YEAR_COL)}${row + 1}" + (f":${_c(last)}${row + 1}" if last > FIRST_YEAR_COL else "")
    if kind in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT, Kind.DATE):
        formula = f"=COUNTA({cells})-COUNT({cells})"
    elif kind in (Kind.BOOL, Kind.ENUM):  # the row against its list (a row × a column: every engine broadcasts)
        formula = f"=COUNTA({cells})-SUMPRODUCT(({cells}=list_{'bool' if kind == Kind.BOOL else LIST_OF.get(fid, fid)})*1)"
    else:
        return
    ws.write_formula(row, b.L.readable_col, formula, b.st.calc["count"], 0)


def _write_note(b, ws, row: int, key: str):
    """The source/notes cell of an input row (editable text, never a formula)."""
    note = b.case.notes.get(key) if b.case else None
    if note:
        ws.write_string(row, b.L.notes_col, b.user_text(f"notes.{key}", str(note)), b.st.inp["text"])
    else:
        ws.write_blank(row, b.L.notes_col, None, b.st.inp["text"])


#: entry checks of a value against its year's other values, at data entry (the reader refuses the same,
#: xlmodel.rules.consistency): field -> (custom validation with {c} the cell and {<field>} the same year's, message)
_CROSS = {
    **{part: (f"AND(ISNUMBER({{c}}),{{c}}<={{{total}}},"
              + "+".join("{c}" if p == part else f"N({{{p}}})" for p, t in INTERIM_PARTS if t == total)
              + f"<={{{total}}})",
              f"各次中期部分之和不能超过全年合计（{FIELDS[total].zh}） The interims together cannot exceed the year's total")
       for part, total in INTERIM_PARTS},
    "distribution_count": ("AND(ISNUMBER({c}),{c}=INT({c}),{c}>=0,IF({c}=0,AND(N({cash_dividend})=0,N({stock_dividend})=0),"
                           "OR(N({cash_dividend})>0,N({stock_dividend})>0)))",
                           "次数为整数；0 次即无现金分红与股票股利，1 次以上须有分配 "
                           "A whole number: 0 with no cash or stock dividend, 1 or more with one"),
    "payout_date": ("AND(ISNUMBER({c}),OR(ISBLANK({agm_date}),{c}>={agm_date}))",
                    "派发完成日期不能早于股东大会日期 The payout cannot be before the AGM"),
    "net_assets": ("AND(ISNUMBER({c}),OR(ISBLANK({total_assets}),{c}<={total_assets}))",
                   "归母净资产不能高于总资产（单位是否一致？） Net assets cannot exceed total assets (same units?)"),
}
_CROSS_FIELDS = {fid: tuple(re.findall(r"\{([a-z0-9_]+)\}", test.replace("{c}", ""))) for fid, (test, _) in _CROSS.items()}
