package classserve

import (
	"bytes"
	"encoding/json"
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
func (s *Seat) sendStudentStatus(st classroom.State) bool {
	pm := s.class.feed.studentStatus(st, s.locale(), s.class.following, s.class.answer)
	return pm != nil && s.sendPrepared(pm)
}

// studentStatus is the class-status of state st (the feed's) for a student
// of language locale who follows the class or not and answered answer
// (step → choice), from the feed's shared messages; nil when it cannot be
// encoded (logged). The session and the writer (Follower) call it.
func (f *classFeed) studentStatus(st classroom.State, locale sim.Locale, following bool, answer map[int]string) *websocket.PreparedMessage {
	var choice string
	if q := st.Question; q != nil {
		choice = answer[q.Step]
	}
	key := classStatusKey{st.Seq, st.Ended, st.EndReason, locale, following, choice}
	c := &f.statuses
	c.mu.RLock()
	pm := c.msgs[key]
	c.mu.RUnlock()
	if pm != nil {
		return pm
	}
	msg := f.srv.classStatus(st, RoleStudent, locale)
	msg.Following, msg.Answer = following, choice
	b, err := encode(msg)
	if err != nil {
		f.srv.logf("classserve: encode message: %v", err)
		return nil
	}
	if pm, err = websocket.NewPreparedMessage(websocket.TextMessage, b); err != nil {
		f.srv.logf("classserve: class %s: status: %v", f.code, err)
		return nil
	}
	c.mu.Lock()
	if c.msgs == nil || len(c.msgs) >= classStatusesKept {
		c.msgs = map[classStatusKey]*websocket.PreparedMessage{}
	}
	c.msgs[key] = pm
	c.mu.Unlock()
	return pm
}

// encode is msg as the page reads it: JSON without HTML escaping (panels
// carry HTML), as the session encodes its messages.
func encode(msg any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
