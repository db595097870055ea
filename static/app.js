// Lockstep's page script. The server renders every panel (templ, package
// templates) and sends it over the websocket; this module only connects,
// swaps the fragments in, turns buttons and keys into protocol messages
// (see the doc of package web), keeps the URL and the learner's progress,
// and reconnects with backoff when the server goes away.

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

const PROGRESS_KEY = "lockstep.progress.v1";
const PRESENTER_KEY = "lockstep.presenter";

function loadProgress() {
  try {
    return JSON.parse(localStorage.getItem(PROGRESS_KEY)) || {};
  } catch {
    return {};
  }
}

function storeProgress(p) {
  try {
    localStorage.setItem(PROGRESS_KEY, JSON.stringify(p));
  } catch {
    // Storage may be full or disabled: progress is a convenience.
  }
}

function fill(template, values) {
  return (template || "").replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// ---------- course page ----------

function showCourseProgress(root) {
  const progress = loadProgress();
  for (const card of $$(".lesson-card", root)) {
    const p = progress[card.dataset.lesson];
    if (!p) continue;
    const steps = Number(card.dataset.steps);
    const best = Math.min(p.best || 0, steps);
    const done = best >= steps;
    $("[data-progress-bar]", card).style.width = `${Math.round((100 * best) / Math.max(steps, 1))}%`;
    $("[data-progress-text]", card).textContent = done
      ? root.dataset.tDone
      : fill(root.dataset.tProgressStep, { step: best, total: steps });
    const link = $("[data-progress-link]", card);
    link.textContent = done ? root.dataset.tReview : root.dataset.tContinue;
    if (!done && p.last) {
      const u = new URL(link.href, location.href);
      u.searchParams.set("step", p.last);
      link.href = u.pathname + u.search;
    }
    card.classList.add("started");
    card.classList.toggle("done", done);
  }
}

// ---------- player ----------

class Player {
  constructor(root) {
    this.root = root;
    this.lesson = root.dataset.lesson;
    this.step = Number(root.dataset.step) || 0;
    this.total = Number(root.dataset.total) || 0;
    this.lang = root.dataset.lang;
    this.ws = null;
    this.retries = 0;
    this.retryTimer = 0;
    this.scrubTimer = 0;
    this.playing = false;
    this.idle = false;
    this.presenter = false;
    this.shown = new Map();
  }

  start() {
    const params = new URLSearchParams(location.search);
    let stored = null;
    try {
      stored = localStorage.getItem(PRESENTER_KEY);
    } catch {
      stored = null;
    }
    this.setPresenter(params.get("present") === "1" || (!params.has("present") && stored === "1"), false);
    document.addEventListener("click", (e) => this.onClick(e));
    document.addEventListener("keydown", (e) => this.onKey(e));
    document.addEventListener("input", (e) => {
      if (e.target.id === "scrubber") this.onScrub(e.target, false);
    });
    document.addEventListener("change", (e) => {
      if (e.target.id === "scrubber") this.onScrub(e.target, true);
      if (e.target.id === "speed" && this.playing) this.send({ type: "play", speed: this.speed() });
    });
    this.connect();
  }

  text(key) {
    const c = $(".controls");
    return (c && c.dataset[key]) || "";
  }

  setConn(state, key) {
    this.root.dataset.conn = state;
    const el = $("#conn");
    if (el) el.textContent = this.text(key);
  }

  connect() {
    clearTimeout(this.retryTimer);
    if (this.ws) return;
    this.idle = false;
    this.setConn("connecting", this.retries ? "tReconnecting" : "tConnecting");
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      this.send({ type: "load", lesson: this.lesson, step: this.step, lang: this.lang });
    };
    ws.onmessage = (ev) => {
      let m;
      try {
        m = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.onMessage(m);
    };
    ws.onclose = (ev) => this.onClose(ws, ev);
  }

  onClose(ws, ev) {
    if (this.ws !== ws) return;
    this.ws = null;
    this.setPlaying(false);
    if (ev.code === 4000) {
      // Closed for inactivity: come back when the learner does.
      this.idle = true;
      this.setConn("idle", "tIdle");
      return;
    }
    this.setConn(ev.code === 1013 ? "busy" : "reconnecting", ev.code === 1013 ? "tBusy" : "tReconnecting");
    const delay = Math.min(8000, 300 * 2 ** this.retries) * (0.75 + Math.random() * 0.5);
    this.retries = Math.min(this.retries + 1, 8);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  onMessage(m) {
    switch (m.type) {
      case "frame":
        this.onFrame(m);
        break;
      case "state":
        this.setPlaying(m.playing);
        break;
      case "error":
        this.root.dataset.error = m.code;
        $("#conn") && ($("#conn").textContent = m.message);
        break;
      default:
        break;
    }
  }

  onFrame(m) {
    if (m.lesson !== this.lesson) return;
    this.retries = 0;
    delete this.root.dataset.error;
    if (m.chrome) {
      for (const [name, html] of Object.entries(m.chrome)) this.swap(`[data-chrome="${name}"]`, html);
      this.setPresenter(this.presenter, false);
    }
    for (const [name, html] of Object.entries(m.panels)) this.swap(`[data-panel="${name}"]`, html);
    this.step = m.step;
    this.total = m.total;
    this.lang = m.lang;
    this.root.dataset.step = String(m.step);
    this.root.dataset.total = String(m.total);
    this.root.dataset.lang = m.lang;
    document.documentElement.lang = m.lang;
    document.title = m.title;
    const u = new URL(m.url, location.href);
    if (this.presenter) u.searchParams.set("present", "1");
    history.replaceState(null, "", u.pathname + u.search);
    this.setConn("open", "tConnected");
    this.setPlaying(m.playing);
    this.updateControls();
    this.announce();
    this.scrollTimeline();
    this.saveProgress();
  }

  // swap replaces a region's HTML, keeping open <details>, focus and the
  // timeline's scroll position.
  swap(sel, html) {
    const el = $(sel);
    if (!el || this.shown.get(sel) === html) return;
    this.shown.set(sel, html);
    const open = $$("details[open][id]", el).map((d) => d.id);
    const focused = el.contains(document.activeElement) ? document.activeElement.id : "";
    const scroller = $(".tl-scroll", el);
    const scroll = scroller ? scroller.scrollLeft : null;
    el.innerHTML = html;
    for (const id of open) {
      const d = document.getElementById(id);
      if (d) d.open = true;
    }
    if (focused) document.getElementById(focused)?.focus();
    if (scroll !== null) {
      const s = $(".tl-scroll", el);
      if (s) s.scrollLeft = scroll;
    }
  }

  updateControls() {
    const s = $("#scrubber");
    if (s) {
      s.max = String(this.total);
      s.value = String(this.step);
      s.setAttribute("aria-valuetext", fill(this.text("tProgress"), { step: this.step, total: this.total }));
    }
    const c = $("#counter");
    if (c) c.textContent = fill(this.text("tCounter"), { step: this.step, total: this.total });
    for (const id of ["btn-start", "btn-back"]) $(`#${id}`)?.setAttribute("aria-disabled", String(this.step <= 0));
    for (const id of ["btn-step", "btn-end"]) $(`#${id}`)?.setAttribute("aria-disabled", String(this.step >= this.total));
    for (const a of $$(".langs a[data-lang]")) {
      const u = new URL(a.href, location.href);
      u.searchParams.set("step", String(this.step));
      a.href = u.pathname + u.search;
    }
  }

  setPlaying(playing) {
    this.playing = Boolean(playing);
    this.root.dataset.playing = String(this.playing);
    const b = $("#btn-play");
    if (!b) return;
    const label = this.text(this.playing ? "tPause" : "tPlay");
    b.setAttribute("aria-label", label);
    b.setAttribute("aria-pressed", String(this.playing));
    b.title = `${label} (Space)`;
    const t = $(".play-text", b);
    if (t) t.textContent = label;
  }

  announce() {
    const live = $("#live");
    if (!live) return;
    live.textContent = $$('[data-panel="narration"] [data-live]')
      .map((e) => e.textContent.trim())
      .filter(Boolean)
      .join(" — ");
  }

  scrollTimeline() {
    const tl = $('[data-panel="timeline"] .tl');
    const sc = tl && $(".tl-scroll", tl);
    if (!sc) return;
    const x = Number(tl.dataset.currentX);
    const w = Number(tl.dataset.colW);
    if (x < sc.scrollLeft || x + w > sc.scrollLeft + sc.clientWidth) {
      sc.scrollTo({ left: Math.max(0, x - sc.clientWidth / 2 + w / 2), behavior: reducedMotion() ? "auto" : "smooth" });
    }
  }

  saveProgress() {
    const all = loadProgress();
    const p = all[this.lesson] || { best: 0 };
    p.best = Math.max(p.best || 0, this.step);
    p.last = this.step;
    p.total = this.total;
    all[this.lesson] = p;
    storeProgress(all);
  }

  speed() {
    return Number($("#speed")?.value) || 1;
  }

  setPresenter(on, remember) {
    this.presenter = on;
    document.body.classList.toggle("presenter", on);
    for (const b of $$('[data-action="presenter"]')) b.setAttribute("aria-pressed", String(on));
    if (!remember) return;
    try {
      localStorage.setItem(PRESENTER_KEY, on ? "1" : "0");
    } catch {
      // ignore
    }
    const u = new URL(location.href);
    if (on) u.searchParams.set("present", "1");
    else u.searchParams.delete("present");
    history.replaceState(null, "", u.pathname + u.search);
  }

  act(action) {
    switch (action) {
      case "step":
        return this.send({ type: "step" });
      case "back":
        return this.send({ type: "back" });
      case "start":
        return this.send({ type: "seek", step: 0 });
      case "end":
        return this.send({ type: "seek", step: this.total });
      case "play":
        return this.send(this.playing ? { type: "pause" } : { type: "play", speed: this.speed() });
      case "presenter":
        return this.setPresenter(!this.presenter, true);
      default:
        return false;
    }
  }

  onClick(e) {
    if (this.idle) this.connect();
    const a = e.target.closest("a[data-lang]");
    if (a && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.button === 0) {
      e.preventDefault();
      this.lang = a.dataset.lang;
      if (!this.send({ type: "lang", lang: a.dataset.lang })) location.href = a.href;
      return;
    }
    const b = e.target.closest("[data-action]");
    if (!b || b.getAttribute("aria-disabled") === "true") return;
    this.act(b.dataset.action);
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    const tag = e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.target.isContentEditable) return;
    if (this.idle) {
      this.connect();
      return;
    }
    const onControl = tag === "BUTTON" || tag === "A" || tag === "SUMMARY";
    let action;
    switch (e.key) {
      case "ArrowRight":
      case "PageDown":
        action = "step";
        break;
      case "ArrowLeft":
      case "PageUp":
        action = "back";
        break;
      case " ":
        if (onControl) return; // Space presses the focused control
        action = "play";
        break;
      case ".":
        action = "play";
        break;
      case "Home":
        action = "start";
        break;
      case "End":
        action = "end";
        break;
      case "p":
      case "P":
        action = "presenter";
        break;
      default:
        return;
    }
    e.preventDefault();
    this.act(action);
  }

  onScrub(el, now) {
    clearTimeout(this.scrubTimer);
    const go = () => this.send({ type: "seek", step: Number(el.value) });
    if (now) go();
    else this.scrubTimer = setTimeout(go, 120);
  }
}

const player = document.getElementById("player");
if (player) new Player(player).start();
const course = document.getElementById("course");
if (course) showCourseProgress(course);
