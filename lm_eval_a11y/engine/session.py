"""One sample's page, and the helpers checks use to drive and observe it.

Everything a check reads goes through the probe in a Chromium isolated world (see
``evaluator/probe/``), and everything a check does goes through trusted input events (CDP
keyboard and mouse), so a page's own scripts can neither fake what we observe nor tell our
input apart from a person's.

:class:`Session` is assembled from one class per concern: :class:`~lm_eval_a11y.engine.session_base.SessionBase`
(the page, probe calls, axe runs, settling), :mod:`~lm_eval_a11y.engine.queries` (reading),
:mod:`~lm_eval_a11y.engine.acting` (acting as a person), :mod:`~lm_eval_a11y.engine.keyboard`
(keyboard walks) and :mod:`~lm_eval_a11y.engine.focus_ring` (whether focus shows).
"""

from __future__ import annotations

from lm_eval_a11y.engine.acting import UserActions
from lm_eval_a11y.engine.focus_ring import FocusRing
from lm_eval_a11y.engine.keyboard import KeyboardWalks
from lm_eval_a11y.engine.queries import ElementQueries

__all__ = ["Session"]


class Session(KeyboardWalks, FocusRing, UserActions, ElementQueries):
    """One sample on a :class:`~lm_eval_a11y.engine.tab.Tab`. Checks receive it; the evaluator owns
    its lifecycle."""
