"""listing_cache: the cache of ``xlmodel policies`` (the listing, kept while nothing it is made from changes).

Listing the plans means validating every plan file (pydantic, YAML, each quote against its text):
about a quarter of a second, most of it loading the validators. The listing is a function of the
plan folders' files, the plan texts and the baseline beside them, and xlmodel's own code; its
fingerprint is those files' names and ``stat`` (size, modification and change times,
inode) and takes a millisecond. While the fingerprint is the same, the cached lines are printed.

The cache is one JSON file, ``policies.json``, in the user's cache folder (:mod:`xlmodel.caches.user_cache`:
$XLMODEL_CONFIG_HOME/cache, else %LOCALAPPDATA%\\xlmodel\\cache on Windows, $XDG_CACHE_HOME/xlmodel or
~/.cache/xlmodel), written atomically and sealed with an HMAC under the user's key (kept in the user's config
folder). A cache in a folder that is not the user's own and private, whose MAC does not check (a line
added by anyone else), that cannot be read, is not what xlmodel writes, or is larger than a listing can be
is ignored (and replaced where the folder is the user's); a folder that cannot be written leaves the listing uncached."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import __version__
from ..plans.folders import plan_directories
from . import user_cache
from .user_cache import TooMany, cache_folder, stats as _stats

FORMAT = 2  #: the cache file's layout; a cache of another layout is ignored
NAME = "policies.json"  #: in the cache folder
MAX_CACHE_BYTES = 1 * 2**20  #: a listing of a thousand plans is ~100 KB
PACKAGE = Path(__file__).resolve().parents[1]
CODE_DEPTH = 2  #: folders below the package whose files are part of the fingerprint (xlmodel/workbook/sheets/ is 2 down)


def cache_file() -> Path | None:
    """Where the listing is cached (None: nowhere to put it)."""
    base = cache_folder()
    return base / NAME if base is not None else None


MAX_DEPTH = 8  #: folders below a plan folder whose files are part of the fingerprint (a text may be texts/2025/x.txt)
MAX_ENTRIES = 20_000  #: entries looked at; a plan folder with more is listed afresh every time


def fingerprint() -> str | None:
    """Everything the listing is made from, as text: the plan folders (which, where, what is in them
    and in their ``texts/`` and ``baseline/``) and xlmodel's code and version. Kept whole, not hashed
    (a few KB; compared as it is)."""
    budget = [MAX_ENTRIES]
    parts: list = [FORMAT, __version__, sys.version_info[:2], str(PACKAGE)]
    try:
        parts.append(_stats(PACKAGE, CODE_DEPTH, budget))
        for d in plan_directories():
            parts.append((d.origin, str(d.path), d.path.is_dir() and _stats(d.path, MAX_DEPTH, budget)))
    except TooMany:
        return None  # too large a folder to fingerprint cheaply: no cache
    return repr(parts)


def cached() -> tuple[list[str], list[str], int] | None:
    """(stdout lines, stderr lines, exit code) of the listing, when the cache holds this fingerprint's."""
    text = user_cache.load(None, NAME, MAX_CACHE_BYTES)  # None: not there, not the user's, its MAC not checked
    if text is None:
        return None
    try:
        data = json.loads(text.decode("utf-8"))
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


def _lines(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def store(out: list[str], err: list[str], code: int, print_: str | None) -> None:
    """Keep the listing for the fingerprint ``print_`` was taken with (before the listing was made:
    a file changed meanwhile leaves a cache that no longer matches). Never fails the command."""
    if print_ is None:
        return
    text = json.dumps({"format": FORMAT, "fingerprint": print_, "out": out, "err": err, "code": code},
                      ensure_ascii=False)
    user_cache.store(None, NAME, text.encode("utf-8"))
