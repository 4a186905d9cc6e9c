"""A batch's results: the columns of the result table in order, their labels and units, and a chunk of
evaluated rows as that table (labelled, typed, each rule's parts).
"""

from __future__ import annotations

import numpy as np

from ..rules import catalogue as cat
from .. import outputs as _outputs
from ..rules.vector import VectorEnv
from ..fields import FIELDS, FORECAST


def unreviewed_plans(models: dict) -> dict[str, int]:
    """The plans of ``models`` (by id) that are unreviewed drafts, with their number of open review items."""
    from ..plans.schema import open_reviews

    counts = {pid: len(open_reviews(m.policy)) for pid, m in models.items()}
    return {pid: n for pid, n in counts.items() if n}


def _col(a: np.ndarray) -> np.ndarray:
    """Blank ("") results -> None/NaN for a DataFrame column."""
    if a.dtype == object:
        vals = [None if isinstance(v, str) and v == "" else v for v in a]
        if all(v is None or isinstance(v, (bool, np.bool_, str)) for v in vals):
            return np.array([v if not isinstance(v, np.bool_) else bool(v) for v in vals], dtype=object)
        return np.array([np.nan if v is None else float(v) for v in vals], dtype=float)
    return a


#: the company columns (first, as the input has them), then the row's plan and year
COMPANY_COLUMNS = ("company_name", "stock_code")
LEAD_COLUMNS = ("policy", "fiscal_year", "in_plan_period")
#: the result's mark of the rows on forecast figures (only when the input has a forecast column)
FORECAST_COLUMN = FORECAST.id
#: the inputs a row lacks for the rules it could not decide (缺少输入), each with its year; blank when none
MISSING_COLUMN = "missing_inputs"
#: right after ``overall_status``: False on every row of a plan with open review items (an unreviewed draft,
#: :func:`xlmodel.plans.schema.open_reviews`: no verdict of compliance), True elsewhere, in a baseline-only screen
#: too (the baseline is no draft); present in every batch, so the table's shape never depends on the plan
REVIEWED_COLUMN = "plan_reviewed"
#: the named outputs of every row, after the lead columns and before the rules (:data:`xlmodel.outputs.HEADLINE`)
OUTPUT_COLUMNS = tuple(o.column for o in _outputs.HEADLINE)
#: the outputs that count rules: whole numbers
COUNT_COLUMNS = tuple(o.column for o in _outputs.HEADLINE if o.kind == "count")
#: a rule's columns ``<rule>.<part>``, in this order; margin and shortfall where the rule has them
RULE_PARTS = _outputs.COLUMN_PARTS
RULE_PART_LABELS = {p.column: (p.zh, p.en.lower()) for p in _outputs.RULE_PARTS if p.column}
_LEAD_LABELS = {
    "company_name": ("公司名称", "Company name", "文本"),
    "stock_code": ("证券代码", "Stock code", "文本"),
    "policy": ("分红回报规划", "Plan (policy id)", "文本"),
    "fiscal_year": ("会计年度", "Fiscal year", "年"),
    "in_plan_period": ("在规划期内", "Fiscal year within the plan's years", "是/否"),
    REVIEWED_COLUMN: ("规划已复核", "Plan reviewed (False: an unreviewed draft, no verdict of compliance)", "是/否"),
    FORECAST_COLUMN: (FORECAST.zh, FORECAST.en, FORECAST.unit_zh),
    MISSING_COLUMN: ("未能判定的规则缺少的输入", "Inputs missing for the rules it could not decide", "文本"),
}
_OUTPUT_UNITS = {o.column: o.unit for o in _outputs.HEADLINE}
_ROLE_TAG = {"condition": "[条件] ", "regulatory": "[监管] "}
#: statuses with a shortfall: below (or beyond) the bound
_SHORT = ("fail", "not_met", "warn")


def rule_parts(rd: cat.RuleDef) -> tuple[str, ...]:
    """The parts of :data:`RULE_PARTS` a rule has: a bound when it compares with one, a margin
    when that comparison is of amounts (:attr:`~xlmodel.rules.catalogue.RuleDef.has_margin`), a shortfall
    when its kind defines one."""
    has = {"status": True, "actual": True, "bound": rd.check.required is not None, "margin": rd.has_margin,
           "shortfall": rd.check.shortfall is not None}
    return tuple(p for p in RULE_PARTS if has[p])


#: what a baseline-only screen leaves out of the lead and output columns: the plan's own results
SCREEN_OMITS = ("in_plan_period", *_outputs.SCREEN_OMITS)


def result_columns(model: cat.Model, company: tuple[str, ...] = ("stock_code",), screen: bool = False,
                   forecast: bool = False) -> list[str]:
    """The result columns of one plan's rows, in order (``company``: the company columns given;
    ``screen``: a baseline-only screen, without the plan's own results :data:`SCREEN_OMITS`;
    ``forecast``: the input has a forecast column, so the result marks the rows on forecast figures,
    :data:`FORECAST_COLUMN` after the fiscal year). :data:`REVIEWED_COLUMN` follows ``overall_status``."""
    lead = list(LEAD_COLUMNS)
    if forecast:
        lead.insert(lead.index("fiscal_year") + 1, FORECAST_COLUMN)
    outs = list(OUTPUT_COLUMNS)
    outs.insert(outs.index("overall_status") + 1, REVIEWED_COLUMN)
    cols = [c for c in COMPANY_COLUMNS if c in company] + lead + outs
    if screen:
        cols = [c for c in cols if c not in SCREEN_OMITS]
    for rd in model.rules:
        cols += [f"{rd.id}.{p}" for p in rule_parts(rd)]
    return cols + [MISSING_COLUMN]


def _unit_values(a: np.ndarray, unit: str) -> np.ndarray:
    """A calculation as result values: blank -> None/NaN; date serials -> :class:`datetime.date`."""
    a = _col(a)
    if unit == "日期" and a.dtype != object:
        from ..rules.expr import from_serial

        return np.array([from_serial(float(x)) if x >= 1 else None for x in a], dtype=object)
    return a


def _results(model: cat.Model, env, pid: str, company: dict, years: np.ndarray,
             forecast: np.ndarray | None = None) -> dict:
    """One plan's result columns, every value read from ``env.calc`` (nothing recomputed here);
    ``forecast``: each row's mark that its results rest on forecast figures (None: no such column).

    A shortfall is shown only where the rule falls short (fail, not met, warn): blank (NaN)
    where it passes, does not apply or lacks an input."""
    lo, hi = model.policy.plan_years
    res = {c: company[c] for c in COMPANY_COLUMNS if c in company}
    res["policy"] = pid
    res["fiscal_year"] = years
    if forecast is not None:
        res[FORECAST_COLUMN] = forecast
    res["in_plan_period"] = (years >= lo) & (years <= hi)
    res[REVIEWED_COLUMN] = np.full(len(years), not unreviewed_plans({pid: model}))
    if isinstance(env, VectorEnv):
        return _results_typed(model, env, res)
    for name in OUTPUT_COLUMNS:
        res[name] = _col(env.calc(name, None))
    for rd in model.rules:
        rid, unit = rd.id, rd.check.unit
        status = env.calc(f"{rid}.status", None)
        res[f"{rid}.status"] = status
        for part in rule_parts(rd)[1:]:
            name = _outputs.PART[part].calc
            vals = _unit_values(env.calc(f"{rid}.{name}", None), unit)
            if part == "shortfall":
                vals = np.where(np.isin(status, _SHORT), vals.astype(float), np.nan)
            res[f"{rid}.{part}"] = vals
    return res


def _missing_inputs(model: cat.Model, env, getter, years: np.ndarray) -> np.ndarray:
    """Per row, the inputs its undecided rules (缺少输入) lack: ``字段 field_id (year)``, joined by ``；``, each
    once; None where every rule is decided. A rule decided without some inputs (``<rule>.decided``) names
    none here: its outcome is the same whatever they are."""
    n = len(years)
    lacking: dict[tuple[str, int], np.ndarray] = {}
    for rd in model.rules:
        undecided = np.asarray(env.calc(f"{rd.id}.status", None)) == "missing_input"
        if not undecided.any():
            continue
        for cell in dict.fromkeys(rd.app_fields + rd.check_fields):
            miss = np.asarray(getter(*cell)[1], dtype=bool) & undecided
            if miss.any():
                lacking[cell] = lacking.get(cell, np.zeros(n, bool)) | miss
    out = np.full(n, None, dtype=object)
    if not lacking:
        return out
    for i in np.flatnonzero(np.logical_or.reduce(list(lacking.values()))):
        out[i] = "；".join(f"{FIELDS[f].zh if f in FIELDS else '声明确认'} {f} ({int(years[i]) + o})"
                          for (f, o), m in lacking.items() if m[i])
    return out


def _dates(a: np.ndarray) -> np.ndarray:
    """Date serials -> :class:`datetime.date` (None below 1 and for NaN), as ``from_serial`` per value."""
    out = np.full(len(a), None, dtype=object)
    ok = a >= 1
    if ok.any():
        days = a[ok].astype(np.int64).astype("timedelta64[D]")
        out[ok] = (np.datetime64("1899-12-30", "D") + days).astype(object)
    return out


def _results_typed(model: cat.Model, env: VectorEnv, res: dict) -> dict:
    """:func:`_results` from the compiled program's typed values: no per-row Python."""
    for name in OUTPUT_COLUMNS:
        res[name] = env.column(name)
    short_codes = [env.codes[s] for s in _SHORT if s in env.codes]
    for rd in model.rules:
        rid, unit = rd.id, rd.check.unit
        res[f"{rid}.status"] = env.calc(f"{rid}.status", None)
        short = np.isin(env.status_codes(f"{rid}.status"), short_codes)
        for part in rule_parts(rd)[1:]:
            name = _outputs.PART[part].calc
            vals = env.column(f"{rid}.{name}")
            if unit == "日期" and vals.dtype != object:
                vals = _dates(vals)
            if part == "shortfall":
                vals = np.where(short, vals.astype(float), np.nan)
            res[f"{rid}.{part}"] = vals
    return res


def column_labels(columns: list[str], models: list[cat.Model]) -> dict[str, dict]:
    """For each result column: ``zh`` and ``en`` labels, ``units`` (元, %, 日期, 是/否, 选项, 状态, 年, 项, 文本)
    and, for a rule's columns, ``rule``, ``part``, ``role`` and ``bound_kind``. A rule id shared by
    several plans with different titles gets their titles joined with ／."""
    out_labels = {o.column: (o.label_zh, o.label_en) for o in _outputs.HEADLINE}
    rules: dict[str, list[cat.RuleDef]] = {}
    for m in models:
        for rd in m.rules:
            rules.setdefault(rd.id, []).append(rd)
    info: dict[str, dict] = {}
    for col in columns:
        if col in _LEAD_LABELS:
            zh, en, unit = _LEAD_LABELS[col]
            info[col] = {"zh": zh, "en": en, "units": [unit]}
        elif col in _OUTPUT_UNITS:
            zh, en = out_labels.get(col, (col, col))
            info[col] = {"zh": zh, "en": en, "units": [_OUTPUT_UNITS[col]]}
        elif "." in col and col.rsplit(".", 1)[0] in rules:
            rid, part = col.rsplit(".", 1)
            rds = rules[rid]
            first = rds[0]
            titles_zh = list(dict.fromkeys(r.spec.title_zh for r in rds))
            titles_en = list(dict.fromkeys(r.spec.title_en for r in rds))
            units = ["状态"] if part == "status" else list(dict.fromkeys(r.check.unit for r in rds))
            kinds = list(dict.fromkeys(r.bound for r in rds if r.bound))
            pzh, pen = RULE_PART_LABELS.get(part, (part, part))
            if part == "bound" and len(kinds) == 1:
                pzh, pen = cat.BOUND_ZH[kinds[0]], cat.BOUND_EN[kinds[0]]
            if part in ("actual", "bound", "margin", "shortfall") and units == ["元"]:
                pzh += "（元）"
            tag = _ROLE_TAG.get(first.role, "")
            info[col] = {"zh": f"{tag}{' ／ '.join(titles_zh)} {pzh}", "en": f"{' / '.join(titles_en)}: {pen}",
                         "units": units, "rule": rid, "part": part, "role": first.role,
                         "bound_kind": kinds[0] if len(kinds) == 1 else None}
        else:
            info[col] = {"zh": col, "en": col, "units": []}
    return info
