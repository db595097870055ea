package classserve

import (
	"lockstep/classroom"
)

// Class message types (docs/classroom.md): the page's, then the server's.
const (
	MsgClassStart  = "class-start"
	MsgClassResume = "class-resume"
	MsgClassAsk    = "class-ask"
	MsgClassReveal = "class-reveal"
	MsgClassEnd    = "class-end"
	MsgClassCSV    = "class-csv"
	MsgClassJoin   = "class-join"
	MsgClassAnswer = "class-answer"
	MsgClassFollow = "class-follow"

	MsgClassPresenter = "class-presenter"
	MsgClassStatus    = "class-status"
	MsgClassJoined    = "class-joined"
	MsgClassAnswered  = "class-answered"
	// MsgClassCSV is also the reply's type: it carries the CSV.
)

// Error codes of class messages.
const (
	ErrCodeClassUnknown      = "class-unknown"       // no class with that code
	ErrCodeClassEnded        = "class-ended"         // the class has ended
	ErrCodeClassBadKey       = "class-bad-key"       // class-resume's key is not the class's presenter key
	ErrCodeClassNotPresenter = "class-not-presenter" // a presenter's message from a session that is not the class's presenter
	ErrCodeClassFollowing    = "class-following"     // a player message from a student who follows the class
	ErrCodeClassNoQuestion   = "class-no-question"   // nothing to ask at the step, or no question open
	ErrCodeClassBadAnswer    = "class-bad-answer"    // an answer of another step, or a choice not offered
	ErrCodeClassJoins        = "class-joins"         // too many joins of unknown codes from the address
	ErrCodeClassBus          = "class-bus"           // the class bus failed
)

// Class roles (ClassStatusMessage.Role).
const (
	RolePresenter = "presenter"
	RoleStudent   = "student"
)

// ClassPresenterMessage answers class-start and class-resume.
type ClassPresenterMessage struct {
	Type string `json:"type"` // "class-presenter"
	Re   int64  `json:"re,omitempty"`
	Code string `json:"code"`
	// Key is the presenter key, only in the reply to class-start: the page
	// keeps it in sessionStorage.
	Key    string             `json:"key,omitempty"`
	Join   []string           `json:"join"`
	Panel  string             `json:"panel"` // HTML: join address and QR code
	Status ClassStatusMessage `json:"status"`
}

// ClassChoice is one choice of a question: the outcome's code (ID, as the
// lanes and predict mode show it) and its gloss in the page's language,
// fitted to the lesson's lock (Label).
type ClassChoice struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// ClassQuestion is the question of a class-status message.
type ClassQuestion struct {
	Step     int           `json:"step"`
	Choices  []ClassChoice `json:"choices"`
	Open     bool          `json:"open"`
	Revealed bool          `json:"revealed"`
	Correct  string        `json:"correct,omitempty"`
	// Why is why the step came to Correct, in the page's language, once
	// revealed: the lesson's right reason or the outcome's gloss.
	Why string `json:"why,omitempty"`
}

// ClassStatusMessage is a class as one page sees it.
type ClassStatusMessage struct {
	Type      string         `json:"type"` // "class-status"
	Code      string         `json:"code"`
	Role      string         `json:"role"`
	Lesson    string         `json:"lesson,omitempty"`
	Timeline  string         `json:"timeline,omitempty"`
	Step      int            `json:"step"`
	Total     int            `json:"total"`
	Question  *ClassQuestion `json:"question,omitempty"`
	Ended     bool           `json:"ended"`
	EndReason string         `json:"end_reason,omitempty"`
	// The presenter's only.
	Students int            `json:"students,omitempty"`
	Counts   map[string]int `json:"counts,omitempty"`
	Answered int            `json:"answered,omitempty"`
	// Bus, presenter only: while the class bus cannot reach its Redis
	// (classbus.Redis.Err), what the panel says about it, in the page's
	// language; absent while the bus is fine.
	Bus    string            `json:"bus,omitempty"`
	Scores []classroom.Score `json:"scores,omitempty"`
	// The student's only.
	Following bool   `json:"following,omitempty"`
	Answer    string `json:"answer,omitempty"`
}

// ClassJoinedMessage answers class-join.
type ClassJoinedMessage struct {
	Type    string `json:"type"` // "class-joined"
	Re      int64  `json:"re,omitempty"`
	Code    string `json:"code"`
	Student string `json:"student"`
}

// ClassAnsweredMessage answers class-answer.
type ClassAnsweredMessage struct {
	Type   string `json:"type"` // "class-answered"
	Re     int64  `json:"re,omitempty"`
	Step   int    `json:"step"`
	Choice string `json:"choice"`
}

// ClassCSVMessage answers class-csv.
type ClassCSVMessage struct {
	Type     string `json:"type"` // "class-csv"
	Re       int64  `json:"re,omitempty"`
	Filename string `json:"filename"`
	CSV      string `json:"csv"`
}

// IsClassType reports whether typ is a page's class message type.
func IsClassType(typ string) bool {
	switch typ {
	case MsgClassStart, MsgClassResume, MsgClassAsk, MsgClassReveal, MsgClassEnd, MsgClassCSV, MsgClassJoin, MsgClassAnswer, MsgClassFollow:
		return true
	}
	return false
}

// The protocol's error codes (package web's ErrCodeNoLesson and
// ErrCodeInternal) that class messages are answered with too.
const (
	errCodeNoLesson = "no-lesson" // a presenter's message before any load
	errCodeInternal = "internal"  // rendering failed
)
