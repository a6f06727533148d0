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

// Registry records the process groups this Cairn started in <dir>/<pid>.pids, so the next
// Cairn can end them when this one was killed before it could (SweepOrphans). Each Cairn
// process has its own file: a CLI run never touches the desktop app's children.
type Registry struct {
	dir  string
	path string

	mu     sync.Mutex
	groups map[int]uint64 // pgid → start time of the leader (Linux clock ticks; 0 elsewhere)
}

// NewRegistry returns the registry of the current process in dir (created on first use).
func NewRegistry(dir string) *Registry {
	return &Registry{
		dir:    dir,
		path:   filepath.Join(dir, strconv.Itoa(os.Getpid())+".pids"),
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
		return
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return
	}
	var b strings.Builder
	self, _ := startTime(os.Getpid())
	fmt.Fprintf(&b, "owner %d %d\n", os.Getpid(), self)
	for pg, st := range r.groups {
		fmt.Fprintf(&b, "%d %d\n", pg, st)
	}
	tmp := r.path + ".tmp"
	if os.WriteFile(tmp, []byte(b.String()), 0o600) == nil {
		_ = os.Rename(tmp, r.path)
	}
}

// SweepOrphans ends the process groups recorded by Cairn processes that are gone (killed
// before they could close their servers) and removes their files. It returns how many
// processes it killed. Only processes that started no earlier than the recorded leader
// and still belong to its group are touched, so a reused pid is left alone.
func SweepOrphans(dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "*.pids"))
	killed := 0
	for _, f := range files {
		owner, ownerStart, groups, err := readPids(f)
		if err != nil {
			_ = os.Remove(f)
			continue
		}
		if owner == os.Getpid() {
			continue
		}
		if ownerAlive(owner, ownerStart) {
			continue // its children are its business
		}
		for pg, st := range groups {
			killed += killGroupMembers(pg, st)
		}
		_ = os.Remove(f)
	}
	return killed
}

func readPids(path string) (owner int, ownerStart uint64, groups map[int]uint64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, nil, err
	}
	defer f.Close()
	groups = map[int]uint64{}
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if first {
			first = false
			if len(fields) != 3 || fields[0] != "owner" {
				return 0, 0, nil, fmt.Errorf("%s: bad header", path)
			}
			owner, _ = strconv.Atoi(fields[1])
			ownerStart, _ = strconv.ParseUint(fields[2], 10, 64)
			continue
		}
		if len(fields) != 2 {
			continue
		}
		pg, e1 := strconv.Atoi(fields[0])
		st, e2 := strconv.ParseUint(fields[1], 10, 64)
		if e1 == nil && e2 == nil && pg > 1 {
			groups[pg] = st
		}
	}
	if owner <= 0 {
		return 0, 0, nil, fmt.Errorf("%s: no owner", path)
	}
	return owner, ownerStart, groups, sc.Err()
}
