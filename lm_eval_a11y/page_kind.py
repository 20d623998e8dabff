"""Telling a page apart from text that is not one. Pure: text in, a kind and a reason out.

Both ``a11y-eval score`` (files) and corpus scoring (rows of a data set) refuse to render what is
not a page: rendering prose or a JSON record would judge a page nobody wrote, and its axe failures
(no ``lang``, no title) would say nothing about the input. Each kind has a fixed reason, so a data
team can count them:

- ``empty``: nothing but white space;
- ``binary``: NUL bytes or many control characters that no person or model writes;
- ``json``: the whole text is one JSON value (a record that holds a page is not the page);
- ``answer``: a model's answer with the page inside it (fences, or a document after prose);
- ``prose``: text without a single tag.

Anything else is a page, however broken: a fragment is judged as the page a browser makes of it.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from lm_eval_a11y.extract import extract_html

__all__ = ["NotPageKind", "not_a_page"]

NotPageKind = Literal["empty", "binary", "json", "answer", "prose"]

_ANY_TAG = re.compile(r"<(?:!doctype|!--|/?[a-z][a-z0-9-]*(?:[\s/>]|$))", re.IGNORECASE)
# A document starts as markup: a doctype, a comment, a tag, or the XML declaration of an XHTML page
# (``<?xml version="1.0"?>``, which an HTML parser reads as a comment), after white space or a
# byte order mark.
_STARTS_AS_MARKUP = re.compile(r"^[\s\ufeff]*<(?:!doctype|!--|\?xml[\s?]|[a-z])", re.IGNORECASE)
# Control characters that never occur in text a person or a model wrote (tab, newlines and form
# feed do; ESC appears in terminal captures, which are not HTML either).
_BINARY_CONTROLS = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f]")
# A JSON document this large is not parsed just to be told apart from a page.
_JSON_PARSE_LIMIT = 5_000_000

_REASONS: dict[str, str] = {
    "empty": "empty: the input holds only white space",
    "binary": "not HTML: binary data",
    "json": "not HTML: a JSON value",
    "answer": "not HTML: a model's answer with the page inside it",
    "prose": "not HTML: plain text without a single tag",
}


def _is_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in '{["' or len(stripped) > _JSON_PARSE_LIMIT:
        return False
    try:
        json.loads(stripped)
    except (ValueError, RecursionError):
        return False
    return True


def not_a_page(text: str) -> tuple[NotPageKind, str] | None:
    """``(kind, reason)`` when ``text`` is not a page to render as it stands, else ``None``."""
    kind: NotPageKind
    if not text.strip():
        kind = "empty"
    elif "\x00" in text or len(_BINARY_CONTROLS.findall(text[:4096])) > 8:
        kind = "binary"
    elif _STARTS_AS_MARKUP.match(text):
        return None
    elif _is_json(text):
        kind = "json"
    elif (found := extract_html(text)).found and found.how in ("fenced", "bare-document"):
        kind = "answer"
    elif not _ANY_TAG.search(text):
        kind = "prose"
    else:
        return None
    return kind, _REASONS[kind]
