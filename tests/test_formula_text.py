"""A rule's formula, checked where it is rendered (issue 25.7), fast and without a spreadsheet engine.

A rule is written once, as an expression tree (:mod:`xlmodel.rules.catalogue`), and rendered three times: as
the workbook's Excel formula text (``Node.render`` through the layout's ``CellRenderer``), as plain
Python for one case and as numpy for many (:mod:`xlmodel.rules.compiled`). Before this file a wrong formula
was caught only by the sample workbooks' golden test (whose message says to regenerate the samples,
which would bless the mistake) and by the engine runs. Here:

* the Excel text of a few key rules of each bundled plan (and of the baseline every plan carries) is
  compared with text written by hand from the plan's clause, with the plan's thresholds, which live
  in the 参数 sheet's cells and never in a formula, pinned beside it; a wrong formula fails with
  the formula the workbook would carry and the one the clause gives;
* a changed operator, threshold or rounding changes what is rendered, and the check fails on it with
  the changed formula in its message (the mutation tests below);
* the Python and the numpy programs rendered from the same trees compute a hand-worked case on
  either side of each bound (one fen under, on it, and the half fen the rounding decides), and a
  mutated tree's programs compute otherwise.

The templates name cells symbolically: ``{field}`` is the input cell of the evaluation year's column,
``{field@-2}`` two columns to the left, ``{calc:name}`` a calculation row's cell (a series or a rule's
part), ``{fy}`` the column's fiscal year on 输入. The layout resolves them to the cells the workbook
uses (``'输入'!H$8``, …): the text around them, operators, functions, names and brackets, is the
hand-written part.
"""

from __future__ import annotations

import copy
import dataclasses
import re

import numpy as np
import pytest

from xlmodel.rules import expr as E
from xlmodel.rules.compiled import param_values
from xlmodel.rules.vector import VectorProgram
from xlmodel.rules.scalar import ScalarProgram
from xlmodel.evaluator import model_for
from xlmodel.workbook.layout import CellRenderer, Layout

GCL, FAR_EAST, HOUPU = "gcl-energy-2022-2024", "far-east-2022-2024", "houpu-2024-2026"
YEAR = {GCL: 2023, FAR_EAST: 2023, HOUPU: 2024}  # the samples' evaluation years

# ---------------------------------------------------------------------------
# the Excel rendering
# ---------------------------------------------------------------------------


def _renderer(pid: str) -> CellRenderer:
    """The workbook's renderer for the evaluation year's column, as the writer renders a calculation."""
    return CellRenderer(Layout(model_for(pid), YEAR[pid]), 0)


def expand(template: str, r: CellRenderer) -> str:
    """A hand-written template with its symbolic cells resolved by the layout."""
    def cell(m: re.Match) -> str:
        token = m.group(1)
        if token == "fy":
            return r.fy(0)
        if token.startswith("fy@"):
            return r.fy(int(token[3:]))
        if token.startswith("calc:"):
            return r.calc(token[5:], 0)
        fid, _, off = token.partition("@")
        return r.field(fid, int(off or 0))
    return re.sub(r"\{([a-z_:.@0-9-]+)\}", cell, template)


def check_formula(what: str, got: str, want: str) -> None:
    """The formula the workbook writes is the clause's; else fail with both, the workbook's first."""
    if got != want:
        raise AssertionError(f"{what}: the workbook would carry\n  ={got}\nbut the plan's clause gives\n  ={want}")


def rendered(pid: str, name: str, model=None) -> str:
    """The formula the workbook writes for ``name``: a yes/no row as the number 1/0 it shows (issue 23.7)."""
    model = model or model_for(pid)
    layout = Layout(model, YEAR[pid])
    node = model.series.get(name) or model.scalars[name]
    if name in layout.yes_no:
        node = E.as_number(node, layout.yes_no.__contains__)
    return node.render(CellRenderer(layout, 0))


def yes_no(test: str) -> str:
    """A yes/no row as the workbook shows it: 1 where the test holds, else 0 (formatted 是/否)."""
    return f"IF({test},1,0)"


WINDOW = "SUMPRODUCT((in_years>{fy}-p_min_rolling_window)*(in_years<={fy}),in_distributable_profit)"


def _in_window(off: int) -> str:  # year ``off`` is in the window the parameter sets: FY(off) > FY − window
    return f"{{fy@{off}}}>{{fy}}-p_min_rolling_window"


ROLLING = {  # 最近三年以现金方式累计分配的利润不少于最近三年实现的年均可分配利润的30%
    # missing input: a year's profit only where the year is in the window the parameter sets (issue 52.7); a
    # window longer than the plan's three years is never known complete
    "min_rolling.missing": yes_no("OR(p_min_rolling_window>p_min_rolling_plan_window,"
                                  f"AND({_in_window(-2)},ISBLANK({{distributable_profit@-2}})),"
                                  f"AND({_in_window(-1)},ISBLANK({{distributable_profit@-1}})),"
                                  "ISBLANK({distributable_profit}))"),
    # the window's total of amounts to the fen, rounded to the fen (LibreOffice's SUMPRODUCT sums compensated)
    "min_rolling.basis": f"ROUND({WINDOW},p_precision_digits)",
    "min_rolling.required": 'IF({calc:min_rolling.missing},"",ROUND(MAX(0,p_min_rolling_ratio*{calc:min_rolling.basis}/'
                            "p_min_rolling_window),p_precision_digits))",
}
CAP = {  # 利润分配不超过累计可分配利润（合并与母公司孰低）: each distribution against the figure it is paid out of
    "distribution": "{cash_dividend}+{stock_dividend}",
    "retained": "MIN({retained_earnings_consolidated},{retained_earnings_parent})",
    "distribution_cap.required": 'IF(OR(ISBLANK({retained_earnings_consolidated}),ISBLANK({retained_earnings_parent})),"",'
                                 "MAX(0,ROUND({calc:retained},p_precision_digits)))",
    # the final: the year's distribution less every interim's (already out of the year-end figure)
    "distribution_cap.test": yes_no("ROUND(ROUND({calc:distribution},p_precision_digits)-"
                                    "ROUND({calc:interims.cash}+{calc:interims.stock},p_precision_digits),"
                                    "p_precision_digits)<={calc:distribution_cap.required}"),
    # each interim: its own (cash + stock, each to the fen), against the lower of the two figures at its own
    # period end, floored at 0; it holds where it is not made or is within its bound; the rule where all hold
    **{f"distribution_cap_interim.s{k}_actual": f"ROUND(ROUND({{{cash}}},p_precision_digits)+ROUND({{{stock}}},"
                                                 "p_precision_digits),p_precision_digits)"
       for k, cash, stock in ((1, "interim_cash_dividend", "interim_stock_dividend"),
                              (2, "interim2_cash_dividend", "interim2_stock_dividend"))},
    **{f"distribution_cap_interim.s{k}_required": f"MAX(0,ROUND(MIN({{{cons}}},{{{parent}}}),p_precision_digits))"
       for k, cons, parent in ((1, "half_year_retained_earnings_consolidated", "half_year_retained_earnings_parent"),
                               (3, "interim3_retained_earnings_consolidated", "interim3_retained_earnings_parent"))},
    "distribution_cap_interim.s2_test": yes_no("OR(NOT({calc:distribution_cap_interim.s2_made}),"
                                               "{calc:distribution_cap_interim.s2_actual}<="
                                               "{calc:distribution_cap_interim.s2_required})"),
    "distribution_cap_interim.slots_hold": yes_no("AND({calc:distribution_cap_interim.s1_test},"
                                                  "{calc:distribution_cap_interim.s2_test},"
                                                  "{calc:distribution_cap_interim.s3_test})"),
}
#: the year's interims together: each slot's amount to the fen, then their sum to the fen
INTERIMS = {f"interims.{what}": "ROUND(SUM(" + ",".join(f"ROUND({{{f}}},p_precision_digits)" for f in fields)
            + "),p_precision_digits)"
            for what, fields in (("cash", ("interim_cash_dividend", "interim2_cash_dividend", "interim3_cash_dividend")),
                                 ("stock", ("interim_stock_dividend", "interim2_stock_dividend",
                                            "interim3_stock_dividend")))}
CAP.update(INTERIMS)
LEGAL_CAP = {  # 公司法第二百一十条：分配额（现金+股票股利，减已于期中实施的）≤ 合并与母公司期末未分配利润孰低，不低于0
    "reg_distribution_cap.actual": "ROUND(ROUND({cash_dividend}+{stock_dividend},p_precision_digits)-"
                                   "ROUND({calc:interims.cash}+{calc:interims.stock},p_precision_digits),p_precision_digits)",
    "reg_distribution_cap.required": 'IF(OR(ISBLANK({retained_earnings_consolidated}),ISBLANK({retained_earnings_parent})),"",'
                                     "MAX(0,ROUND(MIN({retained_earnings_consolidated},{retained_earnings_parent}),"
                                     "p_precision_digits)))",
}
#: 监管指引第3号（2023）：中期分红上限不应超过相应期间归属于上市公司股东的净利润 — each interim's cash against its
#: own period's net profit attributable (ratio 100 %, a 参数 cell)
INTERIM_PROFIT_CAP = {
    "reg_interim_cap.s2_actual": "ROUND({interim2_cash_dividend},p_precision_digits)",
    "reg_interim_cap.s2_required": "ROUND(p_reg_interim_cap_ratio*{interim2_net_profit_attributable},p_precision_digits)",
    "reg_interim_cap.s1_required": "ROUND(p_reg_interim_cap_ratio*{half_year_net_profit_attributable},p_precision_digits)",
}
LEGAL_CAP["reg_distribution_cap.test"] = yes_no(LEGAL_CAP["reg_distribution_cap.actual"] + "<={calc:reg_distribution_cap.required}")

FORMULAS = {
    GCL: {
        # 三、(二)、2、(1) 公司每年以现金方式分配的利润不低于当年实现的可分配利润的10%
        "cash": "{cash_dividend}+{buyback_amount}",  # 回购视同现金分红
        "min_annual.required": 'IF(ISBLANK({distributable_profit}),"",ROUND(MAX(0,p_min_annual_c1_ratio*{distributable_profit}),'
                               "p_precision_digits))",
        "min_annual.test": yes_no("ROUND({calc:cash},p_precision_digits)>={calc:min_annual.required}"),
        **ROLLING,
        # 三、(二)、2、(3)
        **CAP,
        **INTERIM_PROFIT_CAP,
        # 三、(二)、1、(4) 重大投资计划或重大现金支出：累计支出达到或超过最近一期经审计总资产的30%，且超过5,000万元
        "major_outlay_threshold": "ROUND(p_major_outlay_ratio*{total_assets},p_precision_digits)",
        "major_outlay": yes_no("AND(ROUND({planned_major_outlay},p_precision_digits)>={calc:major_outlay_threshold},"
                               "ROUND({planned_major_outlay},p_precision_digits)>p_major_outlay_floor)"),
        "cond_no_major_outlay.test": yes_no("NOT({calc:major_outlay})"),
    },
    FAR_EAST: {
        "cash_when_distributing.test": yes_no("ROUND({calc:cash},p_precision_digits)>0"),  # 四、1 应采用现金分红
        **ROLLING,  # 四、3
        # 四、5、(2) 经出席股东大会的股东所持表决权的过半数通过 / 2/3以上通过
        "vote_majority.test": yes_no("{vote_for_ratio}>p_vote_majority_ratio"),
        "vote_stock_two_thirds.test": yes_no("{vote_for_ratio}>=p_vote_stock_two_thirds_ratio"),
    },
    HOUPU: {
        # 三、(三)、1、(1) 当年可分配利润为正值
        "cond_distributable_positive.test": yes_no("ROUND({distributable_profit},p_precision_digits)>0"),
        # 三、(三)、1、(3) 重大资金支出：累计支出达到或超过最近一期经审计净资产的30%
        "major_outlay_threshold": "ROUND(p_major_outlay_ratio*{net_assets},p_precision_digits)",
        "major_outlay": yes_no("ROUND({planned_major_outlay},p_precision_digits)>={calc:major_outlay_threshold}"),
        **CAP,
        **LEGAL_CAP,  # the baseline's, in every plan's model
    },
}

#: the thresholds as the plans state them, in the 参数 sheet (the formulas name them, never a literal)
PARAMS = {
    GCL: {"precision.digits": 2, "min_annual.c1_ratio": 0.10, "min_rolling.ratio": 0.30, "min_rolling.window": 3,
          "major_outlay.ratio": 0.30, "major_outlay.floor": 50_000_000},
    FAR_EAST: {"precision.digits": 2, "min_rolling.ratio": 0.30, "min_rolling.window": 3, "vote_majority.ratio": 0.5,
               "vote_stock_two_thirds.ratio": 2 / 3},
    HOUPU: {"precision.digits": 2, "major_outlay.ratio": 0.30, "reg_interim_cap.ratio": 1.0},
}


@pytest.mark.parametrize("pid,name", [(pid, name) for pid, fs in FORMULAS.items() for name in fs])
def test_the_workbook_formula_is_the_clause(pid, name):
    r = _renderer(pid)
    check_formula(f"{pid} {name}", rendered(pid, name), expand(FORMULAS[pid][name], r))


@pytest.mark.parametrize("pid", list(PARAMS))
def test_the_thresholds_are_the_plans(pid):
    model = model_for(pid)
    got = {k: model.params[k].value for k in PARAMS[pid]}
    assert got == pytest.approx(PARAMS[pid]), f"{pid}: the 参数 sheet would carry {got}, the plan says {PARAMS[pid]}"


# ---- a changed operator, threshold or rounding is caught, with the formula shown ------------------

def _mutated(model, name: str, mutate) -> object:
    """A copy of ``model`` whose calculation ``name`` is ``mutate(tree)`` (the other trees shared)."""
    out = copy.copy(model)
    out.scalars, out.series = dict(model.scalars), dict(model.series)
    home = out.series if name in out.series else out.scalars
    home[name] = mutate(home[name])
    return out


def _first(node, cls, where=lambda n: True):
    return next(n for n in node.walk() if isinstance(n, cls) and where(n))


def flip_op(node):
    """``>=`` read as ``>`` (不低于 read as 高于), ``<=`` as ``<``, ``>`` as ``>=``."""
    c = _first(node, E.Cmp)
    return E.substitute(node, c, dataclasses.replace(c, op={">=": ">", "<=": "<", ">": ">=", "<": "<="}[c.op]))


def drop_round(node):
    """The outermost ROUND left out (the amount compared unrounded)."""
    rnd = _first(node, E.Round2)
    return E.substitute(node, rnd, rnd.args[0])


def drop_sum_round(node):
    """The ROUND of a sum left out (the year's distribution taken unrounded before the interim is deducted)."""
    rnd = _first(node, E.Round2, lambda n: isinstance(n.args[0], E.Bin) and n.args[0].op == "+")
    return E.substitute(node, rnd, rnd.args[0])


MUTATIONS = [(GCL, "min_annual.test", flip_op), (GCL, "min_annual.required", drop_round),
             (GCL, "distribution_cap.test", flip_op), (GCL, "distribution_cap.test", drop_round),
             (GCL, "distribution_cap_interim.s2_test", flip_op), (HOUPU, "distribution_cap_interim.s1_required", drop_round),
             (GCL, "major_outlay", flip_op),
             (FAR_EAST, "vote_majority.test", flip_op), (FAR_EAST, "min_rolling.required", drop_round),
             (HOUPU, "reg_distribution_cap.actual", drop_round),
             (HOUPU, "reg_distribution_cap.actual", drop_sum_round), (HOUPU, "reg_distribution_cap.test", flip_op),
             (GCL, "reg_interim_cap.s2_required", drop_round)]


@pytest.mark.parametrize("pid,name,mutate", MUTATIONS, ids=[f"{p}-{n}-{m.__name__}" for p, n, m in MUTATIONS])
def test_a_changed_formula_fails_with_the_formula(pid, name, mutate):
    wrong = rendered(pid, name, _mutated(model_for(pid), name, mutate))
    with pytest.raises(AssertionError) as err:
        check_formula(f"{pid} {name}", wrong, expand(FORMULAS[pid][name], _renderer(pid)))
    assert f"={wrong}\n" in str(err.value) and wrong.split("!")[0] in str(err.value)


def test_a_changed_threshold_fails_with_the_value():
    """A threshold is a 参数 cell, not formula text: a plan whose 10% became 15% keeps the formula and fails the
    threshold check."""
    from xlmodel.plans.loading import load_policy

    policy = load_policy(GCL)
    rules = [r.model_copy(update={"components": [r.components[0].model_copy(update={"ratio": 0.15})]})
             if r.id == "min_annual" else r for r in policy.rules]
    from xlmodel.rules import catalogue as cat

    model = cat.compile_policy(policy.model_copy(update={"rules": rules}))
    assert rendered(GCL, "min_annual.required", model) == rendered(GCL, "min_annual.required")
    assert model.params["min_annual.c1_ratio"].value == 0.15 != PARAMS[GCL]["min_annual.c1_ratio"]


# ---------------------------------------------------------------------------
# the Python and numpy renderings, on hand-worked cases
# ---------------------------------------------------------------------------

def scalar_values(model, year: int, years: dict, roots: list[str], company=None) -> dict:
    """The plain-Python program of ``roots`` run on one case (``years``: year → field → value)."""
    prog = ScalarProgram(model, roots=[(n, 0) for n in roots])
    run = prog.bind(param_values(model))
    out = run(years, company or {"board": "main"}, {}, year, year)
    return dict(zip(roots, out))


def vector_values(model, year: int, cases: list[dict], roots: list[str]) -> dict:
    """The numpy program of ``roots`` run on several cases at once (each: year → field → value)."""
    prog = VectorProgram(model, roots=[(n, 0) for n in roots])

    def getter(fid, off):
        cells = [c.get(year + off, {}).get(fid) for c in cases]
        return [0.0 if v is None else v for v in cells], [v is None for v in cells]
    env = prog.evaluate(getter, year, len(cases))
    return {n: np.asarray(env.calc(n)) for n in roots}


def _gcl_min_annual(cash: float, buyback: float = 0.0, profit: float = 855_092_128.94) -> dict:
    return {2023: {"distributable_profit": profit, "cash_dividend": cash, "buyback_amount": buyback}}


#: GCL 三、(二)、2、(1): 10 % of 855,092,128.94 is 85,509,212.894, rounded to the fen 85,509,212.89
GCL_MIN_ANNUAL = [  # (cash dividend, buyback, required, passes)
    (85_509_212.89, 0.0, 85_509_212.89, True),   # on the bound: 不低于 passes
    (85_509_212.88, 0.0, 85_509_212.89, False),  # a fen under
    (85_000_000.00, 509_212.89, 85_509_212.89, True),  # a buyback counts as cash
]


@pytest.mark.parametrize("render", ["python", "numpy"])
def test_gcl_minimum_on_either_side_of_the_bound(render):
    model = model_for(GCL)
    roots = ["min_annual.required", "min_annual.test"]
    if render == "python":
        got = [tuple(scalar_values(model, 2023, _gcl_min_annual(c, b), roots).values()) for c, b, _, _ in GCL_MIN_ANNUAL]
    else:
        v = vector_values(model, 2023, [_gcl_min_annual(c, b) for c, b, _, _ in GCL_MIN_ANNUAL], roots)
        got = list(zip(v["min_annual.required"].tolist(), v["min_annual.test"].tolist()))
    assert got == [(req, ok) for _, _, req, ok in GCL_MIN_ANNUAL]


def _legal_cap(cash, stock, interim_cash, interim_stock, rc, rp) -> dict:
    return {2024: {"cash_dividend": cash, "stock_dividend": stock, "interim_cash_dividend": interim_cash,
                   "interim_stock_dividend": interim_stock, "retained_earnings_consolidated": rc,
                   "retained_earnings_parent": rp}}


#: the Company Law's cap (Houpu's model): the final distribution (year less interim) ≤ the lower retained
#: earnings, floored at 0. (cash, stock, interim cash, interim stock, consolidated, parent) → (actual, bound, passes)
LEGAL_CAP_CASES = [
    ((60_000_000.0, 0.0, 0.0, 0.0, 80_000_000.0, 60_000_000.0), (60_000_000.0, 60_000_000.0, True)),  # on the bound
    ((60_000_000.01, 0.0, 0.0, 0.0, 80_000_000.0, 60_000_000.0), (60_000_000.01, 60_000_000.0, False)),  # a fen over
    ((70_000_000.0, 5_000_000.0, 15_000_000.0, 0.0, 60_000_000.0, 90_000_000.0), (60_000_000.0, 60_000_000.0, True)),
    ((1_000.0, 0.0, 0.0, 0.0, -5_000_000.0, 10.0), (1_000.0, 0.0, False)),  # a loss carried: the bound floored at 0
    ((0.005, 0.0, 0.0, 0.0, 0.0, 0.0), (0.01, 0.0, False)),  # half a fen rounds away from zero, to a fen over
]


@pytest.mark.parametrize("render", ["python", "numpy"])
def test_the_legal_cap_on_either_side_of_the_bound(render):
    model = model_for(HOUPU)
    roots = ["reg_distribution_cap.actual", "reg_distribution_cap.required", "reg_distribution_cap.test"]
    if render == "python":
        got = [tuple(scalar_values(model, 2024, _legal_cap(*case), roots).values()) for case, _ in LEGAL_CAP_CASES]
    else:
        v = vector_values(model, 2024, [_legal_cap(*case) for case, _ in LEGAL_CAP_CASES], roots)
        got = list(zip(*(v[n].tolist() for n in roots)))
    assert got == [want for _, want in LEGAL_CAP_CASES]


def test_the_far_east_vote_majority_is_more_than_half():
    """四、5、(2) 过半数: exactly half does not pass; 2/3以上: exactly two thirds does."""
    model = model_for(FAR_EAST)
    roots = ["vote_majority.test", "vote_stock_two_thirds.test"]
    for ratio, want in ((0.5, (False, False)), (0.5001, (True, False)), (2 / 3, (True, True))):
        assert tuple(scalar_values(model, 2023, {2023: {"vote_for_ratio": ratio}}, roots).values()) == want, ratio
        v = vector_values(model, 2023, [{2023: {"vote_for_ratio": ratio}}], roots)
        assert (bool(v[roots[0]][0]), bool(v[roots[1]][0])) == want, ratio


@pytest.mark.parametrize("pid,name,mutate,case,year,root,right,wrong", [
    # on the bound: 不低于 passes, 高于 would not
    (GCL, "min_annual.test", flip_op, _gcl_min_annual(85_509_212.89), 2023, "min_annual.test", True, False),
    # the bound unrounded is 85,509,212.894: the fen-rounded cash would fall short of it
    (GCL, "min_annual.required", drop_round, _gcl_min_annual(85_509_212.89), 2023, "min_annual.required",
     85_509_212.89, 85_509_212.894),
    # on the cap: 不超过 passes, 低于 would not
    (HOUPU, "reg_distribution_cap.test", flip_op, _legal_cap(60_000_000.0, 0.0, 0.0, 0.0, 80_000_000.0, 60_000_000.0),
     2024, "reg_distribution_cap.test", True, False),
    # half a fen less half a fen: ROUND(0.01 − 0.01) = 0; the year's sum unrounded, ROUND(0.005 − 0.01) = −0.01
    (HOUPU, "reg_distribution_cap.actual", drop_sum_round, _legal_cap(0.005, 0.0, 0.005, 0.0, 0.0, 0.0),
     2024, "reg_distribution_cap.actual", 0.0, -0.01),
], ids=["gcl-flip", "gcl-round", "cap-flip", "cap-round"])
def test_a_mutated_tree_computes_otherwise(pid, name, mutate, case, year, root, right, wrong):
    """The Python and numpy programs rendered from a tree with a changed operator or rounding give
    another result on the hand-worked case, the one worked out for the mutation."""
    model = model_for(pid)
    bad = _mutated(model, name, mutate)
    assert scalar_values(model, year, case, [root])[root] == right
    assert scalar_values(bad, year, case, [root])[root] == pytest.approx(wrong, abs=1e-6)
    assert vector_values(model, year, [case], [root])[root].tolist() == [right]
    assert vector_values(bad, year, [case], [root])[root].tolist() == pytest.approx([wrong], abs=1e-6)


# ---- a yes/no is 1/0 in the workbook (issue 23.7) --------------------------------------------------

def test_a_yes_no_row_compared_with_true_compares_numbers():
    """The sale restriction asks whether a trigger (a yes/no row, 1/0 in the workbook) is TRUE: rendered
    against the number 1 (IF(1>0,1,0)), since in Excel 1=TRUE is FALSE; its own test row is 1/0 too."""
    r = _renderer(FAR_EAST)
    text = rendered(FAR_EAST, "reg_controlling_sale.test")
    for k in ("below_net_assets", "below_ipo", "low_dividend"):
        ref = r.calc(f"reg_controlling_sale.{k}", 0)
        assert f"{ref}=IF(1>0,1,0)" in text and f"{ref}=(1>0)" not in text
    assert text.startswith("IF(NOT(OR(") and text.endswith("),1,0)")
    below = rendered(FAR_EAST, "reg_controlling_sale.below_ipo")  # blank where the input is blank
    assert below == f'IF({r.field_blank("price_below_ipo_20d", 0)},"",IF({r.field("price_below_ipo_20d", 0)},1,0))'


def test_a_yes_no_row_is_read_only_where_1_and_0_mean_true_and_false():
    """IF's condition, AND, OR, NOT and = read a 1/0 yes/no as its TRUE/FALSE; SUM, MIN, MAX, COUNTIF
    (a boolean in a reference is skipped there, a number counted) and an ordering never may."""
    x, holds = E.C("x"), {"x"}.__contains__
    assert E.yes_no_readers(E.If(E.And(x, E.Not(x)), E.Num(1), E.Num(0)), holds) == []
    assert E.yes_no_readers(E.Sum(x, E.C("y")), holds) == ["SUM"]
    assert E.yes_no_readers(E.Max(x, E.Num(0)), holds) == ["MAX"]
    assert E.yes_no_readers(x > E.Num(0), holds) == [">"]
    assert E.as_number(E.If(E.Missing((("a", 0),)), E.Blank(), x), holds).args[2] is x  # already 1/0
