"""A page of its own window for each tab of the evaluator (the slot's tab, its phone tab, a spare).

Playwright opens a context's second page as a tab of the first page's window. The headless shell
has no tabs (every page is a window of its own), but the full Chromium build in its new headless
mode does, and a tab that is not the window's active one is in the background: its animation
frames came once a second (two frames took 2.03 s against 33 ms) while ``visibilityState``
still said "visible", and its ``outerHeight`` equalled ``innerHeight`` as if it had no toolbar.
Every settle waits for two frames, so the slot's page lost about two seconds per action from
the moment its phone tab was opened (engine/conditions.py), and showed the page the headless
sign the full build exists to hide (docs/trust.md). A page opened here gets a window of its own,
as in the headless shell: each tab's page stays in the foreground of its window.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref

from playwright.async_api import BrowserContext, Page

__all__ = ["open_page"]

# As long as Playwright waits for a new page by default.
_OPEN_TIMEOUT_S = 30.0

# The CDP id of each context that has opened a page here, read from that page.
_CONTEXT_IDS: weakref.WeakKeyDictionary[BrowserContext, str] = weakref.WeakKeyDictionary()


async def open_page(context: BrowserContext) -> Page:
    """A new page of ``context`` on ``about:blank``, in a window of its own.

    The context's first page is opened by Playwright, which gives a context its own window; the
    others by CDP ``Target.createTarget`` with ``newWindow`` on the browser's session (Playwright
    attaches to the target and announces its page as for any page of the context)."""
    browser = context.browser
    context_id = _CONTEXT_IDS.get(context)
    if context_id is None or browser is None:
        page = await context.new_page()
        session = await context.new_cdp_session(page)
        try:
            info = await session.send("Target.getTargetInfo")
        finally:
            await session.detach()
        _CONTEXT_IDS[context] = str(info["targetInfo"]["browserContextId"])
        return page
    opened: asyncio.Queue[Page] = asyncio.Queue()
    announce = opened.put_nowait
    context.on("page", announce)
    session = await browser.new_browser_cdp_session()
    try:
        created = await session.send(
            "Target.createTarget", {"url": "about:blank", "browserContextId": context_id, "newWindow": True}
        )
        # Playwright attaches to the target and announces its page as for any page of the
        # context; a popup the slot's page opened meanwhile is announced too, and left alone.
        return await asyncio.wait_for(_announced(context, opened, str(created["targetId"])), _OPEN_TIMEOUT_S)
    finally:
        context.remove_listener("page", announce)
        await session.detach()


async def _announced(context: BrowserContext, opened: asyncio.Queue[Page], target_id: str) -> Page:
    while True:
        page = await opened.get()
        if await _target_id(context, page) == target_id:
            return page


async def _target_id(context: BrowserContext, page: Page) -> str | None:
    try:
        session = await context.new_cdp_session(page)
    except Exception:  # noqa: BLE001 - a popup already closed is not the page asked for
        return None
    try:
        info = await session.send("Target.getTargetInfo")
    finally:
        with contextlib.suppress(Exception):
            await session.detach()
    return str(info["targetInfo"]["targetId"])
