// Play (the player's Play button, Space): the page walks the run itself,
// one step message after another, and each step stays on screen for as
// long as its narration takes to read (dwellMs), not a fixed 1.45 s. Play
// stops on its own where the story happens (issue 38, item 14):
//   "invariant"  the step just shown broke an invariant it did not break
//                before (a stale owner, two holders, ...);
//   "predict"    the next step's outcome is worth predicting (the page's
//                data-predict-steps marks it "pause": view.WorthPredicting);
//   "end"        the last step.
// Pressed again, Play goes on from there.
//
// The state is a plain object made by newPlay; the rules below change it
// and return effects, plain objects the page carries out in order:
//   {send: msg}     send a protocol message
//   {wait: ms}      step on (tick) after ms, unless stopped before
//   {cancel: true}  forget a wait in progress
//   {show: true}    show whether Play runs, and why it stopped (ps.reason)
// The timer itself is the page's (app.js): a rule never reads a clock.

// Reading speeds the dwell is made of, at speed 1: a learner reads about
// 15 Latin characters a second (some 180 words a minute) and about 6
// Chinese characters a second, and needs a moment to look at the
// drawings whatever the text.
export const LOOK_MS = 1200;
export const LATIN_PER_S = 15;
export const CJK_PER_S = 6;
export const MIN_DWELL_MS = 1500;
export const MAX_DWELL_MS = 15000;

// isWide reports whether code point c is a CJK character (read more
// slowly than a Latin letter).
function isWide(c) {
  return (
    (c >= 0x2e80 && c <= 0x9fff) || // radicals, kana, CJK symbols and ideographs
    (c >= 0xf900 && c <= 0xfaff) || // compatibility ideographs
    (c >= 0xff00 && c <= 0xffef) || // fullwidth forms (，。：)
    (c >= 0x20000 && c <= 0x2fa1f) // extension ideographs
  );
}

// readCost counts text's characters as reading takes them: Latin letters
// and digits, and CJK characters; spaces and runs of spaces count once.
export function readCost(text) {
  let latin = 0;
  let wide = 0;
  for (const ch of String(text || "").replace(/\s+/g, " ").trim()) {
    if (isWide(ch.codePointAt(0))) wide++;
    else latin++;
  }
  return { latin, wide };
}

// dwellMs is how long, in milliseconds, Play shows a step whose narration
// is text at speed (the Speed menu: 0.5 to 4; anything else counts as 1):
// a look at the drawings plus the text's reading time, between
// MIN_DWELL_MS and MAX_DWELL_MS at speed 1, divided by speed.
export function dwellMs(text, speed) {
  const s = Number(speed) > 0 ? Number(speed) : 1;
  const { latin, wide } = readCost(text);
  const ms = LOOK_MS + (latin * 1000) / LATIN_PER_S + (wide * 1000) / CJK_PER_S;
  return Math.round(Math.min(MAX_DWELL_MS, Math.max(MIN_DWELL_MS, ms)) / s);
}

// violationKeys are the invariants a frame (sim.Frame) reports broken, one
// key per invariant and lock.
export function violationKeys(frame) {
  return ((frame && frame.violations) || []).map((v) => `${v.name}\u0000${v.lock}`);
}

// newPlay returns Play, stopped; steps are the page's predict steps
// (predict.parseSteps: element i is step i+1, null with nothing to predict).
export function newPlay(steps) {
  return {
    on: false,
    steps: steps || [],
    speed: 1,
    reason: "", // why Play last stopped on its own: "invariant", "predict", "end" or ""
    waiting: false, // a wait is in progress (the page's timer)
    broken: new Set(), // violationKeys of the last frame shown
  };
}

// forgetSteps: a timeline made on this page (a fork) has no predict steps.
export function forgetSteps(ps) {
  ps.steps = [];
}

// start starts Play at step of total, showing text and frame (sim.Frame,
// whose broken invariants are not news), at speed: from the start when at
// the end (a seek to 0, whose frame goes on), else after the current
// step's dwell.
export function start(ps, step, total, text, speed, frame) {
  ps.on = true;
  if (frame) ps.broken = new Set(violationKeys(frame));
  ps.reason = "";
  ps.speed = Number(speed) > 0 ? Number(speed) : 1;
  if (step >= total) {
    ps.waiting = false;
    return [{ show: true }, { send: { type: "seek", step: 0 } }];
  }
  ps.waiting = true;
  return [{ show: true }, { wait: dwellMs(text, ps.speed) }];
}

// stop stops Play (Pause, or any other move of the learner's); reason is
// why it stopped on its own, "" for the learner's.
export function stop(ps, reason = "") {
  const fx = [];
  if (ps.waiting) fx.push({ cancel: true });
  const changed = ps.on || ps.reason !== reason;
  ps.on = false;
  ps.waiting = false;
  ps.reason = reason;
  if (changed) fx.push({ show: true });
  return fx;
}

// setSpeed changes Play's speed; the next wait takes it.
export function setSpeed(ps, speed) {
  ps.speed = Number(speed) > 0 ? Number(speed) : 1;
}

// tick is the end of a wait: the next step.
export function tick(ps) {
  if (!ps.on || !ps.waiting) return [];
  ps.waiting = false;
  return [{ send: { type: "step" } }];
}

// onFrame is a frame m ({step, total, frame}) shown with narration text:
// it remembers the invariants the frame breaks, and while Play runs it
// stops (a new broken invariant, the end, a next step worth predicting)
// or waits for the frame's dwell.
export function onFrame(ps, m, text) {
  const keys = violationKeys(m.frame);
  const fresh = keys.some((k) => !ps.broken.has(k));
  ps.broken = new Set(keys);
  if (!ps.on) return [];
  if (fresh) return stop(ps, "invariant");
  if (m.step >= m.total) return stop(ps, "end");
  const next = ps.steps[m.step]; // step m.step + 1
  if (next && next.pause) return stop(ps, "predict");
  const fx = ps.waiting ? [{ cancel: true }] : [];
  ps.waiting = true;
  fx.push({ wait: dwellMs(text, ps.speed) });
  return fx;
}

// ---------- DOM edge ----------

// NOT_READ are the narration's parts a learner does not read as the
// step's story: the step line ("Step 3 of 9 · 2.0 s") and the author's
// expect-check, hidden outside the author view (issue 38 review, item 5:
// counting them made Play dwell the 15 s cap on ~180 visible characters).
const NOT_READ = ".step-line, .check, [aria-hidden=\"true\"]";

// readableText is the text under node (a DOM node) a learner reads: its
// text nodes, less those inside a hidden element or a NOT_READ part.
export function readableText(node) {
  if (!node) return "";
  if (node.nodeType === 3) return node.data || "";
  if (node.nodeType !== 1 || node.hidden || node.matches(NOT_READ)) return "";
  let out = "";
  for (const c of node.childNodes) out += " " + readableText(c);
  return out;
}

// narrationText is the text Play gives a step to be read: the narration's
// words as a learner sees them (readableText of .narr), not the panel's
// heading, step line or author check.
export function narrationText(doc) {
  return readableText(doc.querySelector('[data-panel="narration"] .narr'));
}

// showStopped says in the control bar why Play stopped on its own (the
// data-t-play-stop-<reason> text), or nothing; the player's
// data-play-stop holds the reason for the page's style.
export function showStopped(doc, root, ps, t) {
  const el = doc.querySelector("#play-note");
  const key = ps.reason ? `tPlayStop${ps.reason[0].toUpperCase()}${ps.reason.slice(1)}` : "";
  if (ps.reason) root.dataset.playStop = ps.reason;
  else delete root.dataset.playStop;
  if (el) el.textContent = key ? t(key) : "";
}
