"""The ``xlmodel`` command line.

Exit codes: 0 compliant (pass or warnings only), 1 a rule fails or an input a
rule needs is missing, 2 bad input or usage. Errors are one clear message on
stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .errors import OutputExistsError, XlmodelError

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors exit 2 with a short message
        self.print_usage(sys.stderr)
        print(f"xlmodel: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INPUT)


def _out_path(path: str, force: bool) -> Path:
    p = Path(path)
    if p.exists() and not force:
        raise OutputExistsError(f"{p} exists; pass --force to overwrite it")
    return p


def cmd_policies(args) -> int:
    from .catalogue import compile_policy
    from .policy import list_policies, load_policy

    if args.action == "show":
        if not args.id:
            raise XlmodelError("policies show needs a policy id")
        p = load_policy(args.id)
        m = compile_policy(p)
        print(f"{p.id} v{p.version}  {p.title_zh}\n{p.title_en}\nplan years {p.plan_years[0]}–{p.plan_years[1]}\n")
        if p.major_outlay:
            mo = p.major_outlay
            print(f"重大支出 Major outlay [{mo.clause}]: {mo.definition}"
                  + (f", ≥ {mo.ratio:.0%} of {mo.basis}" + (f" {mo.combine} > {mo.floor:,.0f} 元" if mo.floor else "") if mo.definition == 'formula' else " (board determination)"))
        for rd in m.rules:
            s = rd.spec
            tag = "条件 condition" if rd.role == "condition" else ("警告 warn" if s.severity == "warn" else "要求 requirement")
            print(f"\n[{s.clause}] {s.id}  ({s.kind}; {tag}; when: {', '.join(s.when)})")
            print(f"  {s.title_zh}\n  {s.title_en}\n  {'依据 Basis' if rd.role == 'regulatory' else '原文 Text'}: “{s.quote}”")
        print("\n参数 Parameters:")
        for prm in m.params.values():
            v = prm.value
            shown = (", ".join(v) if isinstance(v, tuple) else f"{v:.2%}" if prm.unit == "%"
                     else f"{int(v)}" if prm.unit in ("年", "月") else f"{v:,.2f}")
            print(f"  {prm.name} = {shown} {prm.unit if prm.unit not in ('%', '选项') else ''}  [{prm.clause}] {prm.zh}")
        counts: dict[str, int] = {}
        for c in p.clauses.values():
            counts[c.treatment] = counts.get(c.treatment, 0) + 1
        print(f"\n条款 Clauses: {len(p.clauses)} — " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        return EXIT_OK
    for p in list_policies():
        company = p.company.company_name if p.company else ""
        print(f"{p.id:<28} v{p.version:<8} {p.plan_years[0]}–{p.plan_years[1]}  {len(p.rules):>3} rules  {company}")
    return EXIT_OK


def cmd_evaluate(args) -> int:
    from .case import load_case
    from .evaluator import evaluate
    from .report import render_table

    if args.batch:
        from .batch import evaluate_batch, read_table

        if not args.output:
            raise XlmodelError("--batch needs -o OUT.csv|OUT.xlsx")
        out = _out_path(args.output, args.force)
        if out.suffix.lower() not in (".csv", ".xlsx"):
            raise XlmodelError(f"{out}: the output must be .csv or .xlsx")
        df = evaluate_batch(read_table(args.batch), policy=args.policy, source=args.batch)
        from .io import atomic_write

        with atomic_write(out) as tmp:
            if out.suffix.lower() == ".csv":
                df.to_csv(tmp, index=False, encoding="utf-8-sig")
            else:
                df.to_excel(tmp, index=False, engine="xlsxwriter")
        counts = df["overall_status"].value_counts().to_dict()
        at_risk = df.loc[df["st_risk_warning"].eq(True), "stock_code" if "stock_code" in df else "company_name"]
        print(f"{len(df)} company-years evaluated -> {out}  ({', '.join(f'{k}: {v}' for k, v in sorted(counts.items()))})",
              file=sys.stderr)
        print(f"交易所低分红风险警示 at risk of the ST warning: {len(at_risk)} company-years"
              + (f" ({', '.join(sorted(set(map(str, at_risk)))[:20])}{' …' if at_risk.nunique() > 20 else ''})" if len(at_risk) else ""),
              file=sys.stderr)
        return EXIT_FAIL if (df["overall_status"].isin(["fail", "missing_input"])).any() else EXIT_OK
    if not args.cases:
        raise XlmodelError("evaluate needs a CASE file (or --batch FILE)")
    worst = EXIT_OK
    reports = []
    for path in args.cases:
        rep = evaluate(load_case(path))
        reports.append(rep)
        worst = max(worst, rep.exit_code)
    if args.json:
        payload = [_json(r) for r in reports]
        print(json.dumps(payload[0] if len(payload) == 1 else payload, ensure_ascii=False, indent=2, default=str))
    else:
        print("\n\n".join(render_table(r) for r in reports))
    return worst


def _json(rep) -> dict:
    d = rep.to_dict()
    keys = ["policy", "evaluation_year", "overall_status", "cash_conditions_met", "min_cash_dividend",
            "max_distribution", "rules", "st_risk_warning", "cash_needed_to_avoid_st"]
    return {**{k: d[k] for k in keys}, **{k: v for k, v in d.items() if k not in keys}}


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="xlmodel", description="Shareholder dividend return plans (股东分红回报规划) as Excel models.")
    p.add_argument("--version", action="version", version=f"xlmodel {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sp = sub.add_parser("policies", help="list the policies; `policies show ID` prints a policy's rules")
    sp.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    sp.add_argument("id", nargs="?")
    sp.set_defaults(func=cmd_policies)

    se = sub.add_parser("evaluate", help="evaluate case files (YAML/JSON), or a batch CSV/XLSX")
    se.add_argument("cases", nargs="*", metavar="CASE")
    se.add_argument("--json", action="store_true", help="print JSON instead of a table")
    se.add_argument("--batch", metavar="FILE", help="CSV/XLSX with one row per company and fiscal year")
    se.add_argument("--policy", help="policy id for every row of --batch (else a 'policy' column)")
    se.add_argument("-o", "--output", help="output of --batch (.csv or .xlsx)")
    se.add_argument("--force", action="store_true", help="overwrite the output file")
    se.set_defaults(func=cmd_evaluate)

    try:
        from .workbook.cli import add_commands
    except ImportError:  # pragma: no cover - the workbook module is part of the package
        add_commands = None
    if add_commands:
        add_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except XlmodelError as e:
        print(f"xlmodel: {e}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
