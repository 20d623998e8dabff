"""Colour contrast as a person sees it: a second opinion from the rendered pixels.

axe-core decides ``color-contrast`` from CSS, and two of its blind spots decide most verdicts on
real model output: it fails light text on a dark ``body`` gradient below the first screen
(it assumes white behind it) and it answers "can't tell" for text over gradients, images,
overlays and pseudo-elements, which never fails a sample. This module measures only those nodes,
on a screenshot, and records both answers; :mod:`lm_eval_a11y.scoring` counts the decided one.

The page cannot notice the measurement: the probe only reads styles and layout, the screenshot
is taken through CDP and decoded in our isolated world into an OffscreenCanvas (no DOM, no style
sheet, no request). Text below the first screen is scrolled to, instantly, as a reader scrolls
to it; the page sees that scroll and nothing else. A page that styles a dark scheme is audited
again under ``prefers-color-scheme: dark``. Either of these marks the page as acted on, so the
case's checks start from a fresh load. See docs/contrast.md.
"""

from __future__ import annotations

import base64
import contextlib
import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.tab import Tab
from lm_eval_a11y.observation import ContrastAudit, ContrastNode

__all__ = [
    "LARGE_RATIO",
    "NORMAL_RATIO",
    "audit_contrast",
    "decide",
    "measure_selectors",
    "measure_text",
    "needs_audit",
    "required_ratio",
]

NORMAL_RATIO = 4.5
LARGE_RATIO = 3.0
# Nodes measured per scheme; axe's answer stands for the rest (counted in the audit).
MAX_NODES = 300
# Screens scrolled to per scheme: each costs a scroll, a frame, a capture and a measurement.
MAX_SCREENS = 12
# Room kept above text scrolled to, so that a sticky header of a usual size does not cover it.
_SCROLL_MARGIN = 96
_RULE = "color-contrast"
# The dark scheme's axe run: the contrast rule only (the other rules do not depend on colours).
_DARK_AXE_OPTIONS = {"runOnly": {"type": "rule", "values": [_RULE]}, "resultTypes": ["violations", "incomplete"]}


def required_ratio(large: bool) -> float:
    """WCAG 1.4.3: 4.5:1, or 3:1 for large text (24 px, or 18.66 px = 14 pt bold)."""
    return LARGE_RATIO if large else NORMAL_RATIO


def decide(axe: str, pixel: str) -> tuple[str, str]:
    """The outcome that counts, and who gave it: the pixels whenever they could measure;
    otherwise axe's own answer (a failure stays a failure, "can't tell" stays incomplete)."""
    if pixel in ("pass", "fail"):
        return pixel, "pixels"
    return ("fail" if axe == "violation" else "incomplete"), "axe"


def needs_audit(axe_result: dict[str, Any]) -> bool:
    """Whether an axe run's result asks for the pixel check: it failed or could not decide
    colour contrast somewhere, or the page styles a dark scheme (audited in both schemes)."""
    if axe_result.get("styles_dark_scheme"):
        return True
    return any(
        item.get("id") == _RULE for key in ("violations", "incomplete") for item in axe_result.get(key) or ()
    )


def _has_contrast_nodes(axe_result: dict[str, Any]) -> bool:
    return any(
        item.get("id") == _RULE for key in ("violations", "incomplete") for item in axe_result.get(key) or ()
    )


# WCAG 2.x relative luminance: the linear value of each 8-bit sRGB channel.
_LINEAR = np.array(
    [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in range(256)]
)
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
        return {"unmeasurable": "the text is not inside the captured area"}
    chosen, count, chosen_bg = (best, cores, best_bg) if cores >= 4 else (fallback, near, fallback_bg)
    if chosen is None or count < 4:
        return {"unmeasurable": "no glyph pixels of the text colour were found (covered, or not painted)"}
    if nearest_text > _ABSENT:
        # The text's colour (as composited) appears nowhere in its pixels: something translucent
        # lies over it (an overlay), and the computed colour is not what the reader sees.
        return {"unmeasurable": "the text colour does not appear in its pixels (something covers the text)"}
    return {"ratio": chosen[0], "background": list(chosen_bg), "glyph_pixels": count, "glyph_cores": cores >= 4}


@dataclass(frozen=True)
class _Screen:
    scroll: tuple[float, float] | None  # None: where the page is now
    indices: tuple[int, ...]


def _plan(listing: dict[str, Any], viewport: tuple[int, int]) -> tuple[list[_Screen], set[int]]:
    """Group the measurable nodes into screens: first those visible where the page is now (and
    fixed or sticky text, which moves with the viewport), then, top to bottom, one scroll per
    screen's worth of text. Returns the screens and the nodes left for lack of screens."""
    width, height = viewport
    sx, sy = (float(v) for v in listing["scroll"])
    doc_w, doc_h = (float(v) for v in listing["document"])
    here: list[int] = []
    below: list[tuple[float, float, float, float, int]] = []
    for node in listing["nodes"]:
        if node.get("unmeasurable") or not node.get("box"):
            continue
        box = node["box"]
        x, y, w, h = float(box["x"]), float(box["y"]), float(box["width"]), float(box["height"])
        if node.get("fixed") or (x >= sx and y >= sy and x + w <= sx + width and y + h <= sy + height):
            here.append(int(node["index"]))
        else:
            below.append((y, x, w, h, int(node["index"])))
    screens = [_Screen(None, tuple(here))] if here else []
    left_over: set[int] = set()
    current: tuple[float, float, list[int]] | None = None
    for y, x, w, h, index in sorted(below):
        if current is not None:
            top, left, members = current
            if y >= top and y + h <= top + height and x >= left and x + w <= left + width:
                members.append(index)
                continue
            screens.append(_Screen((left, top), tuple(members)))
            current = None
        if len(screens) >= MAX_SCREENS:
            left_over.add(index)
            continue
        top = min(max(y - _SCROLL_MARGIN, 0.0), max(doc_h - height, 0.0))
        left = 0.0 if x + w <= width else min(max(x - 16, 0.0), max(doc_w - width, 0.0))
        current = (top, left, [index])
    if current is not None:
        screens.append(_Screen((current[1], current[0]), tuple(current[2])))
    return screens, left_over


async def _measure(
    session: Session, tab: Tab, scheme: str, viewport: tuple[int, int], deadline: float = math.inf
) -> tuple[
    list[ContrastNode], int, int, int, bool
]:
    """Measure the colour-contrast nodes of the last axe run. Returns the nodes, axe's number of
    violations in this run, the violations and incompletes past :data:`MAX_NODES`, and whether
    the page was scrolled."""
    listing: dict[str, Any] = await session.probe("contrastNodes", MAX_NODES)
    nodes = listing["nodes"]
    screens, left_over = _plan(listing, viewport)
    late: set[int] = set()
    measured: dict[int, dict[str, Any]] = {}
    scrolled = False
    start = tuple(listing["scroll"])
    try:
        for number, screen in enumerate(screens):
            if time.perf_counter() > deadline:
                # Out of its share of the sample's time: the rest keeps axe's answer, and the
                # sample keeps the time to finish (a timeout would lose all of it).
                late.update(i for later in screens[number:] for i in later.indices)
                break
            if screen.scroll is None:
                clip = await session.probe("contrastClip", list(screen.indices))
            else:
                clip = await session.probe("contrastScrollTo", screen.scroll[0], screen.scroll[1], list(screen.indices))
                scrolled = True
            if not clip:
                continue
            png = await tab.capture_png(
                {
                    "x": clip["x"] + clip["sx"],
                    "y": clip["y"] + clip["sy"],
                    "width": clip["width"],
                    "height": clip["height"],
                }
            )
            shot = await session.probe("contrastPixels", png, clip, list(screen.indices))
            rgba = np.frombuffer(base64.b64decode(shot["rgba"]), dtype=np.uint8)
            for described in shot["nodes"]:
                crops = [
                    rgba[b["offset"] : b["offset"] + b["width"] * b["height"] * 4].reshape(b["height"], b["width"], 4)[
                        :, :, :3
                    ]
                    for b in described.get("boxes", ())
                ]
                measured[int(described["index"])] = measure_text(crops, described)
    finally:
        if scrolled:
            await session.probe("contrastScrollTo", start[0], start[1], None)
    out: list[ContrastNode] = []
    for node in nodes:
        index = int(node["index"])
        large = node.get("large")
        required = None if large is None else required_ratio(bool(large))
        result = measured.get(index, {})
        ratio = result.get("ratio")
        note = node.get("unmeasurable") or result.get("unmeasurable") or ""
        if index in left_over:
            note = f"beyond the {MAX_SCREENS} screens the pixel check scrolls to"
        elif index in late:
            note = "the pixel check ran out of its share of the sample's time"
        elif not note and ratio is None:
            note = "the text was not inside any capture"
        if ratio is not None and required is not None:
            pixel = "pass" if float(ratio) >= required else "fail"
            bg = result.get("background") or []
            note = f"worst background under the glyphs rgb({', '.join(str(c) for c in bg)})"
        else:
            pixel, ratio = "unmeasurable", None
        decided, decided_by = decide(node["kind"], pixel)
        out.append(
            ContrastNode(
                scheme=scheme,
                target=tuple(node["target"]),
                axe=node["kind"],
                axe_ratio=None if node.get("axe_ratio") is None else round(float(node["axe_ratio"]), 2),
                axe_reason=node.get("axe_reason"),
                required=required,
                pixel_ratio=None if ratio is None else round(float(ratio), 2),
                pixel=pixel,  # type: ignore[arg-type]
                decided=decided,  # type: ignore[arg-type]
                decided_by=decided_by,  # type: ignore[arg-type]
                note=note,
            )
        )
    total = int(listing["total"])
    kinds_measured = [n["kind"] for n in nodes]
    violations_measured = kinds_measured.count("violation")
    # axe lists violations before incompletes, so the nodes past the limit are incompletes
    # unless the violations alone exceed it.
    extra = max(total - len(nodes), 0)
    violations_total = await session.probe("contrastViolationCount") if extra else violations_measured
    extra_violations = max(int(violations_total) - violations_measured, 0)
    return out, int(violations_total), extra_violations, extra - extra_violations, scrolled


async def audit_contrast(
    session: Session, tab: Tab, axe_result: dict[str, Any], viewport: tuple[int, int], budget_s: float = math.inf
) -> tuple[ContrastAudit | None, float]:
    """The pixel check of one sample, after its initial axe run (``axe_result``), taking at most
    about ``budget_s`` seconds (screens not reached by then keep axe's answer).

    Returns the audit (None when axe reported no colour-contrast node and the page styles no
    dark scheme: such a page pays nothing) and the milliseconds it took.
    """
    if not needs_audit(axe_result):
        return None, 0.0
    started = time.perf_counter()
    deadline = started + budget_s
    dark = bool(axe_result.get("styles_dark_scheme"))
    nodes: list[ContrastNode] = []
    counts: list[tuple[str, int]] = []
    extra_v = extra_i = 0
    acted = False
    error: str | None = None
    try:
        if _has_contrast_nodes(axe_result):
            found, violations, more_v, more_i, scrolled = await _measure(session, tab, "light", viewport, deadline)
            nodes += found
            counts.append(("light", violations))
            extra_v, extra_i, acted = extra_v + more_v, extra_i + more_i, acted or scrolled
        if dark:
            acted = True
            try:
                await tab.page.emulate_media(color_scheme="dark")
                await session.probe("settle", 0)
                dark_result = await session.probe("runAxe", _DARK_AXE_OPTIONS)
                if _has_contrast_nodes(dark_result):
                    found, violations, more_v, more_i, _ = await _measure(session, tab, "dark", viewport, deadline)
                    nodes += found
                    counts.append(("dark", violations))
                    extra_v, extra_i = extra_v + more_v, extra_i + more_i
            finally:
                with contextlib.suppress(Exception):  # a crashed page is reported by the caller
                    await tab.page.emulate_media(color_scheme="light")
    except Exception as err:
        if session.crashed.is_set():
            raise
        # A page the pixel check could not handle keeps axe's answers; the reason is recorded.
        error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        nodes, counts, extra_v, extra_i = [], [], 0, 0
    finally:
        if acted:
            # Scrolled or switched scheme: the case's checks get the page as first rendered.
            session._touch()
    audit = ContrastAudit(
        schemes=("light", "dark") if dark else ("light",),
        nodes=tuple(nodes),
        axe_violations=tuple(counts),
        unmeasured_violations=extra_v,
        unmeasured_incomplete=extra_i,
        styles_dark_scheme=dark,
        error=error,
    )
    return audit, (time.perf_counter() - started) * 1000


async def measure_selectors(
    session: Session, tab: Tab, selectors: list[str], scheme: str = "light"
) -> list[ContrastNode]:
    """Measure the text of chosen elements (the first match of each selector) in a colour
    scheme, whatever axe said of them: how the golden pages prove the measurement against a
    hand calculation. Each node is reported as if axe could not tell."""
    viewport = session._settings.viewport
    try:
        if scheme != "light":
            await tab.page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
            await session.probe("settle", 0)
        await session.probe("contrastChoose", selectors)
        nodes, *_ = await _measure(session, tab, scheme, viewport)
    finally:
        if scheme != "light":
            await tab.page.emulate_media(color_scheme="light")
        session._touch()
    return nodes
