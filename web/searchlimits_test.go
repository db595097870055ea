package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSearchListsCapped (issue 37, item 6): a search message whose list
// is longer than its bound (9,000 advance_ms values) is refused before
// anything is built from it, naming the field; so is a search file with
// more clock moves than search.MaxAdvance.
func TestSearchListsCapped(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	advance := make([]int, 9000)
	for i := range advance {
		advance[i] = i + 1
	}
	c.send(map[string]any{"type": MsgSearch, "id": 1, "search": map[string]any{"variant": "token-count", "advance_ms": advance}})
	m := c.readSearch()
	if m.Code != ErrCodeBadSearch || !slices.Equal(m.Fields, []string{"advance_ms"}) || !strings.Contains(m.Message, "advance_ms lists 9000 values; at most 16") {
		t.Fatalf("9,000 advance_ms: %+v", m)
	}
	var list []string
	for i := range 17 {
		list = append(list, fmt.Sprintf("%dms", i+1))
	}
	file := "variant: token-count\nlease: 30s\nactors: [{id: A}]\nadvance: [" + strings.Join(list, ", ") + "]\n"
	c.send(map[string]any{"type": MsgSearch, "id": 2, "search": map[string]any{"file": file}})
	if m := c.readSearch(); m.Code != ErrCodeBadSearch || !slices.Equal(m.Fields, []string{"advance"}) || !strings.Contains(m.Message, "want at most 16 amounts, got 17") {
		t.Fatalf("a file of 17 advances: %+v", m)
	}
}

// TestSearchStatesBoundInsideDepth (issue 37, item 6): the state bound
// stops a search as the states are found, within one state's moves past
// the bound (3 actors × 6 moves and the advance), not at the end of the
// depth that passed it.
func TestSearchStatesBoundInsideDepth(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{SearchMaxStates: 100})
	ws := dial(t, hs, nil)
	ws.send(map[string]any{"type": MsgSearch, "id": 1, "search": longShape})
	_, res := ws.searchUntilResult(1)
	if res.Stopped != "states" || res.States <= 100 || res.States > 100+3*6+1 {
		t.Fatalf("stopped %q at %d states, want the state bound within 19 of 100", res.Stopped, res.States)
	}
}

// TestSearchSlotsSharedBetweenAddresses (issue 37, item 6): with one
// search slot, another address's search is refused while the running one
// is younger than Config.SearchShare, and then takes its slot: the old
// search reports what it found, stopped "shared". The address that held
// the slot cannot take it back from the newcomer.
func TestSearchSlotsSharedBetweenAddresses(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{MaxSearches: 1, Limits: Limits{TrustedProxies: loopbackProxies}})
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	srv.searches.SetClock(clock.now)
	from := func(addr string) *wsClient { return dial(t, hs, http.Header{"X-Forwarded-For": {addr}}) }
	a := from("192.0.2.1")
	a.send(map[string]any{"type": MsgSearch, "id": 1, "search": longShape})
	if m := a.readSearch(); m.Type != MsgSearchProgress {
		t.Fatalf("first search: %+v", m)
	}
	b := from("192.0.2.2")
	b.send(map[string]any{"type": MsgSearch, "id": 1, "search": longShape})
	if m := b.readSearch(); m.Code != ErrCodeSearchFull {
		t.Fatalf("another address at once: %+v, want search-full", m)
	}
	clock.advance(DefaultSearchShare)
	b.send(map[string]any{"type": MsgSearch, "id": 2, "search": longShape})
	if m := b.readSearch(); m.Type != MsgSearchProgress || m.Re != 2 {
		t.Fatalf("another address after the share: %+v, want its search running", m)
	}
	for {
		m := a.readSearch()
		if m.Type == MsgSearchResult {
			if m.Stopped != "shared" || !strings.Contains(m.Summary, "share the server") {
				t.Fatalf("the first search's result: %+v", m)
			}
			break
		}
	}
	a2 := from("192.0.2.1")
	a2.send(map[string]any{"type": MsgSearch, "id": 3, "search": longShape})
	if m := a2.readSearch(); m.Code != ErrCodeSearchFull {
		t.Fatalf("the first address again at once: %+v, want search-full", m)
	}
}
