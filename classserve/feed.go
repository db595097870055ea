package classserve

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/classbus"
	"lockstep/classroom"
	"lockstep/sim"
)

// classFeed is one class as the students on this server follow it: one
// bus subscription for all of them (after gorilla's chat hub), the newest
// state it saw, and its students (Follower), each woken through a
// one-slot wake channel of its connection's writer, so that a busy student
// reads only the newest state and nothing queues up.
type classFeed struct {
	srv  *Hub
	code string
	stop context.CancelFunc // ends the subscription (the last student left)

	// frames are the class's frame messages its following students share
	// (class_frames.go).
	frames classFrames
	// statuses are the class-status messages they share (shared.go).
	statuses classStatuses

	mu      sync.Mutex
	latest  classroom.State
	members map[*Follower]struct{}
	// woken is update's list of the students it shows a state to, kept
	// for the next (only the feed's reader calls update).
	woken []*Follower
	// shown is latest and the step before it, for state and moved: 10,000
	// students read it after a move while update may still be waking the
	// rest under mu.
	shown atomic.Pointer[feedState]
}

// feedState is a feed's newest state and the step its students showed
// before it: the step of the last state of the same course lesson with
// another step (-1: none, the class's first state here, another lesson or
// an explore timeline before). A student in sync shows that step, and gets
// the move as edits of it, shared by all such students (Follower.next).
type feedState struct {
	st     classroom.State
	before int
	// moves are the messages of a move to st for the students in sync,
	// one per language (prepare): what nearly every student gets, found
	// by Follower.next without a lock or a map (nil: none drawn, not a
	// move).
	moves []inSync
}

// inSync is what a following student of language locale in sync (its page
// shows the step before, it has not answered) gets on a move: the shared
// frame without chrome and the class-status.
type inSync struct {
	locale        sim.Locale
	frame, status *websocket.PreparedMessage
	// wire is frame and status as bytes on the wire, made for the first
	// student of each compression choice (Follower.NextWire).
	wire *moveWire
}

// moveWire is a move's frame and status for the students in sync as the
// bytes their connections put on the wire, by compression choice (plain
// [0], deflated [1]): the same for every connection of a choice (web's
// wireFrames), made once per move and choice and written as they are to
// every student of it (web.client's Deliver). Kept with the move's
// feedState, they are never those of another move.
type moveWire struct {
	by [2]struct {
		once sync.Once
		b    []byte
	}
}

// bytes are the move's frame and status as a connection that deflates or
// not puts them on the wire, made by wire the first time; nil when wire
// could not.
func (m *inSync) bytes(deflate bool, wire WireFunc) []byte {
	i := 0
	if deflate {
		i = 1
	}
	w := &m.wire.by[i]
	w.once.Do(func() { w.b = wire(deflate, m.frame, m.status) })
	return w.b
}

// WireFunc makes frame then status (either nil: left out) into the bytes
// a connection that deflates or not puts on the wire for them (web's
// wireFrames); nil when it cannot.
type WireFunc func(deflate bool, frame, status *websocket.PreparedMessage) []byte

// inSync is the move's messages for a student in sync of language loc,
// nil when none were drawn.
func (s *feedState) inSync(loc sim.Locale) *inSync {
	for i := range s.moves {
		if s.moves[i].locale == loc {
			return &s.moves[i]
		}
	}
	return nil
}

// ownerBackWait is how long a feed whose subscription was cut waits for
// its class's state to be kept again before it takes the class for over.
const ownerBackWait = 15 * time.Second

// errClassGone is what joinFeed returns for a class that has ended.
var errClassGone = errors.New("classserve: the class has ended")

// joinFeed adds a student of class code, follow, to this server's feed of
// the class (opening it for the first student), sets follow.feed, and
// returns the feed. classbus.ErrNoClass means no such class, errClassGone
// that it has ended.
func (s *Hub) joinFeed(code string, follow *Follower) (*classFeed, error) {
	s.classMu.Lock()
	defer s.classMu.Unlock()
	f := s.feeds[code]
	if f == nil {
		ctx, stop := context.WithCancel(s.ctx)
		sub, err := s.classBus.Subscribe(ctx, code)
		if err != nil {
			stop()
			return nil, fmt.Errorf("classserve: class bus: %w", err)
		}
		// The state after the subscription: nothing published between the
		// two is missed.
		st, err := s.loadClassState(ctx, code)
		if err != nil {
			stop()
			_ = sub.Close()
			return nil, err
		}
		f = &classFeed{srv: s, code: code, stop: stop, latest: st, members: map[*Follower]struct{}{}}
		f.shown.Store(&feedState{st: st, before: -1})
		s.feeds[code] = f
		go f.run(ctx, sub)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.latest.Ended {
		return nil, errClassGone
	}
	follow.feed = f
	f.members[follow] = struct{}{}
	return f, nil
}

// loadClassState reads class code's state from the bus.
func (s *Hub) loadClassState(ctx context.Context, code string) (classroom.State, error) {
	ctx, cancel := context.WithTimeout(ctx, busTimeout)
	defer cancel()
	b, err := s.classBus.State(ctx, code)
	if err != nil {
		if errors.Is(err, classbus.ErrNoClass) {
			return classroom.State{}, err
		}
		return classroom.State{}, fmt.Errorf("classserve: class bus: %w", err)
	}
	return classroom.DecodeState(b)
}

// leave removes a student; the last one closes the feed.
func (f *classFeed) leave(follow *Follower) {
	s := f.srv
	s.classMu.Lock()
	defer s.classMu.Unlock()
	f.mu.Lock()
	delete(f.members, follow)
	empty := len(f.members) == 0
	f.mu.Unlock()
	if empty && s.feeds[f.code] == f {
		delete(s.feeds, f.code)
		f.stop()
	}
}

// state is the newest state the feed saw.
func (f *classFeed) state() classroom.State {
	return f.shown.Load().st
}

// update keeps st when it is newer than what the feed has, and shows it
// to the students (show). Only the feed's reader (run) calls it.
func (f *classFeed) update(st classroom.State, moves []inSync) {
	f.mu.Lock()
	if st.Seq <= f.latest.Seq && (!st.Ended || f.latest.Ended) {
		f.mu.Unlock()
		return
	}
	f.latest = st
	f.shown.Store(&feedState{st: st, before: stepBefore(f.shown.Load(), st), moves: moves})
	f.woken = f.woken[:0]
	for m := range f.members {
		f.woken = append(f.woken, m)
	}
	f.mu.Unlock()
	show(f.woken)
	clear(f.woken) // keeps no student who left
}

// showChunk is the fewest students per goroutine show uses.
const showChunk = 256

// show shows each student the feed's newest state: through its writer's
// fast path (Follower.deliver: one write that does not wait, from here),
// else by waking its writer. A large class is split over GOMAXPROCS
// goroutines, one part each, which end when their part is done.
func show(list []*Follower) {
	w := min(runtime.GOMAXPROCS(0), (len(list)+showChunk-1)/showChunk)
	if w <= 1 {
		showEach(list)
		return
	}
	var wg sync.WaitGroup
	for i := range w {
		part := list[i*len(list)/w : (i+1)*len(list)/w]
		wg.Go(func() { showEach(part) })
	}
	wg.Wait()
}

func showEach(list []*Follower) {
	for _, m := range list {
		if m.deliver == nil || !m.deliver.Deliver() {
			poke(m.wake)
		}
	}
}

// stepBefore is feedState.before for st, the state after was.
func stepBefore(was *feedState, st classroom.State) int {
	if was.st.Lesson != st.Lesson || was.st.Timeline != "" || st.Timeline != "" || was.st.Ended {
		return -1
	}
	if was.st.Step == st.Step { // a question, a reveal, a count: no move
		return was.before
	}
	return was.st.Step
}

// prepare draws the frame message of a move to st for the students in
// sync, in each language the class's students were last sent a frame in,
// and their class-status, before update wakes them: else the first of
// them draws it while the others, 1,000 on a move of a large class, wait
// in turn on its sync.Once (a handoff per student, each a wake and a
// switch of goroutine). It returns them for feedState.moves (nil: not a
// move).
func (f *classFeed) prepare(st classroom.State) []inSync {
	was := f.shown.Load()
	before := stepBefore(was, st)
	l := f.srv.cfg.Host.Course(st.Lesson)
	if st.Seq <= was.st.Seq || st.Ended || before < 0 || st.Step == was.st.Step || l == nil {
		return nil
	}
	var moves []inSync
	for _, loc := range f.frames.locales() {
		frame, err := f.frames.message(f.srv, l, loc, before, st.Step, f.code)
		if err != nil {
			continue // the students try again, and log it
		}
		if status := f.studentStatus(st, loc, true, nil); status != nil {
			moves = append(moves, inSync{locale: loc, frame: frame, status: status, wire: &moveWire{}})
		}
	}
	return moves
}

// run reads the feed's subscription until ctx ends. A subscription that
// ends otherwise (classbus.ErrLagged, a transport error) is opened again
// and the state reloaded from the bus: a state is whole, so nothing a
// student needs is lost.
func (f *classFeed) run(ctx context.Context, sub classbus.Subscription) {
	for {
		for b := range sub.C() {
			st := f.decodeState(b)
			if st == nil {
				continue
			}
			// A state is whole: of the states already queued behind it
			// (10,000 joins in a burst each publish one), only the newest
			// is shown, one write per student instead of one per state.
			for queued := len(sub.C()); queued > 0; queued-- {
				if next := f.decodeState(<-sub.C()); next != nil {
					st = next
				}
			}
			f.update(*st, f.prepare(*st))
		}
		if ctx.Err() != nil || sub.Err() == nil {
			return
		}
		f.srv.logf("classserve: class %s: bus subscription ended (%v); subscribing again", f.code, sub.Err())
		var err error
		if sub, err = f.srv.resubscribe(ctx, f.code); err != nil {
			return
		}
		st, err := f.srv.loadClassState(ctx, f.code)
		// After an outage a Redis that restarted has no state until the
		// class's owner keeps it again (ownedClass.republish): wait for it
		// a while before taking the class for over.
		for wait := time.Now().Add(ownerBackWait); errors.Is(err, classbus.ErrNoClass) && time.Now().Before(wait); {
			select {
			case <-time.After(250 * time.Millisecond):
			case <-ctx.Done():
				return
			}
			st, err = f.srv.loadClassState(ctx, f.code)
		}
		switch {
		case errors.Is(err, classbus.ErrNoClass):
			st = f.state()
			st.Ended, st.EndReason = true, classroom.EndIdle
			f.update(st, nil)
		case err != nil:
			f.srv.logf("classserve: class %s: %v", f.code, err)
		default:
			f.update(st, nil)
		}
	}
}

// decodeState is the class state bus message b carries, nil when it
// carries none (an answer, a join) or cannot be decoded (logged).
func (f *classFeed) decodeState(b []byte) *classroom.State {
	m, err := classroom.DecodeMessage(b)
	if err != nil {
		f.srv.logf("classserve: class %s: %v", f.code, err)
		return nil
	}
	return m.State
}

// resubscribe subscribes to class code's channel again, trying with a
// growing pause (50 ms to 5 s) until the bus answers or ctx ends (its
// error).
func (s *Hub) resubscribe(ctx context.Context, code string) (classbus.Subscription, error) {
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		sub, err := s.classBus.Subscribe(ctx, code)
		if err == nil {
			return sub, nil
		}
		s.logf("classserve: class %s: subscribe: %v", code, err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// StallFeed stops the reader of this server's feed of class code at its
// next message, until the returned release is called, and returns the
// feed's newest state; ok false when no student here follows the class.
// Tests use it to make the bus drop a feed that lags (classbus.ErrLagged).
func (s *Hub) StallFeed(code string) (release func(), latest classroom.State, ok bool) {
	s.classMu.Lock()
	f := s.feeds[code]
	s.classMu.Unlock()
	if f == nil {
		return nil, classroom.State{}, false
	}
	f.mu.Lock()
	return f.mu.Unlock, f.latest, true
}
