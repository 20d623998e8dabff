"""What model and repair suites send, without a model or a browser: the prompt variants, the
generation arguments, the repair turn's findings, and model arguments from the command line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from lm_eval_a11y.cases import get_case
from lm_eval_a11y.observation import CheckResult, Observation
from lm_eval_a11y.resources import tasks_dir
from lm_eval_a11y.suite import ModelSpec
from lm_eval_a11y.suite.model import (
    DARK_THEME,
    INSTRUCTIONS_TEXT,
    REPAIR_OPENING,
    UnknownModelError,
    context_text,
    gen_kwargs_for,
    merge_model_args,
    model_class,
    prompt_messages,
    render_context,
    repair_request,
)
from lm_eval_a11y.variants import PromptVariant

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "observations" / "reveal-photo.json"


def test_full_instructions_are_the_instructed_task_word_for_word() -> None:
    task = yaml.safe_load((tasks_dir() / "a11y_html" / "a11y_html_instructed.yaml").read_text(encoding="utf-8"))
    assert INSTRUCTIONS_TEXT["full"] == task["description"].strip()


@pytest.mark.parametrize(
    ("instructions", "style", "roles", "ends_with"),
    [
        ("none", "default", ["user"], "inline."),
        ("minimal", "default", ["system", "user"], "inline."),
        ("full", "dark", ["system", "user"], DARK_THEME),
    ],
)
def test_prompt_variants(instructions: str, style: str, roles: list[str], ends_with: str) -> None:
    case = get_case("breadcrumb")
    messages = prompt_messages(case, instructions, PromptVariant(style=style))
    assert [m["role"] for m in messages] == roles
    assert messages[-1]["content"].startswith(case.prompt.strip()[:40])
    assert messages[-1]["content"].endswith(ends_with)
    if instructions != "none":
        assert messages[0]["content"] == INSTRUCTIONS_TEXT[instructions]


def test_without_a_chat_template_the_turns_are_plain_text() -> None:
    messages = prompt_messages(get_case("breadcrumb"), "minimal")
    text = render_context(None, messages, chat=False)
    assert text.startswith("Make the page accessible.\n\n") and text.endswith(messages[-1]["content"])


def test_generation_arguments() -> None:
    spec = ModelSpec(name="hf")
    assert gen_kwargs_for(spec, 1) == {"until": [], "max_gen_toks": 4096, "do_sample": False, "temperature": 0.0}
    assert gen_kwargs_for(spec, 5) == {"until": [], "max_gen_toks": 4096, "do_sample": True, "temperature": 0.8}
    own = replace(spec, gen_kwargs=(("max_gen_toks", 1024), ("temperature", 0.2)))
    assert gen_kwargs_for(own, 5) == {"until": [], "max_gen_toks": 1024, "do_sample": True, "temperature": 0.2}


def test_model_args_from_the_command_line_replace_key_by_key() -> None:
    assert merge_model_args("pretrained=a,dtype=float32", "pretrained=/models/b,gguf_file=m.gguf") == (
        "pretrained=/models/b,dtype=float32,gguf_file=m.gguf"
    )
    assert merge_model_args("pretrained=a", None) == "pretrained=a"


def test_an_unknown_model_class_is_named() -> None:
    with pytest.raises(UnknownModelError, match="no lm-eval model class 'hf-typo'"):
        model_class(ModelSpec(name="hf-typo"))


def _observation() -> Observation:
    data: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    obs = Observation.from_dict(data)
    failing = CheckResult("alt-on-photo", "R", "The photo has a text alternative", "fail", "the <img> has no alt")
    return replace(obs, checks=(*obs.checks, failing))


def test_the_repair_turn_names_what_failed() -> None:
    text = repair_request(_observation(), "ok", None)
    assert text.startswith(REPAIR_OPENING)
    assert "- requirement 'alt-on-photo' (The photo has a text alternative): fail: the <img> has no alt" in text
    assert "- axe rule 'image-alt'" in text and "- axe rule 'label'" in text
    assert "heading-order" not in text, "best practices do not fail a page and are not handed back"
    assert "    - `<img" in text, "a failing element is shown"
    assert "reply with the whole corrected page" in text
    assert "requirement 'reset-gives-fresh-page'" not in text, "passing checks are not listed"


def test_the_repair_turn_for_an_answer_without_html() -> None:
    text = repair_request(None, "no-html", "no HTML document found in the response")
    assert text.startswith(REPAIR_OPENING) and "held no HTML document" in text and "```html" in text


def test_an_api_models_chat_context_reaches_it_unchanged() -> None:
    """lm-eval's API models return a JSON wrapper (or the message list) from their chat template
    and read it back before sending: turning it into a string would send its repr."""
    from lm_eval.models.api_models import JsonChatStr

    class ApiLike:
        def apply_chat_template(self, chat: list[dict[str, str]], add_generation_prompt: bool = True) -> JsonChatStr:
            return JsonChatStr(json.dumps(chat))

    messages = prompt_messages(get_case("breadcrumb"), "full")
    context = render_context(ApiLike(), messages, chat=True)
    assert isinstance(context, JsonChatStr)
    assert json.loads(context_text(context)) == messages
    assert json.loads(context_text(list(messages))) == messages
