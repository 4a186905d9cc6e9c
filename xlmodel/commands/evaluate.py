"""`xlmodel evaluate`: evaluate case files, or a batch CSV/XLSX."""

from __future__ import annotations

import sys

from ..errors import EXIT_FAIL, EXIT_OK


def _cmd_batch(args) -> int:
    """``evaluate --batch FILE -o OUT``: the table evaluated and written as the rows arrive, the tally on stderr."""
    from ..errors import XlmodelError
    from ..batch.evaluate import prepare_batch
    from ..batch.table import read_table

    if not args.output:
        raise XlmodelError("--batch 需要输出文件（-o 结果.csv 或 结果.xlsx）--batch needs -o OUT.csv|OUT.xlsx")
    from ..batch.output import Tally, risk_headline, risk_lines, write_batch_xlsx
    from ..batch.output_csv import write_batch_csv
    from ..outputs import OUTPUT
    from ..inputs.files import check_output
    from ..inputs.sanitize import plain_text

    out = check_output(args.output, force=args.force, suffixes=(".csv", ".xlsx"), inputs=[args.batch])  # before any work
    table = read_table(args.batch)
    batch = prepare_batch(table, policy=args.policy, source=args.batch, year=args.year)
    del table  # the raw cells: every column is read into the batch's arrays
    for note in batch.notes:
        print(f"注意 Note: {plain_text(args.batch)}: {plain_text(note)}", file=sys.stderr)
    for w in batch.warnings:  # amounts that look like 万元/亿元
        print(f"注意 Warning: {plain_text(args.batch)}: {plain_text(w)}", file=sys.stderr)
    tally = Tally(batch.columns)
    (write_batch_csv if out.suffix.lower() == ".csv" else write_batch_xlsx)(batch, out, force=args.force,
                                                                            progress=None, tally=tally)
    if tally.outside:
        print(f"注意 Note: {tally.outside} 个公司年度在规划期外，仍按规划评估 company-years outside their plan's years "
              f"(in_plan_period False), evaluated all the same", file=sys.stderr)
    counts = tally.overall
    risk = tally.at_risk()
    keys = sorted(set(map(plain_text, risk[tally.key]))) if tally.key in risk else []
    print(f"已评估 {tally.n} 个公司年度 {tally.n} company-years evaluated -> {plain_text(out)}  "
          f"({', '.join(f'{k}: {v}' for k, v in sorted(counts.items()))})", file=sys.stderr)
    zh, en = risk_headline(len(risk), None, tally.risk_undecided)
    print(f"{OUTPUT['st_risk_warning'].short_zh}：{zh} — at risk of the ST warning: {en}"
          + (f" ({', '.join(keys[:20])}{' …' if len(keys) > 20 else ''})" if len(risk) else ""),
          file=sys.stderr)
    for line in risk_lines(risk, tally.key):  # the year's total and the gap to the file's cash, each named
        print(f"  {plain_text(line)}", file=sys.stderr)
    for zh, en in tally.units_lines():  # a likely 万元 slip: the rows fail, and the amounts above are not 元
        print(f"注意 Warning: {plain_text(zh)} / {plain_text(en)}", file=sys.stderr)
    from ..batch.results import unreviewed_plans

    drafts = unreviewed_plans(batch.models)  # an unreviewed draft's rows are no pass (said above, as a warning)
    return EXIT_FAIL if counts.get("fail") or counts.get("missing_input") or drafts else EXIT_OK


def cmd_evaluate(args) -> int:
    import json

    from ..errors import XlmodelError
    from ..case import load_case
    from ..evaluator import evaluate, evaluate_years
    from ..report.terminal import render_by_year, render_table

    if args.year is not None and not args.batch:
        raise XlmodelError("--year 仅用于 --batch --year is for --batch only")
    if args.batch:
        return _cmd_batch(args)
    if not args.cases:
        raise XlmodelError("evaluate 需要案例文件（或 --batch 批量文件）evaluate needs a CASE file (or --batch FILE)")
    worst = EXIT_OK
    reports, cases = [], []
    for path in args.cases:
        case = load_case(path)
        cases.append(case)
        for w in case.warnings:
            print(f"注意 Warning: {case.source}: {w}", file=sys.stderr)
        rep = evaluate(case)
        reports.append((rep, evaluate_years(case) if args.by_year else None))
        if args.by_year and case.forecast_years:
            print(f"注意 Note: {case.source}: {'、'.join(map(str, sorted(case.forecast_years)))} 年为预测数 "
                  "forecast figures, not reported ones", file=sys.stderr)
        worst = max(worst, rep.exit_code)
    objects = [{**r.to_output(), **({"by_year": [_year_json(y) | {"forecast": y.evaluation_year in c.forecast_years}
                                                 for y in years]} if years is not None else {})}
               for c, (r, years) in zip(cases, reports)]
    if args.json:  # always a list, one object per case, whatever the number of files
        print(json.dumps(objects, ensure_ascii=False, indent=2, default=str))
    elif args.jsonl:  # JSON Lines: one compact object per case and line
        for obj in objects:
            print(json.dumps(obj, ensure_ascii=False, default=str))
    else:
        print("\n\n".join(render_table(r, wide=args.wide)
                           + (f"\n\n{render_by_year(years, r.evaluation_year, c.forecast_years)}" if years else "")
                           for c, (r, years) in zip(cases, reports)))
    return worst


def _year_json(rep) -> dict:
    """One year of ``--by-year``: the results and every rule's status (the rules in full are in the main object)."""
    keys = ("evaluation_year", "in_plan_period", "overall_status", "cash_conditions_met", "min_cash_dividend",
            "max_distribution", "fail_count", "warn_count", "missing_input_count", "st_risk_warning")
    return {"fiscal_year" if k == "evaluation_year" else k: getattr(rep, k) for k in keys} | {
        "rules": {r.id: r.status for r in rep.rules}}
