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
export let mutatedSinceAudit = false;
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

export function pendingMutations() {
  if (observer !== null) {
    absorb(observer.takeRecords());
  }
}

// Something may have changed that is not a DOM mutation.
export function touched() {
  pendingMutations();
  derivedStale = true;
}

export function sync(newEpoch) {
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
export let treeBuilds = 0;
const runRules = axe._runRules;
axe._runRules = (context, options, resolve, reject) => runRules(
  context, options, (results, cleanup) => resolve(results, keepRunTree ? () => {} : cleanup), reject);

// While an axe run is to leave its tree behind (runAxe).
export function keepRunTrees(keep) {
  keepRunTree = keep;
}

// After a run that left its tree behind: the tree is ours now. What axe derived during its run
// is dropped, as after any action (and so that the memory trim after the run can free it); a DOM
// change since the run started means a new tree.
export function adoptRunTree() {
  axeReady = true;
  pendingMutations();
  if (axeReady) {
    refreshDerived();
  }
}

// An audit begins: the audit builds its own tree, and DOM changes count from now.
export function treeAuditStarts() {
  invalidate();
  watchDom();
  observer.takeRecords();
  mutatedSinceAudit = false;
}

// An audit of one document's share (axe.runPartial) tore its tree down: the next call builds one.
export function treeTornDown() {
  axe.teardown();
  axeReady = false;
}

export function withAxe(fn) {
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

export function virtual(el) {
  return axe.utils.getNodeFromTree(el);
}
