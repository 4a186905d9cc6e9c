"""Issue 13: the compiled renderings of the trees (xlmodel/rules/compiled.py) compute what Node.eval computes.

* the scalar program (one case, plain Python): every report field of ``evaluate`` equals the
  report built from ``Node.eval`` (the reference), on 300 random and boundary cases per plan, with
  edited parameters, over every year of the timeline, and on arbitrary input (hypothesis);
* the vector program (many cases, numpy): every calculation equals the reference's, element by
  element and kind by kind (number, text, boolean, blank);
* every node class, in trees of every shape the lowering meets (text against numbers, IF of a
  boolean and a number, MIN/MAX over blanks, division by zero, …), in all three renderings;
* the workbook's data validations cover every input cell as one validation per rule, and
  ``xlmodel --help`` lists every command without importing what it does not use.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from xlmodel.rules import compiled as K
from xlmodel.rules.vector import VectorEnv, _vector_rt, vector_program
from xlmodel.rules.scalar import ScalarProgram, evaluate_scalar
from xlmodel.rules import expr as E
from xlmodel.case import Case, load_case, parse_case
from xlmodel.rules.model import Model, Param
from xlmodel.evaluator import (case_getter, evaluate, evaluate_arrays, evaluate_timeline, evaluate_years, model_for,
                               reference_arrays, timeline_getter)
from xlmodel.money import round_fen
from xlmodel.report.build import build_report
from xlmodel.synth import make_consistent, parity_cases

POLICIES = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")


def _kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, str):
        return "text"
    if v is None:
        return "none"
    if isinstance(v, (list, tuple, dict)):
        return type(v).__name__
    return "number"


def same(a, b) -> bool:
    """Equal and of the same kind (True is not 1.0; NaN equals NaN), recursively."""
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if _kind(a) == "number":
        a, b = float(a), float(b)
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


def reference_report(case: Case, params: dict | None = None):
    model = model_for(case.policy)
    return build_report(model, reference_arrays(model, 1, case_getter(case), case.evaluation_year, params), 0, case)


@pytest.fixture(scope="module", params=POLICIES)
def plan_cases(request):
    return request.param, parity_cases(request.param, 300, seed=13)


# ---- one case: every report field -------------------------------------------------------------------

def test_every_report_field_equals_the_reference(plan_cases):
    pid, cases = plan_cases
    for c in cases:
        got, want = evaluate(c).to_dict(), reference_report(c).to_dict()
        assert same(got, want), (c.source, [k for k in want if not same(got[k], want[k])])


def test_every_calculation_equals_the_reference(plan_cases):
    pid, cases = plan_cases
    model = model_for(pid)
    for c in cases[:100]:
        env = evaluate_scalar(model, c)
        ref = reference_arrays(model, 1, case_getter(c), c.evaluation_year)
        for name in model.scalars:
            assert same(env.value(name), ref.calc(name, None)[0]), (c.source, name)


@pytest.mark.parametrize("params", [{"min_rolling.window": 2}, {"min_rolling.window": 4.5, "min_rolling.ratio": 0.2},
                                    {"min_rolling.ratio": 0.5}])
def test_edited_parameters_as_the_reference_computes_them(params):
    for c in parity_cases("gcl-energy-2022-2024", 30, seed=5):
        assert same(evaluate(c, params=params).to_dict(), reference_report(c, params).to_dict()), c.source


def test_every_year_of_the_timeline_as_the_reference(plan_cases):
    pid, cases = plan_cases
    model = model_for(pid)
    for c in cases[:40]:
        years = list(range(c.evaluation_year - 2, c.evaluation_year + 1))
        tl = evaluate_timeline(model, c, years)
        ref = reference_arrays(model, len(years), timeline_getter(c, years), years)
        for name in model.scalars:
            for j in range(len(years)):
                assert same(tl.calc(name, None)[j], ref.calc(name, None)[j]), (c.source, name, years[j])
        for name in model.series:
            for off in (-4, -2, 0, 1):
                assert all(same(x, y) for x, y in zip(tl.calc(name, off), ref.calc(name, off))), (c.source, name, off)
        for rd in model.rules:
            for fid, off in rd.app_fields + rd.check_fields:
                assert list(tl.missing(fid, off)) == list(ref.missing(fid, off))
        by_year = evaluate_years(c)
        for rep in by_year:
            at = c if rep.evaluation_year == c.evaluation_year else \
                dataclasses.replace(c, evaluation_year=rep.evaluation_year, attestations={})
            assert same(rep.to_dict(), reference_report(at).to_dict())


# ---- many cases: the vector program ------------------------------------------------------------------

def _stacked(cases):
    """One getter over many cases (element i: case i), as the batch reads them."""
    getters = [case_getter(c) for c in cases]

    def get(fid, off):
        parts = [g(fid, off) for g in getters]
        return np.concatenate([v for v, _ in parts]), np.concatenate([m for _, m in parts])
    return get


def test_the_vector_program_equals_the_reference_element_by_element(plan_cases):
    pid, cases = plan_cases
    model = model_for(pid)
    get = _stacked(cases)
    years = [c.evaluation_year for c in cases]
    vec = evaluate_arrays(model, len(cases), get, years)
    assert isinstance(vec, VectorEnv)
    ref = reference_arrays(model, len(cases), get, years)
    for name in model.scalars:
        a, b = vec.calc(name, None), ref.calc(name, None)
        bad = [i for i in range(len(cases)) if not same(a[i], b[i])]
        assert not bad, (name, cases[bad[0]].source, a[bad[0]], b[bad[0]])


def test_text_the_table_lacks_gets_a_table_of_its_own():
    """A free-text input (not one of the plan's strings) is coded in a table made for that evaluation."""
    p = E.P("t")
    tree = E.If(E.In("audit_opinion").eq(p), E.Lbl("pass"), E.In("audit_opinion"))
    m = _model({"x": tree, "y": E.In("audit_opinion") < E.Lbl("pass")}, {"t": "qualified"})
    vals = np.array(["zzz-unknown", "qualified", "", "aaa"], dtype=object)

    def get(fid, off):
        return vals, vals == ""
    vec = vector_program(m).evaluate(get, 2024, 4)
    ref = reference_arrays(m, 4, get, 2024)
    for name in ("x", "y"):
        assert [_kind(v) + str(v) for v in vec.calc(name)] == [_kind(v) + str(v) for v in ref.calc(name, None)]


# ---- every node class --------------------------------------------------------------------------------

FIELDS_USED = {  # real field ids, one of each kind
    "net_profit_attributable": "amount", "distributable_profit": "amount", "cash_dividend": "amount0",
    "going_concern_unaffected": "bool", "audit_opinion": "enum", "agm_date": "date", "board": "company",
}


def _model(scalars: dict, params: dict, series: dict | None = None) -> Model:
    m = Model(SimpleNamespace(id="test-trees"))
    m.params = {k: Param(k, v, "", "", "", "") for k, v in params.items()}
    m.series = dict(series or {})
    m.scalars = dict(scalars)
    return m


def _trees():
    a, b, c0 = E.In("net_profit_attributable"), E.In("distributable_profit", -1), E.In("cash_dividend")
    flag, op, day, board = E.In("going_concern_unaffected"), E.In("audit_opinion"), E.In("agm_date"), E.In("board")
    att = E.In("attest.x")
    blank_or = E.If(E.Missing((("net_profit_attributable", 0),)), E.Blank(), a)  # a number or ""
    flag_or = E.If(E.Missing((("going_concern_unaffected", 0),)), E.Blank(), flag)  # a boolean or ""
    series = {"s": a + c0, "t": E.C("s", 0) * E.P("r")}
    scalars = {
        "num": E.Num(0), "one": E.Num(1), "blank": E.Blank(), "lbl": E.Lbl("pass"), "fy": E.FY(-1),
        "p": E.P("r"), "plist_in": E.InList(op, E.P("ok")), "board_in": E.InList(board, E.P("ok")),
        "add": a + b, "sub": a - b, "mul": a * E.P("r"), "div": a / b, "div0": a / E.Num(0), "zero0": E.Num(0) / E.Num(0),
        "cmp_num": a >= b, "cmp_eq": a.eq(b), "cmp_txt": op.eq(E.Lbl("qualified")), "cmp_txt_lt": op < E.Lbl("qualified"),
        "cmp_num_txt": a < E.Lbl("pass"), "cmp_bool_num": flag.eq(E.Num(1)), "cmp_bool_txt": flag > E.Blank(),
        "cmp_mixed": blank_or >= b, "cmp_mixed2": blank_or.eq(E.Blank()), "cmp_mixed3": flag_or.eq(E.Num(1) > E.Num(0)),
        "cmp_mixed4": flag_or.ne(blank_or), "cmp_mixed5": E.Lbl("pass") <= blank_or,
        "and": E.And(flag, a > E.Num(0), op), "or": E.Or(blank_or, flag_or), "not": E.Not(blank_or),
        "if_num_bool": E.If(flag, a, flag), "if_bool": E.If(a > E.Num(0), flag, E.Num(1) > E.Num(0)),
        "if_txt": E.If(flag, op, E.Lbl("pass")), "if_mixed": E.If(flag, blank_or, flag_or),
        "if_nan_cond": E.If(a / E.Num(0), E.Num(1), E.Num(0)), "if_txt_cond": E.If(op, E.Num(1), E.Num(0)),
        "max": E.Max(E.Num(0), a, b, E.C("mul"), E.Round2(a)), "min": E.Min(a, b), "min_blank": E.Min(E.In("total_assets")),
        "max_txt": E.Max(E.C("blank_num"), E.Num(1)), "blank_num": blank_or, "max_inf": E.Max(E.C("div0")),
        "min_nan": E.Min(E.C("add"), E.C("zero0") + E.Num(0)),
        "sum": E.Sum(a, b, c0), "sum_mixed": E.Sum(blank_or, flag, a), "window": E.Window(a, E.P("w"), 3),
        "window_skip": E.Window(E.C("s", 0), E.P("w"), 3, skip=1), "round": E.Round2(a * E.P("r")),
        "round_mixed": E.Round2(blank_or), "countif": E.CountIf(E.Lbl("qualified"), op, blank_or, flag, E.C("lbl")),
        "edate": E.EDate(day, E.P("m")), "year": E.YearOf(day), "year_blank": E.YearOf(E.If(E.Missing((("agm_date", 0),)), E.Blank(), day)),
        "series": E.C("t", 0) + E.C("s", -1), "att": E.And(att, E.Not(E.Missing((("attest.x", 0),)))),
        "deep": _deep(a, 60),
    }
    return scalars, series


def _deep(n, k):
    """A tree nested ``k`` levels deep (each level reads the one below once): deeper than Python nests one expression."""
    for i in range(k):
        n = E.If(E.In("distributable_profit", -(i % 2)) > E.Num(0), n - E.Num(1), E.Num(0)) if i % 3 else n + E.Num(1)
    return n


def _random_case(rng) -> Case:
    def amount():
        return None if rng.random() < 0.2 else float(rng.choice([0.0, -1.5, 1234.5, 0.005, 1e13, 2.675]))

    years = {}
    for y in (2022, 2023, 2024):
        v = {"net_profit_attributable": amount(), "distributable_profit": amount(), "cash_dividend": amount(),
             "total_assets": amount(),
             "going_concern_unaffected": None if rng.random() < 0.3 else bool(rng.random() < 0.5),
             "audit_opinion": None if rng.random() < 0.3 else str(rng.choice(["qualified", "adverse", "standard_unqualified"])),
             "agm_date": None if rng.random() < 0.3 else dt.date(2024, int(rng.integers(1, 13)), int(rng.integers(1, 29)))}
        years[y] = {k: x for k, x in v.items() if x is not None}
    company = {"board": str(rng.choice(["sse_main", "star"]))} if rng.random() < 0.7 else {}
    att = {"x": bool(rng.random() < 0.5)} if rng.random() < 0.6 else {}
    return Case("test-trees", 2024, company, years, att)


@pytest.mark.parametrize("params", [{"r": 0.3, "w": 3, "m": 2, "ok": ("qualified", "sse_main")},
                                    {"r": 1, "w": 2.5, "m": -13, "ok": ()}])
def test_every_node_class_renders_alike_in_python_numpy_and_the_reference(params):
    scalars, series = _trees()
    m = _model(scalars, params, series)
    used = {type(n).__name__ for t in list(scalars.values()) + list(series.values()) for n in t.walk()}
    assert used >= {"Num", "Blank", "In", "Missing", "P", "C", "Lbl", "Bin", "Cmp", "And", "Or", "Not", "Max", "Min",
                    "Sum", "Window", "Round2", "If", "InList", "CountIf", "EDate", "FY", "YearOf"}
    rng = np.random.default_rng(4)
    cases = [_random_case(rng) for _ in range(120)]
    get = _stacked(cases)
    ref = reference_arrays(m, len(cases), get, 2024)
    vec = vector_program(m).evaluate(get, 2024, len(cases))
    for i, c in enumerate(cases):
        sc = evaluate_scalar(m, c)
        for name in scalars:
            want = ref.calc(name, None)[i]
            assert same(sc.value(name), want), (name, i, sc.value(name), want)
            assert same(vec.calc(name)[i], want), (name, i, vec.calc(name)[i], want)


def test_an_unknown_node_class_falls_back_to_the_reference():
    class Twice(E.Node):
        def __init__(self, a):
            self.a = a

        def children(self):
            return (self.a,)

        def eval(self, env):
            return self.a.eval(env) * 2.0

    m = _model({"x": Twice(E.In("net_profit_attributable"))}, {})
    with pytest.raises(K.Unsupported):
        ScalarProgram(m)
    get = _stacked([_random_case(np.random.default_rng(0))])
    env = evaluate_arrays(m, 1, get, 2024)
    assert not isinstance(env, VectorEnv) and env.calc("x", None).shape == (1,)


# ---- rounding and dates, value by value -----------------------------------------------------------------

def test_round_fen_one_value_and_arrays_are_round_fen():
    rng = np.random.default_rng(0)
    xs = []
    for scale in (1, 1e4, 1e8, 1e12, 4e13):
        v = rng.uniform(-scale, scale, 3000)
        xs += [v, np.round(v, 2), np.round(v, 3), np.floor(v) + 0.005, np.round(v, 2) * 0.3, np.round(v, 2) / 3]
    xs = np.concatenate(xs + [np.array([0.0, -0.0, 0.005, -0.005, 1.005, 2.675, 1e15, np.nan, 2.0**52 / 100, 1e16]),
                              np.array(_near_halves(rng, 200))])
    want = round_fen(xs)
    assert all(same(a, b) and math.copysign(1, a) == math.copysign(1, b) for a, b in zip(K.round_fen_v(xs), want))
    assert all(same(K.round_fen1(x), w) for x, w in zip(xs.tolist(), want.tolist()))


def _near_halves(rng, n: int) -> list[float]:
    """Amounts at every scale, on, near and a hair either side of a half fen, and at the edges of
    float arithmetic (2**51 and 2**52 fen, the smallest numbers)."""
    xs = []
    for scale in (1e-3, 1, 1e4, 1e5, 1e6, 1e8, 1e10, 1e12, 4e13):
        v = rng.uniform(-scale, scale, n)
        r = np.round(v, 2)
        h = r + 0.005  # a half fen, as nearly as a double holds it; then an ulp off, and a few parts in
        # 10**15 off (what 15 significant digits may or may not round back onto the half)
        xs += [v, r, np.round(v, 3), np.floor(v) + 0.005, r * 0.3, r / 3, r + 0.004999999, r + 0.0050000001,
               h, np.nextafter(h, np.inf), np.nextafter(h, -np.inf), h * (1 + 1e-15), h * (1 - 1e-15),
               h * (1 + 4e-15), h * (1 - 4e-15), h * (1 + 4e-14), h * (1 - 4e-14)]
    edges = [0.0, -0.0, 0.005, -0.005, 1.005, 2.675, -2.675, 2.0**51 / 100, 2.0**51 / 100 - 0.01, -2.0**51 / 100,
             2.0**52 / 100, 1e15, 5e-324, -5e-324, 0.0049999999, 0.0050000001]
    return np.concatenate(xs + [np.array(edges)]).tolist()


def test_round_in_line_in_the_scalar_program_is_round_fen():
    """The scalar program writes ROUND's common case in line (temporaries named after each operation);
    on values near a half fen at every scale, alone, nested in another ROUND and under MAX, it gives
    what money.round_fen and the reference give (no negative zero)."""
    a, b = E.In("net_profit_attributable"), E.In("cash_dividend")
    m = _model({"r": E.Round2(a), "nested": E.Round2(E.Round2(a) * E.P("k") - E.Round2(b)),
                "max": E.Max(E.Round2(a), E.Round2(b) * E.P("k"))}, {"k": 0.3})
    src = ScalarProgram(m).source  # three ROUNDs (a's and b's each computed once), each in line, each
    assert src.count("_RINT - _RINT") == 3 and src.count("_rf(") == 3  # with the function for the rest
    xs = _near_halves(np.random.default_rng(3), 25)
    want = round_fen(np.array(xs))
    for x, y, w in zip(xs, reversed(xs), want.tolist()):
        c = Case("test-trees", 2024, {}, {2024: {"net_profit_attributable": x, "cash_dividend": y}}, {})
        got = evaluate_scalar(m, c)
        assert same(got.value("r"), w) and math.copysign(1, got.value("r")) == math.copysign(1, w), (x, got.value("r"), w)
        ref = reference_arrays(m, 1, case_getter(c), 2024)
        for name in ("nested", "max"):
            assert same(got.value(name), ref.calc(name, None)[0]), (name, x, y)


def test_edate_and_year_in_numpy_as_in_python():
    rt = _vector_rt()
    rng = np.random.default_rng(1)
    d = np.concatenate([rng.uniform(-5, 2_900_000, 20000), [0, 1, 59, 60, 61, 45688.9]])
    for months in (2.0, -1.0, 0.0, 1.9, -13.5, 24.0):
        ok = d >= 1
        want = np.zeros(len(d))
        want[ok] = E._edate_v(d[ok], np.full(ok.sum(), months)).astype(float)
        assert (rt["_edate"](d, months, len(d)) == want).all()
    want = np.zeros(len(d))
    ok = d >= 1
    want[ok] = E._year_of_v(d[ok]).astype(float)
    assert (rt["_yearof"](d, len(d)) == want).all()


# ---- arbitrary input ----------------------------------------------------------------------------------

fen = st.integers(min_value=-10**13, max_value=10**14).map(lambda x: x / 100)
maybe = lambda s: st.one_of(st.none(), s)  # noqa: E731


@st.composite
def any_case(draw):
    pid = draw(st.sampled_from(POLICIES))
    years = []
    for y in (2022, 2023, 2024):
        v = {"fiscal_year": y, "net_profit_attributable": draw(maybe(fen)), "distributable_profit": draw(maybe(fen)),
             "retained_earnings_consolidated": draw(maybe(fen)), "retained_earnings_parent": draw(maybe(fen)),
             "total_assets": draw(maybe(fen.map(abs))), "net_assets": draw(maybe(fen.map(abs))),
             "planned_major_outlay": draw(maybe(fen.map(abs))), "cash_dividend": draw(maybe(fen.map(abs))),
             "buyback_amount": draw(maybe(fen.map(abs))), "stock_dividend": draw(maybe(fen.map(abs))),
             "major_outlay_planned": draw(maybe(st.booleans())), "going_concern_unaffected": draw(maybe(st.booleans())),
             "development_stage": draw(maybe(st.sampled_from(["mature", "growth", "indeterminate"]))),
             "audit_opinion": draw(maybe(st.sampled_from(["standard_unqualified", "qualified", "adverse"]))),
             "vote_for_ratio": draw(maybe(st.sampled_from([0.0, 0.5, 2 / 3, 1.0]))),
             "agm_date": draw(maybe(st.dates(dt.date(2000, 1, 1), dt.date(2100, 1, 1)).map(str))),
             "payout_date": draw(maybe(st.dates(dt.date(2000, 1, 1), dt.date(2100, 1, 1)).map(str)))}
        years.append({k: x for k, x in v.items() if x is not None})
    att = {rid: draw(st.booleans()) for rid in model_for(pid).attestation_ids() if draw(st.booleans())}
    company = {"board": draw(st.sampled_from(["sse_main", "chinext", "star", "bse"]))} if draw(st.booleans()) else {}
    return {"policy": pid, "evaluation_year": 2024, "years": years, "attestations": att, "company": company}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_case())
def test_arbitrary_input_every_report_field_equals_the_reference(data):
    make_consistent(data)  # what contradicts itself is refused on input (tests/test_plausibility.py)
    c = parse_case(data)
    assert same(evaluate(c).to_dict(), reference_report(c).to_dict())


# ---- the worksheet functions, the workbook, the command line ------------------------------------------------

def test_the_worksheet_functions_read_the_scalar_program(tmp_path):
    from xlmodel import udfs

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_udfs import excel_args

    c = load_case("samples/gcl-energy-2022-2024.yaml")
    a = excel_args(c)
    rep = reference_report(c)
    assert udfs.XLM_MIN_CASH(*a) == rep.min_cash_dividend
    assert udfs.XLM_FAIL_COUNT(*a) == rep.fail_count
    assert udfs.evaluate_case(*a) is udfs.evaluate_case(*a)  # one evaluation for the same arguments
    unpicklable = list(a)
    unpicklable[4] = [list(r) for r in a[4]]
    unpicklable[4][0][0] = (x for x in ())  # a generator: no pickle, no hash → evaluated, not cached
    assert isinstance(udfs.XLM_MIN_CASH(*unpicklable), str)


def test_one_data_validation_per_rule_covers_every_input_cell(tmp_path):
    import openpyxl

    from xlmodel.fields import FIELDS
    from xlmodel.workbook.layout import SHEETS, Layout
    from xlmodel.workbook.writer import build_workbook

    c = load_case("samples/gcl-energy-2022-2024.yaml")
    wb = openpyxl.load_workbook(build_workbook(tmp_path / "b.xlsx", case=c))
    ws = wb[SHEETS["inputs"]]
    dvs = ws.data_validations.dataValidation
    rules = [(d.type, d.formula1, d.formula2, d.error, d.prompt) for d in dvs]
    # one validation per input row (its rule and its own prompt, issue 23.5), not one per cell: a row's cells
    # are one range; the first year and the evaluation year have one each
    n_rows = len(FIELDS) + len(model_for(c.policy).attestation_ids())
    assert len(rules) == len(set(rules)) <= n_rows + 2
    covered: dict[str, int] = {}
    for d in dvs:
        for rg in d.sqref.ranges:
            for row in ws[rg.coord] if ":" in rg.coord else [[ws[rg.coord]]]:
                for cell in row:
                    covered[cell.coordinate] = covered.get(cell.coordinate, 0) + 1
    layout = Layout(model_for(c.policy), c.evaluation_year)
    for fid, row in layout.inputs.items():
        for y in layout.years:
            cell = ws.cell(row + 1, layout.col_of(y) + 1).coordinate
            assert covered.get(cell) == 1, (fid, y, cell)


def test_help_lists_every_command_without_loading_them():
    from xlmodel.cli import build_parser

    full, lazy = build_parser(None).format_help(), build_parser(["--help"]).format_help()
    assert full == lazy
    import argparse

    def helps(p):
        sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
        return [(a.dest, a.help) for a in sub._choices_actions]
    assert helps(build_parser(None)) == helps(build_parser(["policies"]))
    code = ("import sys, io, contextlib\nfrom xlmodel.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    try: main(['--help'])\n    except SystemExit: pass\n"
            "print(sorted(m for m in ('numpy', 'pandas', 'pydantic', 'openpyxl', 'xlsxwriter', 'yaml', 'xlmodel.draft')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ---- a report's own program: only what the report reads ------------------------------------------------

def test_a_report_from_its_own_program_equals_one_from_every_calculation():
    """``evaluate`` runs a program computing only what a report reads (``report_roots``); on every plan
    (the bundled three and the test plans with any-of groups, sale restrictions, per-distribution
    shares), its reports, explanations included, equal those built from every calculation, and it
    computes fewer values."""
    from test_capabilities import FIFTH, SIXTH, SEVENTH, _capability_cases

    from xlmodel.plans.loading import load_policy_file
    from xlmodel.report.build import report_roots

    plans = [(model_for(pid), parity_cases(pid, 60, seed=21)) for pid in POLICIES]
    for path, seed in ((FIFTH, 5), (SIXTH, 6), (SEVENTH, 7)):
        pol = load_policy_file(path)
        plans.append((model_for(pol), _capability_cases(pol, 40, seed)))
    for model, cases in plans:
        roots = report_roots(model)
        assert 0 < len(roots) < len(model.scalars)
        for c in cases:
            own = build_report(model, evaluate_scalar(model, c, None, roots), 0, c)
            every = build_report(model, evaluate_scalar(model, c), 0, c)
            assert len(own.rules) == len(model.rules)
            assert same(own.to_dict(), every.to_dict()), (model.policy.id, c.source)
            assert same(evaluate(c, model.policy).to_dict(), every.to_dict()), (model.policy.id, c.source)
