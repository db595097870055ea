package web

import (
	"testing"

	"lockstep/classserve"
)

// TestClassTwoPresenterTabs: two pages present one class on one server
// (the presenter opened a second tab with the key): each gets the student
// count, the live tally and the other's moves, and either moves the class.
func TestClassTwoPresenterTabs(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	p1, pm := presenterAt(t, hs, 3)
	p2, _ := loadedSession(t, hs, ClientMessage{Lesson: classLesson, Step: intp(3)})
	p2.send(ClientMessage{Type: classserve.MsgClassResume, ID: 1, Code: pm.Code, Key: pm.Key})
	if r := p2.await(classserve.MsgClassPresenter, nil); r.Code != pm.Code || r.Key != "" {
		t.Fatalf("the second tab's class-presenter: code %q, key %q", r.Code, r.Key)
	}
	presenters := []*wsClient{p1, p2}
	a := seatedStudent(t, hs, pm.Code, "")
	b := seatedStudent(t, hs, pm.Code, "zh-TW")
	for i, p := range presenters {
		if st := p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Students == 2 }); st.Role != classserve.RolePresenter {
			t.Fatalf("presenter %d's status %+v", i+1, st)
		}
	}

	// The first tab asks: the second tab is told of the question too.
	p1.send(ClientMessage{Type: classserve.MsgClassAsk})
	var q classMsg
	for _, p := range presenters {
		q = p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil && m.Question.Open })
	}
	if q.Question.Step != 4 || len(q.Question.Choices) < 2 {
		t.Fatalf("question %+v", q.Question)
	}
	first, second := q.Question.Choices[0].ID, q.Question.Choices[1].ID
	a.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil })
	b.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil })
	a.send(ClientMessage{Type: classserve.MsgClassAnswer, ID: 5, Step: intp(4), Choice: first})
	a.await(classserve.MsgClassAnswered, nil)
	b.send(ClientMessage{Type: classserve.MsgClassAnswer, ID: 6, Step: intp(4), Choice: second})
	b.await(classserve.MsgClassAnswered, nil)
	for i, p := range presenters {
		tally := p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Answered == 2 })
		if tally.Counts[first] != 1 || tally.Counts[second] != 1 {
			t.Fatalf("presenter %d's tally %v", i+1, tally.Counts)
		}
	}

	// The second tab reveals: the first is told, and so are the students.
	p2.send(ClientMessage{Type: classserve.MsgClassReveal})
	f := p2.await(MsgFrame, nil)
	for i, p := range presenters {
		r := p.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil && m.Question.Revealed })
		if r.Step != 4 || r.Question.Correct != f.Frame.Outcome {
			t.Fatalf("presenter %d's reveal: step %d, %+v; frame %d (%s)", i+1, r.Step, r.Question, f.Step, f.Frame.Outcome)
		}
	}
	for _, s := range []*wsClient{a, b} {
		s.await(classserve.MsgClassStatus, func(m classMsg) bool { return m.Question != nil && m.Question.Revealed })
	}
}
