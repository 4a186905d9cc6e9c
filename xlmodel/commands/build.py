"""`xlmodel build`: write a workbook for a policy (empty) or a case (filled)."""

from __future__ import annotations

import sys

from ..errors import XlmodelError
from ..inputs.files import check_output
from ..inputs.sanitize import plain_text


def cmd_build(args) -> int:
    from ..case import check_attestations, load_case
    from ..evaluator import model_for
    from ..plans.loading import load_plan_by_id
    from ..workbook.writer import build_workbook

    if bool(args.case) == bool(args.policy):
        raise XlmodelError("build 需要案例文件或 --policy ID（二者选一）build needs either a CASE file or --policy ID")
    if args.year is not None and not 1990 <= args.year <= 2100:
        raise XlmodelError(f"--year: 年度须在 1990–2100 之间 expected a fiscal year between 1990 and 2100, got {args.year}")
    check_output(args.output, force=args.force, suffixes=(".xlsx",))  # before any work
    case = None
    if args.case:
        case = load_case(args.case)
        check_attestations(case, model_for(load_plan_by_id(case.policy)).attestation_ids())
        for w in case.warnings:  # amounts that look like 万元/亿元
            print(f"注意 Warning: {case.source}: {w}", file=sys.stderr)
    out = build_workbook(args.output, policy=args.policy, case=case, evaluation_year=args.year, force=args.force,
                         udf=getattr(args, "udf", False))
    print(f"已写入 wrote {plain_text(out)}", file=sys.stderr)  # a path with a newline: one line, escaped
    from ..plans.loading import load_policy

    plan = load_plan_by_id(case.policy) if case else load_policy(args.policy)
    year = case.evaluation_year if case else (args.year or plan.plan_years[1])
    if not plan.plan_years[0] <= year <= plan.plan_years[1]:
        print(f"注意 Note: {year} 年不在规划期内，仍按规划条款评估 — {year} lies outside the plan period {plan.plan_years[0]}–{plan.plan_years[1]} of {plan.id}; "
              "the plan's rules are applied as written", file=sys.stderr)
    return 0
