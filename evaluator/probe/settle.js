// Waiting for the page: its reaction to an action, and the animations that action started.

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
export function animationTimeLeft(capMs, deadline = Infinity, waited = null) {
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
export async function settle(ms, capMs) {
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
export function settleThen(ms, capMs, read) {
  return settle(ms, capMs).then((end) => ({ value: read(), restless: end === 'restless', stalled: end === 'stalled' }));
}
