"""``xlmodel draft PLAN.pdf -o plan.yaml``: the command line of the drafter.

The plan's document is untrusted: a PDF (its text layer), a Word .docx or a text file (UTF-8 with
or without BOM, or GB18030), told apart by content and read within bounds (:mod:`.source`,
:mod:`xlmodel.inputs.documents`); a file that is none of these, a scan, or a text that is not a plan's is a
clear error naming the file (exit 2), and so is a text in which no rule is recognised. The output
is checked before any work and never overwritten without ``--force`` (:mod:`xlmodel.inputs.files`); it is
written atomically after the file has been loaded back as a policy (every clause and quote checked
against the text by :func:`xlmodel.plans.loading.load_policy_file`). The plan text the draft was made from
— a PDF's or a .docx's text, a text file cleaned of page headers — is written beside the policy as
``texts/<id>.txt``: its quotes are cut from it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..errors import PolicyError, XlmodelError

try:  # the limit a policy's plan text is read with (the copy written beside the policy must load)
    from ..inputs.untrusted import MAX_PLAN_TEXT_BYTES
except ImportError:  # pragma: no cover - an older untrusted.py
    MAX_PLAN_TEXT_BYTES = 1 * 2**20
_BOARD_BY_CODE = (("688", "star"), ("689", "star"), ("60", "sse_main"), ("00", "szse_main"), ("30", "chinext"),
                  ("43", "bse"), ("83", "bse"), ("87", "bse"), ("92", "bse"))


def read_plan_text(path) -> tuple[str, str]:
    """(text, encoding) of a plan's document as the draft reads it (:func:`.source.read_plan_source`)."""
    from ..draft.source import read_plan_source

    src = read_plan_source(path)
    return src.text, src.encoding


def _options(args, out: Path) -> dict:
    from ..plans.loading import POLICY_ID

    pid = args.id
    if pid is not None and not POLICY_ID.fullmatch(pid):
        raise XlmodelError(f"--id {pid!r}: 规划 ID 只能由小写字母、数字和连字符组成 a policy id is lowercase letters, digits and hyphens (e.g. acme-2025-2027)")
    if pid is None and POLICY_ID.fullmatch(out.stem.lower()):
        pid = out.stem.lower()
    years = None
    if args.years is not None:
        m = re.fullmatch(r"\s*((?:19|20)\d\d)\s*[-–~]\s*((?:19|20)\d\d)\s*", args.years)
        if not m or not 0 <= int(m.group(2)) - int(m.group(1)) <= 10:
            raise XlmodelError(f"--years {args.years!r}: 请给出规划的首尾年度 give the plan's first and last year, e.g. 2025-2027")
        years = (int(m.group(1)), int(m.group(2)))
    code, board = _stock_code(args.stock_code), args.board
    if code and board is None:
        board = next((b for prefix, b in _BOARD_BY_CODE if code.startswith(prefix)), None)
    return {"policy_id": pid, "years": years, "company_name": _company(args.company), "stock_code": code, "board": board}


def _stock_code(raw: str | None) -> str | None:
    """--stock-code read as every stock code is read (a case file, a workbook, a batch: 600869, 600869.SH,
    SH600869, 2015 for 002015 with a note), one reading for every face (issue 51.4)."""
    if raw is None:
        return None
    from ..values import read_field, stock_code_note
    from ..fields import FIELDS

    code, why = read_field(FIELDS["stock_code"], raw)
    if why or not code:  # the message quotes the value, escaped
        raise XlmodelError(f"--stock-code: {why or '证券代码应为6位数字 expected a 6-digit stock code'}")
    note = stock_code_note(raw, code)
    if note:
        print(f"注意 Note: --stock-code: {note}", file=sys.stderr)
    return code


def _company(name: str | None) -> str | None:
    """--company read as a case file reads ``company_name``: one line, no control characters, bounded."""
    if name is None:
        return None
    from ..values import read_field
    from ..fields import FIELDS

    value, why = read_field(FIELDS["company_name"], name)
    if why or not value:
        raise XlmodelError(f"--company: 公司名称须为一行文字 the company name must be one line of text: {why or 'empty'}")
    return value


def _text_target(args, out: Path, src) -> tuple[str | None, Path | None]:
    """(``text:`` of the policy, or None to decide from its id; the plan text file itself when it may be named):
    a UTF-8 text file inside the output's folder, read as it is."""
    plan = Path(args.plan).resolve()
    folder = out.resolve().parent
    if (src.kind == "text" and not src.changed and src.encoding == "utf-8" and plan.is_relative_to(folder)
            and ".." not in plan.relative_to(folder).parts):
        return plan.relative_to(folder).as_posix(), plan
    return None, None


def _check_copy(copy: Path, body: bytes, force: bool) -> bool:
    """Whether the text copy must be written; an existing different one needs --force."""
    from ..errors import OutputExistsError
    from ..inputs.files import check_output

    if copy.is_file() and not copy.is_symlink() and copy.read_bytes() == body:
        return False
    try:
        check_output(copy, force=force, suffixes=(".txt",))
    except OutputExistsError:
        raise OutputExistsError(f"{copy}: 文件已存在且内容不同，如要覆盖请加 --force（或给 --id）— {copy} exists and holds another text; pass --force to overwrite it (or give --id)") from None
    return True


def cmd_draft(args) -> int:
    from ..inputs.files import atomic_write, check_output
    from ..plans.loading import load_policy_file
    from ..inputs.sanitize import plain_text
    from ..draft import draft_text
    from ..draft.source import read_plan_source

    out = check_output(args.output, force=args.force, suffixes=(".yaml", ".yml"))  # before any work
    opts = _options(args, out)
    src = read_plan_source(args.plan)
    ref, _ = _text_target(args, out, src)
    result = draft_text(src.text, source=Path(args.plan).name, text_ref=ref or (lambda pid: f"texts/{pid}.txt"),
                        notes=[src.describe(Path(args.plan).name), *src.notes], **opts)
    if result.empty:
        raise XlmodelError(_nothing_recognised(args.plan, result))
    text = src.text
    copy, body = None, text.encode("utf-8")
    if ref is None:
        copy = out.parent / result.policy["text"]
        if len(body) > MAX_PLAN_TEXT_BYTES:
            raise XlmodelError(f"{args.plan}: 原文过长 the text as UTF-8 is larger than a plan text can be")
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
                raise XlmodelError(f"{args.plan}: 起草的规划无法加载（xlmodel draft 的缺陷，未写出任何文件）the drafted policy does not load (a bug in xlmodel draft; nothing "
                                   "written):\n" + "\n".join(f"  - {p}" for p in e.problems[:10])) from None
    except BaseException:
        if wrote_copy:
            copy.unlink(missing_ok=True)
        raise
    print(f"{plain_text(str(out))}: {result.summary()}"
          + (f"；规划原文已{'写出' if src.changed else '复制'}到 {plain_text(str(copy))} — plan text "
             f"{'written' if src.changed else 'copied'} to {plain_text(str(copy))}" if wrote_copy else ""),
          file=sys.stderr)
    print(f"  {plain_text(src.describe(Path(args.plan).name))}", file=sys.stderr)
    for note in src.notes:
        print(f"  注意 Note: {plain_text(note)}", file=sys.stderr)
    for where, reason in result.reviews:
        print(f"  待复核 REVIEW {plain_text(where)}: {plain_text(reason)}", file=sys.stderr)
    if "company" not in result.policy:
        print("  注意 Note: 未写出 `company:`（给出 --company 和 --stock-code 即可写入）no `company:` written (give --company and --stock-code to add it)", file=sys.stderr)
    return 0


def _nothing_recognised(plan, result) -> str:
    """No rule recognised: an error, not a policy whose placeholder makes every case missing_input."""
    d = result.draft
    clauses = [c for c in d.clauses if c != "序言"]
    return (f"{plan}: 未识别出任何规则：{len(clauses)} 个编号条款中没有可读出的分红条件、比例或程序（如“每年以现金方式分配的利润不少于"
            "当年实现的可分配利润的10%”），未写出任何文件。请确认这是规划全文；或从已附带的规划复制一份改写"
            "（xlmodel policies show ID），见 docs/user-guide.md; no rule recognised in "
            f"{len(clauses)} numbered clause{'s' if len(clauses) != 1 else ''} (no condition, ratio or procedure of a "
            "dividend plan): nothing written. Check that this is the plan's full text, or start from a copy of a "
            "bundled plan (xlmodel policies show ID)")
