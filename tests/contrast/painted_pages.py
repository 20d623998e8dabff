"""Pages whose text is painted at about 1.4:1 by a construction the CSS colours do not show, and
their twins: the same construction with readable text. Each page is otherwise accessible, so its
verdict turns on the contrast of the one target (``#t``) alone."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAINTED", "Painted"]


def _page(body: str, style: str = "") -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Painted text</title><style>'
        "body { margin: 0; padding: 20px; font: 16px sans-serif; background: #fff; color: #000; }"
        f"{style}</style></head><body><main><h1>Notice</h1>{body}</main></body></html>"
    )


# A light image (a 2x2 PNG of #eee and #f4f4f4) as a data: URL: it always loads.
_LIGHT_IMAGE = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='4' height='4'%3E"
    "%3Crect width='4' height='4' fill='%23eeeeee'/%3E%3Crect width='2' height='2' fill='%23f6f6f6'/%3E%3C/svg%3E"
)


@dataclass(frozen=True)
class Painted:
    name: str
    bad: str  # the text as a person sees it is at about 1.3-1.5:1
    good: str  # the same construction, readable


def _pair(name: str, body: str, style_bad: str, style_good: str, body_good: str | None = None) -> Painted:
    return Painted(name, _page(body, style_bad), _page(body if body_good is None else body_good, style_good))


_TEXT = "Payments are due on the first day of each month."

PAINTED: tuple[Painted, ...] = (
    # filter on the text: black text made pale, or the whole box pulled towards grey.
    _pair("filter-invert", f'<p id="t">{_TEXT}</p>', "#t { filter: invert(0.85) }", "#t { filter: invert(0.2) }"),
    _pair("filter-opacity", f'<p id="t">{_TEXT}</p>', "#t { filter: opacity(0.15) }", "#t { filter: opacity(0.9) }"),
    _pair(
        "filter-contrast",
        f'<p id="t">{_TEXT}</p>',
        "#t { background: #fff; filter: contrast(0.12) }",
        "#t { background: #fff; filter: contrast(0.8) }",
    ),
    # Dark text blended with white by difference: it shows as pale grey.
    _pair(
        "mix-blend-mode",
        f'<p id="t">{_TEXT}</p>',
        "#t { color: #262626; mix-blend-mode: difference }",
        "#t { color: #dddddd; mix-blend-mode: difference }",
    ),
    # A translucent white layer over black text.
    _pair(
        "translucent-overlay",
        f'<div class="w"><p id="t">{_TEXT}</p><div class="veil"></div></div>',
        ".w { position: relative } .veil { position: absolute; inset: 0; background: rgba(255,255,255,.85);"
        " pointer-events: none }",
        ".w { position: relative } .veil { position: absolute; inset: 0; background: rgba(255,255,255,.2);"
        " pointer-events: none }",
    ),
    _pair(
        "backdrop-filter",
        f'<div class="w"><p id="t">{_TEXT}</p><div class="veil"></div></div>',
        ".w { position: relative } .veil { position: absolute; inset: 0; backdrop-filter: contrast(0.12);"
        " pointer-events: none }",
        ".w { position: relative } .veil { position: absolute; inset: 0; backdrop-filter: contrast(0.8);"
        " pointer-events: none }",
    ),
    # Text whose colour comes from a pseudo-element.
    _pair(
        "first-line",
        f'<p id="t">{_TEXT}</p>',
        "#t::first-line { color: #dcdcdc }",
        "#t::first-line { color: #333 }",
    ),
    _pair(
        "after",
        '<p id="t"></p>',
        '#t::after { content: "Payments are due on the first day of each month."; color: #dcdcdc }',
        '#t::after { content: "Payments are due on the first day of each month."; color: #333 }',
    ),
    _pair(
        "placeholder",
        '<label for="t">Email</label> <input id="t" type="email" placeholder="name@example.com">',
        "#t { font: 16px sans-serif } #t::placeholder { color: #dcdcdc; opacity: 1 }",
        "#t { font: 16px sans-serif } #t::placeholder { color: #595959; opacity: 1 }",
    ),
    _pair(
        "svg-text",
        f'<svg id="s" width="600" height="40" role="img" aria-labelledby="t"><text id="t" x="0" y="24"'
        f' font-size="16">{_TEXT}</text></svg>',
        "#t { fill: #dcdcdc }",
        "#t { fill: #333 }",
    ),
    # An ancestor that never stops moving, over a light background image.
    _pair(
        "animated-ancestor",
        f'<div class="spin"><p id="t">{_TEXT}</p></div>',
        f".spin {{ background: #eee url(\"{_LIGHT_IMAGE}\"); animation: wob 3s linear infinite }}"
        " @keyframes wob { from { transform: translateX(0) } to { transform: translateX(0.01px) } }"
        " #t { color: #c4c4c4 }",
        f".spin {{ background: #eee url(\"{_LIGHT_IMAGE}\"); animation: wob 3s linear infinite }}"
        " @keyframes wob { from { transform: translateX(0) } to { transform: translateX(0.01px) } }"
        " #t { color: #333 }",
    ),
    # Pale text on ruled paper: the dark rules lie within a stroke's reach of every glyph.
    _pair(
        "ruled",
        f'<p id="t">{_TEXT}</p>',
        "#t { color: #dcdcdc; line-height: 20px;"
        " background: repeating-linear-gradient(#fff 0 3px, #000 3px 4px) }",
        "#t { color: #333; line-height: 20px;"
        " background: repeating-linear-gradient(#fff 0 3px, #000 3px 4px) }",
    ),
    _pair(
        "gridded",
        f'<p id="t">{_TEXT}</p>',
        "#t { color: #dcdcdc; background-color: #fff; background-image:"
        " linear-gradient(90deg, #000 1px, transparent 1px), linear-gradient(#000 1px, transparent 1px);"
        " background-size: 5px 5px }",
        "#t { color: #333; background-color: #fff; background-image:"
        " linear-gradient(90deg, #000 1px, transparent 1px), linear-gradient(#000 1px, transparent 1px);"
        " background-size: 5px 5px }",
    ),
    # 320 readable lines axe cannot decide (over a gradient) before the one that is not.
    _pair(
        "past-node-limit",
        "".join(f'<p class="g">Readable line {i}</p>' for i in range(320)) + f'<p class="g" id="t">{_TEXT}</p>',
        ".g { margin: 0; background: linear-gradient(90deg, #fff, #fefefe); color: #000 }"
        " #t { color: #dcdcdc }",
        ".g { margin: 0; background: linear-gradient(90deg, #fff, #fefefe); color: #000 }"
        " #t { color: #333 }",
    ),
)
