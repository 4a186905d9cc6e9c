"""`xlmodel fill`: write a case's inputs into a workbook built for its plan and year."""

from __future__ import annotations

import sys

from ..inputs.sanitize import plain_text


def cmd_fill(args) -> int:
    """Write a case's inputs into a workbook built for its plan and year (xlmodel.workbook.fill)."""
    from ..workbook.fill import fill_workbook

    filled = fill_workbook(args.workbook, args.case, args.output, force=args.force)
    read, g = filled.read, filled.given
    print(f"已写入 wrote {plain_text(filled.path)}：案例 {plain_text(filled.case.source)} 的 {g['inputs']} 项输入、{g['attestations']} 项确认、"
          f"{g['notes']} 条备注 — {g['inputs']} inputs, {g['attestations']} attestations, {g['notes']} notes from the case "
          f"(policy {read.policy.id} v{read.policy.version}, fiscal year {filled.case.evaluation_year})", file=sys.stderr)
    if filled.kept:
        shown = ", ".join(plain_text(k) for k in filled.kept[:12]) + (" …" if len(filled.kept) > 12 else "")
        print(f"注意 Note: 保留了工作簿中案例未给出的 {len(filled.kept)} 项 kept {len(filled.kept)} of the workbook's "
              f"entries the case does not give: {shown}", file=sys.stderr)
    print("缓存结果由 xlmodel 评估器计算，为最新（xlmodel check 可信）cached results computed by xlmodel's evaluator: "
          "current, `xlmodel check` trusts them; `xlmodel recalc` recomputes them in a spreadsheet engine", file=sys.stderr)
    for note in read.notes:
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    if read.tampered:
        print(f"注意 Note: {len(read.tampered)} 处被修改的公式已按 xlmodel 生成的公式写回 — {len(read.tampered)} changed "
              "formulas are written as xlmodel generates them", file=sys.stderr)
    for line in read.params_changed:  # the output has the plan's thresholds
        print(f"注意 Note: 参数未沿用，已恢复为规划的取值 parameter not carried, reset to the plan's value: "
              f"{plain_text(line)}", file=sys.stderr)
    for w in filled.case.warnings:  # amounts that look like 万元/亿元
        print(f"注意 Warning: {filled.case.source}: {w}", file=sys.stderr)
    return 0
