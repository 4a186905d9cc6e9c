"""The market screen as a user waits for it, each figure next to its floor (issue 26, item 1).

    python benchmarks/bench_batch.py                       # everything (a few minutes)
    python benchmarks/bench_batch.py --only batch,process  # skip the memory runs
    python benchmarks/bench_batch.py --memory-rows 100000,300000,1000000

* ``batch``: ``evaluate_batch`` on 25,000 GCL company-years (5,000 companies × 5 years) read from a
  CSV file (every cell text, as from a vendor: read, checked, evaluated, results) and from a typed
  DataFrame, per company-year, next to the hand-written plain-Python GCL function for one case
  (``benchmarks/gcl_hand.py``, its statuses checked against the model first) per case.
* ``process``: ``xlmodel evaluate --batch IN.csv -o OUT.csv`` as a whole process next to a process
  that only reads the input with pandas and writes the same output table with pandas (``to_csv``);
  and ``-o OUT.xlsx`` next to pandas + XlsxWriter writing the same table (``to_excel``). Run in turn,
  A B A B …, the ratio taken pair by pair; the minimum and the median of each.
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

from run import best_interleaved, line, machine, ms, us  # noqa: E402

GCL = "gcl-energy-2022-2024"
PYTHON = sys.executable


def _gcl_cases(companies: int):
    from xlmodel.case import parse_case
    from xlmodel.synth import random_case_data

    rng = np.random.default_rng(1)
    return [parse_case(random_case_data(rng, GCL, 2024, 5, p_missing=0.01)) for _ in range(companies)]


def batch(companies: int, tmp: Path) -> None:
    import gcl_hand

    from xlmodel.batch import evaluate_batch, read_table
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

    t = best_interleaved({"csv": lambda: evaluate_batch(table), "typed": lambda: evaluate_batch(df), "hand": hand},
                         1, rounds=3, repeat=1)
    t_read = min(_timed(lambda: read_table(src)) for _ in range(3))
    print(f"\nbatch: {n:,} GCL company-years ({companies:,} companies × 5 years), the regulatory baseline included; "
          f"hand-written floor: {bad} status differences on 300 cases")
    line("what", "time", "floor", None)
    line("evaluate_batch, table read from a CSV (text)", ms(t["csv"]), f"{us(t['hand'] / n)} a case (hand)",
         (t["csv"] / n) / (t["hand"] / n), f"{us(t['csv'] / n)} a row; target < 1×")
    line("evaluate_batch, a typed DataFrame", ms(t["typed"]), f"{us(t['hand'] / n)} a case (hand)",
         (t["typed"] / n) / (t["hand"] / n), f"{us(t['typed'] / n)} a row")
    line("read_table of that CSV (before evaluate_batch)", ms(t_read), "", None, f"{us(t_read / n)} a row")


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _run(argv: list[str]) -> tuple[float, int]:
    """(wall seconds, peak resident memory in KB) of one child process."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{argv[:4]} … exited {p.returncode}")
    return wall, ru.ru_maxrss


_FLOOR = """
import sys, pandas as pd
pd.read_csv(sys.argv[1], dtype={"stock_code": str})
out = pd.read_pickle(sys.argv[2])
if sys.argv[3].endswith(".csv"):
    out.to_csv(sys.argv[3], index=False, encoding="utf-8-sig")
else:
    out.to_excel(sys.argv[3], index=False, engine="xlsxwriter")
"""


def process(companies: int, rounds: int, tmp: Path) -> None:
    from xlmodel.batch import evaluate_batch, read_table
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
    for ext in ("csv", "xlsx"):
        ours = cmd + ["evaluate", "--batch", str(src), "-o", str(tmp / f"ours.{ext}"), "--force"]
        floor = [PYTHON, "-c", _FLOOR, str(src), str(table), str(tmp / f"floor.{ext}")]
        _run(ours), _run(floor)  # warm-up: the file cache, the compiled byte code
        a, b, mem_a, mem_b = [], [], [], []
        for _ in range(rounds):
            (ta, ma), (tb, mb) = _run(ours), _run(floor)
            a.append(ta)
            b.append(tb)
            mem_a.append(ma)
            mem_b.append(mb)
        ratios = [x / y for x, y in zip(a, b)]
        what = "xlmodel evaluate --batch → CSV" if ext == "csv" else "xlmodel evaluate --batch → XLSX"
        fl = "pandas read_csv + to_csv" if ext == "csv" else "pandas read_csv + to_excel (XlsxWriter)"
        target = "target ≤ 1.5×" if ext == "csv" else "target ≤ 1×"
        line(what, f"{statistics.median(a):.2f} s ({min(a):.2f})", f"{statistics.median(b):.2f} s ({min(b):.2f}) {fl}",
             statistics.median(ratios), f"min {min(ratios):.2f}×, max {max(ratios):.2f}×; {target}")
        line("  peak memory", f"{max(mem_a) / 1024:,.0f} MB", f"{max(mem_b) / 1024:,.0f} MB")


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
        wall, mem = _run(cmd + ["evaluate", "--batch", str(src), "-o", str(tmp / "screen.csv"), "--force"])
        line(f"{n:,} rows ({size / 2**20:.0f} MB)", f"{mem / 1024:,.0f} MB", f"{wall:.1f} s")
        src.unlink()
        (tmp / "screen.csv").unlink()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--companies", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default="batch,process,memory")
    ap.add_argument("--memory-rows", default="100000,300000,1000000")
    args = ap.parse_args()
    only = set(args.only.split(","))
    machine()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if "batch" in only:
            batch(args.companies, tmp)
        if "process" in only:
            process(args.companies, args.rounds, tmp)
        if "memory" in only:
            memory([int(x) for x in args.memory_rows.split(",")], tmp)


if __name__ == "__main__":
    main()
