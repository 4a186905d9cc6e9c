"""``xlmodel draft PLAN.txt -o plan.yaml``: the command line of the drafter.

The plan text is untrusted: a regular file of bounded size (:func:`xlmodel.untrusted.read_regular`),
UTF-8 (with or without BOM) or GB18030, else a clear error naming the file (exit 2). The output
is checked before any work and never overwritten without ``--force`` (:mod:`xlmodel.io`); it is
written atomically after the file has been loaded back as a policy (every clause and quote checked
against the text by :func:`xlmodel.policy.load_policy_file`).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..errors import PolicyError, XlmodelError

try:  # the limit a policy's plan text is read with (the copy written beside the policy must load)
    from ..untrusted import MAX_PLAN_TEXT_BYTES
except ImportError:  # pragma: no cover - an older untrusted.py
    MAX_PLAN_TEXT_BYTES = 1 * 2**20
EXIT_HELP = ("Writes the policy file and, beside it, texts/<id>.txt: the plan text as UTF-8 (a policy's `text:` must\n"
             "lie in its own folder), unless the text already lies in that folder.\n\n"
             "exit codes:\n  0    written (review the items it lists before use)\n"
             "  2    a plan text that cannot be read, bad options, or the output exists and --force was not given\n"
             "  130  interrupted (Ctrl-C), 143 stopped (SIGTERM): no output is left half-written")
_BOARD_BY_CODE = (("688", "star"), ("689", "star"), ("60", "sse_main"), ("00", "szse_main"), ("30", "chinext"),
                  ("43", "bse"), ("83", "bse"), ("87", "bse"), ("92", "bse"))


def add_command(sub) -> None:
    p = sub.add_parser("draft", help="draft a policy file from a plan's published text (review before use)",
                       epilog=EXIT_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plan", metavar="PLAN.txt", help="the plan's text (UTF-8 or GB18030)")
    p.add_argument("-o", "--output", required=True, metavar="plan.yaml", help="the policy file to write (.yaml)")
    p.add_argument("--force", action="store_true", help="overwrite the output file")
    p.add_argument("--id", help="policy id (default: the output file's name, e.g. acme-2025-2027)")
    p.add_argument("--company", metavar="NAME", help="company name (default: as the text's title names it)")
    p.add_argument("--stock-code", metavar="CODE", help="six-digit stock code: with it `company:` is written (the name from "
                                                        "--company, else the text's title)")
    p.add_argument("--board", choices=["sse_main", "szse_main", "chinext", "star", "bse"],
                   help="listing board (default: from the stock code)")
    p.add_argument("--years", metavar="Y1-Y2", help="plan years, e.g. 2025-2027 (default: as the text states them)")
    p.set_defaults(func=cmd_draft)


def read_plan_text(path) -> tuple[str, str]:
    """(text, encoding) of a plan text file: UTF-8 (BOM or not) or GB18030, within the size limit."""
    from ..untrusted import decode_chinese_text, read_regular

    data = read_regular(path, MAX_PLAN_TEXT_BYTES, "plan text")
    return decode_chinese_text(data, str(path), expected="the plan's text (.txt)", save_as="UTF-8")


def _options(args, out: Path) -> dict:
    from ..policy import POLICY_ID

    pid = args.id
    if pid is not None and not POLICY_ID.fullmatch(pid):
        raise XlmodelError(f"--id {pid!r}: a policy id is lowercase letters, digits and hyphens (e.g. acme-2025-2027)")
    if pid is None and POLICY_ID.fullmatch(out.stem.lower()):
        pid = out.stem.lower()
    years = None
    if args.years is not None:
        m = re.fullmatch(r"\s*((?:19|20)\d\d)\s*[-–~]\s*((?:19|20)\d\d)\s*", args.years)
        if not m or not 0 <= int(m.group(2)) - int(m.group(1)) <= 10:
            raise XlmodelError(f"--years {args.years!r}: give the plan's first and last year, e.g. 2025-2027")
        years = (int(m.group(1)), int(m.group(2)))
    code, board = args.stock_code, args.board
    if code is not None and not re.fullmatch(r"\d{6}", code):
        raise XlmodelError(f"--stock-code {code!r}: a stock code is six digits (keep leading zeros, e.g. 002015)")
    if code and board is None:
        board = next((b for prefix, b in _BOARD_BY_CODE if code.startswith(prefix)), None)
    return {"policy_id": pid, "years": years, "company_name": args.company, "stock_code": code, "board": board}


def _text_target(args, out: Path, encoding: str) -> tuple[str | None, Path | None]:
    """(``text:`` of the policy, or None to decide from its id; the plan text file itself when it may be named)."""
    plan = Path(args.plan).resolve()
    folder = out.resolve().parent
    if encoding == "utf-8" and plan.is_relative_to(folder) and ".." not in plan.relative_to(folder).parts:
        return plan.relative_to(folder).as_posix(), plan
    return None, None


def _check_copy(copy: Path, body: bytes, force: bool) -> bool:
    """Whether the text copy must be written; an existing different one needs --force."""
    from ..errors import OutputExistsError
    from ..io import check_output

    if copy.is_file() and not copy.is_symlink() and copy.read_bytes() == body:
        return False
    try:
        check_output(copy, force=force, suffixes=(".txt",))
    except OutputExistsError:
        raise OutputExistsError(f"{copy} exists and holds another text; pass --force to overwrite it (or give --id)") from None
    return True


def cmd_draft(args) -> int:
    from ..io import atomic_write, check_output
    from ..policy import load_policy_file
    from ..sanitize import plain_text
    from . import draft_text

    out = check_output(args.output, force=args.force, suffixes=(".yaml", ".yml"))  # before any work
    opts = _options(args, out)
    text, encoding = read_plan_text(args.plan)
    ref, _ = _text_target(args, out, encoding)
    result = draft_text(text, source=Path(args.plan).name, text_ref=ref or (lambda pid: f"texts/{pid}.txt"), **opts)
    copy, body = None, text.encode("utf-8")
    if ref is None:
        copy = out.parent / result.policy["text"]
        if len(body) > MAX_PLAN_TEXT_BYTES:
            raise XlmodelError(f"{args.plan}: the text as UTF-8 is larger than a plan text can be")
        if not _check_copy(copy, body, args.force):
            copy = None
    wrote_copy = False
    try:
        if copy is not None:
            with atomic_write(copy, force=args.force) as tmp:
                tmp.write_bytes(body)
            wrote_copy = True
        with atomic_write(out, force=args.force) as tmp:
            tmp.write_text(result.yaml, encoding="utf-8")
            try:
                load_policy_file(tmp)
            except PolicyError as e:  # a drafter bug: say so, write nothing
                raise XlmodelError(f"{args.plan}: the drafted policy does not load (a bug in xlmodel draft; nothing "
                                   "written):\n" + "\n".join(f"  - {p}" for p in e.problems[:10])) from None
    except BaseException:
        if wrote_copy:
            copy.unlink(missing_ok=True)
        raise
    print(f"{plain_text(str(out))}: {result.summary()}"
          + (f"; plan text copied to {plain_text(str(copy))}" if wrote_copy else ""), file=sys.stderr)
    for where, reason in result.reviews:
        print(f"  待复核 REVIEW {plain_text(where)}: {plain_text(reason)}", file=sys.stderr)
    if "company" not in result.policy:
        print("  注意 Note: no `company:` written (give --company and --stock-code to add it)", file=sys.stderr)
    return 0
