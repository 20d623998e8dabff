"""Rows read one by one: a row whose bytes cannot be read becomes a row with a status, never an
error that stops its task or the whole input.

A corpus is bytes someone else wrote. A Parquet string column may hold bytes that are not UTF-8
(Arrow does not check them when it reads the file, Python does when it turns them into ``str``),
a JSON Lines file may hold a line of raw bytes, a line that is not JSON, or an escaped lone
surrogate (``"\\udcff"``, valid JSON that no UTF-8 writer can write back). Read a batch at once,
and one such value fails the batch: the task stops, and every run of it stops at the same row.
So each row is decoded by itself:

- Arrow tables (Parquet, a saved dataset) are converted a batch at a time, and a batch that fails
  row by row, value by value (:func:`decode_table`);
- JSON Lines files are read line by line into a clean copy before ``datasets`` sees them
  (:func:`clean_json_lines`): a good line is copied as it is, a bad one is written as the values
  that could be read, with the problem under :data:`PROBLEM_KEY`.

A value that cannot be read is written as null; the row gets a :class:`RowProblem` (``not_utf8``,
``bad_text`` or ``not_json``, with the column and the byte offset), which becomes its status.
"""

from __future__ import annotations

import codecs
import gzip
import itertools
import json
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal, cast

from lm_eval_a11y.corpus.pages import PageScore, content_digest

__all__ = ["PROBLEM_KEY", "RowProblem", "clean_json_lines", "decode_table", "row_problem"]

PROBLEM_KEY = "__a11y_row_problem__"
"""The key under which a row carries the problem found while reading it. Never written out."""

ProblemStatus = Literal["not_utf8", "bad_text", "not_json"]

# An escaped UTF-16 surrogate in a JSON line (paired or not): only such lines need the slow check.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@dataclass(frozen=True)
class RowProblem:
    """Why a row could not be read as written: ``status`` and a ``reason`` that names the column and
    the byte offset. ``html_bytes`` and ``sha256`` describe the raw bytes of the HTML value, when
    the problem is in that value and its bytes are known (to find the row again, or join on it)."""

    status: ProblemStatus
    reason: str
    html_bytes: int = 0
    sha256: str | None = None

    def score(self) -> PageScore:
        """The score of the row: not rendered, failing, with the reason."""
        return PageScore.rejected(self.status, self.reason, html_bytes=self.html_bytes, sha256=self.sha256)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RowProblem:
        return cls(**json.loads(text))


def row_problem(value: object) -> RowProblem | None:
    """The problem a row carries under :data:`PROBLEM_KEY` (a JSON string, a dict or a problem)."""
    if value is None or isinstance(value, RowProblem):
        return value
    if isinstance(value, dict):
        return RowProblem(**value)
    return RowProblem.from_json(str(value))


# ------------------------------------------------------------------ Arrow tables


def _not_utf8_value(column: str, err: UnicodeDecodeError) -> str:
    data = bytes(err.object)
    return f"column {column!r}: byte 0x{data[err.start]:02x} at byte offset {err.start} ({err.reason})"


def decode_table(table: Any, html_column: str | None) -> list[dict[str, Any]]:
    """The rows of an Arrow table as dicts; a value whose text is not UTF-8 becomes None and its
    row gets the problem under :data:`PROBLEM_KEY`. Decoded a batch at once when it can be."""
    try:
        return list(table.to_pylist())
    except UnicodeDecodeError:
        pass
    import pyarrow as pa

    rows: list[dict[str, Any]] = []
    for index in range(table.num_rows):
        row: dict[str, Any] = {}
        bad: list[str] = []
        html_bytes, sha256 = 0, None
        for name in table.column_names:
            column = table.column(name)
            try:
                row[name] = column[index].as_py()
            except UnicodeDecodeError as err:
                row[name] = None
                bad.append(_not_utf8_value(name, err))
                whole_value = pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
                if name == html_column and whole_value:
                    data = bytes(err.object)
                    html_bytes, sha256 = len(data), content_digest(data)
        if bad:
            reason = "not UTF-8: " + "; ".join(bad)
            row[PROBLEM_KEY] = RowProblem("not_utf8", reason, html_bytes, sha256).to_json()
        rows.append(row)
    return rows


# ------------------------------------------------------------------ JSON Lines


def _first_surrogate(value: str) -> int | None:
    """The index of the first character of ``value`` that UTF-8 cannot encode (a lone surrogate)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        return err.start
    return None


def _unwritable(value: Any) -> tuple[str, int] | None:
    """The first string in ``value`` (nested too) holding a lone surrogate, and where: that string
    and the UTF-8 byte offset of the surrogate in it."""
    if isinstance(value, str):
        at = _first_surrogate(value)
        if at is not None:
            return value, len(value[:at].encode("utf-8", "surrogatepass"))
        return None
    if isinstance(value, dict):
        items: list[Any] = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        found = _unwritable(item)
        if found is not None:
            return found
    return None


def _clean_object(
    record: dict[str, Any], html_column: str | None, raw: bool
) -> tuple[dict[str, Any], list[str], int, str | None]:
    """``record`` with every value that holds a lone surrogate set to None (a key that holds one is
    dropped), the problems found, and the raw bytes of the HTML value when it was one of them
    (``raw``: the surrogates stand for bytes that were not UTF-8)."""
    kept: dict[str, Any] = {}
    bad: list[str] = []
    html_bytes, sha256 = 0, None
    for key, value in record.items():
        if _first_surrogate(key) is not None:
            shown = key.encode("utf-8", "surrogateescape" if raw else "surrogatepass")
            bad.append(f"a column name ({shown!r})")
            continue
        found = _unwritable(value)
        if found is None:
            kept[key] = value
            continue
        kept[key] = None
        text, offset = found
        if raw:
            data = text.encode("utf-8", "surrogateescape")
            bad.append(f"column {key!r}: byte 0x{data[offset]:02x} at byte offset {offset}")
        else:
            code = ord(text[_first_surrogate(text) or 0])
            bad.append(f"column {key!r}: a lone surrogate \\u{code:04x} at byte offset {offset}")
        if key == html_column and isinstance(value, str):
            data = value.encode("utf-8", "surrogateescape" if raw else "surrogatepass")
            html_bytes, sha256 = len(data), content_digest(data)
    return kept, bad, html_bytes, sha256


def _read_line(line: bytes, where: str, html_column: str | None) -> tuple[bytes, bool]:
    """One JSON Lines line as the clean copy holds it (the line itself when it is good), and
    whether it was a JSON value at all."""
    try:
        text = line.decode("utf-8")
        raw = False
    except UnicodeDecodeError as err:
        first = f"byte 0x{line[err.start]:02x} at byte offset {err.start} of {where}"
        text, raw = line.decode("utf-8", "surrogateescape"), True
    try:
        record = json.loads(text)
    except ValueError as err:
        if raw:
            problem = RowProblem("not_utf8", f"not UTF-8: {first}, which is not JSON either")
        else:
            problem = RowProblem("not_json", f"not JSON: {where}: {err}")
        return json.dumps({PROBLEM_KEY: problem.to_json()}).encode("utf-8"), False
    if not isinstance(record, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean"}.get(type(record), "a number or null")
        problem = RowProblem("not_json", f"not a JSON object: {where} holds {kind}")
        return json.dumps({PROBLEM_KEY: problem.to_json()}).encode("utf-8"), True
    if not raw and not _SURROGATE_ESCAPE.search(line):
        return line, True
    kept, bad, html_bytes, sha256 = _clean_object(record, html_column, raw)
    if not bad:
        return line, True
    if raw:
        problem = RowProblem("not_utf8", f"not UTF-8: {first}; " + "; ".join(bad), html_bytes, sha256)
    else:
        problem = RowProblem("bad_text", f"bad text in {where}: " + "; ".join(bad), html_bytes, sha256)
    return json.dumps({**kept, PROBLEM_KEY: problem.to_json()}).encode("utf-8"), True


def _open(path: Path) -> BinaryIO:
    if path.name.lower().endswith(".gz"):
        return cast(BinaryIO, gzip.open(path, "rb"))
    return path.open("rb")


def _lines(path: Path) -> Iterator[bytes]:
    """The non-blank lines of a JSON Lines file, or the items of a file that holds one JSON array."""
    with _open(path) as stream:
        head = stream.readline()
        if head.startswith(codecs.BOM_UTF8):
            head = head[len(codecs.BOM_UTF8) :]
        while head and not head.strip():
            head = stream.readline()
        if head.lstrip().startswith(b"["):
            # Perhaps one JSON array (a .json file): then each item is a row.
            whole = head + stream.read()
            try:
                items = json.loads(whole.decode("utf-8", "surrogateescape"))
            except ValueError:
                items = None
            if isinstance(items, list):
                for item in items:
                    yield json.dumps(item).encode("utf-8")
                return
            lines: Iterable[bytes] = whole.splitlines()
        else:
            lines = itertools.chain((head,), stream)
        for line in lines:
            if line.strip():
                yield line.rstrip(b"\r\n")


def clean_json_lines(files: tuple[str, ...], folder: Path, html_column: str | None) -> tuple[list[str], int]:
    """Each JSON Lines file as a clean copy in ``folder`` (made once; a copy that exists is the
    one made for this input), one line per row, and the number of rows. A file of which no line
    is a JSON value is not a JSON Lines file, and raises ValueError."""
    folder.mkdir(parents=True, exist_ok=True)
    copies: list[str] = []
    rows = 0
    for number, name in enumerate(files):
        path = Path(name)
        copy = folder / f"{number:05d}.jsonl"
        counted = folder / f"{number:05d}.rows"
        if copy.is_file() and counted.is_file():
            copies.append(str(copy))
            rows += int(counted.read_text(encoding="utf-8"))
            continue
        count = parsed = 0
        with tempfile.NamedTemporaryFile("wb", dir=folder, prefix=".clean-", delete=False) as out:
            try:
                for line_number, line in enumerate(_lines(path), start=1):
                    clean, is_json = _read_line(line, f"line {line_number} of {path.name}", html_column)
                    out.write(clean + b"\n")
                    count += 1
                    parsed += is_json
            except BaseException:
                Path(out.name).unlink()
                raise
        if count and not parsed:
            Path(out.name).unlink()
            raise ValueError(f"{path}: no line of it is JSON; not a JSON Lines file")
        Path(out.name).replace(copy)
        counted.write_text(str(count), encoding="utf-8")
        copies.append(str(copy))
        rows += count
    return copies, rows
