package backend_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"lockstep/backend"
	"lockstep/sim"
)

// TestValueTooLargeRefused: a script's reply, or a key it wrote, larger
// than backend.MaxReplyBytes ends the step with a ValueTooLargeError (a
// catalogue message) on the embedded Redis, the sandbox and redis-server,
// instead of being drawn in every frame (a fresh-eyes attack on issue 37:
// a 16 MB reply became a 200 MB websocket frame).
func TestValueTooLargeRefused(t *testing.T) {
	sb := backend.NewSandbox(backend.SandboxConfig{})
	t.Cleanup(func() { sb.Close() })
	lock := sim.KeyRef{Name: "lock", Type: sim.TypeString}
	for name, open := range stores(t, sb) {
		for body, what := range map[string]string{
			"return string.rep('<', 50000) .. string.rep('<', 50000)":                                          "reply",
			"return redis.call('SET', KEYS[1], string.rep('<', 50000) .. string.rep('<', 50000), 'PX', 60000)": "lock",
			"return {string.rep('<', 40000), string.rep('<', 40000)}":                                          "reply",
			"return redis.call('SET', KEYS[1], string.rep('<', 1000), 'NX', 'PX', 60000)":                      "",
		} {
			st, err := open()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			_, err = st.Exec(ctx, &sim.Batch{Prior: []sim.KeyState{sim.Absent("lock")}, Read: []sim.KeyRef{lock},
				Calls: []sim.Call{{Script: userScript(t, body), Keys: []string{"lock"}, Args: []string{"A", "1000"}}}})
			cancel()
			st.Close(context.Background())
			var big *backend.ValueTooLargeError
			switch {
			case what == "" && err != nil:
				t.Errorf("%s: %s: %v", name, body, err)
			case what != "" && (!errors.As(err, &big) || big.What != what):
				t.Errorf("%s: %s: %v, want a ValueTooLargeError for %s", name, body, err, what)
			case what != "" && big.Message().ID != "backend.value-too-large":
				t.Errorf("%s: message %v", name, big.Message())
			}
		}
	}
}
