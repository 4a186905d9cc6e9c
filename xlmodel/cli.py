"""The ``xlmodel`` command line.

Exit codes (also in ``xlmodel --help``, :data:`EXIT_HELP`): 0 compliant (pass or
warnings only), 1 a rule fails, an input a rule needs is missing or (check) formulas
were changed or the workbook's plan is its own copy (not installed: unverified), 2 bad
input or usage, 130/143 interrupted. Errors are one clear message
on stderr, never a traceback; library warnings become short notes (:mod:`xlmodel.libnotes`).
"""

from __future__ import annotations

import argparse
import re
import sys

from . import __version__

# Start-up: ``xlmodel --help`` and ``xlmodel policies`` import only what they use. Modules are
# imported in the functions that need them (numpy, pandas and pydantic by the commands that use
# them); the commands of xlmodel.commands.workbook and xlmodel.draft are registered for real only when
# the command line names them, else as stubs with the same help (tests/test_scalar_path.py keeps
# the two help texts equal).

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2

_INTERRUPTED = ("  130  已中断 interrupted (Ctrl-C)，143 已终止 stopped (SIGTERM)：不留写了一半的文件\n"
                "       no output is left half-written")
_EXISTS = "\n       或输出文件已存在而未给 --force or an output exists and --force was not given"


def _codes(*lines: str) -> str:
    return "\n".join(["退出码 exit codes:", *lines])


#: the exit codes each command's --help lists (None: `xlmodel --help`); lines within 90 columns
EXIT_HELP = {
    None: _codes(
        "  0    合规：每条规则通过或仅警告（build、fill、refresh、samples：已写出）\n"
        "       compliant: every rule passes or only warns (build, fill, refresh, samples: written)",
        "  1    有规则不通过、缺少规则所需的输入，或（check）工作簿公式被改动、\n"
        "       其规划未在本机安装（未验证）\n"
        "       a rule fails, an input a rule needs is missing, or (check) the workbook's\n"
        "       formulas were changed or its plan is not installed here (unverified)",
        "  2    输入或用法有误（消息指明文件、字段和年度）\n"
        "       bad input or usage (the message names the file, field and year)" + _EXISTS,
        _INTERRUPTED),
    "policies": _codes("  0    已列出或显示；（check）规划文件有效；（install）已安装\n"
                       "       listed or shown; (check) the file is a valid policy; (install) installed",
                       "  2    未知的规划 ID，或规划文件无法加载（check：列出每个问题），\n"
                       "       或（install）已有不同的文件而未给 --force\n"
                       "       unknown policy id, or a policy file that does not load (check: every problem\n"
                       "       listed), or (install) a different file exists and --force was not given")
    + "\n\n规划按 ID 查找：内置模板、--plans 文件夹（否则 XLMODEL_PLANS）\n"
      "和用户规划文件夹（policies install 安装之处）。\nPlans are found by id in the bundled templates, the --plans folders (else XLMODEL_PLANS)\n"
      "and the user's plan folder, where `policies install` puts them.",
    "evaluate": _codes(
        "  0    每个案例（--batch 的每一行）合规：每条规则通过或仅警告\n"
        "       every case (every --batch row) is compliant: each rule passes or only warns",
        "  1    某案例或某行有规则不通过或缺少规则所需的输入，或其规划是未复核的草稿（待复核）\n"
        "       in some case or row a rule fails or an input a rule needs is missing, or its\n"
        "       plan is an unreviewed draft (open 待复核 items: no verdict of compliance)",
        "  2    输入或用法有误（消息指明文件或行、字段和年度）\n"
        "       bad input or usage (the message names the file or row, field and year)" + _EXISTS
        + "\n       或 --batch 的 -o 即其输入文件（即使给了 --force 也拒绝）\n"
          "       or --batch's -o is its input file (refused, even with --force)",
        _INTERRUPTED)
    + "\n\n--json 输出一个列表，每个案例一个对象（一个文件也如此）；--jsonl 每行一个对象。\n"
      "--json prints a list, one object per case (also for one file); --jsonl one object a line.",
    "check": _codes(
        "  0    合规，工作簿公式即 xlmodel 生成的公式，其规划已安装\n"
        "       compliant, the workbook's formulas the ones xlmodel generates, its plan installed",
        "  1    有规则不通过、缺少规则所需的输入、公式被改动，\n"
        "       或规划是工作簿自带的副本、未在本机安装（未验证：不判合规）\n"
        "       a rule fails, an input a rule needs is missing, formulas were changed, or the\n"
        "       plan is the workbook's own copy, not installed here (unverified: no compliance)",
        "  2    不是 xlmodel 能读取的工作簿（消息指明 工作表!单元格 及应填内容）\n"
        "       not a workbook xlmodel can read (the message names sheet!cell and what was expected)",
        _INTERRUPTED)
    + "\n\n多个工作簿或一个文件夹：逐个检查（有误的也检查），再列汇总表；退出码取最差者。\n"
      "--json 输出一个列表，每个工作簿一个对象。\n"
      "Several workbooks or a folder: each is checked (a bad one too), then a summary table;\n"
      "the exit code is the worst. --json prints a list, one object per workbook (also for one).",
    "build": _codes("  0    已写出 written",
                    "  2    输入或用法有误（消息指明字段和年度）\n"
                    "       bad input or usage (the message names the field and year)" + _EXISTS, _INTERRUPTED),
    "refresh": _codes("  0    已写出 written", "  2    工作簿 xlmodel 无法读取 a workbook xlmodel cannot read" + _EXISTS,
                      _INTERRUPTED),
    "fill": _codes("  0    已写出（缓存结果由评估器算出，为最新）\n"
                   "       written (its cached results computed by the evaluator: current)",
                   "  2    工作簿或案例 xlmodel 无法读取，或案例属于另一规划、年度或公司\n"
                   "       a workbook or case xlmodel cannot read, a case for another plan, year or\n"
                   "       company" + _EXISTS, _INTERRUPTED),
    "recalc": _codes("  0    已写出，且 `check` 认定引擎的结果为最新\n"
                     "       written, and `check` finds the engine's results current",
                     "  1    已写出，但引擎的结果与评估器不同，或公式被改动（逐一列出）\n"
                     "       written, but the engine's results differ from the evaluator's or formulas\n"
                     "       were changed (listed)",
                     "  2    工作簿 xlmodel 无法读取或无法交给引擎（宏、外部链接、外来函数），没有引擎，\n"
                     "       或引擎出错、超时\n"
                     "       a workbook xlmodel cannot read or hand to an engine (macros, links, foreign\n"
                     "       functions), no engine, or the engine failed or timed out" + _EXISTS, _INTERRUPTED),
    "selftest": _codes("  0    每个结果单元格与评估器一致（已知的半分差异另计）\n"
                       "       every result cell agrees with the evaluator (known half fens set aside, counted)",
                       "  1    有差异（逐一指明规划、案例、工作表!单元格和两个值），或另计的工作簿多于\n"
                       "       一致性测试所允许\n"
                       "       a difference (each named: plan, case, sheet!cell, both values), or more\n"
                       "       workbooks set aside than the parity tests allow",
                       "  2    没有引擎、未知的规划，或引擎出错、超时\n"
                       "       no engine, an unknown plan, or the engine failed or timed out", _INTERRUPTED),
    "plan": _codes("  0    每个测算年度可行，且按测算路径的金额没有规则不通过\n"
                   "       every planned year is feasible and no rule fails at the path's amounts",
                   "  1    某年度不可行（最低额超过法定可分配上限）、按路径金额有规则不通过、--pay 金额低于\n"
                   "       该年最低额，或缺少输入\n"
                   "       a year is infeasible (its minimum above the law's cap), a rule fails at the\n"
                   "       path's amounts, a --pay amount is below its year's minimum, or an input is missing",
                   "  2    输入或用法有误（--pay 取值有误、案例文件有误：消息指明之）\n"
                   "       bad input or usage (a bad --pay value, a case file: the message names it)", _INTERRUPTED)
    + "\n\n--json 输出一个列表，每个测算年度一个对象。\n--json prints a list, one object per planned year.",
    "samples": _codes("  0    已写出（无论样例本身的结果如何）written (whatever the samples' own results)",
                      "  2    找不到样例案例，或案例有误 no sample cases found, or a bad case" + _EXISTS,
                      _INTERRUPTED),
}


_PLANS_HELP = ("自有规划的文件夹，与内置规划一样按 ID 查找 a folder of your own plans, found by id like the bundled ones (repeatable; instead of the "
               "XLMODEL_PLANS folders)")


#: argparse's usage errors, Chinese first: the Chinese for the English they contain (the last: any other)
_USAGE_ZH = (("the following arguments are required", "缺少必需的参数"), ("invalid choice", "无效的选择"),
             ("unrecognized arguments", "无法识别的参数"), ("not allowed with argument", "这两个选项不能同时使用"),
             ("expected one argument", "该选项需要一个值"), ("expected at least one argument", "该选项需要值"),
             ("ambiguous option", "选项不明确"), ("invalid", "取值无效"), ("", "用法错误"))


class _Help(argparse.RawDescriptionHelpFormatter):
    """Help as the commands write it (their epilogs' line breaks kept), its headings Chinese first."""

    def _format_usage(self, usage, actions, groups, prefix):
        return super()._format_usage(usage, actions, groups, "用法 usage: " if prefix is None else prefix)

    def _split_lines(self, text, width):  # wrapped by the columns a terminal shows: a Chinese character takes two
        return _wrap(" ".join(text.split()), width)


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` terminal columns, broken at a space or beside a Chinese character."""
    import unicodedata

    lines, line, cols = [], "", 0
    for piece in re.findall(r"[\u3000-\u9fff\uff00-\uffef]|[^\s\u3000-\u9fff\uff00-\uffef]+|\s+", text):
        wide = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in piece)
        if piece.isspace():
            piece, wide = " ", 1
        if cols + wide > width and line.strip():
            lines.append(line.rstrip())
            line, cols = "", 0
            if piece == " ":
                continue
        line, cols = line + piece, cols + wide
    return lines + ([line.rstrip()] if line.strip() else [])


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs["formatter_class"] = _Help
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = "参数 positional arguments"
        self._optionals.title = "选项 options"
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help="显示本帮助并退出 show this help")

    def error(self, message):  # usage errors exit 2 with a short message, Chinese first, then the usage
        zh = next(zh for words, zh in _USAGE_ZH if words in message)
        print(f"xlmodel: 用法错误 error: {zh} {message}", file=sys.stderr)
        self.print_usage(sys.stderr)
        raise SystemExit(EXIT_INPUT)


def cmd_policies(args) -> int:
    if args.action in ("check", "install"):
        return _policies_check_install(args)
    if args.action == "show":
        from .rules.catalogue import compile_policy  # (numpy: only where the rules are compiled)
        from .errors import XlmodelError
        from .plans.schema import POLICY_ID, find_plan, load_policy, plan_clauses, policy_source
        from .inputs.sanitize import plain_text as t  # every text from the plan file: no terminal control, no forged line

        if not args.id:
            raise XlmodelError("policies show 需要规划 ID policies show needs a policy id")
        p = load_policy(args.id)
        m = compile_policy(p)
        print(f"{t(p.id)} v{t(p.version)}  {t(p.title_zh)}\n{t(p.title_en)}\n规划期 plan years {p.plan_years[0]}–{p.plan_years[1]}")
        src = policy_source(p)
        origin = find_plan(args.id).origin if POLICY_ID.fullmatch(args.id) else f"file: {src.path if src else args.id}"
        print(f"来源 Source: {t(origin)}")
        if src is not None and src.text_path is not None:
            print(f"规划原文 Plan text: {t(src.text_path)} ({len(plan_clauses(p))} clauses)")
        print()
        if p.major_outlay:
            mo = p.major_outlay
            print(f"重大支出 Major outlay [{t(mo.clause)}]: {mo.definition}{mo.summary()}")
        for rd in m.rules:
            s = rd.spec
            tag = "条件 condition" if rd.role == "condition" else ("警告 warn" if s.severity == "warn" else "要求 requirement")
            print(f"\n[{t(s.clause)}] {s.id}  ({s.kind}; {tag}; when: {', '.join(s.when)})")
            print(f"  {t(s.title_zh)}\n  {t(s.title_en)}\n  {'依据 Basis' if rd.role == 'regulatory' else '原文 Text'}: “{t(s.quote)}”")
        print("\n参数 Parameters:")
        for prm in m.params.values():
            v = prm.value
            shown = (", ".join(v) if isinstance(v, tuple) else f"{v:.2%}" if prm.unit == "%"
                     else f"{int(v)}" if prm.unit in ("年", "月") else f"{v:,.2f}")
            print(f"  {prm.name} = {t(shown)} {prm.unit if prm.unit not in ('%', '选项') else ''}  [{t(prm.clause)}] {t(prm.zh)}")
        counts: dict[str, int] = {}
        for c in p.clauses.values():
            counts[c.treatment] = counts.get(c.treatment, 0) + 1
        print(f"\n条款 Clauses: {len(p.clauses)} — " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        return EXIT_OK
    return _list_policies()


def _list_policies() -> int:
    """One line per plan (errors on stderr) and the plan folders; from the cache while no plan, plan
    text or xlmodel file has changed (:mod:`xlmodel.caches.listing_cache`)."""
    from .caches import listing_cache

    hit = listing_cache.cached()
    if hit is None:
        print_ = listing_cache.fingerprint()
        out, err, code = _listing_lines()
        listing_cache.store(out, err, code, print_)
    else:
        from .inputs.sanitize import plain_text  # the cache is a file: printed as plain text whatever it holds

        out, err, code = [plain_text(x) for x in hit[0]], ["\n".join(map(plain_text, x.split("\n"))) for x in hit[1]], hit[2]
    for line in out:
        print(line)
    for line in err:
        print(line, file=sys.stderr)
    return code


def _listing_lines() -> tuple[list[str], list[str], int]:
    from .plan_install import folders_line, list_plans
    from .inputs.sanitize import plain_text

    out, err, worst = [], [], EXIT_OK
    for item in list_plans():
        p = item.policy
        if p is None:
            err.append(_error_text(item.error))
            worst = EXIT_INPUT
            continue
        company = p.company.company_name if p.company else ""
        origin = item.files[0].origin
        out.append(plain_text(f"{p.id:<28} v{p.version:<8} {p.plan_years[0]}–{p.plan_years[1]}  {len(p.rules):>3} rules  "
                              f"{company}" + ("" if origin == "bundled" else f"  [{origin}]")))  # one line, inert
    err.append(plain_text(folders_line()))
    return out, err, worst


def _error(message) -> None:
    print(_error_text(message), file=sys.stderr)


def _error_text(message) -> str:
    """``xlmodel: …``, Chinese first, every line of the message as plain text (no terminal control, no forged line)."""
    from .errors import chinese_first
    from .inputs.sanitize import plain_text

    return "xlmodel: " + "\n".join(plain_text(line) for line in chinese_first(str(message)).split("\n"))


def _policies_check_install(args) -> int:
    from .errors import XlmodelError
    """`policies check FILE`: every problem of one policy file at once; `policies install FILE`:
    the same check, then a copy in the user's plan folder."""
    from .plan_install import check_policy_file, install_policy_file
    from .plans.schema import load_policy_file, plan_clauses, policy_source
    from .inputs.sanitize import plain_text  # file names and a plan's version: one line each, inert

    if not args.id:
        raise XlmodelError(f"policies {args.action} 需要规划文件 policies {args.action} needs a policy FILE")
    if args.action == "install":
        target, text, wrote = install_policy_file(args.id, force=args.force)
        p = load_policy_file(target)
        what = "已安装 installed" if wrote else "已安装过，内容相同 already installed, the same"
        print(plain_text(f"{what}: {p.id} v{p.version} -> {target}" + (f" (plan text {text})" if text else "")))
        print(f"案例、批量行或工作簿现可用其 ID 引用 a case, batch row or workbook now names it by its id: policy: {p.id}")
        given = load_policy_file(args.id).text
        if text is not None and given != p.text:
            print(plain_text(f"注意 Note: 规划原文安装为 {p.text}，为该规划独有 — the plan text is installed as {p.text}, "
                             f"its own (the file names {given}; the installed copy's `text:` names {p.text})"),
                  file=sys.stderr)
        return EXIT_OK
    checked = check_policy_file(args.id)
    p, m = checked.policy, checked.model
    text = (f"; 规划原文 plan text {policy_source(p).text_path} ({len(plan_clauses(p))} clauses, every quote found)" if p.text
            else "; 无规划原文（未核对引文）no plan text (quotes not checked)")
    print(plain_text(f"{args.id}: 规划文件有效 valid policy {p.id} v{p.version} — {len(p.rules)} rules, {len(m.params)} parameters"
                     f"{text}" + (f"; with the regulatory baseline {m.baseline.id}" if m.baseline else "")))
    for note in checked.notes:
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    return EXIT_OK


def cmd_evaluate(args) -> int:
    import json

    from .errors import XlmodelError
    from .case import load_case
    from .evaluator import evaluate, evaluate_years
    from .report import render_by_year, render_table

    if args.year is not None and not args.batch:
        raise XlmodelError("--year 仅用于 --batch --year is for --batch only")
    if args.batch:
        from .batch.evaluate import prepare_batch, read_table

        if not args.output:
            raise XlmodelError("--batch 需要输出文件（-o 结果.csv 或 结果.xlsx）--batch needs -o OUT.csv|OUT.xlsx")
        from .batch.output import Tally, risk_headline, write_batch_csv, write_batch_xlsx
        from .outputs import OUTPUT
        from .inputs.files import check_output
        from .inputs.sanitize import plain_text

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
        for zh, en in tally.units_lines():  # a likely 万元 slip: the rows fail, and the amounts above are not 元
            print(f"注意 Warning: {plain_text(zh)} / {plain_text(en)}", file=sys.stderr)
        from .batch.evaluate import unreviewed_plans

        drafts = unreviewed_plans(batch.models)  # an unreviewed draft's rows are no pass (said above, as a warning)
        return EXIT_FAIL if counts.get("fail") or counts.get("missing_input") or drafts else EXIT_OK
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


def cmd_plan(args) -> int:
    import json

    from .case import load_case
    from .evaluator import plan_by_id
    from .planner import exit_code, parse_pay, plan, render_plan_markdown, render_plan_text, with_later_years_forecast
    from .inputs.sanitize import plain_text

    pay = parse_pay(args.pay)  # before the case is read: a bad --pay value is named first
    params = None
    if str(args.case).lower().endswith((".xlsx", ".xlsm")):  # a filled workbook: its inputs and parameters
        from .workbook.reader import read_workbook

        read = read_workbook(args.case, check_formulas=False, installed_plan_wins=True)
        case, policy, params = with_later_years_forecast(read.case), read.policy, read.params or None
        if read.plan_pay:  # 测算's proposed amounts; a --pay of the same year wins
            print(f"注意 Note: 按“测算”表的拟定现金分红 the proposed amounts on 测算: "
                  f"{', '.join(f'{y}={a:,.2f}' for y, a in sorted(read.plan_pay.items()) if y not in pay)}"
                  f"{'（--pay 优先 --pay wins where given）' if set(pay) & set(read.plan_pay) else ''}", file=sys.stderr)
            pay = {**read.plan_pay, **pay}
        for note in read.notes:
            print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
        if case.forecast_years:
            print(f"注意 Note: {'、'.join(map(str, sorted(case.forecast_years)))} 年（评估年度之后）的数字按预测数测算 "
                  "the figures of the years after the evaluation year are taken as forecasts", file=sys.stderr)
    else:
        case = load_case(args.case)
        policy = plan_by_id(case.policy)
    for w in case.warnings:
        print(f"注意 Warning: {plain_text(case.source)}: {plain_text(w)}", file=sys.stderr)
    path = plan(case, policy, pay, params)
    if args.json:
        print(json.dumps([y.to_dict() for y in path], ensure_ascii=False, indent=2))
    elif args.markdown:
        print(render_plan_markdown(path, case, policy))
    else:
        print(render_plan_text(path, case, policy))
    return exit_code(path)


def _year_json(rep) -> dict:
    """One year of ``--by-year``: the results and every rule's status (the rules in full are in the main object)."""
    keys = ("evaluation_year", "in_plan_period", "overall_status", "cash_conditions_met", "min_cash_dividend",
            "max_distribution", "fail_count", "warn_count", "missing_input_count", "st_risk_warning")
    return {"fiscal_year" if k == "evaluation_year" else k: getattr(rep, k) for k in keys} | {
        "rules": {r.id: r.status for r in rep.rules}}


#: the commands other modules add (:func:`xlmodel.commands.workbook.add_commands`, :func:`xlmodel.commands.draft.add_command`),
#: in their order, with their help: what ``xlmodel --help`` lists without importing those modules
LAZY_COMMANDS = {
    "check": ("workbook", "读回填好的工作簿，评估并检查其完整性 read a filled-in workbook back, evaluate it and check its integrity"),
    "refresh": ("workbook", "用当前的规划和生成器重建工作簿，保留其输入 rebuild a workbook with the current plan and generator, keeping its inputs"),
    "build": ("workbook", "为案例或空白规划模型写出带公式的工作簿 write a formula-backed workbook for a case or an empty policy model"),
    "fill": ("workbook", "把案例的输入写入为其规划和年度建好的工作簿 write a case's inputs into a workbook built for its plan and year"),
    "recalc": ("workbook", "在电子表格引擎中重算工作簿并保存其值 recalculate a workbook in a spreadsheet engine (Excel, LibreOffice, Gnumeric) and save "
                           "its values"),
    "selftest": ("workbook", "在你的电子表格引擎中验证模型：随机与边界案例对照评估器 prove the models in your spreadsheet engine: random and boundary cases against the "
                             "evaluator"),
    "samples": ("workbook", "评估内置样例案例并生成其工作簿 evaluate the bundled sample cases and build their workbooks"),
    "draft": ("draft", "由规划的公告原文起草规划文件（使用前须审阅） draft a policy file from a plan's published text (review before use)"),
}


def _stubs(sub, module: str) -> None:
    for name, (mod, text) in LAZY_COMMANDS.items():
        if mod == module:
            sub.add_parser(name, help=text)


def _command_word(argv: list[str]) -> str | None:
    """The command the arguments name (the first word that is not an option or --plans' folder)."""
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--plans":
            skip = True
        elif a == "--":
            continue
        elif not a.startswith("-"):
            return a
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser; given the arguments to parse, it registers ``draft`` fully only when they name it."""
    p = _Parser(prog="xlmodel", description="股东分红回报规划的 Excel 模型\nShareholder dividend return plans (股东分红回报规划) "
                                                       "as Excel models.",
                epilog=EXIT_HELP[None] + "\n\n用户指南 User guide: docs/user-guide.md；规则 rules: docs/domain.md.",
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"xlmodel {__version__}", help="显示版本号并退出 show the version")
    p.add_argument("--plans", action="append", metavar="DIR", help=_PLANS_HELP)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sp = sub.add_parser("policies", help="列出规划；show 显示规划的规则，check 校验规划文件，install 安装到你的规划文件夹 "
                                         "list the policies; `policies show ID` prints a policy's rules; "
                                         "`policies check FILE` validates a policy file, `policies install FILE` "
                                         "puts it in your plan folder")
    sp.add_argument("action", nargs="?", choices=["list", "show", "check", "install"], default="list")
    sp.add_argument("id", nargs="?", metavar="ID|FILE", help="规划 ID（show）或规划文件（show、check、install） "
                                                          "a policy id (show), or a policy file (show, check, install)")
    sp.add_argument("--force", action="store_true", help="安装时替换已安装的同 ID 规划 install: replace an installed plan of the same id")
    sp.set_defaults(func=cmd_policies)

    se = sub.add_parser("evaluate", help="评估案例文件（YAML/JSON）或批量 CSV/XLSX evaluate case files (YAML/JSON), or a batch CSV/XLSX")
    se.add_argument("cases", nargs="*", metavar="CASE", help="案例文件（YAML/JSON）case files (YAML/JSON)")
    fmt = se.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true",
                     help="输出 JSON 而非表格：总是一个列表，每个案例一个对象 print JSON instead of a table: "
                          "always a list, one object per case")
    fmt.add_argument("--jsonl", action="store_true", help="输出 JSON Lines：每行一个案例对象 print JSON Lines: one object per case and line")
    se.add_argument("--wide", action="store_true",
                    help="完整表格，每条规则一行，不按终端宽度收窄 the full table, one line per rule, not fitted to "
                         "the terminal's width (COLUMNS)")
    se.add_argument("--by-year", action="store_true",
                    help="另评估规划期的每一年（即工作簿的年度列），每年一行 also evaluate every year of the plan period (the workbook's year columns): one line per year")
    se.add_argument("--batch", metavar="FILE", help="批量文件 CSV/XLSX，每行一个公司年度，列名可为字段ID、中文名称或数据终端的列名；"
                                                     "forecast（预测）列标出预测数的行，其结果亦标为预测 "
                                                     "one row per company and fiscal year; columns by field id, "
                                                     "Chinese label or a data terminal's name (docs/column-names.md); "
                                                     "a forecast column marks the rows of forecast figures, and their results")
    se.add_argument("--policy", help="批量文件各行所用的规划；未给且无 policy 列时仅按监管底线筛查 policy id for every row of "
                                     "--batch (else a 'policy' column; neither: the regulatory baseline alone)")
    se.add_argument("-o", "--output", help="--batch 的输出文件（.csv 或 .xlsx）output of --batch (.csv or .xlsx)")
    se.add_argument("--year", type=int, metavar="YEAR", help="--batch 只输出该会计年度的行，其他年度的行作为历史数据读取 "
                                                             "--batch: evaluate the rows of this fiscal year only; the "
                                                             "other years' rows are read as their history")
    se.add_argument("--force", action="store_true", help="覆盖输出文件 overwrite the output file")
    se.set_defaults(func=cmd_evaluate)

    sl = sub.add_parser("plan", help="测算规划期的分红：其余每年的最少现金分红、决定它的规则、上限与不可行年度 "
                                     "plan the dividends of the plan period: each remaining year's least cash dividend, "
                                     "the rule that sets it, the cap, infeasible years")
    sl.add_argument("case", metavar="CASE", help="案例文件（YAML/JSON，其后年度可标注 forecast: true）或已填好的工作簿（.xlsx：其后年度列为预测） "
                                                 "a case file (YAML/JSON; later years may carry forecast: true) or a "
                                                 "filled workbook (.xlsx: its later year columns are forecasts)")
    sl.add_argument("--pay", action="append", metavar="YEAR=AMOUNT",
                    help="指定某年现金分红（元），其后各年据此重算 fix a year's cash dividend (元); the later years "
                         "follow from it (repeatable)")
    pfmt = sl.add_mutually_exclusive_group()
    pfmt.add_argument("--json", action="store_true", help="输出 JSON：列表，每年一个对象 print JSON: a list, one object per year")
    pfmt.add_argument("--markdown", action="store_true", help="输出董事会材料用的 Markdown print Markdown for the board papers")
    sl.set_defaults(func=cmd_plan)

    word = None if argv is None else _command_word(argv)
    full = argv is None or word in LAZY_COMMANDS
    if full and (argv is None or LAZY_COMMANDS[word][0] == "workbook"):
        from .commands.workbook import add_commands
        add_commands(sub)
    else:
        _stubs(sub, "workbook")
    if full and (argv is None or LAZY_COMMANDS[word][0] == "draft"):  # xlmodel draft PLAN.txt -o plan.yaml
        from .commands.draft import add_command as add_draft
        add_draft(sub)
    else:
        _stubs(sub, "draft")
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name, cmd in sub.choices.items():  # the exit codes, in every command's --help
        cmd.add_argument("--plans", action="append", metavar="DIR", dest="plans_after", default=argparse.SUPPRESS,
                         help=_PLANS_HELP)  # also after the command's name
        if name in EXIT_HELP and not cmd.epilog:
            cmd.epilog = EXIT_HELP[name]
        if not cmd.description and helps.get(name):  # what it does, Chinese first, above its options
            cmd.description = "\n".join(_wrap(helps[name], 88))
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    from .libnotes import collecting, notes

    with collecting() as caught:  # library warnings: our own short notes, never a library's file path
        try:
            return _run(args)
        finally:
            if caught:
                from .inputs.sanitize import plain_text

                for note in notes(caught):
                    print(f"注意 Note: {plain_text(note)}", file=sys.stderr)


def _run(args) -> int:
    from .errors import XlmodelError
    from .plans.folders import cli_plan_dirs

    try:
        with cli_plan_dirs((getattr(args, "plans", None) or []) + getattr(args, "plans_after", [])):
            _warn_open_plan_folders(args)
            return args.func(args)
    except XlmodelError as e:
        _error(e)  # one message, its lines ours: text quoted from a file cannot add lines or escape sequences
        return EXIT_INPUT
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGINT/SIGTERM while writing (xlmodel.inputs.files.Interrupted)
        print(f"xlmodel: 已中断，未留下写了一半的文件 {e or 'interrupted'}; no output was left half-written",
              file=sys.stderr)
        return getattr(e, "exit_code", 130)
    except BrokenPipeError:  # output piped into `head` and closed early
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _warn_open_plan_folders(args) -> None:
    """A plan folder anyone may write to is said before a command that reads plans (all but draft)."""
    if args.command == "draft":
        return
    from .plans.folders import writable_by_anyone
    from .inputs.sanitize import plain_text

    for d in writable_by_anyone():
        print(f"注意 Warning: 规划文件夹 {plain_text(d.path)}（{d.origin}）任何用户都可写入：任何人都可以放入或修改规划；"
              f"请收紧权限（chmod o-w）— the plan folder {plain_text(d.path)} ({d.origin}) is writable by every user of "
              "this machine: anyone could drop a plan there or change one; restrict it (chmod o-w)", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
