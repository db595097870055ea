package web

import (
	"context"

	"github.com/a-h/templ"

	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// followerFrame is the frame message a following student gets: a
// FrameMessage whose frame holds only its outcome, the one field of the raw
// frame a page reads (predict mode's verdict, static/predict.js); the rest
// (keys, calls, actors: 1.3 to 2.3 KiB a step) the panels draw already.
type followerFrame struct {
	FrameMessage
	// Frame shadows FrameMessage.Frame (encoding/json takes the shallower
	// field).
	Frame followerOutcome `json:"frame"`
	// Edits take the panels the page shows from the step before to this
	// one (view.Edit, applied by static/player.js), in place of those
	// panels' HTML when shorter.
	Edits map[string]view.Edit `json:"edits,omitempty"`
}

// followerOutcome is a followerFrame's frame: sim.Frame's outcome only.
type followerOutcome struct {
	Outcome sim.Outcome `json:"outcome,omitempty"`
}

// classFrameJSON is the frame message of course lesson l's step to in locale
// loc for a page of class's students that shows step from (-1: a page that
// shows nothing of it yet: the message carries the chrome), encoded as a
// session that showed step from would send it after a seek (re 0, not
// playing): classHost.FrameJSON, the messages classserve shares.
func (s *Server) classFrameJSON(ctx context.Context, l *sim.Lesson, loc sim.Locale, from, to int, class string) ([]byte, error) {
	frames, err := s.lessonFrames(ctx, l)
	if err != nil {
		return nil, err
	}
	to = max(0, min(to, len(frames)-1))
	t := s.tr(loc)
	tl := s.lesson(ctx, l.ID)
	// One page for both steps: drawing from first makes it the page that
	// shows from, so that drawing to gives only the panels that changed
	// and the timeline's patch (view/delta.go); every drawing comes from
	// the lesson's cache (s.drawings).
	var page view.Page
	draw := func(cur int) (map[string]string, *view.TimelinePatch, error) {
		v := view.New(view.Input{Texts: t, Lesson: l, Frames: frames[:cur+1], Cur: cur, Info: s.cfg.Backend.Info(),
			Explore: s.timelineView(t, tl, ""), Drawn: s.drawings(l.ID, loc, cur)})
		return v.FramePanels(ctx, &page)
	}
	var was map[string]string
	if from >= 0 && from < len(frames) {
		if was, _, err = draw(from); err != nil {
			return nil, err
		}
	}
	panels, patch, err := draw(to)
	if err != nil {
		return nil, err
	}
	if patch != nil {
		patch.Pack()
	}
	var edits map[string]view.Edit
	if was != nil {
		// Hidden while following (app.css): a student who explores on
		// their own gets it again in their run's frame with chrome.
		delete(panels, view.PanelExplore)
		edits = map[string]view.Edit{}
		for name, html := range panels {
			if e, ok := view.EditFrom(was[name], html); ok {
				edits[name] = e
				delete(panels, name)
			}
		}
	}
	msg := followerFrame{FrameMessage: FrameMessage{
		Type: MsgFrame, Lesson: l.ID, Step: to, Total: len(l.Steps), Computed: len(frames) - 1,
		Speed: DefaultSpeed, Lang: string(loc),
		Title:  l.Title.In(loc) + " · " + t.UI().AppName,
		URL:    lessonURL(l.ID, to, loc, false),
		Panels: panels, TimelinePatch: patch,
	}, Frame: followerOutcome{Outcome: frames[to].Outcome}, Edits: edits}
	if from < 0 {
		header := s.header(t, tl, "", to, false)
		header.ClassStart, header.Class = false, &templates.ClassBar{Code: class}
		msg.Chrome, err = view.RenderAll(ctx, map[string]templ.Component{
			chromeHeader:   templates.PlayerHeader(header),
			chromeControls: templates.ControlsBar(s.playerControls(t, l, to, DefaultSpeed)),
		})
		if err != nil {
			return nil, err
		}
	}
	return encodeMessage(msg)
}
