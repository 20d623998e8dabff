"""Whether focus shows: the focused area captured through CDP, focused and unfocused, and compared
pixel by pixel in our isolated world."""

from __future__ import annotations

from lm_eval_a11y.engine.elements import Element
from lm_eval_a11y.engine.session_base import SETTLE_CAP_MS, SessionBase

__all__ = ["FocusRing"]

# A focus indicator is a change a person can see: at least this many pixels, each changed by at
# least this much in a colour channel (0-255; a ring one shade off the background is no indicator).
_VISIBLE_PIXELS = 8
_VISIBLE_CHANNEL_STEP = 24


class FocusRing(SessionBase):
    """The focus indicator of the element that has focus."""

    async def focus_indicator(self, ref: int, *, pad: int = 6) -> tuple[str, str]:
        """Whether focus shows on the focused element ``ref``: its area (and ``pad`` pixels around
        it, and its labels) is captured focused, then unfocused, and focus is put back.

        Answers ``("shown" | "not shown" | "restless" | "off screen", detail)``. ``restless``: the
        area changes by itself (the page changes the DOM over it or animates it within two frames
        of the unfocused capture, or a canvas, video or animated image there draws something else
        in a third capture), so a change on focus proves nothing (a page that flickers everywhere
        would otherwise pass). A change counts when a person could see it: at least
        ``_VISIBLE_PIXELS`` pixels changed by ``_VISIBLE_CHANNEL_STEP`` or more in a channel. In
        a text field only a change outside its content box counts (the caret blinks there). Captures go through CDP
        (:meth:`Tab.capture_png`): the page sees the blur and the focus, and nothing else: no
        style, no script of ours."""
        # A ring that the focus fades or grows in is looked at once it has (a transition, an
        # animation); a page that animates nothing on focus gets no wait.
        if await self.probe("animationTimeLeft", SETTLE_CAP_MS):
            await self.settle(0)
        clip = await self.probe("focusClip", ref, pad)
        if clip is None:
            return "off screen", "it is not on screen when focused"
        mask = clip.pop("mask")
        tab = self._tab
        focused = await tab.capture_png(clip)
        self._touch()
        await self.probe("blur")
        if await self.probe("animationTimeLeft", SETTLE_CAP_MS):
            await self.settle(0)  # and one that fades out, once it has
        unfocused = await tab.capture_png(clip)
        try:
            if focused == unfocused:
                return "not shown", "it looks the same focused and unfocused"
            changed = await self.probe("pixelsDiffer", focused, unfocused, mask, _VISIBLE_CHANNEL_STEP)
            if changed < _VISIBLE_PIXELS:
                where = " outside the caret" if mask is not None else ""
                return "not shown", f"what changes{where} when it is focused is too faint or too small to see"
            # A third capture only where the DOM cannot tell: the page's own changes and animations
            # over the area show in the probe; a canvas or a video does not.
            restless = await self.probe("restlessAround", clip)
            if restless == "changing" or (restless == "media" and await tab.capture_png(clip) != unfocused):
                return "restless", "its area keeps changing by itself, so a change on focus proves nothing"
            return "shown", "it changes visibly when focused"
        finally:
            await self.probe("focus", ref)

    async def has_visible_focus_indicator(self, element: Element) -> tuple[bool, str]:
        """Whether focus visibly shows on the element: its area captured focused and unfocused
        (:meth:`focus_indicator`).

        Focus must already be on the element (reach it with :meth:`press` so ``:focus-visible``
        applies). Any visible change counts: outline, ring, shadow, background, underline. The
        captures go through CDP and change nothing in the page: a screenshot through Playwright
        styles every text field's caret while it captures, and a page that drew its ring only
        then passed here although a person never sees one.
        """
        if not await self.is_active(element):
            return False, f"{element.describe()} is not focused"
        await self.probe("scrollIntoView", element.ref)
        state, detail = await self.focus_indicator(element.ref)
        return state == "shown", f"{element.describe()}: {detail}"
