"""`xlmodel build`: write a workbook for a policy (empty) or a case (filled)."""

from __future__ import annotations

import sys

from ..errors import XlmodelError
from ..io import check_output
from ..sanitize import plain_text


def cmd_build(args) -> int:
    from ..case import check_attestations, load_case
    from ..evaluator import model_for
    from ..policy import policy_by_id
    from .writer import build_workbook

    if bool(args.case) == bool(args.policy):
        raise XlmodelError("build needs either a CASE file or --policy ID")
    if args.year is not None and not 1990 <= args.year <= 2100:
        raise XlmodelError(f"--year: expected a fiscal year between 1990 and 2100, got {args.year}")
    check_output(args.output, force=args.force, suffixes=(".xlsx",))  # before any work
    case = None
    if args.case:
        case = load_case(args.case)
        check_attestations(case, model_for(policy_by_id(case.policy)).attestation_ids())
        for w in case.warnings:  # amounts that look like 万元/亿元
            print(f"注意 Warning: {case.source}: {w}", file=sys.stderr)
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
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    for w in read.case.warnings:  # amounts that look like 万元/亿元
        print(f"注意 Warning: {read.path}: {w}", file=sys.stderr)
    code = rep.exit_code
    if read.tampered:
        print(f"公式被修改 Formulas changed in {len(read.tampered)} cells — the workbook's own results are not trusted; "
              "the report above is computed from its inputs:", file=sys.stderr)
        for line in read.tampered[:50]:
            print(f"  - {plain_text(line)}", file=sys.stderr)  # cell text from the file: one line each
        code = max(code, 1)
    diffs = cached_differences(read, rep)
    if diffs:
        print("工作簿显示的结果与评估不一致（未重新计算或被修改）The workbook's cached results differ from the "
              "evaluator's (stale or edited workbook; open it in Excel to recalculate, or run `xlmodel refresh`):",
              file=sys.stderr)
        for line in diffs[:50]:
            print(f"  - {plain_text(line)}", file=sys.stderr)  # cell text from the file: one line each
    return code


def cmd_refresh(args) -> int:
    """Rebuild a workbook with the current plan files and generator, carrying every input over."""
    from .reader import read_workbook
    from .writer import build_workbook

    check_output(args.output, force=args.force, suffixes=(".xlsx",))  # before reading anything
    read = read_workbook(args.workbook, check_formulas=False)
    case = read.case
    out = build_workbook(args.output, case=case, force=args.force)
    n_inputs = sum(len(v) for v in case.years.values()) + len(case.company)
    print(f"wrote {out}: carried {n_inputs} inputs, {len(case.attestations)} attestations, {len(case.notes)} notes "
          f"(policy {read.policy.id} v{read.policy.version}; built before with "
          f"v{read.built_with.get('xlmodel_policy_version') or '?'}, xlmodel {read.built_with.get('xlmodel_version') or '?'})",
          file=sys.stderr)
    for note in read.notes:
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    for w in case.warnings:  # amounts that look like 万元/亿元
        print(f"注意 Warning: {read.path}: {w}", file=sys.stderr)
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


def bundled_samples():
    """The sample cases that come with xlmodel: ``samples/`` beside the package in a source tree,
    else the copy an installed wheel carries (``xlmodel/samples``); None when neither has any."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[1]
    for folder in (package.parent / "samples", package / "samples"):
        if folder.is_dir() and any(folder.glob("*.yaml")):
            return folder
    return None


def cmd_samples(args) -> int:
    """Evaluate every bundled sample case and build its workbook into --out (never over an
    existing file without --force)."""
    from pathlib import Path

    from ..case import load_case
    from ..errors import OutputExistsError
    from ..evaluator import evaluate
    from ..report import render_table
    from .writer import build_workbook

    if args.dir is None:
        src = bundled_samples()
        if src is None:
            package = Path(__file__).resolve().parents[1]
            raise XlmodelError(f"no bundled sample cases found (neither {package.parent / 'samples'} nor "
                               f"{package / 'samples'} has *.yaml files); pass --dir FOLDER")
    else:
        src = Path(args.dir)
    cases = sorted(src.glob("*.yaml"))
    if not cases:
        raise XlmodelError(f"no sample cases (*.yaml) in {src}")
    out = Path(args.out)
    existing = []
    for path in cases:  # every target checked before any work; all existing ones named at once
        try:
            check_output(out / f"{path.stem}.xlsx", force=args.force, suffixes=(".xlsx",))
        except OutputExistsError:
            existing.append(str(out / f"{path.stem}.xlsx"))
    if existing:
        raise OutputExistsError(f"{len(existing)} of the {len(cases)} workbooks exist; pass --force to overwrite them, "
                                f"or choose another --out folder:\n" + "\n".join(f"  - {e}" for e in existing))
    for path in cases:
        case = load_case(path)
        rep = evaluate(case)
        target = out / f"{path.stem}.xlsx"
        build_workbook(target, case=case, force=args.force)
        print(render_table(rep))
        print(f"-> {target}\n")
    return 0


def add_sample_command(sub) -> None:
    ss = sub.add_parser("samples", help="evaluate the bundled sample cases and build their workbooks")
    ss.add_argument("--dir", default=None,
                    help="folder of sample cases (default: the samples that come with xlmodel, from any directory)")
    ss.add_argument("--out", default="out", help="folder for the workbooks (default: out, in the current directory)")
    ss.add_argument("--force", action="store_true", help="overwrite workbooks that exist in --out")
    ss.set_defaults(func=cmd_samples)
