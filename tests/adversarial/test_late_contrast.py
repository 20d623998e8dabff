"""Text a page fades to a faint colour after its first audit fails on colour contrast.

The watch between the first audit and the horizon audits each state the page changes into, but
without colour contrast (a page caught mid-fade would fail it in some runs and not in others), so
the state the page settles into is audited whole at the horizon. Two ways of fading: a class added
by a timer (a mutation the watch sees), and a style sheet's media list set through the CSSOM (no
mutation: only the fingerprint of the style sheets shows it). Their twin fades to a colour that
still reads and passes.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation


def _page(faded: str, script: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Opening times</title>'
        f"<style>body {{ background: #fff; color: #111; }} .note {{ color: {faded}; }}</style>"
        '<style id="strong">.note { color: #222; }</style></head><body><main><h1>Opening times</h1>'
        '<p class="note">Closed on public holidays.</p></main>'
        f"<script>setTimeout(() => {{ {script} }}, 1500);</script></body></html>"
    )


_WAYS = {
    "class added": "document.getElementById('strong').remove(); document.querySelector('.note').className = 'note';",
    "media list set through the CSSOM": "document.getElementById('strong').sheet.media.mediaText = 'print';",
}
_FAINT, _LEGIBLE = "#b8b8b8", "#595959"


@pytest.fixture(scope="module")
def observed() -> Iterator[dict[tuple[str, str], Observation]]:
    keys = [(way, colour) for way in _WAYS for colour in (_FAINT, _LEGIBLE)]
    with Evaluator(EvaluatorSettings(concurrency=2, timeout_s=20)) as ev:
        observations = ev.evaluate_many([(None, _page(colour, _WAYS[way])) for way, colour in keys])
    yield dict(zip(keys, observations, strict=True))


@pytest.mark.parametrize("way", sorted(_WAYS))
def test_text_faded_after_the_first_audit_fails_where_it_was_seen(
    observed: dict[tuple[str, str], Observation], way: str
) -> None:
    obs = observed[(way, _FAINT)]
    assert obs.status == "ok", obs.error
    score = score_observation(obs)
    assert not score.passed
    assert [r for r in score.reasons if r.startswith("color-contrast")], score.reasons
    assert all("late" in r for r in score.reasons if r.startswith("color-contrast")), score.reasons


@pytest.mark.parametrize("way", sorted(_WAYS))
def test_text_faded_to_a_colour_that_reads_passes(observed: dict[tuple[str, str], Observation], way: str) -> None:
    obs = observed[(way, _LEGIBLE)]
    assert obs.status == "ok", obs.error
    assert obs.audit.late_audit == "re-audited", obs.audit
    assert score_observation(obs).passed, score_observation(obs).reasons
