package web

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"lockstep/search"
	"lockstep/searches"
	"lockstep/searchpage"
	"lockstep/sim"
)

// checkedValues are the values of the checked checkboxes named name.
func checkedValues(d dom, name string) []string {
	var out []string
	for _, n := range d.all(and(tag("input"), withAttr("name", name))) {
		if hasAttr(n, "checked") {
			v, _ := attr(n, "value")
			out = append(out, v)
		}
	}
	return out
}

// TestSearchPage: /search in each language, its form filled with the
// picked variant's course search file, then with the address's
// parameters; the site's navigation links to it.
func TestSearchPage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, loc := range sim.Locales {
		_, body := get(t, hs.URL+"/search?lang="+string(loc), nil)
		d := parseDOM(t, body)
		if pageLang(t, body) != string(loc) || d.text(t, "heading", tag("h1")) != tr(loc).Search().SearchHeading {
			t.Errorf("%s: the page is not in its language", loc)
		}
		nav := d.one(t, "nav link", and(tag("a"), hrefPrefix("/search?"), func(n *html.Node) bool { return !hasAttr(n, "data-lang") }))
		if v, _ := attr(nav, "aria-current"); textOf(nav) != tr(loc).Search().NavSearch || v == "" {
			t.Errorf("%s: nav link %q current %q", loc, textOf(nav), v)
		}
	}
	// Every variant of the course has its search file's shape as defaults.
	_, body := get(t, hs.URL+"/search?lang=en", nil)
	d := parseDOM(t, body)
	if n := len(d.all(and(tag("option"), withAttr("data-defaults", "")))); n != len(sim.Variants()) {
		t.Errorf("%d variants offered, want %d", n, len(sim.Variants()))
	}
	if got := checkedValues(d, "move"); strings.Join(got, ",") != "acquire,release,write,pause,resume,crash" {
		t.Errorf("token-count's moves %v", got)
	}
	// The address's shape (a lesson's link).
	_, body = get(t, hs.URL+"/search?variant=watchdog&actors=3&depth=5&fencing=1&moves=acquire,exit&invariants=leaked-hold&expiry=0&from=watchdog-outlives-task&lang=en", nil)
	d = parseDOM(t, body)
	sel := d.one(t, "selected variant", and(tag("option"), func(n *html.Node) bool { return hasAttr(n, "selected") }))
	if v, _ := attr(sel, "value"); v != "watchdog" || d.value(t, "actors") != "3" || d.value(t, "depth") != "5" {
		t.Errorf("variant %q actors %q depth %q", v, d.value(t, "actors"), d.value(t, "depth"))
	}
	if got := checkedValues(d, "move"); strings.Join(got, ",") != "acquire,exit" {
		t.Errorf("moves %v", got)
	}
	if got := checkedValues(d, "invariant"); strings.Join(got, ",") != "leaked-hold" {
		t.Errorf("invariants %v", got)
	}
	if len(checkedValues(d, "expiry")) != 0 || len(checkedValues(d, "fencing")) != 1 {
		t.Errorf("expiry and fencing: %v %v", checkedValues(d, "expiry"), checkedValues(d, "fencing"))
	}
	if !d.has(byTestID("search-from")) {
		t.Errorf("the lesson the shape comes from is not named")
	}
	if d.has(byTestID("search-problems")) {
		t.Errorf("a well-formed address has problems")
	}
}

// TestSearchPageBadParams: a query parameter that does not read is named
// on the page, in its language, and the form keeps the variant's value.
func TestSearchPageBadParams(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, loc := range sim.Locales {
		d := getDOM(t, hs.URL+"/search?variant=hash-nil&actors=x&depth=99&lease_ms=-5&fencing=yes&expiry=2&moves=acquire,steal&invariants=nope&lang="+string(loc))
		var got []string
		for _, li := range d.all(and(tag("li"), withAttr("data-param", ""))) {
			v, _ := attr(li, "data-param")
			got = append(got, v)
			if !strings.Contains(textOf(li), v) {
				t.Errorf("%s: %q does not name %s", loc, textOf(li), v)
			}
			if loc != sim.English && strings.Contains(textOf(li), "The address") {
				t.Errorf("%s: %q is in English", loc, textOf(li))
			}
		}
		if want := "actors depth lease_ms fencing moves invariants expiry"; strings.Join(got, " ") != want {
			t.Errorf("%s: problems for %v, want %s", loc, got, want)
		}
		if d.value(t, "actors") != "2" || d.value(t, "depth") != "8" {
			t.Errorf("%s: actors %q depth %q: want hash-nil's file's", loc, d.value(t, "actors"), d.value(t, "depth"))
		}
		if got := checkedValues(d, "move"); strings.Join(got, ",") != "acquire" {
			t.Errorf("%s: moves %v", loc, got)
		}
	}
	_, body := get(t, hs.URL+"/search?variant=nosuch&lang=zh-TW", nil)
	li := parseDOM(t, body).one(t, "problem", and(tag("li"), withAttr("data-param", "variant")))
	if !strings.Contains(textOf(li), "nosuch") || !strings.Contains(textOf(li), "網址") {
		t.Errorf("variant problem %q", textOf(li))
	}
}

// TestLessonSearchLinks: each course lesson lessonSearches lists has a
// "find it yourself" link on its page, and the shape that link gives the
// Search page (read as the page reads it, sent as its script sends it)
// breaks the lesson's invariants; a lesson it does not list has no link.
func TestLessonSearchLinks(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	all, err := searches.All()
	if err != nil {
		t.Fatal(err)
	}
	course := testLessons(t)
	for id, invs := range searchpage.LessonSearches() {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			l := lessonByID(t, course, id)
			_, body := get(t, hs.URL+"/lessons/"+id+"?lang=zh-CN", nil)
			href, _ := attr(parseDOM(t, body).one(t, "find it yourself", byTestID("find-it")), "href")
			u, err := url.Parse(href)
			if err != nil || u.Path != "/search" || u.Query().Get("lang") != "zh-CN" {
				t.Fatalf("link %q", href)
			}
			variant, sh, expiry, problems := searchpage.FromQuery(tr(sim.SimplifiedChinese), all, u.Query())
			if len(problems) > 0 {
				t.Fatalf("link %q: %v", href, problems)
			}
			if variant != l.Variant || !slices.Equal(sh.Invariants, invs) {
				t.Fatalf("link %q: variant %s invariants %v", href, variant, sh.Invariants)
			}
			req := &searchpage.Request{Variant: variant, LeaseMS: sh.LeaseMS, Fencing: &sh.Fencing, Actors: sh.Actors, Depth: sh.Depth,
				Moves: sh.Moves, AdvanceMS: []int64{}, Invariants: sh.Invariants}
			if expiry {
				req.AdvanceMS = sh.AdvanceMS
			}
			f, err := searchpage.ShapeFile(req)
			if err != nil {
				t.Fatal(err)
			}
			res, err := search.Run(context.Background(), f, search.Config{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, inv := range invs {
				if res.Found[inv] == nil {
					t.Errorf("the link's shape does not break %s within depth %d", inv, f.Depth)
				}
			}
		})
	}
	for _, l := range course {
		if _, listed := searchpage.LessonSearches()[l.ID]; listed {
			continue
		}
		_, body := get(t, hs.URL+"/lessons/"+l.ID+"?lang=en", nil)
		if parseDOM(t, body).has(byTestID("find-it")) {
			t.Errorf("%s: a find-it-yourself link, but lessonSearches does not list it", l.ID)
		}
	}
}
