package web

import (
	"context"
	"testing"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/view"
)

// BenchmarkFrameForward is the web layer's share of a step forward: the
// frame message of step i after the page showed step i-1 (the panels that
// changed and the timeline's patch), built and encoded as a session does,
// over every step of the course. ns/op is per step; B/op is the message's
// allocations.
func BenchmarkFrameForward(b *testing.B) {
	be, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		b.Fatal(err)
	}
	info := be.Info()
	type run struct {
		l      *sim.Lesson
		frames []sim.Frame
	}
	var runs []run
	for _, l := range testLessons(b) {
		if l.Replica || l.Nodes > 0 {
			continue
		}
		runs = append(runs, run{l, expectedFrames(b, l)})
	}
	ctx := context.Background()
	t := tr(sim.English)
	bytes := 0
	b.ResetTimer()
	for n := 0; n < b.N; {
		for _, r := range runs {
			var ps view.Page
			v := view.New(view.Input{Texts: t, Lesson: r.l, Frames: r.frames[:1], Cur: 0, Info: info})
			if _, _, err := v.FramePanels(ctx, &ps); err != nil {
				b.Fatal(err)
			}
			for i := 1; i < len(r.frames) && n < b.N; i++ {
				v := view.New(view.Input{Texts: t, Lesson: r.l, Frames: r.frames[:i+1], Cur: i, Info: info})
				panels, patch, err := v.FramePanels(ctx, &ps)
				if err != nil {
					b.Fatal(err)
				}
				data, err := encodeMessage(FrameMessage{Type: MsgFrame, Step: i, Frame: r.frames[i], Panels: panels, TimelinePatch: patch})
				if err != nil {
					b.Fatal(err)
				}
				bytes += len(data)
				n++
			}
		}
	}
	b.ReportMetric(float64(bytes)/float64(b.N), "msg-bytes")
}
