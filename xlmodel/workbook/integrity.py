"""Whether a returned workbook's own results can be trusted: one verdict for every format of `xlmodel check`.

The verdict is data (:func:`integrity`, the ``integrity`` key of ``check --json``) and a few
sentences of our own wording (:func:`verdict_lines` for the top of the text report and the Markdown
memo, :func:`short_label` for the summary table of several workbooks). Versions read from the file
are shown cut short; the renderers make every line plain or inert Markdown.
"""

from __future__ import annotations

from .. import __version__
from ..outputs import OUTPUT


def integrity(read, diffs: list[str]) -> dict:
    """The ``integrity`` object of ``check --json`` for a :class:`~.reader.WorkbookRead` and its
    :func:`~.compare.cached_differences`.

    * ``formulas_checked``: false when the workbook was built with another version of its plan
      (its formulas are then not compared: run ``xlmodel refresh``);
    * ``formulas_changed``: one entry per cell (or defined name) that differs from what xlmodel
      generates, ``sheet!cell: what changed``;
    * ``cached_results_stale``: the results the workbook shows that differ from the evaluator's
      (not recalculated since its inputs changed, or edited);
    * ``plan`` / ``xlmodel``: the versions the workbook was built with and the installed ones;
    * ``parameters_changed``: editable parameters whose value differs from the plan's (the results
      are computed with the workbook's values, as its formulas compute them);
    * ``plan_verified``: the plan the workbook was read with is one installed here (the bundled plans,
      your plan folders); false when it is the copy the workbook carries — a plan nobody here has
      reviewed, so neither its formulas nor its verdict prove anything (``plan.source`` is then
      ``carried`` and ``plan.installed_version`` null);
    * ``plan_reviewed``: false when the plan is a draft with open review items (待复核): the report then says
      so first, and the exit code is 1;
    * ``trusted``: the workbook's own results can be relied on: the plan verified and reviewed, formulas checked
      and unchanged, cached results current, parameters as the plan sets them.
    """
    from ..plans.schema import open_reviews
    from ..plans.text import policy_source

    built = read.built_with
    plan_built = built.get("xlmodel_policy_version") or None
    checked = plan_built == read.policy.version
    changed = list(read.tampered)
    stale = list(diffs)
    params = list(getattr(read, "params_changed", []))
    src = policy_source(read.policy)
    verified = src is None or src.workbook is None  # the workbook's own copy is evidence, never authority
    reviewed = not open_reviews(read.policy)  # a draft with open review items (待复核) proves nothing either
    return {
        "trusted": verified and reviewed and checked and not changed and not stale and not params,
        "plan_verified": verified,
        "plan_reviewed": reviewed,
        "formulas_checked": checked,
        "formulas_changed": changed,
        "cached_results_stale": stale,
        "parameters_changed": params,
        "plan": {"id": read.policy.id, "built_with_version": plan_built,
                 "installed_version": read.policy.version if verified else None,
                 "source": "installed" if verified else "carried"},
        "xlmodel": {"built_with_version": built.get("xlmodel_version") or None, "installed_version": __version__},
    }


def _v(version) -> str:
    """A version read from the file, as a message shows it: short."""
    s = str(version or "?")
    return s if len(s) <= 24 else s[:23] + "…"


def verdict_lines(integ: dict) -> list[tuple[str, str]]:
    """The integrity verdict as (zh, en) sentences: one per problem, or one saying the workbook is intact.
    A plan that is not installed here comes first: whatever follows was computed under it."""
    out = []
    if not integ.get("plan_verified", True):
        plan = integ["plan"]
        out.append((f"⚠ 规划未经核实：工作簿自带的规划 {_v(plan['id'])} v{_v(plan['built_with_version'])} 未安装于本机 — "
                    "以下结果不构成合规结论",
                    f"plan unverified: the workbook's own plan {_v(plan['id'])} v{_v(plan['built_with_version'])} is not "
                    "installed here — the results below are no verdict of compliance"))
    if integ["formulas_changed"]:
        n = len(integ["formulas_changed"])
        out.append((f"⚠ 公式被修改（{n} 个单元格）— 工作簿自身结果不可信；以下结果按其输入重新计算",
                    f"formulas changed in {n} cell{'s' if n != 1 else ''} — the workbook's own results are not "
                    "trusted; the results below are recomputed from its inputs"))
    if not integ["formulas_checked"]:
        plan = integ["plan"]
        out.append((f"⚠ 工作簿按规划 v{_v(plan['built_with_version'])} 生成，已安装 v{_v(plan['installed_version'])}："
                    "未核对公式 — 以下结果按其输入、以已安装的规划重新计算；请运行 xlmodel refresh",
                    f"built with plan v{_v(plan['built_with_version'])}, installed v{_v(plan['installed_version'])}: "
                    "formulas not checked — the results below are recomputed from its inputs with the installed "
                    "plan; run xlmodel refresh"))
    if integ["cached_results_stale"]:
        n = len(integ["cached_results_stale"])
        out.append((f"⚠ 工作簿显示的结果与评估不一致（{n} 项：未重新计算或被修改）— 以下结果按其输入重新计算",
                    f"the workbook's cached results differ from the evaluator's in {n} place{'s' if n != 1 else ''} "
                    "(not recalculated, or edited) — the results below are recomputed from its inputs"))
    if integ.get("parameters_changed"):
        n = len(integ["parameters_changed"])
        out.append((f"⚠ 参数与规划不一致（{n} 项，见参数表）— 以下结果按工作簿的参数计算：" + "; ".join(integ["parameters_changed"]),
                    f"{n} parameter{'s' if n != 1 else ''} differ from the plan — the results below use the workbook's: "
                    + "; ".join(integ["parameters_changed"])))
    if not out:
        out.append(("✓ 公式与生成器一致，缓存结果为最新", "formulas as generated, cached results current"))
    return [(f"完整性 Integrity: {zh}", en) for zh, en in out]


def short_label(integ: dict | None) -> str:
    """The verdict in a few characters, for the summary table of several workbooks."""
    if integ is None:
        return "—"
    parts = []
    if not integ.get("plan_verified", True):
        parts.append("规划未核实")
    if not integ.get("plan_reviewed", True):
        parts.append("规划未复核")
    if integ["formulas_changed"]:
        parts.append(f"公式被改 {len(integ['formulas_changed'])}")
    if not integ["formulas_checked"]:
        parts.append("规划版本不同")
    if integ["cached_results_stale"]:
        parts.append("结果过期")
    if integ.get("parameters_changed"):
        parts.append(f"参数改动 {len(integ['parameters_changed'])}")
    return "⚠ " + "、".join(parts) if parts else "✓ 完好"


# ---- several workbooks: the paths, the summary table ------------------------------

def workbook_paths(args: list[str]) -> tuple[list, list]:
    """The workbooks named on the command line, a folder standing for every ``*.xlsx`` in it (sorted
    by name); (paths, skipped): Excel's lock files (``~$name.xlsx``, left while a workbook is
    open) are skipped, and said so."""
    from pathlib import Path

    from ..errors import XlmodelError

    paths, skipped = [], []
    for arg in args:
        p = Path(arg)
        if not p.is_dir():
            paths.append(p)
            continue
        try:
            found = sorted((q for q in p.iterdir() if q.suffix.lower() == ".xlsx"), key=lambda q: q.name)
        except OSError as e:
            raise XlmodelError(f"{p}: 无法列出文件夹内容 cannot list the folder ({e.strerror or type(e).__name__})") from None
        books = [q for q in found if not q.name.startswith("~$")]
        skipped += [q for q in found if q.name.startswith("~$")]
        if not books:
            raise XlmodelError(f"{p}: 文件夹中没有工作簿（*.xlsx）no workbooks (*.xlsx) in this folder")
        paths += books
    return paths, skipped


#: one row of the summary: (path, report or None, integrity or None, exit code)
Row = tuple


def _cells(rows: list[Row], text) -> list[list[str]]:
    from ..rules.model import STATUS_ZH
    from ..report import _fmt

    out = []
    for i, (path, rep, integ, _code) in enumerate(rows, 1):
        if rep is None:
            out.append([str(i), text(str(path)), "", "", "无法读取", "—", ""])
            continue
        company = f"{text(rep.company.get('stock_code', ''))} {text(rep.company.get('company_name', ''))}".strip()
        out.append([str(i), text(str(path)), company, str(rep.evaluation_year), STATUS_ZH[rep.overall_status],
                    short_label(integ), _fmt(rep.min_cash_dividend, "元")])
    return out


SUMMARY_HEAD = [("#", ""), ("文件", "File"), ("公司", "Company"), ("年度", "Year"), ("结论", "Overall"),
                ("完整性", "Integrity"), (OUTPUT["min_cash_dividend"].zh, OUTPUT["min_cash_dividend"].en)]


def summary_table(rows: list[Row], width: int | None = None, wide: bool = False, color: bool | None = None) -> str:
    """The summary of several workbooks as text, one line per workbook, within ``width`` columns
    unless ``wide``: file and company are cut (…) to fit, and where even then they cannot have
    12 columns each the file goes on a line of its own beneath its row. Every line of a row
    begins with its number or with spaces, never with text from a file."""
    from ..report.terminal import MIN_WIDTH, _pad, _truncate, _width, color_enabled, paint, terminal_width
    from ..inputs.sanitize import plain_text

    color = color_enabled() if color is None else color
    cells = _cells(rows, plain_text)
    widths = [max(_width(x) for x in [zh, en, *col]) for (zh, en), col in zip(SUMMARY_HEAD, zip(*cells))]
    cols = list(range(len(widths)))
    below = False  # the file on its own line beneath the row
    w = max(MIN_WIDTH, width or terminal_width())
    if not wide:
        fixed = sum(widths) - widths[1] - widths[2] + 2 * (len(widths) - 1)
        avail = w - fixed
        fw, cw = widths[1], widths[2]
        if fw + cw > avail:
            if avail >= 24:
                half = avail // 2
                fw, cw = (fw, avail - fw) if fw <= half else (avail - cw, cw) if cw <= half else (half, avail - half)
            else:
                below, cols = True, [i for i in cols if i != 1]
                cw = max(8, w - (sum(widths[i] for i in cols if i != 2) + 2 * (len(cols) - 1)))
                fw = w - widths[0] - 2
        widths[1], widths[2] = fw, min(cw, widths[2])
        for row in cells:
            if _width(row[1]) > fw:  # cut at the start: the end of a path names the file
                tail = ""
                for ch in reversed(row[1]):
                    if _width(tail) + _width(ch) > fw - 1:
                        break
                    tail = ch + tail
                row[1] = "…" + tail
            row[2] = _truncate(row[2], widths[2])

    def line(values: list[str], status: str | None = None) -> str:
        padded = {i: _pad(values[i], widths[i]) for i in cols}
        if status:  # the overall status word in its colour
            padded[4] = paint(values[4], status, color) + padded[4][len(values[4]):]
        return "  ".join(padded[i] for i in cols).rstrip()

    lines = [f"汇总 Summary（{len(rows)} 个工作簿 workbooks）",
             line([zh for zh, _ in SUMMARY_HEAD]), line([en for _, en in SUMMARY_HEAD]),
             "  ".join("-" * widths[i] for i in cols)]
    for row, (_p, rep, _i, _c) in zip(cells, rows):
        lines.append(line(row, rep.overall_status if rep is not None else "fail"))
        if below:
            lines.append(" " * (widths[0] + 2) + row[1])
    return "\n".join(lines)


def summary_markdown(rows: list[Row]) -> str:
    """The summary of several workbooks as a Markdown table (inert text in every cell)."""
    from ..inputs.sanitize import md_text

    cells = _cells(rows, md_text)
    lines = [f"### 汇总 Summary（{len(rows)} 个工作簿 workbooks）", "",
             "| " + " | ".join(f"{zh} {en}".strip() for zh, en in SUMMARY_HEAD) + " |",
             "|---:|---|---|---:|---|---|---:|"]
    lines += ["| " + " | ".join(md_text(c) if i > 2 else c for i, c in enumerate(row)) + " |" for row in cells]
    return "\n".join(lines)
