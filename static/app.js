// Lockstep's page script. The server renders every panel (templ, package
// templates) and sends it over the websocket; this module only connects,
// swaps the fragments in, turns buttons and keys into protocol messages
// (see the doc of package web), keeps the URL and the learner's progress,
// and reconnects with backoff when the server goes away.

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

const PROGRESS_KEY = "lockstep.progress.v1";
const PRESENTER_KEY = "lockstep.presenter";
const PREDICT_KEY = "lockstep.predict.v1"; // lesson → {steps: {n: {guess, got, ok}}}
const PREDICT_MODE_KEY = "lockstep.predictMode";
const ANSWERS_KEY = "lockstep.interview.v1";

function loadJSON(key) {
  try {
    return JSON.parse(localStorage.getItem(key)) || {};
  } catch {
    return {};
  }
}

function storeJSON(key, v) {
  try {
    localStorage.setItem(key, JSON.stringify(v));
  } catch {
    // Storage may be full or disabled: scores and answers are a convenience.
  }
}

// predictScore sums a lesson's predictions: the latest answer per step.
function predictScore(lesson) {
  const steps = (loadJSON(PREDICT_KEY)[lesson] || {}).steps || {};
  const out = { right: 0, total: 0, misses: [] };
  for (const [n, a] of Object.entries(steps)) {
    out.total++;
    if (a.ok) out.right++;
    else out.misses.push(Number(n));
  }
  out.misses.sort((a, b) => a - b);
  return out;
}

function recordPrediction(lesson, step, guess, got) {
  const all = loadJSON(PREDICT_KEY);
  const p = all[lesson] || { steps: {} };
  p.steps[step] = { guess, got, ok: guess === got };
  all[lesson] = p;
  storeJSON(PREDICT_KEY, all);
}

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

// svgFragment parses a whole <svg> element sent as HTML.
function svgFragment(html) {
  const t = document.createElement("template");
  t.innerHTML = html;
  return t.content;
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
    // done is set when the learner stepped to the end (→ or play); an entry
    // stored before it existed counts as done when its best step is the end.
    const done = p.done === undefined ? best >= steps : Boolean(p.done);
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
  for (const card of $$(".lesson-card", root)) {
    const sc = predictScore(card.dataset.lesson);
    const el = $("[data-predict-score]", card);
    if (!el || sc.total === 0) continue;
    $("[data-score-text]", el).textContent = fill(root.dataset.tScore, sc);
    $("[data-retry-link]", el).hidden = sc.misses.length === 0;
    el.hidden = false;
  }
}

// ---------- player ----------

class Player {
  constructor(root) {
    this.root = root;
    this.lesson = root.dataset.lesson;
    // An explore timeline's share code; "" for a course lesson or a drill.
    this.timeline = root.dataset.timeline || "";
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
    this.redisFail = null; // {message, target, computed, fromLoad}: a step Redis did not answer
    this.lastTarget = null; // the step the last message sent asks for
    this.errors = 0;
    this.pendingAction = null; // pressed while the session was closed for inactivity
    // Predict mode: steps[i] describes step i+1 (null: nothing to predict).
    try {
      this.steps = JSON.parse(root.dataset.predictSteps || "[]") || [];
    } catch {
      this.steps = [];
    }
    this.predict = false;
    this.prompting = 0; // the step whose outcome the bar asks for
    this.guess = null; // {step, outcome} sent, waiting for its frame
    this.revealed = 0; // the step whose verdict the bar shows
    this.afterSeek = 0; // retry: ask for this step once the seek lands before it
    this.retry = null; // {list, i}: the misses being retried
  }

  // setAddress shows URL u in the address bar, as a new history entry
  // when push is set, and remembers it as the address of the step shown
  // (see the popstate handler in start).
  setAddress(u, push) {
    if (push) history.pushState(null, "", u.pathname + u.search);
    else history.replaceState(null, "", u.pathname + u.search);
    this.shownPath = u.pathname;
    this.shownURL = u.pathname + u.search;
  }

  start() {
    // The page's own address until a frame sets one: Back over the skip
    // link's #fragment before any frame must not reload the page.
    this.shownPath = location.pathname;
    this.shownURL = location.pathname + location.search;
    const params = new URLSearchParams(location.search);
    let stored = null;
    try {
      stored = localStorage.getItem(PRESENTER_KEY);
    } catch {
      stored = null;
    }
    this.setPresenter(params.get("present") === "1" || (!params.has("present") && stored === "1"), false);
    let storedPredict = null;
    try {
      storedPredict = localStorage.getItem(PREDICT_MODE_KEY);
    } catch {
      storedPredict = null;
    }
    this.setPredict(params.get("predict") === "1" || (!params.has("predict") && storedPredict === "1"), false);
    if (this.predict && params.get("retry") === "1") this.retry = { list: predictScore(this.lesson).misses, i: 0, started: false };
    document.addEventListener("click", (e) => this.onClick(e));
    document.addEventListener("keydown", (e) => this.onKey(e));
    document.addEventListener("submit", (e) => this.onSubmit(e));
    document.addEventListener("input", (e) => {
      if (e.target.id === "scrubber") this.onScrub(e.target, false);
    });
    document.addEventListener("change", (e) => {
      if (e.target.id === "scrubber") this.onScrub(e.target, true);
      if (e.target.id === "speed" && this.playing) this.send({ type: "play", speed: this.speed() });
    });
    // A page the learner leaves may stay in the browser's back/forward
    // cache with its socket open, holding a server session (one of
    // -max-sessions) and, on a real Redis, its run's keys until the tab
    // closes. Close the socket when the page is hidden that way, and
    // connect again, at the step shown, if the page comes back.
    addEventListener("pagehide", () => this.disconnect());
    addEventListener("pageshow", (e) => {
      if (e.persisted) this.connect();
    });
    // Back from a fork to its lesson (or Forward again): the address is
    // another page's, so load it as one. On the same path (Back over the
    // skip link's #fragment) nothing is loaded: the address is set again
    // to the step shown, so that it and the page agree.
    addEventListener("popstate", () => {
      if (location.pathname !== this.shownPath) location.reload();
      else if (this.shownURL) history.replaceState(null, "", this.shownURL);
    });
    this.connect();
  }

  // disconnect closes the socket for good (no reconnect); connect opens it
  // again and loads the step the page shows.
  disconnect() {
    clearTimeout(this.retryTimer);
    const ws = this.ws;
    this.ws = null; // onClose then leaves it alone
    this.setPlaying(false);
    if (ws) ws.close(1000, "page left");
    this.setConn("connecting", "tConnecting");
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
      // After a step Redis did not answer, ask again for the step wanted.
      const step = this.redisFail && this.redisFail.target != null ? Math.max(this.redisFail.target, this.step) : this.step;
      if (this.timeline) this.send({ type: "load", timeline: this.timeline, step, lang: this.lang });
      else this.send({ type: "load", lesson: this.lesson, step, lang: this.lang });
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
      if (msg.type === "step") this.lastTarget = { step: this.step + 1, load: false };
      else if (msg.type === "seek") this.lastTarget = { step: msg.step, load: false };
      else if (msg.type === "load") this.lastTarget = { step: msg.step, load: true };
      else if (msg.type === "play") this.lastTarget = null;
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
        // An undo that failed leaves the tools as they were: on again.
        if (this.undoButton && m.re === this.undoSeq) {
          this.undoButton.disabled = false;
          if (this.refocus) this.undoButton.focus();
          this.undoButton = null;
          this.refocus = null;
        }
        this.errors++;
        this.root.dataset.errors = String(this.errors);
        this.root.dataset.error = m.code;
        if (m.code === "redis") {
          const t = this.lastTarget;
          this.lastTarget = null;
          // The frame of the step the run stays at follows; it fills in
          // what the alert still lacks.
          this.redisFail = { message: m.message, target: t ? t.step : null, computed: null, fromLoad: Boolean(t && t.load) };
          this.setConn("redis", "tRedisDownConn");
          this.showRedisAlert();
        } else {
          $("#conn") && ($("#conn").textContent = m.message);
        }
        break;
      default:
        break;
    }
  }

  onFrame(m) {
    if (m.chrome) {
      // A load, a fork or an undo: the run may be a new timeline.
      if (m.timeline && m.timeline !== this.timeline) this.steps = []; // nothing to predict in a timeline made here
      this.lesson = m.lesson;
      this.timeline = m.timeline || "";
      this.root.dataset.lesson = m.lesson;
      this.root.dataset.timeline = this.timeline;
    } else if (m.lesson !== this.lesson) return;
    this.retries = 0;
    const prevStep = this.step;
    const f = this.redisFail;
    if (f) {
      if (f.computed === null) {
        // The frame that answers the failed message: the run's place.
        f.computed = m.computed;
        if (f.target === null || f.target <= m.step) f.target = m.step + 1;
      } else if (m.computed > f.computed || m.step >= f.target) {
        this.redisFail = null; // a step ran on Redis
      }
    }
    if (!this.redisFail) delete this.root.dataset.error;
    if (m.chrome) {
      for (const [name, html] of Object.entries(m.chrome)) this.swap(`[data-chrome="${name}"]`, html);
      this.setPresenter(this.presenter, false);
      this.setPredict(this.predict, false);
    }
    for (const [name, html] of Object.entries(m.panels || {})) this.swap(`[data-panel="${name}"]`, html);
    if (m.chrome) {
      // An undo's answer redrew the tools; a frame after a reconnect (the
      // undo was lost with the socket) brings the same ones, left in place:
      // the button still in the page is on again.
      if (this.undoButton && this.undoButton.isConnected) this.undoButton.disabled = false;
      this.undoButton = null;
      this.refocus = null;
    }
    if (m.timeline_patch) this.patchTimeline(m.timeline_patch);
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
    if (this.predict) u.searchParams.set("predict", "1");
    if (this.retry) u.searchParams.set("retry", "1");
    // A deep link whose step Redis could not run keeps asking for it.
    if (this.redisFail && this.redisFail.fromLoad && this.redisFail.target > m.step) u.searchParams.set("step", String(this.redisFail.target));
    // A fork leaves the lesson (or drill) for a timeline of its own: a new
    // history entry, so that Back returns to the lesson at the step forked
    // from. Every other frame only keeps the address up to date.
    this.setAddress(u, u.pathname === "/explore" && location.pathname !== "/explore");
    if (this.redisFail) this.setConn("redis", "tRedisDownConn");
    else this.setConn("open", "tConnected");
    this.showRedisAlert();
    this.setPlaying(m.playing);
    this.updateControls();
    this.announce();
    this.scrollTimeline();
    // Only a step forward (→ or play) counts toward the learner's progress:
    // a deep link, a seek or End shows a step without having stepped to it.
    this.saveProgress(!m.chrome && m.step === prevStep + 1);
    if (this.predict) this.onPredictFrame(m, Boolean(m.chrome));
    if (m.chrome && this.pendingAction) {
      const a = this.pendingAction;
      this.pendingAction = null;
      this.act(a);
    }
  }

  // showRedisAlert shows, in the page's language, that a step could not run
  // because Redis did not answer, with a button that asks for it again; it
  // stays until a step runs.
  showRedisAlert() {
    const box = $("[data-redis-alert]");
    if (!box) return;
    const f = this.redisFail;
    if (!f) {
      if (box.firstChild) box.replaceChildren();
      this.alertKey = "";
      return;
    }
    const step = f.target === null ? this.step + 1 : f.target;
    const body = fill(this.text("tRedisDownBody"), { step, backend: this.text("backend") });
    const key = [this.lang, step, f.message, body].join("\n");
    if (this.alertKey === key && box.firstChild) return;
    this.alertKey = key;
    const open = $("details", box)?.open || false;
    const title = document.createElement("p");
    title.className = "ra-title";
    title.textContent = this.text("tRedisDownTitle");
    const p = document.createElement("p");
    p.className = "ra-body";
    p.textContent = body;
    const btn = document.createElement("button");
    btn.type = "button";
    btn.id = "btn-retry";
    btn.className = "button primary ra-retry";
    btn.dataset.action = "retry";
    btn.textContent = this.text("tTryAgain");
    const d = document.createElement("details");
    d.open = open;
    const sum = document.createElement("summary");
    sum.textContent = this.text("tRedisDownDetails");
    const code = document.createElement("code");
    code.textContent = f.message;
    d.append(sum, " ", code);
    box.replaceChildren(title, p, btn, d);
  }

  // swap replaces a region's HTML, keeping open <details>, focus and the
  // timeline's scroll position.
  swap(sel, html) {
    const el = $(sel);
    if (!el || this.shown.get(sel) === html) return;
    this.shown.set(sel, html);
    const open = $$("details[open][id]", el).map((d) => d.id);
    const active = el.contains(document.activeElement) ? document.activeElement : null;
    const focused = active ? active.id : "";
    // A button without an id (undo, a fork choice) is found again by what
    // it does, so that a keyboard user's focus stays in the panel.
    let again = null;
    if (active && !focused && active.dataset.explore) again = `[data-explore="${active.dataset.explore}"]`;
    else if (active && !focused && active.matches(".fork-choice")) again = ".fork-choice";
    else if (!active && this.refocus && $(this.refocus, el) && (!document.activeElement || document.activeElement === document.body)) {
      again = this.refocus;
      this.refocus = null;
    }
    const scroller = $(".tl-scroll", el);
    const scroll = scroller ? scroller.scrollLeft : null;
    el.innerHTML = html;
    for (const id of open) {
      const d = document.getElementById(id);
      if (d) d.open = true;
    }
    if (focused) document.getElementById(focused)?.focus();
    else if (again) {
      const usable = (b) => b && !b.disabled;
      const b = [$(again, el), ...$$("button, a[href]", el)].find(usable);
      if (b) b.focus({ preventScroll: true });
    }
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

  // patchTimeline applies a step's timeline patch (see TimelinePatch in
  // package web): the columns that changed, each in its three layers, the
  // lane labels when they changed, and the current-step marker.
  patchTimeline(p) {
    const sel = '[data-panel="timeline"]';
    const el = $(sel);
    const tl = el && $(".tl", el);
    if (!tl) return;
    this.shown.delete(sel); // the panel no longer holds the HTML last swapped in
    if (p.labels) $(".tl-labels", tl)?.replaceWith(svgFragment(p.labels));
    for (const c of p.cols) {
      for (const layer of ["back", "mid", "front"]) {
        const g = $(`[data-layer="${layer}"] > [data-c="${c.col}"]`, tl);
        if (g) g.innerHTML = c[layer];
      }
    }
    for (const g of $$(".col.current", tl)) g.classList.remove("current");
    $(`.col[data-col="${p.cur}"]`, tl)?.classList.add("current");
    tl.dataset.currentX = String(p.current_x);
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

  saveProgress(stepped) {
    const all = loadProgress();
    const p = all[this.lesson] || { best: 0 };
    if (p.done === undefined) p.done = (p.best || 0) >= this.total && this.total > 0;
    if (stepped) {
      p.best = Math.max(p.best || 0, this.step);
      if (this.step >= this.total) p.done = true;
    }
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
    this.setAddress(u, false);
  }

  act(action) {
    switch (action) {
      case "step":
        if (this.predict && this.predictStep()) return true;
        return this.send({ type: "step" });
      case "back":
        return this.send({ type: "back" });
      case "start":
        return this.send({ type: "seek", step: 0 });
      case "end":
        return this.send({ type: "seek", step: this.total });
      case "play":
        if (this.predict && !this.playing) return this.note(this.text("tPredictPlayOff"));
        return this.send(this.playing ? { type: "pause" } : { type: "play", speed: this.speed() });
      case "presenter":
        return this.setPresenter(!this.presenter, true);
      case "predict":
        return this.setPredict(!this.predict, true);
      case "retry": {
        // Try again: ask for the step Redis did not answer.
        const f = this.redisFail;
        if (!f) return false;
        return this.send({ type: "seek", step: f.target === null ? this.step + 1 : f.target });
      }
      default:
        return false;
    }
  }

  onClick(e) {
    const wasIdle = this.idle;
    // An idle page connects again on a click, but not for a link that
    // leaves it (a language link is handled below, over the socket).
    const leaving = e.target.closest("a[href]:not([data-lang]):not([href^=\"#\"])");
    if (wasIdle && !leaving) this.connect();
    const a = e.target.closest("a[data-lang]");
    if (a && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.button === 0) {
      e.preventDefault();
      this.lang = a.dataset.lang;
      if (!this.send({ type: "lang", lang: a.dataset.lang })) location.href = a.href;
      return;
    }
    const fork = e.target.closest("[data-spec]");
    if (fork && !fork.disabled) {
      this.forkWith(fork, JSON.parse(fork.dataset.spec));
      return;
    }
    const tool = e.target.closest("[data-explore]");
    if (tool && !tool.disabled) {
      this.exploreTool(tool);
      return;
    }
    const choice = e.target.closest("[data-choice]");
    if (choice && !choice.disabled) {
      this.choose(choice.dataset.choice);
      return;
    }
    const b = e.target.closest("[data-action]");
    if (!b || b.getAttribute("aria-disabled") === "true") return;
    if (wasIdle && !["presenter", "predict"].includes(b.dataset.action)) {
      // Carried out once the session is back.
      this.pendingAction = b.dataset.action;
      return;
    }
    this.act(b.dataset.action);
  }

  // forkWith continues the timeline after the menu's step with action.
  forkWith(el, action) {
    const menu = el.closest("[data-fork-menu]");
    const at = menu ? Number(menu.dataset.at) : this.step;
    this.setPlaying(false);
    if (!this.send({ type: "fork", at, action })) this.connect();
  }

  exploreTool(el) {
    switch (el.dataset.explore) {
      case "undo":
        // A click while the socket is not open is dropped (the page
        // connects again). A sent undo turns the button off until its
        // answer: a second click would undo again, and at the fork point
        // the server refuses it with an error in English. That takes the
        // focus away; the redrawn tools give it back (see swap).
        this.undoSeq = (this.undoSeq || 0) + 1;
        if (!this.send({ type: "undo", id: this.undoSeq })) {
          this.connect();
          break;
        }
        this.refocus = document.activeElement === el ? '[data-explore="undo"]' : null;
        el.disabled = true;
        this.undoButton = el;
        break;
      case "copy": {
        const status = $("[data-copy-status]");
        const done = (ok) => {
          if (status) status.textContent = ok ? status.dataset.tCopied : status.dataset.tFailed;
        };
        if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(location.href).then(() => done(true), () => done(false));
        else done(false);
        break;
      }
      default:
        break;
    }
  }

  onSubmit(e) {
    const custom = e.target.closest("[data-fork-custom]");
    if (custom) {
      e.preventDefault();
      const by = Number(custom.elements.by_ms.value);
      if (!Number.isInteger(by) || by < 1) {
        custom.elements.by_ms.reportValidity();
        return;
      }
      this.forkWith(custom, { do: custom.elements.do.value, by_ms: by });
    }
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
    const tag = e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.target.isContentEditable) return;
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
        if (this.idle) {
          this.connect();
          return;
        }
        if (this.prompting && /^[1-9]$/.test(e.key)) {
          const outs = this.steps[this.prompting - 1]?.outcomes || [];
          const o = outs[Number(e.key) - 1];
          if (o) {
            e.preventDefault();
            this.choose(o);
          }
        }
        return;
    }
    e.preventDefault();
    if (this.idle) {
      // Closed for inactivity: reconnect, then carry out the key.
      if (action !== "presenter") this.pendingAction = action;
      this.connect();
      if (action === "presenter") this.act(action);
      return;
    }
    this.act(action);
  }

  // ---------- predict mode ----------

  setPredict(on, remember) {
    this.predict = on;
    for (const b of $$('[data-action="predict"]')) b.setAttribute("aria-pressed", String(on));
    const play = $("#btn-play");
    if (play) {
      play.setAttribute("aria-disabled", String(on));
      if (on) play.title = this.text("tPredictPlayOff");
    }
    if (on && this.playing) this.send({ type: "pause" });
    if (!on) {
      this.prompting = 0;
      this.guess = null;
      this.retry = null;
      this.afterSeek = 0;
      this.hideBar();
    }
    this.showScore();
    if (!remember) return;
    try {
      localStorage.setItem(PREDICT_MODE_KEY, on ? "1" : "0");
    } catch {
      // ignore
    }
    const u = new URL(location.href);
    if (on) u.searchParams.set("predict", "1");
    else {
      u.searchParams.delete("predict");
      u.searchParams.delete("retry");
    }
    this.setAddress(u, false);
    if (on) this.predictStep();
  }

  showScore() {
    const el = $("#predict-score");
    if (!el) return;
    if (!this.predict) {
      el.textContent = "";
      return;
    }
    const sc = predictScore(this.lesson);
    el.textContent = sc.total ? fill(this.text("tPredictScore"), sc) : this.text("tPredictNone");
  }

  bar() {
    return $("[data-predict-bar]");
  }

  hideBar() {
    const b = this.bar();
    if (b) {
      b.hidden = true;
      b.replaceChildren();
    }
    this.revealed = 0;
  }

  // fillBar replaces the bar's content with paragraphs of [class, text].
  fillBar(state, lines) {
    const b = this.bar();
    if (!b) return null;
    b.dataset.state = state;
    b.replaceChildren();
    if (this.retry && this.retry.list.length && state !== "note") {
      const p = document.createElement("p");
      p.className = "predict-retry";
      p.textContent = fill(this.text("tRetryProgress"), { n: Math.min(this.retry.i + (state === "ask" ? 1 : 0), this.retry.list.length), total: this.retry.list.length });
      b.append(p);
    }
    for (const [cls, text] of lines) {
      const p = document.createElement("p");
      p.className = cls;
      p.textContent = text;
      b.append(p);
    }
    b.hidden = false;
    return b;
  }

  note(text) {
    if (!this.prompting && !this.guess) this.fillBar("note", [["predict-note", text]]);
    return true;
  }

  glosses() {
    try {
      return JSON.parse($(".controls")?.dataset.glosses || "{}");
    } catch {
      return {};
    }
  }

  // predictStep is a step forward in predict mode: ask first when the next
  // step has an outcome to predict. It returns false for a plain step.
  predictStep() {
    if (this.guess || this.afterSeek) return true; // a reply is on its way
    if (this.retry && this.retry.started) {
      if (this.retry.i < this.retry.list.length) return this.nextRetry();
      this.retry = null;
      const u = new URL(location.href);
      u.searchParams.delete("retry");
      this.setAddress(u, false);
    }
    const next = this.step + 1;
    if (next > this.total) return false;
    if (this.prompting === next) return true;
    if (!this.steps[next - 1]) return false;
    this.ask(next);
    return true;
  }

  nextRetry() {
    const target = this.retry.list[this.retry.i];
    this.retry.started = true;
    if (this.step === target - 1) this.ask(target);
    else {
      this.afterSeek = target;
      this.send({ type: "seek", step: target - 1 });
    }
    return true;
  }

  ask(n) {
    const s = this.steps[n - 1];
    if (!s) return;
    this.prompting = n;
    const g = this.glosses();
    const b = this.fillBar("ask", [
      ["predict-q", fill(this.text("tPredictPrompt"), { step: n, actor: s.actor, action: g[`act:${s.do}`] || s.do, lock: s.lock })],
      ["predict-hint", this.text("tPredictChoose")],
    ]);
    if (!b) return;
    const group = document.createElement("div");
    group.className = "predict-choices";
    group.setAttribute("role", "group");
    s.outcomes.forEach((o, i) => {
      const btn = document.createElement("button");
      btn.type = "button";
      btn.dataset.choice = o;
      const k = document.createElement("kbd");
      k.textContent = String(i + 1);
      const c = document.createElement("code");
      c.textContent = o;
      const t = document.createElement("span");
      t.className = "gloss";
      t.textContent = g[o] || "";
      btn.append(k, c, t);
      group.append(btn);
    });
    b.append(group);
    group.querySelector("button")?.focus({ preventScroll: true });
  }

  choose(outcome) {
    const n = this.prompting;
    if (!n) return;
    this.prompting = 0;
    this.guess = { step: n, outcome };
    for (const b of $$("[data-choice]", this.bar())) {
      b.disabled = true;
      b.classList.toggle("chosen", b.dataset.choice === outcome);
    }
    if (this.step === n - 1) this.send({ type: "step" });
    else this.send({ type: "seek", step: n });
  }

  onPredictFrame(m, loaded) {
    if (this.afterSeek) {
      if (m.step === this.afterSeek - 1) {
        const n = this.afterSeek;
        this.afterSeek = 0;
        this.ask(n);
      }
      return;
    }
    if (this.guess) {
      const g = this.guess;
      this.guess = null;
      if (m.step !== g.step) {
        this.hideBar();
        return;
      }
      const got = m.frame.outcome;
      recordPrediction(this.lesson, g.step, g.outcome, got);
      if (this.retry && this.retry.list[this.retry.i] === g.step) this.retry.i++;
      const gl = this.glosses();
      const ok = g.outcome === got;
      const verdict = ok
        ? fill(this.text("tPredictRight"), { outcome: got })
        : fill(this.text("tPredictWrong"), { guess: g.outcome, outcome: got });
      const lines = [[`predict-verdict ${ok ? "right" : "wrong"}`, verdict]];
      if (gl[got]) lines.push(["predict-gloss", `${got}: ${gl[got]}`]);
      lines.push(["predict-why", this.text("tPredictWhy")]);
      if (this.retry && this.retry.i >= this.retry.list.length) lines.push(["predict-note", this.text("tRetryDone")]);
      this.fillBar(ok ? "right" : "wrong", lines);
      this.revealed = g.step;
      this.showScore();
      return;
    }
    if (loaded && this.retry && !this.retry.started) {
      if (this.retry.list.length) this.nextRetry();
      else {
        this.retry = null;
        this.fillBar("note", [["predict-note", this.text("tRetryNone")]]);
      }
      return;
    }
    if (this.prompting && m.step === this.prompting - 1) {
      if (loaded) this.ask(this.prompting); // the language changed: ask again in it
      return;
    }
    this.prompting = 0;
    if (this.revealed !== m.step || loaded) this.hideBar();
    this.showScore();
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

// ---------- follow-up questions ----------

// startInterview keeps each answer in localStorage as it is typed, and
// opens (or closes) a question's model answer and its timeline.
function startInterview(root) {
  const answers = loadJSON(ANSWERS_KEY);
  for (const ta of $$("textarea[data-answer]", root)) {
    const id = ta.dataset.answer;
    if (answers[id]) ta.value = answers[id];
    ta.addEventListener("input", () => {
      const all = loadJSON(ANSWERS_KEY);
      all[id] = ta.value;
      storeJSON(ANSWERS_KEY, all);
      const s = $(`[data-saved="${id}"]`, root);
      if (s) s.textContent = root.dataset.tSaved;
    });
  }
  root.addEventListener("click", (e) => {
    const b = e.target.closest("[data-reveal]");
    if (!b) return;
    const id = b.dataset.reveal;
    const open = b.getAttribute("aria-expanded") !== "true";
    b.setAttribute("aria-expanded", String(open));
    b.textContent = open ? root.dataset.tHide : root.dataset.tShow;
    const q = b.closest("[data-question]");
    q.classList.toggle("revealed", open);
    for (const el of [document.getElementById(`${id}-model`), $(`[data-demo="${id}"]`, root)]) {
      if (el) el.hidden = !open;
    }
  });
}

const interview = document.getElementById("interview");
if (interview) startInterview(interview);

// ---------- the 60-second timer ----------

function startTimer(root) {
  const box = $("[data-timer]", root);
  if (!box) return;
  const total = Number(box.dataset.seconds) || 60;
  const count = $("[data-timer-count]", root);
  const arc = $("[data-timer-arc]", root);
  const status = $("[data-timer-status]", root);
  const toggle = $("[data-timer-toggle]", root);
  let left = total * 1000;
  let endsAt = 0;
  let tick = 0;
  const draw = () => {
    const secs = Math.ceil(left / 1000);
    count.textContent = String(secs);
    arc.style.strokeDashoffset = String(60 - (60 * left) / (total * 1000));
    box.dataset.running = String(Boolean(tick));
    box.classList.toggle("low", secs <= 10);
  };
  const stop = () => {
    clearInterval(tick);
    tick = 0;
    toggle.textContent = root.dataset.tStart;
    draw();
  };
  const update = () => {
    left = Math.max(0, endsAt - Date.now());
    if (left === 0) {
      stop();
      status.textContent = root.dataset.tDone;
      return;
    }
    draw();
  };
  toggle.addEventListener("click", () => {
    if (tick) {
      update();
      stop();
      return;
    }
    if (left === 0) left = total * 1000;
    status.textContent = "";
    endsAt = Date.now() + left;
    tick = setInterval(update, 200);
    toggle.textContent = root.dataset.tStop;
    draw();
  });
  $("[data-timer-reset]", root).addEventListener("click", () => {
    stop();
    left = total * 1000;
    status.textContent = "";
    draw();
  });
  draw();
}

const sixty = document.getElementById("sixty");
if (sixty) startTimer(sixty);
