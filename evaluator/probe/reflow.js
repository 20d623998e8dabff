import { parentOf } from './elements.js';
import { refOf } from './refs.js';

// Reflow at a narrow width.

// Content that may need two dimensions at any width (WCAG 1.4.10's exceptions: data tables,
// code, images, maps, diagrams, video, games): what overflows inside it is not reported.
const TWO_DIMENSIONAL = 'table, pre, code, kbd, samp, img, picture, svg, canvas, video, iframe, object, embed, '
  + 'math, [role="table"], [role="grid"], [role="treegrid"], [role="img"], [role="application"]';

// Elements holding text of their own (or a form control) whose box the layout put beyond the
// viewport's right edge, now: cut off, or reachable only by scrolling sideways. An element wholly
// beyond the edge counts only when the document scrolls sideways (an off-canvas menu kept out of
// view is not content). A horizontally scrolling container that fits the viewport and is not the
// page's main content (a row of chips, a toolbar) may hold what it scrolls to. At most `limit`,
// widest first, with the document's width.
function contentBox(el) {
  const r = el.getBoundingClientRect();
  const s = getComputedStyle(el);
  const left = r.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft);
  const right = r.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight);
  return { left, right, width: right - left, height: r.height };
}

export function overflowingText(limit) {
  const width = document.documentElement.clientWidth;
  const scrolls = document.documentElement.scrollWidth > width + 1;
  const found = [];
  const exemptScroller = (el) => {
    for (let node = parentOf(el); node && node !== document.body && node !== document.documentElement;
      node = parentOf(node)) {
      const overflow = getComputedStyle(node).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') {
        const box = node.getBoundingClientRect();
        const holdsPage = node.querySelector('main, [role="main"], h1') !== null;
        return box.right <= width + 1 && box.left >= -1 && !holdsPage;
      }
    }
    return false;
  };
  const range = document.createRange();
  // Where the element's own text is laid out (an unbreakable word runs past its box), or the
  // content box of a form control (its padding and border hold no text).
  const extent = (el) => {
    if (el.matches('input:not([type="hidden" i]), select, textarea')) {
      return contentBox(el);
    }
    let box = null;
    for (const node of el.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE || node.data.trim() === '') {
        continue;
      }
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) {
        box = box === null ? { left: r.left, right: r.right, width: r.width, height: r.height }
          : { left: Math.min(box.left, r.left), right: Math.max(box.right, r.right), width: 2, height: 2 };
      }
    }
    // A button's padding holds nothing: its text is judged, or its content box when it has none.
    return box === null && el.localName === 'button' ? contentBox(el) : box;
  };
  // Where the glyphs of the element's own text end: the right edge of its last visible character
  // on any line. A line's box may reach further than its glyphs: a space left hanging at the
  // end of a line, the letter-spacing after the last letter.
  const glyphsRight = (el) => {
    const spacing = Math.max(parseFloat(getComputedStyle(el).letterSpacing) || 0, 0);
    let right = -Infinity;
    for (const node of el.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE) {
        continue;
      }
      for (const word of node.data.matchAll(/\S+/g)) {
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        for (const r of range.getClientRects()) {
          if (r.width > 0 && r.height > 0) {
            right = Math.max(right, r.right - spacing);
          }
        }
      }
    }
    return right;
  };
  const fixed = (el) => {
    for (let node = el; node; node = parentOf(node)) {
      if (getComputedStyle(node).position === 'fixed') {
        return true;
      }
    }
    return false;
  };
  for (const el of document.body ? document.body.getElementsByTagName('*') : []) {
    const rect = extent(el);
    if (rect === null || rect.right <= width + 1 || rect.width < 2 || rect.height < 2 || rect.right <= 0) {
      continue;
    }
    // Past the edge by its box: judged by its glyphs (form controls by their content box).
    if (!el.matches('input, select, textarea')) {
      const right = glyphsRight(el);
      if (right !== -Infinity) {
        if (right <= width + 1) {
          continue;
        }
        rect.right = right;
      }
    }
    // Wholly out of view and out of reach: an off-canvas menu, not content.
    if (rect.left >= width && (!scrolls || fixed(el))) {
      continue;
    }
    if (el.closest(TWO_DIMENSIONAL) || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) {
      continue;
    }
    if (exemptScroller(el)) {
      continue;
    }
    // What the element itself draws: a box made wide by its own width or by an unbreakable word.
    found.push({ ref: refOf(el), left: Math.round(rect.left), right: Math.round(rect.right),
      text: (el.innerText || el.value || '').trim().replace(/\s+/g, ' ').slice(0, 60) });
  }
  found.sort((a, b) => b.right - a.right);
  return {
    width,
    document_width: document.documentElement.scrollWidth,
    scrolls,
    total: found.length,
    elements: found.slice(0, limit),
  };
}
