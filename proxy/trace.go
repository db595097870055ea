package proxy

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// EventKind says what an Event records.
type EventKind string

// The kinds of trace events.
const (
	EventConnect EventKind = "connect" // a client connected (Client)
	EventClient  EventKind = "client"  // a client named itself (Client: CLIENT SETNAME, SETINFO, HELLO SETNAME)
	EventClose   EventKind = "close"   // a client's connection ended (Client; Error says why when not by the client)
	EventCommand EventKind = "command" // a command and its raw reply (Command)
	EventPush    EventKind = "push"    // a reply that answers no command: a pub/sub message, a RESP3 push (Command: Reply)
	EventLock    EventKind = "lock"    // a lock key's contents and PTTL after a command (Lock)
	EventFault   EventKind = "fault"   // an injected fault (Fault)
	EventFinding EventKind = "finding" // a finding (Finding)
	// EventResync is sent to a subscriber that missed events (its channel
	// was full): it should take a new Snapshot. Never stored in the ring.
	EventResync EventKind = "resync"
)

// Event is one entry of the trace. Seq numbers events from 1 in the order
// the proxy recorded them; At is the wall-clock time the event stands for
// (a command's: when it was sent upstream).
type Event struct {
	Seq     uint64        `json:"seq"`
	Kind    EventKind     `json:"kind"`
	At      time.Time     `json:"at"`
	Lane    string        `json:"lane,omitempty"`
	Client  *ClientInfo   `json:"client,omitempty"`
	Command *CommandEvent `json:"command,omitempty"`
	Lock    *LockState    `json:"lock,omitempty"`
	Fault   *FaultEvent   `json:"fault,omitempty"`
	Finding *Finding      `json:"finding,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// CommandEvent is a command one client sent and what came back. Args keep
// only what may be kept (command.traceArgs): credentials and the values of
// keys that are not locks are Redacted. Reply is the reply written like
// redis-cli (Value.String) and Raw its RESP bytes, both only for commands
// on lock keys and connection and server commands (not CONFIG, ACL,
// SLOWLOG); for others Reply is its shape (shape), EXEC's element by
// element (execShown), and Raw is empty; an error never repeats a hidden
// argument (errorShown).
// Each argument and Reply is cut to maxTracedText bytes (boundEvent).
type CommandEvent struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
	// Locks are the lock keys the command named (for EXEC, those of the
	// commands queued since MULTI; a command answered QUEUED runs at its
	// EXEC, which carries its reply).
	Locks   []string  `json:"locks,omitempty"`
	Sent    time.Time `json:"sent"`
	Replied time.Time `json:"replied"`
	Reply   string    `json:"reply"`
	Raw     string    `json:"raw,omitempty"`
	// ReplyLost: a fault dropped the reply (the command ran).
	ReplyLost bool `json:"reply_lost,omitempty"`
	// Script is the body's digest of EVAL, EVALSHA and SCRIPT LOAD.
	Script string `json:"script,omitempty"`
	value  Value
	cmd    command
	// unread: sent without a read after it (pending.unread).
	unread bool
	// tx: for EXEC, the queued commands on lock keys (and scripts) it
	// ran, with their replies from its array (session.endTx).
	tx []txCommand
}

// ring is the trace: the last len(buf) events, and the subscribers that
// get each new one.
type ring struct {
	mu      sync.Mutex
	buf     []Event
	next    uint64 // Seq of the next event
	dropped uint64 // events overwritten
	subs    map[*Subscription]struct{}
	now     func() time.Time // time.Now; a test's clock
	// plainBudget is how many more plain commands (plainCommand) may be
	// traced before the next refill (runPlainRefills); untraced counts
	// those that were not (Snapshot.Untraced).
	plainBudget atomic.Int64
	untraced    atomic.Uint64
}

// At most plainTraceRate plain commands (a command on no lock key that
// runs no script, plainCommand) a second are traced, refilled every
// resyncRetry: beyond it they are forwarded untouched and only counted
// (Snapshot.Untraced). A ring of 10,000 events would hold under a tenth
// of a second of a benchmark's commands and lose the lock events to
// them, and tracing each one is most of what forwarding it costs.
const plainTraceRate = 10000

// plainRate is where the plain commands' trace budget comes from: budget
// plain commands may be traced from one refill to the next, and a refill
// comes on each tick (nil: never, the budget is spent once). Config's
// plainRate injects a test's; the default (defaultPlainRate) is
// plainTraceRate's share of resyncRetry, on a ticker of resyncRetry.
type plainRate struct {
	budget int64
	tick   <-chan time.Time
}

// defaultPlainRate is plainTraceRate as a budget refilled every
// resyncRetry by a ticker; stop stops the ticker.
func defaultPlainRate() (r plainRate, stop func()) {
	t := time.NewTicker(resyncRetry)
	return plainRate{budget: plainTraceRate * int64(resyncRetry) / int64(time.Second), tick: t.C}, t.Stop
}

// runPlainRefills sets the plain commands' budget to rate.budget on each
// of rate's ticks until ctx ends.
func (r *ring) runPlainRefills(ctx context.Context, rate plainRate) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-rate.tick:
			r.plainBudget.Store(rate.budget)
		}
	}
}

// takePlain reports whether one more plain command may be traced now;
// when not, it counts it as untraced.
func (r *ring) takePlain() bool {
	if r.plainBudget.Add(-1) >= 0 {
		return true
	}
	r.untraced.Add(1)
	return false
}

// runResyncs retries lagging subscribers' resyncs until ctx ends.
func (r *ring) runResyncs(ctx context.Context) {
	t := time.NewTicker(resyncRetry)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.retryResyncs(now)
		}
	}
}

// newRing returns a ring of size events whose plain commands' budget
// starts at plainBudget (refilled by runPlainRefills).
func newRing(size int, plainBudget int64) *ring {
	r := &ring{buf: make([]Event, size), next: 1, subs: map[*Subscription]struct{}{}, now: time.Now}
	r.plainBudget.Store(plainBudget)
	return r
}

// add numbers e, stores it (overwriting the oldest when full) and offers
// it to every subscriber without blocking; what it keeps is cut to
// maxTracedText bytes a string first (boundEvent).
func (r *ring) add(e Event) Event {
	boundEvent(&e)
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Seq = r.next
	r.next++
	slot := &r.buf[e.Seq%uint64(len(r.buf))]
	if slot.Seq != 0 {
		r.dropped++
	}
	*slot = e
	if len(r.subs) > 0 {
		now := r.now()
		for s := range r.subs {
			s.offer(e, now)
		}
	}
	return e
}

// retryResyncs sends the resync that a lagging subscriber is owed once
// its channel has room and resyncEvery has passed, even when no new event
// comes to carry it.
func (r *ring) retryResyncs(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for s := range r.subs {
		if s.lagging {
			s.resync(now)
		}
	}
}

// events returns the stored events, oldest first, and how many older ones
// the ring overwrote.
func (r *ring) events() ([]Event, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Event, 0, len(r.buf))
	for s := r.first(); s < r.next; s++ {
		out = append(out, r.buf[s%uint64(len(r.buf))])
	}
	return out, r.dropped
}

// first is the Seq of the oldest event the ring still holds (next when
// it holds none); called with r.mu held.
func (r *ring) first() uint64 {
	if r.next > uint64(len(r.buf)) {
		return r.next - uint64(len(r.buf))
	}
	return 1
}

// before returns at most n events older than Seq seq (all the newest
// ones below it, 0 for the newest of the ring), oldest first, stopping
// early when their estimated size (eventBytes) passes budget bytes (at
// least one is returned when any is older), and the Seq of the oldest
// event the ring holds.
func (r *ring) before(seq uint64, n, budget int) ([]Event, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := r.first()
	if seq == 0 || seq > r.next {
		seq = r.next
	}
	var out []Event
	size := 0
	for s := seq; s > first && len(out) < n; s-- {
		e := r.buf[(s-1)%uint64(len(r.buf))]
		size += eventBytes(&e)
		if len(out) > 0 && size > budget {
			break
		}
		out = append(out, e)
	}
	slices.Reverse(out)
	return out, first
}

// eventBytes estimates e's size as JSON on the page, in bytes: a fixed
// part for the fields every event has, and the strings that vary.
func eventBytes(e *Event) int {
	n := 160 + len(e.Error)
	if c := e.Command; c != nil {
		n += 120 + len(c.Name) + len(c.Reply) + 2*len(c.Raw) + len(c.Script)
		for _, a := range c.Args {
			n += len(a) + 4
		}
		for _, k := range c.Locks {
			n += len(k) + 4
		}
	}
	if l := e.Lock; l != nil {
		n += 120 + len(l.Key) + len(l.Value) + len(l.Owner)
		for k, v := range l.Fields {
			n += len(k) + len(v) + 6
		}
	}
	if c := e.Client; c != nil {
		n += 120 + len(c.Name) + len(c.Addr) + len(c.Library) + len(c.LibraryVersion)
	}
	if f := e.Finding; f != nil {
		n += 400 + len(f.Key) + 12*len(f.Events)
	}
	if f := e.Fault; f != nil {
		n += 100 + len(f.Lane) + len(f.Key)
	}
	return n
}

// What a subscriber (a live page) is sent at most: subscriberRate plain
// events a second on average, subscriberBurst at once, and one
// EventResync every resyncEvery. A browser draws no more, and the page's
// encoding runs on the proxy's machine: plain events beyond them are
// skipped and counted, other events that find the channel full are
// dropped and counted, never waited for, and the resync's Snapshot
// carries what was dropped.
const (
	subscriberRate  = 5000
	subscriberBurst = 5000
	resyncEvery     = 2 * time.Second
	// resyncRetry is how often a lagging subscriber is checked for room
	// when no event comes.
	resyncRetry = 100 * time.Millisecond
)

// Subscription receives the trace's new events on C. A subscriber that
// does not keep up never slows the proxy: plain events (a command on no
// lock key that runs no script, a push) beyond 5,000 a second
// (subscriberRate) are skipped and counted (Skipped); when C is full the
// events are dropped, and once there is room again C gets an EventResync
// first (take a new Snapshot), at most one every 2 seconds (resyncEvery).
// Close ends it.
type Subscription struct {
	C <-chan Event
	c chan Event
	r *ring
	// Under r.mu:
	lagging  bool
	dropped  uint64
	skipped  uint64    // plain events beyond the rate (offer)
	tokens   float64   // events it may be sent now
	refilled time.Time // when tokens was last refilled
	resynced time.Time // the last EventResync
	capped   bool      // held to subscriberRate and resyncEvery (a page)
}

// Dropped counts the events this subscriber missed and was sent a
// resync for.
func (s *Subscription) Dropped() uint64 {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return s.dropped
}

// Skipped counts the plain events (a command on no lock key that runs no
// script, a push) this subscriber was not sent because they came faster
// than 5,000 a second; no resync follows them.
func (s *Subscription) Skipped() uint64 {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return s.skipped
}

// offer sends e without blocking; called with r.mu held. Beyond the
// rate a plain event (plainEvent) is skipped and counted, with no resync:
// the page's model (lanes, lock states, findings, faults) does not need
// it. Any other event is sent while the channel has room; when it has
// none the subscriber lags and owes a resync.
func (s *Subscription) offer(e Event, now time.Time) {
	if s.lagging && !s.resync(now) {
		s.dropped++
		return
	}
	if !s.capped {
		s.tokens = subscriberBurst
	} else if s.tokens < 1 {
		s.tokens = min(subscriberBurst, s.tokens+now.Sub(s.refilled).Seconds()*subscriberRate)
		s.refilled = now
	}
	if s.tokens < 1 && plainEvent(e) {
		s.skipped++
		return
	}
	select {
	case s.c <- e:
		s.tokens = max(s.tokens-1, 0)
		return
	default:
	}
	s.lagging = true
	s.dropped++
}

// plainEvent reports whether e is a command on no lock key that runs no
// script, or a push: a row on its client's lane that changes nothing else
// the page shows.
func plainEvent(e Event) bool {
	switch e.Kind {
	case EventPush:
		return true
	case EventCommand:
		return e.Command != nil && len(e.Command.Locks) == 0 && e.Command.Script == "" && e.Error == ""
	}
	return false
}

// resync sends a lagging subscriber its EventResync when it is due and
// there is room; it reports whether it did. Called with r.mu held.
func (s *Subscription) resync(now time.Time) bool {
	if s.capped && !s.resynced.IsZero() && now.Sub(s.resynced) < resyncEvery {
		return false
	}
	select {
	case s.c <- Event{Kind: EventResync, At: now}:
		s.lagging, s.resynced = false, now
		return true
	default:
		return false
	}
}

// Close ends the subscription and closes C.
func (s *Subscription) Close() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	if _, ok := s.r.subs[s]; ok {
		delete(s.r.subs, s)
		close(s.c)
	}
}

// subscribe adds a subscriber with a channel of buf events; capped holds
// it to subscriberRate and resyncEvery.
func (r *ring) subscribe(buf int, capped bool) *Subscription {
	c := make(chan Event, buf)
	s := &Subscription{C: c, c: c, r: r, tokens: subscriberBurst, refilled: r.now(), capped: capped}
	r.mu.Lock()
	r.subs[s] = struct{}{}
	r.mu.Unlock()
	return s
}
