"""The README opens with the two commands, and CI runs the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block and text.index("```sh") < text.index("\n## "), "the README must open with the commands"
    return [ln for ln in block.group(1).splitlines() if ln.strip()]


def test_readme_opens_with_exactly_two_commands():
    cmds = _commands()
    assert len(cmds) == 2
    assert "xlmodel samples" in cmds[0] and "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _commands()[1] in ci.splitlines()
