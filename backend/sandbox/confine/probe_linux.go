//go:build linux

package confine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// probeReport is what the probe helper finds once confined.
type probeReport struct {
	Seccomp     bool `json:"seccomp"`     // a filter is in place
	NetBlocked  bool `json:"netBlocked"`  // socket(AF_INET) fails
	FSBlocked   bool `json:"fsBlocked"`   // the root folder cannot be listed (Landlock)
	NSBlocked   bool `json:"nsBlocked"`   // unshare(CLONE_NEWUSER) fails
	LandlockABI int  `json:"landlockABI"` // the kernel's Landlock ABI (0: none)
}

// probeMain runs inside a sandbox and reports what holds there.
func probeMain(w io.Writer) int {
	var r probeReport
	r.Seccomp = checkConfined() == nil
	if fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0); err == nil {
		syscall.Close(fd)
	} else {
		r.NetBlocked = true
	}
	_, err := os.ReadDir("/")
	r.FSBlocked = errors.Is(err, os.ErrPermission)
	r.NSBlocked = syscall.Unshare(syscall.CLONE_NEWUSER) != nil
	r.LandlockABI, _ = llsys.LandlockGetABIVersion()
	_ = json.NewEncoder(w).Encode(r)
	return 0
}

// probeResult is the live probe of both levels.
type probeResult struct {
	strong, reduced   probeReport
	strongErr         error
	reducedErr        error
	cgroupPids, cgAny bool
	reasons           []string
	landlockAvailable int
}

func (pr probeResult) strongOK() bool {
	return pr.strongErr == nil && pr.strong.Seccomp && pr.strong.NetBlocked && pr.strong.NSBlocked
}

func (pr probeResult) reducedOK() bool {
	return pr.reducedErr == nil && pr.reduced.Seccomp && pr.reduced.NetBlocked && pr.reduced.FSBlocked
}

func (pr probeResult) best() Level {
	switch {
	case pr.strongOK():
		return Strong
	case pr.reducedOK():
		return Reduced
	}
	return None
}

// runProbe tries both levels for real on an empty workspace.
func runProbe(ctx context.Context, s *Sandbox) probeResult {
	var pr probeResult
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	ws, err := os.MkdirTemp("", "cairn-sbx-probe-")
	if err != nil {
		pr.strongErr, pr.reducedErr = err, err
		pr.reasons = append(pr.reasons, "no temporary folder for the probe: "+err.Error())
		return pr
	}
	defer os.RemoveAll(ws)
	pol := Policy{Workspace: ws}
	pr.strong, pr.strongErr = probeLevel(ctx, s, Strong, pol)
	if pr.strongErr != nil {
		pr.reasons = append(pr.reasons, "strong level (bubblewrap) unavailable: "+pr.strongErr.Error())
	} else if probeDirect(ctx, s, pol) != nil {
		s.noDirect = true // an older bwrap: every command goes through the helper
	}
	pr.reduced, pr.reducedErr = probeLevel(ctx, s, Reduced, pol)
	if pr.reducedErr != nil {
		pr.reasons = append(pr.reasons, "reduced level (Landlock) unavailable: "+pr.reducedErr.Error())
	}
	pr.landlockAvailable, _ = llsys.LandlockGetABIVersion()
	cg := newCgroups(8)
	pr.cgroupPids, pr.cgAny = cg.pids != "", cg.any()
	cg.remove()
	return pr
}

// probeDirect runs a command directly under bwrap (see direct) and checks that the
// seccomp filter and no_new_privs hold in it.
func probeDirect(ctx context.Context, s *Sandbox, pol Policy) error {
	pol, err := pol.resolve()
	if err != nil {
		return err
	}
	script := `grep -q "^Seccomp:[[:space:]]*2" /proc/self/status && grep -q "^NoNewPrivs:[[:space:]]*1" /proc/self/status`
	p, err := s.start(ctx, Strong, pol, []string{"/bin/sh", "-c", script}, nil, "")
	if err != nil {
		return err
	}
	go func() { _, _ = io.Copy(io.Discard, p.Stderr) }()
	_, _ = io.Copy(io.Discard, p.Stdout)
	code, err := p.Wait()
	if err == nil && code != 0 {
		err = fmt.Errorf("exit %d", code)
	}
	return err
}

func probeLevel(ctx context.Context, s *Sandbox, lv Level, pol Policy) (probeReport, error) {
	var r probeReport
	pol, err := pol.resolve()
	if err != nil {
		return r, err
	}
	p, err := s.start(ctx, lv, pol, nil, nil, probeOp)
	if err != nil {
		return r, err
	}
	errc := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(io.LimitReader(p.Stderr, 4096)); errc <- b }()
	out, _ := io.ReadAll(io.LimitReader(p.Stdout, 4096))
	stderr := <-errc
	code, err := p.Wait()
	if err != nil {
		return r, err
	}
	if code != 0 {
		return r, fmt.Errorf("exit %d: %s", code, strings.TrimSpace(string(stderr)))
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return r, fmt.Errorf("unreadable probe answer %q: %w", out, err)
	}
	return r, nil
}
