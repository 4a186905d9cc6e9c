"""Building a report from an evaluation: the calculations it reads (its roots), its rules' results and its
headline, read from the outputs table; for a scalar program, an assembler written once per model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules import catalogue as cat, codegen
from ..rules.regulatory import SALE_TRIGGERS, plausible_signals
from ..plans import schema as pol
from ..outputs import HEADLINE as _OUTPUTS
from ..fields import SLOTS
from ..rules.expr import py
from ..plans.schema import open_reviews
from . import Report, RuleResult
from .explain import _Later, _cash_paid, _min_cash_note, _missing, _per_model, _rule_plan, _value, decides_without

if TYPE_CHECKING:
    from ..rules.env import ArrayEnv


_HEADLINE_CALCS = tuple(o.id for o in _OUTPUTS)  # the headline outputs (xlmodel.outputs), in the Report's order


def report_roots(model: cat.Model) -> tuple[tuple[str, int], ...]:
    """The calculations a report reads, as a scalar program's roots (one tuple per model, so that the
    program computing only them is found by identity): each rule's parts, the price triggers a sale
    restriction's explanation names, the minimums the note on the minimum compares, the headline."""
    def make(model: cat.Model) -> tuple:
        names = []
        for rd, _static, _u, *parts, _bound in _rule_plan(model):
            names += [n for n in parts if n is not None]
            if rd.spec.kind == "sale_restriction":
                names += [f"{rd.id}.{k}" for k in SALE_TRIGGERS]
            if rd.spec.kind == "plausible_amounts":
                names += [f"{rd.id}.{k}" for k, _, _ in plausible_signals(rd.spec)]
            names.append(f"{rd.id}.parent_only_reading")  # (kept only where the rule has it)
            names += [f"{rd.id}.s{k}_{w}" for k in range(1, len(SLOTS) + 1) for w in ("made", "shown")]  # per slot
            if rd.spec.kind == "no_major_outlay" and rd.check.unit == "项":  # the tests its explanation names
                names += [f"major_outlay.b{i}" for i in range(1, len(model.policy.major_outlay.tests()) + 1)]
        names += [f"{rd.id}.min_cash" for rd in _cash_paid(model)]
        names += _HEADLINE_CALCS
        return tuple((n, 0) for n in dict.fromkeys(names) if n in model.scalars)
    return _per_model("roots", model, make)


def _scalar_val(values: tuple, index: dict):
    def val(name, unit=None):
        v = values[index[name]]
        c = v.__class__  # py(v, unit), its commonest cases first
        if c is bool:
            return v
        if c is str:
            return None if v == "" else v
        if c is float and unit != "日期":
            return v + 0.0
        return py(v, unit)
    return val


def _array_val(env: ArrayEnv, i: int):
    def val(name, unit=None):
        return py(env.calc(name, None)[i], unit)
    return val


def build_report(model: cat.Model, env: ArrayEnv, i: int, case) -> Report:
    """The report of element ``i`` of an evaluation: one case's scalar program (its values and their
    index), or an element of the reference's arrays."""
    values, index, types = getattr(env, "values", None), getattr(env, "index", None), getattr(env, "types", None)
    ey = case.evaluation_year
    if values is not None and index is not None and types is not None:
        val = _scalar_val(values, index)
        results, head = _assembler(model, index, types)(values, lambda rd: _missing(rd, env, 0, ey), _Later(model, val))
    else:
        val = _array_val(env, i)
        later = _Later(model, val)
        results = [_rule_result(rd, static, u, names, bound, val, later, lambda rd: _missing(rd, env, i, ey))
                   for rd, static, u, *names, bound in _rule_plan(model)]
        head = tuple(val(n) for n in _HEADLINE_CALCS)
    return _report(model, case, val, results, head)


def _rule_result(rd, static, u, names, bound, val, later, missing) -> RuleResult:
    """One rule's result, read by name (the reference's arrays)."""
    st_name, a_name, r_name, sf_name, m_name, reason_name = names

    def get(name, unit=None):
        return None if name is None else val(name, unit)
    status, a, r = get(st_name), get(a_name, u), get(r_name, u)
    reason = get(reason_name) if status == "not_applicable" else None
    miss = missing(rd) if status == "missing_input" or decides_without(rd) else []
    return RuleResult(*static, status, a, r, bound if r is not None else None, get(m_name), get(sf_name), u,
                      reason, miss, later)


def _report(model: cat.Model, case, val, results: list[RuleResult], head: tuple) -> Report:
    """The report: its rules' ``results`` and ``head``, the values of :data:`_HEADLINE_CALCS`."""
    p = model.policy
    headline = {o.id: int(v) if o.kind == "count" else v for o, v in zip(_OUTPUTS, head)}  # a field of Report each
    note_zh, note_en = _min_cash_note(model, val)
    if case.evaluation_year >= pol.AUDIT_COMMITTEE_FROM:  # the body that exists in the year (docs/domain.md §6.10)
        for r in results:
            r.title_zh, r.title_en = pol.worded_for_year(r.title_zh, r.title_en, case.evaluation_year)
    return Report(
        policy=p.id, policy_version=p.version, evaluation_year=case.evaluation_year,
        company={k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in case.company.items()},
        **headline, rules=results,
        min_cash_note_zh=note_zh, min_cash_note_en=note_en, plan_years=tuple(p.plan_years),
        open_reviews=tuple(f"{where}: {what}" for where, what in open_reviews(p)))


def _assembler(model: cat.Model, index: dict, types: list[str]):
    """``assemble(values, missing, later)`` -> the rules' results and the headline values
    (:data:`_HEADLINE_CALCS`), for a scalar program's index and types (kept with the model)."""
    made = model.derived.table("report assemblers", 64)
    hit = made.get(id(index))
    if hit is None or hit[0] is not index:  # (hit[0] keeps the index's id taken while the entry is kept)
        hit = made.put(id(index), (index, _write_assembler(model, index, types)))
    return hit[1]


#: the static part of a result, in the order of _rule_plan's tuple
_STATIC = ("id", "clause", "kind", "role", "severity", "title_zh", "title_en")


def _read(k: int, typ: str, unit: str | None, const: str) -> str:
    """The expression giving value ``k`` as a report gives it (:func:`_value`), for its static type."""
    if typ == "f" and unit != "日期":
        return f"(v[{k}] + 0.0)"
    if typ == "b":
        return f"v[{k}]"
    if typ == "s":
        return f"(v[{k}] or None)"
    if unit != "日期":  # a number, a boolean, or a blank ("") or a text: _value's two first cases inline
        return f"(x + 0.0 if (c := type(x := v[{k}])) is float else x if c is bool else _value(x, {const}))"
    return f"_value(v[{k}], {const})"


def _write_assembler(model: cat.Model, index: dict, types: list[str]):
    """Per rule: a new result with each of its slots filled in turn (the dataclass's ``__init__``, with
    its seventeen arguments, costs twice as much), every slot of :class:`RuleResult` exactly once."""
    ns: dict = {"RR": RuleResult, "new": object.__new__, "_value": _value}
    body = []
    for j, (rd, static, u, *names, bound) in enumerate(_rule_plan(model)):
        ks, ka, kr, ksf, km, kreason = (index[n] if n is not None else -1 for n in names)

        def read(k, unit=None):
            return "None" if k < 0 else _read(k, types[k], unit, f"U{j}" if unit is not None else "None")
        for n, value in zip(_STATIC, static):
            ns[f"{n}{j}"] = value
        ns[f"U{j}"], ns[f"B{j}"], ns[f"R{j}"] = u, bound, rd
        slots = [(n, f"{n}{j}") for n in _STATIC] + [
            ("status", f"s = v[{ks}]"), ("actual", read(ka, u)), ("required", f"r = {read(kr, u)}"),
            ("bound_kind", f"(B{j} if r is not None else None)" if kr >= 0 else "None"),
            ("margin", read(km)), ("shortfall", read(ksf)), ("unit", f"U{j}"),
            ("reason", f"({read(kreason)} if s == 'not_applicable' else None)" if kreason >= 0 else "None"),
            ("missing_inputs", "missing(R{0})".format(j) if decides_without(rd) else
             f"(missing(R{j}) if s == 'missing_input' else [])"), ("explain", "later")]
        if sorted(n for n, _ in slots) != sorted(RuleResult.__slots__):
            raise AssertionError("the report assembler does not fill every slot of RuleResult once")
        body += [codegen.comment(rd.id, "rule ").lstrip(), "o = new(RR)", *(f"o.{n} = {x}" for n, x in slots),
                 "out.append(o)"]
    head = ", ".join(_read(index[n], types[index[n]], None, "None") for n in _HEADLINE_CALCS)
    # the plan's text is bound as values (id0, U0, …), never written into the source
    src = codegen.function("assemble", ["v", "missing", "later"],
                           ["out = []", *body, f"return out, ({head})  # the results, the headline values"])
    return codegen.compile_source(src, "report", model.policy.id, ns, "assemble")
