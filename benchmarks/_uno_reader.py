"""Run by benchmarks/bench_lo_uno.py under an interpreter with python3-uno: read workbooks through UNO.

    python3 _uno_reader.py PROFILE.xcu SOFFICE BOOK.xlsx ...

Starts ``SOFFICE`` headless with a private profile (PROFILE.xcu as its registry), on a pipe; loads each
book hidden (macros never run), recalculates it, reads every sheet's used area (``getDataArray``),
closes it; prints {book: cells with a value} as JSON. The soffice is killed if anything fails.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import uno
from com.sun.star.beans import PropertyValue


def _prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def main(xcu: str, soffice: str, books: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="xlmodel-uno-") as prof:
        user = Path(prof) / "user"
        user.mkdir()
        (user / "registrymodifications.xcu").write_text(Path(xcu).read_text(encoding="utf-8"), encoding="utf-8")
        pipe = f"xlmodel-bench-{os.getpid()}"
        proc = subprocess.Popen([soffice, f"-env:UserInstallation={Path(prof).resolve().as_uri()}", "--headless",
                                 "--norestore", "--nologo", f"--accept=pipe,name={pipe};urp;"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            local = uno.getComponentContext()
            resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
            ctx = None
            for _ in range(600):  # up to a minute for soffice to listen
                try:
                    ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                    break
                except Exception:
                    time.sleep(0.1)
            if ctx is None:
                print("soffice did not answer on its pipe", file=sys.stderr)
                return 1
            desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
            out = {}
            for book in books:
                doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(str(Path(book).resolve())), "_blank", 0,
                                                   (_prop("Hidden", True), _prop("MacroExecutionMode", 0)))
                doc.calculateAll()
                n = 0
                for sheet in doc.Sheets:
                    cursor = sheet.createCursor()
                    cursor.gotoEndOfUsedArea(False)
                    end = cursor.RangeAddress
                    data = sheet.getCellRangeByPosition(0, 0, end.EndColumn, end.EndRow).getDataArray()
                    n += sum(1 for row in data for v in row if v != "")
                doc.close(True)
                out[Path(book).name] = n
            desktop.terminate()
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
