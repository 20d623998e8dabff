"""Answers with several HTML blocks, judged by the reward as the lm-eval task judges them: every
page a person would take from the answer, the lowest score deciding. Real Chromium and axe-core,
the generic page checks (the reward's default, no case)."""

from __future__ import annotations

import pytest

from corpus.blocks_support import ATTACK_FRAGMENT, ATTACKS, DECOY, HONEST, MAX_PAGES_ANSWER, F
from lm_eval_a11y.corpus import a11y_reward, score_pages


@pytest.fixture(scope="module")
def alone() -> tuple[float, float]:
    """What the failing fragment and the decoy get as the only block of an answer."""
    rewards, _ = a11y_reward().judge([f"{F}html\n{ATTACK_FRAGMENT}\n{F}\n", f"{F}html\n{DECOY}\n{F}\n"])
    bad, good = rewards
    assert good == 1.0 and bad < 1.0, "the pair makes the attack: a failing fragment and a perfect decoy"
    return bad, good


def test_a_failing_block_beside_an_accessible_decoy_earns_no_more_than_the_failing_block(
    alone: tuple[float, float],
) -> None:
    bad, _ = alone
    rewards, outcomes = a11y_reward().judge(list(ATTACKS.values()))
    for name, reward, outcome in zip(ATTACKS, rewards, outcomes, strict=True):
        assert outcome.status == "ok", name
        assert outcome.pages >= 2, name
        assert outcome.score is not None and not outcome.score.a11y_pass, name
        assert set(outcome.score.axe_rules) >= {"image-alt", "label"}, name
        # Judged in the decoy's shell, the fragment fails on its own faults, not on a missing
        # title or language: it gets at least what it gets alone, and never the decoy's 1.0.
        assert bad <= reward < 1.0, (name, reward)


def test_honest_answers_in_several_blocks_get_what_their_page_gets() -> None:
    rewards, outcomes = a11y_reward().judge(list(HONEST.values()))
    assert rewards == [1.0] * len(HONEST), dict(zip(HONEST, rewards, strict=True))
    assert [o.pages for o in outcomes] == [1, 2, 1]


def test_the_corpus_path_judges_every_page_of_an_answer(alone: tuple[float, float]) -> None:
    answers = [ATTACKS["fragment then decoy document"], ATTACKS["decoy document then fragment"], *HONEST.values()]
    scores = score_pages(answers, extract=True)
    assert [s.a11y_pass for s in scores] == [False, False, True, True, True]
    assert all("image-alt" in s.axe_rules for s in scores[:2])


def test_more_pages_than_the_bound_earn_nothing_and_say_why() -> None:
    rewards, outcomes = a11y_reward().judge([MAX_PAGES_ANSWER])
    assert rewards == [0.0] and outcomes[0].status == "too_many_pages" and outcomes[0].score is None
    (score,) = score_pages([MAX_PAGES_ANSWER], extract=True)
    assert score.status == "not_html" and "more than 4 HTML pages" in (score.error or "")
