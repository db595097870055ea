package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// FaultKind names an injected fault (and the proxy's own trouble).
type FaultKind string

// The faults. Each is an EventFault in the trace where it happened.
const (
	// FaultPause holds a client's requests and replies for a while: a GC
	// pause or a partition as the client sees it. FaultPauseEnd ends it.
	FaultPause    FaultKind = "pause"
	FaultPauseEnd FaultKind = "pause-end"
	// FaultLoseReply: the client's next command runs, its reply is
	// dropped and the connection closed, as a timeout looks.
	FaultLoseReply FaultKind = "lose-reply"
	// FaultDelay delays each reply to a client by For, for a span.
	FaultDelay FaultKind = "delay"
	// FaultExpire deletes a lock key now, as if its lease had run out.
	FaultExpire FaultKind = "expire"
	// FaultRestart restarts the embedded upstream empty (a fresh miniredis
	// on the same address: no keys, no cached scripts): a failover that
	// lost the keys. Every client connection is closed by it.
	FaultRestart FaultKind = "restart"
	// FaultClose closes a client's connection.
	FaultClose FaultKind = "close"
	// FaultObserverBehind is not injected: the lock reader fell behind (or
	// failed) and some lock states were not read. A lock reader's
	// connection found ended is dialed again and the read retried once
	// first (analyzer.read), so a restart alone gives none.
	FaultObserverBehind FaultKind = "observer-behind"
)

// FaultEvent is an injected fault: its kind, the lane or key it hit, and
// its duration (ms) where it has one.
type FaultEvent struct {
	Kind FaultKind `json:"kind"`
	Lane string    `json:"lane,omitempty"`
	Key  string    `json:"key,omitempty"`
	MS   int64     `json:"ms,omitempty"`
}

// ErrNoClient is wrapped by a fault's error when no open connection
// matches the client named.
var ErrNoClient = errors.New("proxy: no open client connection matches")

// ErrNotEmbedded is returned by RestartUpstream on a -redis upstream,
// which the proxy does not own.
var ErrNotEmbedded = errors.New("proxy: only the embedded Redis can be restarted by the proxy; a -redis upstream is not the proxy's to restart")

// ErrNotLock is wrapped by ExpireKey's error for a key that is not a lock.
var ErrNotLock = errors.New("proxy: not a lock key")

// maxFaultDuration bounds a pause or a delay.
const maxFaultDuration = 10 * time.Minute

// match returns the open sessions client names: a lane ("c3"), a client
// name (CLIENT SETNAME) or an address.
func (p *Proxy) match(client string) ([]*session, error) {
	var out []*session
	for _, s := range p.openSessions() {
		info := s.clientInfo()
		if client == s.lane || client == info.Name || client == info.Addr {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w %q (a lane like c3, a CLIENT SETNAME name or an address)", ErrNoClient, client)
	}
	return out, nil
}

func (p *Proxy) openSessions() []*session {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*session, 0, len(p.sessions))
	for _, s := range p.sessions {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func checkDuration(what string, d time.Duration) error {
	if d <= 0 || d > maxFaultDuration {
		return fmt.Errorf("proxy: %s %s is out of range (above 0, at most %s)", what, d, maxFaultDuration)
	}
	return nil
}

// Pause holds every request and reply of the matching clients for d (at
// most 10 minutes) or until Resume: nothing reaches Redis from them and
// nothing reaches them, as in a stop-the-world pause. A client already
// paused is an error.
func (p *Proxy) Pause(client string, d time.Duration) error {
	if err := checkDuration("pause", d); err != nil {
		return err
	}
	ss, err := p.match(client)
	if err != nil {
		return err
	}
	for _, s := range ss {
		s.mu.Lock()
		if s.gate != nil {
			s.mu.Unlock()
			return fmt.Errorf("proxy: client %s is paused already", s.lane)
		}
		g := make(chan struct{})
		s.gate = g
		s.armed.Store(true)
		s.mu.Unlock()
		p.trace.add(Event{Kind: EventFault, At: time.Now(), Lane: s.lane, Fault: &FaultEvent{Kind: FaultPause, Lane: s.lane, MS: d.Milliseconds()}})
		time.AfterFunc(d, func() { p.endPause(s, g) }) // unless Resume ended it first
	}
	return nil
}

// LoseNextReply arms the matching clients: the reply to each one's next
// command is dropped and its connection closed (the command runs).
func (p *Proxy) LoseNextReply(client string) error {
	ss, err := p.match(client)
	if err != nil {
		return err
	}
	for _, s := range ss {
		s.mu.Lock()
		s.loseNext = true
		s.armed.Store(true)
		s.mu.Unlock()
	}
	return nil
}

// DelayReplies delays each reply to the matching clients by d, for the
// next span (each at most 10 minutes).
func (p *Proxy) DelayReplies(client string, d, span time.Duration) error {
	if err := checkDuration("delay", d); err != nil {
		return err
	}
	if err := checkDuration("delay span", span); err != nil {
		return err
	}
	ss, err := p.match(client)
	if err != nil {
		return err
	}
	for _, s := range ss {
		s.mu.Lock()
		s.delay, s.delayEnd = d, time.Now().Add(span)
		s.armed.Store(true)
		s.mu.Unlock()
		p.trace.add(Event{Kind: EventFault, At: time.Now(), Lane: s.lane, Fault: &FaultEvent{Kind: FaultDelay, Lane: s.lane, MS: d.Milliseconds()}})
	}
	return nil
}

// ExpireKey deletes lock key now, as if its lease had run out; a key that
// is not a lock is refused (ErrNotLock): the proxy touches no other key.
func (p *Proxy) ExpireKey(ctx context.Context, key string) error {
	if !p.isLock(key) {
		return fmt.Errorf("%w: %q", ErrNotLock, key)
	}
	if err := p.observer.Del(ctx, key).Err(); err != nil {
		return fmt.Errorf("proxy: expire %s: %w", key, err)
	}
	e := p.trace.add(Event{Kind: EventFault, At: time.Now(), Fault: &FaultEvent{Kind: FaultExpire, Key: key}})
	p.an.fault(ctx, e, []string{key})
	return nil
}

// RestartUpstream restarts the embedded Redis empty (ErrNotEmbedded on a
// -redis upstream): a fresh miniredis on the same address, so with no keys
// and no scripts, as a Redis restarted without persistence; every client
// connection closes with it, as at a failover, and the lock keys read as
// absent. The old server is closed first; a fresh one that cannot listen on
// its address is an error, and the upstream stays down (dials refused).
//
// A fresh server, not miniredis's own Restart: its Close cancels the
// context its blocking commands (BLPOP, BRPOPLPUSH, XREAD BLOCK, ...) wait
// under and Restart does not make a new one, so on the restarted server each
// returned at once without a reply (miniredis v2.40.0, redis.go blocking;
// TestRestartBlockingCommands).
func (p *Proxy) RestartUpstream(ctx context.Context) error {
	if !p.embedded() {
		return ErrNotEmbedded
	}
	p.closeShared()
	p.miniMu.Lock()
	if p.ctx.Err() != nil { // Close closes the embedded Redis after this
		p.miniMu.Unlock()
		return fmt.Errorf("proxy: restart the embedded Redis: the proxy is closed: %w", net.ErrClosed)
	}
	addr := p.mini.Addr()
	p.mini.Close()
	m := miniredis.NewMiniRedis()
	err := m.StartAddr(addr)
	if err == nil {
		p.mini = m
	}
	p.miniMu.Unlock()
	if err != nil {
		return fmt.Errorf("proxy: restart the embedded Redis on %s: %w", addr, err)
	}
	e := p.trace.add(Event{Kind: EventFault, At: time.Now(), Fault: &FaultEvent{Kind: FaultRestart}})
	for _, s := range p.openSessions() {
		s.close(errUpstreamClosed)
	}
	p.an.fault(ctx, e, p.an.presentKeys())
	return nil
}

// CloseClient closes the matching clients' connections.
func (p *Proxy) CloseClient(client string) error {
	ss, err := p.match(client)
	if err != nil {
		return err
	}
	for _, s := range ss {
		p.trace.add(Event{Kind: EventFault, At: time.Now(), Lane: s.lane, Fault: &FaultEvent{Kind: FaultClose, Lane: s.lane}})
		s.close(errors.New("proxy: closed by a fault"))
	}
	return nil
}

// maxClosedLanes bounds the ended connections the snapshot keeps.
const maxClosedLanes = 1000

// retire moves an ended session's lane to closedLanes.
func (p *Proxy) retire(s *session, info ClientInfo) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.sessions, s.id)
	if len(p.closedLanes) >= maxClosedLanes {
		p.closedLanes = p.closedLanes[1:]
	}
	p.closedLanes = append(p.closedLanes, info)
}

// laneID parses "c3".
func laneID(lane string) (int64, bool) {
	if len(lane) < 2 || lane[0] != 'c' {
		return 0, false
	}
	n, err := strconv.ParseInt(lane[1:], 10, 64)
	return n, err == nil
}
