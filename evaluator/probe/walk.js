import { styleFingerprint } from './audit.js';
import { isVisible, nameOf, pageElements, rendered, roleOf } from './elements.js';
import { keyboardReachable } from './keyboard-reach.js';
import { element, refOf } from './refs.js';

// A visitor's walk (lm_eval_a11y/engine/walk.py): what a visitor meets on arrival and would act
// on (the modal dialog open at load, what reacts to the pointer, what opens), and a fingerprint
// of what the page shows, to tell whether an action changed it.

// What the page shows, as one string: its markup (text and attributes, so content a script adds,
// removes or renames), its style sheets, which elements are drawn (checkVisibility: so content
// a :hover or :focus-within rule shows, a popover opened) and which dialog is modal (the page
// behind it is inert). Two states with the same fingerprint show the same content; a change of
// colour alone is not seen (docs/trust.md).
export function walkFingerprint() {
  let hash = 0x811c9dc5;
  const mix = (text) => {
    for (let i = 0; i < text.length; i += 1) {
      hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    }
  };
  const markup = document.documentElement ? document.documentElement.outerHTML : '';
  mix(markup);
  const { all } = pageElements();
  let bits = 0;
  let shown = 0;
  for (let i = 0; i < all.length; i += 1) {
    const drawn = all[i].checkVisibility({ opacityProperty: true, visibilityProperty: true }) ? 1 : 0;
    shown += drawn;
    bits = (bits << 1) | drawn;
    if ((i & 15) === 15) {
      mix(String.fromCharCode(bits & 0xffff));
      bits = 0;
    }
  }
  mix(String.fromCharCode(bits & 0xffff));
  const modal = document.querySelector('dialog:modal');
  return `${markup.length}:${all.length}:${shown}:${(hash >>> 0).toString(16)}:` +
    `${styleFingerprint()}:${modal ? refOf(modal) : ''}`;
}

function about(el, kind) {
  const rect = el.getBoundingClientRect();
  return {
    ref: refOf(el),
    tag: el.localName,
    role: roleOf(el),
    name: nameOf(el).slice(0, 80),
    kind,
    area: Math.round(rect.width * rect.height),
  };
}

// How a visitor closes a dialog that greets them: the control that accepts, then the one that
// closes, then the one that declines (by accessible name), then any button of a form that closes
// the dialog (method=dialog).
const DIALOG_NAMES = [
  /\b(accept|agree|allow|ok|okay|got it|i understand|understood|continue|confirm|yes)\b/i,
  /\b(close|dismiss|skip|done|hide)\b|^\s*[×✕✖x]\s*$/i,
  /\b(reject|decline|deny|refuse|no thanks|not now|later|cancel|necessary only|essential only)\b/i,
];
const BUTTONS = 'button, [role="button"], a[href], input[type="submit"], input[type="button"], input[type="reset"]';

// The modal dialog open now and the control a visitor closes it with: { dialog, ref, name }
// (ref null: no control by name, the visitor presses Escape); null when no dialog is modal.
export function modalDialog() {
  const dialog = document.querySelector('dialog:modal');
  if (!dialog) {
    return null;
  }
  const controls = Array.from(dialog.querySelectorAll(BUTTONS)).filter((el) => isVisible(el) &&
    !el.matches(':disabled') && el.getAttribute('aria-disabled') !== 'true');
  const named = controls.map((el) => ({ el, name: nameOf(el) }));
  for (const pattern of DIALOG_NAMES) {
    const found = named.find((item) => pattern.test(item.name));
    if (found) {
      return { dialog: nameOf(dialog).slice(0, 80), ref: refOf(found.el), name: found.name.slice(0, 80) };
    }
  }
  const closing = named.find((item) => item.el.form && item.el.form.method === 'dialog');
  if (closing) {
    return { dialog: nameOf(dialog).slice(0, 80), ref: refOf(closing.el), name: closing.name.slice(0, 80) };
  }
  return { dialog: nameOf(dialog).slice(0, 80), ref: null, name: '' };
}

// The part of a selector that names the hovered element of a :hover rule that styles something
// else (`nav li:hover > ul` -> `nav li`), or null when the rule styles the hovered element
// itself (a link's colour): only the first kind shows or hides content.
function hoveredPart(selector) {
  const at = selector.indexOf(':hover');
  if (at < 0) {
    return null;
  }
  let depth = 0;
  let end = at + ':hover'.length;
  for (; end < selector.length; end += 1) {
    const c = selector[end];
    if (c === '(' || c === '[') {
      depth += 1;
    } else if (c === ')' || c === ']') {
      depth -= 1;
    } else if (depth === 0 && /[\s>+~]/.test(c)) {
      break;
    }
  }
  if (depth !== 0 || selector.slice(end).trim() === '') {
    return null;
  }
  const part = (selector.slice(0, at) + selector.slice(at + ':hover'.length, end)).trim();
  return part === '' || /[\s>+~]$/.test(part) ? '*' : part;
}

// Split a selector list at its top-level commas.
function selectorsOf(list) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i += 1) {
    const c = list[i];
    if (c === '(' || c === '[') {
      depth += 1;
    } else if (c === ')' || c === ']') {
      depth -= 1;
    } else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  out.push(list.slice(start));
  return out.map((s) => s.trim());
}

function hoverSelectors() {
  const found = new Set();
  const visit = (rules) => {
    for (const rule of rules) {
      if (rule instanceof CSSStyleRule && rule.selectorText.includes(':hover')) {
        for (const selector of selectorsOf(rule.selectorText)) {
          const part = hoveredPart(selector);
          if (part !== null && !selector.includes('&')) {
            found.add(part);
          }
        }
      }
      if (rule.cssRules) {
        visit(rule.cssRules);
      }
    }
  };
  for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) {
    try {
      visit(sheet.cssRules);
    } catch {
      // A sheet that cannot be read (none on a sample: the network is closed).
    }
  }
  return [...found];
}

function inDocumentOrder(elements) {
  return elements.sort((a, b) => {
    if (a === b) {
      return 0;
    }
    return a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
  });
}

function actionable(el) {
  return el.isConnected && rendered(el) && isVisible(el) && el.closest('[inert]') === null &&
    !el.matches(':disabled') && el.getAttribute('aria-disabled') !== 'true';
}

// What reacts to the pointer resting on it, in document order, at most `limit`: elements a
// :hover rule shows or hides something for, and `listening` (element references the page
// listens to mouseover/mouseenter/pointerover/pointerenter on). The root, the body and what
// covers most of the viewport are left out: the pointer moving over the page already rests there.
export function hoverTargets(limit, listening) {
  const picked = new Set();
  for (const selector of hoverSelectors()) {
    let matches;
    try {
      matches = document.querySelectorAll(selector === '*' ? 'body *' : selector);
    } catch {
      continue;
    }
    for (const el of matches) {
      picked.add(el);
    }
  }
  for (const ref of listening) {
    try {
      picked.add(element(ref));
    } catch {
      // Gone since the listeners were read.
    }
  }
  const big = window.innerWidth * window.innerHeight * 0.6;
  const kept = inDocumentOrder([...picked]).filter((el) => el !== document.documentElement &&
    el !== document.body && actionable(el) && (() => {
      const rect = el.getBoundingClientRect();
      return rect.width * rect.height < big;
    })());
  return kept.slice(0, limit).map((el) => about(el, 'hover'));
}

const OPENERS = '[aria-expanded="false"], details:not([open]) > summary, [popovertarget]';

// What a visitor opens, in document order, at most `limit`, leaving out the references in `done`:
// controls with aria-expanded="false", the summary of a closed <details>, and popover invokers
// whose popover is closed.
export function openers(limit, done) {
  const skip = new Set(done);
  const out = [];
  for (const el of document.querySelectorAll(OPENERS)) {
    if (out.length >= limit) {
      break;
    }
    if (skip.has(refOf(el)) || !actionable(el)) {
      continue;
    }
    if (el.localName === 'summary' && el.parentElement.querySelector(':scope > summary') !== el) {
      continue;
    }
    let kind = 'expands';
    if (el.hasAttribute('popovertarget') && el.getAttribute('aria-expanded') !== 'false') {
      const target = document.getElementById(el.getAttribute('popovertarget'));
      if (!target || target.matches(':popover-open')) {
        continue;
      }
      kind = 'popover';
    } else if (el.localName === 'summary') {
      kind = 'details';
    }
    out.push(about(el, kind));
  }
  return out;
}

// What a popup trigger opens, when its markup says: the elements it controls (aria-controls), its
// popover (popovertarget), the <details> of a summary.
function popupsOf(el) {
  const ids = (el.getAttribute('aria-controls') || '').split(/\s+/).filter(Boolean);
  if (el.hasAttribute('popovertarget')) {
    ids.push(el.getAttribute('popovertarget'));
  }
  const popups = ids.map((id) => document.getElementById(id)).filter(Boolean);
  if (el.localName === 'summary') {
    popups.push(el.parentElement);
  }
  return popups;
}

const POPUP_TRIGGERS = `${OPENERS}, [aria-haspopup]:not([aria-haspopup="false" i]), [aria-controls]`;

// Controls a person opens a popup with from the keyboard (the generic checks open them,
// lm_eval_a11y/generic/popups.py): Tab stops, or items of a widget its keys bring focus to, among
// the openers above and controls with aria-haspopup or aria-controls. Chosen so that the page's
// order cannot keep a popup out of reach behind decoys: first, again and again (at most
// `kindLimit`), the trigger whose popup holds the most kinds (tag, role, classes) of `hidden`
// (references of elements not rendered) that no trigger chosen before holds; then, while fewer
// than `limit` are chosen, those whose popup is built when it opens (aria-haspopup with no popup
// named, or a named popup that is empty), then the other triggers holding hidden elements, in
// document order. Returns the triggers, and the hidden elements held by popups left out whose
// kind no chosen trigger's popup holds (`unreached`: how many, and the first).
const kindOf = (el) => `${el.localName}|${el.getAttribute('role') || ''}|${[...el.classList].sort().join(' ')}`;
const isEmpty = (el) => !el.firstElementChild && !el.textContent.trim();

export function popupTriggers(hidden, limit, kindLimit) {
  const held = hidden.flatMap((ref) => {
    try {
      return [element(ref)];
    } catch {
      return [];  // gone since
    }
  });
  const holding = [];
  const built = [];
  for (const el of document.querySelectorAll(POPUP_TRIGGERS)) {
    // A Tab stop, or an item a widget's keys bring focus to (a menu bar's menu items).
    if (!actionable(el) || !keyboardReachable(el).reachable) {
      continue;
    }
    if (el.localName === 'summary' && el.parentElement.querySelector(':scope > summary') !== el) {
      continue;
    }
    const popups = popupsOf(el);
    const inside = held.filter((item) => popups.some((popup) => popup.contains(item)));
    if (inside.length) {
      holding.push({ el, inside, kinds: new Set(inside.map(kindOf)) });
    } else if (popups.length ? popups.every(isEmpty) : el.hasAttribute('aria-haspopup')
      && el.getAttribute('aria-haspopup').toLowerCase() !== 'false') {
      built.push(el);
    }
  }
  const chosen = [];
  const covered = new Set();
  while (chosen.length < kindLimit) {
    let best = null;
    let gain = 0;
    for (const trigger of holding) {
      const fresh = [...trigger.kinds].filter((kind) => !covered.has(kind)).length;
      if (fresh > gain) {
        best = trigger;
        gain = fresh;
      }
    }
    if (best === null) {
      break;
    }
    chosen.push(best);
    best.kinds.forEach((kind) => covered.add(kind));
  }
  const rest = holding.filter((trigger) => !chosen.includes(trigger));
  const order = [...chosen.map((t) => t.el), ...[...built, ...rest.map((t) => t.el)]
    .slice(0, Math.max(0, limit - chosen.length))];
  rest.filter((t) => order.includes(t.el)).forEach((t) => t.kinds.forEach((kind) => covered.add(kind)));
  const left = rest.filter((t) => !order.includes(t.el)).flatMap((t) => t.inside)
    .filter((item) => !covered.has(kindOf(item)));
  return {
    triggers: order.map((el) => about(el, 'popup')),
    unreached: left.length,
    example: left.length ? refOf(left[0]) : null,
  };
}

// Of `refs`, the references of the elements that are rendered (a box, not display: none).
export function renderedRefs(refs) {
  return refs.filter((ref) => {
    try {
      return rendered(element(ref));
    } catch {
      return false;
    }
  });
}

// Where the page is scrolled: whether a wheel can take it further down.
export function scrollRoom() {
  const root = document.scrollingElement || document.documentElement;
  return {
    y: Math.round(window.scrollY),
    room: Math.max(0, Math.round(root.scrollHeight - window.innerHeight - window.scrollY)),
    width: window.innerWidth,
    height: window.innerHeight,
  };
}
