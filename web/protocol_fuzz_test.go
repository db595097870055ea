package web

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"lockstep/catalog"
	"lockstep/search"
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
	codes := map[string]bool{ErrCodeBadJSON: true, ErrCodeUnknownType: true, ErrCodeBadField: true, ErrCodeUnknownLang: true, ErrCodeClassBadKey: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseClientMessage(data, nil)
		if err != nil {
			checkRefusal(t, err, codes)
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
			if !isClassType(m.Type) { // FuzzClassMessage checks those
				t.Fatalf("accepted type %q", m.Type)
			}
		}
		checkRoundTrip(t, m)
	})
}

// checkRefusal fails t unless err is a protocol error of one of codes
// whose message the catalogue words.
func checkRefusal(t *testing.T, err error, codes map[string]bool) {
	t.Helper()
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
// decoder: the websocket message decoder, then shapeFile, which builds the
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
		sf, err := shapeFile(m.Search)
		if err != nil {
			var pe *protoError
			if !errors.As(err, &pe) || pe.code != ErrCodeBadSearch {
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
			if m.Search.File == "" && len(pe.fields) == 0 {
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
