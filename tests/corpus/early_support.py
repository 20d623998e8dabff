"""Pages for the early-stop tests: each one a way an evaluation stopped at the first failure could
keep or drop a page the full evaluation does not (the attacks), and pages that fail at each step.
"""

from __future__ import annotations

from corpus.support import ROOT, clean, failing, scripted

_HEAD = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body>'


def _page(body: str) -> str:
    return f"{_HEAD}<main><h1>Shop</h1>{body}</main></body></html>"


# Passing pages that a careless early stop would drop.
KEEP_ATTACKS: dict[str, str] = {
    "passes": clean(1),
    # A script: the page is watched up to its late-change horizon, and passes there too.
    "passes-scripted": scripted(2),
    # axe's best practices report it (content outside a landmark), and best practices never fail
    # a page: a stop at "any axe violation" would drop it.
    "best-practice-only": _HEAD
    + "<p>Opening hours</p><main><h1>Shop</h1><p>Fresh bread daily.</p></main></body></html>",
    # axe fails the text far down a repeating background it assumes white; the pixels clear it.
    # A stop at axe's colour-contrast answer, before the pixel check, would drop it.
    "contrast-axe-overturned": (ROOT / "tests" / "contrast" / "pages" / "long-canvas.html").read_text(encoding="utf-8"),
}

# Failing pages, each failing first at another step; a stop must never keep one.
FAIL_AT_STEPS: dict[str, str] = {
    # The first axe run's rules: image without alt, input without label.
    "fails-first-audit": failing(3),
    # Only a rule the first audit defers (two 14 px buttons side by side): target size.
    "fails-deferred-rule": _page(
        '<p>Quantity</p><button type="button" aria-label="Less" style="width:14px;height:14px;padding:0;'
        'margin:0">-</button><button type="button" aria-label="More" style="width:14px;height:14px;'
        'padding:0;margin:0">+</button>'
    ),
    # Only colour contrast, decided by the pixels.
    "fails-contrast": _page('<p style="color:#9a9a9a;background:#ffffff">Prices exclude delivery.</p>'),
    # Only a behaviour check: a clickable div no key reaches.
    "fails-a-check": _page(
        '<p>Details</p><div onclick="this.nextElementSibling.hidden = !this.nextElementSibling.hidden">'
        "Show delivery terms</div><p hidden>Delivery in three days.</p>"
    ),
    # Only late: an image without alt text, added when the page is first scrolled (the evaluator
    # scrolls a page with scripts through after its first audit, as a reader would). It passes at
    # first screen, so every step runs, the late audit included, and it fails there.
    "fails-late": _page(
        '<p>News</p><div style="height:3000px"></div><script>addEventListener("scroll", () => {'
        " const img = document.createElement('img'); img.src = 'data:,'; img.width = 40; img.height = 40;"
        " document.querySelector('main').append(img); }, { once: true });</script>"
    ),
}

EARLY_PAGES: dict[str, str] = {**KEEP_ATTACKS, **FAIL_AT_STEPS}
