"""Compiled renderings of the expression trees: plain Python for one case, typed numpy for many.

The trees of :mod:`xlmodel.rules.expr` render as Excel formula text (``Node.render``) and compute on
numpy arrays (``Node.eval``, the reference). This module renders the same trees twice more, as
Python source compiled once per model:

* :class:`ScalarProgram` — one function computing every calculation of one case as plain Python
  floats, bools and strings, in dependency order, each shared sub-expression once. It serves the
  single case (:func:`xlmodel.evaluator.evaluate`), the timeline and the worksheet functions.
* :class:`VectorProgram` — the same function on numpy arrays with no per-row Python: blanks and
  text as integer codes of one sorted string table (so that equality and order are integer
  comparisons), values that may be text or a number as a pair (number, code), IF by ``np.where``.
  It serves the batch (:func:`xlmodel.evaluator.evaluate_arrays`).

Both are lowered from the trees through one typed intermediate form (:class:`_Lower`), so every
node class has one reading of its semantics, taken from ``Node.eval``: the numpy dtype a node's
array would have there (float, bool, text, or a mixed object array) is its static type here, and
decides how a comparison orders values (numbers < text < booleans, DOMAIN.md §4), what a blank
reads as in arithmetic (text: NaN, the IF that discards it) and what an IF of a boolean and a
number gives (a number). Anything the lowering does not know raises :class:`Unsupported`; the
evaluator then falls back to ``Node.eval``.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Callable

from . import codegen, expr as E

F, B, S, O, T = "f", "b", "s", "o", "t"  # number, boolean, text, number-or-text-or-boolean, a list (InList)
_NAN, _INF = math.nan, math.inf
_FLOAT_MAX = 1.7976931348623157e308
_FEN = Decimal("0.01")


class Unsupported(Exception):
    """A tree this module cannot render (a node class it does not know)."""


# ---- the typed intermediate form ----------------------------------------------------------------

class _Lower:
    """Trees -> a hash-consed DAG of typed operations. ``ops[i] = (kind, attrs, args, type)``;
    children come before parents, so the list is a valid order of computation."""

    def __init__(self, model, ptypes: dict[str, str], windows: dict[str, int]):
        self.model, self.ptypes, self.windows = model, ptypes, windows
        self.ops: list[tuple] = []
        self._index: dict[tuple, int] = {}
        self._nodes: dict[tuple[int, int], tuple] = {}
        self.calcs: dict[tuple[str, int], int] = {}
        self._open: set = set()
        self._lowering: list[tuple[str, int]] = []  # the calculations being lowered, innermost last
        self.owner: list[tuple[str, int] | None] = []  # per operation: the calculation it was first made for

    def op(self, kind: str, attrs, args: tuple, typ: str) -> int:
        key = (kind, attrs, args)
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = len(self.ops)
            self.ops.append((kind, attrs, args, typ))
            self.owner.append(self._lowering[-1] if self._lowering else None)
        return i

    def t(self, i: int) -> str:
        return self.ops[i][3]

    def const(self, v) -> int:
        typ = B if isinstance(v, bool) else S if isinstance(v, str) else F
        return self.op("const", (typ, repr(v)), (), typ)

    # -- conversions (how numpy's astype/_num read each dtype) --
    def num(self, i: int) -> int:
        """``expr._num``: text -> NaN, booleans -> 0/1."""
        t = self.t(i)
        if t == F:
            return i
        if t == B:
            return self.op("b2f", None, (i,), F)
        if t == S:
            return self.const(_NAN)
        if t == O:
            return self.op("onum", None, (i,), F)
        raise Unsupported("a list where a number is expected")

    def strict(self, i: int) -> int:
        """``astype(float)``: as :meth:`num`, but text is an error (EDATE of a blank)."""
        t = self.t(i)
        if t in (S, O):
            return self.op("fstrict", t, (i,), F)
        return self.num(i)

    def truth(self, i: int) -> int:
        """``astype(bool)``: nonzero (NaN included), non-empty text."""
        t = self.t(i)
        if t == B:
            return i
        if t == F:
            return self.op("fbool", None, (i,), B)
        if t == S:
            return self.op("sbool", None, (i,), B)
        if t == O:
            return self.op("obool", None, (i,), B)
        raise Unsupported("a list where a truth value is expected")

    def mixed(self, i: int) -> int:
        t = self.t(i)
        return i if t == O else self.op("too", t, (i,), O)

    # -- calculations --
    def calc(self, name: str, shift: int) -> int:
        m = self.model
        if name in m.series:
            key, tree = (name, shift), m.series[name]
        elif name in m.scalars:
            key, tree = (name, 0), m.scalars[name]
        else:
            raise Unsupported(f"no calculation {name!r}")
        hit = self.calcs.get(key)
        if hit is None:
            if key in self._open:
                raise Unsupported(f"calculation {name!r} refers to itself")
            self._open.add(key)
            self._lowering.append(key)
            hit = self.calcs[key] = self.node(tree, key[1])
            self._lowering.pop()
            self._open.discard(key)
        return hit

    def node(self, n: E.Node, shift: int) -> int:
        key = (id(n), shift)
        hit = self._nodes.get(key)
        if hit is None or hit[0] is not n:  # the node is kept: an id is unique only while its object lives
            hit = self._nodes[key] = (n, self._lower(n, shift))
        return hit[1]

    def _lower(self, n: E.Node, s: int) -> int:
        """One node, by the rule :data:`_LOWERINGS` has for its class (exactly its class: a subclass
        has a reading of its own or none)."""
        rule = _LOWERINGS.get(type(n))
        if rule is None:
            raise Unsupported(f"node class {type(n).__name__}")
        return rule(self, n, s)

    # -- one reading per node class (the table _LOWERINGS, after the class) --
    def _num_node(self, n: E.Num, s: int) -> int:
        return self.const(float(n.value))

    def _blank(self, n: E.Blank, s: int) -> int:
        return self.const("")

    def _label(self, n: E.Lbl, s: int) -> int:
        return self.const(n.code)

    def _input(self, n: E.In, s: int) -> int:
        return self.field(n.fid, n.offset + s)

    def _missing_cells(self, n: E.Missing, s: int) -> int:
        cells = [self.missing(f, o + s) for f, o in n.cells]
        if not cells:
            return self.const(False)
        return cells[0] if len(cells) == 1 else self.op("or", None, tuple(cells), B)

    def _param_node(self, n: E.P, s: int) -> int:
        return self.param(n.name)

    def _calc_node(self, n: E.C, s: int) -> int:
        return self.calc(n.name, (n.offset or 0) + s if n.name in self.model.series else 0)

    def _fiscal_year(self, n: E.FY, s: int) -> int:
        return self.op("fy", n.offset + s, (), F)

    def _arith(self, n: E.Bin, s: int) -> int:
        if n.op not in ("+", "-", "*", "/"):
            raise Unsupported(f"operator {n.op}")
        return self.op("bin", n.op, (self.num(self.node(n.a, s)), self.num(self.node(n.b, s))), F)

    def _compare_node(self, n: E.Cmp, s: int) -> int:
        return self.compare(n.op, self.node(n.a, s), self.node(n.b, s))

    def _logic(self, n, s: int) -> int:
        args = tuple(self.truth(self.node(a, s)) for a in n.args)
        return args[0] if len(args) == 1 else self.op("and" if type(n) is E.And else "or", None, args, B)

    def _not(self, n: E.Not, s: int) -> int:
        return self.op("not", None, (self.truth(self.node(n.args[0], s)),), B)

    def _extreme_node(self, n, s: int) -> int:
        return self.extreme(n, s, "max" if type(n) is E.Max else "min")

    def _sum(self, n: E.Sum, s: int) -> int:
        out = self.num(self.node(n.args[0], s))
        for a in n.args[1:]:
            out = self.op("bin", "+", (out, self.num(self.node(a, s))), F)
        return out

    def _window(self, n: E.Window, s: int) -> int:
        n_years = self.windows[n.years.name]
        out = self.const(0.0)
        for o in range(-(n_years - 1), 1 - n.skip):
            out = self.op("bin", "+", (out, self.num(self.node(n._at(o), s))), F)
        return out

    def _round(self, n: E.Round2, s: int) -> int:
        return self.op("round", None, (self.num(self.node(n.args[0], s)),), F)

    def _if(self, n: E.If, s: int) -> int:
        return self.cond(self.truth(self.node(n.args[0], s)), self.node(n.args[1], s), self.node(n.args[2], s))

    def _in_list(self, n: E.InList, s: int) -> int:
        plist = n.args[1]
        if not isinstance(plist, E.P) or self.ptypes.get(plist.name) != T:
            raise Unsupported("InList needs a list parameter")
        return self.op("inlist", plist.name, (self.node(n.args[0], s),), B)

    def _count_if(self, n: E.CountIf, s: int) -> int:
        code = n.args[0]
        if not isinstance(code, E.Lbl):
            raise Unsupported("CountIf needs a label")
        return self.op("countif", code.code, tuple(self.node(c, s) for c in n.args[1:]), F)

    def _edate(self, n: E.EDate, s: int) -> int:
        return self.op("edate", None, (self.strict(self.node(n.args[0], s)), self.strict(self.node(n.args[1], s))), F)

    def _year_of(self, n: E.YearOf, s: int) -> int:
        return self.op("yearof", None, (self.num(self.node(n.args[0], s)),), F)

    def field(self, fid: str, off: int) -> int:
        return self.op("in", (fid, off), (), field_type(fid))

    def missing(self, fid: str, off: int) -> int:
        return self.op("miss", (fid, off), (), B)

    def param(self, name: str) -> int:
        typ = self.ptypes.get(name)
        if typ is None:
            raise Unsupported(f"no parameter {name!r}")
        if typ == T:
            raise Unsupported(f"the list parameter {name!r} outside InList")
        return self.op("param", name, (), typ)

    def compare(self, op: str, a: int, b: int) -> int:
        ta, tb = self.t(a), self.t(b)
        if ta in (F, B) and tb in (F, B) or ta == S and tb == S:
            return self.op("cmp", op, (a, b), B)  # one rank on both sides: compare the values
        if O not in (ta, tb):  # text against a number or a boolean: the ranks decide, whatever the values
            rank = {F: 0, S: 1, B: 2}
            return self.const(bool(_PYCMP[op](rank[ta], rank[tb])))
        return self.op("cmpo", op, (self.mixed(a), self.mixed(b)), B)

    def cond(self, c: int, a: int, b: int) -> int:
        ta, tb = self.t(a), self.t(b)
        if ta in (S, O) or tb in (S, O):  # an object array: each element as its branch has it
            if ta == S and tb == S:
                return self.op("if", None, (c, a, b), S)
            return self.op("if", None, (c, self.mixed(a), self.mixed(b)), O)
        if ta == B and tb == B:
            return self.op("if", None, (c, a, b), B)
        return self.op("if", None, (c, self.num(a), self.num(b)), F)  # np.where promotes booleans to numbers

    def extreme(self, n, s: int, which: str) -> int:
        """``expr._extreme``: references (input cells, calculations) ignore blanks and text, NaN
        (0 when nothing is left); computed arguments propagate NaN."""
        refs, computed = [], []
        for a in n.args:
            v = self.num(self.node(a, s))
            if isinstance(a, E.In):
                refs.append(self.op("nanif", None, (self.missing(a.fid, a.offset + s), v), F))
            elif isinstance(a, E.C):
                refs.append(v)
            else:
                computed.append(v)
        out = self.op("ref" + which, None, tuple(refs), F) if refs else None
        for v in computed:
            out = v if out is None else self.op("strict" + which, None, (out, v), F)
        return out


#: node class -> how it lowers (one reading of each class's semantics, taken from its ``eval``)
_LOWERINGS: dict[type, Callable[[_Lower, E.Node, int], int]] = {
    E.Num: _Lower._num_node, E.Blank: _Lower._blank, E.Lbl: _Lower._label, E.In: _Lower._input,
    E.Missing: _Lower._missing_cells, E.P: _Lower._param_node, E.C: _Lower._calc_node, E.FY: _Lower._fiscal_year,
    E.Bin: _Lower._arith, E.Cmp: _Lower._compare_node, E.And: _Lower._logic, E.Or: _Lower._logic,
    E.Not: _Lower._not, E.Max: _Lower._extreme_node, E.Min: _Lower._extreme_node, E.Sum: _Lower._sum,
    E.Window: _Lower._window, E.Round2: _Lower._round, E.If: _Lower._if, E.InList: _Lower._in_list,
    E.CountIf: _Lower._count_if, E.EDate: _Lower._edate, E.YearOf: _Lower._year_of,
}


_PYCMP = {">=": lambda x, y: x >= y, ">": lambda x, y: x > y, "<=": lambda x, y: x <= y,
          "<": lambda x, y: x < y, "=": lambda x, y: x == y, "<>": lambda x, y: x != y}
_PYOP = {">=": ">=", ">": ">", "<=": "<=", "<": "<", "=": "==", "<>": "!="}


def field_type(fid: str) -> str:
    """The static type of an input cell, as :func:`xlmodel.evaluator.encode` stores it."""
    from ..fields import FIELDS, Kind

    f = FIELDS.get(fid)
    kind = f.kind if f else Kind.BOOL  # attestation pseudo-fields are yes/no
    return B if kind == Kind.BOOL else S if kind in (Kind.ENUM, Kind.TEXT) else F


def param_type(v) -> str:
    if isinstance(v, bool):
        return B
    if isinstance(v, str):
        return S
    if isinstance(v, (tuple, list, set, frozenset)):
        return T
    return F


def window_years(v) -> int:
    """How many years a window of length ``v`` sums (``expr.Window.eval``)."""
    import numpy as np

    w = np.asarray(v, dtype=float).reshape(-1)[0]
    return int(math.ceil(w - 1e-9)) if w > 0 else 0


def _window_params(model) -> list[str]:
    """The parameters that set a window's length, per model (found once, kept with it)."""
    return model.derived.once("window parameters", _find_window_params, model)


def _find_window_params(model) -> list[str]:
    names = {}
    for tree in list(model.series.values()) + list(model.scalars.values()):
        for n in tree.walk():
            if isinstance(n, E.Window):
                names[n.years.name] = None
    return list(names)


def _signature(model, params: dict | None):
    """What a program is compiled for: the parameter types and the window lengths (values are bound later)."""
    vals = {name: (params[name] if params and name in params else p.value) for name, p in model.params.items()}
    ptypes = {name: param_type(v) for name, v in vals.items()}
    windows = {name: window_years(vals[name]) for name in _window_params(model)}
    return vals, ptypes, windows


def _refcounts(ops: list[tuple], roots) -> list[int]:
    count = [0] * len(ops)
    for kind, attrs, args, typ in ops:
        for a in args:
            count[a] += 1
    for r in roots:
        count[r] += 2  # a root is always a variable
    return count


# ---- the scalar rendering: plain Python ---------------------------------------------------------

def _round_fen_decimal(x: float) -> float:
    return float(Decimal(f"{x:.15g}").quantize(_FEN, rounding=ROUND_HALF_UP))


_RINT = 6755399441055744.0  # 1.5 * 2**52: y + _RINT - _RINT is y rounded to an integer, for |y| < 2**51


def round_fen1(x: float) -> float:
    """:func:`xlmodel.money.round_fen` of one float, with the same result: half away from zero, and
    within a few ulps of a half fen (or beyond 2**52 fen) decided in decimal at 15 digits.

    The common case in float arithmetic only: k, the nearest whole fen, by adding and taking away
    1.5 * 2**52; it is the answer when y = 100x lies clearly inside (k - 1/2, k + 1/2), i.e. not within
    max(1e-7, 16 ulp(y)) of a half fen (16 ulp(y) <= |y| * 2**-48; a |y| of 2**51 or more never passes,
    nor a NaN or an infinity). Anything else takes :func:`_round_fen_exact`."""
    y = x * 100.0
    k = (y + _RINT) - _RINT
    e = y - k  # exact
    t = 0.4999999 - (y if y >= 0.0 else -y) * 3.552713678800501e-15
    if -t < e < t:
        return k / 100.0 + 0.0
    return _round_fen_exact(x)


def _round_fen_exact(x: float) -> float:
    y = x * 100.0 if x >= 0.0 else x * -100.0
    if y < 4503599627370496.0:  # 2**52
        d = y - y // 1.0 - 0.5
        if d < 0.0:
            d = -d
        # round_fen's test is |frac - 0.5| < max(1e-7, 16 ulp(y)); 16 ulp(y) <= y * 2**-48
        if (d >= 1e-7 and d >= y * 3.552713678800501e-15) or d >= max(1e-7, math.ulp(y) * 16):
            out = ((y + 0.5) // 1.0) / 100.0
            return (-out if x < 0.0 else out) + 0.0
        return _half_fen(x)
    if y != y:
        return y
    return _round_fen_decimal(x) + 0.0  # beyond 2**52 fen (an infinity raises: the scalar program computes no
    # discarded lane, so one here is a fault; the vector program lets it through)


def _half_fen(x: float) -> float:
    """The decimal path near a half fen: a value that is the double nearest k/1000 (|k| < 10**15) has
    k/1000 as its 15 digits, rounded half up in integers; any other value in Decimal."""
    k = round(x * 1000.0)
    if -10**15 < k < 10**15 and k / 1000 == x:
        r = ((abs(k) + 5) // 10) / 100
        return (-r if x < 0.0 else r) + 0.0
    return _round_fen_decimal(x) + 0.0


def _div(a: float, b: float) -> float:
    """numpy's division (no exception): x/0 is ±inf, 0/0 and NaN/0 NaN."""
    if b:
        return a / b
    if a != a or a == 0:
        return _NAN
    return math.copysign(_INF, a) * math.copysign(1.0, b)


def _rank(x) -> int:
    c = x.__class__
    return 2 if c is bool else 1 if c is str else 0


_RANK = {bool: 2, str: 1}
_CMP_WORD = {">=": "ge", ">": "gt", "<=": "le", "<": "lt", "=": "eq", "<>": "ne"}


def _mk_cmpo(op: str):
    """A comparison across types (``expr._cmp_scalar``): the ranks (numbers < text < booleans) when
    they differ, else the values."""
    py = _PYOP[op]  # one of our six operators, never a plan's text
    src = codegen.function("cmpo", ["a", "b"], [
        "ra = _RANK.get(a.__class__, 0)  # numbers 0, text 1, booleans 2",
        "rb = _RANK.get(b.__class__, 0)",
        f"return a {py} b if ra == rb else ra {py} rb  # the values when of one rank, else the ranks"])
    return codegen.compile_source(src, "comparison", f"cmpo-{_CMP_WORD[op]}", {"_RANK": _RANK}, "cmpo")


def _onum(x) -> float:
    return _NAN if x.__class__ is str else float(x)


def _ntn(x: float) -> float:
    """np.nan_to_num(x, nan=0.0)."""
    if x != x:
        return 0.0
    if x == _INF:
        return _FLOAT_MAX
    if x == -_INF:
        return -_FLOAT_MAX
    return x


def _refmax(*xs) -> float:
    best = _NAN
    for x in xs:
        if x == x and not best >= x:  # np.fmax: NaN is ignored
            best = x
    return _ntn(best)


def _refmin(*xs) -> float:
    best = _NAN
    for x in xs:
        if x == x and not best <= x:
            best = x
    return _ntn(best)


def _strictmax(a, b):
    return a if a != a or a >= b else b  # np.maximum: NaN wins


def _strictmin(a, b):
    return a if a != a or a <= b else b


def _edate1(d: float, m: float) -> float:
    return E._edate(d, m) if d >= 1 else 0.0


def _yearof1(d: float) -> float:
    return float(E.from_serial(d).year) if 1 <= d < _INF else 0.0


def _fstrict(x) -> float:
    return float(x)


def _str(x):
    """A text value as a plain str (numpy's str_ too); anything else as it is."""
    return str(x) if isinstance(x, str) else x


_SCALAR_RT = {
    "_nan": _NAN, "_inf": _INF, "_div": _div, "_rf": round_fen1, "_RINT": _RINT, "_onum": _onum, "_refmax": _refmax,
    "_refmin": _refmin, "_strictmax": _strictmax, "_strictmin": _strictmin, "_edate1": _edate1,
    "_yearof1": _yearof1, "_fstrict": _fstrict, "_str": _str, "_EPOCH": E.EXCEL_EPOCH, "_E": {},
    **{f"_cmpo{i}": _mk_cmpo(op) for i, op in enumerate(_PYCMP)},
}
_CMPO_NAME = {op: f"_cmpo{i}" for i, op in enumerate(_PYCMP)}


def _lit(typ: str, v) -> str:
    if typ == F:
        if v != v:
            return "_nan"
        if v in (_INF, -_INF):
            return "_inf" if v > 0 else "(-_inf)"
        return repr(float(v))
    return repr(v)


def _at_year(name: str, off: int) -> str:
    """A calculation's or an input's id with its year offset, for a variable's name (``a_m1``: year -1)."""
    return name if not off else f"{name}_{'m' if off < 0 else 'p'}{abs(off)}"


def _offset_note(off: int) -> str:
    return f" (year {off:+d})" if off else ""


def _param_names(model, names: codegen.Names) -> dict[str, str]:
    """Each parameter's variable, ``p_`` and its name."""
    return {name: names.new(name, "p_") for name in model.params}


class _Emitter:
    """Shared by both renderings: which operations get a variable, the order, the nesting depth."""

    MAX_DEPTH = 40

    def __init__(self, low: _Lower, roots: list[int], names: codegen.Names):
        self.low, self.ops = low, low.ops
        self.names = names
        self.count = _refcounts(low.ops, roots)
        self.expr: dict[int, str] = {}
        self.depth: dict[int, int] = {}
        self.lines: list[str] = []
        self.inputs: dict[int, tuple] = {}  # op id -> ("in"|"miss", fid, off)
        self.input_names: dict[int, str] = {}  # op id -> its variable (v_… a value, m_… whether it is missing)
        self.calc_of: dict[int, tuple[str, int]] = {}  # op id -> the calculation it is (the first one)
        for key, i in low.calcs.items():
            self.calc_of.setdefault(i, key)

    def atom(self, i: int) -> bool:
        return self.ops[i][0] in ("const", "param", "in", "miss")

    def ref(self, i: int) -> str:
        return self.expr[i]

    def run(self):
        for i, op in enumerate(self.ops):
            kind, attrs, args, typ = op
            text = self.render(i, kind, attrs, args, typ)
            depth = 1 + max((self.depth[a] for a in args), default=0)
            if self.atom(i) or (self.count[i] < 2 and depth < self.MAX_DEPTH):
                self.expr[i], self.depth[i] = text, depth
            else:
                name, note = self.variable(i)
                self.lines.append(f"{name} = {text}{note}")
                self.expr[i], self.depth[i] = name, 0
        return self

    def variable(self, i: int) -> tuple[str, str]:
        """The name of operation ``i``'s variable and the comment of its line: ``c_`` and the id of the
        calculation it computes, or ``t_`` and its number, a part of the calculation it was made for."""
        key = self.calc_of.get(i)
        if key is not None:
            return self.names.new(_at_year(*key), "c_"), codegen.comment(key[0]) + _offset_note(key[1])
        owner = self.low.owner[i]
        note = "" if owner is None else codegen.comment(owner[0], "part of ") + _offset_note(owner[1])
        return self.names.new(str(i), "t_"), note

    def input_name(self, i: int, kind: str, fid: str, off: int) -> str:
        """The variable of an input cell's value (``v_``) or of whether it is missing (``m_``)."""
        hit = self.input_names.get(i)
        if hit is None:
            hit = self.input_names[i] = self.names.new(_at_year(fid, off), "v_" if kind == "in" else "m_")
        return hit


    #: kind -> its text, from the arguments' texts ({0}, {1}, …): the kinds a rendering writes by a
    #: pattern alone (each rendering has its own; those both write alike are here)
    TEMPLATES: dict[str, str] = {"onum": "_onum({0})", "fbool": "({0} != 0.0)", "round": "_rf({0})"}
    #: kind -> the operator that joins its arguments
    JOINS: dict[str, str] = {}

    def common(self, i, kind, attrs, a) -> str:  # noqa: C901
        """The kinds a rendering writes by its tables, and those both renderings write alike in code
        (Python operators on floats and on arrays, the helpers named the same in both preludes)."""
        template = self.TEMPLATES.get(kind) or _Emitter.TEMPLATES.get(kind)
        if template is not None:
            return template.format(*a)
        if kind in self.JOINS:
            return "(" + self.JOINS[kind].join(a) + ")"
        if kind == "param":
            return self.low.pindex[attrs]
        if kind in ("in", "miss"):
            self.inputs[i] = (kind, *attrs)
            return self.input_name(i, kind, *attrs)
        if kind == "fy":
            return f"(Y + {float(attrs)!r})" if attrs else "Y"
        if kind == "bin":
            return f"_div({a[0]}, {a[1]})" if attrs == "/" else f"({a[0]} {attrs} {a[1]})"
        if kind == "cmp":
            return f"({a[0]} {_PYOP[attrs]} {a[1]})"
        if kind == "cmpo":
            return f"{_CMPO_NAME[attrs]}({a[0]}, {a[1]})"
        if kind in ("refmax", "refmin", "strictmax", "strictmin"):
            return f"_{kind}({', '.join(a)})"
        raise Unsupported(kind)


#: ROUND(x, 2) in the scalar program: round_fen1's common case written in line (a call per rounding is
#: a third of the program's time), the function for the rest; the temporaries are set before each use
_ROUND_INLINE = ("(_k / 100.0 + 0.0 if -(_t := 0.4999999 - abs(_y := (_x := {0}) * 100.0) * 3.552713678800501e-15)"
                 " < _y - (_k := _y + _RINT - _RINT) < _t else _rf(_x))")


class _ScalarEmitter(_Emitter):
    TEMPLATES = {"round": _ROUND_INLINE, "b2f": "(1.0 if {0} else 0.0)", "fstrict": "_fstrict({0})",
                 "sbool": "({0} != '')", "obool": "bool({0})", "too": "{0}", "not": "(not {0})",
                 "nanif": "(_nan if {0} else {1})",
                 "if": "({1} if {0} else {2})", "edate": "_edate1({0}, {1})", "yearof": "_yearof1({0})"}
    JOINS = {"and": " and ", "or": " or "}

    def render(self, i, kind, attrs, args, typ) -> str:
        a = [self.ref(j) for j in args]
        if kind == "const":
            t, r = attrs
            return _lit(t, float(r)) if t == F else self.names.text(ast.literal_eval(r), "text") if t == S else r
        if kind == "inlist":
            return f"({a[0]} in {self.low.pindex[attrs]})"
        if kind == "countif":
            code = self.names.text(attrs, "label")
            if len(a) > 2:  # tuple.count compares with ==, as the sum of comparisons does, in one C loop
                return f"float(({', '.join(a)}).count({code}))"
            return "float(" + " + ".join(f"({x} == {code})" for x in a) + ")" if a else "0.0"
        return self.common(i, kind, attrs, a)


def _prepare_scalar_param(v, typ: str):
    if typ == T:
        return frozenset(v)
    if typ == F:
        return float(v)
    return v


#: the local names of a scalar program's ``run`` (no generated name may be one of them)
_SCALAR_LOCALS = ("_make", "run", "yrs", "co", "at", "Yi", "AY", "Y", "_k", "_t", "_y", "_x")


def _scalar_prologue(em: _ScalarEmitter, names: codegen.Names) -> list[str]:
    """A scalar program's first lines: each input cell it reads, once, as encode() stores it."""
    from ..fields import FIELDS, Kind

    pro: list[str] = []
    rows: dict[int, str] = {}
    cells: dict[tuple[str, int], dict[str, int]] = {}
    for i, (kind, fid, off) in sorted(em.inputs.items()):
        cells.setdefault((fid, off), {})[kind] = i
    for (fid, off), kinds in cells.items():
        off = int(off)
        x = names.new(_at_year(fid, off), "r_")
        f = FIELDS.get(fid)
        if fid.startswith("attest."):
            # an attestation is the evaluation year's (AY): given only where Yi + off is that year
            src = f"(at.get({names.text(fid[len('attest.'):], 'attestation')}) if Yi + {off} == AY else None)"
        elif f is not None and not f.per_year:
            src = f"co.get({names.text(fid, 'field')})"
        else:
            if off not in rows:
                rows[off] = names.new(_at_year("year", off), "d_")
                pro.append(f"{rows[off]} = yrs.get(Yi + {off}) or _E" if off else f"{rows[off]} = yrs.get(Yi) or _E")
            src = f"{rows[off]}.get({names.text(fid, 'field')})"
        pro.append(f"{x} = {src}" + codegen.comment(fid, "input ") + _offset_note(off))
        typ = field_type(fid)
        if "in" in kinds:
            if typ == B:
                enc = f"({x} is not None and bool({x}))"
            elif typ == S:
                enc = f"('' if {x} is None else {x} if {x}.__class__ is str else _str({x}))"
            elif f is not None and f.kind == Kind.DATE:
                enc = f"(0.0 if {x} is None else float(({x} - _EPOCH).days))"
            else:
                enc = f"(0.0 if {x} is None else float({x}))"
            pro.append(f"{em.input_names[kinds['in']]} = {enc}")
        if "miss" in kinds:
            m = em.input_names[kinds["miss"]]
            pro.append(f"{m} = False" if f is not None and f.default_zero else f"{m} = {x} is None")
    return pro


class ScalarProgram:
    """Every calculation of one case in plain Python: ``run(case_years, company, attestations, year,
    attestation_year)`` -> a tuple of values (floats, bools, str), one per root.

    ``roots``: the calculations it returns, ``(name, shift)`` (default: every scalar of the model)."""

    def __init__(self, model, params: dict | None = None, roots: list[tuple[str, int]] | None = None):
        vals, ptypes, windows = _signature(model, params)
        ns = dict(_SCALAR_RT)
        names = codegen.Names(ns, reserved=_SCALAR_LOCALS)
        low = _Lower(model, ptypes, windows)
        low.pindex = _param_names(model, names)
        self.names = list(roots or [(n, 0) for n in model.scalars])
        root_ids = [low.calc(n, s) for n, s in self.names]
        em = _ScalarEmitter(low, root_ids, names).run()
        self.index = {n: i for i, (n, _) in enumerate(self.names)}
        self.types = [low.ops[r][3] for r in root_ids]
        self.ops = len(low.ops)
        ret = ", ".join(em.expr[r] for r in root_ids)
        body = ["Y = float(Yi)"] + _scalar_prologue(em, names) + em.lines + [f"return ({ret},)"]
        run = codegen.function("run", ["yrs", "co", "at", "Yi", "AY"], body).splitlines()
        self.source = codegen.function("_make", list(low.pindex.values()), run + ["return run"])
        self._make = codegen.compile_source(self.source, "scalar", model.policy.id, ns, "_make")
        self._ptypes = ptypes
        self._pnames = list(model.params)

    def bind(self, vals: dict) -> Callable:
        """The program with parameter values bound (the plan's, or a workbook's edited ones)."""
        return self._make(*[_prepare_scalar_param(vals[n], self._ptypes[n]) for n in self._pnames])


class ScalarEnv:
    """One case's calculations, read like :class:`xlmodel.evaluator.ArrayEnv` (element 0)."""

    __slots__ = ("values", "index", "types", "case_years", "company", "attest", "year", "n")

    def __init__(self, values: tuple, index: dict, types: list[str], case_years, company, attest, year: int):
        self.values, self.index, self.types = values, index, types
        self.case_years, self.company, self.attest, self.year = case_years, company, attest, year
        self.n = 1

    def value(self, name: str):
        return self.values[self.index[name]]

    def calc(self, name: str, offset=None):
        return (self.values[self.index[name]],)

    def missing(self, fid: str, offset: int):
        return (cell_missing(fid, raw_cell(self.case_years, self.company, self.attest, self.year, fid, offset)),)


def raw_cell(case_years, company, attest, year: int, fid: str, off: int):
    """A case's value of an input cell (None: absent), as :func:`xlmodel.evaluator.case_getter` reads it."""
    from ..fields import FIELDS

    if fid.startswith("attest."):
        return attest.get(fid[len("attest."):]) if off == 0 else None
    f = FIELDS.get(fid)
    if f is not None and not f.per_year:
        return company.get(fid)
    return (case_years.get(year + off) or {}).get(fid)


def cell_missing(fid: str, v) -> bool:
    from ..fields import FIELDS

    f = FIELDS.get(fid)
    return v is None and not (f is not None and f.default_zero)


# ---- the vector rendering: numpy without per-row Python -----------------------------------------

def round_fen_v(x):
    """:func:`xlmodel.money.round_fen` on an array, with the same result: the exact test for a value
    near a half fen only where a cheap bound says it may be, the decimal path as :func:`_half_fen`."""
    import numpy as np

    x = np.asarray(x, dtype=float)
    if x.ndim == 0:
        return round_fen1(float(x))
    y = np.abs(x) * 100.0
    with np.errstate(invalid="ignore"):  # inf − inf in a lane an IF discards
        d = np.abs(y - np.floor(y) - 0.5)
    out = np.copysign(np.floor(y + 0.5) / 100.0, x)
    maybe = ~((d >= 1e-7) & (d >= y * 3.552713678800501e-15) & (y < 4503599627370496.0))
    if maybe.any():
        idx = np.flatnonzero(maybe)
        yc = y[idx]
        # an infinity passes through (a lane an IF discards), as in round_fen
        near = ((np.abs(yc - np.floor(yc) - 0.5) < np.maximum(1e-7, np.spacing(yc) * 16)) | (yc >= 4503599627370496.0)) \
            & np.isfinite(yc)
        idx = idx[near]
        if len(idx):
            xs = x[idx]
            with np.errstate(all="ignore"):
                k = np.rint(xs * 1000.0)
                exact = (k / 1000.0 == xs) & (np.abs(k) < 1e15)
            q = np.floor((np.abs(k[exact]) + 5.0) / 10.0) / 100.0
            out[idx[exact]] = np.copysign(q, xs[exact])
            rest = idx[~exact]
            if len(rest):
                out[rest] = [_round_fen_decimal(v) for v in x[rest].tolist()]
    return out + 0.0


def _vector_rt():
    import numpy as np

    def tof(x):
        return x.astype(np.float64) if isinstance(x, np.ndarray) else float(x)

    def onum(x):
        f, s = x
        return np.where(np.less(s, 0), f, np.nan)

    def obool(x, k_empty):
        f, s = x
        return np.where(np.greater_equal(s, 0), np.not_equal(s, k_empty), np.not_equal(f, 0.0))

    def ostrict(x):
        f, s = x
        if np.any(np.greater_equal(s, 0)):
            raise ValueError("could not convert a blank or text to a number")
        return f

    def sstrict(x):
        raise ValueError("could not convert a blank or text to a number")

    def rank(s):
        return np.where(np.equal(s, -1), 0, np.where(np.equal(s, -2), 2, 1))

    def mk_cmpo(ufunc):
        def cmpo(a, b):
            (fa, sa), (fb, sb) = a, b
            ra, rb = rank(sa), rank(sb)
            same = np.where(np.equal(ra, 1), ufunc(sa, sb), ufunc(fa, fb))
            return np.where(np.equal(ra, rb), same, ufunc(ra, rb))
        return cmpo

    def oif(c, a, b):
        return np.where(c, a[0], b[0]), np.where(c, a[1], b[1])

    def refmax(*xs):
        out = xs[0]
        for x in xs[1:]:
            out = np.fmax(out, x)
        return np.nan_to_num(out, nan=0.0)

    def refmin(*xs):
        out = xs[0]
        for x in xs[1:]:
            out = np.fmin(out, x)
        return np.nan_to_num(out, nan=0.0)

    epoch = np.datetime64(E.EXCEL_EPOCH, "D")
    max_serial = float((dt.date.max - E.EXCEL_EPOCH).days)

    def edate(d, m, n):
        """``EDate.eval`` in datetime64 (month arithmetic, the day clamped to the month's end);
        anything ``_edate`` would refuse (from December 9999 on, months not a number) by ``_edate`` itself."""
        d = np.broadcast_to(np.asarray(d, dtype=float), (n,))
        m = np.broadcast_to(np.asarray(m, dtype=float), (n,))
        ok = d >= 1
        out = np.zeros(n, dtype=float)
        if not ok.any():
            return out
        dk, mk = d[ok], m[ok]
        if (dk <= max_serial).all() and np.isfinite(mk).all() and (np.abs(mk) < 1e6).all():
            day = epoch + dk.astype(np.int64).astype("timedelta64[D]")
            month = day.astype("datetime64[M]")
            target = month + np.trunc(mk).astype(np.int64).astype("timedelta64[M]")
            if ((target >= np.datetime64("0001-01", "M")) & (target < np.datetime64("9999-12", "M"))).all():
                start = target.astype("datetime64[D]")
                length = ((target + 1).astype("datetime64[D]") - start).astype(np.int64)
                within = np.minimum((day - month.astype("datetime64[D]")).astype(np.int64), length - 1)
                out[ok] = ((start - epoch).astype(np.int64) + within).astype(float)
                return out
        out[ok] = E._edate_v(dk, mk).astype(float)
        return out

    def yearof(d, n):
        d = np.broadcast_to(np.asarray(d, dtype=float), (n,))
        out = np.zeros(n, dtype=float)
        ok = np.isfinite(d) & (d >= 1)
        if ok.any():
            dk = d[ok]
            if (dk < max_serial + 1).all():
                days = epoch + dk.astype(np.int64).astype("timedelta64[D]")
                out[ok] = (days.astype("datetime64[Y]").astype(np.int64) + 1970).astype(float)
            else:  # beyond 9999-12-31: from_serial's own error
                out[ok] = E._year_of_v(dk).astype(float)
        return out

    def inlist_o(x, codes, nums):
        f, s = x
        return np.where(np.greater_equal(s, 0), np.isin(s, codes), np.isin(f, nums))

    return {
        "np": np, "_nan": np.nan, "_inf": np.inf, "_tof": tof, "_onum": onum, "_obool": obool,
        "_ostrict": ostrict, "_sstrict": sstrict, "_oif": oif, "_refmax": refmax, "_refmin": refmin,
        "_strictmax": np.maximum, "_strictmin": np.minimum, "_rf": round_fen_v, "_edate": edate,
        "_yearof": yearof, "_inlist_o": inlist_o, "_div": np.divide, "_where": np.where, "_not": np.logical_not,
        "_isin": np.isin,
        **{f"_cmpo{i}": mk_cmpo(u) for i, u in enumerate(
            (np.greater_equal, np.greater, np.less_equal, np.less, np.equal, np.not_equal))},
    }


class _VectorEmitter(_Emitter):
    """Types on arrays: F float64, B bool, S int64 codes of the sorted string table, O a pair
    (float64 numbers with booleans as 0/1, int64 codes: -1 a number, -2 a boolean, else text)."""

    def __init__(self, low, roots, names: codegen.Names, strings: dict[str, int]):
        super().__init__(low, roots, names)
        self.strings = strings  # every string constant -> its index in K

    def k(self, s: str) -> str:
        if s not in self.strings:
            self.strings[s] = len(self.strings)
        return f"k{self.strings[s]}"

    TEMPLATES = {"b2f": "_tof({0})", "not": "_not({0})", "nanif": "_where({0}, _nan, {1})",
                 "edate": "_edate({0}, {1}, N)", "yearof": "_yearof({0}, N)"}
    JOINS = {"and": " & ", "or": " | "}

    def render(self, i, kind, attrs, args, typ) -> str:  # noqa: C901
        a = [self.ref(j) for j in args]
        ta = [self.ops[j][3] for j in args]
        if kind == "const":
            t, r = attrs
            if t == S:
                return self.k(ast.literal_eval(r))
            return _lit(t, float(r)) if t == F else r
        if kind == "fstrict":
            return f"_ostrict({a[0]})" if attrs == O else f"_sstrict({a[0]})"
        if kind == "sbool":
            return f"({a[0]} != {self.k('')})"
        if kind == "obool":
            return f"_obool({a[0]}, {self.k('')})"
        if kind == "too":
            return f"({a[0]}, -1)" if attrs == F else f"(_tof({a[0]}), -2)" if attrs == B else f"(_nan, {a[0]})"
        if kind == "if":
            return f"_oif({a[0]}, {a[1]}, {a[2]})" if typ == O else f"_where({a[0]}, {a[1]}, {a[2]})"
        if kind == "inlist":
            return self._inlist(a[0], ta[0], self.low.pindex[attrs])
        if kind == "countif":
            parts = [f"({x} == {self.k(attrs)})" if t == S else f"({x}[1] == {self.k(attrs)})"
                     for x, t in zip(a, ta) if t in (S, O)]
            return "(0.0 + " + " + ".join(parts) + ")" if parts else "0.0"
        return self.common(i, kind, attrs, a)

    @staticmethod
    def _inlist(x: str, t: str, p: str) -> str:
        """A value in a parameter's list: text codes, text-or-number pairs, booleans or numbers."""
        if t == S:
            return f"_isin({x}, {p}[0])"
        if t == O:
            return f"_inlist_o({x}, {p}[0], {p}[1])"
        if t == B:
            return f"_isin(_tof({x}), {p}[1])"
        return f"_isin({x}, {p}[1])"


def _vector_prologue(em: _VectorEmitter, low: _Lower, constants: list[str]) -> list[str]:
    """A vector program's first lines: its inputs (``I``, in the order of ``em.inputs``), string
    codes (``K``) and parameters (``PV``), one variable a line."""
    lines = [f"{em.input_names[i]} = I[{j}]" + codegen.comment(fid) + _offset_note(int(off))
             for j, (i, (kind, fid, off)) in enumerate(sorted(em.inputs.items()))]
    lines += [f"k{j} = K[{j}]" + (codegen.comment(s, "the code of ") if s else "  # the code of a blank")
              for j, s in enumerate(constants)]
    lines += [f"{var} = PV[{j}]" + codegen.comment(name) for j, (name, var) in enumerate(low.pindex.items())]
    return lines or ["pass"]


class VectorProgram:
    """Every calculation for ``n`` cases at once on numpy arrays: ``evaluate(getter, years, n, params)``."""

    def __init__(self, model, params: dict | None = None, roots: list[tuple[str, int]] | None = None):
        import numpy as np

        from ..fields import ENUMS

        vals, ptypes, windows = _signature(model, params)
        ns = _vector_rt()
        names = codegen.Names(ns, reserved=("run", "I", "K", "PV", "Y", "N"))
        low = _Lower(model, ptypes, windows)
        low.pindex = _param_names(model, names)
        self.names = list(roots or [(n, 0) for n in model.scalars])
        root_ids = [low.calc(n, s) for n, s in self.names]
        self.calc_ids = dict(low.calcs)
        strings: dict[str, int] = {}
        em = _VectorEmitter(low, root_ids, names, strings).run()
        self.types = [low.ops[r][3] for r in root_ids]
        self.index = {n: i for i, (n, _) in enumerate(self.names)}
        self.ops = len(low.ops)
        self.inputs = [em.inputs[i] + (low.ops[i][3],) for i in sorted(em.inputs)]
        # the string table: every constant, list parameter and enumeration value, sorted (codes keep the order)
        known = set(strings) | {""}
        for name, v in vals.items():
            if ptypes[name] == S:
                known.add(v)
            elif ptypes[name] == T:
                known.update(x for x in v if isinstance(x, str))
        for kind, fid, off, typ in self.inputs:
            if typ == S and fid in ENUMS:
                known.update(ENUMS[fid])
        for s in known:
            em.k(s)
        self.constants = list(strings)  # K order
        self.table = sorted(known)
        self._table_u = np.array(self.table, dtype=str)
        self._codes = {s: i for i, s in enumerate(self.table)}
        ret = ", ".join(em.expr[r] for r in root_ids)
        body = (_vector_prologue(em, low, self.constants) + em.lines + [f"return ({ret},)"])
        self.source = codegen.function("run", ["I", "K", "PV", "Y", "N"], body)
        self._run = codegen.compile_source(self.source, "vector", model.policy.id, ns, "run")
        self._ptypes, self._pnames = ptypes, list(model.params)
        self._k_static = [self._codes[s] for s in self.constants]
        self.model = model

    # -- encoding --
    def _encode_text(self, arrays: list):
        """Text inputs as codes of the string table; a text the table lacks (a free-text field) makes
        a table for this evaluation, the static strings and the inputs' own, sorted."""
        import numpy as np

        texts = [np.asarray(a, dtype=str) for a in arrays]
        tab = self._table_u
        out = []
        for u in texts:
            idx = np.minimum(np.searchsorted(tab, u), len(tab) - 1)
            if not (tab[idx] == u).all():
                break
            out.append(idx)
        else:
            return out, self.table, self._codes, self._k_static
        extra = set()
        for u in texts:
            extra.update(np.unique(u).tolist())
        table = sorted(set(self.table) | extra)
        codes = {t: i for i, t in enumerate(table)}
        tab = np.array(table, dtype=str)
        return ([np.searchsorted(tab, u) for u in texts], table, codes, [codes[t] for t in self.constants])

    def _params(self, vals: dict, codes: dict):
        import numpy as np

        out = []
        for name in self._pnames:
            v, t = vals[name], self._ptypes[name]
            if t == T:
                cs = np.array(sorted(codes[x] for x in v if isinstance(x, str)), dtype=np.int64)
                nums = np.array([float(x) for x in v if isinstance(x, (int, float)) and not isinstance(x, str)], dtype=float)
                out.append((cs, nums))
            elif t == S:
                out.append(codes[v])
            elif t == F:
                out.append(float(v))
            else:
                out.append(v)
        return out

    def evaluate(self, getter, years, n: int, params: dict | None = None) -> VectorEnv:
        import numpy as np

        model = self.model
        vals = param_values(model, params)
        fetched: dict[tuple[str, int], tuple] = {}
        for kind, fid, off, typ in self.inputs:
            if (fid, off) not in fetched:
                fetched[(fid, off)] = getter(fid, off)
        text = [fetched[(fid, off)][0] for kind, fid, off, typ in self.inputs if kind == "in" and typ == S]
        coded, table, codes, K = self._encode_text(text)
        coded = iter(coded)
        inputs = []
        for kind, fid, off, typ in self.inputs:
            vals_, miss = fetched[(fid, off)]
            if kind == "miss":
                inputs.append(np.asarray(miss, dtype=bool))
            elif typ == S:
                inputs.append(next(coded))
            elif typ == B:
                inputs.append(np.asarray(vals_, dtype=bool))
            else:
                inputs.append(np.asarray(vals_, dtype=float))
        Y = np.broadcast_to(np.asarray(years if years is not None else 0, dtype=float), (n,))
        with np.errstate(all="ignore"):
            out = self._run(inputs, K, self._params(vals, codes), Y, n)
        return VectorEnv(self, out, table, codes, n, fetched, getter, years, params)


class VectorEnv:
    """Calculations of ``n`` cases, read like :class:`xlmodel.evaluator.ArrayEnv`: ``calc`` gives the
    arrays ``Node.eval`` gives (object arrays for text); ``column`` a result column; ``codes`` text as
    codes of ``table``. A calculation the program did not compute (a series at another offset) is
    computed by ``Node.eval``."""

    def __init__(self, prog: VectorProgram, out: tuple, table: list, codes: dict, n: int, fetched, getter, years, params):
        self.prog, self.out, self.table, self.codes, self.n = prog, out, table, codes, n
        self._fetched, self._get, self._years, self._params = fetched, getter, years, params
        self._calcs: dict = {}
        self._ref = None
        self.model = prog.model

    def _raw(self, name: str):
        i = self.prog.index.get(name)
        if i is None:
            return None, None
        return self.out[i], self.prog.types[i]

    def typed(self, name: str):
        """(value, type): F float array, B bool array, S codes, O (numbers, codes), broadcast to n."""
        import numpy as np

        v, t = self._raw(name)
        if t == O:
            return (np.broadcast_to(np.asarray(v[0], dtype=float), (self.n,)),
                    np.broadcast_to(np.asarray(v[1], dtype=np.int64), (self.n,))), t
        dtype = {F: float, B: bool, S: np.int64}[t]
        return np.broadcast_to(np.asarray(v, dtype=dtype), (self.n,)), t

    def calc(self, name: str, offset=None):
        import numpy as np

        key = name if name in self.prog.index and (name not in self.model.series or not offset) else (name, offset)
        hit = self._calcs.get(key)
        if hit is not None:
            return hit
        if key != name:  # a series at another offset: the reference evaluator
            hit = self.reference().calc(name, offset)
        else:
            v, t = self.typed(name)
            if t == F:
                hit = np.array(v, dtype=float)
            elif t == B:
                hit = np.array(v, dtype=bool)
            elif t == S:
                hit = np.asarray(self.table, dtype=object)[v]
            else:
                hit = self._objects(*v)
        self._calcs[key] = hit
        return hit

    def _objects(self, f, s):
        """A mixed value as an object array: text, Python bools and floats, as ``If.eval`` builds it."""
        import numpy as np

        out = f.astype(object)
        txt = s >= 0
        if txt.any():
            out[txt] = np.asarray(self.table, dtype=object)[s[txt]]
        bl = s == -2
        if bl.any():
            out[bl] = f[bl] != 0
        return out

    def column(self, name: str):
        """A calculation as a result column, as ``batch._col`` makes it: blank text -> None (objects) or
        NaN (numbers); text, booleans and blanks only -> an object array."""
        import numpy as np

        v, t = self.typed(name)
        if t == F:
            return np.array(v, dtype=float)
        if t == B:
            return np.array(v, dtype=bool)
        tab = np.asarray(self.table, dtype=object)
        empty = self.codes.get("")
        if t == S:
            out = tab[v]
            out[v == empty] = None
            return out
        f, s = v
        if not (s == -1).any():  # no numbers: an object column of None, bools and text
            out = np.empty(self.n, dtype=object)
            txt = (s >= 0) & (s != empty)
            out[txt] = tab[s[txt]]
            bl = s == -2
            out[bl] = f[bl] != 0
            return out
        if ((s >= 0) & (s != empty)).any():
            raise ValueError(f"{name}: text and numbers in one column")
        return np.where(s >= 0, np.nan, f)

    def status_codes(self, name: str):
        v, t = self.typed(name)
        if t != S:
            raise ValueError(f"{name} is not text")
        return v

    def missing(self, fid: str, offset: int):
        hit = self._fetched.get((fid, offset))
        if hit is None:
            hit = self._fetched[(fid, offset)] = self._get(fid, offset)
        return hit[1]

    def field(self, fid: str, offset: int):
        hit = self._fetched.get((fid, offset))
        if hit is None:
            hit = self._fetched[(fid, offset)] = self._get(fid, offset)
        return hit[0]

    def reference(self):
        if self._ref is None:
            from .env import ArrayEnv

            self._ref = ArrayEnv(self.model, self.n, self._get, self._years, self._params)
            self._ref._inputs.update(self._fetched)
        return self._ref


# ---- what is kept: with the model (model.derived), never in a table keyed by id(model) ---------------

def _key(model, params, roots):
    vals, ptypes, windows = _signature(model, params)
    return (tuple(sorted(ptypes.items())), tuple(sorted(windows.items())), tuple(roots) if roots else None)


#: programs a model keeps of each rendering at most (a process that tries many parameter types or window
#: lengths on one model compiles again)
MAX_CACHED = 64


def scalar_program(model, params: dict | None = None, roots=None) -> ScalarProgram:
    """The model's scalar program for parameters of these types and window lengths (compiled once)."""
    key = _key(model, params, roots)
    progs = model.derived.table("scalar programs", MAX_CACHED)
    hit = progs.get(key)
    if hit is None:
        hit = progs.put(key, ScalarProgram(model, params, roots))
    return hit


def vector_program(model, params: dict | None = None, roots=None) -> VectorProgram:
    """The model's vector program for parameters of these types and window lengths (compiled once)."""
    key = _key(model, params, roots)
    progs = model.derived.table("vector programs", MAX_CACHED)
    hit = progs.get(key)
    if hit is None:
        hit = progs.put(key, VectorProgram(model, params, roots))
    return hit


def param_values(model, params: dict | None = None) -> dict:
    return {name: (params[name] if params and name in params else p.value) for name, p in model.params.items()}


def scalar_runner(model, params: dict | None = None, roots=None) -> tuple[Callable, ScalarProgram]:
    """A scalar program with its parameter values bound: the plan's own (kept with the model per roots
    object: a caller that evaluates often passes the same ``roots`` each time), or ``params``."""
    if params:
        prog = scalar_program(model, params, roots)
        return prog.bind(param_values(model, params)), prog
    bound = model.derived.table("bound scalar programs", MAX_CACHED)
    hit = bound.get(None if roots is None else id(roots))
    if hit is None or hit[2] is not roots:  # (hit[2] keeps the roots' id taken while the entry is kept)
        prog = scalar_program(model, None, roots)
        hit = bound.put(None if roots is None else id(roots), (prog.bind(param_values(model)), prog, roots))
    return hit[0], hit[1]


def evaluate_scalar(model, case, params: dict | None = None, roots=None) -> ScalarEnv:
    """The scalar calculations of one case (its evaluation year), in plain Python: every one, or
    ``roots`` (``(name, 0)`` pairs) and what they need."""
    run, prog = scalar_runner(model, params, roots)
    ey = case.evaluation_year
    return ScalarEnv(run(case.years, case.company, case.attestations, ey, ey), prog.index, prog.types, case.years,
                     case.company, case.attestations, ey)


def evaluate_case_year(model, case, year: int, params: dict | None = None) -> ScalarEnv:
    """The case evaluated in ``year`` (as a timeline column: attestations only in the evaluation year)."""
    import dataclasses

    if year == case.evaluation_year:
        return evaluate_scalar(model, case, params)
    return evaluate_scalar(model, dataclasses.replace(case, evaluation_year=year, attestations={}), params)


class TimelineEnv:
    """A case in every one of ``years`` (the workbook's timeline), read like
    :class:`xlmodel.evaluator.ArrayEnv`: element *j* of ``calc(name, offset)`` is the case evaluated
    in ``years[j]``, attestations only in its evaluation year; a series at ``offset`` is the series
    of the year ``years[j] + offset``."""

    def __init__(self, model, case, years: list[int], params: dict | None = None):
        import dataclasses

        self.model, self.case, self.years, self.n, self.params = model, case, list(years), len(years), params
        self.cases = [case if y == case.evaluation_year else dataclasses.replace(case, evaluation_year=y, attestations={})
                      for y in self.years]
        self.envs = [evaluate_scalar(model, c, params) for c in self.cases]
        prog = scalar_program(model, params)
        self._types = dict(zip((n for n, _ in prog.names), prog.types))
        self._calcs: dict = {}
        self._series = None

    def _array(self, values: list, typ: str):
        import numpy as np

        if typ == F:
            return np.array(values, dtype=float)
        if typ == B:
            return np.array(values, dtype=bool)
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out

    def calc(self, name: str, offset=None):
        series = name in self.model.series
        key = (name, offset or 0) if series else (name, None)
        hit = self._calcs.get(key)
        if hit is None:
            if series:
                hit = self._series_at(name, offset or 0)
            else:
                hit = self._array([e.values[e.index[name]] for e in self.envs], self._types[name])
            self._calcs[key] = hit
        return hit

    def _series_at(self, name: str, offset: int):
        if self._series is None:
            self._series = scalar_runner(self.model, self.params, roots=[(s, 0) for s in self.model.series])
        run, prog = self._series
        c, ey = self.case, self.case.evaluation_year
        i = prog.index[name]
        out = [run(c.years, c.company, c.attestations, y + offset, ey if y == ey else None)[i] for y in self.years]
        return self._array(out, prog.types[i])

    def missing(self, fid: str, offset: int):
        import numpy as np

        return np.array([e.missing(fid, offset)[0] for e in self.envs], dtype=bool)
