package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"lockstep/backend"
	"lockstep/classserve"
	"lockstep/explore"
	"lockstep/searchpage"
	"lockstep/sim"
	"lockstep/view"
)

// ProtocolVersion is sent in the hello message; it grows when a message
// changes meaning (fields are only ever added).
const ProtocolVersion = 1

// Client message types.
const (
	MsgLoad  = "load"
	MsgStep  = "step"
	MsgBack  = "back"
	MsgSeek  = "seek"
	MsgPlay  = "play"
	MsgPause = "pause"
	MsgLang  = "lang"
	MsgFork  = "fork"
	MsgUndo  = "undo"
	// MsgSearch starts a search (the Search page); MsgSearchStop stops it.
	MsgSearch     = "search"
	MsgSearchStop = "search-stop"
)

// Server message types.
const (
	MsgHello = "hello"
	MsgFrame = "frame"
	MsgState = "state"
	MsgError = "error"
	// MsgSearchProgress reports a running search after each depth;
	// MsgSearchResult ends it (finished, stopped or over a cap).
	MsgSearchProgress = searchpage.MsgSearchProgress
	MsgSearchResult   = searchpage.MsgSearchResult
)

// Error codes of error messages.
const (
	ErrCodeBadJSON       = "bad-json"       // not a JSON object, or a field of the wrong type
	ErrCodeBinary        = "binary"         // a binary websocket message
	ErrCodeUnknownType   = "unknown-type"   // type is missing or not one of the client types
	ErrCodeBadField      = "bad-field"      // a field is missing or out of range
	ErrCodeUnknownLesson = "unknown-lesson" // load names no lesson of the course
	ErrCodeUnknownLang   = "unknown-lang"   // lang is not en, zh-CN, zh-TW or a tag for one of them
	ErrCodeNoLesson      = "no-lesson"      // a player message before any load
	ErrCodeRedis         = "redis"          // a step failed on Redis; the run is unchanged and may be retried
	ErrCodeBusy          = "busy"           // too many sessions; sent before close code 1013
	ErrCodeRateLimited   = "rate-limited"   // a message over the connection's rate limit, not carried out
	ErrCodeInternal      = "internal"       // rendering failed
	ErrCodeBadLink       = "bad-link"       // load's timeline is not a share code this server can open
	ErrCodeBadStep       = "bad-step"       // fork's action cannot happen at that step; undo with nothing to undo
)

// Error codes of the search messages (package searchpage).
const (
	ErrCodeBadSearch     = searchpage.ErrCodeBadSearch     // search's shape or file breaks the search format (fields names each field)
	ErrCodeSearchRunning = searchpage.ErrCodeSearchRunning // search while this session's search runs
	ErrCodeSearchFull    = searchpage.ErrCodeSearchFull    // search while the server runs Config.MaxSearches searches
	ErrCodeNoSearch      = searchpage.ErrCodeNoSearch      // search-stop with no search running
)

// Close codes the server uses besides the standard ones.
const (
	// CloseIdle closes a session that sent nothing for the idle timeout. The
	// page reconnects only when the learner comes back.
	CloseIdle = 4000
	// CloseSlow closes a client that did not read its messages in time.
	CloseSlow = 4001
)

// ClientMessage is a message from the page. Unknown fields are ignored.
type ClientMessage struct {
	Type string `json:"type"`
	// ID, when set, is echoed in the "re" field of the replies.
	ID     int64   `json:"id,omitempty"`
	Lesson string  `json:"lesson,omitempty"` // load
	Step   *int    `json:"step,omitempty"`   // load (default 0), seek (required)
	Lang   string  `json:"lang,omitempty"`   // load (optional), lang (required)
	Speed  float64 `json:"speed,omitempty"`  // play: steps per 1.5 s, 0.25 to 8; default 1
	// Timeline (load, instead of lesson) is the share code of an explore
	// timeline (package explore).
	Timeline string `json:"timeline,omitempty"`
	// At (fork) is the step to continue after; default the current one.
	At *int `json:"at,omitempty"`
	// Action (fork) is the step to add (explore.StepSpec).
	Action *explore.StepSpec `json:"action,omitempty"`
	// Search (search) is the search to run: a shape or a search file.
	Search *searchpage.Request `json:"search,omitempty"`
	// Class messages (docs/classroom.md): the class code (class-resume,
	// class-join), the presenter key (class-resume), the student id the page
	// was given (class-join), the answer (class-answer, with step) and
	// whether to follow the class (class-follow).
	Code    string `json:"code,omitempty"`
	Key     string `json:"key,omitempty"`
	Student string `json:"student,omitempty"`
	Choice  string `json:"choice,omitempty"`
	Follow  *bool  `json:"follow,omitempty"`
}

// HelloMessage is the first message of every connection.
type HelloMessage struct {
	Type       string       `json:"type"` // "hello"
	Protocol   int          `json:"protocol"`
	Backend    backend.Info `json:"backend"`
	BackendTxt string       `json:"backend_text"`
	MaxMessage int64        `json:"max_message"` // read limit, bytes
}

// FrameMessage carries one step: the frame as JSON and the panels rendered
// as HTML fragments. Chrome (header and controls) comes after a load and a
// language change only.
type FrameMessage struct {
	Type     string    `json:"type"` // "frame"
	Re       int64     `json:"re,omitempty"`
	Lesson   string    `json:"lesson"`
	Step     int       `json:"step"`
	Total    int       `json:"total"`
	Computed int       `json:"computed"` // highest step the run has reached
	Playing  bool      `json:"playing"`
	Speed    float64   `json:"speed"`
	Lang     string    `json:"lang"`
	Title    string    `json:"title"` // document title
	URL      string    `json:"url"`   // the deep link of this step
	Frame    sim.Frame `json:"frame"`
	// Panels are the panels' HTML: all of them in a frame with chrome, else
	// only those that changed since the session's previous frame (the
	// timeline then comes as view.TimelinePatch).
	Panels map[string]string `json:"panels"`
	// TimelinePatch updates the timeline the page shows, in a frame without
	// chrome (see view/delta.go); nil when Panels holds the whole timeline.
	TimelinePatch *view.TimelinePatch `json:"timeline_patch,omitempty"`
	Chrome        map[string]string   `json:"chrome,omitempty"`
	// Timeline is the share code of the run's timeline when it is an explore
	// timeline (a fork, a sandbox, an import); "" for a course lesson or a
	// drill. URL holds it too.
	Timeline string `json:"timeline,omitempty"`
}

// StateMessage reports play state changes.
type StateMessage struct {
	Type    string  `json:"type"` // "state"
	Re      int64   `json:"re,omitempty"`
	Playing bool    `json:"playing"`
	Speed   float64 `json:"speed"`
	Step    int     `json:"step"`
	Total   int     `json:"total"`
}

// ErrorMessage answers a message the server could not carry out. The
// session stays open.
type ErrorMessage struct {
	Type    string `json:"type"` // "error"
	Re      int64  `json:"re,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Fields are the fields of a bad-search request the message names
	// ("depth", "moves"), for the page to mark.
	Fields []string `json:"fields,omitempty"`
}

// protoError is a client mistake (or a run that failed), answered with an
// error message. What the page shows is msg, a message code of the
// catalogue (catalog/protocol.*.toml) rendered in the session's language,
// or, for a failure of another package, that error as the catalogue words
// it (cause).
type protoError struct {
	code  string
	msg   sim.Msg
	cause error
	// fields: ErrorMessage.Fields.
	fields []string
}

// Error is the error in English for logs: its code and message id, or its
// cause.
func (e *protoError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("web: %s: %v", e.code, e.cause)
	}
	return fmt.Sprintf("web: %s: %s %v", e.code, e.msg.ID, e.msg.Args)
}

// Message is the message the page shows (sim.Coded); none for an error
// that only wraps its cause.
func (e *protoError) Message() sim.Msg { return e.msg }

// Unwrap returns the cause, so that the catalogue words it.
func (e *protoError) Unwrap() error { return e.cause }

// perr is a protocol error of code with message ws.<id> and its
// parameters (pairs of name, value).
func perr(code, id string, kv ...any) *protoError {
	return &protoError{code: code, msg: sim.M("ws."+id, kv...)}
}

// perrOf is a protocol error of code that shows err as the catalogue words
// it (a bad share link, a refused fork, a failed run).
func perrOf(code string, err error) *protoError { return &protoError{code: code, cause: err} }

// DefaultSpeed and the bounds of a play message's speed.
const (
	DefaultSpeed = 1.0
	MinSpeed     = 0.25
	MaxSpeed     = 8.0
)

// parseClientMessage decodes and checks one client message; a lang field
// may name a locale of spoken (the server's catalogue). The id is
// returned even when the message is otherwise wrong, so that the error can
// name it.
func parseClientMessage(data []byte, spoken func(sim.Locale) bool) (ClientMessage, error) {
	var w wireMessage
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return w.ClientMessage, perr(ErrCodeBadJSON, "not-object")
	}
	err := json.Unmarshal(trimmed, &w)
	m := w.ClientMessage
	if err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			// Keep the id if it decoded.
			var idOnly struct {
				ID int64 `json:"id"`
			}
			_ = json.Unmarshal(trimmed, &idOnly)
			m = ClientMessage{ID: idOnly.ID}
			// The path runs from wireMessage, whose ClientMessage is embedded.
			field := strings.TrimPrefix(ute.Field, "ClientMessage.")
			if paths, fields := searchTypeErrors(trimmed); strings.HasPrefix(field, "search.") && len(paths) > 1 {
				// Every field of the search that has the wrong type, not
				// only the first that json.Unmarshal names.
				pe := perr(ErrCodeBadJSON, "wrong-types", "Fields", strings.Join(paths, ", "))
				pe.fields = fields
				return m, pe
			}
			return m, perr(ErrCodeBadJSON, "wrong-type", "Field", field)
		}
		return ClientMessage{}, perr(ErrCodeBadJSON, "malformed", "Reason", view.Clip(err.Error(), maxEcho))
	}
	if m.Step, err = stepNumber("step", w.Step); err != nil {
		return m, err
	}
	if m.At, err = stepNumber("at", w.At); err != nil {
		return m, err
	}
	switch m.Type {
	case MsgLoad:
		if m.Lesson == "" && m.Timeline == "" {
			return m, perr(ErrCodeBadField, "load-needs")
		}
		if m.Lesson != "" && m.Timeline != "" {
			return m, perr(ErrCodeBadField, "load-both")
		}
		if m.Step != nil && *m.Step < 0 {
			return m, perr(ErrCodeBadField, "step-negative")
		}
		if m.Lang != "" {
			if m.Lang, err = wireLang(m.Lang, spoken); err != nil {
				return m, err
			}
		}
	case MsgSeek:
		if m.Step == nil {
			return m, perr(ErrCodeBadField, "seek-needs")
		}
		if *m.Step < 0 {
			return m, perr(ErrCodeBadField, "step-negative")
		}
	case MsgLang:
		if m.Lang, err = wireLang(m.Lang, spoken); err != nil {
			return m, err
		}
	case MsgPlay:
		if m.Speed != 0 && (math.IsNaN(m.Speed) || m.Speed < MinSpeed || m.Speed > MaxSpeed) {
			return m, perr(ErrCodeBadField, "speed-range", "Min", MinSpeed, "Max", MaxSpeed)
		}
	case MsgFork:
		if m.Action == nil {
			return m, perr(ErrCodeBadField, "fork-needs")
		}
		if m.At != nil && *m.At < 0 {
			return m, perr(ErrCodeBadField, "at-negative")
		}
		if err := checkActionLengths(m.Action); err != nil {
			return m, err
		}
	case MsgSearch:
		if m.Search == nil {
			return m, perr(ErrCodeBadField, "search-needs")
		}
		if m.Lang != "" {
			if m.Lang, err = wireLang(m.Lang, spoken); err != nil {
				return m, err
			}
		}
	case MsgStep, MsgBack, MsgPause, MsgUndo, MsgSearchStop:
	case "":
		return m, perr(ErrCodeUnknownType, "no-type")
	default:
		if classserve.IsClassType(m.Type) {
			return m, checkClassMessage(&m, len(trimmed), spoken)
		}
		return m, perr(ErrCodeUnknownType, "unknown-type", "Type", view.Clip(m.Type, maxEcho))
	}
	return m, nil
}

// searchTypeErrors are the fields of a message's search object (data, a
// whole client message) whose JSON value has the wrong type for them
// (actors: "x"), every one, in the order of searchpage.Request's fields:
// paths as a wrong-type error names them ("search.actors") and fields as
// the Search page marks them (data-field: lease for lease_ms).
// json.Unmarshal names only the first.
func searchTypeErrors(data []byte) (paths, fields []string) {
	var m struct {
		Search map[string]json.RawMessage `json:"search"`
	}
	if json.Unmarshal(data, &m) != nil {
		return nil, nil
	}
	rt := reflect.TypeFor[searchpage.Request]()
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		raw, ok := m.Search[name]
		if !ok || json.Unmarshal(raw, reflect.New(f.Type).Interface()) == nil {
			continue
		}
		paths = append(paths, "search."+name)
		fields = append(fields, strings.TrimSuffix(name, "_ms"))
	}
	return paths, fields
}
