package confine

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/sandbox/ops"
)

// p50 runs f n times and returns the median duration.
func p50(b *testing.B, n int, f func()) time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		start := time.Now()
		f()
		d[i] = time.Since(start)
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[n/2]
}

// BenchmarkOverhead measures, side by side in one run, starting `true` plainly and in
// the sandbox at each level (back to back, and spaced out), and reading a 1 MB file plainly and through RunOp's read
// (bench/sandbox.sh runs it). Metrics are p50 milliseconds.
func BenchmarkOverhead(b *testing.B) {
	ws := b.TempDir()
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 10<<10) // 1 MB of lines
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644); err != nil {
		b.Fatal(err)
	}
	exe, _ := os.Executable()
	if e := os.Getenv("CAIRN_BENCH_HELPER"); e != "" {
		exe = e // Cairn's own binary as the helper (its runtime start is longer than the test binary's)
	}
	n := 30
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plain := p50(b, n, func() { _ = exec.Command("true").Run() })
		b.ReportMetric(ms(plain), "plain-true-ms")
		// The helper binary's own start (package inits and runtime: it stops at once
		// without a policy), which a run through the helper pays once more.
		helper := p50(b, n, func() { _ = exec.Command(exe, execArg).Run() })
		b.ReportMetric(ms(helper), "plain-helper-ms")
		plainRead := p50(b, n, func() { _, _ = os.ReadFile(filepath.Join(ws, "big.txt")) })
		b.ReportMetric(ms(plainRead), "plain-read-ms")
		for _, lv := range []Level{Strong, Reduced} {
			s, err := New(b.TempDir(), Options{Exe: exe, Force: lv})
			if err != nil {
				b.Fatal(err)
			}
			pol := Policy{Workspace: ws}
			sb := p50(b, n, func() {
				p, err := s.Start(context.Background(), pol, []string{"true"}, nil)
				if err != nil {
					b.Fatal(err)
				}
				if c, _ := p.Wait(); c != 0 {
					b.Fatalf("true exited %d", c)
				}
			})
			b.ReportMetric(ms(sb), string(lv)+"-true-ms")
			b.ReportMetric(ms(sb-plain), string(lv)+"-overhead-ms")
			// Spaced out, as a model's commands are: the kernel's grace period for the
			// cgroup move is then paid in full (runs back to back share one).
			spaced := spacedP50(n, func() {
				p, err := s.Start(context.Background(), pol, []string{"true"}, nil)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = p.Wait()
			})
			b.ReportMetric(ms(spaced-plain), string(lv)+"-spaced-overhead-ms")
			req, _ := json.Marshal(ops.ReadRequest{Common: ops.Common{Workspace: ws}, Path: "big.txt", Limit: 20000})
			rd := p50(b, n, func() {
				if _, err := s.RunOp(context.Background(), pol, ops.OpRead, req); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(ms(rd), string(lv)+"-read-ms")
		}
	}
}

// spacedP50 is p50 with a pause of 60 ms before each run (not counted).
func spacedP50(n int, f func()) time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		time.Sleep(60 * time.Millisecond)
		start := time.Now()
		f()
		d[i] = time.Since(start)
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[n/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
