// WCAG failures axe-core passes, as axe rules of our own (registered with axe.configure in our
// isolated world, so they run in every audit, in frames too, and their failures are WCAG
// violations like axe's own; docs/trust.md "What axe-core alone would pass"):
//
// - lm-name-perceivable: a name made only of characters nobody sees or hears (zero-width
//   spaces, invisible separators, joiners, bidi marks, soft hyphens, variation selectors,
//   combining marks alone, private-use code points, blank Braille) is no name (WCAG 1.1.1, 4.1.2).
// - lm-hidden-control: a control a sighted person sees and can click, hidden from assistive
//   technology (aria-hidden) and out of the Tab order, exists for mouse users only (WCAG 2.1.1,
//   4.1.2).
// - lm-computed-role-name: an element whose role comes from ElementInternals (invisible to axe,
//   which reads attributes) and whose computed name is empty. The role and the name are
//   Chromium's own, read by the Python side through CDP's accessibility tree and handed in with
//   noteComputed before each audit (lm_eval_a11y/engine/computed_roles.py).

// Roles whose elements must have a name (axe's aria-*-name rules, image-alt, label,
// select-name, button-name, link-name), as axe and as Chromium's accessibility tree name them.
const NAME_REQUIRED_ROLES = new Set([
  'button', 'checkbox', 'combobox', 'link', 'listbox', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'option', 'radio', 'radiogroup', 'searchbox', 'slider', 'spinbutton', 'switch',
  'tab', 'textbox', 'treeitem', 'img', 'image', 'meter', 'progressbar', 'tooltip',
]);
// Roles a person operates.
const OPERATED_ROLES = new Set([
  'button', 'checkbox', 'combobox', 'link', 'listbox', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'option', 'radio', 'searchbox', 'slider', 'spinbutton', 'switch', 'tab',
  'textbox', 'treeitem',
]);

// A character a person can see or hear: anything but white space, control and format
// characters, private-use and unassigned code points, lone surrogates, marks (which only
// modify a base character), default-ignorable code points (joiners, variation selectors,
// Hangul fillers, soft hyphen...) and the blank Braille pattern.
const PERCEIVABLE = /[^\p{White_Space}\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{M}\p{Default_Ignorable_Code_Point}\u2800]/u;

export function isPerceivable(text) {
  return PERCEIVABLE.test(text);
}

// Chromium's computed role and name of elements axe cannot judge by their attributes.
let computed = new WeakMap();

export function noteComputed(elements, infos) {
  computed = new WeakMap();
  elements.forEach((el, index) => computed.set(el, infos[index]));
  return elements.length;
}

// The autonomous custom elements (the only ones that can have ElementInternals) that are
// defined, in the document and in its open shadow roots and the closed ones opened to us,
// without a role attribute (axe reads that one itself). At most `limit`; null when there are none.
export function internalsCandidates(limit) {
  const found = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.localName.includes('-') && !el.hasAttribute('role') && el.matches(':defined')) {
        found.push(el);
      }
      if (el.shadowRoot) {
        walk(el.shadowRoot);
      }
    }
  };
  walk(document);
  if (found.length === 0) {
    computed = new WeakMap();
    return null;
  }
  return found.slice(0, limit + 1);
}

// The composed parent: through a shadow root to its host.
function composedParent(node) {
  if (node.parentElement) {
    return node.parentElement;
  }
  const root = node.getRootNode();
  return root instanceof ShadowRoot ? root.host : null;
}

function composedContains(outer, inner) {
  for (let node = inner; node; node = composedParent(node)) {
    if (node === outer) {
      return true;
    }
  }
  return false;
}

function deepElementFromPoint(x, y) {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) {
      break;
    }
    hit = inner;
  }
  return hit;
}

// Whether something on top of the element (a modal's backdrop) takes the clicks meant for it.
function coveredByOverlay(el) {
  const rect = el.getBoundingClientRect();
  const x = rect.left + rect.width / 2;
  const y = rect.top + rect.height / 2;
  if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight) {
    const hit = deepElementFromPoint(x, y);
    if (!hit || composedContains(el, hit)) {
      return false;
    }
    // A click on the control's label reaches the control.
    return !Array.from(el.labels || []).some((label) => composedContains(label, hit));
  }
  // Out of the viewport: covered by a fixed layer over the whole viewport (a modal's backdrop).
  for (let node = deepElementFromPoint(innerWidth / 2, innerHeight / 2); node; node = composedParent(node)) {
    if (getComputedStyle(node).position === 'fixed') {
      const box = node.getBoundingClientRect();
      const covers = box.width * box.height >= 0.9 * innerWidth * innerHeight;
      if (covers && !composedContains(node, el)) {
        return true;
      }
    }
  }
  return false;
}

function faded(el) {
  let opacity = 1;
  for (let node = el; node; node = composedParent(node)) {
    opacity *= Number(getComputedStyle(node).opacity);
  }
  return opacity < 0.1;
}

function insideInert(el) {
  for (let node = el; node; node = composedParent(node)) {
    if (node.inert) {
      return true;
    }
  }
  return false;
}

function isControl(el, vNode) {
  const role = axe.commons.aria.getRole(vNode);
  return (role !== null && OPERATED_ROLES.has(role)) || el.isContentEditable
    || el.matches('input:not([type="hidden"]), select, textarea, button, a[href], area[href], summary');
}

// A control that is hidden from assistive technology, shown to sighted people, reachable by the
// pointer, not by the Tab key, and not disabled.
function hiddenControlMatches(el, vNode) {
  if (!isControl(el, vNode) || el.disabled || el.tabIndex >= 0) {
    return false;
  }
  if (axe.commons.dom.isVisibleToScreenReaders(vNode) || !axe.commons.dom.isVisibleOnScreen(vNode)) {
    return false;
  }
  const rect = el.getBoundingClientRect();
  if (rect.width < 2 || rect.height < 2 || faded(el) || insideInert(el)) {
    return false;
  }
  return getComputedStyle(el).pointerEvents !== 'none' && !coveredByOverlay(el);
}

function computedName(vNode) {
  return axe.commons.text.accessibleTextVirtual(vNode) || '';
}

function namedElementMatches(el, vNode) {
  if (el.localName === 'iframe' || el.localName === 'frame') {
    return axe.commons.dom.isVisibleToScreenReaders(vNode);
  }
  const role = axe.commons.aria.getRole(vNode);
  return role !== null && NAME_REQUIRED_ROLES.has(role) && axe.commons.dom.isVisibleToScreenReaders(vNode);
}

axe.configure({
  checks: [
    {
      id: 'lm-name-perceivable',
      evaluate(_node, _options, vNode) {
        const name = computedName(vNode);
        return name.trim() === '' || isPerceivable(name);
      },
      metadata: {
        impact: 'serious',
        messages: {
          pass: 'The name has a character a person can see or hear',
          fail: 'The name is made only of invisible characters (zero-width, format, combining or private-use code points): it is no name',
        },
      },
    },
    {
      id: 'lm-hidden-control',
      // Every element the rule matches fails it.
      evaluate: () => false,
      metadata: {
        impact: 'serious',
        messages: {
          pass: 'The control is exposed to assistive technology or reachable by keyboard',
          fail: 'The control is visible and clickable, but hidden from assistive technology (aria-hidden) and out of the Tab order',
        },
      },
    },
    {
      id: 'lm-computed-role-name',
      evaluate(node) {
        const info = computed.get(node);
        return !info || isPerceivable(info.name || '');
      },
      metadata: {
        impact: 'critical',
        messages: {
          pass: 'The element has the name its role requires',
          fail: 'The element has a role that requires a name (set through ElementInternals, as the browser computes it) and no name',
        },
      },
    },
  ],
  rules: [
    {
      id: 'lm-name-perceivable',
      selector: 'img, input, select, textarea, button, a[href], area[href], iframe, frame, svg, [role]',
      matches: namedElementMatches,
      tags: ['cat.text-alternatives', 'wcag2a', 'wcag111', 'wcag412'],
      impact: 'serious',
      metadata: {
        description: 'Ensure every name has a character a person can see or hear',
        help: 'Names must not be made only of invisible characters',
      },
      any: ['lm-name-perceivable'],
    },
    {
      id: 'lm-hidden-control',
      selector: 'input, select, textarea, button, a[href], area[href], summary, [role], [contenteditable]',
      matches: hiddenControlMatches,
      excludeHidden: false,
      tags: ['cat.keyboard', 'wcag2a', 'wcag211', 'wcag412'],
      impact: 'serious',
      metadata: {
        description: 'Ensure visible controls are neither hidden from assistive technology nor out of keyboard reach both',
        help: 'Visible controls must not be hidden from assistive technology and out of the Tab order',
      },
      any: ['lm-hidden-control'],
    },
    {
      id: 'lm-computed-role-name',
      selector: '*',
      matches: (node) => {
        const info = computed.get(node);
        return info !== undefined && !info.ignored && NAME_REQUIRED_ROLES.has(info.role);
      },
      tags: ['cat.aria', 'wcag2a', 'wcag412'],
      impact: 'critical',
      metadata: {
        description: 'Ensure elements whose role comes from ElementInternals have the name the role requires',
        help: 'Elements with a role from ElementInternals must have an accessible name',
      },
      any: ['lm-computed-role-name'],
    },
  ],
});
