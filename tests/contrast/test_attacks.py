"""The pixel check against pages that try to see it, or to pass on what it cannot measure.

Our verdict is a reward models are trained on, so the pixel check may only ever move a verdict on
what it measured: text it cannot measure keeps axe's answer (a failure stays a failure, "can't
tell" stays incomplete and is counted), and a page's scripts must not be able to tell the check
ran (they could otherwise repaint for the measurement).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Check, Outcome
from lm_eval_a11y.engine.contrast import MAX_NODES, audit_contrast
from lm_eval_a11y.engine.evaluator import Evaluator
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.scoring import score_observation

PAGES = Path(__file__).resolve().parent / "pages"

# Light text on a gradient (axe cannot tell) and grey text on white (axe fails), both in the
# first screen, on a page that records everything a script can notice of an evaluator at work.
WATCHER = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Watcher</title>
<style>
  body { margin: 0; padding: 20px; font: 16px sans-serif; background: #fff; }
  .band { padding: 10px; background: linear-gradient(90deg, #222 0 50%, #333 50%); color: #eee; }
  #grey { color: #999; }
</style></head><body><main>
<p class="band" id="band">Light text on a dark gradient</p><p id="grey">Grey text on white</p></main>
<script>
  const log = [];
  const note = (what) => {
    if (log.length < 50) { log.push(what); sessionStorage.setItem('log', JSON.stringify(log)); }
  };
  new MutationObserver((records) => note('mutation ' + records.length)).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true });
  for (const type of ['resize', 'scroll', 'scrollend', 'focus', 'blur', 'visibilitychange']) {
    addEventListener(type, () => note(type), true);
  }
  visualViewport.addEventListener('resize', () => note('visual viewport resize'));
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => note('colour scheme'));
  const band = document.getElementById('band');
  const first = JSON.stringify([document.styleSheets.length, document.adoptedStyleSheets.length,
    getComputedStyle(band).color, getComputedStyle(band).backgroundImage, innerWidth, innerHeight]);
  const poll = () => {
    const now = JSON.stringify([document.styleSheets.length, document.adoptedStyleSheets.length,
      getComputedStyle(band).color, getComputedStyle(band).backgroundImage, innerWidth, innerHeight]);
    if (now !== first) { note('changed ' + now); }
  };
  setInterval(poll, 1);
  const frame = () => { poll(); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  sessionStorage.setItem('log', '[]');
</script></body></html>"""


def _reading_case(scroll_first: bool = False) -> Case:
    """One check that reads what the page noted (its session storage, through our world);
    ``scroll_first``: the control, the check scrolls the page itself before it reads."""

    async def read(session: Session) -> Outcome:
        if scroll_first:
            await session.probe("contrastScrollTo", 0, 40, None)
        noted = await session._evaluate("sessionStorage.getItem('log')")
        return Outcome("pass", str(noted))

    return Case(
        id="contrastwatch",
        title="Read what the page noticed",
        version="1",
        tags=(),
        category="test",
        wcag=(),
        apg_pattern=None,
        hooks=(),
        prompt="",
        checks=(Check(id="read-log", description="Reads the page's log.", type="BP", func=read),),
        path=Path(__file__).parent,
    )


def test_the_page_cannot_tell_the_pixel_check_ran(evaluator: Evaluator) -> None:
    obs = evaluator.evaluate(_reading_case(), WATCHER)
    assert obs.status == "ok", obs.error
    audit = obs.contrast
    assert audit is not None and audit.error is None
    measured = {n.target: n for n in audit.nodes}
    # The check really ran on both nodes: one axe could not tell, one axe failed.
    assert measured[("#band",)].axe == "incomplete" and measured[("#band",)].pixel == "pass"
    assert measured[("#grey",)].axe == "violation" and measured[("#grey",)].pixel == "fail"
    (check,) = obs.checks
    assert check.outcome == "pass"
    assert json.loads(check.message) == [], f"the page noticed: {check.message}"


def test_the_watcher_sees_a_scroll(evaluator: Evaluator) -> None:
    """The control of the test above: the page's watch is real, and catches a scroll."""
    html = WATCHER.replace("</main>", '<div style="height: 3000px"></div></main>')
    obs = evaluator.evaluate(_reading_case(scroll_first=True), html)
    assert obs.status == "ok", obs.error
    (check,) = obs.checks
    assert "scroll" in json.loads(check.message)


def _page(body: str, style: str = "") -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title><style>'
        "body { margin: 0; padding: 20px; font: 16px sans-serif; background: #fff; }"
        f"{style}</style></head><body><main>{body}</main></body></html>"
    )


UNMEASURABLE = [
    pytest.param(
        _page('<p id="t">Text drawn only by its shadow</p>', "#t { color: transparent; text-shadow: 0 0 0 #ccc }"),
        "no colour of its own",
        id="shadow-drawn-text",
    ),
    pytest.param(
        _page('<div style="position:relative"><p id="t" style="color:#999">Text under a cover</p>'
              '<div style="position:absolute; inset:0; background:#000"></div></div>'),
        "",
        id="covered-text",
    ),
    pytest.param(
        _page('<div style="height: 8px; overflow: hidden">'
              '<p id="t" style="color:#999; margin:0">Clipped text</p></div>'),
        "",
        id="clipped-text",
    ),
]


def test_text_whose_colour_never_stops_changing_is_measured_as_painted(evaluator: Evaluator) -> None:
    """Attack: keep the text animating for ever, so that the pixels leave it to axe. It is
    measured as painted when captured, and fails there."""
    html = _page(
        '<p id="t">Grey text whose colour flickers</p>',
        "@keyframes f { from { color: #999 } to { color: #aaa } } #t { animation: f 1s infinite alternate }",
    )
    obs = evaluator.evaluate(None, html)
    assert obs.status == "ok", obs.error
    assert obs.contrast is not None
    nodes = [n for n in obs.contrast.nodes if n.target == ("#t",)]
    assert nodes and all((n.pixel, n.decided) == ("fail", "fail") for n in nodes), nodes
    assert not score_observation(obs).passed


@pytest.mark.parametrize(("html", "reason"), UNMEASURABLE)
def test_what_the_pixels_cannot_measure_keeps_axes_answer(evaluator: Evaluator, html: str, reason: str) -> None:
    """Attack: make the text unmeasurable and hope an axe failure goes away. It does not: the
    node keeps axe's answer, and the sample fails or carries an incomplete node."""
    obs = evaluator.evaluate(None, html)
    assert obs.status == "ok", obs.error
    cc = [f for f in obs.axe.violations + obs.axe.incomplete if f.rule_id == "color-contrast"]
    if not cc:
        pytest.fail("axe reported nothing for the text: the attack page does not test the pixel check")
    audit = obs.contrast
    assert audit is not None
    (node,) = [n for n in audit.nodes if n.target == ("#t",)]
    assert node.pixel == "unmeasurable", node
    assert reason in node.note
    assert node.decided_by == "axe"
    score = score_observation(obs)
    if node.axe == "violation":
        assert node.decided == "fail"
        assert not score.passed and score.axe_failures >= 1
    else:
        assert node.decided == "incomplete"
        assert score.contrast_incomplete == 1


def test_more_failures_than_the_check_measures_all_still_count(evaluator: Evaluator) -> None:
    """Attack: bury the failures in volume, past what the pixel check measures. Every node past
    the limit (or past the screens it scrolls to) keeps axe's failure."""
    count = MAX_NODES + 40
    html = _page("".join(f'<p style="color:#aaa; margin:0">Pale line {i}</p>' for i in range(count)))
    obs = evaluator.evaluate(None, html)
    assert obs.status == "ok", obs.error
    audit = obs.contrast
    assert audit is not None and audit.error is None
    assert len(audit.nodes) == MAX_NODES
    assert audit.unmeasured_violations == 40
    assert score_observation(obs).axe_failures == count


def test_a_pixel_check_out_of_time_leaves_the_rest_to_axe(evaluator: Evaluator) -> None:
    """Attack: a page whose contrast takes long to measure, to run the sample out of time. The
    check stops at its share of the budget; the nodes it did not reach keep axe's answer."""

    async def out_of_time(session: Session) -> Outcome:
        result = await session.probe("runAxe", {"runOnly": {"type": "rule", "values": ["color-contrast"]}})
        audit, _ = await audit_contrast(session, session._tab, result, (1280, 800), budget_s=0.0)
        assert audit is not None
        return Outcome("pass", json.dumps([(n.axe, n.pixel, n.decided, n.decided_by, n.note) for n in audit.nodes]))

    case = replace(_reading_case(), checks=(Check(id="late", description="Audits late.", type="BP", func=out_of_time),))
    html = (PAGES / "long-canvas.html").read_text(encoding="utf-8")
    obs = evaluator.evaluate(case, html)
    assert obs.status == "ok", obs.error
    (check,) = obs.checks
    assert check.outcome == "pass", check.message
    nodes = json.loads(check.message)
    assert len(nodes) == 3
    for axe, pixel, decided, by, note in nodes:
        assert (pixel, by) == ("unmeasurable", "axe") and "ran out" in note
        assert decided == ("fail" if axe == "violation" else "incomplete")
