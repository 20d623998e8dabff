"""Glyphs isolated from what is painted around them, through CDP only.

For each capture the pixel check of colour contrast (engine/contrast.py) takes two more of the
same clip with every text's fill overridden: black and white (where the two differ is where glyphs
cover the pixel, and by how much; where they do not, the pixel is background as painted).
The override is an inspector style sheet (CDP ``CSS.createStyleSheet``): it is not in
``document.styleSheets``, adds no element and no mutation, and is emptied again right after the
captures; one sheet serves every screen of a measurement. While it is in force a page reading
the computed ``-webkit-text-fill-color`` or ``fill`` of its text could see it (docs/contrast.md);
the measurement compares the captures, so a page that repaints anything but its glyphs in reply is
caught as changing under the measurement.
"""

from __future__ import annotations

from typing import Any

from lm_eval_a11y.engine.tab import Tab

__all__ = ["FILLS", "isolated_captures", "release", "style_sheet"]

# Every text a page can draw: elements, their pseudo-elements (generated content, first line and
# letter, placeholders, list markers) and SVG text. The selector's ten ids of a name no page uses
# outweigh any ordinary rule of the page's own.
_ANY = ":not(#_a11y_0#_a11y_1#_a11y_2#_a11y_3#_a11y_4#_a11y_5#_a11y_6#_a11y_7#_a11y_8#_a11y_9)"
_TEXT = ", ".join(
    f"{_ANY}{pseudo}" for pseudo in ("", "::before", "::after", "::first-line", "::first-letter", "::placeholder")
)
_SVG_TEXT = ", ".join(f"{tag}{_ANY}" for tag in ("text", "tspan", "textPath"))
# The fills, in the order of the captures they give.
FILLS = ("#000", "#fff")


def _sheet(fill: str) -> str:
    return (
        f"{_TEXT} {{ -webkit-text-fill-color: {fill} !important; transition: none !important; }}\n"
        f"{_SVG_TEXT} {{ fill: {fill} !important; transition: none !important; }}\n"
    )


async def style_sheet(tab: Tab) -> str:
    """An empty inspector style sheet in the tab's main frame, for :func:`isolated_captures`."""
    tree = await tab.send("Page.getFrameTree")
    await tab.send("DOM.enable")
    await tab.send("CSS.enable")
    made = await tab.send("CSS.createStyleSheet", {"frameId": tree["frameTree"]["frame"]["id"]})
    return str(made["styleSheetId"])


async def isolated_captures(tab: Tab, sheet: str, clip: dict[str, Any]) -> list[str]:
    """PNGs (base64) of ``clip`` (page coordinates) with every text filled with each of
    :data:`FILLS` in turn, through ``sheet`` (:func:`style_sheet`); the page is left as it was."""
    shots: list[str] = []
    try:
        for fill in FILLS:
            await tab.send("CSS.setStyleSheetText", {"styleSheetId": sheet, "text": _sheet(fill)})
            shots.append(await tab.capture_png(clip))
    finally:
        await tab.send("CSS.setStyleSheetText", {"styleSheetId": sheet, "text": ""})
    return shots


async def release(tab: Tab) -> None:
    """Switch off the CSS and DOM domains :func:`style_sheet` switched on: left on, they make the
    browser report every style sheet and node change of the page to us for as long as it lives."""
    await tab.send("CSS.disable")
    await tab.send("DOM.disable")
