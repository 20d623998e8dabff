"""The pool: it outlives its browser, orders the checks it runs, and keeps its processes few."""

from __future__ import annotations

import asyncio
import time

import psutil
import pytest

from browser.support import fixture_case, page
from lm_eval_a11y.engine import pool as evaluator_module
from lm_eval_a11y.engine import sample as sample_module
from lm_eval_a11y.engine import walk
from lm_eval_a11y.engine.browser import DISABLED_FEATURES
from lm_eval_a11y.engine.evaluator import AsyncEvaluator, Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.tab import Tab


def _browser_processes() -> list[psutil.Process]:
    """Live Chromium browser processes (not renderers) under this test process."""
    found = []
    for p in psutil.Process().children(recursive=True):
        try:
            if "chrom" in p.name() and not any(a.startswith("--type=") for a in p.cmdline()):
                found.append(p)
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            continue  # a browser closed a moment ago and not yet reaped
    return found


def test_a_killed_browser_is_replaced_and_the_batch_goes_on() -> None:
    normal = page("normal-page.html")
    # Session fixtures of other tests may have browsers of their own running: count only ours.
    others = {p.pid for p in _browser_processes()}
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=20)) as ev:
        assert ev.evaluate(None, normal).status == "ok"
        browsers = [p for p in _browser_processes() if p.pid not in others]
        assert len(browsers) == 1
        browsers[0].kill()
        browsers[0].wait(10)
        # Playwright learns of the dead browser from its closed pipe, on the evaluator's thread.
        deadline = time.monotonic() + 10
        while ev._core._browser.is_connected() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not ev._core._browser.is_connected(), "the evaluator never saw its browser go"
        # The batch starts a new browser and gives every slot a new context: all three are evaluated.
        observations = ev.evaluate_many([(None, normal)] * 3)
        assert [o.status for o in observations] == ["ok", "ok", "ok"], [o.error for o in observations]
        assert all("image-alt" in o.axe.failing_rule_ids() for o in observations)
        (new_browser,) = [p for p in _browser_processes() if p.pid not in others]
        assert new_browser.pid != browsers[0].pid


@pytest.mark.parametrize(
    ("guess", "expected_resets"),
    [
        # The guess from the checks' code already puts the two readers first.
        pytest.param(True, [0, 0], id="guessed-from-the-code"),
        # Without a guess (every check assumed to act), the declared order runs first: the
        # clicking check leaves a changed page, so the reading check after it needs a reload;
        # the second run has learned which checks act and reloads nothing.
        pytest.param(False, [1, 0], id="learned-on-the-first-run"),
    ],
)
def test_checks_that_only_read_run_first_and_results_keep_the_declared_order(
    monkeypatch: pytest.MonkeyPatch, guess: bool, expected_resets: list[int]
) -> None:
    if not guess:
        monkeypatch.setattr(evaluator_module, "guess_acts", lambda func: True)
    resets = 0
    original = Session.reset

    async def counting_reset(self: Session) -> None:
        nonlocal resets
        resets += 1
        await original(self)

    monkeypatch.setattr(Session, "reset", counting_reset)

    # Only the checks' resets are counted: the screens and preferences and the visitor's walk that
    # follow the checks (and may reset the page themselves) are left out here.
    async def nothing(*_: object) -> None:
        return None

    monkeypatch.setattr(sample_module, "audit_conditions", nothing)
    monkeypatch.setattr(walk, "visitor_walk", nothing)
    case = fixture_case("fixtureorder")
    declared = [c.id for c in case.checks]
    observations = []
    per_run = []
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=20)) as ev:
        for _ in range(2):
            before = resets
            observations.append(ev.evaluate(case, page("reveal-photo.html")))
            per_run.append(resets - before)
    first, second = observations
    assert per_run == expected_resets
    for obs in observations:
        assert obs.status == "ok", obs.error
        assert [c.id for c in obs.checks] == declared
        assert [c.outcome for c in obs.checks] == ["pass", "pass", "pass"], [c.message for c in obs.checks]
    # The merged axe result is the same whatever order the checks ran in.
    assert first.axe == second.axe
    # The check's click shows the photo: that state is audited too, named after the action.
    assert first.axe.states == (
        "initial",
        'after click on button "Show photo" (check reveal-shows-photo)',
        "photo shown",
        "reading",
    )


def _start_order(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the evaluations, in the order they started rendering."""
    started: list[str] = []
    original = AsyncEvaluator._evaluate_in

    async def recording(self: AsyncEvaluator, case: object, html: str, tab: object, run: object, name: str) -> None:
        started.append(name)
        await original(self, case, html, tab, run, name)  # type: ignore[arg-type]

    monkeypatch.setattr(AsyncEvaluator, "_evaluate_in", recording)
    return started


@pytest.mark.parametrize("guess", [True, False], ids=["guessed-from-the-code", "learned-on-the-first-run"])
def test_a_page_whose_checks_wait_starts_before_larger_pages(monkeypatch: pytest.MonkeyPatch, guess: bool) -> None:
    if not guess:
        monkeypatch.setattr(evaluator_module, "guess_wait_ms", lambda func: 0)
    started = _start_order(monkeypatch)
    waiting = fixture_case("fixturewait")
    small = "<!doctype html><html lang='en'><title>t</title><h1>Small</h1></html>"
    # About 30 KB: more to render than the small pages, far less than 1.2 s of waiting.
    large = small.replace("Small", "Large") + "<p>Words of a longer page.</p>" * 1000
    batch = [(None, large), (waiting, small), (None, small)]
    names = ["large", "waiting", "small"]
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=20)) as ev:
        first = ev.evaluate_many(batch, names=names)
        second = ev.evaluate_many(batch, names=names)
    assert [o.status for o in first + second] == ["ok"] * 6
    assert [c.outcome for c in first[1].checks] == ["pass"]
    if guess:
        # The settle(STAY_MS) in the check's code is seen before the case has ever run.
        assert started == ["waiting", "large", "small"] * 2
    else:
        # Without the guess the largest page goes first; the first run teaches the wait.
        assert started == ["large", "waiting", "small", "waiting", "large", "small"]


def _renderers_of(browser: psutil.Process) -> list[psutil.Process]:
    found = []
    for p in browser.children(recursive=True):
        try:
            if "--type=renderer" in p.cmdline():
                found.append(p)
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            continue
    return found


def test_one_renderer_per_slot_and_playwrights_own_disabled_features_are_kept() -> None:
    others = {p.pid for p in _browser_processes()}
    # No waiting slots: one context per slot, exactly two, whatever the pages wait for.
    with Evaluator(EvaluatorSettings(concurrency=2, timeout_s=20, waiting_slots=0)) as ev:
        observations = ev.evaluate_many([(None, page("normal-page.html"))] * 4)
        assert [o.status for o in observations] == ["ok"] * 4
        (browser,) = [p for p in _browser_processes() if p.pid not in others]
        switches = [a.split("=", 1)[1].split(",") for a in browser.cmdline() if a.startswith("--disable-features=")]
        # Chromium honours only the last --disable-features: it must carry Playwright's list too.
        last = set(switches[-1])
        assert all(set(earlier) <= last for earlier in switches[:-1]), "a Playwright upgrade disabled new features"
        assert set(DISABLED_FEATURES) == last
        # No omnibox popup renderers and no spare: one renderer for each slot's page and one for
        # its phone's page (engine/conditions.py), which stays a phone (a clock tab, with
        # page_clock, would add one more).
        assert len(_renderers_of(browser)) == 4


MAKE_JUNK = "let junk = []; for (let i = 0; i < 120; i++) junk.push(new Array(100000).fill(i + 0.5));"
# The arrays become garbage at the load event, just before the load's own heap reading.
GARBAGE = f"""<!doctype html><html lang="en"><head><title>Garbage</title></head><body><main><h1>Garbage</h1>
<script>{MAKE_JUNK} addEventListener('load', () => {{ junk = null; }});</script></main></body></html>"""


def test_a_renderer_heap_left_full_of_garbage_is_collected(monkeypatch: pytest.MonkeyPatch) -> None:
    trims: list[bool] = []
    original = Tab.trim_memory

    async def recording(self: Tab, heap_bytes: float | None = None) -> bool:
        trims.append(await original(self, heap_bytes))
        return trims[-1]

    monkeypatch.setattr(Tab, "trim_memory", recording)

    async def scenario() -> tuple[float, float, bool, float]:
        ev = AsyncEvaluator(EvaluatorSettings(concurrency=1, timeout_s=20))
        await ev.start()
        try:
            assert ev._slots is not None
            tab = await ev._tab(await ev._slots.take())
            # A first page takes the renderer's first heap reading: a browser that rounds and
            # caches performance.memory would repeat that small reading from then on.
            await Session(tab, "<!doctype html><title>First</title><p>First page.</p>").open()
            trims.clear()
            session = Session(tab, GARBAGE)
            await session.open()
            cdp = tab._cdp
            assert cdp is not None
            after_load = (await cdp.send("Runtime.getHeapUsage"))["usedSize"]
            # Garbage made after the load: the trim asks for the heap's size itself. V8 may
            # collect it on its own first (an idle-time collection on a busy machine): then the
            # garbage is made again, at most three times.
            before = 0.0
            for _ in range(3):
                await session.page.evaluate(f"() => {{ {MAKE_JUNK} junk = null; }}")
                before = (await cdp.send("Runtime.getHeapUsage"))["totalSize"]
                if before > 48 * 2**20:
                    break
            collected = await tab.trim_memory()
            after = (await cdp.send("Runtime.getHeapUsage"))["usedSize"]
            return after_load, before, collected, after
        finally:
            await ev.close()

    after_load, before, collected, after = asyncio.run(scenario())
    # The page's script left about 90 MB of arrays behind: the load itself collected them.
    assert trims[0] is True
    assert after_load < 24 * 2**20
    # The garbage was there when the trim looked, and the trim collected it.
    assert before > 48 * 2**20
    assert collected
    assert after < 24 * 2**20


def test_a_document_the_new_document_script_missed_gets_the_probe_at_load() -> None:
    """The probe normally runs as each document is created; when it did not, the load puts it
    there itself, and axe and the checks' helpers work as usual."""

    async def scenario() -> tuple[str, list[str], object]:
        ev = AsyncEvaluator(EvaluatorSettings(concurrency=1, timeout_s=20))
        await ev.start()
        try:
            assert ev._slots is not None
            tab = await ev._tab(await ev._slots.take())
            assert tab._cdp is not None
            await tab._cdp.send("Page.removeScriptToEvaluateOnNewDocument", tab._new_document_script)
            html = '<!doctype html><html lang="en"><head><title>t</title></head><body><main>'
            html += '<h1>Form</h1><input id="q"><img src="data:," width="9" height="9"></main></body></html>'
            session = Session(tab, html)
            await session.open()
            field = await session.find("#q")
            result = await session.run_axe("initial")
            return (field.tag if field else ""), sorted(v["id"] for v in result["violations"]), result["version"]
        finally:
            await ev.close()

    tag, rules, version = asyncio.run(scenario())
    assert tag == "input"
    assert {"image-alt", "label"} <= set(rules)
    assert isinstance(version, str) and version.startswith("4.")


# A page with a script waits out the late-change horizon after its audit, holding its context.
WAITING = """<!doctype html><html lang="en"><head><title>Waiting</title></head><body><main><h1>Waiting</h1>
<p id="p">Text</p><script>document.getElementById('p').dataset.seen = '1';</script></main></body></html>"""


@pytest.mark.parametrize(("waiting_memory_mb", "most"), [(0, 2), (1536, 4)])
def test_contexts_for_waiting_pages_beyond_the_always_open_ones_open_only_while_memory_allows(
    monkeypatch: pytest.MonkeyPatch, waiting_memory_mb: int, most: int
) -> None:
    """One page at work, three waiting slots: two contexts are always open; the other two only
    while the browser's memory is below ``waiting_memory_mb``. Only the pages' waiting is timed
    here: the screens and preferences and the walk after it are left out."""

    async def nothing(*_: object) -> None:
        return None

    monkeypatch.setattr(sample_module, "audit_conditions", nothing)
    monkeypatch.setattr(walk, "visitor_walk", nothing)

    async def scenario() -> tuple[int, list[str]]:
        ev = AsyncEvaluator(
            EvaluatorSettings(
                concurrency=1,
                waiting_slots=3,
                late_horizon_ms=1500,
                page_clock=False,
                timeout_s=10,
                waiting_memory_mb=waiting_memory_mb,
            )
        )
        try:
            await ev.start()
            await asyncio.sleep(0.6)  # the watchdog's first reading
            peak = 0
            done = asyncio.Event()

            async def watch() -> None:
                nonlocal peak
                while not done.is_set():
                    assert ev._slots is not None
                    peak = max(peak, ev._slots.open_now)
                    await asyncio.sleep(0.01)

            watcher = asyncio.ensure_future(watch())
            observations = await ev.evaluate_many([(None, WAITING)] * 6)
            done.set()
            await watcher
            return peak, [o.status for o in observations]
        finally:
            await ev.close()

    peak, statuses = asyncio.run(scenario())
    assert statuses == ["ok"] * 6
    assert peak == most
