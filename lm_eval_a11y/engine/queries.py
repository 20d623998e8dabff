"""What a check asks of the page without acting on it: elements by selector or role, their
state, headings and landmarks, watched changes, and the listeners the browser records."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

from lm_eval_a11y.engine.elements import (
    Change,
    Element,
    Heading,
    KeyboardFacts,
    Landmark,
    Listeners,
    Listening,
    element_from_probe,
)
from lm_eval_a11y.engine.session_base import SessionBase
from lm_eval_a11y.engine.tab import ProbeError

__all__ = ["ElementQueries"]

# The object group of the remote objects Session.event_listeners holds while it works.
_LISTENERS_GROUP = "lm-eval-a11y-listeners"

_NODES_OF = "function (...nodes) { return globalThis.__a11yProbe.nodesOf(...nodes); }"


class ElementQueries(SessionBase):
    """Reading the page: none of these marks it as acted on."""

    async def find(self, selector: str, within: Element | None = None) -> Element | None:
        found = await self.find_all(selector, within)
        return found[0] if found else None

    async def find_all(self, selector: str, within: Element | None = None) -> list[Element]:
        items = await self.probe("query", selector, within.ref if within else None)
        return [element_from_probe(item) for item in items]

    async def by_role(self, role: str | Sequence[str], name: str | None = None) -> list[Element]:
        roles = [role] if isinstance(role, str) else list(role)
        items = [element_from_probe(item) for item in await self.probe("byRole", roles)]
        if name is not None:
            wanted = name.strip().lower()
            items = [e for e in items if wanted in e.name.lower()]
        return items

    async def element(self, ref: int) -> Element:
        """The element a helper named by its reference (``ref`` of :class:`KeyboardFacts`,
        :class:`Listening`, :class:`Heading`...), as it is now."""
        return await self._describe(ref)

    async def refresh(self, element: Element) -> Element:
        return await self._describe(element.ref)

    async def focus_within(self, container: Element) -> bool:
        return bool(await self.probe("activeWithin", container.ref))

    async def contains(self, outer: Element, inner: Element) -> bool:
        return bool(await self.probe("contains", outer.ref, inner.ref))

    async def is_hidden_from_at(self, element: Element) -> bool:
        """Whether assistive technology cannot reach it: display:none, hidden, aria-hidden, inert."""
        return bool(await self.probe("isHiddenFromAT", element.ref))

    async def is_visible(self, element: Element) -> bool:
        return bool(await self.probe("isVisible", element.ref))

    async def headings(self) -> list[Heading]:
        return [Heading(int(h["ref"]), int(h["level"]), h["name"]) for h in await self.probe("headings")]

    async def landmarks(self) -> list[Landmark]:
        return [Landmark(int(m["ref"]), m["role"], m["name"]) for m in await self.probe("landmarks")]

    async def content_before(self, target: Element, region: Element) -> str | None:
        """What a person meets in ``region`` (the main content) before ``target``: the first text,
        image or control (a few words), or None when ``target`` is at the region's start.

        Navigation landmarks and content hidden from assistive technology are passed over; a
        target just before the region counts as its start, one after it does not."""
        found = await self.probe("contentBefore", target.ref, region.ref)
        return None if found is None else str(found)

    async def precedes(self, first: Element, second: Element) -> bool:
        """Whether ``first`` comes before ``second`` in the document (``second`` inside it counts)."""
        return bool(await self.probe("precedes", first.ref, second.ref))

    async def range_value(self, element: Element) -> dict[str, Any]:
        """The value a range widget reports to assistive technology: ``now``, ``min``, ``max``
        (numbers or None) and ``text`` (aria-valuetext).

        ARIA attributes win; native ``<meter>``, ``<progress>`` and ``<input type=range|number>``
        fall back to their DOM properties, because their defaults never appear as attributes.
        """
        value: dict[str, Any] = await self.probe("rangeValue", element.ref)
        return value

    async def watch(self, element: Element, attributes: Sequence[str], counting: str | None = None) -> None:
        """Start recording what happens to ``element``: changes of the named attributes on it,
        and elements added to or removed from anywhere inside it (only those matching the
        selector ``counting``, or holding such elements, when given); :meth:`changes` reads the
        record. Watching the element again starts a new record. For checks that need the order
        of what the page did, not only where it ended (a feed sets aria-busy while it adds posts)."""
        await self.probe("watch", element.ref, list(attributes), counting)

    async def changes(self, element: Element) -> list[Change]:
        """What the page changed on a watched element since :meth:`watch`, in order."""
        changes = await self.probe("watched", element.ref)
        return [
            Change(
                kind=str(c["kind"]),
                name=c.get("name"),
                value=c.get("value"),
                added=int(c.get("added", 0)),
                removed=int(c.get("removed", 0)),
                state=tuple(sorted(c["state"].items())),
            )
            for c in changes
        ]

    async def event_listeners(self, types: Sequence[str], *, limit: int = 400) -> Listeners:
        """Where the page listens for the given event types: the window, the document and every
        element (in shadow roots too), from CDP's ``DOMDebugger.getEventListeners``.

        This is the browser's own record of listeners, which no page script can patch or hide: a
        listener added with ``addEventListener``, an ``onclick`` attribute or property, a handler
        object, a function made in another frame's realm all appear. Listeners inside frames do
        not (a frame is another document). At most ``limit`` elements are listed, in document
        order (each costs a round trip, all sent at once); :attr:`Listeners.truncated` says when
        more listened."""
        wanted = set(types)
        tab = self._tab
        world = tab.world_id
        found: dict[int, set[str]] = {}
        on_window: set[str] = set()
        try:
            for expression in ("window", "document"):
                # The page's own world, where `window` and `document` are unforgeable: asked from
                # our isolated world, a pierced walk that met a listener whose function was made
                # in a frame's realm had Chromium (156) crash the renderer at the frame's next
                # audit. Evaluating either name runs none of the page's code.
                handle = await tab.send("Runtime.evaluate", {"expression": expression, "objectGroup": _LISTENERS_GROUP})
                # pierce: into shadow roots, open or closed (and frames, whose nodes are left out
                # below). Without it CDP reports only listeners whose function was made in the
                # world that asks.
                reply = await tab.send(
                    "DOMDebugger.getEventListeners",
                    {"objectId": handle["result"]["objectId"], "depth": -1, "pierce": True},
                )
                for listener in reply.get("listeners") or ():
                    kind = str(listener.get("type"))
                    if kind not in wanted:
                        continue
                    node = listener.get("backendNodeId")
                    if expression == "window" or node is None:
                        on_window.add(kind)
                    else:
                        found.setdefault(int(node), set()).add(kind)
            nodes = list(found)
            truncated = len(nodes) > limit
            nodes = nodes[:limit]
            resolved = await asyncio.gather(
                *(
                    tab.send(
                        "DOM.resolveNode",
                        {"backendNodeId": node, "executionContextId": world, "objectGroup": _LISTENERS_GROUP},
                    )
                    for node in nodes
                ),
                return_exceptions=True,
            )
            # A node of a frame's document does not resolve into the top document's world.
            kept = [(node, r) for node, r in zip(nodes, resolved, strict=True) if isinstance(r, dict)]
            named: list[dict[str, Any]] = []
            if kept:
                reply = await tab.send(
                    "Runtime.callFunctionOn",
                    {
                        "functionDeclaration": _NODES_OF,
                        "executionContextId": world,
                        "arguments": [{"objectId": r["object"]["objectId"]} for _, r in kept],
                        "returnByValue": True,
                    },
                )
                if "exceptionDetails" in reply:
                    raise ProbeError("the elements the page listens on could not be named")
                named = list((reply.get("result") or {}).get("value") or [])
        finally:
            with contextlib.suppress(Exception):  # the page may be gone; the group goes with it
                await tab.send("Runtime.releaseObjectGroup", {"objectGroup": _LISTENERS_GROUP})
        targets = [Listening("window", tuple(sorted(on_window)))] if on_window else []
        merged: dict[int | None, tuple[str, set[str]]] = {}
        for (node, _), about in zip(kept, named, strict=True):
            if about.get("tag") is None:
                continue  # a node of a frame's document
            tag, kinds = merged.setdefault(about.get("ref"), (str(about.get("tag") or ""), set()))
            kinds.update(found[node])
        for ref, (tag, kinds) in merged.items():
            target = "element" if ref is not None else "document"
            targets.append(Listening(target, tuple(sorted(kinds)), None if ref is None else int(ref), tag))
        return Listeners(tuple(targets), truncated)

    async def keyboard_facts(
        self,
        elements: Sequence[int],
        key_listeners: Sequence[int],
        click_listeners: Sequence[int],
        *,
        keys_on_document: bool,
        clicks_on_document: bool,
    ) -> list[KeyboardFacts]:
        """:class:`KeyboardFacts` for each element reference, in one round trip. ``key_listeners``
        and ``click_listeners`` are the elements with such listeners (:meth:`event_listeners`);
        ``keys_on_document``, ``clicks_on_document``: the document or window has one (for clicks,
        ``<html>`` and ``<body>`` count as the document)."""
        facts = await self.probe(
            "keyboardFacts",
            list(elements),
            list(key_listeners),
            keys_on_document,
            list(click_listeners),
            clicks_on_document,
        )
        return [KeyboardFacts(**fact) for fact in facts]

    async def pointer_cursor_elements(self, limit: int = 200) -> list[int]:
        """References of the outermost rendered elements drawn with ``cursor: pointer`` (which
        their descendants inherit), in document order: what a mouse user takes for things to
        click."""
        return [int(ref) for ref in await self.probe("pointerCursors", limit)]

    async def document_info(self) -> dict[str, Any]:
        info: dict[str, Any] = await self.probe("documentInfo")
        return info
