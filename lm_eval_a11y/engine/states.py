"""The states a case's checks bring the page to, audited as the first screen is.

A check opens the dialog, switches the tab, expands the answer, presses the button that shows an
alert. After each action (a key press, typing, a click, hovering, focus, a narrower window, a
keyboard walk's step) and after the page was given time to react to one (``Session.wait``,
``Session.eventually``), the probe fingerprints what the page shows (``evaluator/probe/states.js``:
which elements are rendered and seen, their text, the attributes that hide or expand content),
and a fingerprint no audit of this sample has seen yet is a new state: it is audited with axe-core
and the pixel contrast check (``SampleAudit._audit_state``), its failures count like the first
screen's, and each finding names the state, e.g. ``after click on button "Open" (check
opens-named-dialog)``. A walk that only moves focus shows nothing new and costs one probe call per
step (the fingerprint rides on the walk's own call), no audit.

At most :data:`MAX_STATE_AUDITS` states are audited per sample, within
:data:`STATE_AUDIT_SHARE` of its time budget; new states past either are counted
(``AuditCoverage.states_unaudited``), not audited. Axe's ``include`` context limited to what
changed was measured against the whole document and not used: see docs/trust.md.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from lm_eval_a11y.cases import Case
from lm_eval_a11y.engine.elements import Element, element_from_probe
from lm_eval_a11y.engine.session_base import SessionBase
from lm_eval_a11y.observation import ContrastAudit

__all__ = ["MAX_STATE_AUDITS", "STATE_AUDIT_SHARE", "StateAudits", "action_label", "label_contrast", "merge_contrast"]

# New states a sample's checks reach that are audited, beyond the first screen: a case's checks
# reach a handful (a dialog open, each of three tabs, a message shown); each audit is an axe run
# and possibly a pixel check, so a page that shows something new on every key press (a clock
# read on each step, a carousel on a timer) costs this many audits, not one per action.
MAX_STATE_AUDITS = 8
# The share of a sample's time budget its state audits may take in all.
STATE_AUDIT_SHARE = 0.25

# Characters of typed text and of an accessible name kept in a label.
_LABEL_TEXT = 40


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _LABEL_TEXT else text[: _LABEL_TEXT - 3] + "..."


def element_label(element: Element | None) -> str:
    """``button "Subscribe"``: the element as a person using assistive technology meets it."""
    if element is None:
        return "the page"
    kind = element.role or f"<{element.tag}>"
    return f'{kind} "{_short(element.name)}"' if element.name.strip() else f"{kind} (no name)"


def action_label(action: str, target: Element | None, check_id: str | None = None) -> str:
    """The label of the state an action showed: ``after Enter on button "Subscribe"``, with the
    check that acted when known."""
    label = f"after {action}"
    # A key press, a click... is done on an element, or on the page when nothing has focus; a
    # narrower window ("a 320 px wide window") is done on no element.
    if target is not None or not action.startswith("a "):
        label += f" on {element_label(target)}"
    return f"{label} (check {check_id})" if check_id else label


class StateAudits:
    """Watches one sample's session (``Session.state_watch``): the fingerprints of the states
    audited so far, and the audit of each new one an action shows, up to ``limit``.

    ``audit(label)`` audits the current state and records it (``SampleAudit._audit_state``);
    ``case`` names the check acting (by ``session.position``) in the labels."""

    def __init__(
        self,
        audit: Callable[[str], Awaitable[None]],
        case: Case | None = None,
        limit: int = MAX_STATE_AUDITS,
        budget_s: float = math.inf,
    ) -> None:
        self._audit = audit
        self._case = case
        self.limit = limit
        # The time these audits may take in all (a share of the sample's budget): a large page
        # whose audits are slow is audited in fewer states, and the sample keeps its time.
        self.budget_s = budget_s
        self.spent_s = 0.0
        self._seen: set[str] = set()
        self._auditing = False
        # States audited, new states left unaudited past the limit, fingerprints taken.
        self.audits = 0
        self.unaudited = 0
        self.fingerprints = 0
        self.labels: list[str] = []

    async def _fingerprint(self, session: SessionBase) -> str:
        self.fingerprints += 1
        return str(await session.probe("shownFingerprint"))

    async def audited_now(self, session: SessionBase) -> None:
        """An axe run has just audited the state the page is in: remember it as seen."""
        self._seen.add(await self._fingerprint(session))

    # The ActionWatch protocol (session_base.py).
    async def audited(self, session: SessionBase) -> None:
        if not self._auditing:
            await self.audited_now(session)

    async def acted(
        self, session: SessionBase, action: str, target: Element | int | None, fingerprint: str | None = None
    ) -> None:
        if self._auditing:
            return
        shown = fingerprint if fingerprint is not None else await self._fingerprint(session)
        if shown in self._seen:
            return
        # Something new is shown: let the animations it started end (a tooltip whose fade starts
        # on the next frame, a panel that slides open; two frames when nothing animates) and look
        # again, so that the audit sees it as a person does. No wait for timers: the check's own
        # next read must not come later than it has to (a message shown for half a second).
        await session.settle(0)
        settled = await self._fingerprint(session)
        known = settled in self._seen
        self._seen.update((shown, settled))
        if known:
            # The page is back in (or settled into) a state already audited.
            return
        if self.audits >= self.limit or self.spent_s >= self.budget_s:
            self.unaudited += 1
            return
        label = action_label(action, await _resolve(session, target), self._check_id(session))
        self._auditing = True
        started = time.perf_counter()
        try:
            await self._audit(label)
        finally:
            self._auditing = False
            self.spent_s += time.perf_counter() - started
        self.audits += 1
        self.labels.append(label)

    def _check_id(self, session: SessionBase) -> str | None:
        if self._case is None or not 0 <= session.position < len(self._case.checks):
            return None
        return self._case.checks[session.position].id


async def _resolve(session: SessionBase, target: Element | int | None) -> Element | None:
    """The element an action was done to, described now if a walk only knew its reference (None
    when it is gone)."""
    if target is None or isinstance(target, Element):
        return target
    try:
        data = await session.probe("describe", target)
    except Exception:  # noqa: BLE001 - an element the page removed has no label; the state still has one
        return None
    return element_from_probe(data) if isinstance(data, dict) else None


def label_contrast(audit: ContrastAudit, state: str) -> ContrastAudit:
    """The pixel check of one state, each node naming it."""
    return replace(audit, nodes=tuple(replace(n, state=state) for n in audit.nodes))


def merge_contrast(first: ContrastAudit | None, other: ContrastAudit | None) -> ContrastAudit | None:
    """Two pixel checks of one sample (two states) as one: a node fails if it failed in either.

    axe's violations per scheme count each node once, whatever state showed it (the measured ones
    by their target; those past the measuring limit as counted), so that the colour-contrast
    failures axe found in states the pixel check did not measure (the late audit) still show as
    the difference (scoring.contrast_failures). A pixel check that broke leaves axe's answer
    standing for all states: its error is kept.
    """
    if first is None or other is None:
        return first if other is None else other
    nodes = first.nodes + other.nodes
    schemes = tuple(dict.fromkeys((*first.schemes, *other.schemes)))
    counts: list[tuple[str, int]] = []
    for scheme in tuple(dict.fromkeys(s for s, _ in (*first.axe_violations, *other.axe_violations))):
        measured = {n.target for n in nodes if n.scheme == scheme and n.axe == "violation"}
        unmeasured = sum(
            max(audit.violations_in(scheme) - sum(n.scheme == scheme and n.axe == "violation" for n in audit.nodes), 0)
            for audit in (first, other)
        )
        counts.append((scheme, len(measured) + unmeasured))
    return ContrastAudit(
        schemes=schemes,
        nodes=nodes,
        axe_violations=tuple(counts),
        unmeasured_violations=first.unmeasured_violations + other.unmeasured_violations,
        unmeasured_incomplete=first.unmeasured_incomplete + other.unmeasured_incomplete,
        unaudited_incomplete=first.unaudited_incomplete + other.unaudited_incomplete,
        styles_dark_scheme=first.styles_dark_scheme or other.styles_dark_scheme,
        error=first.error or other.error,
    )
