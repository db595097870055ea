package web

import (
	"io"
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
	get := func(path string, wantStatus int) string {
		t.Helper()
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != wantStatus {
			t.Fatalf("GET %s: %d, want %d\n%s", path, resp.StatusCode, wantStatus, b)
		}
		return string(b)
	}
	for _, tc := range []struct{ path, want string }{
		{"/explore/compare?x=1&lang=zh-CN", "请用 t= 指定时间线，或用 lesson= 指定课程"},
		{"/explore/compare?lesson=nope&lang=zh-TW", "課程裡沒有課程「nope」"},
		{"/explore/compare?lesson=nope", `no lesson "nope" in the course`},
	} {
		doc, err := html.Parse(strings.NewReader(get(tc.path, http.StatusBadRequest)))
		if err != nil {
			t.Fatal(err)
		}
		if msg := textOfTestID(doc, "compare-error"); !strings.Contains(msg, tc.want) || strings.Contains(msg, "web:") {
			t.Errorf("%s: %q, want %q and no package prefix", tc.path, msg, tc.want)
		}
	}
	body := get("/explore/new?variant=nope&lease_ms=1000&actors=1", http.StatusBadRequest)
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	msg := textOfTestID(doc, "sandbox-error")
	if !strings.Contains(msg, "unknown variant") || strings.Count(strings.ToLower(msg), "sandbox") != 1 {
		t.Errorf("sandbox error %q: want the broken rule, and the sandbox named once", msg)
	}
}

// textOfTestID returns the text of the element with data-testid id.
func textOfTestID(n *html.Node, id string) string {
	if n.Type == html.ElementNode {
		for _, a := range n.Attr {
			if a.Key == "data-testid" && a.Val == id {
				var b strings.Builder
				var walk func(*html.Node)
				walk = func(n *html.Node) {
					if n.Type == html.TextNode {
						b.WriteString(n.Data)
					}
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						walk(c)
					}
				}
				walk(n)
				return b.String()
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if s := textOfTestID(c, id); s != "" {
			return s
		}
	}
	return ""
}

// TestSandboxLockFieldTakesAnyLockName: the sandbox form's lock input has no
// pattern of the old lock-name rule (any text without control characters
// is a lock name), and its help says so.
func TestSandboxLockFieldTakesAnyLockName(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	resp, err := http.Get(hs.URL + "/explore")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	in := findInput(doc, "lock")
	if in == nil {
		t.Fatal("no lock input")
	}
	for _, a := range in.Attr {
		if a.Key == "pattern" || a.Key == "title" && !strings.Contains(a.Val, "control characters") {
			t.Errorf("lock input %s=%q", a.Key, a.Val)
		}
	}
}

// findInput returns the input element named name.
func findInput(n *html.Node, name string) *html.Node {
	if n.Type == html.ElementNode && n.Data == "input" {
		for _, a := range n.Attr {
			if a.Key == "name" && a.Val == name {
				return n
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if in := findInput(c, name); in != nil {
			return in
		}
	}
	return nil
}
