package cli

import (
	"regexp"
	"strings"
	"testing"

	"lockstep/backend"
	"lockstep/internal/catalogtest"
	"lockstep/internal/redistest"
	"lockstep/sim"
)

// latinWords are English words of a backend's description; a Chinese one
// keeps only names (Redis, miniredis, redis-server), versions and
// addresses.
var latinWords = regexp.MustCompile(`\b(at|private|embedded|pair|primary|replica|nodes?|independent|not|the|cluster)\b`)

// TestBackendTextInTheReadersLanguage: a fresh review of issue 39 found
// `run --lang zh-CN` against a real Redis printing "Redis 7.0.15 at …" in
// English, and the private pair's and nodes' headers too. Every kind of
// backend is named in the reader's language, and the English words are
// the ones Info.String gives (the JSON's backend field).
func TestBackendTextInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	cat := catalogtest.New(t)
	for _, info := range []backend.Info{
		{Embedded: true},
		{Addr: "127.0.0.1:6379", Version: "7.0.15"},
		{Addr: "127.0.0.1:6379"},
		{Addr: "127.0.0.1:7000", Version: "7.0.15", Cluster: true, TLS: true},
		{Addr: "127.0.0.1:6379", Version: "7.0.15", TLS: true},
		{Embedded: true, Pair: backend.PairEmbedded},
		{Embedded: true, Pair: backend.PairEmbedded, NotOn: "127.0.0.1:6379"},
		{Addr: "127.0.0.1:41001", Version: "7.0.15", Pair: backend.PairStarted, ReplicaAddr: "127.0.0.1:41002"},
		{Addr: "127.0.0.1:41001", Version: "7.0.15", Pair: backend.PairStarted, ReplicaAddr: "127.0.0.1:41002", NotOn: "127.0.0.1:6379"},
		{Embedded: true, Nodes: 3},
		{Embedded: true, Nodes: 3, NotOn: "127.0.0.1:6379"},
		{Addr: "127.0.0.1:41001", Version: "7.0.15", Nodes: 3},
		{Addr: "127.0.0.1:41001", Version: "7.0.15", Nodes: 3, NotOn: "127.0.0.1:6379"},
	} {
		if got, want := backendText(cat, sim.English, info), info.String(); got != want {
			t.Errorf("%+v in English: %q, want String's %q", info, got, want)
		}
		for _, loc := range []sim.Locale{sim.SimplifiedChinese, sim.TraditionalChinese} {
			got := backendText(cat, loc, info)
			if w := latinWords.FindString(got); w != "" || strings.Contains(got, "⟦") {
				t.Errorf("%+v in %s: %q says %q in English", info, loc, got, w)
			}
			if info.Addr != "" && !strings.Contains(got, info.Addr) || info.Version != "" && !strings.Contains(got, info.Version) {
				t.Errorf("%+v in %s: %q lacks the address or version", info, loc, got)
			}
		}
	}
}

// TestRunHeaderInTheReadersLanguage runs a lesson with --lang zh-TW on a
// real Redis: the header names it in Chinese.
func TestRunHeaderInTheReadersLanguage(t *testing.T) {
	srv := redistest.Start(t)
	code, out, stderr := runCLI(t, "../lessons/01-nested-reentry.yaml", "--redis", srv.URL, "--lang", "zh-TW")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	h := firstLine(out)
	if !strings.Contains(h, srv.Addr+" 上的 Redis") || latinWords.MatchString(h[strings.LastIndex(h, "·"):]) {
		t.Errorf("zh-TW header: %q", h)
	}
}
