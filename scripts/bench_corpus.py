"""Benchmark corpus scoring: the Python API, the CLI on datatrove's local executor, and the CLI on
a local Ray, on one corpus in one run.

    .venv/bin/python scripts/bench_corpus.py                          # 2,000 pages, all three paths
    .venv/bin/python scripts/bench_corpus.py --pages 400 --paths api,local
    .venv/bin/python scripts/bench_corpus.py --checks axe --json out.json

The corpus is built, not downloaded: every example page of the bundled cases as it is (the size
models write), each case example again inside a site's shell (header, navigation, an article of
2-60 KB, a footer), and long generated articles of 8-140 KB, each with defects drawn from a seeded
random generator (an image without alt, an unlabelled field, low-contrast text, a clickable div, a
positive tabindex, a missing lang). It is written once to ``--work`` (default ``.bench-corpus/``,
out of git) as a Parquet file with the columns ``id``, ``origin`` and ``html``.

Each path runs in a process of its own, started cold (browser start included), one after another:

- ``api``: ``score_pages`` on all pages in one call, one pool (the default concurrency);
- ``local``: ``a11y-eval corpus score`` with the local executor, ``--workers`` tasks at once;
- ``ray``: the same command with ``--executor ray`` on a local Ray it starts, ``--workers`` wide.

With ``--early``, it measures instead what stopping at the first failure saves: a corpus where
most pages fail (``--failing``, default 95 %, as automated checks find WCAG failures on about 95 %
of home pages) is filtered twice with ``a11y-eval corpus filter --keep passing``, each in a process
of its own started cold: once with ``--full-scores`` (every page evaluated fully, as ``corpus
score`` does) and once as the filter runs by default (each page stopped at its first decided
failure). It prints both rates, their ratio, and whether the kept rows are identical (every
column of every kept row). The failing pages carry the failures the WebAIM Million finds most,
each drawn with about its frequency there: low-contrast text, images without alt text, form
fields without labels, empty links, empty buttons, a missing ``lang``.

    .venv/bin/python scripts/bench_corpus.py --early --pages 400

Reported for each path: pages per second (wall clock, process start to exit), the overhead against the
bare API (its time over the API's, minus one), the peak memory of one worker (a Python process
that runs a pool, with its Playwright driver and its Chromium; resident anonymous and shared
pages, read from /proc every 0.5 s, as the evaluator's memory watchdog reads them), the peak of
the whole tree, the CPU time of the whole tree per page (user and system, sampled with the memory:
a process that ends loses what it used after its last sample), and the statuses. The verdicts of every row must agree
between the paths; a row whose verdict differs is listed.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluator import _generated

from lm_eval_a11y.cases import CaseError, load_case, load_examples
from lm_eval_a11y.engine.memory import process_bytes
from lm_eval_a11y.resources import cases_dir

REPO = Path(__file__).resolve().parent.parent
PATHS = ("api", "local", "ray")

# ------------------------------------------------------------------ the corpus

_WORDS: tuple[str, ...] = (
    *("harbour", "ledger", "orchard", "signal", "quarry", "lantern", "meadow", "beacon", "cobalt", "timber"),
    *("river", "archive", "compass", "granite", "velvet", "ember", "thistle", "saddle", "canvas", "prairie"),
)


def _paragraph(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return f"<p>{text[0].upper()}{text[1:]}.</p>"


def _defects(rng: random.Random) -> tuple[str, str, str]:
    """Markup with some common failures: (style rules, lang attribute, markup for the body)."""
    style, lang, parts = "", ' lang="en"', []
    if rng.random() < 0.3:
        parts.append('<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="120" height="60">')
    if rng.random() < 0.25:
        parts.append('<form><input type="email" placeholder="Email"><button>Subscribe</button></form>')
    if rng.random() < 0.2:
        style += ".faint{color:#aaa;background:#fff}"
        parts.append('<p class="faint">Prices exclude delivery.</p>')
    if rng.random() < 0.15:
        parts.append('<div class="card" onclick="this.classList.toggle(\'open\')">Show details</div>')
    if rng.random() < 0.1:
        parts.append('<a href="#top" tabindex="3">Back to top</a>')
    if rng.random() < 0.1:
        lang = ""
    return style, lang, "".join(parts)


def _site(rng: random.Random, name: str, body: str, head_extra: str) -> str:
    """A case example's body inside a site's shell, with an article of 2-60 KB around it."""
    style, lang, defects = _defects(rng)
    links = "".join(f'<li><a href="#n{i}">{rng.choice(_WORDS).title()}</a></li>' for i in range(rng.randint(3, 9)))
    article = "".join(_paragraph(rng, rng.randint(20, 90)) for _ in range(rng.randint(3, 80)))
    return (
        f'<!doctype html><html{lang}><head><meta charset="utf-8"><title>{name}</title>'
        f"<style>body{{font-family:sans-serif;margin:0 auto;max-width:60rem}}{style}</style>{head_extra}</head>"
        f'<body><header><a href="#main">Skip to content</a><nav aria-label="Site"><ul>{links}</ul></nav></header>'
        f'<main id="main"><h1>{name}</h1>{body}<article><h2>More to read</h2>{article}</article>{defects}</main>'
        "<footer><p>Contact and opening hours.</p></footer></body></html>"
    )


def _article(rng: random.Random, index: int) -> str:
    html = _generated(index, rng.choice((10, 20, 40, 80, 120, 200)))
    style, lang, defects = _defects(rng)
    if not lang:
        html = html.replace('<html lang="en">', "<html>", 1)
    return html.replace("</style>", style + "</style>", 1).replace("</main>", defects + "</main>", 1)


_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.S | re.I)
_HEAD = re.compile(r"<head[^>]*>(.*)</head>", re.S | re.I)
_TITLE = re.compile(r"<title[^>]*>.*?</title>", re.S | re.I)


def build_corpus(pages: int, seed: int = 7) -> list[dict[str, str]]:
    """``pages`` rows: a fifth of them case examples (every example at 2,000 pages), the rest
    site variants and long articles, in a seeded mix."""
    rng = random.Random(seed)
    examples: list[tuple[str, str]] = []
    for folder in sorted(p for p in cases_dir().iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        try:
            case = load_case(folder)
            examples += [(f"{case.id}/{ex.name}", ex.html) for ex in load_examples(case)]
        except CaseError:
            continue
    taken = rng.sample(examples, min(len(examples), pages // 5))
    rows = [{"id": f"example/{name}", "origin": "example", "html": html} for name, html in taken]
    index = 0
    while len(rows) < pages:
        if rng.random() < 0.65:
            name, html = rng.choice(examples)
            body, head = _BODY.search(html), _HEAD.search(html)
            head_extra = _TITLE.sub("", head.group(1)) if head else ""
            page = _site(rng, name.split("/")[0].replace("-", " ").title(), body.group(1) if body else html, head_extra)
            rows.append({"id": f"site/{index:05d}-{name}", "origin": "site", "html": page})
        else:
            rows.append({"id": f"article/{index:05d}", "origin": "article", "html": _article(rng, index)})
        index += 1
    return rows


# The WebAIM Million's most common failures on home pages (2024), with about their frequency there.
_WEB_FAILURES: tuple[tuple[str, float], ...] = (
    ("contrast", 0.81),
    ("alt", 0.55),
    ("label", 0.49),
    ("empty-link", 0.45),
    ("empty-button", 0.28),
    ("lang", 0.17),
)
_FAILURE_MARKUP = {
    "contrast": '<p style="color:#b0b0b0;background:#ffffff">Offer ends soon, terms apply.</p>',
    "alt": '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="90" height="40">',
    "label": '<form><input type="text" name="q"><button type="submit">Search</button></form>',
    "empty-link": '<a href="#share"><svg width="16" height="16" aria-hidden="true"></svg></a>',
    "empty-button": '<button type="button"><svg width="16" height="16" aria-hidden="true"></svg></button>',
}
_HTML_LANG = re.compile(r"(<html\b[^>]*?)\s+lang=(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.I)
_BODY_END = re.compile(r"</body\s*>", re.I)


def _with_failures(rng: random.Random, html: str) -> str:
    """``html`` with failures drawn as the WebAIM Million finds them (at least one)."""
    drawn = [name for name, share in _WEB_FAILURES if rng.random() < share]
    if not drawn:
        drawn = [rng.choices([n for n, _ in _WEB_FAILURES], weights=[w for _, w in _WEB_FAILURES])[0]]
    if "lang" in drawn:
        html = _HTML_LANG.sub(r"\1", html, count=1)
    markup = "".join(_FAILURE_MARKUP[name] for name in drawn if name != "lang")
    ends = list(_BODY_END.finditer(html))
    if not markup:
        return html
    if not ends:
        return html + markup
    at = ends[-1].start()
    return html[:at] + markup + html[at:]


def build_failing_corpus(pages: int, failing: float = 0.95, seed: int = 7) -> list[dict[str, Any]]:
    """The corpus of :func:`build_corpus` with WebAIM-like failures added to a share ``failing``
    of its pages (chosen by a seeded generator; column ``seeded``)."""
    rng = random.Random(seed + 1)
    rows: list[dict[str, Any]] = []
    for row in build_corpus(pages, seed):
        seeded = rng.random() < failing
        html = _with_failures(rng, row["html"]) if seeded else row["html"]
        rows.append({**row, "html": html, "seeded": seeded})
    return rows


def write_corpus(rows: list[dict[str, Any]], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


# ------------------------------------------------------------------ memory


@dataclass
class Sampler:
    """Samples the memory of a process tree every ``interval_s``, in a thread: the peak of the
    whole tree, and of each worker (a Python process that runs Chromium under it); and the CPU
    time of each of its processes."""

    root: int
    interval_s: float = 0.5
    peak_total: int = 0
    peak_worker: int = 0
    # Processes that ran a pool at some point (Ray may start a new worker process for a task).
    workers_seen: set[int] = field(default_factory=set)
    # The CPU time (user and system) each process of the tree had used when last seen, by pid and
    # start time: a process that ends loses what it used after its last sample (at most 0.5 s).
    cpu: dict[tuple[int, float], float] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(psutil.Error):
                self._sample()
            self._stop.wait(self.interval_s)

    def _sample(self) -> None:
        try:
            root = psutil.Process(self.root)
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            return
        held: dict[int, int] = {}
        parent: dict[int, int] = {}
        python: set[int] = set()
        chromium: list[int] = []
        for proc in tree:
            try:
                held[proc.pid] = process_bytes(proc.pid) or 0
                parent[proc.pid] = proc.ppid()
                used = proc.cpu_times()
                self.cpu[(proc.pid, proc.create_time())] = used.user + used.system
                name = proc.name().lower()
                if "python" in name or name.startswith(("ray::", "raylet")):
                    python.add(proc.pid)
                elif "chrom" in name and not any(a.startswith("--type=") for a in proc.cmdline()):
                    chromium.append(proc.pid)
            except psutil.Error:
                continue
        self.peak_total = max(self.peak_total, sum(held.values()))
        children: dict[int, list[int]] = collections.defaultdict(list)
        for pid, ppid in parent.items():
            children[ppid].append(pid)
        for browser in chromium:
            worker = parent.get(browser)
            while worker is not None and worker not in python:
                worker = parent.get(worker)
            if worker is None:
                continue
            self.workers_seen.add(worker)
            stack, total = [worker], 0
            while stack:
                pid = stack.pop()
                total += held.get(pid, 0)
                stack += children.get(pid, [])
            self.peak_worker = max(self.peak_worker, total)


# ------------------------------------------------------------------ the paths

_API = """
import json, sys, time
import pyarrow.parquet as pq
from lm_eval_a11y.corpus import score_pages, shared_evaluator
from lm_eval_a11y.engine.evaluator import EvaluatorSettings
table = pq.read_table(sys.argv[1])
ids, htmls = table.column("id").to_pylist(), table.column("html").to_pylist()
generic = sys.argv[2] == "generic"
done = [0]
def progress(n, total):
    if n - done[0] >= 100 or n == total:
        done[0] = n
        print(f"  api {n}/{total}", file=sys.stderr, flush=True)
settings = EvaluatorSettings(timeout_s=float(sys.argv[4])) if len(sys.argv) > 4 else None
scores = score_pages(htmls, generic=generic, evaluator=shared_evaluator(settings), progress=progress)
with open(sys.argv[3], "w") as out:
    json.dump({i: [s.status, s.a11y_pass] for i, s in zip(ids, scores)}, out)
"""


@dataclass(frozen=True)
class PathResult:
    path: str
    seconds: float
    pages_per_s: float
    peak_worker_bytes: int
    peak_total_bytes: int
    workers: int
    statuses: dict[str, int]
    verdicts: dict[str, tuple[str, bool]]
    # CPU seconds (user and system) of every process of the path, browsers and renderers
    # included, as last sampled (Sampler.cpu).
    cpu_s: float = 0.0


def _run(path: str, corpus: Path, work: Path, checks: str, workers: int, timeout: float | None = None) -> PathResult:
    """One path over ``corpus``; ``timeout``: the budget per page in seconds (default: the path's)."""
    out = work / f"out-{path}"
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(Path(f"{out}-dropped"), ignore_errors=True)
    python = sys.executable
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if path == "api":
        command = [python, "-c", _API, str(corpus), checks, str(out) + ".json"]
        command += [str(timeout)] if timeout is not None else []
    else:
        command = [python, "-m", "lm_eval_a11y.cli", "corpus", "score", str(corpus), str(out)]
        command += ["--tasks", str(2 * workers), "--workers", str(workers), "--executor", path]
        if checks == "generic":
            command.append("--generic")
        command += ["--timeout", str(timeout)] if timeout is not None else []
    seconds, sampler = _launch(path, command, env)
    verdicts = _verdicts(path, out)
    statuses = collections.Counter(status for status, _ in verdicts.values())
    return PathResult(
        path,
        round(seconds, 1),
        round(len(verdicts) / seconds, 2),
        sampler.peak_worker,
        sampler.peak_total,
        len(sampler.workers_seen),
        dict(statuses),
        verdicts,
        round(sum(sampler.cpu.values()), 1),
    )


def _launch(name: str, command: list[str], env: dict[str, str]) -> tuple[float, Sampler]:
    """Run ``command`` to its end, sampling its processes; its wall-clock seconds and the sampler."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=REPO)
    sampler = Sampler(process.pid)
    sampler.start()
    code = process.wait()
    seconds = time.perf_counter() - started
    sampler.stop()
    if code != 0:
        raise SystemExit(f"{name}: {' '.join(command[:3])} ... exited {code}")
    return seconds, sampler


def _filter(
    name: str, corpus: Path, work: Path, checks: str, workers: int, *, full: bool, timeout: float | None = None
) -> dict[str, Any]:
    """``a11y-eval corpus filter --keep passing`` on ``corpus`` (``full``: with --full-scores):
    its time, CPU, and the rows it kept and dropped by id."""
    out = work / f"out-{name}"
    dropped = work / f"out-{name}-dropped"
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(dropped, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-m", "lm_eval_a11y.cli", "corpus", "filter", str(corpus), str(out)]
    command += ["--keep", "passing", "--tasks", str(2 * workers), "--workers", str(workers)]
    command += ["--generic"] if checks == "generic" else []
    command += ["--full-scores"] if full else []
    command += ["--timeout", str(timeout)] if timeout is not None else []
    seconds, sampler = _launch(name, command, env)
    kept, gone = _rows(out), _rows(dropped)
    pages = len(kept) + len(gone)
    return {
        "seconds": round(seconds, 1),
        "pages_per_s": round(pages / seconds, 2),
        "cpu_s_per_page": round(sum(sampler.cpu.values()) / max(pages, 1), 3),
        "kept": kept,
        "dropped": gone,
        "partial": sum(bool(row.get("a11y_partial")) for row in gone.values()),
        "statuses": dict(collections.Counter(row["a11y_status"] for row in [*kept.values(), *gone.values()])),
    }


def _rows(folder: Path) -> dict[str, dict[str, Any]]:
    """Every row written into ``folder``, every column, by id."""
    import pyarrow.parquet as pq

    rows: dict[str, dict[str, Any]] = {}
    for file in sorted(folder.glob("*.parquet")):
        for row in pq.read_table(file).to_pylist():
            if row["id"] in rows:
                raise SystemExit(f"{folder}: row {row['id']} written twice")
            rows[row["id"]] = row
    return rows


def compare_early(
    pages: int, failing: float, checks: str, workers: int, work: Path, timeout: float | None = None
) -> dict[str, Any]:
    """Filter a mostly failing corpus fully and with the early stop; the figures of both, their
    ratio (wall clock, and CPU per page) and whether the kept rows are identical. ``timeout``: the
    budget per page (None: the command's), more on a loaded machine, where a page that times out
    in one run and not in the other would be kept by one only."""
    corpus = work / f"corpus-failing-{pages}-{round(failing * 100)}.parquet"
    if not corpus.exists():
        write_corpus(build_failing_corpus(pages, failing), corpus)
    seeded = sum(pq_column(corpus, "seeded"))
    print(f"corpus: {pages} pages, {seeded} with WebAIM-like failures added; checks: {checks}; {os.cpu_count()} cores")
    runs: dict[str, dict[str, Any]] = {}
    for name, full in (("full", True), ("early", False)):
        print(f"filter --keep passing{' --full-scores' if full else ''} ...", flush=True)
        r = runs[name] = _filter(name, corpus, work, checks, workers, full=full, timeout=timeout)
        print(
            f"{name:<6} {r['pages_per_s']:5.2f} pages/s  {r['seconds']:7.1f} s"
            f"  CPU {r['cpu_s_per_page']:.2f} s per page"
            f"  kept {len(r['kept'])}, dropped {len(r['dropped'])} ({r['partial']} partial)  {r['statuses']}",
            flush=True,
        )
    full, early = runs["full"], runs["early"]
    ratio = round(full["seconds"] / early["seconds"], 2)
    cpu_ratio = round(full["cpu_s_per_page"] / max(early["cpu_s_per_page"], 1e-9), 2)
    identical = full["kept"] == early["kept"]
    differing = sorted(
        key for key in set(full["kept"]) | set(early["kept"]) if full["kept"].get(key) != early["kept"].get(key)
    )
    print(f"early stop against full scoring: {ratio:.2f}x as fast ({cpu_ratio:.2f}x less CPU per page)")
    print(f"kept rows identical: {'yes' if identical else 'no'} ({len(full['kept'])} kept by the full run)")
    for key in differing[:20]:
        print(f"  differs: {key}")
    summary = {name: {k: v for k, v in r.items() if k not in ("kept", "dropped")} for name, r in runs.items()}
    return {
        "pages": pages,
        "failing": failing,
        "checks": checks,
        "workers": workers,
        **summary,
        "kept": len(full["kept"]),
        "ratio": ratio,
        "cpu_ratio": cpu_ratio,
        "kept_identical": identical,
        "differing": differing,
    }


def pq_column(path: Path, column: str) -> list[Any]:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=[column]).column(column).to_pylist()


def _verdicts(path: str, out: Path) -> dict[str, tuple[str, bool]]:
    if path == "api":
        raw = json.loads(Path(str(out) + ".json").read_text())
        return {key: (value[0], bool(value[1])) for key, value in raw.items()}
    import pyarrow.parquet as pq

    verdicts: dict[str, tuple[str, bool]] = {}
    for file in sorted(out.glob("*.parquet")):
        table = pq.read_table(file, columns=["id", "a11y_status", "a11y_pass"])
        for key, status, passed in zip(*(table.column(c).to_pylist() for c in table.column_names), strict=True):
            if key in verdicts:
                raise SystemExit(f"{path}: row {key} written twice")
            verdicts[key] = (status, bool(passed))
    return verdicts


def _mib(value: int) -> str:
    return f"{value / 2**20:,.0f} MiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=2000, help="pages in the corpus (default 2000)")
    parser.add_argument("--paths", default=",".join(PATHS), help="which paths, in order (default api,local,ray)")
    parser.add_argument("--checks", choices=("generic", "axe"), default="generic", help="generic checks or axe only")
    parser.add_argument("--workers", type=int, default=2, help="tasks at once for local and Ray (default 2)")
    parser.add_argument("--work", type=Path, default=REPO / ".bench-corpus", help="corpus and outputs")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument(
        "--early", action="store_true", help="filter a mostly failing corpus fully and with the early stop; compare"
    )
    parser.add_argument("--failing", type=float, default=0.95, help="--early: share of pages given failures")
    parser.add_argument(
        "--timeout", type=float, help="budget per page in seconds, on every path (default: the path's own)"
    )
    args = parser.parse_args(argv)
    if args.early:
        figures = compare_early(args.pages, args.failing, args.checks, args.workers, args.work, args.timeout)
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2))
        return 0 if figures["kept_identical"] else 1
    paths = [p for p in args.paths.split(",") if p]
    if unknown := sorted(set(paths) - set(PATHS)):
        parser.error(f"unknown path(s) {unknown}; choose from {', '.join(PATHS)}")

    corpus = args.work / f"corpus-{args.pages}.parquet"
    if not corpus.exists():
        rows = build_corpus(args.pages)
        write_corpus(rows, corpus)
    import pyarrow.parquet as pq

    sizes = sorted(len(h.encode()) for h in pq.read_table(corpus, columns=["html"]).column("html").to_pylist())
    origins = collections.Counter(pq.read_table(corpus, columns=["origin"]).column("origin").to_pylist())
    print(
        f"corpus: {len(sizes)} pages ({', '.join(f'{n} {o}' for o, n in sorted(origins.items()))}),"
        f" {sizes[0] / 1024:.0f}-{sizes[-1] / 1024:.0f} KB, median {sizes[len(sizes) // 2] / 1024:.1f} KB,"
        f" {sum(sizes) / 2**20:.1f} MiB in all; checks: {args.checks}; {os.cpu_count()} cores"
    )
    results: list[PathResult] = []
    for path in paths:
        print(f"{path} ...", flush=True)
        results.append(_run(path, corpus, args.work, args.checks, args.workers, args.timeout))
        r = results[-1]
        print(
            f"{path:<6} {r.pages_per_s:5.2f} pages/s  {r.seconds:7.1f} s  worker peak {_mib(r.peak_worker_bytes)}"
            f" ({r.workers} process{'es' if r.workers != 1 else ''} ran a pool), all {_mib(r.peak_total_bytes)}"
            f"  CPU {r.cpu_s / max(len(r.verdicts), 1):.2f} s per page  {r.statuses}",
            flush=True,
        )
    base = next((r for r in results if r.path == "api"), None)
    figures: dict[str, Any] = {"pages": len(sizes), "checks": args.checks, "workers": args.workers, "paths": {}}
    for r in results:
        overhead = None if base is None else round(r.seconds / base.seconds - 1, 3)
        figures["paths"][r.path] = {
            "seconds": r.seconds,
            "pages_per_s": r.pages_per_s,
            "overhead_vs_api": overhead,
            "peak_worker_mib": round(r.peak_worker_bytes / 2**20),
            "peak_total_mib": round(r.peak_total_bytes / 2**20),
            "workers": r.workers,
            "cpu_s": r.cpu_s,
            "cpu_s_per_page": round(r.cpu_s / max(len(r.verdicts), 1), 3),
            "statuses": r.statuses,
        }
        if overhead is not None and r is not base:
            print(f"overhead of {r.path} against the API: {overhead:+.1%}")
    differing = []
    if results:
        first = results[0]
        for r in results[1:]:
            keys = set(first.verdicts) | set(r.verdicts)
            differing += [
                f"{k}: {first.path} {first.verdicts.get(k)} {r.path} {r.verdicts.get(k)}"
                for k in sorted(keys)
                if first.verdicts.get(k) != r.verdicts.get(k)
            ]
    figures["differing"] = differing
    print(f"rows whose verdict differs between paths: {len(differing)}")
    for line in differing[:20]:
        print(f"  {line}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
