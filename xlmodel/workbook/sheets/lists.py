"""列表 Lists: the status labels the formulas show (names lbl_*) and the drop-down lists (names list_*)."""

from __future__ import annotations

from ...fields import ENUMS
from ..layout import SHEETS, q


def write(b) -> None:
    ws, L = b.ws["lists"], b.L
    b.header(ws, "列表", "Lists (labels and validation lists)", [("代码 Code", 22), ("显示 Label", 26)])
    ws.write(1, 0, "状态标签与下拉列表；公式通过名称 lbl_* 引用，请勿修改。Status labels and drop-down lists, referenced by the names lbl_*.", b.st.note)
    for code, (text, row) in L.labels.items():
        ws.write(row, 0, code, b.st.key)
        ws.write(row, 1, text, b.st.text)
        b.wb.define_name(f"lbl_{code}", f"={q(SHEETS['lists'])}!$B${row + 1}")
    for enum_id, (r0, r1) in L.enum_ranges.items():
        choices = {"yes": "是", "no": "否"} if enum_id == "bool" else ENUMS[enum_id]
        for (code, text), row in zip(choices.items(), range(r0, r1 + 1)):
            ws.write(row, 0, code, b.st.key)
            ws.write(row, 1, text, b.st.text)
        b.wb.define_name(f"list_{enum_id}", f"={q(SHEETS['lists'])}!$B${r0 + 1}:$B${r1 + 1}")
