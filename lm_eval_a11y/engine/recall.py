"""Measurements of painted text kept for the rest of a sample.

The pixel check of colour contrast (engine/contrast.py) measures axe's colour-contrast nodes
again in every state a check shows, and most of them are the same text painted the same way (a
report's chart under a disclosure that opened elsewhere). Each measurement is kept with what it
was taken from: the node, its scheme, axe's answer, the text's description (colour, size,
compositing, its line boxes' sizes) and the page's own pixels of its line boxes. When a later
capture of the page shows exactly those pixels for the same description, the text is painted as
it was, and its measurement stands without the captures with its glyphs isolated (two captures
and two style recalculations a screen). Anything that changed the pixels under the text, or its
boxes, or how it is composited, is measured afresh.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Recall"]

# Per sample (its session): (scheme, axe's answer, target) -> (signature, measurement).
_KEPT: weakref.WeakKeyDictionary[Any, dict[tuple[str, str, tuple[str, ...]], tuple[bytes, dict[str, Any]]]] = (
    weakref.WeakKeyDictionary()
)
Crop = npt.NDArray[np.uint8]  # the page's own pixels of one line box (height, width, 3)
# Measurements kept per sample at most (a page with thousands of nodes keeps the first).
_LIMIT = 2000


def _signature(described: dict[str, Any], crops: list[Crop]) -> bytes:
    digest = hashlib.blake2b(digest_size=20)
    fields = (
        described.get("colour"),
        described.get("alpha"),
        described.get("font_size"),
        described.get("large"),
        described.get("blended"),
        described.get("covered"),
        described.get("over_text"),
        [(b["width"], b["height"]) for b in described.get("boxes", ())],
    )
    digest.update(repr(fields).encode())
    for crop in crops:
        digest.update(np.ascontiguousarray(crop).tobytes())
    return digest.digest()


class Recall:
    """The measurements kept for one sample, in one scheme."""

    def __init__(self, session: Any, scheme: str) -> None:
        self._kept = _KEPT.setdefault(session, {})
        self._scheme = scheme

    def __bool__(self) -> bool:
        return bool(self._kept)

    def _key(self, node: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
        return (self._scheme, str(node["kind"]), tuple(node["target"]))

    def knows(self, node: dict[str, Any]) -> bool:
        """Whether a measurement of ``node`` is kept (whatever it was taken from)."""
        return self._key(node) in self._kept

    def recall(self, node: dict[str, Any], described: dict[str, Any], crops: list[Crop]) -> dict[str, Any] | None:
        """The kept measurement of ``node`` if its page pixels (``crops``, one per line box) and
        description are those it was taken from, else None."""
        kept = self._kept.get(self._key(node))
        if kept is None or kept[0] != _signature(described, crops):
            return None
        return kept[1]

    def keep(self, node: dict[str, Any], described: dict[str, Any], crops: list[Crop], result: dict[str, Any]) -> None:
        if len(self._kept) < _LIMIT or self._key(node) in self._kept:
            self._kept[self._key(node)] = (_signature(described, crops), result)
