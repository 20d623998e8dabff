import { parentOf } from './elements.js';
import { refOf } from './refs.js';

// Reflow at a narrow width.

// Content that may need two dimensions at any width (WCAG 1.4.10's exceptions: data tables,
// code, images, maps, diagrams, video, games): what overflows inside it is not reported.
const TWO_DIMENSIONAL = 'table, pre, code, kbd, samp, img, picture, svg, canvas, video, iframe, object, embed, '
  + 'math, [role="grid"], [role="treegrid"], [role="img"], [role="application"]';

// Elements holding text of their own (or a form control) whose box the layout put beyond the
// viewport's right edge, now: cut off, or reachable only by scrolling sideways. An element wholly
// beyond the edge counts only when the document scrolls sideways (an off-canvas menu kept out of
// view is not content). A horizontally scrolling container that fits the viewport and is not the
// page's main content (a row of chips, a toolbar) may hold what it scrolls to. At most `limit`,
// widest first, with the document's width.
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
  // Where the element's own text is drawn (an unbreakable word runs past its box), or its box
  // for a form control.
  const extent = (el) => {
    if (el.matches('input:not([type="hidden" i]), select, textarea, button')) {
      return el.getBoundingClientRect();
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
    return box;
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
