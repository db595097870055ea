package web

import (
	"context"
	"maps"
	"strconv"
	"testing"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/view"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// page is what a player page shows, rebuilt from the frame messages it
// gets as static/app.js does: panels swapped in by name, the timeline
// patched column by column (view.TimelinePatch) on its parsed DOM. The
// timeline is kept as the browser holds it, parsed and rendered again
// (shownPanels), so a patched timeline compares with one sent whole; the
// other panels are kept as sent.
type page struct {
	panels map[string]string
	// timeline is the timeline panel's region, parsed, which patches
	// change in place.
	timeline *html.Node
}

// apply puts a frame message on the page.
func (p *page) apply(t testing.TB, m serverMsg) {
	t.Helper()
	if p.panels == nil {
		p.panels = map[string]string{}
	}
	if m.Chrome != nil {
		for _, name := range allPanels {
			if _, ok := m.Panels[name]; !ok {
				t.Fatalf("frame with chrome at step %d lacks the %s panel", m.Step, name)
			}
		}
	}
	if m.Chrome != nil && m.TimelinePatch != nil {
		t.Fatalf("frame with chrome at step %d has a timeline patch", m.Step)
	}
	if _, full := m.Panels[view.PanelTimeline]; full && m.TimelinePatch != nil {
		t.Fatalf("frame at step %d has both a timeline and a patch", m.Step)
	}
	maps.Copy(p.panels, m.Panels)
	delete(p.panels, view.PanelTimeline)
	if tl, ok := m.Panels[view.PanelTimeline]; ok {
		p.timeline = parseRegion(t, tl)
	}
	if tp := m.TimelinePatch; tp != nil {
		if p.timeline == nil {
			t.Fatalf("a timeline patch at step %d before any timeline", m.Step)
		}
		patchTimeline(t, p.timeline, tp)
	}
}

// snapshot is a copy of what the page shows, the timeline rendered from
// its DOM.
func (p *page) snapshot(t testing.TB) map[string]string {
	t.Helper()
	out := maps.Clone(p.panels)
	if p.timeline != nil {
		out[view.PanelTimeline] = innerHTML(t, p.timeline)
	}
	return out
}

// shows reports whether the page's panel name is markup: the timeline
// compared as parsed trees, the others as sent.
func (p *page) shows(t testing.TB, name, markup string) bool {
	t.Helper()
	if name != view.PanelTimeline {
		got, ok := p.panels[name]
		return ok && got == markup
	}
	return p.showsTimeline(parseRegion(t, markup))
}

// showsTimeline reports whether the page's timeline is the tree of a
// timeline panel's region (parseRegion).
func (p *page) showsTimeline(region *html.Node) bool {
	return p.timeline != nil && sameTree(p.timeline, region)
}

// parseRegion parses a panel's HTML as the content of its region.
func parseRegion(t testing.TB, markup string) *html.Node {
	t.Helper()
	region := &html.Node{Type: html.ElementNode, Data: panelRegion.Data, DataAtom: panelRegion.DataAtom}
	for _, n := range parseFragment(t, markup, panelRegion) {
		region.AppendChild(n)
	}
	return region
}

// panelRegion is the element a panel's HTML goes into (a data-panel
// region), for parsing the panel as its content.
var panelRegion = &html.Node{Type: html.ElementNode, Data: "section", DataAtom: atom.Section}

// shownPanel is a panel's HTML as the page holds it: parsed as the content
// of its region and rendered again.
func shownPanel(t testing.TB, markup string) string {
	t.Helper()
	return fragmentHTML(t, markup, panelRegion)
}

// shownPanels is panels as the page keeps them: the timeline as
// shownPanel, the others as they are.
func shownPanels(t testing.TB, panels map[string]string) map[string]string {
	t.Helper()
	out := maps.Clone(panels)
	if tl, ok := panels[view.PanelTimeline]; ok {
		out[view.PanelTimeline] = shownPanel(t, tl)
	}
	return out
}

// patchTimeline applies a patch to a timeline panel's region (parsed) the
// way the page's script (static/player.js, patchTimeline) does: the lane
// labels replaced, each column's three layers refilled, the current-step
// marker moved. It fails the test where the panel lacks what the patch
// names.
func patchTimeline(t testing.TB, region *html.Node, p *view.TimelinePatch) {
	t.Helper()
	tl := dom{dom{region}.one(t, "timeline", withClass("tl"))}
	if p.Labels != "" {
		labels := tl.all(withClass("tl-labels"))
		if len(labels) == 0 {
			t.Fatalf("no lane labels in the timeline")
		}
		replaceWith(t, labels[0], p.Labels)
	}
	layers := map[string]*html.Node{}
	for _, layer := range []string{"back", "mid", "front"} {
		l := tl.all(withAttr("data-layer", layer))
		if len(l) == 0 {
			t.Fatalf("no %s layer in the timeline", layer)
		}
		layers[layer] = l[0]
	}
	for _, c := range p.Cols {
		for layer, inner := range map[string]string{"back": c.Back, "mid": c.Mid, "front": c.Front} {
			g := childWith(layers[layer], withAttr("data-c", strconv.Itoa(c.Col)))
			if g == nil {
				t.Fatalf("no column %d in the %s layer", c.Col, layer)
			}
			setInner(t, g, inner)
		}
	}
	for _, col := range tl.all(and(withClass("col"), withClass("current"))) {
		setClass(col, "current", false)
	}
	if cur := tl.all(and(withClass("col"), withAttr("data-col", strconv.Itoa(p.Cur)))); len(cur) > 0 {
		setClass(cur[0], "current", true)
	}
	setAttr(tl.root, "data-current-x", strconv.Itoa(p.CurrentX))
}

// fullTimeline renders lesson l's whole timeline at step cur, as a frame
// with chrome carries it.
func fullTimeline(t testing.TB, srv *Server, l *sim.Lesson, frames []sim.Frame, cur int, loc sim.Locale) string {
	t.Helper()
	v := view.New(view.Input{Texts: tr(loc), Lesson: l, Frames: frames[:cur+1], Cur: cur, Info: srv.cfg.Backend.Info()})
	panels, err := v.Panels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return panels[view.PanelTimeline]
}

// TestTimelinePatchesEveryLesson moves through every lesson in every
// language, step by step forward, then back, then by jumps, building each
// frame as a session does: at every move the page rebuilt from what was
// sent (the panels that changed, the timeline patched) is exactly what a
// frame with every panel would show. That whole frame is drawn and parsed
// once per step, not once per move: the path comes to most steps two or
// three times, and a step's whole frame is the same each time (view.Step
// depends only on its input). Each whole frame is also checked on its own
// (checkWholePanels: escaped lesson text, the diagram's state, a timeline
// column per step), so every panel of every step of every lesson in every
// language is drawn once for both checks.
func TestTimelinePatchesEveryLesson(t *testing.T) {
	t.Parallel()
	be, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		t.Fatal(err)
	}
	info := be.Info()
	for _, l := range testLessons(t) {
		frames := expectedFrames(t, l)
		n := len(frames) - 1
		var path []int
		for i := 0; i <= n; i++ {
			path = append(path, i)
		}
		for i := n - 1; i >= 0; i-- {
			path = append(path, i)
		}
		path = append(path, n, 0, n/2, n/2, 1, n, n/3, 2*n/3, 0)
		for _, loc := range sim.Locales {
			t.Run(l.ID+"/"+string(loc), func(t *testing.T) {
				t.Parallel()
				type wholeFrame struct {
					panels   map[string]string
					timeline *html.Node // panels' timeline, parsed as the page holds it
				}
				whole := map[int]wholeFrame{}
				var ps view.Page
				var pg page
				for k, cur := range path {
					v := view.New(view.Input{Texts: tr(loc), Lesson: l, Frames: frames[:cur+1], Cur: cur, Info: info})
					panels, patch, err := v.FramePanels(context.Background(), &ps)
					if err != nil {
						t.Fatal(err)
					}
					m := serverMsg{Step: cur, Panels: panels, TimelinePatch: patch}
					if k == 0 {
						m.Chrome = map[string]string{chromeHeader: "…"}
					}
					pg.apply(t, m)
					want, ok := whole[cur]
					if !ok {
						if want.panels, err = v.Panels(context.Background()); err != nil {
							t.Fatal(err)
						}
						want.timeline = parseRegion(t, want.panels[view.PanelTimeline])
						checkWholePanels(t, l, frames, cur, want.panels, v)
						whole[cur] = want
					}
					for name, markup := range want.panels {
						if name == view.PanelTimeline && !pg.showsTimeline(want.timeline) || name != view.PanelTimeline && !pg.shows(t, name, markup) {
							t.Fatalf("move %d (to step %d): the page's %s panel is not the one a whole frame shows:\n got %s\nwant %s", k, cur, name, pg.snapshot(t)[name], shownPanel(t, markup))
						}
					}
				}
			})
		}
	}
}
