"""The rendered file: complete, self-contained, and never executing or inlining model output."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lm_eval_a11y.cli import main
from lm_eval_a11y.pricing import ModelPrice, PriceTable
from lm_eval_a11y.report import build_report, render_report
from lm_eval_a11y.report.loading import RunSeries
from lm_eval_a11y.report.render import safe_url


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Collector()
    parser.feed(html)
    return parser.tags


@pytest.fixture(scope="module")
def page(series: list[RunSeries], tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("r") / "report.html"
    pricing = PriceTable("USD", (("SmolLM2-135M-Instruct*", ModelPrice(0.2, 0.6)),))
    return render_report(build_report(series, pricing), out_path=out)


def test_hostile_page_is_only_ever_text(page: str) -> None:
    tags = _tags(page)
    assert not [t for t, _ in tags if t in ("script", "iframe", "object", "embed", "link", "base", "form")]
    assert not [a for _, a in tags for k in a if k.startswith("on")], "no event handler attribute may survive"
    hrefs = [a.get("href") or "" for t, a in tags if t == "a"]
    assert all(h.startswith(("#", "https://", "http://")) for h in hrefs), [h for h in hrefs if not h.startswith("#")]
    # The hostile answer is in the report, escaped, and its template syntax was not evaluated.
    assert "alert(&#34;report-xss&#34;)&lt;/script&gt;" in page
    assert "{{ 7 * 7 }}" in page and ">49<" not in page
    assert "javascript:" not in " ".join(hrefs)


def test_self_contained(page: str) -> None:
    tags = _tags(page)
    images = [a.get("src") or "" for t, a in tags if t == "img"]
    assert len(images) == 8, "one screenshot per rendered sample of model A"
    assert all(src.startswith("data:image/png;base64,") for src in images)
    assert all(a.get("alt") for t, a in tags if t == "img")
    assert "url(http" not in page and "@import" not in page


def test_every_part_of_the_report_is_there(page: str, series: list[RunSeries]) -> None:
    ids = {a.get("id") for _, a in _tags(page)}
    for section in ("summary", "pass-at-k", "chart", "failures", "tokens", "cases", "environment"):
        assert section in ids, section
    for case in ("disclosure", "login-form", "tabs"):
        assert f"case-{case}" in ids
    for s in series:
        assert page.count(s.label) > 5
    assert '<svg class="chart"' in page and 'role="img"' in page and "<desc" in page
    assert "pattern" in page and "url(#pat-diagonal)" in page
    assert "33% (1/3)" in page and "100% (1/1)" in page, "bars carry their values"
    assert "0.4.13" in page and "4.14" in page, "lm-eval and axe-core versions"
    assert "gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf" in page
    assert "&#34;max_gen_toks&#34;: 4096" in page
    assert "Cost per passing sample" in page and " USD" in page
    assert "unknown" in page, "model B has no token counts"
    assert "Failing elements of label" in page and "https://dequeuniversity.com/rules/axe/" in page
    assert page.count('class="card ') == sum(len(s.samples) for s in series)
    assert "SmolLM2-135M-Instruct.Q4_1 1 of 9; fake/echo-examples 0 of 3." in page, "samples never rendered"


def test_link_and_none_screenshot_modes(series: list[RunSeries], tmp_path: Path) -> None:
    report = build_report(series)
    out = tmp_path / "sub" / "report.html"
    linked = render_report(report, out_path=out, screenshots="link")
    srcs = [a.get("src") or "" for t, a in _tags(linked) if t == "img"]
    assert len(srcs) == 8
    assert all((out.parent / src).resolve().is_file() for src in srcs), srcs[:2]
    none = render_report(report, out_path=out, screenshots="none")
    assert "<img" not in none


def test_safe_url() -> None:
    assert safe_url("https://dequeuniversity.com/rules/axe/4.14/label") is not None
    for bad in ("javascript:alert(1)", "data:text/html,x", "https://a b", '" onclick="x', None, ""):
        assert safe_url(bad) is None


def test_command_writes_the_report(tmp_path: Path, runs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    pricing = Path(__file__).resolve().parents[2] / "pricing.example.yaml"
    code = main(
        ["report", str(runs_dir / "model-a"), str(runs_dir / "model-b"), "--out", str(out), "--pricing", str(pricing)]
    )
    assert code == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>")
    assert re.search(r"0\.0000 USD", text), "the example prices the bundled model at zero"
    assert "2 run(s), 3 case(s), 12 sample(s)" in capsys.readouterr().out


def test_command_usage_errors(tmp_path: Path, runs_dir: Path) -> None:
    with pytest.raises(SystemExit) as err:
        main(["report", str(tmp_path), "--out", str(tmp_path / "r.html")])
    assert err.value.code == 2
    bad = tmp_path / "p.yaml"
    bad.write_text("models: 3")
    with pytest.raises(SystemExit) as err:
        main(["report", str(runs_dir), "--pricing", str(bad), "--out", str(tmp_path / "r.html")])
    assert err.value.code == 2
    assert not (tmp_path / "r.html").exists()
