// The learner's progress through the course, kept in localStorage per
// lesson ({best, last, total, done}), and the course page that shows it
// with each lesson's predict score.

import { fill } from "./text.js";
import { loadJSON, storeJSON } from "./storage.js";
import { predictScore } from "./predict.js";

export const PROGRESS_KEY = "lockstep.progress.v1";

// progressAfter is lesson progress p (or undefined) after the player showed
// step of total; stepped says the learner stepped to it (→ or play). The
// furthest step stepped to is the best, the end stepped to makes the
// lesson done, and the step shown is where to continue.
export function progressAfter(p, step, total, stepped) {
  const out = p || { best: 0 };
  // An entry stored before done existed is done when its best is the end.
  if (out.done === undefined) out.done = (out.best || 0) >= total && total > 0;
  if (stepped) {
    out.best = Math.max(out.best || 0, step);
    if (step >= total) out.done = true;
  }
  out.last = step;
  out.total = total;
  return out;
}

export function saveProgress(storage, lesson, step, total, stepped) {
  const all = loadJSON(storage, PROGRESS_KEY);
  all[lesson] = progressAfter(all[lesson], step, total, stepped);
  storeJSON(storage, PROGRESS_KEY, all);
}

// cardProgress is what a lesson card of steps steps shows for progress p:
// the best step, whether it is done, the bar's percentage (of the best
// step), the step its link continues at (null: from its start), and the
// step its text names (shown): the further of the best step and the one
// it continues at, so that a lesson opened by a deep link at step 7 reads
// "Step 7 of 11 · Continue", not "Step 0".
export function cardProgress(p, steps) {
  const best = Math.min(p.best || 0, steps);
  const done = p.done === undefined ? best >= steps : Boolean(p.done);
  const continueAt = !done && p.last ? Math.min(p.last, steps) : null;
  return {
    best,
    done,
    percent: Math.round((100 * best) / Math.max(steps, 1)),
    continueAt,
    shown: Math.max(best, continueAt || 0),
  };
}

// showCourseProgress fills the course page's cards (root: #course) in from
// storage.
export function showCourseProgress(doc, root, storage, base) {
  const progress = loadJSON(storage, PROGRESS_KEY);
  const cards = [...root.querySelectorAll(".lesson-card")];
  for (const card of cards) {
    const p = progress[card.dataset.lesson];
    if (!p) continue;
    const steps = Number(card.dataset.steps);
    const c = cardProgress(p, steps);
    card.querySelector("[data-progress-bar]").style.width = `${c.percent}%`;
    card.querySelector("[data-progress-text]").textContent = c.done
      ? root.dataset.tDone
      : fill(root.dataset.tProgressStep, { step: c.shown, total: steps });
    const link = card.querySelector("[data-progress-link]");
    link.textContent = c.done ? root.dataset.tReview : root.dataset.tContinue;
    if (c.continueAt !== null) {
      const u = new URL(link.href, base);
      u.searchParams.set("step", c.continueAt);
      link.href = u.pathname + u.search;
    }
    card.classList.add("started");
    card.classList.toggle("done", c.done);
  }
  for (const card of cards) {
    const sc = predictScore(storage, card.dataset.lesson);
    const el = card.querySelector("[data-predict-score]");
    if (!el || sc.total === 0) continue;
    el.querySelector("[data-score-text]").textContent = fill(root.dataset.tScore, sc);
    el.querySelector("[data-retry-link]").hidden = sc.misses.length === 0;
    el.hidden = false;
  }
}
