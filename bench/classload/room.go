package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// joiners is how many students connect at once.
const joiners = 64

// room is the students of one class.
type room struct {
	mu       sync.Mutex
	students []*student
	frames   chan arrival
}

func newRoom(capacity int) *room {
	return &room{frames: make(chan arrival, 2*capacity+64)}
}

// each runs f for every student of list, joiners at a time, and returns the
// first error.
func each(list []*student, f func(*student) error) error {
	work := make(chan *student)
	var wg sync.WaitGroup
	var first atomic.Value
	for range joiners {
		wg.Go(func() {
			for s := range work {
				if err := f(s); err != nil {
					first.CompareAndSwap(nil, err)
				}
			}
		})
	}
	for _, s := range list {
		work <- s
	}
	close(work)
	wg.Wait()
	if err, ok := first.Load().(error); ok {
		return err
	}
	return nil
}

// join connects students from..to-1, student i to bases[i%len(bases)].
func (r *room) join(ctx context.Context, bases []string, code string, from, to int) error {
	var list []*student
	for i := from; i < to; i++ {
		list = append(list, &student{n: i, server: i % len(bases), closed: make(chan struct{})})
	}
	err := each(list, func(s *student) error {
		if err := s.join(ctx, bases[s.server], code); err != nil {
			return err
		}
		go s.read(r.frames, onStatus)
		return nil
	})
	r.mu.Lock()
	r.students = append(r.students, list...)
	r.mu.Unlock()
	return err
}

// live counts the students whose connection is open.
func (r *room) live() int {
	n := 0
	for _, s := range r.all() {
		select {
		case <-s.closed:
		default:
			n++
		}
	}
	return n
}

func (r *room) all() []*student {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*student(nil), r.students...)
}

// on returns the students of server i.
func (r *room) on(i int) []*student {
	var list []*student
	for _, s := range r.all() {
		if s.server == i {
			list = append(list, s)
		}
	}
	return list
}

func (r *room) drain() {
	for {
		select {
		case <-r.frames:
		default:
			return
		}
	}
}

// moves moves the class k times (a seek to the next step, back to 0 after
// the last) and returns, for each move, the time from sending it to the
// last live student's frame of the new step.
func (r *room) moves(ctx context.Context, p *presenter, k int) ([]time.Duration, error) {
	r.drain()
	want := r.live()
	cur := int(p.step.Load())
	var lat []time.Duration
	for m := range k {
		target := cur + 1
		if p.total > 0 && target >= p.total {
			target = 0
		}
		seen := make(map[int]bool, want)
		t0 := time.Now()
		if _, err := p.send(map[string]any{"type": "seek", "step": target}); err != nil {
			return lat, err
		}
		deadline := time.After(30 * time.Second)
		var last time.Duration
		for len(seen) < want {
			select {
			case a := <-r.frames:
				if a.step != target || a.at.Before(t0) || seen[a.student] {
					continue
				}
				seen[a.student] = true
				last = max(last, a.at.Sub(t0))
			case <-deadline:
				return lat, fmt.Errorf("move %d (to step %d): %d of %d students had its frame after 30 s", m, target, len(seen), want)
			case <-ctx.Done():
				return lat, ctx.Err()
			}
		}
		lat = append(lat, last)
		cur = target
		// Let the presenter's own reply arrive, and the machine settle, as a
		// presenter talks between steps.
		time.Sleep(20 * time.Millisecond)
	}
	return lat, nil
}

// onStatus notes a class-status that opens a question: the page answers
// once its own status shows the question.
//
// A class-bus error (the student's server could not publish the answer in
// time) is answered as the page's student would: the answer is sent again.
func onStatus(s *student, b []byte) {
	if bytes.Contains(b, []byte(`"type":"class-status"`)) {
		s.asked.Store(bytes.Contains(b, []byte(`"open":true`)))
	}
	if bytes.Contains(b, []byte(`"type":"error"`)) && bytes.Contains(b, []byte(`"class-bus"`)) {
		if a, ok := s.answer.Load().([]byte); ok {
			go func() {
				time.Sleep(200 * time.Millisecond)
				s.wmu.Lock()
				defer s.wmu.Unlock()
				s.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
				_ = s.conn.WriteMessage(websocket.TextMessage, a)
			}()
		}
	}
}

// classStatus is what the load generator reads of a class-status.
type classStatus struct {
	Type     string `json:"type"`
	Question *struct {
		Step    int  `json:"step"`
		Open    bool `json:"open"`
		Choices []struct {
			ID string `json:"id"`
		} `json:"choices"`
	} `json:"question"`
	Students int            `json:"students"`
	Answered int            `json:"answered"`
	Counts   map[string]int `json:"counts"`
}

// answer asks the room to predict the next step; every live student
// answers, choice by index round robin; it returns the counts the
// presenter's page was given once every answer is in, the counts sent, and
// the time from the first answer sent to the full count.
func (r *room) answer(ctx context.Context, p *presenter) (got, sent map[string]int, took time.Duration, err error) {
	// Step to a step whose next one has outcomes to predict: try from here.
	var q classStatus
	for try := 0; try < 12; try++ {
		id, err := p.send(map[string]any{"type": "class-ask"})
		if err != nil {
			return nil, nil, 0, err
		}
		b, err := p.await(ctx, func(h head, b []byte) bool {
			if h.Type == "error" && h.Re == id {
				return true
			}
			if h.Type != "class-status" {
				return false
			}
			var st classStatus
			return json.Unmarshal(b, &st) == nil && st.Question != nil && st.Question.Open
		}, 0)
		if err != nil {
			return nil, nil, 0, err
		}
		var h head
		_ = json.Unmarshal(b, &h)
		if h.Type == "error" { // nothing to predict here: one step on
			if _, err := p.send(map[string]any{"type": "step"}); err != nil {
				return nil, nil, 0, err
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		_ = json.Unmarshal(b, &q)
		break
	}
	if q.Question == nil || len(q.Question.Choices) == 0 {
		return nil, nil, 0, fmt.Errorf("no step of lesson to ask about")
	}
	students := r.all()
	sent = map[string]int{}
	var live []*student
	for _, s := range students {
		select {
		case <-s.closed:
		default:
			live = append(live, s)
			sent[q.Question.Choices[s.n%len(q.Question.Choices)].ID]++
		}
	}
	start := time.Now()
	if err := each(live, func(s *student) error {
		for deadline := time.Now().Add(30 * time.Second); !s.asked.Load(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				return fmt.Errorf("student %d: no open question within 30 s", s.n)
			}
		}
		msg, _ := json.Marshal(map[string]any{"type": "class-answer", "step": q.Question.Step, "choice": q.Question.Choices[s.n%len(q.Question.Choices)].ID})
		s.answer.Store(msg)
		s.wmu.Lock()
		defer s.wmu.Unlock()
		s.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		return s.conn.WriteMessage(websocket.TextMessage, msg)
	}); err != nil {
		return nil, nil, 0, err
	}
	b, err := p.await(ctx, func(h head, b []byte) bool {
		var st classStatus
		return h.Type == "class-status" && json.Unmarshal(b, &st) == nil && st.Answered >= len(live)
	}, 0)
	took = time.Since(start)
	if err != nil {
		return nil, sent, took, fmt.Errorf("waiting for %d answers: %w", len(live), err)
	}
	var st classStatus
	_ = json.Unmarshal(b, &st)
	// A moment more: a count past the answers sent would show here.
	time.Sleep(500 * time.Millisecond)
	got = st.Counts
	if _, err := p.ask(ctx, map[string]any{"type": "class-reveal"}, "frame"); err != nil {
		return got, sent, took, err
	}
	return got, sent, took, nil
}

// rejoin waits for the victims' connections to end, then connects each to
// bases[n%len(bases)] with its student id, as the student page does with
// its list of servers; it returns how many rejoined, how many landed on the
// presenter's current step, and how long it took from the kill.
func (r *room) rejoin(ctx context.Context, bases []string, p *presenter, victims []*student) (moved, landed int, took time.Duration, err error) {
	start := time.Now()
	code := p.code
	want := int(p.step.Load())
	var nMoved, nLanded atomic.Int64
	err = each(victims, func(s *student) error {
		select {
		case <-s.closed:
		case <-time.After(30 * time.Second):
			return fmt.Errorf("student %d: its connection did not end within 30 s of the kill", s.n)
		}
		s.server = s.n % len(bases)
		s.closed = make(chan struct{})
		var err error
		for attempt := range 5 {
			if err = s.join(ctx, bases[s.server], code); err == nil {
				break
			}
			time.Sleep(time.Duration(100<<attempt) * time.Millisecond)
		}
		if err != nil {
			close(s.closed)
			return err
		}
		nMoved.Add(1)
		if int(s.step.Load()) == want {
			nLanded.Add(1)
		}
		go s.read(r.frames, onStatus)
		return nil
	})
	return int(nMoved.Load()), int(nLanded.Load()), time.Since(start), err
}

func (r *room) close() {
	for _, s := range r.all() {
		if s.conn != nil {
			s.conn.Close()
		}
	}
}
