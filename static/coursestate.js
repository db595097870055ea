// The course's overall state, from the learner's progress in localStorage
// (course.js keeps it per lesson): how many lessons are done, and the one
// lesson to go to next, which the course page offers as "Start here" or
// "Continue". Pure functions of plain data: no DOM, no storage.

// cardProgress is what a lesson card of steps steps shows for progress p:
// the best step, whether it is done, the bar's percentage (of the best
// step), the step its link continues at (null: from its start), and the
// step its text names (shown): the further of the best step and the one
// it continues at, so that a lesson opened by a deep link at step 7 reads
// "Step 7 of 11 · Continue", not "Step 0"; left at its end unstepped (a
// jump), at the first step not stepped through.
export function cardProgress(p, steps) {
  const best = Math.min(p.best || 0, steps);
  const done = p.done === undefined ? best >= steps : Boolean(p.done);
  let continueAt = !done && p.last ? Math.min(p.last, steps) : null;
  if (continueAt !== null && continueAt >= steps) continueAt = best > 0 ? Math.min(best + 1, steps) : null;
  return {
    best,
    done,
    percent: Math.round((100 * best) / Math.max(steps, 1)),
    continueAt,
    shown: Math.max(best, continueAt || 0),
  };
}

// courseState is the course of lessons ([{id, steps}], in course order)
// for progress (course.js's {id: {best, last, total, done}}) and last,
// the id of the lesson the learner opened last (or null):
//   {done, total, percent, next}
// where next is {kind, id, step}: kind "start" (nothing stored: the first
// lesson), "continue" (a lesson begun and not done: the last one opened,
// else the first after it in the course; step is where it stopped, or
// null for its start) or "review" (every lesson done: id null).
export function courseState(progress, lessons, last) {
  const cards = lessons.map((l) => ({ id: l.id, c: progress[l.id] ? cardProgress(progress[l.id], l.steps) : null }));
  const done = cards.filter((x) => x.c && x.c.done).length;
  const total = lessons.length;
  const state = { done, total, percent: total ? Math.round((100 * done) / total) : 0, next: { kind: "review", id: null, step: null } };
  if (total === 0) return state;
  if (!cards.some((x) => x.c)) {
    state.next = { kind: "start", id: lessons[0].id, step: null };
    return state;
  }
  // From the lesson opened last (or the course's start), the first lesson
  // not done, wrapping round: the last one itself when it is not done.
  const from = Math.max(0, cards.findIndex((x) => x.id === last));
  for (let k = 0; k < total; k++) {
    const x = cards[(from + k) % total];
    if (x.c && x.c.done) continue;
    state.next = { kind: "continue", id: x.id, step: x.c ? x.c.continueAt : null };
    return state;
  }
  return state;
}
