"""What every sheet of a workbook shares while it is written: the model, the case, the layout, the
evaluated values, the styles, and the helpers that write a header, a text, a validation or a formula.

:class:`Builder` holds it; each sheet is a module of :mod:`xlmodel.workbook.sheets` with a
``write(b)`` that takes the builder; :class:`xlmodel.workbook.writer.WorkbookBuilder` is the builder
that composes them into one file. The sheets import this module, never the writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
from xlsxwriter.utility import xl_col_to_name, xl_range, xl_rowcol_to_cell

from ..case import Case
from ..rules.model import Derived
from ..errors import XlmodelError
from ..evaluator import evaluate_one, evaluate_timeline, model_for
from ..rules.expr import as_number
from ..plans.schema import Policy, worded_for_year
from .cached import EMPTY
from .checked_sheet import MAX_TEXT, text_units
from .layout import FIRST_YEAR_COL, HEADER_ROW, SHEET_KIND, SHEETS, TAB_COLOUR, CellRenderer, Layout, q, timeline

PAGE_WIDTH = 135  # column-width units across A4 landscape at 100% (0.4" margins)
MIN_PRINT_SCALE = 0.9  # the smallest text is 9 pt: printed at ≥ 8 pt
#: the working sheets printed as one band (issue 52.1): one page wide, every year's figures beside their labels
ONE_BAND = ("calc", "planning")

#: the date the bundled samples were prepared (their files' headers): the date ``xlmodel samples`` prints on
#: their covers when SOURCE_DATE_EPOCH is not set, so that a rebuilt sample is the one committed
SAMPLES_DATE = "2026-12-01"

#: the layouts of one model whose formulas are kept (``model.derived``), and the formulas kept for each
MAX_LAYOUTS = 16
MAX_FORMULAS = 200_000


class Builder:
    """The state of one workbook being written, and the helpers its sheets share."""

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
        # a blank model is the plan's company's: its name, code and board from the plan file (issue 51.1)
        subject = case or Case(policy.id, self.year, company=policy.company_fields())
        self.subject = subject
        self.env = evaluate_timeline(self.model, subject, self.L.eval_years)  # one element per evaluated year
        self.j = self.L.eval_years.index(self.year)
        self._env1 = None
        self._formulas = None  # this layout's rendered formulas, kept with the model (:meth:`formula`)

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

    def calc_node(self, name: str):
        """The tree a calculation's cells are rendered from: the model's, a yes/no row's as the number 1/0
        it shows (:func:`.layout.yes_no_rows`, :func:`xlmodel.rules.expr.as_number`; kept with the model)."""
        node = self.model.scalars[name]
        if name in self.L.mixed:
            return self.L.mixed[name]
        if name not in self.L.yes_no:
            return node
        kept = self.model.derived.table("workbook yes/no trees", None)
        hit = kept.get(name)
        if hit is None or hit[0] is not node:  # kept with its tree (a copied model may hold another)
            hit = kept.put(name, (node, as_number(node, self.L.yes_no.__contains__)))
        return hit[1]

    def cached_calc(self, name: str, value):
        """A calculation's cached value as its cell shows it: a yes/no row's 1/0 (blank stays blank)."""
        if name in self.L.yes_no or (name in self.L.mixed and isinstance(value, (bool, np.bool_))):
            return self.yes_no_cached(value)
        return self.cached(value)

    def value(self, name: str, j: int | None = None):
        """A calculation's value in evaluated year ``j`` (default: the evaluation year)."""
        return self.env.calc(name, None)[self.j if j is None else j]

    def scalar(self, name: str, j: int | None = None):
        return self.cached(self.value(name, j))

    # -- the board page's readable forms of the outputs ------------------------
    @staticmethod
    def yes_no_formula(out: str) -> str:
        """TRUE/FALSE/blank -> 是/否/缺少输入, through the labels (no text constants in formulas)."""
        return f"=IF({out}=\"\",lbl_missing_input,IF({out},lbl_yes,lbl_no))"

    @staticmethod
    def as_yes_no(formula: str) -> str:
        """A boolean formula as the number 1/0 shown 是/否 (:data:`.styles.YES_NO`); blank stays blank."""
        x = formula[1:]
        return f"=IF({x}=\"\",\"\",IF({x},1,0))"

    def yes_no_cached(self, value):
        """The cached value of :meth:`as_yes_no`."""
        if isinstance(value, str) and value == "":
            return EMPTY
        return 1.0 if bool(value) else 0.0

    def yes_no_label(self, name: str, j: int | None = None) -> str:
        v = self.value(name, j)
        if isinstance(v, str) and v == "":
            return self.L.labels["missing_input"][0]
        return self.L.labels["yes" if bool(v) else "no"][0]

    def in_units(self, name: str, unit: float, j: int | None = None):
        v = self.value(name, j)
        return EMPTY if isinstance(v, str) else float(v) / unit

    def formula(self, node, column: int | None = None) -> str:
        """A tree's formula text in a column of 计算 (:meth:`rendered`)."""
        return self.rendered((id(node), column), node, lambda: "=" + node.render(CellRenderer(self.L, column)))

    def rendered(self, key: tuple, node, render: Callable[[], str]) -> str:
        """``render()``, a tree's formula text at the place ``key`` names. A formula depends only on the
        model and the layout (every row and column it places), so the builds of one model and layout
        share them: kept with the model (``model.derived``, a table per layout), keyed by place and
        tree (the tree is kept with its text: an id is unique while it lives)."""
        formulas = self._formulas
        if formulas is None:
            formulas = self._formulas = _layout_formulas(self.L)
        if formulas is False:  # a layout with something unhashable: rendered every time
            return render()
        hit = formulas.get(key)
        if hit is None or hit[0] is not node:
            hit = formulas.put(key, (node, render()))
        return hit[1]

    def at_evaluation_year(self, name: str) -> str:
        """Formula: a calculation's value in the evaluation year's column (a guarded result's as shown)."""
        return f"=INDEX({self.L.eval_span(self.L.shown_row(name))},1,calc_eval_index)"

    # -- the workbook --------------------------------------------------------
    #: the output ``write`` writes the temporary file of (:func:`.writer.build_workbook` sets it): errors name it
    target: Path | None = None

    def _start(self, wb, styles) -> None:
        """The workbook being written, its styles, and one worksheet for each of the model's sheets (in
        the order of their tabs, :data:`.layout.SHEETS`)."""
        self.wb, self.st = wb, styles
        self.widths: dict[str, int] = {}  # sheet -> its columns' width (characters), for printing
        self._validations: dict[tuple, tuple] = {}
        self.ws = {k: wb.add_worksheet(v) for k, v in SHEETS.items()}
        for k, ws in self.ws.items():  # each tab coloured by what the sheet is (input, calculation, check, output)
            ws.set_tab_color(TAB_COLOUR[SHEET_KIND[k]])

    def _print_setup(self, ws):
        """A4 landscape, readable: fitted to the page width only where that keeps the smallest text
        (9 pt) at 8 pt or more (a scale of 90%); a wider sheet prints at 90% across pages, its label
        columns repeated on each — but the working sheets (:data:`ONE_BAND`), laid out narrow enough,
        always print one page wide (issue 52.1). Every sheet numbers its own pages from 1."""
        ws.set_paper(9)
        ws.set_margins(left=0.4, right=0.4, top=0.6, bottom=0.6)
        ws.set_start_page(1)
        if ws is self.ws["cover"]:  # the sign-off page: A4 portrait, fitted to the width (its text at ≥ 8 pt)
            ws.set_portrait()
            ws.fit_to_pages(1, 0)
            return
        if ws is self.ws.get("announce"):  # the announcement's figures: one A4 page, portrait
            ws.set_portrait()
            self._print_used_area(ws)
            ws.fit_to_pages(1, 1)
            return
        ws.set_landscape()
        self._print_used_area(ws)
        width = self.widths.get(ws.name, 0)
        if width <= PAGE_WIDTH / MIN_PRINT_SCALE or ws in (self.ws[k] for k in ONE_BAND):
            ws.fit_to_pages(1, 0)
        else:
            ws.set_print_scale(int(MIN_PRINT_SCALE * 100))
            ws.repeat_columns(0, 1)

    @staticmethod
    def _print_used_area(ws):
        """The sheet's print area: the cells written (what Excel prints of a sheet without one). Bounded,
        it also bounds LibreOffice's page breaks: a sheet with print titles and no print area has its
        breaks laid out down to the last of its million rows, on every title set (about 0.3 s of the
        0.57 s LibreOffice took to load a model: benchmarks/bench_parity.py)."""
        if ws.dim_rowmax is not None and ws.dim_colmax is not None:  # XlsxWriter's extent of the cells written
            ws.print_area(0, 0, ws.dim_rowmax, ws.dim_colmax)

    # -- cells ---------------------------------------------------------------
    def put(self, ws, row: int, col: int, text, fmt=None):
        """Text from a plan or a case: always a string cell (never a formula or link); "" stays blank."""
        if text.__class__ is not str:
            text = "" if text is None else str(text)
        if not text:
            return ws.write_blank(row, col, None, fmt)
        return ws.write_string(row, col, text, fmt)

    def user_text(self, where: str, text: str) -> str:
        """Text from the case, checked to fit one Excel cell (never truncated)."""
        n = text_units(text)
        if n > MAX_TEXT:
            src = self.case.source if self.case else "<case>"
            raise XlmodelError(f"{src}: {where}: 文字超出 Excel 单元格的容量 a text of {n:,} characters is longer than an Excel cell holds "
                               f"({MAX_TEXT:,}); it would be truncated")
        return text

    def title(self, spec) -> tuple[str, str]:
        """A rule's titles as worded for the evaluation year: the body that exists in it gives the statements
        (:func:`xlmodel.plans.schema.worded_for_year`: 监事会 before fiscal 2025, the board's 审计委员会 from it on)."""
        return worded_for_year(spec.title_zh, spec.title_en, self.year)

    def header(self, ws, title_zh: str, title_en: str, cols: list[tuple[str, int]]):
        self.widths[ws.name] = sum(w for _, w in cols)
        ws.write(0, 0, f"{title_zh}  {title_en}", self.st.title)
        self.put(ws, 1, 0, f"{self.policy.title_zh}（{self.policy.id} v{self.policy.version}）", self.st.note)
        for i, (label, width) in enumerate(cols):
            ws.set_column(i, i, width)
            if label:
                ws.write(HEADER_ROW, i, label, self.st.h)

    def year_header(self, ws, key: str = "inputs"):
        """The timeline: the first fiscal year is an input, each column to the right one year later
        (on 输入); other sheets show 输入's header. A year after the evaluation year shows 预测 (a conditional
        format reading in_evaluation_year: move the evaluation year and the marks follow, issue 52.8)."""
        L = self.L
        ws.write(HEADER_ROW, 3, "会计年度 FY", self.st.h)
        for y in L.years:
            col = L.col_of(y)
            if key != "inputs":
                ws.write_formula(HEADER_ROW, col, f"={q(SHEETS['inputs'])}!{xl_rowcol_to_cell(HEADER_ROW, col, row_abs=True)}",
                                 self.st.year, y)
            elif col == FIRST_YEAR_COL:
                ws.write_number(HEADER_ROW, col, y, self.st.year_in)
                self.data_validation(ws, HEADER_ROW, col, {
                    "validate": "integer", "criteria": "between", "minimum": 1990, "maximum": 2100,
                    "input_title": "首个会计年度 First fiscal year",
                    "input_message": "第一列的会计年度；右侧各列依次加一年。The first column's fiscal year.",
                    "error_message": "首个会计年度 First fiscal year (1990–2100)"})
                self.wb.define_name("in_first_year", f"={q(SHEETS['inputs'])}!${_c(col)}${HEADER_ROW + 1}")
                self.wb.define_name("in_years", f"={q(SHEETS['inputs'])}!${_c(col)}${HEADER_ROW + 1}:"
                                                f"${_c(L.last_col)}${HEADER_ROW + 1}")  # the year of every column
            else:
                ws.write_formula(HEADER_ROW, col, f"={xl_rowcol_to_cell(HEADER_ROW, col - 1)}+1", self.st.year, y)
        ws.conditional_format(HEADER_ROW, FIRST_YEAR_COL, HEADER_ROW, L.last_col, {
            "type": "formula", "criteria": f"={_c(FIRST_YEAR_COL)}${HEADER_ROW + 1}>in_evaluation_year",
            "format": self.st.forecast_mark})

    def highlight_year(self, ws, r0: int, r1: int, c0: int, c1: int, year_row: int):
        """Mark the evaluation year's column (the year in ``year_row`` of each column)."""
        ref = f"{_c(c0)}${year_row + 1}"
        ws.conditional_format(r0, c0, r1, c1, {"type": "formula", "criteria": f"={ref}=in_evaluation_year",
                                               "format": self.st.current, "stop_if_true": False})

    # -- data validation -----------------------------------------------------
    def data_validation(self, ws, row: int, col: int, options: dict, key=None):
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


def _frozen(v):
    if isinstance(v, dict):
        return tuple((k, _frozen(x)) for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, (set, frozenset)):
        return frozenset(_frozen(x) for x in v)
    return v


def _layout_formulas(L: Layout) -> Derived | bool:
    """The formulas rendered for this layout of its model, kept with the model: keyed by everything the
    layout places (equal keys, equal formulas); False when a part of it cannot be a key."""
    key = tuple((k, _frozen(v)) for k, v in vars(L).items() if k != "model")
    try:
        return L.model.derived.table("workbook formulas", MAX_LAYOUTS).once(key, Derived, MAX_FORMULAS)
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
    """A column's letters (0 -> A)."""
    return xl_col_to_name(col)


def in_units_formula(ref: str, unit: str) -> str:
    """An amount shown in 万元/亿元; blank stays blank (a blank result divided would be #VALUE!)."""
    return f"=IF({ref}=\"\",\"\",{ref}/{unit})"
