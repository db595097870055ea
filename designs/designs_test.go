package designs

import (
	"strings"
	"testing"

	"lockstep/catalog"
	"lockstep/sim"
)

// TestRowsComplete: every built-in variant has a row, in every locale of
// the catalogue, with no empty cell, and the derived cells follow the
// variant files (one reply line per reply rule, one reply group per
// script, the fencing cell by whether the acquire script issues tokens).
func TestRowsComplete(t *testing.T) {
	t.Parallel()
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	names := sim.Variants()
	for _, loc := range []sim.Locale{"en", "zh-CN", "zh-TW"} {
		if !cat.Has(loc) {
			t.Fatalf("catalogue lacks %s", loc)
		}
		rows, err := Rows(cat, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		if len(rows) != len(names) {
			t.Fatalf("%s: %d rows, want one per variant (%d)", loc, len(rows), len(names))
		}
		fences := map[string]string{} // fencing cell by whether the acquire issues tokens
		for i, r := range rows {
			if r.Name != names[i] {
				t.Errorf("%s: row %d is %q, want %q", loc, i, r.Name, names[i])
			}
			d, _ := sim.BuiltinVariantDef(r.Name)
			for cell, v := range map[string]string{"anchor": r.Anchor, "owner": r.Owner, "count": r.Count,
				"partial": r.Partial, "renewal": r.Renewal, "fencing": r.Fencing} {
				if v == "" || strings.HasPrefix(v, catalog.Missing) {
					t.Errorf("%s: %s: cell %s is %q", loc, r.Name, cell, v)
				}
			}
			if len(r.Source) == 0 {
				t.Errorf("%s: %s: no source", loc, r.Name)
			}
			scripts := 0
			for _, s := range []*sim.ScriptDef{d.Acquire, d.Renew, d.Release, d.FinishRelease} {
				if s == nil {
					continue
				}
				if scripts >= len(r.Replies) {
					t.Fatalf("%s: %s: %d reply groups, want one per script", loc, r.Name, len(r.Replies))
				}
				g := r.Replies[scripts]
				if g.Script == "" || len(g.Lines) != len(s.Replies) {
					t.Errorf("%s: %s: reply group %d = %+v, want %d lines", loc, r.Name, scripts, g, len(s.Replies))
				}
				for _, l := range g.Lines {
					if l == "" {
						t.Errorf("%s: %s: an empty reply line", loc, r.Name)
					}
				}
				if (len(s.ArrayReply) > 0) != (g.Shape != "") {
					t.Errorf("%s: %s: array shape %q for %v", loc, r.Name, g.Shape, s.ArrayReply)
				}
				scripts++
			}
			if scripts != len(r.Replies) {
				t.Errorf("%s: %s: %d reply groups, %d scripts", loc, r.Name, len(r.Replies), scripts)
			}
			key := "runner"
			if d.Info().IssuesFences {
				key = "script"
			}
			if prev, ok := fences[key]; ok && prev != r.Fencing {
				t.Errorf("%s: %s: fencing %q differs from another %s-fenced design's %q", loc, r.Name, r.Fencing, key, prev)
			}
			fences[key] = r.Fencing
		}
		if len(fences) != 2 || fences["runner"] == fences["script"] {
			t.Errorf("%s: fencing cells %v: want one text for script-issued tokens, another for the runner's", loc, fences)
		}
	}
}

// TestRowsNeedTheirProse: a variant whose prose the catalogue lacks is an
// error naming the message, not a row with an empty cell.
func TestRowsNeedTheirProse(t *testing.T) {
	t.Parallel()
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	d, _ := sim.BuiltinVariantDef("token-count")
	other := *d
	other.Name = "no-such-design"
	if _, err := row(texts{cat, "en"}, &other); err == nil {
		t.Fatal("a variant without DesignPartial/DesignRenewal messages gave a row")
	}
}

// TestSourceInPageLanguage: a design's source note (the words beside the
// seed's title: "follow-up question 1", "lock watchdog") is in the page's
// language, not the variant file's English (issue 39).
func TestSourceInPageLanguage(t *testing.T) {
	t.Parallel()
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	notes := func(loc sim.Locale) []string {
		rows, err := Rows(cat, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		out := make([]string, len(rows))
		for i, r := range rows {
			for _, p := range r.Source {
				out[i] += p.Rest
			}
			out[i] = strings.TrimSpace(out[i])
		}
		return out
	}
	en := notes("en")
	for _, loc := range []sim.Locale{"zh-CN", "zh-TW"} {
		for i, n := range notes(loc) {
			if en[i] != "" && n == en[i] {
				t.Errorf("%s: %s: source note %q is the English one", loc, sim.Variants()[i], n)
			}
		}
	}
}

// TestChineseCellsJoinWithoutSpace: a cell made of two messages joins them
// as Chinese is written, with no space after 。.
func TestChineseCellsJoinWithoutSpace(t *testing.T) {
	t.Parallel()
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, loc := range []sim.Locale{"zh-CN", "zh-TW"} {
		rows, err := Rows(cat, loc)
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		for _, r := range rows {
			if strings.Contains(r.Renewal, "。 ") {
				t.Errorf("%s: %s: renewal %q has a space after 。", loc, r.Name, r.Renewal)
			}
		}
	}
}
