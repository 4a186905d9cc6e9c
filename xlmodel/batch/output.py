"""Write the results of ``xlmodel evaluate --batch`` (a DataFrame) as CSV or XLSX.

* CSV, for machines: one header row of column ids, UTF-8 with a BOM (Excel opens the Chinese
  text correctly), the values as :func:`~xlmodel.batch.evaluate.evaluate_batch` gives them (status codes,
  ``True``/``False``, dates ``YYYY-MM-DD``, blank for none).
* XLSX, for people: a summary sheet 汇总 first (counts by overall status and by rule and
  status, the company-years at risk of the exchange low-dividend warning with the cash each still
  needs, a legend), then the results sheet 结果 with a two-row header (Chinese label, column id),
  frozen below the header and right of the company columns, an autofilter, 元 amounts as
  ``#,##0.00``, ratios as percentages, dates as dates, statuses and yes/no in Chinese
  (满足/不满足, 通过/不通过/警告, 不适用, 缺少输入; 是/否) and coloured by conditional formats; the overall
  status of a row whose plan is an unreviewed draft (``plan_reviewed`` 否) carries
  :data:`~xlmodel.report.UNREVIEWED`, uncoloured, and the summary counts those rows.
  Every cell is a static value: no formula is written.

Both are written as the rows arrive (:meth:`xlmodel.batch.evaluate.Batch.frames`, a chunk at a time: memory
stays flat however long the batch), counting what the summary and the command show (:class:`Tally`);
the .xlsx is written in XlsxWriter's constant-memory mode (its part files in a private temporary
folder, removed whatever happens).

Company names and stock codes come from the input table, so every text cell is
written as inert text: in CSV through :func:`~xlmodel.inputs.sanitize.csv_cell` (a text
a spreadsheet would run as a formula gets a leading ``'``), in XLSX with
XlsxWriter's ``write_string`` (never a formula or a hyperlink). Numbers stay
numbers, blanks stay blank. Both are written atomically (:func:`~xlmodel.inputs.files.atomic_write`)
and never overwrite an existing file unless ``force``.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import numpy as np
import pandas as pd

from .. import outputs as _outputs
from ..errors import XlmodelError
from ..fields import FORECAST
from ..inputs.files import atomic_write, save_xlsx
from ..progress import progress_bar

#: the amounts in 元 among the outputs, and the endings of a rule's columns in its unit (xlmodel.outputs)
AMOUNT_COLUMNS = tuple(o.column for o in _outputs.HEADLINE if o.kind == "amount")
AMOUNT_SUFFIXES = _outputs.AMOUNT_SUFFIXES
AMOUNT_FORMAT = "#,##0.00"
PERCENT_FORMAT = "0.00%"
DATE_FORMAT = "yyyy-mm-dd"
SUMMARY_SHEET, RESULTS_SHEET = "汇总", "结果"
HEADER_ROWS = 2  #: the results sheet's header: Chinese labels, then column ids
XLSX_MAX_ROWS, XLSX_MAX_COLS, XLSX_MAX_TEXT = 1_048_576, 16_384, 32_767
CHUNK = 500  #: rows between progress updates

#: (status code, 中文 label, who has it, meaning 中文, meaning English), the legend's order
LEGEND = (
    ("met", "满足", "条件", "条件成立", "the condition holds"),
    ("not_met", "不满足", "条件", "条件不成立：以条件为前提的最低分红不适用", "the condition does not hold: minimums that depend on it do not apply"),
    ("pass", "通过", "规划要求、监管规则", "符合要求", "the requirement is met"),
    ("fail", "不通过", "规划要求、监管规则", "不符合要求：“差额”列给出缺口", "the requirement is not met: the shortfall column says by how much"),
    ("warn", "警告", "规划要求、监管规则", "建议性要求未满足，或需关注", "a recommendation is not met, or needs attention"),
    ("not_applicable", "不适用", "全部", "本年度该规则不适用（原因见 xlmodel evaluate 报告）", "the rule does not apply this year (the report says why)"),
    ("missing_input", "缺少输入", "全部", "该规则所需的输入为空", "an input the rule needs is blank"),
)
STATUS_LABELS = {code: zh for code, zh, *_ in LEGEND}
#: cell colours of the statuses (the workbook's palette: a condition is a fact, never the red of a failure)
STATUS_COLOURS = {
    "pass": {"bg_color": "#C6EFCE", "font_color": "#006100"},
    "fail": {"bg_color": "#FFC7CE", "font_color": "#9C0006", "bold": True},
    "warn": {"bg_color": "#FFEB9C", "font_color": "#9C5700"},
    "not_applicable": {"font_color": "#808080"},
    "missing_input": {"bg_color": "#F8CBAD", "font_color": "#833C0B"},
    "met": {"bg_color": "#DDEBF7", "font_color": "#1F4E79"},
    "not_met": {"bg_color": "#EDEDED", "font_color": "#404040", "italic": True},
}
_OVERALL_ORDER = ("pass", "warn", "missing_input", "fail", "not_applicable")
_RULE_ORDER = ("met", "not_met", "pass", "fail", "warn", "not_applicable", "missing_input")
_ROLE_ZH = {"condition": "条件", "requirement": "规划要求", "regulatory": "监管规则"}
_YES_NO = {True: "是", False: "否"}


def is_amount_column(name) -> bool:
    name = str(name)
    return name in AMOUNT_COLUMNS or name.endswith(AMOUNT_SUFFIXES)


def column_info(df: pd.DataFrame | dict, name: str) -> dict:
    """A column's labels and units: from ``df.attrs["columns"]`` (:func:`~xlmodel.batch.evaluate.evaluate_batch`;
    or that dict itself), else guessed from its id (a frame built by hand)."""
    got = ((df if isinstance(df, dict) else df.attrs.get("columns")) or {}).get(name)
    if got:
        return got
    from .results import _LEAD_LABELS, _OUTPUT_UNITS, RULE_PART_LABELS

    if name in _LEAD_LABELS:
        zh, en, unit = _LEAD_LABELS[name]
        return {"zh": zh, "en": en, "units": [unit]}
    if name in _OUTPUT_UNITS:
        o = _outputs.OUTPUT[name]
        return {"zh": o.label_zh, "en": o.label_en, "units": [_OUTPUT_UNITS[name]]}
    rid, _, part = name.rpartition(".")
    if rid and part in RULE_PART_LABELS:
        return {"zh": f"{rid} {RULE_PART_LABELS[part][0]}", "en": name, "rule": rid, "part": part,
                "units": ["状态"] if part == "status" else ["元"] if is_amount_column(name) else []}
    return {"zh": name, "en": name, "units": []}


def _value(v):
    """A DataFrame cell as None (blank), bool, int, float, str or a date/datetime."""
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (bool, int, float, str, dt.date)):
        return v
    if isinstance(v, pd.Timestamp):
        return v.to_pydatetime()
    return str(v)


class Tally:
    """What the 汇总 sheet and the command show, counted as the result rows are written: rows by
    plan and outside the plan years, companies, overall statuses, each rule's statuses, the
    company-years at risk of the exchange warning."""

    def __init__(self, columns: list[str]):
        self.columns = [str(c) for c in columns]
        self.n = 0
        self.key = next((c for c in ("stock_code", "company_name") if c in self.columns), None)
        self.companies: set = set()
        self.overall: dict = {}
        self.status_cols = [c for c in self.columns if c.endswith(".status")]
        self.by_rule: dict[str, dict] = {c: {} for c in self.status_cols}
        self.plans: dict[str, list[int]] = {}  # plan id -> [rows, rows outside the plan years]
        self.forecast = 0  # rows whose results rest on forecast figures (the forecast column 是)
        self.unreviewed = 0  # rows evaluated under an unreviewed draft (plan_reviewed 否): no verdict of compliance
        self._risk: list[pd.DataFrame] = []
        #: rows whose risk of the exchange warning could not be decided (its rule 缺少输入)
        self.risk_undecided = 0
        #: the units check's status columns, and the rows where it fails (a likely 万元 slip: issue 47)
        self.units_cols = [c for c in self.status_cols if c[: -len(".status")] in UNITS_RULES]
        self.units_suspect: list[str] = []  # "code year" of each row whose units check fails
        self.units_at_risk = 0  # of those, rows also shown at risk of the exchange warning

    def add(self, df: pd.DataFrame) -> None:
        self.n += len(df)
        if FORECAST.id in df:
            self.forecast += int(df[FORECAST.id].astype(bool).sum())
        if self.key:
            self.companies.update(df[self.key].tolist())
        self.unreviewed += int(_draft_rows(df).sum())
        if "overall_status" in df:
            for k, v in df["overall_status"].value_counts().items():
                self.overall[k] = self.overall.get(k, 0) + int(v)
        for c in self.status_cols:
            got = self.by_rule[c]
            for k, v in df[c].value_counts().items():
                got[k] = got.get(k, 0) + int(v)
        if "policy" in df:
            inside = df["in_plan_period"].astype(bool) if "in_plan_period" in df else None
            for pid, idx in df.groupby("policy", sort=False).indices.items():
                have = self.plans.setdefault(pid, [0, 0])
                have[0] += len(idx)
                if inside is not None:
                    have[1] += int((~inside.iloc[idx]).sum())
        risk = at_risk(df)
        if len(risk):
            self._risk.append(risk)
        self.risk_undecided += int(risk_undecided(df).sum())
        self._add_units(df)

    def _add_units(self, df: pd.DataFrame) -> None:
        """The rows whose amounts look like 万元 (the units check fails): named in the headline."""
        if not self.units_cols:
            return
        bad = np.zeros(len(df), bool)
        for c in self.units_cols:
            bad |= (df[c] == "fail").to_numpy(dtype=bool)
        if not bad.any():
            return
        rows = df[bad]
        keys = rows[self.key].astype(str) if self.key else pd.Series([""] * len(rows), index=rows.index)
        years = rows["fiscal_year"].astype(str) if "fiscal_year" in rows else ""
        self.units_suspect += (keys + " " + years).str.strip().tolist()
        if "st_risk_warning" in rows:
            self.units_at_risk += len(at_risk(rows))

    def units_lines(self) -> list[tuple[str, str]]:
        """The headline's warning (zh, en) when some rows' amounts look like 万元; empty when none do."""
        n = len(self.units_suspect)
        if not n:
            return []
        shown = "、".join(self.units_suspect[:20]) + (" …" if n > 20 else "")
        risk = (f"，其中 {self.units_at_risk:,} 行列为风险警示" if self.units_at_risk else "",
                f", {self.units_at_risk:,} of them shown at risk" if self.units_at_risk else "")
        return [(f"金额疑似以万元或亿元填写：{n:,} 个公司年度（{shown}）的金额单位核对不通过{risk[0]}；"
                 "这些行的最低额、尚需现金分红（cash_needed_to_avoid_st）与风险警示按元计算，可能相差一万倍。"
                 "表头写明单位（如 归母净利润(万元)）即按该单位换算；确属实际金额的，将 amounts_confirmed 填为 是",
                 f"amounts look like 万元 or 亿元 in {n:,} company-years ({shown}): their units check fails{risk[1]}; "
                 "their minimums, cash needed (cash_needed_to_avoid_st) and risk verdict are computed as 元 and may be "
                 "10,000× off. A header stating the unit (归母净利润(万元)) scales the column; real figures: "
                 "set amounts_confirmed to 是")]

    @property
    def outside(self) -> int:
        return sum(v[1] for v in self.plans.values())

    def at_risk(self) -> pd.DataFrame:
        """:func:`at_risk` of every row added."""
        if not self._risk:
            return pd.DataFrame(columns=[c for c in _RISK_COLUMNS if c in self.columns])
        return _sort_risk(pd.concat(self._risk, ignore_index=True))


_BOTH = "评估并写出 evaluating and writing"  # a batch is evaluated as it is written


def _chunks(data) -> tuple[list[str], int, dict, object]:
    """(columns, rows, meta, the frames) of a result DataFrame or a :class:`~xlmodel.batch.evaluate.Batch`."""
    if isinstance(data, pd.DataFrame):
        meta = dict(data.attrs)
        df = data.copy(deep=False)
        df.attrs = {}  # pandas deep-copies attrs on every operation: read them once
        return [str(c) for c in df.columns], len(df), meta, [df]
    return list(data.columns), data.n, data.meta(), None


def write_batch_xlsx(data, path, *, force: bool = False, progress: bool | None = False, tally: Tally | None = None) -> Path:
    """The summary sheet 汇总 and the results sheet 结果 (see the module doc); static values only.
    ``data`` and ``tally`` as for :func:`write_batch_csv`."""
    import tempfile

    import xlsxwriter
    from xlsxwriter.exceptions import XlsxWriterException

    path = Path(path)
    columns, n_rows, meta, frames = _chunks(data)
    n_cols = len(columns)
    if n_rows + HEADER_ROWS > XLSX_MAX_ROWS or n_cols > XLSX_MAX_COLS:
        raise XlmodelError(f"{path}: {n_rows} 行 rows × {n_cols} 列 columns 超出 Excel 工作表 do not fit in an Excel sheet "
                           f"({XLSX_MAX_ROWS - HEADER_ROWS} rows, {XLSX_MAX_COLS} columns); 请改写 .csv write a .csv instead")
    bar = progress_bar(n_rows, "写出 writing" if frames is not None else _BOTH, progress)
    tally = tally if tally is not None else Tally(columns)
    with atomic_write(path, force=force) as tmp, tempfile.TemporaryDirectory(prefix="xlmodel-") as parts:
        wb = xlsxwriter.Workbook(str(tmp), {"strings_to_formulas": False, "strings_to_urls": False,
                                            "strings_to_numbers": False, "nan_inf_to_errors": False,
                                            "constant_memory": True, "tmpdir": parts})
        try:
            st = _Styles(wb)
            summary = wb.add_worksheet(SUMMARY_SHEET)  # first: the sheet a reader opens on
            results = wb.add_worksheet(RESULTS_SHEET)
            _results_sheet(results, st, columns, n_rows, frames if frames is not None else data.frames(progress=False),
                           meta, path, bar, tally)
            bar.set_description_str("保存 saving")
            _summary_sheet(summary, st, tally, meta, path)
        except XlsxWriterException as e:
            wb.fileclosed = True
            raise XlmodelError(f"{path}: 无法写入 cannot write ({type(e).__name__}: {e})") from None
        except BaseException:
            wb.fileclosed = True  # nothing to save: the temporary file is removed
            raise
        save_xlsx(wb, path)  # disk full: the target named, never the temporary file
    bar.close()
    return path


class _Styles:
    def __init__(self, wb):
        base = {"font_name": "Microsoft YaHei", "font_size": 10}
        self.base = base
        add = wb.add_format
        self.plain = add(base)
        self.money = add({**base, "num_format": AMOUNT_FORMAT})
        self.pct = add({**base, "num_format": PERCENT_FORMAT})
        self.int = add({**base, "num_format": "0"})
        self.date = add({**base, "num_format": DATE_FORMAT})
        self.center = add({**base, "align": "center"})
        head = {**base, "bold": True, "font_color": "#FFFFFF", "text_wrap": True, "valign": "top", "border": 1}
        ids = {**base, "font_size": 9, "font_color": "#1F3864", "border": 1}
        # a rule's columns share a header colour; neighbouring rules alternate
        self.head = [add({**head, "bg_color": c}) for c in ("#1F4E79", "#2F5597")]
        self.ids = [add({**ids, "bg_color": c}) for c in ("#D9E1F2", "#B4C6E7")]
        self.title = add({**base, "bold": True, "font_size": 14, "font_color": "#1F4E79"})
        self.section = add({**base, "bold": True, "font_size": 11, "bg_color": "#D9E1F2"})
        self.th = add({**head, "bg_color": "#1F4E79"})
        self.note = add({**base, "font_color": "#595959"})  # one line, running on into the empty cells beside it
        self.bold_int = add({**base, "bold": True, "num_format": "0"})
        self.status = {k: add({**base, **v}) for k, v in STATUS_COLOURS.items()}  # static cells (the legend)
        self.cond = {k: add(v) for k, v in STATUS_COLOURS.items()}  # conditional formats: colours only


def _put(ws, path: Path, row: int, col: int, text: str, fmt, where: str) -> int:
    """write_string, refusing what Excel would truncate (32,767 UTF-16 units per cell)."""
    units = len(text.encode("utf-16-le")) // 2
    if units > XLSX_MAX_TEXT:
        raise XlmodelError(f"{path}: {where}: 文字超出 Excel 单元格的容量 a text of {units:,} characters is longer than an Excel cell holds "
                           f"({XLSX_MAX_TEXT:,}); it would be truncated — write a .csv instead")
    rc = ws.write_string(row, col, text, fmt)
    if rc:
        raise XlmodelError(f"{path}: 无法写入 cannot write {where} (XlsxWriter code {rc})")
    return 0


def _company_columns(columns: list[str]) -> int:
    """How many leading columns identify the company (frozen beside the header): up to the last of
    company_name / stock_code among the leading key columns."""
    keys = ("company_name", "stock_code", "policy", "fiscal_year")
    n = last = 0
    while n < len(columns) and columns[n] in keys:
        if columns[n] in ("company_name", "stock_code"):
            last = n + 1
        n += 1
    return last or n


def _width(name: str, units: list[str]) -> int:
    if name == "company_name":
        return 26
    if name == "policy":
        return 22
    if name in ("stock_code", "fiscal_year", "in_plan_period", FORECAST.id):
        return 10
    if "元" in units:
        return 17
    if "状态" in units or "是/否" in units:
        return 10
    return 13


def _results_sheet(ws, st: _Styles, columns: list[str], n_rows: int, frames, meta: dict, path: Path, bar,
                   tally: Tally) -> None:
    infos = [column_info(meta.get("columns") or {}, c) for c in columns]
    n_cols = len(columns)
    shade, group, prev = [], 0, None  # a rule's columns share a header colour; neighbouring rules alternate
    for name, info in zip(columns, infos):
        rule = info.get("rule")
        if rule is not None and rule != prev:
            group += 1
        prev = rule
        shade.append(group % 2 if rule is not None else 0)
    for j, (name, info) in enumerate(zip(columns, infos)):
        ws.set_column(j, j, _width(name, info.get("units") or []))
    ws.set_row(0, 64)
    # constant memory: a row is written out when the next begins, so each header row in turn
    for j, (name, info) in enumerate(zip(columns, infos)):
        _put(ws, path, 0, j, str(info.get("zh") or name), st.head[shade[j]], f"{RESULTS_SHEET}: the header of column {j + 1}")
    for j, name in enumerate(columns):
        _put(ws, path, 1, j, name, st.ids[shade[j]], f"{RESULTS_SHEET}: the header of column {j + 1}")
    ws.repeat_rows(0, HEADER_ROWS - 1)  # printed: the header on every page
    ws.set_landscape()
    ws.set_paper(9)  # A4

    writers = [_cell_writer(ws, st, path, name, info) for name, info in zip(columns, infos)]
    r = HEADER_ROWS
    for df in frames:
        tally.add(df)
        for row in _draft_marked(df).itertuples(index=False, name=None):
            for j, raw in enumerate(row):
                writers[j](r, j, raw)
            r += 1
        bar.update(len(df))
    ws.freeze_panes(HEADER_ROWS, _company_columns(columns))
    ws.print_area(0, 0, max(r - 1, HEADER_ROWS - 1), max(n_cols - 1, 0))  # the table (LibreOffice then paginates it, not 1,048,576 rows)
    ws.autofilter(HEADER_ROWS - 1, 0, HEADER_ROWS - 1 + max(n_rows, 1), max(n_cols - 1, 0))
    status_cols = [j for j, info in enumerate(infos) if "状态" in (info.get("units") or [])]
    if n_rows and status_cols:
        first, last = HEADER_ROWS, HEADER_ROWS + n_rows - 1
        ranges = " ".join(f"{_col_name(j)}{first + 1}:{_col_name(j)}{last + 1}" for j in status_cols)
        for code, label in STATUS_LABELS.items():
            ws.conditional_format(first, status_cols[0], last, status_cols[0],
                                  {"type": "cell", "criteria": "==", "value": f'"{label}"',
                                   "format": st.cond[code], "multi_range": ranges})


def _draft_rows(df: pd.DataFrame) -> np.ndarray:
    """The rows evaluated under an unreviewed draft: ``plan_reviewed`` False (not blank)."""
    from .results import REVIEWED_COLUMN

    if REVIEWED_COLUMN not in df:
        return np.zeros(len(df), bool)
    return np.array([v is False or v is np.False_ for v in df[REVIEWED_COLUMN].tolist()], dtype=bool)


def _draft_marked(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the overall status of each row whose plan is an unreviewed draft (``plan_reviewed`` False)
    as its Chinese label and :data:`~xlmodel.report.UNREVIEWED` (never a bare 通过, nor its colour)."""
    from ..report import UNREVIEWED

    draft = _draft_rows(df)
    if "overall_status" not in df or not draft.any():
        return df
    df = df.copy()
    status = df["overall_status"].astype(object)
    status[draft] = [f"{STATUS_LABELS.get(v, v)}{UNREVIEWED}" for v in status[draft].tolist()]
    df["overall_status"] = status
    return df


def _col_name(j: int) -> str:
    from xlsxwriter.utility import xl_col_to_name

    return xl_col_to_name(j)


def _cell_writer(ws, st: _Styles, path: Path, name: str, info: dict):
    """A function writing one cell of the column: statuses and yes/no as Chinese labels, numbers
    with the column's format, dates as dates, any other text as inert text."""
    units = info.get("units") or []
    status = "状态" in units
    option = "选项" in units
    num = (st.money if "元" in units or (not units and is_amount_column(name)) else st.pct if "%" in units
           else st.int if units and units[0] in ("年", "项") else st.plain)
    labels: dict = {}
    if option:
        from ..fields import ENUMS

        for choices in ENUMS.values():
            labels.update(choices)

    def put(r: int, j: int, raw) -> None:
        v = _value(raw)
        if v is None:
            return
        if isinstance(v, bool):
            rc = ws.write_string(r, j, _YES_NO[v], st.center)
        elif isinstance(v, (int, float)):
            rc = ws.write_number(r, j, v, num) if math.isfinite(v) else \
                _put(ws, path, r, j, str(v), st.plain, f"{RESULTS_SHEET} row {r + 1}, column {name!r}")
        elif isinstance(v, dt.date):
            rc = ws.write_datetime(r, j, v, st.date)
        elif status:
            rc = ws.write_string(r, j, STATUS_LABELS.get(v, v), st.plain) if v in STATUS_LABELS else \
                _put(ws, path, r, j, v, st.plain, f"{RESULTS_SHEET} row {r + 1}, column {name!r}")
        else:
            rc = _put(ws, path, r, j, labels.get(v, v) if option else v, st.plain,
                      f"{RESULTS_SHEET} row {r + 1}, column {name!r}")
        if rc:
            raise XlmodelError(f"{path}: 无法写入 cannot write row {r + 1}, column {name!r} (code {rc})")
    return put


# ---- the summary sheet ---------------------------------------------------------------------------

#: the baseline's units check (kind plausible_amounts): a row where it fails is named in the headline
UNITS_RULES = ("reg_amounts_plausible",)
#: the exchange warning's rule (the regulatory baseline's, in every batch): its shortfall is the gap between the
#: year's cash dividend the file gives and what avoids the warning (issue 51.3)
ST_RULE = "reg_st_low_dividend"
ST_GAP = f"{ST_RULE}.shortfall"
_RISK_COLUMNS = ("company_name", "stock_code", "policy", "fiscal_year", FORECAST.id, "cash_needed_to_avoid_st", ST_GAP)
#: the risk table's headings: the year's total still to declare, and the gap to the cash the file gives for
#: the year — two figures a reader easily takes one for the other, so each says which it is
RISK_LABELS = {"company_name": "公司名称 Company", "stock_code": "证券代码 Code", "policy": "规划 Policy",
               "fiscal_year": "会计年度 Year", FORECAST.id: "预测数 Forecast",
               "cash_needed_to_avoid_st": "本年须宣告现金分红合计（元）This year's cash needed in total",
               ST_GAP: "较已填本年现金分红尚差（元）Short of the year's cash given"}


def _sort_risk(df: pd.DataFrame) -> pd.DataFrame:
    keys = [c for c in ("cash_needed_to_avoid_st", "stock_code", "company_name", "fiscal_year") if c in df.columns]
    asc = [c != "cash_needed_to_avoid_st" for c in keys]
    return df.sort_values(keys, ascending=asc, na_position="last", kind="stable") if keys else df


def risk_undecided(df: pd.DataFrame) -> np.ndarray:
    """The rows whose risk of the exchange warning could not be decided: ``st_risk_warning`` blank where the
    rule lacks an input (its cash needed is blank too; a company out of the rule's scope has 0 there)."""
    if "st_risk_warning" not in df.columns or "cash_needed_to_avoid_st" not in df.columns:
        return np.zeros(len(df), bool)
    blank = np.array([not isinstance(v, (bool, np.bool_)) for v in df["st_risk_warning"].tolist()], dtype=bool)
    return blank & df["cash_needed_to_avoid_st"].isna().to_numpy()


def risk_headline(at_risk_rows: int, companies: int | None, undecided: int) -> tuple[str, str]:
    """The count of company-years at risk of the exchange warning, never without those it could not decide:
    (Chinese, English)."""
    who = f"{companies:,} 家公司 companies，" if companies is not None else ""
    zh = f"{who}{at_risk_rows:,} 个公司年度"
    en = f"{at_risk_rows:,} company-years"
    if undecided:
        zh += f"；另有 {undecided:,} 个公司年度因缺少输入未能判定（见 missing_inputs 列）"
        en += f"; {undecided:,} more could not be decided for missing inputs (see the missing_inputs column)"
    return zh, en


def risk_lines(risk: pd.DataFrame, key: str, limit: int = 5) -> list[str]:
    """The first company-years at risk (most cash first), one line each: the cash the year must declare in
    total and how far the year's cash dividend the file gives falls short of it, each named (issue 51.3)."""
    out = []
    for _, row in risk.head(limit).iterrows():
        total, gap = row.get("cash_needed_to_avoid_st"), row.get(ST_GAP)
        who = f"{row.get(key, '')} {row.get('fiscal_year', '')}".strip()
        if not isinstance(total, (int, float)) or math.isnan(total):
            continue
        line = f"{who}：本年须宣告现金分红合计 {total:,.2f} 元"
        en = f"{who}: cash this year must declare in total {total:,.2f}"
        if isinstance(gap, (int, float)) and not math.isnan(gap):
            line += f"，较已填本年现金分红尚差 {gap:,.2f} 元"
            en += f"; short of the year's cash given by {gap:,.2f}"
        out.append(f"{line} — {en}")
    if len(risk) > limit:
        out.append(f"… 另 {len(risk) - limit:,} 个见输出文件 {len(risk) - limit:,} more in the output file")
    return out


def at_risk(df: pd.DataFrame) -> pd.DataFrame:
    """The company-years with ``st_risk_warning`` true, by the cash each still needs to avoid the
    warning (``cash_needed_to_avoid_st``, most first), then company and year."""
    if "st_risk_warning" not in df.columns:
        return df.iloc[0:0]
    col = df["st_risk_warning"]
    flagged = df[col.to_numpy(dtype=bool)] if col.dtype == bool else \
        df[np.array([isinstance(v, (bool, np.bool_)) and bool(v) for v in col.tolist()], dtype=bool)]
    return _sort_risk(flagged[[c for c in _RISK_COLUMNS if c in df.columns]])


def _summary_sheet(ws, st: _Styles, tally: Tally, meta: dict, path: Path) -> None:
    """汇总: the companies at risk of the exchange warning first, then the counts, the legend, what was read how."""
    from .. import __version__

    n = tally.n
    ws.set_landscape()
    ws.set_paper(9)  # A4
    ws.fit_to_pages(1, 0)  # printed: one page wide
    ws.set_column(0, 0, 30)
    ws.set_column(1, 1, 44)
    ws.set_column(2, 12, 12)
    r = 0

    def note(text: str):
        nonlocal r
        _put(ws, path, r, 0, text, st.note, f"{SUMMARY_SHEET} row {r + 1}")
        r += 1

    ws.write_string(r, 0, "分红回报规划批量评估汇总 Batch evaluation summary", st.title)
    r += 1
    note(f"{n:,} 个公司年度 company-years，{len(tally.companies):,} 家公司 companies；xlmodel {__version__}；"
         f"明细见“{RESULTS_SHEET}”表 (details on the {RESULTS_SHEET} sheet)")
    policies = meta.get("policies") or {}
    for pid in sorted(tally.plans):
        rows_, outside = tally.plans[pid]
        plan = policies.get(pid, {})
        years = plan.get("plan_years")
        if plan.get("screen"):
            text = f"{pid}  {plan.get('title_zh', '')}：无规划，仅按监管底线筛查 a screen on the regulatory baseline alone"
        else:
            text = f"{pid}  {plan.get('title_zh', '')}" + (f"  规划期 plan years {years[0]}–{years[1]}" if years else "")
        text += f"：{rows_:,} 行 rows"
        if outside:
            text += (f"，其中 {outside:,} 行会计年度在规划期外 ({outside:,} outside the plan period: "
                     f"evaluated, marked 否 in in_plan_period)")
        note(text)
        for rid, title, why in plan.get("left_out") or []:
            note(f"  未纳入筛查 left out: {rid}  {title}（{why}）")
    if tally.forecast:
        note(f"其中 {tally.forecast:,} 个公司年度的结果基于预测数（非已披露数），在“{RESULTS_SHEET}”表 forecast 列标为“是” "
             f"({tally.forecast:,} company-years rest on forecast figures, not reported ones: marked 是 in the forecast column)")
    r += 1
    r = _risk_section(ws, st, tally, path, r)
    r = _overall_section(ws, st, tally, path, r)
    r = _legend_section(ws, st, path, r)
    r = _rule_section(ws, st, tally, meta, path, r)
    said = list(meta.get("notes") or []) + list(meta.get("warnings") or [])
    if said:
        ws.write_string(r, 0, "5. 读入说明 How the input was read", st.section)
        r += 1
        for line in said:
            note(line)


def _risk_section(ws, st: _Styles, tally: Tally, path: Path, r: int) -> int:
    """1. The company-years at risk of the exchange low-dividend warning, most cash needed first."""
    if "st_risk_warning" not in tally.columns:
        return r
    risk = tally.at_risk()
    companies = risk[tally.key].nunique() if tally.key in risk else len(risk)
    zh, en = risk_headline(len(risk), companies, tally.risk_undecided)
    ws.write_string(r, 0, f"1. 交易所低分红风险警示 At risk of the exchange low-dividend warning：{zh} ({en})", st.section)
    r += 1
    ws.write_string(r, 0, "st_risk_warning 为“是”的公司年度，按避免警示本年须宣告的现金分红合计（cash_needed_to_avoid_st）从高到低排列。"
                          "“合计”是本年现金分红须达到的总额（含文件已填的本年现金分红）；“尚差”是该总额减去已填额后仍缺的部分。"
                          "Sorted by the cash this year must declare in total to avoid the warning, most first; "
                          "“short” is that total less the year's cash dividend the file gives.", st.note)
    r += 1
    labels = RISK_LABELS
    cols = list(risk.columns)
    for j, c in enumerate(cols):
        ws.write_string(r, j, labels[c], st.th)
    r += 1
    if not len(risk):
        ws.write_string(r, 0, "无 None" if not tally.risk_undecided else
                        f"已判定的公司年度中无 none among those decided（{tally.risk_undecided:,} 个未能判定 undecided）", st.plain)
        r += 1
    for row in risk.itertuples(index=False, name=None):
        for j, (c, raw) in enumerate(zip(cols, row)):
            v = _value(raw)
            if v is None:
                continue
            if isinstance(v, bool):
                ws.write_string(r, j, _YES_NO[v], st.plain)
            elif isinstance(v, (int, float)) and math.isfinite(v):
                ws.write_number(r, j, v, st.money if c in ("cash_needed_to_avoid_st", ST_GAP) else st.int)
            else:
                _put(ws, path, r, j, str(v), st.plain, f"{SUMMARY_SHEET} row {r + 1}, column {c!r}")
        r += 1
    for zh, en in tally.units_lines():  # rows whose amounts may be 10,000× off: said beneath the table
        ws.write_string(r, 0, f"注意 {zh} / {en}", st.note)
        r += 1
    return r + 1


def _overall_section(ws, st: _Styles, tally: Tally, path: Path, r: int) -> int:
    """2. Counts by overall status."""
    if "overall_status" not in tally.columns:
        return r
    n = tally.n
    ws.write_string(r, 0, "2. 总体结果 Overall status", st.section)
    r += 1
    ws.set_row(r, 30)
    for j, h in enumerate(("状态 Status", "代码 Code", "公司年度\nCompany-years", "占比 Share")):
        ws.write_string(r, j, h, st.th)
    r += 1
    counts = tally.overall
    order = [s for s in _OVERALL_ORDER[:4]] + [s for s in counts if s not in _OVERALL_ORDER[:4]]
    for s in order:
        c = int(counts.get(s, 0))
        _put(ws, path, r, 0, STATUS_LABELS.get(s, str(s)), st.status.get(s, st.plain), f"{SUMMARY_SHEET} row {r + 1}")
        _put(ws, path, r, 1, str(s), st.plain, f"{SUMMARY_SHEET} row {r + 1}")
        ws.write_number(r, 2, c, st.int)
        ws.write_number(r, 3, c / n if n else 0, st.pct)
        r += 1
    ws.write_string(r, 0, "合计 Total", st.plain)
    ws.write_number(r, 2, n, st.bold_int)
    r += 1
    if tally.unreviewed:
        _put(ws, path, r, 0, f"其中 {tally.unreviewed:,} 个公司年度按未复核的草稿评估（plan_reviewed 为“否”），不构成合规结论 "
                             f"({tally.unreviewed:,} company-years were evaluated under an unreviewed draft: no verdict "
                             "of compliance)", st.note, f"{SUMMARY_SHEET} row {r + 1}")
        r += 1
    ws.write_string(r, 0, "总体结果：任一规划要求或监管规则不通过即为不通过；否则有缺少输入即为缺少输入；否则有警告即为警告；否则通过。条件不计入。"
                          "Overall: fail if any obligation fails, else missing input, else warning, else pass; "
                          "conditions are not counted.", st.note)
    return r + 2


def _legend_section(ws, st: _Styles, path: Path, r: int) -> int:
    """3. The statuses."""
    ws.write_string(r, 0, "3. 状态说明 Statuses", st.section)
    r += 1
    for j, h in enumerate(("状态 Status", "适用 For", "代码 Code", "含义 Meaning")):
        ws.write_string(r, j, h, st.th)
    r += 1
    for code, zh, who, mzh, men in LEGEND:
        ws.write_string(r, 0, zh, st.status[code])
        ws.write_string(r, 1, who, st.plain)
        ws.write_string(r, 2, code, st.plain)
        ws.write_string(r, 3, f"{mzh}；{men}", st.plain)  # the last column: runs on to the right
        r += 1
    for line in ("界限 Bound：下限 minimum / 上限 limit / 门槛 threshold，即“实际”与之比较的值（列标题写明种类）；"
                 "余量 margin：界限内的空间（元），负数表示超出；差额 shortfall：仅在不通过、不满足或警告时给出，其余为空。",
                 "是/否 yes/no；空白 blank：不适用或缺少输入。在规划期内为“否”：该会计年度不在规划年度内，仍按该规划评估，仅供参考。"
                 "A fiscal year outside the plan's years is evaluated against it all the same and marked 否."):
        _put(ws, path, r, 0, line, st.note, f"{SUMMARY_SHEET} row {r + 1}")
        r += 1
    return r + 1


def _rule_section(ws, st: _Styles, tally: Tally, meta: dict, path: Path, r: int) -> int:
    """4. Counts by rule and status."""
    if not tally.status_cols:
        return r
    ws.write_string(r, 0, "4. 按规则统计 By rule and status（公司年度数 company-years）", st.section)
    r += 1
    heads = ["规则 Rule", "标题 Title", "类型 Role"] + [f"{STATUS_LABELS[s]}\n{s}" for s in _RULE_ORDER] + ["合计 Total"]
    ws.set_row(r, 30)
    for j, h in enumerate(heads):
        ws.write_string(r, j, h, st.th)
    r += 1
    for c in tally.status_cols:
        info = column_info(meta.get("columns") or {}, str(c))
        rid = info.get("rule") or str(c)[:-len(".status")]
        title = str(info.get("zh") or rid)
        title = title[:-len(" 状态")] if title.endswith(" 状态") else title
        for tag in ("[条件] ", "[监管] "):
            title = title[len(tag):] if title.startswith(tag) else title
        role = info.get("role")
        counts = tally.by_rule[c]
        _put(ws, path, r, 0, rid, st.plain, f"{SUMMARY_SHEET} row {r + 1}")
        _put(ws, path, r, 1, title, st.plain, f"{SUMMARY_SHEET} row {r + 1}")
        _put(ws, path, r, 2, _ROLE_ZH.get(role, ""), st.plain, f"{SUMMARY_SHEET} row {r + 1}")
        possible = set(_RULE_ORDER) if role is None else \
            {"met", "not_met", "not_applicable", "missing_input"} if role == "condition" else \
            {"pass", "fail", "warn", "not_applicable", "missing_input"}
        for k, s in enumerate(_RULE_ORDER):
            if s in possible or s in counts:
                ws.write_number(r, 3 + k, int(counts.get(s, 0)), st.int)
        ws.write_number(r, 3 + len(_RULE_ORDER), int(sum(counts.values())), st.bold_int)
        r += 1
    return r + 1
