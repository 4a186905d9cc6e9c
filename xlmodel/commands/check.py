"""`xlmodel check`: read filled-in workbooks back, evaluate them and check their integrity."""

from __future__ import annotations

import sys

from ..errors import XlmodelError
from ..inputs.sanitize import plain_text


def _print_report(rep, args, preface=()) -> None:
    from ..report.terminal import render_table
    from ..report.markdown import render_markdown

    if getattr(args, "markdown", False):
        print(render_markdown(rep, preface=preface))
    else:
        print(render_table(rep, wide=getattr(args, "wide", False), preface=preface))


#: the differences listed without -v: enough to see what kind of difference it is
SHOWN_DIFFERENCES = 3


def _print_differences(diffs: list[str], read, where: str, verbose: bool) -> None:
    """Where the workbook's cached results differ from the evaluator's (the verdict above is computed from its
    inputs either way): one line saying why and what to do, the first few differences, all of them with -v
    (51.5: a stale book's check listed ~40 lines of internal names)."""
    n = len(diffs)
    if all(v is None or v == "" for v in read.cached.values()):
        print(f"{where}工作簿中的结果均为空白：保存它的程序未重新计算公式。上面的结论按其输入计算；在 Excel 中打开并保存，或运行 "
              f"`xlmodel refresh`，工作簿即显示结果（{n} 项{'，如下' if verbose else '；-v 列出'}）— the workbook shows no results: "
              "the program that saved it did not recalculate. The verdict above is computed from its inputs; open and "
              f"save it in Excel, or run `xlmodel refresh` ({n} results{'' if verbose else '; -v lists them'})", file=sys.stderr)
        shown = diffs if verbose else []
    else:
        print(f"{where}工作簿显示的结果与评估不一致 {n} 项（未重新计算或被修改；上面的结论按其输入计算）The workbook's "
              f"cached results differ from the evaluator's in {n} place{'s' if n != 1 else ''} (stale or edited; the verdict above is "
              "computed from its inputs). 在 Excel 中重新计算，或运行 `xlmodel refresh` — recalculate in Excel, or run "
              "`xlmodel refresh`:", file=sys.stderr)
        shown = diffs if verbose else diffs[:SHOWN_DIFFERENCES]
    for line in shown:
        print(f"  - {plain_text(line)}", file=sys.stderr)
    if len(shown) < n and shown:
        print(f"  … 另 {n - len(shown)} 项（-v 列出全部）{n - len(shown)} more (-v lists them all)", file=sys.stderr)


def _check_one(path, args, several: bool):
    """Check one workbook: (exit code, its JSON object, report, integrity); the report is printed
    unless --json, the details of what is wrong on stderr (named by file when ``several``)."""
    from ..evaluator import evaluate
    from ..workbook.integrity import integrity, verdict_lines
    from ..workbook.reader import read_workbook
    from ..workbook.compare import cached_differences

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
        _print_differences(diffs, read, where, getattr(args, "verbose", False))
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
