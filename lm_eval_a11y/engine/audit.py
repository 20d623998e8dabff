"""The axe audit of one document, including what a plain ``axe.run`` never sees.

A sample may pass only on what we could audit. Two kinds of content escape a plain run in the
page's top document:

- **Frames** (``<iframe>`` with ``srcdoc``, ``data:`` or ``blob:`` documents, nested frames,
  frames a script adds). axe's own way into frames posts messages to a copy of axe in each frame,
  which does not exist there (and a page could answer in its place). Instead, each frame gets axe
  in its own Chromium isolated world (created with the frame's id), runs ``axe.runPartial``
  there, and the top document's world merges the parts with ``axe.finishRun``, as axe documents
  for browser drivers. The page's scripts cannot reach any of those worlds.
- **Closed shadow roots** (``attachShadow({mode: 'closed'})``, ``<template
  shadowrootmode="closed">``, custom elements that build one). ``element.shadowRoot`` is null
  for them, in every world. CDP sees them (``DOM.getDocument`` with ``pierce``); each one is
  resolved into our isolated world and set as an own ``shadowRoot`` property of its host's
  wrapper there. Wrappers are per world, so the page never sees the property, and axe (and the
  probe) then walk into the root as into an open one.

Whatever remains out of reach (an ``<object>`` or ``<embed>`` document, a frame that could not be
entered, more frames or roots than the limits below) is named in ``unaudited``, and scoring fails
the sample for it.

Only pages that have frames pay for the frame path (Playwright keeps the frame tree from CDP
events, so asking costs no round trip); the closed-root search costs one round trip on pages that
run scripts or declare shadow roots, which are the only pages that can have one. On a large
document the pierced snapshot itself costs seconds, so there a count of the nodes CDP sees
against those our world sees comes first (hidden_nodes.py), and only a document that holds
nodes out of our sight is snapshotted.

Before axe runs in a document, Chromium's computed roles and names of its custom elements are
handed to the probe (computed_roles.py), for the rules axe-core lacks (evaluator/probe/
extra-rules.js). An axe rule that throws is reported by axe among the incomplete results with
its error; it measured nothing, and :func:`rule_errors` names it in ``unaudited``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from lm_eval_a11y.engine.computed_roles import read_computed_roles
from lm_eval_a11y.engine.hidden_nodes import nothing_hidden
from lm_eval_a11y.engine.tab import PARSE_CUT_SHORT, Tab
from lm_eval_a11y.engine.unicode import repair_text

__all__ = [
    "AuditPart",
    "audit_document",
    "has_closed_roots",
    "may_change_itself",
    "may_have_closed_shadow_roots",
    "rule_errors",
]

# Beyond these a page is not audited further: each frame costs an axe compile and run, each
# closed root three round trips, and the time budget would go on them.
MAX_FRAMES = 20
MAX_FRAME_DEPTH = 5
MAX_CLOSED_ROOTS = 200
# How many times a frame that navigates while it is audited is entered again (_audit_child).
_FRAME_ATTEMPTS = 3

# A closed shadow root needs a script or a declarative shadow root in the markup (a script can
# also write one with document.write or setHTMLUnsafe, and a frame's document is part of the
# markup that reaches us). Pages with neither are skipped without a round trip.
# Markup that can run a script: a <script> element; an event-handler attribute, after whitespace,
# a slash or the quote that ends the attribute before it (HTML needs no space between attributes:
# `<img src="x"/onerror=...>` and `<img src="x"onerror=...>` both run it); a javascript: URL; a
# frame or plug-in document, whose source may be a data: URL written with character references or
# split by a tab, which URL parsing drops; a frame's srcdoc; a data: document.
_MAY_RUN_SCRIPT = (
    r"<script|[\s/\"']on[a-z]+\s*=|javascript:|srcdoc|<i?frame|<object|<embed"
    r"|data:(?!image/(?:png|gif|jpe?g|webp|avif)[;,])"
)
_MAY_HAVE_SHADOW_ROOTS = re.compile(_MAY_RUN_SCRIPT + r"|shadowroot", re.IGNORECASE)

_DEFINE_SHADOW_ROOT = (
    "function (root) { Object.defineProperty(this, 'shadowRoot', "
    "{ value: root, configurable: true, enumerable: false }); return true; }"
)
_OBJECT_GROUP = "lm-eval-a11y-audit"


def may_have_closed_shadow_roots(html: str) -> bool:
    return _MAY_HAVE_SHADOW_ROOTS.search(html) is not None


def rule_errors(result: dict[str, Any]) -> list[str]:
    """The axe rules of a report that threw (axe puts them among the incomplete ones, with the
    error): each measured nothing, so each is content that could not be audited. The error's text
    may quote the page, so it is made valid Unicode for the record."""
    return [
        repair_text(f"axe rule {item.get('id')} could not run ({item['error']})")[0]
        for item in result.get("incomplete") or ()
        if item.get("error")
    ]


# Markup that can change the page after load without a visitor doing anything: a script
# (_MAY_RUN_SCRIPT), a CSS animation or transition, an SVG (SMIL) animation or discard, a marquee.
# CSS can name an animation in ways no pattern over the text follows (escapes, character references
# in a style attribute): the probe's mayChangeItself reads the parsed document too
# (SessionBase.may_change_itself).
_MAY_CHANGE = re.compile(
    _MAY_RUN_SCRIPT + r"|animation|transition|keyframes|<animate|<set[\s/>]|<discard|<marquee",
    re.IGNORECASE,
)


def may_change_itself(html: str) -> bool:
    """Whether the page's markup shows that it could change after its first audit without anyone
    acting on it; a page whose markup does not is asked in the browser too
    (SessionBase.may_change_itself), and one that cannot is not waited for (see the evaluator's
    late audit)."""
    return _MAY_CHANGE.search(html) is not None


@dataclass
class AuditPart:
    """One axe audit of a page: the probe's report, plus what it reached and what it could not."""

    result: dict[str, Any]
    frames_audited: int = 0
    closed_shadow_roots: int = 0
    unaudited: list[str] = field(default_factory=list)
    # Frames already named in unaudited (so the frame tree's count does not name them twice).
    frames_failed: int = 0


class _TooManyRoots(Exception):
    def __init__(self, total: int) -> None:
        super().__init__(f"{total} closed shadow roots (the audit opens at most {MAX_CLOSED_ROOTS})")


@dataclass
class _ClosedRoots:
    """Closed shadow roots found by CDP, by the frame whose document holds them (None: the top)."""

    by_frame: dict[str | None, list[tuple[int, int]]] = field(default_factory=dict)
    total: int = 0
    # Whether they were searched for at all, and the document (backend node id) each frame held
    # when they were: a frame that has navigated since holds roots the search never saw.
    searched: bool = False
    documents: dict[str, int] = field(default_factory=dict)


async def audit_document(tab: Tab, options: dict[str, Any], *, look_for_closed_roots: bool) -> AuditPart:
    """Run axe over the tab's document, its closed shadow roots and its frames."""
    roots = await _find_closed_roots(tab) if look_for_closed_roots else _ClosedRoots()
    part = AuditPart(result={})
    if roots.total > MAX_CLOSED_ROOTS:
        part.unaudited.append(f"{roots.total} closed shadow roots (the audit opens at most {MAX_CLOSED_ROOTS})")
        roots = _ClosedRoots()
    top = tab.world_id
    await _expose_or_report(tab, top, roots.by_frame.get(None, []), part)
    if look_for_closed_roots:
        await _read_roles_or_report(tab, top, part)
    options_json = json.dumps(options)
    if tab.frame_count() == 0:
        result: dict[str, Any] = await tab.evaluate(f"globalThis.__a11yProbe.runAxe({options_json})")
        # A frame the page added while axe ran would otherwise go unaudited without a word.
        if tab.frame_count() == 0:
            part.result = result
            return part
    partials: list[Any] = []
    try:
        await _audit_frame(tab, top, None, None, options_json, roots, partials, part, depth=0)
    finally:
        await tab.send("Runtime.releaseObjectGroup", {"objectGroup": _OBJECT_GROUP})
    # Every frame of the page (Chromium's frame tree: <object> and <embed> documents too, frames
    # in shadow trees, frames in other processes) that axe did not audit is named.
    missed = tab.frame_count() - part.frames_audited - part.frames_failed
    if missed > 0:
        part.unaudited.append(
            f"{missed} embedded document(s) axe cannot enter (<object>, <embed> or a frame out of reach)"
        )
    # The parts in axe's order (each document, then its frames' documents depth first); a frame
    # that could not be audited is a null part, which axe skips.
    part.result = await tab.evaluate(f"globalThis.__a11yProbe.finishAxe({json.dumps(partials)}, {options_json})")
    return part


async def _expose_or_report(tab: Tab, world: int, pairs: list[tuple[int, int]], part: AuditPart) -> None:
    try:
        opened = await _expose(tab, world, pairs)
    except Exception as err:  # noqa: BLE001 - a root the page removed meanwhile, or a refusal
        part.unaudited.append(f"{len(pairs)} closed shadow root(s) that could not be opened: {str(err)[:200]}")
        return
    part.closed_shadow_roots += opened


async def _read_roles_or_report(tab: Tab, world: int, part: AuditPart) -> None:
    """Chromium's roles and names of the custom elements of one document, for the probe's rule
    (computed_roles.py); what could not be read is named in ``unaudited``."""
    try:
        reason = await read_computed_roles(tab, world)
    except Exception as err:  # noqa: BLE001 - an element the page removed meanwhile, or a refusal
        reason = f"custom elements whose roles from ElementInternals could not be read: {str(err)[:200]}"
    if reason is not None:
        part.unaudited.append(reason)


async def _audit_frame(
    tab: Tab,
    world: int,
    frame_id: str | None,
    context: Any,
    options_json: str,
    roots: _ClosedRoots,
    partials: list[Any],
    part: AuditPart,
    *,
    depth: int,
) -> None:
    """axe.runPartial in one document's world, then in each of its frames, depth first."""
    if frame_id is not None:
        if not await tab.evaluate_in(world, "globalThis.__a11yProbe.timersRun()"):
            # A document without scripts (sandboxed without allow-scripts): axe gets timers
            # that run there (without their delay; its preload then gives up at once, which
            # leaves css-orientation-lock undecided in that frame).
            await tab.evaluate_in(world, "globalThis.__a11yProbe.timersWithoutDelay()", await_promise=False)
        if roots.searched and await _document_of(tab, world) != roots.documents.get(frame_id):
            # The frame navigated after the search: search again, for its document's roots.
            fresh = await _find_closed_roots(tab)
            if fresh.total > MAX_CLOSED_ROOTS:
                raise _TooManyRoots(fresh.total)
            roots.by_frame, roots.documents, roots.total = fresh.by_frame, fresh.documents, fresh.total
        await _expose_or_report(tab, world, roots.by_frame.get(frame_id, []), part)
        if roots.searched:
            await _read_roles_or_report(tab, world, part)
        if await tab.evaluate_in(world, PARSE_CUT_SHORT, await_promise=False):
            part.unaudited.append(
                "a frame whose document the browser stopped reading before its end (a form submitted, or "
                "window.stop() called, while it loaded)"
            )
    found = await tab.evaluate_in(world, f"globalThis.__a11yProbe.axePartial({json.dumps(context)}, {options_json})")
    partials.append(found["partial"])
    contexts: list[Any] = found["frame_contexts"]
    for index, frame_context in enumerate(contexts):
        if depth + 1 > MAX_FRAME_DEPTH or part.frames_audited >= MAX_FRAMES:
            part.unaudited.append(
                f"a frame beyond the audit's limits ({MAX_FRAMES} frames, {MAX_FRAME_DEPTH} levels deep)"
            )
            part.frames_failed += 1
            partials.append(None)
            continue
        await _audit_child(tab, world, index, frame_context, options_json, roots, partials, part, depth=depth)


async def _audit_child(
    tab: Tab,
    world: int,
    index: int,
    frame_context: Any,
    options_json: str,
    roots: _ClosedRoots,
    partials: list[Any],
    part: AuditPart,
    *,
    depth: int,
) -> None:
    """Enter the index-th frame of a document and audit it (and its frames).

    A frame that navigates while it is audited (its own script, on a timer or on load) takes
    our world in it along: that attempt is dropped whole and the frame entered again, in its new
    document, up to :data:`_FRAME_ATTEMPTS` times. Without that, a benign page whose frame
    happened to navigate during the audit failed as unaudited, depending on the machine's speed.
    A frame that keeps navigating stays unaudited, and says so."""
    reason = "a frame whose document could not be entered"
    for _ in range(_FRAME_ATTEMPTS):
        child = await _enter_frame(tab, world, index)
        if child is None:
            reason = "a frame whose document could not be entered"
            continue
        child_frame, child_world = child
        before = (len(partials), part.frames_audited, part.frames_failed, len(part.unaudited), part.closed_shadow_roots)
        try:
            await _audit_frame(
                tab, child_world, child_frame, frame_context, options_json, roots, partials, part, depth=depth + 1
            )
        except Exception as err:  # noqa: BLE001 - the page may remove or navigate the frame meanwhile
            # Whatever this attempt counted of the frame and its own frames is dropped.
            del partials[before[0] :]
            part.frames_audited, part.frames_failed = before[1], before[2]
            del part.unaudited[before[3] :]
            part.closed_shadow_roots = before[4]
            reason = f"a frame whose audit failed: {str(err).splitlines()[0][:200] if str(err) else type(err).__name__}"
            continue
        part.frames_audited += 1
        return
    partials.append(None)
    part.unaudited.append(reason)
    part.frames_failed += 1


async def _node_in(tab: Tab, world: int, expression: str) -> dict[str, Any] | None:
    """CDP's description of the node an expression evaluates to in one of our worlds (None: not
    a node)."""
    reply = await tab.send(
        "Runtime.evaluate",
        {"expression": expression, "contextId": world, "returnByValue": False, "objectGroup": _OBJECT_GROUP},
    )
    object_id = (reply.get("result") or {}).get("objectId")
    if object_id is None:
        return None
    node: dict[str, Any] = (await tab.send("DOM.describeNode", {"objectId": object_id})).get("node") or {}
    return node


async def _document_of(tab: Tab, world: int) -> int | None:
    """The backend node id of the document a world belongs to."""
    node = await _node_in(tab, world, "document") or {}
    backend = node.get("backendNodeId")
    return int(backend) if backend is not None else None


async def _enter_frame(tab: Tab, world: int, index: int) -> tuple[str, int] | None:
    """The frame id of the index-th frame axe found in a document, and a fresh isolated world in it
    with axe and the probe evaluated; None when the frame cannot be entered (gone, or in another
    process that this page's CDP session does not reach)."""
    try:
        node = await _node_in(tab, world, f"globalThis.__a11yProbe.frameElement({index})") or {}
        frame_id = node.get("frameId")
        if not frame_id:
            return None
        created = await tab.send(
            "Page.createIsolatedWorld",
            {"frameId": frame_id, "worldName": tab.world_name, "grantUniveralAccess": False},
        )
        child_world = int(created["executionContextId"])
        await tab.evaluate_in(child_world, tab.probe_bundle(), await_promise=False)
        return str(frame_id), child_world
    except Exception:  # noqa: BLE001 - any refusal means the frame stays unaudited, and says so
        return None


async def open_closed_roots(tab: Tab) -> int:
    """Open the closed shadow roots of the tab's top document to our world, as an audit does
    (each host's wrapper gets the root as its own ``shadowRoot``), for reads that follow shadow
    trees (the prints of the screens and preferences, conditions.py). Returns how many were
    opened; none past :data:`MAX_CLOSED_ROOTS`, where every audit reports the page's closed roots
    as not audited."""
    roots = await _find_closed_roots(tab)
    if roots.total > MAX_CLOSED_ROOTS:
        return 0
    return await _expose(tab, tab.world_id, roots.by_frame.get(None, []))


async def has_closed_roots(tab: Tab) -> bool:
    """Whether the page or one of its frames holds a closed shadow root now."""
    return (await _find_closed_roots(tab)).total > 0


async def _find_closed_roots(tab: Tab) -> _ClosedRoots:
    """Every closed shadow root in the page and its frames, from one pierced DOM snapshot.

    The snapshot costs seconds on a large page; there a count first tells whether the page holds
    any node our world cannot see (hidden_nodes.py), and only a page that does is snapshotted."""
    found = _ClosedRoots(searched=True)
    if tab.frame_count() == 0 and await nothing_hidden(tab):
        return found
    try:
        document = (await tab.send("DOM.getDocument", {"depth": -1, "pierce": True}))["root"]
    finally:
        # getDocument turns the DOM agent on, which would then report every later mutation.
        await tab.send("DOM.disable")
    stack: list[tuple[dict[str, Any], str | None]] = [(document, None)]
    while stack:
        node, frame = stack.pop()
        for root in node.get("shadowRoots") or ():
            if root.get("shadowRootType") == "closed":
                found.by_frame.setdefault(frame, []).append((int(node["backendNodeId"]), int(root["backendNodeId"])))
                found.total += 1
            stack.append((root, frame))
        for child in node.get("children") or ():
            stack.append((child, frame))
        content = node.get("contentDocument")
        if content is not None:
            if node.get("frameId"):
                found.documents[str(node["frameId"])] = int(content["backendNodeId"])
            stack.append((content, node.get("frameId") or frame))
        template = node.get("templateContent")
        if template is not None:
            stack.append((template, frame))
    return found


async def _expose(tab: Tab, world: int, pairs: list[tuple[int, int]]) -> int:
    """Give each host's wrapper in our world an own ``shadowRoot`` property holding its closed
    root. Returns how many were opened."""
    opened = 0
    try:
        for host, root in pairs:
            resolved = []
            for backend in (host, root):
                reply = await tab.send(
                    "DOM.resolveNode",
                    {"backendNodeId": backend, "executionContextId": world, "objectGroup": _OBJECT_GROUP},
                )
                resolved.append(reply["object"]["objectId"])
            await tab.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": resolved[0],
                    "functionDeclaration": _DEFINE_SHADOW_ROOT,
                    "arguments": [{"objectId": resolved[1]}],
                    "returnByValue": True,
                },
            )
            opened += 1
    finally:
        if pairs:
            await tab.send("Runtime.releaseObjectGroup", {"objectGroup": _OBJECT_GROUP})
    return opened
