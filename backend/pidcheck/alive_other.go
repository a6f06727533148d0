//go:build !unix

// Package pidcheck tells whether a process still runs (see alive_unix.go).
package pidcheck

import "os"

// Alive reports whether pid is a running process.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
