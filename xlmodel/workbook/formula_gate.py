"""What a formula of a received workbook may hold before a spreadsheet engine computes it.

A formula is read into tokens by openpyxl's tokenizer (:class:`openpyxl.formula.tokenizer.Tokenizer`,
the reading Excel's grammar gives: strings, quoted sheet names, functions, operands), never by
patterns over its text, and passes only if every token is on an allow-list:

* a function call (``NAME(``) of a function xlmodel writes itself (``allowed``);
* an operand that is a number, text, a truth value, an error or an array of those;
* a reference: a cell, a range, whole rows or columns, optionally on a sheet *of this workbook*
  (``'计算'!$G$5:$I$5``), or a defined name of this workbook;
* operators, separators, parentheses and spaces.

So no WEBSERVICE, HYPERLINK, RTD or DDE call, no reference to another workbook (``[1]Sheet!A1``,
``'/path/[book.xlsx]S'!A1``), no sheet the workbook does not have, no structured or 3-D reference;
and a formula the tokenizer cannot read (``cmd|' /C calc'!A0``) is refused as well.
"""

from __future__ import annotations

import re

from openpyxl.formula.tokenizer import Token, Tokenizer, TokenizerError

_CELL = r"\$?[A-Za-z]{1,3}\$?[0-9]{1,7}"
#: a reference within a sheet: a cell, a range of cells, of whole columns or rows, or #REF!
_AREA = re.compile(rf"{_CELL}(?::{_CELL})?|\$?[A-Za-z]{{1,3}}:\$?[A-Za-z]{{1,3}}|\$?[0-9]{{1,7}}:\$?[0-9]{{1,7}}|#REF!")
#: a reference on a named sheet: 'quoted name'!area or name!area
_ON_SHEET = re.compile(r"(?:'((?:[^']|'')+)'|([^'!]+))!(.+)", re.S)
#: a function call as the tokenizer gives it: the name with its opening parenthesis
_CALL = re.compile(r"(?:_xlfn\.|_xlws\.)?([A-Za-z][A-Za-z0-9_.]*)\(", re.I)
_PLAIN = (Token.OP_PRE, Token.OP_IN, Token.OP_POST, Token.SEP, Token.PAREN, Token.WSPACE, Token.ARRAY)


def tokens(formula: str) -> list[Token] | None:
    """The tokens of a formula (its text without the leading ``=``), None if it cannot be read."""
    try:
        return Tokenizer("=" + formula).items
    except (TokenizerError, IndexError, ValueError):
        return None


def function_name(tok: Token) -> str | None:
    """The function a FUNC OPEN token calls (upper case, without _xlfn./_xlws.), None if not a name."""
    m = _CALL.fullmatch(tok.value)
    return m.group(1).upper() if m else None


def functions(formula: str) -> set[str]:
    """The functions a formula calls (upper case, without Excel's _xlfn. prefixes)."""
    toks = tokens(formula) or []
    return {n for t in toks if t.type == Token.FUNC and t.subtype == Token.OPEN and (n := function_name(t))}


def _reference_problem(ref: str, sheets: frozenset[str], names: frozenset[str]) -> str | None:
    if ref.upper() in names or _AREA.fullmatch(ref):
        return None
    m = _ON_SHEET.fullmatch(ref)
    if m is None:
        return f"非 xlmodel 所写的引用 a reference xlmodel does not write: {_shown(ref)}"
    sheet = m.group(1).replace("''", "'") if m.group(1) is not None else m.group(2)
    if sheet not in sheets:
        return (f"引用了本工作簿没有的工作表（另一工作簿？）a reference to a sheet this workbook does not have "
                f"(another workbook?): {_shown(ref)}")
    if not _AREA.fullmatch(m.group(3)):
        return f"非 xlmodel 所写的引用 a reference xlmodel does not write: {_shown(ref)}"
    return None


def formula_problems(formula: str, allowed: frozenset[str], sheets: frozenset[str], names: frozenset[str]) -> list[str]:
    """Why a formula may not go to an engine (empty: it may). ``names`` in upper case."""
    toks = tokens(formula)
    if toks is None:
        return ["公式无法解析（DDE 链接或外部引用？）a formula xlmodel cannot read (a DDE link or a reference to "
                f"another workbook?): {_shown(formula)}"]
    out, unknown = [], []
    for t in toks:
        if t.type == Token.FUNC:
            if t.subtype == Token.OPEN:
                name = function_name(t)
                if name is None or name not in allowed:
                    unknown.append(name or _shown(t.value))
        elif t.type == Token.OPERAND:
            if t.subtype == Token.RANGE:
                why = _reference_problem(t.value, sheets, names)
                if why and why not in out:
                    out.append(why)
        elif t.type not in _PLAIN:
            out.append(f"非 xlmodel 所写的公式成分 a part of a formula xlmodel does not write: {_shown(t.value)}")
    if unknown:
        out.insert(0, f"非 xlmodel 所写的函数 a function xlmodel does not write: {', '.join(sorted(set(unknown)))[:120]}")
    return out


def _shown(text: str, limit: int = 80) -> str:
    t = "".join(c if c.isprintable() else "?" for c in text)
    return t if len(t) <= limit else t[:limit - 1] + "…"
