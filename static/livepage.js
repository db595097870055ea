// The live page's script (/live): startLive opens the websocket, keeps
// the model (live.js) and draws it; the forms send fault, lock-key and
// save messages (protocol in the doc of package live). main.js calls it on
// the live page.

import { REDIS, applyEvent, applySnapshot, faultMessage, gapPx, highlighted, laneIDs, laneTitle, markStale, newModel, rows, suggestions } from "./live.js";

// startLive runs the live page in document, root its <main id="live">.
export function startLive(document, root) {
const texts = JSON.parse(root.dataset.texts);
const model = newModel();
let lit = new Set();
let sock = null;

function el(tag, attrs = {}, ...kids) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") n.className = v;
    else if (k.startsWith("data-")) n.setAttribute(k, v);
    else n[k] = v;
  }
  for (const k of kids) n.append(k);
  return n;
}

function status(text) {
  document.getElementById("live-status").textContent = text;
}

function drawFindings() {
  const ol = document.getElementById("live-findings");
  ol.replaceChildren();
  if (model.findings.length === 0) ol.append(el("li", { class: "muted" }, texts["no-findings"]));
  model.findings.forEach((f, i) => {
    const b = el("button", { type: "button", class: "finding", "data-code": f.code, "data-testid": "live-finding" }, f.text);
    b.addEventListener("click", () => {
      lit = highlighted(model, i);
      drawTimeline();
    });
    ol.append(el("li", {}, b));
  });
}

function drawLocks() {
  const ul = document.getElementById("live-suggested");
  if (!ul) return;
  ul.replaceChildren();
  const list = suggestions(model);
  if (list.length === 0) ul.append(el("li", { class: "muted" }, texts["locks-none"]));
  for (const s of list) {
    const box = el("input", { type: "checkbox", name: "key", value: s.key, checked: s.ticked });
    ul.append(el("li", {}, el("label", {}, box, ` ${s.key} — ${texts["reason." + s.reason] || s.reason}`)));
  }
}

function drawTimeline() {
  const tl = document.getElementById("live-timeline");
  const ids = laneIDs(model);
  tl.style.gridTemplateColumns = `6em repeat(${ids.length}, minmax(12em, 1fr))`;
  const cells = [el("div", { class: "live-head" }, "")];
  for (const id of ids) {
    if (id === REDIS) {
      cells.push(el("div", { class: "live-head", "data-lane": REDIS }, texts["redis-lane"]));
      continue;
    }
    const l = model.lanes.get(id);
    const t = laneTitle(l);
    const head = el("div", { class: "live-head" + (l.closed ? " closed" : ""), "data-lane": id, "data-testid": "live-lane" }, el("strong", {}, t.name), el("br"), el("small", {}, t.addr));
    if (t.lib) head.append(el("br"), el("small", {}, `${texts.library}: ${t.lib}`));
    cells.push(head);
  }
  let prev = 0;
  for (const r of markStale(model, rows(model))) {
    const col = ids.indexOf(r.lane);
    if (col < 0) continue;
    const gap = gapPx(prev, r.t);
    prev = r.t;
    const time = el("div", { class: "live-time" }, `+${(r.t / 1000).toFixed(3)}s`);
    time.style.marginTop = `${gap}px`;
    cells.push(time);
    const cell = el("div", { class: `live-cell ${r.kind}${lit.has(r.seq) ? " hl" : ""}${r.lost ? " lost" : ""}${r.stale ? " stale" : ""}`, "data-seq": String(r.seq), "data-kind": r.kind });
    cell.style.gridColumn = String(col + 2);
    cell.style.marginTop = `${gap}px`;
    cell.append(el("code", {}, r.text));
    if (r.kind === "command") cell.append(el("br"), el("code", { class: "reply" }, r.lost ? texts["reply-lost"] : JSON.stringify(r.reply)));
    cells.push(cell);
    // the rest of the row stays empty: each row is one event
    const filler = ids.length + 1 - (col + 2);
    if (filler > 0) {
      const f = el("div");
      f.style.gridColumn = `span ${filler}`;
      cells.push(f);
    }
  }
  tl.replaceChildren(...cells);
  const dl = document.getElementById("live-clients");
  dl.replaceChildren(...[...model.lanes.values()].filter((l) => !l.closed).map((l) => el("option", { value: l.lane }, l.name || l.addr)));
}

// scheduleTimeline redraws the timeline once per animation frame, however
// many events arrived in it.
let drawPending = false;
function scheduleTimeline() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    drawTimeline();
  });
}

function drawAll() {
  drawFindings();
  drawLocks();
  drawTimeline();
}

function answer(text, bad) {
  const p = document.getElementById("live-answer");
  p.textContent = text;
  p.className = bad ? "error" : "";
}

function onMessage(msg) {
  switch (msg.type) {
    case "snapshot":
      if (model.started) status(texts.resync);
      applySnapshot(model, msg);
      drawAll();
      break;
    case "event":
      if (applyEvent(model, msg)) {
        if (msg.event.kind === "finding") drawFindings();
        scheduleTimeline();
      }
      break;
    case "done":
      answer(texts.done.replace("{what}", texts["fault." + msg.for] || msg.for), false);
      break;
    case "error":
      answer(msg.message, true);
      break;
    case "saved":
      showSaved(msg.saved);
      break;
  }
}

function download(name, body) {
  const url = URL.createObjectURL(new Blob([body], { type: "application/yaml" }));
  return el("a", { href: url, download: name, class: "button" }, name);
}

function showSaved(s) {
  const box = document.getElementById("live-saved");
  const b64 = (x) => atob(x); // []byte arrives base64-encoded
  const kids = [el("p", {}, texts.saved), el("p", {}, download(s.lesson_file, b64(s.lesson)), " ", download(s.variant_file, b64(s.variant)))];
  if (s.missing && s.missing.length) kids.push(el("p", {}, texts.missing), el("ul", {}, ...s.missing.map((m) => el("li", {}, m))));
  box.replaceChildren(...kids);
}

function send(m) {
  if (sock && sock.readyState === WebSocket.OPEN) sock.send(JSON.stringify(m));
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  sock = new WebSocket(`${proto}//${location.host}${root.dataset.ws}`);
  sock.addEventListener("open", () => status(texts.connected));
  sock.addEventListener("close", () => status(texts.disconnected));
  sock.addEventListener("message", (ev) => onMessage(JSON.parse(ev.data)));
}

document.getElementById("live-fault").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const fields = Object.fromEntries(new FormData(ev.target));
  const r = faultMessage(fields);
  if (r.error) {
    ev.target.elements[r.error].focus();
    return;
  }
  send(r.msg);
});

const locks = document.getElementById("live-locks");
if (locks) {
  locks.addEventListener("submit", (ev) => {
    ev.preventDefault();
    send({ type: "locks", keys: new FormData(ev.target).getAll("key") });
  });
}

document.getElementById("live-save").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const f = Object.fromEntries(new FormData(ev.target));
  send({ type: "save", id: f.id, key: f.key || undefined });
});

connect();
}
