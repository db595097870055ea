package web

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"lockstep/sim"
	"lockstep/view"

	"golang.org/x/net/html"
)

// TestLangParamAliases: the lang parameter is read like Accept-Language, in
// any case and with - or _.
func TestLangParamAliases(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for q, want := range map[string]string{
		"zh-tw": "zh-TW", "zh-TW": "zh-TW", "zh_TW": "zh-TW", "zh-hant": "zh-TW", "ZH-HANT": "zh-TW", "zh-HK": "zh-TW",
		"zh": "zh-CN", "zh-cn": "zh-CN", "ZH_CN": "zh-CN", "zh-hans": "zh-CN", "zh-CN": "zh-CN",
		"en": "en", "EN-us": "en", "xx": "en", "": "en",
	} {
		for _, path := range []string{"/lessons/nested-reentry?lang=", "/?lang="} {
			_, body := get(t, hs.URL+path+q, nil)
			if pageLang(t, body) != want {
				t.Errorf("%s%s: page is not in %s", path, q, want)
			}
		}
	}
	// A lang parameter Lockstep does not speak leaves Accept-Language to choose.
	if _, body := get(t, hs.URL+"/lessons/nested-reentry?lang=fr", http.Header{"Accept-Language": {"zh-TW"}}); pageLang(t, body) != "zh-TW" {
		t.Errorf("lang=fr with Accept-Language zh-TW: not zh-TW")
	}
}

// TestPlayerPageServerRendered: before the websocket connects the page
// already shows the real step counter, and the lock type badge is explained
// and localized.
func TestPlayerPageServerRendered(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	l := lessonByID(t, testLessons(t), "stale-owner")
	total := strconv.Itoa(len(l.Steps))
	for lang, badge := range map[string]string{"en": "lock key: Hash", "zh-CN": "锁键：Hash", "zh-TW": "鎖鍵：Hash"} {
		_, body := get(t, hs.URL+"/lessons/stale-owner?step=4&lang="+lang, nil)
		if c := parseDOM(t, body).all(func(n *html.Node) bool { v, _ := attr(n, "aria-live"); return n.Data == "output" && v == "off" }); len(c) == 0 || textOf(c[0]) != "4 / "+total {
			t.Errorf("%s: counter not rendered as 4 / %s", lang, total)
		}
		if strings.Contains(textOf(parseDOM(t, body).root), "{step} / {total}") {
			t.Errorf("%s: literal counter template on the page", lang)
		}
		ui := tr(sim.Locale(lang)).UI()
		b := parseDOM(t, body).one(t, "locktype", withAttr("data-testid", "locktype"))
		if title, _ := attr(b, "title"); title != ui.LockTypeHelp || textOf(b) != badge {
			t.Errorf("%s: lock type badge is not %q with a title", lang, badge)
		}
	}
}

// TestReplicaLessonNamesItsPair: on a server given a Redis URL, a lesson
// with a replica says that it runs on a primary + replica pair of its own,
// not on that Redis; the Redis panel says so from step 0, and step 0 reads
// the same after stepping and coming back.
func TestReplicaLessonNamesItsPair(t *testing.T) {
	t.Parallel()
	be, rs := realBackend(t)
	_, hs := newTestHTTP(t, Config{Backend: RedisBackend(be)})
	l := lessonByID(t, testLessons(t), "failover")
	if !l.Replica {
		t.Fatal("lesson failover has no replica")
	}
	// No address or version: every visitor sees the badge (issue 37, item 8).
	single := "a real Redis (the server's -redis)"
	wantBadge := map[sim.Locale]string{
		sim.English:            "own primary + replica pair (not the server's Redis: a single Redis cannot fail over)",
		sim.SimplifiedChinese:  "自建的主节点 + 副本（不是服务器的 Redis：单台 Redis 无法故障转移）",
		sim.TraditionalChinese: "自建的主節點 + 副本（不是伺服器的 Redis：單台 Redis 無法主從切換）",
	}
	for loc, body := range checkBadges(t, hs.URL, l.ID, wantBadge) {
		if strings.Contains(textOf(parseDOM(t, body).root), single) {
			t.Errorf("%s: player page says the lesson runs on %s", loc, single)
		}
	}
	// A lesson without a replica runs on the Redis given.
	if _, body := get(t, hs.URL+lessonURL("stale-owner", 0, sim.English, false), nil); backendLabel(t, body) != single {
		t.Errorf("stale-owner's badge does not say %q", single)
	}

	c, first := loadedSession(t, hs, ClientMessage{Lesson: l.ID, Lang: "en"})
	if backendLabel(t, first.Chrome[chromeHeader]) != wantBadge[sim.English] || strings.Contains(textOf(parseDOM(t, first.Chrome[chromeHeader]).root), single) {
		t.Errorf("header after load does not name the pair:\n%s", first.Chrome[chromeHeader])
	}
	var pg page
	pg.apply(t, first)
	atStart := pg.snapshot(t)
	if prefix := redisPrefix(t, first.Panels[view.PanelRedis]); strings.Contains(prefix, "On this Redis") || !strings.Contains(prefix, "own primary + replica pair") || strings.Contains(prefix, rs.Addr) {
		t.Errorf("step 0's Redis panel does not say the run has its own pair: %q", prefix)
	}
	for i := 1; i <= min(3, len(l.Steps)); i++ {
		c.send(ClientMessage{Type: MsgStep})
		m := c.expect(MsgFrame)
		pg.apply(t, m)
		if strings.Contains(redisPrefix(t, pg.panels[view.PanelRedis]), "On this Redis") {
			t.Errorf("step %d's Redis panel says the keys are on the Redis given", i)
		}
	}
	c.send(ClientMessage{Type: MsgSeek, Step: intp(0)})
	if pg.apply(t, c.expect(MsgFrame)); !reflect.DeepEqual(pg.snapshot(t), atStart) {
		t.Errorf("step 0 after Home differs from step 0 rendered first")
	}
}

// backendLabel is the label of the backend badge in markup (a page or its
// header), without the words for screen readers before it.
func backendLabel(t *testing.T, markup string) string {
	t.Helper()
	b := parseDOM(t, markup).one(t, "backend badge", byTestID("backend"))
	text := textOf(b)
	for _, sr := range (dom{b}).all(withAttr("class", "sr-only")) {
		text = strings.TrimSpace(strings.TrimPrefix(text, textOf(sr)))
	}
	return text
}

// checkBadges checks that the player page of lesson id's step 0 on the
// server at base, in each locale of want, has the backend badge want gives
// for it; it returns the pages, by locale.
func checkBadges(t *testing.T, base, id string, want map[sim.Locale]string) map[sim.Locale]string {
	t.Helper()
	pages := map[sim.Locale]string{}
	for loc, badge := range want {
		_, body := get(t, base+lessonURL(id, 0, loc, false), nil)
		if got := backendLabel(t, body); got != badge {
			t.Errorf("%s: player page badge says %q, not %q", loc, got, badge)
		}
		pages[loc] = body
	}
	return pages
}

// redisPrefix is the Redis panel's line on where the run's keys live.
func redisPrefix(t *testing.T, panel string) string {
	t.Helper()
	return parseDOM(t, panel).text(t, "key prefix", withAttr("class", "prefix"))
}

// TestPlayerPagePanelsPrerendered: the player page shows the requested
// step's panels before the websocket connects, as the session renders them.
func TestPlayerPagePanelsPrerendered(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	l := lessonByID(t, testLessons(t), "stale-owner")
	want := expectedFrames(t, l)
	_, body := get(t, hs.URL+"/lessons/stale-owner?step=4&lang=zh-CN", nil)
	if loading := parseDOM(t, body).all(withAttr("class", "loading")); len(loading) > 0 {
		t.Error("the page still shows Loading")
	}
	// The alerts panel is empty (so hidden) when the step has none.
	if _, body := get(t, hs.URL+"/lessons/stale-owner?lang=en", nil); parseDOM(t, body).one(t, "alerts panel", withAttr("data-panel", "alerts")).FirstChild != nil {
		t.Error("step 0's alerts panel is not empty")
	}
	page := parseDOM(t, body)
	for _, m := range []struct {
		what  string
		match func(*html.Node) bool
	}{
		{"the narration", withAttr("class", "narr")},
		{"step 4", withAttr("data-step", "4")},
		{"step 4's outcome", withAttr("data-outcome", string(want[4].Outcome))},
	} {
		if len(page.all(m.match)) == 0 {
			t.Errorf("page lacks %s", m.what)
		}
	}
	_, m := loadedSession(t, hs, ClientMessage{Lesson: l.ID, Step: intp(4), Lang: "zh-CN"})
	for name, markup := range m.Panels {
		region := page.one(t, name+" panel", withAttr("data-panel", name))
		if got, want := innerHTML(t, region), fragmentHTML(t, markup, region); got != want {
			t.Errorf("the page's %s panel is not the session's:\npage:    %s\nsession: %s", name, got, want)
		}
	}
}
