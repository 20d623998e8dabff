"""``a11y-eval cases list|validate``: the suite's table of contents and its self-check.

``validate`` runs the real evaluator (Chromium and axe-core), so these tests prove both that a
correct case is reported clean (exit 0) and that a wrong expectation is caught (exit 1).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lm_eval_a11y.case_validation import RunOutcome, compare, format_case
from lm_eval_a11y.cases import get_case, load_examples
from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE, main
from lm_eval_a11y.observation import AxeResult, CheckResult, Observation, Timings
from lm_eval_a11y.resources import cases_dir

DISCLOSURE = cases_dir() / "disclosure"
# Each example is compared on its five checks, its axe rules and its verdict.
DISCLOSURE_EXAMPLES = len(list((DISCLOSURE / "examples").glob("*.html")))


@pytest.fixture
def small_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cases folder holding a copy of the disclosure case and one case that does not load."""
    root = tmp_path / "cases"
    shutil.copytree(DISCLOSURE, root / "disclosure")
    broken = root / "half-written"
    broken.mkdir()
    (broken / "case.yaml").write_text("id: half-written\ntitle: Not finished\n", encoding="utf-8")
    monkeypatch.setenv("A11Y_CASES_DIR", str(root))
    return root


def test_list_shows_every_case_with_category_criteria_and_counts(
    small_suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cases", "list"]) == EXIT_FAIL  # one case does not load
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header == ["id", "category", "tags", "wcag", "R", "BP", "examples"]
    row = next(line for line in out.splitlines() if line.startswith("disclosure "))
    assert "widget" in row
    assert "1.3.1, 2.1.1, 2.4.7, 4.1.2" in row
    assert row.split()[-3:] == ["4", "1", str(DISCLOSURE_EXAMPLES)]
    assert "invalid case half-written: " in out
    assert "missing required field 'version'" in out
    assert out.rstrip().endswith("1 case(s), 1 invalid")


def test_list_of_the_bundled_suite_includes_disclosure(capsys: pytest.CaptureFixture[str]) -> None:
    main(["cases", "list"])
    out = capsys.readouterr().out
    assert any(line.startswith("disclosure ") for line in out.splitlines())


def test_list_json_is_machine_readable(small_suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cases", "list", "--json"]) == EXIT_FAIL
    doc = json.loads(capsys.readouterr().out)
    (entry,) = doc["cases"]
    assert entry["id"] == "disclosure"
    assert entry["category"] == "widget"
    assert entry["tags"] == ["widget", "disclosure"]
    assert entry["wcag"] == ["1.3.1", "2.1.1", "2.4.7", "4.1.2"]
    counts = (entry["requirement_checks"], entry["best_practice_checks"], entry["examples"])
    assert counts == (4, 1, DISCLOSURE_EXAMPLES)
    (invalid,) = doc["invalid"]
    assert invalid["id"] == "half-written"


def test_list_exits_0_when_every_case_loads(small_suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(small_suite / "half-written")
    assert main(["cases", "list"]) == EXIT_OK
    assert capsys.readouterr().out.rstrip().endswith("1 case(s)")


def test_validate_a_correct_case_exits_0(small_suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Naming the case validates it even though another folder of the suite does not load.
    assert main(["cases", "validate", "disclosure"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "== disclosure" in out
    assert "pass-native-details" in out
    assert "MISMATCH" not in out
    n = DISCLOSURE_EXAMPLES
    summary = f"OK: 1 case(s), {n} example(s), {7 * n} comparison(s), 0 mismatch(es)"
    assert out.rstrip().splitlines()[-1].startswith(summary)


@pytest.fixture
def wrong_expectation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the disclosure case whose passing example wrongly expects a check to fail."""
    folder = tmp_path / "cases" / "disclosure"
    shutil.copytree(DISCLOSURE, folder)
    for page in (folder / "examples").glob("*.html"):
        if page.name not in ("pass-aria-button.html", "fail-mouse-only.html"):
            page.unlink()
    page = folder / "examples" / "pass-aria-button.html"
    text = page.read_text(encoding="utf-8")
    assert '"keyboard-toggles": "pass"' in text
    page.write_text(text.replace('"keyboard-toggles": "pass"', '"keyboard-toggles": "fail"'), encoding="utf-8")
    monkeypatch.setenv("A11Y_CASES_DIR", str(folder.parent))
    return folder


def test_validate_a_wrong_expectation_exits_1_and_marks_it(
    wrong_expectation: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cases", "validate"]) == EXIT_FAIL
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("pass-aria-button "))
    assert "X pass (want fail)" in row
    assert row.rstrip().endswith("MISMATCH")
    other = next(line for line in out.splitlines() if line.startswith("fail-mouse-only "))
    assert other.rstrip().endswith("ok")
    assert "X pass-aria-button / keyboard-toggles: expected fail, observed pass" in out
    assert out.rstrip().splitlines()[-1].startswith("FAILED: 1 case(s), 2 example(s)")
    assert "1 mismatch(es) in 1 example(s)" in out


def test_validate_json_reports_the_mismatch(wrong_expectation: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cases", "validate", "--json", "disclosure"]) == EXIT_FAIL
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False
    by_name = {e["example"]: e for e in doc["examples"]}
    assert by_name["fail-mouse-only"]["mismatches"] == []
    (mismatch,) = by_name["pass-aria-button"]["mismatches"]
    assert (mismatch["column"], mismatch["expected"], mismatch["observed"]) == ("keyboard-toggles", "fail", "pass")


def test_validate_unknown_case_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["cases", "validate", "no-such-case"])
    assert exit_info.value.code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown case 'no-such-case'" in err
    assert "disclosure" in err


def _observation(outcomes: dict[str, str]) -> Observation:
    return Observation(
        case_id="disclosure",
        case_version="1",
        status="ok",
        error=None,
        html_sha256="",
        html_bytes=0,
        axe=AxeResult(),
        checks=tuple(CheckResult(cid, "R", "", outcome, f"saw {outcome}") for cid, outcome in outcomes.items()),  # type: ignore[arg-type]
        environment=None,
        timings=Timings(),
    )


def test_runs_that_disagree_are_reported_flaky() -> None:
    case = get_case("disclosure", DISCLOSURE.parent)
    example = next(e for e in load_examples(case) if e.name == "pass-aria-button")
    good = dict(example.assertions)
    shaky = {**good, "keyboard-toggles": "fail"}
    steady = compare(case, example, [_observation(good), _observation(good)])
    assert steady.ok
    assert RunOutcome.of(_observation(good)).verdict == "pass"
    flaky = compare(case, example, [_observation(good), _observation(shaky), _observation(good)])
    assert not flaky.mismatches
    assert len(flaky.flaky_runs) == 1
    assert not flaky.ok
    # The report says why the run differed, in the check's own words.
    assert flaky.to_dict()["other_runs"][0]["differing"] == {"keyboard-toggles": "saw fail"}
    text = format_case(case, [flaky])
    assert "keyboard-toggles: first run: saw pass; this run: saw fail" in text


def test_validate_all_reports_a_case_that_does_not_load(small_suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for page in (small_suite / "disclosure" / "examples").glob("*.html"):
        if page.name != "pass-native-details.html":
            page.unlink()
    assert main(["cases", "validate"]) == EXIT_FAIL
    out = capsys.readouterr().out
    assert "invalid case half-written: " in out
    assert out.rstrip().splitlines()[-1].endswith("; 1 case(s) failed to load")
    assert "0 mismatch(es)" in out
