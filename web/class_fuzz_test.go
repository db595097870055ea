package web

import (
	"strings"
	"testing"

	"lockstep/classroom"
	"lockstep/sim"
)

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
	codes := map[string]bool{ErrCodeBadJSON: true, ErrCodeUnknownType: true, ErrCodeBadField: true, ErrCodeUnknownLang: true, ErrCodeClassBadKey: true}
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
			checkRefusal(t, err, codes)
			return
		}
		if !isClassType(m.Type) {
			return // FuzzParseClientMessage's
		}
		if len(strings.TrimSpace(string(data))) > maxClassMessage {
			t.Fatalf("accepted a class message of %d bytes", len(data))
		}
		switch m.Type {
		case MsgClassResume, MsgClassJoin:
			if c, err := classroom.ParseCode(m.Code); err != nil || c != m.Code {
				t.Fatalf("accepted code %q", m.Code)
			}
			if m.Type == MsgClassResume && !classroom.ValidID(m.Key) {
				t.Fatalf("accepted key %q", m.Key)
			}
			if m.Type == MsgClassJoin && ((m.Student != "" && !classroom.ValidID(m.Student)) || (m.Lang != "" && !sim.ValidLocale(m.Lang))) {
				t.Fatalf("accepted a bad join: %+v", m)
			}
		case MsgClassAnswer:
			if m.Step == nil || *m.Step < 1 || m.Choice == "" || len(m.Choice) > classroom.MaxChoiceLen {
				t.Fatalf("accepted a bad answer: %+v", m)
			}
		case MsgClassFollow:
			if m.Follow == nil {
				t.Fatalf("accepted a follow without follow")
			}
		}
		checkRoundTrip(t, m)
	})
}
