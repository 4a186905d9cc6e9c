"""What one workbook of the parity set costs (tests/test_parity_engines.py), step by step.

    python benchmarks/bench_parity.py [--n 100] [--plan gcl-energy-2022-2024] [--launches 100,25,10] [--parts]

For ``--n`` synthetic cases of one plan (xlmodel.synth.parity_cases, as the test draws them), on one
core, in this order: build the workbooks; recalculate them in LibreOffice in launches of each size
of ``--launches`` (start-up included), each file saved as .xlsx; where LibreOffice's Python script provider is installed,
recalculate them in LibreOffice and read its values in its memory, as the tests do
(xlmodel.engines.in_memory.read_libreoffice, launches of 50); recalculate them in Gnumeric (one
``ssconvert`` a file), saved as .xlsx and as .xls; where python3-gi and gir1.2-gnumeric are installed,
recalculate them in Gnumeric's own library and read its values in its memory, as the tests do
(xlmodel.engines.in_memory.read_gnumeric, launches of 50); read our workbooks' values; compare each
engine's values with ours and with the evaluator (xlmodel.engines.parity.compare). Prints seconds per workbook for each step, and the
sum as the tests run it: the CPU a part of 100 workbooks of the parity set takes is about 100 times
that sum.

``--parts``: what LibreOffice's time is made of, the same files in launches of 25, two rounds in
turn: as the tests run it (every formula recalculated on load, each file saved as .xlsx); with no
recalculation on load (its cached values kept: the cost of recalculating is the difference); and
each file saved as CSV of its first sheet instead (about the cost of loading alone: the .xlsx
export is the difference).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xlmodel.synth import parity_cases  # noqa: E402
from xlmodel.engines import in_memory, recalc  # noqa: E402
from xlmodel.engines.parity import FORMULA_SHEETS, compare, sheet_values  # noqa: E402
from xlmodel.workbook.writer import build_workbook  # noqa: E402


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--plan", default="gcl-energy-2022-2024")
    ap.add_argument("--launches", default="100,25,10", help="files per LibreOffice launch, each size timed")
    ap.add_argument("--parts", action="store_true", help="also split LibreOffice's time: load, recalculation, export")
    a = ap.parse_args(argv)
    os.environ["XLMODEL_CONFIG_HOME"] = tempfile.mkdtemp(prefix="xlmodel-bench-config-")  # the bundled plans only
    if not (recalc.soffice() and recalc.ssconvert()):
        print("LibreOffice and Gnumeric are needed (apt-get install libreoffice-calc-nogui gnumeric)")
        return 2
    root = Path(tempfile.mkdtemp(prefix="xlmodel-bench-parity-"))
    try:
        cases = parity_cases(a.plan, max(a.n, 300))[:a.n]
        (root / "built").mkdir()
        paths, t_build = _timed(lambda: [build_workbook(root / "built" / f"{i:03d}.xlsx", case=c)
                                         for i, c in enumerate(cases)])
        rows = [("build (XlsxWriter, cached values)", t_build)]
        lo = None
        for size in (int(s) for s in a.launches.split(",")):
            out = root / f"lo-{size}"
            keep, recalc.PER_LAUNCH = recalc.PER_LAUNCH, size
            try:
                copies, t = _timed(lambda: recalc.recalculate(paths, out))
            finally:
                recalc.PER_LAUNCH = keep
            rows.append((f"LibreOffice, {size} files a launch", t))
            lo = lo or copies
        memory = gn_memory = None
        if in_memory.uno_in_office():
            memory, t = _timed(lambda: in_memory.read_libreoffice(paths, FORMULA_SHEETS))
            rows.append(("LibreOffice in memory, 50 a launch", t))
        if a.parts:
            rows += _lo_parts(paths, root)
        gn, t_gn = _timed(lambda: recalc.recalculate_gnumeric(paths, root / "gnumeric"))
        rows.append(("Gnumeric, saved as .xlsx", t_gn))
        gn_xls, t_gn = _timed(lambda: recalc.recalculate_gnumeric(paths, root / "gnumeric-xls", suffix=".xls"))
        rows.append(("Gnumeric, saved as .xls", t_gn))
        if in_memory.gnumeric_python():
            gn_memory, t = _timed(lambda: in_memory.read_gnumeric(paths, FORMULA_SHEETS))
            rows.append(("Gnumeric in memory, 50 a launch", t))
        ours, t_read = _timed(lambda: [sheet_values(p) for p in paths])
        rows.append(("read our workbooks' values", t_read))
        for engine, copies in (("libreoffice", lo), ("gnumeric", gn), ("gnumeric .xls", gn_xls)):
            _, t = _timed(lambda: [compare(engine.split()[0], c, p, q, ours_values=v)
                                   for c, p, q, v in zip(cases, paths, copies, ours)])
            rows.append((f"compare {engine}'s copies", t))
        for engine, values in (("libreoffice", memory), ("gnumeric", gn_memory)):
            if values is not None:
                _, t = _timed(lambda: [compare(engine, c, p, None, ours_values=v, theirs_values=values[p])
                                       for c, p, v in zip(cases, paths, ours)])
                rows.append((f"compare {engine} in memory", t))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{a.n} workbooks of {a.plan}, seconds per workbook (one core):")
    for label, t in rows:
        print(f"  {label:<42} {t / a.n:7.3f}")
    by = dict(rows)
    lo_way = ["LibreOffice in memory, 50 a launch", "compare libreoffice in memory"] if memory is not None else [
        "LibreOffice, 25 files a launch" if "LibreOffice, 25 files a launch" in by else
        min((label for label in by if label.startswith("LibreOffice,")), key=by.get), "compare libreoffice's copies"]
    gn_way = (["Gnumeric in memory, 50 a launch", "compare gnumeric in memory"] if gn_memory is not None else
              ["Gnumeric, saved as .xls", "compare gnumeric .xls's copies"])
    total = sum(by[label] for label in ("build (XlsxWriter, cached values)", "read our workbooks' values", *lo_way, *gn_way))
    print(f"  {'a workbook, both engines, as the tests':<40} {total / a.n:7.3f}  ({' + '.join(lo_way + gn_way)})")
    return 0


def _lo_parts(paths: list[Path], root: Path) -> list[tuple[str, float]]:
    """LibreOffice as the tests run it, without recalculation on load, and saving CSV: two rounds in turn."""
    as_run = recalc._XCU
    no_recalc = as_run.replace('"OOXMLRecalcMode" oor:op="fuse"><value>0<', '"OOXMLRecalcMode" oor:op="fuse"><value>1<')
    assert no_recalc != as_run
    ways = (("LO parts: recalculated, saved as .xlsx", as_run, "xlsx:Calc MS Excel 2007 XML", ".xlsx"),
            ("LO parts: not recalculated, .xlsx", no_recalc, "xlsx:Calc MS Excel 2007 XML", ".xlsx"),
            ("LO parts: recalculated, CSV of a sheet", as_run, "csv", ".csv"))
    best: dict[str, float] = {}
    keep = recalc.PER_LAUNCH, recalc._XCU
    try:
        recalc.PER_LAUNCH = 25
        for rnd in range(2):
            for label, xcu, target, suffix in ways:
                recalc._XCU = xcu
                _, t = _timed(lambda: recalc._convert(paths, root / f"parts-{rnd}-{suffix[1:]}-{len(best)}", None,
                                                      target, suffix))
                best[label] = min(t, best.get(label, t))
    finally:
        recalc.PER_LAUNCH, recalc._XCU = keep
    return list(best.items())


if __name__ == "__main__":
    sys.exit(main())
