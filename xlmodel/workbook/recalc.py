"""Recalculate workbooks in real spreadsheet engines (the parity oracles, and ``xlmodel recalc``).

LibreOffice: a private profile forces recalculation of every formula on load
(OOXMLRecalcMode = 0, "always"), never runs a document's macros (the highest macro
security, macros disabled) and never updates links to other files, then each file is
converted xlsx -> xlsx, so the output's cached values are LibreOffice's own. Many files
go through one ``soffice`` process (:data:`PER_LAUNCH` at a time).

The parity tests read LibreOffice's values in its memory instead (:func:`read_libreoffice`): the
same profile, one ``soffice`` driven through UNO by :mod:`._uno_driver` (under a Python that imports
``uno``, :func:`uno_python`), each file loaded, recalculated and read, no file written; a test
proves it equal to the .xlsx export, cell by cell and type by type.

Gnumeric, a second engine with its own formula code: ``ssconvert --recalc``
recalculates each file before writing it back as xlsx.

Every engine process runs in a process group of its own and is killed, with everything it
started, when it outlives its time (:func:`run_bounded`): a workbook that makes an engine
hang costs a clear message, never a stuck command.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import XlmodelError

_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>1</value></prop></item>
</oor:items>
"""


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
    :func:`xlmodel.workbook.parity.engine_values`)."""
    exe = ssconvert()
    outdir = _ready(exe, "Gnumeric (ssconvert) not found; install gnumeric", outdir)
    out = []
    for p in paths:
        o = outdir / Path(p).with_suffix(suffix).name
        o.unlink(missing_ok=True)
        proc = run_bounded([exe, "--recalc", str(p), str(o)], timeout, "Gnumeric", env={**os.environ, "HOME": str(outdir)})
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


def profile(folder: str | Path) -> Path:
    """``folder`` made a private LibreOffice profile (:data:`_XCU`: every formula recalculated on load,
    macros never run, links never updated); returned for ``-env:UserInstallation``."""
    user = Path(folder) / "user"
    user.mkdir(exist_ok=True)
    (user / "registrymodifications.xcu").write_text(_XCU, encoding="utf-8")
    return Path(folder)


def _run(exe: str, paths: list[Path], outdir: Path, timeout: float,
         target: str = "xlsx:Calc MS Excel 2007 XML") -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="xlmodel-lo-") as prof:
        cmd = [exe, f"-env:UserInstallation={profile(prof).resolve().as_uri()}", "--headless", "--norestore",
               "--nologo", "--convert-to", target, "--outdir", str(outdir), *map(str, paths)]
        return run_bounded(cmd, timeout, "LibreOffice")


# ---- LibreOffice's values in its memory (UNO) ---------------------------------------------------

#: where an interpreter that imports ``uno`` is found, besides ``XLMODEL_UNO_PYTHON`` and this one:
#: Debian's python3-uno, then the Python LibreOffice bundles (Windows, macOS)
UNO_PYTHONS = ("/usr/bin/python3", r"C:\Program Files\LibreOffice\program\python.exe",
               "/Applications/LibreOffice.app/Contents/Resources/python")

#: LibreOffice's error codes (formula/errorcodes.hxx) as its .xlsx export names them
#: (XclTools::GetXclErrorCode): every other code is written #N/A
LO_ERRORS = {502: "#VALUE!", 503: "#NUM!", 504: "#VALUE!", 508: "#VALUE!", 509: "#VALUE!", 510: "#VALUE!",
             511: "#VALUE!", 519: "#VALUE!", 521: "#NULL!", 522: "#VALUE!", 524: "#REF!", 525: "#NAME?",
             530: "#NAME?", 531: "#NAME?", 532: "#DIV/0!", 32767: "#N/A"}


@functools.lru_cache(maxsize=None)
def uno_python() -> str | None:
    """An interpreter that imports LibreOffice's ``uno`` (:mod:`._uno_driver` runs in it), or None."""
    import sys

    env = os.environ.get("XLMODEL_UNO_PYTHON")
    for exe in ([env] if env else []) + [sys.executable, *UNO_PYTHONS]:
        if exe and os.path.exists(exe):
            try:
                ok = subprocess.run([exe, "-c", "import uno"], stdin=subprocess.DEVNULL, capture_output=True,
                                    timeout=60).returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
            if ok:
                return exe
    return None


#: files one LibreOffice launch reads in its memory (the parity set's 100 far-east workbooks: 0.63–0.64 s a
#: workbook in launches of 50, 0.69–0.76 s in launches of 25, 0.61–0.71 s in one launch; start-up included)
PER_READ = 50


def read_libreoffice(paths: list[Path], sheets: tuple[str, ...], timeout: float | None = None) -> dict[Path, dict]:
    """Every workbook recalculated in LibreOffice and read in its memory, no file written:
    {path: {(sheet, "E7"): value}} for every cell with a value on ``sheets``, typed as
    :func:`xlmodel.workbook.parity.sheet_values` reads LibreOffice's .xlsx export of it (a number
    as float, a boolean as bool, a text as str, an error as the export's name for it; an empty text
    is no value). The same profile as :func:`recalculate`, in launches of :data:`PER_READ` files;
    needs :func:`uno_python`. ``timeout`` bounds each launch (:func:`launch_bound` by default)."""
    paths, out = list(paths), {}
    for i in range(0, len(paths), PER_READ):
        out.update(_read_launch(paths[i:i + PER_READ], tuple(sheets), timeout))
    return out


def _read_launch(paths: list[Path], sheets: tuple[str, ...], timeout: float | None) -> dict[Path, dict]:
    exe, py = soffice(), uno_python()
    if exe is None:
        raise XlmodelError("LibreOffice (soffice) not found; install libreoffice-calc-nogui")
    if py is None:
        raise XlmodelError("找不到能导入 LibreOffice uno 的 Python，请安装 python3-uno — no Python that imports LibreOffice's uno; "
                           "install python3-uno (or set XLMODEL_UNO_PYTHON)")
    timeout = launch_bound(len(paths)) if timeout is None else timeout
    got: dict[str, dict] = {}
    for _attempt in range(2):  # a soffice start-up can fail under load: one more try for what is missing
        todo = [str(p) for p in paths if str(p) not in got]
        if not todo:
            break
        with tempfile.TemporaryDirectory(prefix="xlmodel-lo-") as prof:
            cmd = [py, str(Path(__file__).with_name("_uno_driver.py")), exe, str(profile(prof))]
            proc = run_bounded(cmd, timeout, "LibreOffice", stdin_text=json.dumps({"books": todo, "sheets": sheets}))
        for line in proc.stdout.splitlines():
            answer = json.loads(line)
            if "error" in answer:
                raise XlmodelError(f"LibreOffice 运行失败 LibreOffice failed on {answer['book']}: {answer['error']}")
            got[answer["book"]] = answer["sheets"]
    missing = [str(p) for p in paths if str(p) not in got]
    if missing:
        raise XlmodelError(f"LibreOffice 运行失败 LibreOffice failed ({proc.returncode}): {proc.stderr.strip()[-500:]}; "
                           f"not read: {', '.join(missing[:3])}")
    return {p: _typed(got[str(p)]) for p in paths}


def _typed(answer: dict) -> dict[tuple[str, str], object]:
    """One book's answer from :mod:`._uno_driver` as {(sheet, "E7"): value}."""
    from xlsxwriter.utility import xl_col_to_name

    out: dict[tuple[str, str], object] = {}
    for name, sheet in answer.items():
        if sheet is None:
            continue
        errors = {(r, c): code for r, c, code in sheet["errors"]}
        logical = {(r, c) for r, c in sheet["logical"]}
        for r, row in enumerate(sheet["rows"]):
            for c, v in enumerate(row):
                if (r, c) in errors:
                    value = LO_ERRORS.get(errors[(r, c)], "#N/A")
                elif v is None or v == "":
                    continue
                elif isinstance(v, str):
                    value = v
                else:
                    value = (v != 0) if (r, c) in logical else float(v)
                out[(name, f"{xl_col_to_name(c)}{r + 1}")] = value
    return out


class EngineTimeout(XlmodelError):
    """A spreadsheet engine did not finish in its time and was stopped."""


def run_bounded(cmd: list[str], timeout: float, engine: str, env: dict | None = None,
                stdin_text: str | None = None) -> subprocess.CompletedProcess:
    """Run an engine's command in a process group of its own; after ``timeout`` seconds kill the
    group (the engine and whatever it started: soffice starts soffice.bin) and raise
    :class:`EngineTimeout`. Input is ``stdin_text`` (else closed), output captured."""
    kw: dict = {"start_new_session": True} if os.name == "posix" else {
        "creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL if stdin_text is None else subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", env=env, **kw)
    try:
        out, err = proc.communicate(stdin_text, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise EngineTimeout(f"{engine} 在 {timeout:g} 秒内未完成，已终止（未写入任何文件）— {engine} did not finish "
                            f"within {timeout:g} s and was stopped, nothing was written (an engine waiting on a "
                            "dialog, or a workbook it cannot finish; pass a longer --timeout if the machine is busy)") from None
    except BaseException:  # Ctrl-C, SIGTERM: the engine goes too
        _kill_group(proc)
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _kill_group(proc: subprocess.Popen) -> None:
    import signal

    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows: the process tree
            subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        proc.kill()
    try:
        proc.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):  # pragma: no cover - a pipe held by a stuck process
        pass
