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

  // The milliseconds until the last running animation that can end before `deadline` ends: CSS
  // transitions and animations and Web Animations (the page's el.animate() calls too: the
  // document lists every animation, whichever world made it). Infinite ones, paused ones and
  // ones that end after the deadline are not waited for: no wait would show their end.
  function animationTimeLeft(deadline) {
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
      if (remaining > 0 && now + remaining <= deadline) {
        left = Math.max(left, remaining);
      }
    }
    return left;
  }

  // Running finite animations, whenever they end: a page that still has some once a settle has
  // waited its whole cap keeps starting new ones (a ticker) and will not settle.
  function finiteAnimationsRunning() {
    return document.getAnimations().some((animation) => animation.playState === 'running' && animation.effect &&
      Number.isFinite(animation.effect.getComputedTiming().endTime));
  }

  // Settle: react(ms), then, while animations that can end within `capMs` of the start are
  // running (a fade, a slide, a height transition), wait for them and react once more, so that
  // transitionend and animationend handlers (which often set `hidden`) have run. A page with
  // nothing animating pays one getAnimations() call more than react(ms).
  // Answers whether the page is restless: it waited for animations and, at the end, finite ones
  // were still running; the Python side then stops waiting for this sample's animations.
  async function settle(ms, capMs) {
    const start = performance.now();
    await react(ms);
    const cap = capMs === undefined ? DEFAULT_ANIMATION_CAP_MS : capMs;
    const deadline = start + Math.max(cap, 0);
    let waited = false;
    for (let left = animationTimeLeft(deadline); left > 0; left = animationTimeLeft(deadline)) {
      waited = true;
      await react(left);
    }
    return waited && finiteAnimationsRunning();
  }

  // A settle and then `read()`, in one round trip: { value, restless }.
  function settleThen(ms, capMs, read) {
    return settle(ms, capMs).then((restless) => ({ value: read(), restless }));
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

  async function runAxe(options) {
    invalidate();
    watchDom();
    observer.takeRecords();
    let result;
    keepRunTree = true;
    try {
      result = await axe.run(document, options);
    } catch (err) {
      axe.teardown();
      throw err;
    } finally {
      keepRunTree = false;
    }
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
    step: (ref) => new Promise((resolve, reject) => {
      setTimeout(() => {
        try {
          const active = deepActive();
          const target = ref === null ? null : element(ref);
          resolve({
            ref: refOf(active),
            within: target !== null && isWithin(target, active),
          });
        } catch (err) {
          reject(err);
        }
      }, 0);
    }),
    settle: (ms, capMs) => settleThen(ms, capMs, () => true),
    // A key press's settling and the focus it leaves, in one round trip.
    settleThenActive: (ms, capMs) => settleThen(ms, capMs, () => describe(deepActive())),
    // What animationTimeLeft sees now, for tests and diagnostics.
    animationTimeLeft: (capMs) => animationTimeLeft(performance.now() + capMs),
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
      if (animationTimeLeft(performance.now() + Math.max(capMs, 0)) === 0) {
        return { value: describe(deepActive()), restless: false };
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
  });
})();
