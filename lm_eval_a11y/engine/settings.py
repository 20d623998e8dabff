"""How the evaluator runs: :class:`EvaluatorSettings`, and the constants a record names (the axe
tags, the late-change horizon, the memory headroom)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY

__all__ = ["AXE_TAGS", "CEILING_HEADROOM_MB", "LATE_HORIZON_MS", "PAGE_CLOCK_HORIZON_MS", "EvaluatorSettings"]

AXE_TAGS: tuple[str, ...] = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice")

# The late-change horizon: what a page changes within this long after the navigation to it is
# audited (see LateAudit._late_audit in late.py; its cost is measured in docs/trust.md). A
# timer of 1.5 s set by a script as the page loads fires well inside it.
LATE_HORIZON_MS = 2000

# The horizon on the page's own clock (EvaluatorSettings.page_clock, engine/clock.py): 30 s of the
# page's life, run ahead on virtual time instead of waited for.
PAGE_CLOCK_HORIZON_MS = 30_000

# The hard ceiling of the browser's memory above browser_memory_mb, where the watchdog starts
# killing: room for the watchdog to act first, and for what the kernel counts that the watchdog
# does not (the page cache of Chromium's own files, kernel memory).
CEILING_HEADROOM_MB = 256


@dataclass(frozen=True)
class EvaluatorSettings:
    """How the evaluator runs. Refused when a value could not bound what it is meant to bound.

    ``renderer_memory_mb``: a renderer holding more is killed and its sample is an ``error``
    ("memory limit"). ``browser_memory_mb``: while the whole browser holds more, its largest
    renderer is killed. ``memory_cgroup``: the browser also runs in a memory cgroup limited to
    ``browser_memory_mb`` + :data:`CEILING_HEADROOM_MB`, where one can be made. See
    :mod:`lm_eval_a11y.engine.memory`, :mod:`lm_eval_a11y.engine.jail` and docs/isolation.md.
    """

    concurrency: int = DEFAULT_CONCURRENCY
    timeout_s: float = 20.0
    viewport: tuple[int, int] = (1280, 800)
    recycle_after: int = 50
    max_html_bytes: int = 3_000_000
    settle_ms: int = 50
    screenshots: Path | None = None
    # How long after the navigation to a sample its own changes are still audited (_late_audit).
    late_horizon_ms: int = LATE_HORIZON_MS
    # Run each page's late-change horizon on its own virtual clock (engine/clock.py): a copy of
    # the page, in the slot's clock tab, is run ahead to page_clock_horizon_ms of its life (late.py).
    # Off (the default for now, while its cost and its effect on every sample are measured): the
    # horizon is late_horizon_ms of real time, waited for. See docs/trust.md.
    page_clock: bool = False
    page_clock_horizon_ms: int = PAGE_CLOCK_HORIZON_MS
    # Press the keys of keyboard walks 200 ms of the page's own time apart, as a person does
    # (clock.INPUT_GAP_MS): the sample's page goes on virtual time from its first key press and is
    # replaced afterwards. Off by default for its cost (docs/trust.md, "The page's clock").
    paced_keys: bool = False
    # Browser contexts for evaluations waiting out that horizon, beyond the ``concurrency`` that
    # work at once: at most this many (None: three times ``concurrency``; 0: a waiting evaluation
    # keeps its turn). Up to ``concurrency`` of them are always open; more only while the
    # browser's processes hold less than ``waiting_memory_mb``, and less than half of
    # ``browser_memory_mb`` (admission.SlotPool), so that waiting pages never crowd the working
    # ones into the watchdog's kills.
    waiting_slots: int | None = None
    waiting_memory_mb: int = 768
    renderer_memory_mb: int = 1024
    browser_memory_mb: int = 3072
    # Run the browser in a memory cgroup of its own limited to browser_memory_mb +
    # CEILING_HEADROOM_MB, where this machine lets us make one (jail.py): the kernel then holds
    # the ceiling whatever the pages do. Off, or where no cgroup can be made: the watchdog only.
    memory_cgroup: bool = True
    # Stop a page's evaluation at its first decided failure and skip the steps left (early_stop.py):
    # the verdict is the full evaluation's, the counts only those of the steps that ran
    # (AuditCoverage.skipped). For filters that keep passing pages; off for the benchmark. axe's
    # best practices, which never decide a verdict, are then not audited (axe_tags).
    stop_at_first_failure: bool = False

    @property
    def axe_tags(self) -> tuple[str, ...]:
        """The axe tags audited: :data:`AXE_TAGS`, without ``best-practice`` when the evaluation
        stops at the first failure (best practices never fail a page)."""
        if self.stop_at_first_failure:
            return tuple(tag for tag in AXE_TAGS if tag != "best-practice")
        return AXE_TAGS

    @property
    def slots(self) -> int:
        """Browser contexts at most: those at work and those waiting (see admission.py)."""
        return self.concurrency + (3 * self.concurrency if self.waiting_slots is None else self.waiting_slots)

    @property
    def always_open(self) -> int:
        """Browser contexts opened whatever the browser's memory: those at work, and as many waiting."""
        return min(2 * self.concurrency, self.slots)

    def __post_init__(self) -> None:
        _require_int("concurrency", self.concurrency, 1)
        if not isinstance(self.stop_at_first_failure, bool):
            raise ValueError(f"stop_at_first_failure must be True or False, got {self.stop_at_first_failure!r}")
        # A NaN budget compares false with everything (every page failed "budget of nan s") and
        # an infinite one lets a hanging page hang forever.
        if isinstance(self.timeout_s, bool) or not isinstance(self.timeout_s, (int, float)):
            raise ValueError(f"timeout_s must be a number of seconds, got {self.timeout_s!r}")
        if not math.isfinite(self.timeout_s) or self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be a finite number of seconds above 0, got {self.timeout_s!r}")
        _require_int("recycle_after", self.recycle_after, 1)
        _require_int("max_html_bytes", self.max_html_bytes, 1)
        _require_int("settle_ms", self.settle_ms, 0)
        _require_int("late_horizon_ms", self.late_horizon_ms, 0)
        _require_int("page_clock_horizon_ms", self.page_clock_horizon_ms, 0)
        for name in ("page_clock", "paced_keys"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.waiting_slots is not None:
            _require_int("waiting_slots", self.waiting_slots, 0)
        _require_int("renderer_memory_mb", self.renderer_memory_mb, 64)
        _require_int("browser_memory_mb", self.browser_memory_mb, self.renderer_memory_mb)
        _require_int("waiting_memory_mb", self.waiting_memory_mb, 0)
        if len(self.viewport) != 2:
            raise ValueError(f"viewport must be (width, height), got {self.viewport!r}")
        for side in self.viewport:
            _require_int("each side of viewport", side, 1)


def _require_int(name: str, value: object, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < least:
        raise ValueError(f"{name} must be at least {least}, got {value}")
