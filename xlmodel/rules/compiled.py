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


# ---- what is kept: with the model (model.derived), never in a table keyed by id(model) ---------------

def _key(model, params, roots):
    vals, ptypes, windows = _signature(model, params)
    return (tuple(sorted(ptypes.items())), tuple(sorted(windows.items())), tuple(roots) if roots else None)


#: programs a model keeps of each rendering at most (a process that tries many parameter types or window
#: lengths on one model compiles again)
MAX_CACHED = 64


def param_values(model, params: dict | None = None) -> dict:
    return {name: (params[name] if params and name in params else p.value) for name, p in model.params.items()}
