package web

import (
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// transferred is what the Performance API says a page took over the
// network: the document's and each resource's transferSize (headers and
// body as sent, 0 for a resource from the browser's cache).
type transferred struct {
	Document  int `json:"document"`
	Resources []struct {
		Name    string `json:"name"`
		Sent    int    `json:"sent"`
		Encoded int    `json:"encoded"`
		Decoded int    `json:"decoded"`
	} `json:"resources"`
}

// readTransferred is a JS expression: the page's transferred, as JSON.
const readTransferred = `JSON.stringify({
	document: performance.getEntriesByType("navigation")[0].transferSize,
	resources: performance.getEntriesByType("resource").map((r) => ({name: r.name, sent: r.transferSize, encoded: r.encodedBodySize, decoded: r.decodedBodySize})),
})`

func (tr transferred) total() int {
	n := tr.Document
	for _, r := range tr.Resources {
		n += r.Sent
	}
	return n
}

// file is the file name of a resource's URL, without its query.
func file(u string) string { return path.Base(strings.SplitN(u, "?", 2)[0]) }

// TestBrowserFirstLoadBytes measures, with the Performance API in
// headless Chromium, what a lesson player's first load and a second
// lesson page transfer (issue 34): at most 60 KB in all for the first
// (HTML, CSS, the player's modules, icon; the websocket's frames are not
// resources), at most 15 KB for the second (its HTML; the hashed files
// come from the cache). The server compresses HTTP answers for a loopback
// peer as for any other (webnet.CompressPages), so loopback measures what a
// phone on the classroom's Wi-Fi gets (Chromium offers gzip over http).
// It also checks that the page loads only the modules it uses: none of
// the classroom's, the lock form's, the Search page's or interview mode's,
// and neither presenter mode's stylesheet nor predict mode's module while
// those modes are off.
func TestBrowserFirstLoadBytes(t *testing.T) {
	t.Parallel()
	ctx, lessons, ts := courseTab(t, Config{})
	read := func() transferred {
		var tr transferred
		if err := json.Unmarshal([]byte(eval[string](t, ctx, readTransferred)), &tr); err != nil {
			t.Fatal(err)
		}
		return tr
	}

	openStep(t, ctx, ts, lessons[0].ID, 1, "en")
	first := read()
	var files []string
	for _, r := range first.Resources {
		files = append(files, file(r.Name))
		switch file(r.Name) {
		case "classroom.js", "lockform.js", "search.js", "interview.js":
			t.Errorf("a lesson page loads %s", file(r.Name))
		case "presenter.css", "presenter.js", "predict.js": // loaded when the mode is on
			t.Errorf("a lesson page out of presenter and predict mode loads %s", file(r.Name))
		case "app.css":
			if r.Encoded*3 > r.Decoded {
				t.Errorf("app.css came as %d bytes for %d: not compressed", r.Encoded, r.Decoded)
			}
		}
	}
	t.Logf("first load: %d bytes (document %d) in %d resources: %s", first.total(), first.Document, len(first.Resources), strings.Join(files, " "))
	if first.total() > 60_000 {
		t.Errorf("first load: %d bytes, over 60 KB", first.total())
	}

	// Predict mode switched on loads its module then, and runs: the toggle
	// pressed, Play off. Off again, the next page opens out of it.
	click(t, ctx, `[data-action="predict"]`)
	waitJS(t, ctx, `document.querySelector('#btn-predict').getAttribute('aria-pressed') === 'true' && document.querySelector('#btn-play').getAttribute('aria-disabled') === 'true'`, "predict mode on")
	if !eval[bool](t, ctx, `performance.getEntriesByType('resource').some(r => r.name.includes('/static/predict.js?v='))`) {
		t.Error("predict mode is on without predict.js loaded")
	}
	click(t, ctx, `[data-action="predict"]`)
	waitJS(t, ctx, `document.querySelector('#btn-predict').getAttribute('aria-pressed') === 'false'`, "predict mode off")

	run(t, ctx, chromedp.Navigate(ts.url+lessonURL(lessons[1].ID, 1, "en", false)))
	waitStep(t, ctx, 1)
	second := read()
	t.Logf("second lesson page: %d bytes (document %d)", second.total(), second.Document)
	if second.total() > 15_000 {
		t.Errorf("second lesson page: %d bytes, over 15 KB", second.total())
	}
}
