"""The benchmark script end to end on a tiny corpus: both modes, rounds, medians, the memory
pass and the JSON."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from scripts_support import load_script


def _bench() -> ModuleType:
    return load_script("bench_evaluator")


def test_two_rounds_of_both_modes_report_medians(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    bench = _bench()
    calls: list[str] = []
    for mode in ("naive", "pooled"):
        real = getattr(bench, mode)

        def recording(*args: Any, _real: Any = real, _mode: str = mode) -> Any:
            calls.append(_mode)
            return _real(*args)

        setattr(bench, mode, recording)
    code = bench.main(
        ["--examples", "2", "--generated", "1", "--rounds", "2", "--concurrency", "2", "--json", str(out)]
    )
    assert code == 0
    # Naive first in round 1, the pool first in round 2, then the memory pass of the pool.
    assert calls == ["naive", "pooled", "pooled", "naive", "pooled"]
    figures = json.loads(out.read_text())
    assert figures["pages"] == 3
    assert len(figures["rounds"]) == 2
    for round_figures in figures["rounds"]:
        modes = round_figures["modes"]
        assert set(modes) == {"naive (browser per page)", "pool (concurrency 2)"}
        assert all(mode["statuses"] == {"ok": 3} for mode in modes.values())
        assert round_figures["outcome_mismatches"] == []
        assert round_figures["ratio"] > 0
        # The timed runs carry no memory figure: the sampler would slow the pool it measures.
        assert all("peak_pss_mib" not in mode for mode in modes.values())
    ratios = sorted(r["ratio"] for r in figures["rounds"])
    assert figures["median_ratio"] == pytest.approx(sum(ratios) / 2)
    assert figures["ratio_range"] == pytest.approx(ratios)
    memory = figures["memory_pass"]
    assert memory["mode"] == "pool (concurrency 2)"
    assert memory["statuses"] == {"ok": 3}
    assert memory["outcome_mismatches"] == []
    # A headless Chromium with two pages open holds well over 50 MiB and well under 4 GiB.
    assert 50 < memory["peak_pss_mib"] < 4096
    assert figures["peak_pss_mib"] == memory["peak_pss_mib"]
    printed = capsys.readouterr().out
    assert "round 2 of 2" in printed
    assert "over 2 rounds:" in printed
    assert "memory pass, pool (concurrency 2)" in printed


def test_skip_memory_leaves_out_the_memory_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    code = _bench().main(["--examples", "1", "--generated", "0", "--skip-naive", "--skip-memory", "--json", str(out)])
    assert code == 0
    figures = json.loads(out.read_text())
    assert [mode["statuses"] for mode in figures["modes"].values()] == [{"ok": 1}]
    assert "memory_pass" not in figures and "peak_pss_mib" not in figures
    assert "memory pass" not in capsys.readouterr().out


def test_rounds_must_be_positive() -> None:
    with pytest.raises(SystemExit) as exit_info:
        _bench().main(["--rounds", "0"])
    assert exit_info.value.code == 2
