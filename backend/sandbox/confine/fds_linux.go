//go:build linux

package confine

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeOnExec marks every descriptor above stderr close-on-exec: Entry calls it first,
// for the descriptors the process inherited from whatever started it (a launcher's pipe,
// a socket), which Go, opening its own with the flag, would otherwise pass to every child
// — and bwrap and the helper on to the command, a way out of the sandbox's file system. A
// run's own fds still reach its child (os/exec dup2s them, which clears the flag).
func closeOnExec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	ents, err := os.ReadDir("/proc/self/fd") // kernels before 5.11
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
