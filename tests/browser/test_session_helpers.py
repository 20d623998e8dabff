"""Session helpers that checks build on, against pages where the right answer is known."""

from __future__ import annotations

import pytest

from browser.support import fixture_case
from lm_eval_a11y.evaluator import Evaluator

NATIVE_MODAL = """<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<h1>Page</h1><a href="#x">Before</a><button id="open">Open</button>
<dialog id="box" aria-label="Box"><button>One</button><button>Two</button></dialog>
<a href="#y">After</a></main>
<script>document.getElementById('open').onclick = () => document.getElementById('box').showModal();</script>
</body></html>"""

SCRIPTED_TRAP = """<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<h1>Page</h1><a href="#x">Before</a>
<div id="box" role="dialog" aria-label="Box"><button>One</button><button>Two</button></div>
<a href="#y">After</a></main>
<script>
const box = document.getElementById('box');
const buttons = box.querySelectorAll('button');
box.addEventListener('keydown', (event) => {
  if (event.key !== 'Tab') return;
  const i = [...buttons].indexOf(document.activeElement);
  const next = (i + (event.shiftKey ? -1 : 1) + buttons.length) % buttons.length;
  buttons[next].focus();
  event.preventDefault();
});
</script></body></html>"""

LEAKY = """<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<h1>Page</h1><div id="box" role="dialog" aria-label="Box"><button>One</button><button>Two</button></div>
<a href="#after">After</a></main></body></html>"""


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        pytest.param(NATIVE_MODAL, "pass", id="native-showModal-wraps-through-browser-ui"),
        pytest.param(SCRIPTED_TRAP, "pass", id="scripted-trap"),
        pytest.param(LEAKY, "fail", id="focus-escapes-to-page"),
    ],
)
def test_focus_trapped(evaluator: Evaluator, html: str, expected: str) -> None:
    obs = evaluator.evaluate(fixture_case("fixturetrap"), html)
    assert obs.status == "ok", obs.error
    (check,) = obs.checks
    assert check.outcome == expected, check.message
    if expected == "fail":
        assert "After" in check.message


def _reach_page(target: str) -> str:
    links = "".join(f'<a href="#l{i}">Link {i}</a> ' for i in range(30))
    return (
        '<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>Page</h1>'
        f'<p>{links}</p>{target}<p id="count">0</p></main><script>let n = 0;'
        "document.addEventListener('keydown', () => { document.getElementById('count').textContent = ++n; });"
        "</script></body></html>"
    )


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        pytest.param('<button id="target">Go</button>', "reached=True keys=31", id="focusable-target"),
        pytest.param('<div id="target"><span>x</span><button>In</button></div>', "reached=True keys=31", id="inside"),
        # Nothing in it can take focus: refused before a single key press.
        pytest.param('<div id="target" onclick="1">Go</div>', "reached=False keys=0", id="nothing-focusable"),
    ],
)
def test_tab_to_walks_from_the_top_and_refuses_what_cannot_take_focus(
    evaluator: Evaluator, target: str, expected: str
) -> None:
    obs = evaluator.evaluate(fixture_case("fixturereach"), _reach_page(target))
    assert obs.status == "ok", obs.error
    (check,) = obs.checks
    assert check.message == expected
