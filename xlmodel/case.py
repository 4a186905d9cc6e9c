"""Cases: one company, one evaluation year, the years of history (DOMAIN.md §3).

Loading checks every value against the canonical field table and reports every
problem at once, naming the field and the fiscal year.

Every reader of a value — case files (YAML, JSON), batch files (CSV, XLSX, a
DataFrame), workbook cells and worksheet-function arguments — goes through
:func:`read_field` (fiscal years through :func:`read_year`), so a value means the
same wherever it is written:

* numbers: int/float, or text in plain decimal notation with optional thousands
  separators (``1,234.56``), full-width digits (``１２３４``) and, for ratios, a
  percent sign (``67%``); scientific notation in text, 万/亿 suffixes, spaces or
  other grouping are refused with a hint, never guessed. Amounts are finite and
  below 1e15 元; distribution amounts (cash dividend, buybacks, stock dividend,
  capital reserve conversion, interim cash and stock dividends) are ≥ 0; ratios 0–1; share
  counts whole and ≥ 0. Kept at 15 significant digits, as a spreadsheet does.
* yes/no: a boolean (an Excel TRUE/FALSE cell), or the text 是/否, yes/no, true/false,
  y/n in any case. The numbers 1 and 0 are NOT yes/no: the workbook's formulas
  compare with TRUE, and a 1 typed into a yes/no cell reads as no there.
* fiscal years: whole numbers 1990–2100, as a number (2021.0 from a spreadsheet is
  2021; 2021.5 is refused) or as text ("2021", "2021.0").
* stock codes: six ASCII digits (full-width digits normalised), also as vendors write them —
  ``600519.SH``/``.SS``/``.XSHG``, ``000001.SZ``, ``SZ000001``, ``sh600519``, ``430047.BJ`` — and read
  as the six digits; an exchange suffix that contradicts the code is refused. A code whose leading
  zeros were lost (the number 2015, or the text ``2015`` from a spreadsheet) reads as ``002015``
  when it is a Shenzhen code then (``000``–``003``), stated in a note (:func:`stock_code_note`);
  anything else (``=1+1``, 1.5, ``12345``) is refused. The board follows from the code
  (:func:`board_of_code`) where the input does not say it; a stated board that contradicts the
  code is refused (:func:`board_problem`).
* fiscal years: also a year-end date (``2023-12-31``, a date cell of 31 December) and
  ``2023年``, ``2023年度``, ``2023年报``/``2023年年报``, as data terminals write the period.
* text: control characters (and bidirectional overrides) refused; company names at
  most :data:`MAX_TEXT` characters, notes :data:`MAX_NOTE`, never cut short; a
  leading ``=``, ``+``, ``-`` or ``@`` is data, kept as plain text (the workbook
  writer escapes it).
* dates: date/datetime values, or text ``YYYY-MM-DD`` (also ``YYYY/M/D``,
  ``YYYY.M.D``, ``YYYY年M月D日``); from spreadsheets also date serials.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .inputs.distributions import KEY as DISTRIBUTIONS
from .inputs.distributions import read_distributions
from .rules.consistency import CONFIRM_FIELD, INTERIM_PARTS, case_findings, interim_message
from .errors import CaseError, Problem
from .fields import BOARDS, BOOL_LABELS, COMPANY_FIELDS, ENUMS, FIELDS, FORECAST, YEAR_FIELDS, Field, Kind
from .plans.loading import POLICY_ID
from .inputs.sanitize import BAD_LINE, BAD_TEXT
from .inputs.untrusted import (MAX_CASE_BYTES, InputFileError, SafeLoader, SciFloat, YamlInt, decode_utf8, did_you_mean,
                               load_json, load_yaml, read_regular, shown, yaml_int_surprise)

_Loader = SafeLoader  # the case loader (kept for callers of the old name)

MAX_AMOUNT = 1e15  # 元; beyond this 15-digit spreadsheet arithmetic loses the fen
MAX_TEXT = 200  #: characters of a company name (or any single-line text field)
MAX_NOTE = 1000  #: characters of a source/assumption note
MIN_YEAR, MAX_YEAR = 1990, 2100  #: fiscal years (the Shanghai exchange opened in December 1990)
MAX_SERIAL = 2958465  # 9999-12-31
#: below this (in 元), non-zero headline amounts of a listed company look like 万元 or 亿元
UNIT_WARNING_BELOW = 1e5
UNIT_FIELDS = ("net_profit_attributable", "total_assets", "net_assets", "revenue")

#: where a value comes from: case data (Python), files, tables, spreadsheet cells, worksheet functions
ORIGINS = ("data", "yaml", "json", "csv", "xlsx", "table", "cell", "udf")
_TABLES = ("csv", "xlsx", "table")  # NaN / NaT / pd.NA in a DataFrame are blanks
_SHEETS = ("cell", "udf", "xlsx")  # numbers in a date field are date serials

_YES = {"是", "yes", "y", "true"}
_NO = {"否", "no", "n", "false"}
# single-line text: C0/C1 controls (tab and newlines too), surrogates, non-characters, bidi overrides; notes
# may run over lines (the same patterns refuse them in policy files)
_BAD_LINE, _BAD_NOTE = BAD_LINE, BAD_TEXT
_CONTROL = _BAD_NOTE  # kept for callers of the old name
# full-width forms (U+FF01–FF5E) and the ideographic space -> ASCII: the part of NFKC that is safe for numbers
_FULLWIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_PLAIN = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]{1,3}(,[0-9]{3})+|[0-9]+)(\.[0-9]+)?")
_SCIENTIFIC = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+")
_UNIT_SUFFIX = re.compile(r"([+-]?[0-9.,]+)\s*(万元|亿元|万|亿|元)")
_DATE_TEXT = (re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[ T]00:00(?::00(?:\.0+)?)?)?"),
              re.compile(r"([0-9]{4})/([0-9]{1,2})/([0-9]{1,2})(?: 0?0:00(?::00)?)?"),
              re.compile(r"([0-9]{4})\.([0-9]{1,2})\.([0-9]{1,2})"),
              re.compile(r"([0-9]{4})年([0-9]{1,2})月([0-9]{1,2})日"))
_YEAR_TEXT = re.compile(r"([0-9]{4})(?:\.0+|年|年度|年报|年年报|年度报告|A)?")
_YEAR_END = re.compile(r"([0-9]{4})(?:[-/.]12[-/.]31|年12月31日)(?:[ T]00:00(?::00)?)?")
_YAML_BOOL_HINT = ("; YAML reads an unquoted yes/no/on/off/true/false as a yes/no value: quote the text")


@dataclass
class Case:
    policy: str
    evaluation_year: int
    company: dict[str, Any] = field(default_factory=dict)
    years: dict[int, dict[str, Any]] = field(default_factory=dict)  # fiscal year -> field -> value
    attestations: dict[str, bool] = field(default_factory=dict)  # rule id -> confirmed (evaluation year)
    source: str = "<case>"
    notes: dict[str, str] = field(default_factory=dict)  # field id -> source / assumption note
    #: things worth a second look that are not errors (amounts that look like 万元); computed from the years
    warnings: list[str] = field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    #: the years whose figures are forecasts (``forecast: true``), each after the evaluation year
    forecast_years: frozenset[int] = frozenset()

    def __post_init__(self):
        if self.warnings is None:
            self.warnings = unit_warnings(self.years)

    def value(self, fid: str, year: int):
        return self.years.get(year, {}).get(fid)

    def to_dict(self) -> dict:
        def enc(v):
            return v.isoformat() if isinstance(v, dt.date) else v
        out: dict[str, Any] = {"policy": self.policy, "evaluation_year": self.evaluation_year}
        if self.company:
            out["company"] = {k: enc(v) for k, v in self.company.items()}
        out["years"] = [{"fiscal_year": y, **({"forecast": True} if y in self.forecast_years else {}),
                         **{k: enc(v) for k, v in self.years[y].items()}} for y in sorted(self.years)]
        if self.attestations:
            out["attestations"] = dict(self.attestations)
        if self.notes:
            out["notes"] = dict(self.notes)
        return out


# ---- one reading of every field -------------------------------------------------------------------

def is_blank(v: Any, origin: str = "data") -> bool:
    """None or whitespace-only text; in tables also NaN, NaT and pd.NA."""
    if v is None:
        return True
    if isinstance(v, str):
        return not v.strip()
    if origin in _TABLES:
        if isinstance(v, float) and math.isnan(v):
            return True
        if type(v).__name__ in ("NAType", "NaTType"):
            return True
        if isinstance(v, numbers.Real) and not isinstance(v, (bool, int)) and v != v:  # numpy NaN
            return True
    return False


def _ascii(s: str) -> str:
    return s.translate(_FULLWIDTH).strip()


def _is_bool(v: Any) -> bool:
    return isinstance(v, (bool, np.bool_))


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not _is_bool(v)


def plain_number(v: Any) -> float | None:
    """A float for a plain number (int/float, or plain ASCII decimal text), else None.

    The batch path reads such values vectorised; :func:`read_field` gives the same float."""
    t = type(v)
    if t is float or t is int:
        return float(v)
    if t is str and _PLAIN.fullmatch(v):
        return float(v)
    return None


_WHAT = {Kind.AMOUNT: "an amount in 元 (a number)", Kind.RATIO: "a ratio between 0 and 1 (e.g. 0.67 for 67%)",
         Kind.COUNT: "a whole, non-negative number of shares"}


def _number_text(s: str, kind: Kind, origin: str) -> tuple[float | None, str | None]:
    t = _ascii(s)
    pct = kind == Kind.RATIO and t.endswith("%")
    core = t[:-1].rstrip() if pct else t
    if _NUMBER_TEXT.fullmatch(core):
        x = float(core.replace(",", ""))
        return (x / 100 if pct else x), None
    got = f"expected {_WHAT[kind]}, got {shown(s)}"
    if _SCIENTIFIC.fullmatch(core):
        return None, f"{got}: {_exponent_hint(origin)}"
    m = _UNIT_SUFFIX.fullmatch(core)
    if m and kind == Kind.AMOUNT:
        if m.group(2) == "元":
            return None, f"{got}: write the number only, in 元"
        factor = 1e4 if m.group(2).startswith("万") else 1e8
        num = m.group(1).replace(",", "")
        hint = ""
        if _PLAIN.fullmatch(num):
            hint = f" ({core} = {float(num) * factor:,.2f} 元)"
        return None, f"{got}: write amounts in 元{hint}"
    if re.fullmatch(r"\(\s*[0-9.,]+\s*\)", core):
        return None, f"{got}: write a negative amount with a minus sign, e.g. -1000"
    return None, got


def _exponent_hint(origin: str) -> str:
    why = {"yaml": "(unquoted, YAML 1.1 reads 1e308 or 1.0e3 as text, 1.0e+3 as a number)",
           "csv": "(Excel saves a long number so when the column is too narrow, and the digits are lost)",
           "xlsx": "(a number typed so is a number; this cell is text)",
           "cell": "(a number typed so is a number; this cell is text)"}.get(origin, "")
    return "exponent notation is not read in any file" + (f" {why}" if why else "") + \
        "; write the number in full, e.g. 300000000"


def read_number(f: Field, v: Any, origin: str = "data") -> tuple[float | None, str | None]:
    """An amount, ratio or share count (see the module doc); (None, None) for a blank."""
    k = f.kind
    if is_blank(v, origin):
        return None, None
    if isinstance(v, YamlInt) and (why := yaml_int_surprise(v)):
        return None, f"expected {_WHAT[k]}, got {v.yaml_text}: {why}; write it without leading zeros or quote it"
    if isinstance(v, SciFloat):
        return None, f"expected {_WHAT[k]}, got {v.text}: {_exponent_hint(origin)}"
    if _is_number(v):
        try:
            x = float(v)
        except (OverflowError, TypeError, ValueError):
            return None, f"expected a finite amount below 1e15, got {shown(v)}"
    elif isinstance(v, str):
        x, err = _number_text(v, k, origin)
        if err:
            return None, err
    else:
        return None, f"expected {_WHAT[k]}, got {shown(v)}"
    if not math.isfinite(x) or abs(x) >= MAX_AMOUNT:
        return None, f"expected a finite amount below 1e15, got {shown(v)}"
    if k == Kind.AMOUNT and f.default_zero and x < 0:
        return None, f"expected an amount ≥ 0 in 元 (a distribution cannot be negative), got {shown(v)}"
    if k == Kind.RATIO and not 0 <= x <= 1:
        return None, f"expected a ratio between 0 and 1 (e.g. 0.67 for 67%), got {shown(v)}"
    if k == Kind.COUNT and (x < 0 or x != int(x)):
        return None, f"expected a whole, non-negative number of shares, got {shown(v)}"
    # a spreadsheet keeps 15 significant digits: 0.1 + 0.2 is 0.3 there, and so here
    return float(f"{x:.15g}"), None


def _read_bool(v: Any, origin: str) -> tuple[bool | None, str | None]:
    if _is_bool(v):
        return bool(v), None
    if isinstance(v, str):
        t = _ascii(v).lower()
        if t in _YES:
            return True, None
        if t in _NO:
            return False, None
    elif _is_number(v):
        return None, (f"expected yes/no (是 or 否, TRUE/FALSE), got the number {shown(v)}: 1 and 0 are not read "
                      "as yes/no (the workbook's formulas would not read them so either)")
    return None, f"expected yes/no (是 or 否, TRUE/FALSE), got {shown(v)}"


def _read_enum(f: Field, v: Any, origin: str) -> tuple[str | None, str | None]:
    choices = ENUMS.get(f.id) or {c: c for c in f.choices}
    opts = ", ".join(f"{c} ({z})" for c, z in choices.items())
    if isinstance(v, str):
        t = _ascii(v)
        if t in choices:
            return t, None
        for code, zh in choices.items():
            if t == zh or t == _ascii(zh) or t.lower() == code:
                return code, None
        if f.id == "board":
            if t in BOARD_ALIASES:
                return BOARD_ALIASES[t], None
            if t == "主板":
                return None, ("“主板”未说明交易所：请写上交所主板（sse_main）或深交所主板（szse_main），或不填"
                              "（由证券代码推定）“主板” does not say which exchange: write sse_main or szse_main, "
                              "or leave it blank: the board follows from the stock code")
    hint = _YAML_BOOL_HINT if isinstance(v, bool) and origin == "yaml" else ""
    return None, f"expected one of {opts} (a choice from the list); got {shown(v)}{hint}"


def _read_date(v: Any, origin: str) -> tuple[dt.date | None, str | None]:
    got = f"expected a date (YYYY-MM-DD), got {shown(v)}"
    d = None
    if isinstance(v, dt.datetime):
        d = v.date()
    elif isinstance(v, dt.date):
        d = v
    elif _is_number(v) and origin in _SHEETS:
        try:
            x = float(v)
        except (OverflowError, TypeError, ValueError):
            return None, got
        if not (math.isfinite(x) and 1 <= x <= MAX_SERIAL):
            return None, got
        from .rules.expr import from_serial

        d = from_serial(x)
    elif isinstance(v, str):
        t = _ascii(v)
        for rx in _DATE_TEXT:
            m = rx.fullmatch(t)
            if m:
                try:
                    d = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
                except ValueError:
                    return None, f"{got}: there is no such day"
                break
    if d is None:
        return None, got
    return d, None


def _bad_char(t: str, pattern: re.Pattern) -> str | None:
    m = pattern.search(t)
    if m:
        return f"text contains a control character (U+{ord(m.group()):04X}): {shown(t)}"
    return None


# ---- stock codes and boards -------------------------------------------------------------------------

#: a code's first digits -> its board (A shares of the Shanghai, Shenzhen and Beijing exchanges);
#: a code of no listed prefix (B shares, funds, bonds, the old third board) gives no board
BOARD_PREFIXES: dict[str, str] = {
    **dict.fromkeys(("600", "601", "603", "605"), "sse_main"), **dict.fromkeys(("688", "689"), "star"),
    **dict.fromkeys(("000", "001", "002", "003"), "szse_main"), **dict.fromkeys(("300", "301", "302"), "chinext"),
    **dict.fromkeys(("43", "83", "87", "920"), "bse"),
}
#: exchange suffixes and prefixes as vendors write them -> exchange
CODE_AFFIXES = {"SH": "SSE", "SS": "SSE", "XSHG": "SSE", "SZ": "SZSE", "XSHE": "SZSE", "BJ": "BSE", "BSE": "BSE"}
EXCHANGE_ZH = {"SSE": "上海证券交易所", "SZSE": "深圳证券交易所", "BSE": "北京证券交易所"}
_CODE_TEXT = re.compile(r"(?:(SH|SZ|BJ)\.?)?([0-9]{1,6})(?:\.(SH|SS|SZ|BJ|XSHG|XSHE|BSE))?")
#: board names as data terminals write them (上市板块) -> board; 主板 alone does not say which exchange
BOARD_ALIASES = {"上证主板": "sse_main", "沪市主板": "sse_main", "上海主板": "sse_main", "上交所主板": "sse_main",
                 "深证主板": "szse_main", "深市主板": "szse_main", "深圳主板": "szse_main", "中小板": "szse_main",
                 "中小企业板": "szse_main", "创业板": "chinext", "科创板": "star", "北证": "bse", "北交所": "bse",
                 "北京证券交易所": "bse"}


def board_of_code(code: str | None) -> str | None:
    """The board a six-digit code is listed on (:data:`BOARD_PREFIXES`), or None."""
    if not isinstance(code, str) or len(code) != 6:
        return None
    return BOARD_PREFIXES.get(code[:3]) or BOARD_PREFIXES.get(code[:2])


def exchange_of_code(code: str) -> str | None:
    """SSE, SZSE or BSE for a six-digit code whose exchange its digits tell, else None."""
    if code[:1] == "6" or code[:3] == "900":
        return "SSE"
    if code[:1] in ("0", "2", "3"):
        return "SZSE"
    if code[:1] in ("4", "8") or code[:3] == "920":
        return "BSE"
    return None


def board_problem(code: str | None, board: str | None) -> str | None:
    """Why a stated ``board`` cannot be the board of ``code`` (Chinese first), or None."""
    implied = board_of_code(code)
    if implied is None or board is None or board == implied:
        return None
    return (f"上市板块为{BOARDS.get(board, board)}（{board}），而证券代码 {code} 属于{BOARDS[implied]}（{implied}）："
            f"请更正其一，或不填上市板块（由代码推定）the board {board} contradicts the stock code {code} "
            f"({implied}); correct one, or leave the board blank: it follows from the code")


def _padded(digits: str, v: Any) -> tuple[str | None, str | None]:
    """A code written with fewer than six digits: its leading zeros lost, if it is a Shenzhen code then."""
    if len(digits) == 6:
        return digits, None
    code = digits.rjust(6, "0")
    if board_of_code(code) is None:
        return None, (f"证券代码应为6位数字 expected a 6-digit stock code, got {shown(v)} ({code} with its leading "
                      f"zeros is no listed code)")
    return code, None


def _read_stock_code(v: Any, origin: str) -> tuple[str | None, str | None]:
    if type(v) is str and len(v) == 6 and v.isascii() and v.isdigit():
        return v, None  # the common case: six ASCII digits
    want = "证券代码应为6位数字（可带交易所后缀，如 600519.SH）expected a 6-digit stock code (such as 600519 or 600519.SH)"
    if isinstance(v, YamlInt):  # YAML's own reading of 002015 (octal) is not the code: its text is
        text = v.yaml_text
        if not re.fullmatch(r"[0-9]{1,6}", text):
            why = yaml_int_surprise(v)
            return None, f"{want}, got {text}" + (f": {why}; quote it" if why else "")
        return _padded(text, text)
    if _is_number(v):
        try:
            x = float(v)
        except (OverflowError, TypeError, ValueError):
            return None, f"{want}, got the number {shown(v)}"
        if not (math.isfinite(x) and x == int(x) and 0 < x < 1e6):
            return None, f"{want}, got the number {shown(v)}"
        return _padded(str(int(x)), v)
    if not isinstance(v, str):
        return None, f"{want}, got {shown(v)}"
    t = _ascii(v).upper()
    m = _CODE_TEXT.fullmatch(t)
    if not m:
        return None, f"{want}, got {shown(v)}"
    pre, digits, suf = m.groups()
    if pre and suf:
        return None, f"{want}, got {shown(v)} (an exchange both before and after the code)"
    if len(digits) < 6:
        if pre or suf:
            return None, f"{want}, got {shown(v)}"
        return _padded(digits, v)
    affix = pre or suf
    ex = exchange_of_code(digits)
    if affix and ex is not None and CODE_AFFIXES[affix] != ex:
        return None, (f"证券代码 {digits} 属于{EXCHANGE_ZH[ex]}，与 {affix}（{EXCHANGE_ZH[CODE_AFFIXES[affix]]}）不符 "
                      f"the code {digits} is listed in {ex}, not {CODE_AFFIXES[affix]}: {shown(v)}")
    return digits, None


def stock_code_note(raw: Any, code: str | None) -> str | None:
    """A note when a code was read with its leading zeros restored (2015 -> 002015), else None."""
    if code is None or raw is code:
        return None
    text = raw.yaml_text if isinstance(raw, YamlInt) else raw
    if _is_number(text) and not isinstance(text, YamlInt):
        shown_raw = str(int(float(text)))
    elif isinstance(text, str):
        shown_raw = _ascii(text)
    else:
        return None
    if re.fullmatch(r"[0-9]{1,5}", shown_raw):
        return f"证券代码 {shown_raw} 读作 {code}（补足前导零）stock code {shown_raw} read as {code} (leading zeros restored)"
    return None


def _read_text(f: Field, v: Any, origin: str) -> tuple[str | None, str | None]:
    if f.id == "stock_code":
        return _read_stock_code(v, origin)
    if _is_bool(v):
        return None, f"expected text, got {v!r}" + (_YAML_BOOL_HINT if origin == "yaml" else "")
    if _is_number(v):
        hint = " (enter it as text)" if origin in _SHEETS else ""
        return None, f"expected text, got the number {shown(v)}{hint}"
    if not isinstance(v, str):
        return None, f"expected text, got {shown(v)}"
    t = v.strip()
    if err := _bad_char(t, _BAD_LINE):
        return None, err
    if len(t) > MAX_TEXT:
        return None, f"{len(t)} characters; at most {MAX_TEXT} (text is never cut short)"
    return t, None


def read_field(f: Field, raw: Any, origin: str = "data") -> tuple[Any, str | None]:
    """One value of field ``f`` -> (value, None), (None, None) for a blank, or (None, what was expected).

    The one reading of every field (see the module doc); ``origin`` (one of
    :data:`ORIGINS`) only changes the hints and what counts as blank or as a date
    serial. Messages start with ``expected …`` and quote the value."""
    if origin not in ORIGINS:
        raise ValueError(f"origin {origin!r}")
    if is_blank(raw, origin):
        return None, None
    k = f.kind
    if k in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT):
        return read_number(f, raw, origin)
    if k == Kind.BOOL:
        return _read_bool(raw, origin)
    if k == Kind.ENUM:
        return _read_enum(f, raw, origin)
    if k == Kind.DATE:
        return _read_date(raw, origin)
    return _read_text(f, raw, origin)


def read_year(raw: Any, origin: str = "data") -> tuple[int | None, str | None]:
    """A fiscal year 1990–2100: (year, None), (None, None) for a blank, or (None, what was expected)."""
    if is_blank(raw, origin):
        return None, None
    got = f"expected a fiscal year such as 2024 ({MIN_YEAR}–{MAX_YEAR}), got {shown(raw)}"
    y = None
    if isinstance(raw, YamlInt) and (why := yaml_int_surprise(raw)):
        return None, f"{got}: {why}"
    if _is_bool(raw) or isinstance(raw, SciFloat):
        return None, got
    if isinstance(raw, numbers.Integral):
        y = int(raw)
    elif _is_number(raw):
        x = float(raw)
        if math.isfinite(x) and x == int(x):
            y = int(x)
    elif isinstance(raw, str):
        t = _ascii(raw)
        m = _YEAR_TEXT.fullmatch(t) or _YEAR_END.fullmatch(t)
        if m:
            y = int(m.group(1))
        elif any(rx.fullmatch(t) for rx in _DATE_TEXT):
            return None, f"{_PERIOD_END}, got {shown(raw)}"
    elif isinstance(raw, dt.date):  # a report period as a date cell: the year it ends
        if (raw.month, raw.day) != (12, 31) or (isinstance(raw, dt.datetime) and raw.time() != dt.time()):
            return None, f"{_PERIOD_END}, got {shown(raw)}"
        y = raw.year
    if y is None or not MIN_YEAR <= y <= MAX_YEAR:
        return None, got
    return y, None


_PERIOD_END = ("会计年度的报告期应为年末（12月31日），半年报、季报数字不是年度数字 a fiscal year's period ends on "
               "31 December (half-year and quarterly figures are not a year's)")


def read_note(raw: Any, origin: str = "data") -> tuple[str | None, str | None]:
    """A source/assumption note: text (numbers become their text), at most :data:`MAX_NOTE` characters."""
    if is_blank(raw, origin):
        return None, None
    if _is_bool(raw):
        return None, "expected text, got " + repr(raw) + (_YAML_BOOL_HINT if origin == "yaml" else "")
    if isinstance(raw, YamlInt):
        raw = raw.yaml_text
    elif isinstance(raw, SciFloat):
        raw = raw.text
    elif _is_number(raw):
        raw = str(raw)
    if not isinstance(raw, str):
        return None, f"expected text, got {shown(raw)}"
    t = raw.strip()
    if err := _bad_char(t, _BAD_NOTE):
        return None, err
    if len(t) > MAX_NOTE:
        return None, f"{len(t)} characters; at most {MAX_NOTE} (a note is never cut short)"
    return t, None


def coerce(f: Field, v: Any) -> tuple[Any, str | None]:
    """(value, None) or (None, what was expected): :func:`read_field` for case data, a blank is an error."""
    val, err = read_field(f, v, "data")
    if val is None and err is None:
        return None, f"expected a value, got {v!r}"
    return val, err


def from_cell(kind: Kind, v: Any) -> Any:
    """What a spreadsheet cell holds -> a value :func:`read_field` reads the same way.

    Numbers stored as text (``"1,234,567.89"``, ``"67%"``, ``"１２３４"``) become numbers and
    date serials become dates; anything else is left as it is, so that
    :func:`read_field` reports it: never a guess."""
    if isinstance(v, str):
        v = v.strip()
        if kind in (Kind.AMOUNT, Kind.COUNT, Kind.RATIO):
            x, err = _number_text(v, kind, "cell")
            if err is None:
                return x
    if kind == Kind.DATE and _is_number(v) and 1 <= v <= MAX_SERIAL:
        from .rules.expr import from_serial

        return from_serial(float(v))
    return v


part_message = interim_message  # (kept for callers of the old name)


def part_problems(vals: dict[str, Any], confirmed: bool = False) -> list[tuple[str, str]]:
    """(field, message) for each value of one year that its other values contradict, or that no listed
    company's 元 figure could be (:mod:`xlmodel.rules.consistency`; ``confirmed``: the case's amounts_confirmed)."""
    return case_findings(vals, confirmed)


def unit_warnings(years: dict[int, dict[str, Any]]) -> list[str]:
    """A warning when a year's headline amounts all look like 万元 or 亿元 rather than 元."""
    flagged = []
    for fy in sorted(years):
        vals = {k: years[fy][k] for k in UNIT_FIELDS if isinstance(years[fy].get(k), (int, float)) and years[fy][k]}
        if vals and all(abs(v) < UNIT_WARNING_BELOW for v in vals.values()):
            flagged.append(f"{fy}: " + ", ".join(f"{k} {v:,.2f}" for k, v in vals.items()))
    if not flagged:
        return []
    return [f"amounts look like 万元 or 亿元, not 元 ({'; '.join(flagged)}): every amount is read in 元 "
            "(1.2亿 is 120000000)"]


# ---- cases ------------------------------------------------------------------------------------------

TOP_KEYS = ("policy", "evaluation_year", "company", "years", "attestations", "notes")


def parse_case(data: Any, source: str = "<case>", origin: str = "data", *, plan_optional: bool = False) -> Case:
    """Case data (a mapping, as a YAML/JSON file holds it) -> a :class:`Case`; every problem at once, in
    the order of the steps: the top-level keys, the plan, the evaluation year, the company, the years,
    the attestations, the notes. With ``plan_optional`` a case without ``policy:`` is read with the plan ""
    (screened on the regulatory baseline alone, as ``xlmodel announce`` does)."""
    probs: list[Problem] = []
    if not isinstance(data, dict):
        raise CaseError(source, [Problem("(file)", "expected a mapping with policy, evaluation_year, years")])
    for key in data:
        if key not in TOP_KEYS:
            probs.append(Problem(str(key), "unknown top-level key" + did_you_mean(key, TOP_KEYS)))
    pol = "" if plan_optional and data.get("policy") is None else _read_policy_id(data.get("policy"), probs)
    ey = _read_evaluation_year(data.get("evaluation_year"), origin, probs)
    company, said = _read_company(data.get("company") or {}, origin, probs)
    years, forecasts = _read_years(data.get("years"), origin, ey, bool(company.get(CONFIRM_FIELD)), probs)
    att = _read_attestations(data.get("attestations") or {}, origin, probs)
    notes = _read_notes(data.get("notes") or {}, origin, probs)
    if probs:
        raise CaseError(source, probs)
    return Case(pol, ey, company, years, att, source, notes, warnings=said.notes + unit_warnings(years),
                forecast_years=frozenset(forecasts))


def _read_policy_id(pol: Any, probs: list[Problem]):
    """The case's plan id, stripped (as given, with a problem, when it is not one)."""
    if pol is None or (isinstance(pol, str) and not pol.strip()):
        probs.append(Problem("policy", "required: a policy id (see `xlmodel policies`)"))
    elif not isinstance(pol, str) or not POLICY_ID.fullmatch(pol.strip()):
        probs.append(Problem("policy", "expected a policy id such as gcl-energy-2022-2024 (lowercase letters, digits "
                                       f"and hyphens; see `xlmodel policies`; a plan is named by its id, never by a "
                                       f"path), got {shown(pol)}"))
    else:
        pol = pol.strip()
    return pol


def _read_evaluation_year(ey: Any, origin: str, probs: list[Problem]):
    if ey is None:
        probs.append(Problem("evaluation_year", "required: a fiscal year such as 2024, got None"))
        return None
    ey, err = read_year(ey, origin)
    if err:
        probs.append(Problem("evaluation_year", err))
    return ey


def _read_company(comp: Any, origin: str, probs: list[Problem]) -> tuple[dict[str, Any], Said]:
    """The company's fields, and what its code and board say (:func:`company_board`)."""
    company: dict[str, Any] = {}
    if not isinstance(comp, dict):
        probs.append(Problem("company", "expected a mapping"))
        comp = {}
    company_ids = [f.id for f in COMPANY_FIELDS]
    for k, v in comp.items():
        if k not in company_ids:
            if is_blank(v, origin):
                continue
            hint = " (it is a per-year field)" if k in FIELDS else did_you_mean(k, company_ids)
            probs.append(Problem(f"company.{k}", "unknown company field" + hint))
            continue
        val, err = read_field(FIELDS[k], v, origin)
        if err:
            probs.append(Problem(f"company.{k}", err))
        elif val is not None:
            company[k] = val
    said = company_board(company, comp.get("stock_code"))
    probs += [Problem("company.board", m) for m in said.problems]
    return company, said


def _read_years(rows: Any, origin: str, ey: Any, confirmed: bool,
                probs: list[Problem]) -> tuple[dict[int, dict[str, Any]], set[int]]:
    """The fiscal years' figures (a year given twice: its first entry) and the years marked forecasts."""
    years: dict[int, dict[str, Any]] = {}
    forecasts: set[int] = set()
    if not isinstance(rows, list) or not rows:
        probs.append(Problem("years", "required: a list of fiscal years, each with fiscal_year and its figures"))
        rows = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            probs.append(Problem(f"years[{i}]", "expected a mapping of field: value"))
            continue
        raw_fy = row.get("fiscal_year")
        if raw_fy is None:
            probs.append(Problem(f"years[{i}].fiscal_year", "required: a fiscal year, got None"))
            continue
        fy, err = read_year(raw_fy, origin)
        if err:
            probs.append(Problem(f"years[{i}].fiscal_year", err))
            continue
        duplicate = fy in years
        if duplicate:
            probs.append(Problem(f"years[{i}].fiscal_year", f"{fy} appears more than once"))
        vals, forecast = _read_year_row(i, fy, row, origin, ey, probs)
        if forecast and not duplicate:
            forecasts.add(fy)
        probs += [Problem(f"years[{i}].{k} ({fy})", msg) for k, msg in part_problems(vals, confirmed)]
        if not duplicate:
            years[fy] = vals
    if ey is not None and rows and ey not in years:
        probs.append(Problem("years", f"no entry for the evaluation year {ey}"))
    return years, forecasts


def _read_year_row(i: int, fy: int, row: dict, origin: str, ey: Any, probs: list[Problem]) -> tuple[dict[str, Any], bool]:
    """One year's figures (blanks left out) and whether it is marked a forecast."""
    vals: dict[str, Any] = {}
    forecast = False
    for k, v in row.items():
        if k in ("fiscal_year", DISTRIBUTIONS):
            continue
        where = f"years[{i}].{k} ({fy})"
        if k == FORECAST.id:
            if _read_forecast(v, origin, fy, ey, where, probs):
                forecast = True
            continue
        if k not in FIELDS or not FIELDS[k].per_year:
            hint = (" (a company field: put it under company)" if k in [f.id for f in COMPANY_FIELDS]
                    else did_you_mean(k, [f.id for f in YEAR_FIELDS]))
            probs.append(Problem(where, "unknown field" + hint))
            continue
        val, err = read_field(FIELDS[k], v, origin)
        if err:
            probs.append(Problem(where, f"{err}"))
        elif val is not None:  # blank: the rule that needs it reports missing_input
            vals[k] = val
    if DISTRIBUTIONS in row:  # the year's distributions as a list: onto the same fields, read the same way
        got, found = read_distributions(row[DISTRIBUTIONS], fy, row, f"years[{i}].{DISTRIBUTIONS}",
                                        lambda f, raw: read_field(f, raw, origin))
        probs += [Problem(f"{w} ({fy})", msg) for w, msg in found]
        vals.update(got)
    return vals, forecast


def _read_attestations(raw_att: Any, origin: str, probs: list[Problem]) -> dict[str, bool]:
    att: dict[str, bool] = {}
    if not isinstance(raw_att, dict):
        probs.append(Problem("attestations", "expected a mapping of rule id: yes/no"))
        raw_att = {}
    for k, v in raw_att.items():
        if not isinstance(k, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,59}", k):
            probs.append(Problem(f"attestations.{k}", "expected a rule id (lowercase letters, digits and _)"))
            continue
        val, err = read_field(Field(k, k, k, Kind.BOOL), v, origin)
        if err:
            probs.append(Problem(f"attestations.{k}", err))
        elif val is not None:  # blank: the attestation rule reports missing_input
            att[k] = val
    return att


def _read_notes(raw_notes: Any, origin: str, probs: list[Problem]) -> dict[str, str]:
    notes: dict[str, str] = {}
    if not isinstance(raw_notes, dict):
        probs.append(Problem("notes", "expected a mapping of field id: note"))
        raw_notes = {}
    for k, v in raw_notes.items():
        # a field id or an attestation (rule) id; which rule ids the policy has is checked when evaluating
        if not isinstance(k, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,59}", k):
            probs.append(Problem(f"notes.{k}", "expected a field id or an attestation id"))
            continue
        val, err = read_note(v, origin)
        if err:
            probs.append(Problem(f"notes.{k}", err))
        elif val is not None:
            notes[k] = val
    return notes


def _read_forecast(v: Any, origin: str, fy: int, ey: Any, where: str, probs: list[Problem]) -> bool:
    """A year's ``forecast`` mark (:data:`xlmodel.fields.FORECAST`, read as every yes/no field): True for a
    forecast year; a problem where it is unreadable or marks a year not after the evaluation year."""
    val, err = read_field(FORECAST, v, origin)
    if err:
        probs.append(Problem(where, err))
        return False
    if val and isinstance(ey, int) and fy <= ey:
        probs.append(Problem(where, f"预测年度须在评估年度 {ey} 之后：{fy} 年的数字是已披露数，不能标为预测 a forecast year "
                                    f"must come after the evaluation year {ey}: the figures of {fy} are reported ones"))
        return False
    return bool(val)


@dataclass
class Said:
    """What reading a company's code and board found: notes to show, problems to refuse."""

    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def company_board(company: dict[str, Any], raw_code: Any = None) -> Said:
    """The board from the stock code where ``company`` has none (set in ``company``, with a note); a
    stated board that contradicts the code as a problem; the code read with its zeros restored as a note."""
    out = Said()
    code = company.get("stock_code")
    if code is None:
        return out
    if (note := stock_code_note(raw_code, code)) is not None:
        out.notes.append(note)
    if "board" in company:
        if (why := board_problem(code, company["board"])) is not None:
            out.problems.append(why)
    elif (implied := board_of_code(code)) is not None:
        company["board"] = implied
        out.notes.append(f"上市板块由证券代码 {code} 推定为{BOARDS[implied]} the board follows from the stock code: {implied}")
    return out


def check_attestations(case: Case, known: list[str]) -> None:
    """The case's attestations and notes against the policy's attestation ids; every problem at once."""
    known = list(known)
    probs = [Problem(f"attestations.{k}", f"not an attestation of policy {case.policy}{did_you_mean(k, known)} "
                                          f"(known: {', '.join(known)})")
             for k in case.attestations if k not in known]
    for k in case.notes:
        if k not in FIELDS and k not in known:
            probs.append(Problem(f"notes.{k}", f"not a field id nor an attestation of policy {case.policy}"
                                               + did_you_mean(k, list(FIELDS) + known)))
    if probs:
        raise CaseError(case.source, probs)


def load_case(path: str | Path, *, plan_optional: bool = False) -> Case:
    """A case file: YAML (``.yaml``/``.yml``/other) or JSON (``.json``), read within the limits of
    :mod:`xlmodel.inputs.untrusted` (``plan_optional``: see :func:`parse_case`)."""
    path = Path(path)
    source = str(path)
    try:
        text = decode_utf8(read_regular(path, MAX_CASE_BYTES, "case file"), source)
        if path.suffix.lower() == ".json":
            return parse_case(load_json(text, source), source, "json", plan_optional=plan_optional)
        data = load_yaml(text, source)
    except InputFileError as e:
        raise CaseError(source, [Problem(e.where or "(file)", e.message)]) from None
    return parse_case(data, source, "yaml", plan_optional=plan_optional)


def bool_label(v: bool) -> str:
    return BOOL_LABELS[bool(v)]


def inputs_digest(case: Case) -> str:
    """The SHA-256 of a case's inputs (its policy id, evaluation year, company, every year's figures, forecast
    marks and attestations, as :meth:`~xlmodel.case.Case.to_dict` gives them; not its notes), as canonical JSON: the
    first 16 hex digits, which the cover prints."""
    import hashlib
    import json

    data = case.to_dict()
    data.pop("notes", None)
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
