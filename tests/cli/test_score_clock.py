"""``a11y-eval score`` and the page's clock: by default the late-change horizon is 2 s of real
time; ``--page-clock`` runs a copy of each page 30 s ahead on its own clock instead, and
``--paced-keys`` presses the keys of keyboard walks 200 ms of the page's time apart. The JSON says
which applied."""

from __future__ import annotations

import json

import pytest

from cli.support import ROOT
from lm_eval_a11y.cli import main

DIALOG = ROOT / "test_cases" / "modal-dialog" / "examples" / "pass-aria-dialog.html"
LATE = ROOT / "tests" / "adversarial" / "pages" / "fail-late-timeout-1500.html"


def _audits(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    main(["score", "--json", *argv])
    return [verdict["observation"]["audit"] for verdict in json.loads(capsys.readouterr().out)]


def test_by_default_the_wall_clock_and_unpaced_keys(capsys: pytest.CaptureFixture[str]) -> None:
    (audit,) = _audits([str(LATE)], capsys)
    assert audit["clock"] == "wall" and float(str(audit["horizon_ms"])) < 30_000
    assert audit["input_gap_ms"] == 0


def test_the_page_clock_and_paced_keys_are_flags(capsys: pytest.CaptureFixture[str]) -> None:
    (audit,) = _audits(["--page-clock", "--paced-keys", "--case", "modal-dialog", str(DIALOG)], capsys)
    assert audit["clock"] == "virtual" and float(str(audit["horizon_ms"])) >= 30_000
    assert audit["input_gap_ms"] == 200
