"""A progress bar on stderr for long batch runs (tqdm), or nothing.

``enabled=None`` (the command line) shows a bar only when stderr is a terminal and
the run has more than :data:`MIN_ROWS` rows, so pipes, logs and CI stay clean;
``True``/``False`` force it on or off. The bar is removed when it finishes
(``leave=False``): the command's own summary line follows it.
"""

from __future__ import annotations

import sys

MIN_ROWS = 2000  #: rows above which a run shows a bar (when stderr is a terminal)


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_description_str(self, desc: str) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # closed or replaced streams
        return False


def progress_bar(total: int, desc: str, enabled: bool | None = None, unit: str = "rows"):
    """A tqdm bar over ``total`` units on stderr, or a stand-in that does nothing."""
    if enabled is None:
        enabled = total > MIN_ROWS and _isatty(sys.stderr)
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency; a bar is never worth an error
        return _NoBar()
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=False, file=sys.stderr, leave=False,
                dynamic_ncols=True, mininterval=0.2, ascii=not _utf8(sys.stderr))


def _utf8(stream) -> bool:
    enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return enc in ("utf8", "utf8sig")
