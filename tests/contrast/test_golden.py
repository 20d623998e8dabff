"""Golden pages of the pixel check of colour contrast: measurement, hand calculation, verdict.

Each page in ``pages/`` has its expectations in ``expectations.json``: the colours a person sees
behind each target, the hand-calculated ratio, axe-core's answer, the pixels' verdict and the
decided outcome. Three proofs per target, and one per page:

- the declared ratio is what WCAG's formula gives for the declared colours (the data is honest);
- the pixel measurement of the target agrees with that ratio within the tolerance, whatever axe
  said of it (text axe passes is measured too, through ``measure_selectors``);
- axe's answer, the pixels' verdict and the decided outcome of the evaluator's own run;
- the sample's decided colour-contrast failure count.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Check, Outcome
from lm_eval_a11y.contrast import required_ratio
from lm_eval_a11y.engine.contrast import measure_selectors
from lm_eval_a11y.engine.evaluator import Evaluator
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation

HERE = Path(__file__).resolve().parent
PAGES = HERE / "pages"
EXPECTATIONS: dict[str, Any] = json.loads((HERE / "expectations.json").read_text(encoding="utf-8"))
TOLERANCE = float(EXPECTATIONS["tolerance"])


def _targets() -> Iterator[Any]:
    for page, data in EXPECTATIONS["pages"].items():
        for target in data["targets"]:
            scheme = target.get("scheme", "light")
            yield pytest.param(page, target, id=f"{page.removesuffix('.html')}-{target['id']}-{scheme}")


def _channel(value: float) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _luminance(rgb: tuple[float, float, float]) -> float:
    r, g, b = rgb
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def hand_ratio(target: dict[str, Any]) -> float:
    """WCAG 2.2 contrast ratio of the declared colours, translucent text composited first."""
    fg, bg = _rgb(target["fg"]), _rgb(target["bg"])
    alpha = float(target.get("alpha", 1.0))
    seen = (
        round(alpha * fg[0] + (1 - alpha) * bg[0]),
        round(alpha * fg[1] + (1 - alpha) * bg[1]),
        round(alpha * fg[2] + (1 - alpha) * bg[2]),
    )
    a, b = _luminance(seen), _luminance((float(bg[0]), float(bg[1]), float(bg[2])))
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def test_every_page_has_expectations_and_every_expectation_a_page() -> None:
    on_disk = {p.name for p in PAGES.glob("*.html")}
    assert on_disk == set(EXPECTATIONS["pages"]), "a golden page without expectations is an error, not a skip"


@pytest.mark.parametrize(("page", "target"), list(_targets()))
def test_declared_ratio_is_the_hand_calculation(page: str, target: dict[str, Any]) -> None:
    if target["ratio"] is None:
        assert target["pixels"] == "unmeasurable", target
        return
    assert hand_ratio(target) == pytest.approx(target["ratio"], abs=0.01)
    verdict = "pass" if target["ratio"] >= required_ratio(target["large"]) else "fail"
    assert verdict == target["pixels"], f"{target['id']}: the declared verdict disagrees with the ratio"


def _measuring_case(wanted: list[tuple[str, str]]) -> Case:
    """A case whose one check measures the given (selector, scheme) targets on the pixels."""

    async def measure(session: Session) -> Outcome:
        found: dict[str, Any] = {}
        for scheme in dict.fromkeys(s for _, s in wanted):
            selectors = [sel for sel, s in wanted if s == scheme]
            nodes = await measure_selectors(session, session._tab, selectors, scheme)
            for node in nodes:
                found[f"{node.target[0]}@{scheme}"] = {
                    "ratio": node.pixel_ratio,
                    "pixel": node.pixel,
                    "note": node.note,
                }
        return Outcome("pass", json.dumps(found))

    return Case(
        id="contrastgolden",
        title="Measure golden contrast targets",
        version="1",
        tags=(),
        category="test",
        wcag=("1.4.3",),
        apg_pattern=None,
        hooks=(),
        prompt="",
        checks=(Check(id="measure", description="Measures the targets.", type="BP", func=measure),),
        path=HERE,
    )


@pytest.fixture(scope="module")
def measured(evaluator: Evaluator) -> dict[str, dict[str, Any]]:
    """Every golden target measured on its page's pixels, one evaluation per page."""
    out: dict[str, dict[str, Any]] = {}
    pages = list(EXPECTATIONS["pages"].items())
    pairs = []
    for page, data in pages:
        wanted = [(f"#{t['id']}", t.get("scheme", "light")) for t in data["targets"]]
        pairs.append((_measuring_case(wanted), (PAGES / page).read_text(encoding="utf-8")))
    for (page, _), obs in zip(pages, evaluator.evaluate_many(pairs), strict=True):
        assert obs.status == "ok", f"{page}: {obs.error}"
        (check,) = obs.checks
        assert check.outcome == "pass", f"{page}: {check.message}"
        out[page] = json.loads(check.message)
    return out


@pytest.fixture(scope="module")
def observed(evaluator: Evaluator) -> dict[str, Observation]:
    """The evaluator's own run of every golden page (axe, then the pixel check)."""
    pages = list(EXPECTATIONS["pages"])
    observations = evaluator.evaluate_many([(None, (PAGES / p).read_text(encoding="utf-8")) for p in pages])
    return dict(zip(pages, observations, strict=True))


@pytest.mark.parametrize(("page", "target"), list(_targets()))
def test_measurement_agrees_with_hand_calculation(
    measured: dict[str, dict[str, Any]], page: str, target: dict[str, Any]
) -> None:
    scheme = target.get("scheme", "light")
    got = measured[page][f"#{target['id']}@{scheme}"]
    assert got["pixel"] == target["pixels"], got
    if target["ratio"] is None:
        assert got["ratio"] is None
        return
    assert got["ratio"] == pytest.approx(hand_ratio(target), abs=TOLERANCE), got


@pytest.mark.parametrize(("page", "target"), list(_targets()))
def test_evaluator_records_axe_pixels_and_decision(
    observed: dict[str, Observation], page: str, target: dict[str, Any]
) -> None:
    obs = observed[page]
    assert obs.status == "ok", obs.error
    scheme = target.get("scheme", "light")
    audit = obs.contrast
    wanted = (f"#{target['id']}",)
    nodes = [] if audit is None else [n for n in audit.nodes if n.target == wanted and n.scheme == scheme]
    if target["axe"] == "pass":
        assert nodes == [], "axe passed it: the pixel check must not have looked at it"
        return
    assert audit is not None and scheme in audit.schemes
    (node,) = nodes
    assert node.axe == target["axe"]
    assert node.pixel == target["pixels"], node
    assert node.decided == target["decided"], node
    assert node.decided_by == ("axe" if target["pixels"] == "unmeasurable" else "pixels")
    if target["ratio"] is not None:
        assert node.pixel_ratio == pytest.approx(target["ratio"], abs=TOLERANCE)
        assert node.required == required_ratio(target["large"])


@pytest.mark.parametrize("page", list(EXPECTATIONS["pages"]))
def test_sample_counts_the_decided_contrast_failures(observed: dict[str, Observation], page: str) -> None:
    obs = observed[page]
    score = score_observation(obs)
    others = sum(f.node_count for f in obs.axe.wcag_failures if f.rule_id != "color-contrast")
    assert score.axe_failures - others == EXPECTATIONS["pages"][page]["contrast_failures"], score.reasons


def test_dark_pages_record_both_schemes(observed: dict[str, Observation]) -> None:
    for page, obs in observed.items():
        assert obs.environment is not None and obs.environment.prefers_color_scheme == "light"
        dark = page.startswith("dark-scheme")
        if dark:
            assert obs.contrast is not None and obs.contrast.schemes == ("light", "dark"), page
        elif obs.contrast is not None:
            assert obs.contrast.schemes == ("light",), page
