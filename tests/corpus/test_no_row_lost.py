"""No row lost, no output corrupted: every row of a corpus comes out exactly once, kept or dropped,
with a status and a reason, whatever its bytes; folders that would mix or lose rows are refused
before anything is written; an empty input is a clean run.

The bytes are what real corpora hold: a Parquet string column with bytes that are not UTF-8, a
JSON Lines line of raw bytes, an escaped lone surrogate, a line cut off. Each used to stop a task
(or the whole input) at the same row on every run. The runs are real: the console script, datatrove,
Chromium and axe-core for the rows that can be read.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli.support import SCRIPT, run_script, usage_error

from corpus.support import (
    ROOT,
    clean,
    corpus_rows,
    failing,
    kill_half_way,
    read_rows,
    write_parquet,
    write_parquet_with_bytes,
)
from lm_eval_a11y.cli import EXIT_OK, main
from lm_eval_a11y.corpus import STATUSES, PageScore
from lm_eval_a11y.corpus.decode import PROBLEM_KEY, clean_json_lines, decode_table, row_problem
from lm_eval_a11y.corpus.run import RUN_FOLDER

FILTER = ["--tasks", "4", "--batch-size", "2", "--concurrency", "2"]
# Row 0: its page with one byte of Latin-1 in it; row 4: its id; row 10: a surrogate encoded as
# UTF-8 bytes (ED B3 BF), which UTF-8 does not allow.
NOT_UTF8_PAGE = failing(0).encode("utf-8").replace(b"Newsletter 0</h1>", b"Newsletter caf\xe9</h1>")
RAW = {(0, "html"): NOT_UTF8_PAGE, (4, "id"): b"row-\xff04", (10, "html"): b"<p>\xed\xb3\xbf</p>"}
STATUS = {
    0: "not_utf8",
    2: "missing",
    4: "not_utf8",
    5: "empty",
    6: "empty",
    10: "not_utf8",
    12: "not_html",
    13: "not_html",
    14: "not_html",
    15: "not_html",
}


@pytest.fixture(scope="module")
def bad_bytes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus of the resume test (16 rows, a slow page in row 9), three rows with bytes that
    are not UTF-8, and an empty Parquet file beside it in the same folder."""
    folder = tmp_path_factory.mktemp("bad-bytes")
    write_parquet_with_bytes(folder / "pages.parquet", corpus_rows(), RAW)
    write_parquet(folder / "zero.parquet", [])
    return folder


@pytest.fixture(scope="module")
def uninterrupted(bad_bytes: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("uninterrupted") / "out"
    done = run_script(["corpus", "filter", str(bad_bytes), str(out), *FILTER, "--workers", "2"], timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "16 rows in, 5 kept (passing)" in done.stdout and "not_utf8 3" in done.stdout
    return out


@pytest.fixture(scope="module")
def bad_lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same 16 rows as JSON Lines: row 0 with a raw byte of Latin-1 in its page, row 4 with a
    lone surrogate in its id, row 10 cut off half way."""
    lines = [json.dumps(row).encode("utf-8") for row in corpus_rows()]
    lines[0] = lines[0].replace(b"Newsletter 0</h1>", b"Newsletter caf\xe9</h1>")
    lines[4] = lines[4].replace(b'"row-004"', b'"row-\\udcff04"')
    lines[10] = lines[10][:50]
    path = tmp_path_factory.mktemp("bad-lines") / "pages.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.fixture(scope="module")
def uninterrupted_lines(bad_lines: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("uninterrupted-lines") / "out"
    done = run_script(["corpus", "filter", str(bad_lines), str(out), *FILTER, "--workers", "2"], timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "16 rows in, 5 kept (passing)" in done.stdout
    assert "not_utf8 1" in done.stdout and "bad_text 1" in done.stdout and "not_json 1" in done.stdout
    return out


def _dropped(out: Path) -> Path:
    return out.with_name(out.name + "-dropped")


# ------------------------------------------------------------------ a row at a time, without a browser


def test_a_batch_with_a_value_that_is_not_utf8_is_read_row_by_row(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    rows = [{"id": f"r{i}", "html": f"<p>{i}</p>", "n": i} for i in range(3)]
    raw = {(1, "html"): b"<p>caf\xe9</p>", (2, "id"): b"r\xff2"}
    table = pq.read_table(write_parquet_with_bytes(tmp_path / "pages.parquet", rows, raw))
    with pytest.raises(UnicodeDecodeError):
        table.to_pylist()
    decoded = decode_table(table, "html")
    assert [(r["id"], r["html"], r["n"]) for r in decoded] == [
        ("r0", "<p>0</p>", 0),
        ("r1", None, 1),
        (None, "<p>2</p>", 2),
    ]
    assert PROBLEM_KEY not in decoded[0]
    first, second = (row_problem(decoded[i][PROBLEM_KEY]) for i in (1, 2))
    assert first is not None and second is not None
    assert first.status == "not_utf8"
    assert first.reason == "not UTF-8: column 'html': byte 0xe9 at byte offset 6 (invalid continuation byte)"
    assert (first.html_bytes, first.sha256) == (11, hashlib.sha256(b"<p>caf\xe9</p>").hexdigest())
    assert second.reason == "not UTF-8: column 'id': byte 0xff at byte offset 1 (invalid start byte)"
    assert (second.html_bytes, second.sha256) == (0, None), "the HTML itself was read"
    assert first.score().status == "not_utf8" and first.score().score == 0.0


def test_json_lines_are_read_line_by_line_into_a_clean_copy(tmp_path: Path) -> None:
    good = json.dumps({"html": "<p>ok</p>", "k": 1}).encode()
    lines = [
        b"\xef\xbb\xbf" + good,  # a byte-order mark before the first line
        b"",  # a blank line is no row
        b'{"html": "<p>caf\xe9</p>", "k": 2}',
        b'{"html": "<p>\\udcff</p>", "k": 3}',
        b'{"html": "<p>ok</p>", "title": "x\\ud800", "k": 4}',
        b'{"html": "<p>\\ud83d\\ude00</p>", "k": 5}',  # a surrogate pair: a real character
        b'{"html": "<p>cut',
        b"[1, 2]",
    ]
    source = tmp_path / "in.jsonl.gz"
    source.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    copies, count = clean_json_lines((str(source),), tmp_path / "clean", "html")
    assert count == 7
    rows = [json.loads(line) for line in Path(copies[0]).read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 7
    problems = [row_problem(row.pop(PROBLEM_KEY, None)) for row in rows]
    assert rows[0] == {"html": "<p>ok</p>", "k": 1} and problems[0] is None
    assert rows[1] == {"html": None, "k": 2}
    assert problems[1] is not None and problems[1].status == "not_utf8"
    assert problems[1].reason == (
        "not UTF-8: byte 0xe9 at byte offset 16 of line 2 of in.jsonl.gz; column 'html': byte 0xe9 at byte offset 6"
    )
    assert problems[1].html_bytes == 11
    assert rows[2] == {"html": None, "k": 3}
    assert problems[2] is not None and problems[2].status == "bad_text"
    assert (
        problems[2].reason
        == "bad text in line 3 of in.jsonl.gz: column 'html': a lone surrogate \\udcff at byte offset 3"
    )
    assert rows[3] == {"html": "<p>ok</p>", "title": None, "k": 4}
    assert problems[3] is not None and problems[3].status == "bad_text" and "column 'title'" in problems[3].reason
    assert rows[4] == {"html": "<p>\U0001f600</p>", "k": 5} and problems[4] is None
    assert rows[5] == {} and problems[5] is not None and problems[5].status == "not_json"
    assert problems[5].reason.startswith("not JSON: line 6 of in.jsonl.gz: Unterminated string")
    assert problems[6] is not None and problems[6].reason == "not a JSON object: line 7 of in.jsonl.gz holds an array"
    assert {p.status for p in problems if p is not None} <= set(STATUSES)
    # Made once: the clean copy of an interrupted run is the one a resumed run reads.
    again, _ = clean_json_lines((str(source),), tmp_path / "clean", "html")
    assert again == copies


def test_a_json_array_file_gives_a_row_per_item(tmp_path: Path) -> None:
    source = tmp_path / "pages.json"
    source.write_text('\n  [{"html": "<p>a</p>"},\n {"html": "<p>\\udc80</p>"}]\n', encoding="utf-8")
    copies, count = clean_json_lines((str(source),), tmp_path / "clean", "html")
    rows = [json.loads(line) for line in Path(copies[0]).read_text(encoding="utf-8").splitlines()]
    assert count == 2 and rows[0] == {"html": "<p>a</p>"}
    assert rows[1]["html"] is None and row_problem(rows[1][PROBLEM_KEY]).status == "bad_text"  # type: ignore[union-attr]


# ------------------------------------------------------------------ whole runs


def test_every_row_comes_out_once_whatever_its_bytes(uninterrupted: Path) -> None:
    kept, dropped = read_rows(uninterrupted), read_rows(_dropped(uninterrupted))
    assert sorted(r["n"] for r in kept + dropped) == list(range(16)), "every row exactly once"
    expected = corpus_rows()
    for row in kept + dropped:
        assert set(row) == {"id", "html", "n", *PageScore.record_keys()}, "no column of our own leaks out"
        assert row["a11y_status"] == STATUS.get(row["n"], "ok"), row
        if (row["n"], "html") in RAW:
            assert row["html"] is None
        else:
            assert row["html"] == expected[row["n"]]["html"]
    by_n = {row["n"]: row for row in kept + dropped}
    assert by_n[0]["a11y_error"].startswith("not UTF-8: column 'html': byte 0xe9 at byte offset ")
    assert by_n[0]["a11y_html_bytes"] == len(NOT_UTF8_PAGE)
    assert by_n[0]["a11y_sha256"] == hashlib.sha256(NOT_UTF8_PAGE).hexdigest()
    assert by_n[4]["id"] is None and by_n[4]["html"] == expected[4]["html"]
    assert by_n[4]["a11y_error"] == "not UTF-8: column 'id': byte 0xff at byte offset 4 (invalid start byte)"
    assert by_n[10]["a11y_error"].startswith("not UTF-8: column 'html': byte 0xed at byte offset 3")
    assert {r["n"] for r in kept} == {1, 3, 7, 9, 11}
    # The output is Parquet that pyarrow reads back whole.
    assert sorted(p.name for p in _dropped(uninterrupted).glob("*.parquet")) == [f"{r:05d}.parquet" for r in range(4)]


@pytest.mark.parametrize("kind", ["parquet", "jsonl"])
def test_a_run_over_bad_bytes_killed_half_way_resumes_to_exactly_the_rows_of_an_uninterrupted_run(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    source: Path = request.getfixturevalue("bad_bytes" if kind == "parquet" else "bad_lines")
    uninterrupted: Path = request.getfixturevalue("uninterrupted" if kind == "parquet" else "uninterrupted_lines")
    out = tmp_path / "out"
    argv = [str(SCRIPT), "corpus", "filter", str(source), str(out), *FILTER]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    finished = kill_half_way(argv, out, env)
    again = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"{len(finished)} of 4 tasks had completed" in again.stdout
    assert read_rows(out) == read_rows(uninterrupted), "the kept rows, file by file, row by row"
    assert read_rows(_dropped(out)) == read_rows(_dropped(uninterrupted))
    assert "16 rows in, 5 kept (passing)" in again.stdout


def test_json_lines_with_raw_bytes_lone_surrogates_and_cut_lines_lose_no_row(tmp_path: Path) -> None:
    lines = [
        json.dumps({"html": clean(1), "k": 1}).encode(),
        json.dumps({"html": failing(2), "k": 2}).encode().replace(b"Newsletter 2", b"Newsletter \xe92"),
        json.dumps({"html": clean(3), "k": 3}).replace("Newsletter 3", "Newsletter \\udcff3").encode(),
        b'{"html": ' + json.dumps(clean(4)).encode() + b', "title": "\\udcff", "k": 4}',
        json.dumps({"html": clean(5), "k": 5})[:40].encode(),
        json.dumps({"html": failing(6), "k": 6}).encode(),
    ]
    source = tmp_path / "pages.jsonl"
    source.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out"
    done = run_script(["corpus", "score", str(source), str(out), "--tasks", "1", "--concurrency", "2"], timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = read_rows(out)
    assert [(r.get("k"), r["a11y_status"]) for r in rows] == [
        (1, "ok"),
        (2, "not_utf8"),
        (3, "bad_text"),
        (4, "bad_text"),
        (None, "not_json"),
        (6, "ok"),
    ]
    assert rows[3]["html"] == clean(4) and rows[3]["title"] is None
    assert "byte offset" in rows[1]["a11y_error"] and "byte offset" in rows[2]["a11y_error"]
    assert all(r["a11y_error"] for r in rows if r["a11y_status"] != "ok")
    assert "6 rows in, 6 scored" in done.stdout
    assert "ok 2" in done.stdout and "not_utf8 1" in done.stdout and "bad_text 2" in done.stdout
    assert "not_json 1" in done.stdout


# ------------------------------------------------------------------ refused before anything is written


def test_folders_that_overlap_are_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_parquet(tmp_path / "in" / "pages.parquet", [{"html": clean(1)}])
    out = tmp_path / "out"

    def refused(*argv: str) -> str:
        line = usage_error(["corpus", *argv], capsys)
        assert not out.exists() and not (tmp_path / "in" / "out").exists(), "nothing written"
        return line.removeprefix("a11y-eval corpus: error: ")

    assert refused("filter", str(source), str(out), "--dropped", str(out)) == (
        f"--dropped {out} is OUTPUT itself; give --dropped a folder of its own"
    )
    assert refused("filter", str(source), str(out), "--dropped", str(out / "dropped")) == (
        f"--dropped {out / 'dropped'} is inside OUTPUT {out}; give folders apart from each other"
    )
    assert refused("filter", str(source), str(out / "kept"), "--dropped", str(out)) == (
        f"OUTPUT {out / 'kept'} is inside --dropped {out}; give folders apart from each other"
    )
    assert refused("score", str(tmp_path / "in"), str(tmp_path / "in" / "out")) == (
        f"OUTPUT {tmp_path / 'in' / 'out'} is inside the input {tmp_path / 'in'}; give folders apart from each other"
    )
    link = tmp_path / "link"
    link.symlink_to(out, target_is_directory=True)
    assert refused("filter", str(source), str(out), "--dropped", str(link)) == (
        f"--dropped {link} is OUTPUT itself (both are {out}); give --dropped a folder of its own"
    )


@pytest.mark.parametrize("option", ["OUTPUT", "--dropped"])
def test_a_folder_that_cannot_be_written_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """sysfs refuses new files even to root, so this holds for every user."""
    source = write_parquet(tmp_path / "pages.parquet", [{"html": clean(1)}])
    out, dropped = tmp_path / "out", tmp_path / "dropped"
    if option == "OUTPUT":
        out = Path("/sys/a11y-eval-out")
    else:
        dropped = Path("/sys/a11y-eval-dropped")
    line = usage_error(["corpus", "filter", str(source), str(out), "--dropped", str(dropped)], capsys)
    bad = out if option == "OUTPUT" else dropped
    assert line.startswith(f"a11y-eval corpus: error: {option} {bad}: cannot write there (")
    assert not out.exists() and not dropped.exists(), "refused before anything is written"


def test_an_output_on_a_read_only_file_system_is_refused(tmp_path: Path) -> None:
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], check=False).returncode != 0:
        pytest.skip("needs a mount namespace of its own (unshare -m) to mount a read-only file system")
    source = write_parquet(tmp_path / "pages.parquet", [{"html": clean(1)}])
    mount = tmp_path / "ro"
    mount.mkdir()
    script = f"mount -t tmpfs -o ro tmpfs '{mount}' || exit 99; exec '{SCRIPT}' corpus score '{source}' '{mount}/out'"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, env=env, check=False)
    if done.returncode == 99:
        pytest.skip("mounting a file system is not allowed here")
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"a11y-eval corpus: error: OUTPUT {mount}/out: cannot write there (read-only file system)\n"


# ------------------------------------------------------------------ an input without rows


@pytest.mark.parametrize("kind", ["parquet", "jsonl", "blank-jsonl"])
def test_an_input_without_rows_is_a_clean_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    if kind == "parquet":
        source = write_parquet(tmp_path / "pages.parquet", [])
    else:
        source = tmp_path / "pages.jsonl"
        source.write_text("" if kind == "jsonl" else "\n  \n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["corpus", "filter", str(source), str(out)]) == EXIT_OK
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [f"corpus filter: 0 rows in: {source} holds no rows; nothing written to {out}"]
    assert "Error" not in captured.err
    assert out.is_dir() and not any(out.iterdir()), "an empty folder, no run folder left to resume"
    assert not (out / RUN_FOLDER).exists()
    assert _dropped(out).is_dir() and not any(_dropped(out).iterdir())
