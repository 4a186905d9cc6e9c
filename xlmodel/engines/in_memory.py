"""Both engines' values of workbooks, read in their memory: no recalculated copy written or parsed.

Each engine is driven by a small program of its own, run by a Python that has the engine's
bindings (not xlmodel's, which never imports them), for up to :data:`PER_READ` files a launch,
inside :func:`xlmodel.engines.recalc.run_bounded`: a hang kills the driver and the engine together.
Each driver prints one JSON line a book; a launch that ends early is tried once more for the books
it left unread; a book the engine cannot open stops the reading with an error that names it.

* LibreOffice (:mod:`._uno_driver`, a Python macro run inside ``soffice`` by its Python script
  provider, Debian's ``libreoffice-script-provider-python``): the private profile of
  :func:`xlmodel.engines.recalc.recalculate` (every formula recalculated on load, document macros
  never run, links never updated) with that one macro of its own; the macro loads each file hidden,
  ``calculateAll``, reads each sheet's used area, and writes its answers to a file.
* Gnumeric (:mod:`._gnm_driver`, ``python3-gi`` and ``gir1.2-gnumeric``): Gnumeric's own library
  in the driver's process: open each file with its .xlsx reader, recalculate every formula (what
  ``ssconvert --recalc`` does), read each sheet's cells.

Both give {(sheet, "E7"): value} typed as :func:`xlmodel.engines.parity.sheet_values` reads the
engine's own copy (a number as float, a boolean as bool, a text as str, an error as the copy
names it; an empty text is no value): tests/test_parity_engines.py proves each reading equal to the
engine's copies, cell by cell and type by type.
"""

from __future__ import annotations

import functools
import json
import math
import os
import subprocess
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Callable

from ..errors import XlmodelError
from .recalc import launch_bound, profile, run_bounded, soffice

#: files one launch reads (LibreOffice, the parity set's 100 far-east workbooks: 0.63–0.64 s a workbook
#: in launches of 50, 0.69–0.76 s in launches of 25, 0.61–0.71 s in one launch; start-up included)
PER_READ = 50

#: where an interpreter with Gnumeric's bindings is found, besides its environment variable and this
#: interpreter: Debian's (python3-gi)
GNUMERIC_PYTHONS = ("/usr/bin/python3",)

#: LibreOffice's error codes (formula/errorcodes.hxx) as its .xlsx export names them
#: (XclTools::GetXclErrorCode): every other code is written #N/A
LO_ERRORS = {502: "#VALUE!", 503: "#NUM!", 504: "#VALUE!", 508: "#VALUE!", 509: "#VALUE!", 510: "#VALUE!",
             511: "#VALUE!", 519: "#VALUE!", 521: "#NULL!", 522: "#VALUE!", 524: "#REF!", 525: "#NAME?",
             530: "#NAME?", 531: "#NAME?", 532: "#DIV/0!", 32767: "#N/A"}

#: the errors Gnumeric's .xls export writes by name (Excel's seven); any other is written #N/A
GNUMERIC_ERRORS = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"})


def _python_with(env: str, check: str, places: tuple[str, ...]) -> str | None:
    """The first interpreter of ``$env``, this one and ``places`` that runs ``check`` without error."""
    import sys

    chosen = os.environ.get(env)
    for exe in ([chosen] if chosen else []) + [sys.executable, *places]:
        if exe and os.path.exists(exe):
            try:
                ok = subprocess.run([exe, "-c", check], stdin=subprocess.DEVNULL, capture_output=True,
                                    timeout=60).returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
            if ok:
                return exe
    return None


#: where LibreOffice's Python script provider lies, from the folder of the ``soffice`` it belongs to
#: (Linux and Windows: program/; macOS: MacOS/ beside Resources/)
SCRIPT_PROVIDER = ("pythonscript.py", "../Resources/pythonscript.py")


@functools.lru_cache(maxsize=None)
def uno_in_office() -> bool:
    """LibreOffice is installed with its Python script provider, which runs :mod:`._uno_driver`."""
    exe = soffice()
    if exe is None:
        return False
    program = Path(os.path.realpath(exe)).parent
    return any((program / place).is_file() for place in SCRIPT_PROVIDER)


@functools.lru_cache(maxsize=None)
def gnumeric_python() -> str | None:
    """An interpreter with Gnumeric's introspection bindings (:mod:`._gnm_driver` runs in it), or None."""
    return _python_with("XLMODEL_GNUMERIC_PYTHON", "import gi; gi.require_version('Gnm', '1.12'); "
                        "from gi.repository import Gnm", GNUMERIC_PYTHONS)


def read_libreoffice(paths: list[Path], sheets: tuple[str, ...], timeout: float | None = None) -> dict[Path, dict]:
    """Every workbook recalculated in LibreOffice and read in its memory (module docstring), typed as
    its .xlsx export is read. Needs :func:`uno_in_office`; ``timeout`` bounds each launch
    (:func:`xlmodel.engines.recalc.launch_bound` by default)."""
    exe = soffice()
    if exe is None:
        raise XlmodelError("LibreOffice (soffice) not found; install libreoffice-calc-nogui")
    if not uno_in_office():
        raise XlmodelError("LibreOffice 缺少 Python 脚本支持，请安装 libreoffice-script-provider-python — LibreOffice has no "
                           "Python script provider; install libreoffice-script-provider-python")
    macro = Path(__file__).with_name("_uno_driver.py")

    def command(folder: str, request: Path, answers: Path) -> tuple[list[str], dict]:
        home = profile(Path(folder) / "profile", macro)
        return ([exe, f"-env:UserInstallation={home.resolve().as_uri()}", "--headless", "--invisible", "--norestore",
                 "--nologo", "--nolockcheck", f"vnd.sun.star.script:{macro.name}$read_books?language=Python&location=user"],
                {**os.environ, "XLMODEL_UNO_REQUEST": str(request), "XLMODEL_UNO_ANSWERS": str(answers)})

    return _read("LibreOffice", command, paths, sheets, timeout, _lo_typed)


def read_gnumeric(paths: list[Path], sheets: tuple[str, ...], timeout: float | None = None) -> dict[Path, dict]:
    """Every workbook recalculated in Gnumeric and read in its memory (module docstring), typed as its
    .xls copy is read (:func:`xlmodel.engines.parity.xls_values`). Needs :func:`gnumeric_python`;
    ``timeout`` bounds each launch."""
    py = gnumeric_python()
    if py is None:
        raise XlmodelError("找不到带 Gnumeric 绑定的 Python，请安装 python3-gi 与 gir1.2-gnumeric — no Python with "
                           "Gnumeric's bindings; install python3-gi and gir1.2-gnumeric (or set XLMODEL_GNUMERIC_PYTHON)")

    def command(folder: str, request: Path, answers: Path) -> tuple[list[str], dict]:  # Gnumeric keeps its settings under $HOME
        return ([py, str(Path(__file__).with_name("_gnm_driver.py")), str(request), str(answers)],
                {**os.environ, "HOME": folder})

    return _read("Gnumeric", command, paths, sheets, timeout, _gnm_typed)


def _read(engine: str, command: Callable[[str], tuple[list[str], dict | None]], paths: list[Path],
          sheets: tuple[str, ...], timeout: float | None, typed: Callable[[dict], dict]) -> dict[Path, dict]:
    paths, out = list(paths), {}
    for i in range(0, len(paths), PER_READ):
        got = _read_launch(engine, command, paths[i:i + PER_READ], tuple(sheets), timeout)
        out.update((p, typed(got[str(p)])) for p in paths[i:i + PER_READ])
    return out


def _read_launch(engine: str, command, paths: list[Path], sheets: tuple[str, ...], timeout: float | None) -> dict:
    """{book: its sheets as the driver wrote them}, every book of ``paths`` answered."""
    timeout = launch_bound(len(paths)) if timeout is None else timeout
    got: dict[str, dict] = {}
    for _attempt in range(2):  # an engine's start-up can fail under load: one more try for what is missing
        todo = [str(p) for p in paths if str(p) not in got]
        if not todo:
            break
        with tempfile.TemporaryDirectory(prefix="xlmodel-read-") as folder:
            request, answers = Path(folder) / "request.json", Path(folder) / "answers.jsonl"
            request.write_text(json.dumps({"books": todo, "sheets": sheets}), encoding="utf-8")
            cmd, env = command(folder, request, answers)
            proc = run_bounded(cmd, timeout, engine, env=env)
            lines = answers.read_text(encoding="utf-8").split("\n")[:-1] if answers.exists() else []
        for line in lines:  # every line the driver ended (one it was writing when it stopped is left out)
            answer = json.loads(line)
            if "error" in answer:
                raise XlmodelError(f"{engine} 运行失败 {engine} failed on {answer['book']}: {answer['error']}")
            got[answer["book"]] = answer["sheets"]
    missing = [str(p) for p in paths if str(p) not in got]
    if missing:
        raise XlmodelError(f"{engine} 运行失败 {engine} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}; "
                           f"not read: {', '.join(missing[:3])}")
    return got


@functools.lru_cache(maxsize=None)
def _column(c: int) -> str:
    from xlsxwriter.utility import xl_col_to_name

    return xl_col_to_name(c)


def _address(r: int, c: int) -> str:
    return f"{_column(c)}{r + 1}"


def _lo_typed(answer: dict) -> dict[tuple[str, str], object]:
    """One book's answer from :mod:`._uno_driver` as {(sheet, "E7"): value}."""
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
                out[(name, _address(r, c))] = value
    return out


def _gnm_typed(answer: dict) -> dict[tuple[str, str], object]:
    """One book's answer from :mod:`._gnm_driver` as {(sheet, "E7"): value}."""
    out: dict[tuple[str, str], object] = {}
    for name, cells in answer.items():
        for cell, kind, text in cells or ():
            if kind == "s" and text == "":
                continue
            value = (gnumeric_number(text) if kind == "n" else text == "TRUE" if kind == "b" else
                     text if kind == "s" or text in GNUMERIC_ERRORS else "#N/A")
            out[(name, cell)] = value
    return out


def gnumeric_number(text: str) -> float:
    """The double Gnumeric's .xls export writes for a number it shows as ``text``.

    Debian's Gnumeric computes in long double (64-bit significand); ``text`` is the shortest decimal
    that gives back its number L, and the export writes L rounded to a double, halves to even. Where
    ``text`` is within an eighth of a double's step of the nearest double, that double is L's
    rounding (L lies within a long double's step of ``text``, far from any half-way point); else L is
    rebuilt exactly and rounded."""
    f = float(text)
    if text.isdigit() and f < 2 ** 53:  # a whole number a double holds exactly
        return f
    if f == 0 or not math.isfinite(f) or abs(Decimal(text) - Decimal(f)) <= Decimal(math.ulp(f)) / 8:
        return f
    exact = Fraction(text)
    size = abs(exact)
    e = size.numerator.bit_length() - size.denominator.bit_length() - 1  # 2**e < size < 2**(e+2)
    if Fraction(2) ** (e + 1) <= size:
        e += 1  # now 2**e <= size < 2**(e+1)
    step = Fraction(2) ** (e - 63)  # a long double's step at L: 64 significant bits
    return float(round(exact / step) * step)  # round(): halves to even, as the engine rounds to long double
