import { test } from "node:test";
import assert from "node:assert/strict";
import * as explore from "../explore.js";
import * as socket from "../socket.js";
import { FakeSocket, fakeButton, fakeTimers } from "./fakes.js";

test("a fork continues after the menu's step, or the step shown", () => {
  const action = { actor: "A", do: "resume" };
  assert.deepEqual(explore.forkMessage(4, 7, action), { type: "fork", at: 4, action });
  assert.deepEqual(explore.forkMessage(0, 7, action), { type: "fork", at: 0, action });
  assert.deepEqual(explore.forkMessage(null, 7, action), { type: "fork", at: 7, action });
  assert.equal(explore.menuStep({ dataset: { at: "4" } }), 4);
  assert.equal(explore.menuStep(null), null);
});

test("the custom advance takes a whole number of ms, 1 or more", () => {
  assert.deepEqual(explore.customAction("advance", "250"), { do: "advance", by_ms: 250 });
  assert.deepEqual(explore.customAction("clock_jump", "1"), { do: "clock_jump", by_ms: 1 });
  for (const bad of ["0", "-5", "1.5", "abc", "", "1e400"]) assert.equal(explore.customAction("advance", bad), null, bad);
});

test("undo is off from its sending until its answer", () => {
  const u = explore.newUndo();
  const b = fakeButton();
  const msg = explore.undoMessage(u);
  assert.deepEqual(msg, { type: "undo", id: 1 });
  explore.undoSent(u, b, true);
  assert.equal(b.disabled, true, "a second click cannot undo again");
  assert.equal(u.refocus, '[data-explore="undo"]');
  // The answer redraws the tools: the new button is as the server drew it
  // (off at the fork's floor), the old one is gone from the page.
  b.isConnected = false;
  explore.undoAnswered(u);
  assert.equal(b.disabled, true);
  assert.deepEqual(u, { seq: 1, button: null, refocus: null });
});

test("a reconnect's frame turns on the button the lost undo left off", () => {
  const u = explore.newUndo();
  const b = fakeButton();
  explore.undoMessage(u);
  explore.undoSent(u, b, false);
  assert.equal(u.refocus, null, "it had no focus to give back");
  explore.undoAnswered(u); // same tools, left in place
  assert.equal(b.disabled, false);
});

test("an undo's error turns on its own button only, with the focus it had", () => {
  const u = explore.newUndo();
  const b = fakeButton();
  explore.undoMessage(u);
  explore.undoSent(u, b, true);
  assert.equal(explore.undoFailed(u, 99), null, "another message's error");
  assert.equal(explore.undoFailed(u, undefined), null, "a rate-limited error has no re");
  assert.equal(b.disabled, true);
  assert.equal(explore.undoFailed(u, 1), b, "focus it again");
  assert.equal(b.disabled, false);
  assert.equal(explore.undoFailed(u, 1), null, "handled once");
  const c = fakeButton();
  explore.undoMessage(u);
  explore.undoSent(u, c, false);
  assert.equal(explore.undoFailed(u, 2), null, "on again, but it had no focus");
  assert.equal(c.disabled, false);
});

test("undo while the socket is closed is dropped and leaves the button on", () => {
  FakeSocket.made = [];
  const t = fakeTimers();
  const s = socket.newSocket({
    WebSocket: FakeSocket,
    url: "ws://x/ws",
    ...t,
    random: () => 0,
    onStatus() {},
    onOpen() {},
    onMessage() {},
    onDown() {},
  });
  socket.connect(s);
  FakeSocket.made[0].drop(4000); // idle
  const u = explore.newUndo();
  const b = fakeButton();
  // As app.js does: send, and only a sent undo turns the button off.
  if (socket.send(s, explore.undoMessage(u))) explore.undoSent(u, b, true);
  assert.equal(b.disabled, false);
  assert.equal(u.button, null);
});

test("refocusRule keeps a keyboard user's focus in a redrawn panel", () => {
  const u = explore.newUndo();
  const yes = () => true;
  assert.equal(explore.refocusRule(u, { id: "scrubber" }, yes, false), null, "found by its id");
  assert.equal(explore.refocusRule(u, { id: "", explore: "copy" }, yes, false), '[data-explore="copy"]');
  assert.equal(explore.refocusRule(u, { id: "", forkChoice: true }, yes, false), ".fork-choice");
  assert.equal(explore.refocusRule(u, { id: "" }, yes, false), null);
  // Undo turned itself off, so nothing has the focus: give it back once.
  explore.undoMessage(u);
  explore.undoSent(u, fakeButton(), true);
  assert.equal(explore.refocusRule(u, null, () => false, true), null, "not in this panel");
  assert.equal(explore.refocusRule(u, null, yes, false), null, "something else took the focus");
  assert.equal(explore.refocusRule(u, null, yes, true), '[data-explore="undo"]');
  assert.equal(explore.refocusRule(u, null, yes, true), null, "once");
});

test("copyLink: the clipboard in a secure context, else failed", async () => {
  const results = [];
  const done = (ok) => results.push(ok);
  const copied = [];
  const ok = { clipboard: { writeText: (s) => (copied.push(s), Promise.resolve()) } };
  const refused = { clipboard: { writeText: () => Promise.reject(new Error("denied")) } };
  explore.copyLink(ok, true, "http://x/explore?t=1.a", done);
  explore.copyLink(refused, true, "http://x/explore?t=1.a", done);
  explore.copyLink(ok, false, "http://x/explore?t=1.a", done);
  explore.copyLink({}, true, "http://x/explore?t=1.a", done);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(copied, ["http://x/explore?t=1.a"]);
  assert.deepEqual(results.sort(), [false, false, false, true]);
});
