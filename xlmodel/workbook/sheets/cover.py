"""封面 Cover: the board's page — the company, the plan, the evaluation year's results — then the sign-off
page (every rule's result and the signature lines; the printed part), the cell styles, the contents and how
to use the workbook."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell

from ... import __version__
from ...rules import catalogue as cat
from ...outputs import CHECK_FLAG, DATA_CHECK, MODEL_CHECK, OUTPUT, PART
from pathlib import Path

from ..cached import EMPTY
from ..layout import CHECK_COL_INDEX, SHEET_EN, SHEETS, q
from ..styles import fmt_key, row_height

#: the cover's columns (characters): A margin, B label / rule, C value / clause, D status, E actual, F bound kind, G bound, H unit
COVER_COLS = (2, 34, 16, 8, 17, 6, 17, 6)
PORTRAIT_WIDTH = 92  # column-width units across A4 portrait at 100% (0.4" margins): 135 × 7.47" / 10.89"
# fitted to the width, the cover's 10 pt text prints at ≥ 8 pt (a column takes about one unit more than its width)
assert (sum(COVER_COLS) + len(COVER_COLS)) * 8 <= PORTRAIT_WIDTH * 10


#: the signatures a board pack carries, in the order they sign (issue 52.3)
SIGNATURES = (("编制 Prepared by", "编制人"), ("复核 Reviewed by", "复核人"), ("财务总监 Chief financial officer", "财务总监"),
              ("董事会秘书 Board secretary", "董事会秘书"))
#: what a signature on the cover confirms, in one line
STATEMENT = ("签字确认：上列输入数据与其来源已经复核，规则结果由 xlmodel 按所列规划政策计算；本页不构成法律意见。"
             "Signed: the inputs and their source reviewed; the results computed by xlmodel under the policy named; no legal advice.")
UNIT_NOTE = "金额单位：元（本页所有金额）  Amounts in 元 throughout this page"


def write(b) -> None:
    ws, st = b.ws["cover"], b.st
    for i, width in enumerate(COVER_COLS):
        ws.set_column(i, i, width)
    ws.write(1, 1, "股东分红回报规划合规模型  Dividend return plan model", st.title)
    ws.set_row(1, 22)
    _verdict(b, ws, 3)
    ws.merge_range(4, 1, 4, len(COVER_COLS) - 1, STATEMENT, st.wrap)
    ws.set_row(4, row_height((STATEMENT, sum(COVER_COLS[1:]))))
    rows = _results(b) + _provenance(b)
    for i, (label, value, cached) in enumerate(rows):
        _result_row(b, ws, 6 + i, label, value, cached)
    # the verdict and the results above the master check, which the master check reads (an error there is one
    # on 汇总; the master check's own cell left out: no circular reference)
    last = 6 + next(i for i, row in enumerate(rows) if row[1] == f"={MODEL_CHECK.name}") - 1
    b.wb.define_name("cover_results", f"={q(SHEETS['cover'])}!$C$4:$C${last + 1}")
    r = _sign_off(b, ws, 6 + len(rows) + 1) + 2
    r = _legend(b, ws, r)
    r = _contents(b, ws, r)
    _how_to_use(b, ws, r)


def _label(o) -> str:
    """An output's label on the board page: 总体结论 Overall result."""
    return " ".join(o.board)


def _amount(o) -> str:
    """An amount's label on the board page, in the page's one unit: 最低现金分红（元）Minimum cash (元)."""
    zh, en = o.board
    return f"{zh}（{o.unit}）{en} ({o.unit})"


def _verdict(b, ws, r: int) -> None:
    """The overall result, large, at the top; beside it, where it is 不通过, the cash the minimum rules still
    ask for (the largest shortfall of the plan's and the baseline's minimum rules, read from 检查)."""
    st, o = b.st, OUTPUT["overall_status"]
    ws.set_row(r, 36)
    ws.write(r, 1, _label(o), st.section_wrap)
    ws.merge_range(r, 2, r, 3, "", st.verdict)
    ws.write_formula(r, 2, f"={o.name}", st.verdict, b.scalar("overall_status"))
    for code, sfmt in st.status.items():
        ws.conditional_format(r, 2, r, 3, {"type": "formula", "criteria": f"=$C${r + 1}=lbl_{code}", "format": sfmt})
    for code in ("check", "undetermined"):
        ws.conditional_format(r, 2, r, 3, {"type": "formula", "criteria": f"=$C${r + 1}=lbl_{code}", "format": st.status["fail"]})
    mins = [rd for rd in b.model.rules if rd.is_minimum and rd.check.shortfall is not None]
    ws.write(r, 4, "不通过时现金差额（元）Cash short (元)", st.wrap)
    if not mins:
        return
    checks = q(SHEETS["checks"])
    cells = ",".join(f"{checks}!{xl_rowcol_to_cell(b.L.check_rows[rd.id], CHECK_COL_INDEX['shortfall'], True, True)}"
                     for rd in mins)
    values = [b.value(f"{rd.id}.shortfall") for rd in mins]
    numbers = [float(v) for v in values if not isinstance(v, str) and not isinstance(v, bool)]
    cached = max([0.0, *numbers]) if b.value("overall_status") == "fail" else EMPTY
    ws.merge_range(r, 5, r, 6, "", st.out["amount"])
    ws.write_formula(r, 5, f"=IF($C${r + 1}=lbl_fail,MAX(0,{cells}),\"\")", st.out["amount"], cached)


def _provenance(b) -> list[tuple]:
    """What the cover was made from: the file, the date it was written, a digest of the inputs and their source,
    the unit (texts written when the workbook is)."""
    from ...case import inputs_digest
    from ...inputs.files import generated_on

    case = b.case
    source = Path(case.source).name if case is not None and case.source != "<case>" else "—（空白模板 a blank template）"
    day = getattr(b, "generated", None) or generated_on()
    return [
        ("文件 File", b.target.name if b.target else "—", None),
        ("生成日期 Generated on", day.isoformat(), None),
        ("输入摘要 Input digest", f"SHA-256 {inputs_digest(b.subject)}（写出时：公司信息、各年度输入、声明、评估年度、政策编号 as written: "
                                  f"company, every year's inputs, attestations, evaluation year, policy id）", None),
        ("数据来源 Data source", source, None),
        ("金额单位 Unit", UNIT_NOTE, None),
    ]


def _results(b) -> list[tuple]:
    """The board's page: (label, formula or text, cached value; None for a text). Each output's label and
    name from the table of outputs (:mod:`xlmodel.outputs`)."""
    p, o = b.policy, OUTPUT
    counts = [o[k] for k in ("fail_count", "warn_count", "missing_input_count")]
    minimum, cap = o["min_cash_dividend"], o["max_distribution"]
    return [
        ("公司 Company", "=in_company_name&\"\"", b.cached(b.subject.company.get("company_name") or "")),
        ("证券代码 Stock code", "=in_stock_code&\"\"", b.cached(b.subject.company.get("stock_code") or "")),
        ("规划 Plan", p.title_zh, None),
        ("规划文件 Plan file", f"{p.id} v{p.version}（{p.plan_years[0]}–{p.plan_years[1]}）", None),
        ("评估年度 Evaluation year", "=in_evaluation_year", float(b.year)),
        *_draft_row(p),
        (_label(o["cash_conditions_met"]), b.yes_no_formula(o["cash_conditions_met"].name),
         b.yes_no_label("cash_conditions_met")),
        (_amount(minimum), f"=IF({minimum.name}=\"\",\"\",{minimum.name})", b.in_units("min_cash_dividend", 1)),
        (_amount(cap), f"=IF({cap.name}=\"\",\"\",{cap.name})", b.in_units("max_distribution", 1)),
        *_st_row(b),
        (" / ".join(c.short_zh for c in counts) + " " + " / ".join(c.board[1] for c in counts),
         "=" + "&\" / \"&".join(c.name for c in counts), " / ".join(str(int(b.scalar(c.id))) for c in counts)),
        (_label(MODEL_CHECK), f"={MODEL_CHECK.name}", b.L.labels["ok"][0]),
        (_label(DATA_CHECK), f"={DATA_CHECK.name}", b.scalar(CHECK_FLAG.id)),
        ("生成 Generated by", f"xlmodel {__version__}", None),
    ]


def _draft_row(p) -> list[tuple]:
    """Beneath the overall result, for a plan with open review items: it is an unreviewed draft."""
    from ...plans.schema import open_reviews

    n = len(open_reviews(p))
    if not n:
        return []
    return [("规划复核 Plan review", f"⚠ 未复核的草稿（{n} 项待复核）：结论不构成合规结论 — an unreviewed draft ({n} open "
                                   f"review item{'s' if n != 1 else ''}): the result is no verdict of compliance", None)]


def _st_row(b) -> list[tuple]:
    """是/否 when the exchange risk warning is in scope; else the rule's own status (不适用 or 缺少输入)."""
    st = [r for r in b.model.rules if r.spec.kind == "st_low_dividend"]
    if not st:
        return []
    rid, o = st[0].id, OUTPUT["st_risk_warning"]
    v = b.value(o.id)
    cached = b.scalar(f"{rid}.status") if isinstance(v, str) else b.yes_no_label(o.id)
    return [(_label(o), f"=IF({o.name}=\"\",chk_{rid},IF({o.name},lbl_yes,lbl_no))", cached)]


def _result_row(b, ws, r: int, label: str, value: str, cached) -> None:
    st = b.st
    ws.write(r, 1, label, st.section_wrap)
    ws.set_row(r, row_height((label, COVER_COLS[1])))
    if cached is None:  # a text: wrapped across the page's width, never past its edge
        ws.merge_range(r, 2, r, len(COVER_COLS) - 1, value, st.wrap)
        ws.set_row(r, row_height((label, COVER_COLS[1]), (value, sum(COVER_COLS[2:]))))
    else:  # the company's name and code as text, free to run on across the empty cells to their right
        amount = value.startswith("=IF(out_") and "lbl_" not in value  # the minimum and the cap, in 元
        fmt = st.out["amount"] if amount else st.text if value.endswith("&\"\"") else st.out["gen"]
        ws.write_formula(r, 2, value, fmt, cached)
    if value in (f"={OUTPUT['overall_status'].name}", f"={MODEL_CHECK.name}", f"={DATA_CHECK.name}"):  # the result cell coloured by its value
        for code, sfmt in st.status.items():
            ws.conditional_format(r, 2, r, 2, {"type": "formula", "criteria": f"=$C${r + 1}=lbl_{code}", "format": sfmt})
        for code in ("check", "undetermined"):
            ws.conditional_format(r, 2, r, 2, {"type": "formula", "criteria": f"=$C${r + 1}=lbl_{code}",
                                               "format": st.status["fail"]})


def _legend(b, ws, r: int) -> int:
    """What the cells' colours mean. Returns the row the next block starts on."""
    st = b.st
    ws.write(r, 1, "单元格样式 Cell styles", st.section)
    ws.write(r + 1, 1, "输入（可编辑）Input", st.inp["gen"])
    ws.write(r + 1, 2, "黄色底、蓝色字：填写或从下拉列表选择", st.text)
    ws.write(r + 2, 1, "公式（锁定）Formula", st.calc["gen"])
    ws.write(r + 2, 2, "白色底、黑色字：由模型计算，工作表已保护（无密码）", st.text)
    ws.write(r + 3, 1, "输出 Output", st.out["gen"])
    ws.write(r + 3, 2, "绿色底：关键结果（名称 out_*）", st.text)
    ws.write(r + 4, 1, "通过/不通过/警告", st.text)
    ws.write(r + 4, 2, "检查表状态按颜色标示", st.text)
    return r + 6


def _contents(b, ws, r: int) -> int:
    """A link to each sheet. Returns the row the next block starts on."""
    ws.write(r, 1, "目录 Contents", b.st.section)
    for i, (key, name) in enumerate(SHEETS.items()):
        ws.write_url(r + 1 + i, 1, f"internal:{q(name)}!A1", b.st.link, string=f"{name} {SHEET_EN[key]}")
    return r + len(SHEETS) + 2


def _how_to_use(b, ws, r: int) -> None:
    ws.write(r, 1, "使用方法 How to use", b.st.section)
    steps = [
        "1. 在“输入”表填写各年度财务数据、本年度分配方案、董事会判断和治理事项（黄色单元格）。Fill in the yellow cells of 输入.",
        "2. 在“输入”表底部确认各项声明（是/否）。Confirm the attestations at the bottom of 输入.",
        "3. 在“检查”表查看每条规则的实际值、要求、差额和状态；“汇总”表给出最低现金分红与上限。Read 检查 and 汇总.",
        "4. 阈值在“参数”表，均注明条款；原文见“规划原文”表。Thresholds are on 参数 with their clauses.",
        "5. 在其他模型中引用名称 in_*、out_*、chk_*。Use the names in_*, out_*, chk_* from other models.",
    ]
    for i, s in enumerate(steps):
        ws.write(r + 1 + i, 1, s, b.st.text)


def _sign_off(b, ws, top: int) -> int:
    """The sign-off page (issue 23.6): below the cover's results, every rule in the evaluation year —
    status, actual, bound and clause, read from 检查 — then the signature lines. The cover prints this
    (its print area) on at most two A4 pages; the legend and contents below it are not printed."""
    st, L = b.st, b.L
    ws.write(top, 1, "规则检查结果（评估年度）Rule results (evaluation year)", st.section)
    head = top + 1
    heads = [PART[k].heading for k in ("rule", "clause", "status", "actual")]
    heads += [f"{PART['bound'].zh}类型", PART["bound"].heading, "单位 Unit"]
    for c, h in enumerate(heads):
        ws.write(head, 1 + c, h, st.h)
    ws.set_row(head, 30)  # its two lines (状态 / Status) shown whole
    titles = {"condition": "现金分红条件 Conditions", "requirement": "规划要求 Plan requirements",
              "regulatory": "监管底线 Regulatory baseline"}
    r = head + 1
    status_rows = []
    for role, ids in L.rule_groups().items():
        ws.write(r, 1, titles[role], st.section)
        r += 1
        for rid in ids:
            _sign_off_rule(b, ws, r, b.model.rule(rid))
            status_rows.append(r)
            r += 1
    for code, fmt in st.status.items():
        for x in status_rows:
            ws.conditional_format(x, 3, x, 3, {"type": "formula", "criteria": f"=$D${x + 1}=lbl_{code}", "format": fmt})
    for x in status_rows:  # a rule that does not apply: its whole line grey (its figures blank)
        ws.conditional_format(x, 1, x, 2, {"type": "formula", "criteria": f"=$D${x + 1}=lbl_not_applicable",
                                           "format": st.status["not_applicable"]})
    last = _signatures(b, ws, r + 1)
    ws.print_area(0, 0, last, len(COVER_COLS) - 1)
    ws.repeat_rows(head)
    return last


def _signatures(b, ws, r: int) -> int:
    """The signature lines, in the order a board pack signs: each role with a line for the printed name, the
    signature and the date. Returns the last row."""
    st = b.st
    for c, h in ((1, "职责 Role"), (2, "姓名（正楷）Printed name"), (4, "签字 Signature"), (6, "日期 Date")):
        ws.write(r, c, h, st.h)
    ws.set_row(r, 30)
    for i, (role, _) in enumerate(SIGNATURES):
        x = r + 1 + i
        ws.set_row(x, 30)
        ws.write(x, 1, role, st.text)
        ws.merge_range(x, 2, x, 3, "", st.sign_line)
        ws.merge_range(x, 4, x, 5, "", st.sign_line)
        ws.merge_range(x, 6, x, 7, "", st.sign_line)
    return r + len(SIGNATURES)


def _sign_off_rule(b, ws, r: int, rd) -> None:
    """One rule on the sign-off page: title, clause, status, actual, bound kind, bound and unit (from 检查)."""
    st, L, rid = b.st, b.L, rd.id
    checks = q(SHEETS["checks"])
    title_zh = b.title(rd.spec)[0]
    b.put(ws, r, 1, title_zh, st.wrap)
    ws.set_row(r, row_height((title_zh, COVER_COLS[1]), (rd.spec.clause, COVER_COLS[2])))
    b.put(ws, r, 2, rd.spec.clause, st.wrap)

    def at(col: str) -> str:
        return f"{checks}!{xl_rowcol_to_cell(L.check_rows[rid], CHECK_COL_INDEX[col], True, True)}"
    ws.write_formula(r, 3, f"={at('status')}", st.calc["gen"], b.scalar(f"{rid}.status"))
    na = b.value(f"{rid}.status") == "not_applicable"  # its figures blank: a rule that does not apply has none
    fk = "yes_no" if rd.check.unit == "是/否" else fmt_key(rd.check.unit)
    for c, col in ((4, "actual"), (6, "required")):
        name = f"{rid}.{col}"
        if name not in b.model.scalars:
            continue
        value = b.value(name)
        yes_no = fk == "yes_no" or name in L.yes_no  # a yes/no: 1/0 shown 是/否 (as on 检查)
        cached = b.yes_no_cached(value) if yes_no else b.cached(value)
        fmt = st.calc["yes_no" if yes_no else "gen" if isinstance(cached, bool) else fk]
        ws.write_formula(r, c, f"=IF(OR($D${r + 1}=lbl_not_applicable,{at(col)}=\"\"),\"\",{at(col)})", fmt,
                         EMPTY if na else cached)
    if rd.bound and rd.check.required is not None:
        b.put(ws, r, 5, cat.BOUND_ZH[rd.bound], st.text)
    b.put(ws, r, 7, rd.check.unit, st.text)
