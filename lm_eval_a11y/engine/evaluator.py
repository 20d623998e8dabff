"""The evaluator: render (case, html) pairs in one pooled Chromium and observe them.

It owns the browser and never decides whether a sample passes (that is :mod:`scoring`).

    with Evaluator(concurrency=2) as ev:
        observations = ev.evaluate_many([(case, html), ...])

Lifecycle: Chromium starts lazily on the first evaluation and stops in :meth:`close` (also
registered with ``atexit``). Each concurrent slot has its own browser context, so a page that
hangs its renderer cannot stall the others; contexts are replaced after ``recycle_after``
evaluations and after any timeout or crash. Each evaluation gets a brand-new page.

:class:`AsyncEvaluator` is built in layers, one concern each: the browser's lifecycle
(:mod:`~lm_eval_a11y.engine.lifecycle`), the slot pool and the order of work
(:mod:`~lm_eval_a11y.engine.pool`), one sample's audit steps (:mod:`~lm_eval_a11y.engine.sample`);
:mod:`~lm_eval_a11y.engine.observe` builds the observation.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from lm_eval_a11y import __version__
from lm_eval_a11y.cases import Case
from lm_eval_a11y.engine.observe import build_observation, html_digest
from lm_eval_a11y.engine.sample import SampleAudit, SampleRun
from lm_eval_a11y.engine.settings import EvaluatorSettings
from lm_eval_a11y.engine.unicode import repair_text
from lm_eval_a11y.observation import Environment, Observation

__all__ = ["AsyncEvaluator", "Evaluator", "EvaluatorSettings"]

T = TypeVar("T")


class AsyncEvaluator(SampleAudit):
    """The async core. Use from one event loop; :class:`Evaluator` is the thread-safe facade."""

    async def evaluate(self, case: Case | None, html: str, *, name: str | None = None) -> Observation:
        """Evaluate one page. Never raises for anything the page does; the outcome says it."""
        await self.start()
        assert self._slots is not None
        html, lone_surrogates = repair_text(html)
        repairs: tuple[str, ...] = ()
        if lone_surrogates:
            # Unicode that no browser or UTF-8 writer accepts: half of a surrogate pair. The
            # page a browser would make of such bytes has U+FFFD in their place.
            repairs = (f"{lone_surrogates} lone surrogate code points replaced with U+FFFD",)
        digest, size = html_digest(html)
        if size > self.settings.max_html_bytes:
            return self._observation(
                case,
                digest,
                size,
                SampleRun(),
                "error",
                f"the HTML is {size:,} bytes, above the limit of {self.settings.max_html_bytes:,} bytes"
                " (max_html_bytes)",
                0.0,
            )
        self._waiting += 1
        try:
            await self._admission.enter()
        finally:
            self._waiting -= 1
        try:
            slot = await self._slots.take()
        except BaseException:
            self._admission.leave()
            raise
        run = SampleRun(began=time.monotonic())
        started = time.perf_counter()
        finished = 0.0
        try:
            try:
                # A fresh context takes well under a second; one that never comes means the
                # browser itself is wedged, and only a new browser helps.
                tab = await asyncio.wait_for(self._tab(slot), max(10.0, self.settings.timeout_s))
            except TimeoutError:
                slot.context = slot.tab = None
                await self._restart_browser()
                raise
            run.events = tab.events
            status, error = await self._guarded(case, html, tab, run, name or digest[:12])
            finished = time.perf_counter()
            if status != "ok":
                slot.broken = True
            else:
                # Leave the document now, on this sample's time: its departure handlers never
                # run, and one that would hold the renderer costs this slot its renderer, not
                # the next sample its budget.
                await self._leave(tab, slot)
        except Exception as err:  # noqa: BLE001 - infrastructure trouble becomes this sample's outcome
            slot.broken = True
            status, error = "error", f"evaluator failure: {type(err).__name__}: {err}"
        finally:
            # A context beyond those always open goes while the browser has no memory to spare.
            if slot.broken or self._slots.crowded():
                self._drop_context(slot)
            self._slots.give(slot)
            self._admission.leave()
        total_ms = ((finished or time.perf_counter()) - started) * 1000
        return self._observation(case, digest, size, run, status, error, total_ms, repairs)

    async def evaluate_many(
        self,
        pairs: Iterable[tuple[Case | None, str]],
        *,
        names: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Observation]:
        """Evaluate pairs concurrently; observations come back in input order.

        The pages expected to take longest are started first: one started last would keep a
        single slot busy while the others sit idle at the end of the batch (see
        :meth:`_expected_s`).
        """
        items = list(pairs)
        done = 0
        results: list[Observation | None] = [None] * len(items)

        async def one(index: int) -> None:
            nonlocal done
            case, html = items[index]
            results[index] = await self.evaluate(case, html, name=names[index] if names else None)
            done += 1
            if progress is not None:
                progress(done, len(items))

        await self.start()
        # Slots are handed out in the order the evaluations ask for them, which is this order.
        expected = [self._expected_s(case, html) for case, html in items]
        longest_first = sorted(range(len(items)), key=lambda i: -expected[i])
        await asyncio.gather(*(one(i) for i in longest_first))
        observations = [r for r in results if r is not None]
        assert len(observations) == len(items)
        return observations

    def _observation(
        self,
        case: Case | None,
        digest: str,
        size: int,
        run: SampleRun,
        status: str,
        error: str | None,
        total_ms: float,
        repairs: tuple[str, ...] = (),
    ) -> Observation:
        environment = Environment(
            axe_version=self._axe_version or "unknown",
            chromium_version=self._chromium_version or "unknown",
            viewport=self.settings.viewport,
            axe_tags=self.settings.axe_tags,
            evaluator_version=__version__,
            timeout_s=self.settings.timeout_s,
            prefers_color_scheme="light",
            memory_ceiling=self._memory_ceiling,
        )
        return build_observation(case, digest, size, run, status, error, total_ms, repairs, environment=environment)


class Evaluator:
    """Synchronous facade: runs an :class:`AsyncEvaluator` on a private event-loop thread.

    Safe to call from code that has its own event loop running (a notebook, lm-eval).
    """

    def __init__(self, settings: EvaluatorSettings | None = None, **overrides: Any) -> None:
        if overrides:
            base = settings or EvaluatorSettings()
            settings = EvaluatorSettings(**{**base.__dict__, **overrides})
        self._core = AsyncEvaluator(settings)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        atexit.register(self.close)

    @property
    def settings(self) -> EvaluatorSettings:
        return self._core.settings

    def _submit(self, coro: Awaitable[T]) -> T:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="lm-eval-a11y-browser", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            loop = self._loop
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, loop)  # type: ignore[arg-type]
        return future.result()

    def start(self) -> None:
        """Launch Chromium now (it starts lazily otherwise); raises if it cannot."""
        self._submit(self._core.start())

    def evaluate(self, case: Case | None, html: str, *, name: str | None = None) -> Observation:
        return self._submit(self._core.evaluate(case, html, name=name))

    def browser_processes(self) -> list[tuple[int, str]]:
        """The running browser's processes as ``(pid, type)`` pairs; empty when none runs."""
        return self._submit(self._core.browser_processes())

    def evaluate_many(
        self,
        pairs: Iterable[tuple[Case | None, str]],
        *,
        names: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Observation]:
        return self._submit(self._core.evaluate_many(list(pairs), names=names, progress=progress))

    def close(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None:
            return
        with contextlib.suppress(Exception):  # best effort at shutdown
            asyncio.run_coroutine_threadsafe(self._core.close(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=10)
        loop.close()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
