"""TRL's own code calls the reward: ``GRPOTrainer._calculate_rewards`` of the pinned trl (the ``trl``
extra, which scripts/setup.sh installs), run on a stand-in for the trainer, with a batch in the
conversational format and a data set column of case ids. No model is loaded. When a new trl calls
reward functions differently, this is the test that says so."""

from __future__ import annotations

import functools
from collections import defaultdict
from types import SimpleNamespace
from typing import Any

import pytest

from corpus.support import DISCLOSURE_PAGE, EMPTY, clean, failing, fenced
from lm_eval_a11y.corpus import a11y_reward


def _trl() -> Any:
    try:
        import trl
    except ImportError:
        pytest.fail("trl is not installed: pip install -e '.[trl]' (bash scripts/setup.sh installs it)")
    return trl


def test_grpo_trainer_gets_one_reward_per_completion_and_the_logs() -> None:
    trl = _trl()
    import torch
    from trl.trainer.utils import get_callable_name, is_async_callable

    assert trl.__version__ == "1.16.0", "the pinned version (pyproject: the trl extra)"
    reward = a11y_reward(generic=False, case_column="id", name="a11y")
    assert get_callable_name(reward) == "a11y" and not is_async_callable(reward)

    answers = [fenced(clean(1)), fenced(failing(2)), "No page, sorry.", fenced(EMPTY), fenced(DISCLOSURE_PAGE)]
    cases = [None, None, None, None, "disclosure"]
    prompt = [{"role": "user", "content": "Write an accessible page"}]
    inputs = [
        {"prompt": prompt, "id": case, "task": "a11y", "completion": "ignored"}
        for case in cases  # what the data loader gives: one row per completion
    ]
    completions = [[{"role": "assistant", "content": answer}] for answer in answers]
    trainer = SimpleNamespace(
        accelerator=SimpleNamespace(device=torch.device("cpu"), is_main_process=True),
        args=SimpleNamespace(report_to=[]),
        state=SimpleNamespace(global_step=3),
        reward_funcs=[reward],
        reward_processing_classes=[None],
        reward_func_names=[get_callable_name(reward)],
        environments=None,
        _pending_extra_logs=defaultdict(list),
        _pending_metrics=defaultdict(list),
    )
    trainer._log_completion_extra = functools.partial(trl.GRPOTrainer._log_completion_extra, trainer)
    trainer._log_metric = functools.partial(trl.GRPOTrainer._log_metric, trainer)

    rewards = trl.GRPOTrainer._calculate_rewards(
        trainer, inputs, [prompt] * len(answers), completions, [[1, 2, 3]] * len(answers)
    )

    assert tuple(rewards.shape) == (len(answers), 1)
    got = rewards[:, 0].tolist()
    assert got[0] == 1.0 and 0.0 < got[1] < 1.0 and got[2:4] == [0.0, 0.0] and got[4] == 1.0
    assert trainer._pending_extra_logs["a11y_outcome"] == ["ok", "ok", "no_html", "little_text", "ok"]
    assert trainer._pending_metrics["a11y/pass"] == [pytest.approx(2 / 5)]
    assert trainer._pending_metrics["a11y/judged"] == [pytest.approx(3 / 5)]
