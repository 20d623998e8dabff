"""Every page a person would take from a model's answer. Pure: blocks in, pages out.

An answer may hold several HTML blocks: a snippet and the whole file, a fragment and a document,
one page per framework. Judging only one of them lets an answer pass on the block it chose to be
judged by (an accessible decoy document beside the inaccessible component that was asked for), so
every HTML block is judged, and the lowest score decides (:mod:`lm_eval_a11y.harness`,
:mod:`lm_eval_a11y.corpus.reward`). The rules, which ``tasks/a11y_html/README.md`` ("Extraction")
states for readers:

1. **What counts as HTML.** A fenced block tagged ``html``, ``htm``, ``xhtml``, ``xml``, ``vue``,
   ``svelte`` (or a template language), or untagged (or with an unknown tag) and starting like
   markup; a block of any tag (``jsx``, ``js``...) that is a complete document (it starts with
   ``<!doctype html>`` or ``<html``), or that starts like markup and holds no braces and no
   ``<Capitalised>`` component (plain HTML under another language's tag; JSX is not HTML); and a
   complete document written in the prose outside any fence (from ``<!doctype html``/``<html`` to
   its ``</html>``, not inside inline code).
2. **CSS and JavaScript belong to an HTML block.** A ``css`` block, and a ``js``/``javascript``
   block, is merged into the nearest HTML block before it (the first one after it when none is
   before): a ``<style>`` at the end of its head, a ``<script>`` at the end of its body. Models
   split one page into HTML, CSS and JavaScript blocks; judged apart, the markup would have no
   behaviour. A block that already has inline CSS (a ``<style>``) does not take a CSS block, and
   one that already has an inline script does not take a JavaScript block: a script shown again
   after a complete file would run twice.
3. **A block shown twice is judged once.** An HTML block whose lines (white space, blank lines,
   comments and elision lines such as ``...`` left out) all appear in order in a larger HTML block,
   in the same context (markup, or inside ``<script>``/``<style>``), is that block's excerpt: it
   is judged as part of it. Lines inside comments, ``<template>``, ``<noscript>`` or
   ``<textarea>`` of the larger block do not count: markup parked there is not on the page.
4. **A fragment beside a document is judged in that document.** When the answer has a complete
   document, every fragment judged on its own is put in the document's shell: its ``<html>``
   element (``lang`` and all), its head (title, styles, head scripts), and the fragment as the
   body. Document-level rules (a title, a language) then judge the document the fragment belongs
   to, not the fragment. Without a complete document, fragments are judged as written.
5. **A bounded number.** At most :data:`MAX_PAGES` pages are judged, out of at most
   :data:`MAX_BLOCKS` HTML blocks; an answer with more is not judged at all (no page, a reason that
   says why), never judged on a chosen few. Every step is linear in the answer's length.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

__all__ = ["MAX_PAGES", "Block", "PagePlan", "deciding_page", "plan_pages", "raw_documents"]

MAX_PAGES = 4
"""Pages judged for one answer at most: an honest answer has one page (with its CSS and JavaScript
merged in), perhaps a fragment beside it; each page costs a full evaluation."""

MAX_BLOCKS = 4 * MAX_PAGES
"""HTML blocks an answer may hold at most, excerpts included; over it, the answer is not judged
(as over :data:`MAX_PAGES`): telling excerpts apart costs a comparison of every pair."""

HTML_TAGS = frozenset({"html", "htm", "xhtml", "xml", "vue", "svelte", "jinja", "django", "erb", "handlebars"})
OTHER_TAGS = frozenset(
    {"css", "scss", "js", "javascript", "ts", "typescript", "jsx", "tsx", "json", "python", "py", "bash", "sh"}
)
_CSS_TAGS = frozenset({"css"})
_JS_TAGS = frozenset({"js", "javascript"})

DOC_START = re.compile(r"<!doctype\s+html|<html[\s>]", re.IGNORECASE)
_HTML_END = re.compile(r"</html\s*>", re.IGNORECASE)
LOOKS_LIKE_MARKUP = re.compile(r"^\s*(?:<!--.*?-->\s*)*<(?:!doctype|[a-z][\w-]*[\s/>])", re.DOTALL | re.IGNORECASE)
_IS_DOCUMENT = re.compile(r"^\s*(?:<!--.*?-->\s*)*(?:<!doctype\s+html|<html[\s>])", re.DOTALL | re.IGNORECASE)
_INLINE_STYLE = re.compile(r"<style[\s>]", re.IGNORECASE)
_SCRIPT_START = re.compile(r"<script(?=[\s/>])", re.IGNORECASE)
_SRC = re.compile(r"\bsrc\s*=", re.IGNORECASE)
_HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)
_BODY_START = re.compile(r"<body[\s>]", re.IGNORECASE)
_BODY_END = re.compile(r"</body\s*>", re.IGNORECASE)
_DOCTYPE = re.compile(r"^\s*<!doctype[^>]*>", re.IGNORECASE)
_HTML_START = re.compile(r"<html(?=[\s/>])", re.IGNORECASE)
_HEAD_START = re.compile(r"<head(?=[\s/>])", re.IGNORECASE)
_PARKED_TAGS = ("template", "noscript", "textarea", "xmp", "noembed", "noframes")
_RAW_TEXT_TAGS = ("script", "style")
_OPENER = re.compile(r"<!--|<(" + "|".join(_PARKED_TAGS + _RAW_TEXT_TAGS) + r")(?=[\s/>])", re.IGNORECASE)
_CLOSERS = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in _PARKED_TAGS + _RAW_TEXT_TAGS}
_JSX_ONLY = re.compile(r"[{}]|<[A-Z]")
_ELISION = re.compile(r"^(?:\.{2,}|…|//\s*(?:\.{2,}|…).*|/\*\s*(?:\.{2,}|…).*\*/)$")


@dataclass(frozen=True)
class Block:
    """A fenced block (``tag`` its language, ``""`` untagged) or a complete document written in
    the prose (``raw``). ``closed``: the fence was closed, or the document reached ``</html>``."""

    tag: str
    text: str
    closed: bool
    raw: bool = False

    @property
    def label(self) -> str:
        return "raw" if self.raw else (self.tag or "untagged")

    def is_document(self) -> bool:
        return bool(_IS_DOCUMENT.match(self.text))

    def is_html(self) -> bool:
        if not self.text.strip():
            return False
        if self.raw or self.tag in HTML_TAGS or self.is_document():
            return True
        if not LOOKS_LIKE_MARKUP.match(self.text):
            return False
        # Markup under another language's tag (```jsx around plain HTML) is still HTML; JSX with
        # expressions or components (braces, <Capitalised> tags) is not.
        return self.tag not in OTHER_TAGS or not _JSX_ONLY.search(self.text)


@dataclass(frozen=True)
class PagePlan:
    """What to judge in one answer.

    ``pages``: the pages, in the answer's order (CSS and JavaScript merged, fragments in their
    document's shell). ``sources``: the label of the block each page came from (``html``,
    ``untagged``, ``raw``...). ``primary``: the index of the page that stands for the answer where
    one page must (a complete document before a fragment, then the longest). ``covered``: HTML
    blocks judged as part of a larger one. ``merged``: the tags of the CSS/JavaScript blocks merged
    into a page; ``ignored``: the tags of the fenced blocks neither a page nor merged into one.
    ``found``: HTML blocks that would be judged, also when over :data:`MAX_PAGES` (``pages`` is
    empty then). ``truncated``: a block that makes a page was never closed.
    """

    pages: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    primary: int = 0
    covered: int = 0
    merged: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    found: int = 0
    truncated: bool = False

    @property
    def too_many(self) -> bool:
        return self.found > MAX_PAGES


def raw_documents(prose: str, *, at_end: bool) -> list[Block]:
    """The complete documents written in a stretch of prose: each from ``<!doctype html``/``<html``
    to the last ``</html>`` before the next one. Starts inside inline code (an odd number of
    backticks before it on its line) are quotes, not documents. A document without ``</html>``
    counts only when it runs to the end of the answer (``at_end``): it was cut off."""
    ends = [m.end() for m in _HTML_END.finditer(prose)]
    ticks = [n for n, char in enumerate(prose) if char == "`"]
    newlines = [n for n, char in enumerate(prose) if char == "\n"]
    kept: list[int] = []
    for match in DOC_START.finditer(prose):
        start = match.start()
        if _in_inline_code(ticks, newlines, start):
            continue
        # A document's own <html> after its doctype is not a second document.
        if kept and bisect_left(ends, kept[-1]) == bisect_left(ends, start):
            continue
        kept.append(start)
    found: list[Block] = []
    for i, start in enumerate(kept):
        stop = kept[i + 1] if i + 1 < len(kept) else len(prose)
        last = bisect_right(ends, stop) - 1
        if last >= 0 and ends[last] > start:
            found.append(Block(tag="", text=prose[start : ends[last]].strip(), closed=True, raw=True))
        elif at_end and stop == len(prose):
            found.append(Block(tag="", text=prose[start:].strip(), closed=False, raw=True))
    return found


def _in_inline_code(ticks: list[int], newlines: list[int], pos: int) -> bool:
    """Whether ``pos`` follows an odd number of backticks on its line (positions sorted)."""
    line_start = newlines[bisect_left(newlines, pos) - 1] + 1 if bisect_left(newlines, pos) else 0
    return (bisect_left(ticks, pos) - bisect_left(ticks, line_start)) % 2 == 1


def plan_pages(blocks: list[Block]) -> PagePlan:
    """The pages to judge in an answer made of ``blocks`` (fenced and raw, in order)."""
    html_at = [i for i, b in enumerate(blocks) if b.is_html()]
    if not html_at:
        return PagePlan(ignored=tuple(b.label for b in blocks if not b.raw))
    if len(html_at) > MAX_BLOCKS:
        return PagePlan(found=len(html_at))
    texts = {i: blocks[i].text for i in html_at}
    has_style = {i: bool(_INLINE_STYLE.search(texts[i])) for i in html_at}
    has_script = {i: _has_inline_script(texts[i]) for i in html_at}
    styles: dict[int, list[str]] = {}
    scripts: dict[int, list[str]] = {}
    merged: list[str] = []
    merged_at: set[int] = set()
    unclosed = {i for i in html_at if not blocks[i].closed}
    for j, block in enumerate(blocks):
        kind = "css" if block.tag in _CSS_TAGS else "js" if block.tag in _JS_TAGS else None
        if kind is None or j in texts or not block.text.strip():
            continue
        before = bisect_left(html_at, j)
        owner = html_at[before - 1] if before else html_at[0]
        if kind == "css" and not has_style[owner]:
            styles.setdefault(owner, []).append(block.text)
        elif kind == "js" and not has_script[owner]:
            scripts.setdefault(owner, []).append(block.text)
        else:
            continue
        merged.append(block.tag)
        merged_at.add(j)
        if not block.closed:
            unclosed.add(owner)
    for owner, css in styles.items():
        texts[owner] = _add_style(texts[owner], "\n".join(css))
    for owner, js in scripts.items():
        texts[owner] = _add_script(texts[owner], "\n".join(js))
    lines = {i: _lines(texts[i]) for i in html_at}
    judged = [i for i in html_at if not any(_covers(lines[k], k, lines[i], i) for k in html_at if k != i)]
    covered = len(html_at) - len(judged)
    ignored = tuple(b.label for j, b in enumerate(blocks) if not b.raw and j not in texts and j not in merged_at)
    if len(judged) > MAX_PAGES:
        return PagePlan(covered=covered, merged=tuple(merged), ignored=ignored, found=len(judged))
    documents = [i for i in judged if blocks[i].is_document()]
    shell_of = max(documents, key=lambda i: len(texts[i])) if documents else None
    pages: list[str] = []
    for i in judged:
        if shell_of is not None and not blocks[i].is_document():
            pages.append(_in_shell(texts[shell_of], texts[i]))
        else:
            pages.append(texts[i])
    primary = max(range(len(judged)), key=lambda n: (blocks[judged[n]].is_document(), len(texts[judged[n]]), -n))
    return PagePlan(
        pages=tuple(pages),
        sources=tuple(blocks[i].label for i in judged),
        primary=primary,
        covered=covered,
        merged=tuple(merged),
        ignored=ignored,
        found=len(judged),
        truncated=any(i in unclosed for i in judged),
    )


def _add_style(html: str, css: str) -> str:
    style = f"<style>\n{css}\n</style>\n"
    head_end = _HEAD_END.search(html)
    if head_end is not None:
        return html[: head_end.start()] + style + html[head_end.start() :]
    body = _BODY_START.search(html)
    if body is not None:
        return html[: body.start()] + style + html[body.start() :]
    doctype = _DOCTYPE.match(html)
    if doctype is not None:  # a style before the doctype would put the page in quirks mode
        return html[: doctype.end()] + "\n" + style + html[doctype.end() :]
    return style + html


def _add_script(html: str, js: str) -> str:
    script = f"<script>\n{js}\n</script>\n"
    for end in (_BODY_END, _HTML_END):
        found = list(end.finditer(html))
        if found:
            at = found[-1].start()
            return html[:at] + script + html[at:]
    return html + "\n" + script


def _has_inline_script(html: str) -> bool:
    """Whether ``html`` has a ``<script>`` without ``src`` (its tag read up to its ``>``)."""
    for start in _SCRIPT_START.finditer(html):
        end = html.find(">", start.end())
        if end < 0:
            return False
        if not _SRC.search(html, start.end(), end):
            return True
    return False


def _in_shell(document: str, fragment: str) -> str:
    """``fragment`` as the body of ``document``'s shell: its ``<html>`` element and its head."""
    opening = _HTML_START.search(document)
    opening_end = document.find(">", opening.end()) + 1 if opening is not None else 0
    html_tag = document[opening.start() : opening_end] if opening is not None and opening_end else "<html>"
    head = _HEAD_START.search(document)
    head_end = _HEAD_END.search(document, head.end()) if head is not None else None
    if head is not None and head_end is not None:
        head_text = document[head.start() : head_end.end()]
    else:
        # The head's tags may stand without <head>: everything before the body is the head.
        doctype = _DOCTYPE.match(document)
        start = opening_end if opening_end else doctype.end() if doctype is not None else 0
        body = _BODY_START.search(document, start)
        head_text = f"<head>{document[start : body.start()] if body is not None else ''}</head>"
    return f"<!doctype html>\n{html_tag}\n{head_text}\n<body>\n{fragment}\n</body>\n</html>"


def _lines(html: str) -> list[str]:
    """The lines of ``html`` that make its content: comments and parked markup removed, lines of
    script and style marked as such, white space and elision lines (``...``) left out. One pass:
    every search starts where the last one ended (answers are hostile, and may be megabytes)."""
    parts: list[str] = []
    pos = 0
    while True:
        opening = _OPENER.search(html, pos)
        if opening is None:
            parts.append(html[pos:])
            break
        parts.append(html[pos : opening.start()])
        if opening.group(0) == "<!--":
            end = html.find("-->", opening.end())
            pos = len(html) if end < 0 else end + 3
            continue
        name = opening.group(1).lower()
        tag_end = html.find(">", opening.end())
        if tag_end < 0:
            break
        closing = _CLOSERS[name].search(html, tag_end + 1)
        content_end = closing.start() if closing is not None else len(html)
        pos = closing.end() if closing is not None else len(html)
        if name in _RAW_TEXT_TAGS:
            body = "\n".join("\x00" + line.strip() for line in html[tag_end + 1 : content_end].split("\n"))
            parts.append(f"{html[opening.start() : tag_end + 1]}\n{body}\n</{name}>")
    out: list[str] = []
    for line in "".join(parts).split("\n"):
        stripped = line.strip()
        content = stripped.lstrip("\x00").strip()
        if not content or _ELISION.match(content):
            continue
        out.append(stripped if not stripped.startswith("\x00") else "\x00" + content)
    return out


def _covers(outer: list[str], outer_at: int, inner: list[str], inner_at: int) -> bool:
    """Whether the block ``outer`` holds all of ``inner``'s lines in order (an excerpt of it).
    Two blocks with the same lines: the earlier one is judged, the later one is covered."""
    if len(outer) < len(inner) or (len(outer) == len(inner) and outer_at > inner_at):
        return False
    rest = iter(outer)
    return all(any(line == candidate for candidate in rest) for line in inner)


def deciding_page(scores: list[float], primary: int) -> int:
    """The page whose score decides the answer: the lowest; on a tie, the primary page, then the
    first. Every page counts, so a page added beside another can only lower the answer's score."""
    if not scores:
        raise ValueError("no page scores to decide between")
    return min(range(len(scores)), key=lambda n: (scores[n], n != primary, n))
