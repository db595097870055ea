// The lesson player: frames in, panels swapped, keys and buttons out as
// protocol messages (web/doc.go). The first half is rules without a DOM:
// which key does what, which step a message asks for, and what a step
// Redis did not answer means for the page; the second half is the DOM
// edge, each function given the document it works on.

import { fill } from "./text.js";
import { refocusRule } from "./explore.js";

// newView returns the player's view of its run, from the page's data-*
// attributes (the player element's dataset).
export function newView(data) {
  return {
    lesson: data.lesson,
    timeline: data.timeline || "", // an explore timeline's share code; "" for a lesson or a drill
    step: Number(data.step) || 0,
    total: Number(data.total) || 0,
    lang: data.lang,
    playing: false,
    presenter: false,
    shown: new Map(), // selector → the HTML last swapped in
    redisFail: null, // {message, target, computed, fromLoad, code}: a step Redis did not answer, or refused (isRefusal)
    lastTarget: null, // {step, load}: the step the last message sent asks for
    errors: 0,
    alertKey: "", // what the Redis alert shows, to leave it alone when unchanged
    pendingAction: null, // pressed while the session was closed for inactivity
    scrubTimer: 0,
    frame: null, // the sim.Frame shown (its broken invariants: play.js)
  };
}

// ---------- rules ----------

// keyAction is the player action of a keydown e ({key, ctrlKey, metaKey,
// altKey, isComposing, tag, editable}): "step", "back", "play", "start",
// "end" or "presenter"; "" for a key the page leaves alone (a modifier, in
// a text field, Space on a focused control, which presses it); null for
// any other key (it may answer a prediction, or wake an idle page).
export function keyAction(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return "";
  const tag = e.tag;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.editable) return "";
  switch (e.key) {
    case "ArrowRight":
    case "PageDown":
      return "step";
    case "ArrowLeft":
    case "PageUp":
      return "back";
    case " ":
      return tag === "BUTTON" || tag === "A" || tag === "SUMMARY" ? "" : "play";
    case ".": // presenter remotes
      return "play";
    case "Home":
      return "start";
    case "End":
      return "end";
    case "p":
    case "P":
      return "presenter";
    default:
      return null;
  }
}

// actionMessage is the message of a player action at step of total:
// step, back, start, end, and play (a pause while playing). Other actions
// send nothing here: null.
export function actionMessage(action, step, total, playing, speed) {
  switch (action) {
    case "step":
      return { type: "step" };
    case "back":
      return { type: "back" };
    case "start":
      return { type: "seek", step: 0 };
    case "end":
      return { type: "seek", step: total };
    case "play":
      return playing ? { type: "pause" } : { type: "play", speed };
    default:
      return null;
  }
}

// nextTarget is the step message msg, sent at step, asks for ({step,
// load}), kept to know which step a redis error was about; play asks for
// none; a message that moves nothing leaves last as it was.
export function nextTarget(msg, step, last) {
  switch (msg.type) {
    case "step":
      return { step: step + 1, load: false };
    case "seek":
      return { step: msg.step, load: false };
    case "load":
      return { step: msg.step, load: true };
    case "play":
      return null;
    default:
      return last;
  }
}

// failFromError is the failure a redis error means for the step last
// asked for (lastTarget, or null: not known yet). The frame of the step
// the run stays at follows and fills in the rest (failAfterFrame).
export function failFromError(lastTarget, message, code = "redis") {
  const t = lastTarget;
  return { message, target: t ? t.step : null, computed: null, fromLoad: Boolean(t && t.load), code };
}

// isRefusal tells the error codes of a step refused before it ran (a
// bound of the simulator, the Redis ACL) or failed by a learner's own
// script (script-error: a Lua error at the script's line, the owner id in
// KEYS) from Redis not answering: their message, in the page's language,
// says why and what to change.
export function isRefusal(code) {
  return code === "step-too-large" || code === "redis-acl" || code === "script-error";
}

// failAfterFrame is the failure f after frame m ({step, computed}): the
// first frame after the error is the run's place (the step wanted is at
// least the next one); a later frame that computed more, or reached the
// step wanted, means a step ran on Redis: null, the failure is over.
export function failAfterFrame(f, m) {
  if (!f) return null;
  if (f.computed === null) {
    f.computed = m.computed;
    if (f.target === null || f.target <= m.step) f.target = m.step + 1;
    return f;
  }
  if (m.computed > f.computed || m.step >= f.target) return null;
  return f;
}

// retryStep is the step Try again asks for after failure f at step.
export function retryStep(f, step) {
  return f.target === null ? step + 1 : f.target;
}

// isStepForward reports whether a frame counts toward the learner's
// progress: a step forward (→ or play), not a deep link, a seek or End.
export function isStepForward(m, prevStep) {
  return !m.chrome && m.step === prevStep + 1;
}

// ---------- DOM edge ----------

// text is the control bar's translation under key (its data-* dataset),
// "" when there is none.
export function text(doc, key) {
  const c = doc.querySelector(".controls");
  return (c && c.dataset[key]) || "";
}

// glosses are the outcomes' and actions' glosses of the control bar.
export function glosses(doc) {
  try {
    return JSON.parse(doc.querySelector(".controls")?.dataset.glosses || "{}");
  } catch {
    return {};
  }
}

// setConn shows the connection's state on the player and its text.
export function setConn(doc, root, state, key) {
  root.dataset.conn = state;
  const el = doc.querySelector("#conn");
  if (el) el.textContent = text(doc, key);
}

// swap replaces a region's HTML (v.shown: what each region holds, to skip
// an unchanged one), keeping open <details>, the focus (see refocusRule)
// and the timeline's scroll position.
export function swap(doc, v, undo, sel, html) {
  const el = doc.querySelector(sel);
  if (!el || v.shown.get(sel) === html) return;
  v.shown.set(sel, html);
  const open = [...el.querySelectorAll("details[open][id]")].map((d) => d.id);
  const active = el.contains(doc.activeElement) ? doc.activeElement : null;
  const focused = active ? active.id : "";
  const again = refocusRule(
    undo,
    active && { id: active.id, explore: active.dataset.explore, forkChoice: active.matches(".fork-choice") },
    (s) => Boolean(el.querySelector(s)),
    !doc.activeElement || doc.activeElement === doc.body,
  );
  const scroller = el.querySelector(".tl-scroll");
  const scroll = scroller ? scroller.scrollLeft : null;
  el.innerHTML = html;
  for (const id of open) {
    const d = doc.getElementById(id);
    if (d) d.open = true;
  }
  if (focused) doc.getElementById(focused)?.focus();
  else if (again) {
    const usable = (b) => b && !b.disabled;
    const b = [el.querySelector(again), ...el.querySelectorAll("button, a[href]")].find(usable);
    if (b) b.focus({ preventScroll: true });
  }
  if (scroll !== null) {
    const s = el.querySelector(".tl-scroll");
    if (s) s.scrollLeft = scroll;
  }
}

// applyEdit applies an edit (view.Edit in package view: a following
// student's panel, from the step before) to old, the HTML the page holds:
// a positive number keeps that many characters, a negative one drops that
// many, a string is inserted, a pair [at, n] inserts a copy of n
// characters from position at of old followed by what is built so far
// (view/editcopy.go), the rest is kept. null when the edit is not for old
// (its length differs) or copies what is not there: the page must not
// guess.
export function applyEdit(old, e) {
  if (typeof old !== "string" || old.length !== e.len) return null;
  let out = "";
  let at = 0;
  for (const op of e.ops) {
    if (typeof op === "string") out += op;
    else if (Array.isArray(op)) {
      const [from, n] = op;
      if (!(from >= 0 && n >= 0)) return null;
      if (from + n <= old.length) out += old.slice(from, from + n);
      else if (from >= old.length && from - old.length + n <= out.length)
        out += out.slice(from - old.length, from - old.length + n);
      else return null;
    } else if (op > 0) {
      if (at + op > old.length) return null;
      out += old.slice(at, at + op);
      at += op;
    } else {
      at -= op;
      if (at > old.length) return null;
    }
  }
  return out + old.slice(at);
}

// svgFragment parses a whole <svg> element sent as HTML.
function svgFragment(doc, html) {
  const t = doc.createElement("template");
  t.innerHTML = html;
  return t.content;
}

// patchTimeline applies a step's timeline patch (see TimelinePatch in
// package web): the columns that changed, each in its three layers (a
// layer in "packed": an edit of "", view.TimelinePatch.Pack), the
// lane labels when they changed, and the current-step marker.
export function patchTimeline(doc, v, p) {
  const sel = '[data-panel="timeline"]';
  const el = doc.querySelector(sel);
  const tl = el && el.querySelector(".tl");
  if (!tl) return;
  v.shown.delete(sel); // the panel no longer holds the HTML last swapped in
  if (p.labels) tl.querySelector(".tl-labels")?.replaceWith(svgFragment(doc, p.labels));
  for (const c of p.cols) {
    for (const layer of ["back", "mid", "front"]) {
      const g = tl.querySelector(`[data-layer="${layer}"] > [data-c="${c.col}"]`);
      // A following student's layer may come packed: an edit of "".
      const html = c.packed && c.packed[layer] ? applyEdit("", c.packed[layer]) : c[layer];
      if (g && html !== null) g.innerHTML = html;
    }
  }
  for (const g of tl.querySelectorAll(".col.current")) g.classList.remove("current");
  tl.querySelector(`.col[data-col="${p.cur}"]`)?.classList.add("current");
  tl.dataset.currentX = String(p.current_x);
}

// columnScroll is where a timeline scrolled to left, showing width px,
// must scroll so that the column at x of width w (in the drawing's units,
// drawn at scale px per unit: presenter mode scales the drawing to the
// height it has) is in view, in a window of whole columns around it: null
// when it is in view already.
export function columnScroll(x, w, scale, left, width) {
  const s = scale > 0 ? scale : 1;
  const from = x * s;
  const to = (x + w) * s;
  if (from >= left && to <= left + width) return null;
  // A window of whole columns around it: as many as fit, the current one
  // after half of the others (rounded up: the steps before it tell its
  // story), so that no column of the window is cut (a phone's four).
  const col = w * s;
  const fit = Math.max(1, Math.floor(width / col));
  return Math.max(0, from - Math.ceil((fit - 1) / 2) * col);
}

// scrollTimeline brings the current step's column into view.
export function scrollTimeline(doc, reducedMotion) {
  const tl = doc.querySelector('[data-panel="timeline"] .tl');
  const sc = tl && tl.querySelector(".tl-scroll");
  if (!sc) return;
  const body = sc.querySelector("svg");
  const units = Number(body?.getAttribute("width")) || 0;
  const scale = units > 0 ? body.getBoundingClientRect().width / units : 1;
  const left = columnScroll(Number(tl.dataset.currentX), Number(tl.dataset.colW), scale, sc.scrollLeft, sc.clientWidth);
  if (left !== null) sc.scrollTo({ left, behavior: reducedMotion ? "auto" : "smooth" });
}

// updateControls shows step of total on the scrubber, the counter, the
// buttons that cannot go further, and in the language links.
export function updateControls(doc, v, base) {
  const s = doc.querySelector("#scrubber");
  if (s) {
    s.max = String(v.total);
    s.value = String(v.step);
    s.setAttribute("aria-valuetext", fill(text(doc, "tProgress"), { step: v.step, total: v.total }));
  }
  const c = doc.querySelector("#counter");
  if (c) c.textContent = fill(text(doc, "tCounter"), { step: v.step, total: v.total });
  for (const id of ["btn-start", "btn-back"]) doc.querySelector(`#${id}`)?.setAttribute("aria-disabled", String(v.step <= 0));
  for (const id of ["btn-step", "btn-end"]) doc.querySelector(`#${id}`)?.setAttribute("aria-disabled", String(v.step >= v.total));
  for (const a of doc.querySelectorAll(".langs a[data-lang]")) {
    const u = new URL(a.href, base);
    u.searchParams.set("step", String(v.step));
    a.href = u.pathname + u.search;
  }
}

// showPlaying shows whether the run plays on the player and its button.
export function showPlaying(doc, root, playing) {
  root.dataset.playing = String(playing);
  const b = doc.querySelector("#btn-play");
  if (!b) return;
  const label = text(doc, playing ? "tPause" : "tPlay");
  b.setAttribute("aria-label", label);
  b.setAttribute("aria-pressed", String(playing));
  b.title = `${label} (Space)`;
  const t = b.querySelector(".play-text");
  if (t) t.textContent = label;
}

// announce reads the narration's live parts out to screen readers.
export function announce(doc) {
  const live = doc.querySelector("#live");
  if (!live) return;
  live.textContent = [...doc.querySelectorAll('[data-panel="narration"] [data-live]:not([hidden])')]
    .map((e) => e.textContent.trim())
    .filter(Boolean)
    .join(" — ");
}

// showPresenter shows presenter mode (large type) on or off.
export function showPresenter(doc, on) {
  doc.body.classList.toggle("presenter", on);
  for (const b of doc.querySelectorAll('[data-action="presenter"]')) b.setAttribute("aria-pressed", String(on));
}

// linkStylesheet links the stylesheet at url (presenter mode's, which a
// page opened out of the mode does not load: issue 34) at the end of the
// head, once, and calls loaded when it has loaded and applies; where the
// page links it already, it calls loaded only if it is still loading (a
// sheet loaded applies already). A url of "" does nothing.
export function linkStylesheet(doc, url, loaded) {
  if (!url) return;
  const have = [...doc.querySelectorAll('link[rel="stylesheet"]')].find((l) => l.getAttribute("href") === url);
  if (have) {
    if (!have.sheet) have.addEventListener("load", loaded, { once: true });
    return;
  }
  const link = doc.createElement("link");
  link.rel = "stylesheet";
  link.href = url;
  link.addEventListener("load", loaded, { once: true });
  doc.head.append(link);
}

// fitPanel fits a panel's content to its box in presenter mode, where a
// projected page does not scroll: while the content is taller than the box
// it lowers the panel's --fit scale (presenter.css sizes the panel's type by
// it) by 0.05, down to min. Off presenter mode, or when the content fits at
// full size, the scale is cleared. It returns the scale left (1: none).
export function fitPanel(el, on, min = 0.7) {
  if (!el) return 1;
  el.style.removeProperty("--fit");
  if (!on) return 1;
  let scale = 1;
  while (el.scrollHeight > el.clientHeight + 1 && scale > min + 1e-9) {
    scale = Math.round((scale - 0.05) * 100) / 100;
    el.style.setProperty("--fit", String(scale));
  }
  return scale;
}

// markMore marks a presenter-mode card whose content goes on below what it
// shows (its own scroll: a projected page shows no scroll bar): data-more
// is set while some of it is under the card's bottom edge, so that
// presenter.css draws a cue that more follows (a fresh review of issue
// 38: a lesson's takeaway hidden under the fold with no sign). Off
// presenter mode (on false), or once all of it is in view, it is cleared.
// It returns whether the cue is set.
export function markMore(el, on) {
  if (!el) return false;
  // the cue's own height is not more to show (idempotent-unlock step 8 at
  // 1024 x 768: once set, the cue kept itself set, 7 px over the edge)
  delete el.dataset.more;
  const more = on && el.scrollTop + el.clientHeight < el.scrollHeight - 1;
  if (more) el.dataset.more = "";
  else delete el.dataset.more;
  // a card that scrolls is a stop of the Tab order while it does, so that
  // a keyboard scrolls it (axe's scrollable-region-focusable, a fresh
  // review of issue 38); its own tabindex (the narration's -1, the skip
  // link's target) comes back after
  const scrolls = on && el.scrollHeight > el.clientHeight + 1;
  if (el.dataset && !("tabRest" in el.dataset)) el.dataset.tabRest = el.getAttribute?.("tabindex") ?? "";
  if (scrolls) el.setAttribute?.("tabindex", "0");
  else if (el.dataset?.tabRest) el.setAttribute?.("tabindex", el.dataset.tabRest);
  else el.removeAttribute?.("tabindex");
  return more;
}

// showRedisAlert shows, in the page's language, that a step could not run
// because Redis did not answer, with a button that asks for it again; it
// stays until a step runs (v.redisFail null).
export function showRedisAlert(doc, v) {
  const box = doc.querySelector("[data-redis-alert]");
  if (!box) return;
  const f = v.redisFail;
  if (!f) {
    if (box.firstChild) box.replaceChildren();
    v.alertKey = "";
    return;
  }
  const step = retryStep(f, v.step);
  const refused = isRefusal(f.code);
  const body = refused ? "" : fill(text(doc, "tRedisDownBody"), { step, backend: text(doc, "backend") });
  const key = [v.lang, step, f.message, body].join("\n");
  if (v.alertKey === key && box.firstChild) return;
  v.alertKey = key;
  const open = box.querySelector("details")?.open || false;
  const el = (tag, cls, t) => {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (t !== undefined) e.textContent = t;
    return e;
  };
  const btn = el("button", "button primary ra-retry", text(doc, "tTryAgain"));
  btn.type = "button";
  btn.id = "btn-retry";
  btn.dataset.action = "retry";
  if (refused) {
    // The message is the whole explanation; only an ACL, once fixed, lets
    // the same step run, so only it gets Try again.
    box.dataset.refused = f.code;
    const parts = [el("p", "ra-title", f.message)];
    if (f.code === "redis-acl") parts.push(btn);
    box.replaceChildren(...parts);
    return;
  }
  delete box.dataset.refused;
  const d = el("details");
  d.open = open;
  d.append(el("summary", "", text(doc, "tRedisDownDetails")), " ", el("code", "", f.message));
  box.replaceChildren(el("p", "ra-title", text(doc, "tRedisDownTitle")), el("p", "ra-body", body), btn, d);
}

// toggleAbout opens or closes the lesson's summary under its title on a
// phone, where the header shows only the title (app.css): the button's
// aria-expanded says which, and the header's data-about shows it.
export function toggleAbout(doc, button) {
  const open = button.getAttribute("aria-expanded") !== "true";
  button.setAttribute("aria-expanded", String(open));
  button.closest(".lesson-head")?.toggleAttribute("data-about-open", open);
}
