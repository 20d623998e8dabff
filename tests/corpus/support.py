"""Small corpora for the corpus tests: real pages that pass and fail, and rows that are not pages."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests" / "pages"
HANGS = (PAGES / "loop-in-script.html").read_text(encoding="utf-8")
# Static pages (no script, no animation, no data: URL) are not watched for late changes, so they
# take a fraction of a second each.
_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Newsletter {i}</title></head>
<body>
<main>
  <h1>Newsletter {i}</h1>
  <img src="envelope.png" width="40" height="40"{alt}>
  <form>
    {label}<input type="email" id="email" name="email" autocomplete="email">
    <button type="submit">Subscribe</button>
  </form>
</main>
</body>
</html>
"""


def clean(i: int) -> str:
    """A page that passes axe-core, different for each ``i``."""
    return _PAGE.format(i=i, alt=' alt="Envelope"', label='<label for="email">Email address</label>\n    ')


def failing(i: int) -> str:
    """A page with two WCAG failures (an image without alt text, an input without a label)."""
    return _PAGE.format(i=i, alt="", label="")


def scripted(i: int) -> str:
    """A passing page with a script: the evaluator watches it up to its late-change horizon (2 s),
    so a batch that holds one takes a while, always with the same outcome."""
    return clean(i).replace("</body>", f"<script>document.body.dataset.n = '{i}';</script>\n</body>")


# For the reward: a case's passing example, and pages that pass axe-core with nothing or little on them.
DISCLOSURE_PAGE = (ROOT / "test_cases" / "disclosure" / "examples" / "pass-native-details.html").read_text(
    encoding="utf-8"
)
# Passes axe-core: nothing on it can fail. The cheapest page a model could learn to write.
EMPTY = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page</title></head><body></body></html>'
# Passes axe-core too, with text, and is no disclosure widget (nor any component).
TEXT_PAGE = EMPTY.replace(
    "<body></body>", "<body><main><h1>Questions</h1><p>Shipping takes three to five days.</p></main></body>"
)


def fenced(html: str) -> str:
    """A model's answer with ``html`` in a fenced block between two lines of prose."""
    return f"Here is the page you asked for:\n\n```html\n{html}\n```\n\nIt uses semantic HTML throughout."


# Rows that are not pages, each with the status it must get.
BAD_ROWS: tuple[tuple[Any, str], ...] = (
    (None, "missing"),
    ("", "empty"),
    ("  \n\t ", "empty"),
    ("Just a sentence about a page, with no markup at all.", "not_html"),
    ('{"html": "<p>hello</p>", "lang": "en"}', "not_html"),
    ("Here is your page:\n```html\n<!doctype html><title>x</title>\n```\nEnjoy!", "not_html"),
    ("\x00\x01\x02<p>binary</p>", "not_html"),
)


def corpus_rows() -> list[dict[str, Any]]:
    """16 rows with an ``id``, a ``html`` and an ``n`` column: clean and failing pages, each row of
    :data:`BAD_ROWS`, and one scripted page, in row 9. With 4 tasks, task ``r`` reads rows ``r``,
    ``r+4``, ``r+8``, ``r+12``: every task has bad rows, and with batches of two the second batch
    of task 1 holds the scripted page, which keeps that task busy for about two seconds."""
    bad = dict(zip((2, 5, 6, 12, 13, 14, 15), (value for value, _ in BAD_ROWS), strict=True))
    rows = []
    for i in range(16):
        if i in bad:
            html = bad[i]
        elif i == 9:
            html = scripted(i)
        else:
            html = clean(i) if i % 2 else failing(i)
        rows.append({"id": f"row-{i:03d}", "html": html, "n": i})
    return rows


def write_parquet(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(list(rows)), path)
    return path


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def read_rows(folder: Path) -> list[dict[str, Any]]:
    """Every row written into ``folder`` (Parquet or JSON Lines), file by file in name order."""
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.parquet")):
        rows.extend(pq.read_table(path).to_pylist())
    for path in sorted(folder.glob("*.jsonl")):
        rows.extend(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return rows


def score_in_this_process(htmls: list[Any]) -> tuple[int, list[tuple[str, bool, float, tuple[str, ...]]]]:
    """For a process pool: this process's id and the scores of ``htmls`` (axe-core only)."""
    import os

    from lm_eval_a11y.corpus import score_pages

    scores = score_pages(htmls, generic=False)
    return os.getpid(), [(s.status, s.a11y_pass, s.score, s.axe_rules) for s in scores]
