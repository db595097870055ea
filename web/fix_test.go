package web

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestCompareAndSandboxErrorsInPageLanguage: a compare request that names
// no timeline or an unknown lesson is answered in the page's language, and
// a refused sandbox says once that it could not start.
func TestCompareAndSandboxErrorsInPageLanguage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	page := func(path string) dom {
		t.Helper()
		resp, body := get(t, hs.URL+path, nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("GET %s: %d, want 400", path, resp.StatusCode)
		}
		return parseDOM(t, body)
	}
	for _, tc := range []struct{ path, want string }{
		{"/explore/compare?x=1&lang=zh-CN", "请用 t= 指定时间线，或用 lesson= 指定课程"},
		{"/explore/compare?lesson=nope&lang=zh-TW", "課程裡沒有課程「nope」"},
		{"/explore/compare?lesson=nope", `no lesson "nope" in the course`},
	} {
		msg := textOf(page(tc.path).one(t, "compare-error", withAttr("data-testid", "compare-error")))
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, "web:") {
			t.Errorf("%s: %q, want %q and no package prefix", tc.path, msg, tc.want)
		}
	}
	d := page("/explore/new?variant=nope&lease_ms=1000&actors=1")
	msg := textOf(d.one(t, "sandbox-error", withAttr("data-testid", "sandbox-error")))
	if !strings.Contains(msg, "unknown variant") || strings.Count(strings.ToLower(msg), "sandbox") != 1 {
		t.Errorf("sandbox error %q: want the broken rule, and the sandbox named once", msg)
	}
}

// TestSandboxLockFieldTakesAnyLockName: the sandbox form's lock input has no
// pattern of the old lock-name rule (any text without control characters
// is a lock name), and its help says so.
func TestSandboxLockFieldTakesAnyLockName(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	_, body := get(t, hs.URL+"/explore", nil)
	in := parseDOM(t, body).one(t, "lock input", func(n *html.Node) bool { v, _ := attr(n, "name"); return n.Data == "input" && v == "lock" })
	if p, ok := attr(in, "pattern"); ok {
		t.Errorf("lock input pattern=%q", p)
	}
	if title, _ := attr(in, "title"); !strings.Contains(title, "control characters") {
		t.Errorf("lock input title=%q", title)
	}
}
