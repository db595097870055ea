package view

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEditFromApplies: an edit applied to the HTML it was made from gives
// the new HTML, through JSON as the page gets it, for changes of words,
// attributes, CJK text and astral characters, near and far apart; and a
// small change of a long panel is far shorter than the panel.
func TestEditFromApplies(t *testing.T) {
	t.Parallel()
	long := strings.Repeat(`<g class="col" data-c="7"><rect x="700" width="100"></rect><text>锁 held by A</text></g>`, 40)
	pairs := [][2]string{
		{"", "<p>x</p>"},
		{"<p>x</p>", ""},
		{`<p class="a">锁 1 held</p>`, `<p class="a">锁 2 held</p>`},
		{`<p class="a">a😀b 取得</p>`, `<p class="b">a😀c 獲得</p>`},
		{long, strings.Replace(long, `x="700"`, `x="800"`, 3)},
		{long, strings.Replace(strings.Replace(long, "held by A", "held by B", 1), `data-c="7"`, `data-c="8"`, 1)},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"<b>", "</b>", " ", "lease", "锁", "😀", `"`, "=", "PTTL 30000", "\n"}
	for range 200 {
		var a, b strings.Builder
		for range rng.IntN(60) {
			w := words[rng.IntN(len(words))]
			a.WriteString(w)
			if rng.IntN(5) > 0 {
				b.WriteString(w)
			} else {
				b.WriteString(words[rng.IntN(len(words))])
			}
		}
		pairs = append(pairs, [2]string{a.String(), b.String()})
	}
	for _, p := range pairs {
		e, _ := EditFrom(p[0], p[1])
		raw, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var got Edit
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		html, ok := got.Apply(p[0])
		if !ok || html != p[1] {
			t.Fatalf("edit %s of %q gives %q (%v), want %q", raw, p[0], html, ok, p[1])
		}
	}
	e, shorter := EditFrom(long, strings.Replace(long, `x="700"`, `x="800"`, 1))
	raw, _ := json.Marshal(e)
	if !shorter || len(raw) > 40 {
		t.Errorf("one attribute of %d bytes: edit %s (shorter %v)", len(long), raw, shorter)
	}
}

// TestEditCopies: what a move inserts that the page holds already (a
// script's source drawn once per call, a block that moved) goes as copies
// of the old HTML or of the new built so far, through JSON as the page gets
// it, CJK and astral characters counted in UTF-16 units.
func TestEditCopies(t *testing.T) {
	t.Parallel()
	src := `<details class="source"><pre class="lua"><code>` + strings.Repeat(`<span class="ln">-- 锁的持有者 😀 holds: redis.call('HINCRBY', KEYS[1], ARGV[2], 1)</span>`, 20) + `</code></pre></details>`
	call := func(i int) string {
		return `<article class="call" data-n="` + string(rune('a'+i)) + `">` + src + `</article>`
	}
	var many strings.Builder
	for i := range 18 {
		many.WriteString(call(i))
	}
	pairs := [][2]string{
		{`<p class="no-call">nothing</p>`, many.String()},                    // repeats within the new
		{call(0) + `<p>锁</p>`, `<p>锁 😀</p>` + call(1)},                       // a block that moved
		{many.String(), `<p>x</p>` + many.String()[len(call(0)):] + call(0)}, // both
	}
	for _, p := range pairs {
		e, shorter := EditFrom(p[0], p[1])
		raw, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var got Edit
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if html, ok := got.Apply(p[0]); !ok || html != p[1] {
			t.Fatalf("edit %s does not give the new HTML (%v)", raw, ok)
		}
		if !shorter || len(raw) > len(src)+600 {
			t.Errorf("edit of %d bytes for new HTML of %d with a %d-byte block repeated (shorter %v)", len(raw), len(p[1]), len(src), shorter)
		}
	}
}

// TestTimelinePatchPack: a packed column's layers, each applied to "" as
// the page does, are the layers drawn; a packed layer is shorter in JSON
// than the layer, and what Pack leaves as it is stays.
func TestTimelinePatchPack(t *testing.T) {
	t.Parallel()
	col := func(x int) string {
		var b strings.Builder
		for y := range 6 {
			b.WriteString(`<text class="belief-text stale" x="` + itoa(x) + `" y="` + itoa(40+y*16) + `" text-anchor="middle">×2 锁</text>`)
		}
		return b.String()
	}
	p := &TimelinePatch{Cols: []TimelineColumnPatch{{Col: 4, Back: col(450), Mid: "", Front: `<text x="1">a</text>`}}}
	want := p.Cols[0]
	p.Pack()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got TimelinePatch
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Cols[0]
	e, ok := c.Packed["back"]
	if !ok || c.Back != "" {
		t.Fatalf("back not packed: %s", raw)
	}
	if html, ok := e.Apply(""); !ok || html != want.Back {
		t.Errorf("packed back gives %q (%v), want %q", html, ok, want.Back)
	}
	if jsonLen(e) >= jsonLen(want.Back) {
		t.Errorf("packed back %d bytes, the layer %d", jsonLen(e), jsonLen(want.Back))
	}
	if _, ok := c.Packed["front"]; ok || c.Front != want.Front || c.Mid != "" {
		t.Errorf("a short front or an empty mid was packed: %s", raw)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
