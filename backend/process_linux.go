//go:build linux

package backend

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// endWithParent has the kernel kill cmd's process when Lockstep dies, also
// by kill -9, so that a started pair never outlives its run (hardening
// finding 5: a pair and its keys were still there 47 s after). Linux sends
// the signal when the thread that started the process ends; the Go runtime
// keeps its threads, and Lockstep locks none of them.
func endWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processGone reports whether process pid has exited: no such process, or
// a zombie no one has reaped yet.
func processGone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

// processCPU returns the processor time process pid has run (all its
// threads, user and system), and false when it cannot be read (the
// process is gone): utime and stime of /proc/PID/stat, which sum the
// process's threads, in clock ticks (proc(5)), taken as the usual 100 a
// second. (/proc/PID/schedstat counts nanoseconds but of the main thread
// alone, and Go runs a script on any of its threads.)
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	// After "pid (comm)": state is field 3, utime 14 and stime 15.
	f := strings.Fields(s[i+1:])
	if len(f) < 13 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * (time.Second / 100), true
}
