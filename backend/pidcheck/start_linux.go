package pidcheck

import (
	"bytes"
	"os"
	"strconv"
)

// StartTime is the process's start time in clock ticks after boot (field 22 of
// /proc/<pid>/stat); ok is false when it cannot be read.
func StartTime(pid int) (int64, bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	return parseStat(b)
}

// parseStat reads the start time out of a stat line. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields are counted from
// the last ')'.
func parseStat(b []byte) (int64, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(b[i+1:]) // fields[0] is field 3 (the state)
	const startField = 22 - 3
	if len(fields) <= startField {
		return 0, false
	}
	v, err := strconv.ParseInt(string(fields[startField]), 10, 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return v, true
}
