"""Screenshots in the report: thumbnails that open full size, with alt text that says what they
show, and a size budget that links what does not fit instead of embedding it."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from lm_eval_a11y.cli import build_parser, main
from lm_eval_a11y.report import build_report, render_report
from lm_eval_a11y.report.loading import RunSeries
from lm_eval_a11y.report.render import DEFAULT_SCREENSHOT_BUDGET, screenshot_modes


class _Images(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str | None]] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs))
        if tag == "a":
            self.links.append(dict(attrs).get("href") or "")


def _parse(html: str) -> _Images:
    parser = _Images()
    parser.feed(html)
    return parser


def _shot_sizes(series: list[RunSeries]) -> list[int]:
    return [s.screenshot.stat().st_size for r in series for s in r.samples if s.screenshot is not None]


def test_the_command_default_is_the_renderers() -> None:
    args = build_parser().parse_args(["report", "out"])
    assert args.screenshot_budget * 1024 * 1024 == DEFAULT_SCREENSHOT_BUDGET


def test_thumbnails_open_full_size_with_alt_text(series: list[RunSeries], tmp_path: Path) -> None:
    html = render_report(build_report(series), out_path=tmp_path / "r.html")
    found = _parse(html)
    assert len(found.images) == len(_shot_sizes(series)) == 8
    assert all((img.get("src") or "").startswith("data:image/png;base64,") for img in found.images)
    alts = [img.get("alt") or "" for img in found.images]
    assert all(alt.startswith("Screenshot of sample ") and "as rendered in Chromium" in alt for alt in alts)
    assert any(" of disclosure (" in alt for alt in alts) and any("(fail)" in alt for alt in alts)
    assert html.count('<details class="shot">') == 8, "each thumbnail is the summary of a disclosure"
    assert "Notes on the input" not in html, "everything fitted: no note"


def test_a_budget_embeds_what_fits_and_links_the_rest(series: list[RunSeries], tmp_path: Path) -> None:
    sizes = _shot_sizes(series)
    budget = sizes[0] + sizes[1] + sizes[2] // 2  # room for two
    out = tmp_path / "sub" / "report.html"
    html = render_report(build_report(series), out_path=out, screenshot_budget=budget)
    found = _parse(html)
    sources = [img.get("src") or "" for img in found.images]
    embedded = [src for src in sources if src.startswith("data:")]
    linked = [src for src in sources if not src.startswith("data:")]
    assert len(embedded) == 2 and len(linked) == 6
    assert all((out.parent / src).resolve().is_file() for src in linked), linked[:2]
    assert all(src in found.links for src in linked), "a linked screenshot can open on its own"
    assert "6 of 8 screenshots did not fit the" in html and "--screenshot-budget" in html


def test_budget_zero_links_every_screenshot(series: list[RunSeries]) -> None:
    modes, note = screenshot_modes(build_report(series), "embed", 0)
    assert set(modes.values()) == {"link"} and len(modes) == 8
    assert note is not None and note.startswith("8 of 8 screenshots did not fit the 0 MiB budget")
    modes, note = screenshot_modes(build_report(series), "embed", None)
    assert set(modes.values()) == {"embed"} and note is None


def test_the_command_says_when_the_budget_was_reached(
    runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    assert main(["report", str(runs_dir / "model-a"), "--out", str(out), "--screenshot-budget", "0.02"]) == 0
    err = capsys.readouterr().err
    assert "screenshots did not fit the 0.02 MiB budget for embedded screenshots" in err
    for bad in ("-1", "nan", "lots"):
        with pytest.raises(SystemExit) as stop:
            main(["report", str(runs_dir / "model-a"), "--out", str(out), "--screenshot-budget", bad])
        assert stop.value.code == 2
