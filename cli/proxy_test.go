package cli

import (
	"bytes"
	"context"
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
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", bad, "-listen", "127.0.0.1:0"}, bad + ":2:5:"},
		{[]string{"-max-clients", "0", "-listen", "127.0.0.1:0"}, "-max-clients"},
		{[]string{"-trace-size", "2000000", "-listen", "127.0.0.1:0"}, "-trace-size"},
		{[]string{"-locks", "lock:[", "-listen", "127.0.0.1:0"}, "-locks"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Proxy(context.Background(), c.args, &stdout, &stderr); code != ExitInvalid || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), ExitInvalid, c.want)
		}
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
