"""Observations survive JSON unchanged, and axe's WCAG tags become success-criterion numbers.

The golden file was written from a real evaluation (tests/pages/reveal-photo.html plus a label,
contrast and heading problem, with the test-only ``fixturestate`` case), so it holds every part an
observation can have: two axe states, a best-practice finding, an incomplete result, checks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lm_eval_a11y.observation import Observation, PageEvents, wcag_criteria

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "observations" / "reveal-photo.json"


def _golden() -> dict[str, object]:
    data: dict[str, object] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


CONTRAST = GOLDEN.with_name("contrast-long-dark.json")


def test_round_trip_through_json_is_exact() -> None:
    # The golden file predates the pixel check of colour contrast, the memory cgroup, the count
    # of stalled settles, the audits of changing states and the early stop's skipped steps: their
    # fields come back at their defaults (an old record's ceiling was the watchdog's), everything
    # else exactly as written.
    data = _golden()
    obs = Observation.from_dict(data)
    newer = json.loads(json.dumps(obs.to_dict()))
    assert newer.pop("contrast") is None
    assert newer.pop("text_chars") is None
    assert newer["timings"].pop("contrast_ms") == 0.0
    assert newer["timings"].pop("settle_stalls") == 0
    assert newer["timings"].pop("reload_ms") == 0.0  # written before reloads were timed apart
    assert newer["environment"].pop("prefers_color_scheme") == "light"
    assert newer["environment"].pop("memory_ceiling") == "watchdog"
    assert newer["audit"].pop("states_audited") == 0
    assert newer["audit"].pop("skipped") == []
    assert newer["events"].pop("libraries") == []  # written before the CDN mirror
    assert newer["audit"].pop("action_states") == 0
    assert newer["audit"].pop("action_states_unaudited") == 0
    # No late audit is recorded in it, so no clock either.
    assert (newer["audit"].pop("clock"), newer["audit"].pop("frames_ms"), newer["audit"].pop("input_gap_ms")) == (
        "none",
        0.0,
        0.0,
    )
    # Its findings name their states comma-joined in ``state``; they come back as a list, and each
    # node names the first of them.
    for finding in (*newer["axe"]["violations"], *newer["axe"]["incomplete"]):
        states = finding.pop("states")
        assert [n.pop("state") for n in finding["nodes"]] == [states[0]] * len(finding["nodes"])
        finding["state"] = ",".join(states)
    assert newer == data
    assert Observation.from_dict(json.loads(json.dumps(obs.to_dict()))) == obs


def test_round_trip_of_a_pixel_checked_observation_is_exact() -> None:
    # Written from a real evaluation of tests/contrast/pages/long-canvas.html with a dim dark
    # scheme added: two of axe's failures overturned, a "can't tell" resolved in each scheme.
    data = json.loads(CONTRAST.read_text(encoding="utf-8"))
    obs = Observation.from_dict(data)
    newer = json.loads(json.dumps(obs.to_dict()))
    assert newer["environment"].pop("memory_ceiling") == "watchdog"  # written before the cgroup
    assert newer.pop("text_chars") is None  # and before the text shown was counted
    assert newer["timings"].pop("settle_stalls") == 0  # and before stalls were counted
    assert newer["timings"].pop("reload_ms") == 0.0  # and before reloads were timed apart
    assert newer["audit"].pop("states_audited") == 0  # and before changing states were audited
    assert newer["audit"].pop("skipped") == []  # and before the early stop
    assert newer["events"].pop("libraries") == []  # and before the CDN mirror
    assert newer["audit"].pop("action_states") == 0  # and before the states checks show were
    assert newer["audit"].pop("action_states_unaudited") == 0
    assert newer["audit"].pop("clock") == "none"  # and before the page's clock (no horizon recorded)
    assert (newer["audit"].pop("frames_ms"), newer["audit"].pop("input_gap_ms")) == (0.0, 0.0)
    assert {n.pop("state") for n in newer["contrast"]["nodes"]} == {"initial"}
    assert newer["contrast"].pop("unaudited_incomplete") == 0  # and before unreached nodes were counted
    for finding in (*newer["axe"]["violations"], *newer["axe"]["incomplete"]):
        states = finding.pop("states")
        assert {n.pop("state") for n in finding["nodes"]} <= {states[0]}
        finding["state"] = ",".join(states)
    assert newer == data
    audit = obs.contrast
    assert audit is not None and audit.schemes == ("light", "dark")
    assert (audit.overturned, audit.resolved_pass, audit.resolved_fail, audit.still_incomplete) == (2, 1, 1, 0)
    assert audit.failing_targets == {("#first-screen",)}
    assert obs.environment is not None and obs.environment.prefers_color_scheme == "light"


def test_golden_observation_reads_back_with_its_meaning() -> None:
    obs = Observation.from_dict(_golden())
    assert obs.status == "ok" and obs.error is None
    assert obs.case_id == "fixturestate"
    assert obs.axe.states == ("initial", "photo shown")
    assert [f.rule_id for f in obs.axe.wcag_failures] == ["color-contrast", "image-alt", "label"]
    assert [f.rule_id for f in obs.axe.best_practice_findings] == ["heading-order"]
    assert obs.axe.wcag_failure_nodes == 3
    assert [f.rule_id for f in obs.axe.incomplete] == ["color-contrast"]
    image_alt = next(f for f in obs.axe.violations if f.rule_id == "image-alt")
    assert image_alt.states == ("photo shown",)
    assert image_alt.wcag == ("1.1.1",)
    assert image_alt.nodes[0].target == ("#photo",)
    assert [(c.id, c.type, c.outcome) for c in obs.checks] == [
        ("reset-gives-fresh-page", "R", "pass"),
        ("axe-in-open-state", "R", "pass"),
    ]
    assert obs.environment is not None
    assert obs.environment.viewport == (1280, 800)
    assert obs.environment.axe_tags == ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice")


def test_older_observations_without_newer_fields_still_load() -> None:
    data = _golden()
    events = dict(data["events"])  # type: ignore[call-overload]
    del events["popup_urls"]
    minimal = {"status": "error", "error": "boom", "axe": {}, "environment": None, "events": events}
    obs = Observation.from_dict(minimal)
    assert obs.status == "error" and obs.error == "boom"
    assert obs.events == PageEvents()
    assert obs.axe.violations == () and obs.checks == ()


@pytest.mark.parametrize(
    ("tags", "criteria"),
    [
        (["wcag111"], ("1.1.1",)),
        (["wcag143", "wcag2aa"], ("1.4.3",)),
        (["wcag1410", "wcag21aa"], ("1.4.10",)),
        (["wcag2411", "wcag22aa"], ("2.4.11",)),
        (["cat.aria", "wcag412", "wcag131", "best-practice"], ("4.1.2", "1.3.1")),
        (["wcag2a", "wcag21a", "wcag22aa", "best-practice", "section508.22.a", "EN-9.1.4.3"], ()),
        ((), ()),
    ],
)
def test_wcag_criteria_from_axe_tags(tags: list[str], criteria: tuple[str, ...]) -> None:
    assert wcag_criteria(tags) == criteria


def test_an_old_record_reads_back_with_its_states() -> None:
    """Records written with comma-joined ``state`` strings read back as lists."""
    old = {
        "status": "ok",
        "axe": {
            "violations": [
                {
                    "rule_id": "image-alt",
                    "impact": "critical",
                    "tags": ["wcag2a", "wcag111"],
                    "help": "Images must have alternative text",
                    "help_url": "",
                    "nodes": [{"html": "<img>", "target": ["img"]}],
                    "node_count": 1,
                    "state": "initial,late",
                }
            ],
            "states": ["initial", "late"],
        },
    }
    obs = Observation.from_dict(old)
    (finding,) = obs.axe.violations
    assert finding.states == ("initial", "late")
    assert finding.nodes[0].state == "initial"
