package web

import (
	"sync"

	"github.com/gorilla/websocket"

	"lockstep/classroom"
	"lockstep/sim"
)

// sharedShown is what a following student's page shows from its class's
// shared frames (class_frames.go): the lesson, language and step of the
// last one sent; step -1 when the page shows none (it joined, changed
// language, explored on its own, or a send failed), so that the next is a
// frame with chrome.
type sharedShown struct {
	lesson string
	locale string
	step   int
}

// followShared shows class state st to a following student from the
// class's shared frames, then status (nil: none), and reports whether it
// could: a class that shows a course lesson can, and the session then runs
// no lesson of its own; a drill or an explore timeline cannot (the caller
// runs it in the session, as a player would, and sends status).
//
// The frame and the status go in one queued message, so that the writer
// sends them in one write (batchConn) and wakes once.
func (s *session) followShared(st classroom.State, status *websocket.PreparedMessage) bool {
	l := s.class
	lesson := s.srv.byID[st.Lesson]
	if st.Timeline != "" || lesson == nil {
		return false
	}
	if s.runner != nil {
		s.stopPlay()
		s.closeRun()
		l.shown.step = -1
	}
	from := -1
	if l.shown.lesson == st.Lesson && l.shown.locale == string(s.locale) {
		from = l.shown.step
	}
	if from == st.Step && from >= 0 {
		if status != nil {
			s.sendPrepared(status)
		}
		return true
	}
	pm, err := l.feed.frames.message(s.srv, lesson, s.locale, from, st.Step, l.code)
	if err != nil {
		s.srv.logf("web: class %s: shared frame: %v", l.code, err)
		return false
	}
	l.shown = sharedShown{lesson: st.Lesson, locale: string(s.locale), step: -1}
	if !s.dropped && s.queue(outgoing{prepared: pm, then: status}) {
		l.shown.step = st.Step
	}
	return true
}

// sendPrepared queues a prepared message as sendEncoded queues one.
func (s *session) sendPrepared(pm *websocket.PreparedMessage) bool {
	if s.dropped {
		return false
	}
	return s.queue(outgoing{prepared: pm})
}

// classStatuses are the class-status messages a feed's students share:
// every following student of one language who has not answered the
// question gets the same one after a move, so it is encoded and framed
// once (and, for students whose connection compresses, compressed once)
// rather than once per student.
type classStatuses struct {
	mu   sync.RWMutex // as classFrames.mu
	msgs map[classStatusKey]*websocket.PreparedMessage
}

// classStatusesKept bounds the messages kept per feed: a few states (the
// newest, one that ended), three languages, following or not, a few
// answers.
const classStatusesKept = 64

// classStatusKey is everything a student's class-status depends on
// (session.studentStatus): the state (Seq, and the ended copy a feed makes
// of its newest state when the class is gone), the language, whether the
// student follows and its answer.
type classStatusKey struct {
	seq       int64
	ended     bool
	reason    string
	locale    sim.Locale
	following bool
	answer    string
}

// sendStudentStatus queues the student's class-status of state st (the
// feed's) from the feed's shared messages.
func (s *session) sendStudentStatus(st classroom.State) bool {
	pm := s.studentStatusMessage(st)
	return pm != nil && s.sendPrepared(pm)
}

// studentStatusMessage is the student's class-status of state st (the
// feed's), from the feed's shared messages; nil when it cannot be encoded
// (logged).
func (s *session) studentStatusMessage(st classroom.State) *websocket.PreparedMessage {
	msg := s.studentStatus(st)
	key := classStatusKey{st.Seq, st.Ended, st.EndReason, s.locale, msg.Following, msg.Answer}
	c := &s.class.feed.statuses
	c.mu.RLock()
	pm := c.msgs[key]
	c.mu.RUnlock()
	if pm == nil {
		b, err := encodeMessage(msg)
		if err != nil {
			s.srv.logf("web: encode message: %v", err)
			return nil
		}
		if pm, err = websocket.NewPreparedMessage(websocket.TextMessage, b); err != nil {
			s.srv.logf("web: class %s: status: %v", s.class.code, err)
			return nil
		}
		c.mu.Lock()
		if c.msgs == nil || len(c.msgs) >= classStatusesKept {
			c.msgs = map[classStatusKey]*websocket.PreparedMessage{}
		}
		c.msgs[key] = pm
		c.mu.Unlock()
	}
	return pm
}
