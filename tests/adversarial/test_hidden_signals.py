"""What a page can read about the browser that evaluates it.

A page that recognises the evaluator can repair itself for the audit only. The signals hidden
here are asserted one by one; the ones that remain are asserted as they are, so that a Chromium
upgrade that changes one shows up here and ``docs/trust.md`` (which lists them) is kept true.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tab_support import slot_tab

from lm_eval_a11y.cases import load_case
from lm_eval_a11y.engine.disguise import DESKTOP_SCREEN, TASKBAR_HEIGHT, TIME_ZONE
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings

HERE = Path(__file__).resolve().parent
SIGNALS_PAGE = (HERE / "signals.html").read_text(encoding="utf-8")
TRUST_DOC = HERE.parents[1] / "docs" / "trust.md"


@pytest.fixture(scope="module")
def seen() -> Iterator[list[dict[str, Any]]]:
    """The signals of three samples evaluated one after another on one tab (one slot, no waiting
    slots, one ``evaluate`` at a time), so that what a sample set is there for the next to read
    unless the evaluator removed it."""
    case = load_case(HERE / "fixtures" / "cases" / "signals")
    with Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=20)) as ev:
        observations = []
        for _ in range(3):
            observations.append(ev.evaluate(case, SIGNALS_PAGE))
            TABS.append(slot_tab(ev))
    records = []
    for obs in observations:
        assert obs.status == "ok", obs.error
        (check,) = obs.checks
        assert check.outcome == "pass", check.message
        records.append({k: _value(v) for k, v in json.loads(check.message).items()})
    yield records


# The tab each sample of ``seen`` ran on.
TABS: list[object] = []


def test_the_samples_ran_on_one_tab(seen: list[dict[str, Any]]) -> None:
    """The premise of the cross-sample asserts below: the three samples ran on one tab."""
    assert len(TABS) == 3 and TABS[0] is TABS[1] is TABS[2], TABS


def test_the_history_is_a_new_tabs_for_every_sample(seen: list[dict[str, Any]]) -> None:
    """A reused tab's history would grow with each sample (by two: the blank page it departs to
    and the next document), and a page could read it to tell the evaluator from a visitor. Each
    sample sees a new tab's: the blank page and its own document."""
    assert [s["history"] for s in seen] == [2, 2, 2], seen


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def test_automation_and_headless_are_not_visible(seen: list[dict[str, Any]]) -> None:
    for signals in seen:
        assert signals["webdriver"] is False
        assert "headless" not in signals["user-agent"].lower()
        assert "headless" not in signals["app-version"].lower()
        assert re.search(r"Chrome/\d+\.0\.0\.0 Safari", signals["user-agent"])
        brands = [b["brand"] for b in signals["brands"]]
        assert "Chromium" in brands
        assert not any("headless" in b.lower() for b in brands)


def test_screen_is_a_desktop_monitor(seen: list[dict[str, Any]]) -> None:
    for signals in seen:
        assert signals["screen"] == list(DESKTOP_SCREEN)
        # A taskbar takes the bottom of the screen; the window is not at its corner.
        assert signals["avail"] == [DESKTOP_SCREEN[0], DESKTOP_SCREEN[1] - TASKBAR_HEIGHT]
        assert signals["position"] != [0, 0]
        assert signals["inner"] == [1280, 800]


def test_a_desktop_s_time_zone_connection_and_devices(seen: list[dict[str, Any]]) -> None:
    for signals in seen:
        assert signals["time-zone"] == TIME_ZONE != "UTC"
        assert signals["language"] == "en-US"
        assert signals["rtt"] > 0


def test_origin_looks_like_a_site_and_each_sample_has_its_own(seen: list[dict[str, Any]]) -> None:
    origins = [s["origin"] for s in seen]
    for origin in origins:
        # https, a host name under an ordinary top-level domain, no port.
        assert re.fullmatch(r"https://[a-z0-9-]+\.[a-z-]+\.(com|net|org|io|co|dev|app)", origin), origin
    assert len(set(origins)) == len(origins)
    for signals in seen:
        assert signals["secure"] is True
        # Each sample stores its origin and sets a cookie; on the same tab (see
        # test_the_samples_ran_on_one_tab) neither reaches the sample after it.
        assert signals["local-storage"] is None
        assert signals["cookie"] == ""


def test_remaining_signals_are_as_documented(seen: list[dict[str, Any]]) -> None:
    """The signals that stay visible, as docs/trust.md lists them."""
    doc = TRUST_DOC.read_text(encoding="utf-8")
    signals = seen[0]
    assert signals["plugins"] == 0 and "navigator.plugins" in doc
    assert signals["window-chrome"] == "undefined" and "window.chrome" in doc
    assert signals["outer"] == signals["inner"] and "outerWidth" in doc
    assert signals["notification"] == "denied" and "Notification.permission" in doc
    assert signals["pdf-viewer"] is False and "pdfViewerEnabled" in doc
    assert "SwiftShader" in str(signals["webgl"]) and "SwiftShader" in doc
