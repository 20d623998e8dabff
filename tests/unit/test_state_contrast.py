"""The pixel checks of a sample's states merged into one (engine/states.py ``merge_contrast``), as
scoring counts them: a node failing in any state fails once, and axe's colour-contrast failures in
states the pixel check did not measure (the late audit) still count."""

from __future__ import annotations

from lm_eval_a11y.engine.states import action_label, label_contrast, merge_contrast
from lm_eval_a11y.observation import AxeFinding, AxeNode, ContrastAudit, ContrastNode
from lm_eval_a11y.scoring import contrast_failures

OPENED = 'after click on button "Open" (check opens)'


def _node(target: str, decided: str, axe: str = "violation") -> ContrastNode:
    return ContrastNode(
        scheme="light",
        target=(target,),
        axe=axe,  # type: ignore[arg-type]
        axe_ratio=1.5 if axe == "violation" else None,
        axe_reason=None,
        required=4.5,
        pixel_ratio=1.5 if decided == "fail" else 7.0,
        pixel=decided,  # type: ignore[arg-type]
        decided=decided,  # type: ignore[arg-type]
        decided_by="pixels",
    )


def _audit(*nodes: ContrastNode) -> ContrastAudit:
    return ContrastAudit(nodes=nodes, axe_violations=(("light", sum(n.axe == "violation" for n in nodes)),))


def _axe(*found: tuple[str, str]) -> AxeFinding:
    nodes = tuple(AxeNode(html="<p>", target=(t,), state=s) for t, s in found)
    return AxeFinding(
        rule_id="color-contrast",
        impact="serious",
        tags=("wcag2aa", "wcag143"),
        help="contrast",
        help_url="",
        nodes=nodes,
        node_count=len(nodes),
        states=tuple(dict.fromkeys(s for _, s in found)),
    )


def test_a_node_failing_only_in_a_state_a_check_opened_fails_and_names_it() -> None:
    first = _audit(_node("#footer", "pass"))  # axe failed it, the pixels cleared it
    opened = label_contrast(_audit(_node(".hint", "fail")), OPENED)
    merged = merge_contrast(first, opened)
    assert merged is not None
    assert [(n.target, n.state) for n in merged.nodes] == [(("#footer",), "initial"), ((".hint",), OPENED)]
    count, reasons = contrast_failures(merged, _axe(("#footer", "initial"), (".hint", OPENED)))
    assert count == 1
    assert reasons == [
        f"color-contrast: 1 node(s) fail as rendered; 1 of axe's failures overturned by the pixels (seen in: {OPENED})"
    ]


def test_a_node_failing_in_two_states_counts_once_and_a_late_failure_still_counts() -> None:
    """The hint fails on the first screen and in the open dialog; axe also failed a node in the
    late audit, which the pixel check does not measure: two failures, not one and not three."""
    first = _audit(_node(".hint", "fail"))
    opened = label_contrast(_audit(_node(".hint", "fail"), _node(".note", "pass")), OPENED)
    merged = merge_contrast(first, opened)
    assert merged is not None and merged.violations_in("light") == 2  # .hint and .note, each once
    axe = _axe((".hint", "initial"), (".note", OPENED), (".late", "late"))
    count, reasons = contrast_failures(merged, axe)
    assert count == 2
    assert reasons[0].endswith(f"(seen in: initial; {OPENED}; late)"), reasons


def test_merging_keeps_what_either_side_has() -> None:
    audit = _audit(_node(".a", "fail"))
    assert merge_contrast(None, audit) is audit
    assert merge_contrast(audit, None) is audit
    assert merge_contrast(None, None) is None
    broken = ContrastAudit(error="Error: capture failed")
    merged = merge_contrast(audit, broken)
    assert merged is not None and merged.error == "Error: capture failed"


def test_labels() -> None:
    assert action_label("click", None) == "after click on the page"
    assert action_label("a 320 px wide window", None) == "after a 320 px wide window"
