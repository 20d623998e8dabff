import { element, refOf } from './refs.js';
import { virtual, withAxe } from './tree.js';

// What one element is to a person and to assistive technology (role, name, visibility, state,
// place in the document), as the checks ask for it.

// The page's elements in document order, each shadow tree's right after its host (open trees,
// and closed ones opened to our world), and the document and shadow roots they were found in.
export function pageElements() {
  const all = [];
  const roots = [];
  const visit = (root) => {
    roots.push(root);
    const found = root.querySelectorAll('*');
    for (let i = 0; i < found.length; i += 1) {
      all.push(found[i]);
      if (found[i].shadowRoot) {
        visit(found[i].shadowRoot);
      }
    }
  };
  visit(document);
  return { all, roots };
}

// Elements that can take focus at all; axe decides whether each one really does.
export const FOCUS_CANDIDATES = 'a[href], area[href], button, input, select, textarea, summary, iframe, '
  + '[tabindex], [contenteditable]';

const LANDMARK_ROLES = new Set([
  'banner', 'complementary', 'contentinfo', 'form', 'main', 'navigation', 'region', 'search',
]);
const STATE_ATTRIBUTES = [
  'aria-expanded', 'aria-checked', 'aria-selected', 'aria-pressed', 'aria-current',
  'aria-disabled', 'aria-hidden', 'aria-modal', 'aria-valuenow', 'aria-valuemin',
  'aria-valuemax', 'aria-valuetext', 'aria-orientation', 'aria-controls', 'aria-haspopup',
  'aria-activedescendant', 'aria-invalid', 'aria-required', 'aria-live', 'aria-level',
  'aria-sort', 'aria-multiselectable', 'aria-readonly', 'aria-describedby', 'aria-labelledby',
  'aria-label', 'aria-owns', 'aria-busy', 'aria-atomic', 'aria-setsize', 'aria-posinset',
  'aria-rowindex', 'aria-colindex', 'aria-autocomplete', 'aria-errormessage',
  'role', 'tabindex', 'hidden', 'inert', 'open', 'href', 'type', 'name', 'id', 'class',
  'for', 'alt', 'title', 'lang', 'scope', 'headers', 'autocomplete', 'required', 'disabled',
];

// `inner` is `outer` or inside it (in the same tree: shadow roots are not crossed).
export function isWithin(outer, inner) {
  return inner !== null && (outer === inner || outer.contains(inner));
}

export function deepActive() {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) {
    el = el.shadowRoot.activeElement;
  }
  if (!el || el === document.body || el === document.documentElement) {
    return null;
  }
  return el;
}

export function isVisible(el) {
  if (!el.isConnected) {
    return false;
  }
  if (typeof el.checkVisibility === 'function' &&
      !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) {
    return false;
  }
  const rect = el.getBoundingClientRect();
  if (rect.width <= 0 || rect.height <= 0) {
    return false;
  }
  // axe's own judgement of what a sighted user can see: it also catches content moved off the
  // page (left: -9999px), clipped away (the visually-hidden pattern) or cut off by an
  // ancestor's overflow: hidden.
  return withAxe(() => axe.commons.dom.isVisibleOnScreen(virtual(el)));
}

export function isHiddenFromAT(el) {
  if (!el.isConnected) {
    return true;
  }
  for (let node = el; node; node = node.parentElement || (node.getRootNode && node.getRootNode().host)) {
    if (node.nodeType === 1 && (node.hasAttribute('inert') || node.inert)) {
      return true;
    }
  }
  return withAxe(() => !axe.commons.dom.isVisibleToScreenReaders(virtual(el)));
}

export function isFocusable(el) {
  return withAxe(() => axe.commons.dom.isFocusable(el));
}

export function roleOf(el) {
  return withAxe(() => axe.commons.aria.getRole(el, { dpub: true }) || null);
}

export function nameOf(el) {
  return withAxe(() => {
    const text = axe.commons.text.accessibleTextVirtual(virtual(el));
    return axe.commons.text.sanitize(text || '');
  });
}

function attributes(el) {
  const out = {};
  for (const name of STATE_ATTRIBUTES) {
    if (el.hasAttribute(name)) {
      out[name] = el.getAttribute(name);
    }
  }
  for (const attr of el.attributes) {
    if (attr.name.startsWith('data-') && Object.keys(out).length < 80) {
      out[attr.name] = attr.value;
    }
  }
  return out;
}

function properties(el) {
  const out = {};
  for (const name of ['checked', 'indeterminate', 'disabled', 'value', 'open', 'selectedIndex', 'readOnly', 'required']) {
    if (name in el) {
      const value = el[name];
      if (['string', 'number', 'boolean'].includes(typeof value)) {
        out[name] = typeof value === 'string' ? value.slice(0, 500) : value;
      }
    }
  }
  if (el.matches && el.tagName === 'DIALOG') {
    out.modal = el.matches(':modal');
  }
  return out;
}

export function describe(el) {
  if (!el) {
    return null;
  }
  if (!el.isConnected) {
    // The page removed it: say so instead of failing (axe has no virtual node for it).
    return {
      ref: refOf(el), tag: el.tagName.toLowerCase(), role: null, name: '', text: '',
      attributes: attributes(el), properties: {}, visible: false, hidden_from_at: true,
      focusable: false, rect: { x: 0, y: 0, width: 0, height: 0 }, connected: false,
    };
  }
  const rect = el.getBoundingClientRect();
  return withAxe(() => {
    const vnode = virtual(el);
    return {
      ref: refOf(el),
      tag: el.tagName.toLowerCase(),
      role: axe.commons.aria.getRole(el, { dpub: true }) || null,
      name: axe.commons.text.sanitize(axe.commons.text.accessibleTextVirtual(vnode) || ''),
      text: (el.innerText || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 500),
      attributes: attributes(el),
      properties: properties(el),
      visible: isVisible(el),
      hidden_from_at: el.closest('[inert]') !== null || !axe.commons.dom.isVisibleToScreenReaders(vnode),
      focusable: axe.commons.dom.isFocusable(el),
      rect: { x: rect.x, y: rect.y, width: rect.width, height: rect.height },
      connected: el.isConnected,
    };
  });
}

export function queryAll(selector, rootRef) {
  const root = rootRef ? element(rootRef) : document;
  return Array.from(root.querySelectorAll(selector));
}

function allElements() {
  return Array.from(document.querySelectorAll('body *'));
}

export function byRole(role) {
  const wanted = new Set(Array.isArray(role) ? role : [role]);
  return withAxe(() => allElements().filter((el) => wanted.has(axe.commons.aria.getRole(el, { dpub: true }))));
}

export function headings() {
  return withAxe(() => allElements()
    .filter((el) => axe.commons.aria.getRole(el) === 'heading')
    .filter((el) => axe.commons.dom.isVisibleToScreenReaders(virtual(el)))
    .map((el) => {
      const explicit = parseInt(el.getAttribute('aria-level') || '', 10);
      const match = /^h([1-6])$/i.exec(el.tagName);
      const level = Number.isFinite(explicit) && explicit > 0 ? explicit : (match ? Number(match[1]) : 2);
      return { ref: refOf(el), level, name: axe.commons.text.sanitize(axe.commons.text.accessibleTextVirtual(virtual(el)) || '') };
    }));
}

export function landmarks() {
  return withAxe(() => allElements()
    .map((el) => ({ el, role: axe.commons.aria.getRole(el) }))
    .filter(({ el, role }) => LANDMARK_ROLES.has(role) && axe.commons.dom.isVisibleToScreenReaders(virtual(el)))
    .map(({ el, role }) => ({
      ref: refOf(el),
      role,
      name: axe.commons.text.sanitize(axe.commons.text.accessibleTextVirtual(virtual(el)) || ''),
    })));
}

export function focusStyle(el) {
  const style = getComputedStyle(el);
  return {
    outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
    box_shadow: style.boxShadow,
    border: `${style.borderTopStyle} ${style.borderTopWidth} ${style.borderTopColor}`,
    background: style.backgroundColor,
    color: style.color,
    text_decoration: style.textDecorationLine,
  };
}

// The value a range widget reports (meter, progressbar, slider, separator, spinbutton):
// ARIA attributes win, as they do in the browser's accessibility tree; native <meter>,
// <progress> and <input type=range|number> fall back to their properties, whose defaults
// (min 0, max 1 or 100) never show up as attributes.
export function rangeValue(el) {
  const number = (text) => {
    if (text === null || text === undefined || String(text).trim() === '') {
      return null;
    }
    const value = Number(text);
    return Number.isFinite(value) ? value : null;
  };
  const tag = el.tagName.toLowerCase();
  const isNative = tag === 'meter' || tag === 'progress' ||
    (tag === 'input' && ['range', 'number'].includes((el.type || '').toLowerCase()));
  const native = (name) => (isNative && name in el ? number(el[name]) : null);
  const aria = (name) => number(el.getAttribute(`aria-value${name}`));
  const pick = (name, nativeName) => {
    const fromAria = aria(name);
    return fromAria !== null ? fromAria : native(nativeName);
  };
  const isRange = tag === 'input' && (el.type || '').toLowerCase() === 'range';
  const min = tag === 'progress' && aria('min') === null ? 0 : pick('min', 'min');
  const max = pick('max', 'max');
  return {
    now: pick('now', 'value'),
    min: min === null && isRange ? 0 : min,
    max: max === null && isRange ? 100 : max,
    text: el.getAttribute('aria-valuetext'),
    native: isNative,
  };
}

// What a person meets in the main content before a skip link's target: the first text or
// replaced element (image, control, frame) between the start of `region` and the target (or,
// for a target just before the region, between the two), described in a few words; null when
// there is none. Navigation landmarks (breadcrumbs at the top of main) and what assistive
// technology does not present are passed over.
const CONTENT_LEAVES = new Set(['IMG', 'SVG', 'VIDEO', 'CANVAS', 'INPUT', 'BUTTON', 'SELECT', 'TEXTAREA',
  'IFRAME', 'OBJECT', 'EMBED', 'AUDIO']);
export function contentBefore(target, region) {
  if (target === region || target.contains(region)) {
    return null;
  }
  const range = document.createRange();
  if (region.contains(target)) {
    range.setStart(region, 0);
    range.setEndBefore(target);
  } else if (target.compareDocumentPosition(region) & Node.DOCUMENT_POSITION_FOLLOWING) {
    range.setStartAfter(target);
    range.setEndBefore(region);
  } else {
    return 'the target comes after the main content';
  }
  const root = range.commonAncestorContainer;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let node = walker.currentNode; node; node = walker.nextNode()) {
    if (node === root || !range.intersectsNode(node) || node.contains(target) || node.contains(region)) {
      continue;
    }
    const el = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
    const isLeaf = node.nodeType === Node.TEXT_NODE ? node.data.trim() !== '' : CONTENT_LEAVES.has(el.tagName.toUpperCase());
    if (!isLeaf || el.closest('nav, [role="navigation"], script, style, template, noscript') || isHiddenFromAT(el)) {
      continue;
    }
    if (node.nodeType === Node.TEXT_NODE) {
      return `the text "${node.data.trim().replace(/\s+/g, ' ').slice(0, 60)}"`;
    }
    return `<${el.tagName.toLowerCase()}>`;
  }
  return null;
}

// Drawn with a size on the page (an element with display: contents by what it holds), and not
// hidden with visibility: a mouse can point at it.
export function rendered(el) {
  if (!el.isConnected) {
    return false;
  }
  if (getComputedStyle(el).display === 'contents') {
    return Array.from(el.children).some(rendered);
  }
  if (!el.checkVisibility({ visibilityProperty: true })) {
    return false;
  }
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

// The node's parent element, across a shadow root to its host.
export function parentOf(node) {
  if (node.parentElement) {
    return node.parentElement;
  }
  const root = node.getRootNode && node.getRootNode();
  return root && root.host ? root.host : null;
}
