package explorepage

import (
	"fmt"
	"net/http"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/view"
)

// requestTimeline is the timeline an export or compare request names: a
// share code (t) or a course lesson or drill (lesson). A fork is titled as
// one (explore.ForkTitle), not with its lesson's title.
func (s *Pages) requestTimeline(r *http.Request) (explore.Timeline, error) {
	q := r.URL.Query()
	if code := q.Get("t"); code != "" {
		tl, err := s.host.DecodeTimeline(code)
		if err != nil {
			return tl, err
		}
		titled := *tl.Lesson
		titled.Title = s.host.TimelineTitle(tl)
		tl.Lesson = &titled
		return tl, nil
	}
	id := q.Get("lesson")
	if id == "" {
		return explore.Timeline{}, codedErr(sim.M("web.timeline-unnamed"), "explorepage: name a timeline (t=) or a lesson (lesson=)")
	}
	tl := s.host.Lesson(r.Context(), id)
	if tl.Lesson == nil {
		return tl, codedErr(sim.M("web.no-such-lesson", "ID", id), "explorepage: no lesson %q in the course", id)
	}
	return tl, nil
}

// ServeExport sends a timeline as a lesson file, a Mermaid sequence
// diagram or an SVG of the lanes.
func (s *Pages) ServeExport(format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		loc := s.host.Negotiate(r)
		tl, err := s.requestTimeline(r)
		if err != nil {
			http.Error(w, s.host.Texts(loc).Err(err), http.StatusBadRequest)
			return
		}
		l, o := tl.Lesson, tl.Origin
		if format == "yaml" && len(l.Steps) == 0 {
			// The lesson format wants a step at least (sim.Load refuses a
			// lesson without): an export that could not load back is refused.
			http.Error(w, s.host.Texts(loc).Msg(sim.M("web.export.no-steps")), http.StatusUnprocessableEntity)
			return
		}
		frames, err := s.host.RunFrames(r.Context(), l)
		if err != nil {
			if reason, acl, ok := s.host.Refusal(loc, err); ok {
				status := http.StatusUnprocessableEntity // the timeline is over a bound
				if acl {
					status = http.StatusBadGateway // the Redis refused, not the timeline
				}
				http.Error(w, s.host.Texts(loc).T("TimelineRefused", "Reason", reason), status)
				return
			}
			http.Error(w, fmt.Sprintf("explorepage: export: run %s: %v", l.ID, err), http.StatusBadGateway)
			return
		}
		name := l.ID
		exported := l
		if tl.Explore() {
			// A timeline made here: its lesson file is ready for lessons/
			// (texts, outcomes, an id unique to its steps), and every
			// export of it is named by that id.
			exported = explore.ForExport(s.host.Catalog(), l, frames, o, s.host.OriginLesson(o))
			name = exported.ID
		}
		var body []byte
		ctype := "text/plain; charset=utf-8"
		switch format {
		case "yaml":
			body, err = sim.MarshalLesson(exported)
			ctype = "application/yaml; charset=utf-8"
		case "mmd":
			body = []byte(sim.SequenceDiagram(l, frames, loc, s.host.Catalog()))
		case "svg":
			body, err = view.TimelineSVG(s.host.Texts(loc), l, frames, s.host.BackendInfo())
			ctype = "image/svg+xml"
		}
		if err != nil {
			http.Error(w, "explorepage: export: "+err.Error(), http.StatusInternalServerError)
			return
		}
		if name == "" {
			name = "timeline"
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name+"."+format))
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(body)
	}
}
