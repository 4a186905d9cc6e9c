"""The requirements the bundle's wheels declare for the target platform that no wheel in the folder meets.

``pip download --platform win_amd64`` evaluates the requirements' environment markers on the machine it runs
on, so a Linux build leaves out what only Windows needs (xlwings' ``pywin32; platform_system == "Windows"``,
tqdm's ``colorama``). tools/offline-bundle.sh asks this script, and downloads what it names, until nothing is
missing:

    python missing_deps.py WHEELS_DIR PLATFORM PYTHON_VERSION     # PLATFORM: win64 or host

prints one requirement per line (name and version specifier, no marker). Uses pip's own copy of packaging.
"""

from __future__ import annotations

import platform
import re
import sys
import zipfile
from pathlib import Path

from pip._vendor.packaging.markers import default_environment
from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name


def environment(target: str, python: str) -> dict:
    env = default_environment()
    if target == "win64":
        env.update(os_name="nt", sys_platform="win32", platform_system="Windows", platform_machine="AMD64",
                   platform_release="10", implementation_name="cpython", platform_python_implementation="CPython",
                   python_version=python, python_full_version=f"{python}.0")
    return env


def metadata(wheel: Path) -> tuple[str, list[str]]:
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if re.match(r"[^/]+\.dist-info/METADATA$", n))
        text = z.read(name).decode("utf-8", "replace")
    head = text.split("\n\n", 1)[0]
    project = re.search(r"^Name: (.+)$", head, re.M).group(1).strip()
    return project, [m.group(1).strip() for m in re.finditer(r"^Requires-Dist: (.+)$", head, re.M)]


def main(folder: str, target: str, python: str) -> int:
    env = environment(target, python)
    wheels = sorted(Path(folder).glob("*.whl"))
    have = {canonicalize_name(metadata(w)[0]) for w in wheels}
    missing: dict[str, str] = {}
    for w in wheels:
        for line in metadata(w)[1]:
            req = Requirement(line)
            if req.marker is not None and not req.marker.evaluate({**env, "extra": ""}):
                continue
            key = canonicalize_name(req.name)
            if key not in have:
                missing[key] = f"{req.name}{req.specifier}"
    print("\n".join(missing.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
