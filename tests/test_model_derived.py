"""What is derived from a compiled model is kept with it (``model.derived``) and goes with it: no table
keyed by ``id(model)`` that a new model at the old one's address could read."""

from __future__ import annotations

import gc
import linecache
from types import SimpleNamespace

from xlmodel.rules import compiled as K, expr as E
from xlmodel.rules.scalar import evaluate_scalar, scalar_program, scalar_runner
from xlmodel.rules.model import Derived, Model, Param
from xlmodel.evaluator import attestation_ids, model_for
from xlmodel.report.explain import _rule_plan
from xlmodel.report.build import report_roots


def _model(k: float = 0.5) -> Model:
    m = Model(SimpleNamespace(id="test-derived"))
    m.params = {"k": Param("k", k, "", "", "", "")}
    m.scalars = {"a": E.In("cash_dividend") * E.P("k")}
    return m


def test_once_makes_a_value_the_first_time_only():
    d, made = Derived(), []
    assert d.once("x", lambda v: made.append(v) or v * 2, 21) == 42
    assert d.once("x", lambda v: made.append(v) or 0, 1) == 42 and made == [21]


def test_a_table_is_emptied_when_it_holds_its_limit():
    t = Derived().table("t", limit=3)
    for i in range(3):
        t.put(i, i)
    assert len(t) == 3 and t.get(0) == 0
    t.put(2, "again")  # a key it holds: nothing is dropped
    assert len(t) == 3
    t.put(3, 3)
    assert len(t) == 1 and t.get(0) is None and t.get(3) == 3


def test_each_model_keeps_its_own_programs():
    m = _model()
    other = Model(m.policy, params=m.params, scalars=m.scalars)
    assert m == other  # (a model compares by its fields; what it derived is not one)
    p = scalar_program(m)
    assert scalar_program(m) is p and scalar_program(other) is not p
    run, prog = scalar_runner(m)
    assert prog is p and scalar_runner(m)[0] is run


def test_a_new_model_never_reads_what_an_old_one_derived():
    """Models made and dropped one after another (the same address, often): each computes with its own
    parameter value, and the dropped one's program goes with it, its source out of linecache."""
    names = []
    for k in (0.5, 0.25, 2.0):
        m = _model(k)
        env = evaluate_scalar(m, SimpleNamespace(years={2024: {"cash_dividend": 100.0}}, company={},
                                                   attestations={}, evaluation_year=2024))
        assert env.value("a") == 100.0 * k
        names.append(scalar_program(m)._make.__code__.co_filename)
        del m, env
        gc.collect()
    assert len(set(names)) == 3 and not [n for n in names if n in linecache.cache]


def test_the_report_and_the_evaluator_keep_their_readings_with_the_model():
    m = model_for("gcl-energy-2022-2024")
    assert report_roots(m) is report_roots(m) and _rule_plan(m) is _rule_plan(m)
    assert attestation_ids(m) is attestation_ids(m)
    assert m.derived.get(("report", "roots")) is report_roots(m)


def test_the_workbook_keeps_its_formulas_and_labels_with_the_model():
    """A workbook's rendered formulas (per layout) and its calculations' labels are kept with the model
    they come from: a second build of the same plan and timeline reads them, a new model derives its own."""
    from xlmodel.workbook.builder import Builder
    from xlmodel.workbook.sheets.calculations import _calc_label

    m = model_for("gcl-energy-2022-2024")
    b1 = Builder(m.policy)
    node = m.scalars["overall_status"]
    text = b1.formula(node, 0)
    b2 = Builder(m.policy)
    assert b2.formula(node, 0) is text and b2._formulas is b1._formulas
    assert len(m.derived.table("workbook formulas")) >= 1
    other = Builder(m.policy, n_eval=1, n_years=b1.L.n_years, first_year=b1.L.first_year)  # another layout
    other.formula(node, 0)
    assert other._formulas is not b1._formulas and len(m.derived.table("workbook formulas")) >= 2
    assert _calc_label(m, "cond_met") == ("现金分红条件全部满足", "All cash dividend conditions met")
    assert m.derived.table("workbook calculation labels").get("cond_met") == ("现金分红条件全部满足",
                                                                            "All cash dividend conditions met", "是/否")
