"""Decoding the bytes of a page as a browser would, for a document that comes without an HTTP charset.

1. a byte-order mark (UTF-8, UTF-16 LE or BE) wins;
2. else a ``<meta charset=...>`` or ``<meta http-equiv="Content-Type" content="...; charset=...">``
   in the first 1024 bytes, read with the WHATWG label rules (``iso-8859-1``, ``latin1`` and
   ``ascii`` mean windows-1252; a meta that claims UTF-16 means UTF-8);
3. else the default: UTF-8 when the bytes are valid UTF-8, windows-1252 otherwise.

The encoding and where it came from are returned with the text, so they can be recorded.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["decode_html"]

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_PRESCAN_BYTES = 1024
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
# WHATWG Encoding Standard labels whose meaning differs from Python's codec of the same name.
_LABELS = {
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "l1": "cp1252",
    "windows-1252": "cp1252",
    "x-cp1252": "cp1252",
    "gb2312": "gbk",
    "utf-16": "utf-8",
    "utf-16le": "utf-8",
    "utf-16be": "utf-8",
    "unicode": "utf-8",
}
_DISPLAY = {"cp1252": "windows-1252", "utf_8": "utf-8", "utf-16-le": "utf-16le", "utf-16-be": "utf-16be"}


def _codec_for_label(label: bytes) -> str | None:
    text = label.decode("ascii", "replace").strip().lower()
    if text in _LABELS:
        return _LABELS[text]
    try:
        return codecs.lookup(text).name
    except LookupError:
        return None  # an unknown label is ignored, as a browser ignores it


def decode_html(data: bytes) -> tuple[str, str, str]:
    """``(text, encoding, source)`` for the raw bytes of a page; see the module docstring."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace"), _DISPLAY.get(codec, codec), "byte-order mark"
    meta = _META_CHARSET.search(data[:_PRESCAN_BYTES])
    if meta is not None:
        declared = _codec_for_label(meta.group(1))
        if declared is not None:
            name = _DISPLAY.get(declared, declared.replace("_", "-"))
            return data.decode(declared, errors="replace"), name, "<meta charset>"
    try:
        return data.decode("utf-8"), "utf-8", "default (valid UTF-8)"
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), "windows-1252", "default (not valid UTF-8)"
