//go:build unix

package proc

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// signalGroup signals every process of the group; a group that no longer exists is not
// an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 0 {
		return fmt.Errorf("invalid process group %d", pgid)
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// GroupAlive reports whether any process of the group still runs (Linux: zombies
// waiting to be reaped do not count).
func GroupAlive(pgid int) bool {
	if pgid <= 0 || syscall.Kill(-pgid, 0) != nil {
		return false
	}
	live, known := liveMembers(pgid)
	return !known || len(live) > 0
}

func executableMode(st os.FileInfo) bool { return st.Mode()&0o111 != 0 }

func describeState(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %s", ws.Signal())
	}
	return fmt.Sprintf("exited with code %d", st.ExitCode())
}
