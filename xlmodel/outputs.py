"""The model's outputs, each declared once: its id, labels, unit and kind, and the name it goes by
in every place that shows it (as OpenFisca declares a variable's label, unit and reference once).

Two tables:

* :data:`HEADLINE` — the headline results of one company-year (overall status, the cash
  dividend conditions, the minimum cash dividend, the cap, the counts, the exchange's low-dividend
  risk warning and the cash that avoids it), and :data:`CHECK_FLAG`, the workbook's own model
  check. Each output's ``id`` is the evaluator's calculation, the attribute of
  :class:`~xlmodel.report.Report`, the key of the JSON output and the column of a batch result;
  ``name`` is the workbook's defined name on 汇总; ``udf`` the worksheet function returning it.
  (:data:`MODEL_CHECK`, the workbook's master check over its own tests, is a formula of the
  workbook alone: no calculation of the evaluator.)
* :data:`RULE_PARTS` — what is shown of each rule (rule, clause, status, actual, bound, margin,
  shortfall): the report's column heads, the JSON keys, the batch columns ``<rule>.<part>``.

The one name of a rule's bound is **bound** (界限): the report's column, the batch column
``<rule>.bound``, the JSON key ``bound``. ``required`` stays as a documented alias: the JSON
carries ``required`` too (the same value; the contract has always had it), and the model's own
calculation is ``<rule>.required`` (:attr:`Part.calc`).

Every module that shows an output reads its labels here (the report, the JSON, the batch and its
.xlsx, the workbook's sheets — 汇总, 封面, 检查's headings, the chart — the workbook reader and the
summary of ``xlmodel check``, the worksheet functions): a new output touches this table and the code
that computes it. This module imports nothing of xlmodel.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the kinds of value an output holds: a status code, a yes/no (blank when undetermined), an amount
#: in 元, a whole number of rules
KINDS = ("status", "yes_no", "amount", "count")


@dataclass(frozen=True, slots=True)
class Output:
    """One headline output. ``zh``/``en``: its label (no unit); ``short_zh``/``short_en``: the report
    header's wording where it is shorter (default: the label); ``note_zh``/``note_en``: what a blank
    means, added to the sheet's label; ``help_zh``/``help_en``: the worksheet function's help;
    ``board_zh``/``board_en``: the workbook's board page (封面) wording where it is shorter (default: the
    label; :attr:`board`); ``chart_zh``/``chart_en``: a chart's series name (default: the label)."""
    id: str
    zh: str
    en: str
    unit: str  # 元 | 状态 | 是/否 | 项
    kind: str  # one of KINDS
    udf: str | None = None
    help_zh: str = ""
    help_en: str = ""
    short_zh: str = ""
    short_en: str = ""
    note_zh: str = ""
    note_en: str = ""
    board_zh: str = ""
    board_en: str = ""
    chart_zh: str = ""
    chart_en: str = ""

    @property
    def json_key(self) -> str:
        return self.id

    @property
    def column(self) -> str:
        """The batch result's column (CSV header, the .xlsx's column id)."""
        return self.id

    @property
    def name(self) -> str:
        """The workbook's defined name of its cell on 汇总."""
        return f"out_{self.id}"

    @property
    def label_zh(self) -> str:
        """The label with its unit (amounts) and what a blank means: 最低现金分红（元）."""
        extra = "，".join(x for x in (self.unit if self.kind == "amount" else "", self.note_zh) if x)
        return f"{self.zh}（{extra}）" if extra else self.zh

    @property
    def label_en(self) -> str:
        extra = ", ".join(x for x in (self.unit if self.kind == "amount" else "", self.note_en) if x)
        return f"{self.en} ({extra})" if extra else self.en

    @property
    def heading(self) -> str:
        """Chinese then English, as a column of a text table heads it: 最低现金分红 Minimum cash dividend."""
        return f"{self.zh} {self.en}"

    @property
    def short(self) -> str:
        """The report header's label: 最低现金分红 Minimum cash dividend, 总体结论 Overall."""
        return f"{self.short_zh or self.zh} {self.short_en or self.en}"

    @property
    def board(self) -> tuple[str, str]:
        """The board page's (封面) wording, Chinese and English: (现金分红条件满足, Conditions met)."""
        return self.board_zh or self.zh, self.board_en or self.en

    @property
    def chart(self) -> tuple[str, str]:
        """A chart's series name, Chinese and English: (最低要求, Minimum)."""
        return self.chart_zh or self.zh, self.chart_en or self.en

    @property
    def help(self) -> str:
        return f"{self.help_zh}{self.help_en}"


HEADLINE: tuple[Output, ...] = (
    Output("overall_status", "总体结论", "Overall result", "状态", "status", "XLM_OVERALL_STATUS",
           "总体结论：通过/不通过/警告/缺少输入。",
           "Overall result: 通过 pass, 不通过 fail, 警告 warning, 缺少输入 missing input.", short_en="Overall"),
    Output("cash_conditions_met", "现金分红条件是否满足", "Cash dividend conditions met", "是/否", "yes_no",
           "XLM_CONDITIONS_MET", "现金分红条件是否全部满足：1 是 / 0 否（同 out_cash_conditions_met）；无法判断时为空。",
           "Are all cash dividend conditions met: 1 yes / 0 no, as out_cash_conditions_met; blank when undetermined.",
           short_zh="现金分红条件", short_en="Cash conditions met", board_zh="现金分红条件满足", board_en="Conditions met"),
    Output("min_cash_dividend", "最低现金分红", "Minimum cash dividend", "元", "amount", "XLM_MIN_CASH",
           "本年度最低现金分红（元，含计入的回购）；缺少输入时为空。",
           "Minimum cash dividend this year (元, incl. counted buybacks); blank when an input is missing.",
           board_en="Minimum cash", chart_zh="最低要求", chart_en="Minimum"),
    Output("max_distribution", "利润分配上限", "Maximum distribution", "元", "amount", "XLM_MAX_DISTRIBUTION",
           "利润分配上限（元）：累计可分配利润（不低于0）。",
           "Maximum distribution (元): cumulative distributable profit, floored at 0."),
    Output("fail_count", "不通过规则数", "Rules failed", "项", "count", "XLM_FAIL_COUNT",
           "不通过的规则数（不含条件）。", "Number of rules that fail (conditions not counted).",
           short_zh="不通过", short_en="fail", board_en="Failed"),
    Output("warn_count", "警告规则数", "Warnings", "项", "count", short_zh="警告", short_en="warn", board_en="warnings"),
    Output("missing_input_count", "缺少输入规则数", "Rules missing input", "项", "count",
           short_zh="缺少输入", short_en="missing", board_en="missing"),
    Output("st_risk_warning", "触发交易所低分红风险警示", "Exchange low-dividend risk warning", "是/否", "yes_no",
           "XLM_ST_RISK", "是否触发交易所低分红风险警示（ST）：1 是 / 0 否（同 out_st_risk_warning）；不适用或无法判断时为空。",
           "Exchange low-dividend risk warning (ST): 1 yes / 0 no, as out_st_risk_warning; blank when out of scope or undetermined.",
           short_zh="交易所低分红风险警示", short_en="ST risk warning", note_zh="空白=不适用", note_en="blank = out of scope",
           board_zh="低分红风险警示", board_en="Exchange risk warning"),
    Output("cash_needed_to_avoid_st", "避免风险警示所需本年现金分红", "Cash needed this year to avoid the warning", "元",
           "amount", "XLM_CASH_TO_AVOID_ST", "避免低分红风险警示所需的本年现金分红（元）。",
           "Cash dividend needed this year to avoid the low-dividend risk warning (元).",
           short_zh="避免所需现金", short_en="Cash needed to avoid it"),
)

#: the workbook's own output beside the model's: every rule evaluable (1) or not (0); not in a report
CHECK_FLAG = Output("check_flag", "模型检查（全部规则可评估）", "Model check (every rule evaluable)", "是/否", "yes_no")

#: the workbook's outputs on 汇总, each at its defined name: the headline, then the model check
SUMMARY = HEADLINE + (CHECK_FLAG,)

#: the workbook's master check of itself, on 汇总 below its tests (正常 when every test is; out_model_check);
#: not one of :data:`SUMMARY`'s named results, not in a report
MODEL_CHECK = Output("model_check", "模型总检查", "Master check of the model", "状态", "status",
                     short_en="Master check", board_zh="模型检查", board_en="Model check")

#: the workbook's line for missing data, on 汇总 beside the master check and on the cover (out_data_check): 正常 when
#: every rule has the inputs it needs, else 请检查; apart from the master check, which is the model's integrity
#: alone (issue 52.6)
DATA_CHECK = Output("data_check", "数据完整（全部规则有所需输入）", "Data complete (every rule has its inputs)", "状态",
                    "status", short_zh="数据完整", short_en="Data complete", board_zh="数据完整", board_en="Data complete")

OUTPUT: dict[str, Output] = {o.id: o for o in SUMMARY}

#: the keys a reader of the JSON output finds first, in this order (the headline outputs among the
#: report's other keys; the rest follow)
#: plan_reviewed beside overall_status: under an unreviewed draft (open 待复核 items) no status is a verdict (issue 46)
JSON_HEADLINE = ("policy", "evaluation_year", "overall_status", "plan_reviewed", "cash_conditions_met", "min_cash_dividend",
                 "max_distribution", "rules", "st_risk_warning", "cash_needed_to_avoid_st")

#: the headline outputs a baseline-only screen (no plan) has not: the plan's own results
SCREEN_OMITS = ("cash_conditions_met", "min_cash_dividend")


@dataclass(frozen=True, slots=True)
class Part:
    """What is shown of a rule. ``json_key``: its key in each rule of the JSON (``json_alias``: the
    same value under a second key the contract keeps); ``column``: the batch column ``<rule>.<column>``
    (None: not a column); ``calc``: the model's calculation ``<rule>.<calc>`` (None: not calculated);
    ``amount``: in the rule's unit, so in 元 where the rule compares amounts."""
    id: str
    zh: str
    en: str
    json_key: str
    column: str | None = None
    calc: str | None = None
    json_alias: str | None = None
    amount: bool = False

    @property
    def heading(self) -> str:
        """Chinese then English, as a table's column heads it: 界限 Bound."""
        return f"{self.zh} {self.en}"


RULE_PARTS: tuple[Part, ...] = (
    Part("rule", "规则", "Rule", "id"),
    Part("clause", "条款", "Clause", "clause"),
    Part("status", "状态", "Status", "status", "status", "status"),
    Part("actual", "实际", "Actual", "actual", "actual", "actual", amount=True),
    Part("bound", "界限", "Bound", "bound", "bound", "required", json_alias="required", amount=True),
    Part("margin", "余量", "Margin", "margin", "margin", "margin", amount=True),
    Part("shortfall", "差额", "Shortfall", "shortfall", "shortfall", "shortfall", amount=True),
)

PART: dict[str, Part] = {p.id: p for p in RULE_PARTS}

#: the batch columns of a rule, ``<rule>.<part>``, in this order (each where the rule has it)
COLUMN_PARTS: tuple[str, ...] = tuple(p.column for p in RULE_PARTS if p.column)

#: column-name endings of amounts (a rule's parts in 元, and the alias of the bound)
AMOUNT_SUFFIXES: tuple[str, ...] = tuple(
    f".{n}" for p in RULE_PARTS if p.amount for n in (p.column, p.json_alias) if n)


#: the rules' working rows on 计算 and 测算 (``<rule>.<what>``, and the model's own scalars), by the last part of
#: their name: (中文, English, unit). A rule's label is the Chinese here then its title; a name with a field in
#: it (``small_<field>``, ``jump_<field>``, ``pair_<a>_<b>``) reads the field's label (xlmodel.fields).
#: Units: 元, %, 年, 项 (a count), 是/否 (1/0), 状态 (a status label), 文字 (a reason's label), 日期.
WORKING: dict[str, tuple[str, str, str]] = {
    "test": ("检验是否成立", "Test holds", "是/否"),
    "missing": ("检验所需输入缺失", "Inputs of the test missing", "是/否"),
    "unknown": ("适用性无法判断（缺少输入）", "Applicability undetermined", "是/否"),
    "na": ("不适用", "Not applicable", "是/否"),
    "reason": ("不适用的原因", "Why it does not apply", "文字"),
    "min_cash": ("本年所需现金", "Cash required this year", "元"),
    "share": ("适用的最低现金占比", "Minimum cash share applied", "%"),
    "incomplete": ("有输入缺失", "Some input missing", "是/否"),
    "decided": ("输入缺失时检验仍可判定", "Test decided despite missing inputs", "是/否"),
    "breach": ("违反时的状态（约束板块为不通过，其他为警告）", "Status when breached (fail where binding, else warn)", "状态"),
    "first_full_year": ("上市后首个完整会计年度", "First full fiscal year listed", "年"),
    "years": ("计入的年数", "Years counted", "年"),
    "cash": ("计入的累计现金分红", "Cumulative cash counted", "元"),
    "prior_cash": ("以前年度累计现金分红", "Cash of the earlier years", "元"),
    "profit_required": ("按年均净利润计算的金额标准", "Threshold from average net profit", "元"),
    "floor": ("适用的金额标准", "Amount threshold applied", "元"),
    "bound": ("适用的界限（孰低）", "Bound applied (the lower)", "元"),
    "in_scope": ("在适用范围内", "In scope", "是/否"),
    "counted_cash": ("已计入的现金分红", "Cash counted so far", "元"),
    "needed": ("本年尚需宣告的现金分红", "Cash still to declare this year", "元"),
    "rd": ("累计研发投入", "Cumulative R&D", "元"),
    "revenue": ("累计营业收入", "Cumulative revenue", "元"),
    "growth_board": ("创业板或科创板", "ChiNext or STAR board", "是/否"),
    "exempt": ("研发投入豁免成立", "R&D exemption holds", "是/否"),
    "rd_unknown": ("研发投入豁免无法判断", "R&D exemption undetermined", "是/否"),
    "low_dividend": ("低分红", "Low dividend", "是/否"),
    "below_net_assets": ("股价连续20个交易日低于每股净资产", "Price below net assets per share for 20 days", "是/否"),
    "below_ipo": ("股价连续20个交易日低于发行价", "Price below the IPO price for 20 days", "是/否"),
    "parent_only_reading": ("仅以母公司报表判断", "Read on the parent's statements only", "是/否"),
    "ratio_required": ("按比例计算的界限", "Bound from the ratio", "元"),
    "basis": ("期间累计利润", "Basis over the period", "元"),
    "count_small": ("金额过小的项目数（疑似万元）", "Figures too small (10k 元?)", "项"),
    "count_jump": ("相邻年度变动过大的项目数", "Figures jumping between years", "项"),
    "count_pair": ("同一年度相差过大的项目对数", "Pairs too far apart in one year", "项"),
    "small": ("金额过小（疑似万元）", "Too small (10k 元?)", "是/否"),
    "jump": ("相邻年度变动过大", "Jumps between years", "是/否"),
    "pair": ("同一年度相差过大", "Too far apart in one year", "是/否"),
    "ratio_applied": ("适用的最低比例", "Minimum share applied", "%"),
    "part": ("公式分段", "Formula part", ""),
    # several distributions a year: the interims summed once (catalogue, each slot rounded to the fen)
    "interims.cash": ("各次中期现金分红合计", "The interims' cash dividends together", "元"),
    "interims.stock": ("各次中期股票股利合计", "The interims' stock dividends together", "元"),
    # the model's own scalars
    "major_outlay": ("有重大投资计划或重大现金支出", "Major outlay planned", "是/否"),
    "major_outlay_threshold": ("重大支出金额标准", "Major outlay threshold", "元"),
    "major_outlay_tests_met": ("达到的重大支出标准项数", "Major-outlay tests that hold", "项"),
    "cond_not_met_count": ("未满足的条件数", "Conditions not met", "项"),
    "cond_missing_count": ("缺少输入的条件数", "Conditions missing input", "项"),
    "cond_met": ("现金分红条件全部满足", "All cash dividend conditions met", "是/否"),
    "cond_unknown": ("条件无法判断（缺少输入）", "Conditions undetermined (missing input)", "是/否"),
}
