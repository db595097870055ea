// The learner's progress through the course, kept in localStorage per
// lesson ({best, last, total, done}), and the course page that shows it
// with each lesson's predict score.

import { fill } from "./text.js";
import { loadJSON, storeJSON } from "./storage.js";
import { predictScore } from "./predictdata.js";
import { cardProgress, courseState } from "./coursestate.js";

export { cardProgress } from "./coursestate.js";

export const PROGRESS_KEY = "lockstep.progress.v1";
// LAST_KEY holds the id of the lesson the learner opened last, where the
// course page's "Continue" goes.
export const LAST_KEY = "lockstep.lastLesson.v1";

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

// saveProgress stores lesson's progress after the player showed step of
// total (see progressAfter) and returns it.
export function saveProgress(storage, lesson, step, total, stepped) {
  const all = loadJSON(storage, PROGRESS_KEY);
  all[lesson] = progressAfter(all[lesson], step, total, stepped);
  storeJSON(storage, PROGRESS_KEY, all);
  storeJSON(storage, LAST_KEY, { id: lesson });
  return all[lesson];
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
  showOverall(root, cards, progress, loadJSON(storage, LAST_KEY).id || null, base);
  for (const card of cards) {
    const sc = predictScore(storage, card.dataset.lesson);
    const el = card.querySelector("[data-predict-score]");
    if (!el || sc.total === 0) continue;
    el.querySelector("[data-score-text]").textContent = fill(root.dataset.tScore, sc);
    el.querySelector("[data-retry-link]").hidden = sc.misses.length === 0;
    el.hidden = false;
  }
}

// showOverall fills the course's overall progress (root's
// [data-course-progress]) in: lessons done, the bar, and the one link to
// follow (courseState's next), named with its lesson's title.
function showOverall(root, cards, progress, last, base) {
  const box = root.querySelector("[data-course-progress]");
  if (!box) return;
  const st = courseState(
    progress,
    cards.map((c) => ({ id: c.dataset.lesson, steps: Number(c.dataset.steps) })),
    last,
  );
  box.dataset.kind = st.next.kind;
  box.querySelector("[data-course-count]").textContent = fill(root.dataset.tDoneCount, st);
  box.querySelector("[data-course-bar]").style.width = `${st.percent}%`;
  const link = box.querySelector("[data-course-next]");
  if (!link) return;
  const card = cards.find((c) => c.dataset.lesson === st.next.id);
  if (!card) {
    link.textContent = root.dataset.tAllDone;
    link.href = "#" + (root.querySelector(".lesson-group")?.id || "course");
    link.dataset.nextLesson = "";
    return;
  }
  const a = card.querySelector("[data-lesson-link]");
  const u = new URL(a.href, base);
  if (st.next.step !== null) u.searchParams.set("step", st.next.step);
  link.href = u.pathname + u.search;
  link.dataset.nextLesson = st.next.id;
  const msg = st.next.kind === "start" ? root.dataset.tStartHere : root.dataset.tContinueWith;
  link.textContent = fill(msg, { title: a.textContent });
}
