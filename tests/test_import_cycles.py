"""No import cycle between two modules, or two packages, of hexlore (issue 32, item 3).

A cycle of imports makes the order modules are first imported in matter (a name read from a
half-initialised module is missing), makes a module impossible to understand or test without
the others of its cycle, and is how layers erode. The graph is built from the source with
:mod:`ast`, without importing anything, and every import counts: at module level, inside a
function (a lazy import only hides a cycle from the interpreter, not from the reader), and
under ``if TYPE_CHECKING:`` (a type-only cycle is still two modules that each need the other).

What an import statement depends on:

* ``import a.b.c`` and ``from a.b.c import name``: the module ``a.b.c``;
* ``from a.b import c`` where ``a/b/c.py`` (or ``a/b/c/``) exists: the submodule ``a.b.c``
  only. The package ``a.b`` is not read: Python imports a submodule whether or not the
  package's ``__init__`` has finished, so ``from . import x`` in ``pkg/__init__.py`` and
  ``from . import y`` in ``pkg/x.py`` (both submodules) make no cycle; ``from . import NAME``
  of a name ``pkg/__init__.py`` defines does depend on the package, and is an edge to it;
* plus every package on the way to the target that is not a package of the importer itself:
  importing ``hexlore.dsl.ast`` from ``hexlore.compiler`` runs ``hexlore/dsl/__init__.py``.
  A module's own packages are always being initialised before it, so the way down to a
  sibling (``from ..engine import x`` in ``runtime/engine/compiled/``) is not a dependency on
  each package's ``__init__`` (reading a name an ``__init__`` defines is, as above).

Packages: ``runtime.engine`` depends on ``runtime.engine.compiled`` when a module directly in
the one imports a module directly in the other (each module belongs to its own folder only:
a folder is not the sum of its sub-folders, which would make every package and its parent
one cycle). The modules at the top of ``hexlore/`` (``api``, ``cli``, ``look``…) are the front
door, each a layer of its own rather than one package: each is a node of the package graph
by itself (``cli`` uses ``lsp``, which uses ``api``: no cycle; ``api`` and ``replay`` using
each other would be one).

``KNOWN_CYCLES`` are the cycles still to remove (each names the work that removes it); the
list may only shrink: a test fails when an entry is no longer a cycle, so
that it is taken off as soon as it can be.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT
from hexlore.compiler.digraph import components, shortest_cycle

#: the strongly connected components allowed for now, by the modules (or packages) in them. Empty:
#: the last two (runtime.engine <-> its builtins/ and compiled/ packages, and game.py <-> the
#: modules a Game is made of, which typed it under TYPE_CHECKING) went with issue 32 (core/ holds
#: what the subpackages need; each part types the game against a Protocol of its own). An entry
#: is a cycle that may stay until the work named beside it removes it; the list only shrinks
#: (test_known_cycles_are_still_cycles), so a new cycle is never added here but removed.
KNOWN_CYCLES: list[frozenset[str]] = []


def all_modules(root: Path = ROOT) -> dict[str, Path]:
    """Module name -> file, for every module of the ``hexlore`` package under ``root``."""
    out = {}
    for path in sorted((root / "hexlore").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def packages_of(module: str, is_package: bool) -> list[str]:
    """The packages a module is inside (a package is inside itself, its ``__init__`` being it)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + (1 if is_package else 0))]


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool,
             modules: dict[str, Path]) -> Iterator[str]:
    """The modules of hexlore one import statement names (before the packages on the way)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    if node.level:
        base = module.split(".")
        base = base[: len(base) - node.level + (1 if is_package else 0)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    names_a_module = [alias.name for alias in node.names if f"{source}.{alias.name}" in modules]
    yield from (f"{source}.{name}" for name in names_a_module)
    if len(names_a_module) < len(node.names):
        yield source  # a name the module (or package's __init__) defines


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of hexlore ``module`` depends on (see the module's docstring)."""
    is_package = path.name == "__init__.py"
    own = set(packages_of(module, is_package))
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        for target in _targets(node, module, is_package, modules):
            if target not in modules:
                continue  # another library, or a name of one
            out.add(target)
            out.update(p for p in packages_of(target, False) if p in modules and p not in own)
    out.discard(module)
    return out


def module_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def package_graph(graph: dict[str, set[str]], modules: dict[str, Path]) -> dict[str, set[str]]:
    """Folder -> the folders its modules import from (each module in its own folder only)."""

    def folder(m: str) -> str:
        if modules[m].name == "__init__.py" or m.count(".") == 1:  # a package, or a front-door module
            return m
        return m.rpartition(".")[0]

    out: dict[str, set[str]] = {}
    for m, targets in graph.items():
        out.setdefault(folder(m), set()).update(folder(t) for t in targets)
    for f, targets in out.items():
        targets.discard(f)
    return out


def cycles(graph: dict[str, set[str]]) -> list[tuple[frozenset[str], list[str]]]:
    """Each strongly connected component with a cycle, and a shortest cycle in it."""
    nodes = sorted(graph)

    def succ(n: str) -> list[str]:
        return sorted(graph.get(n, ()))

    return [(frozenset(c), shortest_cycle(c, succ)) for c in components(nodes, succ)]


def _report(found: list[tuple[frozenset[str], list[str]]]) -> str:
    return "\n".join(" -> ".join(cycle + cycle[:1]) + f"   (a component of {len(comp)})"
                     for comp, cycle in found)


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return module_graph(all_modules())


@pytest.mark.parametrize("level", ["module", "package"])
def test_no_import_cycle(graph, level):
    g = graph if level == "module" else package_graph(graph, all_modules())
    found = [(comp, cycle) for comp, cycle in cycles(g) if comp not in KNOWN_CYCLES]
    assert not found, f"import cycles between {level}s:\n{_report(found)}"


def test_known_cycles_are_still_cycles(graph):
    """KNOWN_CYCLES only shrinks: an entry that is no longer a cycle must be taken off."""
    now = {comp for g in (graph, package_graph(graph, all_modules())) for comp, _ in cycles(g)}
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in now]
    assert not gone, f"no longer cycles, take them off KNOWN_CYCLES: {gone}"


# ---------------------------------------------------------------- the graph itself
def test_the_graph_sees_every_kind_of_import(graph):
    """Module level, relative, a submodule named by ``from . import``, inside a function,
    under TYPE_CHECKING: a test against the real package, so a change in how imports are read
    that loses edges fails here rather than hiding cycles."""
    assert "hexlore.dsl.ast" in graph["hexlore.compiler.declare_shapes"]  # from ..dsl import ast
    assert "hexlore.dsl" in graph["hexlore.compiler.declare_shapes"]  # its __init__ runs
    assert "hexlore.compiler.declare_shapes" in graph["hexlore.compiler.declare"]  # from . import x as y
    assert "hexlore.compiler" not in graph["hexlore.compiler.declare"]  # its own package
    assert len(graph) == len(all_modules()) and len(graph) > 100


def test_imports_in_functions_and_type_checking_blocks_count(tmp_path):
    pkg = tmp_path / "hexlore"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "sub" / "__init__.py").write_text("from . import a\n", encoding="utf-8")
    (pkg / "sub" / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from .b import B\n", encoding="utf-8")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .a import A\n", encoding="utf-8")
    (pkg / "c.py").write_text("from .sub import NAME\n", encoding="utf-8")
    (pkg / "d.py").write_text("import hexlore.sub.a\nimport os\n", encoding="utf-8")
    modules = all_modules(tmp_path)
    g = module_graph(modules)
    assert g["hexlore.sub"] == {"hexlore.sub.a"}  # from . import a: the submodule
    assert g["hexlore.sub.a"] == {"hexlore.sub.b"}  # under TYPE_CHECKING
    assert g["hexlore.sub.b"] == {"hexlore.sub.a"}  # inside a function
    assert g["hexlore.c"] == {"hexlore.sub"}  # a name the package's __init__ defines
    assert g["hexlore.d"] == {"hexlore.sub", "hexlore.sub.a"}  # and the package on the way
    assert [sorted(comp) for comp, _ in cycles(g)] == [["hexlore.sub.a", "hexlore.sub.b"]]
    assert package_graph(g, modules) == {"hexlore": set(), "hexlore.sub": set(), "hexlore.c": {"hexlore.sub"},
                                         "hexlore.d": {"hexlore.sub"}}
