"""The expression tree: spreadsheet numeric semantics and formula rendering."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from hypothesis import given, strategies as st

from xlmodel.expr import EDate, If, In, Max, Min, Missing, Num, P, Round2, Sum, _edate, to_serial
from xlmodel.money import round_fen
import datetime as dt


class Env:
    def __init__(self, values: dict, params: dict | None = None):
        self.values, self.params, self.n = values, params or {}, 1

    def field(self, fid, offset):
        v = self.values.get((fid, offset))
        return np.array([0.0 if v is None else v])

    def missing(self, fid, offset):
        return np.array([(fid, offset) not in self.values])

    def param(self, name):
        return self.params[name]

    def calc(self, name, offset):
        raise KeyError(name)


class R:
    """A plain renderer: fields as F_<id>_<offset>, parameters by name."""

    def field(self, fid, offset):
        return f"F_{fid}_{-offset}"

    def field_blank(self, fid, offset):
        return f"ISBLANK(F_{fid}_{-offset})"

    def param(self, name):
        return f"p_{name}"

    def calc(self, name, offset):
        return f"C_{name}"

    def label(self, code):
        return f"lbl_{code}"


@pytest.mark.parametrize("x, want", [
    (0.3 * 1000000.10, 300000.03),      # DOMAIN.md §4 example
    (0.3 * 1000000.15, 300000.05),      # 300000.045 in decimal: half up
    (0.285, 0.29), (1.005, 1.01), (2.675, 2.68),  # binary below the half, decimal on it
    (-2.675, -2.68),                    # half away from zero
    (0.1 * 100000000.05, 10000000.01),  # 10000000.005
    (299999999999.995, 300000000000.0),
    (1e-9, 0.0), (-0.004, 0.0),
])
def test_round_fen_is_excel_round(x, want):
    assert round_fen(x)[()] == want
    assert str(round_fen(x)[()]) != "-0.0"


@given(st.integers(min_value=-10**13, max_value=10**13), st.integers(min_value=0, max_value=999))
def test_round_fen_matches_decimal_at_15_digits(units, thousandths):
    x = units / 100 + thousandths / 100000
    want = float(Decimal(f"{x:.15g}").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    assert round_fen(np.array([x]))[0] == want


def test_literals_other_than_0_and_1_are_refused():
    with pytest.raises(ValueError, match="parameters"):
        Num(0.3)
    Num(0), Num(1)


def test_render_precedence_and_names():
    e = Round2(Max(Num(0), P("r") * (In("a") + In("b", -1)) / P("n")))
    assert e.render(R()) == "ROUND(MAX(0,p_r*(F_a_0+F_b_1)/p_n),2)"
    assert (In("a") - (In("b") - In("c"))).render(R()) == "F_a_0-(F_b_0-F_c_0)"
    assert (In("a") >= P("x") * In("b")).render(R()) == "F_a_0>=p_x*F_b_0"
    assert If(Missing((("a", 0), ("b", -2))), Num(0), Num(1)).render(R()) == "IF(OR(ISBLANK(F_a_0),ISBLANK(F_b_2)),0,1)"


def test_evaluation_matches_spreadsheet_blank_semantics():
    env = Env({("a", 0): 5.0})
    assert (In("a") + In("b")).eval(env)[0] == 5.0  # blank reads as 0
    assert Min(In("a"), In("b")).eval(env)[0] == 5.0  # MIN ignores a blank cell
    assert Max(In("b")).eval(env)[0] == 0.0  # nothing left: 0
    assert Min(In("a"), Num(0)).eval(env)[0] == 0.0  # a literal 0 is not ignored
    assert Sum(In("a"), In("b"), In("a")).eval(env)[0] == 10.0
    assert Missing((("a", 0),)).eval(env)[0] == False  # noqa: E712
    assert Missing((("b", 0),)).eval(env)[0] == True  # noqa: E712


@pytest.mark.parametrize("d, months, want", [
    (dt.date(2024, 1, 31), 1, dt.date(2024, 2, 29)),
    (dt.date(2023, 12, 31), 2, dt.date(2024, 2, 29)),
    (dt.date(2024, 12, 31), 2, dt.date(2025, 2, 28)),
    (dt.date(2024, 6, 30), 2, dt.date(2024, 8, 30)),
    (dt.date(2024, 11, 15), 2, dt.date(2025, 1, 15)),
])
def test_edate_clamps_to_month_end_like_excel(d, months, want):
    assert _edate(to_serial(d), months) == to_serial(want)
    env = Env({("d", 0): to_serial(d)}, {"m": months})
    assert EDate(In("d"), P("m")).eval(env)[0] == to_serial(want)
