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
    from ..policy import load_policy

    plan = policy_by_id(case.policy) if case else load_policy(args.policy)
    year = case.evaluation_year if case else (args.year or plan.plan_years[1])
    if not plan.plan_years[0] <= year <= plan.plan_years[1]:
        print(f"注意 Note: {year} lies outside the plan period {plan.plan_years[0]}–{plan.plan_years[1]} of {plan.id}; "
              "the plan's rules are applied as written", file=sys.stderr)
    return 0


def _print_report(rep, args, preface=()) -> None:
    from ..report import render_markdown, render_table

    if getattr(args, "markdown", False):
        print(render_markdown(rep, preface=preface))
    else:
        print(render_table(rep, wide=getattr(args, "wide", False), preface=preface))


def _check_one(path, args, several: bool):
    """Check one workbook: (exit code, its JSON object, report, integrity); the report is printed
    unless --json, the details of what is wrong on stderr (named by file when ``several``)."""
    from ..evaluator import evaluate
    from .integrity import integrity, verdict_lines
    from .reader import cached_differences, read_workbook

    read = read_workbook(path)
    rep = evaluate(read.case, read.policy, params=read.params)  # the workbook's editable parameters, as its formulas use them
    diffs = cached_differences(read, rep)
    integ = integrity(read, diffs)
    # a changed formula, or a plan that is not installed here (the workbook's own copy), is never compliance
    code = max(rep.exit_code, 1 if read.tampered or not integ["plan_verified"] else 0)
    if not getattr(args, "json", False):
        _print_report(rep, args, verdict_lines(integ))
    where = f"{plain_text(read.path)}: " if several else ""
    for note in read.notes:
        print(f"注意 Note: {where}{plain_text(note)}", file=sys.stderr)
    for w in read.case.warnings:  # amounts that look like 万元/亿元
        print(f"注意 Warning: {read.path}: {w}", file=sys.stderr)
    if read.tampered:
        print(f"{where}公式被修改 Formulas changed in {len(read.tampered)} cells — the workbook's own results are not "
              "trusted; the report is computed from its inputs:", file=sys.stderr)
        for line in read.tampered[:50]:
            print(f"  - {plain_text(line)}", file=sys.stderr)  # cell text from the file: one line each
    if diffs:
        print(f"{where}工作簿显示的结果与评估不一致（未重新计算或被修改）The workbook's cached results differ from the "
              "evaluator's (stale or edited workbook; open it in Excel to recalculate, or run `xlmodel refresh`):",
              file=sys.stderr)
        for line in diffs[:50]:
            print(f"  - {plain_text(line)}", file=sys.stderr)  # cell text from the file: one line each
    return code, {"workbook": str(path), "exit_code": code, "integrity": integ, **rep.to_output()}, rep, integ


def cmd_check(args) -> int:
    """Read filled-in workbooks back, evaluate them, and say whether each workbook can be trusted.

    Several workbooks (or a folder: every *.xlsx in it): each is checked and reported, a bad one
    too (its error on stderr, exit 2 for it), then a summary table; the exit code is the worst.
    --json prints a list, one object per workbook (also for one)."""
    import json
    from pathlib import Path

    from .integrity import summary_markdown, summary_table, workbook_paths

    paths, skipped = workbook_paths(args.workbook)
    several = len(args.workbook) > 1 or any(Path(a).is_dir() for a in args.workbook)
    for lock in skipped:
        print(f"注意 Note: skipped {plain_text(lock)} (an Excel lock file, left while a workbook is open)", file=sys.stderr)
    objects, rows, worst, printed = [], [], 0, False
    for path in paths:
        if printed and not args.json:
            print()
        try:
            code, obj, rep, integ = _check_one(path, args, several)
            printed = True
        except XlmodelError as e:
            if not several:
                raise
            msg = str(e)
            print("xlmodel: " + "\n".join(plain_text(line) for line in msg.split("\n")), file=sys.stderr)
            code, obj, rep, integ = 2, {"workbook": str(path), "exit_code": 2, "error": msg}, None, None
        worst = max(worst, code)
        objects.append(obj)
        rows.append((path, rep, integ, code))
    if args.json:  # always a list, one object per workbook
        print(json.dumps(objects, ensure_ascii=False, indent=2, default=str))
    elif several:
        print()
        print(summary_markdown(rows) if args.markdown else summary_table(rows, wide=args.wide))
    return worst


def cmd_refresh(args) -> int:
    """Rebuild a workbook with the current plan files and generator, carrying every input over."""
    from .reader import read_workbook
    from .writer import build_workbook

    check_output(args.output, force=args.force, suffixes=(".xlsx",))  # before reading anything
    read = read_workbook(args.workbook, check_formulas=False, installed_plan_wins=True)
    case = read.case
    out = build_workbook(args.output, policy=read.policy, case=case, force=args.force)  # installed, or carried
    n_inputs = sum(len(v) for v in case.years.values()) + len(case.company)
    print(plain_text(f"wrote {out}: carried {n_inputs} inputs, {len(case.attestations)} attestations, {len(case.notes)} "
                     f"notes (policy {read.policy.id} v{read.policy.version}; built before with "
                     f"v{read.built_with.get('xlmodel_policy_version') or '?'}, xlmodel "
                     f"{read.built_with.get('xlmodel_version') or '?'})"), file=sys.stderr)  # versions from the file: inert
    for note in read.notes:
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    for line in read.params_changed:  # the rebuilt workbook has the plan's thresholds
        print(f"注意 Note: parameter not carried, reset to the plan's value: {plain_text(line)}", file=sys.stderr)
    for w in case.warnings:  # amounts that look like 万元/亿元
        print(f"注意 Warning: {read.path}: {w}", file=sys.stderr)
    return 0


def cmd_fill(args) -> int:
    """Write a case's inputs into a workbook built for its plan and year (xlmodel.workbook.fill)."""
    from .fill import fill_workbook

    filled = fill_workbook(args.workbook, args.case, args.output, force=args.force)
    read, g = filled.read, filled.given
    print(f"已写入 wrote {filled.path}：案例 {filled.case.source} 的 {g['inputs']} 项输入、{g['attestations']} 项确认、"
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
        print(f"注意 Note: parameter not carried, reset to the plan's value: {plain_text(line)}", file=sys.stderr)
    for w in filled.case.warnings:  # amounts that look like 万元/亿元
        print(f"注意 Warning: {filled.case.source}: {w}", file=sys.stderr)
    return 0


def cmd_recalc(args) -> int:
    """Recalculate a workbook in a spreadsheet engine and save its values (xlmodel.workbook.drive)."""
    from ..catalogue import STATUS_EN, STATUS_ZH
    from .drive import recalc_workbook
    from .integrity import verdict_lines

    res = recalc_workbook(args.workbook, args.output, args.engine, force=args.force, timeout=args.timeout)
    for note in res.notes:
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    print(f"计算引擎 Engine: {res.engine}（工作簿属性 xlmodel_recalculated_by）")
    for zh, en in verdict_lines(res.integrity):
        print(f"{zh} | {en}")
    status = res.report.overall_status
    print(f"总体结论 Overall: {STATUS_ZH[status]} {STATUS_EN[status]}")
    print(f"已写入 wrote {res.path}", file=sys.stderr)
    integ = res.integrity
    if integ["cached_results_stale"]:
        print(f"{res.engine} 的结果与评估器不一致 {res.engine}'s results differ from the evaluator's "
              "(run `xlmodel selftest` to test this engine):", file=sys.stderr)
    for line in (integ["formulas_changed"] + integ["cached_results_stale"])[:50]:
        print(f"  - {plain_text(line)}", file=sys.stderr)
    return 0 if res.current else 1


def cmd_selftest(args) -> int:
    """Random and boundary cases of every plan, recalculated in the engine, against the evaluator."""
    import tempfile
    from pathlib import Path

    from .. import selftest
    from .engines import engine

    if not 1 <= args.cases <= 1000:
        raise XlmodelError(f"--cases: expected a number of cases per plan from 1 to 1000, got {args.cases}")
    keep = Path(args.keep) if args.keep else None
    if keep is not None and keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise XlmodelError(f"{keep}: --keep needs a new or empty folder (nothing is overwritten)")
    adapter = engine(args.engine)
    policies, skipped = selftest.plans_to_test(args.policy)

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="xlmodel-selftest-") as tmp:
        folder = keep or Path(tmp)
        result = selftest.run(adapter, policies, args.cases, seed=args.seed, folder=folder, timeout=args.timeout,
                              say=say)
    result.skipped, result.folder = skipped, keep
    print(selftest.summary(result))
    return 0 if result.ok else 1


def add_commands(sub) -> None:
    sc = sub.add_parser("check", help="read a filled-in workbook back, evaluate it and check its integrity")
    sc.add_argument("workbook", metavar="BOOK.xlsx", nargs="+",
                    help="workbooks to check, or a folder: every *.xlsx in it (then a summary table)")
    fmt = sc.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true",
                     help="print JSON: always a list, one object per workbook, with its integrity and exit code")
    fmt.add_argument("--markdown", action="store_true", help="print Markdown (for a board memo)")
    sc.add_argument("--wide", action="store_true",
                    help="the full table, one line per rule, not fitted to the terminal's width (COLUMNS)")
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
    sf = sub.add_parser("fill", help="write a case's inputs into a workbook built for its plan and year")
    sf.add_argument("workbook", metavar="BOOK.xlsx", help="a workbook xlmodel built for the case's plan and year")
    sf.add_argument("case", metavar="CASE", help="case file (YAML/JSON): its figures, attestations and notes")
    sf.add_argument("-o", "--output", required=True, help="the filled .xlsx (BOOK itself with --force)")
    sf.add_argument("--force", action="store_true", help="overwrite an existing file")
    sf.set_defaults(func=cmd_fill)
    engines = ("excel", "libreoffice", "gnumeric")
    sc2 = sub.add_parser("recalc", help="recalculate a workbook in a spreadsheet engine (Excel, LibreOffice, "
                                        "Gnumeric) and save its values")
    sc2.add_argument("workbook", metavar="BOOK.xlsx")
    sc2.add_argument("-o", "--output", required=True, help="the recalculated .xlsx")
    sc2.add_argument("--engine", choices=engines,
                     help="the engine (default: the first present: Excel on Windows/macOS, LibreOffice, Gnumeric)")
    sc2.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                     help="time the engine has for the workbook, after a minute to start (default 120)")
    sc2.add_argument("--force", action="store_true", help="overwrite an existing file")
    sc2.set_defaults(func=cmd_recalc)
    st = sub.add_parser("selftest", help="prove the models in your spreadsheet engine: random and boundary cases "
                                         "against the evaluator")
    st.add_argument("--engine", choices=engines,
                    help="the engine (default: the first present: Excel on Windows/macOS, LibreOffice, Gnumeric)")
    st.add_argument("--cases", type=int, default=20, metavar="N", help="cases per plan (default 20; a third on boundaries)")
    st.add_argument("--policy", action="append", metavar="ID", help="test this plan only (repeatable; default: every plan)")
    st.add_argument("--seed", type=int, default=20261201, help="the cases' seed (default: the parity tests')")
    st.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                    help="time the engine has for each workbook, after a minute to start (default 60)")
    st.add_argument("--keep", metavar="DIR", help="keep the workbooks (ours and the engine's) in this new folder")
    st.set_defaults(func=cmd_selftest)
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
