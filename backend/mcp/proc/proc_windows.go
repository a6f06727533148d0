//go:build windows

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

// createNoWindow keeps a console server (node, python) started by the desktop app from
// opening a console window of its own.
const createNoWindow = 0x08000000

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: createNoWindow, HideWindow: true}
}

// signalGroup kills the leader; the rest of the tree goes with the process's job object
// (see job_windows.go). There is no SIGTERM: the kill that follows does the work.
func signalGroup(pid int, sig signal) error {
	if sig != sigKill {
		return nil
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	return p.Kill()
}

// GroupAlive cannot be answered cheaply here; the job object's kill is synchronous
// enough, and the leader's exit is what counts.
func GroupAlive(pid int) bool { return false }

func executableMode(st os.FileInfo) bool { return true }

func describeState(st *os.ProcessState) string { return st.String() }
