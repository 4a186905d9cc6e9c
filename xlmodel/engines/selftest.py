"""`xlmodel selftest`: the user's own spreadsheet engine proves the models, as CI proves them on Linux.

For every plan xlmodel finds (the bundled ones, the user's installed ones and those of --plans),
random and boundary cases (:func:`xlmodel.synth.parity_cases`, seeded: a case is rebuilt from its
name) are built into workbooks, recalculated in the engine — in as few launches as it allows
(:mod:`xlmodel.engines.engines`: one Excel for all, a few LibreOffice launches of many files,
a few Gnumeric processes side by side) — and compared with the evaluator by the parity tests' own
comparison (:func:`xlmodel.engines.parity.compare`): every formula cell against the value xlmodel
cached, every named result, rule status and figure, and every evaluated year, to the fen.

The engines' known half-fen ROUND deviations (docs/domain.md §4) are counted and set aside with
their reason, under the parity tests' cap, taken per plan (each plan's share of its own workbooks,
never fewer than the engine's floor: a plan installed beside the bundled ones has its allowance, and
one plan's half fens never use up another's); more than a plan's cap is a failure. Each workbook set
aside is listed with the cell, both values and how the engine comes to its fen. The run passes only
when everything else agrees; each difference names the plan, the case, sheet!cell and both values.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

DEFAULT_CASES = 6  #: cases per plan of the default, quick run (a third of them on exact boundaries)
FULL_CASES = 20  #: cases per plan of ``--full``, the whole run (the parity tests' share of boundaries)
SEED = 20261201  #: the parity tests' seed
PER_WORKBOOK = 60.0  #: seconds an engine has for each workbook (plus its start-up allowance)


@dataclasses.dataclass
class PlanResult:
    plan: str
    version: str
    year: int
    workbooks: int = 0
    cells: int = 0
    years: int = 0
    differences: list = dataclasses.field(default_factory=list)
    aside: list = dataclasses.field(default_factory=list)  # the cases whose workbooks were set aside
    aside_at: list = dataclasses.field(default_factory=list)  # (case, sheet!cell, xlmodel's value, the engine's)


@dataclasses.dataclass
class Result:
    engine: str  # the engine's name (excel, libreoffice, gnumeric)
    label: str  # its name and version
    plans: list[PlanResult]
    skipped: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (plan id, why not tested)
    folder: Path | None = None  # where the workbooks were kept (--keep)
    cases: int | None = None  # cases per plan asked for (the quick default says how to run the whole)

    @property
    def workbooks(self) -> int:
        return sum(p.workbooks for p in self.plans)

    @property
    def aside(self) -> list[str]:
        return [a for p in self.plans for a in p.aside]

    @property
    def differences(self) -> list:
        return [d for p in self.plans for d in p.differences]

    def cap(self, plan: PlanResult) -> int:
        """The workbooks of ``plan`` that may be set aside for this engine (:func:`.workbook.parity.aside_cap`)."""
        from .parity import aside_cap

        return aside_cap(self.engine, plan.workbooks)

    @property
    def over_cap(self) -> list[PlanResult]:
        """The plans with more workbooks set aside than their cap."""
        return [p for p in self.plans if len(p.aside) > self.cap(p)]

    @property
    def aside_ok(self) -> bool:
        return not self.over_cap

    @property
    def ok(self) -> bool:
        return self.workbooks > 0 and not self.differences and self.aside_ok


def plans_to_test(ids: list[str] | None = None) -> tuple[list, list[tuple[str, str]]]:
    """(policies, skipped): every plan the plan folders hold (or those named), loaded; a plan that
    does not load is skipped with its error."""
    from ..errors import XlmodelError
    from ..plan_install import list_plans_with_errors
    from ..plans.loading import load_plan_by_id

    if ids:
        return [load_plan_by_id(i) for i in ids], []
    policies, skipped = [], []
    for item in list_plans_with_errors():
        if item.policy is None:
            skipped.append((item.id, str(item.error)))
        else:
            policies.append(item.policy)
    if not policies:
        raise XlmodelError("没有可自检的规划 no plan to test (no plan loads)")
    return policies, skipped


def plan_year(policy) -> int:
    """The fiscal year a plan is tested in: its last plan year (every window of the period filled)."""
    return policy.plan_years[1]


def cases_for(policies, n: int, seed: int = SEED) -> list[tuple[str, object]]:
    """(plan id, case) for ``n`` random and boundary cases of each plan."""
    from ..synth import parity_cases

    return [(p.id, c) for p in policies for c in parity_cases(p.id, n, seed=seed, year=plan_year(p))]


# ---- the work, in worker processes -------------------------------------------------------------

def _worker_env(plans: str | None) -> None:
    """A worker finds the plans the command found: the --plans folders become its XLMODEL_PLANS."""
    if plans is not None:
        os.environ["XLMODEL_PLANS"] = plans


def _plans_env() -> str | None:
    from ..plans.folders import CLI_ORIGIN, ENV_ORIGIN, plan_directories

    dirs = [str(Path(d.path).resolve()) for d in plan_directories() if d.origin in (CLI_ORIGIN, ENV_ORIGIN)]
    return os.pathsep.join(dirs) if dirs else None


class _Pool:
    """``map`` in ``workers`` fresh processes (spawn: as on Windows), or here when 1."""

    def __init__(self, workers: int):
        self.workers = workers
        self.pool = None
        if workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_worker_env, initargs=(_plans_env(),))

    def map(self, fn, jobs):
        if self.pool is None:
            return [fn(j) for j in jobs]
        return list(self.pool.map(fn, jobs, chunksize=max(1, len(jobs) // (4 * self.workers))))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown()


def _build(job) -> Path:
    from ..workbook.writer import build_workbook

    _pid, case, path = job
    return build_workbook(path, case=case)


def _compare(job):
    from .parity import compare

    engine, case, ours, theirs = job
    return compare(engine, case, ours, theirs)


def build_all(jobs: list[tuple[str, object]], folder: Path, workers: int = 1) -> list[tuple[str, object, Path]]:
    """Each (plan, case) built into ``folder`` (one file per case, named after it)."""
    seen: dict[str, int] = {}
    named = []
    for pid, case in jobs:  # PLAN-NNN.xlsx, NNN the case's number within its plan (its name's last part)
        seen[pid] = seen.get(pid, -1) + 1
        named.append((pid, case, Path(folder) / f"{pid}-{seen[pid]:03d}.xlsx"))
    with _Pool(workers) as pool:
        pool.map(_build, named)
    return named


def verify(adapter, built: list[tuple[str, object, Path]], folder: Path, *, workers: int = 1,
           timeout: float = PER_WORKBOOK, policies=None) -> Result:
    """Recalculate the built workbooks in the engine and compare each with the evaluator."""
    from ..evaluator import model_for

    theirs = adapter.recalculate([p for _, _, p in built], Path(folder) / adapter.name, timeout)
    with _Pool(workers) as pool:
        compared = pool.map(_compare, [(adapter.name, case, ours, other)
                                       for (_, case, ours), other in zip(built, theirs)])
    by_plan: dict[str, PlanResult] = {}
    for (pid, case, _), c in zip(built, compared):
        if pid not in by_plan:
            p = model_for(pid).policy
            by_plan[pid] = PlanResult(pid, p.version, case.evaluation_year)
        r = by_plan[pid]
        r.workbooks += 1
        r.cells += c.cells
        r.years += c.years
        r.differences += c.differences
        if c.aside:
            r.aside.append(c.case)
            r.aside_at.append((c.case, *(c.aside_at or ("?", None, None))))
    return Result(adapter.name, adapter.label(), list(by_plan.values()))


def run(adapter, policies, n: int = DEFAULT_CASES, *, seed: int = SEED, folder: Path, workers: int | None = None,
        timeout: float = PER_WORKBOOK, say=None) -> Result:
    """The whole self-test in ``folder``: cases, workbooks, the engine, the comparison."""
    say = say or (lambda _msg: None)
    jobs = cases_for(policies, n, seed)
    workers = workers or max(1, min(os.cpu_count() or 1, 4, len(jobs) // 8 or 1))
    say(f"构建 building {len(jobs)} workbooks ({len(policies)} plans × {n} cases)…")
    built = build_all(jobs, Path(folder) / "built", workers)
    say(f"重新计算 recalculating them in {adapter.title}…")
    return verify(adapter, built, folder, workers=workers, timeout=timeout)


# ---- the summary -------------------------------------------------------------------------------

MAX_SHOWN = 30  #: differences listed in the summary


def summary(result: Result) -> str:
    """One summary, Chinese first: per plan the workbooks, cells and differences; what was set aside
    and why; the verdict; then each difference (plan, case, sheet!cell, both values)."""
    from .parity import SET_ASIDE

    lines = [f"自检 Self-test — {result.label}：{len(result.plans)} 个规划 plans，{result.workbooks} 个工作簿 workbooks，"
             f"{sum(p.cells for p in result.plans):,} 个单元格 cells，{sum(p.years for p in result.plans)} 个年度 "
             "workbook-years compared with the evaluator"]
    w = max([len(f"{p.plan} v{p.version}") for p in result.plans] + [10])
    for p in result.plans:
        lines.append(f"  {f'{p.plan} v{p.version}':<{w}}  {p.year}  {p.workbooks:>4} 工作簿 workbooks  "
                     f"{p.cells:>9,} 单元格 cells  {len(p.differences):>4} 处不一致 differences  "
                     f"{len(p.aside):>3} 另计 set aside（上限 cap {result.cap(p)}）")
    for pid, why in result.skipped:
        lines.append(f"  {pid}: 未测试 not tested — {why.splitlines()[0][:160]}")
    if result.aside:
        lines += _aside_lines(result)
    diffs = result.differences
    if result.ok:
        aside = f"（另计 {len(result.aside)} 个，见上 {len(result.aside)} set aside, above）" if result.aside else ""
        lines.append(f"结论 Result: ✓ 全部一致（精确到分）everything agrees, to the fen{aside} — {result.label} computes "
                     "what xlmodel computes")
    else:
        over = "、".join(f"{p.plan} {len(p.aside)} > {result.cap(p)}" for p in result.over_cap)
        what = f"{len(diffs)} 处不一致 differences" if diffs else f"另计过多 too many set aside ({over})"
        lines.append(f"结论 Result: ✗ {what} — {result.label} does not compute what xlmodel computes")
        for d in diffs[:MAX_SHOWN]:
            against = "评估器 evaluator" if d.against == "evaluator" else "xlmodel 缓存值 cached"
            lines.append(f"  - {d.plan} 案例 case {d.case} {d.where}（{d.what}）：{result.label} {d.got!r}，"
                         f"{against} {d.want!r}")
        if len(diffs) > MAX_SHOWN:
            lines.append(f"  … 另有 {len(diffs) - MAX_SHOWN} 处 and {len(diffs) - MAX_SHOWN} more")
    if result.folder is not None:
        lines.append(f"工作簿 Workbooks: {result.folder}")
    if result.cases is not None and result.cases < FULL_CASES:
        lines.append(f"这是快速自检（每个规划 {result.cases} 个案例）；完整自检每个规划 {FULL_CASES} 个案例：xlmodel selftest --full "
                     f"— a quick self-test ({result.cases} cases a plan); the whole one, {FULL_CASES} a plan: xlmodel selftest --full")
    return "\n".join(lines)


def _aside_lines(result: Result) -> list[str]:
    """What was set aside and why: the engine's known deviation, each plan over its cap, and per workbook
    the ROUND's cell with both values (how the engine comes to its fen, said once)."""
    from .parity import SET_ASIDE

    rule = SET_ASIDE.get(result.engine)
    why = f"{rule.reason_zh} {rule.reason_en}" if rule else "（此引擎无已知偏差 no known deviation for this engine）"
    over = result.over_cap
    cap = ("：超过上限 more than the cap allows (" + "、".join(f"{p.plan} {len(p.aside)} > {result.cap(p)}" for p in over)
           + ")") if over else ""
    lines = [f"另计 Set aside: {len(result.aside)} 个工作簿 workbooks — {why} (docs/domain.md §4){cap}:"]
    shown = [(p.plan, *a) for p in result.plans for a in p.aside_at][:20]
    for plan, case, where, ours, theirs in shown:
        values = (f"：{result.label} {theirs:,.2f}，xlmodel {ours:,.2f}" if isinstance(ours, float) and isinstance(theirs, float)
                  else "")
        lines.append(f"  · {plan} 案例 case {case} {where}{values}")
    if len(result.aside) > len(shown):
        lines.append(f"  … 另有 {len(result.aside) - len(shown)} 个 and {len(result.aside) - len(shown)} more")
    if rule is not None and rule.explain_zh:
        lines.append(f"  {rule.explain_zh} — {rule.explain_en}")
    return lines

