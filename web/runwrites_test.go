package web

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"lockstep/explore"
	"lockstep/sim"
)

// TestOwnLockRunWritesBounded: a learner's lock whose acquire writes some
// 1 MiB of keys a call (15 keys of 65,000 bytes, each within every bound
// of one call) no longer piles its keys up over the steps of a run, and
// no frame draws them whole (a fresh-eyes attack on issue 37: frames of
// 37 MB at step 20, 400 to 600 MB of the server's RSS from one visitor).
// Over some ten forks, each acquiring once more, the run is refused by
// name (backend.MaxRunWriteBytes) once its writes pass the bound, and
// every message the server sends stays small. The server's heap is only
// logged: memory is shown by benchmarks, not asserted.
func TestOwnLockRunWritesBounded(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	const acquire = `local n = redis.call('INCR', KEYS[1] .. ':n') redis.call('PEXPIRE', KEYS[1] .. ':n', 600000) local v = string.rep('x', 65000) for i = 1, 15 do redis.call('SET', KEYS[1] .. ':' .. n .. ':' .. i, v, 'PX', 600000) end return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])`
	code := ownLockTimeline(t, srv, acquire)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse
	c := dial(t, hs, nil)
	c.expect(MsgHello)
	// next reads messages up to the next frame: the largest message's
	// size, the frame's step, and the errors before it.
	largest, cut := 0, false
	next := func() (step int, errs []serverMsg) {
		t.Helper()
		for {
			_ = c.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			_, data, err := c.conn.ReadMessage()
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			largest = max(largest, len(data))
			var m serverMsg
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatalf("decode: %v", err)
			}
			switch m.Type {
			case MsgError:
				errs = append(errs, m)
			case MsgFrame:
				for _, p := range m.Panels {
					cut = cut || strings.Contains(p, "x … 64744 bytes more")
				}
				return m.Step, errs
			}
		}
	}
	c.send(ClientMessage{Type: MsgLoad, ID: 1, Timeline: code, Step: intp(0)})
	at, _ := next()
	refused := 0
	for i := 0; i < 10; i++ {
		spec := explore.StepSpec{Actor: "A", Do: sim.ActAcquire, Lock: "lock"}
		c.send(ClientMessage{Type: MsgFork, ID: int64(2 + i), At: &at, Action: &spec})
		step, errs := next()
		for _, e := range errs {
			if e.Code == ErrCodeScriptError && strings.Contains(e.Message, "MaxRunWriteBytes") {
				refused++
			} else {
				t.Errorf("fork %d: %s %s, want only the run's write bound", i, e.Code, e.Message)
			}
		}
		at = step
	}
	runtime.ReadMemStats(&ms)
	t.Logf("largest message %d bytes; steps reached %d; refused %d of 10 forks; heap in use %d -> %d MB", largest, at, refused, before>>20, ms.HeapInuse>>20)
	if refused < 5 {
		t.Errorf("%d of 10 forks refused by MaxRunWriteBytes, want the run stopped once it wrote 2 MiB", refused)
	}
	if !cut {
		t.Error("no keys panel shows a 65,000-byte value cut at 256 bytes and what is left")
	}
	if largest > 256<<10 {
		t.Errorf("a message of %d bytes: a frame draws the run's keys whole", largest)
	}
}
