"""Numeric semantics shared by every path (DOMAIN.md §4).

Spreadsheet engines round with ROUND(x, 2) half away from zero, on the value as
seen at 15 significant digits. ``round_fen`` reproduces that on numpy arrays: a
fast exact path for values that are not near a half fen, and a decimal path at
15 significant digits for the ones that are.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np

FEN = Decimal("0.01")


def _round_fen_decimal(x: float) -> float:
    return float(Decimal(f"{x:.15g}").quantize(FEN, rounding=ROUND_HALF_UP))


_slow = np.frompyfunc(_round_fen_decimal, 1, 1)


def round_fen(x):
    """ROUND(x, 2) as Excel and LibreOffice compute it, elementwise."""
    x = np.asarray(x, dtype=float)
    if x.ndim == 0:
        return round_fen(x.reshape(1))[0]
    y = np.abs(x) * 100.0
    whole = np.floor(y)
    with np.errstate(invalid="ignore"):  # inf − inf in a discarded lane
        frac = y - whole
    out = np.sign(x) * np.floor(y + 0.5) / 100.0
    # within a few ulps of a half fen, or beyond exact float range: decide in decimal
    tol = np.maximum(1e-7, np.spacing(y) * 16)
    # an infinity passes through: it is a lane an IF discards (x/0 computed beside its guard), never a result
    near = ((np.abs(frac - 0.5) < tol) | (y >= 2.0**52)) & np.isfinite(y)
    if near.any():
        out = out.copy()
        out[near] = _slow(x[near]).astype(float)
    return out + 0.0  # no negative zero


def to_decimal_str(x: float) -> str:
    """Format an amount in 元 with two decimals (for reports)."""
    return f"{x:,.2f}"
