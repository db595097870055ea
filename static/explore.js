// Explore mode on the player (package explore; protocol in web/doc.go):
// the fork menu's choices and its custom advance become fork messages, and
// Undo takes back the last step added.
//
// Undo's rules, kept in a plain object made by newUndo:
//   - a click while the socket is not open is dropped (the page connects
//     again), and the button stays on;
//   - a sent undo turns the button off until its answer, since a second
//     click would undo again, and at the fork point (the undo floor: a
//     fork keeps its lesson's steps) the server would refuse it;
//   - the answer, a frame with chrome, redraws the tools (the server turns
//     the new button off at the floor); a frame with chrome after a
//     reconnect (the undo was lost with the socket) brings the same tools,
//     left in place, so the button still in the page is turned on again;
//   - an error answering the undo (by its id) turns it on again, and gives
//     it back the keyboard focus it had.
// A keyboard user's focus stays in the panel when it is redrawn
// (refocusRule).

// newUndo returns undo with nothing on its way.
export function newUndo() {
  return { seq: 0, button: null, refocus: null };
}

// forkMessage continues the timeline after step at (the menu's step; the
// step shown when the choice is in no menu) with action.
export function forkMessage(at, step, action) {
  return { type: "fork", at: at === null ? step : at, action };
}

// menuStep is the step a fork menu element (data-at) continues after, or
// null for no menu.
export function menuStep(menu) {
  return menu ? Number(menu.dataset.at) : null;
}

// customAction is the action of the custom-advance form: {do, by_ms} for a
// whole number of ms of 1 or more, else null (the form reports it).
export function customAction(doValue, byValue) {
  const by = Number(byValue);
  if (!Number.isInteger(by) || by < 1) return null;
  return { do: doValue, by_ms: by };
}

// undoMessage numbers a new undo; its id finds its error again.
export function undoMessage(u) {
  u.seq++;
  return { type: "undo", id: u.seq };
}

// undoSent turns button off until the answer; focused says whether it had
// the keyboard focus, which the redrawn tools give back.
export function undoSent(u, button, focused) {
  u.refocus = focused ? '[data-explore="undo"]' : null;
  button.disabled = true;
  u.button = button;
}

// undoFailed handles an error message answering re: the button of that
// undo is on again. It returns the button to focus, or null.
export function undoFailed(u, re) {
  if (!u.button || re !== u.seq) return null;
  const b = u.button;
  b.disabled = false;
  const focus = u.refocus ? b : null;
  u.button = null;
  u.refocus = null;
  return focus;
}

// undoAnswered handles a frame with chrome, after its panels are in: a
// button still in the page (the same tools) is on again; a redrawn one is
// as the server drew it.
export function undoAnswered(u) {
  if (u.button && u.button.isConnected) u.button.disabled = false;
  u.button = null;
  u.refocus = null;
}

// refocusRule is the selector of the element to focus after a panel is
// redrawn, or null. active describes the focused element inside the panel
// ({id, explore, forkChoice}) or is null. A focused element with an id is
// found by it (not here); a button without one by what it does (undo, a
// fork choice). With nothing focused (the undo button turned itself off),
// an undo's refocus applies once when the new panel has the button
// (hasInPanel(sel)) and nothing else took the focus (nothingFocused).
export function refocusRule(u, active, hasInPanel, nothingFocused) {
  if (active) {
    if (active.id) return null;
    if (active.explore) return `[data-explore="${active.explore}"]`;
    if (active.forkChoice) return ".fork-choice";
    return null;
  }
  if (u.refocus && hasInPanel(u.refocus) && nothingFocused) {
    const sel = u.refocus;
    u.refocus = null;
    return sel;
  }
  return null;
}

// copyLink copies href to the clipboard, where the page may (a secure
// context), and reports the result with done(ok).
export function copyLink(nav, secure, href, done) {
  if (nav.clipboard && secure) nav.clipboard.writeText(href).then(() => done(true), () => done(false));
  else done(false);
}
