"""Whether a page holds nodes none of our worlds can see (closed shadow roots), without the
seconds a pierced DOM snapshot of a large page costs.

Chromium's ``DOM.performSearch`` walks the document and every shadow tree in it, closed ones
included, and answers only with a count: the query ``<`` matches every element (a tag name
starting with the empty string) and each text, comment or CDATA node whose text has a ``<``.
The probe counts the same in our world, where closed roots are out of sight (those opened to us
are left out of the count by their mode). Equal counts, with nothing changed in between (a
MutationObserver of our world watched every counted tree), mean there is no closed shadow root;
a larger count from CDP means there is one, and the caller takes the full snapshot.
Measured on the shared two-core machine (idle to loaded): 30-240 ms for pages of 200 KB to 1.5 MB, where the
pierced snapshot took 0.5-2 s for 200 KB, 2-3 s for 700 KB and 18-38 s for 1.5 MB.
"""

from __future__ import annotations

from lm_eval_a11y.engine.tab import Tab

__all__ = ["COUNT_FROM_NODES", "nodes_out_of_sight", "nothing_hidden"]

# Below this many nodes the full snapshot costs about what the count does (tens of ms).
COUNT_FROM_NODES = 1500


async def nothing_hidden(tab: Tab) -> bool:
    """True when the top document (a page without frames) certainly holds no node our world
    cannot see; False when it may, or when it is small enough to be snapshotted whole."""
    before = await tab.evaluate(f"globalThis.__a11yProbe.countSeen({COUNT_FROM_NODES})")
    if int(before["count"]) < COUNT_FROM_NODES:
        return False
    try:
        pierced = await _pierced_count(tab)
    finally:
        after = await tab.evaluate("globalThis.__a11yProbe.countEnd()")
    return not after["changed"] and pierced == int(before["count"]) == int(after["count"])


async def _pierced_count(tab: Tab) -> int:
    """CDP's count of the matches of ``<`` in the document and every shadow tree in it."""
    try:
        await tab.send("DOM.enable")
        await tab.send("DOM.getDocument", {"depth": 0})
        search = await tab.send("DOM.performSearch", {"query": "<"})
        await tab.send("DOM.discardSearchResults", {"searchId": search["searchId"]})
    finally:
        await tab.send("DOM.disable")
    return int(search["resultCount"])


async def nodes_out_of_sight(tab: Tab) -> int:
    """How many more nodes CDP counts than our world sees: those in closed shadow roots (opened
    to us or not), counted as above, at any size of document. The count is taken twice (ours,
    then CDP's) without a watch between them, so a page changing itself meanwhile can make it
    differ; the watch that asks (late.py) then only audits once more."""
    seen = await tab.evaluate("globalThis.__a11yProbe.countSeen(Infinity)")
    return await _pierced_count(tab) - int(seen["count"])
