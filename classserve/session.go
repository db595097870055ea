package classserve

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"lockstep/classbus"
	"lockstep/classroom"
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
	follow    *Follower
	student   string
	following bool
	answer    map[int]string
}

func (l *classLink) presenter() bool { return l != nil && l.owned != nil }
func (l *classLink) isStudent() bool { return l != nil && l.feed != nil }

// classWake is the channel that wakes the session for its class (woken
// by the owned class for a presenter, by the feed for a student), nil
// without a class.
func (s *Seat) classWake() <-chan struct{} {
	if s.class == nil {
		return nil
	}
	return s.class.wake
}

// onClassWake is the session's answer to its class's wake channel.
func (s *Seat) onClassWake() {
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

// handleClass carries out a class message m (checked by
// parseClassMessage).
func (s *Seat) handleClass(m Request) {
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
		if !s.class.following && !s.p.Running() {
			// Explore on my own from the class's step: a run of the
			// student's own (it followed from the shared frames).
			st := s.class.feed.state()
			_ = s.p.Open(m.ID, st)
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

func (s *Seat) busErr(re int64, err error) {
	s.srv.logf("%v", err)
	if errors.Is(err, classroom.ErrEnded) {
		s.sendErr(re, perr(ErrCodeClassEnded, "class-ended"))
		return
	}
	s.sendErr(re, perr(ErrCodeClassBus, "class-bus")) // the reason, with the bus's address, goes to the log only (issue 37)
}

func (s *Seat) startClass(m Request) {
	if s.class.isStudent() {
		s.sendErr(m.ID, perr(ErrCodeClassFollowing, "class-student-start"))
		return
	}
	if !s.p.Running() {
		s.sendErr(m.ID, perr(errCodeNoLesson, "no-lesson"))
		return
	}
	if s.class.presenter() {
		// A start from the page that presents a class is that class again,
		// not one more under the bounds; a class that has ended since
		// (its end not yet read by this session) is left, and a new one
		// takes the place it gave back.
		if _, _, _, _, retired := s.class.owned.view(); !retired {
			s.sendPresenter(m.ID, "")
			return
		}
		s.leaveClass()
	}
	if !s.srv.classes.reserve(s.p.Addr()) {
		s.sendErr(m.ID, s.srv.classLimitErr())
		return
	}
	oc, key, err := s.srv.startClass(s.shown(), s.p.Cur())
	if err != nil {
		s.srv.classes.unreserve(s.p.Addr())
		s.busErr(m.ID, err)
		return
	}
	s.srv.classes.bind(oc, s.p.Addr())
	s.presentClass(oc)
	s.sendPresenter(m.ID, key)
}

func (s *Seat) resumeClass(m Request) {
	// A failed resume takes a join token, as a failed join does: it would
	// tell a guessed code from a live one.
	if !s.srv.JoinAllowed(s.p.Addr()) {
		s.sendErr(m.ID, perr(ErrCodeClassJoins, "class-joins"))
		return
	}
	st, err := s.srv.loadClassState(s.srv.ctx, m.Code)
	switch {
	case errors.Is(err, classbus.ErrNoClass):
		s.srv.JoinFailed(s.p.Addr())
		s.sendErr(m.ID, perr(ErrCodeClassUnknown, "class-unknown", "Code", m.Code))
		return
	case err != nil:
		s.busErr(m.ID, err)
		return
	case st.Ended:
		s.sendErr(m.ID, perr(ErrCodeClassEnded, "class-ended"))
		return
	case !classroom.KeyMatches(st.KeyHash, m.Key):
		s.srv.JoinFailed(s.p.Addr())
		s.sendErr(m.ID, perr(ErrCodeClassBadKey, "class-bad-key"))
		return
	}
	s.leaveClass()
	reserved, ok := s.srv.reserveClass(s.p.Addr(), st.Code)
	if !ok {
		s.sendErr(m.ID, s.srv.classLimitErr())
		return
	}
	oc, err := s.srv.resumeClass(st)
	if reserved && err != nil {
		s.srv.classes.unreserve(s.p.Addr())
	}
	if err != nil {
		s.busErr(m.ID, err)
		return
	}
	if reserved {
		s.srv.classes.bind(oc, s.p.Addr())
	}
	s.presentClass(oc)
	if s.p.Running() {
		s.syncClass() // the class shows what the presenter's page shows
	}
	s.sendPresenter(m.ID, "")
}

// presentClass makes the session a presenter of oc, woken with its other
// presenter sessions (a second tab of the presenter's) on each change.
func (s *Seat) presentClass(oc *ownedClass) {
	w := make(chan struct{}, 1)
	oc.attach(w)
	s.class = &classLink{code: oc.c.Code(), owned: oc, wake: w}
}

// sendPresenter sends the class-presenter message: key only to the page
// that started the class.
func (s *Seat) sendPresenter(re int64, key string) {
	code := s.class.code
	urls := s.srv.joinURLs(s.p.Host(), code)
	t := s.srv.texts(s.locale())
	qr, err := qrView(urls[0], t.Class().ClassQRLabel)
	if err != nil {
		s.sendErr(re, perr(errCodeInternal, "internal", "Lesson", code, "Reason", err.Error()))
		return
	}
	var panel bytes.Buffer
	if err := templatesClassPanel(t, code, urls, qr, s.p.ListenPort()).Render(context.Background(), &panel); err != nil {
		s.sendErr(re, perr(errCodeInternal, "internal", "Lesson", code, "Reason", err.Error()))
		return
	}
	s.send(ClassPresenterMessage{Type: MsgClassPresenter, Re: re, Code: code, Key: key, Join: urls, Panel: panel.String(), Status: s.presenterStatus()})
}

func (s *Seat) presenterStatus() ClassStatusMessage {
	st, counts, answered, students, retired := s.class.owned.view()
	msg := s.classStatus(st, RolePresenter)
	msg.Counts, msg.Answered, msg.Students, msg.Scores = counts, answered, students, st.Scores
	if s.srv.classBusDown() {
		msg.Bus = s.srv.texts(s.locale()).Msg(sim.M("ws.class-bus-down"))
	}
	if retired && !st.Ended {
		// Resumed on another server, or the bus failed: this page no longer
		// moves the class.
		msg.Ended, msg.EndReason = true, "elsewhere"
	}
	return msg
}

func (s *Seat) sendPresenterStatus() { s.send(s.presenterStatus()) }

// classStatus is st as a page in the session's language sees it.
func (s *Seat) classStatus(st classroom.State, role string) ClassStatusMessage {
	return s.srv.classStatus(st, role, s.locale())
}

// classStatus is st as a page in language loc sees it.
func (s *Hub) classStatus(st classroom.State, role string, loc sim.Locale) ClassStatusMessage {
	msg := ClassStatusMessage{
		Type: MsgClassStatus, Code: st.Code, Role: role, Lesson: st.Lesson, Timeline: st.Timeline,
		Step: st.Step, Total: st.Total, Ended: st.Ended, EndReason: st.EndReason,
	}
	if q := st.Question; q != nil {
		t := s.texts(loc)
		cq := &ClassQuestion{Step: q.Step, Open: q.Open, Revealed: q.Revealed, Correct: q.Correct}
		do := sim.Action(q.Why.Do)
		for _, c := range q.Choices {
			// the outcome's code, as the lanes and predict mode show it,
			// and its gloss fitted to the lesson's lock
			cq.Choices = append(cq.Choices, ClassChoice{ID: c, Label: view.OutcomeGloss(t, q.Why.Variant, do, sim.Outcome(c))})
		}
		if q.Revealed {
			cq.Why = revealWhy(t, q, loc)
		}
		msg.Question = cq
	}
	return msg
}

// revealWhy is why revealed question q's step came to its outcome, in
// loc: the lesson's right reason when the step asks why, else the
// outcome's gloss; without the sentence's full stop, for it stands in
// brackets ("✗ You said BUSY; it was ACQUIRED (the lock was free: taken,
// lease set)."); "" when there is neither.
func revealWhy(t Texts, q *classroom.Question, loc sim.Locale) string {
	why := q.Why.Because[string(loc)]
	if why == "" {
		why = view.OutcomeGloss(t, q.Why.Variant, sim.Action(q.Why.Do), sim.Outcome(q.Correct))
	}
	return strings.TrimRight(strings.TrimSpace(why), ".。")
}

// syncClass publishes what the presenter's session shows, after each of
// its frames: a move onto the asked step reveals the question (the frame's
// outcome is the answer); a move elsewhere drops it.
func (s *Seat) syncClass() {
	if !s.class.presenter() || !s.p.Running() {
		return
	}
	shown, step, frames := s.shown(), s.p.Cur(), s.p.Frames()
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

func (s *Seat) askClass(m Request) {
	if !s.p.Running() {
		s.sendErr(m.ID, perr(errCodeNoLesson, "no-lesson"))
		return
	}
	l := s.p.Lesson()
	n := s.p.Cur() + 1
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
	why := classroom.Why{Variant: l.Variant, Do: string(st.Do)}
	if len(st.Because) > 0 {
		// the lesson's right reason comes first in its file
		why.Because = make(map[string]string, len(sim.Locales))
		for _, loc := range sim.Locales {
			why.Because[string(loc)] = st.Because[0].In(loc)
		}
	}
	s.stopPlay()
	s.syncClass() // the class is at this step before the question
	err := s.class.owned.apply(s.class.wake, func(c *classroom.Class, now time.Time) (string, error) {
		return classroom.KindAsk, c.Ask(n, action, choices, why, now)
	})
	if err != nil {
		s.busErr(m.ID, err)
		return
	}
	s.sendPresenterStatus()
}

func (s *Seat) revealClass(m Request) {
	st, _, _, _, _ := s.class.owned.view()
	q := st.Question
	if q == nil || !q.Open || !s.p.Running() {
		s.sendErr(m.ID, perr(ErrCodeClassNoQuestion, "class-no-question"))
		return
	}
	s.stopPlay()
	// The frame of the asked step reveals it (syncClass).
	s.moveTo(m.ID, q.Step)
}

func (s *Seat) endClass(m Request) {
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

func (s *Seat) classCSV(m Request) {
	st, _, _, _, _ := s.class.owned.view()
	var buf bytes.Buffer
	if err := classroom.WriteCSV(&buf, st.Scores); err != nil {
		s.sendErr(m.ID, perr(errCodeInternal, "internal", "Lesson", st.Code, "Reason", err.Error()))
		return
	}
	s.send(ClassCSVMessage{Type: MsgClassCSV, Re: m.ID, Filename: "class-" + st.Code + ".csv", CSV: buf.String()})
}

// joinClass makes the session a student of class m.Code: it follows the
// class's step from the server's feed.
func (s *Seat) joinClass(m Request) {
	if !s.srv.JoinAllowed(s.p.Addr()) {
		s.sendErr(m.ID, perr(ErrCodeClassJoins, "class-joins"))
		return
	}
	wake := make(chan struct{}, 1)
	follow := &Follower{srv: s.srv, code: m.Code, wake: s.p.WriterWake(), session: wake, shown: sharedShown{step: -1},
		touch: s.p.Touch, deliver: s.p.WriterDeliver()}
	feed, err := s.srv.joinFeed(m.Code, follow)
	switch {
	case errors.Is(err, classbus.ErrNoClass):
		s.srv.JoinFailed(s.p.Addr())
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
		s.p.SetLocale(sim.Locale(m.Lang))
	}
	s.student = student
	s.class = &classLink{code: m.Code, feed: feed, follow: follow, wake: wake, student: student, following: true, answer: map[int]string{}}
	s.p.Follow(follow)
	s.publishClass(classroom.Message{Kind: classroom.KindJoin, Student: student})
	s.send(ClassJoinedMessage{Type: MsgClassJoined, Re: m.ID, Code: m.Code, Student: student})
	s.followClass()
}

// publishClass publishes a student's message on the class's channel.
func (s *Seat) publishClass(msg classroom.Message) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.srv.ctx), busTimeout)
	defer cancel()
	if err := s.srv.classBus.Publish(ctx, s.class.code, msg.Encode()); err != nil {
		s.srv.logf("classserve: class %s: %v", s.class.code, err)
		return false
	}
	return true
}

// followClass shows the feed's newest state: while following a class that
// shows a course lesson, the connection's writer shows it from the class's
// shared frames (Follower); else the run goes to the class's timeline
// and step, and the page gets the class's status when it changed.
func (s *Seat) followClass() {
	l := s.class
	st := l.feed.state()
	if st.Ended {
		l.follow.leave()
		s.sendStudentStatus(st)
		s.leaveClass()
		return
	}
	if l.following && st.Timeline == "" && s.srv.cfg.Host.Course(st.Lesson) != nil {
		if s.p.Running() {
			s.stopPlay()
			s.closeRun()
		}
		// After what the session queued (the writer sends that first).
		l.follow.serve(s.locale(), l.answer)
		return
	}
	l.follow.leave()
	if l.following {
		if !s.p.Running() || s.showsOther(st) {
			if err := s.p.Open(0, st); err != nil {
				s.sendErr(0, err)
				return
			}
		} else if s.p.Cur() != st.Step {
			s.stopPlay()
			s.moveTo(0, st.Step)
		}
	}
	if l.follow.statusDue(st.Seq) {
		s.sendStudentStatus(st)
	}
}

func (s *Seat) answerClass(m Request) {
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
func (s *Seat) leaveClass() {
	l := s.class
	if l == nil {
		return
	}
	switch {
	case l.isStudent():
		l.follow.leave()
		s.p.Unfollow(l.follow)
		l.feed.leave(l.follow)
		s.publishClass(classroom.Message{Kind: classroom.KindLeave, Student: l.student})
	case l.presenter():
		l.owned.detach(l.wake)
	}
	s.class = nil
}

// classLang follows a language change: the presenter's panel and a
// student's status are in the page's language.
func (s *Seat) classLang() {
	switch {
	case s.class.presenter():
		s.sendPresenter(0, "")
	case s.class.isStudent():
		if s.class.following && !s.p.Running() {
			// The shared frames in the new language, chrome and all, then
			// the status (by the writer, or by followClass).
			s.class.follow.reset()
			s.followClass()
			return
		}
		s.sendStudentStatus(s.class.feed.state())
	}
}
