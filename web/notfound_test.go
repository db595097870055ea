package web

import (
	"net/http"
	"strings"
	"testing"

	"lockstep/sim"
)

// TestUnknownPathNotFoundPage: every address the server has no page for
// answers 404 with the not-found page in the request's language (a title,
// the path, the way back), not net/http's plain text.
func TestUnknownPathNotFoundPage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, c := range []struct {
		path string
		lang sim.Locale
	}{
		{"/nope", sim.English},
		{"/nope?lang=zh-CN", sim.SimplifiedChinese},
		{"/lessons/stale-owner/extra?lang=zh-TW", sim.TraditionalChinese},
		{"/interview/nope", sim.English},
	} {
		resp, body := get(t, hs.URL+c.path, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", c.path, resp.StatusCode)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("%s: content type %q", c.path, ct)
		}
		d := parseDOM(t, body)
		ui := tr(c.lang).UI()
		want := tr(c.lang).T("PageNotFoundTitle")
		if got := d.text(t, "title", tag("title")); got != want+" · "+ui.AppName {
			t.Errorf("%s: title %q, want %q", c.path, got, want+" · "+ui.AppName)
		}
		if got := d.text(t, "h1", tag("h1")); got != want {
			t.Errorf("%s: h1 %q, want %q", c.path, got, want)
		}
		if got := pageLang(t, body); got != string(c.lang) {
			t.Errorf("%s: page in %q, want %q", c.path, got, c.lang)
		}
		if !d.has(byTestID("back-to-course")) {
			t.Errorf("%s: no way back to the course", c.path)
		}
	}
	// A lesson that is not in the course keeps its own wording.
	resp, body := get(t, hs.URL+"/lessons/nope", nil)
	if resp.StatusCode != http.StatusNotFound || parseDOM(t, body).text(t, "h1", tag("h1")) != tr(sim.English).UI().NotFoundTitle {
		t.Errorf("/lessons/nope: status %d", resp.StatusCode)
	}
	// The pages that are there still answer.
	for _, p := range []string{"/", "/interview", "/healthz"} {
		if resp, _ := get(t, hs.URL+p, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", p, resp.StatusCode)
		}
	}
}

// TestLessonNotFoundPage: an unknown lesson is a localized HTML page that
// links back to the course.
func TestLessonNotFoundPage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, lang := range sim.Locales {
		resp, body := get(t, hs.URL+"/lessons/nope?lang="+string(lang), nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Fatalf("content type %q", ct)
		}
		ui := tr(lang).UI()
		page := parseDOM(t, body)
		main := dom{page.one(t, "main", tag("main"))}
		back := main.one(t, "link back", byTestID("back-to-course"))
		href, _ := attr(back, "href")
		paras := main.all(tag("p"))
		for what, ok := range map[string]bool{
			"lang":          pageLang(t, body) == string(lang),
			"title":         main.text(t, "heading", tag("h1")) == ui.NotFoundTitle,
			"explanation":   len(paras) > 0 && textOf(paras[0]) == ui.NotFoundBody,
			"link back":     href == "/?lang="+string(lang) && textOf(back) == ui.BackToCourse,
			"the lesson id": main.text(t, "lesson id", tag("code")) == "nope",
		} {
			if !ok {
				t.Errorf("%s: 404 page lacks its %s", lang, what)
			}
		}
	}
}
