"""The sentences the announcement needs, Chinese as a board secretary's office writes them.

Each sentence is worded from :class:`~.figures.Figures` (the model's values and the report's verdicts):
the proposal, what the company holds if the base changes, the least amount per 10 shares meeting what
is still required, the risk warning (never "不触及" unless the rule decided it), the low-payout
explanation duties as prompts, and the plan's clauses the proposal satisfies (or not).
"""

from __future__ import annotations

from ..fields import BASE_CHANGE

#: what the company adjusts when it keeps the other
ADJUSTED = {"ratio": "相应调整分配总额", "total": "相应调整每股分配比例"}
from .figures import Figures
from .table import article_phrase, triggers


def money(v) -> str:
    """An amount as announcements print it: thousands separated, two decimals (negative with a minus)."""
    return "—" if v is None else f"{v:,.2f}"


def shares(v) -> str:
    return "—" if v is None else f"{int(v):,}"


def per10(v) -> str:
    """每10股 amount: two decimals, or as many as the board gave (1.865)."""
    if v is None:
        return "—"
    text = f"{v:.6f}".rstrip("0")
    whole, _, dec = text.partition(".")
    return f"{whole}.{dec.ljust(2, '0')}"


def proposal(f: Figures) -> list[str]:
    p = f.proposal
    if p.get("cash_per_10_shares") is None or p.get("base_share_count") is None:
        return ["（未填写本次方案：每10股派发现金红利与股本基数日总股本 — 请在输入表填写 cash_per_10_shares、"
                "base_share_count，以及回购专用证券账户股份数 buyback_account_shares）"]
    held = p.get("buyback_account_shares") or 0
    base = (f"截至股本基数日，公司总股本{shares(p['base_share_count'])}股，扣减回购专用证券账户中的股份"
            f"{shares(held)}股后为{shares(p['base'])}股" if held else
            f"截至股本基数日，公司总股本{shares(p['base_share_count'])}股")
    out = [f"公司拟向全体股东每10股派发现金红利{per10(p['cash_per_10_shares'])}元（含税）。{base}，以此计算合计拟派发"
           f"现金红利{money(p['total'])}元（含税）。"]
    interim = p.get("interim_cash_dividend") or 0
    year = (f"本年度公司现金分红总额{money(p['year_total'])}元（包括中期已分配的现金红利{money(interim)}元）" if interim
            else f"本年度公司现金分红总额{money(p['year_total'])}元")
    pay = f.ratio_percent(p.get("payout"))
    out.append(year + (f"，占本年度归属于上市公司股东净利润的比例为{pay:.2f}%。" if pay is not None else "。"))
    bought = p.get("buyback_amount") or 0
    if bought:
        both = f.ratio_percent(p.get("payout_with_buybacks"))
        cancelled = p.get("buyback_cancelled") or 0
        out.append(f"本年度以现金为对价，采用集中竞价、要约方式已实施的股份回购金额{money(bought)}元"
                   + (f"（其中回购并注销{money(cancelled)}元）" if cancelled else "")
                   + f"，现金分红和回购金额合计{money(p['cash_with_buybacks'])}元"
                   + (f"，占本年度归属于上市公司股东净利润的比例为{both:.2f}%。" if both is not None else "。"))
    keeps = p.get("base_change_keeps")
    if keeps in BASE_CHANGE:
        out.append(f"如在本公告披露之日起至实施权益分派股权登记日期间公司总股本发生变动的，公司拟{BASE_CHANGE[keeps]}，"
                   f"{ADJUSTED[keeps]}。")
    else:
        out.append("（请选择股本变动时维持每股分配比例不变或维持分配总额不变：base_change_keeps）")
    return out


def mismatch(f: Figures) -> str | None:
    """The proposal's total (with the interim) against the year's cash dividend entered; None when they agree."""
    p = f.proposal
    if p.get("cash_per_10_shares") is None or p.get("base_share_count") is None or p.get("matches"):
        return None
    return (f"本次方案合计{money(p['total'])}元加中期{money(p.get('interim_cash_dividend') or 0)}元为{money(p['year_total'])}元，"
            f"与现金分红总额（含中期）cash_dividend {money(p.get('cash_dividend') or 0)}元不一致；规则按后者计算 "
            f"the proposal's total with the interim differs from cash_dividend, which the rules read")


def minimum(f: Figures) -> str | None:
    """The least amount per 10 shares, to the fen, that meets what is still required of this proposal."""
    p, rep = f.proposal, f.report
    if not p.get("base"):
        return None
    if rep.min_cash_dividend is None and not f.screen or rep.cash_needed_to_avoid_st is None and f.st:
        return "（最低每10股派发金额无法测算：所需最低现金分红尚不能确定，见评估结果中缺少的输入）"
    req = p.get("required") or 0
    if req <= 0:
        return "本次方案无须派发现金红利即满足规划与风险警示的最低要求（中期分红与计入的回购已足）。"
    return (f"按{shares(p['base'])}股计算，满足本次尚需的最低现金分红{money(req)}元（规划最低要求与避免风险警示两者孰高，"
            f"已扣除中期分红与计入的回购），每10股至少派发现金红利{per10(p['min_per_10'])}元（含税，精确到分）。")


def risk(f: Figures) -> str:
    phrase = article_phrase(f)
    if not phrase:
        return "公司所在板块不适用可能被实施其他风险警示的现金分红情形。"
    yes, why, _ = triggers(f)
    if yes == "否" and not why:
        return f"本次利润分配方案不触及{phrase}规定的可能被实施其他风险警示的情形。"
    if yes == "否":
        return f"{why}：本次利润分配方案不触及{phrase}规定的可能被实施其他风险警示的情形。"
    if yes == "是":
        need = f.report.cash_needed_to_avoid_st
        return (f"按本次方案，公司触及{phrase}规定的可能被实施其他风险警示的情形"
                + (f"；本年度尚需现金分红{money(need)}元方可避免。" if need else "。"))
    return f"{why}（请补齐输入后再下结论；在此之前不得表述为“不触及”）。"


def duties(f: Figures) -> list[str]:
    """The low-payout and no-cash explanations the announcement owes, as prompts (the rules that apply)."""
    out = []
    for r in f.report.rules:
        if r.id == "reg_low_payout_explained" and r.status != "not_applicable":
            out.append("【提示】本年度现金分红（含集中竞价、要约回购）低于归属于上市公司股东净利润的30%：公告应说明"
                       "原因（结合行业特点、发展阶段、经营模式、盈利水平、偿债能力、资金需求等）、留存未分配利润的用途及"
                       "预计收益，以及为中小股东参与决策提供的便利（网络投票并分段披露表决结果）。")
        if r.id == "reg_no_cash_explained" and r.status != "not_applicable":
            out.append("【提示】本年度盈利但未提出现金分红：公告应说明未分红的原因及留存资金的用途。")
    return out


def plan(f: Figures) -> list[str]:
    """The plan's minimum rules the proposal meets (or not), each with its clause."""
    if f.screen:
        return ["（未指定股东分红回报规划：仅按监管基线测算 screened on the regulatory baseline alone）"]
    rep = f.report
    out = []
    if not rep.plan_reviewed:
        out.append(f"【注意】规划为未复核的草稿（{len(rep.open_reviews)} 项待复核）：以下不构成符合规划的结论。")
    for r in rep.rules:
        if r.role != "requirement" or r.bound_kind != "minimum":
            continue
        where = f"《{f.plan_title}》{r.clause}" if r.clause else f"《{f.plan_title}》"
        if r.status == "pass" and rep.plan_reviewed:
            out.append(f"本次利润分配方案符合{where}关于“{r.title_zh}”的规定（最低{money(r.required)}元，"
                       f"本次{money(r.actual)}元）。")
        elif r.status == "fail":
            out.append(f"本次利润分配方案未达到{where}关于“{r.title_zh}”的规定（最低{money(r.required)}元，"
                       f"本次{money(r.actual)}元，尚差{money(r.shortfall)}元）。")
        elif r.status == "missing_input":
            out.append(f"{where}“{r.title_zh}”：缺少输入，无法判断。")
    return out
