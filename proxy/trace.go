package proxy

import (
	"sync"
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
// on lock keys and connection commands; for others Reply is its type.
type CommandEvent struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
	// Locks are the lock keys the command named (for EXEC, those of the
	// commands it ran).
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
}

// ring is the trace: the last len(buf) events, and the subscribers that
// get each new one.
type ring struct {
	mu      sync.Mutex
	buf     []Event
	next    uint64 // Seq of the next event
	dropped uint64 // events overwritten
	subs    map[*Subscription]struct{}
}

func newRing(size int) *ring {
	return &ring{buf: make([]Event, size), next: 1, subs: map[*Subscription]struct{}{}}
}

// add numbers e, stores it (overwriting the oldest when full) and offers
// it to every subscriber without blocking.
func (r *ring) add(e Event) Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Seq = r.next
	r.next++
	slot := &r.buf[e.Seq%uint64(len(r.buf))]
	if slot.Seq != 0 {
		r.dropped++
	}
	*slot = e
	for s := range r.subs {
		s.offer(e)
	}
	return e
}

// events returns the stored events, oldest first, and how many older ones
// the ring overwrote.
func (r *ring) events() ([]Event, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Event, 0, len(r.buf))
	first := uint64(1)
	if r.next > uint64(len(r.buf)) {
		first = r.next - uint64(len(r.buf))
	}
	for s := first; s < r.next; s++ {
		out = append(out, r.buf[s%uint64(len(r.buf))])
	}
	return out, r.dropped
}

// Subscription receives the trace's new events on C. A subscriber that
// does not keep up never slows the proxy: when C is full the events are
// dropped, and once there is room again C gets an EventResync first (take
// a new Snapshot). Close ends it.
type Subscription struct {
	C       <-chan Event
	c       chan Event
	r       *ring
	lagging bool
	dropped uint64
}

// Dropped counts the events this subscriber missed.
func (s *Subscription) Dropped() uint64 {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return s.dropped
}

// offer sends e without blocking; called with r.mu held.
func (s *Subscription) offer(e Event) {
	if s.lagging {
		select {
		case s.c <- Event{Kind: EventResync, At: e.At}:
			s.lagging = false
		default:
			s.dropped++
			return
		}
	}
	select {
	case s.c <- e:
	default:
		s.lagging = true
		s.dropped++
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

func (r *ring) subscribe(buf int) *Subscription {
	c := make(chan Event, buf)
	s := &Subscription{C: c, c: c, r: r}
	r.mu.Lock()
	r.subs[s] = struct{}{}
	r.mu.Unlock()
	return s
}
