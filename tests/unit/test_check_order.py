"""The guess of which checks act on the page, from their code alone (no browser)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from lm_eval_a11y.cases import get_case
from lm_eval_a11y.checks import Outcome, Session, passed
from lm_eval_a11y.engine.check_order import acting_session_methods, guess_acts, guess_wait_ms


def test_session_methods_that_act_are_found_from_the_session_code() -> None:
    acting = acting_session_methods()
    assert {
        "press",
        "click",
        "type_text",
        "focus",
        "blur",
        "hover",
        "tab_to",
        "tab_sequence",
        "focus_trapped",
    } <= acting
    assert not {"find", "find_all", "by_role", "refresh", "active", "landmarks", "reset", "open", "settle"} & acting


async def _reader(s: Session) -> Outcome:
    found = await s.find("main")
    return passed(str(found))


async def _presses_tab(s: Session) -> None:
    await s.press("Tab")


async def _through_a_helper(s: Session) -> Outcome:
    await _presses_tab(s)
    return passed("")


async def _raw_page(s: Session) -> Outcome:
    await s.page.mouse.move(1, 1)
    return passed("")


class _Opener:
    async def open(self, s: Session) -> None:
        button = await s.find("button")
        assert button is not None
        await s.click(button)


def _closing_over(opener: _Opener) -> Callable[[Session], Awaitable[Outcome]]:
    async def check(s: Session) -> Outcome:
        await opener.open(s)
        return passed("")

    return check


def test_guess_follows_helpers_closures_and_the_raw_page() -> None:
    assert guess_acts(_reader) is False
    assert guess_acts(_through_a_helper) is True
    assert guess_acts(_raw_page) is True
    assert guess_acts(_closing_over(_Opener())) is True


def test_guess_on_bundled_cases() -> None:
    disclosure = {c.id: guess_acts(c.func) for c in get_case("disclosure").checks}
    assert disclosure == {
        "trigger-is-button": False,
        "collapsed-hidden": False,
        "keyboard-toggles": True,
        "expanded-state": True,
        "trigger-focus-visible": True,
    }
    # The dialog checks come from a pattern object the case's module closes over.
    dialog = {c.id: guess_acts(c.func) for c in get_case("modal-dialog").checks}
    assert dialog["closed-hidden"] is False
    assert dialog["focus-contained"] is True and dialog["escape-closes"] is True


_POLL_MS = 250


async def _waits_a_literal(s: Session) -> Outcome:
    await s.settle()  # the default settle is not a wait the check asks for
    await s.settle(1500)
    return passed("")


async def _polls(s: Session) -> None:
    for _ in range(4):
        await s.settle(_POLL_MS)


async def _waits_through_a_helper(s: Session) -> Outcome:
    await _polls(s)
    await s.wait(100)
    return passed("")


def test_wait_guess_adds_literal_and_constant_delays_once_each() -> None:
    assert guess_wait_ms(_reader) == 0
    assert guess_wait_ms(_waits_a_literal) == 1500
    # The loop's delay counts once: the guess orders work, it does not predict it.
    assert guess_wait_ms(_waits_through_a_helper) == _POLL_MS + 100


def test_wait_guess_on_bundled_cases() -> None:
    alert = {c.id: guess_wait_ms(c.func) for c in get_case("alert").checks}
    assert alert["stays-visible"] == 2000
    assert sum(alert.values()) == 2000
    assert all(guess_wait_ms(c.func) == 0 for c in get_case("disclosure").checks)
