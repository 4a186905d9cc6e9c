"""Titles of drafted rules, in Chinese and English, from what each checks and its parameters."""

from __future__ import annotations

from fractions import Fraction

from .model import Rule

_BASIS = {"distributable_profit": ("当年可分配利润", "the year's distributable profit"),
          "net_profit_attributable": ("归属于上市公司股东的净利润", "net profit attributable"),
          "retained": ("累计可分配利润", "cumulative distributable profit"),
          "net_profit_parent": ("母公司报表净利润", "the parent company's own net profit"),
          "net_profit_attributable_lower": ("归母净利润（中国准则与国际准则孰低）",
                                            "net profit attributable (lower of PRC GAAP and IFRS)"),
          "distributable_profit_lower": ("扣除法定储备后净利润（中国准则与国际准则孰低）",
                                         "profit after statutory reserves (lower of PRC GAAP and IFRS)")}
_AVERAGE = {"distributable_profit": ("可分配利润", "distributable profit"),
            "net_profit_attributable": ("归属于上市公司股东的净利润", "net profit attributable"),
            "net_profit_parent": ("母公司报表净利润", "the parent company's own net profit"),
            "net_profit_attributable_lower": ("归母净利润（中国准则与国际准则孰低）",
                                              "net profit attributable (lower of PRC GAAP and IFRS)"),
            "distributable_profit_lower": ("扣除法定储备后净利润（中国准则与国际准则孰低）",
                                           "profit after statutory reserves (lower of PRC GAAP and IFRS)")}
_OPS = {">=": "≥", ">": ">", "<=": "≤", "<": "<"}

_ATTEST = {
    "policy_change": ("利润分配政策或规划的调整经出席股东大会股东所持表决权2/3以上通过（未调整亦确认）",
                      "Any change to the policy or the plan passed with ≥ 2/3 of votes present (confirm also if unchanged)"),
    "minority_consulted": ("已通过多种渠道与中小股东沟通交流", "Minority shareholders consulted"),
    "board_records_kept": ("董事会审议利润分配预案形成书面记录并存档", "Board deliberations on the proposal recorded and archived"),
    "fund_occupation_withheld": ("违规占用资金的股东，其现金红利已扣减以偿还（无此情形亦确认）",
                                 "Dividends of shareholders occupying company funds withheld to repay them (confirm also if none)"),
    "stock_dividend_basis": ("股票股利符合规划所述前提（董事会确认）", "Stock dividend only on the plan's premises (board confirms)"),
    "no_cash_explanation": ("盈利未提现金分红预案：情况说明及独立董事意见", "Profitable without a cash proposal — explanation and opinions"),
    "no_cash_annual_report": ("盈利未提现金分红预案：年度报告说明原因及留存资金用途",
                              "Profitable without a cash proposal — reasons and use of funds in the annual report"),
    "no_cash_supervisory_statement": ("盈利未提现金分红预案：监事会发表专项说明和意见",
                                      "Profitable without a cash proposal — supervisory board statement"),
    "no_distribution_explanation": ("盈利未提利润分配预案：情况说明", "Profitable without a distribution proposal — explanation"),
    "no_distribution_annual_report": ("盈利未提利润分配预案：年度报告说明原因", "Profitable without a distribution proposal — annual report"),
    "no_distribution_supervisory_statement": ("盈利未提利润分配预案：监事会发表专项说明和意见",
                                              "Profitable without a distribution proposal — supervisory board statement"),
    "interim_period_end_retained_positive": ("中期现金分红时，半年度期末可供分配利润为正值（确认）",
                                             "Interim cash dividend — half-year-end distributable profit positive (confirm)"),
}
_FIXED = {
    "cond_distributable_positive": ("当年实现的可分配利润为正值", "Distributable profit of the year is positive"),
    "cond_retained_positive": ("累计可分配利润为正值", "Cumulative distributable profit is positive"),
    "cond_profitable": ("当年盈利（归属于上市公司股东的净利润为正）", "Profitable year (net profit attributable positive)"),
    "cond_parent_profitable": ("母公司报表净利润为正", "The parent company's own net profit is positive"),
    "cond_cash_flow": ("现金流充裕（董事会判断）", "Cash flow sufficient (board judgment)"),
    "cond_going_concern": ("现金分红不影响后续持续经营（董事会判断）", "Cash dividend does not affect going concern (board judgment)"),
    "cond_no_major_outlay": ("无重大投资计划或重大现金支出", "No major investment or cash outlay"),
    "cond_operating_cash_flow": ("经营活动现金流量净额为正", "Operating cash flow positive"),
    "cond_cash_and_equivalents": ("期末现金及现金等价物余额为正", "Cash and cash equivalents at year end positive"),
    "cond_cash_flow_or_cash": ("经营活动现金流量净额或期末现金及现金等价物余额为正（满足其一）",
                               "Operating cash flow or cash and equivalents positive (either)"),
    "min_either": ("当年下限或滚动下限，满足其一", "The annual or the rolling minimum, either suffices"),
    "interim_distributable_positive": ("中期现金分红时，半年度可分配利润为正值", "Interim cash dividend — half-year distributable profit positive"),
    "interim_audit_opinion": ("中期现金分红时，半年度财务报告审计意见", "Interim cash dividend — half-year audit opinion"),
    "distribution_cap": ("利润分配不超过累计可分配利润", "Distribution ≤ cumulative distributable profit"),
    "distribution_cap_interim": ("中期利润分配不超过中期期末累计可分配利润",
                                 "Interim distribution ≤ cumulative distributable profit at its period end"),
    "going_concern": ("利润分配不损害持续经营能力（董事会确认）", "The distribution does not harm going concern (board confirms)"),
    "cash_when_distributing": ("具备现金分红条件时，利润分配应采用现金分红", "When the conditions are met, a distribution includes cash"),
    "independent_directors_opinion": ("独立董事对利润分配预案发表意见", "Independent directors gave an opinion on the proposal"),
    "online_voting": ("股东大会提供网络投票", "Online voting offered at the AGM"),
    "cash_when_conditions": ("满足现金分红条件时进行现金分红", "A cash dividend when the conditions are met"),
}
#: measures a ``compare`` names, for its title
_MEASURE = {"operating_cash_flow": ("经营活动现金流量净额", "Operating cash flow"),
            "net_profit_attributable": ("归属于上市公司股东的净利润", "Net profit attributable"),
            "net_profit_parent": ("母公司报表净利润", "The parent company's own net profit"),
            "distributable_profit": ("当年可分配利润", "Distributable profit of the year"),
            "retained": ("累计可分配利润", "Cumulative distributable profit"),
            "registered_capital": ("注册资本", "registered capital"),
            "cash_and_equivalents": ("期末现金及现金等价物余额", "Cash and cash equivalents"),
            "cash": ("当年现金分红", "Cash of the year"), "distribution": ("当年利润分配总额", "Distribution of the year")}


def pct(v) -> str:
    f = Fraction(v) if isinstance(v, str) else Fraction(repr(float(v)))
    p = f * 100
    return f"{float(p):g}%" if p.denominator in (1, 2, 4, 5, 10) else f"{f.numerator}/{f.denominator}"


def _min_cash_title(r: Rule, p: dict) -> tuple[str, str]:
    """The minimum cash dividend of a year: its components, joined by the lower of or by and."""
    parts = [_component(c) for c in p["components"]]
    sep = ("或", " or ") if p.get("combine") == "lower_of" else ("，且不低于", ", and ≥ ")
    what = {"cash_dividend": ("当年现金红利（不含回购）", "Dividends of the year (buybacks not counted)"),
            "distribution": ("当年利润分配总额（现金+股票股利）", "Distribution of the year (cash + stock)")}.get(
                p.get("measure", "cash"), ("当年现金分红", "Cash of the year"))
    tail = ("（目标，不提高最低额）", " (a target: informs only)") if p.get("raises_minimum") is False else ("", "")
    lower = ("（孰低）", " (the lower)") if p.get("combine") == "lower_of" and len(parts) > 1 else ("", "")
    return (f"{what[0]}不低于" + sep[0].join(x[0] for x in parts) + lower[0] + tail[0],
            f"{what[1]} ≥ " + sep[1].join(x[1] for x in parts) + lower[1] + tail[1])


def _window_title(r: Rule, p: dict) -> tuple[str, str]:
    """A minimum over a window of years (rolling or the plan period): the share of the average or total basis."""
    zh, en = _AVERAGE.get(p["basis"], (p["basis"], p["basis"]))
    if r.kind == "min_cash_plan_period":
        win = ("规划期间" if "years" not in p else f"{p['years'][0]}—{p['years'][1]}年", "the plan period"
               if "years" not in p else f"{p['years'][0]}–{p['years'][1]}")
        win_en = f"over {win[1]}"
    else:
        win = (f"任何连续{p['window']}年" if p["mode"] == "any" else f"最近{p['window']}年", "")
        win_en = f"over {'any' if p['mode'] == 'any' else 'the last'} {p['window']} years"
    total = p.get("basis_mode") == "total"
    flag = ("（提示）", " (informs only)") if p.get("raises_minimum") is False else ("", "")
    alt = ("", "")
    if p.get("amount") is not None:  # 30%或5,000万元 / 且不少于
        either = p.get("combine") == "lower_of"
        alt = (f"{'或' if either else '且不少于'}{float(p['amount']):,.0f}元", f" {'or' if either else 'and'} "
               f"{float(p['amount']):,.0f} 元")
    return (f"{win[0]}累计现金分红不少于{'累计' if total else '年均'}{zh}的{pct(p['ratio'])}{alt[0]}{flag[0]}",
            f"Cash {win_en} ≥ {pct(p['ratio'])} of their {'total' if total else 'average'} {en}{alt[1]}{flag[1]}")


def _compare_title(r: Rule, p: dict) -> tuple[str, str]:
    """A comparison: the debt ratio, a cap on the payout, operating cash flow, a measure against another or an amount."""
    sym = _OPS[p["op"]]
    if p.get("of") == "total_assets":
        return (f"资产负债率{sym}{pct(p['ratio'])}", f"Debt ratio {sym} {pct(p['ratio'])}")
    if r.duty in ("payout_ceiling", "interim_cap"):
        zh, en = _BASIS.get(p["of"], (p["of"], p["of"]))
        if r.duty == "interim_cap":
            zh, en = "相应期间归属于上市公司股东的净利润", "the period's net profit attributable"
        what = ("中期现金分红", "Interim cash") if r.duty == "interim_cap" else ("当年现金分红", "Cash of the year")
        return (f"{what[0]}不超过{zh}的{pct(p['ratio'])}", f"{what[1]} ≤ {pct(p['ratio'])} of {en}")
    if p.get("of") == "registered_capital":
        return (f"经营活动现金流量净额不低于注册资本的{pct(p['ratio'])}",
                f"Operating cash flow ≥ {pct(p['ratio'])} of registered capital")
    zh, en = _MEASURE.get(p["measure"], (p["measure"], p["measure"]))
    if p.get("of") is not None:
        ozh, oen = _MEASURE.get(p["of"], (p["of"], p["of"]))
        return f"{zh}{sym}{ozh}的{pct(p['ratio'])}", f"{en} {sym} {pct(p['ratio'])} of {oen.lower()}"
    if p["amount"] == 0 and p["op"] in (">=", ">"):
        return (f"{zh}{'不为负' if p['op'] == '>=' else '为正'}",
                f"{en} {'not negative' if p['op'] == '>=' else 'positive'}")
    amount = f"{p['amount']:,.0f}" if float(p["amount"]).is_integer() else f"{p['amount']:,}"
    return f"{zh}{sym}{amount}元", f"{en} {sym} {amount} 元"


def titles(r: Rule) -> tuple[str, str]:
    if r.duties:
        zh = "；".join(_ATTEST.get(x, (x, x))[0] for x in r.duties)
        en = "; ".join(_ATTEST.get(x, (x, x))[1] for x in r.duties)
        return zh, en
    if r.duty in _FIXED:
        return _FIXED[r.duty]
    p = r.params
    if r.kind == "min_cash":
        return _min_cash_title(r, p)
    if r.kind in ("min_cash_rolling", "min_cash_plan_period"):
        return _window_title(r, p)
    if r.kind == "min_distributions":
        return (f"每年度进行{p['count']}次利润分配" + ("（原则上）" if r.severity == "warn" else ""),
                f"{p['count']} distributions a year" + (" (in principle)" if r.severity == "warn" else ""))
    if r.kind == "cash_share":
        if p.get("distribution") == "interim":
            return ("现金分红在中期利润分配中所占比例（同一比例要求，按中期分红单独计算）",
                    "Cash share of the interim distribution (the same minimum, on the interim alone)")
        final = ("；年度利润分配，不含中期", ", the interim excluded") if p.get("distribution") == "final" else ("", "")
        if "share" in p:
            return (f"现金分红在本次利润分配中所占比例不低于{pct(p['share'])}{final[0]}",
                    f"Cash ≥ {pct(p['share'])} of the {'final ' if final[1] else ''}distribution{final[1]}")
        return (f"现金分红在本次利润分配中所占比例（差异化政策{final[0]}）",
                f"Cash share of the {'final ' if final[1] else ''}distribution (differentiated policy{final[1]})")
    if r.kind == "cash_paid":
        return ("满足条件时每年进行现金分红" + ("（原则上）" if r.severity == "warn" else ""),
                "A cash dividend every year when the conditions are met" + (" (in principle)" if r.severity == "warn" else ""))
    if r.kind == "vote":
        sym = _OPS[p["op"]]
        what = ("股票股利或资本公积转增方案", "Stock dividend or capital-reserve conversion") if r.duty == "vote_stock" else \
            ("利润分配方案", "Distribution")
        word = "过半数" if p["op"] == ">" and p["ratio"] == "1/2" else f"{p['ratio']}以上"
        return (f"{what[0]}经出席股东大会股东所持表决权{word}通过", f"{what[1]} approved by {sym} {p['ratio']} of votes present")
    if r.kind == "within_months":
        return (f"股东大会召开后{p['months']}个月内完成派发", f"Payout completed within {p['months']} months of the AGM")
    if r.kind == "audit_opinion":
        std = p["accepted"] == ["standard_unqualified"]
        return ("年度财务报告为标准无保留意见" if std else "年度财务报告为无保留意见（含带强调事项段）",
                "Standard unqualified audit opinion" if std else "Unqualified audit opinion (emphasis of matter allowed)")
    if r.kind == "compare":
        return _compare_title(r, p)
    return r.duty, r.duty


def _component(c: dict) -> tuple[str, str]:
    if c["type"] == "pct":
        zh, en = _BASIS.get(c["basis"], (c["basis"], c["basis"]))
        if "by_year" in c:
            ys = {y: v for y, v in c["by_year"].items() if v} or c["by_year"]
            only = ("（仅所列年度）", " (those years only)") if len(ys) < len(c["by_year"]) else ("", "")
            return (f"{zh}的" + "／".join(f"{pct(v)}（{y}年）" for y, v in ys.items()) + only[0],
                    "/".join(f"{pct(v)} ({y})" for y, v in ys.items()) + f" of {en}" + only[1])
        return f"{zh}的{pct(c['ratio'])}", f"{pct(c['ratio'])} of {en}"
    if c["type"] == "fixed":
        return f"{c['amount']:,}元", f"{c['amount']:,} 元"
    return f"每股{c['amount']}元", f"{c['amount']} 元 a share"
