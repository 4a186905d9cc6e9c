"""The workbook's look: its font, number formats, cell formats and row heights (every sheet shares them)."""

from __future__ import annotations

import functools
import math
import unicodedata

import xlsxwriter

from ..fields import Kind

FONT = "Microsoft YaHei"
MONEY = "#,##0.00;[Red]-#,##0.00"
PCT = "0.00%"
DATE = "yyyy-mm-dd"
#: a yes/no as a number shown 是/否 (1 → 是, 0 → 否): Excel shows TRUE/FALSE whatever a boolean's format, so a
#: yes/no the user reads is the number 1/0 (IF, AND and NOT read it as they read TRUE/FALSE) in this format,
#: which Excel, LibreOffice and Gnumeric all apply
YES_NO = '"是";"是";"否"'
FORECAST_YEAR = '0" 预测"'  # a forecast year's header: the year, marked


def row_height(*cells: tuple[str, int]) -> float:
    """Points a row needs to show every line of its wrapped cells ((text, column width) pairs):
    a CJK character is two columns wide, a line 15 pt."""
    return 15.0 * max(1, *(math.ceil(text_width(t) / max(1, w - 2)) for t, w in cells))


@functools.lru_cache(maxsize=4096)
def text_width(t: str) -> int:
    """Columns a text takes (a CJK character two); the plans' titles and quotes come back every build."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in t)


class Styles:
    """The cell formats of one workbook, made once and shared by every sheet."""

    def __init__(self, wb: xlsxwriter.Workbook):
        base = {"font_name": FONT, "font_size": 10, "valign": "vcenter"}
        inp = {**base, "bg_color": "#FFF2CC", "font_color": "#1F4E79", "locked": False, "border": 1, "border_color": "#BFBFBF"}
        self.wb = wb
        self._text_formats(wb, base)
        self._value_formats(wb, base, inp)
        self.year = wb.add_format({**base, "bold": True, "bg_color": "#1F4E79", "font_color": "#FFFFFF", "num_format": "0", "align": "center"})
        self.year_in = wb.add_format({**inp, "bold": True, "num_format": "0"})
        # a year after the evaluation year (a conditional format on the year headers): still the number formulas
        # read, shown 2025 预测
        self.forecast_mark = wb.add_format({"num_format": FORECAST_YEAR})
        self.current = wb.add_format({"left": 2, "right": 2, "left_color": "#ED7D31", "right_color": "#ED7D31"})  # evaluation year
        self._status_formats(wb)

    def _text_formats(self, wb, base: dict):
        self.title = wb.add_format({**base, "bold": True, "font_size": 14})
        self.verdict = wb.add_format({**base, "bold": True, "font_size": 20, "align": "center", "border": 2})  # the cover's result
        self.sign_line = wb.add_format({**base, "bottom": 1})  # a line to write a name, a signature or a date on
        self.h = wb.add_format({**base, "bold": True, "bg_color": "#1F4E79", "font_color": "#FFFFFF", "text_wrap": True})
        self.section = wb.add_format({**base, "bold": True, "bg_color": "#D9E1F2"})
        self.section_wrap = wb.add_format({**base, "bold": True, "bg_color": "#D9E1F2", "text_wrap": True})
        self.text = wb.add_format(base)
        self.wrap = wb.add_format({**base, "text_wrap": True, "valign": "top"})
        self.label = wb.add_format({**base, "text_wrap": True})  # a working row's label: wrapped in its column, never over the years
        self.note = wb.add_format({**base, "italic": True, "font_color": "#595959"})
        self.note_wrap = wb.add_format({**base, "italic": True, "font_color": "#595959", "text_wrap": True, "valign": "top"})
        self.key = wb.add_format({**base, "font_color": "#7F7F7F", "font_size": 9})  # ≥ 8 pt printed at 90%
        self.link = wb.add_format({**base, "font_color": "#0563C1", "underline": 1})

    def _value_formats(self, wb, base: dict, inp: dict):
        calc = {**base, "font_color": "#000000"}
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

    def _status_formats(self, wb):
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


def fmt_key(unit: str) -> str:
    """The number format (a key of :class:`Styles`' dicts) of a value in ``unit``."""
    return {"元": "amount", "%": "ratio", "日期": "date", "元/股": "amount", "股": "count", "月": "count", "项": "count",
            "年": "year"}.get(unit, "gen")


#: an input field's number format, by its kind
FIELD_FMT = {Kind.AMOUNT: "amount", Kind.RATIO: "ratio", Kind.COUNT: "count", Kind.DATE: "date",
             Kind.TEXT: "text", Kind.BOOL: "gen", Kind.ENUM: "gen"}
