package web

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
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

// stepNumber reads the field named field of a client message: nil when it
// is absent or null, else its whole-number value (clamped to
// maxStepNumber; a negative one is returned as is, for the caller's range
// check). A string, a fraction or a value that is not a number is a
// bad-json or bad-field protocol error naming the field.
func stepNumber(field string, raw json.RawMessage) (*int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return nil, perr(ErrCodeBadJSON, "field %q has the wrong type (want a number)", field)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !math.IsInf(f, 0) { // out of float range still has a sign
		return nil, perr(ErrCodeBadJSON, "field %q is not a number: %s", field, raw)
	}
	if f != math.Trunc(f) {
		return nil, perr(ErrCodeBadField, "%s must be a whole number, not %s", field, raw)
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

// wireLang reads a lang field as the lang query parameter is read (any
// case, - or _, zh-Hant and zh-HK as zh-TW, zh and zh-Hans as zh-CN, en-US
// as en; see langParam) and returns the locale's own tag. Anything else is
// an unknown-lang protocol error.
func wireLang(lang string) (string, error) {
	loc, ok := langParam(lang)
	if !ok {
		return lang, perr(ErrCodeUnknownLang, "unknown language %q (want en, zh-CN or zh-TW, or a tag such as zh-Hant or en-US)", lang)
	}
	return string(loc), nil
}
