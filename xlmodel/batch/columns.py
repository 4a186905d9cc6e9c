"""Batch column headers: one reading of a header, by field id, Chinese label or a data terminal's name.

A batch file's column is named by the field's id (``net_profit_attributable``), its Chinese or
English label (:mod:`xlmodel.fields`: 归属于上市公司股东的净利润) or a name the common data
terminals (Wind, iFinD/同花顺, Choice/东方财富, CSMAR/国泰安) export for the same figure
(归母净利润, 归属母公司股东的净利润, 营业总收入 …). Those names are one table, as data:
``column_names.csv`` beside this module (``field,name,reading,vendors,note``), listed in
docs/column-names.md. A row's ``reading``:

* ``same`` — the same figure as the field;
* ``per_share`` / ``per_10_shares`` — the field per share (每股派息) or per 10 shares (每10股派息):
  read × the row's share count (``share_count``), stated in a note;
* ``not`` — a name that looks like the field's but is another figure (净利润 includes minority
  interests; 研发费用 is only the expensed part): refused, saying what to export instead.

Names are matched after NFKC (full-width letters, digits and brackets as ASCII), without spaces
or line breaks, letters in lower case. A unit in the header — ``归母净利润(万元)``,
``营业收入（元）``, ``总股本[单位]万股``, ``赞成票比例(%)`` — is read too: the column is scaled into the
field's unit (元, 股, a fraction) and a note says so; a unit that does not fit the field is an
error. A header that is none of these gets the nearest names as a suggestion.
"""

from __future__ import annotations

import csv
import difflib
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..fields import FIELDS, FORECAST, Kind

NAMES_FILE = Path(__file__).with_name("column_names.csv")
#: the key columns of a batch beside the fields: id -> (中文 label, English label)
KEY_COLUMNS = {"policy": ("分红回报规划", "Plan (policy id)"), "fiscal_year": ("会计年度", "Fiscal year")}
#: the fields a batch column may hold: the input fields and a row's mark that its figures are forecasts
#: (:data:`xlmodel.fields.FORECAST`: not an input of any rule)
COLUMN_FIELDS = {**FIELDS, FORECAST.id: FORECAST}
READINGS = ("same", "per_share", "per_10_shares", "not")
PER = {"same": 0, "per_share": 1, "per_10_shares": 10}

#: units a header may state, by the kind of field, with the factor into the field's own unit
AMOUNT_UNITS = {"元": 1, "人民币元": 1, "元人民币": 1, "rmb": 1, "cny": 1, "千元": 1e3, "万元": 1e4, "百万元": 1e6,
                "亿元": 1e8}
COUNT_UNITS = {"股": 1, "万股": 1e4, "亿股": 1e8}
RATIO_UNITS = {"%": 0.01, "百分比": 0.01}
TIMES_UNITS = {"次": 1}
PER_SHARE_UNITS = {"元": 1, "元/股": 1, "人民币元": 1, "元/10股": 1}
_ALL_UNITS = set(AMOUNT_UNITS) | set(COUNT_UNITS) | set(RATIO_UNITS) | set(TIMES_UNITS) | set(PER_SHARE_UNITS)
_UNIT = "|".join(sorted((re.escape(u) for u in _ALL_UNITS), key=len, reverse=True))
_WIND_UNIT = re.compile(r"\[单位\]\s*([^\[\]]*?)\s*(?=\[|$)")
_WIND_PERIOD = re.compile(r"\[(?:报告期|交易日期|截止日期|年度)\]\s*([^\[\]]*?)\s*(?=\[|$)")
_TRAILING = re.compile(rf"[(\[]\s*(?:单位\s*[:：]?\s*)?({_UNIT})\s*[)\]]$", re.I)
_TRAILING_WORD = re.compile(rf"\s*[,，;；]?\s*单位\s*[:：]\s*({_UNIT})$", re.I)
_BRACKETS = str.maketrans({"【": "[", "】": "]", "〔": "[", "〕": "]", "［": "[", "］": "]", "（": "(", "）": ")"})
_SPACE = re.compile(r"[\s_]+")


def norm(text: str) -> str:
    """A header as matched: NFKC, brackets unified, no whitespace or underscores, letters lower-case."""
    return _SPACE.sub("", unicodedata.normalize("NFKC", str(text)).translate(_BRACKETS)).lower()


@dataclass(frozen=True)
class Name:
    """One name of a field: as the table (or fields.py) writes it, who exports it, how it is read."""

    field: str
    name: str
    reading: str = "same"
    vendors: str = ""
    note: str = ""


@dataclass(frozen=True)
class Header:
    """A batch column's header, read: the field it holds (None: not read), its unit and factor."""

    text: str  #: as the file has it
    field: str | None = None
    unit: str = ""  #: the unit the header states ("" when none)
    factor: float = 1.0  #: × this is the field's unit (元, 股, a fraction)
    per: int = 0  #: a per-share figure: per this many shares (0: the field itself)
    problem: str | None = None  #: why it is not read (Chinese first, then English)
    note: str | None = None  #: what a reader should know (a scaled unit, a per-share figure)

    @property
    def where(self) -> str:
        """The column in a message: ``列 归母净利润（万元） (net_profit_attributable)``, or the id alone."""
        if self.field and self.text == self.field:
            return self.field
        return f"列 column {self.text!r}" + (f" ({self.field})" if self.field else "")


def _read_table() -> list[Name]:
    with open(NAMES_FILE, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for r in rows:
        fid, reading = r["field"].strip(), r["reading"].strip()
        if fid not in COLUMN_FIELDS and fid not in KEY_COLUMNS:
            raise ValueError(f"{NAMES_FILE.name}: {r['name']!r}: no field {fid!r}")
        if reading not in READINGS:
            raise ValueError(f"{NAMES_FILE.name}: {r['name']!r}: reading {reading!r} is none of {READINGS}")
        out.append(Name(fid, r["name"].strip(), reading, r["vendors"].strip(), r["note"].strip()))
    return out


@lru_cache(maxsize=1)
def names() -> dict[str, Name]:
    """Every name a column may have, matched form -> :class:`Name`: each field's id, Chinese and
    English labels, the key columns' ids and labels, then the table. A name given twice for two
    fields is an error of the table (tests/test_batch_columns.py)."""
    out: dict[str, Name] = {}

    def add(n: Name):
        key = norm(n.name)
        have = out.get(key)
        if have is not None and (have.field, have.reading) != (n.field, n.reading):
            raise ValueError(f"{NAMES_FILE.name}: {n.name!r} is a name of both {have.field} and {n.field}")
        out.setdefault(key, n)

    for fid, f in COLUMN_FIELDS.items():
        for label in (fid, f.zh, f.en):
            add(Name(fid, label, "same", "xlmodel"))
    for cid, (zh, en) in KEY_COLUMNS.items():
        for label in (cid, zh, en):
            add(Name(cid, label, "same", "xlmodel"))
    for n in _read_table():
        add(n)
    return out


def table_rows() -> list[Name]:
    """The table as written (for the reference in the docs)."""
    return _read_table()


def _units_for(fid: str, per: int) -> dict[str, float]:
    if per:
        return PER_SHARE_UNITS
    f = COLUMN_FIELDS.get(fid)
    if f is None:
        return {}
    if f.kind == Kind.AMOUNT:
        return AMOUNT_UNITS
    if f.kind == Kind.RATIO:
        return RATIO_UNITS
    if f.kind == Kind.COUNT:
        return TIMES_UNITS if f.unit == "次" else COUNT_UNITS
    return {}


def split_unit(text: str) -> tuple[str, str, str | None]:
    """(the header without its unit, the unit or "", a period it names or None) — the unit written
    ``(万元)``, ``（万元）``, ``[万元]``, ``(单位：万元)``, ``单位：万元`` at the end, or Wind's ``[单位]万元``."""
    t = unicodedata.normalize("NFKC", str(text)).translate(_BRACKETS).strip()
    unit, period = "", None
    m = _WIND_PERIOD.search(t)
    if m:
        period = m.group(1)
        t = (t[:m.start()] + t[m.end():]).strip()
    m = _WIND_UNIT.search(t)
    if m:
        unit = m.group(1)
        t = (t[:m.start()] + t[m.end():]).strip()
    else:
        for rx in (_TRAILING, _TRAILING_WORD):
            m = rx.search(t)
            if m:
                unit, t = m.group(1), t[:m.start()].strip()
                break
    return t, unit.strip().lower() if unit.strip().lower() in ("rmb", "cny") else unit.strip(), period


def strip_period(text) -> tuple[str, str | None]:
    """(the header without Wind's period tag, the period or None): ``归母净利润 [报告期] 2022年报 [单位] 元`` ->
    (``归母净利润 [单位] 元``, ``2022年报``) — a wide export's column (one column per figure and period)."""
    t = "" if text is None else str(text)
    m = _WIND_PERIOD.search(unicodedata.normalize("NFKC", t).translate(_BRACKETS))
    if not m:
        return t, None
    flat = unicodedata.normalize("NFKC", t).translate(_BRACKETS)
    return " ".join((flat[:m.start()] + " " + flat[m.end():]).split()), m.group(1).strip()


def suggestions(text: str, n: int = 3) -> list[str]:
    """The nearest names of :func:`names` to ``text`` (as the table writes them)."""
    table = names()
    key = norm(split_unit(text)[0])
    close = difflib.get_close_matches(key, list(table), n=n, cutoff=0.6)
    shown: list[str] = []
    for k in close:
        nm = table[k]
        label = nm.name if nm.name == nm.field else f"{nm.name} ({nm.field})"
        if label not in shown:
            shown.append(label)
    return shown


def did_you_mean(text: str) -> str:
    """``"；是否应为 did you mean '归母净利润 (net_profit_attributable)'?"``, or ``""``."""
    close = suggestions(text)
    if not close:
        return ""
    return "；是否应为 did you mean " + " or ".join(repr(c) for c in close) + "?"


def read_header(text: str) -> Header:
    """The one reading of a batch column's header (see the module doc). ``attest_<rule>`` columns
    are returned as they are (which rule ids exist is the plan's to say)."""
    raw = "" if text is None else str(text)
    stripped = raw.strip()
    if stripped.startswith("attest_"):
        return Header(raw, stripped)
    base, unit, period = split_unit(stripped)
    if period is not None:
        return Header(raw, problem=(f"列名带报告期（{period}）：每行应为一个公司的一个会计年度，年度写在“会计年度”列；"
                                    f"请按行导出各年度 (a column per period: export one row per company and fiscal "
                                    f"year, the year in a fiscal_year column)"))
    hit = names().get(norm(base))
    if hit is None and unit:  # a unit-looking ending that is part of a name after all
        hit = names().get(norm(stripped))
        if hit is not None:
            base, unit = stripped, ""
    if hit is None:
        return Header(raw, problem=("未知的列名（不是字段ID、中文名称或数据终端的列名）unknown field id or column name"
                                    + did_you_mean(stripped)))
    if hit.reading == "not":
        return Header(raw, problem=f"不读入 not read：{hit.note} (not the same figure as {hit.field})")
    per = PER[hit.reading]
    note = (f"{hit.note} (a per-share figure × share_count{' ÷ 10' if per == 10 else ''})" if per
            else f"{hit.note} (read as {hit.field})" if hit.note else None)
    if not unit:
        return Header(raw, hit.field, per=per, note=note)
    units = _units_for(hit.field, per)
    if unit not in units:
        kind = COLUMN_FIELDS[hit.field].kind.value if hit.field in COLUMN_FIELDS else "text"
        fits = "、".join(units) if units else "无 none"
        return Header(raw, hit.field, unit=unit, problem=(f"单位“{unit}”不适用于 {hit.field}（可用单位 units that fit: "
                                                         f"{fits}）unit {unit!r} does not fit a {kind} field"))
    factor = units[unit]
    if factor != 1:
        what = f"按{unit}读入，已乘以 {factor:,.10g} 换算为{FIELDS[hit.field].unit_zh if not per else '元'}" \
            if factor > 1 else f"按{unit}读入，已除以 {1 / factor:,.10g}"
        scaled = (f"read in {unit}: × {factor:,.10g}" if factor > 1 else f"read in {unit}: ÷ {1 / factor:,.10g}")
        note = f"{what} ({scaled})" + (f"；{note}" if note else "")
    return Header(raw, hit.field, unit=unit, factor=float(factor), per=per, note=note)


def _known(cell) -> bool:
    if not isinstance(cell, str) or not cell.strip():
        return False
    t = cell.strip()
    return t.startswith("attest_") or norm(split_unit(t)[0]) in names() or norm(t) in names()


def header_row(rows: list[list]) -> int:
    """Which of a file's first rows is the header: the first in which at least two cells, and at least
    half of the cells that are not blank, are column names (a title above it is not); 0 when none is."""
    for k, r in enumerate(rows):
        cells = [c for c in r if isinstance(c, str) and c.strip()]
        known = sum(map(_known, cells))
        if known >= 2 and 2 * known >= len(cells):
            return k
    return 0


_READING_ZH = {"same": "同一数字 the same figure", "per_share": "每股数字 × 总股本 per share × share_count",
               "per_10_shares": "每10股数字 ÷ 10 × 总股本 per 10 shares ÷ 10 × share_count",
               "not": "不读入：另一数字 not read: another figure"}


def reference_markdown() -> str:
    """docs/column-names.md: every name a batch column may have, by field (``python -m xlmodel.batch.columns``)."""
    lines = ["# 批量文件的列名 Batch column names", "",
             "<!-- made by `python -m xlmodel.batch.columns > docs/column-names.md` from xlmodel/batch/column_names.csv: "
             "edit the table, not this page (tests/test_batch_columns.py holds the two equal) -->", "",
             "批量文件（CSV、XLSX）的每一列可用字段ID、其中文或英文名称，或数据终端（Wind、同花顺iFinD、东方财富Choice、"
             "国泰安CSMAR）导出同一数字时的列名命名；匹配时不计空格、换行、下划线与全角半角、大小写。列名可带单位："
             "`归母净利润(万元)`、`营业收入（元）`、`总股本[单位]万股`、`赞成票比例(%)`——按该单位读入并换算为字段的单位"
             "（元、股、比例），并提示换算。与某字段相似但并非同一数字的列名（如“净利润”含少数股东损益）不读入，提示应导出哪一列。",
             "",
             "A batch column is named by the field id, its Chinese or English label, or the name a data terminal "
             "(Wind, iFinD, Choice, CSMAR) exports for the same figure; names match regardless of spaces, line "
             "breaks, underscores, full-width forms and case. A unit in the header (`(万元)`, `（元）`, `[单位]万股`, "
             "`(%)`) scales the column into the field's unit (元, shares, a fraction), with a note. A name that looks "
             "like a field's but is another figure is refused, saying what to export instead.", "",
             f"The table: `xlmodel/batch/{NAMES_FILE.name}` (columns `field,name,reading,vendors,note`). Units a header may "
             f"state: amounts {'、'.join(AMOUNT_UNITS)}; shares {'、'.join(COUNT_UNITS)}; ratios {'、'.join(RATIO_UNITS)}.",
             "", "| 字段 field | 列名 name | 读法 reading | 数据终端 vendors | 说明 note |", "|---|---|---|---|---|"]
    for fid, (zh, en) in KEY_COLUMNS.items():
        lines.append(f"| `{fid}` | {zh} | {_READING_ZH['same']} | xlmodel | {en} |")
    for fid, f in COLUMN_FIELDS.items():
        lines.append(f"| `{fid}` | {f.zh} | {_READING_ZH['same']} | xlmodel | {f.en} |")
    order = list(COLUMN_FIELDS)
    for n in sorted(_read_table(), key=lambda n: (order.index(n.field) if n.field in order else -1, n.reading)):
        lines.append(f"| `{n.field}` | {n.name} | {_READING_ZH[n.reading]} | {n.vendors} | {n.note} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(reference_markdown())
