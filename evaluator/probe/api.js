import {
  adoptBaseline, armChange, auditBaseline, axePartial, finishAxe, frameElements, lateSignals, mayChangeItself, nextChange, runAxe, stateAudited, timersRun,
  timersWithoutDelay,
} from './audit.js';
import { conditionBaseline, conditionDiffers } from './conditions.js';
import {
  contrastBlocked, contrastChoose, contrastClip, contrastNodes, contrastPixels, contrastScrollTo, contrastSeen, contrastSweep,
  stylesDarkScheme,
} from './contrast.js';
import {
  byRole, contentBefore, deepActive, describe, FOCUS_CANDIDATES, focusStyle, headings, isFocusable,
  isHiddenFromAT, isVisible, isWithin, landmarks, nameOf, queryAll, rangeValue, roleOf,
} from './elements.js';
import { blankPoint, companions, effectPlace, effectState, elementAtPlace, keyboardPaths } from './effects.js';
import { internalsCandidates, noteComputed } from './extra-rules.js';
import { focusClip, pixelsDiffer, restlessAround, stopKind } from './focus-ring.js';
import { quietReset } from './focus-start.js';
import { keyboardFacts, pointerCursors } from './keyboard-reach.js';
import { dragLooking, hiddenContent, shownAmong } from './mouse-only.js';
import { countEnd, countSeen } from './node-count.js';
import { overflowingText } from './reflow.js';
import { element, refOf } from './refs.js';
import { animationTimeLeft, settleThen } from './settle.js';
import { shownFingerprint } from './states.js';
import { renderedTextChars } from './text.js';
import { sync, touched, treeBuilds, withAxe } from './tree.js';
import {
  hoverTargets, modalDialog, openers, popupTriggers, renderedRefs, scrollRoom, walkFingerprint,
} from './walk.js';
import { watch, watched } from './watch.js';

// The probe's one entry point: the frozen object `globalThis.__a11yProbe` whose functions the
// Python side calls by name (Session.probe), each answering plain JSON so that the Python side
// never holds remote objects.
//
// The probe runs after axe-core inside a Chromium isolated world that belongs to the sample's
// document. The page's own scripts live in the main world and cannot see or patch anything
// defined here: they may replace window.axe, Element.prototype.getAttribute or
// document.activeElement in their world, and this world still sees the real DOM.
//
// The modules of this folder are ES modules, one concern each; lm_eval_a11y/probe_bundle.py
// joins them, from this one, into the single script that is evaluated in each world.
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
  timersRun,
  timersWithoutDelay,
  finishAxe,
  // The rules of extra-rules.js: the custom elements whose role may come from ElementInternals,
  // and Chromium's computed role and name of each (read through CDP), before an audit.
  internalsCandidates,
  noteComputed,
  // The nodes this world sees, against CDP's count (hidden_nodes.py).
  countSeen,
  countEnd,
  // Characters of the text the page shows (text.js), for the reward's floor of text.
  renderedTextChars,
  // Scroll to the end of the page, as a visitor reading it would: content a page adds on
  // scroll events is then in the document by the late audit.
  scrollThrough: () => {
    window.scrollTo(0, document.documentElement.scrollHeight);
    touched();
    return true;
  },
  nextChange,
  armChange,
  stateAudited,
  // What the page shows, as a fingerprint (states.js): a check's action changed it or not.
  shownFingerprint,
  lateSignals,
  auditBaseline,
  adoptBaseline,
  mayChangeItself,
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
  // With `kind`, also the kind of the focused element (stopKind); with `fingerprint`, what the
  // page shows (shownFingerprint), in the same round trip.
  step: (ref, kind, fingerprint) => new Promise((resolve, reject) => {
    setTimeout(() => {
      try {
        const active = deepActive();
        const target = ref === null ? null : element(ref);
        resolve({
          ref: refOf(active),
          within: target !== null && isWithin(target, active),
          kind: kind && active ? stopKind(active) : null,
          fingerprint: fingerprint ? shownFingerprint() : null,
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
  contrastBlocked,
  contrastChoose,
  contrastNodes,
  contrastSweep,
  contrastClip,
  contrastScrollTo,
  contrastPixels,
  contrastViolationCount: () => contrastSeen.filter((seen) => seen.kind === 'violation').length,
  stylesDarkScheme,
  // Screens and preferences (lm_eval_a11y/engine/conditions.py): the page's print in the default
  // condition, and whether it differs under an emulated one.
  conditionBaseline,
  conditionDiffers,
  // A visitor's walk (lm_eval_a11y/engine/walk.py).
  walkFingerprint,
  modalDialog,
  hoverTargets,
  hiddenContent,
  shownAmong,
  dragLooking,
  // Same effect by keyboard (lm_eval_a11y/generic/same_effect.py).
  blankPoint,
  effectPlace,
  effectState,
  elementAtPlace,
  keyboardPaths,
  companions,
  openers,
  // Popups the generic checks open from the keyboard (lm_eval_a11y/generic/popups.py).
  popupTriggers,
  renderedRefs,
  scrollRoom,
});
