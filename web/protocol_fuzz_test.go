package web

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"lockstep/catalog"
	"lockstep/classroom"
	"lockstep/classserve"
	"lockstep/search"
	"lockstep/searchpage"
	"lockstep/sim"
)

// FuzzParseClientMessage feeds arbitrary bytes to the websocket message
// decoder. Whatever the input, it must not panic; an error must be a
// protocol error with a known code and a ws.* message of the catalogue; and a message it
// accepts must satisfy the protocol's bounds and decode to itself again
// once re-encoded. Seeds: testdata/fuzz/FuzzParseClientMessage and the
// messages below.
func FuzzParseClientMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"load","lesson":"stale-owner","step":4,"lang":"zh-CN","id":1}`,
		`{"type":"step","id":2}`, `{"type":"back"}`, `{"type":"seek","step":7}`,
		`{"type":"play","speed":2}`, `{"type":"pause"}`, `{"type":"lang","lang":"zh-TW"}`,
		`not json`, `[1,2]`, `{"type":"step"`, `{"type":7,"id":4}`, `{"id":5}`,
		`{"type":"seek","step":1e30}`, `{"type":"play","speed":-1}`, ` {"type":"pause"} `, ``,
		`{"type":"seek","step":2.5}`, `{"type":"lang","lang":"zh-hant"}`, `{"type":"undo"}`,
		`{"type":"fork","at":3e0,"action":{"actor":"A","do":"acquire"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseClientMessage(data, nil)
		if err != nil {
			checkRefusal(t, err)
			return
		}
		switch m.Type {
		case MsgLoad:
			if m.Lesson == "" || (m.Step != nil && *m.Step < 0) || (m.Lang != "" && !sim.ValidLocale(m.Lang)) {
				t.Fatalf("accepted a bad load: %+v", m)
			}
		case MsgSeek:
			if m.Step == nil || *m.Step < 0 {
				t.Fatalf("accepted a bad seek: %+v", m)
			}
		case MsgLang:
			if !sim.ValidLocale(m.Lang) {
				t.Fatalf("accepted a bad lang: %+v", m)
			}
		case MsgPlay:
			if m.Speed != 0 && (math.IsNaN(m.Speed) || m.Speed < MinSpeed || m.Speed > MaxSpeed) {
				t.Fatalf("accepted a bad speed: %+v", m)
			}
		case MsgFork:
			if m.Action == nil || (m.At != nil && *m.At < 0) {
				t.Fatalf("accepted a bad fork: %+v", m)
			}
		case MsgSearch:
			if m.Search == nil || (m.Lang != "" && !sim.ValidLocale(m.Lang)) {
				t.Fatalf("accepted a bad search: %+v", m)
			}
		case MsgStep, MsgBack, MsgPause, MsgUndo, MsgSearchStop:
		default:
			if !classserve.IsClassType(m.Type) { // FuzzClassMessage checks those
				t.Fatalf("accepted type %q", m.Type)
			}
		}
		checkRoundTrip(t, m)
	})
}

// FuzzClassMessage feeds arbitrary bytes to the websocket message decoder
// with the class messages as seeds (docs/classroom.md). It must not panic;
// a refused message must be a protocol error the catalogue words; an
// accepted class message must hold what the session relies on (a code of
// the alphabet, a key of the form, an answer's step and choice in range,
// follow set, the size bound) and survive a round trip. Then the bus
// message decoder gets the same bytes: it must not panic, and what it
// accepts must carry what its kind needs.
func FuzzClassMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"class-start","id":1}`,
		`{"type":"class-resume","code":"K7P3QX","key":"0123456789abcdef0123456789abcdef"}`,
		`{"type":"class-resume","code":"k7p3qx","key":"0123456789ABCDEF0123456789ABCDEF"}`,
		`{"type":"class-join","code":" k7p3qx ","lang":"zh-hant","student":"0123456789abcdef0123456789abcdef"}`,
		`{"type":"class-join","code":"K7P3Q0"}`, `{"type":"class-join","code":7}`, `{"type":"class-join"}`,
		`{"type":"class-answer","step":4,"choice":"GRANTED"}`, `{"type":"class-answer","step":0,"choice":"GRANTED"}`,
		`{"type":"class-answer","step":4.0,"choice":"` + strings.Repeat("<", 33) + `"}`,
		`{"type":"class-follow","follow":false}`, `{"type":"class-follow","follow":"yes"}`, `{"type":"class-follow"}`,
		`{"type":"class-ask"}`, `{"type":"class-reveal"}`, `{"type":"class-end"}`, `{"type":"class-csv","id":9}`,
		`{"type":"class-join","code":"K7P3QX","pad":"` + strings.Repeat("x", maxClassMessage) + `"}`,
		`{"kind":"answer","student":"0123456789abcdef0123456789abcdef","step":4,"choice":"BUSY"}`,
		`{"kind":"step","state":{"v":1,"code":"K7P3QX","seq":3,"lesson":"stale-owner","step":2,"total":11}}`,
		`{"kind":"ask","state":{"v":1,"code":"K7P3QX","question":{"step":3,"choices":["GRANTED","BUSY"],"open":true}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bm, err := classroom.DecodeMessage(data); err == nil {
			switch bm.Kind {
			case classroom.KindAnswer:
				if !classroom.ValidID(bm.Student) || bm.Step < 1 || bm.Choice == "" || len(bm.Choice) > classroom.MaxChoiceLen {
					t.Fatalf("bus answer accepted: %+v", bm)
				}
			case classroom.KindJoin, classroom.KindLeave:
				if !classroom.ValidID(bm.Student) {
					t.Fatalf("bus %s accepted: %+v", bm.Kind, bm)
				}
			default:
				if bm.State == nil {
					t.Fatalf("bus %s without state accepted", bm.Kind)
				}
				if _, err := classroom.ParseCode(bm.State.Code); err != nil || bm.State.Step < 0 {
					t.Fatalf("bus state accepted: %+v", bm.State)
				}
			}
		}
		m, err := parseClientMessage(data, nil)
		if err != nil {
			checkRefusal(t, err)
			return
		}
		if !classserve.IsClassType(m.Type) {
			return // FuzzParseClientMessage's
		}
		if len(strings.TrimSpace(string(data))) > maxClassMessage {
			t.Fatalf("accepted a class message of %d bytes", len(data))
		}
		switch m.Type {
		case classserve.MsgClassResume, classserve.MsgClassJoin:
			if c, err := classroom.ParseCode(m.Code); err != nil || c != m.Code {
				t.Fatalf("accepted code %q", m.Code)
			}
			if m.Type == classserve.MsgClassResume && !classroom.ValidID(m.Key) {
				t.Fatalf("accepted key %q", m.Key)
			}
			if m.Type == classserve.MsgClassJoin && ((m.Student != "" && !classroom.ValidID(m.Student)) || (m.Lang != "" && !sim.ValidLocale(m.Lang))) {
				t.Fatalf("accepted a bad join: %+v", m)
			}
		case classserve.MsgClassAnswer:
			if m.Step == nil || *m.Step < 1 || m.Choice == "" || len(m.Choice) > classroom.MaxChoiceLen {
				t.Fatalf("accepted a bad answer: %+v", m)
			}
		case classserve.MsgClassFollow:
			if m.Follow == nil {
				t.Fatalf("accepted a follow without follow")
			}
		}
		checkRoundTrip(t, m)
	})
}

// checkRefusal fails t unless err is a protocol error whose code is one
// the message decoder refuses with (bad JSON, unknown type, bad field,
// unknown language, bad class key) and whose message the catalogue words.
func checkRefusal(t *testing.T, err error) {
	t.Helper()
	codes := map[string]bool{ErrCodeBadJSON: true, ErrCodeUnknownType: true, ErrCodeBadField: true, ErrCodeUnknownLang: true, classserve.ErrCodeClassBadKey: true}
	var pe *protoError
	if !errors.As(err, &pe) {
		t.Fatalf("error is %T, not a protocol error: %v", err, err)
	}
	if text := tr(sim.English).Msg(pe.msg); !codes[pe.code] || !strings.HasPrefix(pe.msg.ID, "ws.") || strings.Contains(text, catalog.Missing) {
		t.Fatalf("error code %q message %v (%q)", pe.code, pe.msg, text)
	}
}

// checkRoundTrip fails t unless accepted message m, encoded again, decodes
// to itself.
func checkRoundTrip(t *testing.T, m ClientMessage) {
	t.Helper()
	again, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("re-encode %+v: %v", m, err)
	}
	m2, err := parseClientMessage(again, nil)
	if err != nil {
		t.Fatalf("re-encoded %s rejected: %v", again, err)
	}
	if !reflect.DeepEqual(m, m2) {
		t.Fatalf("round trip changed the message:\n %+v\n %+v", m, m2)
	}
}

// FuzzSearchRequest feeds arbitrary bytes to the Search page's request
// decoder: the websocket message decoder, then searchpage.ShapeFile, which builds the
// search file of a shape (or parses a file) and checks it with
// search.Validate. It must not panic; a refused search must be a
// bad-search protocol error whose every problem the catalogue words in
// every locale, a shape's problems each naming its field; an accepted one
// must be a search the format allows. Seeds: the messages below.
func FuzzSearchRequest(f *testing.F) {
	for _, s := range []string{
		`{"type":"search","id":1,"search":{"variant":"token-count"}}`,
		`{"type":"search","search":{"variant":"instance-owner","actors":3,"depth":6,"lease_ms":30000,"fencing":true,"moves":["acquire","pause"],"advance_ms":[31000],"invariants":["stale-write"]}}`,
		`{"type":"search","search":{"variant":"token-count","depth":20,"moves":[],"invariants":["liveness"]}}`,
		`{"type":"search","search":{"variant":"watchdog","actors":-3,"lease_ms":-1,"advance_ms":[0,1.5e3,1500]}}`,
		`{"type":"search","search":{"variant":"redlock","actors":1000000}}`,
		`{"type":"search","search":{"file":"variant: token-count\nlease: 30s\nactors: [{id: A}]\n"}}`,
		`{"type":"search","search":{"file":"depth: [1"}}`,
		`{"type":"search","search":{"variant":"token-count","lease_ms":9223372036854775807,"moves":["advance","acquire","acquire"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseClientMessage(data, nil)
		if err != nil || m.Type != MsgSearch {
			return
		}
		sf, err := searchpage.ShapeFile(m.Search)
		if err != nil {
			var pe *searchpage.Error
			if !errors.As(err, &pe) || pe.Code != ErrCodeBadSearch {
				t.Fatalf("error %T %v: want a bad-search protocol error", err, err)
			}
			var les sim.LoadErrors
			if !errors.As(err, &les) || len(les) == 0 {
				t.Fatalf("bad-search error %v carries no problems", err)
			}
			for _, e := range les {
				if m.Search.File == "" && (e.Path == "" || e.Problem.ID == "") {
					t.Fatalf("shape problem %+v names no field or has no code", e)
				}
				for _, l := range sim.Locales {
					if text := tr(l).Err(err); strings.Contains(text, catalog.Missing) {
						t.Fatalf("%s: %q", l, text)
					}
				}
			}
			if m.Search.File == "" && len(pe.Fields) == 0 {
				t.Fatalf("shape error %v names no field", err)
			}
			return
		}
		if sf.Depth < 1 || sf.Depth > search.MaxDepth || len(sf.Actors) < 1 || len(sf.Actors) > search.MaxActors || len(sf.Moves) == 0 || len(sf.Invariants) == 0 {
			t.Fatalf("accepted a search the format refuses: %+v", sf)
		}
		if errs := search.Validate(sf); len(errs) > 0 {
			t.Fatalf("accepted %+v, which the validator refuses: %v", sf, errs)
		}
	})
}
