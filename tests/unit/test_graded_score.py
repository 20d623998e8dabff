"""The graded score of corpus scoring: hand-worked values and its promises (1 exactly on a pass,
0 only for a page that could not be judged, never higher with another failure, deterministic),
over a few hundred random observations."""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from lm_eval_a11y.observation import (
    AuditCoverage,
    AxeFinding,
    AxeResult,
    CheckResult,
    ContrastAudit,
    ContrastNode,
    Observation,
    Timings,
)
from lm_eval_a11y.scoring import IMPACT_WEIGHTS, graded_penalty, graded_score, score_observation

IMPACTS = ("minor", "moderate", "serious", "critical", None)


def finding(rule: str, nodes: int, impact: str | None = "serious", best_practice: bool = False) -> AxeFinding:
    tags = ("cat.x", "best-practice") if best_practice else ("cat.x", "wcag2a", "wcag111")
    return AxeFinding(rule, impact, tags, f"help for {rule}", "", (), nodes)


def check(name: str, outcome: str, kind: str = "R") -> CheckResult:
    return CheckResult(name, kind, f"{name} works", outcome, "seen")  # type: ignore[arg-type]


def observation(
    findings: tuple[AxeFinding, ...] = (),
    checks: tuple[CheckResult, ...] = (),
    unaudited: tuple[str, ...] = (),
    status: str = "ok",
    contrast: ContrastAudit | None = None,
) -> Observation:
    return Observation(
        case_id="x" if checks else None,
        case_version=None,
        status=status,  # type: ignore[arg-type]
        error=None if status == "ok" else "it broke",
        html_sha256="0" * 64,
        html_bytes=10,
        axe=AxeResult(violations=findings),
        checks=checks,
        environment=None,
        timings=Timings(),
        audit=AuditCoverage(recorded=True, unaudited=unaudited),
        contrast=contrast,
    )


def test_hand_worked_values() -> None:
    assert graded_score(observation()) == 1.0
    # One critical node: penalty 1 -> 1/2. A serious rule on 3 nodes: 0.75 * (1 + ln 3) = 1.574 -> 0.3885.
    assert graded_score(observation((finding("label", 1, "critical"),))) == 0.5
    three = graded_score(observation((finding("label", 3, "serious"),)))
    assert three == pytest.approx(1 / (1 + 0.75 * (1 + math.log(3))))
    assert three == pytest.approx(0.38851, abs=1e-5)
    # A minor rule (0.25) and a failed requirement check (1): 1 / 2.25.
    obs = observation((finding("a", 1, "minor"),), (check("c1", "fail"), check("c2", "pass")))
    assert graded_score(obs) == pytest.approx(1 / 2.25)
    # Content that could not be audited weighs 1.
    assert graded_score(observation(unaudited=("an <object> document",))) == 0.5
    # An impact axe does not name weighs as serious.
    assert graded_penalty(observation((finding("new-rule", 1, None),))) == IMPACT_WEIGHTS["serious"]


def test_what_never_counts() -> None:
    quiet = observation(
        (finding("region", 7, "moderate", best_practice=True),),
        (check("bp", "fail", "BP"), check("allowed", "na"), check("r", "pass")),
    )
    assert graded_score(quiet) == 1.0 and score_observation(quiet).passed


@pytest.mark.parametrize("status", ["timeout", "error"])
def test_an_evaluation_that_did_not_complete_scores_zero(status: str) -> None:
    assert graded_score(observation(status=status)) == 0.0


def test_colour_contrast_counts_as_the_pixels_decided() -> None:
    node = ContrastNode("light", ("p",), "violation", 2.0, None, 4.5, 7.0, "pass", "pass", "pixels")
    cleared = ContrastAudit(nodes=(node,), axe_violations=(("light", 1),))
    assert graded_score(observation((finding("color-contrast", 1),), contrast=cleared)) == 1.0
    failed = ContrastAudit(
        nodes=(dataclasses.replace(node, decided="fail", pixel="fail"),), axe_violations=(("light", 1),)
    )
    assert graded_score(observation((finding("color-contrast", 1),), contrast=failed)) < 1.0


def _random_observation(rng: random.Random) -> Observation:
    findings = tuple(
        finding(f"rule-{i}", rng.randint(0, 40), rng.choice(IMPACTS), best_practice=rng.random() < 0.2)
        for i in range(rng.randint(0, 5))
    )
    checks = tuple(
        check(f"c{i}", rng.choice(["pass", "fail", "na", "error"]), rng.choice(["R", "BP"]))
        for i in range(rng.randint(0, 5))
    )
    unaudited = tuple(f"thing {i}" for i in range(rng.choice([0, 0, 0, 1, 2])))
    return observation(findings, checks, unaudited, status=rng.choice(["ok"] * 8 + ["timeout", "error"]))


def _worse(obs: Observation, rng: random.Random) -> Observation:
    """``obs`` with one more failure of some kind."""
    way = rng.randrange(5)
    violations = list(obs.axe.violations)
    if way == 0 and violations:
        i = rng.randrange(len(violations))
        violations[i] = dataclasses.replace(violations[i], node_count=violations[i].node_count + rng.randint(1, 9))
    elif way == 1 and violations:
        i = rng.randrange(len(violations))
        order = ["minor", "moderate", "serious", "critical"]
        now = violations[i].impact
        higher = order[order.index(now) + 1 :] if now in order else ["critical"]
        violations[i] = dataclasses.replace(violations[i], impact=rng.choice(higher or ["critical"]))
    elif way == 2:
        violations.append(finding(f"new-{len(violations)}", rng.randint(1, 5), rng.choice(IMPACTS)))
    elif way == 3:
        return dataclasses.replace(obs, checks=(*obs.checks, check(f"more-{len(obs.checks)}", "fail")))
    else:
        return dataclasses.replace(obs, audit=AuditCoverage(recorded=True, unaudited=(*obs.audit.unaudited, "x")))
    return dataclasses.replace(obs, axe=AxeResult(violations=tuple(violations)))


def test_promises_over_random_observations() -> None:
    rng = random.Random(15)
    for _ in range(400):
        obs = _random_observation(rng)
        score = graded_score(obs)
        assert 0.0 <= score <= 1.0
        assert score == graded_score(Observation.from_dict(obs.to_dict())), "deterministic, also after a round trip"
        assert (score == 1.0) == score_observation(obs).passed
        assert (score == 0.0) == (obs.status != "ok"), "0 means only: could not be judged"
        worse = _worse(obs, rng)
        assert graded_score(worse) <= score, "another failure never raises the score"
        if obs.status == "ok":
            assert graded_score(worse) < score or graded_penalty(worse) == graded_penalty(obs)
