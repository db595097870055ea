package web

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/explore"
	"lockstep/searchpage"
	"lockstep/sim"
)

// searchReply is a server message as the Search page reads it.
type searchReply struct {
	Type     string           `json:"type"`
	Re       int64            `json:"re"`
	Code     string           `json:"code"`
	Message  string           `json:"message"`
	Fields   []string         `json:"fields"`
	Depth    int              `json:"depth"`
	MaxDepth int              `json:"max_depth"`
	States   int              `json:"states"`
	Complete bool             `json:"complete"`
	Stopped  string           `json:"stopped"`
	Summary  string           `json:"summary"`
	Rows     []searchpage.Row `json:"rows"`
}

// readSearch returns the next message that is not a hello.
func (c *wsClient) readSearch() searchReply {
	c.t.Helper()
	for {
		m := readAs[searchReply](c, time.Now().Add(60*time.Second), "read")
		if m.Type != MsgHello {
			return m
		}
	}
}

// searchUntilResult reads a search's messages up to its result and returns
// the progress messages and the result.
func (c *wsClient) searchUntilResult(re int64) ([]searchReply, searchReply) {
	c.t.Helper()
	var progress []searchReply
	for {
		m := c.readSearch()
		switch {
		case m.Type == MsgSearchProgress && m.Re == re:
			progress = append(progress, m)
		case m.Type == MsgSearchResult && m.Re == re:
			return progress, m
		default:
			c.t.Fatalf("got %s (%s %s) during the search", m.Type, m.Code, m.Message)
		}
	}
}

// The two requests of one instance (instance-owner's course search file):
// overlapping holders in 2 steps (A acquire, B acquire: the second is taken
// for a reentry under the shared instance id).
var ownerShape = map[string]any{"variant": "instance-owner", "depth": 3, "moves": []string{"acquire", "release"}, "advance_ms": []int{}}

// longShape is a search that runs far longer than any test waits: three
// actors, every move, depth 16.
var longShape = map[string]any{"variant": "token-count", "actors": 3, "depth": 16,
	"moves": []string{"acquire", "release", "write", "pause", "resume", "crash"}, "invariants": []string{"stale-write"}}

// TestSearchStartProgressResult: a shape runs; a progress message per depth
// (depth, states, a rate the server timed), then the result: a row per
// invariant asked, broken ones with the shortest timeline and a share link
// that opens it, as a search result, on its breaking step.
func TestSearchStartProgressResult(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	c.send(map[string]any{"type": MsgSearch, "id": 5, "lang": "en", "search": ownerShape})
	progress, res := c.searchUntilResult(5)
	if len(progress) == 0 || progress[0].Depth != 1 || progress[0].MaxDepth != 3 || progress[0].States < 2 {
		t.Fatalf("progress %+v: want one per depth from depth 1 of 3", progress)
	}
	if !res.Complete || res.Stopped != "" || res.Depth != 3 || len(res.Rows) != len(sim.DefaultSearchInvariants) {
		t.Fatalf("result %+v: want complete to depth 3, a row per invariant", res)
	}
	i := slices.IndexFunc(res.Rows, func(r searchpage.Row) bool { return r.Invariant == "overlapping-holders" })
	row := res.Rows[i]
	if !row.Broken || row.Steps != 2 || row.Timeline != "A acquire → B acquire" || row.Verdict != "broken in 2 steps" {
		t.Fatalf("overlapping-holders row %+v", row)
	}
	u, err := url.Parse(row.URL)
	if err != nil || u.Path != "/explore" || u.Query().Get("step") != "2" {
		t.Fatalf("Open in player link %q: want /explore at step 2", row.URL)
	}
	l, o, err := explore.Decode(u.Query().Get("t"), sim.Options{})
	if err != nil || explore.Shared(l, o).Kind != explore.KindSearch || len(l.Steps) != 2 ||
		!slices.Equal(l.Steps[1].ExpectViolations, []string{"overlapping-holders"}) {
		t.Fatalf("the link's timeline: %v, origin %+v", err, o)
	}
	stale := res.Rows[slices.IndexFunc(res.Rows, func(r searchpage.Row) bool { return r.Invariant == "stale-write" })]
	if stale.Broken || stale.URL != "" || stale.Verdict != "none within depth 3" {
		t.Errorf("stale-write row %+v: no write move, so none within depth 3", stale)
	}
}

// TestSearchAllBrokenEarly: when every invariant asked is broken before
// the last depth, the search ends there, and the summary says so rather
// than that every timeline of the whole depth was tried. instance-owner's
// overlapping-holders breaks in 2 steps (A acquire, B acquire), so a depth
// of 5 stops after depth 2.
func TestSearchAllBrokenEarly(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	shape := map[string]any{"variant": "instance-owner", "depth": 5, "moves": []string{"acquire", "release"}, "advance_ms": []int{},
		"invariants": []string{"overlapping-holders"}}
	c.send(map[string]any{"type": MsgSearch, "id": 7, "lang": "en", "search": shape})
	_, res := c.searchUntilResult(7)
	if res.Complete || res.Stopped != "" || res.Depth != 2 || res.MaxDepth != 5 {
		t.Fatalf("result %+v: want not complete, not stopped, depth 2 of 5", res)
	}
	want := tr(sim.English).T("SearchAllBroken", "Depth", 2, "MaxDepth", 5, "States", res.States)
	if !strings.HasPrefix(res.Summary, want[:strings.Index(want, ";")]) {
		t.Errorf("summary %q, want it to begin like %q", res.Summary, want)
	}
}

// TestSearchStopAndSecondStart: a second start while a search runs is
// refused with a clear message; stop ends the search with what it found.
func TestSearchStopAndSecondStart(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	c.send(map[string]any{"type": MsgSearch, "id": 1, "search": longShape})
	if m := c.readSearch(); m.Type != MsgSearchProgress || m.Re != 1 {
		t.Fatalf("got %+v, want the first progress", m)
	}
	c.send(map[string]any{"type": MsgSearch, "id": 2, "search": ownerShape})
	var refused searchReply
	for refused = c.readSearch(); refused.Type == MsgSearchProgress; refused = c.readSearch() {
	}
	if refused.Type != MsgError || refused.Re != 2 || refused.Code != ErrCodeSearchRunning || !strings.Contains(refused.Message, "already running") {
		t.Fatalf("second start: %+v, want a search-running error", refused)
	}
	c.send(map[string]any{"type": MsgSearchStop, "id": 3})
	_, res := c.searchUntilResult(1)
	if res.Complete || res.Stopped != "stop" || res.Depth >= 16 || !strings.HasPrefix(res.Summary, "Stopped:") {
		t.Fatalf("stopped result %+v", res)
	}
	c.send(map[string]any{"type": MsgSearchStop, "id": 4})
	if m := c.readSearch(); m.Type != MsgError || m.Code != ErrCodeNoSearch {
		t.Fatalf("stop with none running: %+v", m)
	}
	// The session may search again.
	c.send(map[string]any{"type": MsgSearch, "id": 6, "search": ownerShape})
	if _, res := c.searchUntilResult(6); !res.Complete {
		t.Errorf("search after a stop: %+v", res)
	}
}

// TestSearchServerCap: with Config.MaxSearches 1, a second session's search
// is refused while the first runs, and may start once the first session
// has left (which cancels its search).
func TestSearchServerCap(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{MaxSearches: 1})
	a := dial(t, hs, nil)
	a.send(map[string]any{"type": MsgSearch, "id": 1, "search": longShape})
	if m := a.readSearch(); m.Type != MsgSearchProgress {
		t.Fatalf("got %+v, want progress", m)
	}
	b := dial(t, hs, nil)
	b.send(map[string]any{"type": MsgSearch, "id": 1, "lang": "zh-TW", "search": ownerShape})
	if m := b.readSearch(); m.Type != MsgError || m.Code != ErrCodeSearchFull || !strings.Contains(m.Message, "1 個搜尋") {
		t.Fatalf("over the cap: %+v, want search-full in zh-TW", m)
	}
	_ = a.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	a.conn.Close()
	waitFor(t, "the first search to end with its page", func() bool { return srv.searches.Running() == 0 })
	b.send(map[string]any{"type": MsgSearch, "id": 2, "search": ownerShape})
	if _, res := b.searchUntilResult(2); !res.Complete {
		t.Errorf("after the first page left: %+v", res)
	}
}

// TestSearchCaps: the time cap and the state cap stop a search, which says
// which one and reports the depth it completed.
func TestSearchCaps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{SearchTimeout: 300 * time.Millisecond}, "time"},
		{Config{SearchMaxStates: 100}, "states"},
	} {
		_, hs := newTestHTTP(t, c.cfg)
		ws := dial(t, hs, nil)
		ws.send(map[string]any{"type": MsgSearch, "id": 1, "search": longShape})
		_, res := ws.searchUntilResult(1)
		if res.Complete || res.Stopped != c.want || res.Depth >= 16 {
			t.Errorf("%s cap: %+v", c.want, res)
		}
		if c.want == "states" && res.States <= 100 {
			t.Errorf("state cap: stopped at %d states, want the depth that passed 100", res.States)
		}
	}
}

// TestSearchBadRequest: a shape or a file that breaks the search format is
// refused by search.Validate, in the page's language, naming each field.
func TestSearchBadRequest(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	c.send(map[string]any{"type": MsgSearch, "id": 1, "lang": "zh-CN",
		"search": map[string]any{"variant": "token-count", "depth": 20, "moves": []string{}, "invariants": []string{"liveness"}}})
	m := c.readSearch()
	if m.Type != MsgError || m.Code != ErrCodeBadSearch || !slices.Equal(m.Fields, []string{"moves", "depth", "invariants"}) {
		t.Fatalf("bad shape: %+v", m)
	}
	for _, w := range []string{"depth：需要 1 到 16 步，实际是 20", "moves：至少需要一种动作", "invariants：未知的不变式“liveness”"} {
		if !strings.Contains(m.Message, w) {
			t.Errorf("message %q lacks %q", m.Message, w)
		}
	}
	c.send(map[string]any{"type": MsgSearch, "id": 2, "lang": "en", "search": map[string]any{"file": "variant: token-count\nlease: 30s\nactors: [{id: A}]\ndepth: 0\n"}})
	if m := c.readSearch(); m.Code != ErrCodeBadSearch || !strings.Contains(m.Message, "search.yaml:4:8: depth: want 1 to 16 steps, got 0") || !slices.Equal(m.Fields, []string{"depth"}) {
		t.Errorf("bad file: %+v", m)
	}
	c.send(map[string]any{"type": MsgSearch, "id": 3})
	if m := c.readSearch(); m.Code != ErrCodeBadField || !strings.Contains(m.Message, "search needs") {
		t.Errorf("no search: %+v", m)
	}
	c.send(map[string]any{"type": MsgSearch, "id": 4, "search": map[string]any{"variant": "redlock"}})
	if m := c.readSearch(); m.Code != ErrCodeBadSearch || !slices.Equal(m.Fields, []string{"variant", "lease", "actors"}) {
		t.Errorf("unknown variant: %+v", m)
	}
}
