"""Canonical input fields (DOMAIN.md §3).

One table drives case validation, the workbook's input sheet (labels, units,
validation lists, defined names ``in_<field>``) and the batch column check.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(str, Enum):
    AMOUNT = "amount"  # 元, tax included, 2 decimals
    RATIO = "ratio"  # 0–1
    COUNT = "count"  # whole number (shares)
    BOOL = "bool"
    ENUM = "enum"
    DATE = "date"
    TEXT = "text"


@dataclass(frozen=True)
class Field:
    id: str
    zh: str
    en: str
    kind: Kind
    per_year: bool = True
    choices: tuple[str, ...] = ()
    default_zero: bool = False  # distribution amounts default to 0 when absent
    unit: str = ""  # the unit shown, where it is not the kind's (a count of distributions: 次)

    @property
    def unit_zh(self) -> str:
        if self.unit:
            return self.unit
        return {
            Kind.AMOUNT: "元",
            Kind.RATIO: "%",
            Kind.COUNT: "股",
            Kind.BOOL: "是/否",
            Kind.ENUM: "选项",
            Kind.DATE: "日期",
            Kind.TEXT: "文本",
        }[self.kind]


AUDIT_OPINIONS: dict[str, str] = {
    "standard_unqualified": "标准无保留意见",
    "unqualified_with_emphasis": "带强调事项段的无保留意见",
    "qualified": "保留意见",
    "adverse": "否定意见",
    "disclaimer": "无法表示意见",
}
STAGES: dict[str, str] = {
    "mature": "成熟期",
    "growth": "成长期",
    "indeterminate": "不易区分",
}
BOARDS: dict[str, str] = {
    "sse_main": "上交所主板",
    "szse_main": "深交所主板",
    "chinext": "创业板",
    "star": "科创板",
    "bse": "北交所",
}
#: a half-year report need not be audited (GCL 三、(二)、1、(3): 中期或季度现金分红无需审计)
HALF_YEAR_OPINIONS: dict[str, str] = {**AUDIT_OPINIONS, "unaudited": "未经审计"}
BOOL_LABELS = {True: "是", False: "否"}

#: enumeration id -> {code: 中文 label}; the workbook keeps these on its lists sheet.
ENUMS: dict[str, dict[str, str]] = {
    "audit_opinion": AUDIT_OPINIONS,
    "half_year_audit_opinion": HALF_YEAR_OPINIONS,
    "development_stage": STAGES,
    "board": BOARDS,
}

_A, _R, _C, _B, _E, _D, _T = (Kind.AMOUNT, Kind.RATIO, Kind.COUNT, Kind.BOOL,
                              Kind.ENUM, Kind.DATE, Kind.TEXT)

YEAR_FIELDS: tuple[Field, ...] = (
    Field("net_profit_attributable", "归属于上市公司股东的净利润", "Net profit attributable to shareholders", _A),
    Field("distributable_profit", "当年实现的可分配利润", "Distributable profit of the year", _A),
    Field("retained_earnings_consolidated", "合并报表期末未分配利润", "Retained earnings, consolidated", _A),
    Field("retained_earnings_parent", "母公司报表期末未分配利润", "Retained earnings, parent company", _A),
    Field("total_assets", "期末总资产（经审计）", "Total assets (audited)", _A),
    Field("net_assets", "期末归属于母公司股东的净资产（经审计）", "Net assets attributable (audited)", _A),
    Field("total_liabilities", "期末总负债", "Total liabilities", _A),
    Field("operating_cash_flow", "经营活动产生的现金流量净额", "Operating cash flow", _A),
    Field("revenue", "营业收入", "Revenue", _A),
    Field("rd_expense", "研发投入", "R&D expense", _A),
    # for gates a plan words on them (经营现金流净额低于注册资本20%; 期末现金及现金等价物余额为正值)
    Field("cash_and_equivalents", "期末现金及现金等价物余额", "Cash and cash equivalents at year end", _A),
    Field("registered_capital", "注册资本", "Registered capital", _A),
    # A+H companies: profit under IFRS beside PRC GAAP (以中国会计准则和国际财务报告准则财务报表税后利润数较少者为准)
    Field("net_profit_attributable_ifrs", "归属于母公司股东的净利润（国际财务报告准则）", "Net profit attributable (IFRS)", _A),
    # 以中国会计准则和国际财务报告准则财务报表税后利润数较少者为准……扣除法定储备后净利润: the year's profit after
    # the statutory reserves under IFRS, beside distributable_profit under PRC GAAP (the reserves may differ)
    Field("distributable_profit_ifrs", "当年实现的可分配利润（国际财务报告准则，扣除法定储备后）",
          "Distributable profit of the year (IFRS, after statutory reserves)", _A),
    Field("share_count", "总股本", "Total shares", _C),
    Field("audit_opinion", "审计意见", "Audit opinion", _E, choices=tuple(AUDIT_OPINIONS)),
    Field("planned_major_outlay", "未来十二个月拟投资、收购资产等累计支出", "Planned 12-month outlay (excl. raised funds)", _A),
    Field("major_outlay_planned", "有重大投资计划或重大现金支出（董事会认定）", "Major outlay planned (board determination)", _B),
    # a planned transaction's own figures, for major-outlay tests worded on the listing rules' transaction tests
    # (交易标的营业收入占……营业收入50%以上且超过3000万元): several planned transactions, each figure the largest
    Field("transaction_total_assets", "拟进行交易涉及的资产总额（账面值与评估值孰高）",
          "Planned transaction: total assets involved (higher of book and appraised value)", _A),
    Field("transaction_target_revenue", "拟进行交易标的最近一个会计年度相关的营业收入",
          "Planned transaction: the target's revenue of the latest fiscal year", _A),
    Field("transaction_target_net_profit", "拟进行交易标的最近一个会计年度相关的净利润",
          "Planned transaction: the target's net profit of the latest fiscal year", _A),
    Field("transaction_amount", "拟进行交易的成交金额（含承担债务和费用）",
          "Planned transaction: the deal amount (incl. debts assumed and costs)", _A),
    Field("transaction_profit", "拟进行交易产生的利润", "Planned transaction: the profit the deal produces", _A),
    Field("development_stage", "发展阶段", "Development stage", _E, choices=tuple(STAGES)),
    Field("going_concern_unaffected", "现金分红不影响后续持续经营", "Going concern unaffected", _B),
    Field("cash_flow_sufficient", "现金流充裕", "Cash flow sufficient", _B),
    Field("cash_dividend", "现金分红总额（含中期）", "Cash dividend (incl. interim)", _A, default_zero=True),
    Field("buyback_amount", "集中竞价或要约方式现金回购金额", "Cash buybacks (bidding/tender)", _A, default_zero=True),
    Field("buyback_cancelled", "回购并注销金额", "Buybacks cancelled", _A, default_zero=True),
    Field("stock_dividend", "股票股利金额", "Stock dividend", _A, default_zero=True),
    Field("capital_reserve_conversion", "资本公积转增股本金额", "Capital reserve conversion", _A, default_zero=True),
    # 原则上每年度进行两次分红: how many distributions the year's profit is distributed in (interim + final)
    Field("distribution_count", "本年度利润分配次数（含中期）", "Distributions of the year (interim and final)", _C, unit="次"),
    # interim (half-year) dividends: cash_dividend above includes them; these check the interim on its own figures
    Field("interim_cash_dividend", "中期现金分红金额（已含于现金分红总额）", "Interim cash dividend (included in the cash dividend)", _A,
          default_zero=True),
    # 本次利润分配: a stage-table share checked per distribution needs the interim's own stock dividend
    Field("interim_stock_dividend", "中期股票股利金额（已含于股票股利金额）", "Interim stock dividend (included in the stock dividend)",
          _A, default_zero=True),
    Field("half_year_distributable_profit", "半年度实现的可分配利润", "Half-year distributable profit", _A),
    # CSRC 2023: the AGM-authorised interim dividend may not exceed the period's net profit attributable
    Field("half_year_net_profit_attributable", "半年度归属于上市公司股东的净利润", "Half-year net profit attributable", _A),
    Field("half_year_audit_opinion", "半年度财务报告审计意见", "Half-year report audit opinion", _E,
          choices=tuple(HALF_YEAR_OPINIONS)),
    # market facts for the controlling-shareholder sale restriction (DOMAIN.md §5), as of the evaluation
    Field("price_below_net_assets_20d", "最近20个交易日任一日收盘价低于每股净资产（破净）",
          "Closing price below net assets per share on any of the last 20 trading days", _B),
    Field("price_below_ipo_20d", "最近20个交易日任一日收盘价低于首发价格（破发，后复权）",
          "Closing price below the IPO price on any of the last 20 trading days (adjusted)", _B),
    Field("vote_for_ratio", "股东大会赞成票占出席表决权比例", "AGM votes for / votes present", _R),
    Field("online_voting_offered", "提供网络投票", "Online voting offered", _B),
    Field("independent_directors_opinion", "独立董事发表意见", "Independent directors' opinion given", _B),
    Field("agm_date", "股东大会日期", "AGM date", _D),
    Field("payout_date", "派发完成日期", "Payout completed", _D),
)

COMPANY_FIELDS: tuple[Field, ...] = (
    Field("company_name", "公司名称", "Company name", _T, per_year=False),
    Field("stock_code", "证券代码", "Stock code", _T, per_year=False),
    Field("board", "上市板块", "Board", _E, per_year=False, choices=tuple(BOARDS)),
    Field("listing_date", "上市日期", "Listing date", _D, per_year=False),
    # 万元 caught (xlmodel.consistency): figures a listed company could hardly have are refused or warned
    # about unless the case confirms they are real 元 amounts
    Field("amounts_confirmed", "金额单位已核对为元（小额或跳变属实）", "Amounts checked as 元 (small figures or jumps are real)",
          _B, per_year=False),
)

FIELDS: dict[str, Field] = {f.id: f for f in YEAR_FIELDS + COMPANY_FIELDS}

#: a year's figures are forecasts (预测数), not reported ones: a year after the evaluation year only, read like
#: any yes/no field; not an input of any rule (a mark on the year, for the planner and the reports)
FORECAST = Field("forecast", "预测数（非已披露数）", "Forecast figures (not reported)", Kind.BOOL)


def field(field_id: str) -> Field:
    return FIELDS[field_id]
