package pidcheck

import "os"

// Owner names a process in a way that survives PID reuse: the PID and the time the
// process started, as the OS reports it (0 = unknown). A row that records only a PID is
// claimed by whatever process gets that number next; with the start time a live process
// that started at another time is a stranger, and the owner counts as dead.
type Owner struct {
	PID   int   `json:"pid"`
	Start int64 `json:"start"`
}

// Self is this process.
func Self() Owner {
	pid := os.Getpid()
	st, _ := StartTime(pid)
	return Owner{PID: pid, Start: st}
}

// Alive reports whether the owner still runs: its PID is a live process and, where both
// start times are known, that process started when the owner did. A record without a
// start time (written by an older Cairn) falls back to the PID alone.
func (o Owner) Alive() bool {
	if !Alive(o.PID) {
		return false
	}
	if o.Start == 0 {
		return true
	}
	st, ok := StartTime(o.PID)
	return !ok || st == o.Start
}
