"""`xlmodel build`: write a workbook for a policy (empty) or a case (filled)."""

from __future__ import annotations

import sys

from ..errors import XlmodelError


def cmd_build(args) -> int:
    from ..case import check_attestations, load_case
    from ..evaluator import model_for
    from ..policy import load_policy
    from .writer import build_workbook

    if bool(args.case) == bool(args.policy):
        raise XlmodelError("build needs either a CASE file or --policy ID")
    if args.year is not None and not 1990 <= args.year <= 2100:
        raise XlmodelError(f"--year: expected a fiscal year between 1990 and 2100, got {args.year}")
    if not args.output.lower().endswith(".xlsx"):
        raise XlmodelError(f"{args.output}: the workbook must be an .xlsx file")
    case = None
    if args.case:
        case = load_case(args.case)
        check_attestations(case, model_for(load_policy(case.policy)).attestation_ids())
    out = build_workbook(args.output, policy=args.policy, case=case, evaluation_year=args.year, force=args.force,
                         udf=getattr(args, "udf", False))
    print(f"wrote {out}", file=sys.stderr)
    return 0


def _print_report(rep, args) -> None:
    import json

    from ..cli import _json
    from ..report import render_markdown, render_table

    if getattr(args, "json", False):
        print(json.dumps(_json(rep), ensure_ascii=False, indent=2, default=str))
    elif getattr(args, "markdown", False):
        print(render_markdown(rep))
    else:
        print(render_table(rep))


def cmd_check(args) -> int:
    """Read a filled-in workbook back, evaluate it, and say whether the workbook can be trusted."""
    from ..evaluator import evaluate
    from .reader import cached_differences, read_workbook

    read = read_workbook(args.workbook)
    rep = evaluate(read.case, read.policy)
    _print_report(rep, args)
    for note in read.notes:
        print(f"注意 Note: {note}", file=sys.stderr)
    code = rep.exit_code
    if read.tampered:
        print(f"公式被修改 Formulas changed in {len(read.tampered)} cells — the workbook's own results are not trusted; "
              "the report above is computed from its inputs:", file=sys.stderr)
        for line in read.tampered[:50]:
            print(f"  - {line}", file=sys.stderr)
        code = max(code, 1)
    diffs = cached_differences(read, rep)
    if diffs:
        print("工作簿显示的结果与评估不一致（未重新计算或被修改）The workbook's cached results differ from the "
              "evaluator's (stale or edited workbook; open it in Excel to recalculate, or run `xlmodel refresh`):",
              file=sys.stderr)
        for line in diffs[:50]:
            print(f"  - {line}", file=sys.stderr)
    return code


def cmd_refresh(args) -> int:
    """Rebuild a workbook with the current plan files and generator, carrying every input over."""
    from .reader import read_workbook
    from .writer import build_workbook

    read = read_workbook(args.workbook, check_formulas=False)
    case = read.case
    out = build_workbook(args.output, case=case, force=args.force)
    n_inputs = sum(len(v) for v in case.years.values()) + len(case.company)
    print(f"wrote {out}: carried {n_inputs} inputs, {len(case.attestations)} attestations, {len(case.notes)} notes "
          f"(policy {read.policy.id} v{read.policy.version}; built before with "
          f"v{read.built_with.get('xlmodel_policy_version') or '?'}, xlmodel {read.built_with.get('xlmodel_version') or '?'})",
          file=sys.stderr)
    for note in read.notes:
        print(f"注意 Note: {note}", file=sys.stderr)
    return 0


def add_commands(sub) -> None:
    sc = sub.add_parser("check", help="read a filled-in workbook back, evaluate it and check its integrity")
    sc.add_argument("workbook", metavar="BOOK.xlsx")
    fmt = sc.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON")
    fmt.add_argument("--markdown", action="store_true", help="print Markdown (for a board memo)")
    sc.set_defaults(func=cmd_check)
    sr = sub.add_parser("refresh", help="rebuild a workbook with the current plan and generator, keeping its inputs")
    sr.add_argument("workbook", metavar="OLD.xlsx")
    sr.add_argument("-o", "--output", required=True, help="the new .xlsx")
    sr.add_argument("--force", action="store_true", help="overwrite an existing file")
    sr.set_defaults(func=cmd_refresh)

    sb = sub.add_parser("build", help="write a formula-backed workbook for a case or an empty policy model")
    sb.add_argument("case", nargs="?", metavar="CASE", help="case file (YAML/JSON) to fill the workbook with")
    sb.add_argument("--policy", help="policy id for an empty model")
    sb.add_argument("--year", type=int, help="evaluation year of an empty model (default: the plan's last year)")
    sb.add_argument("-o", "--output", required=True, help="the .xlsx to write")
    sb.add_argument("--force", action="store_true", help="overwrite an existing file")
    sb.add_argument("--udf", action="store_true",
                    help="add a UDF sheet calling the XLM_* worksheet functions (xlwings) beside the native results, "
                         "and the xlwings.conf sheet naming the module")
    sb.set_defaults(func=cmd_build)
    add_sample_command(sub)


def cmd_samples(args) -> int:
    """Evaluate every bundled sample case and (re)build its workbook into --out."""
    from pathlib import Path

    from ..case import load_case
    from ..evaluator import evaluate
    from ..report import render_table
    from .writer import build_workbook

    src = Path(args.dir)
    cases = sorted(src.glob("*.yaml"))
    if not cases:
        raise XlmodelError(f"no sample cases (*.yaml) in {src}")
    out = Path(args.out)
    for path in cases:
        case = load_case(path)
        rep = evaluate(case)
        target = out / f"{path.stem}.xlsx"
        build_workbook(target, case=case, force=True)
        print(render_table(rep))
        print(f"-> {target}\n")
    return 0


def add_sample_command(sub) -> None:
    ss = sub.add_parser("samples", help="evaluate the bundled sample cases and build their workbooks")
    ss.add_argument("--dir", default="samples", help="folder of sample cases (default: samples)")
    ss.add_argument("--out", default="samples", help="folder for the workbooks (default: samples; overwrites them)")
    ss.set_defaults(func=cmd_samples)
