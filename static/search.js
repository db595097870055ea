// The Search page (/search): the shape form or a search file becomes a
// search message, the server's search-progress and search-result messages
// (protocol: the doc of package web) become the progress list and the
// results table, each breaking timeline with its Open in player link.
//
// Its state is a plain object made by newSearch; the functions below
// change it from messages and read it for the page, so node --test checks
// them without a browser (static/test/search.test.js). startSearch wires
// them to a page; app.js calls it.

import * as socket from "./socket.js";

// newSearch returns the state of a page with no search running. phase:
// "idle", "running", "stopping", "done" (a result came), "failed" (an
// error answered the start), "lost" (the connection dropped mid-search).
export function newSearch() {
  return { phase: "idle", nextID: 1, re: 0, progress: null, result: null, error: "", fields: [] };
}

// advanceFor is the clock advances of a shape: none without expiry; the
// variant's file's when the lease is the file's; else one just past the
// lease (the format's default).
export function advanceFor(defaults, leaseMS, expiry) {
  if (!expiry) return [];
  if (defaults && defaults.lease_ms === leaseMS && Array.isArray(defaults.advance_ms) && defaults.advance_ms.length > 0) {
    return defaults.advance_ms.slice();
  }
  return [leaseMS + 1];
}

// wholeNumber reads a form's number field: the number, or 0 when what is
// there is not a whole number (badNumbers names such fields first).
function wholeNumber(v) {
  const n = Number(v);
  return isWhole(v) ? n : 0;
}

function isWhole(v) {
  const s = String(v ?? "").trim();
  return s !== "" && Number.isInteger(Number(s));
}

// numberFields are the form's number fields: value name and data-field.
const numberFields = [
  ["actors", "actors"],
  ["depth", "depth"],
  ["lease_ms", "lease"],
];

// badNumbers are the data-field names of the form's number fields whose
// values are not whole numbers (empty ones included), in form order. The
// ranges are the server's to judge (the validator of search files, in the
// page's language).
export function badNumbers(values) {
  return numberFields.filter(([name]) => !isWhole(values[name])).map(([, field]) => field);
}

// badNumberMessage is the message of a form whose number fields labels
// (their labels, in form order) hold no whole number: template's {field}
// names every one of them, as a list in lang ("Actors, Depth and Lease";
// "参与者、深度和租约"), not only the first.
export function badNumberMessage(template, labels, lang) {
  let list = labels.join(", ");
  try {
    list = new Intl.ListFormat(lang || "en", { type: "conjunction" }).format(labels);
  } catch {
    // A lang Intl does not know keeps the plain list.
  }
  return (template || "{field}").replace("{field}", list);
}

// shapeRequest is the search of the form's values: {variant, actors,
// depth, lease_ms, fencing, expiry, moves: [...], invariants: [...], and
// lock: the share code of the learner's own lock when the page searches it} as
// read from the form, with the variant's defaults (its data-defaults).
// The server checks it with the validator of search files.
export function shapeRequest(values, defaults) {
  const lease = wholeNumber(values.lease_ms);
  return {
    variant: values.variant,
    actors: wholeNumber(values.actors),
    depth: wholeNumber(values.depth),
    lease_ms: lease,
    fencing: Boolean(values.fencing),
    moves: values.moves.slice(),
    advance_ms: advanceFor(defaults, lease, Boolean(values.expiry)),
    invariants: values.invariants.slice(),
    ...(values.lock ? { lock: values.lock } : {}),
  };
}

// refuse marks a search that could not start because of the form's fields
// (their data-field names), with message; false while a search runs.
export function refuse(st, fields, message) {
  if (st.phase === "running" || st.phase === "stopping") return false;
  Object.assign(st, { phase: "failed", progress: null, result: null, error: message, fields: fields.slice() });
  return true;
}

// start makes the message that starts search (a shape, or {file}) in lang,
// and marks the state running; null while a search runs.
export function start(st, search, lang) {
  if (st.phase === "running" || st.phase === "stopping") return null;
  const id = st.nextID++;
  Object.assign(st, { phase: "running", re: id, progress: null, result: null, error: "", fields: [] });
  return { type: "search", id, lang, search };
}

// stop makes the message that stops the running search; null when none runs.
export function stop(st) {
  if (st.phase !== "running") return null;
  st.phase = "stopping";
  return { type: "search-stop", id: st.nextID++ };
}

// onMessage takes a server message into the state; it returns whether the
// message was the search's.
export function onMessage(st, m) {
  switch (m.type) {
    case "search-progress":
      if (m.re !== st.re) return false;
      st.progress = m;
      return true;
    case "search-result":
      if (m.re !== st.re) return false;
      st.result = m;
      st.phase = "done";
      return true;
    case "error":
      if (m.re !== st.re || (st.phase !== "running" && st.phase !== "stopping")) return false;
      st.phase = "failed";
      st.error = m.message;
      st.fields = m.fields || [];
      return true;
    default:
      return false;
  }
}

// onDown notes that the connection dropped: a running search ended with it.
export function onDown(st) {
  if (st.phase === "running" || st.phase === "stopping") st.phase = "lost";
}

// figures are the progress list's values: depth reached of the search's
// depth, states, states per second, transitions ("–" before any).
export function figures(st) {
  const p = st.result || st.progress;
  if (!p) return { depth: "–", states: "–", rate: "–", transitions: "–" };
  return {
    depth: `${p.depth} / ${p.max_depth}`,
    states: String(p.states),
    rate: String(p.states_per_s),
    transitions: String(p.transitions),
  };
}

// status is the status line: the error, the result's summary, or the
// text (by data-t-* key) of the phase.
export function status(st, t) {
  switch (st.phase) {
    case "failed":
      return st.error;
    case "done":
      return st.result.summary;
    case "lost":
      return t("tConnLost");
    case "running":
      return t("tRunning");
    case "stopping":
      return t("tStopping");
    default:
      return t("tIdle");
  }
}

// rows are the results table's rows: [invariant, verdict, timeline, url].
export function rows(st) {
  if (!st.result) return [];
  return st.result.rows.map((r) => ({ invariant: r.invariant, verdict: r.verdict, timeline: r.timeline || "", url: r.url || "" }));
}

// arrived tells whether the state's phase, once prev, has just become
// "done" or "failed" by a message: a result (or the server's refusal) the
// page brings into view (a fresh review of issue 38: a search done in 0.1 s
// left its results 1,500 px down, the page unmoved, as if nothing ran).
export function arrived(prev, st) {
  return prev !== st.phase && (st.phase === "done" || st.phase === "failed");
}

// reveal scrolls el's top into view, at once when the reader asks for
// reduced motion (prefers-reduced-motion), and moves the focus to it (a
// heading gets tabindex -1) so a keyboard or screen reader is where the
// page is; the scroll is the browser's, so the focus does not scroll again.
function reveal(win, el) {
  if (!el) return;
  const still = win.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  el.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "start" });
  if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
  el.focus({ preventScroll: true });
}

// formValues reads the shape form.
function formValues(form) {
  const checked = (name) => [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((el) => el.value);
  return {
    variant: form.elements.variant.value,
    actors: form.elements.actors.value,
    depth: form.elements.depth.value,
    lease_ms: form.elements.lease_ms.value,
    fencing: form.elements.fencing.checked,
    expiry: form.elements.expiry.checked,
    moves: checked("move"),
    invariants: checked("invariant"),
    lock: form.elements.lock?.value || "",
  };
}

// variantDefaults is the picked variant's course search file's shape.
function variantDefaults(form) {
  const opt = form.elements.variant.selectedOptions[0];
  try {
    return JSON.parse(opt?.dataset.defaults || "null");
  } catch {
    return null;
  }
}

// applyDefaults puts a variant's shape in the form.
function applyDefaults(form, d) {
  if (!d) return;
  form.elements.actors.value = String(d.actors);
  form.elements.depth.value = String(d.depth);
  form.elements.lease_ms.value = String(d.lease_ms);
  form.elements.fencing.checked = Boolean(d.fencing);
  form.elements.expiry.checked = (d.advance_ms || []).length > 0;
  for (const el of form.querySelectorAll('input[name="move"]')) el.checked = d.moves.includes(el.value);
  for (const el of form.querySelectorAll('input[name="invariant"]')) el.checked = d.invariants.includes(el.value);
}

// invariantNames maps each invariant id of the form's choices to its name
// as the form shows it (the page's language): the results name an
// invariant so, its id kept in a tooltip (issue 38, item 10).
function invariantNames(doc) {
  const out = {};
  for (const input of doc.querySelectorAll('input[name="invariant"]')) {
    const label = input.closest("label")?.querySelector("[data-invariant-label]");
    if (label) out[input.value] = label.textContent.trim();
  }
  return out;
}

// show draws the state on the page.
function show(doc, root, st) {
  const t = (key) => root.dataset[key] || "";
  root.dataset.state = st.phase;
  doc.querySelector("[data-search-status]").textContent = status(st, t);
  const f = figures(st);
  for (const [k, v] of Object.entries(f)) doc.querySelector(`[data-progress="${k}"]`).textContent = v;
  const busy = st.phase === "running" || st.phase === "stopping";
  for (const b of doc.querySelectorAll("[data-search-start], [data-search-start-file]")) b.disabled = busy;
  doc.querySelector("[data-search-stop]").disabled = st.phase !== "running";
  for (const el of doc.querySelectorAll("[data-field]")) el.classList.toggle("field-error", st.fields.includes(el.dataset.field));
  doc.querySelector("[data-search-summary]").textContent = st.result ? st.result.summary : "";
  const table = doc.querySelector("[data-search-results]");
  const shown = rows(st);
  const names = invariantNames(doc);
  // No rows (before a search, or a refused one): no table, not an empty
  // header under the errors.
  table.hidden = shown.length === 0;
  table.querySelector("tbody").replaceChildren(
    ...shown.map((r) => {
      const tr = doc.createElement("tr");
      tr.dataset.invariant = r.invariant;
      const cell = (text) => {
        const td = doc.createElement("td");
        td.textContent = text;
        tr.append(td);
        return td;
      };
      cell(names[r.invariant] || r.invariant).title = r.invariant;
      cell(r.verdict);
      const td = cell(r.timeline);
      if (r.url) {
        const a = doc.createElement("a");
        a.href = r.url;
        a.className = "button open-player";
        a.dataset.testid = "open-in-player";
        a.textContent = t("tOpen");
        td.append(" ", a);
      }
      return tr;
    }),
  );
}

// startSearch runs the Search page in root (#search) of doc; io gives it
// what socket.newSocket needs of the browser.
export function startSearch(doc, root, io) {
  const st = newSearch();
  const form = doc.querySelector("[data-search-form]");
  const draw = () => show(doc, root, st);
  const sock = socket.newSocket({
    ...io,
    onStatus: (state) => {
      root.dataset.conn = state;
    },
    onOpen: () => {
      root.dataset.conn = "open";
    },
    onMessage: (m) => {
      if (m.type === "search-result" || m.type === "error") socket.answered(sock);
      const prev = st.phase;
      if (!onMessage(st, m)) return;
      draw();
      // The results' heading (the refusal is in the status line above it).
      if (arrived(prev, st)) reveal(doc.defaultView || globalThis, doc.getElementById(st.phase === "done" ? "search-results-title" : "search-progress-title"));
    },
    onDown: () => {
      onDown(st);
      draw();
    },
  });
  const begin = (search) => {
    const msg = start(st, search, root.dataset.lang);
    if (!msg) return;
    if (!socket.send(sock, msg)) {
      st.phase = "lost";
      socket.connect(sock);
    }
    draw();
  };
  form.elements.variant.addEventListener("change", () => applyDefaults(form, variantDefaults(form)));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const values = formValues(form);
    const bad = badNumbers(values);
    if (bad.length > 0) {
      const labels = bad.map((f) => doc.querySelector(`[data-field="${f}"] span`)?.textContent || f);
      if (refuse(st, bad, badNumberMessage(root.dataset.tBadNumber, labels, root.dataset.lang))) draw();
      return;
    }
    begin(shapeRequest(values, variantDefaults(form)));
  });
  doc.querySelector("[data-search-stop]").addEventListener("click", () => {
    const msg = stop(st);
    if (msg) socket.send(sock, msg);
    draw();
  });
  const text = doc.querySelector("[data-search-text]");
  doc.querySelector("[data-search-file]").addEventListener("change", (e) => {
    const file = e.target.files?.[0];
    if (file) file.text().then((s) => (text.value = s));
  });
  doc.querySelector("[data-search-start-file]").addEventListener("click", () => {
    if (text.value.trim() === "") text.reportValidity();
    else begin({ file: text.value });
  });
  // A page left for the back/forward cache closes its socket: its search
  // stops on the server (the session ends) and the page says so.
  addEventListener("pagehide", () => socket.disconnect(sock));
  addEventListener("pageshow", (e) => {
    if (e.persisted) socket.connect(sock);
  });
  socket.connect(sock);
  draw();
  return st;
}
