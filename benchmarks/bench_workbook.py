"""Time to build one workbook and 100 workbooks, next to the XlsxWriter floor and LibreOffice.

    python benchmarks/bench_workbook.py [--n 100]

The floor: the same XlsxWriter calls the build makes, replayed with nothing else (xlsx_floor.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import xlsx_floor  # noqa: E402

from xlmodel.synth import parity_cases  # noqa: E402
from xlmodel.engines.recalc import recalculate, soffice  # noqa: E402
from xlmodel.workbook.writer import build_workbook  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100)
    args = ap.parse_args()
    cases = parity_cases("gcl-energy-2022-2024", args.n, seed=3)
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        build_workbook(d / "warm.xlsx", case=cases[0])
        log = xlsx_floor.prepare(xlsx_floor.record(lambda: build_workbook(d / "rec.xlsx", case=cases[0])))
        t_one = t_floor = float("inf")
        for i in range(7):
            t0 = time.perf_counter()
            build_workbook(d / f"one{i}.xlsx", case=cases[0])
            t_one = min(t_one, time.perf_counter() - t0)
            t0 = time.perf_counter()
            xlsx_floor.replay(log, d / f"floor{i}.xlsx")
            t_floor = min(t_floor, time.perf_counter() - t0)
        t0 = time.perf_counter()
        paths = [build_workbook(d / f"b{i:03d}.xlsx", case=c) for i, c in enumerate(cases)]
        t_many = time.perf_counter() - t0
        print(f"build 1 workbook:            {t_one * 1000:8.1f} ms  (best of 7)")
        print(f"XlsxWriter floor:            {t_floor * 1000:8.1f} ms  (the same {len(log):,} calls replayed; "
              f"ratio {t_one / t_floor:.2f}×)")
        print(f"build {args.n} workbooks:        {t_many:8.2f} s  ({t_many / args.n * 1000:.1f} ms each)")
        if soffice() is None:
            print("LibreOffice not installed: recalculation not timed")
            return
        t0 = time.perf_counter()
        recalculate([paths[0]], d / "lo1")
        t_lo1 = time.perf_counter() - t0
        t0 = time.perf_counter()
        recalculate(paths, d / "lo")
        t_lo = time.perf_counter() - t0
        print(f"LibreOffice recalc 1:        {t_lo1:8.2f} s  (includes start-up)")
        print(f"LibreOffice recalc {args.n}:      {t_lo:8.2f} s  ({t_lo / args.n * 1000:.1f} ms each, one soffice process)")
        print(f"ratio LibreOffice / build:   {t_lo / t_many:8.1f}× (for {args.n})")


if __name__ == "__main__":
    main()
