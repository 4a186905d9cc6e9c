"""`xlmodel build --udf`: the worksheet functions beside the native formulas.

Adds two sheets to a workbook being written by :class:`~xlmodel.workbook.writer.WorkbookBuilder`:

* ``UDF`` — each ``XLM_*`` function (:mod:`xlmodel.udfs`) called on the workbook's own
  input ranges, next to the native result it should equal (``=out_*``, ``=chk_*``), and the
  rule table as one dynamic-array ``=XLM_EVALUATE(...)``. Every UDF cell carries its cached
  value, computed by the evaluator exactly as the function returns it, so viewers that do not
  recalculate (and Excel without the add-in, until it recalculates) show the numbers.
* ``xlwings.conf`` — the workbook settings the xlwings add-in reads (keys in column A from A1
  down, values in column B): ``UDF Modules`` = ``xlmodel.udfs``, so *Import Functions* finds
  the module.
"""

from __future__ import annotations

from xlsxwriter.utility import xl_col_to_name

from .. import udfs
from ..outputs import HEADLINE
from .cached import EMPTY
from .layout import FIRST_YEAR_COL, HEADER_ROW, SHEETS, YES_NO_OUTPUTS, q

UDF_SHEET = "UDF"
CONF_SHEET = "xlwings.conf"
UDF_MODULE = "xlmodel.udfs"
CONF = (("UDF Modules", UDF_MODULE),)
POLICY_CELL = "$C$3"  # on the UDF sheet: the policy id every formula passes

_LABELS = {o.name: (o.label_zh, o.label_en) for o in HEADLINE}
_OUT = {o.id: o.name for o in HEADLINE}
_AMOUNTS = tuple(o.id for o in HEADLINE if o.kind == "amount")


def _plain(v):
    return str(v) if isinstance(v, str) else v  # the writer's EMPTY never equals "": compare as text


def case_arguments(layout) -> str:
    """The case arguments of every UDF formula: the input sheet's ranges (fields down, years across)."""
    inp = q(SHEETS["inputs"])
    first, last = min(layout.inputs.values()) + 1, max(layout.inputs.values()) + 1
    c0, c1 = xl_col_to_name(FIRST_YEAR_COL), xl_col_to_name(layout.last_col)
    parts = [POLICY_CELL, "in_evaluation_year", f"{inp}!$A${first}:$A${last}",
             f"{inp}!${c0}${HEADER_ROW + 1}:${c1}${HEADER_ROW + 1}", f"{inp}!${c0}${first}:${c1}${last}"]
    co0, co1 = min(layout.company.values()) + 1, max(layout.company.values()) + 1
    parts += [f"{inp}!$A${co0}:$A${co1}", f"{inp}!${c0}${co0}:${c0}${co1}"]
    if layout.attest:
        a0, a1 = min(layout.attest.values()) + 1, max(layout.attest.values()) + 1
        parts += [f"{inp}!$A${a0}:$A${a1}", f"{inp}!${c0}${a0}:${c0}${a1}"]  # the evaluation year's attestations
    return ",".join(parts)


def _rule_table(b, ws, res, args: str, top: int, money, gen, yes_no) -> None:
    """The rule table from row ``top``: =XLM_EVALUATE(...) spilling, its cached values written beneath it."""
    table = res.table()
    ws.write_dynamic_array_formula(top, 0, top + len(table) - 1, len(table[0]) - 1, f"=XLM_EVALUATE({args})",
                                   gen, table[0][0])
    for i, values in enumerate(table):
        for j, v in enumerate(values):
            if i == 0 and j == 0:
                continue
            r, c = top + i, j
            fmt = money if isinstance(v, float) else gen
            if i and c > 2 and b.model.rules[i - 1].check.unit == "是/否":
                fmt = yes_no  # a confirmation's actual: 1/0 shown 是/否, as on 检查
            if isinstance(v, (int, float)):
                ws.write_number(r, c, v, fmt)
            elif v == "":
                ws.write_blank(r, c, None, fmt)
            else:
                ws.write_string(r, c, v, fmt)


def _conf_sheet(wb, st) -> None:
    """The xlwings.conf sheet: the add-in's keys and values from A1 down, with what they mean beside them."""
    conf = wb.add_worksheet(CONF_SHEET)
    for i, (key, value) in enumerate(CONF):  # from A1 down without gaps: the add-in stops at the first blank
        conf.write_string(i, 0, key)
        conf.write_string(i, 1, value)
    conf.set_column(0, 1, 18)
    conf.set_column(3, 3, 90)
    conf.write(0, 3, "xlwings 加载项读取本表：A 列为键、B 列为值，自 A1 起连续。The xlwings add-in reads this sheet: "
                     "keys in column A, values in column B, from A1 down without gaps.", st.note)
    conf.write(1, 3, f"UDF Modules = {UDF_MODULE}：xlwings 选项卡 > Import Functions 从该模块导入 XLM_* 函数。"
                     f"Import Functions (xlwings tab) imports the XLM_* functions from {UDF_MODULE}.", st.note)
    conf.write(2, 3, "可另加 Interpreter_Win、PYTHONPATH 等设置（每行一个键，勿留空行）。Other settings such as "
                     "Interpreter_Win or PYTHONPATH may be added, one key per row, no blank rows.", st.note)


def add_udf_sheets(b) -> None:
    """Write the UDF and xlwings.conf sheets into the builder's workbook (called from ``write``)."""
    wb, st, L = b.wb, b.st, b.L
    res = udfs.Result(b.model, b.env1)  # what the functions return for this workbook's inputs

    def cached(v):
        return EMPTY if isinstance(v, str) and v == "" else v

    ws = wb.add_worksheet(UDF_SHEET)
    b.header(ws, "工作表函数", "Worksheet functions (xlwings UDFs)",
              [("函数 Function", 28), ("项目", 34), ("UDF 结果 UDF result", 20), ("原生公式 Native", 20),
               ("一致 Same", 10), ("Item", 44)])
    ws.write(2, 0, "规划 Plan", st.section)
    ws.write_string(2, 2, b.policy.id, st.inp["text"])
    ws.write(3, 0, "需在 Windows 安装 xlwings 加载项并执行 Import Functions（见 README）；导入前 Excel 显示 #NAME?，"
                   "此处显示 xlmodel 计算的缓存值。Needs the xlwings add-in on Windows and Import Functions (see README); "
                   "until then Excel shows #NAME?, other viewers the values xlmodel cached.", st.note)
    args = case_arguments(L)
    money, gen, count, yes_no = st.calc["amount"], st.calc["gen"], st.calc["count"], st.calc["yes_no"]
    same = (b.L.labels["yes"][0], b.L.labels["no"][0])  # the 一致 column: 是/否 through the labels
    row = HEADER_ROW + 1

    def pair(r, fn_name, label_zh, label_en, udf_formula, native, name, value, fmt):
        native_value = b.scalar(name)  # the writer's own cached value of the native cell (a yes/no: 1/0)
        if name in YES_NO_OUTPUTS:
            native_value = b.yes_no_cached(b.value(name))
        b.put(ws, r, 0, fn_name, st.key)  # rule ids and titles come from the plan file: text cells
        b.put(ws, r, 1, label_zh, st.text)
        ws.write_formula(r, 2, udf_formula, fmt, cached(value))
        ws.write_formula(r, 3, native, fmt, native_value)
        ws.write_formula(r, 4, f'=IF(ISERROR(C{r + 1}),"—",IF(C{r + 1}=D{r + 1},lbl_yes,lbl_no))', gen,
                         same[0] if _plain(value) == _plain(native_value) else same[1])
        b.put(ws, r, 5, label_en, st.text)

    ws.write(row, 0, "关键数字  Key figures", st.section)
    row += 1
    for fn_name, name in udfs.SCALAR_FUNCTIONS.items():
        zh, en = _LABELS[_OUT[name]]
        value = int(res.raw(name)) if name.endswith("_count") else res.cell(name)
        fmt = money if name in _AMOUNTS else (count if name.endswith("_count") else yes_no if name in YES_NO_OUTPUTS else gen)
        pair(row, fn_name, zh, en, f"={fn_name}({args})", f"={_OUT[name]}", name, value, fmt)
        row += 1
    row += 1
    ws.write(row, 0, "规则状态  Rule statuses (XLM_RULE_STATUS vs chk_*)", st.section)
    row += 1
    for rd in b.model.rules:
        s = rd.spec
        pair(row, s.id, *b.title(s), f'=XLM_RULE_STATUS("{s.id}",{args})', f"=chk_{s.id}",
             f"{s.id}.status", res.cell(f"{s.id}.status"), gen)
        row += 1
    row += 1
    ws.write(row, 0, "规则表  Rule table: =XLM_EVALUATE(...) spills (dynamic array); compare the sheet 检查", st.section)
    row += 1
    _rule_table(b, ws, res, args, row, money, gen, yes_no)
    ws.freeze_panes(HEADER_ROW + 1, 1)
    ws.set_paper(9)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)
    ws.hide_gridlines(2)
    ws.protect("", {"format_columns": True, "format_rows": True, "select_locked_cells": True,
                    "select_unlocked_cells": True})

    _conf_sheet(wb, st)
