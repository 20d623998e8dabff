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


def write_parquet_with_bytes(path: Path, rows: Sequence[dict[str, Any]], raw: dict[tuple[int, str], bytes]) -> Path:
    """``rows`` as Parquet, where the string value of row ``i``, column ``c`` is replaced by the bytes
    ``raw[i, c]`` as they are, UTF-8 or not: what a writer that does not check its strings leaves."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(list(rows))
    for name in {column for _, column in raw}:
        values = [
            raw.get((i, name), None if row[name] is None else str(row[name]).encode()) for i, row in enumerate(rows)
        ]
        binary = pa.array(values, pa.binary())
        validity, offsets, data = binary.buffers()
        # Built from its buffers: pyarrow checks UTF-8 when it converts, not when it is handed bytes.
        array = pa.StringArray.from_buffers(len(binary), offsets, data, validity, binary.null_count)
        table = table.set_column(table.schema.get_field_index(name), name, array)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
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


# ------------------------------------------------------------------ a run killed half way


def _tree(pid: int) -> list[Any]:
    import psutil

    try:
        me = psutil.Process(pid)
        return [me, *me.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _session(pid: int) -> list[Any]:
    """Every process in the session ``pid`` leads (the pipeline process and all it started)."""
    import contextlib
    import os

    import psutil

    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if os.getsid(proc.pid) == pid:
                found.append(proc)
    return found


def kill_half_way(argv: Sequence[str], out: Path, env: dict[str, str]) -> list[str]:
    """Start ``a11y-eval corpus ...`` (``argv``), kill it with SIGKILL once a task has completed and
    another has scored its first batch of two but not its second, check that nothing it started
    goes on running, and return the tasks that had completed."""
    import contextlib
    import os
    import signal
    import subprocess
    import time

    import psutil

    from lm_eval_a11y.corpus.run import RUN_FOLDER

    completions = out / RUN_FOLDER / "datatrove" / "completions"
    progress = out / RUN_FOLDER / "progress"
    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    ours: list[Any] = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            done = {p.name for p in completions.glob("0*")} if completions.is_dir() else set()
            busy = [
                p
                for p in (progress.glob("0*") if progress.is_dir() else [])
                if p.name not in done and p.read_text() == "2"
            ]
            if done and busy:
                break
            ours = _tree(proc.pid)
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed half way"
        ours = _tree(proc.pid)
        leader = [p for p in ours if p.pid != proc.pid and os.getsid(p.pid) == p.pid]
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        # The pipeline process sees its command gone and ends itself with everything it started.
        everything = ours + [q for p in leader for q in _session(p.pid)]
        _, alive = psutil.wait_procs(everything, timeout=30)
        assert not alive, f"left running: {[(p.pid, p.name()) for p in alive]}"
    finally:
        for p in _tree(proc.pid) + ours:
            with contextlib.suppress(psutil.Error):
                p.kill()
    finished = sorted(p.name for p in completions.glob("0*"))
    assert 1 <= len(finished) < 4, finished
    return finished
