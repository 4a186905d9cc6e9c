"""Issue 53: what a user waits for, each next to its floor, as whole processes (the table of the issue).

    python benchmarks/run.py --only users [--rounds 5] [--books 40] [--companies 5000] [--no-selftest]
    python benchmarks/bench_users.py       (the same)

Each row runs the command as a user runs it (a fresh process, its output discarded) and its floor in
turn, round after round, so that a slow spell of the shared machine falls on both; each figure is
the best of its rounds, the ratio the ratio of the bests; beside the wall clock, the CPU seconds the
operating system counted for the process and every child it waited for (an engine too), which a
machine busy with other work disturbs less:

* ``xlmodel check FOLDER --json`` of ``--books`` built workbooks next to a process that unzips each
  and parses every sheet's XML with ElementTree's C parser (no xlmodel import);
* ``xlmodel check BOOK --json`` next to the same floor for that one book;
* ``xlmodel recalc BOOK -o OUT --engine libreoffice`` next to ``soffice --headless --convert-to xlsx``
  of the same book (a profile of its own, made before the first timing);
* ``xlmodel recalc FOLDER -o DIR --engine libreoffice`` (one engine launch) next to ``soffice
  --convert-to xlsx`` of every book of the folder in one launch;
* ``xlmodel evaluate --batch IN.csv -o OUT.csv`` of ``--companies`` × 5 company-years next to pandas
  reading the input and writing the same output table (benchmarks/bench_batch.py's floor);
* ``xlmodel selftest`` (the default) against its goal of 20 s, once.

The user cache is a folder of the run's own (``XLMODEL_CONFIG_HOME``), warmed by one run of each
command first (as a user's second run finds it). xlmodel's modules are compiled first, as installing
a package does. CI (``.ci/run`` on a fresh machine) is not run here: it takes a quarter of an hour;
its figure is measured with ``/usr/bin/time -v bash .ci/run`` on a fresh clone.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

PYTHON = sys.executable
EXE = str(Path(PYTHON).with_name("xlmodel"))

#: the floor of reading workbooks as a process: unzip each, parse every sheet's XML (ElementTree's C
#: parser), nothing of xlmodel
_FLOOR_READ = r"""
import posixpath, sys, zipfile
from xml.etree.ElementTree import iterparse
M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
P = "{http://schemas.openxmlformats.org/package/2006/relationships}"
for book in sys.argv[1:]:
    with zipfile.ZipFile(book) as z:
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


class Took(tuple):
    """(wall seconds, CPU seconds of the process and every child it waited for: an engine too)."""

    def __lt__(self, other):
        return self[0] < other[0]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wall(cmd: list[str], env: dict | None = None, ok=(0, 1)) -> Took:
    c, t = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    took = Took((time.perf_counter() - t, _children_cpu() - c))
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd[:4])} … exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-800:]}")
    return took


def in_turn(cmds: dict, rounds: int) -> dict:
    """The best (wall, CPU) seconds of each of ``cmds`` (name → (argv, env, before)), each the least of
    its rounds, run in turn each round after one warm-up each; ``before`` (if any) runs untimed before
    each run (to clear an output)."""
    best = {k: (float("inf"), float("inf")) for k in cmds}
    for r in range(rounds + 1):
        for k, (cmd, env, before) in cmds.items():
            if before:
                before()
            t = wall(cmd, env)
            if r:
                best[k] = (min(best[k][0], t[0]), min(best[k][1], t[1]))
    return best


def row(what: str, ours, floor, floor_what: str, goal: float, unit: str = "s") -> bool:
    """One line of the table: wall seconds (CPU seconds), the ratio of the walls (of the CPUs)."""
    if floor is None:
        met = ours[0] <= goal
        print(f"| {what} | {ours[0]:.2f} {unit} ({ours[1]:.2f} CPU) | {floor_what} | | ≤ {goal:g} {unit} | "
              f"{'met' if met else 'NOT met'} |", flush=True)
        return met
    ratio, cpu = ours[0] / floor[0], ours[1] / floor[1]
    met = ratio <= goal
    print(f"| {what} | {ours[0]:.3f} s ({ours[1]:.3f} CPU) | {floor[0]:.3f} s ({floor[1]:.3f} CPU), {floor_what} | "
          f"{ratio:.2f}× ({cpu:.2f}× CPU) | ≤ {goal:g}× | {'met' if met else 'NOT met'}"
          f"{'' if met == (cpu <= goal) else (' (CPU: met)' if cpu <= goal else ' (CPU: not met)')} |", flush=True)
    return met


def books(folder: Path, n: int) -> list[Path]:
    from bench_check import build_folder

    return build_folder(folder, n)


def check_rows(tmp: Path, n: int, rounds: int, env: dict) -> None:
    folder = tmp / "books"
    paths = books(folder, n)
    cmd = [EXE, "check"]
    t = in_turn({"folder": (cmd + [str(folder), "--json"], env, None),
                 "floorN": ([PYTHON, "-c", _FLOOR_READ, *map(str, paths)], env, None),
                 "one": (cmd + [str(paths[1]), "--json"], env, None),
                 "floor1": ([PYTHON, "-c", _FLOOR_READ, str(paths[1])], env, None)}, rounds)
    row(f"`xlmodel check FOLDER` of {len(paths)} workbooks, one process", t["folder"], t["floorN"],
        "unzip + parse every sheet's XML", 2)
    row("`xlmodel check BOOK` as a fresh process", t["one"], t["floor1"], "the same for one book", 3)


def recalc_rows(tmp: Path, rounds: int, env: dict, n_folder: int) -> None:
    from xlmodel.engines.recalc import soffice

    exe = soffice()
    if exe is None:
        print("| `xlmodel recalc BOOK` | LibreOffice not installed: not timed | | | | |")
        return
    paths = books(tmp / "books", max(n_folder, 2))
    one = paths[1]
    some = tmp / "some"
    if not some.exists():
        some.mkdir()
        for p in paths[:n_folder]:
            shutil.copy2(p, some / p.name)
    prof = (tmp / "lo-profile").resolve().as_uri()
    lo = [exe, f"-env:UserInstallation={prof}", "--headless", "--norestore", "--nologo", "--convert-to", "xlsx"]
    out1, outN, fl1, flN = (tmp / x for x in ("r1", "rN", "f1", "fN"))

    def clear(*dirs):
        return lambda: [shutil.rmtree(d, ignore_errors=True) for d in dirs]

    wall(lo + ["--outdir", str(fl1), str(one)])  # the floor's profile made, untimed
    t = in_turn({"one": ([EXE, "recalc", str(one), "-o", str(out1 / "o.xlsx"), "--engine", "libreoffice", "--force"],
                         env, lambda: out1.mkdir(exist_ok=True)),
                 "floor1": (lo + ["--outdir", str(fl1), str(one)], env, clear(fl1))}, rounds)
    row("`xlmodel recalc BOOK` in LibreOffice", t["one"], t["floor1"], "`soffice --headless --convert-to xlsx`", 1.3)
    folder_cmd = [EXE, "recalc", str(some), "-o", str(outN), "--engine", "libreoffice", "--force"]
    probe = subprocess.run(folder_cmd, cwd=ROOT, capture_output=True, env=env)
    if probe.returncode not in (0, 1):
        print(f"| `xlmodel recalc FOLDER` of {n_folder} | not supported (exit {probe.returncode}) | | | | |")
        return
    t = in_turn({"folder": (folder_cmd, env, clear(outN)),
                 "floorN": (lo + ["--outdir", str(flN), *map(str, sorted(some.glob('*.xlsx')))], env, clear(flN))},
                max(1, rounds // 2))
    row(f"`xlmodel recalc FOLDER` of {n_folder}, one engine launch", t["folder"], t["floorN"],
        "`soffice --convert-to xlsx` of them in one launch", 1.3)


def batch_row(tmp: Path, companies: int, rounds: int, env: dict) -> None:
    from bench_batch import _FLOOR, _gcl_cases

    from xlmodel.batch.evaluate import evaluate_batch
    from xlmodel.batch.table import read_table
    from xlmodel.synth import cases_frame

    src = tmp / "in.csv"
    table = tmp / "out.pkl"
    if not src.exists():
        cases_frame(_gcl_cases(companies)).to_csv(src, index=False)
        out = evaluate_batch(read_table(src))
        out.attrs = {}
        out.to_pickle(table)
    t = in_turn({"ours": ([EXE, "evaluate", "--batch", str(src), "-o", str(tmp / "ours.csv"), "--force"], env, None),
                 "floor": ([PYTHON, "-c", _FLOOR, str(src), str(table), str(tmp / "floor.csv")], env, None)}, rounds)
    row(f"`xlmodel evaluate --batch` {companies * 5:,} company-years → CSV", t["ours"], t["floor"],
        "pandas reading the input, writing the same table", 1.2)


def selftest_row(env: dict) -> None:
    from xlmodel.engines.recalc import soffice

    if soffice() is None:
        print("| `xlmodel selftest` | LibreOffice not installed: not timed | | | | |")
        return
    t = wall([EXE, "selftest", "--engine", "libreoffice"], env)
    row("`xlmodel selftest` (the default, LibreOffice)", t, None, "—", 20)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--books", type=int, default=40, help="workbooks in the checked folder")
    ap.add_argument("--recalc-books", type=int, default=10, help="workbooks in the recalculated folder")
    ap.add_argument("--companies", type=int, default=5000, help="companies in the batch (5 years each)")
    ap.add_argument("--only", default="check,recalc,batch,selftest")
    a = ap.parse_args(argv)
    only = set(a.only.split(","))
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "xlmodel")], check=True, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="xlmodel-users-") as tmp:
        tmp = Path(tmp)
        env = {**os.environ, "XLMODEL_CONFIG_HOME": str(tmp / "config")}
        print(f"\nwhat users wait for (issue 53): whole processes, best of {a.rounds} rounds in turn; "
              f"load average {os.getloadavg()[0]:.2f}\n")
        print("| what a user runs | xlmodel | floor | ratio | goal | met? |\n|---|---:|---:|---:|---|---|")
        if "check" in only:
            check_rows(tmp, a.books, a.rounds, env)
        if "recalc" in only:
            recalc_rows(tmp, a.rounds, env, a.recalc_books)
        if "batch" in only:
            batch_row(tmp, a.companies, a.rounds, env)
        if "selftest" in only:
            selftest_row(env)
        print("| CI (`.ci/run` on a fresh 2-core machine) | not run here: `/usr/bin/time -v bash .ci/run` "
              "on a fresh clone | | | ≤ 12 min | |")
        print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
