package web

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// frameTimeline reads a frame message's share code.
func frameTimeline(t *testing.T, c *wsClient) (serverMsg, string) {
	t.Helper()
	_ = c.conn.SetReadDeadline(timeoutFromNow())
	_, data, err := c.conn.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m serverMsg
	var extra struct {
		Timeline string `json:"timeline"`
		URL      string `json:"url"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(data, &extra)
	if m.Type != MsgFrame {
		t.Fatalf("got %s (%s %s), want frame", m.Type, m.Code, m.Message)
	}
	if extra.Timeline != "" && !strings.Contains(extra.URL, url.QueryEscape(extra.Timeline)) {
		t.Fatalf("frame url %q does not carry the timeline", extra.URL)
	}
	return m, extra.Timeline
}

// TestProtocolForkUndoShare forks a lesson at a step, checks the kept steps
// and the new one, opens the share code on a second connection and gets
// the same frames, then undoes.
func TestProtocolForkUndoShare(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	all := testLessons(t)
	l := lessonByID(t, all, "stale-owner")
	want := expectedFrames(t, l)
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(map[string]any{"type": "load", "lesson": "stale-owner", "step": 4})
	if m, code := frameTimeline(t, c); m.Step != 4 || code != "" || m.Panels[view.PanelExplore] == "" {
		t.Fatalf("load: step %d, timeline %q, explore panel %d bytes", m.Step, code, len(m.Panels[view.PanelExplore]))
	}
	// What if A resumed right after the expiry, before B acquires?
	c.send(map[string]any{"type": "fork", "id": 7, "at": 4, "action": map[string]any{"actor": "A", "do": "resume"}})
	m, code := frameTimeline(t, c)
	if m.Re != 7 || m.Step != 5 || m.Total != 5 || code == "" || m.Chrome == nil {
		t.Fatalf("fork: re %d step %d/%d code %q chrome %v", m.Re, m.Step, m.Total, code, m.Chrome != nil)
	}
	title := parseDOM(t, m.Chrome[chromeHeader]).text(t, "lesson title", withAttr("id", "lesson-title"))
	origin, _ := attr(parseDOM(t, m.Panels[view.PanelExplore]).one(t, "origin link", byTestID("origin-link")), "href")
	if !strings.HasPrefix(title, "What if") || !strings.HasPrefix(origin, "/lessons/stale-owner?") {
		t.Fatalf("a fork's header and panel name the lesson it comes from: title %q, origin link %q", title, origin)
	}
	if m.Lesson != "stale-owner-fork" {
		t.Fatalf("fork id %q", m.Lesson)
	}
	// The next step: A, now running, acquires. Its lease expired, so the
	// nested acquire comes back LOST.
	c.send(map[string]any{"type": "fork", "action": map[string]any{"actor": "A", "do": "acquire"}})
	m, code = frameTimeline(t, c)
	f := frameOf(t, m)
	if m.Step != 6 || f.Outcome != sim.Lost {
		t.Fatalf("nested acquire after expiry: step %d %s", m.Step, f.Outcome)
	}
	if say := parseDOM(t, m.Panels[view.PanelNarration]).text(t, "narration", byTestID("say")); !strings.Contains(say, "expired") {
		t.Fatalf("the added step is narrated: %q", say)
	}
	// The kept steps are the lesson's.
	for i := 0; i <= 4; i++ {
		c.send(map[string]any{"type": "seek", "step": i})
		m, _ := frameTimeline(t, c)
		got := frameOf(t, m)
		if got.Outcome != want[i].Outcome || got.TimeMS != want[i].TimeMS || len(got.Say) != len(want[i].Say) {
			t.Fatalf("kept step %d: %s at %d, want %s at %d", i, got.Outcome, got.TimeMS, want[i].Outcome, want[i].TimeMS)
		}
	}
	// The share code on another connection: the same frames.
	c2 := dial(t, hs, nil)
	c2.expect(MsgHello)
	c2.send(map[string]any{"type": "load", "timeline": code, "step": 6})
	m2, code2 := frameTimeline(t, c2)
	if code2 != code || m2.Step != 6 || m2.Total != 6 {
		t.Fatalf("shared: step %d/%d", m2.Step, m2.Total)
	}
	sameFrame(t, frameOf(t, m2), f)
	// Undo drops the last step.
	c.send(map[string]any{"type": "undo", "id": 9})
	m, code3 := frameTimeline(t, c)
	if m.Re != 9 || m.Total != 5 || code3 == code {
		t.Fatalf("undo: re %d total %d", m.Re, m.Total)
	}
	if on, off := undoState(t, m.Panels[view.PanelTools]); !on || off {
		t.Fatalf("undo is off with a step still added: %s", m.Panels[view.PanelTools])
	}
	// Undo stops at the fork: the 4 steps left are the lesson's, not added
	// here (the origin link goes back to the lesson itself).
	c.send(map[string]any{"type": "undo", "id": 19})
	if m, _ := frameTimeline(t, c); m.Re != 19 || m.Total != 4 || !undoOff(t, m.Panels[view.PanelTools]) || !strings.HasPrefix(undoTitle(t, m.Panels[view.PanelTools]), "Nothing to undo") {
		t.Fatalf("undo back to the fork: re %d total %d, tools %s", m.Re, m.Total, m.Panels[view.PanelTools])
	}
	c.send(map[string]any{"type": "undo", "id": 20})
	if e := c.expect(MsgError); e.Re != 20 || e.Code != ErrCodeBadStep || !strings.Contains(e.Message, "lesson stale-owner's") || !strings.Contains(e.Message, "/lessons/stale-owner?") {
		t.Fatalf("undo past the fork: %+v", e)
	}
	c.send(map[string]any{"type": "seek", "step": 4})
	if m, _ := frameTimeline(t, c); m.Total != 4 {
		t.Fatalf("after a refused undo: total %d", m.Total)
	}
	// Errors: an impossible step, undo of a course lesson, a bad link.
	c.send(map[string]any{"type": "fork", "id": 10, "at": 2, "action": map[string]any{"actor": "A", "do": "resume"}})
	if e := c.expect(MsgError); e.Re != 10 || e.Code != ErrCodeBadStep || !strings.Contains(e.Message, "not paused") || strings.HasPrefix(e.Message, "web: ") {
		t.Fatalf("impossible fork: %+v", e)
	}
	c2.send(map[string]any{"type": "load", "lesson": "stale-owner"})
	frameTimeline(t, c2)
	c2.send(map[string]any{"type": "undo", "id": 3})
	if e := c2.expect(MsgError); e.Code != ErrCodeBadStep {
		t.Fatalf("undo of a lesson: %+v", e)
	}
	for _, bad := range []string{"1.AAAA", "9.xyz", code[:len(code)-3], strings.Replace(code, "1.", "1.A", 1)} {
		c2.send(map[string]any{"type": "load", "timeline": bad, "id": 4})
		// The link's problem in the catalogue's words, not the Go error.
		_, derr := srv.decodeTimeline(bad)
		if e := c2.expect(MsgError); e.Code != ErrCodeBadLink || derr == nil || e.Message != srv.tr(sim.English).Err(derr) || strings.HasPrefix(e.Message, "web: ") {
			t.Fatalf("bad link %q: %+v", bad, e)
		}
	}
	c2.send(map[string]any{"type": "fork", "id": 5})
	if e := c2.expect(MsgError); e.Code != ErrCodeBadField {
		t.Fatalf("fork without action: %+v", e)
	}
	// A refused fork leaves the run as it was.
	c2.send(map[string]any{"type": "fork", "id": 6, "action": map[string]any{"actor": "A", "do": "acquire", "lock": "a\tb"}})
	if e := c2.expect(MsgError); e.Code != ErrCodeBadStep || !strings.Contains(e.Message, "lock name") {
		t.Fatalf("fork with a bad lock name: %+v", e)
	}
	c2.send(map[string]any{"type": "step", "id": 7})
	if m := c2.expect(MsgFrame); m.Step != 1 || m.Lesson != "stale-owner" {
		t.Fatalf("after a refused fork: step %d of %s", m.Step, m.Lesson)
	}
	// The panel's export links and compare form carry the share code.
	tools := parseDOM(t, m.Panels[view.PanelTools])
	yaml := tools.one(t, "YAML export", withAttr("data-export", "yaml"))
	field := tools.one(t, "compare form's timeline", withAttr("data-timeline-field", ""))
	if href, _ := attr(yaml, "href"); !strings.HasPrefix(href, "/explore/export.yaml?t="+code3+"&") {
		t.Fatalf("the YAML export links to %q, not the timeline's code", href)
	}
	if v, _ := attr(field, "value"); v != code3 {
		t.Fatalf("export links of a timeline without its code:\n%s", m.Panels[view.PanelTools])
	}
}

// TestExplorePages covers the explore page, a sandbox, exports, import and
// compare over HTTP.
func TestExplorePages(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	get := func(path string, want int) string {
		t.Helper()
		return getPage(t, hs.URL, path, want)
	}
	if page := parseDOM(t, get("/explore?lang=zh-CN", 200)); page.text(t, "sandbox heading", withAttr("id", "sandbox-title")) != "新建沙盒" ||
		page.text(t, "import heading", withAttr("id", "import-title")) != "导入课程文件" {
		t.Fatal("explore page in zh-CN")
	}
	loc := get("/explore/new?variant=hash-refresh&lease_ms=10000&actors=3&lock=cart&fencing=1", http.StatusSeeOther)
	u, err := url.Parse(loc)
	if err != nil || u.Path != "/explore" {
		t.Fatalf("sandbox redirect %q", loc)
	}
	code := u.Query().Get("t")
	l, o, err := explore.Decode(code, sim.Options{})
	if err != nil || l.Variant != "hash-refresh" || len(l.Actors) != 3 || !l.Fencing || l.Lock != "cart" || o.Lesson != "" {
		t.Fatalf("sandbox: %+v %v", l, err)
	}
	if body := get(loc, 200); len(parseDOM(t, body).all(withAttr("data-timeline", code))) != 1 {
		t.Fatal("the player page of a timeline carries its code")
	}
	long := strings.Repeat("x", sim.MaxLockName+1) // any text may name a lock, up to a bound
	if body := get("/explore/new?variant=hash-nil&lease_ms=10&actors=5&lock="+long+"&fencing=1", 400); !sandboxKept(t, body, "lock name", long, "5", "hash-nil") {
		t.Fatalf("a refused sandbox keeps what was typed and says why:\n%s", body)
	}
	if body := parseDOM(t, get("/explore/new?variant=token-count&lease_ms=ten&actors=1", 400)); !strings.Contains(body.text(t, "sandbox error", byTestID("sandbox-error")), "lease_ms") {
		t.Fatal("a bad number names its field")
	}
	if body := parseDOM(t, get("/explore?t=1.AAAA&lang=zh-TW", 400)); !badLinkExplained(t, body, "無法開啟這條時間軸", "連結已損毀") || strings.Contains(textOf(body.root), "bad share link") {
		t.Fatal("a bad link is explained, in the page's language")
	}
	// Exports of a course lesson and of a timeline.
	yml := get("/explore/export.yaml?lesson=stale-owner", 200)
	back, err := sim.Load("export.yaml", []byte(yml))
	if err != nil || back.ID != "stale-owner" {
		t.Fatalf("exported YAML does not load: %v", err)
	}
	if mmd := get("/explore/export.mmd?t="+url.QueryEscape(code), 200); !strings.HasPrefix(mmd, "sequenceDiagram") {
		t.Fatalf("mermaid: %.80s", mmd)
	}
	if svg := parseDOM(t, get("/explore/export.svg?lesson=stale-owner&lang=zh-CN", 200)); len(svg.all(tag("svg"))) == 0 {
		t.Fatal("svg export")
	}
	get("/explore/export.yaml?lesson=nope", 400)
	// An empty sandbox has no lesson file to export (one that could not
	// load back); with a step, its export is a complete lesson with a
	// unique id, which loads.
	if body := get("/explore/export.yaml?t="+url.QueryEscape(code), 422); !strings.Contains(body, "no steps yet") {
		t.Fatalf("empty sandbox export: %s", body)
	}
	stepped, err := explore.Fork(l, 0, sim.Step{Actor: "A", Do: sim.ActAcquire, Lock: l.Lock})
	if err != nil {
		t.Fatal(err)
	}
	code1, err := explore.Encode(stepped, o, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	yml = get("/explore/export.yaml?t="+url.QueryEscape(code1), 200)
	if !strings.Contains(yml, "id: sandbox-") || !strings.Contains(yml, "takeaway:") {
		t.Fatalf("sandbox export:\n%s", yml)
	}
	if back, err := sim.Load("sandbox.yaml", []byte(yml)); err != nil || len(back.Steps) != 1 {
		t.Fatalf("the sandbox's export does not load back: %v", err)
	}
	if cmp := parseDOM(t, get("/explore/compare?t="+url.QueryEscape(code), 200)); !strings.Contains(cmp.text(t, "compare summary", byTestID("compare-summary")), "no steps yet") {
		t.Fatal("compare of an empty timeline says so")
	}
	get("/explore/export.yaml", 400)
	// Compare.
	cmp := get("/explore/compare?lesson=nested-after-expiry-silent&a=hash-refresh&b=token-count", 200)
	if cmpDOM := parseDOM(t, cmp); !strings.Contains(cmpDOM.text(t, "compare summary", byTestID("compare-summary")), "first differ at step") || len(cmpDOM.all(withAttr("class", "differs first"))) != 1 {
		t.Fatal("compare marks the first difference")
	}
	if cmp := parseDOM(t, get("/explore/compare?lesson=stale-owner&a=token-count&b=nope", 422)); !strings.Contains(cmp.text(t, "compare error", byTestID("compare-error")), "unknown variant") {
		t.Fatal("compare with an unknown variant")
	}
	// Import: a good file redirects, a bad one comes back with its errors
	// at their lines and the text kept.
	post := func(field, name, text string, wantStatus int) (string, string) {
		t.Helper()
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		if field == "file" {
			fw, _ := mw.CreateFormFile("file", name)
			fw.Write([]byte(text))
		} else {
			mw.WriteField("yaml", text)
		}
		mw.Close()
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/explore/import?lang=en", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := noRedirect().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != wantStatus {
			t.Fatalf("import: %d, want %d\n%s", resp.StatusCode, wantStatus, b)
		}
		return resp.Header.Get("Location"), string(b)
	}
	if loc, _ := post("file", "mine.yaml", yml, http.StatusSeeOther); !strings.HasPrefix(loc, "/explore?") {
		t.Fatalf("import redirect %q", loc)
	}
	bad := "title: x\nvariant: token-count\nlease: 30s\nactors:\n  - id: A\nsteps:\n  - actor: A\n    do: jump\n"
	_, body := post("yaml", "", bad, http.StatusUnprocessableEntity)
	line8 := parseDOM(t, body).one(t, "line 8", withAttr("id", "line-8"))
	if cls, _ := attr(line8, "class"); !importErrorAt(t, body, "pasted.yaml:8:") || cls != "error" || !strings.Contains(textOf(line8), "do: jump") {
		t.Fatalf("import errors at their lines:\n%s", body)
	}
	_, body = post("file", "bad.yaml", bad, http.StatusUnprocessableEntity)
	if !importErrorAt(t, body, "bad.yaml:8:") {
		t.Fatal("an uploaded file's errors name the file")
	}
	post("yaml", "", "   ", http.StatusBadRequest)
	post("yaml", "", strings.Repeat("#", MaxImportBytes+10), http.StatusRequestEntityTooLarge)
}

// sandboxKept reports whether the explore page says why a sandbox was
// refused (its error naming why) and keeps what was typed: the lock, the
// number of actors and the variant.
func sandboxKept(t *testing.T, body, why, lock, actors, variant string) bool {
	t.Helper()
	page := parseDOM(t, body)
	form := dom{page.one(t, "sandbox form", byTestID("sandbox-form"))}
	picked := form.all(and(tag("option"), withAttr("selected", "")))
	v := ""
	if len(picked) == 1 {
		v, _ = attr(picked[0], "value")
	}
	return strings.Contains(page.text(t, "sandbox error", byTestID("sandbox-error")), why) &&
		form.value(t, "lock") == lock && form.value(t, "actors") == actors && v == variant
}

// badLinkExplained reports whether the explore page's bad-link notice has
// the title, the reason and the detail given.
func badLinkExplained(t *testing.T, page dom, title, reason string) bool {
	t.Helper()
	notice := dom{page.one(t, "bad-link notice", byTestID("bad-link"))}
	return notice.text(t, "title", tag("h2")) == title &&
		strings.Contains(notice.text(t, "reason", byTestID("bad-link-reason")), reason)
}

// importErrorAt reports whether the import's error list has an error at
// where ("pasted.yaml:8:").
func importErrorAt(t *testing.T, body, where string) bool {
	t.Helper()
	list := dom{parseDOM(t, body).one(t, "import errors", byTestID("import-errors"))}
	for _, li := range list.all(tag("li")) {
		if c := (dom{li}).all(tag("code")); len(c) > 0 && strings.HasPrefix(textOf(c[0]), where) && li.Parent.Data == "ul" {
			return true
		}
	}
	return false
}

func timeoutFromNow() time.Time { return time.Now().Add(60 * time.Second) }

// A timeline with no step (an empty sandbox): play does not claim to play,
// and the YAML export is shown off with the reason, in the page's language,
// until a step is added.
func TestEmptyTimeline(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	l, err := explore.Sandbox(tr(sim.English).cat, explore.SandboxConfig{Variant: "token-count", LeaseMS: 30000, Actors: 2})
	if err != nil {
		t.Fatal(err)
	}
	code, err := explore.Encode(l, explore.Origin{}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, m := loadedSession(t, hs, ClientMessage{ID: 1, Timeline: code, Lang: "zh-CN"})
	if m.Total != 0 {
		t.Fatalf("an empty sandbox has %d steps", m.Total)
	}
	tools := parseDOM(t, m.Panels[view.PanelTools])
	if off, _ := attr(tools.one(t, "YAML export shown off", byTestID("export-yaml-off")), "title"); tools.has(hrefPrefix("/explore/export.yaml")) || !strings.Contains(off, "课程文件至少要有一步") {
		t.Fatalf("an empty timeline's tools offer a YAML export, or do not say why not:\n%s", m.Panels[view.PanelTools])
	}
	if !tools.has(hrefPrefix("/explore/export.mmd")) || !tools.has(hrefPrefix("/explore/export.svg")) {
		t.Fatalf("an empty timeline's tools lose the other exports:\n%s", m.Panels[view.PanelTools])
	}
	c.send(ClientMessage{Type: MsgPlay, ID: 2})
	if m := c.expect(MsgState); m.Re != 2 || m.Playing {
		t.Fatalf("play on no step: %+v", m)
	}
	c.send(ClientMessage{Type: MsgStep, ID: 3})
	if m := c.expect(MsgFrame); m.Step != 0 || m.Playing {
		t.Fatalf("a step after it: step %d playing %v", m.Step, m.Playing)
	}
	c.send(map[string]any{"type": "fork", "id": 4, "action": map[string]any{"actor": "A", "do": "acquire"}})
	m = c.expect(MsgFrame)
	if tools := parseDOM(t, m.Panels[view.PanelTools]); m.Total != 1 || !tools.has(hrefPrefix("/explore/export.yaml")) || tools.has(byTestID("export-yaml-off")) {
		t.Fatalf("after a step: %d steps, tools:\n%s", m.Total, m.Panels[view.PanelTools])
	}
}

// TestProtocolUndoForkOfUnknownLesson: a fork's share link opened on a
// server without its lesson undoes the steps added to it, and stops at the
// fork point as it does where the lesson is known (it used to go on and
// fail there with an error about the share code).
func TestProtocolUndoForkOfUnknownLesson(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	_, hs := newTestHTTP(t, Config{Lessons: all})
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	c.send(map[string]any{"type": "load", "lesson": "stale-owner", "step": 4})
	frameTimeline(t, c)
	c.send(map[string]any{"type": "fork", "action": map[string]any{"actor": "A", "do": "resume"}})
	frameTimeline(t, c)
	c.send(map[string]any{"type": "fork", "action": map[string]any{"actor": "A", "do": "acquire"}})
	m, code := frameTimeline(t, c)
	if m.Total != 6 || code == "" {
		t.Fatalf("fork: total %d code %q", m.Total, code)
	}
	var without []*sim.Lesson
	for _, l := range all {
		if l.ID != "stale-owner" {
			without = append(without, l)
		}
	}
	_, hs2 := newTestHTTP(t, Config{Lessons: without})
	c2 := dial(t, hs2, nil)
	c2.expect(MsgHello)
	c2.send(map[string]any{"type": "load", "timeline": code, "step": 6})
	if m, _ := frameTimeline(t, c2); m.Total != 6 || undoOff(t, m.Panels[view.PanelTools]) {
		t.Fatalf("the fork on a server without its lesson: total %d, tools %s", m.Total, m.Panels[view.PanelTools])
	}
	for _, want := range []int{5, 4} {
		c2.send(map[string]any{"type": "undo"})
		m, _ := frameTimeline(t, c2)
		if off := undoOff(t, m.Panels[view.PanelTools]); m.Total != want || off != (want == 4) {
			t.Fatalf("undo: total %d (want %d), undo off %v", m.Total, want, off)
		}
	}
	c2.send(map[string]any{"type": "undo", "id": 3})
	if e := c2.expect(MsgError); e.Re != 3 || e.Code != ErrCodeBadStep || !strings.Contains(e.Message, "nothing to undo: this fork's 4 steps are lesson stale-owner's") || strings.Contains(e.Message, "/lessons/") {
		t.Fatalf("undo past the fork of an unknown lesson: %+v", e)
	}
}

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

// TestCompareColumnRetold checks issue 19 item 6 as a new user meets it:
// Compare's hash-refresh column of lesson 12 opens a timeline whose title
// says which variant runs, whose crumb says what it is, and whose steps
// are all narrated from the run and marked so, since step 6 differs
// (steps 1-5 without the lesson's grant token, which hash-refresh has not;
// step 6 ACQUIRED, not "the script answers LOST"; step 8 under the
// overlapping-holders banner, not "nobody else believes they hold it").
func TestCompareColumnRetold(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	page := parseDOM(t, getPage(t, hs.URL, "/explore/compare?lesson=nested-after-expiry-lost&a=token-count&b=hash-refresh&lang=en", 200))
	var bURL string
	for _, a := range page.all(tag("a")) {
		if textOf(a) == "hash-refresh" {
			bURL, _ = attr(a, "href")
		}
	}
	u, err := url.Parse(bURL)
	if err != nil || u.Query().Get("t") == "" {
		t.Fatalf("the hash-refresh column links to %q", bURL)
	}
	tl, err := srv.decodeTimeline(u.Query().Get("t"))
	if err != nil {
		t.Fatal(err)
	}
	if tl.Kind != explore.KindUnder || tl.Lesson.Variant != "hash-refresh" {
		t.Fatalf("the column opens a %s under %s", tl.Kind, tl.Lesson.Variant)
	}
	en := tr(sim.English)
	h := srv.header(en, tl, u.Query().Get("t"), 0, false)
	if !strings.Contains(h.Title, "hash-refresh") || h.Crumb != en.Explore().UnderCrumb {
		t.Fatalf("title %q, crumb %q: want the variant named and the compare crumb", h.Title, h.Crumb)
	}
	frames, err := srv.runFrames(t.Context(), tl.Lesson)
	if err != nil {
		t.Fatal(err)
	}
	step := func(i int) (view.Step, sim.Frame) {
		return *view.New(view.Input{Texts: en, Lesson: tl.Lesson, Frames: frames, Cur: i}), frames[i]
	}
	for i := 1; i <= 5; i++ {
		if n := func() templates.NarrationView { v, _ := step(i); return v.Narration() }(); !n.Generated || strings.Contains(n.Say, "grant token") || n.Misconception != "" {
			t.Errorf("step %d: %q (generated %v, callout %q): want the run's narration, no grant token", i, n.Say, n.Generated, n.Misconception)
		}
	}
	v6, f6 := step(6)
	if n := v6.Narration(); f6.Outcome != sim.Acquired || !n.Generated || strings.Contains(n.Say, "LOST") {
		t.Errorf("step 6: %s under %q (generated %v)", f6.Outcome, n.Say, n.Generated)
	}
	v7, _ := step(7)
	if n := v7.Narration(); !n.Generated || strings.Contains(n.Say, "NOT_OWNER") {
		t.Errorf("step 7: %q (generated %v)", n.Say, n.Generated)
	}
	v8, f8 := step(8)
	n8 := v8.Narration()
	overlap := false
	for _, a := range v8.Alerts().Violations {
		overlap = overlap || a.Name == "overlapping-holders"
	}
	if !overlap || !n8.Generated || strings.Contains(n8.Say, "nobody else") {
		t.Errorf("step 8 (%s, overlap %v): %q (generated %v)", f8.Outcome, overlap, n8.Say, n8.Generated)
	}
	if last, _ := step(len(frames) - 1); last.Narration().Takeaway != "" {
		t.Error("the lesson's takeaway is shown under a run that left the lesson")
	}
	// The token-count column is the lesson as written: its own page.
	for _, a := range page.all(tag("a")) {
		if textOf(a) == "token-count" {
			if href, _ := attr(a, "href"); !strings.HasPrefix(href, "/lessons/nested-after-expiry-lost?") {
				t.Errorf("the lesson's own variant's column links to %q", href)
			}
		}
	}
}

// TestImportOverExploreLimits: a lesson file the loader takes but whose
// durations explore mode does not (a long script or an advance of a year)
// is refused by the import itself, 422 with the error at the step's
// FILE:LINE:COL in the page's language, not redirected to a player link
// that then answers 400.
func TestImportOverExploreLimits(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	head := "title: far\nvariant: token-count\nlease: 30s\nactors:\n  - id: R\n    name: R\nsteps:\n  - actor: R\n    do: acquire\n"
	for _, step := range []string{"  - {actor: R, do: long-script, by: 8760h}\n", "  - {do: advance, by: 8760h}\n"} {
		src := head + step
		if _, err := sim.Load("far.yaml", []byte(src)); err != nil {
			t.Fatalf("the loader refuses the file itself: %v", err)
		}
		for _, lang := range sim.Locales {
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			fw, _ := mw.CreateFormFile("file", "far.yaml")
			_, _ = fw.Write([]byte(src))
			_ = mw.Close()
			req, _ := http.NewRequest(http.MethodPost, hs.URL+"/explore/import?lang="+string(lang), &buf)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			resp, err := noRedirect().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("%s %q: status %d (Location %q), want 422", lang, step, resp.StatusCode, resp.Header.Get("Location"))
			}
			want := tr(lang).cat.Render(lang, sim.M("explore.link.duration-max", "MS", int64(365*24*3600*1000), "Max", int64(explore.MaxAdvanceMS)))
			li := importErrorItem(t, string(b), "far.yaml:10:")
			if li == "" || !strings.Contains(li, want) {
				t.Errorf("%s %q: no error at far.yaml:10 saying %q:\n%s", lang, step, want, importErrors(t, string(b)))
			}
		}
	}
}

// importErrorItem is the text of the import error at where
// ("pasted.yaml:8:"), or "".
func importErrorItem(t *testing.T, body, where string) string {
	t.Helper()
	list := dom{parseDOM(t, body).one(t, "import errors", byTestID("import-errors"))}
	for _, li := range list.all(tag("li")) {
		if c := (dom{li}).all(tag("code")); len(c) > 0 && strings.HasPrefix(textOf(c[0]), where) && li.Parent.Data == "ul" {
			return textOf(li)
		}
	}
	return ""
}
