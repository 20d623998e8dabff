"""No pass on what the pixel check could not measure (issue 32).

axe's "can't tell" fails no sample on its own: the pixel check decides it. When that measurement
fails on the text (the check itself throws, the page repaints while it is captured, the text
leaves the document after axe saw it) the node is not audited and the sample does not pass, with
the reason in the record. Each attack is pale text at about 1.4:1 that axe cannot tell on; each
twin is the same construction, readable, and passes.
"""

from __future__ import annotations

import pytest

from lm_eval_a11y.engine import conditions as engine_conditions
from lm_eval_a11y.engine.evaluator import Evaluator
from lm_eval_a11y.engine.tab import Tab
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation

_TEXT = "Payments are due on the first day of each month."


def _page(body: str, style: str = "") -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unmeasured text</title><style>'
        "body { margin: 0; padding: 20px; font: 16px sans-serif; background: #fff; color: #000; }"
        f"{style}</style></head><body><main><h1>Notice</h1>{body}</main></body></html>"
    )


# Text over a gradient: axe cannot tell. #d6d6d6 on white is 1.45:1; #333 is 12.6:1.
_GRADIENT = ".g { background: linear-gradient(#fff, #fefefe) }"


def _on_gradient(colour: str, script: str = "") -> str:
    return _page(f'<div class="g"><p id="t">{_TEXT}</p></div>{script}', f"{_GRADIENT} #t {{ color: {colour} }}")


def _not_audited(obs: Observation, why: str) -> None:
    assert obs.status == "ok", obs.error
    assert obs.contrast is not None and obs.contrast.unaudited_incomplete >= 1, obs.contrast
    score = score_observation(obs)
    assert not score.passed
    assert any("could not tell on" in r and why in r for r in score.reasons), score.reasons


def test_a_capture_that_throws_leaves_cant_tell_not_audited(
    evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack (an injected fault: no page we found makes a capture throw): the pixel check breaks
    on pale text axe cannot tell on. axe's "can't tell" stands, and is not audited, with the
    check's error as the reason. Twin: a page axe decides alone passes with the same fault."""

    async def broken(self: Tab, clip: dict[str, float]) -> str:
        raise RuntimeError("the capture failed")

    monkeypatch.setattr(Tab, "capture_png", broken)
    bad, good = evaluator.evaluate_many([(None, _on_gradient("#d6d6d6")), (None, _page(f"<p>{_TEXT}</p>"))])
    assert bad.contrast is not None and bad.contrast.error == "RuntimeError: the capture failed", bad.contrast
    _not_audited(bad, "the check failed: RuntimeError: the capture failed")
    assert good.status == "ok" and score_observation(good).passed, score_observation(good).reasons


# The page replaces its text with a copy every 5 ms: the element axe saw is never in the
# document when the check looks for it, while a reader sees the same pale line all along.
_REPLACED = (
    "<script>setInterval(() => { const t = document.getElementById('t');"
    " t.replaceWith(t.cloneNode(true)); }, 5);</script>"
)

# The page watches the glyph isolation (its text's computed -webkit-text-fill-color, a near-black
# #010101 of its own) and repaints its background while the fill is overridden. Its text lies
# under a white veil at 85 % (black at 1.41:1 as painted), so the text's own colour appears
# nowhere in the pixels and only the isolated glyphs could measure it.
_VEILED = (
    ".w { position: relative; background-image: linear-gradient(rgba(255,255,255,.5), rgba(255,255,255,.4)) }"
    " #t { color: #010101 } .veil { position: absolute; inset: 0; background: rgba(255,255,255,.85);"
    " pointer-events: none }"
)
_REPAINTS = (
    "<script>const t = document.getElementById('t'), w = document.querySelector('.w');"
    " setInterval(() => { w.style.backgroundColor ="
    " getComputedStyle(t).webkitTextFillColor === 'rgb(1, 1, 1)' ? '' : '#6b6bff'; }, 1);</script>"
)

# The page hides its pale text for 400 ms whenever it sees the text's fill overridden: by the time
# the check describes the text after its captures, it is not visible.
_HIDES = (
    "<script>const t = document.getElementById('t'); let until = 0;"
    " setInterval(() => { if (getComputedStyle(t).webkitTextFillColor !== 'rgb(214, 214, 214)')"
    " { until = performance.now() + 400; } t.style.visibility = performance.now() < until ? 'hidden' : ''; }, 1);"
    "</script>"
)


def _veiled(alpha: str, script: str = "") -> str:
    return _page(
        f'<div class="w"><p id="t">{_TEXT}</p><div class="veil"></div></div>{script}', _VEILED.replace(".85", alpha)
    )


def test_text_gone_or_repainted_when_captured_is_not_audited(evaluator: Evaluator) -> None:
    """Attacks: pale text that axe cannot tell on and that the check never gets to measure,
    because the element axe saw left the document (replaced by a copy on a timer), because the
    page repaints its background while the glyphs are isolated, or because it hides the text
    then. None passes, and the record says why. Twins: the same text readable and left alone
    passes."""
    gone, repainted, hidden, readable, unveiled = evaluator.evaluate_many(
        [
            (None, _on_gradient("#d6d6d6", _REPLACED)),
            (None, _veiled(".85", _REPAINTS)),
            (None, _on_gradient("#d6d6d6", _HIDES)),
            (None, _on_gradient("#333")),
            (None, _veiled(".2")),
        ]
    )
    _not_audited(gone, "gone from where it was captured")
    assert gone.contrast is not None
    nodes = [n for n in gone.contrast.nodes if n.target == ("#t",)]
    assert nodes and all(n.decided != "pass" for n in nodes), nodes
    # Gone when the check listed it, when it framed the capture, or when it described the pixels.
    gone_notes = ("the element is no longer in the document", "the text was not inside any capture")
    assert all(n.note.startswith(gone_notes) for n in nodes if n.decided != "fail"), nodes
    _not_audited(repainted, "repainted while captured")
    assert repainted.contrast is not None
    nodes = [n for n in repainted.contrast.nodes if n.target == ("#t",)]
    assert nodes and all((n.axe, n.pixel, n.decided) == ("incomplete", "unmeasurable", "incomplete") for n in nodes)
    assert all("repainted around the text" in n.note for n in nodes), nodes
    _not_audited(hidden, "gone from where it was captured")
    assert hidden.contrast is not None
    nodes = [n for n in hidden.contrast.nodes if n.target == ("#t",)]
    assert nodes and all(n.decided != "pass" for n in nodes), nodes
    assert any(n.note.endswith("once it was captured") for n in nodes), nodes
    for twin in (readable, unveiled):
        assert twin.contrast is not None and twin.contrast.unaudited_incomplete == 0, twin.contrast
        (node,) = [n for n in twin.contrast.nodes if n.target == ("#t",)]
        assert (node.axe, node.decided) == ("incomplete", "pass"), node
        assert score_observation(twin).passed, score_observation(twin).reasons


def test_a_condition_whose_measurement_breaks_leaves_cant_tell_not_audited(
    evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack (an injected fault): text readable on a desktop turns pale on a phone, where axe
    cannot tell, and the pixel check breaks in the phone's audit. The phone's "can't tell" is not
    audited. Twin: a phone version axe decides alone (a plain background) passes with the fault."""

    async def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("the capture failed")

    monkeypatch.setattr(engine_conditions, "measure_last_run", broken)
    phone = "@media (pointer: coarse) { #t { color: #d6d6d6 } }"
    bad, good = evaluator.evaluate_many(
        [
            (None, _on_gradient("#333").replace("</style>", phone + "</style>")),
            (None, _page(f'<p id="t">{_TEXT}</p>', "@media (pointer: coarse) { #t { color: #222 } }")),
        ]
    )
    assert any(state.startswith("phone") for state in bad.axe.states), bad.axe.states
    _not_audited(bad, "did not measure")
    assert good.status == "ok" and score_observation(good).passed, score_observation(good).reasons
