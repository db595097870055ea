// The player page's module (main.js loads it where the page has a player):
// it makes the player's state in
// one place (createState) and wires the page's events to the modules. The
// server renders every panel (templ, package templates) and sends it over
// the websocket; the modules connect (socket.js), swap the fragments in and
// turn buttons and keys into protocol messages (player.js; protocol in the
// doc of package web), keep the address (history.js), run predict mode
// (predict.js, loaded only once the mode is on; predictdata.js holds
// its state and scores meanwhile) and explore's fork menu and undo (explore.js), and keep the
// learner's progress (course.js), and run a class (classroom.js, loaded
// only where a class is: noclass.js stands in until then). The modules
// export functions, given what they work on, so node --test loads them
// without a browser (static/test); none touches the page when it is
// imported.

import * as socket from "./socket.js";
import { frameAddress, isForkEntry, modeAtStart, newAddress, onPopState, setAddress, withMode } from "./history.js";
import { PREDICT_MODE_KEY, forgetSteps, newPredict, parseSteps, predictScore } from "./predictdata.js";
import { copyLink, customAction, forkMessage, menuStep, newUndo, undoAnswered, undoFailed, undoMessage, undoSent } from "./explore.js";
import * as player from "./player.js";
import { saveProgress } from "./course.js";
import { loadFlag, storeFlag } from "./storage.js";
import * as noClass from "./noclass.js";
import * as peers from "./peers.js";

// once: a module imported when first needed (Play's, the end card's).
function once(load) {
  let p = null;
  return () => (p ||= load());
}
const playModule = once(() => import("./play.js"));
const endModule = once(() => import("./endcard.js"));
const predictModule = once(() => import("./predict.js"));
// presenter.js lays presenter mode's board out; like presenter.css it
// comes with the mode (issue 34: not in a lesson's first load).
const presenterModule = once(() => import("./presenter.js"));

const PRESENTER_KEY = "lockstep.presenter";

// tabStorage is sessionStorage (this tab's: a class's presenter key), or
// null where reading it throws.
function tabStorage() {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

// createState is all the player's state: its view of the run, the
// socket, the address, predict mode, undo and the class (of classroom, the
// module or its stand-in), each a plain object.
function createState(root, io, classroom) {
  return {
    cls: classroom.newClass(root.dataset),
    view: player.newView(root.dataset),
    sock: socket.newSocket(io),
    address: newAddress(location),
    predict: newPredict(parseSteps(root.dataset.predictSteps)),
    play: null, // Play's state (play.js), made at the first press
    undo: newUndo(),
  };
}

// startPlayer starts the player on root; classroomAtStart is
// classroom.js, or noclass.js until a class starts (withClassroom);
// predictAtStart is predict.js where predict mode is on at the start, or
// null until the learner switches it on (setPredict).
function startPlayer(doc, root, storage, classroomAtStart, predictAtStart) {
  let classroom = classroomAtStart;
  // predict is predict mode's module, null until the mode is first on:
  // st.predict.on implies it is loaded.
  let predict = predictAtStart;
  const t = (key) => player.text(doc, key);
  const setConn = (state, key) => player.setConn(doc, root, state, key);
  // Play runs in the page (play.js, loaded at the first press).
  let play = null;
  const setPlaying = () => {
    st.view.playing = Boolean(st.play && st.play.on);
    player.showPlaying(doc, root, st.view.playing);
  };
  let playTimer = 0;
  // runPlay carries out Play's effects (see play.js), in order.
  const runPlay = (fx) => {
    for (const e of fx) {
      if ("send" in e) send(e.send);
      else if ("wait" in e) {
        clearTimeout(playTimer);
        playTimer = setTimeout(() => runPlay(play.tick(st.play)), e.wait);
      } else if ("cancel" in e) clearTimeout(playTimer);
      else if ("show" in e) {
        setPlaying();
        play.showStopped(doc, root, st.play, t);
      }
    }
  };
  const stopPlay = () => {
    if (st.play) runPlay(play.stop(st.play));
  };
  const startPlay = () =>
    playModule().then((m) => {
      play = m;
      st.play ||= m.newPlay(st.predict.steps);
      if (!st.play.on) runPlay(m.start(st.play, v.step, v.total, m.narrationText(doc), speed(), v.frame));
    });
  let endLoaded = false;
  const showEnd = (done) => {
    if (!endLoaded && !(v.total > 0 && v.step >= v.total)) return;
    endLoaded = true;
    endModule().then((m) => m.showEnd(doc, v.step, v.total, done));
  };
  // A student's page walks the class's servers when its own is lost: own
  // first, then data-class-peers (peers.js); current is the one that last
  // answered, trying the one the socket opened last.
  const servers = peers.serverList(location.origin, root.dataset.classPeers);
  let current = 0;
  let trying = 0;
  const st = createState(root, {
    WebSocket,
    url:
      servers.length > 1
        ? (sock) => {
            trying = peers.pickServer(servers.length, current, sock.failures);
            return trying === 0 ? socket.socketURL(location) : peers.wsURL(servers[trying]);
          }
        : socket.socketURL(location),
    setTimeout: (f, ms) => setTimeout(f, ms),
    clearTimeout: (id) => clearTimeout(id),
    random: Math.random,
    onStatus: setConn,
    onOpen: () => {
      // A student's page joins its class instead of loading: the class
      // says what to show. A presenter's tab resumes its class after the load.
      if (st.cls.role !== "student") send(socket.loadMessage(st.view, socket.resumeStep(st.view.step, st.view.redisFail)));
      for (const m of classroom.openMessages(st.cls, session, st.view.lang)) send(m);
    },
    onMessage: (m) => onMessage(m),
    onDown: () => stopPlay(),
  }, classroom);
  const v = st.view;
  const session = tabStorage();
  const connect = () => socket.connect(st.sock);
  const send = (msg) => {
    if (classroom.blocks(st.cls, msg.type)) return true; // the presenter moves the class
    return socket.send(st.sock, msg, (m) => {
      v.lastTarget = player.nextTarget(m, v.step, v.lastTarget);
    });
  };
  // withClassroom runs f once the classroom's module is loaded: at once
  // where it is, else after loading it (a presenter starts a class).
  const withClassroom = (f) => {
    if (classroom !== noClass) return f();
    import("./classroom.js").then(
      (m) => {
        if (classroom === noClass) {
          classroom = m;
          st.cls = m.newClass(root.dataset);
        }
        f();
      },
      (err) => {
        const c = doc.querySelector("#conn");
        if (c) c.textContent = String(err?.message || err);
      },
    );
    return true;
  };
  // loadPredict runs f once predict mode's module is loaded.
  let predictLoading = false;
  const loadPredict = (f) => {
    if (predictLoading) return;
    predictLoading = true;
    predictModule().then(
      (m) => {
        predictLoading = false;
        predict = m;
        f();
      },
      (err) => {
        predictLoading = false;
        const c = doc.querySelector("#conn");
        if (c) c.textContent = String(err?.message || err);
      },
    );
  };
  // renderClass shows the class state, Ask on only before a step predict
  // mode would ask about (steps[n] describes step n + 1).
  const renderClass = () => classroom.render(doc, st.cls, { nextAskable: Boolean(st.predict.steps[v.step]) });
  // runClass carries out the classroom's effects (see classroom.js).
  const runClass = (fx) => {
    for (const e of fx) {
      if ("send" in e) send(e.send);
      else if ("store" in e) classroom.storeValue(session, e.store.key, e.store.value);
      else if ("storeStudent" in e) classroom.rememberStudent(session, e.storeStudent.code, e.storeStudent.student);
      else if ("download" in e) classroom.download(doc, URL, e.download.filename, e.download.text);
      else if ("go" in e) location.replace(`${trying ? servers[trying] : ""}${e.go}?lang=${encodeURIComponent(v.lang || doc.documentElement.lang)}`);
      else if ("render" in e) {
        renderClass();
        fit(); // the join address shown or hidden: the board's layout may follow (makeRoom)
      }
      else if ("focus" in e) doc.querySelector(e.focus)?.focus();
    }
  };
  const speed = () => Number(doc.querySelector("#speed")?.value) || 1;
  const address = (u, push) => setAddress(st.address, history, u, push);
  // fit keeps the narration on the projected screen (presenter mode).
  // The timeline's place comes first: it sets the narration's box.
  let fitWidth = -1; // the lanes' window's width at the last fit (px)
  let layout = null; // presenter.js, once loaded
  const fit = () => {
    // ...then the room the narration takes (the timeline's box may change)
    // (trying a layout can clamp the window of steps' scroll: then it is
    // scrolled to the current step again)
    const board = doc.querySelector(".board");
    const sc = doc.querySelector('[data-panel="timeline"] .tl-scroll');
    const was = `${board?.dataset.room}${board?.dataset.under}${sc?.scrollLeft}`;
    // (presenter.js, once the mode has been on: off, it clears what it set)
    const moved = layout ? layout.placeTimeline(doc, v.presenter) : false;
    layout?.makeRoom(doc, v.presenter);
    // (and when the window's width changed since the last fit: the class
    // panel's column narrows the board, and widens it again)
    const width = sc?.clientWidth ?? 0;
    if (moved || width !== fitWidth || was !== `${board?.dataset.room}${board?.dataset.under}${sc?.scrollLeft}`) player.scrollTimeline(doc, true);
    fitWidth = width;
    const scale = player.fitPanel(doc.querySelector(".narration"), v.presenter);
    for (const el of moreCards) {
      player.markMore(el, v.presenter);
      if (moreSize) for (const k of [el, ...el.children]) moreSize.observe(k);
    }
    return scale;
  };
  // The cards that scroll on a projector say when more follows (markMore):
  // again when scrolled, and when the card or what it holds changes size
  // (a font loaded, the end card, a class's strip).
  const moreCards = [...doc.querySelectorAll(".board :is(.narration, .redis, .diagram, .command)")];
  const moreSize = typeof ResizeObserver === "function"
    ? new ResizeObserver((es) => {
      for (const e of es) {
        const c = e.target.closest(".card");
        if (c) player.markMore(c, v.presenter);
      }
    })
    : null;
  for (const el of moreCards) el.addEventListener("scroll", () => player.markMore(el, v.presenter), { passive: true });

  const showScore = () => predict.showScore(doc, st.predict, predictScore(storage, v.lesson), t);
  // run carries out predict mode's effects (see predict.js), in order.
  const run = (fx) => {
    for (const e of fx) {
      if ("ask" in e) predict.showQuestion(doc, st.predict, e.ask, t, player.glosses(doc));
      else if ("chosen" in e) predict.markChosen(doc, e.chosen);
      else if ("send" in e) send(e.send);
      else if ("record" in e) predict.recordPrediction(storage, v.lesson, e.record.step, e.record.guess, e.record.got);
      else if ("verdict" in e) {
        const lines = predict.verdictLines(e.verdict, t, player.glosses(doc));
        predict.fillBar(doc, st.predict, e.verdict.ok ? "right" : "wrong", lines, t);
      } else if ("why" in e) predict.showWhy(doc, st.predict, e.why, v.lang);
      else if ("whyVerdict" in e) {
        const s = st.predict.steps[e.whyVerdict.step - 1];
        predict.markWhyChosen(doc, e.whyVerdict.chosen, predict.whyVerdictLine(e.whyVerdict, s, t, v.lang));
      } else if ("aside" in e) predict.showAside(doc, t(e.aside));
      else if ("note" in e) predict.fillBar(doc, st.predict, "note", [["predict-note", t(e.note)]], t);
      else if ("hide" in e) predict.hideBar(doc);
      else if ("score" in e) showScore();
      else if ("retryParam" in e) address(withMode(location.href, "retry", false), false);
    }
    predict.showVeil(doc, predict.veil(st.predict, v.step, v.total)); // no answer before the learner's
    fit(); // the predict bar took or gave back height
  };

  // relayout fits the page to a changed layout: the current column may
  // have left the timeline's view, the narration its box.
  const relayout = () => {
    player.scrollTimeline(doc, true);
    fit();
  };
  const setPresenter = (on, remember) => {
    v.presenter = on;
    player.showPresenter(doc, on);
    // Presenter mode's stylesheet comes with the mode (issue 34): the page
    // is laid out again once it has loaded.
    if (on) player.linkStylesheet(doc, root.dataset.presenterCss, relayout);
    // ...and its layout's module: the page is laid out again once it is in
    if (on && !layout) {
      presenterModule().then((m) => {
        layout = m;
        relayout();
      });
    }
    relayout();
    if (!remember) return;
    storeFlag(storage, PRESENTER_KEY, on);
    address(withMode(location.href, "present", on), false);
  };
  const setPredict = (on, remember) => {
    if (!predict) {
      // Never on in this page: nothing of the mode shows. Switched on, it
      // runs once its module has loaded.
      if (on) loadPredict(() => setPredict(on, remember));
      return true;
    }
    const fx = predict.setMode(st.predict, on);
    predict.showModeButtons(doc, on, t);
    if (on) stopPlay();
    run(fx);
    showScore();
    if (!remember) return;
    storeFlag(storage, PREDICT_MODE_KEY, on);
    address(withMode(location.href, "predict", on, ["retry"]), false);
    if (on) run(predict.stepForward(st.predict, v.step, v.total).fx);
  };

  function act(action) {
    if (["step", "back", "start", "end", "retry"].includes(action)) stopPlay(); // the learner moves: Play stops
    switch (action) {
      case "step":
        if (st.predict.on) {
          const r = predict.stepForward(st.predict, v.step, v.total);
          run(r.fx);
          if (r.handled) return true;
        }
        return send({ type: "step" });
      case "play":
        if (st.predict.on && !v.playing) {
          run(predict.playNote(st.predict));
          return true;
        }
        if (st.play && st.play.on) stopPlay();
        else if (classroom.blocks(st.cls, "step")) return true; // the presenter moves the class
        else startPlay();
        return true;
      case "presenter":
        return setPresenter(!v.presenter, true);
      case "predict":
        return setPredict(!st.predict.on, true);
      case "retry": // Try again: ask for the step Redis did not answer
        return v.redisFail ? send({ type: "seek", step: player.retryStep(v.redisFail, v.step) }) : false;
      default: {
        const msg = player.actionMessage(action, v.step, v.total, v.playing, speed());
        return msg ? send(msg) : false;
      }
    }
  }

  function onMessage(m) {
    switch (m.type) {
      case "frame":
        onFrame(m);
        break;
      case "state":
        if (m.playing) send({ type: "pause" }); // Play is the page's (play.js), never the server's
        break;
      case "error": {
        if ((m.code || "").startsWith("class-")) {
          runClass(classroom.onMessage(st.cls, m));
          if (st.cls.role === "presenter") break; // said in the class panel
        }
        undoFailed(st.undo, m.re)?.focus(); // an undo that failed leaves the tools as they were: on again
        v.errors++;
        root.dataset.errors = String(v.errors);
        root.dataset.error = m.code;
        if (m.code === "redis" || player.isRefusal(m.code)) {
          // The frame of the step the run stays at follows; it fills in
          // what the alert still lacks.
          v.redisFail = player.failFromError(v.lastTarget, m.message, m.code);
          v.lastTarget = null;
          if (m.code === "redis") setConn("redis", "tRedisDownConn");
          player.showRedisAlert(doc, v);
        } else {
          const c = doc.querySelector("#conn");
          if (c) c.textContent = m.message;
        }
        break;
      }
      default:
        if (typeof m.type === "string" && m.type.startsWith("class-")) runClass(classroom.onMessage(st.cls, m));
        break;
    }
  }

  function onFrame(m) {
    if (m.chrome) {
      // A load, a fork or an undo: the run may be a new timeline.
      if (m.timeline && m.timeline !== v.timeline) {
        forgetSteps(st.predict);
        if (st.play) play.forgetSteps(st.play);
      }
      v.lesson = m.lesson;
      v.timeline = m.timeline || "";
      root.dataset.lesson = m.lesson;
      root.dataset.timeline = v.timeline;
    } else if (m.lesson !== v.lesson) return;
    socket.answered(st.sock);
    current = trying;
    const prevStep = v.step;
    v.redisFail = player.failAfterFrame(v.redisFail, m);
    if (!v.redisFail) delete root.dataset.error;
    const swap = (sel, html) => player.swap(doc, v, st.undo, sel, html);
    if (m.chrome) {
      for (const [name, html] of Object.entries(m.chrome)) swap(`[data-chrome="${name}"]`, html);
      setPresenter(v.presenter, false);
      setPredict(st.predict.on, false);
      renderClass(); // the header's class bar is new
    }
    for (const [name, html] of Object.entries(m.panels || {})) swap(`[data-panel="${name}"]`, html);
    for (const [name, e] of Object.entries(m.edits || {})) {
      const sel = `[data-panel="${name}"]`;
      const html = player.applyEdit(v.shown.get(sel), e);
      if (html !== null) swap(sel, html);
      // The page does not hold what the edit is for: the class's frame
      // with chrome again (following anew resets what the server counts
      // as shown).
      else if (st.cls.following) send({ type: "class-follow", follow: true });
    }
    if (m.chrome) undoAnswered(st.undo);
    if (m.timeline_patch) player.patchTimeline(doc, v, m.timeline_patch);
    v.step = m.step;
    v.total = m.total;
    v.lang = m.lang;
    root.dataset.step = String(m.step);
    root.dataset.total = String(m.total);
    root.dataset.lang = m.lang;
    if (st.cls.role === "presenter") renderClass(); // Ask follows the step
    doc.documentElement.lang = m.lang;
    doc.title = m.title;
    const u = frameAddress(m.url, location.href, {
      presenter: v.presenter,
      predict: st.predict.on,
      retry: Boolean(st.predict.retry),
      redisFail: v.redisFail,
      step: m.step,
    });
    if (st.cls.role !== "student") address(u, isForkEntry(u, location.pathname)); // a student's stays /class/CODE
    if (v.redisFail && !player.isRefusal(v.redisFail.code)) setConn("redis", "tRedisDownConn");
    else setConn("open", "tConnected");
    player.showRedisAlert(doc, v);
    if (m.chrome) {
      setPlaying(); // the new control bar shows Play's state
      if (st.play) play.showStopped(doc, root, st.play, t);
    }
    player.updateControls(doc, v, location.href);
    v.frame = m.frame;
    // The lesson is complete when the learner stepped to its end (→ or
    // Play), now or before; a link, End or the scrubber to the last step
    // shows the end card without completing it, and the card says so.
    const progress = saveProgress(storage, v.lesson, v.step, v.total, player.isStepForward(m, prevStep));
    showEnd(Boolean(progress && progress.done));
    if (st.predict.on) run(predict.onFrame(st.predict, m, Boolean(m.chrome))); // before announce: it veils answers
    player.announce(doc);
    player.scrollTimeline(doc, matchMedia("(prefers-reduced-motion: reduce)").matches);
    fit();
    if (st.play) runPlay(play.onFrame(st.play, m, play.narrationText(doc)));
    if (m.chrome && v.pendingAction) {
      const a = v.pendingAction;
      v.pendingAction = null;
      act(a);
    }
  }

  // forkWith continues the timeline after the menu's step with action.
  const forkWith = (el, action) => {
    stopPlay();
    if (!send(forkMessage(menuStep(el.closest("[data-fork-menu]")), v.step, action))) connect();
  };

  function exploreTool(el) {
    switch (el.dataset.explore) {
      case "undo": {
        // Dropped while the socket is not open (the page connects again);
        // sent, it is off until its answer (explore.js).
        if (!send(undoMessage(st.undo))) {
          connect();
          break;
        }
        undoSent(st.undo, el, doc.activeElement === el);
        break;
      }
      case "copy": {
        const status = doc.querySelector("[data-copy-status]");
        copyLink(navigator, window.isSecureContext, location.href, (ok) => {
          if (status) status.textContent = ok ? status.dataset.tCopied : status.dataset.tFailed;
        });
        break;
      }
      default:
        break;
    }
  }

  const choose = (outcome) => predict && run(predict.choose(st.predict, outcome, v.step));

  // onClassClick handles a click on the classroom's buttons; it reports
  // whether it did.
  function onClassClick(target) {
    if (target.closest("[data-class-start]")) {
      if (!v.presenter) setPresenter(true, true); // a class is presented
      withClassroom(() => send({ type: "class-start" }));
      return true;
    }
    const a = target.closest("[data-class-action]");
    if (a && !a.disabled) {
      runClass(classroom.action(st.cls, a.dataset.classAction));
      return true;
    }
    const c = target.closest("[data-class-choice]");
    if (c) {
      runClass(classroom.answer(st.cls, c.dataset.classChoice));
      return true;
    }
    const f = target.closest("[data-class-follow]");
    if (f) {
      runClass(classroom.follow(st.cls, f.dataset.classFollow === "true"));
      return true;
    }
    return false;
  }

  function onClick(e) {
    const wasIdle = st.sock.idle;
    // An idle page connects again on a click, but not for a link that
    // leaves it (a language link is handled below, over the socket).
    const leaving = e.target.closest('a[href]:not([data-lang]):not([href^="#"])');
    if (wasIdle && !leaving) connect();
    const a = e.target.closest("a[data-lang]");
    if (a && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.button === 0) {
      e.preventDefault();
      v.lang = a.dataset.lang;
      if (!send({ type: "lang", lang: a.dataset.lang })) location.href = a.href;
      return;
    }
    const fork = e.target.closest("[data-spec]");
    if (fork && !fork.disabled) {
      forkWith(fork, JSON.parse(fork.dataset.spec));
      return;
    }
    const tool = e.target.closest("[data-explore]");
    if (tool && !tool.disabled) {
      exploreTool(tool);
      return;
    }
    const reason = e.target.closest("[data-why-choice]");
    if (reason && !reason.disabled && predict) {
      run(predict.chooseWhy(st.predict, Number(reason.dataset.whyChoice)));
      return;
    }
    if (onClassClick(e.target)) return;
    if (e.target.closest('[data-end="fork"]')) {
      endModule().then((m) => m.forkHere(doc));
      return;
    }
    const about = e.target.closest("[data-about-toggle]");
    if (about) {
      player.toggleAbout(doc, about);
      return;
    }
    const choice = e.target.closest("[data-choice]");
    if (choice && !choice.disabled) {
      choose(choice.dataset.choice);
      return;
    }
    const b = e.target.closest("[data-action]");
    if (!b) return;
    if (b.getAttribute("aria-disabled") === "true") {
      // Play is off in predict mode, and a press on it says why.
      if (b.dataset.action === "play" && st.predict.on && !v.playing) run(predict.playNote(st.predict));
      return;
    }
    if (wasIdle && !["presenter", "predict"].includes(b.dataset.action)) {
      v.pendingAction = b.dataset.action; // carried out once the session is back
      return;
    }
    act(b.dataset.action);
  }

  function onKey(e) {
    if (e.key === "Escape" && st.cls.confirmEnd) {
      runClass(classroom.action(st.cls, "end-no")); // End's question, taken away
      return;
    }
    const action = player.keyAction({
      key: e.key,
      ctrlKey: e.ctrlKey,
      metaKey: e.metaKey,
      altKey: e.altKey,
      isComposing: e.isComposing,
      tag: e.target.tagName,
      editable: e.target.isContentEditable,
    });
    if (action === "") return;
    if (action === null) {
      if (st.sock.idle) {
        connect();
        return;
      }
      const o = predict?.choiceForKey(st.predict, e.key);
      if (o) {
        e.preventDefault();
        choose(o);
      }
      return;
    }
    e.preventDefault();
    if (st.sock.idle) {
      // Closed for inactivity: reconnect, then carry out the key.
      if (action !== "presenter") v.pendingAction = action;
      connect();
      if (action === "presenter") act(action);
      return;
    }
    act(action);
  }

  function onSubmit(e) {
    const custom = e.target.closest("[data-fork-custom]");
    if (!custom) return;
    e.preventDefault();
    const action = customAction(custom.elements.do.value, custom.elements.by_ms.value);
    if (action) forkWith(custom, action);
    else custom.elements.by_ms.reportValidity();
  }

  function onScrub(el, now) {
    stopPlay();
    clearTimeout(v.scrubTimer);
    const go = () => send({ type: "seek", step: Number(el.value) });
    if (now) go();
    else v.scrubTimer = setTimeout(go, 120);
  }

  const params = new URLSearchParams(location.search);
  setPresenter(modeAtStart(params, "present", loadFlag(storage, PRESENTER_KEY)), false);
  // A student answers the class's questions, not predict mode's.
  setPredict(st.cls.role !== "student" && predictAtStart !== null, false);
  renderClass();
  if (st.predict.on && params.get("retry") === "1") predict.startRetry(st.predict, predictScore(storage, v.lesson).misses);
  doc.addEventListener("click", onClick);
  doc.addEventListener("keydown", onKey);
  doc.addEventListener("submit", onSubmit);
  doc.addEventListener("input", (e) => {
    if (e.target.id === "scrubber") onScrub(e.target, false);
  });
  doc.addEventListener("change", (e) => {
    if (e.target.id === "scrubber") onScrub(e.target, true);
    if (e.target.id === "speed" && st.play) play.setSpeed(st.play, speed());
  });
  // A page the learner leaves may stay in the browser's back/forward
  // cache with its socket open, holding a server session (one of
  // -max-sessions) and, on a real Redis, its run's keys until the tab
  // closes. Close the socket when the page is hidden that way, and
  // connect again, at the step shown, if the page comes back.
  addEventListener("pagehide", () => socket.disconnect(st.sock));
  addEventListener("pageshow", (e) => {
    if (e.persisted) connect();
  });
  // A resized window (a projector's) draws the timeline at another scale.
  addEventListener("resize", () => {
    player.scrollTimeline(doc, true);
    fit();
  });
  // The narration's box also changes with what comes above the board
  // without a frame (the class panel, its tally at Ask): fit it again.
  // Its box is the grid's, so the fit does not resize it in turn.
  const narration = doc.querySelector(".narration");
  if (narration && typeof ResizeObserver === "function") new ResizeObserver(() => fit()).observe(narration);
  // The keys' and the command's texts change size, not their cards, when
  // the fonts come: the room they take is found again then.
  doc.fonts?.ready.then(() => fit());
  // A touch screen steps by swipes (swipe.js).
  if ("ontouchstart" in window || matchMedia("(pointer: coarse)").matches) {
    import("./swipe.js").then((m) =>
      m.attachSwipe(doc.querySelector(".board"), (action) => {
        if (st.sock.idle) {
          v.pendingAction = action;
          connect();
          return;
        }
        act(action);
      }),
    );
  }
  addEventListener("popstate", () => onPopState(st.address, history, location, () => location.reload()));
  connect();
}

// start starts the player on root, the page's #player, with storage
// (localStorage or null): with the classroom's module loaded first where
// the page needs it from the start (a student's page, a tab that presents
// a class), with its stand-in otherwise.
export async function start(doc, root, storage) {
  // The author view (?author=1) shows each step's check against the lesson
  // file's expect, which a learner does not need (app.css).
  doc.body.classList.toggle("author-view", new URLSearchParams(location.search).get("author") === "1");
  const classroom = noClass.classAtStart(root.dataset, tabStorage()) ? await import("./classroom.js") : noClass;
  // Predict mode on from the start (?predict=1, or as the learner left
  // it) loads its module first; a page with it off does not load it.
  const predictOn = modeAtStart(new URLSearchParams(location.search), "predict", loadFlag(storage, PREDICT_MODE_KEY));
  const predict = predictOn ? await predictModule() : null;
  startPlayer(doc, root, storage, classroom, predict);
}
