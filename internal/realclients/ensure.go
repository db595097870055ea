package realclients

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// debianPython is the interpreter that sees Debian's python3-redis; the
// python3 first on PATH may be another build without Debian's modules.
const debianPython = "/usr/bin/python3"

// npmCITimeout bounds `npm ci` in node/.
const npmCITimeout = 5 * time.Minute

// ensureMu serialises Ensure within a test binary; flockDir serialises npm
// ci across test binaries (go test runs packages in parallel).
var ensureMu sync.Mutex

// Ensure makes the workers of libs runnable (all libraries when none are
// given): for redlock and node-redisson it finds node and, when
// node/node_modules is missing, runs `npm ci` there (pinned by
// package-lock.json); for redis-py it checks that /usr/bin/python3 imports
// redis (Debian's python3-redis, installed by `make deps`). redsync needs
// nothing. When something is missing it skips tb, or fails it under
// CI=true, naming what installs it.
func Ensure(tb testing.TB, libs ...Lib) {
	tb.Helper()
	if len(libs) == 0 {
		libs = Libs()
	}
	node, python := false, false
	for _, l := range libs {
		switch l {
		case Redlock, Redisson:
			node = true
		case RedisPy:
			python = true
		case Redsync:
		default:
			tb.Fatalf("realclients: unknown library %q", l)
		}
	}
	if node {
		if err := ensureNode(); err != nil {
			missing(tb, err)
		}
	}
	if python {
		out, err := exec.Command(debianPython, "-c", "import redis").CombinedOutput()
		if err != nil {
			missing(tb, fmt.Errorf("realclients: %s cannot import redis (apt-get install python3-redis, or `make deps`): %v: %s", debianPython, err, out))
		}
	}
}

// missing skips tb, or fails it under CI=true, where nothing may skip.
func missing(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatal(err)
	}
	tb.Skip(err)
}

// ensureNode finds node and npm, and runs npm ci in node/ unless
// node_modules is there.
func ensureNode() error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("realclients: node is not installed (`make deps` installs it): %w", err)
	}
	dir, err := sourceDir()
	if err != nil {
		return err
	}
	nodeDir := filepath.Join(dir, "node")
	modules := filepath.Join(nodeDir, "node_modules")
	ensureMu.Lock()
	defer ensureMu.Unlock()
	if ready(modules) {
		return nil
	}
	unlock, err := flockDir(nodeDir)
	if err != nil {
		return err
	}
	defer unlock()
	if ready(modules) { // another test binary installed them meanwhile
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("realclients: npm is not installed (`make deps` installs it): %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), npmCITimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = nodeDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("realclients: npm ci in %s: %w: %s", nodeDir, err, out)
	}
	return nil
}

// ready reports whether npm ci finished in node_modules: npm writes
// .package-lock.json there last.
func ready(modules string) bool {
	_, err := os.Stat(filepath.Join(modules, ".package-lock.json"))
	return err == nil
}
