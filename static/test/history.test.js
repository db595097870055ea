import { test } from "node:test";
import assert from "node:assert/strict";
import { frameAddress, isForkEntry, modeAtStart, newAddress, onPopState, popAction, setAddress, withMode } from "../history.js";
import { fakeBrowser } from "./fakes.js";

const base = "http://lockstep.test/lessons/stale-owner";

// show does what app.js does with a frame's url.
function show(b, a, url, modes = {}) {
  const u = frameAddress(url, b.location.href, { step: 0, ...modes });
  setAddress(a, b.history, u, isForkEntry(u, b.location.pathname));
}

test("newAddress is the page's own address before any frame", () => {
  const b = fakeBrowser("/lessons/stale-owner?step=2&lang=en");
  assert.deepEqual(newAddress(b.location), { shownPath: "/lessons/stale-owner", shownURL: "/lessons/stale-owner?step=2&lang=en" });
});

test("frameAddress keeps the page's modes in the frame's URL", () => {
  const u = frameAddress("/lessons/stale-owner?lang=en&step=4", base, { presenter: true, predict: true, retry: true, step: 4 });
  assert.equal(u.pathname + u.search, "/lessons/stale-owner?lang=en&step=4&present=1&predict=1&retry=1");
  const plain = frameAddress("/lessons/stale-owner?lang=en&step=4", base, { step: 4 });
  assert.equal(plain.search, "?lang=en&step=4");
});

test("frameAddress keeps a deep link's step while Redis cannot run it", () => {
  const fail = { target: 7, fromLoad: true };
  const u = frameAddress("/lessons/stale-owner?lang=en&step=3", base, { redisFail: fail, step: 3 });
  assert.equal(u.searchParams.get("step"), "7");
  // A step forward that failed is not a deep link: the address is the step shown.
  const v = frameAddress("/lessons/stale-owner?lang=en&step=3", base, { redisFail: { target: 4, fromLoad: false }, step: 3 });
  assert.equal(v.searchParams.get("step"), "3");
  // Reached: nothing to keep.
  const w = frameAddress("/lessons/stale-owner?lang=en&step=7", base, { redisFail: fail, step: 7 });
  assert.equal(w.searchParams.get("step"), "7");
});

test("steps replace the history entry; they make no history", () => {
  const b = fakeBrowser("/lessons/stale-owner?step=0");
  const a = newAddress(b.location);
  for (let i = 1; i <= 3; i++) show(b, a, `/lessons/stale-owner?lang=en&step=${i}`);
  assert.deepEqual(b.entries, ["/lessons/stale-owner?lang=en&step=3"]);
  assert.deepEqual(a, { shownPath: "/lessons/stale-owner", shownURL: "/lessons/stale-owner?lang=en&step=3" });
});

test("a fork is an entry of its own: Back to the lesson, Forward to the fork", () => {
  const b = fakeBrowser("/lessons/stale-owner?lang=en&step=4");
  const a = newAddress(b.location);
  show(b, a, "/explore?t=1.aaa&lang=en&step=5"); // the fork's frame
  assert.deepEqual(b.entries, ["/lessons/stale-owner?lang=en&step=4", "/explore?t=1.aaa&lang=en&step=5"]);
  show(b, a, "/explore?t=1.bbb&lang=en&step=6"); // a later fork of the fork: same entry
  assert.equal(b.entries.length, 2);
  assert.equal(b.current(), "/explore?t=1.bbb&lang=en&step=6");
  let reloads = 0;
  b.back();
  assert.equal(popAction(a, b.location), "reload");
  onPopState(a, b.history, b.location, () => reloads++);
  assert.equal(reloads, 1, "Back loads the lesson at the step forked from");
  assert.equal(b.current(), "/lessons/stale-owner?lang=en&step=4");
  // The reloaded lesson page, then Forward.
  const a2 = newAddress(b.location);
  b.forward();
  onPopState(a2, b.history, b.location, () => reloads++);
  assert.equal(reloads, 2, "Forward loads the fork");
});

test("Back over the skip link's fragment loads nothing and shows the step again", () => {
  const b = fakeBrowser("/lessons/stale-owner?step=0");
  const a = newAddress(b.location);
  b.history.pushState(null, "", "/lessons/stale-owner?step=0#main"); // the browser's entry for the skip link
  show(b, a, "/lessons/stale-owner?lang=en&step=2");
  b.back(); // to the entry before the fragment: its address is step 0
  let reloads = 0;
  assert.equal(popAction(a, b.location), "restore");
  onPopState(a, b.history, b.location, () => reloads++);
  assert.equal(reloads, 0);
  assert.equal(b.current(), "/lessons/stale-owner?lang=en&step=2");
});

test("Back over the fragment before any frame keeps the page", () => {
  const b = fakeBrowser("/explore?t=1.aaa&step=3");
  const a = newAddress(b.location);
  b.history.pushState(null, "", "/explore?t=1.aaa&step=3#main");
  b.back();
  let reloads = 0;
  onPopState(a, b.history, b.location, () => reloads++);
  assert.equal(reloads, 0);
  assert.equal(b.current(), "/explore?t=1.aaa&step=3");
});

test("popAction: nothing to restore before an address is known", () => {
  assert.equal(popAction({ shownPath: "/x", shownURL: "" }, { pathname: "/x" }), "none");
});

test("isForkEntry: only leaving a lesson for /explore", () => {
  const u = (s) => new URL(s, "http://lockstep.test");
  assert.equal(isForkEntry(u("/explore?t=1.a"), "/lessons/stale-owner"), true);
  assert.equal(isForkEntry(u("/explore?t=1.a"), "/lessons/drill-leases-42"), true);
  assert.equal(isForkEntry(u("/explore?t=1.b"), "/explore"), false);
  assert.equal(isForkEntry(u("/lessons/stale-owner?step=2"), "/lessons/stale-owner"), false);
});

test("withMode sets a mode's parameter, or removes it with those it ends", () => {
  const href = "http://lockstep.test/lessons/x?step=2&predict=1&retry=1";
  assert.equal(withMode(href, "present", true).search, "?step=2&predict=1&retry=1&present=1");
  assert.equal(withMode(href, "predict", false, ["retry"]).search, "?step=2");
  assert.equal(withMode(href, "retry", false).search, "?step=2&predict=1");
});

test("modeAtStart: the parameter wins, else the stored choice", () => {
  const p = (s) => new URLSearchParams(s);
  assert.equal(modeAtStart(p("predict=1"), "predict", "0"), true);
  assert.equal(modeAtStart(p("predict=0"), "predict", "1"), false);
  assert.equal(modeAtStart(p(""), "predict", "1"), true);
  assert.equal(modeAtStart(p(""), "predict", null), false);
});
