"""The README and the reference run as written (issues 14, 25).

* The README opens with the two commands, and CI runs the README's test command; its first result
  is the first command's output, line for line.
* Every fenced code block of the README and of ``docs/reference.md`` (where the README's command line,
  JSON and batch reference moved) is run here, in document order (the README's, then the
  reference's), in one temporary folder holding a copy of
  ``samples/`` and ``.venv`` pointing at the virtual environment running the tests:
  ``sh`` blocks line by line with ``sh`` (so ``.venv/bin/xlmodel …`` is the venv's xlmodel),
  ``python`` blocks with the venv's python, ``yaml`` case files through ``xlmodel evaluate``,
  ``yaml`` rule excerpts against the policy file they come from. The opening block is not run:
  its two commands set up the venv and run the tests, which CI itself does.
* A block that cannot run here is marked on the line before it with ``<!-- not run: REASON -->``
  (Windows only, needs Excel, a benchmark); any other block, or a language this test does not
  know, fails.
* Inline ``xlmodel …`` commands in the text name a command and options that exist.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
REFERENCE = ROOT / "docs" / "reference.md"
#: the documents whose code blocks this test runs, in the order it runs them
RUN_DOCS = (README, REFERENCE)
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w+-]*)\s*$")
#: commands that write files or only print: they exit 0; the others may report a failing rule (1)
ALWAYS_ZERO = {"policies", "build", "fill", "refresh", "samples"}


def _commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
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


# ---------------------------------------------------------------------------
# the blocks
# ---------------------------------------------------------------------------

@dataclass
class Block:
    lang: str
    text: str
    line: int  # 1-based line of the opening fence
    not_run: str | None  # the reason given in <!-- not run: … -->, if any
    doc: str = "README.md"

    def __str__(self) -> str:
        return f"{self.doc}:{self.line} ```{self.lang}"


def blocks(text: str | None = None, path: Path = README) -> list[Block]:
    lines = (path.read_text(encoding="utf-8") if text is None else text).splitlines()
    doc = path.relative_to(ROOT).as_posix()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        assert not m["indent"], f"{doc}:{i + 1}: indented code fence (the test reads fences at column 0)"
        start = i
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        assert i < len(lines), f"{doc}:{start + 1}: code block never closed"
        before = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = NOT_RUN.match(before)
        found.append(Block(m["lang"], "\n".join(body) + "\n", start + 1, marker["reason"] if marker else None, doc))
        i += 1
    return found


def test_the_block_parser_reads_fences_and_markers():
    text = "# t\n\n```sh\na\n```\n\n<!-- not run: needs Excel -->\n```\n=A1\n```\n\n```python\nprint(1)\n```\n"
    got = blocks(text)
    assert [(b.lang, b.text, b.line, b.not_run) for b in got] == [
        ("sh", "a\n", 3, None), ("", "=A1\n", 8, "needs Excel"), ("python", "print(1)\n", 12, None)]


def run_blocks() -> list[Block]:
    """The blocks this test runs or skips: the README's after its opening block, then the reference's."""
    return blocks()[1:] + blocks(path=REFERENCE)


def test_every_block_is_run_or_says_why_not():
    found = blocks()
    assert found[0].text.strip().splitlines() == _commands()  # the opening block: run by CI
    found = run_blocks()
    assert any(b.doc == "docs/reference.md" for b in found)
    for b in found:
        if b.not_run:
            assert len(b.not_run) >= 8, f"{b}: say why it is not run"
            continue
        assert b.lang in ("sh", "python", "yaml"), f"{b}: a block this test does not run; mark it <!-- not run: … -->"
    # the markers this README uses: Windows-only commands, an Excel formula, benchmarks
    reasons = " ".join(b.not_run for b in found if b.not_run)
    assert "Windows" in reasons and "Excel" in reasons


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A folder like a fresh checkout after the first command: samples/ and .venv/."""
    if sys.prefix == sys.base_prefix or not (Path(sys.prefix) / "bin" / "xlmodel").exists():
        pytest.skip("run the tests from the virtual environment the README sets up (.venv/bin/python -m pytest)")
    d = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "samples", d / "samples")
    (d / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return d


def _lines(script: str) -> list[str]:
    """The commands of an sh block: comment and blank lines dropped, continuations joined."""
    out, cur = [], ""
    for ln in script.splitlines():
        if not cur and (not ln.strip() or ln.lstrip().startswith("#")):
            continue
        if ln.rstrip().endswith("\\"):
            cur += ln.rstrip()[:-1] + " "
            continue
        out.append(cur + ln)
        cur = ""
    assert not cur, f"dangling continuation: {cur!r}"
    return out


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["PYTHONWARNINGS"] = "default"  # library warnings must come out as our own notes, not with a path
    return env


def _run(cmd: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, shell=True, cwd=cwd, env=_env(), capture_output=True, text=True,
                          encoding="utf-8", errors="replace", timeout=600, executable="/bin/sh")


def _expected_codes(cmd: str) -> tuple[int, ...]:
    words = shlex.split(cmd)
    if words and words[0].endswith("/xlmodel"):
        return (0,) if len(words) > 1 and words[1] in ALWAYS_ZERO else (0, 1)
    return (0,)


def _clean(p: subprocess.CompletedProcess) -> list[str]:
    problems = []
    for stream, text in (("stdout", p.stdout), ("stderr", p.stderr)):
        if "Traceback" in text:
            problems.append(f"a traceback on {stream}")
    if "site-packages" in p.stderr or re.search(r"(?<!注意 )\b[A-Z]\w*Warning: ", p.stderr):
        problems.append("a library warning on stderr")
    return problems


def _check_rule_excerpt(rules: list) -> list[str]:
    """Each rule of a README excerpt says what the policy file holding that rule id says."""
    policies = {path: yaml.safe_load(path.read_text(encoding="utf-8")) for path in sorted((ROOT / "templates").glob("*.yaml"))}
    problems = []
    for rule in rules:
        homes = [(path, r) for path, doc in policies.items() for r in doc.get("rules", []) if r.get("id") == rule.get("id")]
        if not homes:
            problems.append(f"rule {rule.get('id')!r} is in no policy file")
            continue
        for path, real in homes:
            diff = {k: (v, real.get(k)) for k, v in rule.items() if real.get(k) != v}
            if not diff:
                break
        else:
            problems.append(f"rule {rule['id']!r} differs from {homes[0][0].name}: {diff}")
    return problems


def _run_block(b: Block, n: int, cwd: Path) -> list[str]:
    problems: list[str] = []
    if b.lang == "sh":
        for cmd in _lines(b.text):
            p = _run(cmd, cwd)
            why = _clean(p)
            if p.returncode not in _expected_codes(cmd):
                why.append(f"exit {p.returncode}")
            if why:
                problems.append(f"{b}: `{cmd}`: {', '.join(why)}\n{p.stderr[-2000:]}")
    elif b.lang == "python":
        script = cwd / f"readme_block_{n}.py"
        script.write_text(b.text, encoding="utf-8")
        p = _run(f".venv/bin/python {script.name}", cwd)
        why = _clean(p) + ([f"exit {p.returncode}"] if p.returncode else [])
        if why:
            problems.append(f"{b}: {', '.join(why)}\n{p.stderr[-2000:]}")
    elif b.lang == "yaml":
        doc = yaml.safe_load(b.text)
        if isinstance(doc, dict) and "policy" in doc and "years" in doc:  # a case file
            case = cwd / f"readme_case_{n}.yaml"
            case.write_text(b.text, encoding="utf-8")
            p = _run(f".venv/bin/xlmodel evaluate --json {case.name}", cwd)
            why = _clean(p) + ([f"exit {p.returncode}"] if p.returncode not in (0, 1) else [])
            if not why:
                [report] = json.loads(p.stdout)
                if report["policy"] != doc["policy"] or report["evaluation_year"] != doc["evaluation_year"]:
                    why.append("evaluated another policy or year")
            if why:
                problems.append(f"{b}: {', '.join(why)}\n{p.stderr[-2000:]}")
        elif isinstance(doc, list) and doc and all(isinstance(r, dict) and "id" in r and "kind" in r for r in doc):
            problems += [f"{b}: {msg}" for msg in _check_rule_excerpt(doc)]
        else:
            problems.append(f"{b}: a YAML block that is neither a case nor a policy's rules")
    return problems


def test_every_readme_block_runs_as_written(workdir):
    problems: list[str] = []
    ran = 0
    for n, b in enumerate(run_blocks(), start=1):
        if b.not_run:
            continue
        problems += _run_block(b, n, workdir)
        ran += 1
    assert ran >= 6  # the reference's command line, Python, case, planning and own-plan blocks
    assert not problems, "\n\n".join(problems)
    # what the commands wrote is there
    for name in ("houpu-empty.xlsx", "gcl.xlsx", "gcl-refreshed.xlsx", "screen.xlsx", "screen.csv"):
        assert (workdir / "out" / name).is_file(), name


def test_the_python_block_prints_the_sample_results(workdir):
    """The Python section's snippet (the first python block) prints the sample's numbers (GCL FY2023: pass,
    85,509,212.89 元)."""
    b = [b for b in run_blocks() if b.lang == "python"][0]
    script = workdir / "readme_python.py"
    script.write_text(b.text, encoding="utf-8")
    p = _run(f".venv/bin/python {script.name}", workdir)
    assert p.returncode == 0, p.stderr
    first = p.stdout.splitlines()[0].split()
    assert first[:2] == ["pass", "85509212.89"], p.stdout
    assert "002015" in p.stdout and "300471" in p.stdout


def _first_result() -> list[str]:
    """The README's first result: the lines of its ```text block."""
    [b] = [b for b in blocks() if b.lang == "text"]
    assert b.not_run, f"{b}: the excerpt is checked by test_the_first_result_is_the_first_commands_output"
    return [ln for ln in b.text.splitlines() if ln.strip()]


def test_the_first_result_is_the_first_commands_output(tmp_path):
    """Every line of the README's first result is a line the first command prints, in that order."""
    excerpt = _first_result()
    assert any("85,509,212.89" in ln for ln in excerpt)  # GCL FY2023's minimum cash dividend (10 % of 855,092,128.94)
    exe = Path(sys.executable).parent / "xlmodel"
    if not exe.exists():
        pytest.skip("run the tests from the virtual environment the README sets up (.venv/bin/python -m pytest)")
    env = {k: v for k, v in _env().items() if k != "COLUMNS"}  # as a user's pipe or file: 100 columns
    p = subprocess.run([str(exe), "samples", "--out", "out"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, encoding="utf-8", timeout=600)
    assert p.returncode == 0, p.stderr
    printed = iter(p.stdout.splitlines())
    missing = [ln for ln in excerpt if not any(out.rstrip() == ln.rstrip() for out in printed)]
    assert not missing, "README.md's first result is not what `xlmodel samples --out out` prints: " + repr(missing)



def test_samples_readme_describes_every_sample_file():
    text = (ROOT / "samples" / "README.md").read_text(encoding="utf-8")
    for f in sorted((ROOT / "samples").iterdir()):
        if f.name != "README.md":
            assert f"`{f.name}`" in text, f"samples/README.md does not describe {f.name}"


# ---------------------------------------------------------------------------
# inline commands
# ---------------------------------------------------------------------------

INLINE = re.compile(r"`(?:\.venv/bin/)?xlmodel ([^`]+)`")


def _options(parser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings}


def test_inline_commands_name_commands_and_options_that_exist():
    import argparse

    from xlmodel.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    texts = [doc.read_text(encoding="utf-8") for doc in RUN_DOCS]
    guide = ROOT / "docs" / "user-guide.md"
    if guide.exists():
        texts.append(guide.read_text(encoding="utf-8"))
    seen = 0
    for text in texts:
        for m in INLINE.finditer(text):
            name = m.group(1).split()[0]
            opts = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", m.group(1)))
            if name.startswith("-") or name.isupper():  # `xlmodel --help`, `xlmodel COMMAND --help`
                assert opts <= _options(parser), m.group(0)
                continue
            assert name in sub.choices, f"{m.group(0)}: no command {name!r}"
            unknown = opts - _options(sub.choices[name])
            assert not unknown, f"{m.group(0)}: {name} has no option {sorted(unknown)}"
            seen += 1
    assert seen >= 5


# ---------------------------------------------------------------------------
# links between the documents
# ---------------------------------------------------------------------------

LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", text, re.M)}


@pytest.mark.parametrize("doc", ["README.md", "docs/reference.md", "docs/extending.md", "docs/user-guide.md",
                                 "docs/user-guide.en.md", "docs/speed.md", "samples/README.md", "THIRD_PARTY.md",
                                 "docs/offline-install.md"])
def test_relative_links_and_anchors_exist(doc):
    path = ROOT / doc
    broken = []
    for m in LINK.finditer(path.read_text(encoding="utf-8")):
        target = m["target"]
        if re.match(r"^[a-z]+:", target):
            continue  # a URL
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert not broken, f"{doc}: " + "; ".join(broken)
