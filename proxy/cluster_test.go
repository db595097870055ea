package proxy

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"lockstep/internal/redistest"
)

// TestClusterRefused: the proxy answers every CLUSTER command as a
// standalone redis-server does (asked the same directly), in its place
// among the replies and inside a transaction, on both upstreams; a
// go-redis ClusterClient pointed at the proxy fails to connect. Before,
// the embedded upstream answered CLUSTER SLOTS with its own address and
// the cluster client sent its commands there, past the proxy.
func TestClusterRefused(t *testing.T) {
	pipeline := [][]string{cmd("SET k 1"), cmd("CLUSTER SLOTS"), cmd("CLUSTER NODES"), cmd("cluster shards"),
		cmd("CLUSTER INFO"), cmd("CLUSTER"), cmd("CLUSTER KEYSLOT k"), cmd("MULTI"), cmd("CLUSTER SLOTS"), cmd("INCR k"),
		cmd("EXEC"), cmd("GET k")}
	srv := redistest.Start(t)
	want := dialRaw(t, srv.Addr).pipeline(t, pipeline...)
	if !strings.Contains(want[1], "cluster support disabled") {
		t.Fatalf("redis-server answered CLUSTER SLOTS %q: not a standalone one", want[1])
	}
	onBoth(t, func(t *testing.T, realRedis bool) {
		p := startOn(t, realRedis, Config{Locks: "lock:*"})
		got := dialRaw(t, p.Addr()).pipeline(t, pipeline...)
		for i := range pipeline {
			if got[i] != want[i] {
				t.Errorf("%q: the proxy answered %q, redis-server %q", pipeline[i], got[i], want[i])
			}
		}
		inline := dialRaw(t, p.Addr())
		if _, err := inline.c.Write([]byte("cluster slots\r\n")); err != nil {
			t.Fatal(err)
		}
		if _, v, err := readReply(inline.r); err != nil || v.String() != want[1] {
			t.Errorf("inline cluster slots: %q, %v; want %q", v.String(), err, want[1])
		}
		cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{p.Addr()}, MaxRedirects: 1})
		t.Cleanup(func() { cc.Close() })
		ctx := context.Background()
		if err := cc.Set(ctx, "via-cluster", "1", 0).Err(); err == nil || !strings.Contains(err.Error(), "cluster support disabled") {
			t.Errorf("a ClusterClient at the proxy: SET gave %v, want cluster support disabled", err)
		}
		c := redis.NewClient(&redis.Options{Addr: p.Addr()})
		t.Cleanup(func() { c.Close() })
		if n, err := c.Exists(ctx, "via-cluster").Result(); err != nil || n != 0 {
			t.Errorf("EXISTS via-cluster: %d, %v; the cluster client wrote past the proxy", n, err)
		}
	})
}
