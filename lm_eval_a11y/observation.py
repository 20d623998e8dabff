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
ContrastAxe = Literal["violation", "incomplete", "pass"]
PixelVerdict = Literal["pass", "fail", "unmeasurable"]
ContrastDecision = Literal["pass", "fail", "incomplete"]

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
    """One node an axe rule reported; ``state`` is the first audited state it was seen in
    (``initial``, ``late``, ``changing`` or the action that showed it, e.g.
    ``after click on button "Open"``)."""

    html: str
    target: tuple[str, ...]
    failure_summary: str = ""
    impact: str | None = None
    state: str = "initial"


@dataclass(frozen=True)
class AxeFinding:
    """One axe rule that reported nodes, merged over the sample's axe runs: ``states`` names the
    audited states it reported nodes in, in the order they were merged (each node says its own)."""

    rule_id: str
    impact: str | None
    tags: tuple[str, ...]
    help: str
    help_url: str
    nodes: tuple[AxeNode, ...]
    node_count: int
    states: tuple[str, ...] = ("initial",)

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
class ContrastNode:
    """One node axe's ``color-contrast`` rule failed or could not decide, or text it passed or
    did not list (``axe == "pass"``), measured on the pixels.

    ``axe`` is axe's own answer and ``axe_ratio`` its ratio (None when it could not compute one);
    ``pixel_ratio`` is the worst contrast between the text and the background under its glyphs
    as rendered, against ``required`` (4.5, or 3 for large text). ``decided`` is the outcome
    that counts and ``decided_by`` which of the two gave it (see docs/contrast.md).
    """

    scheme: str
    target: tuple[str, ...]
    axe: ContrastAxe
    axe_ratio: float | None
    axe_reason: str | None
    required: float | None
    pixel_ratio: float | None
    pixel: PixelVerdict
    decided: ContrastDecision
    decided_by: Literal["pixels", "axe"]
    note: str = ""
    # The audited state the node was measured in (as AxeNode.state).
    state: str = "initial"

    @property
    def overturned(self) -> bool:
        """axe failed it and the pixels clear it."""
        return self.axe == "violation" and self.decided == "pass"

    @property
    def resolved(self) -> bool:
        """axe could not tell and the pixels decided."""
        return self.axe == "incomplete" and self.decided_by == "pixels"


@dataclass(frozen=True)
class ContrastAudit:
    """The pixel check of one sample's colour contrast, per colour scheme audited.

    ``schemes`` lists the schemes whose contrast was audited (``light`` always; ``dark`` too when
    the page styles a dark scheme). ``axe_violations`` counts, per scheme, the nodes axe's
    ``color-contrast`` rule failed in that audit; those past the measuring limit are in
    ``unmeasured_violations`` and ``unmeasured_incomplete`` and keep axe's answer.
    ``unaudited_incomplete`` counts axe's "can't tell" nodes the check did not reach (past its
    node limit, its screens or its share of the time) or failed to measure (repainted while
    captured, gone from where it was captured, or all of them when the check broke: ``error``
    says how), and measured text drawn over another element's text that its pixels did not
    fail: their contrast is not audited, and the sample does not pass on them.
    """

    schemes: tuple[str, ...] = ("light",)
    nodes: tuple[ContrastNode, ...] = ()
    axe_violations: tuple[tuple[str, int], ...] = ()
    unmeasured_violations: int = 0
    unmeasured_incomplete: int = 0
    unaudited_incomplete: int = 0
    styles_dark_scheme: bool = False
    error: str | None = None

    def violations_in(self, scheme: str) -> int:
        return dict(self.axe_violations).get(scheme, 0)

    @property
    def overturned(self) -> int:
        return sum(n.overturned for n in self.nodes)

    @property
    def resolved_pass(self) -> int:
        return sum(n.resolved and n.decided == "pass" for n in self.nodes)

    @property
    def resolved_fail(self) -> int:
        return sum(n.resolved and n.decided == "fail" for n in self.nodes)

    @property
    def still_incomplete(self) -> int:
        """Nodes axe could not tell whose pixels could not be measured either."""
        return sum(n.decided == "incomplete" for n in self.nodes) + self.unmeasured_incomplete

    @property
    def failing_targets(self) -> frozenset[tuple[str, ...]]:
        """The nodes whose decided outcome is a failure, in any scheme (each node once)."""
        return frozenset(n.target for n in self.nodes if n.decided == "fail")


@dataclass(frozen=True)
class Environment:
    axe_version: str
    chromium_version: str
    viewport: tuple[int, int]
    axe_tags: tuple[str, ...]
    evaluator_version: str
    timeout_s: float
    # The colour scheme the page was rendered and audited in; a page that styles a dark scheme
    # also has its contrast audited in dark (Observation.contrast.schemes).
    prefers_color_scheme: str = "light"
    # What held the browser's memory ceiling: "cgroup v1"/"cgroup v2" (the kernel, a hard limit) or
    # "watchdog" (best effort between readings); docs/isolation.md.
    memory_ceiling: str = "watchdog"


@dataclass(frozen=True)
class Timings:
    render_ms: float = 0.0
    axe_ms: float = 0.0
    checks_ms: float = 0.0
    total_ms: float = 0.0
    contrast_ms: float = 0.0
    # Settles after an action that their safety bound (5 s) stopped while an animation was still
    # running: only a machine starved for seconds gets there, and a read after one may precede
    # what the page does when its animation ends (docs/settling.md).
    settle_stalls: int = 0
    # Time spent reloading the page for the evaluator's own steps (a fresh page for a check, a
    # condition, the visitor's walk): it extends the time budget, by at most the budget again.
    reload_ms: float = 0.0


@dataclass(frozen=True)
class LibraryRequest:
    """A request of the page for a library on a public CDN (engine/cdn_mirror.py).

    ``outcome`` is ``served`` (from the local mirror), ``substituted`` (another version of the same
    major asked for; the mirrored one answered) or ``not mirrored`` (blocked; ``reason`` says why).
    ``library`` names the package, ``requested`` the version the URL asked for (``""``: none),
    ``version`` the one served and ``file`` the file that answered, relative to
    ``evaluator/node_modules``. ``font`` marks a web font host's request: not mirrored, and the
    text renders in the page's fallback font, so it fails nothing.
    """

    url: str
    outcome: str
    library: str
    requested: str = ""
    version: str = ""
    file: str = ""
    reason: str = ""
    font: bool = False

    @property
    def mirrored(self) -> bool:
        return self.outcome in ("served", "substituted")

    @property
    def fails_page(self) -> bool:
        """A library the page asked for that it did not get: the page was not rendered as a
        visitor sees it."""
        return not self.mirrored and not self.font


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
    # The page's requests for libraries on public CDNs: served from the mirror, or not.
    libraries: tuple[LibraryRequest, ...] = ()


@dataclass(frozen=True)
class AuditCoverage:
    """What the audit of one sample reached, and how late it looked.

    A sample may pass only on what was audited: ``unaudited`` names content that exists on the
    page but that neither axe nor the checks could see (a frame that could not be entered, an
    ``<object>`` or ``<embed>`` document, a shadow root that could not be reached); scoring fails
    a sample for each. ``frames_audited`` counts frames whose documents axe audited in their own
    isolated world; ``closed_shadow_roots`` counts closed shadow roots opened to the audit.

    ``horizon_ms`` is how long after the navigation the page had run when its last audit of the
    first-rendered document began (changes the page makes later are not seen), on the clock
    ``clock`` names: ``virtual`` (the page's own clock, run ahead: its timers, ``Date`` and
    ``performance.now()``; animation frames and CSS animations ran in real time for
    ``frames_ms`` of wall time after the run ahead, see docs/trust.md), ``wall`` (records written
    before the page had a clock of its own) or ``none`` (no late audit). ``input_gap_ms`` is the
    least time of the page's clock between two key presses of a keyboard walk. And
    ``late_audit`` says what happened at the horizon: ``re-audited`` (the page had changed or could
    have changed unseen, so axe ran again), ``unchanged`` (nothing had changed; the first audit
    stands) or ``none`` (no late audit: the evaluation ended first). ``states_audited`` counts the
    further states axe audited because the page changed itself before the horizon (content a timer
    shows and hides; their findings have the state ``changing``). ``action_states`` counts the
    states the case's checks showed by acting (a dialog opened, a panel expanded) that were
    audited like the first screen (their findings name the action, e.g. ``after click on button
    "Open"``), and ``action_states_unaudited`` the new states past the bound on those audits
    (engine/states.py). ``recorded`` is False for observations written before coverage was
    recorded: they say nothing about it.

    ``skipped`` names the steps that did not run because the evaluation stopped at the page's
    first decided failure (``EvaluatorSettings.stop_at_first_failure``): ``contrast``, ``late
    audit``, ``check <id>``. Such an observation is partial: its verdict is a failure (scoring
    fails it whatever else it holds), and its counts are those of the steps that ran.
    """

    recorded: bool = False
    frames_audited: int = 0
    closed_shadow_roots: int = 0
    unaudited: tuple[str, ...] = ()
    horizon_ms: float | None = None
    late_audit: str = "none"
    states_audited: int = 0
    action_states: int = 0
    action_states_unaudited: int = 0
    skipped: tuple[str, ...] = ()
    clock: str = "none"
    frames_ms: float = 0.0
    input_gap_ms: float = 0.0

    @property
    def partial(self) -> bool:
        """The evaluation stopped at the page's first decided failure; some steps did not run."""
        return bool(self.skipped)


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
    # The pixel check of axe's colour-contrast failures and "can't tell" nodes; None when there
    # was nothing to check or the record predates it.
    contrast: ContrastAudit | None = None
    # Characters of text the page showed as first rendered: letters, digits, punctuation and
    # symbols of text a person can see (not hidden, not transparent, laid out with a size), in
    # the document and its open shadow trees. None when the page was never read that far, or the
    # record predates it.
    text_chars: int | None = None

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
                prefers_color_scheme=str(env.get("prefers_color_scheme", "light")),
                memory_ceiling=str(env.get("memory_ceiling", "watchdog")),
            ),
            timings=Timings(**data.get("timings", {})),
            events=_events(data.get("events") or {}),
            screenshot=data.get("screenshot"),
            audit=_coverage(data.get("audit") or {}),
            contrast=_contrast(data["contrast"]) if data.get("contrast") else None,
            text_chars=None if data.get("text_chars") is None else int(data["text_chars"]),
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
        states_audited=int(data.get("states_audited", 0)),
        skipped=tuple(str(step) for step in data.get("skipped") or ()),
        action_states=int(data.get("action_states", 0)),
        action_states_unaudited=int(data.get("action_states_unaudited", 0)),
        clock=str(data.get("clock", "none" if horizon is None else "wall")),
        frames_ms=float(data.get("frames_ms", 0.0)),
        input_gap_ms=float(data.get("input_gap_ms", 0.0)),
    )


def _contrast(data: dict[str, Any]) -> ContrastAudit:
    def number(value: Any) -> float | None:
        return None if value is None else float(value)

    return ContrastAudit(
        schemes=tuple(data.get("schemes", ("light",))),
        nodes=tuple(
            ContrastNode(
                scheme=n["scheme"],
                target=tuple(n.get("target", ())),
                axe=n["axe"],
                axe_ratio=number(n.get("axe_ratio")),
                axe_reason=n.get("axe_reason"),
                required=number(n.get("required")),
                pixel_ratio=number(n.get("pixel_ratio")),
                pixel=n["pixel"],
                decided=n["decided"],
                decided_by=n["decided_by"],
                note=n.get("note", ""),
                state=str(n.get("state") or "initial"),
            )
            for n in data.get("nodes", ())
        ),
        axe_violations=tuple((str(k), int(v)) for k, v in data.get("axe_violations", ())),
        unmeasured_violations=int(data.get("unmeasured_violations", 0)),
        unmeasured_incomplete=int(data.get("unmeasured_incomplete", 0)),
        unaudited_incomplete=int(data.get("unaudited_incomplete", 0)),
        styles_dark_scheme=bool(data.get("styles_dark_scheme", False)),
        error=data.get("error"),
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
        libraries=tuple(
            LibraryRequest(
                url=str(item.get("url", "")),
                outcome=str(item.get("outcome", "not mirrored")),
                library=str(item.get("library", "")),
                requested=str(item.get("requested", "")),
                version=str(item.get("version", "")),
                file=str(item.get("file", "")),
                reason=str(item.get("reason", "")),
                font=bool(item.get("font", False)),
            )
            for item in data.get("libraries") or ()
            if isinstance(item, dict)
        ),
    )


def _finding(data: dict[str, Any]) -> AxeFinding:
    # Records written before states were a list keep them comma-joined in ``state`` (their
    # labels never held a comma); a node of such a record was first seen in the first of them.
    if "states" in data:
        states = tuple(str(s) for s in data["states"] or ())
    else:
        states = tuple(s for s in str(data.get("state") or "initial").split(",") if s) or ("initial",)
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
                state=str(n.get("state") or states[0]),
            )
            for n in data.get("nodes", ())
        ),
        node_count=int(data.get("node_count", len(data.get("nodes", ())))),
        states=states,
    )
