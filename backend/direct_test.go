package backend_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
)

// replyShapes are scripts whose replies cover every RESP2 shape a script
// can give: integers, bulk and status strings, nil, error replies (raised
// and returned), arrays with nil, error and nested elements, the empty
// array, and a reply that reads the keyspace.
var replyShapes = []struct{ name, src string }{
	{"int", "return 42"},
	{"negative", "return -7"},
	{"float truncated", "return 3.99"},
	{"true", "return true"},
	{"false", "return false"},
	{"nil", "return nil"},
	{"bulk", "return 'hello'"},
	{"empty bulk", "return ''"},
	{"bulk with CRLF", "return 'a\\r\\nb'"},
	{"status", "return redis.status_reply('OK')"},
	{"error returned", "return redis.error_reply('MINE went wrong')"},
	{"error raised", "error('raised here')"},
	{"redis.call error", "return redis.call('INCR', KEYS[1])"},
	{"array", "return {1, 'two', {3, {'four'}}}"},
	{"array stops at nil", "return {1, nil, 3}"},
	{"array with false", "return {1, false, 3}"},
	{"array with error", "return {1, redis.error_reply('ERR inner'), 'x'}"},
	{"array with status", "return {redis.status_reply('QUEUED')}"},
	{"empty array", "return {}"},
	{"keys and args", "redis.call('SET', KEYS[1], ARGV[1]) return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1]), #KEYS, #ARGV}"},
	{"hash", "redis.call('HSET', KEYS[2], 'f', ARGV[2]) return redis.call('HGETALL', KEYS[2])"},
	{"big bulk", "return string.rep('x', 20000)"},
}

// TestDirectRepliesAsGoRedis runs every script of replyShapes on two
// miniredis, one through go-redis (the embedded backend's client) and one
// through backend.Direct, and requires the same value, the same error
// (class and text) and the same decoded reply from both.
func TestDirectRepliesAsGoRedis(t *testing.T) {
	t.Parallel()
	m1, client := backend.NewMiniredis()
	defer m1.Close()
	defer client.Close()
	m2, direct := backend.NewMiniredisDirect()
	defer m2.Close()
	ctx := context.Background()
	keys, args := []string{"k", "h"}, []string{"v1", "v2"}
	for _, tc := range replyShapes {
		sc := redis.NewScript(tc.src)
		// Twice each: the first EVALSHA finds no script (NOSCRIPT, then EVAL).
		for round := range 2 {
			want, werr := sc.Run(ctx, client, keys, "v1", "v2").Result()
			got, gerr := direct.RunScript(ctx, sc.Hash(), tc.src, keys, args)
			if !reflect.DeepEqual(errorsAsText(got), errorsAsText(want)) {
				t.Errorf("%s (round %d): reply %#v, go-redis %#v", tc.name, round, got, want)
			}
			if errors.Is(gerr, redis.Nil) != errors.Is(werr, redis.Nil) {
				t.Errorf("%s (round %d): error %v, go-redis %v (redis.Nil)", tc.name, round, gerr, werr)
			}
			var ge, we redis.Error
			if errors.As(gerr, &ge) != errors.As(werr, &we) || (ge != nil && ge.Error() != we.Error()) {
				t.Errorf("%s (round %d): error %v, go-redis %v", tc.name, round, gerr, werr)
			}
			gr, gderr := backend.DecodeReply(got, gerr)
			wr, wderr := backend.DecodeReply(want, werr)
			if gderr != nil || wderr != nil || !reflect.DeepEqual(gr, wr) {
				t.Errorf("%s (round %d): decoded %+v (%v), go-redis %+v (%v)", tc.name, round, gr, gderr, wr, wderr)
			}
		}
	}
	if d1, d2 := m1.Dump(), m2.Dump(); d1 != d2 {
		t.Errorf("the keyspaces differ:\n%s\ngo-redis:\n%s", d2, d1)
	}
}

// errorsAsText replaces each error inside v by its text, so that values
// holding go-redis's and Direct's error types compare.
func errorsAsText(v any) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = errorsAsText(e)
		}
		return out
	case error:
		return "error: " + t.Error()
	}
	return v
}

// TestDirectCommands: commands other than scripts, and a done context,
// which runs nothing.
func TestDirectCommands(t *testing.T) {
	t.Parallel()
	m, direct := backend.NewMiniredisDirect()
	defer m.Close()
	ctx := context.Background()
	if v, err := direct.Do(ctx, "SET", "a", "1"); v != "OK" || err != nil {
		t.Fatalf("SET: %#v, %v", v, err)
	}
	if v, err := direct.Do(ctx, "INCR", "a"); v != int64(2) || err != nil {
		t.Fatalf("INCR: %#v, %v", v, err)
	}
	if _, err := direct.Do(ctx, "GET", "missing"); !errors.Is(err, redis.Nil) {
		t.Fatalf("GET of a missing key: %v, want redis.Nil", err)
	}
	var re redis.Error
	if _, err := direct.Do(ctx, "NOSUCHCOMMAND"); !errors.As(err, &re) {
		t.Fatalf("an unknown command: %v, want a redis.Error", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := direct.Do(done, "INCR", "a"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a done context: %v", err)
	}
	if v, _ := m.Get("a"); v != "2" {
		t.Fatalf("a = %q after a done context's INCR, want 2", v)
	}
}

// BenchmarkScriptCall is one call of token-count's acquire script on a
// miniredis, through go-redis over the in-memory connection and through
// backend.Direct: what the search's store saves per transition. Besides the
// wall time per call it reports the CPU time (user and system, getrusage,
// the collector's workers included), which a machine shared with other work
// inflates far less.
func BenchmarkScriptCall(b *testing.B) {
	src, err := os.ReadFile("../sim/lua/token-count/acquire.lua")
	if err != nil {
		b.Fatal(err)
	}
	sc := redis.NewScript(string(src))
	keys := []string{"lock"}
	ctx := context.Background()
	b.Run("go-redis", func(b *testing.B) {
		m, client := backend.NewMiniredis()
		defer m.Close()
		defer client.Close()
		defer reportCPU(b)()
		for b.Loop() {
			m.Del("lock")
			if err := sc.Run(ctx, client, keys, "A", "30000").Err(); err != nil && !errors.Is(err, redis.Nil) {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		m, direct := backend.NewMiniredisDirect()
		defer m.Close()
		args := []string{"A", "30000"}
		defer reportCPU(b)()
		for b.Loop() {
			m.Del("lock")
			if _, err := direct.RunScript(ctx, sc.Hash(), string(src), keys, args); err != nil && !errors.Is(err, redis.Nil) {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU starts counting the process's CPU time; the function it
// returns reports it per op as the metric cpu-ns/op.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}
