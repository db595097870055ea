package explorepage

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"lockstep/backend"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// ServeCompare runs a timeline under two variants and shows them side by
// side.
func (s *Pages) ServeCompare(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	t := s.host.Texts(loc)
	x := t.Explore()
	q := r.URL.Query()
	p := templates.ComparePage{
		Site: s.host.Site(loc, func(l sim.Locale) string {
			q2 := r.URL.Query()
			q2.Set("lang", string(l))
			return "/explore/compare?" + q2.Encode()
		}),
		X: x, Variants: sim.Variants(), A: q.Get("a"), B: q.Get("b"),
	}
	tl, err := s.requestTimeline(r)
	l := tl.Lesson
	if err != nil {
		p.Error = t.Err(err)
		// Not the link again in every language link.
		p.Langs = s.host.Langs(loc, func(l sim.Locale) string { return "/explore/compare?lang=" + string(l) })
		s.host.WritePage(w, r, http.StatusBadRequest, templates.Compare(p))
		return
	}
	if code := q.Get("t"); code != "" {
		p.QueryName, p.QueryValue = "t", code
		p.BackURL = s.host.ExploreURL(code, 0, loc)
	} else {
		p.QueryName, p.QueryValue = "lesson", l.ID
		p.BackURL = s.host.LessonURL(l.ID, 0, loc)
	}
	p.A, p.B = compareDefaults(l.Variant, p.A, p.B)
	var defs []*sim.VariantDef
	if def, err := s.lockForCompare(r); err != nil {
		p.Error = t.Err(err)
		s.host.WritePage(w, r, http.StatusBadRequest, templates.Compare(p))
		return
	} else if def != nil {
		// The learner's own lock (k=, from its course table) is one more
		// variant to pick.
		defs, p.LockCode = append(defs, def), q.Get("k")
		p.Variants = append(slices.Clone(p.Variants), def.Name)
	}
	if ownScripts(l) && !slices.Contains(p.Variants, l.Variant) {
		p.Variants = append(slices.Clone(p.Variants), l.Variant)
	}
	p.Title = l.Title.In(loc)
	ctx, cancel := context.WithTimeout(r.Context(), s.compareTimeout)
	defer cancel()
	c, err := explore.Compare(ctx, l, p.A, p.B, s.host.Opener(l, defs), defs...)
	if err != nil {
		// A refusal the side's own lock causes (its owner id in KEYS) is
		// explained as the player explains it.
		var re *explore.RunError
		if errors.As(err, &re) {
			err = backend.ExplainOwnerInKeys(err, re.Def)
		}
		p.Error = t.Err(err)
		if reason, _, ok := s.host.Refusal(loc, err); ok {
			p.Error = t.T("TimelineRefused", "Reason", reason)
		}
		s.host.WritePage(w, r, http.StatusUnprocessableEntity, templates.Compare(p))
		return
	}
	own, err := s.ownFrames(ctx, l, c)
	if err != nil {
		err = backend.ExplainOwnerInKeys(err, l.VariantDef)
		p.Error = t.Err(err)
		if reason, _, ok := s.host.Refusal(loc, err); ok {
			p.Error = t.T("TimelineRefused", "Reason", reason)
		}
		s.host.WritePage(w, r, http.StatusUnprocessableEntity, templates.Compare(p))
		return
	}
	for i, side := range []*explore.Side{&c.A, &c.B} {
		u := s.host.LessonURL(l.ID, c.FirstDiff, loc)
		if side.Variant != l.Variant || tl.Kind != explore.KindLesson {
			// A course lesson's own column is the lesson; any other is a
			// timeline of its own.
			code, err := s.host.EncodeTimeline(s.compareSide(tl, l, side, own))
			if err != nil {
				continue
			}
			u = s.host.ExploreURL(code, c.FirstDiff, loc)
		}
		if i == 0 {
			p.AURL = u
		} else {
			p.BURL = u
		}
	}
	switch {
	case len(l.Steps) == 0:
		p.Summary = x.CompareEmpty
	case c.FirstDiff > 0:
		p.Summary = t.T("CompareFirstDiff", "Step", c.FirstDiff)
	default:
		p.Summary = x.CompareSame
	}
	p.Rows = view.CompareRows(t, l, c)
	s.host.WritePage(w, r, http.StatusOK, templates.Compare(p))
}

// compareDefaults are the two variants Compare runs: a and b as the query
// names them, a defaulting to the lesson's own variant and b to
// token-count or hash-refresh, so that a page opened without a or b never
// compares a variant with itself.
func compareDefaults(own, a, b string) (string, string) {
	if a == "" {
		a = own
		if a == b {
			a = otherVariant(b)
		}
	}
	if b == "" {
		b = otherVariant(a)
	}
	return a, b
}

// otherVariant is token-count, or hash-refresh when v is token-count.
func otherVariant(v string) string {
	if v == "token-count" {
		return "hash-refresh"
	}
	return "token-count"
}

// ownFrames are the frames of l under its own variant: a side of c when
// it runs that variant, else a run of its own.
func (s *Pages) ownFrames(ctx context.Context, l *sim.Lesson, c *explore.Comparison) ([]sim.Frame, error) {
	for _, side := range []explore.Side{c.A, c.B} {
		if side.Variant == l.Variant {
			return side.Frames, nil
		}
	}
	return sim.RunFrames(ctx, l, s.host.Opener(l, nil))
}

// compareSide is the timeline a column of Compare opens: tl's own when
// the side runs the lesson's variant, else the lesson under the side's
// variant, retold where its outcomes leave the lesson's (explore.Under).
func (s *Pages) compareSide(tl explore.Timeline, l *sim.Lesson, side *explore.Side, own []sim.Frame) explore.Timeline {
	if side.Variant == l.Variant {
		return explore.Timeline{Kind: tl.Kind, Lesson: side.Lesson, Origin: tl.Origin}
	}
	under, _ := explore.Under(s.host.Catalog(), l, side.Lesson, side.Frames, own)
	id := l.ID
	if !sim.ValidLessonID(id) {
		id = explore.SandboxID
	}
	return explore.Timeline{Kind: explore.KindUnder, Lesson: under, Origin: explore.Origin{Under: id}}
}

// lockForCompare is the lock a Compare request names (k=), nil when none;
// the page lists it among the variants.
func (s *Pages) lockForCompare(r *http.Request) (*sim.VariantDef, error) {
	code := r.URL.Query().Get("k")
	if code == "" {
		return nil, nil
	}
	def, _, err := s.host.DecodeLock(code)
	return def, err
}
