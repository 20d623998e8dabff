import { pageElements } from './elements.js';

// Screens and preferences: whether the page renders differently under an emulated condition
// (a phone's screen and pointer, the dark scheme, reduced motion) than in the default one.
//
// The Python side (lm_eval_a11y/engine/conditions.py) takes a print of the page in the default
// condition (conditionBaseline), emulates a condition, lets the page react (its matchMedia
// listeners and resize handlers), and asks whether the page differs (conditionDiffers). Only a
// page that differs is audited under the condition. The print is what an audit of the page
// depends on and nothing of the screen's size itself: per element, in document order, its tag,
// its attributes, its own text, whether it has a box, and the computed styles that decide what is
// shown and how it reads. Boxes' sizes are left out: every page's boxes change width on a
// narrower screen, which changes no audit; content the narrower screen hides or shows, restyles,
// rewrites or resizes the text of does. Only reads: no mutation, no style, no event.
//
// Every element is printed, those of shadow trees too (open ones, and closed ones the Python side
// has opened to our world): a page that changes only past some count of elements, or only inside
// a shadow tree whose host keeps its box, would otherwise differ unseen. A print costs about 12
// microseconds an element (the computed styles), so 50 ms on a page of 4,000 elements.

// The computed styles that decide what is shown and how it reads: hidden or shown, colours and
// what may cover or recolour them, text size and weight.
const PRINTED_STYLES = [
  'display', 'visibility', 'opacity', 'content-visibility', 'color', 'background-color', 'background-image',
  'font-size', 'font-weight', 'filter', 'mix-blend-mode', 'clip-path', 'color-scheme', 'text-shadow',
  'outline-color', 'outline-style', 'position', 'overflow',
];

const PRINTED = new Set(PRINTED_STYLES);

function ownText(el) {
  let text = '';
  for (let node = el.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === Node.TEXT_NODE) {
      text += node.data;
    }
  }
  return text;
}

// The CSS properties each element's running animations and transitions change: their values
// differ from one moment to the next (a spinner, a pulse), so they are not printed; what is
// printed instead is each animation itself (printOf, from `running`), whose keyframes come with their values
// computed (custom properties resolved), so that an animation a condition changes (keyframes a
// media rule redefines, a colour it takes from a variable the dark scheme sets) still differs.
// Returns { animated: element -> property names, running: element -> animation prints }.
function animatedProperties(roots) {
  const animated = new Map();
  const running = new Map();
  const animations = new Set();
  for (const root of roots) {
    root.getAnimations().forEach((animation) => animations.add(animation));
  }
  for (const animation of animations) {
    const effect = animation.effect;
    if (!effect || !effect.target || typeof effect.getKeyframes !== 'function') {
      continue;
    }
    const names = animated.get(effect.target) || new Set();
    // The keyframes' values of the printed styles, each frame at its offset.
    const frames = [];
    for (const frame of effect.getKeyframes()) {
      const values = [frame.computedOffset];
      for (const key of Object.keys(frame)) {
        const name = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
        names.add(name);
        if (PRINTED.has(name)) {
          values.push(name, frame[key]);
        }
      }
      frames.push(values);
    }
    animated.set(effect.target, names);
    const prints = running.get(effect.target) || [];
    prints.push(JSON.stringify([effect.pseudoElement || '', frames, effect.getTiming()]));
    running.set(effect.target, prints);
  }
  return { animated, running };
}

// One element's print: its tag, whether it has a box, its printed styles (these three at fixed
// places, for describeChange; a style an animation is changing printed as '~'), then its form
// value, its own text and its attributes.
function printOf(el, animated, running) {
  const style = getComputedStyle(el);
  const moving = animated.get(el);
  let boxed = false;
  for (const rect of el.getClientRects()) {
    if (rect.width > 0 && rect.height > 0) {
      boxed = true;
      break;
    }
  }
  const parts = [el.localName, boxed ? 'box' : 'no box'];
  for (const name of PRINTED_STYLES) {
    parts.push(moving && moving.has(name) ? '~' : style.getPropertyValue(name));
  }
  // A form control's value is state the audit reads (a control's name may come from it).
  parts.push(typeof el.value === 'string' ? el.value : '');
  parts.push(ownText(el));
  for (const attribute of el.attributes) {
    parts.push(`${attribute.name}=${attribute.value}`);
  }
  for (const animation of running.get(el) || []) {
    parts.push(`animation=${animation}`);
  }
  return parts.join('\u0001');
}

// Printed styles whose values follow an animated one: inherited by the element's descendants,
// or computed from its colour (currentcolor).
const INHERITED = new Set(['visibility', 'color', 'font-size', 'font-weight', 'color-scheme', 'text-shadow']);
const FROM_COLOUR = ['outline-color', 'text-shadow'];

function printPage() {
  const { all, roots } = pageElements();
  const count = all.length;
  const { animated, running } = animatedProperties(roots);
  if (animated.size) {
    // In document order, each parent (a shadow tree's host) before its children: what they
    // inherit is moving too.
    for (let i = 0; i < count; i += 1) {
      const el = all[i];
      const own = animated.get(el);
      const parent = el.parentElement || el.parentNode.host;
      const inherited = parent ? animated.get(parent) : undefined;
      if (!own && !inherited) {
        continue;
      }
      const names = new Set(own || []);
      for (const name of inherited || []) {
        if (INHERITED.has(name)) {
          names.add(name);
        }
      }
      if (names.has('color')) {
        FROM_COLOUR.forEach((name) => names.add(name));
      }
      animated.set(el, names);
    }
  }
  const prints = new Array(count);
  for (let i = 0; i < count; i += 1) {
    prints[i] = printOf(all[i], animated, running);
  }
  return { prints, total: count };
}

// Whether two prints of one element differ beyond the styles an animation changes in either.
function printsDiffer(before, now) {
  if (before === now) {
    return false;
  }
  const a = before.split('\u0001');
  const b = now.split('\u0001');
  if (a.length !== b.length) {
    return true;
  }
  for (let i = 0; i < a.length; i += 1) {
    if (a[i] !== b[i] && a[i] !== '~' && b[i] !== '~') {
      return true;
    }
  }
  return false;
}

function hashOf(prints, total) {
  let hash = 0x811c9dc5;
  for (const print of prints) {
    for (let i = 0; i < print.length; i += 1) {
      hash = Math.imul(hash ^ print.charCodeAt(i), 0x01000193);
    }
    hash = Math.imul(hash ^ 0x1e, 0x01000193);
  }
  return `${total}:${prints.length}:${(hash >>> 0).toString(16)}`;
}

let conditionPrint = null;

// The page as it renders now, kept as the default to compare with: { elements, hash, ms }. The
// hash stands for the whole print, to compare with another document of the same page.
export function conditionBaseline() {
  const start = performance.now();
  conditionPrint = printPage();
  return { elements: conditionPrint.total, hash: hashOf(conditionPrint.prints, conditionPrint.total),
    ms: performance.now() - start };
}

// Whether the page renders differently from the kept default, or, given `otherHash` (the hash of
// conditionBaseline in another document of the same page), from that one: { differs, changed,
// elements, first, viewport, ms }. `changed` counts the elements whose print differs (an element
// added or removed shifts the ones after it: all count); `first` describes the first few. Against
// another document only the whole print is compared (changed: 1 when it differs).
export function conditionDiffers(otherHash) {
  const start = performance.now();
  const now = printPage();
  const answer = (changed, first) => ({
    differs: changed > 0,
    changed,
    elements: now.total,
    first,
    viewport: [window.innerWidth, window.innerHeight],
    ms: performance.now() - start,
  });
  if (typeof otherHash === 'string') {
    return answer(hashOf(now.prints, now.total) === otherHash ? 0 : 1, []);
  }
  const before = conditionPrint || { prints: [], total: 0 };
  const first = [];
  let changed = Math.abs(now.prints.length - before.prints.length);
  const common = Math.min(now.prints.length, before.prints.length);
  for (let i = 0; i < common; i += 1) {
    if (printsDiffer(before.prints[i], now.prints[i])) {
      changed += 1;
      if (first.length < 5) {
        first.push(describeChange(before.prints[i], now.prints[i]));
      }
    }
  }
  if (now.total !== before.total && changed === 0) {
    changed = Math.abs(now.total - before.total);
  }
  return answer(changed, first);
}

// The element's tag and the first few of its printed parts that differ, for the record.
function describeChange(before, now) {
  const a = before.split('\u0001');
  const b = now.split('\u0001');
  if (a[0] !== b[0]) {
    return `<${a[0]}> became <${b[0]}>`;
  }
  const names = ['tag', 'box', ...PRINTED_STYLES];
  const parts = [];
  for (let i = 1; i < Math.max(a.length, b.length) && parts.length < 3; i += 1) {
    if (a[i] !== b[i]) {
      const what = i < names.length ? names[i] : 'content';
      parts.push(`${what}: ${String(a[i] ?? '').slice(0, 40)} -> ${String(b[i] ?? '').slice(0, 40)}`);
    }
  }
  return `<${b[0]}> ${parts.join('; ')}`;
}
