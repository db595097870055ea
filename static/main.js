// Lockstep's entry module, the one script every page names: it loads the
// modules of what the page has and no others (issue 34), each by its
// pinned URL (package static pins the import() specifiers as it pins
// static imports): the player (app.js, with its modules) where the page
// has #player, the course's progress on the course, interview mode on
// its pages, the lock builder (lockform.js) on the lock page and the
// Search page's module (search.js) on it, and the live page's (livepage.js) on /live. A page with none of them (a
// 404) loads nothing more.

// pageStorage is localStorage, or null where reading it throws (storage
// disabled); the helpers of text.js treat null as empty.
function pageStorage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

const storage = pageStorage();
const byID = (id) => document.getElementById(id);
const player = byID("player");
if (player) import("./app.js").then((m) => m.start(document, player, storage));
const course = byID("course");
if (course) import("./course.js").then((m) => m.showCourseProgress(document, course, storage, location.href));
const interview = byID("interview");
if (interview) import("./interview.js").then((m) => m.startInterview(document, interview, storage));
const sixty = byID("sixty");
if (sixty) import("./interview.js").then((m) => m.startTimer(sixty, () => Date.now(), window));
if (document.querySelector("[data-lock-builder]"))
  import("./lockform.js").then((m) => {
    m.startLockBuilder(document);
    m.startLockPage(document);
  });
const live = document.querySelector("main#live"); // the player has a #live region of its own (aria-live)
if (live) import("./livepage.js").then((m) => m.startLive(document, live));
const search = byID("search");
if (search) {
  Promise.all([import("./search.js"), import("./socket.js")]).then(([s, socket]) =>
    s.startSearch(document, search, {
      WebSocket,
      url: socket.socketURL(location),
      setTimeout: (f, ms) => setTimeout(f, ms),
      clearTimeout: (id) => clearTimeout(id),
      random: Math.random,
    }),
  );
}

// On a phone the site's navigation is one line scrolled sideways (app.css):
// the current page's link is scrolled into it (on /join it was past the
// screen's edge).
const here = document.querySelector("header.site > .site-nav [aria-current='page']");
if (here) {
  const nav = here.parentElement;
  const a = here.getBoundingClientRect();
  const n = nav.getBoundingClientRect();
  if (a.right > n.right || a.left < n.left) nav.scrollLeft += a.left - n.left - (n.width - a.width) / 2;
}
