package cli

import (
	"bufio"
	"context"
	"lockstep/backend"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/internal/redistest"
)

// serveEnv makes the test binary run Serve with its arguments instead of the
// tests: TestClassAcrossTwoServers starts Lockstep server processes so,
// without building a binary.
const serveEnv = "LOCKSTEP_TEST_SERVE"

func TestMain(m *testing.M) {
	// The test binary is also the Lua sandbox's child (backend.Sandbox).
	backend.RunSandboxIfChild()
	if os.Getenv(serveEnv) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Serve(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// serverProcess starts a Lockstep server process (this test binary running
// Serve) on a free loopback port and returns its http:// base URL; it is
// stopped at test end.
func serverProcess(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	opened := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := openLine.FindStringSubmatch(sc.Text()); m != nil {
				opened <- strings.TrimSuffix(m[1], "/")
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("server %v stderr:\n%s", args, stderr.String())
		}
	})
	select {
	case base := <-opened:
		return base
	case <-exited:
		t.Fatalf("the server process exited before serving:\n%s", stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("the server process did not serve within 60 s:\n%s", stderr.String())
	}
	return ""
}

// wsPeer is one page's websocket in the test.
type wsPeer struct {
	t    *testing.T
	name string
	conn *websocket.Conn
	id   int64
}

func dialPeer(t *testing.T, name, base string) *wsPeer {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/ws", http.Header{"Origin": {base}})
	if err != nil {
		t.Fatalf("%s: dial %s: %v", name, base, err)
	}
	t.Cleanup(func() { c.Close() })
	p := &wsPeer{t: t, name: name, conn: c}
	p.await("hello", nil)
	return p
}

// send sends msg with the next id and returns the id.
func (p *wsPeer) send(msg map[string]any) int64 {
	p.t.Helper()
	p.id++
	msg["id"] = p.id
	if err := p.conn.WriteJSON(msg); err != nil {
		p.t.Fatalf("%s: send %v: %v", p.name, msg, err)
	}
	return p.id
}

// await reads messages until one of type typ ("": any type, errors
// included) for which match (nil: any) holds, failing on an error message
// (when typ is not "") or after 20 s. It returns the message
// decoded.
func (p *wsPeer) await(typ string, match func(map[string]any) bool) map[string]any {
	p.t.Helper()
	_ = p.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		var m map[string]any
		if err := p.conn.ReadJSON(&m); err != nil {
			p.t.Fatalf("%s: waiting for %s: %v", p.name, typ, err)
		}
		if m["type"] == "error" && typ != "error" && typ != "" {
			p.t.Fatalf("%s: waiting for %s: error %v", p.name, typ, m)
		}
		if (typ == "" || m["type"] == typ) && (match == nil || match(m)) {
			return m
		}
	}
}

func stepIs(n int) func(map[string]any) bool {
	return func(m map[string]any) bool { s, ok := m["step"].(float64); return ok && int(s) == n }
}

// TestClassAcrossTwoServers: two Lockstep server processes share classes
// through a real redis-server (-classroom-redis); a presenter on one moves
// the class and asks a question, two students on the other (one in zh-CN)
// follow the steps in their languages and answer, and the presenter's
// server counts both answers; then Redis goes down, the presenter is told,
// and when Redis is back the class goes on.
func TestClassAcrossTwoServers(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	bases := []string{serverProcess(t, "-classroom-redis", rs.URL), serverProcess(t, "-classroom-redis", rs.URL)}

	pres := dialPeer(t, "presenter", bases[0])
	re := pres.send(map[string]any{"type": "load", "lesson": "stale-owner", "step": 0, "lang": "en"})
	pres.await("frame", func(m map[string]any) bool { return m["re"] == float64(re) })
	re = pres.send(map[string]any{"type": "class-start"})
	started := pres.await("class-presenter", func(m map[string]any) bool { return m["re"] == float64(re) })
	code, _ := started["code"].(string)
	if code == "" || started["key"] == "" {
		t.Fatalf("class-presenter without a code or key: %v", started)
	}

	langs := []string{"en", "zh-CN"}
	var students []*wsPeer
	for i, lang := range langs {
		s := dialPeer(t, "student "+lang, bases[1])
		s.send(map[string]any{"type": "lang", "lang": lang})
		re := s.send(map[string]any{"type": "class-join", "code": strings.ToLower(code)})
		joined := s.await("class-joined", func(m map[string]any) bool { return m["re"] == float64(re) })
		if joined["code"] != code {
			t.Fatalf("student %d joined %v, want class %s", i, joined["code"], code)
		}
		f := s.await("frame", stepIs(0))
		if f["lang"] != lang {
			t.Fatalf("student %d's first frame is in %v, want %s", i, f["lang"], lang)
		}
		students = append(students, s)
	}
	// The presenter's server counts the students of the other server.
	pres.await("class-status", func(m map[string]any) bool { return m["students"] == float64(len(students)) })

	for step := 1; step <= 3; step++ {
		pres.send(map[string]any{"type": "seek", "step": step})
		for i, s := range students {
			f := s.await("frame", stepIs(step))
			if f["lang"] != langs[i] {
				t.Fatalf("%s: the frame of step %d is in %v", s.name, step, f["lang"])
			}
		}
	}
	// A student cannot move the class.
	students[0].send(map[string]any{"type": "step"})
	if e := students[0].await("error", nil); e["code"] != "class-following" {
		t.Fatalf("a following student's step: %v, want class-following", e)
	}

	// Ask at the first step from here whose next step has outcomes to
	// predict.
	var asked map[string]any
	for step := 3; asked == nil; step++ {
		if step > 3 {
			pres.send(map[string]any{"type": "seek", "step": step})
			for _, s := range students {
				s.await("frame", stepIs(step))
			}
		}
		re := pres.send(map[string]any{"type": "class-ask"})
		m := pres.await("", func(m map[string]any) bool {
			q, _ := m["question"].(map[string]any)
			return (m["type"] == "error" && m["re"] == float64(re)) || (m["type"] == "class-status" && q != nil && q["open"] == true)
		})
		switch {
		case m["type"] == "class-status":
			asked = m
		case m["code"] != "class-no-question" || step > 12:
			t.Fatalf("class-ask at step %d: %v", step, m)
		}
	}
	q := asked["question"].(map[string]any)
	choices := q["choices"].([]any)
	want := map[string]float64{}
	for i, s := range students {
		st := s.await("class-status", func(m map[string]any) bool {
			q, _ := m["question"].(map[string]any)
			return q != nil && q["open"] == true
		})
		sq := st["question"].(map[string]any)
		choice := sq["choices"].([]any)[i%len(choices)].(map[string]any)["id"].(string)
		want[choice]++
		s.send(map[string]any{"type": "class-answer", "step": sq["step"], "choice": choice})
		s.await("class-answered", nil)
	}
	counted := pres.await("class-status", func(m map[string]any) bool { return m["answered"] == float64(len(students)) })
	counts, _ := counted["counts"].(map[string]any)
	for choice, n := range want {
		if counts[choice] != n {
			t.Fatalf("the presenter's counts are %v, want %v", counts, want)
		}
	}
	pres.send(map[string]any{"type": "class-reveal"})
	for _, s := range students {
		s.await("class-status", func(m map[string]any) bool {
			q, _ := m["question"].(map[string]any)
			return q != nil && q["revealed"] == true
		})
	}

	// An outage: the presenter's panel says so; when Redis is back (empty:
	// it keeps nothing on disk) the class goes on where it was.
	rs.Stop()
	down := pres.await("class-status", func(m map[string]any) bool { return m["bus"] != nil && m["bus"] != "" })
	if !strings.Contains(down["bus"].(string), "Redis") {
		t.Fatalf("the presenter's banner during the outage: %v", down["bus"])
	}
	rs.Restart(t)
	pres.await("class-status", func(m map[string]any) bool { return m["bus"] == nil })
	step := int(asked["question"].(map[string]any)["step"].(float64)) + 1
	pres.send(map[string]any{"type": "seek", "step": step})
	for _, s := range students {
		s.await("frame", stepIs(step))
	}

	pres.send(map[string]any{"type": "class-end"})
	for _, s := range students {
		s.await("class-status", func(m map[string]any) bool { return m["ended"] == true })
	}
}
