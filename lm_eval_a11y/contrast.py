"""Colour contrast as WCAG 1.4.3 defines it, measured on rendered pixels: the ratio a text needs,
the luminance of pixels, the text's ratio read from its glyphs and their background, and which of
axe's answer and the pixels' counts. Pure: no browser, no I/O; the audit that takes the pixels in
the browser is :mod:`lm_eval_a11y.engine.contrast`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

__all__ = [
    "CONTRAST_RULE",
    "LARGE_RATIO",
    "NORMAL_RATIO",
    "decide",
    "has_contrast_nodes",
    "incomplete_nodes",
    "luminance",
    "measure_text",
    "needs_audit",
    "required_ratio",
]

NORMAL_RATIO = 4.5
LARGE_RATIO = 3.0
CONTRAST_RULE = "color-contrast"


def required_ratio(large: bool) -> float:
    """WCAG 1.4.3: 4.5:1, or 3:1 for large text (24 px, or 18.66 px = 14 pt bold)."""
    return LARGE_RATIO if large else NORMAL_RATIO


def decide(axe: str, pixel: str) -> tuple[str, str]:
    """The outcome that counts, and who gave it: the pixels whenever they could measure;
    otherwise axe's own answer (a failure stays a failure, "can't tell" stays incomplete)."""
    if pixel in ("pass", "fail"):
        return pixel, "pixels"
    if axe == "pass":
        return "pass", "axe"
    return ("fail" if axe == "violation" else "incomplete"), "axe"


def needs_audit(axe_result: dict[str, Any]) -> bool:
    """Whether an axe run's result asks for the pixel check: it failed or could not decide
    colour contrast somewhere, or the page styles a dark scheme (audited in both schemes)."""
    if axe_result.get("styles_dark_scheme"):
        return True
    return any(
        item.get("id") == CONTRAST_RULE for key in ("violations", "incomplete") for item in axe_result.get(key) or ()
    )


def has_contrast_nodes(axe_result: dict[str, Any]) -> bool:
    return any(
        item.get("id") == CONTRAST_RULE for key in ("violations", "incomplete") for item in axe_result.get(key) or ()
    )


def incomplete_nodes(axe_result: dict[str, Any]) -> int:
    """The nodes axe's colour-contrast rule could not tell on in an axe run's result."""
    return sum(
        int(item.get("node_count") or len(item.get("nodes") or ()))
        for item in axe_result.get("incomplete") or ()
        if item.get("id") == CONTRAST_RULE
    )


# WCAG 2.x relative luminance: the linear value of each 8-bit sRGB channel.
_LINEAR = np.array([c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in range(256)])
# A pixel this close to the text colour (as a contrast ratio) is part of a glyph's core.
_CORE = 1.1
# Without cores (glyphs too thin to have one), a pixel this far below its window's maximum is
# glyph (anti-aliased towards the text colour).
_BELOW_WINDOW = 0.85
# Text whose colour appears nowhere in its pixels (nearest above this ratio) is covered.
_ABSENT = 1.5

Pixels = npt.NDArray[np.uint8]


def luminance(rgb: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """Relative luminance of 8-bit sRGB pixels (last axis: r, g, b)."""
    lum: npt.NDArray[np.float64] = (
        0.2126 * _LINEAR[rgb[..., 0]] + 0.7152 * _LINEAR[rgb[..., 1]] + 0.0722 * _LINEAR[rgb[..., 2]]
    )
    return lum


def _ratio(a: npt.NDArray[np.float64] | float, b: npt.NDArray[np.float64] | float) -> npt.NDArray[np.float64]:
    out: npt.NDArray[np.float64] = (np.maximum(a, b) + 0.05) / (np.minimum(a, b) + 0.05)
    return out


Floats = npt.NDArray[np.float64]
Indices = npt.NDArray[np.intp]


def _window_max(s: Floats, radius: int) -> Floats:
    """Maximum of ``s`` over the (2r+1)-square window around each pixel."""
    size = 2 * radius + 1
    rows = np.pad(s, ((0, 0), (radius, radius)), constant_values=-np.inf)
    across: Floats = sliding_window_view(rows, size, axis=1).max(axis=-1)
    cols = np.pad(across, ((radius, radius), (0, 0)), constant_values=-np.inf)
    out: Floats = sliding_window_view(cols, size, axis=0).max(axis=-1)
    return out


def _window_argmax(s: Floats, radius: int) -> tuple[Indices, Indices]:
    """Where each pixel's window maximum is (row, column), for translucent text, whose colour
    as seen depends on the background under each glyph pixel."""
    h, w = s.shape
    ys, xs = np.indices((h, w))
    best, arg_x = s.copy(), xs.copy()
    padded = np.pad(s, ((0, 0), (radius, radius)), constant_values=-np.inf)
    for dx in range(-radius, radius + 1):
        shifted = padded[:, radius + dx : radius + dx + w]
        better = shifted > best
        best = np.where(better, shifted, best)
        arg_x = np.where(better, xs + dx, arg_x)
    row_best, row_arg = best, arg_x
    best, arg_y, arg_x = row_best.copy(), ys.copy(), row_arg.copy()
    padded = np.pad(row_best, ((radius, radius), (0, 0)), constant_values=-np.inf)
    padded_arg = np.pad(row_arg, ((radius, radius), (0, 0)))
    for dy in range(-radius, radius + 1):
        shifted = padded[radius + dy : radius + dy + h, :]
        better = shifted > best
        best = np.where(better, shifted, best)
        arg_y = np.where(better, ys + dy, arg_y)
        arg_x = np.where(better, padded_arg[radius + dy : radius + dy + h, :], arg_x)
    return arg_y, arg_x


def _background_at(rgb: Pixels, s: Floats, y: int, x: int, radius: int) -> tuple[int, ...]:
    """The background pixel of one glyph pixel: the maximum of its window."""
    y0, x0 = max(y - radius, 0), max(x - radius, 0)
    window = s[y0 : y + radius + 1, x0 : x + radius + 1]
    wy, wx = np.unravel_index(int(np.argmax(window)), window.shape)
    return tuple(int(c) for c in rgb[y0 + wy, x0 + wx])


def measure_text(crops: list[Pixels], node: dict[str, Any]) -> dict[str, Any]:
    """The worst contrast between a node's text and the background under its glyphs.

    In each line box of the text, s(p) is the contrast of pixel p with the text colour. Around
    every pixel a window about a stroke wide holds some background even in the middle of a stem,
    and the background pixel is the one that stands out most from the text: for each glyph pixel
    that maximum is the background under it. Glyph pixels are those of the text's colour as the
    reader sees it (translucent text composited over that background); for glyphs too thin to
    have such a core, every pixel clearly nearer the text than its window's maximum. The node's
    ratio is the worst over all its glyph pixels. A dark halo (text-shadow) around light text is
    part of what the reader sees behind the glyphs, and counts so.
    """
    if node.get("unmeasurable"):
        return {"unmeasurable": node["unmeasurable"]}
    text = np.array(node["colour"], dtype=np.float64)
    alpha = float(node["alpha"])
    text_lum = float(luminance(np.array(node["colour"], dtype=np.uint8)))
    radius = math.ceil(float(node["font_size"]) * 0.12) + 2
    best: tuple[float, tuple[int, int, int]] | None = None
    fallback: tuple[float, tuple[int, int, int]] | None = None
    best_bg: tuple[int, ...] = ()
    fallback_bg: tuple[int, ...] = ()
    cores = near = area = 0
    nearest_text = math.inf
    for number, rgb in enumerate(crops):
        area += rgb.shape[0] * rgb.shape[1]
        lum = luminance(rgb)
        s = _ratio(lum, text_lum)
        window = _window_max(s, radius)
        if alpha < 1:
            # Translucent text as the browser composites it over the background under each
            # glyph pixel (8-bit sRGB).
            arg_y, arg_x = _window_argmax(s, radius)
            bg = rgb[arg_y, arg_x]
            seen = np.rint(alpha * text + (1 - alpha) * bg.astype(np.float64)).astype(np.uint8)
            seen_lum = luminance(seen)
            like_text = _ratio(lum, seen_lum)
            ratio = _ratio(seen_lum, luminance(bg))
        else:
            like_text, ratio = s, window
        nearest_text = min(nearest_text, float(like_text.min()))
        for mask, kind in ((like_text < _CORE, "core"), ((s < _BELOW_WINDOW * window) | (s < _CORE), "near")):
            count = int(mask.sum())
            if count == 0:
                continue
            flat = np.where(mask, ratio, np.inf)
            at_y, at_x = (int(i) for i in np.unravel_index(int(np.argmin(flat)), flat.shape))
            found = (float(flat[at_y, at_x]), (at_y, at_x, number))
            if kind == "core":
                cores += count
                best = found if best is None or found[0] < best[0] else best
            else:
                near += count
                fallback = found if fallback is None or found[0] < fallback[0] else fallback
        if best is not None and best[1][2] == number:
            best_bg = _background_at(rgb, s, best[1][0], best[1][1], radius)
        if fallback is not None and fallback[1][2] == number:
            fallback_bg = _background_at(rgb, s, fallback[1][0], fallback[1][1], radius)
    if area == 0:
        return {"unmeasurable": "the text is not inside the captured area", "missed": True}
    chosen, count, chosen_bg = (best, cores, best_bg) if cores >= 4 else (fallback, near, fallback_bg)
    if chosen is None or count < 4:
        return {"unmeasurable": "no glyph pixels of the text colour were found (covered, or not painted)"}
    if nearest_text > _ABSENT:
        # The text's colour (as composited) appears nowhere in its pixels: something translucent
        # lies over it (an overlay), and the computed colour is not what the reader sees.
        return {"unmeasurable": "the text colour does not appear in its pixels (something covers the text)"}
    return {"ratio": chosen[0], "background": list(chosen_bg), "glyph_pixels": count, "glyph_cores": cores >= 4}
