"""``xlmodel announce CASE``: the profit distribution announcement of a case file or a filled workbook.

``--markdown`` (the default) prints it to paste, ``--json`` the figures, ``-o FILE.docx`` writes a Word
document (never over an existing file without ``--force``). A case without ``policy:`` is screened on the
regulatory baseline alone; a workbook is read as ``check`` reads it (its formulas compared: a changed
workbook is refused, its figures would not be the model's). The announcement itself: :mod:`xlmodel.announce`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def load(path: str):
    """(case, policy or None, params) of a case file or a workbook; bad input raises an XlmodelError."""
    from ..errors import XlmodelError

    if Path(path).suffix.lower() in (".xlsx", ".xlsm"):
        from ..workbook.reader import read_workbook

        wr = read_workbook(path)
        if wr.tampered:
            raise XlmodelError(f"{wr.path}: 工作簿公式被改动，公告数字不是模型的结果 the workbook's formulas were changed: "
                               + "; ".join(wr.tampered[:5]))
        return wr.case, wr.policy, wr.params or None
    from ..case import load_case
    from ..evaluator import cached_plan_by_id

    case = load_case(path, plan_optional=True)
    return case, (cached_plan_by_id(case.policy) if case.policy else None), None


def announcement(path: str):
    """The :class:`~xlmodel.announce.figures.Figures` of a case file or workbook, and its warnings."""
    from ..announce.figures import figures_for

    case, policy, params = load(path)
    return figures_for(case, policy, params), list(case.warnings)


def exit_code(f) -> int:
    from ..announce.sentences import mismatch
    from ..announce.table import board_of, triggers

    rep = f.report
    bad = board_of(f) is not None and triggers(f)[0] != "否"
    bad = bad or mismatch(f) is not None or not rep.plan_reviewed
    bad = bad or any(r.role == "requirement" and r.bound_kind == "minimum" and r.status in ("fail", "missing_input")
                     for r in rep.rules)
    return 1 if bad else 0


def cmd_announce(args) -> int:
    from ..announce.render import markdown, to_json, write_docx
    from ..inputs.files import atomic_write, check_output
    from ..inputs.sanitize import plain_text

    out = check_output(args.output, force=args.force, suffixes=(".docx",), inputs=[args.case]) if args.output else None
    f, warnings = announcement(args.case)
    for w in warnings:
        print(f"注意 Warning: {plain_text(args.case)}: {plain_text(w)}", file=sys.stderr)
    if out is not None:
        with atomic_write(out, force=args.force) as tmp:
            write_docx(f, tmp)
        print(f"已写出 written -> {plain_text(out)}", file=sys.stderr)
    if args.json:
        print(json.dumps(to_json(f), ensure_ascii=False, indent=2, default=str))
    elif out is None or args.markdown:
        print(markdown(f), end="")
    return exit_code(f)
