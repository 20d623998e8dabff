"""The package stays easy to live in: no import cycles, no module over 700 lines, no class over 400.

Imports are read from the source, wherever they are (top level, ``TYPE_CHECKING`` blocks, inside
functions): a cycle that only a lazy import hides is still one a reader has to untangle. A
package's ``__init__.py`` names its public API without loading it (``TYPE_CHECKING`` imports and
a module ``__getattr__``); those lazy re-exports are not edges.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "lm_eval_a11y"
MAX_MODULE_LINES = 700
MAX_CLASS_LINES = 400


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "_assets" in parts or "examples" in parts:
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module, is_package_init: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    def visit(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
        for child in ast.iter_child_nodes(node):
            if is_package_init and (
                (isinstance(child, ast.If) and _is_type_checking(child))
                or (isinstance(child, ast.FunctionDef) and child.name == "__getattr__")
            ):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child
            else:
                yield from visit(child)

    return visit(tree)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_init = path.name == "__init__.py"
        package = name if is_init else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8")), is_init):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names
                ]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strongconnect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                strongconnect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            strongconnect(node)
    return found


def test_the_package_has_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_scoring_and_the_observation_do_not_reach_the_browser() -> None:
    graph = _graph()
    for pure in ("lm_eval_a11y.scoring", "lm_eval_a11y.observation"):
        reached: set[str] = set()
        todo = [pure]
        while todo:
            for succ in graph[todo.pop()] - reached:
                reached.add(succ)
                todo.append(succ)
        assert not {m for m in reached if m.startswith("lm_eval_a11y.engine")}, pure


def test_no_module_is_over_700_lines() -> None:
    long = {
        name: n
        for name, path in _modules().items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_class_is_over_400_lines() -> None:
    long: dict[str, int] = {}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > MAX_CLASS_LINES:
                    long[f"{name}.{node.name}"] = length
    assert long == {}


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return names


def test_only_the_command_line_imports_from_commands() -> None:
    """The library never reaches up into the CLI, and neither do tests: what both need lives in the
    library (``commands/`` holds argument parsing and printing only)."""
    root = PACKAGE.parent
    command_line = {PACKAGE / "cli.py", *(PACKAGE / "commands").rglob("*.py")}
    sources = [*PACKAGE.rglob("*.py"), *(root / "tests").rglob("*.py"), *(root / "scripts").rglob("*.py")]
    offenders = sorted(
        str(path.relative_to(root))
        for path in sources
        if path not in command_line
        and "_assets" not in path.parts
        and any(
            name == "lm_eval_a11y.commands" or name.startswith("lm_eval_a11y.commands.")
            for name in _imported_modules(path)
        )
    )
    assert offenders == []
