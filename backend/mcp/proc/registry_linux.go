//go:build linux

package proc

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procStat reads the process group and start time (clock ticks since boot) of a pid from
// /proc/<pid>/stat.
func procStat(pid int) (pgrp int, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	// The command name is in parentheses and may contain spaces: parse after the last ')'.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); pgrp is field 5, starttime field 22.
	if len(f) < 20 {
		return 0, 0, false
	}
	pg, err1 := strconv.Atoi(f[2])
	st, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return pg, st, true
}

func startTime(pid int) (uint64, bool) {
	_, st, ok := procStat(pid)
	return st, ok
}

// killGroupMembers SIGKILLs every process of group pgid that started no earlier than the
// recorded leader (the leader itself may be gone already: npx killed, node left).
func killGroupMembers(pgid int, leaderStart uint64) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 1 || pid == os.Getpid() {
			continue
		}
		pg, st, ok := procStat(pid)
		if !ok || pg != pgid || st < leaderStart {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// ownerAlive reports whether the Cairn that wrote a pids file still runs (same pid, same
// start time).
func ownerAlive(pid int, start uint64) bool {
	st, ok := startTime(pid)
	return ok && (start == 0 || st == start)
}

// liveMembers lists the processes of a group that are not zombies.
func liveMembers(pgid int) ([]int, bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out, true
}
