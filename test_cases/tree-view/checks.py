"""Checks for the folder tree (APG tree view pattern; nested disclosures are accepted too)."""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, not_applicable, passed, requirement

FOLDERS = ("src", "public")
HIDDEN_AT_START = ("components", "index.ts", "favicon.ico")
TOP_FILES = ("README.md", "package.json")
MAX_STEPS = 8
# How long a typed letter may take to move the keyboard (a page may search on a short debounce).
TYPE_AHEAD_MS = 300


def _is(element: Element, label: str) -> bool:
    """Whether the element is labelled ``label`` first (icons before it are ignored): an
    expanded treeitem's name also holds its children's names after its own."""
    pattern = rf"^\W*{re.escape(label)}(\W|$)"
    return bool(re.match(pattern, element.name or element.text, re.IGNORECASE))


async def _tree(s: Session) -> tuple[Element | None, Element | None, str]:
    """The hooked element, and the ARIA tree inside it when the page built one."""
    hook = await s.find(".tree")
    if hook is None:
        return None, None, "No element has the class 'tree' the prompt asked for"
    if hook.role == "tree":
        return hook, hook, ""
    inner = [t for t in await s.find_all("[role=tree]", hook) if t.role == "tree"]
    return hook, (inner[0] if inner else None), ""


async def _folder(s: Session, hook: Element, aria: Element | None, label: str) -> Element | None:
    """The element a user operates to open the folder: a treeitem, a button or a <summary>."""
    if aria is not None:
        candidates = await s.find_all("[role=treeitem]", aria)
        wanted: tuple[str, ...] = ("treeitem",)
    else:
        candidates = await s.find_all("button, summary, [role=button], [aria-expanded]", hook)
        wanted = ("button",)
    for element in candidates:
        if (element.role in wanted or element.tag == "summary") and _is(element, label):
            return element
    return None


async def _expanded(s: Session, hook: Element, folder: Element) -> str | None:
    folder = await s.refresh(folder)
    if folder.tag == "summary":
        for details in await s.find_all("details", hook):
            first = await s.find("summary", details)
            if first is not None and first.ref == folder.ref:
                return "true" if details.properties.get("open") else "false"
        return None
    return folder.attr("aria-expanded")


async def _named(s: Session, hook: Element, label: str) -> list[Element]:
    # A prefix match: an item's text also holds its children's when they are shown.
    pattern = rf"^\W*{re.escape(label)}(\W|$)"
    return [e for e in await s.find_all("*", hook) if re.match(pattern, e.text, re.IGNORECASE)]


async def _revealed(s: Session, hook: Element, label: str) -> bool:
    """Whether an item labelled ``label`` can be seen and is read by screen readers."""
    return any(e.visible and not e.hidden_from_at for e in await _named(s, hook, label))


async def _current(s: Session) -> Element | None:
    """The item a screen reader reports as focused: the focused element, or the item its
    aria-activedescendant points at."""
    active = await s.active()
    if active is None or active.role == "treeitem":
        return active
    pointer = active.attr("aria-activedescendant")
    if pointer:
        return await s.find(f'[id="{pointer}"]')
    return active


async def _enter_tree(s: Session, aria: Element) -> Element | None:
    if not await s.tab_to(aria):
        return None
    return await _current(s)


async def _walk_to(s: Session, aria: Element, label: str) -> Element | None:
    """Tab into the tree and press Down arrow until the item labelled ``label`` is current; that
    item, or None when Tab and Down never make it current."""
    current = await _enter_tree(s, aria)
    for _ in range(MAX_STEPS):
        if current is None or _is(current, label):
            break
        await s.press("ArrowDown")
        current = await _current(s)
    return current if current is not None and _is(current, label) else None


@requirement("folders-expose-state", "Each folder is exposed as something expandable that reports it is collapsed")
async def folders_expose_state(s: Session) -> Outcome:
    hook, aria, why = await _tree(s)
    if hook is None:
        return failed(why)
    for label in FOLDERS:
        folder = await _folder(s, hook, aria, label)
        if folder is None:
            kind = "treeitem" if aria is not None else "button or <summary>"
            return failed(f"No {kind} is labelled {label!r}: nothing tells screen readers the folder can be opened")
        state = await _expanded(s, hook, folder)
        if state != "false":
            return failed(f"The collapsed folder {folder.describe()} reports expanded={state!r}, not 'false'")
    return passed("Folders are exposed as expandable items that report they are collapsed")


@requirement("collapsed-content-hidden", "What is inside collapsed folders is neither shown nor read")
async def collapsed_content_hidden(s: Session) -> Outcome:
    hook, _aria, why = await _tree(s)
    if hook is None:
        return failed(why)
    for label in HIDDEN_AT_START:
        for element in await _named(s, hook, label):
            if element.visible:
                return failed(f"{label} is on screen although its folder starts collapsed")
            if not element.hidden_from_at:
                return failed(f"{label} is hidden from sight but a screen reader still reads it in a collapsed folder")
    return passed("Items inside collapsed folders are hidden from sight and from screen readers")


@requirement("keyboard-expand-collapse", "The src folder opens and closes from the keyboard, and reports each state")
async def keyboard_expand_collapse(s: Session) -> Outcome:
    hook, aria, why = await _tree(s)
    if hook is None:
        return failed(why)
    folder = await _folder(s, hook, aria, "src")
    if folder is None:
        return failed("No folder item labelled 'src' was found")
    if aria is not None:
        current = await _walk_to(s, aria, "src")
        if current is None:
            return failed("Tab and Down arrow never make the src folder the current item")
        keys = ("ArrowRight", "ArrowLeft")
    else:
        if not folder.focusable or not await s.tab_to(folder):
            return failed(f"Pressing Tab never reaches {folder.describe()}")
        keys = ("Enter", "Enter")
    await s.press(keys[0])
    if not await _revealed(s, hook, "components"):
        return failed(f"{keys[0]} on the src folder does not show its contents")
    if await _expanded(s, hook, folder) != "true":
        return failed(f"src opened with {keys[0]} but still reports it is collapsed")
    await s.press(keys[1])

    async def closed() -> bool:
        return all(not e.visible and e.hidden_from_at for e in await _named(s, hook, "components"))

    # A group that slides shut, or is hidden on a timer, is closed by the end of this.
    if not await s.eventually(closed):
        if await _revealed(s, hook, "components"):
            return failed(f"{keys[1]} on the open src folder does not close it")
        return failed(f"{keys[1]} hides the src folder's contents from sight, but a screen reader still reads them")
    if await _expanded(s, hook, folder) != "false":
        return failed(f"src closed with {keys[1]} but still reports it is expanded")
    return passed(f"{keys[0]} opens src and {keys[1]} closes it, and its state follows")


@requirement(
    "arrow-navigation",
    "An ARIA tree is one Tab stop and Down/Up arrows move between visible items",
    na_allowed=True,
)
async def arrow_navigation(s: Session) -> Outcome:
    hook, aria, why = await _tree(s)
    if hook is None:
        return failed(why)
    if aria is None:
        return not_applicable("The folders are disclosure buttons, not an ARIA tree; Tab moves between them")
    first = await _enter_tree(s, aria)
    if first is not None and first.role != "treeitem":
        # Focus on the tree with no current item yet: the first arrow press picks one.
        await s.press("ArrowDown")
        first = await _current(s)
    if first is None or first.role != "treeitem":
        return failed("Neither Tab into the tree nor Down arrow makes a tree item current")
    await s.press("ArrowDown")
    second = await _current(s)
    if second is None or second.role != "treeitem" or second.ref == first.ref:
        return failed(f"Down arrow from {first.describe()} does not move to the next item")
    await s.press("ArrowUp")
    back = await _current(s)
    if back is None or back.ref != first.ref:
        return failed("Up arrow does not return to the item above")
    # Count Tab stops from the top: pressing Tab once from the widget is unreliable when it is the
    # last stop on the page, since focus then leaves the document and activeElement stays put.
    inside = [stop for stop in await s.tab_sequence() if await s.contains(aria, stop)]
    if len(inside) > 1:
        return failed(f"Tab stops on {len(inside)} items inside the tree: it is not a single Tab stop")
    return passed("Tab enters and leaves the tree in one stop; Down and Up move between items")


async def _selected_line(s: Session) -> str:
    body = await s.find("body")
    return (body.text if body is not None else "").lower()


async def _shows_selected(s: Session, label: str) -> bool:
    return f"selected: {label.lower()}" in await _selected_line(s)


@requirement("keyboard-chooses-file", "A file at the top of the tree can be reached and chosen from the keyboard")
async def keyboard_chooses_file(s: Session) -> Outcome:
    hook, aria, why = await _tree(s)
    if hook is None:
        return failed(why)
    # A page may show a file as selected from the start; choose one it does not.
    shown = await _selected_line(s)
    label = next((f for f in TOP_FILES if f"selected: {f.lower()}" not in shown), None)
    if label is None:
        return failed(f"Before anything is chosen the page already says {', '.join(TOP_FILES)} are selected")
    if aria is not None:
        current = await _walk_to(s, aria, label)
        if current is None:
            return failed(f"Tab and Down arrow never make {label} the current item")
        if await _shows_selected(s, label):
            return passed(f"Moving to {label} selects it (selection follows focus)")
    else:
        files = [e for e in await _named(s, hook, label) if e.focusable and e.visible]
        if not files or not await s.tab_to(files[0]):
            return failed(f"Pressing Tab never reaches the file {label}, so it cannot be chosen without a mouse")
    # The APG tree's Enter performs an item's default action; a page may select with Space instead.
    for key in ("Enter", " "):
        await s.press(key)
        if await _shows_selected(s, label):
            return passed(f"{'Space' if key == ' ' else key} on {label} chooses it")
    return failed(f"Neither Enter nor Space on {label} shows 'Selected: {label}'")


@best_practice(
    "home-end-keys", "In an ARIA tree, Home and End jump to the first and last visible item", na_allowed=True
)
async def home_end_keys(s: Session) -> Outcome:
    hook, aria, why = await _tree(s)
    if hook is None:
        return failed(why)
    if aria is None:
        return not_applicable("The folders are disclosure buttons, not an ARIA tree")
    if await _enter_tree(s, aria) is None:
        return failed("Tab does not reach the tree")
    await s.press("End")
    last = await _current(s)
    if last is None or not _is(last, "README.md"):
        return failed(f"End makes {last.describe() if last else 'nothing'} current, not README.md")
    await s.press("Home")
    first = await _current(s)
    if first is None or not _is(first, "src"):
        return failed(f"Home makes {first.describe() if first else 'nothing'} current, not src")
    return passed("Home and End jump to the first and last items")


@best_practice(
    "type-ahead",
    "In an ARIA tree, typing a letter moves to the next visible item whose name starts with it",
    na_allowed=True,
)
async def type_ahead(s: Session) -> Outcome:
    hook, aria, why = await _tree(s)
    if hook is None:
        return failed(why)
    if aria is None:
        return not_applicable("The folders are disclosure buttons, not an ARIA tree")
    # Start on the last visible item: the next one starting with 'p' is then public, at the top,
    # which neither stepping down, Home nor End on any letter reaches; from the last item the
    # search wraps round (or starts from the top, which finds the same item).
    current = await _walk_to(s, aria, "README.md")
    if current is None:
        return failed("Tab and Down arrow never make README.md current, so there is no item to type from")
    await s.press("p")

    async def on_public() -> Element | None:
        now = await _current(s)
        return now if now is not None and _is(now, "public") else None

    if await s.eventually(on_public, within_ms=TYPE_AHEAD_MS) is None:
        now = await _current(s)
        if now is not None and _is(now, "README.md"):
            return failed("Typing 'p' on README.md leaves it current; it does not move to public, the next item with p")
        where = now.describe() if now is not None else "nothing"
        return failed(f"Typing 'p' on README.md makes {where} current, not public (the next item starting with p)")
    # Only the collapsed src folder holds an item starting with 'c' (components): typing it must
    # not send the keyboard into a closed folder.
    await s.press("c")
    now = await _current(s)
    if now is None or not now.visible or now.hidden_from_at:
        where = now.describe() if now is not None else "nothing"
        return failed(f"Typing 'c' makes {where} current, an item inside a collapsed folder")
    return passed("Typing 'p' on README.md moves to public, and then 'c' keeps the keyboard on a visible item")
