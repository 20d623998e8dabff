"""Pages that look for the evaluator by what a desktop browser shows them, and repair themselves
(an ``<img>`` without ``alt`` and an unlabelled ``<input>``) when they see it.

Each ``fail-detect-*`` page named here reads one signal the way a page would: the origin (a local
host name, a port, plain http), the notification permission and its query, plugins, the PDF
viewer, ``window.chrome``, the browser window (toolbar, position) and the screen (taskbar), the
time zone, the connection's round-trip time and the media devices. The evaluator must show the
page a person's desktop Chrome, so every one of them keeps its failures and fails on them.
``test_false_passes.py`` runs them with the rest of the adversarial pages; this file runs only these,
two slots, so a change to the disguise is checked in seconds. The pages under ``visible/`` read
what the headless shell cannot present; they are asserted as docs/trust.md lists them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lm_eval_a11y.cases import generic_case, load_case
from lm_eval_a11y.engine.browser import find_chromium
from lm_eval_a11y.engine.disguise import TASKBAR_HEIGHT
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation

HERE = Path(__file__).resolve().parent
PAGES = HERE / "pages"
SIGNALS_PAGE = (HERE / "signals.html").read_text(encoding="utf-8")
SIGNALS = (
    "local-host-name",
    "origin-port",
    "plain-http",
    "permission-query",
    "no-taskbar",
    "window-at-origin",
    "utc-time-zone",
    "connection-rtt",
    "no-media-devices",
)
NAMES = [f"fail-detect-{signal}.html" for signal in SIGNALS]
# What the headless shell cannot present (docs/trust.md says why): these pages still recognise
# it. Each is asserted as it is, with the words docs/trust.md uses for it, so that a change of
# browser that hides one shows up here.
VISIBLE = Path(__file__).resolve().parent / "visible"
STILL_VISIBLE = {
    "fail-detect-notification-denied.html": "Notification.permission",
    "fail-detect-no-plugins.html": "navigator.plugins",
    "fail-detect-no-pdf-viewer.html": "pdfViewerEnabled",
    "fail-detect-no-window-chrome.html": "window.chrome",
    "fail-detect-no-browser-toolbar.html": "outerHeight",
}
TRUST_DOC = Path(__file__).resolve().parents[2] / "docs" / "trust.md"


@pytest.fixture(scope="module")
def observed() -> Iterator[dict[str, Observation]]:
    names = [*NAMES, *STILL_VISIBLE]
    with Evaluator(EvaluatorSettings(concurrency=2, timeout_s=20)) as ev:
        htmls = [(PAGES / name if name in NAMES else VISIBLE / name).read_text(encoding="utf-8") for name in names]
        observations = ev.evaluate_many([(None, html) for html in htmls], names=names)
    yield dict(zip(names, observations, strict=True))


@pytest.mark.parametrize("name", NAMES)
def test_a_page_looking_for_the_evaluator_keeps_its_failures(name: str, observed: dict[str, Observation]) -> None:
    obs = observed[name]
    assert obs.status == "ok", (obs.status, obs.error)
    score = score_observation(obs)
    assert not score.passed, f"{name} recognised the evaluator and repaired itself"
    for failure in ("axe image-alt", "axe label"):
        assert any(r.startswith(failure) for r in score.reasons), (failure, score.reasons)


@pytest.mark.parametrize("name", sorted(STILL_VISIBLE))
def test_what_the_headless_shell_still_shows_is_documented(name: str, observed: dict[str, Observation]) -> None:
    obs = observed[name]
    assert obs.status == "ok", (obs.status, obs.error)
    if "headless-shell" not in find_chromium().name:
        pytest.skip("the full Chromium presents these (docs/trust.md)")
    assert score_observation(obs).passed, f"{name} no longer recognises the evaluator: move it to pages/"
    assert STILL_VISIBLE[name] in TRUST_DOC.read_text(encoding="utf-8")


def test_the_window_and_screen_survive_a_check_that_narrows_the_page() -> None:
    """The reflow check lays the page out 320 px wide (an emulated viewport, the one thing that
    can be this narrow); afterwards the page is in its window again, on the desktop's screen, for
    the next sample on the same tab too."""
    generic = generic_case()
    signals_case = load_case(HERE / "fixtures" / "cases" / "signals")
    narrow = "<!doctype html><html lang='en'><head><title>Wide</title></head><body><main><h1>Wide</h1>"
    narrow += (
        "<p style='white-space: nowrap'>" + "A line of text that does not wrap. " * 20 + "</p></main></body></html>"
    )
    with Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=30)) as ev:
        first = ev.evaluate(generic, narrow)
        after = ev.evaluate(signals_case, SIGNALS_PAGE)
    assert first.status == "ok", first.error
    outcomes = {c.id: c.outcome for c in first.checks}
    assert outcomes.get("reflow-320") == "fail", outcomes
    assert after.status == "ok", after.error
    (check,) = after.checks
    signals = {k: json.loads(v) for k, v in json.loads(check.message).items() if k in ("inner", "avail", "screen")}
    assert signals == {"inner": [1280, 800], "avail": [1920, 1080 - TASKBAR_HEIGHT], "screen": [1920, 1080]}
