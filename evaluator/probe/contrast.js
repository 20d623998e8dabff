import { parentOf } from './elements.js';
import { decodePng, union } from './pixels.js';
import { settle } from './settle.js';
import { touched } from './tree.js';

// Colour contrast from pixels.
//
// A second opinion on axe's `color-contrast` failures and "can't tell" results, from the
// rendered pixels (docs/contrast.md). Everything here only reads: computed styles, layout
// boxes, and a screenshot the Python side takes through CDP and hands in as PNG data. The
// screenshot is decoded with createImageBitmap into an OffscreenCanvas, neither of which
// touches the document, so the page's scripts see no mutation, no new style sheet and no
// request. The only thing a page can see is the scroll position changing when text lies
// outside the first screen: the same scroll a reader makes to read it.

// The colour-contrast nodes of the last axe run, with the element each target names.
export let contrastSeen = [];

export function rememberContrast(result) {
  const seen = [];
  for (const [kind, items] of [['violation', result.violations], ['incomplete', result.incomplete]]) {
    for (const item of items) {
      if (item.id !== 'color-contrast') {
        continue;
      }
      for (const node of item.nodes) {
        const check = [...(node.any || []), ...(node.all || []), ...(node.none || [])]
          .find((c) => c.id === 'color-contrast') || {};
        const data = check.data || {};
        seen.push({
          // The element is looked up when the pixel check first asks (most runs never do).
          el: undefined,
          selector: node.target,
          kind,
          target: (node.target || []).map((t) => (Array.isArray(t) ? t.join(' ') : String(t))),
          ratio: typeof data.contrastRatio === 'number' && data.contrastRatio > 0 ? data.contrastRatio : null,
          reason: data.messageKey || null,
        });
      }
    }
  }
  contrastSeen = seen;
}

// Measure chosen elements instead of axe's nodes (the golden tests measure text axe passes
// too): they are listed as axe's "can't tell", with no ratio of axe's.
export function contrastChoose(selectors) {
  contrastSeen = selectors.map((selector) => ({
    el: document.querySelector(selector), kind: 'incomplete', target: [selector], ratio: null, reason: null,
  }));
  return contrastSeen.length;
}

// The text axe did not list (it passed it, or never looked: generated content, placeholders,
// SVG text, form values), appended to the list as `pass` nodes so that the pixels measure it too.
// Every element that draws text of its own, in document order.
const FORM_TEXT = /^(text|search|email|url|tel|number|password|date|time|datetime-local|month|week)$/;

function drawsText(el) {
  for (const child of el.childNodes) {
    if (child.nodeType === 3 && child.data.trim() !== '') {
      return true;
    }
  }
  const tag = el.localName;
  if (tag === 'textarea' || tag === 'select' || (tag === 'input' && FORM_TEXT.test(el.type))) {
    return (el.value || el.placeholder || (tag === 'select' && el.options.length > 0)) ? true : false;
  }
  if (tag === 'input' && /^(button|submit|reset)$/.test(el.type)) {
    return Boolean(el.value);
  }
  for (const pseudo of ['::before', '::after']) {
    const content = getComputedStyle(el, pseudo).content;
    if (content && content !== 'none' && content !== 'normal' && /[^\s"']/.test(content.replace(/^"|"$/g, ''))) {
      return true;
    }
  }
  return false;
}

function pathOf(el) {
  const parts = [];
  for (let node = el; node && node.nodeType === 1 && parts.length < 12; node = node.parentElement) {
    if (node.id && /^[A-Za-z][\w-]*$/.test(node.id)) {
      parts.unshift(`#${node.id}`);
      break;
    }
    const same = node.parentElement ? [...node.parentElement.children].filter((c) => c.localName === node.localName) : [];
    parts.unshift(same.length > 1 ? `${node.localName}:nth-of-type(${same.indexOf(node) + 1})` : node.localName);
  }
  return parts.join(' > ');
}

// Text whose painting axe reads from CSS as a person sees it: HTML text axe checked (not generated
// content, a placeholder, SVG text or disabled text, which it skips), drawn in its own colour
// (no text shadow, stroke or separate fill), under no filter, blend, mask or background image of
// its own or an ancestor's. Its axe pass is kept; the rest of the swept text is measured as
// painted. A page with anything that can repaint text axe does not see in its stacks (a
// backdrop filter or blend anywhere, a pseudo-element that paints a box, ::first-line or
// ::first-letter rules, a style sheet that cannot be read) has no plain text at all.
const PAINTS_ALONE = new Map();

function paintsAlone(node, running) {
  const known = PAINTS_ALONE.get(node);
  if (known !== undefined) {
    return known;
  }
  const s = getComputedStyle(node);
  const parent = parentOf(node);
  const own = s.filter === 'none' && s.mixBlendMode === 'normal' && s.backgroundImage === 'none'
    && (s.maskImage || s.webkitMaskImage || 'none') === 'none' && !running.has(node);
  const alone = own && (!parent || parent.nodeType !== 1 || paintsAlone(parent, running));
  PAINTS_ALONE.set(node, alone);
  return alone;
}

function plainText(el, style, running) {
  if (el.namespaceURI !== 'http://www.w3.org/1999/xhtml' || el.closest('svg, [aria-disabled="true" i]')
    || el.matches(':disabled') || el.closest('fieldset:disabled')) {
    return false;
  }
  const tag = el.localName;
  if ((tag === 'input' || tag === 'textarea') && el.placeholder) {
    return false;
  }
  if (style.textShadow !== 'none' || parseFloat(style.webkitTextStrokeWidth) > 0
    || (style.webkitTextFillColor && style.webkitTextFillColor !== style.color)) {
    return false;
  }
  for (const pseudo of ['::before', '::after']) {
    const content = getComputedStyle(el, pseudo).content;
    if (content && content !== 'none' && content !== 'normal') {
      return false;
    }
  }
  return paintsAlone(el, running);
}

// Whether anything on the page can change how text looks without axe seeing it in its element
// stacks: then no text of the page is plain.
const FIRST = /:first-(line|letter)/i;

// Paint that reaches past an element's border box (an outer or inset box shadow, an outline, a
// text shadow, a blur or drop-shadow filter, a reflection, an outset border image) lies over or
// under other elements' text where axe's element stacks, made of the boxes under a point, do not
// see it. Each such paint is kept as the rectangle it can reach (viewport coordinates) and the
// rectangle inside it that it leaves alone (or null); text whose own line boxes meet the paint is
// not plain. spillsOf adds the element's paint to `spills`, and says true when its reach cannot be
// bounded (an SVG filter, a 3D transform, a filtered element with hundreds of descendants): then
// no text of the page is plain.
function px(text) {
  return (String(text).match(/-?[\d.]+(?:e-?\d+)?px/g) || []).map((v) => parseFloat(v));
}

// Split a computed list (box-shadow, text-shadow) at its top-level commas.
function layers(text) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '(') {
      depth += 1;
    } else if (c === ')') {
      depth -= 1;
    } else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

// How much the element's transforms and zoom, its own and its ancestors', can stretch a length
// along either axis of the viewport (the largest row sum of each 2D matrix), or Infinity.
function stretch(el) {
  let factor = 1;
  for (let node = el; node && node.nodeType === 1; node = parentOf(node)) {
    const s = getComputedStyle(node);
    factor *= parseFloat(s.zoom) || 1;
    if (s.scale && s.scale !== 'none') {
      const [x, y = x] = s.scale.split(/\s+/).map((v) => Math.abs(parseFloat(v)) || 0);
      factor *= Math.max(x, y, 1);
    }
    if (s.transform && s.transform !== 'none') {
      let m;
      try {
        m = new DOMMatrixReadOnly(s.transform);
      } catch {
        return Infinity;
      }
      if (!m.is2D) {
        return Infinity;
      }
      factor *= Math.max(Math.abs(m.a) + Math.abs(m.c), Math.abs(m.b) + Math.abs(m.d), 1);
    }
  }
  return factor;
}

function grow(r, by) {
  return { left: r.left - by, top: r.top - by, right: r.right + by, bottom: r.bottom + by };
}

function shift(r, dx, dy) {
  return { left: r.left + dx, top: r.top + dy, right: r.right + dx, bottom: r.bottom + dy };
}

// The box of an element and of everything it draws (descendants overflowing it): what a filter or
// a reflection starts from. Past a few hundred descendants, unbounded.
function drawnBox(el) {
  const r = el.getBoundingClientRect();
  let out = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  const inner = el.querySelectorAll('*');
  if (inner.length > 400) {
    return null;
  }
  for (const child of inner) {
    const c = child.getBoundingClientRect();
    if (c.width > 0 || c.height > 0) {
      out = { left: Math.min(out.left, c.left), top: Math.min(out.top, c.top),
        right: Math.max(out.right, c.right), bottom: Math.max(out.bottom, c.bottom) };
    }
  }
  return out;
}

// How far a decoration of the element's text (a thick or far-moved underline, a line-through,
// emphasis marks, a stroke) reaches past its line boxes, or 0 for an ordinary one.
function decorationReach(s) {
  const size = parseFloat(s.fontSize) || 16;
  let reach = 0;
  if (s.textDecorationLine !== 'none') {
    const thickness = parseFloat(s.textDecorationThickness) || 0;
    const offset = Math.abs(parseFloat(s.textUnderlineOffset) || 0);
    if (thickness > Math.max(3, 0.2 * size) || offset > 0.5 * size) {
      reach = Math.max(reach, thickness + offset);
    }
  }
  if (s.textEmphasisStyle && s.textEmphasisStyle !== 'none') {
    reach = Math.max(reach, size);
  }
  return Math.max(reach, (parseFloat(s.webkitTextStrokeWidth) || 0) / 2);
}

function spillsOf(el, s, spills) {
  const shadow = s.boxShadow !== 'none';
  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
  // Text shadows and strokes are inherited: counted once, on the element that sets them.
  const decoration = decorationReach(s);
  const above = el.parentElement && (s.textShadow !== 'none' || decoration > 0)
    ? getComputedStyle(el.parentElement) : null;
  const textShadow = s.textShadow !== 'none' && (!above || above.textShadow !== s.textShadow);
  const decorated = decoration > 0 && (!above || decorationReach(above) !== decoration
    || s.textDecorationLine !== 'none');
  const filter = s.filter !== 'none' && /(blur|drop-shadow|url)\(/.test(s.filter);
  const reflect = (s.webkitBoxReflect || 'none') !== 'none';
  const image = s.borderImageSource !== 'none';
  if (!(shadow || outline || textShadow || decorated || filter || reflect || image)
    || s.visibility !== 'visible' || el.getClientRects().length === 0) {
    return false;
  }
  const k = stretch(el);
  if (k === Infinity) {
    return true;
  }
  const before = spills.length;
  const r = el.getBoundingClientRect();
  const box = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  if (shadow) {
    const radius = Math.max(0, ...px(s.borderRadius)) * k;
    for (const layer of layers(s.boxShadow)) {
      const [dx = 0, dy = 0, blur = 0, spread = 0] = px(layer);
      if (/\binset\b/.test(layer)) {
        // Inside the padding box, a band as deep as the shadow reaches from each edge.
        const depth = (Math.abs(dx) + Math.abs(dy) + Math.max(blur, 0) + Math.abs(spread)) * k;
        spills.push({ outer: box, hole: grow(box, -(depth + radius)) });
      } else {
        // Outside the border box (and in its rounded corners).
        const outer = grow(shift(box, dx * k, dy * k), (Math.max(blur, 0) + spread) * k);
        spills.push({ outer, hole: grow(box, -radius) });
      }
    }
  }
  if (outline) {
    const offset = (parseFloat(s.outlineOffset) || 0) * k;
    const width = parseFloat(s.outlineWidth) * k;
    // A focus ring (`auto`) is drawn a little past the width it is given.
    const extra = s.outlineStyle === 'auto' ? 2 * k : 0;
    spills.push({ outer: grow(box, offset + width + extra), hole: grow(box, Math.min(offset, 0) - extra) });
  }
  if (textShadow || decorated) {
    // The element's text (and its descendants'), with room for glyphs drawn past their line boxes.
    const range = document.createRange();
    range.selectNodeContents(el);
    const t = range.getBoundingClientRect();
    range.detach();
    const text = grow({ left: t.left, top: t.top, right: t.right, bottom: t.bottom },
      0.5 * (parseFloat(s.fontSize) || 16) * k);
    if (textShadow) {
      for (const layer of layers(s.textShadow)) {
        const [dx = 0, dy = 0, blur = 0] = px(layer);
        spills.push({ outer: grow(shift(text, dx * k, dy * k), Math.max(blur, 0) * k), hole: null });
      }
    }
    if (decorated) {
      spills.push({ outer: grow(text, decoration * k), hole: null });
    }
  }
  if (filter || reflect) {
    const drawn = drawnBox(el);
    if (drawn === null || /url\(/.test(s.filter)) {
      return true;
    }
    let reach = 0;
    if (filter) {
      for (const [, name, args] of s.filter.matchAll(/(blur|drop-shadow)\(((?:[^()]|\([^()]*\))*)\)/g)) {
        const v = px(args);
        reach += name === 'blur' ? 3 * (v[0] || 0) : Math.max(Math.abs(v[0] || 0), Math.abs(v[1] || 0)) + 3 * (v[2] || 0);
      }
    }
    if (reflect) {
      // Mirrored past one of its edges: at most its own size and the gap away.
      reach += Math.max(drawn.right - drawn.left, drawn.bottom - drawn.top) + Math.abs(px(s.webkitBoxReflect)[0] || 0);
    }
    spills.push({ outer: grow(drawn, reach * k), hole: null });
  }
  if (image) {
    const widths = [s.borderTopWidth, s.borderRightWidth, s.borderBottomWidth, s.borderLeftWidth].map(parseFloat);
    const outset = Math.max(0, ...String(s.borderImageOutset).split(/\s+/)
      .map((v) => (/px$/.test(v) ? parseFloat(v) : (parseFloat(v) || 0) * Math.max(...widths))));
    spills.push({ outer: grow(box, outset * k), hole: null });
  }
  // Paint fixed to the viewport lies over whatever text is scrolled under it: a quarter of the
  // viewport or more painted by it, and no text of the page is plain.
  return spills.length > before && pinned(el)
    && spills.slice(before).some(({ outer, hole }) => paintedInView(outer, hole) >= innerWidth * innerHeight / 4);
}

function pinned(el) {
  for (let node = el; node && node.nodeType === 1; node = parentOf(node)) {
    const position = getComputedStyle(node).position;
    if (position === 'fixed' || position === 'sticky') {
      return true;
    }
  }
  return false;
}

function paintedInView(outer, hole) {
  const area = (r) => Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0))
    * Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
  if (!hole) {
    return area(outer);
  }
  const inner = { left: Math.max(outer.left, hole.left), top: Math.max(outer.top, hole.top),
    right: Math.min(outer.right, hole.right), bottom: Math.min(outer.bottom, hole.bottom) };
  return area(outer) - (inner.right > inner.left && inner.bottom > inner.top ? area(inner) : 0);
}

// The line boxes of an element's own text (its text children with more than white space).
function ownTextRects(el) {
  const rects = [];
  const range = document.createRange();
  for (const child of el.childNodes) {
    if (child.nodeType === 3 && child.data.trim() !== '') {
      range.selectNodeContents(child);
      rects.push(...range.getClientRects());
    }
  }
  range.detach();
  return rects;
}

// Whether any of the spilled paint meets the element's own text (its line boxes, or its box for a
// form control's value).
function meetsSpill(el, spills) {
  const rects = ownTextRects(el);
  if (rects.length === 0) {
    rects.push(el.getBoundingClientRect());
  }
  for (const t of rects) {
    for (const { outer, hole } of spills) {
      const left = Math.max(t.left, outer.left);
      const top = Math.max(t.top, outer.top);
      const right = Math.min(t.right, outer.right);
      const bottom = Math.min(t.bottom, outer.bottom);
      if (right <= left || bottom <= top) {
        continue;
      }
      if (hole && left >= hole.left && top >= hole.top && right <= hole.right && bottom <= hole.bottom) {
        continue;
      }
      return true;
    }
  }
  return false;
}

function repaintsOthers(els, spills) {
  for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      return true;
    }
    const visit = (list, depth) => [...list].some((rule) => (rule.selectorText && FIRST.test(rule.selectorText))
      || (rule.cssRules && depth < 8 && visit(rule.cssRules, depth + 1)));
    if (rules && visit(rules, 0)) {
      return true;
    }
  }
  for (const el of els) {
    const s = getComputedStyle(el);
    if (s.backdropFilter !== 'none' || s.mixBlendMode !== 'normal') {
      return true;
    }
    if (spillsOf(el, s, spills)) {
      return true;
    }
    for (const pseudo of ['::before', '::after']) {
      const p = getComputedStyle(el, pseudo);
      if (p.content === 'none' || p.content === 'normal') {
        continue;
      }
      if (rgba(p.backgroundColor)[3] > 0 || p.backgroundImage !== 'none' || p.backdropFilter !== 'none'
        || p.boxShadow !== 'none' || p.filter !== 'none' || p.mixBlendMode !== 'normal'
        || (p.maskImage || p.webkitMaskImage || 'none') !== 'none'
        || (p.outlineStyle !== 'none' && parseFloat(p.outlineWidth) > 0)
        || (p.textShadow !== 'none' && /[^\s"']/.test(p.content.replace(/^"|"$/g, '')))
        || (p.webkitBoxReflect || 'none') !== 'none' || p.borderImageSource !== 'none') {
        return true;
      }
    }
  }
  return false;
}

export function contrastSweep(limit, screens, beyond) {
  const listed = new Set(contrastSeen.map((seen) => seen.el).filter(Boolean));
  for (const seen of contrastSeen) {
    if (seen.el === undefined) {
      try {
        seen.el = axe.utils.shadowSelect(seen.selector);
      } catch {
        seen.el = null;
      }
      if (seen.el) {
        listed.add(seen.el);
      }
    }
  }
  PAINTS_ALONE.clear();
  const running = runningTargets();
  const all = document.body ? [...document.body.querySelectorAll('*')] : [];
  const spills = [];
  // The root and the body paint over and under everything too (an inward outline on the body).
  const roots = [document.documentElement, document.body].filter(Boolean);
  const anyPlain = !roots.some((el) => spillsOf(el, getComputedStyle(el), spills)) && !repaintsOthers(all, spills);
  const found = [];
  let plain = 0;
  for (const el of all) {
    if (listed.has(el) || /^(script|style|noscript|template|title|option|optgroup)$/.test(el.localName)) {
      continue;
    }
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility !== 'visible') {
      continue;
    }
    if (drawsText(el)) {
      if (anyPlain && plainText(el, style, running) && !(spills.length > 0 && meetsSpill(el, spills))) {
        plain += 1;
      } else {
        found.push(el);
      }
    }
  }
  PAINTS_ALONE.clear();
  // All the text of the first `screens` screens of the document (to `limit`), and a sample the
  // page cannot predict (crypto random) of `beyond` elements further down.
  const reach = innerHeight * screens;
  const near = [];
  const far = [];
  for (const el of found) {
    (el.getBoundingClientRect().top + scrollY < reach ? near : far).push(el);
  }
  const chosen = [...randomSample(near, limit), ...randomSample(far, beyond)];
  for (const el of chosen) {
    contrastSeen.push({ el, kind: 'pass', target: [pathOf(el)], ratio: null, reason: null });
  }
  return { found: found.length + plain, plain, measured: chosen.length };
}

// Any CSS colour (rgb, hsl, oklch, color(...), named) as 8-bit sRGB with alpha, as the
// browser itself converts it: painted into a one-pixel canvas of our own.
let colourCanvas = null;
const colours = new Map();
function rgba(text) {
  const known = colours.get(text);
  if (known !== undefined) {
    return known;
  }
  if (colourCanvas === null) {
    colourCanvas = new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true });
  }
  colourCanvas.clearRect(0, 0, 1, 1);
  colourCanvas.fillStyle = '#000';
  colourCanvas.fillStyle = text;
  colourCanvas.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = colourCanvas.getImageData(0, 0, 1, 1).data;
  const colour = [r, g, b, a / 255];
  if (colours.size < 1000) {
    colours.set(text, colour);
  }
  return colour;
}

// The images this sample asked for and never got (requests the evaluator blocked: it renders
// offline), and whether that list was cut short. Text over such an image is painted on the colour
// under it instead: its pixels can fail it (a reader whose images do not load sees just that) but
// not pass it (a reader whose browser loads the image sees something else).
let blockedImages = { urls: new Set(), prefixes: [], all: false };

export function contrastBlocked(urls, full) {
  const whole = urls.filter((url) => url.length < 300);
  // The event log keeps 300 characters of a URL: a longer one is matched by its start.
  blockedImages = { urls: new Set(whole), prefixes: urls.filter((url) => url.length >= 300), all: Boolean(full) };
  return urls.length;
}

function neverLoaded(url) {
  const bare = url.split('#')[0];
  if (/^(data|blob|about):/i.test(bare)) {
    return false;
  }
  // Past the log's limit any image from the network may be one more blocked request.
  return blockedImages.all || blockedImages.urls.has(url) || blockedImages.urls.has(bare)
    || blockedImages.prefixes.some((prefix) => url.startsWith(prefix));
}

const URL_IN_CSS = /url\("((?:[^"\\]|\\.)*)"\)/g;

function imageMissing(node) {
  if (node.localName === 'img' || node.localName === 'input') {
    const src = node.currentSrc || node.src || '';
    if (src && neverLoaded(src)) {
      return true;
    }
  }
  for (const pseudo of [null, '::before', '::after']) {
    const image = getComputedStyle(node, pseudo).backgroundImage;
    if (image && image !== 'none') {
      for (const [, url] of image.matchAll(URL_IN_CSS)) {
        if (neverLoaded(url.replace(/\\(.)/g, '$1'))) {
          return true;
        }
      }
    }
  }
  return false;
}

// Whether an image that never loaded lies under the text: on it or an ancestor, down to the first
// opaque background, or on an element under the middle of one of its boxes in view.
function overMissingImage(el, boxes) {
  if (!blockedImages.all && blockedImages.urls.size === 0 && blockedImages.prefixes.length === 0) {
    return false;
  }
  for (let node = el; node && node.nodeType === 1; node = parentOf(node)) {
    if (imageMissing(node)) {
      return true;
    }
    if (rgba(getComputedStyle(node).backgroundColor)[3] >= 1) {
      break;
    }
  }
  for (const b of boxes) {
    const x = b.x + b.width / 2;
    const y = b.y + b.height / 2;
    if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight
      && el.getRootNode().elementsFromPoint(x, y).some(imageMissing)) {
      return true;
    }
  }
  return false;
}

// What the pixel check needs to know about one node now: its text's line boxes (viewport
// coordinates), its text colour and how it is composited, its size class, or why its pixels
// cannot say anything. Text under a running animation (one the settle did not see end: endless,
// or longer than its cap) is measured as painted at the moment of its capture; a page that
// repaints while it is captured is caught on the pixels (painted.py) and leaves the text undecided.
function contrastDescribe(seen) {
  if (seen.el === undefined) {
    try {
      seen.el = axe.utils.shadowSelect(seen.selector);
    } catch {
      seen.el = null;
    }
  }
  const el = seen.el;
  if (!el || !el.isConnected) {
    // `missed`: the text axe saw is gone from where the check looks, which a page can arrange
    // (it replaces its element on a timer); axe's "can't tell" there is not audited.
    return { unmeasurable: 'the element is no longer in the document', missed: true };
  }
  const style = getComputedStyle(el);
  const size = parseFloat(style.fontSize) || 0;
  const weight = parseInt(style.fontWeight, 10) || 400;
  const out = { font_size: size, font_weight: weight, large: size >= 24 || (weight >= 700 && size >= 18.66) };
  if (seen.reason === 'nonBmp') {
    return { ...out, unmeasurable: 'axe: icon-font or non-BMP characters, not text' };
  }
  if (style.visibility !== 'visible') {
    return { ...out, unmeasurable: 'the text is not visible (visibility)' };
  }
  const colour = rgba(style.color);
  const fill = style.webkitTextFillColor ? rgba(style.webkitTextFillColor) : colour;
  if (fill[3] === 0) {
    return { ...out, unmeasurable: 'the text has no colour of its own (transparent fill: gradient or image text)' };
  }
  let alpha = fill[3];
  let fixed = false;
  // Blended or filtered text: its colour as painted is not its own, and only captures with its
  // glyphs isolated can measure it.
  let blended = false;
  for (let node = el; node; node = parentOf(node)) {
    const s = node === el ? style : getComputedStyle(node);
    alpha *= parseFloat(s.opacity);
    if (s.mixBlendMode !== 'normal' || s.filter !== 'none') {
      blended = true;
    }
    if (s.position === 'fixed' || s.position === 'sticky') {
      fixed = true;
    }
  }
  if (alpha <= 0) {
    return { ...out, unmeasurable: 'the text is fully transparent (opacity)' };
  }
  let boxes = [];
  const range = document.createRange();
  for (const child of el.childNodes) {
    if (child.nodeType === 3 && child.data.trim() !== '') {
      range.selectNodeContents(child);
      for (const r of range.getClientRects()) {
        if (r.width > 0 && r.height > 0) {
          boxes.push({ x: r.x, y: r.y, width: r.width, height: r.height });
        }
      }
    }
  }
  range.detach();
  if (boxes.length === 0) {
    // Text the element draws itself (an <input>'s value): its content box holds it.
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) {
      boxes.push({ x: r.x, y: r.y, width: r.width, height: r.height });
    }
  }
  if (boxes.length === 0) {
    return { ...out, unmeasurable: 'the text has no size on the page' };
  }
  // Cut the boxes to what every clipping ancestor lets through.
  const whole = boxes.reduce((sum, b) => sum + b.width * b.height, 0);
  for (let node = parentOf(el); node && node !== document.documentElement && node !== document.body;
    node = parentOf(node)) {
    const s = getComputedStyle(node);
    if (s.overflowX === 'visible' && s.overflowY === 'visible' && s.clipPath === 'none' && s.clip === 'auto') {
      continue;
    }
    const c = node.getBoundingClientRect();
    boxes = boxes.map((b) => {
      const x0 = Math.max(b.x, c.x);
      const y0 = Math.max(b.y, c.y);
      const x1 = Math.min(b.x + b.width, c.x + c.width);
      const y1 = Math.min(b.y + b.height, c.y + c.height);
      return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
    }).filter((b) => b.width > 1 && b.height > 1);
  }
  const left = boxes.reduce((sum, b) => sum + b.width * b.height, 0);
  if (left < whole * 0.5) {
    return { ...out, unmeasurable: 'the text is clipped by an ancestor (overflow or clip)' };
  }
  // Cut to the document: what lies outside it can never be scrolled to.
  const docWidth = document.documentElement.scrollWidth;
  const docHeight = document.documentElement.scrollHeight;
  const inDoc = boxes.map((b) => {
    const x0 = Math.max(b.x + scrollX, 0);
    const y0 = Math.max(b.y + scrollY, 0);
    const x1 = Math.min(b.x + scrollX + b.width, docWidth);
    const y1 = Math.min(b.y + scrollY + b.height, docHeight);
    return { x: x0 - scrollX, y: y0 - scrollY, width: x1 - x0, height: y1 - y0 };
  }).filter((b) => b.width > 1 && b.height > 1);
  if (inDoc.reduce((sum, b) => sum + b.width * b.height, 0) < left * 0.5) {
    return { ...out, unmeasurable: 'the text is off the page' };
  }
  return {
    ...out,
    colour: fill.slice(0, 3),
    alpha,
    fixed,
    blended,
    covered: covered(el, inDoc),
    missing_image: overMissingImage(el, inDoc),
    boxes: inDoc,
  };
}

// Whether every box of the text that lies in the viewport has, at its middle, an element on top
// that is neither the text's element nor inside it nor around it (a skip link shown over the
// logo): the pixels there are that element's, not the text's. Boxes out of view are not judged.
function covered(el, boxes) {
  let judged = 0;
  for (const b of boxes) {
    const x = b.x + b.width / 2;
    const y = b.y + b.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) {
      continue;
    }
    judged += 1;
    const top = el.getRootNode().elementFromPoint(x, y);
    if (!top || top === el || el.contains(top) || top.contains(el)) {
      return false;
    }
  }
  return judged > 0;
}

function runningTargets() {
  const targets = new Set();
  for (const animation of document.getAnimations()) {
    if (animation.playState === 'running' && animation.effect && animation.effect.target) {
      targets.add(animation.effect.target);
    }
  }
  return targets;
}

// `count` of `list`'s items chosen at random (crypto random: the page cannot predict them), in
// the list's order; the whole list when it has no more.
function randomSample(list, count) {
  if (list.length <= count) {
    return list;
  }
  const keys = new Uint32Array(list.length);
  crypto.getRandomValues(keys);
  const order = [...list.keys()].sort((a, b) => keys[a] - keys[b]).slice(0, count).sort((a, b) => a - b);
  return order.map((i) => list[i]);
}

// Text drawn over or under another element's text: the glyph isolation fills every text at once,
// so the two are isolated together, and the window around a glyph finds the other text's pixels.
// Such text cannot be passed by the pixels (docs/contrast.md). Judged on the middle three fifths
// of each line box (the ascent and descent of a font leave room that adjacent lines share), for
// the text of each listed element against every visible, unclipped text node of another element.
const OVERLAP = 0.05;
const BAND = 64;

function middle(r) {
  return { left: r.left, right: r.right, top: r.top + 0.2 * r.height, bottom: r.bottom - 0.2 * r.height };
}

// Where an element's text can be painted: the part of the viewport its clipping ancestors and
// itself let through (null: anywhere), or false when it is not painted at all (transparent, not
// displayed). Kept per element for one listing.
function paintArea(node, known) {
  if (!node || node.nodeType !== 1 || node === document.documentElement || node === document.body) {
    return null;
  }
  if (known.has(node)) {
    return known.get(node);
  }
  const s = getComputedStyle(node);
  let area = paintArea(parentOf(node), known);
  if (area !== false && (parseFloat(s.opacity) === 0 || s.display === 'none')) {
    area = false;
  }
  if (area !== false
    && !(s.overflowX === 'visible' && s.overflowY === 'visible' && s.clipPath === 'none' && s.clip === 'auto')) {
    const c = node.getBoundingClientRect();
    area = area === null ? { left: c.left, top: c.top, right: c.right, bottom: c.bottom }
      : { left: Math.max(area.left, c.left), top: Math.max(area.top, c.top),
        right: Math.min(area.right, c.right), bottom: Math.min(area.bottom, c.bottom) };
  }
  known.set(node, area);
  return area;
}

// The middles of the line boxes `rects` of an element's own text that are painted: visible, and
// not clipped away (a visually hidden label lays its words out in a box of one pixel).
function paintedRects(el, rects, known) {
  if (getComputedStyle(el).visibility !== 'visible') {
    return [];
  }
  const area = paintArea(el, known);
  return area === false ? [] : rects.filter((r) => r.width > 1 && r.height > 1 && (area === null
    || (Math.min(r.right, area.right) - Math.max(r.left, area.left) > 1
      && Math.min(r.bottom, area.bottom) - Math.max(r.top, area.top) > 1))).map(middle);
}

function textRects(el, known) {
  return paintedRects(el, ownTextRects(el), known);
}

// Whether an opaque background lies between two elements' text at (x, y), in the upper one or
// under it (a menu opened over the page's text hides the text below it). Unknown (out of view, or
// an element the point does not hit) is not apart.
function apart(a, b, x, y) {
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) {
    return false;
  }
  const stack = document.elementsFromPoint(x, y);
  const ia = stack.indexOf(a);
  const ib = stack.indexOf(b);
  if (ia < 0 || ib < 0) {
    return false;
  }
  for (let i = Math.min(ia, ib); i < Math.max(ia, ib); i += 1) {
    if (rgba(getComputedStyle(stack[i]).backgroundColor)[3] >= 1) {
      let opacity = 1;
      for (let node = stack[i]; node && node.nodeType === 1; node = parentOf(node)) {
        opacity *= parseFloat(getComputedStyle(node).opacity);
      }
      if (opacity >= 1) {
        return true;
      }
    }
  }
  return false;
}

function overTextOf(listed) {
  const mine = new Map();
  const bands = new Map();
  const known = new Map();
  for (const el of listed) {
    const rects = textRects(el, known);
    if (rects.length === 0) {
      continue;  // a form control's value: its box is not its text's (a floating label lies over it)
    }
    mine.set(el, rects);
    for (const r of rects) {
      for (let b = Math.floor(r.top / BAND); b <= Math.floor(r.bottom / BAND); b += 1) {
        if (!bands.has(b)) {
          bands.set(b, []);
        }
        bands.get(b).push([el, r]);
      }
    }
  }
  const met = new Map();
  if (mine.size === 0) {
    return met;
  }
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  const on = (top, bottom) => {
    for (let b = Math.floor(top / BAND); b <= Math.floor(bottom / BAND); b += 1) {
      if (bands.has(b)) {
        return true;
      }
    }
    return false;
  };
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const owner = text.parentElement;
    if (!owner || text.data.trim() === ''
      || /^(script|style|noscript|template|title|textarea|option)$/.test(owner.localName)) {
      continue;
    }
    range.selectNodeContents(text);
    // Only text on a listed text's lines is looked at more closely.
    const near = [...range.getClientRects()].filter((raw) => on(raw.top, raw.bottom));
    if (near.length === 0) {
      continue;
    }
    for (const r of paintedRects(owner, near, known)) {
      const seen = new Set();
      for (let b = Math.floor(r.top / BAND); b <= Math.floor(r.bottom / BAND); b += 1) {
        for (const [el, m] of bands.get(b) || []) {
          if (el === owner || seen.has(m)) {
            continue;
          }
          seen.add(m);
          const w = Math.min(r.right, m.right) - Math.max(r.left, m.left);
          const h = Math.min(r.bottom, m.bottom) - Math.max(r.top, m.top);
          if (w > 1 && h > 1 && !apart(el, owner, Math.max(r.left, m.left) + w / 2, Math.max(r.top, m.top) + h / 2)) {
            met.set(el, (met.get(el) || 0) + w * h);
          }
        }
      }
    }
  }
  range.detach();
  const out = new Set();
  for (const [el, area] of met) {
    const whole = mine.get(el).reduce((sum, r) => sum + (r.right - r.left) * (r.bottom - r.top), 0);
    if (area >= OVERLAP * whole) {
      out.add(el);
    }
  }
  return out;
}

// The nodes of the last axe run as the Python side plans its captures: boxes in document
// coordinates (viewport ones for fixed and sticky text, which moves with the viewport).
export function contrastNodes(limit) {
  const axeNodes = contrastSeen.filter((seen) => seen.kind !== 'pass');
  // Past the limit, which of axe's nodes are measured is drawn at random, not taken in document
  // order: the page cannot put its failure where the check never looks. The rest leave the list
  // (they keep axe's answer and are counted); the swept text stays.
  const kept = randomSample(axeNodes, limit);
  contrastSeen = [...kept, ...contrastSeen.filter((seen) => seen.kind === 'pass')];
  const count = (list, kind) => list.filter((seen) => seen.kind === kind).length;
  const nodes = contrastSeen.map((seen) => [seen, contrastDescribe(seen)]);
  const tangled = overTextOf(nodes.filter(([seen, d]) => d.boxes && seen.el).map(([seen]) => seen.el));
  for (const seen of contrastSeen) {
    seen.overText = Boolean(seen.el && tangled.has(seen.el));
  }
  return {
    scroll: [scrollX, scrollY],
    document: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    total: axeNodes.length,
    violations: count(axeNodes, 'violation'),
    left_violations: count(axeNodes, 'violation') - count(kept, 'violation'),
    left_incomplete: count(axeNodes, 'incomplete') - count(kept, 'incomplete'),
    nodes: nodes.map(([seen, d], index) => {
      const node = {
        index,
        kind: seen.kind,
        target: seen.target,
        axe_ratio: seen.ratio,
        axe_reason: seen.reason,
        large: d.large === undefined ? null : d.large,
        unmeasurable: d.unmeasurable || null,
        missed: Boolean(d.missed),
      };
      if (d.boxes) {
        const dx = d.fixed ? 0 : scrollX;
        const dy = d.fixed ? 0 : scrollY;
        node.fixed = d.fixed;
        node.box = union(d.boxes.map((b) => ({ x: b.x + dx, y: b.y + dy, width: b.width, height: b.height })));
      }
      return node;
    }),
  };
}

// The part of the viewport the given nodes' text covers now, in whole pixels, or null.
export function contrastClip(indices) {
  const boxes = [];
  for (const index of indices) {
    const d = contrastDescribe(contrastSeen[index]);
    if (d.boxes) {
      boxes.push(...d.boxes);
    }
  }
  if (boxes.length === 0) {
    return null;
  }
  const u = union(boxes);
  const x0 = Math.max(Math.floor(u.x) - 2, 0);
  const y0 = Math.max(Math.floor(u.y) - 2, 0);
  const x1 = Math.min(Math.ceil(u.x + u.width) + 2, innerWidth);
  const y1 = Math.min(Math.ceil(u.y + u.height) + 2, innerHeight);
  // sx, sy: where the viewport is in the document, for the capture (CDP clips in page coordinates).
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0, sx: scrollX, sy: scrollY } : null;
}

// Scroll as a reader would (instantly, whatever scroll-behavior says), let the page draw, and
// return the clip of the nodes' text. `restore` only scrolls back.
export function contrastScrollTo(x, y, indices) {
  window.scrollTo({ left: x, top: y, behavior: 'instant' });
  touched();
  return settle(0).then(() => (indices === null ? true : contrastClip(indices)));
}

// Does the page style a dark colour scheme? A prefers-color-scheme media rule (also inside
// @supports, @layer and @container), a color-scheme that offers dark, or light-dark().
export function stylesDarkScheme() {
  const meta = document.querySelector('meta[name="color-scheme" i]');
  if (meta && /\bdark\b/i.test(meta.getAttribute('content') || '')) {
    return true;
  }
  if (/\bdark\b/.test(getComputedStyle(document.documentElement).colorScheme || '')) {
    return true;
  }
  const sheets = [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
  const visit = (rules, depth) => {
    for (const rule of rules) {
      if (rule.media && /prefers-color-scheme\s*:\s*dark/i.test(rule.media.mediaText || '')) {
        return true;
      }
      const text = rule.style ? rule.style.cssText : '';
      if (/color-scheme\s*:[^;]*\bdark\b/i.test(text) || /light-dark\(/i.test(text)) {
        return true;
      }
      if (rule.cssRules && depth < 8 && visit(rule.cssRules, depth + 1)) {
        return true;
      }
    }
    return false;
  };
  for (const sheet of sheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      rules = null;  // a cross-origin sheet cannot be read (and cannot load here anyway)
    }
    if (sheet.media && /prefers-color-scheme\s*:\s*dark/i.test(sheet.media.mediaText || '')) {
      return true;
    }
    if (rules && visit(rules, 0)) {
      return true;
    }
  }
  for (const el of document.querySelectorAll('[style*="color-scheme" i], [style*="light-dark" i]')) {
    if (/dark/i.test(el.getAttribute('style'))) {
      return true;
    }
  }
  return false;
}

// Decode a screenshot of `clip` (viewport coordinates, PNG as base64) and hand back its RGBA
// pixels (base64) with what the Python side needs to measure each node on them: its text's
// line boxes now, its colour and compositing, or why it cannot be measured. Decoding is done
// by the browser's own image decoder into an OffscreenCanvas, outside the document; the
// arithmetic is done in Python (numpy), since this world's JavaScript runs on V8's baseline
// compiler only (browser.py) and is slow at per-pixel loops.
//
// `pngs`: the page's capture, then, when the glyphs could be isolated, the same clip with every
// text's fill black and white (engine/paint.py); each box's crops follow one
// another in that order.
//
// `isolating`: the captures with the glyphs isolated are still to come (the page's own is decoded
// first, to find text painted as when it was last measured).
export async function contrastPixels(pngs, clip, indices, isolating = false) {
  const images = [];
  for (const png of pngs) {
    images.push(await decodePng(png));
  }
  const { width, height } = images[0];
  const isolated = images.length > 1 || isolating;
  // Only the text's line boxes go back (RGBA, row by row): a screen's worth is megabytes, and
  // it travels through the driver to Python.
  const nodes = [];
  const crops = [];
  let size = 0;
  for (const index of indices) {
    const d = contrastDescribe(contrastSeen[index]);
    let why = d.unmeasurable;
    if (!why && !isolated && d.blended) {
      why = 'the text is blended or filtered (mix-blend-mode, filter)';
    } else if (!why && !isolated && d.covered) {
      why = 'the text is covered by another element';
    }
    if (why) {
      nodes.push({ index, unmeasurable: why, missed: Boolean(d.missed) });
      continue;
    }
    const boxes = [];
    for (const b of d.boxes) {
      const x0 = Math.max(Math.floor(b.x - clip.x), 0);
      const y0 = Math.max(Math.floor(b.y - clip.y), 0);
      const x1 = Math.min(Math.ceil(b.x + b.width - clip.x), width);
      const y1 = Math.min(Math.ceil(b.y + b.height - clip.y), height);
      if (x1 - x0 < 2 || y1 - y0 < 2) {
        continue;
      }
      boxes.push({ offset: size, width: x1 - x0, height: y1 - y0, images: images.length });
      for (const { data: pixels } of images) {
        const crop = new Uint8Array((x1 - x0) * (y1 - y0) * 4);
        for (let y = y0; y < y1; y += 1) {
          crop.set(pixels.subarray((y * width + x0) * 4, (y * width + x1) * 4), (y - y0) * (x1 - x0) * 4);
        }
        crops.push(crop);
        size += crop.length;
      }
    }
    nodes.push({
      index, colour: d.colour, alpha: d.alpha, font_size: d.font_size, large: d.large, blended: d.blended,
      covered: d.covered, missing_image: d.missing_image, over_text: Boolean(contrastSeen[index].overText), boxes,
    });
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const crop of crops) {
    all.set(crop, at);
    at += crop.length;
  }
  let rgb;
  if (typeof all.toBase64 === 'function') {
    rgb = all.toBase64();
  } else {
    const chunks = [];
    for (let i = 0; i < all.length; i += 0x8000) {
      chunks.push(String.fromCharCode.apply(null, all.subarray(i, i + 0x8000)));
    }
    rgb = btoa(chunks.join(''));
  }
  return { rgba: rgb, nodes };
}
