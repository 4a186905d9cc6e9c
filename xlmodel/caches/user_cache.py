"""user_cache: the user's cache folder, what xlmodel keeps there, and how it is read and written.

A cache holds only what xlmodel computed itself (the listing of ``xlmodel policies``, the reference
formulas ``xlmodel check`` compares a workbook with), kept while what it was made from is unchanged:
its fingerprint is the ``stat`` of those files (size, modification and change times, inode), taken in
a millisecond. The folder is $XLMODEL_CONFIG_HOME/cache, else %LOCALAPPDATA%\\xlmodel\\cache on Windows,
$XDG_CACHE_HOME/xlmodel or ~/.cache/xlmodel.

Nothing in the cache is trusted for being there (issue 48, items 6-8):

* a folder is used only when it is the user's own and private: a real folder (never a link: each is
  opened with ``O_NOFOLLOW`` and every name below is taken in it, ``openat``), owned by the user,
  writable by no one else (a folder of the user's that others may only read is narrowed to 0700;
  xlmodel makes its folders 0700). A folder of another user's, one others may write to, or a link
  is not used at all: nothing read from it, nothing written or removed there;
* every entry is authenticated: an HMAC-SHA256 of its name and content under a key of 32 random
  bytes kept in the user's config folder (:func:`config_folder`, ``cache.key``, made 0600; never in
  the cache folder), checked before a byte of it is used. A key that is not the user's own and
  private is replaced by a new one (every entry then fails its check and is made afresh);
* an entry that cannot be read, is not a regular file, is larger than its kind can be, or whose
  MAC does not check is ignored: what it held is computed afresh and written anew;
* pruning removes only the entries xlmodel wrote: a name of its pattern and a tag under the key,
  in the private folder, never through a link.

Nothing an input says chooses a cache file: its name is a digest xlmodel computes."""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

from ..plans.folders import CONFIG_ENV, user_plan_dir


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


# ---- the user's own, private folders ------------------------------------------------------------

#: every name below a cache folder is taken in the folder held open (openat): no link is ever followed
AT = os.name != "nt" and {os.open, os.mkdir, os.unlink, os.rename} <= os.supports_dir_fd and os.scandir in os.supports_fd
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)


def _uid() -> int | None:
    """The user's id (None on Windows, whose per-user folders have access lists instead)."""
    return os.geteuid() if hasattr(os, "geteuid") else None


def owned(st: os.stat_result, private: bool = False) -> bool:
    """The user's own (no one else may write it): owned by the user, no group or other write bit;
    ``private``: no one else may read it either (no group or other bit at all)."""
    uid = _uid()
    bits = 0o077 if private else stat.S_IWGRP | stat.S_IWOTH
    return uid is None or (st.st_uid == uid and not st.st_mode & bits)


class Folder:
    """A folder verified the user's own and private, held open: names are taken in it (``dir_fd``), never
    through a link. On Windows (no ``openat``) a folder by its path, checked to be no link or junction."""

    def __init__(self, fd: int | None, path: Path):
        self.fd, self.path = fd, path

    def _at(self, name: str) -> tuple[str, dict]:
        return (name, {"dir_fd": self.fd}) if self.fd is not None else (str(self.path / name), {})

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def sub(self, name: str, create: bool) -> "Folder | None":
        """The private folder ``name`` in this one (made 0700 when ``create``), or None."""
        where, at = self._at(name)
        return _open_folder(where, at, self.path / name, create)

    def read(self, name: str, limit: int, head: bool = False, private: bool = False) -> bytes | None:
        """The bytes of the regular file ``name`` (the user's own, at most ``limit`` bytes; ``head``:
        its first ``limit`` bytes; ``private``: readable by no one else either), or None."""
        where, at = self._at(name)
        try:
            fd = os.open(where, _FILE_FLAGS, **at)
        except (OSError, ValueError):
            return None
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not (stat.S_ISREG(st.st_mode) and owned(st, private)):
                return None
            data = f.read(limit + 1)
        return data[:limit] if head else data if len(data) <= limit else None

    def write(self, name: str, data: bytes, mode: int = 0o600) -> bool:
        """``name`` holds ``data`` whole or not at all (a new file beside it, then renamed over it);
        False when it cannot be written."""
        import secrets

        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        where, at = self._at(tmp)
        try:
            fd = os.open(where, _NEW_FLAGS, mode, **at)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            dst, _ = self._at(name)
            os.replace(where, dst, **({"src_dir_fd": self.fd, "dst_dir_fd": self.fd} if at else {}))
        except OSError:
            self.unlink(tmp)
            return False
        return True

    def unlink(self, name: str) -> None:
        where, at = self._at(name)
        try:
            os.unlink(where, **at)
        except OSError:
            pass

    def files(self) -> list[tuple[str, os.stat_result]]:
        """(name, lstat) of the regular files in the folder (links, folders and the like left out)."""
        try:
            with os.scandir(self.fd if self.fd is not None else self.path) as it:
                entries = [(e.name, e.stat(follow_symlinks=False)) for e in it]
        except OSError:
            return []
        return [(n, st) for n, st in entries if stat.S_ISREG(st.st_mode)]


def _open_folder(where: str, at: dict, path: Path, create: bool, narrow: bool = True) -> Folder | None:
    """The folder at ``where`` as a :class:`Folder` when it is the user's own (:func:`owned`), else None;
    ``narrow``: one others may read is made private (0700)."""
    if create:
        try:
            os.mkdir(where, 0o700, **at)
        except FileExistsError:
            pass
        except OSError:
            return None
    if not AT:
        return Folder(None, path) if _windows_folder(path) else None
    try:
        fd = os.open(where, _DIR_FLAGS, **at)  # a link: ELOOP (O_NOFOLLOW), or ENOTDIR
    except (OSError, ValueError):
        return None
    st = os.fstat(fd)
    try:
        if stat.S_ISDIR(st.st_mode) and owned(st):
            if narrow and st.st_mode & 0o077:
                os.fchmod(fd, 0o700)  # others could read it, never write: made private
            return Folder(fd, path)
    except OSError:
        pass
    os.close(fd)
    return None


def _windows_folder(path: Path) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    reparse = getattr(st, "st_file_attributes", 0) & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400)
    return stat.S_ISDIR(st.st_mode) and not reparse


def open_cache(sub: str | None = None, create: bool = False) -> Folder | None:
    """The cache folder (or its folder ``sub``) when the user's own and private; made when ``create``
    (its parents as the user's ~/.cache is made, the folder itself 0700). None: no cache to use."""
    base = cache_folder()
    if base is None:
        return None
    if create:
        try:
            base.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
    root = _open_folder(str(base), {}, base, create)
    if root is None or sub is None:
        return root
    with root:
        return root.sub(sub, create)


# ---- the key, and what it authenticates ---------------------------------------------------------

KEY_FILE = "cache.key"  #: in the user's config folder, never beside the data
MAGIC = b"xlmodel-cache/1 "  #: an entry: MAGIC, its tag (32 hex), a space, its MAC (64 hex), a newline, the content
_HEAD = len(MAGIC) + 32 + 1 + 64 + 1


def config_folder() -> Path | None:
    """The user's config folder for xlmodel (the user's plan folder's parent): $XLMODEL_CONFIG_HOME, else
    %APPDATA%\\xlmodel, $XDG_CONFIG_HOME/xlmodel or ~/.config/xlmodel. None: there is none."""
    try:
        plans = user_plan_dir()
    except Exception:  # noqa: BLE001 - a relative XLMODEL_CONFIG_HOME: the command says so elsewhere; no cache
        return None
    return plans.parent if plans is not None else None


def cache_key(create: bool = False) -> bytes | None:
    """The user's cache key: 32 random bytes in ``cache.key`` of the config folder, a regular file of the
    user's that no one else may read or write (0600), in a folder no one else may write. A key that is not
    (a link, another's, readable by others, not 64 hex digits) is never used: with ``create`` it is
    replaced by a new one, else None."""
    home = config_folder()
    if home is None:
        return None
    if create:
        try:
            home.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            return None
    folder = _open_folder(str(home), {}, home, False, narrow=False)  # the config folder: others may read it
    if folder is None:
        return None
    with folder:
        key = _read_key(folder)
        if key is None and create:
            key = _new_key(folder)
    return key


def _read_key(folder: Folder) -> bytes | None:
    data = folder.read(KEY_FILE, 66, private=True)  # 64 hex digits and a line end
    if data is None or len(data := data.strip()) != 64:
        return None
    try:
        return bytes.fromhex(data.decode("ascii"))
    except ValueError:
        return None


def _new_key(folder: Folder) -> bytes | None:
    import secrets

    key = secrets.token_bytes(32)
    if not folder.write(KEY_FILE, key.hex().encode("ascii") + b"\n", mode=0o600):
        return None
    return key if _read_key(folder) == key else None  # another run's, made at the same moment: that one


def _tag(key: bytes, name: str) -> bytes:
    return hmac.new(key, b"xlmodel-cache-name\0" + name.encode("utf-8"), hashlib.sha256).hexdigest()[:32].encode("ascii")


def _mac(key: bytes, name: str, content: bytes) -> bytes:
    return hmac.new(key, b"xlmodel-cache-entry\0" + name.encode("utf-8") + b"\0" + content,
                    hashlib.sha256).hexdigest().encode("ascii")


def sealed(key: bytes, name: str, content: bytes) -> bytes:
    """An entry as it is kept: its tag and MAC under ``key``, then ``content``. ``name``: where it is kept
    (``references/<digest>.json``): an entry moved to another name does not check."""
    return MAGIC + _tag(key, name) + b" " + _mac(key, name, content) + b"\n" + content


def opened(key: bytes, name: str, data: bytes) -> bytes | None:
    """The content of the entry ``data`` kept as ``name``, when its tag and MAC check under ``key``; else None."""
    head, content = data[:_HEAD], data[_HEAD:]
    if len(head) < _HEAD or not head.startswith(MAGIC) or head[-1:] != b"\n":
        return None
    tag, mac = head[len(MAGIC):-1].split(b" ", 1) if b" " in head[len(MAGIC):-1] else (b"", b"")
    if not (hmac.compare_digest(tag, _tag(key, name)) and hmac.compare_digest(mac, _mac(key, name, content))):
        return None
    return content


def _name(sub: str | None, name: str) -> str:
    return f"{sub}/{name}" if sub else name


def load(sub: str | None, name: str, limit: int) -> bytes | None:
    """What xlmodel kept as ``sub/name`` (at most ``limit`` bytes), when the folder is the user's own and
    private and the entry checks under the user's key; None otherwise (compute it afresh)."""
    key = cache_key()
    if key is None:
        return None
    folder = open_cache(sub)
    if folder is None:
        return None
    with folder:
        data = folder.read(name, limit + _HEAD)
    return None if data is None else opened(key, _name(sub, name), data)


def store(sub: str | None, name: str, content: bytes) -> bool:
    """Keep ``content`` as ``sub/name``, sealed under the user's key; False (nothing written) when the
    folder is not the user's own and private or cannot be written. Never raises for the file system."""
    folder = open_cache(sub, create=True)
    if folder is None:
        return False
    with folder:
        key = cache_key(create=True)
        return key is not None and folder.write(name, sealed(key, _name(sub, name), content))


def prune(sub: str, pattern, keep: int) -> None:
    """Remove the oldest entries of ``sub`` beyond ``keep``: only files xlmodel wrote (their name matches
    ``pattern``, a compiled regex, and their tag checks under the key), in the private folder, never
    through a link."""
    key = cache_key()
    folder = open_cache(sub)
    if key is None or folder is None:
        return
    with folder:
        ours = []
        for name, st in folder.files():
            if pattern.fullmatch(name) and owned(st):
                head = folder.read(name, _HEAD, head=True) or b""
                if head.startswith(MAGIC) and hmac.compare_digest(head[len(MAGIC):len(MAGIC) + 32], _tag(key, _name(sub, name))):
                    ours.append((st.st_mtime_ns, name))
        for _, name in sorted(ours)[:-keep] if keep > 0 else sorted(ours):
            folder.unlink(name)
