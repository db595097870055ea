package classserve

import (
	"sync"

	"github.com/gorilla/websocket"

	"lockstep/classroom"
	"lockstep/sim"
)

// Follower is one student's membership of a class feed
// (feed.go), served by the student's connection writer (client.go)
// rather than by its session: on a move the feed has the writer's fast
// path (deliver) write the class's shared frame and status to the page from
// the feed's own goroutines, in one write that does not wait
// (webnet.BatchConn's TryFlush), and wakes the writer, which reads the
// feed's newest state and writes them itself, only when the writer is busy
// or the socket full. A move of 10,000 students then wakes no goroutine per
// student, where it woke 10,000 writers, and before them 10,000 sessions
// (docs/performance.md, the Classes section).
//
// The writer serves it only while direct: the student follows the class and
// the class shows a course lesson, whose frames the class's students share
// (class_frames.go). Otherwise (exploring on its own, a class that shows a
// drill or an explore timeline, a class that ended) the writer passes each
// wake on to the session, which runs the lesson itself as it did before
// the writer served any, and turns direct on again when it can.
type Follower struct {
	// What a move reads of each student (deliver, then next in sync) comes
	// first, together: two cache lines, where it spread over three, each
	// a miss per student of a move (perf, issue 34).

	// deliver is the writer's fast path (Player.WriterDeliver): the feed
	// shows the follower a move from its own goroutines, and wakes the
	// writer only when deliver could not.
	deliver Deliverer
	feed    *classFeed
	// mu guards what follows down to answer, between the session and the
	// writer; neither holds it while it waits on the other.
	mu     sync.Mutex
	direct bool
	// edited counts the frames without chrome sent since the last with
	// chrome (followerFullEvery).
	edited int
	// shown is what the page shows of the class's shared frames, shownSeq
	// the Seq of the last state whose class-status the page got.
	shownSeq int64
	shown    sharedShown
	// locale and answer (step → choice) are the session's, copied when it
	// turns direct on.
	locale sim.Locale
	answer map[int]string

	srv  *Hub
	code string
	// wake is the writer's one-slot wake channel (client.classWake): the
	// feed wakes it on each new state, so a busy writer reads only the
	// newest one.
	wake chan struct{}
	// session is the session's one-slot wake channel (classLink.wake),
	// woken by the writer for the states it does not serve.
	session chan struct{}
	// touch records the class's activity as the session's (its slot in
	// the server's session table): a student who follows a lecture sends
	// nothing for long stretches.
	touch func()
}

// followerFullEvery is how many frames without chrome (panels edited from
// the step before, web/class_frames.go) a following student gets in a row
// before a frame with chrome again: besides a join, a language change and
// a return to the class, it bounds how long a page that went wrong (an
// edit it could not apply asks for one at once, static/app.js) shows it.
// Per student per move it adds a frame with chrome's share (about 30 KiB
// plain, 6 KiB deflated, over 100 moves: 0.3 / 0.06 KiB).
const followerFullEvery = 100

// poke wakes a one-slot wake channel, without waiting.
func poke(w chan struct{}) {
	select {
	case w <- struct{}{}:
	default:
	}
}

// serve turns direct on with the session's language and answer, and wakes
// the writer to show the feed's newest state.
func (f *Follower) serve(locale sim.Locale, answer map[int]string) {
	f.mu.Lock()
	f.direct, f.locale, f.answer = true, locale, answer
	f.mu.Unlock()
	poke(f.wake)
}

// leave turns direct off: the session shows the class from now on, and
// the next shared frame the writer sends carries the chrome.
func (f *Follower) leave() {
	f.mu.Lock()
	f.direct = false
	f.shown.step = -1
	f.mu.Unlock()
}

// reset makes the next frame one with chrome and the next state's
// class-status be sent, whatever the page showed (a language change, the
// student following again).
func (f *Follower) reset() {
	f.mu.Lock()
	f.shown.step, f.shownSeq = -1, 0
	f.mu.Unlock()
}

// statusDue reports whether the page has not had the class-status of the
// state of Seq seq, and counts it as had.
func (f *Follower) statusDue(seq int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if seq == f.shownSeq {
		return false
	}
	f.shownSeq = seq
	return true
}

// setAnswer records the student's answer for the class-statuses the writer
// sends.
func (f *Follower) setAnswer(answer map[int]string) {
	f.mu.Lock()
	f.answer = answer
	f.mu.Unlock()
}

// next is what the writer sends for the feed's newest state: the shared
// frame (nil when the page shows that step already) and the class-status
// (nil when the page has it), frame first. Both nil: nothing, or the
// session has the state (direct is off; it is woken).
func (f *Follower) next() (frame, status *websocket.PreparedMessage) {
	_, frame, status = f.nextWire(false, nil)
	return frame, status
}

// nextWire is next for a writer that writes bytes as they are (wire not
// nil): for a student in sync on a move, the move's frame and status as
// the bytes a connection that deflates or not puts on the wire (made once
// per move and choice by wire, inSync.bytes), and nil messages; else, or
// when wire could not make them, nil bytes and next's messages.
func (f *Follower) nextWire(deflate bool, wire WireFunc) (b []byte, frame, status *websocket.PreparedMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.direct {
		poke(f.session)
		return nil, nil, nil
	}
	shown := f.feed.shown.Load()
	st, before := shown.st, shown.before
	if m := shown.inSync(f.locale); m != nil && f.inSync(st, before) {
		// Nearly every student on a move: the messages prepare drew.
		f.shown.step, f.shownSeq = st.Step, st.Seq
		f.edited++
		if wire != nil {
			if b := m.bytes(deflate, wire); b != nil {
				return b, nil, nil
			}
		}
		return nil, m.frame, m.status
	}
	lesson := f.srv.cfg.Host.Course(st.Lesson)
	if st.Ended || st.Timeline != "" || lesson == nil {
		f.direct, f.shown.step = false, -1
		poke(f.session)
		return nil, nil, nil
	}
	from := -1
	if f.shown.lesson == st.Lesson && f.shown.locale == string(f.locale) {
		from = f.shown.step
	}
	if from != st.Step || from < 0 {
		// In sync (the page shows the step the class showed before):
		// the move's edits, drawn once for all such students. Else, and
		// every followerFullEvery moves, the frame with chrome.
		if from != before || f.edited >= followerFullEvery {
			from = -1
		}
		var err error
		if frame, err = f.feed.frames.message(f.srv, lesson, f.locale, from, st.Step, f.code); err != nil {
			f.srv.logf("classserve: class %s: shared frame: %v", f.code, err)
			// The session runs the lesson itself, as a player would.
			f.direct, f.shown.step = false, -1
			poke(f.session)
			return nil, nil, nil
		}
		f.shown = sharedShown{lesson: st.Lesson, locale: string(f.locale), step: st.Step}
		if f.edited++; from < 0 {
			f.edited = 0
		}
	}
	if st.Seq != f.shownSeq {
		f.shownSeq = st.Seq
		status = f.feed.studentStatus(st, f.locale, true, f.answer)
	}
	return nil, frame, status
}

// inSync reports whether the student's page shows step before of st's
// lesson in its language, is not due a frame with chrome, has not had st's
// class-status and has not answered st's question: what it gets on the
// move to st is then the feed's shared messages for those in sync
// (feedState.moves), as next would find them. f.mu is held.
func (f *Follower) inSync(st classroom.State, before int) bool {
	if before < 0 || f.shown.step != before || f.shown.lesson != st.Lesson || f.shown.locale != string(f.locale) ||
		f.edited >= followerFullEvery || st.Seq == f.shownSeq {
		return false
	}
	q := st.Question
	return q == nil || f.answer[q.Step] == ""
}
