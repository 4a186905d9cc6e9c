"""A year's distributions as a list (several a year: 新国九条, 2024; Guideline No. 3, 2023): one reading.

A case file's year may give ``distributions:``, each item a distribution of the year's profit::

    distributions:
      - {period: 2024Q1, cash: 10000000, net_profit_attributable: 30000000,
         retained_earnings_consolidated: 900000000, retained_earnings_parent: 500000000}
      - {period: 2024H1, cash: 20000000, stock: 0, net_profit_attributable: 20000000, ...}
      - {period: 2024, cash: 50000000}          # the final (年度), against the year-end figures

An interim's period is its report's (``2024Q1``, ``2024H1``, ``2024Q3``, ``2024年一季度``, ``2024年半年度``,
``2024年前三季度``, or the period-end date ``2024-03-31`` / ``06-30`` / ``09-30``); the final's the fiscal year
(``2024``, ``2024FY``, ``年度``, ``final`` or ``2024-12-31``). The list is read into the year's fields, the
interims in period order onto the model's slots (:data:`xlmodel.fields.SLOTS`: the first onto the old
single interim's fields, so a case written with ``interim_cash_dividend`` and the ``half_year_*`` figures
reads exactly as a one-item list). The year's ``cash_dividend`` and ``stock_dividend`` are the list's sums
where it gives its final; where the year states them too they must agree to the fen. Refused, naming
the item and its key: a list or item that is not one, a period outside the year or not a report's, two
distributions of one period, more interims than the model holds, an item's unknown key, a list beside
the old interim fields, totals that disagree.

This module reads no value itself: the caller passes its one reading of a field
(:func:`xlmodel.values.read_field`), so a value here means what it means anywhere.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from ..fields import FIELDS, INTERIM_SLOTS, PERIOD_END, PERIODS, SLOTS, Field

KEY = "distributions"
FINAL = "final"
#: an item's keys -> the slot's attribute (an interim), or the year's field (the final)
ITEM_KEYS = {"period": None, "cash": "cash", "stock": "stock", "net_profit_attributable": "net_profit",
             "retained_earnings_consolidated": "retained_consolidated", "retained_earnings_parent": "retained_parent"}
FINAL_KEYS = ("period", "cash", "stock")
_INTERIM_TEXT = {"q1": "q1", "一季度": "q1", "第一季度": "q1", "h1": "h1", "半年度": "h1", "中期": "h1", "半年报": "h1",
                 "q3": "q3", "前三季度": "q3", "三季度": "q3", "第三季度": "q3"}
_FINAL_TEXT = {"", "fy", "a", "年度", "年报", "年", "final", "全年"}
_PERIOD = re.compile(r"(?:([0-9]{4})\s*(?:年)?)?\s*(.*)")
_DATE = re.compile(r"([0-9]{4})[-/.年]([0-9]{1,2})[-/.月]([0-9]{1,2})日?")

Reader = Callable[[Field, Any], "tuple[Any, str | None]"]


def read_period(raw: Any, fy: int) -> tuple[str | None, str | None]:
    """An item's period -> (``q1``/``h1``/``q3`` or ``final``, None), or (None, what was expected)."""
    expected = (f"expected the period of a distribution of {fy}: {fy}Q1, {fy}H1 or {fy}Q3 (or the period end "
                f"{fy}-03-31, {fy}-06-30, {fy}-09-30) for an interim, {fy} or {fy}-12-31 for the final; got {raw!r}")
    if isinstance(raw, bool) or raw is None:
        return None, expected
    if isinstance(raw, int):
        raw = str(raw)
    if isinstance(raw, dt.date):
        raw = raw.isoformat()
    if not isinstance(raw, str):
        return None, expected
    t = raw.strip().lower()
    d = _DATE.fullmatch(t)
    if d:
        year, md = int(d.group(1)), (int(d.group(2)), int(d.group(3)))
        if year != fy:
            return None, f"{expected}: the period ends in {year}, outside the fiscal year {fy}"
        if md == (12, 31):
            return FINAL, None
        code = next((c for c, end in PERIOD_END.items() if end == md), None)
        return (code, None) if code else (None, f"{expected}: {raw} is not the end of a report's period")
    m = _PERIOD.fullmatch(t)
    year, rest = (int(m.group(1)) if m.group(1) else None), m.group(2).strip()
    if year is not None and year != fy:
        return None, f"{expected}: the period is of {year}, outside the fiscal year {fy}"
    if rest in _INTERIM_TEXT:
        return _INTERIM_TEXT[rest], None
    if rest in _FINAL_TEXT and (year is not None or rest):
        return FINAL, None
    return None, expected


def read_distributions(items: Any, fy: int, row: dict, where: str, read: Reader) -> tuple[dict[str, Any], list]:
    """A year's ``distributions`` list -> (the year's fields it sets, [(where, message)] problems). ``row``
    is the year's other values as given (the totals it must agree with, the old interim fields it may
    not be given with); ``where`` names the list (``years[0].distributions``; the caller adds the year)."""
    probs: list[tuple[str, str]] = []
    if not isinstance(items, list) or not items:
        return {}, [(where, "expected a list of the year's distributions, each a mapping with period and cash "
                           "(and stock; an interim also its period's net_profit_attributable and retained earnings)")]
    old = [f for s in SLOTS for f in s.fields if row.get(f) is not None]
    if old:
        probs.append((where, f"given beside the interim fields {', '.join(old)}: give the year's distributions either "
                             "as the list or as those fields, not both"))
    interims: dict[str, dict[str, Any]] = {}
    final: dict[str, Any] | None = None
    for j, item in enumerate(items):
        at = f"{where}[{j}]"
        got = _read_item(item, fy, at, read, probs)
        if got is None:
            continue
        period, vals = got
        if period == FINAL:
            if final is not None:
                probs.append((at, f"a second final distribution of {fy}: the list has one final (年度) at most"))
            final = vals
        elif period in interims:
            probs.append((at, f"a second distribution of the period {PERIODS[period]}: one a period"))
        else:
            interims[period] = vals
    if len(interims) > INTERIM_SLOTS:
        probs.append((where, f"{len(interims)} interim distributions: the model holds {INTERIM_SLOTS} a year besides "
                             "the final (one each for Q1, H1 and Q3)"))
    if probs:
        return {}, probs
    out: dict[str, Any] = {}
    for slot, period in zip(SLOTS, sorted(interims, key=list(PERIODS).index)):
        out[slot.period] = period
        for key, attr in ITEM_KEYS.items():
            if attr and key in interims[period]:
                out[getattr(slot, attr)] = interims[period][key]
    probs += _totals(out, final, row, where, read)
    return out, probs


def _read_item(item: Any, fy: int, at: str, read: Reader, probs: list) -> tuple[str, dict[str, Any]] | None:
    """One item -> (its period code, {key: value}), or None with its problems added."""
    if not isinstance(item, dict):
        probs.append((at, "expected a mapping: period, cash, stock (and an interim's period figures)"))
        return None
    if "period" not in item:
        probs.append((f"{at}.period", "required: the period the distribution is of (2024Q1, 2024H1, 2024Q3, 2024)"))
        return None
    period, err = read_period(item["period"], fy)
    if err:
        probs.append((f"{at}.period", err))
        return None
    allowed = FINAL_KEYS if period == FINAL else tuple(ITEM_KEYS)
    vals: dict[str, Any] = {}
    for key, raw in item.items():
        if key == "period":
            continue
        if key not in allowed:
            hint = (" (the final is measured against the year's own figures: give them as the year's fields)"
                    if period == FINAL and key in ITEM_KEYS else f"; expected one of {', '.join(allowed)}")
            probs.append((f"{at}.{key}", "unknown key of a distribution" + hint))
            continue
        fid = _field_of(key)
        val, err = read(FIELDS[fid], raw)
        if err:
            probs.append((f"{at}.{key}", err))
        elif val is not None:
            vals[key] = val
    return period, vals


def _field_of(key: str) -> str:
    """The field whose reading an item's key takes (the second slot's: an interim's own kind of figure)."""
    return {"cash": "cash_dividend", "stock": "stock_dividend"}.get(key) or getattr(SLOTS[1], ITEM_KEYS[key])


def _totals(out: dict, final: dict | None, row: dict, where: str, read: Reader) -> list:
    """The year's cash and stock totals: with a final item, the list's sums (the year's own, if given, must
    agree to the fen); without one, the year's as given (the interims within them: xlmodel.consistency)."""
    probs = []
    if final is None:
        return probs
    for total, key, attr in (("cash_dividend", "cash", "cash"), ("stock_dividend", "stock", "stock")):
        fen = round(sum(round(out.get(getattr(s, attr)) or 0.0, 2) for s in SLOTS) + round(final.get(key) or 0.0, 2), 2)
        given, err = read(FIELDS[total], row.get(total))
        if err:
            continue  # said where the year's field is read
        if given is not None and round(given, 2) != fen:
            probs.append((where, f"the distributions' {key} add up to {fen:,.2f}, but the year's {total} is {given:,.2f}: "
                                 f"they must agree (the year's total includes every interim and the final)"))
        else:
            out[total] = fen
    return probs
