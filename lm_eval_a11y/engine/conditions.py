"""Screens and preferences: the page audited under each condition a visitor may bring to it (a
phone's screen with a coarse pointer, the dark colour scheme, reduced motion) whenever it renders
differently under that condition than in the default one (1280x800, fine pointer, light scheme,
no preference for motion).

After a sample's checks and its late audit, on a fresh document when a check acted on the page,
the probe takes a print of the page in the default condition (``evaluator/probe/conditions.js``:
per element, of the document and of its shadow trees, its tag, attributes, own text, whether it
has a box and the computed styles that decide what is shown and how it reads; never box sizes,
which every page changes on a narrower screen). Closed shadow roots are opened to the probe's
world before each print, as for an audit (:func:`_print`). Then:

- **dark scheme** and **reduced motion** are emulated in the same document
  (``Emulation.setEmulatedMedia`` through Playwright's ``emulate_media``), the page is let react
  (its ``matchMedia`` listeners and the transitions they start: ``Session.settle``) and printed
  again; afterwards the default is set back and the page let react again;
- the **phone** is a second tab of the slot's context that stays a phone (390x844, ``mobile``,
  touch with a coarse pointer and no hover): the page is loaded there as a phone's visitor loads
  it, and its print compared with the default one.

A page whose print does not differ pays the prints, the settles and the phone's load, no axe run;
a page with frames is audited under every condition (:func:`_differs`).
A page that differs is audited there with axe-core, the axe run named after the condition
(``phone 390x844, coarse pointer``, ``dark scheme``, ``reduced motion``: each finding carries it),
and its colour contrast there is measured on the pixels into the sample's contrast audit
(:func:`_condition_contrast`).

What Chromium emulates, measured on the headless shell (156): ``Emulation.setEmulatedMedia``
takes ``prefers-color-scheme`` and ``prefers-reduced-motion`` and gives them back exactly; it
accepts ``pointer``, ``hover``, ``any-pointer`` and ``any-hover`` and ignores them.
``Emulation.setTouchEmulationEnabled`` is what makes ``(pointer: coarse)``, ``(hover: none)``,
``(any-pointer: coarse)`` and ``navigator.maxTouchPoints`` report a touch screen (and
``'ontouchstart' in window`` in documents created afterwards), but turning it off again leaves
the tab with no pointer at all (``(pointer: none)``, ``(hover: none)``): the fine pointer of the
default comes from Playwright's ``--blink-settings`` for headless Chromium, which the browser does
not apply again. Clearing ``Emulation.setDeviceMetricsOverride`` likewise leaves the screen at
800x600 rather than the context's. Hence the phone's own tab, never switched back, and the desktop
tab never switched to a phone. ``mobile: true`` lays a page out as a phone does: at its ``<meta
name="viewport">`` width, or at 980 CSS pixels without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from lm_eval_a11y.contrast import CONTRAST_RULE, has_contrast_nodes
from lm_eval_a11y.engine.audit import open_closed_roots
from lm_eval_a11y.engine.contrast import measure_last_run
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.settings import EvaluatorSettings
from lm_eval_a11y.engine.tab import EventLog, Tab
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
# How long the phone's document may take to leave (Tab.depart), and its page to close.
_PHONE_DEPART_S = 2.0
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

    The emulation of the sample's tab is restored whatever happens (an exception, a cancelled
    evaluation); a sample that does not end well loses its context anyway (evaluator.py)."""
    if session.dirty:
        await auditor._crash_aware(session, session.reset())
    baseline: dict[str, Any] = await auditor._crash_aware(session, _print(session, tab, "conditionBaseline"))
    default_print = str(baseline["hash"])
    in_document = (DARK, REDUCED_MOTION)
    for number, condition in enumerate(in_document):
        if number:
            # The page has reacted to the way back from the condition before: printed afresh.
            await auditor._crash_aware(session, _print(session, tab, "conditionBaseline"))
        # From here the document is no longer as first rendered (nor its cached reads fresh).
        session._touch()
        try:
            await auditor._crash_aware(session, _emulate(tab, condition))
            await auditor._crash_aware(session, session.settle())
            difference: dict[str, Any] = await auditor._crash_aware(session, _print(session, tab, "conditionDiffers"))
            if _differs(tab, difference):
                await auditor._audit_unchecked(session, run, condition.label, disable=_CONTRAST_RULES)
                await _condition_contrast(auditor, session, tab, run, condition, difference)
        finally:
            await _restore(tab, condition)
        if number < len(in_document) - 1:
            await auditor._crash_aware(session, session.settle())
    await _audit_phone(auditor, session, tab, run, default_print)


def _differs(tab: Tab, difference: dict[str, Any]) -> bool:
    """Whether the page is audited under a condition: its print differs, or it has frames, whose
    documents the print does not reach (each reacts to the condition on its own: its media rules,
    its scripts) while the frame element stays the same."""
    return bool(difference["differs"]) or tab.frame_count() > 0


async def _print(session: Session, tab: Tab, function: str, *args: Any) -> Any:
    """One of the probe's prints of the page (conditionBaseline, conditionDiffers), shadow trees
    included: a page whose markup can make a closed shadow root has the closed roots it holds now
    opened to our world first (a root the page attached under the condition too)."""
    if session.may_have_closed_roots:
        await open_closed_roots(tab)
    return await session.probe(function, *args)


async def _emulate(tab: Tab, condition: Condition) -> None:
    if condition is DARK:
        await tab.page.emulate_media(color_scheme="dark")
    else:
        await tab.page.emulate_media(reduced_motion="reduce")


async def _restore(tab: Tab, condition: Condition) -> None:
    """Back to the default emulation, exactly as the slot's context set it up (pool.py). A
    failure is raised: the sample ends as an error, and a slot whose sample did not end well
    gets a new context (evaluator.py), so nothing of the condition reaches the next sample."""
    if condition is DARK:
        await tab.page.emulate_media(color_scheme="light")
    else:
        await tab.page.emulate_media(reduced_motion="no-preference")


# The phone tab of each slot's tab: opened on first use in the same browser context, dropped with
# it (a context that is replaced takes its pages along; the tab that keyed it is then gone too).
_PHONE_TABS: weakref.WeakKeyDictionary[Tab, Tab] = weakref.WeakKeyDictionary()


async def _phone_tab(tab: Tab) -> Tab:
    phone = _PHONE_TABS.get(tab)
    if phone is not None and not phone.crashed.is_set():
        return phone
    phone = Tab(tab.context, tab.settings)
    # One origin generator for both tabs: no origin (and its storage) is ever served twice.
    phone.share_origins(tab)
    await phone.start()
    width, height = PHONE_VIEWPORT
    await phone.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    await phone.send(
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
    _PHONE_TABS[tab] = phone
    return phone


async def _audit_phone(auditor: _Auditor, session: Session, tab: Tab, run: Any, default_print: str) -> None:
    """Load the page in the slot's phone tab and audit it there when it renders differently from
    the default print; its axe runs join the sample's. The phone's document is left as every
    sample's is (Tab.depart); one that will not leave costs the phone tab, not the sample."""
    phone = await _phone_tab(tab)
    phone.events = tab.events
    on_phone = Session(phone, session.html)
    try:
        # A load of the evaluator's choosing, timed as the sample's reloads are (SampleRun.budget_s).
        await auditor._crash_aware(on_phone, on_phone.reset())
        if phone.cut_short is None:
            difference: dict[str, Any] = await auditor._crash_aware(
                on_phone, _print(on_phone, phone, "conditionDiffers", default_print)
            )
            if _differs(phone, difference):
                await auditor._audit_unchecked(on_phone, run, PHONE.label, disable=_CONTRAST_RULES)
                await _condition_contrast(auditor, on_phone, phone, run, PHONE, difference)
    finally:
        session.take_audits_of(on_phone)
        phone.events = EventLog()
        try:
            await asyncio.wait_for(phone.depart(), _PHONE_DEPART_S)
        except Exception:  # noqa: BLE001 - a phone document that will not leave takes its tab along
            _PHONE_TABS.pop(tab, None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(phone.page.close(), _PHONE_DEPART_S)


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
        found, violations, more_v, more_i, left, _ = await auditor._crash_aware(
            session, measure_last_run(session, tab, condition.name, viewport, deadline)
        )
    except Exception:
        if session.crashed.is_set():
            raise
        # The pixels could not be measured in this condition: axe's answer there stands (each
        # node it failed counts as a failure), and each node it could not decide is not audited.
        run.contrast = replace(
            base,
            schemes=(*base.schemes, condition.name),
            axe_violations=(*base.axe_violations, (condition.name, _count(result, "violations"))),
            unmeasured_violations=base.unmeasured_violations + _count(result, "violations"),
            unmeasured_incomplete=base.unmeasured_incomplete + _count(result, "incomplete"),
            unaudited_incomplete=base.unaudited_incomplete + _count(result, "incomplete"),
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
        unaudited_incomplete=base.unaudited_incomplete + left,
    )


def _count(result: dict[str, Any], kind: str) -> int:
    """The nodes of axe's colour-contrast rule among ``kind`` of an axe run's result."""
    return sum(int(item.get("node_count") or 0) for item in result.get(kind) or () if item.get("id") == CONTRAST_RULE)
