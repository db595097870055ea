// Package proxy is Lockstep's lock-aware Redis proxy (`lockstep proxy`,
// and `lockstep -proxy ADDR` beside the player): an application points its
// Redis client at it, and the proxy forwards every command to the upstream
// Redis while it records a trace of the application's locks, derives
// findings from it, injects faults on demand, and saves what it saw as a
// lesson that `lockstep run` replays.
//
// # Data path
//
// The proxy accepts connections itself (proxy.go: the -max-clients bound)
// and delimits each client's commands as Redis does (RESP arrays by
// readArray, inline commands, a line starting with '$' too, by
// tidwall/redcon's parser; Redis's protocol errors for what it refuses)
// in one read buffer it reuses, every complete
// command the client has sent, a pipeline at a time, without copying them
// (cmdreader.go, session.go). The proxy serves one standalone Redis: a
// CLUSTER command is answered as a standalone redis-server does ("cluster
// support disabled", sent upstream as a script that answers that error,
// clusterRefusal), so a cluster client finds no node past the proxy. A connection starts on one of two shared upstream
// connections (shared.go; the embedded miniredis, default, or -redis with
// its TLS, ACL user and database; a Cluster is refused, ErrCluster) and
// keeps to it while it sends only commands that leave no state on a
// connection and never wait there (sharable: GET, SET, EVALSHA, ...):
// many clients' commands then go upstream pipelined in one write, and one
// read brings back replies for many, which the shared reader hands to
// each client in its order. Its first other command (HELLO, AUTH,
// SELECT, CLIENT ..., MULTI, WATCH, SUBSCRIBE, a blocking command,
// anything unlisted) moves it, once the replies to what it sent before
// have come back, to its own upstream connection, which keeps all
// protocol state where the client put it (HELLO 3, SELECT, AUTH,
// MULTI/EXEC, WATCH, subscriptions). Two goroutines per client: readLoop
// queues each command as pending and sends a pipeline's RESP bytes
// upstream in one write, before its next read; on a shared upstream a
// client that sends while others' commands are in flight yields once
// first, so the clients whose pipelines came in the same poll share that
// write; replyLoop takes the replies (from the shared
// reader, or read from its own connection with a RESP2 and RESP3 reader,
// resp.go, which only delimits and decodes), matches each to the oldest
// pending command (pending.go), and writes the bytes to the client as
// they came, all the replies that have arrived in one write. The shared
// reader hands a client its replies a read batch at a time (all that its
// buffer holds, at most 256) and, for a client on which no fault was ever
// armed, passes them itself with a write that never waits for the
// client's socket (what the socket does not take goes out by the
// client's goroutine): one goroutine hand-off fewer per round trip, and a
// client that reads slowly holds up no other. A plain command (on no
// lock key, running no script) is classified from its argument slices
// in the read buffer without copying them; beyond 10,000 a second such commands are
// forwarded untraced and counted (Snapshot.Untraced), so a benchmark's
// traffic costs no trace event each and does not push the lock events
// out of the ring. Pushes (RESP3
// '>' and, on a subscribed RESP2 connection, message and subscribe arrays) answer no
// command and pass through as push events. A command on a lock key is
// recorded before its reply is written (what its client does next follows
// it in the trace), others after; no subscriber is ever waited for. The embedded
// Redis's clock is moved in real time (Config.ClockTick), since miniredis
// expires keys only when told to.
//
// # Which keys are locks
//
// Config.Locks (-locks 'lock:*,order:*', path.Match globs). Without it the
// proxy takes for locks the keys of SET ... NX and of scripts that set a
// TTL on a KEYS element or write it with SET NX, HINCRBY or HSET (Redisson's
// hincrby+pexpire, node-redlock's SET NX PX, redsync's SET NX plus its
// GET/DEL script), listed with the reason in Snapshot.Suggested. The trace
// keeps the values of lock keys only (redact.go): for other keys it keeps
// the key names and writes Redacted for values, and shows replies by shape
// only ("(value)", "(integer)", "(3 elements)"; a status such as OK, nil
// and an error's code stay), with no raw bytes. EXEC's array is shown
// element by element: the reply to a queued command on a lock key whole,
// the others by shape, and its raw bytes only when every element is whole.
// Credentials are Redacted everywhere: AUTH's and HELLO AUTH's, ACL
// SETUSER's rules and ACL DRYRUN's command, CONFIG SET's values, all of
// MIGRATE's arguments (AUTH, AUTH2), COMMAND GETKEYS's command; the
// replies of CONFIG, ACL and SLOWLOG (CONFIG GET requirepass, password
// hashes, logged commands) are shown by shape. An error reply to a
// command whose arguments are hidden never repeats them: the unknown
// command error's "with args beginning with:" part becomes Redacted, and
// an error that still holds a hidden argument (ACL SETUSER's refused
// rule) is shown by its code only ("(error) ERR"). The snapshot, the live
// page, proxy -json and a saved lesson all show the trace so.
//
// # Trace, findings, faults
//
// The trace (trace.go) is a ring of Config.TraceSize events (default
// 10,000): connections (lane, address, CLIENT SETNAME name, CLIENT SETINFO
// library), commands with their raw replies, lock states, faults and
// findings. After each command on a lock key the key's type, contents and
// PTTL are read in one MULTI/EXEC: right after the command on the
// command's own upstream connection when the client speaks RESP2 outside
// its own MULTI and WATCH (inlineread.go: MULTI PTTL GET HGETALL EXEC, the
// type told by which of GET and HGETALL answered WRONGTYPE; none of the
// client's later commands runs between, and the client never sees these
// replies), else by the analyzer's own connection (MULTI TYPE PTTL GET
// HGETALL EXEC; so such a read may already show a later command; a command
// that names the owner a sweep found first still claims its hold). A SET
// answered OK gives the state it left from its own arguments, unread; a
// SET the analyzer expects to answer OK (NX on a key it last saw absent)
// is sent with no read after it, and if it answers nil it changed nothing:
// the state after it is the analyzer's, its PTTL counted down (read by the
// analyzer's connection when the analyzer saw the key absent). A command
// that reads lock keys and writes none (GET, PTTL, EXISTS, WATCH, HGETALL,
// ...: readOnLock) is sent with no read after it either: the state after
// it is the analyzer's, counted down, where its reply agrees (GET's
// value, EXISTS's count, PTTL's -2: replyAgrees), else read by the
// analyzer's connection; so a check-and-delete in WATCH, GET, MULTI, DEL,
// EXEC no longer has its GET read after the DEL ran. A command
// the client sends inside its own MULTI is answered QUEUED and has not
// run: it is traced (its reply QUEUED) and neither read after nor
// analysed; at EXEC the queued commands on lock keys are analysed in
// their order, each with its reply from EXEC's array and the states read
// after EXEC (the read after EXEC on its connection, or one lock-reader
// read a key; a SET answered OK its own), so a DEL inside MULTI is a
// release at EXEC; DISCARD, an EXEC answered nil (a WATCHed key changed)
// and EXECABORT ran none (multi.go). SaveLesson saves such a command as
// run at its EXEC. The analyzer (analyzer.go) takes the states and
// derives findings, one command at a time in the order handed: a command
// whose keys were all read on its connection is analyzed by the goroutine
// that passes its reply when nothing is queued before it (no wake-up of
// another goroutine a command), others by the analyzer's goroutine, fed by
// a bounded queue. Findings: FindingLeaseExpired, FindingOverlap,
// FindingReleaseByOther, FindingOverwritten (another client's command, no
// release, wrote a new owner into a held key or removed it while the
// lease had time left: not an expiry; the writer of a new owner then
// holds it and the earlier holder is stale, as after an expiry, so a
// later acquire is an overlap with it), FindingRenewalRecreated,
// FindingReleaseNotOwner, FindingSlowScript. Each carries a catalogue code ("proxy.finding.*",
// catalog/proxy.*.toml) whose text says "may" and why: the proxy sees
// commands, not what a process believes. Faults (faults.go): Pause,
// LoseNextReply, DelayReplies, ExpireKey, RestartUpstream, CloseClient,
// by API or from a scenario file (scenario.go,
// docs/proxy-scenario-format.md); each is an EventFault in the trace.
//
// # API for the live page
//
//	p, err := proxy.Start(ctx, proxy.Config{Listen: "127.0.0.1:6380"})
//	snap := p.Snapshot()      // the whole model, JSON-ready: Lanes, Redis.Locks, Events, Findings
//	win := p.Window()         // the same with the newest events only (a page's: bounded)
//	old, first := p.EventsBefore(win.Events[0].Seq, 500) // older ones, on demand
//	sub := p.Subscribe(256)   // then each new Event on sub.C
//	defer sub.Close()
//	for e := range sub.C {
//		if e.Kind == proxy.EventResync { win = p.Window(); continue }
//		// apply e: EventCommand on lane e.Lane, EventLock on the Redis lane, ...
//	}
//	saved, err := p.SaveLesson(ctx, proxy.SaveOptions{ID: "my-app", Renderer: cat})
//
// A page renders Snapshot once and applies events after it (Seq orders
// them; skip those at or below the snapshot's last Seq). A subscriber never
// slows the application: plain events (a command on no lock key that
// runs no script, a push) beyond 5,000 a second are skipped and counted
// (Subscription.Skipped); events that find its bounded channel full are
// dropped and counted, and an EventResync follows (take a new Snapshot),
// at most one every 2 seconds. Finding.Message
// is rendered in the page's language by catalog.Catalog.Render; Finding.Events
// are the Seqs of the commands that show it, to highlight them on the
// lanes. Times are wall-clock (the real-time axis).
//
// # Saving a lesson
//
// SaveLesson (save.go, save_variant.go) turns the trace of one lock key
// into a lesson (docs/lesson-format.md) and a variant file
// (docs/variant-format.md): one actor per client connection that touched
// the lock; acquires, releases (with reply_lost where a fault dropped the
// reply), pause and resume at the faults, advance for the real time
// between them (clamped so that the key exists or is gone in the replay
// where the trace saw it), expect and expect_violation from what was
// observed. The variant's acquire is the script the clients ran, or for a
// SET NX PX command a one-line script running the same command; its reply
// map holds the replies observed, each read as the outcome the lock states
// showed. What the formats cannot say (a key beside the lock with no known
// role, a script whose body was never seen, renewals, delays) is listed in
// Saved.Missing and as comments at the head of the files, never guessed.
// A write over a hold (FindingOverwritten) has no step of its own in the
// format: it is listed as missing and replayed as a clock-jump (the hold
// ends there) and, for a new owner, its writer's acquire, which then
// expects overlapping-holders while the earlier holder's actor holds.
//
// # Bounds
//
// Config.TraceSize and Config.MaxClients (refused beyond MaxTraceSize and
// MaxMaxClients with a *LimitError naming the flag; a connection beyond
// MaxClients is answered with an error naming -max-clients), at most 4096
// pipelined commands per client, commands of at most 512 MiB (as Redis's
// proto-max-bulk-len; a longer one is a protocol error; a count over
// INT_MAX, a bulk length over 512 MiB or a header or inline line of over
// 64 KiB with no newline is answered Redis's protocol error as soon as it
// is read, not awaited), 4096 commands on lock keys queued in one
// client's MULTI kept for analysis at EXEC (more are traced, not analysed),
// replies of at most 64 MiB, at most 64 MiB
// of replies waiting for a client on a shared upstream (one that is
// paused, delayed or reads none; beyond it its connection is closed, as
// Redis closes a client past its output buffer limit), each string a
// trace event keeps (a command's arguments and reply, a lock state's value
// and fields) at most 1 KiB, the rest cut with a marker saying how many
// bytes (maxTracedText; a saved lesson names a cut argument as missing),
// 1000 findings,
// 1000 suggested keys and scripts, pauses and delays of at most 10 minutes.
package proxy
