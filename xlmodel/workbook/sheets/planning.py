"""测算 (Planning): the dividend path of the remaining plan years as formulas (issue 27, ``xlmodel plan``).

One column per year, as on 计算, and one formula across each row: the flag row (``plan_on``: the column's
year is the evaluation year or later, read from 输入, so that moving the evaluation year moves the path)
decides what a column computes; a year not planned pays what was entered for it. For each planned year
(the evaluation year to the workbook's last year column) the sheet evaluates the model's own trees again, rendered by :class:`PlanRenderer`, with this
year's cash dividend set to an amount and every earlier planned year's to the path's amount:

* step 1 (at 0) and step 2 (at step 1's minimum, so that a rule that applies only once something is
  paid, 现金分红时……, is counted at the amount that makes it apply) give the report's minimum cash
  dividend and the cash the exchange's risk warning needs (:data:`MINIMUM`): the year's minimum is the
  larger of the two steps' — the least amount with which no floor obligation fails (:mod:`xlmodel.planner`);
* the path pays the amount entered in the year's proposed cell (``--pay``), else the year's cash dividend
  on 输入 (the board's proposal: issue 51.2), else the minimum; every obligation's status, the law's cap
  and the year's result (可行、不可行……) are evaluated at that amount.

Nothing is written twice: every rule's formula is rendered from its tree (a cash dividend of a planned
year bound to the path's cells, a window's sum split into the years before the plan — 输入 and 计算 — and
the path's years), the thresholds are the parameter sheet's names, and the cached values are the
evaluator's on the same amounts (equal to :func:`xlmodel.planner.plan`, tests/test_planning_sheet.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from xlsxwriter.utility import xl_rowcol_to_cell

from ...rules import catalogue as cat
from ...evaluator import evaluate_timeline
from ...rules.expr import Blank, C, If, Max, Or
from ...outputs import OUTPUT
from ...planner import STATUS_ZH
from ..cached import EMPTY
from .calculations import LABEL_COLS, YEAR_WIDTH, _number_format, _row_labels, calc_unit, working_cols
from ..styles import row_height
from ..layout import FIRST_YEAR_COL, HEADER_ROW, SHEETS, CellRenderer, col_name, q

KEY = "planning"
#: the rows of the binding rule: (key, 中文, English, unit)
BINDING_ROWS = {
    "binding_row": ("plan_binding", "决定最低额的规则（条款）", "The rule that sets the minimum (its clause)", "文字"),
    "binding_text_row": ("plan_binding_found", "决定规则：写出时由 xlmodel plan 测算（一分钱以下不通过的规则）",
                         "Binding rule as xlmodel plan found it when written (the rule failing one fen below)", "文字"),
    "binding_at_row": ("plan_binding_minimum", "测算决定规则时的最低额（最低额变化则需重新测算）",
                       "The minimum the binding rule was found at (another minimum: run xlmodel plan again)", "元"),
}
#: what the binding-rule row shows when the minimum is no longer the one the rule was found at
STATUS_ZH_RERUN = "最低额已变化，请重新运行 xlmodel plan 确定决定规则"
CHART_ROWS = 21  # rows the path's chart covers
CASH = "cash_dividend"
#: the least cash dividend with which no floor obligation of the year fails, at one amount of this year's
#: cash: the plan's and the baseline's minimums (the report's) and the exchange's risk warning; blank
#: where an input a floor rule needs is missing
MINIMUM = If(Or(C("min_cash_dividend").eq(Blank()), C("cash_needed_to_avoid_st").eq(Blank())), Blank(),
             Max(C("min_cash_dividend"), C("cash_needed_to_avoid_st")))
#: the forecast figures shown (read from 输入) where the plan reads them
SHOWN_INPUTS = ("net_profit_attributable", "distributable_profit", "retained_earnings_consolidated",
                "retained_earnings_parent", "stock_dividend")
STEPS = (
    ("step1", "测算第一步：本年现金分红为 0", "Step 1: this year's cash dividend at 0"),
    ("step2", "测算第二步：本年现金分红为第一步的最低额（“现金分红时”适用的规则）",
     "Step 2: this year's cash dividend at step 1's minimum (rules that apply once something is paid)"),
    ("path", "按本路径金额：各规则的计算与状态", "At the path's amount: every rule's working and status"),
)


@dataclass
class Block:
    """One evaluation of the model per planned year: its rows (calculation name -> row)."""

    key: str
    trial_row: int = 0  # this year's cash dividend in this block
    minimum_row: int | None = None  # MINIMUM at the trial amount (steps 1 and 2)
    rows: dict[str, int] = field(default_factory=dict)


def needed(model: cat.Model, roots) -> set[str]:
    """The calculations (series and scalars) the trees ``roots`` read, directly or through others."""
    names: set[str] = set()
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, C) and n.name not in names and (n.name in model.scalars or n.name in model.series):
            names.add(n.name)
            stack.append(model.scalars.get(n.name) or model.series[n.name])
        stack.extend(n.children())
    return names


class PlanRenderer(CellRenderer):
    """A tree as a formula of one year column of one block: this year's cash dividend is the block's trial
    amount; an earlier year's the path's where that year is planned (its flag on this sheet), else as on
    输入; a series the block's own this year and the path block's in an earlier column (the path block spans
    every year column and holds 计算's value where the year is not planned); everything else as on 计算. The
    same formula in every column (R1C1), whatever year it is: no decision depends on the evaluation year
    the workbook was built for, so moving it on 输入 moves the sheet with it (issue 52.4)."""

    def __init__(self, sheet: "PlanningSheet", block: Block, year: int):
        super().__init__(sheet.L, year - sheet.L.evaluation_year)
        self.s, self.block, self.year = sheet, block, year

    def field(self, fid, offset):
        if fid == CASH:  # the path's row and its flag span every year column: one formula across the row
            if not offset:
                return self.s.ref(self.block.trial_row, self.year)
            y = self.year + offset
            return f"IF({self.s.ref(self.s.on_row, y)},{self.s.ref(self.s.path_row, y)},{super().field(fid, offset)})"
        return super().field(fid, offset)

    def field_blank(self, fid, offset):
        if fid == CASH:
            if not offset:
                return "FALSE"  # an amount of the path is never blank
            return f"AND(NOT({self.s.ref(self.s.on_row, self.year + offset)}),{super().field_blank(fid, offset)})"
        return super().field_blank(fid, offset)

    def calc(self, name, offset):
        if name in self.L.series:  # an earlier year's: the path block's row (计算's value where not planned)
            block = self.block if not offset else self.s.blocks["path"]
            return self.s.ref(block.rows[name], self.year + (offset or 0))
        if name in self.block.rows:
            return self.s.ref(self.block.rows[name], self.year)
        return super().calc(name, offset)

    def window(self, leaf, years: str, skip: int) -> str:
        """The window's years before this one from the path's row (the years not planned there as on 输入
        and 计算; a range ending the column before this one, never a circular reference), and this year's
        value, the block's."""
        fid = getattr(leaf, "fid", None)
        if fid is not None and fid != CASH:
            return super().window(leaf, years, skip)
        here = self.L.col_of(self.year)
        parts = []
        if here > FIRST_YEAR_COL:
            c0, c1 = col_name(FIRST_YEAR_COL), col_name(here - 1)
            hdr, fy = f"${c0}${HEADER_ROW + 1}:{c1}${HEADER_ROW + 1}", f"{col_name(here)}${HEADER_ROW + 1}"
            r = (self.s.path_row if fid else self.s.blocks["path"].rows[leaf.name]) + 1
            parts.append(f"SUMPRODUCT(({hdr}>{fy}-{years})*({hdr}<{fy}),{q(self.s.name)}!${c0}${r}:{c1}${r})")
        if skip == 0:
            parts.append(leaf.render(self))
        return "(" + "+".join(parts) + ")" if parts else "0"


class PlanningSheet:
    """Places and writes 测算 for a :class:`~xlmodel.workbook.writer.WorkbookBuilder` ``b``."""

    def __init__(self, b, label, pay: dict[int, float] | None = None):
        self.b, self.L, self.model, self.label = b, b.L, b.model, label
        self.ws, self.st, self.name = b.ws[KEY], b.st, SHEETS[KEY]
        #: the columns with formulas (as on 计算) and, of them, the years planned for the evaluation year the
        #: workbook is built for (the cached values); the formulas read the flag row ``on_row`` instead
        self.cols = list(self.L.eval_years)
        self.years = [y for y in self.cols if y >= self.L.evaluation_year]
        self.first = self.cols[0]
        self.pay = dict(pay or {})
        m = self.model
        self.cap = next((r.id for r in m.rules if r.spec.kind == "legal_distribution_cap"), None)
        self.obligations = [r.id for r in m.obligations]
        roots = ["fail_count", "max_distribution", "st_risk_warning"] + [f"{rid}.status" for rid in self.obligations]
        step = needed(m, [MINIMUM])
        path = needed(m, [C(n) for n in roots]) | {n for n in step if n in m.series}
        path |= needed(m, [m.series[n] for n in path if n in m.series])
        self.names = {"step1": step, "step2": step, "path": path}
        self.blocks: dict[str, Block] = {}
        self._place()

    # -- placement -----------------------------------------------------------
    def _place(self):
        r = HEADER_ROW + 2
        self.input_rows = {}
        for fid in SHOWN_INPUTS:
            if fid in self.model.read_fields():
                self.input_rows[fid] = r
                r += 1
        r += 2
        self.on_row = r
        self.proposed_row, self.minimum_row, self.path_row = r + 1, r + 2, r + 3
        self.max_row, self.result_row, self.st_row, self.fail_row = r + 4, r + 5, r + 6, r + 7
        self.over_row, self.given_row = r + 8, r + 9
        # the binding rule (as ``xlmodel plan`` finds it), shown while the minimum is the one it was found at
        self.binding_row, self.binding_text_row, self.binding_at_row = r + 10, r + 11, r + 12
        r += 15
        self.status_rows = {rid: r + i for i, rid in enumerate(self.obligations)}
        r += len(self.obligations) + 2
        self.legend_row = r
        r += len(STATUS_ZH) + 3  # the labels of the results, then 请重新测算
        self.chart_row = r
        r += CHART_ROWS + 1
        for key, *_ in STEPS:
            blk = self.blocks[key] = Block(key)
            r += 1
            if key != "path":
                blk.trial_row, blk.minimum_row = r, r + 1
                r += 2
            else:
                blk.trial_row = self.path_row
            for name in self._order(self.names[key]):
                blk.rows[name] = r
                r += 1
            r += 2
        self.last_row = r - 2  # the last row written (the master check reads the sheet to it: plan_area)

    def _order(self, names: set[str]) -> list[str]:
        """As 计算 orders them: the series, the rules' working, their statuses (in check order: a count of
        statuses is one range), the results."""
        m = self.model
        statuses = [f"{rid}.status" for rid in self.L.rule_order()]
        outputs = [o[0] for o in cat.OUTPUTS] + ["check_flag"]
        working = [n for n in m.scalars if n not in statuses and n not in outputs]
        return [n for n in [*m.series, *working, *statuses, *outputs] if n in names]

    def ref(self, row: int, year: int) -> str:
        return f"{q(self.name)}!{xl_rowcol_to_cell(row, self.L.col_of(year), row_abs=True)}"

    def _cell(self, row: int, year: int) -> str:
        return xl_rowcol_to_cell(row, self.L.col_of(year))

    def _renderer(self, blk: Block, y: int):
        """``render(name, node, otherwise)``: the formula of a row of ``blk`` in year ``y``'s column, rendered
        once for the model and layout (they place every row of this sheet too: ``b.rendered``)."""
        r = None

        def render(name: str, node, otherwise: str = '""') -> str:
            def text() -> str:
                nonlocal r
                r = r or PlanRenderer(self, blk, y)
                return self._on(y, node.render(r), otherwise)
            return self.b.rendered((KEY, blk.key, name, y), node, text)
        return render

    def _on(self, y: int, formula: str, otherwise: str = '""') -> str:
        """``formula`` where the column's year is planned (the flag row), else ``otherwise``."""
        return f"=IF({xl_rowcol_to_cell(self.on_row, self.L.col_of(y), row_abs=True)},{formula},{otherwise})"


    # -- values --------------------------------------------------------------
    def _with_cash(self, amounts: dict[int, float]):
        case = self.b.subject
        years = {y: dict(v) for y, v in case.years.items()}
        for y, a in amounts.items():
            years.setdefault(y, {})[CASH] = a
        return dataclasses.replace(case, years=years)

    def _evaluate(self):
        """The evaluator's values of every block, year by year (each year's path amount fixes the next)."""
        m, case = self.model, self.b.subject
        self.env: dict[tuple[str, int], object] = {}
        self.minimum: dict[int, object] = {}
        self.amount: dict[int, float] = {}
        self.trial: dict[tuple[str, int], float] = {}
        self.binding: dict[int, tuple[str, float | str]] = {}
        paid: dict[int, float] = {}
        for y in self.years:
            mins = []
            trial = 0.0
            for key in ("step1", "step2"):
                env = evaluate_timeline(m, self._with_cash({**paid, y: trial}), [y])
                self.env[(key, y)], self.trial[(key, y)] = env, trial
                mins.append(MINIMUM.eval(env)[0])
                trial = 0.0 if _blank(mins[0]) else float(mins[0])
            least = "" if any(_blank(v) for v in mins) else max(float(v) for v in mins)
            self.minimum[y] = least
            self.binding[y] = self._binding(y, least, dict(paid))
            fixed = self.fixed(y)
            if fixed is not None:
                paid[y] = float(fixed)
            else:
                paid[y] = 0.0 if least == "" else least
            self.amount[y] = paid[y]
        env = evaluate_timeline(m, self._with_cash(paid), self.years)
        for j, y in enumerate(self.years):
            self.env[("path", y)] = (env, j)

    def _binding(self, y: int, least, paid: dict[int, float]) -> tuple[str, float | str]:
        """The rule that sets year ``y``'s minimum, as :func:`xlmodel.planner.plan_year` finds it (the floor rule
        failing one fen below), with the minimum it was found at: ("title（clause）", minimum); ("", …) where
        the minimum is 0 or undetermined."""
        if least == "" or not least:
            return "", least
        from ...planner import plan_year

        py = plan_year(self.b.subject, self.b.policy, y, paid, None)
        if not py.binding_rule or py.min_cash_dividend is None:
            return "", "" if py.min_cash_dividend is None else py.min_cash_dividend
        return f"{py.binding_title_zh}（{py.binding_clause}）", py.min_cash_dividend

    def value(self, key: str, name: str, y: int):
        got = self.env[(key, y)]
        env, j = got if isinstance(got, tuple) else (got, 0)
        return env.calc(name, 0 if name in self.model.series else None)[j]

    def fixed(self, y: int) -> float | None:
        """The year's amount when given: proposed on this sheet (``--pay``), else entered on 输入 (a number: the
        year's own proposal), as :func:`xlmodel.planner.plan` fixes it; None: the path pays the minimum."""
        if y in self.pay:
            return float(self.pay[y])
        v = self.b.subject.value(CASH, y)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def result(self, y: int) -> str:
        """The year's result (:data:`xlmodel.planner.STATUS_ZH`), as the formula of :meth:`_results` gives it."""
        least, fixed = self.minimum[y], self.fixed(y)
        if least == "":
            return "missing_input"
        over = self.over(y)
        if fixed is not None and fixed < least:
            return "below_minimum"
        if over and fixed is None and least > 0:
            return "infeasible"
        if float(self.value("path", "fail_count", y)) > 0 or over:
            return "fail"
        return "ok"

    def over(self, y: int) -> bool:
        """The path's amount exceeds what the law lets the company distribute (the cap rule fails, or above
        the maximum distribution where the plan has no cap rule)."""
        if self.cap is not None:
            return self.value("path", f"{self.cap}.status", y) == "fail"
        md = self.value("path", "max_distribution", y)
        return not _blank(md) and self.amount[y] > float(md)

    # -- writing -------------------------------------------------------------
    def write(self):
        b, ws, L = self.b, self.ws, self.L
        if not hasattr(self, "env"):
            self._evaluate()
        cols = working_cols("测算", "Planning", L.n_years)
        b.header(ws, "测算", "Planning (the dividend path of the remaining plan years)", cols)
        self._note(2, "每年最低现金分红：该年规划下限与监管底线（含交易所低分红风险警示）均不失败的最少金额，以前各年按本路径金额计；"
                       "本路径金额：黄色单元格所填拟定金额，空白即按“输入”表所填该年现金分红（董事会预案），未填按最低额。The least cash dividend with which no minimum of the year, nor the "
                       "exchange's risk warning, fails, the earlier years paid as the path pays them; the path pays a "
                       "yellow cell's proposed amount, else the year's cash dividend on 输入 (the board's proposal), else "
                       "the minimum.")
        self._note(3, "预测数在“输入”表填写（表头标“预测”的年度）；本表公式均由规则表达式生成，阈值引用“参数”表。Forecasts are "
                       "entered on 输入 (years marked 预测); every formula is rendered from the rules' trees.")
        b.year_header(ws, KEY)
        self._inputs()
        self._path()
        self._statuses()
        self._legend()
        self._chart()
        for key, zh, en in STEPS:
            self._block(self.blocks[key], zh, en)
        ws.freeze_panes(HEADER_ROW + 1, FIRST_YEAR_COL)
        ws.repeat_rows(HEADER_ROW)
        ws.set_row(HEADER_ROW, 30)  # the header's two lines (单位 Unit)
        ws.set_h_pagebreaks([self.chart_row - 1, self.chart_row + CHART_ROWS])  # the chart whole, on a page of its own
        # every value the sheet computes, for the master check on 汇总 (an error anywhere here is one there)
        b.wb.define_name("plan_area", f"={q(self.name)}!${col_name(FIRST_YEAR_COL)}${HEADER_ROW + 2}:"
                                      f"${col_name(L.last_col)}${self.last_row + 1}")

    def _note(self, row: int, text: str):
        """A note across the printed width, wrapped (never cut at the page's edge)."""
        width = sum(w for _, w in working_cols("", "", self.L.n_years))
        self.ws.merge_range(row, 0, row, self.L.last_col, text, self.st.note_wrap)
        self.ws.set_row(row, row_height((text, width)))

    def _inputs(self):
        b, ws, L = self.b, self.ws, self.L
        ws.write(HEADER_ROW + 1, 0, "预测输入（来自“输入”表）  Forecast inputs (from 输入)", self.st.section)
        from ...fields import FIELDS

        for fid, row in self.input_rows.items():
            _row_labels(b, ws, row, f"in_{fid}", FIELDS[fid].zh, FIELDS[fid].en, "元")
            for y in L.years:
                src = f"{q(SHEETS['inputs'])}!{xl_rowcol_to_cell(L.inputs[fid], L.col_of(y), row_abs=True)}"
                v = b.subject.value(fid, y)
                cached = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else \
                    (v if isinstance(v, str) and v else EMPTY)
                ws.write_formula(row, L.col_of(y), f"=IF(ISBLANK({src}),\"\",{src})", self.st.calc["amount"], cached)

    def _path(self):
        b, ws, L, st = self.b, self.ws, self.L, self.st
        ws.write(self.proposed_row - 1, 0, "分红测算（元）  Dividend path (元)", st.section)
        _row_labels(b, ws, self.proposed_row, "plan_proposed", "拟定现金分红（选填，空白即按“输入”表所填，未填按最低额）",
                      "Proposed cash dividend (optional; blank: as entered on 输入, else the minimum)", "元")
        _row_labels(b, ws, self.given_row, "plan_given", "本路径金额为给定额（本表拟定或“输入”表所填），非最低额",
                    "The path's amount is given (proposed here or entered on 输入), not the minimum", "是/否")
        o = OUTPUT
        at = ("（按本路径金额）", " (at the path's amount)")
        _row_labels(b, ws, self.minimum_row, "plan_minimum", f"{o['min_cash_dividend'].zh}（以前各年按本路径金额）",
                    f"{o['min_cash_dividend'].en} (the earlier years paid as the path pays them)", "元")
        _row_labels(b, ws, self.path_row, "plan_path", "本路径现金分红（规划期前为已填报数，空白计 0）",
                      "The path's cash dividend (before the plan: as entered, blank as 0)", "元")
        _row_labels(b, ws, self.max_row, "plan_max_distribution", o["max_distribution"].zh + at[0],
                    o["max_distribution"].en + at[1], "元")
        _row_labels(b, ws, self.result_row, "plan_result", "结论", "Result", "状态")
        _row_labels(b, ws, self.st_row, "plan_st_risk_warning", o["st_risk_warning"].label_zh, o["st_risk_warning"].label_en,
                    o["st_risk_warning"].unit)
        _row_labels(b, ws, self.over_row, "plan_over_cap", "本路径金额超过利润分配上限", "The path's amount exceeds the maximum distribution", "是/否")
        _row_labels(b, ws, self.fail_row, "plan_fail_count", o["fail_count"].zh + at[0], o["fail_count"].en + at[1],
                    o["fail_count"].unit)
        for attr, labels in BINDING_ROWS.items():
            _row_labels(b, ws, getattr(self, attr), *labels)
        _row_labels(b, ws, self.on_row, "plan_on", "本年度在测算期内（评估年度及以后）",
                    "The year is planned (the evaluation year and after)", "是/否")
        cash_row = L.inputs[CASH]
        for y in L.years:
            col = L.col_of(y)
            raw = f"{q(SHEETS['inputs'])}!{xl_rowcol_to_cell(cash_row, col, row_abs=True)}"
            # the amount entered, 0 where blank (or text): not N(), which is #NUM! of a blank cell in Gnumeric
            entered = f"IF(ISNUMBER({raw}),{raw},0)"
            v = b.subject.value(CASH, y)
            as_entered = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0
            on = y in self.years
            hdr = f"{q(SHEETS['inputs'])}!{xl_rowcol_to_cell(HEADER_ROW, col, row_abs=True)}"
            ws.write_formula(self.on_row, col, f"=IF({hdr}>=in_evaluation_year,1,0)", st.calc["yes_no"], int(on))
            p, m, g = (self._cell(r, y) for r in (self.proposed_row, self.minimum_row, self.given_row))
            # the path: one formula across the row (before the plan never planned: the amount as entered)
            path_formula = self._on(y, f"IF(ISBLANK({p}),IF({g}=1,{entered},IF({m}=\"\",0,{m})),{p})", entered)
            if y < self.first:  # history: the cash dividend as entered (blank read as 0)
                ws.write_formula(self.path_row, col, path_formula, st.out["amount"], as_entered)
                continue
            self._proposed(y)
            m1 = self._cell(self.blocks["step1"].minimum_row, y)
            m2 = self._cell(self.blocks["step2"].minimum_row, y)
            ws.write_formula(self.minimum_row, col, self._on(y, f"IF(OR({m1}=\"\",{m2}=\"\"),\"\",MAX({m1},{m2}))"),
                             st.out["amount"], _cached(self.minimum[y]) if on else EMPTY)
            ws.write_formula(self.given_row, col, self._on(y, f"IF(OR(NOT(ISBLANK({p})),ISNUMBER({raw})),1,0)"),
                             st.calc["yes_no"], int(self.fixed(y) is not None) if on else EMPTY)
            ws.write_formula(self.path_row, col, path_formula, st.out["amount"], self.amount[y] if on else as_entered)
            path = self.blocks["path"]
            for row, name, fmt in ((self.max_row, "max_distribution", "amount"), (self.fail_row, "fail_count", "count")):
                ws.write_formula(row, col, self._on(y, self._cell(path.rows[name], y)), st.calc[fmt],
                                 b.cached(self.value("path", name, y)) if on else EMPTY)
            x = self._cell(path.rows["st_risk_warning"], y)
            v = self.value("path", "st_risk_warning", y) if on else ""
            ws.write_formula(self.st_row, col, self._on(y, f"IF({x}=\"\",\"\",IF({x},lbl_yes,lbl_no))"), st.calc["gen"],
                             EMPTY if _blank(v) else L.labels["yes" if bool(v) else "no"][0])
            ws.write_formula(self.over_row, col, self._on(y, self._over_formula(y)), st.calc["yes_no"],
                             int(self.over(y)) if on else EMPTY)
            ws.write_formula(self.result_row, col, self._on(y, self._result_formula(y)), st.out["gen"],
                             STATUS_ZH[self.result(y)] if on else EMPTY)
            self._binding_cells(y, on)
        texts = [(str(t), YEAR_WIDTH) for y in self.years for t in (self.binding[y][0], self.binding_shown(y))
                 if isinstance(t, str)]
        for attr, (key, zh, en, unit) in BINDING_ROWS.items():  # the rule's title wrapped in its year's column
            ws.set_row(getattr(self, attr), row_height(*texts, (zh, LABEL_COLS[1][1]), (en, LABEL_COLS[2][1])))

    def _binding_cells(self, y: int, on: bool):
        """The binding rule as found when written (text, and the minimum it was found at: written values), and the
        row that shows it only while the year's minimum is still that minimum (else 请重新测算: never a stale rule)."""
        ws, st = self.ws, self.st
        col = self.L.col_of(y)
        text, at = self.binding.get(y, ("", "")) if on else ("", "")
        self.b.put(ws, self.binding_text_row, col, text, st.label)
        if isinstance(at, float):
            ws.write_number(self.binding_at_row, col, at, st.calc["amount"])
        m, t, a = (self._cell(r, y) for r in (self.minimum_row, self.binding_text_row, self.binding_at_row))
        ws.write_formula(self.binding_row, col, self._on(
            y, f"IF(OR({m}=\"\",{m}=0),\"\",IF(AND(ISNUMBER({a}),ROUND({m},p_precision_digits)=ROUND({a},p_precision_digits)),{t}&\"\",plan_lbl_rerun))"),
            st.label, self.binding_shown(y) if on else EMPTY)

    def binding_shown(self, y: int):
        """What the binding-rule row shows in planned year ``y`` (its formula's value)."""
        least = self.minimum[y]
        if least == "" or not least:
            return EMPTY
        text, at = self.binding.get(y, ("", ""))
        if isinstance(at, float) and round(at, 2) == round(float(least), 2):
            return text or EMPTY
        return STATUS_ZH_RERUN

    def _proposed(self, y: int):
        """The year's proposed amount: an input (yellow), read where the year is planned."""
        b, ws, st, col = self.b, self.ws, self.st, self.L.col_of(y)
        if y in self.pay:
            ws.write_number(self.proposed_row, col, float(self.pay[y]), st.inp["amount"])
        else:
            ws.write_blank(self.proposed_row, col, None, st.inp["amount"])
        b.data_validation(ws, self.proposed_row, col, {
            "validate": "decimal", "criteria": ">=", "value": 0,
            "input_title": "拟定现金分红 Proposed",
            "input_message": "元；空白即按“输入”表所填该年现金分红，未填按最低额；评估年度以前的年度不读此格。In 元; blank: "
                             "the year's cash dividend on 输入, else the minimum; read in the planned years only.",
            "error_message": "金额（元），不小于 0 An amount in 元, ≥ 0"})

    def _result_formula(self, y: int) -> str:
        """The planner's result of a year (:func:`xlmodel.planner.plan_year`): undetermined, below the minimum
        (an amount entered), infeasible (the minimum over the law's cap), a rule failing, or feasible."""
        a, g, m, over, fails = (self._cell(r, y) for r in (self.path_row, self.given_row, self.minimum_row, self.over_row,
                                                            self.fail_row))
        return (f"IF({m}=\"\",plan_lbl_missing_input,IF(AND({g}=1,{a}<{m}),plan_lbl_below_minimum,"
                f"IF(AND({over},{g}=0,{m}>0),plan_lbl_infeasible,IF(OR({fails}>0,{over}),plan_lbl_fail,plan_lbl_ok))))")

    def _over_formula(self, y: int) -> str:
        """1 where the path's amount exceeds what the law lets the company distribute (:meth:`over`), else 0."""
        path = self.blocks["path"]
        if self.cap is not None:
            return f"IF({self._cell(path.rows[f'{self.cap}.status'], y)}=lbl_fail,1,0)"
        md, a = self._cell(path.rows["max_distribution"], y), self._cell(self.path_row, y)
        return f"IF(AND(ISNUMBER({md}),{a}>{md}),1,0)"

    def _statuses(self):
        b, ws, st = self.b, self.ws, self.st
        top = min(self.status_rows.values(), default=self.fail_row + 3)
        ws.write(top - 1, 0, "各规则状态（按本路径金额）  Rule statuses at the path's amount", st.section)
        path = self.blocks["path"]
        for rid, row in self.status_rows.items():
            rd = self.model.rule(rid)
            _row_labels(b, ws, row, f"plan_{rid}", rd.spec.title_zh, rd.spec.title_en, "状态")
            for y in self.cols:
                ws.write_formula(row, self.L.col_of(y), self._on(y, self._cell(path.rows[f'{rid}.status'], y)),
                                 st.calc["gen"], b.cached(self.value("path", f"{rid}.status", y)) if y in self.years else EMPTY)

    def _legend(self):
        ws, st = self.ws, self.st
        ws.write(self.legend_row - 1, 0, "结论标签（公式通过名称 plan_lbl_* 引用）  Result labels (the names plan_lbl_*)", st.section)
        for i, (code, text) in enumerate({**STATUS_ZH, "rerun": STATUS_ZH_RERUN}.items()):
            row = self.legend_row + i
            ws.write(row, 0, code, st.key)
            ws.write(row, 1, text, st.text)
            self.b.wb.define_name(f"plan_lbl_{code}", f"={q(self.name)}!$B${row + 1}")

    def _chart(self):
        L, ws = self.L, self.ws
        c0, c1 = col_name(L.col_of(self.cols[0])), col_name(L.col_of(self.cols[-1]))
        span = (lambda r: f"={q(self.name)}!${c0}${r + 1}:${c1}${r + 1}")
        cats = span(HEADER_ROW)
        font = {"name": "Microsoft YaHei"}
        chart = self.b.wb.add_chart({"type": "column"})
        chart.add_series({"name": " ".join(OUTPUT["min_cash_dividend"].chart), "categories": cats, "values": span(self.minimum_row),
                          "fill": {"color": "#ED7D31"}})
        chart.add_series({"name": "本路径现金分红 Path", "categories": cats, "values": span(self.path_row),
                          "fill": {"color": "#4472C4"}})
        if "net_profit_attributable" in self.input_rows:
            line = self.b.wb.add_chart({"type": "line"})
            line.add_series({"name": "归母净利润（预测）Net profit (forecast)", "categories": cats,
                             "values": span(self.input_rows["net_profit_attributable"]), "line": {"color": "#70AD47"},
                             "marker": {"type": "circle"}})
            chart.combine(line)
        chart.set_title({"name": "分红路径与预测净利润（元）Dividend path vs forecast net profit (元)",
                         "name_font": {**font, "size": 11}})
        chart.set_y_axis({"num_format": "#,##0", "num_font": font})
        chart.set_x_axis({"num_font": font})
        chart.set_legend({"position": "bottom", "font": font})
        ws.insert_chart(self.chart_row, 1, chart, {"x_scale": 1.6, "y_scale": 1.2})

    def _block(self, blk: Block, zh: str, en: str):
        b, ws, st, L, m = self.b, self.ws, self.st, self.L, self.model
        top = min([*blk.rows.values(), blk.trial_row if blk.key != "path" else 10 ** 9])
        ws.write(top - 1, 0, f"{zh}  {en}", st.section)
        if blk.key != "path":
            _row_labels(b, ws, blk.trial_row, f"{blk.key}.trial", "本年试算现金分红", "This year's cash dividend tried", "元")
            _row_labels(b, ws, blk.minimum_row, f"{blk.key}.minimum", "本步最低现金分红（最低要求与避免风险警示所需之较大者）",
                          "This step's minimum (the larger of the minimum and the cash avoiding the warning)", "元")
        if blk.key == "path":  # the series before the plan too: never planned there, 计算's value (the windows read
            for name, row in blk.rows.items():  # the path's row); the formula of the planned columns
                if name not in m.series:
                    continue
                for y in L.years:
                    if y < self.first:  # history, before the evaluated columns
                        src = f"{q(SHEETS['calc'])}!{xl_rowcol_to_cell(L.series[name], L.col_of(y), row_abs=True)}"
                        ws.write_formula(row, L.col_of(y), self._renderer(blk, y)(name, m.series[name], src),
                                         st.calc["amount"], b.cached(b.env.calc(name, y - L.eval_years[0])[0]))
        for y in self.cols:
            col, on = L.col_of(y), y in self.years
            render = self._renderer(blk, y)
            if blk.key == "step1":
                ws.write_number(blk.trial_row, col, 0, st.calc["amount"])
            elif blk.key == "step2":
                m1 = self._cell(self.blocks["step1"].minimum_row, y)
                ws.write_formula(blk.trial_row, col, f"=IF({m1}=\"\",0,{m1})", st.calc["amount"],
                                 self.trial[("step2", y)] if on else 0.0)
            if blk.minimum_row is not None:
                ws.write_formula(blk.minimum_row, col, render("minimum", MINIMUM), st.calc["amount"],
                                 _cached(MINIMUM.eval(self.env[(blk.key, y)])[0]) if on else EMPTY)
            for name, row in blk.rows.items():
                series = name in m.series
                node = m.series[name] if series else b.calc_node(name)  # a yes/no as 1/0, as on 计算
                fmt = st.calc["amount"] if series else st.calc[_number_format(b, name)]
                if blk.key == "path" and series:  # not planned: 计算's value, which the later years' windows read
                    other = f"{q(SHEETS['calc'])}!{xl_rowcol_to_cell(L.series[name], col, row_abs=True)}"
                    cached = b.cached(self.value(blk.key, name, y) if on else b.env.calc(name, y - L.eval_years[0])[0])
                else:
                    other, cached = '""', b.cached_calc(name, self.value(blk.key, name, y)) if on else EMPTY
                ws.write_formula(row, col, render(name, node, other), fmt, cached)
        for name, row in blk.rows.items():
            zh_, en_ = cat.SERIES_ZH[name] if name in m.series else self.label(m, name)
            unit = "元" if name in m.series else "是/否" if name in L.yes_no else calc_unit(m, name)
            _row_labels(b, ws, row, f"{blk.key}.{name}", zh_, en_, unit)


def _blank(v) -> bool:
    return isinstance(v, str) and v == ""


def _cached(v):
    return EMPTY if _blank(v) else float(v)


def add_planning_sheet(b, label) -> None:
    """Write 测算 on the builder's sheet ``planning``; ``label``: a calculation's labels (zh, en) as 计算
    shows them; the amounts proposed come from ``b.plan_pay`` ({year: 元}, as ``xlmodel plan --pay``)."""
    planning_sheet(b, label).write()


def planning_sheet(b, label=None) -> PlanningSheet:
    """The builder's 测算, placed and evaluated once: 汇总 (written first) shows its path on the board's page."""
    sheet = getattr(b, "_planning_sheet", None)
    if sheet is None or sheet.ws is not b.ws[KEY]:  # placed once per workbook composed (a builder may compose twice)
        from .calculations import _calc_label

        sheet = b._planning_sheet = PlanningSheet(b, label or _calc_label, getattr(b, "plan_pay", None))
        sheet._evaluate()
    return sheet


def write(b) -> None:
    """The 测算 sheet (one entry of :data:`xlmodel.workbook.writer.SHEET_WRITERS`)."""
    from .calculations import _calc_label

    add_planning_sheet(b, _calc_label)
