package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"golang.org/x/net/html"

	"lockstep/sim"
	"lockstep/static"
	"lockstep/templates"
	"lockstep/view"
)

func get(t *testing.T, url string, header http.Header) (*http.Response, string) {
	t.Helper()
	return getHost(t, url, "", header)
}

// serveGet has srv answer a GET of path in process, under a host name the
// loopback server answers (webnet.HostRule), and returns the recorded response.
func serveGet(srv *Server, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1:8080"
	srv.ServeHTTP(w, req)
	return w
}

// getHost is get with the Host header set to host ("": the URL's).
func getHost(t *testing.T, url, host string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestCoursePage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	all := testLessons(t)
	resp, body := get(t, hs.URL+"/", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, type %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Fatalf("CSP %q", csp)
	}
	// Every lesson in order, with its title, summary and variant.
	cards := parseDOM(t, body).all(withAttr("data-lesson", ""))
	if len(cards) != len(all) {
		t.Fatalf("%d lessons on the course page, want %d", len(cards), len(all))
	}
	for i, l := range all {
		if id, _ := attr(cards[i], "data-lesson"); id != l.ID {
			t.Fatalf("lesson %d is %s, want %s", i+1, id, l.ID)
		}
		text := textOf(cards[i])
		for _, s := range []string{strings.Join(strings.Fields(l.Title.In(sim.English)), " "), strings.Join(strings.Fields(l.Summary.In(sim.English)), " "), l.Variant} {
			if !strings.Contains(text, s) {
				t.Errorf("lesson %s's card lacks %q", l.ID, s)
			}
		}
	}
	// Lesson text is escaped (testdata/forks.yaml carries markup): it
	// makes no element and reads as written.
	page := parseDOM(t, body)
	if page.has(lessonMarkup) || !page.hasText("<script>alert(1)</script>") || !page.hasText("a <b>leak</b>") {
		t.Fatal("lesson text is not escaped on the course page")
	}
	if backendLabel(t, body) != "embedded Redis" {
		t.Fatal("no backend badge")
	}
	// No request may leave the origin: no absolute URL in src or href.
	if u := page.offOrigin(); len(u) > 0 {
		t.Fatalf("course page links outside its origin: %s", u)
	}
}

// lessonMarkup matches the elements the markup in testdata/forks.yaml's
// texts would make if it were not escaped (the page's own scripts are
// files: a script with a src).
func lessonMarkup(n *html.Node) bool {
	return n.Data == "script" && !hasAttr(n, "src") || n.Data == "img" || n.Data == "b"
}

// playerStep is the step the player page opens at (its data-step).
func playerStep(t *testing.T, body string) string {
	t.Helper()
	step, _ := attr(parseDOM(t, body).one(t, "player", withAttr("id", "player")), "data-step")
	return step
}

func TestLanguageNegotiation(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	cases := []struct {
		accept, query, want string
	}{
		{"", "", "en"},
		{"fr-FR,fr;q=0.9", "", "en"},
		{"zh-CN,zh;q=0.9,en;q=0.8", "", "zh-CN"},
		{"zh", "", "zh-CN"},
		{"zh-TW", "", "zh-TW"},
		{"zh-HK,zh;q=0.5", "", "zh-TW"},
		{"zh-Hant", "", "zh-TW"},
		{"en-GB,zh-CN;q=0.5", "", "en"},
		{"zh-CN", "en", "en"},
		{"en", "zh-TW", "zh-TW"},
		{"en", "xx", "en"},
	}
	for _, c := range cases {
		u := hs.URL + "/lessons/nested-reentry"
		if c.query != "" {
			u += "?lang=" + c.query
		}
		_, body := get(t, u, http.Header{"Accept-Language": {c.accept}})
		if pageLang(t, body) != c.want {
			t.Errorf("Accept-Language %q, lang=%q: page is not in %s", c.accept, c.query, c.want)
		}
	}
}

func TestPlayerPage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	resp, body := get(t, hs.URL+"/lessons/stale-owner?step=4&lang=zh-CN", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if lang := pageLang(t, body); lang != "zh-CN" {
		t.Errorf("player page in %q", lang)
	}
	page := parseDOM(t, body)
	player := page.one(t, "player", withAttr("id", "player"))
	if id, _ := attr(player, "data-lesson"); id != "stale-owner" || playerStep(t, body) != "4" {
		t.Errorf("player of %q at step %q, want stale-owner at 4", id, playerStep(t, body))
	}
	for _, a := range []string{"data-panel=narration", "data-panel=timeline", "data-panel=redis", "data-panel=diagram", "data-panel=command", "aria-live=polite", "id=scrubber"} {
		key, value, _ := strings.Cut(a, "=")
		if !page.has(withAttr(key, value)) {
			t.Errorf("player page lacks %s", a)
		}
	}
	// ?step= reads as a websocket message's step does (any whole number),
	// clamped to the lesson's steps; anything else is step 0.
	last := len(lessonByID(t, testLessons(t), "nested-reentry").Steps)
	for q, want := range map[string]int{"-3": 0, "abc": 0, "99999": last, "1e9": last, "1e400": last, "7.0": 7, "2e0": 2, "2.5": 0, "0x10": 0, "1e-400": 0, "": 0, "%2B5": 0} {
		resp, body := get(t, hs.URL+"/lessons/nested-reentry?step="+q, nil)
		if got := playerStep(t, body); resp.StatusCode != 200 || got != strconv.Itoa(want) {
			t.Errorf("step=%s: status %d, step %s, want step %d", q, resp.StatusCode, got, want)
		}
	}
	if resp, _ := get(t, hs.URL+"/lessons/no-such-lesson", nil); resp.StatusCode != 404 {
		t.Errorf("unknown lesson: status %d", resp.StatusCode)
	}
	if resp, _ := get(t, hs.URL+"/nothing-here", nil); resp.StatusCode != 404 {
		t.Errorf("unknown path: status %d", resp.StatusCode)
	}
}

func TestMermaidDownload(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, l := range sim.Locales {
		resp, body := get(t, hs.URL+"/diagram.mmd?lang="+string(l), nil)
		if resp.StatusCode != 200 || body != sim.Mermaid(l, tr(l).cat) || !strings.HasPrefix(body, "stateDiagram-v2") {
			t.Fatalf("%s: status %d body %q", l, resp.StatusCode, body)
		}
		if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, "lock-states.mmd") {
			t.Fatalf("Content-Disposition %q", cd)
		}
	}
}

func TestStaticFiles(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, name := range []string{"app.css", "presenter.css", "main.js", "app.js", "icon.svg"} {
		u := static.URL("/static/", name)
		resp, body := get(t, hs.URL+u, nil)
		if resp.StatusCode != 200 || len(body) == 0 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
			t.Fatalf("%s: status %d, cache %q", u, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	if resp, _ := get(t, hs.URL+"/static/", nil); resp.StatusCode != 404 {
		t.Errorf("/static/ lists files: %d", resp.StatusCode)
	}
	if resp, _ := get(t, hs.URL+"/static/../go.mod", nil); resp.StatusCode == 200 {
		t.Errorf("path traversal served a file")
	}
}

// TestPageWeight keeps the player page and what it loads (HTML, CSS, the
// script's modules, icon) under 210 KB (200 until issue 38 added the
// presenter's room layout and the class strip), and checks it loads nothing from elsewhere.
// Presenter mode's stylesheet is linked only by a page opened in the mode
// (issue 34); out of it the page names it for its script to link.
func TestPageWeight(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	staticPaths := func(page string) []string {
		var paths []string
		for _, n := range parseDOM(t, page).all(func(*html.Node) bool { return true }) {
			for _, a := range n.Attr {
				if (a.Key == "src" || a.Key == "href") && strings.HasPrefix(a.Val, "/static/") {
					paths = append(paths, a.Val)
				}
			}
		}
		return paths
	}
	presenterCSS := static.URL("/static/", "presenter.css")
	_, presenting := get(t, hs.URL+"/lessons/stale-owner?lang=zh-CN&present=1", nil)
	if got := staticPaths(presenting); len(got) != 4 || !slices.Contains(got, presenterCSS) { // app.css, presenter.css, main.js, icon.svg
		t.Fatalf("a page in presenter mode loads %v, want app.css, presenter.css, main.js, icon.svg", got)
	}
	_, page := get(t, hs.URL+"/lessons/stale-owner?lang=zh-CN", nil)
	total := len(page)
	paths := staticPaths(page)
	if len(paths) != 3 || slices.Contains(paths, presenterCSS) { // app.css, main.js, icon.svg
		t.Fatalf("page loads %v, want app.css, main.js, icon.svg", paths)
	}
	if got, _ := attr(parseDOM(t, page).one(t, "#player", withAttr("id", "player")), "data-presenter-css"); got != presenterCSS {
		t.Errorf("#player's data-presenter-css is %q, want %q", got, presenterCSS)
	}
	// The script is ES modules: main.js, which loads app.js on a player
	// page, and what they import, each once (the classroom's and predict
	// mode's, loaded by import() only where a class is or the mode is on,
	// not).
	paths = append(paths, static.URL("/static/", "app.js"))
	imports := regexp.MustCompile(`(?m)^(?:import|export)\b[^;"']*?"\./([^"]+)"`)
	seen := map[string]bool{}
	for len(paths) > 0 {
		p := paths[0]
		paths = paths[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		_, body := get(t, hs.URL+p, nil)
		total += len(body)
		for _, m := range imports.FindAllStringSubmatch(body, -1) {
			paths = append(paths, "/static/"+m[1])
		}
	}
	if len(seen) < 8 {
		t.Fatalf("page loads %d static files with its modules", len(seen))
	}
	t.Logf("page weight: %d bytes (%.1f KB)", total, float64(total)/1024)
	if total > 210*1024 {
		t.Fatalf("page weighs %d bytes, over 210 KB", total)
	}
}

// TestMessageFiles checks that the three message files have the same ids,
// that every UI field has a message, and that none is left untranslated.
func TestMessageFiles(t *testing.T) {
	t.Parallel()
	ids := map[string]map[string]string{}
	for _, l := range sim.Locales {
		var m map[string]string
		if _, err := toml.DecodeFile("../catalog/ui."+string(l)+".toml", &m); err != nil {
			t.Fatal(err)
		}
		ids[string(l)] = m
	}
	for id := range ids["en"] {
		for _, l := range []string{"zh-CN", "zh-TW"} {
			if ids[l][id] == "" {
				t.Errorf("%s has no %s", l, id)
			}
		}
	}
	for _, l := range []string{"zh-CN", "zh-TW"} {
		for id := range ids[l] {
			if _, ok := ids["en"][id]; !ok {
				t.Errorf("%s has %s, which en lacks", l, id)
			}
		}
	}
	typ := reflect.TypeOf(templates.UI{})
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		if ids["en"][name] == "" {
			t.Errorf("no message for UI field %s", name)
		}
	}
	for _, l := range sim.Locales {
		ui := reflect.ValueOf(tr(l).UI())
		for i := 0; i < typ.NumField(); i++ {
			if v := ui.Field(i).String(); v == "" || v != ids[string(l)][typ.Field(i).Name] {
				t.Errorf("%s: UI field %s is %q, not its message", l, typ.Field(i).Name, v)
			}
		}
	}
	// The Chinese terms of the glossary.
	for l, terms := range map[string][]string{
		"zh-CN": {"可重入", "持有次数", "租约", "令牌", "栅栏令牌", "看门狗"},
		"zh-TW": {"可重入", "持有次數", "租約", "令牌", "柵欄令牌", "看門狗"},
	} {
		src, err := os.ReadFile("../catalog/ui." + l + ".toml")
		if err != nil {
			t.Fatal(err)
		}
		for _, term := range terms {
			if !strings.Contains(string(src), term) {
				t.Errorf("%s never says %s", l, term)
			}
		}
	}
	// Every outcome, action and invariant has a message.
	for _, o := range []sim.Outcome{sim.Acquired, sim.Reentered, sim.Busy, sim.Lost, sim.NoContext, sim.Released, sim.StillHeld,
		sim.NotOwner, sim.TimedOut, sim.Pending, sim.Accepted, sim.Renewed, sim.Gone, sim.Rejected, sim.OK, sim.ScriptBusy} {
		if ids["en"]["Outcome"+string(o)] == "" {
			t.Errorf("no gloss for outcome %s", o)
		}
	}
	for _, a := range sim.Actions {
		if ids["en"]["Act"+view.Camel(string(a))] == "" {
			t.Errorf("no name for action %s", a)
		}
	}
	for _, inv := range sim.Invariants {
		if ids["en"][view.InvariantTitleID(inv)] == "" {
			t.Errorf("no title for invariant %s", inv)
		}
	}
	for _, g := range sim.Groups {
		if ids["en"]["Group"+view.Camel(g)] == "" {
			t.Errorf("no title for group %s", g)
		}
	}
}

// checkWholePanels checks a whole frame's panels (view.Panels) of lesson l
// at step cur, drawn by v: lesson text is escaped in every panel, the
// diagram highlights the lock's state and the timeline has a column per
// step and a lane per actor. TestTimelinePatchesEveryLesson calls it for
// every step of every lesson in every language, on the whole frames it
// draws anyway.
func checkWholePanels(t *testing.T, l *sim.Lesson, frames []sim.Frame, cur int, panels map[string]string, v *view.Step) {
	t.Helper()
	doms := map[string]dom{}
	for name, markup := range panels {
		if doms[name] = parseDOM(t, markup); doms[name].has(lessonMarkup) {
			t.Fatalf("step %d: %s panel has unescaped lesson markup", cur, name)
		}
	}
	if len(doms[view.PanelDiagram].all(withAttr("data-state", string(focusState(l, frames[cur]))))) == 0 {
		t.Fatalf("step %d: diagram does not highlight %s", cur, focusState(l, frames[cur]))
	}
	if got := len(doms[view.PanelTimeline].all(withAttr("data-col", ""))); got != len(l.Steps)+1 {
		t.Fatalf("step %d: timeline has %d columns", cur, got)
	}
	tl := v.Timeline()
	if tl.Width != (len(l.Steps)+1)*view.TimelineColumnWidth || len(tl.Lanes) != laneCount(l)+1 {
		t.Fatalf("step %d: timeline %d wide with %d lanes", cur, tl.Width, len(tl.Lanes))
	}
}

// TestStaleOwnerDrawn checks the timeline shades the window where an actor
// believes it holds a lock Redis no longer gives it, and draws pauses,
// crashes and forks.
func TestStaleOwnerDrawn(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	l := staleLesson(t, all)
	frames := expectedFrames(t, l)
	k := staleStep(frames)
	v := view.New(view.Input{Texts: tr(sim.English), Lesson: l, Frames: frames[:k+1], Cur: k})
	tl := v.Timeline()
	has := func(rects []templates.TLRect, class string, x int) bool {
		for _, r := range rects {
			if r.Class == class && r.X == x {
				return true
			}
		}
		return false
	}
	if !has(tl.AllRects(), "zone-stale", k*view.TimelineColumnWidth) || !has(tl.AllRects(), "belief stale", k*view.TimelineColumnWidth+1) {
		t.Fatalf("stale window not drawn at step %d", k)
	}
	if has(tl.AllRects(), "zone-stale", (k-1)*view.TimelineColumnWidth) {
		t.Fatalf("stale window drawn before step %d", k)
	}
	if !strings.Contains(v.Alerts().Stale[0], "Redis no longer keeps its owner id") {
		t.Fatalf("no stale-owner notice")
	}
	forks := lessonByID(t, all, "test-forks")
	ff := expectedFrames(t, forks)
	fv := view.New(view.Input{Texts: tr(sim.English), Lesson: forks, Frames: ff, Cur: len(ff) - 1})
	ftl := fv.Timeline()
	classes := map[string]bool{}
	for _, r := range ftl.AllRects() {
		classes[r.Class] = true
	}
	for _, p := range ftl.AllPaths() {
		classes[p.Class] = true
	}
	for _, c := range []string{"zone-crashed", "token-only", "chip forked-start", "fork-line", "call-line", "lease", "truth", "belief"} {
		if !classes[c] {
			t.Errorf("forks lesson: no %s drawn", c)
		}
	}
	so := lessonByID(t, all, "test-stale-owner")
	sf := expectedFrames(t, so)
	sv := view.New(view.Input{Texts: tr(sim.English), Lesson: so, Frames: sf, Cur: len(sf) - 1})
	paused := false
	for _, r := range sv.Timeline().AllRects() {
		paused = paused || r.Class == "zone-paused"
	}
	if !paused {
		t.Error("no pause drawn")
	}
}

// laneCount is how many actor lanes the timeline of l has: one per actor,
// declared or forked.
func laneCount(l *sim.Lesson) int {
	forked := map[string]bool{}
	n := 0
	for _, st := range l.Steps {
		if st.Do == sim.ActFork {
			forked[st.Child] = true
			n++
		}
	}
	for _, a := range l.Actors {
		if !forked[a.ID] {
			n++
		}
	}
	return n
}
