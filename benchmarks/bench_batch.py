"""The market screen as a user waits for it, each figure next to its floor (issue 26, item 1).

    python benchmarks/bench_batch.py                       # everything (a few minutes)
    python benchmarks/bench_batch.py --only batch,process  # skip the memory runs
    python benchmarks/bench_batch.py --memory-rows 100000,300000,1000000
    python benchmarks/bench_batch.py --only process --formats csv   # the CSV process alone

* ``batch``: ``evaluate_batch`` on 25,000 GCL company-years (5,000 companies × 5 years) read from a
  CSV file (every cell text, as from a vendor: read, checked, evaluated, results) and from a typed
  DataFrame, per company-year, next to the hand-written plain-Python GCL function for one case
  (``benchmarks/gcl_hand.py``, its statuses checked against the model first) per case: CPU time of
  this process, the best of three rounds in turn.
* ``process``: ``xlmodel evaluate --batch IN.csv -o OUT.csv`` as a whole process next to a process
  that only reads the input with pandas and writes the same output table with pandas (``to_csv``);
  and ``-o OUT.xlsx`` next to pandas + XlsxWriter writing the same table (``to_excel``). Run in turn,
  A B A B …, the ratio taken pair by pair; the minimum and the median of each, of the wall clock
  and of the CPU time (user + system) the operating system counted for each process.
* ``memory``: the peak memory (maximum resident set, from the operating system's accounting of the
  finished child) of ``xlmodel evaluate --batch`` on a market screen of N rows × 5 columns (the
  baseline alone, CSV out), for each N: flat, whatever N.

The machine is shared: quote the ratios and medians; the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import line, machine, ms, us  # noqa: E402

GCL = "gcl-energy-2022-2024"
PYTHON = sys.executable


def _gcl_cases(companies: int):
    from xlmodel.case import parse_case
    from xlmodel.synth import random_case_data

    rng = np.random.default_rng(1)
    return [parse_case(random_case_data(rng, GCL, 2024, 5, p_missing=0.01)) for _ in range(companies)]


def batch(companies: int, tmp: Path) -> None:
    import gcl_hand

    from xlmodel.batch.evaluate import evaluate_batch
    from xlmodel.batch.table import read_table
    from xlmodel.case import Case
    from xlmodel.evaluator import evaluate
    from xlmodel.synth import cases_frame

    cases = _gcl_cases(companies)
    df = cases_frame(cases)
    src = tmp / "gcl.csv"
    df.to_csv(src, index=False)
    table = read_table(src)
    n = len(df)
    evaluate_batch(df.head(50))
    # the hand-written function for one case: every company-year as its own evaluation year
    singles = [(c.years, c.company, c.attestations if y == c.evaluation_year else {}, y) for c in cases for y in c.years]
    bad = 0
    for c in cases[:300]:
        rep = evaluate(c)
        h = gcl_hand.evaluate(c.years, c.company, c.attestations, c.evaluation_year)
        bad += sum(h[r.id] != r.status for r in rep.rules) + (h["overall_status"] != rep.overall_status)
    del Case

    def hand():
        for years, company, att, y in singles:
            gcl_hand.evaluate(years, company, att, y)

    t = _cpu_interleaved({"csv": lambda: evaluate_batch(table), "typed": lambda: evaluate_batch(df), "hand": hand})
    t_read = _cpu_interleaved({"read": lambda: read_table(src)})["read"]
    print(f"\nbatch: {n:,} GCL company-years ({companies:,} companies × 5 years), the regulatory baseline included; "
          f"hand-written floor: {bad} status differences on 300 cases")
    line("what", "time", "floor", None)
    line("evaluate_batch, table read from a CSV (text)", ms(t["csv"]), f"{us(t['hand'] / n)} a case (hand)",
         (t["csv"] / n) / (t["hand"] / n), f"{us(t['csv'] / n)} a row; target < 1×")
    line("evaluate_batch, a typed DataFrame", ms(t["typed"]), f"{us(t['hand'] / n)} a case (hand)",
         (t["typed"] / n) / (t["hand"] / n), f"{us(t['typed'] / n)} a row")
    line("read_table of that CSV (before evaluate_batch)", ms(t_read), "", None, f"{us(t_read / n)} a row")


def _cpu_interleaved(fns: dict, rounds: int = 3) -> dict:
    """CPU seconds of each of ``fns`` (the process's own, not the wall clock: the machine is shared),
    the best of ``rounds``, measured in turn."""
    for fn in fns.values():
        fn()
    out = {k: float("inf") for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            t = time.process_time()
            fn()
            out[k] = min(out[k], time.process_time() - t)
    return out


#: starts the command from a small process and reports the operating system's accounting of it (wait4):
#: a child forked from this benchmark would count this process's own memory in its peak
_LAUNCH = r"""
import os, sys, time
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(time.perf_counter() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def _run(argv: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds (user + system), peak resident memory in KB) of one process."""
    got = subprocess.run([PYTHON, "-c", _LAUNCH, *argv], capture_output=True, text=True, check=True).stdout.split()
    wall, cpu, rss, code = float(got[0]), float(got[1]), int(got[2]), int(got[3])
    if code not in (0, 1):
        raise SystemExit(f"{argv[:4]} … exited {code}")
    return wall, cpu, rss


_FLOOR = """
import sys, pandas as pd
pd.read_csv(sys.argv[1], dtype={"stock_code": str})
out = pd.read_pickle(sys.argv[2])
if sys.argv[3].endswith(".csv"):
    out.to_csv(sys.argv[3], index=False, encoding="utf-8-sig")
else:
    out.to_excel(sys.argv[3], index=False, engine="xlsxwriter")
"""


def process(companies: int, rounds: int, tmp: Path, formats: tuple[str, ...] = ("csv", "xlsx")) -> None:
    from xlmodel.batch.evaluate import evaluate_batch
    from xlmodel.batch.table import read_table
    from xlmodel.synth import cases_frame

    df = cases_frame(_gcl_cases(companies))
    src = tmp / "in.csv"
    df.to_csv(src, index=False)
    out = evaluate_batch(read_table(src))
    table = tmp / "out.pkl"
    out.attrs = {}
    out.to_pickle(table)
    exe = str(Path(PYTHON).with_name("xlmodel"))
    cmd = [exe] if Path(exe).is_file() else [PYTHON, "-m", "xlmodel.cli"]
    print(f"\nprocesses: {len(df):,} company-years × {len(df.columns)} columns in, {len(out.columns)} columns out; "
          f"{rounds} rounds, in turn")
    line("what", "median (min)", "floor median (min)", None)
    for ext in formats:
        ours = cmd + ["evaluate", "--batch", str(src), "-o", str(tmp / f"ours.{ext}"), "--force"]
        floor = [PYTHON, "-c", _FLOOR, str(src), str(table), str(tmp / f"floor.{ext}")]
        _run(ours), _run(floor)  # warm-up: the file cache, the compiled byte code
        a, b = [], []
        for _ in range(rounds):
            a.append(_run(ours))
            b.append(_run(floor))
        what = "xlmodel evaluate --batch → CSV" if ext == "csv" else "xlmodel evaluate --batch → XLSX"
        fl = "pandas read_csv + to_csv" if ext == "csv" else "pandas read_csv + to_excel (XlsxWriter)"
        target = "target ≤ 1.5×" if ext == "csv" else "target ≤ 1×"
        for k, name in ((0, "wall"), (1, "CPU")):
            xa, xb = [r[k] for r in a], [r[k] for r in b]
            ratios = [x / y for x, y in zip(xa, xb)]
            line(f"{what} ({name})", f"{statistics.median(xa):.2f} s ({min(xa):.2f})",
                 f"{statistics.median(xb):.2f} s ({min(xb):.2f}) {fl}", statistics.median(ratios),
                 f"min {min(ratios):.2f}×, max {max(ratios):.2f}×; {target}")
        line("  peak memory", f"{max(r[2] for r in a) / 1024:,.0f} MB", f"{max(r[2] for r in b) / 1024:,.0f} MB")


def memory(rows_list: list[int], tmp: Path) -> None:
    import csv

    exe = str(Path(PYTHON).with_name("xlmodel"))
    cmd = [exe] if Path(exe).is_file() else [PYTHON, "-m", "xlmodel.cli"]
    print("\nmemory: a market screen (no plan: the regulatory baseline alone), 5 columns in, CSV out")
    line("rows", "peak memory", "wall", None)
    for n in rows_list:
        src = tmp / f"screen{n}.csv"
        with open(src, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["证券代码", "会计年度", "归母净利润(万元)", "现金分红总额(万元)", "上市日期"])
            for i in range(n // 5):
                code = f"{600000 + i % 6000:06d}.SH" if i < 6000 else f"{(i - 6000) % 4000:06d}.SZ" \
                    if i < 10000 else f"{300000 + i % 2000:06d}.SZ"
                for y in range(2020, 2025):
                    w.writerow([code if i < 12000 else f"{i:06d}", y, 10_000 + i % 997, (3_000 + i % 1_500) * (i % 3 > 0),
                                "2010-05-01"])
        size = src.stat().st_size
        wall, cpu, mem = _run(cmd + ["evaluate", "--batch", str(src), "-o", str(tmp / "screen.csv"), "--force"])
        line(f"{n:,} rows ({size / 2**20:.0f} MB)", f"{mem / 1024:,.0f} MB", f"{wall:.1f} s wall, {cpu:.1f} s CPU")
        src.unlink()
        (tmp / "screen.csv").unlink()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--companies", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="batch,process,memory")
    ap.add_argument("--memory-rows", default="100000,300000,1000000")
    ap.add_argument("--formats", default="csv,xlsx", help="the outputs the process section times")
    args = ap.parse_args()
    only = set(args.only.split(","))
    machine()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if "batch" in only:
            batch(args.companies, tmp)
        if "process" in only:
            process(args.companies, args.rounds, tmp, tuple(args.formats.split(",")))
        if "memory" in only:
            memory([int(x) for x in args.memory_rows.split(",")], tmp)


if __name__ == "__main__":
    main()
