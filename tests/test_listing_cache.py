"""`xlmodel policies` lists from its cache while nothing the listing is made from has changed
(xlmodel/listing_cache.py), and never from a cache that is stale, damaged or not what xlmodel writes."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import cli
from xlmodel import listing_cache

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """A user folder of its own (the cache lives in it) with one custom plan."""
    monkeypatch.setenv("XLMODEL_CONFIG_HOME", str(tmp_path / "config"))
    plans = tmp_path / "config" / "plans"
    (plans / "texts").mkdir(parents=True)
    shutil.copy(TEMPLATES / "houpu-2024-2026.yaml", plans / "mine-2024-2026.yaml")
    text = (plans / "mine-2024-2026.yaml").read_text(encoding="utf-8").replace("id: houpu-2024-2026", "id: mine-2024-2026")
    (plans / "mine-2024-2026.yaml").write_text(text, encoding="utf-8")
    src = next((TEMPLATES / "texts").glob("houpu*"))
    shutil.copy(src, plans / "texts" / src.name)
    return plans


def _no_loading(monkeypatch):
    """Make loading the plans fail: a listing printed now came from the cache."""
    import xlmodel.plan_install

    def refuse():
        raise AssertionError("the plans were loaded")
    monkeypatch.setattr(xlmodel.plan_install, "list_plans", refuse)


def test_the_second_listing_comes_from_the_cache_and_says_the_same(home, capsys, monkeypatch):
    first = cli(capsys, "policies")
    assert first[0] == 0 and "mine-2024-2026" in first[1] and "houpu-2024-2026" in first[1]
    assert listing_cache.cache_file().is_file()
    _no_loading(monkeypatch)
    assert cli(capsys, "policies") == first


@pytest.mark.parametrize("change", ["edit", "add", "remove", "text"])
def test_a_changed_plan_folder_is_listed_again(home, capsys, monkeypatch, change):
    cli(capsys, "policies")
    before = listing_cache.fingerprint()
    plan = home / "mine-2024-2026.yaml"
    if change == "edit":  # the same size, another version
        plan.write_text(re.sub(r'version: "\d\.\d\.\d"', 'version: "1.0.9"', plan.read_text(encoding="utf-8"), count=1),
                        encoding="utf-8")
        os.utime(plan, ns=(plan.stat().st_atime_ns, plan.stat().st_mtime_ns + 10**9))
    elif change == "add":
        shutil.copy(plan, home / "other-2024-2026.yaml")
        text = (home / "other-2024-2026.yaml").read_text(encoding="utf-8").replace("id: mine-2024-2026", "id: other-2024-2026")
        (home / "other-2024-2026.yaml").write_text(text, encoding="utf-8")
    elif change == "remove":
        plan.unlink()
    else:  # the plan text: the quotes are checked against it
        txt = next((home / "texts").iterdir())
        txt.write_text("一、不是这份规划的原文。\n", encoding="utf-8")
    assert listing_cache.fingerprint() != before
    code, out, err = cli(capsys, "policies")
    assert json.loads(listing_cache.cache_file().read_text(encoding="utf-8"))["fingerprint"] == listing_cache.fingerprint()
    if change == "edit":
        assert "v1.0.9" in out
    elif change == "add":
        assert "other-2024-2026" in out
    elif change == "remove":
        assert "mine-2024-2026" not in out
    else:  # the plan text (its quotes are checked against it when the plan is used): listed again
        assert "mine-2024-2026" in out + err


@pytest.mark.parametrize("content", [
    "{not json",
    "[" * 200_000,  # nested past Python's recursion limit
    json.dumps({"format": 999, "fingerprint": "x", "out": [], "err": [], "code": 0}),
    "[1, 2, 3]",
    "x" * (listing_cache.MAX_CACHE_BYTES + 1),
])
def test_a_damaged_or_foreign_cache_is_ignored_and_replaced(home, capsys, content):
    first = cli(capsys, "policies")
    listing_cache.cache_file().write_text(content, encoding="utf-8")
    assert cli(capsys, "policies") == first
    assert json.loads(listing_cache.cache_file().read_text(encoding="utf-8"))["format"] == listing_cache.FORMAT


def test_a_cache_with_the_right_fingerprint_but_wrong_types_is_ignored(home, capsys):
    first = cli(capsys, "policies")
    data = json.loads(listing_cache.cache_file().read_text(encoding="utf-8"))
    data["out"] = [{"=cmd": 1}]
    listing_cache.cache_file().write_text(json.dumps(data), encoding="utf-8")
    assert cli(capsys, "policies") == first


def test_a_cache_folder_that_cannot_be_written_leaves_the_listing_uncached(home, capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setattr(listing_cache, "cache_file", lambda: blocker / "policies.json")
    code, out, _ = cli(capsys, "policies")
    assert code == 0 and "mine-2024-2026" in out
    assert blocker.read_text(encoding="utf-8") == "x"


def test_a_cache_that_is_a_fifo_is_ignored_without_waiting(home, capsys):
    first = cli(capsys, "policies")
    listing_cache.cache_file().unlink()
    os.mkfifo(listing_cache.cache_file())
    assert cli(capsys, "policies") == first  # no writer will ever come: a read would block


def test_cached_lines_are_printed_as_plain_text_and_the_exit_code_must_be_an_int(home, capsys):
    first = cli(capsys, "policies")
    data = json.loads(listing_cache.cache_file().read_text(encoding="utf-8"))
    data["out"] = ["\x1b]0;owned\x07=HYPERLINK(1)"]
    listing_cache.cache_file().write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = cli(capsys, "policies")
    assert "\x1b" not in out and "\x07" not in out
    data["code"] = 2.0
    listing_cache.cache_file().write_text(json.dumps(data), encoding="utf-8")
    assert cli(capsys, "policies") == first


def test_a_plan_text_in_a_deeper_folder_is_part_of_the_fingerprint(home):
    deep = home / "texts" / "2025" / "q1"
    deep.mkdir(parents=True)
    (deep / "x.txt").write_text("一、原文。\n", encoding="utf-8")
    before = listing_cache.fingerprint()
    (deep / "x.txt").write_text("一、另一份原文。\n", encoding="utf-8")
    assert listing_cache.fingerprint() != before


def test_the_fingerprint_covers_every_module_the_listing_is_made_with(tmp_path):
    """A listing made afresh (a cache folder of its own, so nothing cached) loads only modules of xlmodel
    whose files the fingerprint takes the stat of: xlmodel/*.py, one level (an edit of any of them,
    say xlmodel/plan_install.py or xlmodel/plan_clauses.py, lists the plans again)."""
    import subprocess
    import sys

    env = {**os.environ, "XLMODEL_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("XLMODEL_PLANS", None)
    code = ("import contextlib, io, sys; from xlmodel import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            "    rc = cli.main(['policies'])\n"
            "print(rc); print('\\n'.join(m.__file__ for n, m in sys.modules.items() if n.split('.')[0] == 'xlmodel'))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=True)
    rc, *files = out.stdout.split("\n")
    files = [Path(f) for f in files if f]
    assert rc == "0"
    names = {f.name for f in files}
    assert {"plan_install.py", "plan_folders.py", "plan_clauses.py", "listing_cache.py", "policy.py"} <= names
    assert {f.parent for f in files} == {listing_cache.PACKAGE}  # no subpackage: its files would not be in it
    print_ = listing_cache.fingerprint()
    assert all(repr(name) in print_ for name in names), names
