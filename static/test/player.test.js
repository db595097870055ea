import { test } from "node:test";
import assert from "node:assert/strict";
import * as player from "../player.js";
import * as presenter from "../presenter.js";

const key = (k, more = {}) => player.keyAction({ key: k, tag: "BODY", ...more });

test("keys: arrows and page keys step, Space and . play, Home/End, P", () => {
  assert.equal(key("ArrowRight"), "step");
  assert.equal(key("PageDown"), "step");
  assert.equal(key("ArrowLeft"), "back");
  assert.equal(key("PageUp"), "back");
  assert.equal(key(" "), "play");
  assert.equal(key("."), "play");
  assert.equal(key("Home"), "start");
  assert.equal(key("End"), "end");
  assert.equal(key("p"), "presenter");
  assert.equal(key("P"), "presenter");
  assert.equal(key("1"), null, "may answer a prediction");
  assert.equal(key("x"), null);
});

test("keys the player leaves alone", () => {
  for (const mod of ["ctrlKey", "metaKey", "altKey", "isComposing"]) assert.equal(key("ArrowRight", { [mod]: true }), "", mod);
  for (const tag of ["INPUT", "SELECT", "TEXTAREA"]) assert.equal(key("ArrowRight", { tag }), "", tag);
  assert.equal(key("ArrowRight", { editable: true }), "");
  for (const tag of ["BUTTON", "A", "SUMMARY"]) {
    assert.equal(key(" ", { tag }), "", `Space presses the focused ${tag}`);
    assert.equal(key("ArrowRight", { tag }), "step");
  }
});

test("actionMessage: the protocol message of each player action", () => {
  assert.deepEqual(player.actionMessage("step", 3, 9, false, 1), { type: "step" });
  assert.deepEqual(player.actionMessage("back", 3, 9, false, 1), { type: "back" });
  assert.deepEqual(player.actionMessage("start", 3, 9, false, 1), { type: "seek", step: 0 });
  assert.deepEqual(player.actionMessage("end", 3, 9, false, 1), { type: "seek", step: 9 });
  assert.deepEqual(player.actionMessage("play", 3, 9, false, 2), { type: "play", speed: 2 });
  assert.deepEqual(player.actionMessage("play", 3, 9, true, 2), { type: "pause" });
  assert.equal(player.actionMessage("presenter", 3, 9, false, 1), null);
});

test("nextTarget: the step each message asks for", () => {
  const last = { step: 2, load: false };
  assert.deepEqual(player.nextTarget({ type: "step" }, 4, last), { step: 5, load: false });
  assert.deepEqual(player.nextTarget({ type: "seek", step: 7 }, 4, last), { step: 7, load: false });
  assert.deepEqual(player.nextTarget({ type: "load", lesson: "x", step: 9 }, 4, last), { step: 9, load: true });
  assert.equal(player.nextTarget({ type: "play", speed: 1 }, 4, last), null);
  for (const type of ["back", "pause", "lang", "fork", "undo"]) assert.equal(player.nextTarget({ type }, 4, last), last, type);
});

test("a step Redis did not answer: kept until a step runs", () => {
  // → at step 4: the error, then the frame of the step the run stays at.
  let f = player.failFromError({ step: 5, load: false }, "dial tcp: refused");
  assert.deepEqual(f, { message: "dial tcp: refused", target: 5, computed: null, fromLoad: false, code: "redis" });
  f = player.failAfterFrame(f, { step: 4, computed: 4 });
  assert.deepEqual(f, { message: "dial tcp: refused", target: 5, computed: 4, fromLoad: false, code: "redis" });
  assert.equal(player.retryStep(f, 4), 5);
  // Back and a language change serve computed frames: still failing.
  f = player.failAfterFrame(f, { step: 3, computed: 4 });
  assert.notEqual(f, null);
  f = player.failAfterFrame(f, { step: 3, computed: 4 });
  assert.notEqual(f, null);
  // Try again ran the step.
  assert.equal(player.failAfterFrame(f, { step: 5, computed: 5 }), null);
});

test("a step refused before it ran, or failed by the learner's script, is told from Redis not answering", () => {
  for (const code of ["step-too-large", "redis-acl", "script-error"]) {
    assert.equal(player.isRefusal(code), true, code);
    const f = player.failAfterFrame(player.failFromError({ step: 2, load: false }, "Step 2 was not run: …", code), { step: 1, computed: 1 });
    assert.equal(f.code, code);
    assert.equal(f.target, 2);
    assert.notEqual(player.failAfterFrame(f, { step: 0, computed: 1 }), null, "kept while browsing back");
  }
  for (const code of ["redis", "busy", "bad-step", undefined]) assert.equal(player.isRefusal(code), false, String(code));
});

test("a deep link Redis could not run keeps its step", () => {
  let f = player.failFromError({ step: 7, load: true }, "timeout");
  assert.equal(f.fromLoad, true);
  f = player.failAfterFrame(f, { step: 3, computed: 3 }); // the run got to 3
  assert.equal(f.target, 7);
  assert.equal(player.retryStep(f, 3), 7);
  assert.equal(player.failAfterFrame(f, { step: 7, computed: 3 }), null, "reached the step wanted");
});

test("a failure whose step is not known asks for the one after the run's place", () => {
  let f = player.failFromError(null, "timeout"); // during play
  assert.equal(f.target, null);
  assert.equal(player.retryStep(f, 6), 7);
  f = player.failAfterFrame(f, { step: 6, computed: 6 });
  assert.equal(f.target, 7);
  // A target at or before the run's place means the next step.
  const g = player.failAfterFrame(player.failFromError({ step: 2 }, "x"), { step: 4, computed: 4 });
  assert.equal(g.target, 5);
  assert.equal(player.failAfterFrame(null, { step: 1, computed: 1 }), null);
});

test("only a step forward counts toward progress", () => {
  assert.equal(player.isStepForward({ step: 4 }, 3), true);
  assert.equal(player.isStepForward({ step: 4, chrome: {} }, 3), false, "a load at a step");
  assert.equal(player.isStepForward({ step: 9 }, 3), false, "End");
  assert.equal(player.isStepForward({ step: 2 }, 3), false, "back");
});

test("newView reads the player's data attributes", () => {
  const v = player.newView({ lesson: "stale-owner", step: "4", total: "11", lang: "zh-CN" });
  assert.equal(v.lesson, "stale-owner");
  assert.equal(v.timeline, "");
  assert.equal(v.step, 4);
  assert.equal(v.total, 11);
  assert.equal(v.lang, "zh-CN");
  assert.equal(v.redisFail, null);
  assert.ok(v.shown instanceof Map);
  const w = player.newView({ lesson: "explore", timeline: "1.eNp", step: "x" });
  assert.equal(w.timeline, "1.eNp");
  assert.equal(w.step, 0);
  assert.equal(w.total, 0);
});

// A panel whose content grows with its --fit scale: 500 px tall at full
// size in a 400 px box.
function fakePanel(full, box) {
  const props = new Map();
  return {
    style: {
      setProperty: (k, val) => props.set(k, val),
      removeProperty: (k) => props.delete(k),
      get fit() { return props.get("--fit"); },
    },
    get scrollHeight() { return Math.round(full * Number(props.get("--fit") ?? 1)); },
    clientHeight: box,
  };
}

test("fitPanel lowers the scale until the content fits, and only in presenter mode", () => {
  const p = fakePanel(500, 400);
  assert.equal(player.fitPanel(p, true), 0.8);
  assert.equal(p.style.fit, "0.8");
  assert.equal(player.fitPanel(p, false), 1);
  assert.equal(p.style.fit, undefined);
  const fits = fakePanel(300, 400);
  assert.equal(player.fitPanel(fits, true), 1);
  assert.equal(fits.style.fit, undefined);
  const huge = fakePanel(2000, 400);
  assert.equal(player.fitPanel(huge, true), 0.7, "never below min");
  assert.equal(player.fitPanel(null, true), 1);
});

// fakeBoard is a document of a board whose timeline's drawing is height
// units tall, on a screen innerHeight px tall, with node sections or not.
function fakeBoard(height, innerHeight, nodes = false) {
  const svg = { getAttribute: (a) => (a === "height" ? String(height) : null) };
  const board = {
    dataset: {},
    querySelector: (sel) => (sel.includes(".tl-body") ? svg : sel === ".node-keys" && nodes ? {} : null),
  };
  return {
    board,
    defaultView: { innerHeight, getComputedStyle: () => ({ zoom: "1" }) },
    querySelector: (sel) => (sel === ".board" ? board : null),
  };
}

test("placeTimeline on a small projected screen puts a tall timeline beside, never at the side", () => {
  const small = (height, nodes = false) => {
    const doc = fakeBoard(height, 540, nodes);
    doc.defaultView.matchMedia = (q) => ({ matches: q === presenter.compactScreen });
    return doc;
  };
  const tall = small(298);
  assert.equal(presenter.placeTimeline(tall, true), true, "three lanes of 540 px (55%) go beside");
  assert.equal(tall.board.dataset.tl, "beside");
  assert.ok(!("under" in tall.board.dataset), "no narration under it: the cards take the right column");
  const short = small(180);
  presenter.placeTimeline(short, true);
  assert.equal(short.board.dataset.tl, undefined, "a short drawing stays across the board");
  const nodes = small(200, true);
  presenter.placeTimeline(nodes, true);
  assert.equal(nodes.board.dataset.tl, "beside");
  assert.equal(presenter.placeTimeline(nodes, false), true, "off presenter mode it is cleared");
  assert.equal(nodes.board.dataset.tl, undefined);
});

test("placeTimeline puts a tall timeline or a lesson on nodes at the side, only in presenter mode", () => {
  const short = fakeBoard(298, 768);
  assert.equal(presenter.placeTimeline(short, true), false, "three lanes stay across the bottom");
  assert.equal(short.board.dataset.tl, undefined);
  const tall = fakeBoard(386, 768);
  assert.equal(presenter.placeTimeline(tall, true), true, "four lanes go to the side");
  assert.equal(tall.board.dataset.tl, "side");
  assert.equal(presenter.placeTimeline(tall, true), false, "no change, no move");
  assert.equal(presenter.placeTimeline(tall, false), true, "off presenter mode it is cleared");
  assert.equal(tall.board.dataset.tl, undefined);
  assert.ok(!("under" in tall.board.dataset), "off presenter mode the narration is back");
  const four = fakeBoard(386, 768);
  presenter.placeTimeline(four, true);
  assert.ok("under" in four.board.dataset, "a drawing of at most 55% of the screen: the narration under it");
  const five = fakeBoard(474, 768);
  presenter.placeTimeline(five, true);
  assert.equal(five.board.dataset.tl, "side");
  assert.ok(!("under" in five.board.dataset), "taller: the narration in the right column");
  const nodes = fakeBoard(298, 768, true);
  presenter.placeTimeline(nodes, true);
  assert.equal(nodes.board.dataset.tl, "side");
  assert.ok("under" in nodes.board.dataset);
  assert.equal(presenter.placeTimeline({ querySelector: () => null }, true), false);
});

test("applyEdit keeps, drops and inserts in UTF-16 units, and refuses an edit for other HTML", () => {
  const old = '<p class="a">锁 1 held</p>';
  // keep 13 (up to "锁 "), drop "1", insert "2", keep the rest
  const e = { len: old.length, ops: [15, -1, "2"] };
  assert.equal(player.applyEdit(old, e), '<p class="a">锁 2 held</p>');
  assert.equal(player.applyEdit(old, { len: old.length, ops: [] }), old);
  assert.equal(player.applyEdit(old, { len: old.length, ops: [-old.length, "x"] }), "x");
  assert.equal(player.applyEdit(old + " ", e), null);
  assert.equal(player.applyEdit(undefined, e), null);
  assert.equal(player.applyEdit(old, { len: old.length, ops: [old.length + 1] }), null);
  const astral = "a😀b";
  assert.equal(player.applyEdit(astral, { len: 4, ops: [1, -2, "c"] }), "acb");
});

test("applyEdit copies from the old HTML and from what it built, never past either", () => {
  const old = "<b>锁 held</b>";
  // copy "锁 held" from old (3..8), then the first 3 built ("<i>") again
  const e = { len: old.length, ops: [-old.length, "<i>", [3, 6], [old.length, 3]] };
  assert.equal(player.applyEdit(old, e), "<i>锁 held<i>");
  assert.equal(player.applyEdit(old, { len: old.length, ops: [[old.length - 2, 3]] }), null); // straddles
  assert.equal(player.applyEdit(old, { len: old.length, ops: [[old.length, 1]] }), null); // not built yet
  assert.equal(player.applyEdit(old, { len: old.length, ops: [[-1, 1]] }), null);
});

// fakeHead is a document with a head of stylesheet links, enough for
// linkStylesheet: each link loads when its load() is called.
function fakeHead(hrefs = []) {
  const makeLink = () => {
    const l = {
      rel: "",
      href: "",
      sheet: null,
      listeners: [],
      getAttribute: (k) => (k === "href" ? l.href : null),
      addEventListener: (type, f) => type === "load" && l.listeners.push(f),
      load: () => {
        l.sheet = {};
        for (const f of l.listeners.splice(0)) f();
      },
    };
    return l;
  };
  const links = hrefs.map((h) => Object.assign(makeLink(), { rel: "stylesheet", href: h, sheet: {} }));
  return {
    links,
    head: { append: (l) => links.push(l) },
    createElement: (tag) => (tag === "link" ? makeLink() : null),
    querySelectorAll: (sel) => (sel === 'link[rel="stylesheet"]' ? links.filter((l) => l.rel === "stylesheet") : []),
  };
}

test("linkStylesheet links a stylesheet once and calls back when it has loaded", () => {
  const doc = fakeHead(["/static/app.css?v=1"]);
  let laidOut = 0;
  player.linkStylesheet(doc, "/static/presenter.css?v=2", () => laidOut++);
  assert.deepEqual(doc.links.map((l) => l.href), ["/static/app.css?v=1", "/static/presenter.css?v=2"]);
  assert.equal(laidOut, 0, "not before it has loaded");
  player.linkStylesheet(doc, "/static/presenter.css?v=2", () => laidOut++); // switched on again while it loads
  assert.equal(doc.links.length, 2);
  doc.links[1].load();
  assert.equal(laidOut, 2);
  player.linkStylesheet(doc, "/static/presenter.css?v=2", () => laidOut++); // loaded: it applies already
  assert.equal(doc.links.length, 2);
  assert.equal(laidOut, 2);
  player.linkStylesheet(doc, "", () => laidOut++);
  assert.equal(doc.links.length, 2);
});

test("linkStylesheet leaves a stylesheet the page links already", () => {
  const doc = fakeHead(["/static/app.css?v=1", "/static/presenter.css?v=2"]);
  let laidOut = 0;
  player.linkStylesheet(doc, "/static/presenter.css?v=2", () => laidOut++);
  assert.equal(doc.links.length, 2);
  assert.equal(laidOut, 0);
});

test("markMore marks a card whose content goes on under its edge, until scrolled to its end, only in presenter mode", () => {
  const card = (scrollHeight, clientHeight, scrollTop = 0) => ({ dataset: {}, scrollHeight, clientHeight, scrollTop });
  const long = card(600, 300);
  assert.equal(player.markMore(long, true), true);
  assert.ok("more" in long.dataset);
  long.scrollTop = 300;
  assert.equal(player.markMore(long, true), false, "scrolled to its end");
  assert.ok(!("more" in long.dataset));
  long.scrollTop = 0;
  player.markMore(long, true);
  assert.equal(player.markMore(long, false), false, "off presenter mode");
  assert.ok(!("more" in long.dataset));
  const fits = card(300, 300);
  assert.equal(player.markMore(fits, true), false);
  assert.ok(!("more" in fits.dataset));
  assert.equal(player.markMore(null, true), false);
  // the cue's own 14 px is not more to show: a card that fits without it
  // loses it (it kept itself set, idempotent-unlock step 8)
  const cued = { dataset: { more: "" }, clientHeight: 300, scrollTop: 0, get scrollHeight() { return 293 + ("more" in this.dataset ? 14 : 0); } };
  assert.equal(player.markMore(cued, true), false);
  assert.ok(!("more" in cued.dataset));
});

test("markMore puts a card that scrolls in the Tab order while it does, and gives it back its own tabindex", () => {
  const attrs = new Map([["tabindex", "-1"]]);
  const el = {
    dataset: {}, scrollHeight: 600, clientHeight: 300, scrollTop: 0,
    getAttribute: (a) => attrs.get(a) ?? null,
    setAttribute: (a, v) => attrs.set(a, v),
    removeAttribute: (a) => attrs.delete(a),
  };
  player.markMore(el, true);
  assert.equal(attrs.get("tabindex"), "0", "it scrolls: a keyboard reaches it");
  el.scrollHeight = 300;
  player.markMore(el, true);
  assert.equal(attrs.get("tabindex"), "-1", "whole: its own tabindex again");
  const plain = new Map();
  const card = { dataset: {}, scrollHeight: 600, clientHeight: 300, scrollTop: 0, getAttribute: (a) => plain.get(a) ?? null, setAttribute: (a, v) => plain.set(a, v), removeAttribute: (a) => plain.delete(a) };
  player.markMore(card, true);
  assert.equal(plain.get("tabindex"), "0");
  player.markMore(card, false);
  assert.ok(!plain.has("tabindex"), "off presenter mode: none");
});

test("placeTimeline draws short lanes across the bottom larger, to 36% of the screen", () => {
  const props = new Map();
  const b = fakeBoard(200, 768);
  b.board.style = { setProperty: (k, v) => props.set(k, v), removeProperty: (k) => props.delete(k), getPropertyValue: (k) => props.get(k) ?? "" };
  assert.equal(presenter.placeTimeline(b, true), true, "the zoom changed");
  assert.ok("tlZoom" in b.board.dataset);
  assert.equal(props.get("--tl-zoom"), String(Math.round((0.36 * 768 / 200) * 1000) / 1000));
  assert.equal(presenter.placeTimeline(b, true), false, "the same zoom again: no change");
  assert.equal(presenter.placeTimeline(b, false), true, "off presenter mode: cleared");
  assert.ok(!("tlZoom" in b.board.dataset));
  assert.ok(!props.has("--tl-zoom"));
});

// roomBoard is a document of a board (side or not, under or not) whose
// narration is need px tall and gets, at each room level, the box of
// boxes[level] px (level "" is index 0).
function roomBoard(side, under, need, boxes) {
  const board = { dataset: {} };
  if (side) board.dataset.tl = "side";
  if (under) board.dataset.under = "";
  const level = () => Number(board.dataset.room || 0) + ("under" in board.dataset ? 0 : 10 * Number(side && under));
  const narr = {
    get scrollHeight() { return need; },
    get clientHeight() { return boxes[level()] ?? 0; },
  };
  board.querySelector = (sel) => (sel === ".narration" ? narr : null);
  return { board, querySelector: (sel) => (sel === ".board" ? board : null) };
}

test("makeRoom gives way to the narration level by level, and only as far as it needs", () => {
  const fits = roomBoard(false, false, 200, [300]);
  assert.equal(presenter.makeRoom(fits, true), "", "it fits: nothing gives way");
  assert.equal(fits.board.dataset.room, undefined);
  const two = roomBoard(false, false, 400, [300, 350, 420, 500]);
  assert.equal(presenter.makeRoom(two, true), "2", "the first level where it fits");
  assert.equal(presenter.makeRoom(two, false), "", "off presenter mode: cleared");
  assert.equal(two.board.dataset.room, undefined);
  const never = roomBoard(false, false, 900, [300, 350, 420, 500]);
  assert.equal(presenter.makeRoom(never, true), "3", "nowhere: the last level");
  // a side timeline with the narration under it: first across the board
  // under the drawing (still under), then in the right column (not under)
  const under = roomBoard(true, true, 400, [190, 420]);
  assert.equal(presenter.makeRoom(under, true), "1");
  assert.ok("under" in under.board.dataset, "across the board, under the drawing");
  const right = roomBoard(true, true, 400, [190, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 390, 420]);
  assert.equal(presenter.makeRoom(right, true), "2");
  assert.ok(!("under" in right.board.dataset), "in the right column");
  assert.equal(presenter.makeRoom({ querySelector: () => null }, true), "");
});

test("timelineMinWidth is the lane names, three steps' columns and the card's padding, zoomed", () => {
  const tl = { dataset: { colW: "100" } };
  const labels = { getAttribute: (a) => (a === "width" ? "196" : null) };
  const card = {};
  const board = {
    querySelector: (sel) => (sel.endsWith(" .tl") ? tl : sel.endsWith(".tl-labels") ? labels : sel === '[data-panel="timeline"]' ? card : null),
  };
  const doc = { defaultView: { getComputedStyle: () => ({ paddingLeft: "11px", paddingRight: "11px", borderLeftWidth: "1px", borderRightWidth: "1px" }) } };
  assert.equal(presenter.timelineMinWidth(doc, board), 196 + 300 + 2 + 24 + 4);
  assert.equal(presenter.timelineMinWidth(doc, board, 1.3), (196 + 300) * 1.3 + 2 + 24 + 4);
  assert.equal(presenter.timelineMinWidth(doc, { querySelector: () => null }), 0, "no drawing: no least width");
});

test("makeRoom tries every level again at tight type where none fits, and keeps tight only then", () => {
  // the narration's box is 20 px taller at tight type (data-tight)
  const tightBoard = (need) => {
    const b = roomBoard(false, false, need, [300, 350, 380, 390]);
    const narr = b.board.querySelector(".narration");
    const box = Object.getOwnPropertyDescriptor(narr, "clientHeight").get;
    Object.defineProperty(narr, "clientHeight", { get: () => box() + ("tight" in b.board.dataset ? 20 : 0) });
    return b;
  };
  const tight = tightBoard(400);
  assert.equal(presenter.makeRoom(tight, true), "2", "the first level where it fits at tight type");
  assert.ok("tight" in tight.board.dataset);
  const own = tightBoard(380);
  assert.equal(presenter.makeRoom(own, true), "2", "it fits at its own type: no second pass");
  assert.ok(!("tight" in own.board.dataset));
  assert.equal(presenter.makeRoom(tight, false), "", "off presenter mode: cleared");
  assert.ok(!("tight" in tight.board.dataset));
  // at the side the lanes' window of three steps at tight type (9) comes
  // before a narrower window at the cards' own type (6)
  const side = roomBoard(true, false, 400, [300, 300, 300, 300, 300, 0, 400, 0, 300, 385]);
  const narr = side.board.querySelector(".narration");
  const box = Object.getOwnPropertyDescriptor(narr, "clientHeight").get;
  Object.defineProperty(narr, "clientHeight", { get: () => box() + ("tight" in side.board.dataset ? 20 : 0) });
  assert.equal(presenter.makeRoom(side, true), "9");
  assert.ok("tight" in side.board.dataset);
});
