package web

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"lockstep/backend"
	"lockstep/sim"
)

// sameJSON fails unless a and b are the same JSON value.
func sameJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v in %s", what, err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v in %s", what, err, b)
	}
	if !reflect.DeepEqual(va, vb) {
		t.Fatalf("%s: the two encodings differ:\n%s\n%s", what, a, b)
	}
}

// TestEncodeFrameIsEncodeMessage checks that every frame message of every
// lesson, forward and with chrome, whole and as a delta, shared or not, in
// every language, encodes to the same JSON value as encoding/json gives,
// and that only shared panels' HTML is kept quoted.
func TestEncodeFrameIsEncodeMessage(t *testing.T) {
	be, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ctx := context.Background()
	all := testLessons(t)
	type run struct {
		shared bool
		prefix string // a real Redis run's key prefix: its Redis panel is its own
	}
	for _, r := range []run{{false, ""}, {true, ""}, {true, "lockstep:test1:"}} {
		shared := r.shared
		for _, loc := range []sim.Locale{sim.English, sim.SimplifiedChinese, sim.TraditionalChinese} {
			tr := tr(loc)
			for _, l := range all {
				if l.Replica {
					continue
				}
				frames := expectedFrames(t, l)
				var ps pageState
				quotedHTML.emptyForTest()
				for i := range frames {
					v := &view{t: tr, lesson: l, frames: frames[:i+1], cur: i, info: be.Info(), shared: shared, prefix: r.prefix}
					chrome := i == 0 || i == len(frames)/2
					if chrome {
						ps = pageState{}
					}
					panels, patch, err := v.framePanels(ctx, &ps)
					if err != nil {
						t.Fatal(err)
					}
					msg := FrameMessage{Type: MsgFrame, Re: int64(i), Lesson: l.ID, Step: i, Total: len(frames) - 1, Lang: string(loc),
						Title: "«" + l.ID + "» & <b>\"x\"</b>", URL: "/lessons/" + l.ID + "?step=1&lang=" + string(loc), Frame: frames[i], Panels: panels, TimelinePatch: patch}
					if chrome {
						msg.Chrome = map[string]string{"header": `<div class="a">&amp; "q"</div>`}
						msg.Timeline = "1.abc"
					}
					want, err := encodeMessage(msg)
					if err != nil {
						t.Fatal(err)
					}
					got, err := encodeFrame(msg, v.sharedPanel)
					if err != nil {
						t.Fatal(err)
					}
					sameJSON(t, l.ID, got, want)
					// The same members, escaped alike, in another order: a
					// member twice (a field of FrameMessage not hidden by
					// frameHead) or other escaping would change the length.
					if len(got) != len(want) {
						t.Fatalf("%s step %d: %d bytes, encoding/json's %d", l.ID, i, len(got), len(want))
					}
					// Again, now from the kept texts.
					again, err := encodeFrame(msg, v.sharedPanel)
					if err != nil {
						t.Fatal(err)
					}
					if string(again) != string(got) {
						t.Fatalf("%s step %d: a second encoding differs", l.ID, i)
					}
					n := 0
					quotedHTML.m.Range(func(_, _ any) bool { n++; return true })
					if !shared && n != 0 {
						t.Fatalf("%s step %d: %d texts kept for panels no one shares", l.ID, i, n)
					}
					if shared && n == 0 && len(panels) > 1 {
						t.Fatalf("%s step %d: no text kept for %d shared panels", l.ID, i, len(panels))
					}
					// Never kept: the whole timeline and the explore tools
					// (drawn per load), and a run's own Redis panel.
					for _, name := range []string{panelTimeline, panelTools, panelRedis} {
						if name == panelRedis && r.prefix == "" {
							continue
						}
						if html, ok := panels[name]; ok {
							if _, kept := quotedHTML.Load(html); kept {
								t.Fatalf("%s step %d (prefix %q): the %s panel's text is kept", l.ID, i, r.prefix, name)
							}
						}
					}
				}
			}
		}
	}
	// A message without panels, and one with an empty set of panels.
	for _, msg := range []FrameMessage{{Type: MsgFrame}, {Type: MsgFrame, Panels: map[string]string{}}} {
		want, _ := encodeMessage(msg)
		got, err := encodeFrame(msg, func(string) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, "no panels", got, want)
	}
}
