// The live page's script (/live): startLive opens the websocket, keeps
// the model (live.js) and draws it; the forms send fault, lock-key and
// save messages (protocol in the doc of package live). main.js calls it on
// the live page.

import { REDIS, applyEvent, applyFrame, applyOlder, applySnapshot, clockText, diagramState, faultMessage, gapPx, hasOlder, highlighted, laneIDs, laneTitle, lockText, markStale, newModel, olderMessage, quietClosed, rows, suggestions } from "./live.js";

// startLive runs the live page in document, root its <main id="live">.
export function startLive(document, root) {
const texts = JSON.parse(root.dataset.texts);
const edges = JSON.parse(root.dataset.edges || "[]");
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
  tl.style.gridTemplateColumns = `7.5em repeat(${ids.length}, minmax(12em, 1fr))`;
  const cells = [el("div", { class: "live-head live-axis" }, texts.axis)];
  for (const id of ids) {
    if (id === REDIS) {
      // The lock keys' latest states head the Redis lane, however old
      // the command that left them.
      const states = [...model.locks.values()].sort((a, b) => (a.key < b.key ? -1 : 1)).map((st) => el("small", { class: "live-lock-state", "data-testid": "live-lock-state" }, lockText(st)));
      cells.push(el("div", { class: "live-head", "data-lane": REDIS }, el("strong", {}, texts["redis-lane"]), ...states));
      continue;
    }
    const l = model.lanes.get(id);
    const t = laneTitle(l);
    const head = el("div", { class: "live-head" + (l.closed ? " closed" : ""), "data-lane": id, "data-testid": "live-lane" }, el("strong", {}, t.name), el("small", {}, t.addr));
    if (t.lockLib) head.append(el("small", { class: "live-lock-lib", "data-testid": "live-lock-lib" }, texts["lock-library"].replace("{lib}", t.lockLib)));
    if (t.lib) head.append(el("small", { class: "live-lib" }, `${texts.library}: ${t.lib}`));
    if (l.closed) head.append(el("small", { class: "live-closed" }, texts.closed));
    cells.push(head);
  }
  const quiet = quietClosed(model).size;
  if (quiet > 0) {
    const note = el("p", { class: "live-quiet muted", "data-testid": "live-quiet" }, texts["quiet-closed"].replace("{what}", String(quiet)));
    note.style.gridColumn = `1 / span ${ids.length + 1}`;
    cells.push(note);
  }
  if (hasOlder(model)) {
    // The proxy holds events older than the page's: scrolling up to
    // this button (or pressing it) fetches them.
    const b = el("button", { type: "button", class: "live-older", "data-testid": "live-older" }, texts.older);
    b.style.gridColumn = `1 / span ${ids.length + 1}`;
    b.addEventListener("click", requestOlder);
    cells.push(b);
    olderSeen.disconnect();
    olderSeen.observe(b);
  }
  let prev = null; // the first row sits right under the heads
  for (const r of markStale(model, rows(model))) {
    const col = ids.indexOf(r.lane);
    if (col < 0) continue;
    const gap = prev === null ? 0 : gapPx(prev, r.t);
    prev = r.t;
    const at = model.started + r.t;
    const time = el("time", { class: "live-time", dateTime: new Date(at).toISOString(), title: `+${(r.t / 1000).toFixed(3)} s` }, clockText(at));
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

// requestOlder asks for the events before the page's oldest, one
// request at a time.
let olderPending = false;
function requestOlder() {
  const m = olderMessage(model);
  if (!m || olderPending) return;
  olderPending = true;
  send(m);
}

// Scrolling until the older-events button shows fetches them; a button
// that shows without the user scrolling (a page that opens at its top)
// waits for a press, so opening the page fetches nothing more.
let scrolled = false;
window.addEventListener("scroll", () => { scrolled = true; }, { passive: true });
const olderSeen = new IntersectionObserver((entries) => {
  if (scrolled && entries.some((e) => e.isIntersecting)) requestOlder();
});

// showOlder puts the fetched events above the rows, keeping what the
// user looks at where it was.
function showOlder(msg) {
  olderPending = false;
  const h = document.documentElement.scrollHeight;
  applyOlder(model, msg);
  drawTimeline();
  window.scrollBy(0, document.documentElement.scrollHeight - h);
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
    drawDiagram();
  });
}

// drawDiagram moves the state diagram (drawn by the server as the
// player's, both drawings: screen and projector) to the latest lock
// state: the current node with its ring, the transition taken, the lock's
// name and the caption.
function drawDiagram() {
  const fig = root.querySelector("figure.state-diagram");
  if (!fig) return;
  const d = diagramState(model, edges);
  if (!d) return;
  fig.dataset.state = d.state;
  const first = fig.querySelector("text.dg-now");
  if (first && !root.dataset.nowText) root.dataset.nowText = first.textContent;
  for (const svg of fig.querySelectorAll("svg.dg-drawing")) {
    for (const g of svg.querySelectorAll("g.dg-node")) {
      const on = g.dataset.state === d.state;
      const box = g.querySelector("rect:not(.dg-ring)");
      const name = g.querySelector("text.dg-name");
      // The server draws the current state's name 7 units higher, to
      // make room for its "now" line: base is the name's place otherwise.
      if (!name.dataset.base) name.dataset.base = String(Number(name.getAttribute("y")) + (g.classList.contains("current") ? 7 : 0));
      name.setAttribute("y", String(Number(name.dataset.base) - (on ? 7 : 0)));
      g.classList.toggle("current", on);
      g.classList.toggle("entered", on && !!d.edge);
      const ring = g.querySelector("rect.dg-ring");
      const now = g.querySelector("text.dg-now");
      if (on && !ring) {
        const x = Number(box.getAttribute("x")), y = Number(box.getAttribute("y"));
        const w = Number(box.getAttribute("width")), h = Number(box.getAttribute("height"));
        const r = document.createElementNS(box.namespaceURI, "rect");
        Object.entries({ class: "dg-ring", x: x - 5, y: y - 5, width: w + 10, height: h + 10, rx: 16 }).forEach(([k, v]) => r.setAttribute(k, String(v)));
        box.after(r);
        const t = document.createElementNS(box.namespaceURI, "text");
        Object.entries({ class: "dg-now", x: name.getAttribute("x"), y: y + h - 9, "text-anchor": "middle" }).forEach(([k, v]) => t.setAttribute(k, String(v)));
        t.textContent = root.dataset.nowText || "";
        g.append(t);
      } else if (!on && ring) {
        ring.remove();
        if (now) now.remove();
      }
    }
    for (const g of svg.querySelectorAll("g.dg-edge")) {
      const on = g.dataset.edge === d.edge;
      g.classList.toggle("taken", on);
      const path = g.querySelector("path.dg-edge-line");
      const marker = path.getAttribute("marker-end").replace("-arrow-taken)", "-arrow)");
      path.setAttribute("marker-end", on ? marker.replace("-arrow)", "-arrow-taken)") : marker);
    }
  }
  const lock = fig.parentElement.querySelector(".lock-name");
  if (lock) lock.textContent = d.key;
  const fill = (tmpl) => tmpl.replace("{lock}", d.key).replace("{state}", texts["state." + d.state]).replace("{count}", String(d.count));
  let caption = fill(texts.caption);
  if (d.edge === "off-diagram") caption += " " + texts["off-diagram"].replace("{from}", texts["state." + d.from]).replace("{to}", texts["state." + d.state]);
  else if (d.edge) caption = fill(texts["caption-taken"]).replace("{edge}", texts["edge." + d.edge]);
  fig.querySelector("figcaption").textContent = caption;
}

function drawAll() {
  drawFindings();
  drawLocks();
  drawTimeline();
  drawDiagram();
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
        if (msg.suggested) drawLocks();
        scheduleTimeline();
      }
      break;
    case "events": {
      const d = applyFrame(model, msg);
      if (msg.skipped) status(texts.skipped.replace("{what}", model.skipped));
      if (d.findings) drawFindings();
      if (d.suggested) drawLocks();
      if (d.any) scheduleTimeline();
      break;
    }
    case "done":
      answer(texts.done.replace("{what}", texts["fault." + msg.for] || msg.for), false);
      break;
    case "older":
      showOlder(msg);
      break;
    case "error":
      if (msg.for === "older") olderPending = false;
      answer(msg.message, true);
      break;
    case "saved":
      showSaved(msg);
      break;
  }
}

function download(name, body) {
  const url = URL.createObjectURL(new Blob([body], { type: "application/yaml" }));
  return el("a", { href: url, download: name, class: "button" }, name);
}

// showSaved shows a saved message: the link that opens the lesson in
// the player (its share link, msg.open) or why there is none, and the two
// files to download.
function showSaved(msg) {
  const s = msg.saved;
  const box = document.getElementById("live-saved");
  const b64 = (x) => new TextDecoder().decode(Uint8Array.from(atob(x), (c) => c.charCodeAt(0))); // []byte arrives base64-encoded
  const kids = [el("p", {}, texts.saved)];
  if (msg.open) kids.push(el("p", {}, el("a", { href: msg.open, class: "button primary", "data-testid": "live-open" }, texts["open-player"])));
  else if (msg.open_error) kids.push(el("p", { class: "error", "data-testid": "live-open-error" }, msg.open_error));
  kids.push(el("p", {}, download(s.lesson_file, b64(s.lesson)), " ", download(s.variant_file, b64(s.variant))));
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
