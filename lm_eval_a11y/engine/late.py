"""The late audit of a sample: the first-rendered document watched until the late-change horizon
(on the wall clock, or run ahead on the page's own clock with ``page_clock``), each new state it
puts itself in audited, and audited again at the horizon."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import Any

from lm_eval_a11y.engine.clock import FIRST_SLICE_MS
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.steps import SampleRun, SampleSteps
from lm_eval_a11y.engine.tab import EventLog

__all__ = ["LateAudit"]

# The horizon never takes more than this share of the evaluation's time budget, so a short budget
# is not spent waiting (the observation records the horizon that applied).
_HORIZON_SHARE_OF_BUDGET = 0.25

# How many states a page that keeps changing itself before the horizon is audited in, beyond the
# first audit and the late one (_watch_states), at most; the share of the watch those audits may
# take (after each, the watch waits three times as long as it took before it looks again); and
# the rules those audits leave out.
_CHANGING_STATES = 12
_CHANGING_DUTY = 0.25

# A page is watched at least this long after its first audit, within this share of its budget.
_MIN_WATCH_S = 1.0
_WATCH_SHARE_OF_BUDGET = 0.5
_MID_CHANGE_RULES = ("color-contrast", "color-contrast-enhanced")

# How often the watch counts the nodes of closed shadow roots (no mutation our world sees shows
# one attached or changed: SessionBase.closed_roots_changed), on the wall clock and on the page's.
_CLOSED_POLL_S = 0.3
_CLOSED_POLL_PAGE_MS = 1000.0

# On the page's clock, a page whose announced changes keep leading to states already audited (a
# timer toggling a class) is looked at less and less often, down to once in this much of its time.
_LOOK_GAP_MAX_MS = 1000.0

# Markup that may change the page on the frame clock (the wall clock), which the page's virtual
# clock does not run ahead: animation frames, SVG (SMIL) animations, a marquee. (Running CSS
# animations and transitions are seen in the page itself.)
# Any finite animation still running, however long (animationTimeLeft's cap).
_FINITE_MS = 10**9
_FRAME_CLOCK = re.compile(r"requestAnimationFrame|<animate|<set[\s/>]|<marquee", re.IGNORECASE)


# How long the page's copy in the clock tab may take to leave (Tab.depart).
_COPY_DEPART_S = 2.0


def _last_coverage(session: Session, coverage_of: Session | None) -> Any:
    """The coverage of the last audit of ``session`` or, when it has none of its own (a copy that
    took an audit of ``coverage_of`` as its own), of ``coverage_of``."""
    if session.coverage:
        return session.coverage[-1]
    if coverage_of is not None and coverage_of.coverage:
        return coverage_of.coverage[-1]
    return None


class LateAudit(SampleSteps):
    """The late-change horizon of one sample (see :meth:`_late_audit`)."""

    def _wall_horizon_s(self) -> float:
        """The wall clock's horizon: ``late_horizon_ms``, never more than a quarter of the budget."""
        return min(self.settings.late_horizon_ms / 1000, self.settings.timeout_s * _HORIZON_SHARE_OF_BUDGET)

    async def _late_audit_untouched(self, session: Session, run: SampleRun, *, started_at: float) -> None:
        """The late audit of a document no check has acted on.

        A check expected only to read (from its last run on another page) may have acted on this
        one: auditing that document would audit the check's state (a menu it opened), not the
        page's own late changes, and the verdict would depend on which pages ran before. Such a
        document is replaced by a fresh one first, and the horizon counts from that navigation.
        """
        if session.dirty:
            started_at = time.perf_counter()
            run.first_audit_end = None
            await self._crash_aware(session, session.reset())
        await self._late_audit(session, run, started_at=started_at)

    async def _late_audit_wall(self, session: Session, run: SampleRun, *, started_at: float) -> None:
        """Audit the first-rendered document again once the late-change horizon has passed since
        the navigation to it, if it changed meanwhile or could have changed unseen.

        A page can add failures after the first audit (timers, animation frames, idle callbacks,
        a MutationObserver reacting to its own change, a style sheet edited through the CSSOM,
        content added on scroll: the page was scrolled through after the first audit). A second
        axe run at the horizon sees them. It runs only when the DOM changed, an animation or
        transition runs, a style sheet changed, or the page has frames or shadow trees (their
        changes are not observed); otherwise the first audit stands, and the page pays only the
        wait. The wait overlaps with the checks that only read the page, which run before it.
        Markup that cannot change the page by itself (no script, no animation) is not waited for.

        With ``page_clock`` on, :meth:`_late_audit` runs the page's own clock ahead instead.
        """
        if not await self._crash_aware(session, session.may_change_itself()):
            run.late_audit = "static"
            return
        # The horizon counts the page's own life: from its document's time origin (the start of
        # the navigation to it), which a slow load puts later than when the evaluation began; a
        # timer the page set for 1.5 s then still falls inside a 2 s horizon.
        lived_ms = await self._crash_aware(session, session._evaluate("performance.now()"))
        started_at = max(started_at, time.perf_counter() - float(lived_ms) / 1000)
        horizon_s = self._wall_horizon_s()
        # The horizon counts from the navigation to the sample (its scripts start just after). The
        # page is watched for at least a while after its first audit, however late a loaded
        # machine finished that audit: past the horizon, a page audited late would otherwise not
        # be watched at all. Never past half the sample's budget, which the rest of it needs.
        watched_until = min(
            (run.first_audit_end or started_at) + min(_MIN_WATCH_S, horizon_s),
            started_at + self.settings.timeout_s * _WATCH_SHARE_OF_BUDGET,
        )
        run.clock = "wall"
        await self._watch_states(session, run, deadline=max(started_at + horizon_s, watched_until))
        signals = await self._crash_aware(session, session.probe("lateSignals"))
        run.horizon_ms = (time.perf_counter() - started_at) * 1000
        await self._audit_at_horizon(session, run, signals)

    async def _late_audit(self, session: Session, run: SampleRun, *, started_at: float) -> None:
        """Audit the first-rendered document again at the late-change horizon, on the page's own
        clock, if it changed meanwhile or could have changed unseen.

        A page can add failures after the first audit (timers, animation frames, idle callbacks,
        a MutationObserver reacting to its own change, a style sheet edited through the CSSOM,
        content added on scroll: the page was scrolled through after the first audit). The page's
        clock (clock.py) is run ahead to ``late_horizon_ms`` of its life since the navigation,
        as fast as its tasks run, looking at each state it puts itself in (_run_ahead). Before
        that, a page that may change on the frame clock (animation frames, a finite CSS
        animation running) runs on the wall clock until :data:`_MIN_WATCH_S` after its first
        audit, watched as before (_watch_states). A second axe run then sees what
        the page added. It runs only when the DOM changed, an animation or transition runs, a
        style sheet changed, or the page has frames or shadow trees (their changes are not
        observed); otherwise the first audit stands. Markup that cannot change the page by itself
        (no script, no animation) is not run ahead (``static``). See docs/trust.md.
        """
        if not self.settings.page_clock:
            await self._late_audit_wall(session, run, started_at=started_at)
            return
        if not await self._crash_aware(session, session.may_change_itself()):
            run.late_audit = "static"
            return
        animating = await self._crash_aware(session, session.probe("animationTimeLeft", _FINITE_MS))
        if _FRAME_CLOCK.search(session.html) is not None or animating:
            # Animation frames and CSS animations follow the wall clock, and on virtual time a
            # page gets far fewer frames: such a page first runs on the wall clock until a while
            # after its first audit, watched as it changes.
            frames_from = time.perf_counter()
            watched_until = min(
                (run.first_audit_end or started_at) + _MIN_WATCH_S,
                started_at + self.settings.timeout_s * _WATCH_SHARE_OF_BUDGET,
            )
            await self._watch_states(session, run, deadline=watched_until)
            run.frames_ms = (time.perf_counter() - frames_from) * 1000
        run.clock = "virtual"
        if not await self._run_copy_ahead(session, run):
            # The copy went another way than the page a visitor meets (a script of it was stopped,
            # time standing still inside it): the page itself is watched on the wall clock, to its
            # horizon only, so what it shows later was not audited (a page could otherwise wait
            # on its clock for a moment to keep its late failures out of the run ahead).
            horizon_s = self._wall_horizon_s()
            run.unaudited.append(
                "a script of the page waits in a loop for its clock to move, which a run ahead on the page's"
                f" own clock cannot follow; the page was watched on the wall clock for {horizon_s:g} s only,"
                " so what it shows later was not audited"
            )
            await self._late_audit_wall(session, run, started_at=started_at)

    async def _run_copy_ahead(self, session: Session, run: SampleRun) -> bool:
        """Load a copy of the sample in the slot's clock tab (Tab.clock_tab: a page that lives on
        its own clock from the navigation on, in a browser context of its own), run its clock
        ahead to the horizon there, auditing each new state on the way, and audit it at the
        horizon if it changed since the sample's last audit. The sample's own page stays on the
        wall clock for the checks, the screens and the walk.

        The copy takes the sample's last audit as its own when it is in the very state that
        audit saw whole (the probe's adoptBaseline), so that only what the page does on its own
        after that is audited again. Its axe runs join the sample's, as the phone's do.

        Time stands still inside a task on the page's clock: a script that waits in a loop for the
        clock to move is stopped (clock.py), and from then on the copy is no longer the page a
        visitor meets. The copy is then left at once, what it showed before is kept, and False
        is returned: the caller watches the sample's own page on the wall clock instead."""
        tab = session._tab
        baseline = await self._crash_aware(session, session.probe("auditBaseline"))
        clock_tab = await self._crash_aware(session, tab.clock_tab())
        clock_tab.events = tab.events
        copy = Session(clock_tab, session.html)
        changing_before = any(label == "changing" for label, _ in session.axe_runs)
        loaded = time.perf_counter()
        clock = clock_tab.clock
        stopped = clock.stopped_scripts if clock is not None else 0

        def diverged() -> bool:
            return clock is not None and clock.stopped_scripts > stopped

        try:
            # A load of the evaluator's choosing, timed as the sample's reloads are (SampleRun.budget_s).
            try:
                await self._crash_aware(copy, copy.open())
            finally:
                copy.reloads_s += time.perf_counter() - loaded
            if clock_tab.cut_short is not None:
                run.unaudited.append(f"the page's copy on its own clock was cut short: {clock_tab.cut_short}")
                return True
            if diverged():
                return False
            await self._crash_aware(copy, copy.probe("adoptBaseline", baseline))
            # Scrolled as a reader would, as the sample's page was.
            await self._crash_aware(copy, copy.probe("scrollThrough"))
            wall_limit = self.settings.timeout_s * _HORIZON_SHARE_OF_BUDGET
            horizon_ms = float(self.settings.page_clock_horizon_ms)
            await self._run_ahead(copy, run, horizon_ms, wall_limit, coverage_of=session, stop=diverged)
            if diverged():
                return False
            # Workers' timers and animation frames keep the wall clock: the copy, paced to the wall
            # clock from here, is watched until it has lived the wall clock's horizon too.
            await self._watch_states(copy, run, deadline=loaded + self._wall_horizon_s(), coverage_of=session)
            if diverged():
                return False
            signals = await self._crash_aware(copy, copy.probe("lateSignals"))
            run.horizon_ms = clock_tab.page_time_ms
            if clock_tab.page_time_ms < horizon_ms:
                # A page whose timers work hard (or a machine too busy) held the run ahead short of
                # the horizon: what the page shows later was never looked at, so the sample cannot
                # pass on it.
                run.unaudited.append(
                    f"the page's clock reached {clock_tab.page_time_ms / 1000:.1f} s of its {horizon_ms / 1000:g} s"
                    f" horizon in the {wall_limit:g} s of wall time its run ahead may take (a quarter of the"
                    " sample's budget), so what the page shows later was not audited"
                )
            await self._audit_at_horizon(copy, run, signals, coverage_of=session, changing_before=changing_before)
            return True
        finally:
            session.take_audits_of(copy)
            clock_tab.events = EventLog()
            try:
                await asyncio.wait_for(clock_tab.depart(), _COPY_DEPART_S)
            except Exception:  # noqa: BLE001 - a copy that will not leave takes its tab along
                tab.drop_clock_tab()

    async def _audit_at_horizon(
        self,
        session: Session,
        run: SampleRun,
        signals: dict[str, Any],
        *,
        coverage_of: Session | None = None,
        changing_before: bool = False,
    ) -> None:
        """At the horizon (either clock): audit the page again if it changed since its last audit
        (``signals``: the probe's lateSignals) or could have changed unseen. ``coverage_of``: the
        session whose audits the page's copy on its clock took as its own (_run_copy_ahead), and
        ``changing_before`` whether one of them saw a changing state."""
        coverage = _last_coverage(session, coverage_of)
        unseen = coverage is not None and (coverage.frames_audited > 0 or coverage.closed_shadow_roots > 0)
        # A state the watch audited while the page changed left colour contrast out
        # (_MID_CHANGE_RULES): what the page settled into is audited whole, or text it faded to a
        # faint colour after its first audit would never be judged.
        mid_change = changing_before or any(label == "changing" for label, _ in session.axe_runs)
        if not (
            mid_change
            or signals["mutated"]
            or signals["animations"]
            or signals["styles_changed"]
            or signals.get("shown_changed")
            or signals["shadow_roots"]
            or unseen
            # A closed root attached after the first audit: no signal above shows it.
            or await self._crash_aware(session, session.holds_closed_roots())
        ):
            run.late_audit = "unchanged"
            return
        # What the page changed late may still be fading or sliding in (posts loaded on scroll):
        # audited mid-fade, its text would fail colour contrast in some runs and not in others.
        await self._audit_unchecked(session, run, "late", settle=True)
        run.late_audit = "re-audited"

    async def _run_ahead(
        self,
        session: Session,
        run: SampleRun,
        horizon_ms: float,
        wall_limit_s: float,
        *,
        coverage_of: Session | None = None,
        stop: Callable[[], bool] = lambda: False,
    ) -> None:
        """Run the page's clock ahead until it has lived ``horizon_ms`` since the navigation (and
        at least :data:`_MIN_WATCH_S` more), auditing each new state it puts itself in on the way,
        within ``wall_limit_s``.

        The probe announces the page's next change (armChange); the clock stops after the slice
        it came in (clock.py) and the state the page is in is settled and, when no audit has seen
        it whole, audited (findings with the state ``changing``). As in the real-time watch
        (_watch_states), these audits may take :data:`_CHANGING_DUTY` of the page's time (after
        each, the page runs three times as long as the audit took before it is looked at again)
        and at most :data:`_CHANGING_STATES` of them run; they leave out colour contrast.
        """
        tab = session._tab
        # However late a loaded machine got here, the page is watched for a while of its time.
        horizon_ms = max(horizon_ms, tab.page_time_ms + _MIN_WATCH_S * 1000)
        clock = await self._crash_aware(session, tab.page_clock())
        started = time.perf_counter()
        rests_until = 0.0
        closed = await self._closed_baseline(session, coverage_of=coverage_of)
        # Whether the page may be in a state not looked at without having announced it: only at
        # the start. Otherwise it is looked at only after announcing a change (the announcement
        # stays armed through a rest too); until then the state is the one last looked at (but
        # for closed shadow roots, counted), and the slices keep their length.
        unlooked = True
        slice_ms = FIRST_SLICE_MS
        # A page that keeps returning to states already audited is looked at less and less
        # often: after a change it announced led to no new state, the next look waits twice as
        # long as the last such wait (from FIRST_SLICE_MS up to _LOOK_GAP_MAX_MS); a new state
        # resets it. Each look costs wall time, and a run ahead has little of it.
        look_gap_ms = FIRST_SLICE_MS
        while (left := horizon_ms - tab.page_time_ms) > 0 and not stop():
            wall_left = wall_limit_s - (time.perf_counter() - started)
            if wall_left <= 0:
                break
            changed: asyncio.Event | None = None
            if run.states_audited < _CHANGING_STATES and tab.page_time_ms >= rests_until:
                looked = time.perf_counter()
                announced = not unlooked and tab.page_changed.is_set()
                if unlooked or announced:
                    position, session.position = session.position, -1
                    state = await self._crash_aware(
                        session, session.next_state(0, look=True, audit="changing", disable=_MID_CHANGE_RULES)
                    )
                    session.position = position
                    state, closed = await self._closed_roots_look(session, state, closed)
                    tab.page_changed.clear()
                    await self._crash_aware(session, session.probe("armChange"))
                    slice_ms = FIRST_SLICE_MS
                else:
                    state, closed = await self._closed_roots_look(session, "unchanged", closed)
                if state == "audited":
                    run.axe_ms += session.inline_audit_ms
                elif state == "new":
                    await self._audit_unchecked(session, run, "changing", disable=_MID_CHANGE_RULES)
                if state in ("audited", "new"):
                    run.states_audited += 1
                    took_ms = (time.perf_counter() - looked) * 1000
                    rests_until = tab.page_time_ms + took_ms * (1 - _CHANGING_DUTY) / _CHANGING_DUTY
                    look_gap_ms = FIRST_SLICE_MS
                elif announced:
                    rests_until = tab.page_time_ms + look_gap_ms
                    look_gap_ms = min(look_gap_ms * 2, _LOOK_GAP_MAX_MS)
                changed = tab.page_changed
                left = horizon_ms - tab.page_time_ms
                if left <= 0:
                    break
                if session.may_have_closed_roots:
                    left = min(left, _CLOSED_POLL_PAGE_MS)
            elif run.states_audited < _CHANGING_STATES:
                left = min(left, rests_until - tab.page_time_ms)
            await self._crash_aware(
                session, clock.advance(left, changed=changed, wall_limit_s=wall_left, first_slice_ms=slice_ms)
            )
            unlooked = False
            slice_ms = clock.next_slice_ms

    async def _closed_baseline(self, session: Session, *, coverage_of: Session | None = None) -> int | None:
        """The count of nodes in closed shadow roots the watch compares with: None (none) when
        the last audit opened no closed root, so that one attached since is seen at once."""
        coverage = _last_coverage(session, coverage_of)
        if coverage is None or coverage.closed_shadow_roots == 0:
            return None
        return (await self._crash_aware(session, session.closed_roots_changed(None)))[1]

    async def _closed_roots_look(self, session: Session, state: str, closed: int | None) -> tuple[str, int | None]:
        """The state the watch goes on with, and the count of closed roots' nodes to compare the
        next look with. A page our world saw unchanged whose closed roots changed in number is in
        a new state (audited by run_axe, which opens them); after an audit the count is taken
        again."""
        if state == "unchanged":
            changed, now = await self._crash_aware(session, session.closed_roots_changed(closed))
            return ("new" if changed else state), now
        if state in ("audited", "new", "seen"):
            return state, (await self._crash_aware(session, session.closed_roots_changed(closed)))[1]
        return state, closed

    async def _watch_states(
        self, session: Session, run: SampleRun, *, deadline: float, coverage_of: Session | None = None
    ) -> None:
        """Wait until ``deadline``, auditing each new state the page puts itself in meanwhile.

        Waiting, the evaluation lets another one work (admission.py). When the page changes its
        document or its style sheets, it is settled and, in a state no audit has seen whole,
        audited (content a timer shows and hides again is otherwise seen only if it happens to be
        there at one of the two audits). These audits may take :data:`_CHANGING_DUTY` of the
        watch: after each, the watch rests three times as long as it took, then looks at the
        state the page is in. A page that changes all the time (a clock, a ticker) costs that
        share, never a fixed number of audits a page could spend on changes of no consequence
        before it shows a failure. :data:`_CHANGING_STATES` bounds the count. They leave out
        colour contrast, which a page caught mid-change would fail in some runs and not in others.
        """
        # The page may have changed since the last audit, before the watch began: look first.
        look = True
        closed = await self._closed_baseline(session, coverage_of=coverage_of)
        poll_s = _CLOSED_POLL_S
        while (remaining := deadline - time.perf_counter()) > 0:
            if run.states_audited >= _CHANGING_STATES:
                async with self._admission.idle():
                    await asyncio.sleep(remaining)
                return
            if (rest := run.watch_rests_until - time.perf_counter()) > 0:
                async with self._admission.idle():
                    await asyncio.sleep(min(rest, remaining))
                look = True
                continue
            position, session.position = session.position, -1
            within = min(remaining, poll_s) if session.may_have_closed_roots else remaining
            async with self._admission.idle():
                state = await self._crash_aware(
                    session,
                    session.next_state(int(within * 1000), look=look, audit="changing", disable=_MID_CHANGE_RULES),
                )
            session.position = position
            look = False
            counted = time.perf_counter()
            state, closed = await self._closed_roots_look(session, state, closed)
            # On a large document a count takes a while: it may take a quarter of the watch.
            poll_s = max(_CLOSED_POLL_S, (time.perf_counter() - counted) * (1 - _CHANGING_DUTY) / _CHANGING_DUTY)
            if state == "audited":
                took = session.inline_audit_ms / 1000
                run.axe_ms += session.inline_audit_ms
            elif state == "new":
                started = time.perf_counter()
                await self._audit_unchecked(session, run, "changing", disable=_MID_CHANGE_RULES)
                took = time.perf_counter() - started
            else:
                continue
            run.states_audited += 1
            run.watch_rests_until = time.perf_counter() + took * (1 - _CHANGING_DUTY) / _CHANGING_DUTY
