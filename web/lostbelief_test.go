package web

import (
	"path/filepath"
	"testing"

	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// TestLostBeliefDrawn: a belief a renewal ended (the touch lock's extend
// answering LOST, examples/variants/touch.lesson.yaml step 8) is drawn on
// its actor's lane: in step 8's column, A's belief row has the short bar
// of the belief that ended and the "lost" mark, in every language, with
// no belief bar after it; no other column of A's lane has them.
func TestLostBeliefDrawn(t *testing.T) {
	t.Parallel()
	l, err := sim.LoadFile(filepath.Join("..", "examples", "variants", "touch.lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	frames := expectedFrames(t, l)
	const step = 8
	for _, loc := range sim.Locales {
		v := view.New(view.Input{Texts: tr(loc), Lesson: l, Frames: frames, Cur: len(frames) - 1})
		tl := v.Timeline()
		var lane templates.TLLane
		for _, ln := range tl.Lanes {
			if ln.ID == "A" {
				lane = ln
			}
		}
		in := func(x, y int, col int) bool {
			return y >= lane.Y && y < lane.Y+lane.H && x >= col*view.TimelineColumnWidth && x < (col+1)*view.TimelineColumnWidth
		}
		for col, c := range tl.Columns {
			bars, lost, marks := 0, 0, 0
			for _, r := range c.Rects {
				switch {
				case !in(r.X, r.Y, col):
				case r.Class == "belief lost":
					lost++
					if r.W >= view.TimelineColumnWidth/2 || r.Title == "" {
						t.Errorf("%s: column %d: the lost belief's bar %+v runs on or has no title", loc, col, r)
					}
				case r.Class == "belief" || r.Class == "belief stale":
					bars++
				}
			}
			for _, x := range c.Texts {
				if x.Class == "belief-lost" && in(x.X, x.Y, col) {
					marks++
					if x.Text == "" || x.Title == "" {
						t.Errorf("%s: column %d: lost mark %+v", loc, col, x)
					}
				}
			}
			if want := col == step; (lost == 1 && marks == 1) != want || (lost+marks > 0 && !want) {
				t.Errorf("%s: column %d: %d lost bars, %d marks", loc, col, lost, marks)
			}
			if col >= step && bars > 0 {
				t.Errorf("%s: column %d: A's belief still drawn after its renewal answered LOST", loc, col)
			}
			if col >= 1 && col < step && bars == 0 {
				t.Errorf("%s: column %d: A's belief not drawn before it was lost", loc, col)
			}
		}
	}
}
