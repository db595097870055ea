package proxy

import (
	"sort"
	"time"
)

// Snapshot is the live page's model: everything the proxy shows at one
// moment. Lanes are the client connections (open and recently closed),
// Redis the lock keys as last read, Events the trace (oldest first; the
// ring dropped Dropped older ones), Findings what may be lock failures,
// Suggested the keys the proxy takes for locks without -locks and why
// ("set-nx", "script-ttl"), Chosen those of them the user ticked.
type Snapshot struct {
	Started   time.Time    `json:"started"`
	Now       time.Time    `json:"now"`
	Listen    string       `json:"listen"`
	Upstream  string       `json:"upstream"`
	LockGlobs []string     `json:"lock_globs,omitempty"`
	Lanes     []ClientInfo `json:"lanes"`
	Redis     RedisLane    `json:"redis"`
	Events    []Event      `json:"events"`
	Dropped   uint64       `json:"dropped"`
	// First is the Seq of the oldest event the ring still holds: a
	// window (Window) that starts after it has older events to fetch
	// (EventsBefore).
	First uint64 `json:"first"`
	// Untraced counts the plain commands (on no lock key, running no
	// script) forwarded beyond 10,000 a second and not traced.
	Untraced  uint64            `json:"untraced,omitempty"`
	Findings  []Finding         `json:"findings"`
	Suggested map[string]string `json:"suggested,omitempty"`
	// Chosen are the suggested keys ticked as locks (ChooseLocks); empty
	// means every suggested key is one.
	Chosen  []string  `json:"chosen,omitempty"`
	Scripts []*Script `json:"scripts,omitempty"`
}

// RedisLane is the Redis lane: each lock key's contents and PTTL as last
// read (each EventLock in Events has them after every command).
type RedisLane struct {
	Locks []LockState `json:"locks"`
}

// Snapshot returns the current model. Events are copies; the proxy goes
// on while the caller reads it.
func (p *Proxy) Snapshot() Snapshot {
	events, dropped := p.trace.events()
	return p.snapshot(events, dropped)
}

// The live page's window: what a page is sent when it opens or resyncs.
const (
	// WindowEvents is how many of the newest events Window gives at most.
	WindowEvents = 500
	// WindowBytes bounds the window's events by their estimated JSON
	// size, so a resync costs the same whatever the ring holds (20,000
	// events of large script bodies as much as 10).
	WindowBytes = 256 << 10
	// WindowFindings is how many of the newest findings Window gives at
	// most (the proxy keeps 1,000).
	WindowFindings = 200
)

// Window is Snapshot with only the newest events: at most WindowEvents,
// and no more than about WindowBytes of them (at least one; strings
// counted as their bytes, so text JSON must escape weighs more), oldest
// first, the newest WindowFindings findings, and without the scripts'
// bodies (Scripts). Older ones are read
// by EventsBefore, from Snapshot.First on. A live page is sent this, not
// the whole ring, when it opens and at each resync: its cost is bounded
// whatever the trace size.
func (p *Proxy) Window() Snapshot {
	events, _ := p.trace.before(0, WindowEvents, WindowBytes)
	p.trace.mu.Lock()
	dropped := p.trace.dropped
	p.trace.mu.Unlock()
	s := p.snapshot(events, dropped)
	s.Scripts = nil
	s.Findings = s.Findings[max(0, len(s.Findings)-WindowFindings):]
	return s
}

// EventsBefore returns up to n events (at most WindowEvents, and about
// WindowBytes; at least one when any is older) that came just before the
// event numbered seq, oldest first, and the Seq of the oldest event the
// ring holds: none is older than it. It is how a page scrolled back
// fetches what its window left out.
func (p *Proxy) EventsBefore(seq uint64, n int) ([]Event, uint64) {
	return p.trace.before(max(seq, 1), min(max(n, 1), WindowEvents), WindowBytes)
}

// snapshot is the model with events as the trace's.
func (p *Proxy) snapshot(events []Event, dropped uint64) Snapshot {
	locks, findings := p.an.snapshot()
	open := p.openSessions()
	p.mu.Lock()
	lanes := append([]ClientInfo(nil), p.closedLanes...)
	suggested := make(map[string]string, len(p.suggest))
	for k, v := range p.suggest {
		suggested[k] = v
	}
	chosen := p.chosenKeys()
	scripts := make([]*Script, 0, len(p.scripts))
	for _, s := range p.scripts {
		c := *s
		scripts = append(scripts, &c)
	}
	p.mu.Unlock()
	for _, s := range open {
		lanes = append(lanes, s.clientInfo())
	}
	sort.Slice(lanes, func(i, j int) bool {
		a, _ := laneID(lanes[i].Lane)
		b, _ := laneID(lanes[j].Lane)
		return a < b
	})
	sort.Slice(scripts, func(i, j int) bool { return scripts[i].SHA < scripts[j].SHA })
	p.trace.mu.Lock()
	first := p.trace.first()
	p.trace.mu.Unlock()
	return Snapshot{Started: p.started, Now: time.Now(), Listen: p.Addr(), Upstream: p.Upstream(), LockGlobs: p.locks,
		Lanes: lanes, Redis: RedisLane{Locks: locks}, Events: events, Dropped: dropped, First: first, Untraced: p.trace.untraced.Load(), Findings: findings,
		Suggested: suggested, Chosen: chosen, Scripts: scripts}
}

// Subscribe returns a subscription to new trace events with a channel of
// buf events (at least 1). A subscriber that falls behind loses events,
// then gets an EventResync: take a new Snapshot. It is sent at most
// 5,000 events a second and one EventResync every 2 seconds (a page draws no
// more). Close it when done.
func (p *Proxy) Subscribe(buf int) *Subscription {
	return p.trace.subscribe(max(buf, 1), true)
}
