import { element } from './refs.js';

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

export function watch(ref, attributes, selector) {
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

export function watched(ref) {
  const entry = watches.get(ref);
  if (entry === undefined) {
    throw new Error(`element ${ref} is not watched`);
  }
  absorbWatch(entry, entry.observer.takeRecords());
  return entry.changes.slice();
}
