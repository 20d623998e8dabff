"""Settings that could not bound what they are meant to bound are refused, with their name."""

from __future__ import annotations

import math

import pytest

from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0, 0.0, -1, -0.5, "20", None, True])
def test_a_time_budget_must_be_a_finite_positive_number(value: object) -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        EvaluatorSettings(timeout_s=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, -1, 1.5, "2", True, None])
def test_concurrency_must_be_a_whole_number_of_slots(value: object) -> None:
    with pytest.raises(ValueError, match="concurrency"):
        EvaluatorSettings(concurrency=value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("recycle_after", 0),
        ("max_html_bytes", 0),
        ("settle_ms", -1),
        ("renderer_memory_mb", 0),
        ("renderer_memory_mb", math.inf),
        ("browser_memory_mb", 100),  # below the renderer's limit
        ("viewport", (0, 800)),
        ("viewport", (1280,)),
    ],
)
def test_other_limits_are_checked_too(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field.split("_")[0]):
        EvaluatorSettings(**{field: value})  # type: ignore[arg-type]


def test_the_facade_refuses_them_before_any_browser_starts() -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        Evaluator(timeout_s=math.nan)


def test_ordinary_settings_are_accepted() -> None:
    settings = EvaluatorSettings(concurrency=3, timeout_s=0.5, renderer_memory_mb=256, browser_memory_mb=256)
    assert settings.timeout_s == 0.5
    assert EvaluatorSettings(timeout_s=20).timeout_s == 20
