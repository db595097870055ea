package cli

import (
	"bytes"
	"context"
	"lockstep/internal/redistest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProxyRefusesBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(bad, []byte("faults:\n  - do: pause\n    client: a\n    at: 1s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	restart, expire := filepath.Join(dir, "restart.yaml"), filepath.Join(dir, "expire.yaml")
	if err := os.WriteFile(restart, []byte("faults:\n  - {do: restart, at: 1s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(expire, []byte("faults:\n  - {do: expire, key: job:1, at: 1s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", bad, "-listen", "127.0.0.1:0"}, bad + ":2:5:"},
		{[]string{"-max-clients", "0", "-listen", "127.0.0.1:0"}, "-max-clients"},
		{[]string{"-trace-size", "2000000", "-listen", "127.0.0.1:0"}, "-trace-size"},
		{[]string{"-locks", "lock:[", "-listen", "127.0.0.1:0"}, "-locks"},
		{[]string{"extra"}, "unexpected argument"},
		// Refused at start, not at Ctrl-C when the trace would be lost.
		{[]string{"-save", bad, "-listen", "127.0.0.1:0"}, "flag -save: mkdir " + bad},
		{[]string{"-scenario", filepath.Join(dir, "none.yaml"), "-listen", "127.0.0.1:0"}, "flag -scenario: open " + filepath.Join(dir, "none.yaml")},
		// A fault this proxy could never run, refused at start at its place.
		{[]string{"-scenario", restart, "-redis", redistest.Start(t).URL, "-listen", "127.0.0.1:0"}, restart + ":2:10: restart restarts only the embedded Redis"},
		{[]string{"-scenario", expire, "-locks", "lock:*", "-listen", "127.0.0.1:0"}, expire + ":2:23: expire deletes only lock keys"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Proxy(context.Background(), c.args, &stdout, &stderr); code != ExitInvalid || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), ExitInvalid, c.want)
		}
	}
}

// TestProxyWarnsWhenExposed: a proxy on an address other machines reach
// is started with a warning (it has no password of its own); on loopback
// with none.
func TestProxyWarnsWhenExposed(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	warnExposedProxy(&stderr, "0.0.0.0:6380")
	if !strings.Contains(stderr.String(), "warning: the proxy listens on 0.0.0.0:6380") {
		t.Errorf("0.0.0.0: %q", stderr.String())
	}
	stderr.Reset()
	warnExposedProxy(&stderr, "127.0.0.1:6380")
	warnExposedProxy(&stderr, "[::1]:6380")
	if stderr.Len() != 0 {
		t.Errorf("loopback: %q", stderr.String())
	}
}

func TestProxySavesAtTheEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // ends at once: the trace is empty, so nothing to save
	var stdout, stderr bytes.Buffer
	if code := Proxy(ctx, []string{"-listen", "127.0.0.1:0", "-save", t.TempDir()}, &stdout, &stderr); code != ExitFailed || !strings.Contains(stderr.String(), "no command on a lock key") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
