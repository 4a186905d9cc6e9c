"""`xlmodel build`: write a workbook for a policy (empty) or a case (filled)."""

from __future__ import annotations

import sys

from ..errors import XlmodelError
from ..inputs.files import check_output
from ..inputs.sanitize import plain_text


def cmd_build(args) -> int:
    from ..case import check_attestations, load_case
    from ..evaluator import model_for
    from ..plans.schema import policy_by_id
    from ..workbook.writer import build_workbook

    if bool(args.case) == bool(args.policy):
        raise XlmodelError("build 需要案例文件或 --policy ID（二者选一）build needs either a CASE file or --policy ID")
    if args.year is not None and not 1990 <= args.year <= 2100:
        raise XlmodelError(f"--year: 年度须在 1990–2100 之间 expected a fiscal year between 1990 and 2100, got {args.year}")
    check_output(args.output, force=args.force, suffixes=(".xlsx",))  # before any work
    case = None
    if args.case:
        case = load_case(args.case)
        check_attestations(case, model_for(policy_by_id(case.policy)).attestation_ids())
        for w in case.warnings:  # amounts that look like 万元/亿元
            print(f"注意 Warning: {case.source}: {w}", file=sys.stderr)
    out = build_workbook(args.output, policy=args.policy, case=case, evaluation_year=args.year, force=args.force,
                         udf=getattr(args, "udf", False))
    print(f"已写入 wrote {plain_text(out)}", file=sys.stderr)  # a path with a newline: one line, escaped
    from ..plans.schema import load_policy

    plan = policy_by_id(case.policy) if case else load_policy(args.policy)
    year = case.evaluation_year if case else (args.year or plan.plan_years[1])
    if not plan.plan_years[0] <= year <= plan.plan_years[1]:
        print(f"注意 Note: {year} 年不在规划期内，仍按规划条款评估 — {year} lies outside the plan period {plan.plan_years[0]}–{plan.plan_years[1]} of {plan.id}; "
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
    from ..workbook.integrity import integrity, verdict_lines
    from ..workbook.reader import cached_differences, read_workbook

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

    from ..workbook.integrity import summary_markdown, summary_table, workbook_paths

    paths, skipped = workbook_paths(args.workbook)
    several = len(args.workbook) > 1 or any(Path(a).is_dir() for a in args.workbook)
    for lock in skipped:
        print(f"注意 Note: 已跳过 Excel 锁定文件 skipped {plain_text(lock)} (an Excel lock file, left while a workbook is open)", file=sys.stderr)
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
            from ..errors import chinese_first

            msg = str(e)
            print("xlmodel: " + "\n".join(plain_text(line) for line in chinese_first(msg).split("\n")), file=sys.stderr)
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


def cmd_recalc(args) -> int:
    """Recalculate a workbook in a spreadsheet engine and save its values (xlmodel.engines.drive)."""
    from ..rules.catalogue import STATUS_EN, STATUS_ZH
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


def cmd_selftest(args) -> int:
    """Random and boundary cases of every plan, recalculated in the engine, against the evaluator."""
    import tempfile
    from pathlib import Path

    from ..engines import selftest
    from ..engines.drive import check_timeout
    from ..engines.engines import engine
    from ..engines.recalc import stopped_by_signals

    timeout = check_timeout(args.timeout)
    if not 1 <= args.cases <= 1000:
        raise XlmodelError(f"--cases: 每个规划的案例数须为 1–1000 expected a number of cases per plan from 1 to 1000, got {args.cases}")
    keep = Path(args.keep) if args.keep else None
    if keep is not None and keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise XlmodelError(f"{keep}: --keep 须为新的或空的文件夹 --keep needs a new or empty folder (nothing is overwritten)")
    adapter = engine(args.engine)
    policies, skipped = selftest.plans_to_test(args.policy)

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    with stopped_by_signals(), tempfile.TemporaryDirectory(prefix="xlmodel-selftest-") as tmp:
        folder = keep or Path(tmp)
        result = selftest.run(adapter, policies, args.cases, seed=args.seed, folder=folder, timeout=timeout,
                              say=say)
    result.skipped, result.folder = skipped, keep
    print(selftest.summary(result))
    return 0 if result.ok else 1


def add_commands(sub) -> None:
    sc = sub.add_parser("check", help="读回填好的工作簿，评估并检查其完整性 read a filled-in workbook back, evaluate it and check its integrity")
    sc.add_argument("workbook", metavar="BOOK.xlsx", nargs="+",
                    help="要检查的工作簿，或一个文件夹（其中每个 *.xlsx，最后列汇总表） workbooks to check, or a folder: every *.xlsx in it (then a summary table)")
    fmt = sc.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true",
                     help="输出 JSON：总是一个列表，每个工作簿一个对象 print JSON: always a list, one object per workbook, with its integrity and exit code")
    fmt.add_argument("--markdown", action="store_true", help="输出 Markdown（用于董事会材料）print Markdown (for a board memo)")
    sc.add_argument("--wide", action="store_true",
                    help="完整表格，每条规则一行，不按终端宽度收窄 the full table, one line per rule, not fitted to the terminal's width (COLUMNS)")
    sc.set_defaults(func=cmd_check)
    sr = sub.add_parser("refresh", help="用当前的规划和生成器重建工作簿，保留其输入 rebuild a workbook with the current plan and generator, keeping its inputs")
    sr.add_argument("workbook", metavar="OLD.xlsx")
    sr.add_argument("-o", "--output", required=True, help="新的 .xlsx the new .xlsx")
    sr.add_argument("--force", action="store_true", help="覆盖已有文件 overwrite an existing file")
    sr.set_defaults(func=cmd_refresh)

    sb = sub.add_parser("build", help="为案例或空白规划模型写出带公式的工作簿 write a formula-backed workbook for a case or an empty policy model")
    sb.add_argument("case", nargs="?", metavar="CASE", help="用以填写工作簿的案例文件（YAML/JSON）case file (YAML/JSON) to fill the workbook with")
    sb.add_argument("--policy", help="空白模型的规划 ID policy id for an empty model")
    sb.add_argument("--year", type=int, help="空白模型的评估年度（默认：规划的最后一年）evaluation year of an empty model (default: the plan's last year)")
    sb.add_argument("-o", "--output", required=True, help="要写出的 .xlsx the .xlsx to write")
    sb.add_argument("--force", action="store_true", help="覆盖已有文件 overwrite an existing file")
    sb.add_argument("--udf", action="store_true",
                    help="另加一张调用 XLM_* 工作表函数（xlwings）的 UDF 工作表 add a UDF sheet calling the XLM_* worksheet functions (xlwings) beside the native results, "
                         "and the xlwings.conf sheet naming the module")
    sb.set_defaults(func=cmd_build)
    sf = sub.add_parser("fill", help="把案例的输入写入为其规划和年度建好的工作簿 write a case's inputs into a workbook built for its plan and year")
    sf.add_argument("workbook", metavar="BOOK.xlsx", help="由 xlmodel 为该案例的规划和年度生成的工作簿 a workbook xlmodel built for the case's plan and year")
    sf.add_argument("case", metavar="CASE", help="案例文件（YAML/JSON）：数据、确认事项和备注 case file (YAML/JSON): its figures, attestations and notes")
    sf.add_argument("-o", "--output", required=True, help="填好的 .xlsx（给 --force 可为 BOOK 本身）the filled .xlsx (BOOK itself with --force)")
    sf.add_argument("--force", action="store_true", help="覆盖已有文件 overwrite an existing file")
    sf.set_defaults(func=cmd_fill)
    engines = ("excel", "libreoffice", "gnumeric")
    sc2 = sub.add_parser("recalc", help="在电子表格引擎中重算工作簿并保存其值 recalculate a workbook in a spreadsheet engine (Excel, LibreOffice, "
                                        "Gnumeric) and save its values")
    sc2.add_argument("workbook", metavar="BOOK.xlsx")
    sc2.add_argument("-o", "--output", required=True, help="重算后的 .xlsx the recalculated .xlsx")
    sc2.add_argument("--engine", choices=engines,
                     help="电子表格引擎（默认：本机第一个可用的）the engine (default: the first present: Excel on Windows/macOS, LibreOffice, Gnumeric)")
    sc2.add_argument("--timeout", default=120.0, metavar="SECONDS",  # checked by check_timeout: no NaN, no infinity
                     help="引擎处理该工作簿的时限（秒） time the engine has for the workbook, after a minute to start (default 120)")
    sc2.add_argument("--force", action="store_true", help="覆盖已有文件 overwrite an existing file")
    sc2.set_defaults(func=cmd_recalc)
    st = sub.add_parser("selftest", help="在你的电子表格引擎中验证模型：随机与边界案例对照评估器 prove the models in your spreadsheet engine: random and boundary cases "
                                         "against the evaluator")
    st.add_argument("--engine", choices=engines,
                    help="电子表格引擎（默认：本机第一个可用的）the engine (default: the first present: Excel on Windows/macOS, LibreOffice, Gnumeric)")
    st.add_argument("--cases", type=int, default=20, metavar="N", help="每个规划的案例数 cases per plan (default 20; a third on boundaries)")
    st.add_argument("--policy", action="append", metavar="ID", help="只测试此规划 test this plan only (repeatable; default: every plan)")
    st.add_argument("--seed", type=int, default=20261201, help="案例的随机种子 the cases' seed (default: the parity tests')")
    st.add_argument("--timeout", default=60.0, metavar="SECONDS",  # checked by check_timeout: no NaN, no infinity
                    help="引擎处理每个工作簿的时限（秒） time the engine has for each workbook, after a minute to start (default 60)")
    st.add_argument("--keep", metavar="DIR", help="把工作簿（我们的和引擎的）保存在这个新文件夹 keep the workbooks (ours and the engine's) in this new folder")
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
    from ..workbook.writer import build_workbook

    if args.dir is None:
        src = bundled_samples()
        if src is None:
            package = Path(__file__).resolve().parents[1]
            raise XlmodelError(f"找不到内置样例案例 no bundled sample cases found (neither {package.parent / 'samples'} nor "
                               f"{package / 'samples'} has *.yaml files); pass --dir FOLDER")
    else:
        src = Path(args.dir)
    cases = sorted(src.glob("*.yaml"))
    if not cases:
        raise XlmodelError(f"{src} 中没有样例案例（*.yaml）no sample cases (*.yaml) in {src}")
    out = Path(args.out)
    existing = []
    for path in cases:  # every target checked before any work; all existing ones named at once
        try:
            check_output(out / f"{path.stem}.xlsx", force=args.force, suffixes=(".xlsx",))
        except OutputExistsError:
            existing.append(str(out / f"{path.stem}.xlsx"))
    if existing:
        raise OutputExistsError(f"{len(cases)} 个工作簿中已有 {len(existing)} 个存在，如要覆盖请加 --force — "
                                f"{len(existing)} of the {len(cases)} workbooks exist; pass --force to overwrite them, "
                                f"or choose another --out folder:\n" + "\n".join(f"  - {plain_text(e)}" for e in existing))
    for path in cases:
        case = load_case(path)
        rep = evaluate(case)
        target = out / f"{path.stem}.xlsx"
        build_workbook(target, case=case, force=args.force)
        print(render_table(rep))
        print(f"已写入 -> {plain_text(target)}\n")
    return 0


def add_sample_command(sub) -> None:
    ss = sub.add_parser("samples", help="评估内置样例案例并生成其工作簿 evaluate the bundled sample cases and build their workbooks")
    ss.add_argument("--dir", default=None,
                    help="样例案例的文件夹 folder of sample cases (default: the samples that come with xlmodel, from any directory)")
    ss.add_argument("--out", default="out", help="工作簿的输出文件夹 folder for the workbooks (default: out, in the current directory)")
    ss.add_argument("--force", action="store_true", help="覆盖 --out 中已有的工作簿 overwrite workbooks that exist in --out")
    ss.set_defaults(func=cmd_samples)
