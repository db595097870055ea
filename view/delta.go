package view

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/a-h/templ"

	"lockstep/templates"
)

// What a session's page shows, and the frame messages that only change it.
//
// A frame message after load, lang, fork or undo (one with chrome) carries
// every panel. Later frames of the same run carry only what changed: a
// panel whose HTML is the one the page already has is left out of
// "panels" (the explore tools, which depend on the run and the language
// only, are not even drawn again), and the timeline comes as a patch (TimelinePatch) of the
// columns that changed, since a past column of a run never changes (it is
// drawn from its step's frame and the one before). A step forward then
// sends one column instead of the whole history. The writer sends a
// session's messages in order and a page applies them in order, so what the
// session last sent is what the page shows; a page that misses one has
// lost its connection, and its next load gets everything again.

// Page is what a session has sent its page since the last frame with
// chrome.
type Page struct {
	panels map[string]string // the last HTML sent of each panel a step can change; nil: nothing known
	tlCur  int               // the step the page's timeline shows
	labels string            // the timeline's lane labels as last sent
}

// TimelinePatch brings the timeline a page shows to the frame's step. The
// page replaces the columns listed, moves the current-step marker to Cur
// and, when Labels is not "", replaces the lane labels.
type TimelinePatch struct {
	Cur      int                   `json:"cur"`
	CurrentX int                   `json:"current_x"` // Cur's left edge, CSS pixels
	Labels   string                `json:"labels,omitempty"`
	Cols     []TimelineColumnPatch `json:"cols"`
}

// TimelineColumnPatch is one column of the timeline, its three layers as
// HTML (templates.TimelineColumnBack, Mid and Front), for the page's
// g[data-c] elements of the layers back, mid and front.
type TimelineColumnPatch struct {
	Col   int    `json:"col"`
	Back  string `json:"back"`
	Mid   string `json:"mid"`
	Front string `json:"front"`
	// Packed holds the layers (by name: back, mid, front) sent as an Edit
	// of "" when that is shorter (Pack), their string field then ""; a
	// following student's frames only.
	Packed map[string]Edit `json:"packed,omitempty"`
}

// Pack sends each of p's columns' layers as an Edit of "" (its runs that
// repeat copied from before, editcopy.go) where that is shorter: a new
// column's SVG repeats its attributes (text-anchor, y, class) from element
// to element, 20% of it over every move of the course. It changes p's
// columns only, never what a Drawings keeps.
func (p *TimelinePatch) Pack() {
	for i := range p.Cols {
		c := &p.Cols[i]
		for _, l := range []struct {
			name string
			html *string
		}{{"back", &c.Back}, {"mid", &c.Mid}, {"front", &c.Front}} {
			if *l.html == "" {
				continue
			}
			if e, _ := EditFrom("", *l.html); jsonLen(e) < jsonLen(*l.html) {
				if c.Packed == nil {
					c.Packed = map[string]Edit{}
				}
				c.Packed[l.name], *l.html = e, ""
			}
		}
	}
}

// framePanels renders what a frame message of the current step carries:
// every panel when the page's state is not known (after a frame with
// chrome), else the panels that changed and the timeline's patch. It
// records what it returns in ps.
func (v *Step) FramePanels(ctx context.Context, ps *Page) (map[string]string, *TimelinePatch, error) {
	if ps.panels == nil {
		panels, err := v.renderPanels(ctx, true)
		if err != nil {
			return nil, nil, err
		}
		labels, err := v.timelineLabels(ctx, v.tlLayout())
		if err != nil {
			return nil, nil, err
		}
		*ps = Page{panels: map[string]string{}, tlCur: v.cur, labels: labels}
		for _, name := range stepPanels {
			ps.panels[name] = panels[name]
		}
		return panels, nil, nil
	}
	patch, err := v.timelinePatch(ctx, ps)
	if err != nil {
		return nil, nil, err
	}
	panels, err := v.renderPanels(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	for name, html := range panels {
		if ps.panels[name] == html {
			delete(panels, name)
			continue
		}
		ps.panels[name] = html
	}
	return panels, patch, nil
}

// timelinePatch is the patch from the timeline at step ps.tlCur to the
// current one: the columns between the two change from future to past or
// back. A column is drawn afresh each time (a few µs) unless the Step's
// Drawings keep it (a course lesson's canonical run, shared by every
// session): keeping them per session would hold a timeline's whole
// history per session.
func (v *Step) timelinePatch(ctx context.Context, ps *Page) (*TimelinePatch, error) {
	lay := v.tlLayout()
	p := &TimelinePatch{Cur: v.cur, CurrentX: v.cur * TimelineColumnWidth, Cols: []TimelineColumnPatch{}}
	labels, err := v.timelineLabels(ctx, lay)
	if err != nil {
		return nil, err
	}
	if labels != ps.labels {
		p.Labels, ps.labels = labels, labels
	}
	for i := min(ps.tlCur, v.cur) + 1; i <= max(ps.tlCur, v.cur); i++ {
		cp, err := v.timelineColumn(ctx, lay, i)
		if err != nil {
			return nil, err
		}
		p.Cols = append(p.Cols, cp)
	}
	ps.tlCur = v.cur
	return p, nil
}

// timelineLabels is the timeline's lane labels at the current step.
func (v *Step) timelineLabels(ctx context.Context, lay tlLayout) (string, error) {
	draw := func() (string, error) {
		labels, err := Render(ctx, templates.TimelineLabels(v.timelineFrame(lay)))
		if err != nil {
			return "", fmt.Errorf("view: render timeline labels: %w", err)
		}
		return labels, nil
	}
	if v.drawn == nil {
		return draw()
	}
	return v.drawn.Labels(draw)
}

// timelineColumn is column i of the timeline, past or future as the current
// step makes it, without the current-step marker (the page moves it).
func (v *Step) timelineColumn(ctx context.Context, lay tlLayout, i int) (TimelineColumnPatch, error) {
	draw := func() (TimelineColumnPatch, error) { return v.drawTimelineColumn(ctx, lay, i) }
	if v.drawn == nil {
		return draw()
	}
	return v.drawn.Column(i, i <= v.cur, draw)
}

// drawTimelineColumn draws column i as timelineColumn returns it.
func (v *Step) drawTimelineColumn(ctx context.Context, lay tlLayout, i int) (TimelineColumnPatch, error) {
	c := v.tlColumn(lay, i)
	c.Current = false
	cp := TimelineColumnPatch{Col: i}
	var err error
	if cp.Back, err = Render(ctx, templates.TimelineColumnBack(c)); err == nil {
		if cp.Mid, err = Render(ctx, templates.TimelineColumnMid(c)); err == nil {
			cp.Front, err = Render(ctx, templates.TimelineColumnFront(c))
		}
	}
	if err != nil {
		return cp, fmt.Errorf("view: render timeline column %d: %w", i, err)
	}
	return cp, nil
}

// jsonLen is the length of v in JSON as a frame message carries it (HTML
// not escaped); a large number when it cannot be encoded.
func jsonLen(v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return math.MaxInt
	}
	return b.Len()
}

// Render renders one component to a string.
func Render(ctx context.Context, c templ.Component) (string, error) {
	var b strings.Builder
	err := c.Render(ctx, &b)
	return b.String(), err
}
