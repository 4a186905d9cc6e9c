"""Whether a returned workbook's own results can be trusted: one verdict for every format of `xlmodel check`.

The verdict is data (:func:`integrity`, the ``integrity`` key of ``check --json``) and a few
sentences of our own wording (:func:`verdict_lines` for the top of the text report and the Markdown
memo, :func:`short_label` for the summary table of several workbooks). Versions read from the file
are shown cut short; the renderers make every line plain or inert Markdown.
"""

from __future__ import annotations

from .. import __version__


def integrity(read, diffs: list[str]) -> dict:
    """The ``integrity`` object of ``check --json`` for a :class:`~.reader.WorkbookRead` and its
    :func:`~.reader.cached_differences`.

    * ``formulas_checked``: false when the workbook was built with another version of its plan
      (its formulas are then not compared: run ``xlmodel refresh``);
    * ``formulas_changed``: one entry per cell (or defined name) that differs from what xlmodel
      generates, ``sheet!cell: what changed``;
    * ``cached_results_stale``: the results the workbook shows that differ from the evaluator's
      (not recalculated since its inputs changed, or edited);
    * ``plan`` / ``xlmodel``: the versions the workbook was built with and the installed ones;
    * ``trusted``: the workbook's own results can be relied on: formulas checked and unchanged,
      cached results current.
    """
    built = read.built_with
    plan_built = built.get("xlmodel_policy_version") or None
    checked = plan_built == read.policy.version
    changed = list(read.tampered)
    stale = list(diffs)
    return {
        "trusted": checked and not changed and not stale,
        "formulas_checked": checked,
        "formulas_changed": changed,
        "cached_results_stale": stale,
        "plan": {"id": read.policy.id, "built_with_version": plan_built, "installed_version": read.policy.version},
        "xlmodel": {"built_with_version": built.get("xlmodel_version") or None, "installed_version": __version__},
    }


def _v(version) -> str:
    """A version read from the file, as a message shows it: short."""
    s = str(version or "?")
    return s if len(s) <= 24 else s[:23] + "…"


def verdict_lines(integ: dict) -> list[tuple[str, str]]:
    """The integrity verdict as (zh, en) sentences: one per problem, or one saying the workbook is intact."""
    out = []
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
    if not out:
        out.append(("✓ 公式与生成器一致，缓存结果为最新", "formulas as generated, cached results current"))
    return [(f"完整性 Integrity: {zh}", en) for zh, en in out]


def short_label(integ: dict | None) -> str:
    """The verdict in a few characters, for the summary table of several workbooks."""
    if integ is None:
        return "—"
    parts = []
    if integ["formulas_changed"]:
        parts.append(f"⚠ 公式被修改 {len(integ['formulas_changed'])}")
    if not integ["formulas_checked"]:
        parts.append("⚠ 规划版本不同")
    if integ["cached_results_stale"]:
        parts.append("⚠ 结果过期")
    return "，".join(parts) or "✓ 完好"
