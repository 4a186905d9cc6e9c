"""Rule kinds, the minimums: the minimum cash dividend (of a year, a rolling window, the plan period), the
number of distributions, the cash share of a distribution by stage, the cash paid.
"""

from __future__ import annotations

from ..plans import schema as pol
from ..plans.rule_kinds import CashPaid, CashShare, MinCash, MinCashPlanPeriod, MinCashRolling, MinDistributions
from .expr import FY, And, C, If, In, Lbl, Max, Min, Missing, Node, Not, Num, Or, P, Round2, Sum, Window
from ..fields import FIELDS, SLOTS
from .model import Check, SERIES_ZH, _amount_short, _amount_short_strict


def _component(b: _Builder, s, i: int, c) -> Node:
    key = f"c{i + 1}"
    if c.type == "pct":
        basis_zh = FIELDS[c.basis].zh if c.basis in FIELDS else SERIES_ZH.get(c.basis, (c.basis,))[0]
        if c.by_year is None:
            r = b.param(s.id, f"{key}_ratio", c.ratio, s.clause, f"最低比例（占{basis_zh}）", f"Minimum share of {c.basis}", "%")
            return r * b.measure(c.basis)
        # thresholds by fiscal year (65% → 70% → 75%): each year's ratio from that year on, picked by the
        # column's fiscal year; every year and ratio on the parameter sheet
        years = sorted(c.by_year)
        ratios = [b.param(s.id, f"{key}_ratio_{y}", c.by_year[y], s.clause, f"最低比例（{y}年度起，占{basis_zh}）",
                          f"Minimum share of {c.basis} from fiscal year {y}", "%") for y in years]
        node: Node = ratios[0]
        for y, r in zip(years[1:], ratios[1:]):
            start = b.param(s.id, f"{key}_from_{y}", y, s.clause, f"分年度比例：自{y}年度起适用",
                            f"Year-specific ratio: applies from fiscal year {y}", "年", editable=False)
            node = If(FY(0) >= start, r, node)
        b.m.scalars[f"{s.id}.{key}_ratio_applied"] = node
        return C(f"{s.id}.{key}_ratio_applied") * b.measure(c.basis)
    if c.type == "fixed":
        return b.param(s.id, f"{key}_amount", c.amount, s.clause, "最低金额", "Fixed minimum", "元")
    ps = b.param(s.id, f"{key}_per_share", c.amount, s.clause, "每股最低现金分红", "Minimum per share", "元/股")
    return ps * In("share_count")


def k_min_cash(b: _Builder, s: MinCash) -> Check:
    comps = [_component(b, s, i, c) for i, c in enumerate(s.components)]
    combined = comps[0] if len(comps) == 1 else (Max if s.combine == "higher_of" else Min)(*comps)
    req = Round2(Max(Num(0), combined))
    act = Round2(b.measure(s.measure, 0))  # cash (with the counted buybacks), dividends alone, or cash + stock
    need: Node = C(f"{s.id}.required")
    if s.measure != "cash":
        # the plan's cash (incl. counted buybacks) that brings the measure to its minimum, the rest of the
        # proposal as it is: required − (measure − cash), e.g. a dividends-only floor R with buybacks B: R + B
        need = Max(Num(0), Round2(C(f"{s.id}.required") - C(f"{s.id}.actual") + Round2(C("cash", 0))))
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=",
                 shortfall=_amount_short, min_cash=need if s.raises_minimum else None)


def k_min_cash_rolling(b: _Builder, s: MinCashRolling) -> Check:
    w = s.window
    total = s.basis_mode == "total"
    ratio = b.param(s.id, "ratio", s.ratio, s.clause, "最低比例（占窗口累计利润）" if total else "最低比例（占年均可分配利润）",
                    "Minimum share of the window's total basis" if total else "Minimum share of average annual basis", "%")
    years = b.param(s.id, "window", w, s.clause, "计算年数", "Window (years)", "年")
    b.m.history = min(b.m.history, -(w - 1))  # the plan's window: the history the workbook keeps
    # the window's length is a parameter: a length changed in the workbook is summed there as here. Its total is
    # amounts to the fen, so rounded to the fen (as the cash's is): LibreOffice's SUMPRODUCT sums compensated
    # (Kahan) and Excel's, Gnumeric's and Python's do not, and -128,825,567.33 + 57,346,362.26 + 73,444,537.82
    # then gives 1,965,332.75 or 1,965,332.7499999925 — 30% of its average ROUNDed to .28 or .27
    b.m.scalars[f"{s.id}.basis"] = Round2(Window(b.measure(s.basis), years, w))
    b.transparent.add(f"{s.id}.basis")  # its window's inputs are the rule's inputs (missing input)
    basis = C(f"{s.id}.basis")
    req = Round2(Max(Num(0), ratio * basis if total else ratio * basis / years))
    if s.amount is not None:  # 年均净利润30%或5000万元: the ratio's bound and the window's fixed amount
        b.m.scalars[f"{s.id}.ratio_required"] = req
        b.transparent.add(f"{s.id}.ratio_required")  # its window's inputs are the rule's inputs (missing input)
        amount = b.param(s.id, "amount", s.amount, s.clause, "窗口累计最低金额", "Fixed minimum for the window", "元")
        req = (Min if s.combine == "lower_of" else Max)(C(f"{s.id}.ratio_required"), amount)
    act = Round2(Window(C("cash", 0), years, w))
    prior = Round2(Window(C("cash", 0), years, w, skip=1))
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=", shortfall=_amount_short,
                 min_cash=Max(Num(0), Round2(C(f"{s.id}.required") - prior)) if s.raises_minimum else None,
                 missing=_window_missing(b, s, years))


def _window_missing(b: _Builder, s: MinCashRolling, years: P) -> Node | None:
    """The missing input of a window whose length is a parameter (issue 52.7): a year's inputs are needed only
    where the year is in the window the parameter sets, as :class:`~xlmodel.expr.Window` sums it (year ``o`` ≤ 0
    is in it where ``years > −o``). A window of 2 with the year before last blank is decided; a test fixed at
    the plan's three cells would call it missing while the sum reads two years. A window longer than the plan's
    reads years the tree does not name: missing, never a pass over a sum that may read a blank as 0."""
    plan = b.param(s.id, "plan_window", s.window, s.clause, "规划的计算年数（窗口最长年数）",
                   "The plan's window (the longest window the rule's inputs name)", "年", editable=False)
    parts: list[Node] = [years > plan]  # longer than the plan's: years the tree does not name, never known complete
    for o in range(-(s.window - 1), 1):
        cells = b.expand(b.measure(s.basis, o))
        if cells:  # year o is in the window where FY(o) > FY(0) − years (the flag the workbook's SUMPRODUCT reads)
            parts.append(Missing(tuple(cells)) if o == 0 else And(FY(o) > FY(0) - years, Missing(tuple(cells))))
    return b._any(parts)


def k_min_cash_plan_period(b: _Builder, s: MinCashPlanPeriod) -> Check:
    """Cumulative cash over the plan's own years (DOMAIN.md §2: 未来三年累计): the period's years are fixed
    parameters, each column counts the years of the period up to its own (FY(o) within them), so years
    before the period are never counted. Checked in the period's last year; before it, not applicable
    with the progress shown (the cash so far against the bound as if the period ended that year)."""
    lo, hi = s.years or b.p.plan_years
    n = hi - lo + 1
    rid, sc = s.id, b.m.scalars
    total = s.basis_mode == "total"
    first = b.param(rid, "first_year", lo, s.clause, "规划期间首个会计年度", "First fiscal year of the period", "年", editable=False)
    last = b.param(rid, "last_year", hi, s.clause, "规划期间最后一个会计年度（检查年度）", "Last fiscal year of the period (checked)",
                   "年", editable=False)
    ratio = b.param(rid, "ratio", s.ratio, s.clause, "最低比例（占期间累计利润）" if total else "最低比例（占期间年均利润）",
                    "Minimum share of the period's total basis" if total else "Minimum share of the period's average basis", "%")
    offs = list(range(-(n - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    inc = {o: And(FY(o) >= first, FY(o) <= last) for o in offs}
    sc[f"{rid}.years"] = Sum(*[If(inc[o], Num(1), Num(0)) for o in offs])
    k = C(f"{rid}.years")
    act = Round2(Sum(*[If(inc[o], C("cash", o), Num(0)) for o in offs]))
    sc[f"{rid}.prior_cash"] = Round2(Sum(*[If(inc[o], C("cash", o), Num(0)) for o in offs[:-1]])) if n > 1 else Num(0)
    sc[f"{rid}.basis"] = Sum(*[If(inc[o], b.measure(s.basis, o), Num(0)) for o in offs])
    b.transparent.add(f"{rid}.basis")  # the inputs a missing-input status names
    basis = C(f"{rid}.basis")
    req = Round2(Max(Num(0), ratio * basis)) if total else If(k > Num(0), Round2(Max(Num(0), ratio * basis / k)), Num(0))
    # only the counted years' inputs are needed
    blanks = [And(inc[o], Missing(tuple(cells))) for o in offs if (cells := b.expand(b.measure(s.basis, o)))]
    missing = b._any(blanks)
    need = If(FY(0).eq(last), Max(Num(0), Round2(C(f"{rid}.required") - C(f"{rid}.prior_cash"))), Num(0))
    return Check(actual=act, required=req, passes=act >= C(f"{rid}.required"), op=">=", shortfall=_amount_short,
                 min_cash=need if s.raises_minimum else None, missing=missing,
                 applies=[(FY(0) >= first, None, [], "na_before_plan_period"),
                          (FY(0) <= last, None, [], "na_after_plan_period"),
                          (FY(0) >= last, None, [], "na_plan_period_in_progress")])


def k_min_distributions(b: _Builder, s: MinDistributions) -> Check:
    """At least N distributions of the year's profit (interim and final), from ``distribution_count``."""
    n = b.param(s.id, "count", s.count, s.clause, "每年最少利润分配次数", "Minimum distributions a year", "次")
    got = In("distribution_count")
    return Check(actual=got, required=n, passes=got >= C(f"{s.id}.required"), op=">=", unit="次")


def k_cash_share(b: _Builder, s: CashShare) -> Check:
    """Cash share of a distribution ≥ the plan's share (DOMAIN.md §4: cash needed = S·s/(1−s)): of the year's
    distributions together, or of one distribution (本次利润分配). Each distribution has its own amounts: the
    interim its own inputs, the final the year's figures less the interim's (counted buybacks with the
    final). A final that needs cash makes the year's minimum the interim paid plus that need."""
    if s.distribution == "interim":
        return _cash_share_interims(b, s)
    cash, stock, made, reason = _distribution_parts(s.distribution)
    share, applies, table = _stage_share(b, b.p.rule(s.share_from) if s.share_from else s, stock)
    applies.insert(0, b.part(made, reason))
    req = Round2(stock * share / (Num(1) - share))
    need: Node | None = C(f"{s.id}.required")
    if s.distribution == "final":
        # a final needing cash R makes the year's cash the interims paid + R
        need = If(C(f"{s.id}.required") > Num(0), Round2(C("interims.cash") + C(f"{s.id}.required")), Num(0))
    act = Round2(cash)
    return Check(actual=act, required=req, passes=act >= C(f"{s.id}.required"), op=">=",
                 shortfall=_amount_short, min_cash=need, applies=applies,
                 relevant=stock > Num(0) if table else None)


def _cash_share_interims(b: _Builder, s: CashShare) -> Check:
    """本次利润分配 for each interim on its own: its cash at least its stock dividend × s/(1−s), the share
    the final's rule states. Paid before the year's proposal, so the year's minimum cannot mend it."""
    stock_all = C("interims.stock")
    share, applies, table = _stage_share(b, b.p.rule(s.share_from), stock_all)
    slots = []
    for k in SLOTS:
        cash, stock = Round2(In(k.cash)), Round2(In(k.stock))
        slots.append((cash + stock > Num(0), cash, Round2(stock * share / (Num(1) - share)),
                      *([stock > Num(0)] if table else [])))
    act, req, passes, made, missing = b.per_slot(s.id, slots, ">=")
    applies.insert(0, b.part(made, "na_no_interim_distribution"))
    return Check(actual=act, required=req, passes=passes, op=">=", shortfall=_amount_short, applies=applies,
                 missing=missing)


def _distribution_parts(which: str) -> tuple[Node, Node, Node, str]:
    """(cash, stock dividend, whether it is made, the not-applicable reason) of the year or of its final
    (each interim is its own: :func:`_cash_share_interims`)."""
    if which == "final":
        # the interims are part of the year's totals (interims above them are refused on input); counted
        # buybacks are cash of the final, but a buyback alone is no distribution
        interim = C("interims.cash")
        cash = Round2(C("cash", 0)) - interim
        stock = Round2(Round2(In("stock_dividend")) - C("interims.stock"))
        return cash, stock, Round2(In("cash_dividend")) - interim + stock > Num(0), "na_no_final_distribution"
    return C("cash", 0), Round2(In("stock_dividend")), Round2(C("distribution", 0)) > Num(0), "na_no_distribution"


def _stage_share(b: _Builder, t: CashShare, stock: Node) -> tuple[Node, list, bool]:
    """The minimum share rule ``t`` states (a parameter, or the stage × outlay table's cell), registered once
    however many distributions read it; the not-applicable parts for the cells the plan leaves empty."""
    if t.share is not None:
        if f"{t.id}.share" not in b.m.params:
            b.param(t.id, "share", t.share, t.clause, "现金分红占本次利润分配最低比例", "Minimum cash share of the distribution", "%")
        return P(f"{t.id}.share"), [], False
    major, stage = C("major_outlay"), In("development_stage")
    if f"{t.id}.share" not in b.m.scalars:
        # a cell the plan leaves empty prescribes no share (DOMAIN.md §5): not applicable, never a pass against 0%
        cells = {k: b.param(t.id, k, v, t.clause, f"最低现金占比：{_STAGE_ZH[k]}", f"Minimum cash share: {k.replace('_', ' ')}", "%")
                 for k, v in t.table.items() if v is not None}

        def cell(stage_key: str) -> Node:
            return If(major, cells.get(f"{stage_key}_major", Num(0)), cells.get(f"{stage_key}_no_major", Num(0)))

        b.m.scalars[f"{t.id}.share"] = If(stage.eq(Lbl("mature")), cell("mature"),
                                          If(stage.eq(Lbl("growth")), cell("growth"), cell("indeterminate")))
        b.transparent.add(f"{t.id}.share")
    applies: list = []
    empty = [k for k, v in t.table.items() if v is None]
    if empty:
        def at(k: str) -> Node:
            st, _, mo = k.partition("_")
            return And(stage.eq(Lbl(st)), Not(major) if mo == "no_major" else major)
        prescribed = Not(b._any([at(k) for k in empty]))
        inputs = b.expand(prescribed)
        # with no stock dividend the share is 100%: nothing to prescribe, the stage and outlay are not needed
        applies.append((Or(stock.eq(Num(0)), prescribed), And(stock > Num(0), Missing(tuple(inputs))), inputs,
                        "na_no_prescribed_share"))
    return C(f"{t.id}.share"), applies, True


_STAGE_ZH = {
    "mature_no_major": "成熟期、无重大资金支出", "mature_major": "成熟期、有重大资金支出",
    "growth_no_major": "成长期、无重大资金支出", "growth_major": "成长期、有重大资金支出",
    "indeterminate_no_major": "不易区分、无重大资金支出", "indeterminate_major": "不易区分、有重大资金支出",
}


def k_cash_paid(b: _Builder, s: CashPaid) -> Check:
    """A cash dividend is paid: any positive amount. A binding duty (severity fail) raises the
    minimum cash dividend to one fen; an "in principle" one (warn) does not (DOMAIN.md §4)."""
    act = Round2(C("cash", 0))
    return Check(actual=act, required=Num(0), passes=act > Num(0), op=">", shortfall=_amount_short_strict,
                 min_cash=b.fen() if s.severity == "fail" else None)
