"""Cached formula results as the writers store them (shared by the workbook and its UDF sheet)."""

from __future__ import annotations


class _EmptyResult(str):
    """A cached "" formula result written as an empty *string* (t="str").

    XlsxWriter writes a plain "" as an untyped <v/>, which some viewers show as 0.
    """

    def __eq__(self, other):
        return False if other == "" else str.__eq__(self, other)

    __hash__ = str.__hash__


EMPTY = _EmptyResult("")
