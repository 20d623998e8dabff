"""Pages that passed on what the evaluator could not measure: none of them may pass.

Every ``fail-*`` page under ``unmeasured/`` carries one real failure that axe-core alone passes,
named by its ``<meta name="expect">`` (the start of the reason it must fail with):

- ``fail-invisible-*``: a name made only of characters nobody sees or hears (``lm-name-perceivable``);
- ``fail-internals-*``: a role from ``ElementInternals`` with no name (``lm-computed-role-name``);
- ``fail-hidden-*``: visible controls hidden from assistive technology and out of the Tab order
  (``lm-hidden-control``);
- ``fail-error-*``: an ``aria-owns`` chain 1,200 or 2,000 elements long behind a field's
  ``aria-labelledby``: axe-core's name computation overflows the stack, its ``label`` rule
  swallows the error as "incomplete", and our name rule throws (the sample fails as not audited);
- ``fail-large-*``: a closed shadow root built under an obfuscated name by the script of a page
  of more than 200 KB (``<!--filler-->`` is replaced by accessible paragraphs): its image without
  ``alt`` and its unlabelled field.

Every ``pass-*`` page builds the same kind of structure accessibly (or, for the hidden controls,
the aria-hidden content that is right: decorative, a carousel's off-screen clone, a modal's
background, an inert region) and must pass. An axe rule that throws fails the sample too: axe
puts it among the incomplete results, and it measured nothing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import lm_eval_a11y.engine.pool as pool_module
from lm_eval_a11y.engine.audit import rule_errors
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.hidden_nodes import COUNT_FROM_NODES
from lm_eval_a11y.observation import AxeResult, CheckResult, Observation, Timings
from lm_eval_a11y.resources import axe_path
from lm_eval_a11y.scoring import score_observation

PAGES = Path(__file__).resolve().parent / "unmeasured"
ALL_PAGES = sorted(PAGES.glob("*.html"))
NAMES = [p.name for p in ALL_PAGES]
_EXPECT = re.compile(r'<meta name="expect" content="([^"]+)">')


def _filler() -> str:
    """More than 200 KB of accessible markup, with enough nodes for the count of hidden nodes."""
    rows = [
        f"<p>Entry {i}: nothing unusual happened that day, the weather held, and the records kept by the "
        f"archive agree on it.</p>\n"
        for i in range(1700)
    ]
    return "".join(rows)


FILLER = _filler()


def html_of(path: Path) -> str:
    return path.read_text(encoding="utf-8").replace("<!--filler-->", FILLER)


def expected(name: str) -> str:
    if name.startswith("fail-"):
        return "fail"
    if name.startswith("pass-"):
        return "pass"
    raise AssertionError(f"{name}: a page here is named fail-* or pass-*")


def test_every_attack_has_variants_and_a_benign_twin() -> None:
    assert len(FILLER) > 200_000 and FILLER.count("<p>") >= COUNT_FROM_NODES
    for kind, least in (("invisible", 6), ("internals", 4), ("hidden", 4), ("large", 3), ("error", 2)):
        attacks = [n for n in NAMES if n.startswith(f"fail-{kind}-")]
        assert len(attacks) >= least, (kind, attacks)
        assert any(n.startswith(f"pass-{kind}-") for n in NAMES), kind
    for path in ALL_PAGES:
        found = _EXPECT.search(path.read_text(encoding="utf-8"))
        assert (found is not None) == path.name.startswith("fail-"), path.name


@pytest.fixture(scope="module")
def observed() -> Iterator[dict[str, Observation]]:
    with Evaluator(EvaluatorSettings(concurrency=2, timeout_s=90)) as ev:
        observations = ev.evaluate_many([(None, html_of(p)) for p in ALL_PAGES], names=NAMES)
    yield dict(zip(NAMES, observations, strict=True))


@pytest.mark.parametrize("name", NAMES)
def test_verdict_through_the_evaluator(name: str, observed: dict[str, Observation]) -> None:
    obs = observed[name]
    score = score_observation(obs)
    assert obs.status == "ok", (obs.status, obs.error)
    assert ("pass" if score.passed else "fail") == expected(name), score.reasons
    if expected(name) == "pass":
        return
    found = _EXPECT.search((PAGES / name).read_text(encoding="utf-8"))
    assert found is not None
    assert any(r.startswith(found.group(1)) for r in score.reasons), (found.group(1), score.reasons)
    if not found.group(1).startswith("content could not be audited"):
        # It fails on the failure it hides, not because something could not be audited.
        assert not [r for r in score.reasons if r.startswith("content could not be audited")], score.reasons
    if name.startswith("fail-large-"):
        assert any(r.startswith("axe label") for r in score.reasons), score.reasons
        assert obs.audit.closed_shadow_roots >= 1, obs.audit


def test_verdicts_through_the_score_command(tmp_path: Path) -> None:
    """``a11y-eval score --json``, in its own process, agrees on every page (of the large pages,
    whose audits take seconds each on a loaded machine, one attack)."""
    pages = [p for p in ALL_PAGES if "-large-" not in p.name or p.name == "fail-large-closed-root-obfuscated.html"]
    files = []
    for path in pages:
        copy = tmp_path / path.name
        copy.write_text(html_of(path), encoding="utf-8")
        files.append(str(copy))
    done = subprocess.run(
        [sys.executable, "-m", "lm_eval_a11y.cli", "score", "--json", "--timeout", "90", *files],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    verdicts = {Path(d["file"]).name: d["verdict"] for d in doc}
    assert verdicts == {p.name: expected(p.name) for p in pages}, [
        d for d in doc if d["verdict"] != expected(Path(d["file"]).name)
    ]


# An axe rule that throws, as axe-core's name computation does when a page overflows its stack:
# a real rule of the real axe-core, configured into its world after it loads.
_THROWING_RULE = """
;axe.configure({
  checks: [{ id: 'test-throws', evaluate() { throw new RangeError('Maximum call stack size exceeded'); } }],
  rules: [{ id: 'test-throws', selector: 'input', tags: ['wcag2a', 'wcag412'], any: ['test-throws'],
            metadata: { description: 'throws', help: 'throws' } }],
});
"""
_FIELD = '<!doctype html><html lang="en"><title>Search</title><main><h1>Search</h1><label>Query <input></label></main>'
_NO_FIELD = '<!doctype html><html lang="en"><title>About</title><main><h1>About</h1><p>Nothing to fill in.</p></main>'


def test_an_axe_rule_that_throws_fails_the_sample_with_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "axe.min.js"
    source.write_text(axe_path().read_text(encoding="utf-8") + _THROWING_RULE, encoding="utf-8")
    monkeypatch.setattr(pool_module, "axe_path", lambda: source)
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=20)) as ev:
        field, no_field = ev.evaluate_many([(None, _FIELD), (None, _NO_FIELD)], names=["field", "no-field"])
    assert field.status == "ok", field.error
    errored = [f for f in field.axe.incomplete if f.rule_id == "test-throws"]
    assert errored, field.axe.incomplete
    score = score_observation(field)
    assert not score.passed
    assert any(
        r.startswith("content could not be audited: axe rule test-throws could not run (RangeError: Maximum call stack")
        for r in score.reasons
    ), score.reasons
    # The rule has nothing to look at on a page without a field, and that page passes.
    assert score_observation(no_field).passed, score_observation(no_field).reasons


def test_rule_errors_names_only_the_rules_that_threw() -> None:
    result = {
        "incomplete": [
            {"id": "color-contrast", "error": None},
            {"id": "label", "error": "RangeError: Maximum call stack size exceeded"},
        ]
    }
    assert rule_errors(result) == ["axe rule label could not run (RangeError: Maximum call stack size exceeded)"]
    assert rule_errors({"incomplete": []}) == []
    # An error quoting half a surrogate pair from the page still leaves a writable record.
    assert rule_errors({"incomplete": [{"id": "x", "error": "TypeError: \ud800"}]}) == [
        "axe rule x could not run (TypeError: \ufffd)"
    ]


@pytest.mark.parametrize(("kind", "passes"), [("R", False), ("BP", True)])
def test_a_check_that_threw_never_passes_a_requirement(kind: str, passes: bool) -> None:
    """A check that raised is recorded as ``error``: a requirement so answered is not met (a best
    practice never decides a sample)."""
    check = CheckResult(id="c", type=kind, description="c", outcome="error", message="RuntimeError: boom")  # type: ignore[arg-type]
    obs = Observation(
        case_id="c",
        case_version="1",
        status="ok",
        error=None,
        html_sha256="",
        html_bytes=0,
        axe=AxeResult(),
        checks=(check,),
        environment=None,
        timings=Timings(),
    )
    assert score_observation(obs).passed is passes
