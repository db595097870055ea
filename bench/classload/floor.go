package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// writeFloor measures the floor of a move's server CPU per student: bin
// (bench/classserver) started with CLASSSERVER_WRITEFLOOR writes size bytes
// to each of n loopback connections of this process, one write(2) each,
// moves times with a pause between as the class rows' moves have, while
// this process reads them (as its students read, through pooledConn). It
// returns the writer's CPU time per connection per move, its system call
// and the loopback's receive that runs in it included: what one write per
// student costs the server before any work of Lockstep's.
func writeFloor(ctx context.Context, bin string, n, moves, size int) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), "CLASSSERVER_WRITEFLOOR=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		_ = in.Close() // it ends when its input does
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	out := bufio.NewScanner(outPipe)
	line := func() (string, error) {
		if !out.Scan() {
			return "", fmt.Errorf("write floor: %s ended (%v)", bin, out.Err())
		}
		rest, ok := strings.CutPrefix(out.Text(), "classserver-floor ")
		if !ok || strings.HasPrefix(rest, "error=") {
			return "", fmt.Errorf("write floor: %s said %q", bin, out.Text())
		}
		return rest, nil
	}
	addr, err := line()
	if err != nil {
		return 0, err
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := dialPooled(ctx, "tcp", addr)
		if err != nil {
			return 0, fmt.Errorf("write floor: %w", err)
		}
		conns = append(conns, c)
		go func() { _, _ = io.Copy(io.Discard, c) }()
	}
	time.Sleep(200 * time.Millisecond) // every connection accepted
	var cpu time.Duration
	for range moves {
		if _, err := fmt.Fprintf(in, "write %d\n", size); err != nil {
			return 0, err
		}
		got, err := line()
		if err != nil {
			return 0, err
		}
		var wrote int
		var ns int64
		for _, f := range strings.Fields(got) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "wrote":
				wrote, _ = strconv.Atoi(v)
			case "cpu":
				ns, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		if wrote != n {
			return 0, fmt.Errorf("write floor: wrote to %d of %d connections", wrote, n)
		}
		cpu += time.Duration(ns)
		time.Sleep(20 * time.Millisecond)
	}
	return cpu / time.Duration(n*moves), nil
}
