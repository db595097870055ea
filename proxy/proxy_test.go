package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/internal/redistest"
	"lockstep/proxy"
)

// upstreams are the two upstreams every test runs on: the embedded Redis
// and a real redis-server on a free port.
func upstreams(t *testing.T) map[string]func(t *testing.T) string {
	return map[string]func(t *testing.T) string{
		"embedded": func(t *testing.T) string { return "" },
		"redis-server": func(t *testing.T) string {
			return redistest.Start(t).URL
		},
	}
}

func startProxy(t *testing.T, cfg proxy.Config) *proxy.Proxy {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	p, err := proxy.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func client(t *testing.T, p *proxy.Proxy, name string, protocol int) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), Protocol: protocol, ClientName: name, PoolSize: 1, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// eventually polls cond for up to 30 s: the lock reader runs beside the
// clients, and on a loaded machine it may lag them by seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestClientsThroughProxy(t *testing.T) {
	for name, up := range upstreams(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, proxy.Config{RedisURL: up(t), Locks: "lock:*"})
			ctx := context.Background()
			for _, protocol := range []int{2, 3} {
				c := client(t, p, fmt.Sprintf("app-resp%d", protocol), protocol)
				// Pipelining: 50 commands in one write.
				pipe := c.Pipeline()
				for i := range 50 {
					pipe.Set(ctx, fmt.Sprintf("k%d:%d", protocol, i), i, time.Minute)
				}
				get := pipe.Get(ctx, fmt.Sprintf("k%d:49", protocol))
				if _, err := pipe.Exec(ctx); err != nil {
					t.Fatal(err)
				}
				if get.Val() != "49" {
					t.Fatalf("RESP%d pipeline GET = %q", protocol, get.Val())
				}
				// MULTI/EXEC.
				var incr *redis.IntCmd
				if _, err := c.TxPipelined(ctx, func(tx redis.Pipeliner) error {
					incr = tx.Incr(ctx, fmt.Sprintf("n%d", protocol))
					tx.Expire(ctx, fmt.Sprintf("n%d", protocol), time.Minute)
					return nil
				}); err != nil || incr.Val() != 1 {
					t.Fatalf("RESP%d MULTI: %v %d", protocol, err, incr.Val())
				}
				// A script on a lock key; a map reply under RESP3.
				if err := c.Eval(ctx, "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])", []string{"lock:a"}, "tok", 60000).Err(); err != nil && !errors.Is(err, redis.Nil) {
					t.Fatal(err)
				}
				if err := c.HSet(ctx, fmt.Sprintf("h%d", protocol), "f", "v").Err(); err != nil {
					t.Fatal(err)
				}
				if m := c.HGetAll(ctx, fmt.Sprintf("h%d", protocol)).Val(); m["f"] != "v" {
					t.Fatalf("RESP%d HGETALL = %v", protocol, m)
				}
				// Pub/sub: a subscriber on its own connection gets a message.
				sub := c.Subscribe(ctx, "unlock-channel")
				if _, err := sub.Receive(ctx); err != nil {
					t.Fatal(err)
				}
				if err := client(t, p, "publisher", protocol).Publish(ctx, "unlock-channel", "0").Err(); err != nil {
					t.Fatal(err)
				}
				msg, err := sub.ReceiveMessage(ctx)
				if err != nil || msg.Payload != "0" {
					t.Fatalf("RESP%d message: %v %v", protocol, msg, err)
				}
				sub.Close()
			}
			snap := p.Snapshot()
			names := map[string]proxy.ClientInfo{}
			for _, l := range snap.Lanes {
				if l.Name != "" {
					names[l.Name] = l
				}
			}
			if names["app-resp3"].Protocol != 3 || names["app-resp2"].Protocol == 3 {
				t.Errorf("lanes: %+v", snap.Lanes)
			}
			if lib := names["app-resp3"].Library; !strings.HasPrefix(lib, "go-redis") {
				t.Errorf("library of app-resp3 = %q, want go-redis...", lib)
			}
			// Values of keys that are not locks are never kept.
			for _, e := range snap.Events {
				if e.Command == nil {
					continue
				}
				if strings.HasPrefix(e.Command.Name, "SET") && len(e.Command.Args) > 2 && e.Command.Args[1] != "lock:a" && e.Command.Args[2] != proxy.Redacted {
					t.Errorf("value kept: %+v", e.Command)
				}
				if e.Command.Name == "GET" && e.Command.Reply != "(value)" {
					t.Errorf("GET reply kept: %+v", e.Command)
				}
			}
			eventually(t, "lock state of lock:a", func() bool {
				for _, l := range p.Snapshot().Redis.Locks {
					if l.Key == "lock:a" && l.Value == "tok" && l.PTTL > 0 {
						return true
					}
				}
				return false
			})
		})
	}
}
