package web

import (
	"context"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/view"
)

// page is what a player page shows, rebuilt from the frame messages it
// gets as static/app.js does: panels swapped in by name, the timeline
// patched column by column (view.TimelinePatch).
type page struct {
	panels map[string]string
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
	if tp := m.TimelinePatch; tp != nil {
		p.panels[view.PanelTimeline] = patchTimeline(t, p.panels[view.PanelTimeline], tp)
	}
}

// snapshot is a copy of what the page shows.
func (p *page) snapshot() map[string]string { return maps.Clone(p.panels) }

var (
	currentXAttr = regexp.MustCompile(`data-current-x="\d+"`)
	currentCol   = regexp.MustCompile(`class="col current"`)
)

// patchTimeline applies a patch to a timeline panel's HTML the way the
// page's script applies it to the DOM.
func patchTimeline(t testing.TB, html string, p *view.TimelinePatch) string {
	t.Helper()
	if p.Labels != "" {
		i := strings.Index(html, `<svg class="tl-labels"`)
		j := strings.Index(html[max(i, 0):], "</svg>")
		if i < 0 || j < 0 {
			t.Fatalf("no lane labels in the timeline")
		}
		html = html[:i] + p.Labels + html[i+j+len("</svg>"):]
	}
	for _, c := range p.Cols {
		for layer, inner := range map[string]string{"back": c.Back, "mid": c.Mid, "front": c.Front} {
			l := strings.Index(html, `<g data-layer="`+layer+`">`)
			if l < 0 {
				t.Fatalf("no %s layer in the timeline", layer)
			}
			open := `<g data-c="` + strconv.Itoa(c.Col) + `">`
			g := strings.Index(html[l:], open)
			if g < 0 {
				t.Fatalf("no column %d in the %s layer", c.Col, layer)
			}
			start := l + g + len(open)
			end := start + groupEnd(t, html[start:])
			html = html[:start] + inner + html[end:]
		}
	}
	html = currentCol.ReplaceAllString(html, `class="col"`)
	html = strings.Replace(html, `class="col" data-col="`+strconv.Itoa(p.Cur)+`"`, `class="col current" data-col="`+strconv.Itoa(p.Cur)+`"`, 1)
	return currentXAttr.ReplaceAllString(html, `data-current-x="`+strconv.Itoa(p.CurrentX)+`"`)
}

// groupEnd is the index in s of the </g> that closes a group whose content
// s starts with.
func groupEnd(t testing.TB, s string) int {
	t.Helper()
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "</g>"):
			if depth == 0 {
				return i
			}
			depth--
		case strings.HasPrefix(s[i:], "<g ") || strings.HasPrefix(s[i:], "<g>"):
			depth++
		}
	}
	t.Fatalf("unclosed group")
	return 0
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
// frame with every panel would show.
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
					want, err := v.Panels(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					for name, html := range want {
						if pg.panels[name] != html {
							t.Fatalf("move %d (to step %d): the page's %s panel is not the one a whole frame shows:\n got %s\nwant %s", k, cur, name, pg.panels[name], html)
						}
					}
				}
			})
		}
	}
}
