"""Finding and launching Chromium. Nothing here runs at import time."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["CHROMIUM_ARGS", "DISABLED_FEATURES", "ChromiumNotFoundError", "find_chromium"]

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
DISABLED_FEATURES: tuple[str, ...] = (
    *_PLAYWRIGHT_DISABLED_FEATURES,
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    "SpareRendererForSitePerProcess",
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
    "--js-flags=--max-old-space-size=512",
    "--font-render-hinting=none",
    "--disable-features=" + ",".join(DISABLED_FEATURES),
)

_FIX = (
    "Install it with `apt-get install -y chromium` (Debian/Ubuntu) or run `bash scripts/setup.sh`, "
    "or point A11Y_CHROMIUM at a Chromium or Chrome binary."
)


class ChromiumNotFoundError(RuntimeError):
    """No Chromium binary could be found; the message says how to install one."""


def find_chromium() -> Path:
    """A11Y_CHROMIUM, then ``chromium`` / ``chromium-browser`` on PATH, then Debian's real binary."""
    override = os.environ.get("A11Y_CHROMIUM")
    if override:
        path = Path(override).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ChromiumNotFoundError(f"A11Y_CHROMIUM={override!r} is not an executable file. {_FIX}")
        return path
    debian = Path("/usr/lib/chromium/chromium")
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            # Debian's /usr/bin/chromium is a shell wrapper that adds its own flags; launch the
            # real binary behind it so our flags are the only ones.
            if _is_script(Path(found)) and debian.is_file():
                return debian
            return Path(found)
    if debian.is_file():
        return debian
    raise ChromiumNotFoundError(f"Chromium was not found. {_FIX}")


def _is_script(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False
