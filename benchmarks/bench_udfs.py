"""Worksheet functions (xlmodel/udfs.py): microseconds per call, and XLM_EVALUATE over 1,000 companies.

    python benchmarks/bench_udfs.py [--companies 1000] [--repeat 2000]

What is timed (the Python side of a call, as xlwings' UDF server makes it after converting
the ranges; the COM round trip between Excel and Python is not included):

* scalar functions, warm: the same arguments again — what a sheet does when several cells
  (XLM_MIN_CASH, XLM_OVERALL_STATUS, XLM_RULE_STATUS …) read one case: argument key, policy
  check (one stat of its file), cached evaluation;
* scalar functions, cold: a different case on every call — coercion of the ranges
  (fields × 5 years, company, attestations), the case check (parse_case), one evaluation;
* XLM_EVALUATE over N companies: N different synthetic cases (3 plans, 5 years each), one
  call each, the rule table built every time; with the split into argument handling and
  evaluation, and the vectorised batch path (xlmodel.evaluate_batch) on the same
  company-years for reference.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xlmodel import udfs  # noqa: E402
from xlmodel.batch.evaluate import evaluate_batch  # noqa: E402
from xlmodel.case import load_case, parse_case  # noqa: E402
from xlmodel.evaluator import evaluate_one, model_for  # noqa: E402
from xlmodel.fields import COMPANY_FIELDS, ENUMS, FIELDS, Kind  # noqa: E402
from xlmodel.synth import cases_frame, random_case_data  # noqa: E402
from xlmodel.workbook.layout import INPUT_SECTIONS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
SCALARS = ("XLM_MIN_CASH", "XLM_MAX_DISTRIBUTION", "XLM_CONDITIONS_MET", "XLM_OVERALL_STATUS", "XLM_FAIL_COUNT",
           "XLM_ST_RISK", "XLM_CASH_TO_AVOID_ST")


def _cell(fid, v):
    kind = FIELDS[fid].kind if fid in FIELDS else Kind.BOOL
    if v is None:
        return None
    if kind == Kind.BOOL:
        return "是" if v else "否"
    if kind == Kind.ENUM:
        return ENUMS[fid][v]
    if kind == Kind.DATE:
        return dt.datetime.combine(v, dt.time())
    if kind in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT):
        return float(v)
    return v


def excel_args(case) -> tuple:
    """A case as xlwings hands the input sheet's ranges to a UDF (ndim=2: 2-D lists, floats, None)."""
    years = [float(y) for y in range(case.evaluation_year - 4, case.evaluation_year + 1)]
    fids = [f for _, _, fs in INPUT_SECTIONS for f in fs]
    vals = [[_cell(f, case.value(f, int(y))) for y in years] for f in fids]
    cids = [f.id for f in COMPANY_FIELDS]
    aids = model_for(case.policy).attestation_ids()
    return (case.policy, float(case.evaluation_year), [[f] for f in fids], [years], vals,
            [[c] for c in cids], [[_cell(c, case.company.get(c))] for c in cids],
            [[a] for a in aids], [[_cell(None, case.attestations.get(a))] for a in aids])


def per_call_us(fn, calls) -> float:
    t0 = time.perf_counter()
    for args in calls:
        fn(*args)
    return (time.perf_counter() - t0) / len(calls) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--companies", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=2000, help="calls per warm timing")
    ap.add_argument("--cold", type=int, default=200, help="distinct cases per cold timing")
    args = ap.parse_args()

    rng = np.random.default_rng(7)
    cases = [parse_case(random_case_data(rng, POLICIES[i % 3], 2024, 5, p_missing=0.01), f"bench:{i}")
             for i in range(max(args.companies, args.cold * (len(SCALARS) + 1)))]
    sample = excel_args(load_case(ROOT / "samples" / "gcl-energy-2022-2024.yaml"))
    for pid in POLICIES:  # warm up: policies loaded and compiled, numpy paths touched
        udfs.XLM_EVALUATE(*excel_args(next(c for c in cases if c.policy == pid)))

    print(f"scalar functions, µs per call (sample case gcl-energy-2022-2024; cold: {args.cold} distinct synthetic cases each)")
    print(f"  {'function':24s} {'warm (same inputs)':>20s} {'cold (new case)':>18s}")
    start = 0
    for name in SCALARS + ("XLM_RULE_STATUS",):
        fn = getattr(udfs, name)
        if name == "XLM_RULE_STATUS":
            fn = (lambda f: lambda *a: f("reg_st_low_dividend", *a))(udfs.XLM_RULE_STATUS)  # a rule of every plan
        fn(*sample)
        assert not (isinstance(fn(*sample), str) and fn(*sample).startswith("#XLMODEL!"))
        warm = per_call_us(fn, [sample] * args.repeat)
        cold_args = [excel_args(c) for c in cases[start:start + args.cold]]
        start += args.cold
        udfs.clear_caches()
        for pid in POLICIES:
            udfs.policy_entry(pid)
        cold = per_call_us(fn, cold_args)
        print(f"  {name:24s} {warm:17.1f} µs {cold:15.1f} µs")

    n = args.companies
    calls = [excel_args(c) for c in cases[:n]]
    udfs.clear_caches()
    for pid in POLICIES:
        udfs.policy_entry(pid)
    t0 = time.perf_counter()
    tables = [udfs.XLM_EVALUATE(*a) for a in calls]
    t_eval = time.perf_counter() - t0
    errors = sum(isinstance(t, str) for t in tables)
    rows = sum(len(t) - 1 for t in tables if not isinstance(t, str))

    # where the time goes: argument handling (ranges -> checked case) vs the evaluator itself
    t0 = time.perf_counter()
    parsed = [parse_case(udfs.case_data(a[0], *a[1:]), "UDF") for a in calls]
    t_args = time.perf_counter() - t0
    t0 = time.perf_counter()
    for c in parsed:
        evaluate_one(model_for(c.policy), c)
    t_core = time.perf_counter() - t0

    df = cases_frame(cases[:n])
    evaluate_batch(df.head(30))
    t0 = time.perf_counter()
    evaluate_batch(df)
    t_batch = time.perf_counter() - t0

    print(f"\nXLM_EVALUATE over {n:,} companies (one call each, 3 plans, 5 years, different inputs every call)")
    print(f"  total                    {t_eval:8.2f} s   ({t_eval / n * 1e3:6.2f} ms per company; {rows:,} rule rows, "
          f"{errors} error cells)")
    print(f"  of which ranges -> case  {t_args:8.2f} s   ({t_args / n * 1e3:6.2f} ms per company: coercion and parse_case)")
    print(f"  of which evaluation      {t_core:8.2f} s   ({t_core / n * 1e3:6.2f} ms per company: evaluate_one, the scalar program)")
    print(f"  batch path, reference    {t_batch:8.2f} s   (xlmodel.evaluate_batch on the same {len(df):,} company-years, "
          "every year evaluated)")


if __name__ == "__main__":
    main()
