package backend_test

import (
	"context"
	"testing"

	"lockstep/backend"
	"lockstep/sim"
)

// BenchmarkCustomStep is one step of a learner's lock (a SET NX PX
// acquire, then the read of its key) on the in-process embedded Redis (what the web
// server used before the sandbox, and what the CLI uses) and in the Lua
// sandbox (what the web server uses now): the cost of running a visitor's
// script out of the server's process.
//
//	go test ./backend -run '^$' -bench BenchmarkCustomStep -benchmem
func BenchmarkCustomStep(b *testing.B) {
	def := "name: mine\nlock: {type: string}\nowner: grant-token\nreentry: none\n" +
		"acquire:\n  source: return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n  keys: [lock]\n  argv: [owner, lease_ms]\n  replies: {OK: ACQUIRED, nil: BUSY}\n" +
		"release:\n  source: return redis.call('DEL', KEYS[1])\n  keys: [lock]\n  replies: {1: RELEASED, 0: NOT_OWNER}\n"
	d, err := sim.LoadVariant("mine.variant.yaml", []byte(def), nil)
	if err != nil {
		b.Fatal(err)
	}
	sb := backend.NewSandbox(backend.SandboxConfig{})
	b.Cleanup(func() { sb.Close() })
	embedded, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		open func() (*backend.Store, error)
	}{
		{"embedded", embedded.NewStore},
		{"sandbox", func() (*backend.Store, error) { return sb.NewStore(context.Background()) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			st, err := c.open()
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close(context.Background())
			batch := &sim.Batch{Prior: []sim.KeyState{sim.Absent("lock")},
				Calls: []sim.Call{{Script: d.Acquire.Script, Keys: []string{"lock"}, Args: []string{"A", "30000"}}},
				Read:  []sim.KeyRef{{Name: "lock", Type: sim.TypeString}}}
			b.ResetTimer()
			for range b.N {
				if _, err := st.Exec(context.Background(), batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
