"""Building the :class:`~lm_eval_a11y.observation.Observation` of one sample from what its run saw:
the axe runs merged (a node counts once per rule), the checks in declared order, what the audits
reached, and every string the page could shape made valid Unicode."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

from lm_eval_a11y.cases import Case
from lm_eval_a11y.engine.axe_merge import findings_from_probe, merge_axe
from lm_eval_a11y.engine.sample import SampleRun
from lm_eval_a11y.engine.unicode import repair_text
from lm_eval_a11y.observation import (
    AuditCoverage,
    CheckResult,
    Environment,
    LibraryRequest,
    Observation,
    PageEvents,
    Timings,
)

__all__ = [
    "audit_coverage",
    "build_observation",
    "findings_from_probe",
    "html_digest",
    "library_unaudited",
    "merge_axe",
    "valid_unicode",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


def html_digest(html: str) -> tuple[str, int]:
    data = html.encode("utf-8", errors="replace")
    return hashlib.sha256(data).hexdigest(), len(data)


def build_observation(
    case: Case | None,
    digest: str,
    size: int,
    run: SampleRun,
    status: str,
    error: str | None,
    total_ms: float,
    repairs: tuple[str, ...] = (),
    *,
    environment: Environment,
) -> Observation:
    """The observation of one sample: ``run`` is what its evaluation saw (empty when it never
    started), ``status`` and ``error`` how it ended, ``environment`` what it ran in."""
    runs: list[tuple[str, dict[str, Any]]] = []
    if run.session is not None:
        # In the order of the checks as declared (a stable sort keeps each check's own
        # runs in order), so the merged result does not depend on the order they ran in.
        ordered = sorted(zip(run.session.axe_positions, run.session.axe_runs, strict=True), key=lambda pair: pair[0])
        runs = [axe_run for _, axe_run in ordered]
    checks = list(run.checks)
    if case is not None:
        # Declared order; checks that never ran are errors with the evaluation's reason, so
        # every check of the case appears in every observation.
        ran = {c.id: c for c in checks}
        # Checks skipped after the page's first decided failure are left out: the observation
        # names them (AuditCoverage.skipped) and is partial.
        skipped = set(run.skipped)
        checks = [
            ran.get(c.id) or CheckResult(c.id, c.type, c.description, "error", f"not run: {error}")
            for c in case.checks
            if c.id in ran or f"check {c.id}" not in skipped
        ]
    events = run.events
    observation = Observation(
        case_id=case.id if case is not None else None,
        case_version=case.version if case is not None else None,
        status=status,  # type: ignore[arg-type]
        error=error,
        html_sha256=digest,
        html_bytes=size,
        axe=merge_axe(runs),
        checks=tuple(checks),
        environment=environment,
        timings=Timings(
            render_ms=round(run.render_ms, 1),
            axe_ms=round(run.axe_ms, 1),
            checks_ms=round(run.checks_ms, 1),
            total_ms=round(total_ms, 1),
            contrast_ms=round(run.contrast_ms, 1),
            settle_stalls=run.session.settle_stalls if run.session is not None else 0,
            reload_ms=round(run.session.reloads_s * 1000, 1) if run.session is not None else 0.0,
        ),
        events=PageEvents(
            console_errors=tuple(events.console_errors),
            page_errors=tuple(events.page_errors),
            blocked_requests=tuple(events.blocked_requests),
            blocked_navigations=tuple(events.blocked_navigations),
            popup_urls=tuple(events.popup_urls),
            dialogs=events.dialogs,
            popups=events.popups,
            input_repairs=repairs,
            libraries=tuple(events.libraries),
        ),
        screenshot=run.screenshot,
        audit=audit_coverage(run),
        contrast=run.contrast,
        text_chars=run.text_chars,
    )
    return valid_unicode(observation)


def audit_coverage(run: SampleRun) -> AuditCoverage:
    """What the sample's axe runs reached, merged: the most of each kind any run saw, and every
    kind of content some run could not audit."""
    parts = run.session.coverage if run.session is not None else []
    unaudited: dict[str, None] = dict.fromkeys(run.unaudited)
    for part in parts:
        unaudited.update(dict.fromkeys(part.unaudited))
    # A library the page loads that could not be served: the page was not what a visitor sees.
    unaudited.update(dict.fromkeys(library_unaudited(run.events.libraries)))
    return AuditCoverage(
        recorded=True,
        frames_audited=max((p.frames_audited for p in parts), default=0),
        closed_shadow_roots=max((p.closed_shadow_roots for p in parts), default=0),
        unaudited=tuple(unaudited),
        horizon_ms=None if run.horizon_ms is None else round(run.horizon_ms, 1),
        late_audit=run.late_audit,
        states_audited=run.states_audited,
        skipped=tuple(run.skipped),
        action_states=run.state_audits.audits if run.state_audits is not None else 0,
        action_states_unaudited=run.state_audits.unaudited if run.state_audits is not None else 0,
        clock=run.clock,
        frames_ms=round(run.frames_ms, 1),
        input_gap_ms=run.input_gap_ms,
    )


def library_unaudited(libraries: Iterable[LibraryRequest]) -> list[str]:
    """An ``unaudited`` reason for each library the page asked for and did not get
    (docs/cdn-mirror.md): such a page fails, it is never judged without its library."""
    return [
        f"{item.reason or f'library {item.library} not mirrored'}, so the page was not rendered as a visitor"
        f" sees it: {item.url[:200]}"
        for item in libraries
        if item.fails_page
    ]


def valid_unicode(observation: Observation) -> Observation:
    """The observation with every lone surrogate replaced, so that its record can be written.

    A page's own script can put half a surrogate pair in the DOM, a check message or an axe
    node's HTML. Only the text that can come from the page is searched (0.08 ms for an
    ordinary observation); the observation is rebuilt only when one is found.
    """
    if not any(_SURROGATE.search(text) for text in _page_text(observation)):
        return observation
    return Observation.from_dict(_repaired(observation.to_dict()))


def _page_text(observation: Observation) -> Iterable[str]:
    """Every string of an observation that the page's content or scripts can shape."""
    if observation.error:
        yield observation.error
    for check in observation.checks:
        yield check.message
    for finding in (*observation.axe.violations, *observation.axe.incomplete):
        for node in finding.nodes:
            yield node.html
            yield node.failure_summary
            yield from node.target
    events = observation.events
    for texts in (
        events.console_errors,
        events.page_errors,
        events.blocked_requests,
        events.blocked_navigations,
        events.popup_urls,
        tuple(item.url for item in events.libraries),
    ):
        yield from texts


def _repaired(value: Any) -> Any:
    if isinstance(value, str):
        return repair_text(value)[0]
    if isinstance(value, dict):
        return {_repaired(k): _repaired(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_repaired(v) for v in value)
    return value
