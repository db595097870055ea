import { test } from "node:test";
import assert from "node:assert/strict";
import { KEEP, REDIS, applyEvent, applyFrame, applyOlder, applySnapshot, clockText, commandText, diagramState, faultMessage, gapPx, hasOlder, highlighted, holdCount, laneIDs, laneTitle, markStale, newModel, olderMessage, quietClosed, rows, suggestions } from "../live.js";

const t0 = "2026-01-01T00:00:00Z";
const at = (ms) => new Date(Date.parse(t0) + ms).toISOString();

function snapshot() {
  return {
    type: "snapshot",
    snapshot: {
      started: t0,
      lanes: [{ lane: "c2", addr: "127.0.0.1:2", name: "worker-b" }, { lane: "c1", addr: "127.0.0.1:1", library: "go-redis" }],
      events: [
        { seq: 1, kind: "connect", at: at(0), lane: "c1", client: { lane: "c1", addr: "127.0.0.1:1" } },
        { seq: 2, kind: "command", at: at(10), lane: "c1", command: { name: "SET", args: ["SET", "lock:a", "t1", "NX", "PX", "100"], reply: "OK", raw: "+OK\r\n", locks: ["lock:a"] } },
        { seq: 3, kind: "lock", at: at(11), lock: { key: "lock:a", type: "string", value: "t1", pttl: 99 } },
      ],
      findings: [{ code: "overlap", lane: "c2", events: [2, 5] }],
      suggested: { "lock:a": "set-nx", "job:b": "set-nx" },
      chosen: ["lock:a"],
    },
    texts: ["c2 may overlap"],
  };
}

test("snapshot then events: lanes, rows, skip of old seqs", () => {
  const m = applySnapshot(newModel(), snapshot());
  assert.deepEqual(laneIDs(m), [REDIS, "c1", "c2"]);
  assert.equal(applyEvent(m, { event: { seq: 3, kind: "lock", at: at(11) } }), false);
  assert.equal(applyEvent(m, { event: { seq: 4, kind: "fault", at: at(2000), fault: { kind: "pause", lane: "c1", ms: 500 } } }), true);
  assert.equal(applyEvent(m, { event: { seq: 5, kind: "finding", at: at(2100), finding: { code: "overlap", lane: "c2", events: [2] } }, text: "x" }), true);
  const r = rows(m);
  assert.deepEqual(r.map((x) => [x.seq, x.lane, x.kind]), [[2, "c1", "command"], [3, REDIS, "lock"], [4, "c1", "fault"], [5, "c2", "finding"]]);
  assert.equal(r[0].reply, "+OK\r\n");
  assert.equal(r[0].t, 10);
  assert.equal(m.findings.length, 2);
  assert.equal(m.findings[0].text, "c2 may overlap");
  assert.deepEqual([...highlighted(m, 0)], [2, 5]);
});

test("a command named with its subcommand is written once: CLIENT SETNAME, SCRIPT LOAD", () => {
  const m = applySnapshot(newModel(), snapshot());
  applyEvent(m, { event: { seq: 4, kind: "command", at: at(20), lane: "c1", command: { name: "CLIENT SETNAME", args: ["client", "setname", "worker-a"], reply: "OK" } } });
  applyEvent(m, { event: { seq: 5, kind: "command", at: at(30), lane: "c1", command: { name: "SCRIPT LOAD", args: ["SCRIPT", "LOAD", "return 1"], reply: "\"e0e1f9fabfc9d4800c877a703b823ac0578ff8db\"" } } });
  applyEvent(m, { event: { seq: 6, kind: "command", at: at(40), lane: "c1", command: { name: "GET", args: ["GET", "lock:a"], reply: "\"t1\"" } } });
  const texts = rows(m).filter((r) => r.kind === "command").map((r) => r.text);
  assert.deepEqual(texts, ["SET lock:a t1 NX PX 100", "CLIENT SETNAME worker-a", "SCRIPT LOAD return 1", "GET lock:a"]);
  assert.equal(commandText({ name: "(push)" }), "(push)");
});

test("a second snapshot is a resync and replaces the model", () => {
  const m = applySnapshot(newModel(), snapshot());
  applyEvent(m, { event: { seq: 9, kind: "lock", at: at(5) } });
  applySnapshot(m, snapshot());
  assert.equal(m.resyncs, 1);
  assert.equal(m.lastSeq, 3);
});

test("gap on the real-time axis is compressed and bounded", () => {
  assert.equal(gapPx(0, 1000), 40);
  assert.equal(gapPx(0, 60000), 120);
  assert.equal(gapPx(10, 0), 0);
});

test("fault form: messages and missing fields", () => {
  assert.deepEqual(faultMessage({ type: "pause", client: " c1 ", ms: "2000" }), { msg: { type: "pause", client: "c1", ms: 2000 } });
  assert.deepEqual(faultMessage({ type: "pause", client: "", ms: "1" }), { error: "client" });
  assert.deepEqual(faultMessage({ type: "delay", client: "c1", ms: "5", span_ms: "0" }), { error: "span_ms" });
  assert.deepEqual(faultMessage({ type: "expire", key: "lock:a" }), { msg: { type: "expire", key: "lock:a" } });
  assert.deepEqual(faultMessage({ type: "restart" }), { msg: { type: "restart" } });
  assert.deepEqual(faultMessage({ type: "resume", client: "c1", ms: "5" }), { msg: { type: "resume", client: "c1" } });
  assert.deepEqual(faultMessage({ type: "resume", client: "" }), { error: "client" });
});

test("suggested keys: ticked when chosen, or all when none chosen", () => {
  const m = applySnapshot(newModel(), snapshot());
  assert.deepEqual(suggestions(m), [{ key: "job:b", reason: "set-nx", ticked: false }, { key: "lock:a", reason: "set-nx", ticked: true }]);
  m.chosen = [];
  assert.ok(suggestions(m).every((s) => s.ticked));
});

test("the stale-owner window hatches the holder's lane until it touches the key again", () => {
  const m = applySnapshot(newModel(), snapshot());
  applyEvent(m, { event: { seq: 4, kind: "finding", at: at(500), finding: { code: "lease-expired", lane: "c1", key: "lock:a", at: at(500) } }, text: "x" });
  applyEvent(m, { event: { seq: 5, kind: "fault", at: at(600), fault: { kind: "pause-end", lane: "c1" } } });
  applyEvent(m, { event: { seq: 6, kind: "command", at: at(700), lane: "c1", command: { name: "DEL", args: ["DEL", "lock:a"], reply: "0", locks: ["lock:a"] } } });
  applyEvent(m, { event: { seq: 7, kind: "command", at: at(800), lane: "c1", command: { name: "GET", args: ["GET", "x"], reply: "(value)" } } });
  const stale = markStale(m, rows(m)).filter((r) => r.stale).map((r) => r.seq);
  assert.deepEqual(stale, [4, 5]);
});

test("an overwritten hold hatches the earlier holder's lane, not the writer's", () => {
  const m = applySnapshot(newModel(), snapshot());
  applyEvent(m, { event: { seq: 4, kind: "finding", at: at(500), lane: "c2", finding: { code: "overwritten", lane: "c2", other: "c1", key: "lock:a", at: at(500) } }, text: "x" });
  applyEvent(m, { event: { seq: 5, kind: "command", at: at(600), lane: "c1", command: { name: "GET", args: ["GET", "x"], reply: "(value)" } } });
  applyEvent(m, { event: { seq: 6, kind: "command", at: at(650), lane: "c2", command: { name: "GET", args: ["GET", "y"], reply: "(value)" } } });
  applyEvent(m, { event: { seq: 7, kind: "command", at: at(700), lane: "c1", command: { name: "DEL", args: ["DEL", "lock:a"], reply: "0", locks: ["lock:a"] } } });
  applyEvent(m, { event: { seq: 8, kind: "command", at: at(800), lane: "c1", command: { name: "GET", args: ["GET", "x"], reply: "(value)" } } });
  const stale = markStale(m, rows(m)).filter((r) => r.stale).map((r) => r.seq);
  assert.deepEqual(stale, [5]);
});

// The diagram's transitions as the page gets them (package sim's table).
const EDGES = [
  { id: "first-acquire", from: "idle", to: "held-once" },
  { id: "reenter", from: "held-once", to: "held-many" },
  { id: "reenter-or-partial-release", from: "held-many", to: "held-many" },
  { id: "count-to-one", from: "held-many", to: "held-once" },
  { id: "release-or-expire", from: "held-once", to: "idle" },
  { id: "expire", from: "held-many", to: "idle" },
];

test("hold counts of String and Hash locks", () => {
  assert.equal(holdCount({ key: "k", type: "none" }), 0);
  assert.equal(holdCount({ key: "k", type: "string", value: "t" }), 1);
  assert.equal(holdCount({ key: "k", type: "hash", fields: { "uuid:1": "2" } }), 2);
  assert.equal(holdCount({ key: "k", type: "hash", fields: { owner: "t", count: "3" } }), 3);
});

test("the state diagram follows the latest lock state and names the edge taken", () => {
  const m = applySnapshot(newModel(), snapshot());
  assert.deepEqual(diagramState(m, EDGES), { key: "lock:a", state: "held-once", count: 1, edge: null });
  const h = (seq, lane, fields) => ({ event: { seq, kind: "lock", at: at(seq), lane, lock: { key: "r", type: fields ? "hash" : "none", fields } } });
  applyEvent(m, h(10, "c1", { "u:1": "1" }));
  applyEvent(m, h(11, "c1", { "u:1": "2" }));
  assert.equal(diagramState(m, EDGES).edge, "reenter");
  // Another key in between does not break the pair of states of "r".
  applyEvent(m, { event: { seq: 12, kind: "lock", at: at(12), lane: "c2", lock: { key: "other", type: "none" } } });
  applyEvent(m, h(13, "", null)); // read by the sweep: the lease ran out
  assert.deepEqual(diagramState(m, EDGES), { key: "r", state: "idle", count: 0, edge: "expire" });
  applyEvent(m, h(14, "c1", { "u:1": "2" }));
  applyEvent(m, h(15, "c1", null)); // a command deleted a count of 2: not on the diagram
  assert.deepEqual(diagramState(m, EDGES), { key: "r", state: "idle", count: 0, edge: "off-diagram", from: "held-many" });
  assert.equal(diagramState(newModel(), EDGES), null);
});

test("lane heads: declared library and the lock library known from scripts", () => {
  const m = applySnapshot(newModel(), { ...snapshot(), lanes: [{ lane: "c1", lock_library: "redsync" }] });
  assert.deepEqual(laneTitle(m.lanes.get("c1")), { name: "c1", addr: "127.0.0.1:1", lib: "go-redis", lockLib: "redsync" });
  applyEvent(m, { event: { seq: 4, kind: "command", at: at(20), lane: "c2", command: { name: "EVALSHA", args: [], reply: "1" } }, library: "node-redlock" });
  // A later client event (CLIENT SETNAME) keeps what the scripts told.
  applyEvent(m, { event: { seq: 5, kind: "client", at: at(21), lane: "c2", client: { lane: "c2", addr: "127.0.0.1:2", name: "w" } } });
  assert.equal(laneTitle(m.lanes.get("c2")).lockLib, "node-redlock");
});

test("the axis writes wall-clock time", () => {
  const t = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();
  assert.equal(clockText(t), "03:04:05.067");
});

test("a lock key new to the page brings the proxy's suggestions", () => {
  const m = applySnapshot(newModel(), snapshot());
  applyEvent(m, { event: { seq: 4, kind: "lock", at: at(30), lock: { key: "job:c", type: "string", value: "t" } }, suggested: { "lock:a": "set-nx", "job:c": "script-ttl" }, chosen: [] });
  assert.deepEqual(suggestions(m).map((x) => [x.key, x.reason, x.ticked]), [["job:c", "script-ttl", true], ["lock:a", "set-nx", true]]);
});

test("a frame: its events in order, old seqs skipped, the proxy's skipped count kept", () => {
  const m = applySnapshot(newModel(), snapshot());
  const d = applyFrame(m, {
    type: "events",
    skipped: 7,
    events: [
      { event: { seq: 3, kind: "lock", at: at(11) } },
      { event: { seq: 4, kind: "command", at: at(20), lane: "c1", command: { name: "GET", args: ["GET", "k"], reply: "(value)" } } },
      { event: { seq: 5, kind: "finding", at: at(30), finding: { code: "overlap", lane: "c2", events: [4] } }, text: "f" },
    ],
  });
  assert.deepEqual(d, { any: true, findings: true, suggested: false });
  assert.deepEqual(m.events.map((e) => e.seq), [1, 2, 3, 4, 5]);
  assert.equal(m.findings[1].text, "f");
  assert.equal(m.skipped, 7);
  assert.deepEqual(applyFrame(m, { events: [{ event: { seq: 5, kind: "lock", at: at(40) } }] }), { any: false, findings: false, suggested: false });
});

// A window snapshot: the proxy holds events from Seq 1, the page was sent
// 100..102 only.
function window100() {
  const ev = (seq, extra) => ({ seq, kind: "command", at: at(seq), lane: "c1", command: { name: "GET", args: ["GET", "k"], reply: "(nil)" }, ...extra });
  return {
    type: "snapshot",
    snapshot: {
      started: t0,
      first: 1,
      lanes: [{ lane: "c1", addr: "127.0.0.1:1" }],
      events: [ev(100), ev(101), ev(102)],
      redis: { locks: [{ key: "lock:a", type: "hash", fields: { o1: "2" }, pttl: 900, read: at(50) }] },
      findings: [],
    },
  };
}

test("a window snapshot: older events are fetched on demand and put before, once", () => {
  const m = applySnapshot(newModel(), window100());
  assert.equal(hasOlder(m), true);
  assert.deepEqual(olderMessage(m), { type: "older", before: 100 });
  const page = (from, to) => ({ type: "older", first: 1, events: Array.from({ length: to - from + 1 }, (_, i) => ({ type: "event", event: { seq: from + i, kind: "close", at: at(from + i), lane: "c1" } })) });
  // an answer overlapping what the page has adds only the older ones
  assert.equal(applyOlder(m, page(50, 101)), 50);
  assert.deepEqual(m.events.map((e) => e.seq).slice(0, 2), [50, 51]);
  assert.deepEqual(olderMessage(m), { type: "older", before: 50 });
  assert.equal(m.keep, KEEP + 50);
  assert.equal(applyOlder(m, page(1, 49)), 49);
  assert.equal(hasOlder(m), false);
  assert.equal(olderMessage(m), null);
  assert.deepEqual(m.events.map((e) => e.seq), Array.from({ length: 102 }, (_, i) => i + 1));
});

test("the page keeps the newest events as they come; the dropped ones are fetchable", () => {
  const m = applySnapshot(newModel(), window100());
  for (let seq = 103; seq < 103 + KEEP; seq++) applyEvent(m, { event: { seq, kind: "close", at: at(seq), lane: "c1" } });
  assert.equal(m.events.length, KEEP);
  assert.equal(m.events[m.events.length - 1].seq, 102 + KEEP);
  assert.deepEqual(olderMessage(m), { type: "older", before: 103 });
});

test("lock states: the snapshot's head the page when its window holds no lock event; new ones replace them", () => {
  const m = applySnapshot(newModel(), window100());
  assert.deepEqual(diagramState(m, []), { key: "lock:a", state: "held-many", count: 2, edge: null });
  applyEvent(m, { event: { seq: 103, kind: "lock", at: at(103), lock: { key: "lock:a", type: "none", pttl: -2, read: at(103) } } });
  assert.equal(m.locks.get("lock:a").type, "none");
  assert.equal(diagramState(m, []).state, "idle");
});

test("closed connections that touched no lock key are not drawn; busy or open ones are", () => {
  const m = applySnapshot(newModel(), snapshot());
  // c3: a one-shot redis-cli GET of a plain key, closed. c4: closed after
  // a SET NX of a lock. c5: closed, named by a fault. c6: open, idle.
  const lanes = [
    { seq: 10, kind: "connect", at: at(20), lane: "c3", client: { lane: "c3", addr: "127.0.0.1:3" } },
    { seq: 11, kind: "command", at: at(21), lane: "c3", command: { name: "GET", args: ["GET", "plain"], reply: "(value)", locks: [] } },
    { seq: 12, kind: "close", at: at(22), lane: "c3", client: { lane: "c3", addr: "127.0.0.1:3", closed: at(22) } },
    { seq: 13, kind: "connect", at: at(23), lane: "c4", client: { lane: "c4", addr: "127.0.0.1:4" } },
    { seq: 14, kind: "command", at: at(24), lane: "c4", command: { name: "SET", args: ["SET", "lock:a", "t4", "NX"], reply: "(nil)", locks: ["lock:a"] } },
    { seq: 15, kind: "close", at: at(25), lane: "c4", client: { lane: "c4", addr: "127.0.0.1:4", closed: at(25) } },
    { seq: 16, kind: "connect", at: at(26), lane: "c5", client: { lane: "c5", addr: "127.0.0.1:5" } },
    { seq: 17, kind: "fault", at: at(27), fault: { kind: "close", lane: "c5" } },
    { seq: 18, kind: "close", at: at(28), lane: "c5", client: { lane: "c5", addr: "127.0.0.1:5", closed: at(28) } },
    { seq: 19, kind: "connect", at: at(29), lane: "c6", client: { lane: "c6", addr: "127.0.0.1:6" } },
  ];
  for (const e of lanes) applyEvent(m, { event: e });
  assert.deepEqual([...quietClosed(m)], ["c3"]);
  assert.deepEqual(laneIDs(m), [REDIS, "c1", "c2", "c4", "c5", "c6"]);
  // Its rows go with it: no row is on a lane that is not drawn.
  const ids = new Set(laneIDs(m));
  assert.ok(rows(m).some((r) => r.lane === "c3"));
  assert.equal(rows(m).filter((r) => ids.has(r.lane)).some((r) => r.lane === "c3"), false);
});
