package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"lockstep/classbus"
	"lockstep/classroom"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/view"
)

// classLink is a session's part in a class: its presenter (owned set) or
// one of its students (feed set).
type classLink struct {
	code  string
	owned *ownedClass
	// wake: the session's one-slot wake channel, a member of the owned
	// class's presenters, or for a student woken by its follower when the
	// writer does not serve the feed's state.
	wake chan struct{}
	// A student's: the server's feed of the class, its membership of it
	// (served by the connection's writer while the session lets it), the
	// student id, whether the session follows the class, and its answer
	// (step → choice).
	feed      *classFeed
	follow    *classFollower
	student   string
	following bool
	answer    map[int]string
}

func (l *classLink) presenter() bool { return l != nil && l.owned != nil }
func (l *classLink) isStudent() bool { return l != nil && l.feed != nil }

// classWake is the channel that wakes the session for its class (woken
// by the owned class for a presenter, by the feed for a student), nil
// without a class.
func (s *session) classWake() <-chan struct{} {
	if s.class == nil {
		return nil
	}
	return s.class.wake
}

// onClassWake is the session's answer to its class's wake channel.
func (s *session) onClassWake() {
	switch {
	case s.class.presenter():
		s.sendPresenterStatus()
		if _, _, _, _, retired := s.class.owned.view(); retired {
			s.leaveClass()
		}
	case s.class.isStudent():
		s.followClass()
	}
}

// playerMoves are the messages that move a run: a student who follows a
// class cannot send them.
var playerMoves = map[string]bool{MsgLoad: true, MsgStep: true, MsgBack: true, MsgSeek: true, MsgPlay: true, MsgFork: true, MsgUndo: true}

// handleClass carries out a class message m (checked by
// parseClassMessage).
func (s *session) handleClass(m ClientMessage) {
	switch m.Type {
	case MsgClassStart:
		s.startClass(m)
	case MsgClassResume:
		s.resumeClass(m)
	case MsgClassJoin:
		s.joinClass(m)
	case MsgClassAnswer:
		s.answerClass(m)
	case MsgClassFollow:
		if !s.class.isStudent() {
			s.sendErr(m.ID, perr(ErrCodeClassUnknown, "class-not-joined"))
			return
		}
		s.class.following = *m.Follow
		s.class.follow.leave()
		s.class.follow.reset()
		if !s.class.following && s.runner == nil {
			// Explore on my own from the class's step: a run of the
			// student's own (it followed from the shared frames).
			st := s.class.feed.state()
			if tl, err := s.classTimeline(st); err == nil {
				s.start(m.ID, tl, st.Timeline, st.Step)
			}
		}
		s.followClass()
	default: // the presenter's
		if !s.class.presenter() {
			s.sendErr(m.ID, perr(ErrCodeClassNotPresenter, "class-not-presenter"))
			return
		}
		switch m.Type {
		case MsgClassAsk:
			s.askClass(m)
		case MsgClassReveal:
			s.revealClass(m)
		case MsgClassEnd:
			s.endClass(m)
		case MsgClassCSV:
			s.classCSV(m)
		}
	}
}

// shown is what the session's run shows, as a class names it.
func (s *session) shown() classroom.Shown {
	l := s.tl.Lesson
	sh := classroom.Shown{Total: len(l.Steps), Title: l.Title.In(s.locale)}
	if s.tl.Explore() {
		sh.Timeline, sh.Title = s.code, s.srv.timelineTitle(s.tl).In(s.locale)
	} else {
		sh.Lesson = l.ID
	}
	return sh
}

func (s *session) busErr(re int64, err error) {
	s.srv.logf("%v", err)
	if errors.Is(err, classroom.ErrEnded) {
		s.sendErr(re, perr(ErrCodeClassEnded, "class-ended"))
		return
	}
	s.sendErr(re, perr(ErrCodeClassBus, "class-bus")) // the reason, with the bus's address, goes to the log only (issue 37)
}

func (s *session) startClass(m ClientMessage) {
	if s.class.isStudent() {
		s.sendErr(m.ID, perr(ErrCodeClassFollowing, "class-student-start"))
		return
	}
	if s.runner == nil {
		s.sendErr(m.ID, perr(ErrCodeNoLesson, "no-lesson"))
		return
	}
	if s.class.presenter() {
		s.sendPresenter(m.ID, "")
		return
	}
	if !s.srv.classes.reserve(s.c.addr) {
		s.sendErr(m.ID, s.srv.classLimitErr())
		return
	}
	oc, key, err := s.srv.startClass(s.shown(), s.cur)
	if err != nil {
		s.srv.classes.unreserve(s.c.addr)
		s.busErr(m.ID, err)
		return
	}
	s.srv.classes.bind(oc, s.c.addr)
	s.presentClass(oc)
	s.sendPresenter(m.ID, key)
}

func (s *session) resumeClass(m ClientMessage) {
	// A failed resume takes a join token, as a failed join does: it would
	// tell a guessed code from a live one.
	if !s.srv.joinAllowed(s.c.addr) {
		s.sendErr(m.ID, perr(ErrCodeClassJoins, "class-joins"))
		return
	}
	st, err := s.srv.loadClassState(s.srv.ctx, m.Code)
	switch {
	case errors.Is(err, classbus.ErrNoClass):
		s.srv.joinFailed(s.c.addr)
		s.sendErr(m.ID, perr(ErrCodeClassUnknown, "class-unknown", "Code", m.Code))
		return
	case err != nil:
		s.busErr(m.ID, err)
		return
	case st.Ended:
		s.sendErr(m.ID, perr(ErrCodeClassEnded, "class-ended"))
		return
	case !classroom.KeyMatches(st.KeyHash, m.Key):
		s.srv.joinFailed(s.c.addr)
		s.sendErr(m.ID, perr(ErrCodeClassBadKey, "class-bad-key"))
		return
	}
	s.leaveClass()
	reserved, ok := s.srv.reserveClass(s.c.addr, st.Code)
	if !ok {
		s.sendErr(m.ID, s.srv.classLimitErr())
		return
	}
	oc, err := s.srv.resumeClass(st)
	if reserved && err != nil {
		s.srv.classes.unreserve(s.c.addr)
	}
	if err != nil {
		s.busErr(m.ID, err)
		return
	}
	if reserved {
		s.srv.classes.bind(oc, s.c.addr)
	}
	s.presentClass(oc)
	if s.runner != nil {
		s.syncClass() // the class shows what the presenter's page shows
	}
	s.sendPresenter(m.ID, "")
}

// presentClass makes the session a presenter of oc, woken with its other
// presenter sessions (a second tab of the presenter's) on each change.
func (s *session) presentClass(oc *ownedClass) {
	w := make(chan struct{}, 1)
	oc.attach(w)
	s.class = &classLink{code: oc.c.Code(), owned: oc, wake: w}
}

// sendPresenter sends the class-presenter message: key only to the page
// that started the class.
func (s *session) sendPresenter(re int64, key string) {
	code := s.class.code
	urls := s.srv.joinURLs(s.c.host, code)
	t := s.srv.tr(s.locale)
	qr, err := qrView(urls[0], t.cl.ClassQRLabel)
	if err != nil {
		s.sendErr(re, perr(ErrCodeInternal, "internal", "Lesson", code, "Reason", err.Error()))
		return
	}
	var panel bytes.Buffer
	if err := templatesClassPanel(t, code, urls, qr).Render(context.Background(), &panel); err != nil {
		s.sendErr(re, perr(ErrCodeInternal, "internal", "Lesson", code, "Reason", err.Error()))
		return
	}
	s.send(ClassPresenterMessage{Type: MsgClassPresenter, Re: re, Code: code, Key: key, Join: urls, Panel: panel.String(), Status: s.presenterStatus()})
}

func (s *session) presenterStatus() ClassStatusMessage {
	st, counts, answered, students, retired := s.class.owned.view()
	msg := s.classStatus(st, rolePresenter)
	msg.Counts, msg.Answered, msg.Students, msg.Scores = counts, answered, students, st.Scores
	if s.srv.classBusDown() {
		msg.Bus = s.srv.tr(s.locale).Msg(sim.M("ws.class-bus-down"))
	}
	if retired && !st.Ended {
		// Resumed on another server, or the bus failed: this page no longer
		// moves the class.
		msg.Ended, msg.EndReason = true, "elsewhere"
	}
	return msg
}

func (s *session) sendPresenterStatus() { s.send(s.presenterStatus()) }

// classStatus is st as a page in the session's language sees it.
func (s *session) classStatus(st classroom.State, role string) ClassStatusMessage {
	return s.srv.classStatus(st, role, s.locale)
}

// classStatus is st as a page in language loc sees it.
func (s *Server) classStatus(st classroom.State, role string, loc sim.Locale) ClassStatusMessage {
	msg := ClassStatusMessage{
		Type: MsgClassStatus, Code: st.Code, Role: role, Lesson: st.Lesson, Timeline: st.Timeline,
		Step: st.Step, Total: st.Total, Ended: st.Ended, EndReason: st.EndReason,
	}
	if q := st.Question; q != nil {
		t := s.tr(loc)
		cq := &ClassQuestion{Step: q.Step, Open: q.Open, Revealed: q.Revealed, Correct: q.Correct}
		for _, c := range q.Choices {
			label := t.Maybe("Outcome" + c)
			if label == "" {
				label = c
			}
			cq.Choices = append(cq.Choices, ClassChoice{ID: c, Label: label})
		}
		msg.Question = cq
	}
	return msg
}

// syncClass publishes what the presenter's session shows, after each of
// its frames: a move onto the asked step reveals the question (the frame's
// outcome is the answer); a move elsewhere drops it.
func (s *session) syncClass() {
	if !s.class.presenter() || s.runner == nil {
		return
	}
	shown, step, frames := s.shown(), s.cur, s.runner.Frames()
	published := false
	err := s.class.owned.apply(s.class.wake, func(c *classroom.Class, now time.Time) (string, error) {
		st := c.State()
		if q := st.Question; q != nil && q.Open && shown == st.Shown && step == q.Step && step < len(frames) {
			if err := c.Reveal(string(frames[step].Outcome), now); err != nil {
				return "", err
			}
			_, err := c.Move(shown, step, now)
			published = err == nil
			return classroom.KindReveal, err
		}
		changed, err := c.Move(shown, step, now)
		if err != nil || !changed {
			return "", err
		}
		published = true
		return classroom.KindStep, nil
	})
	if err != nil {
		s.busErr(0, err)
		return
	}
	if published {
		s.sendPresenterStatus()
	}
}

func (s *session) askClass(m ClientMessage) {
	if s.runner == nil {
		s.sendErr(m.ID, perr(ErrCodeNoLesson, "no-lesson"))
		return
	}
	l := s.tl.Lesson
	n := s.cur + 1
	if n > len(l.Steps) {
		s.sendErr(m.ID, perr(ErrCodeClassNoQuestion, "class-nothing-to-ask", "Step", n))
		return
	}
	st := l.Steps[n-1]
	outs := view.PredictOutcomes(l, st)
	if outs == nil {
		s.sendErr(m.ID, perr(ErrCodeClassNoQuestion, "class-nothing-to-ask", "Step", n))
		return
	}
	choices := make([]string, len(outs))
	for i, o := range outs {
		choices[i] = string(o)
	}
	action := string(st.Do)
	if st.Actor != "" {
		action += " " + st.Actor
	}
	s.stopPlay()
	s.syncClass() // the class is at this step before the question
	err := s.class.owned.apply(s.class.wake, func(c *classroom.Class, now time.Time) (string, error) {
		return classroom.KindAsk, c.Ask(n, action, choices, now)
	})
	if err != nil {
		s.busErr(m.ID, err)
		return
	}
	s.sendPresenterStatus()
}

func (s *session) revealClass(m ClientMessage) {
	st, _, _, _, _ := s.class.owned.view()
	q := st.Question
	if q == nil || !q.Open || s.runner == nil {
		s.sendErr(m.ID, perr(ErrCodeClassNoQuestion, "class-no-question"))
		return
	}
	s.stopPlay()
	// The frame of the asked step reveals it (syncClass).
	s.moveTo(m.ID, q.Step)
}

func (s *session) endClass(m ClientMessage) {
	err := s.class.owned.apply(s.class.wake, func(c *classroom.Class, now time.Time) (string, error) {
		if !c.End(classroom.EndPresenter, now) {
			return "", classroom.ErrEnded
		}
		return classroom.KindEnd, nil
	})
	if err != nil {
		s.busErr(m.ID, err)
		return
	}
	s.sendPresenterStatus()
	s.leaveClass()
}

func (s *session) classCSV(m ClientMessage) {
	st, _, _, _, _ := s.class.owned.view()
	var buf bytes.Buffer
	if err := classroom.WriteCSV(&buf, st.Scores); err != nil {
		s.sendErr(m.ID, perr(ErrCodeInternal, "internal", "Lesson", st.Code, "Reason", err.Error()))
		return
	}
	s.send(ClassCSVMessage{Type: MsgClassCSV, Re: m.ID, Filename: "class-" + st.Code + ".csv", CSV: buf.String()})
}

// joinClass makes the session a student of class m.Code: it follows the
// class's step from the server's feed.
func (s *session) joinClass(m ClientMessage) {
	if !s.srv.joinAllowed(s.c.addr) {
		s.sendErr(m.ID, perr(ErrCodeClassJoins, "class-joins"))
		return
	}
	wake := make(chan struct{}, 1)
	slot := s.slot
	follow := &classFollower{srv: s.srv, code: m.Code, wake: s.c.classWake, session: wake, shown: sharedShown{step: -1},
		touch: func() { s.srv.table.touch(slot) }}
	feed, err := s.srv.joinFeed(m.Code, follow)
	switch {
	case errors.Is(err, classbus.ErrNoClass):
		s.srv.joinFailed(s.c.addr)
		s.sendErr(m.ID, perr(ErrCodeClassUnknown, "class-unknown", "Code", m.Code))
		return
	case errors.Is(err, errClassGone):
		s.sendErr(m.ID, perr(ErrCodeClassEnded, "class-ended"))
		return
	case err != nil:
		s.busErr(m.ID, err)
		return
	}
	student := m.Student
	if s.student != "" {
		student = s.student // a fresh id on the same connection is no new student
	}
	if student == "" {
		if student, err = classroom.NewStudentID(nil); err != nil {
			feed.leave(follow)
			s.busErr(m.ID, err)
			return
		}
	}
	s.leaveClass()
	if m.Lang != "" {
		s.locale = sim.Locale(m.Lang)
	}
	s.student = student
	s.class = &classLink{code: m.Code, feed: feed, follow: follow, wake: wake, student: student, following: true, answer: map[int]string{}}
	s.c.follower.Store(follow)
	s.publishClass(classroom.Message{Kind: classroom.KindJoin, Student: student})
	s.send(ClassJoinedMessage{Type: MsgClassJoined, Re: m.ID, Code: m.Code, Student: student})
	s.followClass()
}

// publishClass publishes a student's message on the class's channel.
func (s *session) publishClass(msg classroom.Message) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.srv.ctx), busTimeout)
	defer cancel()
	if err := s.srv.classBus.Publish(ctx, s.class.code, msg.Encode()); err != nil {
		s.srv.logf("web: class %s: %v", s.class.code, err)
		return false
	}
	return true
}

// followClass shows the feed's newest state: while following a class that
// shows a course lesson, the connection's writer shows it from the class's
// shared frames (classFollower); else the run goes to the class's timeline
// and step, and the page gets the class's status when it changed.
func (s *session) followClass() {
	l := s.class
	st := l.feed.state()
	if st.Ended {
		l.follow.leave()
		s.sendStudentStatus(st)
		s.leaveClass()
		return
	}
	if l.following && st.Timeline == "" && s.srv.byID[st.Lesson] != nil {
		if s.runner != nil {
			s.stopPlay()
			s.closeRun()
		}
		// After what the session queued (the writer sends that first).
		l.follow.serve(s.locale, l.answer)
		return
	}
	l.follow.leave()
	if l.following {
		if s.runner == nil || s.showsOther(st) {
			tl, err := s.classTimeline(st)
			if err != nil {
				s.sendErr(0, perrOf(ErrCodeBadLink, err))
				return
			}
			s.start(0, tl, st.Timeline, st.Step)
		} else if s.cur != st.Step {
			s.stopPlay()
			s.moveTo(0, st.Step)
		}
	}
	if l.follow.statusDue(st.Seq) {
		s.sendStudentStatus(st)
	}
}

// showsOther reports whether the session's run shows something else than
// class state st.
func (s *session) showsOther(st classroom.State) bool {
	if s.tl.Explore() {
		return st.Timeline == "" || st.Timeline != s.code
	}
	return st.Timeline != "" || st.Lesson != s.tl.Lesson.ID
}

// classTimeline opens what class state st shows.
func (s *session) classTimeline(st classroom.State) (explore.Timeline, error) {
	if st.Timeline != "" {
		return s.srv.decodeTimeline(st.Timeline)
	}
	if tl := s.srv.lesson(s.srv.ctx, st.Lesson); tl.Lesson != nil {
		return tl, nil
	}
	return explore.Timeline{}, fmt.Errorf("web: class %s shows lesson %q, which this server does not have", st.Code, st.Lesson)
}

func (s *session) answerClass(m ClientMessage) {
	if !s.class.isStudent() {
		s.sendErr(m.ID, perr(ErrCodeClassUnknown, "class-not-joined"))
		return
	}
	q := s.class.feed.state().Question
	switch {
	case q == nil || !q.Open:
		s.sendErr(m.ID, perr(ErrCodeClassNoQuestion, "class-no-question"))
		return
	case *m.Step != q.Step || !q.Has(m.Choice):
		s.sendErr(m.ID, perr(ErrCodeClassBadAnswer, "class-bad-answer", "Step", q.Step))
		return
	}
	if !s.publishClass(classroom.Message{Kind: classroom.KindAnswer, Student: s.class.student, Step: q.Step, Choice: m.Choice}) {
		s.sendErr(m.ID, perr(ErrCodeClassBus, "class-bus", "Reason", "publish"))
		return
	}
	s.class.answer = map[int]string{q.Step: m.Choice}
	s.class.follow.setAnswer(s.class.answer)
	s.send(ClassAnsweredMessage{Type: MsgClassAnswered, Re: m.ID, Step: q.Step, Choice: m.Choice})
}

// leaveClass ends the session's part in its class: a student leaves the
// feed (the owner uncounts it); a presenter's class goes on without this
// session (its page may resume it).
func (s *session) leaveClass() {
	l := s.class
	if l == nil {
		return
	}
	switch {
	case l.isStudent():
		l.follow.leave()
		s.c.follower.CompareAndSwap(l.follow, nil)
		l.feed.leave(l.follow)
		s.publishClass(classroom.Message{Kind: classroom.KindLeave, Student: l.student})
	case l.presenter():
		l.owned.detach(l.wake)
	}
	s.class = nil
}

// classLang follows a language change: the presenter's panel and a
// student's status are in the page's language.
func (s *session) classLang() {
	switch {
	case s.class.presenter():
		s.sendPresenter(0, "")
	case s.class.isStudent():
		if s.class.following && s.runner == nil {
			// The shared frames in the new language, chrome and all, then
			// the status (by the writer, or by followClass).
			s.class.follow.reset()
			s.followClass()
			return
		}
		s.sendStudentStatus(s.class.feed.state())
	}
}
