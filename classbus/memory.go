package classbus

import (
	"context"
	"sync"
	"time"
)

// subscriptionBuffer is how many messages a subscriber may lag behind before
// the bus drops it (ErrLagged). A class publishes a message per presenter
// step and per answer, join and leave, and a server subscribes once per
// class (its owner, its feed): 10,000 students who join or answer at once
// send 10,000 messages in a burst, which the owner must count, every one
// (the class rows of `make bench`). 4,096 slices cost 96 KiB per
// subscription.
const subscriptionBuffer = 4096

// Memory is the Bus of one process: classes live in it and end with it.
// Its clock is now (time.Now when nil), so tests can move time for TTLs.
// The zero value is not ready; use NewMemory.
type Memory struct {
	now    func() time.Time
	buffer int // subscriptionBuffer; tests make it smaller

	mu     sync.Mutex
	closed bool
	subs   map[string]map[*memorySub]struct{}
	states map[string]memoryState
	swept  time.Time // when SetState last dropped the expired states
}

// sweepEvery is how often SetState drops the states whose TTL ran out, so
// that classes nobody asks about again do not pile up (issue 37, item 3).
const sweepEvery = time.Minute

type memoryState struct {
	data    []byte
	expires time.Time
}

// NewMemory returns an empty in-process bus. now is its clock for state
// TTLs; nil means time.Now.
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, buffer: subscriptionBuffer, subs: map[string]map[*memorySub]struct{}{}, states: map[string]memoryState{}}
}

// Publish implements Bus: it hands msg to each subscriber of code without
// waiting, and drops a subscriber whose buffer is full (ErrLagged).
func (m *Memory) Publish(ctx context.Context, code string, msg []byte) error {
	if err := m.lockOpen(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	for s := range m.subs[code] {
		select {
		case s.ch <- msg:
		default:
			m.dropLocked(s, ErrLagged)
		}
	}
	return nil
}

// Subscribe implements Bus.
func (m *Memory) Subscribe(ctx context.Context, code string) (Subscription, error) {
	if err := m.lockOpen(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	s := &memorySub{code: code}
	s.subscription = subscription{mu: &m.mu, ch: make(chan []byte, m.buffer), leave: func() { m.dropLocked(s, nil) }}
	if m.subs[code] == nil {
		m.subs[code] = map[*memorySub]struct{}{}
	}
	m.subs[code][s] = struct{}{}
	if ctx.Done() != nil {
		s.stop = context.AfterFunc(ctx, func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.dropLocked(s, ctx.Err())
		})
	}
	return s, nil
}

// SetState implements Bus.
func (m *Memory) SetState(ctx context.Context, code string, state []byte, ttl time.Duration) error {
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	if err := m.lockOpen(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	now := m.now()
	if now.Sub(m.swept) >= sweepEvery {
		m.swept = now
		for c, st := range m.states {
			if !now.Before(st.expires) {
				delete(m.states, c)
			}
		}
	}
	m.states[code] = memoryState{data: state, expires: now.Add(ttl)}
	return nil
}

// State implements Bus.
func (m *Memory) State(ctx context.Context, code string) ([]byte, error) {
	if err := m.lockOpen(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	st, ok := m.states[code]
	if !ok || !m.now().Before(st.expires) {
		delete(m.states, code)
		return nil, ErrNoClass
	}
	return st.data, nil
}

// DeleteState implements Bus.
func (m *Memory) DeleteState(ctx context.Context, code string) error {
	if err := m.lockOpen(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	delete(m.states, code)
	return nil
}

// lockOpen takes m.mu for a call with ctx, unless ctx is done (its error)
// or the bus is closed (ErrClosed). On nil the caller holds m.mu and must
// unlock it; on an error m.mu is not held.
func (m *Memory) lockOpen(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// Close implements Bus: every subscription ends with ErrClosed.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	for _, subs := range m.subs {
		for s := range subs {
			m.dropLocked(s, ErrClosed)
		}
	}
	m.closed = true
	return nil
}

// dropLocked ends s with err (nil: closed by its subscriber). m.mu is held.
func (m *Memory) dropLocked(s *memorySub, err error) {
	subs, ok := m.subs[s.code]
	if !ok {
		return
	}
	if _, ok := subs[s]; !ok {
		return
	}
	delete(subs, s)
	if len(subs) == 0 {
		delete(m.subs, s.code)
	}
	if s.stop != nil {
		s.stop()
	}
	s.err = err
	close(s.ch)
}

// memorySub is a subscription to one class of a Memory bus.
type memorySub struct {
	subscription
	code string
	stop func() bool
}

// Kept returns how many class states the bus keeps (expired ones not yet
// swept included) and how many classes have subscribers: what a class
// left behind, for tests and `make bench`.
func (m *Memory) Kept() (states, channels int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.states), len(m.subs)
}
