"""Rule kinds, the caps: a plan's cap on the distribution and the Company Law's (distributable profit)."""

from __future__ import annotations

from ..plans import schema as pol
from ..plans.rule_kinds import DistributionCap, InterimProfitCap, LegalDistributionCap
from .expr import C, In, Max, Min, Num, Round2
from ..fields import SLOTS
from .model import Check, _amount_over


def k_cap(b: _Builder, s: DistributionCap) -> Check:
    """不得超过累计可分配利润: each distribution at most the cumulative distributable profit it is paid out of
    (on the plan's basis, floored at 0). The final: the year's distribution less the interim's, against the
    year-end figure the interim has already left; the interim: its own, against its period-end figure."""
    stock = b.p.settings.distribution_includes_stock
    if s.distribution == "interim":
        slots = []
        for k in SLOTS:
            cons, parent = In(k.retained_consolidated), In(k.retained_parent)
            basis = {"lower": Min(cons, parent), "consolidated": cons + Num(0),
                     "parent": parent + Num(0)}[b.p.settings.retained_earnings_basis]
            amount = b.interim_amount(k, stock)
            slots.append((amount > Num(0), amount, Max(Num(0), Round2(basis))))
        act, req, passes, made, missing = b.per_slot(s.id, slots, "<=")
        return Check(actual=act, required=req, passes=passes, op="<=", shortfall=_amount_over, missing=missing,
                     applies=[b.part(made, "na_no_interim_distribution")])
    year = Round2(C("distribution", 0))
    act, basis = Round2(year - b.interims_amount(stock)), C("retained", 0)
    applies = [b.part(year > Num(0), "na_no_distribution"), b.part(act > Num(0), "na_no_final_distribution")]
    req = Max(Num(0), Round2(basis))
    return Check(actual=act, required=req, passes=act <= C(f"{s.id}.required"), op="<=", shortfall=_amount_over,
                 applies=applies)


def k_interim_profit_cap(b: _Builder, s: InterimProfitCap) -> Check:
    """Guideline No. 3 (2023): an interim's cash dividend at most ``ratio`` × the net profit attributable of
    its own period (a Q1 interim the first quarter's, an H1 interim the half year's), each interim on its
    own against its period's figure."""
    ratio = b.param(s.id, "ratio", s.ratio, s.clause, "中期现金分红占相应期间归母净利润上限",
                    "Interim cash dividend: cap as a share of its period's net profit attributable", "%")
    slots = [(Round2(In(k.cash)) > Num(0), Round2(In(k.cash)), Round2(ratio * In(k.net_profit))) for k in SLOTS]
    act, req, passes, made, missing = b.per_slot(s.id, slots, "<=")
    return Check(actual=act, required=req, passes=passes, op="<=", shortfall=_amount_over, missing=missing,
                 applies=[b.part(made, "na_no_interim")])


def k_legal_cap(b: _Builder, s: LegalDistributionCap) -> Check:
    """The year's distribution paid out of the year-end retained earnings (cash and stock dividends less
    the interim's) at most the lower of the parent's and the consolidated figure, floored at 0
    (Company Law art. 210; the exchanges' 孰低 practice). Its bound is the maximum distribution."""
    year = Round2(In("cash_dividend") + In("stock_dividend"))
    final = Round2(year - b.interims_amount())
    req = Max(Num(0), Round2(Min(In("retained_earnings_consolidated"), In("retained_earnings_parent"))))
    return Check(actual=final, required=req, passes=final <= C(f"{s.id}.required"), op="<=", shortfall=_amount_over,
                 applies=[b.part(year > Num(0), "na_no_distribution"), b.part(final > Num(0), "na_no_final_distribution")])
