"""xlmodel 离线安装 — the offline install of xlmodel, the same on Windows and Linux.

Run by install.ps1 / install.bat (Windows) or install.sh (Linux) from the unpacked bundle, with the Python
the bundle's wheels were downloaded for; the standard library only, no network at any step:

1. the bundle is checked: its manifest's Python (3.12 for the Windows bundle) is the one running, and every
   wheel's SHA-256 is the one SHA256SUMS lists (a wheel changed or added on the way is refused);
2. a virtual environment is made (``--venv``; default ``.venv`` beside this file) — an existing folder is never
   replaced without ``--force``, and only when it is a virtual environment;
3. xlmodel and its dependencies are installed from ``wheels/`` only (``pip --isolated install --no-index``:
   no package index, no pip configuration of the machine), held to the bundle's constraints.txt;
4. on Windows: the xlwings Excel add-in (``xlwings addin install``: a copy of xlwings.xlam in the user's
   XLSTART folder) and the user's xlwings.conf naming this environment's Python (created when there is none:
   an existing one is left as it is and said so, unless ``--force``); with ``--trust-vba-access`` only, Excel's
   Trust Center setting 信任对 VBA 工程对象模型的访问 (HKCU\\Software\\Microsoft\\Office\\16.0\\Excel\\Security,
   AccessVBOM = 1), which Import Functions needs;
5. ``xlmodel selftest --engine ENGINE`` (excel on Windows, libreoffice on Linux): the models computed in the
   spreadsheet engine against xlmodel's evaluator. Its exit code is the install's.

docs/offline-install.md (README.md in the bundle) says what each step changes on the PC.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
WINDOWS = os.name == "nt"


def say(zh: str, en: str) -> None:
    print(f"[xlmodel] {zh} {en}", flush=True)


def fail(zh: str, en: str) -> None:
    print(f"[xlmodel] 安装未完成 install not done: {zh} — {en}", file=sys.stderr, flush=True)
    sys.exit(2)


def check_bundle(root: Path) -> dict:
    """The bundle's manifest, after its Python and every wheel's hash are checked."""
    try:
        manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
        sums = [ln.split(None, 1) for ln in (root / "SHA256SUMS").read_text(encoding="utf-8").splitlines() if ln.strip()]
    except (OSError, ValueError) as e:
        fail("离线包不完整（缺少 manifest.json 或 SHA256SUMS）", f"the bundle is incomplete ({e})")
    want = manifest.get("python", "")
    have = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if want and want != have:
        fail(f"离线包的软件包是为 Python {want} 下载的，当前为 Python {have}；请用 Python {want} 运行",
             f"the wheels are for Python {want}, this is Python {have}: run the install with Python {want}")
    listed = {name.strip().lstrip("*"): digest for digest, name in sums}
    wheels = sorted(p.name for p in (root / "wheels").glob("*.whl"))
    extra = [w for w in wheels if w not in listed]
    if extra or not wheels:
        fail(f"wheels 文件夹中有未列在 SHA256SUMS 的文件：{', '.join(extra) or '（无软件包）'}",
             "wheels/ holds files SHA256SUMS does not list (or none at all): rebuild the bundle")
    for name, digest in listed.items():
        path = root / "wheels" / name
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            fail(f"软件包 {name} 缺失或已被改动（SHA-256 不符）", f"wheel {name} is missing or changed (SHA-256 differs)")
    say(f"离线包已核对：{len(wheels)} 个软件包，Python {have}", f"bundle checked: {len(wheels)} wheels, Python {have}")
    return manifest


def make_venv(target: Path, force: bool) -> Path:
    if target.exists():
        if not force:
            fail(f"{target} 已存在；如要重建请加 --force", f"{target} exists; pass --force to make it again")
        if not (target / "pyvenv.cfg").is_file():
            fail(f"{target} 不是虚拟环境，不会删除它", f"{target} is not a virtual environment: it is not replaced")
    say(f"创建虚拟环境 {target}", f"making the virtual environment {target}")
    venv.EnvBuilder(with_pip=True, clear=target.exists()).create(target)
    return target / ("Scripts" if WINDOWS else "bin")


def run(cmd: list, what_zh: str, what_en: str) -> int:
    say(what_zh, what_en)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}  # no index the machine configures
    return subprocess.run([str(c) for c in cmd], env=env).returncode


def install(bin_dir: Path, root: Path) -> None:
    python = bin_dir / ("python.exe" if WINDOWS else "python")
    code = run([python, "-m", "pip", "--isolated", "install", "--no-index", "--disable-pip-version-check",
                "--find-links", root / "wheels", "-c", root / "constraints.txt", "xlmodel"],
               "从 wheels 文件夹安装 xlmodel（不联网）", "installing xlmodel from wheels/ (no network)")
    if code:
        fail("pip 未能安装（见上方信息）", f"pip could not install (exit {code}; see above)")


def excel_setup(bin_dir: Path, force: bool, trust_vba: bool) -> None:
    xlwings = bin_dir / "xlwings.exe"
    if run([xlwings, "addin", "install"], "安装 xlwings Excel 加载项（复制到 XLSTART 文件夹）",
           "installing the xlwings Excel add-in (copied to XLSTART)"):
        fail("xlwings 加载项未能安装（Excel 是否正在运行？关闭后重试）", "the xlwings add-in was not installed "
             "(is Excel running? close it and run again)")
    conf = Path.home() / ".xlwings" / "xlwings.conf"
    if conf.exists() and not force:
        say(f"已有 {conf}，未改动；其中 INTERPRETER_WIN 应为 {bin_dir / 'python.exe'}",
            f"{conf} exists and is left as it is; its INTERPRETER_WIN should be {bin_dir / 'python.exe'} (--force rewrites it)")
    else:
        cmd = [xlwings, "config", "create"] + (["--force"] if force else [])
        if run(cmd, f"写入 {conf}（INTERPRETER_WIN = 本环境的 Python）", f"writing {conf} (INTERPRETER_WIN = this environment's Python)"):
            fail("xlwings.conf 未能写入", "xlwings.conf was not written")
    if trust_vba:
        import winreg  # Windows only

        key = r"Software\Microsoft\Office\16.0\Excel\Security"
        with winreg.CreateKey(winreg.HKEY_CURRENT_USER, key) as k:
            winreg.SetValueEx(k, "AccessVBOM", 0, winreg.REG_DWORD, 1)
        say(f"已设置 HKCU\\{key}\\AccessVBOM = 1（信任对 VBA 工程对象模型的访问）",
            f"set HKCU\\{key}\\AccessVBOM = 1 (trust access to the VBA project object model)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="xlmodel 离线安装 offline install (docs/offline-install.md)")
    ap.add_argument("--venv", type=Path, default=HERE / ".venv", help="虚拟环境的文件夹 the environment's folder (default: .venv here)")
    ap.add_argument("--engine", default="excel" if WINDOWS else "libreoffice", choices=("excel", "libreoffice", "gnumeric"),
                    help="selftest 所用的电子表格引擎 the engine selftest uses")
    ap.add_argument("--force", action="store_true", help="重建已有的虚拟环境、改写已有的 xlwings.conf remake an existing "
                                                          "environment, rewrite an existing xlwings.conf")
    ap.add_argument("--no-addin", action="store_true", help="不安装 Excel 加载项 leave the Excel add-in out (Windows)")
    ap.add_argument("--trust-vba-access", action="store_true",
                    help="设置 Excel 信任中心“信任对 VBA 工程对象模型的访问”（Import Functions 需要）set Excel's trust of the "
                         "VBA project object model (Import Functions needs it; Windows)")
    ap.add_argument("selftest", nargs=argparse.REMAINDER, help="-- 之后的参数交给 selftest arguments after -- go to selftest")
    args = ap.parse_args(argv)
    extra = [a for a in args.selftest if a != "--"]
    check_bundle(HERE)
    bin_dir = make_venv(args.venv.resolve(), args.force)
    install(bin_dir, HERE)
    if WINDOWS and not args.no_addin:
        excel_setup(bin_dir, args.force, args.trust_vba_access)
    xlmodel = bin_dir / ("xlmodel.exe" if WINDOWS else "xlmodel")
    code = run([xlmodel, "selftest", "--engine", args.engine, *extra],
               f"自检：在 {args.engine} 中计算模型并与评估器对照", f"selftest: the models computed in {args.engine} against the evaluator")
    if code:
        print(f"[xlmodel] 已安装，但自检未通过（退出码 {code}，见上方）installed, but selftest did not pass (exit {code}, see above)",
              file=sys.stderr)
        return code
    say(f"完成：xlmodel 已安装在 {args.venv}，自检通过；命令为 {xlmodel}", f"done: xlmodel is installed in {args.venv}, "
        f"selftest passed; the command is {xlmodel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
