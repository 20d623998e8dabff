"""Runaway and unstable pages: each gets an outcome of its own, bounded in time and memory, and
the same verdict whatever else is in its batch."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import struct
import threading
import time

import pytest

from isolation.support import (
    BUDGET_S,
    GRACE_S,
    PAGES,
    browser_tree,
    closed_without_leftovers,
    descendants,
    engine_page,
    in_order,
    login_case,
    memory_cgroup_missing,
    page,
    run,
    verdict_record,
)
from lm_eval_a11y.engine.evaluator import AsyncEvaluator, Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.memory import process_bytes
from lm_eval_a11y.engine.settings import CEILING_HEADROOM_MB

MEMORY_BOMBS = sorted(p.name for p in PAGES.glob("memory-*.html"))
# Bombs whose memory lies outside the JavaScript heap and its cap: only the watchdog stops them.
OUTSIDE_THE_HEAP = ("memory-canvas.html", "memory-arraybuffer.html", "memory-arraybuffer-onego.html")
RENDERER_MB = 512
BROWSER_MB = 1024
# The ceiling is BROWSER_MB + CEILING_HEADROOM_MB (256 MiB): held by the kernel where the browser
# runs in a memory cgroup, by the watchdog alone elsewhere. This test's own sampler adds up
# RssAnon + RssShmem of every process every 50 ms, where shared memory mapped by two processes
# counts twice: 64 MiB more is allowed for that.
OVERSHOOT_MB = CEILING_HEADROOM_MB + 64
LEAVES_WHILE_LOADING = sorted(p.name for p in PAGES.glob("runaway-*.html"))


class _PeakSampler:
    """Reads the memory of a browser's processes every 50 ms on a thread of its own."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            held = sum(process_bytes(pid) or 0 for pid in descendants(self.root))
            self.peak = max(self.peak, held)
            self._stop.wait(0.05)

    def __enter__(self) -> _PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def test_memory_bombs_are_stopped_and_the_browser_stays_under_its_ceiling() -> None:
    assert len(MEMORY_BOMBS) >= 6, MEMORY_BOMBS
    case, login = login_case()
    clean = engine_page("clean-page.html")

    async def scenario() -> None:
        settings = EvaluatorSettings(
            concurrency=2, timeout_s=20.0, renderer_memory_mb=RENDERER_MB, browser_memory_mb=BROWSER_MB
        )
        ev = AsyncEvaluator(settings)
        await ev.start()
        pids = await browser_tree(ev)
        (root,) = [pid for pid, kind in await ev.browser_processes() if kind == "browser"]
        try:
            alone = [verdict_record(await ev.evaluate(None, clean)), verdict_record(await ev.evaluate(case, login))]
            pairs = [(None, page(name)) for name in MEMORY_BOMBS] + [(None, clean), (case, login)]
            started = time.perf_counter()
            with _PeakSampler(root) as sampler:
                observations = await asyncio.gather(*(ev.evaluate(c, html) for c, html in pairs))
            elapsed = time.perf_counter() - started
            pids |= await browser_tree(ev)
            ceiling = ev.memory_ceiling
            jail = ev.memory_jail
            kernel_peak = jail.peak_bytes() if jail is not None else None
        finally:
            left = await closed_without_leftovers(ev, pids)
        assert len(observations) == len(pairs)
        outcome = dict(zip(MEMORY_BOMBS, observations, strict=False))
        for name, obs in outcome.items():
            assert obs.timings.total_ms < (settings.timeout_s + GRACE_S) * 1000, (name, obs.timings)
        for name in OUTSIDE_THE_HEAP:
            obs = outcome[name]
            assert obs.status == "error", (name, obs.status, obs.error)
            assert obs.error is not None and "memory limit" in obs.error, (name, obs.error)
        assert [verdict_record(obs) for obs in observations[-2:]] == alone
        assert elapsed < 4 * (settings.timeout_s + GRACE_S)
        assert not left, f"Chromium processes left behind: {sorted(left)}"
        over = sampler.peak >= (BROWSER_MB + OVERSHOOT_MB) * 2**20
        print(f"memory bombs: sampled peak {sampler.peak / 2**20:.0f} MiB, cgroup peak", kernel_peak, ceiling)
        # Which ceiling applied is this machine's to say (a probe of its own), not the evaluator's:
        # a jail that broke would otherwise turn this test into the expected failure below.
        no_cgroup = memory_cgroup_missing()
        assert ceiling.startswith("cgroup") == (no_cgroup is None), (ceiling, no_cgroup)
        if ceiling.startswith("cgroup"):
            # The kernel holds the ceiling (jail.py) and counts each page once: its own peak is the
            # measure. The sampler counts shared memory once per process that maps it and read
            # 1382 MiB in a run whose cgroup peak was exactly the 1280 MiB ceiling.
            assert kernel_peak is not None, "the memory cgroup keeps no peak"
            assert kernel_peak <= (BROWSER_MB + CEILING_HEADROOM_MB) * 2**20, kernel_peak
            # The bombs' memory was charged to the cgroup: the browser really ran inside it.
            assert kernel_peak >= RENDERER_MB * 2**20, kernel_peak
        elif over:
            # Known gap on a machine without a memory cgroup (docs/isolation.md): the watchdog alone, with bombs
            # open at once in working and waiting slots, does not hold the browser-wide ceiling in
            # every run (peaks of 901 to 1831 MiB measured against 1344 MiB).
            pytest.xfail(f"peak {sampler.peak / 2**20:.0f} MiB above the ceiling, watchdog only")

    run(scenario())


@pytest.mark.parametrize("name", LEAVES_WHILE_LOADING)
def test_a_page_that_leaves_while_loading_is_judged_as_written(one_slot: Evaluator, name: str) -> None:
    """A navigation started in <head> stopped Chromium's parser: the document had no body and the
    sample timed out. It is cancelled, recorded, and the whole document is audited."""
    obs = one_slot.evaluate(None, page(name))
    assert obs.status == "ok", obs.error
    # The body's two failures were audited: the image without alt and the field without a label.
    assert {"image-alt", "label"} <= set(obs.axe.failing_rule_ids()), obs.axe.failing_rule_ids()
    assert obs.events.blocked_navigations, obs.events


# REWRITE replaces the document with WRITTEN (see _document_write).
DOCUMENT_WRITES = {
    "onload-open-write-close": "onload = REWRITE;",
    "load-listener": "addEventListener('load', REWRITE);",
    "domcontentloaded": "document.addEventListener('DOMContentLoaded', REWRITE);",
    "timer-after-load": "onload = () => setTimeout(REWRITE, 0);",
    "write-without-open": "onload = () => { document.write(WRITTEN); document.close(); };",
}
_WRITTEN = "'<!doctype html><html lang=en><title>Written</title><main><h1>Written</h1><img src=data:,></main></html>'"


def _document_write(script: str) -> str:
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Before</title>"
        f"<script>const WRITTEN = {_WRITTEN};\n"
        "const REWRITE = () => { document.open(); document.write(WRITTEN); document.close(); };\n"
        f"{script}</script></head>"
        "<body><main><h1>Before</h1></main></body></html>"
    )


def test_a_page_that_rewrites_itself_gets_one_verdict_alone_and_in_any_batch() -> None:
    pages = {name: _document_write(script) for name, script in DOCUMENT_WRITES.items()}
    clean = engine_page("clean-page.html")

    async def scenario() -> None:
        ev = AsyncEvaluator(EvaluatorSettings(concurrency=2, timeout_s=BUDGET_S))
        try:
            alone = {name: verdict_record(await ev.evaluate(None, html)) for name, html in pages.items()}
            for name, record in alone.items():
                assert record["status"] == "ok", (name, record["error"])
                # What was written is what was audited: its image has no alt.
                assert ("image-alt", 1) in record["wcag_failures"], (name, record)
            for round_ in range(3):
                names = [n for n in pages for _ in range(3)]
                batch = [(None, pages[n]) for n in names] + [(None, clean)] * 4
                if round_ % 2:
                    batch.reverse()
                    names.reverse()
                    names = ["clean"] * 4 + names
                observations = await asyncio.gather(*(ev.evaluate(c, h) for c, h in batch))
                for label, obs in zip(names, observations, strict=False):
                    if label in alone:
                        assert verdict_record(obs) == alone[label], (label, round_)
        finally:
            await ev.close()

    run(scenario())


def _wav(seconds: float) -> str:
    """A silent 8 kHz mono WAV of the given length, as a data: URL."""
    frames = int(8000 * seconds)
    data = b"\x80" * frames
    out = io.BytesIO()
    out.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt ")
    out.write(struct.pack("<IHHIIHH", 16, 1, 1, 8000, 8000, 1, 8))
    out.write(b"data" + struct.pack("<I", len(data)) + data)
    return "data:audio/wav;base64," + base64.b64encode(out.getvalue()).decode()


MEDIA = {
    "audio-network": "<audio autoplay controls src='http://media.a11y-test.invalid/song.mp3'></audio>",
    "video-network": "<video autoplay controls src='http://media.a11y-test.invalid/film.mp4'></video>",
    "video-sources": "<video autoplay controls><source src='http://media.a11y-test.invalid/a.webm'>"
    "<source src='http://media.a11y-test.invalid/a.mp4'></video>",
    "many-audio": "".join(
        f"<audio autoplay controls src='http://media.a11y-test.invalid/{i}.mp3'></audio>" for i in range(5)
    ),
}


@pytest.mark.parametrize("name", sorted(MEDIA))
def test_media_that_never_loads_does_not_hold_axe(one_slot: Evaluator, name: str) -> None:
    """axe waited 10 s for the metadata of autoplaying media that never loads here."""
    html = f"<!doctype html><html lang='en'><title>Media</title><main><h1>Media</h1>{MEDIA[name]}</main></html>"
    obs = one_slot.evaluate(None, html)
    assert obs.status == "ok", obs.error
    assert obs.timings.axe_ms < 3000, obs.timings


def test_autoplaying_media_is_still_audited(one_slot: Evaluator) -> None:
    """Control: axe's no-autoplay-audio rule still runs without the media preload. It only ever
    says "needs review" (axe marks it reviewOnFail), for carried media and blocked media alike."""
    sources = {"carried": _wav(10.0), "blocked": "http://media.a11y-test.invalid/song.mp3"}
    for label, source in sources.items():
        html = (
            "<!doctype html><html lang='en'><title>Sound</title><main><h1>Sound</h1>"
            f"<audio autoplay src='{source}'></audio></main></html>"
        )
        obs = one_slot.evaluate(None, html)
        assert obs.status == "ok", (label, obs.error)
        assert "no-autoplay-audio" in {f.rule_id for f in obs.axe.incomplete}, label
        assert "no-autoplay-audio" not in obs.axe.failing_rule_ids(), label
        assert obs.timings.axe_ms < 3000, (label, obs.timings)


SURROGATES = {
    "lone-low-in-title": ("<title>Caf\udcff</title><main><h1>Menu</h1></main>", 1),
    "lone-high-in-text": ("<title>Menu</title><main><h1>Menu \ud83d</h1><p>x\udcffy\udcfe</p></main>", 3),
    "lone-in-attribute": ("<title>Menu</title><main><h1 title='\udcff'>Menu</h1></main>", 1),
    "pair-as-two-points": ("<title>Menu \ud83d\ude00</title><main><h1>Menu</h1></main>", 0),
}


@pytest.mark.parametrize("name", sorted(SURROGATES))
def test_text_with_lone_surrogates_is_repaired_and_the_repair_recorded(one_slot: Evaluator, name: str) -> None:
    """Playwright raised inside its request handler and the sample burnt its whole budget."""
    body, lone = SURROGATES[name]
    html = f"<!doctype html><html lang='en'>{body}</html>"
    started = time.perf_counter()
    obs = one_slot.evaluate(None, html)
    assert time.perf_counter() - started < GRACE_S
    assert obs.status == "ok", obs.error
    if lone:
        assert obs.events.input_repairs == (f"{lone} lone surrogate code points replaced with U+FFFD",)
    else:
        assert obs.events.input_repairs == ()
    json.dumps(obs.to_dict(), ensure_ascii=False).encode("utf-8")


def test_surrogates_a_page_makes_itself_leave_the_record_writable(one_slot: Evaluator) -> None:
    """A script can build half a pair that reaches the DOM, axe's node HTML and the console."""
    html = (
        "<!doctype html><html lang='en'><title>Made</title><main><h1>Made</h1></main><script>"
        "const half = String.fromCharCode(0xdcff);"
        "const img = document.createElement('img'); img.src = 'data:,'; img.setAttribute('data-x', half);"
        "document.querySelector('main').append(img, half); console.error('half ' + half);"
        "</script></html>"
    )
    obs = one_slot.evaluate(None, html)
    assert obs.status == "ok", obs.error
    assert "image-alt" in obs.axe.failing_rule_ids()
    text = json.dumps(obs.to_dict(), ensure_ascii=False)
    text.encode("utf-8")
    assert "\ufffd" in text
    assert obs.events.input_repairs == ()


def test_the_runaway_pages_leave_their_slot_usable_for_the_next_sample() -> None:
    """Each page that leaves while loading or rewrites itself, followed on its own slot by a
    clean page: the clean page's verdict is the one it gets alone."""
    clean = engine_page("clean-page.html")
    hostile = [page(n) for n in LEAVES_WHILE_LOADING] + [_document_write(s) for s in DOCUMENT_WRITES.values()]

    async def scenario() -> None:
        ev = AsyncEvaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=BUDGET_S))
        try:
            alone = verdict_record(await ev.evaluate(None, clean))
            batch = [pair for html in hostile for pair in ((None, html), (None, clean))]
            observations = await in_order(ev, batch)
        finally:
            await ev.close()
        for obs in observations[1::2]:
            assert verdict_record(obs) == alone
        for obs in observations[0::2]:
            assert obs.status == "ok", obs.error

    run(scenario())
