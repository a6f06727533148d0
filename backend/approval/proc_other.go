//go:build !unix

package approval

import "os"

// processAlive reports whether pid is a running process.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
