"""The lock (constraints.txt) and pyproject.toml agree (issue 45).

pyproject.toml keeps the ranges a user's own environment may satisfy; constraints.txt pins the versions
the whole suite passed with, and the README's commands and .ci/run install with ``-c constraints.txt``.
These tests fail when a range no longer admits its pinned version, when the lock misses a package the
project needs or keeps one nothing needs any more, and (in CI) when the installed versions are not the
lock's. Regenerate the lock with ``sh tools/lock.sh``, then run the whole suite before committing it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "constraints.txt"


def _lock() -> dict[str, Version]:
    pins = {}
    for n, line in enumerate(LOCK.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", line)
        assert m, f"constraints.txt:{n}: not a pin NAME==VERSION: {line!r}"
        name = canonicalize_name(m.group(1))
        assert name not in pins, f"constraints.txt:{n}: {name} pinned twice"
        pins[name] = Version(m.group(2))
    return pins


def _direct() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]


def _needed(env: dict[str, str]) -> set[str]:
    """The project's requirements and theirs, on this platform, as installed (markers evaluated)."""
    seen: set[str] = set()
    todo = [r for r in _direct() if r.marker is None or r.marker.evaluate(env)]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(req.name) or []:
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({**env, "extra": e}) for e in [""] + sorted(req.extras)):
                todo.append(sub)
    return seen


def test_every_range_of_pyproject_admits_its_pinned_version():
    pins = _lock()
    for req in _direct():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is a dependency in pyproject.toml but not pinned in constraints.txt"
        assert req.specifier.contains(pins[name], prereleases=True), \
            f"constraints.txt pins {req.name}=={pins[name]}, outside pyproject.toml's {req.specifier}"


def test_the_lock_pins_exactly_what_the_project_needs():
    from packaging.markers import default_environment

    needed, pinned = _needed(default_environment()), set(_lock())
    assert not needed - pinned, f"needed but not pinned (run sh tools/lock.sh): {sorted(needed - pinned)}"
    assert not pinned - needed, f"pinned but needed by nothing (run sh tools/lock.sh): {sorted(pinned - needed)}"


def test_the_installed_versions_are_the_locks():
    """In CI the suite runs on the lock's versions (the README's command installs with -c constraints.txt);
    elsewhere a developer's own environment may differ, and this says how."""
    off = {name: (str(v), metadata.version(name)) for name, v in _lock().items()
           if Version(metadata.version(name)) != v}
    if off and not os.environ.get("CI"):
        pytest.skip(f"installed versions differ from constraints.txt (pinned, installed): {off}")
    assert not off, f"installed versions differ from constraints.txt (pinned, installed): {off}"


def test_openpyxl_stays_on_the_backend_xlmodel_was_proven_on():
    """python-docx brings lxml; openpyxl would switch to it wherever it is installed (its writing then puts the
    custom properties in a form Gnumeric drops: an edited book recalculated there reads as no xlmodel book).
    xlmodel keeps openpyxl on the standard library's parser, in a fresh process as a user's would be."""
    code = "import xlmodel, openpyxl.xml as x; print(x.LXML, x.DEFUSEDXML)"
    env = {k: v for k, v in os.environ.items() if k != "OPENPYXL_LXML"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["False", "True"]
