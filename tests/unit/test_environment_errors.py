"""Missing Chromium or axe-core stops the evaluator at once, with the command that fixes it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lm_eval_a11y import resources
from lm_eval_a11y.engine.browser import ChromiumNotFoundError, find_chromium
from lm_eval_a11y.engine.evaluator import AsyncEvaluator, Evaluator, EvaluatorSettings
from lm_eval_a11y.resources import MissingResourceError


def test_missing_chromium_raises_at_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("A11Y_CHROMIUM", str(tmp_path / "chromium"))
    started = time.perf_counter()
    with Evaluator(EvaluatorSettings(concurrency=1)) as ev, pytest.raises(ChromiumNotFoundError) as err:
        ev.start()
    assert time.perf_counter() - started < 5
    assert "apt-get install -y chromium" in str(err.value)
    assert str(tmp_path / "chromium") in str(err.value)


def test_a_non_executable_chromium_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "chromium"
    fake.write_text("not a browser", encoding="utf-8")
    monkeypatch.setenv("A11Y_CHROMIUM", str(fake))
    with pytest.raises(ChromiumNotFoundError, match="is not an executable file"):
        find_chromium()


def test_missing_axe_raises_when_the_evaluator_is_made(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(resources, "_ASSETS", tmp_path / "assets")
    monkeypatch.setattr(resources, "_CHECKOUT", tmp_path / "checkout")
    with pytest.raises(MissingResourceError, match=r"npm ci --prefix evaluator"):
        AsyncEvaluator(EvaluatorSettings())
