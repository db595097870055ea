// Package designs serves the page that compares the lock designs
// (/designs, issue 39): one row per built-in variant (sim/variants), with
// its owner, where it keeps the hold count, its scripts' replies, what a
// partial release does to the lease, renewal and fencing.
//
//	GET /designs?lang=L   the table (Pages.Serve)
//
// Every cell a variant file states is derived from the file as loaded
// (sim.BuiltinVariantDef): the owner kind, the lock's layout and where
// reentry counts, the reply maps, the renewal period, whether the acquire
// script issues fencing tokens. The cells that need prose (a partial
// release, renewal, a note on replies) are catalogue messages keyed by the
// variant's name (catalog/designs.*.toml), and so is the source under the
// name, in the page's language (VariantNote<Name>, catalog/ui.*.toml; the
// variant file's own source is English). Package web routes the request
// here and is the Host.
package designs

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/a-h/templ"

	"lockstep/catalog"
	"lockstep/sim"
	"lockstep/static"
	"lockstep/templates"
	"lockstep/view"
)

// Host is what the page needs of the server that routes it (package web).
type Host interface {
	// Negotiate is the language of request r.
	Negotiate(r *http.Request) sim.Locale
	// Catalog is the server's message catalogue.
	Catalog() *catalog.Catalog
	// Site is the site's frame of a page in loc, langURL the page in
	// another language.
	Site(loc sim.Locale, langURL func(sim.Locale) string) templates.Site
	// WritePage renders c as the answer, with status.
	WritePage(w http.ResponseWriter, r *http.Request, status int, c templ.Component)
}

// Pages serves the designs page for a Host.
type Pages struct{ host Host }

// New returns the page of host.
func New(host Host) *Pages { return &Pages{host: host} }

// Serve answers GET /designs: the table in the request's language; a
// variant whose row lacks a text is a server error (the catalogue test
// and TestRowsComplete keep that from shipping).
func (p *Pages) Serve(w http.ResponseWriter, r *http.Request) {
	loc := p.host.Negotiate(r)
	rows, err := Rows(p.host.Catalog(), loc)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	t := texts{p.host.Catalog(), loc}
	page := templates.DesignsPage{
		Site: p.host.Site(loc, func(l sim.Locale) string { return "/designs?lang=" + string(l) }),
		CSS:  static.URL("/static/", "designs.css"),
		T: templates.DesignsTexts{
			Heading: t.T("DesignsHeading"), Intro: t.T("DesignsIntro"),
			ColDesign: t.T("DesignsColDesign"), ColOwner: t.T("DesignsColOwner"), ColCount: t.T("DesignsColCount"),
			ColReplies: t.T("DesignsColReplies"), ColPartial: t.T("DesignsColPartial"),
			ColRenewal: t.T("DesignsColRenewal"), ColFencing: t.T("DesignsColFencing"),
		},
		SourceLabel: t.T("SourceLabel"),
		Rows:        rows,
	}
	p.host.WritePage(w, r, http.StatusOK, templates.Designs(page))
}

// texts are the catalogue's messages in one locale.
type texts struct {
	cat *catalog.Catalog
	loc sim.Locale
}

func (t texts) T(id string, kv ...any) string { return t.cat.T(t.loc, id, kv...) }

// need is message id with kv, or an error naming it when no locale has it.
func (t texts) need(id string, kv ...any) (string, error) {
	s, ok := t.cat.Lookup(t.loc, id, sim.M(id, kv...).Args)
	if !ok {
		return "", fmt.Errorf("designs: no message %q in the catalogue (%s)", id, t.loc)
	}
	return s, nil
}

// Rows returns one row per built-in variant (sim.Variants, in its order)
// in locale loc. It fails when a variant needs a message the catalogue
// lacks (a new variant without its prose, a new owner kind or layout).
func Rows(cat *catalog.Catalog, loc sim.Locale) ([]templates.DesignRow, error) {
	t := texts{cat, loc}
	var out []templates.DesignRow
	for _, name := range sim.Variants() {
		d, ok := sim.BuiltinVariantDef(name)
		if !ok {
			return nil, fmt.Errorf("designs: variant %q has no definition", name)
		}
		r, err := row(t, d)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// row is variant d's row.
func row(t texts, d *sim.VariantDef) (templates.DesignRow, error) {
	r := templates.DesignRow{Name: d.Name, Anchor: templates.DesignAnchor(d.Name)}
	var errs []error
	get := func(id string, kv ...any) string {
		s, err := t.need(id, kv...)
		if err != nil {
			errs = append(errs, err)
		}
		return s
	}
	// The variant file's source is English ("(follow-up question 1; a known
	// mistake)", "Redisson RLock (lock watchdog)"): the page gives the same
	// source in its own language, VariantNote<Name> of the catalogue (as
	// the sandbox form's variant list does), the seeds by their titles.
	r.Source = view.SourcePartsBy(t.T, get("VariantNote"+view.Camel(d.Name)))
	if strings.Contains(d.Owner, "{") {
		r.Owner = get("DesignOwnerTemplate", "Template", d.Owner)
	} else {
		r.Owner = get("DesignOwner." + d.Owner)
	}
	if d.Reentry == sim.ReentryRedis {
		r.Count = get("DesignCount.redis." + d.Lock.Layout)
	} else {
		r.Count = get("DesignCount." + d.Reentry)
	}
	for _, s := range []struct {
		role string
		def  *sim.ScriptDef
	}{{"acquire", d.Acquire}, {"renew", d.Renew}, {"release", d.Release}, {"finish_release", d.FinishRelease}} {
		if s.def != nil {
			r.Replies = append(r.Replies, replies(t, get, s.role, s.def))
		}
	}
	var notes []string
	if note, ok := t.cat.Lookup(t.loc, "DesignRepliesNote."+d.Name, nil); ok {
		notes = append(notes, note)
	}
	if d.BooleanReading {
		notes = append(notes, get("DesignsBoolean"))
	}
	r.RepliesNote = strings.Join(notes, " ")
	r.Partial = get("DesignPartial." + d.Name)
	r.Renewal = get("DesignRenewal." + d.Name)
	if d.Renew != nil {
		r.Renewal = sentences(get("DesignsRenewEvery", "Every", period(t, d.RenewEvery)), r.Renewal)
	}
	if d.Info().IssuesFences {
		r.Fencing = get("DesignsFenceScript")
	} else {
		r.Fencing = get("DesignsFenceRunner")
	}
	if len(errs) > 0 {
		return r, errs[0]
	}
	return r, nil
}

// replies is one script's reply map, a line per pattern in the file's
// order: "pattern → outcome", the outcomes that depend on the key after
// the call spelt out.
func replies(t texts, get func(string, ...any) string, role string, s *sim.ScriptDef) templates.DesignReplies {
	out := templates.DesignReplies{Script: get("DesignsScript." + role)}
	if len(s.ArrayReply) > 0 {
		out.Shape = get("DesignsArrayReply", "Elems", "["+strings.Join(s.ArrayReply, ", ")+"]")
	}
	for _, rule := range s.Replies {
		outcome := rule.Outcome
		if outcome == sim.OutHeld || outcome == sim.OutReleasedOrHeld {
			outcome = get("DesignOutcome." + outcome)
		}
		out.Lines = append(out.Lines, rule.Match.String()+" → "+outcome)
	}
	return out
}

// sentences joins two sentences as the language writes them: a space after
// a Latin full stop, none after a Chinese one (。).
func sentences(a, b string) string {
	if strings.HasSuffix(a, "。") {
		return a + b
	}
	return a + " " + b
}

// period is a renewal period as the page says it: lease/N, or a duration.
func period(t texts, p sim.Period) string {
	if p.LeaseDiv > 0 {
		return t.T("DesignsLeaseDiv", "N", p.LeaseDiv)
	}
	return t.cat.Duration(t.loc, p.MS)
}
