"""Scoring HTML corpora, for filtering training data and for rewards (docs/corpus.md).

    from lm_eval_a11y.corpus import score_pages
    for page in score_pages(htmls):
        page.status, page.a11y_pass, page.score, page.axe_rules, page.checks_failed

:func:`score_pages` gives one :class:`PageScore` per input, in input order, and never drops one:
a bad row gets a status and a reason. :class:`A11yCorpusFilter` is the same scoring as a datatrove
pipeline step (it needs the ``corpus`` extra); ``a11y-eval corpus score|filter`` runs it over a
Parquet or JSONL file. :func:`a11y_reward` makes a reward function for TRL's ``GRPOTrainer``
from the same scoring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lm_eval_a11y.corpus.keep import KeepRule
from lm_eval_a11y.corpus.pages import (
    STATUSES,
    GenericChecksMissingError,
    PageScore,
    PageStatus,
    resolve_checks,
    score_features,
    score_pages,
    score_schema,
    shared_evaluator,
)
from lm_eval_a11y.corpus.reward import A11yReward, RewardOutcome, a11y_reward, accessibility_reward

if TYPE_CHECKING:
    from lm_eval_a11y.corpus.step import A11yCorpusFilter, A11yFilter

__all__ = [
    "STATUSES",
    "A11yCorpusFilter",
    "A11yFilter",
    "A11yReward",
    "GenericChecksMissingError",
    "KeepRule",
    "PageScore",
    "PageStatus",
    "RewardOutcome",
    "a11y_reward",
    "accessibility_reward",
    "resolve_checks",
    "score_features",
    "score_pages",
    "score_schema",
    "shared_evaluator",
]


def __getattr__(name: str) -> Any:
    # The datatrove step loads datatrove; the rest of the package works without it.
    # A11yFilter is the step's earlier name.
    if name in ("A11yCorpusFilter", "A11yFilter"):
        from lm_eval_a11y.corpus import step

        return getattr(step, name)
    raise AttributeError(f"module 'lm_eval_a11y.corpus' has no attribute {name!r}")
