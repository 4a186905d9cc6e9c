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
from .rows import BOARDS, TRIGGERS_ZH, Board, Line, lines_for


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
    kind: str  # amount | percent | yesno
    values: tuple  # three (本年度, 上年度, 上上年度) or one


def board_of(f: Figures) -> Board | None:
    return BOARDS.get(f.board or "")


def triggers(f: Figures) -> tuple[str | None, str, str]:
    """(是 | 否 | None undetermined, why zh, why en): the model's verdict (announce.triggers: never 否 where the rule
    could not be decided or the amounts' unit is in doubt), with the reason in words."""
    if f.triggers is None:
        if f.report.units_suspect:
            return None, "金额单位存疑（疑为万元），无法判断", "the amounts' unit is in doubt (万元?): undetermined"
        r = f.st_rule
        why = (r.explanation_zh, r.explanation_en) if r is not None else ("无该规则", "no such rule")
        return None, f"无法判断：{why[0]}", f"undetermined: {why[1]}"
    if f.triggers == "否" and f.st.get("status") == "not_applicable":
        zh, en = OUT_OF_SCOPE.get(f.st.get("reason"), ("不适用该情形", "out of scope"))
        return "否", zh, en
    return f.triggers, "", ""


def floor_words(floor) -> str:
    return f"{floor / 10_000:.0f}万元" if isinstance(floor, (int, float)) else "金额标准"


def _value(f: Figures, line: Line, calc: str):
    v = f.st.get(calc)
    if line.kind == "percent":
        return f.ratio_percent(v)
    return v


def rows(f: Figures) -> list[Row]:
    """The table's rows in the board's form (empty for a board without the warning)."""
    b = board_of(f)
    if b is None or not f.st:
        return []
    out = [Row(ln.key, ln.zh.format(floor=floor_words(f.st.get("floor"))), ln.en, ln.kind,
               tuple(_value(f, ln, c) for c in ln.calcs)) for ln in lines_for(f.board)]
    out.append(Row("triggers", TRIGGERS_ZH.format(rules=b.short, article=b.article),
                   "Could the plan trigger the other-risk warning", "yesno", (triggers(f)[0],)))
    return out


def article_phrase(f: Figures) -> str:
    """《…股票上市规则》第X条第一款第（八）项 of the case's board ("" for a board without the warning)."""
    b = board_of(f)
    return f"{b.rules}{b.article}" if b else ""
