"""Recalculate workbooks in real spreadsheet engines (the parity oracles).

LibreOffice: a private profile forces recalculation of every formula on load
(OOXMLRecalcMode = 0, "always"), then each file is converted xlsx -> xlsx, so
the output's cached values are LibreOffice's own. Many files go through one
``soffice`` process.

Gnumeric, a second engine with its own formula code: ``ssconvert --recalc``
recalculates each file before writing it back as xlsx.
"""

from __future__ import annotations

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
</oor:items>
"""


def soffice() -> str | None:
    for name in ("soffice", "libreoffice"):
        path = shutil.which(name)
        if path:
            return path
    for path in ("/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice", "/opt/libreoffice/program/soffice"):
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


def recalculate_gnumeric(paths: list[Path], outdir: Path, timeout: float = 120) -> list[Path]:
    """Recalculate ``paths`` in Gnumeric (one ``ssconvert --recalc`` per file); return the copies in ``outdir``."""
    exe = ssconvert()
    outdir = _ready(exe, "Gnumeric (ssconvert) not found; install gnumeric", outdir)
    out = []
    for p in paths:
        o = outdir / Path(p).name
        o.unlink(missing_ok=True)
        proc = subprocess.run([exe, "--recalc", str(p), str(o)], capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "HOME": str(outdir)})
        if not o.exists():
            raise XlmodelError(f"Gnumeric failed on {p} ({proc.returncode}): {proc.stderr.strip()[:500]}")
        out.append(o)
    return out


def recalculate(paths: list[Path], outdir: Path, timeout: float = 900) -> list[Path]:
    """Recalculate ``paths`` in LibreOffice; return the recalculated copies in ``outdir``."""
    exe = soffice()
    outdir = _ready(exe, "LibreOffice (soffice) not found; install libreoffice-calc-nogui", outdir)
    out = [outdir / Path(p).name for p in paths]
    for o in out:  # never mistake an earlier run's file for this one's
        o.unlink(missing_ok=True)
    proc = _run(exe, paths, outdir, timeout)
    missing = [p for p, o in zip(paths, out) if not o.exists()]
    if missing:  # a soffice start-up can fail under load: one more try for what is missing
        proc = _run(exe, missing, outdir, timeout)
        missing = [p for p, o in zip(paths, out) if not o.exists()]
    if missing:
        raise XlmodelError(f"LibreOffice failed ({proc.returncode}): {proc.stderr.strip()[:500]}; "
                           f"not converted: {', '.join(str(p) for p in missing[:3])}")
    return out


def _run(exe: str, paths: list[Path], outdir: Path, timeout: float) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="xlmodel-lo-") as prof:
        user = Path(prof) / "user"
        user.mkdir()
        (user / "registrymodifications.xcu").write_text(_XCU, encoding="utf-8")
        cmd = [exe, f"-env:UserInstallation=file://{prof}", "--headless", "--norestore", "--nologo",
               "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(outdir), *map(str, paths)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
