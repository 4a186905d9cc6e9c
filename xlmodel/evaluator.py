"""The evaluator: a compiled policy × inputs -> every calculation.

Three renderings of the same expression trees compute (:mod:`xlmodel.compiled`): one case in
plain Python (:func:`evaluate`, :func:`evaluate_years`, the timeline of a workbook, the worksheet
functions), many cases on numpy arrays without per-row Python (:func:`evaluate_arrays`, the
batch), and the reference, ``Node.eval`` through :class:`ArrayEnv` (:func:`reference_arrays`),
which reads inputs through a getter and computes the model's calculations lazily, once each.
The parity tests hold the three to the same values.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import catalogue as cat
from .case import Case, check_attestations
from .expr import from_serial, to_serial
from .fields import FIELDS, Kind
from .policy import Policy, load_policy, policy_by_id

Getter = Callable[[str, int], tuple[np.ndarray, np.ndarray]]


class ArrayEnv:
    def __init__(self, model: cat.Model, n: int, getter: Getter, years=None, params: dict | None = None):
        self.model, self.n, self._get = model, n, getter
        self.params = params or {}  # values that replace the plan's (a workbook's edited parameters)
        self.years = np.broadcast_to(np.asarray(years if years is not None else 0, dtype=float), (n,))
        self._inputs: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        self._calcs: dict[tuple[str, int | None], np.ndarray] = {}

    def _input(self, fid: str, offset: int):
        key = (fid, offset)
        if key not in self._inputs:
            self._inputs[key] = self._get(fid, offset)
        return self._inputs[key]

    def field(self, fid, offset):
        return self._input(fid, offset)[0]

    def missing(self, fid, offset):
        return self._input(fid, offset)[1]

    def param(self, name):
        return self.params[name] if name in self.params else self.model.params[name].value

    def fy(self, offset):
        return self.years + offset

    def calc(self, name, offset):
        key = (name, offset)
        if key not in self._calcs:
            if name in self.model.series:
                self._calcs[key] = self.model.series[name].eval(_Shifted(self, offset or 0))
            else:
                self._calcs[key] = self.model.scalars[name].eval(self)
        return self._calcs[key]


class _Shifted:
    def __init__(self, base: ArrayEnv, shift: int):
        self.base, self.shift, self.n = base, shift, base.n

    def field(self, fid, offset):
        return self.base.field(fid, offset + self.shift)

    def missing(self, fid, offset):
        return self.base.missing(fid, offset + self.shift)

    def param(self, name):
        return self.base.param(name)

    def fy(self, offset):
        return self.base.fy(offset + self.shift)

    def calc(self, name, offset):
        return self.base.calc(name, (offset or 0) + self.shift if name in self.base.model.series else offset)


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
    import os

    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def plan_by_id(pid) -> Policy:
    """:func:`xlmodel.policy.policy_by_id`, remembered while nothing it depends on changes: the plan
    folders (:func:`~xlmodel.policy.plan_directories`), each folder's entries (its modification time,
    size and inode change when a file is added, removed or renamed) and the plan file itself."""
    from .policy import plan_directories

    if not isinstance(pid, str):
        return policy_by_id(pid)
    dirs = tuple((d.path, d.origin) for d in plan_directories())
    hit = _BY_ID.get(pid)
    if hit is not None and hit[0] == dirs and hit[1] == tuple(_stat_key(p) for p, _ in dirs) \
            and hit[2] == _stat_key(hit[3]):
        return hit[4]
    stamps = tuple(_stat_key(p) for p, _ in dirs)
    policy = policy_by_id(pid)
    from .policy import find_policy

    path = find_policy(pid).resolve()
    _BY_ID[pid] = (dirs, stamps, _stat_key(path), path, policy)
    return policy


_MODELS: dict[int, tuple[Policy, cat.Model]] = {}


def model_for(policy: Policy | str) -> cat.Model:
    """The compiled model of a policy (compiled once per loaded policy object)."""
    if isinstance(policy, str):
        policy = load_policy(policy)
    hit = _MODELS.get(id(policy))
    if hit is None or hit[0] is not policy:
        hit = _MODELS[id(policy)] = (policy, cat.compile_policy(policy))
    return hit[1]


_ATTEST: dict[int, tuple] = {}


def attestation_ids(model: cat.Model) -> list[str]:
    """``model.attestation_ids()``, once per model."""
    hit = _ATTEST.get(id(model))
    if hit is None or hit[0] is not model:
        hit = _ATTEST[id(model)] = (model, model.attestation_ids())
    return hit[1]


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
    from .compiled import Unsupported, TimelineEnv

    try:
        return TimelineEnv(model, case, years, params)
    except Unsupported:
        return reference_arrays(model, len(years), timeline_getter(case, years), years, params)


def evaluate_arrays(model: cat.Model, n: int, getter: Getter, years=None, params: dict | None = None):
    """Every calculation for ``n`` cases at once (the compiled numpy program; ``Node.eval`` for a
    tree it cannot compile). The result reads like :class:`ArrayEnv`."""
    from .compiled import Unsupported, vector_program

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


def evaluate_one(model: cat.Model, case: Case, params: dict | None = None):
    """One case in its evaluation year: the scalar program (``Node.eval`` for a tree it cannot compile)."""
    from .compiled import Unsupported, evaluate_scalar

    try:
        return evaluate_scalar(model, case, params)
    except Unsupported:
        return reference_arrays(model, 1, case_getter(case), case.evaluation_year, params)


# ---- reports ---------------------------------------------------------------

def py(v, unit: str | None = None):
    """A numpy element -> a JSON-friendly Python value ("" -> None; date serials -> ISO)."""
    c = v.__class__
    if c is float:  # the scalar path's values first
        if unit == "日期":
            return from_serial(v).isoformat() if v >= 1 else None
        return v + 0.0
    if c is str:
        return None if v == "" else v
    if c is bool:
        return v
    if isinstance(v, str) and v == "":
        return None
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.floating, float, np.integer, int)):
        x = float(v)
        if unit == "日期":
            return from_serial(x).isoformat() if x >= 1 else None
        return x + 0.0
    return v


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
    from .report import build_report

    policy = policy or plan_by_id(case.policy)  # a case names its plan by id, never by a path
    if not baseline:
        policy = plan_only(policy)
    model = model_for(policy)
    check_attestations(case, attestation_ids(model))
    unknown = sorted(set(params or {}) - set(model.params))
    if unknown:
        raise ValueError(f"unknown parameters: {', '.join(unknown)}")
    return build_report(model, evaluate_one(model, case, params), 0, case)


def plan_timeline(policy: Policy, year: int) -> list[int]:
    """The years a plan is reviewed in, as the workbook evaluates them: the plan period and the evaluation year."""
    lo, hi = policy.plan_years
    return list(range(min(lo, year), max(hi, year) + 1))


def evaluate_years(case: Case, policy: Policy | None = None, *, baseline: bool = True, params: dict | None = None):
    """The case evaluated in every year of its plan's timeline (:func:`plan_timeline`): one report per
    year, as the workbook's year columns compute them. The attestations are the evaluation year's."""
    import dataclasses

    from .report import build_report

    policy = policy or plan_by_id(case.policy)
    if not baseline:
        policy = plan_only(policy)
    model = model_for(policy)
    check_attestations(case, attestation_ids(model))
    out = []
    for y in plan_timeline(policy, case.evaluation_year):
        at = case if y == case.evaluation_year else dataclasses.replace(case, evaluation_year=y, attestations={})
        out.append(build_report(model, evaluate_one(model, at, params), 0, at))
    return out
