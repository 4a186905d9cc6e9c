"""A plan's published text: its reference checked and read within bounds (read_plan_text), its fingerprint, the
text of a loaded policy and its numbered clauses (plan_text, plan_clauses).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from . import clauses as clause_text


class PlanTextError(Exception):
    """Why a policy's ``text:`` cannot be used (the message, without the policy file's name)."""


def text_ref_problem(ref) -> str | None:
    """Why ``ref`` cannot be a policy's ``text:``, or None."""
    if not isinstance(ref, str) or not ref.strip():
        return "expected the plan text's file name, relative to the policy file (e.g. texts/<id>.txt)"
    if any(ord(c) < 32 or c == "\x7f" for c in ref):
        return "a control character in the path"
    if "\\" in ref:
        return f"{_shown(ref)}: write the path with '/', relative to the policy file's folder"
    if ref.startswith("/") or PureWindowsPath(ref).drive or PurePosixPath(ref).is_absolute():
        return (f"{_shown(ref)} is an absolute path; the plan text must lie in the policy file's folder, named "
                "relative to it (e.g. texts/<id>.txt)")
    parts = ref.split("/")
    if ".." in parts:
        return (f"{_shown(ref)} leaves the policy file's folder ('..'); the plan text must lie in that folder "
                "(e.g. texts/<id>.txt)")
    if ref.endswith("/") or all(p in ("", ".") for p in parts):
        return f"{_shown(ref)} is a folder, not a file name"
    return None


def read_plan_text(folder: Path, ref: str) -> tuple[Path, str]:
    """(path, text) of the plan text ``ref`` of a policy file in ``folder``; :class:`PlanTextError` if it
    is not a relative path inside the folder, leads out of it through a symbolic link, or is not a
    regular UTF-8 file of at most :data:`~xlmodel.inputs.untrusted.MAX_PLAN_TEXT_BYTES`."""
    from ..inputs.untrusted import MAX_PLAN_TEXT_BYTES, NO_SUCH_FILE, InputFileError, decode_utf8, read_regular

    why = text_ref_problem(ref)
    if why:
        raise PlanTextError(why)
    try:
        root = Path(folder).resolve()
        path = root / ref
        real = path.resolve()
    except (OSError, RuntimeError, ValueError) as e:  # a symbolic link loop
        raise PlanTextError(f"规划原文路径无法解析 plan text {_shown(ref)} cannot be resolved ({type(e).__name__})") from None
    if not real.is_relative_to(root):
        raise PlanTextError(f"规划原文是指向规划文件夹之外的符号链接，拒绝读取 plan text {path} is a symbolic link out of the policy file's folder; refused")
    try:
        return path, decode_utf8(read_regular(real, MAX_PLAN_TEXT_BYTES, "plan text"), str(path))
    except InputFileError as e:
        if e.message == NO_SUCH_FILE:
            raise PlanTextError(f"找不到规划原文 plan text {path} not found") from None
        raise PlanTextError(f"规划原文无法读取 plan text {path}: {e.message}") from None


@dataclass(frozen=True)
class PolicySource:
    """Where a loaded plan came from: its policy file's text, and its plan text if it names one."""

    yaml: str  #: the policy file as read
    path: Path | None = None  #: the policy file; None for a plan read from a workbook
    text_ref: str | None = None  #: the policy's ``text:``
    text: str | None = None  #: the plan text
    text_path: Path | None = None  #: the plan text's file (None for a plan read from a workbook)
    workbook: str | None = None  #: the workbook a plan was read from
    fingerprint: str = ""  #: of the policy as loaded (:func:`fingerprint`): a changed copy is not this file

    @property
    def file_name(self) -> str:
        return self.path.name if self.path is not None else ""


def fingerprint(policy) -> str:
    """sha256 of a policy's content (its fields as JSON)."""
    import hashlib

    return hashlib.sha256(policy.model_dump_json().encode("utf-8")).hexdigest()


def policy_source(policy, *, unchanged: bool = False) -> PolicySource | None:
    """The :class:`PolicySource` of a loaded policy (None for one built in code). ``unchanged``: None
    also for a copy changed in code (``policy.model_copy(update=…)`` keeps the source of a file it no
    longer is), e.g. before a workbook carries the file as the plan it was built with."""
    src = getattr(policy, "_source", None)
    if src is not None and unchanged and fingerprint(policy) != src.fingerprint:
        return None
    return src


def plan_text(policy) -> str | None:
    """The published plan text of a loaded policy (None when it names none), as read with the policy."""
    src = policy_source(policy)
    return src.text if src is not None else None


def plan_clauses(policy) -> dict[str, str]:
    """Clause id -> the clause's own lines of the policy's plan text (empty when it has none).

    The one reading of ``text:`` for every use (the workbook's plan-text sheet, ``policies show``):
    relative to the policy file's folder, or the text a workbook carried."""
    text = plan_text(policy)
    if text is None:
        return {}
    return {k: c.text for k, c in clause_text.parse(text).items()}


def _shown(ref) -> str:
    r = repr(ref)
    return r if len(r) <= 80 else r[:79] + "…"
