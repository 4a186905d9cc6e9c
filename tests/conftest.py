"""Shared test helpers.

`case(policy, year, years, attestations=None, company=None)` builds a Case from
a dict {fiscal_year: {field: value}} so that tests read like the plan text.
"""

from __future__ import annotations

import os
import re

import pytest

from xlmodel.case import parse_case
from xlmodel.evaluator import evaluate
from xlmodel.engines.in_memory import gnumeric_python, uno_in_office
from xlmodel.engines.recalc import soffice, ssconvert

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
#: every workbook the tests write (and every xlmodel they run) prints the bundled samples' date on its cover
#: (xlmodel.workbook.builder.SAMPLES_DATE, 2026-12-01 00:00 UTC), as the committed samples do
os.environ["SOURCE_DATE_EPOCH"] = "1796083200"


#: the files that recalculate hundreds of workbooks in LibreOffice and Gnumeric: run first, so that with
#: a process per core (pytest -n auto --dist loadfile) the rest of the suite runs beside them, not after
LONGEST_FIRST = ("test_parity_engines.py", "test_capabilities.py", "test_timeline.py", "test_udfs.py", "test_hostile.py",
                 "test_drive.py")


#: a test whose parameter id ends in ``@PART`` (``[libreoffice@houpu-2024-2026-000-100]``) is in that
#: part of its file: tests/test_parity_engines.py splits the parity set so
_PART = re.compile(r"\[[^\]]*@([^\]@]+)\]$")


def pytest_sessionstart(session):
    """xlmodel's modules compiled once, in the controlling process, before any test process starts, as
    installing a package does (an editable install does not): where PYTHONDONTWRITEBYTECODE is set,
    every test process and every ``xlmodel`` run the tests start (hundreds) would compile them from
    source again, about 70 ms each."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import compileall
    from pathlib import Path

    import xlmodel

    compileall.compile_dir(str(Path(xlmodel.__file__).parent), quiet=2)


def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, where a file's parts go to processes of their own: every test of a file
    (of a part) in one process, so that its module fixtures are set up once, and the parity set,
    the suite's largest file by far, shared by the processes instead of carried by one."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FileOrPart(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            part = _PART.search(nodeid)
            file = nodeid.split("::", 1)[0]
            return f"{file}@{part.group(1)}" if part else file

    return FileOrPart(config, log)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: each file keeps its order


@pytest.fixture(autouse=True)
def _no_installed_plans(monkeypatch, tmp_path_factory):
    """Every test sees the bundled plans only, whatever plans this machine's user installed:
    an empty per-user folder, no XLMODEL_PLANS (tests of custom plans set their own)."""
    monkeypatch.setenv("XLMODEL_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "xlmodel-config"))
    monkeypatch.delenv("XLMODEL_PLANS", raising=False)


def formulas(wb):
    """(sheet title, cell) for every formula cell of an openpyxl workbook."""
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, str) and c.value.startswith("="):
                    yield ws.title, c


def case(policy: str, year: int, years: dict, attestations: dict | None = None, company: dict | None = None):
    data = {
        "policy": policy,
        "evaluation_year": year,
        "years": [{"fiscal_year": y, **vals} for y, vals in sorted(years.items())],
    }
    if attestations:
        data["attestations"] = attestations
    if company:
        data["company"] = company
    return parse_case(data, "<test>")


def run(policy: str, year: int, years: dict, attestations: dict | None = None, baseline: bool = False):
    """Evaluate and return the report.

    The per-plan tests check a plan's own rules, so by default the regulatory
    baseline (tested in test_regulatory.py) is left out of the report.
    """
    c = case(policy, year, years, attestations)
    return evaluate(c, baseline=baseline)


def assert_process_ends(pid: int, seconds: float = 5.0) -> None:
    """The process ``pid`` (an engine's child) is gone within ``seconds``."""
    import time

    for _ in range(int(seconds * 10)):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    pytest.fail(f"the engine's child {pid} is still running")


@pytest.fixture
def isolated_config(tmp_path, monkeypatch):
    """A config folder of the test's own, no plan folders from the environment, the UDFs' caches empty."""
    from xlmodel import udfs

    monkeypatch.setenv("XLMODEL_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("XLMODEL_PLANS", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    udfs.clear_caches()
    yield
    udfs.clear_caches()


def cli(capsys, *args):
    """Run the CLI in-process: (exit code, stdout, stderr). Only SystemExit is caught."""
    from xlmodel.cli import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _engine(exe: str | None, name: str, package: str) -> str:
    """An engine's path; fails (not skips) in CI when it is missing."""
    if exe is None:
        if IN_CI:
            pytest.fail(f"{name} is required in CI (install {package})")
        pytest.skip(f"{name} not installed")
    return exe


@pytest.fixture(scope="session")
def libreoffice():
    return _engine(soffice(), "LibreOffice", "libreoffice-calc-nogui")


@pytest.fixture(scope="session")
def gnumeric():
    return _engine(ssconvert(), "Gnumeric", "gnumeric")


#: how each engine's values are read in its memory (xlmodel.engines.in_memory) and what that needs
IN_MEMORY = {"libreoffice": (uno_in_office, "libreoffice-script-provider-python"), "gnumeric": (gnumeric_python, "python3-gi and gir1.2-gnumeric")}


def in_memory(engine: str) -> bool:
    """``engine``'s values are read in its memory (xlmodel.engines.in_memory): its bindings (LibreOffice's
    Python script provider) are there. CI requires them; elsewhere without them the tests read the engine's recalculated copies
    (LibreOffice's .xlsx, Gnumeric's .xls), which tests/test_parity_engines.py proves the same."""
    found, package = IN_MEMORY[engine]
    if found():
        return True
    if IN_CI:
        pytest.fail(f"{package} is required in CI ({engine} read in its memory)")
    return False


def engine_values(engine: str, paths: list, outdir, k: int = 1) -> dict[str, dict]:
    """{workbook name: {(sheet, cell): value}} for every workbook of ``paths`` recalculated in
    ``engine``, ``k`` engine processes side by side: read in the engine's memory where its bindings
    are installed, else from the copies it saves (xlmodel.engines.parity.engine_values)."""
    from concurrent.futures import ThreadPoolExecutor

    from xlmodel.engines.in_memory import read_gnumeric, read_libreoffice
    from xlmodel.engines.parity import FORMULA_SHEETS, engine_values as copy_values
    from xlmodel.engines.recalc import recalculate, recalculate_gnumeric

    if in_memory(engine):
        read = read_libreoffice if engine == "libreoffice" else read_gnumeric
        run = lambda ps: {p.name: v for p, v in read(ps, FORMULA_SHEETS).items()}  # noqa: E731
    else:
        save = recalculate if engine == "libreoffice" else lambda ps, out: recalculate_gnumeric(ps, out, suffix=".xls")
        run = lambda ps: {p.name: copy_values(c) for p, c in zip(ps, save(ps, outdir))}  # noqa: E731
    with ThreadPoolExecutor(k) as pool:
        return {name: v for got in pool.map(run, [paths[i::k] for i in range(k)]) for name, v in got.items()}
