import { parentOf, rendered, roleOf } from './elements.js';
import { element, refOf } from './refs.js';
import { virtual, withAxe } from './tree.js';

// Keyboard reach of mouse targets.
//
// Facts about elements a page listens to the mouse on (the Python side finds them through CDP,
// DOMDebugger.getEventListeners, which sees every listener whatever world or frame made its
// function): can the keyboard reach and work them, or the control they sit in or hold? The
// generic checks decide what the facts mean (lm_eval_a11y/generic/checks.py).

// Controls the browser itself works from the keyboard once they have focus.
const NATIVE_CONTROLS = 'a[href], area[href], button, input:not([type="hidden" i]), select, textarea, summary, '
  + 'audio[controls], video[controls], [contenteditable]:not([contenteditable="false" i])';
// Of those, the ones whose keyboard activation is a click event (Enter or Space): a listener for
// mousedown or pointerdown alone never hears the keyboard on them.
const CLICK_ACTIVATED = 'a[href], area[href], button, summary, '
  + 'input:is([type="button" i], [type="submit" i], [type="reset" i], [type="image" i], [type="checkbox" i], '
  + '[type="radio" i], [type="file" i], [type="color" i])';
// ARIA roles of things a person operates (the page must give them keyboard behaviour).
const WIDGET_ROLES = new Set([
  'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'option', 'treeitem', 'gridcell', 'row', 'slider', 'spinbutton', 'scrollbar', 'combobox', 'textbox',
  'searchbox', 'separator',
]);
// Widgets that move focus among their items themselves (roving tabindex, aria-activedescendant):
// their items need no Tab stop of their own.
const COMPOSITE_ROLES = new Set([
  'listbox', 'menu', 'menubar', 'tablist', 'tree', 'treegrid', 'grid', 'radiogroup', 'toolbar',
]);

function safeRole(el) {
  try {
    return roleOf(el);
  } catch {
    return el.getAttribute('role');  // an element axe's tree does not hold (a closed shadow root)
  }
}

export function inTabOrder(el) {
  try {
    return withAxe(() => Boolean(virtual(el)) && axe.commons.dom.isInTabOrder(el));
  } catch {
    return el.tabIndex >= 0 && !el.matches(':disabled') && el.closest('[inert]') === null;
  }
}

// Whether the keyboard can reach the element: a Tab stop, or an item of a composite widget that
// moves focus among its items (its container, or the element that controls it or points into it
// with aria-activedescendant, is a Tab stop or reached so itself; a menu inside a menu bar is
// reached through the bar's items).
export function keyboardReachable(el, depth = 0) {
  if (inTabOrder(el)) {
    return { reachable: true, via: null };
  }
  for (let node = parentOf(el); node; node = parentOf(node)) {
    if (!COMPOSITE_ROLES.has(safeRole(node))) {
      continue;
    }
    if (inTabOrder(node) || Array.from(node.querySelectorAll('*')).some((item) => item.tabIndex >= 0 && inTabOrder(item))) {
      return { reachable: true, via: node };
    }
    if (node.id && depth < 3) {
      const escaped = CSS.escape(node.id);
      const owner = document.querySelector(`[aria-controls~="${escaped}"], [aria-owns~="${escaped}"]`);
      if (owner && !node.contains(owner) && keyboardReachable(owner, depth + 1).reachable) {
        return { reachable: true, via: owner };
      }
    }
    if (safeRole(node) !== 'menu') {
      return { reachable: false, via: null };
    }
  }
  return { reachable: false, via: null };
}

function controlKind(el) {
  if (el.matches(NATIVE_CONTROLS)) {
    return 'native';
  }
  return WIDGET_ROLES.has(safeRole(el)) ? 'widget' : null;
}

// `el` or an ancestor (across shadow roots), or `via`, is in the set.
function handledOnPath(el, set, via) {
  if (via && set.has(via)) {
    return true;
  }
  for (let node = el; node; node = parentOf(node)) {
    if (set.has(node)) {
      return true;
    }
  }
  return false;
}

// A control the keyboard can work: reachable, and activated by the browser (a native control)
// or given keyboard handling by the page (a key listener on it, around it or on the document).
function workable(el, keys, rootKeys) {
  const kind = controlKind(el);
  if (kind === null) {
    return false;
  }
  const reach = keyboardReachable(el);
  if (!reach.reachable) {
    return false;
  }
  return kind === 'native' || rootKeys || handledOnPath(el, keys, reach.via);
}

// A dialog's backdrop: an empty layer over at least half the viewport, positioned out of the
// flow, while a dialog is open. A click on it is a mouse shortcut for what Escape and the
// dialog's own buttons do.
function isBackdrop(el) {
  const style = getComputedStyle(el);
  if (style.position !== 'fixed' && style.position !== 'absolute') {
    return false;
  }
  const rect = el.getBoundingClientRect();
  const covered = Math.max(0, Math.min(rect.right, innerWidth) - Math.max(rect.left, 0)) *
    Math.max(0, Math.min(rect.bottom, innerHeight) - Math.max(rect.top, 0));
  if (covered < innerWidth * innerHeight / 2 || (el.innerText || '').trim() !== '' ||
      el.querySelector('img, svg, canvas, video, input, select, textarea, button, a[href]') !== null) {
    return false;
  }
  return Array.from(document.querySelectorAll('dialog[open], [role="dialog"], [role="alertdialog"]'))
    .some((dialog) => !el.contains(dialog) && rendered(dialog));
}

// keys: references of elements with key listeners; rootKeys: the document or window has one;
// clicks: references of elements with click listeners; rootClicks: the document, <html>,
// <body> or window has one.
export function keyboardFacts(refList, keyRefs, rootKeys, clickRefs, rootClicks) {
  const keys = new Set(keyRefs.map(element));
  const clicks = new Set(clickRefs.map(element));
  return refList.map((ref) => {
    const el = element(ref);
    const fact = { ref, rendered: rendered(el), disabled: false, role: null, control: null, tab_stop: false,
      reachable: false, key_handled: false, click_heard: false, click_activated: false,
      inside_workable: null, holds_workable: false, backdrop: false };
    if (!fact.rendered) {
      return fact;
    }
    fact.backdrop = isBackdrop(el);
    // Inert content takes no click either. (The page behind a modal <dialog> is judged all the
    // same: a dialog open at load, a cookie banner, is closed by the visitor next.)
    fact.disabled = el.matches(':disabled') || el.closest('[aria-disabled="true" i]') !== null
      || el.closest('[inert]') !== null;
    fact.role = safeRole(el);
    fact.control = controlKind(el);
    fact.tab_stop = inTabOrder(el);
    const reach = keyboardReachable(el);
    fact.reachable = reach.reachable;
    fact.key_handled = rootKeys || handledOnPath(el, keys, reach.via);
    fact.click_heard = rootClicks || handledOnPath(el, clicks, null);
    fact.click_activated = el.matches(CLICK_ACTIVATED);
    for (let node = parentOf(el); node; node = parentOf(node)) {
      if (workable(node, keys, rootKeys)) {
        fact.inside_workable = refOf(node);
        break;
      }
    }
    const inside = Array.from(el.querySelectorAll(`${NATIVE_CONTROLS}, [role], [tabindex]`));
    // A label works its control: clicking it is clicking the control.
    if (el.localName === 'label' && el.control) {
      inside.push(el.control);
    }
    fact.holds_workable = inside.some((child) => rendered(child) && workable(child, keys, rootKeys));
    return fact;
  });
}

// The outermost rendered elements drawn with a pointing-hand cursor (cursor: pointer, which
// descendants inherit), at most `limit`: what a mouse user takes for things to click.
export function pointerCursors(limit) {
  const found = [];
  const all = document.body ? document.body.getElementsByTagName('*') : [];
  for (let i = 0; i < all.length && found.length < limit; i += 1) {
    const el = all[i];
    if (getComputedStyle(el).cursor !== 'pointer') {
      continue;
    }
    const parent = parentOf(el);
    if (parent && parent !== document.body && getComputedStyle(parent).cursor === 'pointer') {
      continue;
    }
    if (rendered(el)) {
      found.push(refOf(el));
    }
  }
  return found;
}
