"""规划原文 Plan text: clause by clause, how the model treats it — computed (the rules that compute it, on
检查), confirmed by the user (what, and where on 输入), or informational (its note) — beside its own text;
then the regulatory baseline's clauses the same way."""

from __future__ import annotations

import math

from ...fields import FIELDS
from ...plans.text import plan_clauses
from ..layout import HEADER_ROW
from ..styles import FONT, text_width

#: a clause's treatment as the sheet names it (docs/domain.md §2.2), with the colour of its cell
TREATMENTS = {"computed": ("计算检查", "Computed", "#DDEBF7"), "attestation": ("确认事项", "Attestation", "#FCE4D6"),
              "informational": ("说明性", "Informational", "#EDEDED")}
REVIEW = "待复核"  # a drafted plan's mark on what its reader must still settle
COLS = [("条款 Clause", 16), ("处理 Treatment", 16), ("如何处理 How it is treated", 46), ("原文 Text", 80),
        ("说明 Note", 40)]


def write(b) -> None:
    ws, p = b.ws["text"], b.policy
    b.header(ws, "规划原文", "Plan text by clause, with how each is treated", COLS)
    look = _formats(b)
    counts = {k: sum(e.treatment == k for e in p.clauses.values()) for k in TREATMENTS}
    ws.write_string(3, 0, "每一条款均有处理：计算检查（模型按规则计算，结果见“检查”表）、确认事项（由用户在“输入”表确认是/否）、"
                          "说明性（无可检查的内容，附说明）。Every clause is computed, confirmed by the user, or informational."
                          f"  本规划 {len(p.clauses)} 条：" + "、".join(f"{TREATMENTS[k][0]} {n} 条" for k, n in counts.items())
                    + f" ({', '.join(f'{n} {TREATMENTS[k][1].lower()}' for k, n in counts.items())})", b.st.note)
    clauses = plan_clauses(p)  # the one reading of text: (relative to the plan file, or carried)
    row = HEADER_ROW + 1
    for cid, entry in p.clauses.items():
        ids = [r.id for r in p.rules if r.clause == cid] + list(entry.rules)
        how = _treated(b, cid, entry, [p.rule(rid) for rid in dict.fromkeys(ids)], p.rules, p.major_outlay)
        _clause_row(b, ws, row, cid, entry, how, clauses.get(cid, ""), look)
        row += 1
    if b.model.baseline is not None:
        _baseline(b, ws, row + 1, b.model.baseline, look)
    ws.freeze_panes(HEADER_ROW + 1, 1)


def _formats(b) -> tuple[dict, object]:
    """The treatment cells' formats (one colour each) and the note's when it asks for review."""
    fmt = {k: b.wb.add_format({"font_name": FONT, "font_size": 10, "valign": "top", "text_wrap": True, "bold": True,
                               "bg_color": colour}) for k, (_, _, colour) in TREATMENTS.items()}
    review = b.wb.add_format({"font_name": FONT, "font_size": 10, "valign": "top", "text_wrap": True,
                              "font_color": "#C65911", "bold": True})
    return fmt, review


def _baseline(b, ws, row: int, base, look) -> None:
    """The regulatory baseline: its title and sources, then its clauses (their text: its rules' quotes)."""
    ws.write(row, 0, "监管底线 Regulatory baseline", b.st.section)
    b.put(ws, row, 3, f"{base.title_zh}（{base.id} v{base.version}）", b.st.wrap)
    for i, src in enumerate(base.sources):
        ws.write_string(row + 1 + i, 3, src, b.st.wrap)
    row += 1 + len(base.sources)
    for cid, entry in base.clauses.items():
        rules = [x for x in base.rules if x.clause == cid]
        text = "；".join(x.quote for x in rules)
        _clause_row(b, ws, row, cid, entry, _treated(b, cid, entry, rules, base.rules, None), text, look)
        row += 1


def _clause_row(b, ws, row: int, cid: str, entry, how: str, text: str, look) -> None:
    fmt, review = look
    zh, en, _ = TREATMENTS[entry.treatment]
    flagged = REVIEW in (entry.note or "") or REVIEW in how
    label = f"{zh}\n{en}" + (f"\n{REVIEW} REVIEW" if flagged else "")
    b.put(ws, row, 0, cid, b.st.wrap)
    ws.write_string(row, 1, label, fmt[entry.treatment])
    b.put(ws, row, 2, how, b.st.wrap)
    b.put(ws, row, 3, text, b.st.wrap)
    b.put(ws, row, 4, entry.note or "", review if flagged else b.st.wrap)
    lines = max(sum(max(1, math.ceil(text_width(line) / max(1, w - 2))) for line in str(t).split("\n"))
                for t, (_, w) in zip((cid, label, how, text, entry.note or ""), COLS))
    ws.set_row(row, min(409.0, 15.0 * lines))


def _treated(b, cid: str, entry, rules: list, every_rule: list, mo) -> str:
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
            zh, en = b.title(r)
            lines.append(f"☐ 用户确认：{zh}（{where}） Confirm: {en}")
        else:
            at = b.L.check_rows.get(r.id)
            lines.append(f"• {r.title_zh}（{r.id}{f'，“检查”表第{at + 1}行' if at is not None else ''}）")
        if r.note and REVIEW in r.note:
            lines.append(f"  {r.note}")
    if not rules and entry.treatment != "informational":
        subs = [c for c in dict.fromkeys(x.clause for x in every_rule) if c.startswith(cid + "、")]
        if subs:
            lines.append("由子条款的规则计算 via its sub-clauses: " + "、".join(subs))
    if entry.treatment == "informational" and not lines:
        lines.append("无可检查的内容，见说明 Nothing to check: see the note")
    return "\n".join(lines)
