import { test } from "node:test";
import assert from "node:assert/strict";
import * as peers from "../peers.js";
import { backoffDelay } from "../socket.js";

test("the list is the page's own server first, then the peers once each", () => {
  assert.deepEqual(peers.serverList("http://a:8080", "http://b:8080/ https://C.example  http://a:8080 junk ftp://x"), [
    "http://a:8080",
    "http://b:8080",
    "https://c.example",
  ]);
  assert.deepEqual(peers.serverList("http://a:8080", ""), ["http://a:8080"]);
  assert.deepEqual(peers.serverList("http://a:8080", undefined), ["http://a:8080"]);
});

test("a lost page tries its own server twice, then walks the list in order, round and round", () => {
  const seq = (current, n) => Array.from({ length: n }, (_, f) => peers.pickServer(3, current, f));
  assert.deepEqual(seq(0, 8), [0, 0, 0, 1, 2, 0, 1, 2]);
  // On a peer that is lost in turn, it is the one tried first.
  assert.deepEqual(seq(1, 6), [1, 1, 1, 2, 0, 1]);
  assert.deepEqual(Array.from({ length: 5 }, (_, f) => peers.pickServer(1, 0, f)), [0, 0, 0, 0, 0]);
});

test("the walk backs off, and the wait is bounded", () => {
  const waits = Array.from({ length: 40 }, (_, f) => backoffDelay(f, 0.5));
  for (let i = 1; i < waits.length; i++) assert.ok(waits[i] >= waits[i - 1]);
  assert.equal(Math.max(...waits), 8000);
});

test("a base's websocket address", () => {
  assert.equal(peers.wsURL("http://b:8080"), "ws://b:8080/ws");
  assert.equal(peers.wsURL("https://c.example"), "wss://c.example/ws");
});

test("wired to the socket, a lost student page walks own, own, peers, and stays on the one that answers", async () => {
  const socket = await import("../socket.js");
  const { FakeSocket, fakeTimers } = await import("./fakes.js");
  FakeSocket.made = [];
  const timers = fakeTimers();
  const servers = peers.serverList("http://a:8080", "http://b:8080 http://c:8080");
  let current = 0;
  let trying = 0;
  const s = socket.newSocket({
    WebSocket: FakeSocket,
    url: (sock) => peers.wsURL(servers[(trying = peers.pickServer(servers.length, current, sock.failures))]),
    setTimeout: timers.setTimeout,
    clearTimeout: timers.clearTimeout,
    random: () => 0.5,
    onStatus: () => {},
    onOpen: () => socket.send(s, { type: "class-join", code: "K7P3QX" }),
    onMessage: () => {},
    onDown: () => {},
  });
  socket.connect(s);
  socket.answered(s); // a frame from a
  for (let i = 0; i < 3; i++) {
    FakeSocket.made.at(-1).drop(1006);
    timers.runAll();
  }
  assert.deepEqual(FakeSocket.made.map((w) => w.url), ["ws://a:8080/ws", "ws://a:8080/ws", "ws://a:8080/ws", "ws://b:8080/ws"]);
  FakeSocket.made.at(-1).open(); // b answers the join with the class's current step
  assert.deepEqual(FakeSocket.made.at(-1).sent, [{ type: "class-join", code: "K7P3QX" }]);
  socket.answered(s);
  current = trying;
  FakeSocket.made.at(-1).drop(1006);
  timers.runAll();
  assert.equal(FakeSocket.made.at(-1).url, "ws://b:8080/ws");
  assert.deepEqual(timers.delays, [300, 600, 1200, 300]);
});
