"""``a11y-eval score`` on the shipped React pages, as models write them (React, ReactDOM and Babel
standalone from CDNs, JSX in a ``text/babel`` script): the component renders from the local mirror
(its screenshot shows what the vanilla twin's shows, not the blank page of an empty ``#root``),
and every check and axe finding comes out as for the twin (docs/cdn-mirror.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser.test_cdn_mirror import _dark_share

from lm_eval_a11y.cli import EXIT_FAIL, main
from lm_eval_a11y.resources import cases_dir, library_root

pytestmark = pytest.mark.skipif(
    library_root() is None or not (library_root() / "react").is_dir(),  # type: ignore[operator]
    reason="npm ci --prefix evaluator has not been run",
)

EMPTY_ROOT = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Weeknight Kitchen</title></head>'
    '<body><div id="root"></div></body></html>'
)


def _score(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict[str, Any]]]:
    code = main(["score", "--json", "--timeout", "120", "--concurrency", "2", *argv])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("case_id", "react", "vanilla", "expected"),
    [
        ("modal-dialog", "pass-react-aria-dialog", "pass-aria-dialog", "pass"),
        ("disclosure", "fail-react-no-expanded-state", "fail-no-expanded-state", "fail"),
    ],
)
def test_a_react_page_renders_and_is_judged_as_its_vanilla_twin(
    case_id: str, react: str, vanilla: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = cases_dir() / case_id / "examples"
    shots = tmp_path / "shots"
    empty = tmp_path / "empty-root.html"
    empty.write_text(EMPTY_ROOT, encoding="utf-8")
    files = [str(folder / f"{react}.html"), str(folder / f"{vanilla}.html"), str(empty)]
    code, (mine, twin, blank) = _score(["--case", case_id, "--screenshots", str(shots), *files], capsys)
    assert code == EXIT_FAIL  # the empty page fails, whatever the other two do
    for verdict in (mine, twin):
        assert verdict["status"] == "ok", verdict["reasons"]
    assert mine["verdict"] == twin["verdict"] == expected

    obs, twin_obs = mine["observation"], twin["observation"]
    # Judged as the twin: the same check outcomes and the same axe rules, from what React drew.
    outcomes = {c["id"]: c["outcome"] for c in obs["checks"]}
    assert outcomes == {c["id"]: c["outcome"] for c in twin_obs["checks"]}
    assert "na" not in outcomes.values() and outcomes
    rules = sorted(v["rule_id"] for v in obs["axe"]["violations"])
    assert rules == sorted(v["rule_id"] for v in twin_obs["axe"]["violations"])
    assert obs["events"]["page_errors"] == []
    served = {item["library"]: item["outcome"] for item in obs["events"]["libraries"]}
    assert served == {"react": "served", "react-dom": "served", "@babel/standalone": "served"}

    # The screenshot shows the component: its text and controls darken about as many pixels as
    # the twin's, where the empty #root the page would be without the mirror draws none.
    drawn = _dark_share(Path(obs["screenshot"]).read_bytes())
    assert _dark_share(Path(blank["observation"]["screenshot"]).read_bytes()) == 0
    assert drawn > 0.002
    assert abs(drawn - _dark_share(Path(twin_obs["screenshot"]).read_bytes())) < 0.25 * drawn
