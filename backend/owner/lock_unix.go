//go:build unix

package owner

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes flock(2) on f without waiting: exclusive for the owner, shared for a
// command that opens the directory for its run. The kernel drops it when the process
// dies, however it dies, so a lock is never stale.
func lockFile(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return errBusy
		}
		return err
	}
}
