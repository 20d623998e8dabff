// The nodes of the document this world can see, counted the way CDP's DOM.performSearch counts
// the matches of the query '<' (every element, and each text, comment or CDATA node whose text
// has a '<'), so that the Python side can tell whether the page holds nodes no world of ours
// sees: those in closed shadow roots (lm_eval_a11y/engine/hidden_nodes.py). Open shadow roots are
// counted, closed ones opened to us are not (their mode says 'closed').

let watcher = null;

function countFrom(root, roots) {
  let count = 0;
  const walker = document.createTreeWalker(root,
    NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT | NodeFilter.SHOW_COMMENT | NodeFilter.SHOW_CDATA_SECTION);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeType !== Node.ELEMENT_NODE) {
      count += node.nodeValue.includes('<') ? 1 : 0;
      continue;
    }
    count += 1;
    const shadow = node.shadowRoot;
    if (shadow && shadow.mode === 'open') {
      roots.push(shadow);
      count += countFrom(shadow, roots);
    }
  }
  return count;
}

// { count }, and when there are at least `watchFrom` a watch on every change to what was
// counted, until countEnd.
export function countSeen(watchFrom) {
  const roots = [document];
  const count = countFrom(document, roots);
  if (count >= watchFrom) {
    watcher = new MutationObserver(() => {});
    for (const root of roots) {
      watcher.observe(root, { subtree: true, childList: true, characterData: true });
    }
  }
  return { count };
}

// { count, changed }: the count again, and whether anything counted changed since countSeen.
export function countEnd() {
  const changed = watcher === null || watcher.takeRecords().length > 0;
  if (watcher !== null) {
    watcher.disconnect();
    watcher = null;
  }
  return { count: countSeen(Infinity).count, changed };
}
