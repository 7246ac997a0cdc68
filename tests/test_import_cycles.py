"""No import cycles inside archmem: a module that imports another which (directly or
through others) imports it back is two parts that cannot be read, tested or moved apart.

Read from the AST of every module, two graphs:

* **module level** (what runs at import): no cycle at all, of any length;
* **anywhere** (imports inside functions too): no two modules import each other. A
  function-level import keeps start-up fast, but a pair that reaches into each other is
  still one part split in two files.

``if TYPE_CHECKING:`` imports name types for annotations and run nowhere; they are left
out of both.

This is the whole package's check (``test_import_loops.py`` holds the memory domain and
the store to the same rule). A package's ``__init__`` counts as its own module: ``from
archmem.cli import cli`` is an import of ``archmem.cli``, and ``from archmem import
history`` of ``archmem.history``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from .conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "archmem"


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module, module: str, *, module_level: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of a module: those that run when it is imported
    (``module_level``), or every one."""
    def walk(nodes: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                yield node
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                yield from walk(node.orelse)  # names for annotations only: nothing runs
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if not module_level:
                    yield from (n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom)))
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body)
            else:  # if / try / with at module level run at import
                for field in ("body", "orelse", "finalbody", "handlers"):
                    block = getattr(node, field, None)
                    if isinstance(block, list):
                        yield from walk([b for b in block if isinstance(b, ast.stmt)] +
                                        [s for h in block if isinstance(h, ast.ExceptHandler) for s in h.body])
    yield from walk(tree.body)


def import_graph(package: Path, *, module_level: bool) -> dict[str, set[str]]:
    """Module → the package's modules it imports."""
    root = package.parent
    modules = {_module_name(p, root): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8")), module, module_level=module_level):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = module.split(".") if is_package else module.split(".")[:-1]
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for name in names:
                while name and name not in modules:
                    name = name.rpartition(".")[0]
                if name and name != module and name.split(".")[0] == package.name:
                    targets.add(name)
        graph[module] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:  # iterative: the graph is deep enough to matter
        nonlocal counter
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def mutual_pairs(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    return sorted({frozenset({a, b}) for a, targets in graph.items() for b in targets if a in graph.get(b, ())},
                  key=sorted)


def test_no_import_cycle_at_module_level():
    found = cycles(import_graph(PACKAGE, module_level=True))
    assert not found, "import cycles at module level:\n" + "\n".join(" → ".join(c) for c in found)


def test_no_two_modules_import_each_other_anywhere():
    found = [sorted(pair) for pair in mutual_pairs(import_graph(PACKAGE, module_level=False))]
    assert not found, "modules that import each other (at run time too):\n" + "\n".join(" ↔ ".join(p) for p in found)


def test_the_checks_find_a_cycle_and_a_pair(tmp_path: Path):
    package = tmp_path / "archmem"
    (package / "drift").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "history.py": "from archmem.drift.types import Commit\n",
        "drift/__init__.py": "",
        "drift/types.py": "from archmem.drift import scan\n",
        "drift/scan.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from archmem import install\n"
                         "from archmem.history import read\n",
        "tools.py": "def merge():\n    from archmem.install import verbs\n",
        "install.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from archmem.drift import scan\n"
                      "def run():\n    from archmem.tools import merge\n",
    }
    for name, text in files.items():
        (package / name).write_text(text, encoding="utf-8")
    assert cycles(import_graph(package, module_level=True)) == [
        ["archmem.drift.scan", "archmem.drift.types", "archmem.history"]]
    assert [sorted(p) for p in mutual_pairs(import_graph(package, module_level=False))] == [
        ["archmem.install", "archmem.tools"]]
