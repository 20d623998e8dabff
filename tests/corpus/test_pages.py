"""``score_pages``: one typed PageScore per input, in order, for good pages, bad rows and hostile
pages, from one thread, many threads and many processes; real Chromium and axe-core throughout."""

from __future__ import annotations

import dataclasses
import importlib.util
import multiprocessing
import os
import threading
import typing
from typing import Any

import pytest

from corpus.support import BAD_ROWS, HANGS, ROOT, clean, failing, score_in_this_process
from lm_eval_a11y.cases import CaseError, get_case
from lm_eval_a11y.corpus import STATUSES, GenericChecksMissingError, PageScore, score_features, score_pages
from lm_eval_a11y.corpus.pages import admit
from lm_eval_a11y.engine.evaluator import Evaluator

DISCLOSURE = ROOT / "test_cases" / "disclosure" / "examples"


def _check_types(score: PageScore) -> None:
    hints = typing.get_type_hints(PageScore)
    for f in dataclasses.fields(score):
        value = getattr(score, f.name)
        hint = hints[f.name]
        if f.name == "status":
            assert value in STATUSES
        elif hint is bool:
            assert type(value) is bool, f.name
        elif hint is int:
            assert type(value) is int, f.name
        elif hint is float:
            assert type(value) is float and 0.0 <= value <= 1.0, f.name
        elif hint == tuple[str, ...]:
            assert isinstance(value, tuple) and all(type(v) is str for v in value), f.name
        elif hint == int | None:
            assert value is None or (type(value) is int and value >= 0), f.name
        else:
            assert value is None or type(value) is str, f.name


def test_good_and_failing_pages_get_typed_scores(evaluator: Evaluator) -> None:
    scores = score_pages([clean(1), failing(2)], generic=False, evaluator=evaluator)
    for score in scores:
        _check_types(score)
    good, bad = scores
    assert (good.status, good.a11y_pass, good.score, good.axe_rules, good.error) == ("ok", True, 1.0, (), None)
    assert good.sha256 is not None and len(good.sha256) == 64
    assert good.html_bytes == len(clean(1).encode())
    assert (bad.status, bad.a11y_pass) == ("ok", False)
    assert bad.axe_rules == ("image-alt", "label") and bad.axe_wcag_failures == 2
    assert 0.0 < bad.score < 1.0
    record = bad.record()
    assert list(record) == list(PageScore.record_keys())
    assert record["a11y_pass"] is False and record["a11y_axe_rules"] == ["image-alt", "label"]
    assert "a11y_a11y_pass" not in record


def test_every_bad_row_gets_a_status_and_a_reason_in_input_order(fast_evaluator: Evaluator) -> None:
    limit = fast_evaluator.settings.max_html_bytes
    huge = "<!doctype html><title>big</title><p>" + "x" * limit
    rows: list[Any] = [
        clean(0),
        *(value for value, _ in BAD_ROWS),
        b"<!doctype html><title>bytes</title>",
        42,
        float("nan"),
        huge,
        HANGS,
        failing(1),
    ]
    expected = [
        "ok",
        *(status for _, status in BAD_ROWS),
        "not_text",
        "not_text",
        "missing",
        "too_large",
        "timeout",
        "ok",
    ]
    scores = score_pages(rows, generic=False, evaluator=fast_evaluator)
    assert [s.status for s in scores] == expected
    for row, score in zip(rows, scores, strict=True):
        _check_types(score)
        if score.status == "ok":
            assert score.error is None
            continue
        assert score.error, f"{score.status} without a reason"
        assert (score.a11y_pass, score.score) == (False, 0.0)
        if isinstance(row, str):
            assert score.sha256 is not None
    reasons = [s.error for s in scores]
    assert reasons[1] == "no HTML: the value is missing (None)"
    assert reasons[4] == "not HTML: plain text without a single tag"
    assert reasons[5] == "not HTML: a JSON value"
    assert "model's answer" in str(reasons[6]) and "extract" in str(reasons[6])
    assert reasons[7] == "not HTML: binary data"
    assert "bytes" in str(reasons[8]) and scores[8].html_bytes == len(rows[8])
    assert "int" in str(reasons[9])
    assert "above the limit" in str(reasons[11])
    assert "budget" in str(reasons[12])
    assert scores[-1].axe_rules == ("image-alt", "label"), "the batch goes on after a hostile page"


def test_extract_cuts_the_page_out_of_a_model_answer(evaluator: Evaluator) -> None:
    answer = f"Sure! Here it is:\n```html\n{clean(3)}\n```\nLet me know."
    (plain,) = score_pages([answer], generic=False, evaluator=evaluator)
    extracted, nothing = score_pages([answer, "No page today."], generic=False, extract=True, evaluator=evaluator)
    assert plain.status == "not_html"
    assert (extracted.status, extracted.a11y_pass) == ("ok", True)
    assert nothing.status == "not_html" and "no HTML found" in str(nothing.error)


def test_a_case_runs_its_checks_instead_of_the_generic_ones(evaluator: Evaluator) -> None:
    passing = (DISCLOSURE / "pass-native-details.html").read_text(encoding="utf-8")
    mouse_only = (DISCLOSURE / "fail-mouse-only.html").read_text(encoding="utf-8")
    good, bad = score_pages([passing, mouse_only], case="disclosure", generic=True, evaluator=evaluator)
    assert good.case_id == bad.case_id == "disclosure"
    assert good.a11y_pass and good.checks_total == bad.checks_total > 0 and good.checks_failed == ()
    assert not bad.a11y_pass and bad.checks_failed
    assert bad.score < 1.0
    with pytest.raises(CaseError):
        score_pages([passing], case="no-such-case", evaluator=evaluator)


def test_cases_give_each_input_its_own_checks_in_one_call(evaluator: Evaluator) -> None:
    passing = (DISCLOSURE / "pass-native-details.html").read_text(encoding="utf-8")
    rows = [passing, clean(1), passing, None]
    cases = ["disclosure", None, get_case("disclosure"), "button"]
    disclosure, axe_only, given, missing = score_pages(rows, generic=False, cases=cases, evaluator=evaluator)
    assert disclosure.case_id == given.case_id == "disclosure" and disclosure.a11y_pass and given.a11y_pass
    assert disclosure.checks_total > 0 and (axe_only.case_id, axe_only.checks_total) == (None, 0)
    assert missing.status == "missing"
    with pytest.raises(ValueError, match="2 values for 1 inputs"):
        score_pages([passing], cases=["disclosure", "button"], evaluator=evaluator)
    with pytest.raises(CaseError):  # looked up even for a row that is never rendered
        score_pages([None], cases=["no-such-case"], evaluator=evaluator)
    with pytest.raises(TypeError, match="case ids"):
        score_pages([passing], cases=[7], evaluator=evaluator)  # type: ignore[list-item]


def test_generic_checks_run_or_their_absence_is_a_clear_error(evaluator: Evaluator) -> None:
    if importlib.util.find_spec("lm_eval_a11y.generic") is None:
        with pytest.raises(GenericChecksMissingError, match=r"lm_eval_a11y\.generic.*generic=False"):
            score_pages([clean(0)], evaluator=evaluator)
    else:
        (score,) = score_pages([clean(0)], evaluator=evaluator)
        assert score.status == "ok" and score.case_id is not None and score.checks_total > 0
    (axe_only,) = score_pages([clean(0)], generic=False, evaluator=evaluator)
    assert (axe_only.case_id, axe_only.checks_total) == (None, 0)


def test_the_dataset_map_recipe_of_the_docs(evaluator: Evaluator) -> None:
    import datasets

    def add_scores(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
        return PageScore.columns(score_pages(batch["html"], generic=False, evaluator=evaluator))

    ds = datasets.Dataset.from_dict({"html": [clean(1), clean(2), None, failing(3)]})
    features = datasets.Features({**ds.features, **score_features()})
    scored = ds.map(add_scores, batched=True, batch_size=2, features=features)
    assert scored["a11y_status"] == ["ok", "ok", "missing", "ok"]
    assert scored["a11y_error"][:2] == [None, None] and scored["a11y_axe_rules"][3] == ["image-alt", "label"]
    assert scored.filter(lambda row: row["a11y_pass"])["html"] == [clean(1), clean(2)]


def test_admit_counts_bytes_as_the_evaluator_does() -> None:
    lone = "<p>\ud800</p>"
    html, rejected = admit(lone, max_bytes=100)
    assert html == lone and rejected is None
    _, too_big = admit("<p>é</p>", max_bytes=8)
    assert too_big is not None and too_big.status == "too_large" and too_big.html_bytes == 9


def test_many_threads_share_one_pool_and_get_the_scores_one_thread_gets() -> None:
    pages = [clean(i) if i % 3 else failing(i) for i in range(12)]
    alone = [(s.status, s.a11y_pass, s.score, s.axe_rules) for s in score_pages(pages, generic=False)]
    found: dict[int, list[tuple[str, bool, float, tuple[str, ...]]]] = {}
    errors: list[BaseException] = []

    def work(part: int) -> None:
        try:
            scores = score_pages(pages[part::4], generic=False)
            found[part] = [(s.status, s.a11y_pass, s.score, s.axe_rules) for s in scores]
        except BaseException as err:  # noqa: BLE001 - reported by the test below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(part,)) for part in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    for part in range(4):
        assert found[part] == alone[part::4]


def test_each_process_starts_its_own_pool() -> None:
    pages = [clean(1), failing(2), clean(3), failing(4)]
    expected = [(s.status, s.a11y_pass, s.score, s.axe_rules) for s in score_pages(pages, generic=False)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(score_in_this_process, [pages[:2], pages[2:]])
    pids = {pid for pid, _ in results}
    assert os.getpid() not in pids and len(pids) == 2
    assert [score for _, scores in results for score in scores] == expected


def test_a_forked_child_forgets_the_parents_pool() -> None:
    from lm_eval_a11y.corpus import pages

    pages.shared_evaluator()
    assert pages._pools
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        os.write(write, b"empty" if not pages._pools else b"inherited")
        os._exit(0)
    os.close(write)
    answer = os.read(read, 64)
    os.close(read)
    os.waitpid(child, 0)
    assert answer == b"empty"
    assert pages._pools, "the parent keeps its pool"
