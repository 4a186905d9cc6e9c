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

# Start-up: ``xlmodel --help`` and ``xlmodel policies`` import only what they use. Every command is a
# module of xlmodel.commands, imported when the command runs (:func:`_command`); those modules import
# numpy, pandas and pydantic in the functions that use them (tests/test_scalar_path.py: `--help` loads none).

from .errors import EXIT_INPUT, EXIT_OK

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


def _command(name: str):
    """The function of ``xlmodel NAME``: :func:`xlmodel.commands.NAME.cmd_NAME`, imported when the command runs
    (``xlmodel --help`` loads none of them)."""
    def run(args) -> int:
        from importlib import import_module

        return getattr(import_module(f".commands.{name}", __package__), f"cmd_{name}")(args)

    run.__qualname__ = run.__name__ = f"cmd_{name}"
    return run


def _add_workbook_commands(sub) -> None:
    sc = sub.add_parser("check", help="读回填好的工作簿，评估并检查其完整性 read a filled-in workbook back, evaluate it and check its integrity")
    sc.add_argument("workbook", metavar="BOOK.xlsx", nargs="+",
                    help="要检查的工作簿，或一个文件夹（其中每个 *.xlsx，最后列汇总表） workbooks to check, or a folder: every *.xlsx in it (then a summary table)")
    fmt = sc.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true",
                     help="输出 JSON：总是一个列表，每个工作簿一个对象 print JSON: always a list, one object per workbook, with its integrity and exit code")
    fmt.add_argument("--markdown", action="store_true", help="输出 Markdown（用于董事会材料）print Markdown (for a board memo)")
    sc.add_argument("--wide", action="store_true",
                    help="完整表格，每条规则一行，不按终端宽度收窄 the full table, one line per rule, not fitted to the terminal's width (COLUMNS)")
    sc.add_argument("-v", "--verbose", action="store_true",
                    help="列出全部细节（如工作簿显示的结果与评估不一致的每一项）list every detail (each result the workbook shows "
                         "differently from the evaluator)")
    sc.set_defaults(func=_command("check"))
    sr = sub.add_parser("refresh", help="用当前的规划和生成器重建工作簿，保留其输入 rebuild a workbook with the current plan and generator, keeping its inputs")
    sr.add_argument("workbook", metavar="OLD.xlsx")
    sr.add_argument("-o", "--output", required=True, help="新的 .xlsx the new .xlsx")
    sr.add_argument("--force", action="store_true", help="覆盖已有文件 overwrite an existing file")
    sr.set_defaults(func=_command("refresh"))

    sb = sub.add_parser("build", help="为案例或空白规划模型写出带公式的工作簿 write a formula-backed workbook for a case or an empty policy model")
    sb.add_argument("case", nargs="?", metavar="CASE", help="用以填写工作簿的案例文件（YAML/JSON）case file (YAML/JSON) to fill the workbook with")
    sb.add_argument("--policy", help="空白模型的规划 ID policy id for an empty model")
    sb.add_argument("--year", type=int, help="空白模型的评估年度（默认：规划的最后一年）evaluation year of an empty model (default: the plan's last year)")
    sb.add_argument("-o", "--output", required=True, help="要写出的 .xlsx the .xlsx to write")
    sb.add_argument("--force", action="store_true", help="覆盖已有文件 overwrite an existing file")
    sb.add_argument("--udf", action="store_true",
                    help="另加一张调用 XLM_* 工作表函数（xlwings）的 UDF 工作表 add a UDF sheet calling the XLM_* worksheet functions (xlwings) beside the native results, "
                         "and the xlwings.conf sheet naming the module")
    sb.set_defaults(func=_command("build"))
    sf = sub.add_parser("fill", help="把案例的输入写入为其规划和年度建好的工作簿 write a case's inputs into a workbook built for its plan and year")
    sf.add_argument("workbook", metavar="BOOK.xlsx", help="由 xlmodel 为该案例的规划和年度生成的工作簿 a workbook xlmodel built for the case's plan and year")
    sf.add_argument("case", metavar="CASE", help="案例文件（YAML/JSON）：数据、确认事项和备注 case file (YAML/JSON): its figures, attestations and notes")
    sf.add_argument("-o", "--output", required=True, help="填好的 .xlsx（给 --force 可为 BOOK 本身）the filled .xlsx (BOOK itself with --force)")
    sf.add_argument("--force", action="store_true", help="覆盖已有文件 overwrite an existing file")
    sf.set_defaults(func=_command("fill"))
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
    sc2.set_defaults(func=_command("recalc"))
    st = sub.add_parser("selftest", help="在你的电子表格引擎中验证模型：随机与边界案例对照评估器 prove the models in your spreadsheet engine: random and boundary cases "
                                         "against the evaluator")
    st.add_argument("--engine", choices=engines,
                    help="电子表格引擎（默认：本机第一个可用的）the engine (default: the first present: Excel on Windows/macOS, LibreOffice, Gnumeric)")
    st.add_argument("--cases", type=int, metavar="N",
                    help="每个规划的案例数 cases per plan (default 6, a quick run; a third on boundaries)")
    st.add_argument("--full", action="store_true",
                    help="完整自检：每个规划 20 个案例 the whole self-test: 20 cases a plan (a few minutes)")
    st.add_argument("--policy", action="append", metavar="ID", help="只测试此规划 test this plan only (repeatable; default: every plan)")
    st.add_argument("--seed", type=int, default=20261201, help="案例的随机种子 the cases' seed (default: the parity tests')")
    st.add_argument("--timeout", default=60.0, metavar="SECONDS",  # checked by check_timeout: no NaN, no infinity
                    help="引擎处理每个工作簿的时限（秒） time the engine has for each workbook, after a minute to start (default 60)")
    st.add_argument("--keep", metavar="DIR", help="把工作簿（我们的和引擎的）保存在这个新文件夹 keep the workbooks (ours and the engine's) in this new folder")
    st.set_defaults(func=_command("selftest"))
    _add_samples_command(sub)


def _add_samples_command(sub) -> None:
    ss = sub.add_parser("samples", help="评估内置样例案例并生成其工作簿 evaluate the bundled sample cases and build their workbooks")
    ss.add_argument("--dir", default=None,
                    help="样例案例的文件夹 folder of sample cases (default: the samples that come with xlmodel, from any directory)")
    ss.add_argument("--out", default="out", help="工作簿的输出文件夹 folder for the workbooks (default: out, in the current directory)")
    ss.add_argument("--force", action="store_true", help="覆盖 --out 中已有的工作簿 overwrite workbooks that exist in --out")
    ss.add_argument("-v", "--verbose", action="store_true",
                    help="打印每个样例的完整报告 print each sample's full report (default: one line per sample)")
    ss.set_defaults(func=_command("samples"))


#: `xlmodel draft --help`: what it reads and writes, and its exit codes
_DRAFT_HELP = ("读取 PDF（其文字层）、Word .docx 或文本文件（UTF-8 或 GB18030），按内容区分；去掉页眉、页脚和页码，\n"
               "把句中断开的行接回。写出规划文件，并在其旁写出 texts/<id>.txt：读取到的规划原文（UTF-8）。\n"
               "Reads a PDF (its text layer), a Word .docx or a text file (UTF-8 or GB18030), told apart by content;\n"
               "drops the pages' headers, footers and page numbers and joins lines broken inside a sentence.\n"
               "Writes the policy file and, beside it, texts/<id>.txt: the plan text as read, UTF-8 (a policy's `text:`\n"
               "must lie in its own folder), unless it is a UTF-8 text file already in that folder, unchanged.\n\n"
               "退出码 exit codes:\n"
               "  0    已写出（使用前请复核所列事项）written (review the items it lists before use)\n"
               "  2    文件无法读取或不是规划原文（扫描件、无编号条款、未识别出规则），选项有误，\n"
               "       或输出文件已存在而未给 --force\n"
               "       a document that cannot be read or is not a plan text (a scan, no numbered clauses, no rule\n"
               "       recognised), bad options, or the output exists and --force was not given\n"
               "  130  已中断 interrupted (Ctrl-C)，143 已终止 stopped (SIGTERM)：不留写了一半的文件\n"
               "       no output is left half-written")


def _add_draft_command(sub) -> None:
    p = sub.add_parser("draft", help="由规划的公告原文起草规划文件（使用前须审阅） draft a policy file from a plan's published text (review before use)",
                       epilog=_DRAFT_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plan", metavar="PLAN", help="公告的规划原文：PDF、Word .docx 或文本（UTF-8 或 GB18030） the plan as published: PDF, Word .docx, or text (UTF-8 or GB18030)")
    p.add_argument("-o", "--output", required=True, metavar="plan.yaml", help="要写出的规划文件（.yaml）the policy file to write (.yaml)")
    p.add_argument("--force", action="store_true", help="覆盖输出文件 overwrite the output file")
    p.add_argument("--id", help="规划 ID（默认：输出文件名）policy id (default: the output file's name, e.g. acme-2025-2027)")
    p.add_argument("--company", metavar="NAME", help="公司名称（默认：原文标题中的名称） company name (default: as the text's title names it); one line, "
                                                      "no control characters")
    p.add_argument("--stock-code", metavar="CODE", help="股票代码，如 600869 或 600869.SH six-digit stock code, read as "
                                                        "everywhere (600869.SH, SH600869): with it `company:` is written "
                                                        "(the name from --company, else the text's title)")
    p.add_argument("--board", choices=["sse_main", "szse_main", "chinext", "star", "bse"],
                   help="上市板块（默认：由股票代码推断）listing board (default: from the stock code)")
    p.add_argument("--years", metavar="Y1-Y2", help="规划年度 plan years, e.g. 2025-2027 (default: as the text states them)")
    p.set_defaults(func=_command("draft"))


#: `xlmodel announce --help`: its exit codes
_ANNOUNCE_HELP = "\n".join([
    "退出码 exit codes:",
    "  0    已输出公告；风险警示已判定为不触及，规划（如有）已复核且本次方案符合其最低要求",
    "       printed; the warning is decided not to apply, the plan (if any) reviewed and met",
    "  1    触及风险警示、无法判断（缺少输入或金额单位存疑）、方案未达规划最低要求、\n"
    "       规划为未复核草稿，或方案合计与现金分红总额不一致\n"
    "       the warning is triggered or undetermined, a plan minimum is not met, the plan is an\n"
    "       unreviewed draft, or the proposal's total differs from cash_dividend",
    "  2    输入或用法有误（消息指明文件、字段和年度，或 工作表!单元格），或输出文件已存在而未给 --force\n"
    "       bad input or usage (file, field and year, or sheet!cell), or the output exists without --force",
    _INTERRUPTED,
])


def _add_announce_command(sub) -> None:
    p = sub.add_parser("announce", help="生成利润分配方案公告 write the profit distribution announcement",
                       epilog=_ANNOUNCE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("case", metavar="CASE", help="案例文件（YAML/JSON，可无 policy：仅按监管基线）或已填写的工作簿（.xlsx） "
                                                "a case file (YAML/JSON; without policy: the baseline alone) or a filled workbook")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="输出 Markdown（默认） print Markdown (the default)")
    fmt.add_argument("--json", action="store_true", help="输出公告中的数字（JSON） print the figures as JSON")
    p.add_argument("-o", "--output", metavar="FILE.docx", help="写出 Word 文档 write a Word document")
    p.add_argument("--force", action="store_true", help="覆盖输出文件 overwrite the output file")
    p.set_defaults(func=_command("announce"))


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser; given the arguments to parse, it registers ``draft`` fully only when they name it."""
    p = _Parser(prog="xlmodel", usage="xlmodel [-h] [--version] [--plans DIR] COMMAND ...", description="股东分红回报规划的 Excel 模型\nShareholder dividend return plans (股东分红回报规划) "
                                                       "as Excel models.",
                epilog=EXIT_HELP[None] + "\n\n用户指南 User guide: docs/user-guide.md；规则 rules: docs/domain.md.",
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"xlmodel {__version__}", help="显示版本号并退出 show the version")
    p.add_argument("--plans", action="append", metavar="DIR", help=_PLANS_HELP)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, prog="xlmodel")

    sp = sub.add_parser("policies", help="列出规划；show 显示规划的规则，check 校验规划文件，install 安装到你的规划文件夹 "
                                         "list the policies; `policies show ID` prints a policy's rules; "
                                         "`policies check FILE` validates a policy file, `policies install FILE` "
                                         "puts it in your plan folder")
    sp.add_argument("action", nargs="?", choices=["list", "show", "check", "install"], default="list")
    sp.add_argument("id", nargs="?", metavar="ID|FILE", help="规划 ID（show）或规划文件（show、check、install） "
                                                          "a policy id (show), or a policy file (show, check, install)")
    sp.add_argument("--force", action="store_true", help="安装时替换已安装的同 ID 规划 install: replace an installed plan of the same id")
    sp.set_defaults(func=_command("policies"))

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
    se.set_defaults(func=_command("evaluate"))

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
    sl.add_argument("-o", "--out", metavar="FILE.docx", help="另写出董事会材料用的 Word 文档 also write a Word document for "
                                                             "the board papers")
    sl.add_argument("--force", action="store_true", help="覆盖已存在的 Word 文档 overwrite an existing Word document")
    sl.set_defaults(func=_command("plan"))

    _add_workbook_commands(sub)
    _add_draft_command(sub)
    _add_announce_command(sub)
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
    from .commands import error_text
    from .errors import XlmodelError
    from .plans.folders import cli_plan_dirs

    try:
        with cli_plan_dirs((getattr(args, "plans", None) or []) + getattr(args, "plans_after", [])):
            _warn_open_plan_folders(args)
            return args.func(args)
    except XlmodelError as e:
        print(error_text(e), file=sys.stderr)  # one message, its lines ours: text quoted from a file cannot add lines or escape sequences
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
