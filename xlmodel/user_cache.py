"""user_cache: the user's cache folder, what xlmodel keeps there, and how it is read and written.

A cache holds only what xlmodel computed itself (the listing of ``xlmodel policies``, the reference
formulas ``xlmodel check`` compares a workbook with), kept while what it was made from is unchanged:
its fingerprint is the ``stat`` of those files (size, modification and change times, inode), taken in
a millisecond. The folder is $XLMODEL_CONFIG_HOME/cache, else %LOCALAPPDATA%\\xlmodel\\cache on Windows,
$XDG_CACHE_HOME/xlmodel or ~/.cache/xlmodel. Every file is written atomically; a file that cannot be
read, is not a regular file (a link, a FIFO), is larger than its kind can be or is not what xlmodel
writes is ignored (and replaced); a folder that cannot be written leaves the work uncached. Nothing
an input says chooses a cache file: its name is a digest xlmodel computes."""

from __future__ import annotations

import os
from pathlib import Path

from .plan_folders import CONFIG_ENV


def cache_folder() -> Path | None:
    """The user's cache folder for xlmodel (None: nowhere to put one)."""
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
    return base if base is not None and base.is_absolute() else None


class TooMany(Exception):
    """More entries than a fingerprint looks at."""


def stats(folder: Path, depth: int, budget: list[int], skip: tuple[str, ...] = ("__pycache__",)) -> list:
    """(name, size, mtime, ctime, inode, mode) of every entry of ``folder`` and, ``depth`` levels down,
    of its folders' (symbolic links followed for their stat, never descended); ``budget[0]`` entries
    at most (then :class:`TooMany`). Compiled copies of the code are skipped: the .py files stand for them."""
    out = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as e:
        return [("unreadable", type(e).__name__)]
    budget[0] -= len(entries)
    if budget[0] < 0:
        raise TooMany
    for e in entries:
        if e.name in skip:
            continue
        try:
            st = e.stat(follow_symlinks=True)
        except OSError:
            out.append((e.name, "broken"))
            continue
        out.append((e.name, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode))
        if depth and e.is_dir(follow_symlinks=False):
            out.append((e.name, stats(Path(e.path), depth - 1, budget, skip)))
    return out


def read_small_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` when it is a regular file (not a link, FIFO or device) of at most ``limit``
    bytes; else an OSError or ValueError."""
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError("too large")
    return data


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` whole or not at all (a temporary file beside it, then renamed);
    False when the folder cannot be written. Never raises for the file system."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem[:16]}-", suffix=path.suffix, dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True
