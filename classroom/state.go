package classroom

import (
	"encoding/json"
	"errors"
	"fmt"
)

// StateVersion is State.V: it grows when a field changes meaning (fields
// are only ever added).
const StateVersion = 1

// End reasons (State.EndReason).
const (
	EndPresenter = "presenter" // the presenter ended the class
	EndIdle      = "idle"      // nothing happened for the idle time
)

// State is what every server knows of a class: what it shows, the step, the
// question and the scores so far. It is the value a classbus.Bus keeps
// (SetState) and the state field of the owner's bus messages, as JSON
// (docs/classroom.md). It never holds a student id or the live tally.
type State struct {
	V     int    `json:"v"`
	Code  string `json:"code"`
	Owner string `json:"owner"` // the id of the server that owns the class
	// Seq grows by one with each published state: a subscriber keeps the
	// state of the highest Seq it saw.
	Seq     int64  `json:"seq"`
	KeyHash string `json:"key_hash"` // KeyHash of the presenter key
	Shown
	Step      int       `json:"step"`
	Question  *Question `json:"question,omitempty"`
	Scores    []Score   `json:"scores,omitempty"`
	Ended     bool      `json:"ended"`
	EndReason string    `json:"end_reason,omitempty"`
	UpdatedMS int64     `json:"updated_ms"` // Unix milliseconds of the last change
}

// Shown is what a class shows, as a load message names it: a course
// lesson's or a drill's id (Lesson) or a share code (Timeline, a fork, a
// sandbox, an import or a search result); Title is its title in the
// presenter's language, Total its number of steps.
type Shown struct {
	Lesson   string `json:"lesson,omitempty"`
	Timeline string `json:"timeline,omitempty"`
	Title    string `json:"title,omitempty"`
	Total    int    `json:"total"`
}

// Question is the question put to the room: which outcome step Step (the
// one after the step shown when it was asked) comes to.
type Question struct {
	Step int `json:"step"`
	// Action names the step for the CSV ("acquire A").
	Action   string   `json:"action,omitempty"`
	Choices  []string `json:"choices"` // outcome codes (sim.Outcome), predict mode's
	Open     bool     `json:"open"`
	Revealed bool     `json:"revealed"`
	Correct  string   `json:"correct,omitempty"` // set when revealed
	// Why is what the reveal says of why the step came to its outcome;
	// pages are sent it only once the question is revealed.
	Why Why `json:"why,omitzero"`
}

// Why is what a question's reveal says of why its step came to the
// outcome it did (issue 38, item 12: "✗ You said BUSY; it was ACQUIRED
// (the lock was free)"): the lesson's right reason in each language
// (Because, locale → text) when the step asks why, else the catalogue's
// gloss of the outcome fitted to the lesson's variant and the step's
// action (Variant, Do: view.OutcomeGloss), which also glosses the choices.
type Why struct {
	Variant string            `json:"variant,omitempty"`
	Do      string            `json:"do,omitempty"`
	Because map[string]string `json:"because,omitempty"`
}

// Has reports whether choice is one of q's choices.
func (q *Question) Has(choice string) bool {
	for _, c := range q.Choices {
		if c == choice {
			return true
		}
	}
	return false
}

// Score is the class's result on one revealed question.
type Score struct {
	Step     int            `json:"step"`
	Action   string         `json:"action,omitempty"`
	Choices  []string       `json:"choices"`
	Correct  string         `json:"correct"`
	Answered int            `json:"answered"`
	Right    int            `json:"right"`
	Counts   map[string]int `json:"counts"`
}

// MaxStateBytes bounds a state a server decodes: a class's scores grow by
// one small entry per revealed question.
const MaxStateBytes = 1 << 20

// DecodeState parses a state as a bus keeps it; it checks what a server
// relies on (the version, the code, a question's step and choices).
func DecodeState(b []byte) (State, error) {
	var st State
	if len(b) > MaxStateBytes {
		return st, fmt.Errorf("classroom: state of %d bytes (limit %d)", len(b), MaxStateBytes)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("classroom: state: %w", err)
	}
	if st.V < 1 {
		return State{}, errors.New("classroom: state has no version")
	}
	if _, err := ParseCode(st.Code); err != nil {
		return State{}, fmt.Errorf("classroom: state: %w", err)
	}
	if st.Step < 0 || st.Total < 0 {
		return State{}, errors.New("classroom: state: negative step")
	}
	if q := st.Question; q != nil && (q.Step < 1 || len(q.Choices) == 0) {
		return State{}, errors.New("classroom: state: question without step or choices")
	}
	return st, nil
}

// Encode is st as JSON.
func (st State) Encode() []byte {
	b, _ := json.Marshal(st) // a State always marshals
	return b
}

// clone is a deep copy of st, so that a State handed out stays as it was.
func (st State) clone() State {
	if st.Question != nil {
		q := *st.Question
		q.Choices = append([]string(nil), q.Choices...)
		if q.Why.Because != nil {
			because := make(map[string]string, len(q.Why.Because))
			for k, v := range q.Why.Because {
				because[k] = v
			}
			q.Why.Because = because
		}
		st.Question = &q
	}
	if st.Scores != nil {
		scores := make([]Score, len(st.Scores))
		for i, s := range st.Scores {
			s.Choices = append([]string(nil), s.Choices...)
			counts := make(map[string]int, len(s.Counts))
			for k, v := range s.Counts {
				counts[k] = v
			}
			s.Counts = counts
			scores[i] = s
		}
		st.Scores = scores
	}
	return st
}
