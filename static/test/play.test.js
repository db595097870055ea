import { test } from "node:test";
import assert from "node:assert/strict";
import * as play from "../play.js";

// Six steps: step 4 is worth predicting (pause), step 2 has an outcome
// but is not.
const steps = [null, { do: "acquire", outcomes: ["ACQUIRED", "BUSY"] }, null, { do: "write", outcomes: ["ACCEPTED", "REJECTED"], pause: true }, null, null];
const frame = (step, violations = []) => ({ step, total: 6, frame: { violations } });
const stale = { name: "overlapping-holders", lock: "order:42", actors: ["A", "B"] };
const short = "A takes the lock.";
const long = "31 s pass. Redis does not know about the pause: the lease runs out and the key is gone, although A still believes it holds the lock twice.";

test("dwellMs grows with the text, shrinks with the speed, within its bounds", () => {
  assert.equal(play.dwellMs("", 1), play.MIN_DWELL_MS);
  const a = play.dwellMs(short, 1);
  const b = play.dwellMs(long, 1);
  assert.ok(b > a, `${b} > ${a}`);
  assert.equal(b, Math.round(play.LOOK_MS + (play.readCost(long).latin * 1000) / play.LATIN_PER_S));
  assert.equal(play.dwellMs(long, 2), Math.round(b / 2));
  assert.equal(play.dwellMs(long, 0), b, "no speed is speed 1");
  assert.equal(play.dwellMs("x".repeat(10000), 1), play.MAX_DWELL_MS);
  assert.equal(play.dwellMs("x".repeat(10000), 4), play.MAX_DWELL_MS / 4);
});

test("dwellMs reads a Chinese character as slower than a Latin one, and spaces once", () => {
  assert.deepEqual(play.readCost("  A  takes\n the lock. "), { latin: 17, wide: 0 });
  assert.deepEqual(play.readCost("A 拿到锁。"), { latin: 2, wide: 4 });
  const zh = "过去了 31 秒。Redis 并不知道 A 在停顿：租约耗尽，键被删除，可 A 仍以为自己持有两次锁。";
  const en = "x".repeat([...zh].length);
  assert.ok(play.dwellMs(zh, 1) > play.dwellMs(en, 1));
});

test("start waits the current step's dwell, or seeks to the start from the end", () => {
  const ps = play.newPlay(steps);
  assert.deepEqual(play.start(ps, 1, 6, long, 2), [{ show: true }, { wait: play.dwellMs(long, 2) }]);
  assert.equal(ps.on, true);
  assert.deepEqual(play.tick(ps), [{ send: { type: "step" } }]);
  assert.deepEqual(play.tick(ps), [], "one step per wait");
  const end = play.newPlay(steps);
  assert.deepEqual(play.start(end, 6, 6, short, 1), [{ show: true }, { send: { type: "seek", step: 0 } }]);
});

test("each frame while playing waits its own text's dwell", () => {
  const ps = play.newPlay(steps);
  play.start(ps, 0, 6, short, 1);
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(1), long), [{ wait: play.dwellMs(long, 1) }]);
  play.tick(ps);
  play.setSpeed(ps, 4);
  assert.deepEqual(play.onFrame(ps, frame(2), short), [{ wait: play.dwellMs(short, 4) }], "step 2 has outcomes, but nothing worth a stop");
});

test("Play stops after a step that breaks an invariant, not at one already broken", () => {
  const ps = play.newPlay(steps);
  play.onFrame(ps, frame(0), short);
  play.start(ps, 0, 6, short, 1);
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(1, [stale]), short), [{ show: true }]);
  assert.equal(ps.on, false);
  assert.equal(ps.reason, "invariant");
  // pressed again: the same broken invariant does not stop it
  play.start(ps, 1, 6, short, 1);
  assert.equal(ps.reason, "");
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(2, [stale]), short), [{ wait: play.dwellMs(short, 1) }]);
  // another lock's is new
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(3, [stale, { ...stale, lock: "order:7" }]), short), [{ show: true }]);
});

test("Play stops before a step worth predicting, goes on into it when pressed again, and stops at the end", () => {
  const ps = play.newPlay(steps);
  play.start(ps, 2, 6, short, 1);
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(3), short), [{ show: true }]);
  assert.equal(ps.reason, "predict");
  play.start(ps, 3, 6, short, 1);
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(4), short), [{ wait: play.dwellMs(short, 1) }]);
  play.tick(ps);
  play.onFrame(ps, frame(5), short);
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(6), short), [{ show: true }]);
  assert.equal(ps.reason, "end");
});

test("stop cancels a wait; a frame while stopped only remembers its invariants", () => {
  const ps = play.newPlay(steps);
  play.start(ps, 0, 6, short, 1);
  assert.deepEqual(play.stop(ps), [{ cancel: true }, { show: true }]);
  assert.deepEqual(play.tick(ps), []);
  assert.deepEqual(play.stop(ps), [], "stopping a stopped Play shows nothing new");
  assert.deepEqual(play.onFrame(ps, frame(5, [stale]), short), []);
  play.start(ps, 5, 6, short, 1);
  play.tick(ps);
  assert.equal(ps.reason, "");
  assert.deepEqual(play.onFrame(ps, frame(6, [stale]), short), [{ show: true }]);
  assert.equal(ps.reason, "end", "the invariant broken before Play does not count");
  assert.deepEqual(play.stop(ps), [{ show: true }], "a move of the learner's clears why Play stopped");
  assert.equal(ps.reason, "");
});

test("a fork's timeline has no predict steps to stop before", () => {
  const ps = play.newPlay(steps);
  play.forgetSteps(ps);
  play.start(ps, 2, 6, short, 1);
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(3), short), [{ wait: play.dwellMs(short, 1) }]);
});

test("start takes the invariants the shown frame breaks as known: only a new one stops Play", () => {
  const ps = play.newPlay(steps);
  play.start(ps, 1, 6, short, 1, frame(1, [stale]).frame);
  play.tick(ps);
  assert.deepEqual(play.onFrame(ps, frame(2, [stale]), short), [{ wait: play.dwellMs(short, 1) }]);
  const fresh = play.newPlay(steps);
  play.start(fresh, 1, 6, short, 1, frame(1).frame);
  play.tick(fresh);
  assert.deepEqual(play.onFrame(fresh, frame(2, [stale]), short), [{ show: true }]);
  assert.equal(fresh.reason, "invariant");
});

// el and txt build the few DOM nodes readableText walks: an element with a
// class list (matched as ".name" or [aria-hidden="true"]), and a text node.
function el(cls, kids, attrs = {}) {
  const classes = cls ? cls.split(" ") : [];
  return {
    nodeType: 1,
    hidden: !!attrs.hidden,
    childNodes: kids,
    matches(sel) {
      return sel.split(",").some((s) => {
        s = s.trim();
        if (s.startsWith(".")) return classes.includes(s.slice(1));
        if (s === '[aria-hidden="true"]') return attrs.ariaHidden === true;
        return false;
      });
    },
    get textContent() {
      return kids.map((k) => (k.nodeType === 3 ? k.data : k.textContent)).join("");
    },
  };
}
const txt = (data) => ({ nodeType: 3, data });

test("Play dwells on the narration a learner reads, not the heading, step line or author check", () => {
  const story =
    "A takes the lock order:42 with a 10 s lease. The lease runs out while A is paused; B takes the same lock, and A still believes it is the owner.";
  const narr = el("narr", [
    el("step-line", [el("step-label", [txt("Step 1 of 9")]), el("time", [txt("t = 0.0 s")])]),
    el("headline", [el("what", [txt(story)]), el("outcome ok", [txt("ACQUIRED")]), el("gloss", [txt("the lock was free")])]),
    el("check ok", [el("", [txt("✓")], { ariaHidden: true }), txt("as the lesson expects: ACQUIRED ".repeat(8))]),
    el("say", [txt("Watch the PTTL.")]),
    el("misconception", [txt("An old hint.")], { hidden: true }),
  ]);
  const panel = el("card narration", [el("card-title", [txt("Narration")]), narr]);
  const doc = {
    querySelector(sel) {
      if (sel === '[data-panel="narration"] .narr') return narr;
      if (sel === '[data-panel="narration"]') return panel;
      return null;
    },
  };
  const read = play.readableText(narr).replace(/\s+/g, " ").trim();
  assert.equal(read, `${story} ACQUIRED the lock was free Watch the PTTL.`);
  assert.equal(play.narrationText(doc).replace(/\s+/g, " ").trim(), read);
  // The whole panel's text would hit the cap; what the learner reads does not.
  assert.equal(play.dwellMs(panel.textContent, 1), play.MAX_DWELL_MS);
  assert.ok(play.dwellMs(play.narrationText(doc), 1) < play.MAX_DWELL_MS);
  assert.equal(play.dwellMs(play.narrationText(doc), 1), play.dwellMs(read, 1));
});
