"""The report as Markdown, for pasting into a board memo."""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import catalogue as cat
from ..outputs import OUTPUT as _O, PART as _P
from ..inputs.sanitize import md_text
from . import Report, UNREVIEWED, _ROLE_TAG, _amount_line, _bound, _fmt, _with_draft_note


def render_markdown(rep: Report, *, preface: Sequence[tuple[str, str]] = ()) -> str:
    """The report as Markdown, for pasting into a board memo; ``preface`` (zh, en) lines are quoted
    beneath the heading (``xlmodel check``: the workbook's integrity)."""
    st = cat.STATUS_ZH
    cond = rep.cash_conditions_met
    name = f"{md_text(rep.company.get('company_name', ''))} {md_text(rep.company.get('stock_code', ''))}".strip()
    quoted = "\n>\n".join(f"> {md_text(zh)} / {md_text(en)}" for zh, en in _with_draft_note(rep, preface))
    lines = [
        f"### {name} — {rep.evaluation_year} 年度股东分红回报规划合规检查" if name else f"### {rep.evaluation_year} 年度股东分红回报规划合规检查",
        "",
        *([quoted, ""] if quoted else []),
        f"- 规划 Policy: `{rep.policy}` v{md_text(rep.policy_version)}"  # (an id: [a-z0-9-] only)
        + (f" {md_text(rep.period_note())}" if rep.period_note() else ""),
        f"- {_O['overall_status'].short}: **{st[rep.overall_status]}** ({rep.overall_status})"
        + (md_text(UNREVIEWED) if not rep.plan_reviewed else "") + "; "
        f"{_O['fail_count'].short_zh} {rep.fail_count}, {_O['warn_count'].short_zh} {rep.warn_count}, "
        f"{_O['missing_input_count'].short_zh} {rep.missing_input_count}",
        f"- {_O['cash_conditions_met'].short}: {'—' if cond is None else ('是' if cond else '否')}",
        f"- {_amount_line('min_cash_dividend', rep.min_cash_dividend)}"
        + (f"（{md_text(rep.min_cash_note_zh)}）" if rep.min_cash_note_zh else ""),
        f"- {_amount_line('max_distribution', rep.max_distribution)}",
        f"- {_O['st_risk_warning'].short}: {rep.st_verdict()[0]};"
        f" {_O['cash_needed_to_avoid_st'].short_zh} {_fmt(rep.cash_needed_to_avoid_st, '元')} 元",
        "",
        "| " + " | ".join(_P[k].heading for k in ("clause", "rule", "status", "actual", "bound", "margin", "shortfall"))
        + " | 说明 |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rep.rules:
        cells = [r.clause, f"{_ROLE_TAG.get(r.role, '')}{r.title_zh}", st[r.status], _fmt(r.actual, r.unit),
                 _bound(r), _fmt(r.margin, r.unit) if r.margin is not None else "",
                 _fmt(r.shortfall, r.unit) if r.shortfall else "", r.explanation_zh]
        lines.append("| " + " | ".join(md_text(c) for c in cells) + " |")  # inert text: no markup, no new row
    return "\n".join(lines)
