"""A measurement of painted text is reused only for the same text painted the same way.

engine/recall.py keeps each measurement with the page's own pixels of the text's line boxes and
the text's description; a later audit reuses it (without the captures with its glyphs isolated)
only when both are unchanged. Anything else is measured afresh."""

from __future__ import annotations

from typing import Any

import numpy as np

from lm_eval_a11y.engine.recall import Recall


class _Sample:
    """Stands for a sample's session (the measurements are kept per session)."""


NODE = {"index": 3, "kind": "incomplete", "target": ["#chart text:nth-of-type(2)"]}
DESCRIBED: dict[str, Any] = {
    "index": 3,
    "colour": [51, 51, 51],
    "alpha": 1.0,
    "font_size": 12.0,
    "large": False,
    "blended": False,
    "covered": False,
    "boxes": [{"offset": 0, "width": 40, "height": 14, "images": 1}],
}
RESULT = {"ratio": 12.6, "background": [255, 255, 255], "glyph_pixels": 80, "glyph_cores": True}


def _crop(value: int = 255) -> np.ndarray:
    crop = np.full((14, 40, 3), value, dtype=np.uint8)
    crop[4:10, 5:30] = 51
    return crop


def test_the_same_pixels_and_description_reuse_the_measurement() -> None:
    sample = _Sample()
    Recall(sample, "light").keep(NODE, DESCRIBED, [_crop()], RESULT)
    assert Recall(sample, "light").recall(NODE, DESCRIBED, [_crop()]) == RESULT


def test_anything_changed_is_measured_afresh() -> None:
    sample = _Sample()
    Recall(sample, "light").keep(NODE, DESCRIBED, [_crop()], RESULT)
    again = Recall(sample, "light")
    paler = _crop()
    paler[4:10, 5:30] = 220  # the glyphs repainted pale
    assert again.recall(NODE, DESCRIBED, [paler]) is None
    assert again.recall(NODE, DESCRIBED, [_crop(254)]) is None  # the background
    assert again.recall(NODE, {**DESCRIBED, "blended": True}, [_crop()]) is None
    assert again.recall(NODE, {**DESCRIBED, "colour": [200, 200, 200]}, [_crop()]) is None
    wider = {**DESCRIBED, "boxes": [{"offset": 0, "width": 41, "height": 14, "images": 1}]}
    assert again.recall(NODE, wider, [_crop()]) is None
    assert again.recall(NODE, DESCRIBED, [_crop(), _crop()]) is None  # a second line box
    assert again.recall({**NODE, "kind": "violation"}, DESCRIBED, [_crop()]) is None
    assert again.recall({**NODE, "target": ["#other"]}, DESCRIBED, [_crop()]) is None
    assert Recall(sample, "dark").recall(NODE, DESCRIBED, [_crop()]) is None


def test_each_sample_keeps_its_own() -> None:
    first, second = _Sample(), _Sample()
    Recall(first, "light").keep(NODE, DESCRIBED, [_crop()], RESULT)
    assert not Recall(second, "light")
    assert Recall(second, "light").recall(NODE, DESCRIBED, [_crop()]) is None
