import { pendingMutations } from './tree.js';

// Moving the start of sequential focus navigation back to the top of the document, unseen.
// Blurring alone is not enough: Chromium keeps the starting point at the element that lost
// focus, so Tab would go on from there. Focusing the body and blurring it moves the point to
// the document's start; the body takes focus in design mode (a document state, where a
// tabindex attribute would show in the page's MutationObservers). What the page could see of
// it is kept from it: the focus events of the body are stopped by listeners this world adds to
// the window at the document's creation, before any of the page's (listeners run in the order
// they were added, the window's capturing ones first), and the selection design mode moves is
// put back, its selectionchange stopped the same way when the selection is as it was.
// document.open() erases every listener of the window: a secret event tells whether ours are
// still there, and if they are not they are added again (then after the page's own; see
// docs/trust.md).
const FOCUS_EVENT_TYPES = ['focus', 'blur', 'focusin', 'focusout'];
const ALIVE_EVENT = `a11y-probe-${Math.random().toString(36).slice(2)}-${Date.now()}`;
let resetting = false;
let swallowSelection = null;
let guardAlive = false;
function quietFocus(event) {
  if (resetting) {
    event.stopImmediatePropagation();
  }
}
function quietSelection(event) {
  const saved = swallowSelection;
  if (saved === null) {
    return;
  }
  swallowSelection = null;
  const s = document.getSelection();
  if (s !== null && s.anchorNode === saved[0] && s.anchorOffset === saved[1]
      && s.focusNode === saved[2] && s.focusOffset === saved[3]) {
    event.stopImmediatePropagation();
  }
}
function addGuards() {
  for (const type of FOCUS_EVENT_TYPES) {
    window.addEventListener(type, quietFocus, true);
  }
  window.addEventListener('selectionchange', quietSelection, true);
  window.addEventListener(ALIVE_EVENT, () => { guardAlive = true; }, true);
}
addGuards();
function guardsInPlace() {
  guardAlive = false;
  window.dispatchEvent(new Event(ALIVE_EVENT));
  return guardAlive;
}
export function quietReset() {
  const body = document.body;
  if (!body) {
    return;
  }
  if (!guardsInPlace()) {
    addGuards();
  }
  const selection = document.getSelection();
  const saved = selection === null ? null
    : [selection.anchorNode, selection.anchorOffset, selection.focusNode, selection.focusOffset];
  const mode = document.designMode;
  pendingMutations();
  resetting = true;
  try {
    document.designMode = 'on';
    body.focus({ preventScroll: true });
    body.blur();
  } finally {
    document.designMode = mode;
    resetting = false;
  }
  if (selection !== null && saved !== null) {
    if (saved[0] === null) {
      selection.removeAllRanges();
    } else {
      selection.setBaseAndExtent(saved[0], saved[1], saved[2], saved[3]);
    }
    swallowSelection = saved;
  }
}
