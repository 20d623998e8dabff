"""``a11y-eval score`` on every kind of bad input: one clear line, the right exit code, no traceback,
and never a silent wrong result. Inputs that are refused start no browser, so most of these are fast;
the ones that render a page use real Chromium and real axe-core."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cli.support import CLEAN, FAILING, PAGES, run_script, usage_error
from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, main
from lm_eval_a11y.decoding import decode_html
from lm_eval_a11y.engine.evaluator import EvaluatorSettings

LIMIT = EvaluatorSettings().max_html_bytes
PAGE = (
    '<!doctype html><html lang="fr"><head>{meta}<title>Café</title></head>'
    "<body><main><h1>Café à Noël</h1></main></body></html>"
)
DOC = '<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>x</h1>{body}</main></body></html>'


def _failed_as(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The reason line of an input that fails without being rendered (exit 1)."""
    assert main(argv) == EXIT_FAIL
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAIL  ") and out[-1] == "0 of 1 file(s) passed", out
    assert len(out) == 3, out
    return out[1].strip()


# ------------------------------------------------------------------ paths that are not plain files


def test_a_directory_is_refused_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = usage_error(["score", str(tmp_path)], capsys)
    assert line == (
        f"a11y-eval score: error: {tmp_path} is a directory, not a file; give the pages in it (e.g. {tmp_path}/*.html)"
    )


def test_a_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = usage_error(["score", str(tmp_path / "nope.html")], capsys)
    assert line == f"a11y-eval score: error: no such file: {tmp_path / 'nope.html'}"


def test_dev_stdin_and_process_substitution_are_read() -> None:
    """Both exist but are not regular files; a user expects them to work like '-'."""
    page = CLEAN.read_text(encoding="utf-8")
    from_stdin = run_script(["score", "/dev/stdin"], stdin=page)
    assert from_stdin.returncode == EXIT_OK, from_stdin.stderr
    assert from_stdin.stdout.splitlines()[0] == "PASS  /dev/stdin"
    substituted = run_script([], shell=f"a11y-eval score <(cat '{FAILING}')")
    assert substituted.returncode == EXIT_FAIL, substituted.stderr
    first = substituted.stdout.splitlines()[0]
    assert first.startswith("FAIL  /dev/fd/"), first
    assert "axe  image-alt (critical; WCAG 1.1.1)" in substituted.stdout
    assert "Traceback" not in substituted.stderr


# ------------------------------------------------------------------ content that is not HTML


def test_an_empty_file_says_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "e.html").write_bytes(b"")
    assert _failed_as(["score", str(tmp_path / "e.html")], capsys) == "empty: the input has no content"
    (tmp_path / "w.html").write_text(" \n\t\n")
    assert _failed_as(["score", str(tmp_path / "w.html")], capsys) == "empty: the input holds only white space"


def test_a_binary_file_says_not_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "logo.html"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    assert _failed_as(["score", str(png)], capsys) == "not HTML: binary data"
    # In --json too: the status beside the verdict, the reason, and nothing rendered.
    assert main(["score", str(png), "--json"]) == EXIT_FAIL
    (entry,) = json.loads(capsys.readouterr().out)
    assert (entry["verdict"], entry["status"], entry["reasons"]) == ("fail", "not_html", ["not HTML: binary data"])
    assert entry["observation"] is None


def test_plain_prose_says_not_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prose = tmp_path / "notes.txt"
    prose.write_text("Remember to buy milk.\nAnd to call the bank about 3 > 2.\n")
    assert _failed_as(["score", str(prose)], capsys) == "not HTML: plain text without a single tag"


def test_a_model_answer_points_to_extract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(f"Sure! Here is the page:\n\n```html\n{CLEAN.read_text()}\n```\n\nIt uses semantic HTML.\n")
    reason = _failed_as(["score", str(answer)], capsys)
    assert reason == "not HTML: a model's answer with the page inside it; score it with --extract"


def test_extract_pulls_the_page_out_as_the_task_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = CLEAN.read_text()
    answer = tmp_path / "answer.md"
    answer.write_text(f"Sure! Here is the page:\n\n```bash\nopen index.html\n```\n\n```html\n{page}\n```\n\nEnjoy.\n")
    assert main(["score", str(answer), "--extract", "--json"]) == EXIT_OK
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["verdict"] == "pass" and entry["status"] == "ok"
    assert entry["input"]["extraction"]["how"] == "fenced" and entry["input"]["extraction"]["ignored"] == ["bash"]
    rendered = page.strip("\n").encode("utf-8")
    assert entry["observation"]["html_sha256"] == hashlib.sha256(rendered).hexdigest(), "only the HTML block"

    prose = tmp_path / "refusal.md"
    prose.write_text("I cannot help with that, but a <button> element is a good start.")
    reason = _failed_as(["score", str(prose), "--extract"], capsys)
    assert reason == "no HTML found in the answer (extracted as the lm-eval task does)"


# ------------------------------------------------------------------ decoding as a browser does


@pytest.mark.parametrize(
    ("data", "encoding", "source"),
    [
        (b"\xef\xbb\xbf" + PAGE.format(meta="").encode("utf-8"), "utf-8", "byte-order mark"),
        (b"\xff\xfe" + PAGE.format(meta="").encode("utf-16-le"), "utf-16le", "byte-order mark"),
        (b"\xfe\xff" + PAGE.format(meta="").encode("utf-16-be"), "utf-16be", "byte-order mark"),
        (PAGE.format(meta='<meta charset="windows-1252">').encode("cp1252"), "windows-1252", "<meta charset>"),
        (PAGE.format(meta='<meta charset="ISO-8859-1">').encode("cp1252"), "windows-1252", "<meta charset>"),
        (
            PAGE.format(meta='<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-15">').encode(
                "iso8859-15"
            ),
            "iso8859-15",
            "<meta charset>",
        ),
        (PAGE.format(meta="").encode("utf-8"), "utf-8", "default (valid UTF-8)"),
        (PAGE.format(meta="").encode("cp1252"), "windows-1252", "default (not valid UTF-8)"),
        (PAGE.format(meta='<meta charset="no-such-charset">').encode("utf-8"), "utf-8", "default (valid UTF-8)"),
    ],
)
def test_decoding_order(data: bytes, encoding: str, source: str) -> None:
    text, used, why = decode_html(data)
    assert (used, why) == (encoding, source)
    assert "Café à Noël" in text and "\ufeff" not in text


@pytest.mark.parametrize(
    ("name", "data", "note"),
    [
        ("utf16.html", b"\xff\xfe" + PAGE.format(meta="").encode("utf-16-le"), "utf-16le (byte-order mark)"),
        (
            "latin.html",
            PAGE.format(meta='<meta charset="windows-1252">').encode("cp1252"),
            "windows-1252 (<meta charset>)",
        ),
    ],
)
def test_the_page_rendered_is_the_decoded_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes, note: str
) -> None:
    """The evaluator hashes the text it renders: it must be the page as written, not mojibake."""
    path = tmp_path / name
    path.write_bytes(data)
    assert main(["score", str(path), "--json"]) == EXIT_OK
    (entry,) = json.loads(capsys.readouterr().out)
    expected = decode_html(data)[0]
    assert "Café à Noël" in expected
    assert entry["observation"]["html_sha256"] == hashlib.sha256(expected.encode("utf-8")).hexdigest()
    assert f"{entry['input']['encoding']} ({entry['input']['encoding_source']})" == note
    assert main(["score", str(path)]) == EXIT_OK
    assert f"  note decoded as {note}" in capsys.readouterr().out.splitlines()


# ------------------------------------------------------------------ limits and options


def test_a_page_over_the_size_limit_fails_as_too_large_and_the_others_keep_their_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.html"
    big.write_bytes(b"<!doctype html><p>" + b"x" * (LIMIT + 10))
    assert main(["score", str(CLEAN), str(big)]) == EXIT_FAIL
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"PASS  {CLEAN}"
    too_large = f"{big} is {LIMIT + 28:,} bytes, above the limit of {LIMIT:,} bytes per page"
    assert lines[-3:] == [f"FAIL  {big}", f"  {too_large}", "1 of 2 file(s) passed"]
    # Alone, it is a verdict too (a fail), not a usage error.
    assert main(["score", str(big), "--json"]) == EXIT_FAIL
    (entry,) = json.loads(capsys.readouterr().out)
    assert (entry["verdict"], entry["status"], entry["reasons"]) == ("fail", "too_large", [too_large])
    assert entry["input"]["bytes"] == LIMIT + 28 and entry["observation"] is None


def test_the_size_limit_holds_for_standard_input() -> None:
    done = run_script(["score", "-"], stdin="<p>" + "x" * (LIMIT + 1))
    assert done.returncode == EXIT_FAIL, done.stderr
    assert done.stdout.splitlines() == [
        "FAIL  stdin",
        f"  stdin is more than {LIMIT:,} bytes, above the limit of {LIMIT:,} bytes per page",
        "0 of 1 file(s) passed",
    ]


def test_every_path_gets_its_own_status_and_special_files_are_never_read(tmp_path: Path) -> None:
    """A FIFO with no writer would block a reader for ever, and /dev/zero never ends: both are
    refused by what the path is, beside a missing file, a directory and a page that is judged.
    Run as a process with a time limit, so that a read that blocks fails the test."""
    import os

    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    paths = [str(CLEAN), str(fifo), "/dev/zero", str(tmp_path / "nope.html"), str(tmp_path), str(FAILING)]
    done = run_script(["score", *paths, "--json"], timeout=120)
    assert done.returncode == EXIT_FAIL, done.stderr
    entries = json.loads(done.stdout)
    assert [(e["file"], e["verdict"], e["status"]) for e in entries] == [
        (str(CLEAN), "pass", "ok"),
        (str(fifo), "fail", "not_a_file"),
        ("/dev/zero", "fail", "not_a_file"),
        (str(tmp_path / "nope.html"), "fail", "not_found"),
        (str(tmp_path), "fail", "not_a_file"),
        (str(FAILING), "fail", "ok"),
    ]
    assert entries[1]["reasons"] == [f"{fifo} is a named pipe (FIFO), not a file; it is not read"]
    assert entries[2]["reasons"] == ["/dev/zero is a character device, not a file; it is not read"]
    assert entries[3]["reasons"] == [f"no such file: {tmp_path / 'nope.html'}"]
    assert "Traceback" not in done.stderr


def test_only_paths_that_cannot_be_read_are_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing could be judged: exit 2, every path named on one line, and no FIFO opened."""
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    line = usage_error(["score", str(tmp_path / "a.html"), str(fifo)], capsys)
    assert line == (
        f"a11y-eval score: error: no such file: {tmp_path / 'a.html'}; "
        f"{fifo} is a named pipe (FIFO), not a file; it is not read"
    )


def test_screenshots_into_a_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "shots.png"
    target.write_bytes(b"")
    line = usage_error(["score", str(CLEAN), "--screenshots", str(target)], capsys)
    assert line == f"a11y-eval score: error: --screenshots {target} is a file, not a folder"


@pytest.mark.parametrize("where", ["under-a-file", "sysfs"])
def test_screenshots_into_an_unwritable_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """Checked once, before the browser starts; root may write anywhere but below a file or into
    sysfs, so these two hold for every user."""
    (tmp_path / "f").write_text("x")
    folder = tmp_path / "f" / "shots" if where == "under-a-file" else Path("/sys/a11y-eval-shots")
    line = usage_error(["score", str(CLEAN), "--screenshots", str(folder)], capsys)
    assert line.startswith(f"a11y-eval score: error: --screenshots {folder}: cannot write there (")
    assert not folder.exists()


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--timeout", "nan", "must be a finite number of seconds above 0, got 'nan'"),
        ("--timeout", "inf", "must be a finite number of seconds above 0, got 'inf'"),
        ("--timeout", "0", "must be a finite number of seconds above 0, got '0'"),
        ("--timeout", "-1", "must be a finite number of seconds above 0, got '-1'"),
        ("--timeout", "soon", "expected a number of seconds, got 'soon'"),
        ("--concurrency", "0", "must be at least 1, got '0'"),
        ("--concurrency", "1.5", "expected a whole number, got '1.5'"),
    ],
)
@pytest.mark.parametrize("command", [["score", str(CLEAN)], ["rescore", "."], ["cases", "validate"]])
def test_pool_options_are_validated(
    capsys: pytest.CaptureFixture[str], command: list[str], option: str, value: str, message: str
) -> None:
    line = usage_error([*command, f"{option}={value}"], capsys)
    assert line.endswith(f"error: argument {option}: {message}"), line


def test_validate_repeat_zero_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    line = usage_error(["cases", "validate", "--repeat", "0"], capsys)
    assert line.endswith("error: argument --repeat: must be at least 1, got '0'")


# ------------------------------------------------------------------ what is printed


def test_json_carries_the_status_beside_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    # Two runs: the clean page keeps the default budget, so a busy machine cannot time it out.
    assert main(["score", str(CLEAN), "--json"]) == EXIT_OK
    (clean,) = json.loads(capsys.readouterr().out)
    assert (clean["verdict"], clean["status"]) == ("pass", "ok")
    loop = PAGES / "loop-in-script.html"
    assert main(["score", str(loop), "--json", "--timeout", "3"]) == EXIT_FAIL
    (looping,) = json.loads(capsys.readouterr().out)
    assert (looping["verdict"], looping["status"]) == ("fail", "timeout")
    assert looping["reasons"][0].startswith("evaluation timeout: the evaluation took longer than its budget of 3 s")


def test_failures_first_and_best_practices_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    example = PAGES.parent.parent / "test_cases" / "disclosure" / "examples" / "fail-mouse-only.html"
    assert main(["score", str(example), "--case", "disclosure"]) == EXIT_FAIL
    lines = capsys.readouterr().out.splitlines()
    kinds = [line.split()[0] for line in lines[1:-1] if not line.startswith("         ")]
    assert "BP" not in kinds
    requirement_lines = [line for line in lines if line.startswith("  R  ")]
    outcomes = [line.split()[1] for line in requirement_lines]
    assert outcomes == sorted(outcomes, key=lambda o: o in ("pass", "na")) and "fail" in outcomes, outcomes
    (summary,) = [line for line in lines if line.startswith("  best practices (not counted): ")]
    assert summary.endswith("(--verbose lists them)")
    assert main(["score", str(example), "--case", "disclosure", "--verbose"]) == EXIT_FAIL
    verbose = capsys.readouterr().out.splitlines()
    assert any(line.startswith("  BP ") for line in verbose)
    assert not any(line.startswith("  best practices (not counted)") for line in verbose)


@pytest.mark.parametrize("where", ["attribute", "name"])
def test_a_page_cannot_print_a_fake_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str) -> None:
    """The page's own text reaches the output in axe snippets and check messages: escape
    sequences in it must arrive as visible text, never act on the terminal."""
    fake = "\x1b[2K\x1b[1A\r\x1b[32mPASS  page.html\x1b[0m\n1 of 1 file(s) passed\x9b2J\u202e\x07"
    if where == "attribute":
        body = f'<img src="data:," data-note="{fake}">'
    else:
        body = f'<button class="trigger" aria-expanded="false" aria-label="{fake}">Q</button><div class="panel">A</div>'
    page = tmp_path / "page.html"
    page.write_text(DOC.format(body=body))
    assert main(["score", str(page), "--case", "disclosure"]) == EXIT_FAIL
    out = capsys.readouterr().out
    assert "\\x1b[2K" in out, "the sequence is shown, escaped"
    assert not any(ch in out for ch in ("\x1b", "\r", "\x9b", "\x07", "\u202e"))
    lines = out.splitlines()
    assert lines[0].startswith("FAIL  ") and lines[-1] == "0 of 1 file(s) passed"
    assert not any(line.startswith(("PASS", "1 of 1")) for line in lines)


def test_a_file_name_cannot_write_to_the_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = tmp_path / "x\x1b[2Ky.html"
    odd.write_text("")
    assert main(["score", str(odd)]) == EXIT_FAIL
    out = capsys.readouterr().out
    assert "\x1b" not in out and "x\\x1b[2Ky.html" in out
    line = usage_error(["score", str(tmp_path / "no\x1b[1Afile.html")], capsys)
    assert "\x1b" not in line and "no\\x1b[1Afile.html" in line


def test_run_checks_its_screenshot_folder_before_lm_eval_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "shots"
    target.write_text("a file")
    line = usage_error(["run", "--model", "dummy", "--tasks", "a11y_html", "--a11y-screenshots", str(target)], capsys)
    assert line == f"a11y-eval run: error: --a11y-screenshots {target} is a file, not a folder"
