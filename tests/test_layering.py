"""The house is one-way. Its rooms — the folders of xlmodel and the modules at its top — are declared in
order, bottom up (:data:`ROOMS`): every import of every module (lazy imports inside functions count too)
goes to its own room or a lower one, and no module imports, directly or through others, a module that
imports it back. docs/extending.md shows the same map."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "xlmodel"

#: the rooms, bottom up: a module may import its own room and the rooms below it, never one above
ROOMS = (
    "xlmodel.errors", "xlmodel.fields", "xlmodel.outputs", "xlmodel.money", "xlmodel.progress", "xlmodel.libnotes",
    "xlmodel.inputs",       # untrusted files, safe XML, sanitizing text, writing outputs, plan documents
    "xlmodel.plans",        # the policy schema and loading, plan folders, a plan's clauses
    "xlmodel.caches",       # the user's cache folder: reference results, the policy listing
    "xlmodel.rules",        # expression trees, code generation, compiled rules, the catalogue, consistency
    "xlmodel.values",       # one input value read as the model reads it (numbers, dates, stock codes …)
    "xlmodel.case",
    "xlmodel.report",
    "xlmodel.evaluator",
    "xlmodel.plan_install",
    "xlmodel.planner",
    "xlmodel.synth",
    "xlmodel.batch",        # a table of company-years: evaluation, output, column names
    "xlmodel.announce",     # the profit distribution announcement: its figures, table, sentences, renderings
    "xlmodel.udfs",
    "xlmodel.draft",        # the drafter, a library
    "xlmodel.workbook",     # writing workbooks and reading them back
    "xlmodel.engines",      # spreadsheet engines: recalculation, parity, the selftest
    "xlmodel.commands",     # one module per command
    "xlmodel.cli",          # the parser and the dispatch
    "xlmodel",              # the package: its public names, imported when first used
)


def _modules() -> dict[str, Path]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = f.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's imports of xlmodel modules. ``from xlmodel import __version__`` is none: the version is
    the package's constant, set before anything else (the package imports nothing when loaded)."""
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        package = m.split(".") if f.name == "__init__.py" else m.split(".")[:-1]
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.ImportFrom):
                base = ".".join(package[:len(package) - n.level + 1] + ([n.module] if n.module else [])) if n.level else n.module
                for a in n.names:
                    target = f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                    if target == "xlmodel" and a.name == "__version__":
                        continue
                    if target in mods and target != m:
                        edges[m].add(target)
            elif isinstance(n, ast.Import):
                edges[m] |= {a.name for a in n.names if a.name in mods and a.name != m}
    return edges


def _room(module: str) -> int:
    """Where a module lives: its folder's room, or its own (the package's room is the package alone)."""
    return max(i for i, r in enumerate(ROOMS) if module == r or (r != "xlmodel" and module.startswith(r + ".")))


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_every_module_has_a_room():
    """A new module at the top of xlmodel/ or a new folder is declared in ROOMS (and docs/extending.md)."""
    top = [m for m in _modules() if m.count(".") == 1 and not _modules()[m].name == "__init__.py"]
    assert sorted(m for m in _modules() if m != "xlmodel" and not any(m == r or m.startswith(r + ".")
                                                                      for r in ROOMS[:-1])) == []
    assert len(top) <= 15, sorted(top)  # the top of xlmodel/: at most 15 modules (issue 49)


def test_every_import_goes_to_the_same_room_or_a_lower_one():
    edges = _imports(_modules())
    upward = {m: sorted(t for t in ts if _room(t) > _room(m)) for m, ts in edges.items()}
    assert {m: t for m, t in upward.items() if t} == {}


def test_the_rooms_finder_sees_an_import_running_up():
    assert _room("xlmodel.workbook.writer") > _room("xlmodel.udfs") > _room("xlmodel.rules.catalogue")
    assert _room("xlmodel.engines.selftest") > _room("xlmodel.workbook.reader")
    assert _room("xlmodel") == len(ROOMS) - 1


def test_no_module_imports_one_that_imports_it_back():
    assert _cycles(_imports(_modules())) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_workbook_and_the_drafter_are_libraries():
    """No argparse in xlmodel.workbook or xlmodel.draft (the commands live in xlmodel.commands), and the
    workbook never imports the engines that recalculate it."""
    edges = _imports(_modules())
    for m, f in _modules().items():
        if m.startswith(("xlmodel.workbook", "xlmodel.draft")):
            assert "argparse" not in f.read_text(encoding="utf-8"), m
            assert not any(t.startswith("xlmodel.engines") for t in edges[m]), m


def test_code_generation_is_the_bottom_of_the_house():
    """xlmodel.rules.codegen imports nothing of xlmodel: every module that compiles source may use it."""
    assert _imports(_modules())["xlmodel.rules.codegen"] == set()


def test_the_plan_folders_and_the_listing_cache_load_no_policy():
    """xlmodel.plans.folders (where plans are found) and xlmodel.caches.listing_cache (the cache of `xlmodel
    policies`) import nothing that loads a policy (pydantic, YAML): a listing from the cache takes a
    millisecond. The clause splitter (xlmodel.plans.clauses) sits below the policy schema that uses it."""
    edges = _imports(_modules())

    def reach(m: str) -> set[str]:
        seen, todo = set(), [m]
        while todo:
            for t in edges[todo.pop()] - seen:
                seen.add(t)
                todo.append(t)
        return seen

    for m in ("xlmodel.plans.folders", "xlmodel.caches.listing_cache", "xlmodel.plans.clauses"):
        assert "xlmodel.plans.schema" not in reach(m), m
    assert "xlmodel.plans.clauses" in edges["xlmodel.plans.schema"]
