package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"lockstep/backend"
	"lockstep/classserve"
	"lockstep/explore"
	"lockstep/searchpage"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
	"lockstep/webnet"
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
	slot    *webnet.SessionSlot // its place in the server's session table
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
	// scriptAddr is the address the run's steps are charged to where a
	// bound counts by address (backend.WithClientAddr): the session's own
	// ("") for what it loaded itself; for what a class it follows shows,
	// the class's presenter (Hub.ScriptAddr), whose script it re-runs.
	scriptAddr string
	// page is what the frames sent since the last one with chrome have
	// put on the page (view/delta.go).
	page view.Page
	// canon is the frames of the course lesson's cached run (prerender.go)
	// while the run's may share its drawings, nil otherwise; the run's
	// first same frames are known to equal them.
	canon []sim.Frame
	same  int
	// holding: the session holds a slot of the server's webnet.WorkGate.
	holding bool
	// search is the session's part in the Search page's searches (package
	// searchpage).
	search *searchpage.Seat
	// class is the session's part in the classes (package classserve).
	class *classserve.Seat
}

// handleFair carries out message in when the server's webnet.WorkGate lets it
// (Config.MaxBusy): at once with a slot free; after a wait for one when the
// connection is within its fair share; else not at all, answered with a
// rate-limited error. Messages that cost nothing (limits, binary) skip the
// gate.
func (s *session) handleFair(in inbound) {
	if in.flood || in.limited || in.binary {
		s.handle(in)
		return
	}
	fair := s.c.fair == nil || s.c.fair.Allow()
	if !s.srv.gate.TryAcquire() {
		if !fair {
			s.sendErr(0, perr(ErrCodeRateLimited, "busy-fair-share", "Rate", s.srv.cfg.FairRate))
			return
		}
		if !s.srv.gate.Acquire(s.share(), s.c.gone, s.srv.ctx.Done()) {
			return
		}
	}
	s.holding = true
	defer s.releaseSlot()
	s.handle(in)
}

// tickFair is a step of play, within the webnet.WorkGate as a fair message.
func (s *session) tickFair() {
	if !s.srv.gate.Acquire(s.share(), s.c.gone, s.srv.ctx.Done()) {
		return
	}
	s.holding = true
	defer s.releaseSlot()
	s.tick()
}

// share is what is left of the connection's fair share, in messages.
func (s *session) share() float64 {
	if s.c.fair == nil {
		return float64(s.srv.cfg.FairBurst)
	}
	return s.c.fair.Tokens()
}

// releaseSlot gives the session's webnet.WorkGate slot back, if it holds one.
func (s *session) releaseSlot() {
	if s.holding {
		s.holding = false
		s.srv.gate.Release()
	}
}

// run is the session's goroutine.
func (s *Server) runSession(c *client, slot *webnet.SessionSlot) {
	defer s.sessions.Done()
	sess := &session{srv: s, c: c, slot: slot, locale: sim.English, speed: DefaultSpeed}
	sess.class = s.classes.Seat(sess)
	sess.search = s.searches.Seat(sess)
	defer func() {
		sess.stopPlay()
		sess.search.End()
		sess.class.Leave()
		sess.closeRun()
		close(c.done)
		s.table.Remove(slot)
	}()
	// The idle timer is set again only when it fires early (active moved
	// on since): a class move wakes 10,000 sessions, and a timer set anew
	// on each wake cost each its turn at the runtime's timer lock.
	idle := time.NewTimer(s.cfg.IdleTimeout)
	defer idle.Stop()
	active := time.Now()
	info, infoText := visibleInfo(s.cfg.Backend.Info(), c.local)
	if !sess.send(HelloMessage{Type: MsgHello, Protocol: ProtocolVersion, Backend: info, BackendTxt: infoText, MaxMessage: s.cfg.ReadLimit}) {
		return
	}
	for {
		var tick <-chan time.Time
		if sess.timer != nil {
			tick = sess.timer.C
		}
		select {
		case in := <-c.inbox:
			active = time.Now()
			s.table.Touch(slot)
			sess.handleFair(in)
		case <-tick:
			sess.tickFair()
		case p := <-sess.search.Progress():
			sess.send(p)
		case out := <-sess.search.Result():
			sess.search.Finish(out)
		case <-sess.class.Wake():
			// A class's activity is the session's: a student who follows a
			// lecture sends nothing for long stretches.
			active = time.Now()
			s.table.Touch(slot)
			sess.class.OnWake()
		case <-idle.C:
			if f := c.followed.Load(); f > active.UnixNano() {
				// The writer showed the student its class's moves.
				active = time.Unix(0, f)
			}
			if rest := s.cfg.IdleTimeout - time.Since(active); rest > 0 {
				idle.Reset(rest)
				continue
			}
			c.finish(CloseIdle, fmt.Sprintf("web: idle for %s; reconnect to go on", s.cfg.IdleTimeout))
			return
		case <-slot.Evicted():
			c.finish(CloseIdle, fmt.Sprintf("web: idle %s or more, closed to make room: the server is full (%d sessions)", s.cfg.IdleGrace, s.cfg.MaxSessions))
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
	return s.queue(outgoing{data: b})
}

// queue hands o to the writer; a client whose queue stayed full is dropped.
func (s *session) queue(o outgoing) bool {
	switch err := s.c.enqueue(o, s.releaseSlot); {
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
	code := ErrCodeInternal
	var pe *protoError
	var fields []string
	// The errors of packages that carry messages of their own (classserve,
	// searchpage) say their code and fields.
	var ce interface{ ErrorCode() string }
	switch {
	case errors.As(err, &pe):
		code, fields = pe.code, pe.fields
	case errors.As(err, &ce):
		code = ce.ErrorCode()
		if f, ok := ce.(interface{ ErrorFields() []string }); ok {
			fields = f.ErrorFields()
		}
	}
	// The page shows the message (#conn): in the session's language, as the
	// catalogue words it.
	msg := ErrorMessage{Type: MsgError, Re: re, Code: code, Message: s.srv.tr(s.locale).Err(err)}
	msg.Fields = fields
	s.send(msg)
}

func (s *session) handle(in inbound) {
	if in.flood {
		s.dropped = true
		s.c.finish(websocket.ClosePolicyViolation, floodReason(rate.Limit(s.srv.cfg.MessageRate)))
		return
	}
	if in.limited {
		s.sendErr(0, perr(ErrCodeRateLimited, "rate-limited", "Rate", s.srv.cfg.MessageRate))
		return
	}
	if in.binary {
		s.sendErr(0, perr(ErrCodeBinary, "binary"))
		return
	}
	m, err := parseClientMessage(in.data, s.srv.translators.cat.Has)
	if err != nil {
		s.sendErr(m.ID, err)
		return
	}
	if classserve.IsClassType(m.Type) {
		s.class.Handle(classRequest(m))
		return
	}
	if s.class.Following() && playerMoves[m.Type] {
		// The class's step is the presenter's: a student explores on their
		// own first (class-follow false).
		s.sendErr(m.ID, perr(classserve.ErrCodeClassFollowing, "class-following"))
		return
	}
	switch m.Type {
	case MsgLoad:
		s.load(m)
		return
	case MsgSearch:
		s.search.Start(searchpage.Message{ID: m.ID, Lang: m.Lang, Search: m.Search})
		return
	case MsgSearchStop:
		s.search.Stop(m.ID)
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
		} else {
			s.sendFrame(m.ID, true)
		}
		s.class.Lang()
		return
	}
	if s.runner == nil {
		s.sendErr(m.ID, perr(ErrCodeNoLesson, "no-lesson"))
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
			s.sendErr(m.ID, perrOf(ErrCodeBadLink, err))
			return
		}
	} else if tl = s.srv.lesson(s.srv.ctx, m.Lesson); tl.Lesson == nil {
		s.sendErr(m.ID, perr(ErrCodeUnknownLesson, "unknown-lesson", "Lesson", view.Clip(m.Lesson, maxEcho)))
		return
	}
	if m.Lang != "" {
		s.locale = sim.Locale(m.Lang)
	}
	target := 0
	if m.Step != nil {
		target = *m.Step
	}
	s.scriptAddr = ""
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
			s.sendErr(re, perrOf(ErrCodeBadStep, err))
			return
		}
	}
	store, end, err := s.srv.openerFor(l)()
	if err != nil {
		s.sendErr(re, perr(ErrCodeRedis, "new-run", "Reason", err.Error()))
		return
	}
	runner, err := sim.NewRunner(l, store)
	if err != nil {
		s.srv.endRun(end)
		s.sendErr(re, perr(ErrCodeInternal, "internal", "Lesson", l.ID, "Reason", err.Error()))
		return
	}
	s.tl, s.store, s.endRun, s.runner, s.cur = tl, store, end, runner, 0
	s.code = code
	if err := s.runTo(target); err != nil {
		s.sendErr(re, err)
	} else {
		// Only once the run's own steps ran: a Redis that fails them would
		// fail the cached run too, after a longer wait.
		s.canon = s.srv.canonical(s.srv.ctx, tl)
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
			s.sendErr(m.ID, perr(ErrCodeBadStep, "at-past-end", "Steps", len(s.tl.Lesson.Steps), "Reached", reached))
		} else {
			s.sendErr(m.ID, perr(ErrCodeBadStep, "not-run-yet", "Step", at, "Reached", reached))
		}
		return
	}
	st, err := m.Action.Step(s.tl.Lesson, at)
	if err == nil {
		var tl explore.Timeline
		if tl, err = s.tl.Fork(at, st); err == nil {
			// The code first: a timeline that cannot be shared is refused
			// before the current run is closed.
			var code string
			if code, err = s.srv.encodeTimeline(tl); err == nil {
				s.scriptAddr = ""
				s.start(m.ID, tl, code, at+1)
				return
			}
		}
	}
	s.sendErr(m.ID, perrOf(ErrCodeBadStep, err))
}

// undo drops the timeline's last step.
func (s *session) undo(m ClientMessage) {
	tl, err := s.tl.Undo()
	switch {
	case errors.Is(err, explore.ErrUndoFloor):
		o := s.tl.Origin
		if base := s.srv.originLesson(o); base != nil {
			s.sendErr(m.ID, perr(ErrCodeBadStep, "undo-floor-at", "Steps", len(s.tl.Lesson.Steps), "Lesson", o.Lesson, "URL", lessonURL(base.ID, o.At, s.locale, false)))
		} else {
			s.sendErr(m.ID, perr(ErrCodeBadStep, "undo-floor", "Steps", len(s.tl.Lesson.Steps), "Lesson", o.Lesson))
		}
		return
	case err != nil:
		s.sendErr(m.ID, perr(ErrCodeBadStep, "undo-none"))
		return
	}
	s.scriptAddr = ""
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
		sctx := backend.WithClientAddr(s.srv.ctx, s.c.addr)
		if s.scriptAddr != "" {
			sctx = backend.WithOthersScript(backend.WithClientAddr(s.srv.ctx, s.scriptAddr))
		}
		ctx, cancel := context.WithTimeout(sctx, stepTimeout)
		_, err := s.runner.Step(ctx)
		cancel()
		if err != nil {
			err = backend.ExplainOwnerInKeys(err, s.tl.Lesson.VariantDef)
			s.cur = len(s.runner.Frames()) - 1
			step := len(s.runner.Frames())
			t := s.srv.tr(s.locale)
			if code, reason, ok := stepRefusal(t, err); ok && code == ErrCodeScriptError {
				// The learner's script, not Redis: no outage to wait out.
				return &protoError{code: code, msg: sim.M("StepScriptError", "Step", step, "Reason", reason)}
			} else if ok {
				// Refused before it ran, not a failure of Redis: said in
				// the page's language, naming the bound or the ACL rule.
				return &protoError{code: code, msg: sim.M("StepRefused", "Step", step, "Reason", reason)}
			}
			// The backend in the page's language: all of it for a local
			// page, a real Redis without its address for a remote one (as
			// the header's badge says); the error's own text (go-redis's,
			// Redis's) is quoted as it came.
			full := s.srv.cfg.Backend.Info()
			info, _ := visibleInfo(full, s.c.local)
			var be any = sim.M("BackendReal")
			if s.c.local || info.Embedded {
				be = info.Message()
			}
			return perr(ErrCodeRedis, "step-failed", "Step", step, "Backend", be, "Reason", visibleReason(err, full, s.c.local))
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
	in := view.Input{Texts: t, Lesson: s.tl.Lesson, Frames: frames[:s.cur+1], Cur: s.cur, Info: s.srv.cfg.Backend.Info(), Prefix: keyPrefix(s.store), Explore: s.srv.timelineView(t, s.tl, s.code)}
	if s.sharedUpTo(s.cur) {
		in.Drawn = s.srv.drawings(s.tl.Lesson.ID, t.Locale(), s.cur)
	}
	v := view.New(in)
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
		Frame: view.ShownFrame(frames[s.cur]), Panels: panels, TimelinePatch: patch,
	}
	if s.tl.Explore() {
		msg.Timeline = s.code
		msg.URL = exploreURL(s.code, s.cur, s.locale, false)
		msg.Title = s.srv.timelineTitle(s.tl).In(s.locale) + " · " + t.UI().AppName
	}
	if chrome {
		header := s.srv.header(t, s.tl, s.code, s.cur, false)
		if code := s.class.StudentCode(); code != "" {
			header.ClassStart, header.Class = false, &templates.ClassBar{Code: code}
			header.Langs = langOptions(t, func(l sim.Locale) string { return classURL(code, l) })
		}
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
	s.class.Sync()
}

// closeRun ends the current run: its keys are deleted from Redis.
func (s *session) closeRun() {
	if s.endRun != nil {
		s.srv.endRun(s.endRun)
	}
	s.tl, s.store, s.endRun, s.runner, s.cur = explore.Timeline{}, nil, nil, nil, 0
	s.code = ""
	s.page = view.Page{}
	s.canon, s.same = nil, 0
}

// sharedUpTo reports whether the run's frames up to step cur are those of
// the course lesson's cached run, comparing the frames not compared yet, so
// that the step's drawings may be shared. Frames are deterministic and name
// keys without the run's prefix, on either backend, so they are equal; one
// that differs (a determinism bug, logged) ends the sharing for the run,
// which draws its own steps from then on. What a run's prefix changes (its
// Redis panel) view.Step draws for the run itself.
func (s *session) sharedUpTo(cur int) bool {
	if s.canon == nil {
		return false
	}
	frames := s.runner.Frames()
	for s.same <= cur && s.same < len(frames) && s.same < len(s.canon) {
		if !reflect.DeepEqual(frames[s.same], s.canon[s.same]) {
			s.srv.logf("web: lesson %s: step %d of this run differs from the lesson's cached run; its steps are drawn for this run only", s.tl.Lesson.ID, s.same)
			s.canon, s.same = nil, 0
			return false
		}
		s.same++
	}
	return cur < s.same
}

// endRun ends a run opened by openStore, logging what went wrong.
func (s *Server) endRun(end func(context.Context) error) {
	if err := end(s.ctx); err != nil {
		s.logf("web: close run: %v", err)
	}
}
