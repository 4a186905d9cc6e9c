"""`xlmodel policies` lists from its cache while nothing the listing is made from has changed
(xlmodel/caches/listing_cache.py), and never from a cache that is stale, damaged or not what xlmodel writes.

Issue 48, item 8: a listing is printed only from the user's own private cache folder and only when its
MAC checks under the user's key (xlmodel/caches/user_cache.py): a line added by anyone else, a cache in a folder
others may write or own, or through a link, is never printed. The damaged caches below are sealed with
the user's key (as if xlmodel had written them): what the MAC lets through is still checked."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import cli
from xlmodel.caches import listing_cache, user_cache

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


def _read() -> dict:
    """The cached listing, its MAC checked under the user's key."""
    content = user_cache.opened(user_cache.cache_key(), listing_cache.NAME, listing_cache.cache_file().read_bytes())
    assert content is not None, "not sealed under the user's key"
    return json.loads(content)


def _write(content, sealed: bool = True) -> None:
    """Replace the cached listing with ``content`` (a dict as JSON, or text), sealed under the user's key
    (as if xlmodel had written it) or as it is."""
    text = (json.dumps(content, ensure_ascii=False) if isinstance(content, dict) else content).encode("utf-8")
    listing_cache.cache_file().write_bytes(user_cache.sealed(user_cache.cache_key(), listing_cache.NAME, text)
                                           if sealed else text)


def _no_loading(monkeypatch):
    """Make loading the plans fail: a listing printed now came from the cache."""
    import xlmodel.plan_install

    def refuse():
        raise AssertionError("the plans were loaded")
    monkeypatch.setattr(xlmodel.plan_install, "list_plans_with_errors", refuse)


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
    assert _read()["fingerprint"] == listing_cache.fingerprint()
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
    _write(content)
    assert cli(capsys, "policies") == first
    assert _read()["format"] == listing_cache.FORMAT


def test_a_cache_with_the_right_fingerprint_but_wrong_types_is_ignored(home, capsys):
    first = cli(capsys, "policies")
    data = _read()
    data["out"] = [{"=cmd": 1}]
    _write(data)
    assert cli(capsys, "policies") == first


def test_a_cache_folder_that_cannot_be_written_leaves_the_listing_uncached(home, capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setattr(user_cache, "cache_folder", lambda: blocker / "cache")
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
    data = _read()
    data["out"] = ["\x1b]0;owned\x07=HYPERLINK(1)"]
    _write(data)
    code, out, _ = cli(capsys, "policies")
    assert "\x1b" not in out and "\x07" not in out
    data["code"] = 2.0
    _write(data)
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
    whose files the fingerprint takes the stat of: xlmodel/*.py and its folders' files, CODE_DEPTH levels
    down (an edit of any of them, say xlmodel/plan_install.py or xlmodel/plans/clauses.py, lists the plans
    again)."""
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
    assert {"plan_install.py", "folders.py", "clauses.py", "listing_cache.py", "schema.py"} <= names
    package = listing_cache.PACKAGE
    assert all(f.is_relative_to(package) and len(f.relative_to(package).parts) <= listing_cache.CODE_DEPTH + 1
               for f in files), files  # no file deeper than the fingerprint looks
    print_ = listing_cache.fingerprint()
    assert all(repr(name) in print_ for name in names), names


# ---- issue 48, item 8: a forged listing is never printed -----------------------------------------------

FORGED = "forged-plan-2099             v9.9.9     2099–2101   99 rules  伪造公司"


def _loads(monkeypatch) -> list:
    """Every time the plans are loaded (the listing made afresh, not printed from the cache)."""
    import xlmodel.plan_install

    calls, real = [], xlmodel.plan_install.list_plans_with_errors

    def counting():
        calls.append(1)
        return real()
    monkeypatch.setattr(xlmodel.plan_install, "list_plans_with_errors", counting)
    return calls


def _forge(path: Path) -> None:
    """A line added to the cached listing, its fingerprint and seal left as they were (what anyone who may
    write the file can do): the content after the seal's line, edited."""
    head, body = path.read_bytes().split(b"\n", 1)
    data = json.loads(body)
    data["out"].append(FORGED)
    path.write_bytes(head + b"\n" + json.dumps(data, ensure_ascii=False).encode("utf-8"))


@pytest.mark.parametrize("how", ["line_added_under_the_old_seal", "unsealed", "sealed_with_another_key"])
def test_a_forged_listing_is_not_printed_and_is_replaced(home, capsys, monkeypatch, how):
    first = cli(capsys, "policies")
    path = listing_cache.cache_file()
    if how == "line_added_under_the_old_seal":
        _forge(path)
    else:
        data = _read()
        data["out"].append(FORGED)
        text = json.dumps(data, ensure_ascii=False).encode("utf-8")
        path.write_bytes(text if how == "unsealed" else user_cache.sealed(bytes(32), listing_cache.NAME, text))
    loads = _loads(monkeypatch)
    code, out, err = cli(capsys, "policies")
    assert (code, out, err) == first and "forged-plan-2099" not in out and loads == [1]  # listed afresh
    assert FORGED not in json.dumps(_read(), ensure_ascii=False)  # and the cache replaced, sealed


def test_a_cache_folder_others_may_write_is_neither_read_nor_written(home, capsys, monkeypatch):
    """The whole folder made writable by all (mode 0777, as a shared cache folder is): a listing there, even
    one sealed under the user's key, is not printed, and nothing is written there."""
    first = cli(capsys, "policies")
    data = _read()
    data["out"].append(FORGED)
    _write(data)  # sealed, as if by xlmodel: the folder's mode alone decides
    folder = listing_cache.cache_file().parent
    folder.chmod(0o777)
    before = listing_cache.cache_file().read_bytes()
    loads = _loads(monkeypatch)
    assert cli(capsys, "policies") == first and loads == [1]
    assert listing_cache.cache_file().read_bytes() == before  # not replaced either: not the user's folder
    assert folder.stat().st_mode & 0o777 == 0o777  # and left as it is


def test_a_cache_folder_that_is_a_link_is_not_used(home, capsys, monkeypatch, tmp_path):
    """The cache folder a link to a folder of the user's holding a listing sealed under the user's key:
    not followed (O_NOFOLLOW), not read, nothing written through it."""
    first = cli(capsys, "policies")
    data = _read()
    data["out"].append(FORGED)
    _write(data)
    folder = listing_cache.cache_file().parent
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    before = (elsewhere / listing_cache.NAME).read_bytes()
    loads = _loads(monkeypatch)
    assert cli(capsys, "policies") == first and loads == [1]
    assert (elsewhere / listing_cache.NAME).read_bytes() == before and folder.is_symlink()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a folder to another user")
def test_a_cache_folder_of_another_users_is_not_used(home, capsys, monkeypatch):
    first = cli(capsys, "policies")
    data = _read()
    data["out"].append(FORGED)
    _write(data)
    folder = listing_cache.cache_file().parent
    os.chown(folder, 4321, 4321)  # pre-created by another user, private to that user
    loads = _loads(monkeypatch)
    assert cli(capsys, "policies") == first and loads == [1]


def test_the_key_is_the_users_own_in_the_config_folder_never_beside_the_data(home, capsys):
    cli(capsys, "policies")
    key = home.parent / user_cache.KEY_FILE  # $XLMODEL_CONFIG_HOME/cache.key; the cache is $XLMODEL_CONFIG_HOME/cache
    assert key.is_file() and key.parent != listing_cache.cache_file().parent
    assert not list(listing_cache.cache_file().parent.glob("*.key"))
    if os.name != "nt":
        assert key.stat().st_mode & 0o777 == 0o600 and listing_cache.cache_file().parent.stat().st_mode & 0o777 == 0o700
        assert listing_cache.cache_file().stat().st_mode & 0o777 == 0o600
    assert len(bytes.fromhex(key.read_text(encoding="ascii").strip())) == 32


@pytest.mark.skipif(os.name == "nt", reason="POSIX modes and links")
@pytest.mark.parametrize("how", ["readable_by_others", "a_link"])
def test_a_key_that_is_not_private_is_replaced_and_nothing_it_sealed_is_trusted(home, capsys, monkeypatch, tmp_path, how):
    """A key others may read could be anyone's: a new one is made, and what the old one sealed (a listing
    with a line added, sealed anew under the old key by whoever read it) is not printed."""
    cli(capsys, "policies")
    key = home.parent / user_cache.KEY_FILE
    old = bytes.fromhex(key.read_text(encoding="ascii").strip())
    data = _read()
    data["out"].append(FORGED)
    listing_cache.cache_file().write_bytes(user_cache.sealed(old, listing_cache.NAME,
                                                             json.dumps(data, ensure_ascii=False).encode("utf-8")))
    if how == "readable_by_others":
        key.chmod(0o644)
    else:
        key.rename(tmp_path / "their.key")
        key.symlink_to(tmp_path / "their.key")
    loads = _loads(monkeypatch)
    code, out, _ = cli(capsys, "policies")
    assert "forged-plan-2099" not in out and loads == [1]
    assert not key.is_symlink() and key.stat().st_mode & 0o777 == 0o600
    assert bytes.fromhex(key.read_text(encoding="ascii").strip()) != old
