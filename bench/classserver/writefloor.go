package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// writeFloor is the floor of a class move's cost per student on this
// machine: what the kernel takes for one write(2) of a move's bytes to one
// loopback TCP connection whose peer reads it, the loopback's receive
// included (it runs in the writer's system call), with none of Lockstep's
// work around it. It listens on a loopback port, prints
//
//	classserver-floor ADDR
//
// accepts every connection made to ADDR, and for each line "write SIZE"
// read from in writes SIZE bytes to every connection accepted so far, one
// write each, one after the other on one goroutine, and prints
//
//	classserver-floor wrote=N cpu=NANOSECONDS
//
// the process's CPU time (user and system, getrusage) over those writes. It
// returns the exit code (0 when in ends).
func writeFloor(in io.Reader, out io.Writer) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(out, "classserver-floor error=%q\n", err)
		return 1
	}
	defer ln.Close()
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// One deadline for the whole run: Lockstep's writer too sets
			// none per message (webnet.BatchConn's slack).
			_ = c.SetWriteDeadline(time.Now().Add(time.Hour))
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	fmt.Fprintf(out, "classserver-floor %s\n", ln.Addr())
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		size, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "write "))
		if err != nil || size < 1 {
			fmt.Fprintf(out, "classserver-floor error=%q\n", "not write SIZE: "+sc.Text())
			continue
		}
		msg := make([]byte, size)
		mu.Lock()
		list := append([]net.Conn(nil), conns...)
		mu.Unlock()
		cpu0 := cpuTime()
		wrote := 0
		for _, c := range list {
			if _, err := c.Write(msg); err == nil {
				wrote++
			}
		}
		fmt.Fprintf(out, "classserver-floor wrote=%d cpu=%d\n", wrote, cpuTime()-cpu0)
	}
	return 0
}

// cpuTime is the process's CPU time so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
