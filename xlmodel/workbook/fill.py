"""`xlmodel fill BOOK CASE -o OUT`: a case's inputs written into a workbook built for its plan and year.

Both sides are read the one way each is read everywhere: the case file by
:func:`xlmodel.case.load_case`, the workbook by :func:`.reader.read_workbook` (every cell through
:func:`xlmodel.values.read_field`). A case for another plan, another evaluation year or another
company (both stock codes given, and different) is refused, naming both.

Every input the case gives — figures of any year, company facts, attestations, notes — replaces
the workbook's; what the workbook holds and the case does not give is kept, and said so. The
result is written by the one writer (:func:`.writer.build_workbook`, atomically, never over a file
without ``force``): xlmodel's formulas, the plan's parameters, and cached results computed by the
evaluator, so the output is current when written (``check`` trusts it, ``refresh`` rebuilds it)
and filling an empty model gives exactly the workbook ``build CASE`` gives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..case import Case, CaseError, check_attestations, load_case, part_problems
from ..errors import Problem, XlmodelError
from ..inputs.files import check_output
from ..inputs.untrusted import shown
from .reader import WorkbookRead, read_workbook


@dataclass
class Filled:
    path: Path
    case: Case  # what the output holds: the case over the workbook
    given: dict[str, int]  # inputs / attestations / notes the case gave
    kept: list[str] = field(default_factory=list)  # what the workbook held that the case does not give
    read: WorkbookRead | None = None


def _refuse_another(case: Case, read: WorkbookRead, book) -> None:
    """The case is for the workbook's plan, evaluation year and company (else an error naming both)."""
    plan = read.policy.id
    if case.policy != plan:
        raise XlmodelError(f"案例与工作簿的规划不同：案例 {case.source} 是 {case.policy}，工作簿 {book} 是 {plan} — the "
                           f"case is for plan {case.policy}, the workbook for plan {plan}; build a workbook for the "
                           "case with `xlmodel build CASE -o OUT.xlsx`")
    year = read.case.evaluation_year
    if case.evaluation_year != year:
        raise XlmodelError(f"案例与工作簿的评估年度不同：案例 {case.source} 是 {case.evaluation_year} 年，工作簿 {book} 是 "
                           f"{year} 年 — the case is for fiscal year {case.evaluation_year}, the workbook for {year}; "
                           "build a workbook for the case with `xlmodel build CASE -o OUT.xlsx`")
    ours, theirs = case.company.get("stock_code"), read.case.company.get("stock_code")
    if ours and theirs and ours != theirs:
        raise XlmodelError(f"案例与工作簿不是同一家公司：案例 {case.source} 是 {shown(ours)}，工作簿 {book} 是 "
                           f"{shown(theirs)} — the case is for stock code {shown(ours)}, the workbook for "
                           f"{shown(theirs)}; fill a workbook of this company, or build one with `xlmodel build CASE`")


def merged(case: Case, read: WorkbookRead) -> tuple[Case, list[str]]:
    """The case's inputs over the workbook's: (the case the output holds, what was kept and where)."""
    kept = []
    years: dict[int, dict] = {}
    for fy in sorted(set(read.case.years) | set(case.years)):
        old, new = read.case.years.get(fy, {}), case.years.get(fy, {})
        kept += [f"{fy} {k}" for k in old if k not in new]
        years[fy] = {**old, **new}
    kept += [k for k in read.case.company if k not in case.company]
    kept += [f"attestation {k}" for k in read.case.attestations if k not in case.attestations]
    kept += [f"note {k}" for k in read.case.notes if k not in case.notes]
    out = Case(case.policy, case.evaluation_year, {**read.case.company, **case.company}, years,
               {**read.case.attestations, **case.attestations}, case.source, {**read.case.notes, **case.notes})
    problems = [Problem(f"{case.source} + {read.path}", f"{k} ({fy}): {msg} — the workbook's amount is kept where the "
                                                       "case does not give it; give both in the case")
                for fy, vals in years.items() for k, msg in part_problems(vals)]
    if problems:
        raise CaseError(case.source, problems)
    return out, kept


def fill_workbook(book, case: Case | str | Path, out, *, force: bool = False) -> Filled:
    """Write ``case`` (a Case or a case file) into workbook ``book``; the result goes to ``out``."""
    from ..evaluator import model_for
    from .writer import build_workbook

    out = check_output(out, force=force, suffixes=(".xlsx",))  # before any work
    if not isinstance(case, Case):
        case = load_case(case)
    read = read_workbook(book, check_formulas=True, installed_plan_wins=True)  # the plan the case is evaluated with
    _refuse_another(case, read, book)
    check_attestations(case, model_for(read.policy).attestation_ids())
    full, kept = merged(case, read)
    path = build_workbook(out, policy=read.policy, case=full, force=force, plan_pay=read.plan_pay)  # 测算's amounts kept
    given = {"inputs": sum(len(v) for v in case.years.values()) + len(case.company),
             "attestations": len(case.attestations), "notes": len(case.notes)}
    return Filled(path, full, given, kept, read)
