package backend

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// SandboxCommand is the hidden command of the lockstep binary that runs
// the Lua sandbox's process (see Sandbox); main passes it on to
// RunSandboxIfChild by way of the environment, not the command line.
const SandboxCommand = "lua-sandbox"

// sandboxEnv, set to the heap bound in bytes, makes a process the Lua
// sandbox's child.
const sandboxEnv = "LOCKSTEP_LUA_SANDBOX"

// sandboxExitMemory is the child's exit status when its heap passed the
// bound.
const sandboxExitMemory = 3

// sandboxWatchEvery is how often the child reads its heap size. A string
// that doubles takes about this long per 10 MB to copy, so the watch sees
// the heap within a doubling or two of the bound.
const sandboxWatchEvery = 5 * time.Millisecond

// RunSandboxIfChild runs the Lua sandbox and exits when this process was
// started as one (by Sandbox), and returns at once otherwise. The lockstep
// binary's main calls it first, and so does TestMain in every test package
// whose tests start a Sandbox (in `go test` the binary is the test binary).
func RunSandboxIfChild() {
	v, ok := os.LookupEnv(sandboxEnv)
	if !ok {
		return
	}
	os.Exit(runSandbox(v, os.Stdin, os.Stdout, os.Stderr))
}

// runSandbox reads the password from the first line of in, serves a
// miniredis that requires it on a free loopback port, writes the address
// to out, answers the parent's requests for more servers on in
// (serveSandboxRequests) and watches the heap: it returns
// sandboxExitMemory when the heap passes maxHeap, and 0 when in ends (the
// parent is gone).
func runSandbox(maxHeapText string, in io.Reader, out, errw io.Writer) int {
	maxHeap, err := strconv.ParseInt(maxHeapText, 10, 64)
	if err != nil || maxHeap <= 0 {
		fmt.Fprintf(errw, "lockstep %s: %s=%q is not a heap bound in bytes\n", SandboxCommand, sandboxEnv, maxHeapText)
		return 2
	}
	rd := bufio.NewReader(in)
	pw, err := rd.ReadString('\n')
	if err != nil {
		fmt.Fprintf(errw, "lockstep %s: no password on stdin: %v\n", SandboxCommand, err)
		return 2
	}
	m := miniredis.NewMiniRedis()
	m.RequireAuth(strings.TrimSpace(pw))
	if err := m.StartAddr("127.0.0.1:0"); err != nil {
		fmt.Fprintf(errw, "lockstep %s: %v\n", SandboxCommand, err)
		return 2
	}
	fmt.Fprintln(out, m.Addr())
	parentGone := make(chan struct{})
	go func() {
		serveSandboxRequests(rd, out, strings.TrimSpace(pw))
		close(parentGone)
	}()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(sandboxWatchEvery)
	defer tick.Stop()
	for {
		select {
		case <-parentGone:
			return 0
		case <-tick.C:
		}
		metrics.Read(sample)
		if h := sample[0].Value.Uint64(); h > uint64(maxHeap) {
			fmt.Fprintf(errw, "lockstep %s: heap %d bytes, over the bound of %d: exiting\n", SandboxCommand, h, maxHeap)
			return sandboxExitMemory
		}
	}
}

// serveSandboxRequests answers the parent's requests, one a line on in,
// until in ends (the parent is gone):
//
//	new ID      start one more miniredis (a node, a primary or a replica of
//	            one run: lessons with several servers), with the same
//	            password, on a free loopback port; answer "ID HOST:PORT",
//	            or "ID error TEXT"
//	close ADDR  shut the server at ADDR down (no answer)
//
// Only this goroutine writes to out after the first line.
func serveSandboxRequests(in *bufio.Reader, out io.Writer, password string) {
	servers := map[string]*miniredis.Miniredis{}
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		switch f[0] {
		case "new":
			m := miniredis.NewMiniRedis()
			m.RequireAuth(password)
			if err := m.StartAddr("127.0.0.1:0"); err != nil {
				fmt.Fprintf(out, "%s error %v\n", f[1], err)
				continue
			}
			servers[m.Addr()] = m
			fmt.Fprintf(out, "%s %s\n", f[1], m.Addr())
		case "close":
			if m := servers[f[1]]; m != nil {
				m.Close()
				delete(servers, f[1])
			}
		}
	}
}
