"""The axe runs of one sample merged into one :class:`~lm_eval_a11y.observation.AxeResult`: a
node counts once per rule, whatever state showed it. Used by the observation (observe.py) and by
the early stop's verdict so far (early_stop.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lm_eval_a11y.observation import AxeFinding, AxeNode, AxeResult

__all__ = ["findings_from_probe", "merge_axe"]


def findings_from_probe(items: Sequence[dict[str, Any]], state: str) -> tuple[AxeFinding, ...]:
    return tuple(
        AxeFinding(
            rule_id=item["id"],
            impact=item.get("impact"),
            tags=tuple(item.get("tags") or ()),
            help=item.get("help") or "",
            help_url=item.get("help_url") or "",
            nodes=tuple(
                AxeNode(
                    html=n.get("html", ""),
                    target=tuple(n.get("target") or ()),
                    failure_summary=n.get("failure_summary", ""),
                    impact=n.get("impact"),
                    state=state,
                )
                for n in item.get("nodes") or ()
            ),
            node_count=int(item.get("node_count") or 0),
            states=(state,),
        )
        for item in items
    )


def merge_axe(runs: Sequence[tuple[str, dict[str, Any]]]) -> AxeResult:
    """Merge the axe runs of one sample: a node counts once per rule, whatever state showed it
    (it keeps the first state it was seen in; the finding lists every state that added a node)."""
    violations: dict[str, AxeFinding] = {}
    incomplete: dict[str, AxeFinding] = {}
    for state, result in runs:
        for target, items in ((violations, result["violations"]), (incomplete, result["incomplete"])):
            for finding in findings_from_probe(items, state):
                known = target.get(finding.rule_id)
                if known is None:
                    target[finding.rule_id] = finding
                    continue
                seen = {n.target for n in known.nodes}
                extra = tuple(n for n in finding.nodes if n.target not in seen)
                if extra:
                    target[finding.rule_id] = AxeFinding(
                        rule_id=known.rule_id,
                        impact=known.impact,
                        tags=known.tags,
                        help=known.help,
                        help_url=known.help_url,
                        nodes=known.nodes + extra,
                        node_count=known.node_count + len(extra),
                        states=tuple(dict.fromkeys((*known.states, state))),
                    )
    return AxeResult(
        violations=tuple(sorted(violations.values(), key=lambda f: f.rule_id)),
        incomplete=tuple(sorted(incomplete.values(), key=lambda f: f.rule_id)),
        states=tuple(dict.fromkeys(state for state, _ in runs)),
    )
