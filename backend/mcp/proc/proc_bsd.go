//go:build unix && !linux

package proc

import "syscall"

// sysProcAttr puts the child in its own process group. There is no parent-death signal
// outside Linux: the child sees EOF on stdin when Cairn dies, and the next start sweeps
// what is left.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
