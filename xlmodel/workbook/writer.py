"""Write a policy (and optionally a case) as a formula-backed .xlsx with XlsxWriter.

Every calculation and check cell is a native formula rendered from the model's
expression trees, with its value cached (computed by the evaluator on the same
inputs), so a viewer that never recalculates still shows the right numbers.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
import unicodedata
from pathlib import Path

import numpy as np
import xlsxwriter
from xlsxwriter.exceptions import XlsxWriterException
from xlsxwriter.utility import xl_range, xl_rowcol_to_cell
from xlsxwriter.worksheet import Worksheet

from .. import __version__
from .. import catalogue as cat
from ..case import INTERIM_PARTS, Case
from ..errors import XlmodelError
from ..evaluator import evaluate_one, evaluate_timeline, model_for
from ..fields import BOOL_LABELS, COMPANY_FIELDS, ENUMS, FIELDS, SOURCES, Kind
from ..io import atomic_write, check_output, save_xlsx
from ..policy import Policy, load_policy, plan_clauses
from .cached import EMPTY
from .planning_sheet import add_planning_sheet
from .layout import (CHECK_COL_INDEX, CHECK_STATUS_COL, FIRST_YEAR_COL, GUARDED, HEADER_ROW, INPUT_SECTIONS,
                     OUTPUTS, SHEET_EN, SHEETS, TIMELINE_FLAGS, CellRenderer, Layout, pname, q, timeline)

GUARDED_ROWS = {row for row, _ in GUARDED.values()}
YES_NO_OUTPUTS = ("cash_conditions_met", "st_risk_warning")  # the named results that are a yes/no

FONT = "Microsoft YaHei"
PAGE_WIDTH = 135  # column-width units across A4 landscape at 100% (0.4" margins)
MIN_PRINT_SCALE = 0.9  # the smallest text is 9 pt: printed at ≥ 8 pt
CHART_ROWS = 21
#: the cover's columns (characters): A margin, B label / rule, C value / clause, D status, E actual, F bound kind, G bound, H unit
COVER_COLS = (2, 34, 16, 8, 17, 6, 17, 6)
PORTRAIT_WIDTH = 92  # column-width units across A4 portrait at 100% (0.4" margins): 135 × 7.47" / 10.89"
# fitted to the width, the cover's 10 pt text prints at ≥ 8 pt (a column takes about one unit more than its width)
assert (sum(COVER_COLS) + len(COVER_COLS)) * 8 <= PORTRAIT_WIDTH * 10  # rows the summary's chart covers
PLAN_VALUE_COL = 7  # 参数 sheet: the plan's own value beside the editable one (column H), then 与规划一致
MONEY = "#,##0.00;[Red]-#,##0.00"
PCT = "0.00%"
DATE = "yyyy-mm-dd"
#: a yes/no as a number shown 是/否 (1 → 是, 0 → 否): Excel shows TRUE/FALSE whatever a boolean's format, so a
#: yes/no the user reads is the number 1/0 (IF, AND and NOT read it as they read TRUE/FALSE) in this format,
#: which Excel, LibreOffice and Gnumeric all apply
YES_NO = '"是";"是";"否"'
FORECAST_YEAR = '0" 预测"'  # a forecast year's header: the year, marked
PROMPT_TITLE, PROMPT_TEXT = 32, 255  # Excel's limits on a data validation's input message (title, text)
UNREAD_NOTE = "本规划及监管底线不读取此项，可不填。Not read by this plan. "


#: rendered formulas by (layout, tree, column); the tree is kept with its text (an id is unique while it lives)
_FORMULAS: dict[tuple, tuple] = {}
_LAYOUTS: dict[tuple, int] = {}  # layout key -> its number


MAX_TEXT = 32_767  # UTF-16 units in one Excel cell; XlsxWriter would truncate a longer text (and return -2)
MAX_FORMULA = 8_192  # characters of one formula in Excel


def row_height(*cells: tuple[str, int]) -> float:
    """Points a row needs to show every line of its wrapped cells ((text, column width) pairs):
    a CJK character is two columns wide, a line 15 pt."""
    return 15.0 * max(1, *(math.ceil(_text_width(t) / max(1, w - 2)) for t, w in cells))


@functools.lru_cache(maxsize=4096)
def _text_width(t: str) -> int:
    """Columns a text takes (a CJK character two); the plans' titles and quotes come back every build."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in t)


def text_units(s: str) -> int:
    """The length of ``s`` as Excel counts it (UTF-16 code units)."""
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


class CheckedWorksheet(Worksheet):
    """A worksheet that never drops or truncates silently.

    XlsxWriter returns -1 for a cell outside the sheet and -2 for a text it truncated to
    32,767 characters, and carries on; here both raise an :class:`XlmodelError` naming the
    sheet and cell. The builder checks user text before writing it (naming the field);
    this is the safety net for everything else.
    """

    def _where(self, row, col) -> str:
        return f"{self.name}!{xl_rowcol_to_cell(row, col)}"

    def _checked(self, rc, row, col):
        if rc == -1:
            raise XlmodelError(f"{self._where(row, col)}: 超出工作表范围 outside the sheet (Excel's limits); nothing was written")
        if rc and rc < 0:
            raise XlmodelError(f"{self._where(row, col)}: 无法写入该单元格 XlsxWriter refused the cell (code {rc}); nothing was written")
        return rc

    # (the base class's methods are called directly and a return code of 0 is not looked into: one
    # Python call less per cell, the build's floor being XlsxWriter itself)
    def _write_string(self, row, col, string, cell_format=None):
        if len(string) > MAX_TEXT // 2:  # at most 2 UTF-16 units a character: only a long text is counted
            n = text_units(string)
            if n > MAX_TEXT:
                raise XlmodelError(f"{self._where(row, col)}: 文字超出 Excel 单元格的容量 a text of {n:,} characters is longer than an Excel cell "
                                   f"holds ({MAX_TEXT:,}); it would be truncated")
        rc = _WS_STRING(self, row, col, string, cell_format)
        return self._checked(rc, row, col) if rc else rc

    def _write_formula(self, row, col, formula, cell_format=None, value=0):
        if len(formula) > MAX_FORMULA:
            raise XlmodelError(f"{self._where(row, col)}: 公式超出 Excel 的长度上限 a formula of {len(formula):,} characters is longer than "
                               f"Excel allows ({MAX_FORMULA:,})")
        if value.__class__ is not float and isinstance(value, str) and len(value) > MAX_TEXT // 2 \
                and text_units(value) > MAX_TEXT:
            raise XlmodelError(f"{self._where(row, col)}: 结果文字超出 Excel 单元格的容量 a result of {text_units(value):,} characters is longer "
                               f"than an Excel cell holds ({MAX_TEXT:,}); it would be truncated")
        rc = _WS_FORMULA(self, row, col, formula, cell_format, value)
        return self._checked(rc, row, col) if rc else rc

    def _write_number(self, row, col, number, cell_format=None):
        rc = _WS_NUMBER(self, row, col, number, cell_format)
        return self._checked(rc, row, col) if rc else rc

    def _write_blank(self, row, col, blank, cell_format=None):
        rc = _WS_BLANK(self, row, col, blank, cell_format)
        return self._checked(rc, row, col) if rc else rc

    def _write_boolean(self, row, col, boolean, cell_format=None):
        rc = _WS_BOOLEAN(self, row, col, boolean, cell_format)
        return self._checked(rc, row, col) if rc else rc

    def _write_datetime(self, row, col, date, cell_format=None):
        rc = _WS_DATETIME(self, row, col, date, cell_format)
        return self._checked(rc, row, col) if rc else rc


_WS_STRING, _WS_FORMULA, _WS_NUMBER = Worksheet._write_string, Worksheet._write_formula, Worksheet._write_number
_WS_BLANK, _WS_BOOLEAN, _WS_DATETIME = Worksheet._write_blank, Worksheet._write_boolean, Worksheet._write_datetime


class _Styles:
    def __init__(self, wb: xlsxwriter.Workbook):
        base = {"font_name": FONT, "font_size": 10, "valign": "vcenter"}
        inp = {**base, "bg_color": "#FFF2CC", "font_color": "#1F4E79", "locked": False, "border": 1, "border_color": "#BFBFBF"}
        calc = {**base, "font_color": "#000000"}
        self.wb = wb
        self.title = wb.add_format({**base, "bold": True, "font_size": 14})
        self.h = wb.add_format({**base, "bold": True, "bg_color": "#1F4E79", "font_color": "#FFFFFF", "text_wrap": True})
        self.section = wb.add_format({**base, "bold": True, "bg_color": "#D9E1F2"})
        self.section_wrap = wb.add_format({**base, "bold": True, "bg_color": "#D9E1F2", "text_wrap": True})
        self.text = wb.add_format(base)
        self.wrap = wb.add_format({**base, "text_wrap": True, "valign": "top"})
        self.note = wb.add_format({**base, "italic": True, "font_color": "#595959"})
        self.key = wb.add_format({**base, "font_color": "#7F7F7F", "font_size": 9})  # ≥ 8 pt printed at 90%
        self.link = wb.add_format({**base, "font_color": "#0563C1", "underline": 1})
        self.inp = {k: wb.add_format({**inp, "num_format": v}) for k, v in
                    (("amount", MONEY), ("ratio", PCT), ("count", "#,##0"), ("date", DATE), ("text", "@"), ("gen", "General"),
                     ("year", "0"))}
        # an input the plan (and the baseline) never reads: grey, not an input's yellow; still unlocked and
        # read back, so that a workbook with a value there stays valid
        unread = {**inp, "bg_color": "#EDEDED", "font_color": "#808080", "border_color": "#D9D9D9"}
        self.unread = {k: wb.add_format({**unread, "num_format": v}) for k, v in
                       (("amount", MONEY), ("ratio", PCT), ("count", "#,##0"), ("date", DATE), ("text", "@"),
                        ("gen", "General"))}
        self.calc = {k: wb.add_format({**calc, "num_format": v}) for k, v in
                     (("amount", MONEY), ("ratio", PCT), ("count", "#,##0"), ("date", DATE), ("gen", "General"), ("year", "0"),
                      ("yes_no", YES_NO))}
        self.out = {k: wb.add_format({**calc, "bold": True, "num_format": v, "bg_color": "#E2EFDA", "border": 1})
                    for k, v in (("amount", MONEY), ("gen", "General"), ("count", "0"), ("year", "0"), ("yes_no", YES_NO))}
        self.year = wb.add_format({**base, "bold": True, "bg_color": "#1F4E79", "font_color": "#FFFFFF", "num_format": "0", "align": "center"})
        self.year_in = wb.add_format({**inp, "bold": True, "num_format": "0"})
        # a forecast year's column (the case's ``forecast: true``): still the number formulas read, shown 2025 预测
        self.year_forecast = wb.add_format({**base, "bold": True, "bg_color": "#1F4E79", "font_color": "#FFFFFF",
                                            "num_format": FORECAST_YEAR, "align": "center"})
        self.year_in_forecast = wb.add_format({**inp, "bold": True, "num_format": FORECAST_YEAR})
        self.current = wb.add_format({"left": 2, "right": 2, "left_color": "#ED7D31", "right_color": "#ED7D31"})  # evaluation year
        self.status = {
            "pass": wb.add_format({"bg_color": "#C6EFCE", "font_color": "#006100"}),
            "fail": wb.add_format({"bg_color": "#FFC7CE", "font_color": "#9C0006", "bold": True}),
            "warn": wb.add_format({"bg_color": "#FFEB9C", "font_color": "#9C5700"}),
            "not_applicable": wb.add_format({"font_color": "#808080"}),
            "missing_input": wb.add_format({"bg_color": "#F8CBAD", "font_color": "#833C0B"}),
            # conditions are facts, not obligations: their own colours, never the red of a failure
            "met": wb.add_format({"bg_color": "#DDEBF7", "font_color": "#1F4E79"}),
            "not_met": wb.add_format({"bg_color": "#EDEDED", "font_color": "#404040", "italic": True}),
        }


def _fmt_key(unit: str) -> str:
    return {"元": "amount", "%": "ratio", "日期": "date", "元/股": "amount", "股": "count", "月": "count",
            "年": "year"}.get(unit, "gen")


_FIELD_FMT = {Kind.AMOUNT: "amount", Kind.RATIO: "ratio", Kind.COUNT: "count", Kind.DATE: "date",
              Kind.TEXT: "text", Kind.BOOL: "gen", Kind.ENUM: "gen"}


def _calc_fmt(name: str) -> str:
    if name.endswith((".min_cash",)) or name == "major_outlay_threshold":
        return "amount"
    if name.endswith(".share"):
        return "ratio"
    if name.endswith("_count"):
        return "count"
    return "gen"


class WorkbookBuilder:
    def __init__(self, policy: Policy, case: Case | None = None, evaluation_year: int | None = None,
                 udf: bool = False, first_year: int | None = None, n_years: int | None = None,
                 n_eval: int | None = None):
        self.policy, self.case = policy, case
        self.udf = udf  # also write the UDF and xlwings.conf sheets (udf_sheet.py)
        self.model = model_for(policy)
        self.year = case.evaluation_year if case else (evaluation_year or policy.plan_years[1])
        if first_year is None and case is not None and case.years:
            first_year, n_years, n_eval = timeline(self.model, self.year, case.years)
        self.L = Layout(self.model, self.year, first_year, n_years, n_eval)
        if self.year not in self.L.eval_years:
            raise XlmodelError(f"评估年度不在工作簿的评估年度之内 the evaluation year {self.year} is not one of the workbook's evaluated years "
                               f"{self.L.eval_years[0]}–{self.L.eval_years[-1]}")
        subject = case or Case(policy.id, self.year)
        self.subject = subject
        self.env = evaluate_timeline(self.model, subject, self.L.eval_years)  # one element per evaluated year
        self.j = self.L.eval_years.index(self.year)
        self._env1 = None
        self._layout_key = None

    @property
    def env1(self):
        """The UDFs' single case (the worksheet functions' own evaluation), made when the UDF sheet asks."""
        if self._env1 is None:
            self._env1 = evaluate_one(self.model, self.subject)
        return self._env1

    # -- values --------------------------------------------------------------
    def cached(self, value):
        """Evaluator value -> what the spreadsheet shows (labels in Chinese)."""
        if value.__class__ is float and value - value == 0.0:  # a finite number (the commonest)
            return value + 0.0
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, str):
            if value == "":
                return EMPTY
            return self.L.labels[value][0] if value in self.L.labels else value
        if isinstance(value, bool):
            return value
        if not np.isfinite(value):  # a spreadsheet would show #VALUE!: a model bug, never written
            raise ValueError(f"the model computed a non-finite value ({value}); this is a bug in xlmodel")
        return float(value) + 0.0

    def value(self, name: str, j: int | None = None):
        """A calculation's value in evaluated year ``j`` (default: the evaluation year)."""
        return self.env.calc(name, None)[self.j if j is None else j]

    def scalar(self, name: str, j: int | None = None):
        return self.cached(self.value(name, j))

    # -- the board page's readable forms of the outputs ------------------------
    @staticmethod
    def _yes_no_formula(out: str) -> str:
        """TRUE/FALSE/blank -> 是/否/缺少输入, through the labels (no text constants in formulas)."""
        return f"=IF({out}=\"\",lbl_missing_input,IF({out},lbl_yes,lbl_no))"

    @staticmethod
    def _as_yes_no(formula: str) -> str:
        """A boolean formula as the number 1/0 shown 是/否 (:data:`YES_NO`); blank stays blank."""
        x = formula[1:]
        return f"=IF({x}=\"\",\"\",IF({x},1,0))"

    def _yes_no_cached(self, value):
        """The cached value of :meth:`_as_yes_no`."""
        if isinstance(value, str) and value == "":
            return EMPTY
        return 1.0 if bool(value) else 0.0

    def _yes_no(self, name: str, j: int | None = None) -> str:
        v = self.value(name, j)
        if isinstance(v, str) and v == "":
            return self.L.labels["missing_input"][0]
        return self.L.labels["yes" if bool(v) else "no"][0]

    def _st_row(self) -> list[tuple]:
        """是/否 when the exchange risk warning is in scope; else the rule's own status (不适用 or 缺少输入)."""
        st = [r for r in self.model.rules if r.spec.kind == "st_low_dividend"]
        if not st:
            return []
        rid = st[0].id
        v = self.value("st_risk_warning")
        cached = self.scalar(f"{rid}.status") if isinstance(v, str) else self._yes_no("st_risk_warning")
        return [("低分红风险警示 Exchange risk warning",
                 f"=IF(out_st_risk_warning=\"\",chk_{rid},IF(out_st_risk_warning,lbl_yes,lbl_no))", cached)]

    def _in_units(self, name: str, unit: float, j: int | None = None):
        v = self.value(name, j)
        return EMPTY if isinstance(v, str) else float(v) / unit

    def formula(self, node, column: int | None = None) -> str:
        """A tree's formula text in a column. A formula depends only on the model and the layout (every
        row and column it places), so the builds of one process share them (:data:`_FORMULAS`)."""
        L = self.L
        if self._layout_key is None:
            self._layout_key = _layout_key(L)
        if self._layout_key is False:  # a layout with something unhashable: rendered every time
            return "=" + node.render(CellRenderer(L, column))
        key = (self._layout_key, id(node), column)
        hit = _FORMULAS.get(key)
        if hit is None or hit[0] is not node:
            if len(_FORMULAS) > 200_000:
                _FORMULAS.clear()
                _LAYOUTS.clear()
            hit = _FORMULAS[key] = (node, "=" + node.render(CellRenderer(L, column)))
        return hit[1]

    # -- build ---------------------------------------------------------------
    #: the output ``write`` writes the temporary file of (:func:`build_workbook` sets it): errors name it
    target: Path | None = None

    def write(self, path: Path) -> None:
        wb = xlsxwriter.Workbook(str(path), {"strings_to_numbers": False, "strings_to_formulas": False,
                                             "strings_to_urls": False, "in_memory": True})  # no stray temp files
        wb.worksheet_class = CheckedWorksheet  # every sheet, the UDF sheets too: nothing truncated silently
        self.wb, self.st = wb, _Styles(wb)
        self.widths: dict[str, int] = {}  # sheet -> its columns' width (characters), for printing
        self._validations: dict[tuple, tuple] = {}
        self._unread = {f for _, _, fids in INPUT_SECTIONS for f in fids} - self.model.read_fields()
        self.ws = {k: wb.add_worksheet(v) for k, v in SHEETS.items()}
        self._lists()
        self._inputs()
        self._params()
        self._calc()
        self._checks()
        self._summary()
        add_planning_sheet(self, _calc_label)
        self._text()
        self._cover()
        self._properties()
        if self.udf:
            from .udf_sheet import add_udf_sheets

            add_udf_sheets(self)
        self._write_validations()
        for key, ws in self.ws.items():
            self._print_setup(ws)
            ws.hide_gridlines(2)
            ws.set_footer(f"&L{self.policy.id} v{self.policy.version}&C&A&R&P / &N")
            if key != "cover":
                ws.protect("", {"format_columns": True, "format_rows": True, "select_locked_cells": True,
                                "select_unlocked_cells": True})
        self.ws["cover"].protect("", {"select_locked_cells": True, "select_unlocked_cells": True})
        self.ws["cover"].activate()
        save_xlsx(wb, self.target or path)  # disk full, permissions: the target named, never the temporary file

    def _print_setup(self, ws):
        """A4 landscape, readable: fitted to the page width only where that keeps the smallest text
        (9 pt) at 8 pt or more (a scale of 90%); a wider sheet prints at 90% across pages, its label
        columns repeated on each."""
        ws.set_paper(9)
        ws.set_margins(left=0.4, right=0.4, top=0.6, bottom=0.6)
        if ws is self.ws["cover"]:  # the sign-off page: A4 portrait, fitted to the width (its text at ≥ 8 pt)
            ws.set_portrait()
            ws.fit_to_pages(1, 0)
            return
        ws.set_landscape()
        width = self.widths.get(ws.name, 0)
        if width <= PAGE_WIDTH / MIN_PRINT_SCALE:
            ws.fit_to_pages(1, 0)
        else:
            ws.set_print_scale(int(MIN_PRINT_SCALE * 100))
            ws.repeat_columns(0, 1)

    def _put(self, ws, row: int, col: int, text, fmt=None):
        """Text from a plan or a case: always a string cell (never a formula or link); "" stays blank."""
        if text.__class__ is not str:
            text = "" if text is None else str(text)
        if not text:
            return ws.write_blank(row, col, None, fmt)
        return ws.write_string(row, col, text, fmt)

    def _user_text(self, where: str, text: str) -> str:
        """Text from the case, checked to fit one Excel cell (never truncated)."""
        n = text_units(text)
        if n > MAX_TEXT:
            src = self.case.source if self.case else "<case>"
            raise XlmodelError(f"{src}: {where}: 文字超出 Excel 单元格的容量 a text of {n:,} characters is longer than an Excel cell holds "
                               f"({MAX_TEXT:,}); it would be truncated")
        return text

    def _header(self, ws, title_zh: str, title_en: str, cols: list[tuple[str, int]]):
        self.widths[ws.name] = sum(w for _, w in cols)
        ws.write(0, 0, f"{title_zh}  {title_en}", self.st.title)
        self._put(ws, 1, 0, f"{self.policy.title_zh}（{self.policy.id} v{self.policy.version}）", self.st.note)
        for i, (label, width) in enumerate(cols):
            ws.set_column(i, i, width)
            if label:
                ws.write(HEADER_ROW, i, label, self.st.h)

    # -- lists ---------------------------------------------------------------
    def _lists(self):
        ws, L = self.ws["lists"], self.L
        self._header(ws, "列表", "Lists (labels and validation lists)", [("代码 Code", 22), ("显示 Label", 26)])
        ws.write(1, 0, "状态标签与下拉列表；公式通过名称 lbl_* 引用，请勿修改。Status labels and drop-down lists, referenced by the names lbl_*.", self.st.note)
        for code, (text, row) in L.labels.items():
            ws.write(row, 0, code, self.st.key)
            ws.write(row, 1, text, self.st.text)
            self.wb.define_name(f"lbl_{code}", f"={q(SHEETS['lists'])}!$B${row + 1}")
        for enum_id, (r0, r1) in L.enum_ranges.items():
            choices = {"yes": "是", "no": "否"} if enum_id == "bool" else ENUMS[enum_id]
            for (code, text), row in zip(choices.items(), range(r0, r1 + 1)):
                ws.write(row, 0, code, self.st.key)
                ws.write(row, 1, text, self.st.text)
            self.wb.define_name(f"list_{enum_id}", f"={q(SHEETS['lists'])}!$B${r0 + 1}:$B${r1 + 1}")

    # -- inputs --------------------------------------------------------------
    def _input_value(self, fid: str, year: int | None):
        if self.case is None:
            return None
        if fid.startswith(cat.ATTEST):
            return self.case.attestations.get(fid[len(cat.ATTEST):])
        if year is None:
            return self.case.company.get(fid)
        return self.case.value(fid, year)

    def _write_input(self, ws, row, col, fid, value):
        st = self.st
        f = FIELDS.get(fid)
        kind = f.kind if f else Kind.BOOL
        fmt = (st.unread if fid in self._unread else st.inp)[_FIELD_FMT[kind]]
        if value is None:
            ws.write_blank(row, col, None, fmt)
        elif kind == Kind.BOOL:
            ws.write_string(row, col, BOOL_LABELS[bool(value)], fmt)
        elif kind == Kind.ENUM:
            ws.write_string(row, col, ENUMS[fid][value], fmt)
        elif kind == Kind.DATE:
            ws.write_datetime(row, col, dt.datetime.combine(value, dt.time()), fmt)
        elif kind == Kind.TEXT:
            where = f"company.{fid}" if fid in self.L.company else f"years.{fid}"
            ws.write_string(row, col, self._user_text(where, str(value)), fmt)  # text, never a formula ('=…' too)
        else:
            ws.write_number(row, col, float(value), fmt)
        self._validate(ws, row, col, kind, fid)

    def prompt(self, fid: str) -> dict:
        """The input message of an input row (data validation's prompt): what it is and where the annual
        report has it (:data:`xlmodel.fields.SOURCES`), or the attestation it confirms; an input the plan
        does not read says so first."""
        f = FIELDS.get(fid)
        if f is None:  # a rule's own attestation
            spec = self.model.spec(fid[len(cat.ATTEST):])
            title = "声明确认 Attestation"
            text = f"请确认（是/否）：{spec.title_zh}（条款 {spec.clause}）。Confirm: {spec.title_en}"
        else:
            title, text = f.zh, SOURCES[f.id]
            if fid in self._unread:
                text = UNREAD_NOTE + text
        if len(text) > PROMPT_TEXT:  # a long rule title: cut, never dropped (XlsxWriter drops a longer prompt)
            text = text[:PROMPT_TEXT - 1] + "…"
        return {"input_title": title[:PROMPT_TITLE], "input_message": text}

    def _validate(self, ws, row, col, kind, fid):
        cross = _CROSS.get(fid)
        if cross is not None and fid in self.L.inputs:
            # a value its year's other values bound (xlmodel.consistency): one rule over the row, relative to its
            # first cell, so that each column checks its own year
            test, message = cross
            refs = {k: xl_rowcol_to_cell(self.L.inputs[k], col) for k in _CROSS_FIELDS[fid]}
            self._dv(ws, row, col, {"validate": "custom", "value": "=" + test.format(c=xl_rowcol_to_cell(row, col), **refs),
                                    "error_title": "xlmodel", "error_message": message, **self.prompt(fid)},
                     (ws.name, "cross", fid))
            return
        lst = {Kind.BOOL: "bool", Kind.ENUM: fid}.get(kind)
        counted = kind == Kind.COUNT and FIELDS[fid].unit == "次"  # distributions, not shares
        key = (ws.name, kind, lst, counted, fid)  # one validation a row: its rule and its own prompt
        hit = self._validations.get(key)
        if hit is not None:  # the row's rule: one more cell
            hit[2].append((row, col))
            return
        prompt = self.prompt(fid)
        if lst:
            self._dv(ws, row, col, {"validate": "list", "source": f"=list_{lst}", **prompt,
                                    "error_title": "xlmodel", "error_message": "请从下拉列表中选择 Choose from the list"}, key)
        elif kind == Kind.DATE:
            self._dv(ws, row, col, {"validate": "date", "criteria": "between", **prompt,
                                    "minimum": dt.date(1990, 1, 1), "maximum": dt.date(2100, 12, 31),
                                    "error_message": "请输入日期 Enter a date (YYYY-MM-DD)"}, key)
        elif kind in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT):
            lo, hi = {Kind.AMOUNT: (-1e15, 1e15), Kind.RATIO: (0, 1), Kind.COUNT: (0, 1e15)}[kind]
            self._dv(ws, row, col, {**prompt,
                "validate": "integer" if kind == Kind.COUNT else "decimal", "criteria": "between",
                "minimum": lo, "maximum": hi,
                "error_message": {Kind.AMOUNT: "请输入以元为单位的金额 Enter an amount in 元",
                                  Kind.RATIO: "请输入0到1之间的比例，如 0.67 Enter a ratio 0–1",
                                  Kind.COUNT: "请输入次数（整数） Enter a whole number of distributions" if counted
                                  else "请输入股数 Enter a whole number of shares"}[kind]}, key)
        else:  # free text: any value, the prompt only
            self._dv(ws, row, col, {"validate": "any", **prompt}, key)

    def _dv(self, ws, row: int, col: int, options: dict, key=None):
        """A data validation on a cell, collected: every cell with the same rule becomes one validation
        over its ranges (:meth:`_write_validations`), not one per cell. ``key``: the rule's name, when
        the caller has one (else the options say what the rule is)."""
        key = key or (ws.name, repr(sorted(options.items())))
        hit = self._validations.get(key)
        if hit is None:
            hit = self._validations[key] = (ws, options, [])
        hit[2].append((row, col))

    def _write_validations(self):
        for ws, options, cells in self._validations.values():
            ranges = _ranges(cells)
            (r0, c0, r1, c1) = ranges[0]
            opts = dict(options)
            if len(ranges) > 1:
                opts["multi_range"] = " ".join(xl_range(*rg) for rg in ranges)
            ws.data_validation(r0, c0, r1, c1, opts)

    def _inputs(self):
        ws, L, st = self.ws["inputs"], self.L, self.st
        cols = [("字段 Field id", 26), ("项目", 34), ("Item", 34), ("单位 Unit", 8)]
        cols += [("", 18)] * L.n_years + [("来源/备注 Source / notes", 40), ("无法读取 Unreadable", 12)]
        self._header(ws, "输入", "Inputs", cols)
        ws.write(2, 1, "评估年度 Evaluation year", st.section)
        ws.write_number(2, FIRST_YEAR_COL, self.year, st.year_in)
        first_eval = xl_rowcol_to_cell(HEADER_ROW, L.col_of(L.eval_years[0]), True, True)
        self._dv(ws, 2, FIRST_YEAR_COL, {
            "validate": "integer", "criteria": "between", "minimum": f"={first_eval}",
            "maximum": f"={xl_rowcol_to_cell(HEADER_ROW, L.last_col, True, True)}",
            "input_title": "评估年度 Evaluation year",
            "input_message": "要评估的会计年度（表头中可评估的年度之一）；改变它不移动任何数据。The fiscal year evaluated.",
            "error_message": "评估年度须为表头中可评估的年度 The evaluation year must be an evaluated year of the header"})
        self.wb.define_name("in_evaluation_year", f"={q(SHEETS['inputs'])}!${_c(FIRST_YEAR_COL)}$3")
        ws.write(2, FIRST_YEAR_COL + 1, f"可选 {L.eval_years[0]}–{L.eval_years[-1]}（前{-self.model.history}年为历史数据）"
                                        f"Choose {L.eval_years[0]}–{L.eval_years[-1]}", st.note)
        ws.write(3, 0, "黄色单元格为输入；灰色行为本规划及监管底线不读取的项目（已分组，可折叠）；选中单元格可见其含义与年报出处。"
                       "金额单位：元（含税）。Yellow cells are inputs; grey rows are not read by this plan (grouped); "
                       "select a cell for what it is and where the annual report has it. Amounts in 元, tax included.", st.note)
        self._year_header(ws)
        r = HEADER_ROW + 1
        for zh, en, fids in INPUT_SECTIONS:
            ws.write(r, 0, f"{zh}  {en}", st.section)
            r += 1
            for fid in fids:
                row = L.inputs[fid]
                f = FIELDS[fid]
                ws.write(row, 0, fid, st.key)
                if fid in self._unread:  # grouped (outline level 1, shown): the rows the plan reads stand out
                    ws.set_row(row, None, None, {"level": 1})
                ws.write(row, 1, f.zh, st.text)
                ws.write(row, 2, f.en, st.text)
                ws.write(row, 3, f.unit_zh, st.text)
                for y in L.years:
                    self._write_input(ws, row, L.col_of(y), fid, self._input_value(fid, y))
                self._write_note(ws, row, fid)
                self._readable(ws, row, f.kind, fid, L.last_col)
                self.wb.define_name(f"in_{fid}", f"={q(SHEETS['inputs'])}!${_c(FIRST_YEAR_COL)}${row + 1}:${_c(L.last_col)}${row + 1}")
                r = row + 1
        ws.write(min(L.company.values()) - 1, 0, "公司信息  Company", st.section)
        for f in COMPANY_FIELDS:
            row = L.company[f.id]
            ws.write(row, 0, f.id, st.key)
            ws.write(row, 1, f.zh, st.text)
            ws.write(row, 2, f.en, st.text)
            ws.write(row, 3, f.unit_zh, st.text)
            self._write_input(ws, row, FIRST_YEAR_COL, f.id, self._input_value(f.id, None))
            self._write_note(ws, row, f.id)
            self._readable(ws, row, f.kind, f.id, FIRST_YEAR_COL)
            self.wb.define_name(f"in_{f.id}", f"={q(SHEETS['inputs'])}!${_c(FIRST_YEAR_COL)}${row + 1}")
        if L.attest:
            ws.write(min(L.attest.values()) - 1, 0, "声明确认（评估年度） Attestations (evaluation year)", st.section)
        for rid, row in L.attest.items():
            spec = self.model.spec(rid)
            ws.write(row, 0, rid, st.key)
            self._put(ws, row, 1, f"{spec.title_zh}（条款 {spec.clause}）", st.text)
            self._put(ws, row, 2, spec.title_en, st.text)
            ws.write(row, 3, "是/否", st.text)
            self._write_input(ws, row, FIRST_YEAR_COL, cat.ATTEST + rid, self._input_value(cat.ATTEST + rid, None))
            self._write_note(ws, row, rid)
            self._readable(ws, row, Kind.BOOL, rid, FIRST_YEAR_COL)
            self.wb.define_name(f"att_{rid}", f"={q(SHEETS['inputs'])}!${_c(FIRST_YEAR_COL)}${row + 1}")
        self._highlight_year(ws, HEADER_ROW, max(L.inputs.values()), FIRST_YEAR_COL, L.last_col, HEADER_ROW)
        rows = [*L.inputs.values(), *L.company.values(), *L.attest.values()]
        col = _c(L.readable_col)
        self.wb.define_name("in_unreadable", f"={q(SHEETS['inputs'])}!${col}${min(rows) + 1}:${col}${max(rows) + 1}")
        ws.conditional_format(min(rows), L.readable_col, max(rows), L.readable_col,
                              {"type": "cell", "criteria": ">", "value": 0, "format": self.st.status["fail"]})
        ws.freeze_panes(HEADER_ROW + 1, FIRST_YEAR_COL)
        ws.repeat_rows(HEADER_ROW)

    def _readable(self, ws, row: int, kind: Kind, fid: str, last: int):
        """The row's count of entries its formulas cannot read (issue 20: a paste past validation): text in a
        number or date, anything but 是/否 in a yes/no, an option not on the list. Free text is never counted."""
        cells = f"${_c(FIRST_YEAR_COL)}${row + 1}" + (f":${_c(last)}${row + 1}" if last > FIRST_YEAR_COL else "")
        if kind in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT, Kind.DATE):
            formula = f"=COUNTA({cells})-COUNT({cells})"
        elif kind in (Kind.BOOL, Kind.ENUM):  # the row against its list (a row × a column: every engine broadcasts)
            formula = f"=COUNTA({cells})-SUMPRODUCT(({cells}=list_{'bool' if kind == Kind.BOOL else fid})*1)"
        else:
            return
        ws.write_formula(row, self.L.readable_col, formula, self.st.calc["count"], 0)

    def _write_note(self, ws, row: int, key: str):
        """The source/notes cell of an input row (editable text, never a formula)."""
        note = self.case.notes.get(key) if self.case else None
        if note:
            ws.write_string(row, self.L.notes_col, self._user_text(f"notes.{key}", str(note)), self.st.inp["text"])
        else:
            ws.write_blank(row, self.L.notes_col, None, self.st.inp["text"])

    def _year_header(self, ws, key: str = "inputs"):
        """The timeline: the first fiscal year is an input, each column to the right one year later
        (on 输入); other sheets show 输入's header. The evaluation year's column is highlighted."""
        L = self.L
        ws.write(HEADER_ROW, 3, "会计年度 FY", self.st.h)
        forecast = self.case.forecast_years if self.case is not None else frozenset()
        for y in L.years:
            col = L.col_of(y)
            fmt = self.st.year_forecast if y in forecast else self.st.year
            if key != "inputs":
                ws.write_formula(HEADER_ROW, col, f"={q(SHEETS['inputs'])}!{xl_rowcol_to_cell(HEADER_ROW, col, row_abs=True)}",
                                 fmt, y)
            elif col == FIRST_YEAR_COL:
                ws.write_number(HEADER_ROW, col, y, self.st.year_in_forecast if y in forecast else self.st.year_in)
                self._dv(ws, HEADER_ROW, col, {
                    "validate": "integer", "criteria": "between", "minimum": 1990, "maximum": 2100,
                    "input_title": "首个会计年度 First fiscal year",
                    "input_message": "第一列的会计年度；右侧各列依次加一年。The first column's fiscal year.",
                    "error_message": "首个会计年度 First fiscal year (1990–2100)"})
                self.wb.define_name("in_first_year", f"={q(SHEETS['inputs'])}!${_c(col)}${HEADER_ROW + 1}")
                self.wb.define_name("in_years", f"={q(SHEETS['inputs'])}!${_c(col)}${HEADER_ROW + 1}:"
                                                f"${_c(L.last_col)}${HEADER_ROW + 1}")  # the year of every column
            else:
                ws.write_formula(HEADER_ROW, col, f"={xl_rowcol_to_cell(HEADER_ROW, col - 1)}+1", fmt, y)

    def _highlight_year(self, ws, r0: int, r1: int, c0: int, c1: int, year_row: int):
        """Mark the evaluation year's column (the year in ``year_row`` of each column)."""
        ref = f"{_c(c0)}${year_row + 1}"
        ws.conditional_format(r0, c0, r1, c1, {"type": "formula", "criteria": f"={ref}=in_evaluation_year",
                                               "format": self.st.current, "stop_if_true": False})

    # -- parameters ----------------------------------------------------------
    def _params(self):
        ws, st = self.ws["params"], self.st
        self._header(ws, "参数", "Parameters (the plan's thresholds, each with its clause)",
                     [("名称 Name", 34), ("参数", 36), ("Parameter", 36), ("数值 Value", 16), ("单位 Unit", 8), ("条款 Clause", 18),
                      ("说明 Note", 50), ("规划值 Plan value", 16), ("与规划一致 As planned", 14)])
        ws.write(3, 0, "阈值来自规划原文；公式只引用这些名称。修改须经董事会决议。Thresholds come from the plan text; formulas refer to these names only.", st.note)
        for name, prm in self.model.params.items():
            r0, r1 = self.L.params[name]
            self._put(ws, r0, 0, pname(name), st.key)
            self._put(ws, r0, 1, prm.zh, st.text)
            self._put(ws, r0, 2, prm.en, st.text)
            self._put(ws, r0, 4, prm.unit, st.text)
            self._put(ws, r0, 5, prm.clause, st.text)
            values = prm.value if isinstance(prm.value, tuple) else (prm.value,)
            for row, v in zip(range(r0, r1 + 1), values):
                if isinstance(v, str):
                    ws.write_string(row, 3, self.L.labels.get(v, (v,))[0], st.inp["gen"])
                    ws.write_string(row, PLAN_VALUE_COL, self.L.labels.get(v, (v,))[0], st.calc["gen"])
                    enum_id = next(k for k, choices in ENUMS.items() if v in choices)
                    self._dv(ws, row, 3, {"validate": "list", "source": f"=list_{enum_id}"})
                else:  # a fixed parameter (by law or by the model) is locked, a plan threshold is an input
                    fmt = (st.inp if prm.editable else st.calc)[_fmt_key(prm.unit)]
                    ws.write_number(row, 3, float(v), fmt)
                    ws.write_number(row, PLAN_VALUE_COL, float(v), st.calc[_fmt_key(prm.unit)])
                # the master check lists every parameter that differs from the plan's value
                here, plan = xl_rowcol_to_cell(row, 3), xl_rowcol_to_cell(row, PLAN_VALUE_COL)
                ws.write_formula(row, PLAN_VALUE_COL + 1, f"=IF({here}={plan},lbl_ok,lbl_check)", st.calc["gen"],
                                 self.L.labels["ok"][0])
            if not prm.editable:
                self._put(ws, r0, 6, "固定，不可修改 Fixed", st.note)
            self.wb.define_name(pname(name), f"={q(SHEETS['params'])}!$D${r0 + 1}" + (f":$D${r1 + 1}" if r1 > r0 else ""))
        if self.policy.major_outlay:
            mo = self.policy.major_outlay
            row = max(r1 for _, r1 in self.L.params.values()) + 2 if self.L.params else HEADER_ROW + 2
            ws.write(row, 0, "重大支出认定 Major outlay", st.section)
            ws.write(row, 1, "董事会认定（输入表）" if mo.definition == "board" else "按规划公式计算", st.text)
            self._put(ws, row, 5, mo.clause, st.text)
            self._put(ws, row, 6, mo.quote, st.wrap)
            ws.set_row(row, row_height((mo.quote, 50)))
        rows = [r for span in self.L.params.values() for r in range(span[0], span[1] + 1)]
        if rows:
            self.wb.define_name("model_params_as_planned", f"={q(SHEETS['params'])}!${_c(PLAN_VALUE_COL + 1)}${min(rows) + 1}:"
                                                          f"${_c(PLAN_VALUE_COL + 1)}${max(rows) + 1}")
        # the model's own constants, for its master check (fixed)
        row = max(rows, default=HEADER_ROW) + 5
        ws.write(row - 1, 0, "模型常数（固定）Model constants (fixed)", st.section)
        constants = (("model_years", "年度列数", "Year columns", self.L.n_years),
                     ("model_eval_years", "可评估年度列数", "Evaluated year columns", len(self.L.eval_years)),
                     ("model_window_max", "窗口最多年数（首个可评估年度及之前的列数）", "Longest window the columns hold",
                      self.L.n_years - self.L.n_eval + 1),
                     ("model_plan_first", "规划期首年", "First plan year", self.policy.plan_years[0]),
                     ("model_plan_last", "规划期末年", "Last plan year", self.policy.plan_years[1]),
                     ("model_rules", "规则数", "Rules", len(self.model.rules)))
        for i, (key, zh, en, value) in enumerate(constants):
            self._put(ws, row + i, 0, key, st.key)
            self._put(ws, row + i, 1, zh, st.text)
            self._put(ws, row + i, 2, en, st.text)
            ws.write_number(row + i, 3, float(value), st.calc["year" if "plan" in key else "count"])
            self.wb.define_name(key, f"={q(SHEETS['params'])}!$D${row + i + 1}")
        ws.freeze_panes(HEADER_ROW + 1, 1)

    # -- calculations --------------------------------------------------------
    def _calc(self):
        ws, L, st = self.ws["calc"], self.L, self.st
        cols = [("名称 Name", 30), ("计算", 40), ("Calculation", 40), ("单位 Unit", 8)] + [("", 16)] * L.n_years
        self._header(ws, "计算", "Calculations (every rule in every evaluated year; history years feed the windows)", cols)
        self._year_header(ws, "calc")
        self._calc_flags(ws)
        ws.write(min(L.series.values()) - 1, 0, "逐年数据  Per-year series", st.section)
        for name, node in self.model.series.items():
            row = L.series[name]
            self._row_labels(ws, row, name, *cat.SERIES_ZH[name], "元")
            for y in L.years:  # from the first evaluated year's view: any year is an offset from it
                off = y - self.year
                value = self.env.calc(name, y - L.eval_years[0])[0]
                ws.write_formula(row, L.col_of(y), self.formula(node, off), st.calc["amount"], self.cached(value))
        titles = {min(L.calc_rows[n] for n in L.calc_rows if n not in TIMELINE_FLAGS): "规则中间结果  Rule working",
                  L.status_block()[0]: "规则状态（与检查表同序）  Rule statuses (in the order of 检查)",
                  L.calc_rows["overall_status"]: "结果  Results",
                  L.calc_rows["verdict"]: "显示的结论（输入可读时）  Results as shown (where every input is readable)"}
        for row, title in titles.items():
            ws.write(row - 1, 0, title, st.section)
        offsets = L.eval_offsets
        cols = [L.year_col(off) for off in offsets]
        cached, formula, scalars, calc = self.cached, self.formula, self.model.scalars, self.env.calc
        for name, row in L.calc_rows.items():
            if name in TIMELINE_FLAGS or name in GUARDED_ROWS:
                continue
            self._row_labels(ws, row, name, *_calc_label(self.model, name), "")
            node = scalars[name]
            fmt = st.calc[self._calc_fmt(name)]
            values = calc(name, None)
            for j, off in enumerate(offsets):
                ws.write_formula(row, cols[j], formula(node, off), fmt, cached(values[j]))
        self._guarded(ws, cols)
        self._highlight_year(ws, HEADER_ROW, max(L.calc_rows.values()), FIRST_YEAR_COL, L.last_col, HEADER_ROW)
        ws.freeze_panes(HEADER_ROW + 1, FIRST_YEAR_COL)
        ws.repeat_rows(HEADER_ROW)

    def _guarded(self, ws, cols: list[int]):
        """The results as 汇总 and the cover show them: the model's, where every input is readable and no
        status or result is an error (the row ``readable``); else 无法判断 / 请检查 — never a verdict beside
        an input the formulas cannot read (issue 20). One short formula across each row."""
        L, st = self.L, self.st
        readable = L.calc_rows["readable"] + 1
        for name, (row_name, code) in GUARDED.items():
            row, src = L.calc_rows[row_name], L.calc_rows[name] + 1
            zh, en = _calc_label(self.model, name)
            self._row_labels(ws, row, row_name, f"{zh}（输入不可读或结果有错误值时为“{L.labels[code][0]}”）",
                             f"{en} (“{L.labels[code][0]}” when an input is unreadable or a result an error)", "")
            for j, col in enumerate(cols):
                ws.write_formula(row, col, f"=IF({_c(col)}${readable},{_c(col)}${src},lbl_{code})", st.calc["gen"],
                                 self.cached(self.value(name, j)))

    def _calc_fmt(self, name: str) -> str:
        """A calculation's number format: a rule's actual, bound, margin and shortfall in the rule's unit
        (a date stays a date: LibreOffice would give a General cell the format of the date it reads);
        booleans and statuses General (a custom format makes LibreOffice save booleans as 1/0)."""
        rid, _, col = name.rpartition(".")
        if col in ("actual", "required", "margin", "shortfall") and rid in self.L.check_rows:
            values = self.env.calc(name, None)
            if not any(isinstance(values[j], (bool, np.bool_)) for j in range(len(self.L.eval_years))):
                return _fmt_key(self.model.rule(rid).check.unit)
        return _calc_fmt(name)

    def _row_labels(self, ws, row: int, key: str, zh: str, en: str, unit: str):
        self._put(ws, row, 0, key, self.st.key)
        self._put(ws, row, 1, zh, self.st.text)
        self._put(ws, row, 2, en, self.st.text)
        if unit:
            ws.write(row, 3, unit, self.st.text)

    def _calc_flags(self, ws):
        """Per-year flags (one formula across each row) and the evaluation year's column number."""
        L, st = self.L, self.st
        ws.write(L.calc_rows["is_evaluation_year"] - 1, 0, "年度标志  Year flags", st.section)
        lo, hi = self.policy.plan_years
        s_lo, s_hi = L.status_block()
        o_lo, o_hi = L.calc_rows["overall_status"] + 1, L.calc_rows["check_flag"] - 1  # the results between them
        for name, zh, en in (("is_evaluation_year", "评估年度", "Evaluation year"),
                             ("in_plan_period", f"规划期内（{lo}–{hi}）", f"In the plan period ({lo}–{hi})"),
                             ("readable", "输入均可读且状态与结果无错误值（否则总体结论为“无法判断”）",
                              "Inputs readable, no error in a status or result (else the overall result is undetermined)")):
            row = L.calc_rows[name]
            self._row_labels(ws, row, name, zh, en, "是/否")
            for y in L.eval_years:
                col = L.col_of(y)
                fy = xl_rowcol_to_cell(HEADER_ROW, col, row_abs=True)
                if name == "is_evaluation_year":
                    formula, cached = f"={fy}=in_evaluation_year", y == self.year
                elif name == "in_plan_period":
                    formula, cached = f"=AND({fy}>=model_plan_first,{fy}<=model_plan_last)", lo <= y <= hi
                else:  # COUNTIF ignores an error: a #VALUE! status would otherwise read as a pass. SUM of a range
                    # with an error is an error (its text is ignored) in every engine, where ISERROR over a range
                    # inside SUMPRODUCT is intersected with the row in Gnumeric
                    def no_error(r0: int, r1: int) -> str:
                        return f"NOT(ISERROR(SUM({_c(col)}${r0 + 1}:{_c(col)}${r1 + 1})))"
                    formula = f"=AND(SUM(in_unreadable)=0,{no_error(s_lo, s_hi)},{no_error(o_lo, o_hi)})"
                    cached = True
                ws.write_formula(row, col, formula, st.calc["gen"], cached)
        # which evaluated column the evaluation year is (every evaluation-year output reads through it)
        row = HEADER_ROW - 2
        self._row_labels(ws, row, "calc_eval_index", "评估年度所在列（第几个可评估年度）", "Evaluated column of the evaluation year", "")
        header = L.eval_span(HEADER_ROW)
        ws.write_formula(row, FIRST_YEAR_COL, f"=MATCH(in_evaluation_year,{header},0)", st.calc["count"], self.j + 1)
        self.wb.define_name("calc_eval_index", f"={q(SHEETS['calc'])}!${_c(FIRST_YEAR_COL)}${row + 1}")

    def at_evaluation_year(self, name: str) -> str:
        """Formula: a calculation's value in the evaluation year's column (a guarded result's as shown)."""
        return f"=INDEX({self.L.eval_span(self.L.shown_row(name))},1,calc_eval_index)"

    # -- checks --------------------------------------------------------------
    def _checks(self):
        ws, L, st = self.ws["checks"], self.L, self.st
        years = [(str(y), 10) for y in L.eval_years]
        self._header(ws, "检查", "Checks (one row per rule: the evaluation year, then each year's status)",
                     [("规则 Rule", 30), ("条款 Clause", 16), ("描述", 46), ("Description", 46),
                      ("实际 Actual", 18), ("界限类型 Bound", 10), ("界限 Bound", 18), ("余量 Margin", 16),
                      ("差额 Shortfall", 16), ("状态 Status", 12), ("单位 Unit", 8), ("", 2)] + years)
        ws.write(3, 0, "D–J 列为评估年度（输入表 E3）；右侧为各年度状态。条件：满足/不满足/缺少输入；规划要求与监管底线：通过/不通过/警告/不适用/缺少输入。"
                       "界限：下限、上限或门槛；余量为界限内的空间。Columns D–J: the evaluation year (输入!E3); to the right, each "
                       "year's status. Conditions: met/not met/missing input; obligations: pass/fail/warning/n.a./missing input.", st.note)
        for c, y in zip(self._year_cols(), L.eval_years):  # the years as numbers (the header is text otherwise)
            ws.write_formula(HEADER_ROW, c, f"={q(SHEETS['calc'])}!{xl_rowcol_to_cell(HEADER_ROW, L.col_of(y), row_abs=True)}",
                             st.year, y)
        titles = {"condition": "现金分红条件  Cash dividend conditions", "requirement": "规划要求  Plan requirements",
                  "regulatory": "监管底线（适用于所有公司）  Regulatory baseline (every company)"}
        for role, ids in L.rule_groups().items():
            ws.write(L.check_rows[ids[0]] - 1, 0, titles[role], st.section)
        for rd in self.model.rules:
            self._check_row(ws, rd)
        rows = sorted(L.check_rows.values())
        cols = self._year_cols()
        for code, fmt in st.status.items():
            for c0, c1 in ((CHECK_COL_INDEX["status"], CHECK_COL_INDEX["status"]), (cols[0], cols[-1])):
                ref = f"{_c(c0)}{rows[0] + 1}"
                ws.conditional_format(rows[0], c0, rows[-1], c1, {"type": "formula", "criteria": f"={ref}=lbl_{code}",
                                                                  "format": fmt})
        self._highlight_year(ws, HEADER_ROW, rows[-1], cols[0], cols[-1], HEADER_ROW)
        ws.freeze_panes(HEADER_ROW + 1, 2)
        ws.repeat_rows(HEADER_ROW)

    def _year_cols(self) -> list[int]:
        """Columns of the per-year statuses on 检查 (after the evaluation year's and a gap)."""
        first = CHECK_COL_INDEX["status"] + 3
        return list(range(first, first + len(self.L.eval_years)))

    def _check_row(self, ws, rd):
        """One rule: its evaluation-year actual, bound, margin, shortfall and status, then its status in each year.

        Every value is read from 计算 (the evaluation year's column through calc_eval_index): the
        checks are an output of the calculations, never an input to them."""
        L, st, s = self.L, self.st, rd.spec
        row = L.check_rows[rd.id]
        self._put(ws, row, 0, s.id, st.key)
        self._put(ws, row, 1, s.clause, st.text)
        self._put(ws, row, 2, s.title_zh, st.wrap)
        self._put(ws, row, 3, s.title_en, st.wrap)
        self._put(ws, row, 10, rd.check.unit, st.text)
        if rd.bound and rd.check.required is not None:
            self._put(ws, row, CHECK_COL_INDEX["bound_kind"], f"{cat.BOUND_ZH[rd.bound]} {cat.BOUND_EN[rd.bound]}", st.text)
        ws.set_row(row, row_height((s.title_zh, 46), (s.title_en, 46)))
        fk = _fmt_key(rd.check.unit)
        for col in ("actual", "required", "margin", "shortfall", "status"):
            name = f"{s.id}.{col}"
            if name not in self.model.scalars:
                continue
            value = self.scalar(name)
            if rd.check.unit == "是/否" and col != "status":  # a confirmation's actual: 是/否, never TRUE/FALSE
                ws.write_formula(row, CHECK_COL_INDEX[col], self._as_yes_no(self.at_evaluation_year(name)), st.calc["yes_no"],
                                 self._yes_no_cached(self.value(name)))
                continue
            fmt = st.calc["gen"] if col == "status" or isinstance(value, bool) else st.calc[fk]
            ws.write_formula(row, CHECK_COL_INDEX[col], self.at_evaluation_year(name), fmt, value)
        status_row = L.calc_rows[f"{s.id}.status"]
        for j, (c, y) in enumerate(zip(self._year_cols(), L.eval_years)):
            ref = f"{q(SHEETS['calc'])}!{xl_rowcol_to_cell(status_row, L.col_of(y), row_abs=True)}"
            ws.write_formula(row, c, f"={ref}", st.calc["gen"], self.scalar(f"{s.id}.status", j))
        self.wb.define_name(f"chk_{s.id}", f"={q(SHEETS['checks'])}!${CHECK_STATUS_COL}${row + 1}")

    # -- summary -------------------------------------------------------------
    def _summary(self):
        ws, L, st = self.ws["summary"], self.L, self.st
        self._header(ws, "汇总", "Summary", [("名称 Name", 26), ("结果", 30), ("数值 Value", 20), ("Result", 34)])
        ws.write(2, 0, "评估年度 Evaluation year", st.section)
        ws.write_formula(2, 2, "=in_evaluation_year", st.out["year"], self.year)
        for name, out, zh, en in OUTPUTS + (("check_flag", "out_check_flag", "模型检查（全部规则可评估）", "Model check (every rule evaluable)"),):
            row = L.output_rows[name]
            ws.write(row, 0, out, st.key)
            ws.write(row, 1, zh, st.text)
            ws.write(row, 3, en, st.text)
            fmt = st.out["amount"] if name in ("min_cash_dividend", "max_distribution", "cash_needed_to_avoid_st") else \
                st.out["count" if name.endswith("_count") else "gen"]
            if name in YES_NO_OUTPUTS:  # 是/否, never TRUE/FALSE
                ws.write_formula(row, 2, self._as_yes_no(self.at_evaluation_year(name)), st.out["yes_no"],
                                 self._yes_no_cached(self.value(name)))
            else:
                ws.write_formula(row, 2, self.at_evaluation_year(name), fmt, self.scalar(name))
            self.wb.define_name(out, f"={q(SHEETS['summary'])}!$C${row + 1}")
        r0 = max(L.output_rows.values())
        st_rows = (L.output_rows["overall_status"], L.output_rows["check_flag"])
        for row in st_rows:
            for code, fmt in st.status.items():
                ws.conditional_format(row, 2, row, 2, {"type": "formula", "criteria": f"=$C{row + 1}=lbl_{code}", "format": fmt})
        ws.conditional_format(st_rows[1], 2, st_rows[1], 2, {"type": "formula", "criteria": f"=$C{st_rows[1] + 1}=lbl_check", "format": st.status["fail"]})
        ws.conditional_format(st_rows[0], 2, st_rows[0], 2, {"type": "formula", "criteria": f"=$C{st_rows[0] + 1}=lbl_undetermined",
                                                             "format": st.status["fail"]})
        top = self._per_year(ws, r0 + 3)  # the board's page first: the years, the chart
        self._chart(ws, top)
        top = self._model_checks(ws, top + CHART_ROWS)
        self._rule_results(ws, top)

    #: the per-year table of the summary: (calculation or series, 中文, English, unit)
    PER_YEAR = (("overall_status", "总体结论", "Overall result", ""),
                ("cash_conditions_met", "现金分红条件满足", "Cash dividend conditions met", "yes_no"),
                ("fail_count", "不通过规则数", "Rules failed", ""),
                ("cash", "现金分红（含计入的回购）（万元）", "Cash dividends (10k 元)", "wan"),
                ("min_cash_dividend", "最低现金分红（万元）", "Minimum cash dividend (10k 元)", "wan"),
                ("max_distribution", "利润分配上限（万元）", "Maximum distribution (10k 元)", "wan"))

    def _per_year(self, ws, top: int) -> int:
        """Each evaluated year: the result, the cash paid against the minimum, the cap (万元). The chart's data."""
        L, st = self.L, self.st
        ws.write(top, 0, "逐年结果 Results by year", st.section)
        ws.write(top + 1, 1, "会计年度 FY", st.h)
        calc = q(SHEETS["calc"])
        self.per_year_rows = {}
        for j, y in enumerate(L.eval_years):
            col = 2 + j
            ws.set_column(col, col, 16)
            ws.write_formula(top + 1, col, f"={calc}!{xl_rowcol_to_cell(HEADER_ROW, L.col_of(y), row_abs=True)}", st.year, y)
        for i, (name, zh, en, unit) in enumerate(self.PER_YEAR):
            r = top + 2 + i
            self.per_year_rows[name] = r
            ws.write(r, 0, en, st.key)
            ws.write(r, 1, zh, st.text)
            for j, y in enumerate(L.eval_years):
                series = name in L.series
                row = L.series[name] if series else L.shown_row(name)
                ref = f"{calc}!{xl_rowcol_to_cell(row, L.col_of(y), row_abs=True)}"
                value = self.env.calc(name, y - L.eval_years[0])[0] if series else self.value(name, j)
                if unit == "yes_no":  # 是/否 for the board, 缺少输入 when undetermined
                    formula = self._yes_no_formula(ref)
                    cached, fmt = self._yes_no(name, j), st.calc["gen"]
                elif unit:
                    formula = _in_units_formula(ref, "p_display_wan")
                    cached, fmt = (EMPTY if isinstance(value, str) else float(value) / 10_000), st.calc["amount"]
                else:
                    formula, cached = f"={ref}", self.cached(value)
                    fmt = st.calc["count" if name.endswith("_count") else "gen"]
                ws.write_formula(r, 2 + j, formula, fmt, cached)
        r = self.per_year_rows["overall_status"]
        for code, fmt in st.status.items():
            ws.conditional_format(r, 2, r, 1 + len(L.eval_years), {"type": "formula", "criteria": f"=C{r + 1}=lbl_{code}",
                                                                   "format": fmt})
        self._highlight_year(ws, top + 1, top + 1 + len(self.PER_YEAR), 2, 1 + len(L.eval_years), top + 1)
        return top + 3 + len(self.PER_YEAR)

    def _chart(self, ws, top: int):
        """Cash against the minimum, each evaluated year (万元)."""
        sheet, rows, n = q(SHEETS["summary"]), self.per_year_rows, len(self.L.eval_years)
        span = (lambda r: f"={sheet}!${_c(2)}${r + 1}:${_c(1 + n)}${r + 1}")
        chart = self.wb.add_chart({"type": "column"})
        cats = span(rows["overall_status"] - 1)
        chart.add_series({"name": "现金分红 Cash dividend", "categories": cats, "values": span(rows["cash"]),
                          "fill": {"color": "#4472C4"}})
        chart.add_series({"name": "最低要求 Minimum", "categories": cats, "values": span(rows["min_cash_dividend"]),
                          "fill": {"color": "#ED7D31"}})
        chart.set_title({"name": "现金分红与最低要求（万元）Cash dividends vs minimum (10k 元)", "name_font": {"name": FONT, "size": 11}})
        chart.set_y_axis({"num_format": "#,##0", "num_font": {"name": FONT}})
        chart.set_x_axis({"num_font": {"name": FONT}})
        chart.set_legend({"position": "bottom", "font": {"name": FONT}})
        ws.insert_chart(top, 1, chart, {"x_scale": 1.6, "y_scale": 1.2})

    def _model_checks(self, ws, top: int) -> int:
        """The master check of the model itself (not of the company): each test on its own row."""
        st, L = self.st, self.L
        ws.write(top, 0, "模型自检 Model checks", st.section)
        ok = self.L.labels["ok"][0]
        inputs = q(SHEETS["inputs"])
        years = f"{inputs}!${_c(FIRST_YEAR_COL)}${HEADER_ROW + 1}:${_c(L.last_col)}${HEADER_ROW + 1}"
        status_col = _c(CHECK_COL_INDEX["status"])
        statuses = f"{q(SHEETS['checks'])}!${status_col}${min(L.check_rows.values()) + 1}:${status_col}${max(L.check_rows.values()) + 1}"
        lo, hi = L.status_block()
        calc_statuses = f"{q(SHEETS['calc'])}!${_c(FIRST_YEAR_COL)}${lo + 1}:${_c(FIRST_YEAR_COL)}${hi + 1}"
        checks = [
            ("model_params_ok", "参数等于规划值（差异见参数表）", "Parameters as the plan sets them (differences on 参数)",
             "=IF(COUNTIF(model_params_as_planned,lbl_check)=0,lbl_ok,lbl_check)" if L.params else "=lbl_ok"),
            ("model_years_ok", "年度表头连续", "Year header continuous",
             f"=IF(AND(COUNT({years})=model_years,MAX({years})-MIN({years})=model_years-1),lbl_ok,lbl_check)"),
            ("model_ranges_ok", "输入区域宽度等于年度列数", "Input ranges span the year columns",
             "=IF(AND(COLUMNS(in_cash_dividend)=model_years,COLUMNS(in_net_profit_attributable)=model_years),lbl_ok,lbl_check)"),
            ("model_windows_ok", "窗口年数不超过年度列", "Windows fit the year columns", self._windows_check()),
            ("model_eval_year_ok", "评估年度为可评估年度之一", "The evaluation year is an evaluated year",
             "=IF(ISNUMBER(calc_eval_index),IF(calc_eval_index<=model_eval_years,lbl_ok,lbl_check),lbl_check)"),
            ("model_statuses_ok", "每条规则均有状态", "Every rule has a status",
             f"=IF(AND(COUNTA({statuses})=model_rules,ROWS({calc_statuses})=model_rules),lbl_ok,lbl_check)"),
            ("model_inputs_readable", "输入均可读（无文本数值、无效选项，见输入表“无法读取”列）",
             "Every input readable (no text in a number, no unknown option: see 输入's Unreadable column)",
             "=IF(SUM(in_unreadable)=0,lbl_ok,lbl_check)"),
            ("model_results_readable", "评估年度的状态与结果无错误值", "No error in the evaluation year's statuses and results",
             f"=IF(INDEX({L.eval_span(L.calc_rows['readable'])},1,calc_eval_index),lbl_ok,lbl_check)"),
            ("model_inputs_ok", "全部规则可评估（无缺少输入）", "Every rule evaluable (no missing input)", "=out_check_flag"),
        ]
        rows = []
        for i, (key, zh, en, formula) in enumerate(checks):
            r = top + 1 + i
            ws.write(r, 0, key, st.key)
            ws.write(r, 1, zh, st.text)
            ws.write(r, 3, en, st.text)
            cached = self.scalar("check_flag") if key == "model_inputs_ok" else ok
            ws.write_formula(r, 2, formula, st.out["gen"], cached)
            rows.append(r)
        r = rows[-1] + 1
        cells = ",".join(f"$C${x + 1}=lbl_ok" for x in rows)
        ws.write(r, 0, "out_model_check", st.key)
        ws.write(r, 1, "模型总检查 Master check", st.section)
        ws.write(r, 3, "Master check of the model", st.text)
        ws.write_formula(r, 2, f"=IF(AND({cells}),lbl_ok,lbl_check)", st.out["gen"],
                         ok if self.scalar("check_flag") == ok else self.L.labels["check"][0])
        self.wb.define_name("out_model_check", f"={q(SHEETS['summary'])}!$C${r + 1}")
        for x in rows + [r]:
            ws.conditional_format(x, 2, x, 2, {"type": "formula", "criteria": f"=$C${x + 1}=lbl_check", "format": st.status["fail"]})
            ws.conditional_format(x, 2, x, 2, {"type": "formula", "criteria": f"=$C${x + 1}=lbl_ok", "format": st.status["pass"]})
        return r + 3

    def _windows_check(self) -> str:
        """Every window length (a parameter) at most the years the columns hold for the first evaluated year."""
        windows = [pname(n) for n, prm in self.model.params.items() if n.endswith(".window") and prm.unit == "年"]
        if not windows:
            return "=lbl_ok"
        tests = ",".join(f"{w}<=model_window_max" for w in windows)
        return f"=IF(AND({tests}),lbl_ok,lbl_check)"

    def _rule_results(self, ws, top: int) -> int:
        """Which rule failed, by how much, under which clause: one line per rule, its status read from 检查."""
        st, L = self.st, self.L
        ws.write(top, 0, "规则结果 Rule results", st.section)
        for c, h in enumerate(("规则 Rule", "条款 Clause", "状态 Status", "差额（元）Shortfall")):
            ws.write(top + 1, c, h, st.h)
        checks = q(SHEETS["checks"])
        status_rows = []
        for i, rd in enumerate(self.model.rules):
            r = top + 2 + i
            self._put(ws, r, 0, rd.spec.title_zh, st.wrap)
            ws.set_row(r, row_height((rd.spec.title_zh, 26)))
            self._put(ws, r, 1, rd.spec.clause, st.text)
            ws.write_formula(r, 2, f"=chk_{rd.id}", st.calc["gen"], self.scalar(f"{rd.id}.status"))
            if rd.check.shortfall is not None:
                cell = xl_rowcol_to_cell(L.check_rows[rd.id], CHECK_COL_INDEX["shortfall"], row_abs=True, col_abs=True)
                ws.write_formula(r, 3, f"={checks}!{cell}", st.calc["amount"], self.scalar(f"{rd.id}.shortfall"))
            status_rows.append(r)
        first, last = status_rows[0], status_rows[-1]
        for code, fmt in st.status.items():
            ws.conditional_format(first, 2, last, 2, {"type": "formula", "criteria": f"=$C{first + 1}=lbl_{code}", "format": fmt})
        return last + 3

    # -- plan text -----------------------------------------------------------
    #: a clause's treatment as the sheet names it (docs/domain.md §2.2), with the colour of its cell
    TREATMENTS = {"computed": ("计算检查", "Computed", "#DDEBF7"), "attestation": ("确认事项", "Attestation", "#FFF2CC"),
                  "informational": ("说明性", "Informational", "#EDEDED")}
    REVIEW = "待复核"  # a drafted plan's mark on what its reader must still settle

    def _text(self):
        """Clause by clause: how the model treats it — computed (the rules that compute it, on 检查), confirmed
        by the user (what, and where on 输入), or informational (its note) — beside its own text; then the
        regulatory baseline's clauses the same way."""
        ws, st, p = self.ws["text"], self.st, self.policy
        cols = [("条款 Clause", 16), ("处理 Treatment", 16), ("如何处理 How it is treated", 46), ("原文 Text", 80),
                ("说明 Note", 40)]
        self._header(ws, "规划原文", "Plan text by clause, with how each is treated", cols)
        fmt = {k: self.wb.add_format({"font_name": FONT, "font_size": 10, "valign": "top", "text_wrap": True, "bold": True,
                                      "bg_color": colour}) for k, (_, _, colour) in self.TREATMENTS.items()}
        review = self.wb.add_format({"font_name": FONT, "font_size": 10, "valign": "top", "text_wrap": True,
                                     "font_color": "#C65911", "bold": True})
        counts = {k: sum(e.treatment == k for e in p.clauses.values()) for k in self.TREATMENTS}
        ws.write_string(3, 0, "每一条款均有处理：计算检查（模型按规则计算，结果见“检查”表）、确认事项（由用户在“输入”表确认是/否）、"
                              "说明性（无可检查的内容，附说明）。Every clause is computed, confirmed by the user, or informational."
                              f"  本规划 {len(p.clauses)} 条：" + "、".join(f"{self.TREATMENTS[k][0]} {n} 条" for k, n in counts.items())
                        + f" ({', '.join(f'{n} {self.TREATMENTS[k][1].lower()}' for k, n in counts.items())})", st.note)
        clauses = plan_clauses(p)  # the one reading of text: (relative to the plan file, or carried)
        row = HEADER_ROW + 1
        for cid, entry in p.clauses.items():
            ids = [r.id for r in p.rules if r.clause == cid] + list(entry.rules)
            how = self._treated(cid, entry, [p.rule(rid) for rid in dict.fromkeys(ids)], p.rules, p.major_outlay)
            self._clause_row(ws, row, cid, entry, how, clauses.get(cid, ""), fmt, review, cols)
            row += 1
        base = self.model.baseline
        if base is not None:
            row += 1
            ws.write(row, 0, "监管底线 Regulatory baseline", st.section)
            self._put(ws, row, 3, f"{base.title_zh}（{base.id} v{base.version}）", st.wrap)
            for i, src in enumerate(base.sources):
                ws.write_string(row + 1 + i, 3, src, st.wrap)
            row += 1 + len(base.sources)
            for cid, entry in base.clauses.items():
                rules = [x for x in base.rules if x.clause == cid]
                text = "；".join(x.quote for x in rules)
                self._clause_row(ws, row, cid, entry, self._treated(cid, entry, rules, base.rules, None), text, fmt,
                                 review, cols)
                row += 1
        ws.freeze_panes(HEADER_ROW + 1, 1)

    def _clause_row(self, ws, row: int, cid: str, entry, how: str, text: str, fmt: dict, review, cols) -> None:
        zh, en, _ = self.TREATMENTS[entry.treatment]
        flagged = self.REVIEW in (entry.note or "") or self.REVIEW in how
        label = f"{zh}\n{en}" + (f"\n{self.REVIEW} REVIEW" if flagged else "")
        self._put(ws, row, 0, cid, self.st.wrap)
        ws.write_string(row, 1, label, fmt[entry.treatment])
        self._put(ws, row, 2, how, self.st.wrap)
        self._put(ws, row, 3, text, self.st.wrap)
        self._put(ws, row, 4, entry.note or "", review if flagged else self.st.wrap)
        lines = max(sum(max(1, math.ceil(_text_width(line) / max(1, w - 2))) for line in str(t).split("\n"))
                    for t, (_, w) in zip((cid, label, how, text, entry.note or ""), cols))
        ws.set_row(row, min(409.0, 15.0 * lines))

    def _treated(self, cid: str, entry, rules: list, every_rule: list, mo) -> str:
        """What the model does with a clause, in words: each rule computing it (its title, id and row on 检查),
        each fact the user confirms (and where on 输入), the major-outlay definition it gives; for a heading,
        the sub-clauses whose rules compute it; for an informational clause, that nothing is checked."""
        lines = []
        if mo is not None and mo.clause == cid:
            how = "按规划公式计算（参数见“参数”表 major_outlay.*）" if mo.definition == "formula" else "由董事会认定（输入 major_outlay_planned）"
            lines.append(f"重大投资计划或重大现金支出的认定：{how} Major-outlay definition")
        elif mo is not None and cid.startswith(mo.clause + "、"):  # the definition's quote may span its sub-clauses
            lines.append(f"属于 {mo.clause} 的重大支出认定（按其定义计算）Part of the major-outlay definition of {mo.clause}")
        for r in rules:
            if r.kind == "attestation":
                where = (f"“输入”表 {FIELDS[r.field].zh}（in_{r.field}）" if r.field
                         else f"“输入”表声明确认 att_{r.id}")
                lines.append(f"☐ 用户确认：{r.title_zh}（{where}） Confirm: {r.title_en}")
            else:
                at = self.L.check_rows.get(r.id)
                lines.append(f"• {r.title_zh}（{r.id}{f'，“检查”表第{at + 1}行' if at is not None else ''}）")
            if r.note and self.REVIEW in r.note:
                lines.append(f"  {r.note}")
        if not rules and entry.treatment != "informational":
            subs = [c for c in dict.fromkeys(x.clause for x in every_rule) if c.startswith(cid + "、")]
            if subs:
                lines.append("由子条款的规则计算 via its sub-clauses: " + "、".join(subs))
        if entry.treatment == "informational" and not lines:
            lines.append("无可检查的内容，见说明 Nothing to check: see the note")
        return "\n".join(lines)

    # -- cover ---------------------------------------------------------------
    def _cover(self):
        ws, st, p = self.ws["cover"], self.st, self.policy
        for i, width in enumerate(COVER_COLS):
            ws.set_column(i, i, width)
        ws.write(1, 1, "股东分红回报规划合规模型  Dividend return plan model", st.title)
        rows = [
            ("公司 Company", "=in_company_name&\"\"", self.cached((self.case.company.get("company_name") if self.case else None) or "")),
            ("证券代码 Stock code", "=in_stock_code&\"\"", self.cached((self.case.company.get("stock_code") if self.case else None) or "")),
            ("规划 Plan", p.title_zh, None),
            ("政策 Policy", f"{p.id} v{p.version}（{p.plan_years[0]}–{p.plan_years[1]}）", None),
            ("评估年度 Evaluation year", "=in_evaluation_year", float(self.year)),
            ("总体结论 Overall result", "=out_overall_status", self.scalar("overall_status")),
            ("现金分红条件满足 Conditions met", self._yes_no_formula("out_cash_conditions_met"),
             self._yes_no("cash_conditions_met")),
            ("最低现金分红（万元）Minimum cash (10k 元)", _in_units_formula("out_min_cash_dividend", "p_display_wan"),
             self._in_units("min_cash_dividend", 10_000)),
            ("利润分配上限（亿元）Maximum distribution (100m 元)", _in_units_formula("out_max_distribution", "p_display_yi"),
             self._in_units("max_distribution", 100_000_000)),
            *self._st_row(),
            ("不通过 / 警告 / 缺少输入 Failed / warnings / missing", "=out_fail_count&\" / \"&out_warn_count&\" / \"&out_missing_input_count",
             f"{int(self.scalar('fail_count'))} / {int(self.scalar('warn_count'))} / {int(self.scalar('missing_input_count'))}"),
            ("模型检查 Model check", "=out_model_check", self.scalar("check_flag")),
            ("生成 Generated by", f"xlmodel {__version__}", None),
        ]
        for i, (label, value, cached) in enumerate(rows):
            r = 3 + i
            ws.write(r, 1, label, st.section_wrap)
            ws.set_row(r, row_height((label, COVER_COLS[1])))
            if cached is None:
                ws.write_string(r, 2, value, st.text)
            else:  # the company's name and code as text, free to run on across the empty cells to their right
                fmt = st.out["amount"] if "p_display_" in value else st.text if value.endswith("&\"\"") else st.out["gen"]
                ws.write_formula(r, 2, value, fmt, cached)
            if value in ("=out_overall_status", "=out_model_check"):  # the result cell coloured by its value
                for code, sfmt in st.status.items():
                    ws.conditional_format(r, 2, r, 2, {"type": "formula", "criteria": f"=$C${r + 1}=lbl_{code}", "format": sfmt})
                for code in ("check", "undetermined"):
                    ws.conditional_format(r, 2, r, 2, {"type": "formula", "criteria": f"=$C${r + 1}=lbl_{code}",
                                                       "format": st.status["fail"]})
        r = self._sign_off(ws, 3 + len(rows) + 1) + 2
        ws.write(r, 1, "单元格样式 Cell styles", st.section)
        ws.write(r + 1, 1, "输入（可编辑）Input", st.inp["gen"])
        ws.write(r + 1, 2, "黄色底、蓝色字：填写或从下拉列表选择", st.text)
        ws.write(r + 2, 1, "公式（锁定）Formula", st.calc["gen"])
        ws.write(r + 2, 2, "白色底、黑色字：由模型计算，工作表已保护（无密码）", st.text)
        ws.write(r + 3, 1, "输出 Output", st.out["gen"])
        ws.write(r + 3, 2, "绿色底：关键结果（名称 out_*）", st.text)
        ws.write(r + 4, 1, "通过/不通过/警告", st.text)
        ws.write(r + 4, 2, "检查表状态按颜色标示", st.text)
        r += 6
        ws.write(r, 1, "目录 Contents", st.section)
        for i, (key, name) in enumerate(SHEETS.items()):
            ws.write_url(r + 1 + i, 1, f"internal:{q(name)}!A1", st.link, string=f"{name} {SHEET_EN[key]}")
        r += len(SHEETS) + 2
        ws.write(r, 1, "使用方法 How to use", st.section)
        steps = [
            "1. 在“输入”表填写各年度财务数据、本年度分配方案、董事会判断和治理事项（黄色单元格）。Fill in the yellow cells of 输入.",
            "2. 在“输入”表底部确认各项声明（是/否）。Confirm the attestations at the bottom of 输入.",
            "3. 在“检查”表查看每条规则的实际值、要求、差额和状态；“汇总”表给出最低现金分红与上限。Read 检查 and 汇总.",
            "4. 阈值在“参数”表，均注明条款；原文见“规划原文”表。Thresholds are on 参数 with their clauses.",
            "5. 在其他模型中引用名称 in_*、out_*、chk_*。Use the names in_*, out_*, chk_* from other models.",
        ]
        for i, s in enumerate(steps):
            ws.write(r + 1 + i, 1, s, st.text)

    def _sign_off(self, ws, top: int) -> int:
        """The sign-off page (issue 23.6): below the cover's results, every rule in the evaluation year —
        status, actual, bound and clause, read from 检查 — then the signature lines. The cover prints this
        (its print area) on at most two A4 pages; the legend and contents below it are not printed."""
        st, L = self.st, self.L
        ws.write(top, 1, "规则检查结果（评估年度）Rule results (evaluation year)", st.section)
        head = top + 1
        for c, h in enumerate(("规则 Rule", "条款 Clause", "状态 Status", "实际 Actual", "界限类型", "界限 Bound", "单位 Unit")):
            ws.write(head, 1 + c, h, st.h)
        checks = q(SHEETS["checks"])
        titles = {"condition": "现金分红条件 Conditions", "requirement": "规划要求 Plan requirements",
                  "regulatory": "监管底线 Regulatory baseline"}
        r = head + 1
        status_rows = []
        for role, ids in L.rule_groups().items():
            ws.write(r, 1, titles[role], st.section)
            r += 1
            for rid in ids:
                rd = self.model.rule(rid)
                self._put(ws, r, 1, rd.spec.title_zh, st.wrap)
                ws.set_row(r, row_height((rd.spec.title_zh, COVER_COLS[1]), (rd.spec.clause, COVER_COLS[2])))
                self._put(ws, r, 2, rd.spec.clause, st.wrap)
                at = lambda col: f"{checks}!{xl_rowcol_to_cell(L.check_rows[rid], CHECK_COL_INDEX[col], True, True)}"
                ws.write_formula(r, 3, f"={at('status')}", st.calc["gen"], self.scalar(f"{rid}.status"))
                fk = "yes_no" if rd.check.unit == "是/否" else _fmt_key(rd.check.unit)
                for c, col in ((4, "actual"), (6, "required")):
                    name = f"{rid}.{col}"
                    if name not in self.model.scalars:
                        continue
                    value = self.value(name)
                    cached = self._yes_no_cached(value) if fk == "yes_no" else self.cached(value)
                    fmt = st.calc["gen"] if fk != "yes_no" and isinstance(cached, bool) else st.calc[fk]
                    ws.write_formula(r, c, f"=IF({at(col)}=\"\",\"\",{at(col)})", fmt, cached)
                if rd.bound and rd.check.required is not None:
                    self._put(ws, r, 5, cat.BOUND_ZH[rd.bound], st.text)
                self._put(ws, r, 7, rd.check.unit, st.text)
                status_rows.append(r)
                r += 1
        for code, fmt in st.status.items():
            for x in status_rows:
                ws.conditional_format(x, 3, x, 3, {"type": "formula", "criteria": f"=$D${x + 1}=lbl_{code}", "format": fmt})
        r += 1
        ws.write(r, 1, "董事会秘书 Board secretary：", st.text)
        ws.write(r, 4, "日期 Date：", st.text)
        ws.write(r + 1, 1, "审阅 Reviewed by：", st.text)
        ws.write(r + 1, 4, "日期 Date：", st.text)
        last = r + 1
        ws.print_area(0, 0, last, len(COVER_COLS) - 1)
        ws.repeat_rows(head)
        return last

    def _properties(self):
        p = self.policy
        self.wb.set_properties({
            "title": f"{p.title_zh} — 合规模型 {self.year}",
            "subject": f"{p.id} v{p.version}, fiscal year {self.year}",
            "author": "xlmodel", "company": (self.case.company.get("company_name", "") if self.case else ""),
            "category": "股东分红回报规划", "keywords": f"xlmodel, {p.id}, dividend",
            "comments": f"Generated by xlmodel {__version__} from policy {p.id} v{p.version}. Formulas recalculate in Excel and LibreOffice.",
        })
        self.wb.set_custom_property("xlmodel_version", __version__)
        self.wb.set_custom_property("xlmodel_policy", p.id)
        self.wb.set_custom_property("xlmodel_policy_version", p.version)
        self.wb.set_custom_property("xlmodel_evaluation_year", str(self.year))
        from .embed import add_properties

        add_properties(self.wb, p)  # the policy file and its plan text travel with the workbook (embed.py)


def _frozen(v):
    if isinstance(v, dict):
        return tuple((k, _frozen(x)) for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, (set, frozenset)):
        return frozenset(_frozen(x) for x in v)
    return v


def _layout_key(L: Layout) -> tuple:
    """Everything a layout places (its model by identity): equal keys, equal formulas; False when a
    part of it cannot be a key."""
    key = (id(L.model),) + tuple((k, _frozen(v)) for k, v in vars(L).items() if k != "model")
    try:
        return _LAYOUTS.setdefault(key, len(_LAYOUTS))  # a small number: the key is hashed once a build
    except TypeError:
        return False


def _ranges(cells: list[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """Cells as few rectangles (first row, first col, last row, last col): runs of columns in a row,
    then equal runs in consecutive rows joined."""
    by_row: dict[int, list[int]] = {}
    for r, c in sorted(set(cells)):
        by_row.setdefault(r, []).append(c)
    runs = []
    for r, cols in by_row.items():
        start = prev = cols[0]
        for c in cols[1:]:
            if c != prev + 1:
                runs.append((r, start, prev))
                start = c
            prev = c
        runs.append((r, start, prev))
    rects: list[list[int]] = []
    open_: dict[tuple[int, int], list[int]] = {}
    for r, c0, c1 in runs:
        rect = open_.get((c0, c1))
        if rect is not None and rect[2] == r - 1:
            rect[2] = r
        else:
            rect = [r, c0, r, c1]
            rects.append(rect)
            open_[(c0, c1)] = rect
    return [tuple(x) for x in rects]


def _c(col: int) -> str:
    from xlsxwriter.utility import xl_col_to_name

    return xl_col_to_name(col)


def _in_units_formula(ref: str, unit: str) -> str:
    """An amount shown in 万元/亿元; blank stays blank (a blank result divided would be #VALUE!)."""
    return f"=IF({ref}=\"\",\"\",{ref}/{unit})"


_LABELS: dict[tuple, tuple] = {}


def _calc_label(model: cat.Model, name: str) -> tuple[str, str]:
    """A calculation's labels (zh, en), once per model and name."""
    key = (id(model), name)
    hit = _LABELS.get(key)
    if hit is None or hit[0] is not model:
        if len(_LABELS) > 20_000:
            _LABELS.clear()
        hit = _LABELS[key] = (model, _make_calc_label(model, name))
    return hit[1]


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


#: entry checks of a value against its year's other values, at data entry (the reader refuses the same,
#: xlmodel.consistency): field -> (custom validation with {c} the cell and {<field>} the same year's, message)
_CROSS = {
    **{part: (f"AND(ISNUMBER({{c}}),{{c}}<={{{total}}})",
              f"中期部分不能超过全年合计（{FIELDS[total].zh}） The interim part cannot exceed the year's total")
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
_CROSS_FIELDS = {fid: tuple(re.findall(r"\{([a-z_]+)\}", test.replace("{c}", ""))) for fid, (test, _) in _CROSS.items()}


def build_workbook(out: Path, policy: Policy | str | None = None, case: Case | None = None,
                   evaluation_year: int | None = None, force: bool = False, udf: bool = False) -> Path:
    """Write the workbook atomically; refuse to overwrite unless ``force``. ``udf``: add the UDF sheets.

    The path is checked before any work (:func:`xlmodel.io.check_output`); without ``force`` an
    existing file is never replaced, not even one that appears while the workbook is written."""
    out = check_output(out, force=force, suffixes=(".xlsx",))
    if isinstance(policy, Policy):
        pol = policy
    elif policy:
        pol = load_policy(policy)  # the command line / Python API: an id or a path
    else:
        from ..policy import policy_by_id

        pol = policy_by_id(case.policy)  # a case names its plan by id, never by a path
    builder = WorkbookBuilder(pol, case, evaluation_year, udf=udf)
    builder.target = Path(out)
    with atomic_write(out, force=force) as tmp:
        try:
            builder.write(tmp)
        except XlsxWriterException as e:  # an invalid sheet name, a duplicate, …: an error, never half a file
            raise XlmodelError(f"{out}: 无法写出工作簿 cannot write the workbook ({type(e).__name__}: {e})") from None
    return out
