// Predict mode (the player's Predict toggle, ?predict=1): before each step
// whose action has more than one outcome the page asks which outcome it
// will come to; the answer sends the step, and the frame's outcome is the
// verdict. Scores live in localStorage per lesson (the latest answer per
// step), and "retry my misses" (?retry=1) walks the steps answered wrong.
//
// The state is a plain object made by newPredict; it, the scores and the
// page's steps are predictdata.js's (re-exported here), which a page loads
// with the mode off, this module only once the mode is on. The rules are functions
// that change it and return effects, plain objects the page carries out in
// order:
//   {ask: n}          show the question for step n (its outcomes as buttons)
//   {chosen: o}       mark the chosen outcome, turn the choices off
//   {send: msg}       send a protocol message
//   {record: {step, guess, got}}   store the answer
//   {verdict: {step, guess, got, ok, retryDone}}   show it
//   {why: n}          below the verdict, ask step n's "why" question
//   {whyVerdict: {step, chosen, ok, right}}   mark the reason chosen, turn
//                     the reasons off, say whether it was the right one
//   {note: textKey}   a note in the bar
//   {hide: true}      hide the bar
//   {score: true}     show the score again
//   {retryParam: false}   drop retry=1 from the address
// renderBar and the functions after it are the DOM edge.

import { fill } from "./text.js";

export {
  PREDICT_KEY,
  PREDICT_MODE_KEY,
  scoreOf,
  withAnswer,
  predictScore,
  recordPrediction,
  parseSteps,
  newPredict,
  forgetSteps,
} from "./predictdata.js";

// ---------- rules ----------

// setMode turns predict mode on or off; off forgets any question, answer
// on its way and retry, and hides the bar.
export function setMode(ps, on) {
  ps.on = on;
  if (on) return [];
  ps.prompting = 0;
  ps.guess = null;
  ps.retry = null;
  ps.afterSeek = 0;
  return hide(ps);
}

// startRetry begins "retry my misses" over the steps in misses.
export function startRetry(ps, misses) {
  ps.retry = { list: misses, i: 0, started: false };
}

function hide(ps) {
  ps.revealed = 0;
  ps.whyAsking = 0;
  return [{ hide: true }];
}

function ask(ps, n) {
  if (!ps.steps[n - 1]) return [];
  ps.prompting = n;
  return [{ ask: n }];
}

function nextRetry(ps, step) {
  const target = ps.retry.list[ps.retry.i];
  ps.retry.started = true;
  if (step === target - 1) return ask(ps, target);
  ps.afterSeek = target;
  return [{ send: { type: "seek", step: target - 1 } }];
}

// stepForward is a step forward (→, the Step button) at step of total in
// predict mode: ask first when the next step has an outcome to predict.
// handled is false for a plain step, which the page then sends.
export function stepForward(ps, step, total) {
  if (ps.guess || ps.afterSeek) return { handled: true, fx: [] }; // a reply is on its way
  const fx = [];
  if (ps.retry && ps.retry.started) {
    if (ps.retry.i < ps.retry.list.length) return { handled: true, fx: nextRetry(ps, step) };
    ps.retry = null;
    fx.push({ retryParam: false });
  }
  const next = step + 1;
  if (next > total) return { handled: false, fx };
  if (ps.prompting === next) return { handled: true, fx };
  if (!ps.steps[next - 1]) return { handled: false, fx };
  return { handled: true, fx: fx.concat(ask(ps, next)) };
}

// choose answers the question with outcome and sends the step asked about
// (a step from step, else a seek to it).
export function choose(ps, outcome, step) {
  const n = ps.prompting;
  if (!n) return [];
  ps.prompting = 0;
  ps.guess = { step: n, outcome };
  return [{ chosen: outcome }, { send: step === n - 1 ? { type: "step" } : { type: "seek", step: n } }];
}

// hasWhy reports whether step entry s carries a "why" question.
function hasWhy(s) {
  return Boolean(s && s.why && Array.isArray(s.because) && s.because.length > 1);
}

// chooseWhy answers the shown "why" question with reason i (an index into
// the step's because): right or not, the verdict names the right reason.
export function chooseWhy(ps, i) {
  const n = ps.whyAsking;
  if (!n) return [];
  ps.whyAsking = 0;
  const right = ps.steps[n - 1].right || 0;
  return [{ whyVerdict: { step: n, chosen: i, ok: i === right, right } }];
}

// inLang is text object m ({locale: text}) in lang, else in English.
export function inLang(m, lang) {
  return (m && (m[lang] || m.en)) || "";
}

// whyVerdictLine is the bar's [class, text] after a "why" answer v for
// step entry s, in lang.
export function whyVerdictLine(v, s, text, lang) {
  const reason = inLang(s.because[v.right], lang);
  return [`predict-why-verdict ${v.ok ? "right" : "wrong"}`, fill(text(v.ok ? "tPredictWhyRight" : "tPredictWhyWrong"), { reason })];
}

// choiceForKey is the outcome key 1 to 9 picks while a question is shown,
// or null.
export function choiceForKey(ps, key) {
  if (!ps.prompting || !/^[1-9]$/.test(key)) return null;
  const outs = ps.steps[ps.prompting - 1]?.outcomes || [];
  return outs[Number(key) - 1] || null;
}

// playNote: play is off in predict mode; say so, in the bar, or beside
// the question or the answer it holds (aside), which stay.
export function playNote(ps) {
  if (ps.prompting || ps.guess) return [{ aside: "tPredictPlayOff" }];
  return [{ note: "tPredictPlayOff" }];
}

// onFrame handles frame m ({step, frame: {outcome}}) in predict mode;
// loaded is set for a frame with chrome (a load, a language, a fork).
export function onFrame(ps, m, loaded) {
  if (ps.afterSeek) {
    if (m.step !== ps.afterSeek - 1) return [];
    const n = ps.afterSeek;
    ps.afterSeek = 0;
    return ask(ps, n);
  }
  if (ps.guess) {
    const g = ps.guess;
    ps.guess = null;
    if (m.step !== g.step) return hide(ps);
    const got = m.frame.outcome;
    if (ps.retry && ps.retry.list[ps.retry.i] === g.step) ps.retry.i++;
    const ok = g.outcome === got;
    const retryDone = Boolean(ps.retry && ps.retry.i >= ps.retry.list.length);
    ps.revealed = g.step;
    const fx = [
      { record: { step: g.step, guess: g.outcome, got } },
      { verdict: { step: g.step, guess: g.outcome, got, ok, retryDone } },
      { score: true },
    ];
    if (hasWhy(ps.steps[g.step - 1])) {
      ps.whyAsking = g.step;
      fx.push({ why: g.step });
    }
    return fx;
  }
  if (loaded && ps.retry && !ps.retry.started) {
    if (ps.retry.list.length) return nextRetry(ps, m.step);
    ps.retry = null;
    return [{ note: "tRetryNone" }];
  }
  if (ps.prompting && m.step === ps.prompting - 1) {
    return loaded ? ask(ps, ps.prompting) : []; // the language changed: ask again in it
  }
  ps.prompting = 0;
  const fx = ps.revealed !== m.step || loaded ? hide(ps) : [];
  return fx.concat({ score: true });
}

// ---------- the answer, veiled until the learner has given theirs ----------

// EXPLANATION selects the narration's parts that answer a step's "why"
// question: its say, misconception callout, lesson note and takeaway.
export const EXPLANATION = ".narr .say, .narr .misconception, .narr .lesson-note, .narr .takeaway";

// veil says what predict mode hides at step of total, so that the page
// does not give an answer away before the learner has given theirs (issue
// 39): the narration's explanation of step n while n's "why" question waits
// for its answer, and the lesson's summary, which often tells the
// lesson's outcome, until the last step. Off, it hides nothing.
export function veil(ps, step, total) {
  return {
    explanation: ps.on && ps.whyAsking > 0 && ps.whyAsking === step,
    summary: ps.on && step < total,
  };
}

// retryLine is the bar's "n of total" line while misses are retried, for a
// bar in state (ask, right, wrong, note), or null.
export function retryLine(ps, state, template) {
  const r = ps.retry;
  if (!r || !r.list.length || state === "note") return null;
  return fill(template, { n: Math.min(r.i + (state === "ask" ? 1 : 0), r.list.length), total: r.list.length });
}

// verdictLines are the bar's paragraphs, [class, text], for a verdict v;
// text(key) gives the page's translations, glosses the outcomes' glosses.
export function verdictLines(v, text, glosses) {
  const verdict = v.ok
    ? fill(text("tPredictRight"), { outcome: v.got })
    : fill(text("tPredictWrong"), { guess: v.guess, outcome: v.got });
  const lines = [[`predict-verdict ${v.ok ? "right" : "wrong"}`, verdict]];
  if (glosses[v.got]) lines.push(["predict-gloss", `${v.got}: ${glosses[v.got]}`]);
  lines.push(["predict-why", text("tPredictWhy")]);
  if (v.retryDone) lines.push(["predict-note", text("tRetryDone")]);
  return lines;
}

// questionLines are the bar's paragraphs asking about step n (s: its entry
// of parseSteps).
export function questionLines(n, s, text, glosses) {
  return [
    ["predict-q", fill(text("tPredictPrompt"), { step: n, actor: s.actor, action: glosses[s.check_only ? "act:check-token" : `act:${s.do}`] || s.do, lock: s.lock })],
    ["predict-hint", fill(text("tPredictChoose"), { last: s.outcomes.length })],
  ];
}

// scoreText is the control bar's score line for score sc.
export function scoreText(sc, text) {
  return sc.total ? fill(text("tPredictScore"), sc) : text("tPredictNone");
}

// ---------- DOM edge ----------

// fillBar replaces the bar's content with the retry line (when retrying)
// and paragraphs of [class, text], and shows it. It returns the bar, or
// null when the page has none.
export function fillBar(doc, ps, state, lines, text) {
  const b = doc.querySelector("[data-predict-bar]");
  if (!b) return null;
  b.dataset.state = state;
  b.replaceChildren();
  const progress = retryLine(ps, state, text("tRetryProgress"));
  for (const [cls, t] of progress === null ? lines : [["predict-retry", progress], ...lines]) {
    const p = doc.createElement("p");
    p.className = cls;
    p.textContent = t;
    b.append(p);
  }
  b.hidden = false;
  return b;
}

// showAside adds line t to the bar below what it shows, once; a bar that
// is hidden shows only it.
export function showAside(doc, t) {
  const b = doc.querySelector("[data-predict-bar]");
  if (!b) return;
  if (b.hidden) b.replaceChildren();
  let p = b.querySelector(".predict-aside");
  if (!p) {
    p = doc.createElement("p");
    p.className = "predict-aside";
    b.append(p);
  }
  p.textContent = t;
  b.hidden = false;
}

export function hideBar(doc) {
  const b = doc.querySelector("[data-predict-bar]");
  if (b) {
    b.hidden = true;
    b.replaceChildren();
  }
}

// buttonGroup is a role=group div of class cls with one button per item,
// each made by fill(button, item, i) after its type is set.
function buttonGroup(doc, cls, items, fill) {
  const group = doc.createElement("div");
  group.className = cls;
  group.setAttribute("role", "group");
  items.forEach((item, i) => {
    const btn = doc.createElement("button");
    btn.type = "button";
    fill(btn, item, i);
    group.append(btn);
  });
  return group;
}

// showQuestion asks about step n: the question, and a button per outcome
// (key 1 to 9), the first one focused.
export function showQuestion(doc, ps, n, text, glosses) {
  const s = ps.steps[n - 1];
  const b = fillBar(doc, ps, "ask", questionLines(n, s, text, glosses), text);
  if (!b) return;
  const group = buttonGroup(doc, "predict-choices", s.outcomes, (btn, o, i) => {
    btn.dataset.choice = o;
    const k = doc.createElement("kbd");
    k.textContent = String(i + 1);
    const c = doc.createElement("code");
    c.textContent = o;
    const t = doc.createElement("span");
    t.className = "gloss";
    t.textContent = glosses[o] || "";
    btn.append(k, c, t);
  });
  b.append(group);
  group.querySelector("button")?.focus({ preventScroll: true });
}

// showWhy adds step n's "why" question below the verdict: the question
// and a button per reason, in lang.
export function showWhy(doc, ps, n, lang) {
  const b = doc.querySelector("[data-predict-bar]");
  const s = ps.steps[n - 1];
  if (!b || !hasWhy(s)) return;
  const q = doc.createElement("p");
  q.className = "predict-why-q";
  q.textContent = inLang(s.why, lang);
  const group = buttonGroup(doc, "predict-reasons", s.because, (btn, r, i) => {
    btn.dataset.whyChoice = String(i);
    btn.textContent = inLang(r, lang);
  });
  b.append(q, group);
}

// markWhyChosen turns the reasons off, marks reason i as chosen, and adds
// the verdict line [cls, t].
export function markWhyChosen(doc, i, line) {
  const bar = doc.querySelector("[data-predict-bar]");
  if (!bar) return;
  for (const b of bar.querySelectorAll("[data-why-choice]")) {
    b.disabled = true;
    b.classList.toggle("chosen", b.dataset.whyChoice === String(i));
  }
  if (!line) return;
  const p = doc.createElement("p");
  p.className = line[0];
  p.textContent = line[1];
  bar.append(p);
}

// markChosen turns the choices off and marks outcome as chosen.
export function markChosen(doc, outcome) {
  const bar = doc.querySelector("[data-predict-bar]");
  for (const b of bar ? bar.querySelectorAll("[data-choice]") : []) {
    b.disabled = true;
    b.classList.toggle("chosen", b.dataset.choice === outcome);
  }
}

// showVeil hides or shows what veil v ({explanation, summary}) names.
export function showVeil(doc, v) {
  for (const e of doc.querySelectorAll(EXPLANATION)) e.hidden = v.explanation;
  const s = doc.querySelector(".lesson-head .summary");
  if (s) s.hidden = v.summary;
}

// showModeButtons shows predict mode on or off: the toggle pressed, and
// Play off while it is on.
export function showModeButtons(doc, on, text) {
  for (const b of doc.querySelectorAll('[data-action="predict"]')) b.setAttribute("aria-pressed", String(on));
  const play = doc.querySelector("#btn-play");
  if (play) {
    play.setAttribute("aria-disabled", String(on));
    if (on) play.title = text("tPredictPlayOff");
  }
}

// showScore writes lesson's score into #predict-score while the mode is on.
export function showScore(doc, ps, sc, text) {
  const el = doc.querySelector("#predict-score");
  if (!el) return;
  el.textContent = ps.on ? scoreText(sc, text) : "";
}
