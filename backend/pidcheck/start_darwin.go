package pidcheck

import "golang.org/x/sys/unix"

// StartTime is the process's start time in microseconds since the epoch, from the
// kernel's process table; ok is false when it cannot be read.
func StartTime(pid int) (int64, bool) {
	if pid <= 0 {
		return 0, false
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return 0, false
	}
	t := kp.Proc.P_starttime
	v := int64(t.Sec)*1_000_000 + int64(t.Usec)
	return v, v > 0
}
