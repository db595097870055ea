package web

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

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
		// a cell per node, in node order, each its own text and title,
		// none touching another at the largest size a reply is drawn at
		// (on a phone): they ran together as "1:nil 2:OK 3:OK" (issue 38)
		boxes := replyBoxes(t, tl, 4)
		var got, titles []string
		for _, b := range boxes {
			got = append(got, b.text)
			titles = append(titles, dom{root: b.n}.text(t, "a reply's title", tag("title")))
		}
		var wantTitles []string
		for i, r := range []string{"(nil)", `"OK"`, `"OK"`} {
			wantTitles = append(wantTitles, tr(loc).T("TLNodeReply", "Node", i+1, "Reply", r))
		}
		if want := []string{"1:nil", "2:OK", "3:OK"}; !slices.Equal(got, want) || !slices.Equal(titles, wantTitles) {
			t.Errorf("%s: step 4's replies drawn %q titled %q, want %q titled %q", loc, got, titles, want, wantTitles)
		}
		for i, a := range boxes {
			for _, b := range boxes[i+1:] {
				if !a.apart(b) {
					t.Errorf("%s: step 4's replies %q and %q touch: %+v, %+v", loc, a.text, b.text, a, b)
				}
			}
		}
	}
}

// replyBox is a reply text of a timeline's column: its text, the node it
// names (what comes before its ":"), its baseline and how far across it
// reaches at the largest size a reply is drawn at: on a phone mono at 15
// units, 0.8 units closer (app.css), 8.2 units a character.
type replyBox struct {
	n           *html.Node
	text, node  string
	y           float64
	left, right float64
}

// apart reports whether a and b do not touch: lines at least 15 units
// apart (the size they are drawn at), or at least 2 units between them
// across.
func (a replyBox) apart(b replyBox) bool {
	return math.Abs(a.y-b.y) >= 15 || a.right+2 <= b.left || b.right+2 <= a.left
}

// replyBoxes are the reply texts column col of the timeline tl draws, in
// the order drawn; each must be anchored at its middle.
func replyBoxes(t *testing.T, tl dom, col int) []replyBox {
	t.Helper()
	var out []replyBox
	for _, g := range tl.all(and(tag("g"), withAttr("data-c", strconv.Itoa(col)))) {
		for _, r := range (dom{root: g}).all(and(tag("text"), withClass("reply"))) {
			var b replyBox
			b.n = r
			if r.FirstChild != nil && r.FirstChild.Type == html.TextNode {
				b.text = strings.TrimSpace(r.FirstChild.Data)
			}
			b.node, _, _ = strings.Cut(b.text, ":")
			xs, _ := attr(r, "x")
			ys, _ := attr(r, "y")
			x, err1 := strconv.ParseFloat(xs, 64)
			y, err2 := strconv.ParseFloat(ys, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("column %d: a reply at x=%q y=%q", col, xs, ys)
			}
			if a, _ := attr(r, "text-anchor"); a != "middle" {
				t.Fatalf("column %d: reply %q anchored %q, want middle", col, b.text, a)
			}
			w := 8.2 * float64(utf8.RuneCountInString(b.text))
			b.y, b.left, b.right = y, x-w/2, x+w/2
			out = append(out, b)
		}
	}
	return out
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
// timeline, each node's replies are a cell of their own (its number first,
// one cell per node called or unreached, in node order), no cell touching
// another at the largest size a reply is drawn at (on a phone; lines at
// least 15 units apart), each within its column and the reply row, above
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
			boxes := replyBoxes(t, tl, col)
			lines += len(boxes)
			var nodes []string
			for _, b := range boxes {
				nodes = append(nodes, b.node)
			}
			// a cell for each node the step called or could not reach
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
				t.Errorf("%s step %d: %d reply cells (nodes %q), want one for each of the %d nodes", l.ID, col, len(nodes), nodes, len(want))
			}
			x0, x1 := float64(col*view.TimelineColumnWidth), float64((col+1)*view.TimelineColumnWidth)
			for i, b := range boxes {
				if i > 0 && nodes[i] <= nodes[i-1] {
					t.Errorf("%s step %d: replies of nodes %q, want node order", l.ID, col, nodes)
				}
				for _, o := range boxes[i+1:] {
					if !b.apart(o) {
						t.Errorf("%s step %d: the replies %q and %q touch: %+v, %+v", l.ID, col, b.text, o.text, b, o)
					}
				}
				if b.y <= float64(redis.Y) || b.y > firstRow || b.left < x0 || b.right > x1 {
					t.Errorf("%s step %d: reply %q at x %.1f to %.1f, y=%v, outside its column (x %.0f to %.0f) or the reply row (y %d to %.0f)", l.ID, col, b.text, b.left, b.right, b.y, x0, x1, redis.Y, firstRow)
				}
			}
		}
		if lines == 0 {
			t.Errorf("%s: no reply drawn", l.ID)
		}
	}
}
