package proxy

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// acquireWithPayload takes the lock as SET NX PX does; its ARGV[3], a
// payload, is not used.
const acquireWithPayload = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`

// keptBytes is how many bytes of strings the events keep for the
// analyzer and SaveLesson beyond what their JSON shows: a command's
// arguments and reply value, its transaction's.
func keptBytes(evs []Event) int {
	var valueBytes func(v Value) int
	valueBytes = func(v Value) int {
		n := len(v.Str)
		for _, e := range v.Elems {
			n += valueBytes(e)
		}
		return n
	}
	n := 0
	for _, e := range evs {
		if c := e.Command; c != nil {
			for _, a := range c.cmd.args {
				n += len(a)
			}
			n += valueBytes(c.value)
			for _, q := range c.tx {
				for _, a := range q.cmd.args {
					n += len(a)
				}
				n += valueBytes(q.reply)
			}
		}
	}
	return n
}

// TestTraceBoundedInBytes: 1 MiB values on lock keys (a script's
// argument, a String lock's value, a Hash lock's field) are passed whole
// to the client but kept cut to maxTracedText bytes with a marker in the
// trace, in what the analyzer keeps and in the lock states; the tokens
// stay whole; a saved lesson says the cut argument is missing rather than
// replay its first bytes. Before, each event kept the whole value: the
// snapshot of these 48 commands was over 20 MiB.
func TestTraceBoundedInBytes(t *testing.T) {
	onBoth(t, func(t *testing.T, realRedis bool) {
		p, release := txProxy(t, realRedis)
		release()
		ctx := context.Background()
		c := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		const n = 8
		for i := range n {
			big := strings.Repeat(string(rune('a'+i)), 1<<20)
			tok := "tok-" + strconv.Itoa(i) + "-0123456789abcdef0123456789abcdef01234567"
			if got, err := c.Eval(ctx, acquireWithPayload, []string{"lock:big"}, tok, 60000, big).Int(); err != nil || got != 1 {
				t.Fatalf("acquire %d: %d, %v", i, got, err)
			}
			if got := c.Get(ctx, "lock:big").Val(); got != tok {
				t.Fatalf("GET lock:big %q, want %q", got, tok)
			}
			if err := c.Set(ctx, "lock:val", big, time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
			if got := c.Get(ctx, "lock:val").Val(); got != big {
				t.Fatalf("GET lock:val: %d bytes, want the %d sent", len(got), len(big))
			}
			if err := c.HSet(ctx, "lock:h", "f", big).Err(); err != nil {
				t.Fatal(err)
			}
			if err := c.Del(ctx, "lock:big", "lock:h").Err(); err != nil {
				t.Fatal(err)
			}
		}
		settle(p)
		snap := p.Snapshot()
		b, err := json.Marshal(snap)
		if err != nil {
			t.Fatal(err)
		}
		const bound = 256 << 10
		t.Logf("snapshot JSON %d bytes, %d kept for the analyzer", len(b), keptBytes(snap.Events))
		if len(b) > bound {
			t.Errorf("the snapshot's JSON is %d bytes, want under %d", len(b), bound)
		}
		if kept := keptBytes(snap.Events); kept > bound {
			t.Errorf("the events keep %d bytes of arguments and replies, want under %d", kept, bound)
		}
		var cutArgs, cutValues, cutFields, tokens int
		for _, e := range snap.Events {
			if e.Kind == EventCommand && e.Command.Name == "SET" && e.Command.Args[1] == "lock:val" {
				if a := e.Command.Args[2]; isCut(a) && cutLen(a) == 1<<20 && strings.HasPrefix(a, strings.Repeat(a[:1], maxTracedText)) {
					cutArgs++
				}
			}
			if e.Kind == EventLock && e.Lock.Key == "lock:val" && isCut(e.Lock.Value) {
				cutValues++
			}
			if e.Kind == EventLock && e.Lock.Key == "lock:h" && isCut(e.Lock.Fields["f"]) {
				cutFields++
			}
			if e.Kind == EventLock && e.Lock.Key == "lock:big" && strings.HasPrefix(e.Lock.Value, "tok-") && len(e.Lock.Value) == 46 {
				tokens++
			}
		}
		if cutArgs != n || cutValues == 0 || cutFields == 0 || tokens == 0 {
			t.Errorf("cut SET arguments %d (want %d), cut lock values %d, cut fields %d, whole tokens %d (want some)", cutArgs, n, cutValues, cutFields, tokens)
		}
		saved, err := p.SaveLesson(ctx, SaveOptions{ID: "big", Key: "lock:big"})
		if err != nil {
			t.Fatal(err)
		}
		said := false
		for _, m := range saved.Missing {
			said = said || strings.Contains(m, "MISSING-ARGV-3")
		}
		if !said || !strings.Contains(string(saved.Variant), `"MISSING-ARGV-3"`) || strings.Contains(string(saved.Variant), strings.Repeat("a", 100)) {
			t.Errorf("saved with a cut ARGV[3]: missing %q\n%s", saved.Missing, saved.Variant)
		}
	})
}
