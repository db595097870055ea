package backend_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/internal/lessontest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// callAs runs sc once on a fresh store of sb for the client address addr
// and returns its reply or the step's error.
func callAs(t *testing.T, sb *backend.Sandbox, addr string, sc *sim.Script, read ...sim.KeyRef) (sim.Reply, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(backend.WithClientAddr(context.Background(), addr), 30*time.Second)
	defer cancel()
	st, err := sb.NewStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	res, err := st.Exec(ctx, &sim.Batch{Prior: []sim.KeyState{sim.Absent("lock")}, Read: read,
		Calls: []sim.Call{{Script: sc, Keys: []string{"lock"}, Args: []string{"A", "1000"}}}})
	if err != nil {
		return sim.Reply{}, err
	}
	return res.Replies[0], nil
}

// TestSandboxKillsBoundedPerAddr: a client address whose scripts got the
// shared sandbox killed MaxKillsPerAddr times within a minute is refused
// its next step by name, before it runs (the sandbox's process lives on),
// while another address's scripts still run (a fresh-eyes review of issue
// 37: a runaway script every 2 s kept everyone's sandbox dying).
// The bound is 3 s, not less: under -race on a loaded machine a plain
// SET once took over 300 ms in the sandbox, and at load 27 on 2 cores
// over a second.
func TestSandboxKillsBoundedPerAddr(t *testing.T) {
	t.Parallel()
	sb := backend.NewSandbox(backend.SandboxConfig{TimeLimit: 3 * time.Second, MaxKillsPerAddr: 2})
	t.Cleanup(func() { sb.Close() })
	loop := userScript(t, runaway)
	for i := range 2 {
		_, err := callAs(t, sb, "192.0.2.1", loop)
		overrun(t, "runaway "+string(rune('1'+i)), err, "sandbox")
	}
	if _, err := sb.Backend(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := sb.PID()
	_, err := callAs(t, sb, "192.0.2.1", loop)
	var refused *backend.SandboxKillsError
	if !errors.As(err, &refused) || refused.Max != 2 {
		t.Fatalf("a third runaway from the same address: %v, want a SandboxKillsError", err)
	}
	if m := refused.Message(); m.ID != "backend.sandbox-kills" {
		t.Errorf("refusal's message %v", m)
	}
	if sb.PID() != pid {
		t.Errorf("the refused step ran: the sandbox's process changed from %d to %d", pid, sb.PID())
	}
	set := userScript(t, "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])")
	if r, err := callAs(t, sb, "192.0.2.2", set); err != nil || r.Str != "OK" {
		t.Errorf("another address after the refusal: %+v %v", r, err)
	}
}

// TestSandboxStepSurvivesAnothersKill: a step that was in progress when
// another visitor's script got the sandbox's process killed is sent again
// to the restarted process and answers, instead of failing for someone
// else's script; only the runaway's address is counted (a fresh-eyes
// review of issue 37).
func TestSandboxStepSurvivesAnothersKill(t *testing.T) {
	t.Parallel()
	// The runaway is killed at limit; the other step starts limit/2 after
	// it, so its own bound ends limit/2 after the kill: time enough, on a
	// loaded machine, for the kill, the restart and the step sent again
	// (with a limit of 1 s and a 300 ms start, under load 27 on 2 cores
	// the other step was itself stopped at its 1 s).
	limit := 4 * time.Second
	sb := backend.NewSandbox(backend.SandboxConfig{TimeLimit: limit, MaxKillsPerAddr: 1})
	t.Cleanup(func() { sb.Close() })
	if _, err := sb.Backend(context.Background()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var runawayErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, runawayErr = callAs(t, sb, "192.0.2.1", userScript(t, runaway))
	}()
	// The runaway holds the sandbox's Redis (it runs one script at a
	// time): this step waits behind it, in progress, until the kill.
	time.Sleep(limit / 2)
	r, err := callAs(t, sb, "192.0.2.2", userScript(t, "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])"))
	wg.Wait()
	overrun(t, "the runaway", runawayErr, "sandbox")
	if err != nil || r.Str != "OK" {
		t.Fatalf("a step in progress when another's script was killed: %+v %v, want OK", r, err)
	}
	// The visitor whose step was retried is not counted: its next step runs.
	if r, err := callAs(t, sb, "192.0.2.2", userScript(t, "return 1")); err != nil || r.Kind != sim.ReplyInt {
		t.Errorf("the retried visitor's next step: %+v %v", r, err)
	}
}

// TestSandboxStepBoundHoldsForTheStep: a step that writes and reads back
// large values answers within its time limit and a second, retries and
// reads included (a fresh-eyes review of issue 37: such a step took 7 to
// 11 s with a limit of 2 s), and its error names no loopback address of
// the sandbox.
func TestSandboxStepBoundHoldsForTheStep(t *testing.T) {
	t.Parallel()
	limit := 300 * time.Millisecond
	sb := backend.NewSandbox(backend.SandboxConfig{TimeLimit: limit, MaxKillsPerAddr: -1})
	t.Cleanup(func() { sb.Close() })
	big := userScript(t, "local v = string.rep('x', 65536) for i = 1, 8 do v = v .. v end for i = 1, 20 do redis.call('SET', KEYS[1] .. ':' .. i, v) end return redis.call('SET', KEYS[1], v)")
	t0 := time.Now()
	_, err := callAs(t, sb, "192.0.2.1", big, sim.KeyRef{Name: "lock", Type: sim.TypeString})
	took := time.Since(t0)
	t.Logf("took %s: %v", took.Round(time.Millisecond), err)
	if err == nil {
		// What one call of a script may write is bounded now
		// (backend.MaxScriptWriteBytes): the first 16 MiB SET is refused.
		if r, _ := callAs(t, sb, "192.0.2.1", big, sim.KeyRef{Name: "lock", Type: sim.TypeString}); r.Kind != sim.ReplyError || !strings.Contains(r.Str, "lockstep: writes:") {
			t.Fatalf("writing 21 values of 16 MiB in the sandbox answered %.200q", r.Str)
		}
		return
	}
	// Before the fix the step took 7 to 11 s on an idle machine; on a
	// loaded one (load 27 on 2 cores, -race) the kill and the sandbox's
	// restart wait for the CPU too, so the margin grows with the load
	// measured after the step.
	if margin := scaled(3 * time.Second); took > limit+margin {
		t.Errorf("the step took %s, over its limit of %s and the %s it may take to stop (load factor %.1f)", took, limit, margin, loadFactor())
	}
	if strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), "[::1]") {
		t.Errorf("the step's error names a loopback address: %v", err)
	}
}

// TestRealRedisWriteThenLoopStopped: on a real Redis opened to users'
// scripts, a script that writes a key and then loops forever is stopped by
// the turn count inside the script, well before Redis's busy time, so
// Redis answers PING right after (a script that has written cannot be
// stopped with SCRIPT KILL: issue 37's fresh-eyes review).
func TestRealRedisWriteThenLoopStopped(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	be := lessontest.Open(t, backend.Config{URL: srv.URL, AllowCustomScripts: true})
	for _, body := range []string{
		"redis.call('SET', KEYS[1], 'x') while true do end",
		"redis.call('SET', KEYS[1], 'x') local function f() return f() end return f()",
		"redis.call('SET', KEYS[1], 'x') repeat until false",
	} {
		r, err := callOnce(t, be.NewStore, userScript(t, body))
		if err != nil || r.Kind != sim.ReplyError || !sim.ScriptWasStopped(r.Str) {
			t.Errorf("%s: %+v %v, want the turn bound's error", body, r, err)
		}
		// The same from a script file with CR line endings, which Lua
		// reads as lines too (a fresh-eyes attack on issue 37: such a
		// script ran without its counter and wedged redis-server).
		cr := strings.ReplaceAll(strings.Replace(body, ") ", ")\r", 1), " return", "\rreturn")
		r, err = callOnce(t, be.NewStore, userScriptFile(t, cr))
		if err != nil || r.Kind != sim.ReplyError || !sim.ScriptWasStopped(r.Str) {
			t.Errorf("%s: %+v %v, want the turn bound's error", body, r, err)
		}
		c := redis.NewClient(&redis.Options{Addr: srv.Addr})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := c.Ping(ctx).Err(); err != nil {
			t.Errorf("%s: redis-server right after: %v", body, err)
		}
		cancel()
		c.Close()
	}
}

// TestSandboxErrorsNameNoLoopbackAddress: when the sandbox's process is
// gone under a run, the step's error (shown to the visitor) does not name
// the sandbox's loopback address and port (a fresh-eyes review of issue
// 37), while errors.Is still sees what happened.
func TestSandboxErrorsNameNoLoopbackAddress(t *testing.T) {
	t.Parallel()
	sb := backend.NewSandbox(backend.SandboxConfig{})
	t.Cleanup(func() { sb.Close() })
	st, err := sb.NewStore(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(context.Background())
	p, err := os.FindProcess(sb.PID())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	processGoneWithin(sb.PID(), 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = st.Exec(ctx, &sim.Batch{Prior: []sim.KeyState{sim.Absent("lock")}, Read: []sim.KeyRef{{Name: "lock", Type: sim.TypeString}}})
	if err == nil {
		t.Fatal("a step on a sandbox whose process was killed answered")
	}
	if strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), "[::1]") {
		t.Errorf("the step's error names a loopback address: %v", err)
	}
}

// userScriptFile is a user's acquire script read from its own file,
// acquire.lua, holding body as it is (line endings included).
func userScriptFile(t *testing.T, body string) *sim.Script {
	t.Helper()
	src := "name: mine\nlock: {type: string}\nowner: grant-token\nreentry: none\n" +
		"acquire:\n  script: acquire.lua\n  keys: [lock]\n  argv: [owner, lease_ms]\n  replies: {OK: ACQUIRED, nil: BUSY}\n" +
		"release:\n  source: return redis.call('DEL', KEYS[1])\n  keys: [lock]\n  replies: {1: RELEASED, 0: NOT_OWNER}\n"
	d, err := sim.LoadVariant("mine.variant.yaml", []byte(src), sim.SentScripts("mine.variant.yaml", map[string]string{"acquire.lua": body}))
	if err != nil {
		t.Fatal(err)
	}
	return d.Acquire.Script
}
