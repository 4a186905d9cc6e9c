"""The text report fits a terminal (issue 14, item 1).

`xlmodel evaluate` / `check` print a compact table within the terminal's width (``COLUMNS``
first; 100 when unknown): per rule its status, title and clause, the short columns beneath, the
explanations of a rule that does not pass wrapped under it. ``--wide`` prints the full table, one
line per rule. Display width counts East Asian wide characters as 2. Colours only on a terminal
and without ``NO_COLOR``.
"""

from __future__ import annotations

import copy
import io
import re
import unicodedata
from pathlib import Path

import pytest
import yaml

import xlmodel
from conftest import cli
from xlmodel.case import load_case
from xlmodel.report import WHOLE_UNITS
from xlmodel.report.terminal import _wrap, color_enabled, render_table, terminal_width

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("*.yaml"))
GCL_SAMPLE = ROOT / "samples" / "gcl-energy-2022-2024.yaml"
WIDTHS = (80, 100, 120)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LONG_NAME = "中华人民共和国" * 8 + "新能源科技集团股份有限公司"


def width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in ANSI.sub("", line))




def _case_file(tmp_path: Path, name: str, change) -> Path:
    data = yaml.safe_load(GCL_SAMPLE.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture()
def long_name_case(tmp_path):
    return _case_file(tmp_path, "long-name", lambda d: d["company"].update(company_name=LONG_NAME))


@pytest.fixture()
def failing_case(tmp_path):
    """Cash one yuan, no audit opinion: fail, missing_input and long explanations."""
    def change(d):
        last = d["years"][-1]
        last["cash_dividend"] = 1.0
        last.pop("audit_opinion", None)
        d["company"]["company_name"] = LONG_NAME
        d["company"]["amounts_confirmed"] = True  # one yuan of cash is real here (else the units check fails)
    return _case_file(tmp_path, "failing", change)


@pytest.fixture()
def short_cash_case(tmp_path):
    """Cash one yuan: rules fail with shortfalls (the widest short columns)."""
    return _case_file(tmp_path, "short-cash", lambda d: d["years"][-1].update(cash_dividend=1.0))


def _cases(*extra):
    return [*SAMPLES, *extra]


@pytest.mark.parametrize("columns", WIDTHS)
def test_every_line_fits_the_terminal(capsys, monkeypatch, long_name_case, failing_case, short_cash_case, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    assert xlmodel.evaluate(load_case(short_cash_case)).overall_status == "fail"
    for case in _cases(long_name_case, failing_case, short_cash_case):
        code, out, err = cli(capsys, "evaluate", case)
        assert code in (0, 1), err
        lines = out.splitlines()
        too_wide = [ln for ln in lines if width(ln) > columns]
        assert not too_wide, f"{case.name} at {columns}: {too_wide[:3]}"
        assert "\x1b" not in out  # stdout is not a terminal here: no colours


def test_the_width_is_the_terminals_or_100(monkeypatch):
    monkeypatch.setenv("COLUMNS", "87")
    assert terminal_width() == 87
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() > 0  # the terminal's, or 100 when there is none (pytest captures the output)
    rep = xlmodel.evaluate(load_case(GCL_SAMPLE))
    assert all(width(ln) <= 100 for ln in render_table(rep, width=100).splitlines())
    assert all(width(ln) <= 40 for ln in render_table(rep, width=10).splitlines())  # never narrower than 40


def test_wide_restores_the_long_lines(capsys, monkeypatch, failing_case):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = cli(capsys, "evaluate", failing_case, "--wide")
    lines = out.splitlines()
    assert max(width(ln) for ln in lines) > 150
    rep = xlmodel.evaluate(load_case(failing_case))
    assert out.rstrip("\n") == render_table(rep, wide=True, color=False)
    # the full table: one line per rule, after the header and its rule line
    head = next(i for i, ln in enumerate(lines) if ln.startswith("规则 Rule"))
    rule_lines = [ln for ln in lines[head + 2:] if not ln.startswith("    ↳ ")]
    assert len(rule_lines) == len(rep.rules)
    assert sum(ln.startswith("    ↳ ") for ln in lines) == sum(r.status not in ("pass", "met") for r in rep.rules)
    for ln in lines:  # never wrapped: an explanation is on the line of its arrow, zh | en
        if ln.startswith("    ↳ "):
            assert " | " in ln


def test_the_compact_table_keeps_every_rule_and_figure(failing_case):
    rep = xlmodel.evaluate(load_case(failing_case))
    assert rep.overall_status == "missing_input"
    text = render_table(rep, width=80, color=False)
    lines = text.splitlines()
    status_lines = [ln for ln in lines if re.match(r"^(通过 pass|不通过 fail|警告 warn|不适用 not_applicable|"
                                                    r"缺少输入 missing_input|满足 met|不满足 not_met)  ", ln)]
    assert len(status_lines) == len(rep.rules)  # one title line per rule, in order, starting with its status
    assert [ln.split("  ")[0].split(" ")[1] for ln in status_lines] == [r.status for r in rep.rules]
    assert sum(ln.lstrip().startswith("↳ ") for ln in lines) == sum(r.status not in ("pass", "met") for r in rep.rules)
    flat = "".join(ln.strip() for ln in lines)
    for r in rep.rules:
        assert r.clause in text  # a clause is never split where it fits a line
        for v in (r.actual, r.required, r.margin, r.shortfall):
            if isinstance(v, float) and v:
                shown = (f"{v:.2%}" if r.unit == "%" else f"{int(v):,}" if r.unit in WHOLE_UNITS and v == int(v)
                         else f"{v:,.2f}")  # counts (项, 次, 年) are whole numbers
                assert shown in text, (r.id, v)  # never split
        assert r.title_zh in flat
        if r.status not in ("pass", "met"):  # wrapped beneath the rule, in full
            assert r.explanation_zh.replace(" ", "") in flat.replace(" ", "")
            assert r.explanation_en.replace(" ", "") in flat.replace(" ", "")
    for label in (f"总体结论 Overall: 缺少输入 {rep.overall_status}", "现金分红条件 Cash conditions met:", "最低现金分红 Minimum cash dividend:",
                  "利润分配上限 Maximum distribution:", "交易所低分红风险警示 ST risk warning:",
                  "避免所需现金 Cash needed to avoid it:", "规划 Plan: gcl-energy-2022-2024", "会计年度 Fiscal year: 2023"):
        assert label in text, label
    assert rep.st_verdict()[0] in text


def test_a_long_company_name_stays_on_one_line(long_name_case):
    rep = xlmodel.evaluate(load_case(long_name_case))
    short = copy.deepcopy(rep)
    short.company["company_name"] = "协鑫"
    for w in WIDTHS:
        text = render_table(rep, width=w, color=False)
        lines = text.splitlines()
        assert len(lines) == len(render_table(short, width=w, color=False).splitlines())
        assert lines[0].startswith("公司 Company: 中华人民共和国") and lines[0].endswith("… 002015")
        assert width(lines[0]) <= w
        assert sum("中华人民共和国" in ln for ln in lines) == 1


def test_colours_only_on_a_terminal(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert color_enabled(Tty()) is True
    assert color_enabled(io.StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert color_enabled(Tty()) is False
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert color_enabled(Tty()) is False


def test_status_words_are_coloured_when_asked(failing_case):
    rep = xlmodel.evaluate(load_case(failing_case))
    for wide in (False, True):
        text = render_table(rep, width=80, wide=wide, color=True)
        assert "\x1b[32m通过 pass\x1b[0m" in text and "\x1b[35m缺少输入 missing_input\x1b[0m" in text
        assert "\x1b[36m满足 met\x1b[0m" in text
        assert "不适用 not_applicable" in text and "\x1b[" not in "".join(
            ln for ln in text.splitlines() if ln.startswith("不适用 not_applicable"))  # not coloured
        plain = render_table(rep, width=80, wide=wide, color=False)
        assert ANSI.sub("", text) == plain  # colour changes nothing else, widths included
    text = render_table(xlmodel.evaluate(load_case(GCL_SAMPLE)), width=80, color=True)
    assert "总体结论 Overall: \x1b[32m通过 pass\x1b[0m" in text


def test_the_cli_prints_no_escape_codes_when_piped(capsys, monkeypatch, failing_case):
    monkeypatch.delenv("NO_COLOR", raising=False)
    code, out, _ = cli(capsys, "evaluate", failing_case)
    assert code == 1 and "\x1b" not in out


@pytest.mark.parametrize("w", [40, 57, 80, 100])
def test_wrapping_counts_cjk_twice_and_breaks_between_words(w):
    text = ("实际 1,095,152,827.27 不低于下限 237,053,726.78，差额 0.01；" * 4
            + " actual 1,095,152,827.27 >= minimum 237,053,726.78 " + "x" * 130)
    lines = _wrap(text, w, first="    ↳ ", cont="      ")
    assert all(width(ln) <= w for ln in lines)
    assert all(ln.startswith("      ") for ln in lines[1:])
    body = [ln[6:] for ln in lines]
    assert not any(b[:1] in "，；。）" for b in body)  # no line begins with closing punctuation
    for number in ("1,095,152,827.27", "237,053,726.78"):
        assert sum(ln.count(number) for ln in lines) == text.count(number) == 5  # a number is never split
    assert "".join(b.replace(" ", "") for b in body) == text.replace(" ", "")


def test_a_report_pickles_with_its_explanations():
    """A report crosses process boundaries (a process pool returning reports): its explanations, worded
    when first read, are worded before it is pickled."""
    import pickle
    from pathlib import Path

    from xlmodel.case import load_case
    from xlmodel.evaluator import evaluate

    rep = evaluate(load_case(Path(__file__).resolve().parents[1] / "samples" / "gcl-energy-2022-2024.yaml"))
    back = pickle.loads(pickle.dumps(rep))
    assert back.to_dict() == rep.to_dict()
    assert all(b.explanation_zh == r.explanation_zh and b.explanation_zh for b, r in zip(back.rules, rep.rules))
