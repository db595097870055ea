package cli

import (
	"bytes"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestClassroomSecretFromEnvironment: the class secret's documented way is
// $LOCKSTEP_CLASSROOM_SECRET, which no other user of the machine sees;
// -classroom-secret still works and wins, but warns that it shows in ps
// (a fresh-eyes review of issue 37: the README suggested the flag).
func TestClassroomSecretFromEnvironment(t *testing.T) {
	parse := func(args []string) ([]byte, string) {
		t.Helper()
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		l := limitFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		_, secret, err := l.parse("redis://127.0.0.1:1", &stderr)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return secret, stderr.String()
	}
	t.Setenv(ClassroomSecretEnv, "from-the-environment-0123")
	secret, warn := parse(nil)
	if string(secret) != "from-the-environment-0123" || warn != "" {
		t.Errorf("from $%s: secret %q, stderr %q", ClassroomSecretEnv, secret, warn)
	}
	secret, warn = parse([]string{"-classroom-secret", "from-the-command-line-0123"})
	if string(secret) != "from-the-command-line-0123" || !strings.Contains(warn, "ps") || !strings.Contains(warn, "$"+ClassroomSecretEnv) {
		t.Errorf("from the flag: secret %q, stderr %q, want a warning naming ps and $%s", secret, warn, ClassroomSecretEnv)
	}
}
