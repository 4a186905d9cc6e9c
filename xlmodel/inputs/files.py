"""File output: checked before any work, written atomically, never clobbering.

* :func:`check_output` validates an output path *before* anything is read or
  evaluated (suffix, folder, an existing file, ``--force``), so a bad ``-o``
  costs nothing and leaves nothing behind.
* :func:`atomic_write` yields a temporary file beside the target
  (``.name.xlm<pid>-<host>.XXXXXXXX.tmp.xlsx``: hidden, not named like a finished output, and
  naming the process that writes it) and moves it into place only when writing succeeded.
  Without ``force`` the move is exclusive (a hard link, which fails if the target appeared
  meanwhile); with ``force`` it is ``os.replace``. The temporary file is removed on any error
  and on SIGINT/SIGTERM/SIGHUP; one a killed run left (SIGKILL, a power cut) is removed by the
  next write to that folder (:func:`clean_stale_temporaries`).
* Errors of the file system (disk full, permission denied) are an :class:`XlmodelError` naming
  the target, never the temporary file (:func:`write_error`, :func:`save_xlsx`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path

from ..errors import OutputExistsError, XlmodelError
from .sanitize import plain_text

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
    shown = plain_text(p)  # the path as said: one line, control characters escaped (a newline is \n)
    if not raw.strip():
        raise XlmodelError("输出文件名为空 the output file name is empty")
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):  # (a folder on the way is a file: said below)
        st = None
    except OSError as e:
        raise XlmodelError(f"{shown}: 无法使用此输出路径 cannot use this output path ({e.strerror})") from None
    if raw.endswith((os.sep, "/")) or (st is not None and stat.S_ISDIR(st.st_mode)):
        raise XlmodelError(f"{shown}: 这是文件夹，请给出输出文件名 is a folder; give the output file's name, e.g. {plain_text(p / ('out' + tuple(suffixes)[0]))}")
    if p.suffix.lower() not in tuple(s.lower() for s in suffixes):
        kind = "an" if _suffix_text(suffixes).startswith((".x", ".a", ".e", ".o")) else "a"
        raise XlmodelError(f"{shown}: 输出文件须为 {_suffix_text(suffixes)} 文件 the output must be {kind} {_suffix_text(suffixes)} file")
    if len(p.name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise XlmodelError(f"{shown}: 文件名过长 the file name is too long ({len(p.name.encode('utf-8', 'surrogateescape'))} bytes; "
                           f"at most {MAX_NAME_BYTES})")
    for source in inputs:
        if st is not None and _same_file(st, source):
            raise XlmodelError(f"{shown}: 输出即输入文件 {plain_text(source)}，不予覆盖（--force 也不例外）— is the input file {plain_text(source)} "
                               "(the same file, however named); the results never replace their own input, even with "
                               "--force: choose another output file")
    if os.path.lexists(p):
        if not force:
            raise OutputExistsError(f"{shown}: 文件已存在，如要覆盖请加 --force — {shown} exists; pass --force to overwrite it")
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise XlmodelError(f"{shown}: 不是普通文件，不予覆盖 is not a regular file (a FIFO, socket or device); refusing to overwrite it")
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
            raise XlmodelError(f"{shown}: 无法使用文件夹 {plain_text(parent)} cannot use the folder {plain_text(parent)} ({e.strerror})") from None
        if not stat.S_ISDIR(pst.st_mode):
            raise XlmodelError(f"{shown}: {plain_text(parent)} 是文件而非文件夹 {plain_text(parent)} is a file, not a folder")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise XlmodelError(f"{shown}: 无权写入文件夹 {plain_text(parent)} cannot write to the folder {plain_text(parent)} (permission denied)")
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


def host_tag() -> str:
    """Six hex digits for this machine (of its host name): a temporary file's owner is a process here."""
    import hashlib
    import socket

    return hashlib.sha256(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:6]


def _temp_name(target: Path) -> str:
    stem = target.stem
    while len(stem.encode("utf-8", "surrogateescape")) > 120:
        stem = stem[:-1]
    return f".{stem}.xlm{os.getpid()}-{host_tag()}."


#: a temporary file :func:`atomic_write` makes: ``.<stem>.xlm<pid>-<host>.<8 random>.tmp<suffix>``
_TEMP = re.compile(r"\..*\.xlm(\d{1,10})-([0-9a-f]{6})\.[a-z0-9_]{8}\.tmp(?:\.[A-Za-z0-9]{1,10})?")
#: one an xlmodel before issue 21 made (no owner in its name): ``.<stem>.<8 random>.tmp.<output suffix>``
_OLD_TEMP = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp\.(?:xlsx|csv|yaml|yml|txt|json)")
#: a temporary file of a process that no longer runs here is removed once unchanged this long (seconds);
#: any other of ours (another machine's, an earlier xlmodel's) once unchanged for STALE_ANYWAY
STALE_AFTER, STALE_ANYWAY = 60, 24 * 3600
MAX_SCAN = 50_000  #: entries of a folder looked at for stale temporary files


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine. Not asked on Windows, where ``os.kill`` would end
    the process: there every process is taken as running (its temporaries go after STALE_ANYWAY)."""
    if pid <= 0 or os.name == "nt":
        return True  # not a process id (or Windows): never taken for a dead one
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def clean_stale_temporaries(folder) -> list[str]:
    """Remove the temporary files xlmodel left in ``folder`` when a run was killed (SIGKILL, a power
    cut): regular files of this user named as :func:`atomic_write` names them, whose process no longer
    runs on this machine, unchanged for :data:`STALE_AFTER` seconds (those of another machine, and
    those of an xlmodel before issue 21, after :data:`STALE_ANYWAY`). Never fails; the names removed."""
    removed: list[str] = []
    now = time.time()
    me = getattr(os, "getuid", lambda: None)()
    host = host_tag()
    try:
        with os.scandir(folder) as it:
            for n, e in enumerate(it):
                if n >= MAX_SCAN:
                    break
                name = e.name
                if not name.startswith(".") or ".tmp" not in name:
                    continue
                m = _TEMP.fullmatch(name)
                if m is None and not _OLD_TEMP.fullmatch(name):
                    continue
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode) or (me is not None and st.st_uid != me):
                    continue
                age = now - st.st_mtime
                mine = m is not None and m.group(2) == host
                if (age >= STALE_AFTER and not _running(int(m.group(1)))) if mine else age >= STALE_ANYWAY:
                    with contextlib.suppress(OSError):
                        os.unlink(e.path)
                        removed.append(name)
    except OSError:
        pass
    return removed


def _reason(e: OSError) -> str:
    if e.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return f"磁盘空间不足 {e.strerror or 'no space left on the device'}"
    if e.errno == errno.EFBIG:
        return f"文件超出大小限制 {e.strerror or 'file too large'}"
    return e.strerror or type(e).__name__


def write_error(target, e: OSError) -> XlmodelError:
    """The error for an OS error while writing ``target``: the target named, never the temporary file."""
    return XlmodelError(f"{plain_text(target)}: 无法写入，未写出任何文件 — cannot write ({_reason(e)}); nothing was written")


def _drop_unclosable_zip(unraisable) -> None:
    """An unraisable error of a zip file being closed as it is freed (XlsxWriter leaves the zip it was
    writing open when the disk is full): already reported as :func:`write_error`, not again."""
    if isinstance(unraisable.exc_value, OSError) and "ZipFile" in repr(getattr(unraisable, "object", "")):
        return
    sys.__unraisablehook__(unraisable)


def save_xlsx(wb, target) -> None:
    """Close (save) an XlsxWriter workbook writing the temporary file of ``target``; an OS error (disk
    full) is :func:`write_error` naming ``target``, another XlsxWriter error an :class:`XlmodelError`."""
    from xlsxwriter.exceptions import FileCreateError, XlsxWriterException

    old = sys.unraisablehook
    sys.unraisablehook = _drop_unclosable_zip
    try:
        err = None
        try:
            wb.close()
        except FileCreateError as e:
            cause = e.args[0] if e.args and isinstance(e.args[0], OSError) else None
            err = (write_error(target, cause) if cause is not None
                   else XlmodelError(f"{plain_text(target)}: 无法写入 cannot write ({type(e).__name__})"))
            del cause
        except XlsxWriterException as e:
            err = XlmodelError(f"{plain_text(target)}: cannot write the workbook ({type(e).__name__}: {e})")
        if err is not None:
            import gc

            gc.collect()  # the half-written zip is freed here, its failing close dropped
            raise err
    finally:
        sys.unraisablehook = old


def _link_into_place(tmp: str, target: Path) -> None:
    """Move ``tmp`` to ``target`` only if ``target`` does not exist (never clobbering)."""
    taken = OutputExistsError(f"{plain_text(target)} exists: another process created it while xlmodel was writing; "
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
        raise XlmodelError(f"{plain_text(target)}: 路径中的某个文件夹是文件 a folder on the way is a file") from None
    except OSError as e:
        raise XlmodelError(f"{plain_text(target)}: 无法创建文件夹 {plain_text(target.parent)} cannot create the folder {plain_text(target.parent)} ({e.strerror})") from None
    tmp = None
    clean_stale_temporaries(target.parent)
    with _Signals() as sigs:
        try:
            try:
                fd, tmp = tempfile.mkstemp(prefix=_temp_name(target), suffix=".tmp" + target.suffix,
                                           dir=target.parent)
            except OSError as e:
                raise XlmodelError(f"{plain_text(target)}: 无法写入 {plain_text(target.parent)} cannot write in {plain_text(target.parent)} ({_reason(e)})") from None
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
                    raise XlmodelError(f"{plain_text(target)}: 这是文件夹，未写出任何文件 is a folder; nothing was written")
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
            raise write_error(target, e) from None
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


def generated_on() -> "dt.date":
    """The date a document is written, as a workbook's cover and the plan's Word document print it:
    SOURCE_DATE_EPOCH's (UTC; a reproducible build, https://reproducible-builds.org/specs/source-date-epoch/)
    where set, else today's (UTC)."""
    import datetime as dt

    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        try:
            return dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc).date()
        except (ValueError, OverflowError, OSError):
            raise XlmodelError(f"SOURCE_DATE_EPOCH={epoch!r}：应为 Unix 时间戳（秒）expected a Unix timestamp in seconds") from None
    return dt.datetime.now(dt.timezone.utc).date()
