package web

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"lockstep/catalog"
)

// TestMadeUpLocalePages serves every page in a language added as one
// catalogue file (catalog/testdata/jbo, every text marked "[jbo] "): each
// comes back in that language, offers it in the language picker, and shows
// no missing message, also the pages that explain a problem.
func TestMadeUpLocalePages(t *testing.T) {
	t.Parallel()
	cat, err := catalog.New(os.DirFS("../catalog/testdata/jbo"))
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, Config{Catalog: cat}, "127.0.0.1:0")
	sandbox := "/explore/new?" + url.Values{"variant": {"token-count"}, "lease_ms": {"30000"}, "actors": {"2"}, "lang": {"jbo"}}.Encode()
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/?lang=jbo", 200},
		{"/lessons/stale-owner?lang=jbo&step=4", 200},
		{"/lessons/drill-leases-7?lang=jbo", 200},
		{"/drills?lang=jbo", 200},
		{"/interview?lang=jbo", 200},
		{"/interview/60s?lang=jbo", 200},
		{"/explore?lang=jbo", 200},
		{sandbox, 200}, // redirected to the sandbox's player
		{"/explore/compare?lesson=stale-owner&lang=jbo", 200},
		{"/explore?t=1.damaged&lang=jbo", 400},
		{"/explore/new?variant=token-count&lease_ms=0&actors=2&lang=jbo", 400},
		{"/explore/compare?lesson=stale-owner&a=nope&lang=jbo", 422},
		{"/lessons/no-such-lesson?lang=jbo", 404},
	} {
		resp, body := get(t, ts.url+c.path, nil)
		switch {
		case resp.StatusCode != c.status:
			t.Errorf("%s: status %d, want %d", c.path, resp.StatusCode, c.status)
		case !strings.Contains(body, `<html lang="jbo">`):
			t.Errorf("%s: not a page in jbo", c.path)
		case strings.Contains(body, catalog.Missing):
			i := strings.Index(body, catalog.Missing)
			t.Errorf("%s: a missing message: %s", c.path, body[i:min(len(body), i+60)])
		case !strings.Contains(body, "[jbo] "):
			t.Errorf("%s: no text in jbo", c.path)
		case !strings.Contains(body, "Lojban (test)"):
			t.Errorf("%s: the language picker does not offer jbo", c.path)
		}
	}
	// The exports of a timeline made in it: a sequence diagram and an SVG in
	// its words, and why an empty one has no lesson file.
	resp, _ := get(t, ts.url+sandbox, nil)
	code := resp.Request.URL.Query().Get("t")
	if code == "" {
		t.Fatalf("the sandbox did not redirect to its timeline: %s", resp.Request.URL)
	}
	for _, c := range []struct {
		format string
		status int
	}{{"yaml", http.StatusUnprocessableEntity}, {"mmd", http.StatusOK}, {"svg", http.StatusOK}} {
		q := url.Values{"t": {code}, "lang": {"jbo"}}
		resp, body := get(t, ts.url+"/explore/export."+c.format+"?"+q.Encode(), nil)
		if resp.StatusCode != c.status || !strings.Contains(body, "[jbo] ") || strings.Contains(body, catalog.Missing) {
			t.Errorf("export.%s in jbo: status %d:\n%.300s", c.format, resp.StatusCode, body)
		}
	}
	// The player's websocket speaks it too.
	m, err := parseClientMessage([]byte(`{"type":"load","lesson":"stale-owner","lang":"jbo"}`), cat.Has)
	if err != nil || m.Lang != "jbo" {
		t.Errorf("a load in jbo: %+v, %v", m, err)
	}
	// A problem's own words are the language's too.
	resp, body := get(t, ts.url+"/explore/new?variant=token-count&lease_ms=0&actors=2&lang=jbo", nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "[jbo] the lease must be 1 to") {
		t.Errorf("the sandbox's error is not in jbo")
	}
}
