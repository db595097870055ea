package search

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// bigValueSearch writes a learner's lock whose acquire stores its owner
// followed by pad bytes, and a search of it, and loads the search.
func bigValueSearch(t *testing.T, pad int) *File { return bigValueSearchTB(t, pad) }

// bigValueSearchTB is bigValueSearch for a test or a benchmark.
func bigValueSearchTB(t testing.TB, pad int) *File {
	t.Helper()
	dir := t.TempDir()
	variant := "name: padded\nlock: {type: string}\nowner: grant-token\nreentry: none\n" +
		"acquire:\n  source: |\n    return redis.call('SET', KEYS[1], ARGV[1] .. string.rep('x', tonumber(ARGV[3])), 'NX', 'PX', ARGV[2])\n" +
		"  keys: [lock]\n  argv: [owner, lease_ms, {literal: \"" + strconv.Itoa(pad) + "\"}]\n  replies: {OK: ACQUIRED, nil: BUSY}\n" +
		"release:\n  source: return redis.call('DEL', KEYS[1])\n  keys: [lock]\n  replies: {1: RELEASED, 0: NOT_OWNER}\n"
	file := "variant: ./padded.variant.yaml\nlease: 30s\nactors: [{id: A}, {id: B}, {id: C}]\n" +
		"moves: [acquire, release, pause, resume]\nadvance: [10s, 31s]\ndepth: 6\n"
	for name, src := range map[string]string{"padded.variant.yaml": variant, "padded.search.yaml": file} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Load(filepath.Join(dir, "padded.search.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSearchStopsAtByteBudget: a search of a lock whose values are large
// stops, by name (EndMaxBytes), once the states it keeps take more than
// its byte budget, at the same state on every run and with any number of
// workers; the same search of small values runs past that point (a
// fresh-eyes review of issue 37: a search's memory was bounded only by its
// state count).
func TestSearchStopsAtByteBudget(t *testing.T) {
	t.Parallel()
	const budget = 2 << 20
	big := bigValueSearch(t, 60<<10) // under backend.MaxReplyBytes
	res := run(t, big, Config{MaxBytes: budget, Workers: 2})
	if res.End != EndMaxBytes || res.Complete || res.Bytes <= budget {
		t.Fatalf("big values: end %q complete %v, %d bytes counted (budget %d), %d states; want stopped at max-bytes", res.End, res.Complete, res.Bytes, budget, res.States)
	}
	// Each state kept holds its 60 KiB value: the budget holds a few dozen.
	if res.States > 100 {
		t.Errorf("big values: %d states within %d bytes", res.States, budget)
	}
	again := run(t, big, Config{MaxBytes: budget, Workers: 1})
	if again.States != res.States || again.Bytes != res.Bytes || again.Transitions != res.Transitions {
		t.Errorf("a second run stopped elsewhere: %d states, %d bytes, %d transitions; then %d, %d, %d",
			res.States, res.Bytes, res.Transitions, again.States, again.Bytes, again.Transitions)
	}
	small := run(t, bigValueSearch(t, 1), Config{MaxBytes: budget, Workers: 2})
	t.Logf("60 KiB values: %d states, %d bytes (%s); 1 byte: %d states, %d bytes (%s)", res.States, res.Bytes, res.End, small.States, small.Bytes, small.End)
	if small.End == EndMaxBytes || small.States <= res.States {
		t.Errorf("small values: end %q after %d states (%d bytes); want more states than the big values' %d within the budget", small.End, small.States, small.Bytes, res.States)
	}
}
