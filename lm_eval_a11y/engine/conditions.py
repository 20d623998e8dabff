"""Screens and preferences: the page audited under each condition a visitor may bring to it (a
phone's screen with a coarse pointer, the dark colour scheme, reduced motion) whenever it renders
differently under that condition than in the default one (1280x800, fine pointer, light scheme,
no preference for motion).

After a sample's checks and its late audit, on a fresh document when a check acted on the page,
each condition is emulated in turn through the DevTools protocol, the page is let react (its
``matchMedia`` listeners, resize handlers and the transitions they start: ``Session.settle``), and
the probe compares a print of the page with the one taken just before in the default condition
(``evaluator/probe/conditions.js``: per element its tag, attributes, own text, whether it has a
box and the computed styles that decide what is shown and how it reads; never box sizes, which
every page changes on a narrower screen). A page that does not differ pays two prints and two
settles per condition, no axe run. A page that differs is audited there with axe-core, the axe
run named after the condition (``phone 390x844, coarse pointer``, ``dark scheme``, ``reduced
motion``: every finding carries it), and its colour contrast is measured on the pixels in that
condition too (see :func:`_condition_contrast`). Then the default emulation is restored exactly:
the tab serves the next sample.

What Chromium emulates, measured on the headless shell (156): ``Emulation.setEmulatedMedia``
takes ``prefers-color-scheme`` and ``prefers-reduced-motion`` but ignores ``pointer``, ``hover``,
``any-pointer`` and ``any-hover`` (accepted, no effect); ``Emulation.setTouchEmulationEnabled``
is what makes ``(pointer: coarse)``, ``(hover: none)``, ``(any-pointer: coarse)`` and
``navigator.maxTouchPoints`` report a touch screen, at once in the current document
(``'ontouchstart' in window`` only in documents created afterwards). ``mobile: true`` in
``Emulation.setDeviceMetricsOverride`` lays a page out as a phone does: at its ``<meta
name="viewport">`` width, or at 980 CSS pixels without one.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from lm_eval_a11y.contrast import CONTRAST_RULE, has_contrast_nodes
from lm_eval_a11y.engine.contrast import measure_last_run
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.settings import EvaluatorSettings
from lm_eval_a11y.engine.tab import Tab
from lm_eval_a11y.observation import ContrastAudit

__all__ = ["CONDITIONS", "PHONE_VIEWPORT", "Condition", "audit_conditions"]

T = TypeVar("T")

# A phone held upright (CSS pixels), with a touch screen: a common size of current phones.
PHONE_VIEWPORT: tuple[int, int] = (390, 844)

# axe's colour-contrast rules: left out of a condition's recorded axe run and decided by the
# pixel check of that condition instead (_condition_contrast), as the dark scheme of
# engine/contrast.py is.
_CONTRAST_RULES = (CONTRAST_RULE, "color-contrast-enhanced")
_CONTRAST_ONLY = {
    "runOnly": {"type": "rule", "values": [CONTRAST_RULE]},
    "resultTypes": ["violations", "incomplete"],
}
# The share of the sample's budget the pixel check of one condition may take.
_CONTRAST_SHARE_OF_BUDGET = 1 / 8


@dataclass(frozen=True)
class Condition:
    """One condition a visitor may bring: ``name`` is short (and the contrast scheme of its
    nodes), ``label`` names the axe run of the state it shows."""

    name: str
    label: str


DARK = Condition("dark", "dark scheme")
REDUCED_MOTION = Condition("reduced-motion", "reduced motion")
PHONE = Condition("phone", f"phone {PHONE_VIEWPORT[0]}x{PHONE_VIEWPORT[1]}, coarse pointer")

# In this order: the phone last, since leaving it is the one restoration a document may not take
# whole (see _restore); no audit follows it in this document.
CONDITIONS: tuple[Condition, ...] = (DARK, REDUCED_MOTION, PHONE)


class _Auditor(Protocol):
    """What :func:`audit_conditions` needs of the sample's audit (engine/sample.py)."""

    settings: EvaluatorSettings

    async def _crash_aware(self, session: Session, work: Awaitable[T]) -> T: ...

    async def _audit_unchecked(
        self,
        session: Session,
        run: Any,
        state: str,
        *,
        settle: bool = False,
        disable: tuple[str, ...] = (),
    ) -> None: ...


async def audit_conditions(auditor: _Auditor, session: Session, tab: Tab, run: Any) -> None:
    """Audit the page under each of :data:`CONDITIONS` where it renders differently from the
    default; merge the pixel check of colour contrast there into ``run.contrast``.

    The emulation is restored whatever happens (an exception, a cancelled evaluation); a page
    that crashed meanwhile loses its context anyway (pool.py)."""
    guard: Callable[[Awaitable[Any]], Awaitable[Any]] = lambda work: auditor._crash_aware(session, work)  # noqa: E731
    if session.dirty:
        await guard(session.reset())
    for number, condition in enumerate(CONDITIONS):
        await guard(session.probe("conditionBaseline"))
        # From here the document is no longer as first rendered (nor its cached reads fresh).
        session._touch()
        try:
            await guard(_emulate(tab, condition))
            await guard(session.settle())
            difference: dict[str, Any] = await guard(session.probe("conditionDiffers"))
            if difference["differs"]:
                await auditor._audit_unchecked(session, run, condition.label, disable=_CONTRAST_RULES)
                await _condition_contrast(auditor, session, tab, run, condition, difference)
        finally:
            await _restore(tab, condition)
        if number < len(CONDITIONS) - 1:
            # The page reacts to the way back too, before the next condition's print.
            await guard(session.settle())


async def _emulate(tab: Tab, condition: Condition) -> None:
    if condition is DARK:
        await tab.page.emulate_media(color_scheme="dark")
    elif condition is REDUCED_MOTION:
        await tab.page.emulate_media(reduced_motion="reduce")
    else:
        width, height = PHONE_VIEWPORT
        await tab.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        await tab.send(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": width,
                "height": height,
                # The pixel check measures CSS pixels one to one.
                "deviceScaleFactor": 1,
                "mobile": True,
                "screenWidth": width,
                "screenHeight": height,
            },
        )


async def _restore(tab: Tab, condition: Condition) -> None:
    """Back to the default emulation, exactly as the slot's context set it up (pool.py): the
    light scheme, no preference for motion, and the context's own viewport, screen and pointer
    (Playwright's override, which ours shadowed, applies again once ours is cleared). Each step
    is tried even when one before it failed (a crashed page: its context is dropped anyway)."""
    if condition is DARK:
        with contextlib.suppress(Exception):
            await tab.page.emulate_media(color_scheme="light")
    elif condition is REDUCED_MOTION:
        with contextlib.suppress(Exception):
            await tab.page.emulate_media(reduced_motion="no-preference")
    else:
        with contextlib.suppress(Exception):
            await tab.send("Emulation.setTouchEmulationEnabled", {"enabled": False})
        with contextlib.suppress(Exception):
            await tab.send("Emulation.clearDeviceMetricsOverride")


async def _condition_contrast(
    auditor: _Auditor, session: Session, tab: Tab, run: Any, condition: Condition, difference: dict[str, Any]
) -> None:
    """The pixel check of colour contrast in a condition, merged into the sample's audit.

    axe's colour-contrast rule runs alone in the condition (its recorded run leaves the rule out)
    and each node it fails or cannot decide is measured on the pixels as in the default
    condition, as nodes of the condition's scheme (``dark``, ``phone``, ``reduced-motion``): a
    node decided to fail in any scheme fails the sample (``ContrastAudit.failing_targets``), and
    axe's failures the pixels overturn do not. The dark scheme is skipped when the sample's
    contrast audit already audited it (a page whose style sheets name the dark scheme).
    """
    audit: ContrastAudit | None = run.contrast
    if audit is not None and condition.name in audit.schemes:
        return
    started = time.perf_counter()
    result = await auditor._crash_aware(session, session.probe("runAxe", _CONTRAST_ONLY))
    if not has_contrast_nodes(result):
        run.axe_ms += (time.perf_counter() - started) * 1000
        return
    viewport = (int(difference["viewport"][0]), int(difference["viewport"][1]))
    deadline = started + auditor.settings.timeout_s * _CONTRAST_SHARE_OF_BUDGET
    base = audit if audit is not None else ContrastAudit(schemes=("light",), axe_violations=(("light", 0),))
    try:
        found, violations, more_v, more_i, _ = await auditor._crash_aware(
            session, measure_last_run(session, tab, condition.name, viewport, deadline)
        )
    except Exception:
        if session.crashed.is_set():
            raise
        # The pixels could not be measured in this condition: axe's answer there stands (each
        # node it failed counts as a failure, each it could not decide stays undecided).
        run.contrast = replace(
            base,
            schemes=(*base.schemes, condition.name),
            axe_violations=(*base.axe_violations, (condition.name, _count(result, "violations"))),
            unmeasured_violations=base.unmeasured_violations + _count(result, "violations"),
            unmeasured_incomplete=base.unmeasured_incomplete + _count(result, "incomplete"),
        )
        return
    finally:
        run.contrast_ms += (time.perf_counter() - started) * 1000
    run.contrast = replace(
        base,
        schemes=(*base.schemes, condition.name),
        nodes=base.nodes + tuple(found),
        axe_violations=(*base.axe_violations, (condition.name, violations)),
        unmeasured_violations=base.unmeasured_violations + more_v,
        unmeasured_incomplete=base.unmeasured_incomplete + more_i,
    )


def _count(result: dict[str, Any], kind: str) -> int:
    """The nodes of axe's colour-contrast rule among ``kind`` of an axe run's result."""
    return sum(int(item.get("node_count") or 0) for item in result.get(kind) or () if item.get("id") == CONTRAST_RULE)
