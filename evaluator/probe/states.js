// What the page shows, as one short fingerprint: after a check's action the Python side
// (lm_eval_a11y/engine/states.py) compares it with the states already audited, and audits the
// page again only when what is shown changed (a dialog opened, a panel expanded, a message
// appeared). Focus, the caret, tabindex and the scroll position are not part of it, so a walk
// that only moves focus costs this call per action and no audit.
//
// Walked: the document and the open shadow roots in it, element by element. A subtree that is
// not rendered (display: none, a closed <details>, content-visibility: hidden) is skipped whole.
// Each rendered element adds its tag, whether it can be seen (visibility and opacity), whether it
// has a size and lies on the page (not slid off its left or top edge, as an off-canvas menu is),
// and the attributes that change what assistive technology presents (aria-hidden, aria-expanded,
// aria-modal, open, inert); each text node of an element that can be seen adds its text.

const FINGERPRINT_ATTRIBUTES = ['aria-hidden', 'aria-expanded', 'aria-modal', 'open', 'inert'];
// Text per node that enters the fingerprint: a change beyond it is rare and not worth the time.
const TEXT_LIMIT = 200;

// Two FNV-1a hashes with different offsets, over the same characters: 64 bits in all.
class Hash {
  constructor() {
    this.a = 0x811c9dc5;
    this.b = 0x1000193 ^ 0x5bd1e995;
    this.parts = 0;
  }

  add(text) {
    let { a, b } = this;
    for (let i = 0; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
    }
    this.a = Math.imul(a ^ 0x1f, 0x01000193);
    this.b = Math.imul(b ^ 0x1f, 0x01000193);
    this.parts += 1;
  }

  value() {
    return `${(this.a >>> 0).toString(16)}.${(this.b >>> 0).toString(16)}.${this.parts}`;
  }
}

function addElement(el, hash, scroll) {
  const shown = el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  const rect = el.getBoundingClientRect();
  const sized = rect.width > 0 && rect.height > 0;
  const onPage = rect.right + scroll.x > 0 && rect.bottom + scroll.y > 0;
  let part = `${el.localName}${shown ? '+' : '-'}${sized ? 's' : 'z'}${onPage ? 'p' : 'o'}`;
  for (const name of FINGERPRINT_ATTRIBUTES) {
    const value = el.getAttribute(name);
    if (value !== null) {
      part += ` ${name}=${value}`;
    }
  }
  hash.add(part);
  return shown;
}

// `shown`: whether the element that holds these nodes can be seen (its text then counts).
function walk(root, shown, hash, scroll) {
  for (let node = root.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === Node.ELEMENT_NODE) {
      // Not rendered (display: none, or inside content-visibility: hidden): nothing in it is.
      if (!node.checkVisibility()) {
        continue;
      }
      const seen = addElement(node, hash, scroll);
      if (node.shadowRoot) {
        walk(node.shadowRoot, seen, hash, scroll);
      }
      walk(node, seen, hash, scroll);
      hash.add('/');
    } else if (shown && node.nodeType === Node.TEXT_NODE) {
      const text = node.data.trim();
      if (text) {
        hash.add(text.slice(0, TEXT_LIMIT));
      }
    }
  }
}

// The fingerprint of what the document shows now (see above).
export function shownFingerprint() {
  const hash = new Hash();
  if (document.documentElement) {
    const root = document.documentElement;
    if (root.checkVisibility()) {
      const seen = addElement(root, hash, { x: window.scrollX, y: window.scrollY });
      walk(root, seen, hash, { x: window.scrollX, y: window.scrollY });
    }
  }
  return hash.value();
}
