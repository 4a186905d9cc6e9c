"""The XlsxWriter floor of a build: the same XlsxWriter calls, replayed with nothing else around them.

:func:`record` runs a build once with every public method of XlsxWriter's ``Workbook``,
``Worksheet`` and ``Chart`` classes wrapped, and keeps the outermost calls (a method that calls
another is one call), with the objects they pass and return. :func:`replay` makes those calls
again on a fresh workbook: the same cells, formats, validations, names, charts and properties,
written by XlsxWriter alone. A build's time over its replay's is what xlmodel adds (layout,
evaluation, formula rendering, checks).
"""

from __future__ import annotations

import functools
import inspect

import xlsxwriter
from xlsxwriter.chart import Chart
from xlsxwriter.format import Format
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

_CLASSES = (Workbook, Worksheet, Chart)


class _Ref(tuple):
    """An object the build made (a workbook, sheet, format, chart), by its order of appearance."""


def record(build) -> list[tuple]:
    """The XlsxWriter calls ``build()`` makes: ``(self, method, args, kwargs, result)``, objects as :class:`_Ref`."""
    log: list[tuple] = []
    depth = [0]
    ids: dict[int, int] = {}
    keep: list = []  # the objects, kept alive so that their ids stay theirs

    def ref(o):
        if isinstance(o, (Workbook, Worksheet, Chart, Format)):
            if id(o) not in ids:
                ids[id(o)] = len(ids)
                keep.append(o)
            return _Ref((ids[id(o)],))
        if isinstance(o, dict):
            return {k: ref(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)) and not isinstance(o, _Ref):
            return type(o)(ref(v) for v in o)
        return o

    def wrap(f, name):
        @functools.wraps(f)
        def call(self, *a, **k):
            depth[0] += 1
            try:
                r = f(self, *a, **k)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                log.append((ref(self), name, ref(a), ref(k), ref(r)))
            return r
        return call

    init = Workbook.__init__

    def workbook_init(self, filename=None, options=None):
        depth[0] += 1
        try:
            init(self, filename, options)
        finally:
            depth[0] -= 1
        log.append((None, "__init__", (), {"options": ref(dict(options or {}))}, ref(self)))

    saved = []
    for cls in _CLASSES:
        for name, f in list(vars(cls).items()):
            if not name.startswith("_") and inspect.isfunction(f):
                saved.append((cls, name, f))
                setattr(cls, name, wrap(f, name))
    saved.append((Workbook, "__init__", init))
    Workbook.__init__ = workbook_init
    try:
        build()
    finally:
        for cls, name, f in saved:
            setattr(cls, name, f)
    return log


def _plan(log: list[tuple]) -> list[tuple]:
    """The log as replay steps: each argument that is an object the build made, by its position, so
    that a replay only puts the objects in (nested ones — a format inside an options dict — too)."""
    def has_ref(o) -> bool:
        if isinstance(o, _Ref):
            return True
        if isinstance(o, dict):
            return any(has_ref(v) for v in o.values())
        if isinstance(o, (list, tuple)):
            return any(has_ref(v) for v in o)
        return False

    steps = []
    for self_, name, a, k, r in log:
        subs = [(i, v) for i, v in enumerate(a) if has_ref(v)]
        ksubs = [(key, v) for key, v in k.items() if has_ref(v)]
        steps.append((None if self_ is None else self_[0], name, list(a), dict(k), subs, ksubs,
                      r[0] if isinstance(r, _Ref) else None))
    return steps


def replay(log: list[tuple], path) -> None:
    """Make the recorded calls again, writing ``path`` (plain XlsxWriter worksheets)."""
    steps = log if log and len(log[0]) == 7 else _plan(log)
    objs: dict[int, object] = {}

    def res(o):
        if isinstance(o, _Ref):
            return objs[o[0]]
        if isinstance(o, dict):
            return {k: res(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return type(o)(res(v) for v in o)
        return o

    for self_, name, a, k, subs, ksubs, r in steps:
        if subs:
            a = list(a)
            for i, v in subs:
                a[i] = res(v)
        if ksubs:
            k = dict(k)
            for key, v in ksubs:
                k[key] = res(v)
        if name == "__init__":
            obj = xlsxwriter.Workbook(str(path), k["options"])
        else:
            obj = getattr(objs[self_], name)(*a, **k)
        if r is not None:
            objs[r] = obj


def prepare(log: list[tuple]) -> list[tuple]:
    """The steps :func:`replay` takes, worked out once (so that a timed replay is XlsxWriter alone)."""
    return _plan(log)
