"""Pull the HTML document out of a model's answer. Pure: text in, :class:`Extraction` out.

Chat models wrap the page in prose, in Markdown fences with any (or no) language tag, sometimes
after a ``<think>`` section, sometimes in several blocks. The rules, in order:

1. ``<think>…</think>`` sections are removed. An unclosed ``<think>`` means the model ran out of
   tokens while thinking: nothing after it is an answer, so nothing is found and the sample is
   marked truncated.
2. Fenced blocks (```` ``` ```` or ``~~~``, three or more, any info string) are collected. A fence
   that is never closed runs to the end of the text and marks the result truncated.
3. A block is HTML when its tag says so (``html``, ``htm``, ``xhtml``, ``xml``, ``vue``, ``svelte``)
   or, with no or an unknown tag, when its text starts like markup. CSS and JavaScript blocks are
   recorded but never merged in: the prompt asks for one file with inline CSS and JavaScript, and
   guessing where a separate script belongs would grade a page the model did not write.
4. Among HTML blocks, a complete document (``<!doctype`` or ``<html``) beats a fragment, then the
   longer block wins (models often show a snippet first and the whole file after it).
5. Without fences, a bare document is cut from ``<!doctype``/``<html`` to the last ``</html>``;
   an answer that itself starts with a tag is taken whole as a fragment. Tags quoted in prose
   ("use a <button>") are not HTML answers.

``truncated`` is inferred from the text, because lm-eval does not tell a filter why generation
stopped: an unclosed fence or think section, or a bare document that never reaches ``</html>``.
A closed fence is a finished answer even without ``</html>`` (HTML lets it be omitted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Extraction", "extract_html"]

_HTML_TAGS = frozenset({"html", "htm", "xhtml", "xml", "vue", "svelte", "jinja", "django", "erb", "handlebars"})
_OTHER_TAGS = frozenset(
    {"css", "scss", "js", "javascript", "ts", "typescript", "jsx", "tsx", "json", "python", "py", "bash", "sh"}
)
_FENCE_OPEN = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_DOC_START = re.compile(r"<!doctype\s+html|<html[\s>]", re.IGNORECASE)
_HTML_END = re.compile(r"</html\s*>", re.IGNORECASE)
_LOOKS_LIKE_MARKUP = re.compile(r"^\s*(?:<!--.*?-->\s*)*<(?:!doctype|[a-z][\w-]*[\s/>])", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    """The HTML found in one answer and how it was found.

    ``how`` is one of ``fenced`` (a fenced HTML block), ``bare-document``, ``bare-fragment`` or
    ``none``; ``blocks`` counts all fenced blocks, ``ignored`` names the language tags of the
    blocks that were not used, ``think`` says whether a think section was removed.
    """

    html: str
    found: bool
    truncated: bool
    how: str
    blocks: int = 0
    ignored: tuple[str, ...] = ()
    think: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"how": self.how, "blocks": self.blocks, "ignored": list(self.ignored), "think": self.think}


@dataclass(frozen=True)
class _Block:
    tag: str
    text: str
    closed: bool


def _fenced_blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence = opening.group("fence")
        tag = opening.group("info").strip().split(" ")[0].strip("{}.").lower()
        body: list[str] = []
        i += 1
        closed = False
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                closed = True
                i += 1
                break
            body.append(lines[i])
            i += 1
        blocks.append(_Block(tag=tag, text="\n".join(body).strip("\n"), closed=closed))
    return blocks


def _is_html(block: _Block) -> bool:
    if block.tag in _HTML_TAGS:
        return True
    if block.tag in _OTHER_TAGS:
        return False
    return bool(_LOOKS_LIKE_MARKUP.match(block.text))


def extract_html(response: str) -> Extraction:
    """The best HTML document in ``response`` (see the module docstring for the rules)."""
    text = response.replace("\r\n", "\n")
    without_think = _THINK.sub("", text)
    think = without_think != text
    unclosed = _THINK_OPEN.search(without_think)
    if unclosed is not None:
        # Everything after an unclosed <think> is reasoning that ran out of tokens.
        return Extraction(html="", found=False, truncated=True, how="none", think=True)
    text = without_think

    blocks = _fenced_blocks(text)
    if blocks:
        html_blocks = [b for b in blocks if _is_html(b) and b.text.strip()]
        if html_blocks:
            best = max(html_blocks, key=lambda b: (bool(_DOC_START.search(b.text)), len(b.text)))
            ignored = tuple(b.tag or "untagged" for b in blocks if b is not best)
            return Extraction(
                html=best.text,
                found=True,
                truncated=not best.closed,
                how="fenced",
                blocks=len(blocks),
                ignored=ignored,
                think=think,
            )

    start = _DOC_START.search(text)
    if start is not None:
        ends = list(_HTML_END.finditer(text, start.start()))
        end = ends[-1].end() if ends else len(text)
        html = text[start.start() : end].strip()
        return Extraction(
            html=html,
            found=True,
            truncated=not ends or bool(blocks and not blocks[-1].closed),
            how="bare-document",
            blocks=len(blocks),
            ignored=tuple(b.tag or "untagged" for b in blocks),
            think=think,
        )
    if not blocks and _LOOKS_LIKE_MARKUP.match(text):
        return Extraction(html=text.strip(), found=True, truncated=False, how="bare-fragment", think=think)
    return Extraction(
        html="",
        found=False,
        truncated=bool(blocks and not blocks[-1].closed),
        how="none",
        blocks=len(blocks),
        ignored=tuple(b.tag or "untagged" for b in blocks),
        think=think,
    )
