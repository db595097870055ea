package web

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"lockstep/classbus"
	"lockstep/classroom"
)

// heapAfterGC is the live heap, in bytes, after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestClassStartsBounded (issue 37, item 3): 600 class starts from one
// address, each from a page that then closes, add under 64 MB: past
// Config.MaxClassesPerAddr the starts are refused (class-limit), naming
// the bounds. Not parallel: it measures the heap.
func TestClassStartsBounded(t *testing.T) {
	srv, hs := newTestHTTP(t, Config{})
	before := heapAfterGC()
	refused := 0
	for i := range 600 {
		p, _ := loadedSession(t, hs, ClientMessage{Lesson: classLesson, Step: intp(1)})
		p.send(ClientMessage{Type: MsgClassStart, ID: 1})
		m := readAs[classMsg](p, time.Now().Add(30*time.Second), "class-start")
		switch {
		case m.Type == MsgClassPresenter && i < DefaultMaxClassesPerAddr:
		case m.Type == MsgError && m.Code == ErrCodeClassLimit && i >= DefaultMaxClassesPerAddr:
			refused++
		default:
			t.Fatalf("start %d: %+v", i+1, m)
		}
		p.conn.Close()
	}
	waitFor(t, "the pages to close", func() bool { return srv.Sessions() == 0 })
	grew := int64(heapAfterGC()) - int64(before)
	t.Logf("600 class starts: %d refused, heap %+.1f MB", refused, float64(grew)/(1<<20))
	if grew >= 64<<20 {
		t.Fatalf("600 class starts grew the heap by %.1f MB, want under 64", float64(grew)/(1<<20))
	}
	if n := srv.classes.Counted(); n != DefaultMaxClassesPerAddr {
		t.Errorf("%d classes counted, want %d", n, DefaultMaxClassesPerAddr)
	}
}

// TestClassDroppedWithoutPresenter (issue 37, item 3): a class whose
// presenter's page has been gone for Config.ClassGrace ends; its students
// are told, and every part of it goes: the owner, the student feed, the
// in-process bus's state and channel; its address may start another.
func TestClassDroppedWithoutPresenter(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{Limits: Limits{ClassGrace: 2 * time.Second, MaxClassesPerAddr: 1}})
	p, pm := presenterAt(t, hs, 1)
	s := seatedStudent(t, hs, pm.Code, "")
	// A reload within the grace keeps the class.
	p.conn.Close()
	p2, _ := loadedSession(t, hs, ClientMessage{Lesson: classLesson, Step: intp(1)})
	p2.send(ClientMessage{Type: MsgClassResume, ID: 2, Code: pm.Code, Key: pm.Key})
	p2.await(MsgClassPresenter, nil)
	// Past the grace (2 s: a reload under -race on a loaded CI took longer
	// than a 300 ms one).
	time.Sleep(2100 * time.Millisecond)
	if n := srv.classes.Counted(); n != 1 {
		t.Fatalf("after a resume within the grace: %d classes, want 1", n)
	}
	p2.conn.Close()
	s.await(MsgClassStatus, func(m classMsg) bool { return m.Ended })
	bus := srv.classBus.(*classbus.Memory)
	waitFor(t, "the class's state to go", func() bool {
		left := srv.classes.Owned() + srv.classes.Feeds()
		states, channels := bus.Kept()
		return left == 0 && states == 0 && channels == 0 && srv.classes.Counted() == 0
	})
	// The address may start a class again.
	p3, _ := loadedSession(t, hs, ClientMessage{Lesson: classLesson, Step: intp(1)})
	p3.send(ClientMessage{Type: MsgClassStart, ID: 3})
	p3.await(MsgClassPresenter, nil)
}

// TestClassOneStudentOneVote (issue 37, item 5): class-join again and
// again with fresh student ids on one connection stays one student with
// one answer; a connection that answers and leaves takes its answer along.
func TestClassOneStudentOneVote(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	p, pm := presenterAt(t, hs, 3)
	p.send(ClientMessage{Type: MsgClassAsk})
	q := p.await(MsgClassStatus, func(m classMsg) bool { return m.Question != nil && m.Question.Open })
	choice := q.Question.Choices[0].ID
	s, first := student(t, hs, pm.Code, "")
	for i := range 5 {
		fresh, _ := classroom.NewStudentID(nil)
		s.send(ClientMessage{Type: MsgClassJoin, ID: int64(10 + i), Code: pm.Code, Student: fresh})
		if j := s.await(MsgClassJoined, nil); j.Student != first.Student {
			t.Fatalf("join %d with a fresh id: student %s, want the connection's %s", i+2, j.Student, first.Student)
		}
		s.send(ClientMessage{Type: MsgClassAnswer, ID: int64(20 + i), Step: intp(4), Choice: choice})
		s.await(MsgClassAnswered, nil)
	}
	p.await(MsgClassStatus, func(m classMsg) bool { return m.Answered == 1 && m.Students == 1 })
	// Another connection answers, then leaves: its vote goes with it.
	o, _ := student(t, hs, pm.Code, "")
	o.send(ClientMessage{Type: MsgClassAnswer, ID: 30, Step: intp(4), Choice: choice})
	o.await(MsgClassAnswered, nil)
	p.await(MsgClassStatus, func(m classMsg) bool { return m.Answered == 2 && m.Students == 2 })
	o.conn.Close()
	st := p.await(MsgClassStatus, func(m classMsg) bool { return m.Students == 1 })
	if st.Answered != 1 {
		p.await(MsgClassStatus, func(m classMsg) bool { return m.Answered == 1 && m.Students == 1 })
	}
}

// TestClassPageBusDownAndGlobalJoins (issue 37, item 8): a class page
// whose bus fails answers 503 with a page in the visitor's language, not
// the connection's error; and failed joins are bounded across addresses
// too (Config.ClassJoinGlobalRate), so rotating addresses does not speed
// up guessing codes.
func TestClassPageBusDownAndGlobalJoins(t *testing.T) {
	t.Parallel()
	bus := classbus.NewMemory(nil)
	_, down := newTestHTTP(t, Config{ClassBus: bus})
	_ = bus.Close()
	body := getPage(t, down.URL, "/class/ABCDEF?lang=zh-TW", http.StatusServiceUnavailable)
	if strings.Contains(body, "classbus") || !strings.Contains(body, "目前無法連線到課堂") {
		t.Fatalf("503 page:\n%s", body)
	}

	_, hs := newTestHTTP(t, Config{ClassJoinRate: 100, ClassJoinBurst: 100,
		Limits: Limits{TrustedProxies: loopbackProxies, ClassJoinGlobalRate: 0.001, ClassJoinGlobalBurst: 3}})
	get := func(addr string) int {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+"/class/ABCDEF", nil)
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 3 {
		if code := get(fmt.Sprintf("198.51.100.%d", i+1)); code != http.StatusNotFound {
			t.Fatalf("guess %d: %d, want 404", i+1, code)
		}
	}
	if code := get("198.51.100.99"); code != http.StatusTooManyRequests {
		t.Fatalf("a guess from a fresh address past the global bound: %d, want 429", code)
	}
}

// TestClassRehearsal (issue 38, a fresh review): a teacher who rehearses,
// starting and ending classes from one page, never meets the bound of
// classes per address: an ended class gives its place back at once (no
// wait for its goroutine), and a start from a page that presents a class
// is that class again, counted once. Under a bound of one class an
// address, five starts and ends in a row all start.
func TestClassRehearsal(t *testing.T) {
	t.Parallel()
	// A class's goroutine ends after its bus subscription closes, which
	// here waits until the test's end: the place must come back without it.
	gate := make(chan struct{})
	bus := slowCloseBus{Memory: classbus.NewMemory(time.Now), gate: gate}
	srv, hs := newTestHTTP(t, Config{ClassBus: bus, Limits: Limits{MaxClassesPerAddr: 1}})
	t.Cleanup(func() { close(gate) })
	p, _ := loadedSession(t, hs, ClientMessage{Lesson: classLesson, Step: intp(1)})
	codes := map[string]bool{}
	for i := range 5 {
		p.send(ClientMessage{Type: MsgClassStart, ID: int64(10*i + 1)})
		first := p.await(MsgClassPresenter, nil)
		p.send(ClientMessage{Type: MsgClassStart, ID: int64(10*i + 2)})
		again := p.await(MsgClassPresenter, nil)
		if again.Code != first.Code || again.Key != "" {
			t.Fatalf("start %d: a second start from the presenting page gave class %s (key %q), want %s again", i+1, again.Code, again.Key, first.Code)
		}
		if n := srv.classes.Counted(); n != 1 {
			t.Fatalf("start %d: %d classes counted, want 1", i+1, n)
		}
		codes[first.Code] = true
		p.send(ClientMessage{Type: MsgClassEnd, ID: int64(10*i + 3)})
		p.await(MsgClassStatus, func(m classMsg) bool { return m.Ended })
		if n := srv.classes.Counted(); n != 0 {
			t.Fatalf("end %d: %d classes still counted right after the end, want 0", i+1, n)
		}
	}
	if len(codes) != 5 {
		t.Errorf("%d classes, want 5", len(codes))
	}
}

// slowCloseBus is an in-process bus whose subscriptions' Close waits for
// gate to close.
type slowCloseBus struct {
	*classbus.Memory
	gate chan struct{}
}

func (b slowCloseBus) Subscribe(ctx context.Context, code string) (classbus.Subscription, error) {
	sub, err := b.Memory.Subscribe(ctx, code)
	if err != nil {
		return nil, err
	}
	return slowCloseSub{Subscription: sub, gate: b.gate}, nil
}

type slowCloseSub struct {
	classbus.Subscription
	gate chan struct{}
}

func (s slowCloseSub) Close() error {
	<-s.gate
	return s.Subscription.Close()
}
