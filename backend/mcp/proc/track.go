package proc

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
)

// MarkerEnv is the variable every server process Cairn starts gets, and every process it
// starts in turn inherits: CAIRN_MCP_OWNER=<token of the Cairn process>-<n>. A process
// that left the server's process group (setsid: Puppeteer's Chromium runs in a session of
// its own) still carries it, so Stop and the next start's sweep find it by the marker
// (Linux: /proc/<pid>/environ) when no cgroup holds the server's tree.
const MarkerEnv = "CAIRN_MCP_OWNER"

// NoCgroups keeps Start from putting servers in cgroups even where the system allows it
// (the marker alone tracks their descendants then). Tests of the marker path set it.
var NoCgroups bool

// tracked is how one process's descendants are found again, however they left its
// process group: the marker in their environment, and (Linux, where allowed) the cgroup
// the process was started in.
type tracked struct {
	marker string // the value of MarkerEnv
	cgroup string // the cgroup directory; "" when none
}

// newToken is a Cairn process's share of the marker: random, so a sweep never matches
// another Cairn's processes (or a reused pid's).
func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// next reserves the tracking of the registry's next process.
func (r *Registry) next() tracked {
	r.mu.Lock()
	r.seq++
	n := r.seq
	r.mu.Unlock()
	t := tracked{marker: r.token + "-" + strconv.Itoa(n)}
	if base := r.cgroupBase(); base != "" {
		t.cgroup = base + "/s" + strconv.Itoa(n)
	}
	return t
}

// cgroupBase is the cgroup this Cairn puts its servers' cgroups in ("" when the system
// does not let it make one), decided once.
func (r *Registry) cgroupBase() string {
	r.cgOnce.Do(func() {
		if !NoCgroups {
			r.cgBase = makeCgroupBase("cairn-mcp-" + r.token)
		}
	})
	return r.cgBase
}

// killTracked ends every process in t's cgroup and removes it, or without a cgroup every
// process that carries t's marker (a scan of every process: only then). It returns how
// many processes it signalled.
func killTracked(t tracked) int {
	if t.cgroup != "" {
		return killCgroup(t.cgroup)
	}
	if t.marker != "" {
		return killMarked(func(v string) bool { return v == t.marker })
	}
	return 0
}
