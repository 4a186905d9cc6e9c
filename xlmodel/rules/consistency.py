"""Inputs that cannot all be true, and amounts that cannot be a listed company's 元 (issue 20).

One definition, read by every reader of a year's figures — case files (:func:`xlmodel.case.parse_case`),
batch rows (:mod:`xlmodel.batch.evaluate`), returned workbooks (:mod:`xlmodel.workbook.reader`) and worksheet
functions (through the case reader): each test takes a year's values as arrays, one element per case
or row, and says where it holds. What it finds is refused, naming both fields (and the row or cell
the reader knows), never evaluated:

* an interim cash or stock dividend above the year's total it is part of, or a year's interims
  (up to three: :data:`xlmodel.fields.SLOTS`) above it together;
* a count of distributions that the amounts deny: 0 with a cash or stock dividend, one or more with
  none, or fewer than the distributions the amounts show (each interim made, and a final);
* a payout completed before the AGM that approved it;
* net assets attributable above total assets (equity is what is left of the assets);
* total assets below :data:`MIN_TOTAL_ASSETS` 元, which no listed company has: the figures were typed
  in 万元 or 亿元. Where the figures are real, the case confirms them (``amounts_confirmed``).

Signals that are likely but not certain (a listed company's scale, figures jumping ~10⁴× between
years or apart from their neighbours of the same year) are the baseline's rule ``reg_amounts_plausible``,
which fails until the case confirms its figures (issue 47): a rule like any other, so that the
workbook's formulas and every other face give it too (docs/domain.md §6.9).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .expr import to_serial
from ..fields import FIELDS, SLOTS

#: 元: a listed company's total assets are never this small; below it the figures are 万元 or 亿元
MIN_TOTAL_ASSETS = 10_000_000.0
#: the field that confirms deliberate small figures (company level): they are then evaluated as given
CONFIRM_FIELD = "amounts_confirmed"

Values = Mapping[str, np.ndarray]  # field -> floats (dates as serials), NaN where blank; distribution amounts 0
Finding = tuple[str, np.ndarray, Callable[[int], str]]  # (the field it is said of, where it holds, what, for row i)

#: (interim part, the year's total it is part of): an interim above its year's total is refused, and so are
#: the year's interims together above it (every slot's cash, then every slot's stock)
INTERIM_PARTS = tuple((k.cash, "cash_dividend") for k in SLOTS) + tuple((k.stock, "stock_dividend") for k in SLOTS)
#: the fields a year's consistency reads
READ = ("cash_dividend", "stock_dividend", *(p for p, _ in INTERIM_PARTS), "distribution_count", "agm_date",
        "payout_date", "net_assets", "total_assets")


def _amt(x: float) -> str:
    return f"{x:,.2f}"


def interim_message(total: str, v_total: float | None) -> str:
    """An interim amount above its year's total (``v_total``; None: several rows, each its own)."""
    shown = f" ({_amt(v_total)})" if v_total is not None else ""
    shown_zh = f"（{_amt(v_total)}）" if v_total is not None else ""
    return (f"高于本年度{FIELDS[total].zh}（{total}）{shown_zh}：中期部分已含于全年合计，请按含中期的全年金额填写 / "
            f"above the year's {total}{shown}: the interim is part of the year's total "
            f"(enter the year's {total} with the interim included)")


def interims_message(total: str, parts: list[str], z: Values, i: int) -> str:
    """The year's interims together above its total (each alone within it)."""
    said = " + ".join(f"{p} {_amt(z[p][i])}" for p in parts if z[p][i])
    add = sum(round(float(z[p][i]), 2) for p in parts)
    return (f"{_amt(float(z[total][i]))} 低于本年度各次中期分配之和 {_amt(add)}（{said}）：全年合计应含每次中期，请核对 / "
            f"is below the year's interims together, {_amt(add)} ({said}): the year's total includes every interim")


def _get(v: Values, fid: str, n: int) -> np.ndarray:
    a = v.get(fid)
    return np.full(n, np.nan) if a is None else np.asarray(a, dtype=float)


def _zero(a: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(a), 0.0, a)


def year_findings(v: Values, n: int, confirmed: np.ndarray | None = None) -> list[Finding]:
    """What one year's values (arrays of ``n``) contradict: each finding names its field, the rows where it
    holds and a message for a row (Chinese first) naming the other field and both values."""
    out: list[Finding] = []
    g = {fid: _get(v, fid, n) for fid in READ}
    z = {k: _zero(g[k]) for k in ("cash_dividend", "stock_dividend", *(p for p, _ in INTERIM_PARTS))}
    for part, total in INTERIM_PARTS:
        bad = ~np.isnan(g[part]) & (g[part] > z[total])
        out.append((part, bad, lambda i, total=total: interim_message(total, float(z[total][i]))))
    sums = {}
    for total, attr in (("cash_dividend", "cash"), ("stock_dividend", "stock")):
        parts = [getattr(k, attr) for k in SLOTS]
        sums[total] = np.round(sum(np.round(z[p], 2) for p in parts), 2)
        each = np.logical_or.reduce([z[p] > z[total] for p in parts])  # said above, of the part itself
        out.append((total, (sums[total] > np.round(z[total], 2)) & ~each,
                    lambda i, total=total, parts=parts: interims_message(total, parts, z, i)))
    count = g["distribution_count"]
    paid = (z["cash_dividend"] > 0) | (z["stock_dividend"] > 0)
    interims = sum(((z[k.cash] > 0) | (z[k.stock] > 0)).astype(int) for k in SLOTS)
    final = (z["cash_dividend"] - sums["cash_dividend"] > 0) | (z["stock_dividend"] - sums["stock_dividend"] > 0)
    made = interims + final.astype(int)

    def amounts(i: int) -> str:
        return f"cash_dividend {_amt(z['cash_dividend'][i])}, stock_dividend {_amt(z['stock_dividend'][i])}"

    out.append(("distribution_count", (count == 0) & paid,
                lambda i: f"为 0，但本年度有利润分配（{amounts(i)}） / is 0 but the year distributes ({amounts(i)})"))
    out.append(("distribution_count", (count >= 1) & ~paid,
                lambda i: f"为 {count[i]:g}，但本年度现金分红与股票股利均为 0 / is {count[i]:g} but cash_dividend and "
                          "stock_dividend are both 0"))
    out.append(("distribution_count", (count >= 1) & paid & (count < made),
                lambda i: f"为 {count[i]:g}，但本年度有 {interims[i]} 次中期分红（interim_cash_dividend 等）、{int(final[i])} 次年度分配："
                          f"共 {made[i]} 次 / is {count[i]:g} but the year has {interims[i]} interim (interim_cash_dividend …) "
                          f"and {int(final[i])} final distribution(s): {made[i]}"))
    agm, pay = g["agm_date"], g["payout_date"]
    out.append(("payout_date", ~np.isnan(agm) & ~np.isnan(pay) & (pay < agm),
                lambda i: "早于批准该分配的股东大会日期 agm_date / is before the AGM (agm_date) that approved it"))
    na, ta = g["net_assets"], g["total_assets"]
    out.append(("net_assets", ~np.isnan(na) & ~np.isnan(ta) & (na > ta),
                lambda i: f"{_amt(na[i])} 高于期末总资产 total_assets {_amt(ta[i])}：两者是否单位不同（元 / 万元）？ / "
                          f"is above total_assets {_amt(ta[i])}: are they in different units (元 / 万元)?"))
    small = ~np.isnan(ta) & (ta > 0) & (ta < MIN_TOTAL_ASSETS)
    if confirmed is not None:
        small &= ~confirmed
    out.append(("total_assets", small,
                lambda i: f"{_amt(ta[i])} 元低于 {MIN_TOTAL_ASSETS:,.0f} 元，上市公司不可能如此：金额疑似以万元或亿元填写，"
                          f"请按元填写（1.2亿 即 120000000）；确属实际金额的，请将 {CONFIRM_FIELD}（金额单位已核对）填为 是 / "
                          f"{_amt(ta[i])} 元 is below {MIN_TOTAL_ASSETS:,.0f} 元, which no listed company has: the figures look "
                          f"like 万元 or 亿元; enter them in 元 (1.2亿 is 120000000), or set {CONFIRM_FIELD} to yes if they are real"))
    return [(f, m, msg) for f, m, msg in out if m.any()]


def case_findings(vals: dict, confirmed: bool = False) -> list[tuple[str, str]]:
    """(field, message) for one year of a case (``{field: value}`` as read), through :func:`year_findings`."""
    def arr(fid: str) -> np.ndarray:
        x = vals.get(fid)
        if x is None:
            return np.array([np.nan])
        return np.array([to_serial(x) if hasattr(x, "toordinal") else float(x)])
    v = {fid: arr(fid) for fid in READ}
    return [(f, msg(0)) for f, _m, msg in year_findings(v, 1, np.array([confirmed]))]
