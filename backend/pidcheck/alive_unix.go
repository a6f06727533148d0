//go:build unix

// Package pidcheck tells whether a process still runs, so start-up recovery (chat
// messages left streaming, approvals left pending) only touches what a dead process left
// and never the work of another running Cairn on the same data directory.
package pidcheck

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// Alive reports whether pid is a running process; zombies count as dead.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// On Linux a killed child that was not reaped yet still answers kill(0).
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}
