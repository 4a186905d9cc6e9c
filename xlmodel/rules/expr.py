"""A small expression tree that both computes and renders as Excel formula text.

Every rule is built once from these nodes. ``Node.eval`` computes on numpy
arrays (one element per case, so the single case and the batch share one code
path) with spreadsheet semantics: a blank input reads as 0 / FALSE / "" and is
detected separately with :class:`Missing`. ``Node.render`` produces formula text
through a :class:`Renderer` that maps fields, parameters, calculations and
labels to cell references or defined names. No threshold is ever a literal:
thresholds are :class:`Param` nodes, and the only literals are 0 and 1.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Iterator, Protocol, Sequence

import numpy as np

from ..money import round_fen

EXCEL_EPOCH = dt.date(1899, 12, 30)


class Env(Protocol):
    n: int

    def field(self, fid: str, offset: int) -> np.ndarray: ...
    def missing(self, fid: str, offset: int) -> np.ndarray: ...
    def param(self, name: str): ...
    def calc(self, name: str, offset: int | None) -> np.ndarray: ...
    def fy(self, offset: int) -> np.ndarray: ...


class Renderer(Protocol):
    def field(self, fid: str, offset: int) -> str: ...
    def field_blank(self, fid: str, offset: int) -> str: ...
    def param(self, name: str) -> str: ...
    def calc(self, name: str, offset: int | None) -> str: ...
    def label(self, code: str) -> str: ...
    def fy(self, offset: int) -> str: ...


class Node:
    prec = 100  # precedence for rendering: higher binds tighter

    def eval(self, env: Env) -> np.ndarray:
        raise NotImplementedError

    def render(self, r: Renderer) -> str:
        raise NotImplementedError

    def children(self) -> Sequence[Node]:
        return ()

    def walk(self) -> Iterator[Node]:
        yield self
        for c in self.children():
            yield from c.walk()

    def fields(self) -> list[tuple[str, int]]:
        """Input cells this expression reads, in first-seen order."""
        seen: dict[tuple[str, int], None] = {}
        for n in self.walk():
            if isinstance(n, In):
                seen[(n.fid, n.offset)] = None
        return list(seen)

    def calcs(self) -> list[tuple[str, int | None]]:
        seen: dict[tuple[str, int | None], None] = {}
        for n in self.walk():
            if isinstance(n, C):
                seen[(n.name, n.offset)] = None
        return list(seen)

    # operator sugar keeps rule definitions readable
    def __add__(self, o): return Bin("+", self, _n(o))
    def __sub__(self, o): return Bin("-", self, _n(o))
    def __mul__(self, o): return Bin("*", self, _n(o))
    def __truediv__(self, o): return Bin("/", self, _n(o))
    def __ge__(self, o): return Cmp(">=", self, _n(o))
    def __gt__(self, o): return Cmp(">", self, _n(o))
    def __le__(self, o): return Cmp("<=", self, _n(o))
    def __lt__(self, o): return Cmp("<", self, _n(o))
    def eq(self, o): return Cmp("=", self, _n(o))
    def ne(self, o): return Cmp("<>", self, _n(o))


def _n(x) -> Node:
    if isinstance(x, Node):
        return x
    return Num(x)


def _paren(child: Node, prec: int, r: Renderer) -> str:
    s = child.render(r)
    return f"({s})" if child.prec < prec else s


def _num(a: np.ndarray) -> np.ndarray:
    """Numbers for arithmetic; a "" (blank result) becomes NaN in a branch IF discards."""
    if a.dtype == object:
        return np.array([np.nan if isinstance(x, str) else x for x in a], dtype=float)
    return a.astype(float)


def _rank(v) -> int:
    """Spreadsheet order across types: every number < every text (both LibreOffice and Gnumeric; a
    blank-looking "" formula result is text). Booleans are never ordered against other types here:
    the engines disagree on that (LibreOffice reads TRUE as 1), so the rules only test them for equality."""
    return 2 if isinstance(v, (bool, np.bool_)) else 1 if isinstance(v, str) else 0


def _cmp_scalar(op, x, y) -> bool:
    rx, ry = _rank(x), _rank(y)
    if rx != ry:
        return bool(_CMP[op](rx, ry))
    return bool(_CMP[op](x, y))


def _full(env: Env, v) -> np.ndarray:
    """A scalar as a column of env.n equal values (arrays pass through)."""
    if isinstance(v, np.ndarray) and v.ndim:
        return v
    if isinstance(v, str) or (isinstance(v, np.ndarray) and v.dtype == object):
        return np.full(env.n, v if isinstance(v, str) else v.item(), dtype=object)
    return np.full(env.n, v)


@dataclass(frozen=True, eq=False)
class Num(Node):
    value: float

    def __post_init__(self):
        if self.value not in (0, 1):
            raise ValueError(f"literal {self.value!r} in a formula: thresholds must be parameters")

    def eval(self, env):
        return _full(env, float(self.value))

    def render(self, r):
        return str(int(self.value))


@dataclass(frozen=True, eq=False)
class Blank(Node):
    """The empty string "" (shown where a value cannot be computed)."""

    def eval(self, env):
        return _full(env, np.array("", dtype=object))

    def render(self, r):
        return '""'


@dataclass(frozen=True, eq=False)
class In(Node):
    """An input field at fiscal year t+offset (offset 0 = evaluation year)."""

    fid: str
    offset: int = 0

    def eval(self, env):
        return env.field(self.fid, self.offset)

    def render(self, r):
        return r.field(self.fid, self.offset)


@dataclass(frozen=True, eq=False)
class Missing(Node):
    """TRUE where any of the given input cells is blank."""

    cells: tuple[tuple[str, int], ...]

    def eval(self, env):
        out = np.zeros(env.n, dtype=bool)
        for fid, off in self.cells:
            out = out | env.missing(fid, off)
        return out

    def render(self, r):
        if not self.cells:
            return "FALSE"
        parts = [r.field_blank(f, o) for f, o in self.cells]
        return parts[0] if len(parts) == 1 else f"OR({','.join(parts)})"


@dataclass(frozen=True, eq=False)
class P(Node):
    """A policy parameter (a named cell on the parameter sheet)."""

    name: str

    def eval(self, env):
        return _full(env, env.param(self.name))

    def render(self, r):
        return r.param(self.name)


@dataclass(frozen=True, eq=False)
class C(Node):
    """Another calculation: a per-year series at t+offset, or a scalar (offset None)."""

    name: str
    offset: int | None = None

    def eval(self, env):
        return env.calc(self.name, self.offset)

    def render(self, r):
        return r.calc(self.name, self.offset)


@dataclass(frozen=True, eq=False)
class Lbl(Node):
    """A status/label code; renders as its defined name on the lists sheet."""

    code: str

    def eval(self, env):
        return _full(env, np.array(self.code, dtype=object))

    def render(self, r):
        return r.label(self.code)


_BIN = {"+": (np.add, 20), "-": (np.subtract, 20), "*": (np.multiply, 30), "/": (np.divide, 30)}


@dataclass(frozen=True, eq=False)
class Bin(Node):
    op: str
    a: Node
    b: Node

    @property
    def prec(self):  # type: ignore[override]
        return _BIN[self.op][1]

    def children(self):
        return (self.a, self.b)

    def eval(self, env):
        with np.errstate(divide="ignore", invalid="ignore"):
            return _BIN[self.op][0](_num(self.a.eval(env)), _num(self.b.eval(env)))

    def render(self, r):
        p = self.prec
        left = _paren(self.a, p, r)
        # right operand of - and / needs brackets at equal precedence
        right = _paren(self.b, p + (1 if self.op in "-/" else 0), r)
        return f"{left}{self.op}{right}"


_CMP = {
    ">=": np.greater_equal, ">": np.greater, "<=": np.less_equal,
    "<": np.less, "=": np.equal, "<>": np.not_equal,
}


@dataclass(frozen=True, eq=False)
class Cmp(Node):
    op: str
    a: Node
    b: Node
    prec = 10

    def children(self):
        return (self.a, self.b)

    def eval(self, env):
        a, b = self.a.eval(env), self.b.eval(env)
        if a.dtype == object or b.dtype == object:
            return np.array([_cmp_scalar(self.op, x, y) for x, y in zip(a, b)], dtype=bool)
        return _CMP[self.op](a, b)

    def render(self, r):
        a, b = self.a, self.b
        operands = getattr(r, "compared", None)  # a yes/no row (1/0) compared with a yes/no: numbers both
        if operands is not None:
            a, b = operands(self.op, a, b)
        return f"{_paren(a, 11, r)}{self.op}{_paren(b, 11, r)}"


class _Fn(Node):
    fn = ""

    def __init__(self, *args: Node):
        self.args = tuple(_n(a) for a in args)
        if not self.args:
            raise ValueError(f"{self.fn} needs arguments")

    def children(self):
        return self.args

    def render(self, r):
        return f"{self.fn}({','.join(a.render(r) for a in self.args)})"


class And(_Fn):
    fn = "AND"

    def eval(self, env):
        out = np.ones(env.n, dtype=bool)
        for a in self.args:
            out = out & a.eval(env).astype(bool)
        return out


class Or(_Fn):
    fn = "OR"

    def eval(self, env):
        out = np.zeros(env.n, dtype=bool)
        for a in self.args:
            out = out | a.eval(env).astype(bool)
        return out


class Not(_Fn):
    fn = "NOT"

    def eval(self, env):
        return ~self.args[0].eval(env).astype(bool)


def _extreme(env: Env, args: Sequence[Node], ignoring_nan, strict) -> np.ndarray:
    """MIN/MAX as spreadsheets compute them: a blank input cell or a text value in a
    referenced cell is ignored (0 when nothing is left); an error in a computed
    argument (NaN here, #VALUE! there) propagates."""
    refs, computed = [], []
    for a in args:
        v = _num(a.eval(env))
        if isinstance(a, In):
            refs.append(np.where(env.missing(a.fid, a.offset), np.nan, v))
        elif isinstance(a, C):
            refs.append(v)
        else:
            computed.append(v)
    out = np.nan_to_num(ignoring_nan.reduce(refs), nan=0.0) if refs else None
    for v in computed:
        out = v if out is None else strict(out, v)
    return out


class Max(_Fn):
    """MAX over references (blanks and text ignored) and computed values."""

    fn = "MAX"

    def eval(self, env):
        return _extreme(env, self.args, np.fmax, np.maximum)


class Min(_Fn):
    """MIN over references (blanks and text ignored) and computed values."""

    fn = "MIN"

    def eval(self, env):
        return _extreme(env, self.args, np.fmin, np.minimum)


class Sum(_Fn):
    """SUM over adjacent cells of one row (rendered as a range where possible)."""

    fn = "SUM"

    def eval(self, env):
        out = _num(self.args[0].eval(env))
        for a in self.args[1:]:
            out = out + _num(a.eval(env))
        return out

    def render(self, r):
        refs = [a.render(r) for a in self.args]
        rng = getattr(r, "range", None)
        if rng is not None and len(refs) > 1:
            joined = rng(refs)
            if joined:
                return f"SUM({joined})"
        return f"SUM({','.join(refs)})"


@dataclass(frozen=True, eq=False)
class Window(Node):
    """The sum of a per-year value over a window whose length is a parameter: the ``years`` fiscal
    years ending with this one (``skip=1``: ending the year before, the window's earlier years).

    ``leaf`` is the value at offset 0 (an input, ``In(f)``, or a series, ``C(s, 0)``). Rendered as
    SUMPRODUCT over the year row with the year header as the flag ``year-W < FY <= year``, so a
    length changed on the parameter sheet is honoured by the formula as by the evaluator. The
    plan's own length (``plan``: the offsets it reads) is what the tree reports as the cells it
    reads: the history the workbook keeps and the inputs its missing-input test names."""

    leaf: Node
    years: "P"
    plan: int
    skip: int = 0

    def __post_init__(self):
        if not isinstance(self.leaf, (In, C)) or getattr(self.leaf, "offset", 0) not in (0, None) or self.skip not in (0, 1):
            raise ValueError("a window sums an input or a series from offset 0, skipping 0 or 1 years")

    def _at(self, o: int) -> Node:
        return In(self.leaf.fid, o) if isinstance(self.leaf, In) else C(self.leaf.name, o)

    def children(self):
        return tuple(self._at(o) for o in range(-(self.plan - 1), 1 - self.skip)) + (self.years,)

    def eval(self, env):
        w = np.asarray(env.param(self.years.name), dtype=float).reshape(-1)[0]
        n = int(math.ceil(w - 1e-9)) if w > 0 else 0  # FY > year - W: ceil(W) years, as the flag counts them
        out = np.zeros(env.n, dtype=float)
        for o in range(-(n - 1), 1 - self.skip):
            out = out + _num(self._at(o).eval(env))
        return out

    def render(self, r):
        return r.window(self.leaf, self.years.render(r), self.skip)


#: the fixed parameter a rendered ROUND reads its digits from (its value is 2, the fen; not editable)
PRECISION = "precision.digits"


class Round2(_Fn):
    """ROUND(x, 2): half away from zero to the fen, at 15 significant digits. Rendered as
    ``ROUND(x,p_precision_digits)``: the one named precision of the workbook."""

    fn = "ROUND"

    def eval(self, env):
        return round_fen(_num(self.args[0].eval(env)))

    def render(self, r):
        return f"ROUND({self.args[0].render(r)},{r.param(PRECISION)})"


class If(_Fn):
    fn = "IF"

    def __init__(self, cond: Node, then, other):
        super().__init__(cond, then, other)

    def eval(self, env):
        c = self.args[0].eval(env).astype(bool)
        a, b = self.args[1].eval(env), self.args[2].eval(env)
        if a.dtype == object or b.dtype == object:
            return np.array([x if k else y for k, x, y in zip(c, a, b)], dtype=object)
        return np.where(c, a, b)


class InList(_Fn):
    """TRUE where the enumeration value is one of a parameter list.

    Renders as COUNTIF(list, value)>0 so that the accepted values stay on the
    parameter sheet, not in the formula.
    """

    fn = "COUNTIF"
    prec = 10

    def __init__(self, value: Node, plist: P):
        super().__init__(value, plist)

    def eval(self, env):
        allowed = set(env.param(self.args[1].name))  # type: ignore[attr-defined]
        return np.array([v in allowed for v in self.args[0].eval(env)], dtype=bool)

    def render(self, r):
        return f"COUNTIF({self.args[1].render(r)},{self.args[0].render(r)})>0"


class CountIf(_Fn):
    """How many of the given cells equal a label (rendered as COUNTIF over a range)."""

    fn = "COUNTIF"

    def __init__(self, label: Lbl, *cells: Node):
        super().__init__(label, *cells)

    def eval(self, env):
        code = self.args[0].code  # type: ignore[attr-defined]
        out = np.zeros(env.n, dtype=float)
        for c in self.args[1:]:
            out = out + np.array([v == code for v in c.eval(env)], dtype=float)
        return out

    def render(self, r):
        refs = [c.render(r) for c in self.args[1:]]
        rng = getattr(r, "span", None) or getattr(r, "range", None)
        joined = rng(refs) if rng is not None else None
        if joined:
            return f"COUNTIF({joined},{self.args[0].render(r)})"
        return "+".join(f"COUNTIF({x},{self.args[0].render(r)})" for x in refs)


def _edate(serial: float, months: float) -> float:
    d = EXCEL_EPOCH + dt.timedelta(days=int(serial))
    m = d.month - 1 + int(months)
    y, m = d.year + m // 12, m % 12 + 1
    last = (dt.date(y + (m == 12), m % 12 + 1, 1) - dt.timedelta(days=1)).day
    return float((dt.date(y, m, min(d.day, last)) - EXCEL_EPOCH).days)


_edate_v = np.frompyfunc(_edate, 2, 1)


class EDate(_Fn):
    """EDATE(date, months): the same day n months later, clamped to month end."""

    fn = "EDATE"

    def __init__(self, date: Node, months: Node):
        super().__init__(date, months)

    def eval(self, env):
        d = self.args[0].eval(env).astype(float)
        m = self.args[1].eval(env).astype(float)
        ok = d >= 1
        out = np.zeros(env.n, dtype=float)
        if ok.any():
            out[ok] = _edate_v(d[ok], np.broadcast_to(m, d.shape)[ok]).astype(float)
        return out


def to_serial(d: dt.date) -> float:
    return float((d - EXCEL_EPOCH).days)


def from_serial(s: float) -> dt.date:
    return EXCEL_EPOCH + dt.timedelta(days=int(s))


@dataclass(frozen=True, eq=False)
class FY(Node):
    """The fiscal year t+offset (the year header of that column)."""

    offset: int = 0

    def eval(self, env):
        return env.fy(self.offset)

    def render(self, r):
        return r.fy(self.offset)


def _year_of(serial: float) -> float:
    return float(from_serial(serial).year)


_year_of_v = np.frompyfunc(_year_of, 1, 1)


class YearOf(_Fn):
    """YEAR(date serial)."""

    fn = "YEAR"

    def eval(self, env):
        d = _num(self.args[0].eval(env))
        out = np.zeros(env.n, dtype=float)
        ok = np.isfinite(d) & (d >= 1)
        if ok.any():
            out[ok] = _year_of_v(d[ok]).astype(float)
        return out


# ---- what a value can be (a yes/no row is shown 1/0 in the workbook) -------------------------------

BOOL, NUMBER, TEXT, BLANK = "bool", "number", "text", "blank"
_LOGICAL = (Missing, Cmp, And, Or, Not, InList)
_NUMERIC = (Num, P, FY, Bin, Max, Min, Sum, Round2, CountIf, EDate, YearOf, Window)
_ANY = frozenset({BOOL, NUMBER, TEXT, BLANK})
#: nodes that read a referenced cell otherwise than a computed value (a boolean in a reference is ignored
#: by SUM, MIN, MAX; COUNTIF matches its criterion by type): a yes/no row, 1/0, is never their argument
_REFERENCE_READERS = (Max, Min, Sum, CountIf, InList, Window)


def kinds(node: Node, leaf) -> frozenset[str]:
    """What ``node``'s value can be in a spreadsheet: a subset of BOOL (TRUE/FALSE), NUMBER, TEXT and
    BLANK (the "" of :class:`Blank`). ``leaf(node)`` answers for an input or a calculation (:class:`In`,
    :class:`C`); a node of a kind not known here can be anything."""
    if isinstance(node, _LOGICAL):
        return frozenset({BOOL})
    if isinstance(node, Blank):
        return frozenset({BLANK})
    if isinstance(node, Lbl):
        return frozenset({TEXT})
    if isinstance(node, If):
        return kinds(node.args[1], leaf) | kinds(node.args[2], leaf)
    if isinstance(node, (In, C)):
        return leaf(node)
    if isinstance(node, _NUMERIC):
        return frozenset({NUMBER})
    return _ANY


def is_yes_no(k: frozenset[str]) -> bool:
    """A value of these kinds is a yes/no (TRUE/FALSE, or blank where it cannot be told)."""
    return BOOL in k and k <= {BOOL, BLANK}


def as_number(node: Node, holds_number) -> Node:
    """A yes/no tree as the number the workbook shows (1 for TRUE, 0 for FALSE; a blank stays blank):
    the branches of an IF each converted, a row that already holds 1/0 (``holds_number(name)``) read as
    it is, anything else ``IF(x,1,0)``. Only the workbook's cells change: the evaluator keeps booleans."""
    if isinstance(node, If):
        a, b = as_number(node.args[1], holds_number), as_number(node.args[2], holds_number)
        return If(node.args[0], a, b)
    if isinstance(node, Blank) or (isinstance(node, C) and holds_number(node.name)):
        return node
    return If(node, Num(1), Num(0))


def as_number_mixed(node: Node, holds_number, kind_of) -> Node:
    """A tree that is a yes/no in some branches and a number in others (``IF(applies, test, 0)``): each yes/no
    branch as :func:`as_number` gives it, the numbers as they are (``kind_of``: :func:`kinds` of a node)."""
    if is_yes_no(kind_of(node)):
        return as_number(node, holds_number)
    if isinstance(node, If):
        return If(node.args[0], as_number_mixed(node.args[1], holds_number, kind_of),
                  as_number_mixed(node.args[2], holds_number, kind_of))
    return node


def yes_no_readers(root: Node, holds_number) -> list[str]:
    """The functions of ``root`` that would read a 1/0 yes/no row otherwise than TRUE/FALSE (see
    :data:`_REFERENCE_READERS`; an ordering comparison, which the rules never make of a yes/no): their
    names, none where every reader means the same with 1/0 — IF's condition, AND, OR, NOT, an IF's branch,
    arithmetic (TRUE is 1 there in every engine), = and <> (the renderer compares numbers with numbers)."""
    out = []
    for n in root.walk():
        args = n.children()
        if any(isinstance(a, C) and holds_number(a.name) for a in args):
            if isinstance(n, _REFERENCE_READERS) or (isinstance(n, Cmp) and n.op not in ("=", "<>")):
                out.append(getattr(n, "fn", "") or getattr(n, "op", type(n).__name__))
    return out


# ---- formula length (for auditability: no formula is allowed to grow past a limit) ---------------

class EstimateRenderer:
    """Renders like the workbook with the widest references it uses, to bound a formula's length
    without a layout: ``'计算'!$AA$1000``-sized cells, names as they are. COUNTIF over statuses is
    one range in the workbook (see ``CellRenderer.span``)."""

    REF = "'计算'!$AA$1000"

    def span(self, refs):
        return f"{self.REF}:$AA$1000"

    def field(self, fid, offset):
        return self.REF if not fid.startswith("attest.") else f"AND({self.REF},{self.REF}=lbl_yes)"

    def field_blank(self, fid, offset):
        return f"ISBLANK({self.REF})" if not fid.startswith("attest.") else f"OR(NOT({self.REF}),ISBLANK({self.REF}))"

    def param(self, name):
        return "p_" + name.replace(".", "_")

    def calc(self, name, offset):
        return self.REF

    def label(self, code):
        return f"lbl_{code}"

    def fy(self, offset):
        return self.REF

    def window(self, leaf, years, skip):
        rng = f"{self.REF}:$AA$1000"
        return f"SUMPRODUCT(({rng}>{self.REF}-{years})*({rng}<={self.REF}),{rng})"


#: nodes whose direct arguments must stay as they are: MIN/MAX/SUM/COUNTIF treat a referenced cell
#: differently from a computed value (blanks and text are ignored in references)
_KEEP_ARGS = (Max, Min, Sum, CountIf, InList)


def substitute(node: Node, old: Node, new: Node) -> Node:
    """``node`` with the subtree ``old`` (by identity) replaced by ``new``."""
    import copy
    import dataclasses

    if node is old:
        return new
    kids = node.children()
    if not kids:
        return node
    repl = [substitute(k, old, new) for k in kids]
    if all(a is b for a, b in zip(repl, kids)):
        return node
    if isinstance(node, (Bin, Cmp)):
        return dataclasses.replace(node, a=repl[0], b=repl[1])
    out = copy.copy(node)
    out.args = tuple(repl)
    return out


def hoistable(root: Node) -> list[tuple[Node, tuple[Node, ...]]]:
    """Subtrees of ``root`` that may move to a cell of their own without changing what any engine
    computes, each with its guards: the conditions under which ``root`` reads it (the branches of
    IFs it lies in, outermost first; none for a subtree read unconditionally). A guarded part moves
    as ``IF(g1, IF(g2, part, 0), 0)``: on its own it would be computed where a guard is false too,
    and there it can fail (#DIV/0!, text in arithmetic) where ``root`` never looks.

    A subtree that occurs more than once (the same node, shared) is offered only when one of its
    occurrences is read unconditionally: a part is substituted at every occurrence, and a guarded
    part would read 0 where another occurrence's guard holds and its own does not."""
    seen: dict[int, list] = {}
    order: list[Node] = []

    def visit(n: Node, guards: tuple[Node, ...]):
        for i, k in enumerate(n.children()):
            g = guards
            if isinstance(n, If) and i > 0:
                cond = n.args[0]
                g = guards + ((cond if i == 1 else Not(cond)),)
            if k.children():
                if id(k) not in seen:
                    seen[id(k)] = []
                    order.append(k)
                seen[id(k)].append(None if isinstance(n, _KEEP_ARGS) else g)
            visit(k, g)
    visit(root, ())
    out = []
    for k in order:
        uses = seen[id(k)]
        if any(u is None for u in uses):  # an argument MIN/MAX/SUM/COUNTIF must keep as it is
            continue
        if any(len(u) == 0 for u in uses):
            out.append((k, ()))
        elif len(uses) == 1:
            out.append((k, uses[0]))
    return out


def guarded_part(node: Node, guards: tuple[Node, ...]) -> Node:
    """The calculation a hoisted part becomes: itself, or nested ``IF(guard, …, 0)`` (never an AND,
    which would compute an inner guard where an outer one is false)."""
    for g in reversed(guards):
        node = If(g, node, Num(0))
    return node


def py(v, unit: str | None = None):
    """A numpy element -> a JSON-friendly Python value ("" -> None; date serials -> ISO)."""
    c = v.__class__
    if c is float:  # the scalar path's values first
        if unit == "日期":
            return from_serial(v).isoformat() if v >= 1 else None
        return v + 0.0
    if c is str:
        return None if v == "" else v
    if c is bool:
        return v
    if isinstance(v, str) and v == "":
        return None
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.floating, float, np.integer, int)):
        x = float(v)
        if unit == "日期":
            return from_serial(x).isoformat() if x >= 1 else None
        return x + 0.0
    return v
