"""Which scored pages a filter keeps: ``passing``, ``score>=X`` or ``all``.

A rule is data, parsed once and written back the same way (``str(rule)``), so a run folder can
record the rule it was made with and a resumed run can be refused when the rule changed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from lm_eval_a11y.corpus.pages import PageScore

__all__ = ["KeepRule"]

_SCORE_AT_LEAST = re.compile(r"^\s*score\s*>=\s*(?P<x>[0-9]*\.?[0-9]+)\s*$")


@dataclass(frozen=True)
class KeepRule:
    """``passing``: pages whose verdict is a pass. ``score>=X``: pages scoring at least X (X in
    [0, 1]; ``score>=1`` keeps the same pages as ``passing``). ``all``: every page (scoring only).

    A page that could not be judged (any status but ``ok``) scores 0 and fails, so only ``all``
    and ``score>=0`` keep it."""

    kind: Literal["passing", "score", "all"]
    threshold: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in ("passing", "score", "all"):
            raise ValueError(f"unknown keep rule kind {self.kind!r}")
        if not (math.isfinite(self.threshold) and 0.0 <= self.threshold <= 1.0):
            raise ValueError(f"the score threshold must be within [0, 1], got {self.threshold!r}")

    @classmethod
    def parse(cls, text: str) -> KeepRule:
        """``passing``, ``all`` or ``score>=X``; a ValueError that says what is allowed otherwise."""
        words = text.strip().lower()
        if words in ("passing", "all"):
            return cls(kind=words)  # type: ignore[arg-type]
        match = _SCORE_AT_LEAST.match(words)
        if match is None:
            raise ValueError(f"expected 'passing', 'all' or 'score>=X' with X in [0, 1], got {text!r}")
        threshold = float(match.group("x"))
        if threshold > 1.0:
            raise ValueError(f"scores lie in [0, 1], so 'score>={match.group('x')}' would keep nothing")
        return cls(kind="score", threshold=threshold)

    @property
    def verdict_only(self) -> bool:
        """Whether the rule looks at the verdict alone (``passing``, ``score>=1``): then a page may
        be stopped at its first decided failure (``stop_at_first_failure``), and the rule keeps
        the same pages as after a full evaluation."""
        return self.kind == "passing" or (self.kind == "score" and self.threshold >= 1.0)

    def keeps(self, page: PageScore) -> bool:
        if self.kind == "all":
            return True
        if self.kind == "passing":
            return page.a11y_pass
        return page.score >= self.threshold

    def drop_reason(self, page: PageScore) -> str:
        """Why a page this rule drops was dropped, as a short word for counting: the status of a
        page that could not be judged, else ``failing`` or ``below_threshold``."""
        if page.status != "ok":
            return page.status
        return "failing" if self.kind == "passing" else "below_threshold"

    def __str__(self) -> str:
        return f"score>={self.threshold!r}" if self.kind == "score" else self.kind
