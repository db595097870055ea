import { test } from "node:test";
import assert from "node:assert/strict";
import { PROGRESS_KEY, cardProgress, progressAfter, saveProgress } from "../course.js";
import { ANSWERS_KEY, timerView } from "../interview.js";
import { fill } from "../text.js";
import { loadFlag, loadJSON, storeFlag, storeJSON } from "../storage.js";
import { brokenStorage, fakeStorage } from "./fakes.js";

test("progress: the best step stepped to, where to continue, done at the end", () => {
  let p = progressAfter(undefined, 4, 10, false); // a deep link to step 4
  assert.deepEqual(p, { best: 0, done: false, last: 4, total: 10 });
  p = progressAfter(p, 5, 10, true);
  assert.deepEqual(p, { best: 5, done: false, last: 5, total: 10 });
  p = progressAfter(p, 2, 10, false); // back
  assert.deepEqual(p, { best: 5, done: false, last: 2, total: 10 });
  p = progressAfter(p, 10, 10, false); // End: shown, not stepped to
  assert.equal(p.done, false);
  p = progressAfter(p, 10, 10, true);
  assert.deepEqual(p, { best: 10, done: true, last: 10, total: 10 });
  assert.equal(progressAfter(p, 0, 10, false).done, true, "stays done");
  // An entry stored before done existed: done when its best is the end.
  assert.equal(progressAfter({ best: 10 }, 3, 10, false).done, true);
  assert.equal(progressAfter({ best: 9 }, 3, 10, false).done, false);
  assert.equal(progressAfter({ best: 0 }, 0, 0, false).done, false, "an empty timeline is never done");
});

test("saveProgress keeps every lesson's entry under one key", () => {
  const st = fakeStorage();
  saveProgress(st, "a", 1, 3, true);
  saveProgress(st, "b", 2, 4, false);
  assert.deepEqual(JSON.parse(st.map.get(PROGRESS_KEY)), {
    a: { best: 1, done: false, last: 1, total: 3 },
    b: { best: 0, done: false, last: 2, total: 4 },
  });
  assert.doesNotThrow(() => saveProgress(brokenStorage(), "a", 1, 3, true));
});

test("cardProgress: what a course card shows", () => {
  assert.deepEqual(cardProgress({ best: 3, last: 5, done: false }, 10), { best: 3, done: false, percent: 30, continueAt: 5, shown: 5 });
  assert.deepEqual(cardProgress({ best: 5, last: 2, done: false }, 10), { best: 5, done: false, percent: 50, continueAt: 2, shown: 5 });
  assert.deepEqual(cardProgress({ best: 12, last: 2, done: true }, 10), { best: 10, done: true, percent: 100, continueAt: null, shown: 10 });
  assert.deepEqual(cardProgress({ best: 0, last: 0 }, 10), { best: 0, done: false, percent: 0, continueAt: null, shown: 0 });
  // Only a deep link to step 7: the card names step 7, where Continue goes.
  assert.deepEqual(cardProgress(progressAfter(undefined, 7, 11, false), 11), { best: 0, done: false, percent: 0, continueAt: 7, shown: 7 });
  // A jump to the last step (End, the scrubber) without stepping there:
  // Continue goes to the first step not stepped through, not the end.
  assert.deepEqual(cardProgress(progressAfter({ best: 4, last: 4, total: 11 }, 11, 11, false), 11), { best: 4, done: false, percent: 36, continueAt: 5, shown: 5 });
  assert.deepEqual(cardProgress(progressAfter(undefined, 11, 11, false), 11), { best: 0, done: false, percent: 0, continueAt: null, shown: 0 });
  assert.equal(cardProgress({ best: 10 }, 10).done, true, "stored before done existed");
  assert.equal(cardProgress({ best: 0 }, 0).percent, 0);
});

test("timerView: whole seconds rounded up, the arc, low at 10 s", () => {
  assert.deepEqual(timerView(60000, 60), { secs: 60, offset: 0, low: false });
  assert.deepEqual(timerView(10001, 60).secs, 11);
  assert.equal(timerView(10001, 60).low, false);
  assert.equal(timerView(10000, 60).low, true);
  assert.deepEqual(timerView(0, 60), { secs: 0, offset: 60, low: true });
  assert.equal(timerView(15000, 30).offset, 30);
});

test("fill replaces known placeholders and keeps the others", () => {
  assert.equal(fill("Step {step} of {total}", { step: 2, total: 9 }), "Step 2 of 9");
  assert.equal(fill("{a} {missing}", { a: 0 }), "0 {missing}");
  assert.equal(fill(undefined, {}), "");
});

test("storage helpers never throw", () => {
  const st = fakeStorage();
  storeJSON(st, ANSWERS_KEY, { q1: "a lease" });
  assert.deepEqual(loadJSON(st, ANSWERS_KEY), { q1: "a lease" });
  assert.deepEqual(loadJSON(st, "nothing"), {});
  st.map.set("bad", "{");
  assert.deepEqual(loadJSON(st, "bad"), {});
  storeFlag(st, "f", true);
  assert.equal(loadFlag(st, "f"), "1");
  storeFlag(st, "f", false);
  assert.equal(loadFlag(st, "f"), "0");
  for (const s of [brokenStorage(), null]) {
    assert.deepEqual(loadJSON(s, "k"), {});
    assert.equal(loadFlag(s, "k"), null);
    assert.doesNotThrow(() => storeJSON(s, "k", {}));
    assert.doesNotThrow(() => storeFlag(s, "k", true));
  }
});
