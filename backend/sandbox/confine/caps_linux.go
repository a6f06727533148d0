//go:build linux

package confine

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// dropCapabilities leaves the process (and what it executes) without any capability:
// at the reduced level a Cairn run as root would otherwise pass root's on, which read
// any process's memory and environment and override file permissions. For root, the
// securebits keep execve from granting them again.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[0].Effective == 0 && data[1].Effective == 0 && data[0].Permitted == 0 && data[1].Permitted == 0 {
		return nil // nothing to drop (bwrap dropped them)
	}
	// SECBIT_NOROOT, its lock, SECBIT_NO_SETUID_FIXUP, its lock, SECBIT_KEEP_CAPS_LOCKED.
	const bits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<5
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, bits, 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err == unix.EINVAL {
			break // past the last capability the kernel knows
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	data = [2]unix.CapUserData{}
	return unix.Capset(&hdr, &data[0])
}
