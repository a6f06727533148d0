//go:build linux

package confine

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"
)

// BenchmarkStartPhases splits a sandboxed `true` into the steps of start and Wait, with,
// for the strong level, bubblewrap alone on the same mounts running `true` and the
// helper doing nothing: where the overhead over a plain exec goes. Metrics are p50
// milliseconds (bench/sandbox.sh runs it after BenchmarkOverhead).
func BenchmarkStartPhases(b *testing.B) {
	ws := b.TempDir()
	exe, _ := os.Executable()
	for i := 0; i < b.N; i++ {
		for _, lv := range []Level{Strong, Reduced} {
			s, err := New(b.TempDir(), Options{Exe: exe, Force: lv})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.level(s.probe(context.Background())); err != nil {
				b.Fatal(err)
			}
			phases(b, s, lv, ws)
			if lv == Strong {
				bwrapAlone(b, s, ws, exe)
			}
		}
	}
}

// phases times each step of 30 runs of `true` and reports the p50 of each.
func phases(b *testing.B, s *Sandbox, lv Level, ws string) {
	names := []string{"layout", "cgroups", "command", "launch", "exit", "wait"}
	ph := map[string][]time.Duration{}
	for i := 0; i < 30; i++ {
		t := time.Now()
		mark := func(n string) { ph[n] = append(ph[n], time.Since(t)); t = time.Now() }
		pol, _ := Policy{Workspace: ws}.resolve()
		l, err := s.layoutFor(lv, pol)
		if err != nil {
			b.Fatal(err)
		}
		mark("layout")
		cg := newCgroups(pol.Limits.Processes)
		mark("cgroups")
		cmd, h, err := s.command(lv, l, []string{"true"}, "", cg.any())
		if err != nil {
			b.Fatal(err)
		}
		mark("command")
		p, err := launch(context.Background(), cmd, h, nil, lv, cg)
		if err != nil {
			b.Fatal(err)
		}
		p.cleanup = l.cleanup
		mark("launch")
		<-p.done
		mark("exit")
		if c, _ := p.Wait(); c != 0 {
			b.Fatalf("true exited %d", c)
		}
		mark("wait")
	}
	for _, n := range names {
		d := ph[n]
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		b.ReportMetric(ms(d[len(d)/2]), string(lv)+"-"+n+"-ms")
	}
}

// bwrapAlone runs bubblewrap on the strong level's mounts with `true`, and with the
// helper binary doing nothing (the Go runtime's start inside).
func bwrapAlone(b *testing.B, s *Sandbox, ws, exe string) {
	pol, _ := Policy{Workspace: ws}.resolve()
	l, err := s.layoutFor(Strong, pol)
	if err != nil {
		b.Fatal(err)
	}
	defer l.cleanup()
	args := bwrapArgs(l)
	run := func(argv ...string) float64 {
		return ms(p50(b, 30, func() {
			c := exec.Command("bwrap", append(append(append([]string{}, args...), "--"), argv...)...)
			c.Env = []string{}
			_ = c.Run()
		}))
	}
	b.ReportMetric(run("/bin/true"), "bwrap-alone-true-ms")
	b.ReportMetric(run(insideExe, "-test.run=^$"), "bwrap-alone-helper-ms")
}
