"""A React single-file page, as models write it (React, ReactDOM and Babel standalone from CDNs,
JSX in a text/babel script), rendered from the local mirror in real Chromium: its component is
drawn, audited, and the record names every library file served; a page whose library is not
mirrored fails and says which (docs/cdn-mirror.md)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.resources import library_root
from lm_eval_a11y.scoring import score_observation

pytestmark = pytest.mark.skipif(
    library_root() is None or not (library_root() / "react").is_dir(),  # type: ignore[operator]
    reason="npm ci --prefix evaluator has not been run",
)

REACT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mirror</title>
<script src="https://unpkg.com/react@18/umd/react.production.min.js" crossorigin></script>
<script src="https://cdn.jsdelivr.net/npm/react-dom@18.2.0/umd/react-dom.production.min.js" crossorigin></script>
<script src="https://cdnjs.cloudflare.com/ajax/libs/babel-standalone/7.23.5/babel.min.js"></script>
<style>body { margin: 0; } h1 { font-size: 64px; margin: 0; background: #000; color: #fff; height: 200px; }</style>
</head><body><div id="root"></div>
<script type="text/babel">
  function App() {
    const [n] = React.useState(3);
    return (<main><h1>Rendered by React {n}</h1><button className="made-by-jsx"></button></main>);
  }
  ReactDOM.createRoot(document.getElementById('root')).render(<App />);
</script></body></html>"""

VUE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Vue</title>
<script src="https://unpkg.com/vue@3/dist/vue.global.js"></script></head>
<body><main><h1>Books</h1><div id="app">{{ title }}</div></main>
<script>Vue.createApp({ data: () => ({ title: 'Persuasion' }) }).mount('#app');</script></body></html>"""


def _dark_share(png: bytes) -> float:
    """The share of pixels darker than mid grey in an 8-bit RGB or RGBA PNG (no interlace)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, data, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += body
        pos += 12 + length
    raw = zlib.decompress(data)
    stride = width * channels
    previous = bytearray(stride)
    dark = 0
    for y in range(height):
        method = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = row[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if method == 1:
                row[i] = (row[i] + left) & 0xFF
            elif method == 2:
                row[i] = (row[i] + up) & 0xFF
            elif method == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xFF
            elif method == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                row[i] = (row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        dark += sum(1 for x in range(0, stride, channels) if sum(row[x : x + 3]) < 3 * 128)
        previous = row
    return dark / (width * height)


def test_a_react_page_renders_its_component_from_the_mirror(tmp_path: Path) -> None:
    ev = Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=60, screenshots=tmp_path))
    ev.start()
    try:
        react, vue = ev.evaluate_many([(None, REACT_PAGE), (None, VUE_PAGE)])
    finally:
        ev.close()
    assert react.status == "ok", react.error
    assert react.events.page_errors == ()
    # The component was drawn: its black 200 px heading band is in the screenshot (an empty root
    # draws a white page), and axe audited what JSX made (className became class).
    assert react.screenshot is not None
    assert _dark_share(Path(react.screenshot).read_bytes()) > 0.1
    names = {f.rule_id: f for f in react.axe.violations}
    assert "button-name" in names
    assert 'class="made-by-jsx"' in names["button-name"].nodes[0].html
    served = {item.library: item for item in react.events.libraries}
    assert served["react"].outcome == "served" and served["react"].file == "react/umd/react.production.min.js"
    assert served["react-dom"].outcome == "substituted" and served["react-dom"].requested == "18.2.0"
    assert served["react-dom"].file == "react-dom/umd/react-dom.production.min.js"
    assert served["@babel/standalone"].file == "@babel/standalone/babel.min.js"
    assert not any("unpkg" in url or "jsdelivr" in url or "cdnjs" in url for url in react.events.blocked_requests)
    assert react.audit.unaudited == ()

    # The library we do not mirror: blocked, named, and the page fails for it.
    assert [item.outcome for item in vue.events.libraries] == ["not mirrored"]
    assert "https://unpkg.com/vue@3/dist/vue.global.js" in vue.events.blocked_requests
    assert any("library vue@3 not mirrored" in what for what in vue.audit.unaudited)
    score = score_observation(vue)
    assert not score.passed
    assert any("vue@3 not mirrored" in reason for reason in score.reasons)
