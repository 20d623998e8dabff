"""Counting tokens of prompts and generations with a local Hugging Face tokenizer, offline.

Token counts feed the cost columns of the report and tell whether a generation was cut off by
``max_gen_toks``. They must come from the tokenizer that produced the text: the model's own
when it is a local ``hf`` model (a folder, optionally with a ``gguf_file``), otherwise one the user
names. Nothing here may reach the network: a benchmark run on an offline machine must not stall
or silently count with a different tokenizer, so every load is ``local_files_only`` with the Hub
switched off, and a tokenizer that is not on disk is an error that says so.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "TokenCounter",
    "TokenUsage",
    "TokenizerSource",
    "TokenizerUnavailableError",
    "counter_for",
    "parse_model_args",
    "tokenizer_source",
]


class TokenizerUnavailableError(RuntimeError):
    """No local tokenizer could be loaded for the requested model or name."""


@dataclass(frozen=True)
class TokenUsage:
    """Tokens of one generation. ``hit_limit`` is None when the limit is unknown."""

    input: int
    output: int
    hit_limit: bool | None = None

    @property
    def total(self) -> int:
        return self.input + self.output

    def to_dict(self) -> dict[str, Any]:
        return {"input": self.input, "output": self.output, "total": self.total, "hit_limit": self.hit_limit}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TokenUsage | None:
        """Read a record's ``tokens`` entry; None when a count is missing or not a number."""
        try:
            count_in = int(data["input"])
            count_out = int(data["output"])
        except (KeyError, TypeError, ValueError):
            return None
        hit = data.get("hit_limit")
        return cls(count_in, count_out, hit if isinstance(hit, bool) else None)


def parse_model_args(model_args: str | Mapping[str, Any] | None) -> dict[str, str]:
    """lm-eval's ``--model_args`` (``k=v,k=v`` or a dict) as a plain string mapping."""
    if model_args is None:
        return {}
    if isinstance(model_args, Mapping):
        return {str(k): str(v) for k, v in model_args.items()}
    out: dict[str, str] = {}
    for part in str(model_args).split(","):
        key, sep, value = part.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip()
    return out


@dataclass(frozen=True)
class TokenizerSource:
    """Where a tokenizer lives on disk: a folder or a local Hub cache name, plus a GGUF file."""

    name: str
    gguf_file: str | None = None

    def describe(self) -> str:
        return f"{self.name} ({self.gguf_file})" if self.gguf_file else self.name


def tokenizer_source(
    model: str | None, model_args: str | Mapping[str, Any] | None, named: str | None = None
) -> TokenizerSource | None:
    """The tokenizer to count with: ``named`` if given, else the model's own for a local ``hf`` model.

    ``named`` is a local folder, a name already in the Hugging Face cache, or a ``.gguf`` file
    (its tokenizer is read from the file, as transformers does with ``gguf_file=``).

    Returns None when neither applies (an API model and no named tokenizer): the counts are
    then unknown, which the report shows as such rather than guessing.
    """
    if named:
        path = Path(named).expanduser()
        if path.suffix == ".gguf" and path.is_file():
            return TokenizerSource(str(path.parent), path.name)
        return TokenizerSource(named)
    if model not in ("hf", "huggingface", "hf-auto"):
        return None
    args = parse_model_args(model_args)
    name = args.get("tokenizer") or args.get("pretrained")
    if not name:
        return None
    gguf = args.get("gguf_file") if "tokenizer" not in args else None
    return TokenizerSource(name, gguf or None)


class TokenCounter:
    """A loaded tokenizer; counts tokens the way the model saw them (no special tokens added:
    a chat-templated prompt already holds its special tokens as text)."""

    def __init__(self, source: TokenizerSource) -> None:
        self.source = source
        self._tokenizer = _load(source)

    def count(self, text: str) -> int:
        if not text:
            return 0
        ids = self._tokenizer(text, add_special_tokens=False)["input_ids"]
        return len(ids)

    def usage(self, prompt: str, response: str, max_gen_toks: int | None = None) -> TokenUsage:
        """Tokens of one generation; ``hit_limit`` when the response used the whole budget."""
        out = self.count(response)
        hit = None if max_gen_toks is None else out >= max_gen_toks
        return TokenUsage(self.count(prompt), out, hit)


@lru_cache(maxsize=4)
def counter_for(source: TokenizerSource) -> TokenCounter:
    """A counter per tokenizer, loaded once per process (loading a GGUF tokenizer takes seconds)."""
    return TokenCounter(source)


def _load(source: TokenizerSource) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from transformers import AutoTokenizer
    except ImportError as err:
        raise TokenizerUnavailableError(
            "counting tokens needs transformers: pip install 'lm-eval-a11y[model]'"
        ) from err
    kwargs: dict[str, Any] = {"local_files_only": True}
    if source.gguf_file:
        kwargs["gguf_file"] = source.gguf_file
    name = source.name
    if Path(name).expanduser().exists():
        name = str(Path(name).expanduser())
    try:
        return AutoTokenizer.from_pretrained(name, **kwargs)
    except Exception as err:
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise TokenizerUnavailableError(
            f"no local tokenizer for {source.describe()}: {first}. Give a local folder or a name already "
            "in the Hugging Face cache (nothing is downloaded)."
        ) from err
