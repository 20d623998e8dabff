"""One sample's page, and the helpers checks use to drive and observe it.

Everything a check reads goes through the probe in a Chromium isolated world (see
``evaluator/probe.js``), and everything a check does goes through trusted input events (CDP
keyboard and mouse), so a page's own scripts can neither fake what we observe nor tell our
input apart from a person's.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from playwright.async_api import BrowserContext, CDPSession, Page, Route

from lm_eval_a11y.engine.audit import (
    PARSE_CUT_SHORT,
    AuditPart,
    audit_document,
    has_closed_roots,
    may_have_closed_shadow_roots,
)
from lm_eval_a11y.engine.browser import user_agent_override
from lm_eval_a11y.observation import AxeFinding, AxeNode

__all__ = [
    "SETTLE_CAP_MS",
    "Element",
    "Heading",
    "KeyboardFacts",
    "KeyboardWalk",
    "Landmark",
    "Listeners",
    "Listening",
    "ProbeError",
    "Session",
    "Tab",
    "TabStop",
    "repair_text",
]

# How long after an action the session waits for the page's animations to end, and how long
# Session.eventually asks a condition again: long enough for the fades, slides and delayed
# closes pages use (UI libraries animate for 150-600 ms), short enough that a page that never
# settles costs one second per action. Why this number: docs/settling.md.
SETTLE_CAP_MS = 1000
# Between two readings of Session.eventually: the page's frames and timers run meanwhile.
_POLL_MS = 50
_T = TypeVar("_T")

_ALLOWED_SCHEMES = ("data:", "blob:", "about:")
_WORLD = "lm-eval-a11y"
# A renderer heap above this is collected after an axe run and after a page load.
_TRIM_HEAP_BYTES = 48 * 2**20
_MAX_EVENTS = 50
# The object group of the remote objects Session.event_listeners holds while it works.
_LISTENERS_GROUP = "lm-eval-a11y-listeners"
# A focus indicator is a change a person can see: at least this many pixels, each changed by at
# least this much in a colour channel (0-255; a ring one shade off the background is no indicator).
_VISIBLE_PIXELS = 8
_VISIBLE_CHANNEL_STEP = 24
_NODES_OF = "function (...nodes) { return globalThis.__a11yProbe.nodesOf(...nodes); }"
# Ports Chromium refuses to load (its restricted list above 1024): a sample's origin never uses one.
_UNSAFE_PORTS = frozenset(
    {1719, 1720, 1723, 2049, 3659, 4045, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6697, 10080}
)
# The binding through which the navigation guard (see Tab._guard_navigations) reports what it held.
_HELD_BINDING = "__a11yNavigationHeld"
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


class ProbeError(RuntimeError):
    """The probe could not answer (bad selector, stale element, page gone)."""


@dataclass(frozen=True)
class Element:
    """A snapshot of one element as assistive technology and a sighted user would meet it.

    Snapshots do not update themselves: after an interaction call :meth:`Session.refresh`.

    ``visible``: a sighted user can see it: rendered, with a size, not transparent, and (axe-core's
    judgement) not moved off the page, clipped away or cut off by an ancestor's overflow.
    ``hidden_from_at``: assistive technology does not present it (axe-core's judgement, or inert).
    """

    ref: int
    tag: str
    role: str | None
    name: str
    text: str
    attributes: dict[str, str]
    properties: dict[str, Any]
    visible: bool
    hidden_from_at: bool
    focusable: bool
    rect: dict[str, float]
    connected: bool = True

    def attr(self, name: str) -> str | None:
        return self.attributes.get(name)

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple((self.attributes.get("class") or "").split())

    def state(self, name: str) -> str | None:
        """An ARIA state such as ``expanded``; native state (``checked``, ``open``) as fallback."""
        value = self.attributes.get(f"aria-{name}")
        if value is not None:
            return value
        native = self.properties.get(name)
        if isinstance(native, bool):
            return "true" if native else "false"
        return None

    def describe(self) -> str:
        label = f"<{self.tag}"
        if self.attributes.get("id"):
            label += f" id={self.attributes['id']!r}"
        if self.classes:
            label += f" class={' '.join(self.classes)!r}"
        label += ">"
        name = self.name if len(self.name) <= 80 else self.name[:77] + "..."
        return f"{label} (role {self.role or 'none'}, name {name!r})"


@dataclass(frozen=True)
class Heading:
    ref: int
    level: int
    name: str


@dataclass(frozen=True)
class Landmark:
    ref: int
    role: str
    name: str


@dataclass(frozen=True)
class Listening:
    """Event types the page listens for on one target (:meth:`Session.event_listeners`).

    ``target`` is ``"window"``, ``"document"`` or ``"element"``; ``ref`` and ``tag`` name the
    element (a listener on a shadow root counts as one on its host)."""

    target: str
    types: tuple[str, ...]
    ref: int | None = None
    tag: str = ""


@dataclass(frozen=True)
class Listeners:
    """What :meth:`Session.event_listeners` found: the targets listened on, and whether elements
    past its limit were left out."""

    targets: tuple[Listening, ...]
    truncated: bool = False


@dataclass(frozen=True)
class KeyboardFacts:
    """What the keyboard can do with one element (:meth:`Session.keyboard_facts`).

    ``rendered``: drawn with a size and not ``visibility: hidden`` (a mouse can point at it; the
    other facts are only gathered for rendered elements). ``control``: ``"native"`` (the browser
    works it from the keyboard), ``"widget"`` (an ARIA widget role; the page must) or None.
    ``tab_stop``: in the Tab order. ``reachable``: a Tab stop, or an item of a composite widget
    (listbox, menu, tablist, grid...) whose container or controlling element is one.
    ``key_handled``: a key listener on it, around it, on that container, the document or the
    window. ``click_heard``: a click listener on it, around it, the document or the window.
    ``click_activated``: the browser turns Enter or Space on it into a click (buttons, links,
    checkboxes...). ``inside_workable``: the reference of the nearest control around it that the
    keyboard can reach and work, if any; ``holds_workable``: it holds such a control.
    ``backdrop``: an empty layer over half the viewport or more, out of the flow, while a dialog
    is open (a dialog's backdrop)."""

    ref: int
    rendered: bool
    disabled: bool
    role: str | None
    control: str | None
    tab_stop: bool
    reachable: bool
    key_handled: bool
    click_heard: bool
    click_activated: bool
    inside_workable: int | None
    holds_workable: bool
    backdrop: bool = False


@dataclass(frozen=True)
class TabStop:
    """One stop of :meth:`Session.tab_stops`: the element's reference, its place in the walk and
    its kind (tag, role, type and classes joined with ``|``, how pages style focus)."""

    ref: int
    index: int
    kind: str


@dataclass(frozen=True)
class KeyboardWalk:
    """Where :meth:`Session.keyboard_walk` took focus.

    ``stops``: the references focus met, in order. ``left_page``: focus went past the page's last
    (or, backwards, first) stop to the browser, as it does on a page without a trap.
    ``cycle``: the stops focus went round among without leaving the page, when it did;
    ``released``: whether Escape then let focus go on and leave (None without a cycle).
    ``presses``: the keys pressed, at most the walk's bound."""

    key: str
    stops: tuple[int, ...]
    left_page: bool
    cycle: tuple[int, ...] = ()
    released: bool | None = None
    presses: int = 0


@dataclass(frozen=True)
class Change:
    """One change a watched element went through (:meth:`Session.watch`), in the order they came.

    ``kind`` is ``"attribute"`` (``name`` was set to ``value``; None when removed) or
    ``"children"`` (``added`` and ``removed`` elements somewhere inside it). ``state`` holds the
    watched attributes' values right after the change, as ``(name, value)`` pairs."""

    kind: str
    name: str | None = None
    value: str | None = None
    added: int = 0
    removed: int = 0
    state: tuple[tuple[str, str | None], ...] = ()

    def attribute(self, name: str) -> str | None:
        """The watched attribute's value right after this change."""
        return dict(self.state).get(name)


@dataclass
class EventLog:
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)
    blocked_navigations: list[str] = field(default_factory=list)
    popup_urls: list[str] = field(default_factory=list)
    dialogs: int = 0
    popups: int = 0

    @staticmethod
    def _add(items: list[str], text: str) -> None:
        if len(items) < _MAX_EVENTS:
            # A page can make text with lone surrogates (String.fromCharCode(0xdcff)); the
            # record must stay writable as UTF-8.
            items.append(repair_text(text[:300])[0])


def repair_text(text: str) -> tuple[str, int]:
    """``text`` as valid Unicode, and how many lone surrogates were replaced with U+FFFD.

    Python strings may hold UTF-16 surrogates that no UTF-8 writer accepts (a generation
    decoded with ``surrogateescape``, or a JavaScript string with half a pair). A surrogate pair
    written as two code points is joined into its character; a lone one becomes U+FFFD.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text, 0
    repaired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    lone = sum(1 for ch in repaired if ch == "\ufffd") - sum(1 for ch in text if ch == "\ufffd")
    return repaired, lone


@dataclass(frozen=True)
class RenderSettings:
    viewport: tuple[int, int]
    axe_source: str
    probe_source: str
    axe_options: dict[str, Any]
    settle_ms: int = 50


def _element(data: dict[str, Any]) -> Element:
    return Element(
        ref=int(data["ref"]),
        tag=data["tag"],
        role=data.get("role"),
        name=data.get("name") or "",
        text=data.get("text") or "",
        attributes=dict(data.get("attributes") or {}),
        properties=dict(data.get("properties") or {}),
        visible=bool(data.get("visible")),
        hidden_from_at=bool(data.get("hidden_from_at")),
        focusable=bool(data.get("focusable")),
        rect=dict(data.get("rect") or {}),
        connected=bool(data.get("connected", True)),
    )


def findings_from_probe(items: Sequence[dict[str, Any]], state: str) -> tuple[AxeFinding, ...]:
    return tuple(
        AxeFinding(
            rule_id=item["id"],
            impact=item.get("impact"),
            tags=tuple(item.get("tags") or ()),
            help=item.get("help") or "",
            help_url=item.get("help_url") or "",
            nodes=tuple(
                AxeNode(
                    html=n.get("html", ""),
                    target=tuple(n.get("target") or ()),
                    failure_summary=n.get("failure_summary", ""),
                    impact=n.get("impact"),
                )
                for n in item.get("nodes") or ()
            ),
            node_count=int(item.get("node_count") or 0),
            state=state,
        )
        for item in items
    )


class Tab:
    """The long-lived page of one evaluator slot.

    Every load navigates to a new origin (``http://localhost:<port>/``, a port this tab has not
    used) whose document our request router answers with the sample's HTML: to the page it looks
    like a developer's local preview, and nothing reaches the network. A navigation gives a fresh window, so no
    globals, listeners or timers survive from one sample to the next, and a fresh origin gives
    fresh storage; reusing the page keeps the renderer and its caches warm. Every other request
    is refused before it leaves the browser.
    """

    def __init__(self, context: BrowserContext, settings: RenderSettings) -> None:
        self._context = context
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
        self._ports_used: set[int] = set()
        self._ports = random.Random()
        # The mouse pointer may rest on the page: we moved it, or a check had the raw page.
        self.pointer_on_page = False
        # Loader ids of the main frame's latest commits, for depart().
        self._committed_loaders: collections.deque[str] = collections.deque(maxlen=8)
        self._commits = asyncio.Event()

    @property
    def page(self) -> Page:
        if self._page is None:
            raise ProbeError("the page is not open")
        return self._page

    async def start(self) -> None:
        page = await self._context.new_page()
        self._page = page
        page.on("crash", lambda _page: self.crashed.set())
        page.on("dialog", self._on_dialog)
        page.on("popup", self._on_popup)
        page.on("console", self._on_console)
        page.on("pageerror", lambda err: EventLog._add(self.events.page_errors, str(err)))
        # window.name survives navigations within a site; clear it before any page script runs
        # so one sample cannot hand data to the next.
        await page.add_init_script("window.name = '';")
        await page.route("**/*", self._on_route)
        self._cdp = await self._context.new_cdp_session(page)
        # Page.windowOpen also reports window.open() calls the popup blocker refused.
        self._cdp.on("Page.windowOpen", self._on_window_open)
        self._cdp.on("Page.frameNavigated", self._on_frame_navigated)
        await self._cdp.send("Page.enable")
        # The headless shell's user agent and brands name it; present the desktop Chromium.
        await self._cdp.send(
            "Emulation.setUserAgentOverride",
            user_agent_override(self._context.browser.version if self._context.browser else ""),
        )
        await self._guard_navigations()
        # Chromium runs this in our isolated world as each top-level document is created, which
        # costs about 40 % less than evaluating axe-core after the load (measured: median open
        # 393 ms against 638 ms under load); load() finds the probe already there. Frames
        # inside the page are skipped, as before, and so is the about:blank every sample departs
        # to (Tab.depart): evaluating the bundle there cost about 45 ms of CPU per sample.
        self._new_document_script = await self._cdp.send(
            "Page.addScriptToEvaluateOnNewDocument",
            {
                "source": f"if (window === window.top && location.protocol !== 'about:') {{\n{self.probe_bundle()}\n}}",
                "worldName": _WORLD,
            },
        )

    async def load(self, html: str, settle_ms: int = 0) -> None:
        """Navigate to a fresh origin that serves ``html``, set up the probe world, and after the
        load event let the page settle as :meth:`Session.settle` does for ``settle_ms``."""
        self._loads += 1
        self.cut_short = None
        url = self._next_origin()
        self._pending[url] = html
        self._current_url = url
        self._world = None
        # Cookies ignore the port: one set by the last sample on localhost would reach this one.
        await self._context.clear_cookies()
        # What the last document left is collected by the trim after this load, or after its
        # axe run. (A trim before each load, too, cost a round trip per load and, measured once
        # the heap readings were precise, changed the benchmark's peak PSS by nothing: 725-741
        # MiB without it, 735-745 MiB with it.)
        if self.pointer_on_page:
            # The new document reuses the page's frame and widget (RenderDocument is off, see
            # browser.py), and with them the pointer's last position: a check that left the
            # mouse on a menu would have the next document open it on :hover. Outside the
            # viewport, the pointer hovers nothing. (Only pointer events sent to the browser
            # move it, so after a sample that sent none this round trip is saved.)
            await self.page.mouse.move(-1, -1)
            self.pointer_on_page = False
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

    def _next_origin(self) -> str:
        """A fresh origin for the next document: localhost on a port this tab has not served.

        A new origin gives the document empty storage (local and session storage, IndexedDB, cache
        storage and permissions are kept per origin, port included; cookies are not and are
        cleared before each load). The name is what a person previewing their page sees, so a page
        cannot tell the evaluator from its author by its origin; the port varies as a dev
        server's does when its usual one is taken.
        """
        while True:
            port = self._ports.randrange(1025, 65536)
            if port not in self._ports_used and port not in _UNSAFE_PORTS:
                self._ports_used.add(port)
                return f"http://localhost:{port}/"

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
        (see ``AsyncEvaluator._leave``). Measured cost: 13-30 ms per sample on a quiet machine,
        about 60 ms when every core is busy.
        """
        assert self._cdp is not None
        self.events = EventLog()
        self._world = None
        self._current_url = "about:blank"
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

    async def _guard_navigations(self) -> None:
        """Have each new top-level document cancel the navigations it starts itself (see
        ``_NAVIGATION_GUARD``), and record them as blocked navigations of the sample."""
        assert self._cdp is not None
        # Bindings reach named isolated worlds only with the Runtime domain on in this session.
        await self._cdp.send("Runtime.enable")
        await self._cdp.send("Runtime.addBinding", {"name": _HELD_BINDING, "executionContextName": _WORLD})
        self._cdp.on("Runtime.bindingCalled", self._on_binding)
        await self._cdp.send(
            "Page.addScriptToEvaluateOnNewDocument", {"source": _NAVIGATION_GUARD, "worldName": _WORLD}
        )

    def _on_binding(self, params: dict[str, Any]) -> None:
        if params.get("name") == _HELD_BINDING:
            EventLog._add(self.events.blocked_navigations, str(params.get("payload") or ""))

    async def close(self) -> None:
        page, self._page = self._page, None
        self._world = None
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
        if self._cdp is None:
            raise ProbeError("the page is not open")
        shot = await self._cdp.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "clip": {**clip, "scale": 1},
                "fromSurface": True,
                "captureBeyondViewport": False,
            },
        )
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

    def _on_console(self, message: Any) -> None:
        if message.type == "error":
            EventLog._add(self.events.console_errors, message.text)


class Session:
    """One sample on a :class:`Tab`. Checks receive it; the evaluator owns its lifecycle."""

    def __init__(self, tab: Tab, html: str) -> None:
        self._tab = tab
        self._html = html
        self._settings = tab.settings
        self._dirty = False
        self._epoch = 0
        # The page kept starting animations through a whole settle: see _settled.
        self.restless = False
        # Settles the safety bound stopped while an animation was still running (a machine
        # starved for seconds): reads after them may precede the page's end-of-animation handlers.
        self.settle_stalls = 0
        self.axe_runs: list[tuple[str, dict[str, Any]]] = []
        # The declared index of the check running now (-1 before the checks): axe runs are
        # merged in this order, whatever order the checks ran in.
        self.position = -1
        self.axe_positions: list[int] = []
        # What each axe run reached and could not reach, in the order of axe_runs.
        self.coverage: list[AuditPart] = []
        # How long the last audit made by next_state took in the page.
        self.inline_audit_ms = 0.0
        self._may_have_closed_roots = may_have_closed_shadow_roots(html)

    @property
    def page(self) -> Page:
        """The Playwright page itself, for what the helpers do not cover.

        Anything can be done with it, so taking it counts as acting on the page: the next check
        gets a fresh page, and the next document gets the mouse pointer moved off it."""
        self._touch()
        self._tab.pointer_on_page = True
        return self._tab.page

    @property
    def crashed(self) -> asyncio.Event:
        return self._tab.crashed

    @property
    def dirty(self) -> bool:
        """True once a check interacted with the page; the next check then gets a fresh one."""
        return self._dirty

    async def open(self) -> None:
        self._dirty = False
        # The probe world is new: it knows no epoch yet and syncs with the next call.
        await self._tab.load(self._html, self._settings.settle_ms)

    async def _evaluate(self, expression: str, *, await_promise: bool = True) -> Any:
        return await self._tab.evaluate(expression, await_promise=await_promise)

    async def probe(self, function: str, *args: Any) -> Any:
        """Call one probe function in the isolated world with JSON arguments."""
        arguments = ", ".join(json.dumps(a) for a in args)
        # sync() lets the probe drop its cached accessibility tree when we acted since last time.
        return await self._evaluate(
            f"globalThis.__a11yProbe.sync({self._epoch}), globalThis.__a11yProbe.{function}({arguments})"
        )

    async def run_axe(self, state: str, *, disable: tuple[str, ...] = ()) -> dict[str, Any]:
        """Audit the page as it is now: its document, frames and closed shadow roots (see
        :mod:`lm_eval_a11y.engine.audit`); what could not be audited is kept in :attr:`coverage`.
        ``disable`` names axe rules left out of this run."""
        part = await audit_document(
            self._tab, self._axe_options(disable), look_for_closed_roots=self._may_have_closed_roots
        )
        return await self._record_axe(state, part)

    def _axe_options(self, disable: tuple[str, ...]) -> dict[str, Any]:
        options = self._settings.axe_options
        if disable:
            rules = {**options.get("rules", {}), **{rule: {"enabled": False} for rule in disable}}
            options = {**options, "rules": rules}
        return options

    async def _record_axe(self, state: str, part: AuditPart) -> dict[str, Any]:
        result = part.result
        heap = result.pop("heap", None)
        self.axe_runs.append((state, result))
        self.axe_positions.append(self.position)
        self.coverage.append(part)
        await self._tab.trim_memory(heap)
        return result

    @property
    def html(self) -> str:
        return self._html

    # ---------------------------------------------------------------- state control (checks)

    async def reset(self) -> None:
        """Return to the page as first rendered: a fresh document and origin, the same HTML."""
        await self.open()

    async def axe(self, state: str) -> int:
        """Run axe in the state the page is in now; its findings join the sample's axe result.

        Returns the number of WCAG failure nodes found in this state, for a check that wants it.
        """
        label = state.strip() or "state"
        result = await self.run_axe(label)
        return sum(v["node_count"] for v in result["violations"] if "best-practice" not in v["tags"])

    async def settle(self, ms: int | None = None) -> None:
        """Let the page react: at least two animation frames and at least ``ms`` milliseconds of
        timers (the setting's ``settle_ms`` by default), side by side, then one more task turn;
        then, while CSS transitions, CSS animations or Web Animations that end within
        :data:`SETTLE_CAP_MS` by their own timing are running, wait for them to end and react
        again, however long a loaded machine takes (docs/settling.md).

        Infinite animations and ones that end later than the cap are not waited for. Every
        action (press, click, hover, typing, focus) settles this way before it returns."""
        await self._settled("settle", ms)

    async def _settled(self, function: str, ms: int | None = None, cap_ms: int = SETTLE_CAP_MS, *first: Any) -> Any:
        """Call a probe function (with ``first`` arguments before the timings) that settles as
        :meth:`settle` describes, then returns what it read.

        A page that still runs animations after waiting its whole cap keeps starting new ones (a
        ticker, an animation restarted on every frame) and never settles: from then on this
        sample's actions stop waiting for animations, so that it costs one cap and not one per
        action (which would spend the evaluation's time budget)."""
        delay = self._settings.settle_ms if ms is None else ms
        cap = 0 if self.restless else max(int(cap_ms), 0)
        self._epoch += 1
        reply = await self.probe(function, *first, max(int(delay), 0), cap)
        self._note_settle(reply)
        return reply["value"]

    def _note_settle(self, reply: dict[str, Any]) -> None:
        """What a settle in the probe said of the page: restless from now on, or stalled."""
        if reply["restless"]:
            self.restless = True
        if reply.get("stalled"):
            self.settle_stalls += 1

    async def next_state(
        self, within_ms: int, *, look: bool = False, audit: str | None = None, disable: tuple[str, ...] = ()
    ) -> str:
        """Wait up to ``within_ms`` for the page to change its document or its style sheets; after
        a change, let it settle as :meth:`settle` does. ``look``: a page already in a state no
        audit has seen whole counts as changed, without waiting.

        With ``audit`` (a state name), a new state of a page without frames is audited in the
        same call (without the rules ``disable`` names) and recorded as :meth:`run_axe` records
        its runs: all in one round trip, so that a page that shows a state only briefly has not
        left it before the audit. A page that holds closed shadow roots by then (searched for
        after the audit, where the markup can make them) is left to :meth:`run_axe`, which opens
        them.

        Returns ``"unchanged"``, ``"seen"`` (an axe run has seen the state it settled in whole),
        ``"audited"`` (audited in this call) or ``"new"`` (a state no audit has seen, not audited
        here: a page with frames or closed shadow roots, audited by :meth:`run_axe`)."""
        cap = 0 if self.restless else SETTLE_CAP_MS
        inline = audit is not None and self._tab.frame_count() == 0
        reply = await self.probe(
            "nextChange",
            max(int(within_ms), 0),
            max(int(self._settings.settle_ms), 0),
            cap,
            look,
            self._axe_options(disable) if inline else None,
        )
        if not reply["changed"]:
            return "unchanged"
        self._epoch += 1
        self._note_settle(reply)
        if reply["audited"]:
            return "seen"
        report = reply.get("report")
        # A frame the page added meanwhile, or a closed shadow root, was not audited: then the
        # caller audits it all.
        if report is None or audit is None or self._tab.frame_count() != 0:
            return "new"
        if self._may_have_closed_roots and await has_closed_roots(self._tab):
            return "new"
        self.inline_audit_ms = float(reply.get("audit_ms", 0.0))
        await self._record_axe(audit, AuditPart(result=report))
        return "audited"

    async def eventually(self, condition: Callable[[], Awaitable[_T]], within_ms: int = SETTLE_CAP_MS) -> _T:
        """Ask ``condition`` until its answer is truthy or ``within_ms`` have passed; return the
        last answer.

        For what a page does on a timer after an action has settled (a menu that closes 300 ms
        after Escape, a message shown after a debounce): :meth:`settle` cannot see a page's
        timers, so a check that expects a change asks again, as a person would look again. The
        condition reads the page afresh each time (``find``, ``refresh``, ``active``). A page
        that changes at once pays one reading; only a page that never changes waits the whole
        ``within_ms``.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(within_ms, 0) / 1000
        while True:
            answer = await condition()
            left_ms = (deadline - loop.time()) * 1000
            if answer or left_ms <= 0:
                return answer
            await self._settled("settle", min(_POLL_MS, int(left_ms)), int(left_ms))

    async def wait(self, ms: int) -> None:
        self._epoch += 1
        await asyncio.sleep(ms / 1000)

    def _touch(self) -> None:
        """Mark that we act on the page: later checks get a fresh page, cached reads are stale."""
        self._dirty = True
        self._epoch += 1

    # ---------------------------------------------------------------- finding things

    async def find(self, selector: str, within: Element | None = None) -> Element | None:
        found = await self.find_all(selector, within)
        return found[0] if found else None

    async def find_all(self, selector: str, within: Element | None = None) -> list[Element]:
        items = await self.probe("query", selector, within.ref if within else None)
        return [_element(item) for item in items]

    async def by_role(self, role: str | Sequence[str], name: str | None = None) -> list[Element]:
        roles = [role] if isinstance(role, str) else list(role)
        items = [_element(item) for item in await self.probe("byRole", roles)]
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

    async def _describe(self, ref: int) -> Element:
        return _element(await self.probe("describe", ref))

    async def active(self) -> Element | None:
        """The focused element (through shadow roots), or None when focus is on the body."""
        data = await self.probe("active")
        return None if data is None else _element(data)

    async def is_active(self, element: Element) -> bool:
        current = await self.active()
        return current is not None and current.ref == element.ref

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

    # ---------------------------------------------------------------- acting like a user

    async def press(self, key: str, *, settle: bool = True) -> Element | None:
        """Press a key (Playwright key names: ``Tab``, ``Shift+Tab``, ``Enter``, ``ArrowDown``...)
        and return where focus is afterwards."""
        self._touch()
        await self._tab.page.keyboard.press(key)
        if not settle:
            return await self.active()
        data = await self._settled("settleThenActive")
        return None if data is None else _element(data)

    async def type_text(self, text: str) -> None:
        self._touch()
        await self._tab.page.keyboard.type(text)
        await self.settle()

    async def focus(self, element: Element) -> Element | None:
        """Move focus programmatically, as a starting point for keyboard steps; the page settles
        (:meth:`settle`: a tooltip that fades in on focus has faded in) before focus is read.

        Focus handlers run during the call itself, so only the transitions and animations the
        focus started are waited for (then frames, not ``settle_ms`` of timers): a page that
        animates nothing on focus gets no wait at all."""
        self._touch()
        data = await self._settled("focusThenSettle", 0, SETTLE_CAP_MS, element.ref)
        return None if data is None else _element(data)

    async def blur(self) -> None:
        self._touch()
        await self.probe("blur")

    async def click(self, element: Element) -> None:
        """Click the middle of the element with the mouse, as a person would (no DOM shortcut)."""
        x, y = await self._pointer_target(element, "clicked")
        await self._tab.page.mouse.click(x, y)
        await self.settle()

    async def _pointer_target(self, element: Element, verb: str) -> tuple[float, float]:
        """Scroll the element into view and return the middle of its box, where the mouse goes;
        from here on the pointer may rest on the page (see :attr:`Tab.pointer_on_page`)."""
        self._touch()
        rect = await self.probe("scrollIntoView", element.ref)
        if not rect or rect["width"] <= 0 or rect["height"] <= 0:
            raise ProbeError(f"{element.describe()} has no size on screen and cannot be {verb}")
        self._tab.pointer_on_page = True
        return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2

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
        await self._tab.page.keyboard.press(key)
        found: dict[str, Any] = await self.probe("step", within, kind)
        return found

    async def _from_the_top(self) -> None:
        """Start a keyboard walk as a visitor does: nothing focused, the page scrolled to its top."""
        self._touch()
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
                await self._tab.page.keyboard.press("Escape")
                await self.settle(0)
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
        page = self._tab.page
        original = page.viewport_size or {"width": self._settings.viewport[0], "height": self._settings.viewport[1]}
        try:
            await page.set_viewport_size({"width": width, "height": original["height"]})
            # Resize handlers run with the next frame; what they start to animate is waited for.
            await self.settle(0)
            found: dict[str, Any] = await self.probe("overflowingText", limit)
        finally:
            await page.set_viewport_size(original)
        return found

    async def precedes(self, first: Element, second: Element) -> bool:
        """Whether ``first`` comes before ``second`` in the document (``second`` inside it counts)."""
        return bool(await self.probe("precedes", first.ref, second.ref))

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

    async def range_value(self, element: Element) -> dict[str, Any]:
        """The value a range widget reports to assistive technology: ``now``, ``min``, ``max``
        (numbers or None) and ``text`` (aria-valuetext).

        ARIA attributes win; native ``<meter>``, ``<progress>`` and ``<input type=range|number>``
        fall back to their DOM properties, because their defaults never appear as attributes.
        """
        value: dict[str, Any] = await self.probe("rangeValue", element.ref)
        return value

    async def hover(self, element: Element) -> None:
        """Rest the mouse pointer on the middle of the element, as a person would (no DOM shortcut).

        Moving in one step from wherever the pointer is means no element in between is hovered,
        which is how a checker can tell content that survives the pointer moving onto it.
        """
        x, y = await self._pointer_target(element, "hovered")
        await self._tab.page.mouse.move(x, y)
        await self.settle()
