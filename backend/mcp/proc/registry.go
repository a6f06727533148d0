package proc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Registry records the process groups this Cairn started in <dir>/<pid>.pids, with its
// marker token and its cgroup (see tracked), so the next Cairn can end them, and whatever
// they started, when this one was killed before it could (SweepOrphans). Each Cairn
// process has its own file: a CLI run never touches the desktop app's children.
type Registry struct {
	dir   string
	path  string
	token string // every server's MarkerEnv value starts with it

	cgOnce sync.Once
	cgBase string // the cgroup the servers' cgroups go in; "" when none

	mu     sync.Mutex
	seq    int
	groups map[int]uint64 // pgid → start time of the leader (Linux clock ticks; 0 elsewhere)
}

// NewRegistry returns the registry of the current process in dir (created on first use).
func NewRegistry(dir string) *Registry {
	return &Registry{
		dir:    dir,
		path:   filepath.Join(dir, strconv.Itoa(os.Getpid())+".pids"),
		token:  newToken(),
		groups: map[int]uint64{},
	}
}

func (r *Registry) add(pgid int) {
	start, _ := startTime(pgid)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.groups[pgid] = start
	r.saveLocked()
}

func (r *Registry) remove(pgid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.groups, pgid)
	r.saveLocked()
}

// saveLocked rewrites the file; failures only weaken the sweep, so they are ignored.
func (r *Registry) saveLocked() {
	if len(r.groups) == 0 {
		_ = os.Remove(r.path)
		if base := r.cgroupBase(); base != "" {
			_ = os.Remove(base) // empty now; the next server makes it again
		}
		return
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return
	}
	var b strings.Builder
	self, _ := startTime(os.Getpid())
	fmt.Fprintf(&b, "owner %d %d\n", os.Getpid(), self)
	fmt.Fprintf(&b, "marker %s\n", r.token)
	if base := r.cgroupBase(); base != "" {
		fmt.Fprintf(&b, "cgroup %s\n", base)
	}
	for pg, st := range r.groups {
		fmt.Fprintf(&b, "%d %d\n", pg, st)
	}
	tmp := r.path + ".tmp"
	if os.WriteFile(tmp, []byte(b.String()), 0o600) == nil {
		_ = os.Rename(tmp, r.path)
	}
}

// SweepOrphans ends what Cairn processes that are gone (killed before they could close
// their servers) left running, and removes their files: the members of the recorded
// process groups (only those that started no earlier than the recorded leader and still
// belong to its group, so a reused pid is left alone), everything in their cgroup, and
// every process that carries their marker (a descendant that left the group: setsid).
// It returns how many processes it killed.
func SweepOrphans(dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "*.pids"))
	killed := 0
	for _, f := range files {
		rec, err := readPids(f)
		if err != nil {
			_ = os.Remove(f)
			continue
		}
		if rec.owner == os.Getpid() {
			continue
		}
		if ownerAlive(rec.owner, rec.ownerStart) {
			continue // its children are its business
		}
		for pg, st := range rec.groups {
			killed += killGroupMembers(pg, st)
		}
		if rec.cgroup != "" && strings.HasPrefix(filepath.Base(rec.cgroup), "cairn-mcp-") {
			killed += killCgroup(rec.cgroup)
		}
		if rec.token != "" {
			killed += killMarked(func(v string) bool { return strings.HasPrefix(v, rec.token+"-") })
		}
		_ = os.Remove(f)
	}
	return killed
}

// pidsRecord is one Cairn process's file.
type pidsRecord struct {
	owner      int
	ownerStart uint64
	token      string
	cgroup     string
	groups     map[int]uint64
}

func readPids(path string) (rec pidsRecord, err error) {
	f, err := os.Open(path)
	if err != nil {
		return rec, err
	}
	defer f.Close()
	rec.groups = map[int]uint64{}
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if first {
			first = false
			if len(fields) != 3 || fields[0] != "owner" {
				return rec, fmt.Errorf("%s: bad header", path)
			}
			rec.owner, _ = strconv.Atoi(fields[1])
			rec.ownerStart, _ = strconv.ParseUint(fields[2], 10, 64)
			continue
		}
		switch {
		case len(fields) == 2 && fields[0] == "marker" && len(fields[1]) >= 16:
			rec.token = fields[1]
			continue
		case len(fields) >= 2 && fields[0] == "cgroup":
			rec.cgroup = strings.TrimPrefix(sc.Text(), "cgroup ")
			continue
		case len(fields) != 2:
			continue
		}
		pg, e1 := strconv.Atoi(fields[0])
		st, e2 := strconv.ParseUint(fields[1], 10, 64)
		if e1 == nil && e2 == nil && pg > 1 {
			rec.groups[pg] = st
		}
	}
	if rec.owner <= 0 {
		return rec, fmt.Errorf("%s: no owner", path)
	}
	return rec, sc.Err()
}
