"""Every message the command line gives a user is Chinese first, English after (issue 23 item 4).

Each error path that can be reached from the command line is driven in-process (bad case files,
bad policy files, bad workbooks, missing files, an output that exists without --force, bad
arguments for each command, the drafter's and the batch's errors): the first line of stderr, after
``xlmodel: `` and the file it names, starts with a Chinese character, and so does every problem
line below it, before or after its place (``  - 取值有误 years[2].cash_dividend (2023): expected …``,
``  - (file): 文件不存在 no such file``). The English stays, and the
message still names the file, field and year. ``xlmodel --help`` and every command's --help lead
with Chinese: the description, every option's help, the headings and the exit codes.

The check of "Chinese first" here is its own (a first word that is a CJK character), not the one
:mod:`xlmodel.errors` uses.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
from pathlib import Path

import pytest
import yaml

from xlmodel.cli import EXIT_HELP, build_parser, main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "gcl-energy-2022-2024.yaml"
GCL = "gcl-energy-2022-2024"

CJK = re.compile(r"[\u3400-\u9fff]")
#: the first word of a text: a CJK character, or a run of ASCII letters
WORD = re.compile(r"[\u3400-\u9fff]|[A-Za-z]+")
COMMANDS = ["policies", "evaluate", "plan", "check", "refresh", "build", "fill", "recalc", "selftest", "samples", "draft", "announce"]


def run_cli(*args) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``xlmodel ARGS`` run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main([str(a) for a in args])
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()

#: what may come before a message's Chinese: the command or option it is about, a path (``--batch 需要输出文件 …``,
#: ``policies show 需要规划 ID …``, ``D:\\out\\a.xlsx 是文件而非文件夹 …``); never an English word of the message
NAME = re.compile(r"^(?:--?[\w-]+:?|'[^']*':?|(?:%s|show|install|list):?|\S*[/\\]\S*:?)\s+" % "|".join(COMMANDS))


def starts_chinese(text: str) -> bool:
    while (m := NAME.match(text)) and not CJK.match(text):
        text = text[m.end():]
    m = WORD.search(text)
    return bool(m and CJK.fullmatch(m.group()))


def assert_chinese_first(err: str, *files) -> list[str]:
    """stderr of an error: ``xlmodel: [FILE: ]中文 … English``, each problem line ``  - 中文 …``; its lines."""
    assert "Traceback" not in err, err
    lines = err.rstrip("\n").splitlines()
    assert lines and lines[0].startswith("xlmodel: "), err
    first = lines[0][len("xlmodel: "):]
    for f in files:  # the file it names (a path has letters of its own)
        if first.startswith(f"{f}: "):
            first = first[len(f"{f}: "):]
    assert starts_chinese(first), lines[0]
    assert re.search(r"[A-Za-z]{3,}", lines[0]), lines[0]  # the English follows
    for ln in lines[1:]:  # a problem: "  - 中文 where: English", or "  - where: 中文 English"
        if ln.startswith("  - "):
            rest = ln[4:]
            assert starts_chinese(rest) or (": " in rest and starts_chinese(rest.split(": ", 1)[1])), ln
    return lines


def write_case(path: Path, **changes) -> Path:
    data = yaml.safe_load(SAMPLE.read_text(encoding="utf-8"))
    data.update(changes)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------
# case files
# ---------------------------------------------------------------------------

def test_a_case_with_bad_values_names_each_field_and_year_chinese_first(tmp_path):
    data = yaml.safe_load(SAMPLE.read_text(encoding="utf-8"))
    row = next(r for r in data["years"] if r["fiscal_year"] == 2023)
    row["cash_dividend"] = "abc"
    row["net_profits"] = 1  # a misspelt field
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    code, out, err = run_cli("evaluate", path)
    assert code == 2 and out == ""
    lines = assert_chinese_first(err, path)
    assert lines[0] == f"xlmodel: {path}: 案例文件有误 invalid case (2 problems)"
    problems = lines[1:]
    assert len(problems) == 2
    cash = next(ln for ln in problems if "cash_dividend (2023)" in ln)  # the field and the year
    assert cash.startswith("  - 取值有误 years[") and "expected" in cash and "'abc'" in cash
    unknown = next(ln for ln in problems if "net_profits" in ln)
    assert unknown.startswith("  - 无法识别 ") and "unknown field" in unknown


@pytest.mark.parametrize("make", [
    lambda tmp: tmp / "nope.yaml",  # missing
    lambda tmp: (tmp / "bad.yaml").write_text("policy: [1, 2\n", encoding="utf-8") and tmp / "bad.yaml",
    lambda tmp: (tmp / "utf16.yaml").write_bytes("policy: x\n".encode("utf-16")) and tmp / "utf16.yaml",
    lambda tmp: (tmp / "nul.yaml").write_bytes(b"policy: \x00\n") and tmp / "nul.yaml",  # was a traceback
    lambda tmp: (tmp / "esc.yaml").write_bytes(b"policy: x\nnotes: {a: \"\x1b[31m\"}\n") and tmp / "esc.yaml",
    lambda tmp: (tmp / "folder.yaml").mkdir() or tmp / "folder.yaml",
    lambda tmp: write_case(tmp / "other.yaml", policy="no-such-plan-2020-2022"),
    lambda tmp: write_case(tmp / "noid.yaml", policy="Not An Id"),
    lambda tmp: write_case(tmp / "year.yaml", evaluation_year="20x3"),
    lambda tmp: (tmp / "list.yaml").write_text("- 1\n- 2\n", encoding="utf-8") and tmp / "list.yaml",
    lambda tmp: (tmp / "deep.yaml").write_text("c: " + "[" * 200 + "]" * 200 + "\n", encoding="utf-8")
    and tmp / "deep.yaml",
])
def test_unreadable_case_files_chinese_first(tmp_path, make):
    path = make(tmp_path)
    code, out, err = run_cli("evaluate", path)
    assert code == 2 and out == ""
    assert_chinese_first(err, path)
    assert path.name in err or "unknown policy" in err  # the file is named (an unknown plan: by its id)


def test_a_missing_file_says_so_in_chinese_then_english(tmp_path):
    code, _, err = run_cli("evaluate", tmp_path / "nope.yaml")
    assert err == f"xlmodel: {tmp_path / 'nope.yaml'}: 案例文件有误 invalid case (1 problem)\n  - (file): 文件不存在 no such file\n"


# ---------------------------------------------------------------------------
# policy files and plan ids
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["policies", "show", "nope"],
    ["policies", "show", "Not An Id"],
    ["policies", "show"],
    ["policies", "check"],
    ["policies", "install"],
])
def test_policy_ids_and_missing_arguments_chinese_first(args):
    code, _, err = run_cli(*args)
    assert code == 2
    assert_chinese_first(err)


def test_an_unknown_policy_keeps_the_english_and_the_suggestion():
    code, _, err = run_cli("policies", "show", "gcl-energy-2022-2025")
    assert err.startswith("xlmodel: 未知的规划 unknown policy 'gcl-energy-2022-2025'; did you mean")


@pytest.mark.parametrize("text", [
    "id: acme\n",  # missing fields
    "not: [a, policy\n",  # not YAML
    "",  # empty
])
def test_bad_policy_files_chinese_first(tmp_path, text):
    path = tmp_path / "acme-2025-2027.yaml"
    path.write_text(text, encoding="utf-8")
    for command in ("check", "install", "show"):
        code, out, err = run_cli("policies", command, path)
        assert code == 2, (command, err)
        assert_chinese_first(err, path)


def test_a_policy_file_with_many_problems_leads_every_line_with_chinese(tmp_path):
    data = yaml.safe_load((ROOT / "templates" / f"{GCL}.yaml").read_text(encoding="utf-8"))
    data["id"] = "acme-2022-2024"
    data["rules"][0]["kind"] = "no_such_kind"
    data["bogus"] = 1
    data.pop("title_zh", None)
    path = tmp_path / "acme-2022-2024.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    code, _, err = run_cli("policies", "check", path)
    assert code == 2
    lines = assert_chinese_first(err, path)
    assert lines[0].startswith(f"xlmodel: {path}: 规划文件有误 invalid policy file (")
    assert len([ln for ln in lines if ln.startswith("  - ")]) >= 2


def test_a_plans_folder_that_is_not_there(tmp_path):
    code, _, err = run_cli("--plans", tmp_path / "nope", "policies")
    assert code == 2
    assert_chinese_first(err)
    assert f"--plans {tmp_path / 'nope'}: no such folder" in err


# ---------------------------------------------------------------------------
# outputs, workbooks
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    lambda tmp: ["build", "--policy", GCL, "-o", tmp / "exists.xlsx"],
    lambda tmp: ["evaluate", "--batch", ROOT / "samples" / "company_years.csv", "-o", tmp / "exists.xlsx"],
    lambda tmp: ["draft", ROOT / "templates" / "texts" / f"{GCL}.txt", "-o", tmp / "exists.yaml"],
])
def test_an_existing_output_without_force(tmp_path, args):
    (tmp_path / "exists.xlsx").write_bytes(b"mine")
    (tmp_path / "exists.yaml").write_bytes(b"mine")
    code, _, err = run_cli(*args(tmp_path))
    assert code == 2
    assert_chinese_first(err, tmp_path / "exists.xlsx", tmp_path / "exists.yaml")
    assert "exists; pass --force" in err
    assert (tmp_path / "exists.xlsx").read_bytes() == b"mine" and (tmp_path / "exists.yaml").read_bytes() == b"mine"


@pytest.mark.parametrize("args", [
    lambda tmp: ["build", "--policy", GCL, "-o", tmp / "out.txt"],  # not .xlsx
    lambda tmp: ["build", "--policy", GCL, "-o", tmp],  # a folder
    lambda tmp: ["build", "--policy", GCL, "-o", ""],
    lambda tmp: ["build", "--policy", GCL, "-o", tmp / "file.txt" / "out.xlsx"],  # a file on the way
    lambda tmp: ["build", "--policy", GCL, "--year", "1800", "-o", tmp / "o.xlsx"],
    lambda tmp: ["build", "-o", tmp / "o.xlsx"],  # neither case nor policy
    lambda tmp: ["build", "--policy", "nope-2020-2022", "-o", tmp / "o.xlsx"],
    lambda tmp: ["selftest", "--cases", "0"],
    lambda tmp: ["selftest", "--keep", tmp / "file.txt"],
    lambda tmp: ["samples", "--dir", tmp / "empty", "--out", tmp / "out"],
])
def test_bad_outputs_and_options_chinese_first(tmp_path, args):
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    a = args(tmp_path)
    code, _, err = run_cli(*a)
    assert code == 2, err
    assert_chinese_first(err, *[x for x in a if isinstance(x, Path)])


@pytest.mark.parametrize("content", [b"not a zip", b"PK\x03\x04broken", b""])
@pytest.mark.parametrize("command", ["check", "refresh", "fill", "recalc"])
def test_a_bad_workbook_chinese_first(tmp_path, content, command):
    book = tmp_path / "book.xlsx"
    book.write_bytes(content)
    extra = {"check": [], "refresh": ["-o", tmp_path / "new.xlsx"], "fill": [SAMPLE, "-o", tmp_path / "new.xlsx"],
             "recalc": ["-o", tmp_path / "new.xlsx"]}[command]
    code, _, err = run_cli(command, book, *extra)
    assert code == 2, err
    assert_chinese_first(err, book)
    assert not (tmp_path / "new.xlsx").exists()


def test_a_workbook_not_made_by_xlmodel(tmp_path):
    import openpyxl

    book = tmp_path / "plain.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = "净利润"
    wb.save(book)
    code, _, err = run_cli("check", book)
    assert code == 2
    assert_chinese_first(err, book)
    assert "not an xlmodel workbook" in err


def test_check_on_several_workbooks_says_each_error_chinese_first(tmp_path):
    a, b = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    a.write_bytes(b"x")
    b.write_bytes(b"y")
    code, _, err = run_cli("check", a, b)
    assert code == 2
    errors = [ln for ln in err.splitlines() if ln.startswith("xlmodel: ")]
    assert len(errors) == 2
    for ln, f in zip(errors, (a, b)):
        assert_chinese_first(ln, f)


def test_a_folder_without_workbooks(tmp_path):
    code, _, err = run_cli("check", tmp_path)
    assert code == 2
    assert err == f"xlmodel: {tmp_path}: 文件夹中没有工作簿（*.xlsx）no workbooks (*.xlsx) in this folder\n"


# ---------------------------------------------------------------------------
# the batch
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("make, extra", [
    (lambda tmp: tmp / "nope.csv", []),
    (lambda tmp: (tmp / "empty.csv").write_text("", encoding="utf-8") and tmp / "empty.csv", []),
    (lambda tmp: (tmp / "head.csv").write_text("stock_code,fiscal_year\n", encoding="utf-8") and tmp / "head.csv", []),
    (lambda tmp: (tmp / "bad.csv").write_text("stock_code,fiscal_year,net_profit_attributable\n600000,20x3,abc\n",
                                              encoding="utf-8") and tmp / "bad.csv", ["--policy", GCL]),
    (lambda tmp: (tmp / "cols.csv").write_text("a,b\n1,2,3\n", encoding="utf-8") and tmp / "cols.csv", []),
    (lambda tmp: (tmp / "wide.csv").write_bytes("股票代码\n".encode("utf-16")) and tmp / "wide.csv", []),
    (lambda tmp: (tmp / "fake.xlsx").write_bytes(b"no zip") and tmp / "fake.xlsx", []),
    (lambda tmp: ROOT / "samples" / "company_years.csv", ["--policy", "nope-2020-2022"]),
])
def test_batch_errors_chinese_first(tmp_path, make, extra):
    src = make(tmp_path)
    code, _, err = run_cli("evaluate", "--batch", src, "-o", tmp_path / "out.csv", *extra)
    assert code == 2, err
    assert_chinese_first(err, src)
    assert not (tmp_path / "out.csv").exists()


def test_batch_needs_an_output_and_never_overwrites_its_input(tmp_path):
    code, _, err = run_cli("evaluate", "--batch", ROOT / "samples" / "company_years.csv")
    assert code == 2
    assert_chinese_first(err)
    src = tmp_path / "in.csv"
    src.write_bytes((ROOT / "samples" / "company_years.csv").read_bytes())
    code, _, err = run_cli("evaluate", "--batch", src, "-o", src, "--force")
    assert code == 2
    assert_chinese_first(err, src)


# ---------------------------------------------------------------------------
# the drafter
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("make, extra", [
    (lambda tmp: tmp / "nope.pdf", []),
    (lambda tmp: (tmp / "notes.txt").write_text("会议纪要\n今天天气很好。\n", encoding="utf-8") and tmp / "notes.txt", []),
    (lambda tmp: (tmp / "fake.pdf").write_bytes(b"%PDF-1.4 broken") and tmp / "fake.pdf", []),
    (lambda tmp: (tmp / "fake.docx").write_bytes(b"PK\x03\x04") and tmp / "fake.docx", []),
    (lambda tmp: ROOT / "templates" / "texts" / f"{GCL}.txt", ["--id", "Not An Id"]),
    (lambda tmp: ROOT / "templates" / "texts" / f"{GCL}.txt", ["--years", "soon"]),
    (lambda tmp: ROOT / "templates" / "texts" / f"{GCL}.txt", ["--stock-code", "60086X"]),
])
def test_draft_errors_chinese_first(tmp_path, make, extra):
    src = make(tmp_path)
    code, _, err = run_cli("draft", src, "-o", tmp_path / "out" / "plan.yaml", *extra)
    assert code == 2, err
    assert_chinese_first(err, src)
    assert not (tmp_path / "out" / "plan.yaml").exists()


# ---------------------------------------------------------------------------
# usage errors, --help
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    [], ["frobnicate"], ["--frob"], ["evaluate"], ["evaluate", "--frob"], ["evaluate", "--json", "--jsonl", "x"],
    ["policies", "frob"], ["check"], ["refresh", "x.xlsx"], ["build"], ["fill", "x.xlsx"], ["recalc", "x.xlsx"],
    ["recalc", "x.xlsx", "-o", "y.xlsx", "--engine", "calc"], ["selftest", "--cases", "many"],
    ["selftest", "--engine", "calc"], ["samples", "--frob"], ["draft"], ["draft", "plan.txt"],
    ["draft", "plan.txt", "-o", "p.yaml", "--board", "nasdaq"], ["build", "--policy"],
])
def test_usage_errors_lead_with_chinese_then_the_usage(args):
    code, out, err = run_cli(*args)
    assert code == 2 and out == ""
    lines = assert_chinese_first(err)
    if len(lines) > 1 and lines[0].startswith("xlmodel: 用法错误 error: "):
        assert lines[1].startswith("用法 usage: xlmodel")  # the usage after the error


def test_a_usage_error_keeps_argparse_s_english():
    code, _, err = run_cli("frobnicate")
    assert err.startswith("xlmodel: 用法错误 error: 无效的选择 argument command: invalid choice: 'frobnicate'")
    code, _, err = run_cli("evaluate", "--frob")
    assert err.startswith("xlmodel: 用法错误 error: 无法识别的参数 unrecognized arguments: --frob")


def _parsers():
    p = build_parser(None)  # every command registered for real
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return p, sub


def test_every_command_and_option_is_described_chinese_first():
    p, sub = _parsers()
    assert set(sub.choices) == set(COMMANDS)
    assert starts_chinese(p.description)
    for a in sub._choices_actions:
        assert starts_chinese(a.help), (a.dest, a.help)
    for name, cmd in [(None, p), *sub.choices.items()]:
        assert starts_chinese(cmd.description or ""), name
        for action in cmd._actions:
            if action.help and action.help != argparse.SUPPRESS and not isinstance(action, argparse._SubParsersAction):
                text = action.help.lstrip("（(")
                assert starts_chinese(text) and re.search(r"[A-Za-z]{3,}", text), (name, action.dest, action.help)


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_is_chinese_first(command):
    code, out, err = run_cli(*([command] if command else []), "--help")
    assert code == 0 and err == ""
    assert out.startswith("用法 usage: xlmodel")
    assert "参数 positional arguments:" in out or command in ("selftest", "samples")
    assert "选项 options:" in out and "显示本帮助并退出 show this help" in out
    assert "退出码 exit codes:" in out
    codes = out[out.index("退出码 exit codes:"):]
    for line in codes.splitlines()[1:]:
        m = re.match(r"  (\d+) +(.*)", line)
        if m:  # each exit code: Chinese, then its English (on the line or the next)
            assert starts_chinese(m.group(2)), line


@pytest.mark.parametrize("key", [k for k in EXIT_HELP])
def test_exit_code_help_has_chinese_for_every_code(key):
    text = EXIT_HELP[key]
    codes = re.findall(r"^  (\d+) +(.*)$", text, re.M)
    assert codes and all(starts_chinese(rest) for _, rest in codes), (key, codes)


def test_a_workbook_s_bad_inputs_name_sheet_cell_field_and_year_chinese_first(tmp_path):
    import openpyxl

    book = tmp_path / "book.xlsx"
    assert run_cli("build", SAMPLE, "-o", book)[0] == 0
    wb = openpyxl.load_workbook(book)
    (sheet, ref), = wb.defined_names["in_cash_dividend"].destinations
    first = wb[sheet][ref.replace("$", "").split(":")[0]]
    cell = wb[sheet].cell(row=first.row, column=first.column + 2)  # the third year of the timeline
    (ysheet, yref), = wb.defined_names["in_first_year"].destinations
    year = wb[ysheet][yref.replace("$", "")].value + 2
    cell.value = "1.2亿"
    wb.save(book)
    code, out, err = run_cli("check", book)
    assert code == 2 and out == ""
    lines = assert_chinese_first(err, book)
    assert lines[0] == f"xlmodel: {book}: 无法使用该工作簿 cannot use this workbook (1 problem)"
    assert lines[1] == (f"  - 取值有误 {sheet}!{cell.coordinate}: cash_dividend: expected an amount in 元 (a number), "
                        f"got '1.2亿': write amounts in 元 (1.2亿 = 120,000,000.00 元) ({year})")
