// The player's address: every frame says which URL shows it (the step, the
// language, a shared timeline's code), and the page keeps the address bar
// and its own record of it together, so that Back and Forward do what a
// learner expects:
//   - a fork leaves a lesson (or a drill) for /explore: a history entry of
//     its own, so Back returns to the lesson at the step forked from and
//     Forward to the fork;
//   - every other frame replaces the entry: stepping makes no history;
//   - Back or Forward to another path (the lesson, the fork) loads that
//     page; on the same path (Back over the skip link's #fragment) nothing
//     is loaded and the address is set again to the step shown.
//
// An address is a plain object made by newAddress; the History and
// Location it works on are passed in.

// newAddress records the page's own address until a frame sets one: Back
// over the skip link before any frame must not reload the page.
export function newAddress(loc) {
  return { shownPath: loc.pathname, shownURL: loc.pathname + loc.search };
}

// setAddress shows URL u in the address bar, as a new history entry when
// push is set, and records it as the address of the step shown.
export function setAddress(a, hist, u, push) {
  const path = u.pathname + u.search;
  if (push) hist.pushState(null, "", path);
  else hist.replaceState(null, "", path);
  a.shownPath = u.pathname;
  a.shownURL = path;
}

// frameAddress is the URL for a frame's url (relative to base) with the
// page's modes kept in it: present, predict and retry when on, and, while
// a deep link's step could not run on Redis (redisFail.fromLoad), that
// step, so that a reload keeps asking for it.
export function frameAddress(url, base, modes) {
  const u = new URL(url, base);
  if (modes.presenter) u.searchParams.set("present", "1");
  if (modes.predict) u.searchParams.set("predict", "1");
  if (modes.retry) u.searchParams.set("retry", "1");
  const f = modes.redisFail;
  if (f && f.fromLoad && f.target > modes.step) u.searchParams.set("step", String(f.target));
  return u;
}

// isForkEntry reports whether showing u from a page at path currentPath
// leaves a lesson for an explore timeline, the one case of a new entry.
export function isForkEntry(u, currentPath) {
  return u.pathname === "/explore" && currentPath !== "/explore";
}

// popAction says what a popstate at loc means: "reload" when the entry is
// another page's (a fork's lesson, or the fork), "restore" when it is the
// page's own path (a #fragment), "none" when nothing was shown yet.
export function popAction(a, loc) {
  if (loc.pathname !== a.shownPath) return "reload";
  return a.shownURL ? "restore" : "none";
}

// onPopState carries out popAction: reload() for another page, the address
// of the step shown set again for the same one.
export function onPopState(a, hist, loc, reload) {
  const act = popAction(a, loc);
  if (act === "reload") reload();
  else if (act === "restore") hist.replaceState(null, "", a.shownURL);
}

// withMode is href with the mode's query parameter: name=1 when on, else
// removed together with the parameters in alsoOff (predict off ends a
// retry of misses too).
export function withMode(href, name, on, alsoOff = []) {
  const u = new URL(href);
  if (on) u.searchParams.set(name, "1");
  else for (const n of [name, ...alsoOff]) u.searchParams.delete(n);
  return u;
}

// modeAtStart reads a mode at page load: the query parameter when given
// (name=1 on, anything else off), else what the learner chose last
// (stored "1").
export function modeAtStart(params, name, stored) {
  return params.get(name) === "1" || (!params.has(name) && stored === "1");
}
