"""A settle returns only after the end events of the animations it waited for were delivered.

An animation that has ended by the clock leaves ``document.getAnimations()`` before Chromium
delivers its ``transitionend`` (with the next animation frame). A settle that stopped as soon as
the list was empty read a value the page commits on ``transitionend`` too early whenever frames
came late. Here the probe itself (axe-core and probe.js, evaluated into a plain page) settles
60 glides of 300 ms, each started in the same task as the settle, while busy processes take the
cores from the renderer, and every settle must have seen the page's handler run.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import sync_playwright

from lm_eval_a11y.browser import find_chromium
from lm_eval_a11y.resources import axe_path, probe_path

GLIDES = 60
PAGE = """<!doctype html><html lang="en"><head><title>Glide</title>
<style>#knob{position:absolute;left:0;width:20px;height:20px;background:#333;transition:left .3s ease-out}</style>
</head><body><div id="knob"></div></body></html>"""
# One glide: start it, settle as an action does (50 ms, a cap of 1 s), report whether the page's
# transitionend handler ran before the settle returned.
GLIDE = """async () => {
  const knob = document.getElementById('knob');
  let ended = false;
  knob.addEventListener('transitionend', () => { ended = true; }, { once: true });
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  knob.style.left = (parseInt(knob.style.left || '0', 10) + 40) % 800 + 'px';
  await globalThis.__a11yProbe.settle(50, 1000);
  return ended;
}"""


def _spin(until: float) -> None:
    while time.monotonic() < until:
        pass


@pytest.fixture
def busy_cores() -> Iterator[None]:
    """Busy processes beside the browser, so that its frames come late."""
    until = time.monotonic() + 120
    workers = [multiprocessing.Process(target=_spin, args=(until,), daemon=True) for _ in range(3)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        for worker in workers:
            worker.terminate()
            worker.join()


def test_every_settled_glide_has_delivered_its_transitionend(busy_cores: None) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(find_chromium()))
        try:
            page = browser.new_page()
            page.set_content(PAGE)
            page.evaluate(axe_path().read_text(encoding="utf-8") + "\n;\n" + probe_path().read_text(encoding="utf-8"))
            early = [i for i in range(GLIDES) if not page.evaluate(GLIDE)]
        finally:
            browser.close()
    assert early == [], f"{len(early)} of {GLIDES} settles returned before transitionend"
