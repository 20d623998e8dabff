"""Filling in token counts the sample records lack, with a local tokenizer (never the network).

Runs made before the task recorded tokens, or with a model whose tokenizer the task could not
load, still get token and cost columns when the user asks for counting: the prompt as sent
(lm-eval's ``arguments``) and the raw response are counted with the model's own tokenizer when it
is a local ``hf`` model, or with the tokenizer the user names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from lm_eval_a11y.report.loading import RunSeries
from lm_eval_a11y.tokens import TokenCounter, TokenizerSource, tokenizer_source

__all__ = ["fill_tokens"]


def fill_tokens(
    series: Sequence[RunSeries],
    *,
    named: str | None = None,
    counter: Callable[[TokenizerSource], TokenCounter] = TokenCounter,
) -> tuple[list[RunSeries], list[str]]:
    """Series whose samples all have token counts where a tokenizer is known, and notes for the rest."""
    out: list[RunSeries] = []
    notes: list[str] = []
    loaded: dict[TokenizerSource, TokenCounter] = {}
    for s in series:
        missing = [x for x in s.samples if x.tokens is None]
        if not missing:
            out.append(s)
            continue
        source = tokenizer_source(s.model, s.config.get("model_args"), named)
        if source is None:
            notes.append(
                f"{s.label}: {len(missing)} sample(s) have no token counts and {s.model or 'this model'} is not a "
                "local hf model; give --tokenizer NAME to count them"
            )
            out.append(s)
            continue
        if source not in loaded:
            loaded[source] = counter(source)
        count = loaded[source]
        samples = []
        for x in s.samples:
            if x.tokens is None:
                prompt = x.prompt_sent if x.prompt_sent is not None else s.cases[x.case_id].prompt
                response = x.response if x.response is not None else (x.html or "")
                x = replace(x, tokens=count.usage(prompt, response, s.max_gen_toks))
            samples.append(x)
        notes.append(f"{s.label}: token counts of {len(missing)} sample(s) computed here with {source.describe()}")
        out.append(replace(s, samples=tuple(samples)))
    return out, notes
