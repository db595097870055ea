// Package live serves the live page (/live): a real application's locks
// seen through the lock-aware proxy (package proxy), under the site's
// header (templates.Live, with the web server's header from Config.Site),
// as lanes on a wall-clock axis headed by each client's declared library
// and the lock library its scripts are known by (Lanes, KnownScript), the
// player's state diagram following the latest lock state, findings, faults
// injected from the page, the lock keys ticked at run time, and the trace
// saved as a lesson that the player opens by its share link (openURL).
//
// Data path: proxy.Proxy records each client command, lock state, fault
// and finding in its trace. The page's websocket (/live/ws) gets one
// window of the trace first (proxy.Proxy.Window: the newest events, at
// most 500 and about 256 KiB of them, with every lane, each lock key's
// state and the newest 200 findings, so its size does not grow with the
// trace), then the new proxy.Events from a bounded
// subscription, a frame (50 ms) at a time in one message (the writer takes
// what is queued, then lets events gather 2 ms, so a busy proxy wakes it
// at most once a 2 ms, not once an event); plain commands
// (on no lock key, running no script) beyond 5,000 a second are left out
// and counted in the next frame's "skipped"; when the browser falls behind
// the proxy drops events for it and sends an EventResync, and the
// connection answers with a fresh window, so nothing is lost without the
// page knowing. Events older than the page's are fetched when the user
// scrolls back to them ("older"), a window's worth at a time; the page
// keeps the newest 1,000 events beside what it fetched. A connection has
// one reader goroutine (client messages, read limit and deadline, a rate
// limit) and one writer goroutine (the only one that writes; a bounded
// queue of replies, write deadlines, pings). The application never waits
// for a browser.
//
// # Protocol
//
// Server to browser, JSON objects by "type":
//
//	{"type":"snapshot","snapshot":proxy.Snapshot,"texts":[finding text per Snapshot.Findings],"lanes":[LaneView]}
//	                                                  (a window: Snapshot.First is the oldest Seq the proxy holds)
//	{"type":"older","for":"older","events":[event message...],"first":N}  the answer to older: the events
//	                                                  just before the one asked for, oldest first
//	{"type":"events","events":[event message...],"skipped":N}  a frame: the events of up to 50 ms (at most 256),
//	                                                  and the plain commands left out since the frame before
//	event message: {"type":"event","event":proxy.Event,"text":"finding text, for kind finding","library":"a known script's lock library",
//	 "suggested":{...},"chosen":[...]}                 (the proxy's lock suggestions, with a lock key new to the page)
//	{"type":"done","for":"pause"}                     a browser message was carried out
//	{"type":"error","for":"pause","message":"..."}    it was refused (text in the page's language, naming the message)
//	{"type":"saved","saved":proxy.Saved,"open":"/explore?t=..."}  the answer to save, with the
//	                                                  player's link to the saved lesson (or "open_error": why none)
//
// Browser to server:
//
//	{"type":"pause","client":"c1","ms":2000}          proxy.Pause
//	{"type":"resume","client":"c1"}                  proxy.Resume (ends a pause now)
//	{"type":"lose-reply","client":"c1"}               proxy.LoseNextReply
//	{"type":"delay","client":"c1","ms":200,"span_ms":5000}  proxy.DelayReplies
//	{"type":"expire","key":"lock:a"}                  proxy.ExpireKey
//	{"type":"restart"}                                proxy.RestartUpstream
//	{"type":"close","client":"c1"}                    proxy.CloseClient
//	{"type":"locks","keys":["lock:a"]}                proxy.ChooseLocks
//	{"type":"save","id":"my-app","key":"lock:a"}      proxy.SaveLesson
//	{"type":"older","before":1234}                    proxy.Proxy.EventsBefore (the page scrolled back)
//
// # Bounds
//
// Config.MaxConns live connections at once (the server's -max-live;
// beyond: close code 1013), a
// browser message of at most 4 KiB, 5 messages per second with a burst of
// 10 per connection; the page's own work is bounded by the proxy's trace
// size (-proxy-trace-size).
package live
