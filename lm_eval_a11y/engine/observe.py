"""Building the :class:`~lm_eval_a11y.observation.Observation` of one sample from what its run saw."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lm_eval_a11y.observation import AxeFinding, AxeNode

__all__ = ["findings_from_probe"]


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
                )
                for n in item.get("nodes") or ()
            ),
            node_count=int(item.get("node_count") or 0),
            state=state,
        )
        for item in items
    )
