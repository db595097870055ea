package web

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"lockstep/catalog"
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
	codes := map[string]bool{ErrCodeBadJSON: true, ErrCodeUnknownType: true, ErrCodeBadField: true, ErrCodeUnknownLang: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseClientMessage(data, nil)
		if err != nil {
			var pe *protoError
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, not a protocol error: %v", err, err)
			}
			if text := tr(sim.English).Msg(pe.msg); !codes[pe.code] || !strings.HasPrefix(pe.msg.ID, "ws.") || strings.Contains(text, catalog.Missing) {
				t.Fatalf("error code %q message %v (%q)", pe.code, pe.msg, text)
			}
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
		case MsgStep, MsgBack, MsgPause, MsgUndo:
		default:
			t.Fatalf("accepted type %q", m.Type)
		}
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
	})
}
