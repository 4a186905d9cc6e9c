"""Issue 51.6: the offline bundle (docs/offline-install.md).

The Windows bundle cannot be installed here; the same logic can: tools/offline-bundle.sh builds the bundle for
this machine (``--platform host``: its platform and Python, the wheels at constraints.txt's versions), and the
bundle's install.sh — the twin of install.ps1, both running install.py — installs it into a fresh virtual
environment with no package index at all, then runs ``xlmodel selftest --engine libreoffice``. One test (the
``bundle`` mark), as CI runs it once: the build's ``pip download`` is its only use of the package index.
The checks of a tampered bundle need no build: a hand-made bundle of one wheel is enough.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ROOT / "tools" / "offline" / "install.py"


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "XLMODEL_"))}


@pytest.mark.bundle
@pytest.mark.libreoffice
def test_the_bundle_is_built_and_installs_offline_and_passes_selftest(tmp_path, libreoffice):
    t0 = time.monotonic()
    built = subprocess.run(["sh", str(ROOT / "tools" / "offline-bundle.sh"), "--platform", "host", "--out", str(tmp_path)],
                           env={**os.environ, "PYTHON": sys.executable}, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    zpath = tmp_path / "xlmodel-offline-linux.zip"
    build_s = time.monotonic() - t0
    names = zipfile.ZipFile(zpath).namelist()
    root = "xlmodel-offline-linux/"
    for f in ("install.py", "install.sh", "install.ps1", "install.bat", "README.md", "constraints.txt", "manifest.json",
              "SHA256SUMS"):
        assert root + f in names, f
    wheels = [n for n in names if n.startswith(root + "wheels/") and n.endswith(".whl")]
    assert any("/xlmodel-" in w for w in wheels) and any("/numpy-" in w for w in wheels)
    assert not [n for n in names if n.endswith((".tar.gz", ".zip"))]  # wheels only: the PC has no compiler
    with zipfile.ZipFile(zpath) as z:
        z.extractall(tmp_path / "unpacked")
    bundle = tmp_path / "unpacked" / "xlmodel-offline-linux"
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["python"] == f"{sys.version_info[0]}.{sys.version_info[1]}" and manifest["platform"] == "host"
    # offline: no index reachable (a dead proxy for good measure), no pip configuration, only the bundle
    t1 = time.monotonic()
    env = {**_env(), "PYTHON": sys.executable, "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
           "PIP_CONFIG_FILE": os.devnull}
    run = subprocess.run(["sh", str(bundle / "install.sh"), "--venv", str(tmp_path / "env"), "--",
                          "--policy", "gcl-energy-2022-2024", "--cases", "3"],
                         env=env, capture_output=True, text=True, timeout=900)
    install_s = time.monotonic() - t1
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    assert "离线包已核对" in out and "自检" in out and "完成" in out
    xl = tmp_path / "env" / "bin" / "xlmodel"
    assert subprocess.run([str(xl), "--version"], capture_output=True, text=True).returncode == 0
    print(f"\nbundle: {zpath.stat().st_size / 2**20:.1f} MiB, {len(wheels)} wheels; built in {build_s:.0f} s, "
          f"installed offline and self-tested in {install_s:.0f} s")


def _tiny_bundle(tmp_path: Path) -> Path:
    """A bundle of one (empty) wheel with its hash listed, for the checks that refuse before installing."""
    b = tmp_path / "b"
    (b / "wheels").mkdir(parents=True)
    (b / "install.py").write_bytes(INSTALL.read_bytes())
    whl = b / "wheels" / "x-1-py3-none-any.whl"
    whl.write_bytes(b"not really a wheel")
    (b / "SHA256SUMS").write_text(f"{hashlib.sha256(whl.read_bytes()).hexdigest()}  {whl.name}\n", encoding="utf-8")
    py = f"{sys.version_info[0]}.{sys.version_info[1]}"
    (b / "manifest.json").write_text(json.dumps({"xlmodel": "0", "platform": "host", "python": py}), encoding="utf-8")
    return b


def _install(b: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(b / "install.py"), *args], capture_output=True, text=True, env=_env(),
                          timeout=120)


@pytest.mark.parametrize("spoil, words", [
    (lambda b: (b / "wheels" / "x-1-py3-none-any.whl").write_bytes(b"changed"), ["已被改动", "SHA-256 differs"]),
    (lambda b: (b / "wheels" / "y-1-py3-none-any.whl").write_bytes(b"added"), ["未列在 SHA256SUMS", "y-1-py3-none-any.whl"]),
    (lambda b: (b / "manifest.json").write_text('{"python": "2.7"}', encoding="utf-8"), ["Python 2.7", "run the install with"]),
    (lambda b: (b / "SHA256SUMS").unlink(), ["离线包不完整", "the bundle is incomplete"]),
])
def test_a_spoiled_bundle_is_refused_before_anything_is_made(tmp_path, spoil, words):
    b = _tiny_bundle(tmp_path)
    spoil(b)
    p = _install(b, "--venv", str(tmp_path / "env"))
    assert p.returncode == 2 and all(w in p.stderr for w in words), p.stderr
    assert "Traceback" not in p.stderr and not (tmp_path / "env").exists()


def test_an_existing_folder_is_never_replaced_without_force(tmp_path):
    b = _tiny_bundle(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes", encoding="utf-8")
    p = _install(b, "--venv", str(mine))
    assert p.returncode == 2 and "已存在" in p.stderr and "--force" in p.stderr
    p = _install(b, "--venv", str(mine), "--force")  # and --force replaces a virtual environment only
    assert p.returncode == 2 and "不是虚拟环境" in p.stderr and "not a virtual environment" in p.stderr
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "my notes"


def _wheel(folder: Path, name: str, requires: list[str]) -> None:
    meta = "\n".join(["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0", *[f"Requires-Dist: {r}" for r in requires]])
    with zipfile.ZipFile(folder / f"{name}-1.0-py3-none-any.whl", "w") as z:
        z.writestr(f"{name}-1.0.dist-info/METADATA", meta + "\n\nbody\n")


def test_the_windows_bundle_gets_what_only_windows_needs(tmp_path):
    """pip download --platform win_amd64 evaluates markers on the building machine: xlwings' pywin32 and tqdm's
    colorama (both ``platform_system == "Windows"``) would be left out of a bundle built on Linux. missing_deps
    names them for win64 (never the macOS-only appscript), nothing for this (Linux) host, and nothing once
    they are there."""
    _wheel(tmp_path, "xlwings", ['pywin32>=224; platform_system == "Windows"', "appscript>=1; sys_platform == 'darwin'"])
    _wheel(tmp_path, "tqdm", ['colorama; platform_system == "Windows"', 'pytest>=6; extra == "dev"'])
    script = ROOT / "tools" / "offline" / "missing_deps.py"

    def missing(platform: str) -> list[str]:
        p = subprocess.run([sys.executable, str(script), str(tmp_path), platform, "3.12"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        return p.stdout.split()

    assert sorted(missing("win64")) == ["colorama", "pywin32>=224"]
    assert missing("host") == []
    _wheel(tmp_path, "pywin32", [])
    _wheel(tmp_path, "colorama", [])
    assert missing("win64") == []
