"""`xlmodel plan`: plan the dividends of the plan period; with ``-o FILE.docx`` the path also as a Word
document for the board papers (issue 52.2): what :func:`xlmodel.planner.render_plan_markdown` prints, A4
landscape, the company and the plan, one line per year (the minimum, the rule that sets it and its clause,
the amount proposed and paid, the law's cap, whether the year is feasible) and what each year rests on,
then the date it was written, a digest of the inputs and their source; every amount in 元."""

from __future__ import annotations

import sys
from pathlib import Path

from ..case import Case, inputs_digest
from ..inputs.files import atomic_write, check_output, generated_on
from ..inputs.sanitize import plain_text
from ..outputs import OUTPUT
from ..planner import STATUS_ZH, PlanYear, _amount, _heading, _notes, _year_label
from ..plans.schema import Policy


def cmd_plan(args) -> int:
    import json

    from ..case import load_case
    from ..evaluator import cached_plan_by_id
    from ..planner import exit_code, parse_pay, plan, render_plan_markdown, render_plan_text, with_later_years_forecast

    pay = parse_pay(args.pay)  # before the case is read: a bad --pay value is named first
    if args.out:  # the Word document's path checked before any work (its suffix, an existing file without --force)
        check_output(args.out, force=args.force, suffixes=(".docx",), inputs=(args.case,))
    params = None
    if str(args.case).lower().endswith((".xlsx", ".xlsm")):  # a filled workbook: its inputs and parameters
        from ..workbook.reader import read_workbook

        read = read_workbook(args.case, check_formulas=False, installed_plan_wins=True)
        case, policy, params = with_later_years_forecast(read.case), read.policy, read.params or None
        if read.plan_pay:  # 测算's proposed amounts; a --pay of the same year wins
            print(f"注意 Note: 按“测算”表的拟定现金分红 the proposed amounts on 测算: "
                  f"{', '.join(f'{y}={a:,.2f}' for y, a in sorted(read.plan_pay.items()) if y not in pay)}"
                  f"{'（--pay 优先 --pay wins where given）' if set(pay) & set(read.plan_pay) else ''}", file=sys.stderr)
            pay = {**read.plan_pay, **pay}
        for note in read.notes:
            print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
        if case.forecast_years:
            print(f"注意 Note: {'、'.join(map(str, sorted(case.forecast_years)))} 年（评估年度之后）的数字按预测数测算 "
                  "the figures of the years after the evaluation year are taken as forecasts", file=sys.stderr)
    else:
        case = load_case(args.case)
        policy = cached_plan_by_id(case.policy)
    for w in case.warnings:
        print(f"注意 Warning: {plain_text(case.source)}: {plain_text(w)}", file=sys.stderr)
    path = plan(case, policy, pay, params)
    if args.out:
        written = write_plan_docx(args.out, path, case, policy, force=args.force, inputs=(args.case,))
        print(f"已写入 Word 文档 written -> {plain_text(written)}", file=sys.stderr)
    if args.json:
        print(json.dumps([y.to_dict() for y in path], ensure_ascii=False, indent=2))
    elif args.markdown:
        print(render_plan_markdown(path, case, policy))
    else:
        print(render_plan_text(path, case, policy))
    return exit_code(path)


FONT = "Microsoft YaHei"
#: the table's columns: (中文, English)
HEADS = (("年度", "FY"), (f"{OUTPUT['min_cash_dividend'].zh}（元）", "Minimum (元)"), ("决定规则（条款）", "Binding rule (clause)"),
         ("拟定金额（元）", "Proposed (元)"), ("本路径金额（元）", "Path (元)"),
         (f"{OUTPUT['max_distribution'].zh}（元）", "Cap (元)"), ("结论", "Feasibility"))


def _row(y: PlanYear) -> list[str]:
    rule = f"{y.binding_title_zh}（{y.binding_clause}）" if y.binding_rule else "—"
    return [_year_label(y), _amount(y.min_cash_dividend), rule, _amount(y.cash_dividend) if y.fixed else "—",
            _amount(y.cash_dividend), _amount(y.max_distribution), STATUS_ZH[y.status]]


def write_plan_docx(out: Path, path: list[PlanYear], case: Case, policy: Policy, force: bool = False,
                    inputs: tuple = ()) -> Path:
    """Write the path as a .docx (atomically; an existing file only with ``force``). Every text from a plan or
    a case is written as plain text (control characters shown escaped: nothing a reader would take as markup)."""
    out = check_output(out, force=force, suffixes=(".docx",), inputs=inputs)
    doc = _document(path, case, policy)
    with atomic_write(out, force=force) as tmp:
        doc.save(str(tmp))
    return out


def _document(path: list[PlanYear], case: Case, policy: Policy):
    import docx
    from docx.enum.section import WD_ORIENT
    from docx.shared import Cm, Pt

    t = plain_text
    doc = docx.Document()
    sec = doc.sections[0]
    sec.orientation, sec.page_width, sec.page_height = WD_ORIENT.LANDSCAPE, Cm(29.7), Cm(21.0)
    for side in ("left_margin", "right_margin", "top_margin", "bottom_margin"):
        setattr(sec, side, Cm(1.8))
    style = doc.styles["Normal"]
    style.font.name, style.font.size = FONT, Pt(10)
    style.element.rPr.rFonts.set("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}eastAsia", FONT)
    name, pol = _heading(case, policy)
    doc.add_heading(f"{t(name) + ' — ' if name else ''}股东分红回报规划期分红测算 Dividend plan", level=1)
    day = generated_on()
    for line in (f"规划 Policy：{t(pol)}", f"评估年度 Evaluation year：{case.evaluation_year}",
                 f"{OUTPUT['min_cash_dividend'].zh}：该年规划下限与监管底线（含交易所低分红风险警示）均不失败的最少金额，以前各年按本路径金额计。"
                 "The least cash dividend with which no minimum of the year, nor the exchange's risk warning, fails.",
                 "金额单位：元  Amounts in 元"):
        doc.add_paragraph(line)
    _table(doc, path)
    notes = [(y, zh) for y in path for zh, _ in _notes(y)]
    for y, zh in notes:
        doc.add_paragraph(f"{y.fiscal_year}：{t(zh)}", style="List Bullet")
    if any(y.forecast for y in path):
        doc.add_paragraph("预测：该年数字为预测数，非已披露数 forecast figures, not reported ones")
    if any(not y.in_plan_period for y in path):
        doc.add_paragraph("*：规划期之外，仍按规划原文测算 outside the plan period: the plan's rules applied as written")
    source = Path(case.source).name if case.source != "<case>" else "—"
    doc.add_paragraph(f"生成 Generated：xlmodel，{day.isoformat()}；输入摘要 Input digest：SHA-256 {inputs_digest(case)}"
                      f"（公司信息、各年度输入、声明、评估年度、政策编号）；数据来源 Data source：{t(source)}")
    props = doc.core_properties
    props.title, props.author, props.comments = "股东分红回报规划期分红测算 Dividend plan", "xlmodel", f"{policy.id} v{policy.version}"
    return doc


def _table(doc, path: list[PlanYear]) -> None:
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    table = doc.add_table(rows=1 + len(path), cols=len(HEADS))
    table.style = "Table Grid"
    for c, (zh, en) in enumerate(HEADS):
        cell = table.rows[0].cells[c]
        cell.text = f"{zh}\n{en}"
        for run in cell.paragraphs[0].runs:
            run.bold = True
    for i, y in enumerate(path):
        for c, text in enumerate(_row(y)):
            cell = table.rows[1 + i].cells[c]
            cell.text = plain_text(text)
            if c in (1, 3, 4, 5):  # amounts right-aligned
                cell.paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.RIGHT
