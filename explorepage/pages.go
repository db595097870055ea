package explorepage

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"lockstep/explore"
	"lockstep/ownlock"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// ServeExplore is the explore page (GET /explore), or with t= the player
// of a shared timeline (Host.ServeTimeline); a code that cannot be opened
// gets 400 and the explore page with the reason.
func (s *Pages) ServeExplore(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	code := r.URL.Query().Get("t")
	if code == "" {
		s.host.WritePage(w, r, http.StatusOK, templates.ExploreStart(s.explorePage(loc, nil)))
		return
	}
	tl, err := s.host.DecodeTimeline(code)
	if err != nil {
		s.host.WritePage(w, r, http.StatusBadRequest, templates.ExploreStart(s.explorePage(loc, err)))
		return
	}
	s.host.ServeTimeline(w, r, tl, code)
}

// explorePage is the explore page in loc; badLink, when not nil, is why a
// share link could not be opened.
func (s *Pages) explorePage(loc sim.Locale, badLink error) templates.ExplorePage {
	t := s.host.Texts(loc)
	p := templates.ExplorePage{
		Site:          s.host.Site(loc, func(l sim.Locale) string { return "/explore?lang=" + string(l) }),
		X:             t.Explore(),
		BadLinkReason: badLinkReason(t, badLink),

		Sandbox: templates.SandboxForm{LeaseMS: "30000", Actors: "2", Lock: "order:42"},
	}
	p.Variants = variantOptions(t, "token-count")
	p.Lock = ownlock.EmptyForm()
	p.ImportLock = ownlock.EmptyForm()
	if badLink != nil {
		p.BadLink = t.Err(badLink)
	}
	return p
}

// variantOptions are the sandbox form's variants, each with where it
// comes from in t's language (the seeds by their titles, their file names
// in the option's title attribute).
func variantOptions(t Texts, selected string) []templates.VariantOption {
	var out []templates.VariantOption
	for _, name := range sim.Variants() {
		vi, _ := sim.Variant(name)
		src := t.Maybe("VariantNote" + view.Camel(name))
		if src == "" {
			src = vi.Source
		}
		text, seeds := view.SourceText(t, src)
		out = append(out, templates.VariantOption{Name: name, Source: text, Seeds: seeds, Selected: name == selected})
	}
	return out
}

// badLinkReason says in t's language what kind of problem a share link has
// (explore.LinkError); the detail under it stays as the decoder wrote it.
// "" when err is not a link's problem.
func badLinkReason(t Texts, err error) string {
	var le *explore.LinkError
	if !errors.As(err, &le) {
		return ""
	}
	switch le.Problem {
	case explore.LinkNewer:
		return t.T("BadLinkNewer")
	case explore.LinkCutShort:
		return t.T("BadLinkCut")
	case explore.LinkRules:
		return t.T("BadLinkRules")
	}
	return t.T("BadLinkDamaged")
}

// ServeNew starts a sandbox from the explore page's form and
// redirects to its player.
func (s *Pages) ServeNew(w http.ResponseWriter, r *http.Request) {
	loc := s.host.Negotiate(r)
	q := r.URL.Query()
	num := func(name string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(q.Get(name)), 10, 64)
		if err != nil {
			return 0, codedErr(sim.M("web.sandbox.number", "Field", name, "Got", q.Get(name)), "explorepage: sandbox: %s: want a whole number, got %q", name, q.Get(name))
		}
		return n, nil
	}
	fail := func(err error) {
		// The form comes back as it was sent, with the reason.
		p := s.explorePage(loc, nil)
		// The heading already says the sandbox could not start: show the
		// lesson rules it broke, not the explore error's own intro again.
		var les sim.LoadErrors
		if errors.As(err, &les) {
			err = les
		}
		p.SandboxError = s.host.Texts(loc).Err(err)
		if errs, ok := err.(numberErrors); ok {
			// Each field's problem, joined as the catalogue joins problems.
			var parts []string
			for _, e := range errs {
				parts = append(parts, s.host.Texts(loc).Err(e))
			}
			p.SandboxError = strings.Join(parts, s.host.Texts(loc).T("error.join"))
		}
		p.Sandbox = templates.SandboxForm{LeaseMS: q.Get("lease_ms"), Actors: q.Get("actors"), Lock: q.Get("lock"),
			Fencing: q.Get("fencing") != "", Replica: q.Get("replica") != ""}
		p.Variants = variantOptions(s.host.Texts(loc), q.Get("variant"))
		s.host.WritePage(w, r, http.StatusBadRequest, templates.ExploreStart(p))
	}
	// Both numbers are read before either is refused: the form names every
	// field that does not read at once.
	lease, errLease := num("lease_ms")
	actors, errActors := num("actors")
	var bad numberErrors
	for _, err := range []error{errLease, errActors} {
		if err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) > 0 {
		fail(bad)
		return
	}
	l, err := explore.Sandbox(s.host.Catalog(), explore.SandboxConfig{
		Variant: q.Get("variant"), LeaseMS: lease, Actors: int(actors), Lock: strings.TrimSpace(q.Get("lock")),
		Fencing: q.Get("fencing") != "", Replica: q.Get("replica") != "",
	})
	if err != nil {
		fail(err)
		return
	}
	code, err := s.host.EncodeTimeline(explore.Shared(l, explore.Origin{}))
	if err != nil {
		fail(err)
		return
	}
	http.Redirect(w, r, s.host.ExploreURL(code, 0, loc), http.StatusSeeOther)
}

// numberErrors are the sandbox form's number fields that do not read, each
// its own coded error: the page names every one.
type numberErrors []error

func (e numberErrors) Error() string   { return errors.Join(e...).Error() }
func (e numberErrors) Unwrap() []error { return e }
