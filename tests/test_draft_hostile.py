"""`xlmodel draft` on hostile plan texts (issue 21, items 1 and 2): linear in the text, no number too long.

* Every recogniser is linear in the text: each family of adversarial wording (a long run of digits,
  repeated clause markers, one long line, nested brackets, many comparison and condition words, stage
  rows, exemption lists, per-share floors, traditional characters, ligatures that NFKC grows
  eighteenfold) is drafted from a 1 MiB text by the real command in a subprocess, under a CPU-time
  and an address-space limit (the budget of the hostile corpus, tests/test_hostile.py): it must end
  with exit 0 (a draft) or 2 (a clear error naming the file), never a traceback, a kill or a timeout.
  Before issue 21 a run of 10,000 digits alone took 18 s (the number pattern restarted at every
  digit): quadratic texts of 1 MiB do not finish within the budget.
* A number longer than any plan term has (5,000 digits: beyond Python's int-conversion limit) is a
  review item that says so, in every recogniser that reads numbers; never a ``ValueError``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from test_draft import plan, reviewed, rules_of

MIB = 2**20
CPU_LIMIT = 30  # CPU seconds for one 1 MiB text (a linear draft of one takes a few)
AS_LIMIT = 1536 * 2**20
WALL = 150  # seconds (the machine is shared: wall time is not the budget, CPU time is)

_WRAPPER = """
import os, resource, sys
lim, cpu = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
os.execv(sys.executable, [sys.executable, "-m", "xlmodel.cli"] + sys.argv[3:])
"""


def _fill(unit: str, head: str = "一、", tail: str = "\n") -> str:
    """``head`` + ``unit`` repeated to 1 MiB of UTF-8 (the largest plan text `draft` reads) + ``tail``."""
    room = MIB - len((head + tail).encode("utf-8")) - 64
    n = room // len(unit.encode("utf-8"))
    return head + unit * n + tail


FAMILIES = {
    "digit_run": lambda: _fill("1", "一、公司每年以现金方式分配的利润不少于当年实现的可分配利润的", "%。\n"),
    "digit_runs_with_units": lambda: _fill("现金分红不低于" + "9" * 3000 + "万元，"),
    "repeated_markers": lambda: _fill("1、公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%。\n（1）", "一、", ""),
    "unique_markers": lambda: "".join(f"{''.join('一二三四五六七八九十'[int(k)] for k in str(i))}、现金分红的具体条件\n"
                                      "1、公司当年盈利；\n（1）资产负债率高于70%的，可以不进行现金分红。\n" for i in range(MIB // 140)),
    "one_long_line": lambda: _fill("公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%，且每股派息不低于0.1元，"),
    "nested_brackets": lambda: _fill("((((（（（（现金分红不低于30%", "一、", "))))）））））\n"),
    "comparison_words": lambda: _fill("以上不低于超过以下不少于达到或超过"),
    "condition_words": lambda: _fill("当年盈利、累计未分配利润为正、资产负债率高于70%的、", "一、公司实施现金分红时应同时满足下列条件："),
    "sentence_conditions": lambda: _fill("公司当年盈利且累计未分配利润为正的，应当进行现金分红；"),
    "exemptions": lambda: _fill("经营活动产生的现金流量净额低于注册资本的10%；", "一、存在以下情形之一时，公司可以不实施现金分红："),
    "stage_rows": lambda: _fill("公司发展阶段属成熟期且无重大资金支出安排的，进行利润分配时，现金分红在本次利润分配中所占比例最低应达到80%；"),
    "ratio_lists": lambda: _fill("65%、", "一、2025年度、2026年度每年以现金方式分配的利润分别不低于当年实现的可分配利润的"),
    "amount_alternatives": lambda: _fill("或不低于3,000万元", "一、公司每年现金分红不低于当年可分配利润的10%"),
    "traditional": lambda: _fill("公司每年以現金方式分配的利潤不少於當年實現的可分配利潤的百分之十。"),
    "ligatures": lambda: _fill("\ufdfa"),
}


def _run(folder: Path, name: str, text: str) -> tuple[str, subprocess.CompletedProcess | None]:
    src = folder / f"{name}.txt"
    src.write_text(text, encoding="utf-8")
    assert len(text.encode("utf-8")) <= MIB
    cmd = [sys.executable, "-c", _WRAPPER, str(AS_LIMIT), str(CPU_LIMIT), "draft", str(src), "-o", str(folder / f"{name}.yaml")]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    try:
        return name, subprocess.run(cmd, capture_output=True, text=True, timeout=WALL, env=env, cwd=folder)
    except subprocess.TimeoutExpired:
        return name, None


def test_a_mebibyte_of_each_hostile_wording_drafts_within_the_budget(tmp_path):
    with ThreadPoolExecutor(2) as pool:  # two cores
        runs = list(pool.map(lambda kv: _run(tmp_path, kv[0], kv[1]()), FAMILIES.items()))
    problems = []
    for name, r in runs:
        if r is None:
            problems.append(f"{name}: did not finish within {WALL}s")
            continue
        err = r.stderr
        if r.returncode < 0:
            problems.append(f"{name}: killed by signal {-r.returncode} (the CPU or memory limit)")
        elif r.returncode not in (0, 2) or "Traceback" in err or "MemoryError" in err:
            problems.append(f"{name}: exit {r.returncode}: {err[-600:]}")
        elif r.returncode == 2 and f"{name}.txt" not in err:
            problems.append(f"{name}: the error does not name the file: {err[-300:]}")
    assert problems == []


@pytest.mark.parametrize("wording", [
    "公司每年以现金方式分配的利润不少于当年实现的可分配利润的{n}%。",  # a share
    "资产负债率高于{n}%的，可以不进行利润分配。",  # a gate
    "公司实施现金分红时应同时满足下列条件：资产负债率低于{n}%。",  # a condition
    "公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%，且不少于{n}万元。",  # an amount
    "公司董事会须在股东会召开后{n}个月内完成股利的派发事项。",  # months
    "股东会审议利润分配方案时，须经出席股东会的股东所持表决权的{n}/3以上通过。",  # a vote
    "公司发展阶段属成熟期且无重大资金支出安排的，现金分红在本次利润分配中所占比例最低应达到{n}%。",  # the table
    "公司每股派发现金红利不低于{n}元（含税）。",  # per share
])
def test_a_number_longer_than_any_plan_has_is_a_review_item(wording):
    text = plan(wording.format(n="7" * 5000))
    got = reviewed(text)  # no ValueError ("Exceeds the limit (4300 digits) for integer string conversion")
    assert "5000 位数字" in "".join(got["一"]), got
    assert all("7777" not in str(r) for r in rules_of(text))  # nothing drafted from it


def test_an_amount_beyond_what_the_model_holds_is_not_drafted():
    # amounts are below 10**15 元 (DOMAIN.md §4): 9,999,999,999,999,999万元 is no floor a rule can take
    text = plan("公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%，且不少于9999999999999999万元。")
    rule = [r for r in rules_of(text) if r["kind"] == "min_cash"]
    assert [c["type"] for r in rule for c in r["components"]] == ["pct"]
    assert "9999999999999999万元" in "".join(reviewed(text)["一"])
