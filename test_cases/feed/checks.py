"""Checks for the feed case (APG feed pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, find_hook, passed, requirement

NO_FEED = "No element has the class 'feed' the prompt asked for"
FEW_POSTS = "Fewer than three elements with the class 'post' are shown"


async def _posts(s: Session) -> list[Element]:
    return [p for p in await s.find_all(".post") if p.visible]


@requirement("feed-role", "The posts are articles inside an element with role feed")
async def feed_role(s: Session) -> Outcome:
    feed = await find_hook(s, ".feed")
    if feed.role != "feed":
        inner = [e for e in await s.by_role("feed") if await s.contains(e, feed) or await s.contains(feed, e)]
        if not inner:
            return failed(f"The feed is {feed.describe()}; no element with role feed holds the posts")
    posts = await _posts(s)
    if len(posts) < 3:
        return failed(FEW_POSTS)
    not_articles = [p for p in posts if p.role != "article"]
    if not_articles:
        return failed(f"{len(not_articles)} post(s) are not articles, e.g. {not_articles[0].describe()}")
    return passed(f"A feed holds {len(posts)} article posts")


@requirement("articles-named", "Each post has an accessible name that tells it apart (e.g. its author)")
async def articles_named(s: Session) -> Outcome:
    posts = await _posts(s)
    if len(posts) < 3:
        return failed(FEW_POSTS)
    not_articles = [p for p in posts if p.role != "article"]
    if not_articles:
        example = not_articles[0].describe()
        return failed(f"{len(not_articles)} posts are not articles, so nothing names them, e.g. {example}")
    unnamed = [p for p in posts if not p.name.strip()]
    if unnamed:
        return failed(f"{len(unnamed)} of {len(posts)} posts have no accessible name (no aria-labelledby or label)")
    return passed("Every post has an accessible name")


@requirement("articles-focusable", "Each post can take keyboard focus, so a reader can move post by post")
async def articles_focusable(s: Session) -> Outcome:
    posts = await _posts(s)
    if len(posts) < 3:
        return failed(FEW_POSTS)
    unfocusable = [p for p in posts if not p.focusable]
    if unfocusable:
        return failed(f"{len(unfocusable)} of {len(posts)} posts cannot take focus (no tabindex)")
    return passed("Every post can take focus")


async def _post_of(s: Session, posts: list[Element]) -> int | None:
    """Index of the post that has focus (or holds it), None when focus is elsewhere."""
    for index, post in enumerate(posts):
        if await s.focus_within(post):
            return index
    return None


@requirement("page-keys-move", "Page Down moves focus to the next post and Page Up back to the previous one")
async def page_keys_move(s: Session) -> Outcome:
    posts = await _posts(s)
    if len(posts) < 3:
        return failed(FEW_POSTS)
    await s.focus(posts[0])
    if not await s.focus_within(posts[0]):
        return failed("The first post cannot take focus, so Page Down has nowhere to start")
    await s.press("PageDown")
    posts = await _posts(s)
    after_down = await _post_of(s, posts)
    if after_down != 1:
        where = await s.active()
        return failed(f"Page Down on the first post moved focus to {where.describe() if where else 'the page body'}")
    await s.press("PageUp")
    after_up = await _post_of(s, await _posts(s))
    if after_up != 0:
        return failed("Page Up on the second post does not move focus back to the first")
    return passed("Page Down and Page Up move focus between posts")


@best_practice("set-position", "Posts tell their position in the feed (aria-posinset, aria-setsize)")
async def set_position(s: Session) -> Outcome:
    posts = await _posts(s)
    if len(posts) < 3:
        return failed(FEW_POSTS)
    for index, post in enumerate(posts[:3], start=1):
        if post.attr("aria-posinset") != str(index) or post.attr("aria-setsize") is None:
            return failed(
                f"Post {index} has aria-posinset={post.attr('aria-posinset')!r} and "
                f"aria-setsize={post.attr('aria-setsize')!r}"
            )
    return passed("Posts carry aria-posinset and aria-setsize")


@best_practice("ctrl-end-leaves", "Ctrl+End in the feed moves focus to the first focusable element after it")
async def ctrl_end_leaves(s: Session) -> Outcome:
    feed = await s.find(".feed")
    posts = await _posts(s)
    if feed is None or not posts:
        return failed(NO_FEED if feed is None else FEW_POSTS)
    await s.focus(posts[0])
    where = await s.press("Control+End")
    if where is None or await s.focus_within(feed):
        return failed("Ctrl+End inside the feed does not move focus out of it")
    first = await s.refresh(posts[0])
    if where.rect["y"] < first.rect["y"]:
        return failed(f"Ctrl+End moved focus to {where.describe()}, which is before the feed")
    return passed(f"Ctrl+End moves focus past the feed to {where.describe()}")


@best_practice(
    "busy-while-loading", 'While posts are added the feed says aria-busy="true", and says false again once they are in'
)
async def busy_while_loading(s: Session) -> Outcome:
    feed = await s.find(".feed")
    posts = await _posts(s)
    if feed is None or len(posts) < 3:
        return failed(NO_FEED if feed is None else FEW_POSTS)
    # aria-busy belongs on the element with role feed; the hook may sit on it or around it.
    holder = feed
    if feed.role != "feed":
        inner = [e for e in await s.by_role("feed") if await s.contains(feed, e)]
        holder = inner[0] if inner else feed
    await s.watch(holder, ["aria-busy"], counting=".post")

    async def grown() -> bool:
        return len(await _posts(s)) > len(posts)

    # A reader who reaches the last post, and then the end of the page, is near the end of the list.
    await s.focus(posts[-1])
    if not await s.eventually(grown, 1500):
        await s.press("End")
        if not await s.eventually(grown, 1500):
            return failed(
                f"No posts were added when focus reached the last of {len(posts)} posts and End was pressed, "
                "so the feed was never seen loading"
            )
    changes = await s.changes(holder)
    if not any(c.kind == "children" and c.added for c in changes):
        # A page that replaced the feed element instead of adding to it leaves nothing to read.
        return failed("New posts appeared, but none was added to the feed element that was there before")
    unannounced = [c for c in changes if c.kind == "children" and c.added and c.attribute("aria-busy") != "true"]
    if unannounced:
        busy = unannounced[0].attribute("aria-busy")
        said = "had no aria-busy" if busy is None else f"said aria-busy={busy!r}"
        return failed(f"{sum(c.added for c in unannounced)} post(s) were added to the feed while it {said}, not 'true'")

    # The loading may still be going on: give it the time a reader would before calling it stuck.
    async def done() -> bool:
        return (await s.refresh(holder)).attr("aria-busy") != "true"

    if not await s.eventually(done, 1500):
        return failed('The feed still says aria-busy="true" after the new posts are in')
    return passed('The feed says aria-busy="true" while posts are added and false once they are in')
