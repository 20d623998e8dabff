"""One sample's audit, step by step: open the page, audit it with axe-core, measure contrast,
run the case's checks (readers first), watch the page change itself until the late-change horizon
and audit it again, all within the sample's time budget; and why a sample that did not finish
failed (a timeout, a crash, a memory kill).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from typing import Any

from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Check, Outcome
from lm_eval_a11y.engine import walk
from lm_eval_a11y.engine.clock import INPUT_GAP_MS
from lm_eval_a11y.engine.conditions import audit_conditions
from lm_eval_a11y.engine.contrast import audit_contrast
from lm_eval_a11y.engine.early_stop import DEFERRED_RULES, decided_failure, steps_left
from lm_eval_a11y.engine.late import LateAudit
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.states import STATE_AUDIT_SHARE, StateAudits, label_contrast, merge_contrast
from lm_eval_a11y.engine.steps import PageCrashedError, SampleRun, consume
from lm_eval_a11y.engine.tab import ProbeError, Tab
from lm_eval_a11y.observation import CheckResult

__all__ = ["PageCrashedError", "SampleAudit", "SampleRun", "consume"]

_CRASHED = "the page crashed the renderer (out of memory or a renderer fault)"

# Below this size the time of a case's checks hardly depends on the page, so it is remembered.
_SIZE_FREE_CHARS = 50_000


class SampleAudit(LateAudit):
    """The steps of one sample's audit on a tab, and the reasons a sample failed."""

    async def _guarded(
        self, case: Case | None, html: str, tab: Tab, run: SampleRun, name: str
    ) -> tuple[str, str | None]:
        work = asyncio.ensure_future(self._evaluate_in(case, html, tab, run, name))
        work.add_done_callback(consume)
        try:
            await self._within_budget(work, run)
            return "ok", None
        except TimeoutError:
            if os.environ.get("A11Y_DEBUG_TIMEOUTS"):
                _print_waits(name)
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

    async def _within_budget(self, work: asyncio.Future[None], run: SampleRun) -> None:
        """Wait for ``work`` until the sample's budget (SampleRun.budget_s) is used up, then raise
        TimeoutError; the budget grows while the evaluator reloads the page."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        while True:
            left = started + run.budget_s(self.settings.timeout_s) - loop.time()
            if left <= 0:
                raise TimeoutError()
            await asyncio.wait((work,), timeout=left)
            if work.done():
                work.result()
                return

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
        if run.session is not None and run.session.reloads_s:
            reason += " and the time of the reloads of the page its steps asked for"
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
        run.input_gap_ms = INPUT_GAP_MS if self.settings.paced_keys else 0.0
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
        # The text a person meets, for the reward's floor of text (corpus/reward.py).
        run.text_chars = int(await self._crash_aware(session, session.probe("renderedTextChars", None)))
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
        # The pixel check of colour contrast (contrast.py): axe's failures and "can't tell" nodes,
        # and a sweep of the text it passed or did not list.
        run.contrast, run.contrast_ms = await self._crash_aware(
            session, audit_contrast(session, tab, initial, self.settings.viewport, self.settings.timeout_s / 4)
        )
        if self._stops_early(run, *steps_left(case, (), contrast=False, late_audit=True)):
            return
        if self.settings.screenshots is not None:
            run.screenshot = await self._screenshot(tab, name)
        if await self._crash_aware(session, session.may_change_itself()):
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
        # What follows is no check's doing: its states are named by the condition or the walk's
        # step that showed them, not after the last check's action.
        session.state_watch = None
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


def _print_waits(name: str) -> None:
    """For debugging (``A11Y_DEBUG_TIMEOUTS=1``): where each of our tasks waits when a sample runs
    out of its budget, printed to stderr as chains of coroutines (file, line, function)."""
    lines = [f"[timeout] sample {name}: where each task waits"]
    for task in asyncio.all_tasks():
        coro: Any = task.get_coro()
        chain = []
        while coro is not None:
            frame = getattr(coro, "cr_frame", None)
            if frame is not None:
                chain.append(f"    {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
            coro = getattr(coro, "cr_await", None)
        if any("lm_eval_a11y" in line for line in chain):
            lines.append(f"  task {task.get_name()}:")
            lines.extend(chain)
    print("\n".join(lines), file=sys.stderr, flush=True)
