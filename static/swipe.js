// Swipe to step (issue 38, item 11): on a touch screen a horizontal swipe
// across the board steps forward (to the left, as a page turns) or back
// (to the right). A swipe that starts on the timeline's own scroller, a
// form control or a link is the learner's, not a step.

// Thresholds of a swipe: at least MIN_DX px across, more across than
// down (a scroll is not a swipe), within MAX_MS.
export const MIN_DX = 60;
export const MAX_MS = 800;

// swipeAction is the player action of a touch that moved dx, dy px in ms:
// "step" for a swipe to the left, "back" to the right, null for anything
// else (a tap, a scroll, a slow drag).
export function swipeAction(dx, dy, ms) {
  if (ms > MAX_MS || Math.abs(dx) < MIN_DX || Math.abs(dx) < 2 * Math.abs(dy)) return null;
  return dx < 0 ? "step" : "back";
}

// ignored reports whether a touch that starts on el is not a swipe.
function ignored(el) {
  return Boolean(el && el.closest && el.closest(".tl-scroll, input, select, textarea, button, a, details, .predict, .end-card"));
}

// attachSwipe calls onAction(action) for each swipe across el.
export function attachSwipe(el, onAction, now = () => Date.now()) {
  if (!el) return;
  let start = null;
  el.addEventListener(
    "touchstart",
    (e) => {
      start = e.touches.length === 1 && !ignored(e.target) ? { x: e.touches[0].clientX, y: e.touches[0].clientY, t: now() } : null;
    },
    { passive: true },
  );
  el.addEventListener(
    "touchend",
    (e) => {
      if (!start || e.changedTouches.length !== 1) return;
      const p = e.changedTouches[0];
      const a = swipeAction(p.clientX - start.x, p.clientY - start.y, now() - start.t);
      start = null;
      if (a) onAction(a);
    },
    { passive: true },
  );
  el.addEventListener("touchcancel", () => {
    start = null;
  });
}
