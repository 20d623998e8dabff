"""Telling pages from what is not one (no browser): the kinds corpus rows and files are refused as."""

from __future__ import annotations

import pytest

from lm_eval_a11y.page_kind import not_a_page


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", "empty"),
        (" \n\t", "empty"),
        ("\x00PNG<p>", "binary"),
        ('{"html": "<p>x</p>"}', "json"),
        ('[{"a": 1}, "<b>x</b>"]', "json"),
        ('"<p>a quoted page</p>"', "json"),
        ("Here:\n```html\n<p>x</p>\n```", "answer"),
        ("Sure. <!doctype html><html><body>x</body></html>", "answer"),
        ("<?xmlish> Sure. <!doctype html><html><body>x</body></html>", "answer"),
        ("A sentence without markup.", "prose"),
        ("42", "prose"),
    ],
)
def test_what_is_not_a_page(text: str, kind: str) -> None:
    found = not_a_page(text)
    assert found is not None and found[0] == kind and found[1]


@pytest.mark.parametrize(
    "text",
    [
        "<!doctype html><title>x</title>",
        "  <p>a fragment</p>",
        "<!-- a comment --><main>x</main>",
        "Use a <button> for that.",  # a tag in prose: judged as the page a browser makes of it
        "{{ template }} <div>x</div>",
        # An XHTML page as Publican and other XML tool chains write it: declaration, then doctype.
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 '
        'Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html xmlns="http://www.w3.org/1999/xhtml">'
        "<head><title>x</title></head><body><p>x</p></body></html>",
        "\ufeff<!doctype html><title>x</title>",
    ],
)
def test_what_is_a_page(text: str) -> None:
    assert not_a_page(text) is None
