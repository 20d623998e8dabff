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
    ],
)
def test_what_is_a_page(text: str) -> None:
    assert not_a_page(text) is None
