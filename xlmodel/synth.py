"""Synthetic cases for parity tests and benchmarks (randomised and boundary).

Nothing here is reported data. Cases are drawn from a seeded generator so a
failing parity case can be rebuilt from its seed.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from .case import INTERIM_PARTS, Case, parse_case
from .values import read_field
from .rules.consistency import CONFIRM_FIELD, MIN_TOTAL_ASSETS
from .evaluator import case_getter, evaluate_arrays, model_for
from .rules.expr import _edate, from_serial, to_serial
from .fields import FIELDS, SLOTS
from .plans.loading import load_policy

OPINIONS = ("standard_unqualified", "unqualified_with_emphasis", "qualified", "adverse", "disclaimer")
STAGES = ("mature", "growth", "indeterminate")
BOUNDARIES = ("min_exact", "min_short", "outlay_exact", "outlay_below", "half_fen", "vote_exact",
              "payout_deadline", "payout_late", "cap_exact", "zero_profit", "st_exact", "st_short", "rd_exact",
              "low_payout_exact", "sale_loss_year", "parent_zero", "interim_loss", "share_each_exact", "interims_exact")
HALF_YEAR_OPINIONS = OPINIONS + ("unaudited",)


def synthetic_code(i: int) -> str:
    """A six-digit code for synthetic company ``i`` (< 100,000): ``7`` and five digits, a prefix of no
    listed board, so that any board goes with it (a listed prefix would imply its own board)."""
    return f"7{i:05d}"


def _fen(x: float) -> float:
    return round(float(x), 2)


def random_year(rng: np.random.Generator, p_missing: float = 0.0, scale: float | None = None) -> dict:
    """One fiscal year's inputs around ``scale`` 元 of profit (a listed company's: assets at least 1,000万元,
    :mod:`xlmodel.rules.consistency`); by default a scale of its own."""
    scale = 10 ** rng.uniform(6.5, 10) if scale is None else scale
    npa = _fen(scale * (1 if rng.random() > 0.2 else -0.5) * rng.uniform(0.2, 1.5))
    assets = _fen(scale * rng.uniform(5, 40))
    net_assets = _fen(assets * rng.uniform(0.2, 0.7))
    y = {
        "net_profit_attributable": npa,
        "distributable_profit": _fen(npa * rng.uniform(0.8, 1.0)) if rng.random() > 0.1 else _fen(-abs(npa) * 0.1),
        "retained_earnings_consolidated": _fen(scale * rng.uniform(-0.5, 5)),
        "retained_earnings_parent": _fen(scale * rng.uniform(-0.5, 4)),
        "total_assets": assets,
        "net_assets": net_assets,
        "total_liabilities": _fen(assets - net_assets * rng.uniform(0.8, 1.2)),
        "operating_cash_flow": _fen(scale * rng.uniform(-0.5, 1.5)),
        "revenue": _fen(scale * rng.uniform(3, 20)),
        "rd_expense": _fen(scale * rng.uniform(0.1, 2)),
        "share_count": float(int(10 ** rng.uniform(8, 10))),
        "audit_opinion": str(rng.choice(OPINIONS, p=[0.75, 0.1, 0.07, 0.04, 0.04])),
        "planned_major_outlay": _fen(rng.choice([net_assets, assets]) * rng.uniform(0.0, 0.6)),
        "major_outlay_planned": bool(rng.random() < 0.4),
        "development_stage": str(rng.choice(STAGES)),
        "going_concern_unaffected": bool(rng.random() < 0.9),
        "cash_flow_sufficient": bool(rng.random() < 0.85),
        "cash_dividend": _fen(max(npa, 0) * rng.uniform(0, 0.7)) if rng.random() < 0.8 else 0.0,
        "buyback_amount": _fen(scale * rng.uniform(0, 0.1)) if rng.random() < 0.2 else 0.0,
        "buyback_cancelled": _fen(scale * rng.uniform(0, 0.05)) if rng.random() < 0.15 else 0.0,
        "stock_dividend": _fen(scale * rng.uniform(0, 0.3)) if rng.random() < 0.25 else 0.0,
        "capital_reserve_conversion": _fen(scale * rng.uniform(0, 0.3)) if rng.random() < 0.1 else 0.0,
        "vote_for_ratio": float(rng.choice([0.5, 2 / 3, round(rng.uniform(0.3, 1), 4)])),
        "online_voting_offered": bool(rng.random() < 0.8),
        "independent_directors_opinion": bool(rng.random() < 0.95),
        "half_year_distributable_profit": _fen(npa * rng.uniform(-0.3, 0.6)),
        "half_year_audit_opinion": str(rng.choice(HALF_YEAR_OPINIONS, p=[0.3, 0.05, 0.03, 0.01, 0.01, 0.6])),
        "price_below_net_assets_20d": bool(rng.random() < 0.15),
        "price_below_ipo_20d": bool(rng.random() < 0.1),
    }
    if y["cash_dividend"] > 0 and rng.random() < 0.3:  # part of the year's cash paid as an interim dividend
        y["interim_cash_dividend"] = _fen(y["cash_dividend"] * rng.uniform(0.1, 0.6))
    if y["stock_dividend"] > 0 and rng.random() < 0.3:  # and part of its stock dividend
        y["interim_stock_dividend"] = _fen(y["stock_dividend"] * rng.uniform(0.1, 0.6))
    if p_missing:
        for k in list(y):
            if rng.random() < p_missing:
                del y[k]
        make_consistent({"years": [y]})  # a total left blank is 0: so is its interim part
    interim = y.get("interim_cash_dividend", 0.0) + y.get("interim_stock_dividend", 0.0)
    if interim > 0:  # the period end the interim is paid out of: the year end's figures before it left them
        for f in ("consolidated", "parent"):
            if f"retained_earnings_{f}" in y:
                y[f"half_year_retained_earnings_{f}"] = _fen(y[f"retained_earnings_{f}"] + interim)
        if rng.random() < 0.4:  # several interims a year (Q1, H1 and perhaps Q3), each with its period's figures
            _split_interims(y, rng, int(rng.choice([2, 3])))
    return y


def _split_interims(y: dict, rng: np.random.Generator, n: int) -> None:
    """The year's interim cash and stock split over ``n`` slots (periods Q1, H1, Q3), each with its
    period's net profit attributable and its period end's retained earnings (the year end's plus the
    interims paid after that period end)."""
    npa = y.get("net_profit_attributable", 0.0)
    cash, stock = y.get("interim_cash_dividend", 0.0), y.get("interim_stock_dividend", 0.0)
    shares = rng.dirichlet(np.ones(n))
    parts = [(_fen(cash * w), _fen(stock * w)) for w in shares[:-1]]
    parts.append((_fen(cash - sum(c for c, _ in parts)), _fen(stock - sum(s for _, s in parts))))
    for slot, (c, st), period, frac in zip(SLOTS, parts, ("q1", "h1", "q3"), (0.25, 0.5, 0.75)):
        y[slot.period], y[slot.cash], y[slot.stock] = period, max(c, 0.0), max(st, 0.0)
        y[slot.net_profit] = _fen(npa * frac * rng.uniform(0.7, 1.3))
    for k, slot in enumerate(SLOTS[:n]):
        later = sum(y[s.cash] + y[s.stock] for s in SLOTS[k:n])
        for f, field_ in (("consolidated", slot.retained_consolidated), ("parent", slot.retained_parent)):
            if f"retained_earnings_{f}" in y:
                y[field_] = _fen(y[f"retained_earnings_{f}"] + later)


def random_case_data(rng: np.random.Generator, policy_id: str, year: int = 2024, n_years: int = 5,
                     p_missing: float = 0.02) -> dict:
    model = model_for(policy_id)
    years = []
    # one company's size, each year near it; a few cases confirm small real figures, a few carry a year's
    # flows typed in 万元 (the plausibility warning, reg_amounts_plausible, in every engine)
    confirmed = rng.random() < 0.05
    base = 10 ** (rng.uniform(4.5, 6) if confirmed else rng.uniform(6.5, 10))
    wan_year = int(rng.integers(year - n_years + 1, year)) if rng.random() < 0.08 else None
    for fy in range(year - n_years + 1, year + 1):
        y = {"fiscal_year": fy, **random_year(rng, p_missing if fy == year else p_missing / 2, base * rng.uniform(0.6, 1.6))}
        if fy == wan_year:
            for k in ("net_profit_attributable", "distributable_profit", "revenue", "cash_dividend", *(s.cash for s in SLOTS)):
                if k in y:
                    y[k] = _fen(y[k] / 10_000)
        if fy == year:
            agm = dt.date(fy + 1, int(rng.integers(3, 7)), int(rng.integers(1, 29)))
            if rng.random() > p_missing:
                y["agm_date"] = agm.isoformat()
            if rng.random() > p_missing:
                y["payout_date"] = (agm + dt.timedelta(days=int(rng.integers(10, 75)))).isoformat()
        years.append(y)
    att = {rid: bool(rng.random() < 0.9) for rid in model.attestation_ids() if rng.random() > p_missing}
    company = {"company_name": "示例公司 Synthetic Co.", "stock_code": synthetic_code(int(rng.integers(0, 99999))),
               "board": str(rng.choice(["sse_main", "szse_main", "chinext", "star", "bse"], p=[0.3, 0.3, 0.2, 0.15, 0.05]))}
    if confirmed:
        company["amounts_confirmed"] = True
    if rng.random() > p_missing:
        listed = dt.date(int(rng.choice([1995, 2010, 2018, year - 2, year - 1, year])), int(rng.integers(1, 13)),
                         int(rng.choice([1, 15, 28])))
        company["listing_date"] = listed.isoformat()
    return {"policy": policy_id, "evaluation_year": year, "years": years, "attestations": att, "company": company}


def _scalar(case: Case, name: str):
    env = evaluate_arrays(model_for(case.policy), 1, case_getter(case), case.evaluation_year)
    return env.calc(name, None)[0]


def apply_boundary(data: dict, kind: str, rng: np.random.Generator) -> dict:
    """Move a random case onto an exact boundary of its rules (DOMAIN.md §4)."""
    t = data["years"][-1]
    case = parse_case(data)
    if kind in ("min_exact", "min_short"):
        need = _scalar(case, "min_cash_dividend")
        if isinstance(need, float):
            bb = t.get("buyback_amount", 0.0) if load_policy(data["policy"]).settings.cash_includes_buybacks else 0.0
            t["cash_dividend"] = max(0.0, _fen(need - bb - (0.01 if kind == "min_short" else 0.0)))  # a distribution is ≥ 0
    elif kind in ("outlay_exact", "outlay_below"):
        m = model_for(data["policy"])
        if "major_outlay_threshold" in m.scalars:
            thr = _scalar(case, "major_outlay_threshold")
            if isinstance(thr, float):
                t["planned_major_outlay"] = _fen(thr - (0.01 if kind == "outlay_below" else 0.0))
    elif kind == "half_fen":
        # 10% and 30%/3 of amounts ending in .05 land on a half fen; S/4 for S ending in .02
        for y in data["years"][-3:]:
            y["distributable_profit"] = float(int(abs(y.get("distributable_profit", 1e6)))) + 0.05
        t["stock_dividend"] = float(int(rng.uniform(1e4, 1e7))) + 0.02
        t["total_assets"] = float(int(t.get("total_assets", 1e9))) + 0.05
        t["net_assets"] = float(int(t.get("net_assets", 1e9))) + 0.05
    elif kind == "vote_exact":
        t["vote_for_ratio"] = float(rng.choice([0.5, 2 / 3]))
        t["stock_dividend"] = t.get("stock_dividend") or 1000.0
    elif kind in ("payout_deadline", "payout_late"):
        agm = dt.date(t["fiscal_year"] + 1, int(rng.choice([1, 3, 8, 10, 12])), 31)
        deadline = from_serial(_edate(to_serial(agm), 2))
        t["agm_date"] = agm.isoformat()
        t["payout_date"] = (deadline + dt.timedelta(days=1 if kind == "payout_late" else 0)).isoformat()
    elif kind == "cap_exact":  # each distribution exactly the figure it is paid out of (the final: the year end's)
        lower = min(t.get("retained_earnings_consolidated", 0.0), t.get("retained_earnings_parent", 0.0))
        if int(lower) % 2 and t.get("cash_dividend", 0.0) > 0:  # half of them with an interim paid before
            t["interim_cash_dividend"] = t.get("interim_cash_dividend") or _fen(t["cash_dividend"] / 3)
        interim = _fen(t.get("interim_cash_dividend", 0.0) + t.get("interim_stock_dividend", 0.0))
        if lower > 0:
            t["cash_dividend"] = max(0.0, _fen(lower - t.get("stock_dividend", 0.0) + interim))
        if interim > 0:  # and the interim its period end's lower figure, or a fen short of it
            t["half_year_retained_earnings_parent"] = _fen(interim - (0.01 if rng.random() < 0.3 else 0.0))
            t["half_year_retained_earnings_consolidated"] = _fen(interim + t.get("retained_earnings_consolidated", 0.0))
    elif kind in ("st_exact", "st_short"):
        need = _scalar(case, "reg_st_low_dividend.needed") if "reg_st_low_dividend.needed" in model_for(data["policy"]).scalars else ""
        if isinstance(need, float):
            t["cash_dividend"] = max(0.0, _fen(need - (0.01 if kind == "st_short" else 0.0)))  # needed already counts this year's cancelled buybacks
            data["company"]["board"] = str(rng.choice(["sse_main", "chinext"]))
    elif kind == "rd_exact":
        data["company"]["board"] = "star"
        for y in data["years"][-3:]:
            y["revenue"], y["rd_expense"] = 1000000.0, 150000.0  # exactly 15%
        data["years"][-1]["rd_expense"] = 149999.99 if rng.random() < 0.5 else 150000.0
    elif kind == "low_payout_exact":  # cash (with bidding buybacks) exactly 30% of net profit: not a low payout
        npa = t.get("net_profit_attributable", 0.0)
        if npa > 0:
            t["cash_dividend"] = max(0.0, _fen(round(npa * 0.3, 2) - t.get("buyback_amount", 0.0)))
            _clear_interims(t)
    elif kind == "sale_loss_year":  # a loss year in the sale window, the other years paid exactly 30%
        data["years"][-3]["net_profit_attributable"] = -abs(data["years"][-3].get("net_profit_attributable", 1e6))
        for y in data["years"][-2:]:
            y["buyback_amount"] = 0.0
            y["cash_dividend"] = _fen(max(y.get("net_profit_attributable", 0.0), 0.0) * 0.3)
            _clear_interims(y)
        t["price_below_net_assets_20d"] = t["price_below_ipo_20d"] = False
    elif kind == "parent_zero":
        t["retained_earnings_parent"] = 0.0
    elif kind == "interim_loss":
        t["cash_dividend"] = t.get("cash_dividend") or 1000000.0
        t["interim_cash_dividend"] = _fen(t["cash_dividend"] / 2)
        t["half_year_distributable_profit"] = float(rng.choice([0.0, -1.0, 0.01]))
    elif kind == "share_each_exact":  # both distributions of the year on their cash-share boundary (本次利润分配)
        _share_each_exact(data, rng)
    elif kind == "interims_exact":  # two interims (Q1, H1): H1's cash exactly its period's profit, or a fen above
        _interims_exact(t, rng)
    elif kind == "zero_profit":
        t["distributable_profit"] = 0.0
        t["net_profit_attributable"] = 0.0
    return data


def _clear_interims(y: dict, keep_first: bool = False) -> None:
    """A year's interims taken out (all, or all but the first slot), with their periods' figures."""
    for s in SLOTS[1:] if keep_first else SLOTS:
        for f in (s.period, s.cash, s.stock) if s.k == 1 else s.fields:
            y.pop(f, None)


def _interims_exact(t: dict, rng: np.random.Generator) -> None:
    """Two interims, Q1 and H1, the second exactly at its own period's caps or a fen over: its cash equal to
    the half year's net profit attributable (or 0.01 above), its distribution equal to the lower retained
    earnings at its period end (or 0.01 above); the year's cash the two interims and a final."""
    one, two = SLOTS[0], SLOTS[1]
    c1 = float(int(rng.uniform(1e5, 1e7))) + 0.03
    c2 = float(int(rng.uniform(1e5, 1e7))) + 0.07
    over = 0.01 if rng.random() < 0.5 else 0.0
    t.update({one.period: "q1", one.cash: c1, one.stock: 0.0, one.net_profit: _fen(c1 * 2),
              two.period: "h1", two.cash: c2, two.stock: 0.0, two.net_profit: _fen(c2 - over)})
    t[one.retained_consolidated] = t[one.retained_parent] = _fen(c1 + c2 + 1000.0)
    t[two.retained_consolidated] = _fen(c2 + 5000.0)
    t[two.retained_parent] = _fen(c2 - (0.01 if rng.random() < 0.5 else 0.0))
    t["cash_dividend"] = _fen(c1 + c2 + float(int(rng.uniform(0, 1e6))))
    for f in SLOTS[2].fields:
        t.pop(f, None)


def _share_each_exact(data: dict, rng: np.random.Generator) -> None:
    """An interim with a stock dividend and cash exactly (or a fen below) its share's need; the final's
    cash exactly (or a fen below) its need (the final's cash counts the year's counted buybacks)."""
    if "cash_share_interim.required" not in model_for(data["policy"]).scalars:
        return
    t = data["years"][-1]
    _clear_interims(t, keep_first=True)
    t["stock_dividend"] = float(int(rng.uniform(1e5, 1e8))) + 0.02
    t["interim_stock_dividend"] = _fen(t["stock_dividend"] * rng.uniform(0.2, 0.8))
    t["interim_cash_dividend"] = t["cash_dividend"] = 0.0
    need = _scalar(parse_case(data), "cash_share_interim.required")
    if not isinstance(need, float):
        return
    t["interim_cash_dividend"] = t["cash_dividend"] = max(0.0, _fen(need - (0.01 if rng.random() < 0.3 else 0.0)))
    final = _scalar(parse_case(data), "cash_share.required")
    if isinstance(final, float):
        bb = t.get("buyback_amount", 0.0) if load_policy(data["policy"]).settings.cash_includes_buybacks else 0.0
        below = 0.01 if rng.random() < 0.3 else 0.0  # or a fen below
        t["cash_dividend"] = max(t["interim_cash_dividend"], _fen(t["interim_cash_dividend"] + final - bb - below))


def make_consistent(data: dict) -> None:
    """Move case data that its own values contradict onto the nearest case that is not (a boundary, a blank,
    a test's edit or a random draw may make one): what :mod:`xlmodel.rules.consistency` refuses on input is not a
    case. An interim above its year's total comes down to it; total assets below the floor no listed
    company has go up to it (unless the case confirms its figures); net assets above total assets down to
    them; a payout before its AGM onto the AGM's day; a count of distributions to what the amounts say."""
    confirmed = bool((data.get("company") or {}).get(CONFIRM_FIELD))
    for y in data["years"]:
        def val(fid):
            v, err = read_field(FIELDS[fid], y.get(fid))
            return None if err else v
        for part, total in INTERIM_PARTS:  # each within the total, and together (the first slot gives way)
            room = (val(total) or 0.0) - sum(val(p) or 0.0 for p, t in INTERIM_PARTS if t == total and p != part)
            if val(part) is not None and val(part) > min(val(total) or 0.0, max(_fen(room), 0.0)):
                y[part] = min(val(total) or 0.0, max(_fen(room), 0.0))
        ta, na = val("total_assets"), val("net_assets")
        if ta is not None and 0 < ta < MIN_TOTAL_ASSETS and not confirmed:
            y["total_assets"] = ta = MIN_TOTAL_ASSETS
        if ta is not None and na is not None and na > ta:
            y["net_assets"] = ta
        agm, pay = val("agm_date"), val("payout_date")
        if agm is not None and pay is not None and pay < agm:
            y["payout_date"] = agm.isoformat()
        count = val("distribution_count")
        if count is not None:
            cash, stock = val("cash_dividend") or 0.0, val("stock_dividend") or 0.0
            interims = sum((val(k.cash) or 0.0) + (val(k.stock) or 0.0) > 0 for k in SLOTS)
            final = cash - sum(val(k.cash) or 0.0 for k in SLOTS) > 0 or stock - sum(val(k.stock) or 0.0 for k in SLOTS) > 0
            if cash <= 0 and stock <= 0:
                y["distribution_count"] = 0
            elif count < interims + final:
                y["distribution_count"] = interims + int(final)


interims_within_totals = make_consistent  # (the name the first of these fixes had)


def parity_cases(policy_id: str, n: int, seed: int = 20261201, year: int = 2024) -> list[Case]:
    """``n`` cases: a third on exact boundaries, the rest random (some with missing inputs)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        data = random_case_data(rng, policy_id, year, p_missing=0.03 if i % 5 == 0 else 0.0)
        if i % 3 == 0:
            data = apply_boundary(data, BOUNDARIES[(i // 3) % len(BOUNDARIES)], rng)
        make_consistent(data)
        out.append(parse_case(data, f"synthetic:{policy_id}:{seed}:{i}"))
    return out


def cases_frame(cases: list[Case]):
    """Cases as a batch DataFrame: one row per company-year, attestations on the evaluation year."""
    import pandas as pd

    rows = []
    for i, c in enumerate(cases):
        for y, vals in c.years.items():
            row = {"policy": c.policy, "stock_code": synthetic_code(i), "fiscal_year": y,
                   **{k: v for k, v in c.company.items() if k in ("board", "listing_date", "amounts_confirmed")}, **vals}
            if y == c.evaluation_year:
                row.update({f"attest_{k}": v for k, v in c.attestations.items()})
            rows.append(row)
    return pd.DataFrame(rows)


#: (board, code prefixes) of a synthetic market, with each board's share of the companies
MARKET_BOARDS = (("sse_main", ("600", "601", "603", "605"), 0.32), ("szse_main", ("000", "001", "002", "003"), 0.28),
                 ("chinext", ("300", "301"), 0.24), ("star", ("688",), 0.11), ("bse", ("830", "870", "920"), 0.05))


def market_frame(companies: int = 5000, years: int = 5, last_year: int = 2024, seed: int = 1):
    """A synthetic market as a data terminal exports it, for the baseline-only screen: one row per
    company and fiscal year, codes of the boards' prefixes (no board column: it follows from the code),
    the figures the regulatory rules read (profit, retained earnings, cash dividends, buybacks, R&D and
    revenue, the price facts) and the listing date. Not reported data."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    boards = rng.choice(len(MARKET_BOARDS), size=companies, p=[b[2] for b in MARKET_BOARDS])
    codes = np.empty(companies, dtype=object)
    for b, (_, prefixes, _) in enumerate(MARKET_BOARDS):
        idx = np.flatnonzero(boards == b)
        k = np.arange(len(idx))
        codes[idx] = [prefixes[j % len(prefixes)] + f"{j // len(prefixes):03d}" for j in k]
    first = np.array([1996, 2008, 2016, last_year - 3, last_year - 2, last_year - 1])[rng.integers(0, 6, companies)]
    listed = [dt.date(int(y), int(m), int(d)).isoformat()
              for y, m, d in zip(first, rng.integers(1, 13, companies), rng.integers(1, 29, companies))]
    n = companies * years
    co = np.repeat(np.arange(companies), years)
    scale = (10 ** rng.uniform(7, 10, companies))[co]
    loss = rng.random(n) < 0.15
    npa = np.round(scale * np.where(loss, -rng.uniform(0.1, 0.8, n), rng.uniform(0.2, 1.5, n)), 2)
    payout = np.choose(rng.choice(3, n, p=[0.25, 0.25, 0.5]), [np.zeros(n), rng.uniform(0.02, 0.25, n),
                                                                rng.uniform(0.25, 0.6, n)])
    return pd.DataFrame({
        "stock_code": codes[co], "company_name": [f"示例公司{i:05d}" for i in co],
        "fiscal_year": np.tile(np.arange(last_year - years + 1, last_year + 1), companies),
        "listing_date": np.array(listed, dtype=object)[co],
        "net_profit_attributable": npa,
        "retained_earnings_consolidated": np.round(scale * rng.uniform(-0.3, 4, n), 2),
        "retained_earnings_parent": np.round(scale * rng.uniform(-0.3, 3, n), 2),
        "cash_dividend": np.round(np.maximum(npa, 0.0) * payout, 2),
        "buyback_amount": np.where(rng.random(n) < 0.1, np.round(scale * rng.uniform(0, 0.05, n), 2), 0.0),
        "buyback_cancelled": np.where(rng.random(n) < 0.05, np.round(scale * rng.uniform(0, 0.03, n), 2), 0.0),
        "revenue": np.round(scale * rng.uniform(3, 15, n), 2),
        "rd_expense": np.round(scale * rng.uniform(0.05, 1.5, n), 2),
        "price_below_net_assets_20d": rng.random(n) < 0.1,
        "price_below_ipo_20d": rng.random(n) < 0.08,
    })
