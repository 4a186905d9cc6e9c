"""The reference environment: a model's trees evaluated node by node (``Node.eval``) over arrays.

The compiled programs (:mod:`xlmodel.rules.compiled`) are tested against it and fall back to it."""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import catalogue as cat

Getter = Callable[[str, int], tuple[np.ndarray, np.ndarray]]


class ArrayEnv:
    def __init__(self, model: cat.Model, n: int, getter: Getter, years=None, params: dict | None = None):
        self.model, self.n, self._get = model, n, getter
        self.params = params or {}  # values that replace the plan's (a workbook's edited parameters)
        self.years = np.broadcast_to(np.asarray(years if years is not None else 0, dtype=float), (n,))
        self._inputs: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        self._calcs: dict[tuple[str, int | None], np.ndarray] = {}

    def _input(self, fid: str, offset: int):
        key = (fid, offset)
        if key not in self._inputs:
            self._inputs[key] = self._get(fid, offset)
        return self._inputs[key]

    def field(self, fid, offset):
        return self._input(fid, offset)[0]

    def missing(self, fid, offset):
        return self._input(fid, offset)[1]

    def param(self, name):
        return self.params[name] if name in self.params else self.model.params[name].value

    def fy(self, offset):
        return self.years + offset

    def calc(self, name, offset):
        key = (name, offset)
        if key not in self._calcs:
            if name in self.model.series:
                self._calcs[key] = self.model.series[name].eval(_Shifted(self, offset or 0))
            else:
                self._calcs[key] = self.model.scalars[name].eval(self)
        return self._calcs[key]


class _Shifted:
    def __init__(self, base: ArrayEnv, shift: int):
        self.base, self.shift, self.n = base, shift, base.n

    def field(self, fid, offset):
        return self.base.field(fid, offset + self.shift)

    def missing(self, fid, offset):
        return self.base.missing(fid, offset + self.shift)

    def param(self, name):
        return self.base.param(name)

    def fy(self, offset):
        return self.base.fy(offset + self.shift)

    def calc(self, name, offset):
        return self.base.calc(name, (offset or 0) + self.shift if name in self.base.model.series else offset)
