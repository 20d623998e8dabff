"""Rows in and out of datatrove, whole: every row read becomes one document, every document is
written back as the row it was, followed by its score columns.

datatrove's readers drop a row whose text is empty (a corpus row whose HTML is missing would
vanish), its Hugging Face reader turns a whole batch into Python at once (one value that is not
UTF-8 stops the task, at the same row every time it runs), and its writers write documents
(``text``, ``id``, ``metadata``), not the rows they came from. These subclasses change the
adapters, the hook datatrove provides for both, and how a batch becomes rows: one at a time when
the batch as a whole cannot (:func:`lm_eval_a11y.corpus.decode.decode_table`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from datatrove.data import Document
from datatrove.pipeline.readers import HuggingFaceDatasetReader
from datatrove.pipeline.writers import JsonlWriter, ParquetWriter

from lm_eval_a11y.corpus.decode import decode_table

__all__ = ["RowsJsonlWriter", "RowsParquetWriter", "RowsReader", "output_row"]


class RowsReader(HuggingFaceDatasetReader):
    """datatrove's reader of ``datasets`` data (Parquet, JSON Lines, a saved dataset); each row
    becomes a document whose metadata is the row itself and whose text is never empty (the HTML,
    when it is a non-empty string; a placeholder otherwise: the filter reads the row's value)."""

    def __init__(self, dataset: str, *, column: str, **options: Any) -> None:
        super().__init__(dataset, **options)
        self.column = column

    def _default_adapter(self, data: dict[str, Any], path: str, id_in_file: int | str) -> dict[str, Any]:
        value = data.get(self.column)
        text = value if isinstance(value, str) and value else f"<row {id_in_file}>"
        return {"text": text, "id": str(id_in_file), "metadata": data}

    def _get_dataset_shard(self, dst: Any, rank: int, world_size: int) -> Any:
        shard = super()._get_dataset_shard(dst, rank, world_size)
        return None if shard is None else _RowByRow(shard, self.column)


class _RowByRow:
    """A shard whose batches are decoded row by row when they cannot be decoded whole: what the
    reader's loop needs of a ``datasets.Dataset`` (its length, ``iter(batch_size)`` of columns)."""

    def __init__(self, shard: Any, column: str) -> None:
        from datasets.features.features import require_decoding

        self.shard, self.column = shard, column
        # Columns whose stored form is not their value (``datasets`` keeps a JSON column of mixed
        # types as JSON text): decoded by ``datasets`` itself, as its own iteration would.
        features = shard.features
        self.decoded = {name: feature for name, feature in features.items() if require_decoding(feature)}

    def __len__(self) -> int:
        return len(self.shard)

    def iter(self, batch_size: int) -> Iterator[dict[str, list[Any]]]:
        from datasets import Features

        decoding = Features(self.decoded)
        for table in self.shard.with_format("arrow").iter(batch_size):
            rows = decode_table(table, self.column)
            if self.decoded:
                for row in rows:
                    row.update(decoding.decode_example({name: row.get(name) for name in self.decoded}))
            names = list(dict.fromkeys(name for row in rows for name in row))
            yield {name: [row.get(name) for row in rows] for name in names}


def output_row(document: Document, columns: Sequence[str], keys: Sequence[str]) -> dict[str, Any]:
    """The row as read, column for column, then its scores (which replace columns of their name)."""
    row = {name: document.metadata.get(name) for name in columns if name not in keys}
    row.update({key: document.metadata[key] for key in keys})
    return row


class RowsParquetWriter(ParquetWriter):
    """One Parquet file per task (``00000.parquet``...), with an explicit schema: inferred from the
    first row, a column whose first value is missing would refuse every later value."""

    def __init__(self, folder: str, *, columns: Sequence[str], keys: Sequence[str], schema: Any) -> None:
        # One file per task, never split (max_file_size=-1): a task run again writes its file anew.
        super().__init__(folder, output_filename="${rank}.parquet", schema=schema, max_file_size=-1)
        self.columns, self.keys = tuple(columns), tuple(keys)

    def _default_adapter(self, document: Document) -> dict[str, Any]:
        return output_row(document, self.columns, self.keys)


class RowsJsonlWriter(JsonlWriter):
    """One uncompressed JSON Lines file per task (``00000.jsonl``...)."""

    def __init__(self, folder: str, *, columns: Sequence[str], keys: Sequence[str]) -> None:
        super().__init__(folder, output_filename="${rank}.jsonl", compression=None)
        self.columns, self.keys = tuple(columns), tuple(keys)

    def _default_adapter(self, document: Document) -> dict[str, Any]:
        return output_row(document, self.columns, self.keys)
