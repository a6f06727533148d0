//go:build windows

package owner

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes LockFileEx on the first byte of f without waiting: exclusive for the
// owner, shared for a command that opens the directory for its run. Windows releases it
// when the process dies.
func lockFile(f *os.File, exclusive bool) error {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errBusy
	}
	return err
}
