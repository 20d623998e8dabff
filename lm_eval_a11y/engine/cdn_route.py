"""The request router's answer to a library request from a public CDN: the pinned copy under
``evaluator/node_modules`` (engine/cdn_mirror.py maps the URL), recorded in the sample's log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_eval_a11y.engine.cdn_mirror import content_type, resolve
from lm_eval_a11y.observation import LibraryRequest
from lm_eval_a11y.resources import library_root

__all__ = ["serve_library"]

_MAX_RECORDED = 50
_NOT_INSTALLED = Path(__file__).resolve().parent / "no-node-modules"


async def serve_library(route: Any, url: str, log: list[LibraryRequest]) -> bool:
    """Answer ``route`` from the mirror if ``url`` is a mirrored library's, and record every
    library request in ``log`` (once per URL). True when it was answered; False leaves the
    request to the caller, which blocks it."""
    # Without node_modules (a wheel alone) every library is "not installed": its page fails as
    # not mirrored rather than being judged as the empty page it renders.
    root = library_root() or _NOT_INSTALLED
    found = resolve(url, root)
    if found is None:
        return False
    # Served and refused requests are bounded apart: a page that first asks for many mirrored
    # URLs cannot push the one library it did not get out of its record (and so out of its
    # verdict).
    alike = [item for item in log if item.mirrored == found.mirrored]
    if len(alike) < _MAX_RECORDED and all(item.url != found.url for item in alike):
        log.append(found)
    if not found.mirrored:
        return False
    # CDNs answer with CORS open to all: a font (always fetched in CORS mode) and a script
    # loaded with crossorigin need it.
    headers = {"Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=31536000, immutable"}
    # By path: Playwright's driver reads the file (Babel standalone is 3 MB), not this process.
    await route.fulfill(status=200, content_type=content_type(found.file), headers=headers, path=root / found.file)
    return True
