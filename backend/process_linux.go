//go:build linux

package backend

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
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
