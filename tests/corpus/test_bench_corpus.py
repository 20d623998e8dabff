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
    code = bench.main(
        ["--pages", "8", "--paths", "api,local", "--checks", "axe", "--work", str(tmp_path), "--json", str(out)]
    )
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
