package backend

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"lockstep/internal/redistest"
)

// TestPairEndsWithItsParent starts a pair in a child process (this test
// binary again), kills the child with SIGKILL, as `kill -9 lockstep` would,
// and checks that both redis-server processes end with it and that the
// next pair removes the dead owner's folder (hardening finding 5).
func TestPairEndsWithItsParent(t *testing.T) {
	t.Parallel()
	if os.Getenv("LOCKSTEP_PAIR_CHILD") == "1" {
		p, err := startPair(context.Background(), os.Getenv("LOCKSTEP_REDIS_SERVER"))
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("pair", p.primary.cmd.Process.Pid, p.replica.cmd.Process.Pid, p.dir)
		select {} // until killed
	}
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	bin := redistest.Need(t, "redis-server", "make test")
	tmp := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestPairEndsWithItsParent$", "-test.count=1")
	child.Env = append(os.Environ(), "LOCKSTEP_PAIR_CHILD=1", "LOCKSTEP_REDIS_SERVER="+bin, "TMPDIR="+tmp)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "pair ") {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("child: %q, %v", line, err)
	}
	f := strings.Fields(line)
	primary, _ := strconv.Atoi(f[1])
	replica, _ := strconv.Atoi(f[2])
	dir := f[3]
	if filepath.Dir(dir) != tmp {
		t.Fatalf("the pair's folder %s is not under %s", dir, tmp)
	}
	if processGone(primary) || processGone(replica) {
		t.Fatal("the pair is not running")
	}
	child.Process.Kill() // SIGKILL: no deferred clean-up runs
	child.Wait()
	for deadline := time.Now().Add(10 * time.Second); !processGone(primary) || !processGone(replica); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscallKill(primary, replica)
			t.Fatal("the pair outlived its parent by 10 s")
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the dead owner's folder should still be there for the sweep: %v", err)
	}
	sweepPairDirs(tmp)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the dead owner's folder %s is still there: %v", dir, err)
	}
}

func syscallKill(pids ...int) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

// TestSweepKeepsLiveOwners: a folder whose owner runs (this process, or
// another live one) stays.
func TestSweepKeepsLiveOwners(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	for _, pid := range []int{os.Getpid(), os.Getppid()} {
		d := filepath.Join(tmp, pairDirPrefix+strconv.Itoa(pid))
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(strconv.Itoa(pid)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sweepPairDirs(tmp)
	if dirs, _ := filepath.Glob(filepath.Join(tmp, pairDirPrefix+"*")); len(dirs) != 2 {
		t.Fatalf("live owners' folders removed: %v", dirs)
	}
}
