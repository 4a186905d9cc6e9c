"""Generated Python (xlmodel.rules.codegen): a traceback through it shows its lines, its names are read off the
calculations, and a plan's text never reaches its source, however hostile."""

from __future__ import annotations

import gc
import inspect
import json
import linecache
import re
import traceback
from types import SimpleNamespace

import numpy as np
import pytest

from xlmodel.rules import catalogue as cat, codegen, compiled as K, expr as E
from xlmodel.rules.vector import VectorProgram
from xlmodel.rules.scalar import ScalarProgram, _SCALAR_RT, evaluate_scalar, scalar_program
from xlmodel.case import Case
from xlmodel.rules.model import Model, Param
from xlmodel.evaluator import evaluate_one, load_policy, model_for
from xlmodel.report.build import _assembler, build_report, report_roots

GCL = "gcl-energy-2022-2024"

#: what a hostile plan might put in an id or a title: quotes of both kinds, a backslash, line breaks, a
#: comment sign and code that would run if it were ever written into source
HOSTILE = "x'\"\\\n\r__import__('os').system(\"echo pwned\")#\u2028"
#: none of these may appear in any generated source
FORBIDDEN = ("__import__", "system(", "pwned\"", "\\\n", "'\"", "\u2028")


def _model(scalars: dict, params: dict | None = None) -> Model:
    m = Model(SimpleNamespace(id="test-codegen"))
    m.params = {k: Param(k, v, "", "", "", "") for k, v in (params or {}).items()}
    m.scalars = dict(scalars)
    return m


def _case(years: dict, attest: dict | None = None) -> Case:
    return Case("test-codegen", 2024, {}, years, attest or {})


# ---- the helper itself ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [HOSTILE, "min_rolling.status", "中文", "", "1abc", "class", "__init__", "a" * 500])
def test_an_identifier_made_from_any_text_is_a_plain_identifier(text):
    name = codegen.ident(text, "c_")
    assert name.isidentifier() and name.isascii() and name.startswith("c_") and len(name) <= 60
    assert "__" not in name and (not name.endswith("_") or name == "c_")  # (c_: nothing of it is ASCII)


def test_a_calculation_id_reads_as_itself():
    assert codegen.ident("min_rolling.status", "c_") == "c_min_rolling_status"
    assert codegen.ident("cash_share.b2", "c_") == "c_cash_share_b2"


def test_names_are_unique_within_a_function():
    names = codegen.Names({"c_a_b": 1})
    assert [names.new("a.b", "c_"), names.new("a_b", "c_"), names.new("a-b", "c_")] == ["c_a_b_2", "c_a_b_3", "c_a_b_4"]


def test_a_comment_is_one_line_and_never_the_hostile_text():
    c = codegen.comment(HOSTILE, "rule ")
    assert c.startswith("  # rule ") and "\n" not in c and "\r" not in c and "__import__" not in c
    assert codegen.comment("min_rolling.status") == "  # min_rolling.status"
    with pytest.raises(ValueError):
        codegen.comment("a", "two\nlines")


def test_a_hostile_string_is_bound_as_a_value_never_written_as_a_literal():
    ns: dict = {}
    names = codegen.Names(ns)
    assert names.text("pass") == "'pass'" and names.text("") == "''"
    ref = names.text(HOSTILE, "label")
    assert ref.isidentifier() and ns[ref] == HOSTILE and names.text(HOSTILE) == ref  # one name per value


def test_compiled_source_is_in_linecache_while_its_function_lives():
    ns: dict = {}
    fn = codegen.compile_source(codegen.function("f", ["a"], ["return a + 1  # one more"]), "test", "t", ns, "f")
    name = fn.__code__.co_filename
    assert re.fullmatch(r"<xlmodel test t #\d+>", name)
    assert fn(1) == 2 and inspect.getsource(fn) == "def f(a):\n    return a + 1  # one more\n"
    other = codegen.compile_source("def f():\n    pass\n", "test", "t", {}, "f")
    assert other.__code__.co_filename != name  # each compilation a file name of its own
    del fn, ns
    gc.collect()
    assert name not in linecache.cache


def test_a_source_that_does_not_compile_leaves_nothing_in_linecache():
    before = set(linecache.cache)
    with pytest.raises(SyntaxError):
        codegen.compile_source("def f(:\n", "test", "bad", {}, "f")
    assert set(linecache.cache) == before


# ---- the programs: readable, and a traceback shows their lines ----------------------------------------

def _traceback_of(fn) -> str:
    with pytest.raises(ValueError) as ei:
        fn()
    return "".join(traceback.format_exception(ei.value))


def test_a_traceback_through_the_scalar_program_shows_the_generated_line():
    """EDATE of a text cannot be computed (float of a text): the traceback names the program's file and
    shows the very line, its variable named after the calculation and commented with it."""
    bad = E.EDate(E.In("audit_opinion"), E.Num(1))
    m = _model({"due.date": bad, "also": E.EDate(E.In("audit_opinion"), E.Num(1)) + E.Num(1)})
    prog = ScalarProgram(m)
    run = prog.bind(K.param_values(m))
    text = _traceback_of(lambda: run({2024: {"audit_opinion": "标准无保留意见"}}, {}, {}, 2024, 2024))
    assert re.search(r'File "<xlmodel scalar test-codegen #\d+>", line \d+, in run', text), text
    assert "c_due_date = _edate1(_fstrict(v_audit_opinion), 1.0)  # due.date" in text, text


def test_a_traceback_through_the_vector_program_shows_the_generated_line():
    m = _model({"due.date": E.EDate(E.In("audit_opinion"), E.Num(1))})
    prog = VectorProgram(m)

    def get(fid, off):
        return np.array(["标准无保留意见"], dtype=object), np.array([False])
    text = _traceback_of(lambda: prog.evaluate(get, np.array([2024]), 1))
    assert re.search(r'File "<xlmodel vector test-codegen #\d+>", line \d+, in run', text), text
    assert "c_due_date = _edate(_sstrict(v_audit_opinion), 1.0, N)  # due.date" in text, text


def test_the_programs_name_their_variables_after_the_calculations():
    """Every assignment is to a calculation's c_ name (commented with its id), an input's v_/m_/r_ name,
    a year's row (d_) or a numbered part (t_, commented with the calculation it is part of); no x188."""
    m = model_for(GCL)
    for source in (ScalarProgram(m).source, VectorProgram(m).source):
        lines = [ln.strip() for ln in source.splitlines()]
        assigned = [ln for ln in lines if re.match(r"\w+ = ", ln)]
        assert assigned and not [ln for ln in assigned if re.match(r"x\d+ = ", ln)]
        for ln in assigned:
            var = ln.split(" = ", 1)[0]
            assert re.match(r"(c|v|m|r|d|t|p|k)_|k\d+$|Y$", var), ln
            if var.startswith("c_"):
                calc = ln.rsplit("  # ", 1)[1].split(" (year")[0]
                assert calc in m.scalars or calc in m.series, ln
                assert re.fullmatch(re.escape(codegen.ident(calc, "c_")) + r"(_m\d|_p\d)?(_\d+)?", var), ln
            if var.startswith("t_") and "  # " in ln:
                assert ln.rsplit("  # ", 1)[1].startswith("part of "), ln
        assert "c_min_rolling_status = " in source and "# min_rolling.status" in source


def test_the_report_assembler_and_the_comparisons_can_be_read_back():
    m = model_for(GCL)
    prog = scalar_program(m, None, report_roots(m))
    src = inspect.getsource(_assembler(m, prog.index, prog.types))
    assert src.startswith("def assemble(v, missing, later):") and "    # rule min_rolling\n" in src
    assert "return a >= b if ra == rb else ra >= rb" in inspect.getsource(_SCALAR_RT["_cmpo0"])


# ---- a hostile plan ---------------------------------------------------------------------------------

def _hostile_policy():
    """GCL's plan with every rule no other rule names renamed to a hostile id, and hostile titles."""
    p = load_policy(GCL)
    dump = json.dumps(p.model_dump(mode="json"), ensure_ascii=False)
    renamed, rules = {}, []
    for i, r in enumerate(p.rules):
        if dump.count(r.id) == 1:
            renamed[r.id] = f"{HOSTILE}{i}"
            r = r.model_copy(update={"id": renamed[r.id], "title_zh": HOSTILE, "title_en": HOSTILE})
        rules.append(r)
    return p, p.model_copy(update={"rules": rules}), renamed


def _sources(*fns) -> list[str]:
    return ["".join(linecache.getlines(fn.__code__.co_filename)) for fn in fns]


def test_hostile_rule_ids_and_titles_never_reach_generated_source_and_change_no_result():
    plain, hostile, renamed = _hostile_policy()
    assert len(renamed) >= 15 and any(plain.rule(r).kind == "attestation" for r in renamed)
    m, mp = cat.compile_policy(hostile), cat.compile_policy(plain)
    roots, proots = report_roots(m), report_roots(mp)
    years = {y: {"net_profit_attributable": 9e8, "distributable_profit": 8e8, "cash_dividend": 3.1e8,
                 "audit_opinion": "标准无保留意见", "going_concern_unaffected": True, "total_assets": 2e10,
                 "retained_earnings_consolidated": 5e9, "retained_earnings_parent": 4e9} for y in (2022, 2023, 2024)}
    attest = {rid: True for rid in m.attestation_ids()}
    rep = build_report(m, evaluate_one(m, _case(years, attest), None, roots), 0, _case(years, attest))
    want = build_report(mp, evaluate_one(mp, _case(years, {r.id: True for r in mp.rules if r.id in attest or
                                                            renamed.get(r.id) in attest}), None, proots), 0,
                        _case(years))
    back = {v: k for k, v in renamed.items()}
    assert [(back.get(r.id, r.id), r.status, r.actual, r.required) for r in rep.rules] == \
        [(r.id, r.status, r.actual, r.required) for r in want.rules]
    assert rep.rules[0].id == f"{HOSTILE}0" and rep.rules[0].title_zh == HOSTILE  # the text itself, as a value

    prog = scalar_program(m, None, roots)
    generated = [ScalarProgram(m).source, prog.source, VectorProgram(m).source,
                 *_sources(_assembler(m, prog.index, prog.types))]
    for src in generated:
        compile(src, "<check>", "exec")  # (it is Python)
        for bad in FORBIDDEN:
            assert bad not in src, (bad, [ln for ln in src.splitlines() if bad in ln][:3])
        for ln in src.splitlines():
            assert ln.count("#") <= 1, ln  # one comment a line at most, and no '#' of the plan's
    assert "at.get(L_attestation" in generated[0]  # the hostile attestation id is a bound value


def test_hostile_labels_inputs_and_parameter_names_are_bound_not_written():
    """A hand-made model whose label codes, calculation ids, input ids and parameter names are hostile:
    the programs compute what the reference computes, and their source has none of it."""
    lbl = E.Lbl(HOSTILE)
    scalars = {HOSTILE + "a": E.If(E.In("cash_dividend") > E.P(HOSTILE + "p"), lbl, E.Lbl("ok")),
               HOSTILE + "b": E.CountIf(lbl, E.C(HOSTILE + "a"), E.C(HOSTILE + "a"), E.Lbl("ok")),
               HOSTILE + "c": E.If(E.In("attest." + HOSTILE), E.Num(1), E.Num(0))}
    m = _model(scalars, {HOSTILE + "p": 10.0})
    c = _case({2024: {"cash_dividend": 11.0}}, {HOSTILE: True})
    env = evaluate_scalar(m, c)
    assert (env.value(HOSTILE + "a"), env.value(HOSTILE + "b"), env.value(HOSTILE + "c")) == (HOSTILE, 2.0, 1.0)
    vec = VectorProgram(m)
    out = vec.evaluate(lambda fid, off: ((np.array([11.0]) if fid == "cash_dividend" else np.array([True])),
                                         np.array([False])), np.array([2024]), 1)
    assert out.calc(HOSTILE + "a").tolist() == [HOSTILE] and out.calc(HOSTILE + "b").tolist() == [2.0]
    for src in (ScalarProgram(m).source, vec.source):
        for bad in FORBIDDEN:
            assert bad not in src, (bad, src)
