"""`xlmodel refresh`: rebuild a workbook with the current plan and generator, keeping its inputs."""

from __future__ import annotations

import sys

from ..inputs.files import check_output
from ..inputs.sanitize import plain_text


def cmd_refresh(args) -> int:
    """Rebuild a workbook with the current plan files and generator, carrying every input over."""
    from ..workbook.reader import read_workbook
    from ..workbook.writer import build_workbook

    check_output(args.output, force=args.force, suffixes=(".xlsx",))  # before reading anything
    read = read_workbook(args.workbook, check_formulas=False, installed_plan_wins=True)
    case = read.case
    out = build_workbook(args.output, policy=read.policy, case=case, force=args.force,  # installed, or carried
                         plan_pay=read.plan_pay)  # and 测算's proposed amounts
    n_inputs = sum(len(v) for v in case.years.values()) + len(case.company)
    print(plain_text(f"已写入 wrote {out}：保留 {n_inputs} 项输入 carried {n_inputs} inputs, {len(case.attestations)} attestations, {len(case.notes)} "
                     f"notes (policy {read.policy.id} v{read.policy.version}; built before with "
                     f"v{read.built_with.get('xlmodel_policy_version') or '?'}, xlmodel "
                     f"{read.built_with.get('xlmodel_version') or '?'})"), file=sys.stderr)  # versions from the file: inert
    for note in read.notes:
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    for line in read.params_changed:  # the rebuilt workbook has the plan's thresholds
        print(f"注意 Note: 参数未沿用，已恢复为规划的取值 parameter not carried, reset to the plan's value: "
              f"{plain_text(line)}", file=sys.stderr)
    for w in case.warnings:  # amounts that look like 万元/亿元
        print(f"注意 Warning: {read.path}: {w}", file=sys.stderr)
    return 0
