"""A visitor's walk: after the checks, every page is met as a visitor meets it, and each new
state the walk reaches is audited.

A visitor closes the dialog that greets them, moves the pointer, scrolls to the end with the
wheel, presses a key, rests the pointer on what reacts to it and opens what opens. A page can
show its failures only then: behind a cookie dialog opened with ``showModal()`` (the page behind
it is inert and axe-core leaves it out), under a splash that goes on the first pointer move, in
content added on the first wheel or key press, in a menu shown on hover, inside a ``<details>``,
an ``aria-expanded="false"`` control's panel or a popover. The walk does those things, in this
order, through the session's trusted input (CDP mouse, wheel and keyboard: no DOM shortcut):

1. the modal dialog open at load is closed with its control that accepts, closes or declines
   (by accessible name), else with Escape;
2. the pointer moves onto the page (from its top left corner to the middle of the viewport);
3. the wheel scrolls to the end of the page (at most :data:`MAX_WHEELS` turns);
4. Tab is pressed once;
5. the pointer rests on each element that reacts to it (a ``:hover`` rule that shows or hides
   something other than the element itself, a mouseover/mouseenter/pointerover/pointerenter
   listener), at most :data:`MAX_HOVERS`;
6. each control that opens something is clicked: ``aria-expanded="false"``, the summary of a
   closed ``<details>``, a popover invoker (``popovertarget``) whose popover is closed; in
   document order, asked again after each click (what a click reveals comes next), at most
   :data:`MAX_OPENS`.

A page without script, CSS animation or transition (``may_change_itself``) cannot react to the
pointer moving or the wheel but through ``:hover`` rules (step 5), so steps 2 and 3 are left out
there; its walk costs a few probe calls and one key press.

After each action the probe's fingerprint of what the page shows (its markup, style sheets,
which elements are drawn, which dialog is modal) is compared with the one before the action and
with every state audited so far: a state not seen before is audited with axe-core and named
after the step (``walk: Escape on the dialog open at load``, ``walk: click on button "Menu"``,
``walk: wheel to the end``). Its failures count in the verdict as those of the first screen do.
A page that changes only a colour on hover is not audited again.

Bounds: at most :data:`MAX_ACTIONS` actions and :data:`MAX_STATES` audited states per page, in
document order, so the same page always gets the same walk. When the states are used up, the
walk ends. The walk never starts a step that could not finish within the sample's time budget
(its actions' average time so far plus its longest audit, and a margin); a walk stopped so, with steps
left to do, names what it left undone in the sample's ``unaudited`` list, which fails the sample
(a walk cut short does not pass silently). What a click does beyond the document (a navigation,
a new window, a dialog box) is held by the tab (``tab.py``) as for any check.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.settings import EvaluatorSettings
from lm_eval_a11y.engine.tab import ProbeError

__all__ = [
    "HOVER_EVENTS",
    "MAX_ACTIONS",
    "MAX_HOVERS",
    "MAX_OPENS",
    "MAX_STATES",
    "MAX_WHEELS",
    "WalkReport",
    "visitor_walk",
]

T = TypeVar("T")

MAX_ACTIONS = 20
MAX_STATES = 6
MAX_HOVERS = 6
MAX_OPENS = 10
MAX_WHEELS = 8
HOVER_EVENTS = ("mouseover", "mouseenter", "pointerover", "pointerenter")

# Kept free at the end of the sample's budget, for the record and the departure.
_MARGIN_S = 0.25
# What the first action and the first audit are expected to take, until the walk has timed one.
_FIRST_ACTION_S = 0.3
_FIRST_AUDIT_S = 0.2
# Elements the walk may click or hover are looked for among at most this many listeners.
_LISTENER_LIMIT = 200


class WalkHost(Protocol):
    """What the walk needs of the sample's audit (``SampleAudit``)."""

    settings: EvaluatorSettings

    async def _crash_aware(self, session: Session, work: Awaitable[T]) -> T: ...

    async def _audit_state(self, session: Session, run: Any, label: str) -> None: ...


class WalkRun(Protocol):
    """What the walk reads and writes of the sample's run (``SampleRun``)."""

    began: float
    axe_ms: float
    unaudited: list[str]

    def budget_s(self, timeout_s: float) -> float: ...


@dataclass(frozen=True)
class WalkReport:
    """What one walk did: its actions and the labels of the states it audited, in order, and
    what it left undone for want of time (None: nothing)."""

    actions: tuple[str, ...]
    states: tuple[str, ...]
    stopped: str | None
    seconds: float


class _OutOfTime(Exception):
    def __init__(self, step: str) -> None:
        super().__init__(step)
        self.step = step


class _Bounded(Exception):
    """The walk used up its actions or its audited states."""


async def visitor_walk(host: WalkHost, session: Session, run: WalkRun) -> WalkReport:
    """Walk the page as a visitor does and audit each new state; see the module's docstring."""
    walk = _Walk(host, session, run)
    started = time.perf_counter()
    stopped: str | None = None
    try:
        await walk.run()
    except _OutOfTime as out:
        stopped = out.step
        run.unaudited.append(
            f"the visitor's walk stopped before {out.step}: the sample's time budget of"
            f" {host.settings.timeout_s:g} s (and the time of its reloads of the page) would have run out, so the"
            " states it would have reached were not audited"
        )
    except _Bounded:
        pass
    return WalkReport(tuple(walk.actions), tuple(walk.states), stopped, time.perf_counter() - started)


def _label(text: str) -> str:
    # State names are joined with commas in the record (observe.merge_axe).
    return " ".join(text.replace(",", " ").split())


def _what(item: dict[str, Any]) -> str:
    name = str(item.get("name") or "").strip()
    role = item.get("role") or item.get("tag") or "element"
    return f'{role} "{name}"' if name else f"{role} without a name (<{item.get('tag')}>)"


class _Walk:
    def __init__(self, host: WalkHost, session: Session, run: WalkRun) -> None:
        self._host = host
        self._session = session
        self._run = run
        self.actions: list[str] = []
        self.states: list[str] = []
        self._audited: set[str] = set()
        # What the page showed after the last action or audit (None: to be read again).
        self._last: str | None = None
        # An action is expected to take as long as the walk's actions took on average (until it
        # has timed one, a settle and a little more), and an audit as long as the walk's longest
        # (until it has made one, as long as this page's audits took on average).
        self._action_s = [_FIRST_ACTION_S]
        axe_runs = max(len(session.axe_runs), 1)
        self._longest_audit_s = max(run.axe_ms / 1000 / axe_runs, _FIRST_AUDIT_S)

    @property
    def _deadline(self) -> float:
        # The walk's own reloads extend the budget as the checks' do.
        return self._run.began + self._run.budget_s(self._host.settings.timeout_s) - _MARGIN_S

    async def _call(self, work: Awaitable[T]) -> T:
        return await self._host._crash_aware(self._session, work)

    async def _fingerprint(self) -> str:
        return str(await self._call(self._session.probe("walkFingerprint")))

    async def run(self) -> None:
        session = self._session
        if session.dirty:
            # A check acted on the page: the walk starts from the page as a visitor finds it.
            await self._call(session.reset())
        self._last = await self._fingerprint()
        self._audited.add(self._last)
        dialog = await self._call(session.probe("modalDialog"))
        if dialog is not None:
            await self._dismiss(dialog)
        lively = await self._call(session.may_change_itself())
        if lively:
            await self._act("a pointer move onto the page", "walk: pointer moved onto the page", self._pointer_in)
            await self._act("the wheel to the end", "walk: wheel to the end", self._wheel_to_end)
        await self._act("the first key press", "walk: first key (Tab)", self._first_key)
        await self._hovers(lively)
        await self._opens()

    async def _act(self, step: str, label: str, action: Callable[[], Awaitable[None]]) -> bool:
        """Do one action (``step`` says what it is, for a walk cut short) and audit the state it
        leads to under ``label`` if no audit has seen it; return whether the state changed."""
        if len(self.actions) >= MAX_ACTIONS:
            raise _Bounded()
        if time.monotonic() + sum(self._action_s) / len(self._action_s) + self._longest_audit_s > self._deadline:
            raise _OutOfTime(step)
        before = self._last if self._last is not None else await self._fingerprint()
        started = time.perf_counter()
        try:
            await self._call(action())
        except ProbeError:
            # The element went away or lost its size between being found and being acted on.
            self._last = None
            return False
        self._action_s.append(time.perf_counter() - started)
        self.actions.append(label)
        after = self._last = await self._fingerprint()
        if after == before or after in self._audited:
            return after != before
        if len(self.states) >= MAX_STATES:
            raise _Bounded()
        started = time.perf_counter()
        # axe-core and the pixel contrast check, as every state a check shows (sample.py).
        await self._host._audit_state(self._session, self._run, label)
        self._longest_audit_s = max(self._longest_audit_s, time.perf_counter() - started)
        self.states.append(label)
        # The audited state, and the one after the audit: the page may have changed a little
        # while axe ran (a clock).
        self._audited.add(after)
        self._last = await self._fingerprint()
        self._audited.add(self._last)
        return True

    async def _dismiss(self, dialog: dict[str, Any]) -> None:
        session = self._session
        ref = dialog.get("ref")
        if ref is not None:
            control = await self._call(session.element(int(ref)))
            what = _what({"role": control.role, "tag": control.tag, "name": control.name})
            label = _label(f"walk: click on {what} of the dialog open at load")

            async def click() -> None:
                await session.click(control)

            await self._act("closing the dialog open at load", label, click)
            if await self._call(session.probe("modalDialog")) is None:
                return

        async def escape() -> None:
            await session.press("Escape")

        await self._act("closing the dialog open at load", "walk: Escape on the dialog open at load", escape)

    async def _pointer_in(self) -> None:
        info = await self._session.probe("scrollRoom")
        page = self._session.page
        await page.mouse.move(1, 1)
        await page.mouse.move(info["width"] / 2, info["height"] / 2, steps=4)
        await self._session.settle()

    async def _wheel_to_end(self) -> None:
        session = self._session
        info = await session.probe("scrollRoom")
        page = session.page
        for turn in range(MAX_WHEELS):
            if turn > 0 and info["room"] <= 0:
                break
            await page.mouse.wheel(0, max(info["height"] * 0.8, 100))
            # Frames only between turns (what a turn starts to animate is not waited for, as a
            # reader scrolling on does not wait); the whole settle once at the end.
            await session.probe("settle", 0, 0)
            moved = await session.probe("scrollRoom")
            if turn > 0 and moved["y"] == info["y"] and moved["room"] == info["room"]:
                break
            info = moved
        await session.settle()

    async def _first_key(self) -> None:
        await self._session.press("Tab")

    async def _hovers(self, lively: bool) -> None:
        session = self._session
        listening: list[int] = []
        if lively:
            listeners = await self._call(session.event_listeners(HOVER_EVENTS, limit=_LISTENER_LIMIT))
            listening = [t.ref for t in listeners.targets if t.target == "element" and t.ref is not None]
        targets = await self._call(session.probe("hoverTargets", MAX_HOVERS, listening))
        for item in targets:
            element = await self._call(session.element(int(item["ref"])))
            label = _label(f"walk: hover on {_what(item)}")

            async def hover(target: Any = element) -> None:
                await session.hover(target)

            await self._act(f"resting the pointer on {_what(item)}", label, hover)

    async def _opens(self) -> None:
        session = self._session
        done: list[int] = []
        for _ in range(MAX_OPENS):
            found = await self._call(session.probe("openers", 1, done))
            if not found:
                return
            item = found[0]
            done.append(int(item["ref"]))
            element = await self._call(session.element(int(item["ref"])))
            label = _label(f"walk: click on {_what(item)}")

            async def click(target: Any = element) -> None:
                await session.click(target)

            await self._act(f"a click on {_what(item)}", label, click)
