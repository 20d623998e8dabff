"""Pages written to pass while a person meets real WCAG failures: no such page may pass.

Every ``fail-*`` page under ``pages/`` carries an ``<img>`` without ``alt`` and an ``<input>``
without a label where a visitor meets them, hidden from a naive audit: inside a frame, inside a
closed shadow root, added after load, repaired only when the page believes an evaluator is
looking, or after a point where the page stops the browser reading it (a form submitted or
window.stop() called while it loads: ``fail-cut-*``). Its right verdict is FAIL. Every
``pass-*`` page builds the same kind of structure with accessible content, so a defence that
fails everything it does not understand is caught too.

Both ways users score pages are exercised: the evaluator with pure scoring, and
``a11y-eval score --json`` in its own process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation

PAGES = Path(__file__).resolve().parent / "pages"
ALL_PAGES = sorted(PAGES.glob("*.html"))
NAMES = [p.name for p in ALL_PAGES]
# The two failures every fail-* page hides.
REAL_FAILURES = ("axe image-alt", "axe label")
# Pages whose content the evaluator documents as not auditable (docs/trust.md): the browser
# stopped reading them, or the content is in an <object> or <embed>. They fail on that reason.
# Every other attack is audited (frames, open and closed shadow roots, late changes, pages that
# look for the evaluator) and must fail on the very failures it hides: a defence that refused
# what it should audit ("could not be audited") would otherwise pass for one that audits it.
UNAUDITABLE = ("fail-cut-", "fail-frame-embed.html", "fail-frame-object-data.html")


def expected(name: str) -> str:
    if name.startswith("fail-"):
        return "fail"
    if name.startswith("pass-"):
        return "pass"
    raise AssertionError(f"{name}: an adversarial page is named fail-* or pass-*")


def test_every_class_has_attacks_and_benign_pages() -> None:
    """Several variants per class, and a benign page of each kind that must still pass."""
    for kind in ("frame", "shadow", "late", "detect", "cut"):
        attacks = [n for n in NAMES if n.startswith(f"fail-{kind}-")]
        assert len(attacks) >= 4, (kind, attacks)
    for kind in ("frame", "shadow-open", "late", "cut"):
        assert any(n.startswith(f"pass-{kind}") for n in NAMES), kind
    # Each way of making a closed shadow root has a benign twin that must pass.
    for attack in [n for n in NAMES if n.startswith("fail-shadow-closed-")]:
        twin = attack.replace("fail-shadow-closed-attach", "fail-shadow-closed").replace("fail-", "pass-", 1)
        assert twin in NAMES, (attack, twin)


@pytest.fixture(scope="module")
def observed() -> Iterator[dict[str, Observation]]:
    """One batch through the pool, as the lm-eval filter and corpus scoring run it."""
    with Evaluator(EvaluatorSettings(concurrency=2, timeout_s=20)) as ev:
        htmls = [p.read_text(encoding="utf-8") for p in ALL_PAGES]
        observations = ev.evaluate_many([(None, html) for html in htmls], names=NAMES)
    yield dict(zip(NAMES, observations, strict=True))


@pytest.mark.parametrize("name", NAMES)
def test_verdict_through_the_evaluator(name: str, observed: dict[str, Observation]) -> None:
    obs = observed[name]
    score = score_observation(obs)
    # A hostile page must fail on what it hides, not because the evaluation broke down.
    assert obs.status == "ok", (obs.status, obs.error)
    assert ("pass" if score.passed else "fail") == expected(name), score.reasons
    unaudited = [r for r in score.reasons if r.startswith("content could not be audited")]
    if expected(name) == "fail" and name.startswith(UNAUDITABLE):
        assert unaudited, score.reasons
    elif expected(name) == "fail":
        for failure in REAL_FAILURES:
            assert any(r.startswith(failure) for r in score.reasons), (failure, score.reasons)
        assert not unaudited, score.reasons
    if "shadow-closed" in name or "closed-shadow" in name:
        # The closed roots were opened to the audit, not refused.
        assert obs.audit.closed_shadow_roots >= 1, obs.audit
        assert obs.audit.unaudited == (), obs.audit


def test_verdicts_through_the_score_command() -> None:
    """``a11y-eval score --json``, in its own process, agrees on every page."""
    done = subprocess.run(
        [sys.executable, "-m", "lm_eval_a11y.cli", "score", "--json", *map(str, ALL_PAGES)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    verdicts = {Path(d["file"]).name: d["verdict"] for d in doc}
    assert verdicts == {name: expected(name) for name in NAMES}
