import { test } from "node:test";
import assert from "node:assert/strict";
import * as socket from "../socket.js";
import { FakeSocket, fakeTimers } from "./fakes.js";

// page wires a socket as app.js does: on open it loads the run at the
// step the view shows (or the one a Redis failure wants).
function page(view) {
  FakeSocket.made = [];
  const timers = fakeTimers();
  const log = { status: [], messages: [], downs: 0 };
  const s = socket.newSocket({
    WebSocket: FakeSocket,
    url: "ws://lockstep.test/ws",
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout,
    random: () => 0.5,
    onStatus: (state, key) => log.status.push([state, key]),
    onOpen: () => socket.send(s, socket.loadMessage(view, socket.resumeStep(view.step, view.redisFail))),
    onMessage: (m) => log.messages.push(m),
    onDown: () => log.downs++,
  });
  return { s, timers, log, last: () => FakeSocket.made.at(-1) };
}

test("socketURL follows the page's scheme and host", () => {
  assert.equal(socket.socketURL({ protocol: "http:", host: "127.0.0.1:8080" }), "ws://127.0.0.1:8080/ws");
  assert.equal(socket.socketURL({ protocol: "https:", host: "lockstep.example" }), "wss://lockstep.example/ws");
});

test("backoffDelay doubles from 300 ms up to 8 s, spread by a quarter", () => {
  assert.equal(socket.backoffDelay(0, 0.5), 300);
  assert.equal(socket.backoffDelay(1, 0.5), 600);
  assert.equal(socket.backoffDelay(4, 0.5), 4800);
  assert.equal(socket.backoffDelay(5, 0.5), 8000);
  assert.equal(socket.backoffDelay(8, 0.5), 8000);
  assert.equal(socket.backoffDelay(0, 0), 225);
  assert.ok(socket.backoffDelay(0, 0.999999) < 375);
});

test("afterClose: idle waits for the learner, busy and others reconnect", () => {
  assert.deepEqual(socket.afterClose(4000), { state: "idle", key: "tIdle", reconnect: false });
  assert.deepEqual(socket.afterClose(1013), { state: "busy", key: "tBusy", reconnect: true });
  for (const code of [1001, 1006, 1008, 1009, 4001]) {
    assert.deepEqual(socket.afterClose(code), { state: "reconnecting", key: "tReconnecting", reconnect: true });
  }
});

test("loadMessage: a lesson, or a shared timeline's code instead", () => {
  assert.deepEqual(socket.loadMessage({ lesson: "stale-owner", timeline: "", lang: "zh-CN" }, 4), {
    type: "load",
    lesson: "stale-owner",
    step: 4,
    lang: "zh-CN",
  });
  assert.deepEqual(socket.loadMessage({ lesson: "explore", timeline: "1.eNp", lang: "en" }, 3), {
    type: "load",
    timeline: "1.eNp",
    step: 3,
    lang: "en",
  });
});

test("resumeStep: the step shown, or the later step Redis did not answer", () => {
  assert.equal(socket.resumeStep(4, null), 4);
  assert.equal(socket.resumeStep(4, { target: null }), 4);
  assert.equal(socket.resumeStep(4, { target: 7 }), 7);
  assert.equal(socket.resumeStep(4, { target: 2 }), 4);
});

test("connect opens one socket and loads the step shown", () => {
  const view = { lesson: "nested-reentry", timeline: "", step: 3, lang: "en" };
  const p = page(view);
  socket.connect(p.s);
  socket.connect(p.s); // already opening: no second socket
  assert.equal(FakeSocket.made.length, 1);
  assert.equal(p.last().url, "ws://lockstep.test/ws");
  assert.deepEqual(p.log.status, [["connecting", "tConnecting"]]);
  assert.equal(socket.isOpen(p.s), false);
  p.last().open();
  assert.equal(socket.isOpen(p.s), true);
  assert.deepEqual(p.last().sent, [{ type: "load", lesson: "nested-reentry", step: 3, lang: "en" }]);
});

test("a dropped socket reconnects with backoff and resumes at the step shown", () => {
  const view = { lesson: "stale-owner", timeline: "", step: 0, lang: "zh-TW" };
  const p = page(view);
  socket.connect(p.s);
  p.last().open();
  view.step = 5; // the learner stepped on
  p.last().drop(1001); // the server restarts
  assert.equal(p.log.downs, 1);
  assert.deepEqual(p.log.status.at(-1), ["reconnecting", "tReconnecting"]);
  assert.equal(p.s.ws, null);
  assert.deepEqual(p.timers.delays, [300]);
  p.timers.runAll();
  assert.equal(FakeSocket.made.length, 2);
  assert.deepEqual(p.log.status.at(-1), ["connecting", "tReconnecting"]);
  p.last().drop(1006); // not up yet
  assert.deepEqual(p.timers.delays, [300, 600]);
  p.timers.runAll();
  p.last().open();
  assert.deepEqual(p.last().sent, [{ type: "load", lesson: "stale-owner", step: 5, lang: "zh-TW" }]);
  socket.answered(p.s); // the frame came: the next drop starts over
  p.last().drop(1006);
  assert.deepEqual(p.timers.delays, [300, 600, 300]);
});

test("the backoff stops growing after eight tries", () => {
  const p = page({ lesson: "x", step: 0, lang: "en" });
  socket.connect(p.s);
  for (let i = 0; i < 12; i++) {
    p.last().drop(1006);
    p.timers.runAll();
  }
  assert.equal(p.s.retries, 8);
  assert.deepEqual(p.timers.delays.slice(-4), [8000, 8000, 8000, 8000]);
});

test("after a Redis failure the reconnected page asks again for the step wanted", () => {
  const view = { lesson: "stale-owner", timeline: "", step: 2, lang: "en", redisFail: { target: 6 } };
  const p = page(view);
  socket.connect(p.s);
  p.last().open();
  assert.deepEqual(p.last().sent, [{ type: "load", lesson: "stale-owner", step: 6, lang: "en" }]);
});

test("an idle close waits for the learner; connect comes back", () => {
  const p = page({ lesson: "x", timeline: "", step: 1, lang: "en" });
  socket.connect(p.s);
  p.last().open();
  p.last().drop(4000);
  assert.equal(p.s.idle, true);
  assert.deepEqual(p.log.status.at(-1), ["idle", "tIdle"]);
  assert.equal(p.timers.pending.size, 0, "no reconnect on its own");
  socket.connect(p.s);
  assert.equal(p.s.idle, false);
  assert.equal(FakeSocket.made.length, 2);
});

test("too many sessions: busy, and try again later", () => {
  const p = page({ lesson: "x", step: 0, lang: "en" });
  socket.connect(p.s);
  p.last().drop(1013);
  assert.deepEqual(p.log.status.at(-1), ["busy", "tBusy"]);
  assert.equal(p.timers.pending.size, 1);
});

test("disconnect closes for good; the old socket's close is ignored", () => {
  const p = page({ lesson: "x", step: 0, lang: "en" });
  socket.connect(p.s);
  const ws = p.last();
  ws.open();
  socket.disconnect(p.s);
  assert.deepEqual(ws.closedWith, { code: 1000, reason: "page left" });
  assert.equal(p.log.downs, 1);
  assert.deepEqual(p.log.status.at(-1), ["connecting", "tConnecting"]);
  ws.drop(1000);
  assert.equal(p.timers.pending.size, 0);
  assert.equal(p.log.downs, 1);
  socket.connect(p.s); // the page is shown again (pageshow)
  assert.equal(FakeSocket.made.length, 2);
});

test("a reconnect timer is cancelled by connect and disconnect", () => {
  const p = page({ lesson: "x", step: 0, lang: "en" });
  socket.connect(p.s);
  p.last().drop(1006);
  assert.equal(p.timers.pending.size, 1);
  socket.disconnect(p.s);
  assert.equal(p.timers.pending.size, 0);
});

test("send: nothing while not open; JSON once open, after before(msg)", () => {
  const p = page({ lesson: "x", step: 0, lang: "en" });
  const seen = [];
  assert.equal(socket.send(p.s, { type: "step" }, (m) => seen.push(m)), false);
  socket.connect(p.s);
  assert.equal(socket.send(p.s, { type: "step" }, (m) => seen.push(m)), false, "still opening");
  p.last().open();
  assert.equal(socket.send(p.s, { type: "seek", step: 3 }, (m) => seen.push(m)), true);
  assert.deepEqual(seen, [{ type: "seek", step: 3 }]);
  assert.deepEqual(p.last().sent.at(-1), { type: "seek", step: 3 });
});

test("messages: parsed JSON goes to the page, anything else is dropped", () => {
  const p = page({ lesson: "x", step: 0, lang: "en" });
  socket.connect(p.s);
  p.last().open();
  p.last().message('{"type":"hello","protocol":1}');
  p.last().message("not json {");
  assert.deepEqual(p.log.messages, [{ type: "hello", protocol: 1 }]);
  assert.equal(socket.parseMessage("[1"), null);
});
