"""Preparing a batch: its keys (stock codes, boards, names, years), its plans (or the baseline's screen), its
attestations, forecast rows and inputs read column by column, and the layout of its results.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rules import catalogue as cat
from ..plans import schema as pol
from ..plans.loading import load_baseline
from ..case import UNIT_FIELDS, UNIT_WARNING_BELOW
from ..values import (MAX_AMOUNT, MAX_YEAR, MIN_YEAR, board_of_code, board_problem, is_blank, read_field, read_year,
                      stock_code_note)
from .columns import Header, read_header
from ..rules.consistency import CONFIRM_FIELD, year_findings
from ..errors import Problem, XlmodelError
from ..rules.compiled import round_fen_v
from ..evaluator import model_for
from ..fields import FIELDS, FORECAST, Kind
from ..plans.schema import Policy
from ..plans.loading import load_plan_by_id
from ..inputs.untrusted import did_you_mean
from .results import COUNT_COLUMNS, MISSING_COLUMN, column_labels, result_columns, unreviewed_plans
from .table import BatchError, _Labels, _encode_column, _grouped, _read_grouped, _row, _rows_text


def _part_problems(encoded: dict, n: int, rows: np.ndarray) -> list[Problem]:
    """Rows whose values contradict each other, or that no listed company's 元 figure could be: the one
    definition of :func:`xlmodel.rules.consistency.year_findings`, on the columns as arrays."""
    values = {}
    for fid, (arr, absent) in encoded.items():
        if fid in FIELDS and FIELDS[fid].kind in (Kind.AMOUNT, Kind.COUNT, Kind.DATE):
            values[fid] = np.where(absent, np.nan, np.asarray(arr, dtype=float))
    conf = encoded.get(CONFIRM_FIELD)
    confirmed = np.zeros(n, bool) if conf is None else (~conf[1] & np.asarray(conf[0], dtype=bool))
    out = []
    for fid, mask, message in year_findings(values, n, confirmed):
        bad = np.flatnonzero(mask)
        msg = message(int(bad[0]))
        if len(bad) > 1:  # the figures named are the first row's
            msg += f"（数值为第 {rows[bad[0]]} 行 figures of row {rows[bad[0]]}）"
        out.append(Problem(f"{_rows_text(bad, rows)}, {fid}", msg))
    return out


def _unit_warnings(encoded: dict, n: int, rows: np.ndarray, labels: list[str]) -> list[str]:
    present = np.zeros(n, bool)
    small = np.ones(n, bool)
    for fid in UNIT_FIELDS:
        if fid in encoded:
            arr, absent = encoded[fid]
            has = ~absent & (arr != 0)
            present |= has
            small &= ~has | (np.abs(arr) < UNIT_WARNING_BELOW)
    idx = np.flatnonzero(present & small)
    if not len(idx):
        return []
    which = ", ".join(f"row {rows[i]} ({labels[i]})" for i in idx[:10]) + (f" (+{len(idx) - 10} more)" if len(idx) > 10 else "")
    return [f"{which}: 金额像是以万元或亿元填写 amounts look like 万元 or 亿元, not 元 "
            f"({', '.join(f for f in UNIT_FIELDS if f in encoded)} all below {UNIT_WARNING_BELOW:,.0f}): "
            "every amount is read in 元 (1.2亿 is 120000000); 表头写明单位（如 归母净利润(万元)）即按该单位换算 "
            "a header stating the unit (归母净利润(万元)) scales the column"]


_SCREENS: dict[tuple, tuple] = {}


def screen_model(baseline_id: str | None = None, *, attestations: bool = False) -> tuple[cat.Model, list[tuple[str, str, str]]]:
    """A baseline-only screen: the model of the regulatory baseline's rules (``baseline_id``, by
    default the one a plan applies) with no plan, and the rules left out, ``(rule id, title, why)``.

    Every rule of the baseline file is screened except the confirmations a company gives (rules of
    kind ``attestation``: its low-payout explanation, online voting …, which no figure can show)
    and rules that read a plan's cash-dividend conditions (there is no plan). Compiled once per
    baseline file. With ``attestations`` the confirmations are kept (``xlmodel announce`` words the duties
    whose rule applies: a confirmation not given is a missing input, never a pass)."""
    bid = baseline_id or pol.Settings().regulatory_baseline
    base = load_baseline(bid)
    key = (bid, id(base), attestations)
    hit = _SCREENS.get(key)
    if hit is not None and hit[0] is base:
        return hit[1], hit[2]
    lo, hi = MIN_YEAR, MAX_YEAR
    empty = Policy.model_construct(id=base.id, version=base.version, title_zh=base.title_zh, title_en=base.title_en,
                                   company=None, plan_years=(lo, hi), adopted=None, text=None, settings=pol.Settings(),
                                   major_outlay=None, clauses={}, rules=[])
    full = cat.compile_policy(empty, base)
    reads_plan = {"cond_met", "cond_unknown"}
    left: list[tuple[str, str, str]] = []
    for rd in full.rules:
        if rd.spec.kind == "attestation" and not attestations:
            left.append((rd.id, rd.spec.title_zh, "需公司确认的事项，数据无从显示 a confirmation the company gives"))
        elif any(nm.startswith(rd.id + ".") and any(c in reads_plan for c, _ in node.calcs())
                 for nm, node in full.scalars.items()):
            left.append((rd.id, rd.spec.title_zh, "依据规划的现金分红条件，无规划不适用 reads a plan's own conditions"))
    gone = {rid for rid, _, _ in left}
    kept = base.model_copy(update={"rules": [r for r in base.rules if r.id not in gone]})
    model = cat.compile_policy(empty, kept) if gone else full
    if len(_SCREENS) > 8:
        _SCREENS.clear()
    _SCREENS[key] = (base, model, left)
    return model, left


def _headers(df: pd.DataFrame, problems: list[Problem], notes: list[str]) -> dict[str, tuple[str, Header]]:
    """Each column's header read (:func:`xlmodel.batch.columns.read_header`): field id -> (column, header)."""
    heads: dict[str, tuple[str, Header]] = {}
    names = [str(c) for c in df.columns]
    for c in sorted({c for c in names if names.count(c) > 1}):
        problems.append(Problem(f"列 column {c!r}", "出现不止一次 appears more than once"))
    for c in df.columns:
        h = read_header(str(c))
        if h.problem:
            problems.append(Problem(f"列 column {str(c)!r}", h.problem))
            continue
        if h.field in heads:
            other = heads[h.field][0]
            if other != c:
                problems.append(Problem(f"列 column {str(c)!r}", f"与列 {str(other)!r} 同为 {h.field}，请只保留一列 "
                                                                f"both this and {str(other)!r} are {h.field}: keep one"))
            continue
        heads[h.field] = (c, h)
        if h.note:
            notes.append(f"列 column {str(c)!r}: {h.note}")
    return heads


def _draft_warnings(models: dict) -> list[str]:
    """One warning per plan with open review items (:func:`xlmodel.plans.schema.open_reviews`): an unreviewed draft,
    under which no row's verdict is a pass (:func:`unreviewed_plans`; ``evaluate --batch`` exits 1)."""
    return [f"规划 {pid} 为未复核的草稿（{n} 项待复核）：按其评估的行不构成合规结论 the plan {pid} is an unreviewed draft "
            f"({n} open review item{'s' if n != 1 else ''}): no row evaluated under it is a verdict of compliance"
            for pid, n in unreviewed_plans(models).items()]


def _key_column(heads: dict, n: int, problems: list[Problem]) -> str | None:
    """The columns every batch needs: rows, the fiscal year, a company key (the stock code, else the
    name), the share count beside a per-share dividend. The key column, or None (a problem said)."""
    if n == 0:
        problems.append(Problem("(file)", "没有数据行 no data rows; expected one row per company and fiscal year"))
    if "fiscal_year" not in heads:
        problems.append(Problem("列 column 'fiscal_year'", "缺少会计年度列 required: a fiscal_year (会计年度) column"))
    key_col = "stock_code" if "stock_code" in heads else "company_name" if "company_name" in heads else None
    if key_col is None:
        problems.append(Problem("列 column 'stock_code'", "缺少证券代码列 required: a stock_code (证券代码) column, "
                                                         "or company_name (公司名称), to tell companies apart"))
    cash = heads.get("cash_dividend")
    if cash is not None and cash[1].per and "share_count" not in heads:
        problems.append(Problem(cash[1].where, "每股数字需要总股本列 a per-share figure needs a share_count (总股本) "
                                               "column to give the cash dividend"))
    return key_col


def _plans(policy, heads: dict, column, n: int, rows: np.ndarray, origin: str, source: str,
           problems: list[Problem], notes: list[str]) -> tuple[dict[str, cat.Model], list | None, np.ndarray]:
    """The plans: one id for every row, the policy column (each id looked up once, never a path), or
    none (the regulatory baseline alone). (models by id, what a screen leaves out or None, each row's id)."""
    models: dict[str, cat.Model] = {}
    left_out = None
    if policy is not None:
        pid = policy.id if isinstance(policy, Policy) else policy
        try:
            models[pid] = model_for(policy if isinstance(policy, Policy) else load_plan_by_id(policy))
        except XlmodelError as e:
            raise BatchError(source, [Problem("policy (--policy)", str(e))]) from None
        pol_col = np.full(n, pid, dtype=object)
    elif "policy" not in heads:
        model, left_out = screen_model()
        models[model.policy.id] = model
        pol_col = np.full(n, model.policy.id, dtype=object)
        notes.append(f"无规划（无 policy 列、未给 --policy）：按监管底线 {model.policy.id} 筛查每一行"
                     + (f"；未纳入 left out: {', '.join(r for r, _, _ in left_out)}（需公司确认的事项或依据规划条件的规则 "
                        "confirmations and rules on a plan's conditions)" if left_out else "")
                     + f" — no plan: every row screened against the regulatory baseline {model.policy.id} alone")
    else:
        pol_col = _read_policies(column("policy"), rows, origin, models, problems)
    return models, left_out, pol_col


def _attestations_known(models: dict[str, cat.Model]) -> tuple[dict[str, set[str]], list[str]]:
    """Each plan's attestation ids, and all of them."""
    known = {pid: set(m.attestation_ids()) for pid, m in models.items()}
    return known, (sorted(set().union(*known.values())) if known else [])


def _attestation_columns(heads: dict, models: dict, left_out, pol_col: np.ndarray, problems: list[Problem]) -> list[str]:
    """The ``attest_<rule>`` columns; one a screen does not read, or no plan of the batch has, is a problem."""
    _known, all_att = _attestations_known(models)
    attest_cols = [fid for fid in heads if fid.startswith("attest_")]
    for c in attest_cols:
        rid = c[len("attest_"):]
        if left_out is not None:
            problems.append(Problem(f"列 column {c!r}", "按监管底线筛查时不读确认事项，请删去此列 a baseline-only screen "
                                                        "reads no attestations: leave the column out"))
        elif models and rid not in all_att and len(models) == len(set(pol_col.tolist()) - {""}):
            problems.append(Problem(f"列 column {c!r}", f"不是 {', '.join(models)} 的确认事项 not an attestation of "
                                                        f"{', '.join(models)}" + did_you_mean(rid, all_att)))
    return attest_cols


def _read_years(col: pd.Series, head: Header, rows: np.ndarray, origin: str,
                problems: list[Problem]) -> tuple[np.ndarray, np.ndarray]:
    """The fiscal year of each row (each distinct value read once): (years, with None where unreadable;
    whether a row has one)."""
    inv_y, res_y = _read_grouped(lambda v: read_year(v, origin), col)
    g_year = np.empty(len(res_y), dtype=object)
    g_year[:] = [fy for fy, _ in res_y]
    bad = np.array([err is not None or fy is None for fy, err in res_y], dtype=bool)
    for i in np.flatnonzero(bad[inv_y]):
        fy, err = res_y[inv_y[i]]
        problems.append(Problem(f"{_row(rows, i)}, {head.where}", err or "缺少会计年度 required: a fiscal year such as 2024"))
    return g_year[inv_y], np.array([fy is not None for fy, _ in res_y], dtype=bool)[inv_y]


def _read_keys(col: pd.Series, key_col: str, head: Header, rows: np.ndarray, origin: str,
               problems: list[Problem], notes: list[str]) -> np.ndarray:
    """The company key of each row ("" where unreadable); a stock code's notes (codes read how)."""
    inv_k, reps_k = _grouped(col)
    res_k = [read_field(FIELDS[key_col], v, origin) for v in reps_k]
    g_key = np.empty(len(res_k), dtype=object)
    g_key[:] = [k or "" for k, _ in res_k]
    bad = np.array([err is not None or k is None for k, err in res_k], dtype=bool)
    for i in np.flatnonzero(bad[inv_k]):
        k, err = res_k[inv_k[i]]
        problems.append(Problem(f"{_row(rows, i)}, {head.where}", err or "缺少 required to tell companies apart"))
    if key_col == "stock_code":
        _code_notes(inv_k, reps_k, res_k, notes)
    return g_key[inv_k]


def _read_names(col: pd.Series, head: Header, rows: np.ndarray, origin: str, labels: _Labels,
                problems: list[Problem]) -> np.ndarray:
    """The company name of each row, beside the stock code that keys it."""
    inv_c, res_c = _read_grouped(lambda v: read_field(FIELDS["company_name"], v, origin), col)
    bad = np.array([err is not None for _, err in res_c], dtype=bool)
    for i in np.flatnonzero(bad[inv_c]):
        problems.append(Problem(f"{_row(rows, i)}, {head.where}" + (f" ({labels[i]})" if labels[i] else ""),
                                res_c[inv_c[i]][1]))
    g = np.empty(len(res_c), dtype=object)
    g[:] = [v for v, _ in res_c]
    return g[inv_c]


def _duplicates(key_vals: np.ndarray, years: np.ndarray, has_year: np.ndarray, rows: np.ndarray,
                problems: list[Problem]) -> None:
    """A company-year on more than one row is a problem at each of them."""
    valid = (key_vals != "") & has_year
    dup = pd.DataFrame({"k": key_vals, "y": years}).duplicated(keep=False).to_numpy() & valid
    for i in np.flatnonzero(dup):
        problems.append(Problem(_row(rows, i), f"公司年度重复 {key_vals[i]} {years[i]} appears more than once"))


def _encode_inputs(df: pd.DataFrame, heads: dict, attest_cols: list[str], rows: np.ndarray, origin: str,
                   labels: _Labels, problems: list[Problem]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every input column as (values, absent) arrays; a per-share dividend as the cash it gives."""
    encoded: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for fid, (c, h) in heads.items():
        if (fid in FIELDS and fid not in ("company_name", "stock_code")) or fid in attest_cols:
            encoded[fid] = _encode_column(fid, df[c], problems, rows, origin, labels, h if fid in FIELDS else None)
    cash = heads.get("cash_dividend")
    if cash is not None and cash[1].per:
        _per_share(encoded, cash[1], rows, labels, problems)
    return encoded


def _attested_elsewhere(encoded: dict, attest_cols: list[str], models: dict, pol_col: np.ndarray, rows: np.ndarray,
                        problems: list[Problem]) -> None:
    """An attestation given on a row whose plan has no such attestation is a problem."""
    known_att, all_att = _attestations_known(models)
    for c in attest_cols:
        rid = c[len("attest_"):]
        lacking = [p for p, ids in known_att.items() if rid not in ids]
        if c in encoded and rid in all_att and lacking:
            arr, absent = encoded[c]
            wrong = np.flatnonzero(~absent & np.isin(pol_col, lacking))
            if len(wrong):
                problems.append(Problem(f"{_rows_text(wrong, rows)}, {c}",
                                        f"不是规划 {pol_col[wrong[0]]} 的确认事项，请留空 not an attestation of policy "
                                        f"{pol_col[wrong[0]]}; leave it blank there"))


def _read_forecast_column(col: pd.Series, head: Header, key_vals: np.ndarray, years: np.ndarray,
                          has_year: np.ndarray, rows: np.ndarray, origin: str, labels: _Labels,
                          problems: list[Problem]) -> np.ndarray:
    """The ``forecast`` column (:data:`xlmodel.fields.FORECAST`, read as every yes/no column; blank: reported
    figures): which rows hold forecasts. A company's reported row after one of its forecast rows is a
    problem naming both rows: a forecast comes after the reported years."""
    arr, absent = _encode_column(FORECAST.id, col, problems, rows, origin, labels, head)
    forecast = np.asarray(arr, dtype=bool) & ~absent
    valid = (key_vals != "") & has_year
    if not (forecast & valid).any():
        return forecast
    company, _ = pd.factorize(pd.Series(key_vals, dtype=object))
    first = np.full(company.max() + 1, MAX_YEAR + 1, dtype=np.int64)  # each company's first forecast year
    hit = forecast & valid
    np.minimum.at(first, company[hit], years[hit])
    late = np.flatnonzero(valid & ~forecast & (years > first[company]))
    if len(late):
        fc_rows = np.flatnonzero(hit)
        first_row = {}
        for i in fc_rows[np.argsort(years[fc_rows], kind="stable")]:
            first_row.setdefault(int(company[i]), int(i))
        for i in late:
            j = first_row[int(company[i])]
            problems.append(Problem(f"{_row(rows, i)}, {head.where}" + (f" ({labels[i]})" if labels[i] else ""),
                                    f"已披露年度 {years[i]} 在预测年度 {years[j]}（{_row(rows, j)}）之后：预测数须在已披露年度之后 "
                                    f"a reported year {years[i]} after the forecast year {years[j]} (row {rows[j]}): "
                                    "forecast figures must come after the reported years"))
    return forecast


def _company_years_index(key_vals: np.ndarray, years: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(company, year) as one integer, sorted once: every offset's rows by one binary search."""
    company_code, _ = pd.factorize(pd.Series(key_vals, dtype=object))
    row_key = company_code.astype(np.int64) * 1_000_000 + (years - years.min() + 500_000)
    return row_key, np.argsort(row_key, kind="stable")


def _result_layout(models: dict[str, cat.Model], company_cols: tuple[str, ...], screen: bool,
                   forecast: bool = False) -> tuple[list[str], list[str]]:
    """The result's columns (every plan's, each once, in order) and those that hold numbers."""
    columns: list[str] = []
    for m in models.values():
        columns += [c for c in result_columns(m, company_cols, screen=screen, forecast=forecast)
                    if c not in columns and c != MISSING_COLUMN]
    columns.append(MISSING_COLUMN)
    labels = column_labels(columns, list(models.values()))
    numeric = [c for c in columns if c not in COUNT_COLUMNS + ("fiscal_year",)
               and (units := labels[c].get("units")) and all(u in ("元", "%", "项", "年") for u in units)]
    return columns, numeric


def _read_policies(col: pd.Series, rows: np.ndarray, origin: str, models: dict, problems: list[Problem]) -> np.ndarray:
    """The policy column: each id looked up once (never a path); the plan id of every row."""
    inv, reps = _grouped(col)
    g_pid, g_blank, g_key = [], [], []
    for v in reps:
        blank = is_blank(v, origin)
        p = v.strip() if isinstance(v, str) else v
        g_blank.append(blank)
        g_pid.append("" if blank or not isinstance(p, str) else p)
        g_key.append(None if blank else (type(p), p))
    for i in np.flatnonzero(np.array(g_blank, dtype=bool)[inv]):
        problems.append(Problem(f"{_row(rows, i)}, policy", "缺少规划 required: a policy id (see `xlmodel policies`)"))
    by_value: dict = {}
    for g, key in enumerate(g_key):
        if key is not None:
            by_value.setdefault(key, []).append(g)
    order = np.argsort(inv, kind="stable")
    starts = np.searchsorted(inv[order], np.arange(len(reps) + 1))
    for (_, p), groups in sorted(by_value.items(), key=lambda kv: min(order[starts[g]] for g in kv[1])):
        idx = np.sort(np.concatenate([order[starts[g]:starts[g + 1]] for g in groups]))
        try:
            models[p] = model_for(load_plan_by_id(p))
        except XlmodelError as e:
            problems.append(Problem(f"{_rows_text(idx, rows)}, policy", str(e)))
    return np.array(g_pid, dtype=object)[inv]


def _code_notes(inv: np.ndarray, reps: list, res: list[tuple], notes: list[str]) -> None:
    """A note for the codes read with their leading zeros restored (2015 -> 002015)."""
    said = [stock_code_note(v, code) for v, (code, _) in zip(reps, res)]
    hit = np.array([s is not None for s in said], dtype=bool)
    rows = np.flatnonzero(hit[inv])
    if len(rows):
        first = next(s for s in said if s is not None)
        notes.append(f"{len(rows)} 行的证券代码补足了前导零 {len(rows)} rows' stock codes had their leading zeros "
                     f"restored (e.g. {first})")


def _boards(encoded: dict, codes: np.ndarray, head: tuple[str, Header] | None, rows: np.ndarray, labels,
            problems: list[Problem], notes: list[str]) -> None:
    """The board follows from the stock code where the file gives none; a stated board that
    contradicts the code is a problem (:func:`xlmodel.case.board_problem`)."""
    uniq, inv = np.unique(codes.astype(str), return_inverse=True)
    implied = np.array([board_of_code(c) or "" for c in uniq], dtype=object)[inv.reshape(-1)]
    if head is None:
        if not (implied != "").any():
            return
        encoded["board"] = (implied, implied == "")
        notes.append(f"上市板块由证券代码推定 the board follows from the stock code ({int((implied != '').sum())} rows)")
        return
    arr, absent = encoded["board"]
    wrong = np.flatnonzero(~absent & (implied != "") & (arr != implied))
    for i in wrong:
        problems.append(Problem(f"{_row(rows, i)}, {head[1].where}" + (f" ({labels[i]})" if labels[i] else ""),
                                board_problem(codes[i], arr[i])))
    fill = absent & (implied != "")
    if fill.any():
        arr, absent = arr.copy(), absent.copy()
        arr[fill], absent[fill] = implied[fill], False
        encoded["board"] = (arr, absent)
        notes.append(f"{int(fill.sum())} 行未填上市板块，由证券代码推定 rows without a board: it follows from the stock code")


def _per_share(encoded: dict, head: Header, rows: np.ndarray, labels, problems: list[Problem]) -> None:
    """A per-share cash dividend (每股派息) as the year's cash dividend: × the share count (÷ 10 per
    10 shares), to the fen."""
    if "share_count" not in encoded:  # (said: the column is required)
        return
    dps, dps_absent = encoded["cash_dividend"]
    shares, s_absent = encoded["share_count"]
    given = ~dps_absent & (dps != 0)
    lacking = np.flatnonzero(given & s_absent)
    for i in lacking:
        problems.append(Problem(f"{_row(rows, i)}, share_count" + (f" ({labels[i]})" if labels[i] else ""),
                                f"每股派息需要总股本 a per-share dividend ({head.text}) needs the share count"))
    cash = np.where(given & ~s_absent, round_fen_v(dps / head.per * shares if head.per != 1 else dps * shares), 0.0)
    big = np.flatnonzero(np.abs(cash) >= MAX_AMOUNT)
    for i in big:
        problems.append(Problem(f"{_row(rows, i)}, {head.where}", f"现金分红超出上限 the cash dividend {cash[i]:,.2f} is "
                                                                  "beyond 1e15 元"))
    encoded["cash_dividend"] = (cash, np.zeros(len(cash), bool))
