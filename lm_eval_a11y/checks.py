"""The public API for a case's ``checks.py``.

A check is a small async function over a :class:`~lm_eval_a11y.engine.session.Session` that returns an
:class:`Outcome`. It is declared as a requirement (``R``: failing it fails the sample) or a best
practice (``BP``: tracked, never fails the sample)::

    from lm_eval_a11y.checks import Session, requirement, passed, failed

    @requirement("trigger-is-button", "The trigger is exposed as a button")
    async def trigger_is_button(s: Session):
        trigger = await s.find(".trigger")
        if trigger is None:
            return failed("No element has the class 'trigger' the prompt asked for")
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
feature. An exception inside a check becomes an ``error`` outcome with the exception's text.
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
    "Outcome",
    "Session",
    "best_practice",
    "failed",
    "not_applicable",
    "passed",
    "requirement",
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
        return await self.func(session)


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


def __getattr__(name: str) -> object:
    # Session drives the browser; import it only when a case asks.
    if name == "Session":
        from lm_eval_a11y.engine import session

        return getattr(session, name)
    raise AttributeError(name)
