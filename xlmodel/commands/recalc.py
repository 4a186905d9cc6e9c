"""`xlmodel recalc`: recalculate a workbook in a spreadsheet engine and save its values."""

from __future__ import annotations

import sys

from ..inputs.sanitize import plain_text


def cmd_recalc(args) -> int:
    """Recalculate a workbook in a spreadsheet engine and save its values (xlmodel.engines.drive)."""
    from ..rules.model import STATUS_EN, STATUS_ZH
    from ..outputs import OUTPUT
    from ..engines.drive import recalc_workbook
    from ..workbook.integrity import verdict_lines
    from ..engines.recalc import stopped_by_signals

    with stopped_by_signals():  # a signal kills the engine and removes the hidden copy of the workbook
        res = recalc_workbook(args.workbook, args.output, args.engine, force=args.force, timeout=args.timeout)
    for note in res.notes:
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    print(f"计算引擎 Engine: {res.engine}（工作簿属性 xlmodel_recalculated_by）")
    for zh, en in verdict_lines(res.integrity):
        print(f"{zh} | {en}")
    status = res.report.overall_status
    print(f"{OUTPUT['overall_status'].short}: {STATUS_ZH[status]} {STATUS_EN[status]}")
    print(f"已写入 wrote {plain_text(res.path)}", file=sys.stderr)
    integ = res.integrity
    if integ["cached_results_stale"]:
        print(f"{res.engine} 的结果与评估器不一致 {res.engine}'s results differ from the evaluator's "
              "(run `xlmodel selftest` to test this engine):", file=sys.stderr)
    for line in (integ["formulas_changed"] + integ["cached_results_stale"])[:50]:
        print(f"  - {plain_text(line)}", file=sys.stderr)
    return 0 if res.current else 1
