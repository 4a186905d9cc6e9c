"""`xlmodel plan`: plan the dividends of the plan period."""

from __future__ import annotations

import sys


def cmd_plan(args) -> int:
    import json

    from ..case import load_case
    from ..evaluator import plan_by_id
    from ..planner import exit_code, parse_pay, plan, render_plan_markdown, render_plan_text, with_later_years_forecast
    from ..inputs.sanitize import plain_text

    pay = parse_pay(args.pay)  # before the case is read: a bad --pay value is named first
    if args.out:  # the Word document's path checked before any work (its suffix, an existing file without --force)
        from ..inputs.files import check_output

        check_output(args.out, force=args.force, suffixes=(".docx",), inputs=(args.case,))
    params = None
    if str(args.case).lower().endswith((".xlsx", ".xlsm")):  # a filled workbook: its inputs and parameters
        from ..workbook.reader import read_workbook

        read = read_workbook(args.case, check_formulas=False, installed_plan_wins=True)
        case, policy, params = with_later_years_forecast(read.case), read.policy, read.params or None
        if read.plan_pay:  # 测算's proposed amounts; a --pay of the same year wins
            print(f"注意 Note: 按“测算”表的拟定现金分红 the proposed amounts on 测算: "
                  f"{', '.join(f'{y}={a:,.2f}' for y, a in sorted(read.plan_pay.items()) if y not in pay)}"
                  f"{'（--pay 优先 --pay wins where given）' if set(pay) & set(read.plan_pay) else ''}", file=sys.stderr)
            pay = {**read.plan_pay, **pay}
        for note in read.notes:
            print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
        if case.forecast_years:
            print(f"注意 Note: {'、'.join(map(str, sorted(case.forecast_years)))} 年（评估年度之后）的数字按预测数测算 "
                  "the figures of the years after the evaluation year are taken as forecasts", file=sys.stderr)
    else:
        case = load_case(args.case)
        policy = plan_by_id(case.policy)
    for w in case.warnings:
        print(f"注意 Warning: {plain_text(case.source)}: {plain_text(w)}", file=sys.stderr)
    path = plan(case, policy, pay, params)
    if args.out:
        from ..report.plan_docx import write_plan_docx

        written = write_plan_docx(args.out, path, case, policy, force=args.force, inputs=(args.case,))
        print(f"已写入 Word 文档 written -> {plain_text(written)}", file=sys.stderr)
    if args.json:
        print(json.dumps([y.to_dict() for y in path], ensure_ascii=False, indent=2))
    elif args.markdown:
        print(render_plan_markdown(path, case, policy))
    else:
        print(render_plan_text(path, case, policy))
    return exit_code(path)
