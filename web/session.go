package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// Session timing.
const (
	stepTimeout  = 10 * time.Second // one step on Redis
	closeTimeout = 5 * time.Second  // deleting a run's keys
	playInterval = 1500 * time.Millisecond
)

// session is the lesson run of one connection. Its goroutine (run) owns the
// runner and the store: it handles the page's messages one at a time and the
// play ticks in between, and it is the only sender on the client's queue.
type session struct {
	srv     *Server
	c       *client
	locale  sim.Locale
	tl      explore.Timeline // what the run runs; Lesson nil before a load
	store   sim.Store
	endRun  func(context.Context) error // ends store's run (Server.openStore)
	runner  *sim.Runner
	cur     int
	playing bool
	speed   float64
	timer   *time.Timer
	dropped bool
	// code is an explore timeline's share code ("" for a course lesson or
	// a drill).
	code string
	// page is what the frames sent since the last one with chrome have
	// put on the page (view/delta.go).
	page view.Page
}

// run is the session's goroutine.
func (s *Server) runSession(c *client) {
	defer s.sessions.Done()
	sess := &session{srv: s, c: c, locale: sim.English, speed: DefaultSpeed}
	defer func() {
		sess.stopPlay()
		sess.closeRun()
		close(c.done)
		s.sessionCount.remove()
	}()
	idle := time.NewTimer(s.cfg.IdleTimeout)
	defer idle.Stop()
	info := s.cfg.Backend.Info()
	if !sess.send(HelloMessage{Type: MsgHello, Protocol: ProtocolVersion, Backend: info, BackendTxt: info.String(), MaxMessage: s.cfg.ReadLimit}) {
		return
	}
	for {
		var tick <-chan time.Time
		if sess.timer != nil {
			tick = sess.timer.C
		}
		select {
		case in := <-c.inbox:
			idle.Reset(s.cfg.IdleTimeout)
			sess.handle(in)
		case <-tick:
			sess.tick()
		case <-idle.C:
			c.finish(CloseIdle, fmt.Sprintf("web: idle for %s; reconnect to go on", s.cfg.IdleTimeout))
			return
		case <-c.gone:
			c.finish(websocket.CloseNormalClosure, "")
			return
		case <-s.ctx.Done():
			c.finish(websocket.CloseGoingAway, "web: server shutting down")
			return
		}
		if sess.dropped {
			return
		}
	}
}

// send queues a message for the writer; a client whose queue is full is
// dropped, so it can never hold up the session or anyone else.
func (s *session) send(v any) bool {
	if s.dropped {
		return false
	}
	b, err := encodeMessage(v)
	return s.sendEncoded(b, err)
}

// sendEncoded queues message b, encoded with err, as send does.
func (s *session) sendEncoded(b []byte, err error) bool {
	if s.dropped {
		return false
	}
	if err != nil {
		s.srv.logf("web: encode message: %v", err)
		return false
	}
	switch err := s.c.enqueue(b); {
	case err == nil:
		return true
	case errors.Is(err, errSlowClient):
		s.dropped = true
		s.srv.logf("web: dropping a client that does not read its messages")
		s.c.drop(err.Error())
	}
	// Else the connection or the server ended while the session waited:
	// runSession's loop sees it next and ends the session as it always does.
	return false
}

// encodeMessage is a message as JSON without HTML escaping: panels are
// HTML, and escaping each <, > and & as \u003c grew a frame message by
// about a third for nothing (the page parses it with JSON.parse).
func encodeMessage(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (s *session) sendErr(re int64, err error) {
	var pe *protoError
	if !errors.As(err, &pe) {
		pe = &protoError{code: ErrCodeInternal, msg: err.Error()}
	}
	s.send(ErrorMessage{Type: MsgError, Re: re, Code: pe.code, Message: pe.msg})
}

func (s *session) handle(in inbound) {
	if in.flood {
		s.dropped = true
		s.c.finish(websocket.ClosePolicyViolation, floodReason(rate.Limit(s.srv.cfg.MessageRate)))
		return
	}
	if in.limited {
		s.sendErr(0, perr(ErrCodeRateLimited, "too many messages (limit %g per second); this one was ignored", s.srv.cfg.MessageRate))
		return
	}
	if in.binary {
		s.sendErr(0, perr(ErrCodeBinary, "binary messages are not part of the protocol; send JSON text"))
		return
	}
	m, err := parseClientMessage(in.data, s.srv.translators.cat.Has)
	if err != nil {
		s.sendErr(m.ID, err)
		return
	}
	if m.Type == MsgLoad {
		s.load(m)
		return
	}
	if m.Type == MsgFork && s.runner != nil {
		s.fork(m)
		return
	}
	if m.Type == MsgUndo && s.runner != nil {
		s.undo(m)
		return
	}
	if m.Type == MsgLang {
		s.locale = sim.Locale(m.Lang)
		if s.runner == nil {
			s.send(StateMessage{Type: MsgState, Re: m.ID, Speed: s.speed})
			return
		}
		s.sendFrame(m.ID, true)
		return
	}
	if s.runner == nil {
		s.sendErr(m.ID, perr(ErrCodeNoLesson, "no lesson loaded; send a load message first"))
		return
	}
	total := len(s.tl.Lesson.Steps)
	switch m.Type {
	case MsgStep:
		s.stopPlay()
		s.moveTo(m.ID, s.cur+1)
	case MsgBack:
		s.stopPlay()
		s.moveTo(m.ID, s.cur-1)
	case MsgSeek:
		s.stopPlay()
		s.moveTo(m.ID, *m.Step)
	case MsgPlay:
		speed := m.Speed
		if speed == 0 {
			speed = s.speed
		}
		s.speed = speed
		if total == 0 {
			// Nothing to play (an empty sandbox, or a timeline undone to
			// no step): the state says it does not play.
			s.stopPlay()
			s.send(s.state(m.ID))
			return
		}
		if s.cur >= total {
			s.stopPlay()
			s.moveTo(m.ID, 0)
		}
		s.startPlay()
		s.send(s.state(m.ID))
	case MsgPause:
		s.stopPlay()
		s.send(s.state(m.ID))
	}
}

func (s *session) state(re int64) StateMessage {
	return StateMessage{Type: MsgState, Re: re, Playing: s.playing, Speed: s.speed, Step: s.cur, Total: len(s.tl.Lesson.Steps)}
}

// load starts a fresh run of a lesson (closing the previous one) and runs
// it to the requested step.
func (s *session) load(m ClientMessage) {
	var tl explore.Timeline
	if m.Timeline != "" {
		var err error
		if tl, err = s.srv.decodeTimeline(m.Timeline); err != nil {
			s.sendErr(m.ID, perr(ErrCodeBadLink, "%v", err))
			return
		}
	} else if tl = s.srv.lesson(s.srv.ctx, m.Lesson); tl.Lesson == nil {
		s.sendErr(m.ID, perr(ErrCodeUnknownLesson, "no lesson %q in the course", view.Clip(m.Lesson, maxEcho)))
		return
	}
	if m.Lang != "" {
		s.locale = sim.Locale(m.Lang)
	}
	target := 0
	if m.Step != nil {
		target = *m.Step
	}
	s.start(m.ID, tl, m.Timeline, target)
}

// start begins a fresh run of tl (closing the previous one), runs it to
// step target and sends the frame with the chrome. code is an explore
// timeline's share code, computed when "".
func (s *session) start(re int64, tl explore.Timeline, code string, target int) {
	s.stopPlay()
	s.closeRun()
	l := tl.Lesson
	if tl.Explore() && code == "" {
		var err error
		if code, err = s.srv.encodeTimeline(tl); err != nil {
			s.sendErr(re, rendered(ErrCodeBadStep, s.srv.tr(s.locale).Err(err)))
			return
		}
	}
	store, end, err := s.srv.openStore()
	if err != nil {
		s.sendErr(re, perr(ErrCodeRedis, "new run: %v", err))
		return
	}
	runner, err := sim.NewRunner(l, store)
	if err != nil {
		s.srv.endRun(end)
		s.sendErr(re, perr(ErrCodeInternal, "lesson %s: %v", l.ID, err))
		return
	}
	s.tl, s.store, s.endRun, s.runner, s.cur = tl, store, end, runner, 0
	s.code = code
	if err := s.runTo(target); err != nil {
		s.sendErr(re, err)
	}
	s.sendFrame(re, true)
}

// fork continues the timeline after step at (default: the current one)
// with the message's action, dropping the later steps, and shows the new
// step. A course lesson becomes a fork of it; its run starts afresh, and
// frames are deterministic, so the kept steps show what they showed.
func (s *session) fork(m ClientMessage) {
	at := s.cur
	if m.At != nil {
		at = *m.At
	}
	if reached := len(s.runner.Frames()) - 1; at > reached {
		if at > len(s.tl.Lesson.Steps) {
			s.sendErr(m.ID, perr(ErrCodeBadStep, "at is past the end: the run has %d steps, and has reached step %d", len(s.tl.Lesson.Steps), reached))
		} else {
			s.sendErr(m.ID, perr(ErrCodeBadStep, "step %d has not run yet (the run has reached step %d)", at, reached))
		}
		return
	}
	st, err := m.Action.Step(s.tl.Lesson)
	if err == nil {
		var tl explore.Timeline
		if tl, err = s.tl.Fork(at, st); err == nil {
			// The code first: a timeline that cannot be shared is refused
			// before the current run is closed.
			var code string
			if code, err = s.srv.encodeTimeline(tl); err == nil {
				s.start(m.ID, tl, code, at+1)
				return
			}
		}
	}
	s.sendErr(m.ID, rendered(ErrCodeBadStep, s.srv.tr(s.locale).Err(err)))
}

// undo drops the timeline's last step.
func (s *session) undo(m ClientMessage) {
	tl, err := s.tl.Undo()
	switch {
	case errors.Is(err, explore.ErrUndoFloor):
		o := s.tl.Origin
		where := ""
		if base := s.srv.originLesson(o); base != nil {
			where = " (the lesson itself is at " + lessonURL(base.ID, o.At, s.locale, false) + ")"
		}
		s.sendErr(m.ID, perr(ErrCodeBadStep, "nothing to undo: this fork's %d steps are lesson %s's, not added in explore mode%s", len(s.tl.Lesson.Steps), o.Lesson, where))
		return
	case err != nil:
		s.sendErr(m.ID, perr(ErrCodeBadStep, "nothing to undo: undo takes back the last step of an explore timeline (a fork or a sandbox), and this run has none to take back"))
		return
	}
	s.start(m.ID, tl, "", min(s.cur, len(tl.Lesson.Steps)))
}

// moveTo goes to step target (clamped to the lesson), from the frames
// already computed or by running steps, and sends the frame.
func (s *session) moveTo(re int64, target int) {
	if err := s.runTo(target); err != nil {
		s.sendErr(re, err)
	}
	s.sendFrame(re, false)
}

// runTo sets the current step to target, clamped to [0, steps]. Frames are
// deterministic, so going back or seeking serves computed ones; only a step
// past the last computed one runs on Redis. On a Redis error the session
// stays at the last step computed, and the step can be tried again.
func (s *session) runTo(target int) error {
	target = max(0, min(target, len(s.tl.Lesson.Steps)))
	for len(s.runner.Frames())-1 < target && !s.runner.Done() {
		ctx, cancel := context.WithTimeout(s.srv.ctx, stepTimeout)
		_, err := s.runner.Step(ctx)
		cancel()
		if err != nil {
			s.cur = len(s.runner.Frames()) - 1
			return perr(ErrCodeRedis, "step %d on %s failed: %v; try again", len(s.runner.Frames()), s.srv.cfg.Backend.Info(), err)
		}
	}
	s.cur = target
	return nil
}

func (s *session) startPlay() {
	s.stopPlay()
	s.playing = true
	s.timer = time.NewTimer(time.Duration(float64(playInterval) / s.speed))
}

func (s *session) stopPlay() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.playing = false
}

// tick is one step of play.
func (s *session) tick() {
	s.timer = nil
	total := len(s.tl.Lesson.Steps)
	if s.cur >= total {
		s.stopPlay()
		s.send(s.state(0))
		return
	}
	if err := s.runTo(s.cur + 1); err != nil {
		s.stopPlay()
		s.sendErr(0, err)
		s.sendFrame(0, false)
		return
	}
	if s.cur >= total {
		s.playing = false
	} else {
		s.timer = time.NewTimer(time.Duration(float64(playInterval) / s.speed))
	}
	s.sendFrame(0, false)
}

// sendFrame renders the current step and sends it; with chrome it also
// re-renders the header and the controls (after a load or a language
// change).
func (s *session) sendFrame(re int64, chrome bool) {
	t := s.srv.tr(s.locale)
	frames := s.runner.Frames()
	v := view.New(view.Input{Texts: t, Lesson: s.tl.Lesson, Frames: frames[:s.cur+1], Cur: s.cur, Info: s.srv.cfg.Backend.Info(), Prefix: keyPrefix(s.store), Explore: s.srv.timelineView(t, s.tl, s.code)})
	ctx := context.Background()
	if chrome {
		s.page = view.Page{} // a new run or language: the page gets everything
	}
	panels, patch, err := v.FramePanels(ctx, &s.page)
	if err != nil {
		s.page = view.Page{}
		s.sendErr(re, err)
		return
	}
	total := len(s.tl.Lesson.Steps)
	msg := FrameMessage{
		Type: MsgFrame, Re: re, Lesson: s.tl.Lesson.ID, Step: s.cur, Total: total, Computed: len(frames) - 1,
		Playing: s.playing, Speed: s.speed, Lang: string(s.locale),
		Title: s.tl.Lesson.Title.In(s.locale) + " · " + t.UI().AppName,
		URL:   lessonURL(s.tl.Lesson.ID, s.cur, s.locale, false),
		Frame: frames[s.cur], Panels: panels, TimelinePatch: patch,
	}
	if s.tl.Explore() {
		msg.Timeline = s.code
		msg.URL = exploreURL(s.code, s.cur, s.locale, false)
		msg.Title = s.srv.timelineTitle(s.tl).In(s.locale) + " · " + t.UI().AppName
	}
	if chrome {
		header := s.srv.header(t, s.tl, s.code, s.cur, false)
		msg.Chrome, err = view.RenderAll(ctx, map[string]templ.Component{
			chromeHeader:   templates.PlayerHeader(header),
			chromeControls: templates.ControlsBar(s.srv.playerControls(t, s.tl.Lesson, s.cur, s.speed)),
		})
		if err != nil {
			s.page = view.Page{}
			s.sendErr(re, err)
			return
		}
	}
	if !s.send(msg) {
		// The page did not get what s.page now says it shows.
		s.page = view.Page{}
	}
}

// closeRun ends the current run: its keys are deleted from Redis.
func (s *session) closeRun() {
	if s.endRun != nil {
		s.srv.endRun(s.endRun)
	}
	s.tl, s.store, s.endRun, s.runner, s.cur = explore.Timeline{}, nil, nil, nil, 0
	s.code = ""
	s.page = view.Page{}
}

// endRun ends a run opened by openStore, logging what went wrong.
func (s *Server) endRun(end func(context.Context) error) {
	if err := end(s.ctx); err != nil {
		s.logf("web: close run: %v", err)
	}
}
