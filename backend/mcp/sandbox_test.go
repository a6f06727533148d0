//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-app/cairn/backend/apperr"
	"github.com/cairn-app/cairn/backend/mcp/mcptest"
	"github.com/cairn-app/cairn/backend/mcp/proc"
	"github.com/cairn-app/cairn/backend/sandbox/confine"
)

// testSandbox is a sandbox whose helper is this test binary (TestMain), at level lv (""
// the best the machine gives).
func testSandbox(t *testing.T, lv confine.Level) *confine.Sandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := confine.New(filepath.Join(t.TempDir(), "data"), confine.Options{Exe: exe, Force: lv})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// bestLevel fails the test where no sandbox works: the suite needs one on Linux.
func bestLevel(t *testing.T, sb *confine.Sandbox) confine.Level {
	t.Helper()
	st := sb.Status(context.Background())
	if st.Level == confine.None {
		t.Fatalf("no sandbox level works on this machine: %v", st.Reasons)
	}
	return st.Level
}

// TestSandboxedFilesystemServer runs server-filesystem in the sandbox with one writable
// and one read-only folder, and a third folder among its arguments that the sandbox does
// not show: its tools are listed, a write in the writable folder lands, the read-only
// folder is read but a write there is refused by the sandbox (the server itself allows
// it), the hidden folder is not there at all, and stopping the server leaves no process.
func TestSandboxedFilesystemServer(t *testing.T) {
	mcptest.NeedNPM(t)
	sb := testSandbox(t, "")
	lv := bestLevel(t, sb)
	h := newHarness(t, func(c *Config) { c.Sandbox = sb })
	w, r, hidden := t.TempDir(), t.TempDir(), t.TempDir()
	mustFile(t, filepath.Join(r, "note.txt"), "read me")
	mustFile(t, filepath.Join(hidden, "key.txt"), "top secret")
	v := h.save(Server{Name: "fs", Command: mcptest.Node(t), Args: []string{mcptest.Filesystem(), w, r, hidden}, Enabled: true,
		RootsMode: RootsNone, Sandbox: &ServerSandbox{Enabled: true, Write: []string{w}, Read: []string{r}}})
	v = h.wait(v.ID, 60*time.Second, "ready", ready)
	if !hasTool("write_file")(v) || !hasTool("read_text_file")(v) {
		t.Fatalf("tools: %+v", v.Tools)
	}
	call := func(tool string, args map[string]string) (string, bool) {
		t.Helper()
		b, _ := json.Marshal(args)
		res, err := h.call(v.ID, tool, string(b), nil)
		if err != nil {
			return err.Error(), true
		}
		return res.Content, res.IsError
	}
	if out, bad := call("write_file", map[string]string{"path": filepath.Join(w, "out.txt"), "content": "written inside"}); bad {
		t.Fatalf("write in the writable folder: %s", out)
	}
	if b, err := os.ReadFile(filepath.Join(w, "out.txt")); err != nil || string(b) != "written inside" {
		t.Fatalf("the write did not land: %q %v", b, err)
	}
	if out, bad := call("read_text_file", map[string]string{"path": filepath.Join(r, "note.txt")}); bad || !strings.Contains(out, "read me") {
		t.Fatalf("read in the read-only folder: %s", out)
	}
	out, bad := call("write_file", map[string]string{"path": filepath.Join(r, "planted.txt"), "content": "x"})
	if !bad || !containsAny(out, []string{"EROFS", "EACCES", "read-only", "permission denied"}) {
		t.Fatalf("a write in the read-only folder: %v %s", bad, out)
	}
	if _, err := os.Stat(filepath.Join(r, "planted.txt")); !os.IsNotExist(err) {
		t.Fatalf("the refused write left a file: %v", err)
	}
	if out, bad := call("read_text_file", map[string]string{"path": filepath.Join(hidden, "key.txt")}); !bad || strings.Contains(out, "top secret") {
		t.Fatalf("the hidden folder was read: %s", out)
	}
	logs, _ := h.m.Logs(v.ID, 200)
	var log strings.Builder
	for _, l := range logs {
		log.WriteString(l.Text + "\n")
	}
	if !strings.Contains(log.String(), "in the sandbox") {
		t.Fatalf("log does not show the sandboxed start:\n%s", log.String())
	}
	// At strong the folder is not mounted at all (Landlock, the reduced level's wall,
	// refuses opening it but not a stat, so there the refused read above is the proof).
	if lv == confine.Strong && !strings.Contains(log.String(), "Cannot access directory "+hidden) {
		t.Fatalf("at strong the hidden folder was there for the server:\n%s", log.String())
	}
	pid := v.Status.Pid
	if err := h.m.Delete(context.Background(), v.ID); err != nil {
		t.Fatal(err)
	}
	if pid <= 0 || proc.GroupAlive(pid) {
		t.Fatalf("the sandboxed server's group %d is still alive after Delete", pid)
	}
}

// TestSandboxedServerEnvAndNetwork runs server-everything in the sandbox: its environment
// holds its own configured variable and nothing of Cairn's (a token in Cairn's own
// environment), and with the network off its fetch of a loopback server the test starts
// fails and never arrives; the same server unsandboxed reaches it, so the probe works.
func TestSandboxedServerEnvAndNetwork(t *testing.T) {
	mcptest.NeedNPM(t)
	sb := testSandbox(t, "")
	bestLevel(t, sb)
	t.Setenv("CAIRN_TEST_PROVIDER_KEY", "sk-cairn-own-secret")
	var hits atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("hello from loopback"))
	}))
	defer web.Close()
	h := newHarness(t, func(c *Config) { c.Sandbox = sb })
	s := everything(t, "ev")
	s.Env = []Var{{Name: "SERVER_OWN", Value: "mine"}}
	s.Sandbox = &ServerSandbox{Enabled: true, Write: []string{t.TempDir()}}
	v := h.wait(h.save(s).ID, 60*time.Second, "ready", ready)
	res, err := h.call(v.ID, "get-env", `{}`, nil)
	if err != nil || res.IsError {
		t.Fatalf("get-env: %v %+v", err, res)
	}
	if !strings.Contains(res.Content, `"SERVER_OWN": "mine"`) || strings.Contains(res.Content, "sk-cairn-own-secret") ||
		strings.Contains(res.Content, "CAIRN_TEST_PROVIDER_KEY") {
		t.Fatalf("the sandboxed server's environment: %s", res.Content)
	}
	fetch := `{"name":"page.gz","data":"` + web.URL + `/page","outputType":"resource"}`
	res, err = h.call(v.ID, "gzip-file-as-resource", fetch, nil)
	if err == nil && !res.IsError {
		t.Fatalf("the sandboxed server reached the network: %+v", res)
	}
	if hits.Load() != 0 {
		t.Fatalf("the loopback server was reached %d times from the sandbox", hits.Load())
	}
	s = v.Server
	s.Sandbox = &ServerSandbox{Enabled: false}
	v = h.wait(h.save(s).ID, 60*time.Second, "ready unsandboxed", func(x ServerView) bool { return ready(x) && x.Status.Pid != v.Status.Pid })
	if res, err = h.call(v.ID, "gzip-file-as-resource", fetch, nil); err != nil || res.IsError || hits.Load() != 1 {
		t.Fatalf("unsandboxed, the fetch should arrive: %v %+v (hits %d)", err, res, hits.Load())
	}
}

// TestSandboxRefusesWhatItCannotGive: a sandboxed server where no sandbox level works, or
// with domains below the strong level, is shown failed with its reason and never started
// unsandboxed (no process, no restart timer).
func TestSandboxRefusesWhatItCannotGive(t *testing.T) {
	mcptest.NeedNPM(t)
	reduced := testSandbox(t, confine.Reduced)
	wantReduced := apperr.MCPSandboxNetwork
	if reduced.Status(context.Background()).Level != confine.Reduced {
		wantReduced = apperr.MCPSandboxUnavailable // this machine cannot give reduced: nothing works at it
	}
	cases := []struct {
		name    string
		sb      *confine.Sandbox
		domains []string
		want    apperr.Code
	}{
		{"no sandbox level", testSandbox(t, confine.None), nil, apperr.MCPSandboxUnavailable},
		{"domains below strong", reduced, []string{"example.com"}, wantReduced},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, func(cfg *Config) { cfg.Sandbox = c.sb })
			s := everything(t, "boxed")
			s.Sandbox = &ServerSandbox{Enabled: true, Write: []string{t.TempDir()}, Domains: c.domains}
			v := h.wait(h.save(s).ID, 30*time.Second, "failed", func(x ServerView) bool { return x.Status.State == StateFailed })
			if v.Status.Error == nil || v.Status.Error.Code != c.want || v.Status.Pid != 0 {
				t.Fatalf("status %+v, want failed with %s and no process", v.Status, c.want)
			}
			if _, err := h.call(v.ID, "echo", `{"message":"hi"}`, nil); err == nil {
				t.Fatal("a call started the server all the same")
			} else {
				wantCode(t, err, c.want)
			}
		})
	}
}

// TestSandboxedServerTreeIsKilled: a sandboxed server's descendant that left its process
// group and session (setsid) is gone once the server is turned off.
func TestSandboxedServerTreeIsKilled(t *testing.T) {
	mcptest.NeedNPM(t)
	sb := testSandbox(t, "")
	bestLevel(t, sb)
	h := newHarness(t, cold, func(c *Config) { c.Sandbox = sb })
	modules, err := filepath.EvalSymlinks(filepath.Join(mcptest.Dir(), "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	everything, _ := filepath.EvalSymlinks(mcptest.Everything())
	mark := strconv.Itoa(40000 + os.Getpid()%20000) // a sleep no other process runs
	s := sh("spawner", fmt.Sprintf(`setsid sh -c 'exec sleep %s' & exec %q %q stdio`, mark, mcptest.Node(t), everything))
	s.Sandbox = &ServerSandbox{Enabled: true, Write: []string{t.TempDir()}, Read: []string{modules}}
	v := h.save(s)
	if _, err := h.m.RefreshTools(ctxT(t, 60*time.Second), v.ID); err != nil {
		t.Fatal(err)
	}
	sleeper := func() []int {
		var out []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if pid, err := strconv.Atoi(e.Name()); err == nil && alive(pid) && strings.TrimSpace(cmdline(pid)) == "sleep "+mark {
				out = append(out, pid)
			}
		}
		return out
	}
	var found []int
	for deadline := time.Now().Add(5 * time.Second); len(found) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		found = sleeper()
	}
	if len(found) == 0 {
		t.Fatal("the setsid'd descendant did not start")
	}
	t.Cleanup(func() {
		for _, p := range found {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	if _, err := h.m.SetEnabled(context.Background(), v.ID, false); err != nil {
		t.Fatal(err)
	}
	waitGone(t, found, 5*time.Second)
}

func mustFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
