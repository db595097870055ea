package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The server's own CPU, apart from the loopback's receive (-perf). On
// loopback a write(2) to a TCP socket runs the receiver's whole TCP receive
// in the sender's system call (the NET_RX softirq at the end of it), and
// this kernel, without CONFIG_IRQ_TIME_ACCOUNTING, charges that time to
// the sender: /proc/PID/stat's system time of the server holds the load
// generator's receive path too, and per-thread times (/proc/PID/task/*)
// cannot split it, since the softirq runs in the writing thread. perf(1)
// can: its samples of the server's threads carry kernel stacks, and those
// under net_rx_action (the softirq's entry: process_backlog,
// __netif_receive_skb, tcp_v4_rcv and the reader's wake-up) are the
// receive. What is left is what the server would spend with a network
// card, whose receive runs on the students' machines: its own code, the
// runtime and its system calls up to the device's queue.

// perfRecord is perf record -g of one process, running.
type perfRecord struct {
	cmd  *exec.Cmd
	file string
}

// startPerf starts recording process pid's CPU samples with their kernel
// and user stacks into a file in dir; an error where perf cannot run.
func startPerf(pid int, dir string) (*perfRecord, error) {
	file := filepath.Join(dir, "perf.data")
	cmd := exec.Command("perf", "record", "-q", "-g", "-F", "999", "-p", strconv.Itoa(pid), "-o", file)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	return &perfRecord{cmd, file}, nil
}

// receiveFrames are the kernel functions whose samples are the loopback's
// receive run in the sender's write.
var receiveFrames = []string{"net_rx_action", "process_backlog", "__netif_receive_skb"}

// stop ends the recording and returns the share of its samples in the
// loopback's receive (receiveFrames anywhere in the stack) and how many
// samples there were.
func (p *perfRecord) stop() (share float64, samples int, err error) {
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	_ = p.cmd.Wait()
	out, err := exec.Command("perf", "script", "-i", p.file, "-F", "ip,sym").Output()
	if err != nil {
		return 0, 0, fmt.Errorf("perf script: %w", err)
	}
	rx, in := 0, false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	started := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			if started {
				samples++
				if in {
					rx++
				}
			}
			started, in = false, false
			continue
		}
		started = true
		for _, f := range receiveFrames {
			if strings.Contains(line, f) {
				in = true
			}
		}
	}
	if started {
		samples++
		if in {
			rx++
		}
	}
	if samples == 0 {
		return 0, 0, fmt.Errorf("perf script: no samples")
	}
	return float64(rx) / float64(samples), samples, sc.Err()
}
