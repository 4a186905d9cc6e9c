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
    out = build_workbook(args.output, policy=args.policy, case=case, evaluation_year=args.year, force=args.force)
    print(f"wrote {out}", file=sys.stderr)
    return 0


def add_commands(sub) -> None:
    sb = sub.add_parser("build", help="write a formula-backed workbook for a case or an empty policy model")
    sb.add_argument("case", nargs="?", metavar="CASE", help="case file (YAML/JSON) to fill the workbook with")
    sb.add_argument("--policy", help="policy id for an empty model")
    sb.add_argument("--year", type=int, help="evaluation year of an empty model (default: the plan's last year)")
    sb.add_argument("-o", "--output", required=True, help="the .xlsx to write")
    sb.add_argument("--force", action="store_true", help="overwrite an existing file")
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
