import { rendered } from './elements.js';
import { decodePng, union } from './pixels.js';
import { element } from './refs.js';

// Tab stops and their focus indicator.

const TEXT_ENTRY = 'textarea, [contenteditable]:not([contenteditable="false" i]), input:not([type]), '
  + 'input:is([type="text" i], [type="search" i], [type="email" i], [type="url" i], [type="tel" i], '
  + '[type="password" i], [type="number" i], [type="date" i], [type="time" i], [type="datetime-local" i], '
  + '[type="month" i], [type="week" i])';

// What kind of stop an element is, for walks that look at one stop of each kind: its tag, role,
// type and classes (pages style focus by those).
export function stopKind(el) {
  return [el.localName, el.getAttribute('role') || '', (el.getAttribute('type') || '').toLowerCase(),
    Array.from(el.classList).sort().join('.')].join('|');
}

// Where to look for the focused element's focus indicator: its box and `pad` pixels around it
// (outlines and rings are drawn outside the box), cut to the viewport, in page coordinates (as
// CDP captures); null when none of it is on screen. For a text field, `mask` is its content box
// within the clip, where the caret blinks: only a change outside it shows focus.
//
// A form control's labels are looked at too: a custom checkbox hides its input and draws focus
// on the label. So are the element's descendants (the first MAX_DESCENDANTS): a link may draw its
// indicator on the image inside it while its own box is a strip with no height.
const MAX_DESCENDANTS = 64;
export function focusClip(ref, pad) {
  const el = element(ref);
  const rect = el.getBoundingClientRect();
  const inner = Array.from(el.querySelectorAll('*')).slice(0, MAX_DESCENDANTS);
  const boxes = [rect, ...Array.from(el.labels || []).map((label) => label.getBoundingClientRect()),
    ...inner.map((child) => child.getBoundingClientRect())]
    .filter((box) => box.width > 0 && box.height > 0);
  if (boxes.length === 0) {
    return null;
  }
  const all = union(boxes);
  const x0 = Math.max(Math.floor(all.x - pad), 0);
  const y0 = Math.max(Math.floor(all.y - pad), 0);
  const x1 = Math.min(Math.ceil(all.x + all.width + pad), innerWidth);
  const y1 = Math.min(Math.ceil(all.y + all.height + pad), innerHeight);
  if (x1 - x0 < 1 || y1 - y0 < 1) {
    return null;
  }
  let mask = null;
  if (el.matches(TEXT_ENTRY)) {
    const s = getComputedStyle(el);
    const left = rect.x + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft);
    const top = rect.y + parseFloat(s.borderTopWidth) + parseFloat(s.paddingTop);
    const right = rect.x + rect.width - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight);
    const bottom = rect.y + rect.height - parseFloat(s.borderBottomWidth) - parseFloat(s.paddingBottom);
    // A pixel more on each side: the caret is anti-aliased.
    mask = { x: Math.floor(left) - 1 - x0, y: Math.floor(top) - 1 - y0,
      width: Math.ceil(right - left) + 2, height: Math.ceil(bottom - top) + 2 };
  }
  return { x: x0 + scrollX, y: y0 + scrollY, width: x1 - x0, height: y1 - y0, mask };
}

// Whether the area of `clip` (page coordinates) changes by itself over the next two frames: a
// DOM change on an element over it (or on <html> or <body>), or a running animation of one,
// answers 'changing'; media that can change without either (a canvas, a video, a frame, an
// animated image or SVG) over it answers 'media', for the caller to look at the pixels again;
// otherwise 'still'.
const SELF_CHANGING_MEDIA = 'canvas, video, iframe, object, embed, marquee, img[src*=".gif" i], '
  + 'img[src^="data:image/gif" i], img[src*=".webp" i], img[src*=".png" i], svg:has(animate, animateTransform, '
  + 'animateMotion, set)';
export function restlessAround(clip) {
  const box = { left: clip.x - scrollX, top: clip.y - scrollY };
  box.right = box.left + clip.width;
  box.bottom = box.top + clip.height;
  const over = (el) => {
    if (!el || el.nodeType !== Node.ELEMENT_NODE) {
      return false;
    }
    if (el === document.body || el === document.documentElement) {
      return true;
    }
    const r = el.getBoundingClientRect();
    return r.right > box.left && r.left < box.right && r.bottom > box.top && r.top < box.bottom;
  };
  return new Promise((resolve) => {
    const records = [];
    const watcher = new MutationObserver((batch) => records.push(...batch));
    watcher.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    requestAnimationFrame(() => requestAnimationFrame(() => {
      records.push(...watcher.takeRecords());
      watcher.disconnect();
      const changed = records.some((r) => over(r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement));
      const animated = document.getAnimations().some((a) => a.playState === 'running' && a.effect &&
        over(a.effect.target));
      if (changed || animated) {
        resolve('changing');
        return;
      }
      resolve(Array.from(document.querySelectorAll(SELF_CHANGING_MEDIA)).some((el) => over(el) && rendered(el))
        ? 'media' : 'still');
    }));
  });
}

// How many pixels differ by `least` or more in a colour channel (0-255) between two captures of
// the same clip (PNG, base64), leaving out the `mask` rectangle (clip coordinates) when given.
// Decoded by the browser's own image decoder, outside the document.
export async function pixelsDiffer(pngA, pngB, mask, least) {
  const [a, b] = await Promise.all([decodePng(pngA), decodePng(pngB)]);
  if (a.width !== b.width || a.height !== b.height) {
    return a.width * a.height;
  }
  let differ = 0;
  for (let y = 0; y < a.height; y += 1) {
    for (let x = 0; x < a.width; x += 1) {
      if (mask && x >= mask.x && x < mask.x + mask.width && y >= mask.y && y < mask.y + mask.height) {
        continue;
      }
      const i = (y * a.width + x) * 4;
      if (Math.abs(a.data[i] - b.data[i]) >= least || Math.abs(a.data[i + 1] - b.data[i + 1]) >= least ||
          Math.abs(a.data[i + 2] - b.data[i + 2]) >= least) {
        differ += 1;
      }
    }
  }
  return differ;
}
