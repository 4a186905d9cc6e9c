"""`xlmodel check` on one returned workbook and on a folder of them, next to the floor of reading them.

    python benchmarks/bench_check.py [--n 200] [--rounds 3] [--folder DIR]

The folder: ``--n`` workbooks built from the bundled plans' samples and synthetic cases
(xlmodel.synth.parity_cases, the three plans in turn), kept in ``--folder`` if given (built there
once, reused by the next run). The floor: open each workbook's zip and parse every sheet's XML
(xlmodel.engines.parity.sheet_values over all its sheets: ElementTree's C parser, xlmodel.inputs.safexml) — no checks, no
evaluation. What is timed is the command as a user runs it (``xlmodel check … --json``, in this
process, output discarded):

* one workbook, cold: the first of a run, the reference workbook of its plan and timeline (which
  every formula is compared with) composed (``XLMODEL_NO_CACHE=1``), then read from the user cache
  an earlier run left (xlmodel/workbook/reference_cache.py);
* one workbook, warm: the same again (that reference is kept in the process);
* the folder (every workbook checked and reported, then the summary), from cold, the cache empty;
* the folder as a process (`xlmodel check FOLDER --json`, start-up included), once, the cache empty;
* one workbook as a process (`xlmodel check ONE --json`: start-up, imports, its reference read from
  the cache; then with ``XLMODEL_NO_CACHE=1``, its reference composed), next to a process that only
  unzips it and parses every sheet's XML with ElementTree's C parser (no xlmodel import), and to one
  that only imports what check stands on (PyYAML, numpy, openpyxl, pydantic, the plan's models:
  the least any such process pays), in turn, ``max(rounds, 5)`` rounds, the median of the ratios to
  the floor process pair by pair.

The user cache is a folder of the run's own (``XLMODEL_CONFIG_HOME``). xlmodel's modules are compiled
first (``compileall``), as installing a package does: where ``PYTHONDONTWRITEBYTECODE`` is set, every
process would otherwise compile them from source again.
Each figure is the best of ``--rounds`` rounds, the floor measured in every round beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xlmodel.case import load_case  # noqa: E402
from xlmodel.cli import main as xlmodel_main  # noqa: E402
from xlmodel.synth import parity_cases  # noqa: E402
from xlmodel.workbook import checked_sheet, reader  # noqa: E402
from xlmodel.engines.parity import _sheet_parts, sheet_values  # noqa: E402
from xlmodel.workbook.writer import build_workbook  # noqa: E402

POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")


def build_folder(folder: Path, n: int) -> list[Path]:
    """``n`` workbooks in ``folder`` (built unless there already): the samples, then synthetic cases."""
    have = sorted(folder.glob("*.xlsx"))
    if len(have) >= n:
        return have[:n]
    folder.mkdir(parents=True, exist_ok=True)
    cases = [load_case(ROOT / "samples" / f"{p}.yaml") for p in POLICIES]
    per = -(-max(n - len(cases), 0) // len(POLICIES))
    synth = [parity_cases(p, per, seed=7) for p in POLICIES]
    cases += [c for group in zip(*synth) for c in group]
    return [build_workbook(folder / f"wb{i:03d}.xlsx", case=c, force=True) for i, c in enumerate(cases[:n])]


def floor(paths: list[Path]) -> None:
    """Unzip each workbook and parse every sheet's XML (xlmodel.inputs.safexml), nothing else."""
    for p in paths:
        with zipfile.ZipFile(p) as z:
            names = tuple(_sheet_parts(z))
        sheet_values(p, names)


#: the floor of one workbook as a process: unzip, parse every sheet's XML (ElementTree's C parser), nothing of xlmodel
_FLOOR_PROCESS = r"""
import posixpath, sys, zipfile
from xml.etree.ElementTree import iterparse
M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
P = "{http://schemas.openxmlformats.org/package/2006/relationships}"
with zipfile.ZipFile(sys.argv[1]) as z:
    rels = {e.get("Id"): posixpath.normpath("xl/" + e.get("Target"))
            for _, e in iterparse(z.open("xl/_rels/workbook.xml.rels")) if e.tag == P + "Relationship"}
    parts = [rels[e.get(R + "id")] for _, e in iterparse(z.open("xl/workbook.xml")) if e.tag == M + "sheet"]
    shared = [e for _, e in iterparse(z.open("xl/sharedStrings.xml"))] if "xl/sharedStrings.xml" in z.namelist() else []
    cells = {}
    for part in parts:
        for _, e in iterparse(z.open(part)):
            if e.tag == M + "c":
                f, v = e.find(M + "f"), e.find(M + "v")
                cells[(part, e.get("r"))] = (f.text if f is not None else None, v.text if v is not None else None)
                e.clear()
"""


#: what any ``check`` process imports before it reads a byte: the libraries it stands on (PyYAML, numpy,
#: openpyxl — which imports numpy and Pillow itself —, pydantic) and the plan's models built
#: (xlmodel.plans.schema), nothing else
_IMPORTS_PROCESS = "import yaml, numpy, openpyxl, pydantic, xlmodel.plans.schema"


def one_process(path: Path, rounds: int) -> tuple[list[float], list[float], list[float], list[float]]:
    """(check, check composing its reference, floor, imports alone) wall seconds of one workbook as
    fresh processes, in turn, after one warm-up each (the first leaves the reference in the cache)."""
    cmd = [sys.executable, "-c", "import sys; from xlmodel.cli import main; sys.exit(main())", "check", str(path), "--json"]
    floor_cmd = [sys.executable, "-c", _FLOOR_PROCESS, str(path)]
    imports_cmd = [sys.executable, "-c", _IMPORTS_PROCESS]
    composing = {**os.environ, "XLMODEL_NO_CACHE": "1"}

    def run(c, env=None):
        t = time.perf_counter()
        subprocess.run(c, cwd=ROOT, capture_output=True, env=env)
        return time.perf_counter() - t

    run(cmd), run(cmd, composing), run(floor_cmd), run(imports_cmd)
    a, b, c, d = [], [], [], []
    for _ in range(rounds):
        a.append(run(cmd))
        b.append(run(cmd, composing))
        c.append(run(floor_cmd))
        d.append(run(imports_cmd))
    return a, b, c, d


def check(args: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return xlmodel_main(["check", *args, "--json"])


def cold() -> None:
    """Forget the reference workbooks this process built (as a new process starts), and which pieces of
    formulas XlsxWriter's preparation changes (xlmodel.workbook.checked_sheet)."""
    getattr(reader, "_REFERENCES", {}).clear()
    getattr(checked_sheet, "_CHANGES", {}).clear()


@contextlib.contextmanager
def _no_cache():
    """The reference composed, not read from the user cache (xlmodel/workbook/reference_cache.py)."""
    os.environ["XLMODEL_NO_CACHE"] = "1"
    try:
        yield
    finally:
        del os.environ["XLMODEL_NO_CACHE"]


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--folder", type=Path, default=None, help="keep the built workbooks here (reused next time)")
    a = ap.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "xlmodel")], check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XLMODEL_CONFIG_HOME"] = str(Path(tmp) / "config")  # a user cache of this run's own
        folder = a.folder or Path(tmp) / "books"
        t = time.perf_counter()
        paths = build_folder(folder, a.n)
        if len(list(folder.glob("*.xlsx"))) > len(paths):  # a kept folder of more: check the first n alone
            folder = Path(tmp) / "first"
            folder.mkdir()
            paths = [Path(shutil.copy2(p, folder / p.name)) for p in paths]
        print(f"{len(paths)} workbooks in {folder.name}/ ({time.perf_counter() - t:.0f} s to have them); "
              f"load average {os.getloadavg()[0]:.2f}")
        one = [str(paths[0])]
        check(one)  # imports, plan loading: what every run pays once (and its reference kept in the cache)
        best = {k: float("inf") for k in ("floor1", "cold1", "kept1", "warm1", "floorN", "folder")}
        codes = set()
        for _ in range(a.rounds):
            best["floor1"] = min(best["floor1"], timed(lambda: floor(paths[:1])))
            cold()
            with _no_cache():
                best["cold1"] = min(best["cold1"], timed(lambda: codes.add(check(one))))
            cold()
            best["kept1"] = min(best["kept1"], timed(lambda: codes.add(check(one))))
            best["warm1"] = min(best["warm1"], timed(lambda: check(one)))
            best["floorN"] = min(best["floorN"], timed(lambda: floor(paths)))
            cold()
            with _no_cache():
                best["folder"] = min(best["folder"], timed(lambda: codes.add(check([str(folder)]))))
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", "import sys; from xlmodel.cli import main; sys.exit(main())",
                               "check", str(folder), "--json"], cwd=ROOT,
                              capture_output=True, env={**os.environ, "XLMODEL_NO_CACHE": "1"})
        t_proc = time.perf_counter() - t
        n = len(paths)
        f1, fN = best["floor1"], best["floorN"]
        print(f"floor, 1 workbook:              {f1 * 1e3:8.1f} ms  (unzip + parse every sheet's XML)")
        print(f"check 1 workbook, cold:         {best['cold1'] * 1e3:8.1f} ms  {best['cold1'] / f1:6.1f}× the floor "
              "(its reference composed)")
        print(f"check 1 workbook, cold, cached: {best['kept1'] * 1e3:8.1f} ms  {best['kept1'] / f1:6.1f}× the floor "
              "(its reference read from the user cache)")
        print(f"check 1 workbook, warm:         {best['warm1'] * 1e3:8.1f} ms  {best['warm1'] / f1:6.1f}× the floor")
        print(f"floor, {n} workbooks:          {fN:8.2f} s   ({fN / n * 1e3:.1f} ms each)")
        print(f"check folder of {n}:           {best['folder']:8.2f} s   ({best['folder'] / n * 1e3:.1f} ms each)  "
              f"{best['folder'] / fN:6.1f}× the floor")
        print(f"xlmodel check folder (process): {t_proc:8.2f} s   (start-up included; exit {proc.returncode})  "
              f"{t_proc / fN:6.1f}× the floor")
        pa, pc, pb, pi = one_process(paths[0], max(a.rounds, 5))
        for what, times in (("as a process:", pa), ("composing:   ", pc), ("imports only:", pi)):
            ratios = [x / y for x, y in zip(times, pb)]
            print(f"check 1 workbook, {what} {statistics.median(times) * 1e3:8.1f} ms  (median; floor process "
                  f"{statistics.median(pb) * 1e3:.1f} ms)  {statistics.median(ratios):6.1f}× the floor "
                  f"(pair by pair, {min(ratios):.1f}–{max(ratios):.1f}×)")
        print(f"exit codes in process: {sorted(codes)}; best of {a.rounds} rounds; "
              f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
