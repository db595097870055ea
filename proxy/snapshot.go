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
	return Snapshot{Started: p.started, Now: time.Now(), Listen: p.Addr(), Upstream: p.Upstream(), LockGlobs: p.locks,
		Lanes: lanes, Redis: RedisLane{Locks: locks}, Events: events, Dropped: dropped, Untraced: p.trace.untraced.Load(), Findings: findings,
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
