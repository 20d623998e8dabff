"""Colour contrast as a person sees it: a second opinion from the rendered pixels.

axe-core decides ``color-contrast`` from CSS, and two of its blind spots decide most verdicts on
real model output: it fails light text on a dark ``body`` gradient below the first screen
(it assumes white behind it) and it answers "can't tell" for text over gradients, images,
overlays and pseudo-elements, which never fails a sample. This module measures those nodes, and a
sweep of the text axe passed or never listed, on screenshots with the glyphs isolated
(engine/paint.py), and records both answers; :mod:`lm_eval_a11y.scoring` counts the decided one.

The page can hardly notice the measurement: the probe only reads styles and layout, the screenshot
is taken through CDP (the glyph isolation's inspector style sheet is the one exception, see
docs/contrast.md) and decoded in our isolated world into an OffscreenCanvas (no DOM, no style
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

from lm_eval_a11y.contrast import (
    CONTRAST_RULE,
    decide,
    has_contrast_nodes,
    incomplete_nodes,
    measure_text,
    needs_audit,
    required_ratio,
)
from lm_eval_a11y.engine.paint import isolated_captures, release, style_sheet
from lm_eval_a11y.engine.recall import Recall
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.tab import MAX_EVENTS, Tab
from lm_eval_a11y.observation import ContrastAudit, ContrastNode
from lm_eval_a11y.painted import measure_painted

__all__ = ["MAX_NODES", "MAX_SCREENS", "audit_contrast", "measure_last_run", "measure_selectors"]

# axe's nodes measured per scheme (chosen at random when there are more); axe's answer stands for
# the rest (counted in the audit), and a "can't tell" among them leaves the sample undecided.
MAX_NODES = 300
# Screens scrolled to per scheme: each costs a scroll, a frame, a capture and a measurement.
MAX_SCREENS = 12
# Text axe passed or did not list, measured per scheme: all of it (to SWEEP_NODES elements) in the
# first SWEEP_SCREENS screens of the document, and a random sample of SWEEP_BEYOND elements below.
SWEEP_NODES = 400
SWEEP_SCREENS = 2
SWEEP_BEYOND = 3
# Measure text with its glyphs isolated (engine/paint.py); off, the text's own colour is measured.
ISOLATE_GLYPHS = True
# Room kept above text scrolled to, so that a sticky header of a usual size does not cover it.
_SCROLL_MARGIN = 96
# The dark scheme's axe run: the contrast rule only (the other rules do not depend on colours).
_DARK_AXE_OPTIONS = {
    "runOnly": {"type": "rule", "values": [CONTRAST_RULE]},
    "resultTypes": ["violations", "incomplete"],
}


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


def _with_isolation(own: dict[str, Any], painted: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """One node's measurement from both methods. The text's own colour against the window
    around each glyph (contrast.measure_text) is the more exact where it can measure; the glyphs
    isolated (painted.measure_painted) measure what it cannot (blended, filtered or covered text,
    a colour that appears nowhere in the pixels), and overrule a pass of its own when they find
    the painted text failing (a dark rule beside pale glyphs is not their background)."""
    if painted.get("ratio") is None:
        if own.get("ratio") is None and painted.get("repainted"):
            return painted  # neither measured, and the page moved while it was captured
        return own if own.get("ratio") is not None or not node.get("blended") else painted
    if own.get("ratio") is None or node.get("blended") or node.get("covered"):
        return painted
    required = required_ratio(bool(node.get("large")))
    if float(own["ratio"]) >= required > float(painted["ratio"]):
        return painted
    return own


def _fallback_only(result: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Text over an image that never loaded here (a blocked request) is painted on the colour
    under the image: that can fail it (a reader without the image sees exactly that), but a
    pass there says nothing of the text over the image a reader's browser loads."""
    if not node.get("missing_image") or result.get("ratio") is None:
        return result
    if float(result["ratio"]) < required_ratio(bool(node.get("large"))):
        return {**result, "fallback": True}
    return {"unmeasurable": "the text lies over an image that did not load here (a blocked request)"}


def _over_text(result: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """Text drawn over or under another element's text (the probe's ``over_text``) is isolated
    together with it, and the window around its glyphs finds the other text's pixels: the two
    cannot be told apart on the pixels. A failure as painted stands (a reader sees the smear);
    a pass says nothing of the text itself, and leaves it undecided."""
    if not node.get("over_text") or result.get("ratio") is None:
        return result
    if float(result["ratio"]) < required_ratio(bool(node.get("large"))):
        return result
    return {"unmeasurable": "the text is drawn over or under another element's text", "over_text": True}


def _unpack(shot: dict[str, Any]) -> dict[int, tuple[dict[str, Any], list[npt.NDArray[np.uint8]]]]:
    """contrastPixels' answer: each node's description and, per line box, its crops stacked
    (page, then the isolated captures), RGB."""
    rgba = np.frombuffer(base64.b64decode(shot["rgba"]), dtype=np.uint8)
    out: dict[int, tuple[dict[str, Any], list[npt.NDArray[np.uint8]]]] = {}
    for described in shot["nodes"]:
        stacks = [
            rgba[b["offset"] : b["offset"] + b["images"] * b["width"] * b["height"] * 4].reshape(
                b["images"], b["height"], b["width"], 4
            )[..., :3]
            for b in described.get("boxes", ())
        ]
        out[int(described["index"])] = (described, stacks)
    return out


def _lost_while_captured(listed: dict[str, Any], described: dict[str, Any]) -> dict[str, Any] | None:
    """Text that could be measured when the check listed it and cannot once its screen was
    captured (hidden, moved away, removed): the page changed it under the measurement, as a page
    that sees the glyph isolation can (docs/contrast.md). Not audited, unlike text that cannot be
    measured all along (clipped, transparent)."""
    if not described.get("unmeasurable") or listed.get("unmeasurable"):
        return None
    return {"unmeasurable": f"{described['unmeasurable']}, once it was captured", "missed": True}


def _recalled(
    recall: Recall,
    by_index: dict[int, dict[str, Any]],
    shot: dict[int, tuple[dict[str, Any], list[npt.NDArray[np.uint8]]]],
) -> dict[int, dict[str, Any]] | None:
    """The kept measurements of every node of a screen (engine/recall.py), or None when one of
    them is painted otherwise than when it was measured, or was never measured."""
    found: dict[int, dict[str, Any]] = {}
    for index, (described, stacks) in shot.items():
        if described.get("unmeasurable"):
            found[index] = _lost_while_captured(by_index[index], described) or {
                "unmeasurable": described["unmeasurable"]
            }
            continue
        kept = recall.recall(by_index[index], described, [s[0] for s in stacks])
        if kept is None:
            return None
        found[index] = kept
    return found


async def _measure(
    session: Session,
    tab: Tab,
    scheme: str,
    viewport: tuple[int, int],
    deadline: float = math.inf,
    *,
    sweep: bool = False,
) -> tuple[list[ContrastNode], int, int, int, int, bool]:
    """Measure the colour-contrast nodes of the last axe run. Returns the nodes, axe's number of
    violations in this run, the violations and incompletes past :data:`MAX_NODES` (a random
    choice of axe's nodes is measured when there are more), axe's incompletes the check did not
    reach (past that limit, its screens or its time: not audited), and whether the page was
    scrolled."""
    # Text that is fading or sliding in is measured as a person reads it, once its animation has
    # ended: axe may have run mid-way (a message a timer shows while a state is being audited).
    await session.probe("settle", 0)
    # Images the page asked for and never got: the pixels of text over them can only fail it.
    blocked = list(tab.events.blocked_requests)
    if blocked:
        await session.probe("contrastBlocked", blocked, len(blocked) >= MAX_EVENTS)
    if sweep:
        await session.probe("contrastSweep", SWEEP_NODES, SWEEP_SCREENS, SWEEP_BEYOND)
    listing: dict[str, Any] = await session.probe("contrastNodes", MAX_NODES)
    nodes = listing["nodes"]
    kinds = {int(n["index"]): str(n["kind"]) for n in nodes}
    by_index = {int(n["index"]): n for n in nodes}
    recall = Recall(session, scheme)
    screens, left_over = _plan(listing, viewport)
    late: set[int] = set()
    measured: dict[int, dict[str, Any]] = {}
    scrolled = False
    isolate = ISOLATE_GLYPHS
    sheet: str | None = None  # the inspector style sheet of the glyph isolation, made once
    start = tuple(listing["scroll"])
    try:
        last_screen = 0.0  # what the last screen took: the next is not begun past the deadline
        for number, screen in enumerate(screens):
            began = time.perf_counter()
            if time.perf_counter() + last_screen > deadline:
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
            page_clip = {
                "x": clip["x"] + clip["sx"],
                "y": clip["y"] + clip["sy"],
                "width": clip["width"],
                "height": clip["height"],
            }
            page_png = await tab.capture_png(page_clip)
            if (
                isolate
                and recall
                and all(recall.knows(by_index[i]) for i in screen.indices if not by_index[i].get("unmeasurable"))
            ):
                # Text painted exactly as when it was last measured keeps that measurement.
                shot = await session.probe("contrastPixels", [page_png], clip, list(screen.indices), True)
                found = _recalled(recall, by_index, _unpack(shot))
                if found is not None:
                    measured.update(found)
                    last_screen = time.perf_counter() - began
                    continue
            pngs = [page_png]
            if isolate:
                try:
                    if sheet is None:
                        sheet = await style_sheet(tab)
                    pngs += await isolated_captures(tab, sheet, page_clip)
                except Exception:
                    if session.crashed.is_set():
                        raise
                    # No inspector style sheet here: the text's own colour is measured.
                    isolate = False
            shot = await session.probe("contrastPixels", pngs, clip, list(screen.indices))
            for index, (described, stacks) in _unpack(shot).items():
                if len(pngs) > 1 and kinds[index] == "pass":
                    # Text axe passed or did not list: only its glyphs as painted can fail it.
                    own = measure_painted(stacks, described)
                elif len(pngs) > 1:
                    own = measure_text([s[0] for s in stacks], described)
                    own = _with_isolation(own, measure_painted(stacks, described), described)
                else:
                    own = measure_text([s[0] for s in stacks], described)
                own = _over_text(_fallback_only(own, described), described)
                if described.get("missed"):
                    own = {**own, "missed": True}
                if len(pngs) > 1:
                    # (Without the isolation, blended and covered text is unmeasurable by design.)
                    own = _lost_while_captured(by_index[index], described) or own
                measured[index] = own
                if len(pngs) > 1 and not described.get("unmeasurable"):
                    recall.keep(by_index[index], described, [s[0] for s in stacks], own)
            last_screen = time.perf_counter() - began
    finally:
        if scrolled:
            await session.probe("contrastScrollTo", start[0], start[1], None)
        if sheet is not None:
            with contextlib.suppress(Exception):  # a crashed page is reported by the caller
                await release(tab)
    out: list[ContrastNode] = []
    missed = 0  # axe's "can't tell" nodes the measurement failed on (below): not audited
    for node in nodes:
        index = int(node["index"])
        large = node.get("large")
        required = None if large is None else required_ratio(bool(large))
        result = measured.get(index, {})
        ratio = result.get("ratio")
        note = node.get("unmeasurable") or result.get("unmeasurable") or ""
        lost = bool(node.get("missed") or result.get("missed"))
        if index in left_over:
            note = f"beyond the {MAX_SCREENS} screens the pixel check scrolls to"
        elif index in late:
            note = "the pixel check ran out of its share of the sample's time"
        elif not note and ratio is None:
            note, lost = "the text was not inside any capture", True
        if ratio is not None and required is not None:
            pixel = "pass" if float(ratio) >= required else "fail"
            bg = result.get("background") or []
            note = f"worst background under the glyphs rgb({', '.join(str(c) for c in bg)})"
            if result.get("fallback"):
                note += ", the colour under an image that did not load here (a blocked request)"
        else:
            pixel, ratio = "unmeasurable", None
            # The measurement failed on the text rather than finding why it cannot be seen: a
            # page that moves while it is captured (an endless animation, a timer, a reply to the
            # glyph isolation), whose text left the document after axe saw it (replaced on a
            # timer) or was not where it was captured could keep pale text from ever being
            # measured. axe's "can't tell" there is not audited.
            missed += bool(result.get("repainted") or lost) and node["kind"] == "incomplete"
        decided, decided_by = decide(node["kind"], pixel)
        if result.get("over_text") and node["kind"] != "violation":
            # Text drawn over other text that the pixels could not fail: undecided, not audited
            # (axe's pass of swept text is not what a reader sees either).
            missed += 1
            decided, decided_by = "incomplete", "pixels"
        if node["kind"] == "pass" and decided == "pass":
            continue  # swept text that holds: not worth a record
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
    extra_violations = int(listing["left_violations"])
    extra_incomplete = int(listing["left_incomplete"])
    unreached = (
        extra_incomplete
        + missed
        + sum(1 for node in nodes if node["kind"] == "incomplete" and int(node["index"]) in left_over | late)
    )
    return out, int(listing["violations"]), extra_violations, extra_incomplete, unreached, scrolled


async def audit_contrast(
    session: Session,
    tab: Tab,
    axe_result: dict[str, Any],
    viewport: tuple[int, int],
    budget_s: float = math.inf,
    *,
    dark_scheme: bool = True,
) -> tuple[ContrastAudit | None, float]:
    """The pixel check of one sample, after its initial axe run (``axe_result``), taking at most
    about ``budget_s`` seconds (screens not reached by then keep axe's answer).

    The first audit (``dark_scheme=True``) also sweeps the text axe passed or did not list: every
    page pays for the walk of its elements, and only text that is not plain (its painting is not
    what axe read from the CSS) for captures. Returns the audit (None when nothing was measured: a state whose axe
    run reported no colour-contrast node, or the glyph isolation switched off and no node and no
    dark scheme) and the milliseconds it took. ``dark_scheme=False``
    audits the light scheme only (a state a check's action showed, engine/states.py: switching
    the scheme mid-check could change what the check reads next).
    """
    dark = dark_scheme and bool(axe_result.get("styles_dark_scheme"))
    # Every text is swept once per sample, in its first audit (not again in each state a check shows).
    sweep = dark_scheme and ISOLATE_GLYPHS and SWEEP_NODES > 0
    if not sweep and not (needs_audit(axe_result) if dark_scheme else has_contrast_nodes(axe_result)):
        return None, 0.0
    started = time.perf_counter()
    deadline = started + budget_s
    nodes: list[ContrastNode] = []
    counts: list[tuple[str, int]] = []
    extra_v = extra_i = unreached = 0
    acted = False
    error: str | None = None
    try:
        if sweep or has_contrast_nodes(axe_result):
            found, violations, more_v, more_i, left, scrolled = await _measure(
                session, tab, "light", viewport, deadline, sweep=sweep
            )
            nodes += found
            counts.append(("light", violations))
            extra_v, extra_i, acted = extra_v + more_v, extra_i + more_i, acted or scrolled
            unreached += left
        if dark:
            acted = True
            try:
                await tab.page.emulate_media(color_scheme="dark")
                await session.probe("settle", 0)
                dark_result = await session.probe("runAxe", _DARK_AXE_OPTIONS)
                if sweep or has_contrast_nodes(dark_result):
                    found, violations, more_v, more_i, left, _ = await _measure(
                        session, tab, "dark", viewport, deadline, sweep=sweep
                    )
                    nodes += found
                    counts.append(("dark", violations))
                    extra_v, extra_i, unreached = extra_v + more_v, extra_i + more_i, unreached + left
            finally:
                with contextlib.suppress(Exception):  # a crashed page is reported by the caller
                    await tab.page.emulate_media(color_scheme="light")
    except Exception as err:
        if session.crashed.is_set():
            raise
        # A page the pixel check could not handle keeps axe's answers, the reason recorded: its
        # failures fail, and its "can't tell" nodes were not measured, so they are not audited
        # (a capture that throws must not let pale text pass as undecided).
        error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        nodes, counts, extra_v, extra_i = [], [], 0, 0
        unreached = incomplete_nodes(axe_result)
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
        unaudited_incomplete=unreached,
        styles_dark_scheme=dark,
        error=error,
    )
    return audit, (time.perf_counter() - started) * 1000


async def measure_last_run(
    session: Session, tab: Tab, scheme: str, viewport: tuple[int, int], deadline: float = math.inf
) -> tuple[list[ContrastNode], int, int, int, int, bool]:
    """Measure the colour-contrast nodes of the last axe run as nodes of ``scheme``, in the
    ``viewport`` the page is laid out in now, until ``deadline`` (time.perf_counter): the nodes,
    axe's violations in that run, the violations and incompletes past :data:`MAX_NODES`, axe's
    incompletes not reached (not audited), and whether the page was scrolled. For the
    conditions of engine/conditions.py."""
    return await _measure(session, tab, scheme, viewport, deadline)


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
