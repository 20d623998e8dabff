"""Pull the HTML document out of a model's answer. Pure: text in, :class:`Extraction` out.

Chat models wrap the page in prose, in Markdown fences with any (or no) language tag, sometimes
after a ``<think>`` section, sometimes in several blocks. The rules, in order:

1. ``<think>…</think>`` sections are removed. An unclosed ``<think>`` means the model ran out of
   tokens while thinking: nothing after it is an answer, so nothing is found and the sample is
   marked truncated.
2. Fenced blocks (```` ``` ```` or ``~~~``, three or more, any info string) are collected. A fence
   that is never closed runs to the end of the text and marks the result truncated.
3. Every page a person would take from the answer is found (:mod:`lm_eval_a11y.answer_pages`):
   the HTML blocks (by tag, or untagged and starting like markup, or any block that is a complete
   document), complete documents written in the prose, CSS and JavaScript blocks merged into the
   HTML block they belong to, an excerpt of a larger block judged as part of it, fragments beside a
   document put in its shell. ``pages`` holds them all (at most ``MAX_PAGES``); every one is judged
   and the lowest score decides. ``html`` is the one that stands for the answer where one must: a
   complete document before a fragment, then the longest.
4. Without fences or documents, an answer that itself starts with a tag is taken whole as a
   fragment. Tags quoted in prose ("use a <button>") are not HTML answers.

``truncated`` is inferred from the text, because lm-eval does not tell a filter why generation
stopped: an unclosed fence or think section, or a bare document that never reaches ``</html>``.
A closed fence is a finished answer even without ``</html>`` (HTML lets it be omitted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from lm_eval_a11y.answer_pages import LOOKS_LIKE_MARKUP, Block, plan_pages, raw_documents

__all__ = ["Extraction", "extract_html"]

_FENCE_OPEN = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    """The HTML found in one answer and how it was found.

    ``html`` is the page that stands for the answer; ``pages`` every page to judge (``html`` among
    them; empty when nothing was found); ``sources`` the block each came from (``html``,
    ``untagged``, ``raw`` for a document in the prose...). ``how`` is one of ``fenced`` (``html``
    came from a fenced block), ``bare-document``, ``bare-fragment``, ``too-many-pages`` (more
    than :data:`~lm_eval_a11y.answer_pages.MAX_PAGES` pages: none is judged) or ``none``;
    ``blocks`` counts all fenced blocks, ``ignored`` names the language tags of the blocks that
    are neither a page nor merged into one, ``merged`` those of the CSS/JavaScript blocks merged
    into a page, ``covered`` counts the HTML blocks judged as part of a larger one, ``think`` says
    whether a think section was removed.
    """

    html: str
    found: bool
    truncated: bool
    how: str
    blocks: int = 0
    ignored: tuple[str, ...] = ()
    think: bool = False
    pages: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    merged: tuple[str, ...] = ()
    covered: int = 0

    @property
    def judged(self) -> tuple[str, ...]:
        """The pages to judge: ``pages``, or ``html`` alone for an extraction made without them
        (a saved record, a reference example)."""
        if self.pages:
            return self.pages
        return (self.html,) if self.found else ()

    @property
    def primary(self) -> int:
        """The index in :attr:`judged` of ``html``, the page that stands for the answer (0 when
        it is not among them)."""
        judged = self.judged
        return judged.index(self.html) if self.html in judged else 0

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "how": self.how,
            "blocks": self.blocks,
            "ignored": list(self.ignored),
            "think": self.think,
        }
        if len(self.pages) > 1 or self.merged or self.covered or self.how == "too-many-pages":
            # Only answers with more than one block to use say more: single-page records stay as they were.
            out.update(pages=len(self.pages), sources=list(self.sources))
            out.update(merged=list(self.merged), covered=self.covered)
        return out


def _split(text: str) -> tuple[list[Block], int]:
    """The answer's blocks in order (fenced blocks, and complete documents in the prose between
    them) and the number of fenced blocks."""
    blocks: list[Block] = []
    fenced = 0
    prose: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        if opening is None:
            prose.append(lines[i])
            i += 1
            continue
        blocks.extend(raw_documents("\n".join(prose), at_end=False))
        prose = []
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
        blocks.append(Block(tag=tag, text="\n".join(body).strip("\n"), closed=closed))
        fenced += 1
    blocks.extend(raw_documents("\n".join(prose), at_end=True))
    return blocks, fenced


def extract_html(response: str) -> Extraction:
    """The pages in ``response`` and the one that stands for it (see the module docstring)."""
    text = response.replace("\r\n", "\n")
    without_think = _THINK.sub("", text)
    think = without_think != text
    unclosed = _THINK_OPEN.search(without_think)
    if unclosed is not None:
        # Everything after an unclosed <think> is reasoning that ran out of tokens.
        return Extraction(html="", found=False, truncated=True, how="none", think=True)
    text = without_think

    blocks, fenced = _split(text)
    last_fence_open = any(not b.closed and not b.raw for b in blocks[-1:])
    plan = plan_pages(blocks)
    base = Extraction(
        html="",
        found=False,
        truncated=last_fence_open,
        how="none",
        blocks=fenced,
        ignored=plan.ignored,
        think=think,
        merged=plan.merged,
        covered=plan.covered,
    )
    if plan.too_many:
        return replace(base, how="too-many-pages")
    if plan.pages:
        return replace(
            base,
            html=plan.pages[plan.primary],
            found=True,
            truncated=plan.truncated,
            how="bare-document" if plan.sources[plan.primary] == "raw" else "fenced",
            pages=plan.pages,
            sources=plan.sources,
        )
    if not blocks and LOOKS_LIKE_MARKUP.match(text):
        page = text.strip()
        return Extraction(
            html=page, found=True, truncated=False, how="bare-fragment", think=think, pages=(page,), sources=("bare",)
        )
    return base
