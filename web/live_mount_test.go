package web

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestLiveMounted: with Config.Live (the server's -proxy) /live and
// /live/ws reach the live page's handler and the header links it; without
// it neither exists.
func TestLiveMounted(t *testing.T) {
	t.Parallel()
	var paths []string
	live := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { paths = append(paths, r.URL.Path) })
	on := startServer(t, Config{Live: live}, "127.0.0.1:0")
	getPage(t, on.url, "/live?lang=zh-CN", http.StatusOK)
	getPage(t, on.url, "/live/ws", http.StatusOK)
	if strings.Join(paths, " ") != "/live /live/ws" {
		t.Errorf("the live handler got %q", paths)
	}
	hasLink := func(page string) bool {
		return len(parseDOM(t, page).all(func(n *html.Node) bool {
			href, _ := attr(n, "href")
			return n.Data == "a" && strings.HasPrefix(href, "/live?")
		})) > 0
	}
	if !hasLink(getPage(t, on.url, "/interview", http.StatusOK)) {
		t.Error("with Live, the header has no link to /live")
	}
	off := startServer(t, Config{}, "127.0.0.1:0")
	getPage(t, off.url, "/live", http.StatusNotFound)
	if hasLink(getPage(t, off.url, "/interview", http.StatusOK)) {
		t.Error("without Live, the header links /live")
	}
}
