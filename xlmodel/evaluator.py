"""The evaluator: a compiled policy × inputs -> every calculation.

Three renderings of the same expression trees compute (:mod:`xlmodel.rules.compiled`): one case in
plain Python (:func:`evaluate`, :func:`evaluate_years`, the timeline of a workbook, the worksheet
functions), many cases on numpy arrays without per-row Python (:func:`evaluate_arrays`, the
batch), and the reference, ``Node.eval`` through :class:`ArrayEnv` (:func:`reference_arrays`),
which reads inputs through a getter and computes the model's calculations lazily, once each.
The parity tests hold the three to the same values.
"""

from __future__ import annotations

import os

import numpy as np

from .rules import catalogue as cat
from .case import Case, check_attestations
from .rules.compiled import Unsupported
from .rules.vector import vector_program
from .rules.scalar import TimelineEnv, evaluate_scalar
from .rules.env import ArrayEnv, Getter  # noqa: F401 - the reference environment, re-exported
from .rules.expr import to_serial
from .fields import FIELDS, Kind
from .plans.folders import plan_directory_key
from .plans.schema import Policy
from .plans.loading import load_policy, load_plan_by_id
from .report.build import build_report, report_roots


def encode(fid: str, values: list) -> tuple[np.ndarray, np.ndarray]:
    """Python values (None = absent) -> (array as a spreadsheet sees it, missing mask)."""
    f = FIELDS.get(fid)
    kind = f.kind if f else Kind.BOOL  # attestation pseudo-fields are yes/no
    absent = np.array([v is None for v in values], dtype=bool)
    if kind == Kind.BOOL:
        arr = np.array([bool(v) if v is not None else False for v in values], dtype=bool)
    elif kind in (Kind.ENUM, Kind.TEXT):
        arr = np.array([v if v is not None else "" for v in values], dtype=object)
    elif kind == Kind.DATE:
        arr = np.array([to_serial(v) if v is not None else 0.0 for v in values], dtype=float)
    else:
        arr = np.array([float(v) if v is not None else 0.0 for v in values], dtype=float)
    if f is not None and f.default_zero:
        absent = np.zeros(len(values), dtype=bool)
    return arr, absent


_BY_ID: dict[str, tuple] = {}


def _stat_key(path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _unchanged(path: str, stamp: tuple | None) -> bool:
    """``_stat_key(path) == stamp``; a path that was absent is tested without raising an error to say so."""
    if stamp is None:
        return not os.access(path, os.F_OK)
    return _stat_key(path) == stamp


def cached_plan_by_id(pid) -> Policy:
    """:func:`xlmodel.plans.loading.load_plan_by_id`, remembered while nothing it depends on changes: the plan
    folders (:func:`~xlmodel.plans.folders.plan_directories`), each folder's entries (its modification time,
    size and inode change when a file is added, removed or renamed) and the plan file itself."""
    if not isinstance(pid, str):
        return load_plan_by_id(pid)
    dirs = plan_directory_key()
    hit = _BY_ID.get(pid)
    if hit is not None and hit[0] == dirs and _unchanged(hit[3], hit[2]):
        for (path, _), stamp in zip(dirs, hit[1]):
            if not _unchanged(path, stamp):
                break
        else:
            return hit[4]
    stamps = tuple(_stat_key(p) for p, _ in dirs)
    policy = load_plan_by_id(pid)
    from .plans.loading import find_plan

    path = str(find_plan(pid).path.resolve())
    if len(_BY_ID) > 256:
        _BY_ID.clear()
    _BY_ID[pid] = (dirs, stamps, _stat_key(path), path, policy)
    return policy


_MODELS: dict[int, tuple[Policy, cat.Model]] = {}
#: models kept at most (each keeps what is derived from it, its programs among them: a process that
#: loads many plans compiles again)
MAX_MODELS = 64


def model_for(policy: Policy | str) -> cat.Model:
    """The compiled model of a policy (compiled once per loaded policy object)."""
    if isinstance(policy, str):
        policy = load_policy(policy)
    hit = _MODELS.get(id(policy))
    if hit is None or hit[0] is not policy:
        if len(_MODELS) >= MAX_MODELS:
            _MODELS.clear()
        hit = _MODELS[id(policy)] = (policy, cat.compile_policy(policy))
    return hit[1]


def _attestations(model: cat.Model) -> tuple:
    """(model, its attestation ids, as a set), kept with the model."""
    return model.derived.once("attestations", _attestation_sets, model)


def _attestation_sets(model: cat.Model) -> tuple:
    ids = model.attestation_ids()
    return model, ids, frozenset(ids)


def attestation_ids(model: cat.Model) -> list[str]:
    """``model.attestation_ids()``, once per model."""
    return _attestations(model)[1]


def _check_attestations(case: Case, model: cat.Model) -> None:
    """:func:`xlmodel.case.check_attestations` against the model's, at the cost of a set test when all is well."""
    _, ids, known = _attestations(model)
    if case.notes or not known.issuperset(case.attestations):
        check_attestations(case, ids)


def case_getter(case: Case) -> Getter:
    def get(fid: str, offset: int):
        if fid.startswith(cat.ATTEST):
            v = case.attestations.get(fid[len(cat.ATTEST):]) if offset == 0 else None
        elif fid in FIELDS and not FIELDS[fid].per_year:
            v = case.company.get(fid)
        else:
            v = case.value(fid, case.evaluation_year + offset)
        return encode(fid, [v])
    return get


def timeline_getter(case: Case, years: list[int]) -> Getter:
    """One column per fiscal year: column *j* is the case evaluated in ``years[j]``.

    This is the workbook's timeline (every rule in every year): the same inputs, read at each
    year's offsets; the attestations are the evaluation year's only (DOMAIN.md: a board confirms
    the year it reports on), so in other years a rule that needs one has no confirmation."""
    def get(fid: str, offset: int):
        if fid.startswith(cat.ATTEST):
            given = case.attestations.get(fid[len(cat.ATTEST):])
            values = [given if offset == 0 and y == case.evaluation_year else None for y in years]
        elif fid in FIELDS and not FIELDS[fid].per_year:
            values = [case.company.get(fid)] * len(years)
        else:
            values = [case.value(fid, y + offset) for y in years]
        return encode(fid, values)
    return get


def evaluate_timeline(model: cat.Model, case: Case, years: list[int], params: dict | None = None):
    """Every calculation in every one of ``years`` (one array element per year; the scalar path,
    one evaluation per year, read like :class:`ArrayEnv`)."""
    try:
        return TimelineEnv(model, case, years, params)
    except Unsupported:
        return reference_arrays(model, len(years), timeline_getter(case, years), years, params)


def evaluate_arrays(model: cat.Model, n: int, getter: Getter, years=None, params: dict | None = None):
    """Every calculation for ``n`` cases at once (the compiled numpy program; ``Node.eval`` for a
    tree it cannot compile). The result reads like :class:`ArrayEnv`."""
    try:
        prog = vector_program(model, params)
    except Unsupported:
        return reference_arrays(model, n, getter, years, params)
    return prog.evaluate(getter, years, n, params)


def reference_arrays(model: cat.Model, n: int, getter: Getter, years=None, params: dict | None = None) -> ArrayEnv:
    """Every calculation by ``Node.eval`` (the reference the compiled renderings are tested against)."""
    env = ArrayEnv(model, n, getter, years, params)
    for name in model.scalars:
        env.calc(name, None)
    return env


def evaluate_one(model: cat.Model, case: Case, params: dict | None = None, roots=None):
    """One case in its evaluation year: the scalar program (``Node.eval`` for a tree it cannot compile);
    every calculation, or the ``roots`` and what they need (:func:`xlmodel.rules.scalar.evaluate_scalar`)."""
    try:
        return evaluate_scalar(model, case, params, roots)
    except Unsupported:
        return reference_arrays(model, 1, case_getter(case), case.evaluation_year, params)


# ---- reports ---------------------------------------------------------------

_PLAN_ONLY: dict[int, tuple[Policy, Policy]] = {}


def plan_only(policy: Policy) -> Policy:
    """The policy without the regulatory baseline (its own rules only)."""
    hit = _PLAN_ONLY.get(id(policy))
    if hit is None or hit[0] is not policy:
        settings = policy.settings.model_copy(update={"regulatory_baseline": None})
        hit = _PLAN_ONLY[id(policy)] = (policy, policy.model_copy(update={"settings": settings}))
    return hit[1]


def evaluate(case: Case, policy: Policy | None = None, *, baseline: bool = True, params: dict | None = None):
    """Evaluate a case: the plan's rules and, unless ``baseline=False``, the regulatory baseline.

    ``params`` replaces parameter values of the plan by name (``min_rolling.ratio``: 0.25), as a
    workbook whose editable parameters were changed computes them."""
    policy = policy or cached_plan_by_id(case.policy)  # a case names its plan by id, never by a path
    if not baseline:
        policy = plan_only(policy)
    model = model_for(policy)
    _check_attestations(case, model)
    if params:
        unknown = sorted(set(params) - set(model.params))
        if unknown:
            raise ValueError(f"unknown parameters: {', '.join(unknown)}")
    return build_report(model, evaluate_one(model, case, params, report_roots(model)), 0, case)


def plan_timeline(policy: Policy, year: int) -> list[int]:
    """The years a plan is reviewed in, as the workbook evaluates them: the plan period and the evaluation year."""
    lo, hi = policy.plan_years
    return list(range(min(lo, year), max(hi, year) + 1))


def evaluate_years(case: Case, policy: Policy | None = None, *, baseline: bool = True, params: dict | None = None):
    """The case evaluated in every year of its plan's timeline (:func:`plan_timeline`): one report per
    year, as the workbook's year columns compute them. The attestations are the evaluation year's."""
    import dataclasses

    policy = policy or cached_plan_by_id(case.policy)
    if not baseline:
        policy = plan_only(policy)
    model = model_for(policy)
    _check_attestations(case, model)
    out = []
    for y in plan_timeline(policy, case.evaluation_year):
        at = case if y == case.evaluation_year else dataclasses.replace(case, evaluation_year=y, attestations={})
        out.append(build_report(model, evaluate_one(model, at, params, report_roots(model)), 0, at))
    return out
