import { rememberContrast, stylesDarkScheme } from './contrast.js';
import { pageElements } from './elements.js';
import { settle } from './settle.js';
import { shownFingerprint } from './states.js';
import { observeRoots, shadowRootsChanged, shadowRootsSeen } from './shadows.js';
import {
  adoptRunTree, keepRunTrees, mutatedSinceAudit, pendingMutations, treeAuditStarts, treeTornDown,
} from './tree.js';

// Audits: axe-core runs over one state of the page, the states audited whole, the late changes
// after them, and the timers axe depends on.

// A fingerprint of the page's style sheets, adopted ones included: a script can reveal content
// through the CSSOM (deleteRule, replaceSync, rule.style, sheet.disabled) without any DOM
// mutation. Cross-origin sheets cannot be read; no sample has one (the network is closed).
export function styleFingerprint() {
  let hash = 0;
  const mix = (text) => {
    for (let i = 0; i < text.length; i += 1) {
      hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
    }
  };
  const sheets = [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
  for (const sheet of sheets) {
    mix(sheet.disabled ? 'off' : 'on');
    // A sheet's media list set through the CSSOM changes no attribute of its element.
    mix(sheet.media ? sheet.media.mediaText : '');
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      continue;
    }
    for (const rule of rules) {
      mix(rule.cssText);
    }
  }
  return `${sheets.length}:${hash}`;
}

let stylesAtAudit = '';

// The popovers open now: showing one (showPopover(), a popovertarget) changes no attribute, so
// no MutationObserver sees it.
function openPopovers() {
  try {
    return document.querySelectorAll(':popover-open').length;
  } catch {
    return 0;
  }
}
let popoversAtAudit = 0;

function hasOpenShadowRoot() {
  const all = document.getElementsByTagName('*');
  for (let i = 0; i < all.length; i += 1) {
    if (all[i].shadowRoot) {
      return true;
    }
  }
  return false;
}
// Whether the last audit met a shadow tree (whose changes the MutationObserver does not see).
let shadowAtAudit = false;

// What the page showed when the last audit began (states.js): a page can show or hide content
// with no mutation and no change of its style sheets (the URL's fragment and :target, a custom
// element defined late and :defined, a custom state, a property registered late, a checkbox's
// checked property, focus), which only the rendering shows.
let shownAtAudit = '';

function auditStarts() {
  treeAuditStarts();
  stylesAtAudit = styleFingerprint();
  popoversAtAudit = openPopovers();
  shownAtAudit = shownFingerprint();
}

// The states of the document (its markup and its style sheets) that an audit saw whole, with no
// change while it ran. A page that keeps changing itself before the horizon (content a timer
// shows and hides) is audited in each state it shows: see nextChange and the evaluator's late
// wait.
const auditedStates = new Set();

function stateFingerprint() {
  // The markup of the document, then of each shadow root this world sees (outerHTML leaves them
  // out: a state that differs only inside one is another state).
  const parts = [document.documentElement ? document.documentElement.outerHTML : ''];
  for (const root of shadowRootsSeen()) {
    parts.push(root.innerHTML);
  }
  const markup = parts.join('\u0000');
  let hash = 0x811c9dc5;
  for (let i = 0; i < markup.length; i += 1) {
    hash = Math.imul(hash ^ markup.charCodeAt(i), 0x01000193);
  }
  return `${markup.length}:${(hash >>> 0).toString(16)}:${styleFingerprint()}:${openPopovers()}`;
}

// Runs `run` (an axe run) with our world's zero-delay timers turned into microtasks. axe-core
// hands each rule's result on with setTimeout(0), so the page's own tasks (timers, animation
// frames, messages) ran between its rules, and a page could change itself in the middle of an
// audit: show a failure after the rules that look for it had run, take it away before they
// did. With the handovers as microtasks, once the rules start nothing of the page's runs until
// they have all run, and the audit sees one state of the page. Timers with a delay (axe's
// preload gives up after one) stay timers.
async function atomically(run) {
  const timers = globalThis.setTimeout;
  globalThis.setTimeout = (callback, ms, ...args) => {
    if (Number(ms) > 0) {
      return timers(callback, ms, ...args);
    }
    queueMicrotask(() => callback(...args));
    return 0;
  };
  try {
    return await run();
  } finally {
    globalThis.setTimeout = timers;
  }
}

// Runs an audit of the whole document, and remembers its state if nothing changed meanwhile.
async function auditingState(run) {
  const before = stateFingerprint();
  const result = await atomically(run);
  if (stateFingerprint() === before) {
    auditedStates.add(before);
  }
  return result;
}

// Resolves when the document changes (a DOM mutation, or a style sheet edited: polled), or
// after `ms`: { changed }. After a change, the page settles (settle(settleMs, capMs)) before the
// answer, which then says whether an audit has seen the state it settled in whole
// ({ changed, audited, restless, stalled }): all in one round trip, so that an audit of a new
// state can start at once, before a page that shows a state only briefly has left it.
const STYLE_POLL_MS = 100;
// `look`: a document already in a state no audit has seen whole counts as changed at once.
// With `axeOptions`, a state no audit has seen whole is audited at once (runAxe), its report
// in the answer: { ..., report, audit_ms }.
// A look that may not wait (`ms` 0) at a state an audit has seen whole answers at once: a
// zero-delay timer would wait for the page's next task, on its clock for the next slice granted.
export async function nextChange(ms, settleMs, capMs, look, axeOptions) {
  const unseen = look && !auditedStates.has(stateFingerprint());
  if (look && !unseen && ms <= 0) {
    return { changed: false };
  }
  const change = unseen ? { changed: true } : await changeWithin(ms);
  if (!change.changed || settleMs === undefined) {
    return change;
  }
  const end = await settle(settleMs, capMs);
  const answer = {
    changed: true,
    audited: auditedStates.has(stateFingerprint()),
    restless: end === 'restless',
    stalled: end === 'stalled',
  };
  if (!answer.audited && axeOptions) {
    const start = performance.now();
    answer.report = await runAxe(axeOptions);
    answer.audit_ms = performance.now() - start;
  }
  return answer;
}

function changeWithin(ms) {
  return new Promise((resolve) => {
    const styles = `${styleFingerprint()}:${openPopovers()}`;
    let poll = null;
    let timer = null;
    const watcher = new MutationObserver(() => done(true));
    const done = (changed) => {
      watcher.disconnect();
      clearTimeout(timer);
      clearInterval(poll);
      resolve({ changed });
    };
    watcher.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const roots = shadowRootsSeen();
    observeRoots(watcher, roots);
    poll = setInterval(() => {
      if (`${styleFingerprint()}:${openPopovers()}` !== styles || shadowRootsChanged(roots)) {
        done(true);
      }
    }, STYLE_POLL_MS);
    timer = setTimeout(() => done(false), Math.max(ms, 0));
  });
}

// The frames axe found in this document by the last axePartial, in its order.
export let frameElements = [];

// One document's share of an audit of a page with frames (axe.runPartial), and the frames axe
// finds in it (also inside shadow trees): their context, for their own share.
export async function axePartial(context, options) {
  auditStarts();
  const target = context === null ? document : context;
  const partial = await (context === null ? auditingState(() => axe.runPartial(target, options))
    : atomically(() => axe.runPartial(target, options)));
  const frames = axe.utils.getFrameContexts(target, options);
  frameElements = frames.map((frame) => axe.utils.shadowSelect(frame.frameSelector));
  treeTornDown();
  return { partial, frame_contexts: frames.map((frame) => frame.frameContext) };
}

// The audit of a document without frames (the Python side audits pages with frames through
// axePartial). axe's own way into frames is turned off: it would post messages to frames,
// where the page could answer in axe's place.
export async function runAxe(options) {
  auditStarts();
  let result;
  keepRunTrees(true);
  try {
    result = await auditingState(() => axe.run(document, { ...options, iframes: false }));
  } catch (err) {
    axe.teardown();
    throw err;
  } finally {
    keepRunTrees(false);
  }
  shadowAtAudit = Boolean(axe._tree && axe._tree[0] && axe._tree[0]._hasShadowRoot);
  if (axe._tree) {
    adoptRunTree();
  }
  return report(result);
}

export async function finishAxe(partials, options) {
  return report(await axe.finishRun(partials, options));
}

function report(result) {
  rememberContrast(result);
  const trim = (items) => items.map((item) => ({
    id: item.id,
    impact: item.impact || null,
    tags: item.tags,
    help: item.help,
    description: item.description,
    help_url: item.helpUrl,
    nodes: item.nodes.slice(0, 50).map((node) => ({
      html: (node.html || '').slice(0, 600),
      target: (node.target || []).map((t) => (Array.isArray(t) ? t.join(' ') : String(t))),
      failure_summary: (node.failureSummary || '').slice(0, 1000),
      impact: node.impact || null,
    })),
    node_count: item.nodes.length,
    // A rule that threw is put by axe among the incomplete ones with the error; it measured
    // nothing, and the Python side fails the sample for it (audit.rule_errors).
    error: item.error ? `${item.error.name || 'Error'}: ${item.error.message || ''}`.slice(0, 300) : null,
  }));
  return {
    version: result.testEngine.version,
    violations: trim(result.violations),
    incomplete: trim(result.incomplete),
    passes: result.passes.map((item) => item.id),
    inapplicable: result.inapplicable.map((item) => item.id),
    // Whether the page styles a dark colour scheme, for the contrast audit (contrast.py).
    styles_dark_scheme: stylesDarkScheme(),
    // For the Python side's memory trim (precise: browser.py turns the browser's rounding off).
    heap: performance.memory.totalJSHeapSize,
  };
}

// Whether the document is in a state an audit has seen whole.
export function stateAudited() {
  return auditedStates.has(stateFingerprint());
}

// The last audit's baseline, for a copy of this document run on its own clock in another tab
// (the slot's clock tab, engine/late.py): the state it saw whole, if the document is still in
// it, and what lateSignals compares with.
export function auditBaseline() {
  const state = stateFingerprint();
  return {
    state: auditedStates.has(state) ? state : null,
    styles: stylesAtAudit,
    popovers: popoversAtAudit,
    shown: shownAtAudit,
    shadow: shadowAtAudit,
  };
}

// Takes another document's baseline (auditBaseline) as this one's last audit when this document
// is in the very state that audit saw whole (the same markup, shadow trees, style sheets and open
// popovers), so that a copy of an audited page is not audited again for nothing; lateSignals then
// compares with what that audit saw (its rendering too). Answers whether it was taken.
export function adoptBaseline(baseline) {
  if (!baseline || typeof baseline.state !== 'string' || stateFingerprint() !== baseline.state) {
    return false;
  }
  treeAuditStarts();
  auditedStates.add(baseline.state);
  stylesAtAudit = String(baseline.styles);
  popoversAtAudit = Number(baseline.popovers);
  shownAtAudit = String(baseline.shown);
  shadowAtAudit = Boolean(baseline.shadow);
  return true;
}

// What may have changed since the last audit began without the tree knowing (for the late
// audit): DOM mutations, running animations or transitions, shadow trees.
export function lateSignals() {
  window.scrollTo(0, 0);
  pendingMutations();
  return {
    mutated: mutatedSinceAudit,
    animations: document.getAnimations().length,
    styles_changed: styleFingerprint() !== stylesAtAudit || openPopovers() !== popoversAtAudit,
    shown_changed: shownFingerprint() !== shownAtAudit,
    // Shadow trees, even one attached late to an element already there (no mutation shows it).
    shadow_roots: shadowAtAudit || hasOpenShadowRoot(),
  };
}

// The elements whose presence lets a document change without a visitor acting: scripts, frames
// and plug-in documents (their own scripts), SVG animations, a marquee.
const LIVELY_ELEMENTS = new Set([
  'script', 'iframe', 'frame', 'object', 'embed', 'marquee', 'animate', 'animatemotion', 'animatetransform',
  'set', 'discard',
]);

// Whether the document as it was parsed can change without a visitor acting (for the late audit
// and the visitor's walk), read from the DOM rather than from the markup's text, which hides
// such things in ways a pattern over it cannot follow: a CSS animation written with escapes
// (`anim\61tion`) or character references in a style attribute, an event-handler attribute
// after a slash or a quote. Any CSS animation (also one still in its delay, or driven by
// scrolling), any attribute named on..., any element of LIVELY_ELEMENTS, in the document and its
// open shadow trees. Closed ones are left to the markup's reading (audit.py).
export function mayChangeItself() {
  const { all, roots } = pageElements();
  if (roots.some((root) => root.getAnimations().length)) {
    return true;
  }
  return all.some((el) => LIVELY_ELEMENTS.has(el.localName.toLowerCase())
    || Array.from(el.attributes).some((attribute) => attribute.name.startsWith('on')));
}

// Whether timers fire in this document: not in one that runs without scripts (a frame
// sandboxed without allow-scripts, even after its sandbox attribute was removed), in any
// world, and axe waits on timers. A zero-delay timer runs long before 50 message round trips
// where timers work; messages still run where they do not.
export function timersRun() {
  return new Promise((resolve) => {
    setTimeout(() => resolve(true), 0);
    const channel = new MessageChannel();
    let hops = 0;
    channel.port1.onmessage = () => {
      hops += 1;
      if (hops > 50) {
        resolve(false);
      } else {
        channel.port2.postMessage(0);
      }
    };
    channel.port2.postMessage(0);
  });
}

// In a document whose timers never fire, this world's setTimeout runs its callback as the
// next message of a channel (which still runs there), without the delay: enough for axe,
// which only yields with it. The page's own world is not touched.
export function timersWithoutDelay() {
  const channel = new MessageChannel();
  const due = new Map();
  let next = 0;
  channel.port1.onmessage = (event) => {
    const run = due.get(event.data);
    due.delete(event.data);
    if (run !== undefined) {
      run();
    }
  };
  globalThis.setTimeout = (callback, _ms, ...args) => {
    next += 1;
    due.set(next, () => callback(...args));
    channel.port2.postMessage(next);
    return next;
  };
  globalThis.clearTimeout = (id) => {
    due.delete(id);
  };
  return true;
}

// Announces, once, the next change of the document or of its style sheets through our world's
// binding (the Python side then stops running the page's clock ahead: clock.py), and answers
// whether the document is already in a state no audit has seen whole. The style sheets are
// polled on the page's own clock; a popover or <details> toggled is seen by its toggle event
// (captured: it does not bubble). Armed again by the next call.
let disarm = null;
export function armChange() {
  if (disarm !== null) {
    disarm();
  }
  const styles = styleFingerprint();
  const watcher = new MutationObserver(() => announce());
  const roots = shadowRootsSeen();
  const poll = setInterval(() => {
    if (styleFingerprint() !== styles || shadowRootsChanged(roots)) {
      announce();
    }
  }, STYLE_POLL_MS);
  const toggled = () => announce();
  const stop = () => {
    watcher.disconnect();
    clearInterval(poll);
    document.removeEventListener('toggle', toggled, true);
    disarm = null;
  };
  const announce = () => {
    stop();
    if (typeof globalThis.__a11yPageChanged === 'function') {
      globalThis.__a11yPageChanged('');
    }
  };
  disarm = stop;
  document.addEventListener('toggle', toggled, true);
  watcher.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  observeRoots(watcher, roots);
  return !auditedStates.has(stateFingerprint());
}
