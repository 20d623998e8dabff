"""Text a page or a generation hands us, made valid Unicode so that every record stays writable."""

from __future__ import annotations

__all__ = ["repair_text"]


def repair_text(text: str) -> tuple[str, int]:
    """``text`` as valid Unicode, and how many lone surrogates were replaced with U+FFFD.

    Python strings may hold UTF-16 surrogates that no UTF-8 writer accepts (a generation
    decoded with ``surrogateescape``, or a JavaScript string with half a pair). A surrogate pair
    written as two code points is joined into its character; a lone one becomes U+FFFD.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text, 0
    repaired = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    lone = sum(1 for ch in repaired if ch == "\ufffd") - sum(1 for ch in text if ch == "\ufffd")
    return repaired, lone
