"""The contrast of text as painted, from captures with its glyphs isolated.

Four captures of the same line box (engine/paint.py): as the page paints it, with every text's
fill transparent (the background alone), black and white. Where the black and the white captures
differ, a glyph covers the pixel, and by how much: the difference is the glyph's coverage, whatever
filter, blend, overlay or backdrop the text is painted through. At the glyph cores (coverage near
the strongest in the node) the page's capture is the text as a person sees it and the transparent
capture is what lies right under it, pixel for pixel: a ruled line beside a glyph is not its
background. The node's ratio is its median core pixel's (a glyph edge drawn a little lighter or
a rule crossing a stem moves single pixels, not the median). Pure: numpy only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from lm_eval_a11y.contrast import luminance

__all__ = ["measure_painted"]

# Glyph pixels covered at least this much (a share of the node's strongest coverage) are measured:
# fully covered ones where the text has enough of them, otherwise the most covered ones, whose
# colour as painted is unmixed from the background by their coverage (glyph edges are drawn with
# a gamma that depends on the text colour, so partly covered pixels unmix only roughly).
_FULL = 0.97
_CORE = 0.8
# Fully covered pixels a node needs to be measured on them alone.
_ENOUGH = 12
# Below this difference (0-255) between the black and the white fill, the text does not show at all.
_INVISIBLE = 12
# Pixels not under a glyph (no difference between the fills) that change between the page's
# capture and the transparent one: the page repainted under the measurement.
_DRIFT = 0.02

Stack = npt.NDArray[np.uint8]  # (4, height, width, 3): page, transparent, black, white
Floats = npt.NDArray[np.float64]


def _local_median(lum: Floats, width: int) -> Floats:
    """The median of ``lum`` over stretches of the line box ``width`` pixels wide (all its rows),
    given to each of their pixels: the background a reader sees around a glyph, which a thin rule
    or grid line does not make."""
    out = np.empty_like(lum)
    for x in range(0, lum.shape[1], width):
        out[:, x : x + width] = np.median(lum[:, x : x + width])
    return out


def measure_painted(stacks: list[Stack], node: dict[str, Any]) -> dict[str, Any]:
    """The contrast between a node's glyphs as painted and the background around them.

    The background is the transparent-fill capture, its median over stretches of the line about
    two font sizes wide (ruled or gridded paper is the paper, not its lines). The colour of a
    glyph pixel as painted is unmixed from the page's capture and that background by the pixel's
    coverage (the difference between the black and the white fill, as a share of the node's
    strongest): exact for normal compositing, filters and blends alike, since each of them is
    applied to the pixel as a whole.
    """
    if node.get("unmeasurable"):
        return {"unmeasurable": node["unmeasurable"]}
    if not stacks:
        return {"unmeasurable": "the text is not inside the captured area"}
    coverage = [np.abs(s[3].astype(np.int16) - s[2].astype(np.int16)).max(axis=-1) for s in stacks]
    strongest = max(int(c.max()) for c in coverage)
    if strongest < _INVISIBLE:
        return {"unmeasurable": "no glyph of the text is painted where it lies (covered, or not painted)"}
    threshold = _FULL if sum(int((c >= _FULL * strongest).sum()) for c in coverage) >= _ENOUGH else _CORE
    stretch = max(8, math.ceil(float(node.get("font_size") or 16) * 2))
    ratios: list[Floats] = []
    backgrounds: list[Stack] = []
    cores = outside = drift = 0
    for stack, cover in zip(stacks, coverage, strict=True):
        page, bare = stack[0].astype(np.float64), stack[1].astype(np.float64)
        empty = cover == 0
        outside += int(empty.sum())
        drift += int((np.abs(page - bare).max(axis=-1)[empty] > 8).sum())
        share = cover / strongest
        core = share >= threshold
        count = int(core.sum())
        if count == 0:
            continue
        cores += count
        a = share[core][:, None]
        painted = np.clip(np.rint(bare[core] + (page[core] - bare[core]) / a), 0, 255).astype(np.uint8)
        around = _local_median(luminance(stack[1]), stretch)[core]
        lum = luminance(painted)
        ratio = (np.maximum(lum, around) + 0.05) / (np.minimum(lum, around) + 0.05)
        ratios.append(ratio)
        backgrounds.append(stack[1][core])
    if not ratios or cores < 4:
        return {"unmeasurable": "too few glyph pixels to measure"}
    every = np.concatenate(ratios)
    # The median glyph pixel: the text as most of it is painted (a glyph edge drawn a little
    # lighter or a rule crossing a stem moves single pixels, not the median).
    at = int(np.argsort(every)[len(every) // 2])
    worst = (float(every[at]), tuple(int(c) for c in np.concatenate(backgrounds)[at]))
    if outside and drift > _DRIFT * outside:
        return {"unmeasurable": "the page repainted around the text while it was measured"}
    return {"ratio": worst[0], "background": list(worst[1]), "glyph_pixels": cores, "glyph_cores": True}
