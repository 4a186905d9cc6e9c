"""Batch evaluation of many companies × years versus a plain loop over the single-case path.

    python benchmarks/bench_batch.py [--companies 5000] [--years 5] [--loop-sample N]

Prints both times and the ratio. The loop runs over every company-year unless
--loop-sample is given (then it times N of them and scales up, and says so).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xlmodel.batch import evaluate_batch  # noqa: E402
from xlmodel.case import Case  # noqa: E402
from xlmodel.evaluator import evaluate  # noqa: E402
from xlmodel.synth import cases_frame, random_case_data  # noqa: E402
from xlmodel.case import parse_case  # noqa: E402

POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--companies", type=int, default=5000)
    ap.add_argument("--years", type=int, default=5)
    ap.add_argument("--loop-sample", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    cases = [parse_case(random_case_data(rng, POLICIES[i % 3], 2024, args.years, p_missing=0.01))
             for i in range(args.companies)]
    df = cases_frame(cases)
    n = len(df)
    evaluate_batch(df.head(50))  # warm up: policies loaded and compiled (the batch's programs)
    for pid in POLICIES:  # and the single case's
        evaluate(next(c for c in cases if c.policy == pid))

    t0 = time.perf_counter()
    out = evaluate_batch(df)
    t_batch = time.perf_counter() - t0

    singles = [(c, y) for c in cases for y in c.years]
    if args.loop_sample:
        singles = singles[:: max(1, len(singles) // args.loop_sample)][: args.loop_sample]
    t0 = time.perf_counter()
    for c, y in singles:
        evaluate(Case(c.policy, y, c.company, c.years, c.attestations if y == c.evaluation_year else {}))
    t_loop = (time.perf_counter() - t0) * n / len(singles)

    print(f"company-years:          {n:,} ({args.companies:,} companies × {args.years} years, 3 policies)")
    print(f"batch (vectorised):     {t_batch:8.2f} s  ({t_batch / n * 1e6:8.1f} µs per company-year)")
    scaled = f" (timed {len(singles):,}, scaled)" if len(singles) < n else ""
    print(f"loop over single cases: {t_loop:8.2f} s  ({t_loop / n * 1e6:8.1f} µs per company-year){scaled}")
    print(f"ratio loop / batch:     {t_loop / t_batch:8.1f}×")
    print(f"overall status counts:  {out['overall_status'].value_counts().to_dict()}")


if __name__ == "__main__":
    main()
