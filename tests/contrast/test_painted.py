"""Text painted at about 1.4:1 by a construction its CSS colours do not show, each with a readable twin.

The pixel check measures such text with its glyphs isolated (engine/paint.py, painted.py): each
attack page must not pass, and its readable twin must. Text under
endless motion is measured as painted when captured, and a failure behind more "can't tell"
decoys than the check measures is never a pass (the tests at the end)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from lm_eval_a11y.engine import contrast as engine_contrast
from lm_eval_a11y.engine import paint as engine_paint
from lm_eval_a11y.engine.evaluator import Evaluator
from lm_eval_a11y.scoring import score_observation


def _page(body: str, style: str = "") -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Painted text</title><style>'
        "body { margin: 0; padding: 20px; font: 16px sans-serif; background: #fff; color: #000; }"
        f"{style}</style></head><body><main><h1>Notice</h1>{body}</main></body></html>"
    )


# A light image (a 2x2 PNG of #eee and #f4f4f4) as a data: URL: it always loads.
_LIGHT_IMAGE = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='4' height='4'%3E"
    "%3Crect width='4' height='4' fill='%23eeeeee'/%3E%3Crect width='2' height='2' fill='%23f6f6f6'/%3E%3C/svg%3E"
)


@dataclass(frozen=True)
class Painted:
    name: str
    bad: str  # the text as a person sees it is at about 1.3-1.5:1
    good: str  # the same construction, readable


def _pair(name: str, body: str, style_bad: str, style_good: str, body_good: str | None = None) -> Painted:
    return Painted(name, _page(body, style_bad), _page(body if body_good is None else body_good, style_good))


_TEXT = "Payments are due on the first day of each month."
_BLOCKS = "\u2588" * 6  # full blocks: glyphs that fill their box

PAINTED: tuple[Painted, ...] = (
    # filter on the text: black text made pale, or the whole box pulled towards grey.
    _pair("filter-invert", f'<p id="t">{_TEXT}</p>', "#t { filter: invert(0.85) }", "#t { filter: invert(0.2) }"),
    _pair("filter-opacity", f'<p id="t">{_TEXT}</p>', "#t { filter: opacity(0.15) }", "#t { filter: opacity(0.9) }"),
    _pair(
        "filter-contrast",
        f'<p id="t">{_TEXT}</p>',
        "#t { background: #fff; filter: contrast(0.12) }",
        "#t { background: #fff; filter: contrast(0.8) }",
    ),
    # Dark text blended with white by difference: it shows as pale grey.
    _pair(
        "mix-blend-mode",
        f'<p id="t">{_TEXT}</p>',
        "#t { color: #262626; mix-blend-mode: difference }",
        "#t { color: #dddddd; mix-blend-mode: difference }",
    ),
    # A translucent white layer over black text.
    _pair(
        "translucent-overlay",
        f'<div class="w"><p id="t">{_TEXT}</p><div class="veil"></div></div>',
        ".w { position: relative } .veil { position: absolute; inset: 0; background: rgba(255,255,255,.85);"
        " pointer-events: none }",
        ".w { position: relative } .veil { position: absolute; inset: 0; background: rgba(255,255,255,.2);"
        " pointer-events: none }",
    ),
    _pair(
        "backdrop-filter",
        f'<div class="w"><p id="t">{_TEXT}</p><div class="veil"></div></div>',
        ".w { position: relative } .veil { position: absolute; inset: 0; backdrop-filter: contrast(0.12);"
        " pointer-events: none }",
        ".w { position: relative } .veil { position: absolute; inset: 0; backdrop-filter: contrast(0.8);"
        " pointer-events: none }",
    ),
    # Text whose colour comes from a pseudo-element.
    _pair(
        "first-line",
        f'<p id="t">{_TEXT}</p>',
        "#t::first-line { color: #dcdcdc }",
        "#t::first-line { color: #333 }",
    ),
    _pair(
        "after",
        '<p id="t"></p>',
        '#t::after { content: "Payments are due on the first day of each month."; color: #dcdcdc }',
        '#t::after { content: "Payments are due on the first day of each month."; color: #333 }',
    ),
    _pair(
        "placeholder",
        '<label for="t">Email</label> <input id="t" type="email" placeholder="name@example.com">',
        "#t { font: 16px sans-serif } #t::placeholder { color: #dcdcdc; opacity: 1 }",
        "#t { font: 16px sans-serif } #t::placeholder { color: #595959; opacity: 1 }",
    ),
    _pair(
        "svg-text",
        f'<svg id="s" width="600" height="40" role="img" aria-labelledby="t"><text id="t" x="0" y="24"'
        f' font-size="16">{_TEXT}</text></svg>',
        "#t { fill: #dcdcdc }",
        "#t { fill: #333 }",
    ),
    # Pale text on ruled paper: the dark rules lie within a stroke's reach of every glyph.
    _pair(
        "ruled",
        f'<p id="t">{_TEXT}</p>',
        "#t { color: #dcdcdc; line-height: 20px; background: repeating-linear-gradient(#fff 0 3px, #000 3px 4px) }",
        "#t { color: #333; line-height: 20px; background: repeating-linear-gradient(#fff 0 3px, #000 3px 4px) }",
    ),
    _pair(
        "gridded",
        f'<p id="t">{_TEXT}</p>',
        "#t { color: #dcdcdc; background-color: #fff; background-image:"
        " linear-gradient(90deg, #000 1px, transparent 1px), linear-gradient(#000 1px, transparent 1px);"
        " background-size: 5px 5px }",
        "#t { color: #333; background-color: #fff; background-image:"
        " linear-gradient(90deg, #000 1px, transparent 1px), linear-gradient(#000 1px, transparent 1px);"
        " background-size: 5px 5px }",
    ),
    # A box another element's ::after paints over the text: axe's stacks hold elements only.
    _pair(
        "pseudo-overlay",
        f'<div class="w"><span class="v"></span><p id="t">{_TEXT}</p></div>',
        '.w { position: relative } .v::after { content: ""; position: absolute; inset: 0;'
        " background: rgba(255,255,255,.85); pointer-events: none }",
        '.w { position: relative } .v::after { content: ""; position: absolute; inset: 0;'
        " background: rgba(255,255,255,.2); pointer-events: none }",
    ),
    # Paint another element spills past its own box over the text: axe's stacks hold the
    # elements whose boxes lie under a point, not the shadow, outline or reflection around them.
    _pair(
        "box-shadow-veil",
        f'<div class="w"><span class="v"></span><p id="t">{_TEXT}</p></div>',
        ".w { position: relative; padding-top: 40px } .v { position: absolute; top: 0; left: 0; width: 2px;"
        " height: 2px; box-shadow: 0 0 0 480px rgba(255,255,255,.85) }",
        ".w { position: relative; padding-top: 40px } .v { position: absolute; top: 0; left: 0; width: 2px;"
        " height: 2px; box-shadow: 0 0 0 480px rgba(255,255,255,.2) }",
    ),
    # The same spilled paint under the text: a dark shadow behind dark text.
    _pair(
        "box-shadow-under",
        f'<div class="w"><div class="v"></div><p id="t">{_TEXT}</p></div>',
        ".v { width: 2px; height: 2px; box-shadow: 0 0 0 480px rgba(0,0,0,.85) }",
        ".v { width: 2px; height: 2px; box-shadow: 0 0 0 480px rgba(0,0,0,.2) }",
    ),
    _pair(
        "outline-veil",
        f'<div class="w"><span class="v"></span><p id="t">{_TEXT}</p></div>',
        ".w { position: relative; padding-top: 40px } .v { position: absolute; top: 0; left: 0; width: 2px;"
        " height: 2px; outline: 480px solid rgba(255,255,255,.85) }",
        ".w { position: relative; padding-top: 40px } .v { position: absolute; top: 0; left: 0; width: 2px;"
        " height: 2px; outline: 480px solid rgba(255,255,255,.2) }",
    ),
    # The text's container draws its outline inwards, over its own content.
    _pair(
        "inner-outline-veil",
        f'<div class="w"><p id="t">{_TEXT}</p></div>',
        ".w { padding: 8px 8px 60px; outline: 30px solid rgba(255,255,255,.85); outline-offset: -30px }"
        " #t { margin: 0 }",
        ".w { padding: 8px 8px 60px; outline: 30px solid rgba(255,255,255,.2); outline-offset: -30px }"
        " #t { margin: 0 }",
    ),
    # The body's own outline, drawn inwards over the whole page.
    _pair(
        "body-outline-veil",
        f'<p id="t">{_TEXT}</p>',
        "body { outline: 200px solid rgba(255,255,255,.85); outline-offset: -200px }",
        "body { outline: 200px solid rgba(255,255,255,.2); outline-offset: -200px }",
    ),
    # A block glyph far above, whose shadow lands on the text.
    _pair(
        "text-shadow-veil",
        f'<div class="w"><span class="v" aria-hidden="true">\u2588\u2588\u2588\u2588\u2588</span>'
        f'<p id="t">{_TEXT}</p></div>',
        ".w { position: relative; padding-top: 160px } .v { position: absolute; top: 0; left: 0; font: 150px/1"
        " monospace; letter-spacing: -4px; color: #fff; text-shadow: 0 110px 0 rgba(255,255,255,.85) }",
        ".w { position: relative; padding-top: 160px } .v { position: absolute; top: 0; left: 0; font: 150px/1"
        " monospace; letter-spacing: -4px; color: #fff; text-shadow: 0 110px 0 rgba(255,255,255,.2) }",
    ),
    # The stroke of a block glyph far above, wide enough to reach the text.
    _pair(
        "text-stroke-veil",
        f'<div class="w"><span class="v" aria-hidden="true">{_BLOCKS}</span><p id="t">{_TEXT}</p></div>',
        ".w { position: relative; padding-top: 110px } .v { position: absolute; top: 0; left: 0; font: 100px/1"
        " monospace; letter-spacing: 60px; color: transparent; -webkit-text-stroke: 120px rgba(255,255,255,.85) }",
        ".w { position: relative; padding-top: 110px } .v { position: absolute; top: 0; left: 0; font: 100px/1"
        " monospace; letter-spacing: 60px; color: transparent; -webkit-text-stroke: 120px rgba(255,255,255,.2) }",
    ),
    # A veil fixed to the viewport, met by text only once the reader scrolls to it.
    _pair(
        "fixed-veil",
        f'<div class="v"></div><p id="t">{_TEXT}</p>',
        ".v { position: fixed; top: 0; left: 0; width: 2px; height: 2px;"
        " box-shadow: 0 0 0 1000px rgba(255,255,255,.85) } #t { margin-top: 2400px }",
        ".v { position: fixed; top: 0; left: 0; width: 2px; height: 2px;"
        " box-shadow: 0 0 0 1000px rgba(255,255,255,.2) } #t { margin-top: 2400px }",
    ),
    # A white box above the text (white on white) whose drop shadow lands on the text.
    _pair(
        "drop-shadow-veil",
        f'<div class="w"><div class="v"></div><p id="t">{_TEXT}</p></div>',
        ".w { position: relative; padding-top: 100px } .v { position: absolute; top: 0; left: 0; right: 0;"
        " height: 80px; background: #fff; filter: drop-shadow(0 100px 0 rgba(255,255,255,.85)) }",
        ".w { position: relative; padding-top: 100px } .v { position: absolute; top: 0; left: 0; right: 0;"
        " height: 80px; background: #fff; filter: drop-shadow(0 100px 0 rgba(255,255,255,.2)) }",
    ),
    # A translucent white box above the text, reflected down over it.
    _pair(
        "box-reflect-veil",
        f'<div class="w"><div class="v"></div><p id="t">{_TEXT}</p></div>',
        ".w { position: relative; padding-top: 100px } .v { position: absolute; top: 0; left: 0; right: 0;"
        " height: 80px; background: rgba(255,255,255,.85); -webkit-box-reflect: below 20px }",
        ".w { position: relative; padding-top: 100px } .v { position: absolute; top: 0; left: 0; right: 0;"
        " height: 80px; background: rgba(255,255,255,.2); -webkit-box-reflect: below 20px }",
    ),
    # A tiny box whose border image, pushed outwards and filled, covers the text.
    _pair(
        "border-image-veil",
        f'<div class="w"><span class="v"></span><p id="t">{_TEXT}</p></div>',
        ".w { position: relative; padding-top: 40px } .v { position: absolute; top: 0; left: 0; width: 2px;"
        " height: 2px; border: 1px solid transparent; border-image:"
        " linear-gradient(rgba(255,255,255,.85), rgba(255,255,255,.85)) 1 fill / 1px / 480px }",
        ".w { position: relative; padding-top: 40px } .v { position: absolute; top: 0; left: 0; width: 2px;"
        " height: 2px; border: 1px solid transparent; border-image:"
        " linear-gradient(rgba(255,255,255,.2), rgba(255,255,255,.2)) 1 fill / 1px / 480px }",
    ),
    # Text axe leaves out as part of a disabled widget, in a wrapper that disables nothing.
    _pair(
        "aria-disabled",
        f'<div aria-disabled="true"><p id="t">{_TEXT}</p></div>',
        "#t { color: #dcdcdc }",
        "#t { color: #333 }",
    ),
    # A mask lets a sixth of the black text through.
    _pair(
        "mask",
        f'<p id="t">{_TEXT}</p>',
        "#t { mask-image: linear-gradient(rgba(0,0,0,.15), rgba(0,0,0,.15)) }",
        "#t { mask-image: linear-gradient(rgba(0,0,0,.9), rgba(0,0,0,.9)) }",
    ),
)


MEASURED = tuple(p.name for p in PAINTED)
# Text axe passes without a word: only the sweep of every text measures it.
SWEPT = (
    "filter-invert",
    "filter-opacity",
    "filter-contrast",
    "mix-blend-mode",
    "first-line",
    "after",
    "placeholder",
    "pseudo-overlay",
    "aria-disabled",
    "mask",
    "box-shadow-veil",
    "box-shadow-under",
    "outline-veil",
    "inner-outline-veil",
    "body-outline-veil",
    "text-shadow-veil",
    "text-stroke-veil",
    "fixed-veil",
    "drop-shadow-veil",
    "box-reflect-veil",
    "border-image-veil",
)
BY_NAME = {p.name: p for p in PAINTED}


@pytest.mark.parametrize("name", MEASURED)
def test_painted_text_fails_and_its_twin_passes(evaluator: Evaluator, name: str) -> None:
    page: Painted = BY_NAME[name]
    bad, good = evaluator.evaluate_many([(None, page.bad), (None, page.good)])
    assert bad.status == "ok" and good.status == "ok", (bad.error, good.error)
    assert bad.contrast is not None
    (node,) = [n for n in bad.contrast.nodes if n.target == ("#t",)]
    assert node.axe in (("pass",) if name in SWEPT else ("incomplete",)), node
    assert (node.pixel, node.decided) == ("fail", "fail"), node
    assert node.pixel_ratio is not None and node.pixel_ratio < 2.0, node
    assert not score_observation(bad).passed
    assert score_observation(good).passed, score_observation(good).reasons


@pytest.mark.parametrize("name", MEASURED)
def test_without_isolation_the_attack_passes(evaluator: Evaluator, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: the text's own colour alone lets these pages through."""
    monkeypatch.setattr(engine_contrast, "ISOLATE_GLYPHS", False)
    (obs,) = evaluator.evaluate_many([(None, BY_NAME[name].bad)])
    assert score_observation(obs).passed


# Shadows and outlines as ordinary pages draw them, none reaching another element's text.
_ORDINARY = _page(
    '<nav class="bar"><a href="#plans">Plans</a> <a href="#help">Help</a></nav>'
    '<section class="card" id="plans"><h2>Basic plan</h2><p>Ten projects and a shared inbox.</p>'
    "<button>Choose the basic plan</button></section>"
    '<p id="help">Questions? Write to the help desk.</p>',
    ".bar { padding: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.2) }"
    " .card { margin: 24px 0; padding: 16px; border-radius: 8px; box-shadow: 0 4px 12px rgba(0,0,0,.15) }"
    " button { font: inherit; outline: 2px solid #005fcc; outline-offset: 2px }",
)


def test_paint_that_meets_no_text_keeps_the_page_plain(evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost: a soft card shadow and a button's outline make no text measured (no capture is
    taken), while the same page with a veil over its text is measured."""
    taken: list[int] = []
    real = engine_paint.isolated_captures

    async def counted(*args: object, **kwargs: object) -> list[str]:
        taken.append(1)
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine_contrast, "isolated_captures", counted)
    (plain,) = evaluator.evaluate_many([(None, _ORDINARY)])
    assert plain.status == "ok" and score_observation(plain).passed
    assert taken == []
    veiled = _ORDINARY.replace(
        "</style>", " .card { position: relative; box-shadow: 0 0 0 80px rgba(255,255,255,.85) }</style>"
    )
    (obs,) = evaluator.evaluate_many([(None, veiled)])
    assert taken and not score_observation(obs).passed


# A dark image (a 4x4 SVG of #222) as a data: URL: it always loads.
_DARK_IMAGE = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='4' height='4'%3E"
    "%3Crect width='4' height='4' fill='%23222222'/%3E%3C/svg%3E"
)


def _hero(image: str, colour: str = "#eee") -> str:
    return _page(
        f'<div class="hero"><p id="t">{_TEXT}</p></div>',
        f'.hero {{ padding: 20px; background: #222 url("{image}") center / cover }} #t {{ color: {colour} }}',
    )


def test_an_image_that_never_loaded_passes_no_text(evaluator: Evaluator) -> None:
    """Offline the image is blocked and the dark fallback colour is painted instead, on which
    the pale text reads well; a visitor's browser loads the image, which may be light. The pixels
    cannot pass that text: it stays axe's "can't tell" (undecided, which fails no sample). Text
    that fails even on the fallback fails (a reader whose images do not load sees just that), so
    an image that never loads hides no failure. The same image as a data: URL loads and is
    measured."""
    blocked, dim, loaded = evaluator.evaluate_many(
        [
            (None, _hero("https://img.invalid/bg.png")),
            (None, _hero("https://img.invalid/bg.png", "#444")),
            (None, _hero(_DARK_IMAGE)),
        ]
    )
    assert blocked.status == dim.status == loaded.status == "ok", (blocked.error, dim.error, loaded.error)
    assert "https://img.invalid/bg.png" in blocked.events.blocked_requests
    assert blocked.contrast is not None and dim.contrast is not None and loaded.contrast is not None
    (node,) = [n for n in blocked.contrast.nodes if n.target == ("#t",)]
    assert (node.axe, node.pixel, node.decided) == ("incomplete", "unmeasurable", "incomplete"), node
    assert "did not load" in node.note, node
    score = score_observation(blocked)
    assert score.contrast_incomplete == 1 and score.contrast_resolved_pass == 0, score
    (failing,) = [n for n in dim.contrast.nodes if n.target == ("#t",)]
    assert (failing.axe, failing.pixel, failing.decided) == ("incomplete", "fail", "fail"), failing
    assert "did not load" in failing.note, failing
    assert not score_observation(dim).passed
    (twin,) = [n for n in loaded.contrast.nodes if n.target == ("#t",)]
    assert (twin.axe, twin.pixel, twin.decided) == ("incomplete", "pass", "pass"), twin
    assert score_observation(loaded).passed


# Text over a light background image under an ancestor that never stops moving (the settle
# waits for animations that end; these do not), as a person sees it at the moment of capture.
_MOVING = f'<div class="spin"><p id="t">{_TEXT}</p></div>'
_SPIN = f'.spin {{ background: #eee url("{_LIGHT_IMAGE}") }}'
_WOB = " @keyframes wob { from { transform: translateX(0) } to { transform: translateX(0.01px) } }"


def _script(code: str) -> str:
    return f"<script>{code}</script>"


ANIMATED: dict[str, tuple[str, str]] = {
    # An endless CSS animation of the ancestor.
    "css-infinite": (_MOVING, f"{_SPIN} .spin {{ animation: wob 3s linear infinite }}{_WOB}"),
    # A finite one that outlasts the evaluation.
    "css-hour": (_MOVING, f"{_SPIN} .spin {{ animation: wob 3600s linear 1 }}{_WOB}"),
    # An endless Web Animations API animation, started by the page's script.
    "waapi-infinite": (
        _MOVING
        + _script(
            "document.querySelector('.spin').animate([{transform: 'translateX(0)'},"
            " {transform: 'translateX(0.01px)'}], {duration: 3000, iterations: Infinity});"
        ),
        _SPIN,
    ),
    # A transition restarted by a timer, again and again.
    "interval-transition": (
        _MOVING + _script("setInterval(() => document.querySelector('.spin').classList.toggle('on'), 200);"),
        f"{_SPIN} .spin {{ transition: transform 0.5s linear }} .spin.on {{ transform: translateX(0.01px) }}",
    ),
}


@pytest.mark.parametrize("name", tuple(ANIMATED))
def test_text_under_endless_motion_is_measured_as_painted(evaluator: Evaluator, name: str) -> None:
    """Attack: pale text under an ancestor that never stops moving, over an image axe cannot
    judge. The pixels measure it as painted when captured, and its readable twin passes."""
    body, style = ANIMATED[name]
    bad, good = evaluator.evaluate_many(
        [(None, _page(body, style + " #t { color: #c4c4c4 }")), (None, _page(body, style + " #t { color: #333 }"))]
    )
    assert bad.status == "ok" and good.status == "ok", (bad.error, good.error)
    assert bad.contrast is not None
    # A timer's changes are new states of the page, each audited: the text is measured in each.
    nodes = [n for n in bad.contrast.nodes if n.target == ("#t",)]
    assert nodes and all(n.axe == "incomplete" and n.decided != "pass" for n in nodes), nodes
    assert any((n.pixel, n.decided) == ("fail", "fail") for n in nodes), nodes
    assert not score_observation(bad).passed
    assert score_observation(good).passed, score_observation(good).reasons


def _decoys(count: int, colour: str) -> str:
    """``count`` readable lines axe cannot decide on (over a gradient), then one in ``colour``."""
    return _page(
        "".join(f'<p class="g">Readable line {i}</p>' for i in range(count)) + f'<p class="g" id="t">{_TEXT}</p>',
        f".g {{ margin: 0; background: linear-gradient(90deg, #fff, #fefefe); color: #000 }} #t {{ color: {colour} }}",
    )


@pytest.mark.parametrize("decoys", [engine_contrast.MAX_NODES + 20, 2000])
def test_a_failure_behind_more_decoys_than_are_measured_does_not_pass(evaluator: Evaluator, decoys: int) -> None:
    """Attack: readable "can't tell" lines ahead of one pale line, more than the check measures.
    Which of axe's nodes are measured is drawn at random, and the "can't tell" nodes it leaves
    (past its node limit, its screens or its time) leave the sample undecided: found, the pale
    line fails the sample; missed, the sample is not audited. Never a pass."""
    (obs,) = evaluator.evaluate_many([(None, _decoys(decoys, "#dcdcdc"))])
    assert obs.status == "ok", obs.error
    audit = obs.contrast
    assert audit is not None and audit.error is None
    assert audit.unmeasured_incomplete == decoys + 1 - engine_contrast.MAX_NODES
    assert audit.unaudited_incomplete >= audit.unmeasured_incomplete
    score = score_observation(obs)
    assert not score.passed
    assert any("could not tell on" in r for r in score.reasons), score.reasons
    found = [n for n in audit.nodes if n.target == ("#t",)]
    assert all(n.decided in ("fail", "incomplete") for n in found), found


def test_the_nodes_measured_past_the_limit_are_drawn_at_random(
    evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a small limit, the pale line at the end of the page is measured in some runs: the
    page does not choose which nodes are left to axe (document order would never reach it)."""
    monkeypatch.setattr(engine_contrast, "MAX_NODES", 6)
    html = _decoys(11, "#dcdcdc")
    # The pale line is drawn in half the runs: all 12 missing it has a chance of 1 in 4096.
    runs = evaluator.evaluate_many([(None, html)] * 12)
    seen = [
        any(n.target == ("#t",) and n.decided == "fail" for n in obs.contrast.nodes) for obs in runs if obs.contrast
    ]
    assert len(seen) == 12 and any(seen), seen
    assert all(obs.contrast is not None and obs.contrast.unmeasured_incomplete == 6 for obs in runs)
    assert not any(score_observation(obs).passed for obs in runs)


def test_decoys_all_measured_pass_when_readable(evaluator: Evaluator) -> None:
    """The twin: every "can't tell" line measured and readable, within the limit: a pass."""
    (obs,) = evaluator.evaluate_many([(None, _decoys(40, "#333"))])
    assert obs.contrast is not None and obs.contrast.unaudited_incomplete == 0
    assert score_observation(obs).passed, score_observation(obs).reasons


# Something translucent over part of the glyphs' height, each at about 1.4:1 where it lies: a thick
# line-through, a band over the middle three fifths of a line, a pseudo-element over its lower half.
_VEIL = "rgba(255,255,255,.85)"
_THIN = "rgba(255,255,255,.2)"


def _veils(colour: str, line_through: str) -> str:
    """The band and the pseudo-element's veil in ``colour``, the line-through as ``line_through``,
    and a thin underline."""
    return _page(
        f'<p id="lt">{_TEXT}</p><div class="w"><p id="band">{_TEXT}</p><div class="b"></div></div>'
        f'<p id="after">{_TEXT}</p><p id="ul">{_TEXT}</p>',
        f"#lt {{ text-decoration: {line_through} }}"
        " #ul { text-decoration: underline; text-decoration-thickness: 2px }"
        " .w { position: relative } #band, #after { line-height: 1.2 }"
        f" .b {{ position: absolute; left: 0; right: 0; top: 20%; height: 60%; background: {colour} }}"
        ' #after { position: relative } #after::after { content: ""; position: absolute; left: 0; right: 0;'
        f" top: 45%; bottom: 0; background: linear-gradient({colour}, {colour}) }}",
    )


def test_a_veil_over_part_of_the_glyphs_fails(evaluator: Evaluator) -> None:
    """Attack: most of each glyph's height lies under a translucent veil, the rest is readable. The
    glyphs under the veil count as painted, so the text fails; the same constructions with a faint
    veil, a line-through in the text's colour and a thin underline pass."""
    bad, good = evaluator.evaluate_many(
        [
            (None, _veils(_VEIL, f"line-through {_VEIL}; text-decoration-thickness: .6em")),
            (None, _veils(_THIN, "line-through")),
        ]
    )
    assert bad.status == "ok" and good.status == "ok", (bad.error, good.error)
    assert bad.contrast is not None
    for target in ("#lt", "#band", "#after"):
        (node,) = [n for n in bad.contrast.nodes if n.target == (target,)]
        assert (node.pixel, node.decided) == ("fail", "fail"), node
        assert node.pixel_ratio is not None and node.pixel_ratio < 2.0, node
    assert not score_observation(bad).passed
    assert score_observation(good).passed, score_observation(good).reasons


# Pale text (1.4:1) with a bolder, larger dark copy of it drawn over or under it: axe's can't-tell
# HTML text, SVG text, and text axe passes whose first line is pale.
_OVER_TEXT = _page(
    f'<div class="w"><p id="under">{_TEXT}</p><p class="d">{_TEXT}</p></div>'
    f'<svg width="600" height="30" role="img" aria-labelledby="svg"><text id="svg" x="0" y="20" font-size="16"'
    f' fill="#dcdcdc">{_TEXT}</text><text x="0" y="22" font-size="20" font-weight="bold" aria-hidden="true">'
    f"{_TEXT}</text></svg>"
    f'<div class="w"><p class="d2">{_TEXT}</p><p id="swept">{_TEXT}</p></div>',
    ".w { position: relative; height: 40px } .w p { margin: 0 } #under { color: #dcdcdc }"
    " .d, .d2 { font-weight: bold; font-size: 20px } .d { position: absolute; top: -4px; left: 0 }"
    " #swept { position: absolute; top: 3px; left: 0 } #swept::first-line { color: #dcdcdc }",
)
# Text near other text and not over it: a badge over a button's corner, a decorative copy beside a
# heading, the lines of a tightly set heading over a gradient, a visually hidden label in a line,
# and a popup whose opaque background hides the text under it.
_NEAR_TEXT = _page(
    '<button class="b">Inbox<span class="n">3</span></button>'
    '<div class="w"><h2>Our services</h2><span class="dup" aria-hidden="true">Our services</span></div>'
    '<h2 class="hero"><span>Fast delivery</span><br><span>every day</span></h2>'
    '<p id="t">Read the <a href="#t">terms<span class="sr">of the service agreement</span></a> first.</p>'
    '<div class="w"><p>Orders ship within two days of payment.</p><div class="pop"><span>Account settings</span>'
    "</div></div>",
    "button { position: relative; font: 16px sans-serif; padding: 8px 28px 8px 12px; background: #fff;"
    " color: #000; border: 1px solid #000 } .n { position: absolute; top: -8px; right: -8px;"
    " background: #b00020; color: #fff; border-radius: 9px; padding: 0 6px; font-size: 12px }"
    " .w { position: relative } .dup { position: absolute; top: 40px; left: 200px; color: #555; font-size: 14px }"
    " .hero { font-size: 40px; line-height: .85 } .hero span, #t { background: linear-gradient(90deg, #fff, #fefefe) }"
    " .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap }"
    " .pop { position: absolute; top: -5px; left: 40px; padding: 4px; background: #fff; border: 1px solid #000 }"
    " .pop span { background: linear-gradient(90deg, #fff, #fefefe) }",
)


def test_text_drawn_over_other_text_is_not_passed(evaluator: Evaluator) -> None:
    """Attack: pale text under or over a dark copy of itself, where the glyph isolation (which fills
    every text at once) and the window around the glyphs find the dark copy's pixels. The pixels
    cannot pass text drawn over another element's text: it is not audited, and the sample does not
    pass. Text beside other text, a badge over a button's corner, a tightly set heading and a popup
    over text pass."""
    bad, good = evaluator.evaluate_many([(None, _OVER_TEXT), (None, _NEAR_TEXT)])
    assert bad.status == "ok" and good.status == "ok", (bad.error, good.error)
    assert bad.contrast is not None
    for target, axe in (("#under", "incomplete"), ("#svg", "incomplete"), ("#swept", "pass")):
        (node,) = [n for n in bad.contrast.nodes if n.target == (target,)]
        assert (node.axe, node.pixel, node.decided) == (axe, "unmeasurable", "incomplete"), node
        assert "other element's text" in node.note, node
    assert bad.contrast.unaudited_incomplete >= 3
    score = score_observation(bad)
    assert not score.passed and any("drawn over other text" in r for r in score.reasons), score.reasons
    assert score_observation(good).passed, score_observation(good).reasons
