"""What the audit reached is part of the observation, and content it could not reach fails the
sample: pure scoring, no browser."""

from __future__ import annotations

import json
from pathlib import Path

from lm_eval_a11y.observation import AuditCoverage, AxeResult, Observation, Timings
from lm_eval_a11y.scoring import score_observation

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "observations" / "reveal-photo.json"


def _obs(audit: AuditCoverage) -> Observation:
    return Observation(
        case_id=None,
        case_version=None,
        status="ok",
        error=None,
        html_sha256="",
        html_bytes=0,
        axe=AxeResult(),
        checks=(),
        environment=None,
        timings=Timings(),
        audit=audit,
    )


def test_unaudited_content_fails_a_clean_sample_and_says_what() -> None:
    what = "1 embedded document(s) axe cannot enter (<object>, <embed> or a frame out of reach)"
    score = score_observation(_obs(AuditCoverage(recorded=True, unaudited=(what,))))
    assert not score.passed
    assert score.axe_clean  # axe found nothing: the failure is the coverage's, and says so
    assert score.reasons == (f"content could not be audited: {what}",)


def test_fully_audited_sample_passes() -> None:
    audit = AuditCoverage(
        recorded=True, frames_audited=2, closed_shadow_roots=1, horizon_ms=1000.0, late_audit="re-audited"
    )
    assert score_observation(_obs(audit)).passed


def test_coverage_round_trips_through_json() -> None:
    audit = AuditCoverage(
        recorded=True,
        frames_audited=1,
        closed_shadow_roots=3,
        unaudited=("x",),
        horizon_ms=1002.5,
        late_audit="unchanged",
        states_audited=2,
    )
    obs = _obs(audit)
    assert Observation.from_dict(json.loads(json.dumps(obs.to_dict()))) == obs


def test_observations_from_before_coverage_load_and_score_as_before() -> None:
    """``rescore --from-observations`` reads records written before ``audit`` existed."""
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    del data["audit"]
    obs = Observation.from_dict(data)
    assert obs.audit == AuditCoverage()
    assert not obs.audit.recorded and obs.audit.horizon_ms is None
    assert (
        score_observation(obs).reasons
        == score_observation(Observation.from_dict(json.loads(GOLDEN.read_text()))).reasons
    )


def test_markup_that_can_change_itself_is_waited_for() -> None:
    from lm_eval_a11y.engine.audit import may_change_itself

    assert not may_change_itself('<main><h1>Hi</h1><img src="data:image/png;base64,AA==" alt="x"></main>')
    for dynamic in (
        "<script>setTimeout(f, 300)</script>",
        '<body onload="f()">',
        '<a href="javascript:f()">x</a>',
        "<style>.x { animation: show 0s 1s forwards }</style>",
        "<style>.x { transition: opacity 1s }</style>",
        '<svg><set attributeName="visibility" to="visible" begin="1s"/></svg>',
        '<iframe srcdoc="x"></iframe>',
        '<iframe src="data:text/html,%3Cscript%3E"></iframe>',
        # HTML needs no space before an attribute: after a slash or the quote that ends the last.
        '<img src="x.png"/onerror="f()">',
        '<img src="x.png"onerror="f()">',
        "<svg/onload=f()>",
        # A frame's source hidden from the text by character references or a tab URL parsing drops.
        '<iframe src="&#100;ata:text/html,%3Cp%3E"></iframe>',
        '<iframe src="da\tta:text/html,x"></iframe>',
        '<frameset><frame src="x"></frameset>',
        '<object data="x"></object>',
        '<embed src="x">',
        "<style>@keyframes show { to { opacity: 1 } }</style>",
        '<svg><discard begin="2s"/></svg>',
    ):
        assert may_change_itself(dynamic), dynamic
    # What only the parsed document shows (escapes, character references) is the probe's to read:
    # tests/adversarial/pages/fail-late-escaped-css-animation.html and its neighbours.
    assert not may_change_itself('<style>.x { anim\\61tion: s 0s 1s forwards }</style>')


def test_closed_shadow_root_search_skips_only_pages_that_cannot_have_one() -> None:
    from lm_eval_a11y.engine.audit import may_have_closed_shadow_roots

    assert not may_have_closed_shadow_roots("<main><p>static</p></main>")
    assert may_have_closed_shadow_roots('<div><template shadowrootmode="closed"><p>x</p></template></div>')
    assert may_have_closed_shadow_roots("<script>el['attach' + 'Shadow']({mode: 'closed'})</script>")
    # However large the page, and whatever its script calls what it calls (a large document is
    # counted before it is snapshotted: hidden_nodes.py).
    big_static = "<p>word</p>" * 30_000
    assert not may_have_closed_shadow_roots(big_static)
    assert may_have_closed_shadow_roots(big_static + "<script>f()</script>")
    assert may_have_closed_shadow_roots(big_static + "<script>el.attachShadow({mode: 'closed'})</script>")
