"""Loading plans: a policy file parsed and checked (its text read, every clause accounted for), a plan by id
from the plan folders (load_plan_by_id, load_policy), every plan (list_plans_or_raise), the regulatory
baseline (load_baseline).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError

from ..errors import AmbiguousPolicyError, PolicyError, Problem, UnknownPolicyError, XlmodelError
from .folders import TEMPLATES
from .folders import BUNDLED, PlanDir, plan_directories
from .schema import Baseline, Policy, _cross_check, _loc
from .text import PlanTextError, PolicySource, _shown, fingerprint, read_plan_text, text_ref_problem


#: a plan id, as case files, workbooks, batch files and worksheet functions name a plan
POLICY_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")


def _parse_policy(text: str, source: str, schema, folder: Path | None, *, path: Path | None = None,
                  carried_text: str | None = None, workbook: str | None = None):
    """A policy from its source ``text``: every problem at once (schema, plan text, cross-references).

    ``folder``: where its ``text:`` is looked up (a policy file's folder); for a plan read from a
    workbook (``workbook`` set) the plan text is the one it carried, ``carried_text``."""
    policy, _data, problems = _validate_policy(text, source, schema, folder, path=path, carried_text=carried_text,
                                               workbook=workbook)
    if problems:
        raise PolicyError(source, problems)
    return policy


def _validate_policy(text: str, source: str, schema, folder: Path | None, *, path: Path | None = None,
                     carried_text: str | None = None, workbook: str | None = None):
    """(the schema-valid policy or None, the file's data, every problem) of a policy's source ``text``;
    a :class:`PolicyError` only for a file that is not a policy file at all. The policy carries its
    :class:`PolicySource` (only meaningful when there are no problems)."""
    from ..inputs.untrusted import InputFileError, PlainIntLoader, load_yaml

    try:
        data = load_yaml(text, source, quote_problem=False, loader_class=PlainIntLoader)
    except InputFileError as e:
        raise PolicyError(source, [Problem(e.where or "(file)", e.message)]) from None
    if not isinstance(data, dict) or "id" not in data or "rules" not in data:
        raise PolicyError(source, [Problem("(file)", "not a policy file (a policy file is a YAML mapping with "
                                                    "'id', 'rules' and 'clauses'; see templates/)")])
    problems: list[Problem] = []
    policy = None
    try:
        policy = schema.model_validate(data)
    except ValidationError as e:
        problems += [Problem(_loc(err, data), err["msg"].removeprefix("Value error, ")) for err in e.errors()]
    ref = data.get("text") if schema is Policy else None
    body = text_path = None
    if isinstance(ref, str):
        if workbook is not None:
            why = text_ref_problem(ref)
            if why:
                problems.append(Problem("field 'text'", why))
            elif carried_text is None:
                problems.append(Problem("field 'text'", f"the workbook does not carry the plan text {_shown(ref)}"))
            else:
                body = carried_text
        else:
            try:
                text_path, body = read_plan_text(folder, ref)
            except PlanTextError as e:
                problems.append(Problem("field 'text'", str(e)))
    if policy is not None:
        problems += _cross_check(policy, body)
    if isinstance(policy, Policy):
        policy._source = PolicySource(text, path, ref if isinstance(ref, str) else None, body, text_path, workbook,
                                      fingerprint(policy))
    return policy, data, problems


def load_policy_file(path: str | Path, schema=None) -> Policy:
    """A policy file by path: for the command line and the Python API only.

    Input files never reach this with a path of their own: they name plans by id
    (:func:`load_plan_by_id`). Nothing of a file that does not load as a policy is
    quoted: a YAML error gives its line and column, a file whose top level is not
    a mapping with ``id`` and ``rules`` is "not a policy file". Its ``text:`` is read
    relative to the file's own folder, and only inside it (:func:`read_plan_text`)."""
    from ..inputs.untrusted import MAX_POLICY_BYTES, InputFileError, decode_utf8, read_regular

    schema = schema or Policy
    path = Path(path)
    try:
        text = decode_utf8(read_regular(path, MAX_POLICY_BYTES, "policy file"), str(path))
    except InputFileError as e:
        raise PolicyError(str(path), [Problem(e.where or "(file)", e.message)]) from None
    try:
        folder = path.resolve().parent
    except (OSError, RuntimeError):
        folder = path.parent
    return _parse_policy(text, str(path), schema, folder, path=path)


def policy_from_workbook(yaml_text: str, plan_text_: str | None, workbook: str, file_name: str = "") -> Policy:
    """A plan carried inside a workbook (:mod:`xlmodel.workbook.embed`), validated like a policy file
    with the plan text it carried. Errors name the workbook and the carried file."""
    source = f"{workbook} (the plan it carries{', ' + _shown(file_name) if file_name else ''})"
    return _parse_policy(yaml_text, source, Policy, None, carried_text=plan_text_, workbook=workbook)


@dataclass(frozen=True)
class PlanFile:
    """A ``<id>.yaml`` in a plan folder; ``problem`` says why it is refused (not a regular file, a
    symbolic link out of the folder)."""

    id: str
    path: Path
    folder: PlanDir
    problem: str | None = None

    @property
    def origin(self) -> str:
        """bundled, or where it comes from: ``user: PATH``, ``--plans: PATH``, ``XLMODEL_PLANS: PATH``."""
        return BUNDLED if self.folder.origin == BUNDLED else f"{self.folder.origin}: {self.path}"


def _refusal(root: Path, path: Path) -> str | None:
    """Why ``path`` (an entry of the plan folder ``root``, resolved) is not used as a plan, or None."""
    from ..inputs.untrusted import file_kind

    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError):
                return "a symbolic link to nothing (or a loop); refused"
            if not real.is_relative_to(root):
                return "a symbolic link to a file outside its plan folder; refused (a plan folder holds its plans)"
            st = os.stat(real)
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    if not stat.S_ISREG(st.st_mode):
        return f"is {file_kind(st.st_mode)}, not a policy file; refused"
    return None


def plan_files() -> dict[str, list[PlanFile]]:
    """Every ``<id>.yaml`` of the plan folders, by id (several files for an id that is defined twice)."""
    out: dict[str, list[PlanFile]] = {}
    seen: set[Path] = set()
    for d in plan_directories():
        try:
            root = d.path.resolve(strict=True)
            names = sorted(os.listdir(root)) if root.is_dir() else []
        except (OSError, RuntimeError):
            continue  # a folder that does not exist (or cannot be listed) is skipped
        if root in seen:
            continue  # the same folder named twice
        seen.add(root)
        for name in names:
            stem = name[:-5] if name.endswith(".yaml") else ""
            if stem and POLICY_ID.fullmatch(stem):
                out.setdefault(stem, []).append(PlanFile(stem, d.path / name, d, _refusal(root, root / name)))
    return out


def policy_paths(directory: Path | None = None) -> dict[str, Path]:
    """Plan id -> file, over :func:`plan_directories` (or one ``directory``)."""
    if directory is not None:
        return {p.stem: p for p in sorted(Path(directory).glob("*.yaml")) if POLICY_ID.fullmatch(p.stem) and p.is_file()}
    return {pid: files[0].path for pid, files in sorted(plan_files().items())}


@lru_cache(maxsize=64)
def _load_cached(path: Path, stamp) -> Policy:
    """A policy file, loaded again when ``stamp`` (its modification time, size and inode) changes."""
    return load_policy_file(path)


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _duplicate(pid: str, files: list[PlanFile]) -> XlmodelError:
    where = "; ".join(f"{f.path} ({'bundled' if f.folder.origin == BUNDLED else f.folder.origin})" for f in files)
    bundled = any(f.folder.origin == BUNDLED for f in files)
    fix = ("a bundled plan cannot be replaced: give your plan another id (and file name)" if bundled
           else "remove or rename all but one")
    return AmbiguousPolicyError(f"规划 ID {pid!r} 由 {len(files)} 个文件定义，xlmodel 不作猜测，一个也不用 — "
                                f"plan id {pid!r} is defined by {len(files)} files: {where}; xlmodel uses none of them "
                              f"rather than guess: {fix}")


def find_plan(pid) -> PlanFile:
    """The :class:`PlanFile` of plan ``pid`` in :func:`plan_directories`; :class:`UnknownPolicyError` (with
    "did you mean") if none, or if two files define it; :class:`PolicyError` naming the file if it is
    refused (a FIFO, a symbolic link out of its folder)."""
    from ..inputs.untrusted import did_you_mean

    if not isinstance(pid, str) or not POLICY_ID.fullmatch(pid):
        hint = did_you_mean(pid.strip().lower(), policy_paths()) if isinstance(pid, str) else ""
        raise UnknownPolicyError(f"不是规划 ID {_shown(pid)} is not a policy id (lowercase letters, digits and hyphens, e.g. "
                                 f"gcl-energy-2022-2024; see `xlmodel policies`){hint}; a plan is named by its id, "
                                 "never by a path")
    files = plan_files()
    found = files.get(pid)
    if not found:
        raise UnknownPolicyError(f"未知的规划 unknown policy {pid!r}{did_you_mean(pid, files)}; known: {', '.join(sorted(files)) or 'none'}")
    if len(found) > 1:
        raise _duplicate(pid, found)
    if found[0].problem:
        raise PolicyError(str(found[0].path), [Problem("(file)", found[0].problem)])
    return found[0]


def load_plan_by_id(pid) -> Policy:
    """A plan by id, for every id that comes from an input (a case's ``policy:``, a workbook's
    ``xlmodel_policy`` property, a batch ``policy`` column, a worksheet function's argument).

    Matched against the plan directories (:func:`plan_directories`: the bundled plans, --plans or
    XLMODEL_PLANS, the user's), never a path, never relative to the working directory. The folders
    are searched on every call (a file's parse is kept while the file is unchanged);
    :func:`xlmodel.evaluator.cached_plan_by_id` remembers the answer per id."""
    path = find_plan(pid).path
    real = path.resolve()  # (a symbolic link inside its folder: checked by find_plan)
    policy = _load_cached(real, _stamp(real.stat()))
    if policy.id != path.stem:
        raise PolicyError(str(path), [Problem("field 'id'", f"{policy.id!r} does not match the file name {path.stem!r}")])
    return policy


def load_policy(ref: str | Path) -> Policy:
    """For the command line and the Python API: a plan by id, or a policy file by path.

    A string that looks like an id (:data:`POLICY_ID`) is an id; a :class:`~pathlib.Path`
    or any other string is a path. Ids from input files go through :func:`load_plan_by_id`."""
    if isinstance(ref, str) and POLICY_ID.fullmatch(ref):
        return load_plan_by_id(ref)
    p = Path(ref)
    if isinstance(ref, str) and not ref.lower().endswith((".yaml", ".yml")) and "/" not in ref and "\\" not in ref \
            and not p.is_file():
        return load_plan_by_id(ref)  # neither an id nor a file: say so, with "did you mean"
    try:
        st = p.stat()
    except (OSError, ValueError):
        return load_policy_file(p)  # it names the problem
    if not stat.S_ISREG(st.st_mode):
        return load_policy_file(p)
    return _load_cached(p.resolve(), _stamp(st))


BASELINES = TEMPLATES / "baseline"


def load_baseline(baseline_id: str) -> Baseline:
    if not isinstance(baseline_id, str) or not POLICY_ID.fullmatch(baseline_id):
        raise UnknownPolicyError(f"不是监管底线 ID {_shown(baseline_id)} is not a regulatory baseline id (lowercase letters, digits "
                                 "and hyphens)")
    path = BASELINES / f"{baseline_id}.yaml"
    if not path.is_file():
        raise UnknownPolicyError(f"未知的监管底线 unknown regulatory baseline {baseline_id!r} (no {path})")
    return _load_baseline_cached(path, path.stat().st_mtime)


@lru_cache(maxsize=8)
def _load_baseline_cached(path: Path, mtime: float) -> Baseline:
    return load_policy_file(path, Baseline)


def list_plans_or_raise() -> list[Policy]:
    """Every plan of the plan folders, loaded; the first that does not load raises its error
    (:func:`xlmodel.plan_install.list_plans_with_errors` collects the errors instead)."""
    return [load_policy(pid) for pid in policy_paths()]
