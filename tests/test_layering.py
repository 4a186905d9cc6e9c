"""The house is one-way: no module of xlmodel imports, directly or through others, a module that
imports it back (lazy imports inside functions count too: they are cycles all the same)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "xlmodel"


def _modules() -> dict[str, Path]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = f.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def _imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        package = m.split(".") if f.name == "__init__.py" else m.split(".")[:-1]
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.ImportFrom):
                base = ".".join(package[:len(package) - n.level + 1] + ([n.module] if n.module else [])) if n.level else n.module
                for a in n.names:
                    target = f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                    if target in mods and target != m:
                        edges[m].add(target)
            elif isinstance(n, ast.Import):
                edges[m] |= {a.name for a in n.names if a.name in mods and a.name != m}
    return edges


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


def test_no_module_imports_one_that_imports_it_back():
    assert _cycles(_imports(_modules())) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_core_never_imports_the_workbook_or_the_command_line():
    """The evaluator and everything under it know nothing of workbooks, UDFs or the CLI."""
    edges = _imports(_modules())
    core = ["xlmodel.rules.expr", "xlmodel.rules.catalogue", "xlmodel.plans.schema", "xlmodel.case", "xlmodel.rules.env",
            "xlmodel.rules.compiled", "xlmodel.evaluator", "xlmodel.report", "xlmodel.batch.evaluate",
            "xlmodel.plans.folders", "xlmodel.plans.clauses", "xlmodel.plan_install", "xlmodel.caches.listing_cache"]
    higher = ("xlmodel.workbook", "xlmodel.cli", "xlmodel.udfs", "xlmodel.draft")
    wrong = {m: sorted(t for t in edges[m] if t.startswith(higher)) for m in core}
    assert {m: t for m, t in wrong.items() if t} == {}


def test_the_worksheet_functions_sit_below_the_workbook():
    """The UDFs read their labels from the catalogue: the workbook (its UDF sheet) imports them, never
    the other way round."""
    edges = _imports(_modules())
    assert sorted(t for t in edges["xlmodel.udfs"] if t.startswith("xlmodel.workbook")) == []


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
                if t != "xlmodel":  # the package: `from . import __version__` loads none of its lazy names
                    todo.append(t)
        return seen

    for m in ("xlmodel.plans.folders", "xlmodel.caches.listing_cache", "xlmodel.plans.clauses"):
        assert "xlmodel.plans.schema" not in reach(m), m
    assert "xlmodel.plans.clauses" in edges["xlmodel.plans.schema"]
