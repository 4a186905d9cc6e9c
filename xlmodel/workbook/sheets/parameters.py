"""参数 Parameters: the plan's thresholds, each with its clause and the plan's own value beside it, the
major-outlay definition, and the model's fixed constants (its master check's)."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from ...fields import ENUMS
from ..builder import _c
from ..layout import HEADER_ROW, SHEETS, pname, q
from ..styles import fmt_key, row_height

PLAN_VALUE_COL = 7  # 参数 sheet: the plan's own value beside the editable one (column H), then 与规划一致


def write(b) -> None:
    ws, st = b.ws["params"], b.st
    b.header(ws, "参数", "Parameters (the plan's thresholds, each with its clause)",
              [("名称 Name", 34), ("参数", 36), ("Parameter", 36), ("数值 Value", 16), ("单位 Unit", 8), ("条款 Clause", 18),
               ("说明 Note", 50), ("规划值 Plan value", 16), ("与规划一致 As planned", 14)])
    ws.write(3, 0, "阈值来自规划原文；公式只引用这些名称。修改须经董事会决议。Thresholds come from the plan text; formulas refer to these names only.", st.note)
    for name, prm in b.model.params.items():
        _parameter(b, ws, name, prm)
    if b.policy.major_outlay:
        _major_outlay(b, ws, b.policy.major_outlay)
    rows = [r for span in b.L.params.values() for r in range(span[0], span[1] + 1)]
    if rows:
        b.wb.define_name("model_params_as_planned", f"={q(SHEETS['params'])}!${_c(PLAN_VALUE_COL + 1)}${min(rows) + 1}:"
                                                    f"${_c(PLAN_VALUE_COL + 1)}${max(rows) + 1}")
    _constants(b, ws, max(rows, default=HEADER_ROW) + 5)
    ws.freeze_panes(HEADER_ROW + 1, 1)


def _parameter(b, ws, name: str, prm) -> None:
    """One parameter: its rows (a list parameter has one a value), each value beside the plan's and
    whether they agree (the master check lists every parameter that differs)."""
    st = b.st
    r0, r1 = b.L.params[name]
    b.put(ws, r0, 0, pname(name), st.key)
    b.put(ws, r0, 1, prm.zh, st.text)
    b.put(ws, r0, 2, prm.en, st.text)
    b.put(ws, r0, 4, prm.unit, st.text)
    b.put(ws, r0, 5, prm.clause, st.text)
    values = prm.value if isinstance(prm.value, tuple) else (prm.value,)
    for row, v in zip(range(r0, r1 + 1), values):
        if isinstance(v, str):
            ws.write_string(row, 3, b.L.labels.get(v, (v,))[0], st.inp["gen"])
            ws.write_string(row, PLAN_VALUE_COL, b.L.labels.get(v, (v,))[0], st.calc["gen"])
            enum_id = next(k for k, choices in ENUMS.items() if v in choices)
            b.data_validation(ws, row, 3, {"validate": "list", "source": f"=list_{enum_id}"})
        else:  # a fixed parameter (by law or by the model) is locked, a plan threshold is an input
            fmt = (st.inp if prm.editable else st.calc)[fmt_key(prm.unit)]
            ws.write_number(row, 3, float(v), fmt)
            if prm.editable:
                b.data_validation(ws, row, 3, validation(b, name, prm, float(v)))
            ws.write_number(row, PLAN_VALUE_COL, float(v), st.calc[fmt_key(prm.unit)])
        # the master check lists every parameter that differs from the plan's value
        here, plan = xl_rowcol_to_cell(row, 3), xl_rowcol_to_cell(row, PLAN_VALUE_COL)
        ws.write_formula(row, PLAN_VALUE_COL + 1, f"=IF({here}={plan},lbl_ok,lbl_check)", st.calc["gen"],
                         b.L.labels["ok"][0])
    if not prm.editable:
        b.put(ws, r0, 6, "固定，不可修改 Fixed", st.note)
    b.wb.define_name(pname(name), f"={q(SHEETS['params'])}!$D${r0 + 1}" + (f":$D${r1 + 1}" if r1 > r0 else ""))


def _major_outlay(b, ws, mo) -> None:
    """How the plan defines a major outlay (by the board, or by its formula), with its clause and quote."""
    st = b.st
    row = max(r1 for _, r1 in b.L.params.values()) + 2 if b.L.params else HEADER_ROW + 2
    ws.write(row, 0, "重大支出认定 Major outlay", st.section)
    ws.write(row, 1, "董事会认定（输入表）" if mo.definition == "board" else "按规划公式计算", st.text)
    b.put(ws, row, 5, mo.clause, st.text)
    b.put(ws, row, 6, mo.quote, st.wrap)
    ws.set_row(row, row_height((mo.quote, 50)))


def _constants(b, ws, row: int) -> None:
    """The model's own constants, for its master check (fixed)."""
    st = b.st
    ws.write(row - 1, 0, "模型常数（固定）Model constants (fixed)", st.section)
    constants = (("model_years", "年度列数", "Year columns", b.L.n_years),
                 ("model_eval_years", "可评估年度列数", "Evaluated year columns", len(b.L.eval_years)),
                 ("model_window_max", "窗口最多年数（首个可评估年度及之前的列数）", "Longest window the columns hold",
                  b.L.n_years - b.L.n_eval + 1),
                 ("model_plan_first", "规划期首年", "First plan year", b.policy.plan_years[0]),
                 ("model_plan_last", "规划期末年", "Last plan year", b.policy.plan_years[1]),
                 ("model_rules", "规则数", "Rules", len(b.model.rules)))
    for i, (key, zh, en, value) in enumerate(constants):
        b.put(ws, row + i, 0, key, st.key)
        b.put(ws, row + i, 1, zh, st.text)
        b.put(ws, row + i, 2, en, st.text)
        ws.write_number(row + i, 3, float(value), st.calc["year" if "plan" in key else "count"])
        b.wb.define_name(key, f"={q(SHEETS['params'])}!$D${row + i + 1}")


def validation(b, name: str, prm, value: float) -> dict:
    """An editable threshold's data validation, by its unit (issue 52.7): a ratio 0–100% (a window's share of
    a total up to 1000%, where the plan's is above 100%), an amount ≥ 0, a count of months 1–120, a multiple
    ≥ 1, a fiscal year 1990–2100; a window's length a whole number of years from 1 to the plan's (the years
    its inputs name: ``<rule>.plan_window``)."""
    zh, unit = prm.zh, prm.unit
    title = "参数 Parameter"
    if unit == "%":
        top = 10 if value > 1 else 1
        rule = {"validate": "decimal", "criteria": "between", "minimum": 0, "maximum": top}
        words = f"{zh}：0%–{top:.0%} A ratio from 0% to {top:.0%}"
    elif unit == "年" and name.endswith(".window"):
        plan = name.rpartition(".")[0] + ".plan_window"
        top = f"={pname(plan)}" if plan in b.model.params else "=model_window_max"
        rule = {"validate": "integer", "criteria": "between", "minimum": 1, "maximum": top}
        words = f"{zh}：1 至规划的年数之间的整数 A whole number of years, 1 to the plan's window"
    elif unit == "年":
        rule = {"validate": "integer", "criteria": "between", "minimum": 1990, "maximum": 2100}
        words = f"{zh}：1990–2100 年 A fiscal year, 1990–2100"
    elif unit == "月":
        rule = {"validate": "integer", "criteria": "between", "minimum": 1, "maximum": 120}
        words = f"{zh}：1–120 个月 A whole number of months, 1–120"
    elif unit == "倍":
        rule = {"validate": "decimal", "criteria": ">=", "value": 1}
        words = f"{zh}：不小于 1 倍 A multiple, at least 1"
    else:  # 元 and any other amount
        rule = {"validate": "decimal", "criteria": ">=", "value": 0}
        words = f"{zh}：不小于 0 的金额（{unit}） An amount ≥ 0 ({unit})"
    return {**rule, "input_title": title, "input_message": words[:255], "error_title": title,
            "error_message": words[:255]}
