//go:build windows

package proc

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// job is the Windows job object a child and everything it starts run in: Windows has no
// process groups, and a server started through npx is several processes. The job kills
// them all when its last handle closes, which is when Stop closes it or, whatever way
// Cairn ends (crash, Task Manager), when Windows closes Cairn's handles.
type job struct {
	mu sync.Mutex // KillGroup may run beside Stop's close: a closed handle's value is reused
	h  windows.Handle
}

// newJob creates a job that kills its processes when closed and puts pid in it. A process
// the child starts before it is assigned (the first instants after CreateProcess) is
// outside the job; an MCP server starts its helpers much later than that.
func newJob(pid int) (*job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(h)
		return nil, fmt.Errorf("set job object limits: %w", err)
	}
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		_ = windows.CloseHandle(h)
		return nil, fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(ph)
	if err := windows.AssignProcessToJobObject(h, ph); err != nil {
		_ = windows.CloseHandle(h)
		return nil, fmt.Errorf("assign process %d to its job object: %w", pid, err)
	}
	return &job{h: h}, nil
}

// kill ends every process of the job at once.
func (j *job) kill() {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h != 0 {
		_ = windows.TerminateJobObject(j.h, 1)
	}
}

// close releases the job; what still runs in it is killed (KILL_ON_JOB_CLOSE).
func (j *job) close() {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h != 0 {
		_ = windows.CloseHandle(j.h)
		j.h = 0
	}
}
