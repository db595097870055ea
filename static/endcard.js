// The end card (issue 38, item 5): at a course lesson's last step the page
// shows, under the narration, that the lesson is done and what comes next:
// the next lesson, a replay in predict mode, a fork from here. The server
// renders the card, in the page's language, into a <template> of the
// header (templates/endcard.templ), which comes again with the header when
// the language changes; this module copies it into the board's slot.

// endVisible is whether the end card shows at step of total: at the last
// step of a run with steps.
export function endVisible(step, total) {
  return total > 0 && step >= total;
}

// showEnd shows the end card at step of total, or hides it; a page with
// no card (a drill, an explore timeline, a student's page) has none to
// show. The slot is filled again only when the header's card changed.
// done says whether the course records the lesson complete (the learner
// stepped to its end, now or before: course.js): the card says so only
// then, and otherwise that stepping through is what completes it.
export function showEnd(doc, step, total, done) {
  const slot = doc.querySelector("[data-end-slot]");
  if (!slot) return;
  const tpl = doc.querySelector("#end-card-tpl");
  const on = Boolean(tpl) && endVisible(step, total);
  if (on && slot.dataset.from !== tpl.innerHTML) {
    slot.replaceChildren(tpl.content.cloneNode(true));
    slot.dataset.from = tpl.innerHTML;
  }
  if (on) {
    const when = done ? "done" : "skipped";
    for (const el of slot.querySelectorAll("[data-when]")) el.hidden = el.dataset.when !== when;
    slot.setAttribute("aria-labelledby", done ? "end-title" : "end-title-skipped");
  }
  slot.hidden = !on;
}

// forkHere brings the fork menu (the explore panel, at the current step)
// into view and puts the focus on its first move.
export function forkHere(doc) {
  const panel = doc.querySelector("#panel-explore");
  if (!panel) return;
  panel.scrollIntoView({ block: "start" });
  const first = panel.querySelector(".fork-choice:not([disabled])");
  if (first) first.focus({ preventScroll: true });
}
