"""The contrast of text as painted, from captures with its glyphs isolated.

Three captures of the same line box (engine/paint.py): as the page paints it, with every text's
fill black and white. Where the black and the white captures differ, a glyph covers the pixel, and
by how much: the difference is the glyph's coverage, whatever filter, blend, overlay or backdrop
the text is painted through; where they do not, the pixel is the background as painted. At the
glyph cores (coverage near the strongest in the node) the page's capture is the text as a person
sees it, and the background is the median of the pixels no glyph covers right around it, along
a stretch of the line: a ruled line beside a glyph is not its background, an outline or a halo the
text is drawn with is. The node's ratio is its median core pixel's (a glyph edge drawn a little
lighter or a rule crossing a stem moves single pixels, not the median). Pure: numpy only.
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
# How far around the glyphs (pixels) their background is taken.
_REACH = 2
# Pixels not under a glyph (no difference between the fills) that change between the page's
# capture and the transparent one: the page repainted under the measurement.
_DRIFT = 0.02
# A row of a stretch of the line whose strongest glyph pixel is below this share of the node's
# strongest (and at least _FAINT) lies under something translucent that covers only part of the
# glyphs (a thick translucent line-through, a band over the middle of the line, a veil over some of
# the words): its glyphs are measured as painted there, not unmixed back to their full colour.
_VEILED = 0.75
_FAINT = 3

Stack = npt.NDArray[np.uint8]  # (3, height, width, 3): page, black, white
Floats = npt.NDArray[np.float64]


def _ring(glyph: npt.NDArray[np.bool_], reach: int) -> npt.NDArray[np.bool_]:
    """The pixels no glyph covers within ``reach`` pixels of one that a glyph does: what a reader
    sees right around the glyphs (an outline or a halo the text is drawn with belongs to it)."""
    near = glyph.copy()
    height, width = glyph.shape
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            near[max(dy, 0) : height + min(dy, 0), max(dx, 0) : width + min(dx, 0)] |= glyph[
                max(-dy, 0) : height + min(-dy, 0), max(-dx, 0) : width + min(-dx, 0)
            ]
    return near & ~glyph


def _local_median(rgb: Floats, bare: npt.NDArray[np.bool_], width: int) -> Floats:
    """The median colour of the ``bare`` pixels (around the glyphs) over stretches of the line box
    ``width`` pixels wide (all its rows; all its pixels where none is bare), given to each of their
    pixels: the background a reader sees around a glyph, which a thin rule or grid line does not
    make."""
    out = np.empty_like(rgb)
    for x in range(0, rgb.shape[1], width):
        part, free = rgb[:, x : x + width], bare[:, x : x + width]
        pixels = part[free] if free.any() else part.reshape(-1, 3)
        out[:, x : x + width] = np.median(pixels, axis=0)
    return out


def _reference(cover: npt.NDArray[np.int16], strongest: int, width: int) -> Floats:
    """The coverage of a glyph pixel a glyph covers fully, per pixel: the node's strongest, except
    on the rows of a stretch of the line (``width`` pixels, the last stretch merged with the one
    before) whose strongest glyph pixel, with the rows right above and below (a glyph's top and
    bottom edge are drawn partly covered), is much weaker: something translucent lies over that
    part of the glyphs, and a full glyph pixel there is as weak as that row's strongest. Glyph
    edges drawn partly covered vary from stem to stem, a veil over a part of the line does not."""
    total = cover.shape[1]
    ref = np.full(cover.shape, float(strongest))
    starts = list(range(0, total, width))
    if len(starts) > 1 and total - starts[-1] < width // 2:
        starts.pop()
    for number, x in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else total
        rows = cover[:, x:end].max(axis=1).astype(np.float64)
        near = rows.copy()
        near[1:] = np.maximum(near[1:], rows[:-1])
        near[:-1] = np.maximum(near[:-1], rows[1:])
        veiled = (near < _VEILED * strongest) & (near >= _FAINT)
        ref[:, x:end] = np.where(veiled, near, float(strongest))[:, None]
    return ref


def measure_painted(stacks: list[Stack], node: dict[str, Any]) -> dict[str, Any]:
    """The contrast between a node's glyphs as painted and the background around them.

    The background is the median of the pixels no glyph covers within :data:`_REACH` pixels of
    one, over stretches of the line about two font sizes wide (ruled or gridded paper is the
    paper, not its lines). The colour of a glyph pixel as painted is unmixed from the page's
    capture and that background by the pixel's coverage (the difference between the black and
    the white fill, as a share of the node's strongest), for normal compositing, filters and
    blends alike, since each of them is applied to the pixel as a whole; a fully covered pixel
    is the page's own. Where something translucent covers only part of the glyphs (rows of the
    line whose glyphs are all much weaker than the node's strongest), a glyph pixel's coverage
    is taken as a share of its row's strongest (:func:`_reference`): the veiled glyphs are
    measured as a reader sees them, and the median decides whether most of the text reads.
    """
    if node.get("unmeasurable"):
        return {"unmeasurable": node["unmeasurable"]}
    if not stacks:
        return {"unmeasurable": "the text is not inside the captured area", "missed": True}
    coverage = [np.abs(s[2].astype(np.int16) - s[1].astype(np.int16)).max(axis=-1) for s in stacks]
    strongest = max(int(c.max()) for c in coverage)
    if strongest < _INVISIBLE:
        return {"unmeasurable": "no glyph of the text is painted where it lies (covered, or not painted)"}
    stretch = max(8, math.ceil(float(node.get("font_size") or 16) * 2))
    shares = [c / _reference(c, strongest, 2 * stretch) for c in coverage]
    threshold = _FULL if sum(int((s >= _FULL).sum()) for s in shares) >= _ENOUGH else _CORE
    ratios: list[Floats] = []
    backgrounds: list[Stack] = []
    cores = outside = drift = 0
    for stack, cover, share in zip(stacks, coverage, shares, strict=True):
        page, black = stack[0].astype(np.float64), stack[1].astype(np.float64)
        empty = cover == 0
        outside += int(empty.sum())
        # No glyph there: the page's capture and the filled ones show the same background.
        drift += int((np.abs(page - black).max(axis=-1)[empty] > 8).sum())
        core = share >= threshold
        count = int(core.sum())
        if count == 0:
            continue
        cores += count
        a = share[core][:, None]
        bare = _local_median(black, _ring(~empty, _REACH), stretch)[core]
        painted = np.clip(np.rint(bare + (page[core] - bare) / a), 0, 255).astype(np.uint8)
        background = np.clip(np.rint(bare), 0, 255).astype(np.uint8)
        around = luminance(background)
        lum = luminance(painted)
        ratio = (np.maximum(lum, around) + 0.05) / (np.minimum(lum, around) + 0.05)
        ratios.append(ratio)
        backgrounds.append(background)
    if not ratios or cores < 4:
        return {"unmeasurable": "too few glyph pixels to measure"}
    every = np.concatenate(ratios)
    # The median glyph pixel: the text as most of it is painted (a glyph edge drawn a little
    # lighter or a rule crossing a stem moves single pixels, not the median).
    at = int(np.argsort(every)[len(every) // 2])
    worst = (float(every[at]), tuple(int(c) for c in np.concatenate(backgrounds)[at]))
    if outside and drift > _DRIFT * outside:
        return {"unmeasurable": "the page repainted around the text while it was measured", "repainted": True}
    return {"ratio": worst[0], "background": list(worst[1]), "glyph_pixels": cores, "glyph_cores": True}
