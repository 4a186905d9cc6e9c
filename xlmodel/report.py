"""Reports: the evaluated model for one case, as data, JSON and a readable table."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from . import catalogue as cat
from .fields import AUDIT_OPINIONS, FIELDS
from .evaluator import ArrayEnv, py

_WHEN_ZH = {
    "conditions_met": ("现金分红条件未满足", "cash dividend conditions not met"),
    "conditions_not_met": ("现金分红条件已满足（本规则仅在条件不满足时适用）", "conditions met (rule applies only when they are not)"),
    "distribution_made": ("本年度未进行利润分配", "no profit distribution this year"),
    "profitable": ("本年度未盈利", "not profitable this year"),
    "profitable_no_cash": ("非“盈利但未提出现金分红”情形", "not a profitable year without a cash proposal"),
    "stock_or_conversion": ("未发放股票股利或资本公积转增", "no stock dividend or capital reserve conversion"),
    "low_payout": ("非“盈利、未分配利润为正且现金分红低于净利润30%”情形（或会计年度早于适用年度）",
                   "not a profitable year with positive retained earnings and a payout below 30% (or before the first year)"),
}
_ROLE_TAG = {"condition": "[条件] ", "regulatory": "[监管] "}
_NOT_OP_ZH = {">=": "低于", ">": "不大于", "<=": "超过", "<": "不低于"}
_NOT_OP_EN = {">=": "<", ">": "<=", "<=": ">", "<": ">="}
_OP_ZH = {">=": "不低于", ">": "大于", "<=": "不超过", "<": "低于"}


@dataclass
class RuleResult:
    id: str
    clause: str
    kind: str
    role: str  # condition | requirement
    severity: str
    title_zh: str
    title_en: str
    status: str
    actual: object
    required: object
    shortfall: float | None
    unit: str
    explanation_zh: str
    explanation_en: str
    missing_inputs: list[str] = field(default_factory=list)


@dataclass
class Report:
    policy: str
    policy_version: str
    evaluation_year: int
    company: dict
    overall_status: str
    cash_conditions_met: bool | None
    min_cash_dividend: float | None
    max_distribution: float | None
    fail_count: int
    warn_count: int
    missing_input_count: int
    st_risk_warning: bool | None  # exchange low-dividend risk warning; None when out of scope or undetermined
    cash_needed_to_avoid_st: float | None
    rules: list[RuleResult]

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2, default=str)

    @property
    def exit_code(self) -> int:
        return 0 if self.overall_status in ("pass", "warn") else 1

    def rule(self, rule_id: str) -> RuleResult:
        return next(r for r in self.rules if r.id == rule_id)


def _fmt(v, unit: str) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "是" if v else "否"
    if isinstance(v, float):
        if unit == "%":
            return f"{v:.2%}"
        return f"{v:,.2f}"
    if unit == "选项":
        return AUDIT_OPINIONS.get(v, v)
    return str(v)


def _explain(rd: cat.RuleDef, status: str, a, r, sf, missing: list[str]) -> tuple[str, str]:
    s, ck = rd.spec, rd.check
    if status == "missing_input":
        names = ", ".join(missing) or "现金分红条件 / cash dividend conditions"
        return f"缺少输入：{names}", f"missing input: {names}"
    if status == "not_applicable" and s.kind == "st_low_dividend":
        return ("不适用：不在适用范围（会计年度早于首次适用年度、非沪深主板/创业板/科创板或上市未满一个完整会计年度），"
                "或前提不满足（最近一年净利润、合并或母公司未分配利润非正），或符合研发投入豁免",
                "not applicable: out of scope (year before the first tested, board not covered, or no full fiscal year "
                "since listing), preconditions not met (net profit or retained earnings not positive), or R&D exemption")
    if status == "not_applicable":
        reasons = [_WHEN_ZH[w] for w in s.when if w in _WHEN_ZH]
        if ck.applies is not None and not reasons:
            reasons = [_WHEN_ZH["distribution_made"]]
        zh = "；".join(x[0] for x in reasons) or "不适用"
        en = "; ".join(x[1] for x in reasons) or "not applicable"
        return f"不适用：{zh}", f"not applicable: {en}"
    u = ck.unit
    fa, fr = _fmt(a, u), _fmt(r, u)
    ok = status == "pass"
    if s.kind == "sale_restriction":
        if ok:
            return (f"最近三年累计现金分红 {fa} 不低于要求 {fr}：控股股东可减持",
                    f"cash over three years {fa} >= required {fr}: controlling shareholders may sell")
        return (f"最近三年累计现金分红 {fa}（要求 {fr}，且不得为零）：控股股东、实际控制人不得在二级市场减持",
                f"cash over three years {fa} (required {fr}, and not nil): controlling shareholders may not sell on the market")
    if ck.op in _OP_ZH:
        rel = _OP_ZH[ck.op] if ok else _NOT_OP_ZH[ck.op]
        zh = f"实际 {fa} {rel} 要求 {fr}"
        en = f"actual {fa} {ck.op if ok else _NOT_OP_EN[ck.op]} required {fr}"
        if sf:
            zh += f"，差额 {_fmt(sf, u)}"
            en += f", short/over by {_fmt(sf, u)}"
        return zh, en
    if ck.op == "in":
        return (f"审计意见为{fa}，{'属于' if ok else '不属于'}规划认可的意见",
                f"audit opinion {a} is {'' if ok else 'not '}accepted")
    if ck.op == "not_major":
        if r is None:
            return (f"董事会认定{'无' if ok else '有'}重大投资计划或重大现金支出",
                    f"board determination: {'no ' if ok else ''}major outlay planned")
        return (f"拟支出 {fa} {'未达到' if ok else '达到'}重大支出标准 {fr}",
                f"planned outlay {fa} {'below' if ok else 'meets'} the major-outlay threshold {fr}")
    return (f"{'已确认' if ok else '未确认'}：{s.title_zh}", f"{'confirmed' if ok else 'not confirmed'}: {s.title_en}")


def _missing(rd: cat.RuleDef, env: ArrayEnv, i: int, year: int) -> list[str]:
    out = []
    for fid, off in dict.fromkeys(rd.app_fields + rd.check_fields):
        if env.missing(fid, off)[i]:
            label = FIELDS[fid].zh if fid in FIELDS else "声明确认"
            out.append(f"{fid} {label} ({year + off})")
    return out


def build_report(model: cat.Model, env: ArrayEnv, i: int, case) -> Report:
    def val(name, unit=None):
        return py(env.calc(name, None)[i], unit)

    results = []
    ey = case.evaluation_year
    for rd in model.rules:
        s, u = rd.spec, rd.check.unit
        status = val(f"{s.id}.status")
        a = val(f"{s.id}.actual", u)
        r = val(f"{s.id}.required", u) if rd.check.required is not None else None
        sf = val(f"{s.id}.shortfall") if rd.check.shortfall is not None else None
        miss = _missing(rd, env, i, ey) if status == "missing_input" else []
        zh, en = _explain(rd, status, a, r, sf, miss)
        results.append(RuleResult(s.id, s.clause, s.kind, rd.role, s.severity, s.title_zh, s.title_en,
                                  status, a, r, sf, u, zh, en, miss))
    p = model.policy
    return Report(
        policy=p.id, policy_version=p.version, evaluation_year=ey,
        company={k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in case.company.items()},
        overall_status=val("overall_status"), cash_conditions_met=val("cash_conditions_met"),
        min_cash_dividend=val("min_cash_dividend"), max_distribution=val("max_distribution"),
        fail_count=int(val("fail_count")), warn_count=int(val("warn_count")),
        missing_input_count=int(val("missing_input_count")),
        st_risk_warning=val("st_risk_warning"), cash_needed_to_avoid_st=val("cash_needed_to_avoid_st"), rules=results)


# ---- text rendering ----------------------------------------------------------

def _width(s: str) -> int:
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


def _pad(s: str, w: int) -> str:
    return s + " " * max(0, w - _width(s))


def render_table(rep: Report) -> str:
    st = cat.STATUS_ZH
    cond = rep.cash_conditions_met
    lines = [
        f"{rep.company.get('company_name', '')} {rep.company.get('stock_code', '')}".strip(),
        f"政策 Policy: {rep.policy} (v{rep.policy_version})    会计年度 Fiscal year: {rep.evaluation_year}",
        f"总体结论 Overall: {st[rep.overall_status]} {rep.overall_status}"
        f"    不通过 fail: {rep.fail_count}  警告 warn: {rep.warn_count}  缺少输入 missing: {rep.missing_input_count}",
        f"现金分红条件 Cash conditions met: {'—' if cond is None else ('是 yes' if cond else '否 no')}",
        f"最低现金分红 Minimum cash dividend: {_fmt(rep.min_cash_dividend, '元')} 元",
        f"利润分配上限 Maximum distribution: {_fmt(rep.max_distribution, '元')} 元",
        f"交易所低分红风险警示 ST risk warning: {'— (不适用 out of scope)' if rep.st_risk_warning is None else ('是 YES' if rep.st_risk_warning else '否 no')}"
        f"    避免所需现金 Cash needed to avoid it: {_fmt(rep.cash_needed_to_avoid_st, '元')} 元",
        "",
    ]
    head = ["规则 Rule", "条款 Clause", "状态 Status", "实际 Actual", "要求 Required", "差额 Shortfall"]
    rows = []
    for r in rep.rules:
        rows.append([
            f"{_ROLE_TAG.get(r.role, '')}{r.title_zh}",
            r.clause, f"{st[r.status]} {r.status}",
            _fmt(r.actual, r.unit), _fmt(r.required, r.unit), _fmt(r.shortfall, r.unit) if r.shortfall else "",
        ])
    widths = [max(_width(x) for x in col) for col in zip(head, *rows)]
    lines.append("  ".join(_pad(h, w) for h, w in zip(head, widths)))
    lines.append("  ".join("-" * w for w in widths))
    for row, r in zip(rows, rep.rules):
        lines.append("  ".join(_pad(c, w) for c, w in zip(row, widths)))
        if r.status not in ("pass",):
            lines.append(f"    ↳ {r.explanation_zh} | {r.explanation_en}")
    return "\n".join(lines)


def render_markdown(rep: Report) -> str:
    """The report as Markdown, for pasting into a board memo."""
    st = cat.STATUS_ZH
    cond = rep.cash_conditions_met
    name = f"{rep.company.get('company_name', '')} {rep.company.get('stock_code', '')}".strip()
    lines = [
        f"### {name} — {rep.evaluation_year} 年度股东分红回报规划合规检查" if name else f"### {rep.evaluation_year} 年度股东分红回报规划合规检查",
        "",
        f"- 规划 Policy: `{rep.policy}` v{rep.policy_version}",
        f"- 总体结论 Overall: **{st[rep.overall_status]}** ({rep.overall_status}); 不通过 {rep.fail_count}, 警告 {rep.warn_count}, 缺少输入 {rep.missing_input_count}",
        f"- 现金分红条件 Cash conditions met: {'—' if cond is None else ('是' if cond else '否')}",
        f"- 最低现金分红 Minimum cash dividend: {_fmt(rep.min_cash_dividend, '元')} 元",
        f"- 利润分配上限 Maximum distribution: {_fmt(rep.max_distribution, '元')} 元",
        f"- 交易所低分红风险警示 ST risk warning: {'不适用' if rep.st_risk_warning is None else ('是' if rep.st_risk_warning else '否')};"
        f" 避免所需现金 {_fmt(rep.cash_needed_to_avoid_st, '元')} 元",
        "",
        "| 条款 Clause | 规则 Rule | 状态 Status | 实际 Actual | 要求 Required | 差额 Shortfall | 说明 |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for r in rep.rules:
        cells = [r.clause, f"{_ROLE_TAG.get(r.role, '')}{r.title_zh}", st[r.status], _fmt(r.actual, r.unit),
                 _fmt(r.required, r.unit), _fmt(r.shortfall, r.unit) if r.shortfall else "", r.explanation_zh]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)
