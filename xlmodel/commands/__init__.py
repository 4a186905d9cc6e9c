"""The commands of the command line, one module per command (``xlmodel NAME`` runs
:func:`xlmodel.commands.NAME.cmd_NAME`); :mod:`xlmodel.cli` keeps the parser and the dispatch."""

from __future__ import annotations


def error_text(message) -> str:
    """``xlmodel: …``, Chinese first, every line of the message as plain text (no terminal control, no forged line)."""
    from ..errors import chinese_first
    from ..inputs.sanitize import plain_text

    return "xlmodel: " + "\n".join(plain_text(line) for line in chinese_first(str(message)).split("\n"))
