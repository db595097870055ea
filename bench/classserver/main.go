// Command classserver is the Lockstep server of the classroom benchmarks
// (package bench/classload): `lockstep` itself, the same flags and the same
// code (cli.Serve), plus one thing a benchmark needs from outside the
// process: on SIGUSR1 it runs the garbage collector twice and prints one
// line to stdout,
//
//	classserver-stats heap=BYTES rss=BYTES goroutines=N
//
// heap being the heap after the collections (MemStats.HeapAlloc: what is
// live) and rss the process's resident set (VmRSS of /proc/self/status). It is not part of the product: the
// benchmark builds it to measure the server's memory per student.
//
// With CLASSSERVER_CPUPROFILE=FILE in its environment it writes a CPU
// profile of its whole run to FILE (classload -cpuprofile).
//
// With CLASSSERVER_WRITEFLOOR=1 it serves no Lockstep at all: it is the
// floor the class rows compare a student's cost with (writefloor.go), a
// process that writes the same bytes to each of its loopback connections
// once per move, one write(2) each, and nothing else.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"lockstep/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if os.Getenv("CLASSSERVER_WRITEFLOOR") != "" {
		os.Exit(writeFloor(os.Stdin, os.Stdout))
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		for range usr1 {
			runtime.GC()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			fmt.Printf("classserver-stats heap=%d rss=%d goroutines=%d\n", ms.HeapAlloc, rss(), runtime.NumGoroutine())
		}
	}()
	if path := os.Getenv("CLASSSERVER_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "classserver: CLASSSERVER_CPUPROFILE: %v\n", err)
			os.Exit(2)
		}
		code := cli.Serve(ctx, os.Args[1:], os.Stdout, os.Stderr)
		pprof.StopCPUProfile()
		_ = f.Close()
		os.Exit(code)
	}
	os.Exit(cli.Serve(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// rss is the process's resident set in bytes, 0 when /proc says nothing.
func rss() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
