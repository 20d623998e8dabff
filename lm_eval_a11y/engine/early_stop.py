"""Stopping an evaluation at the page's first decided failure (``stop_at_first_failure``).

A filter that keeps only passing pages needs no more of a failing page than the failure that
decides it. The evaluator runs the cheap, decisive audits first (axe-core's WCAG rules, then the
pixel check of colour contrast, then the case's checks, readers first) and, with the setting on,
asks :func:`decided_failure` between steps; once it holds, the steps left are skipped and named
in the observation (``AuditCoverage.skipped``).

What makes a failure *decided* is what no later step can undo, judged by the verdict rule itself
(:func:`lm_eval_a11y.scoring.score_observation` on what the steps so far recorded):

- an axe WCAG failure (not a best practice) in any audited state: later audits only add findings;
- colour contrast only once the pixel check has run: before, an axe ``color-contrast`` failure
  may still be overturned by the pixels, so it decides nothing;
- a requirement check not met: each check runs once, and its outcome stands;
- content that could not be audited: later audits only add to it.

Every later step only adds failures, so a page stopped here fails the full evaluation too, and a
page that is never stopped runs every step: the pages that pass are exactly those of a full run.
A page that passes at first screen needs every step (its late changes, its behaviour); a page
that fails at first screen is out.

A step of ``SampleAudit._evaluate_in`` runs behind the same question:
``if self._stops_early(run, "<step>", ...): return`` (or ``break``), naming the steps it skips;
the question is cheap (the axe runs merged and scored in Python, no call into the page).

The first audit is split in two when the evaluation may stop early: every rule but
:data:`DEFERRED_RULES` first, then those rules alone on the same document, both recorded as the
``initial`` state, so a page that goes on is audited by the same rules as in a full evaluation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from lm_eval_a11y.cases import Case
from lm_eval_a11y.engine.axe_merge import merge_axe
from lm_eval_a11y.observation import AuditCoverage, CheckResult, ContrastAudit, Observation, Timings
from lm_eval_a11y.scoring import score_observation

__all__ = ["CONTRAST", "DEFERRED_RULES", "LATE_AUDIT", "decided_failure", "steps_left"]

# The names of the steps an observation lists as skipped, besides ``check <id>``.
CONTRAST = "contrast"
LATE_AUDIT = "late audit"

# The axe rules the first audit leaves for a second run on the same document when the evaluation
# may stop early: the two costliest on a page of text (measured on an 83 KB article: colour
# contrast, which works out the colours behind every text node, 3.3 s; target size, which looks
# at what overlaps every target, 1.6 s; the median rule 0.15 s). Colour contrast decides nothing
# before the pixel check has run anyway.
DEFERRED_RULES: tuple[str, ...] = ("color-contrast", "target-size")


def decided_failure(
    axe_runs: Sequence[tuple[str, dict[str, Any]]],
    checks: Iterable[CheckResult],
    unaudited: Iterable[str],
    contrast: ContrastAudit | None,
    *,
    contrast_decided: bool,
) -> bool:
    """Whether what the steps so far recorded already fails the page, for good.

    ``axe_runs`` are the sample's axe runs as recorded (state, result), ``checks`` the checks that
    ran, ``unaudited`` every reason some content could not be audited, ``contrast`` the pixel
    check (None: none was needed, or it has not run), ``contrast_decided`` whether it has run.
    """
    axe = merge_axe(axe_runs)
    if not contrast_decided:
        axe = replace(axe, violations=tuple(v for v in axe.violations if v.rule_id != "color-contrast"))
    so_far = Observation(
        case_id=None,
        case_version=None,
        status="ok",
        error=None,
        html_sha256="",
        html_bytes=0,
        axe=axe,
        checks=tuple(checks),
        environment=None,
        timings=Timings(),
        audit=AuditCoverage(recorded=True, unaudited=tuple(dict.fromkeys(unaudited))),
        contrast=contrast if contrast_decided else None,
    )
    return not score_observation(so_far).passed


def steps_left(case: Case | None, ran: Iterable[CheckResult], *, contrast: bool, late_audit: bool) -> list[str]:
    """The names of the steps not run yet: ``contrast`` (if ``contrast``), each check of ``case``
    that has not run (``check <id>``, in declared order), ``late audit`` (if ``late_audit``)."""
    done = {c.id for c in ran}
    steps = [CONTRAST] if contrast else []
    if case is not None:
        steps += [f"check {c.id}" for c in case.checks if c.id not in done]
    if late_audit:
        steps.append(LATE_AUDIT)
    return steps
