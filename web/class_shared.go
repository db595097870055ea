package web

import (
	"context"

	"github.com/gorilla/websocket"

	"lockstep/classroom"
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
// class's shared frames, and reports whether it could: a class that shows
// a course lesson can, and the session then runs no lesson of its own; a
// drill or an explore timeline cannot (the caller runs it in the session,
// as a player would).
func (s *session) followShared(st classroom.State) bool {
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
		return true
	}
	ctx, cancel := context.WithTimeout(s.srv.ctx, runTimeout)
	defer cancel()
	pm, err := l.feed.frames.message(ctx, s.srv, lesson, s.locale, from, st.Step, l.code)
	if err != nil {
		s.srv.logf("web: class %s: shared frame: %v", l.code, err)
		return false
	}
	l.shown = sharedShown{lesson: st.Lesson, locale: string(s.locale), step: -1}
	if s.sendPrepared(pm) {
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
