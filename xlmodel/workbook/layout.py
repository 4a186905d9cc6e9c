"""Where everything goes in the workbook, and the formula renderer.

The layout is pure data (no file I/O): sheet names, the row of every input
field, parameter and calculation, and the year columns. :class:`CellRenderer`
turns the model's expression trees into formula text using these positions,
so the writer and the tamper check (issue 6) read one source of truth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from .. import catalogue as cat
from ..fields import AUDIT_OPINIONS, BOARDS, COMPANY_FIELDS, FIELDS, HALF_YEAR_OPINIONS, STAGES, YEAR_FIELDS, Kind

SHEETS = {
    "cover": "封面",
    "inputs": "输入",
    "params": "参数",
    "calc": "计算",
    "checks": "检查",
    "summary": "汇总",
    "text": "规划原文",
    "lists": "列表",
}
SHEET_EN = {
    "cover": "Cover", "inputs": "Inputs", "params": "Parameters", "calc": "Calculations",
    "checks": "Checks", "summary": "Summary", "text": "Plan text", "lists": "Lists",
}

#: sections of the input sheet: (中文, English, field ids)
INPUT_SECTIONS = (
    ("财务数据", "Financials", ("net_profit_attributable", "distributable_profit", "retained_earnings_consolidated",
                                 "retained_earnings_parent", "total_assets", "net_assets", "total_liabilities",
                                 "operating_cash_flow", "revenue", "rd_expense", "share_count", "audit_opinion")),
    ("利润分配方案", "Distributions (the evaluation year: the proposal)",
     ("cash_dividend", "buyback_amount", "buyback_cancelled", "stock_dividend", "capital_reserve_conversion")),
    ("董事会判断", "Board judgments", ("planned_major_outlay", "major_outlay_planned", "development_stage",
                                       "going_concern_unaffected", "cash_flow_sufficient")),
    ("中期分红", "Interim dividend", ("interim_cash_dividend", "half_year_distributable_profit", "half_year_audit_opinion")),
    ("市场数据（减持限制）", "Market facts (sale restriction)", ("price_below_net_assets_20d", "price_below_ipo_20d")),
    ("治理程序", "Governance", ("vote_for_ratio", "online_voting_offered", "independent_directors_opinion",
                                "agm_date", "payout_date")),
)
assert sorted(f for _, _, fs in INPUT_SECTIONS for f in fs) == sorted(f.id for f in YEAR_FIELDS)

OUTPUTS = (
    ("overall_status", "out_overall_status", "总体结论", "Overall result"),
    ("cash_conditions_met", "out_cash_conditions_met", "现金分红条件是否满足", "Cash dividend conditions met"),
    ("min_cash_dividend", "out_min_cash_dividend", "最低现金分红（元）", "Minimum cash dividend (元)"),
    ("max_distribution", "out_max_distribution", "利润分配上限（元）", "Maximum distribution (元)"),
    ("fail_count", "out_fail_count", "不通过规则数", "Rules failed"),
    ("warn_count", "out_warn_count", "警告规则数", "Warnings"),
    ("missing_input_count", "out_missing_input_count", "缺少输入规则数", "Rules missing input"),
    ("st_risk_warning", "out_st_risk_warning", "触发交易所低分红风险警示（空白=不适用）", "Exchange low-dividend risk warning (blank = out of scope)"),
    ("cash_needed_to_avoid_st", "out_cash_needed_to_avoid_st", "避免风险警示所需本年现金分红（元）", "Cash needed this year to avoid the warning (元)"),
)
CHECK_COLS = ("actual", "required", "margin", "shortfall", "status")

FIRST_YEAR_COL = 4  # column E
HEADER_ROW = 4  # 0-based row of the year header on inputs and calc sheets


def q(sheet: str) -> str:
    return f"'{sheet}'"


def pname(param: str) -> str:
    return "p_" + param.replace(".", "_")


@dataclass
class Layout:
    model: cat.Model
    evaluation_year: int
    n_years: int = 5
    inputs: dict[str, int] = field(default_factory=dict)  # field id -> row (year fields)
    company: dict[str, int] = field(default_factory=dict)  # company field -> row (value in FIRST_YEAR_COL)
    attest: dict[str, int] = field(default_factory=dict)  # rule id -> row (value in T column)
    params: dict[str, tuple[int, int]] = field(default_factory=dict)  # param -> (first row, last row), col D
    series: dict[str, int] = field(default_factory=dict)  # series -> row on calc sheet
    calc_rows: dict[str, int] = field(default_factory=dict)  # scalar -> row on calc sheet (T column)
    check_rows: dict[str, int] = field(default_factory=dict)  # rule id -> row on checks sheet
    output_rows: dict[str, int] = field(default_factory=dict)  # scalar -> row on summary (col C)
    labels: dict[str, tuple[str, int]] = field(default_factory=dict)  # label code -> (text, row) on lists
    enum_ranges: dict[str, tuple[int, int]] = field(default_factory=dict)  # enum id -> rows on lists (col B)

    def __post_init__(self):
        self.n_years = max(self.n_years, 1 - self.model.history)
        self._place()

    # -- columns -------------------------------------------------------------
    @property
    def t_col(self) -> int:
        return FIRST_YEAR_COL + self.n_years - 1

    def year_col(self, offset: int) -> int:
        return self.t_col + offset

    @property
    def offsets(self) -> list[int]:
        return list(range(-(self.n_years - 1), 1))

    @property
    def notes_col(self) -> int:
        return self.t_col + 1

    # -- placement -----------------------------------------------------------
    def _place(self):
        r = HEADER_ROW + 1
        for _zh, _en, fids in INPUT_SECTIONS:
            r += 1  # section header
            for fid in fids:
                self.inputs[fid] = r
                r += 1
        r += 1
        for f in COMPANY_FIELDS:
            self.company[f.id] = r
            r += 1
        r += 1
        for rid in self.model.attestation_ids():
            self.attest[rid] = r
            r += 1
        r = HEADER_ROW + 1
        for name, prm in self.model.params.items():
            n = len(prm.value) if isinstance(prm.value, tuple) else 1
            self.params[name] = (r, r + n - 1)
            r += n
        r = HEADER_ROW + 2
        for name in self.model.series:
            self.series[name] = r
            r += 1
        r += 3
        for name in self.model.scalars:
            if self.scalar_home(name) == "calc":
                self.calc_rows[name] = r
                r += 1
        r = HEADER_ROW + 2
        for role in ("condition", "requirement", "regulatory"):
            for rd in self.model.rules:
                if rd.role == role:
                    self.check_rows[rd.id] = r
                    r += 1
            r += 2
        r = 4
        for name, *_ in OUTPUTS + (("check_flag", "out_check_flag", "", ""),):
            self.output_rows[name] = r
            r += 1
        r = 2
        for code in cat.STATUSES + ("ok", "check") + tuple(cat.REASONS):
            self.labels[code] = (LABEL_TEXT[code], r)
            r += 1
        r += 1
        for enum_id, choices in (("bool", {"yes": "是", "no": "否"}),) + tuple(
                (k, v) for k, v in ENUM_LISTS.items()):
            self.enum_ranges[enum_id] = (r, r + len(choices) - 1)
            for code, text in choices.items():
                self.labels[code] = (text, r)
                r += 1
            r += 1

    def scalar_home(self, name: str) -> str:
        rid, _, col = name.rpartition(".")
        if rid and col in CHECK_COLS:
            return "checks"
        if name in dict((o[0], o) for o in OUTPUTS) or name == "check_flag":
            return "summary"
        return "calc"

    def scalar_cell(self, name: str) -> tuple[str, int, int]:
        home = self.scalar_home(name)
        if home == "checks":
            rid, _, col = name.rpartition(".")
            return SHEETS["checks"], self.check_rows[rid], CHECK_COL_INDEX[col]
        if home == "summary":
            return SHEETS["summary"], self.output_rows[name], 2
        return SHEETS["calc"], self.calc_rows[name], self.t_col


ENUM_LISTS = {"audit_opinion": AUDIT_OPINIONS, "half_year_audit_opinion": HALF_YEAR_OPINIONS,
              "development_stage": STAGES, "board": BOARDS}
LABEL_TEXT = {**cat.STATUS_ZH, "ok": "正常", "check": "请检查", **{k: zh for k, (zh, _en) in cat.REASONS.items()}}
#: check sheet: actual, the kind of bound (text), the bound, the margin, the shortfall, the status
CHECK_COL_INDEX = {"actual": 4, "bound_kind": 5, "required": 6, "margin": 7, "shortfall": 8, "status": 9}
CHECK_STATUS_COL = "J"  # the status column's letter (chk_* names, conditional formats)
_REF = re.compile(r"^('[^']+'|[^!]+)!(\$?)([A-Z]+)(\$?)(\d+)$")


class CellRenderer:
    """Renders expression trees as formula text for a :class:`Layout`.

    ``column`` is None for evaluation-year formulas (absolute references) or the
    year offset of the column a per-year formula is written in (relative column
    references, so that the formula is the same across the row in R1C1 terms).
    """

    def __init__(self, layout: Layout, column: int | None = None):
        self.L, self.column = layout, column

    def _ref(self, sheet: str, row: int, col: int) -> str:
        absolute = self.column is None
        return f"{q(sheet)}!{xl_rowcol_to_cell(row, col, row_abs=True, col_abs=absolute)}"

    def _field_cell(self, fid: str, offset: int) -> str:
        L = self.L
        if fid.startswith(cat.ATTEST):
            return self._ref(SHEETS["inputs"], L.attest[fid[len(cat.ATTEST):]], L.t_col)
        if fid in L.company:
            return self._ref(SHEETS["inputs"], L.company[fid], FIRST_YEAR_COL)
        base = offset + (self.column or 0)
        col = L.year_col(base)
        if col < FIRST_YEAR_COL:
            raise ValueError(f"{fid} at year offset {base} is before the first year column")
        return self._ref(SHEETS["inputs"], L.inputs[fid], col)

    def field(self, fid, offset):
        ref = self._field_cell(fid, offset)
        f = FIELDS.get(fid)
        if f is None or f.kind == Kind.BOOL:
            return f"({ref}={self.label('yes')})"
        return ref

    def field_blank(self, fid, offset):
        return f"ISBLANK({self._field_cell(fid, offset)})"

    def param(self, name):
        return pname(name)

    def calc(self, name, offset):
        L = self.L
        if name in L.series:
            base = (offset or 0) + (self.column or 0)
            return self._ref(SHEETS["calc"], L.series[name], L.year_col(base))
        sheet, row, col = L.scalar_cell(name)
        return f"{q(sheet)}!{xl_rowcol_to_cell(row, col, row_abs=True, col_abs=True)}"

    def label(self, code):
        return f"lbl_{code}"

    def fy(self, offset):
        col = self.L.year_col(offset + (self.column or 0))
        return self._ref(SHEETS["inputs"], HEADER_ROW, col)

    def span(self, refs: list[str]) -> str | None:
        """Status cells of the checks sheet as one range for COUNTIF: from the first to the last,
        when every rule row in between is one of them (section titles and gaps hold no status)."""
        parts = [_REF.match(r) for r in refs]
        status_col = col_name(CHECK_COL_INDEX["status"])
        if not all(parts) or {(p.group(1), p.group(3)) for p in parts} != {(q(SHEETS["checks"]), status_col)}:
            return self.range(refs)
        rows = {int(p.group(5)) - 1 for p in parts}
        lo, hi = min(rows), max(rows)
        if {r for r in self.L.check_rows.values() if lo <= r <= hi} != rows:
            return self.range(refs)
        return f"{q(SHEETS['checks'])}!${status_col}${lo + 1}:${status_col}${hi + 1}"

    def range(self, refs: list[str]) -> str | None:
        """Join references to adjacent cells of one row or column into A1:B1."""
        parts = [_REF.match(r) for r in refs]
        if not all(parts) or len({p.group(1) for p in parts}) != 1:
            return None
        from xlsxwriter.utility import xl_cell_to_rowcol

        cells = [xl_cell_to_rowcol(p.group(3) + p.group(5)) for p in parts]
        rows, cols = {c[0] for c in cells}, {c[1] for c in cells}
        if len(rows) == 1:
            seq = [c[1] for c in cells]
        elif len(cols) == 1:
            seq = [c[0] for c in cells]
        else:
            return None
        if seq != list(range(seq[0], seq[0] + len(seq))):
            return None
        first, last = parts[0], parts[-1]
        return f"{first.group(1)}!{first.group(2)}{first.group(3)}{first.group(4)}{first.group(5)}:" \
               f"{last.group(2)}{last.group(3)}{last.group(4)}{last.group(5)}"


def col_name(col: int) -> str:
    return xl_col_to_name(col)
