"""Screens and preferences (engine/conditions.py): a failure a page shows only on a phone's screen,
with a coarse pointer, in the dark scheme or with reduced motion fails it, named after the
condition; its accessible twin passes; a page that renders the same pays no audit; and nothing of
the emulation reaches the next sample on the tab."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from tab_support import slot_tab

from browser.support import ROOMY_BUDGET_S
from lm_eval_a11y.engine.conditions import CONDITIONS, DARK, PHONE, REDUCED_MOTION
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation


@pytest.fixture(scope="module")
def single_tab() -> Iterator[Evaluator]:
    """One working slot and no waiting ones: one browser context, one tab, for every sample."""
    ev = Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=ROOMY_BUDGET_S))
    ev.start()
    try:
        yield ev
    finally:
        ev.close()


def _page(body: str, style: str = "", script: str = "") -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Conditions</title>'
        "<style>body { font-family: sans-serif; color: #1a1a1a; background: #fff; margin: 0; padding: 1rem; }"
        f".note {{ color: #595959; }} {style}</style></head><body><main><h1>Opening times</h1>"
        f"<p>The shop opens at nine.</p>{body}</main>{script}</body></html>"
    )


# An icon button: unnamed (the failure) or named (its twin).
_ICON = '<button type="button" class="icon"{name}><svg width="24" height="24" aria-hidden="true"></svg></button>'
_UNNAMED, _NAMED = _ICON.format(name=""), _ICON.format(name=' aria-label="Menu"')


def _only(query: str) -> str:
    """CSS that shows the icon button only where ``query`` matches."""
    return f".icon {{ display: none; }} @media {query} {{ .icon {{ display: inline; }} }}"


# Each attack shows the unnamed icon button only under its condition, in a different way.
_SHOWN_BY_CSS = {
    "max-width media rule": (PHONE, _only("(max-width: 700px)")),
    "pointer media rule": (PHONE, _only("(pointer: coarse)")),
    "hover media rule": (PHONE, _only("(hover: none)")),
    "any-pointer media rule": (PHONE, _only("(any-pointer: coarse)")),
    "dark media rule": (DARK, _only("(prefers-color-scheme: dark)")),
    "not-light media rule": (DARK, _only("not (prefers-color-scheme: light)")),
    "reduced-motion media rule": (REDUCED_MOTION, _only("(prefers-reduced-motion: reduce)")),
}
# ... or from script, on a change the page listens for.
_SHOWN_BY_SCRIPT = {
    "dark matchMedia listener": (DARK, "(prefers-color-scheme: dark)"),
    "reduced-motion matchMedia listener": (REDUCED_MOTION, "(prefers-reduced-motion: reduce)"),
    "phone matchMedia listener": (PHONE, "(max-width: 700px)"),
}
_LISTENER = (
    "<script>const q = matchMedia('{query}'); const show = (on) => {{"
    " document.querySelector('.icon').hidden = !on; }}; show(q.matches);"
    " q.addEventListener('change', (e) => show(e.matches));</script>"
)
# Read once, as the page loads: a phone's visitor loads it on the phone.
_AT_LOAD = "<script>document.querySelector('.icon').hidden = !('ontouchstart' in window) || innerWidth > 700;</script>"
_RESIZE = (
    "<script>const fit = () => { document.querySelector('.icon').hidden = innerWidth > 700; }; fit();"
    " addEventListener('resize', fit);</script>"
)


def _attacks() -> list[tuple[str, str, str, str]]:
    """(name, condition label, failing page, accessible twin)."""
    out = [(name, c.label, _page(_UNNAMED, css), _page(_NAMED, css)) for name, (c, css) in _SHOWN_BY_CSS.items()]
    for name, (c, query) in _SHOWN_BY_SCRIPT.items():
        script = _LISTENER.format(query=query)
        out.append((name, c.label, _page(_UNNAMED, script=script), _page(_NAMED, script=script)))
    out.append(("resize handler", PHONE.label, _page(_UNNAMED, script=_RESIZE), _page(_NAMED, script=_RESIZE)))
    # Where a print that stopped early, or at shadow trees, would not look. The shadow tree's
    # host keeps its box either way, and only the shadow tree's own style sheet names the query.
    # An endless animation holds the icon's visibility, and the condition redefines its keyframes:
    # the values an animation is changing are not printed, its keyframes are.
    for condition, query in ((PHONE, "(max-width: 700px)"), (DARK, "(prefers-color-scheme: dark)")):
        held = (
            "@keyframes hold { from, to { visibility: hidden; } }"
            f" @media {query} {{ @keyframes hold {{ from, to {{ visibility: visible; }} }} }}"
            " .icon { animation: hold 1s infinite; }"
        )
        out.append(
            (
                f"{condition.name} keyframes of an endless animation",
                condition.label,
                _page(_UNNAMED, held),
                _page(_NAMED, held),
            )
        )
    # A frame's document reacts to the condition; the frame element does not change. (The frame is
    # narrow on every screen: its own width rules are not the phone's.)
    for condition, query in ((PHONE, "(pointer: coarse)"), (DARK, "(prefers-color-scheme: dark)")):
        framed = '<iframe title="Menu" srcdoc="<style>{css}</style><p>Menu</p>{icon}"></iframe>'.replace(
            "{css}", _only(query)
        )
        out.append(
            (
                f"{condition.name} inside a frame",
                condition.label,
                _page(framed.replace("{icon}", _UNNAMED.replace('"', "&quot;"))),
                _page(framed.replace("{icon}", _NAMED.replace('"', "&quot;"))),
            )
        )
    filler = '<div aria-hidden="true">' + "<span></span>" * 4100 + "</div>"
    phone_css = _only("(max-width: 700px)")
    out.append(
        ("past 4,000 elements", PHONE.label, _page(filler + _UNNAMED, phone_css), _page(filler + _NAMED, phone_css))
    )
    for mode, condition, query in (
        ("open", PHONE, "(max-width: 700px)"),
        ("closed", PHONE, "(max-width: 700px)"),
        ("open", DARK, "(prefers-color-scheme: dark)"),
        ("closed", REDUCED_MOTION, "(prefers-reduced-motion: reduce)"),
    ):
        shadow = (
            f'<shop-menu><template shadowrootmode="{mode}"><style>{_only(query)}</style>'
            "<p>Menu</p>{icon}</template></shop-menu>"
        )
        out.append(
            (
                f"{condition.name} inside a shadow root ({mode})",
                condition.label,
                _page(shadow.replace("{icon}", _UNNAMED)),
                _page(shadow.replace("{icon}", _NAMED)),
            )
        )
    out.append(("touch read at load", PHONE.label, _page(_UNNAMED, script=_AT_LOAD), _page(_NAMED, script=_AT_LOAD)))
    return out


_ATTACKS = _attacks()


def _failures(obs: Observation) -> dict[str, str]:
    return {f.rule_id: ",".join(f.states) for f in obs.axe.wcag_failures}


@pytest.mark.parametrize(("name", "label", "failing", "twin"), _ATTACKS, ids=[a[0] for a in _ATTACKS])
def test_a_failure_shown_only_under_a_condition_fails_the_page_and_names_it(
    evaluator: Evaluator, name: str, label: str, failing: str, twin: str
) -> None:
    bad, good = evaluator.evaluate_many([(None, failing), (None, twin)])
    assert bad.status == "ok" and good.status == "ok", (bad.error, good.error)
    assert _failures(bad) == {"button-name": label}, name
    assert not score_observation(bad).passed
    assert label in good.axe.states, f"{name}: the twin was not audited under its condition"
    assert _failures(good) == {}, name
    assert score_observation(good).passed, score_observation(good).reasons


# Dark themes whose text is too faint there: the pixel check decides it in the dark scheme.
_FAINT_DARK = ".dark-on body {{ background: #121212; color: #e8e8e8; }} .dark-on .note {{ color: {note}; }}"
_DARK_THEMES = {
    "media rule": "@media (prefers-color-scheme: dark) {{ body {{ background: #121212; color: #e8e8e8; }}"
    " .note {{ color: {note}; }} }}",
    "not-light media rule": "@media not (prefers-color-scheme: light) {{ body {{ background: #121212;"
    " color: #e8e8e8; }} .note {{ color: {note}; }} }}",
    "light-dark() with color-scheme": ":root {{ color-scheme: light dark; }} body {{ background: light-dark(#fff,"
    " #121212); color: light-dark(#1a1a1a, #e8e8e8); }} .note {{ color: light-dark(#595959, {note}); }}",
}
_DARK_SCRIPT = (
    "<script>const q = matchMedia('(prefers-color-scheme: dark)');"
    " const apply = (on) => document.documentElement.classList.toggle('dark-on', on); apply(q.matches);"
    " q.addEventListener('change', (e) => apply(e.matches));</script>"
)


def _dark_pages() -> list[tuple[str, str, str]]:
    """(name, faint page, legible twin)."""
    body = '<p class="note">Closed on public holidays.</p>'
    out = [
        (name, _page(body, css.format(note="#444")), _page(body, css.format(note="#b0b0b0")))
        for name, css in _DARK_THEMES.items()
    ]
    out.append(
        (
            "matchMedia listener",
            _page(body, _FAINT_DARK.format(note="#444"), _DARK_SCRIPT),
            _page(body, _FAINT_DARK.format(note="#b0b0b0"), _DARK_SCRIPT),
        )
    )
    return out


_DARK = _dark_pages()


@pytest.mark.parametrize(("name", "faint", "legible"), _DARK, ids=[d[0] for d in _DARK])
def test_faint_text_in_a_dark_theme_fails_on_its_pixels_and_a_legible_one_passes(
    evaluator: Evaluator, name: str, faint: str, legible: str
) -> None:
    bad, good = evaluator.evaluate_many([(None, faint), (None, legible)])
    assert bad.status == "ok" and good.status == "ok", (bad.error, good.error)
    assert bad.contrast is not None, name
    failing = [n for n in bad.contrast.nodes if n.decided == "fail"]
    assert [(n.scheme, n.target, n.decided_by) for n in failing] == [("dark", (".note",), "pixels")], name
    assert not score_observation(bad).passed
    assert score_observation(good).passed, (name, score_observation(good).reasons)
    assert "dark" in (good.contrast.schemes if good.contrast else ()) or DARK.label in good.axe.states, name


_FLUID = _page(
    '<p class="note">Closed on public holidays.</p><div class="row"><p>One</p><p>Two</p></div>',
    ".row { display: flex; flex-wrap: wrap; gap: 2%; } .row p { flex: 1 1 40%; } h1 { max-width: 60%; }",
    "<script>document.querySelector('.row').dataset.ready = 'yes';</script>",
)
# Colours and opacity that change from one moment to the next, forever: never the same twice.
_ANIMATED = _page(
    '<p class="note pulse">Closed on <span>public holidays</span>.</p><p class="fade">Open late on Fridays.</p>',
    "@keyframes pulse { from { color: #595959; } to { color: #333; } } .pulse { animation: pulse .7s infinite"
    " alternate; } @keyframes fade { from { opacity: 1; } to { opacity: .8; } } .fade { animation: fade 1.3s"
    " infinite alternate; }",
)


@pytest.mark.parametrize("html", [_FLUID, _ANIMATED], ids=["fluid boxes", "endless animations"])
def test_a_page_that_renders_the_same_under_every_condition_pays_no_audit_there(
    evaluator: Evaluator, html: str
) -> None:
    """Boxes of another width are no difference (a fluid page on a phone's screen is the same
    page), nor are the values an endless animation is changing."""
    obs = evaluator.evaluate(None, html)
    assert obs.status == "ok", obs.error
    assert not set(obs.axe.states) & {c.label for c in CONDITIONS}, obs.axe.states
    assert obs.contrast is None or set(obs.contrast.schemes) == {"light"}, obs.contrast


# Reads, as it loads, everything a condition could have left different from the default, and
# names it in an image without a text alternative (always there: axe reports it, with the
# attributes).
_READER = _page(
    "",
    script="""<script>
  const wrong = [];
  const want = (what, ok) => { if (!ok) wrong.push(what); };
  want('width ' + innerWidth, innerWidth === 1280);
  want('height ' + innerHeight, innerHeight === 800);
  want('dpr ' + devicePixelRatio, devicePixelRatio === 1);
  want('screen ' + screen.width + 'x' + screen.height, screen.width === 1920 && screen.height === 1080);
  want('pointer', matchMedia('(pointer: fine)').matches && !matchMedia('(pointer: coarse)').matches);
  want('any-pointer', matchMedia('(any-pointer: fine)').matches && !matchMedia('(any-pointer: coarse)').matches);
  want('hover', matchMedia('(hover: hover)').matches && matchMedia('(any-hover: hover)').matches);
  want('touch points ' + navigator.maxTouchPoints, navigator.maxTouchPoints === 0);
  want('ontouchstart', !('ontouchstart' in window));
  want('scheme', matchMedia('(prefers-color-scheme: light)').matches);
  want('motion', matchMedia('(prefers-reduced-motion: no-preference)').matches);
  const img = document.createElement('img');
  img.width = 10; img.height = 10;
  img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
  img.dataset.wrong = wrong.join(', ');
  document.querySelector('main').append(img);
</script>""",
)
# Differs under every condition (each shows its own paragraph), so each is emulated and audited.
_WRITER = _page(
    '<p class="c phone">Phone</p><p class="c dark">Dark</p><p class="c calm">Calm</p>',
    ".c { display: none; } @media (max-width: 700px) { .phone { display: block; } }"
    " @media (prefers-color-scheme: dark) { .dark { display: block; } }"
    " @media (prefers-reduced-motion: reduce) { .calm { display: block; } }",
)


def _reading(obs: Observation) -> str:
    assert obs.status == "ok", obs.error
    (image,) = [f for f in obs.axe.wcag_failures if f.rule_id == "image-alt"]
    html = image.nodes[0].html
    wrong = re.search(r'data-wrong="([^"]*)"', html)
    assert wrong is not None, html
    return wrong.group(1)


def test_no_emulated_condition_reaches_the_next_sample_on_the_tab(single_tab: Evaluator) -> None:
    """Writer (audited under every condition), then reader, twice, on one tab: the reader loads
    at the default viewport, screen, pointer, scheme and motion. The tab is proven the same
    (tests/tab_support.py)."""
    tabs = []
    for _ in range(2):
        wrote = single_tab.evaluate(None, _WRITER)
        assert wrote.status == "ok", wrote.error
        assert {c.label for c in CONDITIONS} <= set(wrote.axe.states), wrote.axe.states
        tabs.append(slot_tab(single_tab))
        wrong = _reading(single_tab.evaluate(None, _READER))
        assert wrong == "", f"the reader loaded with: {wrong}"
        tabs.append(slot_tab(single_tab))
    assert all(tab is tabs[0] for tab in tabs), f"the samples ran on different tabs: {tabs}"


def test_the_reader_does_see_a_condition_left_on(single_tab: Evaluator) -> None:
    """Control: the reader names each difference when it loads under the phone condition."""
    wrong = _reading(single_tab.evaluate(None, _READER.replace("innerWidth === 1280", "innerWidth === 1")))
    assert wrong.startswith("width 1280"), wrong
