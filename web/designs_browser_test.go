package web

import (
	"net/url"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"lockstep/catalog"
	"lockstep/sim"
)

// designRowShown is one row of the designs table as the browser shows it.
type designRowShown struct {
	Name  string   `json:"name"`
	ID    string   `json:"id"`
	Cells []string `json:"cells"`
}

// TestBrowserDesigns: the designs page shows one row per built-in variant,
// every cell filled, in each language (its heading the catalogue's in that
// language); the player's variant tag links to its variant's row, which
// the page then targets; the course page links to the page.
func TestBrowserDesigns(t *testing.T) {
	t.Parallel()
	ctx, all, ts := courseTab(t, Config{})
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	const readRows = `[...document.querySelectorAll('#designs tbody tr')].map(tr => ({name: tr.dataset.design, id: tr.id,
		cells: [...tr.querySelectorAll('th, td')].map(c => c.textContent.trim())}))`
	headings := map[string]bool{}
	for _, loc := range []sim.Locale{sim.English, "zh-CN", "zh-TW"} {
		run(t, ctx, chromedp.Navigate(ts.url+"/designs?lang="+string(loc)))
		waitJS(t, ctx, `!!document.querySelector('#designs tbody tr')`, "the designs table")
		if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != string(loc) {
			t.Fatalf("%s: page language %q", loc, lang)
		}
		h := eval[string](t, ctx, `document.querySelector('#designs h1').textContent`)
		if want := cat.T(loc, "DesignsHeading"); h != want {
			t.Errorf("%s: heading %q, want %q", loc, h, want)
		}
		headings[h] = true
		rows := eval[[]designRowShown](t, ctx, readRows)
		var names []string
		for _, r := range rows {
			names = append(names, r.Name)
			if r.ID != "design-"+r.Name {
				t.Errorf("%s: row %s has id %q", loc, r.Name, r.ID)
			}
			if len(r.Cells) != 7 {
				t.Errorf("%s: row %s has %d cells, want 7", loc, r.Name, len(r.Cells))
			}
			for i, c := range r.Cells {
				if c == "" {
					t.Errorf("%s: row %s: cell %d is empty", loc, r.Name, i)
				}
			}
		}
		if !slices.Equal(names, sim.Variants()) {
			t.Fatalf("%s: rows %v, want one per variant %v", loc, names, sim.Variants())
		}
		shot(t, ctx, "designs-"+string(loc))
		if eval[bool](t, ctx, `!!document.querySelector('header.site .langs')`) != true {
			t.Errorf("%s: no site header with the languages", loc)
		}
	}
	if len(headings) != 3 {
		t.Errorf("headings %v: want one per language", headings)
	}

	// The player's variant tag links to its row, in the page's language.
	l := all[0]
	openStep(t, ctx, ts, l.ID, 0, "zh-TW")
	href := eval[string](t, ctx, `document.querySelector('[data-testid="variant-tag"]').href`)
	u, err := url.Parse(href)
	if err != nil || u.Path != "/designs" || u.Query().Get("lang") != "zh-TW" || u.Fragment != "design-"+l.Variant {
		t.Fatalf("the variant tag links to %q, want /designs?lang=zh-TW#design-%s", href, l.Variant)
	}
	// The tag sits in the lesson's About panel (issue 38): a learner opens
	// it first.
	click(t, ctx, `[data-about-toggle]`)
	click(t, ctx, `[data-testid="variant-tag"]`)
	waitNewDocument(t, ctx, `location.pathname === '/designs' && !!document.querySelector('#designs tbody tr')`, "the designs page from the tag")
	if got := eval[string](t, ctx, `document.querySelector('tr:target')?.dataset.design || ''`); got != l.Variant {
		t.Fatalf("the tag's row: target is %q, want %q", got, l.Variant)
	}

	// The course page links to the page.
	run(t, ctx, chromedp.Navigate(ts.url+"/?lang=zh-CN"))
	link := eval[string](t, ctx, `document.querySelector('[data-testid="designs-link"]')?.href || ''`)
	if u, err := url.Parse(link); err != nil || u.Path != "/designs" || u.Query().Get("lang") != "zh-CN" {
		t.Fatalf("the course page's designs link is %q", link)
	}
}
