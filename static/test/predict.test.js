import { test } from "node:test";
import assert from "node:assert/strict";
import * as predict from "../predict.js";
import { brokenStorage, fakeStorage } from "./fakes.js";

// Five steps: 2 and 4 have outcomes to predict.
const steps = [
  null,
  { actor: "A", do: "acquire", lock: "order:1", outcomes: ["acquired", "reentered", "busy"] },
  null,
  { actor: "B", do: "release", lock: "order:1", outcomes: ["released", "not-owner"] },
  null,
];

const on = () => {
  const ps = predict.newPredict(steps.slice());
  predict.setMode(ps, true);
  return ps;
};
const frame = (step, outcome) => ({ step, frame: { outcome } });
const text = (key) => `<${key}>`;

test("scoreOf counts the latest answer per step; misses in step order", () => {
  const all = {};
  predict.withAnswer(all, "stale-owner", 10, "busy", "acquired");
  predict.withAnswer(all, "stale-owner", 2, "busy", "acquired");
  predict.withAnswer(all, "stale-owner", 4, "released", "released");
  predict.withAnswer(all, "other", 1, "x", "x");
  assert.deepEqual(predict.scoreOf(all, "stale-owner"), { right: 1, total: 3, misses: [2, 10] });
  predict.withAnswer(all, "stale-owner", 2, "acquired", "acquired"); // answered right the second time
  assert.deepEqual(predict.scoreOf(all, "stale-owner"), { right: 2, total: 3, misses: [10] });
  assert.deepEqual(predict.scoreOf(all, "never-played"), { right: 0, total: 0, misses: [] });
});

test("scores live in storage under one key; a broken storage scores nothing", () => {
  const st = fakeStorage();
  predict.recordPrediction(st, "l", 2, "busy", "acquired");
  predict.recordPrediction(st, "l", 4, "released", "released");
  assert.deepEqual(JSON.parse(st.map.get(predict.PREDICT_KEY)), {
    l: { steps: { 2: { guess: "busy", got: "acquired", ok: false }, 4: { guess: "released", got: "released", ok: true } } },
  });
  assert.deepEqual(predict.predictScore(st, "l"), { right: 1, total: 2, misses: [2] });
  st.map.set(predict.PREDICT_KEY, "{not json");
  assert.deepEqual(predict.predictScore(st, "l"), { right: 0, total: 0, misses: [] });
  const broken = brokenStorage();
  assert.doesNotThrow(() => predict.recordPrediction(broken, "l", 1, "a", "b"));
  assert.deepEqual(predict.predictScore(broken, "l").total, 0);
});

test("parseSteps: the page's attribute, [] when missing or broken", () => {
  assert.deepEqual(predict.parseSteps('[null,{"do":"acquire"}]'), [null, { do: "acquire" }]);
  assert.deepEqual(predict.parseSteps(""), []);
  assert.deepEqual(predict.parseSteps(undefined), []);
  assert.deepEqual(predict.parseSteps("{oops"), []);
  assert.deepEqual(predict.parseSteps("null"), []);
});

test("a step with nothing to predict is a plain step; one with outcomes asks first", () => {
  const ps = on();
  assert.deepEqual(predict.stepForward(ps, 0, 5), { handled: false, fx: [] });
  assert.deepEqual(predict.stepForward(ps, 1, 5), { handled: true, fx: [{ ask: 2 }] });
  assert.equal(ps.prompting, 2);
  assert.deepEqual(predict.stepForward(ps, 1, 5), { handled: true, fx: [] }, "asked already");
  assert.deepEqual(predict.stepForward(on(), 5, 5), { handled: false, fx: [] }, "at the end");
});

test("answering sends the step; the frame's outcome is the verdict", () => {
  const ps = on();
  predict.stepForward(ps, 1, 5);
  assert.deepEqual(predict.choose(ps, "busy", 1), [{ chosen: "busy" }, { send: { type: "step" } }]);
  assert.equal(ps.prompting, 0);
  assert.deepEqual(predict.stepForward(ps, 1, 5), { handled: true, fx: [] }, "a reply is on its way");
  assert.deepEqual(predict.onFrame(ps, frame(2, "acquired"), false), [
    { record: { step: 2, guess: "busy", got: "acquired" } },
    { verdict: { step: 2, guess: "busy", got: "acquired", ok: false, retryDone: false } },
    { score: true },
  ]);
  assert.equal(ps.revealed, 2);
  assert.equal(ps.guess, null);
  // The next frame (a plain step) hides the verdict.
  assert.deepEqual(predict.onFrame(ps, frame(3, "ok"), false), [{ hide: true }, { score: true }]);
  assert.equal(ps.revealed, 0);
});

test("an answer given away from the step asked about seeks to it", () => {
  const ps = on();
  ps.prompting = 4;
  assert.deepEqual(predict.choose(ps, "released", 1), [{ chosen: "released" }, { send: { type: "seek", step: 4 } }]);
  assert.deepEqual(predict.choose(ps, "released", 1), [], "nothing asked");
});

test("a frame of another step than the one answered hides the bar", () => {
  const ps = on();
  predict.stepForward(ps, 1, 5);
  predict.choose(ps, "acquired", 1);
  assert.deepEqual(predict.onFrame(ps, frame(1, "x"), false), [{ hide: true }]);
  assert.equal(ps.guess, null);
});

test("a language change while asking asks again in it; a plain frame leaves the question", () => {
  const ps = on();
  predict.stepForward(ps, 1, 5);
  assert.deepEqual(predict.onFrame(ps, frame(1), true), [{ ask: 2 }]);
  assert.deepEqual(predict.onFrame(ps, frame(1), false), []);
  assert.equal(ps.prompting, 2);
  assert.deepEqual(predict.onFrame(ps, frame(3), false), [{ hide: true }, { score: true }], "moved away: the question goes");
  assert.equal(ps.prompting, 0);
});

test("retry my misses walks the steps answered wrong, then ends", () => {
  const ps = on();
  predict.startRetry(ps, [2, 4]);
  // The load's frame at step 0: seek to just before the first miss.
  assert.deepEqual(predict.onFrame(ps, frame(0), true), [{ send: { type: "seek", step: 1 } }]);
  assert.equal(ps.afterSeek, 2);
  assert.deepEqual(predict.stepForward(ps, 0, 5), { handled: true, fx: [] }, "waiting for the seek");
  assert.deepEqual(predict.onFrame(ps, frame(1), false), [{ ask: 2 }]);
  predict.choose(ps, "acquired", 1);
  let fx = predict.onFrame(ps, frame(2, "acquired"), false);
  assert.equal(fx[1].verdict.ok, true);
  assert.equal(fx[1].verdict.retryDone, false);
  assert.equal(predict.retryLine(ps, "right", "{n}/{total}"), "1/2");
  // → goes to the next miss, not to step 3.
  assert.deepEqual(predict.stepForward(ps, 2, 5), { handled: true, fx: [{ send: { type: "seek", step: 3 } }] });
  assert.deepEqual(predict.onFrame(ps, frame(3), false), [{ ask: 4 }]);
  assert.equal(predict.retryLine(ps, "ask", "{n}/{total}"), "2/2");
  predict.choose(ps, "not-owner", 3);
  fx = predict.onFrame(ps, frame(4, "released"), false);
  assert.equal(fx[1].verdict.retryDone, true);
  // Done: the retry ends (retry=1 leaves the address) and → is a plain step again.
  assert.deepEqual(predict.stepForward(ps, 4, 5), { handled: false, fx: [{ retryParam: false }] });
  assert.equal(ps.retry, null);
});

test("retry at the step before a miss asks at once", () => {
  const ps = on();
  predict.startRetry(ps, [2]);
  assert.deepEqual(predict.onFrame(ps, frame(1), true), [{ ask: 2 }]);
});

test("retry with no misses says so and ends", () => {
  const ps = on();
  predict.startRetry(ps, []);
  assert.deepEqual(predict.onFrame(ps, frame(0), true), [{ note: "tRetryNone" }]);
  assert.equal(ps.retry, null);
});

test("turning predict mode off forgets the question, answer and retry", () => {
  const ps = on();
  predict.startRetry(ps, [2]);
  predict.stepForward(ps, 1, 5);
  ps.afterSeek = 4;
  assert.deepEqual(predict.setMode(ps, false), [{ hide: true }]);
  assert.deepEqual({ ...ps, steps: null }, { ...predict.newPredict(null), steps: null });
});

test("a fork has nothing to predict", () => {
  const ps = on();
  predict.forgetSteps(ps);
  assert.deepEqual(predict.stepForward(ps, 1, 5), { handled: false, fx: [] });
});

test("keys 1 to 9 pick an outcome while a question is shown", () => {
  const ps = on();
  assert.equal(predict.choiceForKey(ps, "1"), null, "no question");
  predict.stepForward(ps, 1, 5);
  assert.equal(predict.choiceForKey(ps, "1"), "acquired");
  assert.equal(predict.choiceForKey(ps, "3"), "busy");
  assert.equal(predict.choiceForKey(ps, "4"), null);
  assert.equal(predict.choiceForKey(ps, "0"), null);
  assert.equal(predict.choiceForKey(ps, "a"), null);
});

test("play is off in predict mode, said in the bar or beside its question", () => {
  const ps = on();
  assert.deepEqual(predict.playNote(ps), [{ note: "tPredictPlayOff" }]);
  predict.stepForward(ps, 1, 5);
  assert.deepEqual(predict.playNote(ps), [{ aside: "tPredictPlayOff" }]);
});

test("the bar's lines: question, verdict, retry line, score", () => {
  const gl = { "act:acquire": "acquire the lock", acquired: "first hold" };
  const q = predict.questionLines(2, steps[1], (k) => (k === "tPredictPrompt" ? "Step {step}: {actor} will {action} {lock}" : text(k)), gl);
  assert.deepEqual(q, [
    ["predict-q", "Step 2: A will acquire the lock order:1"],
    ["predict-hint", "<tPredictChoose>"],
  ]);
  // A write that only checks its token is asked about as the check.
  const checkGl = { ...gl, "act:write": "write", "act:check-token": "check token" };
  const asked = (s) => predict.questionLines(2, s, (k) => (k === "tPredictPrompt" ? "{action}" : text(k)), checkGl)[0][1];
  assert.equal(asked({ ...steps[1], do: "write", check_only: true }), "check token");
  assert.equal(asked({ ...steps[1], do: "write" }), "write");
  // The keys hint names as many keys as there are choices.
  const hint = predict.questionLines(2, steps[1], (k) => (k === "tPredictChoose" ? "keys 1–{last}" : text(k)), gl)[1][1];
  assert.equal(hint, `keys 1–${steps[1].outcomes.length}`);
  const t = (k) => ({ tPredictRight: "right: {outcome}", tPredictWrong: "{guess}, but {outcome}" })[k] || text(k);
  assert.deepEqual(predict.verdictLines({ ok: false, guess: "busy", got: "acquired", retryDone: true }, t, gl), [
    ["predict-verdict wrong", "busy, but acquired"],
    ["predict-gloss", "acquired: first hold"],
    ["predict-why", "<tPredictWhy>"],
    ["predict-note", "<tRetryDone>"],
  ]);
  assert.deepEqual(predict.verdictLines({ ok: true, guess: "x", got: "x", retryDone: false }, t, gl), [
    ["predict-verdict right", "right: x"],
    ["predict-why", "<tPredictWhy>"],
  ]);
  const ps = on();
  assert.equal(predict.retryLine(ps, "ask", "{n}"), null, "not retrying");
  predict.startRetry(ps, [2, 4]);
  assert.equal(predict.retryLine(ps, "note", "{n}"), null, "not on a note");
  assert.equal(predict.retryLine(ps, "ask", "{n} of {total}"), "1 of 2");
  assert.equal(predict.scoreText({ right: 1, total: 2 }, (k) => (k === "tPredictScore" ? "{right}/{total}" : k)), "1/2");
  assert.equal(predict.scoreText({ right: 0, total: 0 }, (k) => k), "tPredictNone");
});

test("a step with a why question asks it below the verdict; the answer names the right reason", () => {
  const withWhy = steps.slice();
  withWhy[1] = {
    ...steps[1],
    why: { en: "Why?", "zh-CN": "为什么？" },
    because: [{ en: "wrong one" }, { en: "right one", "zh-CN": "对的" }],
    right: 1,
  };
  const ps = predict.newPredict(withWhy);
  predict.setMode(ps, true);
  predict.stepForward(ps, 1, 5);
  predict.choose(ps, "acquired", 1);
  const fx = predict.onFrame(ps, frame(2, "acquired"), false);
  assert.deepEqual(fx.at(-1), { why: 2 });
  assert.equal(ps.whyAsking, 2);
  assert.deepEqual(predict.chooseWhy(ps, 0), [{ whyVerdict: { step: 2, chosen: 0, ok: false, right: 1 } }]);
  assert.deepEqual(predict.chooseWhy(ps, 1), [], "answered once");
  const line = predict.whyVerdictLine({ ok: false, right: 1 }, withWhy[1], text, "zh-CN");
  assert.deepEqual(line, ["predict-why-verdict wrong", "<tPredictWhyWrong>"]);
  assert.equal(predict.inLang(withWhy[1].because[1], "zh-CN"), "对的");
  assert.equal(predict.inLang(withWhy[1].because[0], "zh-TW"), "wrong one", "English when the locale is missing");
  // The next frame moves on: the question is gone.
  predict.onFrame(ps, frame(3, "ok"), false);
  assert.equal(ps.whyAsking, 0);
});

test("a step without a why question asks none", () => {
  const ps = on();
  predict.stepForward(ps, 1, 5);
  predict.choose(ps, "acquired", 1);
  const fx = predict.onFrame(ps, frame(2, "acquired"), false);
  assert.ok(!fx.some((e) => "why" in e));
  assert.deepEqual(predict.chooseWhy(ps, 0), []);
});

test("the explanation stays hidden until the why question is answered; the summary until the last step", () => {
  const withWhy = steps.slice();
  withWhy[1] = { ...steps[1], why: { en: "Why?" }, because: [{ en: "a" }, { en: "b" }], right: 1 };
  const ps = predict.newPredict(withWhy);
  assert.deepEqual(predict.veil(ps, 1, 5), { explanation: false, summary: false }, "off hides nothing");
  predict.setMode(ps, true);
  assert.deepEqual(predict.veil(ps, 0, 5), { explanation: false, summary: true });
  predict.stepForward(ps, 1, 5);
  predict.choose(ps, "acquired", 1);
  predict.onFrame(ps, frame(2, "acquired"), false);
  assert.deepEqual(predict.veil(ps, 2, 5), { explanation: true, summary: true }, "asked why: the answer is hidden");
  predict.chooseWhy(ps, 0);
  assert.deepEqual(predict.veil(ps, 2, 5), { explanation: false, summary: true }, "answered: shown, right or wrong");
  predict.onFrame(ps, frame(3, "ok"), false);
  assert.equal(predict.veil(ps, 3, 5).explanation, false);
  assert.equal(predict.veil(ps, 5, 5).summary, false, "the last step shows the summary");
});

test("an unanswered why question is dropped with its veil: a step on, predict mode off", () => {
  const withWhy = steps.slice();
  withWhy[1] = { ...steps[1], why: { en: "Why?" }, because: [{ en: "a" }, { en: "b" }], right: 1 };
  const ps = predict.newPredict(withWhy);
  predict.setMode(ps, true);
  predict.stepForward(ps, 1, 5);
  predict.choose(ps, "acquired", 1);
  predict.onFrame(ps, frame(2, "acquired"), false);
  predict.onFrame(ps, frame(3, "ok"), false);
  assert.equal(predict.veil(ps, 3, 5).explanation, false, "a step on");
  predict.stepForward(ps, 3, 5);
  predict.choose(ps, "released", 3);
  predict.onFrame(ps, frame(4, "released"), false);
  predict.setMode(ps, false);
  assert.deepEqual(predict.veil(ps, 4, 5), { explanation: false, summary: false }, "off");
  // A step without a why question is shown as soon as its outcome is answered.
  assert.equal(ps.whyAsking, 0);
});

test("a step without a why question shows its explanation with the verdict", () => {
  const ps = on();
  predict.stepForward(ps, 1, 5);
  predict.choose(ps, "acquired", 1);
  predict.onFrame(ps, frame(2, "acquired"), false);
  assert.equal(predict.veil(ps, 2, 5).explanation, false);
});
