"""Finding and launching Chromium. Nothing here runs at import time."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from playwright.async_api import Browser, BrowserContext

from lm_eval_a11y.engine.disguise import LOCALE, TIME_ZONE, disguise_args

__all__ = [
    "CHROMIUM_ARGS",
    "DEFAULT_CONCURRENCY",
    "DISABLED_FEATURES",
    "IGNORED_DEFAULT_ARGS",
    "ChromiumNotFoundError",
    "find_chromium",
    "open_slot_context",
    "user_agent_override",
]

# Pages evaluated at once by default. A page spends much of its evaluation waiting on its own
# timers and frames after each key press, so two slots per core keep the CPU busy (measured on 2
# cores, benchmark corpus: 2 slots 1.64-1.81 pages/s, 3 slots 1.90-1.98, 4 slots 2.15-2.25, 5
# slots 2.07-2.13); the 690 KB benchmark page then takes about 12 s of the default 20 s budget.
# With later engine changes 5 slots gained 4-9 % over 4 (2.72-2.92 against 2.49-2.81 pages/s)
# but took the browser's peak memory to 942 MiB of the 1 GiB target, so two per core stays.
DEFAULT_CONCURRENCY = min(2 * (os.cpu_count() or 1), 8)

# Chromium keeps only the last --disable-features switch, and Playwright puts its own list before
# our arguments, so our switch must carry Playwright's list too (as of Playwright 1.65; the
# browser tests read the launched command line and fail if an upgrade adds a name missing here).
_PLAYWRIGHT_DISABLED_FEATURES: tuple[str, ...] = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
# Ours: each headless window otherwise keeps two renderers for an omnibox popup nobody sees
# (about 35 MB per evaluator slot, measured), and a spare renderer waits for a cross-site
# navigation that never comes: every sample is served on the same site.
# DeferRendererTasksAfterInput holds the page's tasks back after every key press until the next
# frame is drawn (up to one 60 Hz frame): measured here, a zero-delay timer after a Tab ran
# 13-14 ms later instead of at once, and a keyboard walk waits for one task turn per key. Without
# it a page's tasks run in the order they were queued, as in other browsers, only sooner.
# RenderDocument gives every new document its own frame host and widget; without it a navigation
# within the one site our samples use keeps them, as Chromium long did (the document, its window
# and its origin are new either way): a load of a small page took 60 -> 42 ms of CPU across the
# processes, the pool 2.77 -> 3.05 pages/s on the benchmark corpus (medians of 3 alternating
# runs). The widget's pointer position is what carries over; Tab.load moves it off the page
# whenever something may have moved it onto the page.
DISABLED_FEATURES: tuple[str, ...] = (
    *_PLAYWRIGHT_DISABLED_FEATURES,
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    "SpareRendererForSitePerProcess",
    "DeferRendererTasksAfterInput",
    "RenderDocument",
)

# Flags that keep a headless Chromium quiet and closed off on a machine without a network.
# The proxy points at a port nothing listens on: if a request ever slipped past our request
# routing (WebSocket, WebRTC), it would fail on loopback instead of leaving the machine.
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    # Every sample is a new JavaScript context whose functions start cold, so V8 compiles axe's
    # hot functions again with Maglev and TurboFan for each page, on background threads; capped
    # at the baseline compiler the renderer spent 4.8 -> 2.0 s of CPU on those threads for the
    # benchmark corpus, the pool gained 7-17 % (2.39 -> 2.68 pages/s, medians of 3 alternating
    # runs) and a new browser per page lost nothing measurable. JavaScript means the same in
    # every tier. The young generation is capped at 1 MiB per semi-space (V8's default lets it
    # grow to 16 MiB, and axe's allocations take it there in every renderer): the pool's peak
    # memory on the benchmark corpus went 797-823 -> 685-690 MiB at the same speed and CPU.
    "--js-flags=--max-old-space-size=512 --max-opt=1 --max-semi-space-size=1",
    "--font-render-hinting=none",
    # performance.memory, which the probe reports after each load and axe run so the memory trim
    # needs no round trip of its own, is otherwise rounded into buckets and cached for twenty
    # minutes per renderer: every reading after the first repeated it, and no trim after an axe
    # run ever fired (a 690 KB page's 130 MB heap read as 9.5 MB).
    "--enable-precise-memory-info",
    "--disable-features=" + ",".join(DISABLED_FEATURES),
    # A page must not be able to tell it is being evaluated (it could repair itself for the
    # audit only): without this Blink sets navigator.webdriver for an automated browser.
    "--disable-blink-features=AutomationControlled",
    # The screen (with a taskbar), media devices to list, and a host resolver that looks nothing
    # up: see disguise.py.
    *disguise_args(),
)

# Playwright's defaults that a page could read: --enable-automation sets navigator.webdriver, and
# --disable-popup-blocking would let window.open() without a gesture open windows (the popup
# blocker stays on; Page.windowOpen still records the attempt).
IGNORED_DEFAULT_ARGS: tuple[str, ...] = ("--disable-popup-blocking", "--enable-automation")


def user_agent_override(chromium_version: str) -> dict[str, object]:
    """The arguments of CDP ``Emulation.setUserAgentOverride`` that make the headless shell
    present itself as the desktop Chromium of the same version: its user agent says
    ``HeadlessChrome`` and ``navigator.userAgentData`` lists a ``HeadlessChrome`` brand, either of
    which a page can test to behave differently while it is audited. The version is reduced the
    way Chromium reduces it (``156.0.0.0``); the full one stays in the high-entropy values."""
    major = chromium_version.split(".", 1)[0] or "0"
    brands = [{"brand": "Not:A-Brand", "version": "8"}, {"brand": "Chromium", "version": major}]
    full = [{"brand": "Not:A-Brand", "version": "8.0.0.0"}, {"brand": "Chromium", "version": chromium_version}]
    return {
        "userAgent": (
            f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{major}.0.0.0 Safari/537.36"
        ),
        "acceptLanguage": "en-US,en",
        "platform": "Linux x86_64",
        "userAgentMetadata": {
            "brands": brands,
            "fullVersionList": full,
            "fullVersion": chromium_version,
            "platform": "Linux",
            "platformVersion": "",
            "architecture": "x86",
            "model": "",
            "mobile": False,
            "bitness": "64",
            "wow64": False,
        },
    }


_FIX = (
    "Install it with `apt-get install -y chromium-headless-shell` (Debian/Ubuntu; the full `chromium`"
    " package works too) or run `bash scripts/setup.sh`, or point A11Y_CHROMIUM at a Chromium or"
    " Chrome binary."
)

# Debian's real binaries; /usr/bin/chromium and /usr/bin/chromium-headless-shell are shell
# wrappers that add flags of their own, so the binaries behind them are launched instead.
_DEBIAN_BINARIES: dict[str, Path] = {
    "chromium-headless-shell": Path("/usr/lib/chromium/chromium-headless-shell"),
    "chromium": Path("/usr/lib/chromium/chromium"),
}


class ChromiumNotFoundError(RuntimeError):
    """No Chromium binary could be found; the message says how to install one."""


def find_chromium() -> Path:
    """A11Y_CHROMIUM, then Chromium's headless shell, then a full Chromium or Chrome.

    The headless shell is Chromium's own engine without the desktop browser around it, and
    Playwright's choice for headless runs too. The engine is the same Blink and V8, so pages
    render and behave the same. The full build, in Chromium's new headless mode, would also show
    a page plugins, a PDF viewer, ``window.chrome``, a toolbar around the page and a notification
    permission of "default" (docs/trust.md lists them as what a page can still tell), but it costs
    more CPU: its browser and GPU processes took about twice the shell's, and with four slots on
    a 2-core machine under load it evaluated 56-88 % as many pages per second
    (``scripts/bench_evaluator.py``, alternating runs; docs/trust.md has the figures), so it is
    used only when the shell is absent.
    """
    override = os.environ.get("A11Y_CHROMIUM")
    if override:
        path = Path(override).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ChromiumNotFoundError(f"A11Y_CHROMIUM={override!r} is not an executable file. {_FIX}")
        return path
    for name in ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"):
        debian = _DEBIAN_BINARIES.get(name)
        found = shutil.which(name)
        if found and not (_is_script(Path(found)) and debian is not None and debian.is_file()):
            return Path(found)
        if debian is not None and debian.is_file():
            return debian
    raise ChromiumNotFoundError(f"Chromium was not found. {_FIX}")


def _is_script(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


async def open_slot_context(browser: Browser) -> BrowserContext:
    """A browser context as every slot's: no emulated viewport (the page is laid out in its
    window, which has the browser's toolbar around it, on a screen with a taskbar: Tab.start
    sizes the window to the viewport, disguise.py), a desktop's time zone and locale, no service
    workers, no downloads, the default preferences."""
    return await browser.new_context(
        no_viewport=True,
        timezone_id=TIME_ZONE,
        locale=LOCALE,
        java_script_enabled=True,
        service_workers="block",
        accept_downloads=False,
        reduced_motion="no-preference",
        color_scheme="light",
    )
