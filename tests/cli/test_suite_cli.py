"""``a11y-eval suite run|check`` with the real evaluator (Chromium and axe-core), kept small.

A passing suite exits 0; a genuine failing expectation exits 1 and is named on stdout and in
suite.json (the link case's own passing pages built from ARIA links fail its best-practice check
``native-anchors``, so ``checks_must_pass: [native-anchors]`` cannot be met); a bad file exits 2
naming the field, and so does a model class lm-eval does not have (model and repair runs
themselves: tests/integration/test_suite_model.py). The last test runs the shipped self-test over
every case, as CI does.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cli.support import usage_error
from lm_eval_a11y.cases import load_cases, load_examples
from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, main
from lm_eval_a11y.resources import cases_dir, suites_dir
from lm_eval_a11y.suite import load_suite

SMALL = textwrap.dedent(
    """
    name: small
    defaults:
      mode: reference
      expect: {max_axe_failures: 0}
    cases:
      - id: breadcrumb
        expect: {forbid_axe_rules: [label]}
      - id: link
        expect:
          checks_must_pass: [native-anchors]
    """
)


def _passing(case_id: str) -> int:
    case = next(c for c in load_cases() if c.id == case_id)
    return sum(e.verdict == "pass" for e in load_examples(case))


@pytest.fixture
def small_suite(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SMALL, encoding="utf-8")
    return path


def _result(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "suite.json").read_text(encoding="utf-8"))
    return data


def test_a_failing_expectation_exits_1_and_is_named(
    small_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert main(["suite", "run", str(small_suite), "--out", str(out)]) == EXIT_FAIL
    printed = capsys.readouterr()
    lines = printed.out.splitlines()
    assert lines[0].startswith("suite small (")
    assert any(line.startswith("PASS  breadcrumb") for line in lines), printed.out
    assert any(line.startswith("FAIL  link") for line in lines), printed.out
    named = [line for line in lines if "checks_must_pass native-anchors" in line]
    assert len(named) == 1 and "expected outcome 'pass' in every trial, got fail in 2 of 3" in named[0]
    assert lines[-1].startswith("FAILED: 1 of 2 case(s) met their expectations")
    assert "page(s) evaluated" in printed.err

    result = _result(out)
    assert result["format"] == "lm-eval-a11y-suite/1"
    assert result["passed"] is False
    assert result["totals"] == {
        "passed": 1,
        "failed": 1,
        "total": 2,
        "pass_rate": 0.5,
        "trials": _passing("breadcrumb") + _passing("link"),
        "trials_passed": _passing("breadcrumb") + _passing("link"),
        "estimated_cost_total_usd": None,
    }
    breadcrumb, link = result["cases"]
    assert (breadcrumb["id"], breadcrumb["passed"], breadcrumb["failed_checks"]) == ("breadcrumb", True, [])
    assert breadcrumb["expect"] == {"max_axe_failures": 0, "forbid_axe_rules": ["label"]}
    assert link["failed_checks"] == [
        {
            "name": "checks_must_pass",
            "subject": "native-anchors",
            "expected": "outcome 'pass' in every trial",
            "actual": "fail in 2 of 3 trial(s) (pass-aria-links-smooth-scroll, pass-aria-links)",
        }
    ]
    stats = link["stats"]
    assert (stats["trials"], stats["trials_passed"], stats["trial_pass_rate"]) == (3, 3, 1.0)
    assert stats["pass_at_k"] == {"1": 1.0, "5": None, "10": None}
    assert 0 < stats["duration_ms"]["mean"] <= stats["duration_ms"]["p95"] == stats["duration_ms"]["max"]
    assert stats["output_tokens"] == {"mean": None, "total": None} and stats["repair"] is None
    trial = link["trials"][0]
    assert trial["example"].startswith("pass-") and trial["round"] == 1 and trial["status"] == "ok"
    assert trial["passed"] is True and trial["axe_failures"] == 0 and trial["reasons"] == []
    assert set(trial["checks"]) == {c.id for c in next(c for c in load_cases() if c.id == "link").checks}
    assert result["environment"]["axe_version"]


def test_a_passing_suite_exits_0(small_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same file restricted with --cases to the case that meets its expectations, twice over."""
    twice = tmp_path / "twice.yaml"
    twice.write_text(
        small_suite.read_text(encoding="utf-8").replace("- id: breadcrumb", "- id: breadcrumb\n    trials: 2")
    )
    out = tmp_path / "run"
    assert main(["suite", "run", str(twice), "--out", str(out), "--cases", "breadcrumb"]) == EXIT_OK
    printed = capsys.readouterr().out
    n = 2 * _passing("breadcrumb")
    assert f"PASS  breadcrumb  {n} of {n} trial(s) passed" in printed
    assert printed.splitlines()[-1].startswith("PASSED: 1 of 1 case(s) met their expectations (100%)")
    result = _result(out)
    assert result["passed"] is True and [c["id"] for c in result["cases"]] == ["breadcrumb"]
    rounds = sorted({t["round"] for t in result["cases"][0]["trials"]})
    assert rounds == [1, 2]


def test_a_regressed_example_fails_the_reference_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A passing example that no longer passes (here: an image without alt text added to a copy of
    the breadcrumb case) fails the default rule, and the summary says which trial and why."""
    root = tmp_path / "cases"
    shutil.copytree(cases_dir() / "breadcrumb", root / "breadcrumb")
    page = root / "breadcrumb" / "examples" / "pass-ordered-list-current-link.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", '<img src="chart.png">\n</body>'))
    monkeypatch.setenv("A11Y_CASES_DIR", str(root))
    suite = tmp_path / "one.yaml"
    suite.write_text("name: one\ndefaults: {mode: reference}\ncases: [{id: breadcrumb}]\n", encoding="utf-8")
    assert main(["suite", "run", str(suite), "--out", str(tmp_path / "run")]) == EXIT_FAIL
    printed = capsys.readouterr().out
    n = _passing("breadcrumb")
    assert f"must_pass: expected every trial passes, got {n - 1} of {n} trials passed" in printed
    assert "trial pass-ordered-list-current-link failed: axe image-alt: 1 node(s)" in printed
    (case,) = _result(tmp_path / "run")["cases"]
    failing = [t for t in case["trials"] if not t["passed"]]
    assert [t["example"] for t in failing] == ["pass-ordered-list-current-link"]
    # axe_rules holds best practices too: the image also sits outside every landmark (region).
    assert failing[0]["axe_rules"] == ["image-alt", "region"] and failing[0]["axe_failures"] == 1


def test_a_bad_suite_file_exits_2_naming_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL.replace("max_axe_failures: 0", "max_axe_failure: 0"), encoding="utf-8")
    for argv in (["suite", "run", str(bad), "--out", str(tmp_path / "out")], ["suite", "check", str(bad)]):
        line = usage_error(argv, capsys)
        assert f"{bad}: defaults.expect.max_axe_failure: unknown key (did you mean 'max_axe_failures'?)" in line
    assert not (tmp_path / "out").exists()


def test_an_unknown_model_class_exits_2_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = tmp_path / "gate.yaml"
    text = (suites_dir() / "release-gate.yaml").read_text(encoding="utf-8")
    gate.write_text(text.replace("name: hf", "name: hf-typo"), encoding="utf-8")
    line = usage_error(["suite", "run", str(gate), "--out", str(tmp_path / "out")], capsys)
    assert f"{gate}: model.name: no lm-eval model class 'hf-typo'" in line
    assert not (tmp_path / "out").exists()


def test_bad_options_exit_2(small_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = usage_error(["suite", "run", str(small_suite), "--out", str(tmp_path), "--cases", "tabs"], capsys)
    assert "--cases: tabs not in suite 'small'; its cases: breadcrumb, link" in line
    afile = tmp_path / "file"
    afile.write_text("", encoding="utf-8")
    line = usage_error(["suite", "run", str(small_suite), "--out", str(afile)], capsys)
    assert "--out" in line and "is a file" in line


def test_check_validates_the_shipped_suites(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(suites_dir() / name) for name in ("self-test.yaml", "release-gate.yaml", "smoke-model.yaml")]
    assert main(["suite", "check", *files]) == EXIT_OK
    printed = capsys.readouterr().out
    assert "OK  suite self-test" in printed and "OK  suite release-gate" in printed
    assert "OK  suite smoke-model" in printed
    assert "modal-dialog: model, trials 10; expect min_trial_pass_rate=0.8" in printed


# The cases whose passing pages run in other variants (React, dark) besides vanilla: about 40 pages,
# every kind of suite entry. Every other passing example passes on its own in tests/cases/
# test_examples.py (the same evaluator and budget); the full suite run repeats them for a release.
VARIANT_CASES = ("disclosure", "login-form", "modal-dialog")


def test_the_self_test_suite_selects_every_case() -> None:
    """The self-test's selection holds every bundled case, so its full run covers every example."""
    suite = load_suite(suites_dir() / "self-test.yaml")
    assert {c.id for c in suite.cases} == {c.id for c in load_cases()}
    assert set(VARIANT_CASES) <= {c.id for c in suite.cases}


# The budget per page is twice the default: this test judges the pages, not the machine's speed,
# and a runner busy with other work doubles a page's time (tests/cases/test_examples.py holds every
# example to the default budget).
@pytest.mark.timeout(900)
def test_the_self_test_suite_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The passing example pages of the cases with variants: one evaluator, default concurrency."""
    out = tmp_path / "self-test"
    argv = ["suite", "run", str(suites_dir() / "self-test.yaml"), "--out", str(out), "--timeout", "40"]
    code = main([*argv, "--cases", ",".join(VARIANT_CASES)])
    printed = capsys.readouterr().out
    assert code == EXIT_OK, printed
    result = _result(out)
    assert result["passed"] is True
    # One case entry per case and variant its passing pages answer: the React and dark pages run
    # as their own variants (framework: [vanilla, react], style: [default, dark]), never as vanilla.
    cases = [c for c in load_cases() if c.id in VARIANT_CASES]
    pages = [(c.id, e.variant) for c in cases for e in load_examples(c) if e.verdict == "pass"]
    assert result["totals"]["total"] == len(set(pages)) == result["totals"]["passed"]
    assert result["totals"]["trials"] == result["totals"]["trials_passed"] == len(pages)
    variants = {c["sample_id"]: c["variant"] for c in result["cases"] if c["sample_id"] != c["id"]}
    assert variants == {
        "disclosure@react": "reference@react",
        "login-form@react": "reference@react",
        "modal-dialog@react": "reference@react",
        "modal-dialog@dark": "reference@dark",
        "modal-dialog@react+dark": "reference@react+dark",
    }
