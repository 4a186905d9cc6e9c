"""汇总 Summary: the named results of the evaluation year (out_*), the results of every evaluated year and
their chart, the model's own master check (out_model_check), and each rule's status and shortfall."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from ...outputs import CHECK_FLAG, DATA_CHECK, MODEL_CHECK, OUTPUT, PART, SUMMARY, Output
from ..builder import _c
from ..cached import EMPTY
from ..layout import CHECK_COL_INDEX, FIRST_YEAR_COL, HEADER_ROW, SHEETS, YES_NO_OUTPUTS, pname, q
from ..styles import FONT, row_height

CHART_ROWS = 21  # rows the summary's chart covers
UNIT_NOTE = "金额单位：元  Amounts in 元"  # the one unit of the board's pages (封面, 汇总)
#: the named results of the evaluation year: the headline outputs, then the model check (xlmodel.outputs)
RESULTS = tuple((o.id, o.name, o.label_zh, o.label_en) for o in SUMMARY)


def _per_year_line(o: Output) -> tuple[str, str, str, str]:
    """A headline output's line of the per-year table: the board page's Chinese, the English label, an
    amount in 元 (the page's one unit, as its named results)."""
    zh, en = o.board[0], o.en
    if o.kind == "amount":
        return o.id, f"{zh}（{o.unit}）", f"{en} ({o.unit})", "yuan"
    return o.id, zh, en, "yes_no" if o.kind == "yes_no" else ""


#: the per-year table of the summary: (calculation or series, 中文, English, unit)
PER_YEAR = (_per_year_line(OUTPUT["overall_status"]), _per_year_line(OUTPUT["cash_conditions_met"]),
            _per_year_line(OUTPUT["fail_count"]),
            ("cash", "现金分红（含计入的回购）（元）", "Cash dividends (元)", "yuan"),
            _per_year_line(OUTPUT["min_cash_dividend"]), _per_year_line(OUTPUT["max_distribution"]))


def write(b) -> None:
    ws, L, st = b.ws["summary"], b.L, b.st
    b.header(ws, "汇总", "Summary", [("名称 Name", 26), ("结果", 30), ("数值 Value", 20), ("Result", 34)])
    _results(b, ws)
    _result_colours(b, ws)
    ws.write(2, 3, UNIT_NOTE, st.note)
    top, rows = _per_year(b, ws, max(L.output_rows.values()) + 3)  # the board's pages first: the years, the path, the chart
    path_top = top
    top = _path(b, ws, path_top)
    _chart(b, ws, top, rows)
    checks_top = top + CHART_ROWS
    top = _model_checks(b, ws, checks_top)
    _rule_results(b, ws, top)
    # page 1 the results and the years, page 2 the path and its chart (whole), then the model's own checks
    ws.set_h_pagebreaks([path_top - 1, checks_top - 1])


def _results(b, ws) -> None:
    """The evaluation year and its named results (out_*), each read from 计算's evaluation-year column."""
    L, st = b.L, b.st
    ws.write(2, 0, "评估年度 Evaluation year", st.section)
    ws.write_formula(2, 2, "=in_evaluation_year", st.out["year"], b.year)
    for name, out, zh, en in RESULTS:
        row = L.output_rows[name]
        ws.write(row, 0, out, st.key)
        ws.write(row, 1, zh, st.text)
        ws.write(row, 3, en, st.text)
        kind = OUTPUT[name].kind
        fmt = st.out["amount"] if kind == "amount" else st.out["count" if kind == "count" else "gen"]
        if name in YES_NO_OUTPUTS:  # 是/否, never TRUE/FALSE
            ws.write_formula(row, 2, b.as_yes_no(b.at_evaluation_year(name)), st.out["yes_no"],
                             b.yes_no_cached(b.value(name)))
        else:
            ws.write_formula(row, 2, b.at_evaluation_year(name), fmt, b.scalar(name))
        b.wb.define_name(out, f"={q(SHEETS['summary'])}!$C${row + 1}")


def _result_colours(b, ws) -> None:
    """The overall result and the model check coloured by their value (请检查 and 无法判断 as a failure)."""
    L, st = b.L, b.st
    st_rows = (L.output_rows["overall_status"], L.output_rows[CHECK_FLAG.id])
    for row in st_rows:
        for code, fmt in st.status.items():
            ws.conditional_format(row, 2, row, 2, {"type": "formula", "criteria": f"=$C{row + 1}=lbl_{code}", "format": fmt})
    ws.conditional_format(st_rows[1], 2, st_rows[1], 2, {"type": "formula", "criteria": f"=$C{st_rows[1] + 1}=lbl_check", "format": st.status["fail"]})
    ws.conditional_format(st_rows[0], 2, st_rows[0], 2, {"type": "formula", "criteria": f"=$C{st_rows[0] + 1}=lbl_undetermined",
                                                         "format": st.status["fail"]})


def _per_year(b, ws, top: int) -> tuple[int, dict[str, int]]:
    """Each evaluated year: the result, the cash paid against the minimum, the cap (万元). The chart's data.
    Returns the row below the table and the row of each line of :data:`PER_YEAR`."""
    L, st = b.L, b.st
    ws.write(top, 0, "逐年结果 Results by year", st.section)
    ws.write(top + 1, 1, "会计年度 FY", st.h)
    calc = q(SHEETS["calc"])
    per_year_rows = {}
    for j, y in enumerate(L.eval_years):
        col = 2 + j
        ws.set_column(col, col, 16)
        ws.write_formula(top + 1, col, f"={calc}!{xl_rowcol_to_cell(HEADER_ROW, L.col_of(y), row_abs=True)}", st.year, y)
    for i, (name, zh, en, unit) in enumerate(PER_YEAR):
        r = top + 2 + i
        per_year_rows[name] = r
        ws.write(r, 0, en, st.key)
        ws.write(r, 1, zh, st.text)
        for j, y in enumerate(L.eval_years):
            ws.write_formula(r, 2 + j, *_per_year_cell(b, name, unit, j, y))
    r = per_year_rows["overall_status"]
    for code, fmt in st.status.items():
        ws.conditional_format(r, 2, r, 1 + len(L.eval_years), {"type": "formula", "criteria": f"=C{r + 1}=lbl_{code}",
                                                               "format": fmt})
    b.highlight_year(ws, top + 1, top + 1 + len(PER_YEAR), 2, 1 + len(L.eval_years), top + 1)
    return top + 3 + len(PER_YEAR), per_year_rows


def _per_year_cell(b, name: str, unit: str, j: int, y: int) -> tuple:
    """A line of the per-year table in evaluated year ``j`` (fiscal year ``y``): (formula, format, cached)."""
    L, st = b.L, b.st
    series = name in L.series
    row = L.series[name] if series else L.shown_row(name)
    ref = f"{q(SHEETS['calc'])}!{xl_rowcol_to_cell(row, L.col_of(y), row_abs=True)}"
    value = b.env.calc(name, y - L.eval_years[0])[0] if series else b.value(name, j)
    if unit == "yes_no":  # 是/否 for the board, 缺少输入 when undetermined
        return b.yes_no_formula(ref), st.calc["gen"], b.yes_no_label(name, j)
    if unit:
        return f"=IF({ref}=\"\",\"\",{ref})", st.calc["amount"], (EMPTY if isinstance(value, str) else float(value))
    count = name in OUTPUT and OUTPUT[name].kind == "count"
    return f"={ref}", st.calc["count" if count else "gen"], b.cached(value)


#: the dividend path on the board's page, each line read from 测算: (its row there, 中文, English, format)
PATH_LINES = (("minimum_row", f"{OUTPUT['min_cash_dividend'].zh}（元）", f"{OUTPUT['min_cash_dividend'].en} (元)", "amount"),
              ("binding_row", "决定最低额的规则（条款）", "Binding rule (clause)", "label"),
              ("given_row", "拟定现金分红（元）（测算表拟定或输入表所填）", "Proposed cash dividend (元)", "amount"),
              ("path_row", "本路径现金分红（元）", "The path's cash dividend (元)", "amount"),
              ("max_row", f"{OUTPUT['max_distribution'].zh}（元）", f"{OUTPUT['max_distribution'].en} (元)", "amount"),
              ("result_row", "可行性 结论", "Feasibility", "gen"))


def _path(b, ws, top: int) -> int:
    """The dividend path of the evaluation year and after (测算): the minimum, the rule that sets it and its
    clause, the amount proposed and paid, the law's cap and whether the year is feasible. Returns the row
    below it."""
    from .planning import planning_sheet

    L, st = b.L, b.st
    ps = planning_sheet(b)
    ws.write(top, 0, "分红路径（评估年度及以后，见测算表）Dividend path (from 测算)", st.section)
    ws.write(top + 1, 1, "会计年度 FY", st.h)
    planning = q(SHEETS["planning"])
    for j, y in enumerate(L.eval_years):
        ws.write_formula(top + 1, 2 + j, f"={planning}!{xl_rowcol_to_cell(HEADER_ROW, L.col_of(y), row_abs=True)}", st.year, y)
    for i, (attr, zh, en, fmt) in enumerate(PATH_LINES):
        r = top + 2 + i
        ws.write(r, 0, en, st.key)
        ws.write(r, 1, zh, st.text)
        texts = []
        for j, y in enumerate(L.eval_years):
            ref = f"{planning}!{xl_rowcol_to_cell(getattr(ps, attr), L.col_of(y), row_abs=True)}"
            on = f"{planning}!{xl_rowcol_to_cell(ps.on_row, L.col_of(y), row_abs=True)}"
            path = f"{planning}!{xl_rowcol_to_cell(ps.path_row, L.col_of(y), row_abs=True)}"
            formula = {"given_row": f"=IF({ref}=1,{path},\"\")", "path_row": f"=IF({on}=1,{ref},\"\")",
                       "binding_row": f"={ref}&\"\""}.get(attr, f"={ref}")
            cached = _path_cached(b, ps, attr, y)
            texts.append(str(cached) if isinstance(cached, str) else "")
            ws.write_formula(r, 2 + j, formula, st.label if fmt == "label" else st.calc[fmt], cached)
        if fmt == "label":
            ws.set_row(r, row_height(*((t, 16) for t in texts)))
    r = top + 2 + len(PATH_LINES) - 1
    for code, fmt in (("ok", "pass"), ("fail", "fail"), ("infeasible", "fail"), ("below_minimum", "fail"),
                      ("missing_input", "missing_input"), ("rerun", "missing_input")):
        ws.conditional_format(r, 2, r, 1 + len(L.eval_years), {"type": "formula", "criteria": f"=C{r + 1}=plan_lbl_{code}",
                                                               "format": st.status[fmt]})
    b.highlight_year(ws, top + 1, r, 2, 1 + len(L.eval_years), top + 1)
    return r + 2


def _path_cached(b, ps, attr: str, y: int):
    """The cached value of a path line in year ``y`` (what 测算 caches there)."""
    from ...planner import STATUS_ZH

    if y not in ps.years:
        return EMPTY
    if attr == "minimum_row":
        return EMPTY if ps.minimum[y] == "" else float(ps.minimum[y])
    if attr == "binding_row":
        return ps.binding_shown(y)
    if attr == "given_row":  # the amount proposed (测算's yellow cell, else 输入's), where one is
        return ps.amount[y] if ps.fixed(y) is not None else EMPTY
    if attr == "path_row":
        return ps.amount[y]
    if attr == "max_row":
        return b.cached(ps.value("path", "max_distribution", y))
    return STATUS_ZH[ps.result(y)]


def _chart(b, ws, top: int, rows: dict[str, int]):
    """Cash against the minimum, each evaluated year (万元)."""
    sheet, n = q(SHEETS["summary"]), len(b.L.eval_years)
    span = (lambda r: f"={sheet}!${_c(2)}${r + 1}:${_c(1 + n)}${r + 1}")
    chart = b.wb.add_chart({"type": "column"})
    cats = span(rows["overall_status"] - 1)
    chart.add_series({"name": "现金分红 Cash dividend", "categories": cats, "values": span(rows["cash"]),
                      "fill": {"color": "#4472C4"}})
    minimum = OUTPUT["min_cash_dividend"]
    zh, en = minimum.chart
    chart.add_series({"name": f"{zh} {en}", "categories": cats, "values": span(rows[minimum.id]),
                      "fill": {"color": "#ED7D31"}})
    chart.set_title({"name": f"现金分红与{zh}（{minimum.unit}）Cash dividends vs {en.lower()} ({minimum.unit})",
                     "name_font": {"name": FONT, "size": 11}})
    chart.set_y_axis({"num_format": "#,##0", "num_font": {"name": FONT}})
    chart.set_x_axis({"num_font": {"name": FONT}})
    chart.set_legend({"position": "bottom", "font": {"name": FONT}})
    # as wide as the printed columns from B (never past the page's edge)
    px = sum(_pixels(w) for w in _widths(b)[1:])
    ws.insert_chart(top, 1, chart, {"x_scale": min(1.6, (px - 8) / 480), "y_scale": 1.2})


def _widths(b) -> list[int]:
    """The columns' widths of 汇总 (characters), as :func:`write` and :func:`_per_year` set them."""
    widths = [26, 30, 20, 34]
    for j in range(len(b.L.eval_years)):
        widths[2 + j:3 + j] = [16]
    return widths


def _pixels(width: int) -> int:
    """A column's width in pixels (XlsxWriter's: 7 a character and 5 of padding)."""
    return width * 7 + 5


def _model_checks(b, ws, top: int) -> int:
    """The master check of the model itself (not of the company): each test on its own row, then the
    master check over them (:data:`xlmodel.outputs.MODEL_CHECK`, out_model_check), then missing data on a
    line of its own (:data:`xlmodel.outputs.DATA_CHECK`, out_data_check: the company's data, not the
    model's integrity; issue 52.6). Returns the row the next block starts on."""
    st = b.st
    ws.write(top, 0, "模型自检 Model checks", st.section)
    ok = b.L.labels["ok"][0]
    rows = []
    for i, (key, zh, en, formula) in enumerate(_model_tests(b)):
        r = top + 1 + i
        ws.write(r, 0, key, st.key)
        ws.write(r, 1, zh, st.text)
        ws.write(r, 3, en, st.text)
        ws.write_formula(r, 2, formula, st.out["gen"], ok)
        rows.append(r)
    r = _master_check(b, ws, rows)
    data = r + 1
    ws.write(data, 0, DATA_CHECK.name, st.key)
    ws.write(data, 1, DATA_CHECK.zh + "（不计入模型总检查）", st.section)
    ws.write(data, 3, DATA_CHECK.en + " (not part of the master check)", st.text)
    ws.write_formula(data, 2, f"={CHECK_FLAG.name}", st.out["gen"], b.scalar(CHECK_FLAG.id))
    b.wb.define_name(DATA_CHECK.name, f"={q(SHEETS['summary'])}!$C${data + 1}")
    for x in rows + [r, data]:
        ws.conditional_format(x, 2, x, 2, {"type": "formula", "criteria": f"=$C${x + 1}=lbl_check", "format": st.status["fail"]})
        ws.conditional_format(x, 2, x, 2, {"type": "formula", "criteria": f"=$C${x + 1}=lbl_ok", "format": st.status["pass"]})
    return data + 3


def _master_check(b, ws, rows: list[int]) -> int:
    """The row below the tests: 正常 when every test is (the name out_model_check). Returns its row."""
    st, ok = b.st, b.L.labels["ok"][0]
    r = rows[-1] + 1
    cells = ",".join(f"$C${x + 1}=lbl_ok" for x in rows)
    ws.write(r, 0, MODEL_CHECK.name, st.key)
    ws.write(r, 1, MODEL_CHECK.short, st.section)
    ws.write(r, 3, MODEL_CHECK.en, st.text)
    ws.write_formula(r, 2, f"=IF(AND({cells}),lbl_ok,lbl_check)", st.out["gen"], ok)
    b.wb.define_name(MODEL_CHECK.name, f"={q(SHEETS['summary'])}!$C${r + 1}")
    return r


def _no_error(area: str) -> str:
    """正常 where no cell of ``area`` holds an error value: SUM of a range with an error is that error in every
    engine (its text and blanks ignored); ISERROR over a range inside SUMPRODUCT is not (Gnumeric)."""
    return f"=IF(ISERROR(SUM({area})),lbl_check,lbl_ok)"


def _model_tests(b) -> list[tuple[str, str, str, str]]:
    """The model's tests of itself: (name, 中文, English, formula giving 正常 or 请检查), one or more for every
    sheet (输入, 参数, 计算, 检查, 汇总, 测算, 封面); missing data is not one of them (out_data_check)."""
    L = b.L
    inputs = q(SHEETS["inputs"])
    years = f"{inputs}!${_c(FIRST_YEAR_COL)}${HEADER_ROW + 1}:${_c(L.last_col)}${HEADER_ROW + 1}"
    status_col = _c(CHECK_COL_INDEX["status"])
    statuses = f"{q(SHEETS['checks'])}!${status_col}${min(L.check_rows.values()) + 1}:${status_col}${max(L.check_rows.values()) + 1}"
    lo, hi = L.status_block()
    calc_statuses = f"{q(SHEETS['calc'])}!${_c(FIRST_YEAR_COL)}${lo + 1}:${_c(FIRST_YEAR_COL)}${hi + 1}"
    calc = f"{q(SHEETS['calc'])}!${_c(FIRST_YEAR_COL)}${min(L.calc_rows.values()) + 1}:${_c(L.last_col)}${max(L.calc_rows.values()) + 1}"
    check_rows = (min(L.check_rows.values()) + 1, max(L.check_rows.values()) + 1)
    last_year_col = CHECK_COL_INDEX["status"] + 3 + len(L.eval_years) - 1
    checks = f"{q(SHEETS['checks'])}!${_c(CHECK_COL_INDEX['actual'])}${check_rows[0]}:${_c(last_year_col)}${check_rows[1]}"
    outs = f"{q(SHEETS['summary'])}!$C${min(L.output_rows.values()) + 1}:$C${max(L.output_rows.values()) + 1}"
    return [
        ("model_params_ok", "参数等于规划值（差异见参数表）", "Parameters as the plan sets them (differences on 参数)",
         "=IF(COUNTIF(model_params_as_planned,lbl_check)=0,lbl_ok,lbl_check)" if L.params else "=lbl_ok"),
        ("model_years_ok", "年度表头连续", "Year header continuous",
         f"=IF(AND(COUNT({years})=model_years,MAX({years})-MIN({years})=model_years-1),lbl_ok,lbl_check)"),
        ("model_ranges_ok", "输入区域宽度等于年度列数", "Input ranges span the year columns",
         "=IF(AND(COLUMNS(in_cash_dividend)=model_years,COLUMNS(in_net_profit_attributable)=model_years),lbl_ok,lbl_check)"),
        ("model_windows_ok", "窗口年数不超过年度列", "Windows fit the year columns", _windows_check(b)),
        ("model_eval_year_ok", "评估年度为可评估年度之一", "The evaluation year is an evaluated year",
         "=IF(ISNUMBER(calc_eval_index),IF(calc_eval_index<=model_eval_years,lbl_ok,lbl_check),lbl_check)"),
        ("model_statuses_ok", "每条规则均有状态", "Every rule has a status",
         f"=IF(AND(COUNTA({statuses})=model_rules,ROWS({calc_statuses})=model_rules),lbl_ok,lbl_check)"),
        ("model_inputs_readable", "输入均可读（无文本数值、无效选项，见输入表“无法读取”列）",
         "Every input readable (no text in a number, no unknown option: see 输入's Unreadable column)",
         "=IF(SUM(in_unreadable)=0,lbl_ok,lbl_check)"),
        ("model_results_readable", "评估年度的状态与结果无错误值", "No error in the evaluation year's statuses and results",
         f"=IF(INDEX({L.eval_span(L.calc_rows['readable'])},1,calc_eval_index),lbl_ok,lbl_check)"),
        ("model_calc_clean", "计算表各年度无错误值", "No error value on 计算, in any year", _no_error(calc)),
        ("model_checks_clean", "检查表无错误值", "No error value on 检查", _no_error(checks)),
        ("model_summary_clean", "汇总结果无错误值", "No error value in the results on 汇总", _no_error(outs)),
        ("model_planning_clean", "测算表无错误值", "No error value on 测算", _no_error("plan_area")),
        ("model_cover_clean", "封面结果无错误值", "No error value in the cover's results", _no_error("cover_results")),
    ]


def _windows_check(b) -> str:
    """Every window length (a parameter) at most the years the columns hold for the first evaluated year."""
    windows = [pname(n) for n, prm in b.model.params.items() if n.endswith(".window") and prm.unit == "年"]
    if not windows:
        return "=lbl_ok"
    tests = ",".join(f"{w}<=model_window_max" for w in windows)
    return f"=IF(AND({tests}),lbl_ok,lbl_check)"


def _rule_results(b, ws, top: int) -> int:
    """Which rule failed, by how much, under which clause: one line per rule, its status read from 检查."""
    st, L = b.st, b.L
    ws.write(top, 0, "规则结果 Rule results", st.section)
    gap = PART["shortfall"]
    for c, h in enumerate((PART["rule"].heading, PART["clause"].heading, PART["status"].heading, f"{gap.zh}（元）{gap.en}")):
        ws.write(top + 1, c, h, st.h)
    checks = q(SHEETS["checks"])
    status_rows = []
    for i, rd in enumerate(b.model.rules):
        r = top + 2 + i
        title_zh = b.title(rd.spec)[0]
        b.put(ws, r, 0, title_zh, st.wrap)
        ws.set_row(r, row_height((title_zh, 26)))
        b.put(ws, r, 1, rd.spec.clause, st.text)
        ws.write_formula(r, 2, f"=chk_{rd.id}", st.calc["gen"], b.scalar(f"{rd.id}.status"))
        if rd.check.shortfall is not None:
            cell = xl_rowcol_to_cell(L.check_rows[rd.id], CHECK_COL_INDEX["shortfall"], row_abs=True, col_abs=True)
            ws.write_formula(r, 3, f"={checks}!{cell}", st.calc["amount"], b.scalar(f"{rd.id}.shortfall"))
        status_rows.append(r)
    first, last = status_rows[0], status_rows[-1]
    for code, fmt in st.status.items():
        ws.conditional_format(first, 2, last, 2, {"type": "formula", "criteria": f"=$C{first + 1}=lbl_{code}", "format": fmt})
    return last + 3

