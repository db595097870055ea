package backend_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// TestRealRedisConcatBounded: on a real Redis opened to users' scripts, a
// script that grows a string by concatenation (`..`, which the key guard
// cannot shadow) is stopped once it has grown redis-server's Lua heap by
// backend.MaxScriptHeap (in a loop, or in straight-line chains of many
// operands), the step answers the script's error naming its line, Redis
// answers PING right after, and its Lua heap is back near where it was
// (a fresh-eyes attack on issue 37: `s = s .. s` forty times took a
// redis-server to 1.6 GB and "not enough memory" after 24 s). A script
// that concatenates a few short strings still runs.
func TestRealRedisConcatBounded(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	be := lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true})
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { c.Close() })
	luaHeap := func() int64 {
		info, err := c.InfoMap(context.Background(), "memory").Result()
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(info["Memory"]["used_memory_lua"], 10, 64)
		if err != nil {
			t.Fatalf("used_memory_lua: %v", err)
		}
		return n
	}
	chain := "s = s .. s .. s .. s"
	for what, body := range map[string]string{
		"doubling":      "local s = 'x'\nfor i = 1, 28 do s = s .. s end\nreturn #s",
		"chains":        "local s = string.rep('x', 65536)\n" + strings.Repeat(chain+"\n", 6) + "return #s",
		"format":        "local s = 'x'\nfor i = 1, 28 do s = string.format('%s%s', s, s) end\nreturn #s",
		"in redis.call": "local s = 'x'\nfor i = 1, 28 do s = s .. s end\nreturn redis.call('SET', KEYS[1], s)",
	} {
		before := luaHeap()
		r, err := callOnce(t, be.NewStore, userScript(t, strings.ReplaceAll(body, "\n", "\n    ")))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		// string.format is bounded by itself now (it makes at most
		// backend.MaxMadeBytes a call), before the heap bound.
		if r.Kind != sim.ReplyError || !(strings.Contains(r.Str, "lockstep: memory:") || what == "format" && strings.Contains(r.Str, "lockstep: string.format")) {
			t.Errorf("%s: replied %+v, want the heap bound's error", what, r)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := c.Ping(ctx).Err(); err != nil {
			t.Errorf("%s: redis-server right after: %v", what, err)
		}
		cancel()
		after := luaHeap()
		t.Logf("%s: %.60s; Lua heap %d KB before, %d KB after", what, r.Str, before>>10, after>>10)
		if after > before+16<<20 {
			t.Errorf("%s: redis-server's Lua heap went from %d to %d bytes and stayed", what, before, after)
		}
	}
	r, err := callOnce(t, be.NewStore, userScript(t, "return redis.call('SET', KEYS[1] .. ':n', ARGV[1] .. ':' .. ARGV[2])"))
	if err != nil || r.Kind == sim.ReplyError {
		t.Errorf("a short concatenation: %+v %v", r, err)
	}
}
