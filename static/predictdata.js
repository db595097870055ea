// What of predict mode a page needs while the mode is off (predict.js,
// the mode itself, is loaded only when it is on: issue 34): the scores kept
// in localStorage per lesson (the course page shows them), the page's
// predict steps (Play pauses on them) and predict mode's state, off.

import { loadJSON, storeJSON } from "./storage.js";

export const PREDICT_KEY = "lockstep.predict.v1"; // lesson → {steps: {n: {guess, got, ok}}}
export const PREDICT_MODE_KEY = "lockstep.predictMode";

// scoreOf sums lesson's answers in all (PREDICT_KEY's object): right and
// total, and the steps answered wrong, in order.
export function scoreOf(all, lesson) {
  const steps = (all[lesson] || {}).steps || {};
  const out = { right: 0, total: 0, misses: [] };
  for (const [n, a] of Object.entries(steps)) {
    out.total++;
    if (a.ok) out.right++;
    else out.misses.push(Number(n));
  }
  out.misses.sort((a, b) => a - b);
  return out;
}

// withAnswer records in all the answer guess for lesson's step, whose
// outcome was got; a later answer for the step replaces an earlier one.
export function withAnswer(all, lesson, step, guess, got) {
  const p = all[lesson] || { steps: {} };
  p.steps[step] = { guess, got, ok: guess === got };
  all[lesson] = p;
  return all;
}

export function predictScore(storage, lesson) {
  return scoreOf(loadJSON(storage, PREDICT_KEY), lesson);
}

export function recordPrediction(storage, lesson, step, guess, got) {
  storeJSON(storage, PREDICT_KEY, withAnswer(loadJSON(storage, PREDICT_KEY), lesson, step, guess, got));
}

// ---------- state ----------

// parseSteps reads the page's data-predict-steps: element i describes step
// i+1 ({actor, do, lock, outcomes}), null when it has nothing to predict.
export function parseSteps(json) {
  try {
    return JSON.parse(json || "[]") || [];
  } catch {
    return [];
  }
}

// newPredict returns predict mode, off, for the steps of parseSteps.
export function newPredict(steps) {
  return {
    on: false,
    steps,
    prompting: 0, // the step whose outcome the bar asks for
    guess: null, // {step, outcome} sent, waiting for its frame
    revealed: 0, // the step whose verdict the bar shows
    afterSeek: 0, // retry: ask for this step once the seek lands before it
    retry: null, // {list, i, started}: the misses being retried
    whyAsking: 0, // the step whose "why" question the bar shows
  };
}

// forgetSteps: a timeline made on this page (a fork) has nothing to predict.
export function forgetSteps(ps) {
  ps.steps = [];
}
