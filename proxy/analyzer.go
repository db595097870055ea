package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"lockstep/sim"
)

// LockState is a lock key as the proxy read it after a command (or a
// fault) that touched it: contents and PTTL. The proxy reads it with its
// own connection right after the reply, so another client's command may
// fall in between (the page shows Read).
type LockState struct {
	Key  string `json:"key"`
	Type string `json:"type"` // "none" (absent), "string", "hash", or another Redis type
	// Value is a String lock's value (the owner's token); Fields a Hash
	// lock's fields (owner id -> hold count), at most maxLockFields; each
	// string cut to maxTracedText bytes (cutText: a marker says how many
	// more there were).
	Value  string            `json:"value,omitempty"`
	Fields map[string]string `json:"fields,omitempty"`
	PTTL   int64             `json:"pttl"` // ms; -1 no TTL, -2 absent
	Read   time.Time         `json:"read"`
	// Holder is the lane whose command made the current hold (""
	// absent or unknown); Owner the owner id the key holds.
	Holder string `json:"holder,omitempty"`
	Owner  string `json:"owner,omitempty"`
	// Cause is the Seq of the command or fault event after which it was read.
	Cause uint64 `json:"cause,omitempty"`
}

// Present reports whether the key exists.
func (s LockState) Present() bool { return s.Type != "none" && s.Type != "" }

const maxLockFields = 16

// Finding codes. The proxy sees commands, not what a process believes, so
// every finding says "may" and why (the catalogue's texts).
const (
	FindingLeaseExpired     = "lease-expired"     // a lease ran out while its holder had not released: the stale-owner window
	FindingOverlap          = "overlap"           // a second client acquired after such an expiry: the first may still be working
	FindingReleaseByOther   = "release-by-other"  // a connection that did not acquire deleted the lock
	FindingOverwritten      = "overwritten"       // another client's command, not a release, wrote a new owner over a hold (or removed it) before its lease ran out
	FindingRenewalRecreated = "renewal-recreated" // a command under the expired holder's owner id re-created the lock
	FindingReleaseNotOwner  = "release-not-owner" // a release by a client that acquired was answered "not owner"
	FindingSlowScript       = "slow-script"       // a script's round trip took longer than -slow-script
)

// Finding is one thing the trace shows that may be a lock failure. Events
// are the Seqs of the commands (and faults) that show it; Message is its
// catalogue code ("proxy.finding.<code>") with parameters, rendered per
// locale by package catalog.
type Finding struct {
	Code    string    `json:"code"`
	Key     string    `json:"key,omitempty"`
	Lane    string    `json:"lane,omitempty"`  // the client the finding is about
	Other   string    `json:"other,omitempty"` // the other client (the earlier holder)
	At      time.Time `json:"at"`
	Events  []uint64  `json:"events,omitempty"`
	Message sim.Msg   `json:"message"`
}

// lockModel is what the analyzer keeps per lock key.
type lockModel struct {
	state     LockState
	holder    string // lane of the current hold
	holderSeq uint64 // its acquire
	expiresAt time.Time
	// expiresLow is the earliest the lease can run out in Redis: the
	// PTTL counted from before the read (the command's Sent), where
	// expiresAt counts it from after (the read's reply), so a command
	// answered before it ran while the key still had its lease.
	expiresLow time.Time
	// believers are lanes that acquired and have sent no release since:
	// as far as the proxy can tell, they may believe they hold the lock.
	believers map[string]uint64
	stale     *staleHold
	// unclaimed: a read that no command caused (a sweep, a fault) found
	// a new owner; the command that made it is still on its way to the
	// analyzer, and claims the hold when it names that owner.
	unclaimed bool
}

// staleHold is a holder whose hold ended before it released: its lease
// ran out, or another client overwrote it (overwritten).
type staleHold struct {
	lane, owner string
	expiredAt   time.Time
	seq         uint64 // the lease-expired (or overwritten) finding's event
	overwritten bool
}

// obs is one job of the analyzer.
type obs struct {
	s     *session // nil for a fault or a sweep
	e     Event    // the command or fault event
	keys  []string
	slow  bool
	until chan struct{} // closed when done (faults wait for it)
	// states are keys' states read right after the command on its own
	// connection (inlineRead), used instead of a read now.
	states lockStates
}

// analyzer reads lock keys after the commands that touch them and derives
// findings, one job at a time: in its own goroutine, so the application's
// traffic never waits for a read or a queue, except a command whose keys
// were all read on its connection, analyzed by the goroutine that passes
// its reply when nothing is queued (handleNow: a few microseconds of map
// updates, where a hand-off woke a goroutine, often a thread).
type analyzer struct {
	p      *Proxy
	in     chan obs
	behind atomic.Bool

	// handMu is held while a job is handled: by the analyzer's
	// goroutine, or by the session that hands a command whose lock keys
	// were all read on its connection, when no job is queued (handleNow),
	// so jobs are handled one at a time in the order they were handed.
	// queued counts the jobs sent on in and not yet handled.
	handMu sync.Mutex
	queued atomic.Int64

	// The lock reader's connection (the analyzer's goroutine only).
	conn  net.Conn
	connR *bufio.Reader
	wbuf  []byte

	mu       sync.Mutex
	locks    map[string]*lockModel
	findings []Finding
}

func newAnalyzer(p *Proxy) *analyzer {
	return &analyzer{p: p, in: make(chan obs, observeQueue), locks: map[string]*lockModel{}}
}

// command hands a recorded command to the analyzer without blocking.
func (a *analyzer) command(s *session, e Event) {
	c := e.Command
	if ranNothing(c) {
		return // NOSCRIPT: nothing ran, and a read now may show the EVAL after it
	}
	if c.Name == "EXEC" && len(c.tx) == 0 {
		return // it ran no command on a lock key (or none: DISCARD, nil, EXECABORT)
	}
	slow := c.cmd.script != nil || scriptCommands[c.Name]
	slow = slow && c.Replied.Sub(c.Sent) > a.p.cfg.SlowScript
	if len(c.Locks) == 0 && !slow {
		return
	}
	o := obs{s: s, e: e, keys: c.Locks, slow: slow}
	if !a.handleNow(o) {
		a.enqueue(s, o)
	}
}

// enqueue hands o to the analyzer's goroutine without blocking; a full
// queue drops it and says so in the trace (once until it has room).
func (a *analyzer) enqueue(s *session, o obs) {
	a.queued.Add(1)
	select {
	case a.in <- o:
		a.behind.Store(false)
	default:
		a.queued.Add(-1)
		if !a.behind.Swap(true) {
			a.p.trace.add(Event{Kind: EventFault, At: time.Now(), Lane: s.lane, Fault: &FaultEvent{Kind: FaultObserverBehind}})
		}
	}
}

// commandRead is command for a command whose lock keys were read right
// after it on its own connection (inlineRead): states by key, exact; a
// key without one is read by the lock reader.
func (a *analyzer) commandRead(s *session, e Event, states lockStates) {
	c := e.Command
	if ranNothing(c) || (c.Name == "EXEC" && len(c.tx) == 0) {
		return
	}
	slow := c.cmd.script != nil || scriptCommands[c.Name]
	slow = slow && c.Replied.Sub(c.Sent) > a.p.cfg.SlowScript
	o := obs{s: s, e: e, keys: c.Locks, slow: slow, states: states}
	if !a.handleNow(o) {
		a.enqueue(s, o)
	}
}

// handleNow handles o in the caller's goroutine when it needs no read by
// the lock reader (every key's state is known) and no job is queued or
// being handled before it; false when it did not. A traced command then
// wakes no analyzer goroutine: each such hand-off is a wake-up of a
// parked goroutine, and often of a thread, on the command's reply path.
func (a *analyzer) handleNow(o obs) bool {
	for _, k := range o.keys {
		if _, ok := o.states.get(k); ok {
			continue
		}
		if _, ok := setState(o.e.Command, k); !ok {
			return false
		}
	}
	if !a.handMu.TryLock() {
		return false
	}
	defer a.handMu.Unlock()
	if a.queued.Load() > 0 {
		return false
	}
	a.handle(a.p.ctx, o)
	a.behind.Store(false)
	return true
}

// fault hands a fault's keys to the analyzer and waits until they are read.
func (a *analyzer) fault(ctx context.Context, e Event, keys []string) {
	done := make(chan struct{})
	a.queued.Add(1)
	select {
	case a.in <- obs{e: e, keys: keys, until: done}:
	case <-ctx.Done():
		a.queued.Add(-1)
		return
	case <-a.p.ctx.Done(): // closed: nothing more is read
		a.queued.Add(-1)
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	case <-a.p.ctx.Done():
	}
}

func (a *analyzer) run(ctx context.Context) {
	sweep := time.NewTicker(25 * time.Millisecond)
	defer sweep.Stop()
	defer func() {
		if a.conn != nil {
			a.conn.Close()
		}
	}()
	if hold := a.p.cfg.analyzerHold; hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case o := <-a.in:
			a.handMu.Lock()
			a.handle(ctx, o)
			a.queued.Add(-1)
			a.handMu.Unlock()
			if o.until != nil {
				close(o.until)
			}
		case now := <-sweep.C:
			a.handMu.Lock()
			a.sweep(ctx, now)
			a.handMu.Unlock()
		}
	}
}

// sweep reads the lock keys whose lease should have run out by now, so an
// expiry shows when it happens, not at the next command.
func (a *analyzer) sweep(ctx context.Context, now time.Time) {
	a.mu.Lock()
	var due []string
	for k, m := range a.locks {
		if m.state.Present() && !m.expiresAt.IsZero() && now.After(m.expiresAt.Add(2*a.p.cfg.ClockTick)) {
			due = append(due, k)
		}
	}
	a.mu.Unlock()
	sort.Strings(due)
	for _, k := range due {
		st, err := a.read(ctx, k)
		if err != nil {
			return
		}
		a.update(k, st, obs{}, now)
	}
}

func (a *analyzer) handle(ctx context.Context, o obs) {
	if c := o.e.Command; c != nil && c.Name == "EXEC" {
		a.handleTx(ctx, o) // the commands it ran (multi.go)
		return
	}
	if o.slow {
		c := o.e.Command
		ms := c.Replied.Sub(c.Sent).Milliseconds()
		f := Finding{Code: FindingSlowScript, Lane: o.e.Lane, At: c.Sent, Events: []uint64{o.e.Seq},
			Message: sim.M("proxy.finding.slow-script", "Lane", a.p.laneLabel(o.e.Lane), "Took", sim.Millis(ms),
				"Limit", sim.Millis(a.p.cfg.SlowScript.Milliseconds()))}
		// under a.mu as addFinding asks (snapshot reads the findings under
		// it; handle also runs on reply goroutines, handleNow)
		a.mu.Lock()
		a.addFinding(f)
		a.mu.Unlock()
	}
	for _, k := range o.keys {
		if st, ok := setState(o.e.Command, k); ok {
			st.Cause = o.e.Seq
			a.update(k, st, o, st.Read)
			continue
		}
		if st, ok := o.states.get(k); ok {
			st.Cause = o.e.Seq
			a.update(k, st, o, st.Read)
			continue
		}
		if unchangedSet(o.e.Command, k) {
			a.unchanged(ctx, k, o)
			continue
		}
		st, err := a.read(ctx, k)
		if err != nil {
			a.p.trace.add(Event{Kind: EventFault, At: time.Now(), Fault: &FaultEvent{Kind: FaultObserverBehind, Key: k}, Error: err.Error()})
			continue
		}
		a.update(k, st, o, st.Read)
	}
}

// setState is the state a SET answered OK left its key in, known from
// the command itself: this reader runs beside the clients, so a read
// after the SET may already show what a later command did (another
// client's release of the new hold, which would then never be seen: the
// release-by-other the lock reader missed under load). ok is false when
// the command is no such SET of key, or its options leave the state
// unknown here (KEEPTTL, GET, an absolute expiry).
func setState(c *CommandEvent, key string) (LockState, bool) {
	if c == nil || c.value.Kind != '+' || c.value.Str != "OK" {
		return LockState{}, false
	}
	return setStateIfOK(c.cmd, key, c.Replied)
}

// setStateIfOK is the state c leaves key in if Redis answers it OK at
// replied (setState); ok is false when that would not say it.
func setStateIfOK(c command, key string, replied time.Time) (LockState, bool) {
	if c.name != "SET" || len(c.args) < 3 || c.args[1] != key {
		return LockState{}, false
	}
	st := LockState{Key: key, Type: "string", Value: cutText(c.args[2]), PTTL: -1, Read: replied}
	opts := c.args[3:]
	for i := 0; i < len(opts); i++ {
		switch o := strings.ToUpper(opts[i]); o {
		case "NX", "XX":
		case "PX", "EX":
			if i+1 == len(opts) {
				return LockState{}, false
			}
			n, err := strconv.ParseInt(opts[i+1], 10, 64)
			if err != nil || n <= 0 || n > 1<<40 {
				return LockState{}, false
			}
			if o == "EX" {
				n *= 1000
			}
			st.PTTL = n
			i++
		default:
			return LockState{}, false
		}
	}
	return st, true
}

// unchangedSet reports whether c was sent without a read after it
// (pending.unread) and changed nothing: a command of readOnLock, or a SET
// (its state known from its arguments had it answered OK: setStateIfOK)
// that answered nil (NX found the key, XX did not) or an error.
func unchangedSet(c *CommandEvent, key string) bool {
	if c == nil || !c.unread {
		return false
	}
	if readOnLock[c.cmd.name] {
		return true
	}
	if !(c.value.Null || c.value.IsError()) {
		return false
	}
	_, ok := setStateIfOK(c.cmd, key, c.Replied)
	return ok
}

// replyAgrees reports whether c's reply agrees with key being present
// (holding value, when a String) or absent, as the analyzer last saw it:
// GET's value or nil, EXISTS's count and PTTL's or TTL's -2 say which; a
// SET answered nil or an error (unchangedSet) agrees only with a present
// key, as its NX found one; the others' replies are not compared.
func replyAgrees(c *CommandEvent, st LockState) bool {
	present := st.Present()
	v := c.value
	switch c.cmd.name {
	case "SET":
		return present
	case "GET":
		if v.IsError() { // WRONGTYPE: a Hash lock
			return present && st.Type == "hash"
		}
		return v.Null == !present && (!present || (st.Type == "string" && v.Str == st.Value))
	case "EXISTS":
		if len(c.cmd.keys) != 1 {
			return true
		}
		return v.Kind == ':' && (v.Int == 1) == present
	case "PTTL", "TTL":
		return v.Kind == ':' && (v.Int == -2) == !present
	}
	return true
}

// expectsOK reports whether SET c of key most likely answers OK, as far
// as the analyzer's last view of key tells: NX on a key it saw absent (or
// never saw), XX on one it saw present, neither always. Such a SET's OK
// gives its state (setState), so the session sends it without a read
// after it (session.forward). A guess only: one answered otherwise is
// handled by unchanged.
func (a *analyzer) expectsOK(c command, key string) bool {
	nx, xx := false, false
	for _, o := range c.args[3:] {
		nx = nx || strings.EqualFold(o, "NX")
		xx = xx || strings.EqualFold(o, "XX")
	}
	if !nx && !xx {
		return true
	}
	a.mu.Lock()
	m := a.locks[key]
	absent := m == nil || !m.state.Present()
	a.mu.Unlock()
	return (nx && absent) || (xx && !absent)
}

// unchanged handles a command sent without a read after it that changed
// nothing (unchangedSet): the key is as the analyzer last saw it, present
// with its PTTL counted down to the reply, or absent, where the reply
// agrees (replyAgrees). When it does not, or the analyzer never saw the
// key, or its lease should have run out by then, the state is not known:
// the lock reader reads it, as a sweep does (no hold is the command's: a
// new owner read here is claimed by the command that wrote it).
func (a *analyzer) unchanged(ctx context.Context, key string, o obs) {
	c := o.e.Command
	a.mu.Lock()
	m := a.locks[key]
	known := m != nil && (!m.state.Present() || m.expiresAt.IsZero() || m.expiresAt.Sub(c.Replied) >= time.Millisecond)
	if known && replyAgrees(c, m.state) {
		st := m.state
		if st.Present() && !m.expiresAt.IsZero() {
			st.PTTL = m.expiresAt.Sub(c.Replied).Milliseconds()
		}
		st.Read, st.Cause = c.Replied, o.e.Seq
		m.state = st
		a.p.trace.add(Event{Kind: EventLock, At: st.Read, Lane: o.e.Lane, Lock: &st})
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	st, err := a.read(ctx, key)
	if err != nil {
		a.p.trace.add(Event{Kind: EventFault, At: time.Now(), Fault: &FaultEvent{Kind: FaultObserverBehind, Key: key}, Error: err.Error()})
		return
	}
	a.update(key, st, obs{e: Event{Seq: o.e.Seq}}, st.Read)
}

// read reads key's type, PTTL and contents in one transaction (MULTI
// TYPE PTTL GET HGETALL EXEC), so that the key cannot expire between them,
// over the analyzer's own upstream connection. A connection that ended
// since the last read (the embedded Redis restarted, RestartUpstream; a
// redis-server closed it: idle timeout, CLIENT KILL, a restart) is dialed
// again and the read tried once more before its error is reported: it
// was reported as an observer-behind fault, with error EOF, that no one
// injected, on the first read after every restart.
func (a *analyzer) read(ctx context.Context, key string) (LockState, error) {
	st := LockState{Key: key, Read: time.Now(), PTTL: -2}
	reused := a.conn != nil
	v, err := a.transact(ctx, key)
	if err != nil && reused && connEnded(err) && ctx.Err() == nil {
		v, err = a.transact(ctx, key) // on a new connection: transact closed the old
	}
	if err != nil {
		return st, err
	}
	return lockStateFromExec(key, v, time.Now())
}

// lockStateFromExec is key's state from the EXEC reply of the read
// transaction (MULTI TYPE PTTL GET HGETALL EXEC: four replies), or of the
// inline read (MULTI PTTL GET HGETALL EXEC: three), read at read. Without
// TYPE the type is told by the replies: PTTL -2 absent, GET's value a
// String, GET's WRONGTYPE and HGETALL's fields a Hash; any other type is
// an error (the lock reader then reads it with TYPE).
func lockStateFromExec(key string, v Value, read time.Time) (LockState, error) {
	st := LockState{Key: key, Read: read, PTTL: -2}
	if v.Kind != '*' || v.Null || (len(v.Elems) != 4 && len(v.Elems) != 3) {
		return st, fmt.Errorf("proxy: reading lock %q: the transaction answered %s", key, v.String())
	}
	elems := v.Elems
	var typ Value
	if len(elems) == 4 {
		typ, elems = elems[0], elems[1:]
	}
	pttl, get, hash := elems[0], elems[1], elems[2]
	if len(v.Elems) == 3 {
		switch {
		case pttl.Kind == ':' && pttl.Int == -2:
			typ.Str = "none"
		case !get.IsError():
			typ.Str = "string"
		case !hash.IsError():
			typ.Str = "hash"
		default:
			return st, fmt.Errorf("proxy: reading lock %q: neither a string nor a hash (%s; %s)", key, get.Str, hash.Str)
		}
	}
	if typ.IsError() {
		return st, fmt.Errorf("proxy: reading lock %q: TYPE: %s", key, typ.Str)
	}
	st.Type = typ.Str
	if pttl.Kind == ':' && (pttl.Int >= 0 || pttl.Int == -1) {
		st.PTTL = pttl.Int
	}
	switch st.Type {
	case "string":
		st.Value = cutText(get.Str) // as the trace keeps it (maxTracedText)
	case "hash":
		if hash.IsError() {
			return st, fmt.Errorf("proxy: reading lock %q: HGETALL: %s", key, hash.Str)
		}
		st.Fields = map[string]string{}
		names := make([]string, 0, len(hash.Elems)/2)
		values := make(map[string]string, len(hash.Elems)/2)
		for i := 0; i+1 < len(hash.Elems); i += 2 {
			names = append(names, hash.Elems[i].Str)
			values[hash.Elems[i].Str] = hash.Elems[i+1].Str
		}
		sort.Strings(names)
		for _, f := range names[:min(len(names), maxLockFields)] {
			st.Fields[cutText(f)] = cutText(values[f])
		}
	}
	return st, nil
}

// connEnded reports whether err says the connection had ended (closed by
// its other end), not that it timed out or that Redis refused the read.
func connEnded(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// transact sends the read transaction for key and returns EXEC's reply.
func (a *analyzer) transact(ctx context.Context, key string) (Value, error) {
	if a.conn == nil {
		a.p.miniMu.Lock() // not while the embedded upstream restarts
		c, r, err := a.p.dialUpstream(ctx)
		a.p.miniMu.Unlock()
		if err != nil {
			return Value{}, err
		}
		a.conn, a.connR = c, r
	}
	b := appendReadTx(a.wbuf[:0], key)
	a.wbuf = b
	fail := func(err error) (Value, error) {
		a.conn.Close()
		a.conn, a.connR = nil, nil
		return Value{}, err
	}
	deadline := time.Now().Add(2 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = a.conn.SetDeadline(deadline)
	if _, err := a.conn.Write(b); err != nil {
		return fail(err)
	}
	var v Value
	for i := range readTxLen { // +OK, four +QUEUED, then EXEC's array
		var err error
		if _, v, err = readReply(a.connR); err != nil {
			return fail(err)
		}
		if v.IsError() && i < readTxLen-1 {
			return fail(fmt.Errorf("proxy: reading lock %q: %s", key, v.Str))
		}
	}
	return v, nil
}

// ownerOf is the owner id a lock's contents hold: a String's value, the
// `owner` field of an owner-and-count Hash, or the fields of a
// field-per-owner Hash.
func ownerOf(st LockState) string {
	switch st.Type {
	case "string":
		return st.Value
	case "hash":
		if o, ok := st.Fields["owner"]; ok {
			return o
		}
		names := make([]string, 0, len(st.Fields))
		for f := range st.Fields {
			names = append(names, f)
		}
		sort.Strings(names)
		out := ""
		for i, n := range names {
			if i > 0 {
				out += ","
			}
			out += n
		}
		return out
	}
	return ""
}

// namesOwner reports whether c carries owner (a String lock's token, a
// Hash lock's owner field; several fields joined by commas) among its
// arguments: the command that wrote the lock for that owner.
func namesOwner(c command, owner string) bool {
	if owner == "" {
		return false
	}
	for _, o := range strings.Split(owner, ",") {
		for _, a := range c.args[1:] {
			if a == o {
				return true
			}
		}
	}
	return false
}

// isRelease reports whether c is a release: DEL, UNLINK, HDEL, GETDEL or a
// script that deletes.
func isRelease(c command) bool {
	switch c.name {
	case "DEL", "UNLINK", "HDEL", "GETDEL":
		return true
	}
	return c.script != nil && c.script.Release
}

// unknownScript reports whether c runs a script whose body the proxy
// never saw (EVALSHA of a script loaded before it started).
func unknownScript(c command) bool {
	return c.script == nil && c.sha != ""
}

// notOwnerReply reports whether v reads as "not owner": nil, false, or an
// integer at or below 0 (redsync's 0 and -1, Redisson's nil).
func notOwnerReply(v Value) bool {
	return v.Null || (v.Kind == ':' && v.Int <= 0) || (v.Kind == '#' && v.Int == 0)
}

// releaseNotOwner reports whether a release's reply v, on a lock last
// seen as prev, reads as "not owner": notOwnerReply, but on a Hash lock
// only nil or false. A Hash lock's release (Redisson's unlock, and the
// reentrant scripts written after it) answers nil to a caller that holds
// nothing, 0 when it took one hold of several and the lock is still held,
// 1 when it deleted the key.
func releaseNotOwner(v Value, prev LockState) bool {
	if prev.Type == "hash" {
		return v.Null || (v.Kind == '#' && v.Int == 0)
	}
	return notOwnerReply(v)
}

// update applies the lock state read after o at time t.
func (a *analyzer) update(key string, st LockState, o obs, t time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.locks[key]
	if m == nil {
		m = &lockModel{state: LockState{Key: key, Type: "none", PTTL: -2}, believers: map[string]uint64{}}
		a.locks[key] = m
	}
	var c *CommandEvent
	lane := o.e.Lane
	if o.e.Kind == EventCommand {
		c = o.e.Command
		t = c.Sent
	}
	owner := ownerOf(st)
	prevOwner := ownerOf(m.state)
	overwritten := false // this command overwrote the hold (overwrote)
	if c != nil && isRelease(c.cmd) && releaseNotOwner(c.value, m.state) {
		// The release changed nothing; a state read since may already
		// show later commands (another client's release), so it is not
		// this command's to apply. What reads as "not owner" depends on
		// the lock (releaseNotOwner): a Redisson-style release answers 0
		// when it took one hold of several (the count 2 became 1, kept
		// at 2 here before).
		a.notOwner(m, key, lane, c, o.e.Seq, t)
		return
	}
	// A hold ended: released by this command, or its lease ran out.
	if m.state.Present() && (!st.Present() || owner != prevOwner) {
		// A script whose body the proxy never saw (EVALSHA of one
		// loaded before it started) that ended the hold before its lease
		// did is taken as a release too: the key did not run out.
		released := c != nil && (isRelease(c.cmd) || unknownScript(c.cmd)) && !notOwnerReply(c.value) && (m.expiresAt.IsZero() || c.Sent.Before(m.expiresAt))
		// A DEL (UNLINK, GETDEL, HDEL) of the hold by another client is
		// such a release too, found as release-by-other, not overwritten:
		// it is how plain-DEL locks release, the deleting client takes
		// no hold (so no two clients come to believe they hold it), and
		// release-by-other already says it may be the holder's own
		// process on another pooled connection, which the proxy cannot
		// tell apart.
		if released {
			if m.holder != "" && lane != m.holder {
				a.addFinding(Finding{Code: FindingReleaseByOther, Key: key, Lane: lane, Other: m.holder, At: t,
					Events:  []uint64{m.holderSeq, o.e.Seq},
					Message: sim.M("proxy.finding.release-by-other", "Key", key, "Lane", a.p.laneLabel(lane), "Other", a.p.laneLabel(m.holder))})
			}
		} else if a.overwrote(m, c, lane, st, owner) {
			// Another client's command wrote a new owner over the hold
			// (or removed the key) with lease left: the holder never
			// released and its lease did not run out. It may still
			// believe it holds the lock, so it is stale, as after an
			// expiry; the writer of a new owner holds it (below), and
			// this finding says both may believe they hold it: no
			// overlap finding of its own.
			left := sim.M("proxy.finding.no-ttl")
			if !m.expiresAt.IsZero() {
				left = sim.M("proxy.finding.lease-left", "Left", sim.Millis(m.expiresAt.Sub(c.Sent).Milliseconds()))
			}
			id := "proxy.finding.overwritten"
			if !st.Present() {
				id = "proxy.finding.overwritten-deleted"
			}
			f := a.addFinding(Finding{Code: FindingOverwritten, Key: key, Lane: lane, Other: m.holder, At: t,
				Events: []uint64{m.holderSeq, o.e.Seq},
				Message: sim.M(id, "Key", key, "Lane", a.p.laneLabel(lane), "Other", a.p.laneLabel(m.holder),
					"Command", c.Name, "Left", left)})
			m.stale = &staleHold{lane: m.holder, owner: prevOwner, expiredAt: t, seq: f, overwritten: true}
			overwritten = true
		} else if m.holder != "" {
			at := m.expiresAt
			if at.IsZero() || at.After(t) {
				at = t // a fault (expire, restart) ended it early
			}
			if _, believes := m.believers[m.holder]; believes {
				f := a.addFinding(Finding{Code: FindingLeaseExpired, Key: key, Lane: m.holder, At: at,
					Events:  []uint64{m.holderSeq, o.e.Seq},
					Message: sim.M("proxy.finding.lease-expired", "Key", key, "Lane", a.p.laneLabel(m.holder))})
				m.stale = &staleHold{lane: m.holder, owner: prevOwner, expiredAt: at, seq: f}
			}
		}
		m.holder, m.holderSeq, m.expiresAt, m.expiresLow = "", 0, time.Time{}, time.Time{}
	}
	// A new hold. A sweep can read a new owner's key before the command
	// that wrote it reaches the analyzer (the race behind a missed
	// overlap): that command, naming the owner, still claims it.
	claim := m.unclaimed && c != nil && owner == prevOwner && namesOwner(c.cmd, owner)
	if st.Present() && (!m.state.Present() || owner != prevOwner || claim) && lane != "" {
		m.unclaimed = false
		m.holder, m.holderSeq = lane, o.e.Seq
		if c != nil {
			m.believers[lane] = o.e.Seq
		}
		if m.stale != nil && !overwritten {
			overlap := "proxy.finding.overlap"
			if m.stale.overwritten {
				overlap = "proxy.finding.overlap-overwritten"
			}
			switch {
			case owner == m.stale.owner:
				a.addFinding(Finding{Code: FindingRenewalRecreated, Key: key, Lane: lane, Other: m.stale.lane, At: t,
					Events:  []uint64{m.stale.seq, o.e.Seq},
					Message: sim.M("proxy.finding.renewal-recreated", "Key", key, "Lane", a.p.laneLabel(lane))})
			case m.stale.lane != lane:
				a.addFinding(Finding{Code: FindingOverlap, Key: key, Lane: lane, Other: m.stale.lane, At: t,
					Events:  []uint64{m.stale.seq, o.e.Seq},
					Message: sim.M(overlap, "Key", key, "Lane", a.p.laneLabel(lane), "Other", a.p.laneLabel(m.stale.lane))})
			}
		}
	}
	if c != nil && isRelease(c.cmd) {
		if !(st.Present() && m.holder == lane) {
			delete(m.believers, lane)
		}
		if m.stale != nil && m.stale.lane == lane {
			m.stale = nil
		}
	}
	if st.Present() && st.PTTL >= 0 {
		m.expiresAt = st.Read.Add(time.Duration(st.PTTL) * time.Millisecond)
		from := st.Read
		if t.Before(from) {
			from = t
		}
		m.expiresLow = from.Add(time.Duration(st.PTTL) * time.Millisecond)
	} else if !st.Present() || st.PTTL == -1 {
		m.expiresAt, m.expiresLow = time.Time{}, time.Time{}
	}
	if lane == "" && st.Present() && (!m.state.Present() || owner != prevOwner) {
		m.unclaimed = true
	} else if !st.Present() {
		m.unclaimed = false
	}
	st.Holder, st.Owner, st.Cause = m.holder, owner, o.e.Seq
	m.state = st
	stCopy := st
	a.p.trace.add(Event{Kind: EventLock, At: st.Read, Lane: lane, Lock: &stCopy})
}

// overwrote reports whether c, sent by lane, ended m's hold by writing
// the key (st after it, owner its owner id) before the hold's lease ran
// out, as no lock does to another's hold: a plain SET (no NX) of a new
// token, an HSET of another owner, an acquire script that does not check
// the owner, a PEXPIRE 0. It is asked only of a command that is no
// release (update's released), and says no unless each of these holds:
//   - the hold's lane is another one, and it acquired and sent no release
//     since (a believer);
//   - c did not fail (an error or nil reply changed nothing: a read by
//     the lock reader may show a later command's write) and is no SET NX
//     answered OK (it found the key absent: the hold had ended before);
//   - c was answered before the earliest time the lease could run out
//     (expiresLow), so Redis ran it while the key still had its lease:
//     expiresAt, counted from after the read, may be late by the read's
//     round trip, and an acquire right after the real expiry is no
//     overwrite;
//   - c names the new owner among its arguments (it wrote it, not a
//     later command the read already shows), or, the key gone, c's reply
//     is no "did nothing" (0, nil: notOwnerReply).
//
// Called with a.mu held.
func (a *analyzer) overwrote(m *lockModel, c *CommandEvent, lane string, st LockState, owner string) bool {
	if c == nil || lane == "" || m.holder == "" || lane == m.holder {
		return false
	}
	if _, believes := m.believers[m.holder]; !believes {
		return false
	}
	if c.value.IsError() || c.value.Null {
		return false
	}
	if nx, _ := c.cmd.setNX(); nx {
		return false
	}
	if !m.expiresLow.IsZero() && !c.Replied.Before(m.expiresLow) {
		return false
	}
	if st.Present() {
		return namesOwner(c.cmd, owner)
	}
	return !notOwnerReply(c.value)
}

// notOwner handles a release answered "not owner" (nil, 0, -1): a finding
// when the client had acquired and sent no release since; it no longer
// believes it holds the lock. Called with a.mu held.
func (a *analyzer) notOwner(m *lockModel, key, lane string, c *CommandEvent, seq uint64, t time.Time) {
	if _, believed := m.believers[lane]; believed && !c.ReplyLost && m.holder != lane {
		a.addFinding(Finding{Code: FindingReleaseNotOwner, Key: key, Lane: lane, At: t, Events: []uint64{seq},
			Message: sim.M("proxy.finding.release-not-owner", "Key", key, "Lane", a.p.laneLabel(lane), "Reply", c.Reply)})
	}
	delete(m.believers, lane)
	if m.stale != nil && m.stale.lane == lane {
		m.stale = nil
	}
	st := m.state
	st.Read, st.Cause = time.Now(), seq
	a.p.trace.add(Event{Kind: EventLock, At: st.Read, Lane: lane, Lock: &st})
}

// addFinding keeps f (the oldest go beyond maxFindings), traces it and
// returns its event's Seq; called with a.mu held.
func (a *analyzer) addFinding(f Finding) uint64 {
	if len(a.findings) >= maxFindings {
		a.findings = a.findings[1:]
	}
	a.findings = append(a.findings, f)
	fc := f
	return a.p.trace.add(Event{Kind: EventFinding, At: f.At, Lane: f.Lane, Finding: &fc}).Seq
}

// snapshot returns the lock states and findings.
func (a *analyzer) snapshot() ([]LockState, []Finding) {
	a.mu.Lock()
	defer a.mu.Unlock()
	keys := make([]string, 0, len(a.locks))
	for k := range a.locks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	locks := make([]LockState, 0, len(keys))
	for _, k := range keys {
		locks = append(locks, a.locks[k].state)
	}
	return locks, append([]Finding(nil), a.findings...)
}

// presentKeys are the lock keys last read as present.
func (a *analyzer) presentKeys() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for k, m := range a.locks {
		if m.state.Present() {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// laneLabel names a lane for people: its client name, else its lane id
// and address.
func (p *Proxy) laneLabel(lane string) string {
	if lane == "" {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id, _ := strconv.ParseInt(lane[1:], 10, 64)
	if s, ok := p.sessions[id]; ok {
		if info := s.clientInfo(); info.Name != "" {
			return info.Name
		}
	}
	for _, info := range p.closedLanes {
		if info.Lane == lane && info.Name != "" {
			return info.Name
		}
	}
	return lane
}
