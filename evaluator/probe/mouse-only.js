import { roleOf } from './elements.js';
import { element, refOf } from './refs.js';

// Functions only a mouse may reach: content a pointer resting on something reveals, and elements
// dragged over with a button held. The generic check `mouse-targets-keyboard-operable` compares
// what hovering shows with what a keyboard walk shows (lm_eval_a11y/generic/mouse_only.py).

// What a person reads or works: focusable elements, and elements holding text of their own.
const CONTENT = 'a[href], button, input:not([type="hidden" i]), select, textarea, summary, [tabindex], '
  + '[role="menuitem"], [role="option"], [role="link"], [role="button"]';

function onScreen(el) {
  if (!el.isConnected || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) {
    return false;
  }
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

function holdsText(el) {
  for (const node of el.childNodes) {
    if (node.nodeType === Node.TEXT_NODE && node.data.trim() !== '') {
      return true;
    }
  }
  return false;
}

// Content that is not shown now (a closed menu's items, a tooltip's text), at most `limit`
// elements in document order.
export function hiddenContent(limit) {
  const found = [];
  const all = document.body ? document.body.getElementsByTagName('*') : [];
  for (let i = 0; i < all.length && found.length < limit; i += 1) {
    const el = all[i];
    if ((el.matches(CONTENT) || holdsText(el)) && !el.matches('script, style, template, noscript, option')
      && !onScreen(el)) {
      found.push(refOf(el));
    }
  }
  return found;
}

// Which of `refs` are shown now.
export function shownAmong(refs) {
  const out = [];
  for (const ref of refs) {
    let el;
    try {
      el = element(ref);
    } catch {
      continue; // gone since
    }
    if (onScreen(el)) {
      out.push(ref);
    }
  }
  return out;
}

// Cursors that tell a mouse user "drag me".
const DRAG_CURSORS = new Set(['pointer', 'grab', 'grabbing', 'move', 'ew-resize', 'ns-resize', 'col-resize',
  'row-resize', 'e-resize', 'w-resize', 'n-resize', 's-resize']);
const NATIVE = 'a[href], button, input, select, textarea, summary, video, audio';

// Of `refs` (elements the page listens for mousemove or pointermove on), those that look like
// something to drag: a drag or pointing cursor, or a role of a dragged widget (slider, scrollbar,
// separator). Native controls are left out: the browser works them from the keyboard, and a move
// listener on them is a hover effect.
export function dragLooking(refs) {
  const out = [];
  for (const ref of refs) {
    let el;
    try {
      el = element(ref);
    } catch {
      continue;
    }
    if (el.matches(NATIVE) || !onScreen(el)) {
      continue;
    }
    const role = roleOf(el);
    if (DRAG_CURSORS.has(getComputedStyle(el).cursor) || ['slider', 'scrollbar', 'separator'].includes(role)) {
      out.push(ref);
    }
  }
  return out;
}
