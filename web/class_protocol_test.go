package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"lockstep/classroom"
	"lockstep/classserve"
	"lockstep/sim"

	"golang.org/x/net/html"
)

// classMsg is a class message of the server, decoded loosely.
type classMsg struct {
	Type    string                        `json:"type"`
	Re      int64                         `json:"re"`
	Code    string                        `json:"code"`
	Message string                        `json:"message"`
	Key     string                        `json:"key"`
	Join    []string                      `json:"join"`
	Panel   string                        `json:"panel"`
	Status  classserve.ClassStatusMessage `json:"status"`
	Student string                        `json:"student"`
	Step    int                           `json:"step"`
	Choice  string                        `json:"choice"`
	CSV     string                        `json:"csv"`
	Lesson  string                        `json:"lesson"`
	Lang    string                        `json:"lang"`
	Chrome  map[string]string             `json:"chrome"`
	Frame   struct {
		Outcome string `json:"outcome"`
	} `json:"frame"`
	// A class-status's own fields.
	Role      string                    `json:"role"`
	Question  *classserve.ClassQuestion `json:"question"`
	Ended     bool                      `json:"ended"`
	Students  int                       `json:"students"`
	Counts    map[string]int            `json:"counts"`
	Answered  int                       `json:"answered"`
	Answer    string                    `json:"answer"`
	Following bool                      `json:"following"`
	EndReason string                    `json:"end_reason"`
}

// await reads c's messages until one of type typ for which ok holds (nil:
// any), skipping others (a presenter's count updates come at any time).
func (c *wsClient) await(typ string, ok func(classMsg) bool) classMsg {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := readAs[classMsg](c, deadline, "waiting for "+typ)
		if m.Type == MsgError && typ != MsgError {
			c.t.Fatalf("waiting for %s: error %s: %s", typ, m.Code, m.Message)
		}
		if m.Type == typ && (ok == nil || ok(m)) {
			return m
		}
	}
}

// errorOf sends msg and returns the error that answers it.
func (c *wsClient) errorOf(msg any) classMsg {
	c.t.Helper()
	c.send(msg)
	return c.await(MsgError, nil)
}

// classLesson has something to predict at step 4 (an acquire).
const classLesson = "nested-reentry"

// presenterAt starts a class from classLesson at step; it returns the
// presenter's connection and the class-presenter message.
func presenterAt(t *testing.T, hs *httptest.Server, step int) (*wsClient, classMsg) {
	t.Helper()
	p, _ := loadedSession(t, hs, ClientMessage{Lesson: classLesson, Step: intp(step)})
	p.send(ClientMessage{Type: classserve.MsgClassStart, ID: 1})
	return p, p.await(classserve.MsgClassPresenter, nil)
}

// joinError asks a new session to join class code and returns the error
// that answers it.
func joinError(t *testing.T, hs *httptest.Server, code string) classMsg {
	t.Helper()
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	return c.errorOf(ClientMessage{Type: classserve.MsgClassJoin, Code: code})
}

// student joins class code in lang; it returns the connection after the
// joined message, the class's frame and status.
func student(t *testing.T, hs *httptest.Server, code, lang string) (*wsClient, classMsg) {
	t.Helper()
	s := dial(t, hs, nil)
	s.expect(MsgHello)
	if lang != "" {
		s.send(ClientMessage{Type: MsgLang, Lang: lang})
		s.expect(MsgState)
	}
	s.send(ClientMessage{Type: classserve.MsgClassJoin, ID: 2, Code: strings.ToLower(code)})
	j := s.await(classserve.MsgClassJoined, nil)
	if j.Code != code || !classroom.ValidID(j.Student) {
		t.Fatalf("joined %+v", j)
	}
	return s, j
}

// seatedStudent is a student of class code in lang (student) who has
// also had the class's status: it returns the connection.
func seatedStudent(t *testing.T, hs *httptest.Server, code, lang string) *wsClient {
	t.Helper()
	s, _ := student(t, hs, code, lang)
	s.await(classserve.MsgClassStatus, nil)
	return s
}

func TestClassPresenterAndStudents(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	p, pm := presenterAt(t, hs, 1)
	if !classroom.ValidID(pm.Key) || len(pm.Join) != 1 || !strings.HasSuffix(pm.Join[0], "/class/"+pm.Code) {
		t.Fatalf("class-presenter %+v", pm)
	}
	if !strings.Contains(pm.Panel, "<svg") || strings.Contains(pm.Panel, pm.Key) {
		t.Fatal("the panel has no QR code, or shows the key")
	}
	a, _ := student(t, hs, pm.Code, "")
	if f := a.await(MsgFrame, nil); f.Step != 1 || f.Lesson != classLesson || f.Chrome == nil {
		t.Fatalf("a student's first frame: step %d of %s", f.Step, f.Lesson)
	}
	if st := a.await(classserve.MsgClassStatus, nil); st.Role != classserve.RoleStudent || st.Step != 1 || !st.Following {
		t.Fatalf("student status %+v", st)
	}
	b := seatedStudent(t, hs, pm.Code, "zh-CN")
	p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Students == 2 })

	// The presenter steps twice: each student follows, frame then status.
	for want := 2; want <= 3; want++ {
		p.send(ClientMessage{Type: MsgStep})
		for _, s := range []*wsClient{a, b} {
			if f := s.await(MsgFrame, nil); f.Step != want {
				t.Fatalf("student at %d, want %d", f.Step, want)
			}
			s.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Step == want })
		}
	}
	// Ask: about step 4, predict mode's choices, in each student's language.
	p.send(ClientMessage{Type: classserve.MsgClassAsk})
	q := p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil && m.Question.Open })
	if q.Question.Step != 4 || len(q.Question.Choices) < 2 || q.Question.Correct != "" {
		t.Fatalf("question %+v", q.Question)
	}
	sa := a.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil })
	sb := b.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil })
	if sa.Question.Correct != "" || sa.Question.Why != "" || sb.Question.Choices[0].Label == sa.Question.Choices[0].Label {
		t.Fatalf("students' questions (no answer, nor why, before the reveal): en %+v, zh-CN %+v", sa.Question, sb.Question)
	}
	first, second := q.Question.Choices[0].ID, q.Question.Choices[1].ID
	a.send(ClientMessage{Type: classserve.MsgClassAnswer, ID: 5, Step: intp(4), Choice: second})
	a.await(classserve.MsgClassAnswered, nil)
	a.send(ClientMessage{Type: classserve.MsgClassAnswer, ID: 6, Step: intp(4), Choice: first}) // the last answer counts
	a.await(classserve.MsgClassAnswered, nil)
	b.send(ClientMessage{Type: classserve.MsgClassAnswer, ID: 7, Step: intp(4), Choice: first})
	b.await(classserve.MsgClassAnswered, nil)
	tally := p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Answered == 2 && m.Counts[first] == 2 })
	if tally.Counts[second] != 0 {
		t.Fatalf("tally %v", tally.Counts)
	}
	// Reveal: the class moves to step 4; its outcome is the right answer.
	p.send(ClientMessage{Type: classserve.MsgClassReveal})
	f := p.await(MsgFrame, nil)
	r := p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil && m.Question.Revealed })
	if f.Step != 4 || r.Question.Correct != f.Frame.Outcome || r.Step != 4 {
		t.Fatalf("reveal: frame %d (%s), status %+v", f.Step, f.Frame.Outcome, r.Question)
	}
	// Each student is told why the step came to it, in their language
	// (issue 38, item 12).
	l := lessonByID(t, testLessons(t), classLesson)
	for i, s := range []*wsClient{a, b} {
		st := s.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil && m.Question.Revealed })
		if st.Question.Correct != f.Frame.Outcome || st.Answer != first || st.Step != 4 {
			t.Fatalf("student's reveal %+v, answer %q", st.Question, st.Answer)
		}
		loc := []sim.Locale{sim.English, sim.SimplifiedChinese}[i]
		if want := wantWhy(t, l, 4, loc, f.Frame.Outcome); st.Question.Why != want {
			t.Errorf("%s student's reveal says why %q, want %q", loc, st.Question.Why, want)
		}
	}
	p.send(ClientMessage{Type: classserve.MsgClassCSV, ID: 9})
	csv := p.await(classserve.MsgClassCSV, nil)
	lines := strings.Split(strings.TrimSpace(csv.CSV), "\n")
	right := "0"
	if first == f.Frame.Outcome {
		right = "2"
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "step,action,correct,answered,right") || !strings.HasPrefix(lines[1], "4,acquire ") || !strings.Contains(lines[1], ","+f.Frame.Outcome+",2,"+right+",") {
		t.Fatalf("csv %q", csv.CSV)
	}
	// The end: students are told; the page is gone.
	p.send(ClientMessage{Type: classserve.MsgClassEnd})
	p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Ended })
	a.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Ended })
	resp, err := http.Get(hs.URL + "/class/" + pm.Code)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("an ended class's page: %d, want 410", resp.StatusCode)
	}
	if e := joinError(t, hs, pm.Code); e.Code != classserve.ErrCodeClassEnded {
		t.Fatalf("join of an ended class: %+v", e)
	}
}

func TestClassStudentsCannotMoveIt(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	p, pm := presenterAt(t, hs, 2)
	s := seatedStudent(t, hs, pm.Code, "")
	for _, m := range []ClientMessage{
		{Type: MsgStep}, {Type: MsgSeek, Step: intp(5)}, {Type: MsgLoad, Lesson: "stale-owner"}, {Type: MsgPlay},
	} {
		if e := s.errorOf(m); e.Code != classserve.ErrCodeClassFollowing {
			t.Fatalf("a student's %s: %+v", m.Type, e)
		}
	}
	for _, typ := range []string{classserve.MsgClassAsk, classserve.MsgClassReveal, classserve.MsgClassEnd, classserve.MsgClassCSV} {
		if e := s.errorOf(ClientMessage{Type: typ}); e.Code != classserve.ErrCodeClassNotPresenter {
			t.Fatalf("a student's %s: %+v", typ, e)
		}
	}
	if e := s.errorOf(ClientMessage{Type: classserve.MsgClassResume, Code: pm.Code, Key: strings.Repeat("0", 32)}); e.Code != classserve.ErrCodeClassBadKey {
		t.Fatalf("resume with a wrong key: %+v", e)
	}
	if e := s.errorOf(ClientMessage{Type: classserve.MsgClassAnswer, Step: intp(3), Choice: "GRANTED"}); e.Code != classserve.ErrCodeClassNoQuestion {
		t.Fatalf("an answer with no question: %+v", e)
	}
	p.send(ClientMessage{Type: classserve.MsgClassAsk}) // about step 3? nested-reentry's 3 has one outcome
	if e := p.await(MsgError, nil); e.Code != classserve.ErrCodeClassNoQuestion {
		t.Fatalf("asking about a step with one outcome: %+v", e)
	}
	p.send(ClientMessage{Type: MsgStep})
	s.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Step == 3 })
	p.send(ClientMessage{Type: classserve.MsgClassAsk})
	s.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil })
	for _, m := range []ClientMessage{
		{Type: classserve.MsgClassAnswer, Step: intp(5), Choice: "GRANTED"},
		{Type: classserve.MsgClassAnswer, Step: intp(4), Choice: "NOT-A-CHOICE"},
	} {
		if e := s.errorOf(m); e.Code != classserve.ErrCodeClassBadAnswer {
			t.Fatalf("answer %+v: %+v", m, e)
		}
	}
	// Explore on my own: the student steps; the class stays where it is.
	s.send(ClientMessage{Type: classserve.MsgClassFollow, Follow: boolp(false)})
	s.await(classserve.MsgClassStatus, func(m classMsg) bool { return !m.Following })
	s.send(ClientMessage{Type: MsgStep})
	s.send(ClientMessage{Type: MsgStep})
	s.await(MsgFrame, func(m classMsg) bool { return m.Step == 5 })
	p.send(ClientMessage{Type: classserve.MsgClassCSV, ID: 3})
	p.await(classserve.MsgClassCSV, nil)
	if st := classState(t, srv, pm.Code); st.Step != 3 || st.Question == nil || !st.Question.Open {
		t.Fatalf("the class after a student explored: step %d, question %+v", st.Step, st.Question)
	}
	// Back to class: the student is at the presenter's step again.
	s.send(ClientMessage{Type: classserve.MsgClassFollow, Follow: boolp(true)})
	s.await(MsgFrame, func(m classMsg) bool { return m.Step == 3 })
}

func TestClassWrongCodeKeyAndMalformed(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{ClassJoinBurst: 4, ClassJoinRate: 0.001})
	_, pm := presenterAt(t, hs, 0)
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	for _, tc := range []struct {
		msg  string
		code string
	}{
		{`{"type":"class-join","code":"ABC"}`, ErrCodeBadField},
		{`{"type":"class-join","code":"ABCDE0"}`, ErrCodeBadField},
		{`{"type":"class-join","code":7}`, ErrCodeBadJSON},
		{`{"type":"class-answer","step":1}`, ErrCodeBadField},
		{`{"type":"class-answer","step":1.5,"choice":"GRANTED"}`, ErrCodeBadField},
		{`{"type":"class-answer","step":1,"choice":"` + strings.Repeat("X", 40) + `"}`, ErrCodeBadField},
		{`{"type":"class-follow"}`, ErrCodeBadField},
		{`{"type":"class-join","code":"` + pm.Code + `","pad":"` + strings.Repeat("x", maxClassMessage) + `"}`, ErrCodeBadField},
		{`{"type":"class-resume","code":"` + pm.Code + `","key":"short"}`, classserve.ErrCodeClassBadKey},
		{`{"type":"class-resume","code":"` + pm.Code + `","key":"` + strings.Repeat("a", 32) + `"}`, classserve.ErrCodeClassBadKey},
		{`{"type":"class-ask"}`, classserve.ErrCodeClassNotPresenter},
		{`{"type":"class-answer","step":1,"choice":"GRANTED"}`, classserve.ErrCodeClassUnknown},
		{`{"type":"class-start"}`, ErrCodeNoLesson},
		// A wrong key (above, once well-formed) and unknown codes take the
		// address's four tokens; then it waits, even for a live code.
		{`{"type":"class-join","code":"ZZZZZZ"}`, classserve.ErrCodeClassUnknown},
		{`{"type":"class-join","code":"ZZZZZY"}`, classserve.ErrCodeClassUnknown},
		{`{"type":"class-join","code":"ZZZZZX"}`, classserve.ErrCodeClassUnknown},
		{`{"type":"class-join","code":"` + pm.Code + `"}`, classserve.ErrCodeClassJoins},
	} {
		if e := c.errorOf(tc.msg); e.Code != tc.code || e.Message == "" {
			t.Errorf("%.80s: %s (%s), want %s", tc.msg, e.Code, e.Message, tc.code)
		}
	}
	// The page of a wrong code, in the page's language; the address is
	// over its bound by now, so another server answers it.
	_, hs2 := newTestHTTP(t, Config{})
	resp, err := http.Get(hs2.URL + "/class/ZZZZZZ?lang=zh-CN")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	page := parseDOM(t, string(body))
	h1 := page.text(t, "title", tag("h1"))
	if resp.StatusCode != http.StatusNotFound || h1 != tr("zh-CN").cl.ClassUnknownTitle {
		t.Fatalf("wrong code page: %d %q", resp.StatusCode, h1)
	}
	// ... and a way back to the join form, in the page's language (review
	// of issue 38, item 7: the page had none).
	again := page.one(t, "the link back to /join", func(n *html.Node) bool {
		href, _ := attr(n, "href")
		return n.Data == "a" && strings.HasPrefix(href, "/join?") && !strings.Contains(href, "code=")
	})
	if href, _ := attr(again, "href"); href != "/join?lang=zh-CN" || textOf(again) != tr("zh-CN").cl.ClassJoinAgain {
		t.Errorf("the wrong code page links %q, saying %q; want /join?lang=zh-CN, %q", href, textOf(again), tr("zh-CN").cl.ClassJoinAgain)
	}
}

func TestClassResumeWithTheKey(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	p, pm := presenterAt(t, hs, 1)
	s := seatedStudent(t, hs, pm.Code, "")
	p.conn.Close() // the presenter's page reloads
	p2, _ := loadedSession(t, hs, ClientMessage{Lesson: classLesson, Step: intp(6)})
	p2.send(ClientMessage{Type: classserve.MsgClassResume, Code: pm.Code, Key: pm.Key})
	r := p2.await(classserve.MsgClassPresenter, nil)
	if r.Key != "" || r.Status.Step != 6 {
		t.Fatalf("resume: key %q, step %d", r.Key, r.Status.Step)
	}
	if f := s.await(MsgFrame, nil); f.Step != 6 {
		t.Fatalf("the student after the presenter resumed at 6: %d", f.Step)
	}
}

func boolp(b bool) *bool { return &b }

// classState is class code's state as srv's bus keeps it.
func classState(t *testing.T, srv *Server, code string) classroom.State {
	t.Helper()
	st, err := srv.classes.State(srv.ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestClassEndsWhenIdle(t *testing.T) {
	t.Parallel()
	// The idle time runs on the wall clock from the class's start: on a
	// loaded machine a student's join can come after it (the class has
	// then ended, as it should). Such a try starts another class, the
	// student's connection made before it so that only the join is left.
	_, hs := newTestHTTP(t, Config{ClassIdle: 2 * time.Second})
	for try := 1; ; try++ {
		s := dial(t, hs, nil)
		s.expect(MsgHello)
		_, pm := presenterAt(t, hs, 1)
		s.send(ClientMessage{Type: classserve.MsgClassJoin, ID: 2, Code: strings.ToLower(pm.Code)})
		var j classMsg
		for j.Type != classserve.MsgClassJoined && j.Type != MsgError {
			j = readAs[classMsg](s, time.Now().Add(30*time.Second), "waiting for class-joined")
		}
		if j.Type == MsgError {
			if j.Code != classserve.ErrCodeClassEnded || try == 5 {
				t.Fatalf("try %d: joining a class just started: %+v", try, j)
			}
			t.Logf("try %d: the class went idle before the join came (a loaded machine)", try)
			continue
		}
		st := s.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Ended })
		if st.EndReason != classroom.EndIdle {
			t.Fatalf("end %+v", st)
		}
		if e := joinError(t, hs, pm.Code); e.Code != classserve.ErrCodeClassEnded {
			t.Fatalf("joining an idle-ended class: %+v", e)
		}
		return
	}
}

// TestClassFeedResubscribesAfterLag: a feed the bus drops (ErrLagged)
// subscribes again and reloads the state; its students keep following.
func TestClassFeedResubscribesAfterLag(t *testing.T) {
	t.Parallel()
	var log logRecorder
	srv, hs := newTestHTTP(t, Config{Logf: log.Logf})
	p, pm := presenterAt(t, hs, 1)
	s := seatedStudent(t, hs, pm.Code, "")
	// Stall the feed's reader at the first message, and publish more than
	// a subscription's buffer (4,096 in classbus).
	release, latest, ok := srv.classes.StallFeed(pm.Code)
	if !ok {
		t.Fatal("no feed of the class")
	}
	same := classroom.StateMessage(classroom.KindStep, latest).Encode()
	for range 5000 {
		if err := srv.classBus.Publish(srv.ctx, pm.Code, same); err != nil {
			release()
			t.Fatal(err)
		}
	}
	release()
	p.send(ClientMessage{Type: MsgStep})
	if f := s.await(MsgFrame, nil); f.Step != 2 {
		t.Fatalf("after the lag the student is at %d, want 2", f.Step)
	}
	lagged := slices.ContainsFunc(log.Lines(), func(l string) bool {
		return strings.Contains(l, "subscriber fell behind") && strings.Contains(l, "subscribing again")
	})
	if !lagged {
		t.Fatalf("the feed was not dropped for lagging: %q", log.Lines())
	}
}
