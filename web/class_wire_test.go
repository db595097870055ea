package web

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/sim"
	"lockstep/view"
)

// followerMsg is what a following student's page reads of a class frame.
type followerMsg struct {
	Step   int                  `json:"step"`
	Chrome map[string]string    `json:"chrome"`
	Panels map[string]string    `json:"panels"`
	Edits  map[string]view.Edit `json:"edits"`
	Patch  *view.TimelinePatch  `json:"timeline_patch"`
}

func classFrame(t testing.TB, srv *Server, l *sim.Lesson, loc sim.Locale, from, to int) ([]byte, followerMsg) {
	t.Helper()
	b, err := srv.classFrameJSON(context.Background(), l, loc, from, to, "ABC")
	if err != nil {
		t.Fatal(err)
	}
	var m followerMsg
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return b, m
}

// TestFollowerEditsReplayLesson plays a whole lesson to a following
// student's page move by move (forward, then back to the start), applying
// each frame's panels and edits as static/app.js does, and compares what the
// page holds at each step with the frame with chrome of that step (the
// timeline aside: it comes as a patch).
func TestFollowerEditsReplayLesson(t *testing.T) {
	t.Parallel()
	be := lessontest.Open(t, backend.Config{})
	srv, err := New(Config{Backend: RedisBackend(be), Lessons: testLessons(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())
	l := srv.byID["stale-owner"]
	last := len(l.Steps) - 1
	var path []int
	for i := 1; i <= last; i++ {
		path = append(path, i)
	}
	for i := last - 1; i >= 0; i-- {
		path = append(path, i)
	}
	path = append(path, last, 2) // a student who missed moves
	for _, loc := range []sim.Locale{"en", "zh-TW"} {
		_, full := classFrame(t, srv, l, loc, -1, 0)
		page := maps.Clone(full.Panels)
		edited := 0
		from := 0
		for _, to := range path {
			_, m := classFrame(t, srv, l, loc, from, to)
			if m.Chrome != nil || m.Step != to {
				t.Fatalf("%s %d→%d: chrome %v, step %d", loc, from, to, m.Chrome != nil, m.Step)
			}
			// The timeline comes as the session's patch (view/delta.go,
			// tested there), never whole or as an edit.
			if m.Patch == nil || m.Patch.Cur != to || m.Panels[view.PanelTimeline] != "" || m.Edits[view.PanelTimeline].Ops != nil {
				t.Fatalf("%s %d→%d: the timeline is not patched to %d", loc, from, to, to)
			}
			maps.Copy(page, m.Panels)
			for name, e := range m.Edits {
				html, ok := e.Apply(page[name])
				if !ok {
					t.Fatalf("%s %d→%d: panel %s: the edit is not for the HTML the page holds", loc, from, to, name)
				}
				page[name] = html
				edited++
			}
			_, want := classFrame(t, srv, l, loc, -1, to)
			for name, html := range want.Panels {
				if name == view.PanelExplore || name == view.PanelTimeline {
					continue // hidden while following; patched
				}
				if page[name] != html {
					t.Errorf("%s %d→%d: panel %s differs from the step's frame with chrome", loc, from, to, name)
				}
			}
			from = to
		}
		if edited == 0 {
			t.Errorf("%s: no frame carried an edit", loc)
		}
	}
}

// BenchmarkFollowerFrameBytes reports what a following student gets per
// move of stale-owner, forward from step 0 to the end, in English: the
// message (B-move, plain: what a page on loopback reads), deflated once as
// gorilla's PreparedMessage does for a peer that compresses (deflate-B-move,
// level 1, no context takeover), and, with -v, each step's panels.
func BenchmarkFollowerFrameBytes(b *testing.B) {
	be := lessontest.Open(b, backend.Config{})
	srv, err := New(Config{Backend: RedisBackend(be), Lessons: testLessons(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close(context.Background())
	l := srv.byID["stale-owner"]
	plain, deflated, moves := 0, 0, 0
	for range b.N {
		for to := 1; to < len(l.Steps); to++ {
			msg, m := classFrame(b, srv, l, "en", to-1, to)
			var z bytes.Buffer
			w, _ := flate.NewWriter(&z, 1)
			_, _ = w.Write(msg)
			_ = w.Close()
			plain, deflated, moves = plain+len(msg), deflated+z.Len(), moves+1
			parts := ""
			for name, html := range m.Panels {
				parts += " " + name + "=" + itoa(len(html))
			}
			for name, e := range m.Edits {
				eb, _ := json.Marshal(e)
				parts += " " + name + "(edit)=" + itoa(len(eb))
			}
			b.Logf("step %d: %d B (deflated %d):%s", to, len(msg), z.Len(), parts)
		}
	}
	b.ReportMetric(float64(plain)/float64(moves), "B-move")
	b.ReportMetric(float64(deflated)/float64(moves), "deflate-B-move")
	b.ReportMetric(0, "ns/op")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// BenchmarkFollowerFrameDraw is the drawing and encoding of one following
// student's frame message (done once per class, language and move, shared
// by the class's students on a server): one op is every forward move of
// stale-owner in English.
func BenchmarkFollowerFrameDraw(b *testing.B) {
	be := lessontest.Open(b, backend.Config{})
	srv, err := New(Config{Backend: RedisBackend(be), Lessons: testLessons(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close(context.Background())
	l := srv.byID["stale-owner"]
	classFrame(b, srv, l, "en", -1, 0) // the lesson's frames cached
	b.ResetTimer()
	for range b.N {
		for to := 1; to < len(l.Steps); to++ {
			classFrame(b, srv, l, "en", to-1, to)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*(len(l.Steps)-1)), "µs-move")
}

// BenchmarkFollowerFrameFields weighs a following student's frame message
// per field over every forward move of every course lesson but those with
// a replica or nodes (the class's lessons, bench/classload), in English:
// B-move is the whole message, and each field's share of it is reported
// (a panel's edit or whole HTML, a timeline patch's layers, the message's
// other fields) as field-B-move; -v logs them largest first.
func BenchmarkFollowerFrameFields(b *testing.B) {
	be := lessontest.Open(b, backend.Config{})
	srv, err := New(Config{Backend: RedisBackend(be), Lessons: lessontest.Course(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close(context.Background())
	sum := map[string]int{}
	total, moves := 0, 0
	add := func(name string, key string, v json.RawMessage) { sum[name] += len(key) + len(v) + 4 } // "key":v,
	for range b.N {
		for _, l := range srv.lessons {
			if l.Replica || l.Nodes > 0 {
				continue
			}
			for to := 1; to < len(l.Steps); to++ {
				msg, err := srv.classFrameJSON(context.Background(), l, "en", to-1, to, "ABC")
				if err != nil {
					b.Fatal(err)
				}
				total, moves = total+len(msg), moves+1
				var m map[string]json.RawMessage
				if err := json.Unmarshal(msg, &m); err != nil {
					b.Fatal(err)
				}
				for k, v := range m {
					switch k {
					case "panels", "edits":
						var p map[string]json.RawMessage
						_ = json.Unmarshal(v, &p)
						for n, x := range p {
							add(k+"."+n, n, x)
						}
					case "timeline_patch":
						var p struct {
							Cols []map[string]json.RawMessage `json:"cols"`
						}
						_ = json.Unmarshal(v, &p)
						for _, c := range p.Cols {
							for n, x := range c {
								add("timeline_patch.cols."+n, n, x)
							}
						}
						var q map[string]json.RawMessage
						_ = json.Unmarshal(v, &q)
						for n, x := range q {
							if n != "cols" {
								add("timeline_patch."+n, n, x)
							}
						}
					default:
						add(k, k, v)
					}
				}
			}
		}
	}
	names := slices.Collect(maps.Keys(sum))
	slices.SortFunc(names, func(a, c string) int { return sum[c] - sum[a] })
	for _, n := range names {
		b.Logf("%-28s %6d B a move, %4.1f%%", n, sum[n]/moves, 100*float64(sum[n])/float64(total))
	}
	b.ReportMetric(float64(total)/float64(moves), "B-move")
	for _, n := range []string{"edits.command", "edits.narration", "edits.diagram", "edits.redis", "timeline_patch.cols.packed", "timeline_patch.cols.back", "timeline_patch.cols.front"} {
		b.ReportMetric(float64(sum[n])/float64(moves), n+"-B-move")
	}
	b.ReportMetric(0, "ns/op")
}
