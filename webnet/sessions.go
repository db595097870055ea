package webnet

import (
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SessionTable bounds the open sessions: web.Config.MaxSessions in all and
// web.Config.MaxSessionsPerAddr per client address (hardening finding 4: 100
// idle websockets from one client, answering pings, once locked everyone
// else out for the 30 minutes of the idle timeout). When the server is
// full, a new connection takes the place of the session idle longest, if
// it has been idle for web.Config.IdleGrace. The sessions never talk to each
// other, so there is nothing to broadcast and no hub goroutine: a table
// under a lock is all the bounds need.
//
// The last web.Config.SessionReserve places are kept for addresses that have
// no session open (issue 37, item 7: five addresses of twenty busy
// sessions each filled a server of 100, and the next visitor got busy): an
// address with sessions open already takes a new one only below
// max-reserve (or in place of a session idle for the grace).
type SessionTable struct {
	mu      sync.Mutex
	max     int
	perAddr int
	reserve int
	grace   time.Duration
	now     atomic.Pointer[func() time.Time] // time.Now; a test's clock
	open    map[*SessionSlot]struct{}
	byAddr  map[string]int
}

// SessionSlot is one session's place in the table.
type SessionSlot struct {
	addr string
	// last is the time of the session's last message (UnixNano): touched
	// without the table's lock, which a class move's 10,000 students
	// would queue for.
	last atomic.Int64
	// evicted is closed when a new connection takes the slot; the session
	// then closes with code 4000.
	evicted chan struct{}
	gone    bool // no longer counted (under the table's lock)
}

// Refusal says why a session could not open.
type Refusal int

const (
	Admitted Refusal = iota
	RefusedFull
	RefusedAddr
)

// NewSessionTable is a table of max sessions, perAddr per client address,
// the last reserve places kept for addresses with none open, where a
// session idle for grace may be evicted.
func NewSessionTable(max, perAddr, reserve int, grace time.Duration) *SessionTable {
	t := &SessionTable{max: max, perAddr: perAddr, reserve: min(reserve, max-1), grace: grace,
		open: map[*SessionSlot]struct{}{}, byAddr: map[string]int{}}
	t.SetClock(time.Now)
	return t
}

// SetClock makes the table read time from now (tests).
func (t *SessionTable) SetClock(now func() time.Time) {
	t.now.Store(&now)
}

// clock is the table's time now.
func (t *SessionTable) clock() time.Time { return (*t.now.Load())() }

// Add opens a slot for a session from addr. When the server is full it
// evicts the slot idle longest, if idle for the grace at least, and
// returns it as well: its session must be closed.
func (t *SessionTable) Add(addr string) (*SessionSlot, Refusal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byAddr[addr] >= t.perAddr {
		return nil, RefusedAddr
	}
	now := t.clock()
	limit := t.max
	if t.byAddr[addr] > 0 {
		limit = t.max - t.reserve // the reserve is for addresses with nothing open
	}
	if len(t.open) >= limit {
		var idlest *SessionSlot
		for s := range t.open {
			if idlest == nil || s.last.Load() < idlest.last.Load() {
				idlest = s
			}
		}
		if idlest == nil || now.Sub(time.Unix(0, idlest.last.Load())) < t.grace {
			return nil, RefusedFull
		}
		t.removeLocked(idlest)
		close(idlest.evicted)
	}
	s := &SessionSlot{addr: addr, evicted: make(chan struct{})}
	s.last.Store(now.UnixNano())
	t.open[s] = struct{}{}
	t.byAddr[addr]++
	return s, Admitted
}

// Touch records that s's session got a message.
func (t *SessionTable) Touch(s *SessionSlot) {
	s.last.Store(t.clock().UnixNano())
}

// Remove frees s's slot (once; an evicted slot is already free).
func (t *SessionTable) Remove(s *SessionSlot) {
	t.mu.Lock()
	t.removeLocked(s)
	t.mu.Unlock()
}

func (t *SessionTable) removeLocked(s *SessionSlot) {
	if s.gone {
		return
	}
	s.gone = true
	delete(t.open, s)
	if t.byAddr[s.addr]--; t.byAddr[s.addr] <= 0 {
		delete(t.byAddr, s.addr)
	}
}

// Len returns the number of sessions counted.
func (t *SessionTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.open)
}

// lastForwarded is the last address of the comma-separated header values
// (each element's prefix field, such as for=, when prefix is set), when it
// is an IP address.
func lastForwarded(values []string, prefix string) (string, bool) {
	if len(values) == 0 {
		return "", false
	}
	elems := strings.Split(values[len(values)-1], ",")
	v := strings.TrimSpace(elems[len(elems)-1])
	if prefix != "" {
		found := false
		for _, f := range strings.Split(v, ";") {
			f = strings.TrimSpace(f)
			if len(f) > len(prefix) && strings.EqualFold(f[:len(prefix)], prefix) {
				v, found = strings.Trim(f[len(prefix):], `"`), true
				break
			}
		}
		if !found {
			return "", false
		}
	}
	if h, _, err := net.SplitHostPort(v); err == nil {
		v = h
	}
	a, err := netip.ParseAddr(strings.Trim(v, "[]"))
	if err != nil {
		return "", false
	}
	return AddrKey(a), true
}

// Evicted is closed when a new connection takes the slot: its session then
// closes with code 4000.
func (s *SessionSlot) Evicted() <-chan struct{} { return s.evicted }
