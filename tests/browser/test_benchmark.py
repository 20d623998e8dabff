"""The benchmark script end to end on a tiny corpus: both modes, rounds, medians and the JSON."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_evaluator.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_evaluator", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def test_two_rounds_of_both_modes_report_medians(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    code = _bench().main(
        ["--examples", "2", "--generated", "1", "--rounds", "2", "--concurrency", "2", "--json", str(out)]
    )
    assert code == 0
    figures = json.loads(out.read_text())
    assert figures["pages"] == 3
    assert len(figures["rounds"]) == 2
    for round_figures in figures["rounds"]:
        modes = round_figures["modes"]
        assert set(modes) == {"naive (browser per page)", "pool (concurrency 2)"}
        assert all(mode["statuses"] == {"ok": 3} for mode in modes.values())
        assert round_figures["outcome_mismatches"] == []
        assert round_figures["ratio"] > 0
    ratios = sorted(r["ratio"] for r in figures["rounds"])
    assert figures["median_ratio"] == pytest.approx(sum(ratios) / 2)
    assert figures["ratio_range"] == pytest.approx(ratios)
    printed = capsys.readouterr().out
    assert "round 2 of 2" in printed
    assert "over 2 rounds:" in printed


def test_rounds_must_be_positive() -> None:
    with pytest.raises(SystemExit) as exit_info:
        _bench().main(["--rounds", "0"])
    assert exit_info.value.code == 2
