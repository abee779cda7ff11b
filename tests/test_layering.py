"""Architecture rules that must not erode: one-way imports, no game rules in Python."""

from __future__ import annotations

import ast
import re

import pytest

from conftest import ROOT

PACKAGE = ROOT / "hexlore"
# The board shape "battlelore" (13x9, alternating rows) is geometry the runtime must offer,
# so the game's name may appear; the words of its rules may not.
GAME_WORDS = re.compile(r"\b(creatures?|spiders?|banners?|trampl\w*|helmets?|flags?|lore token|heroe?s?|"
                        r"figures?|troops?|critical|warlords?|champions?)\b", re.I)


def imports_of(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = path.relative_to(PACKAGE).parent.parts
                base = parts[: len(parts) - node.level + 1]
                yield ".".join(("hexlore", *base, *(node.module.split(".") if node.module else [])))
            else:
                yield node.module or ""
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name


@pytest.mark.parametrize("stage, forbidden", [
    ("diagnostics", ("hexlore.dsl", "hexlore.compiler", "hexlore.runtime", "hexlore.cli", "hexlore.api")),
    ("dsl", ("hexlore.compiler", "hexlore.runtime", "hexlore.cli", "hexlore.api")),
    ("compiler", ("hexlore.runtime", "hexlore.cli", "hexlore.api")),
    ("runtime", ("hexlore.cli", "hexlore.api", "hexlore.dsl.parser", "lark")),
])
def test_imports_flow_one_way(stage, forbidden):
    offenders = []
    for path in (PACKAGE / stage).rglob("*.py"):
        for imported in imports_of(path):
            if imported.startswith(forbidden) or imported == "hexlore":  # nor the package's front door
                offenders.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert not offenders, offenders


def test_diagnostics_is_the_bottom_layer():
    """Every stage reports problems with hexlore.diagnostics, so it may import nothing else of
    hexlore (only its own modules): any layer may use it without a cycle."""
    offenders = [f"{path.relative_to(ROOT)} imports {imported}"
                 for path in (PACKAGE / "diagnostics").rglob("*.py") for imported in imports_of(path)
                 if (imported == "hexlore" or imported.startswith("hexlore."))
                 and not imported.startswith("hexlore.diagnostics")]
    assert (PACKAGE / "diagnostics" / "__init__.py").is_file() and offenders == []


def _module(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in PACKAGE.rglob("*.py")}


def _is_type_checking(node) -> bool:
    test = node.test
    return getattr(test, "id", None) == "TYPE_CHECKING" or getattr(test, "attr", None) == "TYPE_CHECKING"


def _run_time_imports(name: str, path) -> set[str]:
    """Modules of hexlore that ``name`` imports when it runs: at the top, in functions, in
    classes; not under ``if TYPE_CHECKING:`` (names for annotations, never imported)."""
    found: set[str] = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    stack = [ast.parse(path.read_text(encoding="utf-8"))]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                stack.extend(child.orelse)
            elif isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package[:len(package) - child.level + 1] + ([child.module] if child.module else []))
                found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in child.names)
            else:
                stack.append(child)
    return {m for m in found if m in MODULES and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: list[str] = []
    out = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        on_stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    on_stack.append(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = on_stack[on_stack.index(node):]
                del on_stack[on_stack.index(node):]
                if len(group) > 1:
                    out.append(sorted(group))
    return out


def test_no_import_cycles_anywhere():
    graph = {name: _run_time_imports(name, path) for name, path in MODULES.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_through_a_function_import():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("stage", ["runtime", "compiler"])
def test_no_game_words_in_the_engine(stage):
    offenders = []
    for path in (PACKAGE / stage).rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if GAME_WORDS.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_no_eval_exec_or_unsafe_yaml():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\b(eval|exec)\(", text), path
        assert "yaml.load(" not in text and "yaml.unsafe_load" not in text, path


#: the rooms of the runtime, lowest first: each imports only rooms before it. Scenario tests and
#: checks sit in ``analysis``, not ``scenarios``: they play games, so they stand on the engine.
ROOMS = ("geometry", "scenarios", "engine", "analysis")


@pytest.mark.parametrize("room", ROOMS)
def test_runtime_rooms_import_one_way(room):
    later = tuple(f"hexlore.runtime.{other}" for other in ROOMS[ROOMS.index(room) + 1:])
    offenders = [f"{path.relative_to(ROOT)} imports {imported}"
                 for path in (PACKAGE / "runtime" / room).rglob("*.py")
                 for imported in imports_of(path) if later and imported.startswith(later)]
    assert offenders == []


def test_every_runtime_module_lives_in_a_room():
    loose = [p.name for p in (PACKAGE / "runtime").glob("*.py") if p.name != "__init__.py"]
    rooms = sorted(p.name for p in (PACKAGE / "runtime").iterdir() if (p / "__init__.py").is_file())
    assert loose == [] and rooms == sorted(ROOMS)
