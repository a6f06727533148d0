//go:build linux

package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/mcp/mcptest"
)

// TestBrowserServersLeaveNothing SIGKILLs a Cairn whose browser server (Playwright's or
// Chrome DevTools') has Chromium open on a loopback page: the server and every process of
// Chromium's (its zygotes and renderers included, which do not all carry Cairn's marker)
// end.
func TestBrowserServersLeaveNothing(t *testing.T) {
	mcptest.NeedNPM(t)
	page := mcptest.ServePage(t)
	for _, b := range mcptest.Browsers() {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			proxy := mcptest.StartProxy(t)
			args := append([]string{"-call", b.Navigate + "=" + b.NavArgs(page), dir, mcptest.Node(t)}, b.Args(t, proxy.Addr, t.TempDir())...)
			cmd, _ := startOrphanArgs(t, args)
			token, _ := runRecord(t, dir)
			procs := withDescendants(marked(token))
			browser := slices.DeleteFunc(slices.Clone(procs), func(p int) bool { return !isChromium(p) })
			if len(browser) < 2 {
				t.Fatalf("want Chromium and its helpers among the server's processes, got %v", procs)
			}
			start := time.Now()
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			waitGone(t, procs, 10*time.Second)
			t.Logf("%d processes (%d of Chromium) gone %s after the kill", len(procs), len(browser), time.Since(start).Round(time.Millisecond))
		})
	}
}

// isChromium: the process runs one of Chromium's programs (chromium, its crash handler).
func isChromium(pid int) bool {
	exe, _, _ := strings.Cut(cmdline(pid), " ")
	base := filepath.Base(exe)
	return strings.HasPrefix(base, "chrom") && base != "chrome-devtools-mcp"
}

// withDescendants is pids and every live process below them.
func withDescendants(pids []int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := slices.Clone(pids)
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i]] {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}
