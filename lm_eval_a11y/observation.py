"""What the evaluator saw on one page: frozen, JSON-serialisable, free of verdicts.

The evaluator fills an :class:`Observation`; :mod:`lm_eval_a11y.scoring` turns it into numbers.
Keeping the two apart lets a saved observation be re-scored (new verdict rules, new k values)
without a browser, and lets the report be built from lm-eval's samples file alone.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

CheckStatus = Literal["pass", "fail", "na", "error"]
CheckType = Literal["R", "BP"]
EvalStatus = Literal["ok", "timeout", "error"]

CHECK_STATUSES: tuple[str, ...] = ("pass", "fail", "na", "error")
CHECK_TYPES: tuple[str, ...] = ("R", "BP")

_WCAG_TAG = re.compile(r"^wcag(\d)(\d)(\d+)$")


def wcag_criteria(tags: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Turn axe tags such as ``wcag143`` into success-criterion numbers such as ``1.4.3``."""
    out: list[str] = []
    for tag in tags:
        match = _WCAG_TAG.match(tag)
        if match:
            out.append(".".join(match.groups()))
    return tuple(out)


@dataclass(frozen=True)
class AxeNode:
    html: str
    target: tuple[str, ...]
    failure_summary: str = ""
    impact: str | None = None


@dataclass(frozen=True)
class AxeFinding:
    """One axe rule that reported nodes, as seen in one axe run (``state``)."""

    rule_id: str
    impact: str | None
    tags: tuple[str, ...]
    help: str
    help_url: str
    nodes: tuple[AxeNode, ...]
    node_count: int
    state: str = "initial"

    @property
    def best_practice(self) -> bool:
        return "best-practice" in self.tags

    @property
    def wcag(self) -> tuple[str, ...]:
        return wcag_criteria(self.tags)


@dataclass(frozen=True)
class AxeResult:
    """axe findings merged over every run of one sample (initial state plus check-requested states).

    ``violations`` are axe's failures; ``incomplete`` are its "needs review" results, kept for
    the report but never counted against the sample.
    """

    violations: tuple[AxeFinding, ...] = ()
    incomplete: tuple[AxeFinding, ...] = ()
    states: tuple[str, ...] = ()

    @property
    def wcag_failures(self) -> tuple[AxeFinding, ...]:
        return tuple(v for v in self.violations if not v.best_practice)

    @property
    def best_practice_findings(self) -> tuple[AxeFinding, ...]:
        return tuple(v for v in self.violations if v.best_practice)

    @property
    def wcag_failure_nodes(self) -> int:
        return sum(v.node_count for v in self.wcag_failures)

    @property
    def best_practice_nodes(self) -> int:
        return sum(v.node_count for v in self.best_practice_findings)

    def failing_rule_ids(self) -> tuple[str, ...]:
        return tuple(sorted({v.rule_id for v in self.violations}))


@dataclass(frozen=True)
class CheckResult:
    id: str
    type: CheckType
    description: str
    outcome: CheckStatus
    message: str
    duration_ms: float = 0.0


@dataclass(frozen=True)
class Environment:
    axe_version: str
    chromium_version: str
    viewport: tuple[int, int]
    axe_tags: tuple[str, ...]
    evaluator_version: str
    timeout_s: float


@dataclass(frozen=True)
class Timings:
    render_ms: float = 0.0
    axe_ms: float = 0.0
    checks_ms: float = 0.0
    total_ms: float = 0.0


@dataclass(frozen=True)
class PageEvents:
    """What the page tried to do that the sandbox stopped or noted."""

    console_errors: tuple[str, ...] = ()
    page_errors: tuple[str, ...] = ()
    blocked_requests: tuple[str, ...] = ()
    blocked_navigations: tuple[str, ...] = ()
    popup_urls: tuple[str, ...] = ()
    dialogs: int = 0
    popups: int = 0
    # What the evaluator had to change in the input before a browser could take it (lone
    # surrogate code points replaced with U+FFFD); empty when the page was rendered as given.
    input_repairs: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuditCoverage:
    """What the audit of one sample reached, and how late it looked.

    A sample may pass only on what was audited: ``unaudited`` names content that exists on the
    page but that neither axe nor the checks could see (a frame that could not be entered, an
    ``<object>`` or ``<embed>`` document, a shadow root that could not be reached); scoring fails
    a sample for each. ``frames_audited`` counts frames whose documents axe audited in their own
    isolated world; ``closed_shadow_roots`` counts closed shadow roots opened to the audit.

    ``horizon_ms`` is how long after the load event the page had run when its last audit of the
    first-rendered document began (changes the page makes later are not seen), and
    ``late_audit`` says what happened at the horizon: ``re-audited`` (the page had changed or could
    have changed unseen, so axe ran again), ``unchanged`` (nothing had changed; the first audit
    stands) or ``none`` (no late audit: the evaluation ended first). ``recorded`` is False for
    observations written before coverage was recorded: they say nothing about it.
    """

    recorded: bool = False
    frames_audited: int = 0
    closed_shadow_roots: int = 0
    unaudited: tuple[str, ...] = ()
    horizon_ms: float | None = None
    late_audit: str = "none"


@dataclass(frozen=True)
class Observation:
    """Everything the evaluator recorded for one (case, html) pair.

    ``status`` is about the evaluation, not the page: ``ok`` when axe and every check ran to
    the end, ``timeout`` when the page used up the time budget, ``error`` when the page could
    not be evaluated (renderer crash, oversized input, ...). ``error`` says why in words.
    """

    case_id: str | None
    case_version: str | None
    status: EvalStatus
    error: str | None
    html_sha256: str
    html_bytes: int
    axe: AxeResult
    checks: tuple[CheckResult, ...]
    environment: Environment | None
    timings: Timings
    events: PageEvents = field(default_factory=PageEvents)
    screenshot: str | None = None
    audit: AuditCoverage = field(default_factory=AuditCoverage)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Observation:
        axe = data.get("axe") or {}
        env = data.get("environment")
        return cls(
            case_id=data.get("case_id"),
            case_version=data.get("case_version"),
            status=data["status"],
            error=data.get("error"),
            html_sha256=data.get("html_sha256", ""),
            html_bytes=int(data.get("html_bytes", 0)),
            axe=AxeResult(
                violations=tuple(_finding(f) for f in axe.get("violations", ())),
                incomplete=tuple(_finding(f) for f in axe.get("incomplete", ())),
                states=tuple(axe.get("states", ())),
            ),
            checks=tuple(CheckResult(**c) for c in data.get("checks", ())),
            environment=None
            if env is None
            else Environment(
                axe_version=env["axe_version"],
                chromium_version=env["chromium_version"],
                viewport=(int(env["viewport"][0]), int(env["viewport"][1])),
                axe_tags=tuple(env["axe_tags"]),
                evaluator_version=env["evaluator_version"],
                timeout_s=float(env["timeout_s"]),
            ),
            timings=Timings(**data.get("timings", {})),
            events=_events(data.get("events") or {}),
            screenshot=data.get("screenshot"),
            audit=_coverage(data.get("audit") or {}),
        )


def _coverage(data: dict[str, Any]) -> AuditCoverage:
    horizon = data.get("horizon_ms")
    return AuditCoverage(
        recorded=bool(data.get("recorded", False)),
        frames_audited=int(data.get("frames_audited", 0)),
        closed_shadow_roots=int(data.get("closed_shadow_roots", 0)),
        unaudited=tuple(data.get("unaudited", ())),
        horizon_ms=None if horizon is None else float(horizon),
        late_audit=str(data.get("late_audit", "none")),
    )


def _events(data: dict[str, Any]) -> PageEvents:
    return PageEvents(
        console_errors=tuple(data.get("console_errors", ())),
        page_errors=tuple(data.get("page_errors", ())),
        blocked_requests=tuple(data.get("blocked_requests", ())),
        blocked_navigations=tuple(data.get("blocked_navigations", ())),
        popup_urls=tuple(data.get("popup_urls", ())),
        dialogs=int(data.get("dialogs", 0)),
        popups=int(data.get("popups", 0)),
        input_repairs=tuple(data.get("input_repairs", ())),
    )


def _finding(data: dict[str, Any]) -> AxeFinding:
    return AxeFinding(
        rule_id=data["rule_id"],
        impact=data.get("impact"),
        tags=tuple(data.get("tags", ())),
        help=data.get("help", ""),
        help_url=data.get("help_url", ""),
        nodes=tuple(
            AxeNode(
                html=n.get("html", ""),
                target=tuple(n.get("target", ())),
                failure_summary=n.get("failure_summary", ""),
                impact=n.get("impact"),
            )
            for n in data.get("nodes", ())
        ),
        node_count=int(data.get("node_count", len(data.get("nodes", ())))),
        state=data.get("state", "initial"),
    )
