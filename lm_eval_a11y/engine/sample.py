"""One sample's audit, step by step: open the page, audit it with axe-core, measure contrast,
run the case's checks (readers first), watch the page change itself until the late-change horizon
and audit it again, all within the sample's time budget; and why a sample that did not finish
failed (a timeout, a crash, a memory kill).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Check, Outcome
from lm_eval_a11y.engine import walk
from lm_eval_a11y.engine.audit import may_change_itself
from lm_eval_a11y.engine.clock import INPUT_GAP_MS
from lm_eval_a11y.engine.conditions import audit_conditions
from lm_eval_a11y.engine.contrast import audit_contrast
from lm_eval_a11y.engine.early_stop import DEFERRED_RULES, decided_failure, steps_left
from lm_eval_a11y.engine.pool import SlotScheduling
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.states import STATE_AUDIT_SHARE, StateAudits, label_contrast, merge_contrast
from lm_eval_a11y.engine.tab import EventLog, ProbeError, Tab
from lm_eval_a11y.observation import CheckResult, ContrastAudit

__all__ = ["PageCrashedError", "SampleAudit", "SampleRun", "consume"]

T = TypeVar("T")

_CRASHED = "the page crashed the renderer (out of memory or a renderer fault)"

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

# Markup that may change the page on the frame clock (the wall clock), which the page's virtual
# clock does not run ahead: animation frames, SVG (SMIL) animations, a marquee. (Running CSS
# animations and transitions are seen in the page itself.)
# Any finite animation still running, however long (animationTimeLeft's cap).
_FINITE_MS = 10**9
_FRAME_CLOCK = re.compile(r"requestAnimationFrame|<animate|<set[\s/>]|<marquee", re.IGNORECASE)

# Below this size the time of a case's checks hardly depends on the page, so it is remembered.
_SIZE_FREE_CHARS = 50_000


@dataclass
class SampleRun:
    """Mutable scratch space of one evaluation; frozen into an Observation at the end."""

    events: EventLog = field(default_factory=EventLog)
    checks: list[CheckResult] = field(default_factory=list)
    render_ms: float = 0.0
    axe_ms: float = 0.0
    checks_ms: float = 0.0
    session: Session | None = None
    screenshot: str | None = None
    # The late-change horizon that applied (see AuditCoverage) and what the late audit did.
    horizon_ms: float | None = None
    # The clock the late audit ran on ("virtual": the page's own, run ahead; "none": no late audit
    # ran) and the wall time of its real-time window for the frame clock.
    clock: str = "none"
    frames_ms: float = 0.0
    input_gap_ms: float = 0.0
    late_audit: str = "none"
    states_audited: int = 0
    # Until when the watch rests after its last audit of a changing state (time.perf_counter).
    watch_rests_until: float = 0.0
    # When the first audit of the first-rendered document ended (None: that document was replaced).
    first_audit_end: float | None = None
    # When the evaluation began (time.monotonic), to find the memory kill that ended it.
    began: float = 0.0
    contrast: ContrastAudit | None = None
    contrast_ms: float = 0.0
    # Content that could not be audited for a reason of the whole document (not of one axe run).
    unaudited: list[str] = field(default_factory=list)
    # The steps not run because the page had already failed (stop_at_first_failure, early_stop.py).
    skipped: list[str] = field(default_factory=list)
    # The states the checks' actions showed, audited by _audit_state (engine/states.py).
    state_audits: StateAudits | None = None


class PageCrashedError(Exception):
    pass


def consume(task: asyncio.Future[Any]) -> None:
    """Retrieve a finished task's exception so abandoned work never logs 'never retrieved'."""
    if not task.cancelled():
        task.exception()


class SampleAudit(SlotScheduling):
    """The steps of one sample's audit on a tab, and the reasons a sample failed."""

    async def _guarded(
        self, case: Case | None, html: str, tab: Tab, run: SampleRun, name: str
    ) -> tuple[str, str | None]:
        work = asyncio.ensure_future(self._evaluate_in(case, html, tab, run, name))
        work.add_done_callback(consume)
        try:
            await asyncio.wait_for(asyncio.shield(work), self.settings.timeout_s)
            return "ok", None
        except TimeoutError:
            work.cancel()
            if run.session is not None and run.session.crashed.is_set():
                return "error", self._crash_reason(run)
            # Stop a runaway script so the renderer is free again; the context is dropped anyway,
            # so this gets only a short wait and the sample's outcome does not depend on it.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(tab.terminate_scripts(), 0.25)
            return "timeout", self._timeout_reason(run)
        except PageCrashedError:
            return "error", self._crash_reason(run)
        except ProbeError as err:
            if run.session is not None and run.session.crashed.is_set():
                return "error", self._crash_reason(run)
            return "error", f"the page could not be observed: {err}"
        except Exception as err:  # noqa: BLE001 - Playwright raises plain Error for page faults
            if run.session is not None and run.session.crashed.is_set():
                return "error", self._crash_reason(run)
            return "error", f"the page could not be evaluated: {type(err).__name__}: {str(err).splitlines()[0]}"
        finally:
            if not work.done():
                work.cancel()

    def _crash_reason(self, run: SampleRun) -> str:
        kill = self._watchdog.take_kill(run.began) if self._watchdog is not None else None
        settings = self.settings
        limits = f"{settings.renderer_memory_mb} MiB per renderer, {settings.browser_memory_mb} MiB for the browser"
        if kill is None and self._jail is not None and self._jail.oom_kills() > self._jail_kills_taken:
            # The kernel stopped a renderer at the cgroup's ceiling; it was this page's.
            self._jail_kills_taken += 1
            return (
                "the page went over the memory limit: the browser reached its ceiling of"
                f" {self._jail.limit_bytes // 2**20} MiB and the kernel stopped the page's renderer (limits: {limits})"
            )
        if kill is None:
            return _CRASHED
        return f"the page went over the memory limit and its renderer was killed ({kill.reason}; limits: {limits})"

    def _timeout_reason(self, run: SampleRun) -> str:
        reason = f"the evaluation took longer than its budget of {self.settings.timeout_s:g} s"
        stage = "rendering" if run.render_ms == 0 else ("running axe" if run.axe_ms == 0 else "running checks")
        reason += f" while {stage}"
        if run.events.dialogs:
            reason += f"; the page opened {run.events.dialogs} dialogs"
        if run.events.popups:
            reason += f"; the page tried to open {run.events.popups} windows"
        return reason

    async def _evaluate_in(self, case: Case | None, html: str, tab: Tab, run: SampleRun, name: str) -> None:
        session = Session(tab, html)
        run.session = session
        if case is not None:
            run.state_audits = StateAudits(
                lambda label: self._audit_state(session, run, label),
                case,
                budget_s=self.settings.timeout_s * STATE_AUDIT_SHARE,
            )
            session.state_watch = run.state_audits
        run.input_gap_ms = INPUT_GAP_MS if self.settings.page_clock else 0.0
        t0 = time.perf_counter()
        await self._crash_aware(session, session.open())
        run.render_ms = (time.perf_counter() - t0) * 1000
        if tab.cut_short is not None:
            # What was never parsed cannot be audited; the sample fails on that, and nothing
            # else runs (a document without a body never draws the frames a settle waits for).
            run.unaudited.append(tab.cut_short)
            return
        if not self._axe_version:
            self._axe_version = str(await session.probe("axeVersion"))
        t1 = time.perf_counter()
        # With the early stop, the costliest rules wait until the others have not failed the page.
        deferred = DEFERRED_RULES if self.settings.stop_at_first_failure else ()
        initial = await self._crash_aware(session, session.run_axe("initial", disable=deferred))
        if deferred and not self._stops_early(run, *(f"axe {rule}" for rule in deferred), contrast_decided=False):
            initial = await self._crash_aware(session, session.run_axe("initial", only=deferred))
        run.axe_ms = (time.perf_counter() - t1) * 1000
        run.first_audit_end = time.perf_counter()
        if self._stops_early(run, *steps_left(case, (), contrast=True, late_audit=True), contrast_decided=False):
            return
        # The pixel check of colour contrast (contrast.py): only pages axe failed or could not
        # decide on, or that style a dark scheme, pay for it.
        run.contrast, run.contrast_ms = await self._crash_aware(
            session, audit_contrast(session, tab, initial, self.settings.viewport, self.settings.timeout_s / 4)
        )
        if self._stops_early(run, *steps_left(case, (), contrast=False, late_audit=True)):
            return
        if self.settings.screenshots is not None:
            run.screenshot = await self._screenshot(tab, name)
        if may_change_itself(html):
            # Scrolled as a reader would: content the page adds on scroll is then late content.
            await self._crash_aware(session, session.probe("scrollThrough"))
        t2 = time.perf_counter()
        late_done = False
        if case is not None:
            shared: str | None = None
            for index in self._check_order(case):
                if self._stops_early(run, *steps_left(case, run.checks, contrast=False, late_audit=not late_done)):
                    late_done = True
                    break
                check = case.checks[index]
                if not late_done and (session.dirty or check.late or self._acts(case, check)):
                    # The first-rendered document is about to be read late, acted on or replaced.
                    await self._late_audit_untouched(session, run, started_at=t0)
                    late_done = True
                # Checks that share a page take it as the one before them left it (checks.py). A
                # check that acts gets a page on the wall clock, not the one the late audit put on
                # virtual time (clock.py).
                fresh = session.dirty or (tab.clock is not None and self._acts(case, check))
                if fresh and not (check.shares_page is not None and check.shares_page == shared):
                    await self._crash_aware(session, session.reset())
                shared = check.shares_page
                session.position = index
                run.checks.append(await self._run_check(session, check))
                self._acted[(case.id, check.id)] = session.dirty
        if not late_done and not self._stops_early(run, *steps_left(None, (), contrast=False, late_audit=True)):
            await self._late_audit_untouched(session, run, started_at=t0)
        if not self._stops_early(run, "screens and preferences"):
            await audit_conditions(self, session, tab, run)
        # Every page is then met as a visitor meets it, each new state audited (walk.py).
        if not self._stops_early(run, "visitor's walk"):
            await walk.visitor_walk(self, session, run)
        run.checks_ms = (time.perf_counter() - t2) * 1000
        if case is not None and len(html) < _SIZE_FREE_CHARS and not run.skipped:
            self._checks_seen[case.id] = run.checks_ms / 1000

    def _stops_early(self, run: SampleRun, *skipping: str, contrast_decided: bool = True) -> bool:
        """With ``stop_at_first_failure``: whether the page has already failed for good
        (:func:`~lm_eval_a11y.engine.early_stop.decided_failure`); if so, the steps ``skipping``
        are recorded as not run, and the caller runs none of them."""
        if not self.settings.stop_at_first_failure or run.session is None:
            return False
        session = run.session
        unaudited = [*run.unaudited, *(reason for part in session.coverage for reason in part.unaudited)]
        if not decided_failure(
            session.axe_runs, run.checks, unaudited, run.contrast, contrast_decided=contrast_decided
        ):
            return False
        run.skipped.extend(step for step in skipping if step not in run.skipped)
        return True

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
        if not may_change_itself(session.html):
            run.late_audit = "static"
            return
        horizon_s = min(self.settings.late_horizon_ms / 1000, self.settings.timeout_s * _HORIZON_SHARE_OF_BUDGET)
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
        coverage = session.coverage[-1] if session.coverage else None
        unseen = coverage is not None and (coverage.frames_audited > 0 or coverage.closed_shadow_roots > 0)
        if not (
            signals["mutated"]
            or signals["animations"]
            or signals["styles_changed"]
            or signals["shadow_roots"]
            or unseen
        ):
            run.late_audit = "unchanged"
            return
        # What the page changed late may still be fading or sliding in (posts loaded on scroll):
        # audited mid-fade, its text would fail colour contrast in some runs and not in others.
        await self._audit_unchecked(session, run, "late", settle=True)
        run.late_audit = "re-audited"

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
        if not may_change_itself(session.html):
            run.late_audit = "static"
            return
        tab = session._tab
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
        wall_limit = self.settings.timeout_s * _HORIZON_SHARE_OF_BUDGET
        await self._run_ahead(session, run, float(self.settings.page_clock_horizon_ms), wall_limit)
        signals = await self._crash_aware(session, session.probe("lateSignals"))
        run.horizon_ms = tab.page_time_ms
        coverage = session.coverage[-1] if session.coverage else None
        unseen = coverage is not None and (coverage.frames_audited > 0 or coverage.closed_shadow_roots > 0)
        if not (
            signals["mutated"]
            or signals["animations"]
            or signals["styles_changed"]
            or signals["shadow_roots"]
            or unseen
        ):
            run.late_audit = "unchanged"
            return
        # What the page changed late may still be fading or sliding in (posts loaded on scroll):
        # audited mid-fade, its text would fail colour contrast in some runs and not in others.
        await self._audit_unchecked(session, run, "late", settle=True)
        run.late_audit = "re-audited"

    async def _run_ahead(self, session: Session, run: SampleRun, horizon_ms: float, wall_limit_s: float) -> None:
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
        while (left := horizon_ms - tab.page_time_ms) > 0:
            wall_left = wall_limit_s - (time.perf_counter() - started)
            if wall_left <= 0:
                break
            changed: asyncio.Event | None = None
            if run.states_audited < _CHANGING_STATES and tab.page_time_ms >= rests_until:
                position, session.position = session.position, -1
                looked = time.perf_counter()
                state = await self._crash_aware(
                    session, session.next_state(0, look=True, audit="changing", disable=_MID_CHANGE_RULES)
                )
                session.position = position
                if state == "audited":
                    run.axe_ms += session.inline_audit_ms
                elif state == "new":
                    await self._audit_unchecked(session, run, "changing", disable=_MID_CHANGE_RULES)
                if state in ("audited", "new"):
                    run.states_audited += 1
                    took_ms = (time.perf_counter() - looked) * 1000
                    rests_until = tab.page_time_ms + took_ms * (1 - _CHANGING_DUTY) / _CHANGING_DUTY
                tab.page_changed.clear()
                await self._crash_aware(session, session.probe("armChange"))
                changed = tab.page_changed
                left = horizon_ms - tab.page_time_ms
                if left <= 0:
                    break
            elif run.states_audited < _CHANGING_STATES:
                left = min(left, rests_until - tab.page_time_ms)
            await self._crash_aware(session, clock.advance(left, changed=changed, wall_limit_s=wall_left))

    async def _audit_unchecked(
        self, session: Session, run: SampleRun, state: str, *, settle: bool = False, disable: tuple[str, ...] = ()
    ) -> None:
        """An axe run that belongs to no check (listed before the checks' own), counted in the
        sample's axe time; ``settle`` first lets the page settle."""
        position, session.position = session.position, -1
        t0 = time.perf_counter()
        if settle:
            await self._crash_aware(session, session.settle())
        await self._crash_aware(session, session.run_axe(state, disable=disable))
        run.axe_ms += (time.perf_counter() - t0) * 1000
        session.position = position

    async def _audit_state(self, session: Session, run: SampleRun, label: str) -> None:
        """Audit the state the page is in now with axe-core and the pixel contrast check (light
        scheme), recorded under ``label``: its failures count like the first screen's, and the
        pixel check's nodes join the sample's (a node failing in any state fails). Content this
        audit could not reach fails the sample with the state named, and the run goes on."""
        t0 = time.perf_counter()
        try:
            result = await self._crash_aware(session, session.run_axe(label))
            run.axe_ms += (time.perf_counter() - t0) * 1000
            budget_s = self.settings.timeout_s / 16
            audit, took = await self._crash_aware(
                session,
                audit_contrast(session, session._tab, result, self.settings.viewport, budget_s, dark_scheme=False),
            )
        except PageCrashedError:
            raise
        except Exception as err:
            if session.crashed.is_set():
                raise PageCrashedError() from err
            why = str(err).splitlines()[0] if str(err) else ""
            run.unaudited.append(f"the state {label} could not be audited: {type(err).__name__}: {why}")
            return
        if audit is not None:
            run.contrast = merge_contrast(run.contrast, label_contrast(audit, label))
        run.contrast_ms += took

    async def _watch_states(self, session: Session, run: SampleRun, *, deadline: float) -> None:
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
            async with self._admission.idle():
                state = await self._crash_aware(
                    session,
                    session.next_state(int(remaining * 1000), look=look, audit="changing", disable=_MID_CHANGE_RULES),
                )
            session.position = position
            look = False
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

    async def _crash_aware(self, session: Session, work: Awaitable[T]) -> T:
        task = asyncio.ensure_future(work)
        task.add_done_callback(consume)
        crash = asyncio.ensure_future(session.crashed.wait())
        try:
            await asyncio.wait({task, crash}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            crash.cancel()
            if not task.done():
                task.cancel()
        if not task.done() or (session.crashed.is_set() and task.exception() is not None):
            raise PageCrashedError()
        return task.result()

    async def _run_check(self, session: Session, check: Check) -> CheckResult:
        t0 = time.perf_counter()
        try:
            outcome = await self._crash_aware(session, check(session))
            if not isinstance(outcome, Outcome):
                outcome = Outcome("error", f"the check returned {type(outcome).__name__}, not an Outcome")
            elif outcome.status == "na" and not check.na_allowed:
                outcome = Outcome(
                    "fail", f"{outcome.message} (absence fails this check: it does not allow 'not applicable')"
                )
        except PageCrashedError:
            raise
        except Exception as err:
            if session.crashed.is_set():
                raise PageCrashedError() from err
            outcome = Outcome("error", f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
        return CheckResult(
            id=check.id,
            type=check.type,
            description=check.description,
            outcome=outcome.status,
            message=outcome.message,
            duration_ms=round((time.perf_counter() - t0) * 1000, 1),
        )

    async def _screenshot(self, tab: Tab, name: str) -> str | None:
        folder = self.settings.screenshots
        assert folder is not None
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        # Through the tab: the session's page would count as a check acting on the page.
        await tab.page.screenshot(path=str(path), full_page=True, animations="disabled", caret="hide")
        return str(path)
