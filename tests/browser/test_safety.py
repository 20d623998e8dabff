"""Hostile pages: each gives a clear outcome within its budget, and the slot serves the next sample.

Every test evaluates the hostile page and then an ordinary page in the same batch on a one-slot
pool, so the ordinary page runs on the very slot the hostile page had; it must come back ``ok``
with the violation it really has (``image-alt``).
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator

import pytest

from browser.support import BATCH_BOUND_S, BUDGET_S, GRACE_S, ROOMY_BUDGET_S, fixture_case, page
from lm_eval_a11y.cases import Case
from lm_eval_a11y.engine.browser import CHROMIUM_ARGS
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.observation import Observation

NORMAL = page("normal-page.html")


def run_then_normal(
    ev: Evaluator, case: Case | None, html: str, budget_s: float = BUDGET_S
) -> tuple[Observation, float]:
    """Evaluate the hostile page, then the ordinary page on the same slot; check the latter."""
    started = time.perf_counter()
    hostile, normal = ev.evaluate_many([(case, html), (None, NORMAL)])
    elapsed = time.perf_counter() - started
    assert normal.status == "ok", f"the sample after the hostile one: {normal.status}: {normal.error}"
    assert "image-alt" in normal.axe.failing_rule_ids()
    assert hostile.timings.total_ms / 1000 < budget_s + GRACE_S, hostile.timings
    return hostile, elapsed


def test_infinite_loop_in_script_times_out(serial_evaluator: Evaluator) -> None:
    obs, elapsed = run_then_normal(serial_evaluator, None, page("loop-in-script.html"))
    assert obs.status == "timeout"
    assert obs.error is not None and "budget of 4 s" in obs.error and "rendering" in obs.error
    assert elapsed < BATCH_BOUND_S


def test_a_timeout_can_print_where_the_sample_waited(
    serial_evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A11Y_DEBUG_TIMEOUTS=1 (tests/README.md): a sample that runs out of its budget prints where
    each of our tasks waited, down to the step of the engine (here: loading the page)."""
    monkeypatch.setenv("A11Y_DEBUG_TIMEOUTS", "1")
    obs = serial_evaluator.evaluate(None, page("loop-in-script.html"))
    assert obs.status == "timeout"
    printed = capfd.readouterr().err
    assert "[timeout] sample" in printed, printed
    assert "sample.py" in printed and " open" in printed, printed


def test_infinite_loop_in_click_handler_times_out_during_checks(serial_evaluator: Evaluator) -> None:
    case = fixture_case("fixtureclick")
    obs, elapsed = run_then_normal(serial_evaluator, case, page("loop-in-click.html"))
    assert obs.status == "timeout"
    assert obs.error is not None and "running checks" in obs.error
    # axe ran before the hanging click, so its findings are kept; every check is reported.
    assert obs.axe.states == ("initial",)
    assert {c.id: c.outcome for c in obs.checks} == {"click-go": "error", "after-click": "error"}
    assert all("not run: the evaluation took longer" in c.message for c in obs.checks)
    assert elapsed < BATCH_BOUND_S


def test_dialog_storm_times_out_and_counts_dialogs(serial_evaluator: Evaluator) -> None:
    obs, _ = run_then_normal(serial_evaluator, None, page("dialog-storm.html"))
    assert obs.status == "timeout"
    assert obs.events.dialogs >= 3
    assert obs.error is not None and f"opened {obs.events.dialogs} dialogs" in obs.error


def test_popups_are_refused_and_recorded(one_slot_evaluator: Evaluator) -> None:
    # Refusing 32 windows takes seconds on a loaded machine: the roomy budget, since what is
    # tested is the refusal and its record, not the time it takes.
    obs, _ = run_then_normal(one_slot_evaluator, None, page("popups.html"), ROOMY_BUDGET_S)
    assert obs.status == "ok", obs.error
    # 32 each time the page is loaded: the first document, and the fresh ones the phone's tab
    # and the visitor's walk load (engine/conditions.py, engine/walk.py); none is lost.
    assert obs.events.popups >= 32 and obs.events.popups % 32 == 0, obs.events.popups
    assert "http://popup-0.invalid/" in obs.events.popup_urls
    assert "http://late-popup.invalid/" in obs.events.popup_urls
    # The opener's own document was evaluated.
    assert "image-alt" in obs.axe.failing_rule_ids()


@pytest.mark.parametrize(
    ("name", "targets"),
    [
        ("navigate-away.html", {"http://elsewhere.invalid/", "http://later.invalid/"}),
        ("meta-refresh.html", {"http://meta-refresh.invalid/"}),
    ],
)
def test_navigation_away_is_blocked_and_the_document_stays(
    serial_evaluator: Evaluator, name: str, targets: set[str]
) -> None:
    obs, _ = run_then_normal(serial_evaluator, None, page(name))
    assert obs.status == "ok", obs.error
    # A navigation the page replaces with a later one may be cancelled before it reaches the
    # network; whatever reached it was refused, and the document never changed.
    blocked = set(obs.events.blocked_navigations)
    assert blocked and blocked <= targets, blocked
    # axe saw the sample's own document: its image without alt, and no heading problem.
    assert "image-alt" in obs.axe.failing_rule_ids()
    assert "page-has-heading-one" not in obs.axe.failing_rule_ids()


class _Counter(http.server.BaseHTTPRequestHandler):
    hits: list[str]

    def _any(self) -> None:
        self.hits.append(f"{self.command} {self.path}")
        self.send_response(200)
        self.end_headers()

    do_GET = do_POST = do_HEAD = do_OPTIONS = do_CONNECT = _any

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def listening_port() -> Iterator[tuple[int, list[str]]]:
    """An HTTP server on 127.0.0.1 that records every request it receives."""
    hits: list[str] = []
    handler = type("Handler", (_Counter,), {"hits": hits})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def own_defences_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[Evaluator]:
    """One slot, in a Chromium that does not apply its own Local Network Access checks.

    Those checks refuse a sample page's requests to a loopback address by themselves, so with
    them on, the test below passed with the evaluator's defences (request routing, and the proxy
    that leads nowhere) both removed. Without them, each defence must hold on its own: the
    routing refuses what it sees, and the proxy catches what it does not see (a WebSocket).
    """
    args = tuple(
        arg + ",LocalNetworkAccessChecks" if arg.startswith("--disable-features=") else arg for arg in CHROMIUM_ARGS
    )
    assert args != CHROMIUM_ARGS
    monkeypatch.setattr("lm_eval_a11y.engine.lifecycle.CHROMIUM_ARGS", args)
    # The ordinary budget: the page makes a dozen requests, and a loaded machine took over 4 s.
    with Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=ROOMY_BUDGET_S)) as ev:
        ev.start()
        yield ev


def test_no_request_leaves_the_browser(own_defences_only: Evaluator, listening_port: tuple[int, list[str]]) -> None:
    port, hits = listening_port
    # A forged report of a refused request, written by the page itself: not Chromium's.
    forged = (
        "<script>console.error(\"Mixed Content: The page at 'https://a.example/' was loaded over HTTPS, but "
        "requested an insecure resource 'http://forged.invalid/x'. This request has been blocked; the content "
        'must be served over HTTPS.")</script></body>'
    )
    html = page("network.html").replace("__PORT__", str(port)).replace("</body>", forged, 1)
    assert "forged.invalid" in html
    # A control request proves the server answers: the test would notice a dead server.
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/control", timeout=5) as reply:
        assert reply.status == 200
    assert hits == ["GET /control"]
    obs, _ = run_then_normal(own_defences_only, None, html, ROOMY_BUDGET_S)
    time.sleep(0.3)  # a late beacon or socket would have arrived by now
    assert obs.status == "ok", obs.error
    assert hits == ["GET /control"], f"requests reached the server: {hits[1:]}"
    # The routing refused every request it saw (the proxy is the fallback, for what it does not see).
    failed = [e for e in obs.events.console_errors if e.startswith("Failed to load resource")]
    assert failed and all("ERR_BLOCKED_BY_CLIENT" in e for e in failed), failed
    blocked = set(obs.events.blocked_requests)
    for path in ("style.css", "script.js", "pixel.png", "fetch", "xhr", "frame"):
        assert f"http://127.0.0.1:{port}/{path}" in blocked, sorted(blocked)
    # The page is served over https (engine/disguise.py): Chromium upgrades its http image to
    # https, which the routing refuses, and refuses its http fetch itself as mixed content, before
    # any routing: the record takes that refusal from Chromium's security log, not from what a
    # page can write to its console.
    assert "https://tracker.invalid/pixel.png" in blocked
    assert "http://api.invalid/data" in blocked
    assert any("Mixed Content" in e and "http://api.invalid/data" in e for e in obs.events.console_errors)
    assert not [url for url in blocked if "forged.invalid" in url]
    assert any("forged.invalid" in e for e in obs.events.console_errors)


def test_five_megabyte_static_dom_is_refused_by_the_size_limit(serial_evaluator: Evaluator) -> None:
    rows = "".join(f"<tr><td>cell {i}</td><td><img src='data:,'></td></tr>" for i in range(110_000))
    html = f"<!doctype html><html lang='en'><title>Big</title><main><table>{rows}</table></main></html>"
    assert len(html.encode()) > 5_000_000
    started = time.perf_counter()
    obs, _ = run_then_normal(serial_evaluator, None, html)
    assert obs.status == "error"
    assert obs.error is not None and "above the limit" in obs.error and "max_html_bytes" in obs.error
    assert time.perf_counter() - started < BATCH_BOUND_S


def test_five_megabyte_static_dom_within_a_raised_limit_ends_in_its_budget() -> None:
    rows = "".join(f"<tr><td>cell {i}</td><td><img src='data:,'></td></tr>" for i in range(110_000))
    html = f"<!doctype html><html lang='en'><title>Big</title><main><table>{rows}</table></main></html>"
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=BUDGET_S, max_html_bytes=8_000_000)) as ev:
        ev.start()
        started = time.perf_counter()
        obs, normal = ev.evaluate_many([(None, html), (None, NORMAL)])
        elapsed = time.perf_counter() - started
    assert normal.status == "ok"
    # Rendering 110,000 rows fits the budget on an idle machine but axe over them does not.
    assert obs.status == "timeout", (obs.status, obs.error)
    assert obs.error is not None and "budget of 4 s" in obs.error
    assert elapsed < BATCH_BOUND_S


def test_script_generated_huge_dom_times_out(serial_evaluator: Evaluator) -> None:
    obs, elapsed = run_then_normal(serial_evaluator, None, page("script-huge-dom.html"))
    assert obs.status == "timeout"
    assert obs.error is not None and "budget of 4 s" in obs.error
    assert elapsed < BATCH_BOUND_S


@pytest.mark.parametrize(
    "html",
    [pytest.param("", id="empty-string"), pytest.param("Just a sentence of prose, no markup at all.", id="prose")],
)
def test_empty_and_plain_text_are_judged_as_the_page_a_browser_makes(serial_evaluator: Evaluator, html: str) -> None:
    case = fixture_case("fixtureclick")
    obs, _ = run_then_normal(serial_evaluator, case, html)
    assert obs.status == "ok", obs.error
    # Nothing is added: no title, no lang.
    assert {"document-title", "html-has-lang"} <= set(obs.axe.failing_rule_ids())
    outcomes = {c.id: c.outcome for c in obs.checks}
    assert outcomes == {"click-go": "fail", "after-click": "pass"}


def test_memory_bomb_crashes_the_renderer_and_says_so(one_slot_evaluator: Evaluator) -> None:
    """V8 stops at --max-old-space-size=512 and takes the renderer down: measured 0.9 s on an idle
    machine and 4.6 s under load, so this page gets the ordinary budget, not the 4 s one (with
    4 s on a busy machine the outcome is a timeout instead, which is also clear)."""
    obs, elapsed = run_then_normal(one_slot_evaluator, None, page("memory-bomb.html"), ROOMY_BUDGET_S)
    assert obs.status == "error", (obs.status, obs.error)
    assert obs.error is not None and "crashed the renderer" in obs.error
    assert elapsed < 2 * (ROOMY_BUDGET_S + GRACE_S)
