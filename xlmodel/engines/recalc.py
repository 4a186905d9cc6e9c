"""Recalculate workbooks in real spreadsheet engines (the parity oracles, and ``xlmodel recalc``).

LibreOffice: a private profile forces recalculation of every formula on load
(OOXMLRecalcMode = 0, "always"), never runs a document's macros (the highest macro
security, macros disabled), never updates links to other files (Calc's link update mode 1,
"never"), blocks linked pictures of untrusted documents and sends every network request to a
proxy where nothing listens (127.0.0.1, port 9; the engines' environment says the same,
:data:`NO_NETWORK`), then each file is
converted xlsx -> xlsx, so the output's cached values are LibreOffice's own. Many files
go through one ``soffice`` process (:data:`PER_LAUNCH` at a time).

The parity tests read both engines' values in their memory instead (:mod:`.in_memory`), no file
written, each way proven equal to the engine's own copies by a test.

Gnumeric, a second engine with its own formula code: ``ssconvert --recalc``
recalculates each file before writing it back as xlsx.

Every engine process runs in a process group of its own and is killed, with everything it
started, when it outlives its time (:func:`run_bounded`): a workbook that makes an engine
hang costs a clear message, never a stuck command.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from ..errors import XlmodelError

_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>1</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
""" + "".join(f'<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="{k}" oor:op="fuse"><value>{v}</value></prop></item>\n'
              for k, v in (("ooInetProxyType", 1), ("ooInetNoProxy", ""), ("ooInetHTTPProxyName", "127.0.0.1"),
                           ("ooInetHTTPProxyPort", 9), ("ooInetHTTPSProxyName", "127.0.0.1"), ("ooInetHTTPSProxyPort", 9),
                           ("ooInetFTPProxyName", "127.0.0.1"), ("ooInetFTPProxyPort", 9))) + "</oor:items>\n"

#: the proxy every engine is given: the discard port of this machine, where nothing listens, so that
#: nothing a workbook names is fetched (LibreOffice's own settings above say the same; curl, GIO and
#: libsoup read these variables)
NO_NETWORK = {**{k: "http://127.0.0.1:9" for k in ("http_proxy", "https_proxy", "ftp_proxy", "all_proxy",
                                                   "HTTP_PROXY", "HTTPS_PROXY", "FTP_PROXY", "ALL_PROXY")},
              "no_proxy": "", "NO_PROXY": ""}


def engine_env(**extra: str) -> dict:
    """The environment an engine runs in: this one, with :data:`NO_NETWORK` and ``extra``."""
    return {**os.environ, **NO_NETWORK, **extra}


#: where LibreOffice installs itself when it is not on PATH (Linux, macOS, Windows)
SOFFICE_PLACES = ("/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice", "/opt/libreoffice/program/soffice",
                  "/Applications/LibreOffice.app/Contents/MacOS/soffice",
                  r"C:\Program Files\LibreOffice\program\soffice.exe",
                  r"C:\Program Files (x86)\LibreOffice\program\soffice.exe")


def soffice() -> str | None:
    for name in ("soffice", "libreoffice"):
        path = shutil.which(name)
        if path:
            return path
    for path in SOFFICE_PLACES:
        if os.path.exists(path):
            return path
    return None


def ssconvert() -> str | None:
    """Gnumeric's command-line converter, if installed (Debian package ``gnumeric``)."""
    return shutil.which("ssconvert")


def _ready(exe: str | None, missing: str, outdir: Path) -> Path:
    """The engine is installed and the output folder exists (else a clear error)."""
    if exe is None:
        raise XlmodelError(missing)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return outdir


def recalculate_gnumeric(paths: list[Path], outdir: Path, timeout: float = 120, suffix: str = ".xlsx") -> list[Path]:
    """Recalculate ``paths`` in Gnumeric (one ``ssconvert --recalc`` per file); return the copies in
    ``outdir``, saved as ``suffix`` says: ``.xlsx``, or ``.xls`` (BIFF8), which Gnumeric writes in a
    third of the time with every value's type (the parity tests read it:
    :func:`xlmodel.engines.parity.engine_values`)."""
    exe = ssconvert()
    outdir = _ready(exe, "Gnumeric (ssconvert) not found; install gnumeric", outdir)
    out = []
    for p in paths:
        o = outdir / Path(p).with_suffix(suffix).name
        o.unlink(missing_ok=True)
        proc = run_bounded([exe, "--recalc", str(p), str(o)], timeout, "Gnumeric", env=engine_env(HOME=str(outdir)))
        if not o.exists():
            raise XlmodelError(f"Gnumeric 运行失败 Gnumeric failed on {p} ({proc.returncode}): {proc.stderr.strip()[:500]}")
        out.append(o)
    return out


def recalculate(paths: list[Path], outdir: Path, timeout: float | None = None) -> list[Path]:
    """Recalculate ``paths`` in LibreOffice; return the recalculated copies in ``outdir``.

    ``timeout`` bounds one launch (of :data:`PER_LAUNCH` files); by default it grows with the files (:func:`launch_bound`): a busy
    machine is slow, a hang is still stopped."""
    return _convert(paths, outdir, timeout, "xlsx:Calc MS Excel 2007 XML", ".xlsx")


def export_pdf(paths: list[Path], outdir: Path, timeout: float | None = None) -> list[Path]:
    """Print ``paths`` to PDF in LibreOffice (each sheet's print settings: area, paper, scale), one
    launch for every :data:`PER_LAUNCH`; return the PDFs in ``outdir``. Formulas are recalculated as :func:`recalculate` does."""
    return _convert(paths, outdir, timeout, "pdf:calc_pdf_Export", ".pdf")


#: files one LibreOffice launch converts: a launch slows down file by file (100 files in one take about
#: a fifth longer than in four launches of 25, start-up included; benchmarks/bench_recalc.py)
PER_LAUNCH = 25


def _convert(paths: list[Path], outdir: Path, timeout: float | None, target: str, suffix: str) -> list[Path]:
    """``paths`` converted in launches of :data:`PER_LAUNCH` files; ``timeout`` bounds each launch."""
    paths = list(paths)
    return [o for i in range(0, len(paths), PER_LAUNCH)
            for o in _convert_launch(paths[i:i + PER_LAUNCH], outdir, timeout, target, suffix)]


def _convert_launch(paths: list[Path], outdir: Path, timeout: float | None, target: str, suffix: str) -> list[Path]:
    timeout = launch_bound(len(paths)) if timeout is None else timeout
    exe = soffice()
    outdir = _ready(exe, "LibreOffice (soffice) not found; install libreoffice-calc-nogui", outdir)
    out = [outdir / Path(p).with_suffix(suffix).name for p in paths]
    for o in out:  # never mistake an earlier run's file for this one's
        o.unlink(missing_ok=True)
    proc = _run(exe, paths, outdir, timeout, target)
    missing = [p for p, o in zip(paths, out) if not o.exists()]
    if missing:  # a soffice start-up can fail under load: one more try for what is missing
        proc = _run(exe, missing, outdir, timeout, target)
        missing = [p for p, o in zip(paths, out) if not o.exists()]
    if missing:
        raise XlmodelError(f"LibreOffice 运行失败 LibreOffice failed ({proc.returncode}): {proc.stderr.strip()[:500]}; "
                           f"not converted: {', '.join(str(p) for p in missing[:3])}")
    return out


def launch_bound(n: int) -> float:
    """Seconds one LibreOffice launch of ``n`` files may take by default: 15 minutes, or 10 seconds a
    file (a workbook takes about half a second on an idle core) and two minutes to start."""
    return max(900.0, 120.0 + 10.0 * n)


#: the one setting a profile with a macro of its own leaves out (:func:`profile`)
_NO_MACROS = ('<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" '
              'oor:op="fuse"><value>true</value></prop></item>\n')


def profile(folder: str | Path, macro: Path | None = None) -> Path:
    """``folder`` made a private LibreOffice profile (:data:`_XCU`: every formula recalculated on load,
    macros never run, links never updated); returned for ``-env:UserInstallation``.

    With ``macro``, a Python file, that file is the profile's one macro of its own
    (``user/Scripts/python/``), which the launch runs (:mod:`.in_memory`): macros are then not
    disabled in the whole office, but the highest macro security still keeps a document's macros
    from running, and that launch loads every file with its macros never run as well."""
    user = Path(folder) / "user"
    user.mkdir(parents=True, exist_ok=True)
    xcu = _XCU
    if macro is not None:
        assert _NO_MACROS in xcu
        xcu = xcu.replace(_NO_MACROS, "")
        scripts = user / "Scripts" / "python"
        scripts.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(macro, scripts / macro.name)
    (user / "registrymodifications.xcu").write_text(xcu, encoding="utf-8")
    return Path(folder)


def _run(exe: str, paths: list[Path], outdir: Path, timeout: float,
         target: str = "xlsx:Calc MS Excel 2007 XML") -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="xlmodel-lo-") as prof:
        cmd = [exe, f"-env:UserInstallation={profile(prof).resolve().as_uri()}", "--headless", "--norestore",
               "--nologo", "--convert-to", target, "--outdir", str(outdir), *map(str, paths)]
        return run_bounded(cmd, timeout, "LibreOffice", env=engine_env())


class EngineTimeout(XlmodelError):
    """A spreadsheet engine did not finish in its time and was stopped."""


#: the engine processes running now (each the head of its process group), and whether they are being stopped
_LIVE: set[subprocess.Popen] = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


class EngineStopped(XlmodelError):
    """An engine was not started: the run is being stopped by a signal."""


def run_bounded(cmd: list[str], timeout: float, engine: str, env: dict | None = None,
                stdin_text: str | None = None) -> subprocess.CompletedProcess:
    """Run an engine's command in a process group of its own; after ``timeout`` seconds kill the
    group (the engine and whatever it started: soffice starts soffice.bin) and raise
    :class:`EngineTimeout`. Input is ``stdin_text`` (else closed), output captured. While a signal
    stops the run (:func:`stopped_by_signals`) no engine starts."""
    kw: dict = {"start_new_session": True} if os.name == "posix" else {
        "creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    with _LIVE_LOCK:
        if _STOPPING.is_set():
            raise EngineStopped(f"{engine} 未启动：运行已被信号中止 {engine} was not started: the run is being stopped")
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL if stdin_text is None else subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", env=env, **kw)
        _LIVE.add(proc)
    try:
        if _STOPPING.is_set():  # a signal between the start and the line above: stop_engines did not see it
            raise EngineStopped(f"{engine} 已终止：运行已被信号中止 {engine} was stopped: the run is being stopped")
        out, err = proc.communicate(stdin_text, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise EngineTimeout(f"{engine} 在 {timeout:g} 秒内未完成，已终止（未写入任何文件）— {engine} did not finish "
                            f"within {timeout:g} s and was stopped, nothing was written (an engine waiting on a "
                            "dialog, or a workbook it cannot finish; pass a longer --timeout if the machine is busy)") from None
    except BaseException:  # Ctrl-C, SIGTERM: the engine goes too
        _kill_group(proc)
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def stop_engines() -> None:
    """Kill every engine running now, with what it started, and start no other until
    :func:`stopped_by_signals` ends. Safe in a signal handler (no lock is taken: a set is copied)."""
    _STOPPING.set()
    for proc in list(_LIVE):
        _signal_group(proc)


@contextlib.contextmanager
def stopped_by_signals():
    """While engines run for a command: SIGINT, SIGTERM or SIGHUP kills every engine (the threads
    waiting on them go on at once) and raises :class:`xlmodel.inputs.files.Interrupted` in the main thread, so
    that the command's temporary folders (the hidden copy of the workbook beside the output) are
    removed as it unwinds; a second signal while that happens waits for it. Elsewhere than in the
    main thread, nothing is installed."""
    from ..inputs.files import SIGNALS, Interrupted

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired: list[int] = []

    def handler(signum, frame):
        stop_engines()
        if not fired:
            fired.append(signum)
            raise Interrupted(signum)

    old = {sig: signal.signal(sig, handler) for sig in SIGNALS}
    _STOPPING.clear()
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
        _STOPPING.clear()


def _signal_group(proc: subprocess.Popen) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows: the process tree
            subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        with contextlib.suppress(OSError):
            proc.kill()


def _kill_group(proc: subprocess.Popen) -> None:
    _signal_group(proc)
    try:
        proc.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):  # pragma: no cover - a pipe held by a stuck process
        pass
