"""The keep rules of corpus filtering: what they accept, and what a bad rule says (no browser)."""

from __future__ import annotations

import pytest

from lm_eval_a11y.corpus import KeepRule, PageScore


def _score(status: str = "ok", passed: bool = False, score: float = 0.5) -> PageScore:
    return PageScore(status, None, passed, score, 0, (), (), 0, (), None, 0, None)  # type: ignore[arg-type]


def test_keep_rules() -> None:
    assert str(KeepRule.parse(" passing ")) == "passing"
    rule = KeepRule.parse("score >= 0.5")
    assert str(rule) == "score>=0.5" and KeepRule.parse(str(rule)) == rule
    assert rule.keeps(_score(score=0.5)) and not rule.keeps(_score(score=0.49))
    assert rule.drop_reason(_score(score=0.1)) == "below_threshold"
    assert rule.drop_reason(_score(status="timeout", score=0.0)) == "timeout"
    passing = KeepRule.parse("passing")
    assert passing.keeps(_score(passed=True, score=1.0)) and not passing.keeps(_score())
    assert passing.drop_reason(_score()) == "failing"
    assert KeepRule.parse("all").keeps(_score(status="missing", score=0.0))
    assert KeepRule.parse("score>=0").keeps(_score(status="missing", score=0.0))


@pytest.mark.parametrize("text", ["", "pass", "score>0.5", "score>=1.5", "score>=-1", "score>=x", "score>=nan"])
def test_bad_keep_rules_say_what_is_allowed(text: str) -> None:
    with pytest.raises(ValueError, match=r"passing|\[0, 1\]"):
        KeepRule.parse(text)
