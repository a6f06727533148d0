//go:build !unix && !windows

package proc

import (
	"os"
	"syscall"
)

type signal int

const (
	sigTerm signal = 15
	sigKill signal = 9
)

// sysProcAttr has nothing to add where there are no process groups of the POSIX kind.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup kills the leader only (Windows: a job object would be needed for the tree).
func signalGroup(pid int, sig signal) error {
	if sig != sigKill {
		return nil // no SIGTERM: the kill that follows does the work
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	return p.Kill()
}

// GroupAlive cannot be answered cheaply here; the leader's exit is what counts.
func GroupAlive(pid int) bool { return false }

func executableMode(st os.FileInfo) bool { return true }

func describeState(st *os.ProcessState) string { return st.String() }
