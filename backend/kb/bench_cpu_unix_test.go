//go:build unix

package kb

import (
	"syscall"
	"time"
)

// cpuNow is the CPU time this process has used (user + system), so the benchmark can
// report what a query costs apart from how long it waited for a core on a loaded machine.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
