"""The spreadsheet engines xlmodel drives — one small adapter each, everything else shared.

An adapter knows whether its engine is here (:meth:`present`), what it is called with its version
(:meth:`label`), and how to recalculate workbooks in it (:meth:`recalculate`: a list of files in,
the engine's own saves of them out, in the same order, under ``outdir``). Nothing else is engine
specific: which workbook may be handed to an engine, reading the result, comparing it with the
evaluator (:mod:`.drive`, :mod:`.parity`, :mod:`xlmodel.engines.selftest`) are the same for all three.

* **Excel** (Windows, macOS) through xlwings: ``App(visible=False, add_book=False)``, alerts, screen
  updating and events off, macros force-disabled (Windows: ``AutomationSecurity``); per workbook:
  open read-only without updating links, a full calculation (``CalculateFull``), save as .xlsx,
  close; then quit. One Excel for all the workbooks. A watchdog kills that Excel when it outlives
  its time, and the message names the step it hung in. Excel cannot run in CI: this adapter is
  exercised there against a fake xlwings (tests/test_drive.py), never a real Excel.
* **LibreOffice** headless (:func:`.recalc.recalculate`): many files per ``soffice`` launch, a few
  launches side by side (one profile each).
* **Gnumeric** ``ssconvert --recalc`` (:func:`.recalc.recalculate_gnumeric`): one process per file,
  a few side by side.

The default engine is the first one present in :data:`ORDER`.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import XlmodelError
from .recalc import EngineTimeout, recalculate, recalculate_gnumeric, run_bounded, soffice, ssconvert

ORDER = ("excel", "libreoffice", "gnumeric")
#: seconds an engine has to start, on top of its time per workbook
STARTUP = 60.0
#: engine processes side by side (LibreOffice and Gnumeric), at most
MAX_PARALLEL = 4


def _parallel(n: int, parallel: int | None) -> int:
    return max(1, min(n, parallel or min(os.cpu_count() or 1, MAX_PARALLEL)))


def _unique_names(paths: list[Path]) -> None:
    names = [Path(p).name for p in paths]
    if len(set(names)) != len(names):  # every engine writes its output under the input's name
        raise ValueError("the workbooks to recalculate must have distinct file names")


def _in_chunks(run, paths: list[Path], outdir: Path, timeout: float, parallel: int | None) -> list[Path]:
    """``run(chunk, outdir, bound)`` on ``parallel`` chunks side by side; the outputs in input order."""
    _unique_names(paths)
    k = _parallel(len(paths), parallel)
    chunks = [paths[i::k] for i in range(k)]
    with ThreadPoolExecutor(k) as pool:
        outs = list(pool.map(lambda ps: run(ps, outdir, STARTUP + timeout * len(ps)), chunks))
    by_name = {o.name: o for chunk in outs for o in chunk}
    return [by_name[Path(p).name] for p in paths]


def _version_line(cmd: list[str], pattern: str, fallback: str) -> str:
    try:
        proc = run_bounded(cmd, 60, fallback)
    except (OSError, XlmodelError):
        return fallback
    m = re.search(pattern, proc.stdout or "")
    return m.group(0) if m else fallback


class _Headless:
    """An engine run as a command (LibreOffice, Gnumeric): ``exe()`` finds it, ``run(paths, outdir,
    timeout)`` is one launch of the recalc module."""

    name = title = missing = ""

    def present(self) -> bool:
        return self.exe() is not None

    def label(self) -> str:
        exe = self.exe()
        v = _version_line([exe, "--version"], r"[0-9]+(?:\.[0-9]+)+", "") if exe else ""
        return f"{self.title} {v}".strip()

    def recalculate(self, paths: list[Path], outdir: Path, timeout: float, parallel: int | None = None) -> list[Path]:
        """A few launches side by side, each with its share of the files."""
        return _in_chunks(self.run, list(paths), Path(outdir), timeout, parallel)


class LibreOffice(_Headless):
    name, title = "libreoffice", "LibreOffice"
    missing = ("未找到 LibreOffice（soffice）LibreOffice (soffice) not found: install it from libreoffice.org "
               "(Debian/Ubuntu: apt-get install libreoffice-calc-nogui)")

    @staticmethod
    def exe():
        return soffice()

    @staticmethod
    def run(paths, outdir, bound):
        return recalculate(paths, outdir, timeout=bound)  # a soffice, its own profile, for every PER_LAUNCH files


class Gnumeric(_Headless):
    name, title = "gnumeric", "Gnumeric"
    missing = ("未找到 Gnumeric（ssconvert）Gnumeric (ssconvert) not found: install it "
               "(Debian/Ubuntu: apt-get install gnumeric)")

    @staticmethod
    def exe():
        return ssconvert()

    @staticmethod
    def run(paths, outdir, bound):
        # one ssconvert per file: each has the start-up allowance and its own time
        return recalculate_gnumeric(paths, outdir, timeout=STARTUP + (bound - STARTUP) / max(1, len(paths)))


#: Excel's "force-disable macros in files opened by automation" (MsoAutomationSecurity)
MSO_AUTOMATION_SECURITY_FORCE_DISABLE = 3


class Excel:
    """Microsoft Excel through xlwings. ``xlwings`` and ``platform`` are for tests (a fake xlwings)."""

    name, title = "excel", "Microsoft Excel"
    missing = ("未找到 Excel（需要 Windows 或 macOS 上的 Microsoft Excel 与 xlwings）Excel not found: it needs "
               "Microsoft Excel on Windows or macOS, and xlwings (installed with xlmodel)")

    def __init__(self, xlwings=None, platform: str | None = None):
        self._xw, self.platform = xlwings, platform or sys.platform
        self.version = ""  # Excel's version, once it has run

    def xlwings(self):
        if self._xw is None:
            import xlwings

            self._xw = xlwings
        return self._xw

    def present(self) -> bool:
        if self._xw is not None:
            return True
        if not _excel_installed(self.platform):
            return False
        try:
            self.xlwings()
        except Exception:  # xlwings without its Windows/macOS parts (pywin32, appscript)
            return False
        return True

    def label(self) -> str:
        return f"{self.title} {self.version}".strip()

    def recalculate(self, paths: list[Path], outdir: Path, timeout: float, parallel: int | None = None) -> list[Path]:
        """One Excel for every workbook; killed, with a message naming the step, when it outlives
        ``STARTUP + timeout × workbooks`` seconds."""
        paths = [Path(p) for p in paths]
        _unique_names(paths)
        outdir = Path(outdir)
        outdir.mkdir(parents=True, exist_ok=True)
        run = _ExcelRun(self, paths, outdir)
        worker = threading.Thread(target=run.work, name="xlmodel-excel", daemon=True)
        worker.start()
        bound = STARTUP + timeout * len(paths)
        worker.join(bound)
        if worker.is_alive():
            step = run.step  # where it hung (killing it moves the thread on)
            run.kill()
            worker.join(10)
            raise EngineTimeout(f"Excel 在 {bound:g} 秒内未完成（{step}），已终止（未写入任何文件）— Excel did not finish "
                                f"within {bound:g} s ({step}) and was stopped, nothing was written (Excel waiting on "
                                "a dialog, or a workbook it cannot finish; pass a longer --timeout if the machine is busy)")
        if run.error is not None:
            e = run.error
            raise XlmodelError(f"Excel 未能完成（{run.step}）Excel failed ({run.step}): {type(e).__name__}: "
                               f"{str(e)[:300]}") from None
        return run.done


class _ExcelRun:
    """One Excel session in a thread of its own (COM objects live in the thread that made them)."""

    def __init__(self, excel: Excel, paths: list[Path], outdir: Path):
        self.excel, self.paths, self.outdir = excel, paths, outdir
        self.app = None
        self.pid = None
        self.step = "starting Excel (xlwings.App)"
        self.done: list[Path] = []
        self.error: BaseException | None = None
        self.killed = False

    def work(self) -> None:
        com = _com_init(self.excel.platform)
        try:
            xw = self.excel.xlwings()
            app = xw.App(visible=False, add_book=False)
            self.app, self.pid = app, getattr(app, "pid", None)
            self.excel.version = str(getattr(app, "version", "") or "")
            app.display_alerts = False
            app.screen_updating = False
            app.enable_events = False  # no workbook or sheet events
            if self.excel.platform == "win32":
                app.api.AutomationSecurity = MSO_AUTOMATION_SECURITY_FORCE_DISABLE  # no macros, whatever the file
            for path in self.paths:
                self.step = f"opening {path.name}"
                book = app.books.open(str(path.resolve()), update_links=False, read_only=True,
                                      ignore_read_only_recommended=True, notify=False, add_to_mru=False)
                try:
                    self.step = f"calculating {path.name}"
                    _calculate_full(app, self.excel.platform)
                    self.step = f"saving {path.name}"
                    out = self.outdir / path.name
                    book.save(str(out.resolve()))
                finally:
                    book.close()  # (the step said stays the one that failed, if one did)
                self.done.append(out)
            self.step = "quitting Excel"
            app.quit()
            self.app = None
        except BaseException as e:  # reported by the waiting thread
            if not self.killed:
                self.error = e
        finally:
            if self.app is not None and not self.killed:  # a failure half-way: no Excel left behind
                try:
                    self.app.quit()  # (if it hangs, the waiting thread kills it)
                except Exception:
                    self.kill()
            _com_done(com)

    def kill(self) -> None:
        self.killed = True
        app = self.app
        if app is None:
            return
        try:
            app.kill()
        except Exception:
            if self.pid:
                try:
                    os.kill(self.pid, 9)
                except OSError:
                    pass


def _calculate_full(app, platform: str) -> None:
    """Excel's full calculation of every open workbook (every formula, dirty or not)."""
    api = app.api
    full = getattr(api, "CalculateFull", None) if platform == "win32" else getattr(api, "calculate_full", None)
    if full is None:
        app.calculate()
    else:
        full()


def _com_init(platform: str):
    if platform != "win32" or sys.platform != "win32":
        return None
    import pythoncom  # pragma: no cover - Windows (pywin32, an xlwings dependency there)

    pythoncom.CoInitialize()
    return pythoncom


def _com_done(com) -> None:
    if com is not None:  # pragma: no cover - Windows
        com.CoUninitialize()


def _excel_installed(platform: str) -> bool:
    if platform == "win32" and sys.platform == "win32":  # pragma: no cover - Windows
        import winreg

        try:
            winreg.CloseKey(winreg.OpenKey(winreg.HKEY_CLASSES_ROOT, r"Excel.Application\CLSID"))
            return True
        except OSError:
            return False
    if platform == "darwin":
        return any(Path(p).expanduser().is_dir() for p in ("/Applications/Microsoft Excel.app",
                                                             "~/Applications/Microsoft Excel.app"))
    return False


def adapters() -> dict:
    return {"excel": Excel(), "libreoffice": LibreOffice(), "gnumeric": Gnumeric()}


def engine(name: str | None = None):
    """The adapter of ``name``, or the first engine present (Excel, LibreOffice, Gnumeric); a clear
    error when it is not here."""
    found = adapters()
    if name is not None:
        if name not in found:
            raise XlmodelError(f"--engine: 未知的引擎 expected one of {', '.join(ORDER)}, got {name!r}")
        if not found[name].present():
            raise XlmodelError(found[name].missing)
        return found[name]
    for key in ORDER:
        if found[key].present():
            return found[key]
    raise XlmodelError("未找到电子表格引擎 No spreadsheet engine found: install LibreOffice (libreoffice.org) or "
                       "Gnumeric, or use Microsoft Excel on Windows or macOS")
