"""What LibreOffice would cost the parity set read through UNO instead of its .xlsx export.

    python benchmarks/bench_lo_uno.py [--n 25] [--plan gcl-energy-2022-2024] [--rounds 2]

A measurement for a faster oracle, not an oracle: ``--n`` synthetic cases of one plan
(xlmodel.synth.parity_cases) are built once, then, round after round in turn:

* as the parity tests run LibreOffice: one launch for the files (xlmodel.workbook.recalc.recalculate:
  every formula recalculated on load, each file saved as .xlsx), start-up included;
* through UNO: one ``soffice`` (the same private profile: recalculation on load, macros off) that a
  second interpreter drives over a pipe (benchmarks/_uno_reader.py: load each file hidden,
  ``calculateAll``, every sheet's used area read with ``getDataArray``, close), start-up included.

It needs Debian's ``python3-uno`` (``/usr/bin/python3`` imports ``uno``; ``--python`` to name another).
It reads values only: the types the parity comparison relies on (booleans, each error value as the
.xlsx export names it) are not mapped here, which an oracle built on it would have to prove equal.
Prints each round, the best of ``--rounds`` for each way, and the ratio round by round (the VM's
speed varies by a third between rounds: compare the ratios).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xlmodel.synth import parity_cases  # noqa: E402
from xlmodel.workbook import recalc  # noqa: E402
from xlmodel.workbook.writer import build_workbook  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=25)
    ap.add_argument("--plan", default="gcl-energy-2022-2024")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--python", default="/usr/bin/python3", help="an interpreter that imports uno (python3-uno)")
    a = ap.parse_args(argv)
    if not recalc.soffice():
        print("LibreOffice is needed (apt-get install libreoffice-calc-nogui)")
        return 2
    if subprocess.run([a.python, "-c", "import uno"], capture_output=True).returncode != 0:
        print(f"{a.python} cannot import uno (apt-get install python3-uno)")
        return 2
    root = Path(tempfile.mkdtemp(prefix="xlmodel-bench-uno-"))
    try:
        books = root / "built"
        books.mkdir()
        cases = parity_cases(a.plan, max(a.n, 300))[:a.n]
        paths = [build_workbook(books / f"{i:03d}.xlsx", case=c) for i, c in enumerate(cases)]
        (root / "profile.xcu").write_text(recalc._XCU, encoding="utf-8")
        best: dict[str, float] = {}
        rounds: dict[str, list[float]] = {}
        cells = None
        for rnd in range(a.rounds):
            keep, recalc.PER_LAUNCH = recalc.PER_LAUNCH, max(len(paths), 1)
            try:
                t = time.perf_counter()
                recalc.recalculate(paths, root / f"xlsx-{rnd}")
                t_xlsx = time.perf_counter() - t
                best["saved as .xlsx (as the tests run it)"] = min(t_xlsx,
                                                                    best.get("saved as .xlsx (as the tests run it)", 1e9))
            finally:
                recalc.PER_LAUNCH = keep
            t = time.perf_counter()
            proc = subprocess.run([a.python, str(ROOT / "benchmarks" / "_uno_reader.py"), str(root / "profile.xcu"),
                                   recalc.soffice(), *map(str, paths)], capture_output=True, text=True, timeout=600)
            took = time.perf_counter() - t
            if proc.returncode != 0:
                print(f"the UNO reader failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
                return 1
            cells = json.loads(proc.stdout)
            best["read through UNO (no export)"] = min(took, best.get("read through UNO (no export)", 1e9))
            rounds.setdefault("xlsx", []).append(t_xlsx)
            rounds.setdefault("uno", []).append(took)
            print(f"round {rnd + 1}: .xlsx {t_xlsx / a.n:.3f}, UNO {took / a.n:.3f} s a workbook "
                  f"(UNO / .xlsx {took / t_xlsx:.2f})", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{a.n} workbooks of {a.plan}, LibreOffice, one launch, seconds per workbook (best of {a.rounds}):")
    for label, t in best.items():
        print(f"  {label:<40} {t / a.n:7.3f}")
    ratios = sorted(u / x for u, x in zip(rounds["uno"], rounds["xlsx"]))
    print(f"  UNO / .xlsx, round by round: median {ratios[len(ratios) // 2]:.2f} ({ratios[0]:.2f}–{ratios[-1]:.2f})")
    print(f"  cells with a value read through UNO: {sum(cells.values())} ({sum(cells.values()) // max(a.n, 1)} a workbook)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
