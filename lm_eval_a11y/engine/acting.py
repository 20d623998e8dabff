"""What a check does to the page as a person would: keys, typing, focus, the mouse, and a
narrower window. Each marks the page as acted on and lets it settle before it returns."""

from __future__ import annotations

from typing import Any

from lm_eval_a11y.engine.disguise import set_window_width
from lm_eval_a11y.engine.elements import Element, element_from_probe
from lm_eval_a11y.engine.session_base import SETTLE_CAP_MS, SessionBase
from lm_eval_a11y.engine.tab import ProbeError

__all__ = ["UserActions"]


class UserActions(SessionBase):
    """Acting on the page through trusted input events (CDP keyboard and mouse)."""

    async def press(self, key: str, *, settle: bool = True) -> Element | None:
        """Press a key (Playwright key names: ``Tab``, ``Shift+Tab``, ``Enter``, ``ArrowDown``...)
        and return where focus is afterwards."""
        self._touch()
        target = self._acted_on
        await self._tab.page.keyboard.press(key)
        if not settle:
            found = await self.active()
        else:
            data = await self._settled("settleThenActive")
            found = None if data is None else element_from_probe(data)
        self._acted_on = found
        await self._acted(key, target)
        return found

    async def type_text(self, text: str) -> None:
        self._touch()
        await self._tab.page.keyboard.type(text)
        await self.settle()
        await self._acted("typing", self._acted_on)

    async def focus(self, element: Element) -> Element | None:
        """Move focus programmatically, as a starting point for keyboard steps; the page settles
        (:meth:`settle`: a tooltip that fades in on focus has faded in) before focus is read.

        Focus handlers run during the call itself, so only the transitions and animations the
        focus started are waited for (then frames, not ``settle_ms`` of timers): a page that
        animates nothing on focus gets no wait at all."""
        self._touch()
        data = await self._settled("focusThenSettle", 0, SETTLE_CAP_MS, element.ref)
        found = None if data is None else element_from_probe(data)
        self._acted_on = found
        await self._acted("focus", element)
        return found

    async def blur(self) -> None:
        self._touch()
        target, self._acted_on = self._acted_on, None
        await self.probe("blur")
        await self._acted("blur", target)

    async def click(self, element: Element) -> None:
        """Click the middle of the element with the mouse, as a person would (no DOM shortcut)."""
        x, y = await self._pointer_target(element, "clicked")
        await self._tab.page.mouse.click(x, y)
        await self.settle()
        self._acted_on = element
        await self._acted("click", element)

    async def hover(self, element: Element) -> None:
        """Rest the mouse pointer on the middle of the element, as a person would (no DOM shortcut).

        Moving in one step from wherever the pointer is means no element in between is hovered,
        which is how a checker can tell content that survives the pointer moving onto it.
        """
        x, y = await self._pointer_target(element, "hovered")
        await self._tab.page.mouse.move(x, y)
        await self.settle()
        await self._acted("hover", element)

    async def _pointer_target(self, element: Element, verb: str) -> tuple[float, float]:
        """Scroll the element into view and return the middle of its box, where the mouse goes;
        from here on the pointer may rest on the page (see :attr:`Tab.pointer_on_page`)."""
        self._touch()
        rect = await self.probe("scrollIntoView", element.ref)
        if not rect or rect["width"] <= 0 or rect["height"] <= 0:
            raise ProbeError(f"{element.describe()} has no size on screen and cannot be {verb}")
        self._tab.pointer_on_page = True
        return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2

    async def text_overflow_at(self, width: int, *, limit: int = 5) -> dict[str, Any]:
        """Lay the page out ``width`` CSS pixels wide (the viewport's height kept), let it settle,
        and report the text that does not fit: ``width`` (the viewport's, scrollbar aside),
        ``document_width``, ``scrolls`` (the document scrolls sideways), ``total`` and up to
        ``limit`` ``elements`` (``ref``, ``left``, ``right``, ``text``), widest first. The viewport
        is put back afterwards; the page may have reacted to the resize, so this counts as acting.

        Text inside tables, code, images, media, frames and grids is left out (content that may
        need two dimensions), as is what a horizontally scrolling component that fits the
        viewport holds, and an element wholly out of view on a page that does not scroll sideways
        (an off-canvas menu)."""
        self._touch()
        # The page is laid out in its window (disguise.py): the window itself is narrowed.
        try:
            await set_window_width(self._tab.send, width)
            # Resize handlers run with the next frame; what they start to animate is waited for.
            await self.settle(0)
            found: dict[str, Any] = await self.probe("overflowingText", limit)
        finally:
            await set_window_width(self._tab.send, self._settings.viewport[0])
        await self._acted(f"a {width} px wide window", None)
        return found
