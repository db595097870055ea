package web

import (
	"context"
	"fmt"

	"github.com/gorilla/websocket"

	"lockstep/classroom"
	"lockstep/classserve"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// What package classserve (the classroom's transport) needs of the server
// and of a session: the server is its Host (classHost), a session its
// Player.

// classHost is the server as its class hub's classserve.Host.
type classHost struct{ s *Server }

func (h classHost) Course(id string) *sim.Lesson          { return h.s.byID[id] }
func (h classHost) Texts(loc sim.Locale) classserve.Texts { return h.s.tr(loc) }
func (t *translator) Class() templates.ClassTexts         { return t.cl }
func (h classHost) FrameJSON(ctx context.Context, l *sim.Lesson, loc sim.Locale, from, to int, class string) ([]byte, error) {
	return h.s.classFrameJSON(ctx, l, loc, from, to, class)
}

// newClassHub is the server's class hub, ending with the server.
func (s *Server) newClassHub(serverID string) *classserve.Hub {
	return classserve.New(s.ctx, classserve.Config{
		Bus: s.classBus, ServerID: serverID, Idle: s.cfg.ClassIdle,
		JoinRate: s.cfg.ClassJoinRate, JoinBurst: s.cfg.ClassJoinBurst, URLs: s.cfg.ClassURLs,
		JoinGlobalRate: s.cfg.ClassJoinGlobalRate, JoinGlobalBurst: s.cfg.ClassJoinGlobalBurst,
		MaxClasses: s.cfg.MaxClasses, MaxClassesPerAddr: s.cfg.MaxClassesPerAddr, Grace: s.cfg.ClassGrace,
		DrawTimeout: runTimeout, Host: classHost{s}, Logf: s.logf,
	})
}

// classRequest is class message m as package classserve takes it.
func classRequest(m ClientMessage) classserve.Request {
	return classserve.Request{Type: m.Type, ID: m.ID, Code: m.Code, Key: m.Key, Student: m.Student,
		Choice: m.Choice, Lang: m.Lang, Step: m.Step, Follow: m.Follow}
}

// playerMoves are the messages that move a run: a student who follows a
// class cannot send them.
var playerMoves = map[string]bool{MsgLoad: true, MsgStep: true, MsgBack: true, MsgSeek: true, MsgPlay: true, MsgFork: true, MsgUndo: true}

// maxClassMessage bounds a class message in bytes: none needs more than a
// code, a key, a student id and a choice.
const maxClassMessage = 1024

// checkClassMessage checks the fields of class message m, size bytes long
// on the wire, its lang a locale of spoken (as a load's); the code comes
// back in capitals. Whether the sender may send
// it is the session's to check.
func checkClassMessage(m *ClientMessage, size int, spoken func(sim.Locale) bool) error {
	if size > maxClassMessage {
		return perr(ErrCodeBadField, "class-too-big", "Bytes", size, "Max", maxClassMessage)
	}
	switch m.Type {
	case classserve.MsgClassResume, classserve.MsgClassJoin:
		code, err := classroom.ParseCode(m.Code)
		if err != nil {
			return perr(ErrCodeBadField, "class-code", "Code", view.Clip(m.Code, maxEcho), "Len", classroom.CodeLen)
		}
		m.Code = code
		if m.Type == classserve.MsgClassResume && !classroom.ValidID(m.Key) {
			return perr(classserve.ErrCodeClassBadKey, "class-bad-key")
		}
		if m.Type == classserve.MsgClassJoin && m.Student != "" && !classroom.ValidID(m.Student) {
			m.Student = "" // the server makes one
		}
		if m.Type == classserve.MsgClassJoin && m.Lang != "" {
			lang, err := wireLang(m.Lang, spoken)
			if err != nil {
				return err
			}
			m.Lang = lang
		}
	case classserve.MsgClassAnswer:
		if m.Step == nil || *m.Step < 1 {
			return perr(ErrCodeBadField, "class-answer-step")
		}
		if m.Choice == "" || len(m.Choice) > classroom.MaxChoiceLen {
			return perr(ErrCodeBadField, "class-answer-choice", "Max", classroom.MaxChoiceLen)
		}
	case classserve.MsgClassFollow:
		if m.Follow == nil {
			return perr(ErrCodeBadField, "class-follow-needs")
		}
	}
	return nil
}

// The session as a classserve.Player.

func (s *session) Send(msg any) bool                   { return s.send(msg) }
func (s *session) SendErr(re int64, err error)         { s.sendErr(re, err) }
func (s *session) Locale() sim.Locale                  { return s.locale }
func (s *session) SetLocale(loc sim.Locale)            { s.locale = loc }
func (s *session) Running() bool                       { return s.runner != nil }
func (s *session) Lesson() *sim.Lesson                 { return s.tl.Lesson }
func (s *session) Frames() []sim.Frame                 { return s.runner.Frames() }
func (s *session) Cur() int                            { return s.cur }
func (s *session) StopPlay()                           { s.stopPlay() }
func (s *session) CloseRun()                           { s.closeRun() }
func (s *session) MoveTo(re int64, step int)           { s.moveTo(re, step) }
func (s *session) Addr() string                        { return s.c.addr }
func (s *session) Host() string                        { return s.c.host }
func (s *session) ListenPort() int                     { return s.c.listenPort }
func (s *session) Touch()                              { s.srv.table.Touch(s.slot) }
func (s *session) WriterWake() chan struct{}           { return s.c.classWake }
func (s *session) WriterDeliver() classserve.Deliverer { return s.c }
func (s *session) Follow(f *classserve.Follower)       { s.c.follower.Store(f) }
func (s *session) Unfollow(f *classserve.Follower)     { s.c.follower.CompareAndSwap(f, nil) }

// Open starts a run of what class state st shows, at its step; an error
// (a bad-link protocol error) when the server cannot open it.
func (s *session) Open(re int64, st classroom.State) error {
	tl, err := s.classTimeline(st)
	if err != nil {
		return perrOf(ErrCodeBadLink, err)
	}
	// The class's students re-run its presenter's script: a bound by
	// address charges the presenter (Hub.ScriptAddr).
	s.scriptAddr = s.srv.classes.ScriptAddr(st.Code)
	s.start(re, tl, st.Timeline, st.Step)
	return nil
}

// SendPrepared queues a prepared message as sendEncoded queues one.
func (s *session) SendPrepared(pm *websocket.PreparedMessage) bool {
	if s.dropped {
		return false
	}
	return s.queue(outgoing{prepared: pm})
}

// ShowsOther reports whether the session's run shows something else than
// class state st.
func (s *session) ShowsOther(st classroom.State) bool {
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

// Shown is what the session's run shows, as a class names it.
func (s *session) Shown() classroom.Shown {
	l := s.tl.Lesson
	sh := classroom.Shown{Total: len(l.Steps), Title: l.Title.In(s.locale)}
	if s.tl.Explore() {
		sh.Timeline, sh.Title = s.code, s.srv.timelineTitle(s.tl).In(s.locale)
	} else {
		sh.Lesson = l.ID
	}
	return sh
}
