"""A reference suite crossed with two prompt dimensions runs four variants and shows them side by side.

A copy of the breadcrumb case gets three more passing pages, each declaring the variant it
answers in its a11y-assertions block: a dark page, a React page as models write one (React,
ReactDOM and Babel standalone from CDNs, answered by the local mirror; a JSX component renders
the markup) and a react+dark page whose links keep their light-theme blue on the
dark background, a regression the run must pin on that variant alone. ``suite run`` with
``framework: [vanilla, react]`` and ``style: [default, dark]`` then evaluates each variant's own
pages (real Chromium, real axe-core), and the report, parsed here, holds one column per variant
with that variant's pass rate.
"""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from report.test_report_a11y import REPORT_CASE

from cli.support import usage_error
from lm_eval_a11y.cli import EXIT_FAIL, main
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.resources import cases_dir
from lm_eval_a11y.variants import FRAMEWORK_TEXT, STYLE_TEXT

BASE = "pass-ordered-list-current-link"
DARK_CSS = (
    "<style>body { background: #161b22; color: #e6edf3; } a, header a { color: #8ab4f8; }"
    " .breadcrumb li + li::before { border-color: #c9d1d9; }</style>\n</head>"
)
# The light theme's link blue (#0b57d0) left on the dark background: about 2.4:1, a WCAG failure.
FAINT_DARK_CSS = "<style>body { background: #161b22; color: #e6edf3; }</style>\n</head>"


def _declare(html: str, framework: str, style: str) -> str:
    return html.replace('"verdict": "pass"}', f'"verdict": "pass", "framework": "{framework}", "style": "{style}"}}')


def _as_component(html: str) -> str:
    """The body's markup rendered into ``#root`` by a React component written in JSX, with React
    and Babel standalone loaded from CDNs (docs/cdn-mirror.md)."""
    head, rest = html.split("<body>", 1)
    body = rest.split("</body>", 1)[0]
    script = (
        '<div id="root"></div>\n'
        '<script src="https://unpkg.com/react@18/umd/react.production.min.js" crossorigin></script>\n'
        '<script src="https://unpkg.com/react-dom@18/umd/react-dom.production.min.js" crossorigin></script>\n'
        '<script src="https://unpkg.com/@babel/standalone/babel.min.js"></script>\n'
        '<script type="text/babel">\n'
        f"const markup = {json.dumps(body)};\n"
        "function App() { return <div dangerouslySetInnerHTML={{ __html: markup }} />; }\n"
        'ReactDOM.createRoot(document.getElementById("root")).render(<App />);\n</script>\n'
    )
    return f"{head}<body>\n{script}</body>\n</html>\n"


@pytest.fixture
def variant_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cases"
    shutil.copytree(cases_dir() / "breadcrumb", root / "breadcrumb")
    examples = root / "breadcrumb" / "examples"
    base = (examples / f"{BASE}.html").read_text(encoding="utf-8")
    dark = base.replace("</head>", DARK_CSS, 1)
    pages = {
        "pass-dark": _declare(dark, "vanilla", "dark"),
        "pass-react": _declare(_as_component(base), "react", "default"),
        "pass-react-dark": _declare(_as_component(base.replace("</head>", FAINT_DARK_CSS, 1)), "react", "dark"),
    }
    for name, html in pages.items():
        assert '"framework"' in html, name
        (examples / f"{name}.html").write_text(html, encoding="utf-8")
    monkeypatch.setenv("A11Y_CASES_DIR", str(root))
    return root


class _Tables(HTMLParser):
    """Every table of a page as its caption and rows of cell texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self._caption: str | None = None
        self._rows: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._in_caption = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._caption, self._rows = "", []
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th") and self._cell is not None and self._rows:
            self._rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table" and self._rows is not None:
            self.tables[" ".join((self._caption or "").split())] = self._rows
            self._rows = None

    def handle_data(self, data: str) -> None:
        if self._in_caption and self._caption is not None:
            self._caption += data
        elif self._cell is not None:
            self._cell.append(data)


def _table(html: str, caption: str) -> list[list[str]]:
    parser = _Tables()
    parser.feed(html)
    return parser.tables[caption]


def test_two_dimensions_in_reference_mode_run_four_variants_side_by_side(
    variant_cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "variants.yaml"
    suite.write_text(
        "name: variants\n"
        "defaults: {mode: reference, framework: [vanilla, react], style: [default, dark]}\n"
        "cases: [{id: breadcrumb}]\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    # Only the react+dark page regresses: the suite fails on that variant and no other.
    argv = ["suite", "run", str(suite), "--out", str(out), "--timeout", "120", "--concurrency", "2"]
    assert main(argv) == EXIT_FAIL
    printed = capsys.readouterr().out
    result: dict[str, Any] = json.loads((out / "suite.json").read_text(encoding="utf-8"))
    got = {
        c["variant"]: (c["sample_id"], c["framework"], c["style"], c["passed"], [t["example"] for t in c["trials"]])
        for c in result["cases"]
    }
    vanilla_pages = sorted(p.stem for p in (variant_cases / "breadcrumb" / "examples").glob("pass-*.html"))
    vanilla_pages = [p for p in vanilla_pages if p not in ("pass-dark", "pass-react", "pass-react-dark")]
    assert got == {
        "reference": ("breadcrumb", "vanilla", "default", True, vanilla_pages),
        "reference@dark": ("breadcrumb@dark", "vanilla", "dark", True, ["pass-dark"]),
        "reference@react": ("breadcrumb@react", "react", "default", True, ["pass-react"]),
        "reference@react+dark": ("breadcrumb@react+dark", "react", "dark", False, ["pass-react-dark"]),
    }
    # The react cells ran React from the mirror: an unrendered #root would have failed them.
    (failed,) = [c for c in result["cases"] if not c["passed"]]
    assert any("color-contrast" in r for r in failed["trials"][0]["reasons"]), failed["trials"][0]["reasons"]
    assert "FAIL  breadcrumb" in printed and "[reference@react+dark]" in printed

    report = (out / "report.html").read_text(encoding="utf-8")
    header, *rows = _table(report, "Passing samples per case")
    columns = [h.split(" · ")[-1] for h in header[1:]]
    assert sorted(columns) == ["reference", "reference@dark", "reference@react", "reference@react+dark"]
    (row,) = rows
    cells = dict(zip(columns, row[1:], strict=True))
    n = len(vanilla_pages)
    assert cells == {
        "reference": f"100% ({n}/{n})",
        "reference@dark": "100% (1/1)",
        "reference@react": "100% (1/1)",
        "reference@react+dark": "0% (0/1)",
    }
    header, *rows = _table(report, "Pass rate per case and variant")
    assert header == ["Case", "reference", "reference@dark", "reference@react", "reference@react+dark"]
    assert rows == [["breadcrumb", f"100% ({n}/{n})", "100% (1/1)", "100% (1/1)", "0% (0/1)"]]
    # Each variant's samples carry the prompt it asks, and the case shows each one with its column.
    assert report.count("Prompt of case breadcrumb as ") == 4
    assert FRAMEWORK_TEXT["react"] in report and STYLE_TEXT["dark"] in report
    # The report with its variant table is itself accessible: axe, best practices included.
    # (Its own evaluator: the report's keyboard checks walk every link, longer than a sample's budget.)
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=180)) as ev:
        obs = ev.evaluate(REPORT_CASE, report, name="variant-report")
    assert obs.status == "ok", obs.error
    assert [f"{f.rule_id}: {[n.target for n in f.nodes[:3]]}" for f in obs.axe.violations] == []
    outcomes = {c.id: c.outcome for c in obs.checks}
    assert outcomes == {"tab-reaches-everything": "pass", "focus-visible": "pass"}, [c.message for c in obs.checks]


def test_a_variant_without_pages_is_left_out_with_a_note_and_one_with_none_is_an_error(
    variant_cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pages exist for react and dark, none for modern: the modern variants are not run and a
    note says so; a case asked only in variants without pages is a bad file (exit 2)."""
    suite = tmp_path / "modern.yaml"
    suite.write_text(
        "name: modern\ndefaults: {mode: reference, style: [default, modern]}\ncases: [{id: breadcrumb}]\n",
        encoding="utf-8",
    )
    assert main(["suite", "check", str(suite)]) == 0
    printed = capsys.readouterr().out
    assert "reference variant vanilla+modern not run: no passing example page for it (case(s) breadcrumb)" in printed
    suite.write_text(
        "name: modern\ndefaults: {mode: reference, style: modern}\ncases: [{id: breadcrumb}]\n", encoding="utf-8"
    )
    line = usage_error(["suite", "check", str(suite)], capsys)
    assert "cases[0]: case 'breadcrumb' runs in reference mode as vanilla+modern, but no passing example page" in line
    assert "its pages answer: react+dark, react+default, vanilla+dark, vanilla+default" in line


def test_the_shipped_react_and_dark_pages_run_as_their_variants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The suite of docs/suites.md over the shipped pages: modal-dialog's React pages (React,
    ReactDOM and Babel standalone from CDNs, answered by the local mirror; JSX compiled in the
    page) fill its react cells and its dark pages the dark ones, each passing as its vanilla twin
    does; breadcrumb, which has no React or dark page, is run as vanilla only, and the report says
    the other variants were not run for it rather than filling them with its vanilla pages."""
    root = tmp_path / "cases"
    keep = {
        "modal-dialog": {
            "pass-aria-dialog",
            "pass-dark-aria-dialog",
            "pass-react-aria-dialog",
            "pass-react-dark-aria-dialog",
        },
        "breadcrumb": {BASE},
    }
    for case_id, pages in keep.items():
        shutil.copytree(cases_dir() / case_id, root / case_id)
        for page in (root / case_id / "examples").glob("pass-*.html"):
            if page.stem not in pages:
                page.unlink()
    monkeypatch.setenv("A11Y_CASES_DIR", str(root))
    suite = tmp_path / "react-and-dark.yaml"
    suite.write_text(
        "name: react-and-dark\n"
        "defaults: {mode: reference, framework: [vanilla, react], style: [default, dark]}\n"
        "cases: [{id: modal-dialog}, {id: breadcrumb}]\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    # A React page loads and runs Babel standalone on every load (docs/cdn-mirror.md, Cost): a
    # budget that a machine busy with other jobs cannot exceed.
    argv = ["suite", "run", str(suite), "--out", str(out), "--timeout", "120", "--concurrency", "2"]
    assert main(argv) == 0, capsys.readouterr().out
    result: dict[str, Any] = json.loads((out / "suite.json").read_text(encoding="utf-8"))
    got = {c["sample_id"]: (c["passed"], [t["example"] for t in c["trials"]]) for c in result["cases"]}
    assert got == {
        "modal-dialog": (True, ["pass-aria-dialog"]),
        "modal-dialog@dark": (True, ["pass-dark-aria-dialog"]),
        "modal-dialog@react": (True, ["pass-react-aria-dialog"]),
        "modal-dialog@react+dark": (True, ["pass-react-dark-aria-dialog"]),
        "breadcrumb": (True, [BASE]),
    }
    # Each React trial passed every behaviour check on the component React drew: a page whose
    # libraries were not served would have rendered an empty #root and failed them.
    for c in result["cases"]:
        assert all(t["passed"] and t["status"] == "ok" for t in c["trials"]), c["trials"]
    report = (out / "report.html").read_text(encoding="utf-8")
    header, *rows = _table(report, "Pass rate per case and variant")
    assert header == ["Case", "reference", "reference@dark", "reference@react", "reference@react+dark"]
    assert sorted(rows) == [
        ["breadcrumb", "100% (1/1)", "not run", "not run", "not run"],
        ["modal-dialog", "100% (1/1)", "100% (1/1)", "100% (1/1)", "100% (1/1)"],
    ]
    assert "reference variant react+default not run: no passing example page for it (case(s) breadcrumb)" in report
