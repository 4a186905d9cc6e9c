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

from ..rules import catalogue as cat
from ..rules import expr as E
from ..errors import XlmodelError
from ..fields import AUDIT_OPINIONS, BASE_CHANGE, BOARDS, COMPANY_FIELDS, ENUMS, FIELDS, HALF_YEAR_OPINIONS, PERIODS, SLOTS, STAGES, \
    YEAR_FIELDS, Kind
from ..outputs import HEADLINE as HEADLINE_OUTPUTS
from ..outputs import SUMMARY as SUMMARY_OUTPUTS

SHEETS = {
    "cover": "封面",
    "inputs": "输入",
    "params": "参数",
    "calc": "计算",
    "checks": "检查",
    "summary": "汇总",
    "announce": "公告",
    "planning": "测算",
    "text": "规划原文",
    "lists": "列表",
}
SHEET_EN = {
    "cover": "Cover", "inputs": "Inputs", "params": "Parameters", "calc": "Calculations",
    "checks": "Checks", "summary": "Summary", "announce": "Announcement", "planning": "Planning", "text": "Plan text", "lists": "Lists",
}
#: each sheet's kind, and the colour of its tab (issue 52.8): inputs (what a user enters, the plan's thresholds)
#: yellow, calculations blue, checks orange, outputs green, reference (the plan's text, the lists) grey
SHEET_KIND = {"cover": "output", "inputs": "input", "params": "input", "calc": "calculation", "checks": "check",
              "summary": "output", "announce": "output", "planning": "calculation", "text": "reference", "lists": "reference"}
TAB_COLOUR = {"input": "#FFC000", "calculation": "#4472C4", "check": "#ED7D31", "output": "#70AD47", "reference": "#A5A5A5"}

#: sections of the input sheet: (中文, English, field ids)
INPUT_SECTIONS = (
    ("财务数据", "Financials", ("net_profit_attributable", "distributable_profit", "retained_earnings_consolidated",
                                 "retained_earnings_parent", "net_profit_parent", "total_assets", "net_assets",
                                 "total_liabilities", "operating_cash_flow", "revenue", "rd_expense", "cash_and_equivalents", "registered_capital",
                                 "net_profit_attributable_ifrs", "distributable_profit_ifrs", "share_count",
                                 "audit_opinion")),
    ("利润分配方案", "Distributions (the evaluation year: the proposal)",
     ("cash_dividend", "buyback_amount", "buyback_cancelled", "stock_dividend", "capital_reserve_conversion",
      "distribution_count", "cash_per_10_shares", "base_share_count", "buyback_account_shares", "base_change_keeps")),
    ("董事会判断", "Board judgments", ("planned_major_outlay", "major_outlay_planned", "development_stage",
                                       "going_concern_unaffected", "cash_flow_sufficient")),
    ("拟进行的交易（重大支出认定）", "Planned transaction (major-outlay tests)",
     ("transaction_total_assets", "transaction_target_revenue", "transaction_target_net_profit", "transaction_amount",
      "transaction_profit")),
    ("第一次中期分红", "Interim dividend, first", ("interim_period", "interim_cash_dividend", "interim_stock_dividend",
                                                  "half_year_distributable_profit", "half_year_net_profit_attributable",
                                                  "half_year_retained_earnings_consolidated",
                                                  "half_year_retained_earnings_parent", "half_year_audit_opinion")),
    *((f"{zh}中期分红", f"Interim dividend, {en}", slot.fields) for slot, (zh, en) in
      ((SLOTS[1], ("第二次", "second")), (SLOTS[2], ("第三次", "third")))),
    ("市场数据（减持限制）", "Market facts (sale restriction)", ("price_below_net_assets_20d", "price_below_ipo_20d")),
    ("治理程序", "Governance", ("vote_for_ratio", "online_voting_offered", "independent_directors_opinion",
                                "agm_date", "payout_date")),
)
assert sorted(f for _, _, fs in INPUT_SECTIONS for f in fs) == sorted(f.id for f in YEAR_FIELDS)

OUTPUTS = cat.OUTPUTS  # the model's results, each with its defined name on 汇总 and its labels (xlmodel.outputs)
#: the results that are a yes/no: 1/0 shown 是/否 (cash_conditions_met, st_risk_warning)
YES_NO_OUTPUTS = tuple(o.id for o in HEADLINE_OUTPUTS if o.kind == "yes_no")
CHECK_COLS = ("actual", "required", "margin", "shortfall", "status")

FIRST_YEAR_COL = 4  # column E
HEADER_ROW = 4  # 0-based row of the year header on inputs and calc sheets


def q(sheet: str) -> str:
    return f"'{sheet}'"


def pname(param: str) -> str:
    return "p_" + param.replace(".", "_")


@dataclass
class Layout:
    """Rows and columns of one workbook.

    The year columns are a fixed timeline: ``first_year`` in column E, one year per column to
    the right, covering the history the rules need before the plan period and the whole plan
    period (and the evaluation year, if it lies outside). Every rule is evaluated in every
    *evaluated* column (those with the history the rules need); the evaluation year selects one
    of them and never relabels the data. ``first_year``/``n_years`` default from the plan and
    the evaluation year; the reader passes the workbook's own."""

    model: cat.Model
    evaluation_year: int
    first_year: int | None = None
    n_years: int | None = None
    n_eval: int | None = None  # evaluated years (the last n_eval columns)
    inputs: dict[str, int] = field(default_factory=dict)  # field id -> row (year fields)
    company: dict[str, int] = field(default_factory=dict)  # company field -> row (value in FIRST_YEAR_COL)
    attest: dict[str, int] = field(default_factory=dict)  # rule id -> row (value in FIRST_YEAR_COL)
    params: dict[str, tuple[int, int]] = field(default_factory=dict)  # param -> (first row, last row), col D
    series: dict[str, int] = field(default_factory=dict)  # series -> row on calc sheet
    calc_rows: dict[str, int] = field(default_factory=dict)  # scalar -> row on calc sheet (every evaluated column)
    check_rows: dict[str, int] = field(default_factory=dict)  # rule id -> row on checks sheet
    output_rows: dict[str, int] = field(default_factory=dict)  # scalar -> row on summary (col C)
    labels: dict[str, tuple[str, int]] = field(default_factory=dict)  # label code -> (text, row) on lists
    enum_ranges: dict[str, tuple[int, int]] = field(default_factory=dict)  # enum id -> rows on lists (col B)
    yes_no: frozenset = frozenset()  # the calc rows that are a yes/no, shown 1/0 (:func:`yes_no_rows`)
    mixed: dict = field(default_factory=dict)  # rows a yes/no in some branches, a number in others -> their 1/0 tree

    def __post_init__(self):
        lo, hi = self.model.policy.plan_years
        if self.first_year is None:
            self.first_year = min(lo, self.evaluation_year) + self.model.history
        if self.n_years is None:
            self.n_years = max(hi, self.evaluation_year) - self.first_year + 1
        if self.n_eval is None:
            start = max(self.first_year - self.model.history, min(lo, self.evaluation_year))
            self.n_eval = self.last_year - start + 1
        if not 1 <= self.n_eval <= self.n_years + self.model.history:
            raise ValueError(f"{self.n_eval} evaluated years do not fit {self.n_years} year columns")
        self._place()

    # -- columns -------------------------------------------------------------
    @property
    def last_year(self) -> int:
        return self.first_year + self.n_years - 1

    @property
    def years(self) -> list[int]:
        return list(range(self.first_year, self.last_year + 1))

    @property
    def eval_years(self) -> list[int]:
        """The evaluated years: the plan period (and the evaluation year); every earlier column is
        history the windows read."""
        return list(range(self.last_year - self.n_eval + 1, self.last_year + 1))

    def col_of(self, year: int) -> int:
        return FIRST_YEAR_COL + year - self.first_year

    @property
    def t_col(self) -> int:
        """The column of the evaluation year the workbook was built for (cached values only)."""
        return self.col_of(self.evaluation_year)

    def year_col(self, offset: int) -> int:
        return self.t_col + offset

    @property
    def offsets(self) -> list[int]:
        """Every year column, as an offset from the evaluation year."""
        return [y - self.evaluation_year for y in self.years]

    @property
    def eval_offsets(self) -> list[int]:
        return [y - self.evaluation_year for y in self.eval_years]

    @property
    def last_col(self) -> int:
        return FIRST_YEAR_COL + self.n_years - 1

    @property
    def notes_col(self) -> int:
        return self.last_col + 1

    @property
    def readable_col(self) -> int:
        """输入: each input row's count of entries its formulas cannot read (text in a number, …)."""
        return self.notes_col + 1

    def eval_span(self, row: int, sheet: str = SHEETS["calc"]) -> str:
        """A calc row over the evaluated columns, for INDEX(…, calc_eval_index)."""
        c0, c1 = col_name(self.col_of(self.eval_years[0])), col_name(self.last_col)
        return f"{q(sheet)}!${c0}${row + 1}:${c1}${row + 1}"

    # -- placement -----------------------------------------------------------
    def _place(self):
        self._place_inputs()
        r = HEADER_ROW + 1
        for name, prm in self.model.params.items():
            n = len(prm.value) if isinstance(prm.value, tuple) else 1
            self.params[name] = (r, r + n - 1)
            r += n
        self._place_calc()
        r = HEADER_ROW + 2
        for ids in self.rule_groups().values():
            for rid in ids:
                self.check_rows[rid] = r
                r += 1
            r += 2
        r = 4
        for o in SUMMARY_OUTPUTS:  # the headline outputs, then the model check (xlmodel.outputs)
            self.output_rows[o.id] = r
            r += 1
        self._place_lists()

    def rule_groups(self) -> dict[str, list[str]]:
        """Rule ids by role (conditions, plan requirements, regulatory baseline), roles without rules left out."""
        groups = {role: [rd.id for rd in self.model.rules if rd.role == role] for role in ROLES}
        return {role: ids for role, ids in groups.items() if ids}

    def rule_order(self) -> list[str]:
        """Rules in the order the check sheet shows them."""
        return [rid for ids in self.rule_groups().values() for rid in ids]

    def _place_inputs(self):
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

    def _place_calc(self):
        """Calc sheet: flags, series, the rules' working, their statuses (one block, in check order), outputs."""
        self.yes_no = yes_no_rows(self.model) | frozenset(TIMELINE_FLAGS)
        self.mixed = mixed_rows(self.model)
        r = HEADER_ROW + 2
        for name in TIMELINE_FLAGS:
            self.calc_rows[name] = r
            r += 1
        r += 2
        for name in self.model.series:
            self.series[name] = r
            r += 1
        r += 2
        statuses = [f"{rid}.status" for rid in self.rule_order()]
        outputs = [o.id for o in SUMMARY_OUTPUTS]
        for name in self.model.scalars:
            if name not in statuses and name not in outputs:
                self.calc_rows[name] = r
                r += 1
        for block in (statuses, outputs, [row for row, _ in GUARDED.values()]):
            r += 2
            for name in block:
                self.calc_rows[name] = r
                r += 1

    def _place_lists(self):
        r = 2
        for code in cat.STATUSES + ("ok", "check", "undetermined") + tuple(cat.REASONS):
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

    def shown_row(self, name: str) -> int:
        """The calc row a result is shown from: its guarded row where it has one (:data:`GUARDED`)."""
        return self.calc_rows[GUARDED[name][0] if name in GUARDED else name]

    def scalar_cell(self, name: str) -> tuple[str, int, int]:
        """Where a calculation's evaluation-year value is (the built-for year's column on 计算)."""
        return SHEETS["calc"], self.calc_rows[name], self.t_col

    def status_block(self) -> tuple[int, int]:
        rows = [self.calc_rows[f"{rid}.status"] for rid in self.rule_order()]
        return min(rows), max(rows)


def yes_no_rows(model: cat.Model) -> frozenset[str]:
    """The calculations that are a yes/no (TRUE/FALSE, or blank where undetermined): the workbook shows them
    as 1/0 formatted 是/否 (:data:`.styles.YES_NO`), never TRUE/FALSE (issue 23.7). Kept with the model."""
    return model.derived.table("workbook yes/no rows", None).once("rows", _yes_no_rows, model)


def mixed_rows(model: cat.Model) -> dict:
    """The calculations that are a yes/no in some branches of an IF and a number in others (a test where a
    rule applies, 0 where it does not): name -> the tree with each yes/no branch as 1/0
    (:func:`xlmodel.rules.expr.as_number_mixed`), so that no cell holds TRUE/FALSE. Kept with the model."""
    return model.derived.table("workbook mixed rows", None).once("rows", _mixed_rows, model)


def _mixed_rows(model: cat.Model) -> dict:
    from ..rules.expr import BLANK, BOOL, NUMBER, as_number_mixed, kinds

    leaf, rows = _kind_leaf(model), yes_no_rows(model)
    out = {}
    for name, node in model.scalars.items():
        k = leaf(E.C(name))
        if BOOL in k and NUMBER in k and k <= {BOOL, NUMBER, BLANK}:
            out[name] = as_number_mixed(node, rows.__contains__, lambda n: kinds(n, leaf))
    return out


def _kind_leaf(model: cat.Model):
    """What a leaf can be (expr.kinds) in ``model``: an input's field kind, a calculation's own kinds."""
    from ..rules.expr import BOOL, NUMBER, TEXT, kinds

    memo: dict[str, frozenset] = {}

    def leaf(node) -> frozenset:
        if isinstance(node, E.In):
            return _field_kinds(node.fid)
        name = node.name
        if name in model.series or name not in model.scalars:
            return frozenset({NUMBER})
        if name not in memo:
            memo[name] = frozenset({BOOL, NUMBER, TEXT})  # a cycle (none in a model) is anything
            memo[name] = kinds(model.scalars[name], leaf)
        return memo[name]
    return leaf


def _yes_no_rows(model: cat.Model) -> frozenset[str]:
    from ..rules.expr import is_yes_no, yes_no_readers

    leaf = _kind_leaf(model)
    rows = frozenset(n for n in model.scalars if is_yes_no(leaf(E.C(n))))
    for name, node in (*model.scalars.items(), *model.series.items()):
        bad = yes_no_readers(node, rows.__contains__)
        if bad:
            raise XlmodelError(f"计算 {name}：{', '.join(bad)} 读取是/否行（工作簿中为 1/0），含义会改变 {name}: {', '.join(bad)} "
                               "reads a yes/no row, which the workbook shows as 1/0; this is a bug in xlmodel")
    return rows


MAX_YEAR_COLUMNS = 40  # the widest timeline xlmodel writes (and reads)


def timeline(model: cat.Model, year: int, data_years) -> tuple[int, int, int]:
    """(first year, years, evaluated years) of a workbook: the plan period (and the evaluation year)
    evaluated, with the history its rules need before it, stretched to every year the case has data
    for (nothing given is dropped), at most MAX_YEAR_COLUMNS."""
    default = Layout(model, year)
    first = min([default.first_year, *data_years])
    last = max([default.last_year, *data_years])
    first = max(first, last - MAX_YEAR_COLUMNS + 1, year - MAX_YEAR_COLUMNS // 2)
    last = min(last, first + MAX_YEAR_COLUMNS - 1)
    start = max(first - model.history, default.eval_years[0])
    return first, last - first + 1, last - start + 1


ROLES = ("condition", "requirement", "regulatory")
#: per-year flag rows at the top of the calc sheet: this column is the evaluation year / in the plan period
TIMELINE_FLAGS = ("is_evaluation_year", "in_plan_period", "readable")
#: the results the workbook shows only where every input is readable and no result is an error (issue 20):
#: result -> (its guarded row on 计算, read by 汇总 and the cover; the label shown instead: 无法判断 / 请检查)
GUARDED = {"overall_status": ("verdict", "undetermined"), "check_flag": ("verdict_check", "check")}

ENUM_LISTS = {"audit_opinion": AUDIT_OPINIONS, "half_year_audit_opinion": HALF_YEAR_OPINIONS,
              "development_stage": STAGES, "board": BOARDS, "interim_period": PERIODS, "base_change_keeps": BASE_CHANGE}
#: an enum field whose drop-down is another's list (every interim's period reads the one list of periods)
LIST_OF = {s.period: "interim_period" for s in SLOTS}
assert set(ENUM_LISTS) | set(LIST_OF) == set(ENUMS), "every enumeration has its list (the input's drop-down and readable check)"
LABEL_TEXT = cat.LABEL_TEXT  # (kept with the rest of the labels, where the worksheet functions read it too)
#: check sheet: actual, the kind of bound (text), the bound, the margin, the shortfall, the status
CHECK_COL_INDEX = {"actual": 4, "bound_kind": 5, "required": 6, "margin": 7, "shortfall": 8, "status": 9}
CHECK_STATUS_COL = "J"  # the status column's letter (chk_* names, conditional formats)
_REF = re.compile(r"^('[^']+'|[^!]+)!(\$?)([A-Z]+)(\$?)(\d+)$")


class CellRenderer:
    """Renders expression trees as formula text for a :class:`Layout`.

    ``column`` is the year offset (from the built-for evaluation year) of the column a per-year
    formula is written in: column references are relative, so the formula is the same across
    the row in R1C1 terms. ``column=None`` renders the built-for year's column with absolute
    references (the tree's own estimate of length, UDF sheet natives)."""

    def __init__(self, layout: Layout, column: int | None = None):
        self.L, self.column = layout, column

    def _ref(self, sheet: str, row: int, col: int) -> str:
        absolute = self.column is None
        return f"{q(sheet)}!{xl_rowcol_to_cell(row, col, row_abs=True, col_abs=absolute)}"

    def _here(self, offset: int = 0) -> int:
        col = self.L.year_col(offset + (self.column or 0))
        if col < FIRST_YEAR_COL:
            raise ValueError(f"year offset {offset} from column {self.column} is before the first year column")
        return col

    def _field_cell(self, fid: str, offset: int) -> str:
        L = self.L
        if fid.startswith(cat.ATTEST):  # one column (the evaluation year's attestations)
            return f"{q(SHEETS['inputs'])}!{xl_rowcol_to_cell(L.attest[fid[len(cat.ATTEST):]], FIRST_YEAR_COL, True, True)}"
        if fid in L.company:
            return f"{q(SHEETS['inputs'])}!{xl_rowcol_to_cell(L.company[fid], FIRST_YEAR_COL, True, True)}"
        return self._ref(SHEETS["inputs"], L.inputs[fid], self._here(offset))

    def _is_evaluation_year(self) -> str:
        return self._ref(SHEETS["calc"], self.L.calc_rows["is_evaluation_year"], self._here())

    def field(self, fid, offset):
        ref = self._field_cell(fid, offset)
        if fid.startswith(cat.ATTEST):  # an attestation is given for the evaluation year only
            return f"AND({self._is_evaluation_year()},{ref}={self.label('yes')})"
        f = FIELDS.get(fid)
        if f is None or f.kind == Kind.BOOL:
            return f"({ref}={self.label('yes')})"
        return ref

    def field_blank(self, fid, offset):
        if fid.startswith(cat.ATTEST):
            return f"OR(NOT({self._is_evaluation_year()}),ISBLANK({self._field_cell(fid, offset)}))"
        return f"ISBLANK({self._field_cell(fid, offset)})"

    def param(self, name):
        return pname(name)

    def compared(self, op: str, a, b):
        """The operands of a comparison as rendered: a yes/no row holds 1/0, so the yes/no it is compared
        with is the number too (``IF(x,1,0)``; in Excel 1=TRUE is FALSE, in LibreOffice TRUE); a "" stays
        "" (unequal to a number as to a boolean, in every engine). The rules order no yes/no."""
        rows = self.L.yes_no
        row_a = isinstance(a, E.C) and a.name in rows and a.name not in self.L.series
        row_b = isinstance(b, E.C) and b.name in rows and b.name not in self.L.series
        if row_a == row_b:
            return a, b
        if op not in ("=", "<>"):
            raise XlmodelError(f"是/否行不能比较大小（{op}）a yes/no row ordered ({op}): the rules only test a yes/no "
                               "for equality; this is a bug in xlmodel")
        other = b if row_a else a
        k = _kinds_here(self.L, other)
        if not k <= {E.BOOL, E.BLANK}:
            raise XlmodelError(f"是/否行与非是/否的值比较 a yes/no row compared with a value that is not a yes/no "
                               f"({', '.join(sorted(k))}); this is a bug in xlmodel")
        other = E.as_number(other, rows.__contains__)
        return (a, other) if row_a else (other, b)

    def calc(self, name, offset):
        L = self.L
        if name in L.series:
            return self._ref(SHEETS["calc"], L.series[name], self._here(offset or 0))
        return self._ref(SHEETS["calc"], L.calc_rows[name], self._here())

    def label(self, code):
        return f"lbl_{code}"

    def fy(self, offset):
        return self._ref(SHEETS["inputs"], HEADER_ROW, self._here(offset))

    def window(self, leaf, years: str, skip: int) -> str:
        """SUMPRODUCT of a year row and the flag "in the window of this column's year" (see expr.Window)."""
        L = self.L
        if hasattr(leaf, "fid"):
            row = f"in_{leaf.fid}"  # the input row over every year column
        else:
            r = L.series[leaf.name] + 1
            row = f"{q(SHEETS['calc'])}!${col_name(FIRST_YEAR_COL)}${r}:${col_name(L.last_col)}${r}"
        fy = self.fy(0)
        return f"SUMPRODUCT((in_years>{fy}-{years})*(in_years{'<=' if skip == 0 else '<'}{fy}),{row})"

    def span(self, refs: list[str]) -> str | None:
        """Cells of one column as one range for COUNTIF, in any order, when they are adjacent."""
        parts = [_REF.match(r) for r in refs]
        if not all(parts) or len({(p.group(1), p.group(2), p.group(3)) for p in parts}) != 1:
            return None
        rows = sorted(int(p.group(5)) for p in parts)
        if rows != list(range(rows[0], rows[0] + len(rows))):
            return None
        p, d = parts[0], parts[0].group(4)
        return f"{p.group(1)}!{p.group(2)}{p.group(3)}{d}{rows[0]}:{p.group(2)}{p.group(3)}{d}{rows[-1]}"

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


def _field_kinds(fid: str) -> frozenset[str]:
    """What an input reads as in a formula: a yes/no field (and an attestation) TRUE/FALSE (``(ref=lbl_yes)``)."""
    f = FIELDS.get(fid)
    return frozenset({E.BOOL}) if f is None or f.kind == Kind.BOOL else frozenset({E.NUMBER, E.TEXT})


def _kinds_here(L: Layout, node) -> frozenset[str]:
    """What ``node`` can be (expr.kinds) in the layout's model: a yes/no row a yes/no."""
    def leaf(n):
        if isinstance(n, E.In):
            return _field_kinds(n.fid)
        if n.name in L.yes_no and n.name not in L.series:
            return frozenset({E.BOOL, E.BLANK})
        return frozenset({E.NUMBER, E.TEXT, E.BOOL})
    return E.kinds(node, leaf)


def col_name(col: int) -> str:
    return xl_col_to_name(col)
