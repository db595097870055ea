package web

import (
	"strings"
	"testing"
)

// TestOwnLockTableCachedSameRows: a lock's page viewed again in another
// language comes from the table cache (ownlock.Config.TableCache) and
// says exactly what a server without the cache says after running the
// course again: each row's lesson, kind, step, verdict and invariants, in
// that language. The lock is the count-key example, whose rows differ
// from the lessons' own runs (the verdicts read the cached frames).
func TestOwnLockTableCachedSameRows(t *testing.T) {
	t.Parallel()
	files := countKeyFiles(t)
	type row struct{ lesson, kind, step, verdict, broken string }
	rows := func(base, link string) []row {
		var out []row
		for _, tr := range parseDOM(t, getPage(t, base, link, 200)).all(withAttr("data-kind", "")) {
			r := row{}
			r.lesson, _ = attr(tr, "data-lesson")
			r.kind, _ = attr(tr, "data-kind")
			r.step, _ = attr(tr, "data-step")
			d := dom{tr}
			for _, v := range d.all(byTestID("lock-verdict")) {
				r.verdict = strings.Join(strings.Fields(textOf(v)), " ")
			}
			var inv []string
			for _, s := range d.all(withAttr("data-invariant", "")) {
				id, _ := attr(s, "data-invariant")
				inv = append(inv, id)
			}
			r.broken = strings.Join(inv, ",")
			out = append(out, r)
		}
		return out
	}
	link := func(base string) string {
		resp := postLock(t, base, files)
		return strings.Replace(resp.Header.Get("Location"), "lang=en", "lang=zh-TW", 1)
	}
	_, cached := newTestHTTP(t, Config{})
	_, fresh := newTestHTTP(t, Config{LockTableCache: -1})
	cl := link(cached.URL)
	first := rows(cached.URL, strings.Replace(cl, "lang=zh-TW", "lang=en", 1))
	again, want := rows(cached.URL, cl), rows(fresh.URL, link(fresh.URL))
	if len(want) == 0 || len(again) != len(want) || len(first) != len(want) {
		t.Fatalf("rows: %d viewed first, %d viewed again, %d without the cache", len(first), len(again), len(want))
	}
	differs := 0
	for i := range want {
		if again[i] != want[i] {
			t.Errorf("row %d viewed again: %+v, without the cache %+v", i, again[i], want[i])
		}
		if want[i].kind == "differs" {
			differs++
		}
	}
	if differs == 0 {
		t.Error("no row differs: the verdicts from cached frames are not tried")
	}
}
