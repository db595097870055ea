package view

import (
	"context"
	"fmt"
	"slices"

	"github.com/a-h/templ"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/templates"
)

// Texts is what the view models need of the message catalogue: the
// messages of one locale. Missing messages come back as their id from T and
// as "" from Maybe.
type Texts interface {
	Locale() sim.Locale
	T(id string, kv ...any) string
	Maybe(id string, kv ...any) string
	UI() templates.UI
	Interview() templates.Interview
	Explore() templates.Explore
	// Msg renders a message code of package sim, drill or explore.
	Msg(m sim.Msg) string
}

// Input is what the panels of one moment of a run are built from.
type Input struct {
	Texts   Texts
	Lesson  *sim.Lesson
	Frames  []sim.Frame // the run's frames up to Cur (more are ignored)
	Cur     int         // the step shown
	Info    backend.Info
	Prefix  string       // the run's key prefix on a real Redis
	Explore ExploreState // set for an explore timeline
	// Drawn, when set, keeps the drawings of this step for other runs that
	// show the same step (see Drawings); nil: the Step draws everything.
	Drawn Drawings
}

// Step is one moment of a run as the player shows it. It depends only on
// its Input, so stepping back or seeking renders exactly what stepping
// forward did; it does no I/O.
type Step struct {
	t      Texts
	lesson *sim.Lesson
	frames []sim.Frame // frames[0..cur]
	cur    int
	info   backend.Info
	prefix string
	tl     ExploreState
	drawn  Drawings
}

// New returns the Step of in. Frames must reach in.Cur.
func New(in Input) *Step {
	return &Step{t: in.Texts, lesson: in.Lesson, frames: in.Frames[:in.Cur+1], cur: in.Cur, info: in.Info, prefix: in.Prefix, tl: in.Explore, drawn: in.Drawn}
}

func (v *Step) frame() sim.Frame { return v.frames[v.cur] }

func (v *Step) prev() *sim.Frame {
	if v.cur == 0 {
		return nil
	}
	return &v.frames[v.cur-1]
}

func (v *Step) total() int { return len(v.lesson.Steps) }

// Panel names, the keys of a frame message's panels and chrome, and the
// data-panel / data-chrome attributes of the page's regions.
const (
	PanelAlerts    = "alerts"
	PanelNarration = "narration"
	PanelDiagram   = "diagram"
	PanelTimeline  = "timeline"
	PanelRedis     = "redis"
	PanelCommand   = "command"
	PanelExplore   = "explore"
	PanelTools     = "explore-tools"
)

// Panels renders every panel of the current step as HTML, by panel name.
func (v *Step) Panels(ctx context.Context) (map[string]string, error) {
	return v.renderPanels(ctx, true)
}

// renderPanels renders the panels; all of them when whole, else the panels
// a step can change: not the timeline (a step sends a patch of it instead:
// delta.go) nor the explore tools (they depend on the run and the language
// only, which only a frame with chrome changes).
func (v *Step) renderPanels(ctx context.Context, whole bool) (map[string]string, error) {
	names := stepPanels
	if whole {
		names = append(slices.Clone(stepPanels), PanelTimeline, PanelTools)
	}
	out := make(map[string]string, len(names))
	for _, name := range names {
		html, err := v.keptPanel(name, func() (string, error) {
			c, err := v.panel(name)
			if err != nil {
				return "", err
			}
			return Render(ctx, c)
		})
		if err != nil {
			return nil, fmt.Errorf("view: render %s: %w", name, err)
		}
		out[name] = html
	}
	return out, nil
}

// panel returns the templ component of the panel called name, drawn from
// its view model; an unknown name is an error.
func (v *Step) panel(name string) (templ.Component, error) {
	switch name {
	case PanelAlerts:
		return templates.AlertsPanel(v.Alerts()), nil
	case PanelNarration:
		return templates.NarrationPanel(v.Narration()), nil
	case PanelDiagram:
		return templates.DiagramPanel(v.Diagram()), nil
	case PanelRedis:
		return templates.RedisPanel(v.Redis()), nil
	case PanelCommand:
		return templates.CommandPanel(v.Command()), nil
	case PanelExplore:
		return templates.ExplorePanel(v.ExplorePanel()), nil
	case PanelTimeline:
		return templates.TimelinePanel(v.Timeline()), nil
	case PanelTools:
		return templates.ExploreToolsPanel(v.ExploreTools()), nil
	}
	return nil, fmt.Errorf("view: %q is not a panel", name)
}

// stepPanels are the panels a step can change (all but the timeline and the
// explore tools).
var stepPanels = []string{PanelAlerts, PanelNarration, PanelDiagram, PanelRedis, PanelCommand, PanelExplore}

func RenderAll(ctx context.Context, comps map[string]templ.Component) (map[string]string, error) {
	out := make(map[string]string, len(comps))
	for name, c := range comps {
		html, err := Render(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("view: render %s: %w", name, err)
		}
		out[name] = html
	}
	return out, nil
}
