package classserve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"lockstep/classbus"
	"lockstep/classroom"
)

// busTimeout bounds one call to the class bus.
const busTimeout = 3 * time.Second

// ownedClass is a class this server owns: its presenter started or resumed
// it here (docs/classroom.md). It keeps the classroom.Class; the
// presenter's session changes it (apply), and its own goroutine (run)
// counts the answers, joins and leaves that come over the bus and ends the
// class when idle.
type ownedClass struct {
	srv *Hub
	mu  sync.Mutex
	c   *classroom.Class
	// retired: the class was resumed on another server (a state of another
	// owner came over the bus) or ended; this server stops counting.
	retired bool
	lastSet time.Time // when the state was last kept (SetState)
	// presenters are the wake channels of the class's presenter sessions
	// on this server (each one slot: a session reads the newest tally),
	// every one woken on each change, so that two tabs of one presenter
	// both follow the class; done is closed when run ends.
	presenters map[chan struct{}]struct{}
	done       chan struct{}
	// stop is closed when the class retires, which ends run at once;
	// unheld is when its last presenter's page left (limits.go).
	stop   chan struct{}
	unheld time.Time
	// released: the class no longer counts under the bounds
	// (classCounts.release; guarded by classCounts.mu, not mu).
	released bool
}

// startClass makes a class owned by this server, showing shown at step,
// and returns it with its presenter key.
func (s *Hub) startClass(shown classroom.Shown, step int) (*ownedClass, string, error) {
	key, err := classroom.NewKey(nil)
	if err != nil {
		return nil, "", err
	}
	for range 8 { // a code already in use is drawn again
		code, err := classroom.NewCode(nil)
		if err != nil {
			return nil, "", err
		}
		ctx, cancel := context.WithTimeout(s.ctx, busTimeout)
		_, err = s.classBus.State(ctx, code)
		cancel()
		if err == nil {
			continue // in use
		}
		if !errors.Is(err, classbus.ErrNoClass) {
			return nil, "", fmt.Errorf("classserve: class bus: %w", err)
		}
		c := classroom.New(code, classroom.KeyHash(key), s.serverID, shown, step, s.cfg.Idle, time.Now())
		oc, err := s.own(c, classroom.KindStep)
		return oc, key, err
	}
	return nil, "", errors.New("classserve: no free class code")
}

// resumeClass makes this server the owner of class st (its presenter came
// back here), or returns the class when it owns it already.
func (s *Hub) resumeClass(st classroom.State) (*ownedClass, error) {
	s.classMu.Lock()
	oc := s.owned[st.Code]
	s.classMu.Unlock()
	if oc != nil {
		return oc, nil
	}
	return s.own(classroom.Resume(st, s.serverID, s.cfg.Idle, time.Now()), classroom.KindStep)
}

// own starts owning c: it subscribes to its channel, keeps and publishes
// its state (kind), and starts its goroutine.
func (s *Hub) own(c *classroom.Class, kind string) (*ownedClass, error) {
	ctx, cancel := context.WithTimeout(s.ctx, busTimeout)
	defer cancel()
	sub, err := s.classBus.Subscribe(s.ctx, c.Code())
	if err != nil {
		return nil, fmt.Errorf("classserve: class bus: %w", err)
	}
	oc := &ownedClass{srv: s, c: c, presenters: map[chan struct{}]struct{}{}, done: make(chan struct{}), stop: make(chan struct{})}
	oc.mu.Lock()
	err = oc.publishLocked(ctx, kind, time.Now())
	oc.mu.Unlock()
	if err != nil {
		_ = sub.Close()
		return nil, err
	}
	s.classMu.Lock()
	if old := s.owned[c.Code()]; old != nil {
		old.retire()
	}
	s.owned[c.Code()] = oc
	s.classMu.Unlock()
	go oc.run(sub)
	return oc, nil
}

// apply changes the class with change, under the class's lock, and
// publishes its state with the kind change returns ("" publishes nothing);
// a published change wakes the class's presenter sessions but by (the
// session that made it, which sends its own status; nil: all).
func (oc *ownedClass) apply(by chan struct{}, change func(c *classroom.Class, now time.Time) (string, error)) error {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	if oc.retired {
		return classroom.ErrEnded
	}
	now := time.Now()
	kind, err := change(oc.c, now)
	if err != nil || kind == "" {
		return err
	}
	ctx, cancel := context.WithTimeout(oc.srv.ctx, busTimeout)
	defer cancel()
	if err := oc.publishLocked(ctx, kind, now); err != nil {
		return err
	}
	if kind == classroom.KindEnd {
		oc.retireLocked()
		return nil
	}
	for w := range oc.presenters {
		if w != by {
			wake(w)
		}
	}
	return nil
}

// classEndedTTL is how long the state of an ended class is kept, so that
// a student who comes late is told it ended rather than that there is no
// such class.
const classEndedTTL = 15 * time.Minute

// publishLocked keeps the class's state on the bus for the idle time (an
// ended class's for classEndedTTL) and publishes it as kind. oc.mu is
// held, so states go out in Seq order.
func (oc *ownedClass) publishLocked(ctx context.Context, kind string, now time.Time) error {
	st := oc.c.State()
	bus := oc.srv.classBus
	ttl := oc.srv.cfg.Idle
	if st.Ended {
		ttl = classEndedTTL
	}
	err := bus.SetState(ctx, st.Code, st.Encode(), ttl)
	oc.lastSet = now
	if err == nil {
		err = bus.Publish(ctx, st.Code, classroom.StateMessage(kind, st).Encode())
	}
	if err != nil {
		return fmt.Errorf("classserve: class bus: %w", err)
	}
	return nil
}

// view returns the class's state and tally, for the presenter.
func (oc *ownedClass) view() (classroom.State, map[string]int, int, int, bool) {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	counts, answered := oc.c.Tally()
	return oc.c.State(), counts, answered, oc.c.Students(), oc.retired
}

// attach adds a presenter session's wake channel (one slot) to the class;
// detach removes it.
func (oc *ownedClass) attach(w chan struct{}) {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	oc.presenters[w] = struct{}{}
	oc.unheld = time.Time{}
}

func (oc *ownedClass) detach(w chan struct{}) {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	delete(oc.presenters, w)
	oc.unheldLocked()
}

// notify wakes every presenter session of the class, without waiting.
func (oc *ownedClass) notify() {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	oc.notifyLocked()
}

// notifyLocked is notify with oc.mu held.
func (oc *ownedClass) notifyLocked() {
	for w := range oc.presenters {
		wake(w)
	}
}

// wake fills the one-slot channel w, unless it is full already.
func wake(w chan struct{}) {
	select {
	case w <- struct{}{}:
	default:
	}
}

func (oc *ownedClass) retire() {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	oc.retireLocked()
}

// retireLocked stops the class (oc.mu held) and gives back its place
// under the bounds at once (issue 38: a teacher who rehearsed, starting
// and ending classes, met the bound while ended classes' goroutines were
// still to end): the next start from the address may take it.
func (oc *ownedClass) retireLocked() {
	if !oc.retired {
		oc.retired = true
		close(oc.stop)
		oc.srv.classes.release(oc)
		oc.notifyLocked()
	}
}

// run is the class's goroutine: it counts what comes over the bus and ends
// the class when idle. A subscription that ends other than by its close is
// opened again, for as long as the bus takes to come back (answers
// published meanwhile are lost; the bus dropped them).
func (oc *ownedClass) run(sub classbus.Subscription) {
	s := oc.srv
	defer close(oc.done)
	defer func() {
		_ = sub.Close()
		s.classMu.Lock()
		if s.owned[oc.c.Code()] == oc {
			delete(s.owned, oc.c.Code())
		}
		s.classMu.Unlock()
		s.classes.release(oc)
	}()
	timer := time.NewTimer(oc.nextCheck())
	defer timer.Stop()
	health := time.NewTicker(busHealthEvery)
	defer health.Stop()
	down := false
	for {
		select {
		case <-health.C:
			// The presenter's panel says when the bus is down (and no
			// longer once it is back).
			if d := s.classBusDown(); d != down {
				down = d
				oc.notify()
			}
		case b, ok := <-sub.C():
			if !ok {
				if sub.Err() == nil || s.ctx.Err() != nil {
					return
				}
				s.logf("classserve: class %s: bus subscription ended (%v); subscribing again", oc.c.Code(), sub.Err())
				var err error
				if sub, err = s.resubscribe(s.ctx, oc.c.Code()); err != nil {
					return // the server is closing
				}
				// What was published while the subscription was down may be
				// lost, and a Redis that restarted has lost the state: keep
				// and publish it again, so the students' feeds catch up.
				oc.republish()
				continue
			}
			if oc.count(b) {
				return
			}
		case <-timer.C:
			if oc.checkIdle() {
				return
			}
			timer.Reset(oc.nextCheck())
		case <-s.ctx.Done():
			return
		case <-oc.stop:
			return
		}
	}
}

// republish keeps the class's state on the bus and publishes it again
// (after the bus lost messages), and wakes the presenters' pages.
func (oc *ownedClass) republish() {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	if oc.retired {
		return
	}
	ctx, cancel := context.WithTimeout(oc.srv.ctx, busTimeout)
	defer cancel()
	if err := oc.publishLocked(ctx, classroom.KindStep, time.Now()); err != nil {
		oc.srv.logf("classserve: class %s: publish again: %v", oc.c.Code(), err)
	}
	oc.notifyLocked()
}

// count handles one bus message; it reports whether the class is no
// longer this server's.
func (oc *ownedClass) count(b []byte) bool {
	m, err := classroom.DecodeMessage(b)
	if err != nil {
		oc.srv.logf("classserve: class %s: %v", oc.c.Code(), err)
		return false
	}
	oc.mu.Lock()
	defer oc.mu.Unlock()
	if oc.retired {
		return true
	}
	now := time.Now()
	switch m.Kind {
	case classroom.KindAnswer:
		if oc.c.Answer(m.Student, m.Step, m.Choice, now) == nil {
			oc.notifyLocked()
		}
	case classroom.KindJoin:
		oc.c.Join(m.Student, now)
		oc.notifyLocked()
	case classroom.KindLeave:
		oc.c.Leave(m.Student)
		oc.notifyLocked()
	default:
		if m.State.Owner != oc.srv.serverID {
			// Resumed on another server: it owns the class now.
			oc.retireLocked()
			return true
		}
	}
	return false
}

// nextCheck is how long until the class may be idle, or its kept state
// needs its TTL refreshed (half the idle time after it was kept).
func (oc *ownedClass) nextCheck() time.Duration {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	now := time.Now()
	next := min(oc.c.IdleAt().Sub(now), oc.lastSet.Add(oc.srv.cfg.Idle/2).Sub(now))
	return max(next, 10*time.Millisecond)
}

// checkIdle ends an idle class, or keeps the state of an active one for
// another idle time; it reports whether the class ended.
func (oc *ownedClass) checkIdle() bool {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	if oc.retired {
		return true
	}
	now := time.Now()
	ctx, cancel := context.WithTimeout(oc.srv.ctx, busTimeout)
	defer cancel()
	if oc.c.Idle(now) {
		// A state of a newer owner means the class went on elsewhere.
		if b, err := oc.srv.classBus.State(ctx, oc.c.Code()); err == nil {
			if st, err := classroom.DecodeState(b); err == nil && st.Owner != oc.srv.serverID {
				oc.retireLocked()
				return true
			}
		}
		oc.c.End(classroom.EndIdle, now)
		if err := oc.publishLocked(ctx, classroom.KindEnd, now); err != nil {
			oc.srv.logf("classserve: class %s: end: %v", oc.c.Code(), err)
		}
		oc.retireLocked()
		return true
	}
	// Not idle: keep the state for another idle time (it is kept for one
	// from each SetState, and this check comes at half of it).
	st := oc.c.State()
	if err := oc.srv.classBus.SetState(ctx, st.Code, st.Encode(), oc.srv.cfg.Idle); err != nil {
		oc.srv.logf("classserve: class %s: keep state: %v", st.Code, err)
	} else {
		oc.lastSet = now
	}
	return false
}
