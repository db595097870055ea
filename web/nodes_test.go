package web

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"lockstep/explore"
	"lockstep/sim"
	"lockstep/sim/refmodel"
	"lockstep/view"
)

// TestRedlockLessonShowsEveryNode: on a server given a Redis URL, the
// Redlock lesson says it runs on nodes of its own, not on that Redis; its
// Redis panel shows each node's keys with their PTTLs beside what a
// majority holds, and each call of a step names its node.
func TestRedlockLessonShowsEveryNode(t *testing.T) {
	t.Parallel()
	be, _ := realBackend(t)
	_, hs := newTestHTTP(t, Config{Backend: RedisBackend(be)})
	l := lessonByID(t, testLessons(t), "redlock-restart")
	if l.Nodes != 3 {
		t.Fatalf("lesson redlock-restart has %d nodes", l.Nodes)
	}
	wantBadge := map[sim.Locale]string{
		// No address: every visitor sees the badge (issue 37, item 8).
		sim.English:            "3 Redis nodes of its own (not the server's Redis: a single Redis is not several nodes)",
		sim.SimplifiedChinese:  "自建的 3 个 Redis 节点（不是服务器的 Redis：单个 Redis 当不了多个节点）",
		sim.TraditionalChinese: "自建的 3 個 Redis 節點（不是伺服器的 Redis：單一 Redis 當不了多個節點）",
	}
	checkBadges(t, hs.URL, l.ID, wantBadge)

	// Step 4: B's acquire. Node 1 keeps A's key with 25 s left, nodes 2
	// and 3 have B's new one with 30 s; the majority's view is B's.
	d := playerDOM(t, hs.URL, l.ID, 4, sim.English)
	sections := d.all(and(tag("section"), withClass("node-keys")))
	if len(sections) != 3 {
		t.Fatalf("%d node sections, want 3", len(sections))
	}
	wantPTTL := []string{"25000", "30000", "30000"}
	for i, sec := range sections {
		if n, _ := attr(sec, "data-node"); n != string(rune('1'+i)) {
			t.Errorf("section %d: data-node %q", i+1, n)
		}
		sd := dom{root: sec}
		key := sd.one(t, "node key", and(tag("li"), withAttr("data-key", "lock:order:42")))
		if !strings.Contains(textOf(key), wantPTTL[i]) {
			t.Errorf("node %d's key %q, want a PTTL of %s ms", i+1, textOf(key), wantPTTL[i])
		}
	}
	calls := d.all(and(tag("article"), withClass("call")))
	if len(calls) != 3 {
		t.Fatalf("%d calls at step 4, want one per node", len(calls))
	}
	wantOut := []string{"BUSY", "ACQUIRED", "ACQUIRED"}
	for i, c := range calls {
		n, _ := attr(c, "data-node")
		cd := dom{root: c}
		out := cd.text(t, "call outcome", withAttr("data-testid", "call-outcome"))
		if n != string(rune('1'+i)) || out != wantOut[i] {
			t.Errorf("call %d: node %q outcome %q, want node %d %s", i+1, n, out, i+1, wantOut[i])
		}
	}
}

// TestRedlockWordsSayMajority: after node 2's restart node 1 still keeps
// A's token, so the stale-owner banner and the timeline's caption speak of
// a majority of the nodes, not of one Redis that no longer keeps it.
func TestRedlockWordsSayMajority(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, loc := range []sim.Locale{sim.English, sim.SimplifiedChinese, sim.TraditionalChinese} {
		d := playerDOM(t, hs.URL, "redlock-restart", 3, loc)
		node1 := dom{root: d.one(t, "node 1's keys", and(tag("section"), withAttr("data-node", "1")))}
		token := node1.text(t, "node 1's token", and(tag("code"), withClass("val")))
		stale := dom{root: d.one(t, "stale banner", withAttr("data-testid", "stale"))}
		items := stale.all(tag("li"))
		want := tr(loc).T("StaleNoticeNodes", "Actor", "A", "Lock", "order:42", "Count", 1, "Token", token, "Kept", 1, "Nodes", 3)
		if len(items) != 1 || textOf(items[0]) != want {
			var got []string
			for _, it := range items {
				got = append(got, textOf(it))
			}
			t.Errorf("%s: stale banner says %q, want %q", loc, got, want)
		}
		legend := d.one(t, "timeline legend", and(tag("ul"), withClass("legend")))
		if got, _ := attr(legend, "aria-label"); got != tr(loc).T("TimelineHelpNodes") {
			t.Errorf("%s: timeline caption %q, want the nodes one", loc, got)
		}
	}
}

// TestRedlockTimelineNamesNodes: on the Redlock lesson's timeline the
// restart names its node, and each reply of a step's calls follows its
// node's number, with the full replies, node by node, in its title.
func TestRedlockTimelineNamesNodes(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, loc := range []sim.Locale{sim.English, sim.SimplifiedChinese, sim.TraditionalChinese} {
		d := playerDOM(t, hs.URL, "redlock-restart", 4, loc)
		tl := dom{root: d.one(t, "timeline", withAttr("id", "panel-timeline"))}
		ownText := func(n *html.Node) string {
			if n.FirstChild != nil && n.FirstChild.Type == html.TextNode {
				return strings.TrimSpace(n.FirstChild.Data)
			}
			return ""
		}
		// colText is the one text of class class that column col draws
		// (its texts lie in a layer of their own, g[data-c]).
		colText := func(col, class string) *html.Node {
			var found []*html.Node
			for _, g := range tl.all(and(tag("g"), withAttr("data-c", col))) {
				found = append(found, dom{root: g}.all(and(tag("text"), withClass(class)))...)
			}
			if len(found) != 1 {
				t.Fatalf("%s: column %s draws %d texts of class %s, want 1", loc, col, len(found), class)
			}
			return found[0]
		}
		mark := colText("3", "advance")
		// the mark "⚠" goes where the words need the column's room; the
		// title says the whole
		full := "⚠ " + tr(loc).T("TLRestartNode", "Node", 2)
		if got := ownText(mark); got != full && "⚠ "+got != full {
			t.Errorf("%s: restart marked %q, want %q or without the ⚠", loc, got, full)
		}
		if got := (dom{root: mark}).text(t, "the restart's title", tag("title")); got != full {
			t.Errorf("%s: the restart's title is %q, want %q", loc, got, full)
		}
		// a line per node, in node order, each its own text and title, a
		// line's pitch no less than the largest size a reply is drawn at
		// (15 px on a phone): they ran together as "1:nil 2:OK 3:OK"
		// (issue 38)
		var replies []*html.Node
		for _, g := range tl.all(and(tag("g"), withAttr("data-c", "4"))) {
			replies = append(replies, dom{root: g}.all(and(tag("text"), withClass("reply")))...)
		}
		var got, titles []string
		var ys []float64
		for _, r := range replies {
			got = append(got, ownText(r))
			titles = append(titles, dom{root: r}.text(t, "a reply's title", tag("title")))
			y, _ := attr(r, "y")
			f, err := strconv.ParseFloat(y, 64)
			if err != nil {
				t.Fatalf("%s: a reply at y=%q", loc, y)
			}
			ys = append(ys, f)
		}
		var wantTitles []string
		for i, r := range []string{"(nil)", `"OK"`, `"OK"`} {
			wantTitles = append(wantTitles, tr(loc).T("TLNodeReply", "Node", i+1, "Reply", r))
		}
		if want := []string{"1: nil", "2: OK", "3: OK"}; !slices.Equal(got, want) || !slices.Equal(titles, wantTitles) {
			t.Errorf("%s: step 4's replies drawn %q titled %q, want %q titled %q", loc, got, titles, want, wantTitles)
		}
		for i := 1; i < len(ys); i++ {
			if ys[i]-ys[i-1] < 15 {
				t.Errorf("%s: step 4's replies at y=%v, want lines at least 15 px apart", loc, ys)
			}
		}
	}
}

// TestRedlockCompareNamesNodes: a comparison's cell lists each call's reply
// after its node.
func TestRedlockCompareNamesNodes(t *testing.T) {
	t.Parallel()
	l := lessonByID(t, testLessons(t), "redlock-restart")
	frames, err := sim.RunFrames(context.Background(), l, refmodel.Open)
	if err != nil {
		t.Fatal(err)
	}
	side := explore.Side{Variant: l.Variant, Lesson: l, Frames: frames}
	rows := view.CompareRows(tr(sim.English), l, &explore.Comparison{A: side, B: side})
	var want []string
	for i, r := range []string{"(nil)", `"OK"`, `"OK"`} {
		want = append(want, "local-count/acquire → "+tr(sim.English).T("TLNodeReply", "Node", i+1, "Reply", r))
	}
	if got := rows[3].A.Replies; got != strings.Join(want, "; ") {
		t.Errorf("step 4's replies %q, want %q", got, strings.Join(want, "; "))
	}
}

// TestNodeRepliesApart: in every lesson with nodes, on every column of its
// timeline, each node's replies are a line of their own (its number
// first, one line per node), the lines at least 15 px apart (the largest
// size a reply is drawn at, on a phone) and all in the reply row, above
// the Redis lane's first lock row (issue 38: "1:nil 2:OK…" ran together).
func TestNodeRepliesApart(t *testing.T) {
	t.Parallel()
	for _, l := range testLessons(t) {
		if l.Nodes == 0 {
			continue
		}
		frames := expectedFrames(t, l)
		cur := len(frames) - 1
		v := view.New(view.Input{Texts: tr(sim.English), Lesson: l, Frames: frames, Cur: cur})
		panels, err := v.Panels(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		tl := parseDOM(t, panels[view.PanelTimeline])
		redis := v.Timeline().Lanes[len(v.Timeline().Lanes)-1]
		firstRow := float64(redis.Y + redis.H)
		if len(redis.Rows) > 0 {
			firstRow = float64(redis.Rows[0].Y - 32)
		}
		lines := 0
		for col := 1; col < len(frames); col++ {
			var ys []float64
			var nodes []string
			for _, g := range tl.all(and(tag("g"), withAttr("data-c", strconv.Itoa(col)))) {
				for _, r := range (dom{root: g}).all(and(tag("text"), withClass("reply"))) {
					y, _ := attr(r, "y")
					f, _ := strconv.ParseFloat(y, 64)
					ys = append(ys, f)
					n, _, _ := strings.Cut(strings.TrimSpace(r.FirstChild.Data), ":")
					nodes = append(nodes, n)
				}
			}
			lines += len(ys)
			// a line for each node the step called or could not reach
			want := map[int]bool{}
			for _, c := range frames[col].Calls {
				want[c.Node] = true
			}
			if st := frames[col].Step; st != nil && (st.Do == sim.ActAcquire || st.Do == sim.ActRelease) {
				for _, n := range st.Unreachable {
					want[n] = true
				}
			}
			if len(frames[col].Calls) > 0 && len(nodes) != len(want) {
				t.Errorf("%s step %d: %d reply lines (nodes %q), want one for each of the %d nodes", l.ID, col, len(nodes), nodes, len(want))
			}
			for i := range ys {
				if i > 0 && (ys[i]-ys[i-1] < 15 || nodes[i] <= nodes[i-1]) {
					t.Errorf("%s step %d: replies of nodes %q at y=%v; want a line per node, in order, at least 15 px apart", l.ID, col, nodes, ys)
				}
				if ys[i] <= float64(redis.Y) || ys[i] > firstRow {
					t.Errorf("%s step %d: a reply at y=%v, outside the reply row (y %d to %.0f)", l.ID, col, ys[i], redis.Y, firstRow)
				}
			}
		}
		if lines == 0 {
			t.Errorf("%s: no reply drawn", l.ID)
		}
	}
}
