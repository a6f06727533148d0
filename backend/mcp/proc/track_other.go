//go:build !linux

package proc

import (
	"errors"
	"syscall"
)

// makeCgroupBase: cgroups are Linux's.
func makeCgroupBase(name string) string { return "" }

func prepareCgroup(attr *syscall.SysProcAttr, dir string) (func(), error) {
	return nil, errors.New("no cgroups on this system")
}

func killCgroup(dir string) int { return 0 }

// killMarked cannot read other processes' environments here without /proc: macOS relies
// on the process group and the server seeing EOF on stdin; Windows on the job object.
func killMarked(match func(value string) bool) int { return 0 }
