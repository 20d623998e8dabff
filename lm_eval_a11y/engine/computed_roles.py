"""Roles and names axe-core cannot see: those a custom element sets through ``ElementInternals``.

``this.attachInternals().role = 'button'`` gives an element a role (and ``internals.ariaLabel``
a name) with no attribute: axe reads attributes, so to axe such an element is a plain custom
element, and a nameless "button" passes. Chromium's accessibility tree has the computed role and
name, and the page cannot reach it. Before each audit, the defined autonomous custom elements
without a ``role`` attribute (the only elements that can carry internals; the probe lists them in
our world) are looked up in that tree one by one (``Accessibility.getPartialAXTree``), and what
Chromium computed is handed to the probe's rule ``lm-computed-role-name``
(``evaluator/probe/extra-rules.js``), which fails those whose role needs a name and who have none.

Pages without such elements pay one round trip per audit, and only pages that can run a script
(no script, no custom element) pay even that.
"""

from __future__ import annotations

from typing import Any

from lm_eval_a11y.engine.tab import Tab

__all__ = ["MAX_CUSTOM_ELEMENTS", "read_computed_roles"]

# Each candidate costs a round trip to the accessibility tree.
MAX_CUSTOM_ELEMENTS = 200
_OBJECT_GROUP = "lm-eval-a11y-computed-roles"
_NOTE = "function (infos) { return globalThis.__a11yProbe.noteComputed(this.slice(0, infos.length), infos); }"


async def read_computed_roles(tab: Tab, world: int) -> str | None:
    """Hand Chromium's computed role and name of each candidate in one of our worlds to the probe.

    Returns what could not be read (a reason for ``unaudited``), or None."""
    try:
        reply = await tab.send(
            "Runtime.evaluate",
            {
                "expression": f"globalThis.__a11yProbe.internalsCandidates({MAX_CUSTOM_ELEMENTS})",
                "contextId": world,
                "returnByValue": False,
                "objectGroup": _OBJECT_GROUP,
            },
        )
        array = (reply.get("result") or {}).get("objectId")
        if array is None:
            return None
        properties = await tab.send("Runtime.getProperties", {"objectId": array, "ownProperties": True})
        elements = sorted(
            (int(p["name"]), p["value"]["objectId"])
            for p in properties.get("result") or ()
            if p.get("name", "").isdigit() and (p.get("value") or {}).get("objectId")
        )
        reason = None
        if len(elements) > MAX_CUSTOM_ELEMENTS:
            reason = (
                f"more than {MAX_CUSTOM_ELEMENTS} custom elements, whose roles from ElementInternals "
                "were read only for the first ones"
            )
            elements = elements[:MAX_CUSTOM_ELEMENTS]
        infos = [await _computed(tab, object_id) for _, object_id in elements]
        await tab.send(
            "Runtime.callFunctionOn",
            {
                "objectId": array,
                "functionDeclaration": _NOTE,
                "arguments": [{"value": infos}],
                "returnByValue": True,
            },
        )
        return reason
    finally:
        await tab.send("Runtime.releaseObjectGroup", {"objectGroup": _OBJECT_GROUP})


async def _computed(tab: Tab, object_id: str) -> dict[str, Any]:
    reply = await tab.send("Accessibility.getPartialAXTree", {"objectId": object_id, "fetchRelatives": False})
    nodes = reply.get("nodes") or []
    if not nodes:
        # Not in the accessibility tree at all (display: none, or inside an inert subtree).
        return {"role": None, "name": "", "ignored": True}
    node = nodes[0]
    return {
        "role": (node.get("role") or {}).get("value"),
        "name": str((node.get("name") or {}).get("value") or ""),
        "ignored": bool(node.get("ignored")),
    }
