"""The public API for a case's ``checks.py``.

A check is a small async function over a :class:`~lm_eval_a11y.engine.session.Session` that returns an
:class:`Outcome`. It is declared as a requirement (``R``: failing it fails the sample) or a best
practice (``BP``: tracked, never fails the sample)::

    from lm_eval_a11y.checks import Session, failed, find_hook, passed, requirement

    @requirement("trigger-is-button", "The trigger is exposed as a button")
    async def trigger_is_button(s: Session):
        trigger = await find_hook(s, ".trigger")  # none: fails, "No element has the class 'trigger'..."
        if trigger.role != "button":
            return failed(f"The trigger's role is {trigger.role!r}, not 'button'")
        return passed("The trigger is a button")

A check declared with ``late=True`` reads the page as it is at the late-change horizon (see the
evaluator's late audit) rather than just after its first audit: it runs after the checks that only
read the page and before those that act on it, so that what a page sets up on a timer (a listener,
a handler) is there when it looks. On a page that cannot change by itself there is no wait.

Every check starts on the page as first rendered: after a check that acted, the next one gets the
page loaded again. Checks declared with the same ``shares_page`` name are the exception: they run
one after another, in declared order, on one page, so that a set of keyboard walks pays for one
load and not one each. Each such check must set up the state it starts from itself (the keyboard
walks start from the top; a resize is undone), and it meets whatever the ones before it left (a
dialog that Escape closed stays closed).

A check may answer ``not_applicable`` only when it was declared with ``na_allowed=True``;
otherwise the framework records the answer as a failure, because a missing subject is a missing
feature. An exception inside a check becomes an ``error`` outcome with the exception's text,
except :class:`HookMissing` (what :func:`find_hook` raises), which makes it a failure.

Helpers for what many cases look for, so that no case copies them:

- :func:`find_hook`: the element the prompt asked for by a selector (a class, most often); a
  check that looks for it with this helper fails with a standard message when there is none.
- :func:`focused_item`: the item a screen reader is on (the focused element, or the element its
  ``aria-activedescendant`` names).
- :func:`element_by_id` and :func:`id_selector`: the element an id reference names
  (``aria-controls``, ``aria-activedescendant``...), whatever characters the id holds;
  :func:`css_string` quotes any value for an attribute selector.
- :func:`table_in`: the table (or grid, or treegrid) a hook is or holds; :func:`table_rows`: a
  table's rows as a screen reader reads them, each as its list of cells.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lm_eval_a11y.engine.elements import Change, Element
from lm_eval_a11y.observation import CheckStatus, CheckType

if TYPE_CHECKING:
    from lm_eval_a11y.engine.session import Session

__all__ = [
    "Change",
    "Check",
    "CheckFunction",
    "Element",
    "HookMissing",
    "Outcome",
    "Session",
    "best_practice",
    "css_string",
    "element_by_id",
    "failed",
    "find_hook",
    "focused_item",
    "id_selector",
    "not_applicable",
    "passed",
    "requirement",
    "table_in",
    "table_rows",
]

_CHECK_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Outcome:
    status: CheckStatus
    message: str


def passed(message: str) -> Outcome:
    return Outcome("pass", message)


def failed(message: str) -> Outcome:
    return Outcome("fail", message)


def not_applicable(message: str) -> Outcome:
    return Outcome("na", message)


CheckFunction = Callable[["Session"], Awaitable[Outcome]]


@dataclass(frozen=True)
class Check:
    id: str
    description: str
    type: CheckType
    func: CheckFunction
    na_allowed: bool = False
    late: bool = False
    shares_page: str | None = None

    async def __call__(self, session: Session) -> Outcome:
        try:
            return await self.func(session)
        except HookMissing as missing:
            return failed(missing.message)


def _declare(
    check_type: CheckType, check_id: str, description: str, na_allowed: bool, late: bool, shares_page: str | None
) -> Callable[[CheckFunction], Check]:
    if not _CHECK_ID.match(check_id):
        raise ValueError(f"check id {check_id!r} must be kebab-case (lowercase letters, digits, single hyphens)")
    if not description.strip():
        raise ValueError(f"check {check_id!r} needs a description sentence")

    def wrap(func: CheckFunction) -> Check:
        return Check(
            id=check_id,
            description=description,
            type=check_type,
            func=func,
            na_allowed=na_allowed,
            late=late,
            shares_page=shares_page,
        )

    return wrap


def requirement(
    check_id: str,
    description: str,
    *,
    na_allowed: bool = False,
    late: bool = False,
    shares_page: str | None = None,
) -> Callable[[CheckFunction], Check]:
    """Declare a requirement check: the sample fails unless it passes (or is an allowed ``na``)."""
    return _declare("R", check_id, description, na_allowed, late, shares_page)


def best_practice(
    check_id: str,
    description: str,
    *,
    na_allowed: bool = False,
    late: bool = False,
    shares_page: str | None = None,
) -> Callable[[CheckFunction], Check]:
    """Declare a best-practice check: reported and rated, never fails the sample."""
    return _declare("BP", check_id, description, na_allowed, late, shares_page)


class HookMissing(Exception):
    """What the prompt asked for is not on the page: raised by :func:`find_hook` inside a check,
    which then fails with ``message`` (a missing hook is the model's failure, not an error)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


_CLASS_SELECTOR = re.compile(r"^\.([A-Za-z0-9_-]+)$")


def _missing_hook_message(selector: str) -> str:
    class_name = _CLASS_SELECTOR.match(selector)
    if class_name:
        return f"No element has the class '{class_name[1]}' the prompt asked for"
    return f"No element matches {selector!r}, which the prompt asked for"


async def find_hook(s: Session, selector: str, missing: str | None = None) -> Element:
    """The first element matching ``selector``, a hook the prompt asked for (``".trigger"``).

    When there is none, the check that called this fails: with ``missing`` as its message, or by
    default "No element has the class 'trigger' the prompt asked for" (for a class selector) or
    "No element matches '...', which the prompt asked for". Use it where the check cannot go on
    without the hook; where a missing hook means something else, call ``s.find`` instead.
    """
    found = await s.find(selector)
    if found is None:
        raise HookMissing(missing if missing is not None else _missing_hook_message(selector))
    return found


def css_string(value: str) -> str:
    """``value`` as a double-quoted CSS string, backslashes and quotes escaped, for an attribute
    selector: ``f"label[for={css_string(field_id)}]"``."""
    return '"{}"'.format(value.replace("\\", "\\\\").replace('"', '\\"'))


def id_selector(value: str) -> str:
    """The selector of the elements whose id is exactly ``value`` (an id may hold any character
    but whitespace, so ``#value`` would not do)."""
    return f"[id={css_string(value)}]"


async def element_by_id(s: Session, value: str) -> Element | None:
    """The first element whose id is ``value``, as an id reference (``aria-controls``,
    ``aria-activedescendant``, ``for``) names it; None when no element has it."""
    return await s.find(id_selector(value))


async def focused_item(s: Session) -> Element | None:
    """The item a screen reader is on: the focused element, or the element its
    ``aria-activedescendant`` names (the focused element itself when no element has that id);
    None when nothing has focus."""
    active = await s.active()
    if active is None:
        return None
    target = active.attr("aria-activedescendant")
    if target:
        named = await element_by_id(s, target)
        if named is not None:
            return named
    return active


_TABLE_ROLES = ("table", "grid", "treegrid")
_TABLES = "table, [role=table], [role=grid], [role=treegrid]"


async def table_in(s: Session, hook: Element) -> Element | None:
    """The table a hook stands for: ``hook`` itself when it is exposed as a table, grid or
    treegrid, else the first element inside it that is; None when neither is (a layout of
    ``div``s read as text, for instance)."""
    if hook.role in _TABLE_ROLES:
        return hook
    for inner in await s.find_all(_TABLES, hook):
        if inner.role in _TABLE_ROLES:
            return inner
    return None


_TABLE_CELL_ROLES = ("cell", "gridcell", "columnheader", "rowheader")
_TABLE_CELLS = "th, td, [role=cell], [role=gridcell], [role=columnheader], [role=rowheader]"


async def table_rows(s: Session, table: Element) -> list[list[Element]]:
    """The rows of ``table`` as a screen reader reads them, in DOM order: each element in it with
    role ``row`` that is not hidden from assistive technology, as the list of its cells (roles
    cell, gridcell, columnheader and rowheader) not hidden from it. Rows without such a cell are
    left out. Spans are not resolved: a column index holds in a table without them."""
    rows = []
    for row in await s.find_all("tr, [role=row]", table):
        if row.role != "row" or row.hidden_from_at:
            continue
        cells = [c for c in await s.find_all(_TABLE_CELLS, row) if c.role in _TABLE_CELL_ROLES and not c.hidden_from_at]
        if cells:
            rows.append(cells)
    return rows


def __getattr__(name: str) -> object:
    # Session drives the browser; import it only when a case asks.
    if name == "Session":
        from lm_eval_a11y.engine import session

        return getattr(session, name)
    raise AttributeError(name)
