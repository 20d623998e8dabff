"""Accessibility as a reward for TRL's ``GRPOTrainer`` (docs/corpus.md, "Rewards").

    from lm_eval_a11y.corpus import a11y_reward
    trainer = GRPOTrainer(..., reward_funcs=[a11y_reward(case_column="id")])

A reward function takes ``completions`` (and the batch's other columns as keyword arguments) and
returns one float per completion, in order. Each completion is a model's answer: a string, or in
the conversational format a list of messages, whose assistant messages are the answer. Its pages
are found as the lm-eval task finds them (:func:`lm_eval_a11y.extract.extract_html`: every HTML
block a person would take from the answer, :mod:`lm_eval_a11y.answer_pages`), the whole batch is
rendered at once by this process's shared pool (:func:`score_pages`), and the reward is the graded
score (:func:`lm_eval_a11y.scoring.graded_score`) of the answer's lowest page, plus ``pass_bonus``
for an answer that passes. With ``graded=False`` the reward is the pass test alone (1.0 for a page that
passes, 0.0 for one that fails), and each page's evaluation stops at its first decided failure
(``stop_at_first_failure``): the same verdicts for a fraction of the time on failing pages.

A model learns whatever the reward lets through, so what is not an answer scores 0.0 and never
raises: no completion text, no HTML in it, a page that could not be judged (too large, a timeout,
a crash), and a page that shows less than ``min_text`` characters of text (counted in the
browser: :attr:`PageScore.text_chars`). The last one matters: an empty page has nothing for
axe-core to fail, and would otherwise score 1.0 for any prompt; and words the browser never shows
(inside ``<noembed>`` or ``<datalist>``, a hidden paragraph, after a self-closing ``<script/>``)
make no page of text. A
case's requirement checks go further, since they look for the component the prompt asked for:
with ``case`` or ``case_column``, a page that builds none of it fails them, whatever its text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from lm_eval_a11y.answer_pages import deciding_page
from lm_eval_a11y.corpus.pages import PageScore, resolve_checks, score_pages, shared_evaluator
from lm_eval_a11y.extract import extract_html

if TYPE_CHECKING:
    from lm_eval_a11y.engine.evaluator import EvaluatorSettings

__all__ = [
    "DEFAULT_MIN_TEXT",
    "A11yReward",
    "RewardOutcome",
    "a11y_reward",
    "accessibility_reward",
    "answer_text",
]

DEFAULT_MIN_TEXT = 20
"""Characters of text a page needs to be rewarded at all: a few words. It keeps empty and
near-empty pages at 0.0 and no more; a real answer to any prompt clears it by far."""

# Outcomes of a completion that never reached the browser (besides the PageScore statuses).
NO_HTML = "no_html"
LITTLE_TEXT = "little_text"
TOO_MANY_PAGES = "too_many_pages"


def answer_text(completion: object) -> str | None:
    """The answer in one completion, as TRL gives it: the string itself (standard format), or the
    text of its assistant messages joined in order (conversational format: a list of message
    dicts; a message's ``content`` may be a string or a list of ``{"type": "text", "text": ...}``
    parts). Tool and user messages are not the model's answer and are left out. ``None`` when
    there is no text to read."""
    if isinstance(completion, str):
        return completion
    messages: Sequence[object]
    if isinstance(completion, Mapping):
        messages = [completion]
    elif isinstance(completion, (list, tuple)):
        messages = completion
    else:
        return None
    parts: list[str] = []
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, (list, tuple)):
            for part in content:
                if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif isinstance(part, str):
                    parts.append(part)
    return "\n\n".join(parts) if parts else None


@dataclass(frozen=True)
class A11yReward:
    """A TRL reward function: ``reward(completions, **kwargs) -> list[float]``.

    Made by :func:`a11y_reward`, which documents the fields. It is a plain frozen dataclass, so
    it pickles (TRL's asynchronous GRPO sends reward functions to a spawned process); each
    process scores with its own shared browser pool. ``__name__`` is ``name``, the key TRL logs
    the reward under.
    """

    case: str | None = None
    generic: bool = True
    case_column: str | None = None
    min_text: int = DEFAULT_MIN_TEXT
    pass_bonus: float = 0.0
    settings: EvaluatorSettings | None = None
    name: str = "a11y_reward"
    graded: bool = True

    def __post_init__(self) -> None:
        if self.case is not None and not (isinstance(self.case, str) and self.case.strip()):
            raise TypeError(f"case must be a case id (a non-empty string) or None, got {self.case!r}")
        if not isinstance(self.generic, bool):
            raise TypeError(f"generic must be True or False, got {self.generic!r}")
        if self.case_column is not None and not (isinstance(self.case_column, str) and self.case_column):
            raise TypeError(f"case_column must be a column name or None, got {self.case_column!r}")
        if isinstance(self.min_text, bool) or not isinstance(self.min_text, int) or self.min_text < 0:
            raise ValueError(f"min_text must be a whole number of characters, 0 or more; got {self.min_text!r}")
        bonus = self.pass_bonus
        if isinstance(bonus, bool) or not isinstance(bonus, (int, float)) or not math.isfinite(bonus) or bonus < 0:
            raise ValueError(f"pass_bonus must be a finite number, 0 or more; got {bonus!r}")
        if not isinstance(self.graded, bool):
            raise TypeError(f"graded must be True or False, got {self.graded!r}")
        if not (isinstance(self.name, str) and self.name.strip()):
            raise ValueError(f"name must be a non-empty string, got {self.name!r}")

    @property
    def __name__(self) -> str:  # TRL names a reward function by its __name__
        return self.name

    def __call__(self, completions: Sequence[object], **kwargs: Any) -> list[float]:
        rewards, outcomes = self.judge(completions, **kwargs)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and outcomes:
            passed = sum(1 for o in outcomes if o.status == "ok" and o.score is not None and o.score.a11y_pass)
            log_metric(f"{self.name}/pass", passed / len(outcomes))
            log_metric(f"{self.name}/judged", sum(1 for o in outcomes if o.status == "ok") / len(outcomes))
        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            log_extra(f"{self.name}_outcome", [o.status for o in outcomes])
        return rewards

    def judge(self, completions: Sequence[object], **kwargs: Any) -> tuple[list[float], list[RewardOutcome]]:
        """The rewards and, for each completion, what happened to it (:class:`RewardOutcome`)."""
        items = list(completions)
        cases = self._cases(len(items), kwargs)
        # Every page of every completion goes in one call: the pool renders them concurrently.
        # A completion without a page goes in once as None (never rendered), so every row's case
        # is still checked.
        pages: list[str | None] = []
        page_cases: list[Any] = []
        owners: list[tuple[list[str], int, str | None]] = []  # (its pages, index of its primary, why none)
        for n, completion in enumerate(items):
            found, primary, why = self._pages(completion)
            owners.append((found, primary, why))
            queued: list[str | None] = list(found) if found else [None]
            for page in queued:
                pages.append(page)
                page_cases.append(None if cases is None else cases[n])
        scores = score_pages(
            pages,
            case=self.case,
            generic=self.generic,
            cases=None if cases is None else page_cases,
            evaluator=shared_evaluator(self._settings()),
        )
        rewards: list[float] = []
        outcomes: list[RewardOutcome] = []
        at = 0
        for found, primary, why in owners:
            own = scores[at : at + max(1, len(found))]
            at += max(1, len(found))
            if why is not None:
                rewards.append(0.0)
                outcomes.append(RewardOutcome(status=why, score=None))
                continue
            values = [s.score if s.status == "ok" else 0.0 for s in own]
            decided = deciding_page(values, primary)
            score = own[decided]
            common = {"pages": len(own), "decided": decided}
            if self.min_text and score.status == "ok" and (score.text_chars or 0) < self.min_text:
                # Too little text shown to be a page (counted in the browser: text.js).
                rewards.append(0.0)
                outcomes.append(RewardOutcome(status=LITTLE_TEXT, score=score, **common))
                continue
            bonus = self.pass_bonus if score.a11y_pass else 0.0
            value = score.score if self.graded else float(score.a11y_pass)
            rewards.append(float(value + bonus) if score.status == "ok" else 0.0)
            outcomes.append(RewardOutcome(status=score.status, score=score, **common))
        return rewards, outcomes

    def _settings(self) -> EvaluatorSettings | None:
        """The pool's settings: as given, and for the pass test alone, stopping each page at its
        first decided failure (the verdict is the full evaluation's; the graded score would not be)."""
        if self.graded:
            return self.settings
        from lm_eval_a11y.engine.settings import EvaluatorSettings

        return replace(self.settings or EvaluatorSettings(), stop_at_first_failure=True)

    def _pages(self, completion: object) -> tuple[list[str], int, str | None]:
        """``(pages, primary, None)``: the pages to render (every page a person would take from the
        answer, :mod:`lm_eval_a11y.answer_pages`) and the index of the one that stands for it;
        or ``([], 0, why)`` for a completion without one."""
        text = answer_text(completion)
        if text is None:
            return [], 0, NO_HTML
        extraction = extract_html(text)
        if extraction.how == "too-many-pages":
            return [], 0, TOO_MANY_PAGES
        if not extraction.found:
            return [], 0, NO_HTML
        return list(extraction.judged), extraction.primary, None

    def _cases(self, count: int, kwargs: Mapping[str, Any]) -> list[Any] | None:
        if self.case_column is None:
            return None
        if self.case_column not in kwargs:
            columns = ", ".join(sorted(k for k in kwargs if k not in _TRAINER_KWARGS)) or "none"
            raise KeyError(
                f"the reward reads case ids from the column {self.case_column!r}, which the batch does not have "
                f"(its columns: {columns}); pass case_column=None, or the name of the column with the case ids"
            )
        column = kwargs[self.case_column]
        values = list(column) if isinstance(column, (list, tuple)) else None
        if values is None or len(values) != count:
            got = f"{len(values)} values" if values is not None else f"a {type(column).__name__}"
            raise ValueError(f"column {self.case_column!r} holds {got} for {count} completions; it needs one each")
        return values


# What TRL passes besides the data set's columns (left out of the columns a message lists).
_TRAINER_KWARGS = frozenset({"prompts", "completion_ids", "trainer_state", "log_extra", "log_metric", "environments"})


@dataclass(frozen=True)
class RewardOutcome:
    """What happened to one completion: ``status`` is a :class:`PageScore` status for a page that
    went to the pool (``ok``, ``timeout``...), ``no_html`` (no answer text, or no HTML in it),
    ``too_many_pages`` (more HTML pages than are judged, :data:`~lm_eval_a11y.answer_pages.MAX_PAGES`)
    or ``little_text`` (under ``min_text``); ``score`` is the score of the page that decided, None
    when none was rendered. ``pages``: how many pages of the answer were judged (0 when none);
    ``decided``: the index, in the answer's order, of the page whose score is the reward."""

    status: str
    score: PageScore | None
    pages: int = 0
    decided: int = 0


def a11y_reward(
    *,
    case: str | None = None,
    generic: bool = True,
    case_column: str | None = None,
    min_text: int = DEFAULT_MIN_TEXT,
    pass_bonus: float = 0.0,
    settings: EvaluatorSettings | None = None,
    name: str = "a11y_reward",
    graded: bool = True,
) -> A11yReward:
    """A reward function for TRL's ``reward_funcs``: each completion's page, graded in [0, 1].

    ``case``: a case id whose requirement checks judge every page (else the generic page checks when
    ``generic``, else axe-core only). ``case_column``: the batch column with each prompt's case id
    (the benchmark's data set: ``"id"``), so each completion is judged by its own prompt's checks; a
    row whose value is None or blank falls back to ``case``/``generic``. ``min_text``: characters of
    text a page must show to be rewarded at all (counted in the browser,
    :attr:`PageScore.text_chars`; 0 turns the floor off). ``pass_bonus``: added to the reward of a
    page that passes (which scores 1.0), so a reward is in [0, 1 + pass_bonus]. ``settings``: the
    pool's settings (time budget, pages at once); every reward with the same settings shares one
    pool per process. ``name``: what TRL logs the reward as, and the prefix of the metrics it logs
    (``<name>/pass``, ``<name>/judged``: the share of completions that pass, that were rendered and
    judged) and of the completions-table column ``<name>_outcome``. ``graded=False``: the reward is
    the pass test alone, 1.0 for a page that passes and 0.0 for one that fails (plus
    ``pass_bonus``), and each page's evaluation stops at its first decided failure, so failing pages
    cost a fraction of a full evaluation.

    The checks named are resolved now, so an unknown case or missing generic checks fail here, not
    at the first training step (with ``case_column`` alone, the fallback is resolved when a row
    needs it). A completion never makes the reward raise; a batch without ``case_column``'s column,
    or with an unknown case id in it, does.
    """
    reward = A11yReward(
        case=case,
        generic=generic,
        case_column=case_column,
        min_text=min_text,
        pass_bonus=pass_bonus,
        settings=settings,
        name=name,
        graded=graded,
    )
    if case is not None or case_column is None:
        resolve_checks(case, generic)
    return reward


_DEFAULT = A11yReward(name="accessibility_reward")


def accessibility_reward(completions: Sequence[object], **kwargs: Any) -> list[float]:
    """The reward with :func:`a11y_reward`'s defaults (generic page checks, ``min_text`` 20, no
    bonus), as a plain function: ``GRPOTrainer(..., reward_funcs=[accessibility_reward])``."""
    return _DEFAULT(completions, **kwargs)
