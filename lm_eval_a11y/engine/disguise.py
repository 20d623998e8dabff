"""What a page sees of the browser that evaluates it: a person's desktop Chrome on a site of its own.

A page that recognises the evaluator can repair itself for the audit only, so everything here is
configuration of the browser (launch switches, context options, CDP commands on the browser's
side) and nothing patches the page's own objects, which a page could detect in turn
(``Function.prototype.toString``, property descriptors). What it sets, and why:

- **The origin.** Each document is served on ``https://<name>.<site>/``, a fresh host name for
  every load under one registrable site per slot (:class:`Origins`). Our request router answers
  the document (Playwright fulfils https requests itself, so Chromium never opens a connection
  or checks a certificate, and the document is a secure context); every other request is refused
  in the browser, a proxy on an unused loopback port catches anything that slips past, and the
  host resolver answers every name with "not found" (``HOST_RESOLVER_RULES``), so no host name is
  ever looked up. One site per slot, not one per sample: a navigation to another site gets a new
  renderer process under site isolation (measured: a renderer per load, against one for names
  under one site), while each host name is still its own origin with its own storage.
- **The window and the screen.** The page is laid out in the browser's window, not in an
  emulated viewport: a 1920x1080 screen with a 48 px taskbar (``--screen-info``), and a window
  placed off the screen's corner whose inner size is the evaluation viewport
  (:func:`present_desktop`). The full Chromium's window has its toolbar around the page, so
  ``outerHeight`` exceeds ``innerHeight`` as in a person's browser.
- **The rest.** A time zone and locale of a desktop in the United States (pool.py's context
  options), and media devices to list (``--use-fake-device-for-media-stream``: a microphone,
  a camera and a speaker, whose labels a page sees only with a permission it never gets).
  A connection with a round-trip time, and a notification permission whose query agrees with
  ``Notification.permission`` (:func:`present_desktop`). Plugins, the PDF viewer,
  ``window.chrome``, a toolbar and a "default" notification permission come only with the full
  Chromium build, which is not the default (browser.find_chromium; docs/trust.md).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

__all__ = [
    "DESKTOP_SCREEN",
    "HOST_RESOLVER_RULES",
    "LOCALE",
    "TASKBAR_HEIGHT",
    "TIME_ZONE",
    "Origins",
    "disguise_args",
    "present_desktop",
    "set_window_width",
]

# A common desktop monitor, with a taskbar along its bottom edge.
DESKTOP_SCREEN: tuple[int, int] = (1920, 1080)
TASKBAR_HEIGHT = 48
# Where a window a person opened sits: off the screen's corner (a window at 0,0 that does not
# fill the screen is the headless default).
_WINDOW_POSITION: tuple[int, int] = (160, 64)

TIME_ZONE = "America/New_York"
LOCALE = "en-US"

# Every host name resolves to nothing, so none is ever looked up (the proxy is an IP address).
HOST_RESOLVER_RULES = "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"


def disguise_args() -> tuple[str, ...]:
    """Chromium switches for the screen, the media devices and the host resolver."""
    width, height = DESKTOP_SCREEN
    return (
        f"--screen-info={{0,0 {width}x{height} workAreaBottom={TASKBAR_HEIGHT}}}",
        "--use-fake-device-for-media-stream",
        f"--host-resolver-rules={HOST_RESOLVER_RULES}",
        # The first window, before present_desktop places each page's own.
        f"--window-position={_WINDOW_POSITION[0]},{_WINDOW_POSITION[1]}",
    )


async def present_desktop(send: Any, viewport: tuple[int, int]) -> None:
    """Set up a new page's window and browser-side state as a person's desktop has them. ``send``
    is a CDP session's ``send`` for the page; nothing runs in the page.

    The window is sized so that the page is laid out in ``viewport`` (CSS pixels) with whatever
    the browser draws around it (the full build's toolbar; the headless shell draws none), and
    placed off the screen's corner. The connection reports a round-trip time and a bandwidth of
    an ordinary broadband line (``Network.overrideNetworkState`` changes what
    ``navigator.connection`` says, and throttles nothing: every request is answered or refused
    inside the browser anyway). The headless shell answers ``Notification.permission`` with
    "denied" whatever the permission is; its permission query is made to agree, as for a person
    who blocked notifications (the full build says "default" and "prompt" by itself).
    """
    window = await send("Browser.getWindowForTarget", {})
    bounds = window["bounds"]
    inner = (await send("Page.getLayoutMetrics", {}))["cssVisualViewport"]
    extra_w = max(int(bounds["width"]) - round(inner["clientWidth"]), 0)
    extra_h = max(int(bounds["height"]) - round(inner["clientHeight"]), 0)
    width, height = viewport
    left, top = _WINDOW_POSITION
    await send(
        "Browser.setWindowBounds",
        {
            "windowId": window["windowId"],
            "bounds": {"left": left, "top": top, "width": width + extra_w, "height": height + extra_h},
        },
    )
    await send(
        "Network.overrideNetworkState",
        {"offline": False, "latency": 50, "downloadThroughput": 1_250_000, "uploadThroughput": 625_000},
    )
    if extra_h == 0:
        # No toolbar: the headless shell.
        context = (await send("Target.getTargetInfo", {}))["targetInfo"]["browserContextId"]
        await send(
            "Browser.setPermission",
            {"permission": {"name": "notifications"}, "setting": "denied", "browserContextId": context},
        )


# Parts of host names: word-like, ordinary, nothing that says "test" or "evaluation".
_SITE_WORDS = (
    "maple", "harbor", "cedar", "river", "summit", "bright", "north", "stone", "willow", "meadow",
    "copper", "pine", "lantern", "orchard", "bay", "field", "crest", "grove", "birch", "hollow",
    "ember", "aspen", "clover", "beacon", "falcon", "juniper", "atlas", "coral", "sage", "tide",
)  # fmt: skip
_SITE_TLDS = ("com", "net", "org", "io", "co", "dev", "app")
_HOST_WORDS = (
    "www", "app", "shop", "blog", "docs", "help", "news", "store", "portal", "my", "account",
    "events", "learn", "support", "careers", "community", "booking", "studio", "forms", "info",
)  # fmt: skip


class Origins:
    """The origins one slot serves: one site, a host name under it no load has used before.

    A new origin gives the document empty storage (local and session storage, IndexedDB, cache
    storage and permissions are kept per origin; cookies, kept per site, are cleared before each
    load by the tab). Two tabs of one context share one :class:`Origins` (Tab.share_origins), so no
    origin is served twice in a context.
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng if rng is not None else random.Random()
        pick = self._rng.choice
        first, second = self._rng.sample(_SITE_WORDS, 2)
        self.site = f"{first}{pick(('', '-'))}{second}.{pick(_SITE_TLDS)}"
        self._used: set[str] = set()

    def next(self) -> str:
        """The URL of a fresh origin's root document."""
        pick = self._rng.choice
        while True:
            kind = self._rng.random()
            if kind < 0.4:
                name = pick(_HOST_WORDS)
            elif kind < 0.8:
                name = f"{pick(_SITE_WORDS)}-{pick(_HOST_WORDS)}"
            else:
                name = f"{pick(_HOST_WORDS)}{self._rng.randrange(2, 100)}"
            if len(self._used) > 1000:  # many loads in one context: names with more room
                name = f"{name}-{self._rng.randrange(2, 10_000)}"
            if name not in self._used:
                self._used.add(name)
                return f"https://{name}.{self.site}/"


async def set_window_width(send: Any, width: int, *, timeout_s: float = 2.0) -> None:
    """Make the page's window ``width`` CSS pixels wide (its height unchanged) and wait until the
    page is laid out at that width. The page sees a resize, as a person narrowing the window
    makes; its screen and window stay a desktop's (an emulated viewport would replace them with
    the viewport's own, and clearing the emulation does not bring them back). Both builds lay
    the page out at 320 px (the full one keeps its window 500 px wide and narrows the page)."""
    window = await send("Browser.getWindowForTarget", {})
    await send("Browser.setWindowBounds", {"windowId": window["windowId"], "bounds": {"width": width}})
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        layout = (await send("Page.getLayoutMetrics", {}))["cssVisualViewport"]
        if round(layout["clientWidth"]) == width or asyncio.get_running_loop().time() > deadline:
            return
        await asyncio.sleep(0.01)
