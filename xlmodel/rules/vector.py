"""The numpy renderer: many cases' program on arrays without per-row Python (VectorProgram), its runtime and
its environment (VectorEnv).
"""

from __future__ import annotations

import ast
import datetime as dt

from . import codegen, expr as E
from .compiled import (B, F, MAX_CACHED, O, S, T, _Emitter, _Lower, _key, _lit, _offset_note, _param_names, _signature,
                       param_values, round_fen_v)


def _vector_dates():
    """The date functions of the numpy runtime, on serials in datetime64: EDATE and the year of a date."""
    import numpy as np

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

    return edate, yearof


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

    edate, yearof = _vector_dates()

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


def vector_program(model, params: dict | None = None, roots=None) -> VectorProgram:
    """The model's vector program for parameters of these types and window lengths (compiled once)."""
    key = _key(model, params, roots)
    progs = model.derived.table("vector programs", MAX_CACHED)
    hit = progs.get(key)
    if hit is None:
        hit = progs.put(key, VectorProgram(model, params, roots))
    return hit
