"""Issue 52.7: a window's completeness test follows its length, as its sum does.

GCL 三、(二)、2、(1): 任何三个连续年度内，公司以现金方式累计分配的利润不少于该三年实现的年均可分配利润的30%.
The window's length is an editable parameter (p_min_rolling_window): set to 2 years, the sum reads the
evaluation year and the year before; the year before last is then no input of the rule, and a blank there
must not make the rule 缺少输入 (it did: the test was fixed at the plan's three cells). The fix is in the
rule's tree (catalogue.k_min_cash_rolling), so the evaluator's scalar and numpy programs, the reference
(Node.eval), the batch, the worksheet functions and the workbook's formulas all change together.

Hand-worked case (evaluation year 2023, the GCL test baseline of tests/test_gcl.py, 2021 left blank):
  distributable profit 2022 80,000,000, 2023 100,000,000; cash dividend 2022 20,000,000, 2023 30,000,000.
  Window 2: required = 30% × (80,000,000 + 100,000,000) / 2 = 30% × 90,000,000 = 27,000,000.00
            actual   = 20,000,000 + 30,000,000 = 50,000,000.00 → pass, margin 50,000,000 − 27,000,000 = 23,000,000.00
            its minimum this year = max(0, 27,000,000 − 20,000,000 (the year before, in the window)) = 7,000,000.00
  Window 3 (the plan's): 2021 is in the window and blank → 缺少输入, as before.
"""

from __future__ import annotations

import copy

import numpy as np
import openpyxl
import pytest

from xlmodel.evaluator import evaluate, evaluate_arrays, model_for, reference_arrays, timeline_getter
from xlmodel.workbook.layout import SHEETS
from xlmodel.engines.recalc import recalculate
from xlmodel.workbook.writer import build_workbook

from conftest import case
from test_gcl import BASE_ATTEST, BASE_YEARS, POLICY, YEAR

RID = "min_rolling"


def _case(blank: int | None = 2021):
    years = copy.deepcopy(BASE_YEARS)
    if blank is not None:
        del years[blank]["distributable_profit"]
    return case(POLICY, YEAR, years, dict(BASE_ATTEST))


def _rule(rep):
    return next(r for r in rep.rules if r.id == RID)


def test_window_of_two_with_the_year_before_last_blank_is_decided():
    r = _rule(evaluate(_case(), params={f"{RID}.window": 2}, baseline=False))
    assert (r.status, r.actual, r.required, r.margin) == ("pass", 50_000_000.00, 27_000_000.00, 23_000_000.00)


def test_window_of_two_needs_the_year_before():
    r = _rule(evaluate(_case(2022), params={f"{RID}.window": 2}, baseline=False))
    assert r.status == "missing_input" and r.required is None


def test_the_plans_window_of_three_still_needs_every_year():
    r = _rule(evaluate(_case(), baseline=False))
    assert r.status == "missing_input"
    r = _rule(evaluate(_case(), params={f"{RID}.window": 3}, baseline=False))
    assert r.status == "missing_input"


def test_a_window_longer_than_the_plans_is_never_reassuring():
    """Four years: the tree names the plan's three years as the rule's inputs, so it cannot know a fourth
    is there; the rule says 缺少输入 rather than a pass over a sum that may read a blank as 0."""
    r = _rule(evaluate(_case(None), params={f"{RID}.window": 4}, baseline=False))
    assert r.status == "missing_input"


@pytest.mark.parametrize("how", ["vector", "reference"])
def test_every_rendering_agrees(how):
    """The numpy program and Node.eval (the batch's and the reference's path) give the same status and
    numbers as the scalar program above, for the evaluation year."""
    c = _case()
    model = model_for(c.policy)
    getter = timeline_getter(c, [YEAR])
    params = {f"{RID}.window": 2}
    env = (evaluate_arrays if how == "vector" else reference_arrays)(model, 1, getter, [YEAR], params)
    assert env.calc(f"{RID}.status", None)[0] == "pass"
    assert float(np.asarray(env.calc(f"{RID}.required", None))[0]) == 27_000_000.00
    assert float(np.asarray(env.calc(f"{RID}.min_cash", None))[0]) == 7_000_000.00


@pytest.mark.engines
def test_the_workbook_decides_it_too(libreoffice, tmp_path):
    """The workbook's formula (LibreOffice): the window set to 2 on 参数, 2021 blank → 通过, bound 27,000,000.00."""
    path = build_workbook(tmp_path / "b.xlsx", case=_case())
    wb = openpyxl.load_workbook(path)
    ws = wb[SHEETS["params"]]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "p_min_rolling_window")
    ws.cell(row, 4).value = 2
    wb.save(tmp_path / "w2.xlsx")
    out = recalculate([tmp_path / "w2.xlsx"], tmp_path / "lo")[0]
    checks = openpyxl.load_workbook(out, data_only=True)[SHEETS["checks"]]
    r = next(r for r in range(1, checks.max_row + 1) if checks.cell(r, 1).value == RID)
    assert checks.cell(r, 10).value == "通过"
    assert checks.cell(r, 7).value == pytest.approx(27_000_000.00, abs=0.001)
