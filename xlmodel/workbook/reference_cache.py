"""reference_cache: the reference formulas of ``xlmodel check``, kept on disk between runs.

``check`` compares every formula of a workbook with the formulas this xlmodel writes for the same
plan and timeline (:func:`xlmodel.workbook.compare._reference`): composing that reference workbook is
most of what checking one workbook costs in a new process. The reference is a function of the plan
(its content and its published text), the timeline, the regulatory baselines, xlmodel's code and
XlsxWriter's (which prepares each formula as it is written); it is kept in the user's cache folder
(:mod:`xlmodel.caches.user_cache`), ``references/<digest>.json``, the digest taken over all of them (the
code by the ``stat`` of its files, the baselines by their content: an edit that keeps a baseline's size
and times still gives another digest), so that a change to any gives another file.

What is kept is what the comparison reads, every formula as text: a file is used only when the
cache folder is the user's own and private, its MAC checks under the user's key (a file anyone else
wrote or edited does not) and its layout, digest and every value's type are what xlmodel writes, else
it is ignored and composed afresh (:mod:`xlmodel.caches.user_cache`). The cache holds what xlmodel computed,
never a workbook's text, and xlmodel never reads a cache file an input names. Only files xlmodel wrote
are pruned. ``XLMODEL_NO_CACHE=1`` composes every reference afresh."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from functools import lru_cache
from pathlib import Path

from .. import __version__
from ..caches import user_cache
from ..caches.user_cache import TooMany, stats

FORMAT = 2  #: the layout of a cache file; a file of another layout is ignored
SUB = "references"  #: the cache's folder of references
NAME = re.compile(r"[0-9a-f]{64}\.json")  #: the names of its files (pruning removes no other)
MAX_FILE_BYTES = 32 * 2**20  #: the reference of the largest plan and timeline is a few MB
MAX_FILES = 64  #: references kept (the oldest removed beyond)
MAX_ENTRIES = 5_000  #: files looked at for the fingerprint of the code
NO_CACHE_ENV = "XLMODEL_NO_CACHE"
PACKAGE = Path(__file__).resolve().parents[1]

#: (sheet names in order, {sheet: [(row, col, formula)]}, {sheet: {row: key}})
Reference = tuple[list[str], dict[str, list[tuple[int, int, str]]], dict[str, dict[int, str]]]


@lru_cache(maxsize=1)
def _code_fingerprint() -> str | None:
    """xlmodel's code and XlsxWriter's by the stat of their files, the regulatory baselines by their
    content (None: too many to look at, or a baseline unreadable; then nothing is cached)."""
    import importlib.util

    from ..plans.loading import BASELINES

    spec = importlib.util.find_spec("xlsxwriter")  # found, not imported
    xw = Path(spec.origin).parent if spec is not None and spec.origin else None
    budget = [MAX_ENTRIES]
    try:
        parts = [FORMAT, __version__, sys.version_info[:3], str(PACKAGE), stats(PACKAGE, 3, budget),
                 str(BASELINES), stats(BASELINES, 0, budget), _contents(BASELINES),
                 str(xw), xw is not None and stats(xw, 0, budget)]
    except (TooMany, OSError):
        return None
    return repr(parts)


MAX_BASELINE_BYTES = 1 * 2**20  #: a baseline file is some 15 KB


def _contents(folder: Path) -> list[tuple[str, str]]:
    """(name, SHA-256 of the bytes) of every file of ``folder`` (the baselines: each read whole, a few KB)."""
    out = []
    for e in sorted(os.scandir(folder), key=lambda e: e.name):
        if e.is_file():
            with open(e.path, "rb") as f:
                data = f.read(MAX_BASELINE_BYTES + 1)
            if len(data) > MAX_BASELINE_BYTES:
                raise TooMany
            out.append((e.name, hashlib.sha256(data).hexdigest()))
    return out


def _off() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").strip() not in ("", "0")


def _digest(key: tuple) -> str | None:
    code = _code_fingerprint()
    if code is None:
        return None
    return hashlib.sha256(json.dumps([code, *key]).encode("ascii")).hexdigest()


def load(key: tuple) -> Reference | None:
    """The reference kept for ``key`` (the plan's content and the timeline), or None."""
    digest = None if _off() else _digest(key)
    if digest is None:
        return None
    text = user_cache.load(SUB, f"{digest}.json", MAX_FILE_BYTES)  # None: not there, not ours, not checked
    if text is None:
        return None
    try:
        data = json.loads(text)
    except Exception:  # noqa: BLE001 - not JSON (or nested past recursion): compose it
        return None
    return _valid(data, digest)


def _valid(data, digest: str) -> Reference | None:
    """The reference a cache file holds, when every part is what :func:`store` writes."""
    if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("digest") == digest):
        return None
    names, formulas, keys = data.get("sheetnames"), data.get("formulas"), data.get("keys")
    if not (isinstance(names, list) and all(type(n) is str for n in names) and len(set(names)) == len(names)
            and isinstance(formulas, dict) and isinstance(keys, dict) and set(formulas) == set(keys) == set(names)):
        return None
    out_f: dict = {}
    out_k: dict = {}
    for n in names:
        cells, rows = formulas[n], keys[n]
        if not (isinstance(cells, list) and isinstance(rows, list)):
            return None
        if not all(type(x) is list and len(x) == 3 and type(x[0]) is int and type(x[1]) is int and x[0] > 0
                   and x[1] > 0 and type(x[2]) is str and x[2].startswith("=") for x in cells):
            return None
        if not all(type(x) is list and len(x) == 2 and type(x[0]) is int and type(x[1]) is str for x in rows):
            return None
        out_f[n] = [(r, c, f) for r, c, f in cells]
        out_k[n] = {r: k for r, k in rows}
    return names, out_f, out_k


def store(key: tuple, ref: Reference) -> None:
    """Keep ``ref`` for ``key``; the oldest files beyond :data:`MAX_FILES` are removed. Never fails
    the command (a folder that cannot be written leaves it uncached)."""
    digest = None if _off() else _digest(key)
    if digest is None:
        return
    names, formulas, keys = ref
    data = {"format": FORMAT, "digest": digest, "sheetnames": names,
            "formulas": {n: [list(x) for x in formulas[n]] for n in names},
            "keys": {n: sorted(keys[n].items()) for n in names}}
    text = json.dumps(data, separators=(",", ":")).encode("ascii")  # every text as written, \u escapes included
    if len(text) > MAX_FILE_BYTES or not user_cache.store(SUB, f"{digest}.json", text):
        return
    user_cache.prune(SUB, NAME, MAX_FILES)  # only files xlmodel wrote (their name, their tag), never through a link


GATE_SUB = "gates"  #: the cache's folder of the recalc gate's allowances
_FUNCTION = re.compile(r"[A-Z][A-Z0-9._]{0,63}")  #: a function's name as the gate keeps it (upper case)
_DIGEST = re.compile(r"[0-9a-f]{64}")
MAX_GATE_BYTES = 8 * 2**20  #: a plan's allowance: some 30 functions, a few thousand formulas' digests


def load_gate(key: tuple) -> tuple[frozenset[str], dict] | None:
    """``xlmodel recalc``'s gate allowance for ``key`` (the plan's content and the timeline), as
    :func:`store_gate` kept it (:func:`xlmodel.engines.drive.gate_allowance`): (the functions xlmodel
    writes, {SHA-256 of a formula's text: (the sheets, the names it needs)}), or None — unless the file
    is the user's own, its MAC checked, of the layout and digest xlmodel writes, each function's name a
    name and each formula's entry a digest with its lists of texts, nothing of it is used."""
    digest = None if _off() else _digest(("gate", *key))
    if digest is None:
        return None
    text = user_cache.load(GATE_SUB, f"{digest}.json", MAX_GATE_BYTES)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except Exception:  # noqa: BLE001 - not JSON: composed again
        return None
    if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("digest") == digest):
        return None
    names, clean = data.get("functions"), data.get("clean")
    if not (isinstance(names, list) and all(type(n) is str and _FUNCTION.fullmatch(n) for n in names)
            and isinstance(clean, dict)):
        return None
    out = {}
    for h, need in clean.items():
        if not (_DIGEST.fullmatch(h) and type(need) is list and len(need) == 2
                and all(type(x) is list and all(type(v) is str for v in x) for x in need)):
            return None
        out[h] = (frozenset(need[0]), frozenset(need[1]))
    return frozenset(names), out


def store_gate(key: tuple, names: frozenset[str], clean: dict) -> None:
    """Keep the gate allowance of ``key``; never fails the command."""
    digest = None if _off() else _digest(("gate", *key))
    if digest is None or not all(_FUNCTION.fullmatch(n) for n in names):
        return
    data = {"format": FORMAT, "digest": digest, "functions": sorted(names),
            "clean": {h: [sorted(s), sorted(n)] for h, (s, n) in sorted(clean.items())}}
    text = json.dumps(data, separators=(",", ":")).encode("ascii")
    if len(text) <= MAX_GATE_BYTES and user_cache.store(GATE_SUB, f"{digest}.json", text):
        user_cache.prune(GATE_SUB, NAME, MAX_FILES)
