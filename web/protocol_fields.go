package web

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/view"
)

// wireMessage is a ClientMessage as it arrives: step and at are read as raw
// JSON first, so that any JSON number that is a whole number counts as a
// step (1e9 and 7.0 as well as 7), the way a page's JSON.stringify writes
// numbers, rather than only the literals Go reads into an int.
type wireMessage struct {
	ClientMessage
	Step json.RawMessage `json:"step,omitempty"`
	At   json.RawMessage `json:"at,omitempty"`
}

// maxStepNumber is what a step or at beyond it is read as. No timeline has
// that many steps (share codes hold at most 500), so it still means "past
// the end": a seek goes to the last step, a fork is refused as after the
// end.
const maxStepNumber = math.MaxInt32

// stepNumber reads the field named field of a client message, raw being
// valid JSON (json.Unmarshal or json.Valid checked it): nil when it
// is absent or null, else its whole-number value (clamped to
// maxStepNumber; any negative one as -1, for the caller's range check). A
// value that is not a number is a bad-json protocol error, a fraction a
// bad-field one, each naming the field.
func stepNumber(field string, raw json.RawMessage) (*int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return nil, perr(ErrCodeBadJSON, "wrong-type", "Field", field)
	}
	// raw is valid JSON (checked by the caller) that starts like a number,
	// so it is one: ParseFloat fails only out of a float's range, and then
	// gives ±Inf, which the clamp below reads as past the end (or -1).
	f, _ := strconv.ParseFloat(string(raw), 64)
	if f != math.Trunc(f) || (f == 0 && nonZeroMantissa(raw)) { // 1e-400 reads as 0
		return nil, perr(ErrCodeBadField, "not-whole", "Field", field, "Value", view.Clip(string(raw), maxEcho))
	}
	n := maxStepNumber
	switch {
	case f < 0:
		n = -1
	case f < maxStepNumber:
		n = int(f)
	}
	return &n, nil
}

// nonZeroMantissa reports whether the JSON number raw has a digit other
// than 0 before its exponent: a number that reads as 0 only because it is
// too small for a float64.
func nonZeroMantissa(raw []byte) bool {
	for _, c := range raw {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

// maxEcho is how much of a value the client sent an error message repeats
// (in clip's units): an error names the bad value without sending a huge
// one back.
const maxEcho = 64

// maxActionText is the longest text a fork action's field may hold, in
// bytes: a lock name's limit (explore), and far more than an actor id or a
// written value needs. The checks that follow name the value they refuse,
// so a longer one is refused here, by its length alone.
const maxActionText = 200

// checkActionLengths refuses a fork action with a text field longer than
// maxActionText, as a bad-field protocol error naming the field.
func checkActionLengths(a *explore.StepSpec) error {
	for _, f := range []struct{ name, text string }{
		{"actor", a.Actor}, {"do", string(a.Do)}, {"lock", a.Lock}, {"value", a.Value}, {"child", a.Child}, {"context", a.Context},
	} {
		if len(f.text) > maxActionText {
			return perr(ErrCodeBadField, "action-too-long", "Field", "action."+f.name, "Bytes", len(f.text), "Max", maxActionText)
		}
	}
	return nil
}

// wireLang reads a lang field as the lang query parameter is read (any
// case, - or _, zh-Hant and zh-HK as zh-TW, zh and zh-Hans as zh-CN, en-US
// as en; see langParam) and returns the locale's own tag. Anything else is
// an unknown-lang protocol error, unless spoken (the server's catalogue,
// nil for none beyond the three) has it.
func wireLang(lang string, spoken func(sim.Locale) bool) (string, error) {
	if spoken != nil && spoken(sim.Locale(lang)) {
		return lang, nil
	}
	loc, ok := langParam(lang)
	if !ok {
		return lang, perr(ErrCodeUnknownLang, "unknown-lang", "Lang", view.Clip(lang, maxEcho))
	}
	return string(loc), nil
}
