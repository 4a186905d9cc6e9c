"""The dividend path of a plan period (issue 27): what each remaining year must pay, given the years before it.

A layer above the evaluator: nothing here computes a rule. For each year from the evaluation year to
the last year of the plan (and any later forecast year) the case is evaluated in that year
(:func:`xlmodel.evaluator.evaluate`), the earlier years' cash dividends set to the path's amounts, and the
least cash dividend with which no *floor* obligation of that year fails (nor, for a minimum worded
原则上 or binding on other boards only, warns) is found by evaluating:

* the floor obligations are the rules that a larger cash dividend can satisfy: the plan's and the
  baseline's minimum rules (those that raise the report's ``min_cash_dividend``) and the exchange's
  low-dividend risk warning (``st_low_dividend``, the one that sets ``cash_needed_to_avoid_st``);
* starting from 0, the amount rises by the largest amount still missing (each failing rule's own
  ``shortfall``, in 元; for a rule without one, the report's ``min_cash_dividend`` above the amount) until
  none fails, so that a rule that applies only once something is paid (a cash share, 现金分红时……) is
  taken into account at the amount that makes it apply;
* it is then checked one fen below (docs/domain.md §4: amounts are to the fen): if that passes too,
  the least amount is found by halving between the last failing and the first passing amount. The
  floor obligations are monotone in the cash dividend (more cash never makes a minimum fail).

The year's ``max_distribution`` is the report's (with the baseline, ``reg_distribution_cap``: what the law
lets the company distribute); a year whose minimum makes the law's cap fail is *infeasible*. Other
obligations (votes, deadlines, attestations, disclosure of a low payout) do not depend on the amount
alone; those failing at the path's amount are listed with the year, never hidden.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .rules import catalogue as cat
from .case import Case
from .errors import XlmodelError
from .evaluator import evaluate, model_for, cached_plan_by_id
from .money import round_fen
from .outputs import OUTPUT
from .plans.schema import Policy
from .report import Report

FEN = 0.01
#: evaluations one year's search may take (a rising step, then halving over at most 2**50 fen)
MAX_EVALUATIONS = 120
STATUS_ZH = {"ok": "可行", "infeasible": "不可行（超过法定可分配上限）", "fail": "有规则不通过",
             "missing_input": "缺少输入", "below_minimum": "低于最低额"}


@dataclass
class PlanYear:
    """One year of the path."""

    fiscal_year: int
    forecast: bool  # the year's figures are forecasts (``forecast: true`` in the case)
    min_cash_dividend: float | None  # the least cash dividend (元) with which no floor obligation fails; None: undetermined
    binding_rule: str | None  # the rule that fails one fen below the minimum (None: the minimum is 0)
    max_distribution: float | None  # the report's maximum distribution at the path's amount
    cash_dividend: float | None  # the path's amount: the minimum, or the amount fixed (--pay, or the case's proposal)
    fixed: bool = False  # the amount was fixed (--pay, or the year's cash dividend in the case), not the minimum
    proposed: bool = False  # fixed by the case's (the book's) own cash dividend of the year: its proposal (51.2)
    status: str = "ok"  # ok | infeasible | fail | below_minimum | missing_input (:data:`STATUS_ZH`)
    binding_clause: str = ""
    binding_title_zh: str = ""
    binding_title_en: str = ""
    in_plan_period: bool = True
    st_risk_warning: bool | None = None  # at the path's amount
    failing: list[str] = field(default_factory=list)  # rules failing at the path's amount
    warnings: list[str] = field(default_factory=list)  # rules warning at the path's amount
    missing_inputs: list[str] = field(default_factory=list)  # what a floor rule needs to size the minimum

    @property
    def infeasible(self) -> bool:
        return self.status == "infeasible"

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["infeasible"] = self.infeasible
        d["status_zh"] = STATUS_ZH[self.status]
        return d


def round2(x: float) -> float:
    """ROUND(x, 2), as every amount is rounded (docs/domain.md §4)."""
    return float(round_fen(x))


class PayError(XlmodelError):
    """A bad --pay value (the message names the argument)."""


def parse_pay(items: list[str] | None) -> dict[int, float]:
    """``--pay YEAR=AMOUNT`` values -> {year: amount}, read as the case's own fields are read."""
    from .values import read_field, read_year
    from .fields import FIELDS

    out: dict[int, float] = {}
    for raw in items or []:
        where = f"--pay {raw!r}"
        year_text, sep, amount_text = str(raw).partition("=")
        if not sep:
            raise PayError(f"{where}：应为 年度=金额，如 --pay 2024=30000000 expected YEAR=AMOUNT, e.g. --pay 2024=30000000")
        y, err = read_year(year_text.strip())
        if err or y is None:
            raise PayError(f"{where}：年度无法识别 the year: {err or 'expected a fiscal year such as 2024'}")
        amount, err = read_field(FIELDS["cash_dividend"], amount_text.strip())
        if err or amount is None:
            raise PayError(f"{where}：金额无法识别 the amount: {err or 'expected an amount in 元'}")
        if y in out:
            raise PayError(f"{where}：{y} 年给出多次 {y} is given more than once")
        out[y] = round2(amount)
    return out


def with_later_years_forecast(case: Case) -> Case:
    """The case with every year after its evaluation year that has figures marked as a forecast (a workbook's
    later year columns: the year the board reports on is the evaluation year, the later ones are budgets)."""
    later = {y for y, v in case.years.items() if y > case.evaluation_year and v}
    return dataclasses.replace(case, forecast_years=frozenset(case.forecast_years | later))


def plan_years(case: Case, policy: Policy) -> list[int]:
    """The years planned: the evaluation year to the plan's last year, and any later forecast year."""
    last = max([policy.plan_years[1], case.evaluation_year, *case.forecast_years])
    return list(range(case.evaluation_year, last + 1))


def floor_rules(model: cat.Model) -> tuple[str, ...]:
    """The obligations a larger cash dividend satisfies: the minimum rules and the exchange's risk warning."""
    return tuple(r.id for r in model.rules
                 if r.role != "condition" and r.group is None and (r.is_minimum or r.spec.kind == "st_low_dividend"))


def _cap_rule(model: cat.Model) -> str | None:
    return next((r.id for r in model.rules if r.spec.kind == "legal_distribution_cap"), None)


class _Year:
    """One year's evaluations at amounts of its cash dividend (the earlier years' amounts fixed)."""

    def __init__(self, case: Case, policy: Policy, year: int, paid: dict[int, float], params: dict | None = None):
        years = {y: dict(v) for y, v in case.years.items()}
        for y, amount in paid.items():
            years.setdefault(y, {})["cash_dividend"] = amount
        years.setdefault(year, {})
        self.years, self.year, self.policy = years, year, policy
        self.base = case if year == case.evaluation_year else dataclasses.replace(case, attestations={})
        self.floor = floor_rules(model_for(policy))
        self.count, self.params = 0, params

    def at(self, amount: float) -> Report:
        self.count += 1
        if self.count > MAX_EVALUATIONS:
            raise XlmodelError(f"{self.year} 年最低现金分红未能在 {MAX_EVALUATIONS} 次评估内求得 the minimum of {self.year} "
                               f"was not found within {MAX_EVALUATIONS} evaluations")
        years = dict(self.years)
        years[self.year] = {**years[self.year], "cash_dividend": amount}
        at = dataclasses.replace(self.base, evaluation_year=self.year, years=years)
        return evaluate(at, self.policy, params=self.params)

    def failing(self, rep: Report) -> list:
        """The floor rules not met: failing, or a minimum worded as a recommendation warning (the report's
        ``min_cash_dividend`` counts it all the same)."""
        return [r for r in rep.rules if r.id in self.floor and r.status in ("fail", "warn")]

    def missing(self, rep: Report) -> list[str]:
        return [m for r in rep.rules if r.id in self.floor and r.status == "missing_input" for m in r.missing_inputs]


def _step(rep: Report, failing: list, amount: float) -> float:
    """How far to rise from ``amount``: the largest amount a failing floor rule still misses."""
    steps = [r.shortfall for r in failing if r.unit == "元" and r.shortfall]
    if rep.min_cash_dividend is not None and rep.min_cash_dividend > amount:
        steps.append(rep.min_cash_dividend - amount)
    return max([FEN, *steps])


def least_cash(yr: _Year) -> tuple[float | None, Report, Report | None, list[str]]:
    """(the least amount, the report at it, the report one fen below or None at 0, missing inputs)."""
    amount, rep = 0.0, yr.at(0.0)
    last_failing: tuple[float, Report] | None = None
    while True:
        if missing := yr.missing(rep):
            return None, rep, None, list(dict.fromkeys(missing))
        failing = yr.failing(rep)
        if not failing:
            break
        last_failing = (amount, rep)
        amount = round2(amount + _step(rep, failing, amount))
        rep = yr.at(amount)
    if last_failing is None:
        return amount, rep, None, []
    below = yr.at(round2(amount - FEN))
    if not yr.failing(below):  # the step overshot: halve, in fen, between the last failing and this amount
        lo, lo_rep = last_failing
        lo_fen, hi_fen = round(lo * 100), round(amount * 100)
        while hi_fen - lo_fen > 1:
            mid = (lo_fen + hi_fen) // 2
            mid_rep = yr.at(mid / 100)
            if yr.failing(mid_rep) or yr.missing(mid_rep):
                lo_fen, lo_rep = mid, mid_rep
            else:
                hi_fen, rep = mid, mid_rep
        amount, below = hi_fen / 100, lo_rep
    return amount, rep, below, []


def _binding(yr: _Year, below: Report | None) -> tuple[str | None, str, str, str]:
    """The floor rule failing one fen below the minimum (the largest shortfall of them, if several)."""
    if below is None:
        return None, "", "", ""
    r = max(yr.failing(below), key=lambda r: r.shortfall or 0)
    return r.id, r.clause, r.title_zh, r.title_en


def plan_year(case: Case, policy: Policy, year: int, paid: dict[int, float], fixed: float | None,
              params: dict | None = None) -> PlanYear:
    """One year of the path, the earlier years' amounts ``paid``; ``fixed``: the amount --pay gives it."""
    yr = _Year(case, policy, year, paid, params)
    least, rep, below, missing = least_cash(yr)
    rid, clause, zh, en = _binding(yr, below) if least else (None, "", "", "")
    amount = fixed if fixed is not None else least
    at = rep if amount == least else yr.at(amount if amount is not None else 0.0)
    cap = _cap_rule(model_for(policy))
    out = PlanYear(fiscal_year=year, forecast=year in case.forecast_years, min_cash_dividend=least, binding_rule=rid,
                   max_distribution=at.max_distribution, cash_dividend=amount, fixed=fixed is not None,
                   binding_clause=clause, binding_title_zh=zh, binding_title_en=en, in_plan_period=at.in_plan_period,
                   st_risk_warning=at.st_risk_warning, missing_inputs=missing,
                   failing=[r.id for r in at.rules if r.status == "fail"],
                   warnings=[r.id for r in at.rules if r.status == "warn"])
    over = cap in out.failing if cap is not None else (
        amount is not None and at.max_distribution is not None and amount > at.max_distribution)
    if least is None:
        out.status = "missing_input"
    elif fixed is not None and fixed < least:
        out.status = "below_minimum"
    elif over and fixed is None and least > 0:
        out.status = "infeasible"  # the plan or the exchange asks for more than the law lets it distribute
    elif out.failing or over:
        out.status = "fail"
    return out


def proposals(case: Case, years: list[int]) -> dict[int, float]:
    """The cash dividends the case itself gives for planned years: each year's proposal (a number; the
    evaluation year's is the board's proposal), the year's amount unless ``--pay`` (测算's proposed cell) gives
    another. As the planning sheet reads 输入 (``ISNUMBER``)."""
    out = {}
    for y in years:
        v = case.value("cash_dividend", y)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out[y] = float(v)
    return out


def plan(case: Case, policy: Policy | None = None, pay: dict[int, float] | None = None,
         params: dict | None = None) -> list[PlanYear]:
    """The dividend path of ``case`` over the rest of its plan period (module doc); ``pay`` fixes years' amounts;
    ``params`` the plan's parameters a workbook changed (:func:`xlmodel.evaluator.evaluate`).

    Each year's minimum is found with the earlier years paid as the path pays them: their minimum, or
    the amount fixed, by ``pay`` or else by the case's own cash dividend of the year, its proposal
    (:func:`proposals`; issue 51.2: a later year's minimum follows from it). An infeasible year carries its
    minimum forward (the path the plan asks for; ``pay`` shows what follows from paying what the law
    allows). A year whose minimum is undetermined (an input is missing) carries its case amount, or 0."""
    policy = policy or cached_plan_by_id(case.policy)
    pay = dict(pay or {})
    years = plan_years(case, policy)
    outside = sorted(set(pay) - set(years))
    if outside:
        raise PayError(f"--pay {outside[0]}：不在测算年度 {years[0]}–{years[-1]} 之内 is not a planned year "
                       f"({years[0]}–{years[-1]}: the evaluation year to the plan's last year and later forecast years)")
    path: list[PlanYear] = []
    paid: dict[int, float] = {}
    proposed = proposals(case, years)
    for y in years:
        py = plan_year(case, policy, y, paid, pay.get(y, proposed.get(y)), params)
        py.proposed = y not in pay and y in proposed
        path.append(py)
        carried = py.cash_dividend if py.cash_dividend is not None else case.value("cash_dividend", y)
        paid[y] = carried if carried is not None else 0.0
    return path


# ---- reports -----------------------------------------------------------------------------------------

def _amount(v) -> str:
    return "—" if v is None else f"{v:,.2f}"


def _year_label(y: PlanYear) -> str:
    return f"{y.fiscal_year}" + (" 预测" if y.forecast else "") + ("" if y.in_plan_period else " *")


def _notes(y: PlanYear) -> list[tuple[str, str]]:
    """(zh, en) lines saying what a year's status rests on."""
    out = []
    if y.status == "missing_input":
        names = "；".join(y.missing_inputs)
        out.append((f"无法测算，缺少输入：{names}", f"undetermined, missing input: {names}"))
    if y.status == "infeasible":
        out.append((f"不可行：最低现金分红 {_amount(y.min_cash_dividend)} 元超过法定可分配上限 {_amount(y.max_distribution)} 元",
                    f"infeasible: the minimum {_amount(y.min_cash_dividend)} exceeds what the law lets the company "
                    f"distribute, {_amount(y.max_distribution)}"))
    if y.status == "below_minimum":
        out.append((f"指定金额 {_amount(y.cash_dividend)} 元低于最低现金分红 {_amount(y.min_cash_dividend)} 元",
                    f"the amount fixed, {_amount(y.cash_dividend)}, is below the minimum {_amount(y.min_cash_dividend)}"))
    if y.failing:
        ids = ", ".join(y.failing)
        out.append((f"按本路径金额不通过的规则：{ids}", f"rules failing at the path's amount: {ids}"))
    if y.warnings:
        ids = ", ".join(y.warnings)
        out.append((f"警告：{ids}", f"warnings: {ids}"))
    return out


def _fixed_mark(y: PlanYear, en: bool = True) -> str:
    """What the path's amount is when not the minimum: the case's proposal (拟定) or a --pay (指定)."""
    if not y.fixed:
        return ""
    return ("（拟定 proposed）" if en else "（拟定）") if y.proposed else ("（指定 fixed）" if en else "（指定）")


def _heading(case: Case, policy: Policy) -> tuple[str, str]:
    name = " ".join(str(case.company.get(k, "")) for k in ("company_name", "stock_code")).strip()
    lo, hi = policy.plan_years
    return name, f"{policy.id}（规划期 {lo}–{hi} plan period）"


def exit_code(path: list[PlanYear]) -> int:
    """0 when every year is feasible with no rule failing at the path's amounts, else 1."""
    return 0 if all(y.status == "ok" for y in path) else 1


def render_plan_text(path: list[PlanYear], case: Case, policy: Policy) -> str:
    """The path as text for a terminal, Chinese first: one line per year, then what each year rests on."""
    from .report.terminal import _pad, _width
    from .inputs.sanitize import plain_text as t

    name, pol = _heading(case, policy)
    heads = ("年度 FY", f"{OUTPUT['min_cash_dividend'].heading} (元)", "决定规则 Binding rule",
             f"{OUTPUT['max_distribution'].heading} (元)", "本路径金额 Path (元)", "结论 Result")
    rows = [(_year_label(y), _amount(y.min_cash_dividend),
             f"{y.binding_rule} [{y.binding_clause}]" if y.binding_rule else "—", _amount(y.max_distribution),
             _amount(y.cash_dividend) + _fixed_mark(y), f"{STATUS_ZH[y.status]} {y.status}")
            for y in path]
    rows = [tuple(t(c) for c in r) for r in rows]
    widths = [max(_width(r[i]) for r in rows + [heads]) for i in range(len(heads))]
    lines = [f"分红测算 Dividend plan — {t(name) + ' — ' if name else ''}{t(pol)}",
             "每年最低现金分红：该年规划下限与监管底线（含交易所低分红风险警示）均不失败的最少金额，以前各年按本路径金额计 "
             "the least cash dividend with which no minimum of the year, nor the exchange's risk warning, fails, "
             "the earlier years paid as the path pays them",
             "本路径金额：案例（工作簿）所填该年现金分红即其拟定额，--pay 优先；未填则按最低额 the path's amount: the year's "
             "cash dividend in the case (book), its proposal, unless --pay gives another; where none, the minimum", ""]
    lines += ["  ".join(_pad(c, w) for c, w in zip(r, widths)).rstrip() for r in [heads] + rows]
    notes = [(y, zh, en) for y in path for zh, en in _notes(y)]
    if notes:
        lines.append("")
        lines += [f"{y.fiscal_year}: {t(zh)}\n      {t(en)}" for y, zh, en in notes]
    if any(y.forecast for y in path):
        lines.append("\n预测：该年数字为预测数，非已披露数 forecast: the year's figures are forecasts, not reported ones")
    if any(not y.in_plan_period for y in path):
        lines.append("*：规划期之外，仍按规划原文测算 outside the plan period: the plan's rules applied as written")
    return "\n".join(lines)


def render_plan_markdown(path: list[PlanYear], case: Case, policy: Policy) -> str:
    """The path as Markdown for the board papers (every text inert: no markup, no forged row)."""
    from .inputs.sanitize import md_text

    name, pol = _heading(case, policy)
    lines = [f"### {md_text(name) + ' — ' if name else ''}股东分红回报规划期分红测算 Dividend plan", "",
             f"- 规划 Policy: {md_text(pol)}",
             f"- 评估年度 Evaluation year: {case.evaluation_year}",
             f"- {OUTPUT['min_cash_dividend'].zh}：该年规划下限与监管底线（含交易所低分红风险警示）均不失败的最少金额，以前各年按本路径金额计",
             "",
             f"| 年度 FY | {OUTPUT['min_cash_dividend'].label_zh} | 决定规则 | {OUTPUT['max_distribution'].label_zh} "
             "| 本路径金额（元） | 结论 | 说明 |",
             "|---|---:|---|---:|---:|---|---|"]
    for y in path:
        rule = f"{y.binding_title_zh}（{y.binding_clause}，{y.binding_rule}）" if y.binding_rule else "—"
        cells = [_year_label(y), _amount(y.min_cash_dividend), rule, _amount(y.max_distribution),
                 _amount(y.cash_dividend) + _fixed_mark(y, en=False), STATUS_ZH[y.status],
                 "；".join(zh for zh, _ in _notes(y))]
        lines.append("| " + " | ".join(md_text(c) for c in cells) + " |")
    if any(y.forecast for y in path):
        lines += ["", "预测：该年数字为预测数，非已披露数（forecast figures, not reported ones）。"]
    return "\n".join(lines)
