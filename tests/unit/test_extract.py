"""Golden strings for :func:`extract_html`: answers shaped like those chat models really give.

Each case pins the exact HTML handed to the browser and the flags (found, truncated, how), because
a wrong cut either grades prose as a page or throws away the model's page.
"""

from __future__ import annotations

import pytest

from lm_eval_a11y.extract import Extraction, extract_html

DOC = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>FAQ</title>
</head>
<body>
  <main>
    <h1>FAQ</h1>

    <details><summary class="trigger">What is your return policy?</summary>
    <div class="panel"><p>Thirty days.</p></div></details>
  </main>
</body>
</html>"""

SNIPPET = '<button type="button" aria-expanded="false">Show</button>'


def golden(
    response: str, html: str, *, found: bool = True, truncated: bool = False, how: str = "fenced"
) -> tuple[str, str, bool, bool, str]:
    return response, html, found, truncated, how


GOLDENS = {
    "preamble, html fence, notes after": golden(
        f"Sure! Here's an accessible FAQ page:\n\n```html\n{DOC}\n```\n\n**Key features:**\n"
        "- Uses native `<details>` and `<summary>`\n- Works with the keyboard\n",
        DOC,
    ),
    "upper-case language tag and file name in the info string": golden(
        f'Here you go.\n```HTML title="index.html"\n{DOC}\n```', DOC
    ),
    "untagged fence holding a document": golden(f"```\n{DOC}\n```\nLet me know if you need changes.", DOC),
    "tilde fence": golden(f"~~~html\n{DOC}\n~~~", DOC),
    "fence indented inside a list item": golden(f"1. Save this file:\n   ```html\n{DOC}\n   ```\n", DOC),
    "windows line endings": golden(
        "Answer:\r\n```html\r\n" + DOC.replace("\n", "\r\n") + "\r\n```\r\n",
        DOC,
    ),
    "think section with a draft, then the answer": golden(
        "<think>\nThe user wants a disclosure. A draft:\n```html\n<div onclick=x()>Q</div>\n```\n"
        "No, a div is not a button. Use details.\n</think>\n\n"
        f"```html\n{DOC}\n```",
        DOC,
    ),
    "snippet first, complete file after": golden(
        f"The core of it is a button:\n\n```html\n{SNIPPET}\n```\n\nAnd the complete file:\n\n```html\n{DOC}\n```\n",
        DOC,
    ),
    "separate css and js blocks are merged into the page": golden(
        "index.html:\n```html\n<!doctype html><html lang=en><head><title>t</title>"
        '<link rel="stylesheet" href="style.css"></head><body><button>Q</button>'
        '<script src="app.js"></script></body></html>\n```\n'
        "style.css:\n```css\nbutton { color: red; }\n```\napp.js:\n```javascript\nconsole.log(1)\n```\n"
        "Run it with:\n```bash\nopen index.html\n```\n",
        '<!doctype html><html lang=en><head><title>t</title><link rel="stylesheet" href="style.css">'
        "<style>\nbutton { color: red; }\n</style>\n</head>"
        '<body><button>Q</button><script src="app.js"></script><script>\nconsole.log(1)\n</script>\n</body></html>',
    ),
    "a fragment in a fence is still the answer": golden(f"```html\n{SNIPPET}\n```", SNIPPET),
    "fence cut off by the token limit": golden(
        'Here is the page:\n\n```html\n<!DOCTYPE html>\n<html lang="en">\n<head>\n  <title>FAQ</title>\n'
        "  <style>\n    .panel { display: none; }\n",
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <title>FAQ</title>\n  <style>\n    .panel { display: none; }',
        truncated=True,
    ),
    "bare document with prose around it": golden(
        f"Below is the complete HTML file.\n\n{DOC}\n\nThis page meets WCAG 2.2 AA.", DOC, how="bare-document"
    ),
    "bare document cut off": golden(
        'Here it is:\n<!doctype html>\n<html lang="en"><body><main><h1>FAQ</h1>',
        '<!doctype html>\n<html lang="en"><body><main><h1>FAQ</h1>',
        truncated=True,
        how="bare-document",
    ),
    "answer that is only a fragment": golden(
        f"{SNIPPET}\n<div id=p hidden>Thirty days.</div>\n",
        f"{SNIPPET}\n<div id=p hidden>Thirty days.</div>",
        how="bare-fragment",
    ),
    "answer starting with a comment": golden(
        "<!-- FAQ widget -->\n<section><h2>FAQ</h2></section>",
        "<!-- FAQ widget -->\n<section><h2>FAQ</h2></section>",
        how="bare-fragment",
    ),
    "prose that only mentions tags": golden(
        "You should use a <button> element with aria-expanded rather than a <div>.",
        "",
        found=False,
        how="none",
    ),
    "only a css block": golden("```css\n.panel { display: none }\n```", "", found=False, how="none"),
    "empty answer": golden("", "", found=False, how="none"),
    "unclosed think: ran out of tokens while thinking": golden(
        "<think>\nLet me plan the page. First the heading, then", "", found=False, truncated=True, how="none"
    ),
    "think section only, no answer after it": golden(
        "<think>I should write HTML.</think>\nI cannot help with that.", "", found=False, how="none"
    ),
}


@pytest.mark.parametrize(("response", "html", "found", "truncated", "how"), GOLDENS.values(), ids=GOLDENS.keys())
def test_golden(response: str, html: str, found: bool, truncated: bool, how: str) -> None:
    result = extract_html(response)
    assert result.html == html
    assert (result.found, result.truncated, result.how) == (found, truncated, how)


def test_records_what_was_left_out() -> None:
    answer = GOLDENS["separate css and js blocks are merged into the page"][0]
    result = extract_html(answer)
    assert (result.blocks, result.ignored, result.merged) == (4, ("bash",), ("css", "javascript"))
    assert result.to_dict() == {
        "how": "fenced",
        "blocks": 4,
        "ignored": ["bash"],
        "think": False,
        "pages": 1,
        "sources": ["html"],
        "merged": ["css", "javascript"],
        "covered": 0,
    }


def test_notes_a_removed_think_section() -> None:
    result = extract_html(GOLDENS["think section with a draft, then the answer"][0])
    assert result.think and result.blocks == 1


def test_is_pure_and_frozen() -> None:
    answer = GOLDENS["preamble, html fence, notes after"][0]
    assert extract_html(answer) == extract_html(answer)
    with pytest.raises(AttributeError):
        extract_html(answer).html = "x"  # type: ignore[misc]


def test_extraction_type() -> None:
    assert isinstance(extract_html("<p>hi</p>"), Extraction)
