//go:build !windows

package proc

// job is Windows' job object; elsewhere the process group (and on Linux the parent-death
// signal) does its work, so it is nothing.
type job struct{}

func newJob(pid int) (*job, error) { return nil, nil }

func (j *job) kill() {}

func (j *job) close() {}
