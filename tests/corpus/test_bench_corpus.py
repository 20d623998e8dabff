"""The corpus benchmark script end to end on a tiny corpus: the corpus it builds, two paths in
processes of their own, their verdicts compared, and the figures it writes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType

from scripts_support import load_script


def _bench() -> ModuleType:
    return load_script("bench_corpus")


def test_the_corpus_is_the_same_for_a_seed_and_mixes_every_origin() -> None:
    bench = _bench()
    rows = bench.build_corpus(60)
    assert rows == bench.build_corpus(60)
    assert rows != bench.build_corpus(60, seed=8)
    assert len(rows) == 60 and len({r["id"] for r in rows}) == 60
    origins = Counter(r["origin"] for r in rows)
    assert set(origins) == {"example", "site", "article"}
    assert origins["example"] == 12  # a fifth
    assert all(r["html"].lstrip().lower().startswith("<!doctype html") for r in rows if r["origin"] != "example")


def test_two_paths_score_the_same_rows_and_report_their_cost(tmp_path: Path) -> None:
    bench = _bench()
    out = tmp_path / "figures.json"
    # The paths are compared on verdicts, not on speed: a budget the slowest page of the corpus
    # meets on a loaded machine (a 139 KB article ran out of the default 20 s in one CI run).
    argv = ["--pages", "8", "--paths", "api,local", "--checks", "axe", "--timeout", "90"]
    code = bench.main([*argv, "--work", str(tmp_path), "--json", str(out)])
    assert code == 0
    figures = json.loads(out.read_text())
    assert figures["pages"] == 8 and figures["checks"] == "axe"
    assert figures["differing"] == []
    api, local = figures["paths"]["api"], figures["paths"]["local"]
    for path in (api, local):
        assert sum(path["statuses"].values()) == 8
        assert path["pages_per_s"] > 0
        # Chromium's processes are counted: axe-core alone costs far more than a millisecond a page.
        assert path["cpu_s_per_page"] > 0.01
        assert path["peak_worker_mib"] > 50
    assert api["overhead_vs_api"] == 0.0
    assert local["overhead_vs_api"] is not None
    assert (tmp_path / "corpus-8.parquet").is_file()


def test_the_failing_corpus_gives_most_pages_a_failure_the_web_has() -> None:
    bench = _bench()
    rows = bench.build_failing_corpus(60, failing=0.9)
    assert rows == bench.build_failing_corpus(60, failing=0.9)
    assert [r["id"] for r in rows] == [r["id"] for r in bench.build_corpus(60)]
    seeded = [r for r in rows if r["seeded"]]
    assert 45 <= len(seeded) < 60
    plain = {r["id"]: r["html"] for r in bench.build_corpus(60)}
    assert all(r["html"] == plain[r["id"]] for r in rows if not r["seeded"])
    for row in seeded:
        added = row["html"] != plain[row["id"]]
        assert added, f"{row['id']}: a seeded page gets at least one failure"


def test_the_early_mode_compares_full_and_early_filtering(tmp_path: Path) -> None:
    bench = _bench()
    out = tmp_path / "figures.json"
    argv = ["--early", "--pages", "6", "--checks", "axe", "--workers", "1", "--work", str(tmp_path), "--json", str(out)]
    assert bench.main(argv) == 0
    figures = json.loads(out.read_text())
    assert figures["kept_identical"] is True and figures["differing"] == []
    assert figures["ratio"] > 0 and figures["full"]["pages_per_s"] > 0 and figures["early"]["pages_per_s"] > 0
    assert figures["full"]["partial"] == 0
    # The failing pages were stopped at their first failure (one that fails only at the last step
    # has nothing left to skip).
    assert 0 < figures["early"]["partial"] <= 6 - figures["kept"]
