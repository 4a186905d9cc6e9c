"""The Python renderer: one case's program in plain Python (ScalarProgram), its runtime functions, its
environment (ScalarEnv), and the timeline of a workbook's years (TimelineEnv).
"""

from __future__ import annotations

import ast
import math
from typing import Callable

from . import codegen, expr as E
from .compiled import (B, F, MAX_CACHED, S, T, _Emitter, _FLOAT_MAX, _INF, _Lower, _NAN, _PYCMP, _PYOP, _RINT, _at_year,
                       _key, _lit, _offset_note, _param_names, _signature, field_type, param_values, round_fen1)


def _div(a: float, b: float) -> float:
    """numpy's division (no exception): x/0 is ±inf, 0/0 and NaN/0 NaN."""
    if b:
        return a / b
    if a != a or a == 0:
        return _NAN
    return math.copysign(_INF, a) * math.copysign(1.0, b)


def _rank(x) -> int:
    c = x.__class__
    return 2 if c is bool else 1 if c is str else 0


_RANK = {bool: 2, str: 1}
_CMP_WORD = {">=": "ge", ">": "gt", "<=": "le", "<": "lt", "=": "eq", "<>": "ne"}


def _mk_cmpo(op: str):
    """A comparison across types (``expr._cmp_scalar``): the ranks (numbers < text < booleans) when
    they differ, else the values."""
    py = _PYOP[op]  # one of our six operators, never a plan's text
    src = codegen.function("cmpo", ["a", "b"], [
        "ra = _RANK.get(a.__class__, 0)  # numbers 0, text 1, booleans 2",
        "rb = _RANK.get(b.__class__, 0)",
        f"return a {py} b if ra == rb else ra {py} rb  # the values when of one rank, else the ranks"])
    return codegen.compile_source(src, "comparison", f"cmpo-{_CMP_WORD[op]}", {"_RANK": _RANK}, "cmpo")


def _onum(x) -> float:
    return _NAN if x.__class__ is str else float(x)


def _ntn(x: float) -> float:
    """np.nan_to_num(x, nan=0.0)."""
    if x != x:
        return 0.0
    if x == _INF:
        return _FLOAT_MAX
    if x == -_INF:
        return -_FLOAT_MAX
    return x


def _refmax(*xs) -> float:
    best = _NAN
    for x in xs:
        if x == x and not best >= x:  # np.fmax: NaN is ignored
            best = x
    return _ntn(best)


def _refmin(*xs) -> float:
    best = _NAN
    for x in xs:
        if x == x and not best <= x:
            best = x
    return _ntn(best)


def _strictmax(a, b):
    return a if a != a or a >= b else b  # np.maximum: NaN wins


def _strictmin(a, b):
    return a if a != a or a <= b else b


def _edate1(d: float, m: float) -> float:
    return E._edate(d, m) if d >= 1 else 0.0


def _yearof1(d: float) -> float:
    return float(E.from_serial(d).year) if 1 <= d < _INF else 0.0


def _fstrict(x) -> float:
    return float(x)


def _str(x):
    """A text value as a plain str (numpy's str_ too); anything else as it is."""
    return str(x) if isinstance(x, str) else x


_SCALAR_RT = {
    "_nan": _NAN, "_inf": _INF, "_div": _div, "_rf": round_fen1, "_RINT": _RINT, "_onum": _onum, "_refmax": _refmax,
    "_refmin": _refmin, "_strictmax": _strictmax, "_strictmin": _strictmin, "_edate1": _edate1,
    "_yearof1": _yearof1, "_fstrict": _fstrict, "_str": _str, "_EPOCH": E.EXCEL_EPOCH, "_E": {},
    **{f"_cmpo{i}": _mk_cmpo(op) for i, op in enumerate(_PYCMP)},
}


#: ROUND(x, 2) in the scalar program: round_fen1's common case written in line (a call per rounding is
#: a third of the program's time), the function for the rest; the temporaries are set before each use
_ROUND_INLINE = ("(_k / 100.0 + 0.0 if -(_t := 0.4999999 - abs(_y := (_x := {0}) * 100.0) * 3.552713678800501e-15)"
                 " < _y - (_k := _y + _RINT - _RINT) < _t else _rf(_x))")


class _ScalarEmitter(_Emitter):
    TEMPLATES = {"round": _ROUND_INLINE, "b2f": "(1.0 if {0} else 0.0)", "fstrict": "_fstrict({0})",
                 "sbool": "({0} != '')", "obool": "bool({0})", "too": "{0}", "not": "(not {0})",
                 "nanif": "(_nan if {0} else {1})",
                 "if": "({1} if {0} else {2})", "edate": "_edate1({0}, {1})", "yearof": "_yearof1({0})"}
    JOINS = {"and": " and ", "or": " or "}

    def render(self, i, kind, attrs, args, typ) -> str:
        a = [self.ref(j) for j in args]
        if kind == "const":
            t, r = attrs
            return _lit(t, float(r)) if t == F else self.names.text(ast.literal_eval(r), "text") if t == S else r
        if kind == "inlist":
            return f"({a[0]} in {self.low.pindex[attrs]})"
        if kind == "countif":
            code = self.names.text(attrs, "label")
            if len(a) > 2:  # tuple.count compares with ==, as the sum of comparisons does, in one C loop
                return f"float(({', '.join(a)}).count({code}))"
            return "float(" + " + ".join(f"({x} == {code})" for x in a) + ")" if a else "0.0"
        return self.common(i, kind, attrs, a)


def _prepare_scalar_param(v, typ: str):
    if typ == T:
        return frozenset(v)
    if typ == F:
        return float(v)
    return v


#: the local names of a scalar program's ``run`` (no generated name may be one of them)
_SCALAR_LOCALS = ("_make", "run", "yrs", "co", "at", "Yi", "AY", "Y", "_k", "_t", "_y", "_x")


def _scalar_prologue(em: _ScalarEmitter, names: codegen.Names) -> list[str]:
    """A scalar program's first lines: each input cell it reads, once, as encode() stores it."""
    from ..fields import FIELDS, Kind

    pro: list[str] = []
    rows: dict[int, str] = {}
    cells: dict[tuple[str, int], dict[str, int]] = {}
    for i, (kind, fid, off) in sorted(em.inputs.items()):
        cells.setdefault((fid, off), {})[kind] = i
    for (fid, off), kinds in cells.items():
        off = int(off)
        x = names.new(_at_year(fid, off), "r_")
        f = FIELDS.get(fid)
        if fid.startswith("attest."):
            # an attestation is the evaluation year's (AY): given only where Yi + off is that year
            src = f"(at.get({names.text(fid[len('attest.'):], 'attestation')}) if Yi + {off} == AY else None)"
        elif f is not None and not f.per_year:
            src = f"co.get({names.text(fid, 'field')})"
        else:
            if off not in rows:
                rows[off] = names.new(_at_year("year", off), "d_")
                pro.append(f"{rows[off]} = yrs.get(Yi + {off}) or _E" if off else f"{rows[off]} = yrs.get(Yi) or _E")
            src = f"{rows[off]}.get({names.text(fid, 'field')})"
        pro.append(f"{x} = {src}" + codegen.comment(fid, "input ") + _offset_note(off))
        typ = field_type(fid)
        if "in" in kinds:
            if typ == B:
                enc = f"({x} is not None and bool({x}))"
            elif typ == S:
                enc = f"('' if {x} is None else {x} if {x}.__class__ is str else _str({x}))"
            elif f is not None and f.kind == Kind.DATE:
                enc = f"(0.0 if {x} is None else float(({x} - _EPOCH).days))"
            else:
                enc = f"(0.0 if {x} is None else float({x}))"
            pro.append(f"{em.input_names[kinds['in']]} = {enc}")
        if "miss" in kinds:
            m = em.input_names[kinds["miss"]]
            pro.append(f"{m} = False" if f is not None and f.default_zero else f"{m} = {x} is None")
    return pro


class ScalarProgram:
    """Every calculation of one case in plain Python: ``run(case_years, company, attestations, year,
    attestation_year)`` -> a tuple of values (floats, bools, str), one per root.

    ``roots``: the calculations it returns, ``(name, shift)`` (default: every scalar of the model)."""

    def __init__(self, model, params: dict | None = None, roots: list[tuple[str, int]] | None = None):
        vals, ptypes, windows = _signature(model, params)
        ns = dict(_SCALAR_RT)
        names = codegen.Names(ns, reserved=_SCALAR_LOCALS)
        low = _Lower(model, ptypes, windows)
        low.pindex = _param_names(model, names)
        self.names = list(roots or [(n, 0) for n in model.scalars])
        root_ids = [low.calc(n, s) for n, s in self.names]
        em = _ScalarEmitter(low, root_ids, names).run()
        self.index = {n: i for i, (n, _) in enumerate(self.names)}
        self.types = [low.ops[r][3] for r in root_ids]
        self.ops = len(low.ops)
        ret = ", ".join(em.expr[r] for r in root_ids)
        body = ["Y = float(Yi)"] + _scalar_prologue(em, names) + em.lines + [f"return ({ret},)"]
        run = codegen.function("run", ["yrs", "co", "at", "Yi", "AY"], body).splitlines()
        self.source = codegen.function("_make", list(low.pindex.values()), run + ["return run"])
        self._make = codegen.compile_source(self.source, "scalar", model.policy.id, ns, "_make")
        self._ptypes = ptypes
        self._pnames = list(model.params)

    def bind(self, vals: dict) -> Callable:
        """The program with parameter values bound (the plan's, or a workbook's edited ones)."""
        return self._make(*[_prepare_scalar_param(vals[n], self._ptypes[n]) for n in self._pnames])


class ScalarEnv:
    """One case's calculations, read like :class:`xlmodel.evaluator.ArrayEnv` (element 0)."""

    __slots__ = ("values", "index", "types", "case_years", "company", "attest", "year", "n")

    def __init__(self, values: tuple, index: dict, types: list[str], case_years, company, attest, year: int):
        self.values, self.index, self.types = values, index, types
        self.case_years, self.company, self.attest, self.year = case_years, company, attest, year
        self.n = 1

    def value(self, name: str):
        return self.values[self.index[name]]

    def calc(self, name: str, offset=None):
        return (self.values[self.index[name]],)

    def missing(self, fid: str, offset: int):
        return (cell_missing(fid, raw_cell(self.case_years, self.company, self.attest, self.year, fid, offset)),)


def raw_cell(case_years, company, attest, year: int, fid: str, off: int):
    """A case's value of an input cell (None: absent), as :func:`xlmodel.evaluator.case_getter` reads it."""
    from ..fields import FIELDS

    if fid.startswith("attest."):
        return attest.get(fid[len("attest."):]) if off == 0 else None
    f = FIELDS.get(fid)
    if f is not None and not f.per_year:
        return company.get(fid)
    return (case_years.get(year + off) or {}).get(fid)


def cell_missing(fid: str, v) -> bool:
    from ..fields import FIELDS

    f = FIELDS.get(fid)
    return v is None and not (f is not None and f.default_zero)


def scalar_program(model, params: dict | None = None, roots=None) -> ScalarProgram:
    """The model's scalar program for parameters of these types and window lengths (compiled once)."""
    key = _key(model, params, roots)
    progs = model.derived.table("scalar programs", MAX_CACHED)
    hit = progs.get(key)
    if hit is None:
        hit = progs.put(key, ScalarProgram(model, params, roots))
    return hit


def scalar_runner(model, params: dict | None = None, roots=None) -> tuple[Callable, ScalarProgram]:
    """A scalar program with its parameter values bound: the plan's own (kept with the model per roots
    object: a caller that evaluates often passes the same ``roots`` each time), or ``params``."""
    if params:
        prog = scalar_program(model, params, roots)
        return prog.bind(param_values(model, params)), prog
    bound = model.derived.table("bound scalar programs", MAX_CACHED)
    hit = bound.get(None if roots is None else id(roots))
    if hit is None or hit[2] is not roots:  # (hit[2] keeps the roots' id taken while the entry is kept)
        prog = scalar_program(model, None, roots)
        hit = bound.put(None if roots is None else id(roots), (prog.bind(param_values(model)), prog, roots))
    return hit[0], hit[1]


def evaluate_scalar(model, case, params: dict | None = None, roots=None) -> ScalarEnv:
    """The scalar calculations of one case (its evaluation year), in plain Python: every one, or
    ``roots`` (``(name, 0)`` pairs) and what they need."""
    run, prog = scalar_runner(model, params, roots)
    ey = case.evaluation_year
    return ScalarEnv(run(case.years, case.company, case.attestations, ey, ey), prog.index, prog.types, case.years,
                     case.company, case.attestations, ey)


def evaluate_case_year(model, case, year: int, params: dict | None = None) -> ScalarEnv:
    """The case evaluated in ``year`` (as a timeline column: attestations only in the evaluation year)."""
    import dataclasses

    if year == case.evaluation_year:
        return evaluate_scalar(model, case, params)
    return evaluate_scalar(model, dataclasses.replace(case, evaluation_year=year, attestations={}), params)


class TimelineEnv:
    """A case in every one of ``years`` (the workbook's timeline), read like
    :class:`xlmodel.evaluator.ArrayEnv`: element *j* of ``calc(name, offset)`` is the case evaluated
    in ``years[j]``, attestations only in its evaluation year; a series at ``offset`` is the series
    of the year ``years[j] + offset``."""

    def __init__(self, model, case, years: list[int], params: dict | None = None):
        import dataclasses

        self.model, self.case, self.years, self.n, self.params = model, case, list(years), len(years), params
        self.cases = [case if y == case.evaluation_year else dataclasses.replace(case, evaluation_year=y, attestations={})
                      for y in self.years]
        self.envs = [evaluate_scalar(model, c, params) for c in self.cases]
        prog = scalar_program(model, params)
        self._types = dict(zip((n for n, _ in prog.names), prog.types))
        self._calcs: dict = {}
        self._series = None

    def _array(self, values: list, typ: str):
        import numpy as np

        if typ == F:
            return np.array(values, dtype=float)
        if typ == B:
            return np.array(values, dtype=bool)
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out

    def calc(self, name: str, offset=None):
        series = name in self.model.series
        key = (name, offset or 0) if series else (name, None)
        hit = self._calcs.get(key)
        if hit is None:
            if series:
                hit = self._series_at(name, offset or 0)
            else:
                hit = self._array([e.values[e.index[name]] for e in self.envs], self._types[name])
            self._calcs[key] = hit
        return hit

    def _series_at(self, name: str, offset: int):
        if self._series is None:
            self._series = scalar_runner(self.model, self.params, roots=[(s, 0) for s in self.model.series])
        run, prog = self._series
        c, ey = self.case, self.case.evaluation_year
        i = prog.index[name]
        out = [run(c.years, c.company, c.attestations, y + offset, ey if y == ey else None)[i] for y in self.years]
        return self._array(out, prog.types[i])

    def missing(self, fid: str, offset: int):
        import numpy as np

        return np.array([e.missing(fid, offset)[0] for e in self.envs], dtype=bool)
