// The text a person meets on the page, counted: what the reward's floor of text reads
// (lm_eval_a11y/corpus/reward.py), so that a page of words the browser never shows (inside
// <noembed>, <datalist>, <rp>, a hidden paragraph, or after a self-closing <script/>) is not a page
// of text. Only reads.

// Letters, digits, punctuation and symbols: white space, invisible format characters (zero-width
// spaces, joiners) and combining marks do not count, so padding cannot make a page of nothing.
const COUNTED = /[\p{L}\p{N}\p{P}\p{S}]/gu;

// Text nodes looked at, at most (a page with more has shown enough text long before).
const MAX_TEXT_NODES = 20000;

// Whether an element's own text can be seen: it is rendered, not `visibility: hidden` and not
// fully transparent (checkVisibility looks at its ancestors too).
function textShown(el, cache) {
  let seen = cache.get(el);
  if (seen === undefined) {
    seen = typeof el.checkVisibility === 'function'
      ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true })
      : el.getClientRects().length > 0;
    cache.set(el, seen);
  }
  return seen;
}

// Whether a text node is laid out with some size: text that is not slotted into a shadow tree,
// or set at a font size of zero, has no box.
function laidOut(text, range) {
  range.selectNodeContents(text);
  for (const rect of range.getClientRects()) {
    if (rect.width > 0 && rect.height > 0) {
      return true;
    }
  }
  return false;
}

// Characters of rendered text in the document and its open shadow trees, up to `enough` (the
// count stops there; null: no limit).
export function renderedTextChars(enough) {
  const cache = new WeakMap();
  const range = document.createRange();
  let count = 0;
  let nodes = 0;
  const roots = [document.body || document.documentElement];
  while (roots.length > 0) {
    const root = roots.pop();
    if (!root) {
      continue;
    }
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (node.shadowRoot) {
          roots.push(node.shadowRoot);
        }
        continue;
      }
      nodes += 1;
      if (nodes > MAX_TEXT_NODES) {
        return count;
      }
      const matches = node.data.match(COUNTED);
      if (!matches || !node.parentElement || !textShown(node.parentElement, cache) || !laidOut(node, range)) {
        continue;
      }
      count += matches.length;
      if (enough !== null && count >= enough) {
        return count;
      }
    }
  }
  return count;
}
