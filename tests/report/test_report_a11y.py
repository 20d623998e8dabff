"""The report is itself accessible: rendered in real Chromium, checked by the project's own
evaluator (axe-core, WCAG 2.2 A/AA and best practices: zero violations), walked by keyboard
(every link, summary and scrollable table reachable by Tab, focus visible), and photographed into
``test-output/report.png`` so a person can look at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Outcome, Session, failed, passed, requirement
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.pricing import ModelPrice, PriceTable
from lm_eval_a11y.report import build_report, render_report
from lm_eval_a11y.report.loading import RunSeries

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "test-output"
FOCUSABLE = "a[href], summary, [tabindex='0']"


@requirement("tab-reaches-everything", "Every visible link, summary and scrollable table is reached by Tab")
async def tab_reaches_everything(s: Session) -> Outcome:
    targets = [e for e in await s.find_all(FOCUSABLE) if e.visible]
    if len(targets) < 20:
        return failed(f"only {len(targets)} focusable elements: the report did not render fully")
    stops = await s.tab_sequence(max_stops=len(targets) + 20)
    reached = {e.ref for e in stops}
    missed = [e.describe() for e in targets if e.ref not in reached]
    if missed:
        return failed(f"{len(missed)} of {len(targets)} never got focus by Tab, e.g. {missed[:3]}")
    allowed = {e.ref for e in await s.find_all(FOCUSABLE)}
    odd = [e.describe() for e in stops if e.ref not in allowed]
    if odd:
        return failed(f"Tab stops on elements that are not links, summaries or regions: {odd[:3]}")
    return passed(
        f"all {len(targets)} links, summaries and scrollable regions are reached by Tab, in {len(stops)} stops"
    )


@requirement("focus-visible", "Links, summaries and scrollable tables show where focus is")
async def focus_visible(s: Session) -> Outcome:
    kinds = {
        "section link": "nav a[href]",
        "scrollable table": ".scroll[tabindex='0']",
        "table link": "table a[href]",
        "summary": "summary",
    }
    seen = []
    for kind, selector in kinds.items():
        element = next((e for e in await s.find_all(selector) if e.visible), None)
        if element is None:
            return failed(f"no visible {kind} ({selector}) to check")
        if not await s.tab_to(element, max_stops=400):
            return failed(f"the first {kind} is not reached by Tab")
        ok, message = await s.has_visible_focus_indicator(await s.refresh(element))
        if not ok:
            return failed(f"{kind}: {message}")
        seen.append(kind)
    return passed("focus is visible on the first " + ", ".join(seen))


REPORT_CASE = Case(
    id="html-report",
    title="The lm-eval-a11y HTML report",
    version="1",
    tags=("page",),
    category="page",
    wcag=("2.1.1", "2.4.7"),
    apg_pattern=None,
    hooks=(),
    prompt="",
    checks=(tab_reaches_everything, focus_visible),
    path=ROOT,
)


@pytest.fixture(scope="module")
def report_html(series: list[RunSeries]) -> str:
    pricing = PriceTable("USD", (("SmolLM2-135M-Instruct*", ModelPrice(0.2, 0.6)),))
    # A screenshot budget that embeds the first few screenshots and links the rest: both forms are audited.
    html = render_report(build_report(series, pricing), out_path=OUTPUT / "report.html", screenshot_budget=40_000)
    OUTPUT.mkdir(exist_ok=True)
    (OUTPUT / "report.html").write_text(html, encoding="utf-8")
    return html


@pytest.fixture(scope="module")
def observation(report_html: str) -> Iterator[Observation]:
    """One evaluation of the report: axe, the keyboard checks, and a full-page screenshot."""
    OUTPUT.mkdir(exist_ok=True)
    settings = EvaluatorSettings(concurrency=1, timeout_s=240, screenshots=OUTPUT)
    with Evaluator(settings) as ev:
        yield ev.evaluate(REPORT_CASE, report_html, name="report")


def test_report_has_no_axe_violations(observation: Observation) -> None:
    assert observation.status == "ok", observation.error
    found = [
        f"{f.rule_id} ({f.impact}): {f.help}; {[n.target for n in f.nodes[:3]]}" for f in observation.axe.violations
    ]
    assert found == [], "the report must pass axe-core, best practices included"


@pytest.mark.parametrize("check_id", ["tab-reaches-everything", "focus-visible"])
def test_report_works_by_keyboard(observation: Observation, check_id: str) -> None:
    result = next(c for c in observation.checks if c.id == check_id)
    assert result.outcome == "pass", result.message


def test_screenshot_for_people(observation: Observation) -> None:
    assert observation.screenshot is not None
    shot = Path(observation.screenshot)
    assert shot == OUTPUT / "report.png"
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
