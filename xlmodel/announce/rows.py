"""The exchange's table of 现金分红方案指标 as data: its lines, their labels and the model's calculations each
line shows (one table for ``xlmodel announce``, the workbook's 公告 sheet and the worksheet function).

This module imports nothing of xlmodel: the workbook's sheet and the announcement's renderers both read it.
A line's ``calcs`` are calculations of the risk-warning rule (``<rule id>.<calc>``, catalogue.k_st_low_dividend):
three (本年度 y0, 上年度 y1, 上上年度 y2) or one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    key: str  # the JSON key (tests/data/announcements' names)
    zh: str
    en: str
    kind: str  # amount | percent | yesno
    calcs: tuple[str, ...]  # the rule's calculations: three (y0, y1, y2) or one
    growth_only: bool = False  # the R&D lines of ChiNext and STAR


def _years(key: str) -> tuple[str, ...]:
    return tuple(f"y{k}.{key}" for k in range(3))


#: the lines in the order the exchanges print them; the floor's line is worded with the board's floor
LINES: tuple[Line, ...] = (
    Line("cash_dividends", "现金分红总额（元）", "Cash dividends", "amount", _years("dividends")),
    Line("cancelled_buybacks", "回购注销总额（元）", "Buybacks cancelled", "amount", _years("cancelled")),
    Line("net_profit_attributable", "归属于上市公司股东的净利润（元）", "Net profit attributable", "amount",
         _years("profit")),
    Line("rd_expense", "研发投入（元）", "R&D", "amount", _years("rd"), True),
    Line("revenue", "营业收入（元）", "Revenue", "amount", _years("revenue"), True),
    Line("retained_earnings_parent_year_end", "本年度末母公司报表未分配利润（元）",
         "Parent's retained earnings at the year's end", "amount", ("retained_parent",)),
    Line("cumulative_cash", "最近三个会计年度累计现金分红总额（元）", "Cumulative cash dividends (three years)", "amount",
         ("dividends",)),
    Line("cumulative_cancelled_buybacks", "最近三个会计年度累计回购注销总额（元）",
         "Cumulative buybacks cancelled (three years)", "amount", ("cancelled",)),
    Line("average_net_profit", "最近三个会计年度平均净利润（元）", "Average net profit (three years)", "amount",
         ("average_profit",)),
    Line("cumulative_sum", "最近三个会计年度累计现金分红及回购注销总额（元）",
         "Cumulative cash dividends and buybacks cancelled", "amount", ("cash",)),
    Line("below_floor", "最近三个会计年度累计现金分红及回购注销总额是否低于{floor}", "Below the board's floor", "yesno",
         ("below_floor",)),
    Line("ratio_percent", "现金分红比例（%）", "Cash as a share of average net profit (%)", "percent", ("cash_ratio",)),
    Line("below_30_percent", "现金分红比例是否低于30%", "Ratio below 30%", "yesno", ("below_ratio",)),
    Line("rd_cumulative", "最近三个会计年度累计研发投入金额（元）", "Cumulative R&D (three years)", "amount", ("rd",), True),
    Line("cumulative_revenue", "最近三个会计年度累计营业收入（元）", "Cumulative revenue (three years)", "amount",
         ("revenue",), True),
    Line("rd_ratio_percent", "最近三个会计年度累计研发投入占累计营业收入比例（%）",
         "Cumulative R&D as a share of cumulative revenue (%)", "percent", ("rd_ratio_actual",), True),
)

#: the proposal's lines: (calculation, 中文, English, format: amount, count, ratio, yes_no)
PROPOSAL = (
    ("proposal.base", "参与分配的股本（总股本扣减回购专用证券账户股份，股）", "Shares taking part (total less the buyback account)",
     "count"),
    ("proposal.total", "本次拟派发现金红利合计（元，含税）", "This proposal's cash dividend (tax incl.)", "amount"),
    ("proposal.year_total", "本年度现金分红总额（含中期，元）", "The year's cash dividends incl. the interim", "amount"),
    ("proposal.payout", "占本年度归属于上市公司股东净利润的比例", "As a share of net profit attributable", "ratio"),
    ("proposal.cash_with_buybacks", "现金分红与集中竞价、要约回购合计（元）", "Cash dividends and bidding/tender buybacks",
     "amount"),
    ("proposal.payout_with_buybacks", "上述合计占归属于上市公司股东净利润的比例", "That total as a share of net profit",
     "ratio"),
    ("proposal.required", "本次尚需的最低现金分红（规划与风险警示孰高，元）", "Least cash still required of this proposal",
     "amount"),
    ("proposal.min_per_10", "每10股至少派发现金红利（元，含税，到分）", "Least cash per 10 shares (to the fen)", "amount"),
    ("proposal.matches", "本次方案与中期合计等于现金分红总额（含中期）", "The proposal with the interim equals cash_dividend",
     "yes_no"),
)


#: the calculation of the table's last line, 是/否/无法判断 (catalogue._proposal)
TRIGGERS = "announce.triggers"
TRIGGERS_ZH = "是否触及{rules}{article}规定的可能被实施其他风险警示的情形"
#: its labels' text
TRIGGERS_TEXT = {"yes": "是", "no": "否", "undetermined": "无法判断"}


@dataclass(frozen=True)
class Board:
    exchange: str
    rules: str  # the listing rules, as announcements name them in their text
    short: str  # as the table's last line names them
    article: str
    growth: bool  # the R&D lines of the ChiNext/STAR exemption


#: each board's rule, as the companies' own announcements cite it (2024 revisions, published 2024-04-30);
#: the Beijing Stock Exchange's rules have no such warning
BOARDS = {
    "sse_main": Board("上海证券交易所", "《上海证券交易所股票上市规则》", "《股票上市规则》", "第9.8.1条第一款第（八）项", False),
    "szse_main": Board("深圳证券交易所", "《深圳证券交易所股票上市规则》", "《股票上市规则》", "第9.8.1条第一款第（八）项", False),
    "chinext": Board("深圳证券交易所", "《深圳证券交易所创业板股票上市规则》", "《创业板股票上市规则》", "第9.4条第一款第（八）项", True),
    "star": Board("上海证券交易所", "《上海证券交易所科创板股票上市规则》", "《科创板股票上市规则》", "第12.9.1条第一款第（八）项",
                  True),
}


def lines_for(board: str | None) -> tuple[Line, ...]:
    """The lines a board prints (every line, R&D included, where the board is not known: the workbook's blank)."""
    b = BOARDS.get(board or "")
    growth = True if b is None else b.growth
    return tuple(ln for ln in LINES if growth or not ln.growth_only)
