"""The reward function, called as TRL's GRPOTrainer calls it: ``prompts=``, ``completions=`` (strings,
or lists of message dicts), the data set's other columns and the trainer's extras as keyword
arguments. One float per completion, in order, whatever the completion; and the attacks a model
rewarded by it would find first: an empty page, padding, a page that is not the component asked
for, a page handed over by a tool. Real Chromium and axe-core, the process's shared pool."""

from __future__ import annotations

import importlib.util
import math
import pickle
from collections.abc import Iterable
from typing import Any

import pytest

from corpus.support import DISCLOSURE_PAGE, EMPTY, TEXT_PAGE, clean, failing, fenced
from lm_eval_a11y.cases import CaseError
from lm_eval_a11y.corpus import (
    A11yReward,
    GenericChecksMissingError,
    PageScore,
    a11y_reward,
    accessibility_reward,
    score_pages,
)
from lm_eval_a11y.corpus import pages as pages_module
from lm_eval_a11y.corpus import reward as reward_module
from lm_eval_a11y.corpus.reward import answer_text


class Spy:
    """Records the calls TRL's ``log_metric`` and ``log_extra`` receive."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def __call__(self, name: str, value: Any) -> None:
        self.calls.append((name, value))


def trl_kwargs(n: int, **columns: list[Any]) -> dict[str, Any]:
    """What GRPOTrainer passes besides ``completions``: prompts, token ids, the trainer's extras and
    the data set's other columns, one value per completion."""
    return {
        "prompts": [f"Write an accessible page ({i})" for i in range(n)],
        "completion_ids": [[101, 102, 103]] * n,
        "trainer_state": object(),
        "log_extra": Spy(),
        "log_metric": Spy(),
        **columns,
    }


@pytest.fixture
def score_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of inputs of every ``score_pages`` call the reward makes; each must use this
    process's shared pool."""
    calls: list[int] = []

    def spy(htmls: Iterable[object], *args: Any, **kwargs: Any) -> list[PageScore]:
        items = list(htmls)
        calls.append(len(items))
        assert kwargs["evaluator"] is pages_module.shared_evaluator()
        return score_pages(items, *args, **kwargs)

    monkeypatch.setattr(reward_module, "score_pages", spy)
    return calls


def test_standard_format_one_float_per_completion_in_order(score_calls: list[int]) -> None:
    reward = a11y_reward(generic=False, pass_bonus=0.5)
    completions: list[Any] = [
        fenced(clean(1)),  # passes: 1.0 + the bonus
        failing(2),  # a bare document with two WCAG failures
        "I'm sorry, I can't write that page.",  # no HTML
        None,  # not a completion at all
        42,
        "<think>First the header, then",  # ran out of tokens while thinking
        fenced(EMPTY),  # passes axe-core, says nothing
        fenced(clean(3)),
    ]
    kwargs = trl_kwargs(len(completions), task=["page"] * len(completions))
    rewards = reward(completions=completions, **kwargs)

    assert len(rewards) == len(completions) and all(type(r) is float for r in rewards)
    (failing_score,) = score_pages([failing(2)], generic=False)
    assert 0.0 < failing_score.score < 1.0
    assert rewards == [1.5, failing_score.score, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5]
    assert score_calls == [len(completions)], "the whole batch goes to the pool in one call"
    metrics = dict(kwargs["log_metric"].calls)
    assert metrics == {"a11y_reward/pass": 2 / 8, "a11y_reward/judged": 3 / 8}
    assert kwargs["log_extra"].calls == [
        ("a11y_reward_outcome", ["ok", "ok", "no_html", "no_html", "no_html", "no_html", "little_text", "ok"])
    ]


def test_conversational_format_reads_only_the_assistant(score_calls: list[int]) -> None:
    reward = a11y_reward(generic=False)
    completions: list[Any] = [
        [{"role": "assistant", "content": fenced(clean(1))}],
        [{"role": "assistant", "content": [{"type": "text", "text": fenced(failing(2))}]}],
        # A tool returned a perfect page; the model wrote none. The tool's page is not its answer.
        [
            {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "fetch"}}]},
            {"role": "tool", "name": "fetch", "content": clean(3)},
            {"role": "assistant", "content": "Done."},
        ],
        [{"role": "assistant", "content": None}],
        [],
        [{"role": "user", "content": fenced(clean(4))}],
        {"role": "assistant", "content": fenced(clean(5))},  # one message without its list
        [{"content": fenced(clean(6))}],  # no role: not an assistant message
    ]
    prompts = [[{"role": "user", "content": "Write an accessible newsletter page"}]] * len(completions)
    kwargs = trl_kwargs(len(completions), prompts=prompts)
    rewards = reward(completions=completions, **kwargs)

    assert len(rewards) == len(completions) and all(type(r) is float for r in rewards)
    assert rewards[0] == 1.0 and rewards[6] == 1.0
    assert 0.0 < rewards[1] < 1.0
    assert rewards[2:6] == [0.0, 0.0, 0.0, 0.0] and rewards[7] == 0.0
    assert score_calls == [len(completions)]


def test_an_empty_or_padded_page_gets_nothing() -> None:
    (empty_score,) = score_pages([EMPTY], generic=False)
    assert empty_score.score == 1.0, "the attack is real: axe-core passes an empty page"
    padded = [
        EMPTY,
        EMPTY.replace("<body>", "<body>" + "\u200b" * 40 + "&nbsp;" * 40 + "\n" * 40),  # invisible padding
        EMPTY.replace("<title>Page</title>", "<title>" + "A long and descriptive title " * 4 + "</title>"),
        EMPTY.replace("<body>", "<body><script>const words = 'lots and lots of words in a script';</script>"),
        EMPTY.replace(
            "<body>", "<body><!-- a comment with many words in it --><noscript>Turn on JavaScript</noscript>"
        ),
        EMPTY.replace("<body>", "<body><template><p>Text that is never shown on the page</p></template>"),
        "<p>Hi</p>",
        # Words the markup holds and the browser never shows: a parser of the markup counts them.
        EMPTY.replace("<body>", "<body><noembed>Plenty of words that no browser will ever show</noembed>"),
        EMPTY.replace("<body>", '<body><datalist id="d"><option>Words in a list of suggestions</option></datalist>'),
        EMPTY.replace("<body>", "<body><ruby>寿<rp>(a parenthesis with many words in it)</rp></ruby>"),
        EMPTY.replace("<body>", "<body><p hidden>A paragraph of words that is hidden</p>"),
        EMPTY.replace("<body>", '<body><p style="opacity: 0">A paragraph of words that is transparent</p>'),
        EMPTY.replace("<body>", '<body><p style="font-size: 0">A paragraph of words set at no size at all</p>'),
        # A self-closing script or title is no element of its own: what follows is its text.
        EMPTY.replace("<body>", "<body><script/>A sentence the parser takes for script text.</body>"),
        EMPTY.replace("<body>", "<body><title/>A sentence the parser takes for a second title.</body>"),
    ]
    reward = a11y_reward(generic=False)
    rewards, outcomes = reward.judge(padded)
    assert rewards == [0.0] * len(padded)
    assert [o.status for o in outcomes] == ["little_text"] * len(padded)
    assert all(o.score is not None and (o.score.text_chars or 0) < 20 for o in outcomes[:1] + outcomes[7:])
    # The floor is what stops it: without it, the empty page is a perfect answer.
    assert a11y_reward(generic=False, min_text=0)([EMPTY]) == [1.0]


def test_the_text_counted_is_the_text_the_browser_shows() -> None:
    """The twins of the attacks above: text a script writes, or in a shadow tree, is shown text."""
    written = EMPTY.replace(
        "<body></body>",
        "<body><main><h1 id='h'></h1></main><script>document.getElementById('h').textContent ="
        " 'Opening hours of the library';</script></body>",
    )
    shadow = EMPTY.replace(
        "<body></body>",
        "<body><main><div id='host'></div></main><script>document.getElementById('host')"
        ".attachShadow({mode: 'open'}).innerHTML = '<h1>Opening hours of the library</h1>';</script></body>",
    )
    shown = [written, shadow, TEXT_PAGE]
    scores = score_pages(shown, generic=False)
    assert [s.text_chars for s in scores] == [24, 24, 38], scores
    rewards, outcomes = a11y_reward(generic=False).judge(shown)
    assert [o.status for o in outcomes] == ["ok", "ok", "ok"] and all(r > 0 for r in rewards), outcomes


def test_a_case_column_judges_each_completion_by_its_prompts_checks() -> None:
    reward = a11y_reward(generic=False, case_column="id")
    completions = [fenced(DISCLOSURE_PAGE), fenced(TEXT_PAGE), fenced(TEXT_PAGE)]
    # The third row has no case: it falls back to the reward's own checks (axe-core only here).
    rewards, outcomes = reward.judge(completions, **trl_kwargs(3, id=["disclosure", "disclosure", None]))
    real, trivial, fallback = outcomes
    assert real.score is not None and real.score.case_id == "disclosure" and real.score.a11y_pass
    assert trivial.score is not None and trivial.score.case_id == "disclosure"
    assert not trivial.score.a11y_pass and trivial.score.checks_failed
    assert rewards[0] == 1.0
    assert rewards[1] <= 0.5, "a page that is not the component asked for is far from a pass"
    assert fallback.score is not None and fallback.score.case_id is None and rewards[2] == 1.0


def test_a_bad_case_column_is_an_error_of_the_data_not_of_a_completion() -> None:
    reward = a11y_reward(generic=False, case_column="case")
    with pytest.raises(KeyError, match=r"'case'.*its columns: id, task"):
        reward([clean(1)], **trl_kwargs(1, id=["disclosure"], task=["x"]))
    with pytest.raises(ValueError, match=r"holds 2 values for 1 completions"):
        reward([clean(1)], case=["disclosure", "button"])
    with pytest.raises(CaseError, match="no-such-case"):
        reward(["no page here"], case=["no-such-case"])
    with pytest.raises(TypeError, match="cases must hold case ids"):
        reward([clean(1)], case=[3])


def test_the_factory_checks_its_arguments_before_training_starts() -> None:
    with pytest.raises(CaseError, match="no-such-case"):
        a11y_reward(case="no-such-case")
    bad_values: list[dict[str, Any]] = [
        {"min_text": -1},
        {"min_text": 2.5},
        {"pass_bonus": -0.1},
        {"pass_bonus": math.nan},
    ]
    for bad in bad_values:
        with pytest.raises(ValueError):
            a11y_reward(generic=False, **bad)
    with pytest.raises(ValueError, match="name"):
        a11y_reward(generic=False, name=" ")
    with pytest.raises(TypeError, match="case must be a case id"):
        A11yReward(case="")
    with pytest.raises(TypeError, match="generic must be"):
        A11yReward(generic="no")  # type: ignore[arg-type]


def test_the_default_reward_uses_the_generic_checks_or_says_they_are_missing() -> None:
    if importlib.util.find_spec("lm_eval_a11y.generic") is None:
        with pytest.raises(GenericChecksMissingError, match="generic=False"):
            a11y_reward()
        with pytest.raises(GenericChecksMissingError):
            accessibility_reward(completions=[fenced(clean(1))])
        # A case column that names every row's case needs no generic checks.
        assert a11y_reward(case_column="id")([fenced(DISCLOSURE_PAGE)], id=["disclosure"]) == [1.0]
    else:
        (value,) = accessibility_reward(completions=[fenced(clean(1))], prompts=["p"])
        assert type(value) is float and 0.0 < value <= 1.0


def test_it_is_named_and_picklable_as_trl_needs() -> None:
    reward = a11y_reward(case="disclosure", min_text=50, pass_bonus=0.25, name="a11y_disclosure")
    # TRL logs a reward function under getattr(func, "__name__", type(func).__name__).
    assert reward.__name__ == "a11y_disclosure"
    assert accessibility_reward.__name__ == "accessibility_reward"
    again = pickle.loads(pickle.dumps(reward))
    assert again == reward and again.__name__ == "a11y_disclosure"
    assert repr(again).startswith("A11yReward(case='disclosure'")


def test_the_text_counted_is_letters_digits_punctuation_and_symbols_of_shown_text() -> None:
    snippets = [
        "<p>Hello, world!</p>",
        "<p>caf\u00e9 &amp; \u5bff\u53f8</p>",
        "<title>Title</title><style>p{color:red}</style><script>x=1</script>",
        "<p>\u200b\u200d\ufeff \u00a0\t</p><p>e\u0301</p>",  # invisible characters and a combining mark
        "<svg><text x='0' y='20'>Chart</text></svg><button>Go</button>",
    ]
    scores = score_pages(snippets, generic=False)
    assert [s.text_chars for s in scores] == [12, 7, 0, 1, 7], scores


def test_answer_text_reads_both_formats() -> None:
    assert answer_text("plain") == "plain"
    assert answer_text([{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]) == "a\n\nb"
    assert answer_text([{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "image"}]}]) == "a"
    assert answer_text([{"role": "tool", "content": "x"}]) is None
    assert answer_text(b"<p>bytes</p>") is None
    assert answer_text(["<p>a list of strings</p>"]) is None
