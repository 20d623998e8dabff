"""First guesses, from a check's code: whether it acts on the page, and how long it waits.

Whether it acts (key press, click, focus...): the evaluator runs the checks that only read the
page before those that act, so that one page load serves every reader and a reload is needed
only between checks that act. It learns which is which by running a case once; this guess orders
the checks of a case it has not run yet. A wrong guess costs at most a reload, never a wrong
outcome: whatever the order, a check that did act gives the next check a freshly loaded page.

The guess follows names: the check's code, the code of functions it names (module helpers, the
methods of objects it closes over, such as a pattern), a few levels deep. It acts if any of them
names a :class:`Session` method that marks the page as acted on (the evaluator's own record of
acting), or reaches past the check API to the raw Playwright page.

How long it waits: a check that lets the page run for seconds (``s.settle(2000)``: does the
message stay?) keeps its slot busy without using the CPU. The evaluator starts such pages early in
a batch, so that one does not run alone at the end while the other slots sit idle. The guess adds
up the delays the check's code passes to ``settle`` and ``wait``, as number literals or module
constants; until the evaluator has seen the case run, it orders pages by this guess.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

__all__ = ["acting_session_methods", "guess_acts", "guess_wait_ms"]

# Reaching past the check API to the Playwright page: anything may happen, so it counts as acting.
_RAW = frozenset({"page"})
_MAX_DEPTH = 4
# Session methods whose first argument is a delay in milliseconds.
_WAITING = frozenset({"settle", "wait"})


def _code_names(code: types.CodeType) -> Iterator[str]:
    """Every global and attribute name the code (and code nested in it) refers to."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_names(const)


@cache
def acting_session_methods() -> frozenset[str]:
    """Session methods that mark the page as acted on, directly or through another method."""
    from lm_eval_a11y.engine.session import Session

    # Session is assembled from one class per concern: its methods are those of its whole MRO.
    methods = {
        name: member.__code__
        for cls in reversed(Session.__mro__)
        for name, member in vars(cls).items()
        if inspect.isfunction(member) and not name.startswith("__")
    }
    acting = {"_touch"}
    changed = True
    while changed:
        changed = False
        for name, code in methods.items():
            if name not in acting and any(n in acting for n in _code_names(code)):
                acting.add(name)
                changed = True
    return frozenset(acting)


def guess_acts(func: Callable[..., Any]) -> bool:
    """True if the check's code, or code it names, calls a Session method that acts."""
    acting = acting_session_methods() | _RAW
    return any(names & acting for _, names in _reachable(func))


def _reachable(func: Any) -> Iterator[tuple[Any, set[str]]]:
    """The check and the functions its code names, a few levels deep, each once, with the names
    its code refers to; depth first, so that a caller that has seen enough can stop early."""
    seen: set[int] = set()

    def visit(func: Any, depth: int) -> Iterator[tuple[Any, set[str]]]:
        func = inspect.unwrap(func)
        code = getattr(func, "__code__", None)
        if not isinstance(code, types.CodeType) or id(code) in seen:
            return
        seen.add(id(code))
        names = set(_code_names(code))
        yield func, names
        if depth > 0:
            for callee in _named_callables(func, names):
                yield from visit(callee, depth - 1)

    return visit(func, _MAX_DEPTH)


def _named_callables(func: Any, names: set[str]) -> Iterator[Any]:
    """Functions the code may call by one of these names: module-level functions and closed-over
    functions, and the methods of module-level or closed-over objects."""
    module_globals = getattr(func, "__globals__", {})
    values = [module_globals[name] for name in names if name in module_globals]
    for cell in getattr(func, "__closure__", None) or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    for value in values:
        if inspect.isfunction(value):
            yield value
        elif not isinstance(value, type | types.ModuleType):
            # An object the code uses (a pattern instance): its methods named in the code.
            for name in names:
                method = getattr(type(value), name, None)
                if inspect.isfunction(method):
                    yield method


def guess_wait_ms(func: Callable[..., Any]) -> int:
    """The delays, in milliseconds, the check's code (and code it names) asks the page to wait.

    Each call counts once, also inside a loop: this orders work, it does not predict it.
    """
    return sum(_delays_in_source(found) for found, names in _reachable(func) if names & _WAITING)


def _delays_in_source(func: Any) -> int:
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):  # no source to read: no guess
        return 0
    module_globals = getattr(func, "__globals__", {})
    total = 0
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        if node.func.attr not in _WAITING:
            continue
        arg = node.args[0]
        value: object = None
        if isinstance(arg, ast.Constant):
            value = arg.value
        elif isinstance(arg, ast.Name):
            value = module_globals.get(arg.id)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            total += int(value)
    return total
