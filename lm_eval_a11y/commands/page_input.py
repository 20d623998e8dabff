"""Reading the pages given to ``a11y-eval score``: from any readable path, decoded as a browser
would, and told apart from things that are not HTML.

Every path gets an outcome of its own, so one bad path never costs the others their verdicts: a
regular file, standard input (``-``, ``/dev/stdin``) and the pipe of a process substitution
(``<(cat f)``, a descriptor this process already holds) are read; a path that does not exist is
``not_found``, one that cannot be read ``unreadable``, a page above the size limit ``too_large``;
a directory, a named pipe, a device or a socket is ``not_a_file`` and is never opened, since
reading a FIFO without a writer, or ``/dev/zero``, would never end.

Decoding follows the order a browser uses for a document that comes without an HTTP charset
(:func:`lm_eval_a11y.decoding.decode_html`). The page is then rendered from the decoded text, and
the encoding and where it came from are recorded. Input that is empty, binary, plain prose, a JSON
value, or a model's answer rather than a page is not rendered (:mod:`lm_eval_a11y.page_kind`): it
fails with a reason that says what it is (``--extract`` pulls the page out of an answer the way
the lm-eval task does).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from lm_eval_a11y.decoding import decode_html
from lm_eval_a11y.extract import Extraction, extract_html
from lm_eval_a11y.page_kind import not_a_page

__all__ = ["USAGE_STATUSES", "InputStatus", "PageInput", "read_page"]

InputStatus = Literal["empty", "not_html", "too_large", "not_found", "not_a_file", "unreadable"]
"""Why a page given to ``score`` is not rendered; the words of the corpus statuses where they
mean the same (``empty``, ``not_html``, ``too_large``)."""
USAGE_STATUSES: tuple[InputStatus, ...] = ("not_found", "not_a_file", "unreadable")
"""The statuses of a path that is not a page to read at all: a mistake on the command line."""

# A descriptor this process holds already (``/dev/stdin``, ``<(cmd)`` gives ``/dev/fd/63``): read
# through it, never opened by name (for a pipe, the name is a FIFO).
_OWN_DESCRIPTOR = re.compile(r"^/(?:dev/fd|proc/self/fd)/(\d+)$")
_SPECIAL = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@dataclass(frozen=True)
class PageInput:
    """One page as read: the text to render, how it was decoded, and why it will not be rendered.

    ``problem`` is ``None`` for a page to render; otherwise ``status`` says what kept it from the
    browser and ``problem`` why, in a sentence that names it (``empty: ...``, ``not HTML: ...``,
    ``no such file: ...``), and the page fails without being rendered.
    """

    name: str
    label: str
    html: str
    size_bytes: int
    encoding: str
    encoding_source: str
    problem: str | None = None
    extraction: Extraction | None = None
    status: InputStatus | None = None

    @classmethod
    def refused(cls, name: str, status: InputStatus, problem: str, size_bytes: int = 0) -> PageInput:
        """A path that was not read as a page, or a page too large to render."""
        label = "stdin" if name == "-" else name
        return cls(name, label, "", size_bytes, "", "not read", problem=problem, status=status)

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


class _Refused(Exception):
    """A path that will not be read: its status and why."""

    def __init__(self, status: InputStatus, problem: str, size_bytes: int = 0) -> None:
        super().__init__(problem)
        self.status, self.problem, self.size_bytes = status, problem, size_bytes


def _open(name: str, max_bytes: int) -> BinaryIO:
    """The open stream of a page, or :class:`_Refused`. A path is looked at (``stat`` never
    blocks) before it is opened, and only a regular file is opened by name."""
    if name == "-":
        return sys.stdin.buffer
    own = _OWN_DESCRIPTOR.match(name)
    if own is not None or name == "/dev/stdin":
        try:
            return os.fdopen(os.dup(int(own.group(1)) if own else 0), "rb")
        except OSError:
            raise _Refused("not_found", f"no such file: {name} (no such open descriptor)") from None
    try:
        info = Path(name).stat()
    except (FileNotFoundError, NotADirectoryError):
        raise _Refused("not_found", f"no such file: {name}") from None
    except OSError as err:
        raise _Refused("unreadable", f"cannot read {name}: {err.strerror or err}") from None
    for test, kind in _SPECIAL:
        if test(info.st_mode):
            if kind == "a directory":
                raise _Refused(
                    "not_a_file", f"{name} is a directory, not a file; give the pages in it (e.g. {name}/*.html)"
                )
            raise _Refused("not_a_file", f"{name} is {kind}, not a file; it is not read")
    if info.st_size > max_bytes:
        raise _Refused("too_large", _too_large(name, f"{info.st_size:,} bytes", max_bytes), info.st_size)
    try:
        # Without blocking, and checked again once open: the path may have changed since stat.
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as err:
        raise _Refused("unreadable", f"cannot read {name}: {err.strerror or err}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _Refused("not_a_file", f"{name} is not a regular file; it is not read")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _too_large(label: str, size: str, max_bytes: int) -> str:
    return f"{label} is {size}, above the limit of {max_bytes:,} bytes per page"


def _read_limited(name: str, label: str, max_bytes: int) -> bytes:
    stream = _open(name, max_bytes)
    try:
        data = stream.read(max_bytes + 1)
    except OSError as err:
        raise _Refused("unreadable", f"cannot read {label}: {err.strerror or err}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    if len(data) > max_bytes:
        raise _Refused("too_large", _too_large(label, f"more than {max_bytes:,} bytes", max_bytes), len(data))
    return data


def _not_html(text: str) -> str | None:
    """Why ``text`` is not a page to render as it stands, or ``None`` when it is one."""
    problem = not_a_page(text)
    if problem is None:
        return None
    kind, reason = problem
    return f"{reason}; score it with --extract" if kind == "answer" else reason


def read_page(name: str, *, max_bytes: int, extract: bool = False) -> PageInput:
    """Read, decode and classify one page given on the command line (``-`` is standard input).
    Never raises for the path or its content: a page that will not be rendered says why."""
    label = "stdin" if name == "-" else name
    try:
        data = _read_limited(name, label, max_bytes)
    except _Refused as refused:
        return PageInput.refused(name, refused.status, refused.problem, refused.size_bytes)
    if not data:
        return PageInput(
            name, label, "", 0, "utf-8", "empty", problem="empty: the input has no content", status="empty"
        )
    text, encoding, source = decode_html(data)
    extraction = None
    problem: str | None
    status: InputStatus | None = None
    if extract:
        extraction = extract_html(text)
        problem = None if extraction.found else "no HTML found in the answer (extracted as the lm-eval task does)"
        if extraction.how == "too-many-pages":
            problem = "too many HTML pages in the answer to judge (the lm-eval task judges at most 4)"
        if problem is None and "\x00" in extraction.html:
            problem = "not HTML: binary data"
        html = extraction.html
    else:
        problem = _not_html(text)
        html = "" if problem else text
    if problem is not None:
        status = "empty" if problem.startswith("empty") else "not_html"
    elif len(html.encode("utf-8", errors="replace")) > max_bytes:
        problem = f"{label} decodes to more than {max_bytes:,} bytes of UTF-8, the limit per page"
        status, html = "too_large", ""
    return PageInput(
        name, label, html, len(data), encoding, source, problem=problem, extraction=extraction, status=status
    )
