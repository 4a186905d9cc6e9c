"""Every input file is untrusted: bounded reading of case, policy, batch and workbook files.

Whatever a file holds, reading it costs bounded time and memory and ends in a
value or in a clear :class:`InputFileError` naming the file (and, where there is
one, the line, column, row or part), never a traceback:

* :func:`read_regular` reads only regular files (a FIFO, device or directory is
  refused at once, without blocking) up to a size limit;
* :func:`load_yaml` / :func:`load_json` parse text with duplicate keys refused
  and aliases, expanded size and nesting depth limited (no alias bomb, no
  ``RecursionError``); YAML 1.1's implicit timestamps are off (a date stays text
  and is checked like any field) and unquoted integers keep their source text
  (:class:`YamlInt`) so that ``stock_code: 002015`` (octal 1037 in YAML 1.1) can
  be explained;
* :func:`read_csv_rows` decodes UTF-8 (with or without BOM) or GB18030 (what
  Chinese Excel saves) and reads every cell as text within row, column and cell
  limits; :func:`read_xlsx_rows` reads the first sheet of a workbook as values;
* :func:`inspect_xlsx` refuses what is not a sane .xlsx before any XML is
  parsed: file size, number of parts, unpacked size, compression ratio and a
  streamed count of the cell and row elements of every worksheet.

Messages never quote the parser's snippet of the file.
"""

from __future__ import annotations

import codecs
import csv
import difflib
import functools
import io
import itertools
import json
import math
import os
import re
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml
from yaml.composer import Composer
from yaml.nodes import MappingNode, ScalarNode

if yaml.__with_libyaml__:
    from yaml.cyaml import CParser

from ..errors import XlmodelError, zh_first

# ---- limits ----------------------------------------------------------------------------------------

# PyYAML parses ~20,000 values a second here: these keep the worst file well under a second
MAX_CASE_BYTES = 256 * 2**10  #: a case file (YAML/JSON); a real one is a few KB
MAX_POLICY_BYTES = 1 * 2**20  #: a policy file; the bundled ones are ~30 KB
MAX_PLAN_TEXT_BYTES = 1 * 2**20  #: a plan's published text (``text:`` of a policy); the bundled ones are ~10 KB
#: a plan carried inside a workbook (policy file + plan text, unpacked); its packed form in the
#: workbook's custom properties is bounded by MAX_EMBEDDED_PLAN_CHARS
MAX_EMBEDDED_PLAN_BYTES = MAX_POLICY_BYTES + MAX_PLAN_TEXT_BYTES + 64 * 2**10
MAX_EMBEDDED_PLAN_CHARS = 2 * 2**20  #: base64 characters over all the parts (a bundled plan needs ~12,000)
MAX_EMBEDDED_PLAN_PARTS = 9_999  #: custom properties holding one part each (255 characters at most)
MAX_YAML_ALIASES = 100  #: alias (``*name``) uses in one YAML document
MAX_YAML_NODES = 10_000  #: values of a YAML document with every alias expanded (a case has ~200, a plan ~600)
MAX_DEPTH = 32  #: nesting of mappings/lists in YAML and JSON (a case needs 3)
MAX_TABLE_BYTES = 64 * 2**20  #: a batch CSV/XLSX on disk
MAX_ROWS = 1_000_000  #: data rows of a batch file
MAX_COLUMNS = 500  #: columns of a batch file
MAX_TABLE_CELLS = 5_000_000  #: rows × columns of a batch file (every cell is read as text)
MAX_FIELD_CHARS = 100_000  #: one CSV cell

# .xlsx files: xlmodel's own workbooks are well under 1 MB unpacked
MAX_XLSX_BYTES = 20 * 2**20  #: a workbook on disk
MAX_XLSX_UNPACKED = 40 * 2**20  #: all parts, unpacked
MAX_XLSX_PART = 8 * 2**20  #: one part, unpacked (a sheet of an xlmodel workbook is ~0.2 MB)
MAX_XLSX_PARTS = 5000
MAX_XLSX_RATIO = 200  #: unpacked / compressed, for parts over 1 MiB
MAX_WORKBOOK_CELLS = 200_000  #: cell elements over all worksheets of a workbook read back
# a batch .xlsx may be bigger (a market-wide screen), still bounded
MAX_TABLE_XLSX_UNPACKED = 512 * 2**20
MAX_TABLE_XLSX_PART = 400 * 2**20

_CHUNK = 1 << 20


#: the message of a file that is not there (a caller may say it its own way)
NO_SUCH_FILE = "文件不存在 no such file"


class InputFileError(XlmodelError):
    """A file that cannot be read as what it should be. ``str()`` is one line naming the file."""

    def __init__(self, source: str, message: str, where: str | None = None):
        message = zh_first("无法读取文件", message)  # Chinese first: its own phrase, else this one
        self.source, self.message, self.where = str(source), message, where
        super().__init__(f"{self.source}: " + (f"{where}: " if where else "") + message)


def did_you_mean(word: Any, choices: Iterable[str], n: int = 3) -> str:
    """``"; did you mean 'x'?"`` (or ``'x' or 'y'``) for a misspelt id, else ``""``."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(choices), n=n)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"


def shown(v: Any, limit: int = 80) -> str:
    """``repr`` of a value from a file, cut to ``limit`` characters (a message never dumps a file)."""
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 1] + "…"


# ---- regular files -----------------------------------------------------------------------------------

def open_regular(path: str | Path, max_bytes: int, what: str = "file") -> tuple[io.BufferedReader, int]:
    """Open ``path`` for reading if it is a regular file of at most ``max_bytes``; (file, size).

    The file is opened non-blocking and checked with ``fstat`` on the open
    descriptor, so a FIFO or a device is refused at once and cannot be swapped in
    after the check."""
    source = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputFileError(source, NO_SUCH_FILE) from None
    except IsADirectoryError:
        raise InputFileError(source, f"这是文件夹，不是文件 is a directory, not a {what}") from None
    except PermissionError:
        raise InputFileError(source, "无权读取该文件 permission denied") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL character in the path
        raise InputFileError(source, f"cannot open: {getattr(e, 'strerror', None) or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(source, f"is {file_kind(st.st_mode)}, not a {what}")
        if st.st_size > max_bytes:
            raise InputFileError(source, f"文件过大 {_size(st.st_size)} is larger than a {what} can be ({_size(max_bytes)}); "
                                         "refusing to read")
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, from its ``st_mode``: "a directory", "a named pipe (FIFO)", …"""
    return ("a directory" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def read_regular(path: str | Path, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (see :func:`open_regular`)."""
    f, _ = open_regular(path, max_bytes, what)
    with f:
        try:
            data = f.read(max_bytes + 1)
        except OSError as e:
            raise InputFileError(str(path), f"cannot read: {e.strerror or e}") from None
    if len(data) > max_bytes:  # grew while being read
        raise InputFileError(str(path), f"larger than a {what} can be ({_size(max_bytes)}); refusing to read")
    return data


def _size(n: int) -> str:
    return f"{n / 2**20:.0f} MB" if n >= 2**20 else f"{n / 1024:.0f} KB" if n >= 1024 else f"{n} bytes"


def decode_utf8(data: bytes, source: str) -> str:
    """UTF-8 text, with or without a byte-order mark."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputFileError(source, "文件为 UTF-16 编码 the file is saved as UTF-16 ('Unicode text'); save it as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputFileError(source, f"不是 UTF-8 文本 not UTF-8 text (an invalid byte at line {line}); save the file as UTF-8") from None


def decode_chinese_text(data: bytes, source: str, *, expected: str, save_as: str) -> tuple[str, str]:
    """(text, encoding): UTF-8 with or without BOM, else GB18030 (what Chinese Windows saves). A
    UTF-16 file, one with NUL bytes or one that is neither is refused, naming the file; ``expected``
    says what the file should have been (``a CSV file``), ``save_as`` how to save it (``'CSV UTF-8'``)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputFileError(source, f"文件为 UTF-16 编码 the file is saved as UTF-16 ('Unicode text'); save it as {save_as}")
    if b"\x00" in data:
        raise InputFileError(source, f"不是文本文件 not a text file (it contains NUL bytes); expected {expected}")
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030"), "gb18030"
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputFileError(source, f"既非 UTF-8 也非 GB18030 文本 neither UTF-8 nor GB18030 text (an invalid byte at line {line}); "
                                     f"save the file as {save_as}") from None


def decode_table_text(data: bytes, source: str) -> tuple[str, str]:
    """(text, encoding) of a batch CSV: :func:`decode_chinese_text`."""
    return decode_chinese_text(data, source, expected="a CSV file", save_as="'CSV UTF-8 (comma-separated)'")


# ---- YAML -------------------------------------------------------------------------------------------

class YamlInt(int):
    """An int from YAML that remembers its source text (``002015`` is octal 1037 in YAML 1.1)."""

    yaml_text: str = ""

    def __new__(cls, value: int, text: str):
        obj = super().__new__(cls, value)
        obj.yaml_text = text
        return obj

    def __reduce__(self):
        return (YamlInt, (int(self), self.yaml_text))


class SciFloat(float):
    """A float written in exponent notation (``1.0e+3`` in YAML, ``1e3`` in JSON), with its source text.

    Amounts are not read in exponent notation anywhere (text in a CSV file or a cell in
    that form may have lost digits), so a case file's number in that form is refused too."""

    text: str = ""

    def __new__(cls, text: str):
        obj = super().__new__(cls, float(text.replace("_", "")))
        obj.text = text
        return obj

    def __reduce__(self):
        return (SciFloat, (self.text,))


#: an unquoted integer that YAML 1.1 and a reader would agree on
PLAIN_YAML_INT = re.compile(r"[-+]?(0|[1-9][0-9_]*)")


def yaml_int_surprise(v: Any) -> str | None:
    """Why an unquoted YAML integer is not what it looks like, or None."""
    if not isinstance(v, YamlInt) or PLAIN_YAML_INT.fullmatch(v.yaml_text):
        return None
    t = v.yaml_text
    if ":" in t:
        return f"unquoted, {t} is read by YAML 1.1 as the base-60 number {int(v)}"
    if re.fullmatch(r"[-+]?0[xX][0-9a-fA-F_]+", t):
        return f"unquoted, {t} is read by YAML 1.1 as the hexadecimal number {int(v)}"
    if re.fullmatch(r"[-+]?0[bB][01_]+", t):
        return f"unquoted, {t} is read by YAML 1.1 as the binary number {int(v)}"
    return f"unquoted, {t} is read by YAML 1.1 as the octal number {int(v)}"


class _LimitError(yaml.YAMLError):
    def __init__(self, message: str, mark=None):
        self.message, self.problem_mark = message, mark
        super().__init__(message)


class SafeLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader, bounded: duplicate keys refused, aliases, expanded size and depth limited.

    No implicit timestamps (a date stays text, checked and named like any field)."""

    def __init__(self, stream):
        super().__init__(stream)
        self._start_counts()

    def _start_counts(self) -> None:
        self._depth = 0
        self._aliases = 0
        self._expanded = 0
        self._weights: dict[int, int] = {}
        self.duplicates: list[tuple[str, int, int]] = []  # (key, first line, duplicate line)

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise _LimitError(f"more than {MAX_YAML_ALIASES} aliases (*name); refusing to expand them", mark)
            node = super().compose_node(parent, index)
            weight = self._weights.get(id(node))
            if weight is None:
                raise _LimitError("an alias refers to the node that contains it (a recursive structure)", mark)
            self._expanded += weight
            if self._expanded > MAX_YAML_NODES:
                raise _LimitError(f"the aliases expand to more than {MAX_YAML_NODES:,} values (an alias bomb?)", mark)
            return node
        mark = self.peek_event().start_mark
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _LimitError(f"嵌套层数过多 nested more than {MAX_DEPTH} levels deep", mark)
        before = self._expanded
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._expanded += 1
        if self._expanded > MAX_YAML_NODES:
            raise _LimitError(f"more than {MAX_YAML_NODES:,} values", mark)
        self._weights[id(node)] = self._expanded - before
        return node

    def construct_mapping(self, node, deep=False):
        if isinstance(node, MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    hash(key)
                except TypeError:
                    continue  # reported by the base constructor
                k = (type(key) if not isinstance(key, int) or isinstance(key, bool) else int, key)
                line = key_node.start_mark.line + 1
                if k in seen:
                    self.duplicates.append((str(key), seen[k], line))
                else:
                    seen[k] = line
        return super().construct_mapping(node, deep=deep)


SafeLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_int(loader: SafeLoader, node: ScalarNode):
    value = yaml.SafeLoader.construct_yaml_int(loader, node)
    return YamlInt(value, str(node.value)) if node.style is None else value


def _construct_float(loader: SafeLoader, node: ScalarNode):
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    text = str(node.value)
    if node.style is None and "e" in text.lower() and math.isfinite(value) and ":" not in text:
        return SciFloat(text)
    return value


SafeLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
SafeLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


class PlainIntLoader(SafeLoader):
    """:class:`SafeLoader` with plain ints and floats (for policy files, validated by their schema)."""


PlainIntLoader.add_constructor("tag:yaml.org,2002:int", yaml.SafeLoader.construct_yaml_int)
PlainIntLoader.add_constructor("tag:yaml.org,2002:float", yaml.SafeLoader.construct_yaml_float)


class _LibyamlEvents(CParser if yaml.__with_libyaml__ else object):  # type: ignore[misc]
    """libyaml's scanner and parser (C) as a loader's source of events, under PyYAML's own composer and
    constructor: the loader's bounds (:meth:`SafeLoader.compose_node`, duplicate keys) hold as they are,
    its file read about four times as fast (the scanner was three quarters of a command's YAML)."""

    check_node, get_node, get_single_node = Composer.check_node, Composer.get_node, Composer.get_single_node

    def __init__(self, stream: str):
        bad = yaml.reader.Reader.NON_PRINTABLE.search(stream)
        if bad:  # refused before a thing is read, as PyYAML's reader refuses it (libyaml would stop on reaching it)
            raise yaml.reader.ReaderError("<unicode string>", bad.start(), ord(bad.group()), "unicode",
                                          "special characters are not allowed")
        CParser.__init__(self, stream)
        Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self._start_counts()

    def compose_scalar_node(self, anchor):
        node = Composer.compose_scalar_node(self, anchor)
        node.style = node.style or None  # a plain scalar: libyaml says "", PyYAML None (the constructors ask)
        return node


@functools.cache
def _fast(loader_class: type[SafeLoader]) -> type[SafeLoader]:
    """``loader_class`` reading its events from libyaml, where PyYAML has it (its wheels do)."""
    if not yaml.__with_libyaml__:
        return loader_class
    return type(f"Libyaml{loader_class.__name__}", (_LibyamlEvents, loader_class), {})


def load_yaml(text: str, source: str, quote_problem: bool = True, loader_class: type[SafeLoader] = SafeLoader) -> Any:
    """Parse one YAML document with :class:`SafeLoader` (or ``loader_class``).

    Errors name the line and column; ``quote_problem`` adds the parser's one-line
    description of the problem (never its snippet of the file), off for files
    that may not be what they claim (a policy file)."""
    try:
        loader = _fast(loader_class)(text)  # its reader refuses a control character (NUL, ESC …) at once
    except yaml.reader.ReaderError as e:
        line = text[: e.position].count("\n") + 1
        raise InputFileError(source, f"含 YAML 不允许的控制字符 not valid YAML/JSON: line {line} holds the character "
                                     f"U+{e.character:04X}, which YAML does not allow") from None
    try:
        data = loader.get_single_data()
    except _LimitError as e:
        raise InputFileError(source, _at(e.problem_mark) + e.message) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        what = f": {_one_line(e.problem)}" if quote_problem and e.problem else ""
        raise InputFileError(source, f"不是有效的 YAML/JSON not valid YAML/JSON {_at(mark, False)}{what}".rstrip()) from None
    except yaml.YAMLError as e:
        what = f": {_one_line(str(e))}" if quote_problem else ""
        raise InputFileError(source, f"不是有效的 YAML/JSON not valid YAML/JSON{what}") from None
    except RecursionError:  # pragma: no cover - the depth limit comes first
        raise InputFileError(source, f"嵌套层数过多 nested more than {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()
    if loader.duplicates:
        key, first, line = loader.duplicates[0]
        more = f" (and {len(loader.duplicates) - 1} more)" if len(loader.duplicates) > 1 else ""
        raise InputFileError(source, f"line {line}: key {shown(key, 60)} appears twice in one mapping (first at line "
                                     f"{first}){more}; each field may be given once")
    return data


def _at(mark, colon: bool = True) -> str:
    if mark is None:
        return ""
    return f"at line {mark.line + 1}, column {mark.column + 1}" + (": " if colon else "")


def _one_line(s: str, limit: int = 120) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


# ---- JSON -------------------------------------------------------------------------------------------

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _json_depth(text: str) -> int:
    brackets = re.sub(r"[^\[\]{}]", "", _JSON_STRING.sub("", text))
    depth = deepest = 0
    for ch in brackets:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def load_json(text: str, source: str) -> Any:
    """Parse JSON: duplicate keys, NaN/Infinity and nesting beyond :data:`MAX_DEPTH` refused."""
    if _json_depth(text) > MAX_DEPTH:
        raise InputFileError(source, f"嵌套层数过多 nested more than {MAX_DEPTH} levels deep")
    duplicates: list[str] = []

    def pairs(items):
        out = {}
        for k, v in items:
            if k in out:
                duplicates.append(k)
            out[k] = v
        return out

    def constant(name):
        raise ValueError(f"{name} is not a number JSON allows")

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant,
                          parse_float=lambda t: SciFloat(t) if "e" in t or "E" in t else float(t))
    except json.JSONDecodeError as e:
        raise InputFileError(source, f"不是有效的 YAML/JSON not valid YAML/JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except (ValueError, RecursionError) as e:  # a 5000-digit integer, NaN
        raise InputFileError(source, f"不是有效的 YAML/JSON not valid YAML/JSON: {_one_line(str(e))}") from None
    if duplicates:
        more = f" (and {len(duplicates) - 1} more)" if len(duplicates) > 1 else ""
        raise InputFileError(source, f"key {shown(duplicates[0], 60)} appears twice in one object{more}; "
                                     "each field may be given once")
    return data


# ---- CSV --------------------------------------------------------------------------------------------

def _check_shape(source: str, n_rows: int, n_cols: int) -> None:
    if n_cols > MAX_COLUMNS:
        raise InputFileError(source, f"{n_cols} columns; at most {MAX_COLUMNS}")
    if n_rows > MAX_ROWS:
        raise InputFileError(source, f"数据行过多，请拆分文件 more than {MAX_ROWS:,} data rows; split the file")
    if n_rows * max(n_cols, 1) > MAX_TABLE_CELLS:
        raise InputFileError(source, f"{n_rows:,} rows × {n_cols} columns is more than {MAX_TABLE_CELLS:,} cells; "
                                     "split the file")


#: the rows a title may take above a batch file's header (vendors write one or two)
HEADER_SEARCH_ROWS = 10


def read_csv_rows(path: str | Path, header_at=None) -> Table:
    """The header and data rows of a comma-separated file, every cell as text.

    Rows shorter than the header are padded with blanks; a row with values beyond
    the header is an error naming its line; trailing blank rows and columns
    without a header and without values are dropped. ``header_at``: given the first
    :data:`HEADER_SEARCH_ROWS` rows, the index of the header row (rows above it, a title, are
    left out with a note); by default the first row."""
    source = str(path)
    data = read_regular(path, MAX_TABLE_BYTES, "batch file")
    text, encoding = decode_table_text(data, source)
    if not text.strip():
        raise InputFileError(source, "文件为空 the file is empty; expected a header row and one row per company and year")
    lines = text.count("\n") + (not text.endswith("\n"))  # (a last line break ends the last row: no row of its own)
    first = text.split("\n", 1)[0]
    _check_shape(source, lines - 1, first.count(",") + 1)
    old = csv.field_size_limit()
    csv.field_size_limit(MAX_FIELD_CHARS)
    rows: list[list[str]] = []
    try:
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        head = list(itertools.islice(reader, HEADER_SEARCH_ROWS))
        above = header_at(head) if header_at is not None else 0
        header = head[above]
        width = len(header)
        for row in itertools.chain(head[above + 1:], reader):
            if len(row) > width:
                if any(c.strip() for c in row[width:]):
                    raise InputFileError(source, f"该行的值数与表头列数不符 {len(row)} values but the header has {width} columns",
                                         f"line {reader.line_num}")
                row = row[:width]
            elif len(row) < width:
                row = row + [""] * (width - len(row))
            rows.append(row)
    except csv.Error as e:
        raise InputFileError(source, f"not a readable CSV file ({_one_line(str(e))})", f"line {reader.line_num}") from None
    finally:
        csv.field_size_limit(old)
    table = _trim_table(source, [str(h) for h in header], rows, above)
    table.encoding = encoding
    return table


@dataclass
class Table:
    """A batch file's cells: the header, the data rows (blank rows left out) and their spreadsheet row numbers."""

    header: list[str]
    rows: list[list]
    row_numbers: list[int]  # the header is row 1
    notes: list[str] = field(default_factory=list)
    encoding: str | None = None


def _trim_table(source: str, header: list, rows: list[list], above: int = 0) -> Table:
    """``above``: rows above the header (a title), left out with a note; row numbers count them."""
    def blank(v) -> bool:
        return v is None or (isinstance(v, str) and not v.strip())

    def blank_row(r) -> bool:
        try:  # text cells (a CSV): one join
            return not "".join(r).strip()
        except TypeError:
            return all(blank(v) for v in r)

    first = above + 2  # the spreadsheet row of the first data row
    numbers = [i + first for i, r in enumerate(rows) if not blank_row(r)]
    rows = [rows[n - first] for n in numbers]  # wholly blank rows (spacers, Excel's trailing ,,,) are not data
    names = ["" if blank(h) else str(h).strip() for h in header]
    keep = []
    for j, name in enumerate(names):
        if name:
            keep.append(j)
        elif any(not blank(r[j]) for r in rows):
            raise InputFileError(source, f"第 {_col_letter(j)} 列有数据但无列名 column {_col_letter(j)} has values but no header")
    if not keep:
        raise InputFileError(source, "缺少表头行 no header row (the first row names the columns: stock_code, fiscal_year, …)")
    if len(keep) < len(names):
        names = [names[j] for j in keep]
        rows = [[r[j] for j in keep] for r in rows]
    if not rows:
        raise InputFileError(source, "没有数据行 no data rows (only a header); expected one row per company and fiscal year")
    notes = [f"表头在第 {above + 1} 行，其上 {above} 行（标题）未读入 the header is row {above + 1}: the "
             f"{above} row{'s' if above > 1 else ''} above it (a title) {'are' if above > 1 else 'is'} not read"] \
        if above else []
    return Table(names, rows, numbers, notes)


def _col_letter(j: int) -> str:
    s = ""
    j += 1
    while j:
        j, r = divmod(j - 1, 26)
        s = chr(65 + r) + s
    return s


# ---- XLSX -------------------------------------------------------------------------------------------

_PREFIX = re.compile(rb"<(?:([A-Za-z_][\w.-]{0,20}):)?worksheet[\s>/]")


def inspect_xlsx(path: str | Path, *, max_bytes: int = MAX_XLSX_BYTES, max_unpacked: int = MAX_XLSX_UNPACKED,
                 max_part: int = MAX_XLSX_PART, max_parts: int = MAX_XLSX_PARTS, max_ratio: int = MAX_XLSX_RATIO,
                 max_cells: int = MAX_WORKBOOK_CELLS, max_rows: int | None = None,
                 what: str = "Excel workbook") -> tuple[bytes, list[str]]:
    """Refuse what is not a sane .xlsx before any XML is parsed; (the file's bytes, notes).

    Checks, in order: a regular file within ``max_bytes``; a zip with at most
    ``max_parts`` parts, each unpacking to at most ``max_part`` bytes, all to at
    most ``max_unpacked``, compressed at most ``max_ratio``:1 (parts over 1 MiB);
    ``xl/workbook.xml`` present; every part's checksum; and, decompressing each
    worksheet in chunks, at most ``max_cells`` cell elements (``<c``) in all and
    ``max_rows`` row elements per sheet. The bytes returned are the ones checked:
    parse those, not the path again."""
    source = str(path)
    data = read_regular(path, max_bytes, what)
    if not data.startswith(b"PK") or not zipfile.is_zipfile(io.BytesIO(data)):
        raise InputFileError(source, f"not an {what} (.xlsx is a zip file; this is not one)")
    notes: list[str] = []
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            check_zip_parts(source, infos, max_parts=max_parts, max_part=max_part, max_unpacked=max_unpacked,
                            max_ratio=max_ratio)
            names = {i.filename for i in infos}
            if "xl/workbook.xml" not in names:
                raise InputFileError(source, f"not an {what} (no xl/workbook.xml)")
            if "xl/vbaProject.bin" in names:
                notes.append("the file contains macros (VBA); they were ignored and never run")
            if any(n.startswith("xl/externalLinks/") for n in names):
                notes.append("the file links to other workbooks (external links); the links were ignored, never opened")
            cells = 0
            for i in infos:  # every part streamed once: its checksum, its true size, a worksheet's cells
                sheet = i.filename.startswith("xl/worksheets/") and i.filename.endswith(".xml")
                n_cells, n_rows, last_row = _scan_part(source, z, i, sheet, max_cells - cells, max_rows is not None)
                cells += n_cells
                if max_rows is not None and last_row > max_rows:
                    raise InputFileError(source, f"a row numbered {last_row:,} (part {_name(i.filename)}); at most "
                                                 f"{max_rows:,} rows; refusing to read")
                if cells > max_cells:
                    raise InputFileError(source, f"more than {max_cells:,} cells (part {_name(i.filename)}); "
                                                 "refusing to read")
                if max_rows is not None and n_rows > max_rows:
                    raise InputFileError(source, f"more than {max_rows:,} rows (part {_name(i.filename)}); "
                                                 "refusing to read")
    except zipfile.BadZipFile as e:
        raise InputFileError(source, f"zip 文件已损坏 damaged zip file ({_one_line(str(e), 80)})") from None
    except (zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError, OSError) as e:  # encrypted, zip64 oddities
        raise InputFileError(source, f"cannot read the zip file ({type(e).__name__}: {_one_line(str(e), 80)})") from None
    return data, notes


def check_zip_parts(source: str, infos: list[zipfile.ZipInfo], *, max_parts: int, max_part: int, max_unpacked: int,
                    max_ratio: int) -> None:
    """Refuse a zip (an .xlsx, a .docx) by its central directory, before anything is unpacked: more than
    ``max_parts`` parts, a part declared larger than ``max_part``, all larger than ``max_unpacked``, or
    a part over 1 MiB compressed more than ``max_ratio``:1. (What a part really unpacks to is checked
    while it is read: the declared sizes may lie.)"""
    if len(infos) > max_parts:
        raise InputFileError(source, f"{len(infos)} parts in the file; refusing to read")
    total = 0
    for i in infos:
        total += i.file_size
        if i.file_size > max_part or total > max_unpacked:
            raise InputFileError(source, f"part {_name(i.filename)} unpacks to {i.file_size / 2**20:.0f} MB; "
                                         "refusing to read")
        if i.file_size > 2**20 and (not i.compress_size or i.file_size / i.compress_size > max_ratio):
            ratio = i.file_size // max(i.compress_size, 1)
            raise InputFileError(source, f"part {_name(i.filename)} is compressed {ratio}:1 (a zip bomb?); "
                                         "refusing to read")


def _name(n: str) -> str:
    return _one_line(n, 80)


def _tags(prefix: bytes, name: bytes) -> tuple[bytes, ...]:
    return tuple(b"<" + prefix + name + end for end in (b" ", b">", b"/", b"\t", b"\n", b"\r"))


_ROW_REF = re.compile(rb'<(?:[A-Za-z_][\w.-]{0,20}:)?row\s[^>]{0,400}?\br="([0-9]{1,12})"')


def _scan_part(source: str, z: zipfile.ZipFile, info: zipfile.ZipInfo, sheet: bool, budget: int,
               row_refs: bool = False) -> tuple[int, int, int]:
    """Decompress one part in chunks: (cell elements, row elements, highest row number if ``row_refs``)
    of a worksheet, (0, 0, 0) otherwise.

    Refuses a part that unpacks to more than its header says or fails its
    checksum; stops counting once over ``budget`` cells."""
    cells = rows = last_row = 0
    size = 0
    buf = b""
    cell_tags: tuple[bytes, ...] | None = None
    row_tags: tuple[bytes, ...] = ()
    try:
        with z.open(info) as f:
            while True:
                chunk = f.read(_CHUNK)
                size += len(chunk)
                if size > info.file_size:
                    raise InputFileError(source, f"文件已损坏 the file is damaged (part {_name(info.filename)} unpacks to more "
                                                 "than its header says); refusing to read")
                if not sheet:
                    if not chunk:
                        break
                    continue
                buf += chunk
                if cell_tags is None:
                    m = _PREFIX.search(buf)
                    if m is None and chunk and len(buf) < 65536:
                        continue  # the root element is still to come
                    prefix = (m.group(1) + b":") if m and m.group(1) else b""
                    cell_tags, row_tags = _tags(prefix, b"c"), _tags(prefix, b"row")
                # count the tags starting before ``cut``; the rest of the buffer is kept for the next round
                cut = len(buf) - 512 if chunk else len(buf)  # (a tag is far shorter than what is kept)
                if row_refs:  # the highest row number: a maximum, so a tag seen in two rounds does no harm
                    refs = _ROW_REF.findall(buf)
                    if refs:
                        last_row = max(last_row, max(map(int, refs)))
                if cut > 0:
                    for t in cell_tags:
                        cells += buf.count(t, 0, cut + len(t) - 1)
                    for t in row_tags:
                        rows += buf.count(t, 0, cut + len(t) - 1)
                    buf = buf[cut:]
                if cells > budget or not chunk:
                    break
    except InputFileError:
        raise
    except zipfile.BadZipFile as e:
        if "CRC" in str(e):
            raise InputFileError(source, f"文件已损坏 the file is damaged (part {_name(info.filename)} fails its checksum)") from None
        raise InputFileError(source, f"文件已损坏 the file is damaged (part {_name(info.filename)}: {_one_line(str(e), 80)})") from None
    except Exception as e:  # zlib.error, EOFError, … on corrupt compressed data
        raise InputFileError(source, f"文件已损坏 the file is damaged ({type(e).__name__}: {_one_line(str(e), 80)})") from None
    return cells, rows, last_row


def read_xlsx_rows(path: str | Path, header_at=None) -> Table:
    """The header and data rows of the first worksheet of a batch .xlsx, cells as values.

    :func:`inspect_xlsx` first; then openpyxl in read-only mode on the checked
    bytes, formulas as their cached values, at most :data:`MAX_ROWS` rows and the
    header's columns. ``header_at``: as for :func:`read_csv_rows`."""
    import openpyxl
    from openpyxl.xml import DEFUSEDXML

    source = str(path)
    if not DEFUSEDXML:  # pragma: no cover - defusedxml is a dependency
        raise XlmodelError("defusedxml is required to read .xlsx files safely")
    data, notes = inspect_xlsx(path, max_bytes=MAX_TABLE_BYTES, max_unpacked=MAX_TABLE_XLSX_UNPACKED,
                               max_part=MAX_TABLE_XLSX_PART, max_cells=MAX_TABLE_CELLS, max_rows=MAX_ROWS + 1,
                               what="Excel workbook")
    try:
        wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True, keep_vba=False, keep_links=False)
    except Exception as e:  # openpyxl and defusedxml raise many types for hostile or broken files
        raise InputFileError(source, f"cannot read the workbook ({type(e).__name__}: {_one_line(str(e), 160)})") from None
    try:
        if not wb.worksheets:
            raise InputFileError(source, "工作簿没有工作表 the workbook has no worksheet")
        ws = wb.worksheets[0]
        ws.reset_dimensions()  # the file's own <dimension> is not trusted
        try:
            head = [list(r) for r in ws.iter_rows(min_row=1, max_row=HEADER_SEARCH_ROWS, max_col=MAX_COLUMNS + 1,
                                                   values_only=True)]
            above = header_at([[("" if v is None else str(v)) for v in r] for r in head]) \
                if header_at is not None and head else 0
            header = list(head[above]) if head else []
            while header and (header[-1] is None or (isinstance(header[-1], str) and not header[-1].strip())):
                header.pop()
            if len(header) > MAX_COLUMNS:
                raise InputFileError(source, f"more than {MAX_COLUMNS} columns")
            if not header:
                raise InputFileError(source, "缺少表头行 no header row (the first row names the columns: stock_code, fiscal_year, …)")
            rows: list[list] = []
            for row in ws.iter_rows(min_row=above + 2, max_col=len(header), values_only=True):
                rows.append(list(row) if len(row) == len(header) else list(row) + [None] * (len(header) - len(row)))
                if len(rows) > MAX_ROWS:
                    raise InputFileError(source, f"数据行过多，请拆分文件 more than {MAX_ROWS:,} data rows; split the file")
        except InputFileError:
            raise
        except Exception as e:
            raise InputFileError(source, f"cannot read the workbook ({type(e).__name__}: {_one_line(str(e), 160)})") from None
        _check_shape(source, len(rows), len(header))
    finally:
        wb.close()
    header = [h if isinstance(h, str) or h is None else str(h) for h in header]
    table = _trim_table(source, header, rows, above)
    if len(wb.worksheets) > 1:
        notes.append(f"只读入第一个工作表（{ws.title}）read the first worksheet ({ws.title}) only")
    table.notes = table.notes + notes
    return table
