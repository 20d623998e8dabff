"""The core of a check's :class:`~lm_eval_a11y.engine.session.Session`: one sample's page, the
probe calls that read it, its axe runs, and waiting for it to settle.

The helpers built on it (element queries, user actions, keyboard walks, the focus ring) each live
in a module of their own and reach the page only through what this class offers.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from playwright.async_api import Page

from lm_eval_a11y.engine.audit import (
    AuditPart,
    audit_document,
    has_closed_roots,
    may_change_itself,
    may_have_closed_shadow_roots,
    rule_errors,
)
from lm_eval_a11y.engine.clock import INPUT_GAP_MS
from lm_eval_a11y.engine.elements import Element, element_from_probe
from lm_eval_a11y.engine.hidden_nodes import nodes_out_of_sight
from lm_eval_a11y.engine.tab import Tab

__all__ = ["SETTLE_CAP_MS", "ActionWatch", "SessionBase"]

# How long after an action the session waits for the page's animations to end, and how long
# Session.eventually asks a condition again: long enough for the fades, slides and delayed
# closes pages use (UI libraries animate for 150-600 ms), short enough that a page that never
# settles costs one second per action. Why this number: docs/settling.md.
SETTLE_CAP_MS = 1000

# Between two readings of Session.eventually: the page's frames and timers run meanwhile.
_POLL_MS = 50

_T = TypeVar("_T")


class ActionWatch(Protocol):
    """What is told of every action a check takes and every axe run (``engine/states.py``)."""

    async def acted(
        self, session: SessionBase, action: str, target: Element | int | None, fingerprint: str | None = None
    ) -> None: ...

    async def audited(self, session: SessionBase) -> None: ...


class SessionBase:
    """One sample on a :class:`Tab`: its page, probe calls, axe runs and settling."""

    def __init__(self, tab: Tab, html: str) -> None:
        self._tab = tab
        self._html = html
        self._settings = tab.settings
        self._dirty = False
        self._epoch = 0
        # The page kept starting animations through a whole settle: see _settled.
        self.restless = False
        # Settles the safety bound stopped while an animation was still running (a machine
        # starved for seconds): reads after them may precede the page's end-of-animation handlers.
        self.settle_stalls = 0
        self.axe_runs: list[tuple[str, dict[str, Any]]] = []
        # The declared index of the check running now (-1 before the checks): axe runs are
        # merged in this order, whatever order the checks ran in.
        self.position = -1
        self.axe_positions: list[int] = []
        # What each axe run reached and could not reach, in the order of axe_runs.
        self.coverage: list[AuditPart] = []
        # How long the last audit made by next_state took in the page.
        self.inline_audit_ms = 0.0
        self._may_have_closed_roots = may_have_closed_shadow_roots(html)
        # Whether the first-rendered document can change by itself: see may_change_itself.
        self._lively: bool | None = True if may_change_itself(html) else None
        # Told of each action and axe run, to audit the states actions show (engine/states.py).
        self.state_watch: ActionWatch | None = None
        # The element the next key press acts on, as last seen focused (an Element, or the
        # reference a keyboard walk saw), and the last action, for the labels of audited states.
        self._acted_on: Element | int | None = None
        self._last_action: tuple[str, Element | int | None] | None = None
        # Seconds spent in reset(): the evaluator's own reloads of the page, which extend the
        # sample's time budget (SampleRun.budget_s).
        self.reloads_s = 0.0

    def take_audits_of(self, other: SessionBase) -> None:
        """Make the audits of ``other``, a session on another tab of the slot loaded with the same
        page (the phone's, the copy on the page's clock), this sample's: its axe runs, what they
        could not reach, and the time of its loads (SampleRun.budget_s)."""
        self.reloads_s += other.reloads_s
        self.axe_runs.extend(other.axe_runs)
        self.axe_positions.extend(other.axe_positions)
        self.coverage.extend(other.coverage)

    @property
    def page(self) -> Page:
        """The Playwright page itself, for what the helpers do not cover.

        Anything can be done with it, so taking it counts as acting on the page: the next check
        gets a fresh page, and the next document gets the mouse pointer moved off it."""
        self._touch()
        self._tab.pointer_on_page = True
        return self._tab.page

    @property
    def crashed(self) -> asyncio.Event:
        return self._tab.crashed

    @property
    def dirty(self) -> bool:
        """True once a check interacted with the page; the next check then gets a fresh one."""
        return self._dirty

    async def open(self) -> None:
        self._dirty = False
        # The probe world is new: it knows no epoch yet and syncs with the next call.
        await self._tab.load(self._html, self._settings.settle_ms)

    async def _evaluate(self, expression: str, *, await_promise: bool = True) -> Any:
        return await self._tab.evaluate(expression, await_promise=await_promise)

    async def probe(self, function: str, *args: Any) -> Any:
        """Call one probe function in the isolated world with JSON arguments."""
        arguments = ", ".join(json.dumps(a) for a in args)
        # sync() lets the probe drop its cached accessibility tree when we acted since last time.
        return await self._evaluate(
            f"globalThis.__a11yProbe.sync({self._epoch}), globalThis.__a11yProbe.{function}({arguments})"
        )

    async def run_axe(self, state: str, *, disable: tuple[str, ...] = (), only: tuple[str, ...] = ()) -> dict[str, Any]:
        """Audit the page as it is now: its document, frames and closed shadow roots (see
        :mod:`lm_eval_a11y.engine.audit`); what could not be audited is kept in :attr:`coverage`.
        ``disable`` names axe rules left out of this run; ``only``, when given, the only rules run."""
        part = await audit_document(
            self._tab, self._axe_options(disable, only), look_for_closed_roots=self._may_have_closed_roots
        )
        return await self._record_axe(state, part)

    def _axe_options(self, disable: tuple[str, ...], only: tuple[str, ...] = ()) -> dict[str, Any]:
        options = self._settings.axe_options
        if only:
            options = {**options, "runOnly": {"type": "rule", "values": list(only)}}
        if disable:
            rules = {**options.get("rules", {}), **{rule: {"enabled": False} for rule in disable}}
            options = {**options, "rules": rules}
        return options

    async def _record_axe(self, state: str, part: AuditPart) -> dict[str, Any]:
        result = part.result
        # An axe rule that threw measured nothing: the sample cannot pass on it.
        part.unaudited.extend(rule_errors(result))
        heap = result.pop("heap", None)
        self.axe_runs.append((state, result))
        self.axe_positions.append(self.position)
        self.coverage.append(part)
        await self._tab.trim_memory(heap)
        if self.state_watch is not None:
            await self.state_watch.audited(self)
        return result

    async def _acted(self, action: str, target: Element | int | None, fingerprint: str | None = None) -> None:
        """An action of a check has ended (the page settled): the state watch may audit what it
        shows now. ``target`` is what the action was done to (for the state's label)."""
        self._last_action = (action, target)
        if self.state_watch is not None:
            await self.state_watch.acted(self, action, target, fingerprint)

    async def _looked_again(self) -> None:
        """The page was given time after the last action (a wait, a condition asked again): what
        it shows now may have changed since, and counts as a state of that action."""
        if self.state_watch is not None and self._last_action is not None:
            action, target = self._last_action
            await self.state_watch.acted(self, f"{action} (later)", target)

    @property
    def html(self) -> str:
        return self._html

    async def reset(self) -> None:
        """Return to the page as first rendered: a fresh document and origin, the same HTML."""
        started = time.perf_counter()
        try:
            await self.open()
        finally:
            self.reloads_s += time.perf_counter() - started

    async def axe(self, state: str) -> int:
        """Run axe in the state the page is in now; its findings join the sample's axe result.

        Returns the number of WCAG failure nodes found in this state, for a check that wants it.
        """
        label = state.strip() or "state"
        result = await self.run_axe(label)
        return sum(v["node_count"] for v in result["violations"] if "best-practice" not in v["tags"])

    async def settle(self, ms: int | None = None) -> None:
        """Let the page react: at least two animation frames and at least ``ms`` milliseconds of
        timers (the setting's ``settle_ms`` by default), side by side, then one more task turn;
        then, while CSS transitions, CSS animations or Web Animations that end within
        :data:`SETTLE_CAP_MS` by their own timing are running, wait for them to end and react
        again, however long a loaded machine takes (docs/settling.md).

        Infinite animations and ones that end later than the cap are not waited for. Every
        action (press, click, hover, typing, focus) settles this way before it returns."""
        await self._settled("settle", ms)

    async def _settled(self, function: str, ms: int | None = None, cap_ms: int = SETTLE_CAP_MS, *first: Any) -> Any:
        """Call a probe function (with ``first`` arguments before the timings) that settles as
        :meth:`settle` describes, then returns what it read.

        A page that still runs animations after waiting its whole cap keeps starting new ones (a
        ticker, an animation restarted on every frame) and never settles: from then on this
        sample's actions stop waiting for animations, so that it costs one cap and not one per
        action (which would spend the evaluation's time budget)."""
        delay = self._settings.settle_ms if ms is None else ms
        cap = 0 if self.restless else max(int(cap_ms), 0)
        self._epoch += 1
        reply = await self.probe(function, *first, max(int(delay), 0), cap)
        self._note_settle(reply)
        return reply["value"]

    def _note_settle(self, reply: dict[str, Any]) -> None:
        """What a settle in the probe said of the page: restless from now on, or stalled."""
        if reply["restless"]:
            self.restless = True
        if reply.get("stalled"):
            self.settle_stalls += 1

    async def next_state(
        self, within_ms: int, *, look: bool = False, audit: str | None = None, disable: tuple[str, ...] = ()
    ) -> str:
        """Wait up to ``within_ms`` for the page to change its document or its style sheets; after
        a change, let it settle as :meth:`settle` does. ``look``: a page already in a state no
        audit has seen whole counts as changed, without waiting.

        With ``audit`` (a state name), a new state of a page without frames is audited in the
        same call (without the rules ``disable`` names) and recorded as :meth:`run_axe` records
        its runs: all in one round trip, so that a page that shows a state only briefly has not
        left it before the audit. A page that holds closed shadow roots by then (searched for
        after the audit, where the markup can make them) is left to :meth:`run_axe`, which opens
        them.

        Returns ``"unchanged"``, ``"seen"`` (an axe run has seen the state it settled in whole),
        ``"audited"`` (audited in this call) or ``"new"`` (a state no audit has seen, not audited
        here: a page with frames or closed shadow roots, audited by :meth:`run_axe`)."""
        cap = 0 if self.restless else SETTLE_CAP_MS
        inline = audit is not None and self._tab.frame_count() == 0
        reply = await self.probe(
            "nextChange",
            max(int(within_ms), 0),
            max(int(self._settings.settle_ms), 0),
            cap,
            look,
            self._axe_options(disable) if inline else None,
        )
        if not reply["changed"]:
            return "unchanged"
        self._epoch += 1
        self._note_settle(reply)
        if reply["audited"]:
            return "seen"
        report = reply.get("report")
        # A frame the page added meanwhile, or a closed shadow root, was not audited: then the
        # caller audits it all.
        if report is None or audit is None or self._tab.frame_count() != 0:
            return "new"
        if await self.holds_closed_roots():
            return "new"
        self.inline_audit_ms = float(reply.get("audit_ms", 0.0))
        await self._record_axe(audit, AuditPart(result=report))
        return "audited"

    async def holds_closed_roots(self) -> bool:
        """Whether the page holds a closed shadow root now (never without markup that can make
        one). No mutation shows a root attached to an element already there, so the late audit
        asks this before it lets the first audit stand."""
        return self._may_have_closed_roots and await has_closed_roots(self._tab)

    async def may_change_itself(self) -> bool:
        """Whether the page can change without a visitor acting on it (the late audit waits for it,
        the visitor's walk moves the pointer and the wheel over it): its markup shows a way
        (audit.may_change_itself), or, asked once, its parsed document holds one the markup's text
        hides (the probe's mayChangeItself: a CSS animation written with escapes, an event-handler
        attribute). Asked first on the document as first rendered (engine/sample.py); a page whose
        markup can make a closed shadow root, whose inside our world cannot read, counts as one
        that can."""
        if self._lively is None:
            self._lively = self._may_have_closed_roots or bool(await self.probe("mayChangeItself"))
        return self._lively

    @property
    def may_have_closed_roots(self) -> bool:
        """Whether the page's markup could make a closed shadow root (audit.py)."""
        return self._may_have_closed_roots

    async def closed_roots_changed(self, baseline: int | None) -> tuple[bool, int | None]:
        """Whether the nodes of the page's closed shadow roots changed in number since
        ``baseline`` (None: since an audit that found none), and the count now; never for a page
        whose markup cannot make one. A closed root attached to an element already in the page,
        or changed inside, is no mutation our world sees; the watch of the page's own changes
        asks this as it waits (late.py)."""
        if not self._may_have_closed_roots or self._tab.frame_count() != 0:
            return False, baseline
        now = await nodes_out_of_sight(self._tab)
        return now != (0 if baseline is None else baseline), now

    async def eventually(self, condition: Callable[[], Awaitable[_T]], within_ms: int = SETTLE_CAP_MS) -> _T:
        """Ask ``condition`` until its answer is truthy or ``within_ms`` have passed; return the
        last answer.

        For what a page does on a timer after an action has settled (a menu that closes 300 ms
        after Escape, a message shown after a debounce): :meth:`settle` cannot see a page's
        timers, so a check that expects a change asks again, as a person would look again. The
        condition reads the page afresh each time (``find``, ``refresh``, ``active``). A page
        that changes at once pays one reading; only a page that never changes waits the whole
        ``within_ms``.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(within_ms, 0) / 1000
        while True:
            answer = await condition()
            left_ms = (deadline - loop.time()) * 1000
            if answer or left_ms <= 0:
                await self._looked_again()
                return answer
            await self._settled("settle", min(_POLL_MS, int(left_ms)), int(left_ms))

    async def wait(self, ms: int) -> None:
        self._epoch += 1
        await asyncio.sleep(ms / 1000)
        await self._looked_again()

    async def _person_paced(self) -> None:
        """Before a key press of a keyboard walk, with ``paced_keys`` on: let
        :data:`~lm_eval_a11y.engine.clock.INPUT_GAP_MS` of the page's own time pass since the last
        one, as between a person's presses, without the wall time (the page's clock runs ahead,
        see clock.py; from the first press on, the page is on virtual time until it is replaced)."""
        if not self._settings.paced_keys:
            return
        clock = await self._tab.page_clock()
        await clock.pause_input(INPUT_GAP_MS)

    def _touch(self) -> None:
        """Mark that we act on the page: later checks get a fresh page, cached reads are stale."""
        self._dirty = True
        self._epoch += 1

    async def _describe(self, ref: int) -> Element:
        return element_from_probe(await self.probe("describe", ref))

    async def active(self) -> Element | None:
        """The focused element (through shadow roots), or None when focus is on the body."""
        data = await self.probe("active")
        found = None if data is None else element_from_probe(data)
        self._acted_on = found
        return found

    async def is_active(self, element: Element) -> bool:
        current = await self.active()
        return current is not None and current.ref == element.ref
