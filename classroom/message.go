package classroom

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Bus message kinds (docs/classroom.md). The owner publishes the first
// four with the whole State; students' servers publish the others.
const (
	KindStep   = "step"   // the class moved
	KindAsk    = "ask"    // a question was opened
	KindReveal = "reveal" // the question was revealed
	KindEnd    = "end"    // the class ended
	KindAnswer = "answer" // a student answered
	KindJoin   = "join"   // a student connected
	KindLeave  = "leave"  // a student's connection ended
)

// MaxChoiceLen bounds an answer's choice: outcome codes are short words.
const MaxChoiceLen = 32

// Message is one message on a class's bus channel.
type Message struct {
	Kind    string `json:"kind"`
	State   *State `json:"state,omitempty"`   // step, ask, reveal, end
	Student string `json:"student,omitempty"` // answer, join, leave
	Step    int    `json:"step,omitempty"`    // answer
	Choice  string `json:"choice,omitempty"`  // answer
}

// Encode is m as JSON.
func (m Message) Encode() []byte {
	b, _ := json.Marshal(m) // a Message always marshals
	return b
}

// StateMessage is the owner's message of kind carrying st.
func StateMessage(kind string, st State) Message { return Message{Kind: kind, State: &st} }

// DecodeMessage parses a bus message and checks its kind and the fields
// its kind needs. Everything on the bus is checked again where it is
// used: a message is only as good as the server that sent it.
func DecodeMessage(b []byte) (Message, error) {
	var m Message
	if len(b) > MaxStateBytes {
		return Message{}, fmt.Errorf("classroom: bus message of %d bytes (limit %d)", len(b), MaxStateBytes)
	}
	var raw struct {
		Message
		State json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Message{}, fmt.Errorf("classroom: bus message: %w", err)
	}
	m = raw.Message
	m.State = nil
	switch m.Kind {
	case KindStep, KindAsk, KindReveal, KindEnd:
		if len(raw.State) == 0 {
			return Message{}, fmt.Errorf("classroom: bus message %q without state", m.Kind)
		}
		st, err := DecodeState(raw.State)
		if err != nil {
			return Message{}, err
		}
		m.State = &st
	case KindAnswer:
		if !ValidID(m.Student) || m.Step < 1 || m.Choice == "" || len(m.Choice) > MaxChoiceLen {
			return Message{}, errors.New("classroom: bus answer without a student, step or choice")
		}
	case KindJoin, KindLeave:
		if !ValidID(m.Student) {
			return Message{}, fmt.Errorf("classroom: bus %s without a student", m.Kind)
		}
	default:
		return Message{}, fmt.Errorf("classroom: bus message of unknown kind %.32q", m.Kind)
	}
	return m, nil
}
