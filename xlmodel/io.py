"""File output: checked before any work, written atomically, never clobbering.

* :func:`check_output` validates an output path *before* anything is read or
  evaluated (suffix, folder, an existing file, ``--force``), so a bad ``-o``
  costs nothing and leaves nothing behind.
* :func:`atomic_write` yields a temporary file beside the target (``.name.XXXX.tmp.xlsx``:
  hidden, and not named like a finished output) and moves it into place only when
  writing succeeded. Without ``force`` the move is exclusive (a hard link, which
  fails if the target appeared meanwhile); with ``force`` it is ``os.replace``.
  The temporary file is removed on any error and on SIGINT/SIGTERM.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
import threading
from pathlib import Path

from .errors import OutputExistsError, XlmodelError

MAX_NAME_BYTES = 255 - 24  # room for the temporary name's prefix, random part and ".tmp"


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP arrived while an output was being written; ``exit_code`` is 128 + signal."""

    def __init__(self, signum: int):
        self.signum = signum
        self.exit_code = 128 + signum
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = f"signal {signum}"
        super().__init__(f"interrupted ({name})")


def _suffix_text(suffixes) -> str:
    items = [s for s in suffixes]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def check_output(path, *, force: bool = False, suffixes=(".xlsx",), inputs=()) -> Path:
    """Validate an output path before any work; return it as a Path.

    Refuses, with a message naming the path: a suffix not in ``suffixes``; a target that
    is one of the command's ``inputs`` (the same file however it is named: another spelling,
    a symbolic or hard link), ``--force`` or not; a target that is a folder (or, with
    ``force``, anything but a regular file: a FIFO, a device); an existing target without
    ``force``; a folder on the way that is a file; a folder that exists but cannot be written
    to. Missing folders are fine (they are created when the output is written)."""
    raw = str(path)
    p = Path(path)
    if not raw.strip():
        raise XlmodelError("the output file name is empty")
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):  # (a folder on the way is a file: said below)
        st = None
    except OSError as e:
        raise XlmodelError(f"{p}: cannot use this output path ({e.strerror})") from None
    if raw.endswith((os.sep, "/")) or (st is not None and stat.S_ISDIR(st.st_mode)):
        raise XlmodelError(f"{p}: is a folder; give the output file's name, e.g. {p / ('out' + tuple(suffixes)[0])}")
    if p.suffix.lower() not in tuple(s.lower() for s in suffixes):
        kind = "an" if _suffix_text(suffixes).startswith((".x", ".a", ".e", ".o")) else "a"
        raise XlmodelError(f"{p}: the output must be {kind} {_suffix_text(suffixes)} file")
    if len(p.name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise XlmodelError(f"{p}: the file name is too long ({len(p.name.encode('utf-8', 'surrogateescape'))} bytes; "
                           f"at most {MAX_NAME_BYTES})")
    for source in inputs:
        if st is not None and _same_file(st, source):
            raise XlmodelError(f"{p}: 输出即输入文件 {source}，不予覆盖（--force 也不例外）— is the input file {source} "
                               "(the same file, however named); the results never replace their own input, even with "
                               "--force: choose another output file")
    if os.path.lexists(p):
        if not force:
            raise OutputExistsError(f"{p} exists; pass --force to overwrite it")
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise XlmodelError(f"{p}: is not a regular file (a FIFO, socket or device); refusing to overwrite it")
    # the folders on the way: the first one that exists must be a writable folder
    parent = p.parent
    while True:
        try:
            pst = os.stat(parent)
        except FileNotFoundError:
            if parent.parent == parent:
                break
            parent = parent.parent
            continue
        except NotADirectoryError:
            parent = parent.parent
            continue
        except OSError as e:
            raise XlmodelError(f"{p}: cannot use the folder {parent} ({e.strerror})") from None
        if not stat.S_ISDIR(pst.st_mode):
            raise XlmodelError(f"{p}: {parent} is a file, not a folder")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise XlmodelError(f"{p}: cannot write to the folder {parent} (permission denied)")
        break
    return p


def _same_file(st: os.stat_result, other) -> bool:
    """Whether ``other`` is the file ``st`` describes (one device and inode: a link or another spelling too)."""
    try:
        o = os.stat(other)
    except (OSError, ValueError):
        return False
    return (o.st_dev, o.st_ino) == (st.st_dev, st.st_ino)


#: the signals that stop xlmodel while it writes an output (the temporary file is removed first)
SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


class _Signals:
    """SIGNALS raise :class:`Interrupted` while installed; while ``deferred`` they wait."""

    def __init__(self):
        self.old: dict[int, object] = {}
        self.deferred = False
        self.pending: int | None = None

    def _handler(self, signum, frame):
        if self.deferred:
            self.pending = signum
            return
        raise Interrupted(signum)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in SIGNALS:
                try:
                    self.old[sig] = signal.signal(sig, self._handler)
                except (ValueError, OSError):  # pragma: no cover - not the main interpreter
                    pass
        return self

    def __exit__(self, *exc):
        for sig, old in self.old.items():
            signal.signal(sig, old)
        self.old = {}
        return False


def _temp_name(target: Path) -> str:
    stem = target.stem
    while len(stem.encode("utf-8", "surrogateescape")) > 120:
        stem = stem[:-1]
    return f".{stem}."


def _link_into_place(tmp: str, target: Path) -> None:
    """Move ``tmp`` to ``target`` only if ``target`` does not exist (never clobbering)."""
    taken = OutputExistsError(f"{target} exists: another process created it while xlmodel was writing; "
                              "nothing was overwritten (pass --force to overwrite it)")
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise taken from None
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOSYS, errno.ENOTSUP,
                           errno.EOPNOTSUPP, errno.EACCES, errno.EINVAL):
            raise
        # no hard links here (FAT, some network and FUSE file systems): reserve the name
        # exclusively, then rename over the placeholder this process created
        try:
            fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            raise taken from None
        ino = os.fstat(fd).st_ino
        os.close(fd)
        try:
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                if os.stat(target).st_ino == ino:
                    os.unlink(target)
            raise
        return
    os.unlink(tmp)


@contextlib.contextmanager
def atomic_write(target, force: bool = False):
    """Yield a temporary path beside ``target``; move it to ``target`` when the block succeeds.

    Without ``force`` an existing target is never replaced, even one that appears while
    writing (:class:`OutputExistsError`). The temporary file is removed on any exception,
    and on SIGINT/SIGTERM/SIGHUP (raised as :class:`Interrupted`, a ``KeyboardInterrupt``;
    one arriving while the new file is moved into place waits for the move, then removes
    the new file again unless ``force`` replaced an old one).
    OS errors (disk full, permission denied) become an :class:`XlmodelError` naming the target.
    """
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise XlmodelError(f"{target}: a folder on the way is a file") from None
    except OSError as e:
        raise XlmodelError(f"{target}: cannot create the folder {target.parent} ({e.strerror})") from None
    tmp = None
    with _Signals() as sigs:
        try:
            try:
                fd, tmp = tempfile.mkstemp(prefix=_temp_name(target), suffix=".tmp" + target.suffix,
                                           dir=target.parent)
            except OSError as e:
                raise XlmodelError(f"{target}: cannot write in {target.parent} ({e.strerror})") from None
            os.close(fd)
            yield Path(tmp)
            mode = 0o666 & ~_umask()
            if force:
                with contextlib.suppress(OSError):
                    old = os.stat(target)
                    if stat.S_ISREG(old.st_mode):
                        mode = stat.S_IMODE(old.st_mode)  # keep the permissions of the file replaced
            os.chmod(tmp, mode)  # mkstemp creates 0600; give the file ordinary permissions
            sigs.deferred = True  # moving into place is never interrupted half-way
            if force:
                if os.path.isdir(target):
                    raise XlmodelError(f"{target}: is a folder; nothing was written")
                os.replace(tmp, target)
                tmp = None
            else:
                _link_into_place(tmp, target)
                tmp = None
                if sigs.pending is not None:  # stopped while moving into place: take back the file made
                    with contextlib.suppress(OSError):
                        os.unlink(target)
        except XlmodelError:
            raise
        except OSError as e:
            raise XlmodelError(f"{target}: cannot write ({e.strerror or e})") from None
        finally:
            sigs.deferred = True  # nor is removing the temporary file
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            sigs.deferred = False
        if sigs.pending is not None:
            raise Interrupted(sigs.pending)  # arrived while moving into place


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask
