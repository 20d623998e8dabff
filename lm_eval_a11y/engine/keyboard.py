"""Keyboard walks: Tab and Shift+Tab through the page from the top, as a visitor starts, with
where focus went, whether it left the page, and whether it was held."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from lm_eval_a11y.engine.elements import Element, KeyboardWalk, TabStop
from lm_eval_a11y.engine.session_base import SessionBase

__all__ = ["KeyboardWalks"]


class KeyboardWalks(SessionBase):
    """Walking the page with the keyboard; every walk acts on the page."""

    async def _step(self, key: str, within: Element | None = None) -> tuple[int | None, bool]:
        """Press one key of a keyboard walk; return the focused element's reference (None when
        focus is on no element of the page) and whether it is ``within`` (or is) that element.

        The page gets one task turn to react (its zero-delay timers run first) rather than the
        frames of :meth:`settle`: a walk is many presses, and focus moves in the key's handlers.
        """
        found = await self._press_and_look(key, within.ref if within is not None else None)
        ref = found["ref"]
        return (None if ref is None else int(ref)), bool(found["within"])

    async def _press_and_look(self, key: str, within: int | None = None, kind: bool = False) -> dict[str, Any]:
        """One key press of a walk, then the probe's look at focus (``ref``, ``within``, and
        with ``kind`` the kind of the stop)."""
        self._epoch += 1
        target = self._acted_on
        await self._person_paced()
        await self._tab.page.keyboard.press(key)
        found: dict[str, Any] = await self.probe("step", within, kind, self.state_watch is not None)
        self._acted_on = None if found["ref"] is None else int(found["ref"])
        await self._acted(key, target, found.get("fingerprint"))
        return found

    async def _from_the_top(self) -> None:
        """Start a keyboard walk as a visitor does: nothing focused, the page scrolled to its top."""
        self._touch()
        self._acted_on = None
        await self.probe("fromTheTop")

    async def tab_sequence(self, max_stops: int = 40, *, backwards: bool = False) -> list[Element]:
        """Tab through the page from the top and list each stop (described while it has focus)
        until focus leaves or wraps, with at most ``max_stops`` presses (:meth:`tab_stops`)."""
        return [await self._describe(stop.ref) async for stop in self.tab_stops(max_stops, backwards=backwards)]

    async def tab_to(self, element: Element, max_stops: int = 60) -> bool:
        """Press Tab from the top of the page until ``element`` (or something inside it) has
        focus; False if it never does.

        An element with nothing focusable in or under it is refused without a key press: on a
        page with many Tab stops, the walk would otherwise spend the evaluation's time budget.
        """
        if not await self.probe("hasFocusable", element.ref):
            return False
        await self._from_the_top()
        seen: set[int] = set()
        outside = 0
        for _ in range(max_stops):
            current, reached = await self._step("Tab", element)
            if current is None:
                # Focus left the document (past the last stop). Twice in a row means the page
                # has no Tab stop at all: stop now instead of spending the time budget.
                outside += 1
                if outside >= 2:
                    return False
                continue
            outside = 0
            if reached:
                # Give the page its frames to draw the focused state before a check looks at it.
                await self.settle(0)
                return True
            if current in seen:
                return False
            seen.add(current)
        return False

    async def focus_trapped(self, container: Element, presses: int = 12) -> tuple[bool, str]:
        """Press Tab and then Shift+Tab repeatedly; report whether focus reached the page outside
        the container.

        Focus passing through the browser's own toolbar (no element of the page focused) is how a
        native modal ``<dialog>`` wraps around, so one such step is not an escape; two in a row
        means focus left the page and did not come back.
        """
        self._touch()
        for key in ("Tab", "Shift+Tab"):
            outside = 0
            for step in range(presses):
                current, inside = await self._step(key, container)
                if inside:
                    outside = 0
                    continue
                if current is None:
                    outside += 1
                    if outside < 2:
                        continue
                    return False, f"after {step + 1} x {key} focus had left the page and not come back"
                where = await self._describe(current)
                return False, f"after {step + 1} x {key} focus was on {where.describe()}, outside the container"
        return True, f"focus stayed inside for {presses} x Tab and {presses} x Shift+Tab"

    async def keyboard_walk(self, *, backwards: bool = False, max_presses: int = 60) -> KeyboardWalk:
        """Walk the page with Tab (or Shift+Tab) from the top, as a visitor does, until focus
        leaves the page, with at most ``max_presses`` presses.

        When focus comes back to a stop it met without having left the page, it goes round a
        cycle: a modal dialog open on the page may hold it so, if Escape lets it out (WCAG 2.1.2),
        so Escape is pressed once and the walk goes on; a second cycle ends the walk. One press
        in, with no element focused, focus is in the browser: backwards from the top that is the
        first press (the next one enters the page from its end), later it is the way out."""
        await self._from_the_top()
        key = "Shift+Tab" if backwards else "Tab"
        stops: list[int] = []
        seen: set[int] = set()
        cycle: tuple[int, ...] = ()
        released: bool | None = None
        presses = 0
        while presses < max_presses:
            ref, _ = await self._step(key)
            presses += 1
            if ref is None:
                if backwards and presses == 1:
                    continue
                return KeyboardWalk(key, tuple(stops), True, cycle, True if cycle else None, presses)
            if ref in seen:
                if cycle:
                    released = False
                    break
                start = stops.index(ref)
                cycle = tuple(stops[start:])
                await self._person_paced()
                await self._tab.page.keyboard.press("Escape")
                await self.settle(0)
                await self._acted("Escape", ref)
                presses += 1
                seen = set()
            seen.add(ref)
            stops.append(ref)
        if cycle and released is None:
            released = True  # after Escape focus went on to stops it had not met, up to the bound
        return KeyboardWalk(key, tuple(stops), False, cycle, released, presses)

    async def tab_stops(self, max_presses: int = 60, *, backwards: bool = False) -> AsyncIterator[TabStop]:
        """Walk the page with Tab (or Shift+Tab) from the top, as a visitor does, and yield each
        stop while it has focus (a caller may look at it, :meth:`focus_indicator`, before the walk
        goes on). The walk ends when focus leaves the page, comes back to a stop it met, or after
        ``max_presses``."""
        await self._from_the_top()
        key = "Shift+Tab" if backwards else "Tab"
        seen: set[int] = set()
        for index in range(max_presses):
            found = await self._press_and_look(key, kind=True)
            ref = found["ref"]
            if ref is None and index == 0 and backwards:
                # Shift+Tab from the top first leaves the document, as it does for a visitor
                # starting from the address bar; the next press enters it from the end.
                continue
            if ref is None or int(ref) in seen:
                return
            seen.add(int(ref))
            yield TabStop(int(ref), index, str(found["kind"]))
