"""`xlmodel selftest`: prove the models in the user's spreadsheet engine against the evaluator."""

from __future__ import annotations

import sys

from ..errors import XlmodelError


def cmd_selftest(args) -> int:
    """Random and boundary cases of every plan, recalculated in the engine, against the evaluator."""
    import tempfile
    from pathlib import Path

    from ..engines import selftest
    from ..engines.drive import check_timeout
    from ..engines.engines import engine
    from ..engines.recalc import stopped_by_signals

    timeout = check_timeout(args.timeout)
    if args.full and args.cases is not None:
        raise XlmodelError("--full 与 --cases 只能给一个 give either --full (every plan's 20 cases) or --cases N, not both")
    args.cases = selftest.FULL_CASES if args.full else selftest.DEFAULT_CASES if args.cases is None else args.cases
    if not 1 <= args.cases <= 1000:
        raise XlmodelError(f"--cases: 每个规划的案例数须为 1–1000 expected a number of cases per plan from 1 to 1000, got {args.cases}")
    keep = Path(args.keep) if args.keep else None
    if keep is not None and keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise XlmodelError(f"{keep}: --keep 须为新的或空的文件夹 --keep needs a new or empty folder (nothing is overwritten)")
    adapter = engine(args.engine)
    policies, skipped = selftest.plans_to_test(args.policy)

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    with stopped_by_signals(), tempfile.TemporaryDirectory(prefix="xlmodel-selftest-") as tmp:
        folder = keep or Path(tmp)
        result = selftest.run(adapter, policies, args.cases, seed=args.seed, folder=folder, timeout=timeout,
                              say=say)
    result.skipped, result.folder, result.cases = skipped, keep, args.cases
    print(selftest.summary(result))
    return 0 if result.ok else 1
