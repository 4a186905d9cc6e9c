"""Two boundaries at the fen that no test held (issue 47, point 6): each test below fails under the
mutation the issue names.

* ``xlmodel plan --pay YEAR=`` exactly the year's minimum is feasible; one fen less is 低于最低额 (exit 1).
  Mutation ``fixed < least`` → ``fixed <= least`` in :func:`xlmodel.planner.plan_year`: the exact minimum
  is then reported below it, and :func:`test_pay_exactly_the_minimum_is_feasible_one_fen_less_is_not` fails.
* :func:`xlmodel.engines.parity.same`, on which ``selftest`` and the parity proofs rest, tells a one-fen
  difference from none on large amounts. Mutation: its tolerance ×10 (0.001 → 0.01 on amounts): .23 and .24
  of 12,345,678,901 are then "the same", and :func:`test_same_tells_one_fen_from_none_on_large_amounts` fails.

Expected numbers are worked out by hand from the plan text (GCL 三、(二)、2、(1)) in the comments.
"""

from __future__ import annotations

import json

import pytest
import yaml

from conftest import cli
from test_planner import M, gcl
from xlmodel.engines.parity import same


def _write(tmp_path, case):
    p = tmp_path / "case.yaml"
    p.write_text(yaml.safe_dump(case.to_dict(), allow_unicode=True), encoding="utf-8")
    return p


# ---- xlmodel plan --pay at the year's minimum ---------------------------------------------------------------

def _gcl_at_a_fen():
    # GCL (tests/test_planner.py::gcl): distributable profit = net profit 100m a year, 2020–2021 paid nothing,
    # evaluated in 2022; here 2022's distributable profit is 100,000,000.10.
    # 三、(二)、2、(1) rolling, 2020–2022: 30 % × (100,000,000 + 100,000,000 + 100,000,000.10) / 3
    #   = 30 % × 100,000,000.0333… = 30,000,000.01 (to the fen), less 0 paid in 2020–2021 → 30,000,000.01;
    # annual: 10 % × 100,000,000.10 = 10,000,000.01. The 2022 minimum is 30,000,000.01 (min_rolling).
    # 2023 and 2024 stay feasible either way: 2023's annual 10 % × 100m = 10,000,000 binds (the rolling
    # 30,000,000.01 less what 2022 paid is at most 0.01); 2024 as in test_planner (40,000,000).
    return gcl(y2022={"distributable_profit": 100 * M + 0.10})


def test_pay_exactly_the_minimum_is_feasible_one_fen_less_is_not(tmp_path, capsys):
    p = _write(tmp_path, _gcl_at_a_fen())
    code, out, err = cli(capsys, "plan", str(p), "--json", "--pay", "2022=30000000.01")
    rows = {r["fiscal_year"]: r for r in json.loads(out)}
    assert rows[2022]["min_cash_dividend"] == 30_000_000.01 and rows[2022]["cash_dividend"] == 30_000_000.01
    assert rows[2022]["status"] == "ok" and code == 0, (rows[2022], err)
    code, out, _ = cli(capsys, "plan", str(p), "--pay", "2022=30000000.01")
    assert code == 0 and "低于最低额" not in out

    code, out, _ = cli(capsys, "plan", str(p), "--json", "--pay", "2022=30000000.00")
    rows = {r["fiscal_year"]: r for r in json.loads(out)}
    assert rows[2022]["status"] == "below_minimum" and code == 1
    assert rows[2023]["status"] == "ok" and rows[2024]["status"] == "ok"  # only the year paid below its minimum
    code, out, _ = cli(capsys, "plan", str(p), "--pay", "2022=30000000")
    assert code == 1 and "低于最低额" in out


# ---- same(): a fen is a difference, float noise is not ------------------------------------------------------

# A fen between two binary floats is rarely 0.01 exactly: .23 → .24 of 12,345,678,901 is 0.0100002 apart, .04 → .05
# 0.0099983 (the spacing of floats there is 2^-19). The pairs below a fen apart as floats are the ones a looser
# tolerance lets through: each fails under the tolerance ×10.
@pytest.mark.parametrize("a, b", [(12_345_678_901.23, 12_345_678_901.24), (12_345_678_901.24, 12_345_678_901.23),
                                  (12_345_678_901.04, 12_345_678_901.05), (12_345_678_901.05, 12_345_678_901.04),
                                  (-12_345_678_901.04, -12_345_678_901.05), (1_000_000_000.00, 1_000_000_000.01),
                                  (100_000_000.01, 100_000_000.02), (999_999_999_999.06, 999_999_999_999.07),
                                  (0.01, 0.0)])
def test_same_tells_one_fen_from_none_on_large_amounts(a, b):
    assert not same(a, b)


@pytest.mark.parametrize("a, b", [
    (12_345_678_901.23, 12_345_678_901.23),
    (12_345_678_901.23, 12_345_678_901.23 + 4e-6),  # a float's noise (2 ulps at 1.2×10^10), far below a fen
    (0.1 + 0.2, 0.3),                                # 0.30000000000000004: binary noise of a ratio
    (1_000_000.10 * 0.3, 300_000.03),                # 300000.02999999997 (docs/domain.md §4's boundary)
    (30_000_000, 30_000_000.0),                      # an int and a float of one value
])
def test_same_holds_for_equal_values_and_float_noise(a, b):
    assert same(a, b)


def test_same_keeps_libreoffices_half_fen_a_difference():
    # docs/domain.md §4, parity.SET_ASIDE: 0.3 × 108,417,637,264.95 = 32,525,291,179.484997… rounds to .48 in
    # LibreOffice and to .49 in xlmodel (15 significant digits). same() calls that a difference: the workbook is
    # set aside for LibreOffice by half_fen(), under its cap, never passed as equal.
    assert not same(32_525_291_179.48, 32_525_291_179.49) and not same(32_525_291_179.00, 32_525_291_179.01)
    # booleans and text exactly: TRUE is not 1, "通过" is not "不通过"
    assert not same(True, 1) and not same("通过", "不通过") and same("通过", "通过")
