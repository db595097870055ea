// The live page's model (/live, package live): the proxy's snapshot and
// the events after it, as lanes (one per client connection, one for
// Redis's lock keys), rows on a real-time axis, findings and what they
// point at. No DOM here: livepage.js draws it; node --test checks it.

// REDIS is the Redis lane's id in the lane list.
export const REDIS = "redis";

// KEEP is how many of the newest events the page keeps as new ones come
// (the server's window, proxy.WindowEvents, is 500): older ones are
// dropped from the page and fetched again on demand (olderMessage).
export const KEEP = 1000;

// newModel is an empty model. events are a run of consecutive events
// (the server's window, then what came after, then what the user
// scrolled back to); first is the oldest Seq the proxy still holds;
// keep how many the page keeps (KEEP, plus what was fetched on demand);
// locks each lock key's latest state.
export function newModel() {
  return { started: 0, lanes: new Map(), events: [], lastSeq: 0, first: 0, keep: KEEP, locks: new Map(), findings: [], suggested: {}, chosen: [], fixed: false, resyncs: 0, skipped: 0 };
}

function ms(t) {
  const v = Date.parse(t);
  return Number.isNaN(v) ? 0 : v;
}

// applySnapshot replaces the model with a snapshot message's
// ({snapshot, texts}); a second one is a resync.
export function applySnapshot(model, msg) {
  const s = msg.snapshot || {};
  const resyncs = model.started ? model.resyncs + 1 : model.resyncs;
  const m = newModel();
  m.resyncs = resyncs;
  m.started = ms(s.started);
  for (const l of s.lanes || []) m.lanes.set(l.lane, { ...l });
  // msg.lanes (the page's lane heads) add the lock library known from
  // each lane's scripts.
  for (const l of msg.lanes || []) {
    const lane = m.lanes.get(l.lane);
    if (lane && l.lock_library) lane.lock_library = l.lock_library;
  }
  m.events = (s.events || []).filter((e) => e.kind !== "resync");
  m.lastSeq = m.events.length ? m.events[m.events.length - 1].seq : 0;
  m.first = s.first || 0;
  for (const st of (s.redis && s.redis.locks) || []) m.locks.set(st.key, st);
  const texts = msg.texts || [];
  m.findings = (s.findings || []).map((f, i) => ({ ...f, text: texts[i] || f.code }));
  m.suggested = s.suggested || {};
  m.chosen = s.chosen || [];
  m.fixed = (s.lock_globs || []).length > 0;
  Object.assign(model, m);
  return model;
}

// applyEvent adds an event message ({event, text}); events at or below
// the last Seq seen are skipped (the snapshot had them).
export function applyEvent(model, msg) {
  const e = msg.event;
  if (!e || e.seq <= model.lastSeq) return false;
  model.lastSeq = e.seq;
  model.events.push(e);
  if (model.events.length > model.keep) model.events.splice(0, model.events.length - model.keep);
  if (e.kind === "lock" && e.lock) model.locks.set(e.lock.key, e.lock);
  if (e.client) {
    const was = model.lanes.get(e.client.lane);
    model.lanes.set(e.client.lane, { ...e.client, lock_library: was && was.lock_library });
  }
  const lane = model.lanes.get(e.lane);
  if (msg.library && lane && !lane.lock_library) lane.lock_library = msg.library;
  if (msg.suggested) {
    model.suggested = msg.suggested;
    model.chosen = msg.chosen || [];
  }
  if (e.kind === "finding" && e.finding) model.findings.push({ ...e.finding, text: msg.text || e.finding.code });
  return true;
}

// applyFrame adds a frame message ({events: [event messages], skipped}):
// each event as applyEvent does, and the count of plain commands the
// proxy left out (over its rate) in model.skipped. It says what to
// redraw: any event, a finding, new suggestions.
export function applyFrame(model, msg) {
  const drawn = { any: false, findings: false, suggested: false };
  for (const m of msg.events || []) {
    if (!applyEvent(model, m)) continue;
    drawn.any = true;
    if (m.event.kind === "finding") drawn.findings = true;
    if (m.suggested) drawn.suggested = true;
  }
  model.skipped += msg.skipped || 0;
  return drawn;
}

// hasOlder reports whether the proxy holds events older than the
// page's: the user may scroll back to them.
export function hasOlder(model) {
  return model.events.length > 0 && model.first > 0 && model.events[0].seq > model.first;
}

// olderMessage is the websocket message asking for the events before
// the page's oldest, or null when there are none.
export function olderMessage(model) {
  return hasOlder(model) ? { type: "older", before: model.events[0].seq } : null;
}

// applyOlder puts an "older" answer ({events: [event messages], first})
// before the page's events: those older than its oldest, which the page
// then keeps beside the newest (keep grows by as many). Lanes, findings
// and lock states are the snapshot's already. It returns how many it
// added.
export function applyOlder(model, msg) {
  model.first = msg.first || model.first;
  const oldest = model.events.length ? model.events[0].seq : Infinity;
  const add = (msg.events || []).map((m) => m.event).filter((e) => e && e.seq < oldest);
  model.events.unshift(...add);
  model.keep += add.length;
  return add.length;
}

// quietClosed are the client lanes not drawn: closed, and in the events
// the page holds they sent no command on a lock key and no fault or
// finding names them. An application that opens a connection per call
// (a script, redis-cli, a pool that churns) would otherwise leave a
// column per call, and the lanes that matter off the screen.
export function quietClosed(model) {
  const busy = new Set();
  for (const e of model.events) {
    if (e.kind === "command" && e.command && (e.command.locks || []).length) busy.add(e.lane);
    if (e.kind === "fault" && e.fault && e.fault.lane) busy.add(e.fault.lane);
  }
  for (const f of model.findings) {
    if (f.lane) busy.add(f.lane);
    if (f.other) busy.add(f.other);
  }
  const out = new Set();
  for (const [id, l] of model.lanes) if (l.closed && !busy.has(id)) out.add(id);
  return out;
}

// laneIDs are the timeline's columns: Redis first, then the clients in
// the order they connected, less the quiet closed ones (quietClosed).
export function laneIDs(model) {
  const quiet = quietClosed(model);
  const ids = [...model.lanes.keys()].filter((id) => !quiet.has(id)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  return [REDIS, ...ids];
}

// laneTitle is a client lane's header: name, address, the client
// library it declared (CLIENT SETINFO) and the lock library its scripts
// are known by (lockLib, "" until it runs one).
export function laneTitle(l) {
  const lib = l.library ? `${l.library}${l.library_version ? " " + l.library_version : ""}` : "";
  return { name: l.name || l.lane, addr: l.addr || "", lib, lockLib: l.lock_library || "" };
}

// clockText writes a wall-clock time (ms since the epoch) as this
// computer's local HH:MM:SS.mmm: the axis is real time.
export function clockText(t) {
  const d = new Date(t);
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

// holdCount is the hold count a lock state shows: 0 absent, 1 for a
// String, a Hash's "count" field (owner-and-count) or the sum of its
// fields (a field per owner, each its hold count: Redisson's).
export function holdCount(st) {
  if (!st || !st.type || st.type === "none") return 0;
  if (st.type !== "hash") return 1;
  const f = st.fields || {};
  if ("count" in f) return Number(f.count) || 0;
  return Object.values(f).reduce((n, v) => n + (Number(v) || 0), 0);
}

// stateOf places a hold count on seed 001's diagram, as package sim does.
export function stateOf(count) {
  return count <= 0 ? "idle" : count === 1 ? "held-once" : "held-many";
}

// diagramState is what the state diagram shows: the lock key of the
// latest lock state, its state and hold count, and the transition from
// the state before (an edge of edges, [{id, from, to}] from the page, or
// "off-diagram"; null when nothing moved). A lock read by no command (the
// proxy's sweep) went by expiry: HeldMany to Idle is on the diagram only
// as expiry, as in package sim.
export function diagramState(model, edges) {
  const byKey = new Map();
  let last = null;
  let prev = null;
  for (const e of model.events) {
    if (e.kind !== "lock" || !e.lock) continue;
    prev = byKey.get(e.lock.key) || null;
    byKey.set(e.lock.key, e);
    last = e;
  }
  if (!last) {
    // No lock event among the page's: the newest state the snapshot had.
    let st = null;
    for (const l of model.locks.values()) if (!st || ms(l.read) > ms(st.read)) st = l;
    if (!st) return null;
    const c = holdCount(st);
    return { key: st.key, state: stateOf(c), count: c, edge: null };
  }
  const count = holdCount(last.lock);
  const state = stateOf(count);
  const out = { key: last.lock.key, state, count, edge: null };
  if (!prev) return out;
  const fromCount = holdCount(prev.lock);
  const from = stateOf(fromCount);
  if (from === state && fromCount === count) return out;
  const byExpiry = !last.lane;
  for (const ed of edges) {
    if (ed.from !== from || ed.to !== state) continue;
    if (ed.id === "expire" && !byExpiry) break;
    out.edge = ed.id;
    return out;
  }
  if (from === state && from === "held-once") return out;
  out.edge = "off-diagram";
  out.from = from;
  return out;
}

// lockText writes a lock state: contents and PTTL.
export function lockText(st) {
  if (!st || st.type === "none" || !st.type) return `${st ? st.key : ""} (none)`;
  let v = st.value ?? "";
  if (st.fields) v = Object.entries(st.fields).map(([k, c]) => `${k}=${c}`).join(" ");
  return `${st.key} = ${v} · PTTL ${st.pttl}`;
}

// faultLane is where a fault is drawn: its client's lane, else Redis's.
function faultLane(f) {
  return f.lane || REDIS;
}

// commandText is how a row writes a command: its name and the arguments
// after it. A name with its subcommand ("CLIENT SETNAME", "SCRIPT LOAD")
// stands for the first arguments too (args are as sent: "CLIENT",
// "setname", ...), which are not written twice.
export function commandText(c) {
  const words = c.name.split(" ").length;
  return [c.name, ...(c.args || []).slice(words)].join(" ");
}

// rows turns the events into timeline rows: {seq, lane, t (ms since
// start), kind, text, reply, lost}. Connects and names only update lanes.
export function rows(model) {
  const out = [];
  for (const e of model.events) {
    const t = ms(e.at) - model.started;
    if (e.kind === "command" && e.command) {
      const c = e.command;
      out.push({ seq: e.seq, lane: e.lane, t, kind: "command", text: commandText(c), reply: c.raw || c.reply, lost: !!c.reply_lost, locks: c.locks || [] });
    } else if (e.kind === "lock" && e.lock) {
      out.push({ seq: e.seq, lane: REDIS, t, kind: "lock", text: lockText(e.lock), present: e.lock.type !== "none" });
    } else if (e.kind === "fault" && e.fault) {
      const f = e.fault;
      const what = [f.kind, f.lane, f.key, f.ms ? `${f.ms}ms` : ""].filter(Boolean).join(" ");
      out.push({ seq: e.seq, lane: faultLane(f), t, kind: "fault", text: what });
    } else if (e.kind === "finding" && e.finding) {
      out.push({ seq: e.seq, lane: e.finding.lane || REDIS, t, kind: "finding", text: e.finding.code });
    } else if (e.kind === "close") {
      out.push({ seq: e.seq, lane: e.lane || (e.client && e.client.lane), t, kind: "close", text: e.error || "close" });
    }
  }
  return out;
}

// staleFrom maps a lane to the time (ms since start) its hold ended
// unreleased: its lease ran out (a lease-expired finding, about its
// lane) or another client overwrote it (an overwritten finding, whose
// other is the earlier holder). From then on it may be a stale owner, and
// its cells are hatched until it sends a command on that key again or
// its connection ends.
function staleFrom(model) {
  const out = new Map();
  for (const f of model.findings) {
    const lane = f.code === "lease-expired" ? f.lane : f.code === "overwritten" ? f.other : "";
    if (lane && !out.has(lane)) out.set(lane, { t: ms(f.at) - model.started, key: f.key });
  }
  return out;
}

// markStale sets stale on the rows of a lane inside its stale-owner
// window (staleFrom), as the player hatches it.
export function markStale(model, list) {
  const from = staleFrom(model);
  for (const r of list) {
    const w = from.get(r.lane);
    if (!w || r.t < w.t) continue;
    if (r.kind === "close" || (r.kind === "command" && r.locks.includes(w.key))) {
      from.delete(r.lane);
      continue;
    }
    r.stale = true;
  }
  return list;
}

// gapPx is the vertical space before a row: real time, compressed
// (about 40 px per second, at most 120 px).
export function gapPx(prevT, t) {
  const d = Math.max(0, t - prevT);
  return Math.min(120, Math.round(d / 25));
}

// highlighted is the set of Seqs finding i points at.
export function highlighted(model, i) {
  const f = model.findings[i];
  return new Set(f ? f.events || [] : []);
}

// faultMessage turns the fault form's fields into a websocket message,
// or {error: field} for a field the type needs and lacks.
export function faultMessage(fields) {
  const type = fields.type;
  const m = { type };
  const num = (v) => Math.round(Number(v));
  if (["pause", "resume", "lose-reply", "delay", "close"].includes(type)) {
    if (!fields.client) return { error: "client" };
    m.client = fields.client.trim();
  }
  if (type === "pause" || type === "delay") {
    m.ms = num(fields.ms);
    if (!(m.ms > 0)) return { error: "ms" };
  }
  if (type === "delay") {
    m.span_ms = num(fields.span_ms);
    if (!(m.span_ms > 0)) return { error: "span_ms" };
  }
  if (type === "expire") {
    if (!fields.key) return { error: "key" };
    m.key = fields.key.trim();
  }
  return { msg: m };
}

// suggestions lists the suggested keys with reasons and whether ticked
// (with nothing chosen, every suggested key is a lock).
export function suggestions(model) {
  const chosen = new Set(model.chosen);
  return Object.keys(model.suggested).sort().map((key) => ({ key, reason: model.suggested[key], ticked: chosen.size === 0 || chosen.has(key) }));
}
