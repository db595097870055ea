package web

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// holderScriptLesson has the lock's holder run the long script itself: the
// renewal its own script holds up is drawn on the same lane as the script.
const holderScriptLesson = `id: holder-script
title: {en: "The holder's own long script", zh-CN: "持有者自己的长脚本", zh-TW: "持有者自己的長腳本"}
variant: watchdog
lease: 30s
lock: order:42
actors: [{id: A}, {id: B}]
steps:
  - {actor: A, do: acquire, expect: ACQUIRED}
  - {do: advance, by: 18s}
  - {actor: A, do: long-script, by: 25s}
  - {actor: B, do: acquire, expect: ACQUIRED, expect_violation: overlapping-holders}
`

// chipLessons are the test lessons and holderScriptLesson.
func chipLessons(t *testing.T) []*sim.Lesson {
	t.Helper()
	l, err := sim.Load("holder-script.yaml", []byte(holderScriptLesson))
	if err != nil {
		t.Fatal(err)
	}
	return append(testLessons(t), l)
}

// chipBox is a rectangle of the timeline body.
type chipBox struct {
	x, y, w, h int
	class      string
}

func (a chipBox) overlaps(b chipBox) bool {
	return a.x < b.x+b.w && b.x < a.x+a.w && a.y < b.y+b.h && b.y < a.y+a.h
}

func (a chipBox) holds(x, y int) bool { return x >= a.x && x <= a.x+a.w && y >= a.y && y <= a.y+a.h }

func isChip(class string) bool { return slices.Contains(strings.Fields(class), "chip") }

// TestTimelineStackedChips: in every column of every lesson's timeline, run
// to the end, no two chips overlap, every chip and belief bar lies inside
// its lane, and every chip text sits in exactly one chip. When the holder
// runs the long script itself, its lane shows the script's chip and its
// renewal's chip (SCRIPT_BUSY), one above the other, in the player's view
// model and in the exported SVG.
func TestTimelineStackedChips(t *testing.T) {
	t.Parallel()
	for _, l := range chipLessons(t) {
		frames := expectedFrames(t, l)
		info := backend.Info{Embedded: true}
		v := view.New(view.Input{Texts: tr(sim.English), Lesson: l, Frames: frames, Cur: len(frames) - 1, Info: info})
		tv := v.Timeline()
		for _, c := range tv.Columns {
			var chips []chipBox
			for _, r := range c.Rects {
				if isChip(r.Class) {
					chips = append(chips, chipBox{r.X, r.Y, r.W, r.H, r.Class})
				}
			}
			checkChips(t, fmt.Sprintf("%s column %d", l.ID, c.Step), chips)
			for _, r := range c.Rects {
				if !isChip(r.Class) && !slices.Contains(strings.Fields(r.Class), "belief") {
					continue
				}
				if ln, ok := laneAt(tv.Lanes, r.Y); !ok || r.Y+r.H > ln.Y+ln.H {
					t.Errorf("%s column %d: %s at y %d..%d is not inside one lane", l.ID, c.Step, r.Class, r.Y, r.Y+r.H)
				}
				for _, ch := range chips {
					if !isChip(r.Class) && ch.overlaps(chipBox{r.X, r.Y, r.W, r.H, r.Class}) {
						t.Errorf("%s column %d: %s overlaps chip %s", l.ID, c.Step, r.Class, ch.class)
					}
				}
			}
			for _, x := range c.Texts {
				if !strings.HasPrefix(x.Class, "chip-") {
					continue
				}
				n := 0
				for _, ch := range chips {
					if ch.holds(x.X, x.Y) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%s column %d: chip text %q at (%d, %d) is in %d chips, want 1", l.ID, c.Step, x.Text, x.X, x.Y, n)
				}
			}
		}
		if l.ID == "long-script-blocks" {
			// R runs the script holding nothing: no lane needs a second row.
			for _, ln := range tv.Lanes {
				if ln.Kind == "actor" && ln.H != tv.Lanes[0].H {
					t.Errorf("long-script-blocks: lane %s is %d px high, lane %s %d px", ln.ID, ln.H, tv.Lanes[0].ID, tv.Lanes[0].H)
				}
			}
		}
		if l.ID != "holder-script" {
			continue
		}
		col := tv.Columns[3]
		byClass := map[string]templates.TLRect{}
		for _, r := range col.Rects {
			if isChip(r.Class) {
				byClass[r.Class] = r
			}
		}
		script, sok := byClass["chip act-long-script"]
		renew, rok := byClass["chip act-renew"]
		if len(byClass) != 2 || !sok || !rok {
			t.Fatalf("holder-script column 3 chips %v, want the script's and the renewal's", byClass)
		}
		if la, _ := laneAt(tv.Lanes, script.Y); la.ID != "A" || script.Y+script.H > renew.Y {
			t.Errorf("script chip %v (lane %s), renewal chip %v: want both on A's lane, the script's above", script, la.ID, renew)
		}
		if la, _ := laneAt(tv.Lanes, renew.Y); la.ID != "A" {
			t.Errorf("renewal chip %v is on lane %s, want A", renew, la.ID)
		}
		var outcomes []string
		for _, x := range col.Texts {
			if x.Class == "chip-outcome oc-bad" || x.Class == "chip-outcome oc-warn" {
				outcomes = append(outcomes, x.Text)
			}
		}
		if !slices.Contains(outcomes, string(sim.ScriptBusy)) {
			t.Errorf("holder-script column 3 chip outcomes %q: no %s", outcomes, sim.ScriptBusy)
		}
		b, err := view.TimelineSVG(tr(sim.English), l, frames, info)
		if err != nil {
			t.Fatal(err)
		}
		svgChips := svgRects(t, b, isChip)
		if len(svgChips) != len(chipsOf(tv)) {
			t.Errorf("the SVG has %d chips, the view model %d", len(svgChips), len(chipsOf(tv)))
		}
		checkChips(t, "holder-script SVG", svgChips)
	}
}

// checkChips fails the test for each pair of chips that overlap.
func checkChips(t *testing.T, where string, chips []chipBox) {
	t.Helper()
	for i := range chips {
		for j := i + 1; j < len(chips); j++ {
			if chips[i].overlaps(chips[j]) {
				t.Errorf("%s: chip %s %v overlaps chip %s %v", where, chips[i].class, chips[i], chips[j].class, chips[j])
			}
		}
	}
}

func laneAt(lanes []templates.TLLane, y int) (templates.TLLane, bool) {
	for _, ln := range lanes {
		if y >= ln.Y && y < ln.Y+ln.H {
			return ln, true
		}
	}
	return templates.TLLane{}, false
}

func chipsOf(tv templates.TimelineView) []templates.TLRect {
	var out []templates.TLRect
	for _, r := range tv.AllRects() {
		if isChip(r.Class) {
			out = append(out, r)
		}
	}
	return out
}

// svgRects are the <rect> elements of an SVG document whose class keep
// accepts.
func svgRects(t *testing.T, b []byte, keep func(class string) bool) []chipBox {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var out []chipBox
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "rect" {
			continue
		}
		var r chipBox
		for _, a := range se.Attr {
			n, _ := strconv.Atoi(a.Value)
			switch a.Name.Local {
			case "class":
				r.class = a.Value
			case "x":
				r.x = n
			case "y":
				r.y = n
			case "width":
				r.w = n
			case "height":
				r.h = n
			}
		}
		if keep(r.class) {
			out = append(out, r)
		}
	}
}

// TestTimelineGlyphsHaveFont: every symbol the timeline draws (a mark such
// as ↻ or ✕, in every lesson, in English) is in a font installed here
// (fc-list, the fonts `make deps` installs), so none shows as an empty chipBox.
func TestTimelineGlyphsHaveFont(t *testing.T) {
	t.Parallel()
	fcList, err := exec.LookPath("fc-list")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("fc-list is not installed (make deps installs fontconfig)")
		}
		t.Skip("fc-list is not installed (make deps installs fontconfig)")
	}
	seen := map[rune]string{}
	for _, l := range chipLessons(t) {
		frames := expectedFrames(t, l)
		v := view.New(view.Input{Texts: tr(sim.English), Lesson: l, Frames: frames, Cur: len(frames) - 1, Info: backend.Info{Embedded: true}})
		for _, x := range v.Timeline().AllTexts() {
			for _, r := range x.Text {
				if r > unicode.MaxASCII && !unicode.IsLetter(r) && !unicode.IsSpace(r) {
					if _, ok := seen[r]; !ok {
						seen[r] = l.ID + ": " + x.Text
					}
				}
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("the timelines draw no symbol at all")
	}
	for r, where := range seen {
		out, err := exec.Command(fcList, fmt.Sprintf(":charset=%x", r), "family").Output()
		if err != nil {
			t.Fatalf("fc-list: %v", err)
		}
		if len(bytes.TrimSpace(out)) == 0 {
			t.Errorf("no installed font has %q (U+%04X), drawn in %s", r, r, where)
		}
	}
}
