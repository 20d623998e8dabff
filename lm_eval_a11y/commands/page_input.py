"""Reading the pages given to ``a11y-eval score``: from any readable path, decoded as a browser
would, and told apart from things that are not HTML.

A path is opened and read, whatever it is (a regular file, ``/dev/stdin``, the pipe of a process
substitution ``<(cat f)``); only a directory or a path that does not exist is refused, by name.

Decoding follows the order a browser uses for a document that comes without an HTTP charset
(:func:`lm_eval_a11y.decoding.decode_html`). The page is then rendered from the decoded text, and
the encoding and where it came from are recorded. Input that is empty, binary, plain prose, a JSON
value, or a model's answer rather than a page is not rendered (:mod:`lm_eval_a11y.page_kind`): it
fails with a reason that says what it is (``--extract`` pulls the page out of an answer the way
the lm-eval task does).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from lm_eval_a11y.cli import UsageError
from lm_eval_a11y.decoding import decode_html
from lm_eval_a11y.extract import Extraction, extract_html
from lm_eval_a11y.page_kind import not_a_page

__all__ = ["PageInput", "read_page"]


@dataclass(frozen=True)
class PageInput:
    """One page as read: the text to render, how it was decoded, and why it will not be rendered.

    ``problem`` is ``None`` for a page to render; otherwise it starts with ``empty`` or
    ``not HTML`` (or, with ``--extract``, says that no HTML was found) and the page fails
    without being rendered.
    """

    name: str
    label: str
    html: str
    size_bytes: int
    encoding: str
    encoding_source: str
    problem: str | None = None
    extraction: Extraction | None = None

    def input_record(self) -> dict[str, object]:
        """What ``--json`` says about how the input was read."""
        return {
            "bytes": self.size_bytes,
            "encoding": self.encoding,
            "encoding_source": self.encoding_source,
            "problem": self.problem,
            "extraction": None
            if self.extraction is None
            else {**self.extraction.to_dict(), "found": self.extraction.found, "truncated": self.extraction.truncated},
        }


def _open(name: str) -> BinaryIO:
    if name == "-":
        return sys.stdin.buffer
    path = Path(name)
    if path.is_dir():
        raise UsageError(f"{name} is a directory, not a file; give the pages in it (e.g. {name}/*.html)")
    if not path.exists():
        raise UsageError(f"no such file: {name}")
    try:
        return path.open("rb")
    except OSError as err:
        raise UsageError(f"cannot read {name}: {err.strerror or err}") from None


def _read_limited(name: str, label: str, max_bytes: int) -> bytes:
    stream = _open(name)
    try:
        data = stream.read(max_bytes + 1)
    except OSError as err:
        raise UsageError(f"cannot read {label}: {err.strerror or err}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    if len(data) > max_bytes:
        size = Path(name).stat().st_size if name != "-" and Path(name).is_file() else None
        shown = f"{size:,} bytes" if size else f"more than {max_bytes:,} bytes"
        raise UsageError(f"{label} is {shown}, above the limit of {max_bytes:,} bytes per page")
    return data


def _not_html(text: str) -> str | None:
    """Why ``text`` is not a page to render as it stands, or ``None`` when it is one."""
    problem = not_a_page(text)
    if problem is None:
        return None
    kind, reason = problem
    return f"{reason}; score it with --extract" if kind == "answer" else reason


def read_page(name: str, *, max_bytes: int, extract: bool = False) -> PageInput:
    """Read, decode and classify one page given on the command line (``-`` is standard input)."""
    label = "stdin" if name == "-" else name
    data = _read_limited(name, label, max_bytes)
    if not data:
        return PageInput(name, label, "", 0, "utf-8", "empty", problem="empty: the input has no content")
    text, encoding, source = decode_html(data)
    extraction = None
    problem: str | None
    if extract:
        extraction = extract_html(text)
        problem = None if extraction.found else "no HTML found in the answer (extracted as the lm-eval task does)"
        if problem is None and "\x00" in extraction.html:
            problem = "not HTML: binary data"
        html = extraction.html
    else:
        problem = _not_html(text)
        html = "" if problem else text
    if len(html.encode("utf-8", errors="replace")) > max_bytes:
        raise UsageError(f"{label} decodes to more than {max_bytes:,} bytes of UTF-8, the limit per page")
    return PageInput(name, label, html, len(data), encoding, source, problem=problem, extraction=extraction)
