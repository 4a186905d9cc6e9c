r"""plan_folders: where plans are found (the plan folders, in order). No pydantic and no YAML here, so that a
command may know the folders (and ``xlmodel policies`` list from its cache) without loading them.

Plans are found by id in these folders, never in the working directory:
  1. the bundled plans (templates/), which no other file can replace;
  2. the folders of --plans DIR (the command line; they replace XLMODEL_PLANS for that
     command), else those of the environment variable XLMODEL_PLANS (os.pathsep-separated,
     absolute paths);
  3. the user's plan folder (``policies install`` puts plans there): $XLMODEL_CONFIG_HOME/plans,
     else %APPDATA%\xlmodel\plans on Windows, $XDG_CONFIG_HOME/xlmodel/plans or
     ~/.config/xlmodel/plans elsewhere.
A folder that does not exist is skipped. An id defined by two files (a user plan with a bundled
plan's id, or one id in two user folders) is an error naming both: xlmodel never picks one."""

from __future__ import annotations

import os
from collections import namedtuple
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path


def _templates() -> Path:
    """templates/ of the source tree, or the copy an installed wheel carries as package data."""
    source = Path(__file__).resolve().parents[2] / "templates"
    return source if source.is_dir() else Path(__file__).resolve().parents[1] / "templates"


TEMPLATES = _templates()


def _error(message: str):
    from ..errors import XlmodelError  # (only when a folder is wrong: not on every start)

    return XlmodelError(message)


def _shown(ref) -> str:
    r = repr(ref)
    return r if len(r) <= 80 else r[:79] + "…"


BUNDLED, CLI_ORIGIN, ENV_ORIGIN, USER_ORIGIN = "bundled", "--plans", "XLMODEL_PLANS", "user"
PLANS_ENV, CONFIG_ENV = "XLMODEL_PLANS", "XLMODEL_CONFIG_HOME"

_CLI_PLAN_DIRS: ContextVar[tuple[Path, ...] | None] = ContextVar("xlmodel_cli_plan_dirs", default=None)


class PlanDir(namedtuple("PlanDir", "path origin")):
    """A plan folder: ``path`` and ``origin`` (BUNDLED, CLI_ORIGIN, ENV_ORIGIN or USER_ORIGIN). A
    named tuple, not a dataclass: every command knows its folders, and dataclasses cost start-up time."""

    __slots__ = ()


@contextmanager
def cli_plan_dirs(dirs):
    """Within the block, the plan folders of ``--plans`` (instead of XLMODEL_PLANS); each must be
    an existing folder (an :class:`XlmodelError` names the one that is not)."""
    checked = []
    for d in dirs or ():
        p = Path(d).expanduser()
        if not p.is_dir():
            raise _error(f"{'文件夹不存在' if not p.exists() else '不是文件夹'} --plans {d}: "
                         f"{'no such folder' if not p.exists() else 'not a folder'}")
        checked.append(p.absolute())
    token = _CLI_PLAN_DIRS.set(tuple(checked) if dirs else None)
    try:
        yield
    finally:
        _CLI_PLAN_DIRS.reset(token)


def user_plan_dir() -> Path | None:
    """The user's plan folder (it may not exist yet); None when there is no home folder."""
    home = os.environ.get(CONFIG_ENV)
    if home:
        p = Path(home).expanduser()
        if not p.is_absolute():
            raise _error(f"{CONFIG_ENV} 须为绝对路径 — {CONFIG_ENV}={_shown(home)}: expected an absolute path (plans are never looked up "
                               "relative to the working directory)")
        return p / "plans"
    try:
        if os.name == "nt":
            base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
        else:
            xdg = os.environ.get("XDG_CONFIG_HOME", "")
            base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".config"
    except (RuntimeError, KeyError):  # no home folder
        return None
    return base / "xlmodel" / "plans" if base.is_absolute() else None


def _env_plan_dirs() -> list[Path]:
    out = []
    for entry in os.environ.get(PLANS_ENV, "").split(os.pathsep):
        if not entry.strip():
            continue  # an empty entry is not the working directory here
        p = Path(entry).expanduser()
        if not p.is_absolute():
            raise _error(f"{PLANS_ENV} 中有非绝对路径 — {PLANS_ENV}: {_shown(entry)} is not an absolute path; plans are never looked up "
                               "relative to the working directory")
        out.append(p)
    return out


_DIRS: dict[tuple, tuple[list[PlanDir], tuple]] = {}

#: what decides the folders besides --plans: where Path.home() and the user's folder look, per system
_DECIDING = (PLANS_ENV, CONFIG_ENV, "APPDATA", "USERPROFILE", "HOMEDRIVE", "HOMEPATH") if os.name == "nt" \
    else (PLANS_ENV, CONFIG_ENV, "XDG_CONFIG_HOME", "HOME")


def _folders() -> tuple[list[PlanDir], tuple]:
    cli = _CLI_PLAN_DIRS.get()  # a tuple, or None
    key = (cli, *map(os.environ.get, _DECIDING))
    hit = _DIRS.get(key)
    if hit is None:
        if len(_DIRS) > 64:
            _DIRS.clear()
        dirs = _plan_directories(cli)
        hit = _DIRS[key] = (dirs, tuple((str(d.path), d.origin) for d in dirs))
    return hit


def plan_directories() -> list[PlanDir]:
    """The plan folders in order (bundled, --plans or XLMODEL_PLANS, the user's); some may not exist.
    Worked out once for each setting of what decides them (--plans and the environment)."""
    return list(_folders()[0])


def plan_directory_key() -> tuple[tuple[str, str], ...]:
    """:func:`plan_directories` as (path, origin) strings: what a remembered lookup is keyed on."""
    return _folders()[1]


def writable_by_anyone() -> list[PlanDir]:
    """The existing plan folders (or their ``texts/``) any user of this machine may write to (the
    mode's "others" write bit, sticky or not): anyone could drop a plan there, or change a text. Not
    on Windows, whose folders have access lists instead."""
    if os.name == "nt":
        return []
    import stat

    out = []
    for d in plan_directories():
        for folder in (d.path, d.path / "texts"):
            try:
                mode = os.stat(folder).st_mode
            except (OSError, ValueError):
                continue
            if stat.S_ISDIR(mode) and mode & stat.S_IWOTH:
                out.append(PlanDir(folder, d.origin))
    return out


def _plan_directories(cli) -> list[PlanDir]:
    dirs = [PlanDir(TEMPLATES, BUNDLED)]
    dirs += [PlanDir(p, CLI_ORIGIN) for p in cli] if cli is not None else [PlanDir(p, ENV_ORIGIN) for p in _env_plan_dirs()]
    user = user_plan_dir()
    if user is not None:
        dirs.append(PlanDir(user, USER_ORIGIN))
    return dirs


