"""The long-lived page of one evaluator slot, and what the page did while a sample was on it.

A :class:`Tab` loads each sample on a fresh origin served by our own request router, keeps our
probe (and axe-core) in a Chromium isolated world the page's scripts cannot reach, refuses every
request to the network, holds the navigations a page starts itself, and leaves each document
without running any more of its scripts. :class:`EventLog` is what it saw the page do.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import re
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import BrowserContext, CDPSession, Page, Route

from lm_eval_a11y.engine.browser import user_agent_override
from lm_eval_a11y.engine.cdn_route import serve_library
from lm_eval_a11y.engine.clock import PageClock
from lm_eval_a11y.engine.clocked_page import ClockedPage, ProbeError
from lm_eval_a11y.engine.disguise import Origins, present_desktop
from lm_eval_a11y.engine.unicode import repair_text
from lm_eval_a11y.engine.windows import open_page
from lm_eval_a11y.observation import LibraryRequest

__all__ = ["MAX_EVENTS", "PARSE_CUT_SHORT", "EventLog", "ProbeError", "RenderSettings", "Tab"]

_ALLOWED_SCHEMES = ("data:", "blob:", "about:")
_WORLD = "lm-eval-a11y"
# Chromium's own report of a request it refused as mixed content (an http request of an https
# page), before any routing sees it: the URL is taken from its security log entry, which no page
# script can write (a page's console.error is a console entry, not a security one).
_MIXED_CONTENT = re.compile(r"requested an insecure [^']*'([^']+)'\. This request has been blocked")
# Page.captureScreenshot's options but the clip (Tab.capture_png): PNG is lossless whatever its
# compression, and the pixel check of contrast takes several captures a screen.
_CAPTURE = {"format": "png", "fromSurface": True, "captureBeyondViewport": False, "optimizeForSpeed": True}

# A renderer heap above this is collected after an axe run and after a page load.
_TRIM_HEAP_BYTES = 48 * 2**20
# Entries kept per list of a tab's event log (blocked requests, navigations, popups); later ones are dropped.
MAX_EVENTS = 50

# Whether the browser stopped parsing this document (a form submitted or window.stop() called
# while it loaded): it is complete without ever having been interactive, and what came after was
# never parsed. The top document is checked as it loads (_NAVIGATION_GUARD); a frame, in
# audit._audit_frame. The timings are on the page's clock (clock.py): a frame document a script
# wrote and closed in one task has all of them at 0, which is not a cut (domComplete is 0 too).
PARSE_CUT_SHORT = (
    "(() => { const t = performance.getEntriesByType('navigation')[0];"
    " return document.readyState === 'complete' && t !== undefined && t.domInteractive === 0"
    " && t.domComplete > 0; })()"
)

# The binding through which the navigation guard (see Tab._guard_navigations) reports what it held.
_HELD_BINDING = "__a11yNavigationHeld"
# The binding through which the probe announces that the page changed itself (armChange): a run
# of the page's clock ahead stops there (PageClock.advance).
_CHANGED_BINDING = "__a11yPageChanged"

# Runs in our isolated world as each top-level document is created, before any of its scripts.
# A navigation the document starts itself (location.href = ..., a form, a link) is cancelled
# before it begins: Chromium stops parsing a document that starts a navigation while it loads
# (a redirect in <head> left a document without a body, and the load never came), and the
# document is to be judged as written. Same-document navigations (#fragment, pushState) and
# those the page cannot cancel (the browser's own, history traversals) go ahead; the router
# still answers a cross-document one with 204, which leaves the document in place.
#
# Cancelling comes too late for one kind: a form submitted while the document is still being
# parsed has Chromium stop parsing it before the navigation even starts (window.stop() does the
# same), and whatever came after that point never becomes part of the document. No event
# tells; the navigation timing does: such a document is complete without ever having been
# interactive. A document the page rewrote with document.open() whose written content then
# submits a form is cut the same way, unseen by the timing; the guard notes a form submission
# after a rewrite. __a11yCutShort() answers why a document was cut short, or null (Tab.load).
_NAVIGATION_GUARD = f"""
if (window === window.top && typeof navigation === 'object') {{
  let rewritten = false;
  let formAfterRewrite = false;
  // document.open() removes the document's element; the parser only ever adds one.
  new MutationObserver((records) => {{
    if (records.some((r) => Array.from(r.removedNodes).some((n) => n.nodeType === Node.ELEMENT_NODE))) {{
      rewritten = true;
    }}
  }}).observe(document, {{ childList: true }});
  globalThis.__a11yCutShort = () => {{
    if ({PARSE_CUT_SHORT}) {{
      return 'the browser stopped reading the page before its end (a form submitted, or window.stop() ' +
        'called, while it loaded), so the rest of the document was never parsed';
    }}
    if (formAfterRewrite) {{
      return 'the page rewrote itself with document.open() and submitted a form, which stops the ' +
        'browser reading what it wrote';
    }}
    return null;
  }};
  const held = [];
  const report = () => {{
    if (typeof globalThis.{_HELD_BINDING} !== 'function') return;
    while (held.length) globalThis.{_HELD_BINDING}(held.shift());
  }};
  navigation.addEventListener('navigate', (event) => {{
    if (event.destination.sameDocument || !event.cancelable) return;
    event.preventDefault();
    const source = event.sourceElement;
    if (rewritten && (event.formData || (source && (source.tagName === 'FORM' || source.form)))) {{
      formAfterRewrite = true;
    }}
    held.push(String(event.destination.url).slice(0, 300));
    report();
    if (held.length) setTimeout(report, 0);
  }});
}}
"""


@dataclass
class EventLog:
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)
    blocked_navigations: list[str] = field(default_factory=list)
    popup_urls: list[str] = field(default_factory=list)
    libraries: list[LibraryRequest] = field(default_factory=list)
    dialogs: int = 0
    popups: int = 0

    @staticmethod
    def _add(items: list[str], text: str) -> None:
        if len(items) < MAX_EVENTS:
            # A page can make text with lone surrogates (String.fromCharCode(0xdcff)); the
            # record must stay writable as UTF-8.
            items.append(repair_text(text[:300])[0])


@dataclass(frozen=True)
class RenderSettings:
    viewport: tuple[int, int]
    axe_source: str
    probe_source: str
    axe_options: dict[str, Any]
    settle_ms: int = 50
    # Keyboard walks press keys at a person's cadence on the page's own clock (clock.py).
    paced_keys: bool = False


class _PageEvents:
    """What a tab's page asks of it and tells it: its requests (the router), dialogs, popups,
    console and security log entries, all recorded in the tab's :class:`EventLog`."""

    events: EventLog
    _pending: dict[str, str]

    async def refuse(self, route: Route) -> None:
        """Refuse a request of another page of the tab's context (a popup), recorded in the log."""
        EventLog._add(self.events.blocked_requests, route.request.url)
        with contextlib.suppress(Exception):  # the popup may already be gone
            await route.abort("blockedbyclient")

    async def _on_route(self, route: Route) -> None:
        request = route.request
        url = request.url
        if url.startswith(_ALLOWED_SCHEMES):
            await route.continue_()
            return
        html = self._pending.get(url)
        if html is not None:
            await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)
            return
        if request.is_navigation_request() and request.frame.parent_frame is None:
            # A 204 answer cancels the navigation and leaves the sample's document in place.
            EventLog._add(self.events.blocked_navigations, url)
            await route.fulfill(status=204, body="")
            return
        if await serve_library(route, url, self.events.libraries):  # engine/cdn_mirror.py
            return
        EventLog._add(self.events.blocked_requests, url)
        await route.abort("blockedbyclient")

    async def _on_dialog(self, dialog: Any) -> None:
        self.events.dialogs += 1
        with contextlib.suppress(Exception):  # the page may be closing
            # Accepting beforeunload lets our own navigation to the next sample go ahead.
            if dialog.type == "beforeunload":
                await dialog.accept()
            else:
                await dialog.dismiss()

    async def _on_popup(self, popup: Page) -> None:
        # Page.windowOpen already counted it; a popup that got through (a click is a user
        # gesture) is closed at once.
        with contextlib.suppress(Exception):  # the popup may close itself
            await popup.close(run_before_unload=False)

    def _on_window_open(self, params: dict[str, Any]) -> None:
        # Counted here rather than in _on_popup: blocked popups never become pages.
        self.events.popups += 1
        EventLog._add(self.events.popup_urls, str(params.get("url") or ""))

    def _on_log_entry(self, params: dict[str, Any]) -> None:
        entry = params.get("entry") or {}
        if entry.get("source") == "security":
            refused = _MIXED_CONTENT.search(str(entry.get("text", "")))
            if refused is not None:
                EventLog._add(self.events.blocked_requests, refused.group(1))

    def _on_console(self, message: Any) -> None:
        if message.type == "error":
            EventLog._add(self.events.console_errors, message.text)


class Tab(_PageEvents, ClockedPage):
    """The long-lived page of one evaluator slot.

    Every load navigates to a new origin (``https://<name>.<site>/``, a host name this tab has not
    used, see disguise.py) whose document our request router answers with the sample's HTML: to
    the page it looks like a site on the web, and nothing reaches the network. A navigation gives a fresh window, so no
    globals, listeners or timers survive from one sample to the next, and a fresh origin gives
    fresh storage; reusing the page keeps the renderer and its caches warm. Every other request
    is refused before it leaves the browser.
    """

    def __init__(self, context: BrowserContext, settings: RenderSettings, *, keeps_clock: bool = False) -> None:
        self._context = context
        # A tab whose page lives on its own clock from its start, never replaced (the slot's clock
        # tab, engine/late.py): paced while a sample is on it, paused between samples.
        self.keeps_clock = keeps_clock
        self._navigated_at_virtual_ms = 0.0
        self.settings = settings
        self.events = EventLog()
        self.crashed = asyncio.Event()
        self._page: Page | None = None
        self._cdp: CDPSession | None = None
        self._world: int | None = None
        self._pending: dict[str, str] = {}
        self._current_url = ""
        self._loads = 0
        # Why the last document loaded was cut short (see _NAVIGATION_GUARD), or None.
        self.cut_short: str | None = None
        self._frame_id: str | None = None
        self._new_document_script: dict[str, Any] = {}
        self._origins = Origins()
        # The mouse pointer may rest on the page: we moved it, or a check had the raw page.
        self.pointer_on_page = False
        # Loader ids of the main frame's latest commits, for depart().
        self._committed_loaders: collections.deque[str] = collections.deque(maxlen=8)
        self._commits = asyncio.Event()
        # The page's own clock, once started (page_clock); when the navigation to the sample
        # began (time.perf_counter) and the page's time when its clock started; whether the page
        # announced a change (armChange).
        self.clock: PageClock | None = None
        self._navigated_at = time.perf_counter()
        self._clock_started_at_page_ms = 0.0
        self.page_changed = asyncio.Event()
        self._spare: asyncio.Future[tuple[Page, CDPSession]] | None = None
        # The slot's clock tab (clock_tab), once made.
        self._clock_tab: Tab | None = None

    @property
    def page(self) -> Page:
        if self._page is None:
            raise ProbeError("the page is not open")
        return self._page

    @property
    def context(self) -> BrowserContext:
        return self._context

    def _companion(self, context: BrowserContext) -> Tab:
        return Tab(context, self.settings, keeps_clock=True)

    def share_origins(self, other: Tab) -> None:
        """Serve from the origins ``other`` has used and will use, as it does from this tab's: two
        tabs of one context (a slot's phone, engine/conditions.py) never serve one origin twice."""
        self._origins = other._origins

    async def start(self) -> None:
        self._page, self._cdp = await self._open()
        if self.keeps_clock:
            await (await self.page_clock()).hold()

    async def _open(self) -> tuple[Page, CDPSession]:
        """A new page for the tab, set up (and its CDP session), on about:blank."""
        # A window of its own: a second tab of one window would be in the background (windows.py).
        page = await open_page(self._context)
        page.on("crash", lambda _page: self.crashed.set())
        page.on("dialog", self._on_dialog)
        page.on("popup", self._on_popup)
        page.on("console", self._on_console)
        page.on("pageerror", lambda err: EventLog._add(self.events.page_errors, str(err)))
        # window.name survives navigations within a site; clear it before any page script runs
        # so one sample cannot hand data to the next.
        await page.add_init_script("window.name = '';")
        await page.route("**/*", self._on_route)
        cdp = await self._context.new_cdp_session(page)
        # Page.windowOpen also reports window.open() calls the popup blocker refused.
        cdp.on("Page.windowOpen", self._on_window_open)
        cdp.on("Page.frameNavigated", self._on_frame_navigated)
        cdp.on("Log.entryAdded", self._on_log_entry)
        await cdp.send("Page.enable")
        await cdp.send("Log.enable")
        # The headless shell's user agent and brands name it; present the desktop Chromium.
        await cdp.send(
            "Emulation.setUserAgentOverride",
            user_agent_override(self._context.browser.version if self._context.browser else ""),
        )
        await self._guard_navigations(cdp)
        # A desktop's window, connection and permissions (disguise.py).
        await present_desktop(cdp.send, self.settings.viewport)
        # Chromium runs this in our isolated world as each top-level document is created, which
        # costs about 40 % less than evaluating axe-core after the load (measured: median open
        # 393 ms against 638 ms under load); load() finds the probe already there. Frames
        # inside the page are skipped, as before, and so is the about:blank every sample departs
        # to (Tab.depart): evaluating the bundle there cost about 45 ms of CPU per sample.
        self._new_document_script = await cdp.send(
            "Page.addScriptToEvaluateOnNewDocument",
            {
                "source": f"if (window === window.top && location.protocol !== 'about:') {{\n{self.probe_bundle()}\n}}",
                "worldName": _WORLD,
            },
        )
        return page, cdp

    async def load(self, html: str, settle_ms: int = 0) -> None:
        """Navigate to a fresh origin that serves ``html``, set up the probe world, and after the
        load event let the page settle as :meth:`Session.settle` does for ``settle_ms``."""
        if self.clock is not None and not self.keeps_clock:
            await self._replace_page()
        elif self._current_url.startswith("http"):
            # A reset within the sample: the document left runs no departure handler either.
            await self._quiet_blank()
        if self.keeps_clock and self.clock is not None:
            # Paced from the navigation on: the document lives on the page's clock from its start.
            self.clock.resume()
            self._navigated_at_virtual_ms = self.clock.virtual_ms
        self._loads += 1
        self.cut_short = None
        url = self._origins.next()
        self._pending[url] = html
        self._current_url = url
        self._world = None
        self._navigated_at = time.perf_counter()
        # Cookies are kept per site, and every sample of the slot is served under one site.
        await self._context.clear_cookies()
        # What the last document left is collected by the trim after this load or its axe run (a
        # trim before each load too changed the benchmark's peak PSS by nothing: 725-741 MiB vs 735-745).
        if self.pointer_on_page:
            # The new document reuses the page's frame and widget (RenderDocument is off, see
            # browser.py), and with them the pointer's last position: a check that left the
            # mouse on a menu would have the next document open it on :hover. Outside the
            # viewport, the pointer hovers nothing. (Only pointer events sent to the browser
            # move it, so after a sample that sent none this round trip is saved.)
            await self.page.mouse.move(-1, -1)
            self.pointer_on_page = False
        # A new tab's history (history.length 2), not one a page could tell the evaluator by.
        await self.send("Page.resetNavigationHistory")
        try:
            # Wait only for the commit: a page that starts a navigation of its own while loading
            # (location.href = ...) makes Playwright wait for a load that never comes, although
            # the blocked navigation leaves the sample's document in place. The load event is
            # awaited below, in our own world.
            await self.page.goto(url, wait_until="commit")
        finally:
            self._pending.pop(url, None)
        await self._attach_world()
        # One round trip: the load event, then the settling, then the heap's size, so that what
        # the page's own scripts left behind while loading is collected without a trip of its
        # own. null: the new-document script did not run here, and the probe is evaluated now.
        # document.open() erases every listener of the window, ours too (a page that rewrote
        # itself in its onload timed out whenever our listener came first): readyState is
        # watched as well.
        arrived = (
            "typeof globalThis.__a11yProbe !== 'object' ? null : "
            "(document.readyState === 'complete' ? Promise.resolve() : new Promise((resolve) => {"
            " window.addEventListener('load', resolve, { once: true });"
            " const poll = () => (document.readyState === 'complete' ? resolve() : setTimeout(poll, 20));"
            " setTimeout(poll, 20); }))"
            # A document cut short is not settled: one without a body never draws a frame. Asked
            # again after the settle: a form submitted by content the page wrote over itself
            # announces its navigation a task later.
            ".then(() => { const cutShort = () => (typeof globalThis.__a11yCutShort === 'function'"
            " ? globalThis.__a11yCutShort() : null); const cut = cutShort();"
            f" return cut ? {{ cut }} : globalThis.__a11yProbe.settle({max(int(settle_ms), 0)})"
            ".then(() => { const late = cutShort();"
            " return late ? { cut: late } : { heap: performance.memory.totalJSHeapSize }; }); })"
        )
        arrival = await self.evaluate(arrived)
        if arrival is None:
            await self.evaluate(self.probe_bundle(), await_promise=False)
            arrival = await self.evaluate(arrived)
        self.cut_short = arrival.get("cut")
        if self.cut_short is None:
            await self.trim_memory(arrival.get("heap"))

    async def depart(self) -> None:
        """Leave the sample's document without running any more of its scripts.

        A departing document gets ``pagehide``, ``unload``, ``beforeunload``,
        ``visibilitychange`` and ``freeze`` events, and whatever timers fall due while it goes:
        a handler that never returns held the renderer the next sample loads in, and one that
        logs, sends beacons or opens dialogs put its traces in the next sample's record. So
        script execution is switched off first (CDP ``Emulation.setScriptExecutionDisabled``:
        no handler or timer of this document runs again), the tab goes to ``about:blank`` and,
        once that has committed, scripts are switched back on for the next document.

        From the first step on, the tab's log belongs to no sample: the next sample gets a fresh
        one when it starts, after the commit, and the departing document can no longer add to
        it (its scripts do not run; a request it had in flight is refused into the discarded
        log). A page busy in a script when we leave does not answer the first step: the caller
        bounds the whole departure and gives the slot a new renderer when it does not finish
        (see ``SlotScheduling._leave`` in pool.py). Measured cost: 13-30 ms per sample on a quiet
        machine, about 60 ms when every core is busy.
        """
        self.events = EventLog()
        self._world = None
        self._current_url = "about:blank"
        if self.clock is not None and not self.keeps_clock:
            # A page on virtual time stays on it: the tab gets a new page on the wall clock.
            await self._replace_page()
            return
        await self._quiet_blank()
        if self.keeps_clock and self.clock is not None:
            await self.clock.hold()

    async def _quiet_blank(self) -> None:  # scripts off, about:blank committed, scripts on
        assert self._cdp is not None
        await self._cdp.send("Emulation.setScriptExecutionDisabled", {"value": True})
        # Straight through CDP, and done when the navigation of this loader id has committed
        # (Playwright's goto waits for more: 71 -> 58 ms median under heavy load, measured).
        self._commits.clear()
        reply = await self._cdp.send("Page.navigate", {"url": "about:blank"})
        loader = str(reply.get("loaderId") or "")
        while loader and loader not in self._committed_loaders:
            await self._commits.wait()
            self._commits.clear()
        await self._cdp.send("Emulation.setScriptExecutionDisabled", {"value": False})

    def _on_frame_navigated(self, params: dict[str, Any]) -> None:
        frame = params.get("frame") or {}
        if frame.get("parentId") is None:
            self._committed_loaders.append(str(frame.get("loaderId") or ""))
            self._commits.set()

    async def _guard_navigations(self, cdp: CDPSession) -> None:
        """Have each new top-level document cancel the navigations it starts itself (see
        ``_NAVIGATION_GUARD``), and record them as blocked navigations of the sample."""
        # Bindings reach named isolated worlds only with the Runtime domain on in this session.
        await cdp.send("Runtime.enable")
        await cdp.send("Runtime.addBinding", {"name": _HELD_BINDING, "executionContextName": _WORLD})
        await cdp.send("Runtime.addBinding", {"name": _CHANGED_BINDING, "executionContextName": _WORLD})
        cdp.on("Runtime.bindingCalled", self._on_binding)
        await cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": _NAVIGATION_GUARD, "worldName": _WORLD})

    def _on_binding(self, params: dict[str, Any]) -> None:
        if params.get("name") == _HELD_BINDING:
            EventLog._add(self.events.blocked_navigations, str(params.get("payload") or ""))
        elif params.get("name") == _CHANGED_BINDING:
            self.page_changed.set()

    async def close(self) -> None:
        self.drop_clock_tab()
        page, self._page = self._page, None
        self._world = None
        if self.clock is not None:
            self.clock.close()
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.cancel()
            if spare.done() and not spare.cancelled() and spare.exception() is None:
                with contextlib.suppress(Exception):
                    await spare.result()[0].close(run_before_unload=False)
        if page is not None and not page.is_closed():
            await page.close(run_before_unload=False)

    async def trim_memory(self, heap_bytes: float | None = None) -> bool:
        """Collect the renderer's JavaScript garbage when its heap has grown past a threshold.

        ``heap_bytes`` is the heap's size when the caller already knows it (the page's
        ``performance.memory``, precise with the switch in browser.py); otherwise it is asked for.

        axe-core on a large page leaves a heap several times the page's size behind (measured: a
        690 KB page took its renderer from 111 MB to 276 MB, 103 MB after a collection), and V8
        would keep it until allocation pressure says otherwise. With several slots at once that
        garbage, not the pages, decides the browser's peak memory.
        """
        if self._cdp is None:
            return False
        if heap_bytes is None:
            heap_bytes = float((await self._cdp.send("Runtime.getHeapUsage")).get("totalSize", 0))
        if heap_bytes < _TRIM_HEAP_BYTES:
            return False
        await self._cdp.send("HeapProfiler.collectGarbage")
        return True

    async def capture_png(self, clip: dict[str, float]) -> str:
        """A PNG (base64) of ``clip`` (page coordinates) as drawn on screen, through CDP only.

        Nothing reaches the page: no viewport change (``captureBeyondViewport`` would resize the
        view, and the page sees a resize event), no script, no style.
        """
        shot = await self.send("Page.captureScreenshot", {**_CAPTURE, "clip": {**clip, "scale": 1}})
        return str(shot["data"])

    async def terminate_scripts(self) -> None:
        """Interrupt a page script that never returns (``while (true) {}``)."""
        if self._cdp is not None:
            await self._cdp.send("Runtime.terminateExecution")

    async def _attach_world(self) -> None:
        assert self._cdp is not None
        if self._frame_id is None:
            # The main frame keeps its id across navigations; ask once per tab.
            tree = await self._cdp.send("Page.getFrameTree")
            self._frame_id = str(tree["frameTree"]["frame"]["id"])
        # The same world name gives the world the new-document script already ran in.
        world = await self._cdp.send(
            "Page.createIsolatedWorld",
            {"frameId": self._frame_id, "worldName": _WORLD, "grantUniveralAccess": False},
        )
        self._world = int(world["executionContextId"])

    # ---------------------------------------------------------------- for lm_eval_a11y.engine.audit

    def probe_bundle(self) -> str:
        """axe-core and the probe, as evaluated into a world that does not have them yet."""
        return self.settings.axe_source + "\n;\n" + self.settings.probe_source

    def frame_count(self) -> int:
        """How many frames the page has below its top document, nested ones, ``<object>`` and
        ``<embed>`` documents and frames in shadow trees included (Playwright keeps the frame
        tree from CDP events: no round trip)."""
        return len(self.page.frames) - 1

    @property
    def world_name(self) -> str:
        return _WORLD

    @property
    def world_id(self) -> int:
        """The execution context of our isolated world in the top document."""
        if self._world is None:
            raise ProbeError("the page is not open")
        return self._world

    async def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One CDP command on the tab's own session."""
        if self._cdp is None:
            raise ProbeError("the page is not open")
        reply: dict[str, Any] = await self._cdp.send(method, params or {})
        return reply

    async def evaluate_in(self, context_id: int, expression: str, *, await_promise: bool = True) -> Any:
        """:meth:`evaluate` in another of our worlds (a frame's)."""
        return await self._evaluate_in_context(context_id, expression, await_promise=await_promise)

    async def evaluate(self, expression: str, *, await_promise: bool = True) -> Any:
        if self._cdp is None or self._world is None:
            raise ProbeError("the page is not open")
        return await self._evaluate_in_context(self._world, expression, await_promise=await_promise)

    async def _evaluate_in_context(self, context_id: int, expression: str, *, await_promise: bool) -> Any:
        if self._cdp is None:
            raise ProbeError("the page is not open")
        reply = await self._cdp.send(
            "Runtime.evaluate",
            {
                "expression": expression,
                "contextId": context_id,
                "awaitPromise": await_promise,
                "returnByValue": True,
                "userGesture": False,
            },
        )
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            text = (details.get("exception") or {}).get("description") or details.get("text") or "unknown error"
            raise ProbeError(text.splitlines()[0])
        return (reply.get("result") or {}).get("value")
