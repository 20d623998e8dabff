"""The benchmark script end to end on a tiny corpus: the naive mode, the plain script a user would
write and the pool, rounds, medians, the ratio to the script and its findings set against the
evaluator's, CPU per page, the memory pass and the JSON."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from scripts_support import load_script

from lm_eval_a11y.observation import (
    AuditCoverage,
    AxeFinding,
    AxeNode,
    AxeResult,
    ContrastAudit,
    ContrastNode,
    Observation,
    Timings,
)


def _bench() -> ModuleType:
    return load_script("bench_evaluator")


SCRIPT = "plain script (4 at once)"
POOL = "pool (concurrency 2)"


def test_two_rounds_of_every_mode_report_medians(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    bench = _bench()
    calls: list[str] = []
    for mode in ("naive", "plain_script", "pooled"):
        real = getattr(bench, mode)

        def recording(*args: Any, _real: Any = real, _mode: str = mode) -> Any:
            calls.append(_mode)
            return _real(*args)

        setattr(bench, mode, recording)
    code = bench.main(
        ["--examples", "2", "--generated", "1", "--rounds", "2", "--concurrency", "2", "--json", str(out)]
    )
    assert code == 0
    # In order in round 1, in reverse in round 2, then the memory pass of the pool.
    assert calls == ["naive", "plain_script", "pooled", "pooled", "plain_script", "naive", "pooled"]
    figures = json.loads(out.read_text())
    assert figures["pages"] == 3
    assert len(figures["rounds"]) == 2
    for round_figures in figures["rounds"]:
        modes = round_figures["modes"]
        assert set(modes) == {"naive (browser per page)", SCRIPT, POOL}
        assert [mode["kind"] for mode in modes.values()] == ["naive", "script", "pool"]
        assert all(mode["statuses"] == {"ok": 3} for mode in modes.values())
        assert round_figures["outcome_mismatches"] == []
        assert round_figures["ratio"] > 0
        assert round_figures["script_ratio"] == pytest.approx(modes[SCRIPT]["seconds"] / modes[POOL]["seconds"])
        assert round_figures["script_findings"]["pages_compared"] == 3
        # The timed runs carry no memory figure: the sampler would slow the pool it measures.
        assert all("peak_pss_mib" not in mode for mode in modes.values())
    for key in ("ratio", "script_ratio"):
        ratios = sorted(r[key] for r in figures["rounds"])
        assert figures[f"median_{key}"] == pytest.approx(sum(ratios) / 2)
        assert figures[f"{key}_range"] == pytest.approx(ratios)
    assert set(figures["median_cpu_ms_per_page"]) == {"naive (browser per page)", SCRIPT, POOL}
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
    assert "ratio to the plain script" in printed and "speed-up of the pool: median" in printed


def test_the_plain_script_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One round against the plain script: its ratio, CPU per page and findings, in print and JSON."""
    out = tmp_path / "bench.json"
    argv = ["--examples", "3", "--generated", "1", "--concurrency", "2", "--skip-naive", "--skip-memory"]
    code = _bench().main([*argv, "--json", str(out)])
    assert code == 0
    figures = json.loads(out.read_text())
    modes = figures["modes"]
    assert list(modes) == [SCRIPT, POOL]
    script, pool = modes[SCRIPT], modes[POOL]
    assert script["statuses"] == pool["statuses"] == {"ok": 4}
    assert script["pages_per_s"] == pytest.approx(4 / script["seconds"])
    assert figures["script_ratio"] == pytest.approx(script["seconds"] / pool["seconds"])
    assert "ratio" not in figures  # the naive mode's
    for mode in (script, pool):
        # Every process the run started counts, Chromium's included: loading a page in a new
        # context and running axe on it takes tens of milliseconds of CPU at the least.
        assert mode["cpu_ms_per_page"] == pytest.approx(1000 * mode["cpu_s"] / 4)
        assert 20 < mode["cpu_ms_per_page"] < 60_000
        assert 0 < mode["cpu_share"] < 1.2
    findings = figures["script_findings"]
    assert findings["pages_compared"] == 4
    assert findings["pages_differing"] == len(findings["examples"]) <= 4
    assert sum(findings["rules_by_reason"].values()) == sum(
        len(page["only_script"]) + len(page["only_evaluator"]) for page in findings["examples"]
    )
    printed = capsys.readouterr().out
    assert f"ratio to the plain script (its wall time / the pool's): {figures['script_ratio']:.2f}x" in printed
    assert "CPU of all its processes" in printed
    assert "on the 4 pages both completed" in printed


def test_findings_the_script_cannot_see_are_explained() -> None:
    """A page that adds an image without a text alternative 1.5 s after it loads: the plain
    script audits it at its load and misses it; the evaluator, watching for late changes, finds
    it, and the comparison names the reason."""
    bench = _bench()
    late = (
        '<!doctype html><html lang="en"><head><title>Late</title></head><body><main><h1>Late</h1>'
        "<script>setTimeout(() => { const i = document.createElement('img'); i.src = 'data:,';"
        " document.querySelector('main').append(i); }, 1500);</script></main></body></html>"
    )
    plain = '<!doctype html><html lang="en"><head><title>Plain</title></head><body><main><h1>Hi</h1></main></body>'
    corpus = [(None, late, "late"), (None, plain, "plain")]
    script = bench._measure(bench.Mode("script", "script", lambda c: bench.plain_script(c, 30.0)), corpus)
    pool = bench._measure(bench.Mode("pool", "pool", lambda c: bench.pooled(c, 2, 30.0)), corpus)
    assert [r.error for r in script.script_results] == [None, None]
    assert [o.status for o in pool.observations] == ["ok", "ok"]
    comparison = bench.compare_findings(script, pool, corpus)
    assert comparison.compared == 2
    assert comparison.differing == (bench.PageDifference("late", (), ("image-alt",), (bench.LATE_CHANGE,)),)
    assert comparison.by_reason() == {bench.LATE_CHANGE: 1}


def _finding(rule: str, state: str = "initial") -> AxeFinding:
    return AxeFinding(rule, "serious", ("wcag2a", "wcag111"), rule, "", (AxeNode("<p></p>", ("p",)),), 1, (state,))


def _observation(*findings: AxeFinding, contrast: ContrastAudit | None = None, frames: int = 0) -> Observation:
    return Observation(
        case_id=None,
        case_version=None,
        status="ok",
        error=None,
        html_sha256="",
        html_bytes=0,
        axe=AxeResult(violations=findings),
        checks=(),
        environment=None,
        timings=Timings(),
        audit=AuditCoverage(recorded=True, frames_audited=frames),
        contrast=contrast,
    )


def test_each_difference_is_put_down_to_a_reason() -> None:
    """The reasons, from records made up to hold each one (no browser)."""
    bench = _bench()
    cleared = ContrastAudit(
        nodes=(ContrastNode("light", ("p",), "violation", 3.9, None, 4.5, 7.2, "pass", "pass", "pixels"),),
        axe_violations=(("light", 1),),
    )
    pages = {
        # axe failed the contrast as the script did; the pixels cleared it.
        "contrast": (["color-contrast", "region"], _observation(_finding("color-contrast"), contrast=cleared)),
        "checked": (["list"], _observation(_finding("list"), _finding("aria-hidden-focus", "initial-open"))),
        "late": ([], _observation(_finding("image-alt", "late"))),
        "frames": ([], _observation(_finding("frame-title"), frames=1)),
        "other": (["label"], _observation()),
        "same": (["list"], _observation(_finding("list"))),
    }
    corpus = [(None, "", name) for name in pages]
    script_results = tuple(
        bench.PlainResult(
            name, tuple({"id": rule, "tags": ["best-practice"] if rule == "region" else ["wcag2a"]} for rule in rules)
        )
        for name, (rules, _) in pages.items()
    )
    observations = tuple(obs for _, obs in pages.values())
    script = bench.ModeResult("script", "script", 6, 1.0, None, None, {"ok": 6}, script_results=script_results)
    pool = bench.ModeResult("pool", "pool", 6, 1.0, None, None, {"ok": 6}, observations=observations)
    comparison = bench.compare_findings(script, pool, corpus)
    assert comparison.compared == 6
    assert {page.name: (page.only_script, page.only_evaluator, page.reasons) for page in comparison.differing} == {
        "contrast": (("color-contrast",), (), (bench.CONTRAST,)),
        "checked": ((), ("aria-hidden-focus",), (bench.CHECKED_STATE,)),
        "late": ((), ("image-alt",), (bench.LATE_CHANGE,)),
        "frames": ((), ("frame-title",), (bench.FRAMES,)),
        "other": (("label",), (), (bench.OTHER,)),
    }
    figures = comparison.figures(examples=2)
    assert figures["pages_compared"] == 6 and figures["pages_differing"] == 5
    assert len(figures["examples"]) == 2
    assert set(figures["rules_by_reason"].values()) == {1}


def test_skip_memory_and_baseline_leave_the_pool_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    argv = ["--examples", "1", "--generated", "0", "--skip-naive", "--skip-baseline", "--skip-memory"]
    code = _bench().main([*argv, "--json", str(out)])
    assert code == 0
    figures = json.loads(out.read_text())
    assert [mode["statuses"] for mode in figures["modes"].values()] == [{"ok": 1}]
    assert "memory_pass" not in figures and "peak_pss_mib" not in figures
    assert "script_ratio" not in figures and "script_findings" not in figures
    printed = capsys.readouterr().out
    assert "memory pass" not in printed and "plain script" not in printed


def test_rounds_must_be_positive() -> None:
    with pytest.raises(SystemExit) as exit_info:
        _bench().main(["--rounds", "0"])
    assert exit_info.value.code == 2


def test_saved_pages_are_measured_without_a_case_beside_the_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = tmp_path / "public"
    pages.mkdir()
    (pages / "a-fails.html").write_text(
        '<!doctype html><html lang="en"><title>A</title><main><img src="data:,"></main></html>', encoding="utf-8"
    )
    (pages / "b-passes.html").write_text(
        '<!doctype html><html lang="en"><title>B</title><main><p>Fine.</p></main></html>', encoding="utf-8"
    )
    (pages / "MANIFEST.json").write_text(json.dumps({"packages": {"some-doc": "1.2-3"}}), encoding="utf-8")
    out = tmp_path / "bench.json"
    argv = ["--examples", "0", "--generated", "0", "--pages", str(pages), "--skip-naive", "--skip-memory"]
    assert _bench().main([*argv, "--concurrency", "2", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["pages"] == 2
    assert figures["modes"][POOL]["statuses"] == {"ok": 2}
    assert figures["script_findings"]["pages_compared"] == 2
    printed = capsys.readouterr().out
    assert "corpus: 2 pages (0 with case checks)" in printed
    assert "from some-doc 1.2-3" in printed
    assert "ratio to the plain script" in printed


def test_pages_must_name_a_folder_of_pages(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _bench().main(["--examples", "0", "--generated", "0", "--pages", str(tmp_path)])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        _bench().main(["--examples", "0", "--generated", "0"])
    assert exit_info.value.code == 2


def test_the_pages_a_mode_did_not_complete_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pages = tmp_path / "saved"
    pages.mkdir()
    (pages / "spins.html").write_text(
        '<!doctype html><html lang="en"><title>S</title><script>while (true) {}</script></html>', encoding="utf-8"
    )
    out = tmp_path / "bench.json"
    argv = ["--examples", "0", "--generated", "0", "--pages", str(pages), "--skip-naive", "--skip-memory"]
    assert _bench().main([*argv, "--concurrency", "1", "--timeout", "4", "--json", str(out)]) == 0
    modes = json.loads(out.read_text())["modes"]
    assert modes[SCRIPT]["not_ok"] == ["saved/spins.html (error)"]
    assert modes["pool (concurrency 1)"]["not_ok"] == ["saved/spins.html (timeout)"]
    printed = capsys.readouterr().out
    assert "not ok: saved/spins.html (timeout)" in printed
