"""Text from inputs, made inert for each kind of output.

A company name, stock code or note comes from a file someone else wrote. Written
into an output it must stay *text*: never a live spreadsheet formula (CSV
injection), never a Markdown heading, table row or HTML tag, never a forged line
or terminal escape sequence in a text report.

* :func:`csv_cell` — a CSV cell (OWASP: a text starting with ``= + - @``, tab or
  CR gets a leading ``'``; numbers stay numbers);
* :func:`md_text` — one line of Markdown (meta-characters and HTML escaped,
  line breaks and control characters folded to a space);
* :func:`plain_text` — a terminal report (line breaks, tabs, control characters
  and escape sequences shown as visible escapes such as ``\\n`` and ``\\x1b``).

Workbooks are written with XlsxWriter's ``write_string`` (``strings_to_formulas``
off), so they need no escaping: the text is stored as a string cell as it is.
"""

from __future__ import annotations

import re
import unicodedata

#: the first characters that make a spreadsheet read a CSV cell as a formula (OWASP)
CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: what text of one line (a name, a title, an id) may not hold where xlmodel reads it (case fields,
#: policy files): C0/C1 controls (tab and line breaks too), surrogates, non-characters, line
#: separators and bidirectional overrides
BAD_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: the same for text that may run over lines (notes, quoted clauses): tab, LF and CR (and the Unicode
#: line separators) allowed
BAD_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff\u202a-\u202e\u2066-\u2069]")
_CHAR_NAMES = {0x00: "NUL", 0x07: "BEL", 0x08: "BS", 0x09: "tab", 0x0A: "LF", 0x0D: "CR", 0x1B: "ESC", 0x7F: "DEL",
               0x85: "NEL", 0x9B: "CSI", 0x9D: "OSC", 0x2028: "line separator", 0x2029: "paragraph separator",
               0x202E: "right-to-left override"}


def char_name(ch: str) -> str:
    """``U+001B (ESC)``: a character a message names, never shows."""
    o = ord(ch)
    return f"U+{o:04X}" + (f" ({_CHAR_NAMES[o]})" if o in _CHAR_NAMES else "")


# characters that end or reorder a line: C0/C1 controls, DEL, line/paragraph separators,
# bidirectional overrides and isolates (which can make text display in another order)
_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_MD_META = re.compile(r"([\\`*_\[\]#|~$])")
_MD_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto|file)(:)|\b(www)(\.)")
_INVISIBLE = ("Cf", "Zl", "Zp", "Cs", "Cn")  # format characters, separators, surrogates, unassigned
_JOINERS = "\u200c\u200d"  # zero-width (non-)joiners: part of emoji and some scripts
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def csv_cell(v):
    """A value for a CSV cell: text that a spreadsheet would run as a formula gets a leading ``'``.

    Numbers, booleans and None are returned unchanged (a negative *number* is a number,
    not a formula); only text is prefixed.
    """
    if isinstance(v, str) and v.startswith(CSV_FORMULA_START):
        return "'" + v
    return v


def md_text(s) -> str:
    """``s`` as inert inline Markdown: one line, no markup, no HTML.

    Line breaks, tabs and other control characters (and Unicode line separators and
    bidirectional overrides) become one space, so the text can neither start a new line,
    heading or table row nor reorder what follows; ``& < >`` become HTML entities; every
    Markdown meta-character (``\\ ` * _ [ ] # | ~ $``) is backslash-escaped, and so is the ``:``
    of a bare URL (no autolink). The result is meant for the inside of a line (a heading, a list
    item, a table cell): it never contains a line break, so it cannot start a line of its own.
    """
    s = "" if s is None else str(s)
    s = _ANSI.sub(" ", s)
    s = re.sub(r"\s*(?:" + _BREAKING.pattern + r")+\s*", " ", s)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_META.sub(r"\\\1", s)
    s = _MD_AUTOLINK.sub(lambda m: f"{m.group(1) or m.group(3)}\\{m.group(2) or m.group(4)}", s)  # no bare-URL links
    return s


def _visible(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    o = ord(ch)
    return f"\\x{o:02x}" if o <= 0xFF else f"\\u{o:04x}"


def plain_text(s) -> str:
    """``s`` for a terminal or a text report: exactly one line, no escape sequences.

    Newlines, carriage returns and tabs are shown as ``\\n``, ``\\r``, ``\\t``; ESC (the start
    of an ANSI escape sequence) and every other control character as ``\\x1b``-style escapes;
    Unicode line separators, bidirectional overrides and other invisible format characters
    as ``\\u2028``-style escapes. Printable text (Chinese included) is unchanged.
    """
    s = "" if s is None else str(s)
    out = []
    for ch in s:
        if _BREAKING.match(ch) or (unicodedata.category(ch) in _INVISIBLE and ch not in _JOINERS):
            out.append(_visible(ch))
        else:
            out.append(ch)
    return "".join(out)
