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
#: 利润分配方案公告: what the company holds if the share base changes before the record date
BASE_CHANGE: dict[str, str] = {
    "ratio": "维持每股分配比例不变",  # 相应调整分配总额 (a label holds no full-width comma: read back as typed)
    "total": "维持分配总额不变",  # 相应调整每股分配比例
}
BOOL_LABELS = {True: "是", False: "否"}
#: the report an interim distribution is based on (its period within the fiscal year): a case file's
#: 2024Q1 / 2024H1 / 2024Q3 or the period-end date reads as one of these
PERIODS: dict[str, str] = {"q1": "一季度", "h1": "半年度", "q3": "前三季度"}
PERIOD_END: dict[str, tuple[int, int]] = {"q1": (3, 31), "h1": (6, 30), "q3": (9, 30)}

#: enumeration id -> {code: 中文 label}; the workbook keeps these on its lists sheet.
ENUMS: dict[str, dict[str, str]] = {
    "audit_opinion": AUDIT_OPINIONS,
    "half_year_audit_opinion": HALF_YEAR_OPINIONS,
    "development_stage": STAGES,
    "board": BOARDS,
    **{f"interim{'' if k == 1 else k}_period": PERIODS for k in (1, 2, 3)},
    "base_change_keeps": BASE_CHANGE,
}

_A, _R, _C, _B, _E, _D, _T = (Kind.AMOUNT, Kind.RATIO, Kind.COUNT, Kind.BOOL,
                              Kind.ENUM, Kind.DATE, Kind.TEXT)

#: how many interim distributions a year the model holds (besides the final): the workbook has a fixed
#: number of slots per year, each with its period, its amounts and its period's own figures
INTERIM_SLOTS = 3
_ORDINAL = {1: ("第一次", "first"), 2: ("第二次", "second"), 3: ("第三次", "third")}


@dataclass(frozen=True)
class Slot:
    """One interim distribution of a year: the fields holding its period, amounts and period figures."""
    k: int
    period: str
    cash: str
    stock: str
    net_profit: str
    retained_consolidated: str
    retained_parent: str

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.period, self.cash, self.stock, self.net_profit, self.retained_consolidated, self.retained_parent)


def _slot(k: int) -> Slot:
    if k == 1:  # the old single interim: its fields keep their names (a case written before still reads as one)
        return Slot(1, "interim_period", "interim_cash_dividend", "interim_stock_dividend",
                    "half_year_net_profit_attributable", "half_year_retained_earnings_consolidated",
                    "half_year_retained_earnings_parent")
    return Slot(k, f"interim{k}_period", f"interim{k}_cash_dividend", f"interim{k}_stock_dividend",
                f"interim{k}_net_profit_attributable", f"interim{k}_retained_earnings_consolidated",
                f"interim{k}_retained_earnings_parent")


SLOTS: tuple[Slot, ...] = tuple(_slot(k) for k in range(1, INTERIM_SLOTS + 1))


def _slot_fields(k: int) -> tuple:
    """The fields of interim slot ``k`` not defined elsewhere (slot 1's amounts and figures are the old
    single interim's fields): its period and, for slots 2 and 3, its amounts and its period's figures."""
    s, (o_zh, o_en) = SLOTS[k - 1], _ORDINAL[k]
    period = Field(s.period, f"{o_zh}中期分红所依据的报告期", f"Period of the {o_en} interim distribution", _E,
                   choices=tuple(PERIODS))
    if k == 1:
        return (period,)
    return (period,
            Field(s.cash, f"{o_zh}中期现金分红金额（已含于现金分红总额）",
                  f"Interim cash dividend, {o_en} (included in the cash dividend)", _A, default_zero=True),
            Field(s.stock, f"{o_zh}中期股票股利金额（已含于股票股利金额）",
                  f"Interim stock dividend, {o_en} (included in the stock dividend)", _A, default_zero=True),
            Field(s.net_profit, f"{o_zh}中期分红报告期归属于上市公司股东的净利润",
                  f"Net profit attributable of the {o_en} interim's period", _A),
            Field(s.retained_consolidated, f"{o_zh}中期分红报告期末合并报表未分配利润",
                  f"Retained earnings at the {o_en} interim's period end, consolidated", _A),
            Field(s.retained_parent, f"{o_zh}中期分红报告期末母公司报表未分配利润",
                  f"Retained earnings at the {o_en} interim's period end, parent company", _A))

YEAR_FIELDS: tuple[Field, ...] = (
    Field("net_profit_attributable", "归属于上市公司股东的净利润", "Net profit attributable to shareholders", _A),
    Field("distributable_profit", "当年实现的可分配利润", "Distributable profit of the year", _A),
    Field("retained_earnings_consolidated", "合并报表期末未分配利润", "Retained earnings, consolidated", _A),
    Field("retained_earnings_parent", "母公司报表期末未分配利润", "Retained earnings, parent company", _A),
    # 母公司报表净利润为正 (a condition some plans word on the parent's own statements, issue 46.3): the parent
    # company's own net profit, never the consolidated net_profit_attributable
    Field("net_profit_parent", "母公司报表净利润", "Net profit, parent company (own statements)", _A),
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
    # 利润分配方案公告 (issue 50): the proposal's base — total shares at the base date less the shares in the
    # buyback account, which take no part in a distribution (CSRC 《上市公司股份回购规则》 art. 16)
    Field("cash_per_10_shares", "每10股派发现金红利（含税，本次方案）", "Cash per 10 shares (tax incl., this proposal)", _A,
          unit="元/10股"),
    Field("base_share_count", "股本基数日总股本", "Total shares at the base date", _C),
    Field("buyback_account_shares", "回购专用证券账户股份数", "Shares in the buyback account", _C),
    Field("base_change_keeps", "股本变动时维持", "If the base changes, keep", _E, choices=tuple(BASE_CHANGE)),
    Field("stock_dividend", "股票股利金额", "Stock dividend", _A, default_zero=True),
    Field("capital_reserve_conversion", "资本公积转增股本金额", "Capital reserve conversion", _A, default_zero=True),
    # 原则上每年度进行两次分红: how many distributions the year's profit is distributed in (interim + final)
    Field("distribution_count", "本年度利润分配次数（含中期）", "Distributions of the year (interim and final)", _C, unit="次"),
    # interim (half-year) dividends: cash_dividend above includes them; these check the interim on its own figures
    Field("interim_cash_dividend", "第一次中期现金分红金额（已含于现金分红总额）", "Interim cash dividend, first (included in the cash dividend)", _A,
          default_zero=True),
    # 本次利润分配: a stage-table share checked per distribution needs the interim's own stock dividend
    Field("interim_stock_dividend", "第一次中期股票股利金额（已含于股票股利金额）", "Interim stock dividend, first (included in the stock dividend)",
          _A, default_zero=True),
    Field("half_year_distributable_profit", "半年度实现的可分配利润", "Half-year distributable profit", _A),
    # CSRC 2023: the AGM-authorised interim dividend may not exceed the period's net profit attributable
    Field("half_year_net_profit_attributable", "第一次中期分红报告期（如半年度）归属于上市公司股东的净利润",
          "Net profit attributable of the first interim's period (e.g. the half year)", _A),
    # 不得超过累计可分配利润: an interim is paid out of the retained earnings at the end of its own period, which
    # the year-end figures no longer hold (the plan's distribution cap, interim part)
    Field("half_year_retained_earnings_consolidated", "第一次中期分红报告期末合并报表未分配利润",
          "Retained earnings at the first interim's period end, consolidated", _A),
    Field("half_year_retained_earnings_parent", "第一次中期分红报告期末母公司报表未分配利润",
          "Retained earnings at the first interim's period end, parent company", _A),
    Field("half_year_audit_opinion", "半年度财务报告审计意见", "Half-year report audit opinion", _E,
          choices=tuple(HALF_YEAR_OPINIONS)),
    # several distributions a year (新国九条, 2024; Guideline No. 3, 2023): the first interim is the fields above
    # (its period: interim_period), the second and third their own slots, each with its period's figures
    *(f for k in (1, 2, 3) for f in _slot_fields(k)),
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
    # 万元 caught (xlmodel.rules.consistency): figures a listed company could hardly have are refused or warned
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


#: where the annual report (or the board's and the AGM's papers) has each input: the input sheet's
#: prompt (data validation's input message), Chinese first. One table, beside the fields it describes;
#: a prompt's title is the field's Chinese label (Excel: ≤ 32 characters), its text this (≤ 255 with
#: the note the writer adds), tests/test_input_prompts.py holds both to Excel's limits.
SOURCES: dict[str, str] = {
    "net_profit_attributable": "合并利润表「归属于母公司所有者的净利润」（年报“主要会计数据和财务指标”同列）。"
                               "Consolidated income statement: net profit attributable to owners of the parent.",
    "distributable_profit": "母公司报表当年净利润弥补亏损、提取法定公积金后的余额（年报“利润分配”或董事会分配预案）。"
                            "Parent's profit of the year after losses and the statutory reserve.",
    # Company Law art. 214 (2024): reserves, capital reserve last, may cover losses; MoF 财资〔2025〕101号: on the
    # company's own (parent) audited statements, up to zero. The balance is read after any such cover (docs/domain.md §6.10)
    "retained_earnings_consolidated": "合并资产负债表「未分配利润」期末余额，为以公积金（含资本公积）弥补亏损后的余额（《公司法》"
                                      "第二百一十四条）。Consolidated balance sheet: retained earnings, after any cover of "
                                      "losses by reserves incl. capital reserve (Company Law art. 214).",
    "retained_earnings_parent": "母公司资产负债表「未分配利润」期末余额，为以公积金（含资本公积）弥补亏损后的余额（第二百一十四条；"
                                "财资〔2025〕101号：按母公司报表，补至零为限）。Parent balance sheet: retained earnings, "
                                "after any cover of losses by reserves (art. 214; MoF 2025 No. 101: up to zero).",
    "net_profit_parent": "母公司利润表「净利润」（年报财务报表“母公司利润表”，不是合并利润表的归母净利润）。"
                         "Parent company's own income statement: net profit (not the consolidated figure).",
    "total_assets": "合并资产负债表「资产总计」期末余额（经审计）。Consolidated balance sheet: total assets.",
    "net_assets": "合并资产负债表「归属于母公司所有者权益合计」期末余额（经审计）。"
                  "Consolidated balance sheet: equity attributable to owners of the parent.",
    "total_liabilities": "合并资产负债表「负债合计」期末余额。Consolidated balance sheet: total liabilities.",
    "operating_cash_flow": "合并现金流量表「经营活动产生的现金流量净额」。Consolidated cash flow statement: net operating cash flow.",
    "revenue": "合并利润表「营业收入」（或「营业总收入」）。Consolidated income statement: revenue.",
    "rd_expense": "年报“研发投入”表「本期研发投入合计」（费用化与资本化之和）。Annual report: total R&D investment.",
    "cash_and_equivalents": "合并现金流量表「期末现金及现金等价物余额」。Consolidated cash flow statement: closing cash and equivalents.",
    "registered_capital": "营业执照或公司章程载明的注册资本（年报“公司信息”）。Registered capital (business licence, articles).",
    "net_profit_attributable_ifrs": "按国际财务报告准则编制的合并损益表「本公司拥有人应占利润」（H股年报）。"
                                    "IFRS consolidated income statement: profit attributable to owners (H-share report).",
    "distributable_profit_ifrs": "按国际财务报告准则计算的当年可分配利润，扣除法定储备后（H股年报或董事会分配预案）。"
                                 "The year's distributable profit under IFRS after statutory reserves.",
    "share_count": "年报“股份变动及股东情况”期末股份总数（股）。Total shares at year end (shares).",
    "audit_opinion": "审计报告的审计意见类型（年报“财务报告”审计报告首段）。The auditor's opinion (audit report).",
    "planned_major_outlay": "董事会披露的未来十二个月拟对外投资、收购资产或购买设备等累计支出（不含募集资金项目）。"
                            "Planned 12-month investments and purchases, as the board discloses them.",
    "major_outlay_planned": "董事会是否认定存在重大投资计划或重大现金支出（董事会决议或分配预案说明）。"
                            "The board's determination of a major outlay.",
    "transaction_total_assets": "拟进行交易涉及的资产总额，账面值与评估值孰高（交易公告）。Transaction announcement: total assets involved.",
    "transaction_target_revenue": "交易标的最近一个会计年度的营业收入（交易公告或标的审计报告）。The target's latest-year revenue.",
    "transaction_target_net_profit": "交易标的最近一个会计年度的净利润（交易公告或标的审计报告）。The target's latest-year net profit.",
    "transaction_amount": "拟进行交易的成交金额，含承担的债务和费用（交易公告）。The deal amount incl. debts and costs.",
    "transaction_profit": "拟进行交易预计产生的利润（交易公告）。The profit the deal produces.",
    "development_stage": "董事会对公司发展阶段的认定：成熟期、成长期或不易区分（分配预案说明）。The board's view of the stage.",
    "going_concern_unaffected": "董事会是否认定现金分红不影响公司后续持续经营（董事会决议）。The board: the dividend leaves going concern intact.",
    "cash_flow_sufficient": "董事会是否认定现金流充裕（董事会决议或分配预案说明）。The board: cash flow is sufficient.",
    "cash_dividend": "本年度利润分配方案的现金分红总额，含中期已派发（分配预案或年报“利润分配情况”），含税，元。"
                     "The year's cash dividends incl. interim, tax included.",
    "buyback_amount": "本年度以集中竞价或要约方式实施的现金回购金额（年报“利润分配情况”或回购公告）。Cash buybacks by bidding or tender.",
    "buyback_cancelled": "上述回购中已注销的金额（回购实施结果公告）。The part of the buybacks cancelled.",
    "cash_per_10_shares": "本次利润分配方案的每10股派发现金红利（含税，元；按每股公告的乘以10），不含已派发的中期分红（董事会决议）。"
                          "This proposal's cash per 10 shares, tax included (per share × 10), the interim not included.",
    "base_share_count": "分配方案所依据的股本基数日（公告披露日或方案所称截至日）公司总股本（股）。Total shares at the proposal's base date.",
    "buyback_account_shares": "股本基数日回购专用证券账户中的股份数，不参与利润分配（回购公告或分配方案）。"
                              "Shares in the buyback account at the base date: they take no distribution.",
    "base_change_keeps": "股权登记日前总股本变动时，维持每股分配比例不变还是维持分配总额不变（分配方案）。"
                         "If the share base changes before the record date: keep the ratio or the total.",
    "stock_dividend": "本年度送红股（股票股利）的金额，按面值计（分配预案）。Stock dividend (at par).",
    "capital_reserve_conversion": "资本公积金转增股本的金额（分配预案）。Capital reserve converted to shares.",
    "distribution_count": "本年度利润的分配次数，含中期与年度（分配预案与中期分红公告）。Distributions of the year's profit.",
    "interim_cash_dividend": "第一次中期现金分红金额，已含于现金分红总额（中期分红公告或半年报）。Interim cash dividend (part of the total).",
    "interim_stock_dividend": "中期送红股金额，已含于股票股利金额（中期分红公告）。Interim stock dividend (part of the total).",
    "half_year_distributable_profit": "半年度报告母公司当期实现的可分配利润（半年报）。Half-year distributable profit (interim report).",
    "half_year_net_profit_attributable": "第一次中期分红所依据报告期（半年报或季报）合并利润表「归属于母公司所有者的净利润」。"
                                         "Net profit attributable of the first interim's period.",
    "half_year_retained_earnings_consolidated": "中期分红所依据的报告期（半年度或季度）末合并资产负债表「未分配利润」（半年报或季报）。"
                                                "Consolidated retained earnings at the end of the period the interim is paid out of.",
    "half_year_retained_earnings_parent": "中期分红所依据的报告期（半年度或季度）末母公司资产负债表「未分配利润」（半年报或季报）。"
                                          "Parent's retained earnings at the end of the period the interim is paid out of.",
    **{k: v for slot in (2, 3) for k, v in {
        f"interim{slot}_cash_dividend": f"{_ORDINAL[slot][0]}中期现金分红金额，已含于现金分红总额（中期分红公告或季报、半年报）。"
                                        f"The {_ORDINAL[slot][1]} interim cash dividend (part of the total).",
        f"interim{slot}_stock_dividend": f"{_ORDINAL[slot][0]}中期送红股金额，已含于股票股利金额（中期分红公告）。"
                                         f"The {_ORDINAL[slot][1]} interim stock dividend (part of the total).",
        f"interim{slot}_net_profit_attributable": f"{_ORDINAL[slot][0]}中期分红所依据报告期（季报或半年报）合并利润表「归属于母公司"
                                                  f"所有者的净利润」。Net profit attributable of that interim's period.",
        f"interim{slot}_retained_earnings_consolidated": f"{_ORDINAL[slot][0]}中期分红所依据报告期末合并资产负债表「未分配利润」。"
                                                         "Consolidated retained earnings at that interim's period end.",
        f"interim{slot}_retained_earnings_parent": f"{_ORDINAL[slot][0]}中期分红所依据报告期末母公司资产负债表「未分配利润」。"
                                                   "Parent's retained earnings at that interim's period end.",
    }.items()},
    **{s.period: f"{_ORDINAL[s.k][0]}中期分红所依据的报告期：一季度、半年度或前三季度（分红公告）。"
                 f"The report the {_ORDINAL[s.k][1]} interim is based on: Q1, H1 or the first nine months." for s in SLOTS},
    "half_year_audit_opinion": "半年度财务报告的审计意见；未经审计选“未经审计”（半年报）。The interim report's audit opinion, or unaudited.",
    "price_below_net_assets_20d": "最近20个交易日内是否有任一日收盘价低于最近一期每股净资产（行情数据）。"
                                  "Any close below net assets per share in the last 20 trading days.",
    "price_below_ipo_20d": "最近20个交易日内是否有任一日收盘价低于首发价格（后复权，行情数据）。"
                           "Any close below the IPO price (adjusted) in the last 20 trading days.",
    "vote_for_ratio": "股东大会决议公告中该议案赞成票占出席会议有效表决权的比例。AGM resolution: votes for / votes present.",
    "online_voting_offered": "股东大会是否提供网络投票（股东大会通知）。Online voting offered (AGM notice).",
    "independent_directors_opinion": "独立董事是否就利润分配方案发表意见（独立董事意见或董事会决议公告）。Independent directors' opinion given.",
    "agm_date": "审议利润分配方案的股东大会召开日期（股东大会决议公告）。The AGM date.",
    "payout_date": "现金红利派发完成日期（权益分派实施公告的发放日）。Payout date (distribution announcement).",
    "company_name": "公司法定中文名称（年报“公司信息”）。Company name (annual report).",
    "stock_code": "股票代码，如 600519 或 600519.SH（年报“公司信息”）。Stock code.",
    "board": "上市板块：上交所主板、深交所主板、创业板、科创板或北交所。Listing board.",
    "listing_date": "首次公开发行股票并上市的日期（招股说明书或上市公告书）。Listing date.",
    "amounts_confirmed": "已核对全部金额以元为单位（非万元）；小额或大幅跳变属实时选“是”。Amounts checked as 元.",
}
assert set(SOURCES) == set(FIELDS), sorted(set(FIELDS) ^ set(SOURCES))
