"""The exchange's table of 现金分红方案指标, in each board's own form.

Since the exchanges' rules of 2024-04-30 a profit distribution announcement carries a table of the
three fiscal years (本年度 / 上年度 / 上上年度) and says whether the plan could trigger the low-dividend
risk warning, citing the board's own article: SSE and SZSE main boards 《股票上市规则》第9.8.1条第一款第（八）项,
ChiNext 《创业板股票上市规则》第9.4条第一款第（八）项, STAR 《科创板股票上市规则》第12.9.1条第一款第（八）项
(as the companies' own announcements cite them). ChiNext and STAR add the R&D rows of their exemption.
The Beijing Stock Exchange's rules have no such warning: no table.
"""

from __future__ import annotations

from dataclasses import dataclass

from .figures import Figures


@dataclass(frozen=True)
class Board:
    exchange: str
    rules: str  # the listing rules, as announcements name them
    short: str  # as the table's last row names them
    article: str
    rd: bool  # the R&D rows of the ChiNext/STAR exemption


BOARDS = {
    "sse_main": Board("上海证券交易所", "《上海证券交易所股票上市规则》", "《股票上市规则》", "第9.8.1条第一款第（八）项", False),
    "szse_main": Board("深圳证券交易所", "《深圳证券交易所股票上市规则》", "《股票上市规则》", "第9.8.1条第一款第（八）项", False),
    "chinext": Board("深圳证券交易所", "《深圳证券交易所创业板股票上市规则》", "《创业板股票上市规则》", "第9.4条第一款第（八）项", True),
    "star": Board("上海证券交易所", "《上海证券交易所科创板股票上市规则》", "《科创板股票上市规则》", "第12.9.1条第一款第（八）项", True),
}

#: why the warning cannot apply, as the announcement says it (the rule's reasons, catalogue.REASONS)
OUT_OF_SCOPE = {
    "na_not_profitable": ("公司最近一个会计年度归属于上市公司股东的净利润不为正值，不适用该情形",
                          "net profit attributable of the latest year is not positive: out of scope"),
    "na_retained_parent_not_positive": ("公司最近一个会计年度末母公司报表未分配利润不为正值，不适用该情形",
                                        "the parent's year-end retained earnings are not positive: out of scope"),
    "na_retained_cons_not_positive": ("公司最近一个会计年度末合并报表未分配利润不为正值，不适用该情形",
                                      "consolidated year-end retained earnings are not positive: out of scope"),
    "na_no_full_year": ("公司上市未满一个完整会计年度，不适用该情形", "no full fiscal year since listing: out of scope"),
    "na_rd_exempt": ("公司最近三个会计年度累计研发投入占累计营业收入比例不低于15%或累计研发投入金额不低于3亿元，不适用该情形",
                     "the R&D exemption holds (≥15% of revenue or ≥300,000,000 元): out of scope"),
    "na_before_first_year": ("本会计年度早于该规定首次适用的年度（2024年度）", "the fiscal year is before the rule's first (2024)"),
    "na_board_not_covered": ("公司所在板块不适用该情形", "the board is not covered"),
}


@dataclass(frozen=True)
class Row:
    key: str  # the JSON key (tests/data/announcements' names)
    zh: str
    en: str
    kind: str  # amount | percent | yesno | text
    values: tuple  # three (本年度, 上年度, 上上年度) or one


def board_of(f: Figures) -> Board | None:
    return BOARDS.get(f.board or "")


def triggers(f: Figures) -> tuple[str | None, str, str]:
    """(是 | 否 | None undetermined, why zh, why en): never 否 where the rule could not be decided or the amounts'
    unit is in doubt (a wrongly reassuring verdict is the worst defect)."""
    if f.report.units_suspect:
        return None, "金额单位存疑（疑为万元），无法判断", "the amounts' unit is in doubt (万元?): undetermined"
    status, reason = f.st.get("status"), f.st.get("reason")
    if status == "fail":
        return "是", "", ""
    if status == "pass":
        return "否", "", ""
    if status == "not_applicable" and reason in OUT_OF_SCOPE:
        zh, en = OUT_OF_SCOPE[reason]
        return "否", zh, en
    r = f.st_rule
    why = (r.explanation_zh, r.explanation_en) if r is not None else ("无该规则", "no such rule")
    return None, f"无法判断：{why[0]}", f"undetermined: {why[1]}"


def _floor_wan(f: Figures) -> str:
    floor = f.st.get("floor")
    return f"{floor / 10_000:.0f}万元" if isinstance(floor, (int, float)) else "金额标准"


def rows(f: Figures) -> list[Row]:
    """The table's rows in the board's form (empty for a board without the warning)."""
    b = board_of(f)
    if b is None or not f.st:
        return []
    s = f.st
    out = [Row("cash_dividends", "现金分红总额（元）", "Cash dividends", "amount", tuple(f.cash_dividends)),
           Row("cancelled_buybacks", "回购注销总额（元）", "Buybacks cancelled", "amount", tuple(f.cancelled_buybacks)),
           Row("net_profit_attributable", "归属于上市公司股东的净利润（元）", "Net profit attributable", "amount",
               tuple(f.net_profit)),
           Row("retained_earnings_parent_year_end", "本年度末母公司报表未分配利润（元）",
               "Parent's retained earnings at the year's end", "amount", (f.retained_parent,)),
           Row("cumulative_cash", "最近三个会计年度累计现金分红总额（元）", "Cumulative cash dividends (three years)", "amount",
               (s["dividends"],)),
           Row("cumulative_cancelled_buybacks", "最近三个会计年度累计回购注销总额（元）",
               "Cumulative buybacks cancelled (three years)", "amount", (s["cancelled"],)),
           Row("average_net_profit", "最近三个会计年度平均净利润（元）", "Average net profit (three years)", "amount",
               (s["average_profit"],)),
           Row("cumulative_sum", "最近三个会计年度累计现金分红及回购注销总额（元）",
               "Cumulative cash dividends and buybacks cancelled", "amount", (s["cash"],)),
           Row("below_floor", f"最近三个会计年度累计现金分红及回购注销总额是否低于{_floor_wan(f)}",
               "Below the board's floor", "yesno", (s["below_floor"],)),
           Row("ratio_percent", "现金分红比例（%）", "Cash as a share of average net profit (%)", "percent",
               (f.ratio_percent(s["cash_ratio"]),)),
           Row("below_30_percent", "现金分红比例是否低于30%", "Ratio below 30%", "yesno", (s["below_ratio"],))]
    if b.rd:
        out += _rd_rows(f)
    yes, _, _ = triggers(f)
    out.append(Row("triggers", f"是否触及{b.short}{b.article}规定的可能被实施其他风险警示的情形",
                   "Could the plan trigger the other-risk warning", "yesno", (yes,)))
    return out


def _rd_rows(f: Figures) -> list[Row]:
    s = f.st
    return [Row("rd_expense", "研发投入（元）", "R&D", "amount", tuple(f.rd_expense)),
            Row("revenue", "营业收入（元）", "Revenue", "amount", tuple(f.revenue)),
            Row("rd_cumulative", "最近三个会计年度累计研发投入金额（元）", "Cumulative R&D (three years)", "amount", (s["rd"],)),
            Row("cumulative_revenue", "最近三个会计年度累计营业收入（元）", "Cumulative revenue (three years)", "amount",
                (s["revenue"],)),
            Row("rd_ratio_percent", "最近三个会计年度累计研发投入占累计营业收入比例（%）",
                "Cumulative R&D as a share of cumulative revenue (%)", "percent",
                (f.ratio_percent(s["rd_ratio_actual"]),))]


def article_phrase(f: Figures) -> str:
    """《…股票上市规则》第X条第一款第（八）项 of the case's board ("" for a board without the warning)."""
    b = board_of(f)
    return f"{b.rules}{b.article}" if b else ""
