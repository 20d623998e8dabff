"""Generic page checks: what a reviewer checks on any page with a keyboard and a screen reader.

They know nothing of what the page is meant to be, so each asserts only what holds for every page;
docs/generic.md says what each asserts, its bounds and what it cannot see.
"""

from __future__ import annotations

from lm_eval_a11y.checks import Outcome, Session, best_practice, failed, passed


@best_practice("one-main-landmark", "The page has exactly one main landmark, and it holds content")
async def one_main_landmark(s: Session) -> Outcome:
    mains = [m for m in await s.landmarks() if m.role == "main"]
    if not mains:
        return failed("The page has no main landmark (<main> or role=main): screen reader users cannot jump to it")
    if len(mains) > 1:
        return failed(f"The page has {len(mains)} main landmarks exposed to assistive technology; one is expected")
    main = await s.probe("describe", mains[0].ref)
    if not str(main.get("text") or "").strip():
        return failed("The main landmark holds no text")
    return passed("The page has one main landmark with content")


@best_practice("one-h1", "The page has exactly one level-1 heading, with a name")
async def one_h1(s: Session) -> Outcome:
    tops = [h for h in await s.headings() if h.level == 1]
    if not tops:
        return failed("The page has no level-1 heading (<h1> or aria-level=1) exposed to assistive technology")
    if len(tops) > 1:
        names = ", ".join(repr(h.name[:40]) for h in tops[:4])
        return failed(f"The page has {len(tops)} level-1 headings ({names}); one is expected")
    if not tops[0].name.strip():
        return failed("The page's level-1 heading has no text")
    return passed(f"The page has one level-1 heading, {tops[0].name[:60]!r}")
