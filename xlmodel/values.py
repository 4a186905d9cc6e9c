"""One input value, read as the model reads it, from a case file, a workbook cell or a batch table: numbers
(with units, text numbers, the exponent hint), yes/no, dates, years, enums, stock codes and boards, text and
notes, every problem in words.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import re
from typing import Any

import numpy as np

from .fields import BOARDS, BOOL_LABELS, ENUMS, Field, Kind
from .inputs.sanitize import BAD_LINE, BAD_TEXT
from .inputs.untrusted import SciFloat, YamlInt, shown, yaml_int_surprise


MAX_AMOUNT = 1e15  # 元; beyond this 15-digit spreadsheet arithmetic loses the fen
MAX_TEXT = 200  #: characters of a company name (or any single-line text field)
MAX_NOTE = 1000  #: characters of a source/assumption note
MIN_YEAR, MAX_YEAR = 1990, 2100  #: fiscal years (the Shanghai exchange opened in December 1990)
MAX_SERIAL = 2958465  # 9999-12-31


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


def bool_label(v: bool) -> str:
    return BOOL_LABELS[bool(v)]
