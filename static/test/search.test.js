import { test } from "node:test";
import assert from "node:assert/strict";
import * as search from "../search.js";

const tokenCount = { lease_ms: 30000, fencing: false, actors: 2, depth: 8, moves: ["acquire"], advance_ms: [31000], invariants: ["stale-write"] };

test("advanceFor: none without expiry, the file's at its lease, else lease + 1 ms", () => {
  assert.deepEqual(search.advanceFor(tokenCount, 30000, false), []);
  assert.deepEqual(search.advanceFor(tokenCount, 30000, true), [31000]);
  assert.deepEqual(search.advanceFor(tokenCount, 5000, true), [5001]);
  assert.deepEqual(search.advanceFor(null, 5000, true), [5001]);
});

test("shapeRequest reads the form's values as the protocol's search", () => {
  const got = search.shapeRequest(
    { variant: "token-count", actors: "3", depth: "6", lease_ms: "30000", fencing: true, expiry: true, moves: ["acquire", "pause"], invariants: ["stale-write"] },
    tokenCount,
  );
  assert.deepEqual(got, {
    variant: "token-count",
    actors: 3,
    depth: 6,
    lease_ms: 30000,
    fencing: true,
    moves: ["acquire", "pause"],
    advance_ms: [31000],
    invariants: ["stale-write"],
  });
  // What is not a whole number goes as 0, the file's value; an empty list stays
  // empty, for the validator to refuse by name.
  const odd = search.shapeRequest({ variant: "x", actors: "2.5", depth: "", lease_ms: "abc", fencing: false, expiry: false, moves: [], invariants: [] }, null);
  assert.equal(odd.actors, 0);
  assert.equal(odd.depth, 0);
  assert.equal(odd.lease_ms, 0);
  assert.deepEqual(odd.moves, []);
  assert.deepEqual(odd.advance_ms, []);
  // ...and the page refuses to start on them, naming the fields.
  assert.deepEqual(search.badNumbers({ actors: "2.5", depth: "", lease_ms: "abc" }), ["actors", "depth", "lease"]);
  assert.deepEqual(search.badNumbers({ actors: "3", depth: " 6 ", lease_ms: "30000" }), []);
  const st = search.newSearch();
  assert.equal(search.refuse(st, ["depth"], "深度：不是整数"), true);
  assert.equal(st.phase, "failed");
  assert.deepEqual(st.fields, ["depth"]);
  assert.equal(search.status(st, (k) => k), "深度：不是整数");
  search.start(st, { variant: "token-count" }, "zh-CN");
  assert.equal(search.refuse(st, ["depth"], "x"), false, "not while a search runs");
});

test("start, progress, result: the state follows the search's messages", () => {
  const st = search.newSearch();
  assert.equal(search.status(st, (k) => k), "tIdle");
  const msg = search.start(st, { variant: "token-count" }, "zh-CN");
  assert.deepEqual(msg, { type: "search", id: 1, lang: "zh-CN", search: { variant: "token-count" } });
  assert.equal(st.phase, "running");
  assert.equal(search.start(st, {}, "en"), null, "a second start while one runs");
  assert.deepEqual(search.figures(st), { depth: "–", states: "–", rate: "–", transitions: "–" });
  assert.equal(search.onMessage(st, { type: "search-progress", re: 1, depth: 3, max_depth: 8, states: 120, states_per_s: 600.5, transitions: 300 }), true);
  assert.deepEqual(search.figures(st), { depth: "3 / 8", states: "120", rate: "600.5", transitions: "300" });
  assert.equal(search.onMessage(st, { type: "search-progress", re: 7, depth: 5 }), false, "another search's progress");
  assert.equal(search.onMessage(st, { type: "frame" }), false);
  const rows = [
    { invariant: "overlapping-holders", broken: true, steps: 2, verdict: "broken in 2 steps", timeline: "A acquire → B acquire", url: "/explore?t=1.x&step=2" },
    { invariant: "stale-write", broken: false, verdict: "none within depth 8" },
  ];
  search.onMessage(st, { type: "search-result", re: 1, depth: 8, max_depth: 8, states: 500, states_per_s: 700, transitions: 900, summary: "Done.", rows });
  assert.equal(st.phase, "done");
  assert.equal(search.status(st, (k) => k), "Done.");
  assert.deepEqual(search.rows(st), [
    { invariant: "overlapping-holders", verdict: "broken in 2 steps", timeline: "A acquire → B acquire", url: "/explore?t=1.x&step=2" },
    { invariant: "stale-write", verdict: "none within depth 8", timeline: "", url: "" },
  ]);
  assert.equal(search.figures(st).depth, "8 / 8");
  assert.equal(search.start(st, {}, "en").id, 2, "a new search after a result");
});

test("stop: only a running search, then its result ends it", () => {
  const st = search.newSearch();
  assert.equal(search.stop(st), null);
  search.start(st, {}, "en");
  assert.deepEqual(search.stop(st), { type: "search-stop", id: 2 });
  assert.equal(st.phase, "stopping");
  assert.equal(search.status(st, (k) => k), "tStopping");
  assert.equal(search.stop(st), null, "twice");
  search.onMessage(st, { type: "search-result", re: 1, stopped: "stop", summary: "Stopped.", rows: [] });
  assert.equal(st.phase, "done");
});

test("an error answering the start names its fields; a drop ends the search", () => {
  const st = search.newSearch();
  search.start(st, {}, "en");
  assert.equal(search.onMessage(st, { type: "error", re: 9, code: "rate-limited", message: "x" }), false);
  search.onMessage(st, { type: "error", re: 1, code: "bad-search", message: "depth: want 1 to 16 steps, got 20", fields: ["depth"] });
  assert.equal(st.phase, "failed");
  assert.deepEqual(st.fields, ["depth"]);
  assert.equal(search.status(st, (k) => k), "depth: want 1 to 16 steps, got 20");
  search.start(st, {}, "en");
  assert.deepEqual(st.fields, [], "a new start clears them");
  search.onDown(st);
  assert.equal(st.phase, "lost");
  assert.equal(search.status(st, (k) => k), "tConnLost");
  const idle = search.newSearch();
  search.onDown(idle);
  assert.equal(idle.phase, "idle", "a drop with no search running changes nothing");
});

test("shapeRequest carries the learner's own lock when the page searches it", () => {
  const values = { variant: "my-lock", actors: "2", depth: "5", lease_ms: "30000", fencing: false, expiry: true, moves: ["acquire"], invariants: ["stale-write"] };
  assert.equal(search.shapeRequest(values, tokenCount).lock, undefined);
  assert.equal(search.shapeRequest({ ...values, lock: "1.abc" }, tokenCount).lock, "1.abc");
});

test("a form with several bad number fields names every one of them, as a list in the page's language", () => {
  const en = search.badNumberMessage("{field}: not a whole number, so the search did not start. Type one.", ["Actors", "Depth", "Lease (ms)"], "en");
  assert.equal(en, "Actors, Depth, and Lease (ms): not a whole number, so the search did not start. Type one.");
  const zh = search.badNumberMessage("{field}：不是整数，所以搜索没有开始。请填一个整数。", ["参与者", "深度"], "zh-CN");
  assert.equal(zh, "参与者和深度：不是整数，所以搜索没有开始。请填一个整数。");
  assert.equal(search.badNumberMessage("{field}: x", ["Depth"], "en"), "Depth: x");
});

test("arrived: a result or the server's refusal, once, brings the page to it", () => {
  const st = search.newSearch();
  search.start(st, { variant: "x" }, "en");
  assert.equal(search.arrived("idle", st), false, "a start is no arrival");
  const prev = st.phase;
  search.onMessage(st, { type: "search-progress", re: st.re, depth: 1, max_depth: 4 });
  assert.equal(search.arrived(prev, st), false, "progress is no arrival");
  search.onMessage(st, { type: "search-result", re: st.re, rows: [], summary: "" });
  assert.equal(search.arrived(prev, st), true);
  assert.equal(search.arrived("done", st), false, "only once");
  const bad = search.newSearch();
  search.start(bad, { file: "x" }, "en");
  search.onMessage(bad, { type: "error", re: bad.re, message: "no" });
  assert.equal(search.arrived("running", bad), true);
});
