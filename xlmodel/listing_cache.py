"""listing_cache: the cache of ``xlmodel policies`` (the listing, kept while nothing it is made from changes).

Listing the plans means validating every plan file (pydantic, YAML, each quote against its text):
about a quarter of a second, most of it loading the validators. The listing is a function of the
plan folders' files, the plan texts and the baseline beside them, and xlmodel's own code; its
fingerprint is those files' names and ``stat`` (size, modification and change times,
inode) and takes a millisecond. While the fingerprint is the same, the cached lines are printed.

The cache is one JSON file in the user's cache folder ($XLMODEL_CONFIG_HOME/cache, else
%LOCALAPPDATA%\\xlmodel\\cache on Windows, $XDG_CACHE_HOME/xlmodel or ~/.cache/xlmodel), written
atomically. A cache that cannot be read, is not what xlmodel writes, or is larger than a listing
can be is ignored (and replaced); a folder that cannot be written leaves the listing uncached."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from . import __version__
from .plan_folders import CONFIG_ENV, plan_directories

FORMAT = 1  #: the cache file's layout; a cache of another layout is ignored
MAX_CACHE_BYTES = 1 * 2**20  #: a listing of a thousand plans is ~100 KB
PACKAGE = Path(__file__).resolve().parent


def cache_file() -> Path | None:
    """Where the listing is cached (None: nowhere to put it)."""
    env = os.environ
    if env.get(CONFIG_ENV):
        base = Path(env[CONFIG_ENV]).expanduser() / "cache"
    elif os.name == "nt":
        local = env.get("LOCALAPPDATA")
        base = Path(local) / "xlmodel" / "cache" if local else None
    else:
        xdg = env.get("XDG_CACHE_HOME", "")
        try:
            base = (Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache") / "xlmodel"
        except (RuntimeError, KeyError):  # no home folder
            base = None
    return base / "policies.json" if base is not None and base.is_absolute() else None


MAX_DEPTH = 8  #: folders below a plan folder whose files are part of the fingerprint (a text may be texts/2025/x.txt)
MAX_ENTRIES = 20_000  #: entries looked at; a plan folder with more is listed afresh every time


class _TooMany(Exception):
    pass


def _stats(folder: Path, depth: int, budget: list[int]) -> list:
    """(name, size, mtime, ctime, inode, mode) of every entry of ``folder`` and, ``depth`` levels down,
    of its folders' (symbolic links followed for their stat, never descended)."""
    out = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as e:
        return [("unreadable", type(e).__name__)]
    budget[0] -= len(entries)
    if budget[0] < 0:
        raise _TooMany
    for e in entries:
        if e.name == "__pycache__":  # compiled copies of the code: the .py files stand for them
            continue
        try:
            st = e.stat(follow_symlinks=True)
        except OSError:
            out.append((e.name, "broken"))
            continue
        out.append((e.name, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode))
        if depth and e.is_dir(follow_symlinks=False):
            out.append((e.name, _stats(Path(e.path), depth - 1, budget)))
    return out


def fingerprint() -> str | None:
    """Everything the listing is made from, as text: the plan folders (which, where, what is in them
    and in their ``texts/`` and ``baseline/``) and xlmodel's code and version. Kept whole, not hashed
    (a few KB; compared as it is)."""
    budget = [MAX_ENTRIES]
    parts: list = [FORMAT, __version__, sys.version_info[:2], str(PACKAGE)]
    try:
        parts.append(_stats(PACKAGE, 0, budget))
        for d in plan_directories():
            parts.append((d.origin, str(d.path), d.path.is_dir() and _stats(d.path, MAX_DEPTH, budget)))
    except _TooMany:
        return None  # too large a folder to fingerprint cheaply: no cache
    return repr(parts)


def cached() -> tuple[list[str], list[str], int] | None:
    """(stdout lines, stderr lines, exit code) of the listing, when the cache holds this fingerprint's."""
    path = cache_file()
    if path is None:
        return None
    try:
        data = json.loads(_read_small_regular_file(path))
    except Exception:  # noqa: BLE001 - not there, not a file, too large, not JSON (or nested past recursion): no cache
        return None
    if not (isinstance(data, dict) and data.get("format") == FORMAT):
        return None
    print_ = fingerprint()
    if print_ is None or data.get("fingerprint") != print_:
        return None
    out, err, code = data.get("out"), data.get("err"), data.get("code")
    if not (_lines(out) and _lines(err) and type(code) is int and code in (0, 2)):
        return None
    return out, err, code


def _read_small_regular_file(path: Path) -> str:
    """The text of ``path`` when it is a regular file (not a link, FIFO or device) of at most
    MAX_CACHE_BYTES; else an OSError or ValueError."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = f.read(MAX_CACHE_BYTES + 1)
    if len(data) > MAX_CACHE_BYTES:
        raise ValueError("too large")
    return data.decode("utf-8")


def _lines(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def store(out: list[str], err: list[str], code: int, print_: str | None) -> None:
    """Keep the listing for the fingerprint ``print_`` was taken with (before the listing was made:
    a file changed meanwhile leaves a cache that no longer matches). Never fails the command."""
    import tempfile

    path = cache_file()
    if path is None or print_ is None:
        return
    text = json.dumps({"format": FORMAT, "fingerprint": print_, "out": out, "err": err, "code": code},
                      ensure_ascii=False)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".policies-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return
