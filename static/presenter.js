// Presenter mode's layout: where the timeline goes and what gives way so
// that the narration, the keys and the command show whole on a projected
// screen (presenter.css). A module of its own, loaded with presenter.css
// when the mode is switched on, so that a page out of the mode does not
// load it (issue 34: a lesson player's first load within 60 KB).

// placeTimeline places presenter mode's timeline (on, presenter.css): where
// its drawing at its own size (lane text 11-13 px) would take more than 45%
// of the screen's height (the board's is about 90%), or the Redis keys show
// a section per node (their cards want the height), it sets the board's
// data-tl to "side" ("beside" on a small projected screen, compactScreen:
// there the lanes keep the left at full height and the narration, the keys
// and the command share a column at the right): the timeline takes the board's left side at full
// height; there, where the drawing takes at most 55% of the screen, it
// also sets data-under: the narration goes under the timeline, whose card
// is then only as tall as its drawing. Else, and off
// presenter mode, it clears them (the timeline across the bottom). Across
// the bottom, a drawing shorter than lanesShare of the screen is drawn
// larger (data-tl-zoom, --tl-zoom). It returns whether the timeline moved
// or its zoom changed (its window of steps is then to scroll again).
export function placeTimeline(doc, on) {
  const board = doc.querySelector(".board");
  const svg = board?.querySelector('[data-panel="timeline"] .tl-body');
  if (!board || !svg) return false;
  // the drawing's zoom without the one set below (presenter.css's, 1.3 on
  // a large screen)
  const zoomWas = board.style?.getPropertyValue?.("--tl-zoom") || "";
  delete board.dataset.tlZoom;
  board.style?.removeProperty("--tl-zoom");
  const zoom = Number.parseFloat(doc.defaultView?.getComputedStyle(svg).zoom) || 1;
  const drawn = (Number(svg.getAttribute("height")) || 0) * zoom;
  const screen = doc.defaultView?.innerHeight || Infinity;
  // on a small projected screen (compactScreen) a tall drawing goes
  // "beside" instead: the lanes at the left at full height, the cards in
  // a column at the right (presenter.css's compact layout)
  const tall = on && (drawn > 0.45 * screen || !!board.querySelector(".node-keys"));
  const compact = isCompact(doc);
  const side = tall && !compact;
  const beside = tall && compact;
  // across the bottom, lanes drawn shorter than lanesShare of the screen
  // (a lesson of one or two actors: 27% of 1024 x 768, a fresh review of
  // issue 38) are drawn larger, to that share, by at most maxGrow
  const grow = on && !tall && drawn > 0 && Number.isFinite(screen) ? Math.min(maxGrow, (lanesShare * screen) / drawn) : 1;
  if (grow > 1.01) {
    board.dataset.tlZoom = "";
    board.style?.setProperty("--tl-zoom", String(Math.round(zoom * grow * 1000) / 1000));
  }
  // the timeline's column at the side is never narrower than its lane
  // names and a window of three steps (a fresh review of issue 38: with a
  // long narration the lanes showed one step's column): presenter.css
  // takes --tl-min as the column's least width
  const minW = tall ? timelineMinWidth(doc, board, zoom) : 0;
  if (minW > 0) board.style?.setProperty("--tl-min", `${Math.ceil(minW)}px`);
  else board.style?.removeProperty("--tl-min");
  // at the side, a drawing of at most 55% of the screen (four lanes,
  // Redlock's nodes) leaves the narration the column's width under it
  const under = side && drawn <= 0.55 * screen;
  if (under) board.dataset.under = "";
  else delete board.dataset.under;
  const zoomed = zoomWas !== (board.style?.getPropertyValue?.("--tl-zoom") || "");
  const tl = side ? "side" : beside ? "beside" : undefined;
  if (tl === board.dataset.tl) return zoomed;
  if (tl) board.dataset.tl = tl;
  else delete board.dataset.tl;
  return true;
}

// compactScreen is the media query of a small projected screen
// (presenter.css's compact layout: a 1080p projector at 200% zoom is 960 x
// 540 CSS px, 1280 x 800 at 150% 853 x 533; issue 38): the lanes full
// width across the top, the narration, the keys and the command in
// scrolling cards under them, the diagram's card gone. Out of it a
// narrower or portrait screen (a phone) keeps the desk's column.
export const compactScreen = "(max-width: 960px) and (min-width: 720px) and (min-height: 480px) and (orientation: landscape)";

// isCompact reports whether doc's window matches compactScreen (false
// where it cannot tell).
export function isCompact(doc) {
  return !!doc.defaultView?.matchMedia?.(compactScreen)?.matches;
}

// lanesShare is the least share of the screen's height presenter mode's
// lanes are drawn across (issue 38: at least 35%), and maxGrow how much
// larger than its own size placeTimeline draws a short drawing for it.
const lanesShare = 0.36;
const maxGrow = 1.8;

// windowSteps is how many steps' columns the lanes at the side show at
// the least (issue 38: a readable window of steps).
const windowSteps = 3;

// timelineMinWidth is the width (CSS px) of the timeline's card that
// shows its lane names and windowSteps columns of steps at the drawing's
// zoom: the names' drawing, the columns (the drawing's data-col-w), the
// window's 2 px past the last column, the card's padding and 4 px for a
// column's edge at the window's; 0 when the
// drawing is not there.
export function timelineMinWidth(doc, board, zoom = 1) {
  const tl = board.querySelector('[data-panel="timeline"] .tl');
  const labels = board.querySelector('[data-panel="timeline"] .tl-labels');
  const card = board.querySelector('[data-panel="timeline"]');
  const colW = Number(tl?.dataset?.colW) || 0;
  if (!colW) return 0;
  const names = Number(labels?.getAttribute("width")) || 0;
  const cs = card ? doc.defaultView?.getComputedStyle(card) : null;
  const pad = (Number.parseFloat(cs?.paddingLeft) || 0) + (Number.parseFloat(cs?.paddingRight) || 0)
    + (Number.parseFloat(cs?.borderLeftWidth) || 0) + (Number.parseFloat(cs?.borderRightWidth) || 0);
  return (names + windowSteps * colW) * zoom + 2 + pad + 4;
}

// roomStates are the layouts makeRoom tries, in order, for a board with
// its timeline at the side (side) or across the bottom: each sets the
// board's data-under (the narration under a side timeline) and data-room
// (presenter.css: what gives way to the narration, more at each level).
const roomStates = {
  // under: the narration across the board's width under the drawing
  // (1), then with the lanes' column at its least and the diagram's card
  // gone (2); then in the right column, its row first, the column wider at
  // each level (the lanes at least three steps wide, --tl-min); (8) as 4
  // with the diagram's card gone; (9, 10) the diagram's card gone too,
  // the timeline only as tall as its drawing, and the keys (9), or the
  // keys and the command (10), in a strip under it and the narration
  side: [[null, "1"], [null, "2"], [false, "1"], [false, "2"], [false, "3"], [false, "4"], [false, "8"], [false, "9"], [false, "10"]],
  // then, where none of those shows the cards whole even at tight type,
  // the lanes' window narrower than three steps: (6) as 4 with the right
  // column wider than the window leaves; (7) as 6 with the other cards'
  // rows lower; (11, 12) as 9 and 10 with the right column as wide as at 6
  sideNarrow: [[false, "6"], [false, "7"], [false, "11"], [false, "12"]],
  // the diagram in words and the narration's column wider, then the
  // narration two columns wide, then wider still; then, for many keys,
  // the keys' column wider (4) and wider than the narration's (5); last,
  // as 4 and as 2 with the diagram's card gone (6, 7)
  bottom: [[null, "1"], [null, "2"], [null, "3"], [null, "4"], [null, "5"], [null, "6"], [null, "7"]],
};

// makeRoom keeps presenter mode's narration whole on the screen (a fresh
// review of issue 38: on 65 of 826 steps at 1024 x 768 and 1280 x 800 only
// its "▼" cue showed), and the Redis keys, the state in words and the
// command too: after
// placeTimeline, while the narration's words (or the keys) go on below
// their card's edge, it tries the next of roomStates, and keeps the
// first where they fit (else the one that hides the least). Off presenter mode (on false) it
// clears data-room. It returns the level kept ("" for none).
export function makeRoom(doc, on) {
  const board = doc.querySelector(".board");
  const narr = board?.querySelector(".narration");
  if (!board || !narr) return "";
  delete board.dataset.room;
  delete board.dataset.tight;
  // the narration, the keys (on independent nodes each node's rows were
  // cut by up to 211 px, redlock-node-clock-jump; a replica's and the
  // fencing lessons' keys and PTTLs by up to 240 px) and the command (a
  // Redlock step's calls on every node, a BUSY reply): what each hides
  // under its card's edge or past its right one
  const keys = board.querySelector('[data-panel="redis"]');
  const command = board.querySelector('[data-panel="command"]');
  // the state in words too (its row cut 5-19 px of it, a fresh review of
  // issue 38)
  const diagram = board.querySelector('[data-panel="diagram"]');
  const hidden = (el) => (el ? Math.max(0, el.scrollHeight - el.clientHeight - 1) + Math.max(0, (el.scrollWidth ?? 0) - (el.clientWidth ?? 0) - 1) : 0);
  const cut = () => hidden(narr) + hidden(keys) + hidden(command) + hidden(diagram);
  // measured without the "▼" cue (markMore sets it again after): its own
  // height hid 7 px of idempotent-unlock step 8's narration at every level
  for (const el of [narr, keys, command, diagram]) if (el?.dataset) delete el.dataset.more;
  // the compact layout has no levels: its cards scroll, with the cue
  if (!on || isCompact(doc) || cut() === 0) return "";
  const placedUnder = "under" in board.dataset;
  const set = (u, room) => {
    if (u) board.dataset.under = "";
    else delete board.dataset.under;
    board.dataset.room = room;
  };
  let best = null;
  // the levels at the cards' own type first, then tight (data-tight,
  // presenter.css: the narration at its 14 px floor, the rows of the keys,
  // the calls and the banners closer); at the side the lanes' window of
  // three steps is kept at tight type before it narrows (sideNarrow)
  const side = board.dataset.tl === "side";
  const passes = side ? [["side", false], ["side", true], ["sideNarrow", false], ["sideNarrow", true]] : [["bottom", false], ["bottom", true]];
  for (const [states, tight] of passes) {
    if (tight) board.dataset.tight = "";
    else delete board.dataset.tight;
    for (const [under, room] of roomStates[states]) {
      if (under === null && !placedUnder && side) continue;
      const u = under === null ? placedUnder : under;
      set(u, room);
      const c = cut();
      if (c === 0) return room;
      // the narration's words first, then the keys' and the command's
      const n = hidden(narr);
      if (!best || n < best.n || (n === best.n && c < best.c)) best = { u, room, c, n, tight };
    }
  }
  // nowhere whole: the state that hides the least
  if (!best.tight) delete board.dataset.tight;
  set(best.u, best.room);
  return best.room;
}
