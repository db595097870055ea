package classroom

import (
	"errors"
	"time"
)

// Errors of a Class's methods.
var (
	ErrEnded      = errors.New("classroom: the class has ended")
	ErrNoQuestion = errors.New("classroom: no question is open")
	ErrBadAnswer  = errors.New("classroom: not an answer to the open question")
	ErrNoChoices  = errors.New("classroom: nothing to predict at that step")
)

// Class is a class as its owner (the presenter's server) keeps it: its
// State plus what only the owner knows, the answers to the open question
// (one per student id, the last before the reveal) and the students
// connected. It is not safe for concurrent use; its owner serialises calls.
type Class struct {
	st       State
	answers  map[string]string // student id → choice, for the open question
	students map[string]int    // student id → connections
	idle     time.Duration
	active   time.Time // last activity
}

// New returns a class of code showing shown at step, owned by server owner,
// whose presenter key hashes to keyHash (KeyHash); it ends after idle
// without activity.
func New(code, keyHash, owner string, shown Shown, step int, idle time.Duration, now time.Time) *Class {
	c := &Class{
		st:       State{V: StateVersion, Code: code, Owner: owner, KeyHash: keyHash, Shown: shown, Step: step},
		answers:  map[string]string{},
		students: map[string]int{},
		idle:     idle,
	}
	c.changed(now)
	return c
}

// Resume returns the class of st, taken over by server owner (a presenter
// who resumed on another server): the answers to an open question and the
// students counted elsewhere start again from none.
func Resume(st State, owner string, idle time.Duration, now time.Time) *Class {
	st = st.clone()
	st.Owner = owner
	c := &Class{st: st, answers: map[string]string{}, students: map[string]int{}, idle: idle}
	c.changed(now)
	return c
}

// State returns a copy of the class's state.
func (c *Class) State() State { return c.st.clone() }

// Code is the class's code.
func (c *Class) Code() string { return c.st.Code }

// changed marks a change students must see: a new Seq, now as its time.
func (c *Class) changed(now time.Time) {
	c.st.Seq++
	c.st.UpdatedMS = now.UnixMilli()
	c.active = now
}

// Touch records activity that students need not see (an answer, a join).
func (c *Class) Touch(now time.Time) { c.active = now }

// Move shows shown at step. It reports whether that changed what the class
// shows. An open question is dropped unscored (the presenter went
// elsewhere); to reveal it, call Reveal first.
func (c *Class) Move(shown Shown, step int, now time.Time) (bool, error) {
	if c.st.Ended {
		return false, ErrEnded
	}
	if shown == c.st.Shown && step == c.st.Step {
		c.active = now
		return false, nil
	}
	if q := c.st.Question; q != nil && q.Open {
		c.st.Question = nil
		clear(c.answers)
	}
	c.st.Shown, c.st.Step = shown, step
	c.changed(now)
	return true, nil
}

// Ask opens a question: which of choices step step comes to. action names
// the step for the CSV; why is what the reveal will say of why the step
// came to its outcome. A question already open is replaced, its answers
// dropped.
func (c *Class) Ask(step int, action string, choices []string, why Why, now time.Time) error {
	if c.st.Ended {
		return ErrEnded
	}
	if len(choices) == 0 || step < 1 {
		return ErrNoChoices
	}
	c.st.Question = &Question{Step: step, Action: action, Choices: append([]string(nil), choices...), Open: true, Why: why}
	clear(c.answers)
	c.changed(now)
	return nil
}

// Answer records student's choice for the open question about step: the
// last answer before the reveal counts. ErrNoQuestion when none is open,
// ErrBadAnswer for another step or a choice not offered.
func (c *Class) Answer(student string, step int, choice string, now time.Time) error {
	q := c.st.Question
	if c.st.Ended || q == nil || !q.Open {
		return ErrNoQuestion
	}
	if step != q.Step || !q.Has(choice) || !ValidID(student) {
		return ErrBadAnswer
	}
	c.answers[student] = choice
	c.active = now
	return nil
}

// Tally is the open or last question's answers: the count per choice
// (every choice present) and how many answered; nil with no question.
func (c *Class) Tally() (map[string]int, int) {
	q := c.st.Question
	if q == nil {
		return nil, 0
	}
	if !q.Open && len(c.st.Scores) > 0 {
		last := c.st.Scores[len(c.st.Scores)-1]
		counts := make(map[string]int, len(last.Counts))
		for k, v := range last.Counts {
			counts[k] = v
		}
		return counts, last.Answered
	}
	counts := make(map[string]int, len(q.Choices))
	for _, ch := range q.Choices {
		counts[ch] = 0
	}
	for _, ch := range c.answers {
		counts[ch]++
	}
	return counts, len(c.answers)
}

// Reveal closes the open question with correct as its right answer (the
// outcome the step came to) and keeps the step's score. ErrNoQuestion when
// none is open.
func (c *Class) Reveal(correct string, now time.Time) error {
	q := c.st.Question
	if c.st.Ended || q == nil || !q.Open {
		return ErrNoQuestion
	}
	counts, answered := c.Tally()
	q.Open, q.Revealed, q.Correct = false, true, correct
	c.st.Scores = append(c.st.Scores, Score{
		Step: q.Step, Action: q.Action, Choices: append([]string(nil), q.Choices...), Correct: correct,
		Answered: answered, Right: counts[correct], Counts: counts,
	})
	clear(c.answers)
	c.changed(now)
	return nil
}

// Join counts a connection of student; Leave uncounts it.
func (c *Class) Join(student string, now time.Time) {
	if ValidID(student) {
		c.students[student]++
		c.active = now
	}
}

// Leave uncounts a connection of student. When it was the student's
// last, its answer to the open question goes too: only the students
// connected answer (issue 37, item 5: a client that joined, answered and
// left with a fresh id each time counted as many answers).
func (c *Class) Leave(student string) {
	if n := c.students[student]; n > 1 {
		c.students[student] = n - 1
	} else {
		delete(c.students, student)
		delete(c.answers, student)
	}
}

// Students is how many students are connected (distinct ids).
func (c *Class) Students() int { return len(c.students) }

// End ends the class for reason (EndPresenter, EndIdle). It reports whether
// the class was still running.
func (c *Class) End(reason string, now time.Time) bool {
	if c.st.Ended {
		return false
	}
	c.st.Ended, c.st.EndReason = true, reason
	if q := c.st.Question; q != nil && q.Open {
		c.st.Question = nil
	}
	c.changed(now)
	return true
}

// IdleAt is when the class ends if nothing happens before.
func (c *Class) IdleAt() time.Time { return c.active.Add(c.idle) }

// Idle reports whether the class has been idle for its idle time at now.
func (c *Class) Idle(now time.Time) bool { return !now.Before(c.IdleAt()) }
