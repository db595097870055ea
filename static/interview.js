// The interview pages: the follow-up questions' answers, kept in
// localStorage as they are typed, and the 60-second answer's timer.

import { loadJSON, storeJSON } from "./storage.js";

export const ANSWERS_KEY = "lockstep.interview.v1";

// startInterview keeps each answer (root: #interview) in storage as it is
// typed, and opens (or closes) a question's model answer and its timeline.
export function startInterview(doc, root, storage) {
  const answers = loadJSON(storage, ANSWERS_KEY);
  for (const ta of root.querySelectorAll("textarea[data-answer]")) {
    const id = ta.dataset.answer;
    if (answers[id]) ta.value = answers[id];
    ta.addEventListener("input", () => {
      const all = loadJSON(storage, ANSWERS_KEY);
      all[id] = ta.value;
      storeJSON(storage, ANSWERS_KEY, all);
      const s = root.querySelector(`[data-saved="${id}"]`);
      if (s) s.textContent = root.dataset.tSaved;
    });
  }
  root.addEventListener("click", (e) => {
    const b = e.target.closest("[data-reveal]");
    if (!b) return;
    const id = b.dataset.reveal;
    const open = b.getAttribute("aria-expanded") !== "true";
    b.setAttribute("aria-expanded", String(open));
    b.textContent = open ? root.dataset.tHide : root.dataset.tShow;
    b.closest("[data-question]").classList.toggle("revealed", open);
    for (const el of [doc.getElementById(`${id}-model`), root.querySelector(`[data-demo="${id}"]`)]) {
      if (el) el.hidden = !open;
    }
  });
  // ready: the buttons answer from now on (a click before the module has
  // loaded does nothing; a test waits for this before it clicks)
  root.dataset.ready = "";
}

// timerView is what the timer shows with leftMs of totalS seconds left:
// whole seconds (rounded up), the arc's dash offset (its length is 60) and
// whether time runs low (10 s or less).
export function timerView(leftMs, totalS) {
  const secs = Math.ceil(leftMs / 1000);
  return { secs, offset: 60 - (60 * leftMs) / (totalS * 1000), low: secs <= 10 };
}

// startTimer runs the 60-second answer's timer (root: #sixty); now() is
// the clock in ms.
export function startTimer(root, now, timers) {
  const box = root.querySelector("[data-timer]");
  if (!box) return;
  const total = Number(box.dataset.seconds) || 60;
  const count = root.querySelector("[data-timer-count]");
  const arc = root.querySelector("[data-timer-arc]");
  const status = root.querySelector("[data-timer-status]");
  const toggle = root.querySelector("[data-timer-toggle]");
  const t = { left: total * 1000, endsAt: 0, tick: 0 };
  const draw = () => {
    const v = timerView(t.left, total);
    count.textContent = String(v.secs);
    arc.style.strokeDashoffset = String(v.offset);
    box.dataset.running = String(Boolean(t.tick));
    box.classList.toggle("low", v.low);
  };
  const stop = () => {
    timers.clearInterval(t.tick);
    t.tick = 0;
    toggle.textContent = root.dataset.tStart;
    draw();
  };
  const update = () => {
    t.left = Math.max(0, t.endsAt - now());
    if (t.left === 0) {
      stop();
      status.textContent = root.dataset.tDone;
      return;
    }
    draw();
  };
  toggle.addEventListener("click", () => {
    if (t.tick) {
      update();
      stop();
      return;
    }
    if (t.left === 0) t.left = total * 1000;
    status.textContent = "";
    t.endsAt = now() + t.left;
    t.tick = timers.setInterval(update, 200);
    toggle.textContent = root.dataset.tStop;
    draw();
  });
  root.querySelector("[data-timer-reset]").addEventListener("click", () => {
    stop();
    t.left = total * 1000;
    status.textContent = "";
    draw();
  });
  draw();
}
