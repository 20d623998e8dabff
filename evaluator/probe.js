/*
 * lm-eval-a11y in-page probe.
 *
 * Evaluated after axe-core inside a Chromium isolated world that belongs to the sample's
 * document. The page's own scripts live in the main world and cannot see or patch anything
 * defined here: they may replace window.axe, Element.prototype.getAttribute or
 * document.activeElement in their world, and this world still sees the real DOM.
 *
 * Every function returns plain JSON so the Python side never holds remote objects.
 * Elements are handed out as small integer references that live as long as the document.
 */
(() => {
  'use strict';
  if (globalThis.__a11yProbe) {
    return;
  }
  const refs = new Map();
  const ids = new WeakMap();
  let nextRef = 1;

  // Elements that can take focus at all; axe decides whether each one really does.
  const FOCUS_CANDIDATES = 'a[href], area[href], button, input, select, textarea, summary, iframe, '
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

  function refOf(el) {
    if (!el) {
      return null;
    }
    let id = ids.get(el);
    if (id === undefined) {
      id = nextRef++;
      ids.set(el, id);
      refs.set(id, el);
    }
    return id;
  }

  function element(ref) {
    const el = refs.get(ref);
    if (!el) {
      throw new Error(`unknown element reference ${ref}`);
    }
    return el;
  }

  // axe's commons need its virtual tree, and building it walks the whole document (70-120 ms on a
  // 690 KB page), so it is kept between calls. Three kinds of change make it stale:
  // - nodes were added, moved or removed, or an id, type or slot changed (seen by a
  //   MutationObserver; inside shadow roots, which the observer does not see, any change is
  //   assumed): the tree is thrown away and built again;
  // - other attributes or text changed (a widget toggling aria-expanded and hidden): the tree's
  //   structure holds; axe's index of elements by attribute name is patched where an attribute
  //   appeared or went, and everything derived is dropped as below;
  // - an action of ours (focus, blur, scroll), an action the Python side reports (key press,
  //   click, a wait: `sync(epoch)` carries it at no extra round trip) or 500 ms passing: CSS such
  //   as :hover or :focus-within, form state (value, checked) and geometry can change without a
  //   DOM mutation. The tree's structure still holds; everything axe derived from styles,
  //   geometry and state is dropped and computed again on demand.
  let axeReady = false;
  // Whether the document changed since the last audit began, as far as a DOM mutation shows it
  // (shadow trees and frames are not observed; the Python side re-audits pages that have them).
  let mutatedSinceAudit = false;
  let derivedStale = false;
  let builtAt = 0;
  let epoch = -1;
  let observer = null;
  const MAX_TREE_AGE_MS = 500;
  // Properties of axe's virtual nodes that describe the DOM tree itself; every other underscore
  // property is a cache of something computed from the page as it was (visibility, stacking,
  // grid, disabled state...).
  const STRUCTURAL = new Set(['_uid', '_isXHTML', '_type', '_selectorMap', '_hasShadowRoot']);

  function invalidate() {
    derivedStale = false;
    if (axeReady) {
      axe.teardown();
      axeReady = false;
    }
  }

  // Attributes whose change alters the tree itself: axe indexes elements by id, keeps each input's
  // type, and slots decide where shadow content sits.
  const STRUCTURAL_ATTRIBUTES = new Set(['id', 'type', 'slot']);
  const MAX_INDEX_PATCHES = 200;

  // Take in DOM mutations: rebuild the tree, or keep its structure and refresh what was derived.
  function absorb(records) {
    if (records.length > 0) {
      mutatedSinceAudit = true;
    }
    if (records.length === 0 || !axeReady) {
      return;
    }
    const changed = new Map();
    for (const record of records) {
      if (record.type === 'childList' || (record.type === 'attributes' &&
          (record.attributeNamespace !== null || STRUCTURAL_ATTRIBUTES.has(record.attributeName)))) {
        invalidate();
        return;
      }
      if (record.type === 'attributes') {
        let names = changed.get(record.target);
        if (names === undefined) {
          names = new Map();
          changed.set(record.target, names);
        }
        if (!names.has(record.attributeName)) {
          names.set(record.attributeName, record.oldValue);
        }
      }
    }
    const index = axe._tree[0]._selectorMap;
    let patches = 0;
    for (const [el, names] of changed) {
      const vNode = axe.utils.getNodeFromTree(el);
      if (!vNode || !index) {
        invalidate();
        return;
      }
      for (const [name, oldValue] of names) {
        const had = oldValue !== null;
        if (had === el.hasAttribute(name)) {
          continue;
        }
        // Each patch filters one of axe's lists, which can be as long as the page: past a few
        // hundred, building the tree again costs less.
        patches += 1;
        if (patches > MAX_INDEX_PATCHES) {
          invalidate();
          return;
        }
        const key = `[${name}]`;
        const listed = (index[key] || []).filter((other) => other !== vNode);
        if (!had) {
          listed.push(vNode);  // axe sorts what it finds by document order
        }
        index[key] = listed;
      }
    }
    derivedStale = true;
  }

  function pendingMutations() {
    if (observer !== null) {
      absorb(observer.takeRecords());
    }
  }

  // Something may have changed that is not a DOM mutation.
  function touched() {
    pendingMutations();
    derivedStale = true;
  }

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
  function quietReset() {
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

  function sync(newEpoch) {
    if (newEpoch !== epoch) {
      epoch = newEpoch;
      touched();
    }
  }

  function refreshDerived() {
    const root = axe._tree[0];
    if (root._hasShadowRoot) {
      invalidate();
      return;
    }
    axe._memoizedFns.forEach((fn) => fn.clear());
    const nodeMap = axe._cache.get('nodeMap');
    const selectorMap = axe._cache.get('selectorMap');
    axe._cache.clear();
    axe._cache.set('nodeMap', nodeMap);
    axe._cache.set('selectorMap', selectorMap);
    const stack = [root];
    while (stack.length > 0) {
      const vNode = stack.pop();
      for (const key of Object.keys(vNode)) {
        if (key.charCodeAt(0) === 95 && !STRUCTURAL.has(key)) {
          delete vNode[key];
        }
      }
      vNode._isHidden = null;
      vNode._cache = {};
      for (const child of vNode.children) {
        stack.push(child);
      }
    }
    derivedStale = false;
    builtAt = performance.now();
  }

  function watchDom() {
    if (observer === null) {
      observer = new MutationObserver(absorb);
      observer.observe(document, {
        subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true,
      });
    }
  }

  // axe.run builds the same virtual tree our own calls need and throws it away when it is done.
  // While `keepRunTree` is set, the cleanup axe hands to its report step does nothing, so the
  // tree outlives the run (runAxe then treats it as one of ours): the next probe call does not
  // walk the whole document again (about 100 ms on a 690 KB page).
  let keepRunTree = false;
  let treeBuilds = 0;
  const runRules = axe._runRules;
  axe._runRules = (context, options, resolve, reject) => runRules(
    context, options, (results, cleanup) => resolve(results, keepRunTree ? () => {} : cleanup), reject);

  function withAxe(fn) {
    pendingMutations();
    if (axeReady && performance.now() - builtAt > MAX_TREE_AGE_MS) {
      derivedStale = true;
    }
    if (axeReady && derivedStale) {
      refreshDerived();
    }
    if (!axeReady) {
      watchDom();
      axe.setup(document);
      treeBuilds += 1;
      axeReady = true;
      derivedStale = false;
      builtAt = performance.now();
    }
    return fn();
  }

  function virtual(el) {
    return axe.utils.getNodeFromTree(el);
  }

  // `inner` is `outer` or inside it (in the same tree: shadow roots are not crossed).
  function isWithin(outer, inner) {
    return inner !== null && (outer === inner || outer.contains(inner));
  }

  // Watches: what the page changes on one element over time, in order, for checks that need the
  // sequence and not only the end (a feed says aria-busy="true" while it adds posts). A watch
  // records each change of the named attributes on the element itself, and each batch of
  // elements added to or removed from its subtree with the watched attributes' values at that
  // moment: a MutationObserver delivers records in the order the changes happened, so a page that
  // sets an attribute, appends and resets it in one task is still seen doing it in that order.
  const watches = new Map();

  // Take in a batch of records, in order. The value a change set is the old value of the next
  // change of the same attribute in the batch, or the value now when none followed (a batch holds
  // every change made since the one before it).
  function absorbWatch(watch, records) {
    records.forEach((record, index) => {
      if (record.type === 'attributes') {
        if (record.target !== watch.el) {
          return;
        }
        const name = record.attributeName;
        const next = records.slice(index + 1).find((r) => r.type === 'attributes' && r.target === watch.el &&
          r.attributeName === name);
        const value = next === undefined ? watch.el.getAttribute(name) : next.oldValue;
        watch.state[name] = value;
        watch.changes.push({ kind: 'attribute', name, value, state: { ...watch.state } });
        return;
      }
      const added = countElements(record.addedNodes, watch.selector);
      const removed = countElements(record.removedNodes, watch.selector);
      if (added || removed) {
        watch.changes.push({ kind: 'children', added, removed, state: { ...watch.state } });
      }
    });
  }

  // The elements among `nodes`, or, given a selector, the elements among them and inside them
  // that match it (a page may append a wrapper that holds the posts).
  function countElements(nodes, selector) {
    let count = 0;
    for (const node of nodes) {
      if (node.nodeType !== Node.ELEMENT_NODE) {
        continue;
      }
      if (selector === null) {
        count += 1;
      } else {
        count += (node.matches(selector) ? 1 : 0) + node.querySelectorAll(selector).length;
      }
    }
    return count;
  }

  function watch(ref, attributes, selector) {
    const el = element(ref);
    const old = watches.get(ref);
    if (old !== undefined) {
      old.observer.disconnect();
    }
    const state = {};
    for (const name of attributes) {
      state[name] = el.getAttribute(name);
    }
    const entry = { el, selector: selector === undefined ? null : selector, observer: null, state, changes: [] };
    entry.observer = new MutationObserver((records) => absorbWatch(entry, records));
    entry.observer.observe(el, { attributes: true, attributeFilter: attributes, attributeOldValue: true,
      childList: true, subtree: true });
    watches.set(ref, entry);
    return true;
  }

  function watched(ref) {
    const entry = watches.get(ref);
    if (entry === undefined) {
      throw new Error(`element ${ref} is not watched`);
    }
    absorbWatch(entry, entry.observer.takeRecords());
    return entry.changes.slice();
  }

  // Let the page react to what we did: at least two animation frames and at least `ms` of
  // timers, waited for side by side, then one more task turn for what those callbacks queued.
  function react(ms) {
    return new Promise((resolve) => {
      let waiting = 2;
      const done = () => {
        waiting -= 1;
        if (waiting === 0) {
          setTimeout(() => resolve(true), 0);
        }
      };
      requestAnimationFrame(() => requestAnimationFrame(done));
      setTimeout(done, ms);
    });
  }

  // How long a caller that does not say (the load) lets animations run: see docs/settling.md.
  const DEFAULT_ANIMATION_CAP_MS = 1000;
  // A settle waits for the animations that end within the cap by their own timing until they have
  // ended, however long a loaded machine takes to show it: an animation's own time follows the
  // clock, but the frames before it starts and after it ends come late (a renderer with a fifth
  // of a core took over two seconds to see a 280 ms glide through). It stops early for a page
  // that started new animations during this many of its waits and still runs some: a ticker,
  // restless from then on. A single glide is never restless.
  const RESTLESS_STARTS = 2;
  // The wall time a settle may take in all, in caps: a safety bound that only a machine starved
  // for seconds reaches.
  const WALL_CAPS = 5;

  // The milliseconds until the last running animation that can end before `deadline` ends: CSS
  // transitions and animations and Web Animations (the page's el.animate() calls too: the
  // document lists every animation, whichever world made it). Infinite ones, paused ones and
  // ones that end after the deadline are not waited for: no wait would show their end.
  // `waited`, when given, is told of each animation counted.
  function animationTimeLeft(capMs, deadline = Infinity, waited = null) {
    const now = performance.now();
    let left = 0;
    for (const animation of document.getAnimations()) {
      const rate = animation.playbackRate;
      if (animation.playState !== 'running' || !rate || !animation.effect) {
        continue;
      }
      const timing = animation.effect.getComputedTiming();
      // A scroll-driven animation's times are not milliseconds; it ends when the page scrolls.
      if (!Number.isFinite(timing.endTime) || (timing.localTime !== null && typeof timing.localTime !== 'number')) {
        continue;
      }
      const local = timing.localTime === null ? 0 : timing.localTime;
      const remaining = rate > 0 ? (timing.endTime - local) / rate : local / -rate;
      if (remaining > 0 && remaining <= capMs && now + remaining <= deadline) {
        left = Math.max(left, remaining);
        if (waited) {
          waited(animation);
        }
      }
    }
    return left;
  }

  // Running finite animations, whenever they end: a page that still has some once a settle has
  // waited its whole allowance, after starting new ones while it waited, is a ticker.
  function finiteAnimationsRunning() {
    return document.getAnimations().some((animation) => animation.playState === 'running' && animation.effect &&
      Number.isFinite(animation.effect.getComputedTiming().endTime));
  }

  // The end events of the animations a settle waits for. An animation that has ended by the
  // clock leaves getAnimations() before its end is delivered: Chromium dispatches transitionend,
  // animationend, transitioncancel and the Animation's own finish and cancel events together,
  // with the next animation frame, and a loaded machine may take long to draw it. Our listeners
  // (in our world; the page cannot see them) mark each animation whose finish or cancel event
  // has been dispatched, and so whose page handlers for the same frame have run.
  class EndEvents {
    constructor() {
      this.delivered = new WeakSet();
      this.watched = new Set();
      this.wake = null;
    }

    watch(animation) {
      if (this.watched.has(animation)) {
        return;
      }
      this.watched.add(animation);
      const mark = () => {
        this.delivered.add(animation);
        if (this.wake) {
          this.wake();
        }
      };
      animation.addEventListener('finish', mark, { once: true });
      animation.addEventListener('cancel', mark, { once: true });
    }

    // Animations that have ended (or were cancelled) and whose event has not been dispatched yet.
    // One still running, or paused, has no end on the way: it is not waited for here.
    undelivered() {
      return [...this.watched].filter((animation) => !this.delivered.has(animation) &&
        (animation.playState === 'finished' || animation.playState === 'idle'));
    }

    // Waits until every ended animation's event has been dispatched, then one task turn for what
    // the page's handlers queued. Events go out before the frame's animation-frame callbacks, so
    // two frames are the most this waits: an event the page kept from us (a listener of its own
    // that stops immediate propagation) costs no more.
    async delivery() {
      if (!this.undelivered().length) {
        return;
      }
      let frames = 0;
      await new Promise((resolve) => {
        const check = () => {
          if (frames >= 2 || !this.undelivered().length) {
            this.wake = null;
            resolve();
          }
        };
        const tick = () => {
          frames += 1;
          check();
          if (frames < 2) {
            requestAnimationFrame(tick);
          }
        };
        this.wake = check;
        requestAnimationFrame(tick);
      });
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  // Settle: react(ms), then, while animations that end within `capMs` by their own timing are
  // running (a fade, a slide, a height transition), wait for them and react once more, so that
  // transitionend and animationend handlers (which often set `hidden`) have run. A page with
  // nothing animating pays one getAnimations() call more than react(ms).
  // Answers 'restless' when the page started new animations during RESTLESS_STARTS of the
  // waits and still runs finite ones (the Python side then stops waiting for this sample's
  // animations), 'stalled' when the safety bound stopped it, 'settled' otherwise.
  async function settle(ms, capMs) {
    const start = performance.now();
    // The finite animations already running (the one the action just started among them): one
    // that ends while react() waits leaves getAnimations() by the clock before its end event is
    // dispatched, and the loop below would never see it. Watched from here, its event is waited
    // for like the others'. (Finished ones are left out: their events went out long ago.)
    const ends = new EndEvents();
    const watchFinite = (animation) => {
      if (animation.playState === 'running' && animation.effect &&
        Number.isFinite(animation.effect.getComputedTiming().endTime)) {
        ends.watch(animation);
      }
    };
    document.getAnimations().forEach(watchFinite);
    await react(ms);
    const cap = Math.max(capMs === undefined ? DEFAULT_ANIMATION_CAP_MS : capMs, 0);
    const deadline = start + WALL_CAPS * cap;
    // Animations the page started while this settle waited: a slow machine stretches a settle,
    // a ticker keeps starting new animations; only the ticker is restless.
    const seen = new Set(document.getAnimations());
    const waited = (animation) => ends.watch(animation);
    let started = 0;
    for (let left = animationTimeLeft(cap, deadline, waited); left > 0; left = animationTimeLeft(cap, deadline, waited)) {
      await react(left);
      let fresh = false;
      for (const animation of document.getAnimations()) {
        if (!seen.has(animation)) {
          seen.add(animation);
          fresh = true;
          // Started while the last wait ran: its end event, too, is waited for if it ends.
          watchFinite(animation);
        }
      }
      started += fresh ? 1 : 0;
      if (started >= RESTLESS_STARTS && finiteAnimationsRunning()) {
        return 'restless';
      }
    }
    // The ended animations' events: the page's end handlers run with them.
    await ends.delivery();
    // Stopped by the safety bound while an animation that ends within the cap still runs: what
    // is read next may come before the page's end-of-animation handlers (reported, to tell a
    // starved machine from a page).
    return cap > 0 && animationTimeLeft(cap) > 0 ? 'stalled' : 'settled';
  }

  // A settle and then `read()`, in one round trip: { value, restless, stalled }.
  function settleThen(ms, capMs, read) {
    return settle(ms, capMs).then((end) => ({ value: read(), restless: end === 'restless', stalled: end === 'stalled' }));
  }

  function deepActive() {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) {
      el = el.shadowRoot.activeElement;
    }
    if (!el || el === document.body || el === document.documentElement) {
      return null;
    }
    return el;
  }

  function isVisible(el) {
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

  function isHiddenFromAT(el) {
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

  function isFocusable(el) {
    return withAxe(() => axe.commons.dom.isFocusable(el));
  }

  function roleOf(el) {
    return withAxe(() => axe.commons.aria.getRole(el, { dpub: true }) || null);
  }

  function nameOf(el) {
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

  function describe(el) {
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

  function queryAll(selector, rootRef) {
    const root = rootRef ? element(rootRef) : document;
    return Array.from(root.querySelectorAll(selector));
  }

  function allElements() {
    return Array.from(document.querySelectorAll('body *'));
  }

  function byRole(role) {
    const wanted = new Set(Array.isArray(role) ? role : [role]);
    return withAxe(() => allElements().filter((el) => wanted.has(axe.commons.aria.getRole(el, { dpub: true }))));
  }

  function headings() {
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

  function landmarks() {
    return withAxe(() => allElements()
      .map((el) => ({ el, role: axe.commons.aria.getRole(el) }))
      .filter(({ el, role }) => LANDMARK_ROLES.has(role) && axe.commons.dom.isVisibleToScreenReaders(virtual(el)))
      .map(({ el, role }) => ({
        ref: refOf(el),
        role,
        name: axe.commons.text.sanitize(axe.commons.text.accessibleTextVirtual(virtual(el)) || ''),
      })));
  }

  function focusStyle(el) {
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

  // A fingerprint of the page's style sheets, adopted ones included: a script can reveal content
  // through the CSSOM (deleteRule, replaceSync, rule.style, sheet.disabled) without any DOM
  // mutation. Cross-origin sheets cannot be read; no sample has one (the network is closed).
  function styleFingerprint() {
    let hash = 0;
    const mix = (text) => {
      for (let i = 0; i < text.length; i += 1) {
        hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
      }
    };
    const sheets = [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
    for (const sheet of sheets) {
      mix(sheet.disabled ? 'off' : 'on');
      let rules;
      try {
        rules = sheet.cssRules;
      } catch (err) {
        continue;
      }
      for (const rule of rules) {
        mix(rule.cssText);
      }
    }
    return `${sheets.length}:${hash}`;
  }

  let stylesAtAudit = '';

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

  function auditStarts() {
    invalidate();
    watchDom();
    observer.takeRecords();
    mutatedSinceAudit = false;
    stylesAtAudit = styleFingerprint();
  }

  // The states of the document (its markup and its style sheets) that an audit saw whole, with no
  // change while it ran. A page that keeps changing itself before the horizon (content a timer
  // shows and hides) is audited in each state it shows: see nextChange and the evaluator's late
  // wait.
  const auditedStates = new Set();

  function stateFingerprint() {
    const markup = document.documentElement ? document.documentElement.outerHTML : '';
    let hash = 0x811c9dc5;
    for (let i = 0; i < markup.length; i += 1) {
      hash = Math.imul(hash ^ markup.charCodeAt(i), 0x01000193);
    }
    return `${markup.length}:${(hash >>> 0).toString(16)}:${styleFingerprint()}`;
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
  async function nextChange(ms, settleMs, capMs, look, axeOptions) {
    const change = look && !auditedStates.has(stateFingerprint()) ? { changed: true } : await changeWithin(ms);
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
      const styles = styleFingerprint();
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
      poll = setInterval(() => {
        if (styleFingerprint() !== styles) {
          done(true);
        }
      }, STYLE_POLL_MS);
      timer = setTimeout(() => done(false), Math.max(ms, 0));
    });
  }

  // The frames axe found in this document by the last axePartial, in its order.
  let frameElements = [];

  // One document's share of an audit of a page with frames (axe.runPartial), and the frames axe
  // finds in it (also inside shadow trees): their context, for their own share.
  async function axePartial(context, options) {
    auditStarts();
    const target = context === null ? document : context;
    const partial = await (context === null ? auditingState(() => axe.runPartial(target, options))
      : atomically(() => axe.runPartial(target, options)));
    const frames = axe.utils.getFrameContexts(target, options);
    frameElements = frames.map((frame) => axe.utils.shadowSelect(frame.frameSelector));
    axe.teardown();
    axeReady = false;
    return { partial, frame_contexts: frames.map((frame) => frame.frameContext) };
  }

  // The audit of a document without frames (the Python side audits pages with frames through
  // axePartial). axe's own way into frames is turned off: it would post messages to frames,
  // where the page could answer in axe's place.
  async function runAxe(options) {
    auditStarts();
    let result;
    keepRunTree = true;
    try {
      result = await auditingState(() => axe.run(document, { ...options, iframes: false }));
    } catch (err) {
      axe.teardown();
      throw err;
    } finally {
      keepRunTree = false;
    }
    shadowAtAudit = Boolean(axe._tree && axe._tree[0] && axe._tree[0]._hasShadowRoot);
    if (axe._tree) {
      // What axe derived during its run is dropped now, as after any action (and so that the
      // memory trim after the run can free it); a DOM change since the run started means a new
      // tree.
      axeReady = true;
      pendingMutations();
      if (axeReady) {
        refreshDerived();
      }
    }
    return report(result);
  }

  async function finishAxe(partials, options) {
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

  // The value a range widget reports (meter, progressbar, slider, separator, spinbutton):
  // ARIA attributes win, as they do in the browser's accessibility tree; native <meter>,
  // <progress> and <input type=range|number> fall back to their properties, whose defaults
  // (min 0, max 1 or 100) never show up as attributes.
  function rangeValue(el) {
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
  function contentBefore(target, region) {
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

  // ---------------------------------------------------------------- keyboard reach of mouse targets
  //
  // Facts about elements a page listens to the mouse on (the Python side finds them through CDP,
  // DOMDebugger.getEventListeners, which sees every listener whatever world or frame made its
  // function): can the keyboard reach and work them, or the control they sit in or hold? The
  // generic checks decide what the facts mean (lm_eval_a11y/generic/checks.py).

  // Controls the browser itself works from the keyboard once they have focus.
  const NATIVE_CONTROLS = 'a[href], area[href], button, input:not([type="hidden" i]), select, textarea, summary, '
    + 'audio[controls], video[controls], [contenteditable]:not([contenteditable="false" i])';
  // Of those, the ones whose keyboard activation is a click event (Enter or Space): a listener for
  // mousedown or pointerdown alone never hears the keyboard on them.
  const CLICK_ACTIVATED = 'a[href], area[href], button, summary, '
    + 'input:is([type="button" i], [type="submit" i], [type="reset" i], [type="image" i], [type="checkbox" i], '
    + '[type="radio" i], [type="file" i], [type="color" i])';
  // ARIA roles of things a person operates (the page must give them keyboard behaviour).
  const WIDGET_ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'treeitem', 'gridcell', 'row', 'slider', 'spinbutton', 'scrollbar', 'combobox', 'textbox',
    'searchbox', 'separator',
  ]);
  // Widgets that move focus among their items themselves (roving tabindex, aria-activedescendant):
  // their items need no Tab stop of their own.
  const COMPOSITE_ROLES = new Set([
    'listbox', 'menu', 'menubar', 'tablist', 'tree', 'treegrid', 'grid', 'radiogroup', 'toolbar',
  ]);

  function safeRole(el) {
    try {
      return roleOf(el);
    } catch (err) {
      return el.getAttribute('role');  // an element axe's tree does not hold (a closed shadow root)
    }
  }

  function inTabOrder(el) {
    try {
      return withAxe(() => Boolean(virtual(el)) && axe.commons.dom.isInTabOrder(el));
    } catch (err) {
      return el.tabIndex >= 0 && !el.matches(':disabled') && el.closest('[inert]') === null;
    }
  }

  // Drawn with a size on the page (an element with display: contents by what it holds), and not
  // hidden with visibility: a mouse can point at it.
  function rendered(el) {
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

  // Whether the keyboard can reach the element: a Tab stop, or an item of a composite widget that
  // moves focus among its items (its container, or the element that controls it or points into it
  // with aria-activedescendant, is a Tab stop).
  function keyboardReachable(el) {
    if (inTabOrder(el)) {
      return { reachable: true, via: null };
    }
    for (let node = parentOf(el); node; node = parentOf(node)) {
      if (!COMPOSITE_ROLES.has(safeRole(node))) {
        continue;
      }
      if (inTabOrder(node) || Array.from(node.querySelectorAll('*')).some((item) => item.tabIndex >= 0 && inTabOrder(item))) {
        return { reachable: true, via: node };
      }
      if (node.id) {
        const escaped = CSS.escape(node.id);
        const owner = document.querySelector(`[aria-controls~="${escaped}"], [aria-owns~="${escaped}"]`);
        if (owner && inTabOrder(owner)) {
          return { reachable: true, via: owner };
        }
      }
      return { reachable: false, via: null };
    }
    return { reachable: false, via: null };
  }

  function controlKind(el) {
    if (el.matches(NATIVE_CONTROLS)) {
      return 'native';
    }
    return WIDGET_ROLES.has(safeRole(el)) ? 'widget' : null;
  }

  // `el` or an ancestor (across shadow roots), or `via`, is in the set.
  function handledOnPath(el, set, via) {
    if (via && set.has(via)) {
      return true;
    }
    for (let node = el; node; node = parentOf(node)) {
      if (set.has(node)) {
        return true;
      }
    }
    return false;
  }

  // A control the keyboard can work: reachable, and activated by the browser (a native control)
  // or given keyboard handling by the page (a key listener on it, around it or on the document).
  function workable(el, keys, rootKeys) {
    const kind = controlKind(el);
    if (kind === null) {
      return false;
    }
    const reach = keyboardReachable(el);
    if (!reach.reachable) {
      return false;
    }
    return kind === 'native' || rootKeys || handledOnPath(el, keys, reach.via);
  }

  // A dialog's backdrop: an empty layer over at least half the viewport, positioned out of the
  // flow, while a dialog is open. A click on it is a mouse shortcut for what Escape and the
  // dialog's own buttons do.
  function isBackdrop(el) {
    const style = getComputedStyle(el);
    if (style.position !== 'fixed' && style.position !== 'absolute') {
      return false;
    }
    const rect = el.getBoundingClientRect();
    const covered = Math.max(0, Math.min(rect.right, innerWidth) - Math.max(rect.left, 0)) *
      Math.max(0, Math.min(rect.bottom, innerHeight) - Math.max(rect.top, 0));
    if (covered < innerWidth * innerHeight / 2 || (el.innerText || '').trim() !== '' ||
        el.querySelector('img, svg, canvas, video, input, select, textarea, button, a[href]') !== null) {
      return false;
    }
    return Array.from(document.querySelectorAll('dialog[open], [role="dialog"], [role="alertdialog"]'))
      .some((dialog) => !el.contains(dialog) && rendered(dialog));
  }

  // keys: references of elements with key listeners; rootKeys: the document or window has one;
  // clicks: references of elements with click listeners; rootClicks: the document, <html>,
  // <body> or window has one.
  function keyboardFacts(refList, keyRefs, rootKeys, clickRefs, rootClicks) {
    const keys = new Set(keyRefs.map(element));
    const clicks = new Set(clickRefs.map(element));
    return refList.map((ref) => {
      const el = element(ref);
      const fact = { ref, rendered: rendered(el), disabled: false, role: null, control: null, tab_stop: false,
        reachable: false, key_handled: false, click_heard: false, click_activated: false,
        inside_workable: null, holds_workable: false, backdrop: false };
      if (!fact.rendered) {
        return fact;
      }
      fact.backdrop = isBackdrop(el);
      fact.disabled = el.matches(':disabled') || el.closest('[aria-disabled="true" i]') !== null;
      fact.role = safeRole(el);
      fact.control = controlKind(el);
      fact.tab_stop = inTabOrder(el);
      const reach = keyboardReachable(el);
      fact.reachable = reach.reachable;
      fact.key_handled = rootKeys || handledOnPath(el, keys, reach.via);
      fact.click_heard = rootClicks || handledOnPath(el, clicks, null);
      fact.click_activated = el.matches(CLICK_ACTIVATED);
      for (let node = parentOf(el); node; node = parentOf(node)) {
        if (workable(node, keys, rootKeys)) {
          fact.inside_workable = refOf(node);
          break;
        }
      }
      const inside = Array.from(el.querySelectorAll(`${NATIVE_CONTROLS}, [role], [tabindex]`));
      // A label works its control: clicking it is clicking the control.
      if (el.localName === 'label' && el.control) {
        inside.push(el.control);
      }
      fact.holds_workable = inside.some((child) => rendered(child) && workable(child, keys, rootKeys));
      return fact;
    });
  }

  // The outermost rendered elements drawn with a pointing-hand cursor (cursor: pointer, which
  // descendants inherit), at most `limit`: what a mouse user takes for things to click.
  function pointerCursors(limit) {
    const found = [];
    const all = document.body ? document.body.getElementsByTagName('*') : [];
    for (let i = 0; i < all.length && found.length < limit; i += 1) {
      const el = all[i];
      if (getComputedStyle(el).cursor !== 'pointer') {
        continue;
      }
      const parent = parentOf(el);
      if (parent && parent !== document.body && getComputedStyle(parent).cursor === 'pointer') {
        continue;
      }
      if (rendered(el)) {
        found.push(refOf(el));
      }
    }
    return found;
  }

  // ---------------------------------------------------------------- Tab stops and their focus indicator

  const TEXT_ENTRY = 'textarea, [contenteditable]:not([contenteditable="false" i]), input:not([type]), '
    + 'input:is([type="text" i], [type="search" i], [type="email" i], [type="url" i], [type="tel" i], '
    + '[type="password" i], [type="number" i], [type="date" i], [type="time" i], [type="datetime-local" i], '
    + '[type="month" i], [type="week" i])';

  // What kind of stop an element is, for walks that look at one stop of each kind: its tag, role,
  // type and classes (pages style focus by those).
  function stopKind(el) {
    return [el.localName, el.getAttribute('role') || '', (el.getAttribute('type') || '').toLowerCase(),
      Array.from(el.classList).sort().join('.')].join('|');
  }

  // Where to look for the focused element's focus indicator: its box and `pad` pixels around it
  // (outlines and rings are drawn outside the box), cut to the viewport, in page coordinates (as
  // CDP captures); null when none of it is on screen. For a text field, `mask` is its content box
  // within the clip, where the caret blinks: only a change outside it shows focus.
  //
  // A form control's labels are looked at too: a custom checkbox hides its input and draws focus
  // on the label.
  function focusClip(ref, pad) {
    const el = element(ref);
    const rect = el.getBoundingClientRect();
    const boxes = [rect, ...Array.from(el.labels || []).map((label) => label.getBoundingClientRect())]
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
  function restlessAround(clip) {
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

  // A PNG (base64) decoded by the browser's own image decoder into an OffscreenCanvas, outside
  // the document: its ImageData (width, height, RGBA data).
  async function decodePng(png) {
    const bytes = typeof Uint8Array.fromBase64 === 'function'
      ? Uint8Array.fromBase64(png) : Uint8Array.from(atob(png), (ch) => ch.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d', { willReadFrequently: true });
    canvas.drawImage(bitmap, 0, 0);
    const image = canvas.getImageData(0, 0, bitmap.width, bitmap.height);
    bitmap.close();
    return image;
  }

  // How many pixels differ by `least` or more in a colour channel (0-255) between two captures of
  // the same clip (PNG, base64), leaving out the `mask` rectangle (clip coordinates) when given.
  // Decoded by the browser's own image decoder, outside the document.
  async function pixelsDiffer(pngA, pngB, mask, least) {
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

  // ---------------------------------------------------------------- reflow at a narrow width

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
  function overflowingText(limit) {
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

  // ---------------------------------------------------------------- colour contrast from pixels
  //
  // A second opinion on axe's `color-contrast` failures and "can't tell" results, from the
  // rendered pixels (docs/contrast.md). Everything here only reads: computed styles, layout
  // boxes, and a screenshot the Python side takes through CDP and hands in as PNG data. The
  // screenshot is decoded with createImageBitmap into an OffscreenCanvas, neither of which
  // touches the document, so the page's scripts see no mutation, no new style sheet and no
  // request. The only thing a page can see is the scroll position changing when text lies
  // outside the first screen: the same scroll a reader makes to read it.

  // The colour-contrast nodes of the last axe run, with the element each target names.
  let contrastSeen = [];

  function rememberContrast(result) {
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
  function contrastChoose(selectors) {
    contrastSeen = selectors.map((selector) => ({
      el: document.querySelector(selector), kind: 'incomplete', target: [selector], ratio: null, reason: null,
    }));
    return contrastSeen.length;
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

  // The node's parent element, across a shadow root to its host.
  function parentOf(node) {
    if (node.parentElement) {
      return node.parentElement;
    }
    const root = node.getRootNode && node.getRootNode();
    return root && root.host ? root.host : null;
  }

  // What the pixel check needs to know about one node now: its text's line boxes (viewport
  // coordinates), its text colour and how it is composited, its size class, or why its pixels
  // cannot say anything.
  function contrastDescribe(seen, running) {
    if (seen.el === undefined) {
      try {
        seen.el = axe.utils.shadowSelect(seen.selector);
      } catch (err) {
        seen.el = null;
      }
    }
    const el = seen.el;
    if (!el || !el.isConnected) {
      return { unmeasurable: 'the element is no longer in the document' };
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
    for (let node = el; node; node = parentOf(node)) {
      const s = node === el ? style : getComputedStyle(node);
      alpha *= parseFloat(s.opacity);
      if (s.mixBlendMode !== 'normal' || s.filter !== 'none') {
        return { ...out, unmeasurable: 'the text is blended or filtered (mix-blend-mode, filter)' };
      }
      if (running.has(node)) {
        return { ...out, unmeasurable: 'the text or an element around it is animated' };
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
      boxes: inDoc,
    };
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

  // The nodes of the last axe run as the Python side plans its captures: boxes in document
  // coordinates (viewport ones for fixed and sticky text, which moves with the viewport).
  function contrastNodes(limit) {
    const running = runningTargets();
    return {
      scroll: [scrollX, scrollY],
      document: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
      total: contrastSeen.length,
      nodes: contrastSeen.slice(0, limit).map((seen, index) => {
        const d = contrastDescribe(seen, running);
        const node = {
          index,
          kind: seen.kind,
          target: seen.target,
          axe_ratio: seen.ratio,
          axe_reason: seen.reason,
          large: d.large === undefined ? null : d.large,
          unmeasurable: d.unmeasurable || null,
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

  function union(boxes) {
    const x0 = Math.min(...boxes.map((b) => b.x));
    const y0 = Math.min(...boxes.map((b) => b.y));
    const x1 = Math.max(...boxes.map((b) => b.x + b.width));
    const y1 = Math.max(...boxes.map((b) => b.y + b.height));
    return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  }

  // The part of the viewport the given nodes' text covers now, in whole pixels, or null.
  function contrastClip(indices) {
    const running = runningTargets();
    const boxes = [];
    for (const index of indices) {
      const d = contrastDescribe(contrastSeen[index], running);
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
  function contrastScrollTo(x, y, indices) {
    window.scrollTo({ left: x, top: y, behavior: 'instant' });
    touched();
    return settle(0).then(() => (indices === null ? true : contrastClip(indices)));
  }

  // Does the page style a dark colour scheme? A prefers-color-scheme media rule (also inside
  // @supports, @layer and @container), a color-scheme that offers dark, or light-dark().
  function stylesDarkScheme() {
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
      let rules = null;
      try {
        rules = sheet.cssRules;
      } catch (err) {
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
  async function contrastPixels(png, clip, indices) {
    const { width, height, data: pixels } = await decodePng(png);
    const running = runningTargets();
    // Only the text's line boxes go back (RGBA, row by row): a screen's worth is megabytes, and
    // it travels through the driver to Python.
    const nodes = [];
    const crops = [];
    let size = 0;
    for (const index of indices) {
      const d = contrastDescribe(contrastSeen[index], running);
      if (d.unmeasurable) {
        nodes.push({ index, unmeasurable: d.unmeasurable });
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
        const crop = new Uint8Array((x1 - x0) * (y1 - y0) * 4);
        for (let y = y0; y < y1; y += 1) {
          crop.set(pixels.subarray((y * width + x0) * 4, (y * width + x1) * 4), (y - y0) * (x1 - x0) * 4);
        }
        boxes.push({ offset: size, width: x1 - x0, height: y1 - y0 });
        crops.push(crop);
        size += crop.length;
      }
      nodes.push({ index, colour: d.colour, alpha: d.alpha, font_size: d.font_size, large: d.large, boxes });
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

  globalThis.__a11yProbe = Object.freeze({
    axeVersion: () => axe.version,
    // How many times this document's virtual tree was built for our own calls (axe's runs not
    // counted), for tests and diagnostics.
    treeBuilds: () => treeBuilds,
    // The references of the elements axe's own selector engine finds: it answers from the tree
    // the probe keeps, so this shows whether that tree still matches the page.
    axeQuery: (selector) => withAxe(
      () => axe.utils.querySelectorAll(axe._tree[0], selector).map((vNode) => refOf(vNode.actualNode))),
    runAxe,
    axePartial,
    frameElement: (index) => frameElements[index],
    // Whether timers fire in this document: not in one that runs without scripts (a frame
    // sandboxed without allow-scripts, even after its sandbox attribute was removed), in any
    // world, and axe waits on timers. A zero-delay timer runs long before 50 message round trips
    // where timers work; messages still run where they do not.
    timersRun: () => new Promise((resolve) => {
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
    }),
    // In a document whose timers never fire, this world's setTimeout runs its callback as the
    // next message of a channel (which still runs there), without the delay: enough for axe,
    // which only yields with it. The page's own world is not touched.
    timersWithoutDelay: () => {
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
    },
    finishAxe,
    // What may have changed since the last audit began without the tree knowing (for the late
    // audit): DOM mutations, running animations or transitions, shadow trees.
    // Scroll to the end of the page, as a visitor reading it would: content a page adds on
    // scroll events is then in the document by the late audit.
    scrollThrough: () => {
      window.scrollTo(0, document.documentElement.scrollHeight);
      touched();
      return true;
    },
    nextChange,
    // Whether the document is in a state an audit has seen whole.
    stateAudited: () => auditedStates.has(stateFingerprint()),
    lateSignals: () => {
      window.scrollTo(0, 0);
      pendingMutations();
      return {
        mutated: mutatedSinceAudit,
        animations: document.getAnimations().length,
        styles_changed: styleFingerprint() !== stylesAtAudit,
        // Shadow trees, even one attached late to an element already there (no mutation shows it).
        shadow_roots: shadowAtAudit || hasOpenShadowRoot(),
      };
    },
    describe: (ref) => describe(element(ref)),
    query: (selector, rootRef) => queryAll(selector, rootRef).map(describe),
    byRole: (role) => byRole(role).map(describe),
    active: () => describe(deepActive()),
    isVisible: (ref) => isVisible(element(ref)),
    isHiddenFromAT: (ref) => isHiddenFromAT(element(ref)),
    isFocusable: (ref) => isFocusable(element(ref)),
    // The element or something inside it can take focus.
    hasFocusable: (ref) => {
      const el = element(ref);
      return isFocusable(el) || Array.from(el.querySelectorAll(FOCUS_CANDIDATES)).some(isFocusable);
    },
    role: (ref) => roleOf(element(ref)),
    name: (ref) => nameOf(element(ref)),
    contains: (outer, inner) => isWithin(element(outer), element(inner)),
    activeWithin: (ref) => isWithin(element(ref), deepActive()),
    // One step of a keyboard walk, in one round trip: let the page's zero-delay timers from the
    // key press run (ours is queued after theirs), then report where focus is and whether it is
    // on or inside the given element.
    // With `kind`, also the kind of the focused element (stopKind).
    step: (ref, kind) => new Promise((resolve, reject) => {
      setTimeout(() => {
        try {
          const active = deepActive();
          const target = ref === null ? null : element(ref);
          resolve({
            ref: refOf(active),
            within: target !== null && isWithin(target, active),
            kind: kind && active ? stopKind(active) : null,
          });
        } catch (err) {
          reject(err);
        }
      }, 0);
    }),
    settle: (ms, capMs) => settleThen(ms, capMs, () => true),
    // A key press's settling and the focus it leaves, in one round trip.
    settleThenActive: (ms, capMs) => settleThen(ms, capMs, () => describe(deepActive())),
    watch,
    watched,
    // What animationTimeLeft sees now, for tests and diagnostics.
    animationTimeLeft: (capMs) => animationTimeLeft(capMs),
    sync,
    focus: (ref) => {
      element(ref).focus();
      touched();
      return describe(deepActive());
    },
    // A programmatic focus as an action: focus handlers have run when focus() returns, so only
    // a transition or animation it started (getAnimations() brings styles up to date first) is
    // waited for; a page that animates nothing on focus gets no wait at all.
    focusThenSettle: (ref, ms, capMs) => {
      element(ref).focus();
      touched();
      if (animationTimeLeft(Math.max(capMs, 0)) === 0) {
        return { value: describe(deepActive()), restless: false, stalled: false };
      }
      return settleThen(ms, capMs, () => describe(deepActive()));
    },
    blur: () => {
      const active = deepActive();
      if (active) {
        active.blur();
      }
      touched();
      return true;
    },
    // Where a visitor starts a keyboard walk: nothing focused and the next Tab from the top of
    // the document (quietReset).
    fromTheTop: () => {
      const active = deepActive();
      if (active) {
        active.blur();
      }
      quietReset();
      window.scrollTo({ left: 0, top: 0, behavior: 'instant' });
      touched();
      return true;
    },
    scrollIntoView: (ref) => {
      element(ref).scrollIntoView({ block: 'center', inline: 'center' });
      touched();
      const rect = element(ref).getBoundingClientRect();
      return { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
    },
    focusStyle: (ref) => focusStyle(element(ref)),
    headings,
    landmarks,
    elementCount: () => document.getElementsByTagName('*').length,
    documentInfo: () => ({
      title: document.title,
      lang: document.documentElement.getAttribute('lang'),
      element_count: document.getElementsByTagName('*').length,
      body_text_length: (document.body ? document.body.innerText || '' : '').length,
    }),
    rangeValue: (ref) => rangeValue(element(ref)),
    contentBefore: (targetRef, regionRef) => contentBefore(element(targetRef), element(regionRef)),
    // Each node given (objects of this world, from CDP) as { ref, tag }: an element by its reference,
    // a shadow root as its host, the document as { ref: null, tag: '#document' }.
    // A node of another document (a frame's) is { ref: null, tag: null }.
    nodesOf: (...nodes) => nodes.map((node) => {
      const el = node instanceof ShadowRoot ? node.host : node;
      if (!el || (el !== document && el.ownerDocument !== document)) {
        return { ref: null, tag: null };
      }
      if (el.nodeType === Node.ELEMENT_NODE) {
        return { ref: refOf(el), tag: el.localName };
      }
      return { ref: null, tag: el.nodeName.toLowerCase() };
    }),
    keyboardFacts,
    pointerCursors,
    focusClip,
    pixelsDiffer,
    restlessAround,
    overflowingText,
    // Whether element a comes before element b in the document (b inside a counts as after).
    precedes: (a, b) => Boolean(element(a).compareDocumentPosition(element(b)) &
      (Node.DOCUMENT_POSITION_FOLLOWING | Node.DOCUMENT_POSITION_CONTAINED_BY)),
    // The pixel check of colour contrast (lm_eval_a11y/contrast.py, docs/contrast.md).
    contrastChoose,
    contrastNodes,
    contrastClip,
    contrastScrollTo,
    contrastPixels,
    contrastViolationCount: () => contrastSeen.filter((seen) => seen.kind === 'violation').length,
    stylesDarkScheme,
  });
})();
