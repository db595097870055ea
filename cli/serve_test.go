package cli

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"lockstep/internal/redistest"

	"golang.org/x/net/html"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var openLine = regexp.MustCompile(`open (http://127\.0\.0\.1:\d+/)`)

// startServe runs Serve in the background and returns the URL it prints and
// a func that stops it (as Ctrl-C does) and returns its exit code.
func startServe(t *testing.T, args ...string) (string, *syncBuffer, *syncBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- Serve(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), &stdout, &stderr) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m := openLine.FindStringSubmatch(stdout.String()); m != nil {
			stop := func() int {
				cancel()
				select {
				case code := <-done:
					return code
				case <-time.After(60 * time.Second):
					t.Fatal("Serve did not return after cancel")
					return -1
				}
			}
			t.Cleanup(func() { cancel() })
			return m[1], &stdout, &stderr, stop
		}
		select {
		case code := <-done:
			t.Fatalf("Serve exited with %d: %s %s", code, stdout.String(), stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no URL printed: %q %q", stdout.String(), stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// coursePage reads the course page: the ids of its lessons and the text of
// its backend badge.
func coursePage(t *testing.T, body string) (lessons []string, badge string) {
	t.Helper()
	root, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse the course page: %v", err)
	}
	for n := range root.Descendants() {
		for _, a := range n.Attr {
			switch {
			case a.Key == "data-lesson":
				lessons = append(lessons, a.Val)
			case a.Key == "data-testid" && a.Val == "backend":
				var b strings.Builder
				for d := range n.Descendants() {
					if d.Type == html.TextNode {
						b.WriteString(d.Data)
					}
				}
				badge = strings.Join(strings.Fields(b.String()), " ")
			}
		}
	}
	return lessons, badge
}

// badgeOf is the course page's backend badge.
func badgeOf(t *testing.T, body string) string {
	t.Helper()
	_, badge := coursePage(t, body)
	return badge
}

func TestServeEmbedded(t *testing.T) {
	url, stdout, _, stop := startServe(t)
	status, body := fetch(t, url)
	if lessons, badge := coursePage(t, body); status != 200 || !slices.Contains(lessons, "nested-reentry") || !strings.HasSuffix(badge, "embedded Redis") {
		t.Fatalf("course page: %d, lessons %v, badge %q", status, lessons, badge)
	}
	if status, _ := fetch(t, url+"lessons/stale-owner?step=3&lang=zh-CN"); status != 200 {
		t.Fatalf("player page: %d", status)
	}
	if code := stop(); code != ExitOK {
		t.Fatalf("exit code %d", code)
	}
	out := stdout.String()
	for _, s := range []string{"embedded Redis (miniredis)", "shutting down", "stopped"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q: %s", s, out)
		}
	}
}

func TestServeRealRedis(t *testing.T) {
	rs := redistest.Start(t)
	url, stdout, _, stop := startServe(t, "-redis", rs.URL, "-max-sessions", "3", "-idle-timeout", "1m")
	if !strings.Contains(stdout.String(), "Redis ") || !strings.Contains(stdout.String(), rs.Addr) {
		t.Fatalf("output does not name the server: %s", stdout.String())
	}
	// The operator's output names the Redis; the page every visitor sees
	// does not (issue 37, item 8).
	if _, body := fetch(t, url); !strings.HasSuffix(badgeOf(t, body), "a real Redis (the server's -redis)") || strings.Contains(body, rs.Addr) {
		t.Fatalf("course page's badge %q, or the page names %s", badgeOf(t, body), rs.Addr)
	}
	if code := stop(); code != ExitOK {
		t.Fatalf("exit code %d", code)
	}
}

func TestServeBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"-no-such-flag"},
		{"serve-me"},
		{"-max-sessions", "0"},
		{"-idle-timeout", "-1s"},
		{"-class-idle", "30s"},
		{"-class-idle", "25h"},
		{"-class-idle", "soon"},
		{"-redis", "redis://127.0.0.1:1"},
		{"-redis", "not a url"},
		{"-addr", "256.0.0.1:99999"},
		{"-trusted-proxies", "10.0.0.0/8,proxy.example"},
		{"-max-classes", "0"},
		{"-max-classes-per-addr", "0"},
		{"-class-grace", "10ms"},
		{"-classroom-secret", "0123456789abcdef"}, // without -classroom-redis
		{"-classroom-redis", "redis://127.0.0.1:1", "-classroom-secret", "short"},
		{"-proxy-locks", "lock:*"}, // without -proxy
		{"-max-live", "3"},         // without -proxy
	} {
		var stdout, stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		code := Serve(ctx, args, &stdout, &stderr)
		cancel()
		if code != ExitInvalid || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	Serve(context.Background(), []string{"-redis", "redis://127.0.0.1:1"}, &stdout, &stderr)
	if !strings.Contains(stderr.String(), "127.0.0.1:1") {
		t.Errorf("unreachable Redis: message does not name the address: %s", stderr.String())
	}
	if code := Serve(context.Background(), []string{"-h"}, &stdout, &stderr); code != ExitOK {
		t.Errorf("-h: exit %d", code)
	}
}

// TestServeHostFlags: the served player refuses a Host it was not given
// (421) and answers one listed in -allowed-hosts; a bad
// -max-sessions-per-addr is refused by name.
func TestServeHostFlags(t *testing.T) {
	u, _, _, stop := startServe(t, "-allowed-hosts", "lockstep.example.org, class.example", "-class-idle", "90m")
	defer stop()
	for host, want := range map[string]int{"evil.example": http.StatusMisdirectedRequest, "lockstep.example.org": http.StatusOK, "class.example:8443": http.StatusOK} {
		req, err := http.NewRequest(http.MethodGet, u+"healthz", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	var stderr bytes.Buffer
	if code := Serve(context.Background(), []string{"-max-sessions-per-addr", "0"}, io.Discard, &stderr); code != ExitInvalid || !strings.Contains(stderr.String(), "-max-sessions-per-addr") {
		t.Errorf("-max-sessions-per-addr 0: exit %d, %q", code, stderr.String())
	}
}

// TestServeClassroomPeers: -classroom-peers without -classroom-redis, or
// with a URL that is not an absolute http(s) base URL, is refused by the
// flag's name; good peers parse to their origins.
func TestServeClassroomPeers(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-classroom-peers", "http://10.0.0.2:8080"},
		{"-classroom-redis", "redis://127.0.0.1:1", "-classroom-peers", "10.0.0.2:8080"},
		{"-classroom-redis", "redis://127.0.0.1:1", "-classroom-peers", "ftp://10.0.0.2"},
		{"-classroom-redis", "redis://127.0.0.1:1", "-classroom-peers", "http://10.0.0.2/lockstep"},
		{"-classroom-redis", "redis://127.0.0.1:1", "-classroom-peers", "http:///x"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Serve(context.Background(), args, &stdout, &stderr); code != ExitInvalid || !strings.Contains(stderr.String(), "flag -classroom-peers") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	got, err := parsePeers(" http://10.0.0.2:8080/, HTTPS://B.example.org ,", "redis://x")
	if err != nil || strings.Join(got, " ") != "http://10.0.0.2:8080 https://b.example.org" {
		t.Errorf("parsePeers = %q, %v", got, err)
	}
	if got, err := parsePeers("", ""); err != nil || got != nil {
		t.Errorf("no peers: %q, %v", got, err)
	}
}

// TestServeUsageListsCommands: the usage that an unknown command and -h
// print has a line for every command main dispatches (run, lessons,
// search, doctor).
func TestServeUsageListsCommands(t *testing.T) {
	for _, args := range [][]string{{"no-such-command"}, {"-h"}} {
		var stdout, stderr bytes.Buffer
		Serve(context.Background(), args, &stdout, &stderr)
		commands := map[string]bool{}
		for _, line := range strings.Split(stderr.String(), "\n") {
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "usage:"))
			if len(f) >= 2 && f[0] == "lockstep" && !strings.HasPrefix(f[1], "-") {
				commands[f[1]] = true
			}
		}
		for _, c := range []string{"run", "lessons", "search", "doctor"} {
			if !commands[c] {
				t.Errorf("%v: usage has no line for lockstep %s (lines for %v):\n%s", args, c, slices.Sorted(maps.Keys(commands)), stderr.String())
			}
		}
	}
}

// TestServeProxyPrintsLive: beside the proxy the server prints where its
// live page is, and that page answers.
func TestServeProxyPrintsLive(t *testing.T) {
	url, stdout, _, stop := startServe(t, "-proxy", "127.0.0.1:0")
	want := "watch your application's locks at " + url + "live\n"
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stdout.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("output lacks %q: %s", want, stdout.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status, _ := fetch(t, url+"live"); status != 200 {
		t.Errorf("%slive: %d", url, status)
	}
	if code := stop(); code != ExitOK {
		t.Fatalf("exit code %d", code)
	}
}

// TestServeProxyErrorsNameTheirFlags: beside the player the proxy's
// errors name the flags given there (-proxy, -proxy-locks,
// -proxy-max-clients), not `lockstep proxy`'s (-listen, -locks), and not
// all under "flag -proxy".
func TestServeProxyErrorsNameTheirFlags(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-proxy", "127.0.0.1:0", "-proxy-locks", "lock:["}, `lockstep: proxy: -proxy-locks pattern "lock:[" is not a valid glob`},
		{[]string{"-proxy", "127.0.0.1:0", "-proxy-max-clients", "10001"}, "lockstep: proxy: -proxy-max-clients 10001 is out of range"},
		{[]string{"-proxy", busy.Addr().String()}, "(-proxy): "},
		{[]string{"-proxy", "127.0.0.1:0", "-max-live", "0"}, "lockstep: flag -max-live: must be at least 1, not 0"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-addr", "127.0.0.1:0"}, c.args...)
		if code := Serve(context.Background(), args, &stdout, &stderr); code != ExitInvalid || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), ExitInvalid, c.want)
		}
	}
}
