"""The floor of the evaluator: the GCL plan (gcl-energy-2022-2024) with the regulatory baseline,
written by hand, once in plain Python and once in numpy.

Both compute what a reader of the plan would: every rule's status (34 rules), the overall
status and the minimum cash dividend, from the plan's thresholds typed in as constants, with the
same blank and rounding rules as the model (a blank amount reads 0, ROUND half away from zero to
the fen, MIN ignoring a blank cell). They are benchmarks, not a second implementation: the
benchmark checks that they agree with the model on the parity cases before it times them.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from xlmodel.rules.compiled import round_fen1 as r2
from xlmodel.rules.compiled import round_fen_v as r2v

EPOCH = dt.date(1899, 12, 30)
ACCEPTED = ("standard_unqualified", "unqualified_with_emphasis")
MAIN, GROWTH = ("sse_main", "szse_main"), ("chinext", "star")
ATTESTED = ("interim_period_end_retained_positive", "stock_dividend_basis", "board_records_kept", "minority_consulted",
            "no_cash_explanation", "no_cash_annual_report", "no_cash_supervisory_statement", "fund_occupation_withheld",
            "plan_change_two_thirds", "reg_low_payout_explained", "reg_no_cash_explained")
DEFAULT_ZERO = ("cash_dividend", "buyback_amount", "buyback_cancelled", "stock_dividend", "capital_reserve_conversion",
                "interim_cash_dividend", "interim_stock_dividend")
OBLIGATIONS = ("interim_period_end_retained_positive", "min_annual", "min_rolling", "distribution_cap",
               "annual_cash_in_principle", "stock_dividend_basis", "cash_share", "cash_share_interim",
               "independent_directors_opinion",
               "board_records_kept", "minority_consulted", "payout_within_two_months", "no_cash_explanation",
               "no_cash_annual_report", "no_cash_supervisory_statement", "fund_occupation_withheld",
               "plan_change_two_thirds", "reg_st_low_dividend", "reg_low_payout_explained", "reg_low_payout_online_voting",
               "reg_no_cash_explained", "reg_cash_while_conditions_unmet", "reg_parent_retained_positive",
               "reg_distribution_cap", "reg_payout_six_months", "reg_vote_ordinary", "reg_vote_special", "reg_interim_cap",
               "reg_amounts_plausible", "reg_controlling_sale")
MAIN_SSE = ("sse_main", "star")  # the SSE's risk-warning precondition: the parent's retained earnings alone
JUMPS = ("net_profit_attributable", "total_assets", "net_assets", "revenue")


def _edate(serial: float, months: int) -> float:
    d = EPOCH + dt.timedelta(days=int(serial))
    m = d.month - 1 + months
    y, m = d.year + m // 12, m % 12 + 1
    last = (dt.date(y + (m == 12), m % 12 + 1, 1) - dt.timedelta(days=1)).day
    return float((dt.date(y, m, min(d.day, last)) - EPOCH).days)


def _status(na, unknown, missing, test, ok="pass", bad="fail"):
    return "not_applicable" if na else "missing_input" if unknown or missing else ok if test else bad


def evaluate(years: dict, company: dict, att: dict, Y: int) -> dict:
    """One case: {rule id: status, "overall_status": …, "min_cash_dividend": … (None: blank)}.

    Written as one would by hand for speed: every input read once into a local, no helpers but
    ROUND and EDATE."""
    e = {}
    g0, g1, g2 = (years.get(Y) or e).get, (years.get(Y - 1) or e).get, (years.get(Y - 2) or e).get
    rc, rp, ta, po = (g0("retained_earnings_consolidated"), g0("retained_earnings_parent"), g0("total_assets"),
                      g0("planned_major_outlay"))
    dp0, dp1, dp2 = g0("distributable_profit"), g1("distributable_profit"), g2("distributable_profit")
    np0, np1, np2 = g0("net_profit_attributable"), g1("net_profit_attributable"), g2("net_profit_attributable")
    cd0, cd1, cd2 = g0("cash_dividend") or 0.0, g1("cash_dividend") or 0.0, g2("cash_dividend") or 0.0
    bb0, bb1, bb2 = g0("buyback_amount") or 0.0, g1("buyback_amount") or 0.0, g2("buyback_amount") or 0.0
    bc0, bc1, bc2 = g0("buyback_cancelled") or 0.0, g1("buyback_cancelled") or 0.0, g2("buyback_cancelled") or 0.0
    sd, crc, icd = g0("stock_dividend") or 0.0, g0("capital_reserve_conversion") or 0.0, g0("interim_cash_dividend") or 0.0
    stage, op, gc = g0("development_stage"), g0("audit_opinion"), g0("going_concern_unaffected")
    board, listing = company.get("board"), company.get("listing_date")
    MI, NA = "missing_input", "not_applicable"
    s = {}
    # conditions
    rcv, rpv = rc or 0.0, rp or 0.0
    retained = (rcv if rcv <= rpv else rpv) if rc is not None and rp is not None else rcv if rp is None else rpv
    rmiss = rc is None or rp is None
    s["cond_retained_positive"] = MI if rmiss else "met" if r2(retained) > 0 else "not_met"
    s["cond_going_concern"] = MI if gc is None else "met" if gc else "not_met"
    s["cond_audit_opinion"] = MI if op is None else "met" if op in ACCEPTED else "not_met"
    planned = r2(po or 0.0)
    major = planned >= r2(0.3 * (ta or 0.0)) and planned > 50_000_000.0
    omiss = po is None or ta is None
    s["cond_no_major_outlay"] = MI if omiss else "not_met" if major else "met"
    conds = (s["cond_retained_positive"], s["cond_going_concern"], s["cond_audit_opinion"], s["cond_no_major_outlay"])
    nm, mc = conds.count("not_met"), conds.count(MI)
    met, unknown = nm == 0 and mc == 0, nm == 0 and mc > 0
    a = att.get
    x = a("interim_period_end_retained_positive")
    s["interim_period_end_retained_positive"] = NA if not r2(icd) > 0 else MI if x is None else "pass" if x else "warn"
    # minimums
    cash0, cash1, cash2 = cd0 + bb0, cd1 + bb1, cd2 + bb2
    act = r2(cash0)
    req_annual = r2(max(0.0, 0.1 * (dp0 or 0.0)))
    gate = NA if not unknown and not met else MI if unknown else None
    s["min_annual"] = gate or (MI if dp0 is None else "pass" if act >= req_annual else "fail")
    req_roll = r2(max(0.0, 0.3 * (0.0 + (dp2 or 0.0) + (dp1 or 0.0) + (dp0 or 0.0)) / 3.0))
    prior = r2(0.0 + cash2 + cash1)
    s["min_rolling"] = gate or (MI if dp0 is None or dp1 is None or dp2 is None else
                                "pass" if r2(0.0 + cash2 + cash1 + cash0) >= req_roll else "fail")
    dist = r2(cd0 + sd)
    s["distribution_cap"] = MI if rmiss else "pass" if dist <= max(0.0, r2(retained)) else "fail"
    s["annual_cash_in_principle"] = gate or ("pass" if act > 0 else "warn")
    x = a("stock_dividend_basis")
    s["stock_dividend_basis"] = NA if not r2(sd + crc) > 0 else MI if x is None else "pass" if x else "fail"
    # the cash share of each distribution: the final (the year's less the interim's) and the interim
    share = (0.4 if major else 0.8) if stage == "mature" else (0.2 if major else 0.0)
    prescribed = major or stage not in ("growth", "indeterminate")
    icash, istock = r2(icd), r2(g0("interim_stock_dividend") or 0.0)
    fcash, fstock = r2(act - icash), r2(r2(sd) - istock)
    for rid, cash, stock, made in (("cash_share", fcash, fstock, r2(cd0) - icash + fstock > 0),
                                   ("cash_share_interim", icash, istock, icash + istock > 0)):
        u2 = stock > 0 and (stage is None or omiss)
        req = r2(stock * share / (1 - share))
        if rid == "cash_share":
            req_share = req
        s[rid] = (NA if not made or (not u2 and not (stock == 0 or prescribed)) else MI if u2 else
                  "pass" if cash >= req else "fail")
    x = g0("independent_directors_opinion")
    s["independent_directors_opinion"] = MI if x is None else "pass" if x else "fail"
    for rid in ("board_records_kept", "minority_consulted", "fund_occupation_withheld", "plan_change_two_thirds"):
        x = a(rid)
        s[rid] = MI if x is None else "pass" if x else "fail"
    agm, pay = g0("agm_date"), g0("payout_date")
    serial = (agm - EPOCH).days if agm is not None else 0
    for rid, months in (("payout_within_two_months", 2), ("reg_payout_six_months", 6)):
        if not dist > 0 or agm is None:  # no distribution, or the AGM not yet held
            s[rid] = NA
        elif pay is None:
            s[rid] = MI
        else:
            s[rid] = "pass" if (pay - EPOCH).days <= (_edate(serial, months) if serial >= 1 else 0.0) else "fail"
    # the votes (Company Law art. 116): not applicable before the AGM
    vote = g0("vote_for_ratio")
    agm_held = agm is not None or vote is not None
    s["reg_vote_ordinary"] = NA if not agm_held else MI if vote is None else "pass" if vote > 0.5 else "fail"
    s["reg_vote_special"] = (NA if not agm_held or not r2(sd + crc) > 0 else MI if vote is None else
                             "pass" if vote >= 2 / 3 else "fail")
    npa = np0 or 0.0
    profitable = r2(npa) > 0
    no_cash_na = (np0 is not None and not profitable) or not r2(cd0) == 0
    for rid in ("no_cash_explanation", "no_cash_annual_report", "no_cash_supervisory_statement", "reg_no_cash_explained"):
        x = a(rid)
        s[rid] = NA if no_cash_na else MI if np0 is None or x is None else "pass" if x else "fail"
    # the exchange's low-dividend risk warning
    if listing is None:
        i2 = i1 = i0 = False
    else:
        first = (EPOCH + dt.timedelta(days=(listing - EPOCH).days - 1)).year + 1
        i2, i1, i0 = Y - 2 >= first, Y - 1 >= first, Y >= first
    n = i2 + i1 + i0
    is_main, is_growth = board in MAIN, board in GROWTH
    st_cash = r2((cd2 + bc2 if i2 else 0.0) + (cd1 + bc1 if i1 else 0.0) + (cd0 + bc0 if i0 else 0.0))
    npw = r2(((np2 or 0.0) if i2 else 0.0) + ((np1 or 0.0) if i1 else 0.0) + (npa if i0 else 0.0))
    profit_req = r2(max(0.0, 0.3 * npw / n)) if n > 0 else 0.0
    floor = 50_000_000.0 if is_main else 30_000_000.0
    if is_growth:
        r_2, r_1, r_0 = g2("rd_expense"), g1("rd_expense"), g0("rd_expense")
        v_2, v_1, v_0 = g2("revenue"), g1("revenue"), g0("revenue")
        rd = r2(((r_2 or 0.0) if i2 else 0.0) + ((r_1 or 0.0) if i1 else 0.0) + ((r_0 or 0.0) if i0 else 0.0))
        rev = r2(((v_2 or 0.0) if i2 else 0.0) + ((v_1 or 0.0) if i1 else 0.0) + ((v_0 or 0.0) if i0 else 0.0))
        exempt = n > 0 and (rd >= r2(0.15 * rev) or rd >= 300_000_000.0)
        rd_unknown = ((i2 and (r_2 is None or v_2 is None)) or (i1 and (r_1 is None or v_1 is None))
                      or (i0 and (r_0 is None or v_0 is None)))
    else:
        exempt = rd_unknown = False
    sse = board in MAIN_SSE
    if (Y < 2024 or (board is not None and not (is_main or is_growth)) or (listing is not None and not n > 0)
            or (np0 is not None and not profitable) or (not sse and rc is not None and not r2(rcv) > 0)
            or (rp is not None and not r2(rpv) > 0) or (not rd_unknown and exempt)):
        s["reg_st_low_dividend"] = NA
    elif (board is None or listing is None or np0 is None or rp is None or (not sse and rc is None) or rd_unknown
          or (i2 and np2 is None) or (i1 and np1 is None) or (i0 and np0 is None)):
        s["reg_st_low_dividend"] = MI
    else:
        s["reg_st_low_dividend"] = "pass" if st_cash >= profit_req or st_cash >= floor else "fail"
    # low payout: explained, online voting (a duty on the main boards, a recommendation elsewhere)
    low_na = (Y < 2013 or (np0 is not None and not profitable)
              or (not rmiss and not (r2(rcv) > 0 and r2(rpv) > 0))
              or (np0 is not None and not act < r2(0.3 * npa)))
    breach = MI if board is None else "fail" if is_main else "warn"
    for rid, x in (("reg_low_payout_explained", a("reg_low_payout_explained")),
                   ("reg_low_payout_online_voting", g0("online_voting_offered"))):
        s[rid] = NA if low_na else MI if np0 is None or rmiss or x is None else "pass" if x else breach
    s["reg_cash_while_conditions_unmet"] = NA if not r2(cd0) > 0 else MI if unknown else "pass" if met else "warn"
    s["reg_parent_retained_positive"] = NA if not dist > 0 else MI if rp is None else "pass" if r2(rpv) > 0 else "fail"
    # the Company Law's cap: the final distribution within the lower retained earnings
    final = r2(dist - r2(icd + (g0("interim_stock_dividend") or 0.0)))
    s["reg_distribution_cap"] = (NA if not dist > 0 or not final > 0 else MI if rmiss else
                                 "pass" if final <= max(0.0, r2(min(rcv, rpv))) else "fail")
    hy = g0("half_year_net_profit_attributable")
    s["reg_interim_cap"] = (NA if not r2(icd) > 0 else MI if hy is None else
                            "pass" if r2(icd) <= r2(1.0 * hy) else "warn")
    # amounts in 元: no figure a listed company could hardly have, unless the case confirms them
    tav, rev0 = r2(ta or 0.0), r2(g0("revenue") or 0.0)
    odd = 0.0 < tav < 100_000_000.0 or 0.0 < rev0 < 1_000_000.0
    for f in ("net_assets", "net_profit_attributable", "cash_dividend"):
        x = abs(r2(g0(f) or 0.0))
        odd = odd or 0.0 < x < 100_000.0
    for f in JUMPS:
        a2, a1, a0 = abs(r2(g2(f) or 0.0)), abs(r2(g1(f) or 0.0)), abs(r2(g0(f) or 0.0))
        for lo, hi in ((a2, a1), (a1, a0)):
            odd = odd or (lo > 0 and hi > 0 and (hi >= 1000.0 * lo or lo >= 1000.0 * hi))
    s["reg_amounts_plausible"] = "pass" if company.get("amounts_confirmed") or not odd else "warn"
    # the controlling shareholders' sale restriction
    c2, c1, c0 = r2(np2 or 0.0) >= 0, r2(np1 or 0.0) >= 0, r2(npa) >= 0
    k = c2 + c1 + c0
    sale_cash = r2((cash2 if c2 else 0.0) + (cash1 if c1 else 0.0) + (cash0 if c0 else 0.0))
    profit = ((np2 or 0.0) if c2 else 0.0) + ((np1 or 0.0) if c1 else 0.0) + (npa if c0 else 0.0)
    sale_req = r2(max(0.0, 0.3 * profit / k)) if k > 0 else 0.0
    hist = np0 is None or np1 is None or np2 is None
    low = None if hist else k > 0 and (sale_cash == 0 or sale_cash < sale_req)
    t_na, t_ipo = g0("price_below_net_assets_20d"), g0("price_below_ipo_20d")
    held = low is True or t_na is True or t_ipo is True
    s["reg_controlling_sale"] = "warn" if held else MI if low is None or t_na is None or t_ipo is None else "pass"
    # the outputs
    statuses = [s[r] for r in OBLIGATIONS]
    s["overall_status"] = ("fail" if "fail" in statuses else MI if MI in statuses
                           else "warn" if "warn" in statuses else "pass")
    if s["min_annual"] == MI or s["min_rolling"] == MI or s["cash_share"] == MI:
        s["min_cash_dividend"] = None
    else:
        s["min_cash_dividend"] = max(0.0, req_annual if met else 0.0,
                                     max(0.0, r2(req_roll - prior)) if met else 0.0,
                                     r2(icash + req_share) if req_share > 0 else 0.0)
    return s


# ---- numpy ----------------------------------------------------------------------------------------

STATUS = ("pass", "fail", "warn", "not_applicable", "missing_input", "met", "not_met")
P, F, W, NA, MI, MET, NOT_MET = range(7)


def _st(na, unknown, missing, test, ok=P, bad=F):
    out = np.where(test, ok, bad)
    out = np.where(unknown | missing, MI, out)
    return np.where(na, NA, out)


def evaluate_np(col, text, years: np.ndarray) -> dict:
    """Many cases: ``col(f, o)`` -> (values float64/bool, missing bool); ``text(f, o)`` -> (str array, missing).
    Returns {rule id: status codes (indices of STATUS)}, "overall_status" codes and "min_cash_dividend" (NaN: blank)."""
    def v(f, o=0):
        return col(f, o)[0]

    def miss(f, o=0):
        return col(f, o)[1]

    def cash(o):
        return v("cash_dividend", o) + v("buyback_amount", o)

    n_rows = len(years)
    f0 = np.zeros(n_rows, bool)
    s = {}
    m_cons, m_par = miss("retained_earnings_consolidated"), miss("retained_earnings_parent")
    retained = np.nan_to_num(np.fmin(np.where(m_cons, np.nan, v("retained_earnings_consolidated")),
                                     np.where(m_par, np.nan, v("retained_earnings_parent"))), nan=0.0)
    s["cond_retained_positive"] = _st(f0, f0, m_cons | m_par, r2v(retained) > 0, MET, NOT_MET)
    gc, gc_m = col("going_concern_unaffected", 0)
    s["cond_going_concern"] = _st(f0, f0, gc_m, gc, MET, NOT_MET)
    op, op_m = text("audit_opinion", 0)
    s["cond_audit_opinion"] = _st(f0, f0, op_m, np.isin(op, ACCEPTED), MET, NOT_MET)
    planned, threshold = r2v(v("planned_major_outlay")), r2v(0.3 * v("total_assets"))
    major = (planned >= threshold) & (planned > 50_000_000.0)
    s["cond_no_major_outlay"] = _st(f0, f0, miss("planned_major_outlay") | miss("total_assets"), ~major, MET, NOT_MET)
    conds = np.stack([s[k] for k in ("cond_retained_positive", "cond_going_concern", "cond_audit_opinion",
                                     "cond_no_major_outlay")])
    nm, mc = (conds == NOT_MET).sum(0), (conds == MI).sum(0)
    met, unknown = (nm == 0) & (mc == 0), (nm == 0) & (mc > 0)
    not_met = ~unknown & ~met

    def attested(fid, na, unk=f0, bad=F):
        x, m = col(fid, 0)
        return _st(na, unk, m, x, P, bad)

    s["interim_period_end_retained_positive"] = attested("attest.interim_period_end_retained_positive",
                                                         ~(r2v(v("interim_cash_dividend")) > 0), bad=W)
    dp_m = miss("distributable_profit")
    req_annual = r2v(np.maximum(0.0, 0.1 * v("distributable_profit")))
    act = r2v(cash(0))
    s["min_annual"] = _st(not_met, unknown, dp_m, act >= req_annual)
    roll_m = dp_m | miss("distributable_profit", -1) | miss("distributable_profit", -2)
    basis = 0.0 + v("distributable_profit", -2) + v("distributable_profit", -1) + v("distributable_profit")
    req_roll = r2v(np.maximum(0.0, 0.3 * basis / 3.0))
    prior = r2v(0.0 + cash(-2) + cash(-1))
    s["min_rolling"] = _st(not_met, unknown, roll_m, r2v(0.0 + cash(-2) + cash(-1) + cash(0)) >= req_roll)
    dist = r2v(v("cash_dividend") + v("stock_dividend"))
    s["distribution_cap"] = _st(f0, f0, m_cons | m_par, dist <= np.maximum(0.0, r2v(retained)))
    s["annual_cash_in_principle"] = _st(not_met, unknown, f0, act > 0, bad=W)
    s["stock_dividend_basis"] = attested("attest.stock_dividend_basis",
                                         ~(r2v(v("stock_dividend") + v("capital_reserve_conversion")) > 0))
    stage, stage_m = text("development_stage", 0)
    share = np.where(stage == "mature", np.where(major, 0.4, 0.8), np.where(major, 0.2, 0.0))
    inputs_m = stage_m | miss("planned_major_outlay") | miss("total_assets")
    prescribed = ~(((stage == "growth") | (stage == "indeterminate")) & ~major)
    icash, istock = r2v(v("interim_cash_dividend")), r2v(v("interim_stock_dividend"))
    fcash, fstock = r2v(act - icash), r2v(r2v(v("stock_dividend")) - istock)
    for rid, dcash, stock, made in (("cash_share", fcash, fstock, r2v(v("cash_dividend")) - icash + fstock > 0),
                                    ("cash_share_interim", icash, istock, icash + istock > 0)):
        u2 = (stock > 0) & inputs_m
        na = ~made | (~u2 & ~((stock == 0) | prescribed))
        with np.errstate(all="ignore"):
            req = r2v(stock * share / (1 - share))
        if rid == "cash_share":
            req_share = req
        s[rid] = _st(na, u2, (stock > 0) & inputs_m, dcash >= req)
    s["independent_directors_opinion"] = attested("independent_directors_opinion", f0)
    for rid in ("board_records_kept", "minority_consulted", "fund_occupation_withheld", "plan_change_two_thirds"):
        s[rid] = attested("attest." + rid, f0)
    agm, agm_m = col("agm_date", 0)
    pay, pay_m = col("payout_date", 0)
    ok = agm >= 1
    day = np.datetime64("1899-12-30") + agm.astype(np.int64).astype("timedelta64[D]")
    month = day.astype("datetime64[M]")
    for rid, months in (("payout_within_two_months", 2), ("reg_payout_six_months", 6)):
        target = month + np.timedelta64(months, "M")
        last = ((target + 1).astype("datetime64[D]") - target.astype("datetime64[D]")).astype(np.int64)
        deadline = (target.astype("datetime64[D]") - np.datetime64("1899-12-30")).astype(np.int64) + np.minimum(
            (day - month.astype("datetime64[D]")).astype(np.int64), last - 1)
        deadline = np.where(ok, deadline.astype(float), 0.0)
        s[rid] = _st(~(dist > 0) | agm_m, f0, pay_m, pay <= deadline)  # not applicable before the AGM
    vote, vote_m = col("vote_for_ratio", 0)
    agm_held = ~agm_m | ~vote_m
    s["reg_vote_ordinary"] = _st(~agm_held, f0, vote_m, vote > 0.5)
    s["reg_vote_special"] = _st(~agm_held | ~(r2v(v("stock_dividend") + v("capital_reserve_conversion")) > 0), f0, vote_m,
                                vote >= 2 / 3)
    npa_m, profitable = miss("net_profit_attributable"), r2v(v("net_profit_attributable")) > 0
    no_cash_na = (~npa_m & ~profitable) | ~(r2v(v("cash_dividend")) == 0)
    for rid in ("no_cash_explanation", "no_cash_annual_report", "no_cash_supervisory_statement", "reg_no_cash_explained"):
        s[rid] = attested("attest." + rid, no_cash_na, npa_m)
    board, m_board = text("board", 0)
    listing, m_listing = col("listing_date", 0)
    lday = np.datetime64("1899-12-30") + (listing - 1).astype(np.int64).astype("timedelta64[D]")
    first_full = lday.astype("datetime64[Y]").astype(np.int64) + 1971.0
    inc = {o: ~m_listing & (years + o >= first_full) for o in (-2, -1, 0)}
    n = inc[-2].astype(int) + inc[-1] + inc[0]
    is_main, is_growth = np.isin(board, MAIN), np.isin(board, GROWTH)

    def window(f):
        return r2v(np.where(inc[-2], v(f, -2), 0.0) + np.where(inc[-1], v(f, -1), 0.0) + np.where(inc[0], v(f, 0), 0.0))

    st_cash = r2v(sum(np.where(inc[o], v("cash_dividend", o) + v("buyback_cancelled", o), 0.0) for o in (-2, -1, 0)))
    with np.errstate(all="ignore"):
        profit_req = np.where(n > 0, r2v(np.maximum(0.0, 0.3 * window("net_profit_attributable") / n)), 0.0)
    floor = np.where(is_main, 50_000_000.0, 30_000_000.0)
    rd, revenue = window("rd_expense"), window("revenue")
    exempt = is_growth & (n > 0) & ((rd >= r2v(0.15 * revenue)) | (rd >= 300_000_000.0))
    rd_unknown = is_growth & np.any([inc[o] & (miss("rd_expense", o) | miss("revenue", o)) for o in (-2, -1, 0)], 0)
    sse = np.isin(board, MAIN_SSE)  # the SSE's precondition: the parent's retained earnings alone
    na = (~(years >= 2024) | (~m_board & ~(is_main | is_growth)) | (~m_listing & ~(n > 0)) | (~npa_m & ~profitable)
          | (~sse & ~m_cons & ~(r2v(v("retained_earnings_consolidated")) > 0))
          | (~m_par & ~(r2v(v("retained_earnings_parent")) > 0)) | (~rd_unknown & exempt))
    unk = m_board | m_listing | npa_m | (~sse & m_cons) | m_par | rd_unknown
    history = np.any([inc[o] & miss("net_profit_attributable", o) for o in (-2, -1, 0)], 0)
    s["reg_st_low_dividend"] = _st(na, unk, history, (st_cash >= profit_req) | (st_cash >= floor))
    low_na = (~(years >= 2013) | (~npa_m & ~profitable)
              | (~(m_cons | m_par) & ~((r2v(v("retained_earnings_consolidated")) > 0)
                                      & (r2v(v("retained_earnings_parent")) > 0)))
              | (~npa_m & ~(r2v(cash(0)) < r2v(0.3 * v("net_profit_attributable")))))
    low_unk = npa_m | m_cons | m_par
    breach = np.where(m_board, MI, np.where(is_main, F, W))
    s["reg_low_payout_explained"] = attested("attest.reg_low_payout_explained", low_na, low_unk, bad=breach)
    s["reg_low_payout_online_voting"] = attested("online_voting_offered", low_na, low_unk, bad=breach)
    s["reg_cash_while_conditions_unmet"] = _st(~(r2v(v("cash_dividend")) > 0), f0, unknown, met, bad=W)
    s["reg_parent_retained_positive"] = _st(~(dist > 0), f0, m_par, r2v(v("retained_earnings_parent")) > 0)
    final = r2v(dist - r2v(v("interim_cash_dividend") + v("interim_stock_dividend")))
    cap = np.maximum(0.0, r2v(np.minimum(v("retained_earnings_consolidated"), v("retained_earnings_parent"))))
    s["reg_distribution_cap"] = _st(~(dist > 0) | ~(final > 0), f0, m_cons | m_par, final <= cap)
    s["reg_interim_cap"] = _st(~(icash > 0), f0, miss("half_year_net_profit_attributable"),
                               icash <= r2v(1.0 * v("half_year_net_profit_attributable")), bad=W)

    def size(f, o=0):
        return np.abs(r2v(v(f, o)))
    tav, rev0 = r2v(v("total_assets")), r2v(v("revenue"))
    odd = ((tav > 0) & (tav < 100_000_000.0)) | ((rev0 > 0) & (rev0 < 1_000_000.0))
    for f in ("net_assets", "net_profit_attributable", "cash_dividend"):
        odd |= (size(f) > 0) & (size(f) < 100_000.0)
    for f in JUMPS:
        for o in (-1, 0):
            a, b = size(f, o - 1), size(f, o)
            odd |= (a > 0) & (b > 0) & ((b >= 1000.0 * a) | (a >= 1000.0 * b))
    conf, conf_m = col("amounts_confirmed", 0)
    s["reg_amounts_plausible"] = _st(f0, f0, f0, (~conf_m & (conf == 1)) | ~odd, bad=W)
    counted = {o: r2v(v("net_profit_attributable", o)) >= 0 for o in (-2, -1, 0)}
    k = counted[-2].astype(int) + counted[-1] + counted[0]
    sale_cash = r2v(sum(np.where(counted[o], cash(o), 0.0) for o in (-2, -1, 0)))
    profit = sum(np.where(counted[o], v("net_profit_attributable", o), 0.0) for o in (-2, -1, 0))
    with np.errstate(all="ignore"):
        sale_req = np.where(k > 0, r2v(np.maximum(0.0, 0.3 * profit / k)), 0.0)
    hist = miss("net_profit_attributable", -2) | miss("net_profit_attributable", -1) | npa_m
    low = (k > 0) & ((sale_cash == 0) | (sale_cash < sale_req))
    na_v, na_m = col("price_below_net_assets_20d", 0)
    ipo_v, ipo_m = col("price_below_ipo_20d", 0)
    held = (~hist & low) | (~na_m & na_v) | (~ipo_m & ipo_v)
    s["reg_controlling_sale"] = _st(f0, f0, ~held & (hist | na_m | ipo_m), ~held, bad=W)
    statuses = np.stack([s[r] for r in OBLIGATIONS])
    s["overall_status"] = np.where((statuses == F).any(0), F, np.where((statuses == MI).any(0), MI,
                                                                        np.where((statuses == W).any(0), W, P)))
    mins = np.stack([s["min_annual"], s["min_rolling"], s["cash_share"]])
    best = np.maximum.reduce([np.zeros(n_rows), np.where(met, req_annual, 0.0),
                              np.where(met, np.maximum(0.0, r2v(req_roll - prior)), 0.0),
                              np.where(req_share > 0, r2v(icash + req_share), 0.0)])
    s["min_cash_dividend"] = np.where((mins == MI).any(0), np.nan, best)
    return s


def same(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and not math.isnan(b) and abs(a - b) < 1e-9)
