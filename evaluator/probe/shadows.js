// The shadow roots this world can see: open ones, and closed ones the audit opened to it (an own
// `shadowRoot` property of the host's wrapper here, audit.py). A MutationObserver of the
// document does not see into them, and attaching one to an element already in the page is no
// mutation at all: the watch of a page's own changes observes each root it knows and looks, as
// it polls, for roots attached since (a form shown in a shadow root for a second and taken away
// again would otherwise never be audited).

// Every shadow root seen, depth first in document order.
export function shadowRootsSeen() {
  const roots = [];
  const scan = (elements) => {
    for (let i = 0; i < elements.length; i += 1) {
      const root = elements[i].shadowRoot;
      if (root) {
        roots.push(root);
        scan(root.querySelectorAll('*'));
      }
    }
  };
  scan(document.getElementsByTagName('*'));
  return roots;
}

// Whether the roots seen now are not those of `before`.
export function shadowRootsChanged(before) {
  const now = shadowRootsSeen();
  return now.length !== before.length || now.some((root, i) => root !== before[i]);
}

// Has `watcher` observe each root of `roots` as it observes the document.
export function observeRoots(watcher, roots) {
  for (const root of roots) {
    watcher.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  }
}
