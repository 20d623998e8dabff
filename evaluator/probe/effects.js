import { deepActive, parentOf } from './elements.js';
import { element, refOf } from './refs.js';

// What a click does, and whether a keyboard path does the same: the generic check
// `mouse-targets-keyboard-operable` records the page's state before and after a click on a mouse
// target, and before and after the keys a person would press on the controls around it
// (lm_eval_a11y/generic/same_effect.py compares the two changes).

const SKIPPED = 'script, style, template, noscript, head, head *';

function drawn(el) {
  if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) {
    return false;
  }
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
}

function textOfOwn(el) {
  let text = '';
  for (const node of el.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      text += node.data;
    }
  }
  return text.trim().replace(/\s+/g, ' ').slice(0, 80);
}

// The state of the first `limit` elements in document order: [ref, tag, facts] each, facts being
// the element's attributes (`@name`), form value and checkedness, `open`, whether it is shown, its
// own text and its place among its parent's children; and the focused element.
export function effectState(limit) {
  const items = [];
  const all = document.getElementsByTagName('*');
  for (let i = 0; i < all.length && items.length < limit; i += 1) {
    const el = all[i];
    if (el.matches(SKIPPED)) {
      continue;
    }
    const facts = {};
    for (const attr of el.attributes) {
      facts[`@${attr.name}`] = attr.value;
    }
    if (el.matches('input, select, textarea')) {
      facts.$value = String(el.value);
      facts.$checked = String(Boolean(el.checked));
    }
    if (el.matches('details, dialog')) {
      facts.$open = String(el.open);
    }
    facts.$shown = String(drawn(el));
    facts.$text = textOfOwn(el);
    facts.$at = String(el.parentElement ? Array.prototype.indexOf.call(el.parentElement.children, el) : 0);
    items.push([refOf(el), el.tagName.toLowerCase(), facts]);
  }
  const active = deepActive();
  return { focus: active ? refOf(active) : null, items };
}

// A point of the viewport where a press lands on the page itself (<html> or <body>, nothing on
// them), on a grid of 8 by 8, or null: where a click does what a press anywhere does.
export function blankPoint() {
  const steps = 8;
  for (let row = 0; row < steps; row += 1) {
    for (let col = 0; col < steps; col += 1) {
      const x = ((col + 0.5) * window.innerWidth) / steps;
      const y = ((row + 0.5) * window.innerHeight) / steps;
      const hit = document.elementFromPoint(x, y);
      if (hit === document.documentElement || hit === document.body) {
        return { x, y };
      }
    }
  }
  return null;
}

// The place of `ref` in document order (as effectState counts), or null.
export function effectPlace(ref) {
  let index = 0;
  const target = element(ref);
  const all = document.getElementsByTagName('*');
  for (let i = 0; i < all.length; i += 1) {
    if (all[i] === target) {
      return index;
    }
    if (!all[i].matches(SKIPPED)) {
      index += 1;
    }
  }
  return null;
}

// The element at `place` in document order (as effectState counts), or null.
export function elementAtPlace(place) {
  let index = 0;
  const all = document.getElementsByTagName('*');
  for (let i = 0; i < all.length; i += 1) {
    if (all[i].matches(SKIPPED)) {
      continue;
    }
    if (index === place) {
      return refOf(all[i]);
    }
    index += 1;
  }
  return null;
}

function tabStop(el) {
  return el.tabIndex >= 0 && !el.matches(':disabled') && el.closest('[inert]') === null && drawn(el);
}

function idsOf(el, name) {
  return (el.getAttribute(name) || '').split(/\s+/).filter(Boolean);
}

// Tab stops a person would try to do what a click on `ref` does, nearest first, at most `limit`:
// those that control the same element (aria-controls, aria-owns) or point at the target or what
// holds it; those inside it (a slider's thumb in its rail); the nearest one around it; the ones in
// the nearest element around it that holds any (a spinbutton beside its buttons, the roving stop of
// a toolbar).
export function keyboardPaths(ref, limit) {
  const target = element(ref);
  const found = [];
  const add = (el) => {
    if (el && el !== target && !found.includes(el) && tabStop(el)) {
      found.push(el);
    }
  };
  const controlled = new Set([...idsOf(target, 'aria-controls'), ...idsOf(target, 'aria-owns')]);
  const around = [];
  for (let node = target; node && around.length < 4; node = parentOf(node)) {
    around.push(node);
  }
  for (const other of document.querySelectorAll('[aria-controls], [aria-owns], [aria-activedescendant]')) {
    const points = [...idsOf(other, 'aria-controls'), ...idsOf(other, 'aria-owns'),
      ...idsOf(other, 'aria-activedescendant')];
    if (points.some((id) => controlled.has(id) || around.some((node) => node.id === id))) {
      add(other);
    }
  }
  for (const inside of target.querySelectorAll('*')) {
    add(inside);
  }
  for (let node = parentOf(target); node && node !== document.body; node = parentOf(node)) {
    if (tabStop(node)) {
      add(node);
      break;
    }
  }
  let hops = 0;
  for (let node = parentOf(target); node && node !== document.body && hops < 4; node = parentOf(node)) {
    hops += 1;
    const stops = Array.from(node.querySelectorAll('*')).filter((el) => el !== target && tabStop(el));
    if (stops.length) {
      stops.forEach(add);
      break;
    }
  }
  return found.slice(0, limit).map(refOf);
}

// The other mouse targets (`candidates`) of the widget `ref` belongs to, at most `limit`: those in
// the nearest element around it (up to 4 levels) that holds any (the increase button beside a
// decrease button, the other radios of a group).
export function companions(ref, candidates, limit) {
  const target = element(ref);
  const others = [];
  for (const candidate of candidates) {
    try {
      const el = element(candidate);
      if (el !== target && el.isConnected) {
        others.push(el);
      }
    } catch {
      // A reference from a document replaced since: not of this widget.
    }
  }
  let hops = 0;
  for (let node = parentOf(target); node && node !== document.body && hops < 4; node = parentOf(node)) {
    hops += 1;
    const inside = others.filter((el) => node.contains(el));
    if (inside.length) {
      return inside.slice(0, limit).map(refOf);
    }
  }
  return [];
}
