"""plan_install: the user's own plans — check a policy file, install it in the user's plan folder, list the plan
folders (``xlmodel policies check`` / ``install``).

A plan outside ``templates/`` is referred to by its id exactly like a bundled one, once it is in a
plan folder (:func:`xlmodel.plans.folders.plan_directories`: ``--plans DIR``, else ``XLMODEL_PLANS``, and
the user's plan folder, where ``xlmodel policies install`` puts it). A bundled plan is never
replaced: a user plan with a bundled plan's id is refused by ``install`` and, found in a folder,
makes that id an error naming both files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import OutputExistsError, PolicyError, Problem, XlmodelError
from .plans.folders import BUNDLED, USER_ORIGIN, plan_directories, user_plan_dir
from .plans.schema import Policy
from .plans.text import policy_source, text_ref_problem
from .plans.loading import POLICY_ID, PlanFile, _validate_policy, load_policy_file, plan_files, load_plan_by_id


@dataclass
class Checked:
    """A policy file that passed :func:`check_policy_file`, and what its author should know."""

    policy: Policy
    path: Path
    model: object  #: the compiled model (:class:`xlmodel.rules.catalogue.Model`)
    notes: list[str] = field(default_factory=list)


def _in_plan_folder(path: Path) -> PlanFile | None:
    """The plan folder entry ``path`` is, if it lies directly in a plan folder."""
    try:
        parent = path.absolute().parent.resolve()
    except (OSError, RuntimeError):
        return None
    for f in plan_files().get(path.stem, []):
        try:
            if f.path.parent.resolve() == parent:
                return f
        except (OSError, RuntimeError):
            continue
    return None


def check_policy_file(path, *, install: bool = False) -> Checked:
    """Validate one policy file and report every problem at once (:class:`PolicyError`).

    Checked: the schema (every field error), the plan text (``text:`` inside the file's folder,
    every clause accounted for, every quote in its clause), the references between rules, that
    it compiles (:func:`xlmodel.rules.catalogue.compile_policy`) and, for a file in a plan folder, that
    its id is its file name (a plan there is found by its file name). Elsewhere a file name that
    is not the id is only noted: ``install`` names the copy ``<id>.yaml``."""
    from .inputs.untrusted import MAX_POLICY_BYTES, InputFileError, decode_utf8, read_regular

    path = Path(path)
    source = str(path)
    try:
        text = decode_utf8(read_regular(path, MAX_POLICY_BYTES, "policy file"), source)
    except InputFileError as e:
        raise PolicyError(source, [Problem(e.where or "(file)", e.message)]) from None
    try:
        folder = path.resolve().parent
    except (OSError, RuntimeError):
        folder = path.parent
    policy, data, problems = _validate_policy(text, source, Policy, folder, path=path)  # (not a policy: raised)
    pid = data.get("id")
    notes: list[str] = []
    entry = _in_plan_folder(path)
    if isinstance(pid, str) and pid != path.stem:
        if entry is not None and not install:
            problems.append(Problem("field 'id'", f"{pid!r} does not match the file name {path.stem!r}: a plan in a "
                                                  f"plan folder is found by its file name; rename the file to {pid}.yaml"))
        elif not install:
            notes.append(f"the file name {path.name!r} is not the id: `xlmodel policies install` installs it as "
                         f"{pid}.yaml")
    model = None
    if policy is not None:
        from .rules.catalogue import compile_policy

        try:
            model = compile_policy(policy)
        except XlmodelError as e:
            problems.append(Problem("(compile)", str(e)))
        except Exception as e:  # noqa: BLE001 - a kind's parameters the catalogue cannot build: said, never a traceback
            problems.append(Problem("(compile)", f"does not compile: {type(e).__name__}: {e}"))
    if policy is not None:
        problems += review_problems(policy)
    if isinstance(pid, str) and POLICY_ID.fullmatch(pid):
        others = [f for f in plan_files().get(pid, []) if entry is None or f.path != entry.path]
        for f in others:
            bundled = f.folder.origin == BUNDLED
            if entry is not None and entry.path.stem == pid:  # in a plan folder: the id is ambiguous there
                problems.append(Problem("field 'id'", f"{pid!r} is also defined by {f.path} ({f.folder.origin}): "
                                        + ("a bundled plan cannot be replaced; give this plan another id" if bundled
                                           else "remove or rename one")))
            elif bundled:
                notes.append(f"{pid!r} is the id of the bundled plan {f.path}: a bundled plan cannot be replaced; "
                             "give your plan another id to install it")
            elif not install:
                notes.append(f"{pid!r} is already defined by {f.path} ({f.folder.origin})")
    if problems:
        raise PolicyError(source, problems)
    return Checked(policy, path, model, notes)


def review_problems(policy) -> list[Problem]:
    """One problem per open review item (:func:`xlmodel.plans.schema.open_reviews`): a draft nobody has reviewed is
    not a plan yet. Each says how to settle it: in the file itself, where the item is."""
    from .plans.schema import open_reviews

    return [Problem(where, f"未复核的草稿项：{_short(what)} — 核对原文后改写规则或条款，删去“待复核”标记（或改为"
                           "“已复核”以明示不采纳）open review item of a draft: check it against the text, settle the "
                           "rule or clause, then remove the 待复核 mark (or write 已复核 over it to dismiss it)")
            for where, what in open_reviews(policy)]


def _short(text: str, n: int = 160) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def installed_text_ref(pid: str) -> str:
    """Where ``install`` puts the plan text of plan ``pid`` in the user's plan folder: a name of its own."""
    return f"texts/{pid}.txt"


def install_policy_file(path, *, force: bool = False) -> tuple[Path, Path | None, bool]:
    """Validate ``path`` (:func:`check_policy_file`), then copy it to the user's plan folder as
    ``<id>.yaml`` with its plan text as ``texts/<id>.txt`` (the copy's ``text:`` says so); (policy
    file, plan text file or None, whether anything was written).

    A plan's text is its own: no other plan's install can replace it, and ``force`` replaces only
    the files of the plan of the same id. A plan installed by an earlier xlmodel keeps the text it
    names; a file another installed plan reads (such a plan naming ``texts/<id>.txt``) is never
    replaced. Atomic (a temporary file renamed into place); an existing different file is never
    replaced without ``force``; a bundled plan's id, or an id another plan folder defines, is refused."""
    from .inputs.files import atomic_write

    checked = check_policy_file(path, install=True)
    policy = checked.policy
    src = policy_source(policy)
    home = user_plan_dir()
    if home is None:
        raise XlmodelError("没有用户规划文件夹（无主目录），请设置 XLMODEL_CONFIG_HOME no user plan folder (no home folder); set XLMODEL_CONFIG_HOME")
    target = home / f"{policy.id}.yaml"
    for f in plan_files().get(policy.id, []):
        if f.folder.origin == BUNDLED:
            raise XlmodelError(f"{path}: {policy.id!r} 是内置规划的 ID，不能替换内置规划 — {policy.id!r} is the id of the bundled plan {f.path}; a bundled plan cannot "
                               "be replaced: give your plan another id (and file name)")
        if f.folder.origin != USER_ORIGIN or f.path.parent.absolute() != home.absolute():
            raise XlmodelError(f"{path}: {policy.id!r} 已由 {f.path} 定义，再安装会使 ID 重复 — {policy.id!r} is already defined by {f.path} ({f.folder.origin}); installing "
                               "it as well would make the id ambiguous: remove that file, or give this plan another id")
    writes: list[tuple[Path, bytes]] = []
    text_target = None
    yaml_text = src.yaml
    if src.text_ref is not None:
        ref = installed_text_ref(policy.id)
        yaml_text = _with_text_ref(src.yaml, ref, path)
        text_target = home / ref
        writes.append((text_target, src.text.encode("utf-8")))
    writes.append((target, yaml_text.encode("utf-8")))
    todo = []
    for dest, data in writes:
        current = _current(dest)
        if current == data:
            continue  # already there, the same
        if current is not None and not force:
            raise OutputExistsError(f"{dest}: 文件已存在且内容不同，如要替换请加 --force — {dest} exists{_installed_version(dest) if dest == target else ''} and differs; "
                                    "pass --force to replace it")
        readers = _text_readers(home, dest, policy.id) if dest == text_target else []
        if readers:
            other = readers[0]
            raise XlmodelError(f"{path}: {dest} 也是已安装规划 {other.stem} 的规划原文，不予替换；请先重新安装该规划，使其"
                               f"有自己的原文 — {dest} is also the plan text of the installed plan {other.stem} ({other}, "
                               "installed by an earlier xlmodel); it is not replaced. Install that plan again so that it "
                               f"has a text of its own (xlmodel policies install {other} --force), then this one")
        todo.append((dest, data))
    for dest, data in todo:  # the plan text first: the policy file never names a text that is not there
        with atomic_write(dest, force=force) as tmp:
            tmp.write_bytes(data)
    load_policy_file(target)  # the installed copy loads where it is (its text beside it)
    return target, text_target, bool(todo)


def _with_text_ref(yaml_text: str, ref: str, path) -> str:
    """``yaml_text`` (a valid policy file) with its top-level ``text:`` value replaced by ``ref``, the rest
    of the file as it is (comments, order, quoting); checked by reading both back."""
    from .inputs.untrusted import PlainIntLoader, load_yaml

    loader = PlainIntLoader(yaml_text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    value = next((v for k, v in getattr(root, "value", []) if getattr(k, "value", None) == "text"), None)
    if value is None or value.value == ref:
        return yaml_text
    start, end = value.start_mark.index, value.end_mark.index
    out = yaml_text[:start] + ref + ("\n" if value.style in ("|", ">") else "") + yaml_text[end:]
    before = load_yaml(yaml_text, str(path), loader_class=PlainIntLoader)
    try:
        after = load_yaml(out, str(path), loader_class=PlainIntLoader)
    except XlmodelError:
        after = None
    if not isinstance(after, dict) or after != {**before, "text": ref}:
        raise XlmodelError(f"{path}: 无法改写 `text:` — the installed copy names its plan text {ref}, and xlmodel could "
                           f"not write that into this file's `text:`; write `text: {ref}` in it (and put the text "
                           "there), then install it")
    return out


def _text_readers(home: Path, dest: Path, pid: str) -> list[Path]:
    """The other plans of the user's plan folder ``home`` whose ``text:`` is the file ``dest``."""
    from .inputs.untrusted import MAX_POLICY_BYTES, PlainIntLoader, decode_utf8, load_yaml, read_regular

    out = []
    try:
        real = dest.resolve()
    except (OSError, RuntimeError):
        return out
    for f in plan_files().values():
        for pf in f:
            if pf.id == pid or pf.folder.origin != USER_ORIGIN or pf.problem:
                continue
            try:
                data = load_yaml(decode_utf8(read_regular(pf.path, MAX_POLICY_BYTES, "policy file"), str(pf.path)),
                                 str(pf.path), loader_class=PlainIntLoader)
                ref = data.get("text") if isinstance(data, dict) else None
                if isinstance(ref, str) and text_ref_problem(ref) is None and (pf.path.parent / ref).resolve() == real:
                    out.append(pf.path)
            except (XlmodelError, OSError, RuntimeError, ValueError):
                continue  # a file that does not read: it reads no text either
    return out


def _current(dest: Path) -> bytes | None:
    from .inputs.untrusted import MAX_POLICY_BYTES, InputFileError, read_regular

    if not dest.exists() and not dest.is_symlink():
        return None
    try:
        return read_regular(dest, MAX_POLICY_BYTES, "file")
    except InputFileError:
        return b""  # something else (a FIFO, a folder): differs


def _installed_version(dest: Path) -> str:
    try:
        return f" (installed v{load_policy_file(dest).version})"
    except XlmodelError:
        return ""


@dataclass
class Listed:
    id: str
    files: list[PlanFile]
    policy: Policy | None = None
    error: str | None = None


def list_plans_with_errors() -> list[Listed]:
    """Every plan of the plan folders by id, loaded; a file that does not load (or an id two files
    define) with its error instead of a policy, so that one bad file does not hide the others."""
    out = []
    for pid, files in sorted(plan_files().items()):
        item = Listed(pid, files)
        try:
            item.policy = load_plan_by_id(pid)
        except XlmodelError as e:
            item.error = str(e)
        out.append(item)
    return out


def folders_line() -> str:
    """The plan folders, for ``xlmodel policies``: which are searched and which do not exist."""
    parts = []
    for d in plan_directories():
        state = "" if d.path.is_dir() else " (does not exist)"
        parts.append(f"{d.origin} {d.path}{state}")
    return "plan folders: " + "; ".join(parts)
