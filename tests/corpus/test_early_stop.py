"""Stopping at the first failure (``stop_at_first_failure``, ``corpus filter --keep passing``, the
reward's pass test): the pages kept are exactly those of a full evaluation, on pages made to catch
a careless stop (a best practice, a colour-contrast failure the pixels overturn, a failure that
comes late) and pages that fail at each step; a dropped row says its scores are partial, and
``--full-scores`` gives the full ones. Real Chromium, axe-core and the generic checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli.support import run_script

from corpus.early_support import EARLY_PAGES, FAIL_AT_STEPS, KEEP_ATTACKS
from corpus.support import read_rows, write_parquet
from lm_eval_a11y.corpus import PageScore, a11y_reward
from lm_eval_a11y.corpus.pages import resolve_checks
from lm_eval_a11y.engine.evaluator import Evaluator
from lm_eval_a11y.observation import Observation

NAMES = list(EARLY_PAGES)


def _observe(stop: bool) -> list[Observation]:
    case = resolve_checks(None, True)
    with Evaluator(stop_at_first_failure=stop) as pool:
        return pool.evaluate_many([(case, html) for html in EARLY_PAGES.values()])


@pytest.fixture(scope="module")
def full() -> list[Observation]:
    return _observe(stop=False)


@pytest.fixture(scope="module")
def early() -> list[Observation]:
    return _observe(stop=True)


def test_the_early_stop_keeps_exactly_the_pages_a_full_evaluation_keeps(
    full: list[Observation], early: list[Observation]
) -> None:
    for name, whole, stopped in zip(NAMES, full, early, strict=True):
        assert whole.status == stopped.status == "ok", name
        kept, kept_early = PageScore.from_observation(whole), PageScore.from_observation(stopped)
        assert kept.a11y_pass == kept_early.a11y_pass, name
        assert kept.a11y_pass == (name in KEEP_ATTACKS), name
        if kept.a11y_pass:
            # A page that passes ran every step: its scores are the full evaluation's.
            assert kept_early == kept, name
            assert not stopped.audit.partial, name


def test_a_page_that_fails_says_which_steps_it_skipped(full: list[Observation], early: list[Observation]) -> None:
    by_name = dict(zip(NAMES, early, strict=True))
    for name in FAIL_AT_STEPS:
        obs, score = by_name[name], PageScore.from_observation(by_name[name])
        assert obs.audit.partial and score.partial and not score.a11y_pass, name
        assert 0 < score.score < 1, name
    first = by_name["fails-first-audit"].audit.skipped
    # The costly rules wait for the others, and nothing runs after the first failure.
    assert first[:3] == ("axe color-contrast", "axe target-size", "contrast"), first
    assert first[-1] == "late audit" and any(step.startswith("check ") for step in first)
    assert {f.rule_id for f in by_name["fails-first-audit"].axe.violations} == {"image-alt", "label"}
    assert not by_name["fails-first-audit"].checks, "no check ran"
    # Failing only a deferred rule: decided by it, before the pixel check.
    assert by_name["fails-deferred-rule"].audit.skipped[0] == "contrast"
    # Failing only colour contrast: decided by the pixels, then nothing else.
    contrast = by_name["fails-contrast"]
    assert contrast.contrast is not None and contrast.contrast.failing_targets
    assert "contrast" not in contrast.audit.skipped and "late audit" in contrast.audit.skipped
    # Failing only a check: the checks before it ran, not those after.
    check = by_name["fails-a-check"]
    assert [c.id for c in check.checks if c.outcome == "fail"] == ["mouse-targets-keyboard-operable"]
    assert check.checks[-1].id == "mouse-targets-keyboard-operable"
    # Failing late: every step up to the late audit ran, and the failure was found after the
    # first audit (in a state the page changed to while it was watched, or at the late audit).
    late = by_name["fails-late"]
    assert "late audit" not in late.audit.skipped
    assert [(f.rule_id, ",".join(f.states)) for f in late.axe.violations if f.rule_id == "image-alt"] in (
        [("image-alt", "changing")],
        [("image-alt", "late")],
    )
    # Best practices decide nothing, so they are not audited; the record says which tags were.
    assert all(not f.best_practice for o in early for f in o.axe.violations)
    assert early[0].environment is not None and "best-practice" not in early[0].environment.axe_tags
    # A full evaluation skips nothing.
    assert not any(o.audit.partial for o in full)


def test_a_partial_observation_survives_its_record(early: list[Observation]) -> None:
    stopped = dict(zip(NAMES, early, strict=True))["fails-first-audit"]
    again = Observation.from_dict(stopped.to_dict())
    assert again.audit.skipped == stopped.audit.skipped and again.audit.partial
    assert not PageScore.from_observation(again).a11y_pass


def test_the_reward_pass_test_stops_early_and_gives_the_full_verdicts(full: list[Observation]) -> None:
    reward = a11y_reward(min_text=0, graded=False)
    rewards, outcomes = reward.judge(list(EARLY_PAGES.values()))
    expected = [PageScore.from_observation(o).a11y_pass for o in full]
    assert rewards == [1.0 if passed else 0.0 for passed in expected]
    assert [o.score.partial for o in outcomes if o.score is not None] == [not passed for passed in expected]
    # The graded reward still evaluates every page fully.
    graded = a11y_reward(min_text=0).judge(list(FAIL_AT_STEPS.values()))[1]
    assert not any(o.score.partial for o in graded if o.score is not None)


# ------------------------------------------------------------------ the command


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [{"id": name, "html": html} for name, html in EARLY_PAGES.items()]
    return [*rows, {"id": "missing", "html": None}, {"id": "prose", "html": "Only a sentence, no markup."}]


def _filter(corpus: Path, out: Path, *extra: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    done = run_script(
        ["corpus", "filter", str(corpus), str(out), "--generic", "--tasks", "2", "--batch-size", "4", *extra],
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    kept = sorted(read_rows(out), key=lambda r: r["id"])
    dropped = sorted(read_rows(out.with_name(out.name + "-dropped")), key=lambda r: r["id"])
    return kept, dropped, done.stdout


def test_filter_keeps_the_rows_of_full_scores_and_marks_the_dropped_ones_partial(tmp_path: Path) -> None:
    corpus = write_parquet(tmp_path / "pages.parquet", _rows())
    kept_full, dropped_full, _ = _filter(corpus, tmp_path / "full", "--full-scores")
    kept, dropped, stdout = _filter(corpus, tmp_path / "early")
    assert [r["id"] for r in kept_full] == sorted(KEEP_ATTACKS)
    assert kept == kept_full, "every column of every kept row"
    assert [r["id"] for r in dropped] == [r["id"] for r in dropped_full]
    rendered = [r for r in dropped if r["a11y_status"] == "ok"]
    assert {r["id"] for r in rendered} == set(FAIL_AT_STEPS)
    assert all(r["a11y_partial"] for r in rendered), "a dropped page that was stopped says so"
    assert not any(r["a11y_partial"] for r in dropped if r["a11y_status"] != "ok"), "not rendered: nothing partial"
    assert not any(r["a11y_partial"] for r in [*kept, *kept_full, *dropped_full])
    # The full scores of a dropped page are at most its partial ones (more failures were found).
    full_by_id = {r["id"]: r for r in dropped_full}
    for row in rendered:
        whole = full_by_id[row["id"]]
        assert not whole["a11y_pass"] and whole["a11y_score"] <= row["a11y_score"], row["id"]
        assert set(row["a11y_axe_rules"]) <= set(whole["a11y_axe_rules"]), row["id"]
    assert f"{len(rendered)} stopped at their first failure" in stdout


def test_a_run_is_resumed_only_with_the_same_full_scores_choice(tmp_path: Path) -> None:
    corpus = write_parquet(tmp_path / "pages.parquet", [{"id": "a", "html": None}])
    out = tmp_path / "out"
    done = run_script(["corpus", "filter", str(corpus), str(out)])
    assert done.returncode == 0, done.stderr
    again = run_script(["corpus", "filter", str(corpus), str(out), "--full-scores"])
    assert again.returncode == 2 and "full_scores: False -> True" in again.stderr
