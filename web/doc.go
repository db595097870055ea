// Package web serves Lockstep's browser player: the course page, one player
// page per lesson, the static files (package static) and a websocket that
// drives the lesson runs of package sim.
//
// # Pages
//
//	GET /                          the course, in order, with the learner's progress (localStorage)
//	GET /lessons/{id}?step=N&lang=L&present=1   the player, deep-linked to a step and a language
//	                               (an unknown id: a 404 page in the language, linking to the course)
//	GET /diagram.mmd?lang=L        seed 001's state diagram as Mermaid stateDiagram-v2 text
//	GET /interview?lang=L          seed 001's three follow-up questions: the learner's answer, our model answer, a timeline
//	GET /interview/60s?lang=L      the one-line and 60-second answers, a 60 s timer, the state diagram, the self-tests
//	GET /drills?lang=L             the drill levels (package drill)
//	GET /drills?level=V&seed=N     303 to the drill's player page, /lessons/drill-V-N?predict=1 (no seed: a fresh one)
//	GET /explore?lang=L            explore mode: start a sandbox, import a lesson file
//	GET /explore?t=CODE&step=N     the player of a shared timeline (a fork, a sandbox, an import); a bad code: 400, the explore page with the reason
//	GET /explore/new?variant=V&lease_ms=N&actors=N&lock=S&fencing=1&replica=1   303 to a new sandbox's player
//	POST /explore/import           a lesson file (multipart field file, or yaml for pasted text, up to 256 KiB): 303 to its player, or 422 with the loader's errors at FILE:LINE:COL and the text kept;
//	                               a body over 320 KiB, whatever its encoding, gets 413 naming the limit, and one not read within Config.BodyTimeout (20 s) 408
//	GET /explore/export.yaml|.mmd|.svg?t=CODE|lesson=ID&lang=L   the timeline as a lesson file, a Mermaid sequenceDiagram, an SVG of the lanes
//	GET /explore/compare?t=CODE|lesson=ID&a=V&b=V&k=LOCK   the timeline under two variants, the first step whose outcomes differ marked;
//	                               without a or b never a variant against itself; a column under another variant than the lesson's own
//	                               opens as a lesson under that variant (explore.Under: every step retold from the run once an outcome differs, marked);
//	                               k (a lock's code) adds the learner's own lock to the variants
//	GET /explore/lock?lang=L       "Your lock" (package ownlock): the form for a variant file and its scripts (and a builder, lockform.js)
//	POST /explore/lock             the files (multipart: variant_name, variant or variant_file, script_name_N with script_N, or
//	                               scripts uploads; 32 KiB the variant file, 64 KiB a script, 4 scripts): 303 to the lock's link,
//	                               or 422 with each problem beside its line (FILE:LINE:COL) and the files kept
//	GET /explore/lock?k=LOCK       the lock's link (LOCK: the share code of an empty sandbox under it, carrying its files): the
//	                               files and the course run on the lock as a table (30 s at most, one table per client address,
//	                               Config.MaxSearches at once; 503 when none is free)
//	GET /explore/lock/open?k=LOCK&lesson=ID[&to=compare]   303 to the lesson under the lock in the player (at the first step that
//	                               differs) or to Compare with the lesson's own variant
//	GET /search?lang=L&variant=V&actors=N&depth=N&lease_ms=N&fencing=0|1&moves=a,b&invariants=x,y&expiry=0|1&from=ID&lock=LOCK
//	                               the Search page (package searchpage): the form filled with the variant's
//	                               course search file (searches/), then with the parameters (a lesson's "find it
//	                               yourself" link; from names the lesson); the search runs over the websocket
//	GET /static/{file}?v=HASH      app.css, presenter.css, icon.svg, main.js and the ES modules it imports (package static:
//	                               embedded, each import pinned to its file's hash, cached for good, gzipped once at start)
//	GET /ws                        the websocket below
//	GET /healthz                   "ok"
//
// # Host names
//
// Against DNS rebinding, the server answers only the host names it was
// given (hosts.go): listening on loopback (-addr 127.0.0.1:8080, the
// default), localhost, 127.0.0.0/8 and [::1] with any port; on another
// address (serving a LAN, or every interface with :8080), also its own
// name and any IP address literal. Names listed in Config.AllowedHosts
// (-allowed-hosts, such as a reverse proxy's public name) are answered
// everywhere. Any other Host header, on a page or /ws, gets 421
// Misdirected Request and a page in the request's language that names the
// host and the flag.
//
// Timeouts: the CLI's http.Server reads a request's headers within 10 s
// and a whole request within 30 s (a websocket's handshake clears them);
// an import's body must arrive within Config.BodyTimeout.
//
// A drill is played like a lesson: its id ("drill-leases-42") names its
// level and seed, and the player page and the load message accept it. With
// predict=1 (remembered in localStorage) the player asks, before each step
// whose action has more than one outcome, which outcome it will come to,
// offering the outcomes of the page's data-predict-steps attribute; the
// answer sends the step, and the verdict compares the guess with the
// outcome of the frame the run produced. Scores, "retry my misses"
// (retry=1) and the interview page's answers live in localStorage only.
//
// Explore mode (package explore): below the timeline, every player shows
// the actions the timeline can take after the current step. Choosing one
// sends a fork message; the run becomes an explore timeline (the later
// steps dropped), its share code (explore.Encode: versioned, compressed,
// checksummed) goes into the page's URL, and the header links back to the
// lesson it came from. A fork's code leaves out the texts its lesson already
// holds (explore.Strip) and the server puts them back (explore.Restore), so
// links stay short; a code from another version of the lesson still runs
// exactly, without them. Steps a learner adds are narrated by
// explore.Narrate.
//
// The language comes from the lang parameter, else from Accept-Language
// (en, zh-CN, zh-TW; English when nothing matches). The parameter is read
// as Accept-Language is, in any case and with - or _: zh-tw, zh_TW and
// zh-hant are zh-TW; zh, zh-cn and zh-hans are zh-CN. Every page is rendered
// by the templ components of package templates from view models that
// package view builds from a run's frames (web only fetches the frames and
// the texts of the locale); the panels that change at each step are
// rendered by the same components and sent over the websocket, so
// rendering lives in one place. What a session runs is an explore.Timeline:
// its kind (course lesson, drill, fork, sandbox, import) decides the
// header, whether the page is pre-rendered and how far Undo goes. The
// lessons run on Config.Backend (RedisBackend for package backend; any
// sim.Store, such as sim/refmodel's, through the Backend interface), and a
// whole lesson runs through sim.RunFrames. The server's one cache keeps the
// frames of the course's lessons by id, for deep-linked pages and the
// interview pages, and the step drawings that sessions of a lesson's
// canonical run share, by locale and step (prerender.go; a session shares
// only while its frames equal the cached run's, and never its Redis panel
// on a real Redis; BenchmarkPlayerPageClass and BenchmarkClassSteps show
// what it saves). The page's
// script (static/main.js, which loads static/app.js and its modules on a
// player page) only swaps the fragments in. Answers of 1 KiB or more are
// compressed (httpcompress.go). A Content Security
// Policy keeps every request on the page's own origin, but for the
// websockets of Config.ClassPeers.
//
// # Websocket protocol
//
// Messages are JSON text messages, one object each, with a "type" field.
// permessage-deflate is agreed when the client offers it (browsers do), and
// the server compresses what it sends to peers that are not on loopback;
// over loopback it sends plain frames, since deflating costs time and saves
// nothing there (compressWrites), unless the request was forwarded by a
// reverse proxy (X-Forwarded-For or Forwarded set; nginx sets it with
// `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`).
//
// The server sends a hello as soon as the connection opens. Each connection
// has its own session: one lesson run on its own Store (its keys, on a real
// Redis, under its own prefix), deleted when the session ends or loads
// another lesson.
//
// Client messages ("id" is optional on every message; the replies echo it
// in "re", except a rate-limited error: a message over the rate limit is
// not decoded, so its id is not known):
//
//	{"type":"load","lesson":"stale-owner","step":4,"lang":"zh-CN"}  start a fresh run, go to step (default 0)
//	{"type":"step"}                  one step forward (runs it on Redis the first time)
//	{"type":"back"}                  one step back
//	{"type":"seek","step":7}         go to a step (0 or more; a step past the end goes to the end)
//	{"type":"play","speed":2}        play forward, one step per 1.5 s / speed (0.25 to 8); from the start when at the end
//	{"type":"pause"}                 stop playing
//	{"type":"lang","lang":"zh-TW"}   re-render everything in another language
//	{"type":"load","timeline":"1.eNp…","step":3}   start a run of a shared timeline instead of a lesson
//	{"type":"fork","at":4,"action":{"actor":"A","do":"resume"}}   continue after step at (default: the current one)
//	                                 with the action (explore.StepSpec: actor, do, lock, lease_ms, by_ms, value,
//	                                 child, context, reply_lost), dropping the later steps; answered with a frame
//	                                 of the new step, with chrome and the new timeline's code
//	{"type":"undo"}                  drop the last step added to an explore timeline (a fork's steps from
//	                                 its lesson stay: undo at the fork point is a bad-step error)
//	{"type":"search","id":1,"lang":"en","search":{"variant":"token-count","actors":3,"depth":6,"lease_ms":30000,
//	 "fencing":false,"moves":["acquire","pause"],"advance_ms":[31000],"invariants":["stale-write"]}}
//	                                 start a search (the Search page; SearchRequest): a shape on the variant's
//	                                 course search file, whose values fill what it leaves out (0 or null), or
//	                                 {"file":"<search file YAML>"}; checked by search.Validate, the validator of
//	                                 search files, so a bad one is a bad-search error naming each field;
//	                                 "lock":"<a lock's code>" runs the shape on the learner's own lock
//	                                 (token-count's search file fills what it leaves out)
//	{"type":"search-stop"}           stop the running search; its result (what it found so far) follows
//	{"type":"class-start"}  …        the class messages (class-start, -resume, -ask, -reveal, -end, -csv,
//	                                 -join, -answer, -follow) and their replies: docs/classroom.md
//
// An id is an integer (any other id makes the message a bad-json error). A
// step or at is any JSON number that is a whole number (7, 7.0, 1e9); a
// fraction (as far as a float64 tells one: 1e-400 is one,
// 0.99999999999999999 reads as 1, as in a page's JSON.parse) is a
// bad-field error. A load's or seek's step past the end means
// the end (as a page's ?step= does); a fork's at must be a step the run has
// reached. A play's speed of 0, like none, is the default 1.
// A lang is en, zh-CN or zh-TW, or a tag the lang query parameter also
// takes (any case, - or _, zh-Hant or zh-HK for zh-TW, zh or zh-Hans for
// zh-CN, en-US for en); frames name the locale by its own tag.
//
// Runners only go forward, and frames are deterministic, so back and seek
// serve the frames already computed and only a step past the last computed
// one runs on Redis: the same step always shows the same state. step, back
// and seek also pause play.
//
// Server messages:
//
//	{"type":"hello","protocol":1,"backend":{"embedded":true},"backend_text":"embedded Redis (miniredis)","max_message":65536}
//	{"type":"frame","re":3,"lesson":"stale-owner","step":4,"total":11,"computed":4,"playing":false,"speed":1,
//	 "lang":"en","title":"…","url":"/lessons/stale-owner?lang=en&step=4",
//	 "frame":{…sim.Frame…},
//	 "panels":{"narration":"<h2…","alerts":"…","diagram":"…","timeline":"…","redis":"…","command":"…","explore":"…","explore-tools":"…"},
//	 "chrome":{"header":"…","controls":"…"}}
//	{"type":"frame","re":4,"lesson":"stale-owner","step":5,…,"frame":{…},
//	 "panels":{"narration":"…","redis":"…","command":"…","explore":"…"},
//	 "timeline_patch":{"cur":5,"current_x":500,"cols":[{"col":5,"back":"<g class=\"col\"…","mid":"<path…","front":"<text…"}]}}
//	{"type":"state","re":5,"playing":true,"speed":2,"step":4,"total":11}
//	{"type":"error","re":6,"code":"unknown-type","message":"unknown message type \"jump\""}
//	{"type":"search-progress","re":1,"depth":3,"max_depth":6,"states":412,"transitions":1203,"broken":1,
//	 "elapsed_ms":210,"states_per_s":1961.9}
//	{"type":"search-result","re":1,"complete":true,"depth":6,"max_depth":6,"states":2100,"transitions":6400,
//	 "script_calls":2500,"elapsed_ms":1400,"states_per_s":1500,"summary":"Done: …",
//	 "rows":[{"invariant":"stale-write","broken":true,"steps":5,"verdict":"broken in 5 steps",
//	          "timeline":"A acquire → A pause → advance 31s → B acquire → B write B-1","url":"/explore?t=1.eNp…&step=5&lang=en"},
//	         {"invariant":"leaked-hold","broken":false,"verdict":"none within depth 6"}]}
//
// A frame message answers load, step, back, seek, lang, fork and undo, and comes at
// each step of play. "frame" is the sim.Frame of the step as JSON (its field
// names are documented in package sim); "panels" are the player's panels as
// HTML fragments that the page puts into the elements with the matching
// data-panel attribute; "chrome" (the header and the control bar, whose text
// depends on the language) comes only after load, lang, fork and undo.
// A frame with chrome carries every panel. The frames after it, until the
// next one with chrome, carry only what changed (see view/delta.go): a panel
// whose HTML the page already has is left out, and the timeline comes as
// "timeline_patch" instead, the columns whose drawing changed (a step
// forward: the new step's column, no longer a ghost; a step back: the
// columns that become ghosts again), each as its three layers for the
// page's g[data-c] groups under g[data-layer=back|mid|front], the lane
// labels when they changed, and the step to mark as current. A past
// column depends only on its step's frame and the one before, so the page
// patched step by step shows exactly the timeline a frame with chrome
// would. In an
// explore timeline the frame also has "timeline", the share code, and
// "url" is its /explore link. A student following a class (docs/classroom.md)
// gets less: its "frame" holds only "outcome", and a move's frame leaves
// out the explore panel, which the page hides while following. A state message
// answers play and pause and ends play. An error message answers a message
// that could not be carried out; the session stays usable. Its message is
// for the page to show: in the session's language (the load's lang, or the
// last lang message), from the message catalogue. Error codes:
// bad-json (not a JSON object, or a field of the wrong type), binary (a
// binary message), unknown-type, bad-field (missing or out of range),
// unknown-lesson, unknown-lang, no-lesson (a player message before load),
// bad-link (load's timeline is not a code this server can open; the message
// says why: cut short, damaged, a newer format, a step the rules refuse),
// bad-step (fork's action cannot happen there, e.g. a step for a paused
// actor, a field the action does not take (sim.StepFields, as in a lesson
// file) or a duration past explore's bounds, each named by step and field in
// the session's language; undo with nothing to undo),
// step-too-large (the step would do more work than a bound of package sim
// allows, e.g. more than sim.MaxRenewalsPerStep watchdog renewals; the
// message, in the session's language, names the limit and what to do;
// the run stays at the last step), redis-acl (the Redis ACL refused a
// command to Lockstep's user; the message, in the session's language,
// names the command and the ACL rule to add; once it is added the step can
// be tried again); the page shows either in its alert, not as "Redis did
// not answer". Exports and compare say the same in the request's language
// (422 for a bound, 502 for the ACL).
// redis (a step failed on Redis: the run stays at the last computed step and
// the step can be tried again; the page shows an alert, in its language,
// with a Try again button that seeks to the step wanted, and keeps it, and
// a deep link's step in the URL, until a step runs), busy, rate-limited (a message over the
// connection's rate limit, Config.MessageRate, 50 per second with bursts of
// 100 by default; it was ignored, not even decoded, so the error has no
// "re", and so are the rest of a run of such messages, unanswered; or a
// message of a connection over its fair share, Config.FairRate, 10 per
// second with bursts of 30, when the server is busy: at most
// Config.MaxBusy messages, GOMAXPROCS by default, are carried out at once
// server-wide, a connection within its share waits for a slot, the
// quietest first, and one over it is refused with this error, so a flood
// uses only capacity nobody else asks for),
// internal; and for searches bad-search (the shape or file breaks the
// search format; "fields" lists the fields named, for the page to mark),
// search-running (a second start while this session's search runs),
// search-full (Config.MaxSearches searches run on the server), no-search
// (search-stop with none running).
//
// A search runs in a goroutine of its own, on Config.SearchWorkers workers
// (1 by default, each on an embedded Redis of its own, or under its own
// prefix on the server's real Redis), and reports to the session's
// goroutine, which alone sends: a search-progress after each depth (the
// server times it; package search reads no clock), then one search-result
// whose rows are the invariants asked, each broken one with its shortest
// timeline and a share link (kind "search result": explore.Origin.Search)
// that opens the player on the breaking step. It is bounded by
// Config.SearchTimeout (60 s) and Config.SearchMaxStates (50,000), after
// which its result says "stopped" ("time", "states"; "stop" for
// search-stop) with what the finished depths found, and it is cancelled
// when the session ends (the page left).
//
// # Limits and closing
//
// Each connection has one reader and one writer goroutine (after
// gorilla/websocket's chat example) and a session goroutine that owns the
// run; a table under a lock bounds the sessions: Config.MaxSessions in
// all and Config.MaxSessionsPerAddr (20) per client address, the peer's
// IP (an IPv6 address by its /64) or, for a peer in Config.TrustedProxies
// (a reverse proxy; none by default), the last address of its
// X-Forwarded-For (else Forwarded's for=); the last Config.SessionReserve
// places are kept for addresses with no session open. When the server is full, a
// new connection closes the session idle longest, if idle for
// Config.IdleGrace (2 minutes) or more, with close code 4000, and takes
// its place; else it is refused (busy, 1013). The server pings every
// 54 s and drops a connection that answers nothing for 60 s; every write has
// a 10 s deadline (9 to 10 s: one within a second of the last is not set
// again, batchconn.go). The writer sends the messages it finds queued together in
// one write of the connection (batchconn.go: a class move's frame and
// class-status are one TCP send). Outgoing messages wait in a queue of 16; when it is full
// the session waits for room (and reads no more of the page's messages
// meanwhile), so a burst of messages from a page that reads its replies is
// slowed, not dropped. A client that lets the queue stay full for 10 s is
// dropped, and never slows anyone else: it is sent close code 4001, which
// reaches it only if it reads again; one that reads nothing at all sees its
// connection reset instead (the writer's 10 s deadline ends first).
// The websocket handshake must come from the page's own origin (gorilla's
// same-origin rule) or from one of Config.ClassPeers (originAllowed).
// Close codes:
//
//	1001  the server is shutting down (the page reconnects)
//	1008  the connection sent Config.MessageBurst messages in a row over its rate limit
//	1009  a message over the read limit (Config.ReadLimit, 64 KiB by default: a load with a share code); the reason says so
//	1013  too many sessions (Config.MaxSessions, or Config.MaxSessionsPerAddr from one address); sent after an error message with code busy
//	4000  the session was idle for Config.IdleTimeout, or for Config.IdleGrace on a full server that needed its place; the page reconnects when the learner comes back
//	4001  the client was too slow and was dropped
//
// After any other close the page reconnects with exponential backoff and
// sends load with the lesson, step and language it showed, so a server
// restart returns it to the same state.
package web
