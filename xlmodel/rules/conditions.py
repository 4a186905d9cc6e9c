"""Rule kinds, the conditions and the procedure: a positive figure, the audit opinion, a judgment, no major
outlay, a comparison, any of several, the conditions held, an attestation, the shareholders' vote and a
deadline in months.
"""

from __future__ import annotations

from ..plans import schema as pol
from ..plans.rule_kinds import (AnyOf, Attestation, AuditOpinion, Compare, ConditionsHeld, Judgment, NoMajorOutlay,
                                Positive, Vote, WithinMonths)
from .expr import And, Blank, C, Cmp, CountIf, EDate, If, In, InList, Lbl, Min, Missing, Node, Not, Num, Or, Round2, Sum
from .model import ATTEST, Check, SHORTFALL, transaction_tests


def k_positive(b: _Builder, s: Positive) -> Check:
    a = Round2(b.measure(s.measure))
    return Check(actual=a, required=Num(0), passes=a > Num(0), op=">")


def k_audit(b: _Builder, s: AuditOpinion) -> Check:
    acc = b.param(s.id, "accepted", tuple(s.accepted), s.clause, "认可的审计意见", "Accepted audit opinions", "选项")
    return Check(actual=In(s.field), passes=InList(In(s.field), acc), op="in", unit="选项")


def k_judgment(b: _Builder, s: Judgment) -> Check:
    return Check(actual=In(s.field), passes=In(s.field), op="true", unit="是/否")


def k_no_major_outlay(b: _Builder, s: NoMajorOutlay) -> Check:
    mo = b.p.major_outlay
    if mo.definition == "board":
        return Check(actual=In("major_outlay_planned"), passes=Not(C("major_outlay")), op="not_major", unit="是/否")
    if transaction_tests(mo):  # the tests measure different figures: the actual is how many of them hold
        if "major_outlay_tests_met" not in b.m.scalars:
            b.m.scalars["major_outlay_tests_met"] = Sum(*[If(C(f"major_outlay.b{i}"), Num(1), Num(0))
                                                          for i in range(1, len(mo.tests()) + 1)])
            b.transparent.add("major_outlay_tests_met")
        return Check(actual=C("major_outlay_tests_met"), passes=Not(C("major_outlay")), op="not_major", unit="项")
    return Check(actual=Round2(In("planned_major_outlay")), required=C("major_outlay_threshold"),
                 passes=Not(C("major_outlay")), op="not_major")


def k_compare(b: _Builder, s: Compare) -> Check:
    a = Round2(b.measure(s.measure))
    if s.amount is not None:
        req: Node = b.param(s.id, "amount", s.amount, s.clause, "比较金额", "Amount compared with", "元")
    else:
        req = Round2(b.param(s.id, "ratio", s.ratio, s.clause, "比例", "Ratio", "%") * b.measure(s.of))
    return Check(actual=a, required=req, passes=Cmp(s.op, a, C(f"{s.id}.required")), op=s.op, shortfall=SHORTFALL[s.op])


def k_any_of(b: _Builder, s: AnyOf) -> Check:
    """Met by any of its alternatives (other rules, shown met / not met): pass when one is met; else
    missing input when one lacks an input; else fail; not applicable when none applies. Its minimum
    cash is the lowest an applicable alternative needs (over those whose minimum is known), when every
    alternative is a minimum; otherwise it raises none."""
    sts = [C(f"{rid}.status") for rid in s.rules]
    met = Or(*[st.eq(Lbl("met")) for st in sts])
    unknown = Or(*[st.eq(Lbl("missing_input")) for st in sts])
    applies = Or(*[Not(st.eq(Lbl("not_applicable"))) for st in sts])
    alts = [b.m.rule(rid) if any(r.id == rid for r in b.m.rules) else None for rid in s.rules]
    need = None
    if all(a is not None and a.is_minimum for a in alts):
        for k, rid in enumerate(s.rules, 1):
            b.m.scalars[f"{s.id}.alt{k}"] = If(C(f"{rid}.status").eq(Lbl("not_applicable")), Blank(), C(f"{rid}.min_cash"))
        need = Min(*[C(f"{s.id}.alt{k}") for k in range(1, len(s.rules) + 1)])  # references: blanks are left out
    return Check(actual=CountIf(Lbl("met"), *sts), passes=met, op="any_of", unit="项", min_cash=need,
                 missing=And(Not(met), unknown), applies=[(applies, None, [], "na_no_alternative")])


def _agm_held(*fids: str) -> tuple:
    """The AGM has been held: one of its facts is entered (its date, or the vote itself). Before it a
    proposal is checked without them: not applicable, never missing input (DOMAIN.md §5)."""
    return Not(Missing(tuple((f, 0) for f in fids))) if len(fids) == 1 else \
        Not(And(*[Missing(((f, 0),)) for f in fids])), None, [], "na_agm_not_held"


def k_vote(b: _Builder, s: Vote) -> Check:
    zh, en = (("赞成票须超过出席表决权的比例", "Votes for must exceed this share of votes present") if s.op == ">"
              else ("赞成票比例下限（含本数）", "Minimum share of votes present (inclusive)"))
    thr = b.param(s.id, "ratio", s.ratio, s.clause, zh, en, "%")
    return Check(actual=In("vote_for_ratio"), required=thr, passes=Cmp(s.op, In("vote_for_ratio"), thr),
                 op=s.op, unit="%", applies=[_agm_held("agm_date", "vote_for_ratio")])


def k_within_months(b: _Builder, s: WithinMonths) -> Check:
    """Paid within N months of the AGM: EDATE gives the day the period ends (Civil Code art. 200–202: the
    corresponding day of the last month, or its last day), which still passes."""
    months = b.param(s.id, "months", s.months, s.clause, "派发期限（股东大会后月数）", "Payout deadline (months after AGM)", "月")
    deadline = EDate(In("agm_date"), months)
    return Check(actual=In("payout_date"), required=deadline, passes=In("payout_date") <= C(f"{s.id}.required"),
                 op="<=", unit="日期", applies=[b.part(Round2(C("distribution", 0)) > Num(0), "na_no_distribution"),
                                                _agm_held("agm_date")])


def k_attestation(b: _Builder, s: Attestation) -> Check:
    fid = s.field or ATTEST + s.id
    return Check(actual=In(fid), passes=In(fid), op="true", unit="是/否")


def k_conditions_held(b: _Builder, s: ConditionsHeld) -> Check:
    """A cash dividend paid while a cash-dividend condition of the plan is not met (DOMAIN.md §5)."""
    return Check(actual=C("cond_met"), passes=C("cond_met"), op="conditions", unit="是/否", missing=C("cond_unknown"))
