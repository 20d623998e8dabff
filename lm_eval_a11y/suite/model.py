"""Model and repair modes of a suite: the model generates through lm-eval's own model classes.

The model is built once from the suite's ``model:`` block with lm-eval's registry, so every
backend lm-eval has (``hf``, ``vllm``, ``local-chat-completions``...) works, and every answer
is asked for with lm-eval's own request object (``Instance`` of type ``generate_until``). All
first answers of the suite go to the model in one ``generate_until`` call, all their pages to
the browser in one ``evaluate_many`` call; repair mode then does the same once more for the
failed trials. A trial is never lost: an answer with no HTML, an empty or binary answer, a page
that hangs the evaluator, each is a failed trial with a status and a reason.

What is sent (docs/suites.md, "Prompts"):

- the case's prompt, as the lm-eval task sends it, asked in the case's prompt variant (``framework``
  and ``style`` append a sentence each: lm_eval_a11y/variants.py);
- ``instructions: full`` adds the system instruction of the ``a11y_html_instructed`` task word for
  word, ``minimal`` a short one (:data:`INSTRUCTIONS_TEXT`), ``none`` nothing; with
  ``apply_chat_template`` it is the system message, without it is put before the prompt;
- generation arguments as in the task: no stop sequence, 4096 new tokens, greedy for one trial
  and sampling at temperature 0.8 (as ``a11y_html_pass_at_k``) for several; the suite's
  ``gen_kwargs`` override any of them.

Repair mode hands every trial whose first page failed (no HTML and evaluation timeouts included:
the evaluator counts those as the page's own outcome) back to the model in a second turn with
the findings (:func:`repair_request`), and judges the page of that second answer.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from lm_eval_a11y.answer_pages import deciding_page
from lm_eval_a11y.cases import Case
from lm_eval_a11y.extract import Extraction, extract_html
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.pricing import ModelPrice
from lm_eval_a11y.records import Verdict, build_record, judge
from lm_eval_a11y.scoring import (
    decided_violations,
    generation_cost,
    graded_score,
    score_observation,
    unmet_requirements,
)
from lm_eval_a11y.suite.expectations import Trial
from lm_eval_a11y.suite.file import ModelSpec, Suite, SuiteCase
from lm_eval_a11y.suite.run import TrialRecord, suite_row, trial_of, variant_task
from lm_eval_a11y.tokens import TokenizerUnavailableError, counter_for, parse_model_args, tokenizer_source
from lm_eval_a11y.variants import DEFAULT_VARIANT, STYLE_TEXT, PromptVariant

if TYPE_CHECKING:
    from lm_eval_a11y.engine.evaluator import Evaluator

__all__ = [
    "DARK_THEME",
    "DEFAULT_MAX_GEN_TOKS",
    "INSTRUCTIONS_TEXT",
    "NO_HTML",
    "REPAIR_OPENING",
    "SAMPLING_TEMPERATURE",
    "ModelLoadError",
    "ModelRunError",
    "TokenCount",
    "UnknownModelError",
    "context_text",
    "gen_kwargs_for",
    "load_model",
    "merge_model_args",
    "model_class",
    "model_trials",
    "prompt_messages",
    "render_context",
    "repair_request",
    "token_counter",
]

INSTRUCTIONS_TEXT: Mapping[str, str] = {
    "none": "",
    # Short on purpose: it names the goal and nothing of how, so the gain from "full" over it is
    # the gain from spelling out the standard and the keyboard and screen-reader demands.
    "minimal": "Make the page accessible.",
    # The a11y_html_instructed task's description, word for word (a unit test holds them equal).
    "full": "Make the page accessible: follow WCAG 2.2 level AA, use semantic HTML, and make every control "
    "work with a keyboard and a screen reader.",
}
DARK_THEME = STYLE_TEXT["dark"]
SAMPLING_TEMPERATURE = 0.8
DEFAULT_MAX_GEN_TOKS = 4096
NO_HTML = "no-html"
"""The status of a trial whose answer held no HTML document: nothing could be evaluated."""
REPAIR_OPENING = "An accessibility audit of the page in your answer found these problems:"
"""The first line of a repair turn (a fake model in the tests looks for it)."""
_MAX_HANDED_BACK = 100_000
"""Characters of a first answer handed back in the repair turn at most: a runaway answer must
not blow the second prompt past any context window."""
_NODE_EXAMPLES = 3
_SNIPPET = 240


class ModelLoadError(RuntimeError):
    """The suite's model could not be built (bad arguments, missing files, no backend)."""


class UnknownModelError(ModelLoadError):
    """lm-eval has no model class of the suite's ``model.name``: a mistake in the file, not the machine."""


class ModelRunError(RuntimeError):
    """The model failed as a whole while generating (not one bad answer: the backend raised)."""


# ------------------------------------------------------------------------------ the model


def merge_model_args(file_args: str, overrides: str | None) -> str:
    """The suite's ``model.args`` with the keys of ``--model-args`` replacing or adding to them."""
    if not overrides:
        return file_args
    merged = {**parse_model_args(file_args), **parse_model_args(overrides)}
    return ",".join(f"{k}={v}" for k, v in merged.items())


def model_class(spec: ModelSpec) -> Any:
    """The lm-eval ``LM`` class named by ``model.name``; :class:`UnknownModelError` when lm-eval has
    none (checked before anything is written or loaded: it is a mistake in the file)."""
    try:
        from lm_eval.api.registry import get_model
    except ImportError as err:  # pragma: no cover - lm-eval is a dependency
        raise ModelLoadError(f"model and repair modes need lm-eval: {err}") from err
    try:
        return get_model(spec.name)
    except (ValueError, KeyError) as err:
        raise UnknownModelError(
            f"no lm-eval model class {spec.name!r} ({_first_line(err)}); lm-eval's documentation lists them, "
            "e.g. hf, vllm, local-chat-completions"
        ) from None


def load_model(spec: ModelSpec) -> Any:
    """An lm-eval ``LM`` built by its registry, as ``lm_eval --model NAME --model_args ARGS`` does.

    Raises :class:`ModelLoadError` with lm-eval's own first line of explanation (a missing file,
    a bad argument), :class:`UnknownModelError` for a class name lm-eval does not know."""
    cls = model_class(spec)
    extra = {"device": spec.device, "batch_size": spec.batch_size}
    try:
        return cls.create_from_arg_string(spec.args, {k: v for k, v in extra.items() if v is not None})
    except Exception as err:
        raise ModelLoadError(
            f"the model {spec.name} with args {spec.args!r} could not be loaded: "
            f"{type(err).__name__}: {_first_line(err)}"
        ) from err


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:400] if text else type(err).__name__


def gen_kwargs_for(spec: ModelSpec, trials: int) -> dict[str, Any]:
    """Generation arguments for one request: the task's defaults, sampling when there are several
    trials (identical greedy answers would make pass@k meaningless), then the suite's own."""
    kwargs: dict[str, Any] = {"until": [], "max_gen_toks": DEFAULT_MAX_GEN_TOKS}
    if trials > 1:
        kwargs.update(do_sample=True, temperature=SAMPLING_TEMPERATURE)
    else:
        kwargs.update(do_sample=False, temperature=0.0)
    kwargs.update(dict(spec.gen_kwargs))
    return kwargs


# ------------------------------------------------------------------------------ prompts


def prompt_messages(case: Case, instructions: str, variant: PromptVariant = DEFAULT_VARIANT) -> list[dict[str, str]]:
    """The chat of a first turn: an optional system instruction, then the case's prompt asked in
    ``variant`` (the default variant sends it as the case wrote it)."""
    prompt = variant.prompt(case.prompt.rstrip())
    system = INSTRUCTIONS_TEXT[instructions]
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]


def render_context(lm: Any, messages: Sequence[Mapping[str, str]], chat: bool) -> Any:
    """The context for lm-eval, as the backend wants it: whatever ``lm.apply_chat_template``
    returns (a string for ``hf``; an API model returns a JSON string wrapper or the message list
    and reads it back before sending), or, without a chat template, the turns as plain text
    separated by blank lines (an instruction before the prompt, as lm-eval puts a description)."""
    if chat:
        return lm.apply_chat_template([dict(m) for m in messages])
    return "\n\n".join(m["content"] for m in messages)


def context_text(context: Any) -> str:
    """A context as text, for records and token counts: the JSON of an API model's messages."""
    if isinstance(context, str):
        return context
    prompt = getattr(context, "prompt", None)  # lm-eval's JsonChatStr
    if isinstance(prompt, str):
        return prompt
    try:
        return json.dumps(context, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(context)


def _snippet(html: str) -> str:
    flat = " ".join(html.split())
    return flat if len(flat) <= _SNIPPET else flat[: _SNIPPET - 3] + "..."


def repair_request(observation: Observation | None, status: str, error: str | None) -> str:
    """The second turn's user message: what failed, in the benchmark's own words, and the ask.

    Requirement checks that did not pass (with their messages), the axe WCAG failures as decided
    (colour contrast as rendered) with the rule's help and a few of the failing elements, and any
    content that could not be audited or an evaluation that did not finish."""
    ask = (
        "Fix every problem and reply with the whole corrected page: one complete HTML file, with any "
        "CSS and JavaScript inline, in a ```html code block."
    )
    if observation is None:
        return (
            f"{REPAIR_OPENING}\n\n- your answer held no HTML document ({error or status}).\n\n"
            "Reply with the page the task asked for: one complete HTML file, with any CSS and JavaScript "
            "inline, in a ```html code block."
        )
    lines: list[str] = []
    if observation.status != "ok":
        lines.append(f"- the page could not be evaluated: {observation.status} ({observation.error})")
    for check in unmet_requirements(observation):
        lines.append(f"- requirement {check.id!r} ({check.description}): {check.outcome}: {check.message}")
    for finding in decided_violations(observation):
        if finding.best_practice:
            continue
        lines.append(f"- axe rule {finding.rule_id!r}, {finding.node_count} element(s): {finding.help}")
        for node in finding.nodes[:_NODE_EXAMPLES]:
            summary = f" ({' '.join(node.failure_summary.split())[:_SNIPPET]})" if node.failure_summary else ""
            lines.append(f"    - `{_snippet(node.html)}`{summary}")
    for what in observation.audit.unaudited:
        lines.append(f"- content that could not be audited: {what}")
    if not lines:  # failed for a reason none of the above names: hand back the verdict's own
        lines = [f"- {r}" for r in score_observation(observation).reasons] or ["- the page did not pass"]
    return f"{REPAIR_OPENING}\n\n" + "\n".join(lines) + f"\n\n{ask}"


# ------------------------------------------------------------------------------ tokens


@dataclass(frozen=True)
class TokenCount:
    """Counts tokens the way lm_eval_a11y.tokens counts them for the report: the model's own
    local tokenizer for an ``hf`` model, else the LM's ``tok_encode`` when it returns token ids.
    ``count`` is None when neither applies (an API model without a tokenizer): unknown, not 0."""

    count: Callable[[str], int | None]
    source: str


def token_counter(spec: ModelSpec, lm: Any) -> TokenCount:
    source = tokenizer_source(spec.name, spec.args)
    if source is not None:
        try:
            counter = counter_for(source)
            return TokenCount(counter.count, f"tokenizer {source.describe()}")
        except TokenizerUnavailableError:
            pass
    encode = getattr(lm, "tok_encode", None)
    if callable(encode):

        def count(text: str) -> int | None:
            try:
                ids = encode(text)
            except Exception:  # noqa: BLE001 - a count the backend cannot make is unknown, not a crash
                return None
            if isinstance(ids, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
                return len(ids)
            return None  # e.g. an API model without a tokenizer hands back the text itself

        return TokenCount(count, f"{type(lm).__name__}.tok_encode")
    return TokenCount(lambda _text: None, "none")


# ------------------------------------------------------------------------------ the run


@dataclass(frozen=True)
class _Turn:
    """One generation of one trial: what was sent, what came back, and what it gave."""

    context: str
    response: str
    extraction: Extraction
    observation: Observation | None
    generation_ms: float

    @cached_property
    def verdict(self) -> Verdict:
        """The page judged once: the trial and its sample record share it."""
        return judge(self.observation, html_found=self.extraction.found, truncated=self.extraction.truncated)


@dataclass(frozen=True)
class _Plan:
    case_index: int
    round: int
    messages: tuple[tuple[str, str], ...]


def _as_text(value: Any) -> str:
    """A model's answer as text, whatever the backend returned (None, bytes, an object)."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, bytes):
        text = value.decode("utf-8", errors="replace")
    elif value is None:
        text = ""
    else:
        text = str(value)
    # Lone surrogates and NULs make JSON writers and the browser choke; they mean nothing here.
    return text.encode("utf-8", errors="replace").decode("utf-8").replace("\x00", "\ufffd")


def _generate(
    lm: Any,
    docs: Sequence[dict[str, Any]],
    contexts: Sequence[Any],
    gen_kwargs: Sequence[dict[str, Any]],
    tasks: Sequence[str],
) -> tuple[list[str], float]:
    """One ``generate_until`` call for every request; the answers and the wall time in ms."""
    from lm_eval.api.instance import Instance

    requests = [
        Instance(
            request_type="generate_until",
            doc=doc,
            arguments=(context, dict(kwargs)),
            idx=0,
            metadata=(task, i, 1),
        )
        for i, (doc, context, kwargs, task) in enumerate(zip(docs, contexts, gen_kwargs, tasks, strict=True))
    ]
    clock = time.monotonic()
    try:
        answers = lm.generate_until(requests)
    except Exception as err:
        raise ModelRunError(f"the model failed while generating: {type(err).__name__}: {_first_line(err)}") from err
    elapsed = (time.monotonic() - clock) * 1000
    answers = list(answers) if answers is not None else []
    if len(answers) != len(requests):
        raise ModelRunError(f"the model returned {len(answers)} answer(s) for {len(requests)} request(s)")
    return [_as_text(a) for a in answers], elapsed


def _evaluate(
    evaluator: Evaluator,
    cases: Sequence[Case],
    extractions: Sequence[Extraction],
    names: Sequence[str],
    progress: Callable[[int, int], None] | None,
) -> list[tuple[Extraction, Observation | None]]:
    """One ``evaluate_many`` for every page of every extraction that found HTML; for each, the
    extraction with the page that decided as its ``html`` (the lowest score, as in the lm-eval
    task: :mod:`lm_eval_a11y.answer_pages`) and that page's observation; None where none was found."""
    jobs = [(i, p) for i, e in enumerate(extractions) for p in range(len(e.judged))]
    found = (
        evaluator.evaluate_many(
            [(cases[i], extractions[i].judged[p]) for i, p in jobs],
            names=[names[i] + (f"-{p}" if p else "") for i, p in jobs],
            progress=progress,
        )
        if jobs
        else []
    )
    pages: dict[int, list[Observation]] = {}
    for (i, _), obs in zip(jobs, found, strict=True):
        pages.setdefault(i, []).append(obs)
    out: list[tuple[Extraction, Observation | None]] = []
    for i, extraction in enumerate(extractions):
        observed = pages.get(i)
        if not observed:
            out.append((extraction, None))
            continue
        decided = deciding_page([graded_score(o) for o in observed], extraction.primary)
        out.append((replace(extraction, html=extraction.judged[decided]), observed[decided]))
    return out


def _verdict(turn: _Turn) -> tuple[bool, str, str | None, tuple[str, ...]]:
    """Passed, status, error and reasons of one turn's page."""
    score = turn.verdict.score
    if turn.observation is None or score is None:
        why = "no HTML document found in the response" + (
            " (the response was empty)" if not turn.response.strip() else ""
        )
        return False, NO_HTML, why, (why,)
    return score.passed, turn.observation.status, turn.observation.error, score.reasons


def _seed() -> None:
    """The seeds lm-eval's ``simple_evaluate`` sets by default, so sampled trials repeat as a
    task run's do. torch is seeded only when the backend already imported it (never imported
    here just for this: an API model needs no torch)."""
    import random

    random.seed(0)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(1234)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(1234)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def model_trials(
    suite: Suite,
    lm: Any,
    evaluator: Evaluator,
    *,
    spec: ModelSpec,
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[str], None] = _say,
) -> tuple[dict[int, list[TrialRecord]], dict[str, Any] | None]:
    """The trials of the suite's model and repair cases (by case index) and the environment.

    ``lm`` is a built lm-eval model (:func:`load_model`); ``evaluator`` belongs to the caller."""
    from dataclasses import asdict

    plans = [
        _Plan(
            i,
            r,
            tuple(
                (m["role"], m["content"])
                for m in prompt_messages(case.case, case.settings.instructions, case.settings.variant)
            ),
        )
        for i, case in enumerate(suite.cases)
        if case.settings.generates
        for r in range(case.settings.trials)
    ]
    if not plans:
        return {}, None
    chat = spec.apply_chat_template
    counter = token_counter(spec, lm)
    _seed()
    rows = {i: suite_row(c) for i, c in enumerate(suite.cases)}

    def case_of(plan: _Plan) -> SuiteCase:
        return suite.cases[plan.case_index]

    def turns(plans_: Sequence[_Plan], chats: Sequence[list[dict[str, str]]], what: str) -> list[_Turn]:
        try:
            contexts = [render_context(lm, m, chat) for m in chats]
        except Exception as err:  # a model without a chat template, a template that refuses a role
            raise ModelRunError(
                f"the model's chat template could not be applied: {type(err).__name__}: {_first_line(err)} "
                "(set model.apply_chat_template: false for a model without one)"
            ) from err
        texts = [context_text(c) for c in contexts]
        kwargs = [gen_kwargs_for(spec, case_of(p).settings.trials) for p in plans_]
        tasks = [variant_task(case_of(p).settings) for p in plans_]
        log(f"suite {suite.name}: generating {len(contexts)} {what} with {spec.name}")
        answers, elapsed = _generate(lm, [rows[p.case_index] for p in plans_], contexts, kwargs, tasks)
        share = elapsed / len(plans_)
        log(f"suite {suite.name}: {len(answers)} {what} generated in {elapsed / 1000:.1f} s")
        extractions = [extract_html(a) for a in answers]
        names = [f"{case_of(p).id}-{tasks[k]}-{what.split()[0]}-{p.round}" for k, p in enumerate(plans_)]
        judged = _evaluate(evaluator, [case_of(p).case for p in plans_], extractions, names, progress)
        return [_Turn(c, a, e, o, share) for c, a, (e, o) in zip(texts, answers, judged, strict=True)]

    first = turns(plans, [[{"role": r, "content": c} for r, c in p.messages] for p in plans], "first answer(s)")
    repairs: dict[int, _Turn] = {}
    to_repair = [
        k
        for k, (p, t) in enumerate(zip(plans, first, strict=True))
        if case_of(p).settings.mode == "repair" and not _verdict(t)[0]
    ]
    if to_repair:
        chats = []
        for k in to_repair:
            turn = first[k]
            status, error = _verdict(turn)[1:3]
            answer = turn.response[:_MAX_HANDED_BACK]
            chats.append(
                [{"role": r, "content": c} for r, c in plans[k].messages]
                + [
                    {"role": "assistant", "content": answer},
                    {"role": "user", "content": repair_request(turn.observation, status, error)},
                ]
            )
        second = turns([plans[k] for k in to_repair], chats, "repair answer(s)")
        repairs = dict(zip(to_repair, second, strict=True))

    per_case: dict[int, list[TrialRecord]] = {}
    environments = [t.observation.environment for t in [*first, *repairs.values()] if t.observation is not None]
    for k, (plan, turn) in enumerate(zip(plans, first, strict=True)):
        case = case_of(plan)
        per_case.setdefault(plan.case_index, []).append(
            _record(case, plan, turn, repairs.get(k), rows[plan.case_index], counter, spec)
        )
    environment = next((asdict(e) for e in environments if e is not None), None)
    return per_case, environment


def _record(
    case: SuiteCase,
    plan: _Plan,
    first: _Turn,
    repair: _Turn | None,
    row: dict[str, Any],
    counter: TokenCount,
    spec: ModelSpec,
) -> TrialRecord:
    """One trial from its turns: the final page decides, tokens and time add up over the turns."""
    settings = case.settings
    final = repair if repair is not None else first
    passed, status, error, reasons = _verdict(final)
    first_passed = _verdict(first)[0]
    turns = [first] + ([repair] if repair is not None else [])
    counts_in = [counter.count(t.context) for t in turns]
    counts_out = [counter.count(t.response) for t in turns]
    tokens_in = None if any(c is None for c in counts_in) else sum(c for c in counts_in if c is not None)
    tokens_out = None if any(c is None for c in counts_out) else sum(c for c in counts_out if c is not None)
    cost = _cost(tokens_in, tokens_out, settings.pricing)
    generation_ms = sum(t.generation_ms for t in turns)
    evaluation = [t.observation.timings.total_ms if t.observation is not None else 0.0 for t in turns]
    evaluation_ms = sum(evaluation)
    obs = final.observation
    label = f"#{plan.round + 1}"
    # What the final page showed, read as a reference trial reads it; no page: nothing seen.
    seen = (
        trial_of(obs, label, score=final.verdict.score).trial
        if obs is not None
        else Trial(passed=False, axe_failures=None, label=label)
    )
    trial = replace(
        seen,
        passed=passed,
        duration_ms=generation_ms + evaluation_ms,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        estimated_cost_usd=cost,
        first_try_passed=first_passed if settings.mode == "repair" else None,
    )
    record = build_record(row, final.extraction, obs, verdict=final.verdict)
    max_gen = gen_kwargs_for(spec, settings.trials).get("max_gen_toks")
    last_out = counts_out[-1]
    if tokens_in is not None and tokens_out is not None:
        # Every turn the trial took, so the report's cost is what the trial spent.
        record["tokens"] = {
            "input": tokens_in,
            "output": tokens_out,
            "total": tokens_in + tokens_out,
            "hit_limit": last_out >= max_gen
            if last_out is not None and isinstance(max_gen, int) and not isinstance(max_gen, bool)
            else None,
        }
    record["suite"] = {
        "trial": plan.round + 1,
        "mode": settings.mode,
        "instructions": settings.instructions,
        "framework": settings.framework,
        "style": settings.style,
        "first_try_passed": first_passed,
        "repaired": repair is not None,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "estimated_cost_usd": cost,
        "generation_ms": generation_ms,
        "evaluation_ms": evaluation_ms,
    }
    if repair is not None:
        first_status, first_error, first_reasons = _verdict(first)[1:]
        record["suite"]["first_try"] = {
            "context": first.context,
            "response": first.response,
            "html": first.extraction.html,
            "status": first_status,
            "error": first_error,
            "reasons": list(first_reasons),
        }
    return TrialRecord(
        trial=trial,
        round=plan.round + 1,
        example=None,
        status=status,
        error=error,
        reasons=reasons,
        task=variant_task(settings),
        context=final.context,
        response=final.response,
        record=record,
        generation_ms=generation_ms,
        evaluation_ms=evaluation_ms,
        repaired=repair is not None,
    )


def _cost(tokens_in: int | None, tokens_out: int | None, pricing: ModelPrice | None) -> float | None:
    """Estimated cost of a trial; None when a count or the prices are unknown."""
    if tokens_in is None or tokens_out is None or pricing is None:
        return None
    cost = generation_cost(tokens_in, tokens_out, pricing.input_per_million, pricing.output_per_million)
    return cost if math.isfinite(cost) else None
